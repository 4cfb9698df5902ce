//! Stage 4 (metrics, pure): agreement among any number of raters
//! (`spec/agreement.md`, sections 2, 5 and 6).
//!
//! A validated ratings matrix (items x raters, category codes `0..q` or
//! missing) is turned **once** into [`CountTables`]: the distinct per-item
//! count vectors (items x categories, stored as patterns with their
//! multiplicity, so a million items x 5 raters cost one pass and a few
//! hundred patterns), the distinct rating rows, the rater x category
//! marginals and the rater-pair contingency tables. Every coefficient is
//! computed from these tables:
//!
//! * [`chance`]: irrCAC's raw-data coefficients (percent agreement, Fleiss'
//!   generalised kappa, Gwet's AC1/AC2, Brennan-Prediger, Conger's kappa,
//!   irrCAC's Krippendorff alpha) with Gwet's linearised standard errors and
//!   t(n-1) intervals clipped at 1;
//! * [`fleiss`]: statsmodels' Fleiss and Randolph kappa on complete items,
//!   with R `irr`'s per-category kappas and z under the null;
//! * [`alpha`]: Krippendorff's alpha (nominal, ordinal, interval, ratio)
//!   from the coincidence matrix, and its bootstrap over items;
//! * [`pairs`]: two-rater tables: Cohen's kappa (scikit-learn,
//!   statsmodels with the Fleiss-Cohen-Everitt SE), irrCAC's table
//!   functions, Scott's pi, exact agreement, Pearson's r;
//! * [`icc`]: the six Shrout-Fleiss intraclass correlations (pingouin);
//! * [`scales`]: interpretation scales and irrCAC's benchmarking;
//! * [`rows`]: spec 3's coefficient rows assembled from all of the above.
//!
//! Pure maths on slices and integers: nothing here may touch files, tables,
//! configuration, threads, formatting or report code. Degenerate data give
//! `NaN`, never a panic.

pub mod alpha;
pub mod chance;
pub mod fleiss;
pub mod icc;
pub mod pairs;
#[cfg(test)]
mod published;
pub mod rows;
pub mod scales;

use std::collections::HashMap;

use crate::metrics::ols::{t_ppf, t_sf};
use crate::table::FxBuild;

/// Marker of a missing rating inside a stored rating row.
const MISSING: u32 = u32::MAX;

/// Weights between categories (spec 2): identity (unweighted), linear
/// `1 - |v_k - v_l| / (max - min)` or quadratic `1 - (v_k - v_l)^2 /
/// (max - min)^2` over the category values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Weights {
    Identity,
    Linear,
    Quadratic,
}

impl Weights {
    /// The three kinds, unweighted first.
    pub const ALL: [Weights; 3] = [Weights::Identity, Weights::Linear, Weights::Quadratic];

    /// `none`, `linear`, `quadratic` (the `weights` column of spec 3).
    pub fn name(self) -> &'static str {
        match self {
            Weights::Identity => "none",
            Weights::Linear => "linear",
            Weights::Quadratic => "quadratic",
        }
    }
}

/// The `q x q` agreement weights (row-major) over `values` (the ordered
/// category values; positions `1..q` for text labels). A single category
/// with linear or quadratic weights has a zero range: its weight is NaN
/// (irrCAC raises), so every weighted coefficient is NaN.
pub fn weight_matrix(values: &[f64], kind: Weights) -> Vec<f64> {
    let q = values.len();
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let range = hi - lo;
    let mut w = vec![0.0; q * q];
    for k in 0..q {
        for l in 0..q {
            let d = (values[k] - values[l]) / range;
            w[k * q + l] = match kind {
                Weights::Identity => f64::from(u8::from(k == l)),
                Weights::Linear => 1.0 - d.abs(),
                Weights::Quadratic => 1.0 - d * d,
            };
        }
    }
    w
}

/// Positions `1..=q` as category values (text labels, and the weights of
/// scikit-learn, statsmodels and irrCAC's table functions).
pub fn positions(q: usize) -> Vec<f64> {
    (1..=q).map(|k| k as f64).collect()
}

