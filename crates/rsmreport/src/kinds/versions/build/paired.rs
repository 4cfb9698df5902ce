//! Command assembly (the version workflow, `build`'s folders): the
//! headline statistics of `build`'s tables and their paired differences
//! (compare spec 2.2, 2.3), as rows of the shared comparison table
//! ([`VerdictRow`]). The responses both folders
//! share ([`super::pairing`]) are resampled once per replicate and both
//! versions' statistics are computed on that resample by the code of the
//! intervals ([`crate::analysis::intervals::stats::overall`], the same
//! sums and metric functions as `build`), so `Δ* = candidate* - baseline*`
//! is paired by construction.
//!
//! Pure: no I/O.

use crate::analysis::intervals::design::{
    block_sums, stratum_totals, Additive, Blocks, MAX_BLOCKS,
};
use crate::analysis::intervals::stats::{by_group, overall, ByGroup, GroupSums, Overall};
use crate::analysis::intervals::{overall_sums, replicate, Replicated, Replicates};
use crate::kinds::common::comparison::{adjust_holm, ComparisonRow, Estimate};
use crate::kinds::common::verdict::{verdict, Rules, Verdict};
use crate::kinds::versions::build::pairing::Pairing;
use rsmreport_config::intervals::Intervals;
use rsmreport_io::input::archive::Responses;
use rsmreport_metrics::association::pearson;
use rsmreport_metrics::bootstrap::percentile_interval;
use rsmreport_metrics::pair_sums::Centres;
use rsmreport_metrics::pair_sums::PairSums;
use rsmreport_metrics::paired::{
    bootstrap_p_value, mcnemar_exact_p, zou_overlapping_interval, Better,
};

/// A headline statistic of compare spec 2.2: where it is in the
/// whole-set tables, which way is better and its default margin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Statistic {
    /// The name in the verdict table (`wtkappa`, `degradation.corr`).
    pub name: &'static str,
    pub table: &'static str,
    pub metric: &'static str,
    /// Computed on the trimmed and rounded scores (`kappa`, agreement).
    pub rounded: bool,
    /// Compared in absolute value (`SMD`).
    pub absolute: bool,
    pub better: Better,
    pub margin: f64,
}

impl Statistic {
    /// The unit its differences are in, for a reader of bare numbers:
    /// `exact_agr` and `adj_agr` are percentages, so their changes are
    /// percentage points.
    pub fn unit(&self) -> Option<&'static str> {
        matches!(self.metric, "exact_agr" | "adj_agr").then_some("pp")
    }
}

impl Statistic {
    /// The oriented change from `baseline` to `candidate` the verdict is
    /// taken on (compare spec 2.2, amended): positive is better. `candidate
    /// - baseline` where larger is better, `baseline - candidate` where
    /// smaller is better, `|baseline| - |candidate|` for the statistics
    /// compared in absolute value (`SMD`, `DSM`: positive when closer to 0).
    pub fn gain(&self, baseline: f64, candidate: f64) -> f64 {
        if self.absolute {
            baseline.abs() - candidate.abs()
        } else {
            match self.better {
                Better::Larger => candidate - baseline,
                Better::Smaller => baseline - candidate,
            }
        }
    }
}

const fn stat(name: &'static str, table: &'static str, metric: &'static str) -> Statistic {
    Statistic {
        name,
        table,
        metric,
        rounded: false,
        absolute: false,
        better: Better::Larger,
        margin: 0.01,
    }
}

/// The headline statistics, in the order of the verdict table.
pub const HEADLINE: [Statistic; 11] = [
    stat("wtkappa", "eval", "wtkappa"),
    stat("corr", "eval", "corr"),
    Statistic {
        rounded: true,
        ..stat("kappa", "eval", "kappa")
    },
    Statistic {
        rounded: true,
        margin: 1.0,
        ..stat("exact_agr", "eval", "exact_agr")
    },
    Statistic {
        rounded: true,
        margin: 1.0,
        ..stat("adj_agr", "eval", "adj_agr")
    },
    stat("R2", "eval", "R2"),
    Statistic {
        better: Better::Smaller,
        ..stat("RMSE", "eval", "RMSE")
    },
    Statistic {
        absolute: true,
        better: Better::Smaller,
        margin: 0.02,
        ..stat("SMD", "eval", "SMD")
    },
    stat("PRMSE", "true_score_eval", "PRMSE true"),
    stat("degradation.corr", "degradation", "corr"),
    stat("degradation.wtkappa", "degradation", "wtkappa"),
];

