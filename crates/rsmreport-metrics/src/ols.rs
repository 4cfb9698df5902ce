//! Stage 4 (metrics): ordinary least squares, equivalent to statsmodels
//! `OLS(y, X).fit()` with its default `pinv` method. The Student t and
//! Fisher F tail functions the fits need are in [`super::distributions`]
//! (re-exported here).
//!
//! Pure maths on `f64` slices and small matrices: no I/O, no tables, no
//! formatting; this file must not touch files, frames or report code.
//! Degenerate inputs (rank deficiency, constant response, zero residual
//! degrees of freedom, empty designs, non-finite values) never panic: the
//! affected quantities are `NaN`.
//!
//! Two entry points share one solver:
//!
//! * [`ols`]: a dense design ([`Design`], one `Vec<f64>` per column);
//! * [`ols_grouped`]: data given as *cells*, i.e. distinct design rows with
//!   the count, mean and within-cell sum of squares of the response of the
//!   observations sharing that row. For designs made of dummies (every
//!   observation's row is one of a few patterns) this gives the fit of the
//!   full data set from sufficient statistics, without an `N x k` matrix.
//!
//! Solver, matching statsmodels: `beta = pinv(X) y` with `pinv` from the SVD
//! of `X`, singular values `<= 1e-15 * max` treated as zero
//! (`pinv_extended(rcond=1e-15)`); `normalized_cov = pinv(X) pinv(X)'`;
//! `rank` = numpy `matrix_rank(X)` (singular values `> max * max(n, k) *
//! eps`); `df_resid = n - rank`; `df_model = rank - k_constant`, where
//! `k_constant` is 1 when some column is constant and non-zero (an
//! intercept). For the grouped form the SVD is taken of `W^(1/2) R` (`R` the
//! cell rows, `W` the cell counts), which has the same singular values and
//! right singular vectors as the expanded `X`, so rank, `pinv` solution and
//! covariance are those of the expanded data.
//!
//! Numerics: when the design has full column rank the (then unique)
//! solution is computed from the column-equilibrated matrix, and one step of
//! iterative refinement is applied; NIST StRD Norris, Longley and Pontius
//! are reproduced to better than 1e-8 (tests below).

use super::distributions::{f_sf, t_ppf, t_two_sided_p};
use nalgebra::{DMatrix, DVector};

/// Relative cut-off for the pseudo-inverse (statsmodels `pinv_extended`).
pub const PINV_RCOND: f64 = 1e-15;

/// A dense design matrix stored by columns, with column names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Design {
    nrows: usize,
    names: Vec<String>,
    columns: Vec<Vec<f64>>,
}

impl Design {
    /// An empty design (no columns) for `nrows` observations.
    pub fn new(nrows: usize) -> Self {
        Design {
            nrows,
            names: Vec::new(),
            columns: Vec::new(),
        }
    }

    /// A design whose first column is `Intercept` (all ones).
    pub fn with_intercept(nrows: usize) -> Self {
        let mut d = Design::new(nrows);
        d.push("Intercept", vec![1.0; nrows]);
        d
    }

    /// Appends a column. A column whose length differs from `nrows` makes
    /// the design invalid: [`ols`] then returns an all-`NaN` fit.
    pub fn push(&mut self, name: impl Into<String>, values: Vec<f64>) -> &mut Self {
        self.names.push(name.into());
        self.columns.push(values);
        self
    }

    /// Appends treatment (dummy) columns for a categorical variable:
    /// `codes[i]` is the level of observation `i` in `0..names.len()`; level
    /// 0 is the reference and gets no column; level `j >= 1` gets a 0/1
    /// column named `names[j]`. Codes out of range give all-zero rows.
    pub fn push_treatment(&mut self, codes: &[usize], names: &[String]) -> &mut Self {
        for (j, name) in names.iter().enumerate().skip(1) {
            let col = codes
                .iter()
                .map(|&c| if c == j { 1.0 } else { 0.0 })
                .collect();
            self.push(name.clone(), col);
        }
        self
    }

    pub fn nrows(&self) -> usize {
        self.nrows
    }

    pub fn ncols(&self) -> usize {
        self.columns.len()
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    pub fn column(&self, j: usize) -> &[f64] {
        &self.columns[j]
    }

    fn is_consistent(&self) -> bool {
        self.columns.iter().all(|c| c.len() == self.nrows)
    }

    /// The design as an `n x k` matrix.
    pub fn matrix(&self) -> DMatrix<f64> {
        DMatrix::from_fn(self.nrows, self.columns.len(), |i, j| self.columns[j][i])
    }
}

/// One cell of grouped data for [`ols_grouped`]: `n` observations share the
/// same design row; their response has mean `mean` and within-cell sum of
/// squared deviations from that mean `within_ss`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellStats {
    pub n: usize,
    pub mean: f64,
    pub within_ss: f64,
}

