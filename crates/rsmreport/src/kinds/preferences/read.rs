//! Command assembly (preferences), input half: the pairs file as the
//! columns the metrics need (spec 1): ids, text lengths, the reference's
//! and every annotator's raw votes, the subset columns. Tables (csv, tsv,
//! xlsx, jsonl, parquet) go through [`rsmreport_io::input::read_table`];
//! AnnotatedPairs `.json` is read here with serde_json.
//!
//! Reads the pairs file only; computes no metric and writes nothing. Every
//! error names the file and the column, key or rows, and is a data error.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};
use serde_json::{Map, Value};

use rsmreport_config::preferences::PreferencesConfig;
use rsmreport_core::table::{Cell, FxBuild, Table, Text, Values};
use rsmreport_metrics::preferences::text_len;

/// The AnnotatedPairs major versions read (`metadata.version`, by its
/// major number as Feedback Forensics reads it; a file without a version is
/// 1.0).
pub const ANNOTATED_PAIRS_VERSIONS: [&str; 2] = ["1", "2"];

/// Data set names (spec 6): AnnotatedPairs' `dataset_name`, else the file
/// stem; a repeated name gets ` (2)`, ` (3)`, ...
fn dataset_names(parts: &[(Pairs, String)]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(parts.len());
    for (p, _) in parts {
        let base = p.dataset_name.clone().unwrap_or_else(|| {
            p.file
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
        });
        let mut name = base.clone();
        let mut k = 2;
        while out.contains(&name) {
            name = format!("{base} ({k})");
            k += 1;
        }
        out.push(name);
    }
    out
}

