//! Command assembly (spans): the tables of `spec/spans.md` 5 as `Frame`s
//! (columns in the spec's order; NaN is an empty cell) and
//! `<id>_summary.json` (`output::json::number`: NaN is `null`).
//!
//! Computes nothing new: formats what `run` and `resample` computed.

use serde_json::{json, Map, Value};

use super::resample::STATISTICS;
use super::Analysis;
use crate::kinds::common::comparison::{self, Column, Field, Spelling};
use rsmreport_core::table::{frame, text_values, Frame, Values};
use rsmreport_io::output::json::number;
use rsmreport_metrics::spans::agreement::{mean_sd, Abc, Boundaries, CRITERIA};
use rsmreport_metrics::spans::nervaluate::SCHEMES;

/// One cell while a table is built.
#[derive(Clone, Debug)]
pub enum C {
    S(String),
    I(i64),
    F(f64),
    /// An empty cell of a numeric column.
    N,
}

fn s(x: impl Into<String>) -> C {
    C::S(x.into())
}

fn i(x: impl TryInto<i64>) -> C {
    C::I(x.try_into().unwrap_or(i64::MAX))
}

/// Rows to a frame; a column's type is its first non-empty cell's.
pub fn build(name: &str, columns: &[&str], rows: Vec<Vec<C>>) -> Frame {
    let cols = columns
        .iter()
        .enumerate()
        .map(|(j, c)| {
            let cells: Vec<&C> = rows.iter().map(|r| &r[j]).collect();
            let kind = cells.iter().find(|c| !matches!(c, C::N));
            let v = match kind {
                Some(C::S(_)) => text_values(cells.iter().map(|c| match c {
                    C::S(t) => Some(t.as_str()),
                    _ => None,
                })),
                Some(C::I(_)) if cells.iter().all(|c| matches!(c, C::I(_))) => Values::Int(
                    cells
                        .iter()
                        .map(|c| if let C::I(x) = c { *x } else { 0 })
                        .collect(),
                ),
                _ => Values::Float(
                    cells
                        .iter()
                        .map(|c| match c {
                            C::F(x) => *x,
                            C::I(x) => *x as f64,
                            _ => f64::NAN,
                        })
                        .collect(),
                ),
            };
            (*c, v)
        })
        .collect();
    frame(name, cols)
}

/// Every table, in the order their files are written.
pub fn frames(a: &Analysis) -> Vec<Frame> {
    let mut out = vec![span_agreement(a), pairs(a), by_type(a), by_document(a)];
    out.extend(confusion(a));
    out.push(boundaries(a));
    out.extend(profiles(a));
    if a.res.reference.is_some() {
        out.push(system_scores(a));
        out.extend(token_scores(a));
        out.push(nervaluate(a));
        if a.res.systems.len() > 1 {
            out.push(comparisons(a));
        }
    }
    out.extend(super::subgroups::frames(a));
    if !a.res.agreeing() {
        out.retain(|f| !is_agreement(&f.name));
    }
    out
}

/// A table of the agreement among annotators (spec 5.1-5.6 and
/// `span_agreement_by_<g>`): empty, hence not written, when fewer than
/// two annotators are compared.
pub fn is_agreement(table: &str) -> bool {
    table.starts_with("span_agreement")
        || table.starts_with("type_")
        || table == "boundary_disagreements"
}

fn name(a: &Analysis, k: usize) -> &str {
    &a.data.annotators[k]
}

/// Per criterion: n_pairs, undefined, mean, sd, pooled, matched, unmatched.
pub struct CriterionRow {
    pub n_pairs: usize,
    pub undefined: usize,
    pub mean: f64,
    pub sd: f64,
    pub pooled: f64,
    pub sums: Abc,
}

/// The summary of pair F1s and summed counts.
pub fn criterion_row(f1s: &[f64], sums: &[Abc]) -> CriterionRow {
    let (mean, sd, undefined) = mean_sd(f1s);
    let mut total = Abc::default();
    for x in sums {
        total += *x;
    }
    CriterionRow {
        n_pairs: f1s.len(),
        undefined,
        mean,
        sd,
        pooled: total.f1(),
        sums: total,
    }
}

