//! Command assembly (preferences): the tables of spec 4:
//! `<id>_annotator_metrics.csv` (sorted by strength), `<id>_overall.csv`,
//! `<id>_votes.csv`, `<id>_exclusions.csv` (and `<id>_model_traits.csv`),
//! and `<id>_preferences.json`.
//!
//! Produces bytes and text from an [`Analysis`]; computes nothing new and
//! writes nothing (the output stage does).

use std::path::Path;

use serde_json::{json, Value};

use rsmreport_io::output::json::number;

use super::models::{ModelScope, ModelTraits, ModelView};
use super::run::{Analysis, Scope, VoteColumn};
use anyhow::Result;
use rsmreport_core::schema::FileFormat;
use rsmreport_core::table::{text_values, Frame, Values};
use rsmreport_io::output::OutputFile;
use rsmreport_metrics::preferences::{
    AnnotatorIntervals, AnnotatorMetrics, Exclusions, Vote, VoteValue,
};

/// The measure columns of `<id>_annotator_metrics` and `<id>_model_traits`
/// (spec 4 and 6): the metrics, the intervals and `few_votes`.
pub const MEASURE_COLUMNS: [&str; 20] = [
    "votes",
    "agreed",
    "disagreed",
    "not_applicable",
    "agreement",
    "accuracy",
    "relevance",
    "kappa_randomized",
    "strength",
    "kappa",
    "p_value",
    "strength_lower",
    "strength_upper",
    "accuracy_lower",
    "accuracy_upper",
    "relevance_lower",
    "relevance_upper",
    "accuracy_exact_lower",
    "accuracy_exact_upper",
    "few_votes",
];

/// The columns of [`MEASURE_COLUMNS`] for `rows` (a metric and its
/// intervals each).
fn measure_values(rows: &[(&AnnotatorMetrics, &AnnotatorIntervals)]) -> Vec<Values> {
    let ints = |f: fn(&AnnotatorMetrics) -> u64| {
        Values::Int(rows.iter().map(|(m, _)| f(m) as i64).collect())
    };
    let floats = |f: fn(&AnnotatorMetrics, &AnnotatorIntervals) -> f64| {
        Values::Float(rows.iter().map(|(m, i)| f(m, i)).collect())
    };
    vec![
        ints(|m| m.votes),
        ints(|m| m.agreed),
        ints(|m| m.disagreed),
        ints(|m| m.not_applicable),
        floats(|m, _| m.agreement),
        floats(|m, _| m.accuracy),
        floats(|m, _| m.relevance),
        floats(|m, _| m.kappa_randomized),
        floats(|m, _| m.strength),
        floats(|m, _| m.kappa),
        floats(|m, _| m.p_value),
        floats(|_, i| i.strength.lower),
        floats(|_, i| i.strength.upper),
        floats(|_, i| i.accuracy.lower),
        floats(|_, i| i.accuracy.upper),
        floats(|_, i| i.relevance.lower),
        floats(|_, i| i.relevance.upper),
        floats(|_, i| i.accuracy_exact.0),
        floats(|_, i| i.accuracy_exact.1),
        Values::Bool(rows.iter().map(|(m, _)| m.few_votes()).collect()),
    ]
}

/// `heads` then [`MEASURE_COLUMNS`].
fn with_measures(heads: &[&'static str]) -> Vec<&'static str> {
    heads.iter().chain(&MEASURE_COLUMNS).copied().collect()
}

/// One row of the annotator table: scope and annotator index.
type MetricRow<'a> = (&'a Scope, usize);

/// The rows in table order: the whole set by strength, then every subset
/// value with the annotators in that same order.
fn metric_rows(a: &Analysis) -> Vec<MetricRow<'_>> {
    let order = a.by_strength();
    a.scopes
        .iter()
        .flat_map(|s| order.iter().map(move |&j| (s, j)))
        .collect()
}

/// `<id>_annotator_metrics`.
pub fn metrics_frame(a: &Analysis) -> Frame {
    let rows = metric_rows(a);
    let mut values = vec![
        text_values(rows.iter().map(|(_, j)| Some(a.annotators[*j].as_str()))),
        text_values(
            rows.iter()
                .map(|(_, j)| Some(a.annotator_names[*j].as_str())),
        ),
        text_values(rows.iter().map(|(s, _)| s.column.as_deref())),
        text_values(rows.iter().map(|(s, _)| Some(s.value.as_str()))),
    ];
    let measures: Vec<_> = rows
        .iter()
        .map(|(s, j)| (&s.metrics[*j], &s.intervals[*j]))
        .collect();
    values.extend(measure_values(&measures));
    let heads = [
        "annotator",
        "annotator_name",
        "subset_column",
        "subset_value",
    ];
    frame("annotator_metrics", &with_measures(&heads), values)
}

