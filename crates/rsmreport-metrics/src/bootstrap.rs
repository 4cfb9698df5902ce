//! Stage 4 (metrics, pure): the building blocks of the bootstrap engine of
//! the intervals spec (`spec/uncertainty.md`, sections 2 and 6).
//!
//! * [`Rng`] and [`replicate_rng`]: a small fast generator (xoshiro256++
//!   seeded through SplitMix64) with one independent stream per
//!   `(seed, replicate)` pair, so replicate `b` is the same whatever the
//!   thread count or the order replicates run in (spec 2.4). [`Rng`] is
//!   [`Xoshiro256`] with the `++` scrambler, the project's one generator
//!   (`rsmreport simulate` draws from it with the `**` scrambler).
//! * [`Plan`]: sampling units grouped into strata; [`Plan::draw_counts`]
//!   fills how often each unit is drawn in one replicate (spec 2.1, 2.2).
//! * [`random_blocks`]: a seeded balanced random partition of iid units into
//!   blocks, for the block-sum fast path of spec 6.
//! * [`percentile_interval`] (spec 2.3) and the analytic cross-checks
//!   [`fisher_z_interval`], [`wilson_interval`], [`kappa_fce_interval`].
//!
//! Pure maths on slices and integers: this file must not touch files,
//! tables, configuration, threads, formatting or report code, and nothing
//! here changes the estimates of the other metric modules. Degenerate data
//! (empty inputs, non-finite values, too few observations) give `NaN`, never
//! a panic; only caller bugs (a buffer of the wrong length, `below(0)`)
//! panic.

use statrs::distribution::{ContinuousCDF, Normal};

// ---------------------------------------------------------------------------
// Random numbers.

/// The SplitMix64 increment (the golden ratio in 0.64 fixed point).
const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// Key xored into the replicate number before it is hashed, so that the
/// replicate half of the state never equals the seed half for `seed == b`.
const REPLICATE_KEY: u64 = 0x5851_f42d_4c95_7f2d;

/// The stream of a seed that [`random_blocks`] uses: replicate numbers start
/// at 0 and never come near `u64::MAX`, so it is disjoint from theirs.
pub const BLOCKS_STREAM: u64 = u64::MAX;

/// SplitMix64 (Steele, Lea and Flood 2014): a 64-bit counter passed through
/// a bijective mixer. Used only to expand seeds into xoshiro states, as its
/// authors recommend.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator whose first output is the mix of `seed + GOLDEN_GAMMA`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN_GAMMA);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// The output function of a xoshiro256 generator: the one state
/// transition of Blackman and Vigna (2018), two published scramblers of
/// the state into 64 output bits.
pub trait Scrambler {
    /// The output of state `s`, before the transition.
    fn output(s: &[u64; 4]) -> u64;
}

/// xoshiro256++ (Blackman and Vigna 2019): `rotl(s0 + s3, 23) + s0`. The
/// bootstrap's generator ([`Rng`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlusPlus;

impl Scrambler for PlusPlus {
    #[inline(always)]
    fn output(s: &[u64; 4]) -> u64 {
        s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0])
    }
}

/// xoshiro256** (Blackman and Vigna 2018): `rotl(s1 * 5, 7) * 9`. The
/// generator of `rsmreport simulate`, whose seeded files it fixes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StarStar;

impl Scrambler for StarStar {
    #[inline(always)]
    fn output(s: &[u64; 4]) -> u64 {
        s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9)
    }
}

/// xoshiro256 (Blackman and Vigna 2018, 2019): 256 bits of state, period
/// `2^256 - 1`, passes BigCrush; a handful of shifts, xors and one add or
/// two multiplies per 64 bits, by its scrambler `S`. Not cryptographic
/// (nothing here needs that). The project's one generator: the bootstrap
/// draws from [`Rng`] (`++`, seeded by [`Xoshiro256::from_seed`] or per
/// replicate by [`replicate_rng`]); `rsmreport simulate` from
/// `Xoshiro256<StarStar>` seeded by [`Xoshiro256::from_seed`] of its own
/// stream keys. The two scramblers give different numbers from one state,
/// and each fixes outputs (bootstrap intervals, simulated files), so both
/// are kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Xoshiro256<S> {
    s: [u64; 4],
    scrambler: std::marker::PhantomData<S>,
}

/// The bootstrap's generator: xoshiro256++.
pub type Rng = Xoshiro256<PlusPlus>;

impl<S: Scrambler> Xoshiro256<S> {
    /// A generator whose state is four SplitMix64 outputs of `seed` (the
    /// seeding the xoshiro authors recommend; the state is never all zero
    /// because SplitMix64 outputs four consecutive values of a bijection).
    pub fn from_seed(seed: u64) -> Self {
        let mut sm = SplitMix64::new(seed);
        Self::from_state([sm.next_u64(), sm.next_u64(), sm.next_u64(), sm.next_u64()])
    }

    /// A generator in state `s` (not all zero).
    pub fn from_state(s: [u64; 4]) -> Self {
        Xoshiro256 {
            s,
            scrambler: std::marker::PhantomData,
        }
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let result = S::output(&self.s);
        let s = &mut self.s;
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform on `[0, 1)`: the top 53 bits scaled by `2^-53`.
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in `0..n`, exactly unbiased (Lemire 2019, "Fast
    /// random integer generation in an interval": the high word of the
    /// 128-bit product `x * n`, rejecting the `2^64 mod n` low words that
    /// would over-represent some values; one division only on the rare
    /// slow path).
    ///
    /// # Panics
    /// If `n == 0` (an empty range has no value to return).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "Rng::below(0)");
        let mut m = u128::from(self.next_u64()) * u128::from(n);
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = u128::from(self.next_u64()) * u128::from(n);
            }
        }
        (m >> 64) as u64
    }
}

/// The generator of replicate `replicate` of a run seeded with `seed`.
///
/// The xoshiro state is `[a1, c1, a2, c2]` with `a1, a2` the first two
/// SplitMix64 outputs of `seed` and `c1, c2` those of `replicate ^ KEY`.
/// SplitMix64's outputs are a bijection of its counter, so distinct
/// `(seed, replicate)` pairs give distinct states (no two replicates share a
/// stream), flipping any bit of either input flips about half the bits of
/// the two state words it feeds, and a replicate's stream depends on
/// nothing but the pair: the same
/// replicate draws the same resample whichever thread runs it, in whatever
/// order (spec 2.4).
pub fn replicate_rng(seed: u64, replicate: u64) -> Rng {
    let mut a = SplitMix64::new(seed);
    let mut c = SplitMix64::new(replicate ^ REPLICATE_KEY);
    let (a1, c1) = (a.next_u64(), c.next_u64());
    Rng::from_state([a1, c1, a.next_u64(), c.next_u64()])
}