/// What `compare` adds to a comparison row: the statistic compared (its
/// table, orientation and default margin: [`Statistic::gain`] is the
/// row's gain) and the analytic cross-check beside the bootstrap result
/// (compare spec 2.2): Zou's interval for `corr`, McNemar's exact test for
/// `exact_agr`, on paired responses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Compared {
    pub statistic: Statistic,
    pub cross_check: Option<CrossCheck>,
}

/// A row of the verdict table: the shared comparison row (the systems 0,
/// the baseline folder, and 1, the candidate's) with compare's extra. The
/// estimates and intervals of each side are on the paired responses; the
/// delta is the signed `candidate - baseline` of the statistic itself
/// (also of `SMD` and `DSM`); the p-value is the gain's (of the delta too,
/// except for `SMD` and `DSM`, where it tests whether the distance from 0
/// changed).
pub type VerdictRow = ComparisonRow<Compared>;

/// An analytic result beside a bootstrap one (compare spec 2.2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrossCheck {
    /// `zou` (an interval of the difference of two dependent correlations)
    /// or `mcnemar` (an exact p-value of two paired proportions).
    pub method: &'static str,
    /// Zou's interval of Δ (NaN for McNemar).
    pub lower: f64,
    pub upper: f64,
    /// McNemar's p-value (NaN for Zou).
    pub p_value: f64,
}

/// The cross-checks of compare spec 2.2 on the paired responses, added to
/// the `corr` and `exact_agr` rows of `rows`: for `corr` (the trimmed
/// type), Zou's (2007) interval of `r(h, candidate) - r(h, baseline)`
/// with `r(baseline, candidate)`, on the responses where the three are
/// present; for `exact_agr` (the rounded type), McNemar's exact test on
/// the responses where only one version agrees with the human score (of
/// those where the three are present).
pub fn add_cross_checks(rows: &mut [VerdictRow], data: &Aligned, level: f64) {
    let [bt, br, ct, cr] = &data.scores;
    for row in rows.iter_mut() {
        row.extra.cross_check = match row.extra.statistic.name {
            "corr" => Some(zou_cross_check(&data.h, bt, ct, level)),
            "exact_agr" => Some(mcnemar_cross_check(&data.h, br, cr)),
            _ => None,
        };
    }
}

fn zou_cross_check(h: &[f64], b: &[f64], c: &[f64], level: f64) -> CrossCheck {
    let keep: Vec<usize> = (0..h.len())
        .filter(|&i| [h[i], b[i], c[i]].iter().all(|v| v.is_finite()))
        .collect();
    let pick = |v: &[f64]| -> Vec<f64> { keep.iter().map(|&i| v[i]).collect() };
    let (h, b, c) = (pick(h), pick(b), pick(c));
    let (lower, upper) = zou_overlapping_interval(
        pearson(&h, &c),
        pearson(&h, &b),
        pearson(&b, &c),
        keep.len(),
        level,
    );
    CrossCheck {
        method: "zou",
        lower,
        upper,
        p_value: f64::NAN,
    }
}

fn mcnemar_cross_check(h: &[f64], b: &[f64], c: &[f64]) -> CrossCheck {
    let (mut only_b, mut only_c) = (0u64, 0u64);
    let present = |(h, b, c): &(f64, f64, f64)| [h, b, c].iter().all(|v| v.is_finite());
    let triples = h.iter().zip(b).zip(c).map(|((&h, &b), &c)| (h, b, c));
    for (h, b, c) in triples.filter(present) {
        match (b == h, c == h) {
            (true, false) => only_b += 1,
            (false, true) => only_c += 1,
            _ => {}
        }
    }
    CrossCheck {
        method: "mcnemar",
        lower: f64::NAN,
        upper: f64::NAN,
        p_value: mcnemar_exact_p(only_b, only_c),
    }
}

/// The paired responses' scores, aligned: the human scores, the second
/// human score (when both sides have it), and each side's trimmed and
/// trimmed-and-rounded scores of one score type.
#[derive(Clone, Debug)]
pub struct Aligned {
    pub h: Vec<f64>,
    pub h2: Option<Vec<f64>>,
    /// `[baseline trim, baseline round, candidate trim, candidate round]`.
    pub scores: [Vec<f64>; 4],
    /// Each paired response's test taker (the baseline's codes), when
    /// whole test takers are resampled; `None`: responses are.
    pub units: Option<Vec<u32>>,
    /// The baseline's configured rater error variance (PRMSE of both
    /// versions; the preflight says when the candidate's differs).
    pub rater_error_variance: Option<f64>,
}

