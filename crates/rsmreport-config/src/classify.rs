//! Stage 1 (config): the experiment file of `rsmreport classify`
//! (`spec/classify.md` 1): the predictions file, the gold and system
//! columns, the optional label set, the score columns (a table per system
//! or a `{system}`/`{label}` pattern), `positive_label`, `beta`, `ordinal`,
//! `subgroups`, `baseline`, `file_format`, `curve_points` and `[intervals]` (items are the
//! resampled units). Unknown keys are refused with the file, the line and
//! the closest valid key; every rule that does not need the data is
//! checked here, so these errors come before any data is read (exit 2).
//!
//! Pure apart from [`load`] (which reads the experiment file) and the
//! check that the predictions file exists: never reads data, writes nothing.

use super::value::{boolean, folder, names, required, resolve_file, text, whole, KeyError as Bad};
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::{Map, Value};

use super::common::{Common, Rules};
use super::intervals::Intervals;
use super::value::describe;
use super::{FileFormat, RawConfig};

/// The keys of a classify experiment file beyond the common ones
/// ([`super::common::KEYS`]; spec 1).
pub const OWN_KEYS: [&str; 14] = [
    "predictions_file",
    "id_column",
    "gold_column",
    "system_columns",
    "labels",
    "probability_columns",
    "probability_pattern",
    "positive_label",
    "beta",
    "ordinal",
    "subgroups",
    "baseline",
    "margins",
    "curve_points",
];

/// How `classify` reads the common keys: items are the resampled units.
const RULES: Rules = Rules::new("classify", "intent_v7", "items");

/// The most points a curve table holds per curve by default (spec 2).
pub const DEFAULT_CURVE_POINTS: usize = 10_000;

/// The statistics compared between systems (the verdicts' rows; `recall`
/// is the per-class row), each with a practical margin (compare.md 2.3).
pub const COMPARED_STATISTICS: [&str; 6] = [
    "accuracy",
    "macro_f1",
    "matthews_corrcoef",
    "average_precision_macro",
    "brier",
    "recall",
];

/// The margin of a statistic not named in `[margins]`.
pub const DEFAULT_MARGIN: f64 = 0.01;

/// Per system, `(label, column)` pairs.
pub type ScoreTables = Vec<(String, Vec<(String, String)>)>;

/// Where each system's scores are.
#[derive(Clone, Debug, PartialEq)]
pub enum ScoreColumns {
    /// No scores: label metrics only.
    None,
    /// `[probability_columns.<system>]`: per system, `(label, column)` in
    /// the order written (systems without a table have no scores).
    Tables(ScoreTables),
    /// `probability_pattern`: `{system}` and `{label}` replaced.
    Pattern(String),
}

/// A validated classify experiment.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassifyConfig {
    pub experiment_id: String,
    /// Free text (Markdown) shown at the top of the report; empty when
    /// absent.
    pub description: String,
    /// The label under which the report is archived.
    pub model_version: Option<String>,
    /// The predictions file, resolved (config folder first, then the
    /// current one).
    pub predictions_file: PathBuf,
    /// `None`: the row number (1-based) is the id.
    pub id_column: Option<String>,
    pub gold_column: String,
    pub system_columns: Vec<String>,
    /// The label set in order, as text (`1` -> `"1"`), when given.
    pub labels: Option<Vec<String>>,
    pub scores: ScoreColumns,
    pub positive_label: Option<String>,
    /// F-beta values, each > 0 (default `[1.0]`).
    pub beta: Vec<f64>,
    pub ordinal: bool,
    pub subgroups: Vec<String>,
    /// Index into `system_columns` (default 0).
    pub baseline: usize,
    pub file_format: FileFormat,
    /// `None`: `intervals = false`.
    pub intervals: Option<Intervals>,
    /// The most points a curve table holds per curve (0: every point;
    /// default [`DEFAULT_CURVE_POINTS`]); AP and AUC always use every item.
    pub curve_points: usize,
    /// `[[gates]]` as written (validated by the classify kind, which knows
    /// its metrics).
    pub gates: Option<Value>,
    /// The experiment file, for messages.
    pub origin: PathBuf,
    /// The practical margin of each compared statistic
    /// ([`COMPARED_STATISTICS`] order; `[margins]`, default [`DEFAULT_MARGIN`]).
    pub margins: Vec<(String, f64)>,
}

