//! The version workflow's part that every kind shares (issue 49): the
//! archived folder of any kind as `compare` reads it ([`Folder`]: its
//! summary's envelope, its label), the two folders of one comparison
//! ([`Pair`]), the per-unit files a kind keeps so that two of its folders
//! can be compared later ([`units_files`]: `output/<id>_units.parquet`,
//! one row per unit, and `output/<id>_units.json`, the settings that give
//! the statistics their meaning), and the terminal shape of a comparison
//! (`compare`'s: the preflight table, one `change:` line per statistic,
//! [`preflight_lines`], [`change_line`]).
//!
//! A kind compares two of its folders with its own code (its entry in the
//! kind table, `registry::Versions`); `compare` only finds which kind the
//! folders are. Reads the summary and units files of a folder; computes no
//! statistic; writes nothing (the units files are handed to the one
//! writer as data).

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};
use serde_json::Value;

use rsmreport_core::provenance::folder_digest;
use rsmreport_core::table::{frame, text_values, Frame, Table as DataTable, Text, Values};
use rsmreport_io::input::archive::experiment_folder;
use rsmreport_io::output::OutputFile;
use rsmreport_report::render::context::{Cell, InputCtx, Row, Table, TocEntry};
use rsmreport_report::render::format::{leading_count, p_clause, signed3};
use rsmreport_report::render::tables::{head, text_cell};
use rsmreport_report::render::Builder;
use rsmreport_report::render::{Block, Report, Section};

use super::comparison::Estimate;

/// The version of the units files' format.
pub const UNITS_VERSION: u64 = 1;

/// `output/<id>_units.json`, relative to the output folder.
pub fn units_json_path(id: &str) -> PathBuf {
    Path::new("output").join(format!("{id}_units.json"))
}

/// `output/<id>_units.parquet`, relative to the output folder.
pub fn units_table_path(id: &str) -> PathBuf {
    Path::new("output").join(format!("{id}_units.parquet"))
}

/// The two units files of a run: `table` (one row per unit, as parquet)
/// and the document `settings` with the envelope `kind`, `units_version`,
/// `unit` (what a row is: `item`, `segment`, ...), `units` (rows) and
/// `file` (the table's name).
pub fn units_files(
    id: &str,
    kind: &str,
    unit: &str,
    settings: Value,
    table: DataTable,
) -> Result<Vec<OutputFile>> {
    let rows = table.nrows;
    let table_path = units_table_path(id);
    let bytes = rsmreport_io::output::file::parquet_bytes(table)
        .with_context(|| format!("cannot make {}", table_path.display()))?;
    let mut doc = serde_json::json!({
        "kind": kind,
        "units_version": UNITS_VERSION,
        "unit": unit,
        "units": rows,
        "file": table_path.file_name().map(|n| n.to_string_lossy().into_owned()),
    });
    if let (Value::Object(d), Value::Object(s)) = (&mut doc, settings) {
        d.extend(s);
    }
    Ok(vec![
        OutputFile {
            path: table_path,
            bytes,
        },
        OutputFile {
            path: units_json_path(id),
            bytes: rsmreport_io::output::json::bytes(&doc),
        },
    ])
}

/// The name of the experiment file `path` (no folder: an archive keeps
/// no path of the machine that wrote it), as a units file records it.
pub fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// An archived output folder of any kind, as `compare` finds it: its
/// summary (`output/<id>_summary.json`) and the kind it names.
#[derive(Clone, Debug)]
pub struct Folder {
    /// The folder as given.
    pub dir: PathBuf,
    /// Its `output/` folder.
    pub output: PathBuf,
    /// The experiment id (the prefix of its files).
    pub id: String,
    /// The kind that wrote it (the summary's `kind`).
    pub kind: String,
    /// The summary document.
    pub summary: Value,
}

/// The `output/` folder of a folder argument (the folder itself when it
/// is an `output/` folder).
fn output_of(dir: &Path) -> PathBuf {
    let dir = experiment_folder(dir);
    dir.join("output")
}

