//! Command assembly (spans): quality gates (gates.md; `spec/spans.md`
//! 5.12). A `[[gates]]` table is read by the shared gate parser
//! ([`rsmreport_config::gates::parse_targeted`], as classify's) with this kind's statistics:
//! agreement `mean_pairwise_f1` and `pooled_f1` (a `criterion` key, default
//! `strict`), and with a reference, per system, `micro_f1`, `macro_f1`
//! and `f1[<type>]` (a `system` key, or every system). Scope is the whole
//! set.
//!
//! [`parse`] runs before any data is read (configuration errors, exit 2);
//! [`evaluate`] reads the numbers of a finished [`Analysis`], never
//! recomputing one. Writes nothing.

use anyhow::Result;
use serde_json::Value;

use super::tables::agreement_rows;
use super::Analysis;
use crate::gates::{judge, Outcome, Stat};
use crate::kinds::common::gates::unknown_metric;
use rsmreport_config::closest;
use rsmreport_config::gates::{parse_targeted, Gate, Scope};
use rsmreport_config::spans::SpansConfig;
use rsmreport_metrics::spans::agreement::CRITERIA;

const AGREEMENT: [&str; 2] = ["mean_pairwise_f1", "pooled_f1"];
const SYSTEM: [&str; 2] = ["micro_f1", "macro_f1"];

/// `f1[PER]` as `PER`.
fn per_type(metric: &str) -> Option<&str> {
    metric.strip_prefix("f1[")?.strip_suffix(']')
}

fn check_metric(cfg: &SpansConfig, metric: &str) -> Result<bool, String> {
    if AGREEMENT.contains(&metric) {
        return Ok(metric == "mean_pairwise_f1");
    }
    if SYSTEM.contains(&metric) || per_type(metric).is_some() {
        if cfg.reference.is_none() {
            return Err(format!(
                "{metric} scores a system against the reference, and the experiment has no reference"
            ));
        }
        return Ok(metric == "micro_f1");
    }
    let names = [
        "mean_pairwise_f1",
        "pooled_f1",
        "micro_f1",
        "macro_f1",
        "f1[<type>]",
    ];
    Err(unknown_metric("spans", metric, &names, "the metrics"))
}

/// What a gate applies to: a criterion (agreement) or systems.
fn targets(
    cfg: &SpansConfig,
    table: &mut serde_json::Map<String, Value>,
) -> Result<Vec<String>, String> {
    if let Some(v) = table.get("scope") {
        if v.as_str().map(str::trim) != Some("overall") {
            return Err(format!(
                "spans gates are on the whole set: scope = \"overall\", but it is {v}"
            ));
        }
    }
    let metric = table
        .get("metric")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim()
        .to_string();
    let criterion = table.remove("criterion");
    let system = table.remove("system");
    if AGREEMENT.contains(&metric.as_str()) {
        if system.is_some() {
            return Err(format!(
                "{metric} is agreement among all annotators; it has no system"
            ));
        }
        return match criterion {
            None => Ok(vec!["strict".into()]),
            Some(Value::String(c)) if CRITERIA.contains(&c.as_str()) => Ok(vec![c]),
            Some(v) => {
                let hint = v
                    .as_str()
                    .and_then(|c| closest(c, CRITERIA))
                    .map_or_else(String::new, |c| format!("; did you mean \"{c}\"?"));
                Err(format!(
                    "criterion must be one of {}, but it is {v}{hint}",
                    CRITERIA.join(", ")
                ))
            }
        };
    }
    if criterion.is_some() {
        return Err(format!(
            "{metric} is a system's score; criterion applies to agreement gates"
        ));
    }
    let annotators = cfg.annotators.clone().unwrap_or_default();
    match system {
        None => Ok(Vec::new()),
        Some(Value::String(s)) if cfg.annotators.is_none() || annotators.contains(&s) => {
            if cfg.reference.as_ref() == Some(&s) {
                return Err(format!("system \"{s}\" is the reference"));
            }
            Ok(vec![s])
        }
        Some(Value::String(s)) => {
            let hint = closest(&s, annotators.iter().map(String::as_str))
                .map_or_else(String::new, |c| format!("; did you mean \"{c}\"?"));
            Err(format!(
                "system \"{s}\" is not among the annotators ({}){hint}",
                annotators.join(", ")
            ))
        }
        Some(v) => Err(format!("system must be an annotator's name, but it is {v}")),
    }
}

