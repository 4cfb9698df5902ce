//! Stage 4 (metrics): the fairness analyses of spec 3.15 (overall score
//! accuracy, overall score difference, conditional score difference) for one
//! subgroup column, plus the numbers the report's fairness figures draw
//! (spec 6.3, 6.4).
//!
//! Pure maths: no I/O, no tables or frames (those are built in
//! `analysis::fairness`), no plotting; this file must not touch files or
//! report code.
//!
//! Every regressor is a dummy, so each observation's design row is fixed by
//! its (group, human score) cell. The data are reduced in two passes to
//! per-cell counts, means and within-cell sums of squares, and every model is
//! fitted from those with [`ols_grouped`] (no `N x k` matrix); the result is
//! the fit of the full data (statsmodels `ols(...).fit()`).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use nalgebra::DMatrix;

use crate::distributions::t_ppf;
use crate::ols::{nested_f_test, ols_grouped, CellStats, OlsFit};

/// Largest model fitted, as `cells * columns^2` (the cost of its SVD, about
/// a second per 1e9). Beyond it (thousands of distinct human scores or
/// groups, e.g. continuous human scores on very large data) that model is
/// not fitted and its numbers are `NaN`; the reference would need an
/// `N x k` dense design there.
pub const MAX_FIT_WORK: f64 = 5e9;

/// One row of an `estimates_<m>_by_<g>` table, plus its figure values.
#[derive(Clone, Debug, PartialEq)]
pub struct EstimateRow {
    /// `Intercept (<base>)` or the group value (whole, not truncated).
    pub label: String,
    pub estimate: f64,
    pub p_value: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// For the figure: the estimate for the intercept row, `estimate +
    /// intercept` for the other rows.
    pub adjusted: f64,
    /// For the figure: `|ci_low - estimate|`.
    pub half_width: f64,
}

/// The `fairness_metrics_by_<g>` numbers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FairnessMetrics {
    /// OSA adjusted R2 and overall F-test p-value.
    pub osa_r2: f64,
    pub osa_sig: f64,
    /// OSD adjusted R2 and overall F-test p-value.
    pub osd_r2: f64,
    pub osd_sig: f64,
    /// `R2adj(full) - R2adj(null)` and the nested F-test p-value.
    pub csd_r2: f64,
    pub csd_sig: f64,
}

/// Mean system score of one (human score, group) cell, for the
/// conditional-score figure.
#[derive(Clone, Debug, PartialEq)]
pub struct ConditionalMean {
    pub human: f64,
    pub group: String,
    pub mean: f64,
    pub n: usize,
    /// 95% t-interval half-width `t_{0.975, n-1} * sd / sqrt(n)`; `NaN` for
    /// `n < 2`.
    pub half_width: f64,
}

/// The four fitted models.
#[derive(Clone, Debug, PartialEq)]
pub struct FairnessFits {
    pub osa: OlsFit,
    pub osd: OlsFit,
    pub csd_null: OlsFit,
    pub csd_full: OlsFit,
}

/// Everything the fairness tables and figures of one subgroup need.
#[derive(Clone, Debug, PartialEq)]
pub struct FairnessResult {
    /// The reference group (most frequent; ties by code-point order).
    pub base_category: String,
    /// Group values and counts in coding order (base first).
    pub levels: Vec<(String, usize)>,
    /// Human score values and counts in coding order (reference first).
    pub human_levels: Vec<(f64, usize)>,
    /// `Intercept (<base>)`, then every other group in coding order.
    pub osa: Vec<EstimateRow>,
    pub osd: Vec<EstimateRow>,
    /// Intercept and group rows of the full CSD model only.
    pub csd: Vec<EstimateRow>,
    pub metrics: FairnessMetrics,
    /// Sorted by human score, then group coding order.
    pub conditional: Vec<ConditionalMean>,
    pub fits: FairnessFits,
}