fn frame(name: &str, columns: &[&str], values: Vec<Values>) -> Frame {
    rsmreport_core::table::frame(name, columns.iter().copied().zip(values).collect())
}

/// `<id>_overall`: spec 3 per data set and subset value.
pub fn overall_frame(a: &Analysis) -> Frame {
    let s = &a.scopes;
    let num = |f: &dyn Fn(&Scope) -> f64| Values::Float(s.iter().map(f).collect());
    let values = vec![
        text_values(s.iter().map(|x| x.column.as_deref())),
        text_values(s.iter().map(|x| Some(x.value.as_str()))),
        Values::Int(s.iter().map(|x| x.overall.pairs as i64).collect()),
        num(&|x| x.overall.prop_text_a),
        num(&|x| x.overall.avg_len_text_a),
        num(&|x| x.overall.avg_len_text_b),
        num(&|x| x.overall.avg_len_preferred),
        num(&|x| x.overall.avg_len_rejected),
        num(&|x| x.overall.prop_prefer_longer),
    ];
    let columns = [
        "subset_column",
        "subset_value",
        "pairs",
        "prop_text_a",
        "avg_len_text_a",
        "avg_len_text_b",
        "avg_len_preferred",
        "avg_len_rejected",
        "prop_prefer_longer",
    ];
    frame("overall", &columns, values)
}

/// How a vote value is read (the `read_as` column).
pub fn vote_name(v: Vote) -> &'static str {
    match v {
        Vote::A => "text_a",
        Vote::B => "text_b",
        Vote::Tie => "tie",
        Vote::Invalid => "not valid",
        Vote::Missing => "blank",
    }
}

/// `<id>_votes`: every distinct vote value per column with its count.
pub fn votes_frame(a: &Analysis) -> Frame {
    let rows: Vec<(&VoteColumn, &VoteValue)> = a
        .votes
        .iter()
        .flat_map(|c| c.values.iter().map(move |v| (c, v)))
        .collect();
    let values = vec![
        text_values(rows.iter().map(|(c, _)| Some(c.column.as_str()))),
        text_values(rows.iter().map(|(c, _)| Some(c.name.as_str()))),
        text_values(rows.iter().map(|(c, _)| Some(c.role))),
        text_values(rows.iter().map(|(_, v)| v.raw.as_deref())),
        text_values(rows.iter().map(|(_, v)| Some(vote_name(v.vote)))),
        Values::Int(rows.iter().map(|(_, v)| v.count as i64).collect()),
    ];
    frame(
        "votes",
        &[
            "annotator",
            "annotator_name",
            "role",
            "value",
            "read_as",
            "count",
        ],
        values,
    )
}

/// The note of a target model that is never compared with a reference.
pub const NEVER_APPLICABLE: &str =
    "no pair compares this model with a reference model: prefers M is never applicable";

/// `<id>_model_traits`: per data set, target model and annotator (the
/// reference annotator last, role `reference`), the metrics against
/// `prefers M`. `None` without models.
pub fn model_traits_frame(a: &Analysis) -> Option<Frame> {
    let view = a.models.as_ref()?;
    let k = a.annotators.len();
    // (scope, model, column): column k is the reference annotator.
    let rows: Vec<(&ModelScope, &ModelTraits, usize)> = view
        .scopes
        .iter()
        .flat_map(|s| {
            s.models
                .iter()
                .flat_map(move |m| (0..=k).map(move |j| (s, m, j)))
        })
        .collect();
    let column = |j: usize| {
        if j == k {
            &a.reference
        } else {
            &a.annotators[j]
        }
    };
    let name = |j: usize| {
        if j == k {
            &a.reference_name
        } else {
            &a.annotator_names[j]
        }
    };
    let mut values = vec![
        text_values(rows.iter().map(|(_, _, j)| Some(column(*j).as_str()))),
        text_values(rows.iter().map(|(_, _, j)| Some(name(*j).as_str()))),
        text_values(
            rows.iter()
                .map(|(_, _, j)| Some(if *j == k { "reference" } else { "annotator" })),
        ),
        text_values(rows.iter().map(|(_, m, _)| Some(m.model.as_str()))),
        text_values(rows.iter().map(|(s, _, _)| s.column.as_deref())),
        text_values(rows.iter().map(|(s, _, _)| Some(s.value.as_str()))),
    ];
    let measures: Vec<_> = rows
        .iter()
        .map(|(_, m, j)| (&m.metrics[*j], &m.intervals[*j]))
        .collect();
    values.extend(measure_values(&measures));
    values
        .push(text_values(rows.iter().map(|(_, m, _)| {
            m.never_applicable().then_some(NEVER_APPLICABLE)
        })));
    let heads = [
        "annotator",
        "annotator_name",
        "role",
        "model",
        "subset_column",
        "subset_value",
    ];
    let mut columns = with_measures(&heads);
    columns.push("note");
    Some(frame("model_traits", &columns, values))
}

