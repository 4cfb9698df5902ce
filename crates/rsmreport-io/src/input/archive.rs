//! Stage 2 (input): an archived experiment folder, the input of `compare`
//! and `summarize` (compare spec 1). The folder of `rsmreport build` or of
//! RSMTool's `rsmeval`/`rsmtool` (version 7 or later; same file names):
//! only its `output/` subfolder is read. The experiment id comes from the
//! saved configuration (`<id>_rsmeval.json` or `<id>_rsmtool.json`), the
//! table format (csv, tsv, xlsx) from the files; every table is optional
//! except `eval`, and a table that is present must have the reference's
//! columns. A summary (`<id>_summary.json`) of a newer format than this
//! rsmreport knows is refused ([`crate::summary::check_version`]); the
//! folders of the other kinds are named by the kind that wrote them, also
//! those of releases whose summary had another name
//! ([`crate::summary::LEGACY`]).
//!
//! Reads files; writes nothing; computes no statistic (the commands
//! recompute them from the per-response tables with the metric code of
//! `build`).

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::anyhow;
use serde_json::{Map, Value};

use rsmreport_core::table::{FxBuild, Table, Text};

/// The tables read from a folder (besides the by-group ones), in the
/// order of compare spec 1.
pub const TABLES: [&str; 12] = [
    "eval",
    "eval_short",
    "consistency",
    "degradation",
    "disattenuated_correlations",
    "true_score_eval",
    "confMatrix",
    "score_dist",
    "pred_processed",
    "test_human_scores",
    "test_metadata",
    "test_excluded_composition",
];

/// The by-group tables read for every subgroup `g` (`<name>_<g>`).
pub const GROUP_TABLES: [&str; 3] = ["eval_by", "consistency_by", "fairness_metrics_by"];

/// The header of a table's row labels (the reference writes an unnamed
/// first column; the readers name it as pandas does).
pub const INDEX: &str = "Unnamed: 0";

/// What kind of failure a bad folder is: a path or choice the user gave
/// (exit 2) or a file that is not what it should be (exit 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    Usage,
    Data,
}

/// A folder that cannot be read, with what is wrong.
#[derive(Debug)]
pub struct ArchiveError {
    pub problem: Problem,
    pub error: anyhow::Error,
}

impl fmt::Display for ArchiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#}", self.error)
    }
}

impl std::error::Error for ArchiveError {}

impl ArchiveError {
    /// The error with its class marked (`rsmreport_core::error`): a usage problem
    /// is a configuration error (exit 2), any other a data error (exit 1).
    pub fn classified(self) -> anyhow::Error {
        match self.problem {
            Problem::Usage => rsmreport_core::error::config(self.error),
            Problem::Data => self.error,
        }
    }
}

fn usage(error: anyhow::Error) -> ArchiveError {
    ArchiveError {
        problem: Problem::Usage,
        error,
    }
}

fn data(error: anyhow::Error) -> ArchiveError {
    ArchiveError {
        problem: Problem::Data,
        error,
    }
}

/// The table format of a folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    Tsv,
    Xlsx,
}

impl Format {
    fn of_extension(ext: &str) -> Option<Format> {
        match ext {
            "csv" => Some(Format::Csv),
            "tsv" => Some(Format::Tsv),
            "xlsx" => Some(Format::Xlsx),
            _ => None,
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Tsv => "tsv",
            Format::Xlsx => "xlsx",
        }
    }
}

/// Which program wrote the folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Producer {
    /// `rsmreport`, `rsmeval` or `rsmtool`.
    pub name: String,
    /// Its version, when the folder records it (`summary.json`).
    pub version: Option<String>,
}

/// An archived experiment folder.
#[derive(Debug)]
pub struct Archive {
    /// The folder as given.
    pub dir: PathBuf,
    /// Its `output/` subfolder (or the folder itself when it is one).
    pub output: PathBuf,
    pub id: String,
    pub producer: Producer,
    pub format: Format,
    /// The saved configuration and the file it was read from.
    pub config: Map<String, Value>,
    pub config_file: PathBuf,
    /// `<id>_summary.json` (rsmreport only).
    pub summary: Option<Value>,
    /// The subgroups: those of the saved configuration, else those named
    /// by by-group tables.
    pub subgroups: Vec<String>,
    /// The tables found, by name without the id prefix (`eval_by_L1`).
    pub tables: BTreeMap<String, Table>,
    /// The tables of [`TABLES`] and [`GROUP_TABLES`] not in the folder.
    pub missing: Vec<String>,
}