/// The paired responses of `pairing` with the score type `trim`
/// (`scale_trim`, `raw_trim`) and its rounded type; `None` when a side
/// lacks one of them.
/// `units`: resample the baseline's test takers (its `candidates`).
pub fn align(
    b: &Responses,
    c: &Responses,
    pairing: &Pairing,
    trim: &str,
    units: bool,
) -> Option<Aligned> {
    let round = format!("{trim}_round");
    let (bt, br) = (b.score(trim)?, b.score(&round)?);
    let (ct, cr) = (c.score(trim)?, c.score(&round)?);
    let pick = |v: &[f64], side: usize| -> Vec<f64> {
        pairing
            .pairs
            .iter()
            .map(|&(i, j)| v[if side == 0 { i } else { j } as usize])
            .collect()
    };
    let h2 = if pairing.sc2_compared {
        b.sc2.as_deref().map(|v| pick(v, 0))
    } else {
        None
    };
    Some(Aligned {
        h: pick(&b.sc1, 0),
        h2,
        scores: [pick(bt, 0), pick(br, 0), pick(ct, 1), pick(cr, 1)],
        units: b.candidates.as_ref().filter(|_| units).map(|codes| {
            pairing
                .pairs
                .iter()
                .map(|&(i, _)| codes[i as usize])
                .collect()
        }),
        rater_error_variance: b.rater_error_variance,
    })
}

/// The score columns' names in the statistics' keys.
const SIDES: [&str; 4] = ["baseline", "baseline_round", "candidate", "candidate_round"];

/// One side's responses for the unpaired comparison (compare spec 2.4):
/// its human scores, second human scores, and trimmed and rounded scores.
#[derive(Clone, Copy, Debug)]
pub struct Side<'a> {
    pub h: &'a [f64],
    pub h2: Option<&'a [f64]>,
    pub trim: &'a [f64],
    pub round: &'a [f64],
    /// Each response's test taker, when whole test takers are resampled.
    pub units: Option<&'a [u32]>,
    /// Its build's configured rater error variance.
    pub rater_error_variance: Option<f64>,
}

impl<'a> Side<'a> {
    /// The side `r` with the score type `trim` and its rounded type;
    /// `None` when `r` lacks one of them. `with_h2`: use the second human
    /// scores (only when both sides have them); `units`: resample its test
    /// takers (`candidates`, when it has them).
    pub fn of(r: &'a Responses, trim: &str, with_h2: bool, units: bool) -> Option<Self> {
        Some(Side {
            h: &r.sc1,
            h2: r.sc2.as_deref().filter(|_| with_h2),
            trim: r.score(trim)?,
            round: r.score(&format!("{trim}_round"))?,
            units: r.candidates.as_deref().filter(|_| units),
            rater_error_variance: r.rater_error_variance,
        })
    }
}

/// The estimates on the full data and the replicates of one run of the
/// statistics.
struct Run {
    rep: Replicated,
    estimates: Vec<f64>,
}

impl Run {
    /// The estimate and replicates of a key, `None` when not computed.
    fn get(&self, table: &str, row: &str, metric: &str) -> Option<(f64, Vec<f64>)> {
        let i = self.rep.key(table, row, metric)?;
        Some((self.estimates[i], self.rep.column(i)))
    }
}

