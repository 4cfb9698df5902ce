//! Command assembly (classify): the HTML report of spec 5 through the
//! report engine. First screen: per system accuracy and macro F1 with
//! their intervals (and the verdict against the baseline), and a sentence
//! naming the best system and whether its lead is real. Sections: data,
//! per class (tables and confusion heat maps), averages and what each
//! hides, curves, calibration, systems compared, by subgroup.
//!
//! Values are formatted here; the engine places them and escapes every
//! string. Produces a [`Report`]; computes nothing new, writes nothing.

use anyhow::Result;

use super::run::{Analysis, SystemResult};
use super::tables::{comparison_rows, summary_columns, summary_value, McNemar};
use crate::kinds::common::comparison::ComparisonRow;
use rsmreport_core::schema::NONE_LABEL;
use rsmreport_report::render::context::{Cell, Glance, InputCtx, Row, Table};
use rsmreport_report::render::format::{escape_html, num3, signed3, thousands};
use rsmreport_report::render::tables::{
    count_cell as count, most_frequent, p_value_cell, some_names, text_cell, titled_head as head,
    MAX_FIGURE_CATEGORIES, MAX_SHOWN_CATEGORIES,
};
use rsmreport_report::render::{Block, Decision, Header, Section, Tone};
use rsmreport_report::render::{Builder, Report};

fn num(x: f64) -> Cell {
    rsmreport_report::render::tables::metric_cell(x, None)
}

fn ci_text(lo: f64, hi: f64) -> String {
    if lo.is_finite() && hi.is_finite() {
        format!("[{}, {}]", num3(lo), num3(hi))
    } else {
        String::new()
    }
}

fn row_head(s: &str) -> Cell {
    Cell {
        header: true,
        ..text_cell(s)
    }
}

fn row(cells: Vec<Cell>) -> Row {
    Row {
        cells,
        class: String::new(),
    }
}

/// A value with its bootstrap interval under it, when there is one.
fn with_ci(a: &Analysis, s: usize, row: &str, metric: &str, x: f64) -> Cell {
    let ci = a
        .intervals
        .as_ref()
        .and_then(|iv| iv.get(s, row, metric))
        .map_or_else(String::new, |r| ci_text(r.interval.lower, r.interval.upper));
    Cell { ci, ..num(x) }
}

fn level_pct(a: &Analysis) -> String {
    a.settings
        .map_or_else(|| "95".into(), |i| format!("{}", i.level * 100.0))
}

/// The candidate rows of one statistic (overall scope).
fn verdict_of<'r>(
    rows: &'r [ComparisonRow<McNemar>],
    candidate: usize,
    stat: &str,
) -> Option<&'r ComparisonRow<McNemar>> {
    rows.iter()
        .find(|r| r.candidate_system == candidate && r.scope == "overall" && r.statistic == stat)
}

fn header(
    a: &Analysis,
    rows: &[ComparisonRow<McNemar>],
    inputs: Vec<InputCtx>,
    epoch: i64,
) -> Header {
    let mut glance = Vec::new();
    for (s, sys) in a.systems.iter().enumerate() {
        let ci = |m: &str| {
            a.intervals
                .as_ref()
                .and_then(|iv| iv.get(s, "overall", m))
                .map_or_else(String::new, |r| {
                    let t = ci_text(r.interval.lower, r.interval.upper);
                    if t.is_empty() {
                        t
                    } else {
                        format!("{}% CI {t}", level_pct(a))
                    }
                })
        };
        let verdict = verdict_of(rows, s, "macro_f1").map_or_else(
            || {
                if a.systems.len() > 1 {
                    "baseline".to_string()
                } else {
                    String::new()
                }
            },
            |r| format!("vs {}: {}", a.systems[r.baseline_system].name, r.verdict),
        );
        glance.push(Glance {
            label: format!("{} accuracy", sys.name),
            value: num3(sys.report.accuracy),
            title: verdict.clone(),
            ci: ci("accuracy"),
        });
        glance.push(Glance {
            label: format!("{} macro F1", sys.name),
            value: num3(sys.macro_f(a.f1())),
            title: verdict.clone(),
            ci: if verdict.is_empty() {
                ci("macro_f1")
            } else {
                format!("{} · {verdict}", ci("macro_f1"))
            },
        });
    }
    let decision = decision(a, rows);
    // The decision box carries the best-system sentence; without one (a
    // single system, no gates) the intro says it.
    let best = if decision.is_some() {
        String::new()
    } else {
        format!(" {}", escape_html(&best_sentence(a, rows)))
    };
    Header {
        intro_html: format!(
            "{} against the gold labels of {} items ({} labels).{best}",
            if a.systems.len() == 1 {
                format!(
                    "The classifier <strong>{}</strong>",
                    escape_html(&a.systems[0].name)
                )
            } else {
                format!("{} classifiers", a.systems.len())
            },
            thousands(a.n as u64),
            thousands(a.k() as u64),
        ),
        glance,
        inputs,
        decision,
        ..Header::new("Classification report", a.id.clone(), epoch)
    }
}

