//! Stage 4 (metrics): seqeval 1.2.2's precision, recall and F1 from
//! per-type set counts (`spec/spans.md` 4.1): `zero_division = 0`, the
//! per-type rows and the `micro avg`, `macro avg` and `weighted avg` rows
//! of `precision_recall_fscore_support` (numpy's `(1 + beta2) * p * r /
//! denom` with a zero denominator set to 1); and its token-level numbers
//! (`accuracy_score`, `performance_measure`, spec 10: [`TokenCounts`]).
//! Pure: no I/O.

/// The set counts of one type: correct (tp), predicted, true (support).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub correct: u64,
    pub predicted: u64,
    pub support: u64,
}

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, o: Counts) {
        self.correct += o.correct;
        self.predicted += o.predicted;
        self.support += o.support;
    }
}

/// One row of seqeval's report.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prf {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    pub counts: Counts,
}

fn divide(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

/// seqeval's F-score with beta = 1: `2 * p * r / (p + r)`, 0 when `p + r`
/// is 0.
pub fn f_score(p: f64, r: f64) -> f64 {
    let denom = p + r;
    let denom = if denom == 0.0 { 1.0 } else { denom };
    2.0 * p * r / denom
}

/// The row of one type (or of summed counts: the micro average).
pub fn row(c: Counts) -> Prf {
    let precision = divide(c.correct, c.predicted);
    let recall = divide(c.correct, c.support);
    Prf {
        precision,
        recall,
        f1: f_score(precision, recall),
        counts: c,
    }
}

/// The three average rows (micro, macro, weighted) of the per-type rows:
/// macro is NaN without a type; weighted is 0 when no type has support
/// (seqeval's early return). Every average row carries the summed counts.
pub fn averages(rows: &[Prf]) -> [Prf; 3] {
    let mut total = Counts::default();
    for r in rows {
        total += r.counts;
    }
    let micro = row(total);
    let n = rows.len() as f64;
    let mean = |f: fn(&Prf) -> f64| rows.iter().map(f).sum::<f64>() / n;
    let macro_ = Prf {
        precision: mean(|r| r.precision),
        recall: mean(|r| r.recall),
        f1: mean(|r| r.f1),
        counts: total,
    };
    let weighted = if total.support == 0 {
        Prf {
            precision: 0.0,
            recall: 0.0,
            f1: 0.0,
            counts: total,
        }
    } else {
        let w = total.support as f64;
        let avg = |f: fn(&Prf) -> f64| {
            rows.iter()
                .map(|r| f(r) * r.counts.support as f64)
                .sum::<f64>()
                / w
        };
        Prf {
            precision: avg(|r| r.precision),
            recall: avg(|r| r.recall),
            f1: avg(|r| r.f1),
            counts: total,
        }
    };
    [micro, macro_, weighted]
}

/// seqeval 1.2.2's token-level counts of a prediction against the truth
/// (spec 10), over every token, tags compared as written:
/// `accuracy_score` (`matching / tokens`) and `performance_measure`'s TP
/// (equal and not `O`), FP (different, the prediction not `O`), FN (the
/// truth not `O`, the prediction `O`) and TN (both `O`); the four add up
/// to `tokens`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TokenCounts {
    pub tokens: u64,
    pub matching: u64,
    pub tp: u64,
    pub fp: u64,
    pub fn_: u64,
    pub tn: u64,
}

impl TokenCounts {
    /// Adds one token: whether the two tags are equal and which is `O`.
    pub fn add(&mut self, equal: bool, truth_o: bool, pred_o: bool) {
        self.tokens += 1;
        self.matching += u64::from(equal);
        self.tp += u64::from(equal && !truth_o);
        self.fp += u64::from(!equal && !pred_o);
        self.fn_ += u64::from(!truth_o && pred_o);
        self.tn += u64::from(truth_o && pred_o);
    }

    /// `accuracy_score`: matching / tokens, NaN without tokens (seqeval
    /// divides by zero).
    pub fn accuracy(&self) -> f64 {
        if self.tokens == 0 {
            f64::NAN
        } else {
            self.matching as f64 / self.tokens as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(correct: u64, predicted: u64, support: u64) -> Counts {
        Counts {
            correct,
            predicted,
            support,
        }
    }

    #[test]
    fn seqeval_readme_example() {
        // seqeval README: MISC 0/1/1, PER 1/1/1; micro = macro = weighted
        // = 0.5.
        let rows = [row(c(0, 1, 1)), row(c(1, 1, 1))];
        assert_eq!(rows[0].f1, 0.0);
        assert_eq!(rows[1].f1, 1.0);
        for a in averages(&rows) {
            assert_eq!((a.precision, a.recall, a.f1), (0.5, 0.5, 0.5));
            assert_eq!(a.counts, c(1, 2, 2));
        }
    }

    #[test]
    fn degenerate_counts_give_seqeval_values() {
        let [micro, macro_, weighted] = averages(&[]);
        assert_eq!((micro.precision, micro.f1), (0.0, 0.0));
        assert!(macro_.f1.is_nan());
        assert_eq!(weighted.f1, 0.0);
        // A type only predicted: support 0, counts in macro.
        let rows = [row(c(2, 3, 4)), row(c(0, 1, 0))];
        let [_, macro_, weighted] = averages(&rows);
        let p0 = 2.0 / 3.0;
        let f0 = 2.0 * p0 * 0.5 / (p0 + 0.5);
        assert_eq!(macro_.f1, f0 / 2.0);
        assert_eq!(weighted.f1, f0 * 4.0 / 4.0);
    }

    /// seqeval's test_performance_measure (TP 3, FP 3, FN 1, TN 4) and
    /// the accuracy_score docstring (0.8).
    #[test]
    fn token_counts_are_seqeval_s() {
        let count = |truth: &[&str], pred: &[&str]| {
            let mut c = TokenCounts::default();
            for (t, p) in truth.iter().zip(pred) {
                c.add(t == p, *t == "O", *p == "O");
            }
            c
        };
        let truth = [
            "O", "O", "O", "B-MISC", "I-MISC", "I-MISC", "O", "B-PER", "I-PER",
        ];
        let pred = [
            "O", "O", "B-MISC", "I-MISC", "I-MISC", "I-MISC", "O", "B-PER", "I-PER",
        ];
        let c = count(&truth[..], &pred[..]);
        assert_eq!(c.accuracy(), 7.0 / 9.0);
        let truth = [
            "O", "O", "O", "B-MISC", "I-MISC", "O", "B-ORG", "B-PER", "I-PER", "O", "B-PER",
        ];
        let pred = [
            "O", "O", "B-MISC", "I-MISC", "I-MISC", "O", "O", "B-PER", "I-PER", "O", "B-MISC",
        ];
        let c = count(&truth[..], &pred[..]);
        assert_eq!((c.tp, c.fp, c.fn_, c.tn), (3, 3, 1, 4));
        assert_eq!(c.tp + c.fp + c.fn_ + c.tn, c.tokens);
        let docstring = count(
            &[
                "B-MISC", "I-MISC", "O", "O", "B-PER", "I-PER", "O", "O", "O", "O",
            ],
            &[
                "B-MISC", "I-MISC", "O", "O", "B-PER", "I-PER", "O", "B-LOC", "I-LOC", "O",
            ],
        );
        assert_eq!(docstring.accuracy(), 0.8);
        assert!(TokenCounts::default().accuracy().is_nan());
    }
}
