//! Command assembly (spans): the bootstrap over documents
//! (`spec/uncertainty.md`; `spec/spans.md` 3, 4.3). A replicate draws
//! documents with replacement from the stream `(seed, replicate)`
//! (`metrics::bootstrap::replicate_rng`, so the numbers do not depend on
//! the thread count) and recomputes, from the documents' counts weighted
//! by how often each was drawn, every pair's F1 and the mean over pairs
//! (agreement), and every system's seqeval statistics on the same
//! resample (paired differences keep their correlation). Intervals are
//! percentiles, p-values `metrics::paired::bootstrap_p_value`; the
//! comparisons are the shared rows (`kinds::common::comparison`), the
//! per-type rows adjusted with Holm, verdicts compare.md 2.3's words.
//!
//! Reads and writes nothing.

use super::run::{score_rows, Results};
use crate::kinds::common::comparison::{adjust_holm, ComparisonRow, Estimate};
use crate::kinds::common::parallel::{default_threads, parallel};
use crate::kinds::common::verdict::Verdict;
use rsmreport_config::intervals::Intervals;
use rsmreport_config::spans::SpansConfig;
use rsmreport_metrics::bootstrap::{percentile_interval, replicate_rng, Interval, Plan};
use rsmreport_metrics::paired::bootstrap_p_value;
use rsmreport_metrics::spans::agreement::mean_sd;
use rsmreport_metrics::spans::seqeval::Counts;

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

/// Per system (in `Results::systems` order): its headline statistics with
/// intervals.
#[derive(Clone, Debug, Default)]
pub struct SystemIntervals {
    /// `[system][statistic]`.
    pub stats: Vec<Vec<Interval>>,
    /// Against the baseline: the system indices are annotators'; every
    /// statistic larger is better (the gain is the delta); no interval of
    /// each side's own.
    pub comparisons: Vec<ComparisonRow>,
    /// The best system's micro F1 against the runner-up's (two or more
    /// systems): whether the best differs really from the next.
    pub lead: Option<ComparisonRow>,
}