// ---------------------------------------------------------------------------
// Resampling plans.

/// Sampling units (responses, or candidates for the cluster bootstrap of
/// spec 2.2) grouped into strata (the levels of a subgroup for the
/// stratified by-group bootstrap of spec 2.1, or a single stratum).
///
/// One replicate draws, within every stratum, as many units with replacement
/// as the stratum has, so every stratum keeps its size. Units are numbered
/// `0..n_units` (at most `u32::MAX + 1` of them); mapping responses to
/// candidates, and computing statistics from the counts, is the caller's.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Unit numbers sorted by stratum (stable); empty when that order is the
    /// identity (a single stratum, or strata already contiguous and sorted).
    order: Vec<u32>,
    /// Stratum `s` is `order[offsets[s]..offsets[s + 1]]`.
    offsets: Vec<usize>,
}

impl Plan {
    /// One stratum of `n_units` units.
    pub fn single(n_units: usize) -> Plan {
        assert!(n_units as u64 <= u64::from(u32::MAX) + 1, "too many units");
        Plan {
            order: Vec::new(),
            offsets: vec![0, n_units],
        }
    }

    /// Unit `i` belongs to stratum `strata[i]`; strata are numbered
    /// `0..=max(strata)` (numbers no unit uses are empty strata).
    pub fn stratified(strata: &[u32]) -> Plan {
        assert!(
            strata.len() as u64 <= u64::from(u32::MAX) + 1,
            "too many units"
        );
        let n_strata = strata.iter().max().map_or(0, |&m| m as usize + 1);
        let mut offsets = vec![0usize; n_strata + 1];
        for &s in strata {
            offsets[s as usize + 1] += 1;
        }
        for s in 0..n_strata {
            offsets[s + 1] += offsets[s];
        }
        let mut next = offsets.clone();
        let mut order = vec![0u32; strata.len()];
        for (unit, &s) in strata.iter().enumerate() {
            order[next[s as usize]] = unit as u32;
            next[s as usize] += 1;
        }
        if order.iter().enumerate().all(|(i, &u)| i == u as usize) {
            order = Vec::new();
        }
        Plan { order, offsets }
    }

    /// Number of units.
    pub fn n_units(&self) -> usize {
        *self.offsets.last().unwrap_or(&0)
    }

