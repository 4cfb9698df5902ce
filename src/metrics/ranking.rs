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
//! thresholds. [`SortedLabels`] keeps, for the bootstrap, each item's
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
        SortedLabels::new(scores, positive, &slots).curve()
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
        let (p, n) = (self.positives(), self.negatives());
        if p == 0.0 || n == 0.0 {
            return Vec::new();
        }
        let mut out: Vec<(f64, f64, f64)> = (0..self.thresholds.len())
            .rev()
            .map(|j| {
                let ps = self.tps[j] + self.fps[j];
                let precision = if ps == 0.0 { 0.0 } else { self.tps[j] / ps };
                (self.thresholds[j], precision, self.tps[j] / p)
            })
            .collect();
        out.push((f64::NAN, 1.0, 0.0));
        out
    }

    /// `roc_curve(..., drop_intermediate=True)` as rows `(threshold, fpr,
    /// tpr)`: `(inf, 0, 0)`, then the kept thresholds descending (the first,
    /// the last, and every one where the second difference of the false or
    /// true positives is not 0). Empty without positives or negatives.
    pub fn roc_points(&self) -> Vec<(f64, f64, f64)> {
        let (p, n) = (self.positives(), self.negatives());
        if p == 0.0 || n == 0.0 {
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
        std::iter::once((f64::INFINITY, 0.0, 0.0))
            .chain(
                (0..m)
                    .filter(|&j| keep(j))
                    .map(|j| (self.thresholds[j], self.fps[j] / n, self.tps[j] / p)),
            )
            .collect()
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
        if tp != self.tp {
            self.ap += (tp - self.tp) * (tp / (tp + fp));
        }
        self.area += (fp - self.fp) * (tp + self.tp);
        self.tp = tp;
        self.fp = fp;
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
    let mut runs: Vec<(u64, u32)> = Vec::new();
    for (i, &(k, _)) in order.iter().enumerate() {
        match runs.last_mut() {
            Some(last) if last.0 == k => last.1 = i as u32 + 1,
            _ => runs.push((k, i as u32 + 1)),
        }
    }
    (order.into_iter().map(|(_, t)| t).collect(), runs)
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
    let mut index: std::collections::HashMap<u64, u32, crate::table::FxBuild> =
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
    /// The distinct scores, descending (one per end).
    thresholds: Vec<f64>,
}

const POSITIVE_BIT: u32 = 1 << 31;

/// Replicates [`SortedLabels::weighted`] computes in one pass.
pub const LANES: usize = 16;

impl SortedLabels {
    /// `slot[i]` is item `i`'s weight slot (below 2^31).
    pub fn new(scores: &[f64], positive: &[bool], slot: &[u32]) -> SortedLabels {
        let tag = |i: usize| slot[i] | if positive[i] { POSITIVE_BIT } else { 0 };
        let (mut slots, runs) =
            by_counting(scores, &tag).unwrap_or_else(|| by_sorting(scores, &tag));
        let (mut ends, mut negatives, mut thresholds) = (Vec::new(), Vec::new(), Vec::new());
        let mut start = 0;
        for (k, end) in runs {
            let end = end as usize;
            ends.push(end as u32);
            negatives.push((start + positives_first(&mut slots[start..end])) as u32);
            thresholds.push(unkey(k));
            start = end;
        }
        SortedLabels {
            slots,
            ends,
            negatives,
            thresholds,
        }
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
            thresholds: self.thresholds.clone(),
        }
    }

    /// The unweighted curve (each item counted once).
    pub fn curve(&self) -> RankCurve {
        let mut out = RankCurve {
            thresholds: self.thresholds.clone(),
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
    #[inline(always)]
    fn weighted_any(&self, weight: &[[u16; LANES]]) -> [(f64, f64); LANES] {
        let (mut tp, mut fp) = ([0u32; LANES], [0u32; LANES]);
        let mut sums = [RankSums::default(); LANES];
        let mut start = 0usize;
        for (&end, &mid) in self.ends.iter().zip(&self.negatives) {
            add_weights(&mut tp, &self.slots[start..mid as usize], weight);
            add_weights(&mut fp, &self.slots[mid as usize..end as usize], weight);
            start = end as usize;
            for (l, sum) in sums.iter_mut().enumerate() {
                sum.step(f64::from(tp[l]), f64::from(fp[l]));
            }
        }
        sums.map(|s| (s.average_precision(), s.roc_auc()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
