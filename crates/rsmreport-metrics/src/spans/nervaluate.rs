//! Stage 4 (metrics): the nervaluate 1.2.1 block (`spec/spans.md` 4.2),
//! reproduced with its quirks, not corrected: `Evaluator(true, pred, tags,
//! loader="dict", min_overlap_percentage=p).evaluate()`. Each prediction,
//! in input order, scans the true entities in input order (greedy and
//! order-dependent); the overlap percentage is taken of the true entity
//! only (asymmetric); the per-type rows re-run every scheme on one type's
//! entities, so a wrong type is INC overall and SPU plus MIS per type.
//! Entities carry inclusive ends, as nervaluate reads them. Pure: no I/O.

/// One entity as nervaluate reads it: inclusive end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entity {
    pub start: u32,
    pub end: u32,
    pub label: u32,
}

/// The four schemes, in the block's order.
pub const SCHEMES: [&str; 4] = ["ent_type", "exact", "partial", "strict"];

/// One `EvaluationResult`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Result {
    pub correct: u64,
    pub incorrect: u64,
    pub partial: u64,
    pub missed: u64,
    pub spurious: u64,
    pub actual: u64,
    pub possible: u64,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

impl Result {
    fn add(&mut self, o: &Result) {
        self.correct += o.correct;
        self.incorrect += o.incorrect;
        self.partial += o.partial;
        self.missed += o.missed;
        self.spurious += o.spurious;
    }

    /// `EvaluationResult.compute_metrics(partial_or_type)`.
    fn compute(&mut self, partial_or_type: bool) {
        self.actual = self.correct + self.incorrect + self.partial + self.spurious;
        self.possible = self.correct + self.incorrect + self.partial + self.missed;
        let hits = if partial_or_type {
            self.correct as f64 + 0.5 * self.partial as f64
        } else {
            self.correct as f64
        };
        let p = if self.actual > 0 {
            hits / self.actual as f64
        } else {
            0.0
        };
        let r = if self.possible > 0 {
            hits / self.possible as f64
        } else {
            0.0
        };
        self.precision = p;
        self.recall = r;
        self.f1 = if p + r > 0.0 {
            2.0 * (p * r) / (p + r)
        } else {
            0.0
        };
    }
}

fn overlaps_enough(pred: &Entity, truth: &Entity, min_pct: f64) -> bool {
    if pred.start > truth.end || pred.end < truth.start {
        return 0.0 >= min_pct;
    }
    let span = pred.end.min(truth.end) as i64 - pred.start.max(truth.start) as i64 + 1;
    let true_span = truth.end as i64 - truth.start as i64 + 1;
    (span as f64 / true_span as f64) * 100.0 >= min_pct
}

fn distance(pred: &Entity, truth: &Entity) -> i64 {
    (pred.start as i64 - truth.start as i64).abs() + (pred.end as i64 - truth.end as i64).abs()
}

fn same_bounds(a: &Entity, b: &Entity) -> bool {
    a.start == b.start && a.end == b.end
}

/// One scheme on one document (the strategies' `evaluate`), counts only.
/// `matched` is scratch space (cleared here).
fn evaluate(
    scheme: usize,
    truth: &[Entity],
    pred: &[Entity],
    min_pct: f64,
    matched: &mut Vec<bool>,
) -> Result {
    let mut r = Result::default();
    matched.clear();
    matched.resize(truth.len(), false);
    for p in pred {
        // (index of the match, index of the fallback)
        let mut hit: Option<usize> = None;
        let mut fallback: Option<usize> = None;
        let mut best: Option<i64> = None;
        for (ti, t) in truth.iter().enumerate() {
            if matched[ti] {
                continue;
            }
            match scheme {
                // ent_type: the closest same-type overlap, else the first
                // other-type overlap.
                0 => {
                    if overlaps_enough(p, t, min_pct) {
                        let d = distance(p, t);
                        if p.label == t.label {
                            if best.is_none_or(|b| d < b) {
                                hit = Some(ti);
                                best = Some(d);
                            }
                        } else if fallback.is_none() {
                            fallback = Some(ti);
                        }
                    }
                }
                // exact: same bounds whatever the type.
                1 => {
                    if same_bounds(p, t) {
                        hit = Some(ti);
                        break;
                    }
                    if fallback.is_none() && overlaps_enough(p, t, min_pct) {
                        fallback = Some(ti);
                    }
                }
                // partial: overlap first, then same bounds.
                2 => {
                    if overlaps_enough(p, t, min_pct) {
                        if same_bounds(p, t) {
                            hit = Some(ti);
                            break;
                        }
                        if fallback.is_none() {
                            fallback = Some(ti);
                        }
                    }
                }
                // strict: same bounds and type.
                _ => {
                    if p.label == t.label && same_bounds(p, t) {
                        hit = Some(ti);
                        break;
                    }
                    if fallback.is_none() && overlaps_enough(p, t, min_pct) {
                        fallback = Some(ti);
                    }
                }
            }
        }
        if let Some(ti) = hit {
            r.correct += 1;
            matched[ti] = true;
        } else if let Some(ti) = fallback {
            if scheme == 2 {
                r.partial += 1;
            } else {
                r.incorrect += 1;
            }
            matched[ti] = true;
        } else {
            r.spurious += 1;
        }
    }
    r.missed = matched.iter().filter(|m| !**m).count() as u64;
    r
}

