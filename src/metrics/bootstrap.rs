//! Part of the metrics stage (pure maths: no I/O, no tables, no plots).
//!
//! The building blocks of the bootstrap (uncertainty spec 2): a generator
//! per replicate seeded by `(seed, replicate)`, so a replicate's draws do
//! not depend on the number of threads or the order replicates run in; a
//! seeded balanced random deal of units into blocks; the percentile
//! interval with numpy's `linear` quantiles and the 1% rule; and the
//! analytic intervals of spec 2.3 (Fisher z, Wilson, the large-sample
//! kappa SE of Fleiss, Cohen and Everitt 1969).

use statrs::distribution::{ContinuousCDF, Normal};

/// SplitMix64 (Steele, Lea and Flood 2014): a 64-bit state stepped by a
/// Weyl sequence and mixed; passes BigCrush, and any seed (0 included) is
/// a good one.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator started at `seed`.
    pub fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.state)
    }

    /// A uniform integer in `[0, n)` (Lemire's multiply-shift with
    /// rejection: unbiased); 0 when `n` is 0.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let mut m = u128::from(self.next_u64()) * u128::from(n);
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = u128::from(self.next_u64()) * u128::from(n);
            }
        }
        (m >> 64) as u64
    }

    /// A uniform float in `[0, 1)` (53 bits).
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// SplitMix64's output function (a bijection of `u64`).
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The generator of replicate `replicate` under `seed`: its start is a
/// mix of both, so streams of different replicates (or seeds) are
/// unrelated, and replicate `b` draws the same values whoever runs it.
pub fn replicate_rng(seed: u64, replicate: u64) -> Rng {
    Rng::new(mix(
        mix(seed) ^ replicate.wrapping_mul(0xD1B5_4A32_D192_ED03)
    ))
}

/// Deals `n_units` units into `n_blocks` blocks at random (a seeded
/// Fisher-Yates permutation cut into consecutive runs), so block sizes
/// differ by at most one. Returns the block of each unit. Resampling
/// random blocks of independent units approximates resampling the units:
/// the block sums are independent and identically distributed, so the
/// bootstrap variance of a total over `M` resampled blocks equals the unit
/// bootstrap's up to the factor `(M - 1)/M` (see the test).
pub fn random_blocks(n_units: usize, n_blocks: usize, seed: u64) -> Vec<u32> {
    if n_units == 0 {
        return Vec::new();
    }
    let m = n_blocks.clamp(1, n_units);
    let mut order: Vec<u32> = (0..n_units as u32).collect();
    let mut rng = Rng::new(mix(seed ^ 0x5851_F42D_4C95_7F2D));
    for i in (1..n_units).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        order.swap(i, j);
    }
    let mut block = vec![0u32; n_units];
    for (position, &unit) in order.iter().enumerate() {
        // Position p goes to block floor(p * m / n): runs of n/m or n/m + 1.
        block[unit as usize] = (position * m / n_units) as u32;
    }
    block
}

/// A percentile interval with the bootstrap SE.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub lower: f64,
    pub upper: f64,
    /// Standard deviation (divisor `B - 1`) of the finite replicate values.
    pub se: f64,
    /// Number of finite replicate values.
    pub valid: usize,
}

impl Interval {
    /// No interval.
    pub fn nan() -> Self {
        Interval {
            lower: f64::NAN,
            upper: f64::NAN,
            se: f64::NAN,
            valid: 0,
        }
    }
}

/// The percentile interval at `level` (spec 2.3): the `(1 - level)/2` and
/// `(1 + level)/2` quantiles of the finite replicate values with numpy's
/// `linear` interpolation (position `q (n - 1)` in the sorted values).
/// NaN (with `valid` and `se` still given) when more than 1% of the
/// replicates are not finite, and when there are none.
pub fn percentile_interval(replicates: &[f64], level: f64) -> Interval {
    let mut finite: Vec<f64> = replicates
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    let valid = finite.len();
    let se = sample_sd(&finite);
    let invalid = replicates.len() - valid;
    if valid == 0 || invalid * 100 > replicates.len() {
        return Interval {
            se,
            valid,
            ..Interval::nan()
        };
    }
    finite.sort_unstable_by(f64::total_cmp);
    Interval {
        lower: quantile_sorted(&finite, (1.0 - level) / 2.0),
        upper: quantile_sorted(&finite, (1.0 + level) / 2.0),
        se,
        valid,
    }
}

