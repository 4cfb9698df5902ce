//! Part of the metrics stage (pure maths: no I/O, no tables, no plots).
//!
//! Association and difference metrics between a human reference `h` and a
//! comparison `s` (spec 3.1, 3.3, 3.4): Pearson r, R², MSE/RMSE, the SMD
//! variants and the DSM. Two-vector functions use the common prefix of the
//! two slices (callers always pass equal lengths).

use crate::summary::pairwise_sum_by;

/// Population (whole evaluation set) statistics for the DSM (spec 3.4):
/// means and sample sds (ddof 1, NaN skipped) of the human and the compared
/// column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Population {
    pub h_mean: f64,
    pub h_sd: f64,
    pub s_mean: f64,
    pub s_sd: f64,
}

/// Everything the pair metrics need, computed in two passes with numpy's
/// summation order: means, centred sums of squares and cross products, and
/// the residual sum of squares.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PairMoments {
    pub n: usize,
    pub h_mean: f64,
    pub s_mean: f64,
    /// `sum (h_i - h_mean)^2`
    pub ss_h: f64,
    /// `sum (s_i - s_mean)^2`
    pub ss_s: f64,
    /// `sum (h_i - h_mean)(s_i - s_mean)`
    pub sp_hs: f64,
    /// `sum (h_i - s_i)^2`
    pub ss_res: f64,
}

impl PairMoments {
    /// Computes the moments of the common prefix of `h` and `s`.
    pub(crate) fn new(h: &[f64], s: &[f64]) -> Self {
        debug_assert_eq!(h.len(), s.len());
        let n = h.len().min(s.len());
        let (h, s) = (&h[..n], &s[..n]);
        let [sum_h, sum_s] = pairwise_sum_by(n, |i| [h[i], s[i]]);
        let h_mean = sum_h / n as f64;
        let s_mean = sum_s / n as f64;
        let [ss_h, ss_s, sp_hs, ss_res] = pairwise_sum_by(n, |i| {
            let dh = h[i] - h_mean;
            let ds = s[i] - s_mean;
            let e = h[i] - s[i];
            [dh * dh, ds * ds, dh * ds, e * e]
        });
        PairMoments {
            n,
            h_mean,
            s_mean,
            ss_h,
            ss_s,
            sp_hs,
            ss_res,
        }
    }

    /// Sample sd (ddof 1) of `h`; NaN when n < 2.
    pub(crate) fn h_sd(&self) -> f64 {
        sample_sd(self.ss_h, self.n)
    }

    /// Sample sd (ddof 1) of `s`; NaN when n < 2.
    pub(crate) fn s_sd(&self) -> f64 {
        sample_sd(self.ss_s, self.n)
    }
}

/// `sqrt(ss / (n - 1))`, NaN when `n <= 1` (numpy `std(ddof=1)`).
#[inline]
fn sample_sd(ss: f64, n: usize) -> f64 {
    if n <= 1 {
        f64::NAN
    } else {
        (ss / (n - 1) as f64).sqrt()
    }
}

/// True when every value equals the first (an exact test, no tolerance).
#[inline]
fn single_distinct(x: &[f64]) -> bool {
    match x.first() {
        Some(&first) => x.iter().all(|&v| v == first),
        None => true,
    }
}

/// Pearson correlation `r = sum dh_i*ds_i / (|dh| |ds|)` (deviations from
/// the means), computed as scipy's `pearsonr` does: deviations scaled by
/// their largest magnitude for the norms (no overflow/underflow), then
/// `r = sum (dh_i/|dh| * ds_i)/|ds|`, clipped to [-1, 1]. NaN if n < 2 or
/// either vector has a single distinct value (exact test, no tolerance);
/// `sign(h1-h0) * sign(s1-s0)` when n = 2.
pub fn pearson(h: &[f64], s: &[f64]) -> f64 {
    let n = h.len().min(s.len());
    pearson_with(&h[..n], &s[..n], &PairMoments::new(h, s))
}

