//! Command assembly (sequence): reads the segments (spec `sequence.md`
//! 1.2): Input A, one table through `rsmreport_io::input` (cells verbatim, an
//! empty reference cell is missing), or Input B, sacreBLEU-style text files
//! (lines split on `\n`, `rstrip()`-ed, a leading BOM removed), each with
//! its SHA-256. Rows without any reference are dropped and counted.
//!
//! Reads only the configured inputs; computes no statistic; writes nothing.

use std::path::Path;

use anyhow::{bail, Result};

use rsmreport_config::sequence::{SequenceConfig, Source};
use rsmreport_core::provenance::{read_with_checksum, timed};
use rsmreport_core::table::Values;
use rsmreport_metrics::sequence::text::{py_rstrip, py_strip};
use rsmreport_report::render::context::InputCtx;

/// The kept segments of every system.
#[derive(Debug, Clone, Default)]
pub struct Segments {
    /// Data rows (or lines) read.
    pub n_rows: usize,
    /// Ids of the kept segments, in input order.
    pub ids: Vec<String>,
    /// Ids of the rows dropped for having no reference.
    pub dropped_ids: Vec<String>,
    /// `refs[stream][segment]`; `None` = missing.
    pub refs: Vec<Vec<Option<String>>>,
    /// System names, in order.
    pub systems: Vec<String>,
    /// `hyps[system][segment]`.
    pub hyps: Vec<Vec<String>>,
    /// Subgroup columns with each kept segment's level.
    pub subgroups: Vec<(String, Vec<String>)>,
    /// The WER family's tokens of every segment when a `[wer]` side is a
    /// list of jiwer steps (set by the run before the statistics:
    /// [`super::pipelines::segment_tokens`]); `None` on jiwer's named
    /// transforms, which the statistics apply as they go.
    pub wer_tokens: Option<super::pipelines::SegmentTokens>,
}

impl Segments {
    /// Number of kept segments.
    pub fn n(&self) -> usize {
        self.ids.len()
    }

    /// The present references of segment `i`.
    pub fn present_refs(&self, i: usize) -> Vec<&str> {
        self.refs.iter().filter_map(|s| s[i].as_deref()).collect()
    }
}

/// Reads the segments; the provenance rows of the files read.
pub fn read(cfg: &SequenceConfig) -> Result<(Segments, Vec<InputCtx>)> {
    match &cfg.source {
        Source::Table {
            file,
            id_column,
            reference_columns,
            system_columns,
            subgroups,
        } => {
            let (segments, sha) = read_with_checksum(file, || {
                timed("read", || {
                    read_table(
                        file,
                        id_column.as_deref(),
                        reference_columns,
                        system_columns,
                        subgroups,
                    )
                })
            });
            let (segments, _rows) = segments?;
            let input = InputCtx {
                role: "predictions".into(),
                path: file.display().to_string(),
                rows: segments.n_rows.to_string(),
                sha256: sha?,
            };
            Ok((segments, vec![input]))
        }
        Source::TextFiles {
            references,
            systems,
        } => read_text_files(references, systems),
        Source::None => Ok((Segments::default(), Vec::new())),
    }
}

fn text_cells(values: &Values, n: usize) -> Vec<Option<String>> {
    (0..n)
        .map(|i| match values.cell(i) {
            rsmreport_core::table::Cell::Missing => None,
            rsmreport_core::table::Cell::Text(s) => Some(s),
            rsmreport_core::table::Cell::Int(v) => Some(v.to_string()),
            rsmreport_core::table::Cell::Float(v) => Some(rsmreport_core::pyrepr::py_float(v)),
            rsmreport_core::table::Cell::Bool(b) => {
                Some(if b { "True" } else { "False" }.to_string())
            }
        })
        .collect()
}

