//! Command assembly (the version workflow, `build`'s folders): which
//! responses two folders share (compare spec 2.1). The paired analyses use the common ids whose human scores agree:
//! the first human score equal, and the second equal or missing on both
//! sides (when both folders have second scores). Everything else is
//! counted for the preflight table.
//!
//! Pure: no I/O; one hash map over the candidate's ids.

use std::collections::HashMap;

use rsmreport_core::table::{FxBuild, Text};
use rsmreport_io::input::archive::Responses;

/// Below this share of either side's responses, the report warns that the
/// paired analyses cover only part of the data (spec 2.1).
pub const LOW_OVERLAP: f64 = 0.9;

/// How two sides' responses match.
#[derive(Clone, Debug, PartialEq)]
pub struct Pairing {
    pub n_baseline: usize,
    pub n_candidate: usize,
    /// Ids on both sides.
    pub common: usize,
    /// Common ids whose first human scores differ, in baseline order.
    pub sc1_mismatches: Vec<Text>,
    /// Common ids whose second human scores differ (one missing, or two
    /// different values), when both sides have second scores.
    pub sc2_mismatches: Vec<Text>,
    /// Whether both sides have second human scores (else the second-score
    /// check is not available).
    pub sc2_compared: bool,
    /// `(baseline row, candidate row)` of the responses the paired
    /// analyses use, in baseline order.
    pub pairs: Vec<(u32, u32)>,
}

impl Pairing {
    pub fn only_baseline(&self) -> usize {
        self.n_baseline - self.common
    }

    pub fn only_candidate(&self) -> usize {
        self.n_candidate - self.common
    }

    /// Some responses can be compared pair by pair; otherwise the
    /// comparison is unpaired (spec 2.4).
    pub fn is_paired(&self) -> bool {
        !self.pairs.is_empty()
    }

    /// The paired responses are fewer than [`LOW_OVERLAP`] of either side.
    pub fn low_overlap(&self) -> bool {
        let p = self.pairs.len() as f64;
        p < LOW_OVERLAP * self.n_baseline as f64 || p < LOW_OVERLAP * self.n_candidate as f64
    }
}

/// Matches the responses of `baseline` and `candidate` by id.
pub fn pair(baseline: &Responses, candidate: &Responses) -> Pairing {
    if baseline.ids == candidate.ids {
        // The same responses in the same order (one folder against itself,
        // or two builds of one data file): no id needs looking up.
        return pair_rows(
            baseline,
            candidate,
            (0..baseline.len() as u32).map(|i| (i, i)),
        );
    }
    let mut row_of: HashMap<&str, u32, FxBuild> =
        HashMap::with_capacity_and_hasher(candidate.len(), FxBuild::default());
    for (j, id) in candidate.ids.iter().enumerate() {
        row_of.insert(id, j as u32);
    }
    let matches = baseline
        .ids
        .iter()
        .enumerate()
        .filter_map(|(i, id)| row_of.get(&**id).map(|&j| (i as u32, j)));
    pair_rows(baseline, candidate, matches)
}

/// The pairing of the common ids given as `(baseline row, candidate row)`
/// in baseline order.
fn pair_rows(
    baseline: &Responses,
    candidate: &Responses,
    common: impl Iterator<Item = (u32, u32)>,
) -> Pairing {
    let both_sc2 = baseline.sc2.as_deref().zip(candidate.sc2.as_deref());
    let mut out = Pairing {
        n_baseline: baseline.len(),
        n_candidate: candidate.len(),
        common: 0,
        sc1_mismatches: Vec::new(),
        sc2_mismatches: Vec::new(),
        sc2_compared: both_sc2.is_some(),
        pairs: Vec::new(),
    };
    for (i, j) in common {
        let (iu, ju) = (i as usize, j as usize);
        out.common += 1;
        let sc1_agree = same(baseline.sc1[iu], candidate.sc1[ju]);
        let sc2_agree = both_sc2.is_none_or(|(b, c)| same(b[iu], c[ju]));
        if !sc1_agree {
            out.sc1_mismatches.push(baseline.ids[iu].clone());
        }
        if !sc2_agree {
            out.sc2_mismatches.push(baseline.ids[iu].clone());
        }
        if sc1_agree && sc2_agree {
            out.pairs.push((i, j));
        }
    }
    out
}