/// The summary files of an `output/` folder: `(file name, document)`.
fn summaries(output: &Path) -> Vec<(String, Value)> {
    let Ok(entries) = std::fs::read_dir(output) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| {
            n.ends_with("_summary.json")
                || rsmreport_io::summary::LEGACY
                    .iter()
                    .any(|(suffix, _)| n.ends_with(suffix))
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .filter_map(|n| {
            let text = std::fs::read_to_string(output.join(&n)).ok()?;
            Some((n, serde_json::from_str(&text).unwrap_or(Value::Null)))
        })
        .collect()
}

impl Folder {
    /// The kind a folder argument's summary names (`None`: no summary
    /// that names one, as a build's of early releases).
    pub fn kind_of(dir: &Path) -> Option<String> {
        summaries(&output_of(dir))
            .iter()
            .find_map(|(n, doc)| rsmreport_io::summary::kind_of(n, doc))
    }

    /// The folder `dir` (the `role` folder, for messages), whose summary
    /// names its kind (configuration errors otherwise).
    pub fn open(dir: &Path, role: &str) -> Result<Folder> {
        let output = output_of(dir);
        let found = summaries(&output)
            .into_iter()
            .find_map(|(n, doc)| Some((rsmreport_io::summary::kind_of(&n, &doc)?, n, doc)));
        let Some((kind, name, summary)) = found else {
            return Err(rsmreport_core::error::config(anyhow!(
                "the {role} folder {} holds no summary file (output/<id>_summary.json): it is \
                 not an rsmreport output folder",
                dir.display()
            )));
        };
        let id = summary
            .get("experiment_id")
            .and_then(Value::as_str)
            .map_or_else(
                || name.trim_end_matches("_summary.json").to_string(),
                str::to_string,
            );
        Ok(Folder {
            dir: dir.to_path_buf(),
            output,
            id,
            kind,
            summary,
        })
    }

    /// The label of the version: the summary's `model_version`, else the
    /// experiment id.
    pub fn label(&self) -> String {
        match self.summary.get("model_version") {
            Some(Value::String(v)) if !v.is_empty() => v.clone(),
            _ => self.id.clone(),
        }
    }

    /// The folder's `output/<id>_units.json` (a configuration error that
    /// says how to get one when the folder has none: a release before
    /// issue 49 did not keep its units); `unit`: what a unit of the kind
    /// is, for the message.
    pub fn units(&self, unit: &str) -> Result<Value> {
        let path = self
            .output
            .parent()
            .unwrap_or(&self.output)
            .join(units_json_path(&self.id));
        if !path.is_file() {
            return Err(rsmreport_core::error::config(anyhow!(
                "{} is an output folder of `rsmreport {}` without its per-{unit} data \
                 ({} is missing: it was written by an earlier rsmreport); run the experiment \
                 again with this rsmreport to compare it",
                self.dir.display(),
                self.kind,
                units_json_path(&self.id).display()
            )));
        }
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let doc: Value = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a JSON document", path.display()))?;
        match doc.get("units_version").and_then(Value::as_u64) {
            Some(v) if v <= UNITS_VERSION => Ok(doc),
            _ => Err(rsmreport_core::error::config(anyhow!(
                "{}: units_version {} is not one this rsmreport reads (at most {UNITS_VERSION})",
                path.display(),
                doc.get("units_version").unwrap_or(&Value::Null)
            ))),
        }
    }

    /// The folder's per-unit table, `output/<id>_units.parquet`.
    pub fn units_table(&self, text_columns: &[&str]) -> Result<DataTable> {
        let path = self
            .output
            .parent()
            .unwrap_or(&self.output)
            .join(units_table_path(&self.id));
        rsmreport_io::input::read_table(&path, text_columns)
    }

    /// Every file read from the folder (for provenance): the summary and
    /// the units files.
    pub fn files_read(&self) -> Vec<PathBuf> {
        let root = self.output.parent().unwrap_or(&self.output).to_path_buf();
        vec![
            root.join("output")
                .join(rsmreport_io::summary::file_name(&self.id)),
            root.join(units_json_path(&self.id)),
            root.join(units_table_path(&self.id)),
        ]
    }
}

/// A comparison's id: `<baseline>_vs_<candidate>`, every character but
/// `[A-Za-z0-9._-]` as `_` (compare spec 2).
pub fn comparison_id(baseline: &str, candidate: &str) -> String {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "._-".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    format!("{}_vs_{}", clean(baseline), clean(candidate))
}

/// The two folders of one comparison, of one kind.
#[derive(Clone, Debug)]
pub struct Pair {
    pub baseline: Folder,
    pub candidate: Folder,
    /// `--gates FILE`, if given.
    pub gates_file: Option<PathBuf>,
}

impl Pair {
    /// The comparison's id: `<baseline>_vs_<candidate>` of the labels,
    /// every character but `[A-Za-z0-9._-]` as `_` (compare spec 2).
    pub fn id(&self) -> String {
        comparison_id(&self.baseline.label(), &self.candidate.label())
    }

    /// The two labels, told apart when they are the same
    /// (`v1 (baseline)`, `v1 (candidate)`).
    pub fn labels(&self) -> (String, String) {
        let (b, c) = (self.baseline.label(), self.candidate.label());
        if b == c {
            (format!("{b} (baseline)"), format!("{c} (candidate)"))
        } else {
            (b, c)
        }
    }
}

impl Pair {
    /// Both folders' settings, each read from its units document
    /// (`output/<id>_units.json`, [`Folder::units`]) by `of`.
    pub fn settings<S>(
        &self,
        unit: &str,
        of: impl Fn(&UnitsDoc<'_>) -> Result<S>,
    ) -> Result<(S, S)> {
        let (db, dc) = (self.baseline.units(unit)?, self.candidate.units(unit)?);
        Ok((
            of(&UnitsDoc {
                folder: &self.baseline,
                doc: &db,
            })?,
            of(&UnitsDoc {
                folder: &self.candidate,
                doc: &dc,
            })?,
        ))
    }
}

/// A folder's units document, read key by key: a key missing or not of
/// the expected type is a configuration error naming the folder, the
/// file and the key.
pub struct UnitsDoc<'a> {
    pub folder: &'a Folder,
    pub doc: &'a Value,
}

impl UnitsDoc<'_> {
    /// The error of key `key`.
    pub fn bad(&self, key: &str) -> anyhow::Error {
        rsmreport_core::error::config(anyhow!(
            "{}: output/{}_units.json has no valid '{key}'",
            self.folder.dir.display(),
            self.folder.id
        ))
    }

    /// Text `key`.
    pub fn text(&self, key: &str) -> Result<String> {
        self.doc[key]
            .as_str()
            .map(String::from)
            .ok_or_else(|| self.bad(key))
    }

    /// Text `key`, or `None` when it is null or absent.
    pub fn optional_text(&self, key: &str) -> Option<String> {
        self.doc[key].as_str().map(String::from)
    }

    /// List of texts `key`.
    pub fn texts(&self, key: &str) -> Result<Vec<String>> {
        self.doc[key]
            .as_array()
            .and_then(|v| v.iter().map(|x| x.as_str().map(String::from)).collect())
            .ok_or_else(|| self.bad(key))
    }

    /// The `intervals` (`level, replicates, seed`; `None`: off).
    pub fn resampling(&self) -> Result<Option<(f64, u64, u64)>> {
        let i = &self.doc["intervals"];
        if i.is_null() {
            return Ok(None);
        }
        let bad = || self.bad("intervals");
        Ok(Some((
            i["level"].as_f64().ok_or_else(bad)?,
            i["replicates"].as_u64().ok_or_else(bad)?,
            i["seed"].as_u64().ok_or_else(bad)?,
        )))
    }

    /// The `file_format` of the tables (csv unless tsv or xlsx).
    pub fn file_format(&self) -> rsmreport_core::schema::FileFormat {
        use rsmreport_core::schema::FileFormat;
        match self.doc["file_format"].as_str() {
            Some("tsv") => FileFormat::Tsv,
            Some("xlsx") => FileFormat::Xlsx,
            _ => FileFormat::Csv,
        }
    }
}

