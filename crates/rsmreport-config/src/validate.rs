//! Stage 1 (config), validation half: a [`RawConfig`] becomes an
//! [`Experiment`] (spec 1.1 steps 1-11, table 1.2, decisions.md): keys
//! checked, values coerced, defaults filled, cross-field rules applied,
//! referenced files located, sections chosen (spec 5.1) and the saved copy
//! built (spec 1.4). The values are read with the rules every kind shares
//! (`config::value`); the reader here adds the file and line, and the
//! examples of build's own keys. Only checks that files exist; never reads
//! data tables and never writes anything.

use std::fmt::Display;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};
use serde_json::{Map, Value};

use super::common;
use super::intervals::Intervals;
use super::keys::{
    closest, default_value, is_wandb_key, other_tool_purpose, valid_keys, DEFAULTED_KEYS,
    REQUIRED_KEYS,
};
use super::parse::RawConfig;
use super::sections::{select_sections, Available};
use super::value::{self, coerce_bool, coerce_list, describe, KeyError};
use super::{Experiment, FlagFilter, FlagValue, Number, ScaleWith};
use rsmreport_core::pyrepr::parse_number_text;

/// Validates a parsed config. `config_path` is the config file: it is named
/// in every message and its folder is where relative paths are looked up
/// first (then the current working folder).
pub fn validate(raw: RawConfig, config_path: &Path) -> Result<Experiment> {
    let cx = Ctx::new(&raw, config_path);
    check_keys(&cx)?;
    check_required(&cx)?;

    // Single fields.
    let experiment_id = experiment_id(&cx)?;
    let predictions_value = cx.path_text("predictions_file")?.unwrap_or_default();
    let system_score_column = cx.column("system_score_column")?.unwrap_or_default();
    let id_column = cx
        .column("id_column")?
        .unwrap_or_else(|| "spkitemid".into());
    let human_score_column = cx
        .column("human_score_column")?
        .unwrap_or_else(|| "sc1".into());
    let second_human_score_column = cx.column("second_human_score_column")?;
    let candidate_column = cx.column("candidate_column")?;
    let description = cx.at_key(common::description(cx.raw))?;
    let model_version = cx.at_key(common::model_version(cx.raw))?;
    let trim_min = cx.number("trim_min")?.map_or(0.0, Number::as_f64);
    let trim_max = cx.number("trim_max")?.map_or(0.0, Number::as_f64);
    let trim_tolerance = trim_tolerance(&cx)?;
    let rater_error_variance = rater_error_variance(&cx)?;
    let exclude_zero_scores = cx.boolean("exclude_zero_scores")?.unwrap_or(true);
    let use_thumbnails = cx.boolean("use_thumbnails")?.unwrap_or(false);
    let file_format = cx.at_key(common::file_format(cx.raw))?;
    let subgroups = subgroups(&cx)?;
    let general_sections = cx.list("general_sections")?;
    let custom_sections = cx.list("custom_sections")?.unwrap_or_default();
    let section_order = cx.list("section_order")?;
    let flag_column = flag_column(&cx)?;
    let min_items_per_candidate = cx.count("min_items_per_candidate")?.filter(|&n| n > 0);
    let (min_n_per_group, min_n_saved) = min_n_per_group(&cx, &subgroups)?;
    let intervals = cx.at_key(common::intervals(cx.raw, candidate_column.as_deref()))?;

    // Cross-field rules.
    check_trim_range(&cx, trim_min, trim_max)?;
    check_distinct_columns(
        &cx,
        &id_column,
        &human_score_column,
        second_human_score_column.as_deref(),
        &system_score_column,
        candidate_column.as_deref(),
    )?;
    let other_human_score_columns = other_human_columns(
        &cx,
        &[
            ("id_column", id_column.as_str()),
            ("human_score_column", human_score_column.as_str()),
            (
                "second_human_score_column",
                second_human_score_column.as_deref().unwrap_or(""),
            ),
            ("system_score_column", system_score_column.as_str()),
            (
                "candidate_column",
                candidate_column.as_deref().unwrap_or(""),
            ),
        ],
    )?;
    let classification = cx.boolean("classification")?.unwrap_or(false);
    check_min_items(&cx, min_items_per_candidate, candidate_column.as_deref())?;

    // Files.
    let predictions_file =
        cx.resolve_file("predictions_file", &predictions_value, "predictions file")?;
    let scale_with = scale_with(&cx)?;
    let custom = custom_files(&cx, &custom_sections)?;

    // Sections (spec 5.1).
    let sections = select_sections(
        &cx,
        general_sections.as_deref(),
        &custom,
        section_order.as_deref(),
        available(
            &subgroups,
            second_human_score_column.is_some(),
            &other_human_score_columns,
        ),
    )?;

    let saved_config = saved_config(&cx, min_n_saved, intervals);

    let mut exp = Experiment {
        config_path: config_path.to_path_buf(),
        experiment_id,
        description,
        model_version,
        predictions_file,
        id_column,
        human_score_column,
        second_human_score_column,
        other_human_score_columns,
        classification,
        system_score_column,
        candidate_column,
        trim_min,
        trim_max,
        trim_tolerance,
        exclude_zero_scores,
        use_thumbnails,
        scale_with,
        file_format,
        flag_column,
        rater_error_variance,
        subgroups,
        min_n_per_group,
        min_items_per_candidate,
        sections,
        saved_config,
        intervals,
        gates: Vec::new(),
    };
    exp.gates = gates(&cx, &exp)?;
    Ok(exp)
}

/// What the data offer the section rules: subgroups, more raters, and
/// how many human score columns there are.
fn available(subgroups: &[String], second_human: bool, others: &[String]) -> Available {
    Available {
        catalogue: super::sections::BUILD_CATALOGUE,
        subgroups: !subgroups.is_empty(),
        other_raters: !others.is_empty(),
        human_columns: 1 + usize::from(second_human) + others.len(),
    }
}

/// `trim_tolerance`: 0 or more, 0.4998 by default.
pub(crate) fn trim_tolerance(cx: &Ctx) -> Result<f64> {
    Ok(match cx.number("trim_tolerance")? {
        Some(n) if n.as_f64() < 0.0 => {
            return Err(cx.err(
                "trim_tolerance",
                format!(
                    "trim_tolerance must be 0 or more (it widens the range [trim_min, \
                     trim_max] on both sides), but it is {}",
                    n.as_f64()
                ),
            ))
        }
        Some(n) => n.as_f64(),
        None => 0.4998,
    })
}

/// `rater_error_variance`: a variance, 0 or more.
pub(crate) fn rater_error_variance(cx: &Ctx) -> Result<Option<Number>> {
    let rater_error_variance = cx.number("rater_error_variance")?;
    if let Some(v) = rater_error_variance {
        if v.as_f64() < 0.0 {
            return Err(cx.err(
                "rater_error_variance",
                format!(
                    "rater_error_variance must be 0 or more (it is a variance), but it is {}",
                    v.as_f64()
                ),
            ));
        }
    }
    Ok(rater_error_variance)
}

/// `subgroups`: each column once.
pub(crate) fn subgroups(cx: &Ctx) -> Result<Vec<String>> {
    Ok(cx.names("subgroups")?.unwrap_or_default())
}

/// `trim_min` must not be above `trim_max`.
fn check_trim_range(cx: &Ctx, trim_min: f64, trim_max: f64) -> Result<()> {
    if trim_min > trim_max {
        return Err(cx.err(
            "trim_min",
            format!(
                "trim_min ({}) is larger than trim_max ({}); trim_min must be the lowest and \
                 trim_max the highest valid score",
                show_value(cx.raw.get("trim_min")),
                show_value(cx.raw.get("trim_max"))
            ),
        ));
    }
    Ok(())
}