impl ClassifyConfig {
    /// The practical margin of a compared statistic.
    pub fn margin(&self, statistic: &str) -> f64 {
        self.margins
            .iter()
            .find(|(s, _)| s == statistic)
            .map_or(DEFAULT_MARGIN, |m| m.1)
    }

    /// The score column of `system` for `label`, when the system has scores.
    pub fn score_column(&self, system: &str, label: &str) -> Option<String> {
        match &self.scores {
            ScoreColumns::None => None,
            ScoreColumns::Pattern(p) => {
                Some(p.replace("{system}", system).replace("{label}", label))
            }
            ScoreColumns::Tables(t) => t
                .iter()
                .find(|(s, _)| s == system)
                .and_then(|(_, cols)| {
                    cols.iter()
                        .find(|(l, _)| same_label(l, label, self.ordinal))
                })
                .map(|(_, c)| c.clone()),
        }
    }

    /// Whether `system` has score columns at all.
    pub fn has_scores(&self, system: &str) -> bool {
        match &self.scores {
            ScoreColumns::None => false,
            ScoreColumns::Pattern(_) => true,
            ScoreColumns::Tables(t) => t.iter().any(|(s, _)| s == system),
        }
    }

    /// The column name of F-beta: `f1`, `f0.5`, `f2`.
    pub fn f_name(beta: f64) -> String {
        format!("f{}", crate::python_float_repr(beta).trim_end_matches(".0"))
    }
}

/// Two label texts name the same label (as numbers when ordinal).
pub fn same_label(a: &str, b: &str, ordinal: bool) -> bool {
    if ordinal {
        let (x, y) = (
            rsmreport_core::table::parse_number(a),
            rsmreport_core::table::parse_number(b),
        );
        if x.is_finite() && y.is_finite() {
            return x == y;
        }
    }
    a.trim() == b.trim()
}

/// Reads and validates the experiment file at `path`.
pub fn load(path: &Path) -> Result<ClassifyConfig> {
    parse(&super::value::read_experiment(path)?, path)
}

/// Validates the text of an experiment file; `path` is named in messages
/// and its folder is where a relative `predictions_file` is looked up first.
pub fn parse(text: &str, path: &Path) -> Result<ClassifyConfig> {
    super::common::parse_toml(text, path, &OWN_KEYS, &RULES, |raw, common| {
        values(raw, common, path)
    })
}

/// A label as text: a TOML text (trimmed), integer or float.
fn label_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(n.to_string()),
        Value::Number(n) => n.as_f64().map(crate::python_float_repr),
        _ => None,
    }
}

fn labels(raw: &RawConfig, ordinal: bool) -> Result<Option<Vec<String>>, Bad> {
    let key = "labels";
    let items = match raw.get(key) {
        None => return Ok(None),
        Some(Value::Array(items)) if !items.is_empty() => items,
        Some(other) => {
            return Err((
                key,
                format!(
                    "labels must be a non-empty list of labels (for example labels = [\"billing\", \
                     \"tech\"]), but it is {}",
                    describe(other)
                ),
            ))
        }
    };
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    for v in items {
        let t = label_text(v).ok_or_else(|| {
            (
                key,
                format!(
                    "labels must hold texts or numbers, but it holds {}",
                    describe(v)
                ),
            )
        })?;
        if t == rsmreport_core::schema::NONE_LABEL {
            return Err((
                key,
                format!("\"{t}\" is reserved for abstentions (blank predictions)"),
            ));
        }
        if ordinal && !rsmreport_core::table::parse_number(&t).is_finite() {
            return Err((
                key,
                format!("with ordinal = true every label must be a number, but \"{t}\" is not"),
            ));
        }
        if let Some(prev) = out.iter().find(|p| same_label(p, &t, ordinal)) {
            return Err((
                key,
                format!("labels lists \"{t}\" twice (as \"{prev}\" and \"{t}\")"),
            ));
        }
        out.push(t);
    }
    Ok(Some(out))
}

