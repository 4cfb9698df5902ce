//! Stage 5: confidence intervals on the headline numbers (uncertainty
//! spec 2-4.1). The bootstrap resamples sampling units (responses, or test
//! takers as clusters), stratified by level for the by-group tables; every
//! statistic of a replicate comes from that replicate's additive sums
//! ([`design`]) through the same metric functions as the point estimates
//! ([`stats`]). Percentile intervals, with the analytic intervals of the
//! spec beside them as a cross-check; the estimate of every row is the
//! source table's cell.
//!
//! Pure: reads the prepared data and the analysis, writes nothing; the
//! `_ci` tables are [`Frame`]s like every other table. Replicate `b` is
//! drawn from its own generator seeded by `(seed, b)`, so the bytes do not
//! depend on the number of threads.

pub mod design;
pub mod stats;
#[cfg(test)]
mod tests;

use crate::preprocess::{Grouping, Prepared};
use rsmreport_config::intervals::Intervals;
use rsmreport_core::table::{Column, Frame, Values};
use rsmreport_metrics::bootstrap::{
    fisher_z_interval, kappa_fce_interval, percentile_interval, replicate_rng, wilson_interval,
    Interval,
};
use rsmreport_metrics::pair_sums::{Centres, PairSums};
use rsmreport_metrics::prmse::TrueScoreSums;
use rsmreport_metrics::round_half_even;

use design::{block_sums, stratum_totals, Additive, Blocks, MAX_BLOCKS};
use stats::{ByGroup, GroupSums, Overall, OverallSums};

/// One statistic with its intervals.
#[derive(Clone, Debug, PartialEq)]
pub struct CiRow {
    /// The source table's row label (score type, group level).
    pub row: String,
    pub metric: String,
    /// The source table's cell.
    pub estimate: f64,
    /// Percentile interval, bootstrap SE and valid replicates.
    pub interval: Interval,
    /// The analytic interval (NaN where the spec has none).
    pub analytic: (f64, f64),
}

/// The intervals of one source table (`<source>_ci`).
#[derive(Clone, Debug, PartialEq)]
pub struct CiTable {
    pub source: String,
    /// Units resampled (all strata together).
    pub n_units: usize,
    pub rows: Vec<CiRow>,
}

/// Every interval of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct IntervalResults {
    pub settings: Intervals,
    pub tables: Vec<CiTable>,
}

impl IntervalResults {
    /// The row of `metric` in `row` of the `_ci` table of `source`.
    pub fn get(&self, source: &str, row: &str, metric: &str) -> Option<&CiRow> {
        self.tables
            .iter()
            .find(|t| t.source == source)?
            .rows
            .iter()
            .find(|r| r.row == row && r.metric == metric)
    }
}

/// The intervals of every statistic of spec 3. `frames` are the run's
/// tables (the estimates are read from them); `candidates` are the test
/// taker codes of the responses (required for the candidate unit);
/// `rater_error_variance` as configured.
pub fn compute(
    settings: &Intervals,
    prep: &Prepared,
    frames: &[Frame],
    candidates: Option<&[u32]>,
    rater_error_variance: Option<f64>,
) -> IntervalResults {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    compute_with_threads(
        settings,
        prep,
        frames,
        candidates,
        rater_error_variance,
        threads,
    )
}

