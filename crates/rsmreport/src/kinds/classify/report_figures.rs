//! Command assembly (classify): the figure-bearing report sections
//! (confusion heat maps, PR and ROC curves, the reliability diagram, the
//! forest plot of paired differences, subgroup gaps) and the verdict
//! glossary. Figures are drawn by `rsmreport_report::plots`; this file only selects
//! and arranges the numbers of an [`Analysis`].
//!
//! Produces report blocks; computes nothing new, writes nothing.

use anyhow::Result;

use super::run::{Analysis, SystemResult};
use super::tables::McNemar;
use crate::kinds::common::comparison::ComparisonRow;
use rsmreport_core::schema::NONE_LABEL;
use rsmreport_report::plots::{
    curves, file_safe, forest, grid, reliability, Curves, Forest, ForestPanel, Grid, Reliability,
};
use rsmreport_report::render::context::Term;
use rsmreport_report::render::format::{num3, thousands};
use rsmreport_report::render::tables::{most_frequent, some_names, MAX_FIGURE_CATEGORIES};
use rsmreport_report::render::Block;
use rsmreport_report::render::Builder;

/// Most points of a drawn curve (the tables keep up to `curve_points`).
const MAX_POINTS: usize = 1000;

/// The heat map of the confusion matrix normalised by gold row.
pub fn confusion(b: &mut Builder, a: &Analysis, sys: &SystemResult) -> Result<Vec<Block>> {
    let k = a.k();
    let abstains = sys.n_abstained > 0;
    // Rows and columns: the classes with the most gold items.
    let gold: Vec<f64> = a.gold_counts.iter().map(|&c| c as f64).collect();
    let shown = most_frequent(&gold, MAX_FIGURE_CATEGORIES);
    let shown_columns: Vec<usize> = shown.iter().copied().chain(abstains.then_some(k)).collect();
    let cols = shown_columns.len();
    let mut values = Vec::new();
    let mut labels = Vec::new();
    for &g in &shown {
        let row = sys.confusion.row(g);
        let total: f64 = row.iter().sum();
        for &p in &shown_columns {
            let share = if total > 0.0 {
                row[p] / total
            } else {
                f64::NAN
            };
            values.push(share);
            labels.push(if share.is_finite() {
                format!("{:.0}%", share * 100.0)
            } else {
                String::new()
            });
        }
    }
    let rows: Vec<String> = shown.iter().map(|&j| a.labels[j].clone()).collect();
    let mut columns = rows.clone();
    if abstains {
        columns.push(NONE_LABEL.into());
    }
    let k = shown.len();
    let g = Grid {
        name: format!("confusion_{}", file_safe(&sys.name)),
        title: format!("{}: share of gold", sys.name),
        description: format!(
            "Heat map of {k} gold labels (rows) by {cols} predicted labels (columns) of {}: each \
             cell is the share of the row's gold items predicted as the column's label; the \
             diagonal holds the recalls.{}",
            sys.name,
            if k < a.k() {
                " Only the labels with the most gold items are shown, so a row's shares need not \
                 add up to 100%."
            } else {
                ""
            }
        ),
        rows,
        columns,
        values,
        labels,
        row_axis: "gold".into(),
        column_axis: "predicted".into(),
    };
    Ok(vec![Block::Figure(b.figure(grid(&g)?))])
}

