//! Positive Lasso as scikit-learn 1.4.2 (spec train.md 6.9): `Lasso(alpha,
//! positive=True)` and `LassoCV(cv=10, positive=True)`.
//!
//! Objective `(1/(2n)) ||yc - Xc w||^2 + alpha ||w||_1`, `w >= 0`, on data
//! centred by their means; intercept `mean(y) - mean(X) . w`. Both solvers
//! are ports of `sklearn.linear_model._cd_fast`: the plain cyclic coordinate
//! descent `enet_coordinate_descent` (residual vector, used for the final
//! fit) and its Gram variant `enet_coordinate_descent_gram` (used per
//! cross-validation fold), with `max_iter = 1000`, `tol = 1e-4` scaled by
//! `yc . yc`, and the duality-gap stopping rule. Centring is done on the fly
//! (`x - mean`, the same floating-point operation as scikit-learn's centred
//! copy), so no copy of the data is made.
//!
//! LassoCV: 100 alphas `geomspace(amax, amax / 1000)` (`amax = max_j |Xc_j .
//! yc| / n`), 10 contiguous folds (KFold without shuffling), warm starts
//! along the path, best alpha = smallest mean held-out MSE (first on ties),
//! then a cold plain fit on all rows. Speed: the moments (means and centred
//! cross-products, label included) of the 10 fold blocks are computed in
//! one pass; each fold's training Gram matrix is combined from the other
//! nine blocks (Chan's update) and its held-out MSE for any `w` comes from
//! the held-out block's moments (`SSE = Syy - 2 w.Sxy + w^T Sxx w + n_t
//! (offset)^2`), so the path costs O(p^2) per sweep instead of O(n p). The
//! MSE values differ from a direct computation by rounding only (~1e-14
//! relative), far below the differences between neighbouring alphas.

use nalgebra::DMatrix;

use super::error::{LinearError, Result};
use super::moments::{combine, dot, Moments};
use super::ols::validate;
use super::stats::{mean, pairwise_sum_map};

/// scikit-learn's default `max_iter`.
pub const MAX_ITER: usize = 1000;
/// scikit-learn's default `tol`.
pub const TOL: f64 = 1e-4;
/// LassoCV folds.
pub const CV_FOLDS: usize = 10;
/// LassoCV path length.
pub const N_ALPHAS: usize = 100;

/// A fitted positive Lasso.
#[derive(Debug, Clone, PartialEq)]
pub struct LassoFit {
    /// `mean(y) - mean(X) . w`.
    pub intercept: f64,
    /// `w`, one per column, in column order.
    pub coefficients: Vec<f64>,
    /// Sweeps done.
    pub n_iter: usize,
    /// Duality gap at the last check.
    pub dual_gap: f64,
    /// False when `max_iter` sweeps ended without the gap below `tol`
    /// (scikit-learn's ConvergenceWarning).
    pub converged: bool,
}

/// A fitted LassoCV.
#[derive(Debug, Clone, PartialEq)]
pub struct LassoCvFit {
    /// The chosen alpha.
    pub alpha: f64,
    /// The path, decreasing.
    pub alphas: Vec<f64>,
    /// Held-out MSE, `mse_path[alpha][fold]`.
    pub mse_path: Vec<Vec<f64>>,
    /// The final fit with the chosen alpha.
    pub fit: LassoFit,
}

/// The fixed alpha of `LassoFixedLambda*`: `sqrt(n * log10(p)) / n`.
pub fn fixed_lambda_alpha(n: usize, p: usize) -> f64 {
    (n as f64 * (p as f64).log10()).sqrt() / n as f64
}

/// Outcome of a coordinate-descent run.
struct CdOutcome {
    gap: f64,
    n_iter: usize,
    converged: bool,
}

/// Soft-thresholded positive update `max(t - l1, 0) / norm` (0 when t < 0).
#[inline]
fn positive_update(tmp: f64, l1: f64, norm: f64) -> f64 {
    if tmp < 0.0 {
        0.0
    } else {
        let sign = if tmp > 0.0 { 1.0 } else { 0.0 };
        sign * (tmp.abs() - l1).max(0.0) / norm
    }
}

