//! Stage 2 (input): CSV and TSV files. polars parses the cells (all read as
//! strings, in parallel); the typing is ours (pandas rules, `infer.rs`).
//! Large plain bodies (no quote, no `\r`, no blank line) skip polars: their
//! fields are found and typed straight from the bytes by `split.rs`, with
//! the same typing. Reads files only; writes nothing.
//!
//! Before polars runs, one quick pass over the bytes reads the header and
//! checks the shape of every record, because polars silently fills short
//! rows, renames duplicate column names and cannot say on which line a
//! problem is. That pass follows pandas' tokenizer: a `"` starts a quoted
//! field only at the start of a field, `""` inside quotes is one quote,
//! quoted fields may hold separators and line breaks, `\r\n` ends a line
//! like `\n`, and blank lines are skipped. The few files polars refuses but
//! pandas reads (a stray `"` inside a field) are split by that tokenizer
//! instead.

use super::infer::infer_column;
use super::split::{self, convert_cells};
use anyhow::{anyhow, bail, Result};
use polars::prelude::{Column as PlColumn, CsvParseOptions, CsvReadOptions, DataFrame, SerReader};
use rsmreport_core::table::{text_values, Column, Table, Values};
use std::io::Cursor;
use std::path::Path;
use std::sync::Mutex;

/// The shape of a delimited file found by [`scan`].
struct Layout {
    names: Vec<String>,
    /// Byte offset where the data records start (after the header line).
    body_start: usize,
    /// Number of non-blank data records.
    nrows: usize,
    /// Whether the body has a blank line (skipped by pandas).
    has_blank_lines: bool,
}

/// Reads a delimited file whose bytes (BOM already removed) are valid UTF-8.
pub fn read(path: &Path, text: &str, sep: u8, text_columns: &[&str]) -> Result<Table> {
    let bytes = text.as_bytes();
    let layout = scan(path, bytes, sep)?;
    let ncols = layout.names.len();
    if layout.nrows == 0 {
        let columns = layout
            .names
            .into_iter()
            .map(|name| Column::new(name, Values::Text(Vec::new())))
            .collect();
        return Ok(Table { columns, nrows: 0 });
    }

    // Blank lines are dropped before polars sees the records, so that its
    // rows are exactly the records counted above (rare; costs a copy).
    let owned;
    let body: &[u8] = if layout.has_blank_lines {
        owned = without_blank_lines(
            &bytes[..layout.body_start],
            &bytes[layout.body_start..],
            sep,
        );
        &owned
    } else {
        bytes
    };

    let is_text: Vec<bool> = layout
        .names
        .iter()
        .map(|n| text_columns.contains(&n.as_str()))
        .collect();
    let threads = worker_count(layout.nrows);
    let body_bytes = &bytes[layout.body_start..];
    if threads > 1 && split::applies(body_bytes, layout.has_blank_lines) {
        let body = &text[layout.body_start..];
        return Ok(split::read(
            body,
            sep,
            layout.names,
            &is_text,
            layout.nrows,
            threads,
        ));
    }

    // polars refuses some files pandas reads (a stray `"` inside an
    // unquoted field, text after a closing quote); those go through the
    // tokenizer of the shape check instead (slower, but same cells as
    // pandas).
    let df = super::guarded(path, || parse_with_polars(body, sep))
        .ok()
        .flatten()
        .filter(|df| df.width() == ncols && df.height() == layout.nrows);
    let Some(df) = df else {
        return read_with_tokenizer(path, bytes, sep, layout, text_columns);
    };

    // Each polars column is freed as soon as it is converted.
    let string_columns = df.into_columns();
    if let Some(bad) = string_columns.iter().find(|c| c.str().is_err()) {
        bail!(
            "{}: unexpected column type {} from the CSV parser",
            path.display(),
            bad.dtype()
        );
    }

    let nrows = layout.nrows;
    let values = convert_columns(string_columns, &is_text, nrows);
    let columns = layout
        .names
        .into_iter()
        .zip(values)
        .map(|(name, values)| Column::new(name, values))
        .collect();
    Ok(Table { columns, nrows })
}

/// The fallback of [`read`]: every record split by [`record`].
fn read_with_tokenizer(
    path: &Path,
    bytes: &[u8],
    sep: u8,
    layout: Layout,
    text_columns: &[&str],
) -> Result<Table> {
    let ncols = layout.names.len();
    let nrows = layout.nrows;
    let mut cells: Vec<Vec<String>> = (0..ncols).map(|_| Vec::with_capacity(nrows)).collect();
    let mut fields = Vec::with_capacity(ncols);
    let mut pos = layout.body_start;
    let mut line = 0usize;
    while pos < bytes.len() {
        fields.clear();
        let (next, nfields) = record(path, bytes, pos, sep, &mut line, Some(&mut fields))?;
        if nfields > 0 {
            for (col, value) in cells.iter_mut().zip(fields.drain(..)) {
                col.push(value);
            }
        }
        pos = next;
    }
    let columns = layout
        .names
        .into_iter()
        .zip(cells)
        .map(|(name, col)| {
            let values = if text_columns.contains(&name.as_str()) {
                text_values(col.into_iter().map(Some))
            } else {
                infer_column(|| col.iter().map(String::as_str), nrows)
            };
            Column::new(name, values)
        })
        .collect();
    Ok(Table { columns, nrows })
}