/// What the classification decided (issue 38), when it compares systems:
/// the best system's sentence, plus, for every candidate, the overall
/// statistics that got worse (calibration, Brier and log loss included)
/// and the gates; `None` for a single system without gates.
pub fn decision(a: &Analysis, rows: &[ComparisonRow<McNemar>]) -> Option<Decision> {
    let failed = a.gates.iter().filter(|o| o.fails()).count();
    if a.systems.len() < 2 && a.gates.is_empty() {
        return None;
    }
    let mut worse = Vec::new();
    let (mut regressed, mut improved) = (0usize, 0usize);
    for r in rows.iter().filter(|r| r.scope == "overall") {
        if r.verdict.direction() == Some(false) {
            regressed += 1;
            worse.push(format!(
                "{} {} ({}, {})",
                a.systems[r.candidate_system].name,
                r.statistic,
                signed3(r.delta.value),
                r.verdict
            ));
        } else if r.verdict.direction() == Some(true) {
            improved += 1;
        }
    }
    let calibration = calibration_worse(a);
    worse.extend(calibration.iter().cloned());
    let mut sentence = best_sentence(a, rows);
    if a.systems.len() > 1 {
        if worse.is_empty() {
            sentence.push_str(" No overall statistic got worse.");
        } else {
            sentence.push_str(&format!(" Worse: {}.", worse.join("; ")));
        }
    }
    let (mut tone, mut badge) = Decision::comparison_badge(regressed, improved);
    if !calibration.is_empty() && regressed == 0 {
        // The tested statistics did not regress, but the untested ECE grew.
        tone = Tone::Warn;
        badge = format!("{badge}; calibration worse");
    }
    Some(Decision::new(tone, badge, sentence).with_gates(
        failed,
        a.gates.len(),
        a.systems.len() < 2,
    ))
}

/// Each candidate whose calibration got worse than the baseline's (a
/// larger expected calibration error, as the report shows it to three
/// decimals): `v2 calibration (ECE 0.116 -> 0.151, not tested)`. ECE has no
/// paired test, so this rests on the estimates alone and says so.
fn calibration_worse(a: &Analysis) -> Vec<String> {
    let ece = |k: usize| {
        a.systems
            .get(k)
            .and_then(|s| s.probs.as_ref())
            .map(|p| p.ece())
    };
    let Some(base) = ece(a.baseline) else {
        return Vec::new();
    };
    (0..a.systems.len())
        .filter(|&k| k != a.baseline)
        .filter_map(|k| {
            let e = ece(k)?;
            (num3(e) != num3(base) && e > base).then(|| {
                format!(
                    "{} calibration (ECE {} -> {}, not tested)",
                    a.systems[k].name,
                    num3(base),
                    num3(e)
                )
            })
        })
        .collect()
}

/// The sentence naming the best system by macro F1 and whether its lead
/// over the baseline is real.
pub fn best_sentence(a: &Analysis, rows: &[ComparisonRow<McNemar>]) -> String {
    let f1 = a.f1();
    let best = (0..a.systems.len())
        .max_by(|&x, &y| {
            a.systems[x]
                .macro_f(f1)
                .total_cmp(&a.systems[y].macro_f(f1))
        })
        .unwrap_or(0);
    let sys = &a.systems[best];
    let mut s = format!(
        "{} has the highest macro F1 ({}) and accuracy {}.",
        sys.name,
        num3(sys.macro_f(f1)),
        num3(sys.report.accuracy)
    );
    if a.systems.len() > 1 {
        let base = &a.systems[a.baseline].name;
        match verdict_of(rows, best, "macro_f1") {
            Some(r) => s.push_str(&format!(
                " Against the baseline {base}: macro F1 {} by {:+.3}{} ({}).",
                if r.delta.value >= 0.0 { "up" } else { "down" },
                r.delta.value,
                if r.delta.lower.is_finite() {
                    format!(" [{:+.3}, {:+.3}]", r.delta.lower, r.delta.upper)
                } else {
                    String::new()
                },
                r.verdict
            )),
            None => s.push_str(&format!(
                " It is the baseline ({base}); no other system does better."
            )),
        }
    }
    s
}