/// The `intervals` of a units document: `level, replicates, seed` and the
/// resampled `unit`.
pub fn intervals_json(resampling: Option<(f64, u64, u64)>, unit: &str) -> Value {
    resampling.map_or(Value::Null, |(level, replicates, seed)| {
        serde_json::json!({"level": level, "replicates": replicates, "seed": seed, "unit": unit})
    })
}

/// One row of a comparison's preflight: what is compared, its status
/// (`same`, `differs`, `not available`) and each side's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreflightRow {
    pub item: String,
    pub status: String,
    pub baseline: String,
    pub candidate: String,
}

impl PreflightRow {
    /// A row whose status is `same` when both values are, else `differs`.
    pub fn judged(item: &str, baseline: String, candidate: String) -> PreflightRow {
        PreflightRow {
            item: item.to_string(),
            status: if baseline == candidate {
                "same"
            } else {
                "differs"
            }
            .to_string(),
            baseline,
            candidate,
        }
    }
}

/// The preflight table on the terminal (compare spec 2.1): one line per
/// row, `item  status  baseline | candidate` (`-` for an empty value).
pub fn preflight_lines(rows: &[PreflightRow]) -> Vec<String> {
    let mut out = vec!["preflight (baseline | candidate):".to_string()];
    let width = rows
        .iter()
        .map(|r| r.item.chars().count())
        .max()
        .unwrap_or(0);
    let shown = |s: &str| {
        if s.is_empty() {
            "-".to_string()
        } else {
            folded(&leading_count(s))
        }
    };
    for r in rows {
        let pad = width - r.item.chars().count();
        out.push(format!(
            "  {}{}  {:<13}  {} | {}",
            r.item,
            " ".repeat(pad),
            r.status,
            shown(&r.baseline),
            shown(&r.candidate)
        ));
    }
    out
}

