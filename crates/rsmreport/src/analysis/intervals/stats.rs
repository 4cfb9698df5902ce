//! Stage 5 (intervals): every statistic of uncertainty spec 3 for one
//! resample, from its additive sums, through the same metric functions as
//! the point estimates (`PairSums::block`, `TrueScoreSums::evaluate`, the
//! degradation difference and `disattenuated` of the parent module). Each
//! value is handed to a recorder with its table, row and metric, in a
//! fixed order. No I/O.

use super::design::Additive;
use rsmreport_core::schema::ALL_DATA;
use rsmreport_metrics::association::Population;
use rsmreport_metrics::block::{DiffMethod, MetricBlock};
use rsmreport_metrics::pair_sums::{Centres, PairSums};
use rsmreport_metrics::prmse::TrueScoreSums;

/// Receives `(table, row, metric, value)`.
pub type Put<'r> = dyn FnMut(&str, &str, &str, f64) + 'r;

use rsmreport_core::schema::{CONSISTENCY_METRICS, DEGRADATION_METRICS, EVAL_METRICS};

impl Additive for PairSums {
    fn add_scaled(&mut self, other: &Self, w: f64) {
        PairSums::add_scaled(self, other, w);
    }
}

impl Additive for TrueScoreSums {
    fn add_scaled(&mut self, other: &Self, w: f64) {
        TrueScoreSums::add_scaled(self, other, w);
    }
}

/// The sums behind the whole-set tables: one pair per score type (first
/// human score vs the score type), the human-human pair of the
/// double-scored responses, and the true-score sums.
#[derive(Clone, Debug)]
pub struct OverallSums {
    pub scores: Vec<PairSums>,
    pub hh: Option<PairSums>,
    pub true_score: Option<TrueScoreSums>,
    /// The true-score sums of every human rating (`true_score_eval_all_raters`).
    pub true_score_all: Option<TrueScoreSums>,
}

impl Additive for OverallSums {
    fn add_scaled(&mut self, other: &Self, w: f64) {
        for (a, b) in self.scores.iter_mut().zip(&other.scores) {
            a.add_scaled(b, w);
        }
        if let (Some(a), Some(b)) = (&mut self.hh, &other.hh) {
            a.add_scaled(b, w);
        }
        if let (Some(a), Some(b)) = (&mut self.true_score, &other.true_score) {
            a.add_scaled(b, w);
        }
        if let (Some(a), Some(b)) = (&mut self.true_score_all, &other.true_score_all) {
            a.add_scaled(b, w);
        }
    }
}

/// What the whole-set statistics need besides the sums.
pub struct Overall {
    pub score_names: Vec<&'static str>,
    pub centres: Vec<Centres>,
    /// Centres of the human-human pair, when `consistency` is written.
    pub hh: Option<Centres>,
    /// `Some(rater_error_variance)` when `true_score_eval` is written.
    pub true_score: Option<Option<f64>>,
    /// `Some(rater_error_variance)` when `true_score_eval_all_raters` is
    /// written (agreement spec 5).
    pub true_score_all: Option<Option<f64>>,
}

/// The statistics of `eval`, `consistency`, `degradation`,
/// `disattenuated_correlations` and `true_score_eval` (spec 3).
pub fn overall(spec: &Overall, t: &OverallSums, put: &mut Put) {
    let blocks: Vec<MetricBlock> = spec
        .centres
        .iter()
        .zip(&t.scores)
        .map(|(c, s)| s.block(c, DiffMethod::Unpooled))
        .collect();
    for (name, b) in spec.score_names.iter().zip(&blocks) {
        for m in EVAL_METRICS {
            put("eval", name, m, super::super::metric(b, m));
        }
    }
    if let (Some(c), Some(hh)) = (&spec.hh, &t.hh) {
        let hh = hh.block(c, DiffMethod::Pooled);
        for m in CONSISTENCY_METRICS {
            put("consistency", "", m, super::super::metric(&hh, m));
        }
        for (name, b) in spec.score_names.iter().zip(&blocks) {
            for m in DEGRADATION_METRICS {
                let d = super::super::metric(b, m) - super::super::metric(&hh, m);
                put("degradation", name, m, d);
            }
        }
        for (name, b) in spec.score_names.iter().zip(&blocks) {
            let d = super::super::disattenuated(b.corr, hh.corr);
            put("disattenuated_correlations", name, "corr_disattenuated", d);
        }
    }
    for (table, rev, ts) in [
        ("true_score_eval", spec.true_score, &t.true_score),
        (
            "true_score_eval_all_raters",
            spec.true_score_all,
            &t.true_score_all,
        ),
    ] {
        let (Some(rev), Some(ts)) = (rev, ts) else {
            continue;
        };
        let (ve, var_t, results) = ts.evaluate(rev);
        for (name, (mse, prmse)) in spec.score_names.iter().zip(results) {
            put(table, name, "PRMSE true", prmse);
            put(table, name, "MSE true", mse);
            if rev.is_none() {
                put(table, name, "Variance of errors", ve);
            }
            put(table, name, "True score var", var_t);
        }
    }
}