/// Distinct per-item count vectors (`q` counts each) with how many items
/// share each; only items with at least one rating.
#[derive(Clone, Debug, PartialEq)]
pub struct ItemCounts {
    /// Number of categories.
    pub q: usize,
    /// Pattern `p` is `counts[p * q..(p + 1) * q]`.
    pub counts: Vec<u32>,
    /// Items with pattern `p` (a float: tables of a pair or a bootstrap
    /// replicate weight patterns too).
    pub mult: Vec<f64>,
}

impl ItemCounts {
    /// Number of patterns.
    pub fn len(&self) -> usize {
        self.mult.len()
    }

    /// True when no item has a rating.
    pub fn is_empty(&self) -> bool {
        self.mult.is_empty()
    }

    /// Pattern `p`'s counts.
    pub fn row(&self, p: usize) -> &[u32] {
        &self.counts[p * self.q..(p + 1) * self.q]
    }

    /// Pattern `p`'s number of ratings `r_i`.
    pub fn total(&self, p: usize) -> u32 {
        self.row(p).iter().sum()
    }

    /// The patterns with `keep(total)`, multiplicities unchanged.
    pub fn filter(&self, keep: impl Fn(u32) -> bool) -> ItemCounts {
        let mut out = ItemCounts::with_q(self.q);
        for p in 0..self.len() {
            if keep(self.total(p)) {
                out.counts.extend_from_slice(self.row(p));
                out.mult.push(self.mult[p]);
            }
        }
        out
    }

    /// The same items restricted to the categories `keep` (in that order);
    /// ratings in other categories are dropped, items left without any
    /// rating too (irrCAC with an explicit, smaller category list).
    pub fn restrict(&self, keep: &[usize]) -> ItemCounts {
        let mut out = ItemCounts::with_q(keep.len());
        for p in 0..self.len() {
            let row = self.row(p);
            let sub: Vec<u32> = keep.iter().map(|&k| row[k]).collect();
            if sub.iter().any(|&c| c > 0) {
                out.counts.extend_from_slice(&sub);
                out.mult.push(self.mult[p]);
            }
        }
        out
    }

    /// Two ratings per item from a `q x q` table (`table[k * q + l]` items
    /// rated `k` by the first rater and `l` by the second).
    pub fn from_pair_table(table: &[f64], q: usize) -> ItemCounts {
        let mut out = ItemCounts::with_q(q);
        for k in 0..q {
            for l in 0..q {
                let m = table[k * q + l];
                if m > 0.0 {
                    let mut row = vec![0u32; q];
                    row[k] += 1;
                    row[l] += 1;
                    out.counts.extend_from_slice(&row);
                    out.mult.push(m);
                }
            }
        }
        out
    }

    fn with_q(q: usize) -> ItemCounts {
        ItemCounts {
            q,
            counts: Vec::new(),
            mult: Vec::new(),
        }
    }
}

/// One rater pair's contingency table over the items both rated.
#[derive(Clone, Debug, PartialEq)]
pub struct PairTable {
    /// Rater indices, `rater_1 < rater_2`.
    pub rater_1: usize,
    pub rater_2: usize,
    /// `q x q` counts, rows = `rater_1`'s category.
    pub table: Vec<f64>,
}

impl PairTable {
    /// Items rated by both.
    pub fn n(&self) -> f64 {
        self.table.iter().sum()
    }
}

/// What a rating row layout adds to the item counts: who gave what.
#[derive(Clone, Debug, PartialEq)]
pub struct RaterTables {
    /// Number of rater columns.
    pub n_raters: usize,
    /// Distinct rating rows (`n_raters` codes each, `u32::MAX` missing),
    /// rows without any rating left out.
    pub rows: Vec<u32>,
    /// Items per distinct row.
    pub row_mult: Vec<f64>,
    /// Index of each distinct row's count vector in the item counts.
    pub row_pattern: Vec<u32>,
    /// `n_raters x q`: how many items rater `g` put in category `k`.
    pub marginals: Vec<f64>,
    /// Every pair of raters, `(0, 1), (0, 2), ..., (r - 2, r - 1)`.
    pub pairs: Vec<PairTable>,
}

