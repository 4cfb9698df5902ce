//! Centred cross-products of column-major data, the shared kernel of OLS,
//! NNLS, LassoCV, the correlation matrices and PCA.
//!
//! Accuracy vs speed: the means come first (numpy's pairwise sum), then one
//! blocked pass forms every centred cross-product `sum_i w_i (x_ij - m_j)
//! (x_ik - m_k)`: rows are taken in blocks of [`BLOCK`], centred into a
//! buffer that stays in cache, and `B^T B` of the block is added with one
//! `matrixmultiply` dgemm (memory traffic of one read of the data; the block
//! sums act as a partial pairwise summation). Centring before multiplying
//! avoids the cancellation of the one-pass `sum x y - n mx my` form, which
//! loses all digits for features with a large mean and a small sd. The
//! accurate alternative for ill-conditioned problems is [`tall_r_factor`]:
//! a blocked Householder QR (the R factor of the centred data, stacked
//! block by block) whose singular values are those of the data, at about
//! twice the cost of the Gram matrix.

use nalgebra::{DMatrix, DMatrixView, Dyn};

use super::stats::{is_constant, pairwise_sum};

/// Rows per block of the blocked passes.
pub const BLOCK: usize = 512;

/// Means, row count (or weight sum) and centred cross-products of columns.
#[derive(Debug, Clone, PartialEq)]
pub struct Moments {
    /// Number of rows.
    pub n: usize,
    /// Sum of the weights (`n` when unweighted).
    pub weight_sum: f64,
    /// (Weighted) column means.
    pub means: Vec<f64>,
    /// Centred (weighted) cross-products, `k x k`, symmetric.
    pub gram: DMatrix<f64>,
}

impl Moments {
    /// Computes the moments of `cols` (all of one length), optionally with
    /// non-negative row weights.
    ///
    /// Panics if the columns (or weights) differ in length: a programming
    /// error; the public entry points of the crate check lengths first and
    /// return [`super::LinearError::LengthMismatch`].
    pub fn compute(cols: &[&[f64]], weights: Option<&[f64]>) -> Moments {
        let n = cols.first().map_or(0, |c| c.len());
        let (weight_sum, means) = match weights {
            None => (
                n as f64,
                cols.iter().map(|c| column_mean(c)).collect::<Vec<f64>>(),
            ),
            Some(w) => {
                let ws = pairwise_sum(w);
                let means = cols
                    .iter()
                    .map(|c| {
                        if is_constant(c) && !c.is_empty() {
                            c[0]
                        } else {
                            let prod: Vec<f64> = c.iter().zip(w).map(|(a, b)| a * b).collect();
                            pairwise_sum(&prod) / ws
                        }
                    })
                    .collect::<Vec<f64>>();
                (ws, means)
            }
        };
        let gram = centered_gram(cols, &means, weights);
        Moments {
            n,
            weight_sum,
            means,
            gram,
        }
    }

    /// Sample covariance matrix (`gram / (n - 1)`, unweighted use).
    pub fn covariance(&self) -> DMatrix<f64> {
        &self.gram / (self.n as f64 - 1.0)
    }

    /// Pearson correlation matrix: NaN rows/columns for constant columns,
    /// exactly 1 on the diagonal otherwise, off-diagonal values clipped to
    /// [-1, 1].
    pub fn correlation(&self) -> DMatrix<f64> {
        let k = self.gram.nrows();
        DMatrix::from_fn(k, k, |i, j| {
            let d = (self.gram[(i, i)] * self.gram[(j, j)]).sqrt();
            if d == 0.0 || !d.is_finite() || self.n < 2 {
                f64::NAN
            } else if i == j {
                1.0
            } else {
                (self.gram[(i, j)] / d).clamp(-1.0, 1.0)
            }
        })
    }
}

/// Mean of a column: numpy's pairwise sum / n, exactly the common value of
/// constant data.
pub fn column_mean(c: &[f64]) -> f64 {
    super::stats::mean(c)
}

/// Dot product with four accumulators (vectorises well).
#[inline]
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = [0.0f64; 4];
    let ca = a.chunks_exact(4);
    let cb = b.chunks_exact(4);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        s[0] += x[0] * y[0];
        s[1] += x[1] * y[1];
        s[2] += x[2] * y[2];
        s[3] += x[3] * y[3];
    }
    let mut tail = 0.0;
    for (x, y) in ra.iter().zip(rb) {
        tail += x * y;
    }
    (s[0] + s[1]) + (s[2] + s[3]) + tail
}

