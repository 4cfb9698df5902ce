//! Stage 4 (metrics, pure): agreement of two raters from their
//! contingency table (rows = first rater), stored as its non-zero cells
//! and summed through [`Kernel`] (no `q x q` loop but in irrCAC's table
//! functions, which the parity tests use and no report does): exact agreement, Cohen's kappa
//! as scikit-learn computes it (unweighted, linear, quadratic weights by
//! position), Cohen's kappa with the Fleiss-Cohen-Everitt (1969) standard
//! error, its normal interval and the z under the null as statsmodels
//! `cohens_kappa` (fixture README 6.9), irrCAC's contingency-table
//! functions (6.3.1: Cohen, Scott, Gwet, Brennan-Prediger, Krippendorff,
//! percent agreement), Scott's pi from the raw-data formulas, and Pearson's
//! r with scipy's p-value.
//!
//! Pure maths on count tables: nothing here may touch files, tables,
//! configuration, threads, formatting or report code. Degenerate tables
//! (empty, one category, chance agreement 1) give `NaN`, never a panic.

use super::chance::fleiss_kappa;
use super::fleiss::upper_normal;
use super::{
    chance_corrected, positions, weight_matrix, Estimate, ItemCounts, Kernel, PValue, PairTable,
    Weights,
};
use crate::distributions::beta_reg;

/// The normal 0.975 quantile statsmodels uses for kappa's interval.
const Z_975: f64 = 1.959963984540054;

/// Proportions of a table: `n`, row and column margins (as shares).
struct Props {
    n: f64,
    row: Vec<f64>,
    col: Vec<f64>,
}

fn props(table: &PairTable) -> Props {
    let n = table.n();
    let (mut row, mut col) = table.margins();
    row.iter_mut().chain(col.iter_mut()).for_each(|x| *x /= n);
    Props { n, row, col }
}

/// `sum a_k b_k`.
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Weights by position (scikit-learn, statsmodels and irrCAC's table
/// functions).
fn by_position(q: usize, kind: Weights) -> Kernel {
    Kernel::new(&positions(q), kind)
}

/// Share of items on the diagonal (scikit-learn `accuracy_score`).
pub fn exact_agreement(table: &PairTable) -> f64 {
    table.diagonal() / table.n()
}

/// scikit-learn `cohen_kappa_score`: `1 - sum w C / sum w E`, `E` = outer
/// product of the margins / `N`, disagreement weights by position
/// (`[k != l]`, `|k - l|`, `(k - l)^2`; only their ratio matters, so they
/// are taken over the range). NaN when `N = 0` or `sum w E = 0`.
///
/// Unweighted, the same statistic as [`crate::agreement::kappa`]
/// (SKLL, on raw scores it rounds), which divides integer counts once where
/// this one sums shares: the two agree to rounding, not bit for bit (a test
/// in `metrics` compares them), and on one category that one gives 1.0
/// where this one gives NaN. [`crate::preferences::cohen_kappa`]
/// is the 2 x 2 case, evaluated in scikit-learn's order.
pub fn cohen_kappa(table: &PairTable, kind: Weights) -> f64 {
    let pr = props(table);
    let kern = by_position(table.q, kind);
    let obs: f64 = table
        .cells
        .iter()
        .map(|&(k, l, t)| (1.0 - kern.w(k as usize, l as usize)) * t)
        .sum();
    let exp = dot(&pr.row, &kern.disagree(&pr.col)) * pr.n;
    if pr.n.is_nan() || pr.n <= 0.0 || exp == 0.0 || exp.is_nan() {
        return f64::NAN;
    }
    1.0 - obs / exp
}

/// Cohen's kappa with statsmodels' inference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CohenKappa {
    pub kappa: f64,
    /// Fleiss-Cohen-Everitt (1969) standard error (under the alternative).
    pub se: f64,
    /// `kappa -+ z_0.975 se`, not clipped.
    pub lower: f64,
    pub upper: f64,
    /// Standard error under H0 (kappa = 0): for the z test only.
    pub se0: f64,
    pub z: f64,
    pub p_one_sided: f64,
    pub p_two_sided: f64,
}

/// statsmodels `cohens_kappa(table, wt)`: weights by position (`d_kl =
/// |k - l|/(q - 1)` or its square, agreement `w = 1 - d`), the variance of
/// Fleiss, Cohen and Everitt (1969) and under H0 (SAS formulas for the
/// weighted forms). A negative variance gives a NaN standard error.
pub fn cohen_kappa_se(table: &PairTable, kind: Weights) -> CohenKappa {
    let pr = props(table);
    let (var, var0, kappa) = match kind {
        Weights::Identity => unweighted_variances(table, &pr),
        _ => weighted_variances(table, &pr, kind),
    };
    let sd = |v: f64| if v < 0.0 { f64::NAN } else { v.sqrt() };
    let (se, se0) = (sd(var), sd(var0));
    let z = kappa / se0;
    CohenKappa {
        kappa,
        se,
        lower: kappa - Z_975 * se,
        upper: kappa + Z_975 * se,
        se0,
        z,
        p_one_sided: upper_normal(z),
        p_two_sided: 2.0 * upper_normal(z.abs()),
    }
}

