//! Command assembly (compare): the report sections 3-9 of compare spec
//! 2.5 (evaluation, consistency and degradation, true-score evaluation,
//! the forest plots of the subgroups, fairness, between the versions,
//! provenance), as report-engine blocks. Values are formatted here; the
//! engine only places them (and escapes every string).
//!
//! Produces blocks and figures; writes nothing.

use anyhow::Result;

use crate::kinds::common::rounded;
use crate::kinds::versions::build::paired::{LevelRow, BY_LEVEL};
use crate::kinds::versions::compare::between::Between;
use crate::kinds::versions::compare::report::delta_cells;
use crate::kinds::versions::compare::run::Comparison;
use crate::kinds::versions::compare::stored::{Matrices, OneSide, Part, StoredRow};
use crate::kinds::versions::report::number;
use rsmreport_report::plots;
use rsmreport_report::render::context::{Cell, Row, Table};
use rsmreport_report::render::format::{count_f64, distinct_labels, raw_value, score_label};
use rsmreport_report::render::tables::{head, text_cell};
use rsmreport_report::render::Block;
use rsmreport_report::render::Builder;

fn header_cell(s: &str) -> Cell {
    Cell {
        header: true,
        ..text_cell(s)
    }
}

/// A stored number: counts (`N`, `N raters`) without decimals.
fn stored_cell(statistic: &str, x: f64) -> Cell {
    if statistic == "N" || statistic.starts_with("N ") {
        Cell {
            text: count_f64(x),
            class: "num".into(),
            value: raw_value(x),
            ..Cell::default()
        }
    } else {
        number(x, None)
    }
}

fn plain_table(b: &mut Builder, name: &str, caption: &str, columns: &[&str]) -> Table {
    let mut t = b.table(name, caption, true, true);
    t.columns = columns
        .iter()
        .enumerate()
        .map(|(i, c)| head(c, i > 0))
        .collect();
    t
}

/// The rows of a part grouped by table, in order.
fn by_table(rows: &[StoredRow]) -> Vec<(&str, Vec<&StoredRow>)> {
    let mut out: Vec<(&str, Vec<&StoredRow>)> = Vec::new();
    for r in rows {
        match out.last_mut() {
            Some((t, v)) if *t == r.table => v.push(r),
            _ => out.push((&r.table, vec![r])),
        }
    }
    out
}

/// Each item once, in order of first appearance.
fn unique<'a>(items: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// One stored table, old / new / Δ: a row per statistic, three columns
/// (baseline, candidate, Δ) per row label of the stored table.
fn stored_table(b: &mut Builder, table: &str, rows: &[&StoredRow]) -> Table {
    let labels = unique(rows.iter().map(|r| r.row.as_str()));
    let stats = unique(rows.iter().map(|r| r.statistic.as_str()));
    let caption = format!(
        "The stored {table} values of both folders (no intervals) and their difference \
         candidate - baseline{}.",
        if labels.len() > 1 || !labels[0].is_empty() {
            format!(", for each row of the table ({})", labels.join(", "))
        } else {
            String::new()
        }
    );
    let by_score_type = matches!(table, "eval" | "degradation");
    let mut t = b.table(table, &caption, false, true);
    t.columns = std::iter::once(head("statistic", false))
        .chain(labels.iter().flat_map(|l| {
            ["baseline", "candidate", "Δ"].map(|side| match l.is_empty() {
                true => head(side, true),
                false => head(&format!("{side}.{l}"), true),
            })
        }))
        .collect();
    t.rows = stats
        .iter()
        .map(|st| {
            let mut cells = vec![header_cell(st)];
            for l in &labels {
                let r = rows.iter().find(|r| r.row == *l && r.statistic == *st);
                let v = r.map_or([f64::NAN; 3], |r| [r.baseline, r.candidate, r.delta]);
                let start = cells.len();
                cells.extend(v.iter().map(|x| stored_cell(st, *x)));
                // As build shows them: n/a with the reason where scores
                // are not rounded.
                if by_score_type && rounded::hidden(l, st) {
                    cells[start..].iter_mut().for_each(rounded::mark);
                }
            }
            Row {
                cells,
                class: String::new(),
            }
        })
        .collect();
    t
}