/// Fills `buf` (column-major, `BLOCK` rows per column) with the centred
/// (and `sqrt(w)`-scaled) rows `start .. start + len` of `cols`.
fn fill_block(
    buf: &mut [f64],
    cols: &[&[f64]],
    means: &[f64],
    weights: Option<&[f64]>,
    start: usize,
    len: usize,
) {
    for (j, c) in cols.iter().enumerate() {
        let b = &mut buf[j * BLOCK..j * BLOCK + len];
        let src = &c[start..start + len];
        let m = means[j];
        for (bi, &v) in b.iter_mut().zip(src) {
            *bi = v - m;
        }
        if let Some(w) = weights {
            for (bi, &wi) in b.iter_mut().zip(&w[start..start + len]) {
                *bi *= wi.sqrt();
            }
        }
    }
}

/// Centred cross-products `sum_i w_i (x_ij - m_j)(x_ik - m_k)` in one
/// blocked pass (columns of one length, as for [`Moments::compute`]).
pub fn centered_gram(cols: &[&[f64]], means: &[f64], weights: Option<&[f64]>) -> DMatrix<f64> {
    let k = cols.len();
    let n = cols.first().map_or(0, |c| c.len());
    let mut acc = DMatrix::<f64>::zeros(k, k);
    let mut buf = vec![0.0; k * BLOCK];
    let mut start = 0;
    while start < n {
        let len = BLOCK.min(n - start);
        fill_block(&mut buf, cols, means, weights, start, len);
        if k > 5 && len > 5 {
            // (nalgebra only hands all dimensions > 5 to matrixmultiply; its
            // own fallback loop does not support these strided views.)
            // acc += B^T B with B the len x k block (column stride BLOCK): one
            // matrixmultiply dgemm per block (nalgebra passes the strides).
            let b: DMatrixView<f64, Dyn, Dyn> =
                DMatrixView::from_slice_with_strides(&buf, len, k, 1, BLOCK);
            let bt: DMatrixView<f64, Dyn, Dyn> =
                DMatrixView::from_slice_with_strides(&buf, k, len, BLOCK, 1);
            acc.gemm(1.0, &bt, &b, 1.0);
        } else {
            for j in 0..k {
                let bj = &buf[j * BLOCK..j * BLOCK + len];
                for l in j..k {
                    acc[(j, l)] += dot(bj, &buf[l * BLOCK..l * BLOCK + len]);
                }
            }
        }
        start += len;
    }
    // Exact symmetry (the gemm's two triangles can differ in the last bit).
    for j in 0..k {
        for l in 0..j {
            acc[(j, l)] = acc[(l, j)];
        }
    }
    acc
}

/// Upper-triangular R (`k x k`, up to row signs) with `R^T R` equal to the
/// cross-products of the columns after subtracting `offsets` and scaling
/// rows by `sqrt(w)`: blocked Householder QR (each block stacked under the
/// current R). Backward stable, so the singular values of R are those of the
/// data to working precision. Columns of one length, as for
/// [`Moments::compute`].
pub fn tall_r_factor(cols: &[&[f64]], offsets: &[f64], weights: Option<&[f64]>) -> DMatrix<f64> {
    let k = cols.len();
    let n = cols.first().map_or(0, |c| c.len());
    let mut r = DMatrix::<f64>::zeros(0, k);
    let mut buf = vec![0.0; k * BLOCK];
    let mut start = 0;
    while start < n {
        let len = BLOCK.min(n - start);
        fill_block(&mut buf, cols, offsets, weights, start, len);
        let rows = r.nrows() + len;
        let stacked = DMatrix::from_fn(rows, k, |i, j| {
            if i < r.nrows() {
                r[(i, j)]
            } else {
                buf[j * BLOCK + (i - r.nrows())]
            }
        });
        let qr = stacked.qr();
        let full_r = qr.r();
        r = full_r.rows(0, full_r.nrows().min(k)).into_owned();
        start += len;
    }
    if r.nrows() < k {
        let mut padded = DMatrix::<f64>::zeros(k, k);
        padded.rows_mut(0, r.nrows()).copy_from(&r);
        r = padded;
    }
    r
}