impl RaterTables {
    /// Distinct row `p`'s codes (`None` = missing).
    pub fn row(&self, p: usize) -> impl Iterator<Item = Option<usize>> + '_ {
        self.rows[p * self.n_raters..(p + 1) * self.n_raters]
            .iter()
            .map(|&c| (c != MISSING).then_some(c as usize))
    }

    /// Number of distinct rows.
    pub fn n_rows(&self) -> usize {
        self.row_mult.len()
    }
}

/// The count tables every coefficient works from.
#[derive(Clone, Debug, PartialEq)]
pub struct CountTables {
    /// Number of declared categories.
    pub q: usize,
    /// Rows (items) of the input, rated or not.
    pub n_rows: usize,
    /// Distinct count vectors of the items with at least one rating.
    pub items: ItemCounts,
    /// Per input row, its pattern in `items` (`u32::MAX`: no rating).
    pub item_pattern: Vec<u32>,
    /// Who gave what; `None` for the counts layout (Fleiss' table).
    pub raters: Option<RaterTables>,
}

/// Summary numbers of a ratings matrix (fixture `summary`).
#[derive(Clone, Debug, PartialEq)]
pub struct RatingsSummary {
    pub n_rows: usize,
    pub n_ratings: u64,
    pub n_items_with_ratings: u64,
    pub n_items_pairable: u64,
    pub n_items_complete: u64,
    /// Category indices that occur, in declared order.
    pub observed_categories: Vec<usize>,
}

impl CountTables {
    /// Tables of an items x raters matrix, row-major (`codes[i * n_raters +
    /// g]` = category index given by rater `g` to item `i`, `None`
    /// missing). A code `>= n_categories` counts as missing (the caller
    /// validates labels first). One pass over the matrix.
    pub fn from_ratings(codes: &[Option<u32>], n_raters: usize, n_categories: usize) -> Self {
        let q = n_categories;
        let n_rows = codes.len().checked_div(n_raters).unwrap_or(0);
        let mut row_index: HashMap<Vec<u32>, u32, FxBuild> = HashMap::default();
        let mut rows: Vec<u32> = Vec::new();
        let mut row_mult: Vec<f64> = Vec::new();
        let mut item_row = vec![MISSING; n_rows];
        let mut key = vec![MISSING; n_raters];
        for (i, slot) in item_row.iter_mut().enumerate() {
            let cells = &codes[i * n_raters..(i + 1) * n_raters];
            for (k, c) in key.iter_mut().zip(cells) {
                *k = c.filter(|&c| (c as usize) < q).unwrap_or(MISSING);
            }
            if key.iter().all(|&c| c == MISSING) {
                continue;
            }
            // Look up before inserting: no key allocation for a known row.
            let idx = match row_index.get(key.as_slice()) {
                Some(&idx) => idx,
                None => {
                    let idx = row_mult.len() as u32;
                    row_index.insert(key.clone(), idx);
                    rows.extend_from_slice(&key);
                    row_mult.push(0.0);
                    idx
                }
            };
            row_mult[idx as usize] += 1.0;
            *slot = idx;
        }
        Self::from_distinct_rows(q, n_rows, n_raters, rows, row_mult, item_row)
    }

    fn from_distinct_rows(
        q: usize,
        n_rows: usize,
        n_raters: usize,
        rows: Vec<u32>,
        row_mult: Vec<f64>,
        item_row: Vec<u32>,
    ) -> Self {
        let mut items = ItemCounts::with_q(q);
        let mut pattern_index: HashMap<Vec<u32>, u32, FxBuild> = HashMap::default();
        let mut row_pattern = Vec::with_capacity(row_mult.len());
        let mut marginals = vec![0.0; n_raters * q];
        let mut pairs: Vec<PairTable> = (0..n_raters)
            .flat_map(|a| (a + 1..n_raters).map(move |b| (a, b)))
            .map(|(rater_1, rater_2)| PairTable {
                rater_1,
                rater_2,
                table: vec![0.0; q * q],
            })
            .collect();
        for (p, &m) in row_mult.iter().enumerate() {
            let row = &rows[p * n_raters..(p + 1) * n_raters];
            let mut counts = vec![0u32; q];
            for (g, &c) in row.iter().enumerate() {
                if c != MISSING {
                    counts[c as usize] += 1;
                    marginals[g * q + c as usize] += m;
                }
            }
            for t in pairs.iter_mut() {
                let (a, b) = (row[t.rater_1], row[t.rater_2]);
                if a != MISSING && b != MISSING {
                    t.table[a as usize * q + b as usize] += m;
                }
            }
            let next = items.mult.len() as u32;
            let idx = *pattern_index.entry(counts.clone()).or_insert_with(|| {
                items.counts.extend_from_slice(&counts);
                items.mult.push(0.0);
                next
            });
            items.mult[idx as usize] += m;
            row_pattern.push(idx);
        }
        let item_pattern = item_row
            .iter()
            .map(|&r| {
                if r == MISSING {
                    MISSING
                } else {
                    row_pattern[r as usize]
                }
            })
            .collect();
        let raters = RaterTables {
            n_raters,
            rows,
            row_mult,
            row_pattern,
            marginals,
            pairs,
        };
        CountTables {
            q,
            n_rows,
            items,
            item_pattern,
            raters: Some(raters),
        }
    }