fn summary_table(b: &mut Builder, a: &Analysis) -> Table {
    let cols = summary_columns(a);
    let mut t = b.table(
        "summary",
        "One row per system: the headline numbers (intervals under the values).",
        true,
        true,
    );
    t.columns = std::iter::once(head("system", false, ""))
        .chain(cols.iter().map(|c| head(c, true, "")))
        .collect();
    t.rows = a
        .systems
        .iter()
        .enumerate()
        .map(|(s, sys)| {
            let cells = std::iter::once(row_head(&sys.name))
                .chain(cols.iter().map(|c| {
                    let x = summary_value(a, sys, c);
                    if matches!(*c, "n" | "n_abstained") {
                        count(x)
                    } else {
                        with_ci(a, s, "overall", c, x)
                    }
                }))
                .collect();
            row(cells)
        })
        .collect();
    t
}

fn class_table(b: &mut Builder, a: &Analysis, s: usize, sys: &SystemResult) -> Table {
    let f1 = a.f1();
    let mut t = b.table(
        &format!("per class {}", sys.name),
        &format!(
            "{}: precision, recall and F1 per class (zero_division = 0), then the averages.",
            sys.name
        ),
        true,
        true,
    );
    t.columns = vec![
        head("class", false, ""),
        head(
            "precision",
            true,
            "tp / predicted; 0 when the class is never predicted",
        ),
        head("recall", true, "tp / gold items of the class"),
        head("F1", true, "harmonic mean of precision and recall"),
        head("support", true, "gold items of the class"),
        head("predicted", true, "items predicted as the class"),
    ];
    let predicted = sys.confusion.column_totals();
    let mut rows: Vec<Row> = shown_classes(a)
        .into_iter()
        .map(|j| {
            let p = &sys.report.per_class[j];
            let l = &a.labels[j];
            row(vec![
                row_head(l),
                with_ci(a, s, l, "precision", p.precision),
                with_ci(a, s, l, "recall", p.recall),
                with_ci(a, s, l, "f1", p.f[f1]),
                count(sys.report.support[j]),
                count(predicted[j]),
            ])
        })
        .collect();
    for (name, p, metric) in [
        ("macro avg", &sys.report.macro_avg, "macro_f1"),
        ("micro avg", &sys.report.micro_avg, "micro_f1"),
        ("weighted avg", &sys.report.weighted_avg, "weighted_f1"),
    ] {
        rows.push(Row {
            cells: vec![
                row_head(name),
                num(p.precision),
                num(p.recall),
                with_ci(a, s, "overall", metric, p.f[f1]),
                count(sys.n as f64),
                Cell::default(),
            ],
            class: "avg".into(),
        });
    }
    t.rows = rows;
    t
}

fn data_section(b: &mut Builder, a: &Analysis) -> Vec<Block> {
    let mut blocks = vec![Block::Heading(b.heading(2, "Data"))];
    blocks.push(Block::Paragraph(format!(
        "{} rows read; {} without a gold label were left out; {} items are evaluated. Labels are \
         compared as text after trimming white space{}.",
        thousands(a.n_rows as u64),
        thousands(a.n_dropped_blank_gold as u64),
        thousands(a.n as u64),
        if a.ordinal {
            " (as numbers: ordinal = true)"
        } else {
            ""
        }
    )));
    let mut t = b.table(
        "labels",
        "Each label: gold items, and items each system predicted; (none) counts abstentions.",
        true,
        true,
    );
    t.columns = std::iter::once(head("label", false, ""))
        .chain(std::iter::once(head("gold", true, "")))
        .chain(a.systems.iter().map(|s| head(&s.name, true, "predicted")))
        .collect();
    let k = a.k();
    t.rows = shown_classes(a)
        .into_iter()
        .chain([k])
        .map(|j| {
            let label = if j < k {
                a.labels[j].as_str()
            } else {
                NONE_LABEL
            };
            let gold = if j < k { a.gold_counts[j] as f64 } else { 0.0 };
            row(std::iter::once(row_head(label))
                .chain(std::iter::once(count(gold)))
                .chain(a.pred_counts.iter().map(|c| count(c[j] as f64)))
                .collect())
        })
        .collect();
    blocks.push(Block::Table(t));
    if a.k() > MAX_SHOWN_CATEGORIES {
        blocks.push(Block::Note(format!(
            "The table shows the {MAX_SHOWN_CATEGORIES} of the {} labels with the most gold \
             items; the output files keep every label.",
            thousands(a.k() as u64)
        )));
    }
    for sys in a.systems.iter().filter(|s| s.n_abstained > 0) {
        blocks.push(Block::Note(format!(
            "{} abstained on {} items (blank predictions). An abstention is an error, not a \
             missing value: it counts as wrong in accuracy and lowers recall, is shown as the \
             column (none) of the confusion matrix, and is no class in the averages (micro \
             precision is then correct / answered items).",
            sys.name,
            thousands(sys.n_abstained as u64)
        )));
    }
    blocks
}

