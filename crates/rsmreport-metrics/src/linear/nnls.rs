//! Non-negative least squares, `argmin ||A x - b||` subject to `x >= 0`:
//! a line-by-line port of scipy 1.17's `scipy.optimize.nnls` (the C
//! translation of Lawson and Hanson's NNLS: active set, Householder
//! triangularisation with LAPACK `dlarfgp`/`dlarf`, Givens rotations with
//! `dlartgp` when a variable leaves the passive set, `maxiter = 3 x
//! columns`, "maximum number of iterations" as an error).
//!
//! The solution of NNLS depends on `A` only through `A^T A` and `A^T b`, so
//! `nnls_from_moments` (crate-internal, used by the NNLR models) runs the
//! same algorithm on the small triangular problem `(R, c)` with
//! `R^T R = A^T A` and `R^T c = A^T b` (from the centred
//! cross-products of the data, O(p^2) memory): identical iterates in exact
//! arithmetic, O(p^3) work instead of O(n p^2). One quirk of the scipy port
//! cannot carry over: when a candidate column is rejected (near-dependent or
//! non-positive trial value), scipy leaves that column's Householder vector
//! scaled in place; it only matters for degenerate designs.

use nalgebra::{Cholesky, DMatrix, DVector};

use super::error::{LinearError, Result};
use super::moments::{tall_r_factor, Moments};

/// Result of [`nnls`].
#[derive(Debug, Clone, PartialEq)]
pub struct NnlsSolution {
    /// The solution, one value per column of `A`.
    pub x: Vec<f64>,
    /// Euclidean norm of the residual of the (reduced) problem.
    pub rnorm: f64,
}

/// Solves NNLS for the `m x n` column-major matrix `a` (`a[i + j*m]`) and
/// right-hand side `b` (both are overwritten copies internally).
pub fn nnls(a: &[f64], m: usize, n: usize, b: &[f64]) -> Result<NnlsSolution> {
    if a.len() != m * n || b.len() != m {
        return Err(LinearError::LengthMismatch {
            what: "NNLS system".into(),
            expected: m * n,
            found: a.len(),
        });
    }
    if m == 0 || n == 0 {
        return Err(LinearError::Empty {
            what: "the NNLS system".into(),
        });
    }
    let mut st = State {
        a: a.to_vec(),
        b: b.to_vec(),
        m,
        n,
        x: vec![0.0; n],
        w: vec![0.0; n],
        zz: vec![0.0; m],
        indices: (0..n).collect(),
    };
    let maxiter = 3 * n;
    let indz = st.run(maxiter)?;
    let rnorm = if indz < m { nrm2(&st.b[indz..]) } else { 0.0 };
    Ok(NnlsSolution { x: st.x, rnorm })
}

struct State {
    a: Vec<f64>,
    b: Vec<f64>,
    m: usize,
    n: usize,
    x: Vec<f64>,
    w: Vec<f64>,
    zz: Vec<f64>,
    indices: Vec<usize>,
}

impl State {
    /// The outer loop; returns the size of the passive set at the end.
    fn run(&mut self, maxiter: usize) -> Result<usize> {
        let (m, n) = (self.m, self.n);
        let mut indz = 0usize;
        let mut iteration = 0usize;
        while indz < m.min(n) {
            for i in indz..n {
                let j = self.indices[i];
                self.w[j] = dot(&self.a[indz + j * m..(j + 1) * m], &self.b[indz..m]);
            }
            let Some((iz, j, pivot, tau)) = self.select_column(indz) else {
                return Ok(indz);
            };
            self.b.copy_from_slice(&self.zz);
            self.indices[iz] = self.indices[indz];
            self.indices[indz] = j;
            indz += 1;
            if indz < n {
                let len = m - indz + 1;
                for k in indz..n {
                    let jj = self.indices[k];
                    let (v, c) = two_columns(&mut self.a, m, j, jj, indz - 1, len);
                    dlarf(v, tau, c);
                }
            }
            self.a[indz - 1 + j * m] = pivot;
            for i in indz..m {
                self.a[j * m + i] = 0.0;
            }
            self.w[j] = 0.0;
            self.zz.copy_from_slice(&self.b);
            self.back_substitute(indz);
            indz = self.inner_loop(indz, &mut iteration, maxiter)?;
            for k in 0..indz {
                let i = self.indices[k];
                self.x[i] = self.zz[k];
            }
        }
        Ok(indz)
    }

