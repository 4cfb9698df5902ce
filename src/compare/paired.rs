//! Command assembly (compare): the paired differences of the whole-set
//! headline statistics (compare spec 2.2, 2.3). The responses both folders
//! share ([`super::pairing`]) are resampled once per replicate and both
//! versions' statistics are computed on that resample by the code of the
//! intervals ([`crate::sections::intervals::stats::overall`], the same
//! sums and metric functions as `build`), so `Δ* = candidate* - baseline*`
//! is paired by construction.
//!
//! Pure: no I/O.

use crate::compare::pairing::Pairing;
use crate::config::intervals::Intervals;
use crate::input::archive::Responses;
use crate::metrics::bootstrap::percentile_interval;
use crate::metrics::pair_sums::Centres;
use crate::metrics::pair_sums::PairSums;
use crate::metrics::paired::{bootstrap_p_value, holm, verdict, Better, Verdict};
use crate::sections::intervals::design::{
    block_sums, stratum_totals, Additive, Blocks, MAX_BLOCKS,
};
use crate::sections::intervals::stats::{by_group, overall, ByGroup, GroupSums, Overall};
use crate::sections::intervals::{overall_sums, replicate, Replicated, Replicates};

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

/// One row of the verdict table.
#[derive(Clone, Debug, PartialEq)]
pub struct DeltaRow {
    pub statistic: Statistic,
    /// Estimate and percentile interval of each side on the paired
    /// responses.
    pub baseline: (f64, f64, f64),
    pub candidate: (f64, f64, f64),
    /// `candidate - baseline` (of the absolute values for `SMD`), with its
    /// paired percentile interval.
    pub delta: (f64, f64, f64),
    pub p_value: f64,
    pub verdict: Verdict,
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
}

/// The paired responses of `pairing` with the score type `trim`
/// (`scale_trim`, `raw_trim`) and its rounded type; `None` when a side
/// lacks one of them.
pub fn align(b: &Responses, c: &Responses, pairing: &Pairing, trim: &str) -> Option<Aligned> {
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
    })
}

/// The score columns' names in the statistics' keys.
const SIDES: [&str; 4] = ["baseline", "baseline_round", "candidate", "candidate_round"];

/// The verdict rows of the whole-set headline statistics; `margin` gives a
/// statistic's margin when the comparison configures one.
pub fn overall_deltas(
    data: &Aligned,
    settings: &Intervals,
    margin: &dyn Fn(&Statistic) -> f64,
) -> Vec<DeltaRow> {
    let spec = Overall {
        score_names: SIDES.to_vec(),
        centres: data
            .scores
            .iter()
            .map(|s| Centres::of(&data.h, s))
            .collect(),
        hh: data.h2.as_deref().map(|h2| {
            let (a, b): (Vec<f64>, Vec<f64>) = data
                .h
                .iter()
                .zip(h2)
                .filter(|(_, b)| !b.is_nan())
                .map(|(&a, &b)| (a, b))
                .unzip();
            Centres::of(&a, &b)
        }),
        true_score: data.h2.as_ref().map(|_| None),
    };
    let blocks = Blocks::deal(data.h.len(), None, None, 1, MAX_BLOCKS, settings.seed);
    let scores: Vec<&[f64]> = data.scores.iter().map(Vec::as_slice).collect();
    let h2 = data.h2.as_deref();
    let (zero, sums) = overall_sums(&spec, &blocks, &data.h, h2, h2, &scores);
    let run = Replicates::new(settings);
    let rep = replicate(&run, 0, &blocks, &sums, &zero, &|t, put| {
        overall(&spec, &t[0], put)
    });
    let ones = vec![1u32; blocks.len()];
    let full = stratum_totals(&blocks, &sums, &ones, &zero).swap_remove(0);
    let mut estimates = vec![f64::NAN; rep.keys.len()];
    let mut s = 0;
    overall(&spec, &full, &mut |_, _, _, v| {
        estimates[s] = v;
        s += 1;
    });
    HEADLINE
        .iter()
        .filter_map(|st| row(st, &rep, &estimates, settings.level, margin(st)))
        .collect()
}

/// The row of one statistic, `None` when it is not computed (no second
/// human score for PRMSE and degradation).
fn row(
    st: &Statistic,
    rep: &Replicated,
    estimates: &[f64],
    level: f64,
    margin: f64,
) -> Option<DeltaRow> {
    let side = |k: usize| SIDES[k + usize::from(st.rounded)];
    let ib = rep.key(st.table, side(0), st.metric)?;
    let ic = rep.key(st.table, side(2), st.metric)?;
    let sides = [
        (estimates[ib], rep.column(ib)),
        (estimates[ic], rep.column(ic)),
    ];
    Some(delta_row(st, sides, level, margin))
}