/// The whole-set statistics of the score columns `scores` (named `names`)
/// against `h` on one resampling of the responses: replicate `b` of
/// `stream` draws the same responses for every column.
/// `units`: each response's test taker when whole test takers are
/// resampled.
/// `rev`: the configured rater error variance; PRMSE is computed with a
/// second human score or with it (as `build` writes `true_score_eval`).
fn overall_run(
    (h, h2, rev): (&[f64], Option<&[f64]>, Option<f64>),
    (scores, units): (&[&[f64]], Option<&[u32]>),
    names: &[&'static str],
    settings: &Intervals,
    stream: u64,
) -> Run {
    let spec = Overall {
        score_names: names.to_vec(),
        centres: scores.iter().map(|s| Centres::of(h, s)).collect(),
        hh: h2.map(|h2| {
            let (a, b): (Vec<f64>, Vec<f64>) = h
                .iter()
                .zip(h2)
                .filter(|(_, b)| !b.is_nan())
                .map(|(&a, &b)| (a, b))
                .unzip();
            Centres::of(&a, &b)
        }),
        true_score: (h2.is_some() || rev.is_some()).then_some(rev),
        true_score_all: None,
    };
    let blocks = Blocks::deal(h.len(), units, None, 1, MAX_BLOCKS, settings.seed ^ stream);
    let (zero, sums) = overall_sums(&spec, &blocks, h, h2, h2, scores);
    let run = Replicates::new(settings);
    let rep = replicate(&run, stream, &blocks, &sums, &zero, &|t, put| {
        overall(&spec, &t[0], put)
    });
    let ones = vec![1u32; blocks.len()];
    let full = stratum_totals(&blocks, &sums, &ones, &zero).swap_remove(0);
    let mut estimates = Vec::with_capacity(rep.keys.len());
    overall(&spec, &full, &mut |_, _, _, v| estimates.push(v));
    Run { rep, estimates }
}

/// The verdict rows of the whole-set headline statistics; `margin` gives a
/// statistic's margin when the comparison configures one.
pub fn overall_deltas(
    data: &Aligned,
    settings: &Intervals,
    margin: &dyn Fn(&Statistic) -> f64,
) -> Vec<VerdictRow> {
    let scores: Vec<&[f64]> = data.scores.iter().map(Vec::as_slice).collect();
    let run = overall_run(
        (&data.h, data.h2.as_deref(), data.rater_error_variance),
        (&scores, data.units.as_deref()),
        &SIDES,
        settings,
        0,
    );
    HEADLINE
        .iter()
        .filter_map(|st| row(st, [&run, &run], settings.level, margin(st), true))
        .collect()
}

/// The candidate's streams in the unpaired comparison: apart from the
/// baseline's (which are those of the paired comparison).
const CANDIDATE_STREAM: u64 = 1 << 40;

/// The verdict rows of the whole-set headline statistics when the two
/// sides share no response (compare spec 2.4): each side resampled on its
/// own, `Δ*` from independent replicates.
pub fn unpaired_overall_deltas(
    sides: [Side; 2],
    settings: &Intervals,
    margin: &dyn Fn(&Statistic) -> f64,
) -> Vec<VerdictRow> {
    let runs: Vec<Run> = sides
        .iter()
        .zip([(0, &SIDES[..2]), (CANDIDATE_STREAM, &SIDES[2..])])
        .map(|(s, (stream, names))| {
            let h2 = s.h2.filter(|_| sides.iter().all(|x| x.h2.is_some()));
            overall_run(
                (s.h, h2, s.rater_error_variance),
                (&[s.trim, s.round], s.units),
                names,
                settings,
                stream,
            )
        })
        .collect();
    HEADLINE
        .iter()
        .filter_map(|st| row(st, [&runs[0], &runs[1]], settings.level, margin(st), false))
        .collect()
}

/// One version's estimate and percentile interval of a statistic.
#[derive(Clone, Debug, PartialEq)]
pub struct VersionEstimate {
    /// A headline statistic's name (`wtkappa`, `PRMSE`) or `hh.wtkappa`,
    /// `hh.corr` for the agreement of the two human scores.
    pub name: &'static str,
    pub value: (f64, f64, f64),
}

/// The human-human statistics of [`side_estimates`]: name, and metric of
/// the `consistency` table.
pub const HUMAN_HUMAN: [(&str, &str); 2] = [("hh.wtkappa", "wtkappa"), ("hh.corr", "corr")];

/// One version's own run of the headline statistics: its responses
/// resampled on their own (stream 0), its two score columns named as the
/// baseline's. What [`side_estimates`] reports, and, for two versions of
/// the same responses, the two halves of their paired run
/// ([`SideRun::deltas`]).
pub struct SideRun {
    run: Run,
    level: f64,
}

/// The run of `side` (the baseline side of [`unpaired_overall_deltas`]:
/// same stream, same replicates).
pub fn side_run(side: Side, settings: &Intervals) -> SideRun {
    let run = overall_run(
        (side.h, side.h2, side.rater_error_variance),
        (&[side.trim, side.round], side.units),
        &SIDES[..2],
        settings,
        0,
    );
    SideRun {
        run,
        level: settings.level,
    }
}

impl SideRun {
    /// The headline statistics with their percentile intervals, then the
    /// agreement of the two human scores.
    pub fn estimates(&self) -> Vec<VersionEstimate> {
        let interval = |(est, reps): (f64, Vec<f64>)| {
            let i = percentile_interval(&reps, self.level);
            (est, i.lower, i.upper)
        };
        let headline = HEADLINE.iter().filter_map(|st| {
            let row = SIDES[usize::from(st.rounded)];
            let value = interval(self.run.get(st.table, row, st.metric)?);
            Some(VersionEstimate {
                name: st.name,
                value,
            })
        });
        let hh = HUMAN_HUMAN.iter().filter_map(|&(name, metric)| {
            let value = interval(self.run.get("consistency", "", metric)?);
            Some(VersionEstimate { name, value })
        });
        headline.chain(hh).collect()
    }

    /// The paired verdict rows of `candidate` against `self`, from the two
    /// sides' own runs. Only for two versions of the same responses (the
    /// same ids in the same order, the same human scores bit for bit, the
    /// same resampling units): then both runs drew the same blocks in
    /// every replicate, each column's sums and statistics are computed
    /// exactly as in the paired run of [`overall_deltas`], and the rows are
    /// that run's, bit for bit (a test checks it).
    pub fn deltas(
        &self,
        candidate: &SideRun,
        margin: &dyn Fn(&Statistic) -> f64,
    ) -> Vec<VerdictRow> {
        HEADLINE
            .iter()
            .filter_map(|st| {
                let name = SIDES[usize::from(st.rounded)];
                let b = self.run.get(st.table, name, st.metric)?;
                let c = candidate.run.get(st.table, name, st.metric)?;
                Some(delta_row(st, [b, c], self.level, margin(st), Rules::PAIRED))
            })
            .collect()
    }
}

/// One version's headline statistics on its own responses with their
/// percentile intervals, then the agreement of its two human scores: the
/// numbers of the baseline side of [`unpaired_overall_deltas`] (same
/// stream, same replicates).
pub fn side_estimates(side: Side, settings: &Intervals) -> Vec<VersionEstimate> {
    side_run(side, settings).estimates()
}

/// The row of one statistic from the runs of `[baseline, candidate]`,
/// `None` when it is not computed (no second human score for PRMSE and
/// degradation).
fn row(
    st: &Statistic,
    runs: [&Run; 2],
    level: f64,
    margin: f64,
    paired: bool,
) -> Option<VerdictRow> {
    let side = |k: usize| SIDES[k + usize::from(st.rounded)];
    let b = runs[0].get(st.table, side(0), st.metric)?;
    let c = runs[1].get(st.table, side(2), st.metric)?;
    let rules = Rules { paired, holm: None };
    Some(delta_row(st, [b, c], level, margin, rules))
}

/// Both sides' estimates and intervals, the signed difference and the
/// oriented gain with their paired intervals, the gain's p-value and the
/// verdict, from each side's estimate and replicates `[baseline,
/// candidate]` (replicate `b` of both from one resample), scope `overall`.
fn delta_row(
    st: &Statistic,
    sides: [(f64, Vec<f64>); 2],
    level: f64,
    margin: f64,
    rules: Rules,
) -> VerdictRow {
    let [(eb, b), (ec, c)] = sides;
    let deltas: Vec<f64> = b.iter().zip(&c).map(|(x, y)| y - x).collect();
    let gains: Vec<f64> = b.iter().zip(&c).map(|(x, y)| st.gain(*x, *y)).collect();
    let with_interval =
        |est: f64, reps: &[f64]| Estimate::with(est, &percentile_interval(reps, level));
    let gain = with_interval(st.gain(eb, ec), &gains);
    ComparisonRow {
        baseline_system: 0,
        candidate_system: 1,
        scope: "overall".into(),
        statistic: st.name.to_string(),
        baseline: with_interval(eb, &b),
        candidate: with_interval(ec, &c),
        delta: with_interval(ec - eb, &deltas),
        gain,
        p_value: bootstrap_p_value(&gains),
        p_holm: f64::NAN,
        verdict: verdict(gain.lower, gain.upper, margin, rules),
        margin,
        paired: rules.paired,
        extra: Compared {
            statistic: *st,
            cross_check: None,
        },
    }
}

/// The direction of a signed statistic's change in words, where it
/// matters (compare spec 2.2, amended): for `SMD` (`DSM` of `level`), where
/// the system's scores lie against the human scores on each side, a sign
/// flip written out, and whether the candidate is closer to 0; `None` for
/// the other statistics or without both estimates.
pub fn direction(row: &VerdictRow, level: Option<&str>) -> Option<String> {
    let st = &row.extra.statistic;
    let (b, c) = (row.baseline.value, row.candidate.value);
    if !st.absolute || !b.is_finite() || !c.is_finite() {
        return None;
    }
    let (whose, reference) = match level {
        Some(l) => (
            format!("the system's scores for {l}"),
            "its human scores (relative to all responses)",
        ),
        None => (
            "the system's scores".to_string(),
            "the human scores on average",
        ),
    };
    let side = |x: f64| {
        if x > 0.0 {
            "above"
        } else if x < 0.0 {
            "below"
        } else {
            "level with"
        }
    };
    let moved = format!("{} moved from {b:+.3} to {c:+.3}", st.name);
    let now = if side(b) != side(c) && b != 0.0 && c != 0.0 {
        format!(
            "the sign flipped: {whose} are now {} {reference} (before: {})",
            side(c),
            side(b)
        )
    } else {
        format!("{whose} are {} {reference}", side(c))
    };
    let distance = match row.gain.value {
        g if g > 0.0 => format!("{:.3} closer to 0", g),
        g if g < 0.0 => format!("{:.3} farther from 0", -g),
        _ => "as far from 0 as before".to_string(),
    };
    Some(format!("{moved}: {now}; {distance}."))
}

/// The row of one statistic from stored estimates only (no per-response
/// files, compare spec 2.4): the difference without interval, p-value or
/// verdict (`not testable`).
pub fn stored_row(st: &Statistic, baseline: f64, candidate: f64) -> VerdictRow {
    let nan = f64::NAN;
    ComparisonRow {
        baseline_system: 0,
        candidate_system: 1,
        scope: "overall".into(),
        statistic: st.name.to_string(),
        baseline: Estimate::point(baseline),
        candidate: Estimate::point(candidate),
        delta: Estimate::point(candidate - baseline),
        gain: Estimate::point(st.gain(baseline, candidate)),
        p_value: nan,
        p_holm: nan,
        verdict: Verdict::NotTestable,
        margin: nan,
        paired: false,
        extra: Compared {
            statistic: *st,
            cross_check: None,
        },
    }
}

/// The statistics of each level of a subgroup (compare spec 2.5, 6), on
/// the trimmed scores, as the `eval_by_<g>` tables compute them.
pub const BY_LEVEL: [Statistic; 5] = [
    stat("wtkappa", "", "wtkappa"),
    stat("corr", "", "corr"),
    Statistic {
        absolute: true,
        better: Better::Smaller,
        margin: 0.02,
        ..stat("DSM", "", "DSM")
    },
    Statistic {
        better: Better::Smaller,
        ..stat("RMSE", "", "RMSE")
    },
    stat("R2", "", "R2"),
];

/// One level's row of one statistic: its N and the difference, scope
/// `<subgroup>=<level>`, its p-value Holm-adjusted across the levels of the
/// subgroup.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelRow {
    pub level: String,
    /// The level's responses: the paired ones, or the baseline's in an
    /// unpaired comparison.
    pub n: usize,
    /// The candidate's responses of the level (`n` when paired).
    pub n_candidate: usize,
    pub row: VerdictRow,
}

