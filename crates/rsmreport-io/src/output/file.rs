//! Stage 6 (output): single files outside an output folder, for
//! `rsmreport simulate` (a predictions table streamed in chunks, a scale
//! file, an experiment file). Writes only the file it is given, through a
//! temporary sibling renamed into place, so a failed write never leaves a
//! half-written file; refuses to replace an existing file without `force`.
//! Computes nothing and must not touch the output folder logic of
//! `output::write_output_dir_with`.

use super::write::to_delimited;
use anyhow::{bail, Context, Result};
use rsmreport_core::pyrepr::{write_i64, write_py_float};
use rsmreport_core::table::{Cell, Frame, Table, Values};
use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Formats a table can be written in (those `input` reads, except xlsx).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableFormat {
    Csv,
    Tsv,
    Jsonl,
    Parquet,
}

impl TableFormat {
    pub const NAMES: &'static str = "csv, tsv, jsonl, parquet";

    /// `csv`, `tsv`, `jsonl` (or `jsonlines`), `parquet`, any case.
    pub fn parse(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "csv" => Some(TableFormat::Csv),
            "tsv" => Some(TableFormat::Tsv),
            "jsonl" | "jsonlines" => Some(TableFormat::Jsonl),
            "parquet" => Some(TableFormat::Parquet),
            _ => None,
        }
    }

    /// The format named by the extension of `path`.
    pub fn from_path(path: &Path) -> Option<Self> {
        path.extension()
            .and_then(|e| e.to_str())
            .and_then(Self::parse)
    }

    pub fn extension(self) -> &'static str {
        match self {
            TableFormat::Csv => "csv",
            TableFormat::Tsv => "tsv",
            TableFormat::Jsonl => "jsonl",
            TableFormat::Parquet => "parquet",
        }
    }
}

/// Refuses what [`write_file`] would refuse, before any work is done: a
/// folder in the way, or an existing file without `force`.
pub fn check_new_file(path: &Path, force: bool) -> Result<()> {
    if path.as_os_str().is_empty() {
        bail!("the output file name is empty");
    }
    if path.is_dir() {
        bail!("{} is a folder; give a file name", path.display());
    }
    if path.exists() && !force {
        bail!(
            "{} already exists; use --force to replace it or choose another name",
            path.display()
        );
    }
    Ok(())
}

/// A temporary sibling of `path`: `.<name>.rsmreport-tmp-<pid>`.
fn temporary(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.rsmreport-tmp-{}", std::process::id()))
}

