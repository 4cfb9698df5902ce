//! Command assembly (classify): the tables of spec 4 as [`Frame`]s, their
//! `_ci` companions (uncertainty.md 4.1, with a `system` column), the
//! subgroup tables, and `<id>_summary.json` (uncertainty.md 4.2 shape,
//! `summary_version` 1, the headline numbers per system).
//!
//! Produces frames and bytes from an [`Analysis`]; computes nothing new
//! and writes nothing.

use rsmreport_io::output::json::number;
use serde_json::{json, Map, Value};

use super::resample::CiRow;
use super::run::{Analysis, SystemResult};
use super::statistics::COMPARED;
use crate::kinds::common::comparison::{self, ComparisonRow, Estimate, Field, Spelling};
use crate::kinds::common::verdict::Verdict;
use rsmreport_config::classify::ClassifyConfig;
use rsmreport_core::table::{frame, text_values, Frame, Values};
use rsmreport_metrics::bootstrap::Interval;
use rsmreport_metrics::calibration::BINS;

/// The abstention column of the confusion matrix.
use rsmreport_core::schema::NONE_LABEL;

fn texts<S: AsRef<str>>(v: impl IntoIterator<Item = S>) -> Values {
    text_values(v.into_iter().map(|s| Some(s.as_ref().to_string())))
}

fn ints(v: impl IntoIterator<Item = usize>) -> Values {
    Values::Int(v.into_iter().map(|x| x as i64).collect())
}

fn floats(v: impl IntoIterator<Item = f64>) -> Values {
    Values::Float(v.into_iter().collect())
}

/// `<id>_classification`: per class then the three averages.
pub fn classification(a: &Analysis) -> Frame {
    let k = a.k();
    let mut rows: Vec<(usize, String, f64, f64, Vec<f64>, usize)> = Vec::new();
    let all = super::run::betas_with_one(&a.betas);
    let pick = |f: &[f64]| -> Vec<f64> {
        a.betas
            .iter()
            .map(|b| f[all.iter().position(|x| x == b).expect("beta")])
            .collect()
    };
    for (s, sys) in a.systems.iter().enumerate() {
        let r = &sys.report;
        for j in 0..k {
            let p = &r.per_class[j];
            rows.push((
                s,
                a.labels[j].clone(),
                p.precision,
                p.recall,
                pick(&p.f),
                r.support[j] as usize,
            ));
        }
        for (name, p) in [
            ("macro avg", &r.macro_avg),
            ("micro avg", &r.micro_avg),
            ("weighted avg", &r.weighted_avg),
        ] {
            rows.push((
                s,
                name.to_string(),
                p.precision,
                p.recall,
                pick(&p.f),
                sys.n,
            ));
        }
    }
    let f_names: Vec<String> = a.betas.iter().map(|&b| ClassifyConfig::f_name(b)).collect();
    let mut cols = vec![
        ("system", texts(rows.iter().map(|r| &a.systems[r.0].name))),
        ("class", texts(rows.iter().map(|r| &r.1))),
        ("precision", floats(rows.iter().map(|r| r.2))),
        ("recall", floats(rows.iter().map(|r| r.3))),
    ];
    for (b, name) in f_names.iter().enumerate() {
        cols.push((name.as_str(), floats(rows.iter().map(|r| r.4[b]))));
    }
    cols.push(("support", ints(rows.iter().map(|r| r.5))));
    frame("classification", cols)
}

/// The summary columns present in this run (spec 4).
pub fn summary_columns(a: &Analysis) -> Vec<&'static str> {
    let mut out = vec![
        "n",
        "n_abstained",
        "accuracy",
        "balanced_accuracy",
        "matthews_corrcoef",
        "cohen_kappa",
    ];
    if a.ordinal {
        out.extend(["cohen_kappa_linear", "cohen_kappa_quadratic", "mae_classes"]);
    }
    out.push("macro_f1");
    if a.systems.iter().any(|s| s.ranking.is_some()) {
        out.extend([
            "average_precision_macro",
            "roc_auc_macro",
            "roc_auc_weighted",
            "brier",
            "log_loss",
            "ece",
        ]);
        if a.positive.is_some() {
            out.push("brier_positive");
        }
    }
    out
}