    /// Tables of Fleiss' layout: one row per item, `q` counts each (how
    /// many raters chose each category). Rater-level coefficients (Conger,
    /// ICC, pairs) are not available from it.
    pub fn from_item_counts(counts: &[u32], n_categories: usize) -> Self {
        let q = n_categories;
        let n_rows = counts.len().checked_div(q).unwrap_or(0);
        let mut items = ItemCounts::with_q(q);
        let mut index: HashMap<&[u32], u32, FxBuild> = HashMap::default();
        let mut item_pattern = vec![MISSING; n_rows];
        for (i, slot) in item_pattern.iter_mut().enumerate() {
            let row = &counts[i * q..(i + 1) * q];
            if row.iter().all(|&c| c == 0) {
                continue;
            }
            let next = items.mult.len() as u32;
            let idx = *index.entry(row).or_insert_with(|| {
                items.counts.extend_from_slice(row);
                items.mult.push(0.0);
                next
            });
            items.mult[idx as usize] += 1.0;
            *slot = idx;
        }
        CountTables {
            q,
            n_rows,
            items,
            item_pattern,
            raters: None,
        }
    }

    /// Number of rater columns (the largest number of ratings of an item
    /// in the counts layout).
    pub fn n_raters(&self) -> usize {
        match &self.raters {
            Some(r) => r.n_raters,
            None => (0..self.items.len())
                .map(|p| self.items.total(p) as usize)
                .max()
                .unwrap_or(0),
        }
    }

    /// The items rated by every rater (counts layout: the items with the
    /// largest number of ratings).
    pub fn complete_items(&self) -> ItemCounts {
        let m = self.n_raters() as u32;
        self.items.filter(|t| t == m)
    }

    /// Counts of ratings and items, and the categories that occur.
    pub fn summary(&self) -> RatingsSummary {
        let m = self.n_raters() as u32;
        let (mut ratings, mut with, mut pairable, mut complete) = (0.0, 0.0, 0.0, 0.0);
        let mut seen = vec![false; self.q];
        for p in 0..self.items.len() {
            let (t, w) = (self.items.total(p), self.items.mult[p]);
            ratings += f64::from(t) * w;
            with += w;
            pairable += if t >= 2 { w } else { 0.0 };
            complete += if t == m { w } else { 0.0 };
            for (k, &c) in self.items.row(p).iter().enumerate() {
                seen[k] |= c > 0;
            }
        }
        RatingsSummary {
            n_rows: self.n_rows,
            n_ratings: ratings as u64,
            n_items_with_ratings: with as u64,
            n_items_pairable: pairable as u64,
            n_items_complete: complete as u64,
            observed_categories: (0..self.q).filter(|&k| seen[k]).collect(),
        }
    }
}

/// A chance-corrected coefficient with irrCAC's inference: standard error,
/// t(df) 95% interval with the upper bound clipped at 1, z and p-value,
/// and the observed (`pa`) and chance (`pe`) agreement it is built from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub value: f64,
    pub se: f64,
    pub lower: f64,
    pub upper: f64,
    pub z: f64,
    pub p_value: f64,
    pub df: f64,
    pub pa: f64,
    pub pe: f64,
}

