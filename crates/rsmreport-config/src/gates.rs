//! Stage 1 (config): quality gates (gates spec 1-3). The `[[gates]]` array
//! and `gates_preset` of an experiment file, or of a separate gates file
//! (`--gates FILE`), validated into [`Gate`] values against what the
//! experiment will compute: metric, score type, subgroup, operator, bound
//! (a bound needs bootstrap intervals) and severity, each wrong value named
//! with the closest valid one. The preset `williamson2012` is expanded here.
//!
//! The metric names are the column lists of the sections that write the
//! tables and of the intervals (one list of each, never a copy).
//!
//! Pure: reads no data table; [`load_file`] only reads the gates file.
//! Evaluating the gates is the gates stage's job (`rsmreport::gates`, in the engine crate).

use std::fmt;
use std::path::Path;

use anyhow::{anyhow, Result};
use serde_json::{Map, Value};

use super::keys::closest;
use super::{Experiment, ScaleWith};

/// The keys of one `[[gates]]` table.
pub const GATE_KEYS: [&str; 9] = [
    "name",
    "metric",
    "score_type",
    "scope",
    "op",
    "threshold",
    "bound",
    "severity",
    "min_n",
];

/// The presets `gates_preset` accepts.
pub const PRESETS: [&str; 1] = ["williamson2012"];

/// Where the preset comes from, as the report and README cite it.
pub const WILLIAMSON2012: &str = "Williamson, D. M., Xi, X., & Breyer, F. J. (2012). A framework \
    for evaluation and use of automated scoring. Educational Measurement: Issues and Practice, \
    31(1), 2-13.";

/// The comparison of a gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Ge,
    Gt,
    Le,
    Lt,
    AbsLe,
    AbsLt,
}

impl Op {
    pub const ALL: [&'static str; 6] = [">=", ">", "<=", "<", "abs<=", "abs<"];

    fn parse(s: &str) -> Option<Op> {
        Some(match s {
            ">=" => Op::Ge,
            ">" => Op::Gt,
            "<=" => Op::Le,
            "<" => Op::Lt,
            "abs<=" => Op::AbsLe,
            "abs<" => Op::AbsLt,
            _ => return None,
        })
    }

    pub fn symbol(self) -> &'static str {
        match self {
            Op::Ge => ">=",
            Op::Gt => ">",
            Op::Le => "<=",
            Op::Lt => "<",
            Op::AbsLe => "abs<=",
            Op::AbsLt => "abs<",
        }
    }

    /// Whether `value` meets `threshold` (false for NaN).
    pub fn holds(self, value: f64, threshold: f64) -> bool {
        match self {
            Op::Ge => value >= threshold,
            Op::Gt => value > threshold,
            Op::Le => value <= threshold,
            Op::Lt => value < threshold,
            Op::AbsLe => value.abs() <= threshold,
            Op::AbsLt => value.abs() < threshold,
        }
    }

    /// How bad `value` is in this gate's direction (larger is worse):
    /// small values for `>=`, large ones for `<=`, far from 0 for `abs`.
    pub fn badness(self, value: f64) -> f64 {
        match self {
            Op::Ge | Op::Gt => -value,
            Op::Le | Op::Lt => value,
            Op::AbsLe | Op::AbsLt => value.abs(),
        }
    }
}

/// Which number of a statistic a gate compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Estimate,
    Lower,
    Upper,
}

impl Bound {
    pub const ALL: [&'static str; 3] = ["estimate", "lower", "upper"];

    pub fn name(self) -> &'static str {
        match self {
            Bound::Estimate => "estimate",
            Bound::Lower => "lower",
            Bound::Upper => "upper",
        }
    }
}

/// What a failed gate does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// A failure fails the run (exit code 3).
    Fail,
    /// A failure is reported as a warning.
    Warn,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Fail => "fail",
            Severity::Warn => "warn",
        }
    }
}

/// Which responses a gate looks at (spec 2.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The whole evaluation set.
    Overall,
    /// Every level of the subgroup, one result each.
    Each(String),
    /// The level with the worst value, one result.
    Worst(String),
    /// One level of a subgroup.
    Level(String, String),
    /// A preset gate that needs subgroups when none are configured: one
    /// `skipped` result saying so.
    NoSubgroups,
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scope::Overall => f.write_str("overall"),
            Scope::Each(g) => write!(f, "each:{g}"),
            Scope::Worst(g) => write!(f, "worst:{g}"),
            Scope::Level(g, l) => write!(f, "{g}={l}"),
            Scope::NoSubgroups => f.write_str("each:<subgroup>"),
        }
    }
}

impl Scope {
    /// The subgroup the scope looks at, if any.
    pub fn group(&self) -> Option<&str> {
        match self {
            Scope::Each(g) | Scope::Worst(g) | Scope::Level(g, _) => Some(g),
            Scope::Overall | Scope::NoSubgroups => None,
        }
    }
}

/// One validated gate.
#[derive(Clone, Debug, PartialEq)]
pub struct Gate {
    pub name: String,
    /// As written: `wtkappa`, `hh.corr`, `degradation.wtkappa`, `PRMSE`,
    /// `DSM`, `delta.wtkappa`.
    pub metric: String,
    pub score_type: String,
    pub scope: Scope,
    pub op: Op,
    pub threshold: f64,
    pub bound: Bound,
    pub severity: Severity,
    /// A group (or the whole set) with fewer responses is `skipped`.
    pub min_n: u64,
    /// Where the gate was defined (`exp.toml, gates[2]`, `preset
    /// williamson2012`), as the outputs name it.
    pub origin: String,
    /// The line of its `[[gates]]` table in that file, for error messages
    /// only (never in an output); `None` for a preset's gate.
    pub line: Option<usize>,
}

impl Gate {
    /// Where the gate is, for an error message: its origin with the line
    /// of its `[[gates]]` table (`gates.toml, line 7, gates[2]`), as the
    /// configuration's own errors point at it.
    pub fn place(&self) -> String {
        match (self.line, self.origin.split_once(", ")) {
            (Some(l), Some((file, item))) => format!("{file}, line {l}, {item}"),
            _ => self.origin.clone(),
        }
    }

    /// The condition as one line: `wtkappa (scale_trim) >= 0.7`, with the
    /// bound when it is not the estimate.
    pub fn condition(&self) -> String {
        let bound = match self.bound {
            Bound::Estimate => String::new(),
            b => format!(", {} bound", b.name()),
        };
        format!(
            "{} ({}) {} {}{bound}",
            self.metric,
            self.score_type,
            self.op.symbol(),
            self.threshold
        )
    }
}

// ------------------------------------------------------------ the metrics

/// The columns of `eval` (whole set, one row per score type), as the
/// evaluation section writes them.
const EVAL: [&str; 17] = rsmreport_core::schema::EVAL_COLUMNS;
/// The `eval` statistics with an interval (uncertainty spec 3).
const EVAL_CI: [&str; 10] = rsmreport_core::schema::EVAL_METRICS;
/// The `consistency` statistics with an interval.
const HH_CI: [&str; 6] = rsmreport_core::schema::CONSISTENCY_METRICS;
/// The columns of `degradation` (all with an interval).
const DEGRADATION: [&str; 6] = rsmreport_core::schema::DEGRADATION_METRICS;

