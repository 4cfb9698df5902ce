//! Stage 4 (metrics, pure): scores that are probabilities (classify spec
//! 2; fixtures/classify README 6.3, 6.5): the multiclass Brier score,
//! scikit-learn's log loss (probabilities clipped to `[eps, 1 - eps]`, no
//! renormalisation) and the top-label calibration in 10 equal-width,
//! left-closed bins with its expected calibration error.
//!
//! Every statistic is a function of additive per-item sums ([`ProbSums`]),
//! so the bootstrap adds block sums instead of revisiting items. Pure
//! maths: no files, tables, configuration or threads.

/// The calibration bins (spec: 10 equal-width bins).
pub const BINS: usize = 10;

/// binary64 machine epsilon, scikit-learn's clipping of `log_loss`.
pub const LOG_LOSS_EPS: f64 = f64::EPSILON;

/// Additive sums over items of one system's probabilities.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbSums {
    pub n: f64,
    /// Sum over items of `sum_k (S_ik - Y_ik)^2`.
    pub brier: f64,
    /// Sum over items of the gold class's squared error of the positive
    /// class alone (binary tasks).
    pub brier_positive: f64,
    /// Sum over items of `-ln clip(S_i,gold)`.
    pub log_loss: f64,
    /// Per bin: items, sum of confidences, items whose top label is right.
    pub bin_n: [f64; BINS],
    pub bin_confidence: [f64; BINS],
    pub bin_correct: [f64; BINS],
}

impl Default for ProbSums {
    fn default() -> Self {
        ProbSums {
            n: 0.0,
            brier: 0.0,
            brier_positive: 0.0,
            log_loss: 0.0,
            bin_n: [0.0; BINS],
            bin_confidence: [0.0; BINS],
            bin_correct: [0.0; BINS],
        }
    }
}

/// The bin of a confidence: `min(floor(10 c), 9)`, the product in binary64.
pub fn bin_of(confidence: f64) -> usize {
    ((confidence * 10.0).floor().max(0.0) as usize).min(BINS - 1)
}

/// The top label of a row of probabilities: the first maximum.
pub fn top_label(row: &[f64]) -> (usize, f64) {
    let mut best = (0, row[0]);
    for (k, &p) in row.iter().enumerate().skip(1) {
        if p > best.1 {
            best = (k, p);
        }
    }
    best
}

/// What one item adds to [`ProbSums`], before its weight.
#[derive(Clone, Copy, Debug)]
pub struct ProbTerms {
    /// `sum_k (S_ik - Y_ik)^2`.
    squares: f64,
    /// The positive class's error (binary tasks).
    positive_error: Option<f64>,
    /// `ln clip(S_i,gold)`.
    log_p: f64,
    bin: usize,
    confidence: f64,
    /// 1 where the top label is the gold one, else 0.
    correct: f64,
}

impl ProbTerms {
    /// The terms of probabilities `row` (label order) with gold class
    /// `gold` and the positive class of a binary task.
    #[inline]
    pub fn of(row: &[f64], gold: usize, positive: Option<usize>) -> ProbTerms {
        let squares: f64 = row
            .iter()
            .enumerate()
            .map(|(k, &p)| {
                let d = p - f64::from(u8::from(k == gold));
                d * d
            })
            .sum();
        let positive_error = positive.map(|pos| row[pos] - f64::from(u8::from(pos == gold)));
        let p = row[gold].clamp(LOG_LOSS_EPS, 1.0 - LOG_LOSS_EPS);
        let (top, confidence) = top_label(row);
        ProbTerms {
            squares,
            positive_error,
            log_p: p.ln(),
            bin: bin_of(confidence),
            confidence,
            correct: f64::from(u8::from(top == gold)),
        }
    }
}

impl ProbSums {
    /// Adds one item: its probabilities `row` (label order), its gold class,
    /// the positive class of a binary task, and weight `w`.
    pub fn push(&mut self, row: &[f64], gold: usize, positive: Option<usize>, w: f64) {
        self.add(&ProbTerms::of(row, gold, positive), w);
    }