/// Equal scores, a missing score equal to a missing one.
fn same(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(ids: &[&str], sc1: &[f64], sc2: Option<&[f64]>) -> Responses {
        Responses {
            ids: ids.iter().map(|&s| Text::from(s)).collect(),
            sc1: sc1.to_vec(),
            sc2: sc2.map(<[f64]>::to_vec),
            scores: Vec::new(),
            groups: Vec::new(),
            candidates: None,
            rater_error_variance: None,
        }
    }

    #[test]
    fn common_ids_with_agreeing_human_scores_are_paired() {
        let nan = f64::NAN;
        let b = side(
            &["a", "b", "c", "d", "e"],
            &[1.0, 2.0, 3.0, 4.0, 5.0],
            Some(&[1.0, nan, 3.0, nan, 5.0]),
        );
        // c: sc1 differs; d: sc2 present on one side only; e: sc2 differs;
        // x, y only in the candidate; the candidate's order differs.
        let c = side(
            &["y", "e", "d", "c", "b", "a", "x"],
            &[0.0, 5.0, 4.0, 2.0, 2.0, 1.0, 0.0],
            Some(&[nan, 4.0, 4.0, 3.0, nan, 1.0, nan]),
        );
        let p = pair(&b, &c);
        assert_eq!((p.n_baseline, p.n_candidate, p.common), (5, 7, 5));
        assert_eq!((p.only_baseline(), p.only_candidate()), (0, 2));
        assert_eq!(p.sc1_mismatches, [Text::from("c")]);
        assert_eq!(p.sc2_mismatches, [Text::from("d"), Text::from("e")]);
        assert_eq!(p.pairs, [(0, 5), (1, 4)]);
        assert!(p.is_paired() && p.low_overlap() && p.sc2_compared);
    }

    #[test]
    fn without_second_scores_on_one_side_only_sc1_counts() {
        let b = side(&["a", "b"], &[1.0, 2.0], Some(&[3.0, 4.0]));
        let c = side(&["b", "a"], &[2.0, 1.0], None);
        let p = pair(&b, &c);
        assert!(!p.sc2_compared && p.sc2_mismatches.is_empty());
        assert_eq!(p.pairs, [(0, 1), (1, 0)]);
        assert!(!p.low_overlap());
    }

    #[test]
    fn a_side_with_itself_pairs_every_response() {
        let b = side(
            &["a", "b", "c"],
            &[1.0, 2.0, 2.0],
            Some(&[f64::NAN, 2.0, 3.0]),
        );
        let p = pair(&b, &b);
        assert_eq!(p.pairs, [(0, 0), (1, 1), (2, 2)]);
        assert!(p.sc1_mismatches.is_empty() && p.sc2_mismatches.is_empty());
    }

    #[test]
    fn no_common_ids_is_unpaired() {
        let p = pair(&side(&["a"], &[1.0], None), &side(&["b"], &[1.0], None));
        assert!(!p.is_paired() && p.low_overlap());
        assert_eq!((p.common, p.only_baseline(), p.only_candidate()), (0, 1, 1));
    }

    #[test]
    fn the_overlap_warning_starts_below_ninety_percent() {
        let ids: Vec<String> = (0..10).map(|i| i.to_string()).collect();
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        let b = side(&refs, &[1.0; 10], None);
        let c = side(&refs[..9], &[1.0; 9], None);
        assert!(!pair(&b, &c).low_overlap(), "9 of 10 is 90%");
        let c = side(&refs[..8], &[1.0; 8], None);
        assert!(pair(&b, &c).low_overlap());
    }
}
