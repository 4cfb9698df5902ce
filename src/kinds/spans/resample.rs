//! Command assembly (spans): the bootstrap over documents
//! (`spec/uncertainty.md`; `spec/spans.md` 3, 4.3). A replicate draws
//! documents with replacement from the stream `(seed, replicate)`
//! (`metrics::bootstrap::replicate_rng`, so the numbers do not depend on
//! the thread count) and recomputes, from the documents' counts weighted
//! by how often each was drawn, every pair's F1 and the mean over pairs
//! (agreement), and every system's seqeval statistics on the same
//! resample (paired differences keep their correlation). Intervals are
//! percentiles, p-values `metrics::paired::bootstrap_p_value`, per-type
//! rows adjusted with Holm, verdicts compare.md 2.3's words.
//!
//! Reads and writes nothing.

use super::run::{score_rows, Results};
use crate::config::intervals::Intervals;
use crate::config::spans::SpansConfig;
use crate::kinds::compare::verdict::{self as words, Rules};
use crate::metrics::bootstrap::{percentile_interval, replicate_rng, Interval, Plan};
use crate::metrics::paired::{bootstrap_p_value, holm};
use crate::metrics::spans::agreement::{mean_sd, Abc};
use crate::metrics::spans::seqeval::Counts;

/// The agreement intervals: per criterion of the mean over pairs, and per
/// pair and criterion of its F1.
#[derive(Clone, Debug, Default)]
pub struct AgreementIntervals {
    pub mean: Vec<Interval>,
    /// `[pair][criterion]`.
    pub pairs: Vec<Vec<Interval>>,
}

/// The headline statistics of one system (spec 4.3), in order.
pub const STATISTICS: [&str; 4] = ["micro_f1", "macro_f1", "micro_precision", "micro_recall"];

/// One compared statistic.
#[derive(Clone, Debug)]
pub struct Comparison {
    pub baseline: usize,
    pub candidate: usize,
    pub scope: String,
    pub statistic: &'static str,
    pub base: f64,
    pub cand: f64,
    pub delta: f64,
    pub interval: Interval,
    pub p_value: f64,
    pub p_holm: f64,
    pub verdict: &'static str,
}

/// Per system (in `Results::systems` order): its headline statistics with
/// intervals.
#[derive(Clone, Debug, Default)]
pub struct SystemIntervals {
    /// `[system][statistic]`.
    pub stats: Vec<Vec<Interval>>,
    pub comparisons: Vec<Comparison>,
}

/// Agreement intervals (NaN without `[intervals]` or replicates).
pub fn agreement(res: &Results, n_docs: usize, iv: Option<&Intervals>) -> AgreementIntervals {
    let nan = || vec![Interval::nan(); 4];
    let Some(iv) = iv.filter(|iv| iv.replicates > 0 && n_docs > 0) else {
        return AgreementIntervals {
            mean: nan(),
            pairs: vec![nan(); res.pairs.len()],
        };
    };
    let plan = Plan::single(n_docs);
    let reps = iv.replicates as usize;
    let np = res.pairs.len();
    // Per replicate: [pair][criterion] F1 and [criterion] mean; the
    // replicate's stream depends only on (seed, replicate).
    let threads = crate::kinds::classify::resample::default_threads();
    let draws = crate::kinds::classify::resample::parallel(threads, reps, |r| {
        let mut rng = replicate_rng(iv.seed, r as u64);
        let mut w = vec![0u32; n_docs];
        plan.draw_counts(&mut rng, &mut w);
        let f1: Vec<[f64; 4]> = res
            .pairs
            .iter()
            .map(|pr| {
                let mut s = [Abc::default(); 4];
                let mut any = false;
                for (doc, c) in &pr.docs {
                    let m = w[*doc as usize] as u64;
                    if m == 0 {
                        continue;
                    }
                    any = true;
                    for k in 0..4 {
                        s[k].a += m * c[k].a;
                        s[k].b += m * c[k].b;
                        s[k].c += m * c[k].c;
                    }
                }
                s.map(|x| if any { x.f1() } else { f64::NAN })
            })
            .collect();
        let means: [f64; 4] =
            std::array::from_fn(|k| mean_sd(&f1.iter().map(|p| p[k]).collect::<Vec<_>>()).0);
        (f1, means)
    });
    let mean: Vec<Vec<f64>> = (0..4)
        .map(|k| draws.iter().map(|d| d.1[k]).collect())
        .collect();
    let pairs: Vec<Vec<Vec<f64>>> = (0..np)
        .map(|p| {
            (0..4)
                .map(|k| draws.iter().map(|d| d.0[p][k]).collect())
                .collect()
        })
        .collect();
    AgreementIntervals {
        mean: mean
            .iter()
            .map(|v| percentile_interval(v, iv.level))
            .collect(),
        pairs: pairs
            .iter()
            .map(|p| p.iter().map(|v| percentile_interval(v, iv.level)).collect())
            .collect(),
    }
}

