//! Command assembly (train): the file catalogue of train.md 11 as frames
//! (the partitions' frames, composition, the feature and model tables,
//! predictions and postprocessing, the training analyses, `build`'s
//! evaluation tables), the `feature/<id>_selected` table, and the summary
//! `<id>_summary.json` (`build`'s evaluation summary, through its own
//! writer, with the kind's fields added).
//!
//! Builds frames and JSON from a finished run; reads and writes nothing.

use std::borrow::Cow;
use std::collections::BTreeSet;

use rsmreport_core::table::{Column, Frame, Text, Values};
use rsmreport_metrics::linear::predict::Predictions;
use rsmreport_metrics::linear::FeatureMatrix;
use serde_json::{json, Value};

use super::partition::Part;
use super::run::Trained;

/// The version of the summary's shape (`build`'s, with the kind's fields).
pub const SUMMARY_VERSION: u64 = crate::kinds::evaluation::tables::SUMMARY_VERSION;

fn texts<S: AsRef<str>>(v: &[S]) -> Values {
    Values::Text(v.iter().map(|s| Some(s.as_ref().into())).collect())
}

fn ids(part: &Part) -> Column {
    Column::new(
        "spkitemid",
        Values::Text(part.ids.iter().map(|i| Some(i.clone())).collect()),
    )
}

/// `<p>_excluded_composition` (train.md 9; the label column always).
fn excluded_composition(part: &Part, listwise: bool, zeros_excluded: bool) -> Frame {
    let c = &part.composition;
    let mut first: Vec<Option<i64>> = c.iter().map(|r| Some(r[0] as i64)).collect();
    if !listwise {
        first[0] = None;
    }
    if !zeros_excluded {
        first[1] = None;
    }
    let first = if first.iter().any(Option::is_none) {
        Values::Float(
            first
                .iter()
                .map(|x| x.map_or(f64::NAN, |v| v as f64))
                .collect(),
        )
    } else {
        Values::Int(first.iter().map(|x| x.unwrap_or(0)).collect())
    };
    Frame::new(
        format!("{}_excluded_composition", part.name),
        None,
        vec![
            Column::new(
                "Score/Features",
                texts(&[
                    "numeric non-zero human score",
                    "zero human score",
                    "non-numeric human score",
                ]),
            ),
            Column::new("all features numeric", first),
            Column::new(
                "non-numeric feature values",
                Values::Int(c.iter().map(|r| r[1] as i64).collect()),
            ),
        ],
    )
}

fn distinct(v: &[Text]) -> BTreeSet<&str> {
    v.iter().map(|t| t.as_ref()).collect()
}

/// `data_composition` and `data_composition_by_<g>` (train.md 9).
fn data_composition(t: &Trained) -> Vec<Frame> {
    let (tr, te) = (&t.train, &t.test);
    let sets = |a: BTreeSet<&str>, b: BTreeSet<&str>| -> [i64; 4] {
        let both = a.intersection(&b).count() as i64;
        let all = a.union(&b).count() as i64;
        [a.len() as i64, b.len() as i64, both, all]
    };
    let mut cols = vec![
        Column::new(
            "partition",
            texts(&["Training", "Evaluation", "Overlapping", "Total"]),
        ),
        Column::new(
            "responses",
            Values::Int(sets(distinct(&tr.ids), distinct(&te.ids)).to_vec()),
        ),
    ];
    if let (Some(a), Some(b)) = (&tr.candidates, &te.candidates) {
        cols.push(Column::new(
            "candidates",
            Values::Int(sets(distinct(a), distinct(b)).to_vec()),
        ));
    }
    for ((g, a), (_, b)) in tr.groups.iter().zip(&te.groups) {
        cols.push(Column::new(
            g.clone(),
            Values::Int(sets(distinct(a), distinct(b)).to_vec()),
        ));
    }
    let mut out = vec![Frame::new("data_composition", None, cols)];
    for ((g, a), (_, b)) in tr.groups.iter().zip(&te.groups) {
        let levels: BTreeSet<&str> = distinct(a).union(&distinct(b)).copied().collect();
        let count = |v: &[Text], l: &str| v.iter().filter(|t| t.as_ref() == l).count() as i64;
        let levels: Vec<&str> = levels.into_iter().collect();
        out.push(Frame::new(
            format!("data_composition_by_{g}"),
            None,
            vec![
                Column::new(g.clone(), texts(&levels)),
                Column::new(
                    "Training set",
                    Values::Int(levels.iter().map(|l| count(a, l)).collect()),
                ),
                Column::new(
                    "Evaluation set",
                    Values::Int(levels.iter().map(|l| count(b, l)).collect()),
                ),
            ],
        ));
    }
    out
}