/// [`compute`] with `threads` threads (at most 8) for each table's
/// replicates; the by-group tables run beside the overall ones, so up to
/// twice as many threads may be busy at once. The results do not depend
/// on it.
pub fn compute_with_threads(
    settings: &Intervals,
    prep: &Prepared,
    frames: &[Frame],
    candidates: Option<&[u32]>,
    rater_error_variance: Option<f64>,
    threads: usize,
) -> IntervalResults {
    let run = Replicates {
        settings,
        threads: threads.clamp(1, 8),
    };
    let units = match settings.unit {
        rsmreport_config::intervals::Unit::Candidate => candidates,
        rsmreport_config::intervals::Unit::Response => None,
    };
    let has = |name: &str| frames.iter().any(|f| f.name == name && f.is_writable());
    // The by-group tables are independent of the overall ones: computed on
    // a second thread meanwhile (each table's numbers do not depend on it).
    let by_group = |g_index: usize, g: &Grouping| {
        has(&format!("eval_by_{}", g.name)).then(|| {
            let mut t = group_table(&run, prep, g, g_index, units);
            fill_estimates(&mut t, frames);
            add_group_analytic(&mut t, g, prep.n(), settings.level);
            t
        })
    };
    let (mut tables, groups) = std::thread::scope(|scope| {
        let groups = scope.spawn(|| {
            prep.groups
                .iter()
                .enumerate()
                .filter_map(|(i, g)| by_group(i, g))
                .collect::<Vec<_>>()
        });
        let overall = overall_tables(&run, prep, frames, units, has, rater_error_variance);
        (
            overall,
            groups.join().expect("a by-group interval thread panicked"),
        )
    });
    tables.extend(groups);
    IntervalResults {
        settings: *settings,
        tables,
    }
}

/// Statistic keys `(table, row, metric)` and their replicate values:
/// `values[b * keys.len() + s]`.
pub struct Replicated {
    pub keys: Vec<(String, String, String)>,
    pub values: Vec<f64>,
}

impl Replicated {
    /// The position of a key.
    pub fn key(&self, table: &str, row: &str, metric: &str) -> Option<usize> {
        self.keys
            .iter()
            .position(|(t, r, m)| t == table && r == row && m == metric)
    }

    /// The replicate values of key `s`.
    pub fn column(&self, s: usize) -> Vec<f64> {
        let k = self.keys.len();
        self.values
            .iter()
            .skip(s)
            .step_by(k.max(1))
            .copied()
            .collect()
    }
}

/// The settings and thread count of one computation.
pub struct Replicates<'a> {
    pub settings: &'a Intervals,
    /// Threads (1 to 8); the results do not depend on it.
    pub threads: usize,
}

impl<'a> Replicates<'a> {
    /// On every available core (at most 8).
    pub fn new(settings: &'a Intervals) -> Self {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        Replicates {
            settings,
            threads: threads.clamp(1, 8),
        }
    }
}

/// Runs the replicates of `blocks` in parallel, each turning its stratum
/// totals into statistics with `stat`; replicate `b` of `stream` always
/// draws the same blocks. The keys come from a run on the totals of the
/// full data.
pub fn replicate<T: Additive + Send + Sync>(
    run: &Replicates,
    stream: u64,
    blocks: &Blocks,
    sums: &[T],
    zero: &T,
    stat: &(dyn Fn(&[T], &mut stats::Put) + Sync),
) -> Replicated {
    let ones = vec![1u32; blocks.len()];
    let mut keys = Vec::new();
    stat(
        &stratum_totals(blocks, sums, &ones, zero),
        &mut |t, r, m, _| {
            keys.push((t.to_string(), r.to_string(), m.to_string()));
        },
    );
    let (b_count, s_count) = (run.settings.replicates as usize, keys.len());
    let mut values = vec![f64::NAN; b_count * s_count];
    let seed = run.settings.seed ^ stream.wrapping_mul(0xA076_1D64_78BD_642F);
    let chunk = b_count.div_ceil(run.threads).max(1) * s_count;
    std::thread::scope(|scope| {
        for (part, out) in values.chunks_mut(chunk.max(1)).enumerate() {
            scope.spawn(move || {
                let mut counts = vec![0u32; blocks.len()];
                for (i, row) in out.chunks_mut(s_count.max(1)).enumerate() {
                    let b = (part * chunk / s_count.max(1) + i) as u64;
                    blocks.draw(&mut replicate_rng(seed, b), &mut counts);
                    let totals = stratum_totals(blocks, sums, &counts, zero);
                    let mut s = 0;
                    stat(&totals, &mut |_, _, _, v| {
                        row[s] = v;
                        s += 1;
                    });
                }
            });
        }
    });
    Replicated { keys, values }
}