/// The headline rows of spec 5.1, per criterion.
pub fn agreement_rows(a: &Analysis) -> Vec<CriterionRow> {
    (0..4)
        .map(|k| {
            let f1s: Vec<f64> = a
                .res
                .pairs
                .iter()
                .map(|p| super::run::pair_f1(p, k))
                .collect();
            let sums: Vec<Abc> = a.res.pairs.iter().map(|p| p.sums[k]).collect();
            criterion_row(&f1s, &sums)
        })
        .collect()
}

fn span_agreement(a: &Analysis) -> Frame {
    let rows = agreement_rows(a)
        .into_iter()
        .enumerate()
        .map(|(k, r)| {
            let iv = &a.agree_iv.mean[k];
            vec![
                s(CRITERIA[k]),
                i(r.n_pairs),
                i(r.undefined),
                C::F(r.mean),
                C::F(r.sd),
                C::F(iv.lower),
                C::F(iv.upper),
                C::F(r.pooled),
                i(r.sums.a),
                i(r.sums.b + r.sums.c),
            ]
        })
        .collect();
    build(
        "span_agreement",
        &[
            "criterion",
            "n_pairs",
            "n_pairs_undefined",
            "mean_pairwise_f1",
            "sd_pairwise_f1",
            "lower",
            "upper",
            "pooled_f1",
            "matched",
            "unmatched",
        ],
        rows,
    )
}

fn pairs(a: &Analysis) -> Frame {
    let mut rows = Vec::new();
    for (pi, p) in a.res.pairs.iter().enumerate() {
        for (k, c) in CRITERIA.iter().enumerate() {
            let iv = &a.agree_iv.pairs[pi][k];
            rows.push(vec![
                s(name(a, p.i)),
                s(name(a, p.j)),
                s(*c),
                i(p.n_documents),
                i(p.sums[k].a),
                i(p.sums[k].b),
                i(p.sums[k].c),
                C::F(super::run::pair_f1(p, k)),
                C::F(iv.lower),
                C::F(iv.upper),
            ]);
        }
    }
    build(
        "span_agreement_pairs",
        &[
            "rater_1",
            "rater_2",
            "criterion",
            "n_documents",
            "matched",
            "only_1",
            "only_2",
            "f1",
            "lower",
            "upper",
        ],
        rows,
    )
}

fn by_type(a: &Analysis) -> Frame {
    let mut rows = Vec::new();
    for (l, label) in a.data.labels.iter().enumerate() {
        for (k, c) in [(0usize, "strict"), (1, "overlap")] {
            let sums: Vec<Abc> = a.res.pairs.iter().map(|p| p.by_label[l][k]).collect();
            let f1s: Vec<f64> = a
                .res
                .pairs
                .iter()
                .zip(&sums)
                .map(|(p, x)| if p.n_documents == 0 { f64::NAN } else { x.f1() })
                .collect();
            let r = criterion_row(&f1s, &sums);
            rows.push(vec![
                s(label.as_str()),
                s(c),
                i(r.n_pairs),
                i(r.undefined),
                C::F(r.mean),
                C::F(r.sd),
                C::F(r.pooled),
                i(r.sums.a),
                i(r.sums.b + r.sums.c),
            ]);
        }
    }
    build(
        "span_agreement_by_type",
        &[
            "label",
            "criterion",
            "n_pairs",
            "n_pairs_undefined",
            "mean_pairwise_f1",
            "sd_pairwise_f1",
            "pooled_f1",
            "matched",
            "unmatched",
        ],
        rows,
    )
}

fn by_document(a: &Analysis) -> Frame {
    let rows = a
        .res
        .documents
        .iter()
        .map(|r| {
            vec![
                s(a.data.documents[r.doc].as_str()),
                i(r.n_annotators),
                i(r.n_pairs),
                i(r.n_undefined),
                C::F(r.mean_f1),
                C::F(r.sd_f1),
                C::F(r.mean_f1_overlap),
                i(r.n_spans),
            ]
        })
        .collect();
    build(
        "span_agreement_by_document",
        &[
            "document",
            "n_annotators",
            "n_pairs",
            "n_pairs_undefined",
            "mean_f1",
            "sd_f1",
            "mean_f1_overlap",
            "n_spans",
        ],
        rows,
    )
}