/// `(var, var0, kappa)` of unweighted kappa (fixture README 6.9), over
/// the non-zero cells and the margins.
fn unweighted_variances(table: &PairTable, pr: &Props) -> (f64, f64, f64) {
    let (row, col) = (&pr.row, &pr.col);
    let po = table.diagonal() / pr.n;
    let pe = dot(row, col);
    let kappa = (po - pe) / (1.0 - pe);
    let (mut a, mut b) = (0.0, 0.0);
    for &(i, j, t) in &table.cells {
        let (i, j, p) = (i as usize, j as usize, t / pr.n);
        if i == j {
            a += p * (1.0 - (row[i] + col[i]) * (1.0 - kappa)).powi(2);
        } else {
            b += p * (col[i] + row[j]).powi(2);
        }
    }
    b *= (1.0 - kappa).powi(2);
    let c = (kappa - pe * (1.0 - kappa)).powi(2);
    let denom = (1.0 - pe).powi(2) * pr.n;
    let cross: f64 = (0..table.q)
        .map(|i| col[i] * row[i] * (col[i] + row[i]))
        .sum();
    ((a + b - c) / denom, (pe + pe * pe - cross) / denom, kappa)
}

/// `(var, var0, kappa_w)` of weighted kappa (fixture README 6.9), with
/// weights by position: the sums over the cells are over the non-zero
/// cells, those over the outer product of the margins are expanded into
/// [`Kernel`] products (`sum r_i c_j (w_ij - a_i - b_j)^2 = sum r c w^2 -
/// 2 (r'a^2 + c'b^2) + (r'a^2)(c'1) + 2 (r'a)(c'b) + (r'1)(c'b^2)`, with
/// `a = W c`, `b = W r`).
fn weighted_variances(table: &PairTable, pr: &Props, kind: Weights) -> (f64, f64, f64) {
    let (row, col) = (&pr.row, &pr.col);
    let kern = by_position(table.q, kind);
    let num: f64 = table
        .cells
        .iter()
        .map(|&(k, l, t)| (1.0 - kern.w(k as usize, l as usize)) * t / pr.n)
        .sum();
    let den = dot(row, &kern.disagree(col));
    let kappa = 1.0 - num / den;
    let wr = kern.apply(col);
    let wc = kern.apply(row);
    let pe = dot(row, &wr);
    let mut s = 0.0;
    for &(i, j, t) in &table.cells {
        let (i, j) = (i as usize, j as usize);
        s += t / pr.n * (kern.w(i, j) - (wr[i] + wc[j]) * (1.0 - kappa)).powi(2);
    }
    let sq = |x: &[f64]| -> Vec<f64> { x.iter().map(|v| v * v).collect() };
    let (ra2, cb2) = (dot(row, &sq(&wr)), dot(col, &sq(&wc)));
    let (r1, c1): (f64, f64) = (row.iter().sum(), col.iter().sum());
    let s0 = kern.quad_squared(row, col) - 2.0 * (ra2 + cb2)
        + ra2 * c1
        + 2.0 * dot(row, &wr) * dot(col, &wc)
        + r1 * cb2;
    let denom = (1.0 - pe).powi(2) * pr.n;
    let var = (s - (kappa - pe * (1.0 - kappa)).powi(2)) / denom;
    (var, (s0 - pe * pe) / denom, kappa)
}

/// The most categories [`table_coefficient`] takes (a dense table of
/// 1,000 x 1,000 cells is 8 MB).
pub const DENSE_MAX_CATEGORIES: usize = 1000;

/// A dense table's proportions and margins ([`table_coefficient`]).
struct DenseProps {
    n: f64,
    p: Vec<f64>,
    row: Vec<f64>,
    col: Vec<f64>,
}

/// irrCAC's two-rater contingency-table functions (fixture README 6.3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TableMethod {
    Cohen,
    Scott,
    Gwet,
    BrennanPrediger,
    Krippendorff,
    PercentAgreement,
}