/// Duality gap from `max(XtA)`, `R.R`, `sum |w|` and `R.y` (sklearn form).
fn duality_gap(dual_norm: f64, r_norm2: f64, l1: f64, l1_norm: f64, r_dot_y: f64) -> f64 {
    let (konst, mut gap) = if dual_norm > l1 {
        let c = l1 / dual_norm;
        (c, 0.5 * (r_norm2 + r_norm2 * (c * c)))
    } else {
        (1.0, r_norm2)
    };
    gap += l1 * l1_norm - konst * r_dot_y;
    gap
}

/// Centred column `j` times `v`: `sum_i (x_ij - m_j) v_i`.
fn centered_dot(x: &[f64], m: f64, v: &[f64]) -> f64 {
    let mut s = [0.0f64; 4];
    let cx = x.chunks_exact(4);
    let cv = v.chunks_exact(4);
    let (rx, rv) = (cx.remainder(), cv.remainder());
    for (a, b) in cx.zip(cv) {
        for t in 0..4 {
            s[t] += (a[t] - m) * b[t];
        }
    }
    let mut tail = 0.0;
    for (a, b) in rx.iter().zip(rv) {
        tail += (a - m) * b;
    }
    (s[0] + s[1]) + (s[2] + s[3]) + tail
}

/// scikit-learn's `enet_coordinate_descent` (positive, l2 = 0) on columns
/// centred by `means` and the centred label `yc`; `w` starts at 0.
fn cd_plain(cols: &[&[f64]], means: &[f64], yc: &[f64], l1: f64, w: &mut [f64]) -> CdOutcome {
    let p = cols.len();
    let norms: Vec<f64> = (0..p)
        .map(|j| pairwise_sum_map(cols[j], |v| (v - means[j]) * (v - means[j])))
        .collect();
    let mut r = yc.to_vec();
    for j in 0..p {
        if w[j] != 0.0 {
            let (m, wj) = (means[j], w[j]);
            r.iter_mut()
                .zip(cols[j])
                .for_each(|(ri, &x)| *ri -= (x - m) * wj);
        }
    }
    let tol = TOL * dot(yc, yc);
    let mut out = CdOutcome {
        gap: tol + 1.0,
        n_iter: 0,
        converged: false,
    };
    for n_iter in 0..MAX_ITER {
        let (mut w_max, mut d_w_max) = (0.0f64, 0.0f64);
        for ii in 0..p {
            if norms[ii] == 0.0 {
                continue;
            }
            let (x, m, w_ii) = (cols[ii], means[ii], w[ii]);
            if w_ii != 0.0 {
                r.iter_mut()
                    .zip(x)
                    .for_each(|(ri, &v)| *ri += w_ii * (v - m));
            }
            let tmp = centered_dot(x, m, &r);
            w[ii] = positive_update(tmp, l1, norms[ii]);
            if w[ii] != 0.0 {
                let wn = -w[ii];
                r.iter_mut().zip(x).for_each(|(ri, &v)| *ri += wn * (v - m));
            }
            d_w_max = d_w_max.max((w[ii] - w_ii).abs());
            w_max = w_max.max(w[ii].abs());
        }
        out.n_iter = n_iter + 1;
        if w_max == 0.0 || d_w_max / w_max < TOL || n_iter == MAX_ITER - 1 {
            let dual = (0..p)
                .map(|j| centered_dot(cols[j], means[j], &r))
                .fold(f64::NEG_INFINITY, f64::max);
            let l1_norm: f64 = w.iter().map(|v| v.abs()).sum();
            out.gap = duality_gap(dual, dot(&r, &r), l1, l1_norm, dot(&r, yc));
            if out.gap < tol {
                out.converged = true;
                break;
            }
        }
    }
    out
}

