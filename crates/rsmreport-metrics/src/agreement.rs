//! Part of the metrics stage (pure maths: no I/O, no tables, no plots).
//!
//! Agreement metrics between a human reference `h` and a comparison `s`
//! (spec 3.1, 3.2): exact and adjacent agreement on unrounded values,
//! unweighted Cohen's kappa on half-to-even rounded values (SKLL's
//! algorithm, computed by counting), and the continuous quadratic weighted
//! kappa. Two-vector functions use the common prefix of the two slices.

use std::collections::HashMap;

use crate::association::PairMoments;
use crate::round_half_even;

/// Largest label range `K = hi - lo + 1` counted with dense arrays; wider
/// ranges (absurd label values) are counted in a hash map instead.
const DENSE_LABELS_MAX: usize = 1 << 22;

/// Percentage of pairs with `|h_i - s_i| <= tol`, computed as the reference
/// does: `count / n * 100`. NaN when empty.
fn agreement_within(h: &[f64], s: &[f64], tol: f64) -> f64 {
    debug_assert_eq!(h.len(), s.len());
    let n = h.len().min(s.len());
    if n == 0 {
        return f64::NAN;
    }
    let count = h
        .iter()
        .zip(s)
        .filter(|(a, b)| (*a - *b).abs() <= tol)
        .count();
    count as f64 / n as f64 * 100.0
}

/// Exact agreement `100 * count(|h_i - s_i| <= 0) / n` on unrounded values
/// (evaluated as `count / n * 100`, the reference's order). NaN when empty.
pub fn exact_agreement(h: &[f64], s: &[f64]) -> f64 {
    agreement_within(h, s, 0.0)
}

/// Adjacent agreement `100 * count(|h_i - s_i| <= 1) / n` on unrounded
/// values (evaluated as `count / n * 100`). NaN when empty.
pub fn adjacent_agreement(h: &[f64], s: &[f64]) -> f64 {
    agreement_within(h, s, 1.0)
}

/// Unweighted Cohen's kappa (SKLL, spec 3.2): both vectors rounded half to
/// even; labels = every integer in `[lo, hi]`; `kappa = 1 - sum(w*O) /
/// sum(w*E)` with `w` = 0 on the diagonal, 1 elsewhere, which reduces to
/// `1 - (1 - p_o) / (1 - sum_k p_h(k) p_s(k))` and is evaluated from integer
/// counts as `1 - (n - d) n / (n^2 - sum_k a_k b_k)` (`d` = agreeing pairs,
/// `a`, `b` = label counts). Exactly 1.0 when a single label occurs
/// (all weights zero). NaN when empty or when a value is not finite (the
/// reference raises).
///
/// The same statistic as [`crate::raters::pairs::cohen_kappa`]
/// with `Weights::Identity` on the table of the rounded values, but not
/// the same arithmetic: integer counts divided once here, shares there.
/// The two agree to rounding, not bit for bit (a test in `metrics`
/// compares them), so neither calls the other; and on a single label this
/// one gives SKLL's 1.0 where scikit-learn's gives NaN.
pub fn kappa(h: &[f64], s: &[f64]) -> f64 {
    debug_assert_eq!(h.len(), s.len());
    let n = h.len().min(s.len());
    if n == 0 {
        return f64::NAN;
    }
    let (h, s) = (&h[..n], &s[..n]);
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    let mut diagonal: u64 = 0;
    for (&a, &b) in h.iter().zip(s) {
        let (a, b) = (round_half_even(a), round_half_even(b));
        if !a.is_finite() || !b.is_finite() {
            return f64::NAN;
        }
        lo = lo.min(a.min(b));
        hi = hi.max(a.max(b));
        diagonal += u64::from(a == b);
    }
    if lo == hi {
        return 1.0;
    }
    // sum_k a_k * b_k over the labels (unused labels contribute nothing).
    let span = hi - lo; // exact for any range small enough to be dense
    let dense_max = DENSE_LABELS_MAX.min(n.saturating_mul(4).max(1024));
    let marginal_products: u128 = if span < dense_max as f64 {
        let k = span as usize + 1;
        let mut counts = vec![[0u64; 2]; k];
        for (&a, &b) in h.iter().zip(s) {
            counts[(round_half_even(a) - lo) as usize][0] += 1;
            counts[(round_half_even(b) - lo) as usize][1] += 1;
        }
        counts
            .iter()
            .map(|c| u128::from(c[0]) * u128::from(c[1]))
            .sum()
    } else {
        // Key: the rounded value's bits, with -0.0 folded into 0.0.
        let key = |v: f64| (round_half_even(v) + 0.0).to_bits();
        let mut counts: HashMap<u64, [u64; 2]> = HashMap::new();
        for (&a, &b) in h.iter().zip(s) {
            counts.entry(key(a)).or_default()[0] += 1;
            counts.entry(key(b)).or_default()[1] += 1;
        }
        counts
            .values()
            .map(|c| u128::from(c[0]) * u128::from(c[1]))
            .sum()
    };
    kappa_from_counts(n as u128, u128::from(diagonal), marginal_products)
}

