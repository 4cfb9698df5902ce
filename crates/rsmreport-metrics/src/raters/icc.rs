//! Stage 4 (metrics, pure): the six Shrout and Fleiss (1979) intraclass
//! correlations ICC(1,1), ICC(2,1), ICC(3,1), ICC(1,k), ICC(2,k),
//! ICC(3,k) with their F tests and 95% intervals from F quantiles, as
//! pingouin `intraclass_corr` (= R `psych::ICC`) computes them on the items
//! every rater rated (fixture README 6.4).
//!
//! Pure maths on the count tables of [`super`]: nothing here may touch
//! files, tables, configuration, threads, formatting or report code.
//! Degenerate data (fewer than 5 values, zero mean squares) give `NaN` or
//! the infinities IEEE arithmetic gives, never a panic.

use super::CountTables;
use crate::distributions::{bisect, f_sf};

/// One intraclass correlation with its F test and interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IccForm {
    pub icc: f64,
    pub f: f64,
    pub df1: f64,
    pub df2: f64,
    pub p_value: f64,
    pub lower: f64,
    pub upper: f64,
}

/// The two-way ANOVA of the complete items and the six forms.
#[derive(Clone, Debug, PartialEq)]
pub struct Icc {
    /// Complete items `n` and raters `k`.
    pub n: f64,
    pub k: f64,
    /// Mean squares: targets (MSB), raters (MSJ), residual (MSE), within
    /// targets (MSW).
    pub msb: f64,
    pub msj: f64,
    pub mse: f64,
    pub msw: f64,
    /// Satterthwaite degrees of freedom of the ICC(2,·) interval.
    pub v: f64,
    /// ICC1, ICC2, ICC3, ICC1k, ICC2k, ICC3k (pingouin's order).
    pub forms: [IccForm; 6],
}

/// Names of the six forms, in [`Icc::forms`] order.
pub const ICC_NAMES: [&str; 6] = ["ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k"];

/// Sums of the two-way layout: `(n, grand mean, sum of squares of item
/// means about the grand mean, same for rater means, total)`.
fn anova_sums(tables: &CountTables, values: &[f64]) -> Option<(f64, f64, f64, f64, f64)> {
    let rt = tables.raters.as_ref()?;
    let k = rt.n_raters;
    let complete: Vec<usize> = (0..rt.n_rows())
        .filter(|&p| rt.row(p).all(|c| c.is_some()))
        .collect();
    let value = |p: usize| -> Vec<f64> { rt.row(p).map(|c| values[c.unwrap_or(0)]).collect() };
    let n: f64 = complete.iter().map(|&p| rt.row_mult[p]).sum();
    let kf = k as f64;
    let mut rater_sum = vec![0.0; k];
    for &p in &complete {
        for (s, x) in rater_sum.iter_mut().zip(value(p)) {
            *s += rt.row_mult[p] * x;
        }
    }
    let grand = rater_sum.iter().sum::<f64>() / (n * kf);
    let ss_j = n * rater_sum
        .iter()
        .map(|s| (s / n - grand).powi(2))
        .sum::<f64>();
    let (mut ss_b, mut ss_t) = (0.0, 0.0);
    for &p in &complete {
        let x = value(p);
        let m = rt.row_mult[p];
        let mean = x.iter().sum::<f64>() / kf;
        ss_b += m * kf * (mean - grand).powi(2);
        ss_t += m * x.iter().map(|v| (v - grand).powi(2)).sum::<f64>();
    }
    Some((n, kf, ss_b, ss_j, ss_t))
}

/// The six ICCs of the complete items (`values` = category values). NaN
/// throughout without rater information, with fewer than 5 values, or
/// fewer than 2 items or raters (pingouin raises).
pub fn icc(tables: &CountTables, values: &[f64]) -> Icc {
    icc_at(tables, values, 0.95)
}