/// One table per stored table of a part; the sentences of the missing
/// files first.
pub fn stored_blocks(b: &mut Builder, part: &Part) -> Vec<Block> {
    let mut out: Vec<Block> = part.missing.iter().cloned().map(Block::Note).collect();
    for (table, rows) in by_table(&part.rows) {
        out.push(Block::Heading(b.heading(4, table)));
        out.push(Block::Table(stored_table(b, table, &rows)));
    }
    out
}

/// Section 3: eval old / new / Δ, the confusion matrices, the score
/// distributions.
pub fn evaluation(b: &mut Builder, c: &Comparison) -> Result<Vec<Block>> {
    let mut out = vec![
        Block::Heading(b.heading(2, "Evaluation")),
        Block::Paragraph(
            "Every score type of both folders' eval tables, as stored: baseline, candidate and \
             the difference candidate - baseline. The paired intervals of the headline \
             statistics are in the verdicts."
                .into(),
        ),
    ];
    out.extend(stored_blocks(b, &c.extra.eval));
    out.push(Block::Heading(b.heading(3, "Confusion matrices")));
    out.extend(c.extra.confusion_missing.iter().cloned().map(Block::Note));
    if let Some(m) = &c.extra.confusion {
        out.push(Block::Table(confusion_table(b, m)));
    }
    out.push(Block::Heading(b.heading(3, "Score distributions")));
    out.extend(score_distributions(b, c)?);
    Ok(out)
}

/// The score distributions of human, baseline and candidate: on the
/// paired responses, else from both stored `score_dist` tables.
fn score_distributions(b: &mut Builder, c: &Comparison) -> Result<Vec<Block>> {
    let (names, key) = short_labels(c);
    let series = [
        "Human".to_string(),
        format!("baseline: {}", names[0]),
        format!("candidate: {}", names[1]),
    ];
    let (scores, values, note) = match (&c.extra.between, &c.extra.score_dist) {
        (Some(bw), _) if bw.n > 0 => (
            bw.dist_scores.clone(),
            bw.dist.clone(),
            "On the paired responses (trimmed and rounded machine scores).".to_string(),
        ),
        (_, Some(d)) => (
            d.scores.clone(),
            [d.human.clone(), d.baseline.clone(), d.candidate.clone()],
            "From both folders' stored score_dist tables (each on its own responses; the \
             human scores are the baseline's)."
                .to_string(),
        ),
        _ => {
            let mut out: Vec<Block> = c
                .extra
                .score_dist_missing
                .iter()
                .cloned()
                .map(Block::Note)
                .collect();
            out.push(Block::Note(
                "The score distributions need paired responses or both score_dist tables.".into(),
            ));
            return Ok(out);
        }
    };
    let d = plots::Distributions {
        scores,
        series: series.into_iter().zip(values).collect(),
    };
    Ok(vec![
        Block::Paragraph(format!("{note}{key}")),
        Block::Figure(b.figure(plots::distributions(&d)?)),
    ])
}

/// The two versions' labels for a figure, without the prefix they share
/// (`example-engine 2.3.1`, `example-engine 1.0.0` -> `2.3.1`, `1.0.0`),
/// and a sentence naming both in full when a prefix was dropped (else "").
fn short_labels(c: &Comparison) -> (Vec<String>, String) {
    let full = [c.baseline_label.clone(), c.candidate_label.clone()];
    let (prefix, short) = distinct_labels(&full);
    let key = match prefix.is_empty() {
        true => String::new(),
        false => format!(
            " In the figures the shared prefix \"{}\" is left out: baseline = {}, candidate = \
             {}.",
            prefix.trim_end(),
            full[0],
            full[1]
        ),
    };
    (short, key)
}

/// Both confusion matrices and their difference side by side.
fn confusion_table(b: &mut Builder, m: &Matrices) -> Table {
    let mut t = b.table(
        "confusion matrices",
        "Human scores (rows) by machine scores (columns): the baseline's counts, the \
         candidate's, and the difference candidate - baseline.",
        false,
        true,
    );
    t.columns = std::iter::once(head("human", false))
        .chain(["baseline", "candidate", "Δ"].iter().flat_map(|side| {
            m.columns
                .iter()
                .map(move |col| head(&format!("{side}.{col}"), true))
        }))
        .collect();
    t.rows = m
        .rows
        .iter()
        .enumerate()
        .map(|(i, label)| {
            let diff: Vec<f64> = m.baseline[i]
                .iter()
                .zip(&m.candidate[i])
                .map(|(x, y)| y - x)
                .collect();
            let count = |x: &f64| stored_cell("N", *x);
            Row {
                cells: std::iter::once(header_cell(label))
                    .chain(m.baseline[i].iter().map(count))
                    .chain(m.candidate[i].iter().map(count))
                    .chain(diff.iter().map(count))
                    .collect(),
                class: String::new(),
            }
        })
        .collect();
    t
}