/// `min_items_per_candidate` needs `candidate_column`.
pub(crate) fn check_min_items(
    cx: &Ctx,
    min_items_per_candidate: Option<u64>,
    candidate_column: Option<&str>,
) -> Result<()> {
    if min_items_per_candidate.is_some() && candidate_column.is_none() {
        return Err(cx.err(
            "min_items_per_candidate",
            "min_items_per_candidate needs candidate_column: responses can only be counted per \
             candidate when the config names the column that holds the candidate ids",
        ));
    }
    Ok(())
}

/// The custom section files, each resolved like the predictions file.
pub(crate) fn custom_files(cx: &Ctx, custom_sections: &[String]) -> Result<Vec<(String, PathBuf)>> {
    let mut custom = Vec::with_capacity(custom_sections.len());
    for entry in custom_sections {
        let path = cx.resolve_file("custom_sections", entry, "custom section file")?;
        custom.push((entry.clone(), path));
    }
    Ok(custom)
}

/// The experiment's own gates (`gates_preset`, `[[gates]]`), validated
/// against what it computes (gates spec 1).
fn gates(cx: &Ctx, exp: &Experiment) -> Result<Vec<super::gates::Gate>> {
    let min_n = |g: &str| exp.min_n_for(g);
    let gcx = super::gates::Context::of(exp, &min_n);
    gates_in(cx, &gcx, &exp.config_path)
}

/// `gates_preset` and `[[gates]]` of the file `config_path`, validated in
/// the context `gcx` (what the run computes); errors name the key and the
/// `[[gates]]` table's line. `build`'s and `train`'s.
pub(crate) fn gates_in(
    cx: &Ctx,
    gcx: &super::gates::Context,
    config_path: &Path,
) -> Result<Vec<super::gates::Gate>> {
    let origin = super::gates::origin_name(config_path);
    let mut gates = super::gates::parse(
        cx.raw.get("gates"),
        cx.raw.get("gates_preset"),
        gcx,
        &origin,
    )
    .map_err(|(key, item, message)| match item {
        Some(i) => cx.err_at_item(key, i, message),
        None => cx.err(key, message),
    })?;
    super::gates::set_lines(&mut gates, |i| cx.raw.line_of_item("gates", i));
    Ok(gates)
}

// ---------------------------------------------------------------- context

/// The raw config plus what every message needs (the file name, the lines).
pub(crate) struct Ctx<'a> {
    pub(crate) raw: &'a RawConfig,
    file: String,
    config_dir: PathBuf,
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(raw: &'a RawConfig, config_path: &Path) -> Self {
        // Made absolute when possible, so messages show real locations.
        let cwd = std::env::current_dir().ok();
        let config_dir = match (config_path.parent(), cwd) {
            (Some(p), _) if p.is_absolute() => p.to_path_buf(),
            (Some(p), Some(cwd)) if !p.as_os_str().is_empty() => cwd.join(p),
            (Some(p), None) if !p.as_os_str().is_empty() => p.to_path_buf(),
            (_, Some(cwd)) => cwd,
            (_, None) => PathBuf::from("."),
        };
        Ctx {
            raw,
            file: config_path.display().to_string(),
            config_dir,
        }
    }

    /// "exp.toml, line 7" (or just the file when the line is unknown).
    pub(crate) fn at(&self, key: &str) -> String {
        match self.raw.line_of(key) {
            Some(line) => format!("{}, line {line}", self.file),
            None => self.file.clone(),
        }
    }

    /// An error located at `key`.
    pub(crate) fn err(&self, key: &str, message: impl Display) -> anyhow::Error {
        anyhow!("{}: {message}", self.at(key))
    }

    /// An error located at item `index` of the array `key` (a `[[gates]]`
    /// table).
    fn err_at_item(&self, key: &str, index: usize, message: impl Display) -> anyhow::Error {
        match self.raw.line_of_item(key, index) {
            Some(line) => anyhow!("{}, line {line}: {message}", self.file),
            None => anyhow!("{}: {message}", self.file),
        }
    }

    /// The value of a key, `None` when absent or null.
    pub(crate) fn value(&self, key: &str) -> Option<&'a Value> {
        self.raw.get(key).filter(|v| !v.is_null())
    }

    pub(crate) fn text(&self, key: &str) -> Result<Option<String>> {
        match self.value(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(self.err(
                key,
                format!(
                    "{key} must be a text in quotes (for example {key} = \"{}\"), but it is {}",
                    example_text(key),
                    describe(other)
                ),
            )),
        }
    }

    /// A column name: text, not empty.
    pub(crate) fn column(&self, key: &str) -> Result<Option<String>> {
        let value = self.text(key)?;
        if value.as_deref().is_some_and(|s| s.trim().is_empty()) {
            return Err(self.err(
                key,
                format!("{key} is empty; give the name of a column of the predictions file"),
            ));
        }
        Ok(value)
    }

    /// A path setting: text, not empty.
    pub(crate) fn path_text(&self, key: &str) -> Result<Option<String>> {
        let value = self.text(key)?;
        if value.as_deref().is_some_and(|s| s.trim().is_empty()) {
            return Err(self.err(key, format!("{key} is empty; give the path of a file")));
        }
        Ok(value)
    }

    /// A finite number, given as a number or as a text holding one.
    pub(crate) fn number(&self, key: &str) -> Result<Option<Number>> {
        let Some(v) = self.value(key) else {
            return Ok(None);
        };
        let parsed = match v {
            Value::Number(n) => n
                .as_i64()
                .map(Number::Int)
                .or_else(|| n.as_f64().map(Number::Float)),
            Value::String(s) => parse_number_text(s),
            _ => None,
        };
        match parsed {
            Some(n) if n.as_f64().is_finite() => Ok(Some(n)),
            _ => Err(self.err(
                key,
                format!(
                    "{key} must be a number (for example {key} = {}), but it is {}",
                    example_number(key),
                    describe(v)
                ),
            )),
        }
    }

    /// A whole number of 0 or more (a number, or a text holding one).
    pub(crate) fn count(&self, key: &str) -> Result<Option<u64>> {
        let Some(v) = self.value(key) else {
            return Ok(None);
        };
        match count_of(v) {
            Some(n) => Ok(Some(n)),
            None => Err(self.err(
                key,
                format!(
                    "{key} must be a whole number of 0 or more (for example {key} = 5), but it is {}",
                    describe(v)
                ),
            )),
        }
    }

    /// Locates a [`value`] rule's error at its key.
    pub(crate) fn at_key<T>(&self, read: Result<T, KeyError>) -> Result<T> {
        read.map_err(|(key, message)| self.err(key, message))
    }

    /// [`value::boolean`].
    pub(crate) fn boolean(&self, key: &'static str) -> Result<Option<bool>> {
        self.at_key(value::boolean(self.raw, key))
    }

    /// [`value::list`] (section lists: a repeat has its own message).
    pub(crate) fn list(&self, key: &'static str) -> Result<Option<Vec<String>>> {
        self.at_key(value::list(self.raw, key))
    }

    /// [`value::names`] (columns: each once).
    pub(crate) fn names(&self, key: &'static str) -> Result<Option<Vec<String>>> {
        self.at_key(value::names(self.raw, key))
    }

    /// [`value::resolve_file`] from the config file's folder.
    pub(crate) fn resolve_file(&self, key: &str, given: &str, what: &str) -> Result<PathBuf> {
        value::resolve_file(key, given, what, &self.config_dir).map_err(|m| self.err(key, m))
    }
}

// ---------------------------------------------------------------- key checks