/// The forest plot of the paired differences of each candidate.
pub fn forest_blocks(
    b: &mut Builder,
    a: &Analysis,
    rows: &[ComparisonRow<McNemar>],
) -> Result<Vec<Block>> {
    let mut out = Vec::new();
    for c in &a.comparisons {
        let mine: Vec<&ComparisonRow<McNemar>> =
            super::report::shown_rows(a, rows, MAX_FIGURE_CATEGORIES)
                .into_iter()
                .filter(|r| r.candidate_system == c.candidate)
                .collect();
        let levels = mine
            .iter()
            .map(|r| {
                let scope = r
                    .scope
                    .strip_prefix("class=")
                    .map_or(String::new(), |l| format!(" {l}"));
                format!("{}{scope}", r.statistic)
            })
            .collect();
        let marks = mine.iter().map(|r| r.verdict.to_string()).collect();
        let d = Forest {
            group: file_safe(&a.systems[c.candidate].name),
            levels,
            marks,
            panels: vec![ForestPanel {
                statistic: format!(
                    "gain, {} vs {}",
                    a.systems[c.candidate].name, a.systems[c.baseline].name
                ),
                points: mine
                    .iter()
                    .map(|r| (r.gain.value, r.gain.lower, r.gain.upper))
                    .collect(),
            }],
        };
        let mut fig = forest(&d)?;
        let (cand, base) = (&a.systems[c.candidate].name, &a.systems[c.baseline].name);
        fig.title = format!("Gains of {cand} over {base}");
        fig.description = format!(
            "Forest plot: for each compared statistic (and each class's recall), the gain of \
             {cand} over {base} on the same items (positive is better) as a dot with its paired \
             bootstrap interval as a bar, the verdict in brackets; the dashed line marks no change."
        );
        out.push(Block::Figure(b.figure(fig)));
    }
    Ok(out)
}

/// Points thinned to at most [`MAX_POINTS`], keeping the first and last.
fn thin(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    rsmreport_metrics::ranking::thin(points.len(), MAX_POINTS, |_| false)
        .into_iter()
        .map(|i| points[i])
        .collect()
}

/// The sentence on thinned curve tables (spec 2), `None` when every table
/// holds its whole curve.
fn thinned_note(a: &Analysis) -> Option<String> {
    let (mut thinned, mut largest) = (0usize, 0usize);
    for r in a.systems.iter().filter_map(|s| s.ranking.as_ref()) {
        for (full, written) in r
            .pr_full
            .iter()
            .zip(&r.pr)
            .chain(r.roc_full.iter().zip(&r.roc))
        {
            if *full > written.len() {
                thinned += 1;
                largest = largest.max(*full);
            }
        }
    }
    (thinned > 0).then(|| {
        format!(
            "{} curves have more than curve_points = {} points (the longest {}): their tables \
             hold {} points each: both end points, first the points scikit-learn's \
             drop_intermediate keeps, then points evenly spaced in rank, so the drawn shape is \
             the same. Average precision and ROC AUC are computed from every item; the summary \
             JSON gives each curve's number of points in full and written (curves). \
             curve_points = 0 writes every point.",
            thousands(thinned as u64),
            thousands(a.curve_points as u64),
            thousands(largest as u64),
            thousands(a.curve_points as u64),
        )
    })
}