/// scikit-learn's `enet_coordinate_descent_gram` (positive, l2 = 0) with
/// `Q = Xc^T Xc`, `q = Xc^T yc`, `y_norm2 = yc . yc`, warm-started from `w`.
fn cd_gram(qm: &DMatrix<f64>, q: &[f64], y_norm2: f64, l1: f64, w: &mut [f64]) -> CdOutcome {
    let p = q.len();
    let mut h: Vec<f64> = (0..p)
        .map(|i| (0..p).map(|j| qm[(i, j)] * w[j]).sum())
        .collect();
    let tol = TOL * y_norm2;
    let mut out = CdOutcome {
        gap: tol + 1.0,
        n_iter: 0,
        converged: false,
    };
    for n_iter in 0..MAX_ITER {
        let (mut w_max, mut d_w_max) = (0.0f64, 0.0f64);
        for ii in 0..p {
            if qm[(ii, ii)] == 0.0 {
                continue;
            }
            let w_ii = w[ii];
            if w_ii != 0.0 {
                h.iter_mut()
                    .enumerate()
                    .for_each(|(k, hk)| *hk -= w_ii * qm[(ii, k)]);
            }
            w[ii] = positive_update(q[ii] - h[ii], l1, qm[(ii, ii)]);
            if w[ii] != 0.0 {
                let wn = w[ii];
                h.iter_mut()
                    .enumerate()
                    .for_each(|(k, hk)| *hk += wn * qm[(ii, k)]);
            }
            d_w_max = d_w_max.max((w[ii] - w_ii).abs());
            w_max = w_max.max(w[ii].abs());
        }
        out.n_iter = n_iter + 1;
        if w_max == 0.0 || d_w_max / w_max < TOL || n_iter == MAX_ITER - 1 {
            let dual = (0..p)
                .map(|i| q[i] - h[i])
                .fold(f64::NEG_INFINITY, f64::max);
            let q_dot_w: f64 = w.iter().zip(q).map(|(a, b)| a * b).sum();
            let w_h: f64 = w.iter().zip(&h).map(|(a, b)| a * b).sum();
            let r_norm2 = y_norm2 + w_h - 2.0 * q_dot_w;
            let l1_norm: f64 = w.iter().map(|v| v.abs()).sum();
            // R . yc = y_norm2 - w . q in the Gram form.
            out.gap = duality_gap(dual, r_norm2, l1, l1_norm, y_norm2 - q_dot_w);
            if out.gap < tol {
                out.converged = true;
                break;
            }
        }
    }
    out
}

/// Positive Lasso with a given `alpha` on all rows (scikit-learn `Lasso(alpha,
/// positive=True).fit(X, y)`, dense coordinate descent from `w = 0`).
pub fn positive_lasso(cols: &[&[f64]], y: &[f64], alpha: f64) -> Result<LassoFit> {
    validate_lasso(cols, y)?;
    let means: Vec<f64> = cols.iter().map(|c| mean(c)).collect();
    let my = mean(y);
    let yc: Vec<f64> = y.iter().map(|v| v - my).collect();
    let mut w = vec![0.0; cols.len()];
    let out = cd_plain(cols, &means, &yc, alpha * y.len() as f64, &mut w);
    let intercept = my - means.iter().zip(&w).map(|(m, c)| m * c).sum::<f64>();
    Ok(LassoFit {
        intercept,
        coefficients: w,
        n_iter: out.n_iter,
        dual_gap: out.gap,
        converged: out.converged,
    })
}

fn validate_lasso(cols: &[&[f64]], y: &[f64]) -> Result<()> {
    // Lasso itself works with fewer rows than features, but every model
    // that uses it refits or reports like OLS: keep one rule for all.
    validate(cols, y, None)?;
    if cols.is_empty() {
        return Err(LinearError::Empty {
            what: "the feature list".into(),
        });
    }
    Ok(())
}

/// numpy `geomspace(start, stop, num)` as numpy computes it: `10^(k * step +
/// log10(start))` with `step = (log10(stop) - log10(start)) / (num - 1)`,
/// first and last exactly `start` and `stop`.
pub fn geomspace(start: f64, stop: f64, num: usize) -> Vec<f64> {
    let (ls, le) = (start.log10(), stop.log10());
    let step = (le - ls) / (num as f64 - 1.0);
    let mut v: Vec<f64> = (0..num).map(|k| 10f64.powf(k as f64 * step + ls)).collect();
    if num > 0 {
        v[0] = start;
    }
    if num > 1 {
        v[num - 1] = stop;
    }
    v
}

