//! Stage 6 (gates): evaluates validated quality gates (gates spec 2-4) on
//! computed results, one [`Outcome`] per result line: `pass`, `fail`,
//! `warn`, `skipped` or `nan`, with the value compared, its interval, the
//! condition and a one-line reason. [`evaluate`] reads the results through
//! the [`Results`] trait, which the evaluation kind (`build`, `check`) and
//! `compare` implement over their own tables and the tests over hand-made
//! numbers; `classify` finds its statistics itself and calls [`judge`] per
//! line. [`json`] and [`junit`] turn the outcomes into file bytes;
//! [`files`] makes the same two files for every kind with gates.
//!
//! Pure: no I/O, no metric arithmetic (every number is read, never
//! recomputed).

use rsmreport_config::gates::ScoreTypes;
use rsmreport_config::gates::{
    locate_level, locate_overall, Bound, Cell, Gate, Op, Scope, Severity,
};

pub mod json;
pub mod junit;

/// One statistic as the results hold it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stat {
    pub estimate: f64,
    /// The confidence interval, when one was computed.
    pub interval: Option<(f64, f64)>,
}

/// What gates are evaluated on.
pub trait Results {
    /// The statistic in `cell`, or why it was not computed (the reason of a
    /// `skipped` line).
    fn stat(&self, cell: &Cell) -> Result<Stat, String>;
    /// The levels of `group` with their numbers of responses, in table
    /// order (without `All data`).
    fn levels(&self, group: &str) -> Vec<(String, u64)>;
    /// Responses in the whole evaluation set.
    fn n(&self) -> u64;
    /// Double-scored responses of the whole set (`level` `None`) or of one
    /// `(group, level)`: the N behind the statistics that use the second
    /// human score. `None` when no human-human statistics were computed
    /// (the statistic's own reason then says why).
    fn double_scored(&self, level: Option<(&str, &str)>) -> Option<u64> {
        let _ = level;
        None
    }
    /// The score types of the results.
    fn types(&self) -> &ScoreTypes;
}

/// The status of one result line (spec 2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Status {
    Fail,
    Nan,
    Warn,
    Pass,
    Skipped,
}

impl Status {
    pub const ALL: [Status; 5] = [
        Status::Pass,
        Status::Fail,
        Status::Warn,
        Status::Skipped,
        Status::Nan,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Warn => "warn",
            Status::Skipped => "skipped",
            Status::Nan => "nan",
        }
    }
}

/// One result line.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub gate: Gate,
    /// The subgroup level, for a by-group scope.
    pub level: Option<String>,
    /// Responses in the level (or the whole set).
    pub n: Option<u64>,
    /// The statistic's estimate (NaN when skipped).
    pub estimate: f64,
    pub interval: Option<(f64, f64)>,
    /// The number compared with the threshold (the estimate, or an end of
    /// the interval; of |statistic| for `abs` operators).
    pub value: f64,
    pub status: Status,
    pub reason: String,
}

impl Outcome {
    /// Whether this line fails the run: a failed or NaN result of a gate
    /// of severity `fail`.
    pub fn fails(&self) -> bool {
        self.gate.severity == Severity::Fail && matches!(self.status, Status::Fail | Status::Nan)
    }

    /// `overall`, `L1=Esperanto`, or the scope when no level applies.
    pub fn scope_text(&self) -> String {
        match (&self.gate.scope, &self.level) {
            (Scope::Each(g) | Scope::Worst(g) | Scope::Level(g, _), Some(l)) => format!("{g}={l}"),
            (scope, _) => scope.to_string(),
        }
    }

    /// How urgent the line is, for ordering: failures first, then NaN
    /// results that fail, warnings, passes, skipped lines.
    fn rank(&self) -> u8 {
        match self.status {
            _ if self.fails() => 0,
            Status::Warn | Status::Nan => 1,
            Status::Pass => 2,
            _ => 3,
        }
    }
}

/// The result files of gates, `output/<id>_gates.json` and
/// `output/<id>_gates.xml` (JUnit): one definition for every kind, which
/// the shared writer (`crate::kinds::archive`) writes whenever the run has
/// gates (gate results); none without.
pub fn files(id: &str, outcomes: &[Outcome]) -> Vec<rsmreport_io::output::OutputFile> {
    if outcomes.is_empty() {
        return Vec::new();
    }
    let out = std::path::Path::new("output");
    vec![
        rsmreport_io::output::OutputFile {
            path: out.join(format!("{id}_gates.json")),
            bytes: json::gates_json(id, outcomes),
        },
        rsmreport_io::output::OutputFile {
            path: out.join(format!("{id}_gates.xml")),
            bytes: junit::junit_xml(id, outcomes),
        },
    ]
}

/// Counts per status, in [`Status::ALL`] order.
pub fn counts(outcomes: &[Outcome]) -> Vec<(Status, usize)> {
    Status::ALL
        .iter()
        .map(|&s| (s, outcomes.iter().filter(|o| o.status == s).count()))
        .collect()
}

