//! Stage 3: cleaning the predictions exactly like the reference (spec
//! 2.3-2.13): reserved-name renaming, duplicate ids, `No info` subgroups,
//! flag filtering, human and system score filters, listwise candidate
//! exclusion, scaling, trimming and half-to-even rounding.
//!
//! Input: a validated [`Experiment`] and the [`Table`]s read by `input`.
//! Output: [`Prepared`], plain columns for the analyses plus the processing
//! frames of spec 2.13. No I/O happens here.

use anyhow::{bail, Result};
use rsmreport_config::{Experiment, FlagValue, ScaleWith};
use rsmreport_core::table::{Cell, Column, Frame, Table, Values};
use rsmreport_metrics::{round_half_even, summary};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use rsmreport_core::schema::{ALL_DATA, NO_INFO, RESERVED};

/// One score type (`raw`, `scale_trim_round`, ...) for the kept responses.
#[derive(Clone, Debug)]
pub struct ScoreColumn {
    pub name: &'static str,
    /// Values as `f64` (the `*_round` types hold integral values).
    pub values: Vec<f64>,
}

impl ScoreColumn {
    pub fn is_rounded(&self) -> bool {
        self.name.ends_with("_round")
    }
}

/// A subgroup column of the kept responses, dictionary-encoded.
#[derive(Clone, Debug)]
pub struct Grouping {
    /// The subgroup column name as configured.
    pub name: String,
    /// Distinct values in code-point order (`No info` included when present).
    pub labels: Vec<String>,
    /// For each kept response, the index of its value in `labels`.
    pub codes: Vec<u32>,
}

impl Grouping {
    /// Number of kept responses per label.
    pub fn counts(&self) -> Vec<usize> {
        let mut counts = vec![0usize; self.labels.len()];
        for &c in &self.codes {
            counts[c as usize] += 1;
        }
        counts
    }
}

/// Why a response was excluded (spec 2.7-2.9), in exclusion-list order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exclusion {
    NonNumericHuman,
    ZeroHuman,
    NonNumericSystem,
    Listwise,
}

/// The scaling parameters of spec 2.10.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scaling {
    pub pred_mean: f64,
    pub pred_sd: f64,
    pub human_mean: f64,
    pub human_sd: f64,
}

impl Default for Scaling {
    fn default() -> Self {
        Scaling {
            pred_mean: 0.0,
            pred_sd: 1.0,
            human_mean: 0.0,
            human_sd: 1.0,
        }
    }
}

/// One column of `other_human_score_columns` on the kept responses.
#[derive(Clone, Debug)]
pub struct OtherHuman {
    /// The column name, as configured.
    pub name: String,
    /// Non-numeric and (with `exclude_zero_scores`) zero values are `NaN`.
    pub values: Vec<f64>,
    /// Non-numeric (non-empty) values that became missing.
    pub non_numeric: usize,
}

/// Everything the analyses need, plus the processing frames.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// Data rows in the predictions file before any filtering.
    pub n_original: usize,
    /// Rows removed by `flag_column`.
    pub n_flagged: usize,
    /// Reasons of the exclusion list, in its order, with the coerced human
    /// and system scores of each excluded response (`NaN` if non-numeric).
    pub excluded: Vec<(Exclusion, f64, f64)>,
    /// Whether listwise exclusion (`min_items_per_candidate`) is active.
    pub listwise: bool,
    /// First human score of the kept responses.
    pub sc1: Vec<f64>,
    /// Second human score (non-numeric and, with `exclude_zero_scores`,
    /// zero values are `NaN`), when configured.
    pub sc2: Option<Vec<f64>>,
    /// Non-numeric (non-empty) second-human values that became missing.
    pub sc2_non_numeric: usize,
    /// The further human scores of `other_human_score_columns`, in config
    /// order, coerced like `sc2`.
    pub other_humans: Vec<OtherHuman>,
    /// Score types in production order (spec 2.12).
    pub scores: Vec<ScoreColumn>,
    /// `scale` when scaled predictions are in use, else `raw`.
    pub primary: &'static str,
    pub scaling: Scaling,
    /// Subgroup columns in config order.
    pub groups: Vec<Grouping>,
    /// Number of distinct candidates among the kept responses.
    pub n_candidates: Option<usize>,
    /// `pred_processed`, `test_metadata`, `test_other_columns`,
    /// `test_human_scores`, `test_excluded_responses`,
    /// `test_responses_with_excluded_flags` (only those that exist).
    pub frames: Vec<Frame>,
}

impl Prepared {
    pub fn score(&self, name: &str) -> Option<&ScoreColumn> {
        self.scores.iter().find(|s| s.name == name)
    }

    /// The `X_trim` score type.
    pub fn x_trim(&self) -> &ScoreColumn {
        let name = if self.primary == "scale" {
            "scale_trim"
        } else {
            "raw_trim"
        };
        self.score(name)
            .expect("trimmed primary score always exists")
    }

    /// The `X_trim_round` score type.
    pub fn x_trim_round(&self) -> &ScoreColumn {
        let name = if self.primary == "scale" {
            "scale_trim_round"
        } else {
            "raw_trim_round"
        };
        self.score(name)
            .expect("rounded primary score always exists")
    }

    pub fn n(&self) -> usize {
        self.sc1.len()
    }
}

use rsmreport_core::table::{FxBuild, Text, TextBuilder};

/// Text form of any cell, as pandas' `astype(str)` would give it
/// (borrowed from a text column, so no copy per row there).
pub(crate) fn cell_text(values: &Values, i: usize) -> Option<Cow<'_, str>> {
    match values {
        Values::Text(v) => v[i].as_deref().map(Cow::Borrowed),
        _ => match values.cell(i) {
            Cell::Missing => None,
            Cell::Bool(b) => Some(Cow::Borrowed(if b { "True" } else { "False" })),
            Cell::Int(x) => Some(Cow::Owned(x.to_string())),
            Cell::Float(x) => Some(Cow::Owned(rsmreport_core::pyrepr::py_float(x))),
            Cell::Text(s) => Some(Cow::Owned(s)),
        },
    }
}

/// Flag-value normalisation of spec 2.6 for a data cell.
pub(crate) fn flag_key(values: &Values, i: usize) -> FlagValue {
    if let Values::Text(v) = values {
        return v[i]
            .as_deref()
            .map_or(FlagValue::Number(f64::NAN), text_flag_key);
    }
    match values.cell(i) {
        Cell::Missing => FlagValue::Number(f64::NAN),
        Cell::Bool(b) => FlagValue::Text(if b { "True" } else { "False" }.to_string()),
        Cell::Int(x) => FlagValue::Number(x as f64),
        Cell::Float(x) => FlagValue::Number(x),
        Cell::Text(s) => text_flag_key(&s),
    }
}

/// [`flag_key`] of a text cell: a number when it reads as one.
fn text_flag_key(s: &str) -> FlagValue {
    let x = rsmreport_core::table::parse_number(s);
    if !x.is_nan() {
        return FlagValue::Number(x);
    }
    let t = s.trim();
    if t.eq_ignore_ascii_case("nan") || t.eq_ignore_ascii_case("-nan") {
        FlagValue::Number(f64::NAN)
    } else {
        FlagValue::Text(s.to_string())
    }
}

pub(crate) fn flag_matches(value: &FlagValue, allowed: &[FlagValue]) -> bool {
    allowed.iter().any(|a| match (a, value) {
        (FlagValue::Number(x), FlagValue::Number(y)) => x == y || (x.is_nan() && y.is_nan()),
        (FlagValue::Text(x), FlagValue::Text(y)) => x == y,
        _ => false,
    })
}

