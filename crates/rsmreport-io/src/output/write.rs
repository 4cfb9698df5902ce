//! Stage 6 (output): turning a [`Frame`] into the bytes of a CSV, TSV or
//! xlsx file (spec 4.1). Produces bytes only: putting them on disk is
//! `output::write_output_dir_with`'s job, and no table is computed or changed
//! here.

use anyhow::{Context, Result};
use rsmreport_core::pyrepr::{write_i64, write_py_float};
use rsmreport_core::table::{Cell, Frame, Values};
use rust_xlsxwriter::{DocProperties, ExcelDateTime, Workbook, Worksheet};

/// The frame as delimited text: a header line, then one line per row, `\n`
/// line ends. When `frame.index` is set, a first column with an empty header
/// holds the row labels. Minimal quoting as Python's `csv` module does it: a
/// field is quoted only if it contains the separator, `"`, `\n` or `\r`
/// (quotes doubled), and a row made of a single empty field is written `""`.
/// Integers without a decimal point, floats as Python `repr`, NaN and `None`
/// as empty fields, booleans as `True`/`False`.
pub fn to_delimited(frame: &Frame, sep: u8) -> Vec<u8> {
    let nrows = frame.nrows();
    let ncols = frame.columns.len() + usize::from(frame.index.is_some());
    // A rough guess: ~12 bytes per numeric cell; grows if needed.
    let mut out = Vec::with_capacity(64 + (nrows + 1) * ncols * 12);

    // Header.
    // With an index, the header starts with its empty name.
    let mut first = frame.index.is_none();
    for col in &frame.columns {
        if !first {
            out.push(sep);
        }
        first = false;
        write_text(&mut out, &col.name, sep);
    }
    if ncols == 1 && header_is_empty(frame) {
        out.extend_from_slice(b"\"\"");
    }
    out.push(b'\n');

    // Large tables (the per-response ones) are formatted in consecutive row
    // ranges on several threads and concatenated in order: the bytes are
    // the same as from one thread.
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_WORKERS)
        .min(nrows / MIN_ROWS_PER_WORKER)
        .max(1);
    if workers == 1 {
        write_rows(&mut out, frame, 0..nrows, sep, ncols);
        return out;
    }
    let per = nrows.div_ceil(workers);
    let parts: Vec<Vec<u8>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (1..workers)
            .map(|w| {
                let rows = (w * per).min(nrows)..((w + 1) * per).min(nrows);
                scope.spawn(move || {
                    let mut part = Vec::with_capacity(rows.len() * ncols * 12);
                    write_rows(&mut part, frame, rows, sep, ncols);
                    part
                })
            })
            .collect();
        write_rows(&mut out, frame, 0..per.min(nrows), sep, ncols);
        handles
            .into_iter()
            .map(|h| h.join().expect("a formatting thread panicked"))
            .collect()
    });
    out.reserve(parts.iter().map(Vec::len).sum());
    for part in parts {
        out.extend_from_slice(&part);
    }
    out
}

/// Most threads [`to_delimited`] uses, and fewest rows worth a thread.
const MAX_WORKERS: usize = 8;
const MIN_ROWS_PER_WORKER: usize = 25_000;

/// Appends the lines of `rows`. A float cell equal (same bits) to the
/// previous float cell of its row reuses that cell's text (`raw` and
/// `raw_trim` mostly are), which halves the digit searches of
/// `pred_processed`.
fn write_rows(
    out: &mut Vec<u8>,
    frame: &Frame,
    rows: std::ops::Range<usize>,
    sep: u8,
    ncols: usize,
) {
    for row in rows {
        let line_start = out.len();
        let mut first = true;
        // (bits, start, end) of the last float cell written on this line
        let mut last_float: Option<(u64, usize, usize)> = None;
        if let Some(ix) = &frame.index {
            write_value(out, ix, row, sep);
            first = false;
        }
        for col in &frame.columns {
            if !first {
                out.push(sep);
            }
            first = false;
            match &col.values {
                Values::Float(v) => {
                    let x = v[row];
                    match last_float {
                        Some((bits, a, b)) if bits == x.to_bits() => out.extend_from_within(a..b),
                        _ => {
                            let a = out.len();
                            write_float(out, x);
                            last_float = Some((x.to_bits(), a, out.len()));
                        }
                    }
                }
                values => write_value(out, values, row, sep),
            }
        }
        if ncols == 1 && out.len() == line_start {
            // Python's csv writer never writes a bare empty line for a row.
            out.extend_from_slice(b"\"\"");
        }
        out.push(b'\n');
    }
}

