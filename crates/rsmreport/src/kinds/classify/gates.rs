//! Command assembly (classify): quality gates (gates.md, classify spec 1).
//! A `[[gates]]` table is read by the shared gate parser
//! ([`rsmreport_config::gates::parse_targeted`]) with the statistics of this
//! kind: the headline numbers of spec 2 (`accuracy`, `macro_f1`,
//! `matthews_corrcoef`, `average_precision_macro`, `brier`, `ece`, ...),
//! per class `recall[<class>]`, `precision[<class>]`, `f1[<class>]`, and
//! the paired gains against the baseline `gain.<statistic>`,
//! `gain.recall[<class>]`. A gate applies to the system named by its
//! `system` key, or to every system (every candidate for `gain.*`), one
//! gate per system; the system stands where `build` writes the score type.
//! Scope is the whole set.
//!
//! [`parse`] runs before any data is read (configuration errors, exit 2);
//! [`evaluate`] reads the numbers of a finished [`Analysis`], never
//! recomputing one. Writes nothing.

use anyhow::{anyhow, Result};
use serde_json::Value;

use super::run::Analysis;
use super::statistics::{self, COMPARED};
use crate::gates::{judge, Outcome, Stat};
use crate::kinds::common::gates::unknown_metric;
use rsmreport_config::classify::ClassifyConfig;
use rsmreport_config::closest;
use rsmreport_config::gates::{parse_targeted, Gate, Scope};

/// The per-class statistics a gate may name as `<metric>[<class>]`.
const PER_CLASS: [&str; 3] = ["recall", "precision", "f1"];

/// Every headline statistic a gate accepts (for this configuration).
fn headline(cfg: &ClassifyConfig) -> Vec<String> {
    statistics::stat_names(cfg, true, true)
}

/// `recall[cat]` as `("recall", "cat")`.
fn per_class(metric: &str) -> Option<(&str, &str)> {
    let (m, rest) = metric.split_once('[')?;
    let class = rest.strip_suffix(']')?;
    PER_CLASS.contains(&m).then_some((m, class))
}

/// The metric names for suggestions.
fn known(cfg: &ClassifyConfig) -> Vec<String> {
    let mut out = headline(cfg);
    out.extend(PER_CLASS.map(|m| format!("{m}[<class>]")));
    out.extend(COMPARED.map(|(m, _)| format!("gain.{m}")));
    out.push("gain.recall[<class>]".into());
    out
}

/// Checks a metric name (spec: classify 1); `Ok(true)`: it has an interval.
fn check_metric(cfg: &ClassifyConfig, metric: &str) -> Result<bool, String> {
    let class_ok = |c: &str| match &cfg.labels {
        Some(labels) if !labels.iter().any(|l| l == c) => {
            let hint = closest(c, labels.iter().map(String::as_str))
                .map_or_else(String::new, |h| format!("; did you mean \"{h}\"?"));
            Err(format!(
                "{metric}: \"{c}\" is not among the labels ({}){hint}",
                labels.join(", ")
            ))
        }
        _ => Ok(true),
    };
    if let Some(gain) = metric.strip_prefix("gain.") {
        if cfg.system_columns.len() < 2 {
            return Err(format!(
                "{metric}: gain.* gates compare a system with the baseline, and the experiment \
                 has one system"
            ));
        }
        if cfg.intervals.is_none_or(|i| i.replicates == 0) {
            return Err(format!(
                "{metric}: the paired gains are computed with the intervals, which are off; \
                 switch intervals on or gate the systems' own statistics"
            ));
        }
        if COMPARED.iter().any(|(m, _)| *m == gain) {
            return Ok(true);
        }
        if let Some(("recall", c)) = per_class(gain) {
            return class_ok(c);
        }
    } else if headline(cfg).iter().any(|m| m == metric) {
        return Ok(true);
    } else if let Some((_, c)) = per_class(metric) {
        return class_ok(c);
    }
    let names = known(cfg);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    Err(unknown_metric("classify", metric, &names, "the metrics"))
}

/// The systems a gate table applies to (its `system` key, or all; the
/// candidates only for `gain.*`), the key removed from the table.
fn systems_of(
    cfg: &ClassifyConfig,
    table: &mut serde_json::Map<String, Value>,
) -> Result<Vec<String>, String> {
    if table.contains_key("score_type") {
        return Err(
            "classify gates have no score_type; name the system with system = \"<column>\" (or \
             leave it out for every system)"
                .into(),
        );
    }
    if let Some(v) = table.get("scope") {
        if v.as_str().map(str::trim) != Some("overall") {
            return Err(format!(
                "classify gates are on the whole set: scope = \"overall\" (the default), but it \
                 is {v}; per-subgroup gates are not available in classify"
            ));
        }
    }
    let gain = table
        .get("metric")
        .and_then(Value::as_str)
        .is_some_and(|m| m.trim().starts_with("gain."));
    let baseline = &cfg.system_columns[cfg.baseline];
    match table.remove("system") {
        None => Ok(cfg
            .system_columns
            .iter()
            .filter(|s| !gain || *s != baseline)
            .cloned()
            .collect()),
        Some(Value::String(s)) if cfg.system_columns.contains(&s) => {
            if gain && s == *baseline {
                return Err(format!(
                    "system \"{s}\" is the baseline; a gain.* gate applies to the other systems"
                ));
            }
            Ok(vec![s])
        }
        Some(Value::String(s)) => {
            let hint = closest(&s, cfg.system_columns.iter().map(String::as_str))
                .map_or_else(String::new, |c| format!("; did you mean \"{c}\"?"));
            Err(format!(
                "system \"{s}\" is not in system_columns ({}){hint}",
                cfg.system_columns.join(", ")
            ))
        }
        Some(v) => Err(format!(
            "system must be the name of a system column, but it is {v}"
        )),
    }
}

