//! Stage 4 (metrics, pure): irrCAC's raw-data chance-corrected agreement
//! coefficients (Gwet, *Handbook of Inter-Rater Reliability*; irrCAC 0.4.4,
//! fixture README 6.3): percent agreement, Fleiss' generalised kappa
//! (missing ratings allowed), Gwet's AC1/AC2, Brennan-Prediger, Conger's
//! kappa and irrCAC's Krippendorff alpha, each with Gwet's linearised
//! standard error and its t(n - 1) interval clipped at 1.
//!
//! Pure maths on the count tables of [`super`]: nothing here may touch
//! files, tables, configuration, threads, formatting or report code.
//! Degenerate data (no item with two ratings, one item, chance agreement
//! 1) give `NaN`, never a panic.
//!
//! Notation: `n` items with a rating, `r_ik` ratings of item `i` in
//! category `k`, `r_i = sum_k r_ik`, weights `w_kl`, `T_w = sum_kl w_kl`,
//! `S_i = sum_k r_ik (sum_l w_kl r_il - 1)`, `n2` = items with `r_i >= 2`,
//! `p_a = mean over those of S_i / (r_i (r_i - 1))`, `pi_k = (1/n) sum_i
//! r_ik / r_i` over all `n` items.

use super::{chance_corrected, CountTables, Estimate, ItemCounts, Kernel, PValue, Row};

/// What every coefficient shares: `n`, `n2`, `p_a`, `pi_k`, `T_w`.
struct Observed {
    n: f64,
    n2: f64,
    pa: f64,
    pi: Vec<f64>,
    tw: f64,
}

/// `S_i = sum_k r_ik (sum_l w_kl r_il - 1)` over the categories the item
/// uses (at most its number of ratings, squared).
fn s_i(row: Row, w: &Kernel) -> f64 {
    let mut s = 0.0;
    for (k, a) in row.iter() {
        let star: f64 = row.iter().map(|(l, b)| w.w(k, l) * f64::from(b)).sum();
        s += f64::from(a) * (star - 1.0);
    }
    s
}

/// Agreement of one item: `S_i / (r_i (r_i - 1))`, or `None` below two
/// ratings.
fn item_agreement(row: Row, w: &Kernel) -> Option<f64> {
    let r = f64::from(row.total());
    (r >= 2.0).then(|| s_i(row, w) / (r * (r - 1.0)))
}

fn observed(items: &ItemCounts, w: &Kernel) -> Observed {
    let (mut n, mut n2, mut pa_sum) = (0.0, 0.0, 0.0);
    let mut pi = vec![0.0; items.q];
    for p in 0..items.len() {
        let (row, m) = (items.row(p), items.mult[p]);
        let r = f64::from(row.total());
        n += m;
        if let Some(a) = item_agreement(row, w) {
            n2 += m;
            pa_sum += m * a;
        }
        for (k, c) in row.iter() {
            pi[k] += m * f64::from(c) / r;
        }
    }
    pi.iter_mut().for_each(|v| *v /= n);
    Observed {
        n,
        n2,
        pa: pa_sum / n2,
        pi,
        tw: w.total(),
    }
}

/// `sum_k r_ik x_k` over an item's categories.
fn dot(row: Row, x: &[f64]) -> f64 {
    row.iter().map(|(k, c)| f64::from(c) * x[k]).sum()
}

/// Gwet's linearised variance: over units `(row, multiplicity, p_e,i)`,
/// `kappa_i = (n/n2)(p_a,i - p_e [r_i >= 2]) / (1 - p_e)`, `kappa*_i =
/// kappa_i - 2 (1 - kappa)(p_e,i - p_e)/(1 - p_e)`, `var = sum (kappa*_i -
/// kappa)^2 / (n (n - 1))`.
fn variance<'a>(
    o: &Observed,
    w: &Kernel,
    pe: f64,
    value: f64,
    units: impl Iterator<Item = (Row<'a>, f64, f64)>,
) -> f64 {
    let mut ss = 0.0;
    for (row, m, pe_i) in units {
        let k_i = match item_agreement(row, w) {
            Some(a) => o.n / o.n2 * (a - pe) / (1.0 - pe),
            None => 0.0,
        };
        let k_star = k_i - 2.0 * (1.0 - value) * (pe_i - pe) / (1.0 - pe);
        ss += m * (k_star - value).powi(2);
    }
    ss / (o.n * (o.n - 1.0))
}

