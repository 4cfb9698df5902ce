//! The differences of two `build` folders' whole-set headline statistics
//! (compare spec 2.2-2.4), the part of `compare` that `summarize` uses for
//! each version against the baseline: the margin in force, whether test
//! takers are resampled, the verdict rows (paired on the responses both
//! share, else unpaired), whether two versions are of the very same
//! responses, the responses' ground, and the statistics stored in a
//! folder's own tables.
//!
//! Pure: works on opened archives; writes nothing.

use rsmreport_config::compare::{CompareConfig, Units};
use rsmreport_io::input::archive::{Archive, Responses};

use super::paired::{self, Side, Statistic, VerdictRow};
use super::pairing::pair;

/// The responses both folders evaluated, and how many of them have
/// different first human scores on the two sides (different ground
/// truth: those are not paired).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ground {
    /// Response ids on both sides.
    pub common: usize,
    /// Of them, those whose first human scores differ.
    pub differing: usize,
    /// The responses paired (common, same human score).
    pub paired: usize,
}

/// The margin of `s`: the configured one, else its default.
pub fn margin(cfg: &CompareConfig, s: &Statistic) -> f64 {
    cfg.margins.get(s.name).copied().unwrap_or(s.margin)
}

/// Whether whole test takers are resampled: `[intervals] unit` (`auto`:
/// when both folders name their test takers in `test_metadata`).
pub fn test_takers(cfg: &CompareConfig, sides: [&Responses; 2]) -> Result<bool, String> {
    let both = sides.iter().all(|r| r.candidates.is_some());
    match cfg.units {
        Units::Responses => Ok(false),
        Units::Auto => Ok(both),
        Units::TestTakers if both => Ok(true),
        Units::TestTakers => Err(
            "intervals.unit = \"candidate\" resamples whole test takers, but a folder's \
             test_metadata has no candidate column (build the experiment with \
             candidate_column); use unit = \"response\" or \"auto\""
                .into(),
        ),
    }
}

/// The whole-set verdict rows of `candidate` against `baseline` on the
/// score type `score_type` (both must have it): paired on the responses
/// they share, else unpaired (compare spec 2.2, 2.4). Returns whether the
/// rows are paired. For `summarize`: no subgroups, no preflight.
pub fn headline_deltas(
    baseline: &Responses,
    candidate: &Responses,
    score_type: &str,
    cfg: &CompareConfig,
) -> Option<(bool, Vec<VerdictRow>)> {
    let margin = |s: &Statistic| margin(cfg, s);
    let p = pair(baseline, candidate);
    let takers = test_takers(cfg, [baseline, candidate]).unwrap_or(false);
    if p.is_paired() {
        let data = paired::align(baseline, candidate, &p, score_type, takers)?;
        return Some((true, paired::overall_deltas(&data, &cfg.intervals, &margin)));
    }
    let with_h2 = baseline.sc2.is_some() && candidate.sc2.is_some();
    let sides = [
        Side::of(baseline, score_type, with_h2, takers)?,
        Side::of(candidate, score_type, with_h2, takers)?,
    ];
    Some((
        false,
        paired::unpaired_overall_deltas(sides, &cfg.intervals, &margin),
    ))
}

/// Whether [`headline_deltas`] of `candidate` against `baseline` is
/// paired on every response in order, with the very inputs of the two
/// sides' own runs ([`paired::side_run`], which resampled test takers when
/// `side_takers`): the same ids in the same order, the same first and
/// second human scores bit for bit (so every response pairs, and the
/// paired run's human scores are each side's), and the same resampling
/// units. Then its rows are [`paired::SideRun::deltas`] of the two runs.
pub fn same_responses(
    baseline: &Responses,
    candidate: &Responses,
    cfg: &CompareConfig,
    side_takers: bool,
) -> bool {
    let bits = |a: &[f64], b: &[f64]| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
    };
    let sc2 = match (&baseline.sc2, &candidate.sc2) {
        (None, None) => true,
        (Some(a), Some(b)) => bits(a, b),
        _ => false,
    };
    let takers = test_takers(cfg, [baseline, candidate]).unwrap_or(false);
    let paired_units = baseline.candidates.as_ref().filter(|_| takers);
    let same_units = [baseline, candidate]
        .iter()
        .all(|r| r.candidates.as_ref().filter(|_| side_takers) == paired_units);
    !baseline.is_empty()
        && baseline.ids == candidate.ids
        && bits(&baseline.sc1, &candidate.sc1)
        && sc2
        && same_units
}

/// A headline statistic's estimate in a folder's own tables (`kappa` and
/// the agreement rates of `eval` from the rounded score type's row).
pub fn stored_value(a: &Archive, st: &Statistic, score_type: &str) -> Option<f64> {
    a.table(st.table)?
        .value_at(&stored_row(st, score_type), st.metric)
}

/// The row of a statistic in its stored table: the rounded score type for
/// the agreement statistics of `eval`.
fn stored_row(st: &Statistic, score_type: &str) -> String {
    if st.rounded && st.table == "eval" {
        format!("{score_type}_round")
    } else {
        score_type.to_string()
    }
}

/// [`stored_value`] with the interval at `level` of the build's
/// `<table>_ci` table (NaN bounds without one: a folder of rsmeval,
/// intervals off, or another level).
pub fn stored_estimate(
    a: &Archive,
    st: &Statistic,
    score_type: &str,
    level: f64,
) -> Option<(f64, f64, f64)> {
    let value = stored_value(a, st, score_type)?;
    let cell = (st.table, stored_row(st, score_type), st.metric);
    let (lo, hi) = a
        .stored_interval((cell.0, &cell.1, cell.2), Some(level))
        .unwrap_or((f64::NAN, f64::NAN));
    Some((value, lo, hi))
}