    /// Finds the next column to move into the passive set (largest dual
    /// value that is independent and gives a positive trial value); leaves
    /// the transformed `b` in `zz`. `None` = KKT conditions hold.
    fn select_column(&mut self, indz: usize) -> Option<(usize, usize, f64, f64)> {
        let m = self.m;
        loop {
            let mut wmax = 0.0;
            let mut izmax = 0;
            for k in indz..self.n {
                let j = self.indices[k];
                if self.w[j] > wmax {
                    wmax = self.w[j];
                    izmax = k;
                }
            }
            if wmax <= 0.0 {
                return None;
            }
            let iz = izmax;
            let j = self.indices[iz];
            let mut pivot = self.a[indz + j * m];
            let tau = dlarfgp(&mut pivot, &mut self.a[indz + 1 + j * m..(j + 1) * m]);
            let unorm = if indz > 0 {
                nrm2(&self.a[j * m..j * m + indz])
            } else {
                0.0
            };
            let spacing = if unorm > 0.0 {
                next_up(unorm) - unorm
            } else {
                0.0
            };
            if pivot.abs() > 100.0 * spacing {
                self.zz.copy_from_slice(&self.b);
                let pivot2 = self.a[indz + j * m];
                self.a[indz + j * m] = 1.0;
                dlarf(
                    &self.a[indz + j * m..(j + 1) * m],
                    tau,
                    &mut self.zz[indz..m],
                );
                let ztest = self.zz[indz] / pivot;
                if ztest > 0.0 {
                    return Some((iz, j, pivot, tau));
                }
                self.a[indz + j * m] = pivot2;
            }
            self.w[j] = 0.0;
        }
    }

    /// Solves the permuted triangular system of the passive set into `zz`.
    fn back_substitute(&mut self, indz: usize) {
        let m = self.m;
        let mut jj = 0usize;
        for k in 0..indz {
            let ip = indz - 1 - k;
            if k != 0 {
                let z = self.zz[ip + 1];
                for i in 0..=ip {
                    self.zz[i] -= self.a[i + jj * m] * z;
                }
            }
            jj = self.indices[ip];
            self.zz[ip] /= self.a[ip + jj * m];
        }
    }

    /// The inner loop: moves infeasible variables back to the active set;
    /// returns the new passive-set size.
    fn inner_loop(
        &mut self,
        mut indz: usize,
        iteration: &mut usize,
        maxiter: usize,
    ) -> Result<usize> {
        loop {
            *iteration += 1;
            if *iteration >= maxiter {
                return Err(LinearError::NnlsMaxIterations { maxiter });
            }
            let mut alpha = 2.0;
            let mut jj = 0usize;
            for ip in 0..indz {
                let k = self.indices[ip];
                if self.zz[ip] <= 0.0 {
                    let t = -self.x[k] / (self.zz[ip] - self.x[k]);
                    if alpha > t {
                        alpha = t;
                        jj = ip;
                    }
                }
            }
            if alpha == 2.0 {
                return Ok(indz);
            }
            for ip in 0..indz {
                let k = self.indices[ip];
                self.x[k] += alpha * (self.zz[ip] - self.x[k]);
            }
            indz = self.drop_infeasible(indz, jj);
            self.zz.copy_from_slice(&self.b);
            self.back_substitute(indz);
        }
    }

    /// Moves passive variable at position `jj` (and any other non-positive
    /// one) to the active set, restoring the triangular form by rotations.
    fn drop_infeasible(&mut self, mut indz: usize, mut jj: usize) -> usize {
        let (m, n) = (self.m, self.n);
        let mut i = self.indices[jj];
        loop {
            self.x[i] = 0.0;
            if jj != indz - 1 {
                jj += 1;
                for j in jj..indz {
                    let ii = self.indices[j];
                    self.indices[j - 1] = ii;
                    let (cc, ss, r) = dlartgp(self.a[j - 1 + ii * m], self.a[j + ii * m]);
                    self.a[j - 1 + ii * m] = r;
                    self.a[j + ii * m] = 0.0;
                    for k in 0..n {
                        if k != ii {
                            let tmp = self.a[j - 1 + k * m];
                            self.a[j - 1 + k * m] = cc * tmp + ss * self.a[j + k * m];
                            self.a[j + k * m] = -ss * tmp + cc * self.a[j + k * m];
                        }
                    }
                    let tmp = self.b[j - 1];
                    self.b[j - 1] = cc * tmp + ss * self.b[j];
                    self.b[j] = -ss * tmp + cc * self.b[j];
                }
            }
            indz -= 1;
            self.indices[indz] = i;
            match (0..indz).find(|&p| self.x[self.indices[p]] <= 0.0) {
                Some(p) => {
                    jj = p;
                    i = self.indices[p];
                }
                None => return indz,
            }
        }
    }
}