/// The characters of a preflight value the terminal shows before it
/// folds the rest of a list.
const FOLD_CHARS: usize = 60;

/// A preflight value on the terminal: a long list (`; `-separated) as its
/// first items within [`FOLD_CHARS`] (at least one) and how many more
/// (the preflight table and the report keep every item).
pub fn folded(value: &str) -> String {
    let parts: Vec<&str> = value.split("; ").collect();
    if value.chars().count() <= FOLD_CHARS || parts.len() < 2 {
        return value.to_string();
    }
    let mut kept = 1;
    while kept < parts.len() && parts[..=kept].join("; ").chars().count() <= FOLD_CHARS {
        kept += 1;
    }
    if kept == parts.len() {
        return value.to_string();
    }
    format!("{}; +{} more", parts[..kept].join("; "), parts.len() - kept)
}

/// The preflight table of a report (compare spec 2.1): item, each side's
/// value, status (coloured).
pub fn preflight_table(b: &mut Builder, rows: &[PreflightRow]) -> Table {
    let mut t = b.table(
        "preflight",
        "What is being compared: each row the same on both sides, different, or not available.",
        false,
        true,
    );
    t.columns = ["item", "baseline", "candidate", "status"]
        .iter()
        .map(|n| head(n, false))
        .collect();
    t.rows = rows
        .iter()
        .map(|r| Row {
            cells: vec![
                Cell {
                    header: true,
                    ..text_cell(&r.item)
                },
                text_cell(&leading_count(&r.baseline)),
                text_cell(&leading_count(&r.candidate)),
                Cell {
                    class: format!("preflight-{}", r.status.replace(' ', "-")),
                    ..text_cell(&r.status)
                },
            ],
            class: String::new(),
        })
        .collect();
    t
}

/// A statistic's terminal line of a comparison, criterion-style:
/// `  <scope> change: [lower delta upper] <unit> (p ...) <verdict>`.
pub fn change_line(
    scope: &str,
    delta: &Estimate,
    unit: Option<&str>,
    p_value: f64,
    verdict: &str,
) -> String {
    format!(
        "  {scope:<22} change: [{} {} {}]{} ({}) {verdict}",
        signed3(delta.lower),
        signed3(delta.value),
        signed3(delta.upper),
        unit.map_or(String::new(), |u| format!(" {u}")),
        p_clause(p_value),
    )
}

