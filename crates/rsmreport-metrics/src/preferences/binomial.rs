//! Exact binomial tails: Feedback Forensics' one-sided binomial p-value and
//! the Clopper-Pearson interval of a proportion.
//!
//! The probability of one outcome is Loader's saddle-point form (Loader
//! 2000, "Fast and accurate computation of binomial probabilities", as in
//! R's `dbinom`), accurate to a few ulps for any `n` (no `ln_gamma`
//! cancellation at large `n`). A tail is the sum of the outcomes from `k`
//! away from the mode, each term the previous one times a ratio, stopped
//! once the terms no longer change the sum: the terms fall at least
//! geometrically there, so a tail costs `O(sqrt(n))` terms. The interval's
//! ends are found by [`crate::distributions::bisect`].

use crate::distributions::bisect;

/// `ln(2 pi)`.
const LN_2PI: f64 = 1.837_877_066_409_345_5;

/// Stirling's error `ln(n!) - [(n + 1/2) ln n - n + ln sqrt(2 pi)]` of an
/// integer `n >= 1`: Loader's series above 15, the definition below (where
/// `n!` is exact in `f64` and the cancellation costs about 1e-14).
fn stirlerr(n: f64) -> f64 {
    const S0: f64 = 1.0 / 12.0;
    const S1: f64 = 1.0 / 360.0;
    const S2: f64 = 1.0 / 1260.0;
    const S3: f64 = 1.0 / 1680.0;
    const S4: f64 = 1.0 / 1188.0;
    if n <= 15.0 {
        let factorial: f64 = (1..=n as u32).map(f64::from).product();
        return factorial.ln() - (n + 0.5) * n.ln() + n - 0.5 * LN_2PI;
    }
    let nn = n * n;
    if n > 500.0 {
        (S0 - S1 / nn) / n
    } else if n > 80.0 {
        (S0 - (S1 - S2 / nn) / nn) / n
    } else if n > 35.0 {
        (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n
    } else {
        (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n
    }
}

/// The deviance term `x ln(x / np) + np - x`, by its series when `x` is
/// close to `np` (Loader's `bd0`).
fn bd0(x: f64, np: f64) -> f64 {
    if (x - np).abs() < 0.1 * (x + np) {
        let mut v = (x - np) / (x + np);
        let mut s = (x - np) * v;
        if s.abs() < f64::MIN_POSITIVE {
            return s;
        }
        let mut ej = 2.0 * x * v;
        v *= v;
        for j in 1..1000 {
            ej *= v;
            let s1 = s + ej / f64::from(2 * j + 1);
            if s1 == s {
                return s1;
            }
            s = s1;
        }
        return s;
    }
    x * (x / np).ln() + np - x
}

/// `P(X = x)` for `X ~ Binomial(n, p)`, `0 <= x <= n`, `0 < p < 1`.
fn pmf(x: u64, n: u64, p: f64) -> f64 {
    let (xf, nf, q) = (x as f64, n as f64, 1.0 - p);
    if x == 0 {
        let lc = if p < 0.1 {
            -bd0(nf, nf * q) - nf * p
        } else {
            nf * q.ln()
        };
        return lc.exp();
    }
    if x == n {
        let lc = if q < 0.1 {
            -bd0(nf, nf * p) - nf * q
        } else {
            nf * p.ln()
        };
        return lc.exp();
    }
    let lc =
        stirlerr(nf) - stirlerr(xf) - stirlerr(nf - xf) - bd0(xf, nf * p) - bd0(nf - xf, nf * q);
    let lf = LN_2PI + xf.ln() + (-xf / nf).ln_1p();
    (lc - 0.5 * lf).exp()
}

/// `P(X >= k)`, summed upwards from `k`. Exact (to rounding) when `k` is at
/// or above the mode, which is where it is used; `0 < p < 1`.
fn upper_tail(k: u64, n: u64, p: f64) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if k > n {
        return 0.0;
    }
    let odds = p / (1.0 - p);
    let mut term = pmf(k, n, p);
    let mut sum = term;
    for i in k..n {
        term *= (n - i) as f64 / (i + 1) as f64 * odds;
        let next = sum + term;
        if next == sum {
            break;
        }
        sum = next;
    }
    sum.min(1.0)
}

/// `P(X <= k)`, summed downwards from `k`. Exact (to rounding) when `k` is
/// at or below the mode; `0 < p < 1`.
fn lower_tail(k: u64, n: u64, p: f64) -> f64 {
    if k >= n {
        return 1.0;
    }
    let odds = (1.0 - p) / p;
    let mut term = pmf(k, n, p);
    let mut sum = term;
    for i in (1..=k).rev() {
        term *= i as f64 / (n - i + 1) as f64 * odds;
        let next = sum + term;
        if next == sum {
            break;
        }
        sum = next;
    }
    sum.min(1.0)
}

/// Feedback Forensics' p-value of an annotator (spec 2): the exact binomial
/// test (scipy `binomtest`) of `agreed` successes in `agreed + disagreed`
/// trials with success probability 1/2, one-sided, alternative `greater`
/// (`P(X >= agreed)`) when `agreed > disagreed`, else `less` (`P(X <=
/// agreed)`, so equal counts give a value above 1/2). 1.0 when there are no
/// trials.
pub fn binomial_p_value(agreed: u64, disagreed: u64) -> f64 {
    let n = agreed + disagreed;
    if n == 0 {
        return 1.0;
    }
    if agreed > disagreed {
        upper_tail(agreed, n, 0.5)
    } else {
        lower_tail(agreed, n, 0.5)
    }
}

/// Exact (Clopper-Pearson 1934) interval of the proportion `successes /
/// trials` at confidence `level`: the `p` where `P(X >= successes) =
/// alpha/2` (lower) and `P(X <= successes) = alpha/2` (upper), `alpha = 1 -
/// level`; equivalently the `alpha/2` quantile of `Beta(x, n - x + 1)` and
/// the `1 - alpha/2` quantile of `Beta(x + 1, n - x)`. The lower bound is 0
/// when `successes = 0`, the upper 1 when `successes = trials`. Found by
/// bisection to the last bit. NaN when `trials = 0`, `successes > trials`
/// or `level` is not inside (0, 1).
pub fn clopper_pearson(successes: u64, trials: u64, level: f64) -> (f64, f64) {
    if trials == 0 || successes > trials || !(level > 0.0 && level < 1.0) {
        return (f64::NAN, f64::NAN);
    }
    let (x, n) = (successes, trials);
    let half_alpha = (1.0 - level) / 2.0;
    let phat = x as f64 / n as f64;
    let lower = match x {
        0 => 0.0,
        _ if x == n => half_alpha.powf(1.0 / n as f64),
        // P(X >= x) grows with p; at p <= x/n, x is at or above the mode.
        _ => bisect(0.0, phat, |p| upper_tail(x, n, p) < half_alpha),
    };
    let upper = match x {
        _ if x == n => 1.0,
        0 => 1.0 - half_alpha.powf(1.0 / n as f64),
        // P(X <= x) falls with p; at p >= x/n, x is at or below the mode.
        _ => bisect(phat, 1.0, |p| lower_tail(x, n, p) > half_alpha),
    };
    (lower, upper)
}

#[cfg(test)]
mod tests {
    use super::*;
    use statrs::distribution::{Beta, ContinuousCDF};
    use statrs::function::beta::beta_reg;

    fn assert_rel(a: f64, b: f64, tol: f64, what: &str) {
        assert!(
            (a - b).abs() <= tol * b.abs(),
            "{what}: {a:e} vs {b:e} (rel {tol:e})"
        );
    }

    /// `C(n, k)` exactly (small `n`).
    fn choose(n: u64, k: u64) -> f64 {
        (0..k).fold(1.0, |c, i| c * (n - i) as f64 / (i + 1) as f64)
    }

    #[test]
    fn pmf_matches_exact_binomial_coefficients() {
        // C(n, k) / 2^n is exact in f64 for these n.
        for n in [1u64, 2, 7, 15, 16, 36, 50] {
            for k in 0..=n {
                let exact = choose(n, k) / 2f64.powi(n as i32);
                assert_rel(pmf(k, n, 0.5), exact, 1e-13, &format!("{k}/{n}"));
            }
        }
        // General p, by hand: P(X = 2; 5, 0.3) = 10 * .09 * .343 = 0.3087.
        assert_rel(pmf(2, 5, 0.3), 0.3087, 1e-13, "2/5 at .3");
    }

    #[test]
    fn p_value_by_hand() {
        // Hand-derived (sums of C(n, i) / 2^n):
        // 10 of 10: 2^-10; 0 of 10 (less): 2^-10; 9 of 10: 11/1024;
        // 3 of 6, equal counts (less): (1 + 6 + 15 + 20)/64 = 42/64;
        // 2 of 4 (less): 11/16; 1 of 2: 3/4.
        assert_eq!(binomial_p_value(10, 0), 0.0009765625);
        assert_eq!(binomial_p_value(0, 10), 0.0009765625);
        assert_rel(binomial_p_value(9, 1), 11.0 / 1024.0, 1e-15, "9/10");
        assert_rel(binomial_p_value(3, 3), 42.0 / 64.0, 1e-15, "3/6");
        assert_rel(binomial_p_value(2, 2), 11.0 / 16.0, 1e-15, "2/4");
        assert_rel(binomial_p_value(1, 1), 0.75, 1e-15, "1/2");
        assert_eq!(binomial_p_value(0, 0), 1.0);
        // n odd, one more agreement: P(X >= (n + 1)/2) = 1/2 by symmetry.
        assert_rel(binomial_p_value(239, 238), 0.5, 1e-13, "239/477");
    }

    #[test]
    fn p_value_matches_regularized_beta() {
        // An independent route: P(X >= k) = I_{1/2}(k, n - k + 1) (statrs'
        // continued fraction, which converges for n of this size).
        for (a, d) in [(60u64, 40u64), (120, 80), (30, 70), (101, 99), (5, 195)] {
            let n = a + d;
            let expected = if a > d {
                beta_reg(a as f64, (n - a + 1) as f64, 0.5)
            } else {
                // P(X <= a) = 1 - I_{1/2}(a + 1, n - a) = I_{1/2}(n - a, a + 1).
                beta_reg((n - a) as f64, (a + 1) as f64, 0.5)
            };
            assert_rel(binomial_p_value(a, d), expected, 1e-11, "beta route");
        }
    }

    #[test]
    fn p_value_large_n_is_symmetric_and_finite() {
        // One million trials: P(X >= 500001) = (1 - P(X = 500000)) / 2.
        let n = 1_000_000u64;
        let centre = pmf(500_000, n, 0.5);
        // P(X = n/2) ~ sqrt(2 / (pi n)) (1 - 1/(4n)).
        let approx = (2.0 / (std::f64::consts::PI * n as f64)).sqrt() * (1.0 - 0.25 / n as f64);
        assert_rel(centre, approx, 1e-11, "central term");
        assert_rel(
            binomial_p_value(500_001, 499_999),
            (1.0 - centre) / 2.0,
            1e-12,
            "upper half",
        );
        assert!(binomial_p_value(600_000, 400_000) < 1e-300);
    }

    #[test]
    fn clopper_pearson_closed_forms() {
        // x = 0: upper 1 - (alpha/2)^(1/n); x = n: lower (alpha/2)^(1/n);
        // x = 1: lower 1 - (1 - alpha/2)^(1/n) (solves 1 - (1-p)^n = alpha/2);
        // x = n - 1: upper (1 - alpha/2)^(1/n).
        let n = 29u64;
        let (lo, hi) = clopper_pearson(0, n, 0.95);
        assert_eq!(lo, 0.0);
        assert_rel(hi, 1.0 - 0.025f64.powf(1.0 / 29.0), 1e-15, "x = 0");
        let (lo, hi) = clopper_pearson(n, n, 0.95);
        assert_eq!(hi, 1.0);
        assert_rel(lo, 0.025f64.powf(1.0 / 29.0), 1e-15, "x = n");
        let (lo, _) = clopper_pearson(1, n, 0.95);
        assert_rel(lo, 1.0 - 0.975f64.powf(1.0 / 29.0), 1e-12, "x = 1");
        let (_, hi) = clopper_pearson(n - 1, n, 0.95);
        assert_rel(hi, 0.975f64.powf(1.0 / 29.0), 1e-12, "x = n - 1");
    }

    #[test]
    fn clopper_pearson_matches_newcombe_1998() {
        // Newcombe (1998), Statistics in Medicine 17:857-872, Table II,
        // method 5 (exact, Clopper-Pearson), 95%, 4 decimals:
        // 81/263: 0.2527-0.3676; 15/148: 0.0578-0.1617; 0/20: 0-0.1684;
        // 1/29: 0.0009-0.1776.
        let cases = [
            (81u64, 263u64, 0.2527, 0.3676),
            (15, 148, 0.0578, 0.1617),
            (0, 20, 0.0, 0.1684),
            (1, 29, 0.0009, 0.1776),
        ];
        for (x, n, lo, hi) in cases {
            let (l, u) = clopper_pearson(x, n, 0.95);
            assert!((l - lo).abs() <= 5e-5, "{x}/{n} lower {l}");
            assert!((u - hi).abs() <= 5e-5, "{x}/{n} upper {u}");
        }
    }

    #[test]
    fn clopper_pearson_matches_beta_quantiles() {
        // The beta-quantile form through statrs (AS 109 Newton steps on its
        // regularized beta), for moderate n where that converges.
        for (x, n, level) in [(7u64, 20u64, 0.95), (50, 120, 0.9), (3, 400, 0.99)] {
            let a = 1.0 - level;
            let lower = Beta::new(x as f64, (n - x + 1) as f64)
                .unwrap()
                .inverse_cdf(a / 2.0);
            let upper = Beta::new((x + 1) as f64, (n - x) as f64)
                .unwrap()
                .inverse_cdf(1.0 - a / 2.0);
            let (l, u) = clopper_pearson(x, n, level);
            assert_rel(l, lower, 1e-9, "lower");
            assert_rel(u, upper, 1e-9, "upper");
        }
    }

    #[test]
    fn clopper_pearson_degenerate_and_large() {
        for (x, n, level) in [(0u64, 0u64, 0.95), (5, 4, 0.95), (2, 4, 1.0), (2, 4, 0.0)] {
            let (l, u) = clopper_pearson(x, n, level);
            assert!(l.is_nan() && u.is_nan(), "{x}/{n} at {level}");
        }
        // A million trials: close to the Wald interval there (the binomial
        // is nearly normal), within a few 1e-6.
        let (l, u) = clopper_pearson(600_000, 1_000_000, 0.95);
        let half = 1.959963984540054 * (0.24f64 / 1e6).sqrt();
        assert!((l - (0.6 - half)).abs() < 3e-6, "{l}");
        assert!((u - (0.6 + half)).abs() < 3e-6, "{u}");
        assert!(l < 0.6 && u > 0.6);
    }
}