/// [`pearson`] with the moments (only the means are used) already computed.
pub(crate) fn pearson_with(h: &[f64], s: &[f64], m: &PairMoments) -> f64 {
    let n = m.n;
    if n < 2 || single_distinct(h) || single_distinct(s) {
        return f64::NAN;
    }
    if n == 2 {
        return (h[1] - h[0]).signum() * (s[1] - s[0]).signum();
    }
    let (h_mean, s_mean) = (m.h_mean, m.s_mean);
    let (mut h_max, mut s_max) = (0.0f64, 0.0f64);
    for (&a, &b) in h.iter().zip(s) {
        h_max = h_max.max((a - h_mean).abs());
        s_max = s_max.max((b - s_mean).abs());
    }
    let [h_ss, s_ss] = pairwise_sum_by(n, |i| {
        let a = (h[i] - h_mean) / h_max;
        let b = (s[i] - s_mean) / s_max;
        [a * a, b * b]
    });
    let h_norm = h_max * h_ss.sqrt();
    let s_norm = s_max * s_ss.sqrt();
    let r = pairwise_sum_by(n, |i| [(h[i] - h_mean) / h_norm * (s[i] - s_mean) / s_norm])[0];
    r.clamp(-1.0, 1.0)
}

/// Coefficient of determination `1 - SSres/SStot` with
/// `SSres = sum (h_i - s_i)^2`, `SStot = sum (h_i - mean h)^2` (sklearn
/// `r2_score(h, s)`). NaN if n < 2; when `SSres = 0` it is 1.0, otherwise
/// when `SStot = 0` it is 0.0.
pub fn r2(h: &[f64], s: &[f64]) -> f64 {
    r2_with(&PairMoments::new(h, s))
}

/// [`r2`] with the moments already computed.
pub(crate) fn r2_with(m: &PairMoments) -> f64 {
    if m.n < 2 {
        f64::NAN
    } else if m.ss_res == 0.0 {
        1.0
    } else if m.ss_h == 0.0 {
        0.0
    } else {
        1.0 - m.ss_res / m.ss_h
    }
}

/// Mean squared error `sum (h_i - s_i)^2 / n`; NaN when empty.
pub fn mse(h: &[f64], s: &[f64]) -> f64 {
    let n = h.len().min(s.len());
    let (h, s) = (&h[..n], &s[..n]);
    pairwise_sum_by(n, |i| {
        let e = h[i] - s[i];
        [e * e]
    })[0]
        / n as f64
}

/// Root mean squared error `sqrt( sum (h_i - s_i)^2 / n )`; NaN when empty.
pub fn rmse(h: &[f64], s: &[f64]) -> f64 {
    mse(h, s).sqrt()
}

/// `numerator / denominator`, NaN when the denominator is exactly 0 or NaN.
#[inline]
fn guarded_ratio(numerator: f64, denominator: f64) -> f64 {
    if denominator == 0.0 || denominator.is_nan() {
        f64::NAN
    } else {
        numerator / denominator
    }
}

/// Unpooled SMD `(mean s - mean h) / sd(h)` (sd ddof 1); NaN when the
/// denominator is exactly 0 or NaN (n < 2).
pub fn smd_unpooled(h: &[f64], s: &[f64]) -> f64 {
    smd_unpooled_with(&PairMoments::new(h, s))
}

/// [`smd_unpooled`] with the moments already computed.
pub(crate) fn smd_unpooled_with(m: &PairMoments) -> f64 {
    guarded_ratio(m.s_mean - m.h_mean, m.h_sd())
}

/// Pooled SMD `(mean s - mean h) / sqrt((sd(h)^2 + sd(s)^2) / 2)` (sd ddof 1);
/// NaN when the denominator is exactly 0 or NaN (n < 2).
pub fn smd_pooled(h: &[f64], s: &[f64]) -> f64 {
    smd_pooled_with(&PairMoments::new(h, s))
}

/// [`smd_pooled`] with the moments already computed.
pub(crate) fn smd_pooled_with(m: &PairMoments) -> f64 {
    let (sh, ss) = (m.h_sd(), m.s_sd());
    guarded_ratio(m.s_mean - m.h_mean, ((sh * sh + ss * ss) / 2.0).sqrt())
}

