//! Stage 4 (metrics, pure): Krippendorff's alpha at the nominal, ordinal,
//! interval and ratio levels, as the Python `krippendorff` package (0.9.0)
//! computes it (fixture README 6.1), and its bootstrap over items, one
//! `(seed, replicate)` stream per replicate so the result does not depend
//! on the thread count.
//!
//! Sufficient statistics, never a values x values matrix: the coincidences
//! are kept sparse (the pairs of distinct values that occur within a unit,
//! and the marginal count of each value), so memory grows with the
//! ratings, not with the square of the number of distinct values. The
//! expected disagreement comes from the marginals alone: `n^2 - sum n_k^2`
//! (nominal), `2 n sum n_k (x_k - xbar)^2` over the values (interval) or
//! the mid-ranks (ordinal: `(sum_{g=k}^{l} n_g - (n_k + n_l)/2)^2` is the
//! squared difference of mid-ranks), and for ratio, whose distance does
//! not separate, the quadrature of [`super::ratio`] (linear in the
//! values; the direct sum over pairs below a few hundred values). The
//! bootstrap resamples units (or seeded blocks of units) and recombines
//! their precomputed sums (for ratio, their per-node moments).
//!
//! Pure maths on the count tables of [`super`]: nothing here may touch
//! files, tables, configuration, threads, formatting or report code.
//! Degenerate data (fewer than two categories, no item with two ratings,
//! every pairable rating equal) give `NaN`, never a panic.

use std::sync::Arc;

use super::ratio::{self, Moments, Nodes};
use super::{CountTables, ItemCounts};
use crate::bootstrap::{percentile_interval, replicate_rng, Interval, Plan};

/// Level of measurement: which distance between categories alpha uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    Nominal,
    Ordinal,
    Interval,
    Ratio,
}

impl Level {
    /// The four levels.
    pub const ALL: [Level; 4] = [
        Level::Nominal,
        Level::Ordinal,
        Level::Interval,
        Level::Ratio,
    ];

    /// `nominal`, `ordinal`, `interval`, `ratio`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Nominal => "nominal",
            Level::Ordinal => "ordinal",
            Level::Interval => "interval",
            Level::Ratio => "ratio",
        }
    }
}

/// Sums `(key, value)` entries with equal keys; keys end sorted.
fn aggregate<K: Ord + Copy>(v: &mut Vec<(K, f64)>) {
    v.sort_by_key(|e| e.0);
    let mut out: Vec<(K, f64)> = Vec::with_capacity(v.len());
    for &(k, x) in v.iter() {
        match out.last_mut() {
            Some(last) if last.0 == k => last.1 += x,
            _ => out.push((k, x)),
        }
    }
    *v = out;
}

/// Adds `m` times pattern `p`'s coincidences: `m n_k n_l / (r - 1)` for
/// each pair of its distinct categories `k < l`, and `m n_k` to the
/// marginal of `k` (the row sums of the coincidence matrix); nothing
/// below two ratings.
fn pattern_terms(
    items: &ItemCounts,
    p: usize,
    m: f64,
    pairs: &mut Vec<((u32, u32), f64)>,
    marg: &mut Vec<(u32, f64)>,
) {
    let row = items.row(p);
    let total = row.total();
    if total < 2 || m == 0.0 {
        return;
    }
    let scale = m / f64::from(total - 1);
    for (i, (&k, &a)) in row.cats.iter().zip(row.counts).enumerate() {
        marg.push((k, m * f64::from(a)));
        for (&l, &b) in row.cats[i + 1..].iter().zip(&row.counts[i + 1..]) {
            pairs.push(((k, l), f64::from(a) * f64::from(b) * scale));
        }
    }
}

/// Sparse coincidences of some units: `o_kl` for `k < l` (the matrix is
/// symmetric and the diagonal carries no disagreement), and the marginals.
#[derive(Clone, Debug, Default)]
struct Coincidences {
    pairs: Vec<((u32, u32), f64)>,
    marg: Vec<(u32, f64)>,
}

impl Coincidences {
    /// The coincidences of patterns `(p, weight)`.
    fn of(items: &ItemCounts, units: impl Iterator<Item = (usize, f64)>) -> Self {
        let mut c = Coincidences::default();
        for (p, m) in units {
            pattern_terms(items, p, m, &mut c.pairs, &mut c.marg);
        }
        aggregate(&mut c.pairs);
        aggregate(&mut c.marg);
        c
    }
}