fn name_value(name: &str, rows: &[(String, f64)], value: &str) -> Frame {
    let names: Vec<&str> = rows.iter().map(|(n, _)| n.as_str()).collect();
    Frame::new(
        name,
        None,
        vec![
            Column::new("feature", texts(&names)),
            Column::new(value, Values::Float(rows.iter().map(|(_, v)| *v).collect())),
        ],
    )
}

/// `feature`, `coefficients`, `betas`, `model_fit` (train.md 5, 6).
fn model_tables(t: &Trained) -> Vec<Frame> {
    let st: Vec<_> = t
        .stats
        .iter()
        .filter(|s| t.selected.contains(&s.name))
        .collect();
    let floats = |f: fn(&rsmreport_metrics::linear::FeatureStats) -> f64| {
        Values::Float(st.iter().map(|s| f(s)).collect())
    };
    let names: Vec<&str> = st.iter().map(|s| s.name.as_str()).collect();
    let transforms: Vec<&str> = st.iter().map(|s| s.transform.name()).collect();
    let mut out = vec![Frame::new(
        "feature",
        None,
        vec![
            Column::new("feature", texts(&names)),
            Column::new("transform", texts(&transforms)),
            Column::new("sign", floats(|s| s.sign)),
            Column::new("train_mean", floats(|s| s.train_mean)),
            Column::new("train_sd", floats(|s| s.train_sd)),
            Column::new(
                "train_transformed_mean",
                floats(|s| s.train_transformed_mean),
            ),
            Column::new("train_transformed_sd", floats(|s| s.train_transformed_sd)),
        ],
    )];
    out.push(name_value(
        "coefficients",
        &t.fitted.coefficients,
        "coefficient",
    ));
    let b = &t.fitted.betas;
    let bnames: Vec<&str> = b.iter().map(|x| x.feature.as_str()).collect();
    out.push(Frame::new(
        "betas",
        None,
        vec![
            Column::new("feature", texts(&bnames)),
            Column::new(
                "standardized",
                Values::Float(b.iter().map(|x| x.standardized).collect()),
            ),
            Column::new(
                "relative",
                Values::Float(b.iter().map(|x| x.relative).collect()),
            ),
        ],
    ));
    if let Some(m) = &t.fitted.model_fit {
        out.push(Frame::new(
            "model_fit",
            None,
            vec![
                Column::new("N responses", Values::Int(vec![m.n_responses as i64])),
                Column::new("N features", Values::Int(vec![m.n_features as i64])),
                Column::new("R2", Values::Float(vec![m.r2])),
                Column::new("R2_adjusted", Values::Float(vec![m.r2_adjusted])),
            ],
        ));
    }
    out
}

/// `pred_train` or `pred_processed` (train.md 7).
fn predictions(name: &str, part: &Part, p: &Predictions) -> Frame {
    let ints = |v: &[i64]| Values::Int(v.to_vec());
    Frame::new(
        name,
        None,
        vec![
            ids(part),
            Column::new("raw", Values::Float(p.raw.clone())),
            Column::new("sc1", Values::Float(part.sc1.clone())),
            Column::new("scale", Values::Float(p.scale.clone())),
            Column::new("raw_trim", Values::Float(p.raw_trim.clone())),
            Column::new("raw_trim_round", ints(&p.raw_trim_round)),
            Column::new("scale_trim", Values::Float(p.scale_trim.clone())),
            Column::new("scale_trim_round", ints(&p.scale_trim_round)),
        ],
    )
}

