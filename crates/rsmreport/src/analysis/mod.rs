//! Stage 5: every analysis table of spec 3 and 4, computed from the
//! [`Prepared`] data with the pure functions of `metrics`, as [`Frame`]s in
//! the reference's layout (names, columns, index, cell types).
//!
//! No I/O and no formatting happens here: the output stage turns frames into
//! bytes, and the report stage reads the typed results kept in [`Analysis`].

pub mod agreement;
pub mod fairness;
pub mod intervals;
pub mod raters;
#[cfg(test)]
mod tests;

use crate::preprocess::{Exclusion, Grouping, Prepared};
use rsmreport_config::{Experiment, Number};
use rsmreport_core::schema::ALL_DATA;
use rsmreport_core::table::{Column, Frame, Values};
use rsmreport_metrics::association::Population;
use rsmreport_metrics::block::{metric_block, DiffMethod, MetricBlock};
use rsmreport_metrics::fairness::{fairness_analysis, FairnessResult};
use rsmreport_metrics::prmse::true_score_basis;
use rsmreport_metrics::{round_half_even, summary};
use std::collections::BTreeMap;

/// Everything the analyses computed: the frames to write (in the
/// reference's write order) and typed results the report reads.
#[derive(Clone, Debug)]
pub struct Analysis {
    pub frames: Vec<Frame>,
    /// `eval`: one metric block per score type, in production order.
    pub eval: Vec<(&'static str, MetricBlock)>,
    /// Human-human agreement on the double-scored responses.
    pub consistency: Option<MetricBlock>,
    /// Fairness results per subgroup (when that section is selected).
    pub fairness: Vec<(String, FairnessResult)>,
    /// Agreement among the raters (when the `rater_agreement` section is
    /// selected), or why it could not be computed.
    pub raters: Option<Result<Box<raters::RaterAgreement>, String>>,
    /// The classification view (with `classification = true`), or why it
    /// could not be computed.
    pub classification: Option<Result<raters::Classification, String>>,
}

impl Analysis {
    pub fn frame(&self, name: &str) -> Option<&Frame> {
        self.frames.iter().find(|f| f.name == name)
    }
}

/// Builds every table of the run (the processing frames of `prep` are
/// copied; [`analyze_moving_frames`] avoids the copy).
pub fn analyze(exp: &Experiment, prep: &Prepared) -> Analysis {
    analyze_with(exp, prep, prep.frames.clone())
}

/// [`analyze`], moving the processing frames out of `prep` instead of
/// copying them: they hold the per-response tables, the largest data of a
/// run (copying them cost a fifth of the analysis time and doubled their
/// memory). `prep.frames` is empty afterwards; everything else is unchanged.
pub fn analyze_moving_frames(exp: &Experiment, prep: &mut Prepared) -> Analysis {
    let frames = std::mem::take(&mut prep.frames);
    analyze_with(exp, prep, frames)
}

fn analyze_with(exp: &Experiment, prep: &Prepared, mut frames: Vec<Frame>) -> Analysis {
    // The by-group tables and the fairness analyses (about half of the work)
    // run on a second thread; every number is computed exactly as on one
    // thread and the frames keep the reference's order.
    let ((overall, eval, consistency), (group_frames, fairness)) = std::thread::scope(|scope| {
        let groups = scope.spawn(|| by_group_and_fairness(exp, prep));
        let overall = overall_tables(exp, prep);
        match groups.join() {
            Ok(g) => (overall, g),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    });
    frames.extend(overall);
    frames.extend(group_frames);
    let (raters, classification) = rater_views(exp, prep, &mut frames);
    Analysis {
        frames,
        eval,
        consistency,
        fairness,
        raters,
        classification,
    }
}

/// The rsmreport-only views of agreement spec 1.1 and 4, appended after
/// the reference's tables: the rater agreement (with the
/// `rater_agreement` section) and the classification view (with
/// `classification = true`).
type RaterViews = (
    Option<Result<Box<raters::RaterAgreement>, String>>,
    Option<Result<raters::Classification, String>>,
);

fn rater_views(exp: &Experiment, prep: &Prepared, frames: &mut Vec<Frame>) -> RaterViews {
    let agreement = exp
        .has_section(raters::SECTION)
        .then(|| raters::rater_agreement(exp, prep).map(Box::new));
    if let Some(Ok(r)) = &agreement {
        frames.extend(raters::agreement_frames(r));
    }
    let classification = exp.classification.then(|| raters::classification(prep));
    if let Some(Ok(c)) = &classification {
        frames.extend(raters::classification_frames(c));
    }
    (agreement, classification)
}

/// The frames of [`overall_tables`], the `eval` blocks and the human-human
/// block.
type Overall = (
    Vec<Frame>,
    Vec<(&'static str, MetricBlock)>,
    Option<MetricBlock>,
);

/// The evaluation of the whole data, in the reference's order: the
/// composition tables, `eval`, `eval_short`, the human-human tables, the
/// confusion matrices, `score_dist` and `true_score_eval`.
fn overall_tables(exp: &Experiment, prep: &Prepared) -> Overall {
    let mut frames = Vec::new();
    frames.push(excluded_composition(exp, prep));
    frames.push(data_composition(prep));
    for g in &prep.groups {
        frames.push(data_composition_by(g));
    }

    let eval: Vec<(&'static str, MetricBlock)> = prep
        .scores
        .iter()
        .map(|s| {
            (
                s.name,
                metric_block(&prep.sc1, &s.values, DiffMethod::Unpooled),
            )
        })
        .collect();
    frames.push(eval_frame(&eval));
    frames.push(eval_short_frame(prep, &eval));

    let consistency = prep.sc2.as_ref().map(|sc2| {
        let (h, s) = double_scored(&prep.sc1, sc2, None);
        if h.is_empty() {
            MetricBlock::empty()
        } else {
            metric_block(&h, &s, DiffMethod::Pooled)
        }
    });
    if let Some(c) = &consistency {
        frames.push(consistency_frame(
            "consistency",
            Values::Text(vec![Some("".into())]),
            &[*c],
            "SMD",
        ));
        frames.push(degradation_frame(&eval, c));
        let hm: Vec<f64> = eval.iter().map(|(_, b)| b.corr).collect();
        let hh = vec![c.corr; eval.len()];
        frames.push(disattenuated_frame(
            "disattenuated_correlations",
            text_index(eval.iter().map(|(n, _)| *n)),
            &hm,
            &hh,
        ));
    }
    frames.push(conf_matrix(
        "confMatrix",
        &prep.sc1,
        &prep.x_trim_round().values,
    ));
    frames.push(score_dist(prep));
    if let Some(f) = true_score_eval(exp, prep) {
        frames.push(f);
    }
    if !prep.other_humans.is_empty() {
        frames.push(true_score_eval_all_raters(exp, prep));
    }
    if let Some(sc2) = &prep.sc2 {
        let (h, s) = double_scored(&prep.sc1, sc2, None);
        frames.push(conf_matrix("confMatrix_h1h2", &h, &s));
    }

    (frames, eval, consistency)
}

/// The by-group tables of every subgroup, then (when that section is
/// selected) the fairness tables of every subgroup, with the typed fairness
/// results.
fn by_group_and_fairness(
    exp: &Experiment,
    prep: &Prepared,
) -> (Vec<Frame>, Vec<(String, FairnessResult)>) {
    let mut frames = Vec::new();
    if !prep.groups.is_empty() {
        let all = AllData::new(prep);
        for g in &prep.groups {
            frames.extend(by_group_frames(prep, g, &all));
        }
    }
    let mut fairness = Vec::new();
    if exp.has_section("fairness_analyses") {
        for g in &prep.groups {
            let result = fairness_analysis(&g.codes, &g.labels, &prep.sc1, &prep.x_trim().values);
            frames.extend(fairness::fairness_frames(&g.name, &result));
            fairness.push((g.name.clone(), result));
        }
    }
    (frames, fairness)
}

fn text_index<'a>(labels: impl Iterator<Item = &'a str>) -> Values {
    Values::Text(labels.map(|l| Some(l.into())).collect())
}

fn float_col(name: &str, values: Vec<f64>) -> Column {
    Column::new(name, Values::Float(values))
}

fn int_col(name: &str, values: Vec<i64>) -> Column {
    Column::new(name, Values::Int(values))
}

/// Pairs of (first, second) human scores where the second is present,
/// restricted to `rows` when given.
fn double_scored(sc1: &[f64], sc2: &[f64], rows: Option<&[usize]>) -> (Vec<f64>, Vec<f64>) {
    let mut h = Vec::new();
    let mut s = Vec::new();
    let mut push = |i: usize| {
        if !sc2[i].is_nan() {
            h.push(sc1[i]);
            s.push(sc2[i]);
        }
    };
    match rows {
        Some(rows) => rows.iter().for_each(|&i| push(i)),
        None => (0..sc1.len()).for_each(&mut push),
    }
    (h, s)
}

/// `test_excluded_composition` (spec 3.14, with the decision to always keep
/// the `Human/System` label column).
fn excluded_composition(exp: &Experiment, prep: &Prepared) -> Frame {
    // counts[human category][system category]
    let mut counts = [[0i64; 2]; 3];
    // Classified by the coerced values, as the reference does (listwise
    // exclusions land in the numeric/numeric cell).
    for &(_, h, s) in &prep.excluded {
        let hc = if h.is_nan() {
            2
        } else if h == 0.0 {
            1
        } else {
            0
        };
        let sc = usize::from(s.is_nan());
        counts[hc][sc] += 1;
    }
    let mut first: Vec<Option<i64>> = counts.iter().map(|r| Some(r[0])).collect();
    if !prep.listwise {
        first[0] = None;
    }
    if !exp.exclude_zero_scores {
        first[1] = None;
    }
    let first_values = if first.iter().any(Option::is_none) {
        Values::Float(
            first
                .iter()
                .map(|c| c.map_or(f64::NAN, |x| x as f64))
                .collect(),
        )
    } else {
        Values::Int(first.iter().map(|c| c.unwrap_or(0)).collect())
    };
    Frame::new(
        "test_excluded_composition",
        None,
        vec![
            Column::new(
                "Human/System",
                text_index(
                    [
                        "numeric non-zero human score",
                        "zero human score",
                        "non-numeric human score",
                    ]
                    .into_iter(),
                ),
            ),
            Column::new("numeric system score", first_values),
            int_col(
                "non-numeric system score",
                counts.iter().map(|r| r[1]).collect(),
            ),
        ],
    )
}

/// Number of responses per exclusion reason, in a fixed order.
pub fn exclusion_counts(prep: &Prepared) -> [(Exclusion, usize); 4] {
    let count = |w: Exclusion| prep.excluded.iter().filter(|(why, _, _)| *why == w).count();
    [
        (
            Exclusion::NonNumericHuman,
            count(Exclusion::NonNumericHuman),
        ),
        (Exclusion::ZeroHuman, count(Exclusion::ZeroHuman)),
        (
            Exclusion::NonNumericSystem,
            count(Exclusion::NonNumericSystem),
        ),
        (Exclusion::Listwise, count(Exclusion::Listwise)),
    ]
}

fn data_composition(prep: &Prepared) -> Frame {
    let mut cols = vec![
        Column::new("partition", text_index(["Evaluation"].into_iter())),
        int_col("responses", vec![prep.n() as i64]),
    ];
    if let Some(c) = prep.n_candidates {
        cols.push(int_col("candidates", vec![c as i64]));
    }
    for g in &prep.groups {
        cols.push(int_col(&g.name, vec![g.labels.len() as i64]));
    }
    Frame::new("data_composition", None, cols)
}

fn data_composition_by(g: &Grouping) -> Frame {
    Frame::new(
        format!("data_composition_by_{}", g.name),
        None,
        vec![
            Column::new(
                g.name.clone(),
                text_index(g.labels.iter().map(String::as_str)),
            ),
            int_col(
                "N responses",
                g.counts().into_iter().map(|c| c as i64).collect(),
            ),
        ],
    )
}

use rsmreport_core::schema::{CONSISTENCY_COLUMNS, EVAL_COLUMNS};

/// The value of a named metric of a block (`SMD` and `DSM` are both `diff`).
fn metric(b: &MetricBlock, name: &str) -> f64 {
    match name {
        "N" => b.n as f64,
        "h_mean" => b.h_mean,
        "h_sd" => b.h_sd,
        "h_min" => b.h_min,
        "h_max" => b.h_max,
        "sys_mean" => b.sys_mean,
        "sys_sd" => b.sys_sd,
        "sys_min" => b.sys_min,
        "sys_max" => b.sys_max,
        "corr" => b.corr,
        "wtkappa" => b.wtkappa,
        "R2" => b.r2,
        "kappa" => b.kappa,
        "exact_agr" => b.exact_agr,
        "adj_agr" => b.adj_agr,
        "SMD" | "DSM" => b.diff,
        "RMSE" => b.rmse,
        other => unreachable!("unknown metric {other}"),
    }
}

fn eval_frame(eval: &[(&'static str, MetricBlock)]) -> Frame {
    let mut cols = vec![int_col("N", eval.iter().map(|(_, b)| b.n as i64).collect())];
    for name in &EVAL_COLUMNS[1..] {
        cols.push(float_col(
            name,
            eval.iter().map(|(_, b)| metric(b, name)).collect(),
        ));
    }
    Frame::new("eval", Some(text_index(eval.iter().map(|(n, _)| *n))), cols)
}

/// The short selection of spec 3.6 / 3.12 as (column name, value) pairs,
/// from the `X_trim` and `X_trim_round` blocks; `diff` is `SMD` or `DSM`.
fn short_selection(
    primary: &str,
    trim: &MetricBlock,
    round: &MetricBlock,
    diff: &str,
) -> Vec<(String, f64)> {
    let t = format!("{primary}_trim");
    let r = format!("{primary}_trim_round");
    let mut out = vec![
        ("h_mean".to_string(), trim.h_mean),
        ("h_sd".to_string(), trim.h_sd),
    ];
    for m in ["sys_mean", "sys_sd", "wtkappa", "corr", diff, "RMSE", "R2"] {
        out.push((format!("{m}.{t}"), metric(trim, m)));
    }
    for m in ["sys_mean", "sys_sd", "kappa", "exact_agr", "adj_agr", diff] {
        out.push((format!("{m}.{r}"), metric(round, m)));
    }
    out
}

fn eval_short_frame(prep: &Prepared, eval: &[(&'static str, MetricBlock)]) -> Frame {
    let find = |name: &str| eval.iter().find(|(n, _)| *n == name).map(|(_, b)| *b);
    let trim = find(prep.x_trim().name).expect("X_trim evaluated");
    let round = find(prep.x_trim_round().name).expect("X_trim_round evaluated");
    let mut cols = vec![int_col("N", vec![trim.n as i64])];
    for (name, v) in short_selection(prep.primary, &trim, &round, "SMD") {
        cols.push(float_col(&name, vec![v]));
    }
    Frame::new("eval_short", Some(Values::Int(vec![0])), cols)
}

/// `consistency` / `consistency_by_<g>`: the human-human block, `diff`
/// named `SMD` or `DSM`.
fn consistency_frame(name: &str, index: Values, blocks: &[MetricBlock], diff: &str) -> Frame {
    let mut cols = vec![int_col("N", blocks.iter().map(|b| b.n as i64).collect())];
    for (out, src) in CONSISTENCY_COLUMNS {
        let out = if out == "SMD" { diff } else { out };
        cols.push(float_col(
            out,
            blocks.iter().map(|b| metric(b, src)).collect(),
        ));
    }
    Frame::new(name, Some(index), cols)
}

fn degradation_frame(eval: &[(&'static str, MetricBlock)], hh: &MetricBlock) -> Frame {
    let cols = ["corr", "kappa", "wtkappa", "exact_agr", "adj_agr", "SMD"]
        .iter()
        .map(|m| {
            float_col(
                m,
                eval.iter()
                    .map(|(_, b)| metric(b, m) - metric(hh, m))
                    .collect(),
            )
        })
        .collect();
    Frame::new(
        "degradation",
        Some(text_index(eval.iter().map(|(n, _)| *n))),
        cols,
    )
}

/// `sqrt(r_hh)`, NaN for a negative correlation.
fn sqrt_hh(r: f64) -> f64 {
    if r >= 0.0 {
        r.sqrt()
    } else {
        f64::NAN
    }
}

/// The disattenuated correlation `r_hm / sqrt(r_hh)` (spec 3.10).
fn disattenuated(hm: f64, hh: f64) -> f64 {
    hm / sqrt_hh(hh)
}

fn disattenuated_frame(name: &str, index: Values, hm: &[f64], hh: &[f64]) -> Frame {
    let sqrt_hh: Vec<f64> = hh.iter().map(|&r| sqrt_hh(r)).collect();
    let dis: Vec<f64> = hm
        .iter()
        .zip(hh)
        .map(|(&a, &b)| disattenuated(a, b))
        .collect();
    Frame::new(
        name,
        Some(index),
        vec![
            float_col("corr_HM", hm.to_vec()),
            float_col("corr_HH", hh.to_vec()),
            float_col("sqrt_HH", sqrt_hh),
            float_col("corr_disattenuated", dis),
        ],
    )
}

/// Confusion matrix of half-to-even rounded `h` (rows) against rounded `s`
/// (columns), by counting; labels are the sorted union.
fn conf_matrix(name: &str, h: &[f64], s: &[f64]) -> Frame {
    let key = |x: f64| round_half_even(x) as i64;
    let cells = count_pairs(h.iter().zip(s).map(|(&a, &b)| (key(a), key(b))));
    let labels: std::collections::BTreeSet<i64> = cells.keys().flat_map(|&(a, b)| [a, b]).collect();
    let labels: Vec<i64> = labels.into_iter().collect();
    let cols = labels
        .iter()
        .map(|&c| {
            int_col(
                &c.to_string(),
                labels
                    .iter()
                    .map(|&r| cells.get(&(r, c)).copied().unwrap_or(0))
                    .collect(),
            )
        })
        .collect();
    Frame::new(name, Some(Values::Int(labels.clone())), cols)
}

/// Largest label range counted in a dense array (per dimension).
const DENSE_LABELS: i128 = 256;

/// How often each `(a, b)` pair occurs (only pairs that occur). Counted in
/// a dense `k x k` array when the labels span fewer than [`DENSE_LABELS`]
/// values (scores always do), else in a map.
fn count_pairs(pairs: impl Iterator<Item = (i64, i64)> + Clone) -> BTreeMap<(i64, i64), i64> {
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    for (a, b) in pairs.clone() {
        lo = lo.min(a.min(b));
        hi = hi.max(a.max(b));
    }
    let mut cells: BTreeMap<(i64, i64), i64> = BTreeMap::new();
    if hi >= lo && i128::from(hi) - i128::from(lo) < DENSE_LABELS {
        let k = (hi - lo + 1) as usize;
        let mut dense = vec![0i64; k * k];
        for (a, b) in pairs {
            dense[(a - lo) as usize * k + (b - lo) as usize] += 1;
        }
        for (i, &c) in dense.iter().enumerate() {
            if c > 0 {
                cells.insert((lo + (i / k) as i64, lo + (i % k) as i64), c);
            }
        }
    } else {
        for pair in pairs {
            *cells.entry(pair).or_default() += 1;
        }
    }
    cells
}

/// How often each value occurs (only values that occur), counted like
/// [`count_pairs`].
fn count_values(values: impl Iterator<Item = i64> + Clone) -> BTreeMap<i64, usize> {
    count_pairs(values.map(|v| (v, v)))
        .into_iter()
        .map(|((v, _), c)| (v, c as usize))
        .collect()
}

fn score_dist(prep: &Prepared) -> Frame {
    let human = count_values(prep.sc1.iter().map(|&h| round_half_even(h) as i64));
    let system = count_values(prep.x_trim_round().values.iter().map(|&s| s as i64));
    let labels: std::collections::BTreeSet<i64> =
        human.keys().chain(system.keys()).copied().collect();
    let n = prep.n() as f64;
    let pct = |m: &BTreeMap<i64, usize>, l: i64| 100.0 * m.get(&l).copied().unwrap_or(0) as f64 / n;
    let score: Vec<f64> = labels.iter().map(|&l| l as f64).collect();
    let h: Vec<f64> = labels.iter().map(|&l| pct(&human, l)).collect();
    let s: Vec<f64> = labels.iter().map(|&l| pct(&system, l)).collect();
    let diff: Vec<f64> = s.iter().zip(&h).map(|(a, b)| a - b).collect();
    Frame::new(
        "score_dist",
        Some(Values::Float(score.clone())),
        vec![
            float_col("score", score),
            float_col("human", h),
            float_col(&format!("sys_{}", prep.primary), s),
            float_col("difference", diff),
        ],
    )
}

fn true_score_eval(exp: &Experiment, prep: &Prepared) -> Option<Frame> {
    if prep.sc2.is_none() && exp.rater_error_variance.is_none() {
        return None;
    }
    let mut humans: Vec<&[f64]> = vec![&prep.sc1];
    if let Some(sc2) = &prep.sc2 {
        humans.push(sc2);
    }
    Some(true_score_frame("true_score_eval", exp, prep, &humans))
}

/// `true_score_eval_all_raters` (agreement spec 5): PRMSE from every human
/// score column, `other_human_score_columns` included, in the layout of
/// `true_score_eval`.
fn true_score_eval_all_raters(exp: &Experiment, prep: &Prepared) -> Frame {
    let mut humans: Vec<&[f64]> = vec![&prep.sc1];
    humans.extend(prep.sc2.as_deref());
    humans.extend(prep.other_humans.iter().map(|o| o.values.as_slice()));
    true_score_frame("true_score_eval_all_raters", exp, prep, &humans)
}

/// The true-score table `name` of every score type, from the ratings
/// `humans` (parity spec 3.13).
fn true_score_frame(name: &str, exp: &Experiment, prep: &Prepared, humans: &[&[f64]]) -> Frame {
    let basis = true_score_basis(humans, exp.rater_error_variance.map(Number::as_f64));
    let k = prep.scores.len();
    let results: Vec<(f64, f64)> = prep
        .scores
        .iter()
        .map(|s| basis.evaluate(&s.values))
        .collect();
    let variance = match exp.rater_error_variance {
        Some(Number::Int(v)) => Values::Int(vec![v; k]),
        _ => Values::Float(vec![basis.error_variance; k]),
    };
    Frame::new(
        name,
        Some(text_index(prep.scores.iter().map(|s| s.name))),
        vec![
            int_col("N", vec![basis.n as i64; k]),
            int_col("N raters", vec![basis.n_raters as i64; k]),
            int_col("N single", vec![basis.n_single as i64; k]),
            int_col("N multiple", vec![basis.n_multiple as i64; k]),
            Column::new("Variance of errors", variance),
            float_col("True score var", vec![basis.true_score_var; k]),
            float_col("MSE true", results.iter().map(|r| r.0).collect()),
            float_col("PRMSE true", results.iter().map(|r| r.1).collect()),
        ],
    )
}

/// Population mean and sample sd, skipping missing values.
fn population(h: &[f64], s: &[f64]) -> Population {
    let (h_mean, h_sd) = summary::nan_mean_sd(h);
    let (s_mean, s_sd) = summary::nan_mean_sd(s);
    Population {
        h_mean,
        h_sd,
        s_mean,
        s_sd,
    }
}

/// The rows of a by-group table: the whole data, then each group.
enum Rows<'a> {
    All,
    Some(&'a [usize]),
}

/// The `All data` row of every by-group table, the same for every
/// subgroup column and therefore computed once.
struct AllData {
    /// `X_trim` and `X_trim_round` blocks with the DSM.
    trim: MetricBlock,
    round: MetricBlock,
    /// The human-human block with the DSM, when a second score exists.
    consistency: Option<MetricBlock>,
}

impl AllData {
    fn new(prep: &Prepared) -> Self {
        let trim = prep.x_trim();
        let round = prep.x_trim_round();
        let pop_trim = population(&prep.sc1, &trim.values);
        let pop_round = population(&prep.sc1, &round.values);
        AllData {
            trim: metric_block(&prep.sc1, &trim.values, DiffMethod::Dsm(pop_trim)),
            round: metric_block(&prep.sc1, &round.values, DiffMethod::Dsm(pop_round)),
            consistency: prep.sc2.as_ref().map(|sc2| {
                let pop = population(&prep.sc1, sc2);
                let (h, s) = double_scored(&prep.sc1, sc2, None);
                if h.is_empty() {
                    MetricBlock::empty()
                } else {
                    metric_block(&h, &s, DiffMethod::Dsm(pop))
                }
            }),
        }
    }
}

fn gather(values: &[f64], rows: &[usize]) -> Vec<f64> {
    rows.iter().map(|&i| values[i]).collect()
}

/// `eval_by_<g>`, `consistency_by_<g>`, `disattenuated_correlations_by_<g>`
/// (spec 3.12). Rows: `All data` first, then the groups in code-point order.
fn by_group_frames(prep: &Prepared, g: &Grouping, all: &AllData) -> Vec<Frame> {
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); g.labels.len()];
    for (i, &c) in g.codes.iter().enumerate() {
        members[c as usize].push(i);
    }
    let mut labels: Vec<&str> = vec![ALL_DATA];
    labels.extend(g.labels.iter().map(String::as_str));
    let mut rows: Vec<Rows> = vec![Rows::All];
    rows.extend(members.iter().map(|m| Rows::Some(m)));

    let trim = prep.x_trim();
    let round = prep.x_trim_round();
    let pop_trim = population(&prep.sc1, &trim.values);
    let pop_round = population(&prep.sc1, &round.values);
    let mut short_rows: Vec<Vec<(String, f64)>> = Vec::with_capacity(rows.len());
    let mut ns = Vec::with_capacity(rows.len());
    for r in &rows {
        let (bt, br, n) = match r {
            Rows::All => (all.trim, all.round, prep.n()),
            Rows::Some(r) => {
                let h = gather(&prep.sc1, r);
                let bt = metric_block(&h, &gather(&trim.values, r), DiffMethod::Dsm(pop_trim));
                let br = metric_block(&h, &gather(&round.values, r), DiffMethod::Dsm(pop_round));
                (bt, br, r.len())
            }
        };
        ns.push(n as f64);
        short_rows.push(short_selection(prep.primary, &bt, &br, "DSM"));
    }
    let mut cols = vec![float_col("N", ns)];
    for (j, (name, _)) in short_rows[0].iter().enumerate() {
        cols.push(float_col(
            name,
            short_rows.iter().map(|row| row[j].1).collect(),
        ));
    }
    let corr_hm: Vec<f64> = cols
        .iter()
        .find(|c| c.name == format!("corr.{}", trim.name))
        .map(|c| match &c.values {
            Values::Float(v) => v.clone(),
            _ => unreachable!(),
        })
        .expect("corr column present");
    let index = text_index(labels.iter().copied());
    let mut frames = vec![Frame::new(
        format!("eval_by_{}", g.name),
        Some(index.clone()),
        cols,
    )];

    if let Some(sc2) = &prep.sc2 {
        let pop = population(&prep.sc1, sc2);
        let blocks: Vec<MetricBlock> = rows
            .iter()
            .map(|r| match r {
                Rows::All => all.consistency.unwrap_or_else(MetricBlock::empty),
                Rows::Some(r) => {
                    let (h, s) = double_scored(&prep.sc1, sc2, Some(r));
                    if h.is_empty() {
                        MetricBlock::empty()
                    } else {
                        metric_block(&h, &s, DiffMethod::Dsm(pop))
                    }
                }
            })
            .collect();
        let corr_hh: Vec<f64> = blocks.iter().map(|b| b.corr).collect();
        frames.push(consistency_frame(
            &format!("consistency_by_{}", g.name),
            index.clone(),
            &blocks,
            "DSM",
        ));
        frames.push(disattenuated_frame(
            &format!("disattenuated_correlations_by_{}", g.name),
            index,
            &corr_hm,
            &corr_hh,
        ));
    }
    frames
}
