//! Stage 4 (metrics, pure): the inference of a paired comparison of two
//! model versions on the same responses (compare spec 2.2, 2.3): the
//! bootstrap p-value of a difference, Holm's adjustment across the levels
//! of a subgroup, and the analytic
//! cross-checks (Zou's interval for two overlapping dependent
//! correlations, McNemar's exact test for two paired agreement rates).
//!
//! Pure maths on numbers and slices: no tables, no I/O. The differences
//! themselves come from the statistics `build` computes, per replicate,
//! never from a second definition here.

use statrs::distribution::{Binomial, DiscreteCDF};

use super::bootstrap::fisher_z_interval;

/// Two-sided bootstrap p-value of a difference from its replicates `Δ*`:
/// `min(1, 2 min(P(Δ* <= 0), P(Δ* >= 0)))` over the finite replicates,
/// i.e. the smallest `1 - level` at which the percentile interval excludes
/// 0 (compare spec 2.2). NaN without a finite replicate.
pub fn bootstrap_p_value(replicates: &[f64]) -> f64 {
    let (mut n, mut le, mut ge) = (0usize, 0usize, 0usize);
    for &d in replicates.iter().filter(|d| d.is_finite()) {
        n += 1;
        le += usize::from(d <= 0.0);
        ge += usize::from(d >= 0.0);
    }
    if n == 0 {
        return f64::NAN;
    }
    (2.0 * le.min(ge) as f64 / n as f64).min(1.0)
}

/// Holm's (1979) step-down adjustment of `p` (as R's `p.adjust(p,
/// "holm")`): sorted ascending, `p_(i)` becomes `max_{j <= i} min(1, (m - j
/// + 1) p_(j))`, `m` counting the non-NaN values; a NaN stays NaN.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..p.len()).filter(|&i| !p[i].is_nan()).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let m = order.len();
    let mut out = vec![f64::NAN; p.len()];
    let mut running = 0.0f64;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max(((m - rank) as f64 * p[i]).min(1.0));
        out[i] = running;
    }
    out
}

/// Which way a statistic improves (compare spec 2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Better {
    Larger,
    Smaller,
}

/// Zou's (2007) interval for `r12 - r13`, two correlations that share
/// variable 1 (the human score) measured on the same `n` responses, with
/// `r23` the correlation of variables 2 and 3 (the two versions' scores):
/// from the Fisher z intervals `[l1, u1]`, `[l2, u2]` of `r12`, `r13` and
/// the correlation `c` of the two estimates,
///
/// ```text
/// L = r12 - r13 - sqrt((r12 - l1)^2 + (u2 - r13)^2 - 2c (r12 - l1)(u2 - r13))
/// U = r12 - r13 + sqrt((u1 - r12)^2 + (r13 - l2)^2 - 2c (u1 - r12)(r13 - l2))
/// c = ((r23 - r12 r13 / 2)(1 - r12^2 - r13^2 - r23^2) + r23^3)
///     / ((1 - r12^2)(1 - r13^2))
/// ```
///
/// NaN where a Fisher interval is (n <= 3, NaN input) or `|r12|` or
/// `|r13|` is 1.
pub fn zou_overlapping_interval(r12: f64, r13: f64, r23: f64, n: usize, level: f64) -> (f64, f64) {
    let (l1, u1) = fisher_z_interval(r12, n, level);
    let (l2, u2) = fisher_z_interval(r13, n, level);
    let denom = (1.0 - r12 * r12) * (1.0 - r13 * r13);
    if [l1, u1, l2, u2, r23].iter().any(|v| v.is_nan()) || denom <= 0.0 {
        return (f64::NAN, f64::NAN);
    }
    let c =
        ((r23 - r12 * r13 / 2.0) * (1.0 - r12 * r12 - r13 * r13 - r23 * r23) + r23.powi(3)) / denom;
    let d = r12 - r13;
    let lower = ((r12 - l1).powi(2) + (u2 - r13).powi(2) - 2.0 * c * (r12 - l1) * (u2 - r13))
        .max(0.0)
        .sqrt();
    let upper = ((u1 - r12).powi(2) + (r13 - l2).powi(2) - 2.0 * c * (u1 - r12) * (r13 - l2))
        .max(0.0)
        .sqrt();
    (d - lower, d + upper)
}