/// Runs the fairness analysis for one subgroup column.
///
/// `group_codes[i]` indexes `group_labels` (distinct strings, any order);
/// `human` = `sc1`, `system` = `X_trim` of the kept responses. Rows with a
/// code out of range or a non-finite score are left out (as the reference's
/// formula interface drops missing values); labels that occur in no row are
/// not levels. With no usable row every number is `NaN` and there are no
/// levels and no estimate rows. A model larger than [`MAX_FIT_WORK`] is not
/// fitted (its numbers are `NaN`).
///
/// Cost: two passes over the rows (one hash look-up per row in the first),
/// then fits on per-cell statistics; memory is one `u32` per row.
pub fn fairness_analysis(
    group_codes: &[u32],
    group_labels: &[String],
    human: &[f64],
    system: &[f64],
) -> FairnessResult {
    let cells = reduce(group_codes, group_labels.len(), human, system);

    let (group_pos, levels) = group_coding(&cells, group_labels);

    let (human_levels, human_pos) = human_coding(&cells);

    let (ng, nh) = (levels.len(), human_levels.len());
    let base_category = levels.first().map(|l| l.0.clone()).unwrap_or_default();
    let group_names: Vec<String> = std::iter::once("Intercept".to_string())
        .chain(levels.iter().skip(1).map(|l| format!("group[T.{}]", l.0)))
        .collect();
    let human_names: Vec<String> = human_levels
        .iter()
        .skip(1)
        .map(|(h, _)| format!("sc1_cat[T.{h:?}]"))
        .collect();

    // Per-group pooled statistics (OSA, OSD) and per-human-level (CSD null).
    let mut by_group_se: Vec<Vec<CellStats>> = vec![Vec::new(); ng];
    let mut by_group_e: Vec<Vec<CellStats>> = vec![Vec::new(); ng];
    let mut by_human_e: Vec<Vec<CellStats>> = vec![Vec::new(); nh];
    for c in &cells {
        let g = group_pos[c.code as usize];
        by_group_se[g].push(c.se);
        by_group_e[g].push(c.e);
        by_human_e[human_pos[&c.human.to_bits()]].push(c.e);
    }
    let group_se: Vec<CellStats> = by_group_se.into_iter().map(CellStats::pool).collect();
    let group_e: Vec<CellStats> = by_group_e.into_iter().map(CellStats::pool).collect();
    let human_e: Vec<CellStats> = by_human_e.into_iter().map(CellStats::pool).collect();

    // Intercept plus one dummy per non-reference level; cell r is level r.
    let treatment = |r: usize, j: usize| dummy(j == 0 || j == r);
    let osa = fit(group_names.clone(), ng, treatment, &group_se);
    let osd = fit(group_names.clone(), ng, treatment, &group_e);
    let null_names: Vec<String> = std::iter::once("Intercept".to_string())
        .chain(human_names.iter().cloned())
        .collect();
    let csd_null = fit(null_names, nh, treatment, &human_e);
    let full_names: Vec<String> = group_names.iter().chain(&human_names).cloned().collect();
    let full_cells: Vec<CellStats> = cells.iter().map(|c| c.e).collect();
    let csd_full = if ng == 0 {
        OlsFit::nan(full_names, 0)
    } else {
        let full_dummies = |r: usize, j: usize| {
            let g = group_pos[cells[r].code as usize];
            let h = human_pos[&cells[r].human.to_bits()];
            dummy(j == 0 || j == g || (j >= ng && j - ng + 1 == h))
        };
        fit(full_names, ng + nh - 1, full_dummies, &full_cells)
    };

    let metrics = fairness_metrics(ng, &osa, &osd, &csd_null, &csd_full);

    let conditional = conditional_means(&cells, &group_pos, &levels);

    FairnessResult {
        osa: estimate_rows(&osa, &base_category, &levels, ng),
        osd: estimate_rows(&osd, &base_category, &levels, ng),
        csd: estimate_rows(&csd_full, &base_category, &levels, ng),
        base_category,
        levels,
        human_levels,
        metrics,
        conditional,
        fits: FairnessFits {
            osa,
            osd,
            csd_null,
            csd_full,
        },
    }
}

