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

use crate::kinds::compare::read::InputRecord;
use crate::kinds::summarize::run::{Summary, Version};
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
        crate::kinds::compare::paired::HEADLINE
            .iter()
            .map(|s| s.name)
            .chain(
                crate::kinds::compare::paired::HUMAN_HUMAN
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

fn text_col(name: &str, rows: impl Iterator<Item = String>) -> Column {
    Column::new(name, text_values(rows.map(Some)))
}

fn num_col(name: &str, rows: impl Iterator<Item = f64>) -> Column {
    Column::new(name, Values::Float(rows.collect()))
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
        let get = |x: &Version, k: usize| {
            x.estimate(name)
                .map_or(f64::NAN, |e| [e.value.0, e.value.1, e.value.2][k])
        };
        cols.push(num_col(name, v.iter().map(|x| get(x, 0))));
        cols.push(num_col(
            &format!("{name}_lower"),
            v.iter().map(|x| get(x, 1)),
        ));
        cols.push(num_col(
            &format!("{name}_upper"),
            v.iter().map(|x| get(x, 2)),
        ));
    }
    for g in subgroups(s) {
        let worst = |x: &Version| x.worst.iter().find(|w| w.group == g).cloned();
        cols.push(num_col(
            &format!("DSM_worst.{g}"),
            v.iter().map(|x| worst(x).map_or(f64::NAN, |w| w.dsm)),
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
fn delta_lines(s: &Summary) -> Vec<(&Version, bool, &crate::kinds::compare::paired::DeltaRow)> {
    s.versions
        .iter()
        .filter_map(|v| v.delta.as_ref().map(|(p, rows)| (v, *p, rows)))
        .flat_map(|(v, p, rows)| rows.iter().map(move |r| (v, p, r)))
        .collect()
}

/// The differences from the baseline, one row per version and statistic.
pub fn delta_frame(s: &Summary) -> Frame {
    let rows = delta_lines(s);
    let num = |name: &str, f: &dyn Fn(&crate::kinds::compare::paired::DeltaRow) -> f64| {
        num_col(name, rows.iter().map(|(_, _, r)| f(r)))
    };
    Frame::new(
        "summary_deltas",
        None,
        vec![
            text_col("version", rows.iter().map(|(v, _, _)| v.label.clone())),
            text_col(
                "statistic",
                rows.iter().map(|(_, _, r)| r.statistic.name.to_string()),
            ),
            num("baseline", &|r| r.baseline.0),
            num("candidate", &|r| r.candidate.0),
            num("delta", &|r| r.delta.0),
            num("delta_lower", &|r| r.delta.1),
            num("delta_upper", &|r| r.delta.2),
            num("gain", &|r| r.gain.0),
            num("gain_lower", &|r| r.gain.1),
            num("gain_upper", &|r| r.gain.2),
            num("p_value", &|r| r.p_value),
            text_col(
                "verdict",
                rows.iter().map(|(_, _, r)| r.verdict.name().to_string()),
            ),
            text_col("paired", rows.iter().map(|(_, p, _)| p.to_string())),
        ],
    )
}

/// The worst level of each subgroup, one row per version and subgroup.
pub fn worst_frame(s: &Summary) -> Frame {
    let rows: Vec<(&Version, &crate::kinds::summarize::run::WorstLevel)> = s
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
            num_col("DSM", rows.iter().map(|(_, w)| w.dsm)),
        ],
    )
}

/// The fairness models, one row per version, subgroup and model.
pub fn fairness_frame(s: &Summary) -> Frame {
    let rows: Vec<(&Version, &crate::kinds::summarize::run::Fairness)> = s
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

fn triple(t: (f64, f64, f64)) -> Value {
    json!({"estimate": number(t.0), "lower": number(t.1), "upper": number(t.2)})
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
                json!({"statistic": r.statistic.name, "delta": triple(r.delta),
                       "gain": triple(r.gain), "p_value": number(r.p_value),
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
        "worst_dsm": v.worst.iter().map(|w| json!({"subgroup": w.group, "level": w.level, "DSM": number(w.dsm)})).collect::<Vec<_>>(),
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
    crate::kinds::compare::read::inputs_json(&records)
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
