//! Command assembly (predict): the outputs of train.md 13.4 as frames:
//! `<id>_predictions` (a `build` predictions file as it stands),
//! `<id>_preprocessed_features`, `<id>_excluded_responses`; and the
//! summary `<id>_summary.json`.
//!
//! Builds frames and JSON from a finished run; reads and writes nothing.

use rsmreport_core::table::{Column, Frame, Values};
use serde_json::{json, Value};

use super::run::Predicted;

fn ids(p: &Predicted, rows: &[usize]) -> Column {
    Column::new(
        "spkitemid",
        Values::Text(rows.iter().map(|&i| Some(p.ids[i].clone())).collect()),
    )
}

/// A column of the renamed table at `rows`, as read.
fn as_read(p: &Predicted, name: &str, rows: &[usize]) -> Option<Column> {
    p.table
        .column(name)
        .map(|c| Column::new(name, c.values.take(rows)))
}

/// `<id>_predictions`: `spkitemid, raw, [sc1], scale, raw_trim,
/// raw_trim_round, scale_trim, scale_trim_round`, then the subgroups, the
/// flag columns, `candidate` and `sc2`.
fn predictions(p: &Predicted) -> Frame {
    let r = &p.predictions;
    let rows = &p.kept;
    let mut cols = vec![
        ids(p, rows),
        Column::new("raw", Values::Float(r.raw.clone())),
    ];
    if p.has_sc1 {
        cols.extend(as_read(p, "sc1", rows));
    }
    cols.extend([
        Column::new("scale", Values::Float(r.scale.clone())),
        Column::new("raw_trim", Values::Float(r.raw_trim.clone())),
        Column::new("raw_trim_round", Values::Int(r.raw_trim_round.clone())),
        Column::new("scale_trim", Values::Float(r.scale_trim.clone())),
        Column::new("scale_trim_round", Values::Int(r.scale_trim_round.clone())),
    ]);
    let cfg = &p.cfg;
    let mut copied: Vec<&str> = cfg.subgroups.iter().map(String::as_str).collect();
    copied.extend(cfg.flag_column.iter().map(|f| f.column.as_str()));
    if cfg.candidate_column.is_some() {
        copied.push("candidate");
    }
    if cfg.second_human_score_column.is_some() {
        copied.push("sc2");
    }
    for name in copied {
        if !cols.iter().any(|c| c.name == name) {
            cols.extend(as_read(p, name, rows));
        }
    }
    Frame::new("predictions", None, cols)
}

/// `<id>_preprocessed_features`: `spkitemid, <features>, [sc1]`.
fn preprocessed(p: &Predicted) -> Frame {
    let mut cols = vec![ids(p, &p.kept)];
    for (s, v) in p.model.features.iter().zip(&p.preprocessed) {
        cols.push(Column::new(s.name.clone(), Values::Float(v.clone())));
    }
    if p.has_sc1 {
        cols.extend(as_read(p, "sc1", &p.kept));
    }
    Frame::new("preprocessed_features", None, cols)
}

/// `<id>_excluded_responses`: the excluded rows in input order with their
/// original feature values as numbers and `sc1` as read, the features and
/// `sc1` in code-point order.
fn excluded(p: &Predicted) -> Frame {
    let rows = &p.excluded;
    let mut names: Vec<&str> = p.model.features.iter().map(|s| s.name.as_str()).collect();
    if p.has_sc1 {
        names.push("sc1");
    }
    names.sort_unstable();
    let mut cols = vec![ids(p, rows)];
    for name in names {
        match p.model.features.iter().position(|s| s.name == name) {
            Some(j) => cols.push(Column::new(
                name,
                Values::Float(rows.iter().map(|&i| p.raw[j][i]).collect()),
            )),
            None => cols.extend(as_read(p, name, rows)),
        }
    }
    Frame::new("excluded_responses", None, cols)
}

/// Every table of `output/` (the excluded responses only when there are
/// any: the writer skips empty tables).
pub fn frames(p: &Predicted) -> Vec<Frame> {
    vec![predictions(p), preprocessed(p), excluded(p)]
}

/// `<id>_summary.json`: the kind, the model applied and the counts.
pub fn summary(p: &Predicted) -> Value {
    let cfg = &p.cfg;
    json!({
        "kind": "predict",
        "summary_version": super::super::train::tables::SUMMARY_VERSION,
        "producer": {"name": "rsmreport", "version": env!("CARGO_PKG_VERSION")},
        "experiment_id": cfg.experiment_id,
        "model_version": cfg.model_version,
        "description": cfg.description,
        "inputs": p.inputs.iter().map(|i| json!({
            "role": i.role,
            "path": i.path.display().to_string(),
            "rows": i.rows,
            "sha256": i.sha256,
        })).collect::<Vec<_>>(),
        "n_read": p.table.nrows,
        "n_responses": p.kept.len(),
        "n_excluded": p.excluded.len(),
        "features": p.model.features.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        "standardize_features": p.model.standardize,
    })
}
