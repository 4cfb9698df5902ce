//! Stage 4 (metrics): seqeval 1.2.2's precision, recall and F1 from
//! per-type set counts (`spec/spans.md` 4.1): `zero_division = 0`, the
//! per-type rows and the `micro avg`, `macro avg` and `weighted avg` rows
//! of `precision_recall_fscore_support` (numpy's `(1 + beta2) * p * r /
//! denom` with a zero denominator set to 1). Pure: no I/O.

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
}