fn betas(raw: &RawConfig) -> Result<Vec<f64>, Bad> {
    let key = "beta";
    let items: Vec<Value> = match raw.get(key) {
        None => return Ok(vec![1.0]),
        Some(Value::Array(a)) if !a.is_empty() => a.clone(),
        Some(v @ Value::Number(_)) => vec![v.clone()],
        Some(other) => {
            return Err((
                key,
                format!("beta must be a list of positive numbers (for example beta = [1.0, 0.5]), but it is {}", describe(other)),
            ))
        }
    };
    let mut out: Vec<f64> = Vec::new();
    for v in &items {
        match v.as_f64() {
            Some(b) if b > 0.0 && b.is_finite() => {
                if !out.contains(&b) {
                    out.push(b);
                }
            }
            _ => {
                return Err((
                    key,
                    format!(
                        "every beta must be a number above 0 (F-beta weighs recall beta times as \
                         much as precision), but beta holds {}",
                        describe(v)
                    ),
                ))
            }
        }
    }
    Ok(out)
}

fn values(raw: &RawConfig, common: Common, path: &Path) -> Result<ClassifyConfig, Bad> {
    let file = required(raw, "predictions_file", "\"predictions.csv\"")?;
    let gold_column = required(raw, "gold_column", "\"gold\"")?;
    let system_columns = names(raw, "system_columns")?.unwrap_or_default();
    if system_columns.is_empty() {
        return Err((
            "system_columns",
            "system_columns must name at least one column of predicted labels (for example \
             system_columns = [\"v7\"])"
                .into(),
        ));
    }
    if system_columns.contains(&gold_column) {
        return Err((
            "system_columns",
            format!(
                "the gold column \"{gold_column}\" is also listed in system_columns; a system is \
                 compared with the gold labels, so name a column of predicted labels"
            ),
        ));
    }
    let id_column = text(raw, "id_column")?;
    if let Some(id) = id_column
        .as_ref()
        .filter(|c| **c == gold_column || system_columns.contains(c))
    {
        return Err((
            "id_column",
            format!("id_column \"{id}\" is also the gold column or a system column"),
        ));
    }
    let ordinal = boolean(raw, "ordinal")?.unwrap_or(false);
    let labels = labels(raw, ordinal)?;
    let positive_label = positive_label(raw, labels.as_deref(), ordinal)?;
    let baseline = baseline(raw, &system_columns)?;
    let scores = scores(raw, &system_columns, labels.as_deref(), ordinal)?;
    let subgroups = names(raw, "subgroups")?.unwrap_or_default();
    if let Some(g) = subgroups
        .iter()
        .find(|g| **g == gold_column || system_columns.contains(g))
    {
        return Err((
            "subgroups",
            format!("the subgroup column \"{g}\" is also the gold column or a system column"),
        ));
    }
    Ok(ClassifyConfig {
        experiment_id: common.experiment_id,
        description: common.description,
        model_version: common.model_version,
        predictions_file: resolve_file("predictions_file", &file, "predictions file", folder(path))
            .map_err(|m| ("predictions_file", m))?,
        id_column,
        gold_column,
        system_columns,
        labels,
        scores,
        positive_label,
        beta: betas(raw)?,
        ordinal,
        subgroups,
        baseline,
        file_format: common.file_format,
        intervals: common.intervals,
        curve_points: curve_points(raw)?,
        gates: common.gates,
        margins: crate::margins::every(raw.get("margins"), &COMPARED_STATISTICS, |_| {
            DEFAULT_MARGIN
        })
        .map_err(|m| ("margins", m))?,
        origin: path.to_path_buf(),
    })
}

