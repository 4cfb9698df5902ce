//! The `build` command's machine-readable summary,
//! `output/<id>_summary.json` (uncertainty spec 4.2; `summary_version` 1):
//! the experiment, its inputs with their checksums, the primary score type,
//! and each headline statistic with its estimate and interval. `compare`,
//! `summarize`, quality gates and dashboards read it. Its shape is
//! documented in the README ("The summary file").
//!
//! Builds bytes from a finished run; reads and writes nothing.

use serde_json::{json, Map, Value};

use crate::analysis::intervals::{CiRow, IntervalResults};
use crate::kinds::evaluation::run::Run;
use rsmreport_core::schema::{CONSISTENCY_METRICS, DEGRADATION_METRICS, EVAL_METRICS};

/// The version of the summary's shape; bumped on any incompatible change.
pub const SUMMARY_VERSION: u64 = 1;

use rsmreport_io::output::json::number;

/// `{estimate, lower, upper, lower_analytic, upper_analytic, se_bootstrap,
/// replicates_valid}` of one statistic; only `estimate` without intervals.
fn statistic(estimate: f64, row: Option<&CiRow>) -> Value {
    let mut m = Map::new();
    m.insert("estimate".into(), number(estimate));
    if let Some(r) = row {
        m.insert("lower".into(), number(r.interval.lower));
        m.insert("upper".into(), number(r.interval.upper));
        m.insert("lower_analytic".into(), number(r.analytic.0));
        m.insert("upper_analytic".into(), number(r.analytic.1));
        m.insert("se_bootstrap".into(), number(r.interval.se));
        m.insert("replicates_valid".into(), json!(r.interval.valid));
    }
    Value::Object(m)
}

/// The statistics `metrics` of `row` in `source`, estimates from the
/// source frame (through the interval rows when there are intervals).
fn group(run: &Run, source: &str, row: &str, metrics: &[&str]) -> Value {
    let frame = run.analysis.frame(source).filter(|f| f.is_writable());
    let Some(frame) = frame else {
        return Value::Null;
    };
    let intervals = run.intervals.as_ref();
    let mut m = Map::new();
    for metric in metrics {
        let ci = intervals.and_then(|r| r.get(source, row, metric));
        let estimate = ci.map_or_else(|| cell(frame, row, metric), |r| r.estimate);
        m.insert((*metric).to_string(), statistic(estimate, ci));
    }
    Value::Object(m)
}

/// The cell of `frame` in the row labelled `row` and column `column`.
fn cell(frame: &rsmreport_core::table::Frame, row: &str, column: &str) -> f64 {
    frame.value_at(row, column).unwrap_or(f64::NAN)
}

/// The interval settings and the number of units, or `null` when off.
fn intervals_block(r: Option<&IntervalResults>) -> Value {
    let Some(r) = r else {
        return Value::Null;
    };
    let s = &r.settings;
    json!({
        "level": s.level,
        "replicates": s.replicates,
        "seed": s.seed,
        "unit": s.unit.name(),
        "n_units": r.tables.first().map_or(0, |t| t.n_units),
    })
}

/// For each subgroup, its level with the largest |DSM| of the primary
/// score type among the levels shown in the report (at least
/// `min_n_per_group` responses).
fn worst_dsm(run: &Run, primary: &str) -> Value {
    let mut out = Map::new();
    for g in &run.prepared.groups {
        let source = format!("eval_by_{}", g.name);
        let metric = format!("DSM.{primary}");
        let Some(frame) = run.analysis.frame(&source).filter(|f| f.is_writable()) else {
            continue;
        };
        let min_n = run.exp.min_n_for(&g.name) as usize;
        let counts = g.counts();
        let worst = g
            .labels
            .iter()
            .zip(&counts)
            .filter(|(_, &n)| n >= min_n.max(1))
            .map(|(label, &n)| (label, n, cell(frame, label, &metric)))
            .filter(|(_, _, v)| v.is_finite())
            .max_by(|a, b| a.2.abs().total_cmp(&b.2.abs()));
        let value = worst.map_or(Value::Null, |(label, n, v)| {
            let ci = run
                .intervals
                .as_ref()
                .and_then(|r| r.get(&source, label, &metric));
            let mut s = statistic(v, ci);
            if let Value::Object(m) = &mut s {
                m.insert("level".into(), json!(label));
                m.insert("n".into(), json!(n));
            }
            s
        });
        out.insert(g.name.clone(), json!({ "worst_dsm": value }));
    }
    Value::Object(out)
}

/// The summary of `run` as pretty-printed JSON bytes (ending in a new line).
pub fn summary_json(run: &Run) -> Vec<u8> {
    let exp = &run.exp;
    let primary = run.prepared.x_trim().name;
    let mut headline = match group(run, "eval", primary, &EVAL_METRICS) {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let prmse = group(run, "true_score_eval", primary, &["PRMSE true"]);
    headline.insert(
        "PRMSE".into(),
        prmse.get("PRMSE true").cloned().unwrap_or(Value::Null),
    );
    let value = json!({
        "summary_version": SUMMARY_VERSION,
        "producer": {"name": "rsmreport", "version": env!("CARGO_PKG_VERSION")},
        "experiment_id": exp.experiment_id,
        "model_version": exp.model_version,
        "inputs": run.inputs.iter().map(|i| json!({
            "role": i.role,
            "path": i.path.display().to_string(),
            "rows": i.rows,
            "sha256": i.sha256,
        })).collect::<Vec<_>>(),
        "n_responses": run.prepared.n(),
        "primary_score_type": primary,
        "intervals": intervals_block(run.intervals.as_ref()),
        "headline": headline,
        "consistency": group(run, "consistency", "", &CONSISTENCY_METRICS),
        "degradation": group(run, "degradation", primary, &DEGRADATION_METRICS),
        "subgroups": worst_dsm(run, primary),
        "gates": if exp.gates.is_empty() {
            Value::Null
        } else {
            crate::gates::json::summary(&run.gates)
        },
    });
    rsmreport_io::output::json::bytes(&value)
}
