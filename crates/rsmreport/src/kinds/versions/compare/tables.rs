//! Command assembly (compare): the output files and terminal lines of a
//! comparison (compare spec 2.6): `<cid>_compare_verdicts.csv`,
//! `<cid>_compare_preflight.csv`, the old / new / Δ tables
//! `_compare_eval`, `_compare_consistency`, `_compare_true_score`,
//! `_compare_fairness_by_<g>`, the level rows `_compare_by_<g>`,
//! the summary's keys, and the criterion-style verdict lines.
//!
//! Produces data and text; makes no file (the shared writer,
//! `crate::kinds::archive`, does).

use serde_json::{json, Value};

use rsmreport_io::output::json::number;

use crate::kinds::common::comparison::{self, Estimate, Field, Spelling};
use crate::kinds::versions::build::paired::{CrossCheck, LevelRow, VerdictRow};
use crate::kinds::versions::compare::run::Comparison;
use crate::kinds::versions::compare::stored::StoredRow;
use crate::kinds::versions::folders::{inputs_json, InputRecord};
use rsmreport_core::table::{text_values, Column, Frame, Values};

/// The rows of the verdict table: the whole set, then each subgroup's
/// levels (scope `<subgroup>=<level>`).
fn lines(c: &Comparison) -> Vec<&VerdictRow> {
    let levels = c
        .groups
        .iter()
        .flat_map(|(_, rows)| rows.iter().map(|r| &r.row));
    c.overall.iter().chain(levels).collect()
}

/// The verdict table as a frame: spec 2.6's columns of the shared
/// comparison table (amended: the oriented `gain` and its interval after
/// `delta_upper`), then the margin of the verdict and the analytic
/// cross-check of spec 2.2 (`zou`: its interval of Δ; `mcnemar`: its
/// p-value).
pub fn verdict_frame(c: &Comparison) -> Frame {
    let rows = lines(c);
    let check = |f: fn(&CrossCheck) -> f64| {
        rows.iter()
            .map(move |r| r.extra.cross_check.as_ref().map_or(f64::NAN, f))
    };
    let method = rows
        .iter()
        .map(|r| r.extra.cross_check.map(|x| x.method.to_string()));
    let columns = comparison::Column::span(Field::Scope, Field::Margin)
        .chain([
            comparison::Column::Own("cross_check".into(), text_values(method)),
            comparison::Column::floats("cross_check_lower", check(|x| x.lower)),
            comparison::Column::floats("cross_check_upper", check(|x| x.upper)),
            comparison::Column::floats("cross_check_p", check(|x| x.p_value)),
        ])
        .collect();
    comparison::frame("compare_verdicts", &rows, columns, &[], Spelling::Lower)
}

/// The preflight table as a frame.
pub fn preflight_frame(c: &Comparison) -> Frame {
    let col =
        |name: &str,
         f: &dyn Fn(&crate::kinds::versions::compare::preflight::PreflightRow) -> String| {
            Column::new(name, text_values(c.preflight.iter().map(|r| Some(f(r)))))
        };
    Frame::new(
        "compare_preflight",
        None,
        vec![
            col("item", &|r| r.item.clone()),
            col("baseline", &|r| r.baseline.clone()),
            col("candidate", &|r| r.candidate.clone()),
            col("status", &|r| r.status.to_string()),
        ],
    )
}

/// The columns of the stored old / new / Δ tables.
pub const STORED_COLUMNS: [&str; 6] = [
    "table",
    "row",
    "statistic",
    "baseline",
    "candidate",
    "delta",
];

/// A part's stored rows as a frame named `name`.
pub fn stored_frame(name: &str, rows: &[StoredRow]) -> Frame {
    let text = |f: &dyn Fn(&StoredRow) -> String| text_values(rows.iter().map(|r| Some(f(r))));
    let num = |f: &dyn Fn(&StoredRow) -> f64| Values::Float(rows.iter().map(f).collect());
    let values = vec![
        text(&|r| r.table.clone()),
        text(&|r| r.row.clone()),
        text(&|r| r.statistic.clone()),
        num(&|r| r.baseline),
        num(&|r| r.candidate),
        num(&|r| r.delta),
    ];
    let columns = STORED_COLUMNS
        .iter()
        .zip(values)
        .map(|(n, v)| Column::new(*n, v))
        .collect();
    Frame::new(name, None, columns)
}