fn confusion(a: &Analysis) -> Vec<Frame> {
    let q = a.data.labels.len();
    let mut rows = Vec::new();
    let mut agree = Vec::new();
    for p in &a.res.pairs {
        for (by, counts, left) in [
            ("exact", &p.exact_labels, p.exact_left_out),
            ("overlap_any", &p.any_labels, 0),
        ] {
            let (mut n, mut same) = (0u64, 0u64);
            for (&(l1, l2), &c) in counts {
                rows.push(vec![
                    s(name(a, p.i)),
                    s(name(a, p.j)),
                    s(by),
                    s(a.data.labels[l1 as usize].as_str()),
                    s(a.data.labels[l2 as usize].as_str()),
                    i(c),
                ]);
                n += c;
                if l1 == l2 {
                    same += c;
                }
            }
            agree.push(vec![
                s(name(a, p.i)),
                s(name(a, p.j)),
                s(by),
                i(n),
                i(same),
                C::F(same as f64 / n as f64),
                C::F(super::run::kappa_of(counts, q)),
                i(left),
            ]);
        }
    }
    vec![
        build(
            "type_confusion",
            &[
                "rater_1",
                "rater_2",
                "matched_by",
                "label_1",
                "label_2",
                "count",
            ],
            rows,
        ),
        build(
            "type_agreement",
            &[
                "rater_1",
                "rater_2",
                "matched_by",
                "n_matched",
                "n_same_label",
                "percent_same",
                "cohen_kappa",
                "n_left_out",
            ],
            agree,
        ),
    ]
}

fn boundary_row(r1: &str, r2: &str, b: &Boundaries) -> Vec<C> {
    let (ms, me) = b.means();
    vec![
        s(r1),
        s(r2),
        i(b.matched),
        i(b.identical),
        i(b.start_only),
        i(b.end_only),
        i(b.containment + b.crossing),
        i(b.containment),
        i(b.crossing),
        C::F(ms),
        C::F(me),
    ]
}

fn boundaries(a: &Analysis) -> Frame {
    let mut all = Boundaries::default();
    let mut rows = Vec::new();
    for p in &a.res.pairs {
        all.merge(&p.boundaries);
        rows.push(boundary_row(name(a, p.i), name(a, p.j), &p.boundaries));
    }
    rows.push(boundary_row("(all)", "(all)", &all));
    build(
        "boundary_disagreements",
        &[
            "rater_1",
            "rater_2",
            "matched",
            "identical",
            "start_only",
            "end_only",
            "both",
            "containment",
            "crossing",
            "mean_abs_start_diff",
            "mean_abs_end_diff",
        ],
        rows,
    )
}

fn profiles(a: &Analysis) -> Vec<Frame> {
    let nd = a.data.documents.len();
    let t = a.data.tokens.as_ref();
    let mut rows = Vec::new();
    let mut dist = Vec::new();
    for (k, p) in a.res.profiles.iter().enumerate() {
        rows.push(vec![
            s(name(a, k)),
            i(p.n_documents),
            i(nd - p.n_documents),
            i(p.n_spans),
            i(p.n_duplicates),
            C::F(p.mean_length),
            i(p.n_overlapping),
            C::F(p.mean_f1_strict),
            t.map_or(C::N, |t| i(t.invalid[k])),
            t.map_or(C::N, |t| i(t.outside[k])),
        ]);
        for (l, &c) in p.labels.iter().enumerate() {
            if c > 0 {
                dist.push(vec![s(name(a, k)), s(a.data.labels[l].as_str()), i(c)]);
            }
        }
    }
    vec![
        build(
            "annotator_profiles",
            &[
                "annotator",
                "n_documents",
                "n_documents_missing",
                "n_spans",
                "n_duplicates",
                "mean_length",
                "n_overlapping",
                "mean_f1_strict",
                "n_invalid_transitions",
                "n_outside_scheme",
            ],
            rows,
        ),
        build("label_distribution", &["annotator", "label", "count"], dist),
    ]
}

fn system_scores(a: &Analysis) -> Frame {
    let mut rows = Vec::new();
    for sys in &a.res.systems {
        for (mode, per_type, avg) in &sys.modes {
            let named = per_type
                .iter()
                .map(|(l, r)| (a.data.labels[*l as usize].as_str(), r))
                .chain(
                    ["micro avg", "macro avg", "weighted avg"]
                        .into_iter()
                        .zip(avg.iter()),
                );
            for (label, r) in named {
                rows.push(vec![
                    s(name(a, sys.annotator)),
                    s(*mode),
                    s(label),
                    C::F(r.precision),
                    C::F(r.recall),
                    C::F(r.f1),
                    i(r.counts.support),
                    i(r.counts.predicted),
                    i(r.counts.correct),
                ]);
            }
        }
    }
    build(
        "system_scores",
        &[
            "system",
            "mode",
            "label",
            "precision",
            "recall",
            "f1",
            "support",
            "predicted",
            "correct",
        ],
        rows,
    )
}

