//! Stage 4 (metrics, pure): one-vs-rest ranking metrics of one class's
//! scores, as scikit-learn computes them (classify spec 2;
//! fixtures/classify README 6.3-6.4): the distinct thresholds with their
//! cumulative true and false positives (`_binary_clf_curve`), average
//! precision (the step-wise sum, no interpolation), ROC AUC (the
//! trapezoid, i.e. P(positive > negative) + P(tie)/2), and the points of
//! `precision_recall_curve` and `roc_curve(drop_intermediate=True)`.
//!
//! One sort per class ([`sort_descending`]):
//! [`RankCurve::new`] then counts in one pass over the distinct
//! thresholds ([`SortedLabels::with_curve`]: the order, the curve and its
//! sums from that one pass). [`SortedLabels`] keeps, for the bootstrap, each item's
//! weight slot in score order, so a replicate re-counts without sorting
//! again, [`LANES`] replicates per pass. [`RankSums`] is the one
//! definition of average precision and ROC AUC over a curve's counts.
//!
//! Pure maths on slices: no files, tables, configuration or threads.
//! Undefined values are NaN (an AUC with one class present), never a panic.

/// The distinct scores of one class in descending order, with the
/// (weighted) numbers of positives and negatives scoring at least each.
#[derive(Clone, Debug, PartialEq)]
pub struct RankCurve {
    pub thresholds: Vec<f64>,
    pub tps: Vec<f64>,
    pub fps: Vec<f64>,
}