/// `_compare_true_score`: the paired PRMSE (table `paired`, with its
/// intervals, p-value and verdict) then the stored `true_score_eval` rows
/// (no intervals, no verdict).
pub fn true_score_frame(c: &Comparison) -> Frame {
    let paired: Vec<&VerdictRow> = c
        .overall
        .iter()
        .filter(|r| r.statistic == "PRMSE")
        .collect();
    let stored = &c.extra.true_score.rows;
    let mut lines: Vec<[String; 4]> = Vec::new();
    let mut nums: Vec<[f64; 13]> = Vec::new();
    for r in &paired {
        lines.push([
            "paired".into(),
            c.score_type.clone(),
            "PRMSE".into(),
            r.verdict.name().into(),
        ]);
        let (b, k, d, g) = (r.baseline, r.candidate, r.delta, r.gain);
        nums.push([
            b.value, b.lower, b.upper, k.value, k.lower, k.upper, d.value, d.lower, d.upper,
            g.value, g.lower, g.upper, r.p_value,
        ]);
    }
    for r in stored {
        lines.push([
            r.table.clone(),
            r.row.clone(),
            r.statistic.clone(),
            String::new(),
        ]);
        let mut row = [f64::NAN; 13];
        row[0] = r.baseline;
        row[3] = r.candidate;
        row[6] = r.delta;
        // The stored tables' statistics are not oriented: no gain.
        nums.push(row);
    }
    let text = |j: usize| text_values(lines.iter().map(|l| Some(l[j].clone())));
    let num = |j: usize| Values::Float(nums.iter().map(|n| n[j]).collect());
    let mut columns: Vec<Column> = ["table", "row", "statistic"]
        .iter()
        .enumerate()
        .map(|(j, n)| Column::new(*n, text(j)))
        .collect();
    columns.extend(
        Field::span(Field::Baseline, Field::PValue)
            .enumerate()
            .map(|(j, f)| Column::new(f.name(), num(j))),
    );
    columns.push(Column::new(Field::Verdict.name(), text(3)));
    Frame::new("compare_true_score", None, columns)
}

/// `_compare_by_<g>`: one row per level and statistic: the level and its
/// N, then the shared comparison columns.
pub fn level_frame(group: &str, rows: &[LevelRow]) -> Frame {
    let level = text_values(rows.iter().map(|r| Some(r.level.as_str())));
    let n = Values::Int(rows.iter().map(|r| r.n as i64).collect());
    let columns = [
        comparison::Column::Own("level".into(), level),
        comparison::Column::Field(Field::Statistic),
        comparison::Column::Own("N".into(), n),
    ]
    .into_iter()
    .chain(comparison::Column::span(Field::Baseline, Field::Paired))
    .collect();
    let rows: Vec<&VerdictRow> = rows.iter().map(|r| &r.row).collect();
    comparison::frame(
        &format!("compare_by_{group}"),
        &rows,
        columns,
        &[],
        Spelling::Lower,
    )
}

/// The frames of report sections 3-7 (spec 2.6); empty ones are not
/// written.
pub fn section_frames(c: &Comparison) -> Vec<Frame> {
    let x = &c.extra;
    let mut out = vec![
        stored_frame("compare_eval", &x.eval.rows),
        stored_frame("compare_consistency", &x.consistency.rows),
        true_score_frame(c),
    ];
    out.extend(c.groups.iter().map(|(g, rows)| level_frame(g, rows)));
    out.extend(
        x.fairness
            .iter()
            .map(|(g, p)| stored_frame(&format!("compare_fairness_by_{g}"), &p.rows)),
    );
    out.retain(Frame::is_writable);
    out
}