/// Rejects unsupported, other-tool and unknown keys (all of them at once),
/// and nulls where null is not allowed.
fn check_keys(cx: &Ctx) -> Result<()> {
    let mut problems = Vec::new();
    for (key, value) in &cx.raw.entries {
        if is_wandb_key(key) {
            // A saved rsmeval config holds `use_wandb: false` and null W&B
            // names: harmless, accepted so such files can be re-run.
            let harmless = match key.as_str() {
                "use_wandb" => matches!(value, Value::Bool(false) | Value::Null),
                "wandb_project" | "wandb_entity" => value.is_null(),
                _ => false,
            };
            if !harmless {
                problems.push(cx.err(
                    key,
                    format!(
                        "{key} is not supported: rsmreport does not log to Weights & Biases \
                         (use_wandb, wandb_project, wandb_entity); remove this key"
                    ),
                ));
            }
        } else if let Some(purpose) = other_tool_purpose(key) {
            problems.push(cx.err(
                key,
                format!(
                    "{key} is a setting for {purpose}, not for evaluation; rsmreport only \
                     evaluates existing predictions, so remove this key"
                ),
            ));
        } else if !valid_keys().any(|k| k == key) {
            let hint = match closest(key, valid_keys()) {
                Some(s) => format!("; did you mean {s}?"),
                None => "; check its spelling against the documented keys".to_string(),
            };
            problems.push(cx.err(key, format!("unknown key {key}{hint}")));
        } else if value.is_null() {
            let default = default_value(key);
            if REQUIRED_KEYS.contains(&key.as_str()) {
                problems.push(cx.err(key, format!("{key} is required but has no value (null)")));
            } else if !default.is_null() {
                problems.push(cx.err(
                    key,
                    format!(
                        "{key} cannot be null; remove the key to use the default ({})",
                        default
                    ),
                ));
            }
        }
    }
    join_problems(problems)
}

pub(crate) fn join_problems(problems: Vec<anyhow::Error>) -> Result<()> {
    match problems.len() {
        0 => Ok(()),
        1 => Err(problems
            .into_iter()
            .next()
            .unwrap_or_else(|| anyhow!("invalid config"))),
        _ => {
            let text: Vec<String> = problems.iter().map(|e| e.to_string()).collect();
            bail!("{}", text.join("\n"))
        }
    }
}

fn check_required(cx: &Ctx) -> Result<()> {
    let missing: Vec<&str> = REQUIRED_KEYS
        .into_iter()
        .filter(|k| cx.raw.get(k).is_none())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let mut message = format!(
        "{}: required key{} missing: {} (every config needs experiment_id, predictions_file, \
         system_score_column, trim_min and trim_max)",
        cx.file,
        if missing.len() == 1 { " is" } else { "s are" },
        missing.join(", ")
    );
    // A TOML key written after a [table] header belongs to that table.
    for key in &missing {
        for (table, value) in &cx.raw.entries {
            if value.as_object().is_some_and(|m| m.contains_key(*key)) {
                message.push_str(&format!(
                    "\nnote: {key} is inside the table {table} (a key written after a \
                     [{table}] header belongs to that table); move it above the header"
                ));
            }
        }
    }
    bail!("{message}")
}

// ---------------------------------------------------------------- fields

/// `experiment_id`: the id rule of every kind (present: `check_required`
/// came first).
fn experiment_id(cx: &Ctx) -> Result<String> {
    cx.at_key(common::experiment_id(cx.raw, "my_experiment"))
}

fn scale_with(cx: &Ctx) -> Result<ScaleWith> {
    let key = "scale_with";
    let Some(text) = cx.text(key)? else {
        return Ok(ScaleWith::None);
    };
    match text.as_str() {
        "asis" => return Ok(ScaleWith::Asis),
        "raw" => return Ok(ScaleWith::Raw),
        "" => {
            return Err(cx.err(
                key,
                "scale_with is empty; use \"asis\", \"raw\" or the path of a scale file, or \
                 remove the key",
            ))
        }
        _ => {}
    }
    cx.resolve_file(key, &text, "scale file")
        .map(ScaleWith::File)
        .map_err(|e| {
            let lower = text.trim().to_ascii_lowercase();
            if lower == "asis" || lower == "raw" {
                anyhow!(
                    "{e}\n(the keywords are lower case: did you mean scale_with = \"{lower}\"?)"
                )
            } else {
                e
            }
        })
}

pub(crate) fn flag_column(cx: &Ctx) -> Result<Vec<FlagFilter>> {
    flag_filters(cx, "flag_column")
}

/// The flag filters of `key` (`flag_column`; `train`'s `flag_column_test`
/// too): a table of column = allowed value(s).
pub(crate) fn flag_filters(cx: &Ctx, key: &str) -> Result<Vec<FlagFilter>> {
    let Some(v) = cx.value(key) else {
        return Ok(Vec::new());
    };
    let Value::Object(map) = v else {
        return Err(cx.err(
            key,
            format!(
                "{key} must be a table of column = allowed value(s) (for example \
                 {key} = {{ ADVISORY = [0, 1] }}), but it is {}",
                describe(v)
            ),
        ));
    };
    let mut filters = Vec::with_capacity(map.len());
    for (column, allowed) in map {
        let values: Vec<&Value> = match allowed {
            Value::Array(items) => items.iter().collect(),
            scalar => vec![scalar],
        };
        if values.is_empty() {
            return Err(cx.err(
                key,
                format!(
                    "{key} lists no allowed value for the column \"{column}\"; every \
                     response would be removed"
                ),
            ));
        }
        let mut normalised = Vec::with_capacity(values.len());
        for value in values {
            match FlagValue::from_config(value) {
                Some(f) => normalised.push(f),
                None => {
                    return Err(cx.err(
                        key,
                        format!(
                            "{key}: the allowed values of \"{column}\" must be numbers, \
                             texts or booleans, but one is {}",
                            describe(value)
                        ),
                    ))
                }
            }
        }
        filters.push(FlagFilter {
            column: column.clone(),
            allowed: normalised,
        });
    }
    Ok(filters)
}

/// The per-subgroup thresholds (in `subgroups` order, 0 = none) and, when
/// the value has to be rewritten for the saved config, that value.
pub(crate) type Thresholds = (Vec<(String, u64)>, Option<Value>);

pub(crate) fn min_n_per_group(cx: &Ctx, subgroups: &[String]) -> Result<Thresholds> {
    let key = "min_n_per_group";
    let none: Vec<(String, u64)> = subgroups.iter().map(|g| (g.clone(), 0)).collect();
    let Some(v) = cx.value(key) else {
        return Ok((none, None));
    };
    match v {
        Value::Object(map) => {
            if !map.is_empty() {
                let mut given: Vec<&str> = map.keys().map(String::as_str).collect();
                let mut wanted: Vec<&str> = subgroups.iter().map(String::as_str).collect();
                given.sort_unstable();
                wanted.sort_unstable();
                if given != wanted {
                    let missing: Vec<&str> = subgroups
                        .iter()
                        .map(String::as_str)
                        .filter(|g| !map.contains_key(*g))
                        .collect();
                    let extra: Vec<&str> = map
                        .keys()
                        .map(String::as_str)
                        .filter(|k| !subgroups.iter().any(|g| g == k))
                        .collect();
                    let mut message = format!(
                        "the keys of the min_n_per_group table must be exactly the subgroups \
                         ({})",
                        if subgroups.is_empty() {
                            "none are configured".to_string()
                        } else {
                            subgroups.join(", ")
                        }
                    );
                    if !missing.is_empty() {
                        message.push_str(&format!("; missing: {}", missing.join(", ")));
                    }
                    if !extra.is_empty() {
                        message.push_str(&format!("; not a subgroup: {}", extra.join(", ")));
                    }
                    return Err(cx.err(key, message));
                }
            }
            let mut out = Vec::with_capacity(subgroups.len());
            for g in subgroups {
                let value = map.get(g).unwrap_or(&Value::Null);
                let n = if value.is_null() {
                    0
                } else {
                    count_of(value).ok_or_else(|| {
                        cx.err(
                            key,
                            format!(
                                "min_n_per_group: the threshold for \"{g}\" must be a whole \
                                 number of 0 or more, but it is {}",
                                describe(value)
                            ),
                        )
                    })?
                };
                out.push((g.clone(), n));
            }
            Ok((out, None))
        }
        scalar => {
            let n = count_of(scalar).ok_or_else(|| {
                cx.err(
                    key,
                    format!(
                        "min_n_per_group must be a whole number of 0 or more (the same \
                         threshold for every subgroup) or a table with one number per \
                         subgroup, but it is {}",
                        describe(scalar)
                    ),
                )
            })?;
            // The reference expands a truthy scalar to one entry per subgroup
            // (a 0 stays the scalar 0).
            let saved = is_truthy(scalar).then(|| {
                Value::Object(
                    subgroups
                        .iter()
                        .map(|g| (g.clone(), scalar.clone()))
                        .collect::<Map<_, _>>(),
                )
            });
            Ok((subgroups.iter().map(|g| (g.clone(), n)).collect(), saved))
        }
    }
}