/// The exclusions of spec 1 as `(reason, pairs)`, the pairs used last.
pub fn exclusion_rows(e: &Exclusions) -> Vec<(&'static str, u64)> {
    vec![
        ("pairs read", e.rows),
        ("excluded: text_a or text_b empty", e.empty_text),
        (
            "excluded: reference vote is a tie (tie, both, neither)",
            e.reference_tie,
        ),
        ("excluded: reference vote is not valid", e.reference_invalid),
        ("excluded: reference vote is blank", e.reference_missing),
        ("pairs used", e.used()),
    ]
}

/// `<id>_exclusions`.
pub fn exclusions_frame(a: &Analysis) -> Frame {
    let rows = exclusion_rows(&a.all().exclusions);
    let values = vec![
        text_values(rows.iter().map(|r| Some(r.0))),
        Values::Int(rows.iter().map(|r| r.1 as i64).collect()),
    ];
    frame("exclusions", &["reason", "pairs"], values)
}

/// A frame as a list of JSON objects (column name -> value).
fn records(f: &Frame) -> Value {
    use rsmreport_core::table::Cell;
    let rows = (0..f.nrows())
        .map(|i| {
            let mut row = serde_json::Map::new();
            for c in &f.columns {
                let v = match c.values.cell(i) {
                    Cell::Missing => Value::Null,
                    Cell::Int(n) => json!(n),
                    Cell::Float(x) => number(x),
                    Cell::Text(s) => json!(s),
                    Cell::Bool(b) => json!(b),
                };
                row.insert(c.name.clone(), v);
            }
            Value::Object(row)
        })
        .collect();
    Value::Array(rows)
}

/// The model view's settings and, per target model on the whole data,
/// `prefers M`'s description and vote counts.
fn models_json(v: &ModelView) -> Value {
    let identity: serde_json::Map<String, Value> = v.scopes[0]
        .models
        .iter()
        .map(|m| {
            let [ta, tb, na] = m.identity_votes;
            let doc = json!({
                "description": v.description(&m.model),
                "votes": {"text_a": ta, "text_b": tb, "not_applicable": na},
                "num_pairs": ta + tb,
            });
            (m.model.clone(), doc)
        })
        .collect();
    json!({
        "available_models": v.available,
        "target_models": v.targets,
        "reference_models": v.references,
        "one_vs_all": v.one_vs_all,
        "identity_annotators": identity,
    })
}

/// `<id>_preferences.json` (`preferences_version` 1): the settings and
/// every table as records.
pub fn preferences_json(a: &Analysis) -> Vec<u8> {
    let doc = json!({
        "preferences_version": 1,
        "experiment_id": a.id,
        "producer": format!("rsmreport {}", env!("CARGO_PKG_VERSION")),
        "pairs_file": a.pairs_file.display().to_string(),
        "datasets": a.datasets.iter().map(|d| json!({
            "name": d.name,
            "file": d.file.display().to_string(),
            "rows": d.rows,
        })).collect::<Vec<_>>(),
        "reference": a.reference,
        "reference_name": a.reference_name,
        "annotators": a.annotators,
        "annotator_names": a.annotator_names,
        "subset_columns": a.subset_columns,
        "intervals": {
            "on": a.intervals_on,
            "level": a.spec.level,
            "replicates": a.spec.replicates,
            "seed": a.spec.seed,
            "unit": "pair",
        },
        "exclusions": records(&exclusions_frame(a)),
        "overall": records(&overall_frame(a)),
        "annotator_metrics": records(&metrics_frame(a)),
        "votes": records(&votes_frame(a)),
        "models": a.models.as_ref().map(models_json),
        "model_traits": model_traits_frame(a).map(|f| records(&f)),
    });
    rsmreport_io::output::json::bytes(&doc)
}

/// The tables and the JSON.
/// The tables, in the order their files are written.
pub fn frames(a: &Analysis) -> Vec<Frame> {
    let mut frames = vec![
        metrics_frame(a),
        overall_frame(a),
        votes_frame(a),
        exclusions_frame(a),
    ];
    frames.extend(model_traits_frame(a));
    frames
}

pub fn data_files(a: &Analysis, format: FileFormat, epoch: i64) -> Result<Vec<OutputFile>> {
    let out = Path::new("output");
    let mut files: Vec<OutputFile> = frames(a)
        .iter()
        .map(|f| rsmreport_io::output::table_file(&a.id, f, format, epoch))
        .collect::<Result<_>>()?;
    files.push(OutputFile {
        path: out.join(format!("{}_preferences.json", a.id)),
        bytes: preferences_json(a),
    });
    Ok(files)
}
