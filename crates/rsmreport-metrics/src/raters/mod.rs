//! Stage 4 (metrics, pure): agreement among any number of raters
//! (`spec/agreement.md`, sections 2, 5 and 6).
//!
//! A validated ratings matrix (items x raters, category codes `0..q` or
//! missing) is turned **once** into [`CountTables`]: the distinct per-item
//! count vectors, stored sparsely (only the categories an item's ratings
//! use) as patterns with their multiplicity, so a million items x 5 raters
//! cost one pass and a few hundred patterns; the distinct rating rows; the
//! rater x category marginals; and the rater-pair contingency tables as
//! their non-zero cells. Weights between categories are a [`Kernel`] (`W x`
//! from sorted values and prefix sums or moments), never a `q x q` table,
//! so no cost or memory grows with the square of the number of categories
//! (continuous ratings with a thousand distinct values, label sets of
//! thousands). Every coefficient is computed from these tables:
//!
//! * [`chance`]: irrCAC's raw-data coefficients (percent agreement, Fleiss'
//!   generalised kappa, Gwet's AC1/AC2, Brennan-Prediger, Conger's kappa,
//!   irrCAC's Krippendorff alpha) with Gwet's linearised standard errors and
//!   t(n-1) intervals clipped at 1;
//! * [`fleiss`]: statsmodels' Fleiss and Randolph kappa on complete items,
//!   with R `irr`'s per-category kappas and z under the null;
//! * [`alpha`]: Krippendorff's alpha (nominal, ordinal, interval, ratio)
//!   from sparse coincidences and marginals, and its bootstrap over items;
//! * [`ratio`]: ratio alpha's expected disagreement by a quadrature linear
//!   in the number of distinct values;
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
pub mod ratio;
pub mod rows;
pub mod scales;

use std::collections::HashMap;

use crate::distributions::{t_ppf, t_sf};
use rsmreport_core::table::FxBuild;

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
/// (irrCAC raises), so every weighted coefficient is NaN. The coefficients
/// never build it (they use [`Kernel`]); it is the direct definition the
/// tests check [`Kernel`] against, for small `q`.
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

/// The agreement weights of [`weight_matrix`] as an operator, never as a
/// `q x q` table: `w(k, l)` one at a time, `W x` for a whole vector in
/// `O(q log q)` (sorted values and prefix sums for `|u_k - u_l|`, moments
/// for `(u_k - u_l)^2`), so no coefficient's cost or memory grows with the
/// square of the number of categories. The values are rescaled once to
/// `u = (v - min) / (max - min)` in `[0, 1]` (the weights depend on
/// differences over the range only), which keeps the sums well
/// conditioned.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub kind: Weights,
    /// Rescaled category values (NaN for a single category: zero range).
    u: Vec<f64>,
    /// Categories in increasing `u` (linear weights only).
    order: Vec<u32>,
}

impl Kernel {
    /// The weights `kind` over the category `values`.
    pub fn new(values: &[f64], kind: Weights) -> Kernel {
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let range = hi - lo;
        let u: Vec<f64> = values.iter().map(|v| (v - lo) / range).collect();
        let mut order = Vec::new();
        if kind == Weights::Linear {
            order = (0..values.len() as u32).collect();
            order.sort_by(|&a, &b| u[a as usize].total_cmp(&u[b as usize]));
        }
        Kernel { kind, u, order }
    }

    /// Number of categories.
    pub fn q(&self) -> usize {
        self.u.len()
    }

    /// The weight `w_kl`.
    #[inline]
    pub fn w(&self, k: usize, l: usize) -> f64 {
        match self.kind {
            Weights::Identity => f64::from(u8::from(k == l)),
            Weights::Linear => 1.0 - (self.u[k] - self.u[l]).abs(),
            Weights::Quadratic => {
                let d = self.u[k] - self.u[l];
                1.0 - d * d
            }
        }
    }

    /// `(W x)_k = sum_l w_kl x_l` for every `k`.
    pub fn apply(&self, x: &[f64]) -> Vec<f64> {
        if self.kind == Weights::Identity {
            return x.to_vec();
        }
        let s0: f64 = x.iter().sum();
        self.disagree(x).into_iter().map(|d| s0 - d).collect()
    }

    /// `sum_l (1 - w_kl) x_l` for every `k` (disagreement weights, summed
    /// directly rather than as `sum x - W x`, for precision).
    pub fn disagree(&self, x: &[f64]) -> Vec<f64> {
        match self.kind {
            Weights::Identity => {
                let s0: f64 = x.iter().sum();
                x.iter().map(|v| s0 - v).collect()
            }
            Weights::Linear => self.distance_power(x, 1),
            Weights::Quadratic => self.distance_power(x, 2),
        }
    }