/// `<p>_features` (raw) or `<p>_preprocessed_features`: `spkitemid, sc1,
/// <F>`.
fn features(name: String, part: &Part, cols: &[&[f64]], f: &[String]) -> Frame {
    let mut out = vec![
        ids(part),
        Column::new("sc1", Values::Float(part.sc1.clone())),
    ];
    for (n, c) in f.iter().zip(cols) {
        out.push(Column::new(n.clone(), Values::Float(c.to_vec())));
    }
    Frame::new(name, None, out)
}

fn matrix_columns(x: &FeatureMatrix) -> Vec<&[f64]> {
    (0..x.n_features()).map(|j| x.column(j)).collect()
}

/// `pred_train`, `pred_processed`, `postprocessing_params`,
/// `coefficients_scaled` (train.md 7).
fn postprocessing_tables(t: &Trained) -> Vec<Frame> {
    let p = &t.post;
    let params: [(&str, f64); 7] = [
        ("trim_min", p.trim_min),
        ("trim_max", p.trim_max),
        ("trim_tolerance", p.trim_tolerance),
        ("h1_mean", p.h1_mean),
        ("h1_sd", p.h1_sd),
        ("train_predictions_mean", p.train_predictions_mean),
        ("train_predictions_sd", p.train_predictions_sd),
    ];
    let scaled = p.scaled_coefficients(t.fitted.intercept, &t.fitted.feature_coefficients());
    vec![
        Frame::new(
            "postprocessing_params",
            None,
            params
                .iter()
                .map(|(n, v)| Column::new(*n, Values::Float(vec![*v])))
                .collect(),
        ),
        name_value("coefficients_scaled", &scaled, "coefficient"),
    ]
}

/// The per-response tables made from the run's vectors: made one at a time
/// when written (each is as large as the data).
pub const LARGE: [&str; 6] = [
    "train_features",
    "test_features",
    "train_preprocessed_features",
    "test_preprocessed_features",
    "pred_train",
    "pred_processed",
];

/// One of [`LARGE`].
pub fn large_frame(t: &Trained, name: &str) -> Frame {
    fn raw(p: &Part) -> Vec<&[f64]> {
        p.raw.iter().map(Vec::as_slice).collect()
    }
    let f = &t.train.features;
    match name {
        "train_features" => features(name.into(), &t.train, &raw(&t.train), f),
        "test_features" => features(name.into(), &t.test, &raw(&t.test), f),
        "train_preprocessed_features" => {
            features(name.into(), &t.train, &matrix_columns(&t.pre_train), f)
        }
        "test_preprocessed_features" => {
            features(name.into(), &t.test, &matrix_columns(&t.pre_test), f)
        }
        "pred_train" => predictions(name, &t.train, &t.pred_train),
        _ => predictions("pred_processed", &t.test, &t.pred_test),
    }
}

/// The tables of one value per feature, level or statistic that the run
/// makes for the writer and the report: composition (9), the model (5,
/// 6) and the postprocessing (7).
pub fn small_frames(t: &Trained) -> Vec<Frame> {
    let cfg = &t.cfg;
    let listwise = cfg.min_items_per_candidate.is_some();
    let mut out = vec![
        excluded_composition(&t.train, listwise, cfg.exclude_zero_scores),
        excluded_composition(&t.test, listwise, cfg.exclude_zero_scores),
    ];
    out.extend(data_composition(t));
    out.extend(model_tables(t));
    out.extend(postprocessing_tables(t));
    out
}