impl Archive {
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.get(name)
    }

    /// The side's label: the `model_version` of the saved configuration
    /// when it has one, else the experiment id (compare spec 2).
    pub fn label(&self) -> &str {
        match self.config.get("model_version") {
            Some(Value::String(v)) if !v.is_empty() => v,
            _ => &self.id,
        }
    }

    /// Whether the folder's `eval` table has a row for `score_type`.
    pub fn evaluates(&self, score_type: &str) -> bool {
        self.table("eval")
            .is_some_and(|e| e.value_at(score_type, "N").is_some())
    }

    /// Every file this reader read from the folder: the saved
    /// configuration, the summary and each table found (the inputs whose
    /// checksums a comparison records).
    pub fn files_read(&self) -> Vec<PathBuf> {
        let mut files = vec![self.config_file.clone()];
        if self.summary.is_some() {
            files.push(self.output.join(crate::summary::file_name(&self.id)));
        }
        files.extend(self.tables.keys().map(|name| self.path_of(name)));
        files
    }

    /// The path of table `name` in this folder's format.
    pub fn path_of(&self, name: &str) -> PathBuf {
        table_path(&self.output, &self.id, name, self.format)
    }
}

/// The per-response data of a folder (compare spec 1), in the order of
/// `pred_processed`: what the paired analyses recompute every statistic
/// from.
#[derive(Clone, Debug)]
pub struct Responses {
    pub ids: Vec<Text>,
    /// The first human score.
    pub sc1: Vec<f64>,
    /// The second human score by id from `test_human_scores` (`NaN` where
    /// there is none); `None` without that file or its `sc2` column, or
    /// when no response has one (as the build's tables then leave
    /// consistency, degradation and PRMSE undefined).
    pub sc2: Option<Vec<f64>>,
    /// The score types: every column of `pred_processed` after `spkitemid`
    /// and `sc1`, in file order.
    pub scores: Vec<(String, Vec<f64>)>,
    /// The subgroup columns of `test_metadata` by id.
    pub groups: Vec<GroupColumn>,
    /// Each response's test taker (codes in order of first appearance)
    /// from the `candidate` column of `test_metadata`; `None` without one.
    pub candidates: Option<Vec<u32>>,
    /// The saved configuration's `rater_error_variance`: the PRMSE of the
    /// build used it in place of the one estimated from `sc1` and `sc2`.
    pub rater_error_variance: Option<f64>,
}

/// A subgroup column: its name and each response's value (`None` where the
/// response has no value or is not listed).
pub type GroupColumn = (String, Vec<Option<Text>>);

impl Responses {
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub fn score(&self, name: &str) -> Option<&[f64]> {
        self.scores
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }
}

impl Archive {
    /// The stored interval of `metric` in row `row` of the `<table>_ci`
    /// table an rsmreport build writes beside `table`; `None` without that
    /// table, row or a finite interval, or when `level` is given and the
    /// interval is at another level.
    pub fn stored_interval(
        &self,
        (table, row, metric): (&str, &str, &str),
        level: Option<f64>,
    ) -> Option<(f64, f64)> {
        let t = self.table(&format!("{table}_ci"))?;
        let (rows, metrics) = (t.column("row")?, t.column("metric")?);
        let text = |c: &rsmreport_core::table::Column, i: usize| match c.values.cell(i) {
            rsmreport_core::table::Cell::Text(s) => s,
            _ => String::new(),
        };
        let i = (0..t.nrows).find(|&i| text(rows, i) == row && text(metrics, i) == metric)?;
        if let Some(level) = level {
            let stored = t.column("level")?.values.to_numeric()[i];
            if (stored - level).abs() > 1e-12 {
                return None;
            }
        }
        let lo = t.column("lower")?.values.to_numeric()[i];
        let hi = t.column("upper")?.values.to_numeric()[i];
        (lo.is_finite() && hi.is_finite()).then_some((lo, hi))
    }

    /// The saved configuration's `rater_error_variance`: a number, or
    /// numeric text as a build saves `rater_error_variance = "0.5"`
    /// (absent or `null`: none).
    pub fn rater_error_variance(&self) -> Option<f64> {
        config_number(self.config.get("rater_error_variance")?)
    }

