//! Part of the metrics stage (pure maths: no I/O, no tables, no plots).
//!
//! Summary statistics computed the way numpy computes them, so that means,
//! variances and sums agree with the reference to the last bits where
//! possible: numpy's pairwise summation (including the 8192-element chunking
//! that numpy < 2.3 applies to every reduction), two-pass variances, and the
//! pandas-style NaN-skipping mean / sample sd used for population statistics.

/// numpy's `PW_BLOCKSIZE`: below or at this length the sum is unrolled.
const PW_BLOCKSIZE: usize = 128;

/// numpy's `NPY_BUFSIZE` (elements). numpy < 2.3 (the reference runs 2.1)
/// hands a reduction to the add loop in chunks of this many elements even
/// for contiguous arrays, so `np.sum` is `0.0 + pw(c0) + pw(c1) + ...`
/// (left to right over chunks, pairwise inside each chunk).
pub const NUMPY_BUFSIZE: usize = 8192;

/// A float numpy sums pairwise in its own precision: `f64` (`float64`
/// arrays) or `f32` (`float32` arrays, summed in binary32 as numpy does).
trait Float: Copy + Default + std::ops::Add<Output = Self> + std::ops::AddAssign {}
impl Float for f64 {}
impl Float for f32 {}

/// Adds `b` into `a`, component by component.
#[inline(always)]
fn add_into<T: Float, const N: usize>(a: &mut [T; N], b: [T; N]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

/// numpy `pairwise_sum` (loops_utils.h) of `f(i)` for `i` in
/// `start..start + n`, for `N` independent sums at once, in `T`'s
/// precision. Every component is summed in exactly numpy's order.
fn pw<T: Float, const N: usize, F: Fn(usize) -> [T; N]>(start: usize, n: usize, f: &F) -> [T; N] {
    if n < 8 {
        let mut res = [T::default(); N];
        for i in start..start + n {
            add_into(&mut res, f(i));
        }
        res
    } else if n <= PW_BLOCKSIZE {
        let mut r: [[T; N]; 8] = std::array::from_fn(|j| f(start + j));
        let end = start + n;
        let blocks_end = end - n % 8;
        let mut i = start + 8;
        while i < blocks_end {
            for (j, acc) in r.iter_mut().enumerate() {
                add_into(acc, f(i + j));
            }
            i += 8;
        }
        let mut res = [T::default(); N];
        for (k, out) in res.iter_mut().enumerate() {
            *out = ((r[0][k] + r[1][k]) + (r[2][k] + r[3][k]))
                + ((r[4][k] + r[5][k]) + (r[6][k] + r[7][k]));
        }
        while i < end {
            add_into(&mut res, f(i));
            i += 1;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        let mut a = pw(start, n2, f);
        add_into(&mut a, pw(start + n2, n - n2, f));
        a
    }
}

/// `np.add.reduce` of `f(i)` for `i` in `0..n`, for `N` sums at once:
/// `0.0 + pw(chunk_0) + pw(chunk_1) + ...` with chunks of [`NUMPY_BUFSIZE`]
/// elements and numpy's pairwise summation `pw` inside each chunk. Lets
/// callers sum mapped values (squared deviations, products, ...) without
/// allocating, in the same order numpy sums the materialised array.
#[inline]
pub fn pairwise_sum_by<const N: usize, F: Fn(usize) -> [f64; N]>(n: usize, f: F) -> [f64; N] {
    chunked_sum(n, f)
}

/// `0 + pw(chunk_0) + pw(chunk_1) + ...` over chunks of [`NUMPY_BUFSIZE`]
/// elements, in `T`'s precision: numpy's `add.reduce`.
#[inline(always)]
fn chunked_sum<T: Float, const N: usize, F: Fn(usize) -> [T; N]>(n: usize, f: F) -> [T; N] {
    let mut res = [T::default(); N];
    let mut start = 0;
    while start < n {
        let len = (n - start).min(NUMPY_BUFSIZE);
        add_into(&mut res, pw(start, len, &f));
        start += len;
    }
    res
}

/// `np.sum(x)`: numpy pairwise summation (n < 8: plain loop; n <= 128: eight
/// accumulators combined as `((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))` plus the
/// remainder one by one; otherwise split at `n/2` rounded down to a multiple
/// of 8 and recurse), applied to consecutive chunks of 8192 values that are
/// added left to right. 0.0 for an empty slice.
pub fn pairwise_sum(x: &[f64]) -> f64 {
    pairwise_sum_by(x.len(), |i| [x[i]])[0]
}

/// `np.sum(x)` of a `float32` array: [`pairwise_sum`]'s order (the same
/// chunks, accumulators and splits), every addition in binary32, as numpy
/// sums a `float32` array in its own type (sacreBLEU's bootstrap arrays,
/// `sequence.md` 3.2). 0.0 for an empty slice.
pub fn pairwise_sum_f32(x: &[f32]) -> f32 {
    chunked_sum(x.len(), |i| [x[i]])[0]
}

/// `np.mean(x)` of a `float32` array: [`pairwise_sum_f32`] divided by `n`
/// in binary32 (numpy 2's `float32` mean); NaN when empty.
pub fn mean_f32(x: &[f32]) -> f32 {
    pairwise_sum_f32(x) / x.len() as f32
}

/// `np.mean(x)` = `pairwise_sum(x) / n`; NaN when empty.
pub fn mean(x: &[f64]) -> f64 {
    if x.is_empty() {
        return f64::NAN;
    }
    pairwise_sum(x) / x.len() as f64
}

/// Sum of squared deviations `sum (x_i - m)^2` (pairwise), given the mean `m`.
#[inline]
pub(crate) fn sum_sq_dev(x: &[f64], m: f64) -> f64 {
    pairwise_sum_by(x.len(), |i| {
        let d = x[i] - m;
        [d * d]
    })[0]
}

/// `np.var(x, ddof)`: two-pass, `sum (x_i - mean)^2 / (n - ddof)` with
/// pairwise sums; NaN when `n <= ddof`.
pub fn var(x: &[f64], ddof: usize) -> f64 {
    let n = x.len();
    if n <= ddof {
        return f64::NAN;
    }
    sum_sq_dev(x, mean(x)) / (n - ddof) as f64
}

/// `np.std(x, ddof)` = `sqrt(var(x, ddof))`; NaN when `n <= ddof`.
pub fn sd(x: &[f64], ddof: usize) -> f64 {
    var(x, ddof).sqrt()
}

/// `np.min(x)`: smallest value; NaN when empty or when any value is NaN.
pub fn min(x: &[f64]) -> f64 {
    extreme(x, |a, b| b < a)
}

/// `np.max(x)`: largest value; NaN when empty or when any value is NaN.
pub fn max(x: &[f64]) -> f64 {
    extreme(x, |a, b| b > a)
}

/// First-wins extreme under `better(current, candidate)`, NaN-propagating.
#[inline]
fn extreme(x: &[f64], better: impl Fn(f64, f64) -> bool) -> f64 {
    let Some(&first) = x.first() else {
        return f64::NAN;
    };
    let mut best = first;
    for &v in x {
        if v.is_nan() {
            return f64::NAN;
        }
        if better(best, v) {
            best = v;
        }
    }
    best
}

/// pandas `Series.mean()` and `Series.std()` (sample sd, ddof 1), skipping
/// NaN: NaN values are replaced by 0 and the whole vector is summed
/// pairwise, then divided by the count `c` of non-NaN values;
/// `var = sum over non-NaN (mean - x_i)^2 / (c - 1)`. Mean NaN when `c = 0`,
/// sd NaN when `c <= 1`. Used for population statistics and scale files.
pub fn nan_mean_sd(x: &[f64]) -> (f64, f64) {
    let count = x.iter().filter(|v| !v.is_nan()).count();
    if count == 0 {
        return (f64::NAN, f64::NAN);
    }
    let m =
        pairwise_sum_by(x.len(), |i| [if x[i].is_nan() { 0.0 } else { x[i] }])[0] / count as f64;
    if count == 1 {
        return (m, f64::NAN);
    }
    let ss = pairwise_sum_by(x.len(), |i| {
        let v = x[i];
        [if v.is_nan() { 0.0 } else { (m - v) * (m - v) }]
    })[0];
    (m, (ss / (count - 1) as f64).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Independent transcription of numpy's `pairwise_sum` (no chunking).
    fn reference_pw(a: &[f64]) -> f64 {
        let n = a.len();
        if n < 8 {
            let mut res = 0.0;
            for &v in a {
                res += v;
            }
            res
        } else if n <= 128 {
            let mut r = [0.0; 8];
            r.copy_from_slice(&a[..8]);
            let mut i = 8;
            while i < n - (n % 8) {
                for j in 0..8 {
                    r[j] += a[i + j];
                }
                i += 8;
            }
            let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
            while i < n {
                res += a[i];
                i += 1;
            }
            res
        } else {
            let mut n2 = n / 2;
            n2 -= n2 % 8;
            reference_pw(&a[..n2]) + reference_pw(&a[n2..])
        }
    }

    fn naive(a: &[f64]) -> f64 {
        a.iter().fold(0.0, |acc, v| acc + v)
    }

    use crate::test_util::Lcg;

    #[test]
    fn pairwise_short_equals_plain_sum() {
        // n < 8 is a plain left-to-right loop: 0.1 + 0.2 + 0.3 = 0.6000000000000001.
        assert_eq!(pairwise_sum(&[0.1, 0.2, 0.3]), 0.1 + 0.2 + 0.3);
        assert_eq!(pairwise_sum(&[0.1, 0.2, 0.3]), 0.6000000000000001);
        assert_eq!(pairwise_sum(&[]), 0.0);
        // numpy starts from the identity 0.0, so -0.0 sums to +0.0.
        assert!(pairwise_sum(&[-0.0]).is_sign_positive());
        assert_eq!(pairwise_sum(&[1.0, 2.0, 3.0, 4.0]), 10.0);
    }

    /// numpy's `float32` sum, by hand: binary32 has a spacing of 2 above
    /// 2^24, where adding 1 is a tie rounded to the even 2^24. Three values
    /// (a plain loop): 2^24 + 1 + 1 stays 2^24. Sixteen values, 2^24 then
    /// fifteen 1s: accumulator 0 is 2^24 + 1 = 2^24, the other seven 1 + 1
    /// = 2, combined `((2^24 + 2) + (2 + 2)) + ((2 + 2) + (2 + 2))` = 2^24 +
    /// 14 (every step exact); a left-to-right sum stays at 2^24 and the
    /// exact sum is 2^24 + 15. The mean is (2^24 + 14) / 16 = 1048576.875.
    #[test]
    fn float32_sums_are_numpys_pairwise_binary32_sums() {
        let big = 16_777_216.0f32;
        assert_eq!(pairwise_sum_f32(&[big, 1.0, 1.0]), big);
        let mut x = vec![big];
        x.extend([1.0f32; 15]);
        assert_eq!(pairwise_sum_f32(&x), 16_777_230.0);
        assert_eq!(x.iter().fold(0.0f32, |a, v| a + v), big);
        // (2^24 + 14) / 16 = 1048576.875 exactly (3 fraction bits left).
        assert_eq!(mean_f32(&x), 16_777_230.0 / 16.0);
        assert_eq!(mean_f32(&[1.0, 2.0, 3.0, 4.0]), 2.5);
        assert!(mean_f32(&[]).is_nan());
        assert_eq!(pairwise_sum_f32(&[]), 0.0);
        // Whole numbers far below 2^24: every partial sum is exact, so the
        // binary32 sum is the binary64 one, over several 8192-value chunks.
        let mut g = Lcg(5);
        let ints: Vec<f64> = (0..20_000).map(|_| (g.next() * 100.0).floor()).collect();
        let singles: Vec<f32> = ints.iter().map(|&v| v as f32).collect();
        assert_eq!(f64::from(pairwise_sum_f32(&singles)), pairwise_sum(&ints));
    }

    #[test]
    fn pairwise_block_order_of_eight_accumulators() {
        // n = 9: r_j = x_j for j < 8, combined as ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)),
        // then x_8 added. With x = [1e16, 1, 1, 1, 1, 1, 1, 1, 1]:
        // the ulp at 1e16 is 2: (1e16+1) = 1e16 (tie to even), + (1+1) = 1e16+2,
        // + ((1+1)+(1+1)) = 1e16+6, + last 1 = 1e16+7, a tie rounded to the even
        // 1e16+8; naive summation absorbs every single 1 (ties to even): 1e16.
        let mut x = vec![1.0; 9];
        x[0] = 1e16;
        assert_eq!(pairwise_sum(&x), 1e16 + 8.0);
        assert_eq!(naive(&x), 1e16);
        assert_eq!(pairwise_sum(&x), reference_pw(&x));
    }

    #[test]
    fn pairwise_long_input_differs_from_naive() {
        // 1000 copies of 0.1: the pairwise tree keeps partial sums small.
        let x = vec![0.1; 1000];
        let p = pairwise_sum(&x);
        assert_eq!(p, reference_pw(&x));
        assert_ne!(p, naive(&x));
        // naive: 99.9999999999986; pairwise is much closer to 100.
        assert!((p - 100.0).abs() < (naive(&x) - 100.0).abs());
        assert!((p - 100.0).abs() < 1e-12);
    }

    #[test]
    fn pairwise_matches_hand_written_recursion_on_random_lengths() {
        let mut g = Lcg(42);
        for &n in &[
            0, 1, 7, 8, 9, 15, 16, 127, 128, 129, 130, 255, 256, 257, 1000, 8191, 8192,
        ] {
            let x: Vec<f64> = (0..n).map(|_| (g.next() - 0.3) * 1e3).collect();
            assert_eq!(
                pairwise_sum(&x).to_bits(),
                (0.0 + reference_pw(&x)).to_bits(),
                "n = {n}"
            );
        }
    }

    #[test]
    fn pairwise_chunks_of_8192_beyond_bufsize() {
        // numpy < 2.3: 0.0 + pw(x[..8192]) + pw(x[8192..16384]) + pw(rest).
        let mut g = Lcg(7);
        let x: Vec<f64> = (0..20_000).map(|_| g.next() * 10.0 - 3.0).collect();
        let expected = 0.0
            + reference_pw(&x[..8192])
            + reference_pw(&x[8192..16384])
            + reference_pw(&x[16384..]);
        assert_eq!(pairwise_sum(&x).to_bits(), expected.to_bits());
    }

    #[test]
    fn pairwise_by_components_are_independent() {
        let mut g = Lcg(3);
        let x: Vec<f64> = (0..3000).map(|_| g.next()).collect();
        let y: Vec<f64> = x.iter().map(|v| v * v - 0.5).collect();
        let [a, b] = pairwise_sum_by(x.len(), |i| [x[i], x[i] * x[i] - 0.5]);
        assert_eq!(a, pairwise_sum(&x));
        assert_eq!(b, pairwise_sum(&y));
    }

    #[test]
    fn mean_var_sd_by_hand() {
        // [1,3,4,2,3,1,3,4,2,1]: sum 24, mean 2.4; squared deviations
        // 1.96+0.36+2.56+0.16+0.36+1.96+0.36+2.56+0.16+1.96 = 12.4;
        // var ddof1 = 12.4/9 = 1.3777..., sd = 1.1737877907772674 (spec V1).
        let h = [1.0, 3.0, 4.0, 2.0, 3.0, 1.0, 3.0, 4.0, 2.0, 1.0];
        assert_eq!(mean(&h), 2.4);
        assert!((var(&h, 0) - 1.24).abs() < 1e-15);
        assert!((sd(&h, 1) - 1.1737877907772674).abs() < 1e-15);
        // [2, 4]: mean 3, var0 = (1+1)/2 = 1, var1 = 2.
        assert_eq!(var(&[2.0, 4.0], 0), 1.0);
        assert_eq!(var(&[2.0, 4.0], 1), 2.0);
        assert_eq!(sd(&[2.0, 4.0], 1), 2f64.sqrt());
    }

    #[test]
    fn edge_cases_empty_and_single() {
        assert!(mean(&[]).is_nan());
        assert!(var(&[], 0).is_nan());
        assert!(var(&[5.0], 1).is_nan());
        assert_eq!(var(&[5.0], 0), 0.0);
        assert!(sd(&[5.0], 1).is_nan());
        assert!(min(&[]).is_nan());
        assert!(max(&[]).is_nan());
        assert_eq!(min(&[3.0, -1.0, 2.0]), -1.0);
        assert_eq!(max(&[3.0, -1.0, 2.0]), 3.0);
        assert!(min(&[1.0, f64::NAN, 0.0]).is_nan());
        assert!(max(&[f64::NAN, 1.0]).is_nan());
    }

    #[test]
    fn constant_non_representable_sd_is_tiny_not_zero() {
        // Spec 3.1 numeric note: 69 copies of 3.536 give sd ~ 4.5e-16, not 0.
        let x = vec![3.536; 69];
        let s = sd(&x, 1);
        assert!(s > 0.0 && s < 1e-15, "sd = {s}");
    }

    #[test]
    fn nan_mean_sd_skips_missing() {
        // [1, NaN, 3, NaN, 5]: mean 9/3 = 3; deviations 4+0+4 = 8; var = 8/2 = 4; sd 2.
        let x = [1.0, f64::NAN, 3.0, f64::NAN, 5.0];
        assert_eq!(nan_mean_sd(&x), (3.0, 2.0));
        let (m, s) = nan_mean_sd(&[f64::NAN, 7.0]);
        assert_eq!(m, 7.0);
        assert!(s.is_nan());
        let (m, s) = nan_mean_sd(&[f64::NAN]);
        assert!(m.is_nan() && s.is_nan());
        let (m, s) = nan_mean_sd(&[]);
        assert!(m.is_nan() && s.is_nan());
        // Without NaN it agrees with mean / sd(ddof 1).
        let h = [1.0, 3.0, 4.0, 2.0, 3.0, 1.0, 3.0, 4.0, 2.0, 1.0];
        assert_eq!(nan_mean_sd(&h), (mean(&h), sd(&h, 1)));
    }
}
