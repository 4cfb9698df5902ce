//! Training analyses (spec train.md 8), as RSMTool's `Analyzer`:
//! `feature_descriptives` (pandas mean/std/min/max/skew, scipy kurtosis and
//! `pearsonr`), `feature_descriptivesExtra` (numpy "lower" percentiles, IQR
//! outlier counts), `feature_outliers` (beyond mean +/- 4 sd), Pearson
//! matrices (`cors_orig`, `cors_processed`), marginal and partial
//! correlations (RSMTool's `partial_correlations`: inverse of the sample
//! covariance matrix, pseudo-inverse when its determinant is at most float32
//! epsilon, NaN when there are more columns than rows), the by-subgroup
//! versions, and PCA as scikit-learn 1.4.2 `PCA()` (full SVD of the centred
//! data, `svd_flip` on U, `explained_variance_ = S^2 / (n - 1)`).
//!
//! Pearson matrices: two passes (exact means, then one blocked pass of
//! centred cross-products, [`super::moments`]) rather than one pass of raw
//! sums: the one-pass `sum xy - n mx my` form cancels catastrophically for
//! features like a raw length with mean 300 and sd 5.
//!
//! PCA ([`PcaMethod::Auto`]): eigen-decomposition of the centred
//! cross-product matrix (p x p, one pass) when its eigenvalues span less
//! than 1e4 (then loadings and eigenvalues agree with the SVD of the data to
//! ~1e-13); otherwise, and with [`PcaMethod::Svd`], the SVD of the R factor
//! of a blocked QR of the centred data, which has the data's singular values
//! and right singular vectors to working precision.

use nalgebra::{DMatrix, SymmetricEigen, SVD};

use super::error::{LinearError, Result};
use super::matrix::check_lengths;
use super::moments::{tall_r_factor, Moments, BLOCK};
use super::stats::{
    kurtosis, lower_percentiles, max, mean, min, pairwise_sum, pearson, pearson_p_value,
    round_decimals, sd, skewness,
};

/// One row of `feature_descriptives`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Descriptives {
    /// `mean`.
    pub mean: f64,
    /// `std. dev.`
    pub sd: f64,
    /// `min`.
    pub min: f64,
    /// `max`.
    pub max: f64,
    /// `skewness` (pandas).
    pub skewness: f64,
    /// `kurtosis` (scipy, not excess).
    pub kurtosis: f64,
    /// `Correlation` with the label.
    pub correlation: f64,
    /// `p` of that correlation.
    pub p: f64,
    /// `N`.
    pub n: usize,
}

/// `feature_descriptives` row of raw feature values `x` against labels `y`.
pub fn descriptives(x: &[f64], y: &[f64]) -> Descriptives {
    let r = pearson(x, y);
    Descriptives {
        mean: mean(x),
        sd: sd(x),
        min: min(x),
        max: max(x),
        skewness: skewness(x),
        kurtosis: kurtosis(x),
        correlation: r,
        p: pearson_p_value(r, x.len()),
        n: x.len(),
    }
}

/// The percentiles of `feature_descriptivesExtra`.
pub const PERCENTILES: [f64; 7] = [1.0, 5.0, 25.0, 50.0, 75.0, 95.0, 99.0];

/// One row of `feature_descriptivesExtra`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PercentileRow {
    /// `1%, 5%, 25%, 50%, 75%, 95%, 99%` (numpy "lower").
    pub percentiles: [f64; 7],
    /// `IQR` = 75% - 25%.
    pub iqr: f64,
    /// `Mild outliers`.
    pub mild_outliers: usize,
    /// `Extreme outliers`.
    pub extreme_outliers: usize,
}

