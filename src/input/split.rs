//! Stage 2 (input): the fast path of the CSV/TSV reader for large plain
//! files. When the body has no `"` (so no quoted field), no `\r` and no
//! blank line, every line is a record and every separator ends a field:
//! the body is cut at line ends into one chunk per thread, each thread
//! finds where its fields start, and each column is typed straight from
//! the bytes by the same code as the polars path ([`convert_cells`]), so
//! the table is the one polars' cells would give, without a copy of every
//! cell as a string. Reads bytes only; writes nothing.
//!
//! [`scan`](super::csv) has already checked that every record has the
//! header's number of fields; this module relies on it.

use crate::table::{Column, Table, TextBuilder, Values};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::infer::{infer_column, Inference};

/// The bodies this path reads: no quote, no carriage return (pandas and
/// polars treat both specially) and no blank line (`has_blank_lines` from
/// the scan).
pub fn applies(body: &[u8], has_blank_lines: bool) -> bool {
    !has_blank_lines && !body.contains(&b'"') && !body.contains(&b'\r')
}

/// One chunk of the body: its text and where each of its fields starts,
/// column after column (`starts[j * rows + r]`: field `j` of record `r`),
/// then one more offset just past the last line end. Columns are typed
/// one at a time, so column-major offsets are read in order (row-major
/// ones would be read with a stride of a whole record: a cache miss per
/// cell on wide files).
struct Chunk<'a> {
    text: &'a str,
    starts: Vec<u32>,
    rows: usize,
    ncols: usize,
}

impl<'a> Chunk<'a> {
    fn field(&self, r: usize, j: usize) -> &'a str {
        let a = self.starts[j * self.rows + r] as usize;
        // The next field starts one byte (the separator or the line end)
        // after this one ends.
        let next = if j + 1 < self.ncols {
            self.starts[(j + 1) * self.rows + r]
        } else if r + 1 < self.rows {
            self.starts[r + 1]
        } else {
            self.starts[self.rows * self.ncols]
        };
        &self.text[a..next as usize - 1]
    }
}

/// The table of `body` (the records after the header, every one with
/// `names.len()` fields separated by `sep`, [`applies`] true); `is_text[j]`: column `j` is
/// read as raw text, else typed by pandas' rules.
pub fn read(body: &str, sep: u8, names: Vec<String>, is_text: &[bool], threads: usize) -> Table {
    let ncols = names.len();
    let chunks = index_chunks(body, sep, ncols, threads);
    let nrows = chunks.iter().map(|c| c.rows).sum();
    let values = convert_columns(&chunks, is_text, nrows, threads);
    let columns = names
        .into_iter()
        .zip(values)
        .map(|(name, values)| Column::new(name, values))
        .collect();
    Table { columns, nrows }
}

