//! Stage 2 (input): the fast path of the CSV/TSV reader for large plain
//! files. When the body has no `"` (so no quoted field), no `\r` and no
//! blank line, every line is a record and every separator ends a field:
//! the body is cut at line ends into one chunk per thread, each thread
//! finds where the fields of a block of its records start and types them
//! straight from the bytes with the typing of the polars path
//! ([`Inference`], as [`convert_cells`]), and the chunks' columns are
//! joined. The table is the one polars' cells would give, without a copy
//! of every cell as a string and without an offset table of the whole
//! body. Reads bytes only; writes nothing.
//!
//! [`scan`](super::csv) has already checked that every record has the
//! header's number of fields; this module relies on it.

use rsmreport_core::table::{Column, Table, Text, TextBuilder, Values};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::infer::{concat, infer_column, is_na, Inference};

/// The bodies this path reads: no quote, no carriage return (pandas and
/// polars treat both specially) and no blank line (`has_blank_lines` from
/// the scan).
pub fn applies(body: &[u8], has_blank_lines: bool) -> bool {
    !has_blank_lines && !body.contains(&b'"') && !body.contains(&b'\r')
}

/// What a pass over the records does with each column.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Skip,
    /// Raw text (a text column of the configuration).
    Raw,
    /// pandas' typing ([`Inference`]).
    Infer,
    /// Text with the missing-value tokens missing (a typed column that
    /// turned out to be text).
    TextNa,
}

/// One column of one chunk.
enum Part {
    Skip,
    Text(TextBuilder),
    /// `None` once the chunk's cells of the column are text.
    Infer(Option<Inference>),
}

/// Records typed together: the field starts of a block of records are
/// found, then every column takes the block's cells, so the offsets stay
/// in cache and no offset table of the whole body is built.
const BLOCK: usize = 512;

/// The table of `body` (the `nrows` records after the header, every one
/// with `names.len()` fields separated by `sep`, [`applies`] true);
/// `is_text[j]`: column `j` is read as raw text, else typed by pandas'
/// rules. The body is cut at line ends into one chunk per thread; each
/// thread types every column of its records, and the chunks' columns are
/// joined in order ([`infer::concat`](super::infer::concat): the types do
/// not depend on the order of the cells). A typed column that is text in
/// some chunk is read again as text, in a second pass of the same kind.
pub fn read(
    body: &str,
    sep: u8,
    names: Vec<String>,
    is_text: &[bool],
    nrows: usize,
    threads: usize,
) -> Table {
    let cuts = line_cuts(body.as_bytes(), threads.max(1));
    let chunks: Vec<&str> = cuts.windows(2).map(|w| &body[w[0]..w[1]]).collect();
    let modes: Vec<Mode> = is_text
        .iter()
        .map(|&t| if t { Mode::Raw } else { Mode::Infer })
        .collect();
    let (counted, parts) = by_part(&chunks, sep, &modes, nrows);
    // The scan counted the same records (each line one record here).
    debug_assert_eq!(counted, nrows);
    let nrows = counted;
    let mut values: Vec<Option<Values>> = parts.into_iter().map(join_parts).collect();
    let retry: Vec<Mode> = values
        .iter()
        .map(|v| {
            if v.is_none() {
                Mode::TextNa
            } else {
                Mode::Skip
            }
        })
        .collect();
    if retry.contains(&Mode::TextNa) {
        for (j, parts) in by_part(&chunks, sep, &retry, nrows)
            .1
            .into_iter()
            .enumerate()
        {
            if retry[j] == Mode::TextNa {
                values[j] = join_parts(parts);
            }
        }
    }
    let columns = names
        .into_iter()
        .zip(values)
        .map(|(name, v)| Column::new(name, v.expect("every column read")))
        .collect();
    Table { columns, nrows }
}

/// About `parts` cut points of `body`, each just after a `\n`, from 0 to
/// the end: `cuts.windows(2)` are whole lines.
pub fn line_cuts(body: &[u8], parts: usize) -> Vec<usize> {
    let mut cuts = vec![0usize];
    for k in 1..parts {
        let target = (body.len() * k / parts).max(*cuts.last().unwrap_or(&0));
        match body[target..].iter().position(|&b| b == b'\n') {
            Some(off) => cuts.push(target + off + 1),
            None => break,
        }
    }
    cuts.push(body.len());
    cuts.dedup();
    cuts
}