impl CellStats {
    /// Pools cells (same response, different rows) into one: exact
    /// combination of counts, means and sums of squares.
    pub fn pool(cells: impl IntoIterator<Item = CellStats>) -> CellStats {
        let cells: Vec<CellStats> = cells.into_iter().filter(|c| c.n > 0).collect();
        let n: usize = cells.iter().map(|c| c.n).sum();
        if n == 0 {
            return CellStats {
                n: 0,
                mean: f64::NAN,
                within_ss: f64::NAN,
            };
        }
        let mean = cells.iter().map(|c| c.n as f64 * c.mean).sum::<f64>() / n as f64;
        let within_ss = cells
            .iter()
            .map(|c| c.within_ss + c.n as f64 * (c.mean - mean).powi(2))
            .sum();
        CellStats { n, mean, within_ss }
    }
}

/// The result of a fit; field names follow statsmodels' `RegressionResults`.
#[derive(Clone, Debug, PartialEq)]
pub struct OlsFit {
    /// Column names, in design order.
    pub names: Vec<String>,
    pub params: Vec<f64>,
    /// Standard errors `sqrt(diag(scale * normalized_cov))`.
    pub bse: Vec<f64>,
    pub tvalues: Vec<f64>,
    /// Two-sided p-values of the t tests (`df_resid` degrees of freedom).
    pub pvalues: Vec<f64>,
    /// Lower 95% confidence bounds `params - t_{0.975, df_resid} * bse`.
    pub conf_low: Vec<f64>,
    /// Upper 95% confidence bounds `params + t_{0.975, df_resid} * bse`.
    pub conf_high: Vec<f64>,
    /// `pinv(X) pinv(X)'` (`k x k`).
    pub normalized_cov: DMatrix<f64>,
    pub nobs: usize,
    pub rank: usize,
    /// 1 when the design has a constant non-zero column, else 0.
    pub k_constant: usize,
    pub df_model: f64,
    pub df_resid: f64,
    /// Sum of squared residuals.
    pub ssr: f64,
    /// Total sum of squares: centred when `k_constant == 1`, else uncentred.
    pub tss: f64,
    /// Explained sum of squares `tss - ssr`.
    pub ess: f64,
    pub r2: f64,
    pub r2_adj: f64,
    /// Residual variance `ssr / df_resid`.
    pub scale: f64,
    /// Overall F statistic `(ess / df_model) / (ssr / df_resid)`.
    pub fvalue: f64,
    /// Its p-value; `NaN` when `df_model == 0`.
    pub f_pvalue: f64,
}

impl OlsFit {
    /// A fit where every number is `NaN` (invalid or empty input).
    pub fn nan(names: Vec<String>, nobs: usize) -> Self {
        let k = names.len();
        let nan = vec![f64::NAN; k];
        OlsFit {
            names,
            params: nan.clone(),
            bse: nan.clone(),
            tvalues: nan.clone(),
            pvalues: nan.clone(),
            conf_low: nan.clone(),
            conf_high: nan,
            normalized_cov: DMatrix::from_element(k, k, f64::NAN),
            nobs,
            rank: 0,
            k_constant: 0,
            df_model: f64::NAN,
            df_resid: f64::NAN,
            ssr: f64::NAN,
            tss: f64::NAN,
            ess: f64::NAN,
            r2: f64::NAN,
            r2_adj: f64::NAN,
            scale: f64::NAN,
            fvalue: f64::NAN,
            f_pvalue: f64::NAN,
        }
    }

    /// Residual standard deviation `sqrt(scale)`.
    pub fn resid_sd(&self) -> f64 {
        self.scale.sqrt()
    }
}

/// Fits `y ~ X` by ordinary least squares (statsmodels `OLS(y, X).fit()`).
pub fn ols(design: &Design, y: &[f64]) -> OlsFit {
    let names = design.names.clone();
    let (n, k) = (design.nrows, design.ncols());
    if k == 0 || n == 0 || y.len() != n || !design.is_consistent() {
        return OlsFit::nan(names, n);
    }
    let finite =
        y.iter().all(|v| v.is_finite()) && design.columns.iter().flatten().all(|v| v.is_finite());
    if !finite {
        return OlsFit::nan(names, n);
    }
    let x = design.matrix();
    let yv = DVector::from_column_slice(y);
    let Some(sol) = pinv_solve(&x, &yv, n) else {
        return OlsFit::nan(names, n);
    };
    let mut beta = sol.beta.clone();
    // One step of iterative refinement: the correction lies in the row space
    // of X, so the result is still the minimum-norm (pinv) solution.
    let resid = &yv - &x * &beta;
    beta += sol.apply_pinv(&resid);
    let resid = &yv - &x * &beta;
    let ssr = resid.iter().map(|r| r * r).sum::<f64>();
    let k_constant = usize::from(design.columns.iter().any(|c| is_constant_nonzero(c)));
    let tss = if k_constant == 1 {
        let mean = y.iter().sum::<f64>() / n as f64;
        y.iter().map(|v| (v - mean).powi(2)).sum()
    } else {
        y.iter().map(|v| v * v).sum()
    };
    assemble(
        names,
        beta.as_slice().to_vec(),
        sol.cov,
        sol.rank,
        k_constant,
        n,
        ssr,
        tss,
    )
}