/// Section 4: consistency, degradation and disattenuated correlations.
pub fn consistency(b: &mut Builder, c: &Comparison) -> Vec<Block> {
    let mut out = vec![
        Block::Heading(b.heading(2, "Consistency and degradation")),
        Block::Paragraph(
            "The stored human-human consistency, the degradation (machine-human minus \
             human-human agreement) and the disattenuated correlations of both folders, with \
             their difference candidate - baseline."
                .into(),
        ),
    ];
    out.extend(stored_blocks(b, &c.extra.consistency));
    out
}

/// Section 5: PRMSE on the paired responses, then the stored tables.
pub fn true_score(b: &mut Builder, c: &Comparison) -> Vec<Block> {
    let mut out = vec![Block::Heading(b.heading(2, "True-score evaluation"))];
    match c.overall.iter().find(|r| r.statistic == "PRMSE") {
        Some(r) => {
            let mut t = plain_table(
                b,
                "prmse",
                "PRMSE on the paired responses: both versions with their intervals, the \
                 difference and the gain (the same for PRMSE) with their paired intervals, the \
                 p-value and the verdict.",
                &[
                    "statistic",
                    "baseline",
                    "candidate",
                    "Δ",
                    "gain",
                    "p",
                    "verdict",
                ],
            );
            t.rows = vec![Row {
                cells: std::iter::once(header_cell("PRMSE"))
                    .chain(delta_cells(r))
                    .collect(),
                class: String::new(),
            }];
            rsmreport_report::render::tables::stick_column(&mut t, "verdict");
            out.push(Block::Table(t));
        }
        None => out.push(Block::Note(
            "PRMSE was not compared on paired responses (it needs paired responses and second \
             human scores on both sides)."
                .into(),
        )),
    }
    out.push(Block::Paragraph(
        "The stored true-score evaluation of both folders:".into(),
    ));
    out.extend(stored_blocks(b, &c.extra.true_score));
    out
}

/// The forest plot data of one subgroup: levels in label order (those on
/// one side only appended and marked), one panel per statistic.
pub fn forest_data(group: &str, rows: &[LevelRow], one: Option<&OneSide>) -> plots::Forest {
    let mut levels: Vec<String> = Vec::new();
    for r in rows {
        if !levels.contains(&r.level) {
            levels.push(r.level.clone());
        }
    }
    let mut marks = vec![String::new(); levels.len()];
    if let Some(o) = one {
        for (list, mark) in [
            (&o.baseline_only, "baseline only"),
            (&o.candidate_only, "candidate only"),
        ] {
            for l in list.iter() {
                if !levels.contains(l) {
                    levels.push(l.clone());
                    marks.push(mark.to_string());
                }
            }
        }
    }
    let panels = BY_LEVEL
        .iter()
        .map(|st| plots::ForestPanel {
            statistic: st.name.to_string(),
            points: levels
                .iter()
                .map(|l| {
                    rows.iter()
                        .find(|r| &r.level == l && r.row.statistic == st.name)
                        .map_or((f64::NAN, f64::NAN, f64::NAN), |r| {
                            let d = r.row.delta;
                            (d.value, d.lower, d.upper)
                        })
                })
                .collect(),
        })
        .collect();
    plots::Forest {
        group: group.to_string(),
        levels,
        marks,
        panels,
    }
}

/// The sentence naming a subgroup's levels on one side only.
pub fn one_side_sentence(o: &OneSide) -> String {
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    format!(
        "Levels of {} on one side only (no paired difference): in the baseline only: {}; in \
         the candidate only: {}.",
        o.group,
        list(&o.baseline_only),
        list(&o.candidate_only)
    )
}

/// Section 7: fairness old / new / Δ per subgroup.
pub fn fairness(b: &mut Builder, c: &Comparison) -> Vec<Block> {
    let mut out = vec![Block::Heading(b.heading(2, "Fairness"))];
    if c.extra.fairness.is_empty() {
        out.push(Block::Paragraph("Neither folder has subgroups.".into()));
    }
    for (g, part) in &c.extra.fairness {
        out.push(Block::Heading(b.heading(3, g)));
        out.extend(stored_blocks(b, part));
    }
    out
}