    /// The folder's per-response data, `None` without `pred_processed`.
    /// Ids must be unique and present (a data error names the file).
    pub fn responses(&self) -> Result<Option<Responses>, ArchiveError> {
        let Some(pred) = self.table("pred_processed") else {
            return Ok(None);
        };
        let pred_path = self.path_of("pred_processed");
        let ids = id_column(&pred_path, pred)?;
        let row_of = unique_rows(&pred_path, &ids)?;
        // Every score of pred_processed is a number (the build wrote only
        // the responses it evaluated); a second human score may be blank.
        let sc1 = numeric_column(&pred_path, pred, "sc1", false)?;
        let scores = pred
            .columns
            .iter()
            .filter(|c| c.name != "spkitemid" && c.name != "sc1")
            .map(|c| {
                Ok((
                    c.name.clone(),
                    numeric_column(&pred_path, pred, &c.name, false)?,
                ))
            })
            .collect::<Result<_, ArchiveError>>()?;
        let sc2 = match self.table("test_human_scores") {
            Some(t) if t.column("sc2").is_some() => {
                let path = self.path_of("test_human_scores");
                let values = numeric_column(&path, t, "sc2", true)?;
                Some(by_id(&path, t, &ids, &row_of, |i| values[i], f64::NAN)?)
                    .filter(|v| v.iter().any(|x| !x.is_nan()))
            }
            _ => None,
        };
        let (groups, candidates) = match self.table("test_metadata") {
            Some(t) => (
                self.group_columns(t, &ids, &row_of)?,
                self.candidate_codes(t, &ids, &row_of)?,
            ),
            None => (Vec::new(), None),
        };
        Ok(Some(Responses {
            ids,
            sc1,
            sc2,
            scores,
            groups,
            candidates,
            rater_error_variance: self.rater_error_variance(),
        }))
    }

    /// The test takers of `test_metadata`'s `candidate` column by id, as
    /// codes in order of first appearance (a response without one is its
    /// own test taker).
    fn candidate_codes(
        &self,
        meta: &Table,
        ids: &[Text],
        row_of: &HashMap<Text, usize, FxBuild>,
    ) -> Result<Option<Vec<u32>>, ArchiveError> {
        let Some(col) = meta.column("candidate") else {
            return Ok(None);
        };
        let cells = text_column(&col.values);
        let path = self.path_of("test_metadata");
        let values = by_id(&path, meta, ids, row_of, |i| cells[i].clone(), None)?;
        let mut code: HashMap<Text, u32, FxBuild> = HashMap::default();
        let mut next = 0u32;
        let mut fresh = || {
            next += 1;
            next - 1
        };
        let codes = values
            .into_iter()
            .map(|v| match v {
                Some(t) => *code.entry(t).or_insert_with(&mut fresh),
                None => fresh(),
            })
            .collect();
        Ok(Some(codes))
    }

    /// The subgroup columns of `test_metadata`, by id.
    fn group_columns(
        &self,
        meta: &Table,
        ids: &[Text],
        row_of: &HashMap<Text, usize, FxBuild>,
    ) -> Result<Vec<GroupColumn>, ArchiveError> {
        let path = self.path_of("test_metadata");
        let mut out = Vec::new();
        for g in &self.subgroups {
            let Some(col) = meta.column(g) else { continue };
            let cells = text_column(&col.values);
            let values = by_id(&path, meta, ids, row_of, |i| cells[i].clone(), None)?;
            out.push((g.clone(), values));
        }
        Ok(out)
    }
}

/// The numbers of column `name` of the per-response table `t` (read from
/// `path`): a cell that is not a number, or a blank one unless `blank_ok`
/// (NaN then), is a data error naming the file, the column and the first
/// rows (compare spec 5: a corrupt archive never becomes a silent n/a).
fn numeric_column(
    path: &Path,
    t: &Table,
    name: &str,
    blank_ok: bool,
) -> Result<Vec<f64>, ArchiveError> {
    use rsmreport_core::table::Cell;
    let Some(col) = t.column(name) else {
        return Ok(Vec::new());
    };
    let values = col.values.to_numeric();
    let mut bad: Vec<String> = Vec::new();
    let mut count = 0usize;
    for (i, v) in values.iter().enumerate() {
        if !v.is_nan() {
            continue;
        }
        let what = match col.values.cell(i) {
            Cell::Missing if blank_ok => continue,
            Cell::Missing => "blank".to_string(),
            Cell::Text(s) if s.trim().is_empty() && blank_ok => continue,
            Cell::Text(s) if s.trim().is_empty() => "blank".to_string(),
            Cell::Text(s) => format!("{s:?}"),
            other => format!("{other:?}"),
        };
        count += 1;
        if bad.len() < 5 {
            bad.push(format!("row {}: {what}", i + 2));
        }
    }
    if count == 0 {
        return Ok(values);
    }
    let expected = if blank_ok {
        "a number or a blank cell"
    } else {
        "a number"
    };
    Err(data(anyhow!(
        "{}: column {name}: {count} cell{} {} not {expected} ({}{}); every cell of this column \
         of an output folder is {expected}, so the folder was damaged or edited after the run \
         that wrote it",
        path.display(),
        if count == 1 { "" } else { "s" },
        if count == 1 { "is" } else { "are" },
        bad.join(", "),
        if count > bad.len() { ", ..." } else { "" }
    )))
}