/// `feature_descriptivesExtra` row of raw values.
pub fn percentile_row(x: &[f64]) -> PercentileRow {
    let v = lower_percentiles(x, &PERCENTILES);
    let mut percentiles = [0.0; 7];
    percentiles.copy_from_slice(&v);
    let (q1, q3) = (percentiles[2], percentiles[4]);
    let iqr = q3 - q1;
    let (low_mild, low_extreme) = (q1 - 1.5 * iqr, q1 - 3.0 * iqr);
    let (up_mild, up_extreme) = (q3 + 1.5 * iqr, q3 + 3.0 * iqr);
    let mild = x
        .iter()
        .filter(|&&v| (v > low_extreme && v <= low_mild) || (v >= up_mild && v < up_extreme))
        .count();
    let extreme = x
        .iter()
        .filter(|&&v| v <= low_extreme || v >= up_extreme)
        .count();
    PercentileRow {
        percentiles,
        iqr,
        mild_outliers: mild,
        extreme_outliers: extreme,
    }
}

/// One row of `feature_outliers`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OutlierRow {
    /// Values below `mean - 4 sd`.
    pub lower: usize,
    /// Values above `mean + 4 sd`.
    pub upper: usize,
    /// `lower + upper`.
    pub both: usize,
    /// `lower / n * 100`, rounded to 2 decimals half to even.
    pub lowerperc: f64,
    /// `upper / n * 100`, rounded likewise.
    pub upperperc: f64,
    /// `both / n * 100`, rounded likewise.
    pub bothperc: f64,
}

/// `feature_outliers` row of raw values.
pub fn outlier_row(x: &[f64]) -> OutlierRow {
    let (m, s) = (mean(x), sd(x));
    let (lo, hi) = (m - 4.0 * s, m + 4.0 * s);
    let lower = x.iter().filter(|&&v| v < lo).count();
    let upper = x.iter().filter(|&&v| v > hi).count();
    let n = x.len() as f64;
    let perc = |c: usize| round_decimals(c as f64 / n * 100.0, 2);
    OutlierRow {
        lower,
        upper,
        both: lower + upper,
        lowerperc: perc(lower),
        upperperc: perc(upper),
        bothperc: perc(lower + upper),
    }
}

/// Pearson correlation matrix of the columns (`cors_orig`,
/// `cors_processed`): NaN for constant columns and fewer than 2 rows.
pub fn correlation_matrix(cols: &[&[f64]]) -> Result<DMatrix<f64>> {
    let n = cols.first().map_or(0, |c| c.len());
    check_lengths("the correlation input", cols, n)?;
    Ok(Moments::compute(cols, None).correlation())
}

/// Pearson correlation of each column with `target` (`margcor_*`).
pub fn marginal_correlations(features: &[&[f64]], target: &[f64]) -> Result<Vec<f64>> {
    check_lengths("the features", features, target.len())?;
    Ok(features.iter().map(|f| pearson(f, target)).collect())
}

/// RSMTool's `partial_correlations` matrix of the columns: `P` = inverse of
/// the sample covariance matrix (pseudo-inverse, numpy's `rcond = 1e-15`,
/// if `det <= float32 eps`), `pcor_ij = -P_ij / sqrt(P_ii P_jj)`, diagonal 1;
/// all NaN (diagonal 1) when there are more columns than rows.
pub fn partial_correlation_matrix(cols: &[&[f64]]) -> Result<DMatrix<f64>> {
    let k = cols.len();
    let n = cols.first().map_or(0, |c| c.len());
    check_lengths("the partial-correlation input", cols, n)?;
    let mut out = DMatrix::from_element(k, k, f64::NAN);
    if k <= n && n >= 2 {
        let cov = Moments::compute(cols, None).covariance();
        let p = precision_matrix(cov);
        for i in 0..k {
            for j in 0..k {
                out[(i, j)] = -p[(i, j)] / (p[(i, i)] * p[(j, j)]).sqrt();
            }
        }
    }
    for i in 0..k {
        out[(i, i)] = 1.0;
    }
    Ok(out)
}

