//! Scalar statistics with the reference's arithmetic: numpy's pairwise
//! summation (`np.sum`, hence pandas `mean`/`std`), pandas' two-pass sample
//! standard deviation, pandas `nanskew`, scipy `kurtosis(fisher=False)`,
//! scipy `pearsonr` (r and its two-sided p-value), numpy
//! `percentile(method="lower")`, numpy `rint` / `round(x, 2)`.
//!
//! Constant columns: the mean of identical values is set to that value
//! exactly (a plain sum can be off by an ulp), so centred values are exactly
//! 0 and every correlation with a constant is NaN, as in pandas (whose
//! Welford update gives exact zeros there) and scipy.

/// numpy's pairwise summation (`np.sum`): the one definition,
/// [`crate::summary::pairwise_sum`] (pairwise inside 8192-value chunks).
pub fn pairwise_sum(x: &[f64]) -> f64 {
    crate::summary::pairwise_sum(x)
}

/// Pairwise sum of `f(x_i)` without materialising the mapped values (same
/// association as [`pairwise_sum`] on them:
/// [`crate::summary::pairwise_sum_by`]).
pub fn pairwise_sum_map(x: &[f64], f: impl Fn(f64) -> f64 + Copy) -> f64 {
    crate::summary::pairwise_sum_by(x.len(), |i| [f(x[i])])[0]
}

/// True if every value equals the first (empty input counts as constant).
pub fn is_constant(x: &[f64]) -> bool {
    x.iter().all(|&v| v == x[0])
}

/// Arithmetic mean (`np.mean`): pairwise sum / n; exactly the common value
/// of constant data; NaN for empty input.
pub fn mean(x: &[f64]) -> f64 {
    if x.is_empty() {
        return f64::NAN;
    }
    if is_constant(x) {
        return x[0];
    }
    crate::summary::mean(x)
}

/// Sample variance (divisor n-1), two-pass as pandas `var`; NaN for n < 2.
pub fn variance(x: &[f64]) -> f64 {
    variance_about(x, mean(x))
}

/// Sample variance about a given mean `m` (the second pass of [`variance`]).
pub fn variance_about(x: &[f64], m: f64) -> f64 {
    if x.len() < 2 {
        return f64::NAN;
    }
    pairwise_sum_map(x, |v| (m - v) * (m - v)) / (x.len() - 1) as f64
}

/// Sample standard deviation (divisor n-1), as pandas `std`.
pub fn sd(x: &[f64]) -> f64 {
    variance(x).sqrt()
}

/// Mean and sample standard deviation with one computation of the mean.
pub fn mean_sd(x: &[f64]) -> (f64, f64) {
    let m = mean(x);
    (m, variance_about(x, m).sqrt())
}

/// Minimum (NaN for empty input): [`crate::summary::min`].
pub fn min(x: &[f64]) -> f64 {
    crate::summary::min(x)
}

/// Maximum (NaN for empty input): [`crate::summary::max`].
pub fn max(x: &[f64]) -> f64 {
    crate::summary::max(x)
}

/// Pearson correlation (two-pass: means, then centred sums), as pandas
/// `corr` / scipy `pearsonr`: NaN if fewer than 2 pairs, lengths differ or
/// either input is constant; clipped to [-1, 1].
pub fn pearson(x: &[f64], y: &[f64]) -> f64 {
    if x.len() != y.len() || x.len() < 2 {
        return f64::NAN;
    }
    let (mx, my) = (mean(x), mean(y));
    // Four interleaved partial sums of each product (vectorisable).
    let (mut sxx, mut syy, mut sxy) = ([0.0f64; 4], [0.0f64; 4], [0.0f64; 4]);
    let (cx, cy) = (x.chunks_exact(4), y.chunks_exact(4));
    let (rx, ry) = (cx.remainder(), cy.remainder());
    for (a, b) in cx.zip(cy) {
        for t in 0..4 {
            let (dx, dy) = (a[t] - mx, b[t] - my);
            sxx[t] += dx * dx;
            syy[t] += dy * dy;
            sxy[t] += dx * dy;
        }
    }
    let fold = |s: [f64; 4]| (s[0] + s[1]) + (s[2] + s[3]);
    let (mut sxx, mut syy, mut sxy) = (fold(sxx), fold(syy), fold(sxy));
    for (&a, &b) in rx.iter().zip(ry) {
        let (dx, dy) = (a - mx, b - my);
        sxx += dx * dx;
        syy += dy * dy;
        sxy += dx * dy;
    }
    let d = (sxx * syy).sqrt();
    if d == 0.0 || !d.is_finite() {
        return f64::NAN;
    }
    (sxy / d).clamp(-1.0, 1.0)
}

