//! Stage 4 (metrics, pure): agreement of two raters from their `q x q`
//! contingency table (rows = first rater): exact agreement, Cohen's kappa
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
use super::{chance_corrected, positions, weight_matrix, Estimate, ItemCounts, PValue, Weights};
use crate::metrics::ols::beta_reg;

/// The normal 0.975 quantile statsmodels uses for kappa's interval.
const Z_975: f64 = 1.959963984540054;

/// Proportions of a table: `n`, `p_kl`, row and column margins.
struct Props {
    n: f64,
    p: Vec<f64>,
    row: Vec<f64>,
    col: Vec<f64>,
}

fn props(table: &[f64], q: usize) -> Props {
    let n: f64 = table.iter().sum();
    let p: Vec<f64> = table.iter().map(|t| t / n).collect();
    let (mut row, mut col) = (vec![0.0; q], vec![0.0; q]);
    for k in 0..q {
        for l in 0..q {
            row[k] += p[k * q + l];
            col[l] += p[k * q + l];
        }
    }
    Props { n, p, row, col }
}

/// Share of items on the diagonal (scikit-learn `accuracy_score`).
pub fn exact_agreement(table: &[f64], q: usize) -> f64 {
    let n: f64 = table.iter().sum();
    (0..q).map(|k| table[k * q + k]).sum::<f64>() / n
}

/// Disagreement weights by position: `[k != l]`, `|k - l|`, `(k - l)^2`.
fn disagreement(kind: Weights, k: usize, l: usize) -> f64 {
    let d = k.abs_diff(l) as f64;
    match kind {
        Weights::Identity => f64::from(u8::from(k != l)),
        Weights::Linear => d,
        Weights::Quadratic => d * d,
    }
}

/// scikit-learn `cohen_kappa_score`: `1 - sum w C / sum w E`, `E` = outer
/// product of the margins / `N`, disagreement weights by position. NaN
/// when `N = 0` or `sum w E = 0`.
pub fn cohen_kappa(table: &[f64], q: usize, kind: Weights) -> f64 {
    let pr = props(table, q);
    let (mut obs, mut exp) = (0.0, 0.0);
    for k in 0..q {
        for l in 0..q {
            let w = disagreement(kind, k, l);
            obs += w * table[k * q + l];
            exp += w * pr.row[k] * pr.col[l] * pr.n;
        }
    }
    if pr.n.is_nan() || pr.n <= 0.0 || exp == 0.0 {
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
pub fn cohen_kappa_se(table: &[f64], q: usize, kind: Weights) -> CohenKappa {
    let pr = props(table, q);
    let (var, var0, kappa) = match kind {
        Weights::Identity => unweighted_variances(&pr, q),
        _ => weighted_variances(&pr, q, kind),
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

/// `(var, var0, kappa)` of unweighted kappa (fixture README 6.9).
fn unweighted_variances(pr: &Props, q: usize) -> (f64, f64, f64) {
    let (p, row, col) = (&pr.p, &pr.row, &pr.col);
    let po: f64 = (0..q).map(|i| p[i * q + i]).sum();
    let pe: f64 = (0..q).map(|i| row[i] * col[i]).sum();
    let kappa = (po - pe) / (1.0 - pe);
    let (mut a, mut b) = (0.0, 0.0);
    for i in 0..q {
        a += p[i * q + i] * (1.0 - (row[i] + col[i]) * (1.0 - kappa)).powi(2);
        for j in (0..q).filter(|&j| j != i) {
            b += p[i * q + j] * (col[i] + row[j]).powi(2);
        }
    }
    b *= (1.0 - kappa).powi(2);
    let c = (kappa - pe * (1.0 - kappa)).powi(2);
    let denom = (1.0 - pe).powi(2) * pr.n;
    let cross: f64 = (0..q).map(|i| col[i] * row[i] * (col[i] + row[i])).sum();
    ((a + b - c) / denom, (pe + pe * pe - cross) / denom, kappa)
}

/// `(var, var0, kappa_w)` of weighted kappa (fixture README 6.9).
fn weighted_variances(pr: &Props, q: usize, kind: Weights) -> (f64, f64, f64) {
    let (p, row, col) = (&pr.p, &pr.row, &pr.col);
    let span = (q as f64 - 1.0).powi(if kind == Weights::Linear { 1 } else { 2 });
    let d = |k: usize, l: usize| disagreement(kind, k, l) / span;
    let (mut num, mut den) = (0.0, 0.0);
    for k in 0..q {
        for l in 0..q {
            num += d(k, l) * p[k * q + l];
            den += d(k, l) * row[k] * col[l];
        }
    }
    let kappa = 1.0 - num / den;
    let w = |k: usize, l: usize| 1.0 - d(k, l);
    let wr: Vec<f64> = (0..q)
        .map(|i| (0..q).map(|j| col[j] * w(i, j)).sum())
        .collect();
    let wc: Vec<f64> = (0..q)
        .map(|j| (0..q).map(|i| row[i] * w(i, j)).sum())
        .collect();
    let pe: f64 = (0..q * q)
        .map(|c| w(c / q, c % q) * row[c / q] * col[c % q])
        .sum();
    let (mut s, mut s0) = (0.0, 0.0);
    for i in 0..q {
        for j in 0..q {
            s += p[i * q + j] * (w(i, j) - (wr[i] + wc[j]) * (1.0 - kappa)).powi(2);
            s0 += row[i] * col[j] * (w(i, j) - (wr[i] + wc[j])).powi(2);
        }
    }
    let denom = (1.0 - pe).powi(2) * pr.n;
    let var = (s - (kappa - pe * (1.0 - kappa)).powi(2)) / denom;
    (var, (s0 - pe * pe) / denom, kappa)
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
/// on `max(value, 0) / se` for the others.
pub fn table_coefficient(table: &[f64], q: usize, method: TableMethod, kind: Weights) -> Estimate {
    let pr = props(table, q);
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
pub fn scott_pi(table: &[f64], q: usize, w: &[f64]) -> Estimate {
    fleiss_kappa(&ItemCounts::from_pair_table(table, q), w)
}

/// Pearson's r of the two raters' category values over the table, with
/// scipy's two-sided p-value ([`pearson_p_value`]). NaN for fewer than two
/// items or a constant rater; `n = 2` gives `+-1` with p = 1.
pub fn pearson_table(table: &[f64], q: usize, values: &[f64]) -> (f64, f64) {
    let pr = props(table, q);
    let mx: f64 = (0..q).map(|k| pr.row[k] * values[k]).sum();
    let my: f64 = (0..q).map(|l| pr.col[l] * values[l]).sum();
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for k in 0..q {
        for l in 0..q {
            let (dx, dy, t) = (values[k] - mx, values[l] - my, table[k * q + l]);
            sxy += t * dx * dy;
            sxx += t * dx * dx;
            syy += t * dy * dy;
        }
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