/// `1 - (n - d) n / (n^2 - sum_k a_k b_k)`, integers converted once.
#[inline]
pub(crate) fn kappa_from_counts(n: u128, diagonal: u128, marginal_products: u128) -> f64 {
    let observed_disagreement = ((n - diagonal) * n) as f64;
    let expected_disagreement = (n * n - marginal_products) as f64;
    1.0 - observed_disagreement / expected_disagreement
}

/// Continuous quadratic weighted kappa
/// `2*cov0(h,s) / (var0(h) + var0(s) + (mean(s) - mean(h))^2)` with
/// population (divisor n) moments, on unrounded values; 0/0 gives NaN
/// (also for empty input).
pub fn quadratic_weighted_kappa(h: &[f64], s: &[f64]) -> f64 {
    quadratic_weighted_kappa_with(&PairMoments::new(h, s))
}

/// [`quadratic_weighted_kappa`] with the moments already computed. Like
/// numpy: `cov0 = sum dh*ds * (1/n)`, `var0 = sum d^2 / n`.
pub(crate) fn quadratic_weighted_kappa_with(m: &PairMoments) -> f64 {
    let n = m.n as f64;
    let numerator = 2.0 * (m.sp_hs * (1.0 / n));
    let diff = m.h_mean - m.s_mean;
    let denominator = m.ss_h / n + m.ss_s / n + diff * diff;
    numerator / denominator
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        a == b || (a - b).abs() <= rel * b.abs().max(a.abs())
    }

    use crate::test_util::Lcg;

    /// Literal SKLL algorithm: full K x K matrices, row-wise sums as in
    /// `sum(sum(w * O)) / sum(sum(w * E))`.
    fn kappa_matrix(h: &[f64], s: &[f64]) -> f64 {
        let hr: Vec<i64> = h.iter().map(|v| v.round_ties_even() as i64).collect();
        let sr: Vec<i64> = s.iter().map(|v| v.round_ties_even() as i64).collect();
        let lo = *hr.iter().chain(&sr).min().unwrap();
        let hi = *hr.iter().chain(&sr).max().unwrap();
        let k = (hi - lo + 1) as usize;
        let n = h.len() as f64;
        let mut obs = vec![vec![0.0; k]; k];
        let mut ph = vec![0.0; k];
        let mut ps = vec![0.0; k];
        for (a, b) in hr.iter().zip(&sr) {
            obs[(a - lo) as usize][(b - lo) as usize] += 1.0;
            ph[(a - lo) as usize] += 1.0;
            ps[(b - lo) as usize] += 1.0;
        }
        if k == 1 {
            return 1.0;
        }
        let (mut wo, mut we) = (0.0, 0.0);
        for j in 0..k {
            for l in 0..k {
                if j != l {
                    wo += obs[j][l] / n;
                    we += (ph[j] / n) * (ps[l] / n);
                }
            }
        }
        1.0 - wo / we
    }

    #[test]
    fn agreement_by_hand() {
        // |h-s| = [0, 0.5, 1, 1.5]: exact 1/4 -> 25; adjacent 3/4 -> 75.
        let h = [1.0, 2.0, 3.0, 4.0];
        let s = [1.0, 2.5, 4.0, 2.5];
        assert_eq!(exact_agreement(&h, &s), 25.0);
        assert_eq!(adjacent_agreement(&h, &s), 75.0);
        // 1/3 * 100 = 33.33333333333333 (the reference's order), not 100/3.
        let h = [1.0, 2.0, 3.0];
        let s = [1.0, 5.0, 5.0];
        assert_eq!(exact_agreement(&h, &s), 1.0 / 3.0 * 100.0);
        assert_eq!(exact_agreement(&h, &s), 33.33333333333333);
        assert!(exact_agreement(&[], &[]).is_nan());
        assert!(adjacent_agreement(&[], &[]).is_nan());
        // n = 1.
        assert_eq!(exact_agreement(&[2.0], &[2.0]), 100.0);
        assert_eq!(adjacent_agreement(&[2.0], &[3.5]), 0.0);
    }

    #[test]
    fn kappa_with_unused_label() {
        // Labels 1..4 (3 unused). Agreeing pairs: (1,1),(2,2),(4,4) -> d = 3,
        // n - d = 1. Counts h: {1:1, 2:1, 4:2}, s: {1:1, 2:2, 4:1};
        // sum a_k b_k = 1 + 2 + 2 = 5; kappa = 1 - 1*4/(16-5) = 7/11.
        let k = kappa(&[1.0, 2.0, 4.0, 4.0], &[1.0, 2.0, 2.0, 4.0]);
        assert!(close(k, 0.6363636363636364, 1e-15), "{k}");
        assert!(close(k, 7.0 / 11.0, 1e-15));
    }

    #[test]
    fn kappa_rounds_half_to_even() {
        // 1.5 -> 2, 2.5 -> 2, 3.5 -> 4: identical to s = [2, 2, 4] -> 1.0.
        assert_eq!(kappa(&[1.5, 2.5, 3.5], &[2.0, 2.0, 4.0]), 1.0);
        // 0.5 -> 0 and -0.5 -> -0 agree with 0.
        assert_eq!(kappa(&[0.5, -0.5, 2.0], &[0.0, 0.0, 2.0]), 1.0);
        // Continuous values: 2.4 -> 2, 2.6 -> 3, 3.49 -> 3, 0.51 -> 1.
        // h = [2, 3, 3, 1], s = [2, 2, 3, 1]: d = 3, a = {1:1,2:1,3:2},
        // b = {1:1,2:2,3:1}: sum a b = 1+2+2 = 5; 1 - 1*4/11 = 7/11.
        let k = kappa(&[2.4, 2.6, 3.49, 0.51], &[1.6, 2.2, 2.5001, 1.4]);
        assert!(close(k, 7.0 / 11.0, 1e-15), "{k}");
    }

    #[test]
    fn kappa_golden_v1_v2() {
        // V1: system 2.54 -> 3 everywhere; kappa 0.
        let h = [1.0, 3.0, 4.0, 2.0, 3.0, 1.0, 3.0, 4.0, 2.0, 1.0];
        assert_eq!(kappa(&h, &[2.54; 10]), 0.0);
        // V2: rounded s = [1,2,3,4,5,4,2,4]; d = 7; a = {1,2,2,2,1}, b = {1,2,1,3,1};
        // sum a b = 1+4+2+6+1 = 14; 1 - 1*8/(64-14) = 0.84.
        let h = [1.0, 2.0, 3.0, 4.0, 5.0, 3.0, 2.0, 4.0];
        let s = [1.2, 2.5, 2.9, 4.4, 4.6, 3.5, 1.5, 3.9];
        assert!(close(kappa(&h, &s), 0.84, 1e-15));
    }

    #[test]
    fn kappa_edge_cases() {
        assert!(kappa(&[], &[]).is_nan());
        // Single label everywhere -> exactly 1.
        assert_eq!(kappa(&[3.0], &[3.0]), 1.0);
        assert_eq!(kappa(&[3.0, 2.6], &[3.4, 3.0]), 1.0);
        // n = 1, disagreeing: d = 0, a b = 0 -> 1 - 1/1 = 0.
        assert_eq!(kappa(&[1.0], &[3.0]), 0.0);
        assert!(kappa(&[1.0, f64::NAN], &[1.0, 2.0]).is_nan());
        assert!(kappa(&[1.0, f64::INFINITY], &[1.0, 2.0]).is_nan());
        // Complete disagreement on two labels: d = 0, a = {1,1}, b = {1,1}
        // (swapped): sum a b = 2; 1 - 2*2/(4-2) = -1.
        assert_eq!(kappa(&[1.0, 2.0], &[2.0, 1.0]), -1.0);
    }

    #[test]
    fn kappa_absurd_label_range_uses_hash_map() {
        // Range 1e15 wide: no giant allocation, same answer as a small range
        // with the same agreement pattern (unused labels do not matter).
        let h = [0.0, 1e15, 1e15, 7.0];
        let s = [0.0, 1e15, 7.0, 7.0];
        let small_h = [0.0, 2.0, 2.0, 1.0];
        let small_s = [0.0, 2.0, 1.0, 1.0];
        assert_eq!(kappa(&h, &s), kappa(&small_h, &small_s));
        assert_eq!(kappa(&[-1e300, 1e300], &[-1e300, 1e300]), 1.0);
        // -0.0 and 0.0 are one label in the hash-map path too.
        assert_eq!(kappa(&[-0.2, 1e12], &[0.3, 1e12]), 1.0);
    }

    #[test]
    fn kappa_matches_literal_matrix_algorithm() {
        let mut g = Lcg(99);
        for _ in 0..300 {
            let n = 1 + (g.next() * 40.0) as usize;
            let width = 1.0 + g.next() * 8.0;
            let h: Vec<f64> = (0..n).map(|_| g.next() * width - 2.0).collect();
            let s: Vec<f64> = (0..n).map(|_| g.next() * width - 2.0).collect();
            let a = kappa(&h, &s);
            let b = kappa_matrix(&h, &s);
            assert!((a - b).abs() <= 1e-12, "{a} vs {b}");
            assert!(a <= 1.0);
        }
    }

    #[test]
    fn qwk_golden_v3_continuous() {
        // h = [1,2,3,4] (mean 2.5, var0 1.25), s = [1.5,2.2,2.9,4.8] (mean 2.85);
        // ds = [-1.35,-0.65,0.05,1.95]: var0 = (1.8225+0.4225+0.0025+3.8025)/4
        // = 1.5125; cov0 = (2.025+0.325+0.025+2.925)/4 = 1.325;
        // QWK = 2.65 / (1.25 + 1.5125 + 0.1225) = 2.65/2.885 = 0.9185441941...
        let q = quadratic_weighted_kappa(&[1.0, 2.0, 3.0, 4.0], &[1.5, 2.2, 2.9, 4.8]);
        assert!(close(q, 0.9185441941074524, 1e-12), "{q}");
    }

    #[test]
    fn qwk_golden_v1_v2() {
        let h = [1.0, 3.0, 4.0, 2.0, 3.0, 1.0, 3.0, 4.0, 2.0, 1.0];
        let q = quadratic_weighted_kappa(&h, &[2.54; 10]);
        assert!(q.abs() < 1e-15, "{q}");
        let h = [1.0, 2.0, 3.0, 4.0, 5.0, 3.0, 2.0, 4.0];
        let s = [1.2, 2.5, 2.9, 4.4, 4.6, 3.5, 1.5, 3.9];
        assert!(close(
            quadratic_weighted_kappa(&h, &s),
            0.9515645092156023,
            1e-12
        ));
    }

    #[test]
    fn qwk_edge_cases() {
        // Identical vectors -> 2 var / 2 var = 1.
        assert_eq!(
            quadratic_weighted_kappa(&[1.0, 2.0, 4.0], &[1.0, 2.0, 4.0]),
            1.0
        );
        // Both constant and equal -> 0/0 -> NaN.
        assert!(quadratic_weighted_kappa(&[2.0, 2.0], &[2.0, 2.0]).is_nan());
        // n = 1, different values -> 0 / (0 + 0 + 4) = 0.
        assert_eq!(quadratic_weighted_kappa(&[1.0], &[3.0]), 0.0);
        // n = 1, equal values -> NaN.
        assert!(quadratic_weighted_kappa(&[1.0], &[1.0]).is_nan());
        assert!(quadratic_weighted_kappa(&[], &[]).is_nan());
    }

    #[test]
    fn random_properties() {
        let mut g = Lcg(5);
        for k in 0..400 {
            let n = 1 + (g.next() * 50.0) as usize;
            let h: Vec<f64> = (0..n).map(|_| (1.0 + g.next() * 4.0).round()).collect();
            let s: Vec<f64> = if k % 2 == 0 {
                (0..n).map(|_| g.next() * 6.0).collect()
            } else {
                h.iter().map(|v| v + (g.next() - 0.5) * 1.5).collect()
            };
            let kp = kappa(&h, &s);
            assert!((-1.0..=1.0).contains(&kp), "{kp}");
            assert_eq!(kp, kappa(&s, &h));
            let q = quadratic_weighted_kappa(&h, &s);
            assert!(q.is_nan() || q.abs() <= 1.0 + 1e-12, "{q}");
            let e = exact_agreement(&h, &s);
            let a = adjacent_agreement(&h, &s);
            assert!((0.0..=100.0).contains(&e) && (0.0..=100.0).contains(&a));
            assert!(e <= a);
            assert_eq!(exact_agreement(&h, &h), 100.0);
        }
    }
}