fn read_table(
    path: &Path,
    id_column: Option<&str>,
    reference_columns: &[String],
    system_columns: &[String],
    subgroups: &[String],
) -> Result<(Segments, usize)> {
    let mut wanted: Vec<&str> = Vec::new();
    wanted.extend(id_column);
    wanted.extend(reference_columns.iter().map(String::as_str));
    wanted.extend(system_columns.iter().map(String::as_str));
    wanted.extend(subgroups.iter().map(String::as_str));
    let table = rsmreport_io::input::read_table(path, &wanted)?;
    let names = table
        .names()
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>();
    for w in &wanted {
        if table.column(w).is_none() {
            bail!(
                "{}: column '{w}' named in the experiment file is not in the file (its columns are {})",
                path.display(),
                names.join(", ")
            );
        }
    }
    let n = table.nrows;
    let col = |name: &str| text_cells(&table.column(name).expect("checked").values, n);
    let ids: Vec<String> = match id_column {
        Some(c) => col(c)
            .into_iter()
            .map(|v| v.map(|s| py_strip(&s).to_string()).unwrap_or_default())
            .collect(),
        None => (1..=n).map(|i| i.to_string()).collect(),
    };
    if let Some(c) = id_column {
        check_ids(path, c, &ids)?;
    }
    let refs: Vec<Vec<Option<String>>> = reference_columns
        .iter()
        .map(|c| {
            col(c)
                .into_iter()
                .map(|v| v.filter(|s| !s.is_empty()))
                .collect()
        })
        .collect();
    let hyps: Vec<Vec<String>> = system_columns
        .iter()
        .map(|c| col(c).into_iter().map(Option::unwrap_or_default).collect())
        .collect();
    let groups: Vec<(String, Vec<String>)> = subgroups
        .iter()
        .map(|g| {
            let levels = col(g)
                .into_iter()
                .map(|v| {
                    let t = v.map(|s| s.trim().to_string()).unwrap_or_default();
                    if t.is_empty() {
                        "(blank)".to_string()
                    } else {
                        t
                    }
                })
                .collect();
            (g.clone(), levels)
        })
        .collect();
    Ok((keep(ids, refs, system_columns.to_vec(), hyps, groups), n))
}

fn check_ids(path: &Path, column: &str, ids: &[String]) -> Result<()> {
    let mut seen = std::collections::HashMap::new();
    for (i, id) in ids.iter().enumerate() {
        if id.is_empty() {
            bail!(
                "{}: row {}: column '{column}' is empty (ids must be given)",
                path.display(),
                i + 1
            );
        }
        if let Some(first) = seen.insert(id.as_str(), i) {
            bail!(
                "{}: row {}: id '{id}' in column '{column}' repeats row {} (ids must be unique)",
                path.display(),
                i + 1,
                first + 1
            );
        }
    }
    Ok(())
}

/// Keeps the rows with at least one present reference.
fn keep(
    ids: Vec<String>,
    refs: Vec<Vec<Option<String>>>,
    systems: Vec<String>,
    hyps: Vec<Vec<String>>,
    groups: Vec<(String, Vec<String>)>,
) -> Segments {
    let n = ids.len();
    let kept: Vec<usize> = (0..n)
        .filter(|&i| refs.iter().any(|s| s[i].is_some()))
        .collect();
    let dropped_ids = (0..n)
        .filter(|&i| refs.iter().all(|s| s[i].is_none()))
        .map(|i| ids[i].clone())
        .collect();
    let pick = |v: &Vec<String>| kept.iter().map(|&i| v[i].clone()).collect::<Vec<_>>();
    Segments {
        n_rows: n,
        ids: pick(&ids),
        dropped_ids,
        refs: refs
            .iter()
            .map(|s| kept.iter().map(|&i| s[i].clone()).collect())
            .collect(),
        systems,
        hyps: hyps.iter().map(pick).collect(),
        subgroups: groups.iter().map(|(g, v)| (g.clone(), pick(v))).collect(),
        wer_tokens: None,
    }
}