/// [`icc`] with `level` intervals (pingouin's are 95%: `level = 0.95`
/// gives its bounds exactly).
pub fn icc_at(tables: &CountTables, values: &[f64], level: f64) -> Icc {
    let Some((n, k, ss_b, ss_j, ss_t)) = anova_sums(tables, values) else {
        return icc_from_mean_squares_at(f64::NAN, f64::NAN, [f64::NAN; 4], level);
    };
    if n * k < 5.0 || n < 2.0 || k < 2.0 {
        return icc_from_mean_squares_at(n, k, [f64::NAN; 4], level);
    }
    // Sums of squares that are 0 in exact arithmetic come out as round-off
    // (1e-16 of the total): taken as exactly 0 (fixture README 4).
    let snap = |ss: f64| if ss.abs() <= 1e-12 * ss_t { 0.0 } else { ss };
    let (ss_b, ss_j) = (snap(ss_b), snap(ss_j));
    let ss_e = snap(ss_t - ss_b - ss_j);
    let msb = ss_b / (n - 1.0);
    let msj = ss_j / (k - 1.0);
    let mse = ss_e / ((n - 1.0) * (k - 1.0));
    let msw = (ss_j + ss_e) / (n * (k - 1.0));
    icc_from_mean_squares_at(n, k, [msb, msj, mse, msw], level)
}

/// The six forms from `n`, `k` and `[MSB, MSJ, MSE, MSW]` (pingouin, 95%
/// intervals).
pub fn icc_from_mean_squares(n: f64, k: f64, ms: [f64; 4]) -> Icc {
    icc_from_mean_squares_at(n, k, ms, 0.95)
}

/// [`icc_from_mean_squares`] with `level` intervals: the F quantiles at
/// `(1 + level) / 2` in place of pingouin's 0.975.
pub fn icc_from_mean_squares_at(n: f64, k: f64, ms: [f64; 4], level: f64) -> Icc {
    let [msb, msj, mse, msw] = ms;
    let p = (1.0 + level) / 2.0;
    let (df1, dfw, dfe) = (n - 1.0, n * (k - 1.0), (n - 1.0) * (k - 1.0));
    let icc1 = (msb - msw) / (msb + (k - 1.0) * msw);
    let icc2 = (msb - mse) / (msb + (k - 1.0) * mse + k * (msj - mse) / n);
    let icc3 = (msb - mse) / (msb + (k - 1.0) * mse);
    let icc1k = (msb - msw) / msb;
    let icc2k = (msb - mse) / (msb + (msj - mse) / n);
    let icc3k = (msb - mse) / msb;
    let (f1, f3) = (msb / msw, msb / mse);
    let (l1, u1) = f_bounds(f1, df1, dfw, p);
    let (l3, u3) = f_bounds(f3, df1, dfe, p);
    let single = |f: f64| (f - 1.0) / (f + k - 1.0);
    let average = |f: f64| 1.0 - 1.0 / f;
    let (v, lo2, hi2) = icc2_bounds(n, k, icc2, [msb, msj, mse], p);
    let spearman_brown = |l: f64| l * k / (1.0 + l * (k - 1.0));
    let form = |icc, f, d2, lower, upper| IccForm {
        icc,
        f,
        df1,
        df2: d2,
        p_value: f_sf(f, df1, d2),
        lower,
        upper,
    };
    Icc {
        n,
        k,
        msb,
        msj,
        mse,
        msw,
        v,
        forms: [
            form(icc1, f1, dfw, single(l1), single(u1)),
            form(icc2, f3, dfe, lo2, hi2),
            form(icc3, f3, dfe, single(l3), single(u3)),
            form(icc1k, f1, dfw, average(l1), average(u1)),
            form(icc2k, f3, dfe, spearman_brown(lo2), spearman_brown(hi2)),
            form(icc3k, f3, dfe, average(l3), average(u3)),
        ],
    }
}

/// `(F / Q_F(a, b), F Q_F(b, a))` with `Q_F` the `p` quantile (pingouin:
/// 0.975).
fn f_bounds(f: f64, a: f64, b: f64, p: f64) -> (f64, f64) {
    (f / f_ppf(p, a, b), f * f_ppf(p, b, a))
}