/// Two-sided p-value of a Pearson correlation `r` over `n` pairs, as scipy
/// `pearsonr`: `I_{1-r^2}((n-2)/2, 1/2)` (Student t with n-2 degrees of
/// freedom), with `1 - r^2` and its complement `r^2` both passed to
/// [`crate::distributions::beta_reg_pair`]: accurate to 1e-11 for a
/// million pairs, where the form `2 I_{(1-|r|)/2}(n/2-1, n/2-1)` of
/// [`crate::raters::pairs::pearson_p_value`] drifts to 1e-10 (its
/// continued fraction needs ~sqrt(n) terms). 1 for n = 2, 0 for |r| = 1,
/// NaN for n < 2 or NaN `r`.
pub fn pearson_p_value(r: f64, n: usize) -> f64 {
    if n < 2 || r.is_nan() {
        return f64::NAN;
    }
    if n == 2 {
        return 1.0;
    }
    let r = r.abs().min(1.0);
    if r == 1.0 {
        return 0.0;
    }
    // 1 - r^2 as (1 - r)(1 + r) and its complement r^2, both accurate.
    let x = (1.0 - r) * (1.0 + r);
    crate::distributions::beta_reg_pair((n as f64 - 2.0) / 2.0, 0.5, x, r * r)
}

/// Sample skewness as pandas `Series.skew` (`nanskew`): `M2`, `M3` are the
/// centred sums of squares and cubes, each set to 0 when below 1e-14 in
/// absolute value; 0 if `M2 == 0`; NaN for fewer than 3 values.
pub fn skewness(x: &[f64]) -> f64 {
    let n = x.len();
    if n < 3 {
        return f64::NAN;
    }
    let m = pairwise_sum(x) / n as f64;
    let m2 = zero_out_fperr(pairwise_sum_map(x, |v| (v - m) * (v - m)));
    let m3 = zero_out_fperr(pairwise_sum_map(x, |v| {
        let d = v - m;
        (d * d) * d
    }));
    if m2 == 0.0 {
        return 0.0;
    }
    let c = n as f64;
    (c * (c - 1.0).powf(0.5) / (c - 2.0)) * (m3 / m2.powf(1.5))
}

fn zero_out_fperr(v: f64) -> f64 {
    if v.abs() < 1e-14 {
        0.0
    } else {
        v
    }
}

/// Kurtosis as scipy `kurtosis(fisher=False, bias=True)` (not excess):
/// `mean(d^4) / mean(d^2)^2` with `d = x - mean`; NaN when
/// `mean(d^2) <= (eps * mean)^2` (constant data) or for empty input.
pub fn kurtosis(x: &[f64]) -> f64 {
    let n = x.len();
    if n == 0 {
        return f64::NAN;
    }
    let m = pairwise_sum(x) / n as f64;
    let m2 = pairwise_sum_map(x, |v| (v - m) * (v - m)) / n as f64;
    let m4 = pairwise_sum_map(x, |v| {
        let s = (v - m) * (v - m);
        s * s
    }) / n as f64;
    if m2 <= (f64::EPSILON * m) * (f64::EPSILON * m) {
        return f64::NAN;
    }
    m4 / (m2 * m2)
}

/// Position of the `p`-th percentile with numpy's "lower" method:
/// `floor((n - 1) * (p / 100))` (clamped to the valid range).
pub fn lower_percentile_index(n: usize, p: f64) -> usize {
    if n == 0 {
        return 0;
    }
    let idx = ((n - 1) as f64 * (p / 100.0)).floor();
    if idx <= 0.0 {
        0
    } else {
        (idx as usize).min(n - 1)
    }
}

/// numpy `percentile(x, ps, method="lower")` for several percentiles at
/// once, by selection (no full sort). NaN values are not expected (they
/// would sort last). Returns NaN for each percentile of empty input.
pub fn lower_percentiles(x: &[f64], ps: &[f64]) -> Vec<f64> {
    if x.is_empty() {
        return vec![f64::NAN; ps.len()];
    }
    let mut v = x.to_vec();
    let mut idx: Vec<usize> = ps
        .iter()
        .map(|&p| lower_percentile_index(x.len(), p))
        .collect();
    idx.sort_unstable();
    idx.dedup();
    select_many(&mut v, 0, &idx);
    ps.iter()
        .map(|&p| v[lower_percentile_index(x.len(), p)])
        .collect()
}

