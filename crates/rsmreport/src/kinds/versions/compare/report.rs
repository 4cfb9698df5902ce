//! Command assembly (compare): the comparison's HTML report, through the
//! report engine (compare spec 2.5): the nine sections (verdicts,
//! preflight, evaluation, consistency and degradation, true-score
//! evaluation, by subgroup, fairness, between the versions, provenance;
//! sections 3-9 are built by [`super::sections`]). Values are formatted here; the engine only
//! places them (and escapes every string).
//!
//! Produces a [`Report`] value; writes nothing.

use crate::kinds::common::comparison::Estimate;
use crate::kinds::common::verdict::Verdict;
use crate::kinds::versions::build::paired::{LevelRow, VerdictRow};
use crate::kinds::versions::compare::run::Comparison;
use crate::kinds::versions::compare::sections;
use crate::kinds::versions::report::{number, verdict_badge, verdict_class, verdict_counts};
use rsmreport_report::render::context::{Cell, Glance, InputCtx, Row, Table};
use rsmreport_report::render::format::{escape_html, num3, thousands};
use rsmreport_report::render::tables::{head, p_value_cell, stick_column, text_cell};
use rsmreport_report::render::{Block, Decision, Header, Section, Tone, Version};
use rsmreport_report::render::{Builder, Report};

fn triple(e: Estimate) -> Cell {
    number(e.value, Some((e.lower, e.upper)))
}

/// The cells of one difference: baseline, candidate, Δ (signed), gain
/// (oriented: positive is better), p, verdict.
pub(crate) fn delta_cells(r: &VerdictRow) -> Vec<Cell> {
    vec![
        triple(r.baseline),
        triple(r.candidate),
        triple(r.delta),
        triple(r.gain),
        p_value_cell(r.p_value),
        Cell {
            class: verdict_class(r.verdict).into(),
            ..text_cell(r.verdict.name())
        },
    ]
}

fn verdict_table(b: &mut Builder, c: &Comparison) -> Table {
    let mut t = b.table(
        "verdicts",
        "Each headline statistic on the paired responses: both versions with their intervals, \
         the signed difference Δ = candidate - baseline with its paired interval, the gain \
         (the change oriented so that positive is better: Δ where larger is better, -Δ where \
         smaller is better, |baseline| - |candidate| for SMD) with its interval, the bootstrap \
         p-value of the gain and the verdict taken on the gain; beside them the analytic cross-checks: Zou's (2007) interval for the \
         difference of the two dependent correlations (corr) and McNemar's exact test of the \
         exact agreement on the rounded scores (exact_agr).",
        true,
        true,
    );
    t.columns = [
        "statistic",
        "baseline",
        "candidate",
        "Δ",
        "gain",
        "p",
        "verdict",
        "cross-check",
    ]
    .iter()
    .enumerate()
    .map(|(i, name)| head(name, (1..6).contains(&i)))
    .collect();
    t.rows = c
        .overall
        .iter()
        .map(|r| Row {
            cells: std::iter::once(Cell {
                header: true,
                ..text_cell(&r.statistic)
            })
            .chain(delta_cells(r))
            .chain(std::iter::once(text_cell(&cross_check_text(r))))
            .collect(),
            class: String::new(),
        })
        .collect();
    stick_column(&mut t, "verdict");
    t
}

/// The cross-check of a verdict row in words (empty without one).
fn cross_check_text(r: &VerdictRow) -> String {
    match r.extra.cross_check {
        Some(x) if x.method == "zou" => format!("Zou: [{}, {}]", num3(x.lower), num3(x.upper)),
        Some(x) if x.p_value < 0.001 => "McNemar: p < 0.001".into(),
        Some(x) if x.p_value.is_finite() => {
            format!(
                "McNemar: {}",
                rsmreport_report::render::format::p_clause(x.p_value)
            )
        }
        Some(_) => "McNemar: n/a".into(),
        None => String::new(),
    }
}