/// The distance `d_kl` of a level, over the category values (and, for
/// ordinal data, the mid-ranks of the marginals `n`).
struct Distance<'a> {
    level: Level,
    x: std::borrow::Cow<'a, [f64]>,
}

impl<'a> Distance<'a> {
    fn new(level: Level, values: &'a [f64], n: &[f64]) -> Self {
        let x = match level {
            // Mid-ranks in category order: sum_{g < k} n_g + n_k / 2.
            Level::Ordinal => {
                let mut below = 0.0;
                let mid = n
                    .iter()
                    .map(|&c| {
                        let m = below + c / 2.0;
                        below += c;
                        m
                    })
                    .collect();
                std::borrow::Cow::Owned(mid)
            }
            _ => std::borrow::Cow::Borrowed(values),
        };
        Distance { level, x }
    }

    #[inline]
    fn d(&self, k: usize, l: usize) -> f64 {
        let (a, b) = (self.x[k], self.x[l]);
        match self.level {
            Level::Nominal => f64::from(u8::from(k != l)),
            Level::Ordinal | Level::Interval => (a - b) * (a - b),
            Level::Ratio => ratio::distance(a, b),
        }
    }

    /// `sum_{k, l} n_k n_l d_kl` from the marginals `n`.
    fn expected(&self, n: &[f64]) -> f64 {
        let total: f64 = n.iter().sum();
        // A single value occurs: no pair disagrees (exactly 0, not the
        // round-off of a centred sum).
        if n.iter().filter(|&&c| c != 0.0).count() < 2 {
            return 0.0;
        }
        match self.level {
            Level::Nominal => total * total - n.iter().map(|c| c * c).sum::<f64>(),
            Level::Ordinal | Level::Interval => {
                let mean = n.iter().zip(self.x.iter()).map(|(c, x)| c * x).sum::<f64>() / total;
                let ss: f64 = n
                    .iter()
                    .zip(self.x.iter())
                    .filter(|(c, _)| **c != 0.0)
                    .map(|(c, x)| c * (x - mean) * (x - mean))
                    .sum();
                2.0 * total * ss
            }
            Level::Ratio => ratio::expected(n, &self.x),
        }
    }

    /// `2 sum_{k < l} o_kl d_kl`.
    fn observed(&self, pairs: &[((u32, u32), f64)]) -> f64 {
        2.0 * pairs
            .iter()
            .map(|&((k, l), o)| o * self.d(k as usize, l as usize))
            .sum::<f64>()
    }
}

/// Alpha from the observed disagreement `2 sum_{k<l} o_kl d_kl` (given, or
/// from `pairs`) and the dense marginals: `1 - observed (n - 1) / sum_{k,l}
/// n_k n_l d_kl`. NaN with fewer than two categories or nothing pairable.
fn alpha_from(
    level: Level,
    values: &[f64],
    marg: &[f64],
    observed: impl FnOnce(&Distance) -> f64,
) -> f64 {
    alpha_with(level, values, marg, observed, None)
}

/// [`alpha_from`] with the expected sum `sum_{k,l} n_k n_l d_kl` given
/// (ratio alpha's bootstrap pools it from its groups) or from `marg`.
fn alpha_with(
    level: Level,
    values: &[f64],
    marg: &[f64],
    observed: impl FnOnce(&Distance) -> f64,
    expected: Option<f64>,
) -> f64 {
    let n: f64 = marg.iter().sum();
    if values.len() < 2 || n <= 0.0 {
        return f64::NAN;
    }
    let dist = Distance::new(level, values, marg);
    // A single value occurs: no pair disagrees (exactly 0).
    let several = marg.iter().filter(|&&c| c != 0.0).nth(1).is_some();
    let sum = match expected {
        Some(e) if several => e,
        _ => dist.expected(marg),
    };
    1.0 - observed(&dist) / (sum / (n - 1.0))
}

/// Dense marginals (`q` values) of sparse ones.
fn dense(q: usize, marg: &[(u32, f64)]) -> Vec<f64> {
    let mut out = vec![0.0; q];
    for &(k, c) in marg {
        out[k as usize] += c;
    }
    out
}