/// irrCAC `table.CAC(table, weights).<method>()`: weights over positions,
/// t(n - 1) interval clipped at 1; p-value two-sided on `|z|` for Cohen,
/// on `max(value, 0) / se` for the others. Works on the dense `q x q`
/// table and weights (the parity tests' reference for irrCAC's table
/// functions; no report calls it, and it refuses more than
/// [`DENSE_MAX_CATEGORIES`] categories with NaN rather than allocate
/// `q^2` cells).
pub fn table_coefficient(table: &PairTable, method: TableMethod, kind: Weights) -> Estimate {
    let q = table.q;
    if q > DENSE_MAX_CATEGORIES {
        return Estimate::nan();
    }
    let dense = table.to_dense();
    let pr = props(table);
    let n = pr.n;
    let p: Vec<f64> = dense.iter().map(|t| t / n).collect();
    let pr = DenseProps {
        n,
        p,
        row: pr.row,
        col: pr.col,
    };
    let w = weight_matrix(&positions(q), kind);
    let pa: f64 = (0..q * q).map(|c| w[c] * pr.p[c]).sum();
    let wbar_c: Vec<f64> = (0..q)
        .map(|k| (0..q).map(|l| w[l * q + k] * pr.col[l]).sum())
        .collect();
    let wbar_r: Vec<f64> = (0..q)
        .map(|k| (0..q).map(|l| w[l * q + k] * pr.row[l]).sum())
        .collect();
    let pi: Vec<f64> = (0..q).map(|k| (pr.row[k] + pr.col[k]) / 2.0).collect();
    let pibar: Vec<f64> = (0..q).map(|k| (wbar_c[k] + wbar_r[k]) / 2.0).collect();
    let tw: f64 = w.iter().sum();
    let sum_p = |f: &dyn Fn(usize, usize) -> f64| -> f64 {
        (0..q * q).map(|c| pr.p[c] * f(c / q, c % q)).sum()
    };
    let qf = q as f64;
    let scott_pe = (0..q * q)
        .map(|c| w[c] * pi[c / q] * pi[c % q])
        .sum::<f64>();
    let scott_var = |value: f64| {
        let s = sum_p(&|k, l| (w[k * q + l] - (1.0 - value) * (pibar[k] + pibar[l])).powi(2));
        (s - (pa - 2.0 * (1.0 - value) * scott_pe).powi(2)) / (pr.n * (1.0 - scott_pe).powi(2))
    };
    let (value, var, pa_out, shown_pe) = match method {
        TableMethod::Cohen => {
            let pe = (0..q * q)
                .map(|c| w[c] * pr.row[c / q] * pr.col[c % q])
                .sum::<f64>();
            let v = chance_corrected(pa, pe);
            let s = sum_p(&|k, l| (w[k * q + l] - (1.0 - v) * (wbar_c[k] + wbar_r[l])).powi(2));
            let var = (s - (pa - 2.0 * (1.0 - v) * pe).powi(2)) / (pr.n * (1.0 - pe).powi(2));
            (v, var, pa, pe)
        }
        TableMethod::Scott => {
            let v = chance_corrected(pa, scott_pe);
            (v, scott_var(v), pa, 0.0)
        }
        TableMethod::Krippendorff => {
            let eps = 1.0 / (2.0 * pr.n);
            let pa2 = (1.0 - eps) * pa + eps;
            let v = chance_corrected(pa2, scott_pe);
            let pi_s = chance_corrected(pa, scott_pe);
            (v, scott_var(pi_s), pa2, scott_pe)
        }
        TableMethod::Gwet => {
            let scale = tw / (qf * (qf - 1.0));
            let pe = scale * pi.iter().map(|p| p * (1.0 - p)).sum::<f64>();
            let v = chance_corrected(pa, pe);
            let t = |k: usize, l: usize| {
                w[k * q + l] - 2.0 * (1.0 - v) * scale * (1.0 - (pi[k] + pi[l]) / 2.0)
            };
            let s = sum_p(&|k, l| t(k, l).powi(2));
            let var = (s - (pa - 2.0 * (1.0 - v) * pe).powi(2)) / (pr.n * (1.0 - pe).powi(2));
            (v, var, pa, pe)
        }
        TableMethod::BrennanPrediger => {
            let pe = tw / (qf * qf);
            let v = chance_corrected(pa, pe);
            let var = (sum_p(&|k, l| w[k * q + l].powi(2)) - pa * pa) / (pr.n * (1.0 - pe).powi(2));
            (v, var, pa, pe)
        }
        TableMethod::PercentAgreement => {
            let var = (sum_p(&|k, l| w[k * q + l].powi(2)) - pa * pa) / pr.n;
            (pa, var, pa, 0.0)
        }
    };
    let kind_p = if method == TableMethod::Cohen {
        PValue::TwoSided
    } else {
        PValue::TwoSidedPositive
    };
    Estimate::from_se(value, var.sqrt(), pr.n - 1.0, pa_out, shown_pe, kind_p)
}

/// Scott's pi of two raters with irrCAC's raw-data standard error (its
/// `fleiss.kappa.raw` on the two columns; equals Fleiss' kappa for two
/// raters).
pub fn scott_pi(table: &PairTable, w: &Kernel) -> Estimate {
    fleiss_kappa(&ItemCounts::from_pair_table(table), w)
}