/// Group coding: descending count, ties by ascending label. Returns the
/// position of each label in the coding (`usize::MAX` for labels in no
/// row) and the levels with their counts in coding order.
fn group_coding(cells: &[CellData], group_labels: &[String]) -> (Vec<usize>, Vec<(String, usize)>) {
    let mut group_count = vec![0usize; group_labels.len()];
    for c in cells {
        group_count[c.code as usize] += c.e.n;
    }
    let mut group_order: Vec<usize> = (0..group_labels.len())
        .filter(|&g| group_count[g] > 0)
        .collect();
    group_order.sort_by(|&a, &b| {
        group_count[b]
            .cmp(&group_count[a])
            .then_with(|| group_labels[a].cmp(&group_labels[b]))
    });
    let mut group_pos = vec![usize::MAX; group_labels.len()];
    for (p, &g) in group_order.iter().enumerate() {
        group_pos[g] = p;
    }
    let levels: Vec<(String, usize)> = group_order
        .iter()
        .map(|&g| (group_labels[g].clone(), group_count[g]))
        .collect();
    (group_pos, levels)
}

/// Human score coding: descending count, ties by ascending value. Returns
/// the levels with their counts in coding order and each value's position.
fn human_coding(cells: &[CellData]) -> (Vec<(f64, usize)>, HashMap<u64, usize, FastHash>) {
    let mut human_count: HashMap<u64, usize, FastHash> = HashMap::default();
    for c in cells {
        *human_count.entry(c.human.to_bits()).or_default() += c.e.n;
    }
    let mut human_levels: Vec<(f64, usize)> = human_count
        .iter()
        .map(|(&bits, &n)| (f64::from_bits(bits), n))
        .collect();
    human_levels.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.total_cmp(&b.0)));
    let human_pos: HashMap<u64, usize, FastHash> = human_levels
        .iter()
        .enumerate()
        .map(|(p, (h, _))| (h.to_bits(), p))
        .collect();
    (human_levels, human_pos)
}

/// The fairness metrics of the fitted models (a single group explains
/// nothing and has no test).
fn fairness_metrics(
    ng: usize,
    osa: &OlsFit,
    osd: &OlsFit,
    csd_null: &OlsFit,
    csd_full: &OlsFit,
) -> FairnessMetrics {
    if ng == 1 {
        // A single group: the group explains nothing and there is no test.
        FairnessMetrics {
            osa_r2: 0.0,
            osa_sig: f64::NAN,
            osd_r2: 0.0,
            osd_sig: f64::NAN,
            csd_r2: 0.0,
            csd_sig: f64::NAN,
        }
    } else {
        FairnessMetrics {
            osa_r2: osa.r2_adj,
            osa_sig: osa.f_pvalue,
            osd_r2: osd.r2_adj,
            osd_sig: osd.f_pvalue,
            csd_r2: csd_full.r2_adj - csd_null.r2_adj,
            csd_sig: nested_f_test(csd_null, csd_full),
        }
    }
}

/// The mean system score of every (human score, group) cell with its 95%
/// t-interval half-width, sorted by human score, then group coding order.
fn conditional_means(
    cells: &[CellData],
    group_pos: &[usize],
    levels: &[(String, usize)],
) -> Vec<ConditionalMean> {
    let mut t_quantiles: HashMap<usize, f64> = HashMap::new();
    let mut conditional: Vec<(usize, ConditionalMean)> = cells
        .iter()
        .map(|c| {
            let g = group_pos[c.code as usize];
            let n = c.s.n;
            let half_width = if n >= 2 {
                let sd = (c.s.within_ss / (n as f64 - 1.0)).sqrt();
                let q = *t_quantiles
                    .entry(n)
                    .or_insert_with(|| t_ppf(0.975, n as f64 - 1.0));
                q * sd / (n as f64).sqrt()
            } else {
                f64::NAN
            };
            let row = ConditionalMean {
                human: c.human,
                group: levels[g].0.clone(),
                mean: c.s.mean,
                n,
                half_width,
            };
            (g, row)
        })
        .collect();
    conditional.sort_by(|a, b| a.1.human.total_cmp(&b.1.human).then(a.0.cmp(&b.0)));
    conditional.into_iter().map(|(_, c)| c).collect()
}

