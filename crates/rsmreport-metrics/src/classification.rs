//! Stage 4 (metrics, pure): the classification view of two label columns
//! (`spec/agreement.md` section 4; fixture README 6.6-6.9): the confusion
//! matrix, per-class precision, recall, F1 and support, their macro, micro
//! and weighted averages (`zero_division = 0`), accuracy, balanced
//! accuracy, Matthews correlation (multiclass), and for numeric labels
//! Pearson's r, Spearman's rho and Kendall's tau-b with scipy's p-values.
//! Cohen's kappa (plain and weighted, with statsmodels' standard errors)
//! comes from [`crate::raters::pairs`] on the same matrix.
//!
//! Pure maths on label codes: nothing here may touch files, tables,
//! configuration, threads, formatting or report code. A 0/0 precision or
//! recall is 0 (scikit-learn's `zero_division = 0`); other degenerate data
//! give `NaN`, never a panic.

use crate::association::pearson;
use crate::distributions::t_two_sided_p;
use crate::raters::fleiss::two_sided_normal;
use crate::raters::pairs::pearson_p_value;

/// Confusion matrix `q x q` (rows = gold, columns = predicted) of the
/// pairs whose two codes are both below `q` (scikit-learn ignores pairs
/// with a label outside `labels`).
pub fn confusion_matrix(gold: &[u32], pred: &[u32], q: usize) -> Vec<f64> {
    let mut c = vec![0.0; q * q];
    for (&g, &p) in gold.iter().zip(pred) {
        let (g, p) = (g as usize, p as usize);
        if g < q && p < q {
            c[g * q + p] += 1.0;
        }
    }
    c
}

/// The confusion counts of [`confusion_matrix`] as sparse cells `(gold,
/// predicted, count)`, sorted, every count positive: memory grows with the
/// pairs, never with `q^2` (label sets of thousands).
pub fn confusion_cells(gold: &[u32], pred: &[u32], q: usize) -> Vec<(u32, u32, f64)> {
    let mut keys: Vec<u64> = gold
        .iter()
        .zip(pred)
        .filter(|(&g, &p)| (g as usize) < q && (p as usize) < q)
        .map(|(&g, &p)| (u64::from(g) << 32) | u64::from(p))
        .collect();
    keys.sort_unstable();
    keys.chunk_by(|a, b| a == b)
        .map(|run| ((run[0] >> 32) as u32, run[0] as u32, run.len() as f64))
        .collect()
}

/// The cells of a dense `rows x cols` matrix (row-major), zeros left out.
pub fn dense_cells(c: &[f64], rows: usize, cols: usize) -> Vec<(u32, u32, f64)> {
    (0..rows * cols)
        .filter(|&i| c[i] != 0.0)
        .map(|i| ((i / cols) as u32, (i % cols) as u32, c[i]))
        .collect()
}

/// Precision, recall and F1 of one class or one average.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prf {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

/// Everything scikit-learn reports for a confusion matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassificationReport {
    /// Per class (label order): precision, recall, F1; and support (gold
    /// count).
    pub per_class: Vec<Prf>,
    pub support: Vec<f64>,
    pub macro_avg: Prf,
    pub micro_avg: Prf,
    pub weighted_avg: Prf,
    pub n: f64,
    pub accuracy: f64,
    pub balanced_accuracy: f64,
    pub matthews: f64,
}

/// `a / b`, 0 when `b = 0` (`zero_division = 0`).
fn ratio0(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        0.0
    } else {
        a / b
    }
}

/// F-beta of one class or of the micro average: `(1 + b^2) tp / (b^2 true
/// + predicted)`, 0 when the denominator is 0 (scikit-learn's
/// `fbeta_score` with `zero_division = 0`; `b = 1` is F1 bit for bit).
pub fn fbeta(tp: f64, predicted: f64, truth: f64, beta: f64) -> f64 {
    let b2 = beta * beta;
    ratio0((1.0 + b2) * tp, b2 * truth + predicted)
}