/// The classes the report's per-class tables show: every class, or the
/// [`MAX_SHOWN_CATEGORIES`] with the most gold items (the files keep
/// every class).
pub fn shown_classes(a: &Analysis) -> Vec<usize> {
    let gold: Vec<f64> = a.gold_counts.iter().map(|&c| c as f64).collect();
    most_frequent(&gold, MAX_SHOWN_CATEGORIES)
}

/// What the report leaves out with many classes, or `None`.
fn left_out_note(a: &Analysis) -> Option<String> {
    (a.k() > MAX_SHOWN_CATEGORIES).then(|| {
        format!(
            "There are {} labels: the tables of the report show the {MAX_SHOWN_CATEGORIES} with \
             the most gold items and the confusion matrices and figures the \
             {MAX_FIGURE_CATEGORIES} with the most; the averages are over every label, and every \
             label is in the output files (the confusion matrix file lists its non-zero cells \
             above 99 labels).",
            thousands(a.k() as u64)
        )
    })
}

fn classes_section(b: &mut Builder, a: &Analysis) -> Result<Vec<Block>> {
    let mut blocks = vec![Block::Heading(b.heading(2, "Per class"))];
    if let Some(note) = left_out_note(a) {
        blocks.push(Block::Note(note));
    }
    for (s, sys) in a.systems.iter().enumerate() {
        if a.systems.len() > 1 {
            blocks.push(Block::Heading(b.heading(3, &sys.name)));
        }
        blocks.push(Block::Table(class_table(b, a, s, sys)));
        let predicted = sys.confusion.column_totals();
        let never: Vec<&str> = (0..a.k())
            .filter(|&j| predicted[j] == 0.0)
            .map(|j| a.labels[j].as_str())
            .collect();
        if !never.is_empty() {
            blocks.push(Block::Warning(format!(
                "{} never predicts {}: precision is 0/0 there, reported as 0 (zero_division = 0), \
                 which pulls the macro averages down.",
                sys.name,
                some_names(&never, 20)
            )));
        }
        blocks.extend(super::report_figures::confusion(b, a, sys)?);
    }
    Ok(blocks)
}

fn averages_section(b: &mut Builder, a: &Analysis) -> Vec<Block> {
    let mut blocks = vec![Block::Heading(b.heading(2, "Averages and what each hides"))];
    blocks.push(Block::Table(summary_table(b, a)));
    blocks.push(Block::Paragraph(intervals_sentence(a)));
    blocks.push(Block::Note(
        "Macro F1 weighs a rare class as much as a frequent one. Weighted and micro averages let \
         the frequent classes dominate. In single-label tasks without abstentions micro F1 \
         equals accuracy. A class that is rarely predicted can have perfect precision. Precision \
         of a class never predicted is 0 (zero_division = 0)."
            .into(),
    ));
    blocks
}

/// What the intervals are: sampling uncertainty over items.
fn intervals_sentence(a: &Analysis) -> String {
    match (&a.intervals, a.settings) {
        (Some(iv), Some(set)) => {
            let mut s = format!(
                "Intervals under the values are {}% percentile bootstrap intervals over items \
                 ({} replicates, seed {}; items dealt into {} random blocks): the sampling \
                 uncertainty of the test set, not label noise. Wilson's interval of accuracy is \
                 in the _ci table.",
                set.level * 100.0,
                rsmreport_report::render::format::thousands(iv.replicates as u64),
                set.seed,
                rsmreport_report::render::format::thousands(iv.blocks as u64)
            );
            if iv.rank_replicates < iv.replicates {
                s.push_str(&format!(
                    " On data this large, macro average precision and ROC AUC use the first {} \
                     replicates.",
                    iv.rank_replicates
                ));
            }
            s
        }
        _ => "Intervals are off (intervals = false or replicates = 0).".into(),
    }
}