/// Cuts `body` just after line ends into about `threads` chunks (more when
/// a chunk would pass `u32` offsets) and indexes each on its own thread.
fn index_chunks(body: &str, sep: u8, ncols: usize, threads: usize) -> Vec<Chunk<'_>> {
    let parts = threads.max(body.len() / (u32::MAX as usize / 2) + 1);
    let cuts = line_cuts(body.as_bytes(), parts);
    std::thread::scope(|scope| {
        let handles: Vec<_> = cuts
            .windows(2)
            .map(|w| {
                let text = &body[w[0]..w[1]];
                scope.spawn(move || index(text, sep, ncols))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a CSV indexing thread panicked"))
            .collect()
    })
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

/// The field starts of every record of `text` (whole lines, each with
/// `ncols` fields): one pass for separators and line ends together.
fn index(text: &str, sep: u8, ncols: usize) -> Chunk<'_> {
    let bytes = text.as_bytes();
    let mut starts = Vec::with_capacity(bytes.len() / 4);
    starts.push(0u32);
    let mut rows = 0;
    for k in memchr::memchr2_iter(sep, b'\n', bytes) {
        starts.push((k + 1) as u32);
        rows += usize::from(bytes[k] == b'\n');
    }
    if !bytes.is_empty() && bytes[bytes.len() - 1] != b'\n' {
        starts.push((bytes.len() + 1) as u32);
        rows += 1;
    }
    debug_assert_eq!(starts.len(), rows * ncols + 1);
    let mut by_column = vec![0u32; starts.len()];
    for (r, record) in starts.chunks_exact(ncols).enumerate() {
        for (j, &a) in record.iter().enumerate() {
            by_column[j * rows + r] = a;
        }
    }
    by_column[rows * ncols] = starts[rows * ncols];
    Chunk {
        text,
        starts: by_column,
        rows,
        ncols,
    }
}

/// Rows typed together: every typed column of a thread's share goes
/// through a block of records before the next block, so the text is read
/// about once per thread instead of once per column.
const BLOCK: usize = 1024;

/// Types every column: typed columns a block of records at a time (each
/// thread its share of the columns), text columns and typed columns that
/// turn out to be text column by column ([`convert_cells`]).
fn convert_columns(
    chunks: &[Chunk],
    is_text: &[bool],
    nrows: usize,
    threads: usize,
) -> Vec<Values> {
    let ncols = is_text.len();
    let cells = |j: usize| {
        move || {
            chunks
                .iter()
                .flat_map(move |c| (0..c.rows).map(move |r| c.field(r, j)))
        }
    };
    let threads = threads.clamp(1, ncols.max(1));
    let typed: Vec<Vec<Option<Values>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let mine: Vec<usize> = (t..ncols)
                    .step_by(threads)
                    .filter(|&j| !is_text[j])
                    .collect();
                scope.spawn(move || infer_blocks(chunks, &mine, nrows))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a CSV typing thread panicked"))
            .collect()
    });
    let mut done: Vec<Option<Values>> = (0..ncols).map(|_| None).collect();
    for (t, values) in typed.into_iter().enumerate() {
        let mine = (t..ncols).step_by(threads).filter(|&j| !is_text[j]);
        for (j, v) in mine.zip(values) {
            done[j] = v;
        }
    }
    let rest: Vec<usize> = (0..ncols).filter(|&j| done[j].is_none()).collect();
    let converted = by_column(rest.len(), threads, |i| {
        convert_cells(cells(rest[i]), is_text[rest[i]], nrows)
    });
    for (j, v) in rest.into_iter().zip(converted) {
        done[j] = Some(v);
    }
    done.into_iter()
        .map(|v| v.expect("every column typed"))
        .collect()
}

/// The typed values of the columns `cols` (`None` for a column that turns
/// out to be text), going through the records a [`BLOCK`] at a time.
fn infer_blocks(chunks: &[Chunk], cols: &[usize], nrows: usize) -> Vec<Option<Values>> {
    let mut open: Vec<Option<Inference>> =
        cols.iter().map(|_| Some(Inference::new(nrows))).collect();
    for c in chunks {
        for start in (0..c.rows).step_by(BLOCK) {
            let end = (start + BLOCK).min(c.rows);
            for (slot, &j) in open.iter_mut().zip(cols) {
                let Some(inference) = slot else { continue };
                if !(start..end).all(|r| inference.push(c.field(r, j))) {
                    *slot = None;
                }
            }
        }
    }
    open.into_iter()
        .map(|i| i.and_then(Inference::finish))
        .collect()
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
            .map(|threads| format!("{:?}", read(body, sep, names.clone(), &is_text, threads)))
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
    use crate::metrics::test_util::Lcg;
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
            let (ncols, nrows) = (1 + pick(5), 1 + pick(300));
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
                let ours = read(body, sep, names.clone(), &is_text, threads);
                assert_eq!(format!("{ours:?}"), format!("{polars:?}"), "seed {seed}");
            }
            compared += 1;
        }
        assert!(compared >= 40, "only {compared} of 60 files compared");
    }
}