/// Creates `path` with what `fill` writes: into a temporary sibling first,
/// renamed into place once complete (replacing an existing file only with
/// `force`). The parent folder is created if needed.
pub fn write_file_with(
    path: &Path,
    force: bool,
    fill: impl FnOnce(&mut BufWriter<fs::File>) -> Result<()>,
) -> Result<()> {
    check_new_file(path, force)?;
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent)
            .with_context(|| format!("cannot create the folder {}", parent.display()))?;
    }
    let tmp = temporary(path);
    let result = (|| {
        let file = fs::File::create(&tmp).with_context(|| {
            format!("cannot create {} (is the folder writable?)", tmp.display())
        })?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        fill(&mut w)?;
        w.flush()
            .with_context(|| format!("cannot write {}", tmp.display()))?;
        fs::rename(&tmp, path).with_context(|| format!("cannot move {} into place", path.display()))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Creates `path` with `bytes` (see [`write_file_with`]).
pub fn write_file(path: &Path, bytes: &[u8], force: bool) -> Result<()> {
    write_file_with(path, force, |w| {
        w.write_all(bytes)
            .with_context(|| format!("cannot write {}", path.display()))
    })
}

/// The bytes of `table` as one parquet file (the types of
/// [`write_table_chunks`]'s parquet): for a data file of an output folder
/// that the writer puts in place with the others.
pub fn parquet_bytes(table: Table) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    parquet::write(&mut out, [table])?;
    Ok(out)
}

/// Writes the concatenation of `chunks` (tables with the same columns, in
/// order) as one file in `format`; only one chunk is held at a time except
/// for parquet, whose row groups are written chunk by chunk too. Returns the
/// number of rows written.
pub fn write_table_chunks(
    path: &Path,
    format: TableFormat,
    force: bool,
    chunks: impl IntoIterator<Item = Table>,
) -> Result<usize> {
    let mut rows = 0usize;
    write_file_with(path, force, |w| {
        let io = |e: std::io::Error| {
            anyhow::Error::new(e).context(format!("cannot write {}", path.display()))
        };
        match format {
            TableFormat::Csv | TableFormat::Tsv => {
                let sep = if format == TableFormat::Csv {
                    b','
                } else {
                    b'\t'
                };
                for (k, chunk) in chunks.into_iter().enumerate() {
                    rows += chunk.nrows;
                    let bytes = to_delimited(&as_frame(chunk), sep);
                    let body = if k == 0 {
                        &bytes[..]
                    } else {
                        // Every chunk starts with the same header line.
                        let end = bytes.iter().position(|&b| b == b'\n').map_or(0, |p| p + 1);
                        &bytes[end..]
                    };
                    w.write_all(body).map_err(io)?;
                }
            }
            TableFormat::Jsonl => {
                for chunk in chunks {
                    rows += chunk.nrows;
                    w.write_all(&to_json_lines(&chunk)).map_err(io)?;
                }
            }
            TableFormat::Parquet => {
                rows = parquet::write(w, chunks)
                    .with_context(|| format!("cannot write the parquet file {}", path.display()))?;
            }
        }
        Ok(())
    })?;
    Ok(rows)
}

fn as_frame(table: Table) -> Frame {
    Frame::new("table", None, table.columns)
}

/// The table as JSON lines: one object per row, keys in column order.
/// Integers and floats as numbers (Python `repr` digits), booleans as
/// `true`/`false`, text as strings, missing values and `NaN` as `null`,
/// infinities as the strings `"inf"`/`"-inf"` (JSON has no infinity; the
/// readers' numeric coercion turns them back into numbers).
pub fn to_json_lines(table: &Table) -> Vec<u8> {
    let mut out = Vec::with_capacity(table.nrows * (16 + 16 * table.columns.len()));
    let keys: Vec<Vec<u8>> = table
        .columns
        .iter()
        .map(|c| {
            let mut k = serde_json::to_vec(&c.name).expect("a string serialises");
            k.push(b':');
            k
        })
        .collect();
    for row in 0..table.nrows {
        out.push(b'{');
        for (j, col) in table.columns.iter().enumerate() {
            if j > 0 {
                out.push(b',');
            }
            out.extend_from_slice(&keys[j]);
            match &col.values {
                Values::Int(v) => write_i64(&mut out, v[row]),
                Values::Float(v) => json_float(&mut out, v[row]),
                Values::Bool(v) => json_bool(&mut out, v[row]),
                Values::Text(v) => json_text(&mut out, v[row].as_deref()),
                Values::Mixed(v) => match &v[row] {
                    Cell::Missing => out.extend_from_slice(b"null"),
                    Cell::Bool(b) => json_bool(&mut out, *b),
                    Cell::Int(i) => write_i64(&mut out, *i),
                    Cell::Float(x) => json_float(&mut out, *x),
                    Cell::Text(s) => json_text(&mut out, Some(s)),
                },
            }
        }
        out.extend_from_slice(b"}\n");
    }
    out
}

fn json_float(out: &mut Vec<u8>, x: f64) {
    if x.is_nan() {
        out.extend_from_slice(b"null");
    } else if x.is_infinite() {
        out.extend_from_slice(if x > 0.0 { b"\"inf\"" } else { b"\"-inf\"" });
    } else {
        write_py_float(out, x);
    }
}

fn json_bool(out: &mut Vec<u8>, b: bool) {
    out.extend_from_slice(if b { b"true" } else { b"false" });
}

fn json_text(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => serde_json::to_writer(&mut *out, s).expect("writing to a Vec cannot fail"),
        None => out.extend_from_slice(b"null"),
    }
}

/// Parquet through polars. Column types follow the [`Values`] variant (never
/// the data), so every chunk has the same schema: `Int` -> Int64, `Float`
/// -> Float64 (`NaN` null), `Bool` -> Boolean, `Text` -> String, `Mixed`
/// -> Int64 when every cell is an integer or missing, else String (numbers
/// as Python `repr` text).
mod parquet {
    use anyhow::{bail, Result};
    use polars::prelude::{Column, DataFrame, NamedFrom, ParquetWriter, Series};
    use rsmreport_core::pyrepr::py_float;
    use rsmreport_core::table::{Cell, Table, Values};
    use std::io::Write;

