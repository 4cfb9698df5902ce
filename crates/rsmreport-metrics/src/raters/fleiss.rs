//! Stage 4 (metrics, pure): Fleiss' (1971) kappa and Randolph's
//! free-marginal kappa on items that every rater rated, as statsmodels
//! `fleiss_kappa` computes them (fixture README 6.2), with R `irr`'s
//! `kappam.fleiss` per-category kappas and z statistics under the null
//! hypothesis of no agreement (a test of kappa = 0, never an interval).
//!
//! Pure maths on the count tables of [`super`]: nothing here may touch
//! files, tables, configuration, threads, formatting or report code.
//! Degenerate data (no complete item, one category, one rater) give
//! `NaN`, never a panic.

use statrs::distribution::{ContinuousCDF, Normal};

use super::ItemCounts;

/// Fleiss' kappa of a complete table (`N` items, `m` ratings each).
#[derive(Clone, Debug, PartialEq)]
pub struct FleissKappa {
    /// Items used (`N`) and ratings per item (`m`).
    pub n_items: f64,
    pub n_raters: f64,
    /// `kappa = (P - P_e) / (1 - P_e)`, `P_e = sum_j p_j^2`.
    pub kappa: f64,
    /// Randolph: `P_e = 1/q`, `q` = the declared categories.
    pub randolph: f64,
    /// Randolph with `q` = the categories that occur.
    pub randolph_observed: f64,
    /// `P` (mean item agreement) and `P_e`.
    pub p_bar: f64,
    pub p_e: f64,
    /// R `irr`: standard error of kappa under H0, `z = kappa / se0` and its
    /// two-sided normal p-value.
    pub se0: f64,
    pub z: f64,
    pub p_value: f64,
    /// Per category: share of ratings `p_j`, kappa, z under H0 (`se0 =
    /// sqrt(2 / (N m (m - 1)))`).
    pub shares: Vec<f64>,
    pub category_kappa: Vec<f64>,
    pub category_z: Vec<f64>,
}

/// Fleiss' and Randolph's kappa of `items`, which must all have the same
/// number of ratings (pass [`super::CountTables::complete_items`]); NaN
/// throughout when they do not (statsmodels asserts), when there is none,
/// or when `m < 2`.
pub fn fleiss_kappa_complete(items: &ItemCounts) -> FleissKappa {
    let q = items.q;
    let m = if items.is_empty() { 0 } else { items.total(0) };
    let uniform = (0..items.len()).all(|p| items.total(p) == m);
    let mf = if uniform && m >= 2 {
        f64::from(m)
    } else {
        f64::NAN
    };
    let n: f64 = items.mult.iter().sum();
    let mut col = vec![0.0; q];
    let mut col_sq = vec![0.0; q];
    let mut p_sum = 0.0;
    for p in 0..items.len() {
        let (row, w) = (items.row(p), items.mult[p]);
        let mut sq = 0.0;
        for (k, c) in row.iter() {
            let c = f64::from(c);
            col[k] += w * c;
            col_sq[k] += w * c * c;
            sq += c * c;
        }
        p_sum += w * (sq - mf) / (mf * (mf - 1.0));
    }
    let total = n * mf;
    let shares: Vec<f64> = col.iter().map(|c| c / total).collect();
    let p_bar = p_sum / n;
    let p_e: f64 = shares.iter().map(|p| p * p).sum();
    let observed_q = col.iter().filter(|&&c| c > 0.0).count() as f64;
    let free = |k: f64| (p_bar - 1.0 / k) / (1.0 - 1.0 / k);
    let (se0, category_kappa, category_z) = null_tests(&shares, &col_sq, n, mf);
    let kappa = (p_bar - p_e) / (1.0 - p_e);
    let z = kappa / se0;
    FleissKappa {
        n_items: n,
        n_raters: mf,
        kappa,
        randolph: free(q as f64),
        randolph_observed: free(observed_q),
        p_bar,
        p_e,
        se0,
        z,
        p_value: two_sided_normal(z),
        shares,
        category_kappa,
        category_z,
    }
}

/// R `irr::kappam.fleiss`: `se0 = sqrt(2) / (sum p_j q_j sqrt(N m (m -
/// 1))) * sqrt((sum p_j q_j)^2 - sum p_j q_j (q_j - p_j))`; per category
/// `kappa_j = (pjk - p_j) / (1 - p_j)` with `pjk = (sum_i x_ij^2 - N m p_j)
/// / (N m (m - 1) p_j)`, `z_j = kappa_j / sqrt(2 / (N m (m - 1)))`.
fn null_tests(shares: &[f64], col_sq: &[f64], n: f64, m: f64) -> (f64, Vec<f64>, Vec<f64>) {
    let nmm = n * m * (m - 1.0);
    let pq: f64 = shares.iter().map(|p| p * (1.0 - p)).sum();
    let pqqp: f64 = shares.iter().map(|p| p * (1.0 - p) * (1.0 - 2.0 * p)).sum();
    let se0 = 2f64.sqrt() / (pq * nmm.sqrt()) * (pq * pq - pqqp).sqrt();
    let se_k = (2.0 / nmm).sqrt();
    let kappas: Vec<f64> = shares
        .iter()
        .zip(col_sq)
        .map(|(&p, &sq)| {
            let pjk = (sq - n * m * p) / (nmm * p);
            (pjk - p) / (1.0 - p)
        })
        .collect();
    let zs = kappas.iter().map(|k| k / se_k).collect();
    (se0, kappas, zs)
}

/// `2 P(Z > |z|)`, NaN for NaN.
pub(crate) fn two_sided_normal(z: f64) -> f64 {
    if z.is_nan() {
        return f64::NAN;
    }
    2.0 * upper_normal(z.abs())
}

/// `P(Z > z)` for the standard normal.
pub(crate) fn upper_normal(z: f64) -> f64 {
    if z.is_nan() {
        return f64::NAN;
    }
    Normal::new(0.0, 1.0).map_or(f64::NAN, |d| d.sf(z))
}