/// Precision, recall and one F-beta per requested beta.
#[derive(Clone, Debug, PartialEq)]
pub struct PrfBeta {
    pub precision: f64,
    pub recall: f64,
    /// In the order of the betas asked for.
    pub f: Vec<f64>,
}

/// scikit-learn's label metrics of a `k x cols` confusion matrix (rows =
/// the `k` gold classes, columns = the `k` classes then `cols - k` columns
/// that are no class, such as abstentions): `precision_recall_fscore_support`
/// with `labels` = the `k` classes (an extra column counts in a class's
/// support, never in its predictions), their macro, micro and weighted
/// averages, accuracy, balanced accuracy (mean recall over the classes
/// present in gold) and Matthews' correlation over all `cols` columns
/// (classify spec 2; fixtures/classify README 6.2).
#[derive(Clone, Debug, PartialEq)]
pub struct LabelReport {
    pub per_class: Vec<PrfBeta>,
    pub support: Vec<f64>,
    pub macro_avg: PrfBeta,
    pub micro_avg: PrfBeta,
    pub weighted_avg: PrfBeta,
    pub n: f64,
    pub accuracy: f64,
    pub balanced_accuracy: f64,
    pub matthews: f64,
}

/// The [`LabelReport`] of the `k x cols` matrix `c` (row-major) for the
/// F-betas `betas`.
pub fn label_report(c: &[f64], k: usize, cols: usize, betas: &[f64]) -> LabelReport {
    label_report_cells(&dense_cells(c, k, cols), k, cols, betas)
}

/// [`label_report`] of a matrix given as sorted sparse cells `(row,
/// column, count)`: it needs only the margins and the diagonal, so its
/// cost grows with the cells and the classes, never with `k x cols`.
pub fn label_report_cells(
    cells: &[(u32, u32, f64)],
    k: usize,
    cols: usize,
    betas: &[f64],
) -> LabelReport {
    let (mut truth, mut all_pred, mut tp) = (vec![0.0; k], vec![0.0; cols], vec![0.0; k]);
    for &(r, l, v) in cells {
        let (r, l) = (r as usize, l as usize);
        truth[r] += v;
        all_pred[l] += v;
        if r == l {
            tp[r] = v;
        }
    }
    let predicted: Vec<f64> = all_pred[..k].to_vec();
    let per_class: Vec<PrfBeta> = (0..k)
        .map(|j| PrfBeta {
            precision: ratio0(tp[j], predicted[j]),
            recall: ratio0(tp[j], truth[j]),
            f: betas
                .iter()
                .map(|&b| fbeta(tp[j], predicted[j], truth[j], b))
                .collect(),
        })
        .collect();
    let n: f64 = truth.iter().sum();
    let nb = betas.len();
    let mean = |f: &dyn Fn(&PrfBeta) -> f64| per_class.iter().map(f).sum::<f64>() / k as f64;
    let weighted = |f: &dyn Fn(&PrfBeta) -> f64| {
        let s: f64 = per_class.iter().zip(&truth).map(|(p, t)| f(p) * t).sum();
        ratio0(s, n)
    };
    type Avg<'a> = &'a dyn Fn(&dyn Fn(&PrfBeta) -> f64) -> f64;
    let average = |avg: Avg| PrfBeta {
        precision: avg(&|p| p.precision),
        recall: avg(&|p| p.recall),
        f: (0..nb).map(|b| avg(&|p: &PrfBeta| p.f[b])).collect(),
    };
    let (tp_all, pred_all) = (tp.iter().sum::<f64>(), predicted.iter().sum::<f64>());
    let occurring: Vec<f64> = (0..k)
        .filter(|&j| truth[j] > 0.0)
        .map(|j| tp[j] / truth[j])
        .collect();
    // Matthews over every column (all_pred): the extra columns are
    // classes nobody has in gold.
    let pad = |v: &[f64]| -> Vec<f64> {
        v.iter()
            .copied()
            .chain(std::iter::repeat_n(0.0, cols - k))
            .collect()
    };
    LabelReport {
        macro_avg: average(&|f| mean(f)),
        micro_avg: PrfBeta {
            precision: ratio0(tp_all, pred_all),
            recall: ratio0(tp_all, n),
            f: betas
                .iter()
                .map(|&b| fbeta(tp_all, pred_all, n, b))
                .collect(),
        },
        weighted_avg: average(&|f| weighted(f)),
        accuracy: tp_all / n,
        balanced_accuracy: occurring.iter().sum::<f64>() / occurring.len() as f64,
        matthews: matthews(&pad(&tp), &pad(&truth), &all_pred, n),
        per_class,
        support: truth,
        n,
    }
}