/// Some score columns' by-group sums of one block.
#[derive(Clone, Debug)]
struct SidesGroups(Vec<GroupSums>);

impl Additive for SidesGroups {
    fn add_scaled(&mut self, other: &Self, w: f64) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            a.add_scaled(b, w);
        }
    }
}

/// One side of a by-level run: its name in the keys, trimmed and rounded
/// scores.
type Columns<'a> = (&'static str, &'a [f64], &'a [f64]);

/// The by-level statistics of the score columns `sides` against `h`:
/// `codes[i]` is the level (an index into `labels`) of response `i`.
/// Resampled within levels (the stratified bootstrap of the by-group
/// intervals); `stream` keeps each subgroup's replicates independent of
/// the others'.
fn group_run(
    h: &[f64],
    (sides, units): (&[Columns], Option<&[u32]>),
    codes: &[u32],
    labels: &[String],
    stream: u64,
    settings: &Intervals,
) -> Run {
    let specs: Vec<ByGroup> = sides
        .iter()
        .map(|&(name, trim, round)| {
            let mut spec = ByGroup::new(
                "",
                labels.to_vec(),
                (name, Centres::of(h, trim)),
                (name, Centres::of(h, round)),
            );
            spec.table = name.to_string();
            spec
        })
        .collect();
    let zero = SidesGroups(
        specs
            .iter()
            .map(|s| GroupSums {
                trim: PairSums::zero(&s.trim),
                round: PairSums::zero(&s.round),
            })
            .collect(),
    );
    let seed = settings.seed ^ stream;
    let blocks = Blocks::deal(h.len(), units, Some(codes), labels.len(), MAX_BLOCKS, seed);
    let sums = block_sums(&blocks, &zero, |t, i| {
        for ((g, spec), &(_, trim, round)) in t.0.iter_mut().zip(&specs).zip(sides) {
            g.trim.push(&spec.trim, h[i], trim[i]);
            g.round.push(&spec.round, h[i], round[i]);
        }
    });
    let stat = |t: &[SidesGroups], put: &mut crate::analysis::intervals::stats::Put| {
        for (k, spec) in specs.iter().enumerate() {
            let levels: Vec<GroupSums> = t.iter().map(|x| x.0[k].clone()).collect();
            by_group(spec, &levels, put);
        }
    };
    let run = Replicates::new(settings);
    let rep = replicate(&run, stream, &blocks, &sums, &zero, &stat);
    let ones = vec![1u32; blocks.len()];
    let full = stratum_totals(&blocks, &sums, &ones, &zero);
    let mut estimates = Vec::with_capacity(rep.keys.len());
    stat(&full, &mut |_, _, _, v| estimates.push(v));
    Run { rep, estimates }
}