/// The preflight as a table file, `<cid>_preflight` (`item, baseline,
/// candidate, status`).
pub fn preflight_frame(rows: &[PreflightRow]) -> Frame {
    let texts = |f: &dyn Fn(&PreflightRow) -> &str| {
        text_values(rows.iter().map(|r| Some(f(r).to_string())))
    };
    frame(
        "preflight",
        vec![
            ("item", texts(&|r| &r.item)),
            ("baseline", texts(&|r| &r.baseline)),
            ("candidate", texts(&|r| &r.candidate)),
            ("status", texts(&|r| &r.status)),
        ],
    )
}

/// The preflight in a summary document.
pub fn preflight_json(rows: &[PreflightRow]) -> Value {
    Value::Array(
        rows.iter()
            .map(|r| {
                serde_json::json!({
                    "item": r.item, "baseline": r.baseline,
                    "candidate": r.candidate, "status": r.status,
                })
            })
            .collect(),
    )
}

/// `report`'s sections with the preflight (a heading and its table)
/// first, and its entry first in the contents.
pub fn add_preflight_section(report: &mut Report, rows: &[PreflightRow]) {
    let mut b = Builder::new(&report.file_prefix, false);
    let heading = b.heading(2, "Preflight");
    let table = preflight_table(&mut b, rows);
    report.toc.insert(
        0,
        TocEntry {
            id: heading.id.clone(),
            text: heading.text.clone(),
            children: Vec::new(),
        },
    );
    report.sections.insert(
        0,
        Section {
            id: "preflight".into(),
            name: "preflight".into(),
            kind: "builtin".into(),
            blocks: vec![Block::Heading(heading), Block::Table(table)],
        },
    );
}

/// A folder's entry in the report's inputs table: its path and what its
/// SHA-256 is (the JSON's `inputs` lists every file with its own).
pub fn folder_label(path: &str, files: usize) -> String {
    format!("{path} (folder: {files} files read; the SHA-256 of their sorted sha256sum listing)")
}

/// A folder read by a comparison: its row of the report's inputs table
/// and its entry of the summary's `inputs` (every file read with its
/// SHA-256); `rows`: the units it holds, as shown.
pub fn folder_input(role: &str, f: &Folder, rows: String) -> Result<(InputCtx, Value)> {
    let files: Vec<PathBuf> = f.files_read().into_iter().filter(|p| p.is_file()).collect();
    let root = f.output.parent().unwrap_or(&f.output);
    let digest = folder_digest(root, &files)?;
    let path = f.dir.display().to_string();
    let json = serde_json::json!({
        "role": role,
        "path": path,
        "sha256": digest.sha256,
        "files": digest.files.iter()
            .map(|(file, sha256)| serde_json::json!({"file": file, "sha256": sha256}))
            .collect::<Vec<_>>(),
    });
    let ctx = InputCtx {
        role: role.to_string(),
        path: folder_label(&path, digest.files.len()),
        rows,
        sha256: digest.sha256,
    };
    Ok((ctx, json))
}

/// The system a folder keeps for the version workflow: the only one,
/// else the last that is not the baseline (the version under test).
pub fn kept_system(n_systems: usize, baseline: usize) -> usize {
    (0..n_systems)
        .rev()
        .find(|&s| s != baseline || n_systems == 1)
        .unwrap_or(0)
}

/// Column `name` of a units table, moved out of it (a data error naming
/// `file` when it is missing).
pub fn take_column(t: &mut DataTable, name: &str, file: &Path) -> Result<Values> {
    let i = t
        .columns
        .iter()
        .position(|c| c.name == name)
        .ok_or_else(|| anyhow!("{}: no column '{name}'", file.display()))?;
    Ok(std::mem::replace(
        &mut t.columns[i].values,
        Values::Int(Vec::new()),
    ))
}