/// The estimate with irrCAC's inference on `n - 1` degrees of freedom.
fn finish(o: &Observed, value: f64, var: f64, pe: f64, kind: PValue) -> Estimate {
    if o.n.is_nan() || o.n < 2.0 {
        return Estimate::nan();
    }
    Estimate::from_se(value, var.sqrt(), o.n - 1.0, o.pa, pe, kind)
}

/// Percent agreement `p_a` (pairs of ratings of an item that agree,
/// averaged over items with at least two ratings; weighted with `w`), with
/// the linearised standard error of a coefficient whose chance agreement
/// is 0 (irrCAC's `pa2` for two raters).
pub fn percent_agreement(items: &ItemCounts, w: &Kernel) -> Estimate {
    let o = observed(items, w);
    let units = (0..items.len()).map(|p| (items.row(p), items.mult[p], 0.0));
    let var = variance(&o, w, 0.0, o.pa, units);
    finish(&o, o.pa, var, 0.0, PValue::TwoSided)
}

/// Fleiss' generalised kappa (irrCAC `fleiss.kappa.raw`, missing ratings
/// allowed): `p_e = sum_kl w_kl pi_k pi_l`; `p_e,i = sum_k r_ik pibar_k /
/// r_i` with `pibar_k = ((W pi)_k + (W' pi)_k) / 2 = (W pi)_k` (the
/// weights are symmetric). For two raters this is Scott's pi.
pub fn fleiss_kappa(items: &ItemCounts, w: &Kernel) -> Estimate {
    let o = observed(items, w);
    let pibar = w.apply(&o.pi);
    let pe: f64 = o.pi.iter().zip(&pibar).map(|(a, b)| a * b).sum();
    let value = chance_corrected(o.pa, pe);
    let units = (0..items.len()).map(|p| {
        let row = items.row(p);
        let r = f64::from(row.total());
        (row, items.mult[p], dot(row, &pibar) / r)
    });
    let var = variance(&o, w, pe, value, units);
    finish(&o, value, var, pe, PValue::TwoSided)
}

/// Gwet's AC1 (identity weights) or AC2 (irrCAC `gwet.ac1.raw`): `p_e =
/// T_w / (q (q - 1)) sum_k pi_k (1 - pi_k)`; `p_e,i = T_w / (q (q - 1))
/// sum_k r_ik (1 - pi_k) / r_i`. NaN for a single category (irrCAC's
/// `1 - 1e-15` makes it 1 by round-off: not a target).
pub fn gwet_ac(items: &ItemCounts, w: &Kernel) -> Estimate {
    let q = items.q as f64;
    let o = observed(items, w);
    let scale = if q < 2.0 {
        f64::NAN
    } else {
        o.tw / (q * (q - 1.0))
    };
    let pe = scale * o.pi.iter().map(|p| p * (1.0 - p)).sum::<f64>();
    let value = chance_corrected(o.pa, pe);
    let units = (0..items.len()).map(|p| {
        let row = items.row(p);
        let r = f64::from(row.total());
        let s: f64 = row
            .iter()
            .map(|(k, c)| f64::from(c) * (1.0 - o.pi[k]))
            .sum();
        (row, items.mult[p], scale * s / r)
    });
    let var = variance(&o, w, pe, value, units);
    finish(&o, value, var, pe, PValue::TwoSided)
}