/// Krippendorff's alpha of the items (units with fewer than two ratings
/// drop out) at `level`, `values` = the category values in declared order
/// (positions for text labels; only `Nominal` makes sense for them).
pub fn krippendorff_alpha(items: &ItemCounts, level: Level, values: &[f64]) -> f64 {
    if values.len() != items.q {
        return f64::NAN;
    }
    let c = Coincidences::of(items, (0..items.len()).map(|p| (p, items.mult[p])));
    let marg = dense(items.q, &c.marg);
    alpha_from(level, values, &marg, |d| d.observed(&c.pairs))
}

/// Above this many resampled items, replicates draw random blocks of items
/// (the block fast path of uncertainty spec 6, as `build`'s intervals do).
pub const EXACT_MAX_ITEMS: usize = 1000;
/// The number of blocks of the fast path.
const BLOCKS: u32 = 1000;

/// The coincidences of each resampled group (a unit, or a block of units),
/// stored one after the other.
#[derive(Debug, Default)]
struct Groups {
    pair_offsets: Vec<usize>,
    pairs: Vec<((u32, u32), f64)>,
    marg_offsets: Vec<usize>,
    marg: Vec<(u32, f64)>,
}

impl Groups {
    fn len(&self) -> usize {
        self.marg_offsets.len() - 1
    }

    fn pairs(&self, g: usize) -> &[((u32, u32), f64)] {
        &self.pairs[self.pair_offsets[g]..self.pair_offsets[g + 1]]
    }

    fn marg(&self, g: usize) -> &[(u32, f64)] {
        &self.marg[self.marg_offsets[g]..self.marg_offsets[g + 1]]
    }

    /// Unit `i` (pattern `units[i]`) in group `group(i)`, `n` groups: the
    /// (group, pattern) pairs counted once, each group's terms summed.
    fn build(items: &ItemCounts, units: &[u32], group: impl Fn(usize) -> u32, n: usize) -> Self {
        let mut keys: Vec<u64> = units
            .iter()
            .enumerate()
            .map(|(i, &p)| (u64::from(group(i)) << 32) | u64::from(p))
            .collect();
        keys.sort_unstable();
        let mut out = Groups {
            pair_offsets: vec![0],
            marg_offsets: vec![0],
            ..Groups::default()
        };
        let mut runs = keys.chunk_by(|a, b| a == b).peekable();
        let (mut pairs, mut marg) = (Vec::new(), Vec::new());
        for g in 0..n as u64 {
            pairs.clear();
            marg.clear();
            while let Some(run) = runs.next_if(|r| r[0] >> 32 == g) {
                let p = (run[0] & 0xffff_ffff) as usize;
                pattern_terms(items, p, run.len() as f64, &mut pairs, &mut marg);
            }
            aggregate(&mut pairs);
            aggregate(&mut marg);
            out.pairs.extend_from_slice(&pairs);
            out.marg.extend_from_slice(&marg);
            out.pair_offsets.push(out.pairs.len());
            out.marg_offsets.push(out.marg.len());
        }
        out
    }
}

/// The bootstrap of alpha over items: the resampled units are the items
/// with at least two ratings (the others carry no pairable value), drawn
/// with replacement as [`Plan::single`] draws them. Above
/// [`EXACT_MAX_ITEMS`] items, the items are dealt into 1,000 seeded random
/// blocks and a replicate draws blocks: its cost no longer grows with the
/// number of items. Each unit's (or block's) sparse coincidences are
/// summed once; a replicate recombines them with its draw counts.
#[derive(Clone, Debug)]
pub struct AlphaBootstrap<'a> {
    tables: &'a CountTables,
    /// Number of resampled units.
    n_units: usize,
    /// True when blocks of units are drawn (the fast path).
    blocked: bool,
    groups: Arc<Groups>,
    plan: Plan,
    level: Level,
    values: Vec<f64>,
    /// Each group's observed disagreement `2 sum o d` at `level` (empty
    /// for ordinal data, whose distances follow each replicate's
    /// marginals).
    observed: Arc<Vec<f64>>,
    /// Ratio level with many distinct values: the quadrature nodes and
    /// each group's moments ([`ratio`]), pooled per replicate.
    ratio: Option<Arc<(Nodes, Vec<Moments>)>>,
}

