//! The report pieces both commands of the version workflow show: a
//! verdict cell's colour, a number with its interval under it, and the
//! badge of a set of verdicts (compare's first screen, summarize's per
//! version).
//!
//! Formats values; no I/O.

use rsmreport_report::render::Tone;

use crate::kinds::common::verdict::Verdict;

/// A number with its interval under it: the report engine's
/// [`interval_cell`](rsmreport_report::render::tables::interval_cell).
pub use rsmreport_report::render::tables::interval_cell as number;

/// The CSS class of a verdict cell (the colour repeats the word).
pub fn verdict_class(v: Verdict) -> &'static str {
    match v {
        Verdict::Improved => "verdict verdict-improved",
        Verdict::LikelyImproved => "verdict verdict-improved verdict-likely",
        Verdict::Regressed => "verdict verdict-regressed",
        Verdict::LikelyRegressed => "verdict verdict-regressed verdict-likely",
        Verdict::ChangedWithinMargin => "verdict verdict-within",
        Verdict::Equivalent
        | Verdict::NoDetectableChange
        | Verdict::NoDetectableChangeAfterHolm
        | Verdict::NotTestable
        | Verdict::NotComparable => "verdict verdict-none",
    }
}

/// How many of `verdicts` regressed, improved, and were tested at all.
pub fn verdict_counts(verdicts: impl Iterator<Item = Verdict>) -> (usize, usize, usize) {
    let (mut regressed, mut improved, mut tested) = (0, 0, 0);
    for v in verdicts {
        match v {
            Verdict::Regressed | Verdict::LikelyRegressed => regressed += 1,
            Verdict::Improved | Verdict::LikelyImproved => improved += 1,
            _ => {}
        }
        if !matches!(v, Verdict::NotTestable | Verdict::NotComparable) {
            tested += 1;
        }
    }
    (regressed, improved, tested)
}

/// The badge and tone of verdict counts `(regressed, improved, tested)`.
pub fn verdict_badge((regressed, improved, tested): (usize, usize, usize)) -> (Tone, &'static str) {
    match (regressed, improved) {
        _ if tested == 0 => (Tone::Info, "not testable"),
        (0, 0) => (Tone::Pass, "no regression"),
        (0, _) => (Tone::Pass, "improved"),
        (_, 0) => (Tone::Fail, "regressed"),
        _ => (Tone::Warn, "mixed"),
    }
}
