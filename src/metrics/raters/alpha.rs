//! Stage 4 (metrics, pure): Krippendorff's alpha at the nominal, ordinal,
//! interval and ratio levels from the coincidence matrix, as the Python
//! `krippendorff` package (0.9.0) computes it (fixture README 6.1), and its
//! bootstrap over items, one `(seed, replicate)` stream per replicate so
//! the result does not depend on the thread count.
//!
//! Pure maths on the count tables of [`super`]: nothing here may touch
//! files, tables, configuration, threads, formatting or report code.
//! Degenerate data (fewer than two categories, no item with two ratings,
//! every pairable rating equal) give `NaN`, never a panic.

use super::{CountTables, ItemCounts};
use crate::metrics::bootstrap::{percentile_interval, replicate_rng, Interval, Plan};

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

/// Coincidence matrix `o_kl = sum_u mult_u (n_uk n_ul - [k = l] n_uk) /
/// (m_u - 1)` over the patterns with `m_u >= 2` ratings (`mult` gives each
/// pattern's weight: its number of items, or a replicate's draw counts).
pub fn coincidences(items: &ItemCounts, mult: &[f64]) -> Vec<f64> {
    let mut o = vec![0.0; items.q * items.q];
    for (p, &m) in mult.iter().enumerate().take(items.len()) {
        add_pattern(items, p, m, &mut o);
    }
    o
}

/// Adds `m` times pattern `p`'s pairs to the coincidence matrix `o`
/// (nothing for a pattern with fewer than two ratings).
fn add_pattern(items: &ItemCounts, p: usize, m: f64, o: &mut [f64]) {
    pattern_terms(items, p, m, |cell, v| o[cell] += v);
}

/// Calls `add(k * q + l, m (n_kp n_lp - [k = l] n_kp) / (m_p - 1))` for
/// the categories `k`, `l` of pattern `p`, in row-major order (never for
/// fewer than two ratings or `m = 0`): the terms of [`add_pattern`].
fn pattern_terms(items: &ItemCounts, p: usize, m: f64, mut add: impl FnMut(usize, f64)) {
    let q = items.q;
    let row = items.row(p);
    let total = items.total(p);
    if total < 2 || m == 0.0 {
        return;
    }
    let scale = m / f64::from(total - 1);
    for k in (0..q).filter(|&k| row[k] > 0) {
        for l in (0..q).filter(|&l| row[l] > 0) {
            let (a, b) = (f64::from(row[k]), f64::from(row[l]));
            let same = if k == l { a } else { 0.0 };
            add(k * q + l, (a * b - same) * scale);
        }
    }
}