/// The LassoCV alpha grid: `amax = max_j |Xc_j . yc| / n`, then
/// `geomspace(amax, amax * 1e-3, 100)` (all `1e-15` when `amax <= 1e-15`).
pub fn alpha_grid(cols: &[&[f64]], y: &[f64]) -> Vec<f64> {
    let n = y.len() as f64;
    let my = mean(y);
    let yc: Vec<f64> = y.iter().map(|v| v - my).collect();
    let amax = cols
        .iter()
        .map(|c| centered_dot(c, mean(c), &yc).abs())
        .fold(0.0f64, f64::max)
        / n;
    if amax <= 1e-15 {
        return vec![1e-15; N_ALPHAS];
    }
    geomspace(amax, amax * 1e-3, N_ALPHAS)
}

/// KFold boundaries: `folds` contiguous blocks, the first `n % folds` one
/// row longer.
pub fn fold_bounds(n: usize, folds: usize) -> Vec<(usize, usize)> {
    let (base, extra) = (n / folds, n % folds);
    let mut start = 0;
    (0..folds)
        .map(|f| {
            let len = base + usize::from(f < extra);
            let b = (start, start + len);
            start += len;
            b
        })
        .collect()
}

/// Held-out MSE of `(b0, w)` on a block from its moments (label last).
fn heldout_mse(t: &Moments, b0: f64, w: &[f64]) -> f64 {
    let p = w.len();
    let g = &t.gram;
    let mut sse = g[(p, p)];
    for i in 0..p {
        sse -= 2.0 * w[i] * g[(i, p)];
        for j in 0..p {
            sse += w[i] * g[(i, j)] * w[j];
        }
    }
    let offset = t.means[p] - b0 - (0..p).map(|i| t.means[i] * w[i]).sum::<f64>();
    (sse + t.n as f64 * offset * offset) / t.n as f64
}