    /// `sum_l x_l |u_k - u_l|^power` for every `k`, `power` 1 (sorted
    /// values and prefix sums), 2 or 4 (moments of `x` over `u`).
    fn distance_power(&self, x: &[f64], power: u8) -> Vec<f64> {
        let mut m = [0.0f64; 5];
        for (&xl, &u) in x.iter().zip(&self.u) {
            let mut t = xl;
            for mj in m.iter_mut() {
                *mj += t;
                t *= u;
            }
        }
        match power {
            1 => {
                // u_k A - B + (B' - u_k A'): A, B the sums of x and x u
                // before k in the order, A', B' after it.
                let order: Vec<u32> = if self.order.is_empty() {
                    let mut o: Vec<u32> = (0..self.q() as u32).collect();
                    o.sort_by(|&a, &b| self.u[a as usize].total_cmp(&self.u[b as usize]));
                    o
                } else {
                    self.order.clone()
                };
                let mut out = vec![0.0; x.len()];
                let (mut a, mut b) = (0.0, 0.0);
                for &k in &order {
                    let k = k as usize;
                    let u = self.u[k];
                    let (after_a, after_b) = (m[0] - a - x[k], m[1] - b - x[k] * u);
                    out[k] = u * a - b + (after_b - u * after_a);
                    a += x[k];
                    b += x[k] * u;
                }
                out
            }
            2 => self
                .u
                .iter()
                .map(|&u| u * u * m[0] - 2.0 * u * m[1] + m[2])
                .collect(),
            _ => self
                .u
                .iter()
                .map(|&u| {
                    let u2 = u * u;
                    u2 * u2 * m[0] - 4.0 * u2 * u * m[1] + 6.0 * u2 * m[2] - 4.0 * u * m[3] + m[4]
                })
                .collect(),
        }
    }

    /// `sum_kl w_kl^2 a_k b_l`.
    pub fn quad_squared(&self, a: &[f64], b: &[f64]) -> f64 {
        let dot = |x: &[f64], y: &[f64]| -> f64 { x.iter().zip(y).map(|(p, q)| p * q).sum() };
        let (sa, sb): (f64, f64) = (a.iter().sum(), b.iter().sum());
        match self.kind {
            Weights::Identity => self.quad(a, b),
            Weights::Linear => {
                sa * sb - 2.0 * dot(a, &self.distance_power(b, 1))
                    + dot(a, &self.distance_power(b, 2))
            }
            Weights::Quadratic => {
                sa * sb - 2.0 * dot(a, &self.distance_power(b, 2))
                    + dot(a, &self.distance_power(b, 4))
            }
        }
    }

    /// `sum_kl w_kl a_k b_l`.
    pub fn quad(&self, a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(self.apply(b)).map(|(x, y)| x * y).sum()
    }

    /// `T_w = sum_kl w_kl`.
    pub fn total(&self) -> f64 {
        let ones = vec![1.0; self.q()];
        self.quad(&ones, &ones)
    }
}

/// Positions `1..=q` as category values (text labels, and the weights of
/// scikit-learn, statsmodels and irrCAC's table functions).
pub fn positions(q: usize) -> Vec<f64> {
    (1..=q).map(|k| k as f64).collect()
}

/// One item's (or pattern's) ratings as sparse counts: the categories
/// that occur, in increasing order, and how many ratings each got.
#[derive(Clone, Copy, Debug)]
pub struct Row<'a> {
    pub cats: &'a [u32],
    pub counts: &'a [u32],
}

impl Row<'_> {
    /// `(category, count)` pairs.
    pub fn iter(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.cats
            .iter()
            .map(|&k| k as usize)
            .zip(self.counts.iter().copied())
    }

    /// Number of ratings `r_i`.
    pub fn total(&self) -> u32 {
        self.counts.iter().sum()
    }
}

/// Distinct per-item count vectors, stored sparsely (only the categories
/// an item's ratings use), with how many items share each; only items
/// with at least one rating. Memory grows with the ratings, never with
/// the number of categories times the items.
#[derive(Clone, Debug, PartialEq)]
pub struct ItemCounts {
    /// Number of categories.
    pub q: usize,
    /// Pattern `p`'s entries are `cats[offsets[p]..offsets[p + 1]]`.
    offsets: Vec<usize>,
    cats: Vec<u32>,
    counts: Vec<u32>,
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

