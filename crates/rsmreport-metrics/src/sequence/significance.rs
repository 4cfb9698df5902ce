//! sacreBLEU 2.6.0's significance statistics (`sacrebleu/significance.py`,
//! spec `sequence.md` 3.1-3.3) on replicate values already computed:
//! `estimate_ci`'s mean and half-width, the paired bootstrap test's
//! p-value (`_paired_bs_test`) and the add-one p-value both of its tests
//! end with (`_paired_ar_test` too). A `float32` replicate array (sacreBLEU
//! keeps BLEU's, chrF's and TER's scores as numpy `float32` when their
//! statistics are) is summed and compared in binary32, as numpy does
//! ([`crate::summary::mean_f32`]).
//!
//! Pure arithmetic on slices; drawing the replicates is the caller's.

use crate::summary::{mean, mean_f32};

/// sacreBLEU's `estimate_ci(scores)`: the mean of the replicates and half
/// the distance between the `k`-th smallest and the `k`-th largest, `k =
/// B // 40` (the 2.5% and 97.5% ends of `B` sorted values), both in the
/// array's type: binary32 when `binary32` (numpy's `float32` mean and
/// subtraction), else binary64. Panics on an empty slice (sacreBLEU
/// indexes an empty array too).
pub fn estimate_ci(replicates: &[f64], binary32: bool) -> (f64, f64) {
    let mut s = replicates.to_vec();
    s.sort_by(f64::total_cmp);
    let b = s.len();
    let k = b / 40;
    let (lo, hi) = (s[k], s[b - k - 1]);
    if binary32 {
        let v: Vec<f32> = replicates.iter().map(|&x| x as f32).collect();
        (
            f64::from(mean_f32(&v)),
            f64::from(0.5f32 * (hi as f32 - lo as f32)),
        )
    } else {
        (mean(replicates), 0.5 * (hi - lo))
    }
}

/// The add-one p-value of a resampling test: `(exceeding + 1) / (trials +
/// 1)`, `exceeding` of `trials` resampled statistics at least as extreme as
/// the observed one (sacreBLEU's paired bootstrap and approximate
/// randomization tests, after Riezler and Maxwell 2005).
pub fn add_one_p(exceeding: usize, trials: usize) -> f64 {
    (exceeding + 1) as f64 / (trials + 1) as f64
}

/// sacreBLEU's paired bootstrap p-value (`_paired_bs_test`) of a candidate
/// against the baseline: with `observed = |baseline - candidate|` on the
/// whole data and `d_b = |candidate*_b - baseline*_b|` on replicate `b`
/// (the same resample for both), the number of `d_b - mean(d) > observed`
/// through [`add_one_p`]. `binary32`: both replicate arrays are `float32`
/// (differences, mean and comparison in binary32), else binary64. The
/// replicates are paired by position.
pub fn paired_bootstrap_p(
    candidate: &[f64],
    baseline: &[f64],
    observed: f64,
    binary32: bool,
) -> f64 {
    let exceeding = if binary32 {
        let d: Vec<f32> = candidate
            .iter()
            .zip(baseline)
            .map(|(x, y)| (*x as f32 - *y as f32).abs())
            .collect();
        let (m, t) = (mean_f32(&d), observed as f32);
        d.iter().filter(|&&v| v - m > t).count()
    } else {
        let d: Vec<f64> = candidate
            .iter()
            .zip(baseline)
            .map(|(x, y)| (x - y).abs())
            .collect();
        let m = mean(&d);
        d.iter().filter(|&&v| v - m > observed).count()
    };
    add_one_p(exceeding, candidate.len().min(baseline.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 40 replicates 0, 1, ..., 39 (given out of order): `k = 40 // 40 =
    /// 1`, the ends are the second smallest (1) and the second largest
    /// (38), the half-width (38 - 1) / 2 = 18.5, the mean 780 / 40 = 19.5;
    /// all exact in binary32 too.
    #[test]
    fn estimate_ci_by_hand() {
        let reps: Vec<f64> = (0..40).map(|i| f64::from((i * 7) % 40)).collect();
        assert_eq!(estimate_ci(&reps, false), (19.5, 18.5));
        assert_eq!(estimate_ci(&reps, true), (19.5, 18.5));
        // Fewer than 40: k = 0, the extremes.
        assert_eq!(estimate_ci(&[3.0, 1.0, 2.0], false), (2.0, 1.0));
    }

    /// Candidate [3, 1, 4, 1, 5] against a constant baseline 2: `d = [1,
    /// 1, 2, 1, 3]`, mean 1.6, `d - mean = [-0.6, -0.6, 0.4, -0.6, 1.4]`.
    /// Observed 0.3: two exceed it, p = (2 + 1) / (5 + 1) = 0.5; observed
    /// 1: one, p = 2 / 6; observed 2: none, p = 1 / 6.
    #[test]
    fn paired_bootstrap_p_by_hand() {
        let (c, b) = ([3.0, 1.0, 4.0, 1.0, 5.0], [2.0; 5]);
        for binary32 in [false, true] {
            assert_eq!(paired_bootstrap_p(&c, &b, 0.3, binary32), 0.5);
            assert_eq!(paired_bootstrap_p(&c, &b, 1.0, binary32), 2.0 / 6.0);
            assert_eq!(paired_bootstrap_p(&c, &b, 2.0, binary32), 1.0 / 6.0);
        }
        // The sign of the differences does not matter: swapped sides.
        assert_eq!(paired_bootstrap_p(&b, &c, 0.3, false), 0.5);
    }

    #[test]
    fn add_one_p_values() {
        assert_eq!(add_one_p(0, 1000), 1.0 / 1001.0);
        assert_eq!(add_one_p(9, 9), 1.0);
    }
}