/// How many of `codes` are each level's (`n_levels` levels).
fn level_counts(codes: &[u32], n_levels: usize) -> Vec<usize> {
    let mut counts = vec![0usize; n_levels];
    for &c in codes {
        counts[c as usize] += 1;
    }
    counts
}

/// The by-level rows of one subgroup: `codes[i]` is the level (an index
/// into `labels`) of paired response `i`. Both versions are computed on
/// one resample within levels.
pub fn group_deltas(
    group: &str,
    data: &Aligned,
    codes: &[u32],
    labels: &[String],
    stream: u64,
    settings: &Intervals,
    margin: &dyn Fn(&Statistic) -> f64,
) -> Vec<LevelRow> {
    let [bt, br, ct, cr] = &data.scores;
    let sides = [
        ("baseline", &bt[..], &br[..]),
        ("candidate", &ct[..], &cr[..]),
    ];
    let run = group_run(
        &data.h,
        (&sides, data.units.as_deref()),
        codes,
        labels,
        stream,
        settings,
    );
    let counts: Vec<(&str, usize)> = labels
        .iter()
        .map(String::as_str)
        .zip(level_counts(codes, labels.len()))
        .collect();
    level_rows(
        group,
        [&run, &run],
        [&counts, &counts],
        settings.level,
        (margin, true),
    )
}