/// `inv(cov)`, or `pinv(cov)` when `det(cov) <= float32 eps`. Zero-variance
/// columns (exact zeros in `cov`) get exact zero rows and columns, as
/// LAPACK's SVD gives them.
fn precision_matrix(cov: DMatrix<f64>) -> DMatrix<f64> {
    let k = cov.nrows();
    let det = cov.clone().lu().determinant();
    if det > f32::EPSILON as f64 {
        if let Some(inv) = cov.clone().try_inverse() {
            return inv;
        }
    }
    let keep: Vec<usize> = (0..k).filter(|&i| cov[(i, i)] != 0.0).collect();
    let sub = DMatrix::from_fn(keep.len(), keep.len(), |i, j| cov[(keep[i], keep[j])]);
    let pinv = pseudo_inverse(sub);
    let mut out = DMatrix::zeros(k, k);
    for (a, &i) in keep.iter().enumerate() {
        for (b, &j) in keep.iter().enumerate() {
            out[(i, j)] = pinv[(a, b)];
        }
    }
    out
}

/// numpy `pinv` (SVD, singular values at most 1e-15 x the largest dropped).
fn pseudo_inverse(a: DMatrix<f64>) -> DMatrix<f64> {
    let (r, c) = a.shape();
    if r == 0 {
        return DMatrix::zeros(c, r);
    }
    let svd = SVD::new(a, true, true);
    let s = &svd.singular_values;
    let cutoff = 1e-15 * s.iter().copied().fold(0.0f64, f64::max);
    let (u, vt) = match (&svd.u, &svd.v_t) {
        (Some(u), Some(vt)) => (u, vt),
        _ => unreachable!("SVD computed with u and v"),
    };
    let mut v_sinv = vt.transpose();
    for (i, mut col) in v_sinv.column_iter_mut().enumerate() {
        let f = if s[i] > cutoff { 1.0 / s[i] } else { 0.0 };
        col *= f;
    }
    v_sinv * u.transpose()
}

/// Partial correlation of each feature with `target` given all other
/// features (`pcor_score_*`: target = `sc1`; `pcor_length_*`: target =
/// `length`): the target column of the partial-correlation matrix of
/// `[features, target]`.
pub fn partial_correlations(features: &[&[f64]], target: &[f64]) -> Result<Vec<f64>> {
    let mut cols = features.to_vec();
    cols.push(target);
    let m = partial_correlation_matrix(&cols)?;
    let t = features.len();
    Ok((0..t).map(|i| m[(i, t)]).collect())
}

/// Partial correlation of each feature with `target` given only `control`
/// (`pcor_score_no_length_*`: `[f, sc1, length]` for each feature).
pub fn partial_correlations_given(
    features: &[&[f64]],
    target: &[f64],
    control: &[f64],
) -> Result<Vec<f64>> {
    features
        .iter()
        .map(|f| Ok(partial_correlation_matrix(&[f, target, control])?[(0, 1)]))
        .collect()
}

/// The label of the all-rows pseudo-level of the by-subgroup tables.
pub const ALL_DATA: &str = "All data";

/// Levels of a subgroup column plus `All data`, in code-point order, each
/// with its row indices (`All data`: every row).
pub fn group_levels<S: AsRef<str>>(labels: &[S]) -> Vec<(String, Vec<usize>)> {
    let mut index: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut levels: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, l) in labels.iter().enumerate() {
        let l = l.as_ref();
        let k = *index.entry(l).or_insert_with(|| {
            levels.push((l.to_string(), Vec::new()));
            levels.len() - 1
        });
        levels[k].1.push(i);
    }
    levels.push((ALL_DATA.to_string(), (0..labels.len()).collect()));
    levels.sort_by(|a, b| a.0.cmp(&b.0));
    levels
}

/// The rows `idx` of a column (indices checked by the caller).
fn take(col: &[f64], idx: &[usize]) -> Vec<f64> {
    idx.iter().map(|&i| col[i]).collect()
}