/// Fits a model with `k` columns to grouped data whose row `r` is
/// `row(r, 0..k)`, unless it is too large (see [`MAX_FIT_WORK`]).
fn fit(
    names: Vec<String>,
    k: usize,
    row: impl Fn(usize, usize) -> f64,
    cells: &[CellStats],
) -> OlsFit {
    let m = cells.len();
    if m as f64 * (k as f64).powi(2) > MAX_FIT_WORK {
        return OlsFit::nan(names, cells.iter().map(|c| c.n).sum());
    }
    ols_grouped(names, &DMatrix::from_fn(m, k, row), cells)
}

fn dummy(on: bool) -> f64 {
    if on {
        1.0
    } else {
        0.0
    }
}

/// The intercept and group rows (the first `ng` coefficients) of a fit.
fn estimate_rows(
    fit: &OlsFit,
    base: &str,
    levels: &[(String, usize)],
    ng: usize,
) -> Vec<EstimateRow> {
    let intercept = fit.params.first().copied().unwrap_or(f64::NAN);
    (0..ng.min(fit.params.len()))
        .map(|j| {
            let estimate = fit.params[j];
            EstimateRow {
                label: if j == 0 {
                    format!("Intercept ({base})")
                } else {
                    levels[j].0.clone()
                },
                estimate,
                p_value: fit.pvalues[j],
                ci_low: fit.conf_low[j],
                ci_high: fit.conf_high[j],
                adjusted: if j == 0 {
                    estimate
                } else {
                    estimate + intercept
                },
                half_width: (fit.conf_low[j] - estimate).abs(),
            }
        })
        .collect()
}

/// Statistics of one (group, human score) cell.
struct CellData {
    code: u32,
    human: f64,
    /// error `S - H`
    e: CellStats,
    /// squared error
    se: CellStats,
    /// system score
    s: CellStats,
}

/// Neumaier-compensated running sum.
#[derive(Clone, Copy, Default)]
struct Sum {
    sum: f64,
    comp: f64,
}

impl Sum {
    #[inline]
    fn add(&mut self, x: f64) {
        let t = self.sum + x;
        if self.sum.abs() >= x.abs() {
            self.comp += (self.sum - t) + x;
        } else {
            self.comp += (x - t) + self.sum;
        }
        self.sum = t;
    }

    fn value(&self) -> f64 {
        self.sum + self.comp
    }
}

#[derive(Clone, Copy, Default)]
struct Acc {
    n: usize,
    e: Sum,
    se: Sum,
    s: Sum,
}

/// Two passes over the rows: cell ids, counts and sums, then within-cell
/// sums of squares around the cell means.
fn reduce(codes: &[u32], nlabels: usize, human: &[f64], system: &[f64]) -> Vec<CellData> {
    let n = codes.len().min(human.len()).min(system.len());
    let mut index: HashMap<(u32, u64), u32, FastHash> = HashMap::default();
    let mut keys: Vec<(u32, f64)> = Vec::new();
    let mut acc: Vec<Acc> = Vec::new();
    let mut cell_of = vec![u32::MAX; n];
    for i in 0..n {
        let (code, h, s) = (codes[i], human[i], system[i]);
        if code as usize >= nlabels || !h.is_finite() || !s.is_finite() {
            continue;
        }
        let h = h + 0.0; // -0.0 and 0.0 are one score
        let id = *index.entry((code, h.to_bits())).or_insert_with(|| {
            keys.push((code, h));
            acc.push(Acc::default());
            (keys.len() - 1) as u32
        });
        cell_of[i] = id;
        let e = s - h;
        let a = &mut acc[id as usize];
        a.n += 1;
        a.e.add(e);
        a.se.add(e * e);
        a.s.add(s);
    }
    let means: Vec<[f64; 3]> = acc
        .iter()
        .map(|a| {
            let n = a.n as f64;
            [a.e.value() / n, a.se.value() / n, a.s.value() / n]
        })
        .collect();
    let mut ss = vec![[Sum::default(); 3]; acc.len()];
    for i in 0..n {
        let id = cell_of[i];
        if id == u32::MAX {
            continue;
        }
        let (h, s) = (human[i] + 0.0, system[i]);
        let e = s - h;
        let m = &means[id as usize];
        let w = &mut ss[id as usize];
        w[0].add((e - m[0]).powi(2));
        w[1].add((e * e - m[1]).powi(2));
        w[2].add((s - m[2]).powi(2));
    }
    keys.iter()
        .zip(&acc)
        .zip(means.iter().zip(&ss))
        .map(|((&(code, human), a), (m, w))| {
            let cell = |k: usize| CellStats {
                n: a.n,
                mean: m[k],
                within_ss: w[k].value(),
            };
            CellData {
                code,
                human,
                e: cell(0),
                se: cell(1),
                s: cell(2),
            }
        })
        .collect()
}