/// The columns of `consistency` (`hh.` prefix): `N`, the human-human
/// statistics as the consistency section writes them, and `DSM` (by group
/// only).
fn hh_columns() -> impl Iterator<Item = &'static str> {
    std::iter::once("N")
        .chain(
            rsmreport_core::schema::CONSISTENCY_COLUMNS
                .iter()
                .map(|(c, _)| *c),
        )
        .chain(std::iter::once("DSM"))
}

fn is_hh(m: &str) -> bool {
    hh_columns().any(|c| c == m)
}

/// `eval_by_<g>` columns that belong to no score type.
const BY_GROUP_PLAIN: [&str; 3] = ["N", "h_mean", "h_sd"];
/// `eval_by_<g>` columns of the trimmed score type (`corr.scale_trim`).
const BY_GROUP_TRIM: [&str; 7] = ["sys_mean", "sys_sd", "wtkappa", "corr", "DSM", "RMSE", "R2"];
/// `eval_by_<g>` columns of the trimmed and rounded score type.
const BY_GROUP_ROUND: [&str; 6] = ["sys_mean", "sys_sd", "kappa", "exact_agr", "adj_agr", "DSM"];
/// By-group statistics with an interval, per score type.
const BY_GROUP_TRIM_CI: [&str; 5] = ["corr", "wtkappa", "DSM", "RMSE", "R2"];
const BY_GROUP_ROUND_CI: [&str; 1] = ["DSM"];

/// Every metric name a `build` gate accepts (for suggestions).
pub fn metric_names() -> Vec<String> {
    let mut out: Vec<String> = EVAL.iter().map(|m| m.to_string()).collect();
    out.extend(hh_columns().map(|m| format!("hh.{m}")));
    out.extend(DEGRADATION.iter().map(|m| format!("degradation.{m}")));
    out.extend(["corr_disattenuated", "PRMSE", "DSM"].map(String::from));
    out
}

/// Where a statistic lives in a run's tables: the table, its row (a score
/// type, a group level, or `""` for the one-row `consistency`) and the
/// column. `level` is `None` for the whole set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    pub table: String,
    pub row: String,
    pub column: String,
}

/// The score types of the run's tables: trimmed (`X_trim`) and trimmed
/// and rounded (`X_trim_round`) of the primary family, and all of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScoreTypes {
    pub all: Vec<&'static str>,
    pub trim: &'static str,
    pub round: &'static str,
}

impl ScoreTypes {
    /// The score types an experiment produces (spec 2.11-2.12).
    pub fn of(exp: &Experiment) -> ScoreTypes {
        ScoreTypes::with_primary(&exp.scale_with, exp.scaled())
    }

    /// The score types of scaling `scale_with`, the primary family scaled
    /// or raw: `train` evaluates with a scale file and reads its primary
    /// family from `use_scaled_predictions` (train.md 7), `build` from
    /// whether it scales at all ([`ScoreTypes::of`]).
    pub fn with_primary(scale_with: &ScaleWith, scaled: bool) -> ScoreTypes {
        const RAW: [&str; 3] = ["raw", "raw_trim", "raw_trim_round"];
        const SCALE: [&str; 3] = ["scale", "scale_trim", "scale_trim_round"];
        let all = match scale_with {
            ScaleWith::None => RAW.to_vec(),
            ScaleWith::Asis => SCALE.to_vec(),
            ScaleWith::Raw | ScaleWith::File(_) => [RAW, SCALE].concat(),
        };
        let fam = if scaled { SCALE } else { RAW };
        ScoreTypes {
            all,
            trim: fam[1],
            round: fam[2],
        }
    }

    /// The primary score type (the key figures' type).
    pub fn primary(&self) -> &'static str {
        self.trim
    }
}

/// The location of `metric` of `score_type` for the whole set, and whether
/// it has an interval; an error says why the combination does not exist.
pub fn locate_overall(metric: &str, score_type: &str) -> Result<(Cell, bool), String> {
    let cell = |table: &str, row: &str, column: &str| Cell {
        table: table.into(),
        row: row.into(),
        column: column.into(),
    };
    if let Some((kind, m)) = difference(metric) {
        return match DELTA_OVERALL.contains(&m) {
            true => Ok((cell(kind, score_type, m), true)),
            false if DELTA_BY_LEVEL.contains(&m) => Err(format!(
                "{metric} is compared by subgroup level only; use a scope such as \
                 each:<subgroup>"
            )),
            false => Err(unknown_delta(metric)),
        };
    }
    if let Some(m) = metric.strip_prefix("hh.") {
        return match m {
            "DSM" => Err("hh.DSM is computed by group only; for the whole set use hh.SMD".into()),
            _ if is_hh(m) => Ok((cell("consistency", "", m), HH_CI.contains(&m))),
            _ => Err(unknown_metric(metric)),
        };
    }
    if let Some(m) = metric.strip_prefix("degradation.") {
        return match DEGRADATION.contains(&m) {
            true => Ok((cell("degradation", score_type, m), true)),
            false => Err(unknown_metric(metric)),
        };
    }
    match metric {
        "corr_disattenuated" => Ok((cell("disattenuated_correlations", score_type, metric), true)),
        "PRMSE" => Ok((cell("true_score_eval", score_type, "PRMSE true"), true)),
        "DSM" => Err(
            "DSM (difference of standardized means) is computed by group only; use a scope \
             such as each:<subgroup>, or SMD for the whole set"
                .into(),
        ),
        m if EVAL.contains(&m) => Ok((cell("eval", score_type, m), EVAL_CI.contains(&m))),
        _ => Err(unknown_metric(metric)),
    }
}