/// LassoCV(cv=10, positive=True) on columns in the order given.
pub fn positive_lasso_cv(cols: &[&[f64]], y: &[f64]) -> Result<LassoCvFit> {
    validate_lasso(cols, y)?;
    let n = y.len();
    if n < CV_FOLDS {
        return Err(LinearError::TooFewRowsForFolds {
            rows: n,
            folds: CV_FOLDS,
        });
    }
    let p = cols.len();
    let alphas = alpha_grid(cols, y);
    let bounds = fold_bounds(n, CV_FOLDS);
    let blocks: Vec<Moments> = bounds
        .iter()
        .map(|&(a, b)| {
            let mut sub: Vec<&[f64]> = cols.iter().map(|c| &c[a..b]).collect();
            sub.push(&y[a..b]);
            Moments::compute(&sub, None)
        })
        .collect();
    let mut mse_path = vec![vec![0.0; CV_FOLDS]; alphas.len()];
    for f in 0..CV_FOLDS {
        let train = blocks
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != f)
            .fold(None::<Moments>, |acc, (_, b)| {
                Some(match acc {
                    None => b.clone(),
                    Some(a) => combine(&a, b),
                })
            })
            .expect("at least two folds");
        let qm = train.gram.view((0, 0), (p, p)).into_owned();
        let q: Vec<f64> = (0..p).map(|j| train.gram[(j, p)]).collect();
        let y_norm2 = train.gram[(p, p)];
        let mut w = vec![0.0; p];
        for (k, &alpha) in alphas.iter().enumerate() {
            cd_gram(&qm, &q, y_norm2, alpha * train.n as f64, &mut w);
            let b0 = train.means[p] - (0..p).map(|j| train.means[j] * w[j]).sum::<f64>();
            mse_path[k][f] = heldout_mse(&blocks[f], b0, &w);
        }
    }
    let mut best = 0;
    let mut best_mse = f64::INFINITY;
    for (k, row) in mse_path.iter().enumerate() {
        let m = row.iter().sum::<f64>() / CV_FOLDS as f64;
        if m < best_mse {
            best_mse = m;
            best = k;
        }
    }
    let alpha = alphas[best];
    let fit = positive_lasso(cols, y, alpha)?;
    Ok(LassoCvFit {
        alpha,
        alphas,
        mse_path,
        fit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_feature_closed_form() {
        // One centred feature: w = max(xc.yc - n alpha, 0) / xc.xc.
        // x = 1,2,3 (xc = -1,0,1, xc.xc = 2), y = 1,3,2 (yc = -1,1,0, xc.yc = 1).
        let x = [1.0, 2.0, 3.0];
        let y = [1.0, 3.0, 2.0];
        let f = positive_lasso(&[&x], &y, 0.1).unwrap();
        assert!((f.coefficients[0] - (1.0 - 0.3) / 2.0).abs() < 1e-15);
        assert!((f.intercept - (2.0 - 2.0 * 0.35)).abs() < 1e-15);
        assert!(f.converged);
        // alpha above xc.yc / n = 1/3: w = 0, intercept = mean(y).
        let f = positive_lasso(&[&x], &y, 0.5).unwrap();
        assert_eq!(f.coefficients[0], 0.0);
        assert_eq!(f.intercept, 2.0);
        // A negative association is cut to 0 by positivity.
        let f = positive_lasso(&[&x], &[3.0, 1.0, 2.0], 0.0).unwrap();
        assert_eq!(f.coefficients[0], 0.0);
    }

    #[test]
    fn gram_and_plain_agree() {
        let n = 60;
        let x1: Vec<f64> = (0..n).map(|i| ((i * 7) % 11) as f64).collect();
        let x2: Vec<f64> = (0..n).map(|i| ((i * 5) % 13) as f64 * 0.5).collect();
        let y: Vec<f64> = (0..n)
            .map(|i| x1[i] * 0.3 + x2[i] * 0.2 + ((i * 3) % 5) as f64)
            .collect();
        let alpha = 0.05;
        let plain = positive_lasso(&[&x1, &x2], &y, alpha).unwrap();
        let mom = Moments::compute(&[&x1, &x2, &y], None);
        let qm = mom.gram.view((0, 0), (2, 2)).into_owned();
        let q = [mom.gram[(0, 2)], mom.gram[(1, 2)]];
        let mut w = vec![0.0; 2];
        cd_gram(&qm, &q, mom.gram[(2, 2)], alpha * n as f64, &mut w);
        for j in 0..2 {
            assert!(
                (w[j] - plain.coefficients[j]).abs() < 1e-10,
                "{w:?} {plain:?}"
            );
        }
    }

    #[test]
    fn grid_folds_and_alpha() {
        let g = geomspace(1.0, 1e-3, 4);
        assert_eq!(g[0], 1.0);
        assert_eq!(g[3], 1e-3);
        assert!((g[1] - 0.1).abs() < 1e-15 && (g[2] - 0.01).abs() < 1e-16);
        assert_eq!(fold_bounds(23, 10)[..4], [(0, 3), (3, 6), (6, 9), (9, 11)]);
        assert_eq!(fold_bounds(23, 10)[9], (21, 23));
        // n = 500, p = 8: sqrt(500 * log10 8) / 500.
        let a = fixed_lambda_alpha(500, 8);
        assert!((a - (500.0 * 8f64.log10()).sqrt() / 500.0).abs() < 1e-18);
        assert_eq!(fixed_lambda_alpha(10, 1), 0.0);
    }

    #[test]
    fn heldout_mse_matches_direct() {
        let x: Vec<f64> = (0..7).map(|i| (i * i) as f64 * 0.5).collect();
        let y: Vec<f64> = (0..7).map(|i| (i as f64).sin()).collect();
        let t = Moments::compute(&[&x, &y], None);
        let (b0, w) = (0.3, [0.7]);
        let direct: f64 = x
            .iter()
            .zip(&y)
            .map(|(a, b)| (b - b0 - w[0] * a).powi(2))
            .sum::<f64>()
            / 7.0;
        assert!((heldout_mse(&t, b0, &w) - direct).abs() < 1e-12);
    }

    #[test]
    fn cv_needs_ten_rows() {
        let x = [1.0, 2.0, 3.0, 4.0];
        let e = positive_lasso_cv(&[&x], &[1.0, 2.0, 2.0, 3.0]).unwrap_err();
        assert_eq!(e, LinearError::TooFewRowsForFolds { rows: 4, folds: 10 });
    }
}
