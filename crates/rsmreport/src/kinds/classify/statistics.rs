//! Command assembly (classify): the statistics the bootstrap resamples
//! and compares (spec 2, 3): their names in replicate order (headline
//! numbers, then per class precision, recall and F1), their values from a
//! confusion matrix, probability sums and per-class AP/AUC by the metric
//! functions of the estimate, the statistics compared between systems
//! with their orientation, and those with an interval per subgroup level.
//!
//! Computes through `rsmreport_metrics`; reads and writes nothing.

use super::run::{betas_with_one, kappa_of, SystemResult};
use rsmreport_config::classify::ClassifyConfig;
use rsmreport_metrics::calibration::ProbSums;
use rsmreport_metrics::classification::label_report_cells;
use rsmreport_metrics::ranking::macro_weighted;
use rsmreport_metrics::raters::Weights;

/// The names of the statistics of one system, in replicate order:
/// headline numbers, then per class precision, recall and F1.
pub fn stat_names(cfg: &ClassifyConfig, ranking: bool, probs: bool) -> Vec<String> {
    let mut out: Vec<String> = [
        "accuracy",
        "balanced_accuracy",
        "matthews_corrcoef",
        "cohen_kappa",
    ]
    .map(String::from)
    .to_vec();
    if cfg.ordinal {
        out.extend(["cohen_kappa_linear", "cohen_kappa_quadratic"].map(String::from));
    }
    for b in betas_with_one(&cfg.beta) {
        let f = ClassifyConfig::f_name(b);
        out.extend([
            format!("macro_{f}"),
            format!("micro_{f}"),
            format!("weighted_{f}"),
        ]);
    }
    if ranking {
        out.extend(["average_precision_macro", "roc_auc_macro"].map(String::from));
    }
    if probs {
        out.extend(["brier", "log_loss", "ece"].map(String::from));
    }
    out
}

/// The headline statistics (names as [`stat_names`]) of a confusion
/// matrix, probability sums and per-class AP/AUC, then per class
/// precision, recall, F1.
pub fn stat_values(
    cfg: &ClassifyConfig,
    k: usize,
    c: &[(u32, u32, f64)],
    probs: Option<&ProbSums>,
    rank: Option<(&[f64], &[f64], &[f64])>,
) -> Vec<f64> {
    let betas = betas_with_one(&cfg.beta);
    let r = label_report_cells(c, k, k + 1, &betas);
    let mut out = vec![
        r.accuracy,
        r.balanced_accuracy,
        r.matthews,
        kappa_of(c, k, Weights::Identity),
    ];
    if cfg.ordinal {
        out.extend([
            kappa_of(c, k, Weights::Linear),
            kappa_of(c, k, Weights::Quadratic),
        ]);
    }
    for b in 0..betas.len() {
        out.extend([r.macro_avg.f[b], r.micro_avg.f[b], r.weighted_avg.f[b]]);
    }
    if let Some((ap, auc, pos)) = rank {
        out.extend([macro_weighted(ap, pos).0, macro_weighted(auc, pos).0]);
    }
    if let Some(p) = probs {
        out.extend([p.brier(), p.log_loss(), p.ece()]);
    }
    let f1 = betas.iter().position(|&b| b == 1.0).expect("added");
    for p in &r.per_class {
        out.extend([p.precision, p.recall, p.f[f1]]);
    }
    out
}

/// The estimates in [`stat_values`] order, from a system's results (the
/// numbers of its tables, bit for bit).
pub(super) fn estimates(cfg: &ClassifyConfig, k: usize, r: &SystemResult) -> Vec<f64> {
    let rank = r.ranking.as_ref().map(|x| {
        (
            x.average_precision.as_slice(),
            x.roc_auc.as_slice(),
            x.positives.as_slice(),
        )
    });
    stat_values(cfg, k, &r.confusion.cells, r.probs.as_ref(), rank)
}

/// The estimate of `metric` in `row` (`overall`, or a class label for
/// `precision`, `recall`, `f1`) of a system's results, by the names of
/// [`stat_names`]; `None` when the system does not have it.
pub fn estimate_named(
    cfg: &ClassifyConfig,
    labels: &[String],
    r: &SystemResult,
    row: &str,
    metric: &str,
) -> Option<f64> {
    let values = estimates(cfg, labels.len(), r);
    let names = stat_names(cfg, r.ranking.is_some(), r.probs.is_some());
    if row == "overall" {
        return names.iter().position(|n| n == metric).map(|i| values[i]);
    }
    let j = labels.iter().position(|l| l == row)?;
    let m = ["precision", "recall", "f1"]
        .iter()
        .position(|m| *m == metric)?;
    Some(values[names.len() + 3 * j + m])
}

pub(super) fn is_rank(name: &str) -> bool {
    matches!(name, "average_precision_macro" | "roc_auc_macro")
}

/// The statistics compared between systems: `(name, larger is better)`.
pub const COMPARED: [(&str, bool); 5] = [
    ("accuracy", true),
    ("macro_f1", true),
    ("matthews_corrcoef", true),
    ("average_precision_macro", true),
    ("brier", false),
];

/// The label statistics with an interval per subgroup level.
pub const LEVEL_STATS: [&str; 5] = [
    "accuracy",
    "balanced_accuracy",
    "macro_f1",
    "matthews_corrcoef",
    "cohen_kappa",
];

pub(super) fn level_values(cfg: &ClassifyConfig, k: usize, c: &[(u32, u32, f64)]) -> [f64; 5] {
    let betas = betas_with_one(&cfg.beta);
    let f1 = betas.iter().position(|&b| b == 1.0).expect("added");
    let r = label_report_cells(c, k, k + 1, &betas);
    [
        r.accuracy,
        r.balanced_accuracy,
        r.macro_avg.f[f1],
        r.matthews,
        kappa_of(c, k, Weights::Identity),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The compared statistics are the ones `[margins]` accepts.
    #[test]
    fn compared_statistics_have_margins() {
        let names: Vec<&str> = COMPARED.iter().map(|(s, _)| *s).collect();
        assert_eq!(
            rsmreport_config::classify::COMPARED_STATISTICS[..names.len()],
            names[..]
        );
    }
}