/// Every table of `output/` in write order, each handed to `each` as soon
/// as it exists (the large ones made just before and dropped after): the
/// partitions' frames, the per-response tables, composition, the model,
/// the training analyses and the evaluation (the writer skips empty
/// Every table, in write order (train.md 11; empty tables skipped): the
/// partitions' tables, then the per-response tables, each made only when
/// the writer asks for it (one at a time: peak memory at 1M responses x 40
/// features), then the small tables and the analyses.
pub fn each_table(t: &Trained) -> crate::kinds::Tables<'_> {
    let borrowed = t
        .train
        .frames
        .iter()
        .chain(&t.test.frames)
        .map(Cow::Borrowed);
    let large = LARGE
        .iter()
        .map(move |name| Cow::Owned(large_frame(t, name)));
    let small = std::iter::once_with(move || small_frames(t))
        .flatten()
        .map(Cow::Owned);
    let analyses = t
        .analyses
        .iter()
        .chain(&t.evaluation.analysis.frames)
        .map(Cow::Borrowed);
    Box::new(
        borrowed
            .chain(large)
            .chain(small)
            .chain(analyses)
            .filter(|f| f.is_writable()),
    )
}

/// The tables the report shows: every table but the per-response ones.
pub fn report_frames(t: &Trained) -> Vec<Frame> {
    let mut out = small_frames(t);
    out.extend(t.analyses.iter().cloned());
    out.extend(t.evaluation.analysis.frames.iter().cloned());
    out
}

/// The names of every table written, in write order (without making the
/// per-response ones).
pub fn names(t: &Trained) -> Vec<String> {
    let mut out: Vec<String> = t
        .train
        .frames
        .iter()
        .chain(&t.test.frames)
        .filter(|f| f.is_writable())
        .map(|f| f.name.clone())
        .collect();
    out.extend(LARGE.iter().map(|n| n.to_string()));
    out.extend(
        report_frames(t)
            .iter()
            .filter(|f| f.is_writable())
            .map(|f| f.name.clone()),
    );
    out
}

/// Every table (tests and the table catalogue).
pub fn frames(t: &Trained) -> Vec<Frame> {
    each_table(t).map(Cow::into_owned).collect()
}

/// The summary: `build`'s summary of the evaluation (the same shape, so
/// `compare` and `summarize` read it), with `kind`, `description`, the
/// model and the training partition.
pub fn summary(t: &Trained) -> Value {
    let bytes = crate::kinds::evaluation::tables::summary_json(&t.evaluation);
    let mut v: Value = serde_json::from_slice(&bytes).expect("the evaluation summary is JSON");
    if let Value::Object(m) = &mut v {
        let mut out = serde_json::Map::new();
        out.insert("kind".into(), json!("train"));
        out.insert("summary_version".into(), json!(SUMMARY_VERSION));
        out.insert("experiment_id".into(), json!(t.cfg.experiment_id));
        out.insert("model_version".into(), json!(t.cfg.model_version));
        out.insert("description".into(), json!(t.cfg.description));
        for (k, x) in std::mem::take(m) {
            out.entry(k).or_insert(x);
        }
        let fit = t.fitted.model_fit.map(|f| {
            json!({
                "N responses": f.n_responses,
                "N features": f.n_features,
                "R2": rsmreport_io::output::json::number(f.r2),
                "R2_adjusted": rsmreport_io::output::json::number(f.r2_adjusted),
            })
        });
        out.insert(
            "model".into(),
            json!({
                "name": t.cfg.model.name(),
                "features": t.selected,
                "intercept": rsmreport_io::output::json::number(t.fitted.intercept),
                "coefficients": t.fitted.feature_coefficients().iter().map(|(n, c)| {
                    json!({"feature": n, "coefficient": rsmreport_io::output::json::number(*c)})
                }).collect::<Vec<_>>(),
                "model_fit": fit,
                "postprocessing": super::model::postprocessing_json(&t.post),
            }),
        );
        out.insert(
            "training".into(),
            json!({
                "n_read": t.train.n_read,
                "n_responses": t.train.ids.len(),
                "n_excluded": t.train.removed.total(),
            }),
        );
        *m = out;
    }
    v
}
