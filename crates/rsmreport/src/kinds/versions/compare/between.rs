//! Command assembly (compare): the two versions against each other on the
//! paired responses (compare spec 2.5, part 8): the correlation and the
//! exact agreement between their trimmed and their trimmed-and-rounded
//! scores (the metric functions of `build`, [`rsmreport_metrics::association`]
//! and [`rsmreport_metrics::agreement`]), the counts of baseline vs candidate
//! rounded scores, how many rounded scores changed, the responses with the
//! largest absolute change of the trimmed score, and the score
//! distributions of human, baseline and candidate.
//!
//! Pure: works on the aligned paired responses; writes nothing.

use std::collections::HashSet;

use crate::kinds::versions::build::paired::Aligned;
use crate::kinds::versions::build::pairing::Pairing;
use rsmreport_core::table::FxBuild;
use rsmreport_io::input::archive::Responses;
use rsmreport_metrics::agreement::exact_agreement;
use rsmreport_metrics::association::pearson;

/// How many responses the list of largest changes shows.
pub const TOP: usize = 20;

/// One response whose score changed.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub id: String,
    pub human: f64,
    /// The trimmed scores of both versions.
    pub baseline: f64,
    pub candidate: f64,
}

impl Change {
    pub fn delta(&self) -> f64 {
        self.candidate - self.baseline
    }
}

/// The two versions' scores on the paired responses.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Between {
    pub n: usize,
    /// Pearson correlation between the versions' `[trimmed, rounded]`
    /// scores.
    pub corr: [f64; 2],
    /// Exact agreement (%) between the versions' `[trimmed, rounded]`
    /// scores.
    pub exact: [f64; 2],
    /// Responses whose rounded score differs.
    pub changed: usize,
    /// The rounded score labels of either version, ascending.
    pub labels: Vec<f64>,
    /// `counts[i][j]`: responses with baseline label `i` and candidate
    /// label `j`.
    pub counts: Vec<Vec<u64>>,
    /// The [`TOP`] largest absolute changes of the trimmed score.
    pub top: Vec<Change>,
    /// Score labels of the distributions, ascending.
    pub dist_scores: Vec<f64>,
    /// Percent of responses with each label: human, baseline (rounded),
    /// candidate (rounded).
    pub dist: [Vec<f64>; 3],
}

/// The two versions on the paired responses `data` of `pairing` (ids from
/// the baseline's responses `rb`).
pub fn between(rb: &Responses, pairing: &Pairing, data: &Aligned) -> Between {
    let [bt, br, ct, cr] = &data.scores;
    let ids: Vec<&str> = pairing
        .pairs
        .iter()
        .map(|&(i, _)| &*rb.ids[i as usize])
        .collect();
    let (labels, counts) = cross_counts(br, cr);
    let dist_scores = sorted_unique([&data.h[..], br, cr]);
    let dist = [&data.h, br, cr].map(|v| percentages(v, &dist_scores));
    Between {
        n: data.h.len(),
        corr: [pearson(bt, ct), pearson(br, cr)],
        exact: [exact_agreement(bt, ct), exact_agreement(br, cr)],
        changed: changed(br, cr),
        labels,
        counts,
        top: largest_changes(&ids, &data.h, bt, ct, TOP),
        dist_scores,
        dist,
    }
}

/// The number of responses whose two values differ (two missing values
/// do not count as a change).
pub fn changed(b: &[f64], c: &[f64]) -> usize {
    b.iter()
        .zip(c)
        .filter(|(x, y)| x != y && !(x.is_nan() && y.is_nan()))
        .count()
}

/// The finite values of all slices, ascending, each once (one hash set
/// pass, then only the distinct values are sorted).
fn sorted_unique<const N: usize>(slices: [&[f64]; N]) -> Vec<f64> {
    let mut seen: HashSet<u64, FxBuild> = HashSet::default();
    for v in slices.iter().flat_map(|s| s.iter()) {
        if v.is_finite() {
            // -0.0 and 0.0 are one label.
            seen.insert((v + 0.0).to_bits());
        }
    }
    let mut out: Vec<f64> = seen.into_iter().map(f64::from_bits).collect();
    out.sort_by(f64::total_cmp);
    out
}

/// Percent of the finite values of `v` equal to each label.
fn percentages(v: &[f64], labels: &[f64]) -> Vec<f64> {
    let mut counts = vec![0usize; labels.len()];
    let mut n = 0usize;
    for x in v.iter().filter(|x| x.is_finite()) {
        n += 1;
        if let Ok(k) = labels.binary_search_by(|l| l.total_cmp(x)) {
            counts[k] += 1;
        }
    }
    counts
        .iter()
        .map(|&k| k as f64 / n.max(1) as f64 * 100.0)
        .collect()
}