/// The statistics of weighted per-document counts: the four headline
/// numbers and the per-type F1 (all labels, 0 for a type never present).
fn statistics(counts: &[Vec<Counts>], w: Option<&[u32]>, nl: usize) -> (Vec<f64>, Vec<f64>) {
    let mut t = vec![Counts::default(); nl];
    for (doc, row) in counts.iter().enumerate() {
        let m = w.map_or(1, |w| w[doc] as u64);
        if m == 0 {
            continue;
        }
        for (l, c) in row.iter().enumerate() {
            t[l].correct += m * c.correct;
            t[l].predicted += m * c.predicted;
            t[l].support += m * c.support;
        }
    }
    let (rows, avg) = score_rows(&t);
    let mut per_type = vec![0.0; nl];
    for (l, r) in &rows {
        per_type[*l as usize] = r.f1;
    }
    (
        vec![avg[0].f1, avg[1].f1, avg[0].precision, avg[0].recall],
        per_type,
    )
}

/// The systems' intervals and the comparisons against the baseline.
pub fn systems(
    res: &Results,
    cfg: &SpansConfig,
    n_docs: usize,
    labels: &[String],
) -> SystemIntervals {
    let nl = labels.len();
    let ns = res.systems.len();
    let point: Vec<(Vec<f64>, Vec<f64>)> = res
        .systems
        .iter()
        .map(|s| statistics(&s.doc_counts, None, nl))
        .collect();
    let iv = cfg.intervals.filter(|iv| iv.replicates > 0 && n_docs > 0);
    let reps = iv.map_or(0, |iv| iv.replicates as usize);
    // [system][stat index (4 + nl)][replicate]
    let mut draws: Vec<Vec<Vec<f64>>> = (0..ns)
        .map(|_| (0..4 + nl).map(|_| Vec::with_capacity(reps)).collect())
        .collect();
    if let Some(iv) = iv {
        let plan = Plan::single(n_docs);
        let mut w = vec![0u32; n_docs];
        for r in 0..reps {
            let mut rng = replicate_rng(iv.seed, r as u64);
            plan.draw_counts(&mut rng, &mut w);
            for (s, sys) in res.systems.iter().enumerate() {
                let (h, t) = statistics(&sys.doc_counts, Some(&w), nl);
                for (k, v) in h.into_iter().chain(t).enumerate() {
                    draws[s][k].push(v);
                }
            }
        }
    }
    let level = cfg.intervals.map_or(0.95, |iv| iv.level);
    let interval = |v: &[f64]| {
        if v.is_empty() {
            Interval::nan()
        } else {
            percentile_interval(v, level)
        }
    };
    let stats = draws
        .iter()
        .map(|d| d[..4].iter().map(|v| interval(v)).collect())
        .collect();
    let mut comparisons = Vec::new();
    let Some(b) = res
        .baseline
        .and_then(|a| res.systems.iter().position(|s| s.annotator == a))
    else {
        return SystemIntervals { stats, comparisons };
    };
    for c in (0..ns).filter(|&c| c != b) {
        let mut per_type = Vec::new();
        for k in 0..4 + nl {
            let (base, cand) = if k < 4 {
                (point[b].0[k], point[c].0[k])
            } else {
                (point[b].1[k - 4], point[c].1[k - 4])
            };
            let deltas: Vec<f64> = draws[c][k]
                .iter()
                .zip(&draws[b][k])
                .map(|(x, y)| x - y)
                .collect();
            let interval = interval(&deltas);
            let p_value = if deltas.is_empty() {
                f64::NAN
            } else {
                bootstrap_p_value(&deltas)
            };
            let (scope, statistic) = if k < 4 {
                ("overall".to_string(), STATISTICS[k])
            } else {
                (format!("label={}", labels[k - 4]), "f1")
            };
            let row = Comparison {
                baseline: res.systems[b].annotator,
                candidate: res.systems[c].annotator,
                scope,
                statistic,
                base,
                cand,
                delta: cand - base,
                interval,
                p_value,
                p_holm: f64::NAN,
                verdict: "",
            };
            if k < 4 {
                comparisons.push(row);
            } else {
                per_type.push(row);
            }
        }
        let adjusted = holm(&per_type.iter().map(|r| r.p_value).collect::<Vec<_>>());
        for (r, p) in per_type.iter_mut().zip(adjusted) {
            r.p_holm = p;
        }
        comparisons.extend(per_type);
    }
    for r in comparisons.iter_mut() {
        let m = cfg.margin(r.statistic);
        let rules = if r.statistic == "f1" {
            Rules {
                paired: true,
                holm: Some((r.p_holm, level)),
            }
        } else {
            Rules::PAIRED
        };
        r.verdict = words::verdict(r.interval.lower, r.interval.upper, m, rules).name();
    }
    SystemIntervals { stats, comparisons }
}