/// Fits OLS to grouped data: `rows` is `m x k` (one distinct design row per
/// cell), `cells[c]` the response statistics of the observations having row
/// `c`. The result is the fit of the expanded data set (`sum n` rows); cells
/// with `n == 0` are ignored.
pub fn ols_grouped(names: Vec<String>, rows: &DMatrix<f64>, cells: &[CellStats]) -> OlsFit {
    let k = rows.ncols();
    let nobs: usize = cells.iter().map(|c| c.n).sum();
    if k == 0
        || names.len() != k
        || rows.nrows() != cells.len()
        || nobs == 0
        || !rows.iter().all(|v| v.is_finite())
        || !cells
            .iter()
            .filter(|c| c.n > 0)
            .all(|c| c.mean.is_finite() && c.within_ss.is_finite())
    {
        return OlsFit::nan(names, nobs);
    }
    let used: Vec<usize> = (0..cells.len()).filter(|&c| cells[c].n > 0).collect();
    let m = used.len();
    let a = DMatrix::from_fn(m, k, |i, j| {
        (cells[used[i]].n as f64).sqrt() * rows[(used[i], j)]
    });
    let b = DVector::from_fn(m, |i, _| {
        (cells[used[i]].n as f64).sqrt() * cells[used[i]].mean
    });
    let Some(sol) = pinv_solve(&a, &b, nobs) else {
        return OlsFit::nan(names, nobs);
    };
    let mut beta = sol.beta.clone();
    let resid = &b - &a * &beta;
    beta += sol.apply_pinv(&resid);
    // SSR = within-cell part + weighted squared residuals of the cell means.
    let within: f64 = used.iter().map(|&c| cells[c].within_ss).sum();
    let fitted = rows * &beta;
    let between: f64 = used
        .iter()
        .map(|&c| cells[c].n as f64 * (cells[c].mean - fitted[c]).powi(2))
        .sum();
    let ssr = within + between;
    let k_constant = usize::from((0..k).any(|j| {
        let col: Vec<f64> = used.iter().map(|&c| rows[(c, j)]).collect();
        is_constant_nonzero(&col)
    }));
    let tss = if k_constant == 1 {
        CellStats::pool(used.iter().map(|&c| cells[c])).within_ss
    } else {
        within
            + used
                .iter()
                .map(|&c| cells[c].n as f64 * cells[c].mean.powi(2))
                .sum::<f64>()
    };
    assemble(
        names,
        beta.as_slice().to_vec(),
        sol.cov,
        sol.rank,
        k_constant,
        nobs,
        ssr,
        tss,
    )
}

/// p-value of the F test of a nested (restricted) model `null` against
/// `full` (statsmodels `full.compare_f_test(null)`):
/// `F = ((ssr_null - ssr_full) / (df_null - df_full)) / (ssr_full / df_full)`
/// with `df = df_resid`, from `F(df_null - df_full, df_full)`. `NaN` when
/// the degrees of freedom do not make a test (`df_null <= df_full`,
/// `df_full <= 0`) or the statistic is undefined.
pub fn nested_f_test(null: &OlsFit, full: &OlsFit) -> f64 {
    let df_full = full.df_resid;
    let df_diff = null.df_resid - df_full;
    if df_diff.is_nan() || df_diff <= 0.0 || df_full.is_nan() || df_full <= 0.0 {
        return f64::NAN;
    }
    let f = (null.ssr - full.ssr) / df_diff / full.ssr * df_full;
    f_sf(f, df_diff, df_full)
}

fn is_constant_nonzero(col: &[f64]) -> bool {
    match col.first() {
        Some(&v0) => v0 != 0.0 && col.iter().all(|&v| v == v0),
        None => false,
    }
}

/// The SVD-based pseudo-inverse of a design, kept factored.
struct PinvSolution {
    /// `V S^+` (`k x r`) and `U` (`m x r`) restricted to the kept singular values.
    vs: DMatrix<f64>,
    u: DMatrix<f64>,
    beta: DVector<f64>,
    cov: DMatrix<f64>,
    rank: usize,
}

impl PinvSolution {
    fn apply_pinv(&self, b: &DVector<f64>) -> DVector<f64> {
        &self.vs * (self.u.transpose() * b)
    }
}