/// The `spkitemid` column as text.
fn id_column(path: &Path, t: &Table) -> Result<Vec<Text>, ArchiveError> {
    let col = t
        .column("spkitemid")
        .ok_or_else(|| data(anyhow!("{}: no column spkitemid", path.display())))?;
    text_column(&col.values)
        .into_iter()
        .enumerate()
        .map(|(i, id)| {
            id.ok_or_else(|| {
                data(anyhow!(
                    "{}: row {} has no spkitemid",
                    path.display(),
                    i + 2
                ))
            })
        })
        .collect()
}

/// A column as text cells; a text column's cells are shared, not copied.
fn text_column(values: &rsmreport_core::table::Values) -> Vec<Option<Text>> {
    match values {
        rsmreport_core::table::Values::Text(cells) => cells.clone(),
        other => (0..other.len()).map(|i| cell_text(other.cell(i))).collect(),
    }
}

/// A cell as text (ids and subgroup values are read as text; the other
/// kinds only for robustness), `None` when missing.
fn cell_text(cell: rsmreport_core::table::Cell) -> Option<Text> {
    use rsmreport_core::table::Cell;
    match cell {
        Cell::Missing => None,
        Cell::Text(s) => Some(Text::from(s)),
        Cell::Int(i) => Some(Text::from(i.to_string())),
        Cell::Float(x) => Some(Text::from(x.to_string())),
        Cell::Bool(b) => Some(Text::from(b.to_string())),
    }
}

/// Row of each id; a repeated id is a data error.
fn unique_rows(path: &Path, ids: &[Text]) -> Result<HashMap<Text, usize, FxBuild>, ArchiveError> {
    let mut rows = HashMap::with_capacity_and_hasher(ids.len(), FxBuild::default());
    for (i, id) in ids.iter().enumerate() {
        if rows.insert(id.clone(), i).is_some() {
            return Err(data(anyhow!(
                "{}: the id {id} is listed twice (ids of an output folder are unique)",
                path.display()
            )));
        }
    }
    Ok(rows)
}

/// `value(i)` of each row `i` of `t` placed at its id's row of
/// `pred_processed` (`ids`, located by `row_of`); `missing` for responses
/// `t` does not list. Files written by one run list the ids in the same
/// order: then no id is looked up.
fn by_id<T: Clone>(
    path: &Path,
    t: &Table,
    ids: &[Text],
    row_of: &HashMap<Text, usize, FxBuild>,
    value: impl Fn(usize) -> T,
    missing: T,
) -> Result<Vec<T>, ArchiveError> {
    let other = id_column(path, t)?;
    if other == ids {
        return Ok((0..ids.len()).map(value).collect());
    }
    let mut out = vec![missing; ids.len()];
    let mut seen = vec![false; ids.len()];
    for (i, id) in other.iter().enumerate() {
        if let Some(&r) = row_of.get(id) {
            if std::mem::replace(&mut seen[r], true) {
                return Err(data(anyhow!(
                    "{}: the id {id} is listed twice (row {}; ids of an output folder are unique)",
                    path.display(),
                    i + 2
                )));
            }
            out[r] = value(i);
        }
    }
    Ok(out)
}

fn table_path(output: &Path, id: &str, name: &str, format: Format) -> PathBuf {
    output.join(format!("{id}_{name}.{}", format.extension()))
}

/// A saved-configuration number: a JSON number or numeric text (a build
/// keeps `"0.5"` as the user wrote it).
fn config_number(v: &Value) -> Option<f64> {
    match v {
        Value::String(s) => rsmreport_core::pyrepr::parse_number_text(s).map(|n| n.as_f64()),
        v => v.as_f64(),
    }
}

/// Opens a folder as the user names it on the command line: `DIR`, or
/// `DIR#ID` for the experiment `ID` of a folder holding several (when
/// `DIR#ID` is not itself a path that exists).
pub fn open_arg(arg: &Path) -> Result<Archive, ArchiveError> {
    let (dir, id) = split_experiment(arg);
    open(&dir, id.as_deref())
}