/// A fast multiplicative hasher for small integer keys (FxHash).
#[derive(Default)]
struct FxHasher(u64);

impl FxHasher {
    #[inline]
    fn add(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.add(u64::from(b));
        }
    }

    fn write_u32(&mut self, v: u32) {
        self.add(u64::from(v));
    }

    fn write_u64(&mut self, v: u64) {
        self.add(v);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type FastHash = BuildHasherDefault<FxHasher>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ols::{ols, Design};

    fn close(got: f64, want: f64, digits_of: &str) -> bool {
        // `want` is given to the digits in `digits_of`: compare to half a
        // unit in the last given place.
        let decimals = digits_of.split('.').nth(1).map_or(0, |d| d.len()) as i32;
        (got - want).abs() <= 0.5 * 10f64.powi(-decimals) * 1.000_001
    }

    fn check(got: f64, want: &str, what: &str) {
        let w: f64 = want.parse().unwrap();
        assert!(close(got, w, want), "{what}: got {got}, want {want}");
    }

    const V6_SYSTEM: [f64; 24] = [
        1.81, 1.69, 2.74, 3.46, 1.43, 0.85, 3.87, 3.62, 1.16, 1.88, 4.03, 3.27, 1.14, 2.11, 3.87,
        3.75, 1.21, 1.86, 3.02, 4.29, 0.45, 2.57, 3.45, 4.25,
    ];

    fn v6() -> (Vec<u32>, Vec<String>, Vec<f64>, Vec<f64>) {
        let human: Vec<f64> = (0..24).map(|i| f64::from(i % 4 + 1)).collect();
        // Labels deliberately not in coding order.
        let labels: Vec<String> = ["C", "A", "B"].map(String::from).to_vec();
        let codes: Vec<u32> = (0..24)
            .map(|i| match i {
                0..=9 => 1,
                10..=17 => 2,
                _ => 0,
            })
            .collect();
        (codes, labels, human, V6_SYSTEM.to_vec())
    }

    #[test]
    fn golden_vector_v6() {
        let (codes, labels, human, system) = v6();
        let r = fairness_analysis(&codes, &labels, &human, &system);
        assert_eq!(r.base_category, "A");
        let lv: Vec<(&str, usize)> = r.levels.iter().map(|(l, n)| (l.as_str(), *n)).collect();
        assert_eq!(lv, [("A", 10), ("B", 8), ("C", 6)]);
        let labels: Vec<&str> = r.osa.iter().map(|e| e.label.as_str()).collect();
        assert_eq!(labels, ["Intercept (A)", "B", "C"]);
        assert_eq!(r.osd.len(), 3);
        assert_eq!(r.csd.len(), 3);
        for (got, want) in r.osa.iter().zip(["0.35601", "-0.042435", "-0.1931933"]) {
            check(got.estimate, want, "OSA estimate");
        }
        for (got, want) in r.osa.iter().zip(["0.0066245", "0.8131072", "0.3281276"]) {
            check(got.p_value, want, "OSA p");
        }
        check(r.osa[0].ci_low, "0.1102737", "OSA CI low");
        check(r.osa[0].ci_high, "0.6017463", "OSA CI high");
        for (got, want) in r.osd.iter().zip(["-0.049", "0.204", "0.2206667"]) {
            check(got.estimate, want, "OSD estimate");
        }
        for (got, want) in r.csd.iter().zip(["0.1021318", "0.1951163", "0.1969767"]) {
            check(got.estimate, want, "CSD estimate");
        }
        for (got, want) in r.csd.iter().zip(["0.6661417", "0.4291704", "0.4711971"]) {
            check(got.p_value, want, "CSD p");
        }
        let m = r.metrics;
        check(m.osa_r2, "-0.0437083", "OSA R2");
        check(m.osd_r2, "-0.0538893", "OSD R2");
        check(m.csd_r2, "-0.0492103", "CSD R2");
        check(m.osa_sig, "0.6028945", "OSA sig");
        check(m.osd_sig, "0.6675871", "OSD sig");
        check(m.csd_sig, "0.6610279", "CSD sig");
        // Figure values.
        let osa = &r.osa;
        assert_eq!(osa[0].adjusted, osa[0].estimate);
        assert!((osa[1].adjusted - (osa[1].estimate + osa[0].estimate)).abs() < 1e-15);
        assert!((osa[0].half_width - (0.35601 - 0.1102737)).abs() < 1e-6);
        // Human scores tie (6 each): ascending values, reference 1.
        let hl: Vec<f64> = r.human_levels.iter().map(|h| h.0).collect();
        assert_eq!(hl, [1.0, 2.0, 3.0, 4.0]);
        // Conditional means: 4 human scores x 3 groups, by score then group.
        assert_eq!(r.conditional.len(), 12);
        let first: Vec<(f64, &str)> = r.conditional[..4]
            .iter()
            .map(|c| (c.human, c.group.as_str()))
            .collect();
        assert_eq!(first, [(1.0, "A"), (1.0, "B"), (1.0, "C"), (2.0, "A")]);
        // Group A, human 1: rows 0, 4, 8 -> 1.81, 1.43, 1.16.
        let c = &r.conditional[0];
        assert_eq!(c.n, 3);
        assert!((c.mean - (1.81 + 1.43 + 1.16) / 3.0).abs() < 1e-15);
        let sd = {
            let m = c.mean;
            (([1.81f64, 1.43, 1.16]
                .iter()
                .map(|x| (x - m).powi(2))
                .sum::<f64>())
                / 2.0)
                .sqrt()
        };
        let want = 4.302652729749464 * sd / 3f64.sqrt();
        assert!((c.half_width - want).abs() < 1e-12);
    }

    #[test]
    fn grouped_fits_equal_dense_fits() {
        let (codes, labels, human, system) = v6();
        let r = fairness_analysis(&codes, &labels, &human, &system);
        let n = human.len();
        // Dense designs with the coding order found above: A=1, B=2, C=0.
        let gcode: Vec<usize> = codes.iter().map(|&c| [2, 0, 1][c as usize]).collect();
        let gnames: Vec<String> = ["A", "B", "C"].map(String::from).to_vec();
        let hcode: Vec<usize> = human.iter().map(|&h| h as usize - 1).collect();
        let hnames: Vec<String> = ["1", "2", "3", "4"].map(String::from).to_vec();
        let error: Vec<f64> = (0..n).map(|i| system[i] - human[i]).collect();
        let se: Vec<f64> = error.iter().map(|e| e * e).collect();
        let mut dg = Design::with_intercept(n);
        dg.push_treatment(&gcode, &gnames);
        let mut dh = Design::with_intercept(n);
        dh.push_treatment(&hcode, &hnames);
        let mut dfull = Design::with_intercept(n);
        dfull
            .push_treatment(&gcode, &gnames)
            .push_treatment(&hcode, &hnames);
        let pairs = [
            (&r.fits.osa, ols(&dg, &se)),
            (&r.fits.osd, ols(&dg, &error)),
            (&r.fits.csd_null, ols(&dh, &error)),
            (&r.fits.csd_full, ols(&dfull, &error)),
        ];
        for (grouped, dense) in pairs {
            assert_eq!(grouped.nobs, dense.nobs);
            assert_eq!(grouped.rank, dense.rank);
            let mut all = vec![
                (grouped.ssr, dense.ssr),
                (grouped.r2_adj, dense.r2_adj),
                (grouped.f_pvalue, dense.f_pvalue),
            ];
            for j in 0..dense.params.len() {
                all.push((grouped.params[j], dense.params[j]));
                all.push((grouped.bse[j], dense.bse[j]));
                all.push((grouped.pvalues[j], dense.pvalues[j]));
                all.push((grouped.conf_high[j], dense.conf_high[j]));
            }
            for (g, d) in all {
                assert!((g - d).abs() <= 1e-12 * d.abs().max(1e-3), "{g} vs {d}");
            }
        }
    }

    #[test]
    fn coding_order_with_ties() {
        // Groups: "b" and "a" tie at 3, "Z" has 2: order a, b, Z (code
        // points: "Z" < "a", but counts come first). Human scores: 3 and 1
        // tie at 3, 2 has 2: order 1, 3, 2.
        let labels: Vec<String> = ["b", "Z", "a"].map(String::from).to_vec();
        let codes = [0u32, 0, 0, 1, 1, 2, 2, 2];
        let human = [3.0, 1.0, 2.0, 3.0, 1.0, 1.0, 3.0, 2.0];
        let system = [2.5, 1.5, 2.0, 3.5, 0.5, 1.0, 2.0, 2.5];
        let r = fairness_analysis(&codes, &labels, &human, &system);
        assert_eq!(r.base_category, "a");
        let order: Vec<&str> = r.levels.iter().map(|l| l.0.as_str()).collect();
        assert_eq!(order, ["a", "b", "Z"]);
        let hl: Vec<(f64, usize)> = r.human_levels.clone();
        assert_eq!(hl, [(1.0, 3), (3.0, 3), (2.0, 2)]);
        let rows: Vec<&str> = r.csd.iter().map(|e| e.label.as_str()).collect();
        assert_eq!(rows, ["Intercept (a)", "b", "Z"]);
        // Treatment coding: the OSD intercept is the mean error of "a", the
        // other estimates are differences of group mean errors.
        let err = |i: usize| system[i] - human[i];
        let mean = |idx: &[usize]| idx.iter().map(|&i| err(i)).sum::<f64>() / idx.len() as f64;
        let (ma, mb, mz) = (mean(&[5, 6, 7]), mean(&[0, 1, 2]), mean(&[3, 4]));
        assert!((r.osd[0].estimate - ma).abs() < 1e-14);
        assert!((r.osd[1].estimate - (mb - ma)).abs() < 1e-14);
        assert!((r.osd[2].estimate - (mz - ma)).abs() < 1e-14);
        assert!((r.osd[2].adjusted - mz).abs() < 1e-14);
        // Full CSD names: intercept, groups, then human scores 3 and 2.
        assert_eq!(
            r.fits.csd_full.names,
            [
                "Intercept",
                "group[T.b]",
                "group[T.Z]",
                "sc1_cat[T.3.0]",
                "sc1_cat[T.2.0]"
            ]
        );
        // Whole values as labels (no truncation at '.').
        let labels: Vec<String> = ["v1.2 (x)", "w"].map(String::from).to_vec();
        let r = fairness_analysis(&[0, 1, 1], &labels, &[1.0, 2.0, 3.0], &[1.0, 2.0, 2.0]);
        assert_eq!(r.osa[1].label, "v1.2 (x)");
        assert_eq!(r.base_category, "w");
    }

    #[test]
    fn single_group_level() {
        let labels = vec!["only".to_string(), "unused".to_string()];
        let human = [1.0, 2.0, 3.0, 2.0, 1.0];
        let system = [1.5, 2.5, 2.0, 2.2, 0.8];
        let r = fairness_analysis(&[0; 5], &labels, &human, &system);
        assert_eq!(r.levels, [("only".to_string(), 5)]);
        for rows in [&r.osa, &r.osd, &r.csd] {
            assert_eq!(rows.len(), 1);
            assert_eq!(rows[0].label, "Intercept (only)");
        }
        let m = r.metrics;
        assert_eq!((m.osa_r2, m.osd_r2, m.csd_r2), (0.0, 0.0, 0.0));
        assert!(m.osa_sig.is_nan() && m.osd_sig.is_nan() && m.csd_sig.is_nan());
        let mean_e = (0.5 + 0.5 - 1.0 + 0.2 - 0.2) / 5.0;
        assert!((r.osd[0].estimate - mean_e).abs() < 1e-15);
        assert!(r.osd[0].p_value.is_finite());
    }

    #[test]
    fn degenerate_inputs_do_not_panic() {
        // No rows.
        let r = fairness_analysis(&[], &[], &[], &[]);
        assert!(r.levels.is_empty() && r.osa.is_empty() && r.csd.is_empty());
        assert!(r.metrics.osa_r2.is_nan() && r.metrics.csd_sig.is_nan());
        // Constant system score: the human score explains the error exactly.
        let labels: Vec<String> = ["x", "y"].map(String::from).to_vec();
        let codes = [0u32, 1, 0, 1, 0, 1, 0, 0];
        let human = [1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 1.0, 2.0];
        let r = fairness_analysis(&codes, &labels, &human, &[2.5; 8]);
        assert!(r.metrics.csd_r2.abs() < 1e-12);
        assert!((r.csd[0].estimate - (2.5 - 1.0)).abs() < 1e-12);
        // Every row in its own cell with a group confounded with the score
        // (rank-deficient full model), NaN and out-of-range codes skipped.
        let codes = [0u32, 0, 1, 1, 7];
        let human = [1.0, 1.0, 2.0, 2.0, 1.0];
        let system = [1.2, 0.9, 2.5, f64::NAN, 1.0];
        let r = fairness_analysis(&codes, &labels, &human, &system);
        assert_eq!(r.levels, [("x".to_string(), 2), ("y".to_string(), 1)]);
        assert_eq!(r.fits.csd_full.rank, 2);
        assert!(r.csd.iter().all(|e| e.estimate.is_finite()));
        assert!(r
            .conditional
            .iter()
            .any(|c| c.n == 1 && c.half_width.is_nan()));
        // Mismatched lengths use the common prefix.
        let r = fairness_analysis(&[0, 1, 0], &labels, &[1.0, 2.0], &[1.0, 2.0, 3.0]);
        assert_eq!(r.fits.osa.nobs, 2);
    }

    #[test]
    fn balanced_two_group_case() {
        // A small hand-checkable case: two groups, two scores, balanced.
        // error: g0 -> [0.5, -0.5, 0.5, 1.5], g1 -> [1.0, 0.0, 1.0, 2.0]
        let labels: Vec<String> = ["g0", "g1"].map(String::from).to_vec();
        let codes = [0u32, 0, 0, 0, 1, 1, 1, 1, 1];
        let human = [1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 2.0];
        let system = [1.5, 1.5, 1.5, 3.5, 2.0, 2.0, 2.0, 4.0, 2.0];
        let r = fairness_analysis(&codes, &labels, &human, &system);
        assert_eq!(r.base_category, "g1");
        // OSD: intercept = mean error of g1 = (1+0+1+2+0)/5 = 0.8;
        // g0 mean = 0.5, so the estimate is -0.3.
        assert!((r.osd[0].estimate - 0.8).abs() < 1e-14);
        assert!((r.osd[1].estimate + 0.3).abs() < 1e-14);
        assert_eq!(r.osd[1].label, "g0");
    }
}