/// `pinv(a) b` with statsmodels' cut-off, `pinv(a) pinv(a)'` and numpy's
/// `matrix_rank` of a matrix with `rank_rows` rows and `a`'s singular values.
///
/// Rank and cut-off are decided on `a` itself, as statsmodels does. When `a`
/// has full column rank the pseudo-inverse is the unique least-squares
/// inverse, and it is then computed from the column-equilibrated matrix
/// `a D` (`D` = inverse column norms): the same quantity in exact arithmetic,
/// far more accurate for badly scaled columns (NIST Pontius).
fn pinv_solve(a: &DMatrix<f64>, b: &DVector<f64>, rank_rows: usize) -> Option<PinvSolution> {
    let k = a.ncols();
    let (s, _, _) = svd_parts(a, false)?;
    let smax = s.iter().cloned().fold(0.0_f64, f64::max);
    if !smax.is_finite() {
        return None;
    }
    let rank_tol = smax * (rank_rows.max(k) as f64) * f64::EPSILON;
    let rank = s.iter().filter(|&&v| v > rank_tol).count();
    let full = rank == k && s.len() == k && smax > 0.0;
    let scale: Vec<f64> = (0..k)
        .map(|j| {
            let norm = a.column(j).norm();
            if full && norm > 0.0 {
                1.0 / norm
            } else {
                1.0
            }
        })
        .collect();
    let scaled = DMatrix::from_fn(a.nrows(), k, |i, j| a[(i, j)] * scale[j]);
    let (s, u, v_t) = svd_parts(&scaled, true)?;
    let (u, v_t) = (u?, v_t?);
    let smax = s.iter().cloned().fold(0.0_f64, f64::max);
    let cutoff = PINV_RCOND * smax;
    let keep: Vec<usize> = (0..s.len()).filter(|&i| s[i] > cutoff).collect();
    let r = keep.len();
    let vs = DMatrix::from_fn(k, r, |j, c| scale[j] * v_t[(keep[c], j)] / s[keep[c]]);
    let uk = DMatrix::from_fn(a.nrows(), r, |i, c| u[(i, keep[c])]);
    let cov = &vs * vs.transpose();
    let beta = &vs * (uk.transpose() * b);
    Some(PinvSolution {
        vs,
        u: uk,
        beta,
        cov,
        rank,
    })
}

type SvdParts = (DVector<f64>, Option<DMatrix<f64>>, Option<DMatrix<f64>>);

/// Singular values (and optionally `U`, `V'`) of `a`; `None` if the
/// iteration does not converge.
fn svd_parts(a: &DMatrix<f64>, vectors: bool) -> Option<SvdParts> {
    let svd = a.clone().try_svd(vectors, vectors, f64::EPSILON, 10_000)?;
    Some((svd.singular_values, svd.u, svd.v_t))
}