/// The location of `metric` of `score_type` for `level` of `group`, and
/// whether it has an interval.
pub fn locate_level(
    metric: &str,
    score_type: &str,
    types: &ScoreTypes,
    group: &str,
    level: &str,
) -> Result<(Cell, bool), String> {
    let cell = |table: String, column: String| Cell {
        table,
        row: level.into(),
        column,
    };
    let by_group_only = |what: &str| {
        format!("{metric} is computed for the whole set only ({what}); use scope = \"overall\"")
    };
    if let Some((kind, m)) = difference(metric) {
        return match DELTA_BY_LEVEL.contains(&m) {
            true => Ok((cell(format!("{kind}_by_{group}"), m.into()), true)),
            false if DELTA_OVERALL.contains(&m) => {
                Err(by_group_only("compare's whole-set verdicts"))
            }
            false => Err(unknown_delta(metric)),
        };
    }
    if let Some(m) = metric.strip_prefix("hh.") {
        return match m {
            "SMD" => Err("by group, the human-human difference is hh.DSM, not hh.SMD".into()),
            _ if is_hh(m) => Ok((cell(format!("consistency_by_{group}"), m.into()), false)),
            _ => Err(unknown_metric(metric)),
        };
    }
    if metric.starts_with("degradation.") {
        return Err(by_group_only("there is no degradation table by group"));
    }
    match metric {
        "PRMSE" => Err(by_group_only("true_score_eval")),
        "SMD" => Err(
            "SMD is the whole-set statistic; by group, the standardized difference is DSM".into(),
        ),
        "corr_disattenuated" if score_type != types.trim => Err(format!(
            "corr_disattenuated by group is computed for score type {} only",
            types.trim
        )),
        "corr_disattenuated" => Ok((
            cell(
                format!("disattenuated_correlations_by_{group}"),
                metric.into(),
            ),
            false,
        )),
        m if BY_GROUP_PLAIN.contains(&m) => Ok((cell(format!("eval_by_{group}"), m.into()), false)),
        m => {
            let (columns, ci) = if score_type == types.trim {
                (&BY_GROUP_TRIM[..], &BY_GROUP_TRIM_CI[..])
            } else if score_type == types.round {
                (&BY_GROUP_ROUND[..], &BY_GROUP_ROUND_CI[..])
            } else {
                return Err(format!(
                    "by group, statistics are computed for score types {} and {} only, not {score_type}",
                    types.trim, types.round
                ));
            };
            if !columns.contains(&m) {
                return Err(no_by_group_column(metric, score_type, types));
            }
            let column = format!("{m}.{score_type}");
            Ok((cell(format!("eval_by_{group}"), column), ci.contains(&m)))
        }
    }
}

/// A difference between two model versions (`compare` only): `delta.<m>`,
/// the signed `candidate - baseline`, or `gain.<m>`, the oriented change
/// (positive is better; for SMD and DSM `|baseline| - |candidate|`), as
/// `("delta" | "gain", m)`.
pub fn difference(metric: &str) -> Option<(&'static str, &str)> {
    ["delta", "gain"]
        .into_iter()
        .find_map(|kind| Some((kind, metric.strip_prefix(kind)?.strip_prefix('.')?)))
}

/// The paired differences of `compare` a `delta.*` gate may name: the
/// whole-set statistics (compare spec 2.2) and those of each subgroup
/// level. A test of `compare` checks them against its tables.
pub const DELTA_OVERALL: [&str; 11] = [
    "wtkappa",
    "corr",
    "kappa",
    "exact_agr",
    "adj_agr",
    "R2",
    "RMSE",
    "SMD",
    "PRMSE",
    "degradation.corr",
    "degradation.wtkappa",
];
pub const DELTA_BY_LEVEL: [&str; 5] = ["wtkappa", "corr", "DSM", "RMSE", "R2"];

fn unknown_delta(metric: &str) -> String {
    let kind = difference(metric).map_or("delta", |(k, _)| k);
    let names: Vec<String> = DELTA_OVERALL
        .iter()
        .chain(&DELTA_BY_LEVEL)
        .map(|m| format!("{kind}.{m}"))
        .collect();
    match closest(metric, names.iter().map(String::as_str)) {
        Some(c) => format!("unknown metric \"{metric}\"; did you mean {c}?"),
        None => format!(
            "unknown metric \"{metric}\" (compare's differences are delta.<statistic> for {})",
            DELTA_OVERALL.join(", ")
        ),
    }
}

fn unknown_metric(metric: &str) -> String {
    let names = metric_names();
    match closest(metric, names.iter().map(String::as_str)) {
        Some(c) => format!("unknown metric \"{metric}\"; did you mean {c}?"),
        None => format!(
            "unknown metric \"{metric}\" (the metrics are the columns of eval, hh.<column of \
             consistency>, degradation.<column>, corr_disattenuated, PRMSE and DSM)"
        ),
    }
}

fn no_by_group_column(metric: &str, score_type: &str, types: &ScoreTypes) -> String {
    let other = if score_type == types.trim {
        (types.round, &BY_GROUP_ROUND[..])
    } else {
        (types.trim, &BY_GROUP_TRIM[..])
    };
    if other.1.contains(&metric) {
        format!(
            "by group, {metric} is computed for score type {} (not {score_type}); set \
             score_type = \"{}\"",
            other.0, other.0
        )
    } else if EVAL.contains(&metric) {
        format!("{metric} is not computed by group; use scope = \"overall\"")
    } else {
        unknown_metric(metric)
    }
}

// ------------------------------------------------------------ validation

/// What gate validation needs to know about the experiment.
pub struct Context<'a> {
    pub subgroups: &'a [String],
    pub types: ScoreTypes,
    /// Bootstrap intervals are computed (intervals on, replicates > 0).
    pub bootstrap: bool,
    /// `min_n_per_group` of a subgroup (0: none).
    pub min_n: &'a dyn Fn(&str) -> u64,
    /// Gates of `rsmreport compare`: `delta.*` metrics are allowed.
    pub compare: bool,
}

impl<'a> Context<'a> {
    pub fn of(exp: &'a Experiment, min_n: &'a dyn Fn(&str) -> u64) -> Context<'a> {
        Context {
            subgroups: &exp.subgroups,
            types: ScoreTypes::of(exp),
            bootstrap: exp.intervals.is_some_and(|i| i.replicates > 0),
            min_n,
            compare: false,
        }
    }
}

/// A gate definition error: the top-level key it belongs to (`gates` or
/// `gates_preset`) and, for one `[[gates]]` table, its index (for the line
/// number), and the message naming the gate.
pub type GateError = (&'static str, Option<usize>, String);

/// The gates of `gates` (the `[[gates]]` array) and `preset`
/// (`gates_preset`), preset first. `origin` names the file in each gate's
/// origin.
pub fn parse(
    gates: Option<&Value>,
    preset: Option<&Value>,
    cx: &Context,
    origin: &str,
) -> Result<Vec<Gate>, GateError> {
    let mut out = parse_preset(preset, cx).map_err(|e| ("gates_preset", None, e))?;
    parse_gates(gates, cx, origin, &mut out).map_err(|(i, e)| ("gates", i, e))?;
    Ok(out)
}

fn parse_preset(preset: Option<&Value>, cx: &Context) -> Result<Vec<Gate>, String> {
    Ok(match preset {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(p)) if p == "williamson2012" => williamson2012(cx),
        Some(Value::String(p)) => {
            let hint = closest(p, PRESETS).map_or_else(
                || format!(" (the presets are {})", PRESETS.join(", ")),
                |c| format!("; did you mean \"{c}\"?"),
            );
            return Err(format!("unknown gates_preset \"{p}\"{hint}"));
        }
        Some(other) => {
            return Err(format!(
                "gates_preset must be the name of a preset (\"williamson2012\"), but it is {}",
                super::value::describe(other)
            ))
        }
    })
}