impl<'a> AlphaBootstrap<'a> {
    /// Prepares the bootstrap of alpha at `level` with category `values`
    /// (the blocks of a large data set dealt with seed 0).
    pub fn new(tables: &'a CountTables, level: Level, values: &[f64]) -> Self {
        Self::with_seed(tables, level, values, 0)
    }

    /// [`AlphaBootstrap::new`] with the blocks of a large data set dealt
    /// with `seed` (the intervals' seed).
    pub fn with_seed(tables: &'a CountTables, level: Level, values: &[f64], seed: u64) -> Self {
        let units = Self::units(tables);
        Self::build(tables, units, level, values, seed, false)
    }

    /// The items with at least two ratings, by pattern, in item order.
    fn units(tables: &CountTables) -> Vec<u32> {
        let pairable: Vec<bool> = (0..tables.items.len())
            .map(|p| tables.items.total(p) >= 2)
            .collect();
        tables
            .item_pattern
            .iter()
            .copied()
            .filter(|&p| p != u32::MAX && pairable[p as usize])
            .collect()
    }

    fn build(
        tables: &'a CountTables,
        units: Vec<u32>,
        level: Level,
        values: &[f64],
        seed: u64,
        exact: bool,
    ) -> Self {
        let items = &tables.items;
        let blocked = !exact && units.len() > EXACT_MAX_ITEMS;
        let groups = if blocked {
            let assign = crate::bootstrap::random_blocks(units.len(), BLOCKS, seed);
            Groups::build(items, &units, |i| assign[i], BLOCKS as usize)
        } else {
            Groups::build(items, &units, |i| i as u32, units.len())
        };
        let mut out = AlphaBootstrap {
            tables,
            n_units: units.len(),
            blocked,
            plan: Plan::single(groups.len()),
            groups: Arc::new(groups),
            level,
            values: values.to_vec(),
            observed: Arc::new(Vec::new()),
            ratio: None,
        };
        out.observed = Arc::new(out.group_observed());
        out.ratio = out.ratio_moments();
        out
    }

    /// At the ratio level with more than [`ratio::DIRECT_MAX`] occurring
    /// values (of one sign), the nodes and each group's moments.
    fn ratio_moments(&self) -> Option<Arc<(Nodes, Vec<Moments>)>> {
        if self.level != Level::Ratio || self.values.len() != self.tables.items.q {
            return None;
        }
        let mut occurs = vec![false; self.values.len()];
        for &(k, _) in &self.groups.marg {
            occurs[k as usize] = true;
        }
        let x: Vec<f64> = (self.values.iter().zip(&occurs))
            .filter(|(_, &o)| o)
            .map(|(&v, _)| v)
            .collect();
        if x.len() <= ratio::DIRECT_MAX {
            return None;
        }
        let nodes = Nodes::new(&x)?;
        let moments = (0..self.groups.len())
            .map(|g| {
                let entries = self.groups.marg(g).iter();
                nodes.moments(entries.map(|&(k, c)| (c, self.values[k as usize])))
            })
            .collect();
        Some(Arc::new((nodes, moments)))
    }

    /// Each group's observed disagreement at the level (none for ordinal).
    fn group_observed(&self) -> Vec<f64> {
        if self.level == Level::Ordinal {
            return Vec::new();
        }
        let dist = Distance::new(self.level, &self.values, &[]);
        (0..self.groups.len())
            .map(|g| dist.observed(self.groups.pairs(g)))
            .collect()
    }

    /// The same bootstrap (units, blocks) for alpha at `level`: the blocks
    /// do not depend on the level, so they are dealt and summed once.
    pub fn at_level(&self, level: Level) -> Self {
        let mut out = AlphaBootstrap {
            level,
            ..self.clone()
        };
        out.observed = Arc::new(out.group_observed());
        out.ratio = out.ratio_moments();
        out
    }

    /// Number of resampled units (items with two ratings or more).
    pub fn n_units(&self) -> usize {
        self.n_units
    }

    /// True when replicates draw blocks of units (more than
    /// [`EXACT_MAX_ITEMS`] units).
    pub fn blocked(&self) -> bool {
        self.blocked
    }

    /// Alpha on replicate `replicate` of `seed` ([`replicate_rng`]): the
    /// same number whichever thread computes it, in whatever order.
    pub fn replicate(&self, seed: u64, replicate: u64) -> f64 {
        let mut rng = replicate_rng(seed, replicate);
        let mut draws = vec![0u32; self.groups.len()];
        self.plan.draw_counts(&mut rng, &mut draws);
        self.alpha_of_draws(&draws)
    }