/// Agreement intervals (NaN without `[intervals]` or replicates).
pub fn agreement(res: &Results, n_docs: usize, iv: Option<&Intervals>) -> AgreementIntervals {
    let nan = || vec![Interval::nan(); 4];
    let Some(iv) = iv.filter(|iv| iv.replicates > 0 && n_docs > 0 && !res.pairs.is_empty()) else {
        return AgreementIntervals {
            mean: nan(),
            pairs: vec![nan(); res.pairs.len()],
        };
    };
    let np = res.pairs.len();
    // The largest per-document count bounds every replicate's sums.
    let largest = res
        .pairs
        .iter()
        .flat_map(|p| &p.docs)
        .flat_map(|(_, c)| c.iter().map(|x| 2 * x.a + x.b + x.c))
        .max()
        .unwrap_or(0);
    let draws = if largest.saturating_mul(n_docs as u64) <= u64::from(u32::MAX) {
        agreement_draws::<u32>(res, n_docs, iv)
    } else {
        agreement_draws::<u64>(res, n_docs, iv)
    };
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

/// Replicates served by one pass over the documents' counts: the counts
/// are read once per block, not once per replicate (the pass is bound by
/// memory, 5-10 MB for 20,000 documents x 10 pairs).
const BLOCK: usize = 16;

/// Per pair and document, the sums a replicate needs: `a` and `2a + b + c`
/// of each criterion, and 1 (the pair has the document).
const FEATURES: usize = 9;

/// A count type the per-replicate sums are kept in: `u32` when no sum can
/// exceed it (the largest count times the number of documents), else
/// `u64`; the sums, hence the F1s, are the same integers either way.
trait Count:
    Copy
    + Default
    + Send
    + Sync
    + From<u32>
    + Into<u64>
    + std::ops::AddAssign
    + std::ops::Mul<Output = Self>
{
}
impl Count for u32 {}
impl Count for u64 {}

/// `[doc][pair][FEATURES]` counts of every pair's common documents.
fn feature_rows<T: Count>(res: &Results, n_docs: usize) -> Vec<T> {
    let width = res.pairs.len() * FEATURES;
    let mut rows = vec![T::default(); n_docs * width];
    for (p, pr) in res.pairs.iter().enumerate() {
        for (doc, c) in &pr.docs {
            let f = &mut rows[*doc as usize * width + p * FEATURES..][..FEATURES];
            for k in 0..4 {
                f[k] = T::from(c[k].a as u32);
                f[4 + k] = T::from((2 * c[k].a + c[k].b + c[k].c) as u32);
            }
            f[8] = T::from(1);
        }
    }
    rows
}

/// The sums of `rows` weighted by each replicate's draw counts:
/// `weights[doc][r]` for the `n` replicates of a block, `acc[r][feature]`.
fn weighted_sums<T: Count>(rows: &[T], width: usize, weights: &[u32], n: usize, acc: &mut [T]) {
    acc.fill(T::default());
    for (row, w) in rows.chunks_exact(width).zip(weights.chunks_exact(BLOCK)) {
        for (r, &m) in w[..n].iter().enumerate() {
            if m == 0 {
                continue;
            }
            let m = T::from(m);
            for (x, &v) in acc[r * width..(r + 1) * width].iter_mut().zip(row) {
                *x += m * v;
            }
        }
    }
}

/// One replicate's `[pair][criterion]` F1 and `[criterion]` mean over
/// pairs, from its sums.
fn replicate_f1<T: Count>(sums: &[T]) -> (Vec<[f64; 4]>, [f64; 4]) {
    let f1: Vec<[f64; 4]> = sums
        .chunks_exact(FEATURES)
        .map(|f| {
            let any = f[8].into() > 0;
            std::array::from_fn(|k| {
                let (a, den) = (f[k].into(), f[4 + k].into());
                if !any || den == 0 {
                    f64::NAN
                } else {
                    (2 * a) as f64 / den as f64
                }
            })
        })
        .collect();
    let means = std::array::from_fn(|k| mean_sd(&f1.iter().map(|p| p[k]).collect::<Vec<_>>()).0);
    (f1, means)
}

/// Every replicate's pair F1s and means, blocks of [`BLOCK`] replicates
/// on the threads; replicate `r` draws from the stream `(seed, r)`, so
/// the result does not depend on the thread count.
fn agreement_draws<T: Count>(
    res: &Results,
    n_docs: usize,
    iv: &Intervals,
) -> Vec<(Vec<[f64; 4]>, [f64; 4])> {
    let width = res.pairs.len() * FEATURES;
    let rows: Vec<T> = feature_rows(res, n_docs);
    let plan = Plan::single(n_docs);
    let reps = iv.replicates as usize;
    let threads = default_threads();
    let blocks = parallel(threads, reps.div_ceil(BLOCK), |b| {
        let (r0, n) = (b * BLOCK, BLOCK.min(reps - b * BLOCK));
        let mut w = vec![0u32; n_docs];
        let mut weights = vec![0u32; n_docs * BLOCK];
        for r in 0..n {
            let mut rng = replicate_rng(iv.seed, (r0 + r) as u64);
            plan.draw_counts(&mut rng, &mut w);
            for (doc, &m) in w.iter().enumerate() {
                weights[doc * BLOCK + r] = m;
            }
        }
        let mut acc = vec![T::default(); BLOCK * width];
        weighted_sums(&rows, width, &weights, n, &mut acc);
        (0..n)
            .map(|r| replicate_f1(&acc[r * width..(r + 1) * width]))
            .collect::<Vec<_>>()
    });
    blocks.into_iter().flatten().collect()
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

/// Every system's statistics (the four headline ones, then per-type F1)
/// on every replicate: `[system][statistic][replicate]`; the replicates
/// of the agreement intervals (same seed, same draws).
fn system_draws(
    res: &Results,
    iv: Option<&Intervals>,
    n_docs: usize,
    nl: usize,
) -> Vec<Vec<Vec<f64>>> {
    let ns = res.systems.len();
    let reps = iv.map_or(0, |iv| iv.replicates as usize);
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
    draws
}

/// The point values and replicates every comparison reads.
struct Compared<'r> {
    cfg: &'r SpansConfig,
    res: &'r Results,
    labels: &'r [String],
    /// `[system]`: the four headline statistics and the per-type F1s.
    point: Vec<(Vec<f64>, Vec<f64>)>,
    draws: Vec<Vec<Vec<f64>>>,
    level: f64,
}

impl Compared<'_> {
    fn interval(&self, v: &[f64]) -> Interval {
        if v.is_empty() {
            Interval::nan()
        } else {
            percentile_interval(v, self.level)
        }
    }

    /// Statistic `k` (the four headline ones, then per type) of system
    /// `c` against system `b`: paired bootstrap of the difference, the
    /// verdict on it (compare.md 2.3) without Holm's adjustment.
    fn row(&self, b: usize, c: usize, k: usize) -> ComparisonRow {
        let point = |s: usize| {
            if k < 4 {
                self.point[s].0[k]
            } else {
                self.point[s].1[k - 4]
            }
        };
        let (base, cand) = (point(b), point(c));
        let deltas: Vec<f64> = self.draws[c][k]
            .iter()
            .zip(&self.draws[b][k])
            .map(|(x, y)| x - y)
            .collect();
        let p_value = if deltas.is_empty() {
            f64::NAN
        } else {
            bootstrap_p_value(&deltas)
        };
        let (scope, statistic) = if k < 4 {
            ("overall".to_string(), STATISTICS[k])
        } else {
            (format!("label={}", self.labels[k - 4]), "f1")
        };
        let delta = Estimate::with(cand - base, &self.interval(&deltas));
        let mut row = ComparisonRow {
            baseline_system: self.res.systems[b].annotator,
            candidate_system: self.res.systems[c].annotator,
            scope,
            statistic: statistic.to_string(),
            baseline: Estimate::point(base),
            candidate: Estimate::point(cand),
            delta,
            gain: delta,
            p_value,
            p_holm: f64::NAN,
            verdict: Verdict::NotTestable,
            margin: self.cfg.margin(statistic),
            paired: true,
            extra: (),
        };
        row.verdict = row.judged(None);
        row
    }

    /// Every statistic of `c` against `b`, the per-type rows Holm-adjusted
    /// (and judged with it).
    fn rows(&self, b: usize, c: usize) -> Vec<ComparisonRow> {
        let nl = self.labels.len();
        let mut out: Vec<ComparisonRow> = (0..4).map(|k| self.row(b, c, k)).collect();
        let mut per_type: Vec<ComparisonRow> = (4..4 + nl).map(|k| self.row(b, c, k)).collect();
        adjust_holm(&mut per_type, self.level);
        out.extend(per_type);
        out
    }
}