/// Columns of several files joined by name, in order of first appearance;
/// a file without a column gets missing values there.
fn join_columns(parts: &[(Pairs, String)], get: impl Fn(&Pairs) -> &[RawColumn]) -> Vec<RawColumn> {
    let mut names: Vec<String> = Vec::new();
    for (p, _) in parts {
        for (n, _) in get(p) {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
    }
    names
        .into_iter()
        .map(|name| {
            let mut values = Vec::new();
            for (p, _) in parts {
                match get(p).iter().find(|(n, _)| *n == name) {
                    Some((_, v)) => values.extend(v.iter().cloned()),
                    None => values.resize(values.len() + p.len(), None),
                }
            }
            (name, values)
        })
        .collect()
}

/// Several files as one set of pairs with the virtual subset column
/// [`DATASET`] first (spec 6). The reference column must be the same.
fn combine(parts: Vec<(Pairs, String)>) -> Result<Pairs> {
    let first = &parts[0].0;
    if let Some((p, _)) = parts
        .iter()
        .find(|(p, _)| p.reference.0 != first.reference.0)
    {
        bail!(
            "{}: the reference annotator is \"{}\", but in {} it is \"{}\"; every pairs file \
             of the list needs the same reference (set reference_column)",
            p.file.display(),
            p.reference.0,
            first.file.display(),
            first.reference.0
        );
    }
    if let Some((p, _)) = parts
        .iter()
        .find(|(p, _)| p.subsets.iter().any(|(n, _)| n == DATASET))
    {
        bail!(
            "{}: a subset column is named \"{DATASET}\", the name of the virtual column of \
             several pairs files; rename it or read one file",
            p.file.display()
        );
    }
    let names = dataset_names(&parts);
    let mut dataset: Vec<Option<Text>> = Vec::new();
    for ((p, _), name) in parts.iter().zip(&names) {
        let text = Text::from(name.as_str());
        dataset.resize(dataset.len() + p.len(), Some(text));
    }
    let annotators = join_columns(&parts, |p| &p.annotators);
    let annotator_names = annotators
        .iter()
        .map(|(n, _)| {
            parts
                .iter()
                .find_map(|(p, _)| {
                    let j = p.annotators.iter().position(|(c, _)| c == n)?;
                    Some(p.annotator_names[j].clone())
                })
                .unwrap_or_else(|| n.clone())
        })
        .collect();
    let mut subsets = vec![(DATASET.to_string(), dataset)];
    subsets.extend(join_columns(&parts, |p| &p.subsets));
    let models = parts.iter().any(|(p, _)| p.models.is_some()).then(|| {
        let side = |pick: fn(&(RawColumn, RawColumn)) -> &RawColumn, name: &str| -> RawColumn {
            let mut values = Vec::new();
            for (p, _) in &parts {
                match &p.models {
                    Some(m) => values.extend(pick(m).1.iter().cloned()),
                    None => values.resize(values.len() + p.len(), None),
                }
            }
            (name.to_string(), values)
        };
        (side(|m| &m.0, "model_a"), side(|m| &m.1, "model_b"))
    });
    let mut unused_metadata: Vec<(String, usize)> = Vec::new();
    for (p, _) in &parts {
        for (k, n) in &p.unused_metadata {
            if !unused_metadata.iter().any(|(u, _)| u == k) {
                unused_metadata.push((k.clone(), *n));
            }
        }
    }
    let datasets = parts
        .iter()
        .zip(&names)
        .map(|((p, sha256), name)| DataSet {
            name: name.clone(),
            file: p.file.clone(),
            rows: p.len(),
            sha256: sha256.clone(),
        })
        .collect();
    let cat = |f: fn(&Pairs) -> &[u32]| {
        parts
            .iter()
            .flat_map(|(p, _)| f(p).iter().copied())
            .collect()
    };
    let reference_values = parts
        .iter()
        .flat_map(|(p, _)| p.reference.1.iter().cloned())
        .collect();
    Ok(Pairs {
        file: first.file.clone(),
        ids: parts
            .iter()
            .flat_map(|(p, _)| p.ids.iter().cloned())
            .collect(),
        len_a: cat(|p| &p.len_a),
        len_b: cat(|p| &p.len_b),
        reference: (first.reference.0.clone(), reference_values),
        reference_name: first.reference_name.clone(),
        annotators,
        annotator_names,
        subsets,
        unused_metadata,
        models,
        dataset_name: None,
        datasets,
    })
}

/// A metadata key with more distinct values is not a default subset
/// (spec 6: "at most 50" includes 50).
pub const MAX_SUBSET_VALUES: usize = 50;

/// How many duplicate ids an error names.
const SHOWN_DUPLICATES: usize = 5;

/// One named column of raw values (`None`: missing or blank), shared with
/// the table read ([`Text`] cells).
pub type RawColumn = (String, Vec<Option<Text>>);

/// The pairs as read, one entry per row in file order.
#[derive(Clone, Debug, PartialEq)]
pub struct Pairs {
    pub file: PathBuf,
    pub ids: Vec<Text>,
    /// Length of `text_a` in code points (0: empty or missing).
    pub len_a: Vec<u32>,
    pub len_b: Vec<u32>,
    pub reference: RawColumn,
    pub annotators: Vec<RawColumn>,
    pub subsets: Vec<RawColumn>,
    /// The shown name of the reference and of each annotator (spec 6):
    /// AnnotatedPairs' `name`, else its `description`, else its id; a
    /// table's column name.
    pub reference_name: String,
    pub annotator_names: Vec<String>,
    /// AnnotatedPairs metadata keys not used as subsets by default (spec
    /// 6: not a category), each with its number of distinct values.
    pub unused_metadata: Vec<(String, usize)>,
    /// The models of `text_a` and `text_b` (spec 6), when known.
    pub models: Option<(RawColumn, RawColumn)>,
    /// AnnotatedPairs' `metadata.dataset_name`, when present.
    pub dataset_name: Option<String>,
    /// Several pairs files (spec 6): each data set's name and rows, in file
    /// order (its rows follow the previous one's); empty for one file.
    pub datasets: Vec<DataSet>,
}

/// One pairs file of several.
#[derive(Clone, Debug, PartialEq)]
pub struct DataSet {
    pub name: String,
    pub file: PathBuf,
    pub rows: usize,
    /// SHA-256 of the file (the first file's is the command's own).
    pub sha256: String,
}

/// The name of the virtual subset column of several data sets.
pub const DATASET: &str = "dataset";

impl Pairs {
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

/// Reads the configured pairs file, or every file of a list as one data set
/// each (spec 6).
pub fn read(cfg: &PreferencesConfig) -> Result<Pairs> {
    if cfg.pairs_files.len() <= 1 {
        return read_one(cfg);
    }
    let mut parts = Vec::with_capacity(cfg.pairs_files.len());
    for file in &cfg.pairs_files {
        let one = PreferencesConfig {
            pairs_file: file.clone(),
            pairs_files: vec![file.clone()],
            ..cfg.clone()
        };
        let pairs = read_one(&one)?;
        let sha256 = rsmreport_core::provenance::sha256_file(file)?;
        parts.push((pairs, sha256));
    }
    combine(parts)
}

/// One pairs file.
fn read_one(cfg: &PreferencesConfig) -> Result<Pairs> {
    let pairs = if cfg.is_annotated_pairs() {
        annotated_pairs(cfg)?
    } else {
        tabular(cfg)?
    };
    rsmreport_core::provenance::timed("unique ids", || check_unique_ids(&pairs))?;
    Ok(pairs)
}

/// A cell as text; blank text counts as missing (as a JSON `null`).
fn cell_text(values: &Values, i: usize) -> Option<String> {
    let s = match values.cell(i) {
        Cell::Missing => return None,
        Cell::Text(s) => s,
        Cell::Int(n) => n.to_string(),
        Cell::Float(x) => rsmreport_config::python_float_repr(x),
        Cell::Bool(b) => if b { "True" } else { "False" }.to_string(),
    };
    (!s.trim().is_empty()).then_some(s)
}

fn absent_columns(file: &Path, absent: &[&str], present: &[&str]) -> anyhow::Error {
    anyhow!(
        "{}: the column{} {} named in the experiment file {} not in the file (its columns are \
         {})",
        file.display(),
        if absent.len() > 1 { "s" } else { "" },
        absent
            .iter()
            .map(|c| format!("'{c}'"))
            .collect::<Vec<_>>()
            .join(", "),
        if absent.len() > 1 { "are" } else { "is" },
        present.join(", ")
    )
}

/// A table file: the configured columns, read as text.
fn tabular(cfg: &PreferencesConfig) -> Result<Pairs> {
    let reference = cfg.reference_column.clone().unwrap_or_default();
    let subsets = cfg.subset_columns.clone().unwrap_or_default();
    let mut wanted: Vec<&str> = vec![&cfg.text_a_column, &cfg.text_b_column, &reference];
    wanted.extend(cfg.annotator_columns.iter().map(String::as_str));
    wanted.extend(subsets.iter().map(String::as_str));
    wanted.extend(cfg.model_a_column.as_deref());
    wanted.extend(cfg.model_b_column.as_deref());
    wanted.extend(cfg.id_column.as_deref());
    let table = rsmreport_core::provenance::timed("read table", || {
        rsmreport_io::input::read_table(&cfg.pairs_file, &wanted)
    })?;
    let absent: Vec<&str> = wanted
        .iter()
        .copied()
        .filter(|c| table.column(c).is_none())
        .collect();
    if !absent.is_empty() {
        return Err(absent_columns(&cfg.pairs_file, &absent, &table.names()));
    }
    let n = table.nrows;
    let lengths = |name: &str| lengths(&table.column(name).expect("checked above").values, n);
    let (len_a, len_b) = (lengths(&cfg.text_a_column), lengths(&cfg.text_b_column));
    let mut columns = TakenColumns::new(table, &wanted[2..]);
    let mut named = |names: &[String]| -> Vec<RawColumn> {
        names.iter().map(|c| (c.clone(), columns.take(c))).collect()
    };
    let reference = named(std::slice::from_ref(&reference)).remove(0);
    let annotators = named(&cfg.annotator_columns);
    let subsets = named(&subsets);
    let models = match (&cfg.model_a_column, &cfg.model_b_column) {
        (Some(a), Some(b)) => Some(((a.clone(), columns.take(a)), (b.clone(), columns.take(b)))),
        _ => None,
    };
    Ok(Pairs {
        models,
        dataset_name: None,
        datasets: Vec::new(),
        unused_metadata: Vec::new(),
        reference_name: reference.0.clone(),
        annotator_names: cfg.annotator_columns.clone(),
        file: cfg.pairs_file.clone(),
        ids: match &cfg.id_column {
            Some(c) => columns
                .take(c)
                .into_iter()
                .map(|id| id.unwrap_or_else(|| Text::from("")))
                .collect(),
            None => (1..=n).map(|i| Text::from(i.to_string())).collect(),
        },
        len_a,
        len_b,
        reference,
        annotators,
        subsets,
    })
}

/// The length of every cell of a text column ([`text_len`] of its
/// [`cell_text`], without copying text cells).
fn lengths(values: &Values, n: usize) -> Vec<u32> {
    match values {
        Values::Text(cells) => cells
            .iter()
            .map(|c| text_len(c.as_deref().filter(|s| !s.trim().is_empty())))
            .collect(),
        _ => (0..n)
            .map(|i| text_len(cell_text(values, i).as_deref()))
            .collect(),
    }
}

/// The columns of a table handed out as raw text columns: a text column is
/// moved out of the table (its shared cells are not copied) the last time
/// it is taken, and cloned before that (a column named twice in the
/// experiment).
struct TakenColumns {
    table: Table,
    /// How many more times each column (by position) will be taken.
    uses: Vec<usize>,
}

impl TakenColumns {
    /// `names`: every column that will be taken, once per use.
    fn new(table: Table, names: &[&str]) -> TakenColumns {
        let mut uses = vec![0; table.columns.len()];
        for name in names {
            if let Some(j) = table.position(name) {
                uses[j] += 1;
            }
        }
        TakenColumns { table, uses }
    }

    /// Column `name` (present, announced to `new`) as [`cell_text`] reads
    /// it: blank cells are missing.
    fn take(&mut self, name: &str) -> Vec<Option<Text>> {
        let j = self.table.position(name).expect("checked above");
        self.uses[j] = self.uses[j].saturating_sub(1);
        let values = &mut self.table.columns[j].values;
        let Values::Text(cells) = values else {
            let n = self.table.nrows;
            return (0..n)
                .map(|i| cell_text(values, i).map(Text::from))
                .collect();
        };
        let mut cells = if self.uses[j] == 0 {
            std::mem::take(cells)
        } else {
            cells.clone()
        };
        for cell in &mut cells {
            if cell.as_deref().is_some_and(|s| s.trim().is_empty()) {
                *cell = None;
            }
        }
        cells
    }
}

/// Duplicate ids are an error naming the first few (spec 1); found
/// without a set of every id ([`crate::preprocess::repeats`]).
fn check_unique_ids(pairs: &Pairs) -> Result<()> {
    let ids: Vec<&str> = pairs.ids.iter().map(|id| &**id).collect();
    let (count, shown) = crate::preprocess::repeats(&ids, SHOWN_DUPLICATES);
    let dups: Vec<String> = shown
        .iter()
        .map(|&(j, i)| format!("'{}' (rows {} and {})", ids[i], j + 1, i + 1))
        .collect();
    if count == 0 {
        return Ok(());
    }
    let more = if count > dups.len() {
        format!(" and {} more", count - dups.len())
    } else {
        String::new()
    };
    bail!(
        "{}: {count} pair{} repeat{} an id: {}{more}; every pair needs its own id (rows are \
         counted from the first data row)",
        pairs.file.display(),
        if count > 1 { "s" } else { "" },
        if count > 1 { "" } else { "s" },
        dups.join(", ")
    )
}

// ------------------------------------------------------- AnnotatedPairs

/// An AnnotatedPairs file: `metadata.default_annotator` is the reference,
/// every other annotator a column, the comparisons' metadata keys subset
/// columns (spec 1).
fn annotated_pairs(cfg: &PreferencesConfig) -> Result<Pairs> {
    let file = &cfg.pairs_file;
    let at = |what: String| anyhow!("{}: {what}", file.display());
    let text =
        std::fs::read_to_string(file).map_err(|e| at(format!("cannot read the file: {e}")))?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| {
        at(format!(
            "line {}, column {}: not valid JSON ({e})",
            e.line(),
            e.column()
        ))
    })?;
    let doc = doc
        .as_object()
        .ok_or_else(|| at("an AnnotatedPairs file must hold a JSON object".into()))?;
    let metadata = object(doc.get("metadata")).ok_or_else(|| at("no metadata object".into()))?;
    let version = format_version(metadata).map_err(at)?;
    let (ids, names, shown) = annotators(doc).map_err(at)?;
    let default = metadata
        .get("default_annotator")
        .and_then(Value::as_str)
        .ok_or_else(|| at("metadata.default_annotator is missing".into()))?;
    let Some(d) = ids.iter().position(|a| a == default) else {
        return Err(at(format!(
            "metadata.default_annotator \"{default}\" is not among its annotators ({})",
            ids.join(", ")
        )));
    };
    let comparisons = doc
        .get("comparisons")
        .and_then(Value::as_array)
        .ok_or_else(|| at("no comparisons list".into()))?;
    let mut columns = Columns::collect(comparisons, version, &ids, &names).map_err(at)?;
    let default = names[d].clone();
    columns.shown = names.into_iter().zip(shown).collect();
    let mut pairs = columns.select(cfg, &default, file)?;
    pairs.dataset_name = metadata
        .get("dataset_name")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    Ok(pairs)
}

fn object(v: Option<&Value>) -> Option<&Map<String, Value>> {
    v.and_then(Value::as_object)
}

/// The layout of a comparison's two texts, by format version.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Version {
    /// 1.x: `text_a` and `text_b` are strings.
    One,
    /// 2.x: `response_a` and `response_b` are objects with a `text`.
    Two,
}