/// PR and ROC curves per class.
pub fn curves_section(b: &mut Builder, a: &Analysis) -> Result<Vec<Block>> {
    let mut blocks = vec![Block::Heading(b.heading(2, "Curves"))];
    if a.systems.iter().all(|s| s.ranking.is_none()) {
        blocks.push(Block::Paragraph(
            "No system has scores (probability_columns or probability_pattern), so there are no \
             curves, average precision or ROC AUC."
                .into(),
        ));
        return Ok(blocks);
    }
    blocks.push(Block::Paragraph(
        "One vs rest per class: average precision is the step-wise sum (no interpolation), ROC \
         AUC the area under the ROC curve. The dashed lines are chance: on the ROC curve the \
         diagonal, on the PR curve the class's prevalence. Curves are drawn with at most 1,000 \
         points each, without changing their shape."
            .into(),
    ));
    if let Some(note) = thinned_note(a) {
        blocks.push(Block::Note(note));
    }
    for sys in &a.systems {
        let Some(r) = &sys.ranking else { continue };
        if a.systems.len() > 1 {
            blocks.push(Block::Heading(b.heading(3, &sys.name)));
        }
        // At most 12 classes: those with the most gold items among the
        // classes with a curve.
        let weight: Vec<f64> = (0..a.k())
            .map(|j| {
                if r.pr[j].is_empty() {
                    -1.0
                } else {
                    r.positives[j]
                }
            })
            .collect();
        let shown: Vec<usize> = most_frequent(&weight, 12)
            .into_iter()
            .filter(|&j| !r.pr[j].is_empty())
            .collect();
        let pr = Curves {
            name: format!("pr_{}", file_safe(&sys.name)),
            title: format!("{}: precision-recall per class", sys.name),
            description: format!(
                "Precision against recall of {} for {} classes, one vs rest.",
                sys.name,
                shown.len()
            ),
            x_label: "recall".into(),
            y_label: "precision".into(),
            series: shown
                .iter()
                .map(|&j| {
                    let pts: Vec<(f64, f64)> = r.pr[j].iter().map(|p| (p.2, p.1)).collect();
                    (
                        format!("{} (AP {})", a.labels[j], num3(r.average_precision[j])),
                        thin(&pts),
                    )
                })
                .collect(),
            chance: None,
            chance_levels: shown
                .iter()
                .map(|&j| r.positives[j] / sys.n as f64)
                .collect(),
        };
        let roc = Curves {
            name: format!("roc_{}", file_safe(&sys.name)),
            title: format!("{}: ROC per class", sys.name),
            description: format!(
                "True against false positive rate of {} for {} classes, one vs rest.",
                sys.name,
                shown.len()
            ),
            x_label: "false positive rate".into(),
            y_label: "true positive rate".into(),
            series: shown
                .iter()
                .map(|&j| {
                    let pts: Vec<(f64, f64)> = r.roc[j].iter().map(|p| (p.1, p.2)).collect();
                    (
                        format!("{} (AUC {})", a.labels[j], num3(r.roc_auc[j])),
                        thin(&pts),
                    )
                })
                .collect(),
            chance: Some(((0.0, 0.0), (1.0, 1.0))),
            chance_levels: Vec::new(),
        };
        blocks.push(Block::Figure(b.figure(curves(&pr)?)));
        blocks.push(Block::Figure(b.figure(curves(&roc)?)));
        if shown.len() < a.k() && a.k() > 12 {
            blocks.push(Block::Note(format!(
                "The figures show {} of the {} classes: those with the most gold items among \
                 the classes with a curve; the curve tables hold every class.",
                shown.len(),
                thousands(a.k() as u64)
            )));
        }
        if !r.auc_left_out.is_empty() {
            let names: Vec<&str> = r
                .auc_left_out
                .iter()
                .map(|&j| a.labels[j].as_str())
                .collect();
            blocks.push(Block::Warning(format!(
                "{}: ROC AUC is undefined for {} (no positive or no negative item), so the macro \
                 ROC AUC is n/a as in scikit-learn; the mean over the other classes is {}.",
                sys.name,
                some_names(&names, 20),
                num3(r.auc_macro_present)
            )));
        }
    }
    Ok(blocks)
}

/// The reliability diagram per system with probabilities.
pub fn calibration_section(b: &mut Builder, a: &Analysis) -> Result<Vec<Block>> {
    let mut blocks = vec![Block::Heading(b.heading(2, "Calibration"))];
    let with: Vec<&SystemResult> = a.systems.iter().filter(|s| s.probs.is_some()).collect();
    if with.is_empty() {
        blocks.push(Block::Paragraph(
            "No system gives probabilities (scores in [0, 1] summing to 1 within 1e-6 per item), \
             so Brier score, log loss and calibration are left out."
                .into(),
        ));
        return Ok(blocks);
    }
    blocks.push(Block::Paragraph(
        "Top-label calibration: each item's confidence is its largest probability; items are \
         put in 10 equal-width bins ([0, 0.1), ..., [0.9, 1]); a calibrated system's accuracy in \
         each bin equals its mean confidence (the dashed diagonal). ECE is the mean gap, weighted \
         by the bins' items."
            .into(),
    ));
    for sys in with {
        let p = sys.probs.as_ref().expect("filtered");
        let bins = p
            .bins()
            .into_iter()
            .enumerate()
            .map(|(i, (n, c, acc))| (i as f64 / 10.0, (i + 1) as f64 / 10.0, n, c, acc))
            .collect();
        let d = Reliability {
            name: format!("reliability_{}", file_safe(&sys.name)),
            title: format!("{}: reliability (ECE {})", sys.name, num3(p.ece())),
            description: format!(
                "Reliability diagram of {}: accuracy against mean confidence per bin, the \
                 diagonal of perfect calibration, and the items per bin as bars.",
                sys.name
            ),
            bins,
        };
        blocks.push(Block::Figure(b.figure(reliability(&d)?)));
    }
    for sys in a
        .systems
        .iter()
        .filter(|s| s.ranking.is_some() && s.probs.is_none())
    {
        blocks.push(Block::Note(format!(
            "{}: its scores do not sum to 1 per item, so they are not probabilities: Brier \
             score, log loss and calibration are left out for it.",
            sys.name
        )));
    }
    Ok(blocks)
}