/// Difference of standardised means:
/// `mean_i( (s_i - pop.s_mean)/pop.s_sd - (h_i - pop.h_mean)/pop.h_sd )`.
/// NaN (the reference's None) when either population sd is NaN or within
/// 1e-7 of zero (`np.isclose(sd, 0, atol=1e-7)`, i.e. `|sd| <= 1e-7`), and for
/// empty input.
pub fn dsm(h: &[f64], s: &[f64], pop: &Population) -> f64 {
    debug_assert_eq!(h.len(), s.len());
    let n = h.len().min(s.len());
    let tiny = |sd: f64| sd.is_nan() || sd.abs() <= 1e-7;
    if n == 0 || tiny(pop.h_sd) || tiny(pop.s_sd) {
        return f64::NAN;
    }
    let (h, s) = (&h[..n], &s[..n]);
    pairwise_sum_by(n, |i| {
        let zs = (s[i] - pop.s_mean) / pop.s_sd;
        let zh = (h[i] - pop.h_mean) / pop.h_sd;
        [zs - zh]
    })[0]
        / n as f64
}

/// [`dsm`] from the pair's means: by linearity,
/// `mean((s - pop.s_mean)/pop.s_sd - (h - pop.h_mean)/pop.h_sd)` equals
/// `(s_mean - pop.s_mean)/pop.s_sd - (h_mean - pop.h_mean)/pop.h_sd`, with
/// the same NaN rules (the bootstrap, which has sums and no values).
pub(crate) fn dsm_from_means(h_mean: f64, s_mean: f64, pop: &Population) -> f64 {
    let tiny = |sd: f64| sd.is_nan() || sd.abs() <= 1e-7;
    if h_mean.is_nan() || tiny(pop.h_sd) || tiny(pop.s_sd) {
        return f64::NAN;
    }
    (s_mean - pop.s_mean) / pop.s_sd - (h_mean - pop.h_mean) / pop.h_sd
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        a == b || (a - b).abs() <= rel * b.abs().max(a.abs())
    }

    use crate::test_util::Lcg;

    const V1_H: [f64; 10] = [1.0, 3.0, 4.0, 2.0, 3.0, 1.0, 3.0, 4.0, 2.0, 1.0];
    const V2_H: [f64; 8] = [1.0, 2.0, 3.0, 4.0, 5.0, 3.0, 2.0, 4.0];
    const V2_S: [f64; 8] = [1.2, 2.5, 2.9, 4.4, 4.6, 3.5, 1.5, 3.9];

    #[test]
    fn hand_computed_small_case() {
        // h = [1,2,3], s = [2,2,4]: means 2 and 8/3; dh = [-1,0,1],
        // ds = [-2/3,-2/3,4/3]; sum dh*ds = 2/3+0+4/3 = 2; sum dh^2 = 2;
        // sum ds^2 = 4/9+4/9+16/9 = 24/9; r = 2/sqrt(2*24/9) = 2/sqrt(16/3)
        // = sqrt(3)/2 = 0.8660254037844386.
        let h = [1.0, 2.0, 3.0];
        let s = [2.0, 2.0, 4.0];
        assert!(close(pearson(&h, &s), 3f64.sqrt() / 2.0, 1e-15));
        // SSres = 1+0+1 = 2, SStot = 2 -> R2 = 0; MSE = 2/3; RMSE = sqrt(2/3).
        assert_eq!(r2(&h, &s), 0.0);
        assert!(close(mse(&h, &s), 2.0 / 3.0, 1e-15));
        assert!(close(rmse(&h, &s), (2.0f64 / 3.0).sqrt(), 1e-15));
        // var(h) = 2/2 = 1, var(s) = (24/9)/2 = 4/3 (ddof 1).
        // SMD unpooled = (8/3 - 2)/1 = 2/3; pooled = (2/3)/sqrt((1 + 4/3)/2)
        // = (2/3)/sqrt(7/6) = 0.6172133998483676.
        assert!(close(smd_unpooled(&h, &s), 2.0 / 3.0, 1e-15));
        assert!(close(
            smd_pooled(&h, &s),
            (2.0 / 3.0) / (7.0f64 / 6.0).sqrt(),
            1e-15
        ));
    }

    #[test]
    fn golden_v1_constant_system() {
        let s = [2.54; 10];
        assert!(pearson(&V1_H, &s).is_nan());
        assert!(close(r2(&V1_H, &s), -0.015806451612903283, 1e-12));
        assert!(close(smd_unpooled(&V1_H, &s), 0.11927198519188371, 1e-12));
        assert!(close(rmse(&V1_H, &s), 1.122319027727856, 1e-12));
        // DSM where the system's population sd is 0 -> None/NaN.
        let pop = Population {
            h_mean: 2.4,
            h_sd: 1.1737877907772674,
            s_mean: 2.54,
            s_sd: 0.0,
        };
        assert!(dsm(&V1_H, &s, &pop).is_nan());
    }

    #[test]
    fn golden_v2() {
        // scipy's summation order reproduces the reference to the last bit.
        assert_eq!(pearson(&V2_H, &V2_S), 0.9532727005878368);
        assert!(close(r2(&V2_H, &V2_S), 0.9058333333333333, 1e-12));
        assert!(close(rmse(&V2_H, &V2_S), 0.3758324094593228, 1e-12));
        assert!(close(
            smd_unpooled(&V2_H, &V2_S),
            0.047735163489123336,
            1e-12
        ));
        assert!(close(smd_pooled(&V2_H, &V2_S), 0.048448208724271635, 1e-12));
        let m = PairMoments::new(&V2_H, &V2_S);
        assert!(close(m.s_mean, 3.0625, 1e-15));
        assert!(close(m.s_sd(), 1.270475164203198, 1e-12));
        assert!(close(m.h_sd(), 1.3093073414159542, 1e-12));
    }

    #[test]
    fn golden_v4_dsm() {
        // z_s - z_h per row with pop h (3.0, 1.2), s (3.0, 1.1):
        // mean(s) = 2.75, mean(h) = 2.5 -> DSM = (2.75-3)/1.1 - (2.5-3)/1.2
        // = -0.22727... + 0.41666... = 0.18939393939393...
        let pop = Population {
            h_mean: 3.0,
            h_sd: 1.2,
            s_mean: 3.0,
            s_sd: 1.1,
        };
        let d = dsm(&[1.0, 2.0, 3.0, 4.0], &[1.2, 2.5, 2.9, 4.4], &pop);
        assert!(close(d, 0.18939393939393948, 1e-12), "{d}");
    }

    #[test]
    fn dsm_guards() {
        let h = [1.0, 2.0];
        let s = [1.0, 3.0];
        let ok = Population {
            h_mean: 1.0,
            h_sd: 1.0,
            s_mean: 1.0,
            s_sd: 2.0,
        };
        // ((0/2 - 0/1) + (2/2 - 1/1)) / 2 = 0.
        assert_eq!(dsm(&h, &s, &ok), 0.0);
        assert!(dsm(&[], &[], &ok).is_nan());
        for bad in [0.0, 1e-7, -1e-8, f64::NAN] {
            assert!(dsm(&h, &s, &Population { h_sd: bad, ..ok }).is_nan());
            assert!(dsm(&h, &s, &Population { s_sd: bad, ..ok }).is_nan());
        }
        // Just above the tolerance it is computed.
        assert!(dsm(&h, &s, &Population { h_sd: 2e-7, ..ok }).is_finite());
    }

    #[test]
    fn zero_variance_smd_is_nan() {
        // h constant -> sd(h) = 0 exactly -> SMD unpooled NaN.
        assert!(smd_unpooled(&[2.0, 2.0, 2.0], &[1.0, 2.0, 3.0]).is_nan());
        // Both constant -> pooled denominator 0 -> NaN.
        assert!(smd_pooled(&[2.0, 2.0], &[3.0, 3.0]).is_nan());
        // Only h constant -> pooled denominator sqrt((0 + 1)/2) > 0.
        // (mean s - mean h) = 0 -> 0 / sqrt(1/2) = 0.
        assert_eq!(smd_pooled(&[2.0, 2.0, 2.0], &[1.0, 2.0, 3.0]), 0.0);
    }

    #[test]
    fn n_equals_one_and_zero() {
        assert!(pearson(&[1.0], &[2.0]).is_nan());
        assert!(r2(&[1.0], &[1.0]).is_nan());
        assert_eq!(mse(&[1.0], &[3.0]), 4.0);
        assert_eq!(rmse(&[1.0], &[3.0]), 2.0);
        assert!(smd_unpooled(&[1.0], &[3.0]).is_nan());
        assert!(smd_pooled(&[1.0], &[3.0]).is_nan());
        assert!(pearson(&[], &[]).is_nan());
        assert!(r2(&[], &[]).is_nan());
        assert!(mse(&[], &[]).is_nan());
        assert!(rmse(&[], &[]).is_nan());
        assert!(smd_unpooled(&[], &[]).is_nan());
        assert!(smd_pooled(&[], &[]).is_nan());
    }

    #[test]
    fn pearson_edge_cases() {
        // n = 2: sign product, exactly +-1.
        assert_eq!(pearson(&[0.1, 0.7], &[3.3, 9.1]), 1.0);
        assert_eq!(pearson(&[0.1, 0.7], &[9.1, 3.3]), -1.0);
        // Single distinct value on either side -> NaN (exact test).
        assert!(pearson(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]).is_nan());
        assert!(pearson(&[1.0, 2.0, 3.0], &[3.536; 3]).is_nan());
        // Perfect linear relation.
        assert!(close(
            pearson(&[1.0, 2.0, 3.0, 4.0], &[3.0, 5.0, 7.0, 9.0]),
            1.0,
            1e-15
        ));
        // Tiny values (plain sums of squares would underflow): still 1.
        let h = [1e-200, 2e-200, 3e-200];
        let s = [1e-190, 2e-190, 3e-190];
        assert!(close(pearson(&h, &s), 1.0, 1e-12));
        // Huge values (plain sums of squares would overflow): still 1.
        let h = [1e200, -1e200, 3e200];
        let s = [1e200, -1e200, 3e200];
        assert!(close(pearson(&h, &s), 1.0, 1e-12));
    }

    #[test]
    fn r2_zero_total_variance() {
        // SStot = 0 and SSres = 0 -> 1.0; SStot = 0 and SSres > 0 -> 0.0.
        assert_eq!(r2(&[2.0, 2.0], &[2.0, 2.0]), 1.0);
        assert_eq!(r2(&[2.0, 2.0], &[2.0, 3.0]), 0.0);
        // Perfect prediction with varying h -> 1.0.
        assert_eq!(r2(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]), 1.0);
    }

    #[test]
    fn random_properties() {
        let mut g = Lcg(2024);
        for k in 0..300 {
            let n = 2 + (g.next() * 60.0) as usize;
            let h: Vec<f64> = (0..n).map(|_| (1.0 + g.next() * 5.0).floor()).collect();
            let s: Vec<f64> = h
                .iter()
                .map(|v| {
                    if k % 3 == 0 {
                        g.next() * 6.0
                    } else {
                        v + (g.next() - 0.5) * 2.0
                    }
                })
                .collect();
            let r = pearson(&h, &s);
            assert!(r.is_nan() || r.abs() <= 1.0, "{r}");
            let q = r2(&h, &s);
            assert!(q <= 1.0, "{q}");
            assert!(rmse(&h, &s) >= 0.0);
            // Pearson is symmetric and sign-flips with one vector negated.
            let r_sym = pearson(&s, &h);
            assert!(r.is_nan() && r_sym.is_nan() || close(r, r_sym, 1e-12));
            let neg: Vec<f64> = s.iter().map(|v| -v).collect();
            let r_neg = pearson(&h, &neg);
            assert!(r.is_nan() && r_neg.is_nan() || close(r, -r_neg, 1e-12));
            // SMD changes sign when s and h swap means relative to each other.
            let d = smd_pooled(&h, &s);
            let d_swap = smd_pooled(&s, &h);
            assert!(d.is_nan() && d_swap.is_nan() || close(d, -d_swap, 1e-12));
        }
    }
}