    /// Number of strata (including empty ones).
    pub fn n_strata(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Number of units in stratum `s`.
    pub fn stratum_size(&self, s: usize) -> usize {
        self.offsets[s + 1] - self.offsets[s]
    }

    /// One replicate: `out[i]` = how many times unit `i` is drawn. Within
    /// each stratum of `m` units, `m` indices are drawn uniformly with
    /// replacement (a multinomial draw with equal cell probabilities), in
    /// stratum order, from `rng`. O(units) per call, no allocation.
    ///
    /// # Panics
    /// If `out.len() != self.n_units()`.
    pub fn draw_counts(&self, rng: &mut Rng, out: &mut [u32]) {
        assert_eq!(out.len(), self.n_units(), "count buffer length");
        out.fill(0);
        for w in self.offsets.windows(2) {
            let (start, m) = (w[0], (w[1] - w[0]) as u64);
            if self.order.is_empty() {
                let stratum = &mut out[start..w[1]];
                for _ in 0..m {
                    stratum[rng.below(m) as usize] += 1;
                }
            } else {
                let units = &self.order[start..w[1]];
                for _ in 0..m {
                    out[units[rng.below(m) as usize] as usize] += 1;
                }
            }
        }
    }
}

/// Assigns each of `n_units` units to one of `n_blocks` blocks (`0` is
/// taken as `1`): a seeded uniformly random permutation of the units (Fisher-Yates
/// driven by stream [`BLOCKS_STREAM`] of `seed`) dealt round-robin into the
/// blocks, so block sizes differ by at most one and every balanced partition
/// is equally likely. `out[i]` is the block of unit `i`.
///
/// Why resampling random blocks approximates resampling units (spec 6): the
/// continuous metrics are smooth functions of a few sums over units. Sum
/// each over the units of every block once; a replicate then draws `M`
/// blocks with replacement ([`Plan::single`]`(M)`) and adds block sums
/// weighted by their counts, O(M) instead of O(N) per replicate. For iid
/// units, blocks of a random partition are disjoint sets of iid units, so
/// the block sums `T_j` are iid themselves, and resampling iid block sums is
/// an ordinary bootstrap of their total. Its variance is
/// `sum_j (T_j - mean T)^2 = m * SS_between` (blocks of `m` units), where
/// the unit bootstrap's is `sum_i (x_i - mean x)^2 = SS_within +
/// SS_between`. In expectation `m * SS_between = (M - 1)/M * N sigma^2`
/// against `(N - 1) sigma^2`: the same up to the factor `(M - 1)/M`, the
/// block version using only the between-block part of the sum of squares, on
/// `M - 1` degrees of freedom, which adds a relative noise of about
/// `1/sqrt(2(M - 1))` to the standard error (2.2% for `M = 1000`).
/// Nonlinear statistics of the sums (correlations, ratios) follow by the
/// delta method. Units that are not exchangeable (strata, clusters) must be
/// blocked within their stratum, or clustered first.
pub fn random_blocks(n_units: usize, n_blocks: u32, seed: u64) -> Vec<u32> {
    assert!(n_units as u64 <= u64::from(u32::MAX) + 1, "too many units");
    let n_blocks = n_blocks.max(1) as usize;
    let mut perm: Vec<u32> = (0..n_units).map(|i| i as u32).collect();
    let mut rng = replicate_rng(seed, BLOCKS_STREAM);
    for i in (1..n_units).rev() {
        perm.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut block = vec![0u32; n_units];
    for (position, &unit) in perm.iter().enumerate() {
        block[unit as usize] = (position % n_blocks) as u32;
    }
    block
}

// ---------------------------------------------------------------------------
// Intervals.

/// A bootstrap interval (spec 2.3, 4.1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// The `(1 - level)/2` quantile of the finite replicate values.
    pub lower: f64,
    /// The `(1 + level)/2` quantile of the finite replicate values.
    pub upper: f64,
    /// Standard deviation (divisor `valid - 1`) of the finite replicates.
    pub se: f64,
    /// Number of finite replicate values.
    pub valid: usize,
}

impl Interval {
    /// No interval: every number NaN, no valid replicate.
    pub fn nan() -> Interval {
        Interval {
            lower: f64::NAN,
            upper: f64::NAN,
            se: f64::NAN,
            valid: 0,
        }
    }
}

/// Percentile bootstrap interval of `replicates` at confidence `level`.
///
/// `lower` and `upper` are the `(1 - level)/2` and `(1 + level)/2` quantiles
/// of the finite values with numpy's default `linear` method (sorted values
/// `x`, position `h = q * (n - 1)`, `x[floor h]` interpolated towards the
/// next value by the fraction of `h`, with numpy's `_lerp` arithmetic). `se`
/// is their standard deviation (divisor `valid - 1`; NaN below 2 values).
/// `valid` always counts the finite values; everything else is NaN when
/// there are none, when `level` is not inside (0, 1), or when more than 1%
/// of the replicates are not finite (the finite ones are then a selected
/// subset, so neither their quantiles nor their spread describe the
/// statistic; the `_ci` table shows `valid` to say why).
pub fn percentile_interval(replicates: &[f64], level: f64) -> Interval {
    let mut finite: Vec<f64> = replicates
        .iter()
        .copied()
        .filter(|x| x.is_finite())
        .collect();
    let valid = finite.len();
    let invalid = replicates.len() - valid;
    if valid == 0 || invalid * 100 > replicates.len() || !(level > 0.0 && level < 1.0) {
        return Interval {
            valid,
            ..Interval::nan()
        };
    }
    finite.sort_unstable_by(f64::total_cmp);
    Interval {
        lower: quantile_sorted(&finite, (1.0 - level) / 2.0),
        upper: quantile_sorted(&finite, (1.0 + level) / 2.0),
        se: sample_sd(&finite),
        valid,
    }
}

/// numpy `quantile(x, q)` (method `linear`) of sorted, non-empty `x`.
fn quantile_sorted(x: &[f64], q: f64) -> f64 {
    let last = x.len() - 1;
    let h = last as f64 * q;
    let below = h.floor();
    let i = (below as usize).min(last);
    let (a, b, t) = (x[i], x[(i + 1).min(last)], h - below);
    // numpy `_lerp`: from the nearer end, so t = 1 gives b exactly.
    let d = b - a;
    if t >= 0.5 {
        b - d * (1.0 - t)
    } else {
        a + d * t
    }
}

/// Sample standard deviation (divisor `n - 1`), NaN for fewer than 2
/// values; deviations are taken from the first value first, so equal values
/// give exactly 0.
fn sample_sd(x: &[f64]) -> f64 {
    if x.len() < 2 {
        return f64::NAN;
    }
    let x0 = x[0];
    let mean = x.iter().map(|v| v - x0).sum::<f64>() / x.len() as f64;
    let ss: f64 = x.iter().map(|v| (v - x0 - mean).powi(2)).sum();
    (ss / (x.len() - 1) as f64).sqrt()
}

/// The standard normal quantile of `(1 + level)/2` (`z_q` of spec 2.3),
/// NaN unless `0 < level < 1`.
pub fn normal_quantile(level: f64) -> f64 {
    if !(level > 0.0 && level < 1.0) {
        return f64::NAN;
    }
    Normal::new(0.0, 1.0)
        .map(|n| n.inverse_cdf((1.0 + level) / 2.0))
        .unwrap_or(f64::NAN)
}

/// Fisher z interval of a Pearson correlation `r` from `n` pairs:
/// `tanh(atanh(r) -+ z_q / sqrt(n - 3))`.
///
/// NaN when `r` is NaN, `n <= 3`, `level` is not in (0, 1), or `|r| > 1`
/// beyond rounding (`1e-12`; values within it are clamped to +-1). A perfect
/// correlation `r = +-1` gives the degenerate interval `(r, r)`:
/// `atanh(+-1)` is infinite and stays so after the shift, which is the limit
/// of the interval as `|r| -> 1` (a sample on a straight line carries no
/// evidence of a lower correlation under the bivariate normal model).
pub fn fisher_z_interval(r: f64, n: usize, level: f64) -> (f64, f64) {
    let z = normal_quantile(level);
    if r.is_nan() || n <= 3 || z.is_nan() || r.abs() > 1.0 + 1e-12 {
        return (f64::NAN, f64::NAN);
    }
    let center = r.clamp(-1.0, 1.0).atanh();
    let half = z / ((n - 3) as f64).sqrt();
    ((center - half).tanh(), (center + half).tanh())
}

/// Wilson score interval (Wilson 1927; "method 3" of Newcombe 1998) of a
/// proportion `successes / n`, as proportions in [0, 1] (the caller
/// multiplies by 100 for `exact_agr` and `adj_agr`):
/// `(p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)`.
///
/// NaN when `n == 0`, `successes` is NaN or outside `[0, n]`, or `level`
/// is not in (0, 1). Bounds are clamped to [0, 1] against rounding (at
/// `p = 0` the lower bound is 0 exactly, at `p = 1` the upper bound 1).
pub fn wilson_interval(successes: f64, n: usize, level: f64) -> (f64, f64) {
    let z = normal_quantile(level);
    let nf = n as f64;
    if n == 0 || z.is_nan() || !(successes >= 0.0 && successes <= nf) {
        return (f64::NAN, f64::NAN);
    }
    let p = successes / nf;
    let z2n = z * z / nf;
    let denom = 1.0 + z2n;
    let center = (p + z2n / 2.0) / denom;
    let half = z / denom * (p * (1.0 - p) / nf + z2n / (4.0 * nf)).sqrt();
    ((center - half).max(0.0), (center + half).min(1.0))
}

/// Unweighted Cohen's kappa of a `k x k` table of counts (`counts[i * k +
/// j]`: rater 1 gave category `i`, rater 2 category `j`) with its normal
/// interval from the large-sample (non-null) standard error of Fleiss, Cohen
/// and Everitt (1969), as SAS `PROC FREQ / AGREE` reports it. With
/// proportions `p_ij`, row margins `p_i.` and column margins `p_.j`,
/// `p_o = sum p_ii`, `p_e = sum p_i. p_.i`, `kappa = (p_o - p_e)/(1 - p_e)`:
///
/// ```text
/// var = [ sum_i p_ii (1 - (p_i. + p_.i)(1 - kappa))^2
///       + (1 - kappa)^2 sum_{i != j} p_ij (p_.i + p_j.)^2
///       - (kappa - p_e (1 - kappa))^2 ] / (n (1 - p_e)^2)
/// ```
///
/// Returns `(kappa, kappa - z_q se, kappa + z_q se)`, not clipped to
/// [-1, 1] (as SAS; the `_ci` table's estimate column is the pipeline's own
/// kappa, which this one equals up to rounding). All NaN when `counts.len()
/// != k * k`, a count is negative or not finite, the total is 0, `p_e = 1`
/// (one category used by both raters: kappa is 0/0), or `level` is not in
/// (0, 1). A variance below 0 by rounding (perfect agreement) is taken as 0.
pub fn kappa_fce_interval(counts: &[f64], k: usize, level: f64) -> (f64, f64, f64) {
    const NAN3: (f64, f64, f64) = (f64::NAN, f64::NAN, f64::NAN);
    let z = normal_quantile(level);
    if counts.len() != k * k || z.is_nan() || counts.iter().any(|c| !(*c >= 0.0 && c.is_finite())) {
        return NAN3;
    }
    let n: f64 = counts.iter().sum();
    let (row, col) = margins(counts, k, n);
    let p_o = (0..k).map(|i| counts[i * k + i] / n).sum::<f64>();
    let p_e = (0..k).map(|i| row[i] * col[i]).sum::<f64>();
    if !(n > 0.0 && p_e < 1.0) {
        return NAN3;
    }
    let kappa = (p_o - p_e) / (1.0 - p_e);
    let q = 1.0 - kappa;
    let (mut diag, mut off) = (0.0, 0.0);
    for i in 0..k {
        for j in 0..k {
            let p = counts[i * k + j] / n;
            if i == j {
                diag += p * (1.0 - (row[i] + col[i]) * q).powi(2);
            } else {
                off += p * (col[i] + row[j]).powi(2);
            }
        }
    }
    let var = (diag + q * q * off - (kappa - p_e * q).powi(2)) / (n * (1.0 - p_e).powi(2));
    let half = z * var.max(0.0).sqrt();
    (kappa, kappa - half, kappa + half)
}

/// Row and column margins of a `k x k` count table, as proportions of `n`.
fn margins(counts: &[f64], k: usize, n: f64) -> (Vec<f64>, Vec<f64>) {
    let (mut row, mut col) = (vec![0.0; k], vec![0.0; k]);
    for i in 0..k {
        for j in 0..k {
            row[i] += counts[i * k + j] / n;
            col[j] += counts[i * k + j] / n;
        }
    }
    (row, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_close(a: f64, b: f64, tol: f64, what: &str) {
        assert!((a - b).abs() <= tol, "{what}: {a} vs {b} (tol {tol})");
    }

    /// Standard normal by Box-Muller (tests only).
    fn normal(rng: &mut Rng) -> f64 {
        let u = 1.0 - rng.next_f64(); // (0, 1]
        let v = rng.next_f64();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    // --- generator ---------------------------------------------------------

    #[test]
    fn splitmix64_matches_published_vector() {
        // Seed 1234567: Rosetta Code, "Pseudo-random numbers/Splitmix64"
        // (the reference C splitmix64.c gives the same five values).
        let mut sm = SplitMix64::new(1234567);
        let expected = [
            6457827717110365317,
            3203168211198807973,
            9817491932198370423,
            4593380528125082431,
            16408922859458223821,
        ];
        for e in expected {
            assert_eq!(sm.next_u64(), e);
        }
    }

    #[test]
    fn xoshiro256plusplus_matches_reference_vector() {
        // State [1, 2, 3, 4]: outputs of the reference xoshiro256plusplus.c
        // (Blackman & Vigna), as in the rand_xoshiro crate's test. The first
        // by hand: rotl(1 + 4, 23) + 1 = 5 * 2^23 + 1 = 41943041.
        let mut rng = Rng::from_state([1, 2, 3, 4]);
        let expected = [
            41943041,
            58720359,
            3588806011781223,
            3591011842654386,
            9228616714210784205,
            9973669472204895162,
            14011001112246962877,
            12406186145184390807,
            15849039046786891736,
            10450023813501588000,
        ];
        for e in expected {
            assert_eq!(rng.next_u64(), e);
        }
    }

    #[test]
    fn from_seed_is_four_splitmix_outputs() {
        let mut sm = SplitMix64::new(1234567);
        let s = [sm.next_u64(), sm.next_u64(), sm.next_u64(), sm.next_u64()];
        assert_eq!(Rng::from_seed(1234567), Rng::from_state(s));
    }

    #[test]
    fn xoshiro256starstar_matches_reference_vector() {
        // State [1, 2, 3, 4]: outputs of the reference xoshiro256starstar.c
        // (Blackman & Vigna), as in the rand_xoshiro crate's test. The first
        // by hand: rotl(2 * 5, 7) * 9 = 1280 * 9 = 11520.
        let mut rng = Xoshiro256::<StarStar>::from_state([1, 2, 3, 4]);
        let expected = [
            11520,
            0,
            1509978240,
            1215971899390074240,
            1216172134540287360,
            607988272756665600,
            16172922978634559625,
            8476171486693032832,
            10595114339597558777,
            2904607092377533576,
        ];
        for e in expected {
            assert_eq!(rng.next_u64(), e);
        }
        // SplitMix64 from 0: the reference splitmix64.c's first output.
        assert_eq!(SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn replicate_streams_are_reproducible_and_distinct() {
        let stream = |seed, b| {
            let mut r = replicate_rng(seed, b);
            (0..8).map(|_| r.next_u64()).collect::<Vec<_>>()
        };
        // Same pair, same stream, whatever order the replicates are made in
        // (what a thread pool does): forward vs backward.
        let forward: Vec<_> = (0..64).map(|b| stream(7, b)).collect();
        let mut backward: Vec<_> = (0..64).rev().map(|b| stream(7, b)).collect();
        backward.reverse();
        assert_eq!(forward, backward);
        // Different replicate, different seed, or seed and replicate
        // swapped: different streams (no shared first word either).
        let mut firsts: Vec<u64> = forward.iter().map(|s| s[0]).collect();
        firsts.extend((0..64).map(|b| stream(8, b)[0]));
        firsts.push(stream(0, 7)[0]);
        firsts.sort_unstable();
        firsts.dedup();
        assert_eq!(firsts.len(), 129);
        assert_ne!(stream(3, 5), stream(5, 3));
        assert_ne!(stream(0, 0), stream(0, 1));
    }

    #[test]
    fn replicate_streams_are_uncorrelated() {
        // Adjacent replicates' uniforms: correlation ~ N(0, 1/n); 4 sigma.
        let n = 20_000;
        let (mut a, mut b) = (replicate_rng(0, 0), replicate_rng(0, 1));
        let (mut sab, mut sa, mut sb) = (0.0, 0.0, 0.0);
        for _ in 0..n {
            let (x, y) = (a.next_f64() - 0.5, b.next_f64() - 0.5);
            sab += x * y;
            sa += x * x;
            sb += y * y;
        }
        let r = sab / (sa * sb).sqrt();
        assert!(r.abs() < 4.0 / (n as f64).sqrt(), "r = {r}");
    }

    #[test]
    fn below_power_of_two_is_the_top_bits() {
        // n = 2^k: 2^64 mod n = 0 never rejects, and (x * 2^k) >> 64 is the
        // top k bits of x.
        let mut rng = Rng::from_seed(11);
        for k in [1u32, 3, 17, 63] {
            let mut copy = rng.clone();
            let x = copy.next_u64();
            assert_eq!(rng.below(1u64 << k), x >> (64 - k));
        }
        assert_eq!(rng.below(1), 0);
    }

    #[test]
    fn below_is_unbiased_for_a_huge_range() {
        // n = 3 * 2^62: without rejection, the multiply-high method returns
        // v = 0 mod 3 for half the draws (two of every four x map there) and
        // plain `x % n` returns v < 2^62 for half; unbiased, both are 1/3.
        // 30,000 draws: sd sqrt(2/9/30000) = 0.0027; 4 sigma = 0.011.
        let n = 3u64 << 62;
        let mut rng = Rng::from_seed(2024);
        let (mut zero_mod_3, mut low) = (0u32, 0u32);
        let draws = 30_000;
        for _ in 0..draws {
            let v = rng.below(n);
            assert!(v < n);
            zero_mod_3 += u32::from(v % 3 == 0);
            low += u32::from(v < 1u64 << 62);
        }
        assert_close(
            f64::from(zero_mod_3) / f64::from(draws),
            1.0 / 3.0,
            0.011,
            "v % 3 == 0",
        );
        assert_close(
            f64::from(low) / f64::from(draws),
            1.0 / 3.0,
            0.011,
            "v < 2^62",
        );
        for n in [u64::MAX, (1u64 << 63) + 1, 7] {
            assert!((0..1000).all(|_| rng.below(n) < n));
        }
    }

    #[test]
    fn below_is_uniform_chi_square() {
        // 6 cells, 60,000 draws: chi-square with 5 df; its 0.1% and 99.9%
        // quantiles are 0.210 and 20.515.
        let mut rng = Rng::from_seed(99);
        let mut cells = [0u32; 6];
        for _ in 0..60_000 {
            cells[rng.below(6) as usize] += 1;
        }
        let chi2: f64 = cells
            .iter()
            .map(|&c| (f64::from(c) - 10_000.0).powi(2) / 10_000.0)
            .sum();
        assert!(chi2 > 0.210 && chi2 < 20.515, "chi2 = {chi2}, {cells:?}");
    }

    #[test]
    #[should_panic(expected = "Rng::below(0)")]
    fn below_zero_panics() {
        Rng::from_seed(0).below(0);
    }

    // --- plans -------------------------------------------------------------

    /// Strata of sizes 1, 2, 5, 12 and an empty stratum 4, interleaved.
    fn mixed_strata() -> Vec<u32> {
        let mut strata = vec![0u32];
        strata.extend([1, 1]);
        strata.extend([2; 5]);
        strata.extend([3; 12]);
        strata.extend([5]);
        let mut rng = Rng::from_seed(5);
        for i in (1..strata.len()).rev() {
            strata.swap(i, rng.below(i as u64 + 1) as usize);
        }
        strata
    }

    #[test]
    fn plan_shapes() {
        let strata = mixed_strata();
        let plan = Plan::stratified(&strata);
        assert_eq!(plan.n_units(), 21);
        assert_eq!(plan.n_strata(), 6);
        let sizes: Vec<_> = (0..6).map(|s| plan.stratum_size(s)).collect();
        assert_eq!(sizes, [1, 2, 5, 12, 0, 1]);
        assert!(!plan.order.is_empty());
        // Contiguous sorted strata need no permutation.
        assert!(Plan::stratified(&[0, 0, 1, 1, 1, 3]).order.is_empty());
        assert_eq!(Plan::single(0).n_units(), 0);
        assert_eq!(Plan::stratified(&[]).n_strata(), 0);
        Plan::stratified(&[]).draw_counts(&mut Rng::from_seed(0), &mut []);
    }

    #[test]
    fn draw_counts_keep_stratum_sizes_and_singletons() {
        let strata = mixed_strata();
        let plan = Plan::stratified(&strata);
        let mut counts = vec![7u32; strata.len()];
        for b in 0..200 {
            plan.draw_counts(&mut replicate_rng(1, b), &mut counts);
            let mut per_stratum = [0u32; 6];
            for (&s, &c) in strata.iter().zip(&counts) {
                per_stratum[s as usize] += c;
            }
            assert_eq!(per_stratum, [1, 2, 5, 12, 0, 1]);
            // A stratum of one unit always draws that unit once.
            for (&s, &c) in strata.iter().zip(&counts) {
                if s == 0 || s == 5 {
                    assert_eq!(c, 1);
                }
            }
        }
    }

    #[test]
    fn draw_counts_expect_one_per_unit() {
        // Each unit's count is Binomial(m, 1/m): mean 1, variance 1 - 1/m.
        // Over R = 4000 replicates the mean count has sd <= 1/sqrt(4000) =
        // 0.0158; 5 sigma = 0.08. The variance for m = 12 (0.917) is
        // checked within 0.1 (its sd is about 0.02).
        let strata = mixed_strata();
        let plan = Plan::stratified(&strata);
        let reps = 4000;
        let (mut sum, mut sum2) = (vec![0.0; strata.len()], vec![0.0; strata.len()]);
        let mut counts = vec![0u32; strata.len()];
        for b in 0..reps {
            plan.draw_counts(&mut replicate_rng(3, b), &mut counts);
            for (i, &c) in counts.iter().enumerate() {
                sum[i] += f64::from(c);
                sum2[i] += f64::from(c * c);
            }
        }
        for i in 0..strata.len() {
            let mean = sum[i] / reps as f64;
            assert_close(mean, 1.0, 0.08, "mean count");
            if strata[i] == 3 {
                assert_close(sum2[i] / reps as f64 - mean * mean, 11.0 / 12.0, 0.1, "var");
            }
        }
    }

    #[test]
    fn single_plan_equals_one_explicit_stratum() {
        // Same draws, with and without the identity shortcut.
        let (single, explicit) = (Plan::single(50), Plan::stratified(&[0; 50]));
        let mut forced = explicit.clone();
        forced.order = (0..50).collect();
        let (mut a, mut b, mut c) = (vec![0; 50], vec![0; 50], vec![0; 50]);
        single.draw_counts(&mut replicate_rng(9, 4), &mut a);
        explicit.draw_counts(&mut replicate_rng(9, 4), &mut b);
        forced.draw_counts(&mut replicate_rng(9, 4), &mut c);
        assert_eq!(a, b);
        assert_eq!(a, c);
        assert_eq!(a.iter().sum::<u32>(), 50);
        single.draw_counts(&mut replicate_rng(9, 5), &mut b);
        assert_ne!(a, b);
    }

    #[test]
    #[should_panic(expected = "count buffer length")]
    fn draw_counts_checks_the_buffer() {
        Plan::single(3).draw_counts(&mut Rng::from_seed(0), &mut [0; 2]);
    }

    // --- random blocks -----------------------------------------------------

    #[test]
    fn random_blocks_are_balanced_and_seeded() {
        let blocks = random_blocks(103, 10, 42);
        let mut sizes = [0u32; 10];
        for &b in &blocks {
            sizes[b as usize] += 1;
        }
        // 103 = 3 * 11 + 7 * 10.
        assert_eq!(sizes.iter().filter(|&&s| s == 11).count(), 3);
        assert_eq!(sizes.iter().filter(|&&s| s == 10).count(), 7);
        assert_eq!(blocks, random_blocks(103, 10, 42));
        assert_ne!(blocks, random_blocks(103, 10, 43));
        // Not the identity dealing (unit i in block i % 10).
        assert!(blocks
            .iter()
            .enumerate()
            .any(|(i, &b)| b as usize != i % 10));
        assert_eq!(random_blocks(5, 0, 1), [0; 5]);
        assert!(random_blocks(0, 4, 1).is_empty());
        let mut few = random_blocks(3, 8, 1);
        few.sort_unstable();
        few.dedup();
        assert_eq!(few.len(), 3);
    }

    /// Bootstrap standard error of a total: `reps` replicates of `plan`
    /// over `values` (one value per unit).
    fn bootstrap_se_of_total(values: &[f64], plan: &Plan, seed: u64, reps: u64) -> f64 {
        let mut counts = vec![0u32; values.len()];
        let totals: Vec<f64> = (0..reps)
            .map(|b| {
                plan.draw_counts(&mut replicate_rng(seed, b), &mut counts);
                counts
                    .iter()
                    .zip(values)
                    .map(|(&c, v)| f64::from(c) * v)
                    .sum()
            })
            .collect();
        sample_sd(&totals)
    }

    fn sum_of_squares(x: &[f64]) -> f64 {
        let mean = x.iter().sum::<f64>() / x.len() as f64;
        x.iter().map(|v| (v - mean).powi(2)).sum()
    }

    #[test]
    fn random_blocks_bootstrap_matches_unit_bootstrap() {
        // N = 4000 iid N(1, 1) units, M = 800 random blocks of 5, B = 2000
        // replicates each. Exact bootstrap SEs of the total: sqrt(SS_total)
        // for units, sqrt(sum_j (T_j - mean T)^2) for blocks. Relative
        // errors: Monte Carlo of an SE from B normal replicates
        // 1/sqrt(2(B-1)) = 1.6% (4 sigma: 6.4%); block SE against unit SE
        // (between-block part on M-1 df) 1/sqrt(2(M-1)) = 2.5% (4 sigma:
        // 10%); both Monte Carlo SEs against each other
        // sqrt(1.6^2 + 1.6^2 + 2.5^2) = 3.4% (4 sigma: 13.5%).
        let (n, m) = (4000usize, 800u32);
        let mut rng = Rng::from_seed(31);
        let x: Vec<f64> = (0..n).map(|_| 1.0 + normal(&mut rng)).collect();
        let block = random_blocks(n, m, 77);
        let mut sums = vec![0.0; m as usize];
        for (v, &b) in x.iter().zip(&block) {
            sums[b as usize] += v;
        }
        let se_units = bootstrap_se_of_total(&x, &Plan::single(n), 1, 2000);
        let se_blocks = bootstrap_se_of_total(&sums, &Plan::single(m as usize), 2, 2000);
        let (exact_units, exact_blocks) = (sum_of_squares(&x).sqrt(), sum_of_squares(&sums).sqrt());
        assert_close(
            se_units / exact_units,
            1.0,
            0.064,
            "unit bootstrap vs exact",
        );
        assert_close(
            se_blocks / exact_blocks,
            1.0,
            0.064,
            "block bootstrap vs exact",
        );
        assert_close(
            exact_blocks / exact_units,
            1.0,
            0.10,
            "block vs unit, exact",
        );
        assert_close(se_blocks / se_units, 1.0, 0.135, "block vs unit bootstrap");
    }

    // --- percentile interval -----------------------------------------------

    #[test]
    fn percentile_interval_by_hand() {
        // numpy.quantile(1..=10, q), linear: position q * (n - 1).
        // level 0.8: q = 0.1 -> 0.9 -> 1 + 0.9 = 1.9; q = 0.9 -> 8.1 -> 9.1.
        // level 0.95: q = 0.025 -> 0.225 -> 1.225; 0.975 -> 8.775 -> 9.775.
        // se: sum (x - 5.5)^2 = 82.5, / 9, sqrt = 3.0276503540974917.
        let x: Vec<f64> = (1..=10).map(f64::from).collect();
        let i = percentile_interval(&x, 0.8);
        assert_eq!((i.lower, i.upper, i.valid), (1.9, 9.1, 10));
        assert_close(i.se, (82.5f64 / 9.0).sqrt(), 1e-14, "se");
        let i = percentile_interval(&x, 0.95);
        assert_close(i.lower, 1.225, 1e-12, "lower");
        assert_close(i.upper, 9.775, 1e-12, "upper");
        // Order of the replicates does not matter.
        let shuffled = [7.0, 3.0, 10.0, 1.0, 5.0, 9.0, 2.0, 8.0, 4.0, 6.0];
        assert_eq!(percentile_interval(&shuffled, 0.95), i);
    }

    #[test]
    fn percentile_interval_one_percent_rule() {
        // 990 finite values 0..989 and 10 non-finite (1.0% exactly): an
        // interval over the finite ones; positions 0.025 * 989 = 24.725 and
        // 0.975 * 989 = 964.275.
        let mut x: Vec<f64> = (0..990).map(f64::from).collect();
        x.extend([f64::NAN; 5]);
        x.extend([
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::NAN,
            f64::INFINITY,
        ]);
        let i = percentile_interval(&x, 0.95);
        assert_eq!(i.valid, 990);
        assert_close(i.lower, 24.725, 1e-9, "lower");
        assert_close(i.upper, 964.275, 1e-9, "upper");
        // sd of 0..989 = sqrt(990 * 991 / 12) = 286.0322...
        assert_close(i.se, (990.0f64 * 991.0 / 12.0).sqrt(), 1e-9, "se");
        // 11 of 1000 non-finite (1.1%): no interval.
        x[0] = f64::NAN;
        let i = percentile_interval(&x, 0.95);
        assert_eq!(i.valid, 989);
        assert!(i.lower.is_nan() && i.upper.is_nan() && i.se.is_nan());
    }

    #[test]
    fn percentile_interval_degenerate() {
        let i = percentile_interval(&[3.7; 50], 0.95);
        assert_eq!((i.lower, i.upper, i.se, i.valid), (3.7, 3.7, 0.0, 50));
        let i = percentile_interval(&[], 0.95);
        assert!(i.lower.is_nan() && i.upper.is_nan() && i.se.is_nan());
        assert_eq!(i.valid, 0);
        let i = percentile_interval(&[2.5], 0.95);
        assert_eq!((i.lower, i.upper, i.valid), (2.5, 2.5, 1));
        assert!(i.se.is_nan());
        for level in [0.0, 1.0, f64::NAN, -0.5] {
            let i = percentile_interval(&[1.0, 2.0, 3.0], level);
            assert!(i.lower.is_nan() && i.upper.is_nan());
            assert_eq!(i.valid, 3);
        }
        let nan = Interval::nan();
        assert!(nan.lower.is_nan() && nan.upper.is_nan() && nan.se.is_nan());
        assert_eq!(nan.valid, 0);
    }

    // --- analytic intervals ------------------------------------------------

    #[test]
    fn normal_quantile_values() {
        // Tables: z_0.975 = 1.959963984540054, z_0.95 = 1.6448536269514722.
        assert_close(normal_quantile(0.95), 1.959963984540054, 1e-12, "z 0.95");
        assert_close(normal_quantile(0.9), 1.6448536269514722, 1e-12, "z 0.9");
        for level in [0.0, 1.0, f64::NAN, 2.0] {
            assert!(normal_quantile(level).is_nan());
        }
    }

    #[test]
    fn fisher_z_by_hand() {
        // r = 0.5, n = 28: atanh(0.5) = ln(3)/2 = 0.5493061443340548,
        // half width 1.959963984540054 / sqrt(25) = 0.3919927969080108,
        // tanh(0.157313347426044) = 0.156028362529086,
        // tanh(0.941298941242066) = 0.735818479443937.
        let (lo, hi) = fisher_z_interval(0.5, 28, 0.95);
        assert_close(lo, 0.156028362529086, 1e-12, "lower");
        assert_close(hi, 0.735818479443937, 1e-12, "upper");
        // r = 0 is symmetric: +-tanh(1.6448536269514722 / sqrt(97)).
        let (lo, hi) = fisher_z_interval(0.0, 100, 0.9);
        assert_close(hi, 0.1654739578171479, 1e-12, "upper");
        assert_eq!(lo, -hi);
        // Perfect correlations: (r, r); rounding excess is clamped.
        assert_eq!(fisher_z_interval(1.0, 10, 0.95), (1.0, 1.0));
        assert_eq!(fisher_z_interval(-1.0, 10, 0.95), (-1.0, -1.0));
        assert_eq!(fisher_z_interval(1.0 + 1e-15, 10, 0.95), (1.0, 1.0));
        for (r, n, level) in [
            (0.5, 3, 0.95),
            (f64::NAN, 50, 0.95),
            (1.1, 50, 0.95),
            (0.5, 50, 1.0),
        ] {
            let (lo, hi) = fisher_z_interval(r, n, level);
            assert!(lo.is_nan() && hi.is_nan(), "{r} {n} {level}");
        }
    }

    #[test]
    fn wilson_matches_newcombe_1998() {
        // Newcombe (1998), Statistics in Medicine 17:857-872, Table II,
        // method 3 (score interval without continuity correction), 95%:
        // 81/263: 0.2553-0.3662; 15/148: 0.0624-0.1605; 0/20: 0-0.1611;
        // 1/29: 0.0061-0.1718 (4 decimals; recomputed independently).
        let cases = [
            (81.0, 263, 0.2553, 0.3662),
            (15.0, 148, 0.0624, 0.1605),
            (0.0, 20, 0.0, 0.1611),
            (1.0, 29, 0.0061, 0.1718),
        ];
        for (x, n, lo, hi) in cases {
            let (l, u) = wilson_interval(x, n, 0.95);
            assert_close(l, lo, 5e-5, "lower");
            assert_close(u, hi, 5e-5, "upper");
        }
        // Boundaries exact; p = 1 mirrors p = 0.
        assert_eq!(wilson_interval(0.0, 20, 0.95).0, 0.0);
        let (l, u) = wilson_interval(20.0, 20, 0.95);
        assert_eq!(u, 1.0);
        assert_close(l, 1.0 - 0.1611251580528193, 1e-12, "mirror");
        // By hand, 50/100 at 95%: z^2/n = 0.0384146, centre 0.5, half
        // z/(1 + z^2/n) * sqrt(0.0025 + 0.0000960365) = 0.0962...
        let (l, u) = wilson_interval(50.0, 100, 0.95);
        let z = 1.959963984540054;
        let half = z / (1.0 + z * z / 100.0) * (0.0025f64 + z * z / 40_000.0).sqrt();
        assert_close(l, 0.5 - half, 1e-12, "lower");
        assert_close(u, 0.5 + half, 1e-12, "upper");
        for (x, n) in [(1.0, 0), (-1.0, 10), (11.0, 10), (f64::NAN, 10)] {
            let (l, u) = wilson_interval(x, n, 0.95);
            assert!(l.is_nan() && u.is_nan());
        }
    }

    #[test]
    fn kappa_fce_matches_sas() {
        // SAS PROC FREQ / AGREE printout for the table [[0,4,1],[0,8,0],
        // [0,1,5]] (used as the reference in statsmodels'
        // test_inter_rater.py): kappa 0.4842, ASE 0.1380, 95% limits
        // 0.2137 and 0.7547.
        let table = [0.0, 4.0, 1.0, 0.0, 8.0, 0.0, 0.0, 1.0, 5.0];
        let (kappa, lo, hi) = kappa_fce_interval(&table, 3, 0.95);
        assert_close(kappa, 0.4842, 5e-5, "kappa");
        assert_close(lo, 0.2137, 5e-5, "lower");
        assert_close(hi, 0.7547, 5e-5, "upper");
        assert_close((hi - lo) / (2.0 * 1.959963984540054), 0.1380, 5e-5, "ASE");
    }

    #[test]
    fn kappa_fce_by_hand_2x2() {
        // [[20, 5], [10, 15]], n = 50: p = [[.4, .1], [.2, .3]], rows .5 .5,
        // columns .6 .4; p_o = .7, p_e = .5; kappa = .2/.5 = .4, 1 - kappa
        // = .6. Diagonal: .4 (1 - 1.1 * .6)^2 + .3 (1 - .9 * .6)^2 =
        // .04624 + .06348 = .10972. Off-diagonal: .36 [.1 (.6 + .5)^2 +
        // .2 (.4 + .5)^2] = .36 * .283 = .10188. Minus (.4 - .5 * .6)^2 =
        // .01. var = .2016 / (50 * .25) = .016128, se = .12699606293110.
        let (kappa, lo, hi) = kappa_fce_interval(&[20.0, 5.0, 10.0, 15.0], 2, 0.95);
        let se = 0.016128f64.sqrt();
        assert_close(kappa, 0.4, 1e-12, "kappa");
        assert_close(lo, 0.4 - 1.959963984540054 * se, 1e-12, "lower");
        assert_close(hi, 0.4 + 1.959963984540054 * se, 1e-12, "upper");
    }

    #[test]
    fn kappa_fce_degenerate() {
        // Perfect agreement: kappa 1, variance 0.
        assert_eq!(
            kappa_fce_interval(&[10.0, 0.0, 0.0, 7.0], 2, 0.95),
            (1.0, 1.0, 1.0)
        );
        let bad: [(&[f64], usize); 5] = [
            (&[5.0, 0.0, 0.0, 0.0], 2), // one category only: p_e = 1
            (&[0.0; 4], 2),             // no observations
            (&[1.0, 2.0, 3.0], 2),      // wrong shape
            (&[1.0, -1.0, 3.0, 4.0], 2),
            (&[1.0, f64::NAN, 3.0, 4.0], 2),
        ];
        for (table, k) in bad {
            let (kappa, lo, hi) = kappa_fce_interval(table, k, 0.95);
            assert!(kappa.is_nan() && lo.is_nan() && hi.is_nan(), "{table:?}");
        }
        assert!(kappa_fce_interval(&[20.0, 5.0, 10.0, 15.0], 2, 1.0)
            .1
            .is_nan());
    }

    // --- simulation ----------------------------------------------------------

    #[test]
    fn bootstrap_mean_interval_matches_normal_interval() {
        // N = 2000 values N(10, 2^2), B = 400 replicates of the mean drawn
        // with Plan + draw_counts, 95% percentile interval, against the
        // normal interval mean -+ z s / sqrt(N) (t with 1999 df differs by
        // 0.06%). The bootstrap distribution of a mean of normal data is
        // normal with sd s/sqrt(N) (up to sqrt((N-1)/N)); an endpoint, the
        // 2.5% quantile of B draws, then has Monte Carlo sd
        // sqrt(.025 * .975 / B) / phi(1.96) = 0.134 standard errors, so the
        // band is 4 sigma = 0.54 SE. The bootstrap SE has relative sd
        // 1/sqrt(2(B - 1)) = 3.5%; band 14%.
        let n = 2000;
        let mut rng = Rng::from_seed(2000);
        let x: Vec<f64> = (0..n).map(|_| 10.0 + 2.0 * normal(&mut rng)).collect();
        let plan = Plan::single(n);
        let mut counts = vec![0u32; n];
        let means: Vec<f64> = (0..400)
            .map(|b| {
                plan.draw_counts(&mut replicate_rng(17, b), &mut counts);
                counts
                    .iter()
                    .zip(&x)
                    .map(|(&c, v)| f64::from(c) * v)
                    .sum::<f64>()
                    / n as f64
            })
            .collect();
        let boot = percentile_interval(&means, 0.95);
        let mean = x.iter().sum::<f64>() / n as f64;
        let se = sample_sd(&x) / (n as f64).sqrt();
        let z = normal_quantile(0.95);
        assert_eq!(boot.valid, 400);
        assert_close(boot.lower, mean - z * se, 0.54 * se, "lower");
        assert_close(boot.upper, mean + z * se, 0.54 * se, "upper");
        assert_close(boot.se / se, 1.0, 0.14, "se");
    }
}