/// McNemar's exact test of two paired proportions: with `b` responses on
/// which only the baseline agrees with the human score and `c` on which
/// only the candidate does, `p = min(1, 2 P(X <= min(b, c)))` for `X ~
/// Binomial(b + c, 1/2)`; 1 when `b + c = 0` (no discordant pair).
pub fn mcnemar_exact_p(b: u64, c: u64) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    match Binomial::new(0.5, n) {
        Ok(dist) => (2.0 * dist.cdf(b.min(c))).min(1.0),
        Err(_) => f64::NAN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn bootstrap_p_values_by_hand() {
        // P(<= 0) = 1/4, P(>= 0) = 3/4: p = 2 * 1/4.
        assert_eq!(bootstrap_p_value(&[-1.0, 1.0, 2.0, 3.0]), 0.5);
        // Zeros count on both sides.
        assert_eq!(bootstrap_p_value(&[0.0, 0.0, 1.0, 1.0]), 1.0);
        // All above 0: p = 0 (below 1 / replicates).
        assert_eq!(bootstrap_p_value(&[0.1, 0.2, 0.3]), 0.0);
        // NaN replicates are left out: 1 of 4 finite values is <= 0.
        assert_eq!(bootstrap_p_value(&[f64::NAN, -1.0, 1.0, 2.0, 3.0]), 0.5);
        assert!(bootstrap_p_value(&[f64::NAN]).is_nan());
        // A self-comparison: every replicate difference is 0.
        assert_eq!(bootstrap_p_value(&[0.0; 10]), 1.0);
    }

    #[test]
    fn holm_matches_r_p_adjust() {
        // p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02
        let got = holm(&[0.01, 0.04, 0.03, 0.005]);
        for (g, w) in got.iter().zip([0.03, 0.06, 0.06, 0.02]) {
            assert!(close(*g, w, 1e-15), "{got:?}");
        }
        // Capped at 1; NaN stays NaN and does not count in m:
        // p.adjust(c(0.5, NA, 0.2), "holm") = 0.5 NA 0.4
        let got = holm(&[0.5, f64::NAN, 0.2]);
        assert!(close(got[0], 0.5, 1e-15) && got[1].is_nan() && close(got[2], 0.4, 1e-15));
        assert_eq!(holm(&[0.7, 0.9]), [1.0, 1.0]);
        assert!(holm(&[]).is_empty());
    }

    #[test]
    fn zou_interval_reproduces_zou_2007_example_2() {
        // Zou (2007), Psychological Methods 12(4), example of two
        // overlapping correlations: r12 = .396, r13 = .179, r23 = .088,
        // n = 66; 95% interval (-0.093, 0.517).
        let (lo, hi) = zou_overlapping_interval(0.396, 0.179, 0.088, 66, 0.95);
        assert!(
            close(lo, -0.093, 0.0005) && close(hi, 0.517, 0.0005),
            "{lo} {hi}"
        );
        // Equal correlations: an interval around 0 (Fisher's asymmetry
        // makes its ends equal in size); the more alike the two versions
        // (r23 -> 1), the narrower it is.
        let (lo, hi) = zou_overlapping_interval(0.7, 0.7, 0.8, 500, 0.95);
        assert!(lo < 0.0 && hi > 0.0 && close(lo, -hi, 1e-12));
        let (lo1, hi1) = zou_overlapping_interval(0.7, 0.7, 1.0, 500, 0.95);
        assert!(
            lo1 < 0.0 && hi1 > 0.0 && hi1 - lo1 < (hi - lo) / 4.0,
            "{lo1} {hi1}"
        );
        assert!(zou_overlapping_interval(0.5, 0.4, 0.3, 3, 0.95).0.is_nan());
        assert!(zou_overlapping_interval(1.0, 0.4, 0.3, 50, 0.95).0.is_nan());
    }

    #[test]
    fn mcnemar_exact_by_hand() {
        // b = 2, c = 8: 2 P(X <= 2), X ~ Bin(10, 1/2) = 2 (1 + 10 + 45) / 1024.
        assert!(close(mcnemar_exact_p(2, 8), 112.0 / 1024.0, 1e-12));
        assert!(close(mcnemar_exact_p(8, 2), 112.0 / 1024.0, 1e-12));
        // b = 0, c = 5: 2 / 32.
        assert!(close(mcnemar_exact_p(0, 5), 2.0 / 32.0, 1e-12));
        // Balanced discordance: capped at 1.
        assert_eq!(mcnemar_exact_p(5, 5), 1.0);
        assert_eq!(mcnemar_exact_p(0, 0), 1.0);
    }
}