/// The value of summary column `name` for a system (NaN when it does not
/// apply).
pub fn summary_value(a: &Analysis, s: &SystemResult, name: &str) -> f64 {
    let rank = s.ranking.as_ref();
    let probs = s.probs.as_ref();
    let nan = f64::NAN;
    match name {
        "n" => s.n as f64,
        "n_abstained" => s.n_abstained as f64,
        "accuracy" => s.report.accuracy,
        "balanced_accuracy" => s.report.balanced_accuracy,
        "matthews_corrcoef" => s.report.matthews,
        "cohen_kappa" => s.kappa,
        "cohen_kappa_linear" => s.kappa_linear,
        "cohen_kappa_quadratic" => s.kappa_quadratic,
        "mae_classes" => s.mae_classes,
        "macro_f1" => s.macro_f(a.f1()),
        "average_precision_macro" => rank.map_or(nan, |r| r.ap_macro),
        "roc_auc_macro" => rank.map_or(nan, |r| r.auc_macro),
        "roc_auc_weighted" => rank.map_or(nan, |r| r.auc_weighted),
        "brier" => probs.map_or(nan, |p| p.brier()),
        "brier_positive" => probs.map_or(nan, |p| p.brier_positive()),
        "log_loss" => probs.map_or(nan, |p| p.log_loss()),
        "ece" => probs.map_or(nan, |p| p.ece()),
        _ => nan,
    }
}

fn summary_frame(
    a: &Analysis,
    name: &str,
    rows: &[(&SystemResult, Option<&str>)],
    group: Option<&str>,
) -> Frame {
    let mut cols = vec![("system", texts(rows.iter().map(|r| &r.0.name)))];
    if let Some(g) = group {
        cols.push((g, texts(rows.iter().map(|r| r.1.unwrap_or("")))));
    }
    for c in summary_columns(a) {
        let v = if matches!(c, "n" | "n_abstained") {
            ints(rows.iter().map(|r| summary_value(a, r.0, c) as usize))
        } else {
            floats(rows.iter().map(|r| summary_value(a, r.0, c)))
        };
        cols.push((c, v));
    }
    frame(name, cols)
}

/// `<id>_classification_summary`.
pub fn summary(a: &Analysis) -> Frame {
    let rows: Vec<_> = a.systems.iter().map(|s| (s, None)).collect();
    summary_frame(a, "classification_summary", &rows, None)
}

/// The largest confusion matrix written with its empty cells (99 labels
/// and `(none)`); a larger one is written as its non-zero cells.
const DENSE_CELLS: usize = 10_000;

/// `<id>_confusion_matrix` (long form: every cell up to [`DENSE_CELLS`]
/// cells per system, else the non-zero cells only).
pub fn confusion(a: &Analysis) -> Frame {
    let k = a.k();
    let predicted: Vec<&str> = a
        .labels
        .iter()
        .map(String::as_str)
        .chain([NONE_LABEL])
        .collect();
    let mut rows: Vec<(usize, usize, usize, f64, f64)> = Vec::new();
    for (s, sys) in a.systems.iter().enumerate() {
        let support = &sys.report.support;
        let share = |g: usize, c: f64| {
            if support[g] > 0.0 {
                c / support[g]
            } else {
                0.0
            }
        };
        if k * (k + 1) <= DENSE_CELLS {
            for g in 0..k {
                for (p, c) in sys.confusion.row(g).into_iter().enumerate() {
                    rows.push((s, g, p, c, share(g, c)));
                }
            }
        } else {
            for &(g, p, c) in &sys.confusion.cells {
                let g = g as usize;
                rows.push((s, g, p as usize, c, share(g, c)));
            }
        }
    }
    frame(
        "confusion_matrix",
        vec![
            ("system", texts(rows.iter().map(|r| &a.systems[r.0].name))),
            ("gold", texts(rows.iter().map(|r| &a.labels[r.1]))),
            ("predicted", texts(rows.iter().map(|r| predicted[r.2]))),
            ("count", ints(rows.iter().map(|r| r.3 as usize))),
            ("share_of_gold", floats(rows.iter().map(|r| r.4))),
        ],
    )
}

