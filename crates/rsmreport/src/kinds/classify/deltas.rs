//! Command assembly (classify): the paired differences of spec 3
//! (compare.md 2.2-2.3 amended): each candidate against the baseline on
//! the compared statistics and every class's recall, from the same
//! replicates (paired by construction), as the shared comparison rows
//! (`kinds::common::comparison`); the per-class rows Holm-adjusted across
//! classes.
//!
//! Reads and writes nothing.

use super::read::Data;
use super::resample::{column, Intervals};
use super::statistics::{is_rank, COMPARED};
use crate::kinds::common::comparison::{adjust_holm, ComparisonRow, Estimate};
use crate::kinds::common::verdict::Verdict;
use rsmreport_config::classify::ClassifyConfig;
use rsmreport_metrics::bootstrap::{percentile_interval, Interval};
use rsmreport_metrics::paired::bootstrap_p_value;

pub(super) fn collect_deltas(
    cfg: &ClassifyConfig,
    data: &Data,
    (names, estimates): (&[Vec<String>], &[Vec<f64>]),
    values: &[Vec<Vec<f64>>],
    out: &mut Intervals,
) {
    let b = cfg.baseline;
    let base_names = &names[b];
    for c in (0..data.systems.len()).filter(|&c| c != b) {
        let cand_names = &names[c];
        let mut rows = Vec::new();
        for (stat, larger) in COMPARED {
            let (Some(i), Some(j)) = (
                base_names.iter().position(|n| n == stat),
                cand_names.iter().position(|n| n == stat),
            ) else {
                continue;
            };
            let reps = if is_rank(stat) {
                out.rank_replicates
            } else {
                out.replicates
            };
            rows.push(delta_row(
                out,
                (b, i),
                (c, j),
                estimates,
                values,
                reps,
                ("overall".into(), stat.to_string(), larger, cfg.margin(stat)),
            ));
        }
        let mut class_rows: Vec<ComparisonRow> = (0..data.k())
            .map(|k| {
                let (i, j) = (base_names.len() + 3 * k + 1, cand_names.len() + 3 * k + 1);
                let scope = format!("class={}", data.labels[k]);
                delta_row(
                    out,
                    (b, i),
                    (c, j),
                    estimates,
                    values,
                    out.replicates,
                    (scope, "recall".into(), true, cfg.margin("recall")),
                )
            })
            .collect();
        adjust_holm(&mut class_rows, out.level);
        rows.extend(class_rows);
        out.deltas.extend(rows);
    }
}

/// The paired difference of statistic `i` of the baseline `b` and `j` of
/// the candidate `c` (the same statistic), over the first `reps`
/// replicates, judged without Holm's adjustment.
fn delta_row(
    out: &Intervals,
    (b, i): (usize, usize),
    (c, j): (usize, usize),
    estimates: &[Vec<f64>],
    values: &[Vec<Vec<f64>>],
    reps: usize,
    (scope, statistic, larger, margin): (String, String, bool, f64),
) -> ComparisonRow {
    let base_reps = column(values, b, i, reps);
    let cand_reps = column(values, c, j, reps);
    let deltas: Vec<f64> = cand_reps
        .iter()
        .zip(&base_reps)
        .map(|(x, y)| x - y)
        .collect();
    let (eb, ec) = (estimates[b][i], estimates[c][j]);
    let d = ec - eb;
    let interval = |e: f64, r: &[f64]| {
        if e.is_nan() {
            Interval::nan()
        } else {
            percentile_interval(r, out.level)
        }
    };
    let delta = Estimate::with(d, &interval(d, &deltas));
    let mut row = ComparisonRow {
        baseline_system: b,
        candidate_system: c,
        scope,
        statistic,
        baseline: Estimate::with(eb, &interval(eb, &base_reps)),
        candidate: Estimate::with(ec, &interval(ec, &cand_reps)),
        delta,
        gain: if larger { delta } else { delta.negated() },
        p_value: if d.is_nan() {
            f64::NAN
        } else {
            bootstrap_p_value(&deltas)
        },
        p_holm: f64::NAN,
        verdict: Verdict::NotTestable,
        margin,
        paired: true,
        extra: (),
    };
    row.verdict = row.judged(None);
    row
}