fn parse_gates(
    gates: Option<&Value>,
    cx: &Context,
    origin: &str,
    out: &mut Vec<Gate>,
) -> Result<(), (Option<usize>, String)> {
    let items = match gates {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err((
                None,
                format!(
                    "gates must be an array of tables ([[gates]] blocks), but it is {}",
                    super::value::describe(other)
                ),
            ))
        }
    };
    for (i, item) in items.iter().enumerate() {
        let at = format!("{origin}, gates[{}]", i + 1);
        let Value::Object(table) = item else {
            return Err((
                Some(i),
                format!(
                    "gates[{}] must be a table with metric, op and threshold, but it is {}",
                    i + 1,
                    super::value::describe(item)
                ),
            ));
        };
        let label = match table.get("name") {
            Some(Value::String(n)) => format!("gates[{}] (\"{n}\")", i + 1),
            _ => format!("gates[{}]", i + 1),
        };
        let gate = one(table, cx, at).map_err(|e| (Some(i), format!("{label}: {e}")))?;
        out.push(gate);
    }
    Ok(())
}

/// The preset's gates (spec 3).
fn williamson2012(cx: &Context) -> Vec<Gate> {
    let gate = |name: &str, metric: &str, op: Op, threshold: f64, scope: Scope, min_n: u64| Gate {
        name: name.into(),
        metric: metric.into(),
        score_type: cx.types.primary().into(),
        scope,
        op,
        threshold,
        bound: Bound::Estimate,
        severity: Severity::Fail,
        min_n,
        origin: "preset williamson2012".into(),
        line: None,
    };
    let mut out = vec![
        gate("QWK", "wtkappa", Op::Ge, 0.70, Scope::Overall, 0),
        gate("correlation", "corr", Op::Ge, 0.70, Scope::Overall, 0),
        gate(
            "degradation of QWK",
            "degradation.wtkappa",
            Op::Ge,
            -0.10,
            Scope::Overall,
            0,
        ),
        gate(
            "degradation of correlation",
            "degradation.corr",
            Op::Ge,
            -0.10,
            Scope::Overall,
            0,
        ),
        gate(
            "standardized mean difference",
            "SMD",
            Op::AbsLe,
            0.15,
            Scope::Overall,
            0,
        ),
    ];
    let name = "subgroup differences";
    if cx.subgroups.is_empty() {
        out.push(gate(name, "DSM", Op::AbsLe, 0.10, Scope::NoSubgroups, 0));
    }
    for g in cx.subgroups {
        let scope = Scope::Each(g.clone());
        out.push(gate(name, "DSM", Op::AbsLe, 0.10, scope, (cx.min_n)(g)));
    }
    out
}

/// One `[[gates]]` table.
fn one(table: &Map<String, Value>, cx: &Context, origin: String) -> Result<Gate, String> {
    let check = |metric: &str, score_type: &str, scope: &Scope| {
        if difference(metric).is_some() && !cx.compare {
            return Err(format!(
                "{metric}: delta.* and gain.* metrics are the differences between two model \
                 versions and apply in rsmreport compare only"
            ));
        }
        check_metric(metric, score_type, scope, &cx.types)
    };
    one_checked(table, cx, origin, &check)
}

/// One `[[gates]]` table of a kind whose gates name their own targets
/// (classify's `system`, spans' `criterion` or `system`): its label for
/// messages (`gates[2] ("name")`), the gate, and the targets its keys
/// named.
pub struct Targeted {
    pub label: String,
    pub gate: Gate,
    pub targets: Vec<String>,
}

/// Refuses a gate `table` of a kind whose gates judge the whole set
/// (`scope` absent or `"overall"`), naming the kind.
pub fn whole_set_only(kind: &str, table: &Map<String, Value>) -> Result<(), String> {
    match table.get("scope") {
        Some(v) if v.as_str().map(str::trim) != Some("overall") => Err(format!(
            "{kind} gates are on the whole set: scope = \"overall\" (the default), but it is {v}"
        )),
        _ => Ok(()),
    }
}

/// Target keys taken out of one gate table: the targets they name.
pub type TargetKeys<'a> = dyn Fn(&mut Map<String, Value>) -> Result<Vec<String>, String> + 'a;

/// The `[[gates]]` array of a kind with whole-set gates and statistics of
/// its own (`classify`, `spans`): every table's targets taken out by
/// `targets`, the rest read by [`one_checked`] with `check`. Errors name
/// the experiment file and the gate.
pub fn parse_targeted(
    gates: Option<&Value>,
    origin: &Path,
    bootstrap: bool,
    targets: &TargetKeys,
    check: &MetricCheck,
) -> Result<Vec<Targeted>> {
    let Some(Value::Array(items)) = gates else {
        return Ok(Vec::new());
    };
    let file = origin.display();
    let min_n = |_: &str| 0;
    let cx = Context {
        subgroups: &[],
        types: ScoreTypes {
            all: Vec::new(),
            trim: "raw_trim",
            round: "raw_trim_round",
        },
        bootstrap,
        min_n: &min_n,
        compare: false,
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let label = match item.get("name") {
            Some(Value::String(n)) => format!("gates[{}] (\"{n}\")", i + 1),
            _ => format!("gates[{}]", i + 1),
        };
        let Value::Object(table) = item else {
            return Err(anyhow!(
                "{file}: {label} must be a table with metric, op and threshold"
            ));
        };
        let mut table = table.clone();
        let found = targets(&mut table).map_err(|e| anyhow!("{file}: {label}: {e}"))?;
        let name = format!("{}, gates[{}]", origin_name(origin), i + 1);
        let gate =
            one_checked(&table, &cx, name, check).map_err(|e| anyhow!("{file}: {label}: {e}"))?;
        out.push(Targeted {
            label,
            gate,
            targets: found,
        });
    }
    Ok(out)
}

/// Checks a gate's metric for its score type and scope; `Ok(true)` when
/// the statistic has an interval.
pub type MetricCheck<'a> = dyn Fn(&str, &str, &Scope) -> Result<bool, String> + 'a;

/// One `[[gates]]` table, its metric validated by `check` (the other keys
/// as for `build`): the parser other report kinds (`classify`) call with
/// their own statistics.
pub fn one_checked(
    table: &Map<String, Value>,
    cx: &Context,
    origin: String,
    check: &MetricCheck,
) -> Result<Gate, String> {
    for key in table.keys() {
        if !GATE_KEYS.contains(&key.as_str()) {
            let hint = closest(key, GATE_KEYS).map_or_else(
                || format!(" (the keys are {})", GATE_KEYS.join(", ")),
                |k| format!("; did you mean {k}?"),
            );
            return Err(format!("unknown key {key}{hint}"));
        }
    }
    let metric = alias(&required_text(
        table,
        "metric",
        "for example metric = \"wtkappa\"",
    )?);
    let op_text = required_text(table, "op", "one of >=, >, <=, <, abs<=, abs<")?;
    let op = Op::parse(&op_text).ok_or_else(|| {
        format!(
            "op \"{op_text}\" is not an operator; use one of {}",
            Op::ALL.join(", ")
        )
    })?;
    let threshold = threshold(table)?;
    let score_type = score_type(table, &cx.types)?;
    let scope = scope(table, cx)?;
    let bound = bound(table)?;
    let severity = severity(table)?;
    let min_n = match table.get("min_n") {
        None => 0,
        Some(v) => v.as_u64().ok_or_else(|| {
            format!(
                "min_n must be a whole number, 0 or more, but it is {}",
                super::value::describe(v)
            )
        })?,
    };
    let has_ci = check(&metric, &score_type, &scope)?;
    if bound != Bound::Estimate {
        check_bound(&metric, bound, has_ci, cx.bootstrap)?;
    }
    let name = match table.get("name") {
        None => default_name(&metric, op, threshold, bound),
        Some(Value::String(n)) if !n.trim().is_empty() => n.clone(),
        Some(v) => {
            return Err(format!(
                "name must be non-empty text, but it is {}",
                super::value::describe(v)
            ))
        }
    };
    Ok(Gate {
        name,
        metric,
        score_type,
        scope,
        op,
        threshold,
        bound,
        severity,
        min_n,
        origin,
        line: None,
    })
}

