//! Stage 4 (metrics): the Student t, Fisher F and incomplete beta
//! functions the regressions and intervals need (`metrics::ols`
//! re-exports the public ones), and the one bisection of a monotone
//! condition that the quantiles found by search use ([`bisect`]).
//!
//! Pure maths on `f64`: no I/O, no tables; this file must not touch files,
//! frames or report code.

use statrs::distribution::{ContinuousCDF, Normal};
use statrs::function::gamma::ln_gamma;

// Distribution tails.
//
// statrs 0.18 supplies `ln_gamma` and the normal quantile. Its own
// `StudentsT::inverse_cdf` is inaccurate for large degrees of freedom
// (1.95985 instead of 1.95997 at df = 1e6) and its `beta_reg` stops after 140
// continued-fraction terms, so the incomplete beta and the t quantile are
// computed here (continued fraction without that cap; Newton refinement).

/// Bisection (e.g. Press et al., *Numerical Recipes*, 3rd ed., 9.1.1) of a
/// condition that holds below a boundary and fails above it: halves `[lo,
/// hi]`, keeping `below(lo)` true and `below(hi)` false, until no float
/// lies strictly between the two ends, then returns their midpoint (the
/// boundary to the last bit). At most 2,100 halvings: more than any pair
/// of finite `f64` ends needs (about 1,075 below 1 and 1,024 above), so
/// the loop ends on adjacent floats, never on the count. The caller
/// brackets the boundary (`below(lo)`, `!below(hi)`); the ends are never
/// evaluated.
pub fn bisect(mut lo: f64, mut hi: f64, below: impl Fn(f64) -> bool) -> f64 {
    for _ in 0..2100 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if below(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Two-sided p-value of a t statistic: `P(|T| > |t|)`, `T ~ t(df)`.
pub fn t_two_sided_p(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if t.is_infinite() {
        return 0.0;
    }
    let t2 = t * t;
    let denom = df + t2;
    beta_reg_pair(df / 2.0, 0.5, df / denom, t2 / denom)
}

/// Upper tail `P(T > t)`, `T ~ t(df)`.
pub fn t_sf(t: f64, df: f64) -> f64 {
    let half = 0.5 * t_two_sided_p(t, df);
    if t >= 0.0 {
        half
    } else {
        1.0 - half
    }
}

/// Quantile of the t distribution: the `t` with `P(T <= t) = p`.
pub fn t_ppf(p: f64, df: f64) -> f64 {
    if p.is_nan() || df.is_nan() || df <= 0.0 || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    if p == 0.5 {
        return 0.0;
    }
    if p < 0.5 {
        return -upper_quantile(p, df);
    }
    upper_quantile(1.0 - p, df)
}

/// The `t > 0` with `P(T > t) = alpha`, `0 < alpha < 0.5`.
fn upper_quantile(alpha: f64, df: f64) -> f64 {
    if df == 1.0 {
        return (std::f64::consts::PI * (0.5 - alpha)).tan();
    }
    if df == 2.0 {
        let p = 1.0 - alpha;
        return (2.0 * p - 1.0) / (2.0 * p * (1.0 - p)).sqrt();
    }
    let z = Normal::new(0.0, 1.0)
        .map(|n| n.inverse_cdf(1.0 - alpha))
        .unwrap_or(f64::NAN);
    // Cornish-Fisher start (Abramowitz & Stegun 26.7.5).
    let (z2, v) = (z * z, df);
    let g1 = (z2 + 1.0) * z / 4.0;
    let g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0;
    let g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0;
    let g4 = ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0;
    let mut t = z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v);
    // Bracket [lo, hi] with sf(lo) > alpha > sf(hi), then safeguarded Newton.
    let mut lo = 0.0;
    let mut hi = if t.is_finite() && t > 0.0 { t } else { 1.0 };
    let mut guard = 0;
    while t_sf(hi, df) > alpha && guard < 2000 {
        lo = hi;
        hi *= 2.0;
        guard += 1;
    }
    if !(t.is_finite() && t > lo && t < hi) {
        t = 0.5 * (lo + hi);
    }
    let ln_norm =
        ln_gamma((df + 1.0) / 2.0) - ln_gamma(df / 2.0) - 0.5 * (df * std::f64::consts::PI).ln();
    for _ in 0..200 {
        let f = t_sf(t, df) - alpha;
        if f == 0.0 {
            return t;
        }
        if f > 0.0 {
            lo = t;
        } else {
            hi = t;
        }
        let pdf = (ln_norm - (df + 1.0) / 2.0 * (t * t / df).ln_1p()).exp();
        let mut next = t + f / pdf;
        if !(next.is_finite() && next > lo && next < hi) {
            next = 0.5 * (lo + hi);
        }
        if (next - t).abs() <= 4.0 * f64::EPSILON * t.abs() {
            return next;
        }
        t = next;
    }
    t
}

/// Upper tail `P(F > f)`, `F ~ F(d1, d2)`; 1 for `f <= 0`.
pub fn f_sf(f: f64, d1: f64, d2: f64) -> f64 {
    if f.is_nan() || d1.is_nan() || d2.is_nan() || d1 <= 0.0 || d2 <= 0.0 {
        return f64::NAN;
    }
    if f <= 0.0 {
        return 1.0;
    }
    if f.is_infinite() {
        return 0.0;
    }
    let d1f = d1 * f;
    let denom = d2 + d1f;
    beta_reg_pair(d2 / 2.0, d1 / 2.0, d2 / denom, d1f / denom)
}

/// Regularized incomplete beta `I_x(a, b)`; `NaN` outside its domain.
pub fn beta_reg(a: f64, b: f64, x: f64) -> f64 {
    beta_reg_pair(a, b, x, 1.0 - x)
}

/// `I_x(a, b)` given both `x` and `y = 1 - x` (passing an accurately
/// computed complement keeps tiny upper tails accurate).
pub fn beta_reg_pair(a: f64, b: f64, x: f64, y: f64) -> f64 {
    if a.is_nan() || b.is_nan() || x.is_nan() || a <= 0.0 || b <= 0.0 {
        return f64::NAN;
    }
    if !(0.0..=1.0).contains(&x) {
        return f64::NAN;
    }
    if x == 0.0 {
        return 0.0;
    }
    if x == 1.0 || y <= 0.0 {
        return 1.0;
    }
    // ln(x) from the complement when x is near 1 (and vice versa): with
    // large a, a * ln(x) would otherwise lose digits.
    let ln_x = if x > 0.5 { (-y).ln_1p() } else { x.ln() };
    let ln_y = if y > 0.5 { (-x).ln_1p() } else { y.ln() };
    let ln_front = a * ln_x + b * ln_y - ln_beta(a, b);
    if x < (a + 1.0) / (a + b + 2.0) {
        ln_front.exp() * beta_cf(a, b, x, y) / a
    } else {
        1.0 - ln_front.exp() * beta_cf(b, a, y, x) / b
    }
}

/// Continued fraction for the incomplete beta (modified Lentz); `y = 1 - x`.
fn beta_cf(a: f64, b: f64, x: f64, y: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    // 1 - (a + b) x / (a + 1); for x near 1 from the complement, without
    // cancellation.
    let mut d = if x > 0.5 {
        (1.0 - b + qab * y) / qap
    } else {
        1.0 - qab * x / qap
    };
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..1_000_000u32 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        for aa in [
            m * (b - m) * x / ((qam + m2) * (a + m2)),
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
        ] {
            d = 1.0 + aa * d;
            if d.abs() < TINY {
                d = TINY;
            }
            c = 1.0 + aa / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            h *= d * c;
        }
        if (d * c - 1.0).abs() <= f64::EPSILON {
            break;
        }
    }
    h
}