/// `1 line`, `3 lines`.
fn line_count(n: usize) -> String {
    if n == 1 {
        "1 line".into()
    } else {
        format!("{n} lines")
    }
}

/// The error of an input without any segment left (spec 7, exit 1),
/// naming the file: every row's references are missing, or there is no
/// row or line at all.
pub fn no_segment_left(cfg: &SequenceConfig, seg: &Segments) -> anyhow::Error {
    match &cfg.source {
        Source::Table {
            file,
            reference_columns,
            ..
        } if seg.n_rows > 0 => {
            let rows = if seg.n_rows == 1 {
                "its only row lacks".to_string()
            } else {
                format!("every one of its {} rows lacks", seg.n_rows)
            };
            anyhow::anyhow!(
                "{}: no segment left: {rows} a reference (reference_columns: {} are empty)",
                file.display(),
                reference_columns.join(", ")
            )
        }
        Source::Table { file, .. } => {
            anyhow::anyhow!(
                "{}: no segment left: the table has no data row",
                file.display()
            )
        }
        Source::TextFiles { references, .. } => anyhow::anyhow!(
            "{}: no segment left: the reference and system files have no line",
            references[0].display()
        ),
        Source::None => anyhow::anyhow!("no segment left"),
    }
}

/// One text file's lines (spec 1.2): UTF-8, a leading BOM removed, split
/// on `\n`, a final `\n` ends the last line, each line `rstrip()`-ed.
pub fn text_lines(path: &Path, bytes: &[u8]) -> Result<Vec<String>> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let line = bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1;
            bail!(
                "{}: line {line}: the file is not UTF-8 text",
                path.display()
            );
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let body = text.strip_suffix('\n').unwrap_or(text);
    if text.is_empty() {
        return Ok(Vec::new());
    }
    Ok(body.split('\n').map(|l| py_rstrip(l).to_string()).collect())
}

fn read_text_files(
    references: &[std::path::PathBuf],
    systems: &[(String, std::path::PathBuf)],
) -> Result<(Segments, Vec<InputCtx>)> {
    let mut inputs = Vec::new();
    let mut read = |path: &Path, role: &str| -> Result<Vec<String>> {
        let (lines, sha) = read_with_checksum(path, || {
            let bytes = std::fs::read(path)
                .map_err(|e| anyhow::anyhow!("{}: cannot read the file: {e}", path.display()))?;
            text_lines(path, &bytes)
        });
        let lines = lines?;
        inputs.push(InputCtx {
            role: role.into(),
            path: path.display().to_string(),
            rows: lines.len().to_string(),
            sha256: sha?,
        });
        Ok(lines)
    };
    let mut refs = Vec::new();
    for (k, r) in references.iter().enumerate() {
        let role = format!("reference {}", k + 1);
        refs.push((r.clone(), read(r, "reference")?, role));
    }
    let mut hyps = Vec::new();
    for (name, p) in systems {
        let role = format!("system {name}");
        hyps.push((p.clone(), read(p, &role)?, role));
    }
    let (first_path, first, _) = &refs[0];
    let n = first.len();
    for (p, lines, role) in refs.iter().chain(hyps.iter()) {
        if lines.len() != n {
            bail!(
                "{} ({role}) has {} but {} (reference 1) has {}; every reference and system \
                 file needs one line per segment",
                p.display(),
                line_count(lines.len()),
                first_path.display(),
                line_count(n)
            );
        }
    }
    let ids = (1..=n).map(|i| i.to_string()).collect();
    let segments = keep(
        ids,
        refs.into_iter()
            .map(|(_, l, _)| l.into_iter().map(Some).collect())
            .collect(),
        systems.iter().map(|(s, _)| s.clone()).collect(),
        hyps.into_iter().map(|(_, l, _)| l).collect(),
        Vec::new(),
    );
    Ok((segments, inputs))
}
