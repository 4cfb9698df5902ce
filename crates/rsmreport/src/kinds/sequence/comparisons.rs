//! Command assembly (sequence): each candidate against the baseline (spec
//! `sequence.md` 3.3): per metric (and perplexity) the shared comparison
//! row (`kinds::common::comparison`) from the paired bootstrap's
//! replicates, with sacreBLEU's own p-values beside it, Holm's adjustment
//! across a candidate's metrics and the verdicts (compare.md 2.3's words).
//!
//! Defines no metric; reads and writes nothing.

use crate::kinds::common::comparison::{adjust_holm, ComparisonRow, Estimate};
use crate::kinds::common::verdict::Verdict;
use rsmreport_config::sequence::{larger_is_better, SequenceConfig};
use rsmreport_metrics::bootstrap::percentile_interval;
use rsmreport_metrics::paired::bootstrap_p_value;

use super::run::MetricResult;
use super::statistics::SystemRun;

/// What sequence adds to a comparison row: sacreBLEU's paired bootstrap
/// and approximate randomization p-values (`None` where not computed).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SacreTests {
    pub p_paired_bs: Option<f64>,
    pub p_ar: Option<f64>,
}

/// One compared metric of a candidate: the shared comparison row, whole
/// set (`scope` `overall`), paired, the statistic the metric's key.
pub type Comparison = ComparisonRow<SacreTests>;

/// The perplexity row of candidate `c` (system `s`) against the baseline
/// `b` (system `baseline`). Lower is better: the gain is the negated
/// delta. The verdict's rules are those of a paired row even when the two
/// did not score the same sequences (no interval then: `not testable`).
fn ppl_row(
    cfg: &SequenceConfig,
    iv: rsmreport_config::sequence::SeqIntervals,
    (c, b): (&super::ppl::PplRun, &super::ppl::PplRun),
    (s, baseline): (usize, usize),
) -> Comparison {
    let paired = super::ppl::paired(c, b);
    let diffs: Vec<f64> = if paired {
        c.replicates
            .iter()
            .zip(&b.replicates)
            .map(|(x, y)| x - y)
            .collect()
    } else {
        Vec::new()
    };
    let d = percentile_interval(&diffs, iv.level);
    let delta = Estimate::with(c.numbers.perplexity - b.numbers.perplexity, &d);
    Comparison {
        baseline_system: baseline,
        candidate_system: s,
        scope: "overall".into(),
        statistic: "perplexity".into(),
        baseline: Estimate::new(b.numbers.perplexity, b.lower, b.upper),
        candidate: Estimate::new(c.numbers.perplexity, c.lower, c.upper),
        delta,
        gain: delta.negated(),
        p_value: if paired {
            bootstrap_p_value(&diffs)
        } else {
            f64::NAN
        },
        p_holm: f64::NAN,
        verdict: Verdict::NotTestable,
        margin: cfg.margin("perplexity"),
        paired: true,
        extra: SacreTests {
            p_paired_bs: c.bs_p,
            p_ar: None,
        },
    }
}

pub(super) fn compare(
    cfg: &SequenceConfig,
    systems: &[SystemRun],
    results: &[Vec<MetricResult>],
    baseline: usize,
    ppl: &[super::ppl::PplRun],
) -> Vec<(usize, Vec<Comparison>)> {
    let Some(iv) = cfg.intervals else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (s, _) in systems.iter().enumerate().filter(|(s, _)| *s != baseline) {
        let mut rows: Vec<Comparison> = results[s]
            .iter()
            .zip(&results[baseline])
            .map(|(c, b)| {
                let diffs: Vec<f64> = c
                    .replicates
                    .iter()
                    .zip(&b.replicates)
                    .map(|(x, y)| x - y)
                    .collect();
                let delta =
                    Estimate::with(c.score - b.score, &percentile_interval(&diffs, iv.level));
                Comparison {
                    baseline_system: baseline,
                    candidate_system: s,
                    scope: "overall".into(),
                    statistic: c.metric.clone(),
                    baseline: Estimate::new(b.score, b.lower, b.upper),
                    candidate: Estimate::new(c.score, c.lower, c.upper),
                    delta,
                    gain: if larger_is_better(&c.metric) {
                        delta
                    } else {
                        delta.negated()
                    },
                    p_value: bootstrap_p_value(&diffs),
                    p_holm: f64::NAN,
                    verdict: Verdict::NotTestable,
                    margin: cfg.margin(&c.metric),
                    paired: true,
                    extra: SacreTests {
                        p_paired_bs: c.bs_p,
                        p_ar: c.ar_p,
                    },
                }
            })
            .collect();
        let find = |name: &str| ppl.iter().find(|p| p.system == name);
        if let (Some(c), Some(b)) = (find(&systems[s].name), find(&systems[baseline].name)) {
            rows.push(ppl_row(cfg, iv, (c, b), (s, baseline)));
        }
        adjust_holm(&mut rows, iv.level);
        out.push((s, rows));
    }
    out
}