/// Squared distances `d_kl` for `level`: nominal `[k != l]`; ordinal
/// `(sum_{g=min}^{max} n_g - (n_k + n_l)/2)^2` over positions, `n_g` the
/// coincidence marginals; interval `(v_k - v_l)^2`; ratio `((v_k - v_l) /
/// (v_k + v_l))^2` (0 when `v_k + v_l = 0`).
pub fn distances(level: Level, values: &[f64], marginals: &[f64]) -> Vec<f64> {
    let q = values.len();
    let mut d = vec![0.0; q * q];
    for k in 0..q {
        for l in 0..q {
            d[k * q + l] = match level {
                Level::Nominal => f64::from(u8::from(k != l)),
                Level::Ordinal => {
                    let (a, b) = (k.min(l), k.max(l));
                    let span: f64 = marginals[a..=b].iter().sum();
                    (span - (marginals[k] + marginals[l]) / 2.0).powi(2)
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
        }
    }
    d
}

/// Alpha from a coincidence matrix: `1 - sum o d / sum e d`, `e_kl = (n_k
/// n_l - [k = l] n_k) / (n - 1)`. NaN with fewer than two categories or
/// nothing pairable.
pub fn alpha_from_coincidences(o: &[f64], level: Level, values: &[f64]) -> f64 {
    let q = values.len();
    if q < 2 || o.len() != q * q {
        return f64::NAN;
    }
    let marg: Vec<f64> = (0..q).map(|k| o[k * q..(k + 1) * q].iter().sum()).collect();
    let n: f64 = marg.iter().sum();
    if n <= 0.0 {
        return f64::NAN;
    }
    let d = distances(level, values, &marg);
    let (mut observed, mut expected) = (0.0, 0.0);
    for k in 0..q {
        for l in 0..q {
            observed += o[k * q + l] * d[k * q + l];
            let same = if k == l { marg[k] } else { 0.0 };
            expected += (marg[k] * marg[l] - same) / (n - 1.0) * d[k * q + l];
        }
    }
    1.0 - observed / expected
}

/// Krippendorff's alpha of the items (units with fewer than two ratings
/// drop out) at `level`, `values` = the category values in declared order
/// (positions for text labels; only `Nominal` makes sense for them).
pub fn krippendorff_alpha(items: &ItemCounts, level: Level, values: &[f64]) -> f64 {
    alpha_from_coincidences(&coincidences(items, &items.mult), level, values)
}

/// Above this many resampled items, replicates draw random blocks of items
/// (the block fast path of uncertainty spec 6, as `build`'s intervals do).
pub const EXACT_MAX_ITEMS: usize = 1000;
/// The number of blocks of the fast path.
const BLOCKS: u32 = 1000;

/// The bootstrap of alpha over items: the resampled units are the items
/// with at least two ratings (the others carry no pairable value), drawn
/// with replacement as [`Plan::single`] draws them. Above
/// [`EXACT_MAX_ITEMS`] items, the items are dealt into 1,000 seeded random
/// blocks whose coincidence matrices are summed once, and a replicate
/// draws blocks: its cost no longer grows with the number of items.
#[derive(Clone, Debug)]
pub struct AlphaBootstrap<'a> {
    tables: &'a CountTables,
    /// Pattern of each resampled unit.
    units: Vec<u32>,
    plan: Plan,
    level: Level,
    values: Vec<f64>,
    /// The coincidence matrix of each block (the fast path); empty: every
    /// item is drawn.
    blocks: Vec<Vec<f64>>,
}

/// The coincidence matrix of each of [`BLOCKS`] seeded random blocks of
/// the items `units` (their patterns): the terms of every pattern worked
/// out once, then added item by item, in item order, exactly as
/// [`add_pattern`] adds them.
fn block_coincidences(items: &ItemCounts, units: &[u32], seed: u64) -> Vec<Vec<f64>> {
    let assign = crate::metrics::bootstrap::random_blocks(units.len(), BLOCKS, seed);
    let terms: Vec<Vec<(usize, f64)>> = (0..items.len())
        .map(|p| {
            let mut t = Vec::new();
            pattern_terms(items, p, 1.0, |cell, v| t.push((cell, v)));
            t
        })
        .collect();
    let mut out = vec![vec![0.0; items.q * items.q]; BLOCKS as usize];
    for (&p, &b) in units.iter().zip(&assign) {
        let o = &mut out[b as usize];
        for &(cell, v) in &terms[p as usize] {
            o[cell] += v;
        }
    }
    out
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
        let pairable: Vec<bool> = (0..tables.items.len())
            .map(|p| tables.items.total(p) >= 2)
            .collect();
        let units: Vec<u32> = tables
            .item_pattern
            .iter()
            .copied()
            .filter(|&p| p != u32::MAX && pairable[p as usize])
            .collect();
        let blocks = if units.len() > EXACT_MAX_ITEMS {
            block_coincidences(&tables.items, &units, seed)
        } else {
            Vec::new()
        };
        let n_drawn = if blocks.is_empty() {
            units.len()
        } else {
            blocks.len()
        };
        AlphaBootstrap {
            tables,
            plan: Plan::single(n_drawn),
            units,
            level,
            values: values.to_vec(),
            blocks,
        }
    }

    /// The same bootstrap (units, blocks) for alpha at `level`: the blocks
    /// do not depend on the level, so they are dealt and summed once.
    pub fn at_level(&self, level: Level) -> Self {
        AlphaBootstrap {
            level,
            ..self.clone()
        }
    }

    /// Number of resampled units (items with two ratings or more).
    pub fn n_units(&self) -> usize {
        self.units.len()
    }

    /// Alpha on replicate `replicate` of `seed` ([`replicate_rng`]): the
    /// same number whichever thread computes it, in whatever order.
    pub fn replicate(&self, seed: u64, replicate: u64) -> f64 {
        let mut rng = replicate_rng(seed, replicate);
        if !self.blocks.is_empty() {
            let mut draws = vec![0u32; self.blocks.len()];
            self.plan.draw_counts(&mut rng, &mut draws);
            let mut o = vec![0.0; self.tables.items.q * self.tables.items.q];
            for (block, &c) in self.blocks.iter().zip(&draws) {
                for (x, y) in o.iter_mut().zip(block) {
                    *x += f64::from(c) * y;
                }
            }
            return alpha_from_coincidences(&o, self.level, &self.values);
        }
        let mut draws = vec![0u32; self.units.len()];
        self.plan.draw_counts(&mut rng, &mut draws);
        let mut mult = vec![0.0; self.tables.items.len()];
        for (&p, &c) in self.units.iter().zip(&draws) {
            mult[p as usize] += f64::from(c);
        }
        let o = coincidences(&self.tables.items, &mult);
        alpha_from_coincidences(&o, self.level, &self.values)
    }

    /// Percentile interval at confidence `level` of replicates
    /// `0..n_replicates` (serially; a caller may compute
    /// [`AlphaBootstrap::replicate`] on threads and call
    /// [`percentile_interval`] itself).
    pub fn interval(&self, seed: u64, n_replicates: u64, level: f64) -> Interval {
        if self.units.is_empty() {
            return Interval::nan();
        }
        let reps: Vec<f64> = (0..n_replicates).map(|b| self.replicate(seed, b)).collect();
        percentile_interval(&reps, level)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::test_util::Lcg;

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

    #[test]
    fn blocks_give_the_item_bootstrap_interval_within_monte_carlo_error() {
        let t = tables(6000);
        let values = [1.0, 2.0, 3.0, 4.0, 5.0];
        let fast = AlphaBootstrap::with_seed(&t, Level::Interval, &values, 3);
        assert_eq!(fast.blocks.len(), BLOCKS as usize, "the fast path");
        let mut exact = fast.clone();
        exact.blocks.clear();
        exact.plan = Plan::single(exact.units.len());
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
    fn blocks_are_summed_as_add_pattern_sums_and_serve_every_level() {
        let t = tables(3000);
        let values = [1.0, 2.0, 3.0, 4.0, 5.0];
        let ordinal = AlphaBootstrap::with_seed(&t, Level::Ordinal, &values, 5);
        let assign = crate::metrics::bootstrap::random_blocks(ordinal.units.len(), BLOCKS, 5);
        let mut want = vec![vec![0.0; 25]; BLOCKS as usize];
        for (&p, &b) in ordinal.units.iter().zip(&assign) {
            add_pattern(&t.items, p as usize, 1.0, &mut want[b as usize]);
        }
        let bits =
            |b: &[Vec<f64>]| -> Vec<u64> { b.iter().flatten().map(|x| x.to_bits()).collect() };
        assert_eq!(bits(&ordinal.blocks), bits(&want));
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
        assert!(b.blocks.is_empty());
        assert_eq!(b.n_units(), EXACT_MAX_ITEMS);
    }
}