/// The records read and every column's parts, chunk after chunk (one
/// thread per chunk); `nrows` (the scan's count) sizes the vectors.
fn by_part(chunks: &[&str], sep: u8, modes: &[Mode], nrows: usize) -> (usize, Vec<Vec<Part>>) {
    let total: usize = chunks.iter().map(|c| c.len()).sum();
    let per_chunk: Vec<(usize, Vec<Part>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .iter()
            .enumerate()
            .map(|(c, &text)| {
                // The first chunk's vectors take the whole column (no
                // copy of them when the chunks are joined); the others an
                // estimate (they grow if it is short).
                let capacity = if c == 0 {
                    nrows
                } else {
                    (nrows as f64 * text.len() as f64 / total.max(1) as f64) as usize + BLOCK
                };
                scope.spawn(move || pass(text, sep, modes, capacity))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a CSV reading thread panicked"))
            .collect()
    });
    let mut columns: Vec<Vec<Part>> = modes.iter().map(|_| Vec::new()).collect();
    let mut records = 0;
    for (rows, parts) in per_chunk {
        records += rows;
        for (column, part) in columns.iter_mut().zip(parts) {
            column.push(part);
        }
    }
    (records, columns)
}

/// One chunk's pass: the field starts of [`BLOCK`] records at a time
/// (separators and line ends found together), then each column's cells;
/// the number of records and the parts.
fn pass(text: &str, sep: u8, modes: &[Mode], capacity: usize) -> (usize, Vec<Part>) {
    let mut parts: Vec<Part> = modes
        .iter()
        .map(|m| match m {
            Mode::Skip => Part::Skip,
            Mode::Raw | Mode::TextNa => Part::Text(TextBuilder::with_capacity(capacity)),
            Mode::Infer => Part::Infer(Some(Inference::new(capacity))),
        })
        .collect();
    let bytes = text.as_bytes();
    let mut starts: Vec<usize> = Vec::with_capacity(BLOCK * modes.len() + 1);
    starts.push(0);
    let (mut rows, mut records) = (0, 0);
    for k in memchr::memchr2_iter(sep, b'\n', bytes) {
        starts.push(k + 1);
        if bytes[k] == b'\n' {
            rows += 1;
            if rows == BLOCK {
                add_block(text, &starts, rows, modes, &mut parts);
                records += rows;
                let next = starts[starts.len() - 1];
                starts.clear();
                starts.push(next);
                rows = 0;
            }
        }
    }
    if bytes.last().is_some_and(|&b| b != b'\n') {
        starts.push(bytes.len() + 1);
        rows += 1;
    }
    if rows > 0 {
        add_block(text, &starts, rows, modes, &mut parts);
    }
    (records + rows, parts)
}

/// Adds `rows` records, whose fields start at `starts` (`ncols` per
/// record, then one past the last line end), to every column's part.
fn add_block(text: &str, starts: &[usize], rows: usize, modes: &[Mode], parts: &mut [Part]) {
    let ncols = modes.len();
    // The scan checked every record's fields; a file changed since would
    // stop the run here rather than give shifted cells.
    assert_eq!(
        starts.len(),
        rows * ncols + 1,
        "a record without the header's fields"
    );
    // The next field starts one byte (the separator or the line end)
    // after this one ends.
    let field = |r: usize, j: usize| &text[starts[r * ncols + j]..starts[r * ncols + j + 1] - 1];
    for (j, part) in parts.iter_mut().enumerate() {
        match part {
            Part::Skip => {}
            Part::Text(b) if modes[j] == Mode::Raw => {
                b.extend((0..rows).map(|r| Some(field(r, j))))
            }
            Part::Text(b) => b.extend((0..rows).map(|r| {
                let s = field(r, j);
                (!is_na(s)).then_some(s)
            })),
            Part::Infer(slot) => {
                if let Some(inference) = slot {
                    if !(0..rows).all(|r| inference.push(field(r, j))) {
                        *slot = None;
                    }
                }
            }
        }
    }
}

/// One column from its chunks' parts, in order; `None` for a typed
/// column that is text.
fn join_parts(parts: Vec<Part>) -> Option<Values> {
    match parts.first() {
        None | Some(Part::Skip) => None,
        Some(Part::Text(_)) => {
            let mut cells: Vec<Option<Text>> = Vec::new();
            for p in parts {
                if let Part::Text(b) = p {
                    if cells.is_empty() {
                        cells = b.into_cells();
                    } else {
                        cells.extend(b.into_cells());
                    }
                }
            }
            Some(Values::Text(cells))
        }
        Some(Part::Infer(_)) => {
            let inferred: Option<Vec<Inference>> = parts
                .into_iter()
                .map(|p| match p {
                    Part::Infer(i) => i,
                    _ => None,
                })
                .collect();
            concat(inferred?)
        }
    }
}

/// `column(j)` for every `j < n`, columns shared out to `threads` threads
/// one at a time (text columns cost much more than numbers), in order.
pub fn by_column(n: usize, threads: usize, column: impl Fn(usize) -> Values + Sync) -> Vec<Values> {
    if threads <= 1 || n <= 1 {
        return (0..n).map(column).collect();
    }
    let outputs: Vec<Mutex<Option<Values>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.min(n) {
            scope.spawn(|| loop {
                let j = next.fetch_add(1, Ordering::Relaxed);
                if j >= n {
                    break;
                }
                let values = column(j);
                *outputs[j].lock().unwrap_or_else(|e| e.into_inner()) = Some(values);
            });
        }
    });
    outputs
        .into_iter()
        .map(|m| {
            m.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every column converted")
        })
        .collect()
}

