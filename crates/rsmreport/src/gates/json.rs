//! Stage 6 (gates): the gate results as JSON: every line in
//! `output/<id>_gates.json` (`gates_version` 1), and the short form inside
//! `<id>_summary.json`. Documented in the README ("Quality gates").
//!
//! Produces values and bytes; writes nothing.

use serde_json::{json, Map, Value};

use super::{counts, failed, Outcome};

/// The version of the gates file's shape; bumped on incompatible changes.
pub const GATES_VERSION: u64 = 1;

use rsmreport_io::output::json::number;

/// `{"pass": 4, "fail": 1, ...}`.
fn count_map(outcomes: &[Outcome]) -> Value {
    let mut m = Map::new();
    for (status, n) in counts(outcomes) {
        m.insert(status.name().into(), json!(n));
    }
    Value::Object(m)
}

/// One result line with its gate.
pub fn line(o: &Outcome) -> Value {
    let g = &o.gate;
    json!({
        "name": g.name,
        "metric": g.metric,
        "score_type": g.score_type,
        "scope": g.scope.to_string(),
        "level": o.level,
        "n": o.n,
        "op": g.op.symbol(),
        "threshold": g.threshold,
        "bound": g.bound.name(),
        "severity": g.severity.name(),
        "min_n": g.min_n,
        "origin": g.origin,
        "estimate": number(o.estimate),
        "lower": o.interval.map_or(Value::Null, |i| number(i.0)),
        "upper": o.interval.map_or(Value::Null, |i| number(i.1)),
        "value": number(o.value),
        "status": o.status.name(),
        "fails": o.fails(),
        "reason": o.reason,
    })
}

/// The gates file of experiment `id`, pretty-printed, ending in a new line.
pub fn gates_json(id: &str, outcomes: &[Outcome]) -> Vec<u8> {
    let value = json!({
        "gates_version": GATES_VERSION,
        "experiment_id": id,
        "passed": !failed(outcomes),
        "counts": count_map(outcomes),
        "results": outcomes.iter().map(line).collect::<Vec<_>>(),
    });
    rsmreport_io::output::json::bytes(&value)
}

/// The `gates` entry of the summary: passed or not, the counts, and the
/// lines that fail the run or warn.
pub fn summary(outcomes: &[Outcome]) -> Value {
    let flagged: Vec<Value> = super::display_order(outcomes)
        .into_iter()
        .filter(|o| o.fails() || matches!(o.status, super::Status::Warn | super::Status::Nan))
        .map(|o| {
            json!({
                "name": o.gate.name,
                "scope": o.scope_text(),
                "status": o.status.name(),
                "fails": o.fails(),
                "reason": o.reason,
            })
        })
        .collect();
    json!({
        "passed": !failed(outcomes),
        "counts": count_map(outcomes),
        "flagged": flagged,
    })
}