/// The labels of either side and the table of counts (rows: baseline,
/// columns: candidate); pairs with a missing value are left out.
pub fn cross_counts(b: &[f64], c: &[f64]) -> (Vec<f64>, Vec<Vec<u64>>) {
    let labels = sorted_unique([b, c]);
    let mut counts = vec![vec![0u64; labels.len()]; labels.len()];
    let at = |x: &f64| labels.binary_search_by(|l| l.total_cmp(x)).ok();
    for (x, y) in b.iter().zip(c) {
        if let (Some(i), Some(j)) = (at(x), at(y)) {
            counts[i][j] += 1;
        }
    }
    (labels, counts)
}

/// The `k` responses with the largest absolute change `|c - b|` (zero and
/// undefined changes left out), largest first, equal changes by id.
pub fn largest_changes(ids: &[&str], h: &[f64], b: &[f64], c: &[f64], k: usize) -> Vec<Change> {
    let size = |i: usize| (c[i] - b[i]).abs();
    let mut idx: Vec<usize> = (0..ids.len())
        .filter(|&i| size(i).is_finite() && size(i) > 0.0)
        .collect();
    let order = |&i: &usize, &j: &usize| size(j).total_cmp(&size(i)).then(ids[i].cmp(ids[j]));
    if idx.len() > k && k > 0 {
        idx.select_nth_unstable_by(k - 1, order);
    }
    idx.truncate(k);
    idx.sort_by(order);
    idx.into_iter()
        .map(|i| Change {
            id: ids[i].to_string(),
            human: h[i],
            baseline: b[i],
            candidate: c[i],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_changes_are_ordered_by_size_then_id() {
        let ids = ["r5", "r1", "r3", "r2", "r4", "r0"];
        let h = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let b = [1.0, 2.0, 3.0, 2.0, 4.0, 3.0];
        // Changes: +1, -1, 0, +2, NaN, +1.
        let c = [2.0, 1.0, 3.0, 4.0, f64::NAN, 4.0];
        let all = largest_changes(&ids, &h, &b, &c, 10);
        let order: Vec<&str> = all.iter().map(|x| x.id.as_str()).collect();
        assert_eq!(order, ["r2", "r0", "r1", "r5"]);
        assert_eq!(all[0].human, 4.0);
        assert_eq!(all[0].delta(), 2.0);
        assert_eq!(all[2].delta(), -1.0);
        // Cut to the first k: the same order, ties still by id.
        let two = largest_changes(&ids, &h, &b, &c, 2);
        assert_eq!(two, all[..2].to_vec());
        assert!(largest_changes(&ids, &h, &b, &b, 20).is_empty());
    }

    #[test]
    fn many_ties_keep_the_smallest_ids() {
        let n = 100;
        let ids: Vec<String> = (0..n).map(|i| format!("r{:03}", n - 1 - i)).collect();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        let zeros = vec![0.0; n];
        let ones = vec![1.0; n];
        let top = largest_changes(&ids, &zeros, &zeros, &ones, TOP);
        let want: Vec<String> = (0..TOP).map(|i| format!("r{i:03}")).collect();
        let got: Vec<String> = top.iter().map(|c| c.id.clone()).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn changed_counts_differences_only() {
        let b = [1.0, 2.0, 3.0, f64::NAN, f64::NAN, 4.0];
        let c = [1.0, 3.0, 3.0, f64::NAN, 2.0, 5.0];
        assert_eq!(changed(&b, &c), 3);
        assert_eq!(changed(&b, &b), 0);
    }

    #[test]
    fn cross_counts_and_percentages() {
        let b = [1.0, 2.0, 2.0, 3.0];
        let c = [1.0, 2.0, 3.0, 3.0];
        let (labels, counts) = cross_counts(&b, &c);
        assert_eq!(labels, [1.0, 2.0, 3.0]);
        assert_eq!(counts, vec![vec![1, 0, 0], vec![0, 1, 1], vec![0, 0, 1]]);
        assert_eq!(percentages(&b, &labels), [25.0, 50.0, 25.0]);
        assert_eq!(
            sorted_unique([&[2.0, -0.0, f64::NAN][..], &[0.0, 1.5]]),
            [0.0, 1.5, 2.0]
        );
    }
}