/// The report of a `q x q` confusion matrix (fixture README 6.7).
pub fn classification_report(c: &[f64], q: usize) -> ClassificationReport {
    classification_report_cells(&dense_cells(c, q, q), q)
}

/// [`classification_report`] of sorted sparse cells `(gold, predicted,
/// count)` ([`confusion_cells`]).
pub fn classification_report_cells(cells: &[(u32, u32, f64)], q: usize) -> ClassificationReport {
    let r = label_report_cells(cells, q, q, &[1.0]);
    let one = |p: &PrfBeta| Prf {
        precision: p.precision,
        recall: p.recall,
        f1: p.f[0],
    };
    ClassificationReport {
        per_class: r.per_class.iter().map(one).collect(),
        support: r.support,
        macro_avg: one(&r.macro_avg),
        micro_avg: one(&r.micro_avg),
        weighted_avg: one(&r.weighted_avg),
        n: r.n,
        accuracy: r.accuracy,
        balanced_accuracy: r.balanced_accuracy,
        matthews: r.matthews,
    }
}

/// Multiclass Matthews correlation: `(c s - t.p) / sqrt((s^2 - p.p)(s^2 -
/// t.t))`, 0 when the denominator is 0 (scikit-learn).
fn matthews(tp: &[f64], truth: &[f64], predicted: &[f64], s: f64) -> f64 {
    let c: f64 = tp.iter().sum();
    let tp_dot: f64 = truth.iter().zip(predicted).map(|(a, b)| a * b).sum();
    let pp: f64 = predicted.iter().map(|p| p * p).sum();
    let tt: f64 = truth.iter().map(|t| t * t).sum();
    let denom = ((s * s - pp) * (s * s - tt)).sqrt();
    if denom == 0.0 {
        return 0.0;
    }
    (c * s - tp_dot) / denom
}

/// Pearson's r with scipy's two-sided p-value; NaN for fewer than two
/// pairs or a constant column, p = 1 for two pairs.
pub fn pearson_test(x: &[f64], y: &[f64]) -> (f64, f64) {
    let r = pearson(x, y);
    let n = x.len().min(y.len()) as f64;
    if n == 2.0 && !r.is_nan() {
        return (r, 1.0);
    }
    (r, pearson_p_value(r, n))
}