/// One row per level: the level name and its values.
pub type GroupRows = Vec<(String, Vec<f64>)>;

/// Applies `stat` to `(features, target, control)` restricted to each level
/// of `labels` (and `All data`), in code-point order of the level names.
pub fn by_group<S, F>(
    labels: &[S],
    features: &[&[f64]],
    target: &[f64],
    control: Option<&[f64]>,
    stat: F,
) -> Result<GroupRows>
where
    S: AsRef<str>,
    F: Fn(&[&[f64]], &[f64], Option<&[f64]>) -> Result<Vec<f64>>,
{
    let n = labels.len();
    check_lengths("the features", features, n)?;
    check_lengths("the target", &[target], n)?;
    if let Some(c) = control {
        check_lengths("the control variable", &[c], n)?;
    }
    group_levels(labels)
        .into_iter()
        .map(|(name, idx)| {
            let feats: Vec<Vec<f64>> = features.iter().map(|c| take(c, &idx)).collect();
            let refs: Vec<&[f64]> = feats.iter().map(|v| v.as_slice()).collect();
            let t = take(target, &idx);
            let c = control.map(|c| take(c, &idx));
            Ok((name, stat(&refs, &t, c.as_deref())?))
        })
        .collect()
}

/// `margcor_score_by_<g>` / `margcor_length_by_<g>`.
pub fn marginal_correlations_by_group<S: AsRef<str>>(
    labels: &[S],
    features: &[&[f64]],
    target: &[f64],
) -> Result<GroupRows> {
    by_group(labels, features, target, None, |f, t, _| {
        marginal_correlations(f, t)
    })
}

/// `pcor_score_by_<g>` / `pcor_length_by_<g>`.
pub fn partial_correlations_by_group<S: AsRef<str>>(
    labels: &[S],
    features: &[&[f64]],
    target: &[f64],
) -> Result<GroupRows> {
    by_group(labels, features, target, None, |f, t, _| {
        partial_correlations(f, t)
    })
}

/// `pcor_score_no_length_by_<g>`.
pub fn partial_correlations_given_by_group<S: AsRef<str>>(
    labels: &[S],
    features: &[&[f64]],
    target: &[f64],
    control: &[f64],
) -> Result<GroupRows> {
    by_group(labels, features, target, Some(control), |f, t, c| {
        partial_correlations_given(f, t, c.unwrap_or(&[]))
    })
}

/// How [`pca_with`] decomposes the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PcaMethod {
    /// Eigen-decomposition of the cross-products when well conditioned, SVD
    /// otherwise.
    #[default]
    Auto,
    /// Always the SVD (of the R factor of the centred data).
    Svd,
}

/// Smallest eigenvalue ratio for which [`PcaMethod::Auto`] keeps the
/// eigen-decomposition of the cross-product matrix.
pub const PCA_MIN_EIGEN_RATIO: f64 = 1e-4;

/// PCA results: `pca` (loadings) and `pcavar`.
#[derive(Debug, Clone, PartialEq)]
pub struct Pca {
    /// Loadings, features x components (`PC1..PCk`): column `c` is the
    /// `c`-th right singular vector with scikit-learn's sign.
    pub loadings: DMatrix<f64>,
    /// `Eigenvalues` (`S^2 / (n - 1)`).
    pub eigenvalues: Vec<f64>,
    /// `Percentage of variance` (a proportion).
    pub proportion: Vec<f64>,
    /// `Cumulative percentage of variance`.
    pub cumulative: Vec<f64>,
}

/// PCA of the columns ([`PcaMethod::Auto`]).
pub fn pca(cols: &[&[f64]]) -> Result<Pca> {
    pca_with(cols, PcaMethod::Auto)
}

