//! Command assembly (sequence): Input C, token log-probabilities as JSON
//! lines (spec `sequence.md` 1.3): a list `logprobs`, OpenAI legacy
//! `token_logprobs` (top level or in a `logprobs` object) or OpenAI chat
//! `logprobs.content[].logprob`; a leading `null` dropped and counted;
//! sentinels (<= -9999) dropped, kept or refused; every other bad value a
//! data error naming the file, the line and the system.
//!
//! Reads only the log-probabilities file; computes no statistic.

use std::path::Path;

use anyhow::{anyhow, bail, Result};
use serde_json::Value;

use rsmreport_config::sequence::Sentinel;

/// One sequence of one system.
#[derive(Debug, Clone)]
pub struct LogprobSequence {
    pub id: String,
    /// Natural-log probabilities used (sentinels dropped unless kept).
    pub logprobs: Vec<f64>,
    pub n_sentinel: u64,
    pub leading_null: bool,
    pub text: Option<String>,
}

/// One system's sequences, in file order.
#[derive(Debug, Clone, Default)]
pub struct SystemLogprobs {
    pub system: String,
    pub sequences: Vec<LogprobSequence>,
    pub forms: Vec<&'static str>,
}

fn values_of(obj: &serde_json::Map<String, Value>) -> Option<(&'static str, Vec<&Value>)> {
    if let Some(Value::Array(v)) = obj.get("token_logprobs") {
        return Some(("legacy", v.iter().collect()));
    }
    match obj.get("logprobs") {
        Some(Value::Array(v)) => Some(("list", v.iter().collect())),
        Some(Value::Object(inner)) => {
            if let Some(Value::Array(v)) = inner.get("token_logprobs") {
                return Some(("legacy", v.iter().collect()));
            }
            if let Some(Value::Array(content)) = inner.get("content") {
                return Some((
                    "chat",
                    content
                        .iter()
                        .map(|c| c.get("logprob").unwrap_or(&Value::Null))
                        .collect(),
                ));
            }
            None
        }
        _ => None,
    }
}

/// Reads the file; `systems` = the configured systems (empty: the file's
/// systems in order of appearance).
pub fn read(path: &Path, systems: &[String], sentinel: Sentinel) -> Result<Vec<SystemLogprobs>> {
    let bytes = std::fs::read(path)
        .map_err(|e| anyhow!("{}: cannot read the file: {e}", path.display()))?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|_| anyhow!("{}: the file is not UTF-8 text", path.display()))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out: Vec<SystemLogprobs> = systems
        .iter()
        .map(|s| SystemLogprobs {
            system: s.clone(),
            ..SystemLogprobs::default()
        })
        .collect();
    let fixed = !systems.is_empty();
    let mut seen = std::collections::HashSet::new();
    for (k, line) in text.split('\n').enumerate() {
        let lineno = k + 1;
        if line.trim().is_empty() {
            continue;
        }
        let at = || format!("{}: line {lineno}", path.display());
        let v: Value =
            serde_json::from_str(line).map_err(|e| anyhow!("{}: not a JSON object ({e})", at()))?;
        let obj = v
            .as_object()
            .ok_or_else(|| anyhow!("{}: not a JSON object", at()))?;
        let system = match obj.get("system") {
            Some(Value::String(s)) => s.clone(),
            _ => bail!("{}: key \"system\" is missing or not a text", at()),
        };
        let id = match obj.get("id") {
            Some(Value::String(s)) => s.trim().to_string(),
            Some(Value::Number(n)) => n.to_string(),
            _ => bail!("{}: key \"id\" is missing (system {system})", at()),
        };
        let slot = match out.iter().position(|s| s.system == system) {
            Some(i) => i,
            None if !fixed => {
                out.push(SystemLogprobs {
                    system: system.clone(),
                    ..SystemLogprobs::default()
                });
                out.len() - 1
            }
            None => bail!(
                "{}: system \"{system}\" is not a configured system (the systems are {})",
                at(),
                systems.join(", ")
            ),
        };
        if !seen.insert((system.clone(), id.clone())) {
            bail!(
                "{}: id \"{id}\" repeats for system {system} (ids must be unique per system)",
                at()
            );
        }
        let (form, values) = values_of(obj).ok_or_else(|| {
            anyhow!("{}: no log-probabilities (logprobs, token_logprobs or logprobs.content[].logprob) for system {system}", at())
        })?;
        let mut seq = LogprobSequence {
            id,
            logprobs: Vec::with_capacity(values.len()),
            n_sentinel: 0,
            leading_null: false,
            text: obj.get("text").and_then(Value::as_str).map(str::to_string),
        };
        for (j, x) in values.iter().enumerate() {
            let lp = match x {
                Value::Null if j == 0 => {
                    seq.leading_null = true;
                    continue;
                }
                Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
                other => bail!(
                    "{}: token {} of system {system} is {other}, not a log-probability (only the first token may be null)",
                    at(),
                    j + 1
                ),
            };
            if !lp.is_finite() || lp > 0.0 {
                bail!("{}: token {} of system {system} is {lp}: log-probabilities are finite and <= 0", at(), j + 1);
            }
            if lp <= -9999.0 {
                seq.n_sentinel += 1;
                match sentinel {
                    Sentinel::Drop => continue,
                    Sentinel::Keep => {}
                    Sentinel::Error => bail!(
                        "{}: token {} of system {system} is the sentinel {lp} (OpenAI: not in the top 20); [perplexity] sentinel = \"error\"",
                        at(),
                        j + 1
                    ),
                }
            }
            seq.logprobs.push(lp);
        }
        let slot = &mut out[slot];
        if !slot.forms.contains(&form) {
            slot.forms.push(form);
            slot.forms.sort_unstable();
        }
        slot.sequences.push(seq);
    }
    Ok(out)
}