/// The sums behind one level of a by-group table: the `X_trim` and
/// `X_trim_round` pairs.
#[derive(Clone, Debug)]
pub struct GroupSums {
    pub trim: PairSums,
    pub round: PairSums,
}

impl Additive for GroupSums {
    fn add_scaled(&mut self, other: &Self, w: f64) {
        self.trim.add_scaled(&other.trim, w);
        self.round.add_scaled(&other.round, w);
    }
}

/// What the by-group statistics of one subgroup column need.
pub struct ByGroup {
    /// `eval_by_<g>`.
    pub table: String,
    /// The level labels, in table order (after `All data`).
    pub labels: Vec<String>,
    pub trim: Centres,
    pub round: Centres,
    /// Metric names: `corr.<X_trim>`, `wtkappa.<X_trim>`, `DSM.<X_trim>`,
    /// `RMSE.<X_trim>`, `R2.<X_trim>`, `DSM.<X_trim_round>`.
    pub metrics: [String; 6],
}

impl ByGroup {
    pub fn new(
        group: &str,
        labels: Vec<String>,
        trim: (&str, Centres),
        round: (&str, Centres),
    ) -> Self {
        let (t, r) = (trim.0, round.0);
        ByGroup {
            table: format!("eval_by_{group}"),
            labels,
            trim: trim.1,
            round: round.1,
            metrics: [
                format!("corr.{t}"),
                format!("wtkappa.{t}"),
                format!("DSM.{t}"),
                format!("RMSE.{t}"),
                format!("R2.{t}"),
                format!("DSM.{r}"),
            ],
        }
    }
}

/// Sample mean and sd (ddof 1) of both sides, as `population` computes
/// them for the DSM.
fn population(s: &PairSums, c: &Centres) -> Population {
    let b = s.block(c, DiffMethod::Unpooled);
    Population {
        h_mean: b.h_mean,
        h_sd: b.h_sd,
        s_mean: b.sys_mean,
        s_sd: b.sys_sd,
    }
}

/// The statistics of `eval_by_<g>` (spec 3.12): `All data`, then every
/// level, from the level totals of one stratified resample.
pub fn by_group(spec: &ByGroup, levels: &[GroupSums], put: &mut Put) {
    let mut all = GroupSums {
        trim: PairSums::zero(&spec.trim),
        round: PairSums::zero(&spec.round),
    };
    for l in levels {
        all.add_scaled(l, 1.0);
    }
    let pop_t = population(&all.trim, &spec.trim);
    let pop_r = population(&all.round, &spec.round);
    let rows = std::iter::once((ALL_DATA, &all))
        .chain(spec.labels.iter().map(String::as_str).zip(levels.iter()));
    for (label, sums) in rows {
        let bt = sums.trim.block(&spec.trim, DiffMethod::Dsm(pop_t));
        let br = sums.round.block(&spec.round, DiffMethod::Dsm(pop_r));
        let values = [bt.corr, bt.wtkappa, bt.diff, bt.rmse, bt.r2, br.diff];
        for (m, v) in spec.metrics.iter().zip(values) {
            put(&spec.table, label, m, v);
        }
    }
}