/// Text column `name` of a units table, moved out of it.
pub fn take_texts(t: &mut DataTable, name: &str, file: &Path) -> Result<Vec<Option<Text>>> {
    match take_column(t, name, file)? {
        Values::Text(v) => Ok(v),
        // A column of blanks only.
        Values::Float(v) if v.iter().all(|x| x.is_nan()) => Ok(vec![None; v.len()]),
        _ => Err(anyhow!("{}: column '{name}' is not text", file.display())),
    }
}

/// The shared items of two folders' units, paired by id in the
/// baseline's order: the pairs whose ground truth agrees (`same(i, j)`),
/// how many ids both have, and the ids whose ground truth differs.
#[derive(Clone, Debug, Default)]
pub struct Paired {
    /// `(baseline row, candidate row)` of each shared unit whose ground
    /// truth agrees.
    pub rows: Vec<(usize, usize)>,
    pub shared: usize,
    /// Shared units whose ground truth differs: how many, the first ids.
    pub differs: usize,
    pub differs_ids: Vec<String>,
}

/// How many differing ids a message names.
const SHOWN: usize = 5;

/// Pairs the units of ids `b` (baseline) and `c` by id.
pub fn pair_units(
    b: &[Option<Text>],
    c: &[Option<Text>],
    same: impl Fn(usize, usize) -> bool,
) -> Paired {
    let index: std::collections::HashMap<&str, usize> = c
        .iter()
        .enumerate()
        .filter_map(|(i, id)| Some((id.as_deref()?, i)))
        .collect();
    let mut out = Paired::default();
    for (i, id) in b.iter().enumerate() {
        let Some(&j) = id.as_deref().and_then(|id| index.get(id)) else {
            continue;
        };
        out.shared += 1;
        if same(i, j) {
            out.rows.push((i, j));
        } else {
            out.differs += 1;
            if out.differs_ids.len() < SHOWN {
                out.differs_ids
                    .push(id.as_deref().unwrap_or_default().to_string());
            }
        }
    }
    out
}

/// The preflight rows every kind's comparison starts with: the units of
/// each side, those in common (`differs` below 90% of either side), those
/// whose ground truth (`truth`: `gold labels`, `references`) differs.
pub fn unit_rows(
    unit: &str,
    truth: &str,
    (nb, nc): (usize, usize),
    p: &Paired,
) -> Vec<PreflightRow> {
    let count = |n: usize| rsmreport_report::render::format::thousands(n as u64);
    let share = |n: usize, of: usize| {
        let pct = if of == 0 {
            0.0
        } else {
            100.0 * n as f64 / of as f64
        };
        format!("{} ({pct:.1}%)", count(n))
    };
    let low = p.shared * 10 < nb * 9 || p.shared * 10 < nc * 9 || p.shared == 0;
    let status = |bad: bool| if bad { "differs" } else { "same" }.to_string();
    vec![
        PreflightRow::judged(&format!("{unit}s"), count(nb), count(nc)),
        PreflightRow {
            item: format!("{unit}s in common"),
            status: status(low),
            baseline: share(p.shared, nb),
            candidate: share(p.shared, nc),
        },
        PreflightRow {
            item: format!("{truth} differing on common {unit}s"),
            status: status(p.differs > 0),
            baseline: count(p.differs),
            candidate: count(p.differs),
        },
    ]
}

/// The preflight rows of the summaries' envelopes and producers.
pub fn envelope_rows(pair: &Pair) -> Vec<PreflightRow> {
    let text = |v: &Value| match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    ["experiment_id", "model_version", "producer"]
        .iter()
        .map(|key| {
            PreflightRow::judged(
                key,
                text(&pair.baseline.summary[*key]),
                text(&pair.candidate.summary[*key]),
            )
        })
        .collect()
}