/// One side of an unpaired by-level comparison: its responses and each
/// response's level (`codes` into `labels`).
pub type GroupSide<'a> = (Side<'a>, &'a [u32], &'a [String]);

/// The by-level rows of one subgroup when the sides share no response
/// (compare spec 2.4): each side resampled within its own levels, on
/// independent streams; a level present on one side only has no row.
pub fn unpaired_group_deltas(
    group: &str,
    sides: [GroupSide; 2],
    stream: u64,
    settings: &Intervals,
    margin: &dyn Fn(&Statistic) -> f64,
) -> Vec<LevelRow> {
    let run = |k: usize, name: &'static str, s: u64| {
        let (side, codes, labels) = sides[k];
        group_run(
            side.h,
            (&[(name, side.trim, side.round)], side.units),
            codes,
            labels,
            s,
            settings,
        )
    };
    let runs = [
        run(0, "baseline", stream),
        run(1, "candidate", stream | CANDIDATE_STREAM),
    ];
    let counts: Vec<Vec<(&str, usize)>> = sides
        .iter()
        .map(|(_, codes, labels)| {
            labels
                .iter()
                .map(String::as_str)
                .zip(level_counts(codes, labels.len()))
                .collect()
        })
        .collect();
    level_rows(
        group,
        [&runs[0], &runs[1]],
        [&counts[0], &counts[1]],
        settings.level,
        (margin, false),
    )
}

