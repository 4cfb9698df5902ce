//! Command assembly (preferences): quality gates (gates.md). A
//! `[[gates]]` table is read by the shared gate parser of kinds with their
//! own targets ([`rsmreport_config::gates::parse_targeted`], as
//! classify's) with this kind's statistics of each annotator against the
//! reference on the whole set: `strength`, `accuracy` and `relevance`
//! with their bootstrap intervals, `agreement`, `kappa_randomized` and
//! `kappa` (spec 2). A gate applies to the annotator named by its
//! `annotator` key, or to every annotator, one gate per annotator; the
//! annotator stands where `build` writes the score type.
//!
//! [`parse`] runs before any data is read (configuration errors, exit 2);
//! [`evaluate`] reads the numbers of a finished [`Analysis`], never
//! recomputing one. Writes nothing.

use anyhow::Result;
use serde_json::Value;

use super::run::Analysis;
use crate::gates::{judge, Outcome, Stat};
use rsmreport_config::closest;
use rsmreport_config::gates::{parse_targeted, whole_set_only, Gate, Scope};
use rsmreport_config::preferences::PreferencesConfig;

/// The statistics with a bootstrap interval, then those without.
const WITH_INTERVAL: [&str; 3] = ["strength", "accuracy", "relevance"];
const WITHOUT_INTERVAL: [&str; 3] = ["agreement", "kappa_randomized", "kappa"];

fn check_metric(metric: &str) -> Result<bool, String> {
    if WITH_INTERVAL.contains(&metric) {
        return Ok(true);
    }
    if WITHOUT_INTERVAL.contains(&metric) {
        return Ok(false);
    }
    let names: Vec<&str> = WITH_INTERVAL
        .iter()
        .chain(&WITHOUT_INTERVAL)
        .copied()
        .collect();
    let hint = closest(metric, names.iter().copied())
        .map_or_else(String::new, |c| format!("; did you mean \"{c}\"?"));
    Err(format!(
        "unknown metric \"{metric}\" for preferences{hint} (the metrics are {})",
        names.join(", ")
    ))
}

/// The annotators a gate table applies to (its `annotator` key, removed
/// from the table; none: every annotator, named once the data are read).
fn annotators_of(
    cfg: &PreferencesConfig,
    table: &mut serde_json::Map<String, Value>,
) -> Result<Vec<String>, String> {
    whole_set_only("preferences", table)?;
    let known = &cfg.annotator_columns;
    match table.remove("annotator") {
        None => Ok(Vec::new()),
        Some(Value::String(s)) if known.is_empty() || known.contains(&s) => Ok(vec![s]),
        Some(Value::String(s)) => {
            let hint = closest(&s, known.iter().map(String::as_str))
                .map_or_else(String::new, |c| format!("; did you mean \"{c}\"?"));
            Err(format!(
                "annotator \"{s}\" is not in annotator_columns ({}){hint}",
                known.join(", ")
            ))
        }
        Some(v) => Err(format!(
            "annotator must be the name of an annotator column, but it is {v}"
        )),
    }
}

/// The gates of the experiment file, validated before any data is read
/// (each error names the file and the gate; exit 2). A gate without
/// `annotator` has an empty `score_type`: it applies to every annotator.
pub fn parse(cfg: &PreferencesConfig) -> Result<Vec<Gate>> {
    let check = |metric: &str, _: &str, _: &Scope| check_metric(metric);
    let keys = |table: &mut serde_json::Map<String, Value>| annotators_of(cfg, table);
    let bootstrap = cfg.intervals.is_some_and(|i| i.replicates > 0);
    let mut out = Vec::new();
    for t in parse_targeted(cfg.gates.as_ref(), &cfg.origin, bootstrap, &keys, &check)? {
        if t.targets.is_empty() {
            // Every annotator: named once the data are read.
            out.push(Gate {
                score_type: String::new(),
                ..t.gate.clone()
            });
        }
        for s in t.targets {
            let mut g = t.gate.clone();
            g.score_type = s;
            out.push(g);
        }
    }
    Ok(out)
}

/// The statistic `metric` of annotator `j` on the whole set.
fn stat(a: &Analysis, j: usize, metric: &str) -> Stat {
    let (m, iv) = (&a.all().metrics[j], &a.all().intervals[j]);
    let interval = |i: &rsmreport_metrics::bootstrap::Interval| {
        (a.intervals_on && i.lower.is_finite() && i.upper.is_finite()).then_some((i.lower, i.upper))
    };
    let (estimate, interval) = match metric {
        "strength" => (m.strength, interval(&iv.strength)),
        "accuracy" => (m.accuracy, interval(&iv.accuracy)),
        "relevance" => (m.relevance, interval(&iv.relevance)),
        "agreement" => (m.agreement, None),
        "kappa_randomized" => (m.kappa_randomized, None),
        _ => (m.kappa, None),
    };
    Stat { estimate, interval }
}

/// Every gate's result line, in gate order (a gate without `annotator`:
/// one line per annotator).
pub fn evaluate(gates: &[Gate], a: &Analysis) -> Vec<Outcome> {
    let mut out = Vec::new();
    for g in gates {
        let n = Some(a.all().exclusions.used());
        let targets: Vec<usize> = (0..a.annotators.len())
            .filter(|&j| g.score_type.is_empty() || a.annotators[j] == g.score_type)
            .collect();
        if targets.is_empty() {
            let why = format!(
                "annotator \"{}\" is not an annotator of the data",
                g.score_type
            );
            out.push(judge(g, Err(why), None, n));
        }
        for &j in &targets {
            let mut gate = g.clone();
            if g.score_type.is_empty() {
                gate.score_type = a.annotators[j].clone();
                if a.annotators.len() > 1 {
                    gate.name = format!("{} ({})", g.name, a.annotator_names[j]);
                }
            }
            out.push(judge(&gate, Ok(stat(a, j, &g.metric)), None, n));
        }
    }
    out
}