/// A score as a key whose unsigned order is the score's order (`-0.0` is
/// `0.0`); NaN must not occur.
fn key(x: f64) -> u64 {
    let b = (x + 0.0).to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

fn unkey(k: u64) -> f64 {
    if k >> 63 == 1 {
        f64::from_bits(k & !(1 << 63))
    } else {
        f64::from_bits(!k)
    }
}

impl RankCurve {
    /// The curve of `scores` with `positive[i]` the 0/1 truth of item `i`.
    pub fn new(scores: &[f64], positive: &[bool]) -> RankCurve {
        let slots: Vec<u32> = (0..scores.len() as u32).collect();
        SortedLabels::with_curve(scores, positive, &slots, false).1
    }

    /// Positives (the last cumulative count), 0 without items.
    pub fn positives(&self) -> f64 {
        self.tps.last().copied().unwrap_or(0.0)
    }

    /// Negatives.
    pub fn negatives(&self) -> f64 {
        self.fps.last().copied().unwrap_or(0.0)
    }

    /// `average_precision_score`.
    pub fn average_precision(&self) -> f64 {
        average_precision(&self.tps, &self.fps)
    }

    /// `roc_auc_score` (NaN without positives or without negatives).
    pub fn roc_auc(&self) -> f64 {
        roc_auc(&self.tps, &self.fps)
    }

    /// `precision_recall_curve` as rows `(threshold, precision, recall)`,
    /// thresholds ascending, then `(NaN, 1, 0)` (the point without a
    /// threshold). Empty without positives or without negatives (not a
    /// curve the report shows).
    pub fn pr_points(&self) -> Vec<(f64, f64, f64)> {
        let len = self.pr_len();
        (0..len).map(|i| self.pr_point(i)).collect()
    }

    /// How many points [`RankCurve::pr_points`] has.
    fn pr_len(&self) -> usize {
        if self.positives() == 0.0 || self.negatives() == 0.0 {
            0
        } else {
            self.thresholds.len() + 1
        }
    }

    /// Point `i` of [`RankCurve::pr_points`] (`i < pr_len`).
    fn pr_point(&self, i: usize) -> (f64, f64, f64) {
        let m = self.thresholds.len();
        if i == m {
            return (f64::NAN, 1.0, 0.0);
        }
        let j = m - 1 - i;
        let ps = self.tps[j] + self.fps[j];
        let precision = if ps == 0.0 { 0.0 } else { self.tps[j] / ps };
        (
            self.thresholds[j],
            precision,
            self.tps[j] / self.positives(),
        )
    }

    /// [`RankCurve::pr_points`] with at most `cap` points ([`thin`]; 0:
    /// every point), and how many points the whole curve has. The
    /// essential points are the ones `precision_recall_curve(...,
    /// drop_intermediate=True)` keeps: where the true positives change
    /// into or out of a threshold.
    pub fn pr_points_capped(&self, cap: usize) -> (Vec<(f64, f64, f64)>, usize) {
        let m = self.thresholds.len();
        // Point i < m is threshold m - 1 - i (ascending); point m closes.
        let changes = |j: usize| {
            (j > 0 && self.tps[j] != self.tps[j - 1])
                || (j + 1 < m && self.tps[j + 1] != self.tps[j])
        };
        let full = self.pr_len();
        let keep = thin(full, cap, |i| i < m && changes(m - 1 - i));
        (keep.into_iter().map(|i| self.pr_point(i)).collect(), full)
    }

    /// [`RankCurve::roc_points`] with at most `cap` points ([`thin`]; 0:
    /// every point), and how many points the whole curve has. Every point
    /// of the curve is one `drop_intermediate` keeps, so a longer curve
    /// keeps points evenly spaced in rank, both ends included.
    pub fn roc_points_capped(&self, cap: usize) -> (Vec<(f64, f64, f64)>, usize) {
        let kept = self.roc_kept();
        let full = kept.len();
        let keep = thin_all(full, cap);
        (
            keep.into_iter().map(|i| self.roc_point(kept[i])).collect(),
            full,
        )
    }

    /// `roc_curve(..., drop_intermediate=True)` as rows `(threshold, fpr,
    /// tpr)`: `(inf, 0, 0)`, then the kept thresholds descending (the first,
    /// the last, and every one where the second difference of the false or
    /// true positives is not 0). Empty without positives or negatives.
    pub fn roc_points(&self) -> Vec<(f64, f64, f64)> {
        self.roc_kept()
            .into_iter()
            .map(|j| self.roc_point(j))
            .collect()
    }

    /// The thresholds [`RankCurve::roc_points`] keeps, as `j + 1` (0: the
    /// point `(inf, 0, 0)`).
    fn roc_kept(&self) -> Vec<u32> {
        if self.positives() == 0.0 || self.negatives() == 0.0 {
            return Vec::new();
        }
        let m = self.thresholds.len();
        let keep = |j: usize| {
            m <= 2
                || j == 0
                || j + 1 == m
                || self.fps[j + 1] - 2.0 * self.fps[j] + self.fps[j - 1] != 0.0
                || self.tps[j + 1] - 2.0 * self.tps[j] + self.tps[j - 1] != 0.0
        };
        std::iter::once(0)
            .chain((0..m).filter(|&j| keep(j)).map(|j| j as u32 + 1))
            .collect()
    }

    /// The point of [`RankCurve::roc_kept`]'s entry `at`.
    fn roc_point(&self, at: u32) -> (f64, f64, f64) {
        match at as usize {
            0 => (f64::INFINITY, 0.0, 0.0),
            a => {
                let j = a - 1;
                (
                    self.thresholds[j],
                    self.fps[j] / self.negatives(),
                    self.tps[j] / self.positives(),
                )
            }
        }
    }
}

/// Average precision and ROC AUC accumulated over cumulative counts at
/// descending thresholds, one threshold at a time: the one definition of
/// both ([`average_precision`] and [`roc_auc`] fold a curve through it;
/// the bootstrap folds its weighted counts without storing a curve).
#[derive(Clone, Copy, Debug, Default)]
pub struct RankSums {
    /// `sum_j (tps_j - tps_{j-1}) * precision_j` over the steps where
    /// the true positives change.
    ap: f64,
    /// `sum_j (fps_j - fps_{j-1})(tps_j + tps_{j-1})`.
    area: f64,
    /// The counts at the last threshold.
    tp: f64,
    fp: f64,
}

impl RankSums {
    /// Adds the threshold with cumulative counts `tp`, `fp`.
    #[inline]
    pub fn step(&mut self, tp: f64, fp: f64) {
        fold_step(&mut self.ap, &mut self.area, (self.tp, self.fp), (tp, fp));
        self.tp = tp;
        self.fp = fp;
    }

    /// The positives counted so far (the last threshold's true positives).
    pub fn positives(&self) -> f64 {
        self.tp
    }

    /// `sum_j (recall_j - recall_{j-1}) precision_j`, recall_0 = 0; 0
    /// without positives (scikit-learn sets recall to 1 everywhere then,
    /// and the only step has precision 0).
    pub fn average_precision(&self) -> f64 {
        if self.tp <= 0.0 {
            return 0.0;
        }
        (self.ap / self.tp).max(0.0)
    }

    /// The trapezoid `area / (2 P N)`; NaN when P or N is 0.
    pub fn roc_auc(&self) -> f64 {
        if self.tp <= 0.0 || self.fp <= 0.0 {
            return f64::NAN;
        }
        self.area / (2.0 * self.tp * self.fp)
    }
}

/// One threshold's terms of [`RankSums`], the one definition of both sums:
/// from the previous cumulative counts `(ptp, pfp)` to `(tp, fp)`, average
/// precision gains `(tp - ptp) * precision` and the trapezoid
/// `(fp - pfp)(tp + ptp)`. Without a branch, so that 16 lanes compile to
/// vector instructions: where the true positives do not change the first
/// term is `0 * precision`, exactly 0 (the precision's denominator is
/// replaced by 1 where it is 0, so the product is never `0 * NaN`). Every
/// count is a whole number below 2^53 in every use, so each sum is exact
/// and the order of steps with no new positive does not change it.
#[inline(always)]
fn fold_step(ap: &mut f64, area: &mut f64, (ptp, pfp): (f64, f64), (tp, fp): (f64, f64)) {
    let predicted = tp + fp;
    let denominator = if predicted > 0.0 { predicted } else { 1.0 };
    *ap += (tp - ptp) * (tp / denominator);
    *area += (fp - pfp) * (tp + ptp);
}

fn fold(tps: &[f64], fps: &[f64]) -> RankSums {
    let mut sums = RankSums::default();
    for (&tp, &fp) in tps.iter().zip(fps) {
        sums.step(tp, fp);
    }
    sums
}

/// Average precision from cumulative counts at descending thresholds
/// ([`RankSums::average_precision`]).
pub fn average_precision(tps: &[f64], fps: &[f64]) -> f64 {
    fold(tps, fps).average_precision()
}

/// ROC AUC from cumulative counts at descending thresholds
/// ([`RankSums::roc_auc`]).
pub fn roc_auc(tps: &[f64], fps: &[f64]) -> f64 {
    fold(tps, fps).roc_auc()
}

/// Macro and weighted averages of per-class values as scikit-learn's
/// multilabel averaging does: macro = the plain mean (NaN as soon as one
/// value is NaN); weighted = the mean weighted by the positives, a class
/// without positives weighing 0 (its NaN ignored); NaN when no class has a
/// positive.
pub fn macro_weighted(values: &[f64], positives: &[f64]) -> (f64, f64) {
    let macro_avg = values.iter().sum::<f64>() / values.len() as f64;
    let total: f64 = positives.iter().sum();
    let weighted = values
        .iter()
        .zip(positives)
        .filter(|(_, &w)| w > 0.0)
        .map(|(v, w)| v * w)
        .sum::<f64>()
        / total;
    (macro_avg, if total > 0.0 { weighted } else { f64::NAN })
}

/// Items' tags in descending score order, and each distinct score's key
/// with the end of its run.
type Ordered = (Vec<u32>, Vec<(u64, u32)>);

/// The items' tags in descending score order, and each distinct score's
/// key with the end of its run, by sorting every item.
fn by_sorting(scores: &[f64], tag: &impl Fn(usize) -> u32) -> Ordered {
    let mut order: Vec<(u64, u32)> = scores
        .iter()
        .enumerate()
        .map(|(i, &s)| (key(s), tag(i)))
        .collect();
    sort_descending(&mut order);
    runs_of(order)
}

/// The tags of `order` (sorted by descending key) and each distinct key
/// with the end of its run, the runs written over the front of `order`
/// (a run never starts after the item it is read from): no second buffer
/// of the items' size.
fn runs_of(mut order: Vec<(u64, u32)>) -> Ordered {
    let mut tags = Vec::with_capacity(order.len());
    let mut runs = 0usize;
    for i in 0..order.len() {
        let (k, t) = order[i];
        tags.push(t);
        if runs > 0 && order[runs - 1].0 == k {
            order[runs - 1].1 = i as u32 + 1;
        } else {
            order[runs] = (k, i as u32 + 1);
            runs += 1;
        }
    }
    order.truncate(runs);
    (tags, order)
}

/// The most distinct scores [`by_counting`] takes.
const COUNTED: usize = 1 << 16;

/// The items' tags (`tag(i)`) in descending score order, and each
/// distinct score's key with the end of its run, by counting: one lookup
/// per item in a table of the distinct scores, which are sorted alone.
/// Scores written with a few decimals (probabilities) have few distinct
/// values, and this is twice as fast as sorting every item then; `None`
/// as soon as there are more than [`COUNTED`] distinct scores (or more
/// than one per four items), for the caller's sort.
fn by_counting(scores: &[f64], tag: &impl Fn(usize) -> u32) -> Option<Ordered> {
    let limit = COUNTED.min(scores.len() / 4 + 16);
    let mut index: std::collections::HashMap<u64, u32, rsmreport_core::table::FxBuild> =
        std::collections::HashMap::default();
    let mut ids: Vec<u32> = Vec::with_capacity(scores.len());
    for &s in scores {
        let next = index.len() as u32;
        ids.push(*index.entry(key(s)).or_insert(next));
        if index.len() > limit {
            return None;
        }
    }
    let mut keys: Vec<(u64, u32)> = index.into_iter().collect();
    keys.sort_unstable_by_key(|&(k, _)| std::cmp::Reverse(k));
    // Where each distinct score's run starts, by its id.
    let mut counts = vec![0u32; keys.len()];
    for &id in &ids {
        counts[id as usize] += 1;
    }
    let mut next = vec![0u32; keys.len()];
    let mut runs = Vec::with_capacity(keys.len());
    let mut end = 0u32;
    for &(k, id) in &keys {
        next[id as usize] = end;
        end += counts[id as usize];
        runs.push((k, end));
    }
    let mut slots = vec![0u32; scores.len()];
    for (i, &id) in ids.iter().enumerate() {
        let at = &mut next[id as usize];
        slots[*at as usize] = tag(i);
        *at += 1;
    }
    Some((slots, runs))
}

/// Puts the positive slots of `run` first (in no particular order; the
/// sums over a run do not depend on it): how many there are.
fn positives_first(run: &mut [u32]) -> usize {
    let mut k = 0;
    for j in 0..run.len() {
        if run[j] & POSITIVE_BIT != 0 {
            run.swap(k, j);
            k += 1;
        }
    }
    k
}

/// Adds the weights of every slot in `slots` to `acc`, lane by lane.
#[inline(always)]
fn add_weights(acc: &mut [u32; LANES], slots: &[u32], weight: &[[u16; LANES]]) {
    for &s in slots {
        let w = &weight[(s & !POSITIVE_BIT) as usize];
        for l in 0..LANES {
            acc[l] = acc[l].wrapping_add(u32::from(w[l]));
        }
    }
}

/// Sorts `(key, tag)` pairs by descending key (the standard library's
/// pattern-defeating quicksort: on scores with few distinct values, such
/// as probabilities written with 4 decimals, it was faster than an 8-pass
/// radix sort in a side-by-side test, and as fast on continuous scores).
pub fn sort_descending(v: &mut [(u64, u32)]) {
    v.sort_unstable_by_key(|a| std::cmp::Reverse(a.0));
}

/// One class's items in descending score order, for the bootstrap: the
/// weight slot of each item (its resampling block) with the truth in the
/// top bit, and where each distinct score ends. Within the items of one
/// score the positives come first, and `negatives[r]` is where the
/// negatives of score `r` start: the weighted sums need no test per item.
#[derive(Clone, Debug)]
pub struct SortedLabels {
    slots: Vec<u32>,
    ends: Vec<u32>,
    negatives: Vec<u32>,
}

const POSITIVE_BIT: u32 = 1 << 31;

/// Replicates [`SortedLabels::weighted`] computes in one pass.
pub const LANES: usize = 16;

impl SortedLabels {
    /// `slot[i]` is item `i`'s weight slot (below 2^31): the order of
    /// [`SortedLabels::with_curve`], one run per distinct score.
    pub fn new(scores: &[f64], positive: &[bool], slot: &[u32]) -> SortedLabels {
        SortedLabels::with_curve(scores, positive, slot, false).0
    }

    /// The order, its unweighted curve (each item counted once) and the
    /// curve's [`RankSums`] (folded over the same counts in the same
    /// order, so bit for bit [`RankCurve::average_precision`] and
    /// [`RankCurve::roc_auc`]) in one pass over the runs after the sort.
    /// The order holds no thresholds (the curve has them).
    ///
    /// With `compact`, the order for the bootstrap and the subgroups:
    /// consecutive scores with no positive are merged into one run (their
    /// steps only add to the trapezoid, at the same true positives, and
    /// whole-number sums do not depend on how they are grouped). On scores
    /// written with 6 decimals most distinct scores hold one negative
    /// item, so this keeps about two runs per positive instead of one per
    /// item; every sum is bit for bit the same.
    pub fn with_curve(
        scores: &[f64],
        positive: &[bool],
        slot: &[u32],
        compact: bool,
    ) -> (SortedLabels, RankCurve, RankSums) {
        let tag = |i: usize| slot[i] | if positive[i] { POSITIVE_BIT } else { 0 };
        let (mut slots, runs) =
            by_counting(scores, &tag).unwrap_or_else(|| by_sorting(scores, &tag));
        let m = runs.len();
        let (mut ends, mut negatives) = (Vec::with_capacity(m), Vec::with_capacity(m));
        let mut curve = RankCurve {
            thresholds: Vec::with_capacity(m),
            tps: Vec::with_capacity(m),
            fps: Vec::with_capacity(m),
        };
        let mut sums = RankSums::default();
        let (mut start, mut tp, mut last_negative_only) = (0usize, 0usize, false);
        for (k, end) in runs {
            let end = end as usize;
            let positives = positives_first(&mut slots[start..end]);
            tp += positives;
            let (t, f) = (tp as f64, (end - tp) as f64);
            curve.thresholds.push(unkey(k));
            curve.tps.push(t);
            curve.fps.push(f);
            sums.step(t, f);
            // `compact`: a run without positives after another is merged.
            let negative_only = positives == 0;
            if compact && negative_only && last_negative_only {
                *ends.last_mut().expect("a run before") = end as u32;
            } else {
                ends.push(end as u32);
                negatives.push((start + positives) as u32);
            }
            last_negative_only = negative_only;
            start = end;
        }
        ends.shrink_to_fit();
        negatives.shrink_to_fit();
        let sorted = SortedLabels {
            slots,
            ends,
            negatives,
        };
        (sorted, curve, sums)
    }

    /// The same order with item `i`'s slot replaced by `map[slot]` (the
    /// slots were item numbers: now their resampling blocks).
    pub fn with_slots(&self, map: &[u32]) -> SortedLabels {
        SortedLabels {
            slots: self
                .slots
                .iter()
                .map(|&s| map[(s & !POSITIVE_BIT) as usize] | (s & POSITIVE_BIT))
                .collect(),
            ends: self.ends.clone(),
            negatives: self.negatives.clone(),
        }
    }

    /// Average precision and ROC AUC of [`LANES`] weightings at once:
    /// item weights `weight[slot][lane]` (whole numbers: block counts;
    /// 16 bits keep a table of 1,000 blocks in the first-level cache).
    /// One pass over the items whatever the number of lanes; the counts
    /// are summed exactly in integers.
    pub fn weighted(&self, weight: &[[u16; LANES]]) -> [(f64, f64); LANES] {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2 (checked just above).
            return unsafe { self.weighted_avx2(weight) };
        }
        self.weighted_any(weight)
    }

    /// [`SortedLabels::weighted`] compiled for AVX2 (the same code and the
    /// same integer sums; about twice as fast as the baseline's SSE2).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn weighted_avx2(&self, weight: &[[u16; LANES]]) -> [(f64, f64); LANES] {
        self.weighted_any(weight)
    }

    /// The body of [`SortedLabels::weighted`], inlined into each variant.
    /// Only the runs with positives take a step: the trapezoid is summed
    /// exactly in integers as `2 TP FP - sum_r dtp_r (2 fp_r - dfp_r)`
    /// over those runs (`dtp_r`, `dfp_r` the run's weights, `fp_r` the
    /// negatives up to and including it: each positive-negative pair
    /// ranked in order counts 2, a tied pair 1), so a run of negatives
    /// only adds its weights. Whole-number sums below 2^53 are what the
    /// floating-point trapezoid of [`RankSums`] gives exactly, so both
    /// numbers are bit for bit [`RankSums`]' (while a replicate's weights
    /// total below 2^26; beyond that the integer sum is the exact one).
    /// The average precision steps as [`fold_step`] does, lane by lane in
    /// run order.
    #[inline(always)]
    fn weighted_any(&self, weight: &[[u16; LANES]]) -> [(f64, f64); LANES] {
        let (mut tp, mut fp) = ([0u32; LANES], [0u32; LANES]);
        let mut ap = [0.0f64; LANES];
        let mut ties = [0u64; LANES];
        let mut start = 0usize;
        for (&end, &mid) in self.ends.iter().zip(&self.negatives) {
            let (mid, end) = (mid as usize, end as usize);
            if mid == start {
                add_weights(&mut fp, &self.slots[mid..end], weight);
                start = end;
                continue;
            }
            let (mut dtp, mut dfp) = ([0u32; LANES], [0u32; LANES]);
            add_weights(&mut dtp, &self.slots[start..mid], weight);
            add_weights(&mut dfp, &self.slots[mid..end], weight);
            for l in 0..LANES {
                tp[l] = tp[l].wrapping_add(dtp[l]);
                fp[l] = fp[l].wrapping_add(dfp[l]);
                let (t, f) = (f64::from(tp[l]), f64::from(fp[l]));
                let predicted = t + f;
                let denominator = if predicted > 0.0 { predicted } else { 1.0 };
                ap[l] += f64::from(dtp[l]) * (t / denominator);
                let twice = 2 * u64::from(fp[l]) - u64::from(dfp[l]);
                ties[l] = ties[l].wrapping_add(u64::from(dtp[l]) * twice);
            }
            start = end;
        }
        std::array::from_fn(|l| {
            let area = 2 * u64::from(tp[l]) * u64::from(fp[l]) - ties[l];
            let s = RankSums {
                ap: ap[l],
                area: area as f64,
                tp: f64::from(tp[l]),
                fp: f64::from(fp[l]),
            };
            (s.average_precision(), s.roc_auc())
        })
    }

    /// The unweighted sums (as [`SortedLabels::with_curve`]'s) of each subgroup
    /// level's items: `level[i]` is item `i`'s level (below `levels`; the
    /// slots must be item numbers). One pass over this order: each level
    /// steps at the runs where it has items, which are the distinct scores
    /// of its own items in the same order, so the sums are bit for bit
    /// those of sorting the level's items alone (and no per-level order is
    /// built).
    pub fn sums_by_level(&self, level: &[u32], levels: usize) -> Vec<RankSums> {
        let mut sums = vec![RankSums::default(); levels];
        let (mut tp, mut fp) = (vec![0u64; levels], vec![0u64; levels]);
        let mut touched: Vec<usize> = Vec::new();
        let mut seen = vec![false; levels];
        // Each item's level in this order first: the items are read at
        // random, and a plain gather lets the processor overlap the reads
        // (several times faster than reading them inside the counting).
        let in_order: Vec<u32> = self
            .slots
            .iter()
            .map(|&s| level[(s & !POSITIVE_BIT) as usize])
            .collect();
        let mut start = 0usize;
        for (&end, &mid) in self.ends.iter().zip(&self.negatives) {
            let (mid, end) = (mid as usize, end as usize);
            for (j, &l) in in_order[start..end].iter().enumerate() {
                let l = l as usize;
                if start + j < mid {
                    tp[l] += 1;
                } else {
                    fp[l] += 1;
                }
                if !seen[l] {
                    seen[l] = true;
                    touched.push(l);
                }
            }
            for &l in &touched {
                sums[l].step(tp[l] as f64, fp[l] as f64);
                seen[l] = false;
            }
            touched.clear();
            start = end;
        }
        sums
    }
}