    fn column(name: &str, values: &Values) -> Result<Column> {
        let name = name.into();
        let series = match values {
            Values::Int(v) => Series::new(name, v),
            Values::Float(v) => Series::new(
                name,
                v.iter()
                    .map(|x| (!x.is_nan()).then_some(*x))
                    .collect::<Vec<_>>(),
            ),
            Values::Bool(v) => Series::new(name, v),
            Values::Text(v) => Series::new(
                name,
                v.iter()
                    .map(|s| s.as_deref())
                    .collect::<Vec<Option<&str>>>(),
            ),
            Values::Mixed(v) => {
                let ints: Option<Vec<Option<i64>>> = v
                    .iter()
                    .map(|c| match c {
                        Cell::Int(i) => Some(Some(*i)),
                        Cell::Missing => Some(None),
                        _ => None,
                    })
                    .collect();
                match ints {
                    Some(ints) => Series::new(name, ints),
                    None => Series::new(
                        name,
                        v.iter()
                            .map(|c| match c {
                                Cell::Missing => None,
                                Cell::Bool(b) => Some(if *b { "True" } else { "False" }.into()),
                                Cell::Int(i) => Some(i.to_string()),
                                Cell::Float(x) => Some(py_float(*x)),
                                Cell::Text(s) => Some(s.clone()),
                            })
                            .collect::<Vec<Option<String>>>(),
                    ),
                }
            }
        };
        Ok(series.into())
    }

    fn frame(table: &Table) -> Result<DataFrame> {
        let columns = table
            .columns
            .iter()
            .map(|c| column(&c.name, &c.values))
            .collect::<Result<Vec<_>>>()?;
        Ok(DataFrame::new(table.nrows, columns)?)
    }

    pub fn write<W: Write>(w: &mut W, chunks: impl IntoIterator<Item = Table>) -> Result<usize> {
        let mut chunks = chunks.into_iter();
        let Some(first) = chunks.next() else {
            bail!("no rows to write");
        };
        let mut df = frame(&first)?;
        let mut rows = first.nrows;
        let mut writer = ParquetWriter::new(w).batched(df.schema())?;
        writer.write_batch(&df)?;
        for chunk in chunks {
            rows += chunk.nrows;
            df = frame(&chunk)?;
            writer.write_batch(&df)?;
        }
        writer.finish()?;
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsmreport_core::table::Column;

    fn table() -> Table {
        Table {
            columns: vec![
                Column::new("id", Values::Text(vec![Some("a\"b".into()), None])),
                Column::new("h", Values::Int(vec![3, 4])),
                Column::new("x", Values::Float(vec![0.5, f64::NAN])),
                Column::new("m", Values::Mixed(vec![Cell::Int(2), Cell::Missing])),
            ],
            nrows: 2,
        }
    }

    #[test]
    fn json_lines_by_hand() {
        let text = String::from_utf8(to_json_lines(&table())).unwrap();
        assert_eq!(
            text,
            "{\"id\":\"a\\\"b\",\"h\":3,\"x\":0.5,\"m\":2}\n{\"id\":null,\"h\":4,\"x\":null,\"m\":null}\n"
        );
        for line in text.lines() {
            let _: serde_json::Value = serde_json::from_str(line).unwrap();
        }
    }

    #[test]
    fn chunks_make_one_file_and_existing_files_are_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("t.csv");
        let n = write_table_chunks(&path, TableFormat::Csv, false, [table(), table()]).unwrap();
        assert_eq!(n, 4);
        let text = fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "id,h,x,m\n\"a\"\"b\",3,0.5,2\n,4,,\n\"a\"\"b\",3,0.5,2\n,4,,\n"
        );
        let err = write_file(&path, b"x", false).unwrap_err();
        assert!(format!("{err:#}").contains("--force"));
        assert_eq!(fs::read_to_string(&path).unwrap(), text);
        write_file(&path, b"x", true).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"x");
        assert!(
            write_file(tmp.path(), b"x", true).is_err(),
            "a folder is refused"
        );
        assert_eq!(
            fs::read_dir(tmp.path()).unwrap().count(),
            1,
            "no temporary left"
        );
    }

    #[test]
    fn a_failed_write_leaves_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("t.csv");
        let err = write_file_with(&path, false, |_| bail!("boom")).unwrap_err();
        assert!(format!("{err:#}").contains("boom"));
        assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 0);
    }

    #[test]
    fn parquet_round_trips_through_the_reader() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("t.parquet");
        write_table_chunks(&path, TableFormat::Parquet, false, [table(), table()]).unwrap();
        let back = crate::input::read_table(&path, &["id"]).unwrap();
        assert_eq!(back.nrows, 4);
        assert_eq!(back.names(), ["id", "h", "x", "m"]);
        assert_eq!(
            back.column("h").unwrap().values,
            Values::Int(vec![3, 4, 3, 4])
        );
        let m = back.column("m").unwrap().values.to_numeric();
        assert_eq!(m[0], 2.0);
        assert!(m[1].is_nan());
    }

    #[test]
    fn formats_by_name_and_extension() {
        assert_eq!(TableFormat::parse("JSONL"), Some(TableFormat::Jsonl));
        assert_eq!(
            TableFormat::from_path(Path::new("a/b.parquet")),
            Some(TableFormat::Parquet)
        );
        assert_eq!(TableFormat::from_path(Path::new("a.xlsx")), None);
    }
}