/// `<id>_ranking` (systems with scores).
pub fn ranking(a: &Analysis) -> Frame {
    let mut rows: Vec<(usize, usize)> = Vec::new();
    for (s, sys) in a.systems.iter().enumerate() {
        if sys.ranking.is_some() {
            rows.extend((0..a.k()).map(|j| (s, j)));
        }
    }
    let r = |(s, _): &(usize, usize)| a.systems[*s].ranking.as_ref().expect("ranked");
    frame(
        "ranking",
        vec![
            ("system", texts(rows.iter().map(|x| &a.systems[x.0].name))),
            ("class", texts(rows.iter().map(|x| &a.labels[x.1]))),
            (
                "average_precision",
                floats(rows.iter().map(|x| r(x).average_precision[x.1])),
            ),
            ("roc_auc", floats(rows.iter().map(|x| r(x).roc_auc[x.1]))),
            (
                "positives",
                ints(rows.iter().map(|x| r(x).positives[x.1] as usize)),
            ),
        ],
    )
}

/// `<id>_pr_curve` or `<id>_roc_curve` (`roc`).
pub fn curve(a: &Analysis, roc: bool) -> Frame {
    let mut rows: Vec<(usize, usize, (f64, f64, f64))> = Vec::new();
    for (s, sys) in a.systems.iter().enumerate() {
        let Some(r) = &sys.ranking else { continue };
        for j in 0..a.k() {
            let points = if roc { &r.roc[j] } else { &r.pr[j] };
            rows.extend(points.iter().map(|&p| (s, j, p)));
        }
    }
    let (name, second, third) = if roc {
        ("roc_curve", "fpr", "tpr")
    } else {
        ("pr_curve", "precision", "recall")
    };
    frame(
        name,
        vec![
            ("system", texts(rows.iter().map(|x| &a.systems[x.0].name))),
            ("class", texts(rows.iter().map(|x| &a.labels[x.1]))),
            ("threshold", floats(rows.iter().map(|x| x.2 .0))),
            (second, floats(rows.iter().map(|x| x.2 .1))),
            (third, floats(rows.iter().map(|x| x.2 .2))),
        ],
    )
}

/// `curves.<system>.<class>`: how many points each whole curve has and
/// how many its table holds (fewer when thinned to `curve_points`).
fn curve_counts(a: &Analysis) -> Value {
    let mut systems = Map::new();
    for sys in &a.systems {
        let Some(r) = &sys.ranking else { continue };
        let classes: Map<String, Value> = (0..a.k())
            .map(|j| {
                let counts = json!({
                    "pr_points": r.pr_full[j],
                    "pr_points_written": r.pr[j].len(),
                    "roc_points": r.roc_full[j],
                    "roc_points_written": r.roc[j].len(),
                });
                (a.labels[j].clone(), counts)
            })
            .collect();
        systems.insert(sys.name.clone(), Value::Object(classes));
    }
    Value::Object(systems)
}

/// `<id>_calibration` (systems with probabilities; every bin).
pub fn calibration(a: &Analysis) -> Frame {
    let mut rows: Vec<(usize, usize, (f64, f64, f64))> = Vec::new();
    for (s, sys) in a.systems.iter().enumerate() {
        if let Some(p) = &sys.probs {
            rows.extend(p.bins().into_iter().enumerate().map(|(b, x)| (s, b, x)));
        }
    }
    frame(
        "calibration",
        vec![
            ("system", texts(rows.iter().map(|x| &a.systems[x.0].name))),
            ("bin", ints(rows.iter().map(|x| x.1))),
            (
                "lower",
                floats(rows.iter().map(|x| x.1 as f64 / BINS as f64)),
            ),
            (
                "upper",
                floats(rows.iter().map(|x| (x.1 + 1) as f64 / BINS as f64)),
            ),
            ("n", ints(rows.iter().map(|x| x.2 .0 as usize))),
            ("mean_confidence", floats(rows.iter().map(|x| x.2 .1))),
            ("accuracy", floats(rows.iter().map(|x| x.2 .2))),
        ],
    )
}