/// The `_ci` tables of the whole-set statistics.
fn overall_tables(
    run: &Replicates,
    prep: &Prepared,
    frames: &[Frame],
    units: Option<&[u32]>,
    has: impl Fn(&str) -> bool,
    rev: Option<f64>,
) -> Vec<CiTable> {
    let n = prep.n();
    let sc2 = prep.sc2.as_deref().filter(|_| has("consistency"));
    let centres: Vec<Centres> = prep
        .scores
        .iter()
        .map(|s| Centres::of(&prep.sc1, &s.values))
        .collect();
    let hh_centres = sc2.map(|sc2| {
        let (h, s) = double_scored(&prep.sc1, sc2);
        Centres::of(&h, &s)
    });
    let true_score = has("true_score_eval").then_some(rev);
    let others: Vec<&[f64]> = prep
        .other_humans
        .iter()
        .map(|o| o.values.as_slice())
        .collect();
    let true_score_all = has("true_score_eval_all_raters").then_some(rev);
    let spec = Overall {
        score_names: prep.scores.iter().map(|s| s.name).collect(),
        centres,
        hh: hh_centres,
        true_score,
        true_score_all,
    };
    let settings = run.settings;
    let blocks = Blocks::deal(n, units, None, 1, MAX_BLOCKS, settings.seed);
    let scores: Vec<&[f64]> = prep.scores.iter().map(|s| s.values.as_slice()).collect();
    let humans = Humans {
        h: &prep.sc1,
        hh: sc2,
        ts_h2: prep.sc2.as_deref(),
        others: &others,
    };
    let (zero, sums) = overall_sums_of(&spec, &blocks, &humans, &scores);
    let rep = replicate(run, 0, &blocks, &sums, &zero, &|t, put| {
        stats::overall(&spec, &t[0], put)
    });
    let n_units = blocks.units.iter().sum();
    let mut tables = collect(&rep, settings.level, n_units);
    for t in &mut tables {
        fill_estimates(t, frames);
    }
    let ones = vec![1u32; blocks.len()];
    let full = stratum_totals(&blocks, &sums, &ones, &zero).swap_remove(0);
    let inputs = AnalyticInputs {
        prep,
        sc2,
        spec: &spec,
        full: &full,
    };
    add_overall_analytic(&mut tables, &inputs, settings.level);
    tables
}

/// The whole-set sums of every block of `blocks` (and the sums of no
/// response): for each column of `scores`, its pair with the human score
/// `h`; the human-human pair where `hh` (the second score, when
/// `consistency` is computed) has a value; the true-score sums over
/// `ts_h2` (when `spec` computes PRMSE). One pass over the responses.
pub fn overall_sums(
    spec: &Overall,
    blocks: &Blocks,
    h: &[f64],
    hh: Option<&[f64]>,
    ts_h2: Option<&[f64]>,
    scores: &[&[f64]],
) -> (OverallSums, Vec<OverallSums>) {
    let humans = Humans {
        h,
        hh,
        ts_h2,
        others: &[],
    };
    overall_sums_of(spec, blocks, &humans, scores)
}

/// The human score columns of [`overall_sums_of`].
pub struct Humans<'a> {
    /// The first human score, and the second where `consistency` is
    /// computed.
    pub h: &'a [f64],
    pub hh: Option<&'a [f64]>,
    /// The second human score of the true-score sums.
    pub ts_h2: Option<&'a [f64]>,
    /// `other_human_score_columns` (the all-raters true-score sums).
    pub others: &'a [&'a [f64]],
}