/// A column's values from its cells: raw text (no missing-value
/// detection, spec 2.1) for a text column, else pandas' typing. The one
/// conversion of both CSV paths.
pub fn convert_cells<'a, I, F>(cells: F, text: bool, nrows: usize) -> Values
where
    F: Fn() -> I,
    I: Iterator<Item = &'a str>,
{
    if text {
        let mut b = TextBuilder::with_capacity(nrows);
        b.extend(cells().map(Some));
        b.finish()
    } else {
        infer_column(cells, nrows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The table of the polars path (below 10,000 rows `csv::read` takes
    /// it) and of this path with 1 to 4 threads, as text (NaN-safe).
    fn both(file: &str, sep: u8, text_columns: &[&str]) -> (String, Vec<String>) {
        let polars = super::super::csv::read(Path::new("t.csv"), file, sep, text_columns).unwrap();
        let body_start = file.find('\n').map_or(file.len(), |i| i + 1);
        let body = &file[body_start..];
        assert!(applies(body.as_bytes(), false));
        let names: Vec<String> = polars.columns.iter().map(|c| c.name.clone()).collect();
        let is_text: Vec<bool> = names
            .iter()
            .map(|n| text_columns.contains(&n.as_str()))
            .collect();
        let ours = (1..=4)
            .map(|threads| {
                format!(
                    "{:?}",
                    read(
                        body,
                        sep,
                        names.clone(),
                        &is_text,
                        body.lines().count(),
                        threads
                    )
                )
            })
            .collect();
        (format!("{polars:?}"), ours)
    }

    fn assert_same(file: &str, sep: u8, text_columns: &[&str]) {
        let (polars, ours) = both(file, sep, text_columns);
        for (k, t) in ours.iter().enumerate() {
            assert_eq!(t, &polars, "{} thread(s) on {file:?}", k + 1);
        }
    }

    /// Columns whose type changes after the first blocks of records (an
    /// integer column meeting a float, a number column meeting text, a
    /// boolean column meeting a blank, a blank column meeting numbers)
    /// are typed as the polars path types them, with 1 to 4 threads.
    #[test]
    fn types_that_change_after_the_first_blocks() {
        let mut file = String::from("a,b,c,d,e\n");
        for i in 0..3000 {
            let b = if i == 2000 {
                "2.5".into()
            } else {
                i.to_string()
            };
            let c = if i == 2500 {
                "x".into()
            } else {
                format!("{i}.5")
            };
            let d = if i == 1500 {
                ""
            } else if i % 2 == 0 {
                "True"
            } else {
                "False"
            };
            let e = if i < 1100 {
                String::new()
            } else {
                (i % 9).to_string()
            };
            file.push_str(&format!("{i},{b},{c},{d},{e}\n"));
        }
        assert_same(&file, b',', &[]);
    }

    #[test]
    fn every_kind_of_column_is_typed_as_the_polars_path_types_it() {
        let mut file = String::from("spkitemid,sc1,raw,flag,label,empty,mixed\n");
        for i in 0..257 {
            let raw = if i % 7 == 0 {
                String::new()
            } else {
                format!("{}.25", i % 5)
            };
            let flag = ["True", "False", ""][i % 3];
            let mixed = if i == 100 {
                "n/a".to_string()
            } else {
                i.to_string()
            };
            file.push_str(&format!(
                "r{i:04},{},{raw},{flag},a b {},,{mixed}\n",
                i % 4,
                i % 2
            ));
        }
        assert_same(&file, b',', &["spkitemid"]);
        assert_same(&file, b',', &["spkitemid", "sc1", "label"]);
    }

    #[test]
    fn a_last_line_without_line_end_and_tsv_cells_with_commas() {
        let file = "id\tscore\tnote\na\t1\tx, y\nb\t\t\nc\t3.5\tz";
        assert_same(file, b'\t', &["id"]);
        let one_column = "id\nx\ny\nNA\n";
        assert_same(one_column, b',', &[]);
        assert_same(one_column, b',', &["id"]);
    }

    #[test]
    fn only_plain_bodies_take_this_path() {
        assert!(applies(b"a,b\n1,2\n", false));
        assert!(!applies(b"a,b\n1,2\n", true), "blank lines");
        assert!(!applies(b"a,\"b\"\n", false), "a quote");
        assert!(!applies(b"a,b\r\n", false), "a carriage return");
    }
}

#[cfg(test)]
mod random {
    use super::*;
    use rsmreport_metrics::test_util::Lcg;
    use std::path::Path;

    /// Cells pandas types in different ways (numbers, missing markers,
    /// booleans, text, spaces, signs, exponents, non-ASCII).
    const POOL: [&str; 24] = [
        "",
        "NA",
        "nan",
        "NaN",
        "null",
        "1",
        "-0",
        "+5",
        "007",
        "1e3",
        "2.50",
        "-.5",
        " 3",
        "4 ",
        "True",
        "false",
        "TRUE",
        "abc",
        "é",
        "x y",
        "inf",
        "-Infinity",
        "1_000",
        "0x1F",
    ];

    /// Random plain files (columns of one kind of cell, or mixed): the
    /// split path with 1 to 4 threads gives the polars path's table.
    #[test]
    fn random_plain_files_read_as_the_polars_path_reads_them() {
        let mut compared = 0;
        for seed in 1..=60u64 {
            let mut g = Lcg(seed);
            let mut pick = |n: usize| ((g.next() * n as f64) as usize).min(n - 1);
            // Up to 1,500 rows: past the blocks of 512 records.
            let (ncols, nrows) = (
                1 + pick(5),
                1 + pick(if seed % 3 == 0 { 1500 } else { 300 }),
            );
            let sep = if pick(2) == 0 { b',' } else { b'\t' };
            // Per column: a small set of cells it draws from.
            let kinds: Vec<Vec<&str>> = (0..ncols)
                .map(|_| (0..1 + pick(4)).map(|_| POOL[pick(POOL.len())]).collect())
                .collect();
            let names: Vec<String> = (0..ncols).map(|j| format!("c{j}")).collect();
            let mut file = names.join(&(sep as char).to_string());
            for _ in 0..nrows {
                let row: Vec<&str> = kinds.iter().map(|k| k[pick(k.len())]).collect();
                file.push('\n');
                file.push_str(&row.join(&(sep as char).to_string()));
            }
            if pick(2) == 0 {
                file.push('\n');
            }
            let text: Vec<&str> = names
                .iter()
                .filter(|_| pick(4) == 0)
                .map(String::as_str)
                .collect();
            let Ok(polars) = super::super::csv::read(Path::new("r.csv"), &file, sep, &text) else {
                continue;
            };
            let body = &file[file.find('\n').unwrap() + 1..];
            if !applies(body.as_bytes(), false) || body.lines().any(str::is_empty) {
                continue;
            }
            let is_text: Vec<bool> = names.iter().map(|n| text.contains(&n.as_str())).collect();
            for threads in 1..=4 {
                let ours = read(
                    body,
                    sep,
                    names.clone(),
                    &is_text,
                    body.lines().count(),
                    threads,
                );
                assert_eq!(format!("{ours:?}"), format!("{polars:?}"), "seed {seed}");
            }
            compared += 1;
        }
        assert!(compared >= 40, "only {compared} of 60 files compared");
    }
}