/// PCA of the columns with the given method.
pub fn pca_with(cols: &[&[f64]], method: PcaMethod) -> Result<Pca> {
    let p = cols.len();
    let n = cols.first().map_or(0, |c| c.len());
    if p == 0 || n < 2 {
        return Err(LinearError::Empty {
            what: "the PCA input (at least one feature and two rows)".into(),
        });
    }
    check_lengths("the PCA input", cols, n)?;
    for (j, c) in cols.iter().enumerate() {
        super::matrix::check_finite(&format!("PCA column {}", j + 1), c)?;
    }
    let mom = Moments::compute(cols, None);
    let k = p.min(n);
    let decomposed = match method {
        PcaMethod::Auto => eigen_decomposition(&mom.gram),
        PcaMethod::Svd => None,
    };
    let (sq, v) = decomposed.unwrap_or_else(|| svd_decomposition(cols, &mom.means));
    let mut v = v.columns(0, k).into_owned();
    flip_signs(cols, &mom.means, &mut v);
    let eigenvalues: Vec<f64> = sq[..k].iter().map(|s| s / (n as f64 - 1.0)).collect();
    let total = pairwise_sum(&eigenvalues);
    let proportion: Vec<f64> = eigenvalues.iter().map(|e| e / total).collect();
    let mut acc = 0.0;
    let cumulative = proportion
        .iter()
        .map(|v| {
            acc += v;
            acc
        })
        .collect();
    Ok(Pca {
        loadings: v,
        eigenvalues,
        proportion,
        cumulative,
    })
}

/// Squared singular values (descending) and right singular vectors from
/// the symmetric eigen-decomposition, if well conditioned.
fn eigen_decomposition(gram: &DMatrix<f64>) -> Option<(Vec<f64>, DMatrix<f64>)> {
    let eig = SymmetricEigen::new(gram.clone());
    let mut order: Vec<usize> = (0..gram.nrows()).collect();
    order.sort_by(|&a, &b| eig.eigenvalues[b].total_cmp(&eig.eigenvalues[a]));
    let vals: Vec<f64> = order.iter().map(|&i| eig.eigenvalues[i]).collect();
    let (lmax, lmin) = (vals[0], vals[vals.len() - 1]);
    let well_conditioned = lmin > PCA_MIN_EIGEN_RATIO * lmax;
    if !well_conditioned {
        return None;
    }
    let v = DMatrix::from_fn(gram.nrows(), order.len(), |i, c| {
        eig.eigenvectors[(i, order[c])]
    });
    Some((vals, v))
}

/// Squared singular values (descending) and right singular vectors of the
/// centred data, via the R factor of a blocked QR.
fn svd_decomposition(cols: &[&[f64]], means: &[f64]) -> (Vec<f64>, DMatrix<f64>) {
    let r = tall_r_factor(cols, means, None);
    let p = r.ncols();
    let svd = SVD::new(r, false, true);
    let vt = svd.v_t.expect("SVD computed with v");
    let s = svd.singular_values;
    let mut order: Vec<usize> = (0..s.len()).collect();
    order.sort_by(|&a, &b| s[b].total_cmp(&s[a]));
    let sq = order.iter().map(|&i| s[i] * s[i]).collect();
    let v = DMatrix::from_fn(p, order.len(), |j, c| vt[(order[c], j)]);
    (sq, v)
}