/// Mutable views of rows `from .. from+len` of column `jj` and read-only
/// rows of column `j` (distinct columns).
fn two_columns(
    a: &mut [f64],
    m: usize,
    j: usize,
    jj: usize,
    from: usize,
    len: usize,
) -> (&[f64], &mut [f64]) {
    debug_assert_ne!(j, jj);
    if j < jj {
        let (lo, hi) = a.split_at_mut(jj * m);
        (
            &lo[j * m + from..j * m + from + len],
            &mut hi[from..from + len],
        )
    } else {
        let (lo, hi) = a.split_at_mut(j * m);
        (
            &hi[from..from + len],
            &mut lo[jj * m + from..jj * m + from + len],
        )
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Euclidean norm with scaling (no overflow for large entries).
fn nrm2(x: &[f64]) -> f64 {
    let scale = x.iter().fold(0.0f64, |s, v| s.max(v.abs()));
    if scale == 0.0 || !scale.is_finite() {
        return scale;
    }
    let ssq: f64 = x.iter().map(|v| (v / scale) * (v / scale)).sum();
    scale * ssq.sqrt()
}

/// The next representable value above a positive finite `v` (C `nextafter`).
fn next_up(v: f64) -> f64 {
    f64::from_bits(v.to_bits() + 1)
}

/// `sqrt(x^2 + y^2)` without overflow (LAPACK `dlapy2`).
fn dlapy2(x: f64, y: f64) -> f64 {
    let (xa, ya) = (x.abs(), y.abs());
    let w = xa.max(ya);
    let z = xa.min(ya);
    if z == 0.0 || w > f64::MAX {
        w
    } else {
        w * (1.0 + (z / w) * (z / w)).sqrt()
    }
}

/// LAPACK `dlarfgp`: reflector `H` with `H [alpha; x] = [beta; 0]`,
/// `beta >= 0`; overwrites `alpha` with `beta` and `x` with `v`, returns `tau`.
fn dlarfgp(alpha: &mut f64, x: &mut [f64]) -> f64 {
    let xnorm = nrm2(x);
    if xnorm == 0.0 {
        if *alpha >= 0.0 {
            return 0.0;
        }
        x.iter_mut().for_each(|v| *v = 0.0);
        *alpha = -*alpha;
        return 2.0;
    }
    let safmin = f64::MIN_POSITIVE;
    let smlnum = safmin / (f64::EPSILON * 0.5);
    let mut beta = dlapy2(*alpha, xnorm).copysign(*alpha);
    let mut knt = 0;
    let mut xnorm = xnorm;
    if beta.abs() < smlnum {
        let rsmlnm = 1.0 / smlnum;
        loop {
            knt += 1;
            x.iter_mut().for_each(|v| *v *= rsmlnm);
            beta *= rsmlnm;
            *alpha *= rsmlnm;
            if beta.abs() >= smlnum || knt >= 20 {
                break;
            }
        }
        xnorm = nrm2(x);
        beta = dlapy2(*alpha, xnorm).copysign(*alpha);
    }
    let savealpha = *alpha;
    *alpha += beta;
    let tau;
    if beta < 0.0 {
        beta = -beta;
        tau = -*alpha / beta;
    } else {
        *alpha = xnorm * (xnorm / *alpha);
        tau = *alpha / beta;
        *alpha = -*alpha;
    }
    let tau = if tau.abs() <= smlnum {
        if savealpha >= 0.0 {
            0.0
        } else {
            x.iter_mut().for_each(|v| *v = 0.0);
            beta = -savealpha;
            2.0
        }
    } else {
        let s = 1.0 / *alpha;
        x.iter_mut().for_each(|v| *v *= s);
        tau
    };
    for _ in 0..knt {
        beta *= smlnum;
    }
    *alpha = beta;
    tau
}

/// LAPACK `dlarf` from the left on one column: `c -= tau * v (v . c)`.
fn dlarf(v: &[f64], tau: f64, c: &mut [f64]) {
    if tau == 0.0 {
        return;
    }
    let w = dot(v, c);
    for (ci, &vi) in c.iter_mut().zip(v) {
        *ci -= tau * vi * w;
    }
}

/// LAPACK `dlartgp`: rotation `(cs, sn, r)` with `r >= 0` and
/// `[cs sn; -sn cs] [f; g] = [r; 0]`.
fn dlartgp(f: f64, g: f64) -> (f64, f64, f64) {
    if g == 0.0 {
        return (1f64.copysign(f), 0.0, f.abs());
    }
    if f == 0.0 {
        return (0.0, 1f64.copysign(g), g.abs());
    }
    let safmn2 = 2f64.powi(-484);
    let safmx2 = 1.0 / safmn2;
    let (mut f1, mut g1) = (f, g);
    let mut scale = f1.abs().max(g1.abs());
    let mut count = 0;
    let mut factor = 1.0;
    if scale >= safmx2 {
        while scale >= safmx2 && count < 20 {
            count += 1;
            f1 *= safmn2;
            g1 *= safmn2;
            scale = f1.abs().max(g1.abs());
        }
        factor = safmx2;
    } else if scale <= safmn2 {
        while scale <= safmn2 && count < 20 {
            count += 1;
            f1 *= safmx2;
            g1 *= safmx2;
            scale = f1.abs().max(g1.abs());
        }
        factor = safmn2;
    }
    let mut r = (f1 * f1 + g1 * g1).sqrt();
    let (mut cs, mut sn) = (f1 / r, g1 / r);
    for _ in 0..count {
        r *= factor;
    }
    if r < 0.0 {
        cs = -cs;
        sn = -sn;
        r = -r;
    }
    (cs, sn, r)
}

/// NNLS of `y` on `[s, X]` (`s = +1` or `-1` times a column of ones, then
/// the feature columns) from the moments of `[X, y]`: builds `R` with
/// `R^T R = A^T A` (Cholesky of the unit-diagonal cross-product matrix
/// assembled from centred moments; a blocked QR of the data when that
/// fails) and `c = R^-T A^T y`, then runs [`nnls`] on `(R, c)`.
pub(crate) fn nnls_from_moments(
    cols: &[&[f64]],
    y: &[f64],
    mom: &Moments,
    intercept_sign: f64,
) -> Result<NnlsSolution> {
    let p = cols.len();
    let k = p + 1;
    let nf = mom.n as f64;
    let s = intercept_sign;
    let m = &mom.means;
    // A^T A and A^T y from centred moments (no cancellation).
    let ata = DMatrix::from_fn(k, k, |i, j| match (i, j) {
        (0, 0) => nf,
        (0, j) => s * nf * m[j - 1],
        (i, 0) => s * nf * m[i - 1],
        (i, j) => mom.gram[(i - 1, j - 1)] + nf * m[i - 1] * m[j - 1],
    });
    let aty = DVector::from_fn(k, |i, _| match i {
        0 => s * nf * m[p],
        i => mom.gram[(i - 1, p)] + nf * m[i - 1] * m[p],
    });
    let d: Vec<f64> = (0..k).map(|i| ata[(i, i)].sqrt()).collect();
    let scaled = DMatrix::from_fn(k, k, |i, j| ata[(i, j)] / (d[i] * d[j]));
    let r = match Cholesky::new(scaled).filter(|_| d.iter().all(|&v| v > 0.0)) {
        Some(ch) => {
            let l = ch.l();
            DMatrix::from_fn(k, k, |i, j| l[(j, i)] * d[j])
        }
        None => {
            let ones = vec![s; y.len()];
            let mut all: Vec<&[f64]> = vec![&ones];
            all.extend_from_slice(cols);
            tall_r_factor(&all, &vec![0.0; k], None)
        }
    };
    // c solves R^T c = A^T y (R upper triangular, possibly singular: fall
    // back to zero where a diagonal entry vanishes).
    let mut c = vec![0.0; k];
    for i in 0..k {
        let acc = aty[i] - (0..i).map(|t| r[(t, i)] * c[t]).sum::<f64>();
        c[i] = if r[(i, i)] != 0.0 {
            acc / r[(i, i)]
        } else {
            0.0
        };
    }
    let a: Vec<f64> = r.iter().copied().collect(); // column-major
    nnls(&a, k, k, &c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scipy_docstring_examples() {
        // A = [[1,0],[1,0],[0,1]], b = [2,1,1] -> x = [1.5, 1], rnorm = sqrt(0.5).
        let a = [1.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        let s = nnls(&a, 3, 2, &[2.0, 1.0, 1.0]).unwrap();
        assert!((s.x[0] - 1.5).abs() < 1e-15 && (s.x[1] - 1.0).abs() < 1e-15);
        assert!((s.rnorm - 0.5f64.sqrt()).abs() < 1e-15);
        // b = [-1,-1,-1] -> x = 0, rnorm = sqrt(3).
        let s = nnls(&a, 3, 2, &[-1.0, -1.0, -1.0]).unwrap();
        assert_eq!(s.x, vec![0.0, 0.0]);
        assert!((s.rnorm - 3f64.sqrt()).abs() < 1e-15);
    }

    #[test]
    fn constraint_binds_by_hand() {
        // A = I(2) stacked: columns e1+e3, e2; b = (1, -1, 1): unconstrained
        // x = (1, -1); with x >= 0: x = (1, 0), residual (0, -1, 0).
        let a = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0];
        let s = nnls(&a, 3, 2, &[1.0, -1.0, 1.0]).unwrap();
        assert!((s.x[0] - 1.0).abs() < 1e-15);
        assert_eq!(s.x[1], 0.0);
        assert!((s.rnorm - 1.0).abs() < 1e-15);
    }

    #[test]
    fn leaving_variable_path() {
        // Columns (1,1,0), (1,0,1), (0,0,1) with b = (2,1,-1): the
        // unconstrained optimum has a negative third coefficient; NNLS must
        // drop it after letting it in or never admit it. The NNLS optimum:
        // minimise over x1, x2 >= 0 of (x1+x2-2)^2 + (x1-1)^2 + (x2+x3+1)^2
        // with x3 >= 0 -> x3 = 0, x2 = 0 (gradient positive), x1 = 1.5.
        let a = [1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0];
        let s = nnls(&a, 3, 3, &[2.0, 1.0, -1.0]).unwrap();
        assert!((s.x[0] - 1.5).abs() < 1e-14, "{:?}", s.x);
        assert_eq!(s.x[1], 0.0);
        assert_eq!(s.x[2], 0.0);
    }

    #[test]
    fn rotations_and_reflectors() {
        let (c, s, r) = dlartgp(3.0, 4.0);
        assert!((c - 0.6).abs() < 1e-16 && (s - 0.8).abs() < 1e-16 && (r - 5.0).abs() < 1e-15);
        let (c, s, r) = dlartgp(-3.0, 0.0);
        assert_eq!((c, s, r), (-1.0, 0.0, 3.0));
        // Reflector of (3, 4): beta = 5, v = (1, 4 / (3 - 5))... H [3;4] = [5;0].
        let mut alpha = 3.0;
        let mut x = [4.0];
        let tau = dlarfgp(&mut alpha, &mut x);
        assert!((alpha - 5.0).abs() < 1e-15);
        let v = [1.0, x[0]];
        let mut col = [3.0, 4.0];
        dlarf(&v, tau, &mut col);
        assert!((col[0] - 5.0).abs() < 1e-14 && col[1].abs() < 1e-14);
    }

    #[test]
    fn reduced_problem_matches_full() {
        let n = 40;
        let x1: Vec<f64> = (0..n).map(|i| ((i * 7) % 11) as f64 - 5.0).collect();
        let x2: Vec<f64> = (0..n).map(|i| ((i * 5) % 13) as f64 * 0.3).collect();
        let y: Vec<f64> = (0..n)
            .map(|i| 2.0 + 0.5 * x1[i] - 0.7 * x2[i] + ((i * 3) % 7) as f64 * 0.1)
            .collect();
        let mut a = vec![1.0; n];
        a.extend_from_slice(&x1);
        a.extend_from_slice(&x2);
        let full = nnls(&a, n, 3, &y).unwrap();
        let mom = Moments::compute(&[&x1, &x2, &y], None);
        let red = nnls_from_moments(&[&x1, &x2], &y, &mom, 1.0).unwrap();
        assert_eq!(full.x[2], 0.0);
        for (f, r) in full.x.iter().zip(&red.x) {
            assert!((f - r).abs() < 1e-12, "{:?} vs {:?}", full.x, red.x);
        }
    }

    #[test]
    fn maxiter_is_an_error_type() {
        let e = LinearError::NnlsMaxIterations { maxiter: 6 };
        assert!(e.to_string().contains('6'));
    }
}