/// ICC(2,1)'s interval (pingouin): Satterthwaite `v`, then the bounds.
fn icc2_bounds(n: f64, k: f64, icc2: f64, ms: [f64; 3], p: f64) -> (f64, f64, f64) {
    let [msb, msj, mse] = ms;
    let fj = msj / mse;
    let a_term = k * icc2 * fj + n * (1.0 + (k - 1.0) * icc2) - k * icc2;
    let b_term = n * (1.0 + (k - 1.0) * icc2) - k * icc2;
    let v = (n - 1.0) * (k - 1.0) * a_term.powi(2)
        / ((n - 1.0) * k * k * icc2 * icc2 * fj * fj + b_term.powi(2));
    let a = f_ppf(p, n - 1.0, v);
    let b = f_ppf(p, v, n - 1.0);
    let c = k * msj + (k * n - k - n) * mse;
    let lower = n * (msb - a * mse) / (a * c + n * msb);
    let upper = n * (b * msb - mse) / (c + n * b * msb);
    (v, lower, upper)
}

/// Quantile of the F distribution: the `f` with `P(F <= f) = p` (`0 < p <
/// 1`), by bisection ([`bisect`]) on [`f_sf`] to full precision. NaN for NaN or
/// non-positive degrees of freedom.
pub fn f_ppf(p: f64, d1: f64, d2: f64) -> f64 {
    if !(p > 0.0 && p < 1.0 && d1 > 0.0 && d2 > 0.0) || d1.is_infinite() || d2.is_infinite() {
        return f64::NAN;
    }
    let alpha = 1.0 - p;
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while f_sf(hi, d1, d2) > alpha {
        lo = hi;
        hi *= 2.0;
        if hi > 1e300 {
            return f64::INFINITY;
        }
    }
    bisect(lo, hi, |mid| f_sf(mid, d1, d2) > alpha)
}

#[cfg(test)]
mod tests {
    use super::*;
    use statrs::distribution::{ContinuousCDF, FisherSnedecor};

    /// Shrout and Fleiss (1979)'s mean squares (6 targets, 4 judges).
    const MS: [f64; 4] = [11.24, 32.49, 1.02, 6.26];

    /// At 95% the level form is pingouin's; at 90% the bounds of ICC(1,1)
    /// and ICC(3,1) are `(F/Q - 1) / (F/Q + k - 1)` with statrs' F
    /// quantile at 0.95, computed here independently.
    #[test]
    fn icc_intervals_at_other_levels() {
        assert_eq!(
            icc_from_mean_squares(6.0, 4.0, MS),
            icc_from_mean_squares_at(6.0, 4.0, MS, 0.95)
        );
        let at90 = icc_from_mean_squares_at(6.0, 4.0, MS, 0.90);
        let single = |f: f64| (f - 1.0) / (f + 3.0);
        let q = |a: f64, b: f64| FisherSnedecor::new(a, b).unwrap().inverse_cdf(0.95);
        let (f1, f3) = (MS[0] / MS[3], MS[0] / MS[2]);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9 * b.abs().max(1.0);
        assert!(close(at90.forms[0].lower, single(f1 / q(5.0, 18.0))));
        assert!(close(at90.forms[0].upper, single(f1 * q(18.0, 5.0))));
        assert!(close(at90.forms[2].lower, single(f3 / q(5.0, 15.0))));
        assert!(close(at90.forms[2].upper, single(f3 * q(15.0, 5.0))));
        // Nested intervals around every estimate, the same estimates.
        let levels = [0.8, 0.9, 0.95, 0.99].map(|l| icc_from_mean_squares_at(6.0, 4.0, MS, l));
        for j in 0..6 {
            for w in levels.windows(2) {
                let (a, b) = (&w[0].forms[j], &w[1].forms[j]);
                assert_eq!(a.icc, b.icc);
                assert!(b.lower < a.lower && a.lower < a.icc, "form {j}");
                assert!(a.icc < a.upper && a.upper < b.upper, "form {j}");
            }
        }
    }
}