fn header_is_empty(frame: &Frame) -> bool {
    match (&frame.index, frame.columns.first()) {
        (Some(_), _) => true,
        (None, Some(c)) => c.name.is_empty(),
        (None, None) => false,
    }
}

/// Appends the cell at `row` of `values`.
fn write_value(out: &mut Vec<u8>, values: &Values, row: usize, sep: u8) {
    match values {
        Values::Int(v) => write_i64(out, v[row]),
        Values::Float(v) => write_float(out, v[row]),
        Values::Bool(v) => write_bool(out, v[row]),
        Values::Text(v) => {
            if let Some(s) = &v[row] {
                write_text(out, s, sep);
            }
        }
        Values::Mixed(v) => match &v[row] {
            Cell::Missing => {}
            Cell::Bool(b) => write_bool(out, *b),
            Cell::Int(i) => write_i64(out, *i),
            Cell::Float(x) => write_float(out, *x),
            Cell::Text(s) => write_text(out, s, sep),
        },
    }
}

fn write_float(out: &mut Vec<u8>, x: f64) {
    if !x.is_nan() {
        write_py_float(out, x);
    }
}

fn write_bool(out: &mut Vec<u8>, b: bool) {
    out.extend_from_slice(if b { b"True" } else { b"False" });
}

/// Appends text, quoted only when it must be.
fn write_text(out: &mut Vec<u8>, s: &str, sep: u8) {
    let bytes = s.as_bytes();
    let needs_quotes = bytes
        .iter()
        .any(|&b| b == sep || b == b'"' || b == b'\n' || b == b'\r');
    if !needs_quotes {
        out.extend_from_slice(bytes);
        return;
    }
    out.push(b'"');
    for chunk in bytes.split_inclusive(|&b| b == b'"') {
        out.extend_from_slice(chunk);
        if chunk.last() == Some(&b'"') {
            out.push(b'"');
        }
    }
    out.push(b'"');
}

/// `name` as an integer if it is written exactly as Rust/Python would
/// write that integer (`3`, `-1`; not `03`, `+3` or `3.0`), small enough
/// to be exact in an xlsx number.
fn canonical_int(name: &str) -> Option<i64> {
    let v: i64 = name.parse().ok()?;
    (v.to_string() == name && v.unsigned_abs() < (1u64 << 53)).then_some(v)
}

fn write_xlsx_int(sheet: &mut Worksheet, r: u32, c: u16, v: i64) -> Result<()> {
    sheet.write_number(r, c, v as f64)?;
    Ok(())
}

fn write_xlsx_float(sheet: &mut Worksheet, r: u32, c: u16, x: f64) -> Result<()> {
    if x.is_nan() {
        // missing: an empty cell
    } else if x.is_infinite() {
        sheet.write_string(r, c, if x > 0.0 { "inf" } else { "-inf" })?;
    } else {
        sheet.write_number(r, c, x)?;
    }
    Ok(())
}