/// The subgroup levels whose verdict is `regressed` (compare spec 2.5, 1),
/// one row each: level, statistic, Δ with its interval, p (Holm); `None`
/// when no level regressed.
fn regressed_table(b: &mut Builder, c: &Comparison) -> Option<Table> {
    let rows: Vec<Row> = crate::kinds::versions::compare::tables::regressed_levels(c)
        .map(|(g, r)| Row {
            cells: vec![
                Cell {
                    header: true,
                    ..text_cell(&format!("{g}={}", r.level))
                },
                text_cell(&r.row.statistic),
                triple(r.row.delta),
                p_value_cell(r.row.p_holm),
            ],
            class: String::new(),
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    let mut t = b.table(
        "regressed_levels",
        "The subgroup levels whose verdict is regressed: the difference with its interval and \
         the p-value Holm-adjusted across the levels of the subgroup (every level is in By \
         subgroup).",
        true,
        false,
    );
    t.columns = ["level", "statistic", "Δ", "p (Holm)"]
        .iter()
        .enumerate()
        .map(|(i, name)| head(name, i >= 2))
        .collect();
    t.rows = rows;
    Some(t)
}

fn level_table(b: &mut Builder, group: &str, rows: &[LevelRow]) -> Table {
    let mut t = b.table(
        &format!("by_{group}"),
        &format!(
            "Each level of {group}: N responses (paired, or the baseline's when unpaired), both \
             versions, the signed difference Δ and the gain (positive is better; for DSM \
             |baseline| - |candidate|, closer to 0) with their intervals (resampled within \
             levels), the p-value, the verdict and the p-value Holm-adjusted across the levels."
        ),
        true,
        true,
    );
    t.columns = [
        "level",
        "statistic",
        "N",
        "baseline",
        "candidate",
        "Δ",
        "gain",
        "p",
        "verdict",
        "p (Holm)",
    ]
    .iter()
    .enumerate()
    .map(|(i, name)| head(name, (2..8).contains(&i) || i == 9))
    .collect();
    t.rows = rows
        .iter()
        .map(|r| {
            let mut cells = vec![
                Cell {
                    header: true,
                    ..text_cell(&r.level)
                },
                text_cell(&r.row.statistic),
                rsmreport_report::render::tables::count_cell(r.n as f64),
            ];
            cells.extend(delta_cells(&r.row));
            cells.push(p_value_cell(r.row.p_holm));
            Row {
                cells,
                class: String::new(),
            }
        })
        .collect();
    stick_column(&mut t, "verdict");
    t
}

fn preflight_table(b: &mut Builder, c: &Comparison) -> Table {
    let rows: Vec<_> = c.preflight.iter().map(|r| r.shared()).collect();
    crate::kinds::common::versions::preflight_table(b, &rows)
}

fn verdicts(b: &mut Builder, c: &Comparison) -> Vec<Block> {
    let mut verdicts = vec![Block::Heading(b.heading(2, "Verdicts"))];
    verdicts.extend(c.notes.iter().map(|n| Block::Warning(n.clone())));
    if !c.overall.is_empty() {
        verdicts.push(Block::Paragraph(verdict_intro(c)));
        verdicts.push(Block::Table(verdict_table(b, c)));
    }
    verdicts.extend(directions(c).into_iter().map(Block::Note));
    if !c.overall.is_empty() {
        verdicts.push(Block::Paragraph(margins_text(c)));
        verdicts.push(Block::Table(words_table(b)));
    }
    match regressed_table(b, c) {
        Some(t) => {
            verdicts.push(Block::Warning(format!(
                "{} subgroup level{} regressed:",
                t.rows.len(),
                if t.rows.len() == 1 { "" } else { "s" }
            )));
            verdicts.push(Block::Table(t));
        }
        None if !c.groups.is_empty() => verdicts.push(Block::Paragraph(
            "No subgroup level regressed (see By subgroup).".into(),
        )),
        None => {}
    }
    verdicts
}

/// Every margin in force, in one sentence (compare spec 2.3).
pub(crate) fn margins_text(c: &Comparison) -> String {
    let list: Vec<String> = c
        .margins
        .iter()
        .map(|(name, m)| {
            let unit = if name.ends_with("_agr") {
                " percentage points"
            } else {
                ""
            };
            format!("{name} {m}{unit}")
        })
        .collect();
    format!(
        "A verdict is taken on the interval [lo, hi] of the gain with the statistic's practical \
         margin m (a change smaller than m does not matter; set them in [margins] of the compare \
         config). Margins in force: {}. For a subgroup level, a verdict other than equivalent \
         or no detectable change also needs its Holm-adjusted p-value below {}.",
        list.join(", "),
        num3(1.0 - c.settings.level)
    )
}

/// What every verdict word means (compare spec 2.3).
fn words_table(b: &mut Builder) -> Table {
    let mut t = b.table(
        "verdict_words",
        "The verdict words: the condition on the gain's interval [lo, hi] and the margin m, and \
         what each means.",
        false,
        false,
    );
    t.columns = ["verdict", "condition", "meaning"]
        .iter()
        .map(|n| head(n, false))
        .collect();
    t.rows = Verdict::ALL
        .iter()
        .map(|v| Row {
            cells: vec![
                Cell {
                    class: verdict_class(*v).into(),
                    ..text_cell(v.name())
                },
                text_cell(v.condition()),
                text_cell(v.meaning()),
            ],
            class: String::new(),
        })
        .collect();
    t
}

/// The direction of `SMD` and of every `DSM` level that moved (a sign
/// flip, or a verdict other than `equivalent` or `no detectable change`)
/// in words ([`crate::kinds::versions::build::paired::direction`]).
pub(crate) fn directions(c: &Comparison) -> Vec<String> {
    use crate::kinds::versions::build::paired::direction;
    let overall = c
        .overall
        .iter()
        .filter(|r| moved(r))
        .filter_map(|r| direction(r, None));
    let levels = c.groups.iter().flat_map(|(g, rows)| {
        rows.iter()
            .filter(|r| r.row.extra.statistic.absolute && moved(&r.row))
            .filter_map(move |r| direction(&r.row, Some(&format!("{g}={}", r.level))))
    });
    overall.chain(levels).collect()
}

/// Whether a level's signed statistic moved enough to be worth words: its
/// sign flipped, or its verdict says it changed.
fn moved(r: &VerdictRow) -> bool {
    let (b, c) = (r.baseline.value, r.candidate.value);
    let flipped = b * c < 0.0;
    flipped || r.verdict.direction().is_some() || r.verdict == Verdict::ChangedWithinMargin
}

/// Section 6: per subgroup, the level table, the levels on one side only
/// and the forest plot.
fn by_subgroup(b: &mut Builder, c: &Comparison) -> anyhow::Result<Vec<Block>> {
    let mut groups = vec![Block::Heading(b.heading(2, "By subgroup"))];
    if c.groups.is_empty() {
        groups.push(Block::Paragraph("No subgroup was compared.".into()));
    }
    for (g, rows) in &c.groups {
        groups.push(Block::Heading(b.heading(3, g)));
        groups.push(Block::Table(level_table(b, g, rows)));
        let one = c.extra.one_side.iter().find(|o| &o.group == g);
        if let Some(o) = one {
            groups.push(Block::Note(sections::one_side_sentence(o)));
        }
        let forest = rsmreport_report::plots::forest(&sections::forest_data(g, rows, one))?;
        groups.push(Block::Figure(b.figure(forest)));
    }
    Ok(groups)
}

/// The nine sections of compare spec 2.5, in order.
fn sections(b: &mut Builder, c: &Comparison) -> anyhow::Result<Vec<Section>> {
    const NAMES: [&str; 9] = [
        "verdicts",
        "preflight",
        "evaluation",
        "consistency",
        "true_score",
        "by_subgroup",
        "fairness",
        "between_versions",
        "sides",
    ];
    let ids = b.section_ids(NAMES);
    // Headings in page order: the table of contents lists them as made.
    let verdicts = verdicts(b, c);
    let preflight = vec![
        Block::Heading(b.heading(2, "Preflight")),
        Block::Table(preflight_table(b, c)),
    ];
    let blocks = [
        verdicts,
        preflight,
        sections::evaluation(b, c)?,
        sections::consistency(b, c),
        sections::true_score(b, c),
        by_subgroup(b, c)?,
        sections::fairness(b, c),
        sections::between(b, c)?,
        sections::provenance(b, c),
    ];
    Ok(NAMES
        .into_iter()
        .zip(blocks)
        .zip(ids)
        .map(|((name, blocks), id)| Section {
            id,
            name: name.into(),
            kind: "builtin".into(),
            blocks,
        })
        .collect())
}

/// What the verdict table's numbers are: paired, unpaired or stored.
fn verdict_intro(c: &Comparison) -> String {
    let verdict = "A verdict compares the interval of the gain (positive is better) with a \
                   practical margin; the margins and the words are explained under the table.";
    if c.paired {
        format!(
            "Differences are candidate minus baseline on the {} paired responses' {} scores; \
             intervals are {}% paired bootstrap percentile intervals ({} replicates of the \
             responses, both versions from the same resample). {verdict}",
            rsmreport_report::render::format::thousands(paired_n(c) as u64),
            c.score_type,
            c.settings.level * 100.0,
            rsmreport_report::render::format::thousands(c.settings.replicates)
        )
    } else if c.overall.iter().any(|r| r.delta.lower.is_finite()) {
        format!(
            "Unpaired: different responses, differences mix the engine and the sample. The \
             versions share no response, so each version's {} statistics come from its own \
             responses, and no verdict is stronger than likely improved / likely regressed; intervals are {}% bootstrap percentile intervals ({} \
             replicates of each side, drawn independently), and the difference's interval \
             comes from the differences of independent replicates. {verdict}",
            c.score_type,
            c.settings.level * 100.0,
            rsmreport_report::render::format::thousands(c.settings.replicates)
        )
    } else {
        format!(
            "Stored estimates only: a side has no per-response file, so the {} statistics are \
             those of the folders' own tables, without intervals, and no difference can be \
             tested.",
            c.score_type
        )
    }
}

/// The number of paired responses (from the preflight).
fn paired_n(c: &Comparison) -> usize {
    c.preflight
        .iter()
        .find(|r| r.item == "responses paired")
        .and_then(|r| r.baseline.split(' ').next()?.parse().ok())
        .unwrap_or(0)
}

/// The warning of a comparison whose shared responses have different
/// human scores (different ground truth), with the counts; `None` when
/// every shared response has the same human score on both sides.
pub(crate) fn ground_warning(c: &Comparison) -> Option<String> {
    let g = c.ground.filter(|g| g.differing > 0)?;
    Some(format!(
        "different ground truth: the first human scores differ on {} of the {} responses both folders evaluated ({:.1}%); the verdicts rest on the {} responses whose human scores agree",
        thousands(g.differing as u64),
        thousands(g.common as u64),
        100.0 * g.differing as f64 / g.common.max(1) as f64,
        thousands(g.paired as u64)
    ))
}

/// What the comparison decided (issue 38): the overall verdict with its
/// counts, the gates, and the warning of different ground truth.
pub fn decision(c: &Comparison) -> Decision {
    let counts = verdict_counts(c.overall.iter().map(|r| r.verdict));
    let (regressed, improved, tested) = counts;
    let (mut tone, badge) = verdict_badge(counts);
    let on = match c.ground {
        Some(g) if c.paired => format!(", paired on {} responses", thousands(g.paired as u64)),
        _ if c.paired => String::new(),
        _ => ", unpaired (different responses)".into(),
    };
    let mut sentence = format!(
        "{} against {}: regressed on {} of {} statistics, improved on {}{on}.",
        c.candidate_label,
        c.baseline_label,
        thousands(regressed as u64),
        thousands(tested as u64),
        thousands(improved as u64)
    );
    let mut badge = badge.to_string();
    if !c.gates.is_empty() {
        let failed = c.gates.iter().filter(|o| o.fails()).count();
        if failed > 0 {
            tone = Tone::Fail;
            badge = format!("{badge}, gates failed");
            sentence.push_str(&format!(
                " {} of {} gate lines failed.",
                thousands(failed as u64),
                thousands(c.gates.len() as u64)
            ));
        } else {
            sentence.push_str(" Every gate passed.");
        }
    }
    let mut d = Decision::new(tone, badge, sentence);
    d.warnings.extend(ground_warning(c));
    d.marked = c
        .overall
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::Regressed | Verdict::LikelyRegressed))
        .map(|r| format!("Δ {}", r.statistic))
        .collect();
    d
}