/// What classify adds to a comparison row: McNemar's exact p-value of the
/// two systems' accuracies (on the overall accuracy row; NaN on the
/// others).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct McNemar {
    pub p: f64,
}

/// The comparison rows: from the paired bootstrap when intervals are on,
/// else the estimates with verdict `not testable`.
pub fn comparison_rows(a: &Analysis) -> Vec<ComparisonRow<McNemar>> {
    let nan = f64::NAN;
    let mut out = Vec::new();
    for c in &a.comparisons {
        let (b, s) = (&a.systems[c.baseline], &a.systems[c.candidate]);
        let mut push = |scope: String, stat: &str, eb: f64, ec: f64, larger: bool| {
            let found = a.intervals.as_ref().and_then(|iv| {
                iv.deltas.iter().find(|d| {
                    d.candidate_system == c.candidate && d.scope == scope && d.statistic == stat
                })
            });
            let mcnemar = McNemar {
                p: if scope == "overall" && stat == "accuracy" {
                    c.mcnemar_p
                } else {
                    nan
                },
            };
            out.push(match found {
                Some(d) => d.clone().with_extra(mcnemar),
                None => {
                    let delta = Estimate::point(ec - eb);
                    let margin = a
                        .margins
                        .iter()
                        .find(|(m, _)| m == stat)
                        .map_or(nan, |m| m.1);
                    ComparisonRow {
                        baseline_system: c.baseline,
                        candidate_system: c.candidate,
                        scope,
                        statistic: stat.to_string(),
                        baseline: Estimate::point(eb),
                        candidate: Estimate::point(ec),
                        delta,
                        gain: if larger { delta } else { delta.negated() },
                        p_value: nan,
                        p_holm: nan,
                        verdict: Verdict::NotTestable,
                        margin,
                        paired: true,
                        extra: mcnemar,
                    }
                }
            });
        };
        for (stat, larger) in COMPARED {
            let (eb, ec) = (summary_value(a, b, stat), summary_value(a, s, stat));
            let both = match stat {
                "average_precision_macro" => b.ranking.is_some() && s.ranking.is_some(),
                "brier" => b.probs.is_some() && s.probs.is_some(),
                _ => true,
            };
            if both {
                push("overall".into(), stat, eb, ec, larger);
            }
        }
        for (j, l) in a.labels.iter().enumerate() {
            let (eb, ec) = (b.report.per_class[j].recall, s.report.per_class[j].recall);
            push(format!("class={l}"), "recall", eb, ec, true);
        }
    }
    out
}

/// `<id>_system_comparisons` (two or more systems): the shared comparison
/// table through `paired`, then McNemar's p-value.
pub fn comparisons(a: &Analysis) -> Frame {
    let rows = comparison_rows(a);
    let rows: Vec<&ComparisonRow<McNemar>> = rows.iter().collect();
    let columns = comparison::Column::span(Field::BaselineSystem, Field::Paired)
        .chain([comparison::Column::floats(
            "mcnemar_p",
            rows.iter().map(|r| r.extra.p),
        )])
        .collect();
    let names: Vec<&str> = a.systems.iter().map(|s| s.name.as_str()).collect();
    comparison::frame(
        "system_comparisons",
        &rows,
        columns,
        &names,
        Spelling::Lower,
    )
}

/// `<id>_classification_summary_by_<g>` and `<id>_class_recall_by_<g>`.
pub fn by_group(a: &Analysis) -> Vec<Frame> {
    let mut out = Vec::new();
    for g in &a.groups {
        let rows: Vec<(&SystemResult, Option<&str>)> = g
            .levels
            .iter()
            .flat_map(|l| l.systems.iter().map(move |s| (s, Some(l.name.as_str()))))
            .collect();
        out.push(summary_frame(
            a,
            &format!("classification_summary_by_{}", g.column),
            &rows,
            Some(&g.column),
        ));
        let recall: Vec<(&SystemResult, &str, usize)> = rows
            .iter()
            .flat_map(|(s, l)| (0..a.k()).map(move |j| (*s, l.unwrap_or(""), j)))
            .collect();
        out.push(frame(
            &format!("class_recall_by_{}", g.column),
            vec![
                ("system", texts(recall.iter().map(|r| &r.0.name))),
                (g.column.as_str(), texts(recall.iter().map(|r| r.1))),
                ("class", texts(recall.iter().map(|r| &a.labels[r.2]))),
                (
                    "recall",
                    floats(recall.iter().map(|r| r.0.report.per_class[r.2].recall)),
                ),
                (
                    "support",
                    ints(recall.iter().map(|r| r.0.report.support[r.2] as usize)),
                ),
            ],
        ));
    }
    out
}