    /// Adds one item's terms with weight `w` ([`ProbSums::push`] of its
    /// row): an item's terms computed once can go into several sums.
    #[inline]
    pub fn add(&mut self, t: &ProbTerms, w: f64) {
        self.n += w;
        self.brier += w * t.squares;
        if let Some(d) = t.positive_error {
            self.brier_positive += w * d * d;
        }
        self.log_loss -= w * t.log_p;
        let b = t.bin;
        self.bin_n[b] += w;
        self.bin_confidence[b] += w * t.confidence;
        self.bin_correct[b] += w * t.correct;
    }

    /// `self += w * other`.
    pub fn add_scaled(&mut self, other: &ProbSums, w: f64) {
        self.n += w * other.n;
        self.brier += w * other.brier;
        self.brier_positive += w * other.brier_positive;
        self.log_loss += w * other.log_loss;
        for b in 0..BINS {
            self.bin_n[b] += w * other.bin_n[b];
            self.bin_confidence[b] += w * other.bin_confidence[b];
            self.bin_correct[b] += w * other.bin_correct[b];
        }
    }

    pub fn brier(&self) -> f64 {
        self.brier / self.n
    }

    pub fn brier_positive(&self) -> f64 {
        self.brier_positive / self.n
    }

    pub fn log_loss(&self) -> f64 {
        self.log_loss / self.n
    }

    /// Per bin `(n, mean confidence, accuracy)`; NaN means for an empty bin.
    pub fn bins(&self) -> Vec<(f64, f64, f64)> {
        (0..BINS)
            .map(|b| {
                let n = self.bin_n[b];
                if n > 0.0 {
                    (n, self.bin_confidence[b] / n, self.bin_correct[b] / n)
                } else {
                    (0.0, f64::NAN, f64::NAN)
                }
            })
            .collect()
    }

    /// `sum_b n_b / n |accuracy_b - confidence_b|` over the non-empty bins.
    pub fn ece(&self) -> f64 {
        self.bins()
            .iter()
            .filter(|(n, _, _)| *n > 0.0)
            .map(|(n, c, a)| n / self.n * (a - c).abs())
            .sum()
    }
}

/// Whether one item's scores are probabilities: each in [0, 1], summing
/// to 1 within 1e-6.
pub fn is_probability_row(r: &[f64]) -> bool {
    r.iter().all(|p| (0.0..=1.0).contains(p)) && (r.iter().sum::<f64>() - 1.0).abs() <= 1e-6
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12
    }

    /// fixtures/classify README 8: Brier 2.5/6, log loss, ECE 2.3/6.
    #[test]
    fn worked_example() {
        let rows = [
            [0.8, 0.1, 0.1],
            [0.4, 0.5, 0.1],
            [0.2, 0.7, 0.1],
            [0.4, 0.3, 0.3],
            [0.1, 0.5, 0.4],
            [0.6, 0.0, 0.4],
        ];
        let gold = [0, 0, 1, 1, 2, 0];
        let mut s = ProbSums::default();
        for (r, &g) in rows.iter().zip(&gold) {
            s.push(r, g, None, 1.0);
        }
        assert!(close(s.brier(), 2.5 / 6.0));
        let ll =
            -(0.8f64.ln() + 0.4f64.ln() + 0.7f64.ln() + 0.3f64.ln() + 0.4f64.ln() + 0.6f64.ln())
                / 6.0;
        assert!(close(s.log_loss(), ll));
        assert!(close(s.ece(), 2.3 / 6.0));
        let bins = s.bins();
        assert_eq!(bins[5].0, 2.0);
        assert!(bins[0].1.is_nan());
        assert!(rows.iter().all(|r| is_probability_row(r)));
        assert!(!is_probability_row(&[0.5, 0.6]));
    }

    #[test]
    fn bins_are_left_closed_and_zero_is_clipped() {
        assert_eq!(bin_of(0.3), 3);
        assert_eq!(bin_of(0.7), 7);
        assert_eq!(bin_of(1.0), 9);
        assert_eq!(bin_of(0.0), 0);
        let mut s = ProbSums::default();
        s.push(&[1.0, 0.0], 1, Some(1), 1.0);
        assert!(close(s.log_loss(), 36.04365338911715));
        assert!(close(s.brier(), 2.0) && close(s.brier_positive(), 1.0));
    }
}