    /// Pattern `p`'s sparse counts.
    pub fn row(&self, p: usize) -> Row<'_> {
        let (a, b) = (self.offsets[p], self.offsets[p + 1]);
        Row {
            cats: &self.cats[a..b],
            counts: &self.counts[a..b],
        }
    }

    /// Pattern `p`'s number of ratings `r_i`.
    pub fn total(&self, p: usize) -> u32 {
        self.row(p).total()
    }

    /// Ratings per category over all items (`q` values).
    pub fn category_totals(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.q];
        for p in 0..self.len() {
            for (k, c) in self.row(p).iter() {
                out[k] += self.mult[p] * f64::from(c);
            }
        }
        out
    }

    /// The patterns with `keep(total)`, multiplicities unchanged.
    pub fn filter(&self, keep: impl Fn(u32) -> bool) -> ItemCounts {
        let mut out = ItemCounts::with_q(self.q);
        for p in 0..self.len() {
            if keep(self.total(p)) {
                let row = self.row(p);
                out.push(row.cats, row.counts, self.mult[p]);
            }
        }
        out
    }

    /// Two ratings per item from a two-rater table.
    pub fn from_pair_table(table: &PairTable) -> ItemCounts {
        let mut out = ItemCounts::with_q(table.q);
        for &(k, l, m) in &table.cells {
            if m > 0.0 {
                if k == l {
                    out.push(&[k], &[2], m);
                } else {
                    out.push(&[k.min(l), k.max(l)], &[1, 1], m);
                }
            }
        }
        out
    }

    /// Appends a pattern (categories increasing, counts > 0).
    fn push(&mut self, cats: &[u32], counts: &[u32], m: f64) {
        self.cats.extend_from_slice(cats);
        self.counts.extend_from_slice(counts);
        self.offsets.push(self.cats.len());
        self.mult.push(m);
    }

    fn with_q(q: usize) -> ItemCounts {
        ItemCounts {
            q,
            offsets: vec![0],
            cats: Vec::new(),
            counts: Vec::new(),
            mult: Vec::new(),
        }
    }
}

/// A dense count vector's sparse form as interleaved `(category, count)`
/// pairs in `key` (the hash key of a pattern).
fn sparse_key(dense: &[u32], key: &mut Vec<u32>) {
    key.clear();
    for (k, &c) in dense.iter().enumerate() {
        if c > 0 {
            key.extend_from_slice(&[k as u32, c]);
        }
    }
}

/// An interleaved key's categories and counts.
fn split_key(key: &[u32]) -> (Vec<u32>, Vec<u32>) {
    key.chunks(2).map(|c| (c[0], c[1])).unzip()
}

/// Two raters' contingency table over the items both rated, stored as
/// its non-zero cells (a table of `q` categories costs what its items
/// use, never `q x q`).
#[derive(Clone, Debug, PartialEq)]
pub struct PairTable {
    /// Rater indices, `rater_1 < rater_2`.
    pub rater_1: usize,
    pub rater_2: usize,
    /// Number of categories.
    pub q: usize,
    /// `(k, l, items)`: items rated `k` by `rater_1` and `l` by `rater_2`,
    /// sorted by `(k, l)`, every count positive.
    pub cells: Vec<(u32, u32, f64)>,
}

impl PairTable {
    /// Items rated by both.
    pub fn n(&self) -> f64 {
        self.cells.iter().map(|c| c.2).sum()
    }

    /// The table of a dense `q x q` matrix (rows = first rater).
    pub fn from_dense(table: &[f64], q: usize) -> PairTable {
        let mut cells = Vec::new();
        for k in 0..q {
            for l in 0..q {
                let m = table[k * q + l];
                if m != 0.0 {
                    cells.push((k as u32, l as u32, m));
                }
            }
        }
        PairTable {
            rater_1: 0,
            rater_2: 1,
            q,
            cells,
        }
    }