/// numpy's `quantile(x, q)` (`linear`) of sorted, non-empty `x`.
fn quantile_sorted(x: &[f64], q: f64) -> f64 {
    let pos = q * (x.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = (lo + 1).min(x.len() - 1);
    let frac = pos - lo as f64;
    x[lo] + (x[hi] - x[lo]) * frac
}

/// Sample sd (divisor `n - 1`); NaN with fewer than two values.
fn sample_sd(x: &[f64]) -> f64 {
    if x.len() < 2 {
        return f64::NAN;
    }
    let mean = x.iter().sum::<f64>() / x.len() as f64;
    let ss: f64 = x.iter().map(|v| (v - mean) * (v - mean)).sum();
    (ss / (x.len() - 1) as f64).sqrt()
}

/// The standard normal quantile of `(1 + level)/2`.
pub fn z_quantile(level: f64) -> f64 {
    Normal::new(0.0, 1.0).map_or(f64::NAN, |n| n.inverse_cdf((1.0 + level) / 2.0))
}

/// Fisher's z interval of a correlation: `tanh(atanh(r) +- z / sqrt(n -
/// 3))`. NaN when `r` is NaN or `n <= 3`; `(r, r)` when `|r| = 1` (no
/// sampling variation is visible).
pub fn fisher_z_interval(r: f64, n: usize, level: f64) -> (f64, f64) {
    if r.is_nan() || n <= 3 {
        return (f64::NAN, f64::NAN);
    }
    if r.abs() >= 1.0 {
        return (r, r);
    }
    let half = z_quantile(level) / ((n - 3) as f64).sqrt();
    let z = r.atanh();
    ((z - half).tanh(), (z + half).tanh())
}

/// Wilson's score interval of a proportion `successes / n` (Wilson 1927),
/// as proportions; NaN when `n` is 0.
pub fn wilson_interval(successes: f64, n: usize, level: f64) -> (f64, f64) {
    if n == 0 || successes.is_nan() {
        return (f64::NAN, f64::NAN);
    }
    let (z, n) = (z_quantile(level), n as f64);
    let p = successes / n;
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Unweighted kappa of a `k x k` table of counts (rows: first rater,
/// row-major) with its large-sample interval from the standard error of
/// Fleiss, Cohen and Everitt (1969):
/// `var = [ sum_i p_ii (1 - (p_i. + p_.i)(1 - kappa))^2
///        + (1 - kappa)^2 sum_{i != j} p_ij (p_.i + p_j.)^2
///        - (kappa - p_e (1 - kappa))^2 ] / (n (1 - p_e)^2)`.
/// Returns `(kappa, lower, upper)`; NaN when `n` is 0 or `p_e` is 1.
pub fn kappa_fce_interval(counts: &[f64], k: usize, level: f64) -> (f64, f64, f64) {
    let nan = (f64::NAN, f64::NAN, f64::NAN);
    let n: f64 = counts.iter().sum();
    if k == 0 || counts.len() != k * k || n <= 0.0 {
        return nan;
    }
    let p = |i: usize, j: usize| counts[i * k + j] / n;
    let row: Vec<f64> = (0..k).map(|i| (0..k).map(|j| p(i, j)).sum()).collect();
    let col: Vec<f64> = (0..k).map(|j| (0..k).map(|i| p(i, j)).sum()).collect();
    let po: f64 = (0..k).map(|i| p(i, i)).sum();
    let pe: f64 = (0..k).map(|i| row[i] * col[i]).sum();
    if pe >= 1.0 {
        return nan;
    }
    let kappa = (po - pe) / (1.0 - pe);
    let diagonal: f64 = (0..k)
        .map(|i| p(i, i) * (1.0 - (row[i] + col[i]) * (1.0 - kappa)).powi(2))
        .sum();
    let mut off = 0.0;
    for (i, col_i) in col.iter().enumerate() {
        for (j, row_j) in row.iter().enumerate().filter(|&(j, _)| j != i) {
            off += p(i, j) * (col_i + row_j).powi(2);
        }
    }
    let correction = (kappa - pe * (1.0 - kappa)).powi(2);
    let var = (diagonal + (1.0 - kappa).powi(2) * off - correction) / (n * (1.0 - pe).powi(2));
    let half = z_quantile(level) * var.max(0.0).sqrt();
    (kappa, kappa - half, kappa + half)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn replicate_streams_are_fixed_and_distinct() {
        let a: Vec<u64> = (0..4).map(|_| replicate_rng(1, 5).next_u64()).collect();
        assert!(a.iter().all(|&x| x == a[0]));
        let mut r = replicate_rng(1, 5);
        let first = r.next_u64();
        assert_eq!(first, a[0]);
        assert_ne!(r.next_u64(), first);
        assert_ne!(replicate_rng(1, 6).next_u64(), first);
        assert_ne!(replicate_rng(2, 5).next_u64(), first);
        // SplitMix64 reference value (Vigna's splitmix64.c, seed 0).
        assert_eq!(Rng::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn below_is_uniform() {
        // Chi-square over 10 cells, 100,000 draws: 27.9 is the 0.999 quantile
        // for 9 degrees of freedom.
        let mut r = Rng::new(42);
        let mut cells = [0u32; 10];
        for _ in 0..100_000 {
            cells[r.below(10) as usize] += 1;
        }
        let chi2: f64 = cells
            .iter()
            .map(|&c| (f64::from(c) - 10_000.0).powi(2) / 10_000.0)
            .sum();
        assert!(chi2 < 27.9, "{chi2}");
        assert_eq!(r.below(0), 0);
        assert_eq!(r.below(1), 0);
    }

    #[test]
    fn blocks_are_balanced_and_seeded() {
        let b = random_blocks(103, 10, 7);
        let mut sizes = [0usize; 10];
        for &x in &b {
            sizes[x as usize] += 1;
        }
        assert!(sizes.iter().all(|&s| s == 10 || s == 11), "{sizes:?}");
        assert_eq!(b, random_blocks(103, 10, 7));
        assert_ne!(b, random_blocks(103, 10, 8));
        assert_eq!(random_blocks(5, 9, 1).iter().max(), Some(&4));
        assert!(random_blocks(0, 0, 1).is_empty());
    }

    #[test]
    fn block_bootstrap_matches_the_unit_bootstrap_for_a_mean() {
        // 4,000 values, 200 random blocks; SE of the mean by resampling
        // blocks vs by resampling values, 2,000 replicates each: both near
        // sd/sqrt(n); the Monte Carlo error of an SE from 2,000 replicates
        // is about 1.6%, so 6% is a wide band that still fails a wrong
        // block weighting (which is off by a factor of 2 or more).
        let mut g = Rng::new(3);
        let x: Vec<f64> = (0..4000).map(|_| g.uniform() * 12.0).collect();
        let n = x.len();
        let blocks = random_blocks(n, 200, 11);
        let mut sums = vec![(0.0, 0.0); 200];
        for (i, &b) in blocks.iter().enumerate() {
            sums[b as usize].0 += x[i];
            sums[b as usize].1 += 1.0;
        }
        let (mut by_block, mut by_unit) = (Vec::new(), Vec::new());
        for b in 0..2000 {
            let mut r = replicate_rng(5, b);
            let (mut s, mut c) = (0.0, 0.0);
            for _ in 0..200 {
                let j = r.below(200) as usize;
                s += sums[j].0;
                c += sums[j].1;
            }
            by_block.push(s / c);
            let mut s = 0.0;
            for _ in 0..n {
                s += x[r.below(n as u64) as usize];
            }
            by_unit.push(s / n as f64);
        }
        let (se_b, se_u) = (sample_sd(&by_block), sample_sd(&by_unit));
        let theory = sample_sd(&x) / (n as f64).sqrt();
        assert!((se_b / theory - 1.0).abs() < 0.06, "{se_b} vs {theory}");
        assert!((se_u / theory - 1.0).abs() < 0.06, "{se_u} vs {theory}");
    }

    #[test]
    fn percentiles_interpolate_like_numpy() {
        // numpy.quantile(1..=10, [0.1, 0.9]): positions 0.9 and 8.1 ->
        // 1 + 0.9 * 1 = 1.9 and 9 + 0.1 * 1 = 9.1.
        let x: Vec<f64> = (1..=10).rev().map(f64::from).collect();
        let i = percentile_interval(&x, 0.8);
        assert!(
            close(i.lower, 1.9, 1e-12) && close(i.upper, 9.1, 1e-12),
            "{i:?}"
        );
        assert_eq!(i.valid, 10);
        // sd of 1..=10 (ddof 1) = sqrt(55/6).
        assert!(close(i.se, (55.0f64 / 6.0).sqrt(), 1e-12));
        // 95%: positions 0.225 and 8.775 -> 1.225 and 9.775.
        let i = percentile_interval(&x, 0.95);
        assert!(close(i.lower, 1.225, 1e-12) && close(i.upper, 9.775, 1e-12));
        let same = percentile_interval(&[2.5; 7], 0.95);
        assert_eq!((same.lower, same.upper, same.se), (2.5, 2.5, 0.0));
    }

    #[test]
    fn the_one_percent_rule() {
        let mut x: Vec<f64> = (0..1000).map(f64::from).collect();
        for v in x.iter_mut().take(10) {
            *v = f64::NAN;
        }
        let i = percentile_interval(&x, 0.95);
        assert_eq!(i.valid, 990);
        assert!(i.lower.is_finite() && i.upper.is_finite());
        x[10] = f64::INFINITY;
        let i = percentile_interval(&x, 0.95);
        assert_eq!(i.valid, 989);
        assert!(i.lower.is_nan() && i.upper.is_nan());
        assert!(i.se.is_finite());
        let none = percentile_interval(&[], 0.95);
        assert!(none.lower.is_nan() && none.valid == 0);
        assert!(percentile_interval(&[f64::NAN], 0.95).upper.is_nan());
    }

    #[test]
    fn fisher_z_by_hand() {
        // r = 0.5, n = 28 (by hand): atanh(0.5) = 0.549306, 1.959964 / 5 =
        // 0.391993; tanh(0.157313) = 0.156028, tanh(0.941299) = 0.735818.
        let (lo, hi) = fisher_z_interval(0.5, 28, 0.95);
        assert!(
            close(lo, 0.156028, 1e-6) && close(hi, 0.735818, 1e-6),
            "{lo} {hi}"
        );
        assert!(fisher_z_interval(0.5, 3, 0.95).0.is_nan());
        assert!(fisher_z_interval(f64::NAN, 100, 0.95).1.is_nan());
        assert_eq!(fisher_z_interval(1.0, 10, 0.95), (1.0, 1.0));
    }

    #[test]
    fn wilson_by_hand() {
        // 81 of 263 at 95%, by hand with z = 1.959964: p = 0.307985,
        // centre = (p + z^2/526)/(1 + z^2/263) = 0.310749, half =
        // z/(1 + z^2/263) sqrt(p(1 - p)/263 + z^2/(4 * 263^2)) = 0.055460.
        let (lo, hi) = wilson_interval(81.0, 263, 0.95);
        assert!(
            close(lo, 0.255289, 1e-6) && close(hi, 0.366210, 1e-6),
            "{lo} {hi}"
        );
        // All successes: the upper bound is 1, the lower n/(n + z^2).
        let (lo, hi) = wilson_interval(10.0, 10, 0.95);
        assert!(close(lo, 10.0 / (10.0 + 1.959964f64.powi(2)), 1e-6) && hi == 1.0);
        assert!(wilson_interval(0.0, 0, 0.95).0.is_nan());
    }

    #[test]
    fn kappa_fce_by_hand() {
        // 2 x 2 table [[40, 10], [5, 45]], n = 100: po = 0.85,
        // p1. = 0.5, p.1 = 0.45, pe = 0.5*0.45 + 0.5*0.55 = 0.5,
        // kappa = 0.7. Diagonal terms: 0.40 (1 - 0.95*0.3)^2 = 0.204490,
        // 0.45 (1 - 1.05*0.3)^2 = 0.211151; off-diagonal: 0.10 (p.1 + p2.)^2
        // = 0.10 (0.45 + 0.5)^2 = 0.09025, 0.05 (p.2 + p1.)^2 = 0.05 *
        // 1.05^2 = 0.055125, times (1 - kappa)^2 = 0.09 -> 0.013084;
        // correction (0.7 - 0.5*0.3)^2 = 0.3025. var = (0.415641 +
        // 0.013084 - 0.3025) / (100 * 0.25) = 0.005049, se = 0.071056.
        let (kappa, lo, hi) = kappa_fce_interval(&[40.0, 10.0, 5.0, 45.0], 2, 0.95);
        assert!(close(kappa, 0.7, 1e-12));
        let se = (hi - lo) / 2.0 / 1.959964;
        assert!(close(se, 0.071056, 1e-5), "{se}");
        assert!(kappa_fce_interval(&[], 0, 0.95).0.is_nan());
        assert!(kappa_fce_interval(&[5.0], 1, 0.95).0.is_nan());
    }
}