/// Brennan-Prediger (irrCAC `bp.coeff.raw`; Randolph's free-marginal kappa
/// when unweighted): `p_e = T_w / q^2` (irrCAC's `1e-15` for a single
/// category), no correction term in the variance, one-sided p-value.
pub fn brennan_prediger(items: &ItemCounts, w: &Kernel) -> Estimate {
    let q = items.q as f64;
    let o = observed(items, w);
    let pe = if items.q == 1 && !o.tw.is_nan() {
        1e-15
    } else {
        o.tw / (q * q)
    };
    let value = chance_corrected(o.pa, pe);
    let units = (0..items.len()).map(|p| (items.row(p), items.mult[p], pe));
    let var = variance(&o, w, pe, value, units);
    finish(&o, value, var, pe, PValue::OneSided)
}

/// Conger's kappa (irrCAC `conger.kappa.raw`): chance agreement from each
/// rater's own category shares `p_gk` (over the items rater `g` rated):
/// `p_e = sum_kl w_kl (pbar_k pbar_l - s2_kl / r)`, `s2_kl = (sum_g p_gk
/// p_gl - r pbar_k pbar_l) / (r - 1)`, summed as `r/(r - 1) pbar' W pbar -
/// sum_g p_g' W p_g / (r (r - 1))`. NaN without rater information (the
/// counts layout) or when a rater rated nothing.
pub fn conger_kappa(tables: &CountTables, w: &Kernel) -> Estimate {
    let Some(rt) = tables.raters.as_ref() else {
        return Estimate::nan();
    };
    let (q, r) = (tables.q, rt.n_raters);
    let rf = r as f64;
    let o = observed(&tables.items, w);
    let n_g: Vec<f64> = (0..r)
        .map(|g| rt.marginals[g * q..(g + 1) * q].iter().sum())
        .collect();
    let p: Vec<f64> = (0..r * q).map(|i| rt.marginals[i] / n_g[i / q]).collect();
    let pbar: Vec<f64> = (0..q)
        .map(|k| (0..r).map(|g| p[g * q + k]).sum::<f64>() / rf)
        .collect();
    let own: f64 = (0..r)
        .map(|g| w.quad(&p[g * q..(g + 1) * q], &p[g * q..(g + 1) * q]))
        .sum();
    let pe = w.quad(&pbar, &pbar) * rf / (rf - 1.0) - own / (rf * (rf - 1.0));
    let value = chance_corrected(o.pa, pe);
    let lambda = conger_lambda(r, o.n, w, &p, &pbar, &n_g);
    let units = (0..rt.n_rows()).map(|row| {
        let counts = tables.items.row(rt.row_pattern[row] as usize);
        let sum: f64 = rt
            .row(row)
            .enumerate()
            .map(|(g, c)| lambda[g * (q + 1) + c.unwrap_or(q)])
            .sum();
        (counts, rt.row_mult[row], sum / (rf * (rf - 1.0)))
    });
    let var = variance(&o, w, pe, value, units);
    finish(&o, value, var, pe, PValue::TwoSided)
}

/// `lambda_ig` for rater `g` by the code `c` it gave (index `q`: no
/// rating): `sum_k (n/n_g) [sum_l w_kl (delta_cl - (eps_ig - n_g/n) p_gl)]
/// (r pbar_k - p_gk)` = `(n/n_g) [(W u_g)_c - (eps_ig - n_g/n) (W p_g)'
/// u_g]` with `u_g = r pbar - p_g` (`eps_ig` = 1 when rated; the first
/// term is absent for no rating).
fn conger_lambda(r: usize, n: f64, w: &Kernel, p: &[f64], pbar: &[f64], n_g: &[f64]) -> Vec<f64> {
    let q = pbar.len();
    let mut out = vec![0.0; r * (q + 1)];
    for g in 0..r {
        let p_g = &p[g * q..(g + 1) * q];
        let u: Vec<f64> = (0..q).map(|k| r as f64 * pbar[k] - p_g[k]).collect();
        let wu = w.apply(&u);
        let cross = w.quad(&u, p_g);
        let share = n_g[g] / n;
        let lam = &mut out[g * (q + 1)..(g + 1) * (q + 1)];
        for (c, slot) in lam.iter_mut().enumerate().take(q) {
            *slot = n / n_g[g] * (wu[c] - (1.0 - share) * cross);
        }
        lam[q] = n / n_g[g] * share * cross;
    }
    out
}