/// How the p-value of an [`Estimate`] is taken (irrCAC's conventions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PValue {
    /// `2 (1 - F_t(|z|))`.
    TwoSided,
    /// `1 - F_t(|z|)` (irrCAC's Brennan-Prediger).
    OneSided,
    /// `2 (1 - F_t(max(value, 0) / se))` (irrCAC's table functions but
    /// Cohen's).
    TwoSidedPositive,
}

impl Estimate {
    /// Every field NaN.
    pub fn nan() -> Estimate {
        Estimate::from_se(
            f64::NAN,
            f64::NAN,
            f64::NAN,
            f64::NAN,
            f64::NAN,
            PValue::TwoSided,
        )
    }

    /// `value +- t_{0.975; df} se` (upper bound at most 1), `z = value /
    /// se`, p-value as `kind` says. A NaN value gives a NaN interval.
    pub fn from_se(value: f64, se: f64, df: f64, pa: f64, pe: f64, kind: PValue) -> Estimate {
        let half = t_ppf(0.975, df) * se;
        let z = value / se;
        let p_value = match kind {
            PValue::TwoSided => 2.0 * t_sf(z.abs(), df),
            PValue::OneSided => t_sf(z.abs(), df),
            PValue::TwoSidedPositive => 2.0 * t_sf(value.max(0.0) / se, df),
        };
        let upper = value + half;
        Estimate {
            value,
            se,
            lower: value - half,
            upper: if upper.is_nan() {
                f64::NAN
            } else {
                upper.min(1.0)
            },
            z,
            p_value: if value.is_nan() { f64::NAN } else { p_value },
            df,
            pa,
            pe,
        }
    }
}

/// `(pa - pe) / (1 - pe)`, NaN when the chance agreement is 1 up to
/// round-off (the coefficient is 0/0: fixtures' `pe_is_one`).
pub(crate) fn chance_corrected(pa: f64, pe: f64) -> f64 {
    if (1.0 - pe).abs() <= 64.0 * f64::EPSILON {
        return f64::NAN;
    }
    (pa - pe) / (1.0 - pe)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_from_ratings_count_patterns_pairs_and_marginals() {
        let c = |v: u32| Some(v);
        let codes = vec![
            c(0),
            c(0),
            None, //
            c(0),
            c(0),
            None, //
            c(1),
            c(0),
            c(1), //
            None,
            None,
            None, //
            c(7),
            c(1),
            None, // code 7 is out of range: missing
        ];
        let t = CountTables::from_ratings(&codes, 3, 2);
        assert_eq!(t.n_rows, 5);
        let s = t.summary();
        assert_eq!(s.n_ratings, 8);
        assert_eq!(s.n_items_with_ratings, 4);
        assert_eq!(s.n_items_pairable, 3);
        assert_eq!(s.n_items_complete, 1);
        assert_eq!(s.observed_categories, vec![0, 1]);
        let r = t.raters.as_ref().unwrap();
        assert_eq!(r.n_rows(), 3);
        assert_eq!(r.marginals, vec![2.0, 1.0, 3.0, 1.0, 0.0, 1.0]);
        assert_eq!(r.pairs[0].table, vec![2.0, 0.0, 1.0, 0.0]);
        assert_eq!(r.pairs[1].table, vec![0.0, 0.0, 0.0, 1.0]);
        assert_eq!(t.item_pattern[3], MISSING);
        assert_eq!(t.item_pattern[0], t.item_pattern[1]);
    }

    #[test]
    fn weights_follow_the_category_values() {
        let w = weight_matrix(&[1.0, 2.0, 4.0], Weights::Quadratic);
        assert_eq!(w[1], 1.0 - 1.0 / 9.0);
        assert_eq!(w[2], 0.0);
        let w = weight_matrix(&[1.0, 2.0, 4.0], Weights::Linear);
        assert_eq!(w[5], 1.0 - 2.0 / 3.0);
        assert!(weight_matrix(&[3.0], Weights::Quadratic)[0].is_nan());
        assert_eq!(weight_matrix(&[3.0], Weights::Identity), vec![1.0]);
    }
}
