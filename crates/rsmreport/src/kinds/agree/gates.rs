//! Command assembly (agree): quality gates (gates.md). A `[[gates]]`
//! table is read by the shared gate parser of kinds with their own
//! targets ([`rsmreport_config::gates::parse_targeted`], as classify's)
//! with this kind's statistics: a coefficient of the agreement table
//! (`krippendorff_alpha`, `fleiss_kappa`, `gwet_ac1`, `percent_agreement`,
//! `icc2`, ...: [`COEFFICIENTS`]) with its interval, and a `weights` key
//! naming its row (`none`, `linear`, `quadratic`; for
//! `krippendorff_alpha` the level of measurement; default `none`, and the
//! experiment's level for alpha). Scope is the whole set.
//!
//! [`parse`] runs before any data is read (configuration errors, exit 2);
//! [`evaluate`] reads the rows of a finished [`Agreement`], never
//! recomputing one. Writes nothing.

use anyhow::Result;
use serde_json::Value;

use crate::analysis::agreement::run::Agreement;
use crate::gates::{judge, Outcome, Stat};
use rsmreport_config::agree::AgreeConfig;
use rsmreport_config::closest;
use rsmreport_config::gates::{parse_targeted, whole_set_only, Gate, Scope};
use rsmreport_metrics::raters::alpha::Level;
use rsmreport_metrics::raters::rows::COEFFICIENTS;

/// The weightings of a kappa-type row.
const WEIGHTS: [&str; 3] = ["none", "linear", "quadratic"];

fn check_metric(metric: &str) -> Result<bool, String> {
    if COEFFICIENTS.contains(&metric) {
        return Ok(true);
    }
    let hint = closest(metric, COEFFICIENTS)
        .map_or_else(String::new, |c| format!("; did you mean \"{c}\"?"));
    Err(format!(
        "unknown metric \"{metric}\" for agree{hint} (the metrics are the coefficients {})",
        COEFFICIENTS.join(", ")
    ))
}

/// The row a gate table names (its `weights` key, removed from the
/// table), checked against the experiment's level of measurement.
fn weights_of(
    cfg: &AgreeConfig,
    table: &mut serde_json::Map<String, Value>,
) -> Result<Vec<String>, String> {
    whole_set_only("agree", table)?;
    let alpha =
        table.get("metric").and_then(Value::as_str).map(str::trim) == Some("krippendorff_alpha");
    let allowed: Vec<&str> = if alpha {
        Level::ALL
            .into_iter()
            .take_while(|&l| l as u8 <= cfg.level as u8)
            .map(|l| l.name())
            .collect()
    } else if cfg.level == Level::Nominal {
        WEIGHTS[..1].to_vec()
    } else {
        WEIGHTS.to_vec()
    };
    match table.remove("weights") {
        None if alpha => Ok(vec![cfg.level.name().to_string()]),
        None => Ok(vec!["none".into()]),
        Some(Value::String(w)) if allowed.contains(&w.as_str()) => Ok(vec![w]),
        Some(v) => {
            let hint = v
                .as_str()
                .and_then(|w| closest(w, allowed.iter().copied()))
                .map_or_else(String::new, |c| format!("; did you mean \"{c}\"?"));
            Err(format!(
                "weights must be one of {} for this metric at level = \"{}\", but it is {v}{hint}",
                allowed.join(", "),
                cfg.level.name()
            ))
        }
    }
}

/// The gates of the experiment file, validated before any data is read
/// (each error names the file and the gate; exit 2); a gate's row
/// (`weights`) stands where `build` writes the score type.
pub fn parse(cfg: &AgreeConfig) -> Result<Vec<Gate>> {
    let check = |metric: &str, _: &str, _: &Scope| check_metric(metric);
    let keys = |table: &mut serde_json::Map<String, Value>| weights_of(cfg, table);
    let bootstrap = cfg.intervals.is_some_and(|i| i.replicates > 0);
    let mut out = Vec::new();
    for t in parse_targeted(cfg.gates.as_ref(), &cfg.origin, bootstrap, &keys, &check)? {
        for w in t.targets {
            let mut g = t.gate.clone();
            g.score_type = w;
            out.push(g);
        }
    }
    Ok(out)
}

/// Every gate's result line, in gate order: the coefficient's row of the
/// whole set (`skipped` when these data have no such row).
pub fn evaluate(gates: &[Gate], a: &Agreement) -> Vec<Outcome> {
    let s = &a.overall;
    let n = Some(s.summary.n_rows as u64);
    gates
        .iter()
        .map(|g| {
            let row = s
                .rows
                .iter()
                .find(|r| r.coefficient == g.metric && r.weights == g.score_type);
            let stat = row
                .map(|r| {
                    let e = &r.estimate;
                    Stat {
                        estimate: e.value,
                        interval: (e.lower.is_finite() && e.upper.is_finite())
                            .then_some((e.lower, e.upper)),
                    }
                })
                .ok_or_else(|| {
                    format!(
                        "{} ({}) is not computed on these data (it needs {})",
                        g.metric,
                        g.score_type,
                        needs(&g.metric)
                    )
                });
            judge(g, stat, None, n)
        })
        .collect()
}

/// What the data need for a coefficient that may be missing.
fn needs(metric: &str) -> &'static str {
    match metric {
        "cohen_kappa" | "scott_pi" => "exactly two raters with their own labels",
        "conger_kappa" => "the raters' own labels (not the counts layout)",
        m if m.starts_with("icc") => {
            "an ordinal, interval or ratio level and the raters' own labels"
        }
        _ => "another level of measurement or layout",
    }
}