    /// The dense `q x q` matrix (for small tables and tests only).
    pub fn to_dense(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.q * self.q];
        for &(k, l, m) in &self.cells {
            out[k as usize * self.q + l as usize] += m;
        }
        out
    }

    /// Row and column margins (counts).
    pub fn margins(&self) -> (Vec<f64>, Vec<f64>) {
        let (mut row, mut col) = (vec![0.0; self.q], vec![0.0; self.q]);
        for &(k, l, m) in &self.cells {
            row[k as usize] += m;
            col[l as usize] += m;
        }
        (row, col)
    }

    /// Items on the diagonal.
    pub fn diagonal(&self) -> f64 {
        self.cells.iter().filter(|c| c.0 == c.1).map(|c| c.2).sum()
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
        let n_pairs = n_raters * n_raters.saturating_sub(1) / 2;
        let mut cells: Vec<HashMap<(u32, u32), f64, FxBuild>> =
            (0..n_pairs).map(|_| HashMap::default()).collect();
        let (mut sorted, mut key) = (Vec::with_capacity(n_raters), Vec::new());
        for (p, &m) in row_mult.iter().enumerate() {
            let row = &rows[p * n_raters..(p + 1) * n_raters];
            sorted.clear();
            for (g, &c) in row.iter().enumerate() {
                if c != MISSING {
                    sorted.push(c);
                    marginals[g * q + c as usize] += m;
                }
            }
            let mut t = 0;
            for a in 0..n_raters {
                for b in a + 1..n_raters {
                    if row[a] != MISSING && row[b] != MISSING {
                        *cells[t].entry((row[a], row[b])).or_insert(0.0) += m;
                    }
                    t += 1;
                }
            }
            sorted.sort_unstable();
            key.clear();
            for chunk in sorted.chunk_by(|a, b| a == b) {
                key.extend_from_slice(&[chunk[0], chunk.len() as u32]);
            }
            let idx = match pattern_index.get(key.as_slice()) {
                Some(&idx) => idx,
                None => {
                    let idx = items.len() as u32;
                    let (cats, counts) = split_key(&key);
                    items.push(&cats, &counts, 0.0);
                    pattern_index.insert(key.clone(), idx);
                    idx
                }
            };
            items.mult[idx as usize] += m;
            row_pattern.push(idx);
        }
        let pair_ids = (0..n_raters).flat_map(|a| (a + 1..n_raters).map(move |b| (a, b)));
        let pairs = pair_ids
            .zip(cells)
            .map(|((rater_1, rater_2), map)| {
                let mut cells: Vec<(u32, u32, f64)> =
                    map.into_iter().map(|((k, l), m)| (k, l, m)).collect();
                cells.sort_unstable_by_key(|c| (c.0, c.1));
                PairTable {
                    rater_1,
                    rater_2,
                    q,
                    cells,
                }
            })
            .collect();
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
        let mut index: HashMap<Vec<u32>, u32, FxBuild> = HashMap::default();
        let mut item_pattern = vec![MISSING; n_rows];
        let mut key = Vec::new();
        for (i, slot) in item_pattern.iter_mut().enumerate() {
            sparse_key(&counts[i * q..(i + 1) * q], &mut key);
            if key.is_empty() {
                continue;
            }
            let idx = match index.get(key.as_slice()) {
                Some(&idx) => idx,
                None => {
                    let idx = items.len() as u32;
                    let (cats, counts) = split_key(&key);
                    items.push(&cats, &counts, 0.0);
                    index.insert(key.clone(), idx);
                    idx
                }
            };
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
            for (k, c) in self.items.row(p).iter() {
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
        assert_eq!(r.pairs[0].to_dense(), vec![2.0, 0.0, 1.0, 0.0]);
        assert_eq!(r.pairs[1].to_dense(), vec![0.0, 0.0, 0.0, 1.0]);
        assert_eq!(t.item_pattern[3], MISSING);
        assert_eq!(t.item_pattern[0], t.item_pattern[1]);
    }

    proptest::proptest! {
        /// The operator equals the dense weight matrix: `W x`, `1 - W`,
        /// `a' W b` and `a' (W o W) b`, at 1e-9, for many categories with
        /// continuous values in any order.
        #[test]
        fn kernel_equals_the_weight_matrix(
            seed in 0u64..10_000, q in 1usize..120
        ) {
            let mut g = crate::test_util::Lcg(seed);
            let values: Vec<f64> = (0..q).map(|_| (g.next() * 1000.0).round() / 10.0).collect();
            let a: Vec<f64> = (0..q).map(|_| g.next()).collect();
            let b: Vec<f64> = (0..q).map(|_| g.next() * 3.0).collect();
            for kind in Weights::ALL {
                let w = weight_matrix(&values, kind);
                let k = Kernel::new(&values, kind);
                let close = |x: f64, y: f64| {
                    (x.is_nan() && y.is_nan()) || (x - y).abs() <= 1e-9 * (1.0 + y.abs())
                };
                let wb = k.apply(&b);
                let dis = k.disagree(&b);
                let (mut quad, mut quad2) = (0.0, 0.0);
                for i in 0..q {
                    let direct: f64 = (0..q).map(|j| w[i * q + j] * b[j]).sum();
                    let one_minus: f64 = (0..q).map(|j| (1.0 - w[i * q + j]) * b[j]).sum();
                    proptest::prop_assert!(close(wb[i], direct), "{:?} W x[{}]", kind, i);
                    proptest::prop_assert!(close(dis[i], one_minus), "{:?} (1 - W) x", kind);
                    for j in 0..q {
                        quad += a[i] * w[i * q + j] * b[j];
                        quad2 += a[i] * w[i * q + j] * w[i * q + j] * b[j];
                        proptest::prop_assert!(close(k.w(i, j), w[i * q + j]));
                    }
                }
                proptest::prop_assert!(close(k.quad(&a, &b), quad), "{:?} a'Wb", kind);
                proptest::prop_assert!(close(k.quad_squared(&a, &b), quad2), "{:?} a'W2b", kind);
            }
        }
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
