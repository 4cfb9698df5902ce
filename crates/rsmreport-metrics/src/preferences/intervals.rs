//! Intervals of the annotator metrics (spec 2, `uncertainty.md` 2): the
//! seeded percentile bootstrap of strength, accuracy and relevance over
//! pairs, and the exact Clopper-Pearson interval of accuracy.
//!
//! The metrics depend only on each annotator's counts `N`, `A`, `D`, so a
//! replicate never looks at a pair: the used pairs are dealt once into at
//! most [`MAX_BLOCKS`] random blocks ([`random_blocks`]), each block keeps
//! its counts, and a replicate draws blocks with replacement
//! ([`Plan::draw_counts`] with [`replicate_rng`]`(seed, b)`) and adds their
//! counts. Up to `MAX_BLOCKS` pairs every block is one pair: the plain pair
//! bootstrap. Above, it is the block-sum bootstrap of `uncertainty.md` 6
//! (same variance of a total up to `(M - 1)/M`), which makes 1,000
//! replicates on a million pairs cost `O(1000 x 1000 x annotators)`.

use super::{binomial::clopper_pearson, rates_of, vote_tables, PairSet};
use crate::bootstrap::{percentile_interval, random_blocks, replicate_rng, Interval, Plan};

/// Most blocks the used pairs are dealt into (as the `build` intervals).
pub const MAX_BLOCKS: usize = 1000;

/// The bootstrap's settings (`[intervals]` of the experiment).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BootstrapSpec {
    /// Confidence level, `0 < level < 1`.
    pub level: f64,
    /// Replicates; 0 gives only the exact interval.
    pub replicates: u64,
    /// Same seed and data, same intervals, bit for bit.
    pub seed: u64,
}

/// The intervals of one annotator (columns `strength_lower` ...
/// `accuracy_exact_upper` of `<id>_annotator_metrics`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnnotatorIntervals {
    pub strength: Interval,
    pub accuracy: Interval,
    pub relevance: Interval,
    /// Clopper-Pearson interval of `A` successes in `A + D` trials (NaN
    /// when `A + D = 0`).
    pub accuracy_exact: (f64, f64),
}

/// The used pairs of a data set dealt into random blocks, with each
/// block's counts (pairs, then `A` and `D` of every annotator). Replicate
/// `b` depends only on `(seed, b)`, so a caller may run replicates in any
/// order or on any thread and get the same values.
#[derive(Clone, Debug)]
pub struct PairBootstrap {
    width: usize,
    counts: Vec<u32>,
    plan: Plan,
    seed: u64,
}

impl PairBootstrap {
    /// Deals the used pairs of `pairs` into `min(pairs, MAX_BLOCKS)` blocks
    /// (the deal is seeded by `seed` too) and counts each block once. `None`
    /// when no pair is used.
    pub fn new(pairs: &PairSet, seed: u64) -> Option<PairBootstrap> {
        let rows = pairs.used_rows();
        if rows.is_empty() {
            return None;
        }
        let width = 1 + 2 * pairs.annotators.len();
        let m = rows.len().min(MAX_BLOCKS);
        let block_of = random_blocks(rows.len(), m as u32, seed);
        let mut counts = vec![0u32; m * width];
        for (&i, &b) in rows.iter().zip(&block_of) {
            let block = &mut counts[b as usize * width..(b as usize + 1) * width];
            block[0] += 1;
            let reference = pairs.reference[i];
            for (j, votes) in pairs.annotators.iter().enumerate() {
                let v = votes[i];
                if v.is_valid() {
                    block[1 + 2 * j + usize::from(v != reference)] += 1;
                }
            }
        }
        Some(PairBootstrap {
            width,
            counts,
            plan: Plan::single(m),
            seed,
        })
    }

    /// Number of blocks (equal to the used pairs up to `MAX_BLOCKS`).
    pub fn blocks(&self) -> usize {
        self.counts.len() / self.width
    }

    /// Replicate `b`: `(strength, accuracy, relevance)` of every annotator,
    /// recomputed from the counts of the drawn blocks ([`super::rates`]).
    pub fn replicate(&self, b: u64) -> Vec<(f64, f64, f64)> {
        let mut draws = vec![0u32; self.blocks()];
        self.plan
            .draw_counts(&mut replicate_rng(self.seed, b), &mut draws);
        let mut t = vec![0u64; self.width];
        for (block, &w) in self.counts.chunks_exact(self.width).zip(&draws) {
            if w > 0 {
                for (total, &c) in t.iter_mut().zip(block) {
                    *total += u64::from(w) * u64::from(c);
                }
            }
        }
        (0..self.width / 2)
            .map(|j| {
                let (accuracy, relevance, strength) = rates_of(t[0], t[1 + 2 * j], t[2 + 2 * j]);
                (strength, accuracy, relevance)
            })
            .collect()
    }
}

/// Strength, accuracy and relevance replicates of every annotator:
/// `out[annotator][metric][replicate]`.
fn replicates(boot: &PairBootstrap, k: usize, replicates: u64) -> Vec<[Vec<f64>; 3]> {
    let mut out: Vec<[Vec<f64>; 3]> = (0..k).map(|_| Default::default()).collect();
    for b in 0..replicates {
        for (series, (strength, accuracy, relevance)) in out.iter_mut().zip(boot.replicate(b)) {
            series[0].push(strength);
            series[1].push(accuracy);
            series[2].push(relevance);
        }
    }
    out
}

/// The intervals of every annotator (in column order) on `pairs` (a data
/// set or one subset value: strata are the caller's, one call each).
/// Bootstrap intervals are NaN when no pair is used or `replicates = 0`.
/// Single-threaded; cost `O(pairs + replicates x min(pairs, 1000) x
/// annotators)`. A caller that wants threads runs
/// [`PairBootstrap::replicate`] itself and passes the values to
/// `percentile_interval`: the same numbers in any order.
pub fn annotator_intervals(pairs: &PairSet, spec: &BootstrapSpec) -> Vec<AnnotatorIntervals> {
    let tables = vote_tables(pairs);
    let k = pairs.annotators.len();
    let boot = match PairBootstrap::new(pairs, spec.seed) {
        Some(b) if spec.replicates > 0 => Some(replicates(&b, k, spec.replicates)),
        _ => None,
    };
    let interval = |j: usize, m: usize| match &boot {
        Some(series) => percentile_interval(&series[j][m], spec.level),
        None => Interval::nan(),
    };
    tables
        .annotators
        .iter()
        .enumerate()
        .map(|(j, t)| AnnotatorIntervals {
            strength: interval(j, 0),
            accuracy: interval(j, 1),
            relevance: interval(j, 2),
            accuracy_exact: clopper_pearson(t.agreed(), t.agreed() + t.disagreed(), spec.level),
        })
        .collect()
}