#[allow(clippy::too_many_arguments)]
fn assemble(
    names: Vec<String>,
    params: Vec<f64>,
    normalized_cov: DMatrix<f64>,
    rank: usize,
    k_constant: usize,
    nobs: usize,
    ssr: f64,
    tss: f64,
) -> OlsFit {
    let n = nobs as f64;
    let df_resid = n - rank as f64;
    let df_model = rank as f64 - k_constant as f64;
    let scale = if df_resid > 0.0 {
        ssr / df_resid
    } else {
        f64::NAN
    };
    let ess = tss - ssr;
    let r2 = 1.0 - ssr / tss;
    let r2_adj = if df_resid > 0.0 {
        1.0 - (n - k_constant as f64) / df_resid * (1.0 - r2)
    } else {
        f64::NAN
    };
    let fvalue = if df_model > 0.0 {
        (ess / df_model) / scale
    } else {
        f64::NAN
    };
    let f_pvalue = f_sf(fvalue, df_model, df_resid);
    let q = t_ppf(0.975, df_resid);
    let k = params.len();
    let mut bse = Vec::with_capacity(k);
    let mut tvalues = Vec::with_capacity(k);
    let mut pvalues = Vec::with_capacity(k);
    let mut conf_low = Vec::with_capacity(k);
    let mut conf_high = Vec::with_capacity(k);
    for (j, &b) in params.iter().enumerate() {
        let se = (scale * normalized_cov[(j, j)]).sqrt();
        let t = b / se;
        bse.push(se);
        tvalues.push(t);
        pvalues.push(t_two_sided_p(t, df_resid));
        conf_low.push(b - q * se);
        conf_high.push(b + q * se);
    }
    OlsFit {
        names,
        params,
        bse,
        tvalues,
        pvalues,
        conf_low,
        conf_high,
        normalized_cov,
        nobs,
        rank,
        k_constant,
        df_model,
        df_resid,
        ssr,
        tss,
        ess,
        r2,
        r2_adj,
        scale,
        fvalue,
        f_pvalue,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distributions::{beta_reg, t_sf};

    fn rel(a: f64, b: f64) -> f64 {
        if a == b {
            0.0
        } else {
            (a - b).abs() / b.abs()
        }
    }

    fn assert_rel(got: f64, want: f64, tol: f64, what: &str) {
        assert!(
            rel(got, want) <= tol,
            "{what}: got {got:e}, want {want:e}, rel {:e}",
            rel(got, want)
        );
    }

    // NIST StRD Norris: y, x.
    const NORRIS: [(f64, f64); 36] = [
        (0.1, 0.2),
        (338.8, 337.4),
        (118.1, 118.2),
        (888.0, 884.6),
        (9.2, 10.1),
        (228.1, 226.5),
        (668.5, 666.3),
        (998.5, 996.3),
        (449.1, 448.6),
        (778.9, 777.0),
        (559.2, 558.2),
        (0.3, 0.4),
        (0.1, 0.6),
        (778.1, 775.5),
        (668.8, 666.9),
        (339.3, 338.0),
        (448.9, 447.5),
        (10.8, 11.6),
        (557.7, 556.0),
        (228.3, 228.1),
        (998.0, 995.8),
        (888.8, 887.6),
        (119.6, 120.2),
        (0.3, 0.3),
        (0.6, 0.3),
        (557.6, 556.8),
        (339.3, 339.1),
        (888.0, 887.2),
        (998.5, 999.0),
        (778.9, 779.0),
        (10.2, 11.1),
        (117.6, 118.3),
        (228.9, 229.2),
        (668.4, 669.1),
        (449.2, 448.9),
        (0.2, 0.5),
    ];

    #[test]
    fn nist_norris() {
        let y: Vec<f64> = NORRIS.iter().map(|r| r.0).collect();
        let mut d = Design::with_intercept(36);
        d.push("x", NORRIS.iter().map(|r| r.1).collect());
        let fit = ols(&d, &y);
        let tol = 1e-10;
        assert_rel(fit.params[0], -0.262323073774029, tol, "b0");
        assert_rel(fit.params[1], 1.00211681802045, tol, "b1");
        assert_rel(fit.bse[0], 0.232818234301152, tol, "se0");
        assert_rel(fit.bse[1], 0.429796848199937E-03, tol, "se1");
        assert_rel(fit.resid_sd(), 0.884796396144373, tol, "residual sd");
        assert_rel(fit.r2, 0.999993745883712, tol, "R2");
        assert_rel(fit.ssr, 26.6173985294224, tol, "ssr");
        assert_rel(fit.fvalue, 5436385.54079785, 1e-9, "F");
        assert_eq!((fit.rank, fit.k_constant), (2, 1));
        assert_eq!((fit.df_model, fit.df_resid), (1.0, 34.0));
    }

    // NIST StRD Longley: y, x1..x6.
    const LONGLEY: [[f64; 7]; 16] = [
        [60323.0, 83.0, 234289.0, 2356.0, 1590.0, 107608.0, 1947.0],
        [61122.0, 88.5, 259426.0, 2325.0, 1456.0, 108632.0, 1948.0],
        [60171.0, 88.2, 258054.0, 3682.0, 1616.0, 109773.0, 1949.0],
        [61187.0, 89.5, 284599.0, 3351.0, 1650.0, 110929.0, 1950.0],
        [63221.0, 96.2, 328975.0, 2099.0, 3099.0, 112075.0, 1951.0],
        [63639.0, 98.1, 346999.0, 1932.0, 3594.0, 113270.0, 1952.0],
        [64989.0, 99.0, 365385.0, 1870.0, 3547.0, 115094.0, 1953.0],
        [63761.0, 100.0, 363112.0, 3578.0, 3350.0, 116219.0, 1954.0],
        [66019.0, 101.2, 397469.0, 2904.0, 3048.0, 117388.0, 1955.0],
        [67857.0, 104.6, 419180.0, 2822.0, 2857.0, 118734.0, 1956.0],
        [68169.0, 108.4, 442769.0, 2936.0, 2798.0, 120445.0, 1957.0],
        [66513.0, 110.8, 444546.0, 4681.0, 2637.0, 121950.0, 1958.0],
        [68655.0, 112.6, 482704.0, 3813.0, 2552.0, 123366.0, 1959.0],
        [69564.0, 114.2, 502601.0, 3931.0, 2514.0, 125368.0, 1960.0],
        [69331.0, 115.7, 518173.0, 4806.0, 2572.0, 127852.0, 1961.0],
        [70551.0, 116.9, 554894.0, 4007.0, 2827.0, 130081.0, 1962.0],
    ];

    #[test]
    fn nist_longley() {
        let y: Vec<f64> = LONGLEY.iter().map(|r| r[0]).collect();
        let mut d = Design::with_intercept(16);
        for j in 1..7 {
            d.push(format!("x{j}"), LONGLEY.iter().map(|r| r[j]).collect());
        }
        let fit = ols(&d, &y);
        let b = [
            -3482258.63459582,
            15.0618722713733,
            -0.358191792925910E-01,
            -2.02022980381683,
            -1.03322686717359,
            -0.511041056535807E-01,
            1829.15146461355,
        ];
        let se = [
            890420.383607373,
            84.9149257747669,
            0.334910077722432E-01,
            0.488399681651699,
            0.214274163161675,
            0.226073200069370,
            455.478499142212,
        ];
        for j in 0..7 {
            assert_rel(fit.params[j], b[j], 1e-8, &format!("b{j}"));
            assert_rel(fit.bse[j], se[j], 1e-8, &format!("se{j}"));
        }
        assert_rel(fit.resid_sd(), 304.854073561965, 1e-9, "residual sd");
        assert_rel(fit.r2, 0.995479004577296, 1e-12, "R2");
        assert_rel(fit.ssr, 836424.055505915, 1e-9, "ssr");
        assert_rel(fit.fvalue, 330.285339234588, 1e-8, "F");
        assert_eq!((fit.rank, fit.df_model, fit.df_resid), (7, 6.0, 9.0));
    }

    // NIST StRD Pontius: y (deflection), x (load); quadratic model.
    #[test]
    fn nist_pontius() {
        let data: [(f64, f64); 40] = [
            (0.11019, 150000.0),
            (0.21956, 300000.0),
            (0.32949, 450000.0),
            (0.43899, 600000.0),
            (0.54803, 750000.0),
            (0.65694, 900000.0),
            (0.76562, 1050000.0),
            (0.87487, 1200000.0),
            (0.98292, 1350000.0),
            (1.09146, 1500000.0),
            (1.20001, 1650000.0),
            (1.30822, 1800000.0),
            (1.41599, 1950000.0),
            (1.52399, 2100000.0),
            (1.63194, 2250000.0),
            (1.73947, 2400000.0),
            (1.84646, 2550000.0),
            (1.95392, 2700000.0),
            (2.06128, 2850000.0),
            (2.16844, 3000000.0),
            (0.11052, 150000.0),
            (0.22018, 300000.0),
            (0.32939, 450000.0),
            (0.43886, 600000.0),
            (0.54798, 750000.0),
            (0.65739, 900000.0),
            (0.76596, 1050000.0),
            (0.87474, 1200000.0),
            (0.98300, 1350000.0),
            (1.09150, 1500000.0),
            (1.20004, 1650000.0),
            (1.30818, 1800000.0),
            (1.41613, 1950000.0),
            (1.52408, 2100000.0),
            (1.63159, 2250000.0),
            (1.73965, 2400000.0),
            (1.84696, 2550000.0),
            (1.95445, 2700000.0),
            (2.06177, 2850000.0),
            (2.16829, 3000000.0),
        ];
        let y: Vec<f64> = data.iter().map(|r| r.0).collect();
        let mut d = Design::with_intercept(40);
        d.push("x", data.iter().map(|r| r.1).collect());
        d.push("x2", data.iter().map(|r| r.1 * r.1).collect());
        let fit = ols(&d, &y);
        let b = [
            0.673565789473684E-03,
            0.732059160401003E-06,
            -0.316081871345029E-14,
        ];
        let se = [
            0.107938612033077E-03,
            0.157817399981659E-09,
            0.486652849992036E-16,
        ];
        for j in 0..3 {
            assert_rel(fit.params[j], b[j], 1e-8, &format!("b{j}"));
            assert_rel(fit.bse[j], se[j], 1e-8, &format!("se{j}"));
        }
        assert_rel(fit.resid_sd(), 0.205177424076185E-03, 1e-9, "residual sd");
        assert_rel(fit.r2, 0.999999900178537, 1e-12, "R2");
    }

    #[test]
    fn rank_deficient_duplicate_column() {
        let x = [1.0, 2.0, 3.0, 4.0, 5.0];
        let y = [1.1, 1.9, 3.2, 3.9, 5.1];
        let mut d = Design::with_intercept(5);
        d.push("x", x.to_vec());
        d.push("x_copy", x.to_vec());
        let fit = ols(&d, &y);
        let mut single = Design::with_intercept(5);
        single.push("x", x.to_vec());
        let one = ols(&single, &y);
        assert_eq!(fit.rank, 2);
        assert_eq!((fit.df_model, fit.df_resid), (1.0, 3.0));
        // Minimum-norm solution: the slope is split evenly.
        assert_rel(fit.params[1], one.params[1] / 2.0, 1e-12, "half slope");
        assert_rel(fit.params[2], one.params[1] / 2.0, 1e-12, "half slope");
        assert_rel(fit.params[0], one.params[0], 1e-12, "intercept");
        assert_rel(fit.ssr, one.ssr, 1e-10, "ssr");
        assert_rel(fit.r2_adj, one.r2_adj, 1e-12, "r2_adj");
        assert_rel(fit.f_pvalue, one.f_pvalue, 1e-9, "F p");
        assert!(fit.params.iter().chain(&fit.bse).all(|v| v.is_finite()));
    }

    #[test]
    fn single_column_and_degenerate_designs() {
        // Intercept only: the mean; no model F test.
        let y = [1.0, 2.0, 4.0, 7.0];
        let fit = ols(&Design::with_intercept(4), &y);
        assert_rel(fit.params[0], 3.5, 1e-14, "mean");
        assert_eq!((fit.rank, fit.df_model, fit.df_resid), (1, 0.0, 3.0));
        assert!(fit.r2.abs() < 1e-14 && fit.r2_adj.abs() < 1e-14);
        assert!(fit.fvalue.is_nan() && fit.f_pvalue.is_nan());
        let se = (((1.0f64 - 3.5).powi(2) + 2.25 + 0.25 + 12.25) / 3.0 / 4.0).sqrt();
        assert_rel(fit.bse[0], se, 1e-13, "se of the mean");
        // A single non-constant column: regression through the origin,
        // uncentred R2.
        let mut d = Design::new(3);
        d.push("x", vec![1.0, 2.0, 3.0]);
        let fit = ols(&d, &[2.0, 4.0, 6.5]);
        assert_eq!((fit.k_constant, fit.rank), (0, 1));
        assert_rel(fit.params[0], 29.5 / 14.0, 1e-14, "slope");
        assert_rel(
            fit.r2,
            1.0 - (2.0f64 * 2.0 + 4.0 * 4.0 + 6.5 * 6.5 - 29.5 * 29.5 / 14.0) / 62.25,
            1e-13,
            "uncentred R2",
        );
        // Constant response: R2 undefined, coefficients fine.
        let mut d = Design::with_intercept(4);
        d.push("x", vec![1.0, 2.0, 3.0, 5.0]);
        let fit = ols(&d, &[2.0; 4]);
        assert!(fit.r2.is_nan());
        assert_rel(fit.params[0], 2.0, 1e-14, "constant");
        assert!(fit.params[1].abs() < 1e-14);
        // Zero residual degrees of freedom.
        let mut d = Design::with_intercept(2);
        d.push("x", vec![0.0, 1.0]);
        let fit = ols(&d, &[1.0, 3.0]);
        assert_eq!(fit.df_resid, 0.0);
        assert_rel(fit.params[1], 2.0, 1e-14, "slope");
        assert!(fit.bse[0].is_nan() && fit.pvalues[0].is_nan() && fit.r2_adj.is_nan());
        assert!(fit.conf_low[0].is_nan() && fit.f_pvalue.is_nan());
        // Empty, mismatched and non-finite inputs.
        assert!(ols(&Design::new(3), &[1.0, 2.0, 3.0]).r2.is_nan());
        assert!(ols(&Design::with_intercept(3), &[1.0, 2.0]).params[0].is_nan());
        assert!(ols(&Design::with_intercept(2), &[1.0, f64::NAN]).params[0].is_nan());
        let zero = ols(&Design::with_intercept(0), &[]);
        assert_eq!(zero.nobs, 0);
        // An all-zero column: rank deficient, coefficient 0 from pinv.
        let mut d = Design::with_intercept(3);
        d.push("z", vec![0.0; 3]);
        let fit = ols(&d, &[1.0, 2.0, 6.0]);
        assert_eq!(fit.rank, 1);
        assert_eq!(fit.params[1], 0.0);
        assert_rel(fit.params[0], 3.0, 1e-14, "mean");
    }

    #[test]
    fn nested_f_test_by_hand() {
        // y ~ 1 vs y ~ 1 + x with x = 0,0,1,1,1 and y = 1,2,4,5,7.
        // Null: mean 3.8, SSR = 2.8^2+1.8^2+0.2^2+1.2^2+3.2^2 = 22.8, df 4.
        // Full: group means 1.5 and 16/3: SSR = 0.5 + 4.6667 = 5.1667, df 3.
        // F = (22.8 - 5.1667) / (5.1667 / 3) = 10.23871, p = P(F(1,3) > F).
        let y = [1.0, 2.0, 4.0, 5.0, 7.0];
        let null = ols(&Design::with_intercept(5), &y);
        let mut d = Design::with_intercept(5);
        d.push("x", vec![0.0, 0.0, 1.0, 1.0, 1.0]);
        let full = ols(&d, &y);
        assert_rel(null.ssr, 22.8, 1e-14, "ssr null");
        assert_rel(full.ssr, 0.5 + 14.0 / 3.0, 1e-14, "ssr full");
        let f: f64 = (22.8 - 31.0 / 6.0) / (31.0 / 18.0);
        // F(1, d) with d = 3: P(F > f) = P(|T| > sqrt f), T ~ t(3).
        let t = f.sqrt();
        let p_t3 = {
            // closed form for the t(3) two-sided tail
            let th = (t / 3f64.sqrt()).atan();
            1.0 - 2.0 / std::f64::consts::PI * (th + th.sin() * th.cos())
        };
        assert_rel(nested_f_test(&null, &full), p_t3, 1e-12, "nested F");
        // With one extra regressor the nested test equals the t test and the
        // model's overall F test.
        assert_rel(full.pvalues[1], p_t3, 1e-12, "t test");
        assert_rel(full.f_pvalue, p_t3, 1e-12, "model F");
        // Undefined comparisons.
        assert!(nested_f_test(&full, &full).is_nan());
        assert!(nested_f_test(&full, &null).is_nan());
    }

    #[test]
    fn grouped_fit_equals_dense_fit() {
        // Two factors with treatment coding, data given per row and per cell.
        let a = [0usize, 0, 1, 1, 2, 2, 0, 1, 2, 0, 1, 1];
        let b = [0usize, 1, 0, 1, 0, 1, 1, 1, 0, 0, 0, 1];
        let y = [1.3, 2.1, 0.4, 3.3, 2.2, 1.7, 2.9, 0.8, 1.1, 0.6, 2.5, 1.4];
        let an: Vec<String> = ["a0", "a1", "a2"].map(String::from).to_vec();
        let bn: Vec<String> = ["b0", "b1"].map(String::from).to_vec();
        let mut d = Design::with_intercept(12);
        d.push_treatment(&a, &an).push_treatment(&b, &bn);
        let dense = ols(&d, &y);
        let mut rows = Vec::new();
        let mut cells = Vec::new();
        for ia in 0..3 {
            for ib in 0..2 {
                let v: Vec<f64> = (0..12)
                    .filter(|&i| a[i] == ia && b[i] == ib)
                    .map(|i| y[i])
                    .collect();
                let n = v.len();
                let mean = v.iter().sum::<f64>() / n as f64;
                let within_ss = v.iter().map(|x| (x - mean).powi(2)).sum();
                cells.push(CellStats { n, mean, within_ss });
                rows.extend([
                    1.0,
                    f64::from(u8::from(ia == 1)),
                    f64::from(u8::from(ia == 2)),
                    f64::from(u8::from(ib == 1)),
                ]);
            }
        }
        let rows = DMatrix::from_row_slice(6, 4, &rows);
        let grouped = ols_grouped(d.names().to_vec(), &rows, &cells);
        assert_eq!(grouped.nobs, 12);
        assert_eq!(grouped.rank, dense.rank);
        for j in 0..4 {
            for (g, w) in [
                (grouped.params[j], dense.params[j]),
                (grouped.bse[j], dense.bse[j]),
                (grouped.pvalues[j], dense.pvalues[j]),
                (grouped.conf_low[j], dense.conf_low[j]),
            ] {
                assert_rel(g, w, 1e-12, "grouped vs dense");
            }
        }
        for (g, w) in [
            (grouped.ssr, dense.ssr),
            (grouped.tss, dense.tss),
            (grouped.r2_adj, dense.r2_adj),
            (grouped.f_pvalue, dense.f_pvalue),
        ] {
            assert_rel(g, w, 1e-12, "grouped vs dense");
        }
    }

    #[test]
    fn distribution_tails() {
        // scipy.stats.t.ppf(0.975, df)
        assert_rel(t_ppf(0.975, 1.0), 12.706204736174698, 1e-14, "t 1");
        assert_rel(t_ppf(0.975, 2.0), 4.302652729749464, 1e-14, "t 2");
        assert_rel(t_ppf(0.975, 3.0), 3.182446305283711, 1e-13, "t 3");
        assert_rel(t_ppf(0.975, 10.0), 2.2281388519862744, 1e-13, "t 10");
        assert_rel(t_ppf(0.975, 30.0), 2.0422724563012373, 1e-13, "t 30");
        assert_rel(t_ppf(0.025, 30.0), -2.0422724563012373, 1e-13, "t 30 lower");
        // Large df approaches the normal quantile 1.959963984540054.
        let big = t_ppf(0.975, 1e7);
        assert!(big > 1.959963984540054 && big - 1.959963984540054 < 1e-6);
        assert_rel(t_sf(t_ppf(0.975, 1e6), 1e6), 0.025, 1e-9, "round trip");
        // Reference values from the exact finite series for even df (40 digits).
        assert_rel(
            t_two_sided_p(1.5, 1e6),
            0.13361471823679277,
            1e-10,
            "p big df",
        );
        assert_rel(
            t_two_sided_p(2.5, 1e6),
            0.012419489502163246,
            1e-10,
            "p big df",
        );
        // Two-sided p of t = 2 with 10 df: 0.07338803477074039.
        assert_rel(t_two_sided_p(2.0, 10.0), 0.0733880347707403, 1e-13, "p");
        assert_rel(t_two_sided_p(-2.0, 10.0), 0.0733880347707403, 1e-13, "p");
        assert_eq!(t_two_sided_p(0.0, 5.0), 1.0);
        assert_eq!(t_two_sided_p(f64::INFINITY, 5.0), 0.0);
        assert!(t_two_sided_p(1.0, 0.0).is_nan() && t_ppf(0.975, f64::NAN).is_nan());
        // F(2, d): P(F > f) = (1 + 2f/d)^(-d/2).
        for (f, d) in [(0.5, 7.0), (3.0, 20.0), (40.0, 100.0)] {
            let want = (1.0f64 + 2.0 * f / d).powf(-d / 2.0);
            assert_rel(f_sf(f, 2.0, d), want, 1e-12, "F(2, d)");
        }
        assert_eq!(f_sf(-1.0, 2.0, 3.0), 1.0);
        assert!(f_sf(1.0, 0.0, 3.0).is_nan() && f_sf(f64::NAN, 1.0, 3.0).is_nan());
        // Large arguments of the incomplete beta: I_x(a, a) at x = 0.5 is 0.5.
        assert_rel(beta_reg(5e6, 5e6, 0.5), 0.5, 1e-9, "symmetric beta");
    }
}