/// By subgroup: a heat map of each level's macro F1 per system, the
/// largest gap named.
pub fn groups_section(b: &mut Builder, a: &Analysis) -> Result<Vec<Block>> {
    let mut blocks = vec![Block::Heading(b.heading(2, "By subgroup"))];
    if a.groups.is_empty() {
        blocks.push(Block::Paragraph(
            "No subgroup column was configured (subgroups).".into(),
        ));
        return Ok(blocks);
    }
    let f1 = a.f1();
    for g in &a.groups {
        blocks.push(Block::Heading(b.heading(3, &g.column)));
        let ns = a.systems.len();
        let mut values = Vec::new();
        for s in 0..ns {
            values.extend(g.levels.iter().map(|l| l.systems[s].macro_f(f1)));
        }
        let d = Grid {
            name: format!("macro_f1_by_{}", file_safe(&g.column)),
            title: format!("Macro F1 by {}", g.column),
            description: format!(
                "Macro F1 of each system (rows) on each level of {} (columns).",
                g.column
            ),
            rows: a.systems.iter().map(|s| s.name.clone()).collect(),
            columns: g
                .levels
                .iter()
                .map(|l| format!("{} ({})", l.name, l.n))
                .collect(),
            labels: values.iter().map(|&v| num3(v)).collect(),
            values,
            row_axis: "system".into(),
            column_axis: g.column.clone(),
        };
        blocks.push(Block::Figure(b.figure(grid(&d)?)));
        for (s, sys) in a.systems.iter().enumerate() {
            let scores: Vec<(f64, &str, usize)> = g
                .levels
                .iter()
                .map(|l| (l.systems[s].macro_f(f1), l.name.as_str(), l.n))
                .filter(|x| x.0.is_finite())
                .collect();
            let hi = scores.iter().max_by(|x, y| x.0.total_cmp(&y.0));
            let lo = scores.iter().min_by(|x, y| x.0.total_cmp(&y.0));
            if let (Some(hi), Some(lo)) = (hi, lo) {
                blocks.push(Block::Paragraph(format!(
                    "{}: the largest gap in macro F1 is {} between {} ({}, {} items) and {} ({}, {} items).",
                    sys.name,
                    num3(hi.0 - lo.0),
                    hi.1,
                    num3(hi.0),
                    thousands(hi.2 as u64),
                    lo.1,
                    num3(lo.0),
                    thousands(lo.2 as u64)
                )));
            }
        }
        if g.levels.iter().any(|l| l.n < 30) {
            blocks.push(Block::Note(
                "Levels with fewer than 30 items give unstable numbers; see the intervals in the \
                 _ci table."
                    .into(),
            ));
        }
    }
    Ok(blocks)
}

/// What each verdict word means (compare.md 2.3, amended).
pub fn verdict_terms() -> Vec<Term> {
    [
        ("improved", "better, by more than the margin"),
        (
            "likely improved",
            "better, but it may be by less than the margin",
        ),
        ("changed within margin", "a real change too small to matter"),
        ("equivalent", "no change larger than the margin"),
        ("no detectable change", "the data cannot tell"),
        (
            "likely regressed",
            "worse, and it may be by more than the margin",
        ),
        ("regressed", "worse, by more than the margin"),
        (
            "no detectable change (after Holm)",
            "a per-class change whose Holm-adjusted p-value is not below 1 - level",
        ),
        ("not testable", "no interval (intervals are off)"),
    ]
    .iter()
    .map(|(n, t)| Term {
        name: n.to_string(),
        text: t.to_string(),
    })
    .collect()
}