/// [`overall_sums`] with the other human score columns: the all-raters
/// true-score sums (when `spec` computes `true_score_eval_all_raters`)
/// add every human rating of a response.
pub fn overall_sums_of(
    spec: &Overall,
    blocks: &Blocks,
    humans: &Humans,
    scores: &[&[f64]],
) -> (OverallSums, Vec<OverallSums>) {
    let Humans {
        h,
        hh,
        ts_h2,
        others,
    } = *humans;
    let zero = OverallSums {
        scores: spec.centres.iter().map(PairSums::zero).collect(),
        hh: spec.hh.as_ref().map(PairSums::zero),
        true_score: spec.true_score.map(|_| TrueScoreSums::zero(scores.len())),
        true_score_all: spec
            .true_score_all
            .map(|_| TrueScoreSums::zero(scores.len())),
    };
    let ts_centre = mean(h);
    let mut all = Vec::with_capacity(2 + others.len());
    let sums = block_sums(blocks, &zero, |t, i| {
        let hi = h[i];
        for ((p, c), s) in t.scores.iter_mut().zip(&spec.centres).zip(scores) {
            p.push(c, hi, s[i]);
        }
        let h2 = hh.map_or(f64::NAN, |v| v[i]);
        if let (Some(p), Some(c)) = (&mut t.hh, &spec.hh) {
            if !h2.is_nan() {
                p.push(c, hi, h2);
            }
        }
        if let Some(ts) = &mut t.true_score {
            let h2 = ts_h2.map_or(f64::NAN, |v| v[i]);
            ts.push(ts_centre, hi, h2, |k| scores[k][i]);
        }
        if let Some(ts) = &mut t.true_score_all {
            all.clear();
            all.push(hi);
            all.push(ts_h2.map_or(f64::NAN, |v| v[i]));
            all.extend(others.iter().map(|o| o[i]));
            ts.push_all(ts_centre, &all, |k| scores[k][i]);
        }
    });
    (zero, sums)
}

/// The `eval_by_<g>_ci` table of one subgroup column.
fn group_table(
    run: &Replicates,
    prep: &Prepared,
    g: &Grouping,
    g_index: usize,
    units: Option<&[u32]>,
) -> CiTable {
    let (trim, round) = (prep.x_trim(), prep.x_trim_round());
    let spec = ByGroup::new(
        &g.name,
        g.labels.clone(),
        (trim.name, Centres::of(&prep.sc1, &trim.values)),
        (round.name, Centres::of(&prep.sc1, &round.values)),
    );
    let zero = GroupSums {
        trim: PairSums::zero(&spec.trim),
        round: PairSums::zero(&spec.round),
    };
    let settings = run.settings;
    let stream = g_index as u64 + 1;
    let blocks = Blocks::deal(
        prep.n(),
        units,
        Some(&g.codes),
        g.labels.len(),
        MAX_BLOCKS,
        settings.seed ^ stream,
    );
    let sums = block_sums(&blocks, &zero, |t, i| {
        let h = prep.sc1[i];
        t.trim.push(&spec.trim, h, trim.values[i]);
        t.round.push(&spec.round, h, round.values[i]);
    });
    let rep = replicate(run, stream, &blocks, &sums, &zero, &|t, put| {
        stats::by_group(&spec, t, put)
    });
    let mut tables = collect(&rep, settings.level, blocks.units.iter().sum());
    tables.pop().unwrap_or(CiTable {
        source: spec.table.clone(),
        n_units: 0,
        rows: Vec::new(),
    })
}

/// Fisher z for the `corr` rows of a by-group table (after the estimates).
fn add_group_analytic(table: &mut CiTable, g: &Grouping, n_all: usize, level: f64) {
    let counts = g.counts();
    for r in &mut table.rows {
        if r.metric.starts_with("corr.") {
            let n = if r.row == rsmreport_core::schema::ALL_DATA {
                n_all
            } else {
                g.labels
                    .iter()
                    .position(|l| l == &r.row)
                    .map_or(0, |c| counts[c])
            };
            r.analytic = fisher_z_interval(r.estimate, n, level);
        }
    }
}