/// One `_ci` row: system, row, metric, estimate, interval, analytic
/// interval, units.
type CiTuple = (String, String, String, f64, Interval, (f64, f64), usize);

/// The `_ci` columns of uncertainty.md 4.1 with `system` first.
fn ci_frame(a: &Analysis, name: &str, rows: Vec<CiTuple>) -> Frame {
    let Some(iv) = &a.intervals else {
        return frame(name, Vec::new());
    };
    frame(
        name,
        vec![
            ("system", texts(rows.iter().map(|r| &r.0))),
            ("row", texts(rows.iter().map(|r| &r.1))),
            ("metric", texts(rows.iter().map(|r| &r.2))),
            ("estimate", floats(rows.iter().map(|r| r.3))),
            ("lower", floats(rows.iter().map(|r| r.4.lower))),
            ("upper", floats(rows.iter().map(|r| r.4.upper))),
            ("lower_analytic", floats(rows.iter().map(|r| r.5 .0))),
            ("upper_analytic", floats(rows.iter().map(|r| r.5 .1))),
            ("se_bootstrap", floats(rows.iter().map(|r| r.4.se))),
            ("level", floats(rows.iter().map(|_| iv.level))),
            ("unit", texts(rows.iter().map(|_| "item"))),
            ("n_units", ints(rows.iter().map(|r| r.6))),
            ("replicates_valid", ints(rows.iter().map(|r| r.4.valid))),
        ],
    )
}

fn ci_tuple(a: &Analysis, r: &CiRow, row: String) -> CiTuple {
    (
        a.systems[r.system].name.clone(),
        row,
        r.metric.clone(),
        r.estimate,
        r.interval,
        r.analytic,
        a.n,
    )
}

/// `<id>_classification_summary_ci`, `<id>_classification_ci` and
/// `<id>_classification_summary_by_<g>_ci`.
pub fn ci_frames(a: &Analysis) -> Vec<Frame> {
    let Some(iv) = &a.intervals else {
        return Vec::new();
    };
    let overall = iv
        .rows
        .iter()
        .filter(|r| r.row == "overall")
        .map(|r| ci_tuple(a, r, a.systems[r.system].name.clone()))
        .collect();
    let classes = iv
        .rows
        .iter()
        .filter(|r| r.row != "overall")
        .map(|r| ci_tuple(a, r, r.row.clone()))
        .collect();
    let mut out = vec![
        ci_frame(a, "classification_summary_ci", overall),
        ci_frame(a, "classification_ci", classes),
    ];
    for g in &a.groups {
        let n_of = |level: &str| g.levels.iter().find(|l| l.name == level).map_or(0, |l| l.n);
        let rows = iv
            .levels
            .iter()
            .filter(|l| l.column == g.column)
            .map(|l| {
                let nan2 = (f64::NAN, f64::NAN);
                (
                    a.systems[l.system].name.clone(),
                    l.level.clone(),
                    l.metric.clone(),
                    l.estimate,
                    l.interval,
                    nan2,
                    n_of(&l.level),
                )
            })
            .collect();
        out.push(ci_frame(
            a,
            &format!("classification_summary_by_{}_ci", g.column),
            rows,
        ));
    }
    out
}

/// Every table of the run, in the order they are written.
pub fn frames(a: &Analysis) -> Vec<Frame> {
    each_frame(a).collect()
}