/// The names users type for a statistic that the tables call otherwise:
/// `qwk` (quadratically weighted kappa, in any case) is `wtkappa`, also
/// after a prefix (`delta.qwk`, `hh.QWK`, `degradation.qwk`).
fn alias(metric: &str) -> String {
    let (prefix, name) = match metric.rfind('.') {
        Some(i) => metric.split_at(i + 1),
        None => ("", metric),
    };
    if name.eq_ignore_ascii_case("qwk") {
        format!("{prefix}wtkappa")
    } else {
        metric.to_string()
    }
}

/// `wtkappa >= 0.7`, `corr >= 0.7 (lower bound)`.
fn default_name(metric: &str, op: Op, threshold: f64, bound: Bound) -> String {
    match bound {
        Bound::Estimate => format!("{metric} {} {threshold}", op.symbol()),
        b => format!("{metric} {} {threshold} ({} bound)", op.symbol(), b.name()),
    }
}

fn required_text(table: &Map<String, Value>, key: &str, example: &str) -> Result<String, String> {
    match table.get(key) {
        Some(Value::String(s)) => Ok(s.trim().to_string()),
        Some(v) => Err(format!(
            "{key} must be text ({example}), but it is {}",
            super::value::describe(v)
        )),
        None => Err(format!("{key} is missing ({example})")),
    }
}

fn threshold(table: &Map<String, Value>) -> Result<f64, String> {
    match table.get("threshold") {
        Some(v) => match v.as_f64() {
            Some(x) if x.is_finite() => Ok(x),
            _ => Err(format!(
                "threshold must be a finite number, but it is {}",
                super::value::describe(v)
            )),
        },
        None => Err("threshold is missing (for example threshold = 0.70)".into()),
    }
}

fn score_type(table: &Map<String, Value>, types: &ScoreTypes) -> Result<String, String> {
    let Some(v) = table.get("score_type") else {
        return Ok(types.primary().into());
    };
    let Value::String(s) = v else {
        return Err(format!(
            "score_type must be text, but it is {}",
            super::value::describe(v)
        ));
    };
    if types.all.contains(&s.as_str()) {
        return Ok(s.clone());
    }
    let hint = closest(s, types.all.iter().copied())
        .map_or_else(String::new, |c| format!("; did you mean \"{c}\"?"));
    Err(format!(
        "score_type \"{s}\" is not produced by this experiment (its score types are {}){hint}",
        types.all.join(", ")
    ))
}

fn scope(table: &Map<String, Value>, cx: &Context) -> Result<Scope, String> {
    let text = match table.get("scope") {
        None => return Ok(Scope::Overall),
        Some(Value::String(s)) => s.trim(),
        Some(v) => {
            return Err(format!(
                "scope must be text (\"overall\", \"each:<subgroup>\", \"worst:<subgroup>\" or \
                 \"<subgroup>=<level>\"), but it is {}",
                super::value::describe(v)
            ))
        }
    };
    let (scope, group) = if text == "overall" {
        return Ok(Scope::Overall);
    } else if let Some(g) = text.strip_prefix("each:") {
        (Scope::Each(g.into()), g)
    } else if let Some(g) = text.strip_prefix("worst:") {
        (Scope::Worst(g.into()), g)
    } else if let Some((g, level)) = text.split_once('=') {
        (Scope::Level(g.into(), level.into()), g)
    } else {
        let hint = closest(text, ["overall", "each:", "worst:"])
            .map_or_else(String::new, |c| format!("; did you mean \"{c}...\"?"));
        return Err(format!(
            "scope \"{text}\" is not a scope; use \"overall\", \"each:<subgroup>\", \
             \"worst:<subgroup>\" or \"<subgroup>=<level>\"{hint}"
        ));
    };
    if cx.subgroups.iter().any(|s| s == group) {
        return Ok(scope);
    }
    if cx.subgroups.is_empty() {
        return Err(format!(
            "scope \"{text}\" names the subgroup \"{group}\", but the experiment has no \
             subgroups (add it to subgroups)"
        ));
    }
    let hint = closest(group, cx.subgroups.iter().map(String::as_str))
        .map_or_else(String::new, |c| format!("; did you mean \"{c}\"?"));
    Err(format!(
        "scope \"{text}\" names the subgroup \"{group}\", which is not in subgroups ({}){hint}",
        cx.subgroups.join(", ")
    ))
}

fn bound(table: &Map<String, Value>) -> Result<Bound, String> {
    match table.get("bound") {
        None => Ok(Bound::Estimate),
        Some(Value::String(s)) => match s.as_str() {
            "estimate" => Ok(Bound::Estimate),
            "lower" => Ok(Bound::Lower),
            "upper" => Ok(Bound::Upper),
            _ => {
                let hint = closest(s, Bound::ALL)
                    .map_or_else(String::new, |c| format!("; did you mean \"{c}\"?"));
                Err(format!(
                    "bound \"{s}\" is not one of \"estimate\", \"lower\", \"upper\"{hint}"
                ))
            }
        },
        Some(v) => Err(format!(
            "bound must be \"estimate\", \"lower\" or \"upper\", but it is {}",
            super::value::describe(v)
        )),
    }
}

fn severity(table: &Map<String, Value>) -> Result<Severity, String> {
    match table.get("severity") {
        None => Ok(Severity::Fail),
        Some(Value::String(s)) if s == "fail" => Ok(Severity::Fail),
        Some(Value::String(s)) if s == "warn" => Ok(Severity::Warn),
        Some(v) => {
            let hint = v
                .as_str()
                .and_then(|s| closest(s, ["fail", "warn"]))
                .map_or_else(String::new, |c| format!("; did you mean \"{c}\"?"));
            Err(format!(
                "severity must be \"fail\" or \"warn\", but it is {}{hint}",
                super::value::describe(v)
            ))
        }
    }
}