/// The experiment folder a command-line argument names (`DIR` of
/// `DIR#ID`; the folder holding `output/` when its `output/` subfolder is
/// given): what `compare` and `summarize` must never write into.
pub fn experiment_folder(arg: &Path) -> PathBuf {
    let (dir, _) = split_experiment(arg);
    match dir.parent() {
        Some(parent) if dir.ends_with("output") && !dir.join("output").is_dir() => {
            if parent.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                parent.to_path_buf()
            }
        }
        _ => dir,
    }
}

/// `DIR#ID` as `(DIR, Some(ID))`; any other argument (and one that exists
/// as it is) as itself with no id.
pub fn split_experiment(arg: &Path) -> (PathBuf, Option<String>) {
    if arg.exists() {
        return (arg.to_path_buf(), None);
    }
    let text = arg.to_string_lossy();
    match text.rsplit_once('#') {
        Some((dir, id)) if !id.is_empty() && !id.contains(['/', '\\']) => {
            (PathBuf::from(dir), Some(id.to_string()))
        }
        _ => (arg.to_path_buf(), None),
    }
}

/// Opens the experiment folder `dir` (or its `output/` subfolder given
/// directly). `id` picks one experiment of a folder holding several.
pub fn open(dir: &Path, id: Option<&str>) -> Result<Archive, ArchiveError> {
    let output = output_dir(dir)?;
    let names = file_names(&output)?;
    let (id, tool) = experiment_id(&output, &names, id)?;
    let format = table_format(&output, &names, &id)?;
    let config_file = output.join(format!("{id}_{tool}.json"));
    let config = read_config(&config_file)?;
    let summary = read_summary(&output.join(crate::summary::file_name(&id)))?;
    let producer = producer(tool, summary.as_ref());
    let subgroups = configured_subgroups(&config).unwrap_or_else(|| subgroups(&names, &id, format));
    let mut archive = Archive {
        dir: dir.to_path_buf(),
        output,
        id,
        producer,
        format,
        config,
        config_file,
        summary,
        subgroups,
        tables: BTreeMap::new(),
        missing: Vec::new(),
    };
    read_tables(&mut archive)?;
    Ok(archive)
}

/// `dir/output`, or `dir` itself when it holds a saved configuration.
fn output_dir(dir: &Path) -> Result<PathBuf, ArchiveError> {
    if !dir.is_dir() {
        let what = if dir.exists() {
            "is not a folder"
        } else {
            "does not exist"
        };
        return Err(usage(anyhow!(
            "{} {what}; expected an experiment folder (the output folder of rsmreport build, \
             rsmeval or rsmtool)",
            dir.display()
        )));
    }
    let output = dir.join("output");
    if output.is_dir() {
        return Ok(output);
    }
    let names = file_names(dir)?;
    if names.iter().any(|n| saved_config(n).is_some()) {
        return Ok(dir.to_path_buf());
    }
    Err(usage(anyhow!(
        "{} is not an experiment folder: it has no output/ subfolder (expected the output folder \
         of rsmreport build, rsmeval or rsmtool, with output/<id>_eval.csv and the saved \
         configuration output/<id>_rsmeval.json)",
        dir.display()
    )))
}

fn file_names(dir: &Path) -> Result<Vec<String>, ArchiveError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| data(anyhow!("cannot read the folder {}: {e}", dir.display())))?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    Ok(names)
}

/// `(id, tool)` of a saved configuration's file name.
fn saved_config(name: &str) -> Option<(&str, &'static str)> {
    ["rsmeval", "rsmtool"].into_iter().find_map(|tool| {
        name.strip_suffix(&format!("_{tool}.json"))
            .filter(|id| !id.is_empty())
            .map(|id| (id, tool))
    })
}

/// The rsmreport command that wrote an output folder without a saved
/// build configuration, from its summary file (`crate::summary`): the
/// `kind` of a `<id>_summary.json`, or the kind named by a summary file of
/// releases up to 8648b92 (`<id>_agree.json`, `<id>_preferences.json`,
/// `<a>_vs_<b>_compare.json`, summarize's `summarize_version`).
fn written_by(output: &Path, names: &[String]) -> Option<String> {
    let is_summary = |n: &&String| {
        n.ends_with("_summary.json")
            || crate::summary::LEGACY
                .iter()
                .any(|(suffix, _)| n.ends_with(suffix))
    };
    names.iter().filter(is_summary).find_map(|n| {
        let text = std::fs::read_to_string(output.join(n)).ok()?;
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        crate::summary::kind_of(n, &doc)
    })
}