/// Pearson's r of the two raters' category values over the table, with
/// scipy's two-sided p-value ([`pearson_p_value`]). NaN for fewer than two
/// items or a constant rater; `n = 2` gives `+-1` with p = 1.
pub fn pearson_table(table: &PairTable, values: &[f64]) -> (f64, f64) {
    let pr = props(table);
    let mx = dot(&pr.row, values);
    let my = dot(&pr.col, values);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for &(k, l, t) in &table.cells {
        let (dx, dy) = (values[k as usize] - mx, values[l as usize] - my);
        sxy += t * dx * dy;
        sxx += t * dx * dx;
        syy += t * dy * dy;
    }
    if pr.n.is_nan() || pr.n < 2.0 || sxx == 0.0 || syy == 0.0 {
        return (f64::NAN, f64::NAN);
    }
    let r = (sxy / (sxx.sqrt() * syy.sqrt())).clamp(-1.0, 1.0);
    if pr.n == 2.0 {
        return (r.signum(), 1.0);
    }
    (r, pearson_p_value(r, pr.n))
}

/// scipy `pearsonr`'s two-sided p-value: `2 I_{(1 - |r|)/2}(n/2 - 1, n/2 -
/// 1)` (the Beta(n/2 - 1, n/2 - 1) tail on (-1, 1)).
pub fn pearson_p_value(r: f64, n: f64) -> f64 {
    if r.is_nan() || n.is_nan() || n <= 2.0 {
        return f64::NAN;
    }
    let ab = n / 2.0 - 1.0;
    2.0 * beta_reg(ab, ab, (1.0 - r.abs()) / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::Lcg;

    /// statsmodels' weighted-kappa variances over the dense table and the
    /// outer product of the margins, as written in the fixture README 6.9.
    fn dense_weighted(table: &[f64], q: usize, kind: Weights) -> (f64, f64, f64) {
        let n: f64 = table.iter().sum();
        let p: Vec<f64> = table.iter().map(|t| t / n).collect();
        let (mut row, mut col) = (vec![0.0; q], vec![0.0; q]);
        for k in 0..q {
            for l in 0..q {
                row[k] += p[k * q + l];
                col[l] += p[k * q + l];
            }
        }
        let w = weight_matrix(&positions(q), kind);
        let (mut num, mut den) = (0.0, 0.0);
        for c in 0..q * q {
            num += (1.0 - w[c]) * p[c];
            den += (1.0 - w[c]) * row[c / q] * col[c % q];
        }
        let kappa = 1.0 - num / den;
        let wr: Vec<f64> = (0..q)
            .map(|i| (0..q).map(|j| col[j] * w[i * q + j]).sum())
            .collect();
        let wc: Vec<f64> = (0..q)
            .map(|j| (0..q).map(|i| row[i] * w[i * q + j]).sum())
            .collect();
        let pe: f64 = (0..q * q).map(|c| w[c] * row[c / q] * col[c % q]).sum();
        let (mut s, mut s0) = (0.0, 0.0);
        for i in 0..q {
            for j in 0..q {
                s += p[i * q + j] * (w[i * q + j] - (wr[i] + wc[j]) * (1.0 - kappa)).powi(2);
                s0 += row[i] * col[j] * (w[i * q + j] - (wr[i] + wc[j])).powi(2);
            }
        }
        let denom = (1.0 - pe).powi(2) * n;
        let var = (s - (kappa - pe * (1.0 - kappa)).powi(2)) / denom;
        (var, (s0 - pe * pe) / denom, kappa)
    }

    /// The sparse, operator form equals the dense definition at 1e-9 on
    /// random tables of up to 150 categories.
    #[test]
    fn weighted_kappa_variances_equal_the_dense_definition() {
        let mut g = Lcg(3);
        for trial in 0..40 {
            let q = 2 + (g.next() * 150.0) as usize;
            let mut table = vec![0.0; q * q];
            for _ in 0..(20 + trial * 10) {
                let k = (g.next() * q as f64) as usize;
                let l = (k + (g.next() * 3.0) as usize).min(q - 1);
                table[k * q + l] += 1.0;
            }
            let t = PairTable::from_dense(&table, q);
            for kind in [Weights::Linear, Weights::Quadratic] {
                let (a, b) = (
                    weighted_variances(&t, &props(&t), kind),
                    dense_weighted(&table, q, kind),
                );
                for (x, y) in [(a.0, b.0), (a.1, b.1), (a.2, b.2)] {
                    assert!(
                        (x - y).abs() <= 1e-9 * (1.0 + y.abs()),
                        "q {q} {kind:?}: {a:?} vs {b:?}"
                    );
                }
            }
        }
    }
}