/// Average ranks (1-based; ties share the mean of their positions).
pub fn average_ranks(x: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    let mut ranks = vec![0.0; x.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && x[order[j + 1]] == x[order[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &o in &order[i..=j] {
            ranks[o] = rank;
        }
        i = j + 1;
    }
    ranks
}

/// Spearman's rho (Pearson of the average ranks) and scipy's p-value
/// (`t = rho sqrt((n - 2)/((rho + 1)(1 - rho)))`, t(n - 2)).
pub fn spearman_test(x: &[f64], y: &[f64]) -> (f64, f64) {
    let n = x.len().min(y.len());
    let rho = pearson(&average_ranks(&x[..n]), &average_ranks(&y[..n]));
    let nf = n as f64;
    let t = rho * ((nf - 2.0) / ((rho + 1.0) * (1.0 - rho))).sqrt();
    (rho, t_two_sided_p(t, nf - 2.0))
}

/// Kendall's tau-b of two ordered categorical columns given as their `q x
/// q` contingency table (rows = x in ascending order), with scipy's
/// asymptotic two-sided p-value (fixture README 6.8). NaN when either
/// column is constant.
pub fn kendall_tau_b_table(c: &[f64], q: usize) -> (f64, f64) {
    kendall_tau_b_cells(&dense_cells(c, q, q), q)
}

/// [`kendall_tau_b_table`] of sorted sparse cells `(x, y, count)`.
pub fn kendall_tau_b_cells(cells: &[(u32, u32, f64)], q: usize) -> (f64, f64) {
    let (concordant, discordant) = kendall_pairs(cells, q);
    let (mut rows, mut cols) = (vec![0.0; q], vec![0.0; q]);
    for &(k, l, v) in cells {
        rows[k as usize] += v;
        cols[l as usize] += v;
    }
    let n: f64 = rows.iter().sum();
    let ties = |g: &[f64]| -> [f64; 3] {
        g.iter().fold([0.0; 3], |a, &t| {
            [
                a[0] + t * (t - 1.0) / 2.0,
                a[1] + t * (t - 1.0) * (t - 2.0),
                a[2] + t * (t - 1.0) * (2.0 * t + 5.0),
            ]
        })
    };
    let ([tx, x0, x1], [ty, y0, y1]) = (ties(&rows), ties(&cols));
    let n0 = n * (n - 1.0) / 2.0;
    let s = concordant - discordant;
    let tau = s / ((n0 - tx).sqrt() * (n0 - ty).sqrt());
    let m = n * (n - 1.0);
    let var = (m * (2.0 * n + 5.0) - x1 - y1) / 18.0
        + 2.0 * tx * ty / m
        + x0 * y0 / (9.0 * m * (n - 2.0));
    let p = if tau.is_nan() {
        f64::NAN
    } else {
        two_sided_normal(s / var.sqrt())
    };
    (tau.clamp(-1.0, 1.0), p)
}

/// Concordant and discordant pairs of a contingency table given as sorted
/// cells: rows from the last, each cell against the counts of the rows
/// below it in a Fenwick tree over the columns (`O(cells log q)`; the
/// counts are integers, so every order of summation gives the same sums).
fn kendall_pairs(cells: &[(u32, u32, f64)], q: usize) -> (f64, f64) {
    let mut tree = vec![0.0; q + 1];
    // Sum of the columns 0..l (exclusive).
    let below = |tree: &[f64], l: usize| {
        let (mut i, mut s) = (l, 0.0);
        while i > 0 {
            s += tree[i];
            i &= i - 1;
        }
        s
    };
    let (mut conc, mut disc, mut total) = (0.0, 0.0, 0.0);
    for row in cells.chunk_by(|a, b| a.0 == b.0).rev() {
        for &(_, l, v) in row {
            let l = l as usize;
            let left = below(&tree, l);
            let right = total - below(&tree, l + 1);
            conc += v * right;
            disc += v * left;
        }
        for &(_, l, v) in row {
            let mut i = l as usize + 1;
            while i <= q {
                tree[i] += v;
                i += i & i.wrapping_neg();
            }
            total += v;
        }
    }
    (conc, disc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::Lcg;

    /// Kendall's concordant/discordant pairs against the O(n^2) count.
    #[test]
    fn kendall_table_counts_match_brute_force() {
        let mut g = Lcg(5);
        let q = 5;
        let x: Vec<u32> = (0..200).map(|_| (g.next() * q as f64) as u32).collect();
        let y: Vec<u32> = x
            .iter()
            .map(|&v| ((v as f64 + g.next() * 2.5) as u32).min(q as u32 - 1))
            .collect();
        let c = confusion_matrix(&x, &y, q);
        let (mut conc, mut disc) = (0.0, 0.0);
        for i in 0..x.len() {
            for j in i + 1..x.len() {
                let s = (x[i] as i64 - x[j] as i64) * (y[i] as i64 - y[j] as i64);
                if s > 0 {
                    conc += 1.0;
                } else if s < 0 {
                    disc += 1.0;
                }
            }
        }
        assert_eq!(kendall_pairs(&dense_cells(&c, q, q), q), (conc, disc));
        assert_eq!(kendall_pairs(&confusion_cells(&x, &y, q), q), (conc, disc));
    }

    /// fixtures/classify README 8 (tiny-6-hand), worked by hand: gold
    /// cat, cat, dog, dog, bird, cat; predicted cat, dog, dog, cat, dog,
    /// cat; plus an empty abstention column.
    #[test]
    fn label_report_of_the_worked_example() {
        #[rustfmt::skip]
        let c = [
            2.0, 1.0, 0.0, 0.0,
            1.0, 1.0, 0.0, 0.0,
            0.0, 1.0, 0.0, 0.0,
        ];
        let r = label_report(&c, 3, 4, &[1.0, 0.5]);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(
            close(r.per_class[0].precision, 2.0 / 3.0)
                && close(r.per_class[1].precision, 1.0 / 3.0)
        );
        assert_eq!(r.per_class[2].precision, 0.0);
        assert!(close(r.per_class[1].f[0], 0.4));
        assert!(close(r.macro_avg.precision, 1.0 / 3.0) && close(r.macro_avg.recall, 7.0 / 18.0));
        assert!(close(r.macro_avg.f[0], 16.0 / 45.0));
        assert!(
            close(r.weighted_avg.precision, 4.0 / 9.0) && close(r.weighted_avg.f[0], 7.0 / 15.0)
        );
        assert!(close(r.micro_avg.f[0], 0.5) && close(r.accuracy, 0.5));
        assert!(close(r.balanced_accuracy, 7.0 / 18.0));
        assert!(close(r.matthews, 3.0 / 396f64.sqrt()));
        // F0.5 of dog: 1.25 * 1 / (0.25 * 2 + 3).
        assert!(close(r.per_class[1].f[1], 1.25 / 3.5));
        // One abstention (gold cat): recall and accuracy drop, precision
        // does not, micro precision is correct / answered items.
        let mut c2 = c;
        c2[0] = 1.0;
        c2[3] = 1.0;
        let r = label_report(&c2, 3, 4, &[1.0]);
        assert!(
            close(r.per_class[0].precision, 1.0 / 2.0) && close(r.per_class[0].recall, 1.0 / 3.0)
        );
        assert!(close(r.micro_avg.precision, 2.0 / 5.0) && close(r.accuracy, 2.0 / 6.0));
        assert!(close(r.micro_avg.recall, r.accuracy));
    }

    /// A class never predicted has precision 0/0 = 0 (zero_division = 0);
    /// a constant column gives NaN correlations, never a panic.
    #[test]
    fn zero_division_and_degenerate_columns() {
        let c = confusion_matrix(&[0, 1, 1, 2], &[1, 1, 1, 2], 3);
        let r = classification_report(&c, 3);
        assert_eq!(r.per_class[0].precision, 0.0);
        assert_eq!(r.per_class[0].f1, 0.0);
        assert_eq!(r.accuracy, 0.75);
        let (rho, p) = spearman_test(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]);
        assert!(rho.is_nan() && p.is_nan());
        let (tau, p) = kendall_tau_b_table(&[3.0, 0.0, 0.0, 0.0], 2);
        assert!(tau.is_nan() && p.is_nan());
        let empty = classification_report(&[0.0; 4], 2);
        assert!(empty.accuracy.is_nan() && empty.balanced_accuracy.is_nan());
    }
}