/// The systems' intervals, the comparisons against the baseline and the
/// best system's micro F1 against the runner-up's.
pub fn systems(
    res: &Results,
    cfg: &SpansConfig,
    n_docs: usize,
    labels: &[String],
) -> SystemIntervals {
    let nl = labels.len();
    let ns = res.systems.len();
    let iv = cfg.intervals.filter(|iv| iv.replicates > 0 && n_docs > 0);
    let c = Compared {
        cfg,
        res,
        labels,
        point: res
            .systems
            .iter()
            .map(|s| statistics(&s.doc_counts, None, nl))
            .collect(),
        draws: system_draws(res, iv.as_ref(), n_docs, nl),
        level: cfg.intervals.map_or(0.95, |iv| iv.level),
    };
    let stats = c
        .draws
        .iter()
        .map(|d| d[..4].iter().map(|v| c.interval(v)).collect())
        .collect();
    let mut comparisons = Vec::new();
    if let Some(b) = res
        .baseline
        .and_then(|a| res.systems.iter().position(|s| s.annotator == a))
    {
        for k in (0..ns).filter(|&k| k != b && res.compared(res.systems[k].annotator)) {
            comparisons.extend(c.rows(b, k));
        }
    }
    // The best by micro F1 (ties: the earlier) against the runner-up.
    let mut order: Vec<usize> = (0..ns).collect();
    order.sort_by(|&x, &y| c.point[y].0[0].total_cmp(&c.point[x].0[0]));
    let lead = (ns > 1).then(|| c.row(order[1], order[0], 0));
    SystemIntervals {
        stats,
        comparisons,
        lead,
    }
}