/// Rejects one column playing two roles (human == system is the reference's
/// own check; the others are decisions.md additions).
fn check_distinct_columns(
    cx: &Ctx,
    id: &str,
    human: &str,
    second: Option<&str>,
    system: &str,
    candidate: Option<&str>,
) -> Result<()> {
    let roles: [(&str, Option<&str>, &str); 5] = [
        ("human_score_column", Some(human), "the human score"),
        ("system_score_column", Some(system), "the system score"),
        (
            "second_human_score_column",
            second,
            "the second human score",
        ),
        ("id_column", Some(id), "the response ids"),
        ("candidate_column", candidate, "the candidate ids"),
    ];
    for (i, (key_a, a, what_a)) in roles.iter().enumerate() {
        for (key_b, b, what_b) in roles.iter().skip(i + 1) {
            if let (Some(a), Some(b)) = (a, b) {
                if a == b {
                    let key = if cx.raw.get(key_b).is_some() {
                        key_b
                    } else {
                        key_a
                    };
                    return Err(cx.err(
                        key,
                        format!(
                            "{key_a} and {key_b} are both \"{a}\"; {what_a} and {what_b} must \
                             come from two different columns"
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// `other_human_score_columns` (agreement spec 1.1): distinct columns,
/// none of them a column with another role (`roles`: key and column, empty
/// when not configured), and only with `second_human_score_column` (the
/// second rater comes first).
fn other_human_columns(cx: &Ctx, roles: &[(&str, &str)]) -> Result<Vec<String>> {
    let key = "other_human_score_columns";
    let others = cx.names(key)?.unwrap_or_default();
    if others.is_empty() {
        return Ok(others);
    }
    for c in &others {
        if let Some((role, _)) = roles.iter().find(|(_, col)| col == c) {
            return Err(cx.err(
                key,
                format!(
                    "{key} lists \"{c}\", which is already the {role}; a further human score \
                     must come from a column of its own"
                ),
            ));
        }
    }
    if roles
        .iter()
        .any(|(role, col)| *role == "second_human_score_column" && col.is_empty())
    {
        return Err(cx.err(
            key,
            format!(
                "{key} needs second_human_score_column: name one of the further human score \
                 columns there (the second rater of the reference's consistency tables) and \
                 list the others in {key}"
            ),
        ));
    }
    Ok(others)
}

// ---------------------------------------------------------------- saved config

/// The normalised config in the reference's shape (spec 1.4): the user's
/// keys in the user's order with normalised values, then every defaulted
/// key that was not given, with its default; last, `intervals` with the
/// settings used (`false` when off), unless the user placed it.
fn saved_config(cx: &Ctx, min_n_saved: Option<Value>, intervals: Option<Intervals>) -> Value {
    let intervals_saved = intervals.map_or(Value::Bool(false), |i| i.saved());
    let mut out = Map::new();
    for (key, value) in &cx.raw.entries {
        let normalised = match key.as_str() {
            "general_sections"
            | "custom_sections"
            | "subgroups"
            | "section_order"
            | "other_human_score_columns" => match coerce_list(value) {
                Some(Ok(items)) => Value::from(items),
                _ => value.clone(),
            },
            "exclude_zero_scores" | "use_thumbnails" | "classification" => {
                coerce_bool(value).map_or_else(|| value.clone(), Value::Bool)
            }
            "min_n_per_group" => min_n_saved.clone().unwrap_or_else(|| value.clone()),
            "intervals" => intervals_saved.clone(),
            _ => value.clone(),
        };
        out.insert(key.clone(), normalised);
    }
    for key in DEFAULTED_KEYS {
        if !out.contains_key(key) {
            out.insert(key.to_string(), default_value(key));
        }
    }
    if !out.contains_key("intervals") {
        out.insert("intervals".to_string(), intervals_saved);
    }
    Value::Object(out)
}

// ---------------------------------------------------------------- coercions

/// A whole number >= 0 from a number or a numeric text (integral floats
/// such as `3.0` are accepted).
pub(crate) fn count_of(v: &Value) -> Option<u64> {
    let n = match v {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                return Some(u);
            }
            n.as_f64()?
        }
        Value::String(s) => match parse_number_text(s)? {
            Number::Int(i) => return u64::try_from(i).ok(),
            Number::Float(x) => x,
        },
        _ => return None,
    };
    (n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_992.0)
        .then_some(n as u64)
}

/// Python truthiness of a JSON value.
pub(crate) fn is_truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|x| x != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

impl FlagValue {
    /// Spec 2.6 normalisation of a text: an integer (Python `int` syntax,
    /// surrounding whitespace allowed) or a float becomes that number,
    /// anything else stays the text as given (`"nan"` becomes NaN).
    pub fn from_text(s: &str) -> FlagValue {
        match parse_number_text(s) {
            Some(n) => FlagValue::Number(n.as_f64()),
            None => FlagValue::Text(s.to_string()),
        }
    }

    /// Spec 2.6 normalisation of a configured allowed value: numbers as
    /// numbers, texts per [`FlagValue::from_text`], booleans as the texts
    /// `True`/`False` (what the reference compares). `None` for null, lists
    /// and tables.
    pub fn from_config(v: &Value) -> Option<FlagValue> {
        match v {
            Value::Number(n) => n.as_f64().map(FlagValue::Number),
            Value::String(s) => Some(FlagValue::from_text(s)),
            Value::Bool(true) => Some(FlagValue::Text("True".into())),
            Value::Bool(false) => Some(FlagValue::Text("False".into())),
            _ => None,
        }
    }

    /// Whether two normalised values are equal for flag filtering: numbers
    /// by value (NaN matches NaN, i.e. a missing cell matches a NaN allowed
    /// value), texts exactly.
    pub fn matches(&self, other: &FlagValue) -> bool {
        match (self, other) {
            (FlagValue::Number(a), FlagValue::Number(b)) => a == b || (a.is_nan() && b.is_nan()),
            (FlagValue::Text(a), FlagValue::Text(b)) => a == b,
            _ => false,
        }
    }
}

// ---------------------------------------------------------------- wording

fn show_value(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

fn example_text(key: &str) -> &'static str {
    match key {
        "predictions_file" => "predictions.csv",
        "system_score_column" => "system",
        "human_score_column" => "h1",
        "second_human_score_column" => "h2",
        "id_column" => "response_id",
        "candidate_column" => "candidate",
        "model_version" => "v1.2",
        "file_format" => "csv",
        "scale_with" => "asis",
        _ => "...",
    }
}

fn example_number(key: &str) -> &'static str {
    match key {
        "trim_min" => "1",
        "trim_max" => "6",
        "trim_tolerance" => "0.4998",
        "rater_error_variance" => "0.5",
        _ => "1",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, ConfigKind};
    use crate::{FileFormat, Section};
    use serde_json::json;
    use std::fs;

    /// A temp folder holding `pred.csv` (and `scale.csv`, `notes.md`,
    /// `extra.html`), with configs written next to them.
    struct Fixture {
        dir: tempfile::TempDir,
    }

    impl Fixture {
        fn new() -> Self {
            let dir = tempfile::tempdir().unwrap();
            for f in [
                "pred.csv",
                "scale.csv",
                "notes.md",
                "extra.html",
                "nb.ipynb",
            ] {
                fs::write(dir.path().join(f), "x\n").unwrap();
            }
            fs::create_dir(dir.path().join("folder")).unwrap();
            Fixture { dir }
        }

        fn config_path(&self) -> PathBuf {
            self.dir.path().join("exp.toml")
        }

        fn run(&self, extra: &str) -> Result<Experiment> {
            self.run_full(&format!("{BASE}{extra}"))
        }

        fn run_full(&self, text: &str) -> Result<Experiment> {
            let path = self.config_path();
            let raw = parse(text, ConfigKind::Toml, &path)?;
            validate(raw, &path)
        }

        fn err(&self, extra: &str) -> String {
            match self.run(extra) {
                Ok(_) => panic!("expected an error for:\n{extra}"),
                Err(e) => format!("{e:#}"),
            }
        }

        fn json(&self, text: &str) -> Result<Experiment> {
            let path = self.dir.path().join("exp.json");
            let raw = parse(text, ConfigKind::Json, &path)?;
            validate(raw, &path)
        }
    }

    const BASE: &str = "experiment_id = \"exp1\"\npredictions_file = \"pred.csv\"\n\
                        system_score_column = \"sys\"\ntrim_min = 1\ntrim_max = 6\n";

    fn names(exp: &Experiment) -> Vec<&str> {
        exp.sections.iter().map(Section::name).collect()
    }

    #[test]
    fn other_human_columns_and_classification_are_validated_and_saved() {
        let f = Fixture::new();
        let e = f.run("").unwrap();
        assert!(e.other_human_score_columns.is_empty() && !e.classification);
        assert!(e.saved_config.get("other_human_score_columns").is_none());
        let e = f
            .run(
                "second_human_score_column = \"h2\"\n\
                 other_human_score_columns = \"h3, h4\"\nclassification = \"true\"\n",
            )
            .unwrap();
        assert_eq!(e.other_human_score_columns, ["h3", "h4"]);
        assert!(e.classification);
        assert_eq!(
            e.saved_config["other_human_score_columns"],
            json!(["h3", "h4"])
        );
        assert_eq!(e.saved_config["classification"], json!(true));
        assert!(names(&e).contains(&"rater_agreement"));
        let err = f.err(
            "second_human_score_column = \"h2\"\nother_human_score_columns = [\"h3\", \"h3\"]\n",
        );
        assert!(
            err.contains("lists the column \"h3\" more than once"),
            "{err}"
        );
        let err =
            f.err("second_human_score_column = \"h2\"\nother_human_score_columns = [\"sys\"]\n");
        assert!(err.contains("already the system_score_column"), "{err}");
        let err = f.err("classification = 1\n");
        assert!(err.contains("classification"), "{err}");
    }

    #[test]
    fn intervals_table_is_validated_and_saved() {
        let f = Fixture::new();
        // On by default; the saved config records the settings used, last.
        let e = f.run("").unwrap();
        assert_eq!(e.intervals, Some(crate::intervals::Intervals::default()));
        let saved = e.saved_config.as_object().unwrap();
        assert_eq!(
            saved.keys().next_back().map(String::as_str),
            Some("intervals")
        );
        assert_eq!(
            saved["intervals"],
            json!({"level": 0.95, "replicates": 1000, "seed": 0, "unit": "response"})
        );
        // A table, with the unit resolved from candidate_column.
        let e = f
            .run("candidate_column = \"cand\"\n[intervals]\nlevel = 0.9\nseed = 42\n")
            .unwrap();
        let i = e.intervals.unwrap();
        assert_eq!((i.level, i.seed, i.replicates), (0.9, 42, 1000));
        assert_eq!(i.unit, crate::intervals::Unit::Candidate);
        assert_eq!(e.saved_config["intervals"]["unit"], json!("candidate"));
        // Off.
        let e = f.run("intervals = false\n").unwrap();
        assert_eq!(e.intervals, None);
        assert_eq!(e.saved_config["intervals"], json!(false));
        // Errors name the file, the line and the key.
        let e = f.err("[intervals]\nlevel = 95\n");
        assert!(
            e.contains("exp.toml, line 6") && e.contains("intervals.level"),
            "{e}"
        );
        let e = f.err("[intervals]\nreplicate = 10\n");
        assert!(e.contains("did you mean intervals.replicates?"), "{e}");
        let e = f.err("[intervals]\nunit = \"candidate\"\n");
        assert!(e.contains("needs candidate_column"), "{e}");
        let e = f.err("intervals = 3\n");
        assert!(e.contains("must be a table"), "{e}");
        // An rsmeval JSON config takes the same object.
        let e = f
            .json(
                r#"{"experiment_id": "j", "predictions_file": "pred.csv",
                "system_score_column": "sys", "trim_min": 1, "trim_max": 6,
                "intervals": {"replicates": 0}}"#,
            )
            .unwrap();
        assert_eq!(e.intervals.unwrap().replicates, 0);
    }

    #[test]
    fn minimal_config_gets_every_default() {
        let f = Fixture::new();
        let e = f.run("").unwrap();
        assert_eq!(e.experiment_id, "exp1");
        assert_eq!(e.id_column, "spkitemid");
        assert_eq!(e.human_score_column, "sc1");
        assert_eq!(e.system_score_column, "sys");
        assert_eq!(e.second_human_score_column, None);
        assert_eq!(e.candidate_column, None);
        assert_eq!(e.description, "");
        assert_eq!(e.model_version, None);
        assert_eq!(
            (e.trim_min, e.trim_max, e.trim_tolerance),
            (1.0, 6.0, 0.4998)
        );
        assert!(e.exclude_zero_scores);
        assert!(!e.use_thumbnails);
        assert_eq!(e.scale_with, ScaleWith::None);
        assert!(!e.scaled());
        assert_eq!(e.file_format, FileFormat::Csv);
        assert!(e.flag_column.is_empty());
        assert_eq!(e.rater_error_variance, None);
        assert!(e.subgroups.is_empty());
        assert!(e.min_n_per_group.is_empty());
        assert_eq!(e.min_items_per_candidate, None);
        assert_eq!(e.predictions_file, f.dir.path().join("pred.csv"));
        assert_eq!(e.config_path, f.config_path());
        assert_eq!(
            names(&e),
            [
                "data_description",
                "consistency",
                "evaluation",
                "true_score_evaluation",
                "intermediate_file_paths",
                "sysinfo"
            ]
        );
        let keys: Vec<&str> = e
            .saved_config
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut expected = vec![
            "experiment_id",
            "predictions_file",
            "system_score_column",
            "trim_min",
            "trim_max",
        ];
        expected.extend(DEFAULTED_KEYS);
        expected.push("intervals");
        assert_eq!(keys, expected);
        assert_eq!(e.saved_config["trim_tolerance"], json!(0.4998));
        assert_eq!(e.saved_config["general_sections"], json!(["all"]));
        assert_eq!(e.saved_config["scale_with"], Value::Null);
        assert_eq!(e.saved_config["use_wandb"], json!(false));
    }

    #[test]
    fn required_keys_are_listed_when_missing() {
        let f = Fixture::new();
        let e = f
            .run_full("experiment_id = \"x\"\ntrim_min = 1\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("exp.toml"), "{e}");
        assert!(
            e.contains(
                "required keys are missing: predictions_file, system_score_column, trim_max"
            ),
            "{e}"
        );
        let e = f
            .run_full(&format!(
                "{}\n[flag_column]\nflag = 0\ntrim_max = 6\n",
                BASE.replace("trim_max = 6\n", "")
            ))
            .unwrap_err()
            .to_string();
        assert!(e.contains("required key is missing: trim_max"), "{e}");
        assert!(e.contains("inside the table flag_column"), "{e}");
    }

    #[test]
    fn unknown_key_names_file_line_and_suggestion() {
        let f = Fixture::new();
        let e = f.err("trim_tolerence = 0.5\n");
        assert!(e.contains("exp.toml, line 6"), "{e}");
        assert!(
            e.contains("unknown key trim_tolerence; did you mean trim_tolerance?"),
            "{e}"
        );
        let e = f.err("colour_scheme = \"blue\"\n");
        assert!(
            e.contains("unknown key colour_scheme") && !e.contains("did you mean"),
            "{e}"
        );
        // Several problems are reported together.
        let e = f.err("subgroup = \"L1\"\nfeatures = \"f.csv\"\n");
        assert!(
            e.contains("line 6") && e.contains("did you mean subgroups?"),
            "{e}"
        );
        assert!(e.contains("line 7") && e.contains("features"), "{e}");
    }

    #[test]
    fn other_tool_keys_are_rejected_as_model_training() {
        let f = Fixture::new();
        for key in [
            "features",
            "use_scaled_predictions",
            "model",
            "train_file",
            "skll_objective",
        ] {
            let e = f.err(&format!("{key} = \"x\"\n"));
            assert!(
                e.contains(key) && e.contains("model training (rsmtool)"),
                "{e}"
            );
            assert!(
                e.contains("not for evaluation") && e.contains("line 6"),
                "{e}"
            );
        }
        let e = f.err("description_old = \"x\"\n");
        assert!(
            e.contains("rsmcompare") && e.contains("not for evaluation"),
            "{e}"
        );
        let e = f.err("folds = 5\n");
        assert!(e.contains("rsmxval"), "{e}");
    }

    #[test]
    fn wandb_keys_are_not_supported() {
        let f = Fixture::new();
        for extra in [
            "use_wandb = true\n",
            "wandb_project = \"p\"\n",
            "wandb_entity = \"e\"\n",
            "wandb_mode = \"x\"\n",
            "use_wandb = \"false\"\n",
        ] {
            let e = f.err(extra);
            assert!(
                e.contains("not supported") && e.contains("Weights & Biases"),
                "{e}"
            );
        }
        // What a saved rsmeval config holds is accepted (and kept in place).
        let e = f
            .json(r#"{"experiment_id": "x", "predictions_file": "pred.csv", "system_score_column": "s",
                     "trim_min": 1, "trim_max": 6, "use_wandb": false, "wandb_project": null,
                     "wandb_entity": null}"#)
            .unwrap();
        assert_eq!(e.saved_config["use_wandb"], json!(false));
    }

    #[test]
    fn nulls_are_defaults_only_where_the_default_is_null() {
        let f = Fixture::new();
        let base = r#""experiment_id": "x", "predictions_file": "pred.csv", "system_score_column": "s", "trim_min": 1, "trim_max": 6"#;
        let e = f
            .json(&format!(
                "{{{base}, \"second_human_score_column\": null, \"min_n_per_group\": null}}"
            ))
            .unwrap();
        assert_eq!(e.second_human_score_column, None);
        assert_eq!(e.saved_config["second_human_score_column"], Value::Null);
        let err = f
            .json(&format!("{{{base}, \"id_column\": null}}"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("id_column cannot be null") && err.contains("spkitemid"),
            "{err}"
        );
        let err = f
            .json(r#"{"experiment_id": "x", "predictions_file": "pred.csv", "system_score_column": "s", "trim_min": null, "trim_max": 6}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("trim_min is required but has no value"),
            "{err}"
        );
    }

    #[test]
    fn experiment_id_rules() {
        let f = Fixture::new();
        let long = "a".repeat(201);
        let e = f
            .run_full(&BASE.replace("exp1", &long))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("exp.toml, line 1") && e.contains("too long") && e.contains("201"),
            "{e}"
        );
        assert!(f.run_full(&BASE.replace("exp1", &"a".repeat(200))).is_ok());
        let e = f
            .run_full(&BASE.replace("exp1", "my exp"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("whitespace") && e.contains("my_exp"), "{e}");
        let e = f
            .run_full(&BASE.replace("exp1", "a\\tb"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("whitespace"), "{e}");
        let e = f
            .run_full(&BASE.replace("exp1", "a/b"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("file name"), "{e}");
        let e = f
            .run_full(&BASE.replace("exp1", "a\\\\b"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("file name"), "{e}");
        let e = f
            .run_full(&BASE.replace("exp1", ".hidden"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("starts with a dot"), "{e}");
        let e = f
            .run_full(&BASE.replace("exp1", "a\\u0000b"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("control character"), "{e}");
        let e = f
            .run_full(&BASE.replace("\"exp1\"", "\"\""))
            .unwrap_err()
            .to_string();
        assert!(e.contains("experiment_id is empty"), "{e}");
        let e = f
            .run_full(&BASE.replace("\"exp1\"", "12"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("experiment_id must be a text") && e.contains("the number 12"),
            "{e}"
        );
    }

    #[test]
    fn numbers_accept_numeric_text_and_keep_it_in_the_saved_copy() {
        let f = Fixture::new();
        let e = f
            .run_full(
                &BASE
                    .replace("trim_min = 1", "trim_min = \"1\"")
                    .replace("trim_max = 6", "trim_max = \" 6.5 \""),
            )
            .unwrap();
        assert_eq!((e.trim_min, e.trim_max), (1.0, 6.5));
        assert_eq!(e.saved_config["trim_min"], json!("1"));
        let e = f
            .run("trim_tolerance = \"0.25\"\nrater_error_variance = 0\n")
            .unwrap();
        assert_eq!(e.trim_tolerance, 0.25);
        assert_eq!(e.rater_error_variance, Some(Number::Int(0)));
        assert_eq!(e.saved_config["rater_error_variance"], json!(0));
        let e = f.run("rater_error_variance = \"0.5\"\n").unwrap();
        assert_eq!(e.rater_error_variance, Some(Number::Float(0.5)));
        let e = f.run("rater_error_variance = 1_000\n").unwrap();
        assert_eq!(e.rater_error_variance, Some(Number::Int(1000)));
    }

    #[test]
    fn non_numbers_are_rejected_naming_the_key() {
        let f = Fixture::new();
        let e = f
            .run_full(&BASE.replace("trim_min = 1", "trim_min = \"one\""))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("exp.toml, line 4") && e.contains("trim_min must be a number"),
            "{e}"
        );
        assert!(e.contains("the text \"one\""), "{e}");
        let e = f
            .run_full(&BASE.replace("trim_max = 6", "trim_max = true"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("trim_max must be a number") && e.contains("boolean"),
            "{e}"
        );
        let e = f
            .run_full(&BASE.replace("trim_max = 6", "trim_max = nan"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("trim_max must be a number"), "{e}");
        let e = f.err("trim_tolerance = [1]\n");
        assert!(
            e.contains("trim_tolerance must be a number") && e.contains("a list"),
            "{e}"
        );
        let e = f.err("trim_tolerance = -0.1\n");
        assert!(e.contains("trim_tolerance must be 0 or more"), "{e}");
        let e = f.err("rater_error_variance = \"big\"\n");
        assert!(e.contains("rater_error_variance must be a number"), "{e}");
        let e = f.err("rater_error_variance = -1\n");
        assert!(e.contains("rater_error_variance must be 0 or more"), "{e}");
    }

    #[test]
    fn trim_min_above_trim_max_is_rejected() {
        let f = Fixture::new();
        let e = f
            .run_full(&BASE.replace("trim_min = 1", "trim_min = 7"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("trim_min (7) is larger than trim_max (6)"),
            "{e}"
        );
        assert!(f
            .run_full(&BASE.replace("trim_min = 1", "trim_min = 6"))
            .is_ok());
    }

    #[test]
    fn booleans_accept_true_false_text_only() {
        let f = Fixture::new();
        let e = f
            .run("exclude_zero_scores = \" FALSE \"\nuse_thumbnails = \"True\"\n")
            .unwrap();
        assert!(!e.exclude_zero_scores && e.use_thumbnails);
        assert_eq!(e.saved_config["exclude_zero_scores"], json!(false));
        assert_eq!(e.saved_config["use_thumbnails"], json!(true));
        for bad in ["1", "\"yes\"", "0", "[true]"] {
            let e = f.err(&format!("use_thumbnails = {bad}\n"));
            assert!(
                e.contains("use_thumbnails only accepts true or false"),
                "{e}"
            );
            assert!(e.contains("line 6"), "{e}");
        }
    }

    #[test]
    fn lists_accept_arrays_and_comma_text() {
        let f = Fixture::new();
        let e = f.run("subgroups = \"QUESTION, L1\"\n").unwrap();
        assert_eq!(e.subgroups, ["QUESTION", "L1"]);
        assert_eq!(e.saved_config["subgroups"], json!(["QUESTION", "L1"]));
        let e = f.run("subgroups = [\"QUESTION\", \"L1\"]\n").unwrap();
        assert_eq!(e.subgroups, ["QUESTION", "L1"]);
        let e = f.run("subgroups = []\n").unwrap();
        assert!(e.subgroups.is_empty());
        let e = f.err("subgroups = \"L1,,gender\"\n");
        assert!(e.contains("empty name at position 2"), "{e}");
        let e = f.err("subgroups = [\"L1\", 3]\n");
        assert!(
            e.contains("subgroups must only hold texts") && e.contains("item 2"),
            "{e}"
        );
        let e = f.err("subgroups = 3\n");
        assert!(e.contains("subgroups must be a list of texts"), "{e}");
        let e = f.err("subgroups = \"L1, L1\"\n");
        assert!(e.contains("more than once"), "{e}");
    }

    #[test]
    fn columns_must_be_distinct() {
        let f = Fixture::new();
        let e = f.err("human_score_column = \"sys\"\n");
        assert!(
            e.contains("human_score_column") && e.contains("system_score_column"),
            "{e}"
        );
        assert!(e.contains("\"sys\""), "{e}");
        let e = f.err("human_score_column = \"h1\"\nsecond_human_score_column = \"h1\"\n");
        assert!(
            e.contains("human_score_column and second_human_score_column are both \"h1\""),
            "{e}"
        );
        let e = f.err("second_human_score_column = \"sys\"\n");
        assert!(
            e.contains("system_score_column and second_human_score_column"),
            "{e}"
        );
        let e = f.err("second_human_score_column = \"sc1\"\n");
        assert!(
            e.contains("human_score_column and second_human_score_column"),
            "{e}"
        );
        let e = f.err("id_column = \"id\"\ncandidate_column = \"id\"\n");
        assert!(
            e.contains("id_column and candidate_column are both \"id\""),
            "{e}"
        );
        assert!(e.contains("line 7"), "{e}");
        let e = f.err("candidate_column = \"\"\n");
        assert!(e.contains("candidate_column is empty"), "{e}");
    }

    #[test]
    fn file_format_is_case_insensitive() {
        let f = Fixture::new();
        assert_eq!(
            f.run("file_format = \"TSV\"\n").unwrap().file_format,
            FileFormat::Tsv
        );
        assert_eq!(
            f.run("file_format = \"xlsx\"\n").unwrap().file_format,
            FileFormat::Xlsx
        );
        let e = f.run("file_format = \"TSV\"\n").unwrap();
        assert_eq!(e.saved_config["file_format"], json!("TSV"));
        let e = f.err("file_format = \"jsonlines\"\n");
        assert!(
            e.contains("file_format must be \"csv\", \"tsv\" or \"xlsx\"")
                && e.contains("jsonlines"),
            "{e}"
        );
    }

    #[test]
    fn scale_with_keywords_and_files() {
        let f = Fixture::new();
        assert_eq!(
            f.run("scale_with = \"asis\"\n").unwrap().scale_with,
            ScaleWith::Asis
        );
        let e = f.run("scale_with = \"raw\"\n").unwrap();
        assert_eq!(e.scale_with, ScaleWith::Raw);
        assert!(e.scaled());
        let e = f.run("scale_with = \"scale.csv\"\n").unwrap();
        assert_eq!(
            e.scale_with,
            ScaleWith::File(f.dir.path().join("scale.csv"))
        );
        assert_eq!(e.saved_config["scale_with"], json!("scale.csv"));
        let e = f.err("scale_with = \"nope.csv\"\n");
        assert!(
            e.contains("scale file not found") && e.contains("scale_with = \"nope.csv\""),
            "{e}"
        );
        let e = f.err("scale_with = \"ASIS\"\n");
        assert!(e.contains("did you mean scale_with = \"asis\""), "{e}");
        let e = f.err("scale_with = \"folder\"\n");
        assert!(e.contains("is a folder"), "{e}");
    }

    #[test]
    fn predictions_file_not_found_says_where_it_looked() {
        let f = Fixture::new();
        let e = f
            .run_full(&BASE.replace("pred.csv", "missing.csv"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("predictions file not found"), "{e}");
        assert!(e.contains("predictions_file = \"missing.csv\""), "{e}");
        assert!(
            e.contains(&f.dir.path().join("missing.csv").display().to_string()),
            "{e}"
        );
        assert!(e.contains("exp.toml, line 2"), "{e}");
    }

    #[test]
    fn relative_paths_prefer_the_config_folder_then_the_working_folder() {
        let f = Fixture::new();
        // Config folder first.
        let e = f.run("").unwrap();
        assert_eq!(e.predictions_file, f.dir.path().join("pred.csv"));
        // Absolute paths as they are.
        let abs = f.dir.path().join("scale.csv");
        let e = f
            .run_full(&BASE.replace("pred.csv", &abs.display().to_string().replace('\\', "\\\\")))
            .unwrap();
        assert_eq!(e.predictions_file, abs);
        // Working-folder fallback: a file that only exists relative to the
        // current folder (the crate root when tests run).
        let cwd = std::env::current_dir().unwrap();
        let name = "Cargo.toml";
        assert!(cwd.join(name).is_file());
        assert!(!f.dir.path().join(name).exists());
        let e = f.run_full(&BASE.replace("pred.csv", name)).unwrap();
        assert_eq!(e.predictions_file, cwd.join(name));
        // When the file exists in both places, the config folder wins.
        fs::write(f.dir.path().join(name), "x\n").unwrap();
        let e = f.run_full(&BASE.replace("pred.csv", name)).unwrap();
        assert_eq!(e.predictions_file, f.dir.path().join(name));
    }

    #[test]
    fn flag_column_is_normalised() {
        let f = Fixture::new();
        let e = f
            .run("flag_column = { flag = 0, adv = [\"1\", \" 2 \", \"x\", 1.5, true, \"nan\"] }\n")
            .unwrap();
        assert_eq!(e.flag_column.len(), 2);
        assert_eq!(
            e.flag_column[0],
            FlagFilter {
                column: "flag".into(),
                allowed: vec![FlagValue::Number(0.0)]
            }
        );
        let adv = &e.flag_column[1].allowed;
        assert_eq!(adv[0], FlagValue::Number(1.0));
        assert_eq!(adv[1], FlagValue::Number(2.0));
        assert_eq!(adv[2], FlagValue::Text("x".into()));
        assert_eq!(adv[3], FlagValue::Number(1.5));
        assert_eq!(adv[4], FlagValue::Text("True".into()));
        assert!(adv[5].matches(&FlagValue::Number(f64::NAN)));
        // The saved copy keeps the user's scalar.
        assert_eq!(e.saved_config["flag_column"]["flag"], json!(0));
        let e = f.err("flag_column = \"flag\"\n");
        assert!(
            e.contains("flag_column must be a table") && e.contains("line 6"),
            "{e}"
        );
        let e = f.err("flag_column = { flag = [] }\n");
        assert!(
            e.contains("no allowed value") && e.contains("\"flag\""),
            "{e}"
        );
        let e = f.err("flag_column = { flag = [[1]] }\n");
        assert!(e.contains("must be numbers, texts or booleans"), "{e}");
        assert!(f.run("flag_column = {}\n").unwrap().flag_column.is_empty());
    }

    #[test]
    fn flag_value_text_normalisation() {
        assert_eq!(FlagValue::from_text("1.0"), FlagValue::Number(1.0));
        assert_eq!(FlagValue::from_text(" 01 "), FlagValue::Number(1.0));
        assert_eq!(FlagValue::from_text("1_000"), FlagValue::Number(1000.0));
        assert_eq!(FlagValue::from_text("1e3"), FlagValue::Number(1000.0));
        assert_eq!(FlagValue::from_text("True"), FlagValue::Text("True".into()));
        assert_eq!(FlagValue::from_text(" a "), FlagValue::Text(" a ".into()));
        assert_eq!(FlagValue::from_text("_1"), FlagValue::Text("_1".into()));
        assert!(FlagValue::from_text("NaN").matches(&FlagValue::Number(f64::NAN)));
        assert!(!FlagValue::Number(1.0).matches(&FlagValue::Text("1".into())));
    }

    #[test]
    fn min_items_per_candidate_needs_candidate_column() {
        let f = Fixture::new();
        let e = f.err("min_items_per_candidate = 2\n");
        assert!(
            e.contains("min_items_per_candidate needs candidate_column"),
            "{e}"
        );
        let e = f
            .run("min_items_per_candidate = \"2\"\ncandidate_column = \"cand\"\n")
            .unwrap();
        assert_eq!(e.min_items_per_candidate, Some(2));
        let e = f.run("min_items_per_candidate = 0\n").unwrap();
        assert_eq!(e.min_items_per_candidate, None);
        let e = f.err("min_items_per_candidate = 2.5\ncandidate_column = \"cand\"\n");
        assert!(e.contains("whole number"), "{e}");
        let e = f.err("min_items_per_candidate = -1\ncandidate_column = \"cand\"\n");
        assert!(e.contains("whole number of 0 or more"), "{e}");
    }

    #[test]
    fn min_n_per_group_scalar_and_table() {
        let f = Fixture::new();
        let e = f
            .run("subgroups = [\"L1\", \"gender\"]\nmin_n_per_group = 10\n")
            .unwrap();
        assert_eq!(
            e.min_n_per_group,
            [("L1".to_string(), 10), ("gender".to_string(), 10)]
        );
        assert_eq!(
            e.saved_config["min_n_per_group"],
            json!({"L1": 10, "gender": 10})
        );
        assert_eq!(e.min_n_for("gender"), 10);
        // A table is stored in subgroups order; the saved copy keeps the user's.
        let e = f
            .run("subgroups = [\"L1\", \"gender\"]\nmin_n_per_group = { gender = 5, L1 = 0 }\n")
            .unwrap();
        assert_eq!(
            e.min_n_per_group,
            [("L1".to_string(), 0), ("gender".to_string(), 5)]
        );
        let saved: Vec<&String> = e.saved_config["min_n_per_group"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(saved, ["gender", "L1"]);
        // 0 stays the scalar 0 (no threshold).
        let e = f
            .run("subgroups = [\"L1\"]\nmin_n_per_group = 0\n")
            .unwrap();
        assert_eq!(e.saved_config["min_n_per_group"], json!(0));
        assert_eq!(e.min_n_for("L1"), 0);
        // No subgroups: a scalar becomes an empty table (reference behaviour).
        let e = f.run("min_n_per_group = 10\n").unwrap();
        assert_eq!(e.saved_config["min_n_per_group"], json!({}));
        // Defaults: one zero per subgroup.
        let e = f.run("subgroups = \"L1\"\n").unwrap();
        assert_eq!(e.min_n_per_group, [("L1".to_string(), 0)]);
        let e =
            f.err("subgroups = [\"L1\", \"gender\"]\nmin_n_per_group = { L1 = 5, Gender = 5 }\n");
        assert!(
            e.contains("must be exactly the subgroups (L1, gender)"),
            "{e}"
        );
        assert!(
            e.contains("missing: gender") && e.contains("not a subgroup: Gender"),
            "{e}"
        );
        let e = f.err("subgroups = [\"L1\"]\nmin_n_per_group = { L1 = \"many\" }\n");
        assert!(
            e.contains("threshold for \"L1\" must be a whole number"),
            "{e}"
        );
        let e = f.err("subgroups = [\"L1\"]\nmin_n_per_group = [10]\n");
        assert!(e.contains("min_n_per_group must be a whole number"), "{e}");
    }

    #[test]
    fn text_fields_and_model_version() {
        let f = Fixture::new();
        let e = f
            .run("description = \"An *evaluation*.\"\nmodel_version = \"v2.1\"\n")
            .unwrap();
        assert_eq!(e.description, "An *evaluation*.");
        assert_eq!(e.model_version.as_deref(), Some("v2.1"));
        let keys: Vec<&str> = e
            .saved_config
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(&keys[5..7], ["description", "model_version"]);
        let e = f.err("model_version = 2\n");
        assert!(
            e.contains("model_version must be a text") && e.contains("\"v1.2\""),
            "{e}"
        );
        let e = f.err("description = [\"a\"]\n");
        assert!(e.contains("description must be a text"), "{e}");
    }

    #[test]
    fn numeric_text_parsing() {
        assert_eq!(parse_number_text("1"), Some(Number::Int(1)));
        assert_eq!(parse_number_text(" -2 "), Some(Number::Int(-2)));
        assert_eq!(parse_number_text("+3"), Some(Number::Int(3)));
        assert_eq!(parse_number_text("1.5e1"), Some(Number::Float(15.0)));
        assert_eq!(parse_number_text(".5"), Some(Number::Float(0.5)));
        assert_eq!(parse_number_text("5."), Some(Number::Float(5.0)));
        assert_eq!(
            parse_number_text("99999999999999999999"),
            Some(Number::Float(1e20))
        );
        assert_eq!(parse_number_text("1__0"), None);
        assert_eq!(parse_number_text("3,5"), None);
        assert_eq!(parse_number_text(""), None);
        assert_eq!(count_of(&json!(3.0)), Some(3));
        assert_eq!(count_of(&json!("4")), Some(4));
        assert_eq!(count_of(&json!(-1)), None);
        assert_eq!(count_of(&json!(true)), None);
    }
}