    /// Alpha of the groups drawn `draws[g]` times each.
    fn alpha_of_draws(&self, draws: &[u32]) -> f64 {
        let q = self.tables.items.q;
        if self.values.len() != q {
            return f64::NAN;
        }
        let mut marg = vec![0.0; q];
        for (g, &c) in draws.iter().enumerate().filter(|(_, &c)| c > 0) {
            for &(k, v) in self.groups.marg(g) {
                marg[k as usize] += f64::from(c) * v;
            }
        }
        let expected = self.ratio.as_ref().map(|r| {
            let (nodes, groups) = &**r;
            nodes.integrate(&nodes.pool(groups, draws))
        });
        let observed = |dist: &Distance| {
            if self.level == Level::Ordinal {
                draws
                    .iter()
                    .enumerate()
                    .filter(|(_, &c)| c > 0)
                    .map(|(g, &c)| f64::from(c) * dist.observed(self.groups.pairs(g)))
                    .sum()
            } else {
                draws
                    .iter()
                    .zip(self.observed.iter())
                    .map(|(&c, o)| f64::from(c) * o)
                    .sum()
            }
        };
        alpha_with(self.level, &self.values, &marg, observed, expected)
    }

    /// Percentile interval at confidence `level` of replicates
    /// `0..n_replicates` (serially; a caller may compute
    /// [`AlphaBootstrap::replicate`] on threads and call
    /// [`percentile_interval`] itself).
    pub fn interval(&self, seed: u64, n_replicates: u64, level: f64) -> Interval {
        if self.n_units == 0 {
            return Interval::nan();
        }
        let reps: Vec<f64> = (0..n_replicates).map(|b| self.replicate(seed, b)).collect();
        percentile_interval(&reps, level)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::Lcg;
    use proptest::prelude::*;

    /// The direct definitions the sums must equal: the dense `q x q`
    /// coincidence matrix of the units with two ratings or more, the
    /// distance matrix, `1 - sum o d / sum e d`.
    fn dense_alpha(items: &ItemCounts, mult: &[f64], level: Level, values: &[f64]) -> f64 {
        let q = values.len();
        let mut o = vec![0.0; q * q];
        for (p, &m) in mult.iter().enumerate() {
            let row = items.row(p);
            let total = row.total();
            if total < 2 || m == 0.0 {
                continue;
            }
            for (k, a) in row.iter() {
                for (l, b) in row.iter() {
                    let same = if k == l { f64::from(a) } else { 0.0 };
                    o[k * q + l] += m * (f64::from(a) * f64::from(b) - same) / f64::from(total - 1);
                }
            }
        }
        let marg: Vec<f64> = (0..q).map(|k| o[k * q..(k + 1) * q].iter().sum()).collect();
        let n: f64 = marg.iter().sum();
        if q < 2 || n <= 0.0 {
            return f64::NAN;
        }
        let (mut observed, mut expected) = (0.0, 0.0);
        for k in 0..q {
            for l in 0..q {
                let d = match level {
                    Level::Nominal => f64::from(u8::from(k != l)),
                    Level::Ordinal => {
                        let (a, b) = (k.min(l), k.max(l));
                        let span: f64 = marg[a..=b].iter().sum();
                        (span - (marg[k] + marg[l]) / 2.0).powi(2)
                    }
                    Level::Interval => (values[k] - values[l]).powi(2),
                    Level::Ratio => {
                        let s = values[k] + values[l];
                        if s == 0.0 {
                            0.0
                        } else {
                            ((values[k] - values[l]) / s).powi(2)
                        }
                    }
                };
                observed += o[k * q + l] * d;
                let same = if k == l { marg[k] } else { 0.0 };
                expected += (marg[k] * marg[l] - same) / (n - 1.0) * d;
            }
        }
        1.0 - observed / expected
    }

    /// Krippendorff's pairwise definition on raw values (interval and
    /// ratio): `D_o = (1/n) sum_u 1/(m_u - 1) sum_{i != j in u} d(x_i,
    /// x_j)`, `D_e = 1/(n (n - 1)) sum_{i != j} d(x_i, x_j)` over all
    /// pairable values, `alpha = 1 - D_o / D_e`, in O(n^2).
    fn pairwise_alpha(units: &[Vec<f64>], level: Level) -> f64 {
        let d = |a: f64, b: f64| match level {
            Level::Interval => (a - b) * (a - b),
            _ => ratio::distance(a, b),
        };
        let pairable: Vec<&Vec<f64>> = units.iter().filter(|u| u.len() >= 2).collect();
        let all: Vec<f64> = pairable.iter().flat_map(|u| u.iter().copied()).collect();
        let n = all.len() as f64;
        let mut d_o = 0.0;
        for u in &pairable {
            let mut s = 0.0;
            for (i, &a) in u.iter().enumerate() {
                for (j, &b) in u.iter().enumerate() {
                    if i != j {
                        s += d(a, b);
                    }
                }
            }
            d_o += s / (u.len() as f64 - 1.0);
        }
        let mut d_e = 0.0;
        for (i, &a) in all.iter().enumerate() {
            for (j, &b) in all.iter().enumerate() {
                if i != j {
                    d_e += d(a, b);
                }
            }
        }
        1.0 - (d_o / n) / (d_e / (n * (n - 1.0)))
    }

    /// Items x raters of continuous ratings `0.0..=100.0` with one decimal
    /// (a true score plus noise, a tenth missing), coded by distinct value:
    /// the tables, the sorted distinct values and the raw units.
    fn continuous(n: usize, r: usize, seed: u64) -> (CountTables, Vec<f64>, Vec<Vec<f64>>) {
        let mut g = Lcg(seed);
        let mut raw = Vec::with_capacity(n * r);
        for _ in 0..n {
            let truth = g.next() * 100.0;
            for _ in 0..r {
                let x = ((truth + (g.next() - 0.5) * 30.0).clamp(0.0, 100.0) * 10.0).round() / 10.0;
                raw.push((g.next() >= 0.1).then_some(x));
            }
        }
        let mut values: Vec<f64> = raw.iter().flatten().copied().collect();
        values.sort_by(f64::total_cmp);
        values.dedup();
        let code = |x: f64| values.binary_search_by(|v| v.total_cmp(&x)).unwrap() as u32;
        let codes: Vec<Option<u32>> = raw.iter().map(|x| x.map(code)).collect();
        let units = raw
            .chunks(r)
            .map(|u| u.iter().flatten().copied().collect())
            .collect();
        (
            CountTables::from_ratings(&codes, r, values.len()),
            values,
            units,
        )
    }

    /// `n` items rated by 3 raters on 5 categories around a true category
    /// (a rater is off by one a quarter of the time).
    fn tables(n: usize) -> CountTables {
        let mut g = Lcg(17);
        let mut codes = Vec::with_capacity(3 * n);
        for _ in 0..n {
            let t = (g.next() * 5.0) as i64;
            for _ in 0..3 {
                let u = g.next();
                let v = if u < 0.125 {
                    t - 1
                } else if u > 0.875 {
                    t + 1
                } else {
                    t
                };
                codes.push(Some(v.clamp(0, 4) as u32));
            }
        }
        CountTables::from_ratings(&codes, 3, 5)
    }

    fn close(a: f64, b: f64) -> bool {
        (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-9 * (1.0 + b.abs())
    }

    #[test]
    fn continuous_alpha_equals_the_pairwise_definition() {
        let (t, values, units) = continuous(300, 4, 5);
        assert!(values.len() > 300, "many distinct values");
        for level in [Level::Interval, Level::Ratio] {
            let a = krippendorff_alpha(&t.items, level, &values);
            let b = pairwise_alpha(&units, level);
            assert!(close(a, b), "{level:?}: {a} vs {b}");
            let c = dense_alpha(&t.items, &t.items.mult, level, &values);
            assert!(close(a, c), "{level:?}: {a} vs dense {c}");
        }
    }

    proptest! {
        #[test]
        fn sparse_alpha_equals_the_coincidence_matrix(
            seed in 0u64..1000, n in 2usize..80, r in 2usize..6, q in 2usize..60
        ) {
            let mut g = Lcg(seed);
            let codes: Vec<Option<u32>> = (0..n * r)
                .map(|_| (g.next() > 0.15).then(|| (g.next() * q as f64) as u32))
                .collect();
            let t = CountTables::from_ratings(&codes, r, q);
            let values: Vec<f64> = (0..q).map(|_| (g.next() * 1000.0).round() / 10.0).collect();
            for level in Level::ALL {
                let a = krippendorff_alpha(&t.items, level, &values);
                let b = dense_alpha(&t.items, &t.items.mult, level, &values);
                prop_assert!(close(a, b), "{:?}: {} vs {}", level, a, b);
            }
        }
    }

    /// Each replicate equals the dense definition on the same draws, on
    /// the exact path (units drawn) and the block path (blocks drawn).
    #[test]
    fn replicates_equal_the_dense_definition_on_the_same_draws() {
        for (t, values) in [
            (tables(400), vec![1.0, 2.0, 3.0, 4.0, 5.0]),
            (tables(2500), vec![1.0, 2.0, 3.0, 4.0, 5.0]),
            {
                let (t, v, _) = continuous(1500, 3, 9);
                (t, v)
            },
        ] {
            for level in Level::ALL {
                let boot = AlphaBootstrap::with_seed(&t, level, &values, 4);
                let units = AlphaBootstrap::units(&t);
                let assign = crate::bootstrap::random_blocks(units.len(), BLOCKS, 4);
                for b in 0..3 {
                    let mut rng = replicate_rng(4, b);
                    let mut draws = vec![0u32; boot.groups.len()];
                    boot.plan.draw_counts(&mut rng, &mut draws);
                    let mut mult = vec![0.0; t.items.len()];
                    for (i, &p) in units.iter().enumerate() {
                        let g = if boot.blocked { assign[i] as usize } else { i };
                        mult[p as usize] += f64::from(draws[g]);
                    }
                    let want = dense_alpha(&t.items, &mult, level, &values);
                    let got = boot.replicate(4, b);
                    assert!(close(got, want), "{level:?} rep {b}: {got} vs {want}");
                }
            }
        }
    }

    #[test]
    fn blocks_give_the_item_bootstrap_interval_within_monte_carlo_error() {
        let t = tables(6000);
        let values = [1.0, 2.0, 3.0, 4.0, 5.0];
        let fast = AlphaBootstrap::with_seed(&t, Level::Interval, &values, 3);
        assert!(fast.blocked() && fast.groups.len() == BLOCKS as usize);
        let units = AlphaBootstrap::units(&t);
        let exact = AlphaBootstrap::build(&t, units, Level::Interval, &values, 3, true);
        assert!(!exact.blocked());
        let (a, b) = (fast.interval(3, 400, 0.95), exact.interval(3, 400, 0.95));
        let (wa, wb) = (a.upper - a.lower, b.upper - b.lower);
        assert!(
            wa > 0.0 && (0.8..1.25).contains(&(wa / wb)),
            "{a:?} vs {b:?}"
        );
        let mid = |i: &Interval| (i.lower + i.upper) / 2.0;
        assert!((mid(&a) - mid(&b)).abs() < 0.25 * wb, "{a:?} vs {b:?}");
        let estimate = krippendorff_alpha(&t.items, Level::Interval, &values);
        assert!(a.lower < estimate && estimate < a.upper);
        assert_eq!(
            fast.replicate(3, 7).to_bits(),
            fast.replicate(3, 7).to_bits()
        );
    }

    #[test]
    fn one_bootstrap_serves_every_level() {
        let t = tables(3000);
        let values = [1.0, 2.0, 3.0, 4.0, 5.0];
        let ordinal = AlphaBootstrap::with_seed(&t, Level::Ordinal, &values, 5);
        let nominal = AlphaBootstrap::with_seed(&t, Level::Nominal, &values, 5);
        assert_eq!(
            ordinal.at_level(Level::Nominal).replicate(5, 9).to_bits(),
            nominal.replicate(5, 9).to_bits()
        );
    }

    #[test]
    fn small_data_draw_every_item() {
        let t = tables(EXACT_MAX_ITEMS);
        let b = AlphaBootstrap::new(&t, Level::Nominal, &[1.0, 2.0, 3.0, 4.0, 5.0]);
        assert!(!b.blocked());
        assert_eq!(b.n_units(), EXACT_MAX_ITEMS);
        assert_eq!(b.groups.len(), EXACT_MAX_ITEMS);
    }
}