/// The tables of [`frames`], each made when it is asked for (the one
/// writer formats one at a time; the Python module's `tables[name]`
/// makes only the tables up to the one it wants, not the curves of a
/// million items).
pub fn each_frame(a: &Analysis) -> impl Iterator<Item = Frame> + '_ {
    type Make = fn(&Analysis) -> Frame;
    let mut makers: Vec<Make> = vec![summary, classification, confusion];
    if a.systems.iter().any(|s| s.ranking.is_some()) {
        makers.extend([ranking as Make, |a| curve(a, false), |a| curve(a, true)]);
    }
    if a.systems.iter().any(|s| s.probs.is_some()) {
        makers.push(calibration);
    }
    if a.systems.len() > 1 {
        makers.push(comparisons);
    }
    let later = std::iter::once(()).flat_map(move |()| {
        let mut rest = by_group(a);
        rest.extend(ci_frames(a));
        rest
    });
    makers
        .into_iter()
        .map(move |make| make(a))
        .chain(later)
        .filter(Frame::is_writable)
}

/// `<id>_summary.json` (`summary_version` 1): per system the headline
/// numbers with their intervals, and the comparisons.
pub fn summary_json(a: &Analysis, checksum: &str, file: &str) -> Vec<u8> {
    let mut systems = Map::new();
    for (s, sys) in a.systems.iter().enumerate() {
        let mut stats = Map::new();
        for c in summary_columns(a) {
            let mut entry = Map::new();
            entry.insert("estimate".into(), number(summary_value(a, sys, c)));
            if let Some(r) = a.intervals.as_ref().and_then(|iv| iv.get(s, "overall", c)) {
                entry.insert("lower".into(), number(r.interval.lower));
                entry.insert("upper".into(), number(r.interval.upper));
            }
            stats.insert(c.to_string(), Value::Object(entry));
        }
        let scores = sys.ranking.as_ref().map(|r| r.kind.name());
        stats.insert("scores".into(), json!(scores));
        stats.insert(
            "top_label_ties".into(),
            json!(sys.probs.as_ref().map(|_| sys.top_label_ties)),
        );
        systems.insert(sys.name.clone(), Value::Object(stats));
    }
    let comparisons: Vec<Value> = comparison_rows(a)
        .iter()
        .map(|r| {
            json!({
                "baseline": a.systems[r.baseline_system].name,
                "candidate": a.systems[r.candidate_system].name,
                "scope": r.scope,
                "statistic": r.statistic,
                "delta": [number(r.delta.value), number(r.delta.lower), number(r.delta.upper)],
                "gain": [number(r.gain.value), number(r.gain.lower), number(r.gain.upper)],
                "p_value": number(r.p_value),
                "verdict": r.verdict.name(),
            })
        })
        .collect();
    let mcnemar: Vec<Value> = a
        .comparisons
        .iter()
        .map(|c| {
            json!({
                "baseline": a.systems[c.baseline].name,
                "candidate": a.systems[c.candidate].name,
                "table": c.mcnemar_table,
                "pvalue": number(c.mcnemar_p),
            })
        })
        .collect();
    let doc = json!({
        "summary_version": 1,
        "kind": "classify",
        "experiment_id": a.id,
        "producer": format!("rsmreport {}", env!("CARGO_PKG_VERSION")),
        "inputs": [{"path": file, "sha256": checksum}],
        "labels": a.labels,
        "n_rows": a.n_rows,
        "n": a.n,
        "n_dropped_blank_gold": a.n_dropped_blank_gold,
        "baseline": a.systems[a.baseline].name,
        "intervals": a.settings.map(|i| json!({"level": i.level, "replicates": i.replicates, "seed": i.seed, "unit": "item"})),
        "systems": systems,
        "comparisons": comparisons,
        "mcnemar": mcnemar,
        "margins": a.margins.iter().map(|(s, m)| (s.clone(), json!(m))).collect::<Map<_, _>>(),
    });
    let mut doc = doc;
    if a.systems.iter().any(|s| s.ranking.is_some()) {
        doc["curve_points"] = json!(a.curve_points);
        doc["curves"] = curve_counts(a);
    }
    if !a.gates.is_empty() {
        doc["gates"] = crate::gates::json::summary(&a.gates);
    }
    rsmreport_io::output::json::bytes(&doc)
}