/// Groups replicate values into `_ci` tables (in order of first key).
fn collect(rep: &Replicated, level: f64, n_units: usize) -> Vec<CiTable> {
    let s_count = rep.keys.len();
    let b_count = rep.values.len().checked_div(s_count).unwrap_or(0);
    let mut tables: Vec<CiTable> = Vec::new();
    let mut column = Vec::with_capacity(b_count);
    for (s, (table, row, metric)) in rep.keys.iter().enumerate() {
        column.clear();
        column.extend((0..b_count).map(|b| rep.values[b * s_count + s]));
        let interval = if b_count == 0 {
            Interval::nan()
        } else {
            percentile_interval(&column, level)
        };
        if tables.last().is_none_or(|t| &t.source != table) {
            tables.push(CiTable {
                source: table.clone(),
                n_units,
                rows: Vec::new(),
            });
        }
        if let Some(t) = tables.last_mut() {
            t.rows.push(CiRow {
                row: row.clone(),
                metric: metric.clone(),
                estimate: f64::NAN,
                interval,
                analytic: (f64::NAN, f64::NAN),
            });
        }
    }
    tables
}

/// What the analytic intervals of the whole-set tables are computed from:
/// the full data's sums (the totals of every block once), the centres and
/// the pairs themselves for kappa's table.
struct AnalyticInputs<'a> {
    prep: &'a Prepared,
    sc2: Option<&'a [f64]>,
    spec: &'a Overall,
    full: &'a OverallSums,
}

/// Fisher z for `corr` (at the table's estimate), Wilson for the agreement
/// percentages and the Fleiss-Cohen-Everitt interval for `kappa`, in
/// `eval` and `consistency`. The counts come from the full data's sums, so
/// only kappa's K x K table takes a pass over the responses (one per score
/// type that has a kappa row).
fn add_overall_analytic(tables: &mut [CiTable], x: &AnalyticInputs, level: f64) {
    for t in tables.iter_mut() {
        for r in &mut t.rows {
            let (sums, centres, h, s): (&PairSums, &Centres, &[f64], Option<&[f64]>) =
                match t.source.as_str() {
                    "eval" => {
                        let Some(k) = x.spec.score_names.iter().position(|n| *n == r.row) else {
                            continue;
                        };
                        let values = x.prep.scores[k].values.as_slice();
                        (
                            &x.full.scores[k],
                            &x.spec.centres[k],
                            &x.prep.sc1,
                            Some(values),
                        )
                    }
                    "consistency" => match (&x.full.hh, &x.spec.hh) {
                        (Some(sums), Some(c)) => (sums, c, &x.prep.sc1, x.sc2),
                        _ => continue,
                    },
                    _ => continue,
                };
            let n = sums.n as usize;
            let percent = |(lo, hi): (f64, f64)| (lo * 100.0, hi * 100.0);
            r.analytic = match r.metric.as_str() {
                "corr" => fisher_z_interval(r.estimate, n, level),
                "exact_agr" => percent(wilson_interval(sums.exact, n, level)),
                "adj_agr" => percent(wilson_interval(sums.adjacent, n, level)),
                "kappa" => match s.and_then(|s| label_table(centres, h, s)) {
                    Some((counts, k)) => {
                        let (_, lo, hi) = kappa_fce_interval(&counts, k, level);
                        (lo, hi)
                    }
                    None => (f64::NAN, f64::NAN),
                },
                _ => (f64::NAN, f64::NAN),
            };
        }
    }
}

/// The K x K table of half-to-even rounded labels (rows `h`) of the pairs
/// whose `s` is present (a missing second score is NaN), with the labels
/// of `c`; `None` when a value is not finite or the labels span too far.
fn label_table(c: &Centres, h: &[f64], s: &[f64]) -> Option<(Vec<f64>, usize)> {
    let k = c.labels;
    if k == 0 {
        return None;
    }
    let mut counts = vec![0.0; k * k];
    let mut finite = true;
    for (&a, &b) in h.iter().zip(s) {
        if b.is_nan() {
            continue;
        }
        finite &= a.is_finite() && b.is_finite();
        let i = round_half_even(a) - c.label_lo;
        let j = round_half_even(b) - c.label_lo;
        if finite && i >= 0.0 && j >= 0.0 && (i as usize) < k && (j as usize) < k {
            counts[i as usize * k + j as usize] += 1.0;
        } else {
            return None;
        }
    }
    Some((counts, k))
}