/// Checks that the statistic exists for the scope; returns whether it has
/// an interval.
fn check_metric(
    metric: &str,
    score_type: &str,
    scope: &Scope,
    types: &ScoreTypes,
) -> Result<bool, String> {
    let located = match scope.group() {
        None => locate_overall(metric, score_type),
        Some(g) => locate_level(metric, score_type, types, g, ""),
    };
    located.map(|(_, ci)| ci)
}

fn check_bound(metric: &str, bound: Bound, has_ci: bool, bootstrap: bool) -> Result<(), String> {
    let b = bound.name();
    if !bootstrap {
        return Err(format!(
            "bound = \"{b}\" needs bootstrap intervals, but intervals are off (intervals = false \
             or [intervals] replicates = 0); use bound = \"estimate\" or switch intervals on"
        ));
    }
    if !has_ci {
        return Err(format!(
            "bound = \"{b}\": no interval is computed for {metric} in this scope; use bound = \
             \"estimate\" (uncertainty spec 3 lists the statistics with intervals)"
        ));
    }
    Ok(())
}

// ------------------------------------------------------------ gates file

/// The keys of a gates file.
const FILE_KEYS: [&str; 2] = ["gates", "gates_preset"];

/// Appends the gates of a gates file to the experiment's own: a preset's
/// gate already there (the same preset given in both) is applied once,
/// not twice.
pub fn merge(into: &mut Vec<Gate>, more: Vec<Gate>) {
    for g in more {
        if !(g.origin.starts_with("preset ") && into.contains(&g)) {
            into.push(g);
        }
    }
}

/// The gates of a separate gates file (`--gates FILE`, TOML), validated
/// against `exp`. Every error names the file.
pub fn load_file(path: &Path, exp: &Experiment) -> Result<Vec<Gate>> {
    parse_file(&read_file(path)?, path, exp)
}

/// The text of a gates file; the error names it.
fn read_file(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => anyhow!("gates file not found: {}", path.display()),
        _ => anyhow!("cannot read the gates file {}: {e}", path.display()),
    })
}

/// [`load_file`] on text already read.
pub fn parse_file(text: &str, path: &Path, exp: &Experiment) -> Result<Vec<Gate>> {
    let min_n = |g: &str| exp.min_n_for(g);
    parse_file_in(text, path, &Context::of(exp, &min_n))
}

/// The gates of a gates file validated in the context `cx` (a build's, or
/// a comparison's with `delta.*` metrics). Every error names the file.
pub fn load_file_in(path: &Path, cx: &Context) -> Result<Vec<Gate>> {
    parse_file_in(&read_file(path)?, path, cx)
}

/// [`load_file_in`] on text already read.
pub fn parse_file_in(text: &str, path: &Path, cx: &Context) -> Result<Vec<Gate>> {
    let raw = super::parse(text, super::ConfigKind::Toml, path)?;
    for key in raw.keys() {
        if !FILE_KEYS.contains(&key) {
            let hint = closest(key, FILE_KEYS).map_or_else(
                || " (a gates file holds [[gates]] tables and gates_preset)".to_string(),
                |k| format!("; did you mean {k}?"),
            );
            return Err(anyhow!(
                "{}: unknown key {key} in the gates file{hint}",
                raw.at(key)
            ));
        }
    }
    let origin = origin_name(path);
    let mut gates = parse(raw.get("gates"), raw.get("gates_preset"), cx, &origin)
        .map_err(|(key, item, message)| anyhow!("{}: {message}", raw_at_item(&raw, key, item)))?;
    set_lines(&mut gates, |i| raw.line_of_item("gates", i));
    Ok(gates)
}

/// The `[[gates]]` tables of the gates file `path` as written, for a kind
/// that checks them with its own statistics (as its experiment's
/// `[[gates]]`: `compare` of classify, sequence or spans folders). A key
/// other than `gates` is refused (`gates_preset` is build's), naming the
/// file and line.
pub fn load_tables(path: &Path) -> Result<Option<Value>> {
    let text = read_file(path)?;
    let raw = super::parse(&text, super::ConfigKind::Toml, path)?;
    if let Some(key) = raw.keys().find(|k| *k != "gates") {
        return Err(anyhow!(
            "{}: unknown key {key} in the gates file (a gates file of these folders holds \
             [[gates]] tables only)",
            raw.at(key)
        ));
    }
    Ok(raw.get("gates").cloned())
}

/// Gives the gates of a file's `[[gates]]` array (those not from a
/// preset, in order) the lines of their tables.
pub fn set_lines(gates: &mut [Gate], line_of_item: impl Fn(usize) -> Option<usize>) {
    let own = gates
        .iter_mut()
        .filter(|g| !g.origin.starts_with("preset "));
    for (i, g) in own.enumerate() {
        g.line = line_of_item(i);
    }
}

/// Two gates may not share a name (gates spec 4: one JUnit test case per
/// result line, named by its gate): the error names both and their lines.
/// A preset's own gates are exempt among themselves (its "subgroup
/// differences" gate is one per subgroup, each scoped to its subgroup).
pub fn unique_names(gates: &[Gate]) -> Result<(), String> {
    let preset = |g: &Gate| g.origin.starts_with("preset ");
    for (i, g) in gates.iter().enumerate() {
        let clash = |f: &&Gate| f.name == g.name && !(preset(f) && preset(g));
        if let Some(first) = gates[..i].iter().find(clash) {
            return Err(format!(
                "two gates are named \"{}\" ({} and {}); give each gate its own name, so that \
                 each result line (and JUnit test case) says which gate it is",
                g.name,
                first.place(),
                g.place()
            ));
        }
    }
    Ok(())
}

/// Where a gate error is: the line of its `[[gates]]` table, or of the key.
fn raw_at_item(raw: &super::RawConfig, key: &str, item: Option<usize>) -> String {
    let line = item.map_or_else(|| raw.line_of(key), |i| raw.line_of_item(key, i));
    match line {
        Some(l) => format!("{}, line {l}", raw.origin.display()),
        None => raw.origin.display().to_string(),
    }
}