/// The two versions against each other, for the JSON (`null` when
/// unpaired).
fn between_json(c: &Comparison) -> Value {
    let Some(b) = &c.extra.between else {
        return Value::Null;
    };
    json!({
        "n": b.n,
        "corr": {"trimmed": number(b.corr[0]), "rounded": number(b.corr[1])},
        "exact_agr": {"trimmed": number(b.exact[0]), "rounded": number(b.exact[1])},
        "rounded_changed": b.changed,
    })
}

/// The summary's keys (`compare_version` 1; the file `<cid>_compare.json`
/// of releases up to 8648b92, now `<cid>_summary.json` with the
/// envelope): the settings, the preflight, the notes and every verdict
/// line.
pub fn compare_json(c: &Comparison, inputs: &[InputRecord]) -> Vec<u8> {
    let triple = |e: Estimate| json!({"estimate": number(e.value), "lower": number(e.lower), "upper": number(e.upper)});
    let verdicts: Vec<Value> = lines(c)
        .iter()
        .map(|r| {
            json!({
                "scope": r.scope,
                "statistic": r.statistic,
                "baseline": triple(r.baseline),
                "candidate": triple(r.candidate),
                "delta": triple(r.delta),
                "gain": triple(r.gain),
                "p_value": number(r.p_value),
                "p_holm": number(r.p_holm),
                "margin_better": match r.extra.statistic.better {
                    rsmreport_metrics::paired::Better::Larger => "larger",
                    rsmreport_metrics::paired::Better::Smaller => "smaller",
                },
                "margin": number(r.margin),
                "verdict": r.verdict.name(),
                "cross_check": r.extra.cross_check.map(|x| json!({
                    "method": x.method,
                    "lower": number(x.lower),
                    "upper": number(x.upper),
                    "p_value": number(x.p_value),
                })),
            })
        })
        .collect();
    let preflight: Vec<Value> = c
        .preflight
        .iter()
        .map(|r| json!({"item": r.item, "baseline": r.baseline, "candidate": r.candidate, "status": r.status}))
        .collect();
    let margins: serde_json::Map<String, Value> = c
        .margins
        .iter()
        .map(|(n, m)| (n.to_string(), number(*m)))
        .collect();
    let words: Vec<Value> = crate::kinds::common::verdict::Verdict::ALL
        .iter()
        .map(|v| json!({"verdict": v.name(), "condition": v.condition(), "meaning": v.meaning()}))
        .collect();
    let doc = json!({
        "compare_version": 1,
        "comparison_id": c.id,
        "baseline": c.baseline_label,
        "candidate": c.candidate_label,
        "score_type": c.score_type,
        "paired": c.paired,
        "intervals": c.settings.saved(),
        "notes": c.notes,
        "preflight": preflight,
        "verdicts": verdicts,
        "margins": margins,
        "verdict_words": words,
        "headline_score_types": {"baseline": c.headline[0], "candidate": c.headline[1]},
        "between": between_json(c),
        "gates": (!c.gates.is_empty()).then(|| crate::gates::json::summary(&c.gates)),
        "inputs": inputs_json(inputs),
    });
    rsmreport_io::output::json::bytes(&doc)
}

/// The tables, in the order their files are written.
pub fn frames(c: &Comparison) -> Vec<Frame> {
    let mut frames = vec![verdict_frame(c), preflight_frame(c)];
    frames.extend(section_frames(c));
    frames
}

/// The subgroup levels whose verdict is `regressed`, as `(subgroup,
/// row)`: listed on the terminal and in the report's Verdicts (compare
/// spec 2.5, 1).
pub fn regressed_levels(c: &Comparison) -> impl Iterator<Item = (&str, &LevelRow)> {
    c.groups
        .iter()
        .flat_map(|(g, rows)| rows.iter().map(move |r| (g.as_str(), r)))
        .filter(|(_, r)| r.row.verdict == crate::kinds::common::verdict::Verdict::Regressed)
}