/// The gates of the experiment file, validated before any data is read
/// (each error names the file and the gate; exit 2).
pub fn parse(cfg: &ClassifyConfig) -> Result<Vec<Gate>> {
    let file = cfg.origin.display();
    let check = |metric: &str, _: &str, _: &Scope| check_metric(cfg, metric);
    let targets = |table: &mut serde_json::Map<String, Value>| systems_of(cfg, table);
    let bootstrap = cfg.intervals.is_some_and(|i| i.replicates > 0);
    let mut out: Vec<Gate> = Vec::new();
    for t in parse_targeted(cfg.gates.as_ref(), &cfg.origin, bootstrap, &targets, &check)? {
        let several = t.targets.len() > 1;
        for s in t.targets {
            let mut g = t.gate.clone();
            if several {
                g.name = format!("{} ({s})", g.name);
            }
            if out.iter().any(|o| o.name == g.name) {
                return Err(anyhow!(
                    "{file}: {}: two gates are named \"{}\"; give each gate its own name",
                    t.label,
                    g.name
                ));
            }
            g.score_type = s;
            out.push(g);
        }
    }
    Ok(out)
}

/// A statistic of system `s` as the gates read it: `row` is `overall` or
/// a class label.
fn own(
    cfg: &ClassifyConfig,
    a: &Analysis,
    s: usize,
    row: &str,
    metric: &str,
) -> Result<Stat, String> {
    let r = &a.systems[s];
    if let Some(ci) = a.intervals.as_ref().and_then(|iv| iv.get(s, row, metric)) {
        let (lo, hi) = (ci.interval.lower, ci.interval.upper);
        return Ok(Stat {
            estimate: ci.estimate,
            interval: (lo.is_finite() && hi.is_finite()).then_some((lo, hi)),
        });
    }
    statistics::estimate_named(cfg, &a.labels, r, row, metric)
        .map(|estimate| Stat {
            estimate,
            interval: None,
        })
        .ok_or_else(|| match metric {
            "average_precision_macro" | "roc_auc_macro" => {
                format!("system {} has no score columns", r.name)
            }
            _ => format!("system {} has no probabilities", r.name),
        })
}

/// A paired gain of candidate `s` over the baseline.
fn gain(a: &Analysis, s: usize, scope: &str, statistic: &str) -> Result<Stat, String> {
    let row = a
        .intervals
        .iter()
        .flat_map(|iv| &iv.deltas)
        .find(|d| d.candidate_system == s && d.scope == scope && d.statistic == statistic)
        .ok_or_else(|| {
            format!(
                "{statistic} was not compared (the systems need {})",
                if statistic == "brier" {
                    "probabilities"
                } else {
                    "score columns"
                }
            )
        })?;
    let (est, lo, hi) = (row.gain.value, row.gain.lower, row.gain.upper);
    Ok(Stat {
        estimate: est,
        interval: (lo.is_finite() && hi.is_finite()).then_some((lo, hi)),
    })
}

/// The statistic a gate reads.
fn stat(cfg: &ClassifyConfig, a: &Analysis, s: usize, metric: &str) -> Result<Stat, String> {
    if let Some(g) = metric.strip_prefix("gain.") {
        return match per_class(g) {
            Some((m, c)) => gain(a, s, &format!("class={c}"), m),
            None => gain(a, s, "overall", g),
        };
    }
    match per_class(metric) {
        Some((m, c)) => own(cfg, a, s, c, m),
        None => own(cfg, a, s, "overall", metric),
    }
}

/// Every gate's result line, in gate order. An error (exit 2) when a gate
/// names a class that is not among the labels read from the data.
pub fn evaluate(gates: &[Gate], cfg: &ClassifyConfig, a: &Analysis) -> Result<Vec<Outcome>> {
    let mut out = Vec::new();
    for g in gates {
        let class = g
            .metric
            .strip_prefix("gain.")
            .map_or(Some(g.metric.as_str()), Some)
            .and_then(per_class);
        if let Some((_, c)) = class.filter(|(_, c)| !a.labels.iter().any(|l| l == c)) {
            let hint = closest(c, a.labels.iter().map(String::as_str))
                .map_or_else(String::new, |h| format!("; did you mean \"{h}\"?"));
            return Err(anyhow!(
                "{}: gate \"{}\" ({}): \"{c}\" is not among the labels ({}){hint}",
                cfg.origin.display(),
                g.name,
                g.origin,
                a.labels.join(", ")
            ));
        }
        let s = a
            .systems
            .iter()
            .position(|r| r.name == g.score_type)
            .expect("validated system");
        out.push(judge(g, stat(cfg, a, s, &g.metric), None, Some(a.n as u64)));
    }
    Ok(out)
}
