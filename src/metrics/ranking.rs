//! Stage 4 (metrics, pure): one-vs-rest ranking metrics of one class's
//! scores, as scikit-learn computes them (classify spec 2;
//! fixtures/classify README 6.3-6.4): the distinct thresholds with their
//! cumulative true and false positives (`_binary_clf_curve`), average
//! precision (the step-wise sum, no interpolation), ROC AUC (the
//! trapezoid, i.e. P(positive > negative) + P(tie)/2), and the points of
//! `precision_recall_curve` and `roc_curve(drop_intermediate=True)`.
//!
//! One sort per class: [`RankCurve::new`] sorts the positives' and the
//! negatives' scores apart and merges them; everything else is a pass over
//! the distinct thresholds. [`SortedLabels`] keeps, for the bootstrap, each
//! item's weight slot in score order, so a replicate re-counts without
//! sorting again.
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
        let mut pos: Vec<u64> = Vec::new();
        let mut neg: Vec<u64> = Vec::with_capacity(scores.len());
        for (&s, &p) in scores.iter().zip(positive) {
            if p {
                pos.push(key(s));
            } else {
                neg.push(key(s));
            }
        }
        pos.sort_unstable_by(|a, b| b.cmp(a));
        neg.sort_unstable_by(|a, b| b.cmp(a));
        let (mut i, mut j) = (0usize, 0usize);
        let mut out = RankCurve {
            thresholds: Vec::new(),
            tps: Vec::new(),
            fps: Vec::new(),
        };
        while i < pos.len() || j < neg.len() {
            let t = match (pos.get(i), neg.get(j)) {
                (Some(&a), Some(&b)) => a.max(b),
                (Some(&a), None) => a,
                (None, Some(&b)) => b,
                (None, None) => unreachable!(),
            };
            while pos.get(i) == Some(&t) {
                i += 1;
            }
            while neg.get(j) == Some(&t) {
                j += 1;
            }
            out.thresholds.push(unkey(t));
            out.tps.push(i as f64);
            out.fps.push(j as f64);
        }
        out
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

/// Average precision from cumulative counts at descending thresholds:
/// `sum_j (recall_j - recall_{j-1}) precision_j`, recall_0 = 0; 0 without
/// positives (scikit-learn sets recall to 1 everywhere then, and the only
/// step has precision 0).
pub fn average_precision(tps: &[f64], fps: &[f64]) -> f64 {
    let p = tps.last().copied().unwrap_or(0.0);
    if p <= 0.0 {
        return 0.0;
    }
    let mut sum = 0.0;
    let mut previous = 0.0;
    for (&tp, &fp) in tps.iter().zip(fps) {
        if tp != previous {
            sum += (tp - previous) * (tp / (tp + fp));
            previous = tp;
        }
    }
    (sum / p).max(0.0)
}

/// ROC AUC from cumulative counts at descending thresholds: the trapezoid
/// `sum_j (fps_j - fps_{j-1})(tps_j + tps_{j-1}) / (2 P N)`; NaN when P or
/// N is 0.
pub fn roc_auc(tps: &[f64], fps: &[f64]) -> f64 {
    let (p, n) = (
        tps.last().copied().unwrap_or(0.0),
        fps.last().copied().unwrap_or(0.0),
    );
    if p <= 0.0 || n <= 0.0 {
        return f64::NAN;
    }
    let (mut area, mut tp0, mut fp0) = (0.0, 0.0, 0.0);
    for (&tp, &fp) in tps.iter().zip(fps) {
        area += (fp - fp0) * (tp + tp0);
        tp0 = tp;
        fp0 = fp;
    }
    area / (2.0 * p * n)
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

/// One class's items in descending score order, for the bootstrap: the
/// weight slot of each item (its resampling block) with the truth in the
/// top bit, and where each distinct score ends.
#[derive(Clone, Debug)]
pub struct SortedLabels {
    slots: Vec<u32>,
    ends: Vec<u32>,
}

const POSITIVE_BIT: u32 = 1 << 31;

impl SortedLabels {
    /// `slot[i]` is item `i`'s weight slot (below 2^31).
    pub fn new(scores: &[f64], positive: &[bool], slot: &[u32]) -> SortedLabels {
        let mut order: Vec<(u64, u32)> = scores
            .iter()
            .zip(positive)
            .zip(slot)
            .map(|((&s, &p), &b)| (key(s), b | if p { POSITIVE_BIT } else { 0 }))
            .collect();
        order.sort_unstable_by_key(|a| std::cmp::Reverse(a.0));
        let mut ends = Vec::new();
        for i in 1..order.len() {
            if order[i].0 != order[i - 1].0 {
                ends.push(i as u32);
            }
        }
        if !order.is_empty() {
            ends.push(order.len() as u32);
        }
        SortedLabels {
            slots: order.into_iter().map(|(_, s)| s).collect(),
            ends,
        }
    }

    /// Average precision and ROC AUC with item weights `weight[slot]`.
    /// `tps`/`fps` are scratch buffers.
    pub fn weighted(&self, weight: &[f64], tps: &mut Vec<f64>, fps: &mut Vec<f64>) -> (f64, f64) {
        tps.clear();
        fps.clear();
        let (mut tp, mut fp, mut start) = (0.0, 0.0, 0usize);
        for &end in &self.ends {
            for &s in &self.slots[start..end as usize] {
                let w = weight[(s & !POSITIVE_BIT) as usize];
                if s & POSITIVE_BIT != 0 {
                    tp += w;
                } else {
                    fp += w;
                }
            }
            start = end as usize;
            tps.push(tp);
            fps.push(fp);
        }
        (average_precision(tps, fps), roc_auc(tps, fps))
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
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let c = RankCurve::new(&s, &y);
        let (ap, auc) = sorted.weighted(&[1.0; 7], &mut a, &mut b);
        assert!(close(ap, c.average_precision()) && close(auc, c.roc_auc()));
        let mut w = [1.0; 7];
        w[1] = 2.0;
        w[4] = 0.0;
        let (ap, auc) = sorted.weighted(&w, &mut a, &mut b);
        let s2 = [0.9, 0.3, 0.3, 0.3, 0.5, 0.5, 0.7];
        let y2 = [true, false, false, true, false, true, false];
        let c2 = RankCurve::new(&s2, &y2);
        assert!(close(ap, c2.average_precision()) && close(auc, c2.roc_auc()));
    }
}