impl Version {
    /// The keys of the two texts in a comparison.
    fn text_keys(self) -> [&'static str; 2] {
        match self {
            Version::One => ["text_a", "text_b"],
            Version::Two => ["response_a", "response_b"],
        }
    }
}

/// `metadata.version` by its major number, as Feedback Forensics reads it:
/// "1.0" (also when absent), "2.0", "2.1", ...
fn format_version(metadata: &Map<String, Value>) -> Result<Version, String> {
    let version = match metadata.get("version") {
        None => return Ok(Version::One),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    match version.split('.').next().map(str::trim) {
        Some("1") => Ok(Version::One),
        Some("2") => Ok(Version::Two),
        _ => Err(format!(
            "AnnotatedPairs version \"{version}\" is not supported (supported: {})",
            ANNOTATED_PAIRS_VERSIONS
                .map(|m| format!("{m}.x"))
                .join(", ")
        )),
    }
}

/// The annotator ids in file order, the column name of each (its `name`
/// when every annotator has a distinct one, else its id) and its shown
/// name (spec 6: its `name`, else its `description`, else its id).
type AnnotatorNames = (Vec<String>, Vec<String>, Vec<String>);

fn annotators(doc: &Map<String, Value>) -> Result<AnnotatorNames, String> {
    let map = object(doc.get("annotators")).ok_or("no annotators object")?;
    let ids: Vec<String> = map.keys().cloned().collect();
    let names: Vec<Option<&str>> = map
        .values()
        .map(|a| a.get("name").and_then(Value::as_str))
        .collect();
    let distinct = names
        .iter()
        .enumerate()
        .all(|(i, n)| n.is_some_and(|n| !n.is_empty() && !names[..i].contains(&Some(n))));
    let shown = if distinct {
        names
            .iter()
            .map(|n| n.unwrap_or_default().to_string())
            .collect()
    } else {
        ids.clone()
    };
    let nonblank = |a: &Value, key: &str| {
        a.get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let names = map
        .iter()
        .map(|(id, a)| {
            nonblank(a, "name")
                .or_else(|| nonblank(a, "description"))
                .unwrap_or_else(|| id.clone())
        })
        .collect();
    Ok((ids, shown, names))
}

/// The comparisons of an AnnotatedPairs file as columns.
struct Columns {
    ids: Vec<Text>,
    len_a: Vec<u32>,
    len_b: Vec<u32>,
    /// Annotator column name -> votes.
    votes: Vec<RawColumn>,
    /// Metadata key -> values, keys in order of first appearance.
    metadata: Vec<RawColumn>,
    /// Annotator column name -> shown name.
    shown: Vec<(String, String)>,
    /// `response_a.model` and `response_b.model` per comparison.
    model_a: Vec<Option<Text>>,
    model_b: Vec<Option<Text>>,
}

fn scalar_text(v: &Value) -> Option<Text> {
    match v {
        Value::Null => None,
        Value::String(s) if s.trim().is_empty() => None,
        Value::String(s) => Some(Text::from(s.as_str())),
        other => Some(Text::from(other.to_string())),
    }
}

/// The length of one of a comparison's texts: `text_a` (1.x) is a string,
/// `response_a` (2.x) an object with `text` (a plain string is read too).
/// A key that is absent is an error naming the comparison; `null`, an
/// empty text or one of white space only is an empty text (the pair is
/// excluded and counted, as from a table).
fn response_len(c: &Value, i: usize, key: &str, version: Version) -> Result<u32, String> {
    let Some(v) = c.get(key) else {
        let [a, b] = version.text_keys();
        return Err(format!(
            "comparisons[{i}] has no \"{key}\" (an AnnotatedPairs {} file keeps the two texts \
             in \"{a}\" and \"{b}\")",
            match version {
                Version::One => "1.x",
                Version::Two => "2.x",
            }
        ));
    };
    let text = v
        .as_str()
        .or_else(|| v.get("text").and_then(Value::as_str))
        .filter(|s| !s.trim().is_empty());
    Ok(text_len(text))
}

impl Columns {
    fn collect(
        comparisons: &[Value],
        version: Version,
        ids: &[String],
        names: &[String],
    ) -> Result<Columns, String> {
        let [key_a, key_b] = version.text_keys();
        let mut out = Columns {
            ids: Vec::with_capacity(comparisons.len()),
            len_a: Vec::with_capacity(comparisons.len()),
            len_b: Vec::with_capacity(comparisons.len()),
            votes: names.iter().map(|n| (n.clone(), Vec::new())).collect(),
            metadata: Vec::new(),
            shown: Vec::new(),
            model_a: Vec::with_capacity(comparisons.len()),
            model_b: Vec::with_capacity(comparisons.len()),
        };
        for (i, c) in comparisons.iter().enumerate() {
            if !c.is_object() {
                return Err(format!("comparisons[{i}] is not an object"));
            }
            out.ids.push(
                c.get("id")
                    .and_then(scalar_text)
                    .unwrap_or_else(|| Text::from((i + 1).to_string())),
            );
            out.len_a.push(response_len(c, i, key_a, version)?);
            out.len_b.push(response_len(c, i, key_b, version)?);
            let model = |key: &str| {
                c.get(key)
                    .and_then(|r| r.get("model"))
                    .and_then(scalar_text)
            };
            out.model_a.push(model(key_a));
            out.model_b.push(model(key_b));
            let annotations = object(c.get("annotations"));
            for (id, (_, votes)) in ids.iter().zip(&mut out.votes) {
                let pref = annotations
                    .and_then(|a| a.get(id))
                    .and_then(|a| a.get("pref"));
                votes.push(pref.and_then(scalar_text));
            }
            out.push_metadata(i, object(c.get("metadata")));
        }
        Ok(out)
    }

    fn push_metadata(&mut self, i: usize, metadata: Option<&Map<String, Value>>) {
        for (key, value) in metadata.into_iter().flatten() {
            if !self.metadata.iter().any(|(k, _)| k == key) {
                self.metadata.push((key.clone(), vec![None; i]));
            }
            let col = self
                .metadata
                .iter_mut()
                .find(|(k, _)| k == key)
                .expect("added");
            col.1.push(scalar_text(value));
        }
        for (_, col) in &mut self.metadata {
            col.resize(i + 1, None);
        }
    }

    /// The configured columns (or the defaults of spec 1).
    /// Every named column is in the file, the reference is not also an
    /// annotator, and there is an annotator to compare.
    fn check_columns(
        &self,
        cfg: &PreferencesConfig,
        file: &Path,
        reference: &String,
        annotators: &[String],
        subsets: &[String],
    ) -> Result<()> {
        let present: Vec<String> = self
            .votes
            .iter()
            .chain(&self.metadata)
            .map(|(n, _)| n.clone())
            .collect();
        let model_keys: Vec<String> = cfg
            .model_a_column
            .iter()
            .chain(&cfg.model_b_column)
            .cloned()
            .collect();
        let absent: Vec<&str> = std::iter::once(reference)
            .chain(annotators)
            .chain(subsets)
            .chain(&model_keys)
            .filter(|c| !present.contains(c))
            .map(String::as_str)
            .collect();
        if !absent.is_empty() {
            let present: Vec<&str> = present.iter().map(String::as_str).collect();
            return Err(absent_columns(file, &absent, &present));
        }
        if annotators.contains(reference) {
            bail!(
                "{}: the reference annotator \"{reference}\" (metadata.default_annotator unless \
                 reference_column names another) is also listed in annotator_columns; an \
                 annotator is compared with the reference, so list it in one place only",
                file.display()
            );
        }
        if annotators.is_empty() {
            bail!(
                "{}: the file has no annotator besides the default annotator {reference}; there \
                 is nothing to compare",
                file.display()
            );
        }
        Ok(())
    }

    fn select(mut self, cfg: &PreferencesConfig, default: &str, file: &Path) -> Result<Pairs> {
        let reference = cfg
            .reference_column
            .clone()
            .unwrap_or_else(|| default.to_string());
        let annotators: Vec<String> = if cfg.annotator_columns.is_empty() {
            self.votes
                .iter()
                .map(|(n, _)| n.clone())
                .filter(|n| *n != reference)
                .collect()
        } else {
            cfg.annotator_columns.clone()
        };
        let mut unused_metadata = Vec::new();
        let subsets: Vec<String> = match &cfg.subset_columns {
            Some(s) => s.clone(),
            None => self
                .metadata
                .iter()
                .filter(|(k, values)| {
                    let (category, distinct) = is_category(values);
                    if !category {
                        unused_metadata.push((k.clone(), distinct));
                    }
                    category
                })
                .map(|(k, _)| k.clone())
                .collect(),
        };
        self.check_columns(cfg, file, &reference, &annotators, &subsets)?;
        let take = |name: &str| -> RawColumn {
            match self.votes.iter().position(|(n, _)| n == name) {
                Some(j) => self.votes[j].clone(),
                None => self
                    .metadata
                    .iter()
                    .find(|(n, _)| n == name)
                    .cloned()
                    .expect("checked"),
            }
        };
        let shown = |name: &String| {
            self.shown
                .iter()
                .find(|(c, _)| c == name)
                .map_or_else(|| name.clone(), |(_, s)| s.clone())
        };
        let models = match (&cfg.model_a_column, &cfg.model_b_column) {
            (Some(a), Some(b)) => Some((take(a), take(b))),
            _ if self
                .model_a
                .iter()
                .chain(&self.model_b)
                .any(Option::is_some) =>
            {
                Some((
                    (
                        "response_a.model".to_string(),
                        std::mem::take(&mut self.model_a),
                    ),
                    (
                        "response_b.model".to_string(),
                        std::mem::take(&mut self.model_b),
                    ),
                ))
            }
            _ => None,
        };
        Ok(Pairs {
            models,
            dataset_name: None,
            datasets: Vec::new(),
            unused_metadata,
            reference_name: shown(&reference),
            annotator_names: annotators.iter().map(shown).collect(),
            file: file.to_path_buf(),
            reference: take(&reference),
            annotators: annotators.iter().map(|a| take(a)).collect(),
            subsets: subsets.iter().map(|s| take(s)).collect(),
            ids: std::mem::take(&mut self.ids),
            len_a: std::mem::take(&mut self.len_a),
            len_b: std::mem::take(&mut self.len_b),
        })
    }
}

/// Whether a metadata key is a category (spec 6): at most
/// [`MAX_SUBSET_VALUES`] distinct values, and not one per comparison (an
/// `index` or a prompt id: as many distinct values as comparisons holding
/// the key). Also returns the number of distinct values.
pub fn is_category(values: &[Option<Text>]) -> (bool, usize) {
    let mut seen: HashSet<&str, FxBuild> = HashSet::default();
    let mut present = 0usize;
    for v in values.iter().flatten() {
        present += 1;
        seen.insert(v);
        if seen.len() > MAX_SUBSET_VALUES {
            // Counting on would cost a set of every value (a million ids).
            return (false, distinct_count(values));
        }
    }
    let distinct = seen.len();
    (distinct >= 1 && distinct < present, distinct)
}

fn distinct_count(values: &[Option<Text>]) -> usize {
    values
        .iter()
        .flatten()
        .map(|v| &**v)
        .collect::<HashSet<&str, FxBuild>>()
        .len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_categories_become_default_subsets() {
        let col = |v: &[&str]| -> Vec<Option<Text>> {
            v.iter()
                .map(|s| (!s.is_empty()).then(|| Text::from(*s)))
                .collect()
        };
        // One per comparison: never a subset, even a single comparison.
        assert_eq!(is_category(&col(&["0"])), (false, 1));
        assert_eq!(is_category(&col(&["0", "1", "2", ""])), (false, 3));
        assert_eq!(is_category(&col(&["x", "y", "x"])), (true, 2));
        assert_eq!(is_category(&col(&["", ""])), (false, 0));
        let ids: Vec<String> = (0..51).map(|i| i.to_string()).collect();
        let mut fifty: Vec<&str> = ids[..50].iter().map(String::as_str).collect();
        fifty.push("0");
        assert_eq!(is_category(&col(&fifty)), (true, 50));
        let mut fifty_one: Vec<&str> = ids.iter().map(String::as_str).collect();
        fifty_one.push("0");
        assert_eq!(is_category(&col(&fifty_one)), (false, 51));
    }

    #[test]
    fn texts_by_format_version() {
        let one = json!({"text_a": "ab", "text_b": "  ", "response_a": {"text": "xyz"}});
        assert_eq!(response_len(&one, 0, "text_a", Version::One), Ok(2));
        // White space only is an empty text, as in a table.
        assert_eq!(response_len(&one, 0, "text_b", Version::One), Ok(0));
        let two = json!({"response_a": {"text": "héllo"}, "response_b": "plain"});
        assert_eq!(response_len(&two, 3, "response_a", Version::Two), Ok(5));
        assert_eq!(response_len(&two, 3, "response_b", Version::Two), Ok(5));
        let err = response_len(&two, 3, "text_a", Version::One).unwrap_err();
        assert!(err.starts_with("comparisons[3] has no \"text_a\""), "{err}");
        let version = |v: serde_json::Value| {
            format_version(v.as_object().unwrap()).map_err(|e| e.to_string())
        };
        assert_eq!(version(json!({})), Ok(Version::One));
        assert_eq!(version(json!({"version": "2.1"})), Ok(Version::Two));
        assert_eq!(version(json!({"version": 1.0})), Ok(Version::One));
        assert!(version(json!({"version": "3.0"})).is_err());
    }

    #[test]
    fn annotators_are_shown_by_name_then_description_then_id() {
        let doc = json!({"annotators": {
            "ba751e7b": {"name": "preferred_text", "description": "Default annotator"},
            "bf731c7f": {"description": "Select the response that is more concise"},
            "0d30c700": {"name": " ", "description": ""},
        }});
        let (ids, columns, shown) = annotators(doc.as_object().unwrap()).unwrap();
        assert_eq!(ids, ["ba751e7b", "bf731c7f", "0d30c700"]);
        // Names are not distinct for every annotator: the ids are the columns.
        assert_eq!(columns, ids);
        assert_eq!(
            shown,
            [
                "preferred_text",
                "Select the response that is more concise",
                "0d30c700"
            ]
        );
    }
}