/// scikit-learn's `svd_flip` on U: each component's sign makes the score
/// (`Xc v`, proportional to U's column) of largest absolute value positive
/// (first row on ties).
fn flip_signs(cols: &[&[f64]], means: &[f64], v: &mut DMatrix<f64>) {
    let (p, k) = v.shape();
    let n = cols[0].len();
    let mut best = vec![(0.0f64, 0.0f64); k]; // (|score|, score)
    let mut block = DMatrix::<f64>::zeros(BLOCK, p);
    let mut scores = DMatrix::<f64>::zeros(BLOCK, k);
    let mut start = 0;
    while start < n {
        let len = BLOCK.min(n - start);
        for j in 0..p {
            let m = means[j];
            let mut col = block.column_mut(j);
            for (b, &x) in col.iter_mut().zip(&cols[j][start..start + len]) {
                *b = x - m;
            }
        }
        // Scores of the block (len x k) = centred rows x loadings (dgemm).
        let rows = block.rows(0, len);
        let mut out = scores.rows_mut(0, len);
        out.gemm(1.0, &rows, v, 0.0);
        for (c, col) in scores.column_iter().enumerate() {
            for &s in col.iter().take(len) {
                if s.abs() > best[c].0 {
                    best[c] = (s.abs(), s);
                }
            }
        }
        start += len;
    }
    for (c, &(_, s)) in best.iter().enumerate() {
        if s < 0.0 {
            v.column_mut(c).neg_mut();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_and_outlier_rows_by_hand() {
        // 0..=10 plus 100: n = 12, index floor(11 p / 100): 1%,5% -> 0;
        // 25% -> 2; 50% -> 5; 75% -> 8; 95% -> 10; 99% -> 10.
        let mut x: Vec<f64> = (0..=10).map(f64::from).collect();
        x.push(100.0);
        let r = percentile_row(&x);
        assert_eq!(r.percentiles, [0.0, 0.0, 2.0, 5.0, 8.0, 10.0, 10.0]);
        assert_eq!(r.iqr, 6.0);
        // Q3 + 1.5 IQR = 17, Q3 + 3 IQR = 26: 100 is extreme, nothing mild.
        assert_eq!((r.mild_outliers, r.extreme_outliers), (0, 1));
        let o = outlier_row(&x);
        // mean 13.75, sd ~ 27.5: mean + 4 sd > 100, nothing beyond.
        assert_eq!((o.lower, o.upper, o.both), (0, 0, 0));
        // 200 values of 0 and one of 1000: 1000 > mean + 4 sd;
        // upperperc = round(1/201*100, 2) = 0.5.
        let mut y = vec![0.0; 200];
        y.push(1000.0);
        let o = outlier_row(&y);
        assert_eq!((o.lower, o.upper, o.both), (0, 1, 1));
        assert_eq!(o.upperperc, 0.5);
        assert_eq!(o.bothperc, 0.5);
        assert_eq!(o.lowerperc, 0.0);
    }

    #[test]
    fn descriptives_by_hand() {
        let x = [1.0, 2.0, 3.0, 10.0];
        let y = [1.0, 2.0, 3.0, 4.0];
        let d = descriptives(&x, &y);
        assert_eq!((d.mean, d.min, d.max, d.n), (4.0, 1.0, 10.0, 4));
        assert!((d.sd - (50.0f64 / 3.0).sqrt()).abs() < 1e-14);
        // r: sxy = (-3)(-1.5)+(-2)(-0.5)+(-1)(0.5)+6(1.5) = 14; sxx 50; syy 5.
        let r = 14.0 / (250.0f64).sqrt();
        assert!((d.correlation - r).abs() < 1e-15);
        // n = 4: p = 1 - |r|.
        assert!((d.p - (1.0 - r)).abs() < 1e-14);
    }

    #[test]
    fn partial_correlations_three_variables_by_hand() {
        // pcor(x, y | z) = (rxy - rxz ryz) / sqrt((1 - rxz^2)(1 - ryz^2)).
        let x = [1.0, 2.0, 4.0, 3.0, 6.0, 5.0];
        let y = [2.0, 1.0, 4.0, 6.0, 5.0, 7.0];
        let z = [1.0, 3.0, 2.0, 5.0, 4.0, 4.5];
        let (rxy, rxz, ryz) = (pearson(&x, &y), pearson(&x, &z), pearson(&y, &z));
        let want = (rxy - rxz * ryz) / ((1.0 - rxz * rxz) * (1.0 - ryz * ryz)).sqrt();
        let got = partial_correlations_given(&[&x], &y, &z).unwrap()[0];
        assert!((got - want).abs() < 1e-13, "{got} {want}");
        assert!((partial_correlations(&[&x, &z], &y).unwrap()[0] - want).abs() < 1e-13);
        // More columns than rows: NaN.
        assert!(partial_correlations(&[&x[..2], &z[..2]], &y[..2]).unwrap()[0].is_nan());
        // Constant target: singular covariance -> pseudo-inverse -> NaN.
        assert!(partial_correlations(&[&x, &z], &[3.0; 6]).unwrap()[0].is_nan());
        // Mismatched lengths are an error, not a panic.
        assert!(matches!(
            partial_correlations(&[&x[..5], &z], &y),
            Err(LinearError::LengthMismatch { .. })
        ));
    }

    #[test]
    fn groups_sorted_with_all_data() {
        let labels = ["b", "All", "b", "Zed"];
        let g = group_levels(&labels);
        let names: Vec<&str> = g.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["All", "All data", "Zed", "b"]);
        assert_eq!(g[3].1, vec![0, 2]);
        assert_eq!(g[1].1, vec![0, 1, 2, 3]);
        let x = [1.0, 2.0, 3.0, 4.0];
        let y = [5.0, 1.0, 2.0, 0.0];
        let m = marginal_correlations_by_group(&labels, &[&x], &y).unwrap();
        assert!(marginal_correlations_by_group(&labels[..3], &[&x], &y).is_err());
        assert!(m[0].1[0].is_nan()); // one row
        assert_eq!(m[3].1[0], -1.0); // two rows: x up, y down
    }

    #[test]
    fn pca_two_columns_by_hand() {
        // Perfectly anti-correlated scaled columns plus noise-free structure:
        // x = -2,-1,0,1,2; y = 2x: the first component is (1,2)/sqrt(5) up to
        // sign, eigenvalue = (sum x^2 + sum y^2)/(n-1) = (10 + 40)/4 = 12.5.
        let x = [-2.0, -1.0, 0.0, 1.0, 2.0];
        let y = [-4.0, -2.0, 0.0, 2.0, 4.0];
        let pc = pca_with(&[&x, &y], PcaMethod::Svd).unwrap();
        assert!((pc.eigenvalues[0] - 12.5).abs() < 1e-12);
        assert!(pc.eigenvalues[1].abs() < 1e-12);
        // Largest |score| is the first row (-2 * sqrt 5, first on ties with the
        // last): it must be positive, so the loading is -(1,2)/sqrt(5).
        let s5 = 5f64.sqrt();
        assert!(
            (pc.loadings[(0, 0)] + 1.0 / s5).abs() < 1e-12,
            "{}",
            pc.loadings
        );
        assert!((pc.loadings[(1, 0)] + 2.0 / s5).abs() < 1e-12);
        assert!((pc.proportion[0] - 1.0).abs() < 1e-12);
        assert_eq!(pc.cumulative.len(), 2);
    }

    #[test]
    fn pca_methods_agree_when_well_conditioned() {
        let x: Vec<f64> = (0..50).map(|i| ((i * 7) % 11) as f64).collect();
        let y: Vec<f64> = (0..50)
            .map(|i| ((i * 5) % 13) as f64 + 0.3 * x[i])
            .collect();
        let z: Vec<f64> = (0..50).map(|i| ((i * 3) % 17) as f64).collect();
        let a = pca_with(&[&x, &y, &z], PcaMethod::Auto).unwrap();
        let b = pca_with(&[&x, &y, &z], PcaMethod::Svd).unwrap();
        for c in 0..3 {
            assert!((a.eigenvalues[c] - b.eigenvalues[c]).abs() < 1e-12 * b.eigenvalues[0]);
            for j in 0..3 {
                assert!((a.loadings[(j, c)] - b.loadings[(j, c)]).abs() < 1e-10);
            }
        }
    }
}
