//! Command assembly (summarize): the output files and terminal lines of a
//! summary of model versions (compare spec 3): `<sid>_summary.csv` (one
//! row per version), `<sid>_summary_deltas.csv`,
//! `<sid>_summary_worst_dsm.csv`, `<sid>_summary_fairness.csv` and the
//! summary's keys.
//!
//! Produces data and text; makes no file (the shared writer,
//! `crate::kinds::archive`, does).

use serde_json::{json, Value};

use rsmreport_io::output::json::number;

use crate::kinds::common::comparison::{self, Estimate, Field, Spelling};
use crate::kinds::versions::build::paired::VerdictRow;
use crate::kinds::versions::folders::InputRecord;
use crate::kinds::versions::summarize::run::{Summary, Version};
use rsmreport_core::table::{text_values, Column, Frame, Values};

/// The statistics of the version table, in column order.
pub fn statistic_names(s: &Summary) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for v in &s.versions {
        for e in &v.estimates {
            if !names.contains(&e.name) {
                names.push(e.name);
            }
        }
    }
    let order = |n: &str| {
        crate::kinds::versions::build::paired::HEADLINE
            .iter()
            .map(|s| s.name)
            .chain(
                crate::kinds::versions::build::paired::HUMAN_HUMAN
                    .iter()
                    .map(|h| h.0),
            )
            .position(|x| x == n)
    };
    names.sort_by_key(|n| order(n));
    names
}

/// The subgroups of any version, in first-seen order.
pub fn subgroups(s: &Summary) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in s.versions.iter().flat_map(|v| &v.worst) {
        if !out.contains(&w.group) {
            out.push(w.group.clone());
        }
    }
    out
}

pub fn text_col(name: &str, rows: impl Iterator<Item = String>) -> Column {
    Column::new(name, text_values(rows.map(Some)))
}

pub fn num_col(name: &str, rows: impl Iterator<Item = f64>) -> Column {
    Column::new(name, Values::Float(rows.collect()))
}

/// The columns `<name>`, `<name>_lower`, `<name>_upper` of one
/// statistic's `(estimate, lower, upper)` per version.
pub fn estimate_columns(name: &str, values: &[(f64, f64, f64)]) -> [Column; 3] {
    [
        num_col(name, values.iter().map(|v| v.0)),
        num_col(&format!("{name}_lower"), values.iter().map(|v| v.1)),
        num_col(&format!("{name}_upper"), values.iter().map(|v| v.2)),
    ]
}

/// The version table: identity, N, every statistic with its interval, the
/// worst level's DSM per subgroup, whether the row is the baseline.
pub fn version_frame(s: &Summary) -> Frame {
    let v = &s.versions;
    let mut cols = vec![
        text_col("version", v.iter().map(|x| x.label.clone())),
        text_col("experiment_id", v.iter().map(|x| x.id.clone())),
        text_col("producer", v.iter().map(|x| x.producer.clone())),
        text_col("score_type", v.iter().map(|x| x.score_type.clone())),
        num_col("N", v.iter().map(|x| x.n)),
    ];
    for name in statistic_names(s) {
        let values: Vec<(f64, f64, f64)> = v
            .iter()
            .map(|x| {
                x.estimate(name)
                    .map_or((f64::NAN, f64::NAN, f64::NAN), |e| e.value)
            })
            .collect();
        cols.extend(estimate_columns(name, &values));
    }
    for g in subgroups(s) {
        let worst = |x: &Version| x.worst.iter().find(|w| w.group == g).cloned();
        cols.push(num_col(
            &format!("DSM_worst.{g}"),
            v.iter().map(|x| worst(x).map_or(f64::NAN, |w| w.dsm)),
        ));
        cols.push(num_col(
            &format!("DSM_worst_N.{g}"),
            v.iter().map(|x| worst(x).map_or(f64::NAN, |w| w.n)),
        ));
        cols.push(text_col(
            &format!("DSM_worst_level.{g}"),
            v.iter()
                .map(|x| worst(x).map_or_else(String::new, |w| w.level)),
        ));
    }
    cols.push(text_col(
        "baseline",
        (0..v.len()).map(|i| (i == s.baseline).to_string()),
    ));
    Frame::new("summary", None, cols)
}

/// `(version, row)` of every difference from the baseline.
fn delta_lines(s: &Summary) -> Vec<(&Version, &VerdictRow)> {
    s.versions
        .iter()
        .filter_map(|v| v.delta.as_ref().map(|(_, rows)| (v, rows)))
        .flat_map(|(v, rows)| rows.iter().map(move |r| (v, r)))
        .collect()
}

/// The differences from the baseline, one row per version and statistic:
/// the version, then the shared comparison columns without each side's
/// interval, `p_holm` or `margin`.
pub fn delta_frame(s: &Summary) -> Frame {
    let lines: Vec<(&str, &VerdictRow)> = delta_lines(s)
        .into_iter()
        .map(|(v, r)| (v.label.as_str(), r))
        .collect();
    deltas_frame(&lines)
}