/// The frame as an xlsx workbook with one sheet `Sheet1`: a header row, then
/// the rows; numbers as numbers, booleans as booleans, text as strings,
/// NaN/`None` as empty cells, infinities as the strings `inf`/`-inf` (Excel
/// has no infinite numbers; pandas writes them the same way). When
/// `frame.index` is set, column A holds the row labels under an empty header.
pub fn to_xlsx(frame: &Frame, created: i64) -> Result<Vec<u8>> {
    let mut workbook = Workbook::new();
    // The document's creation time: given, not the clock's, so that the
    // same run gives the same bytes (`SOURCE_DATE_EPOCH`). Excel's range
    // is the years 1900-9999.
    let created = ExcelDateTime::from_timestamp(created.clamp(-2_209_075_200, 253_402_300_799))?;
    workbook.set_properties(&DocProperties::new().set_creation_datetime(&created));
    let sheet = workbook.add_worksheet();
    sheet.set_name("Sheet1")?;

    let offset = u16::from(frame.index.is_some());
    let too_wide = || {
        anyhow::anyhow!(
            "table '{}' has too many columns for an xlsx sheet",
            frame.name
        )
    };
    // pandas writes integer column labels as numbers: when every column
    // name is an integer literal (the score labels of `confMatrix*`), the
    // header cells are numbers too.
    let numeric_header = frame
        .columns
        .iter()
        .all(|c| canonical_int(&c.name).is_some());
    for (j, col) in frame.columns.iter().enumerate() {
        let c = u16::try_from(j)
            .ok()
            .and_then(|j| j.checked_add(offset))
            .ok_or_else(too_wide)?;
        match canonical_int(&col.name) {
            Some(v) if numeric_header => {
                sheet.write_number(0, c, v as f64)?;
            }
            _ => {
                sheet.write_string(0, c, &col.name)?;
            }
        }
    }

    let nrows = frame.nrows();
    // Row 0 is the header; an xlsx sheet has 1,048,576 rows.
    if nrows >= 1_048_576 {
        anyhow::bail!(
            "table '{}' has {nrows} rows, more than an xlsx sheet can hold (1,048,575)",
            frame.name
        );
    }

    let mut columns: Vec<(u16, &Values)> = Vec::with_capacity(frame.columns.len() + 1);
    if let Some(ix) = &frame.index {
        columns.push((0, ix));
    }
    for (j, col) in frame.columns.iter().enumerate() {
        // `j + offset` fits: checked for the header above.
        columns.push((j as u16 + offset, &col.values));
    }
    for (c, values) in columns {
        for i in 0..nrows {
            let r = i as u32 + 1;
            match values {
                Values::Int(v) => write_xlsx_int(sheet, r, c, v[i])?,
                Values::Float(v) => write_xlsx_float(sheet, r, c, v[i])?,
                Values::Bool(v) => {
                    sheet.write_boolean(r, c, v[i])?;
                }
                Values::Text(v) => {
                    if let Some(s) = &v[i] {
                        sheet.write_string(r, c, &**s)?;
                    }
                }
                Values::Mixed(v) => match &v[i] {
                    Cell::Missing => {}
                    Cell::Bool(b) => {
                        sheet.write_boolean(r, c, *b)?;
                    }
                    Cell::Int(x) => write_xlsx_int(sheet, r, c, *x)?,
                    Cell::Float(x) => write_xlsx_float(sheet, r, c, *x)?,
                    Cell::Text(s) => {
                        sheet.write_string(r, c, s)?;
                    }
                },
            }
        }
    }
    let bytes = workbook
        .save_to_buffer()
        .with_context(|| format!("could not build the xlsx file for table '{}'", frame.name))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsmreport_core::pyrepr::py_float;
    use rsmreport_core::table::Column;

    fn frame(index: Option<Values>, columns: Vec<Column>) -> Frame {
        Frame::new("t", index, columns)
    }

    fn text(v: &[Option<&str>]) -> Values {
        Values::Text(v.iter().map(|s| s.map(Into::into)).collect())
    }

    fn csv(f: &Frame) -> String {
        String::from_utf8(to_delimited(f, b',')).unwrap()
    }

    #[test]
    fn every_kind_of_values() {
        let f = frame(
            None,
            vec![
                Column::new("i", Values::Int(vec![4, -2])),
                Column::new("f", Values::Float(vec![4.0, f64::NAN])),
                Column::new("b", Values::Bool(vec![true, false])),
                Column::new("t", text(&[Some("x"), None])),
                Column::new(
                    "m",
                    Values::Mixed(vec![Cell::Float(1e-5), Cell::Text("a".into())]),
                ),
                Column::new("m2", Values::Mixed(vec![Cell::Int(3), Cell::Missing])),
                Column::new(
                    "m3",
                    Values::Mixed(vec![Cell::Bool(false), Cell::Float(f64::INFINITY)]),
                ),
            ],
        );
        assert_eq!(
            csv(&f),
            "i,f,b,t,m,m2,m3\n4,4.0,True,x,1e-05,3,False\n-2,,False,,a,,inf\n"
        );
    }

    #[test]
    fn quoting_is_minimal() {
        let f = frame(
            None,
            vec![
                Column::new(
                    "a,b",
                    text(&[
                        Some("x,y"),
                        Some("say \"hi\""),
                        Some("two\nlines"),
                        Some("cr\r"),
                        Some("plain text"),
                    ]),
                ),
                Column::new("tab\there", Values::Int(vec![1, 2, 3, 4, 5])),
            ],
        );
        assert_eq!(
            csv(&f),
            "\"a,b\",tab\there\n\"x,y\",1\n\"say \"\"hi\"\"\",2\n\"two\nlines\",3\n\"cr\r\",4\nplain text,5\n"
        );
        let tsv = String::from_utf8(to_delimited(&f, b'\t')).unwrap();
        assert_eq!(
            tsv,
            "a,b\t\"tab\there\"\nx,y\t1\n\"say \"\"hi\"\"\"\t2\n\"two\nlines\"\t3\n\"cr\r\"\t4\nplain text\t5\n"
        );
    }

    #[test]
    fn large_tables_are_the_same_bytes_as_one_thread_writes() {
        let n = 3 * MIN_ROWS_PER_WORKER + 17;
        let x: Vec<f64> = (0..n).map(|i| (i as f64).sqrt() / 7.0).collect();
        let mut y = x.clone();
        y[5] = f64::NAN;
        y[6] += 1.0;
        let f = frame(
            Some(Values::Int((0..n as i64).collect())),
            vec![
                Column::new(
                    "id",
                    Values::Text((0..n).map(|i| Some(format!("r,{i}").into())).collect()),
                ),
                Column::new("x", Values::Float(x.clone())),
                Column::new("x_again", Values::Float(y)),
                Column::new("r", Values::Float(x.iter().map(|v| v.round()).collect())),
                Column::new("i", Values::Int(vec![3; n])),
                Column::new("x_after_int", Values::Float(x)),
            ],
        );
        let got = to_delimited(&f, b',');
        let mut want = b",id,x,x_again,r,i,x_after_int\n".to_vec();
        for row in 0..n {
            let cell = |v: f64| {
                if v.is_nan() {
                    String::new()
                } else {
                    py_float(v)
                }
            };
            let Values::Float(x) = &f.columns[1].values else {
                unreachable!()
            };
            let Values::Float(y) = &f.columns[2].values else {
                unreachable!()
            };
            want.extend_from_slice(
                format!(
                    "{row},\"r,{row}\",{},{},{},3,{}\n",
                    cell(x[row]),
                    cell(y[row]),
                    cell(x[row].round()),
                    cell(x[row])
                )
                .as_bytes(),
            );
        }
        assert_eq!(
            String::from_utf8(got).unwrap(),
            String::from_utf8(want).unwrap()
        );
    }

    #[test]
    fn index_column_has_an_empty_header() {
        let f = frame(
            Some(text(&[Some("scale"), Some("scale_trim")])),
            vec![
                Column::new("N", Values::Int(vec![10, 10])),
                Column::new("corr", Values::Float(vec![0.5, f64::NAN])),
            ],
        );
        assert_eq!(csv(&f), ",N,corr\nscale,10,0.5\nscale_trim,10,\n");
        let f = frame(
            Some(Values::Float(vec![1.0, 2.0])),
            vec![Column::new("score", Values::Float(vec![1.0, 2.0]))],
        );
        assert_eq!(csv(&f), ",score\n1.0,1.0\n2.0,2.0\n");
        // eval_short: integer label 0
        let f = frame(
            Some(Values::Int(vec![0])),
            vec![Column::new("N", Values::Int(vec![7]))],
        );
        assert_eq!(csv(&f), ",N\n0,7\n");
    }

    #[test]
    fn a_single_empty_field_is_quoted_like_python() {
        let f = frame(
            None,
            vec![Column::new("x", text(&[Some(""), None, Some("a")]))],
        );
        assert_eq!(csv(&f), "x\n\"\"\n\"\"\na\n");
    }

    #[test]
    fn matches_a_reference_file() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/spec/fixtures/experiments"
        );
        if !std::path::Path::new(dir).exists() {
            eprintln!("skipping: {dir} not found");
            return;
        }
        let want = std::fs::read_to_string(format!(
            "{dir}/sim-h2-groups/expected/output/sim_h2_groups_degradation.csv"
        ))
        .unwrap();
        // Rebuild the frame from the file's own numbers.
        let mut lines = want.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').skip(1).collect();
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        let index = text(&rows.iter().map(|r| Some(r[0])).collect::<Vec<_>>());
        let columns = header
            .iter()
            .enumerate()
            .map(|(j, name)| {
                Column::new(
                    *name,
                    Values::Float(rows.iter().map(|r| r[j + 1].parse().unwrap()).collect()),
                )
            })
            .collect();
        assert_eq!(csv(&frame(Some(index), columns)), want);
    }

    #[test]
    fn xlsx_round_trips_through_calamine() {
        use calamine::{Data, Reader, Xlsx};
        let f = frame(
            Some(text(&[Some("a"), Some("b"), Some("c")])),
            vec![
                Column::new("i", Values::Int(vec![1, 2, 3])),
                Column::new("f", Values::Float(vec![0.5, f64::NAN, f64::NEG_INFINITY])),
                Column::new("t", text(&[Some("x"), None, Some("z,\"q\"")])),
                Column::new("b", Values::Bool(vec![true, false, true])),
                Column::new(
                    "m",
                    Values::Mixed(vec![Cell::Int(7), Cell::Text("s".into()), Cell::Missing]),
                ),
            ],
        );
        let bytes = to_xlsx(&f, 0).unwrap();
        let mut wb: Xlsx<_> = calamine::open_workbook_from_rs(std::io::Cursor::new(bytes)).unwrap();
        assert_eq!(wb.sheet_names(), vec!["Sheet1".to_string()]);
        let range = wb.worksheet_range("Sheet1").unwrap();
        assert_eq!(range.start(), Some((0, 0)), "header starts at A1");
        let get = |r: u32, c: u32| range.get_value((r, c)).cloned().unwrap_or(Data::Empty);
        assert_eq!(get(0, 0), Data::Empty);
        assert_eq!(get(0, 1), Data::String("i".into()));
        assert_eq!(get(0, 5), Data::String("m".into()));
        assert_eq!(get(1, 0), Data::String("a".into()));
        assert_eq!(get(2, 1), Data::Float(2.0));
        assert_eq!(get(1, 2), Data::Float(0.5));
        assert_eq!(get(2, 2), Data::Empty);
        assert_eq!(get(3, 2), Data::String("-inf".into()));
        assert_eq!(get(2, 3), Data::Empty);
        assert_eq!(get(3, 3), Data::String("z,\"q\"".into()));
        assert_eq!(get(2, 4), Data::Bool(false));
        assert_eq!(get(1, 5), Data::Float(7.0));
        assert_eq!(get(2, 5), Data::String("s".into()));
        assert_eq!(get(3, 5), Data::Empty);
        assert_eq!(range.get_size(), (4, 6));
    }

    #[test]
    fn xlsx_integer_labels_are_numbers_like_pandas() {
        use calamine::{Data, Reader, Xlsx};
        let f = frame(
            Some(Values::Int(vec![1, 2])),
            vec![
                Column::new("1", Values::Int(vec![3, 0])),
                Column::new("2", Values::Int(vec![1, 5])),
            ],
        );
        let bytes = to_xlsx(&f, 0).unwrap();
        let mut wb: Xlsx<_> = calamine::open_workbook_from_rs(std::io::Cursor::new(bytes)).unwrap();
        let range = wb.worksheet_range("Sheet1").unwrap();
        assert_eq!(range.get_value((0, 1)), Some(&Data::Float(1.0)));
        assert_eq!(range.get_value((1, 0)), Some(&Data::Float(1.0)));
        // a mix of names stays text
        let f = frame(
            None,
            vec![
                Column::new("1", Values::Int(vec![3])),
                Column::new("N", Values::Int(vec![1])),
            ],
        );
        let bytes = to_xlsx(&f, 0).unwrap();
        let mut wb: Xlsx<_> = calamine::open_workbook_from_rs(std::io::Cursor::new(bytes)).unwrap();
        let range = wb.worksheet_range("Sheet1").unwrap();
        assert_eq!(range.get_value((0, 0)), Some(&Data::String("1".into())));
        assert_eq!(canonical_int("03"), None);
        assert_eq!(canonical_int("-3"), Some(-3));
    }

    #[test]
    fn xlsx_without_index_starts_in_column_a() {
        use calamine::{Data, Reader, Xlsx};
        let f = frame(None, vec![Column::new("N", Values::Int(vec![5]))]);
        let bytes = to_xlsx(&f, 0).unwrap();
        let mut wb: Xlsx<_> = calamine::open_workbook_from_rs(std::io::Cursor::new(bytes)).unwrap();
        let range = wb.worksheet_range("Sheet1").unwrap();
        assert_eq!(range.get_value((0, 0)), Some(&Data::String("N".into())));
        assert_eq!(range.get_value((1, 0)), Some(&Data::Float(5.0)));
    }
}