/// The block: overall results per scheme and, per label present in either
/// side (ascending code), results per scheme.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    pub overall: [Result; 4],
    pub by_label: Vec<(u32, [Result; 4])>,
}

/// nervaluate on paired documents (true, predicted); `n_labels` bounds the
/// label codes. With no document, every count is 0.
pub fn block(docs: &[(Vec<Entity>, Vec<Entity>)], n_labels: usize, min_pct: f64) -> Block {
    let mut used = vec![false; n_labels];
    for (t, p) in docs {
        for e in t.iter().chain(p) {
            used[e.label as usize] = true;
        }
    }
    let labels: Vec<u32> = (0..n_labels as u32).filter(|&l| used[l as usize]).collect();
    let mut overall = [Result::default(); 4];
    let mut by_label = vec![[Result::default(); 4]; labels.len()];
    let mut tl = Vec::new();
    let mut pl = Vec::new();
    let mut matched = Vec::new();
    for (t, p) in docs {
        for (s, acc) in overall.iter_mut().enumerate() {
            acc.add(&evaluate(s, t, p, min_pct, &mut matched));
        }
        for (k, &label) in labels.iter().enumerate() {
            tl.clear();
            pl.clear();
            tl.extend(t.iter().filter(|e| e.label == label));
            pl.extend(p.iter().filter(|e| e.label == label));
            if tl.is_empty() && pl.is_empty() {
                continue;
            }
            for (s, acc) in by_label[k].iter_mut().enumerate() {
                acc.add(&evaluate(s, &tl, &pl, min_pct, &mut matched));
            }
        }
    }
    let finish = |r: &mut [Result; 4]| {
        for (s, x) in r.iter_mut().enumerate() {
            x.compute(s == 0 || s == 2);
        }
    };
    finish(&mut overall);
    by_label.iter_mut().for_each(finish);
    Block {
        overall,
        by_label: labels.into_iter().zip(by_label).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(start: u32, end: u32, label: u32) -> Entity {
        Entity { start, end, label }
    }

    /// nervaluate's README example (PER 0, ORG 1, LOC 2, DATE 3), its
    /// code's numbers: ent_type 5/0/0/0/0; exact and strict 2/3/0/0/0
    /// (F1 0.4000000000000001); partial 2/0/3/0/0, F1 0.7.
    #[test]
    fn readme_example() {
        let docs = vec![
            (vec![e(1, 2, 0), e(6, 7, 1)], vec![e(2, 3, 0), e(6, 7, 1)]),
            (
                vec![e(1, 1, 2), e(2, 3, 0), e(6, 6, 3)],
                vec![e(1, 2, 2), e(3, 3, 0), e(6, 6, 3)],
            ),
        ];
        let b = block(&docs, 4, 1.0);
        let counts = |r: &Result| [r.correct, r.incorrect, r.partial, r.missed, r.spurious];
        assert_eq!(counts(&b.overall[0]), [5, 0, 0, 0, 0]);
        assert_eq!(counts(&b.overall[1]), [2, 3, 0, 0, 0]);
        assert_eq!(counts(&b.overall[2]), [2, 0, 3, 0, 0]);
        assert_eq!(counts(&b.overall[3]), [2, 3, 0, 0, 0]);
        assert_eq!(b.overall[3].f1, 0.4000000000000001);
        assert_eq!(b.overall[2].f1, 0.7);
        assert_eq!(b.by_label.len(), 4);
    }

    /// A wrong type: INC overall (strict), SPU and MIS per type.
    #[test]
    fn wrong_type_is_incorrect_overall_and_spurious_per_type() {
        let docs = vec![(vec![e(0, 3, 0)], vec![e(0, 3, 1)])];
        let b = block(&docs, 2, 1.0);
        assert_eq!(b.overall[3].incorrect, 1);
        assert_eq!(b.overall[1].correct, 1);
        assert_eq!(b.by_label[0].1[3].missed, 1);
        assert_eq!(b.by_label[1].1[3].spurious, 1);
    }
}