/// `curve_points`: 0 (every point) or at least 2 (both end points).
fn curve_points(raw: &RawConfig) -> Result<usize, Bad> {
    let key = "curve_points";
    match whole(raw, key, 0, u32::MAX as u64)? {
        None => Ok(DEFAULT_CURVE_POINTS),
        Some(1) => Err((
            key,
            "curve_points must be 0 (every point) or at least 2 (a curve keeps both end points), \
             but it is 1"
                .into(),
        )),
        Some(n) => Ok(n as usize),
    }
}

fn positive_label(
    raw: &RawConfig,
    labels: Option<&[String]>,
    ordinal: bool,
) -> Result<Option<String>, Bad> {
    let key = "positive_label";
    let Some(v) = raw.get(key) else {
        return Ok(None);
    };
    let t = label_text(v).ok_or_else(|| {
        (
            key,
            format!(
                "positive_label must be a label (a text or a number), but it is {}",
                describe(v)
            ),
        )
    })?;
    if let Some(l) = labels {
        match l.iter().find(|x| same_label(x, &t, ordinal)) {
            Some(found) => return Ok(Some(found.clone())),
            None => {
                return Err((
                    key,
                    format!(
                        "positive_label \"{t}\" is not among the labels ({})",
                        l.join(", ")
                    ),
                ))
            }
        }
    }
    Ok(Some(t))
}

fn baseline(raw: &RawConfig, systems: &[String]) -> Result<usize, Bad> {
    let Some(b) = text(raw, "baseline")? else {
        return Ok(0);
    };
    systems.iter().position(|s| *s == b).ok_or_else(|| {
        let hint = super::closest(&b, systems.iter().map(String::as_str))
            .map_or_else(String::new, |c| format!("; did you mean \"{c}\"?"));
        (
            "baseline",
            format!(
                "baseline \"{b}\" is not one of system_columns ({}){hint}",
                systems.join(", ")
            ),
        )
    })
}

fn scores(
    raw: &RawConfig,
    systems: &[String],
    labels: Option<&[String]>,
    ordinal: bool,
) -> Result<ScoreColumns, Bad> {
    match (
        raw.get("probability_columns"),
        raw.get("probability_pattern"),
    ) {
        (None, None) => Ok(ScoreColumns::None),
        (Some(_), Some(_)) => Err((
            "probability_pattern",
            "give either [probability_columns.<system>] tables or probability_pattern, not both"
                .into(),
        )),
        (None, Some(p)) => {
            let key = "probability_pattern";
            let p = match p {
                Value::String(s) => s.clone(),
                other => return Err((key, format!("probability_pattern must be a text such as \"{{system}}_p_{{label}}\", but it is {}", describe(other)))),
            };
            if !p.contains("{label}") {
                return Err((key, format!("probability_pattern \"{p}\" has no {{label}}; each label needs a column of its own (for example \"{{system}}_p_{{label}}\")")));
            }
            if systems.len() > 1 && !p.contains("{system}") {
                return Err((key, format!("probability_pattern \"{p}\" has no {{system}}, so every system would read the same columns")));
            }
            Ok(ScoreColumns::Pattern(p))
        }
        (Some(t), None) => tables(t, systems, labels, ordinal).map(ScoreColumns::Tables),
    }
}

fn tables(
    value: &Value,
    systems: &[String],
    labels: Option<&[String]>,
    ordinal: bool,
) -> Result<ScoreTables, Bad> {
    let key = "probability_columns";
    let Value::Object(map) = value else {
        return Err((key, format!("probability_columns must hold one table per system ([probability_columns.v7] with label = \"column\"), but it is {}", describe(value))));
    };
    let mut out = Vec::new();
    for (system, cols) in map {
        if !systems.contains(system) {
            let hint = super::closest(system, systems.iter().map(String::as_str))
                .map_or_else(String::new, |c| format!("; did you mean \"{c}\"?"));
            return Err((key, format!("probability_columns.{system}: \"{system}\" is not one of system_columns ({}){hint}", systems.join(", "))));
        }
        out.push((system.clone(), table(system, cols, labels, ordinal)?));
    }
    Ok(out)
}