/// The rows of every by-level statistic and every level of the baseline
/// that the candidate has too (in the baseline's level order), scope
/// `<group>=<level>`, with the Holm-adjusted p-values across the levels
/// of each statistic, and the verdicts gated by them (compare spec 2.3).
fn level_rows(
    group: &str,
    runs: [&Run; 2],
    counts: [&[(&str, usize)]; 2],
    level: f64,
    (margin, paired): (&dyn Fn(&Statistic) -> f64, bool),
) -> Vec<LevelRow> {
    let mut out = Vec::new();
    for st in &BY_LEVEL {
        let (mut rows, levels): (Vec<VerdictRow>, Vec<(&str, usize, usize)>) = counts[0]
            .iter()
            .filter_map(|&(label, n)| {
                let n_candidate = counts[1].iter().find(|(l, _)| *l == label)?.1;
                let b = runs[0].get("baseline", label, &format!("{}.baseline", st.metric))?;
                let c = runs[1].get("candidate", label, &format!("{}.candidate", st.metric))?;
                let rules = Rules { paired, holm: None };
                let row = VerdictRow {
                    scope: format!("{group}={label}"),
                    ..delta_row(st, [b, c], level, margin(st), rules)
                };
                Some((row, (label, n, n_candidate)))
            })
            .unzip();
        adjust_holm(&mut rows, level);
        out.extend(
            rows.into_iter()
                .zip(levels)
                .map(|(row, (label, n, n_candidate))| LevelRow {
                    level: label.to_string(),
                    n,
                    n_candidate,
                    row,
                }),
        );
    }
    out
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod cross_check_tests {
    use super::*;

    fn aligned(h: &[f64], b: &[f64], c: &[f64]) -> Aligned {
        Aligned {
            h: h.to_vec(),
            h2: None,
            scores: [b.to_vec(), b.to_vec(), c.to_vec(), c.to_vec()],
            units: None,
            rater_error_variance: None,
        }
    }

    fn row(name: &'static str) -> VerdictRow {
        let st = HEADLINE.iter().find(|s| s.name == name).unwrap();
        stored_row(st, 0.0, 0.0)
    }

    /// McNemar by hand: human [1 2 3 4 2 3 1], baseline agrees on 1, 2, 3
    /// and 7, the candidate on 1, 4, 5, 6 and 7: only the baseline on 2
    /// responses (2, 3), only the candidate on 3 (4, 5, 6). Two-sided
    /// exact p = min(1, 2 P(X <= 2)), X ~ Bin(5, 1/2): 2 (1 + 5 + 10) / 32
    /// = 1. With a candidate that also agrees on 3: only the baseline on 1
    /// response (2), only the candidate on 3 (4, 5, 6): 2 P(X <= 1), X ~
    /// Bin(4, 1/2) = 2 (1 + 4) / 16 = 0.625.
    #[test]
    fn mcnemar_counts_the_discordant_responses() {
        let h = [1.0, 2.0, 3.0, 4.0, 2.0, 3.0, 1.0];
        let b = [1.0, 2.0, 3.0, 3.0, 1.0, 4.0, 1.0];
        let c = [1.0, 3.0, 2.0, 4.0, 2.0, 3.0, 1.0];
        let mut rows = vec![row("exact_agr"), row("wtkappa")];
        add_cross_checks(&mut rows, &aligned(&h, &b, &c), 0.95);
        let x = rows[0].extra.cross_check.unwrap();
        assert_eq!((x.method, x.p_value), ("mcnemar", 1.0));
        assert!(x.lower.is_nan() && x.upper.is_nan());
        assert!(rows[1].extra.cross_check.is_none());
        let c = [1.0, 3.0, 3.0, 4.0, 2.0, 3.0, 1.0];
        let mut rows = vec![row("exact_agr")];
        add_cross_checks(&mut rows, &aligned(&h, &b, &c), 0.95);
        let p = rows[0].extra.cross_check.unwrap().p_value;
        assert!((p - 0.625).abs() < 1e-12, "{p}");
    }

    /// Zou's interval is of r(h, candidate) - r(h, baseline): it brackets
    /// that difference, responses with a missing value are left out, and
    /// swapping the versions mirrors it.
    #[test]
    fn zou_interval_is_oriented_candidate_minus_baseline() {
        let h: Vec<f64> = (0..40).map(|i| f64::from(i % 5 + 1)).collect();
        let b: Vec<f64> = h
            .iter()
            .enumerate()
            .map(|(i, v)| v + [0.9, -1.1, 0.4, -0.2, 1.3][i % 5] * ((i % 3) as f64))
            .collect();
        let mut c: Vec<f64> = h
            .iter()
            .enumerate()
            .map(|(i, v)| v + [0.2, -0.3, 0.1][i % 3])
            .collect();
        c[7] = f64::NAN;
        let keep: Vec<usize> = (0..40).filter(|&i| i != 7).collect();
        let pick = |v: &[f64]| -> Vec<f64> { keep.iter().map(|&i| v[i]).collect() };
        let d = pearson(&pick(&h), &pick(&c)) - pearson(&pick(&h), &pick(&b));
        assert!(d > 0.0);
        let mut rows = vec![row("corr")];
        add_cross_checks(&mut rows, &aligned(&h, &b, &c), 0.95);
        let x = rows[0].extra.cross_check.unwrap();
        assert_eq!(x.method, "zou");
        assert!(x.lower < d && d < x.upper, "{x:?} around {d}");
        assert!(x.p_value.is_nan());
        let mut rows = vec![row("corr")];
        add_cross_checks(&mut rows, &aligned(&h, &c, &b), 0.95);
        let y = rows[0].extra.cross_check.unwrap();
        assert!((y.lower + x.upper).abs() < 1e-12 && (y.upper + x.lower).abs() < 1e-12);
    }
}