/// polars' parse of the file, every column as strings; `None` when polars
/// cannot read it.
fn parse_with_polars(body: &[u8], sep: u8) -> Option<DataFrame> {
    let parse = CsvParseOptions::default()
        .with_separator(sep)
        .with_quote_char(Some(b'"'))
        .with_missing_is_null(false);
    CsvReadOptions::default()
        .with_has_header(true)
        // no type inference by polars: every column is read as String
        .with_infer_schema_length(Some(0))
        .with_parse_options(parse)
        .with_raise_if_empty(false)
        .into_reader_with_file_handle(Cursor::new(body))
        .finish()
        .ok()
}

/// Converts polars' string columns to typed [`Values`], each polars
/// column freed as soon as it is converted.
fn convert_columns(columns: Vec<PlColumn>, is_text: &[bool], nrows: usize) -> Vec<Values> {
    let threads = worker_count(nrows);
    let inputs: Vec<Mutex<Option<PlColumn>>> =
        columns.into_iter().map(|c| Mutex::new(Some(c))).collect();
    split::by_column(inputs.len(), threads, |j| {
        let col = inputs[j]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .expect("each column once");
        convert_one(col, is_text[j], nrows)
    })
}

/// Threads worth using for `n` rows (one below 10,000 rows).
fn worker_count(n: usize) -> usize {
    if n < 10_000 {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
}

fn convert_one(col: PlColumn, text: bool, nrows: usize) -> Values {
    let Ok(ca) = col.str() else {
        unreachable!("checked by `read`: every column is a string column")
    };
    // `missing_is_null(false)` and no null values: every cell is a string;
    // a null (never expected) reads as the empty string.
    let cells = || {
        ca.downcast_iter()
            .flat_map(|arr| arr.iter().map(|s| s.unwrap_or("")))
    };
    convert_cells(cells, text, nrows)
}

/// Reads the header and checks every record's number of fields.
fn scan(path: &Path, bytes: &[u8], sep: u8) -> Result<Layout> {
    let mut line = 1usize;
    let mut names = Vec::new();
    let (pos, header_fields) = record(path, bytes, 0, sep, &mut line, Some(&mut names))?;
    if header_fields == 0 || (header_fields == 1 && names[0].is_empty()) {
        bail!("{}: the first line (the header) is empty", path.display());
    }
    // pandas' names for empty header cells
    for (j, name) in names.iter_mut().enumerate() {
        if name.is_empty() {
            *name = format!("Unnamed: {j}");
        }
    }
    super::check_unique_names(path, &names)?;
    let body_start = pos;
    let body = &bytes[body_start..];
    let threads = worker_count(body.len() / 64);
    let (nrows, has_blank_lines) = if threads > 1 && !body.contains(&b'"') {
        scan_unquoted_parallel(path, body, sep, names.len(), line, threads)?
    } else {
        scan_records(path, body, sep, names.len(), line)?
    };
    Ok(Layout {
        names,
        body_start,
        nrows,
        has_blank_lines,
    })
}

/// Counts the records of `body` (which starts on line `first_line`) and
/// checks that each has `ncols` fields; returns the number of non-blank
/// records and whether there was a blank one.
fn scan_records(
    path: &Path,
    body: &[u8],
    sep: u8,
    ncols: usize,
    first_line: usize,
) -> Result<(usize, bool)> {
    let mut line = first_line;
    let mut pos = 0;
    let mut nrows = 0usize;
    let mut has_blank_lines = false;
    while pos < body.len() {
        let start_line = line;
        let (next, nfields) = record(path, body, pos, sep, &mut line, None)?;
        if nfields == 0 {
            has_blank_lines = true;
        } else if nfields != ncols {
            return Err(field_count_error(path, start_line, nfields, ncols));
        } else {
            nrows += 1;
        }
        pos = next;
    }
    Ok((nrows, has_blank_lines))
}

fn field_count_error(path: &Path, line: usize, nfields: usize, ncols: usize) -> anyhow::Error {
    anyhow!(
        "{}: line {line} has {nfields} field{} but the header has {ncols}",
        path.display(),
        if nfields == 1 { "" } else { "s" },
    )
}

/// [`scan_records`] for a body without any `"`: every line is a record, so
/// the body can be cut at line ends and checked by several threads.
fn scan_unquoted_parallel(
    path: &Path,
    body: &[u8],
    sep: u8,
    ncols: usize,
    first_line: usize,
    threads: usize,
) -> Result<(usize, bool)> {
    let cuts = split::line_cuts(body, threads);
    // Per chunk: (lines, rows, blank, first bad line in the chunk).
    type ChunkScan = (usize, usize, bool, Option<(usize, usize)>);
    let results: Vec<ChunkScan> = std::thread::scope(|scope| {
        let handles: Vec<_> = cuts
            .windows(2)
            .map(|w| {
                let chunk = &body[w[0]..w[1]];
                scope.spawn(move || {
                    let (mut lines, mut rows, mut blank) = (0usize, 0usize, false);
                    let mut bad = None;
                    // Lines found with memchr, separators counted by a
                    // loop the compiler vectorises.
                    let mut start = 0;
                    let ends = memchr::memchr_iter(b'\n', chunk).map(|k| k + 1).chain(
                        (chunk.last() != Some(&b'\n') && !chunk.is_empty()).then_some(chunk.len()),
                    );
                    for end in ends {
                        let l = &chunk[start..end];
                        start = end;
                        let content = l.strip_suffix(b"\n").unwrap_or(l);
                        let content = content.strip_suffix(b"\r").unwrap_or(content);
                        if content.is_empty() {
                            blank = true;
                        } else {
                            let n = 1 + content.iter().filter(|&&b| b == sep).count();
                            if n == ncols {
                                rows += 1;
                            } else if bad.is_none() {
                                bad = Some((lines, n));
                            }
                        }
                        lines += 1;
                    }
                    (lines, rows, blank, bad)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("scan thread"))
            .collect()
    });
    let (mut line, mut nrows, mut has_blank) = (first_line, 0usize, false);
    for (lines, rows, blank, bad) in results {
        if let Some((offset, n)) = bad {
            return Err(field_count_error(path, line + offset, n, ncols));
        }
        line += lines;
        nrows += rows;
        has_blank |= blank;
    }
    Ok((nrows, has_blank))
}

/// Reads one record starting at `pos`: returns the position after its line
/// end and its number of fields (0 for a blank line). Collects the field
/// values into `fields` when given (the header).
fn record(
    path: &Path,
    bytes: &[u8],
    mut pos: usize,
    sep: u8,
    line: &mut usize,
    mut fields: Option<&mut Vec<String>>,
) -> Result<(usize, usize)> {
    let n = bytes.len();
    let start = pos;
    let mut count = 0usize;
    loop {
        // one field
        let mut value: Vec<u8> = Vec::new();
        let collect = fields.is_some();
        if pos < n && bytes[pos] == b'"' {
            let open_line = *line;
            pos += 1;
            loop {
                let Some(off) = bytes[pos..].iter().position(|&b| b == b'"' || b == b'\n') else {
                    bail!(
                        "{}: line {open_line}: a quoted field is never closed",
                        path.display()
                    );
                };
                if collect {
                    value.extend_from_slice(&bytes[pos..pos + off]);
                }
                pos += off;
                if bytes[pos] == b'\n' {
                    *line += 1;
                    if collect {
                        value.push(b'\n');
                    }
                    pos += 1;
                    continue;
                }
                // a quote: doubled -> literal quote, else the end of the quotes
                if pos + 1 < n && bytes[pos + 1] == b'"' {
                    if collect {
                        value.push(b'"');
                    }
                    pos += 2;
                    continue;
                }
                pos += 1;
                break;
            }
        }
        // unquoted part (or what follows a closing quote)
        let off = bytes[pos..]
            .iter()
            .position(|&b| b == sep || b == b'\n')
            .unwrap_or(n - pos);
        if collect {
            value.extend_from_slice(&bytes[pos..pos + off]);
        }
        pos += off;
        count += 1;
        let at_line_end = pos >= n || bytes[pos] == b'\n';
        if let Some(f) = fields.as_deref_mut() {
            if at_line_end && value.last() == Some(&b'\r') {
                value.pop();
            }
            // `bytes` is valid UTF-8 and the cuts are at ASCII bytes.
            f.push(String::from_utf8(value).expect("valid UTF-8"));
        }
        if at_line_end {
            let end = pos;
            if pos < n {
                *line += 1;
                pos += 1;
            }
            // A blank line: nothing (or only `\r`) before the line end.
            let blank = count == 1 && matches!(&bytes[start..end], b"" | b"\r");
            return Ok((pos, if blank { 0 } else { count }));
        }
        pos += 1; // the separator
    }
}

/// The file without its blank data lines (header kept as it is).
fn without_blank_lines(header: &[u8], body: &[u8], sep: u8) -> Vec<u8> {
    let mut out = Vec::with_capacity(header.len() + body.len());
    out.extend_from_slice(header);
    let mut pos = 0;
    let mut line = 0usize;
    let dummy = Path::new("");
    while pos < body.len() {
        let (next, nfields) =
            record(dummy, body, pos, sep, &mut line, None).expect("checked by scan");
        if nfields > 0 {
            out.extend_from_slice(&body[pos..next]);
            if out.last() != Some(&b'\n') {
                out.push(b'\n');
            }
        }
        pos = next;
    }
    out
}