/// Which of a curve's `len` points a table keeps so that at most `cap`
/// remain (`cap` 0: every point), in order: every point while there are
/// at most `cap`; otherwise both end points, then the points for which
/// `essential(i)` holds (the ones scikit-learn's `drop_intermediate`
/// keeps), then points evenly spaced in rank among the others while the
/// cap allows. When the end points and the essential points alone exceed
/// the cap, `cap` of them evenly spaced in rank (both ends included).
/// Deterministic: the same curve and cap give the same points.
pub fn thin(len: usize, cap: usize, essential: impl Fn(usize) -> bool) -> Vec<usize> {
    if cap == 0 || len <= cap {
        return (0..len).collect();
    }
    let cap = cap.max(2);
    let kept: Vec<usize> = (0..len)
        .filter(|&i| i == 0 || i + 1 == len || essential(i))
        .collect();
    if kept.len() >= cap {
        return spaced(kept.len(), cap).map(|i| kept[i]).collect();
    }
    // The others' ranks `(2 i + 1) q / (2 budget)`, found in one more
    // pass instead of a list of every other point.
    let budget = cap - kept.len();
    let q = len - kept.len();
    let mut out = Vec::with_capacity(cap);
    let (mut next, mut rank, mut k) = (0usize, 0usize, 0usize);
    for i in 0..len {
        if k < kept.len() && kept[k] == i {
            out.push(i);
            k += 1;
            continue;
        }
        while next < budget && (2 * next + 1) * q / (2 * budget) == rank {
            out.push(i);
            next += 1;
        }
        rank += 1;
    }
    out
}