/// `ln B(a, b)`, accurate also for large arguments (Stirling-series
/// differences instead of differences of large `ln_gamma` values).
fn ln_beta(a: f64, b: f64) -> f64 {
    let (p, q) = if a < b { (a, b) } else { (b, a) };
    const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;
    if p >= 10.0 {
        let corr = stirling_corr(p) + stirling_corr(q) - stirling_corr(p + q);
        let ratio = p / (p + q);
        -0.5 * q.ln() + LN_SQRT_2PI + corr + (p - 0.5) * ratio.ln() + q * (-ratio).ln_1p()
    } else if q >= 10.0 {
        let corr = stirling_corr(q) - stirling_corr(p + q);
        ln_gamma(p) + corr + p - p * (p + q).ln() + (q - 0.5) * (-p / (p + q)).ln_1p()
    } else {
        ln_gamma(p) + ln_gamma(q) - ln_gamma(p + q)
    }
}

/// `ln Gamma(x) - ((x - 0.5) ln x - x + ln sqrt(2 pi))` for `x >= 10`.
fn stirling_corr(x: f64) -> f64 {
    let x2 = 1.0 / (x * x);
    // Bernoulli-number series B_{2k} / (2k (2k - 1) x^(2k-1)).
    const C: [f64; 8] = [
        1.0 / 12.0,
        -1.0 / 360.0,
        1.0 / 1260.0,
        -1.0 / 1680.0,
        1.0 / 1188.0,
        -691.0 / 360_360.0,
        1.0 / 156.0,
        -3617.0 / 122_400.0,
    ];
    let mut sum = 0.0;
    for c in C.iter().rev() {
        sum = sum * x2 + c;
    }
    sum / x
}

#[cfg(test)]
mod tests {
    use super::bisect;

    /// Within `ulps` units in the last place of `want`.
    fn close(got: f64, want: f64, ulps: u64) -> bool {
        got.to_bits().abs_diff(want.to_bits()) <= ulps
    }

    /// Published constants as boundaries: sqrt(2) = 1.4142135623730951
    /// (`x^2 < 2`), the cube root of 10 = 2.154434690031884 (`x^3 < 10`),
    /// ln 2 = 0.6931471805599453 (the median of Exp(1): `1 - e^-x < 1/2`);
    /// a boundary of 1e-300 from `[0, 1]` (about 1,000 halvings) and one of
    /// 1e300 from `[0, 2^1000]`: each to the last bit or next to it.
    #[test]
    fn bisection_finds_boundaries_to_the_last_bit() {
        assert!(close(
            bisect(1.0, 2.0, |x| x * x < 2.0),
            std::f64::consts::SQRT_2,
            1
        ));
        assert!(close(
            bisect(0.0, 10.0, |x| x * x * x < 10.0),
            2.154_434_690_031_884,
            1
        ));
        let ln2 = bisect(0.0, 100.0, |x| 1.0 - (-x).exp() < 0.5);
        assert!(close(ln2, std::f64::consts::LN_2, 2), "{ln2}");
        assert!(close(bisect(0.0, 1.0, |x| x < 1e-300), 1e-300, 1));
        assert!(close(bisect(0.0, 2f64.powi(1000), |x| x < 1e300), 1e300, 1));
        // The ends are never evaluated: a condition false everywhere
        // inside gives the lower end's neighbour.
        assert_eq!(bisect(1.0, 1.0 + f64::EPSILON, |_| unreachable!()), 1.0);
    }
}