/// The warnings of a comparison's first screen: ground truth that
/// differs (no verdict), few units in common, settings that differ
/// (`settings`: the preflight items whose baseline value is used).
pub fn warnings(
    unit: &str,
    truth: &str,
    p: &Paired,
    rows: &[PreflightRow],
    settings: &[&str],
) -> Vec<String> {
    let count = |n: usize| rsmreport_report::render::format::thousands(n as u64);
    let mut out = Vec::new();
    if p.differs > 0 {
        out.push(format!(
            "the {truth} differ on {} of the {} {unit}s in common (first: {}): every statistic \
             depends on them, so no verdict is given; the numbers are those of the {} {unit}s \
             whose {truth} agree",
            count(p.differs),
            count(p.shared),
            p.differs_ids.join(", "),
            count(p.rows.len())
        ));
    }
    if rows.get(1).is_some_and(|r| r.status == "differs") {
        out.push(format!(
            "the two versions share {} {unit}s: fewer than 90% of either side's; the \
             comparison is on the {unit}s in common only",
            rows[1].baseline
        ));
    }
    for r in rows
        .iter()
        .filter(|r| settings.contains(&r.item.as_str()) && r.status == "differs")
    {
        out.push(format!(
            "{} differ ({} | {}): the baseline folder's are used",
            r.item, r.baseline, r.candidate
        ));
    }
    out
}

/// A comparison of two folders of one kind: the kind's own report of the
/// two versions as the two systems of one run (`inner`), with the
/// preflight first, the folders as its inputs, the warnings of the first
/// screen and compare's terminal shape.
pub struct Compared {
    pub inner: Box<dyn crate::kinds::Report>,
    /// The kind compared (`classify`), and what a unit is (`item`).
    pub kind: &'static str,
    pub unit: &'static str,
    /// The report's kind line (`Classification comparison`).
    pub title: &'static str,
    pub preflight: Vec<PreflightRow>,
    pub warnings: Vec<String>,
    /// Each folder's row of the report's inputs and entry of the JSON's.
    pub inputs: Vec<(InputCtx, Value)>,
    /// The units compared.
    pub paired: usize,
    /// `compare B (baseline) -> C (candidate), <kind>, paired on N units:`
    /// and one [`change_line`] per statistic shown.
    pub lines: Vec<String>,
}

impl crate::kinds::Report for Compared {
    fn id(&self) -> &str {
        self.inner.id()
    }

    fn tables(&self) -> crate::kinds::Tables<'_> {
        let first = std::iter::once(std::borrow::Cow::Owned(preflight_frame(&self.preflight)));
        Box::new(first.chain(self.inner.tables()))
    }

    fn table_format(&self) -> rsmreport_core::schema::FileFormat {
        self.inner.table_format()
    }

    fn summary(&self) -> Value {
        let mut doc = self.inner.summary();
        if let Value::Object(m) = &mut doc {
            m.insert("compared_kind".into(), Value::from(self.kind));
            m.insert("unit".into(), Value::from(self.unit));
            m.insert("paired_units".into(), Value::from(self.paired));
            m.insert("preflight".into(), preflight_json(&self.preflight));
            m.insert("warnings".into(), serde_json::json!(self.warnings));
            let inputs = self.inputs.iter().map(|i| i.1.clone()).collect();
            m.insert("inputs".into(), Value::Array(inputs));
        }
        doc
    }

    fn inputs(&self) -> Vec<InputCtx> {
        self.inputs.iter().map(|i| i.0.clone()).collect()
    }

    fn gates(&self) -> &[crate::gates::Outcome] {
        self.inner.gates()
    }

    fn decision(&self) -> Option<rsmreport_report::render::Decision> {
        let mut d = self.inner.decision()?;
        d.warnings.extend(self.warnings.iter().cloned());
        Some(d)
    }

    fn report(&self, epoch: i64) -> Result<Report> {
        let mut r = self.inner.report(epoch)?;
        r.header.kind = self.title.into();
        r.header.inputs = self.inputs();
        r.header.decision = self.decision();
        add_preflight_section(&mut r, &self.preflight);
        Ok(r)
    }

    fn report_name(&self) -> &'static str {
        "compare"
    }

    fn lines(&self, _written: &[PathBuf], _dir: &Path) -> Vec<String> {
        let mut out = preflight_lines(&self.preflight);
        out.extend(self.lines.iter().cloned());
        out.extend(self.warnings.iter().map(|w| format!("note: {w}")));
        out
    }
}