/// How a gate's origin names its file: the file name alone, so that the
/// gate results (`gates.json`, the JUnit file, the report) do not depend
/// on the folder the command was run from.
pub fn origin_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn no_min(_: &str) -> u64 {
        0
    }

    fn cx<'a>(subgroups: &'a [String], bootstrap: bool) -> Context<'a> {
        Context {
            subgroups,
            types: ScoreTypes {
                all: vec!["scale", "scale_trim", "scale_trim_round"],
                trim: "scale_trim",
                round: "scale_trim_round",
            },
            bootstrap,
            min_n: &no_min,
            compare: false,
        }
    }

    fn groups() -> Vec<String> {
        vec!["L1".to_string(), "gender".to_string()]
    }

    fn one_gate(gate: Value) -> Result<Gate, String> {
        let g = groups();
        parse(Some(&json!([gate])), None, &cx(&g, true), "exp.toml")
            .map(|mut v| v.remove(0))
            .map_err(|(key, item, e)| {
                assert_eq!((key, item), ("gates", Some(0)));
                e
            })
    }

    #[test]
    fn a_full_gate_is_read_with_its_defaults() {
        let g = one_gate(json!({"metric": "wtkappa", "op": ">=", "threshold": 0.7})).unwrap();
        assert_eq!(g.name, "wtkappa >= 0.7");
        assert_eq!(g.score_type, "scale_trim");
        assert_eq!(g.scope, Scope::Overall);
        assert_eq!(g.bound, Bound::Estimate);
        assert_eq!(g.severity, Severity::Fail);
        assert_eq!(g.min_n, 0);
        assert_eq!(g.origin, "exp.toml, gates[1]");
        let g = one_gate(json!({"name": "DSM per L1", "metric": "DSM", "op": "abs<=",
            "threshold": 0.1, "scope": "worst:L1", "score_type": "scale_trim_round",
            "bound": "upper", "severity": "warn", "min_n": 30}))
        .unwrap();
        assert_eq!(g.scope, Scope::Worst("L1".into()));
        assert_eq!(
            (g.op, g.bound, g.severity, g.min_n),
            (Op::AbsLe, Bound::Upper, Severity::Warn, 30)
        );
        let g = one_gate(json!({"metric": "hh.wtkappa", "op": ">", "threshold": 0.6,
            "scope": "L1=Esperanto"}))
        .unwrap();
        assert_eq!(g.scope, Scope::Level("L1".into(), "Esperanto".into()));
    }

    fn error(gate: Value) -> String {
        one_gate(gate).unwrap_err()
    }

    #[test]
    fn qwk_is_read_as_wtkappa_in_any_case_and_after_a_prefix() {
        for (given, metric) in [
            ("qwk", "wtkappa"),
            ("QWK", "wtkappa"),
            ("hh.QwK", "hh.wtkappa"),
            ("degradation.qwk", "degradation.wtkappa"),
            ("corr", "corr"),
        ] {
            let g = one_gate(json!({"metric": given, "op": ">=", "threshold": 0.7})).unwrap();
            assert_eq!(g.metric, metric, "{given}");
            assert_eq!(g.name, format!("{metric} >= 0.7"));
        }
        // Not an alias: a near miss of it is still an unknown metric.
        assert!(
            error(json!({"metric": "qwkk", "op": ">=", "threshold": 0.7}))
                .contains("unknown metric \"qwkk\"")
        );
    }

    #[test]
    fn every_wrong_field_is_named_with_the_closest_valid_value() {
        let base = |extra: Value| {
            let mut g = json!({"name": "Q", "metric": "wtkappa", "op": ">=", "threshold": 0.7});
            for (k, v) in extra.as_object().unwrap() {
                g[k] = v.clone();
            }
            error(g)
        };
        let cases = [
            (json!({"metric": "wtkapa"}), "did you mean wtkappa?"),
            (
                json!({"metric": "degradation.wtkapa"}),
                "did you mean degradation.wtkappa?",
            ),
            (
                json!({"score_type": "scale_trm"}),
                "did you mean \"scale_trim\"?",
            ),
            (
                json!({"score_type": "raw_trim"}),
                "not produced by this experiment",
            ),
            (json!({"scope": "each:L2"}), "did you mean \"L1\"?"),
            (json!({"scope": "evry:L1"}), "is not a scope"),
            (json!({"op": "=>"}), "is not an operator"),
            (json!({"bound": "lowr"}), "did you mean \"lower\"?"),
            (json!({"severity": "error"}), "severity must be"),
            (
                json!({"threshold": "high"}),
                "threshold must be a finite number",
            ),
            (json!({"min_n": -1}), "min_n must be a whole number"),
            (json!({"treshold": 1}), "did you mean threshold?"),
            (json!({"metric": "delta.wtkappa"}), "rsmreport compare only"),
        ];
        for (extra, want) in cases {
            let e = base(extra.clone());
            assert!(e.starts_with("gates[1] (\"Q\"): "), "{extra}: {e}");
            assert!(e.contains(want), "{extra}: {e}");
        }
        assert!(error(json!({"op": ">=", "threshold": 1})).contains("metric is missing"));
        assert!(error(json!({"metric": "corr", "op": ">="})).contains("threshold is missing"));
    }

    #[test]
    fn a_metric_must_exist_in_the_gates_scope() {
        let e = |metric: &str, scope: &str, st: &str| {
            error(
                json!({"metric": metric, "op": ">=", "threshold": 0, "scope": scope,
                "score_type": st}),
            )
        };
        assert!(e("DSM", "overall", "scale_trim").contains("by group only"));
        assert!(e("SMD", "each:L1", "scale_trim").contains("by group, the standardized"));
        assert!(e("PRMSE", "each:L1", "scale_trim").contains("whole set only"));
        assert!(e("degradation.corr", "worst:L1", "scale_trim").contains("whole set only"));
        assert!(
            e("kappa", "each:L1", "scale_trim").contains("set score_type = \"scale_trim_round\"")
        );
        assert!(e("wtkappa", "each:L1", "scale").contains("scale_trim and scale_trim_round only"));
        assert!(e("hh.SMD", "each:L1", "scale_trim").contains("hh.DSM"));
        assert!(e("hh.DSM", "overall", "scale_trim").contains("hh.SMD"));
        assert!(e("RMSE", "each:L1", "scale_trim_round").contains("scale_trim (not"));
    }

    #[test]
    fn delta_gates_are_for_compare_and_name_a_compared_difference() {
        let g = groups();
        let gate = |v: Value, compare: bool| {
            let cx = Context {
                compare,
                ..cx(&g, true)
            };
            let t = v.as_object().unwrap().clone();
            one(&t, &cx, "gates.toml".into())
        };
        let base = |metric: &str| json!({"metric": metric, "op": ">=", "threshold": -0.01, "bound": "lower"});
        let e = gate(base("delta.wtkappa"), false).unwrap_err();
        assert!(e.contains("apply in rsmreport compare only"), "{e}");
        let ok = gate(base("delta.wtkappa"), true).unwrap();
        assert_eq!(ok.metric, "delta.wtkappa");
        let (cell, ci) = locate_overall("delta.PRMSE", "scale_trim").unwrap();
        assert_eq!(
            (cell.table.as_str(), cell.column.as_str(), ci),
            ("delta", "PRMSE", true)
        );
        let e = gate(base("delta.wtkapa"), true).unwrap_err();
        assert!(e.contains("did you mean delta.wtkappa"), "{e}");
        // gain.*: the oriented change, in compare only.
        let (cell, _) = locate_overall("gain.SMD", "scale_trim").unwrap();
        assert_eq!((cell.table.as_str(), cell.column.as_str()), ("gain", "SMD"));
        assert!(gate(base("gain.wtkappa"), false).is_err());
        let e = gate(base("gain.wtkapa"), true).unwrap_err();
        assert!(e.contains("did you mean gain.wtkappa"), "{e}");
        let mut by_level = base("gain.DSM");
        by_level["scope"] = json!("each:L1");
        assert_eq!(gate(by_level, true).unwrap().metric, "gain.DSM");
        let e = gate(base("delta.DSM"), true).unwrap_err();
        assert!(e.contains("by subgroup level only"), "{e}");
        let mut by_level = base("delta.DSM");
        by_level["scope"] = json!("each:L1");
        let ok = gate(by_level, true).unwrap();
        assert_eq!(ok.scope, Scope::Each("L1".into()));
        let mut by_level = base("delta.PRMSE");
        by_level["scope"] = json!("each:L1");
        assert!(gate(by_level, true).unwrap_err().contains("whole set only"));
    }

    #[test]
    fn a_bound_needs_bootstrap_intervals_and_a_statistic_with_one() {
        let g = groups();
        let gate = json!([{"metric": "corr", "op": ">=", "threshold": 0.7, "bound": "lower"}]);
        let (key, item, e) = parse(Some(&gate), None, &cx(&g, false), "x").unwrap_err();
        assert_eq!((key, item), ("gates", Some(0)));
        assert!(e.contains("intervals are off"), "{e}");
        assert!(parse(Some(&gate), None, &cx(&g, true), "x").is_ok());
        let e = error(json!({"metric": "N", "op": ">=", "threshold": 1, "bound": "lower"}));
        assert!(e.contains("no interval is computed for N"), "{e}");
        let e = error(
            json!({"metric": "hh.corr", "op": ">=", "threshold": 1, "bound": "lower",
            "scope": "each:L1"}),
        );
        assert!(e.contains("no interval"), "{e}");
        // By group, the trimmed score's statistics have intervals.
        assert!(
            one_gate(json!({"metric": "wtkappa", "op": ">=", "threshold": 0.6,
            "bound": "lower", "scope": "each:L1"}))
            .is_ok()
        );
    }

    #[test]
    fn a_preset_in_the_experiment_and_the_gates_file_is_applied_once() {
        let preset = Value::String("williamson2012".into());
        let g = groups();
        let cx = cx(&g, true);
        let own = parse(None, Some(&preset), &cx, "exp.toml").unwrap();
        let mut all = own.clone();
        let file = parse(None, Some(&preset), &cx, "g.toml").unwrap();
        merge(&mut all, file);
        assert_eq!(all, own);
        // Other gates are appended, even when equal to one already there.
        let extra = own[0].clone();
        let extra = Gate {
            origin: "g.toml, gates[1]".into(),
            ..extra
        };
        merge(&mut all, vec![extra.clone(), extra]);
        assert_eq!(all.len(), own.len() + 2);
    }

    #[test]
    fn a_gate_is_placed_by_its_line_and_names_are_unique_outside_a_preset() {
        let g = groups();
        let cx = cx(&g, true);
        let preset = json!("williamson2012");
        let two = json!([
            {"metric": "wtkappa", "op": ">=", "threshold": 0.7},
            {"metric": "corr", "op": ">=", "threshold": 0.7, "name": "QWK"},
        ]);
        let mut gates = parse(Some(&two), Some(&preset), &cx, "g.toml").unwrap();
        set_lines(&mut gates, |i| Some(10 + 5 * i));
        let own: Vec<String> = gates
            .iter()
            .filter(|g| !g.origin.starts_with("preset"))
            .map(Gate::place)
            .collect();
        assert_eq!(
            own,
            ["g.toml, line 10, gates[1]", "g.toml, line 15, gates[2]"]
        );
        assert_eq!(gates[0].place(), "preset williamson2012");
        // The preset's per-subgroup gates share a name: allowed among
        // themselves; a file's gate named as a preset's is not.
        let err = unique_names(&gates).unwrap_err();
        assert!(
            err.contains("\"QWK\" (preset williamson2012 and g.toml, line 15, gates[2])"),
            "{err}"
        );
        gates.pop();
        unique_names(&gates).unwrap();
    }

    #[test]
    fn the_preset_is_the_specs_table() {
        let g = groups();
        let min_n = |s: &str| if s == "L1" { 30 } else { 0 };
        let c = Context {
            min_n: &min_n,
            ..cx(&g, false)
        };
        let gates = parse(None, Some(&json!("williamson2012")), &c, "x").unwrap();
        let got: Vec<(String, String, String, f64, String, u64)> = gates
            .iter()
            .map(|g| {
                (
                    g.name.clone(),
                    g.metric.clone(),
                    g.op.symbol().to_string(),
                    g.threshold,
                    g.scope.to_string(),
                    g.min_n,
                )
            })
            .collect();
        let want = [
            ("QWK", "wtkappa", ">=", 0.7, "overall", 0),
            ("correlation", "corr", ">=", 0.7, "overall", 0),
            (
                "degradation of QWK",
                "degradation.wtkappa",
                ">=",
                -0.1,
                "overall",
                0,
            ),
            (
                "degradation of correlation",
                "degradation.corr",
                ">=",
                -0.1,
                "overall",
                0,
            ),
            (
                "standardized mean difference",
                "SMD",
                "abs<=",
                0.15,
                "overall",
                0,
            ),
            ("subgroup differences", "DSM", "abs<=", 0.1, "each:L1", 30),
            (
                "subgroup differences",
                "DSM",
                "abs<=",
                0.1,
                "each:gender",
                0,
            ),
        ];
        let want: Vec<_> = want
            .iter()
            .map(|w| {
                (
                    w.0.to_string(),
                    w.1.to_string(),
                    w.2.to_string(),
                    w.3,
                    w.4.to_string(),
                    w.5,
                )
            })
            .collect();
        assert_eq!(got, want);
        for g in &gates {
            assert_eq!((g.severity, g.bound), (Severity::Fail, Bound::Estimate));
            assert_eq!(g.score_type, "scale_trim");
        }
        let none: Vec<String> = Vec::new();
        let gates = parse(None, Some(&json!("williamson2012")), &cx(&none, false), "x").unwrap();
        assert_eq!(gates.last().unwrap().scope, Scope::NoSubgroups);
        let (key, item, e) =
            parse(None, Some(&json!("williamson2013")), &cx(&none, false), "x").unwrap_err();
        assert_eq!((key, item), ("gates_preset", None));
        assert!(e.contains("did you mean \"williamson2012\"?"), "{e}");
    }

    #[test]
    fn ops_hold_and_rank_badness_in_their_direction() {
        assert!(Op::Ge.holds(0.7, 0.7) && !Op::Gt.holds(0.7, 0.7));
        assert!(Op::Le.holds(0.1, 0.1) && !Op::Lt.holds(0.1, 0.1));
        assert!(Op::AbsLe.holds(-0.15, 0.15) && !Op::AbsLt.holds(-0.15, 0.15));
        assert!(!Op::AbsLe.holds(-0.16, 0.15));
        assert!(!Op::Ge.holds(f64::NAN, 0.0) && !Op::AbsLe.holds(f64::NAN, 1.0));
        assert!(Op::Ge.badness(0.5) > Op::Ge.badness(0.6));
        assert!(Op::Le.badness(0.6) > Op::Le.badness(0.5));
        assert!(Op::AbsLe.badness(-0.3) > Op::AbsLe.badness(0.2));
    }
}