/// Section 8: the two versions against each other.
pub fn between(b: &mut Builder, c: &Comparison) -> Result<Vec<Block>> {
    let mut out = vec![Block::Heading(b.heading(2, "Between the versions"))];
    let Some(bw) = &c.extra.between else {
        out.push(Block::Note(
            "The versions' scores can only be compared response by response when both folders \
             have pred_processed and share responses."
                .into(),
        ));
        return Ok(out);
    };
    let (names, key) = short_labels(c);
    out.push(Block::Paragraph(format!(
        "On the {} paired responses, the rounded score changed for {} responses ({}%).{key}",
        rsmreport_report::render::format::thousands(bw.n as u64),
        rsmreport_report::render::format::thousands(bw.changed as u64),
        rsmreport_report::render::format::fixed(bw.changed as f64 / bw.n.max(1) as f64 * 100.0, 1)
    )));
    out.push(Block::Table(agreement_table(b, bw)));
    let grid = plots::CountGrid {
        labels: bw.labels.clone(),
        counts: bw.counts.clone(),
        baseline: names[0].clone(),
        candidate: names[1].clone(),
    };
    out.push(Block::Figure(b.figure(plots::count_grid(&grid)?)));
    out.push(Block::Heading(b.heading(3, "Largest changes")));
    if bw.top.is_empty() {
        out.push(Block::Paragraph("No response's score changed.".into()));
    } else {
        out.push(Block::Table(changes_table(b, bw)));
    }
    Ok(out)
}

fn agreement_table(b: &mut Builder, bw: &Between) -> Table {
    let mut t = plain_table(
        b,
        "between versions",
        "Correlation and exact agreement (%) between the baseline's and the candidate's \
         scores, trimmed and trimmed-and-rounded.",
        &["statistic", "trimmed", "rounded"],
    );
    t.rows = [("corr", bw.corr), ("exact_agr", bw.exact)]
        .iter()
        .map(|(name, v)| Row {
            cells: vec![header_cell(name), number(v[0], None), number(v[1], None)],
            class: String::new(),
        })
        .collect();
    t
}

fn changes_table(b: &mut Builder, bw: &Between) -> Table {
    let mut t = plain_table(
        b,
        "largest changes",
        &format!(
            "The {} responses whose trimmed score changed most (largest absolute change first, \
             equal changes by id).",
            bw.top.len()
        ),
        &["id", "human", "baseline", "candidate", "Δ"],
    );
    t.rows = bw
        .top
        .iter()
        .map(|x| Row {
            cells: vec![
                header_cell(&x.id),
                // A human score as the scale writes it (`3`, `2.5`).
                Cell {
                    text: score_label(x.human),
                    class: "num".into(),
                    value: raw_value(x.human),
                    ..Cell::default()
                },
                number(x.baseline, None),
                number(x.candidate, None),
                number(x.delta(), None),
            ],
            class: String::new(),
        })
        .collect();
    t
}