/// Lists `names` for an error message: `'a', 'b'`.
pub(crate) fn quoted_list<S: AsRef<str>>(names: &[S]) -> String {
    names
        .iter()
        .map(|n| format!("'{}'", n.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// At most this many column names are listed in a message.
const MAX_LISTED_COLUMNS: usize = 40;

/// "the file has the columns 'a', 'b'" (at most [`MAX_LISTED_COLUMNS`]
/// names), or "the file has no columns".
pub(crate) fn has_columns(names: &[String]) -> String {
    if names.is_empty() {
        return "the file has no columns".to_string();
    }
    let shown = &names[..names.len().min(MAX_LISTED_COLUMNS)];
    let more = names.len() - shown.len();
    let tail = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!("the file has the columns {}{tail}", quoted_list(shown))
}

/// A hint for a column `wanted` that is not among `names`: the same name up
/// to case and surrounding spaces, or a close spelling.
pub(crate) fn column_hint(wanted: &str, names: &[String]) -> String {
    let folded = |s: &str| s.trim().to_lowercase();
    if let Some(n) = names.iter().find(|n| folded(n) == folded(wanted)) {
        return format!(" (did you mean '{n}'? column names must match exactly)");
    }
    // Short names are only suggested one edit away ('h1' is not 'id').
    let close_enough = |n: &str| {
        let d = rsmreport_config::osa_distance(&wanted.to_lowercase(), &n.to_lowercase());
        d <= 1 || wanted.chars().count().max(n.chars().count()) >= 6
    };
    match rsmreport_config::closest(wanted, names.iter().map(String::as_str)) {
        Some(n) if close_enough(n) => format!(" (did you mean '{n}'?)"),
        _ => String::new(),
    }
}

/// A hint when the header was read as one single column that holds another
/// separator (a `;`-separated "CSV" from a spreadsheet, say); else empty.
pub(crate) fn separator_hint(names: &[String]) -> String {
    if let [only] = names {
        if let Some(sep) = [';', '\t', '|', ',']
            .into_iter()
            .find(|c| only.contains(*c))
        {
            let sep = if sep == '\t' {
                "a tab".to_string()
            } else {
                format!("'{sep}'")
            };
            return format!(
                "; the header was read as one single column, so the file seems to use {sep} as \
                 separator: save it comma-separated as .csv or tab-separated as .tsv"
            );
        }
    }
    String::new()
}

/// A value of a data cell for a message: `'x'`, or `(empty)`.
fn shown_value(text: Option<&str>) -> String {
    match text {
        Some(t) if !t.trim().is_empty() => format!("'{}'", t.escape_debug()),
        _ => "(empty)".to_string(),
    }
}

/// Up to `max` distinct texts of the cells `rows` of `values`, for messages.
fn example_values(values: &Values, rows: impl Iterator<Item = usize>, max: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for i in rows {
        let v = shown_value(cell_text(values, i).as_deref());
        if !out.contains(&v) {
            out.push(v);
            if out.len() == max {
                break;
            }
        }
    }
    out
}

/// ": 25 removed by flag_column, 3 ..." from the parts with a non-zero count.
fn removed_counts(parts: &[(usize, String)]) -> String {
    let shown: Vec<String> = parts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
    if shown.is_empty() {
        String::new()
    } else {
        format!(": {}", shown.join(", "))
    }
}

/// The columns of `table` that `exp` needs as raw text (spec 2.1).
pub fn text_columns(exp: &Experiment) -> Vec<&str> {
    let mut cols = vec![exp.id_column.as_str()];
    if let Some(c) = &exp.candidate_column {
        cols.push(c);
    }
    cols.extend(exp.subgroups.iter().map(String::as_str));
    cols
}

/// Runs spec 2.3-2.13 on the predictions table (and the scale table when
/// `scale_with` names a file), one named step per section of the spec.
/// `source` names the predictions file in messages.
pub fn prepare(
    exp: &Experiment,
    mut table: Table,
    scale_table: Option<&Table>,
    source: &str,
) -> Result<Prepared> {
    let n_original = table.nrows;
    let roles = Roles::new(exp, &table, source);
    check_configured_columns(&roles, &table)?;
    let other_positions: Vec<usize> = roles
        .others
        .iter()
        .map(|c| table.position(c).expect("checked above"))
        .collect();
    rename_reserved(&roles, &mut table);
    let id_col = check_duplicate_ids(exp, &mut table, source)?;
    prepare_subgroups(exp, &roles, &mut table)?;
    let (keep, flagged) = filter_flags(exp, &roles, &table)?;
    let scores_in = RawScores::of(&table);
    let human = filter_human_scores(exp, &table, &scores_in, &keep, flagged.len(), source)?;
    let system = filter_system_scores(exp, &table, &scores_in, &human, flagged.len(), source)?;
    // The exclusion list in the reference's order: human, system, listwise.
    let mut excluded = human.excluded;
    excluded.extend(system.excluded);
    let kept = exclude_listwise(exp, &table, system.kept, &mut excluded, source)?;
    let scaling = scaling_of(exp, scale_table)?;
    let sc1: Vec<f64> = kept.iter().map(|&i| scores_in.sc1[i]).collect();
    let raw: Vec<f64> = kept.iter().map(|&i| scores_in.raw[i]).collect();
    let scores = score_types(exp, &raw, &scaling);
    let (sc2, sc2_non_numeric) = second_human_scores(exp, &table, &kept);
    let other_humans = other_human_scores(exp, &table, &kept, &other_positions);
    let groups = kept_groups(exp, &table, &kept);
    let n_candidates = count_candidates(&table, &kept);
    let kept_data = Kept {
        rows: &kept,
        sc1: &sc1,
        raw: &raw,
        sc2: sc2.as_deref(),
        scores: &scores,
    };
    let frames = build_frames(
        exp, table, id_col, &kept_data, &scores_in, &excluded, &flagged,
    );
    Ok(Prepared {
        n_original,
        n_flagged: flagged.len(),
        excluded: excluded
            .iter()
            .map(|&(why, i)| (why, scores_in.sc1[i], scores_in.raw[i]))
            .collect(),
        listwise: exp.min_items_per_candidate.is_some_and(|m| m > 0),
        sc1,
        sc2,
        sc2_non_numeric,
        other_humans,
        scores,
        primary: if exp.scaled() { "scale" } else { "raw" },
        scaling,
        groups,
        n_candidates,
        frames,
    })
}

/// The configured columns with their internal names and config keys, and
/// the file's own column names: what every message about a missing column
/// needs.
struct Roles<'a> {
    source: &'a str,
    /// Column names as in the file (before the renaming of 2.3).
    file_names: Vec<String>,
    /// `(column in the file, internal name, config key)`.
    configured: Vec<(&'a str, &'static str, &'static str)>,
    /// `other_human_score_columns`: read under their own names.
    others: Vec<&'a str>,
}

impl<'a> Roles<'a> {
    fn new(exp: &'a Experiment, table: &Table, source: &'a str) -> Self {
        let mut configured = vec![
            (exp.id_column.as_str(), "spkitemid", "id_column"),
            (exp.human_score_column.as_str(), "sc1", "human_score_column"),
        ];
        if let Some(c) = &exp.second_human_score_column {
            configured.push((c.as_str(), "sc2", "second_human_score_column"));
        }
        configured.push((
            exp.system_score_column.as_str(),
            "raw",
            "system_score_column",
        ));
        if let Some(c) = &exp.candidate_column {
            configured.push((c.as_str(), "candidate", "candidate_column"));
        }
        Roles {
            source,
            file_names: table.names().into_iter().map(String::from).collect(),
            configured,
            others: exp
                .other_human_score_columns
                .iter()
                .map(String::as_str)
                .collect(),
        }
    }

    /// The configuration key that names `column` under another name, if
    /// any.
    fn role_of(&self, column: &str) -> Option<&'static str> {
        self.configured
            .iter()
            .find(|(c, internal, _)| *c == column && *internal != column)
            .map(|(_, _, key)| *key)
    }

    /// Why a subgroup or flag column is not found after the renaming of
    /// 2.3.
    fn why_absent(&self, column: &str) -> String {
        if let Some(key) = self.role_of(column) {
            format!(
                "'{column}' is already the {key}; a column cannot be both (copy it to a new \
                 column in the file if you need it twice)"
            )
        } else if self.file_names.iter().any(|n| n == column) {
            format!(
                "'{column}' is a name rsmreport reserves for its own columns ({}); rename that \
                 column in the file",
                RESERVED.join(", ")
            )
        } else {
            format!("'{column}'{}", column_hint(column, &self.file_names))
        }
    }
}

/// Spec 1.6 step 8: every configured column exists, and the file has data
/// rows.
fn check_configured_columns(roles: &Roles, table: &Table) -> Result<()> {
    let source = roles.source;
    let file_names = &roles.file_names;
    let others = roles
        .others
        .iter()
        .map(|c| (*c, "", "other_human_score_columns"));
    let absent: Vec<String> = roles
        .configured
        .iter()
        .copied()
        .chain(others)
        .filter(|(c, _, _)| table.position(c).is_none())
        .map(|(c, _, key)| format!("'{c}' ({key}){}", column_hint(c, file_names)))
        .collect();
    if !absent.is_empty() {
        let what = if absent.len() == 1 {
            format!("configured column {} is", absent[0])
        } else {
            format!("configured columns {} are", absent.join(", "))
        };
        bail!(
            "{what} absent from the predictions file {source}; {}{}",
            has_columns(file_names),
            separator_hint(file_names)
        );
    }
    if table.nrows == 0 {
        bail!(
            "the predictions file {source} has a header but no data rows; add one row per \
             response ({})",
            has_columns(file_names)
        );
    }
    Ok(())
}

/// Spec 2.3: reserved names not configured under exactly that name become
/// `##name##`, then configured columns get their internal names.
fn rename_reserved(roles: &Roles, table: &mut Table) {
    let configured_positions: Vec<(usize, &'static str)> = roles
        .configured
        .iter()
        .map(|(c, internal, _)| (table.position(c).expect("checked above"), *internal))
        .collect();
    for (pos, col) in table.columns.iter_mut().enumerate() {
        if RESERVED.contains(&col.name.as_str())
            && !configured_positions
                .iter()
                .any(|(p, internal)| *p == pos && *internal == col.name)
        {
            col.name = format!("##{}##", col.name);
        }
    }
    for (pos, internal) in &configured_positions {
        table.columns[*pos].name = internal.to_string();
    }
}

/// Spec 2.4: the id column as text (missing ids read `nan`), refused when
/// an id repeats. Returns the id column's position.
fn check_duplicate_ids(exp: &Experiment, table: &mut Table, source: &str) -> Result<usize> {
    let id_col = table.position("spkitemid").expect("renamed above");
    // A text id column (the usual case: `text_columns` asks the readers for
    // text) is converted in place: copying a million ids into a new vector
    // cost a full extra copy of the column at the memory peak.
    let nan: Text = "nan".into();
    let nrows = table.nrows;
    let ids: Vec<Option<Text>> = match &mut table.columns[id_col].values {
        Values::Text(v) => {
            let mut v = std::mem::take(v);
            for id in v.iter_mut().filter(|id| id.is_none()) {
                *id = Some(nan.clone());
            }
            v
        }
        other => (0..nrows)
            .map(|i| Some(cell_text(other, i).map_or_else(|| nan.clone(), Text::from)))
            .collect(),
    };
    // Every id is `Some` here.
    let dups = first_duplicates(&ids, 5);
    if !dups.is_empty() {
        let all: Vec<String> = ids
            .iter()
            .map(|id| id.as_deref().unwrap_or("nan").to_string())
            .collect();
        bail!(duplicate_ids_message(&all, &dups, &exp.id_column, source));
    }
    table.columns[id_col].values = Values::Text(ids);
    Ok(id_col)
}

/// Spec 2.5: subgroup columns exist, become text, and empty values become
/// `No info`; a value `All data` is refused (it names the whole set).
fn prepare_subgroups(exp: &Experiment, roles: &Roles, table: &mut Table) -> Result<()> {
    let source = roles.source;
    let missing_groups: Vec<String> = exp
        .subgroups
        .iter()
        .filter(|g| table.position(g).is_none())
        .map(|g| roles.why_absent(g))
        .collect();
    if !missing_groups.is_empty() {
        bail!(
            "subgroup column(s) absent from the predictions file {source} (see subgroups): {}; {}",
            missing_groups.join("; "),
            has_columns(&roles.file_names)
        );
    }
    for g in &exp.subgroups {
        let pos = table.position(g).expect("checked above");
        let nrows = table.nrows;
        // Text columns are rewritten in place (no second copy of the
        // column); other kinds are converted cell by cell.
        let mut texts: Vec<Option<Text>> = match &mut table.columns[pos].values {
            Values::Text(v) => std::mem::take(v),
            other => {
                let mut b = TextBuilder::with_capacity(nrows);
                b.extend((0..nrows).map(|i| cell_text(other, i)));
                b.into_cells()
            }
        };
        let no_info: Text = NO_INFO.into();
        for (i, t) in texts.iter_mut().enumerate() {
            if t.as_deref().is_none_or(|s| s.trim().is_empty()) {
                *t = Some(no_info.clone());
            }
            if t.as_deref() == Some(ALL_DATA) {
                bail!(
                    "subgroup column '{g}' of {source} has the value 'All data' (row {}), \
                     which is reserved for the whole evaluation set; rename that value",
                    i + 2
                );
            }
        }
        table.columns[pos].values = Values::Text(texts);
    }
    Ok(())
}

/// Spec 2.6: keeps the rows whose value is allowed in every flag column.
/// Returns the kept and the removed rows, in file order.
fn filter_flags(
    exp: &Experiment,
    roles: &Roles,
    table: &Table,
) -> Result<(Vec<usize>, Vec<usize>)> {
    let all: Vec<usize> = (0..table.nrows).collect();
    if exp.flag_column.is_empty() {
        return Ok((all, Vec::new()));
    }
    let source = roles.source;
    let missing_flags: Vec<String> = exp
        .flag_column
        .iter()
        .map(|f| f.column.as_str())
        .filter(|c| table.position(c).is_none())
        .map(|c| roles.why_absent(c))
        .collect();
    if !missing_flags.is_empty() {
        bail!(
            "flag column(s) absent from the predictions file {source} (see flag_column): {}; {}",
            missing_flags.join("; "),
            has_columns(&roles.file_names)
        );
    }
    let filters: Vec<(usize, &[FlagValue])> = exp
        .flag_column
        .iter()
        .map(|f| {
            (
                table.position(&f.column).expect("checked"),
                f.allowed.as_slice(),
            )
        })
        .collect();
    let (kept, removed): (Vec<usize>, Vec<usize>) = all.iter().partition(|&&i| {
        filters
            .iter()
            .all(|(pos, allowed)| flag_matches(&flag_key(&table.columns[*pos].values, i), allowed))
    });
    if kept.is_empty() {
        bail!(no_flagged_rows_message(exp, table, &filters, source));
    }
    Ok((kept, removed))
}

/// The message when no row passes the flag filter: per flag column, what
/// it allows, how many rows match, and some values of the file.
fn no_flagged_rows_message(
    exp: &Experiment,
    table: &Table,
    filters: &[(usize, &[FlagValue])],
    source: &str,
) -> String {
    let n_original = table.nrows;
    let per_column: Vec<String> = exp
        .flag_column
        .iter()
        .zip(filters)
        .map(|(f, (pos, allowed))| {
            let values = &table.columns[*pos].values;
            let matching = (0..table.nrows)
                .filter(|&i| flag_matches(&flag_key(values, i), allowed))
                .count();
            let allowed: Vec<String> = allowed
                .iter()
                .map(|a| match a {
                    FlagValue::Number(x) if x.fract() == 0.0 && x.abs() < 1e15 => {
                        format!("{}", *x as i64)
                    }
                    FlagValue::Number(x) => rsmreport_core::pyrepr::py_float(*x),
                    FlagValue::Text(t) => format!("'{}'", t.escape_debug()),
                })
                .collect();
            format!(
                "'{}' allows {} and matches {matching} row(s) (values in the file: {})",
                f.column,
                allowed.join(", "),
                example_values(values, 0..table.nrows, 5).join(", ")
            )
        })
        .collect();
    format!(
        "no responses left after flag filtering: none of the {n_original} rows of {source} \
         has an allowed value in every flag column; {}; check flag_column in the config",
        per_column.join("; ")
    )
}

/// The first human and the system score of every row of the file, as
/// numbers (NaN where not numeric).
struct RawScores {
    sc1: Vec<f64>,
    raw: Vec<f64>,
}

impl RawScores {
    fn of(table: &Table) -> Self {
        let column = |name: &str| {
            let pos = table.position(name).expect("renamed");
            table.columns[pos].values.to_numeric()
        };
        RawScores {
            sc1: column("sc1"),
            raw: column("raw"),
        }
    }
}

/// What the human-score filter kept and removed.
struct HumanFiltered {
    kept: Vec<usize>,
    /// Non-numeric first, then zero scores, each in file order.
    excluded: Vec<(Exclusion, usize)>,
    n_non_numeric: usize,
    n_zero: usize,
}

/// Spec 2.7: removes rows whose first human score is not a number and,
/// with `exclude_zero_scores`, rows whose first human score is 0.
fn filter_human_scores(
    exp: &Experiment,
    table: &Table,
    scores: &RawScores,
    keep: &[usize],
    n_flagged: usize,
    source: &str,
) -> Result<HumanFiltered> {
    let sc1_all = &scores.sc1;
    let mut excluded: Vec<(Exclusion, usize)> = keep
        .iter()
        .filter(|&&i| !sc1_all[i].is_finite())
        .map(|&i| (Exclusion::NonNumericHuman, i))
        .collect();
    let n_non_numeric = excluded.len();
    if exp.exclude_zero_scores {
        excluded.extend(
            keep.iter()
                .filter(|&&i| sc1_all[i] == 0.0)
                .map(|&i| (Exclusion::ZeroHuman, i)),
        );
    }
    let n_zero = excluded.len() - n_non_numeric;
    let kept: Vec<usize> = keep
        .iter()
        .copied()
        .filter(|&i| {
            let x = sc1_all[i];
            x.is_finite() && !(exp.exclude_zero_scores && x == 0.0)
        })
        .collect();
    if kept.is_empty() {
        let sc1_pos = table.position("sc1").expect("renamed");
        let examples = example_values(
            &table.columns[sc1_pos].values,
            keep.iter().copied().filter(|&i| !sc1_all[i].is_finite()),
            3,
        );
        let (and_zero, zero_hint) = if n_zero > 0 {
            (
                " and zero human scores",
                " (or set exclude_zero_scores = false if 0 is a valid score)",
            )
        } else {
            ("", "")
        };
        bail!(
            "no responses left after removing non-numeric human scores{and_zero}: {source} has \
             {} rows{}; check that human_score_column names the column with the human \
             scores{zero_hint}",
            table.nrows,
            removed_counts(&[
                (n_flagged, "removed by flag_column".into()),
                (
                    n_non_numeric,
                    format!(
                        "with a missing or non-numeric human score in column '{}' (values such \
                         as {})",
                        exp.human_score_column,
                        examples.join(", ")
                    )
                ),
                (
                    n_zero,
                    "with a zero human score (exclude_zero_scores = true)".into()
                ),
            ])
        );
    }
    Ok(HumanFiltered {
        kept,
        excluded,
        n_non_numeric,
        n_zero,
    })
}

/// The rows a filter kept, and those it removed with the reason.
struct Filtered {
    kept: Vec<usize>,
    excluded: Vec<(Exclusion, usize)>,
}

/// Spec 2.8: removes rows whose system score is not a number.
fn filter_system_scores(
    exp: &Experiment,
    table: &Table,
    scores: &RawScores,
    human: &HumanFiltered,
    n_flagged: usize,
    source: &str,
) -> Result<Filtered> {
    let (kept, removed): (Vec<usize>, Vec<usize>) =
        human.kept.iter().partition(|&&i| scores.raw[i].is_finite());
    if kept.is_empty() {
        let raw_pos = table.position("raw").expect("renamed");
        let examples = example_values(
            &table.columns[raw_pos].values,
            human.kept.iter().copied(),
            3,
        );
        bail!(
            "no responses left after removing non-numeric system scores: {source} has \
             {} rows{}; check that system_score_column names the column with the \
             machine scores",
            table.nrows,
            removed_counts(&[
                (n_flagged, "removed by flag_column".into()),
                (
                    human.n_non_numeric,
                    "removed for a missing or non-numeric human score".into()
                ),
                (human.n_zero, "removed for a zero human score".into()),
                (
                    human.kept.len(),
                    format!(
                        "left with a missing or non-numeric system score in column '{}' (values \
                         such as {})",
                        exp.system_score_column,
                        examples.join(", ")
                    )
                ),
            ])
        );
    }
    Ok(Filtered {
        kept,
        excluded: removed
            .into_iter()
            .map(|i| (Exclusion::NonNumericSystem, i))
            .collect(),
    })
}

/// Spec 2.9: with `min_items_per_candidate`, removes every response of a
/// candidate with fewer responses left (adding them to `excluded`).
fn exclude_listwise(
    exp: &Experiment,
    table: &Table,
    kept: Vec<usize>,
    excluded: &mut Vec<(Exclusion, usize)>,
    source: &str,
) -> Result<Vec<usize>> {
    let listwise = exp.min_items_per_candidate.is_some_and(|m| m > 0);
    let cand_pos = table.position("candidate");
    let (Some(min_items), true, Some(cpos)) = (exp.min_items_per_candidate, listwise, cand_pos)
    else {
        return Ok(kept);
    };
    let cvals = &table.columns[cpos].values;
    let mut counts: HashMap<Cow<str>, u64> = HashMap::new();
    for &i in &kept {
        *counts
            .entry(cell_text(cvals, i).unwrap_or_default())
            .or_default() += 1;
    }
    let (k, out): (Vec<usize>, Vec<usize>) = kept
        .iter()
        .partition(|&&i| counts[&cell_text(cvals, i).unwrap_or_default()] >= min_items);
    let n_out = out.len();
    excluded.extend(out.into_iter().map(|i| (Exclusion::Listwise, i)));
    if k.is_empty() {
        bail!(
            "no responses left after listwise exclusion: {} responses of {source} passed the \
             score filters, from {} candidates in column '{}' (candidate_column), and none \
             of them has {min_items} or more (the most any candidate has is {}); lower \
             min_items_per_candidate = {min_items} or check candidate_column",
            n_out,
            counts.len(),
            exp.candidate_column.as_deref().unwrap_or("candidate"),
            counts.values().max().copied().unwrap_or(0)
        );
    }
    Ok(k)
}

/// Spec 2.10: the scaling parameters (from the scale file when
/// `scale_with` names one; none otherwise).
fn scaling_of(exp: &Experiment, scale_table: Option<&Table>) -> Result<Scaling> {
    match (&exp.scale_with, scale_table) {
        (ScaleWith::File(path), Some(st)) => scaling_from(st, &path.display().to_string()),
        (ScaleWith::File(path), None) => {
            bail!("scale file {} was not read", path.display())
        }
        _ => Ok(Scaling::default()),
    }
}

/// Spec 2.11-2.12: the score types in production order: `raw`,
/// `raw_trim`, `raw_trim_round` (unless `scale_with = "asis"`), then the
/// scaled family when scaled predictions are in use. Trimming clips to
/// `[trim_min - tolerance, trim_max + tolerance]`; rounding is half to
/// even.
fn score_types(exp: &Experiment, raw: &[f64], scaling: &Scaling) -> Vec<ScoreColumn> {
    let lo = exp.trim_min - exp.trim_tolerance;
    let hi = exp.trim_max + exp.trim_tolerance;
    let trim = |v: &[f64]| -> Vec<f64> { v.iter().map(|&x| trim_value(x, lo, hi)).collect() };
    let round = |v: &[f64]| -> Vec<f64> { v.iter().map(|&x| round_half_even(x) + 0.0).collect() };
    let family = |names: [&'static str; 3], values: Vec<f64>| {
        let trimmed = trim(&values);
        let rounded = round(&trimmed);
        [
            ScoreColumn {
                name: names[0],
                values,
            },
            ScoreColumn {
                name: names[1],
                values: trimmed,
            },
            ScoreColumn {
                name: names[2],
                values: rounded,
            },
        ]
    };
    let mut scores = Vec::new();
    if !matches!(exp.scale_with, ScaleWith::Asis) {
        scores.extend(family(["raw", "raw_trim", "raw_trim_round"], raw.to_vec()));
    }
    if exp.scaled() {
        let s = scaling;
        let scale: Vec<f64> = raw
            .iter()
            .map(|&x| (x - s.pred_mean) / s.pred_sd * s.human_sd + s.human_mean)
            .collect();
        scores.extend(family(["scale", "scale_trim", "scale_trim_round"], scale));
    }
    scores
}

/// The second human score of the kept rows (non-numeric values and, with
/// `exclude_zero_scores`, zeros become NaN), and how many non-empty
/// non-numeric values there were.
fn second_human_scores(
    exp: &Experiment,
    table: &Table,
    kept: &[usize],
) -> (Option<Vec<f64>>, usize) {
    let Some(pos) = table.position("sc2") else {
        return (None, 0);
    };
    let (sc2, non_numeric) = human_scores_at(exp, &table.columns[pos].values, kept);
    (Some(sc2), non_numeric)
}

/// The columns of `other_human_score_columns` (at `positions`, found
/// before the renaming of 2.3) on the kept rows, coerced like `sc2`.
fn other_human_scores(
    exp: &Experiment,
    table: &Table,
    kept: &[usize],
    positions: &[usize],
) -> Vec<OtherHuman> {
    exp.other_human_score_columns
        .iter()
        .zip(positions)
        .map(|(name, &pos)| {
            let (values, non_numeric) = human_scores_at(exp, &table.columns[pos].values, kept);
            OtherHuman {
                name: name.clone(),
                values,
                non_numeric,
            }
        })
        .collect()
}

/// A further human score column on the kept rows: non-numeric values and,
/// with `exclude_zero_scores`, zeros become `NaN`; also the number of
/// non-numeric values that are not missing-value tokens.
fn human_scores_at(exp: &Experiment, vals: &Values, kept: &[usize]) -> (Vec<f64>, usize) {
    let numeric = vals.to_numeric();
    let mut non_numeric = 0;
    let scores = kept
        .iter()
        .map(|&i| {
            let x = numeric[i];
            if x.is_nan() {
                if let Some(t) = cell_text(vals, i) {
                    if !is_na_token(&t) {
                        non_numeric += 1;
                    }
                }
            }
            if exp.exclude_zero_scores && x == 0.0 {
                f64::NAN
            } else {
                x
            }
        })
        .collect();
    (scores, non_numeric)
}

/// The subgroup codes of the kept rows.
fn kept_groups(exp: &Experiment, table: &Table, kept: &[usize]) -> Vec<Grouping> {
    exp.subgroups
        .iter()
        .map(|g| {
            let pos = table.position(g).expect("checked");
            let Values::Text(vals) = &table.columns[pos].values else {
                unreachable!("subgroup columns were converted to text above")
            };
            encode(
                g,
                kept.iter().map(|&i| vals[i].as_deref().unwrap_or(NO_INFO)),
            )
        })
        .collect()
}

/// Distinct candidates among the kept rows, with a candidate column.
fn count_candidates(table: &Table, kept: &[usize]) -> Option<usize> {
    table.position("candidate").map(|cpos| {
        let cvals = &table.columns[cpos].values;
        kept.iter()
            .map(|&i| cell_text(cvals, i).unwrap_or_default())
            .collect::<HashSet<_>>()
            .len()
    })
}

/// The kept rows and their scores, for the frames.
struct Kept<'a> {
    rows: &'a [usize],
    sc1: &'a [f64],
    raw: &'a [f64],
    sc2: Option<&'a [f64]>,
    scores: &'a [ScoreColumn],
}

/// Spec 2.13: the processing frames, in the reference's order:
/// `pred_processed`, `test_metadata`, `test_other_columns`,
/// `test_human_scores`, then `test_excluded_responses` and
/// `test_responses_with_excluded_flags`. Consumes the input table: the
/// frames of kept rows take its columns over.
fn build_frames(
    exp: &Experiment,
    mut table: Table,
    id_col: usize,
    kept: &Kept,
    scores_in: &RawScores,
    excluded: &[(Exclusion, usize)],
    flagged: &[usize],
) -> Vec<Frame> {
    // The frames of removed rows are built first (they are pushed after the
    // others) because they read the input table, whose columns the frames
    // of kept rows then take over.
    let excluded_frame = excluded_frame(&table, id_col, scores_in, excluded);
    let flagged_frame = (!flagged.is_empty()).then(|| {
        let cols = table
            .columns
            .iter()
            .map(|c| Column::new(c.name.clone(), c.values.take(flagged)))
            .collect();
        Frame::new("test_responses_with_excluded_flags", None, cols)
    });
    let mut frames = kept_frames(exp, &mut table, id_col, kept);
    frames.extend(excluded_frame);
    frames.extend(flagged_frame);
    frames
}

/// `test_excluded_responses`: the excluded rows, id first, then every
/// other column in name order (scores as read, as numbers).
fn excluded_frame(
    table: &Table,
    id_col: usize,
    scores_in: &RawScores,
    excluded: &[(Exclusion, usize)],
) -> Option<Frame> {
    if excluded.is_empty() {
        return None;
    }
    let rows: Vec<usize> = excluded.iter().map(|(_, i)| *i).collect();
    let mut others: Vec<&Column> = table
        .columns
        .iter()
        .filter(|c| c.name != "spkitemid")
        .collect();
    others.sort_by(|a, b| a.name.cmp(&b.name));
    let mut cols = vec![Column::new(
        "spkitemid",
        table.columns[id_col].values.take(&rows),
    )];
    for c in others {
        let values = match c.name.as_str() {
            "sc1" => Values::Float(rows.iter().map(|&i| scores_in.sc1[i]).collect()),
            "raw" => Values::Float(rows.iter().map(|&i| scores_in.raw[i]).collect()),
            _ => c.values.take(&rows),
        };
        cols.push(Column::new(c.name.clone(), values));
    }
    Some(Frame::new("test_excluded_responses", None, cols))
}

/// The frames of the kept rows. They get the input columns themselves,
/// with the removed rows squeezed out in place, instead of copies: the
/// input table is dropped afterwards anyway, and the copies were several
/// hundred MB at 1M responses. `kept.rows` is in file order (every filter
/// keeps the order), which the in-place squeeze needs; any other order
/// falls back to copying, and so does a column that two frame columns need
/// (a subgroup that is also the id or candidate column).
fn kept_frames(exp: &Experiment, table: &mut Table, id_col: usize, kept: &Kept) -> Vec<Frame> {
    let cand_pos = table.position("candidate");
    let mut wanted: Vec<usize> = exp
        .subgroups
        .iter()
        .map(|g| table.position(g).expect("checked"))
        .chain([id_col])
        .chain(cand_pos)
        .collect();
    let n_wanted = wanted.len();
    wanted.sort_unstable();
    wanted.dedup();
    let in_order = wanted.len() == n_wanted && kept.rows.windows(2).all(|w| w[0] < w[1]);
    let kept_values = |table: &mut Table, pos: usize| -> Values {
        if in_order {
            let mut values =
                std::mem::replace(&mut table.columns[pos].values, Values::Float(Vec::new()));
            keep_rows(&mut values, kept.rows);
            values
        } else {
            table.columns[pos].values.take(kept.rows)
        }
    };
    let ids_kept = kept_values(table, id_col);
    let mut frames = vec![pred_processed_frame(&ids_kept, kept)];
    {
        let mut cols = vec![Column::new("spkitemid", ids_kept.clone())];
        for g in &exp.subgroups {
            let pos = table.position(g).expect("checked");
            cols.push(Column::new(g.clone(), kept_values(table, pos)));
        }
        if let Some(cpos) = cand_pos {
            cols.push(Column::new("candidate", kept_values(table, cpos)));
        }
        frames.push(Frame::new("test_metadata", None, cols));
    }
    {
        let produced: Vec<&str> = kept.scores.iter().map(|s| s.name).collect();
        let mut cols = Vec::new();
        for pos in 0..table.columns.len() {
            let n = table.columns[pos].name.clone();
            let skip = n == "sc1"
                || n == "sc2"
                || produced.contains(&n.as_str())
                || exp.subgroups.contains(&n)
                || n == "candidate";
            if skip {
                continue;
            }
            let values = if n == "raw" {
                Values::Float(kept.raw.to_vec())
            } else if pos == id_col {
                // The id column was already taken out above.
                ids_kept.clone()
            } else {
                kept_values(table, pos)
            };
            cols.push(Column::new(n, values));
        }
        frames.push(Frame::new("test_other_columns", None, cols));
    }
    if let Some(sc2) = kept.sc2 {
        frames.push(Frame::new(
            "test_human_scores",
            None,
            vec![
                // The last frame with the ids: move them rather than copy.
                Column::new("spkitemid", ids_kept),
                Column::new("sc1", Values::Float(kept.sc1.to_vec())),
                Column::new("sc2", Values::Float(sc2.to_vec())),
            ],
        ));
    }
    frames
}

/// `pred_processed`: ids, the first human score and every score type (the
/// rounded types as integers).
fn pred_processed_frame(ids_kept: &Values, kept: &Kept) -> Frame {
    let mut cols = vec![
        Column::new("spkitemid", ids_kept.clone()),
        Column::new("sc1", Values::Float(kept.sc1.to_vec())),
    ];
    for s in kept.scores {
        let values = if s.is_rounded() {
            Values::Int(s.values.iter().map(|&x| x as i64).collect())
        } else {
            Values::Float(s.values.clone())
        };
        cols.push(Column::new(s.name, values));
    }
    Frame::new("pred_processed", None, cols)
}

/// Keeps the rows `rows` of `values`, in place and without copying any
/// cell; `rows` must be strictly increasing. Row `rows[j]` moves to `j`: the
/// swap reads a slot no earlier step has written, since `rows[j] >= j` and
/// the earlier steps touched only slots below `rows[j]`.
fn keep_rows(values: &mut Values, rows: &[usize]) {
    fn squeeze<T>(v: &mut Vec<T>, rows: &[usize]) {
        for (j, &i) in rows.iter().enumerate() {
            v.swap(j, i);
        }
        v.truncate(rows.len());
    }
    match values {
        Values::Int(v) => squeeze(v, rows),
        Values::Float(v) => squeeze(v, rows),
        Values::Bool(v) => squeeze(v, rows),
        Values::Text(v) => squeeze(v, rows),
        Values::Mixed(v) => squeeze(v, rows),
    }
}

/// The first `limit` distinct ids that occur a second time, in the order
/// of their second occurrence: what one pass with a set of seen ids gives.
///
/// A set of ten million `&str` costs a cache miss per id (the set and the
/// text it points to are far apart); instead every id is hashed once in
/// order, the 64-bit hashes are partitioned by their top bits into
/// cache-sized buckets and sorted there, and only ids whose hash occurs
/// twice (the duplicates, plus a one-in-a-billion collision) go through the
/// set of text. Linear in the number of ids, and the answer is exact.
pub(crate) fn first_duplicates(ids: &[Option<Text>], limit: usize) -> Vec<&str> {
    fn text(id: &Option<Text>) -> &str {
        id.as_deref().unwrap_or("nan")
    }
    let (hashes, repeated) = hashed(ids.iter().map(text));
    if repeated.is_empty() {
        return Vec::new();
    }
    let mut seen: HashSet<&str, FxBuild> = HashSet::default();
    let mut dups: Vec<&str> = Vec::new();
    for (id, h) in ids.iter().zip(&hashes) {
        if !repeated.contains(h) {
            continue;
        }
        let id = text(id);
        if !seen.insert(id) && !dups.contains(&id) {
            dups.push(id);
            if dups.len() == limit {
                break;
            }
        }
    }
    dups
}

/// The items whose id repeats an earlier item's: how many, and the first
/// `limit` of them as (index of the first item with the id, index of the
/// repeat), in order. Only ids whose 64-bit hash occurs twice go through a
/// set of text, as in [`first_duplicates`]; the answer is exact.
pub(crate) fn repeats(ids: &[&str], limit: usize) -> (usize, Vec<(usize, usize)>) {
    let (hashes, repeated) = hashed(ids.iter().copied());
    if repeated.is_empty() {
        return (0, Vec::new());
    }
    let mut first: HashMap<&str, usize, FxBuild> = HashMap::default();
    let mut shown = Vec::new();
    let mut count = 0;
    for (i, (&id, h)) in ids.iter().zip(&hashes).enumerate() {
        if !repeated.contains(h) {
            continue;
        }
        match first.get(id) {
            Some(&j) => {
                count += 1;
                if shown.len() < limit {
                    shown.push((j, i));
                }
            }
            None => {
                first.insert(id, i);
            }
        }
    }
    (count, shown)
}

/// Every id's 64-bit hash, and the hashes that occur more than once (the
/// duplicates, plus a one-in-a-billion collision): only the ids with one
/// of those need a set of text.
fn hashed<'a>(ids: impl Iterator<Item = &'a str>) -> (Vec<u64>, HashSet<u64, FxBuild>) {
    use std::hash::BuildHasher;
    let build = FxBuild::default();
    let hashes: Vec<u64> = ids.map(|id| build.hash_one(id)).collect();
    let repeated = repeated_values(&hashes).into_iter().collect();
    (hashes, repeated)
}

/// Every value that occurs more than once in `values`, each once, in
/// ascending order. Values are spread over about `n / 16384` buckets by
/// their top bits (one counting pass, one scatter pass), and each bucket,
/// small enough for the cache, is sorted on its own.
pub(crate) fn repeated_values(values: &[u64]) -> Vec<u64> {
    let n = values.len();
    let bits = (usize::BITS - (n >> 14).leading_zeros()).min(16);
    let bucket = |v: u64| {
        if bits == 0 {
            0
        } else {
            (v >> (64 - bits)) as usize
        }
    };
    let mut starts = vec![0usize; (1 << bits) + 1];
    for &v in values {
        starts[bucket(v) + 1] += 1;
    }
    for b in 1..starts.len() {
        starts[b] += starts[b - 1];
    }
    let mut next = starts.clone();
    let mut sorted = vec![0u64; n];
    for &v in values {
        let b = bucket(v);
        sorted[next[b]] = v;
        next[b] += 1;
    }
    let mut repeated = Vec::new();
    for w in starts.windows(2) {
        let part = &mut sorted[w[0]..w[1]];
        part.sort_unstable();
        for pair in part.windows(2) {
            if pair[0] == pair[1] && repeated.last() != Some(&pair[0]) {
                repeated.push(pair[0]);
            }
        }
    }
    repeated
}

/// The message for duplicate ids: how many rows repeat an id, and the rows
/// of the first duplicates (spreadsheet numbering: the header is row 1).
pub(crate) fn duplicate_ids_message(
    ids: &[String],
    dups: &[&str],
    id_column: &str,
    source: &str,
) -> String {
    let mut counts: HashMap<&str, usize> = HashMap::with_capacity(ids.len());
    let mut rows: HashMap<&str, Vec<usize>> = dups.iter().map(|d| (*d, Vec::new())).collect();
    for (i, id) in ids.iter().enumerate() {
        *counts.entry(id.as_str()).or_default() += 1;
        if let Some(r) = rows.get_mut(id.as_str()) {
            r.push(i + 2);
        }
    }
    let repeated: usize = counts.values().map(|n| n - 1).sum();
    let shown: Vec<String> = dups
        .iter()
        .map(|id| {
            let r = &rows[id];
            let mut listed: Vec<String> = r.iter().take(3).map(usize::to_string).collect();
            if r.len() > 3 {
                listed.push(format!("... {} times in all", r.len()));
            }
            let name = if id.is_empty() {
                "'' (empty)".to_string()
            } else {
                format!("'{}'", id.escape_debug())
            };
            format!("{name} (rows {})", listed.join(", "))
        })
        .collect();
    format!(
        "duplicate response ids in the id column '{id_column}' (id_column) of {source}: \
         {repeated} row(s) repeat an earlier id; first duplicates: {} (rows are numbered with \
         the header as row 1); every response needs a unique id",
        shown.join(", ")
    )
}

/// Trimming of spec 2.11: above `hi` becomes `hi`, then below `lo` becomes `lo`.
#[inline]
pub fn trim_value(x: f64, lo: f64, hi: f64) -> f64 {
    let x = if x > hi { hi } else { x };
    if x < lo {
        lo
    } else {
        x
    }
}

/// Whether `text` is one of pandas' missing-value tokens.
fn is_na_token(text: &str) -> bool {
    const NA: [&str; 19] = [
        "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
        "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
    ];
    NA.contains(&text.trim())
}

/// Dictionary-encodes group values, labels in code-point order. One pass
/// numbers the values in order of first appearance (FxHash: a subgroup
/// column has millions of cells and a handful of values), then the codes
/// are renumbered in label order.
pub fn encode<'a>(name: &str, values: impl Iterator<Item = &'a str>) -> Grouping {
    let mut first: HashMap<&str, u32, FxBuild> = HashMap::default();
    let mut seen: Vec<&str> = Vec::new();
    let mut codes: Vec<u32> = values
        .map(|v| {
            *first.entry(v).or_insert_with(|| {
                seen.push(v);
                (seen.len() - 1) as u32
            })
        })
        .collect();
    let mut order: Vec<usize> = (0..seen.len()).collect();
    order.sort_by_key(|&k| seen[k]);
    let mut rank = vec![0u32; seen.len()];
    for (r, &k) in order.iter().enumerate() {
        rank[k] = r as u32;
    }
    for c in &mut codes {
        *c = rank[*c as usize];
    }
    Grouping {
        name: name.to_string(),
        labels: order.iter().map(|&k| seen[k].to_string()).collect(),
        codes,
    }
}

