//! Command assembly (sequence): quality gates (gates.md; `spec/sequence.md`
//! 1.1, 4, 5). The `[[gates]]` tables are read by the shared parser of
//! kinds with their own targets ([`rsmreport_config::gates::parse_targeted`],
//! as classify's and spans') with this kind's statistics: a
//! configured metric key (`bleu`, `chrf`, `wer`, ..., `perplexity`: the
//! system's corpus score with its bootstrap interval) or `delta.<key>` (the
//! candidate's corpus difference from the baseline with its interval). A
//! gate applies to the system named by its `system` key, or to every system
//! (every candidate for `delta.*`), one gate per system. Scope is the whole
//! set.
//!
//! [`parse`] runs before any data is read (configuration errors, exit 2);
//! [`evaluate`] reads the numbers of a finished [`Run`], never recomputing
//! one. Writes nothing.

use anyhow::Result;
use serde_json::Value;

use super::run::Run;
use crate::gates::{judge, Outcome, Stat};
use crate::kinds::common::gates::unknown_metric;
use rsmreport_config::closest;
use rsmreport_config::gates::{parse_targeted, Gate, Scope};
use rsmreport_config::sequence::SequenceConfig;

/// The metric names a gate accepts, for messages.
fn known(cfg: &SequenceConfig) -> Vec<String> {
    let mut out = cfg.metrics.clone();
    out.extend(cfg.metrics.iter().map(|m| format!("delta.{m}")));
    out
}

/// Checks a metric name; `Ok(true)`: it has an interval.
fn check_metric(cfg: &SequenceConfig, metric: &str) -> Result<bool, String> {
    let intervals = cfg.intervals.is_some();
    if let Some(key) = metric.strip_prefix("delta.") {
        if cfg.metrics.iter().any(|m| m == key) {
            if !intervals {
                return Err(format!(
                    "{metric}: the differences from the baseline are computed with the \
                     intervals, which are off (intervals = false)"
                ));
            }
            return Ok(true);
        }
    } else if cfg.metrics.iter().any(|m| m == metric) {
        return Ok(intervals);
    }
    let names = known(cfg);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    Err(unknown_metric(
        "sequence",
        metric,
        &names,
        "the metrics of this experiment",
    ))
}

/// The systems a gate table applies to (its `system` key, or every
/// system: empty when the systems come from the data; the candidates only
/// for `delta.*`), the key removed from the table.
fn systems_of(
    cfg: &SequenceConfig,
    table: &mut serde_json::Map<String, Value>,
) -> Result<Vec<String>, String> {
    if let Some(v) = table.get("scope") {
        if v.as_str().map(str::trim) != Some("overall") {
            return Err(format!(
                "sequence gates are on the whole set: scope = \"overall\" (the default), but it is {v}"
            ));
        }
    }
    let delta = table
        .get("metric")
        .and_then(Value::as_str)
        .is_some_and(|m| m.trim().starts_with("delta."));
    let names = cfg.system_names();
    let baseline = cfg.baseline.clone().or_else(|| names.first().cloned());
    match table.remove("system") {
        None => Ok(names
            .iter()
            .filter(|s| !delta || Some(*s) != baseline.as_ref())
            .cloned()
            .collect()),
        Some(Value::String(s)) if names.is_empty() || names.contains(&s) => {
            if delta && Some(&s) == baseline.as_ref() {
                return Err(format!(
                    "system \"{s}\" is the baseline; a delta.* gate applies to the other systems"
                ));
            }
            Ok(vec![s])
        }
        Some(Value::String(s)) => {
            let hint = closest(&s, names.iter().map(String::as_str))
                .map_or_else(String::new, |c| format!("; did you mean \"{c}\"?"));
            Err(format!(
                "system \"{s}\" is not a system of the experiment ({}){hint}",
                names.join(", ")
            ))
        }
        Some(v) => Err(format!("system must be a system's name, but it is {v}")),
    }
}

/// The gates of the experiment file, validated before any data is read
/// (each error names the file and the gate; exit 2). A gate without
/// `system` whose systems come from the data has an empty `score_type`: it
/// applies to every system once the data names them.
pub fn parse(cfg: &SequenceConfig) -> Result<Vec<Gate>> {
    let keys = |table: &mut serde_json::Map<String, Value>| systems_of(cfg, table);
    let check = |metric: &str, _: &str, _: &Scope| check_metric(cfg, metric);
    let bootstrap = cfg.intervals.is_some();
    let mut out: Vec<Gate> = Vec::new();
    for t in parse_targeted(cfg.gates.as_ref(), &cfg.origin, bootstrap, &keys, &check)? {
        let (gate, systems) = (t.gate, t.targets);
        if systems.is_empty() {
            out.push(gate.clone());
        }
        let several = systems.len() > 1;
        for s in systems {
            let mut g = gate.clone();
            if several {
                g.name = format!("{} ({s})", g.name);
            }
            g.score_type = s;
            out.push(g);
        }
    }
    Ok(out)
}

fn interval(lo: f64, hi: f64) -> Option<(f64, f64)> {
    (lo.is_finite() && hi.is_finite()).then_some((lo, hi))
}

/// The statistic a gate reads for system `s`.
fn stat(run: &Run, s: usize, metric: &str) -> Result<Stat, String> {
    let name = &run.systems[s].name;
    if let Some(key) = metric.strip_prefix("delta.") {
        let row = run
            .comparisons
            .iter()
            .filter(|(c, _)| *c == s)
            .flat_map(|(_, rows)| rows)
            .find(|r| r.statistic == key)
            .ok_or_else(|| format!("{key} of {name} was not compared with the baseline"))?;
        return Ok(Stat {
            estimate: row.delta.value,
            interval: interval(row.delta.lower, row.delta.upper),
        });
    }
    if metric == "perplexity" {
        let p = run
            .ppl
            .iter()
            .find(|p| &p.system == name)
            .ok_or_else(|| format!("{name} has no log-probabilities"))?;
        return Ok(Stat {
            estimate: p.numbers.perplexity,
            interval: interval(p.lower, p.upper),
        });
    }
    let r = run.results[s]
        .iter()
        .find(|r| r.metric == metric)
        .ok_or_else(|| format!("{metric} was not computed for {name}"))?;
    Ok(Stat {
        estimate: r.score,
        interval: interval(r.lower, r.upper),
    })
}

/// Every gate's result line, in gate order (a gate without `system`
/// whose systems came from the data: one line per system).
pub fn evaluate(gates: &[Gate], run: &Run) -> Vec<Outcome> {
    let n = Some(run.segments.n() as u64);
    let mut out = Vec::new();
    for g in gates {
        let delta = g.metric.starts_with("delta.");
        let targets: Vec<usize> = if g.score_type.is_empty() {
            (0..run.systems.len())
                .filter(|&s| !delta || s != run.baseline)
                .collect()
        } else {
            run.systems
                .iter()
                .position(|r| r.name == g.score_type)
                .into_iter()
                .collect()
        };
        if targets.is_empty() {
            let why = format!("system \"{}\" is not a system of the data", g.score_type);
            out.push(judge(g, Err(why), None, n));
        }
        for &s in &targets {
            let mut gate = g.clone();
            if g.score_type.is_empty() {
                gate.score_type = run.systems[s].name.clone();
                if targets.len() > 1 {
                    gate.name = format!("{} ({})", g.name, run.systems[s].name);
                }
            }
            out.push(judge(&gate, stat(run, s, &g.metric), None, n));
        }
    }
    out
}