/// The experiment of the folder: the only saved configuration, or the
/// one of `wanted`.
fn experiment_id(
    output: &Path,
    names: &[String],
    wanted: Option<&str>,
) -> Result<(String, &'static str), ArchiveError> {
    let found: Vec<(&str, &'static str)> = names.iter().filter_map(|n| saved_config(n)).collect();
    let ids: Vec<&str> = found.iter().map(|(id, _)| *id).collect();
    match (wanted, found.as_slice()) {
        (_, []) => {
            Err(usage(match written_by(output, names) {
                Some(kind) => {
                    anyhow!(
                "{} is an output folder of `rsmreport {kind}`, not of a build: compare and \
                 summarize take the output folders of rsmreport build, rsmeval or rsmtool",
                output.parent().filter(|_| output.ends_with("output")).unwrap_or(output).display()
            )
                }
                None => anyhow!(
                    "{} is not an experiment folder: it holds no saved configuration \
                 (<id>_rsmeval.json or <id>_rsmtool.json)",
                    output.display()
                ),
            }))
        }
        (Some(w), _) => found
            .iter()
            .find(|(id, _)| *id == w)
            .map(|(id, tool)| (id.to_string(), *tool))
            .ok_or_else(|| {
                usage(anyhow!(
                    "{} holds no experiment {w:?}; its experiments are {}",
                    output.display(),
                    ids.join(", ")
                ))
            }),
        (None, [(id, tool)]) => Ok((id.to_string(), tool)),
        (None, _) => {
            Err(usage(anyhow!(
            "{} holds several experiments ({}); name the one to read as FOLDER#ID, for example \
             {}#{}",
            output.display(),
            ids.join(", "),
            output.parent().filter(|_| output.ends_with("output")).unwrap_or(output).display(),
            ids[0]
        )))
        }
    }
}

/// The one table format of the experiment's files.
fn table_format(output: &Path, names: &[String], id: &str) -> Result<Format, ArchiveError> {
    let prefix = format!("{id}_");
    let mut formats: Vec<Format> = names
        .iter()
        .filter(|n| n.starts_with(&prefix))
        .filter_map(|n| Path::new(n).extension())
        .filter_map(|e| Format::of_extension(&e.to_string_lossy().to_lowercase()))
        .collect();
    formats.sort_by_key(|f| f.extension());
    formats.dedup();
    match formats.as_slice() {
        [one] => Ok(*one),
        [] => Err(data(anyhow!(
            "{} holds no table of the experiment {id} (expected {id}_eval.csv, .tsv or .xlsx)",
            output.display()
        ))),
        many => Err(data(anyhow!(
            "{} mixes table formats ({}) for the experiment {id}; a folder written by one run \
             has one format",
            output.display(),
            many.iter()
                .map(|f| f.extension())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

fn read_json(path: &Path) -> Result<Value, ArchiveError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| data(anyhow!("cannot read {}: {e}", path.display())))?;
    serde_json::from_str(&text)
        .map_err(|e| data(anyhow!("{}: not valid JSON: {e}", path.display())))
}

fn read_config(path: &Path) -> Result<Map<String, Value>, ArchiveError> {
    match read_json(path)? {
        Value::Object(map) => Ok(map),
        _ => Err(data(anyhow!(
            "{}: the saved configuration must be one JSON object",
            path.display()
        ))),
    }
}

/// The folder's `<id>_summary.json`, if any; a summary of a newer format
/// than this rsmreport reads is refused (exit 2: the user chose the
/// folder; `crate::summary::check_version`).
fn read_summary(path: &Path) -> Result<Option<Value>, ArchiveError> {
    if !path.is_file() {
        return Ok(None);
    }
    let doc = read_json(path)?;
    crate::summary::check_version(path, &doc).map_err(|e| usage(anyhow!(e)))?;
    Ok(Some(doc))
}

/// rsmreport when its summary says so, else the tool of the saved
/// configuration.
fn producer(tool: &str, summary: Option<&Value>) -> Producer {
    let from_summary = summary.and_then(|s| {
        let p = s.get("producer")?;
        Some(Producer {
            name: p.get("name")?.as_str()?.to_string(),
            version: p.get("version").and_then(Value::as_str).map(String::from),
        })
    });
    from_summary.unwrap_or_else(|| Producer {
        name: tool.to_string(),
        version: None,
    })
}

/// The `subgroups` of the saved configuration (a list, or one
/// comma-separated text), in its order; `None` when it has none.
fn configured_subgroups(config: &Map<String, Value>) -> Option<Vec<String>> {
    let groups: Vec<String> = match config.get("subgroups")? {
        Value::Array(items) => items
            .iter()
            .filter_map(|g| g.as_str().map(|g| g.trim().to_string()))
            .collect(),
        Value::String(text) => text.split(',').map(|g| g.trim().to_string()).collect(),
        _ => return None,
    };
    Some(groups.into_iter().filter(|g| !g.is_empty()).collect())
}

/// The subgroups named by the by-group tables' file names (a folder whose
/// saved configuration does not list them).
fn subgroups(names: &[String], id: &str, format: Format) -> Vec<String> {
    let suffix = format!(".{}", format.extension());
    let mut out: Vec<String> = names
        .iter()
        .filter_map(|n| n.strip_prefix(id)?.strip_prefix('_')?.strip_suffix(&suffix))
        .filter_map(|stem| {
            GROUP_TABLES
                .iter()
                .find_map(|t| stem.strip_prefix(t)?.strip_prefix('_'))
        })
        .filter(|g| !g.is_empty())
        .map(String::from)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Every table of [`TABLES`] and [`GROUP_TABLES`] that exists, checked
/// against the reference's columns; `eval` is required.
fn read_tables(a: &mut Archive) -> Result<(), ArchiveError> {
    let mut wanted: Vec<String> = TABLES.iter().map(|t| t.to_string()).collect();
    for g in &a.subgroups {
        wanted.extend(GROUP_TABLES.iter().map(|t| format!("{t}_{g}")));
    }
    let mut text_columns: Vec<&str> = vec![INDEX, "spkitemid", "candidate"];
    text_columns.extend(a.subgroups.iter().map(String::as_str));
    let (present, missing): (Vec<String>, Vec<String>) = wanted
        .into_iter()
        .partition(|name| a.path_of(name).is_file());
    a.missing.extend(missing);
    // The per-response tables are large: every CSV/TSV table is read on its
    // own thread, and the results are taken in the order of `present`.
    // xlsx files go through calamine one at a time (its memory guard names
    // the one file it is reading).
    let read = |name: &String| -> Result<Table, ArchiveError> {
        let path = a.path_of(name);
        let table = crate::input::read_table(&path, &text_columns).map_err(data)?;
        check_columns(&path, name, &table)?;
        Ok(table)
    };
    let tables: Vec<Result<Table, ArchiveError>> = if a.format == Format::Xlsx {
        present.iter().map(read).collect()
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = present
                .iter()
                .map(|name| scope.spawn(move || read(name)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a table reader panicked"))
                .collect()
        })
    };
    for (name, table) in present.into_iter().zip(tables) {
        a.tables.insert(name, table?);
    }
    read_interval_tables(a)?;
    require_eval(a)
}

/// Every comparison needs the `eval` table.
fn require_eval(a: &Archive) -> Result<(), ArchiveError> {
    if !a.tables.contains_key("eval") {
        return Err(data(anyhow!(
            "{} has no table eval ({}), the one table every comparison needs",
            a.output.display(),
            a.path_of("eval").display()
        )));
    }
    Ok(())
}

/// The tables with intervals an rsmreport build writes beside its tables
/// (`eval_ci`, `eval_by_<g>_ci`, ...): read when present (the statistics
/// of gates on a comparison's candidate), never missing.
fn read_interval_tables(a: &mut Archive) -> Result<(), ArchiveError> {
    let mut names: Vec<String> = [
        "eval",
        "consistency",
        "degradation",
        "disattenuated_correlations",
        "true_score_eval",
    ]
    .iter()
    .map(|t| format!("{t}_ci"))
    .collect();
    names.extend(a.subgroups.iter().map(|g| format!("eval_by_{g}_ci")));
    for name in names {
        let path = a.path_of(&name);
        if path.is_file() {
            let table =
                crate::input::read_table(&path, &["row", "metric", "unit"]).map_err(data)?;
            a.tables.insert(name, table);
        }
    }
    Ok(())
}

/// The columns a table of the reference always has.
fn required_columns(name: &str) -> Vec<&'static str> {
    use rsmreport_core::schema::DEGRADATION_METRICS;
    // The whole-set consistency table's one row has an empty label, which
    // an xlsx reader drops with its empty column: no row labels required.
    let consistency = |diff: &'static str| -> Vec<&'static str> {
        let labels: &[&'static str] = if diff == "SMD" { &[] } else { &[INDEX] };
        labels
            .iter()
            .copied()
            .chain(["N"])
            .chain(
                rsmreport_core::schema::CONSISTENCY_COLUMNS
                    .iter()
                    .map(|(c, _)| *c),
            )
            .map(|c| if c == "SMD" { diff } else { c })
            .collect()
    };
    if name.starts_with("eval_by_") {
        return vec![INDEX, "N", "h_mean", "h_sd"];
    }
    if name.starts_with("consistency_by_") {
        return consistency("DSM");
    }
    if name.starts_with("fairness_metrics_by_") {
        return vec![
            INDEX,
            "Overall score accuracy",
            "Overall score difference",
            "Conditional score difference",
        ];
    }
    match name {
        "eval" => [&[INDEX][..], &rsmreport_core::schema::EVAL_COLUMNS].concat(),
        "consistency" => consistency("SMD"),
        "degradation" => [&[INDEX][..], &DEGRADATION_METRICS].concat(),
        "true_score_eval" => vec![INDEX, "N", "PRMSE true"],
        "pred_processed" => vec!["spkitemid", "sc1"],
        "test_human_scores" => vec!["spkitemid", "sc1", "sc2"],
        "test_metadata" => vec!["spkitemid"],
        // Its label column is `Human/System`, which the reference drops when
        // nothing was excluded.
        "test_excluded_composition" => Vec::new(),
        _ => vec![INDEX],
    }
}

fn check_columns(path: &Path, name: &str, table: &Table) -> Result<(), ArchiveError> {
    let have = table.names();
    let missing: Vec<&str> = required_columns(name)
        .into_iter()
        .filter(|c| !have.contains(c))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let shown = |cols: &[&str]| {
        cols.iter()
            .map(|c| if *c == INDEX { "(row labels)" } else { c })
            .collect::<Vec<_>>()
            .join(", ")
    };
    Err(data(anyhow!(
        "{}: not the reference's {name} table: it lacks the columns {} (its columns are {})",
        path.display(),
        shown(&missing),
        shown(&have)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_numbers_may_be_text() {
        use serde_json::json;
        assert_eq!(config_number(&json!(0.5)), Some(0.5));
        assert_eq!(config_number(&json!("0.5")), Some(0.5));
        assert_eq!(config_number(&json!(" 1 ")), Some(1.0));
        assert_eq!(config_number(&json!("half")), None);
        assert_eq!(config_number(&json!(null)), None);
    }

    #[test]
    fn folder_arguments_name_an_experiment_after_a_hash() {
        let tmp = tempfile::TempDir::new().unwrap();
        let dir = tmp.path().join("runs");
        std::fs::create_dir(&dir).unwrap();
        let arg = |s: &str| split_experiment(&tmp.path().join(s));
        assert_eq!(arg("runs"), (dir.clone(), None));
        assert_eq!(arg("runs#v2"), (dir.clone(), Some("v2".into())));
        assert_eq!(
            arg("runs#a#b"),
            (tmp.path().join("runs#a"), Some("b".into()))
        );
        // A folder whose own name has a '#' is itself.
        std::fs::create_dir(tmp.path().join("x#1")).unwrap();
        assert_eq!(arg("x#1"), (tmp.path().join("x#1"), None));
        // Nothing after '#': no id.
        assert_eq!(arg("runs#"), (tmp.path().join("runs#"), None));
    }

    #[test]
    fn saved_configuration_names() {
        assert_eq!(saved_config("e_rsmeval.json"), Some(("e", "rsmeval")));
        assert_eq!(saved_config("a_b_rsmtool.json"), Some(("a_b", "rsmtool")));
        assert_eq!(saved_config("_rsmeval.json"), None);
        assert_eq!(saved_config("e_summary.json"), None);
    }

    #[test]
    fn subgroups_come_from_the_by_group_file_names() {
        let names: Vec<String> = [
            "e_eval.csv",
            "e_eval_by_L1.csv",
            "e_consistency_by_first_language.csv",
            "e_fairness_metrics_by_L1.csv",
            "e_estimates_osa_by_gender.csv",
            "e_eval_by_L1.xlsx",
            "f_eval_by_other.csv",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            subgroups(&names, "e", Format::Csv),
            ["L1", "first_language"]
        );
    }

    #[test]
    fn required_columns_by_table_kind() {
        assert_eq!(required_columns("eval").len(), 18);
        assert_eq!(
            required_columns("eval_by_L1"),
            [INDEX, "N", "h_mean", "h_sd"]
        );
        let c = required_columns("consistency");
        assert!(c.contains(&"SMD") && c.contains(&"h2_max") && !c.contains(&"DSM"));
        let c = required_columns("consistency_by_L1");
        assert!(c.contains(&"DSM") && !c.contains(&"SMD"));
        assert_eq!(required_columns("fairness_metrics_by_L1").len(), 4);
        assert_eq!(
            required_columns("test_human_scores"),
            ["spkitemid", "sc1", "sc2"]
        );
    }
}