/// Section 9: where both sides come from.
pub fn provenance(b: &mut Builder, c: &Comparison) -> Vec<Block> {
    let mut t = b.table(
        "provenance of both sides",
        "Where each side comes from: its folder, the program and version that wrote it, the \
         experiment, the model version, the table format and the input files with their \
         checksums (when the folder's summary.json has them).",
        false,
        true,
    );
    t.columns = ["item", "baseline", "candidate"]
        .iter()
        .map(|n| head(n, false))
        .collect();
    // Long paths and checksums wrap inside the card.
    t.class = "wrap-cells".into();
    t.rows = c
        .extra
        .provenance
        .iter()
        .map(|(item, x, y)| Row {
            cells: vec![header_cell(item), text_cell(x), text_cell(y)],
            class: String::new(),
        })
        .collect();
    vec![Block::Heading(b.heading(2, "Provenance")), Block::Table(t)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::common::comparison::Estimate;
    use crate::kinds::common::verdict::Verdict;
    use crate::kinds::versions::build::paired::{Compared, VerdictRow};

    fn level(level: &str, stat: usize, delta: f64) -> LevelRow {
        LevelRow {
            level: level.into(),
            n: 10,
            n_candidate: 10,
            row: VerdictRow {
                baseline_system: 0,
                candidate_system: 1,
                scope: format!("g={level}"),
                statistic: BY_LEVEL[stat].name.into(),
                baseline: Estimate::new(0.5, 0.4, 0.6),
                candidate: Estimate::new(0.5 + delta, 0.4, 0.6),
                gain: Estimate::new(delta, delta - 0.1, delta + 0.1),
                delta: Estimate::new(delta, delta - 0.1, delta + 0.1),
                p_value: 1.0,
                p_holm: 1.0,
                verdict: Verdict::NoDetectableChange,
                margin: 0.01,
                paired: true,
                extra: Compared {
                    statistic: BY_LEVEL[stat],
                    cross_check: None,
                },
            },
        }
    }

    #[test]
    fn the_forest_marks_levels_of_one_side() {
        let rows = vec![level("a", 0, 0.1), level("b", 0, -0.2), level("a", 1, 0.3)];
        let one = OneSide {
            group: "g".into(),
            baseline_only: vec!["c".into()],
            candidate_only: vec!["d".into()],
        };
        let f = forest_data("g", &rows, Some(&one));
        assert_eq!(f.levels, ["a", "b", "c", "d"]);
        assert_eq!(f.marks, ["", "", "baseline only", "candidate only"]);
        assert_eq!(f.panels.len(), BY_LEVEL.len());
        assert_eq!(f.panels[0].statistic, "wtkappa");
        assert_eq!(f.panels[0].points[1], (-0.2, -0.30000000000000004, -0.1));
        assert_eq!(f.panels[1].points[0].0, 0.3);
        // No row: no point (b has no corr row; c and d are on one side).
        assert!(f.panels[1].points[1].0.is_nan());
        assert!(f.panels[0].points[2].0.is_nan());
        assert!(one_side_sentence(&one).contains("in the baseline only: c"));
    }

    #[test]
    fn a_stored_table_has_three_columns_per_row_label() {
        let row = |r: &str, s: &str, x: f64| StoredRow {
            table: "eval".into(),
            row: r.into(),
            statistic: s.into(),
            baseline: x,
            candidate: x + 1.0,
            delta: 1.0,
        };
        let rows = [
            row("raw", "N", 5.0),
            row("raw", "corr", 0.5),
            row("scale", "corr", 0.6),
        ];
        let refs: Vec<&StoredRow> = rows.iter().collect();
        let mut b = Builder::new("cmp", false);
        let t = stored_table(&mut b, "eval", &refs);
        assert_eq!(t.columns.len(), 1 + 2 * 3);
        assert_eq!(t.columns[1].text, "baseline");
        assert_eq!(t.columns[4].sub, "scale");
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.rows[0].cells[1].text, "5");
        assert_eq!(t.rows[0].cells[4].text, "n/a");
        assert_eq!(t.rows[1].cells[6].text, "1.000");
    }

    #[test]
    fn stored_agreement_counts_of_unrounded_types_are_na_as_in_build() {
        let row = |r: &str, s: &str| StoredRow {
            table: "eval".into(),
            row: r.into(),
            statistic: s.into(),
            baseline: 0.0,
            candidate: 0.0,
            delta: 0.0,
        };
        let rows = [
            row("scale_trim", "exact_agr"),
            row("scale_trim_round", "exact_agr"),
            row("scale_trim", "corr"),
        ];
        let refs: Vec<&StoredRow> = rows.iter().collect();
        let mut b = Builder::new("cmp", false);
        let t = stored_table(&mut b, "eval", &refs);
        let texts = |i: usize| -> Vec<&str> {
            t.rows[i].cells[1..]
                .iter()
                .map(|c| c.text.as_str())
                .collect()
        };
        // Columns: scale_trim (3), scale_trim_round (3); rows exact_agr, corr.
        assert_eq!(texts(0), ["n/a", "n/a", "n/a", "0.000", "0.000", "0.000"]);
        assert!(t.rows[0].cells[1].title.contains("rounded"));
        assert_eq!(texts(1)[..3], ["0.000", "0.000", "0.000"]);
        // Another table (consistency: human scores) keeps its numbers.
        let t = stored_table(&mut b, "consistency", &refs);
        assert_eq!(t.rows[0].cells[1].text, "0.000");
    }
}