/// Whether any line fails the run (exit code 3).
pub fn failed(outcomes: &[Outcome]) -> bool {
    outcomes.iter().any(Outcome::fails)
}

/// The lines in display order: failures first, then warnings, passes and
/// skipped lines, each in gate order.
pub fn display_order(outcomes: &[Outcome]) -> Vec<&Outcome> {
    let mut out: Vec<&Outcome> = outcomes.iter().collect();
    out.sort_by_key(|o| o.rank());
    out
}

/// Checks that every `<subgroup>=<level>` scope names a level that occurs
/// in the data; the error names the gate and the closest level.
pub fn check_levels(gates: &[Gate], results: &dyn Results) -> Result<(), String> {
    for gate in gates {
        let Scope::Level(g, level) = &gate.scope else {
            continue;
        };
        let levels = results.levels(g);
        if levels.iter().any(|(l, _)| l == level) {
            continue;
        }
        let names: Vec<&str> = levels.iter().map(|(l, _)| l.as_str()).collect();
        let hint = rsmreport_config::closest(level, names.iter().copied())
            .map_or_else(String::new, |c| format!("; did you mean \"{g}={c}\"?"));
        return Err(format!(
            "gate \"{}\" ({}): the subgroup {g} has no level \"{level}\" in the data (its \
             levels are {}){hint}",
            gate.name,
            gate.place(),
            names.join(", ")
        ));
    }
    Ok(())
}

/// Every result line of `gates`, in gate order (levels in table order).
pub fn evaluate(gates: &[Gate], results: &dyn Results) -> Vec<Outcome> {
    let mut out = Vec::new();
    for gate in gates {
        match &gate.scope {
            Scope::Overall => out.push(overall(gate, results)),
            Scope::Each(g) => {
                for (level, n) in results.levels(g) {
                    out.push(level_line(gate, results, g, &level, n));
                }
            }
            Scope::Worst(g) => out.push(worst(gate, results, g)),
            Scope::Level(g, level) => {
                let n = results
                    .levels(g)
                    .into_iter()
                    .find(|(l, _)| l == level)
                    .map_or(0, |(_, n)| n);
                out.push(level_line(gate, results, g, level, n));
            }
            Scope::NoSubgroups => out.push(skipped(
                gate,
                None,
                None,
                "needs subgroups, and the experiment has none".into(),
            )),
        }
    }
    out
}

/// Whether `metric` is computed on the double-scored responses only.
pub fn uses_second_score(metric: &str) -> bool {
    metric.starts_with("hh.")
        || metric.starts_with("degradation.")
        || metric == "corr_disattenuated"
}

/// The N a line of `gate` is judged on: `n` responses, or the
/// double-scored ones for a statistic of the second human score; and why
/// the line is skipped when that N is too small.
fn line_n(
    gate: &Gate,
    results: &dyn Results,
    level: Option<(&str, &str)>,
    n: u64,
    least: u64,
) -> (u64, Option<String>) {
    let double = uses_second_score(&gate.metric)
        .then(|| results.double_scored(level))
        .flatten();
    let n = double.unwrap_or(n);
    let why = if double == Some(0) {
        Some(
            "no response has a second human score, so the human-human statistics are undefined"
                .into(),
        )
    } else if n < least {
        let what = if double.is_some() {
            "double-scored responses"
        } else {
            "N"
        };
        Some(format!("{what} = {n} is below min_n = {least}"))
    } else {
        None
    };
    (n, why)
}

fn overall(gate: &Gate, results: &dyn Results) -> Outcome {
    let (n, why) = line_n(gate, results, None, results.n(), gate.min_n);
    if let Some(why) = why {
        return skipped(gate, None, Some(n), why);
    }
    match locate_overall(&gate.metric, &gate.score_type) {
        Ok((cell, _)) => judge(gate, results.stat(&cell), None, Some(n)),
        Err(why) => skipped(gate, None, Some(n), why),
    }
}

fn level_line(gate: &Gate, results: &dyn Results, group: &str, level: &str, n: u64) -> Outcome {
    let lv = Some(level.to_string());
    let (n, why) = line_n(gate, results, Some((group, level)), n, gate.min_n.max(1));
    if let Some(why) = why {
        return skipped(gate, lv, Some(n), why);
    }
    match locate_level(
        &gate.metric,
        &gate.score_type,
        results.types(),
        group,
        level,
    ) {
        Ok((cell, _)) => judge(gate, results.stat(&cell), lv, Some(n)),
        Err(why) => skipped(gate, lv, Some(n), why),
    }
}