/// The differences from the baseline of a summary (build's and every
/// kind's), one row per `(version, row)`: the `version`, then the shared
/// comparison columns without each side's interval, `p_holm` or `margin`.
pub fn deltas_frame<X>(lines: &[(&str, &comparison::ComparisonRow<X>)]) -> Frame {
    let version = text_values(lines.iter().map(|(v, _)| Some(*v)));
    let rows: Vec<&comparison::ComparisonRow<X>> = lines.iter().map(|(_, r)| *r).collect();
    let columns = [
        comparison::Column::Own("version".into(), version),
        comparison::Column::Field(Field::Statistic),
        comparison::Column::Field(Field::Baseline),
        comparison::Column::Field(Field::Candidate),
    ]
    .into_iter()
    .chain(comparison::Column::span(Field::Delta, Field::PValue))
    .chain([
        comparison::Column::Field(Field::Verdict),
        comparison::Column::Field(Field::Paired),
    ])
    .collect();
    comparison::frame("summary_deltas", &rows, columns, &[], Spelling::Lower)
}

/// The worst level of each subgroup, one row per version and subgroup.
pub fn worst_frame(s: &Summary) -> Frame {
    let rows: Vec<(
        &Version,
        &crate::kinds::versions::summarize::run::WorstLevel,
    )> = s
        .versions
        .iter()
        .flat_map(|v| v.worst.iter().map(move |w| (v, w)))
        .collect();
    Frame::new(
        "summary_worst_dsm",
        None,
        vec![
            text_col("version", rows.iter().map(|(v, _)| v.label.clone())),
            text_col("subgroup", rows.iter().map(|(_, w)| w.group.clone())),
            text_col("level", rows.iter().map(|(_, w)| w.level.clone())),
            num_col("N", rows.iter().map(|(_, w)| w.n)),
            num_col("DSM", rows.iter().map(|(_, w)| w.dsm)),
        ],
    )
}

/// The fairness models, one row per version, subgroup and model.
pub fn fairness_frame(s: &Summary) -> Frame {
    let rows: Vec<(&Version, &crate::kinds::versions::summarize::run::Fairness)> = s
        .versions
        .iter()
        .flat_map(|v| v.fairness.iter().map(move |f| (v, f)))
        .collect();
    Frame::new(
        "summary_fairness",
        None,
        vec![
            text_col("version", rows.iter().map(|(v, _)| v.label.clone())),
            text_col("subgroup", rows.iter().map(|(_, f)| f.group.clone())),
            text_col("model", rows.iter().map(|(_, f)| f.model.clone())),
            num_col("R2", rows.iter().map(|(_, f)| f.r2)),
            num_col("p_value", rows.iter().map(|(_, f)| f.p)),
        ],
    )
}

pub fn triple(t: (f64, f64, f64)) -> Value {
    json!({"estimate": number(t.0), "lower": number(t.1), "upper": number(t.2)})
}

fn estimate_json(e: Estimate) -> Value {
    triple((e.value, e.lower, e.upper))
}

/// One version in the JSON.
fn version_json(v: &Version) -> Value {
    let stats: serde_json::Map<String, Value> = v
        .estimates
        .iter()
        .map(|e| (e.name.to_string(), triple(e.value)))
        .collect();
    let delta = v.delta.as_ref().map(|(paired, rows)| {
        let rows: Vec<Value> = rows
            .iter()
            .map(|r| {
                json!({"statistic": r.statistic, "delta": estimate_json(r.delta),
                       "gain": estimate_json(r.gain), "p_value": number(r.p_value),
                       "verdict": r.verdict.name()})
            })
            .collect();
        json!({"paired": paired, "rows": rows})
    });
    json!({
        "label": v.label,
        "folder": v.folder,
        "experiment_id": v.id,
        "producer": v.producer,
        "model_version": v.model_version,
        "score_type": v.score_type,
        "n": number(v.n),
        "stored_estimates": v.stored,
        "statistics": stats,
        "worst_dsm": v.worst.iter().map(|w| json!({"subgroup": w.group, "level": w.level, "N": number(w.n), "DSM": number(w.dsm)})).collect::<Vec<_>>(),
        "fairness": v.fairness.iter().map(|f| json!({"subgroup": f.group, "model": f.model, "R2": number(f.r2), "p_value": number(f.p)})).collect::<Vec<_>>(),
        "delta_from_baseline": delta,
    })
}

/// Each version's folder with its digest and the checksum of every file
/// read from it (the `inputs` of compare's JSON).
fn inputs_json(versions: &[Version]) -> Value {
    let records: Vec<InputRecord> = versions
        .iter()
        .map(|v| InputRecord {
            role: v.label.clone(),
            path: v.folder.clone(),
            rows: String::new(),
            digest: v.inputs.clone(),
            folder: true,
        })
        .collect();
    crate::kinds::versions::folders::inputs_json(&records)
}

/// The summary's keys (`summarize_version` 1; `<sid>_summary.json` with
/// the envelope).
pub fn summary_json(s: &Summary) -> Vec<u8> {
    let best: serde_json::Map<String, Value> = s
        .best
        .iter()
        .map(|(name, i)| (name.to_string(), json!(s.versions[*i].label)))
        .collect();
    let doc = json!({
        "summarize_version": 1,
        "summary_id": s.id,
        "baseline": s.versions[s.baseline].label,
        "intervals": s.settings.saved(),
        "notes": s.notes,
        "best": best,
        "versions": s.versions.iter().map(version_json).collect::<Vec<_>>(),
        "inputs": inputs_json(&s.versions),
    });
    rsmreport_io::output::json::bytes(&doc)
}

/// The tables, in the order their files are written.
pub fn frames(s: &Summary) -> Vec<Frame> {
    let mut frames = vec![version_frame(s), delta_frame(s)];
    frames.extend(
        [worst_frame(s), fairness_frame(s)]
            .into_iter()
            .filter(Frame::is_writable),
    );
    frames
}