/// Sets each row's estimate to its source table's cell.
fn fill_estimates(t: &mut CiTable, frames: &[Frame]) {
    let Some(frame) = frames.iter().find(|f| f.name == t.source) else {
        return;
    };
    let labels = row_labels(frame);
    for r in &mut t.rows {
        let i = labels.iter().position(|l| l == &r.row);
        let col = frame.column(&r.metric).map(|c| c.values.to_numeric());
        r.estimate = match (i, col) {
            (Some(i), Some(col)) => col[i],
            _ => f64::NAN,
        };
    }
}

fn row_labels(frame: &Frame) -> Vec<String> {
    let Some(index) = &frame.index else {
        return Vec::new();
    };
    (0..index.len())
        .map(|i| match index.cell(i) {
            rsmreport_core::table::Cell::Text(s) => s.to_string(),
            _ => String::new(),
        })
        .collect()
}

/// The double-scored pairs (second score present).
fn double_scored(sc1: &[f64], sc2: &[f64]) -> (Vec<f64>, Vec<f64>) {
    sc1.iter()
        .zip(sc2)
        .filter(|(_, b)| !b.is_nan())
        .map(|(&a, &b)| (a, b))
        .unzip()
}

fn mean(x: &[f64]) -> f64 {
    if x.is_empty() {
        0.0
    } else {
        x.iter().sum::<f64>() / x.len() as f64
    }
}

/// The `_ci` tables as frames (spec 4.1), in the order computed.
pub fn frames(results: &IntervalResults) -> Vec<Frame> {
    let s = &results.settings;
    results
        .tables
        .iter()
        .map(|t| {
            let n = t.rows.len();
            let col = |name: &str, f: &dyn Fn(&CiRow) -> f64| {
                Column::new(name, Values::Float(t.rows.iter().map(f).collect()))
            };
            let text = |name: &str, f: &dyn Fn(&CiRow) -> String| {
                Column::new(
                    name,
                    rsmreport_core::table::text_values(t.rows.iter().map(|r| Some(f(r)))),
                )
            };
            let int = |name: &str, v: Vec<i64>| Column::new(name, Values::Int(v));
            Frame::new(
                format!("{}_ci", t.source),
                None,
                vec![
                    text("row", &|r| r.row.clone()),
                    text("metric", &|r| r.metric.clone()),
                    col("estimate", &|r| r.estimate),
                    col("lower", &|r| r.interval.lower),
                    col("upper", &|r| r.interval.upper),
                    col("lower_analytic", &|r| r.analytic.0),
                    col("upper_analytic", &|r| r.analytic.1),
                    col("se_bootstrap", &|r| r.interval.se),
                    Column::new("level", Values::Float(vec![s.level; n])),
                    text("unit", &|_| s.unit.name().to_string()),
                    int("n_units", vec![t.n_units as i64; n]),
                    int(
                        "replicates_valid",
                        t.rows.iter().map(|r| r.interval.valid as i64).collect(),
                    ),
                ],
            )
        })
        .collect()
}

/// Test-taker codes of the kept responses (in order of first appearance),
/// from the `candidate` column of `test_metadata`; `None` without one.
pub fn candidate_codes(frames: &[Frame]) -> Option<Vec<u32>> {
    let column = frames
        .iter()
        .find(|f| f.name == "test_metadata")?
        .column("candidate")?;
    let mut codes = std::collections::HashMap::new();
    let mut code = |key: String| {
        let next = codes.len() as u32;
        *codes.entry(key).or_insert(next)
    };
    Some(match &column.values {
        Values::Text(cells) => {
            let mut by_text: std::collections::HashMap<Option<&str>, u32> =
                std::collections::HashMap::new();
            cells
                .iter()
                .map(|c| {
                    let next = by_text.len() as u32;
                    *by_text.entry(c.as_deref()).or_insert(next)
                })
                .collect()
        }
        other => (0..other.len())
            .map(|i| code(format!("{:?}", other.cell(i))))
            .collect(),
    })
}