fn table(
    system: &str,
    cols: &Value,
    labels: Option<&[String]>,
    ordinal: bool,
) -> Result<Vec<(String, String)>, Bad> {
    let key = "probability_columns";
    let map: &Map<String, Value> = cols.as_object().ok_or_else(|| {
        (
            key,
            format!(
                "probability_columns.{system} must be a table of label = \"column\", but it is {}",
                describe(cols)
            ),
        )
    })?;
    let mut out = Vec::new();
    for (label, col) in map {
        let Value::String(c) = col else {
            return Err((
                key,
                format!(
                    "probability_columns.{system}.{label} must be a column name, but it is {}",
                    describe(col)
                ),
            ));
        };
        let label = label.trim().to_string();
        if let Some(l) = labels {
            if !l.iter().any(|x| same_label(x, &label, ordinal)) {
                return Err((key, format!("probability_columns.{system} names the label \"{label}\", which is not among the labels ({})", l.join(", "))));
            }
        }
        out.push((label, c.clone()));
    }
    if let Some(l) = labels {
        if let Some(missing) = l
            .iter()
            .find(|x| !out.iter().any(|(k, _)| same_label(k, x, ordinal)))
        {
            return Err((key, format!("probability_columns.{system} has no column for the label \"{missing}\"; every label needs a score column")));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "experiment_id = \"intent\"\npredictions_file = \"p.csv\"\n\
                        gold_column = \"gold\"\nsystem_columns = [\"v6\", \"v7\"]\n";

    fn run(text: &str) -> Result<ClassifyConfig> {
        let dir = tempfile::TempDir::new().unwrap();
        std::fs::write(dir.path().join("p.csv"), "x\n").unwrap();
        parse(text, &dir.path().join("exp.toml"))
    }

    fn err(text: &str) -> String {
        format!("{:#}", run(text).unwrap_err())
    }

    #[test]
    fn defaults_and_every_key() {
        let c = run(BASE).unwrap();
        assert_eq!(c.beta, [1.0]);
        assert_eq!(c.curve_points, DEFAULT_CURVE_POINTS);
        assert_eq!((c.baseline, c.ordinal, c.labels.clone()), (0, false, None));
        assert_eq!(c.scores, ScoreColumns::None);
        assert_eq!(c.intervals, Some(Intervals::default()));
        let c = run(&format!(
            "{BASE}labels = [\"billing\", \"tech\"]\nbaseline = \"v7\"\nbeta = [1.0, 0.5]\n\
             positive_label = \"tech\"\nprobability_pattern = \"{{system}}_p_{{label}}\"\n\
             subgroups = [\"domain\"]\nfile_format = \"tsv\"\nintervals = false\n"
        ))
        .unwrap();
        assert_eq!(c.baseline, 1);
        assert_eq!(c.beta, [1.0, 0.5]);
        assert_eq!(c.score_column("v7", "tech").as_deref(), Some("v7_p_tech"));
        assert_eq!(c.file_format, FileFormat::Tsv);
        assert_eq!(c.intervals, None);
        assert_eq!(ClassifyConfig::f_name(0.5), "f0.5");
        assert_eq!(ClassifyConfig::f_name(2.0), "f2");
        assert_eq!(ClassifyConfig::f_name(1.0), "f1");
    }

    #[test]
    fn ordinal_labels_and_tables_match_by_number() {
        let c = run(&format!(
            "{BASE}labels = [1, 2]\nordinal = true\n[probability_columns.v7]\n1 = \"p1\"\n2 = \"p2\"\n"
        ))
        .unwrap();
        assert_eq!(c.labels.clone().unwrap(), ["1", "2"]);
        assert_eq!(c.score_column("v7", "2.0").as_deref(), Some("p2"));
        assert!(!c.has_scores("v6"));
    }

    #[test]
    fn bad_keys_and_values_name_the_line_and_key() {
        let e = err(&format!("{BASE}sytem_column = 1\n"));
        assert!(
            e.contains("line 5: unknown key sytem_column; did you mean system_columns?"),
            "{e}"
        );
        let e = err(&BASE.replace("\"v6\", \"v7\"", "\"v6\", \"gold\""));
        assert!(
            e.contains("line 4") && e.contains("the gold column \"gold\" is also listed"),
            "{e}"
        );
        let e = err(&format!("{BASE}beta = [1.0, 0]\n"));
        assert!(e.contains("every beta must be a number above 0"), "{e}");
        let e = err(&format!("{BASE}beta = -1\n"));
        assert!(e.contains("every beta must be a number above 0"), "{e}");
        let e = err(&format!("{BASE}curve_points = 1\n"));
        assert!(
            e.contains("curve_points must be 0 (every point) or at least 2"),
            "{e}"
        );
        let e = err(&format!("{BASE}curve_points = -3\n"));
        assert!(
            e.contains("curve_points must be a whole number from 0 to"),
            "{e}"
        );
        let e = err(&format!(
            "{BASE}labels = [\"a\", \"b\"]\npositive_label = \"c\"\n"
        ));
        assert!(
            e.contains("line 6: positive_label \"c\" is not among the labels (a, b)"),
            "{e}"
        );
        let e = err(&format!("{BASE}baseline = \"v5\"\n"));
        assert!(
            e.contains("baseline \"v5\" is not one of system_columns"),
            "{e}"
        );
        let e = err(&format!("{BASE}probability_pattern = \"p_{{label}}\"\n"));
        assert!(e.contains("has no {system}"), "{e}");
        let e = err(&format!(
            "{BASE}labels = [\"a\", \"b\"]\n[probability_columns.v7]\na = \"x\"\n"
        ));
        assert!(e.contains("has no column for the label \"b\""), "{e}");
        let e = err(&format!("{BASE}[probability_columns.v8]\na = \"x\"\n"));
        assert!(
            e.contains("did you mean \"v7\"?") || e.contains("did you mean \"v6\"?"),
            "{e}"
        );
        let e = err(&format!("{BASE}labels = [1, \"x\"]\nordinal = true\n"));
        assert!(e.contains("every label must be a number"), "{e}");
        let e = err(&format!("{BASE}labels = [1, \"1.0\"]\nordinal = true\n"));
        assert!(e.contains("twice"), "{e}");
        let e = err(&BASE.replace("p.csv", "nope.csv"));
        assert!(
            e.contains("line 2: predictions file not found: predictions_file = \"nope.csv\""),
            "{e}"
        );
        let e = err(&format!("{BASE}[intervals]\nseeds = 1\n"));
        assert!(e.contains("did you mean intervals.seed?"), "{e}");
        // The one boolean rule: true/false or their texts.
        assert!(run(&format!("{BASE}ordinal = \"TRUE\"\n")).unwrap().ordinal);
        let e = err(&format!("{BASE}ordinal = 1\n"));
        assert!(
            e.contains("line 5: ordinal only accepts true or false, but it is the number 1"),
            "{e}"
        );
    }

    /// `[margins]` as compare.md 2.3: a margin per compared statistic,
    /// 0.01 for the others; compare's errors for an unknown statistic or
    /// a negative margin.
    #[test]
    fn margins_default_and_override() {
        let c = run(&format!("{BASE}[margins]\nmacro_f1 = 0.02\nrecall = 0\n")).unwrap();
        assert_eq!(c.margin("macro_f1"), 0.02);
        assert_eq!(c.margin("recall"), 0.0);
        assert_eq!(c.margin("accuracy"), DEFAULT_MARGIN);
        assert_eq!(c.margins.len(), COMPARED_STATISTICS.len());
        let e = err(&format!("{BASE}[margins]\nmacro_f = 0.02\n"));
        assert!(e.contains("did you mean margins.macro_f1?"), "{e}");
        let e = err(&format!("{BASE}[margins]\nbrier = -1\n"));
        assert!(
            e.contains("margins.brier must be a number of 0 or more"),
            "{e}"
        );
    }
}