fn header(c: &Comparison, inputs: Vec<InputCtx>, epoch: i64) -> Header {
    let glance = c
        .overall
        .iter()
        .filter(|r| ["wtkappa", "corr", "PRMSE"].contains(&r.statistic.as_str()))
        .map(|r| Glance {
            label: format!("Δ {}", r.statistic),
            value: format!("{:+.3}", r.delta.value),
            title: format!("{}: {}", r.statistic, r.verdict.name()),
            ci: format!(
                "{}% CI [{}, {}]",
                c.settings.level * 100.0,
                num3(r.delta.lower),
                num3(r.delta.upper)
            ),
        })
        .collect();
    Header {
        versions: vec![
            Version {
                label: "Baseline".into(),
                value: c.baseline_label.clone(),
            },
            Version {
                label: "Candidate".into(),
                value: c.candidate_label.clone(),
            },
        ],
        intro_html: if c.paired || c.overall.iter().all(|r| r.delta.lower.is_nan()) {
            format!(
                "This report compares the candidate <strong>{}</strong> with the baseline \
                 <strong>{}</strong> on the responses both evaluated.",
                escape_html(&c.candidate_label),
                escape_html(&c.baseline_label)
            )
        } else {
            format!(
                "This report compares the candidate <strong>{}</strong> with the baseline \
                 <strong>{}</strong>. <strong>Unpaired: different responses, differences mix \
                 the engine and the sample</strong>; no verdict is stronger than likely.",
                escape_html(&c.candidate_label),
                escape_html(&c.baseline_label)
            )
        },
        description_html: c
            .description
            .as_deref()
            .map(|d| rsmreport_report::render::markdown::to_html(d, None).0)
            .unwrap_or_default(),
        glance,
        inputs,
        decision: Some(decision(c)),
        ..Header::new(
            "Comparison report",
            format!("{} vs {}", c.baseline_label, c.candidate_label),
            epoch,
        )
    }
}

/// The comparison's report; `inputs` are the two folders.
pub fn report(c: &Comparison, inputs: Vec<InputCtx>, epoch: i64) -> anyhow::Result<Report> {
    let mut b = Builder::new(&c.id, false);
    let panels: Vec<_> = crate::kinds::common::gates::panel(&mut b, &c.gates, "comparison")
        .into_iter()
        .collect();
    let sections = sections(&mut b, c)?;
    Ok(b.finish(header(c, inputs, epoch), panels, sections, &[]))
}