/// [`thin`] where every point is essential, without listing them.
fn thin_all(len: usize, cap: usize) -> Vec<usize> {
    if cap == 0 || len <= cap {
        return (0..len).collect();
    }
    spaced(len, cap.max(2)).collect()
}

/// `cap` (at least 2) of `m` ranks evenly spaced, both ends included.
fn spaced(m: usize, cap: usize) -> impl Iterator<Item = usize> {
    (0..cap).map(move |i| (i * (m - 1) + (cap - 1) / 2) / (cap - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The references [`SortedLabels::with_curve`] is checked against,
    /// each computed by itself from an order of one run per score.
    impl SortedLabels {
        /// The unweighted curve (each item counted once), with the
        /// distinct `scores` descending as its thresholds.
        fn curve(&self, scores: &[f64]) -> RankCurve {
            let mut thresholds = scores.to_vec();
            thresholds.sort_unstable_by(|a, b| b.total_cmp(a));
            thresholds.dedup();
            let mut out = RankCurve {
                thresholds,
                tps: Vec::with_capacity(self.ends.len()),
                fps: Vec::with_capacity(self.ends.len()),
            };
            let (mut tp, mut start) = (0usize, 0usize);
            for &end in &self.ends {
                let run = &self.slots[start..end as usize];
                tp += run.iter().filter(|&&s| s & POSITIVE_BIT != 0).count();
                start = end as usize;
                out.tps.push(tp as f64);
                out.fps.push((start - tp) as f64);
            }
            out
        }

        /// The unweighted sums, from the runs' ends and negatives (so
        /// also of a compacted order).
        fn sums(&self) -> RankSums {
            let mut sums = RankSums::default();
            let (mut tp, mut start) = (0usize, 0usize);
            for (&end, &mid) in self.ends.iter().zip(&self.negatives) {
                tp += mid as usize - start;
                start = end as usize;
                sums.step(tp as f64, (start - tp) as f64);
            }
            sums
        }

        /// The same order with consecutive runs without positives merged
        /// (`compact` of [`SortedLabels::with_curve`]).
        fn compact(self) -> SortedLabels {
            let (mut ends, mut negatives) = (Vec::new(), Vec::new());
            let (mut start, mut last_negative_only) = (0u32, false);
            for (&end, &mid) in self.ends.iter().zip(&self.negatives) {
                let negative_only = mid == start;
                if negative_only && last_negative_only {
                    *ends.last_mut().expect("a run before") = end;
                } else {
                    ends.push(end);
                    negatives.push(mid);
                }
                last_negative_only = negative_only;
                start = end;
            }
            SortedLabels {
                slots: self.slots,
                ends,
                negatives,
            }
        }
    }

    /// The previous body of [`SortedLabels::weighted`] (every run steps
    /// [`fold_step`] in floating point): the reference the integer
    /// trapezoid must equal bit for bit.
    fn weighted_reference(sl: &SortedLabels, weight: &[[u16; LANES]]) -> [(f64, f64); LANES] {
        let (mut tp, mut fp) = ([0u32; LANES], [0u32; LANES]);
        let (mut ap, mut area) = ([0.0f64; LANES], [0.0f64; LANES]);
        let (mut ptp, mut pfp) = ([0.0f64; LANES], [0.0f64; LANES]);
        let mut start = 0usize;
        for (&end, &mid) in sl.ends.iter().zip(&sl.negatives) {
            let (mid, end) = (mid as usize, end as usize);
            add_weights(&mut fp, &sl.slots[mid..end], weight);
            if mid > start {
                add_weights(&mut tp, &sl.slots[start..mid], weight);
                for l in 0..LANES {
                    let (t, f) = (f64::from(tp[l]), f64::from(fp[l]));
                    fold_step(&mut ap[l], &mut area[l], (ptp[l], pfp[l]), (t, f));
                    (ptp[l], pfp[l]) = (t, f);
                }
            } else {
                for l in 0..LANES {
                    let f = f64::from(fp[l]);
                    area[l] += (f - pfp[l]) * (ptp[l] + ptp[l]);
                    pfp[l] = f;
                }
            }
            start = end;
        }
        std::array::from_fn(|l| {
            let s = RankSums {
                ap: ap[l],
                area: area[l],
                tp: ptp[l],
                fp: pfp[l],
            };
            (s.average_precision(), s.roc_auc())
        })
    }

    /// The integer trapezoid gives the floating-point fold's numbers bit
    /// for bit: many ties, runs of negatives merged ([`SortedLabels::compact`])
    /// or not, weights of 0 (lanes where a class has no positive or no
    /// negative) included.
    #[test]
    fn weighted_equals_the_floating_point_fold() {
        let mut next = draws(23u64);
        for (n, distinct, blocks, wmax) in [
            (3000, 40, 100, 4),
            (5000, 5000, 300, 3),
            (2000, 3, 50, 2),
            (40, 10, 40, 2),
        ] {
            let s: Vec<f64> = (0..n).map(|_| next(distinct) as f64).collect();
            let y: Vec<bool> = (0..n).map(|_| next(5) == 0).collect();
            let slots: Vec<u32> = (0..n).map(|_| next(blocks) as u32).collect();
            let w: Vec<[u16; LANES]> = (0..blocks)
                .map(|_| std::array::from_fn(|_| next(wmax) as u16))
                .collect();
            let sorted = SortedLabels::new(&s, &y, &slots);
            let want = weighted_reference(&sorted, &w);
            for got in [sorted.weighted(&w), sorted.clone().compact().weighted(&w)] {
                for l in 0..LANES {
                    assert_eq!(got[l].0.to_bits(), want[l].0.to_bits(), "{n} {l}");
                    let (a, b) = (got[l].1, want[l].1);
                    assert!(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()));
                }
            }
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12
    }

    /// fixtures/classify README 8, class cat: thresholds 0.8, 0.6, 0.4,
    /// 0.2, 0.1 with (tps, fps) (1,0), (2,0), (3,1), (3,2), (3,3).
    #[test]
    fn worked_example_cat() {
        let s = [0.8, 0.4, 0.2, 0.4, 0.1, 0.6];
        let y = [true, true, false, false, false, true];
        let c = RankCurve::new(&s, &y);
        assert_eq!(c.thresholds, [0.8, 0.6, 0.4, 0.2, 0.1]);
        assert_eq!(c.tps, [1.0, 2.0, 3.0, 3.0, 3.0]);
        assert_eq!(c.fps, [0.0, 0.0, 1.0, 2.0, 3.0]);
        assert!(close(c.average_precision(), 11.0 / 12.0));
        assert!(close(c.roc_auc(), 8.5 / 9.0));
        let roc: Vec<f64> = c.roc_points().iter().map(|p| p.0).collect();
        assert_eq!(roc, [f64::INFINITY, 0.8, 0.6, 0.4, 0.1]);
        let pr = c.pr_points();
        assert_eq!(pr.len(), 6);
        assert_eq!((pr[0].0, pr[0].1, pr[0].2), (0.1, 0.5, 1.0));
        assert!(pr[5].0.is_nan() && pr[5].1 == 1.0 && pr[5].2 == 0.0);
    }

    /// Class bird: one positive at 0.4 tied with a negative: AP 1/2, AUC
    /// (4 + 1/2)/5.
    #[test]
    fn worked_example_bird_with_a_tie() {
        let s = [0.1, 0.1, 0.1, 0.3, 0.4, 0.4];
        let y = [false, false, false, false, true, false];
        let c = RankCurve::new(&s, &y);
        assert!(close(c.average_precision(), 0.5));
        assert!(close(c.roc_auc(), 0.9));
    }

    #[test]
    fn one_class_present_and_averages() {
        let c = RankCurve::new(&[0.2, 0.7], &[false, false]);
        assert_eq!(c.average_precision(), 0.0);
        assert!(c.roc_auc().is_nan());
        assert!(c.pr_points().is_empty() && c.roc_points().is_empty());
        let c = RankCurve::new(&[0.2, 0.7], &[true, true]);
        assert_eq!(c.average_precision(), 1.0);
        let (m, w) = macro_weighted(&[0.5, f64::NAN, 1.0], &[2.0, 0.0, 2.0]);
        assert!(m.is_nan() && close(w, 0.75));
        assert_eq!(key(-0.0), key(0.0));
        assert!(key(-1.0) < key(0.0) && key(0.0) < key(1e-300) && key(1.0) < key(2.0));
        assert_eq!(unkey(key(-2.5)), -2.5);
    }

    /// Unit weights reproduce the unweighted metrics; a weight of 2
    /// equals the item written twice.
    #[test]
    fn weighted_counts_match_duplicated_items() {
        let s = [0.9, 0.3, 0.3, 0.5, 0.1, 0.5, 0.7];
        let y = [true, false, true, false, false, true, false];
        let slots: Vec<u32> = (0..7).collect();
        let sorted = SortedLabels::new(&s, &y, &slots);
        let c = RankCurve::new(&s, &y);
        let mut w = [[1u16; LANES]; 7];
        w[1][3] = 2;
        w[4][3] = 0;
        let out = sorted.weighted(&w);
        let (ap, auc) = out[0];
        assert!(close(ap, c.average_precision()) && close(auc, c.roc_auc()));
        let (ap, auc) = out[3];
        let s2 = [0.9, 0.3, 0.3, 0.3, 0.5, 0.5, 0.7];
        let y2 = [true, false, false, true, false, true, false];
        let c2 = RankCurve::new(&s2, &y2);
        assert!(close(ap, c2.average_precision()) && close(auc, c2.roc_auc()));
    }

    /// Seeded whole numbers below `m` (a linear congruential generator).
    fn draws(mut state: u64) -> impl FnMut(u64) -> u64 {
        move |m| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        }
    }

    /// The processor's variant of `weighted` (AVX2 where there is one)
    /// gives the portable one's numbers bit for bit, on random scores
    /// with many ties and random block counts.
    #[test]
    fn weighted_variants_agree() {
        let mut next = draws(11u64);
        let n = 3000;
        let s: Vec<f64> = (0..n).map(|_| next(40) as f64 / 40.0).collect();
        let y: Vec<bool> = (0..n).map(|_| next(3) == 0).collect();
        let slots: Vec<u32> = (0..n).map(|_| next(100) as u32).collect();
        let sorted = SortedLabels::new(&s, &y, &slots);
        let w: Vec<[u16; LANES]> = (0..100)
            .map(|_| std::array::from_fn(|_| next(4) as u16))
            .collect();
        let (a, b) = (sorted.weighted(&w), sorted.weighted_any(&w));
        for l in 0..LANES {
            assert_eq!(a[l].0.to_bits(), b[l].0.to_bits());
            assert_eq!(a[l].1.to_bits(), b[l].1.to_bits());
        }
        assert!(a.iter().all(|x| x.0 > 0.0 && x.1 > 0.0));
    }

    /// Counting and sorting give the same runs (distinct scores, in
    /// descending order, with their ends) and the same items in each run,
    /// on scores with few distinct values, negative zero and signs
    /// included; counting gives up on many distinct values.
    #[test]
    fn counting_orders_as_sorting_does() {
        let mut next = draws(5u64);
        for distinct in [1u64, 2, 7, 300] {
            let s: Vec<f64> = (0..5000)
                .map(|_| match next(distinct) {
                    0 => -0.0,
                    v => (v as f64 - distinct as f64 / 2.0) / 8.0,
                })
                .collect();
            let tag = |i: usize| i as u32 | if i % 3 == 0 { POSITIVE_BIT } else { 0 };
            let (mut a, ra) = by_counting(&s, &tag).expect("few distinct scores");
            let (mut b, rb) = by_sorting(&s, &tag);
            assert_eq!(ra, rb, "{distinct}");
            let mut start = 0;
            for &(_, end) in &ra {
                a[start..end as usize].sort_unstable();
                b[start..end as usize].sort_unstable();
                start = end as usize;
            }
            assert_eq!(a, b, "{distinct}");
        }
        let many: Vec<f64> = (0..5000).map(|i| i as f64).collect();
        assert!(by_counting(&many, &|i| i as u32).is_none());
    }

    /// Random scores with `distinct` values, about a third positive.
    fn random_class(seed: u64, n: usize, distinct: u64) -> (Vec<f64>, Vec<bool>) {
        let mut next = draws(seed);
        let s = (0..n)
            .map(|_| next(distinct) as f64 / distinct as f64)
            .collect();
        let y = (0..n).map(|_| next(3) == 0).collect();
        (s, y)
    }

    /// Merging the runs without positives changes no sum, weighted or
    /// not, bit for bit; it keeps fewer runs on continuous scores.
    #[test]
    fn compact_changes_no_sum() {
        for distinct in [3u64, 50, 1_000_000] {
            let (s, y) = random_class(distinct, 4000, distinct);
            let slots: Vec<u32> = (0..4000).collect();
            let full = SortedLabels::new(&s, &y, &slots);
            let curve = full.curve(&s);
            let compact = full.clone().compact();
            let sums = compact.sums();
            assert_eq!(
                sums.average_precision().to_bits(),
                curve.average_precision().to_bits()
            );
            assert_eq!(sums.roc_auc().to_bits(), curve.roc_auc().to_bits());
            assert_eq!(sums.positives(), curve.positives());
            let mut next = draws(distinct + 1);
            let w: Vec<[u16; LANES]> = (0..4000)
                .map(|_| std::array::from_fn(|_| next(3) as u16))
                .collect();
            let (a, b) = (full.weighted(&w), compact.weighted(&w));
            for l in 0..LANES {
                assert_eq!(a[l].0.to_bits(), b[l].0.to_bits(), "{distinct}");
                assert_eq!(a[l].1.to_bits(), b[l].1.to_bits(), "{distinct}");
            }
            if distinct == 1_000_000 {
                assert!(
                    compact.ends.len() * 10 < full.ends.len() * 6,
                    "{}",
                    compact.ends.len()
                );
            }
        }
    }

    /// The sums of each level from the order of all items are what
    /// sorting the level's items alone gives, bit for bit; also from a
    /// compacted order.
    #[test]
    fn sums_by_level_are_each_level_sorted_alone() {
        let (s, y) = random_class(9, 3000, 40);
        let mut next = draws(10);
        let level: Vec<u32> = (0..3000).map(|_| next(3) as u32).collect();
        let items: Vec<u32> = (0..3000).collect();
        let all = SortedLabels::new(&s, &y, &items);
        let by_level = all.sums_by_level(&level, 3);
        let compact = all.clone().compact().sums_by_level(&level, 3);
        for l in 0..3u32 {
            let ix: Vec<usize> = (0..3000).filter(|&i| level[i] == l).collect();
            let (ls, ly): (Vec<f64>, Vec<bool>) = ix.iter().map(|&i| (s[i], y[i])).unzip();
            let alone = RankCurve::new(&ls, &ly);
            for sums in [&by_level[l as usize], &compact[l as usize]] {
                assert_eq!(
                    sums.average_precision().to_bits(),
                    alone.average_precision().to_bits()
                );
                assert_eq!(sums.roc_auc().to_bits(), alone.roc_auc().to_bits());
                assert_eq!(sums.positives(), alone.positives());
            }
        }
    }

    /// Thinning: every point up to the cap; above it never more than the
    /// cap, both end points kept, the essential points first, in order,
    /// the same for the same input; the curve tables' two rules.
    #[test]
    fn thinning_keeps_ends_and_the_cap() {
        assert_eq!(thin(5, 5, |_| false), vec![0, 1, 2, 3, 4]);
        assert_eq!(thin(5, 0, |_| false), vec![0, 1, 2, 3, 4]);
        for (len, cap, every) in [(1000, 10, 7), (1000, 100, 50), (10, 3, 1), (7, 2, 1)] {
            let kept = thin(len, cap, |i| i % every == 0);
            assert!(kept.len() <= cap && kept.len() >= 2, "{len} {cap}");
            assert_eq!((kept[0], *kept.last().unwrap()), (0, len - 1));
            assert!(kept.windows(2).all(|w| w[0] < w[1]));
            assert_eq!(kept, thin(len, cap, |i| i % every == 0));
            let essential = (0..len).filter(|i| i % every == 0).count() + 1;
            if essential <= cap {
                assert!((0..len)
                    .filter(|i| i % every == 0)
                    .all(|i| kept.contains(&i)));
                assert_eq!(kept.len(), cap);
            }
        }
        // A continuous class: 20,000 distinct scores.
        let (s, y) = random_class(3, 20_000, 1 << 40);
        let c = RankCurve::new(&s, &y);
        let (full_pr, full_roc) = (c.pr_points(), c.roc_points());
        let (pr, n_pr) = c.pr_points_capped(1000);
        let (roc, n_roc) = c.roc_points_capped(1000);
        assert_eq!((n_pr, n_roc), (full_pr.len(), full_roc.len()));
        assert!(n_pr > 1000 && n_roc > 1000);
        assert_eq!((pr.len(), roc.len()), (1000, 1000));
        for (thinned, full) in [(&pr, &full_pr), (&roc, &full_roc)] {
            let same = |a: &(f64, f64, f64), b: &(f64, f64, f64)| {
                a.0.to_bits() == b.0.to_bits() && a.1 == b.1 && a.2 == b.2
            };
            assert!(same(&thinned[0], &full[0]));
            assert!(same(thinned.last().unwrap(), full.last().unwrap()));
            assert!(thinned.iter().all(|p| full.iter().any(|q| same(p, q))));
        }
        assert_eq!(c.pr_points_capped(0).0.len(), full_pr.len());
        assert_eq!(c.roc_points_capped(n_roc).0.len(), n_roc);
    }

    /// One pass gives what the curve counted again from the order, the
    /// order compacted afterwards and the curve's folds give, bit for bit,
    /// counted or sorted.
    #[test]
    fn with_curve_is_new_curve_and_compact() {
        for distinct in [3u64, 50, 1_000_000] {
            let (s, y) = random_class(distinct + 7, 4000, distinct);
            let slots: Vec<u32> = (0..4000).collect();
            let full = SortedLabels::new(&s, &y, &slots);
            let (want_curve, want) = (full.curve(&s), full.clone().compact());
            for compact in [false, true] {
                let (got, curve, sums) = SortedLabels::with_curve(&s, &y, &slots, compact);
                assert_eq!(curve, want_curve);
                let w = if compact { &want } else { &full };
                assert_eq!((&got.slots, &got.ends), (&w.slots, &w.ends));
                assert_eq!(got.negatives, w.negatives);
                let ap = want_curve.average_precision().to_bits();
                assert_eq!(sums.average_precision().to_bits(), ap);
                assert_eq!(sums.roc_auc().to_bits(), want_curve.roc_auc().to_bits());
            }
        }
    }

    /// The partition [`thin`] made before (every other point listed).
    fn thin_reference(len: usize, cap: usize, essential: impl Fn(usize) -> bool) -> Vec<usize> {
        if cap == 0 || len <= cap {
            return (0..len).collect();
        }
        let cap = cap.max(2);
        let (kept, others): (Vec<usize>, Vec<usize>) =
            (0..len).partition(|&i| i == 0 || i + 1 == len || essential(i));
        if kept.len() >= cap {
            let m = kept.len();
            return (0..cap)
                .map(|i| kept[(i * (m - 1) + (cap - 1) / 2) / (cap - 1)])
                .collect();
        }
        let budget = cap - kept.len();
        let q = others.len();
        let mut out = kept;
        out.extend((0..budget).map(|i| others[(2 * i + 1) * q / (2 * budget)]));
        out.sort_unstable();
        out
    }

    /// [`thin`] and [`thin_all`] pick the points the partition picked.
    #[test]
    fn thinning_picks_as_the_partition_did() {
        for len in [0usize, 1, 2, 3, 7, 10, 99, 1000, 4321] {
            for cap in [0usize, 1, 2, 3, 10, 100, 5000] {
                for every in [1usize, 2, 7, 50, 100_000] {
                    let e = |i: usize| i % every == 3;
                    assert_eq!(thin(len, cap, e), thin_reference(len, cap, e));
                }
                assert_eq!(thin_all(len, cap), thin_reference(len, cap, |_| true));
            }
        }
    }

    /// Keys order as the scores do, signs and tiny values included.
    #[test]
    fn sort_orders_by_descending_score() {
        let mut state = 7u64;
        let mut v: Vec<(u64, u32)> = (0..20_000u32)
            .map(|i| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let x = ((state >> 33) % 2001) as f64 / 1000.0 - 1.0;
                (key(if i % 7 == 0 { x * 1e-300 } else { x }), i)
            })
            .collect();
        sort_descending(&mut v);
        assert!(v.windows(2).all(|w| unkey(w[0].0) >= unkey(w[1].0)));
    }
}