/// irrCAC's Krippendorff alpha (`krippen.alpha.raw`) with its own variance,
/// over the `n'` items with at least two ratings (its value equals
/// [`super::alpha::krippendorff_alpha`] nominal for identity weights,
/// interval for quadratic ones): `rbar` = their mean `r_i`, `eps = 1 / sum
/// r_i`, `p_a' = (1/n') sum S_i / (rbar (r_i - 1))`, `p_a = (1 - eps) p_a'
/// + eps`, `pi_k = (1/n') sum r_ik / rbar`, `p_e = sum w pi pi`; variance
/// centred on `alpha' = (p_a' - p_e)/(1 - p_e)`, `n' - 1` degrees of
/// freedom. Reports `pa` = `p_a`.
pub fn krippendorff_irrcac(items: &ItemCounts, w: &Kernel) -> Estimate {
    let units = items.filter(|t| t >= 2);
    let (mut n, mut sum_r) = (0.0, 0.0);
    for p in 0..units.len() {
        n += units.mult[p];
        sum_r += units.mult[p] * f64::from(units.total(p));
    }
    let rbar = sum_r / n;
    let eps = 1.0 / sum_r;
    let (mut pa_prime, mut pi) = (0.0, vec![0.0; items.q]);
    for p in 0..units.len() {
        let (row, m) = (units.row(p), units.mult[p]);
        let r = f64::from(row.total());
        pa_prime += m * s_i(row, w) / (rbar * (r - 1.0));
        for (k, c) in row.iter() {
            pi[k] += m * f64::from(c) / rbar;
        }
    }
    pa_prime /= n;
    pi.iter_mut().for_each(|v| *v /= n);
    let pa = (1.0 - eps) * pa_prime + eps;
    let pibar = w.apply(&pi);
    let pe: f64 = pi.iter().zip(&pibar).map(|(a, b)| a * b).sum();
    let value = chance_corrected(pa, pe);
    let prime = chance_corrected(pa_prime, pe);
    let mut ss = 0.0;
    for p in 0..units.len() {
        let (row, m) = (units.row(p), units.mult[p]);
        let r = f64::from(row.total());
        let pa_i = s_i(row, w) / (rbar * (r - 1.0)) - pa * (r - rbar) / rbar;
        let a_i = (pa_i - pe) / (1.0 - pe);
        let pe_i = dot(row, &pibar) / rbar - pe * (r - rbar) / rbar;
        let a_star = a_i - 2.0 * (1.0 - prime) * (pe_i - pe) / (1.0 - pe);
        ss += m * (a_star - prime).powi(2);
    }
    let var = ss / (n * (n - 1.0));
    if n.is_nan() || n < 2.0 {
        return Estimate::nan();
    }
    Estimate::from_se(value, var.sqrt(), n - 1.0, pa, pe, PValue::TwoSided)
}

/// Share of all ratings in each category (`sum_i r_ik / sum_i r_i`).
pub fn category_shares(items: &ItemCounts) -> Vec<f64> {
    let share = items.category_totals();
    let total: f64 = share.iter().sum();
    share.iter().map(|s| s / total).collect()
}

/// Specific agreement per category (spec 3, `_agreement_by_category`): the
/// share of agreeing pairs among the pairs of ratings that involve the
/// category, `sum_i r_ik (r_ik - 1) / sum_i r_ik (r_i - 1)` over items
/// with at least two ratings (ordered pairs). NaN for a category no
/// pairable item uses.
pub fn specific_agreement(items: &ItemCounts) -> Vec<f64> {
    let (mut agree, mut involved) = (vec![0.0; items.q], vec![0.0; items.q]);
    for p in 0..items.len() {
        let row = items.row(p);
        let r = f64::from(row.total());
        if r < 2.0 {
            continue;
        }
        for (k, c) in row.iter() {
            let c = f64::from(c);
            agree[k] += items.mult[p] * c * (c - 1.0);
            involved[k] += items.mult[p] * c * (r - 1.0);
        }
    }
    agree.iter().zip(&involved).map(|(a, b)| a / b).collect()
}