/// The gates of the experiment file, validated before any data is read
/// (each error names the file and the gate; exit 2). A system gate
/// without `system` has an empty `score_type`: it applies to every system
/// once the data names them.
pub fn parse(cfg: &SpansConfig) -> Result<Vec<Gate>> {
    let check = |metric: &str, _: &str, _: &Scope| check_metric(cfg, metric);
    let keys = |table: &mut serde_json::Map<String, Value>| targets(cfg, table);
    let bootstrap = cfg.intervals.is_some_and(|i| i.replicates > 0);
    let mut out: Vec<Gate> = Vec::new();
    for t in parse_targeted(cfg.gates.as_ref(), &cfg.origin, bootstrap, &keys, &check)? {
        if t.targets.is_empty() {
            out.push(t.gate.clone());
        }
        for target in t.targets {
            let mut g = t.gate.clone();
            g.score_type = target;
            out.push(g);
        }
    }
    Ok(out)
}

/// Every gate's result line, in gate order (a system gate without
/// `system`: one line per system).
pub fn evaluate(gates: &[Gate], a: &Analysis) -> Vec<Outcome> {
    let rows = agreement_rows(a);
    let mut out = Vec::new();
    let n = Some(a.data.documents.len() as u64);
    for g in gates {
        if AGREEMENT.contains(&g.metric.as_str()) {
            let k = CRITERIA
                .iter()
                .position(|c| *c == g.score_type)
                .unwrap_or(0);
            let iv = &a.agree_iv.mean[k];
            let stat = if g.metric == "pooled_f1" {
                Stat {
                    estimate: rows[k].pooled,
                    interval: None,
                }
            } else {
                Stat {
                    estimate: rows[k].mean,
                    interval: (iv.lower.is_finite() && iv.upper.is_finite())
                        .then_some((iv.lower, iv.upper)),
                }
            };
            out.push(judge(g, Ok(stat), None, n));
            continue;
        }
        let before = out.len();
        for (k, sys) in a.res.systems.iter().enumerate() {
            let name = &a.data.annotators[sys.annotator];
            if !g.score_type.is_empty() && g.score_type != *name {
                continue;
            }
            let mut gate = g.clone();
            if g.score_type.is_empty() {
                gate.score_type = name.clone();
                if a.res.systems.len() > 1 {
                    gate.name = format!("{} ({name})", g.name);
                }
            }
            let (rows_t, avg) = (&sys.modes[sys.headline].1, &sys.modes[sys.headline].2);
            let stat = match g.metric.as_str() {
                "micro_f1" => {
                    let iv = &a.sys_iv.stats[k][0];
                    Ok(Stat {
                        estimate: avg[0].f1,
                        interval: (iv.lower.is_finite() && iv.upper.is_finite())
                            .then_some((iv.lower, iv.upper)),
                    })
                }
                "macro_f1" => Ok(Stat {
                    estimate: avg[1].f1,
                    interval: None,
                }),
                m => {
                    let t = per_type(m).unwrap_or("");
                    match a.data.labels.iter().position(|l| l == t) {
                        Some(l) => Ok(Stat {
                            estimate: rows_t
                                .iter()
                                .find(|r| r.0 as usize == l)
                                .map_or(0.0, |r| r.1.f1),
                            interval: None,
                        }),
                        None => Err(format!(
                            "\"{t}\" is not among the labels ({})",
                            a.data.labels.join(", ")
                        )),
                    }
                }
            };
            out.push(judge(&gate, stat, None, n));
        }
        if out.len() == before {
            let why = format!("system \"{}\" is not a system of the data", g.score_type);
            out.push(judge(g, Err(why), None, n));
        }
    }
    out
}