/// Token input with a reference: every system's tags against the
/// reference's, as written (spec 10; seqeval's `accuracy_score` and
/// `performance_measure`).
fn token_scores(a: &Analysis) -> Option<Frame> {
    let t = a.data.tokens.as_ref()?;
    let rows = a
        .res
        .systems
        .iter()
        .map(|sys| {
            let c = &t.token_counts[sys.annotator];
            vec![
                s(name(a, sys.annotator)),
                i(c.tokens),
                i(c.matching),
                C::F(c.accuracy()),
                i(c.tp),
                i(c.fp),
                i(c.fn_),
                i(c.tn),
            ]
        })
        .collect();
    Some(build(
        "token_scores",
        &[
            "system", "tokens", "matching", "accuracy", "tp", "fp", "fn", "tn",
        ],
        rows,
    ))
}

fn nervaluate(a: &Analysis) -> Frame {
    let mut rows = Vec::new();
    for sys in &a.res.systems {
        let b = &sys.nervaluate;
        let blocks = std::iter::once(("(overall)", &b.overall)).chain(
            b.by_label
                .iter()
                .map(|(l, r)| (a.data.labels[*l as usize].as_str(), r)),
        );
        for (label, results) in blocks {
            for (k, r) in results.iter().enumerate() {
                rows.push(vec![
                    s(name(a, sys.annotator)),
                    s(label),
                    s(SCHEMES[k]),
                    i(r.correct),
                    i(r.incorrect),
                    i(r.partial),
                    i(r.missed),
                    i(r.spurious),
                    i(r.actual),
                    i(r.possible),
                    C::F(r.precision),
                    C::F(r.recall),
                    C::F(r.f1),
                ]);
            }
        }
    }
    build(
        "nervaluate",
        &[
            "system",
            "label",
            "scheme",
            "correct",
            "incorrect",
            "partial",
            "missed",
            "spurious",
            "actual",
            "possible",
            "precision",
            "recall",
            "f1",
        ],
        rows,
    )
}

/// `<id>_system_comparisons`: the shared comparison table without each
/// side's own interval (spans has none) and without `paired` or `margin`.
fn comparisons(a: &Analysis) -> Frame {
    let rows: Vec<_> = a.sys_iv.comparisons.iter().collect();
    let columns = Column::span(Field::BaselineSystem, Field::Baseline)
        .chain([Column::Field(Field::Candidate)])
        .chain(Column::span(Field::Delta, Field::Verdict))
        .collect();
    let names: Vec<&str> = a.data.annotators.iter().map(String::as_str).collect();
    comparison::frame(
        "system_comparisons",
        &rows,
        columns,
        &names,
        Spelling::Lower,
    )
}