/// The level with the worst compared value (NaN counts as worst), among
/// the levels with at least `min_n` responses.
fn worst(gate: &Gate, results: &dyn Results, group: &str) -> Outcome {
    let all: Vec<Outcome> = results
        .levels(group)
        .iter()
        .map(|(level, n)| level_line(gate, results, group, level, *n))
        .collect();
    let (lines, skipped_lines): (Vec<Outcome>, Vec<Outcome>) =
        all.into_iter().partition(|o| o.status != Status::Skipped);
    let below = skipped_lines.len();
    let badness = |o: &Outcome| {
        if o.value.is_nan() {
            f64::INFINITY
        } else {
            gate.op.badness(o.value)
        }
    };
    let Some(mut pick) = lines
        .iter()
        .reduce(|a, b| if badness(b) > badness(a) { b } else { a })
        .cloned()
    else {
        // Every level was skipped: say why (the same reason for all, or
        // the first level's).
        let why = match skipped_lines.first() {
            Some(first) if skipped_lines.iter().all(|o| o.reason == first.reason) => {
                format!("every level of {group} was skipped: {}", first.reason)
            }
            Some(first) => format!(
                "every level of {group} was skipped (for example {}: {})",
                first.level.as_deref().unwrap_or(""),
                first.reason
            ),
            None => format!("{group} has no level"),
        };
        return skipped(gate, None, None, why);
    };
    let mut note = format!("worst of {} levels", lines.len());
    if below > 0 {
        note.push_str(&format!(", {below} skipped (not considered)"));
    }
    pick.reason = format!("{}; {note}", pick.reason);
    pick
}

fn skipped(gate: &Gate, level: Option<String>, n: Option<u64>, reason: String) -> Outcome {
    Outcome {
        gate: gate.clone(),
        level,
        n,
        estimate: f64::NAN,
        interval: None,
        value: f64::NAN,
        status: Status::Skipped,
        reason,
    }
}

/// The number a gate compares: the estimate or an end of the interval; for
/// `abs` operators an end of the interval of |statistic| (the upper end is
/// the end farther from 0; the lower end is 0 when the interval holds 0).
fn compared(op: Op, bound: Bound, stat: &Stat) -> Option<f64> {
    let abs = matches!(op, Op::AbsLe | Op::AbsLt);
    let (lo, hi) = match bound {
        Bound::Estimate => {
            let e = stat.estimate;
            return Some(if abs { e.abs() } else { e });
        }
        _ => stat.interval?,
    };
    let (lo, hi) = if !abs {
        (lo, hi)
    } else if lo.is_nan() || hi.is_nan() {
        (f64::NAN, f64::NAN)
    } else if lo >= 0.0 {
        (lo, hi)
    } else if hi <= 0.0 {
        (-hi, -lo)
    } else {
        (0.0, hi.max(-lo))
    };
    Some(if bound == Bound::Lower { lo } else { hi })
}

/// One result line of `gate` on `stat` (or `skipped` with the reason the
/// statistic is missing): for report kinds that find their statistics
/// themselves (`classify`).
pub fn judge(
    gate: &Gate,
    stat: Result<Stat, String>,
    level: Option<String>,
    n: Option<u64>,
) -> Outcome {
    let stat = match stat {
        Ok(s) => s,
        Err(why) => return skipped(gate, level, n, why),
    };
    let Some(value) = compared(gate.op, gate.bound, &stat) else {
        let why = format!("no interval was computed for {}", gate.metric);
        return skipped(gate, level, n, why);
    };
    let what = describe_value(gate, value);
    let (status, reason) = if value.is_nan() {
        let effect = match gate.severity {
            Severity::Fail => "counted as a failure",
            Severity::Warn => "reported as a warning",
        };
        (
            Status::Nan,
            format!("{what} is NaN (it cannot be computed on these data); {effect}"),
        )
    } else if gate.op.holds(value, gate.threshold) {
        let reason = format!(
            "{what} = {} {} {}",
            num(value),
            op_text(gate.op),
            gate.threshold
        );
        (Status::Pass, reason)
    } else {
        let status = match gate.severity {
            Severity::Fail => Status::Fail,
            Severity::Warn => Status::Warn,
        };
        let reason = format!(
            "{what} = {} is not {} {}",
            num(value),
            op_text(gate.op),
            gate.threshold
        );
        (status, reason)
    };
    Outcome {
        gate: gate.clone(),
        level,
        n,
        estimate: stat.estimate,
        interval: stat.interval,
        value,
        status,
        reason,
    }
}

/// `wtkappa`, `|SMD|`, `lower bound of wtkappa`, `upper bound of |SMD|`.
fn describe_value(gate: &Gate, _value: f64) -> String {
    let m = match gate.op {
        Op::AbsLe | Op::AbsLt => format!("|{}|", gate.metric),
        _ => gate.metric.clone(),
    };
    match gate.bound {
        Bound::Estimate => m,
        b => format!("{} bound of {m}", b.name()),
    }
}

/// The comparison in words-free form, with `abs` already applied.
fn op_text(op: Op) -> &'static str {
    match op {
        Op::Ge => ">=",
        Op::Gt => ">",
        Op::Le | Op::AbsLe => "<=",
        Op::Lt | Op::AbsLt => "<",
    }
}

/// A number for a reason line: whole numbers as such, else four
/// significant decimals.
pub fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        let s = format!("{x:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

#[cfg(test)]
mod tests;