/// Scaling parameters from a scale file (spec 2.10).
fn scaling_from(table: &Table, source: &str) -> Result<Scaling> {
    let missing: Vec<&str> = ["sc1", "prediction"]
        .into_iter()
        .filter(|c| table.column(c).is_none())
        .collect();
    if !missing.is_empty() {
        let names: Vec<String> = table.names().into_iter().map(String::from).collect();
        let hints: Vec<String> = missing
            .iter()
            .map(|m| format!("'{m}'{}", column_hint(m, &names)))
            .collect();
        bail!(
            "the scale file {source} (scale_with) must have the columns 'sc1' (human scores) and \
             'prediction' (system scores); missing: {}; {}",
            hints.join(", "),
            has_columns(&names)
        );
    }
    if table.nrows == 0 {
        bail!(
            "the scale file {source} (scale_with) has a header but no data rows; it needs the \
             human scores ('sc1') and system scores ('prediction') of a reference sample"
        );
    }
    let pred = table
        .column("prediction")
        .expect("checked")
        .values
        .to_numeric();
    let human = table.column("sc1").expect("checked").values.to_numeric();
    let (pred_mean, pred_sd) = summary::nan_mean_sd(&pred);
    let (human_mean, human_sd) = summary::nan_mean_sd(&human);
    if !(pred_sd.is_finite() && pred_sd > 0.0) {
        bail!(
            "the scale file {source} cannot be used for scaling: column 'prediction' needs at least \
             two different numeric values (its standard deviation is {pred_sd})"
        );
    }
    if human_mean.is_nan() {
        bail!(
            "the scale file {source} cannot be used for scaling: column 'sc1' has no numeric value"
        );
    }
    Ok(Scaling {
        pred_mean,
        pred_sd,
        human_mean,
        human_sd,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trimming_clamps_to_the_padded_bounds() {
        assert_eq!(trim_value(0.2, 0.5002, 6.4998), 0.5002);
        assert_eq!(trim_value(7.0, 0.5002, 6.4998), 6.4998);
        assert_eq!(trim_value(3.3, 0.5002, 6.4998), 3.3);
    }

    #[test]
    fn rounding_at_the_trim_bounds_is_half_to_even() {
        // tolerance 0.5, trim range [1, 4]: 0.5 -> 0, 4.5 -> 4; 2.5 -> 2
        let lo = 1.0 - 0.5;
        let hi = 4.0 + 0.5;
        assert_eq!(round_half_even(trim_value(-3.0, lo, hi)), 0.0);
        assert_eq!(round_half_even(trim_value(9.0, lo, hi)), 4.0);
        assert_eq!(round_half_even(2.5), 2.0);
        assert_eq!(round_half_even(3.5), 4.0);
        // default tolerance keeps the bounds inside [1, 4]
        assert_eq!(round_half_even(trim_value(-3.0, 1.0 - 0.4998, hi)), 1.0);
    }

    #[test]
    fn flag_values_compare_numerically_or_as_text() {
        let allowed = [FlagValue::Number(1.0), FlagValue::Text("ok".into())];
        let col = Values::Text(vec![
            Some(" 1".into()),
            Some("1.0".into()),
            Some("ok".into()),
            Some("2".into()),
            None,
        ]);
        let got: Vec<bool> = (0..5)
            .map(|i| flag_matches(&flag_key(&col, i), &allowed))
            .collect();
        assert_eq!(got, [true, true, true, false, false]);
        let ints = Values::Int(vec![1, 0]);
        assert!(flag_matches(&flag_key(&ints, 0), &allowed));
        assert!(!flag_matches(&flag_key(&ints, 1), &allowed));
    }

    #[test]
    fn column_messages_give_hints() {
        let names: Vec<String> = ["id", "H1 ", "system_score"].map(String::from).to_vec();
        assert!(column_hint("h1", &names).contains("did you mean 'H1 '?"));
        assert!(column_hint("system_scor", &names).contains("did you mean 'system_score'?"));
        assert_eq!(column_hint("xy", &names), "");
        assert!(separator_hint(&["id;sys;h1".to_string()]).contains("';' as separator"));
        assert_eq!(separator_hint(&names), "");
        let many: Vec<String> = (0..50).map(|i| format!("c{i}")).collect();
        assert!(has_columns(&many).ends_with("'c39' and 10 more"));
        assert_eq!(has_columns(&[]), "the file has no columns");
        assert_eq!(
            removed_counts(&[(0, "a".into()), (2, "b".into()), (1, "c".into())]),
            ": 2 b, 1 c"
        );
    }

    #[test]
    fn encode_sorts_labels_by_code_point() {
        let g = encode("L1", ["b", "No info", "a", "b", "Afr"].into_iter());
        assert_eq!(g.labels, ["Afr", "No info", "a", "b"]);
        assert_eq!(g.codes, [3, 1, 2, 3, 0]);
        assert_eq!(g.counts(), [1, 1, 1, 2]);

        // Any values: the labels are the sorted distinct values, and every
        // code names its own value.
        let pool = ["é", "Z", "a", "", "No info", "b b", "10", "9"];
        let mut rng = rsmreport_metrics::test_util::Lcg(3);
        let values: Vec<&str> = (0..500)
            .map(|_| pool[(rng.next() * pool.len() as f64) as usize])
            .collect();
        let g = encode("g", values.iter().copied());
        let mut distinct: Vec<&str> = values.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(g.labels, distinct);
        for (v, &c) in values.iter().zip(&g.codes) {
            assert_eq!(g.labels[c as usize], *v);
        }
    }

    #[test]
    fn keep_rows_squeezes_in_place_like_take() {
        let v = Values::Text((0..6).map(|i| Some(i.to_string().into())).collect());
        for rows in [
            vec![],
            vec![0, 1, 2, 3, 4, 5],
            vec![1, 2, 5],
            vec![0, 4],
            vec![5],
        ] {
            let mut w = v.clone();
            keep_rows(&mut w, &rows);
            assert_eq!(w, v.take(&rows));
        }
    }

    #[test]
    fn repeated_values_finds_each_repeat_once() {
        assert_eq!(repeated_values(&[]), Vec::<u64>::new());
        assert_eq!(repeated_values(&[7]), Vec::<u64>::new());
        assert_eq!(repeated_values(&[3, 1, 3, 2, 3, 1]), vec![1, 3]);
        // Enough values for many buckets, with repeats in several of them.
        let mut rng = rsmreport_metrics::test_util::Lcg(11);
        let mut values: Vec<u64> = (0..100_000).map(|_| rng.next_u64()).collect();
        for (k, i) in [5usize, 99_999, 40_000, 5].into_iter().enumerate() {
            values.push(values[i]);
            values.swap(100_000 + k, 17 * k + 1);
        }
        let mut naive: HashMap<u64, usize> = HashMap::new();
        for v in &values {
            *naive.entry(*v).or_default() += 1;
        }
        let mut want: Vec<u64> = naive
            .into_iter()
            .filter(|(_, c)| *c > 1)
            .map(|(v, _)| v)
            .collect();
        want.sort_unstable();
        assert_eq!(want.len(), 3, "the three distinct repeated values");
        assert_eq!(repeated_values(&values), want);
    }

    #[test]
    fn first_duplicates_match_one_pass_with_a_set() {
        // The reference behaviour: one pass, a set of seen ids, duplicates in
        // the order of their second occurrence, each once.
        fn naive(ids: &[Option<Text>], limit: usize) -> Vec<String> {
            let mut seen = HashSet::new();
            let mut dups: Vec<String> = Vec::new();
            for id in ids.iter().map(|id| id.as_deref().unwrap_or("nan")) {
                if !seen.insert(id) && !dups.iter().any(|d| d == id) {
                    dups.push(id.to_string());
                    if dups.len() == limit {
                        break;
                    }
                }
            }
            dups
        }
        let mut rng = rsmreport_metrics::test_util::Lcg(5);
        for round in 0..40 {
            let n = [0, 1, 10, 1000, 40_000][round % 5];
            let space = if round % 2 == 0 {
                n * 50 + 1
            } else {
                n / 3 + 1
            };
            let ids: Vec<Option<Text>> = (0..n)
                .map(|_| {
                    let k = rng.next_u64() as usize % space;
                    (k != 0).then(|| Text::from(format!("R{k}")))
                })
                .collect();
            for limit in [1, 5] {
                let got: Vec<String> = first_duplicates(&ids, limit)
                    .into_iter()
                    .map(String::from)
                    .collect();
                assert_eq!(got, naive(&ids, limit), "n = {n}, round {round}");
            }
        }
    }
}

/// Each step of [`prepare`] on its own, on small hand-made tables.
#[cfg(test)]
mod step_tests {
    use super::*;
    use rsmreport_core::table::text_values;

    /// An experiment with columns id, h1, h2, sys (+ `extra` keys); the
    /// temp folder holds the (unread) predictions file.
    fn exp(extra: &str) -> (tempfile::TempDir, Experiment) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("p.csv"), "x\n").unwrap();
        let text = format!(
            "experiment_id = \"t\"\npredictions_file = \"p.csv\"\nid_column = \"id\"\n\
             human_score_column = \"h1\"\nsystem_score_column = \"sys\"\ntrim_min = 1\n\
             trim_max = 4\n{extra}"
        );
        let path = dir.path().join("exp.toml");
        let raw =
            rsmreport_config::parse(&text, rsmreport_config::ConfigKind::Toml, &path).unwrap();
        (dir, rsmreport_config::validate(raw, &path).unwrap())
    }

    fn text(cells: &[&str]) -> Values {
        text_values(
            cells
                .iter()
                .map(|c| if c.is_empty() { None } else { Some(*c) }),
        )
    }

    fn table(cols: Vec<(&str, Values)>) -> Table {
        let nrows = cols.first().map_or(0, |c| c.1.len());
        Table {
            columns: cols.into_iter().map(|(n, v)| Column::new(n, v)).collect(),
            nrows,
        }
    }

    /// id a..e, h1 = 1 NS 0 3 4, sys = 1.2 2 3 x 9.
    fn five() -> Table {
        table(vec![
            ("id", text(&["a", "b", "c", "d", "e"])),
            ("h1", text(&["1", "NS", "0", "3", "4"])),
            ("sys", text(&["1.2", "2", "3", "x", "9"])),
        ])
    }

    fn err<T>(r: Result<T>) -> String {
        match r {
            Ok(_) => panic!("expected an error"),
            Err(e) => format!("{e:#}"),
        }
    }

    #[test]
    fn check_configured_columns_names_the_key_and_the_empty_file() {
        let (_d, e) = exp("");
        let t = table(vec![("id", text(&["a"])), ("h1", text(&["1"]))]);
        let roles = Roles::new(&e, &t, "p.csv");
        let m = err(check_configured_columns(&roles, &t));
        assert!(m.contains("configured column 'sys' (system_score_column) is absent from the predictions file p.csv"), "{m}");
        let t = table(vec![
            ("id", text(&[])),
            ("h1", text(&[])),
            ("sys", text(&[])),
        ]);
        let m = err(check_configured_columns(&Roles::new(&e, &t, "p.csv"), &t));
        assert!(m.contains("has a header but no data rows"), "{m}");
    }

    #[test]
    fn rename_reserved_moves_reserved_names_aside() {
        let (_d, e) = exp("");
        let mut t = five();
        t.columns.push(Column::new("sc1", text(&["9"; 5])));
        let roles = Roles::new(&e, &t, "p.csv");
        rename_reserved(&roles, &mut t);
        assert_eq!(t.names(), ["spkitemid", "sc1", "raw", "##sc1##"]);
    }

    #[test]
    fn check_duplicate_ids_reads_missing_ids_as_nan_and_refuses_repeats() {
        let (_d, e) = exp("");
        let mut t = table(vec![("spkitemid", text(&["a", "", "c"]))]);
        assert_eq!(check_duplicate_ids(&e, &mut t, "p.csv").unwrap(), 0);
        assert_eq!(t.columns[0].values, text(&["a", "nan", "c"]));
        let mut t = table(vec![("spkitemid", text(&["a", "b", "a"]))]);
        let m = err(check_duplicate_ids(&e, &mut t, "p.csv"));
        assert!(m.contains("'a'") && m.contains("id"), "{m}");
    }

    #[test]
    fn prepare_subgroups_fills_no_info_and_refuses_all_data() {
        let (_d, e) = exp("subgroups = [\"g\"]\n");
        let mut t = table(vec![
            ("g", Values::Int(vec![1, 2])),
            ("id", text(&["a", "b"])),
        ]);
        let roles = Roles::new(&e, &t, "p.csv");
        prepare_subgroups(&e, &roles, &mut t).unwrap();
        assert_eq!(t.columns[0].values, text(&["1", "2"]));
        let mut t = table(vec![("g", text(&["x", " "])), ("id", text(&["a", "b"]))]);
        prepare_subgroups(&e, &roles, &mut t).unwrap();
        assert_eq!(t.columns[0].values, text(&["x", NO_INFO]));
        let mut t = table(vec![("g", text(&["x", "All data"]))]);
        let m = err(prepare_subgroups(&e, &roles, &mut t));
        assert!(m.contains("'All data' (row 3)"), "{m}");
        let mut t = table(vec![("id", text(&["a"]))]);
        let m = err(prepare_subgroups(&e, &roles, &mut t));
        assert!(
            m.contains("subgroup column(s) absent") && m.contains("'g'"),
            "{m}"
        );
    }

    #[test]
    fn filter_flags_keeps_allowed_rows_in_order() {
        let (_d, e) = exp("flag_column = { f = [1, \"ok\"] }\n");
        let t = table(vec![("f", text(&["1", "2", "ok", "1.0"]))]);
        let roles = Roles::new(&e, &t, "p.csv");
        assert_eq!(
            filter_flags(&e, &roles, &t).unwrap(),
            (vec![0, 2, 3], vec![1])
        );
        let t = table(vec![("f", text(&["2", "3"]))]);
        let m = err(filter_flags(&e, &roles, &t));
        assert!(m.contains("'f' allows 1, 'ok' and matches 0 row(s)"), "{m}");
        let (_d, none) = exp("");
        assert_eq!(
            filter_flags(&none, &roles, &t).unwrap(),
            (vec![0, 1], vec![])
        );
    }

    #[test]
    fn human_and_system_filters_in_the_references_order() {
        let (_d, e) = exp("");
        let mut t = five();
        rename_reserved(&Roles::new(&e, &t, "p.csv"), &mut t);
        let scores = RawScores::of(&t);
        let human = filter_human_scores(&e, &t, &scores, &[0, 1, 2, 3, 4], 0, "p.csv").unwrap();
        assert_eq!(human.kept, [0, 3, 4]);
        assert_eq!(
            human.excluded,
            [(Exclusion::NonNumericHuman, 1), (Exclusion::ZeroHuman, 2)]
        );
        let system = filter_system_scores(&e, &t, &scores, &human, 0, "p.csv").unwrap();
        assert_eq!(system.kept, [0, 4]);
        assert_eq!(system.excluded, [(Exclusion::NonNumericSystem, 3)]);
        let m = err(filter_human_scores(&e, &t, &scores, &[1, 2], 0, "p.csv"));
        assert!(
            m.contains("and zero human scores") && m.contains("'NS'"),
            "{m}"
        );
        let only_bad = HumanFiltered {
            kept: vec![3],
            excluded: Vec::new(),
            n_non_numeric: 0,
            n_zero: 0,
        };
        let m = err(filter_system_scores(&e, &t, &scores, &only_bad, 0, "p.csv"));
        assert!(
            m.contains("non-numeric system score in column 'sys'") && m.contains("'x'"),
            "{m}"
        );
    }

    #[test]
    fn exclude_listwise_drops_candidates_with_too_few_responses() {
        let (_d, e) = exp("candidate_column = \"c\"\nmin_items_per_candidate = 2\n");
        let t = table(vec![("candidate", text(&["p", "q", "p", "r"]))]);
        let mut excluded = Vec::new();
        let kept = exclude_listwise(&e, &t, vec![0, 1, 2, 3], &mut excluded, "p.csv").unwrap();
        assert_eq!(kept, [0, 2]);
        assert_eq!(
            excluded,
            [(Exclusion::Listwise, 1), (Exclusion::Listwise, 3)]
        );
        let m = err(exclude_listwise(
            &e,
            &t,
            vec![1, 3],
            &mut Vec::new(),
            "p.csv",
        ));
        assert!(m.contains("the most any candidate has is 1"), "{m}");
    }

    #[test]
    fn score_types_trim_round_and_scale() {
        let (_d, e) = exp("");
        let s = score_types(&e, &[0.2, 2.5, 7.0], &Scaling::default());
        let names: Vec<&str> = s.iter().map(|c| c.name).collect();
        assert_eq!(names, ["raw", "raw_trim", "raw_trim_round"]);
        assert_eq!(s[1].values, [1.0 - 0.4998, 2.5, 4.0 + 0.4998]);
        assert_eq!(s[2].values, [1.0, 2.0, 4.0]);
        let (_d, asis) = exp("scale_with = \"asis\"\n");
        let s = score_types(&asis, &[2.0], &Scaling::default());
        assert_eq!(
            s.iter().map(|c| c.name).collect::<Vec<_>>(),
            ["scale", "scale_trim", "scale_trim_round"]
        );
        let scaling = Scaling {
            pred_mean: 1.0,
            pred_sd: 2.0,
            human_mean: 3.0,
            human_sd: 1.0,
        };
        let (_d, raw) = exp("scale_with = \"raw\"\n");
        let s = score_types(&raw, &[3.0], &scaling);
        assert_eq!(s.len(), 6);
        // (3 - 1) / 2 * 1 + 3 = 4.
        assert_eq!(s[3].values, [4.0]);
    }

    #[test]
    fn second_human_scores_count_non_numeric_values() {
        let (_d, e) = exp("");
        let t = table(vec![("sc2", text(&["2", "0", "bad", "", "NA", "3"]))]);
        let (sc2, bad) = second_human_scores(&e, &t, &[0, 1, 2, 3, 4, 5]);
        let sc2 = sc2.unwrap();
        assert_eq!((sc2[0], sc2[5]), (2.0, 3.0));
        // Zero (exclude_zero_scores), text, empty and NA are all missing;
        // only the text counts as non-numeric.
        assert!(sc2[1..5].iter().all(|x| x.is_nan()));
        assert_eq!(bad, 1);
        let t = table(vec![("id", text(&["a"]))]);
        assert_eq!(second_human_scores(&e, &t, &[0]), (None, 0));
    }

    #[test]
    fn groups_and_candidates_of_the_kept_rows() {
        let (_d, e) = exp("subgroups = [\"g\"]\n");
        let t = table(vec![
            ("g", text(&["x", "y", "x"])),
            ("candidate", text(&["p", "p", "q"])),
        ]);
        let g = kept_groups(&e, &t, &[0, 2]);
        assert_eq!(g[0].labels, ["x"]);
        assert_eq!(g[0].codes, [0, 0]);
        assert_eq!(count_candidates(&t, &[0, 1]), Some(1));
        assert_eq!(count_candidates(&t, &[0, 2]), Some(2));
        assert_eq!(
            count_candidates(&table(vec![("g", text(&["x"]))]), &[0]),
            None
        );
    }

    #[test]
    fn build_frames_in_the_references_order() {
        let (_d, e) = exp("");
        let mut t = five();
        t.columns
            .push(Column::new("note", text(&["n1", "n2", "n3", "n4", "n5"])));
        rename_reserved(&Roles::new(&e, &t, "p.csv"), &mut t);
        let scores_in = RawScores::of(&t);
        let rows = [0, 4];
        let (sc1, raw) = (vec![1.0, 4.0], vec![1.2, 9.0]);
        let scores = score_types(&e, &raw, &Scaling::default());
        let kept = Kept {
            rows: &rows,
            sc1: &sc1,
            raw: &raw,
            sc2: None,
            scores: &scores,
        };
        let excluded = [(Exclusion::NonNumericHuman, 1)];
        let frames = build_frames(&e, t, 0, &kept, &scores_in, &excluded, &[2, 3]);
        let names: Vec<&str> = frames.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "pred_processed",
                "test_metadata",
                "test_other_columns",
                "test_excluded_responses",
                "test_responses_with_excluded_flags"
            ]
        );
        assert_eq!(frames[0].columns[0].values, text(&["a", "e"]));
        assert_eq!(
            frames[0].column("raw_trim_round").unwrap().values,
            Values::Int(vec![1, 4])
        );
        // Other columns in file order (`raw` is a score type, so it is in
        // pred_processed); the excluded rows' columns sorted by name.
        let other: Vec<&str> = frames[2].columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(other, ["spkitemid", "note"]);
        let ex: Vec<&str> = frames[3].columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(ex, ["spkitemid", "note", "raw", "sc1"]);
        assert_eq!(frames[4].columns[0].values, text(&["c", "d"]));
    }
}