fn comparisons_section(
    b: &mut Builder,
    a: &Analysis,
    rows: &[ComparisonRow<McNemar>],
) -> Result<Vec<Block>> {
    let mut blocks = vec![Block::Heading(b.heading(2, "Systems compared"))];
    if a.systems.len() < 2 {
        blocks.push(Block::Paragraph("One system: nothing to compare.".into()));
        return Ok(blocks);
    }
    blocks.push(Block::Paragraph(format!(
        "Each system against the baseline {} on the same {} items: Δ = candidate − baseline, \
         with a paired bootstrap interval and p-value; gain is Δ oriented so that positive is \
         better (−Δ for Brier). Per-class Δ recall p-values are Holm-adjusted across classes. \
         McNemar's exact test on accuracy is in the accuracy row.",
        a.systems[a.baseline].name,
        thousands(a.n as u64)
    )));
    blocks.extend(super::report_figures::forest_blocks(b, a, rows)?);
    let mut t = b.table(
        "comparisons",
        "Paired differences against the baseline, with verdicts.",
        true,
        true,
    );
    // The decision first (issue 38): the verdict and Δ right after the
    // statistic, the estimates after them. The written
    // `_system_comparisons` table keeps the spec's column order.
    t.columns = [
        "system",
        "scope",
        "statistic",
        "verdict",
        "Δ",
        "gain",
        "p",
        "p Holm",
        "McNemar p",
        "baseline",
        "candidate",
    ]
    .iter()
    .enumerate()
    .map(|(i, h)| head(h, i > 3, ""))
    .collect();
    t.rows = shown_rows(a, rows, MAX_SHOWN_CATEGORIES)
        .into_iter()
        .map(|r| {
            row(vec![
                row_head(&a.systems[r.candidate_system].name),
                text_cell(&r.scope),
                text_cell(&r.statistic),
                // `verdict`: the column narrow screens keep in view (stick_column below).
                Cell {
                    class: "verdict".into(),
                    ..text_cell(r.verdict.name())
                },
                Cell {
                    ci: ci_text(r.delta.lower, r.delta.upper),
                    ..num(r.delta.value)
                },
                Cell {
                    ci: ci_text(r.gain.lower, r.gain.upper),
                    ..num(r.gain.value)
                },
                p_value_cell(r.p_value),
                p_value_cell(r.p_holm),
                p_value_cell(r.extra.p),
                Cell {
                    ci: ci_text(r.baseline.lower, r.baseline.upper),
                    ..num(r.baseline.value)
                },
                Cell {
                    ci: ci_text(r.candidate.lower, r.candidate.upper),
                    ..num(r.candidate.value)
                },
            ])
        })
        .collect();
    rsmreport_report::render::tables::stick_column(&mut t, "verdict");
    blocks.push(Block::Table(t));
    blocks.push(Block::Glossary {
        summary: format!(
            "What the verdict words mean (margins in force, set in [margins]: {})",
            a.margins
                .iter()
                .map(|(s, m)| format!("{s} {m}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        terms: super::report_figures::verdict_terms(),
    });
    Ok(blocks)
}

/// The comparison rows of the overall statistics and of the `max`
/// classes with the most gold items (every row with fewer classes).
pub fn shown_rows<'r>(
    a: &Analysis,
    rows: &'r [ComparisonRow<McNemar>],
    max: usize,
) -> Vec<&'r ComparisonRow<McNemar>> {
    let gold: Vec<f64> = a.gold_counts.iter().map(|&c| c as f64).collect();
    let shown: Vec<&str> = most_frequent(&gold, max)
        .into_iter()
        .map(|j| a.labels[j].as_str())
        .collect();
    rows.iter()
        .filter(|r| {
            r.scope
                .strip_prefix("class=")
                .is_none_or(|l| shown.contains(&l))
        })
        .collect()
}

/// The report of an analysis; `inputs`: the predictions file, for
/// provenance.
pub fn report(a: &Analysis, inputs: Vec<InputCtx>, epoch: i64) -> Result<Report> {
    let rows = comparison_rows(a);
    let mut b = Builder::new(&a.id, false);
    let panels: Vec<_> = crate::kinds::common::gates::panel(&mut b, &a.gates, "run")
        .into_iter()
        .collect();
    let names = [
        "systems",
        "data",
        "per_class",
        "averages",
        "curves",
        "calibration",
        "by_subgroup",
    ];
    let ids = b.section_ids(names);
    let bodies = vec![
        comparisons_section(&mut b, a, &rows)?,
        data_section(&mut b, a),
        classes_section(&mut b, a)?,
        averages_section(&mut b, a),
        super::report_figures::curves_section(&mut b, a)?,
        super::report_figures::calibration_section(&mut b, a)?,
        super::report_figures::groups_section(&mut b, a)?,
    ];
    let sections = bodies
        .into_iter()
        .zip(names.iter().zip(ids))
        .map(|(blocks, (name, id))| Section {
            id,
            name: name.to_string(),
            kind: "builtin".into(),
            blocks,
        })
        .collect();
    Ok(b.finish(header(a, &rows, inputs, epoch), panels, sections, &[]))
}