/// `<id>_summary.json` (spec 5.12).
pub fn summary(a: &Analysis) -> Value {
    let mut agreement = Map::new();
    for (k, r) in agreement_rows(a).into_iter().enumerate() {
        let iv = &a.agree_iv.mean[k];
        agreement.insert(
            CRITERIA[k].into(),
            json!({
                "mean_pairwise_f1": number(r.mean),
                "lower": number(iv.lower),
                "upper": number(iv.upper),
                "pooled_f1": number(r.pooled),
                "n_pairs": r.n_pairs,
                "n_pairs_undefined": r.undefined,
            }),
        );
    }
    let mut out = Map::new();
    out.insert("summary_version".into(), json!(1));
    out.insert("kind".into(), json!("spans"));
    out.insert("experiment_id".into(), json!(a.cfg.experiment_id));
    out.insert("data".into(), data_json(a));
    out.insert("agreement".into(), Value::Object(agreement));
    if let Some(r) = a.res.reference {
        out.insert("reference".into(), json!(name(a, r)));
        let mut systems = Map::new();
        for (k, sys) in a.res.systems.iter().enumerate() {
            let avg = &sys.modes[sys.headline].2;
            let values = [avg[0].f1, avg[1].f1, avg[0].precision, avg[0].recall];
            let mut m = Map::new();
            for (j, stat) in STATISTICS.iter().enumerate() {
                m.insert((*stat).into(), number(values[j]));
                let iv = &a.sys_iv.stats[k][j];
                m.insert(format!("{stat}_lower"), number(iv.lower));
                m.insert(format!("{stat}_upper"), number(iv.upper));
            }
            if let Some(c) = a
                .sys_iv
                .comparisons
                .iter()
                .find(|c| c.candidate_system == sys.annotator && c.statistic == "micro_f1")
            {
                m.insert("verdict".into(), json!(c.verdict.name()));
            }
            systems.insert(name(a, sys.annotator).to_string(), Value::Object(m));
        }
        out.insert("systems".into(), Value::Object(systems));
        if a.res.systems.len() > 1 {
            if let Some(b) = a.res.baseline {
                out.insert("baseline".into(), json!(name(a, b)));
            }
        }
    }
    if !a.res.under_test.is_empty() {
        out.insert("roles".into(), roles_json(a));
    }
    Value::Object(out)
}

/// With `systems` (spec 1, roles): who is a system under test, who is in
/// the agreement tables, and the headline in words, the systems' verdict
/// first, then the human annotators' agreement.
fn roles_json(a: &Analysis) -> Value {
    let names = |v: &[usize]| -> Vec<&str> { v.iter().map(|&k| name(a, k)).collect() };
    json!({
        "systems_under_test": names(&a.res.under_test),
        "agreement_annotators": names(&a.res.raters),
        "agreement_includes_reference": a.cfg.agreement_includes_reference,
        "headline": {
            "systems": super::roles::systems_sentence(a),
            "agreement": super::roles::capitalised(&super::roles::agreement_sentence(a)),
        },
    })
}

/// Per annotator with unknown tags (spec 10): their count and the first
/// (file, line, column, tag).
fn unknown_tags_json(a: &Analysis) -> Value {
    let d = &a.data;
    let t = d.tokens.as_ref().expect("token input");
    let file = a.cfg.input_file.display().to_string();
    let mut m = Map::new();
    for (k, first) in t.first_unknown.iter().enumerate() {
        if let Some((line, tag)) = first {
            m.insert(
                d.annotators[k].clone(),
                json!({"count": t.unknown[k], "first": {"file": file, "line": line, "column": d.annotators[k], "tag": tag}}),
            );
        }
    }
    Value::Object(m)
}

/// What was read (the fixtures' `data` block): annotators, documents,
/// spans read and distinct, labels, and for token input the sentences,
/// tokens and first problem per annotator; Prodigy's skipped lines.
fn data_json(a: &Analysis) -> Value {
    let d = &a.data;
    let read: usize = d.spans.iter().flatten().map(Vec::len).sum();
    let distinct: usize = a.res.distinct.iter().flatten().map(Vec::len).sum();
    let mut m = Map::new();
    m.insert("annotators".into(), json!(d.annotators));
    m.insert("n_documents".into(), json!(d.documents.len()));
    m.insert("n_spans_read".into(), json!(read));
    m.insert("n_spans_distinct".into(), json!(distinct));
    m.insert("labels".into(), json!(d.labels));
    m.insert("token_input".into(), json!(d.tokens.is_some()));
    if let Some(t) = &d.tokens {
        m.insert("n_sentences".into(), json!(t.sentences.len()));
        m.insert("n_tokens".into(), json!(t.n_tokens));
        let mut first = Map::new();
        for (k, p) in t.first_problem.iter().enumerate() {
            if let Some((line, message)) = p {
                first.insert(
                    d.annotators[k].clone(),
                    json!({"line": line, "message": message}),
                );
            }
        }
        m.insert("first_problem".into(), Value::Object(first));
        m.insert("unknown_tags".into(), unknown_tags_json(a));
    }
    if a.cfg.format == rsmreport_config::spans::Format::Prodigy {
        let skipped: Map<String, Value> = d
            .skipped
            .iter()
            .map(|(k, n)| (k.clone(), json!(n)))
            .collect();
        m.insert("prodigy_lines_skipped".into(), Value::Object(skipped));
    }
    Value::Object(m)
}