/// Combines the moments of two disjoint row sets (Chan, Golub and LeVeque's
/// pairwise update): means weighted by counts, cross-products plus
/// `nA nB / (nA + nB) * delta delta^T`.
pub fn combine(a: &Moments, b: &Moments) -> Moments {
    if a.n == 0 {
        return b.clone();
    }
    if b.n == 0 {
        return a.clone();
    }
    let (na, nb) = (a.weight_sum, b.weight_sum);
    let n = na + nb;
    let delta: Vec<f64> = a.means.iter().zip(&b.means).map(|(x, y)| y - x).collect();
    let means = a
        .means
        .iter()
        .zip(&delta)
        .map(|(m, d)| m + d * (nb / n))
        .collect();
    let f = na * nb / n;
    let k = delta.len();
    let gram = DMatrix::from_fn(k, k, |i, j| {
        a.gram[(i, j)] + b.gram[(i, j)] + f * delta[i] * delta[j]
    });
    Moments {
        n: a.n + b.n,
        weight_sum: n,
        means,
        gram,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gram_by_hand() {
        // x = 1,2,3,4 (m 2.5), y = 2,4,5,9 (m 5): sxx = 5, syy = 26, sxy = 11.
        let x = [1.0, 2.0, 3.0, 4.0];
        let y = [2.0, 4.0, 5.0, 9.0];
        let m = Moments::compute(&[&x, &y], None);
        assert_eq!(m.means, vec![2.5, 5.0]);
        assert_eq!(m.gram[(0, 0)], 5.0);
        assert_eq!(m.gram[(1, 1)], 26.0);
        assert_eq!(m.gram[(0, 1)], 11.0);
        assert_eq!(m.gram[(1, 0)], 11.0);
        let c = m.correlation();
        assert!((c[(0, 1)] - 11.0 / (130f64).sqrt()).abs() < 1e-15);
        assert_eq!(c[(0, 0)], 1.0);
        let cov = m.covariance();
        assert!((cov[(0, 1)] - 11.0 / 3.0).abs() < 1e-15);
    }

    #[test]
    fn weighted_gram_by_hand() {
        // weights 1, 3 on x = 0, 4: weighted mean 3, sum w (x - 3)^2 = 9 + 3 = 12.
        let m = Moments::compute(&[&[0.0, 4.0]], Some(&[1.0, 3.0]));
        assert_eq!(m.means[0], 3.0);
        assert_eq!(m.weight_sum, 4.0);
        assert!((m.gram[(0, 0)] - 12.0).abs() < 1e-15);
    }

    #[test]
    fn blocks_r_factor_and_combination_agree() {
        let n = 3 * BLOCK + 17;
        let x: Vec<f64> = (0..n).map(|i| ((i * 37) % 101) as f64 * 0.5).collect();
        let y: Vec<f64> = (0..n).map(|i| ((i * 53) % 89) as f64 - 3.0).collect();
        let full = Moments::compute(&[&x, &y], None);
        let r = tall_r_factor(&[&x, &y], &full.means, None);
        let rtr = r.transpose() * &r;
        for i in 0..2 {
            for j in 0..2 {
                let g = full.gram[(i, j)];
                assert!((rtr[(i, j)] - g).abs() <= 1e-11 * g.abs().max(1.0));
            }
        }
        let cut = 300;
        let a = Moments::compute(&[&x[..cut], &y[..cut]], None);
        let b = Moments::compute(&[&x[cut..], &y[cut..]], None);
        let c = combine(&a, &b);
        for i in 0..2 {
            assert!((c.means[i] - full.means[i]).abs() < 1e-12);
            for j in 0..2 {
                let g = full.gram[(i, j)];
                assert!((c.gram[(i, j)] - g).abs() <= 1e-11 * g.abs().max(1.0));
            }
        }
    }

    #[test]
    fn gemm_path_matches_dot_products() {
        // k = 7 columns (> 5: the dgemm path) over several blocks.
        let n = 2 * BLOCK + 3;
        let cols: Vec<Vec<f64>> = (0..7)
            .map(|j| {
                (0..n)
                    .map(|i| ((i * (j + 3)) % 17) as f64 - j as f64)
                    .collect()
            })
            .collect();
        let refs: Vec<&[f64]> = cols.iter().map(|c| c.as_slice()).collect();
        let m = Moments::compute(&refs, None);
        for a in 0..7 {
            for b in 0..7 {
                let want: f64 = (0..n)
                    .map(|i| (cols[a][i] - m.means[a]) * (cols[b][i] - m.means[b]))
                    .sum();
                assert!((m.gram[(a, b)] - want).abs() <= 1e-9 * want.abs().max(1.0));
                assert_eq!(m.gram[(a, b)], m.gram[(b, a)]);
            }
        }
    }

    #[test]
    fn constant_column_correlation_is_nan() {
        let m = Moments::compute(&[&[0.1, 0.1, 0.1], &[1.0, 2.0, 4.0]], None);
        assert_eq!(m.gram[(0, 0)], 0.0);
        let c = m.correlation();
        assert!(c[(0, 1)].is_nan() && c[(0, 0)].is_nan());
        assert_eq!(c[(1, 1)], 1.0);
    }
}