/// Both sides' estimates and intervals, the difference (of the absolute
/// values for `absolute` statistics) with its paired interval, p-value and
/// verdict, from each side's estimate and replicates `[baseline,
/// candidate]` (replicate `b` of both from one resample).
fn delta_row(st: &Statistic, sides: [(f64, Vec<f64>); 2], level: f64, margin: f64) -> DeltaRow {
    let [(eb, b), (ec, c)] = sides;
    let f = |v: f64| if st.absolute { v.abs() } else { v };
    let deltas: Vec<f64> = b.iter().zip(&c).map(|(x, y)| f(*y) - f(*x)).collect();
    let with_interval = |est: f64, reps: &[f64]| {
        let i = percentile_interval(reps, level);
        (est, i.lower, i.upper)
    };
    let delta = with_interval(f(ec) - f(eb), &deltas);
    DeltaRow {
        statistic: *st,
        baseline: with_interval(eb, &b),
        candidate: with_interval(ec, &c),
        delta,
        p_value: bootstrap_p_value(&deltas),
        verdict: verdict(delta.1, delta.2, st.better, margin),
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

/// One level's row of one statistic: its N, the paired difference, and
/// the p-value Holm-adjusted across the levels of the subgroup.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelRow {
    pub level: String,
    pub n: usize,
    pub row: DeltaRow,
    pub p_holm: f64,
}

/// Both versions' by-group sums of one block.
#[derive(Clone, Debug)]
struct BothGroups {
    b: GroupSums,
    c: GroupSums,
}

impl Additive for BothGroups {
    fn add_scaled(&mut self, other: &Self, w: f64) {
        self.b.add_scaled(&other.b, w);
        self.c.add_scaled(&other.c, w);
    }
}

/// The by-level rows of one subgroup: `codes[i]` is the level (an index
/// into `labels`) of paired response `i`. Resampled within levels (the
/// stratified bootstrap of the by-group intervals); `stream` keeps each
/// subgroup's replicates independent of the others'.
pub fn group_deltas(
    data: &Aligned,
    codes: &[u32],
    labels: &[String],
    stream: u64,
    settings: &Intervals,
    margin: &dyn Fn(&Statistic) -> f64,
) -> Vec<LevelRow> {
    let spec = |name: &str, k: usize| {
        let mut spec = ByGroup::new(
            "",
            labels.to_vec(),
            (name, Centres::of(&data.h, &data.scores[k])),
            (name, Centres::of(&data.h, &data.scores[k + 1])),
        );
        spec.table = name.to_string();
        spec
    };
    let (sb, sc) = (spec("baseline", 0), spec("candidate", 2));
    let zero = BothGroups {
        b: GroupSums {
            trim: PairSums::zero(&sb.trim),
            round: PairSums::zero(&sb.round),
        },
        c: GroupSums {
            trim: PairSums::zero(&sc.trim),
            round: PairSums::zero(&sc.round),
        },
    };
    let seed = settings.seed ^ stream;
    let blocks = Blocks::deal(
        data.h.len(),
        None,
        Some(codes),
        labels.len(),
        MAX_BLOCKS,
        seed,
    );
    let [bt, br, ct, cr] = &data.scores;
    let sums = block_sums(&blocks, &zero, |t, i| {
        let h = data.h[i];
        t.b.trim.push(&sb.trim, h, bt[i]);
        t.b.round.push(&sb.round, h, br[i]);
        t.c.trim.push(&sc.trim, h, ct[i]);
        t.c.round.push(&sc.round, h, cr[i]);
    });
    let stat = |t: &[BothGroups], put: &mut crate::sections::intervals::stats::Put| {
        let (lb, lc): (Vec<GroupSums>, Vec<GroupSums>) =
            t.iter().map(|x| (x.b.clone(), x.c.clone())).unzip();
        by_group(&sb, &lb, put);
        by_group(&sc, &lc, put);
    };
    let run = Replicates::new(settings);
    let rep = replicate(&run, stream, &blocks, &sums, &zero, &stat);
    let ones = vec![1u32; blocks.len()];
    let full = stratum_totals(&blocks, &sums, &ones, &zero);
    let mut estimates = Vec::with_capacity(rep.keys.len());
    stat(&full, &mut |_, _, _, v| estimates.push(v));
    let mut counts = vec![0usize; labels.len()];
    for &c in codes {
        counts[c as usize] += 1;
    }
    let mut out = Vec::new();
    for st in &BY_LEVEL {
        let mut rows: Vec<LevelRow> = labels
            .iter()
            .zip(&counts)
            .filter_map(|(label, &n)| {
                let ib = rep.key("baseline", label, &format!("{}.baseline", st.metric))?;
                let ic = rep.key("candidate", label, &format!("{}.candidate", st.metric))?;
                let sides = [
                    (estimates[ib], rep.column(ib)),
                    (estimates[ic], rep.column(ic)),
                ];
                Some(LevelRow {
                    level: label.clone(),
                    n,
                    row: delta_row(st, sides, settings.level, margin(st)),
                    p_holm: f64::NAN,
                })
            })
            .collect();
        let adjusted = holm(&rows.iter().map(|r| r.row.p_value).collect::<Vec<_>>());
        for (r, p) in rows.iter_mut().zip(adjusted) {
            r.p_holm = p;
        }
        out.extend(rows);
    }
    out
}

#[cfg(test)]
mod tests;