/// Interval settings as a preflight value: `level 0.95, 1000 replicates,
/// seed 0`, or `none`.
pub fn intervals_text(settings: Option<(f64, u64, u64)>) -> String {
    settings.map_or_else(
        || "none".to_string(),
        |(level, replicates, seed)| format!("level {level}, {replicates} replicates, seed {seed}"),
    )
}

/// Margins as a preflight value: `accuracy 0.01, macro_f1 0.01`.
pub fn margins_text(margins: &[(String, f64)]) -> String {
    margins
        .iter()
        .map(|(k, m)| format!("{k} {m}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The error of two folders with no unit in common whose ground truth
/// agrees (a configuration error naming both folders and their units).
pub fn no_common_units(
    pair: &Pair,
    unit: &str,
    truth: &str,
    (nb, nc): (usize, usize),
    p: &Paired,
) -> anyhow::Error {
    let count = |n: usize| rsmreport_report::render::format::thousands(n as u64);
    rsmreport_core::error::config(anyhow!(
        "the baseline folder {} ({} {unit}s) and the candidate folder {} ({} {unit}s) have no \
         {unit} in common{}: they evaluated different {unit}s",
        pair.baseline.dir.display(),
        count(nb),
        pair.candidate.dir.display(),
        count(nc),
        if p.shared > 0 {
            format!(" whose {truth} agree")
        } else {
            String::new()
        }
    ))
}

/// Both folders as a comparison's inputs ([`folder_input`]), with the
/// units each holds.
pub fn folder_inputs(pair: &Pair, (nb, nc): (usize, usize)) -> Result<Vec<(InputCtx, Value)>> {
    let count = |n: usize| rsmreport_report::render::format::thousands(n as u64);
    Ok(vec![
        folder_input("baseline", &pair.baseline, count(nb))?,
        folder_input("candidate", &pair.candidate, count(nc))?,
    ])
}

/// The `[[gates]]` of `--gates FILE` for a kind that checks them itself
/// (a configuration error naming the file).
pub fn gates_tables(file: &Path) -> Result<Option<Value>> {
    rsmreport_config::gates::load_tables(file).map_err(rsmreport_core::error::config)
}

/// A setting of both folders, `Some((name, baseline, candidate))` (as
/// written by `Debug`) when the two differ.
pub fn differing<T: PartialEq + std::fmt::Debug>(
    name: &'static str,
    b: &T,
    c: &T,
) -> Option<(&'static str, String, String)> {
    (b != c).then(|| (name, format!("{b:?}"), format!("{c:?}")))
}

/// A folder's interval settings (`level, replicates, seed`) and margins.
pub type Judging<'a> = (Option<(f64, u64, u64)>, &'a [(String, f64)]);

/// The preflight rows of both folders' interval settings and margins.
pub fn judging_rows(b: Judging<'_>, c: Judging<'_>) -> [PreflightRow; 2] {
    [
        PreflightRow::judged("intervals", intervals_text(b.0), intervals_text(c.0)),
        PreflightRow::judged("margins", margins_text(b.1), margins_text(c.1)),
    ]
}

/// compare's terminal lines of a kind's comparison rows: the `heading`,
/// then one [`change_line`] per overall statistic and per other scope
/// whose verdict is a regression (`statistic scope`); `name` gives a
/// statistic's shown name.
pub fn change_lines<'a, X: 'a>(
    heading: String,
    rows: impl IntoIterator<Item = &'a super::comparison::ComparisonRow<X>>,
    name: impl Fn(&str) -> String,
) -> Vec<String> {
    let mut out = vec![heading];
    for r in rows {
        if r.scope == "overall" || r.verdict.direction() == Some(false) {
            let scope = if r.scope == "overall" {
                name(&r.statistic)
            } else {
                format!("{} {}", name(&r.statistic), r.scope)
            };
            let verdict = r.verdict.name();
            out.push(change_line(&scope, &r.delta, None, r.p_value, verdict));
        }
    }
    out
}
