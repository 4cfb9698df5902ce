//! The data-set overview of spec 3 (Feedback Forensics'
//! `get_overall_metrics`), over the pairs that are used.

use super::{PairSet, Vote};

/// Spec 3, one row of `<id>_overall`. Proportions and averages are NaN
/// when no pair is used.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OverallStats {
    /// Pairs used (valid reference vote, both texts non-empty).
    pub pairs: u64,
    /// Share of pairs where the reference prefers `text_a`.
    pub prop_text_a: f64,
    /// Mean length of `text_a`, in code points.
    pub avg_len_text_a: f64,
    /// Mean length of `text_b`.
    pub avg_len_text_b: f64,
    /// Mean length of the text the reference prefers.
    pub avg_len_preferred: f64,
    /// Mean length of the other text.
    pub avg_len_rejected: f64,
    /// Share of pairs where the reference prefers the longer text, "longer"
    /// being `text_a` only when it is strictly longer (equal lengths count
    /// as `text_b`, as in Feedback Forensics).
    pub prop_prefer_longer: f64,
}

/// The overview of spec 3 for one data set or subset value. Sums of
/// integers are exact, so the means equal pandas' to the last bit.
pub fn overall_stats(pairs: &PairSet) -> OverallStats {
    let (mut n, mut text_a, mut longer) = (0u64, 0u64, 0u64);
    let (mut sum_a, mut sum_b, mut sum_pref, mut sum_rej) = (0u64, 0u64, 0u64, 0u64);
    for i in 0..pairs.len() {
        if pairs.exclusion(i).is_some() {
            continue;
        }
        let (la, lb) = (u64::from(pairs.len_a[i]), u64::from(pairs.len_b[i]));
        let prefers_a = pairs.reference[i] == Vote::A;
        n += 1;
        sum_a += la;
        sum_b += lb;
        text_a += u64::from(prefers_a);
        let (pref, rej) = if prefers_a { (la, lb) } else { (lb, la) };
        sum_pref += pref;
        sum_rej += rej;
        longer += u64::from(prefers_a == (la > lb));
    }
    let share = |x: u64| {
        if n == 0 {
            f64::NAN
        } else {
            x as f64 / n as f64
        }
    };
    OverallStats {
        pairs: n,
        prop_text_a: share(text_a),
        avg_len_text_a: share(sum_a),
        avg_len_text_b: share(sum_b),
        avg_len_preferred: share(sum_pref),
        avg_len_rejected: share(sum_rej),
        prop_prefer_longer: share(longer),
    }
}