/// Places the order statistics at the sorted positions `idx` (absolute,
/// `v` starts at `offset`) by selecting the middle one and recursing on
/// each side, so later selections work on ever smaller ranges.
fn select_many(v: &mut [f64], offset: usize, idx: &[usize]) {
    if idx.is_empty() || v.is_empty() {
        return;
    }
    let mid = idx.len() / 2;
    let at = idx[mid] - offset;
    v.select_nth_unstable_by(at, f64::total_cmp);
    let (left, right) = v.split_at_mut(at);
    select_many(left, offset, &idx[..mid]);
    select_many(&mut right[1..], offset + at + 1, &idx[mid + 1..]);
}

/// Round half to even (numpy `rint`): [`crate::round_half_even`].
pub fn round_half_even(v: f64) -> f64 {
    crate::round_half_even(v)
}

/// numpy `round(v, decimals)` for `decimals >= 0`: `rint(v * 10^d) / 10^d`.
pub fn round_decimals(v: f64, decimals: u32) -> f64 {
    let f = 10f64.powi(decimals as i32);
    (v * f).round_ties_even() / f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pearson_p_values_match_scipy_for_large_samples() {
        // scipy 1.17.1: 2 * special.betainc(n/2 - 1, n/2 - 1, (1 - r) / 2), the
        // form `pearsonr` uses (Boost), against I_{1-r^2}(n/2 - 1, 1/2) here.
        // (raters::pairs::pearson_p_value's form drifts to 1e-10 at n = 1e6.)
        // scipy's own equivalent forms (betainc(a, 1/2, 1 - r^2), 2 stdtr)
        // spread by up to 5e-12 relative for n = 1e6, hence 1e-11.
        let cases = [
            (500, 0.001, 0.9822048844166047),
            (500, 0.05, 0.264450486348026),
            (500, 0.2, 6.588916372255581e-06),
            (500, 0.6, 3.2526618270765504e-50),
            (500, 0.9, 1.0193140088262544e-181),
            (10_000, 0.01, 0.31735890866290467),
            (10_000, 0.05, 5.659045510598928e-07),
            (10_000, 0.2, 9.414569757708763e-91),
            (1_000_000, 0.001, 0.3173109918050402),
            (1_000_000, 0.01, 1.5203198039934917e-23),
        ];
        for (n, r, want) in cases {
            let got = pearson_p_value(r, n);
            assert!(
                (got - want).abs() <= 1e-11 * want,
                "n {n} r {r}: {got:e} vs {want:e}"
            );
        }
    }

    #[test]
    fn pairwise_sum_small_and_large() {
        assert_eq!(pairwise_sum(&[]), 0.0);
        assert_eq!(pairwise_sum(&[1.0, 2.0, 3.0]), 6.0);
        let v: Vec<f64> = (1..=1000).map(f64::from).collect();
        assert_eq!(pairwise_sum(&v), 500_500.0);
        assert_eq!(pairwise_sum_map(&v, |x| 2.0 * x), 1_001_000.0);
        // 0.1 ten times: naive summation gives 0.9999999999999999, numpy's
        // pairwise sum (8 partial sums, then the tail) gives 1.0.
        let tenths = [0.1; 10];
        assert_eq!(pairwise_sum(&tenths), np_sum_ten_tenths());
    }

    /// ((0.1+0.1)+(0.1+0.1))+((0.1+0.1)+(0.1+0.1)) + 0.1 + 0.1, by hand.
    fn np_sum_ten_tenths() -> f64 {
        let a = 0.1f64 + 0.1;
        let eight = (a + a) + (a + a);
        eight + 0.1 + 0.1
    }

    #[test]
    fn mean_sd_by_hand() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squared deviations sum to 32.
        let x = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        assert_eq!(mean(&x), 5.0);
        assert!((variance(&x) - 32.0 / 7.0).abs() < 1e-15);
        assert!((sd(&x) - (32.0f64 / 7.0).sqrt()).abs() < 1e-15);
        assert!(sd(&[1.0]).is_nan());
        assert_eq!(mean(&[0.1, 0.1, 0.1]), 0.1);
        assert_eq!(variance(&[0.1, 0.1, 0.1]), 0.0);
        assert_eq!(min(&x), 2.0);
        assert_eq!(max(&x), 9.0);
    }

    #[test]
    fn pearson_by_hand() {
        // x = 1,2,3; y = 1,3,2: sxy = 1, sxx = syy = 2 -> r = 0.5.
        assert!((pearson(&[1.0, 2.0, 3.0], &[1.0, 3.0, 2.0]) - 0.5).abs() < 1e-15);
        assert_eq!(pearson(&[1.0, 2.0], &[5.0, 3.0]), -1.0);
        assert!(pearson(&[1.0, 2.0, 3.0], &[2.0, 2.0, 2.0]).is_nan());
        assert!(pearson(&[1.0], &[2.0]).is_nan());
    }

    #[test]
    fn p_value_by_hand() {
        // n = 4 (2 df): t = r sqrt(2/(1-r^2)); two-sided p of Student t(2) is
        // 1 - |t|/sqrt(2+t^2) = 1 - |r|. So r = 0.5 gives p = 0.5.
        assert!((pearson_p_value(0.5, 4) - 0.5).abs() < 1e-14);
        assert!((pearson_p_value(-0.25, 4) - 0.75).abs() < 1e-14);
        // n = 3 (1 df, Cauchy): p = 1 - (2/pi) atan(|t|), t = r/sqrt(1-r^2),
        // i.e. p = 1 - (2/pi) asin(|r|); r = 0.5 -> 1 - 1/3.
        assert!((pearson_p_value(0.5, 3) - 2.0 / 3.0).abs() < 1e-14);
        assert_eq!(pearson_p_value(0.3, 2), 1.0);
        assert_eq!(pearson_p_value(1.0, 10), 0.0);
        assert!(pearson_p_value(f64::NAN, 10).is_nan());
    }

    #[test]
    fn skewness_by_hand() {
        // 1, 2, 3, 10: mean 4, d = -3,-2,-1,6: M2 = 50, M3 = -27-8-1+216 = 180.
        // skew = 4 * sqrt(3) / 2 * 180 / 50^1.5.
        let want = 4.0 * 3f64.sqrt() / 2.0 * 180.0 / 50f64.powf(1.5);
        assert!((skewness(&[1.0, 2.0, 3.0, 10.0]) - want).abs() < 1e-14);
        assert_eq!(skewness(&[1.0, 2.0, 3.0]), 0.0); // M3 = 0
        assert_eq!(skewness(&[5.0, 5.0, 5.0]), 0.0); // M2 = 0
        assert!(skewness(&[1.0, 2.0]).is_nan());
    }

    #[test]
    fn kurtosis_by_hand() {
        // 1, 2, 3, 10: mean(d^2) = 12.5, mean(d^4) = (81+16+1+1296)/4 = 348.5.
        assert!((kurtosis(&[1.0, 2.0, 3.0, 10.0]) - 348.5 / 156.25).abs() < 1e-14);
        assert!(kurtosis(&[3.0, 3.0, 3.0]).is_nan());
    }

    #[test]
    fn percentiles_lower_by_hand() {
        // n = 11 -> index floor(10 p / 100): 1% -> 0, 5% -> 0, 25% -> 2,
        // 50% -> 5, 75% -> 7, 95% -> 9, 99% -> 9.
        let x = [10.0, 0.0, 9.0, 1.0, 8.0, 2.0, 7.0, 3.0, 6.0, 4.0, 5.0];
        let p = lower_percentiles(&x, &[1.0, 5.0, 25.0, 50.0, 75.0, 95.0, 99.0]);
        assert_eq!(p, vec![0.0, 0.0, 2.0, 5.0, 7.0, 9.0, 9.0]);
        // n = 500: 5% -> floor(499 * 0.05) = floor(24.95) = 24.
        assert_eq!(lower_percentile_index(500, 5.0), 24);
        assert_eq!(lower_percentile_index(500, 99.0), 494);
        assert!(lower_percentiles(&[], &[50.0])[0].is_nan());
    }

    #[test]
    fn rounding_half_even() {
        assert_eq!(round_half_even(0.5), 0.0);
        assert_eq!(round_half_even(1.5), 2.0);
        assert_eq!(round_half_even(2.5), 2.0);
        assert_eq!(round_half_even(-0.5), 0.0);
        assert_eq!(round_half_even(6.4998), 6.0);
        assert_eq!(round_decimals(0.125, 2), 0.12);
        assert_eq!(round_decimals(0.6, 2), 0.6);
        assert_eq!(round_decimals(1.0 / 3.0 * 100.0, 2), 33.33);
    }
}
