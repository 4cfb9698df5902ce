//! Tests of the input readers: small files written to a temporary folder,
//! and the shared fixture inputs when `../shared` is present.

use super::*;
use rsmreport_core::schema::NA_TOKENS;
use rsmreport_core::table::{Cell, Values};
use std::path::PathBuf;

fn write(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn read_bytes(name: &str, bytes: &[u8], text: &[&str]) -> Result<Table> {
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, name, bytes);
    read_table(&p, text)
}

fn t(v: &[Option<&str>]) -> Values {
    Values::Text(v.iter().map(|s| s.map(Into::into)).collect())
}

fn floats(v: &Values) -> Vec<f64> {
    match v {
        Values::Float(f) => f.clone(),
        other => panic!("expected floats, got {other:?}"),
    }
}

fn col<'a>(t: &'a Table, name: &str) -> &'a Values {
    &t.column(name)
        .unwrap_or_else(|| panic!("no column {name}"))
        .values
}

fn err(r: Result<Table>) -> String {
    format!("{:#}", r.expect_err("expected an error"))
}

// ---------------------------------------------------------------- CSV / TSV

#[test]
fn csv_types_and_text_columns() {
    let csv = "id,i,f,b,s,h\n\
               1,4,4.0,True,abc,NA\n\
               NA,5,,false,,3\n\
               ,6,1e-3,TRUE,x,4\n";
    let tab = read_bytes("a.csv", csv.as_bytes(), &["id"]).unwrap();
    assert_eq!(tab.nrows, 3);
    assert_eq!(tab.names(), vec!["id", "i", "f", "b", "s", "h"]);
    assert_eq!(col(&tab, "id"), &t(&[Some("1"), Some("NA"), Some("")]));
    assert_eq!(col(&tab, "i"), &Values::Int(vec![4, 5, 6]));
    let f = floats(col(&tab, "f"));
    assert!(f[0] == 4.0 && f[1].is_nan() && f[2] == 0.001);
    assert_eq!(col(&tab, "b"), &Values::Bool(vec![true, false, true]));
    assert_eq!(col(&tab, "s"), &t(&[Some("abc"), None, Some("x")]));
    let h = floats(col(&tab, "h"));
    assert!(h[0].is_nan() && h[1] == 3.0 && h[2] == 4.0);
}

#[test]
fn tsv_is_tab_separated() {
    let tsv = "id\tscore\tnote\nR1\t2.5\ta,b\nR2\t3\t\"q\"\n";
    let tab = read_bytes("a.TSV", tsv.as_bytes(), &["id"]).unwrap();
    assert_eq!(col(&tab, "score"), &Values::Float(vec![2.5, 3.0]));
    assert_eq!(col(&tab, "note"), &t(&[Some("a,b"), Some("q")]));
}

#[test]
fn bom_and_crlf() {
    let csv = "\u{feff}id,x\r\nA,1\r\nB,2\r\n";
    let tab = read_bytes("bom.csv", csv.as_bytes(), &["id"]).unwrap();
    assert_eq!(tab.names(), vec!["id", "x"]);
    assert_eq!(col(&tab, "id"), &t(&[Some("A"), Some("B")]));
    assert_eq!(col(&tab, "x"), &Values::Int(vec![1, 2]));
    // last line without a line end, quoted last field before CRLF
    let csv = "id,x\r\n\"A\",\"1\"\r\nB,2";
    let tab = read_bytes("crlf.csv", csv.as_bytes(), &["id"]).unwrap();
    assert_eq!(col(&tab, "id"), &t(&[Some("A"), Some("B")]));
    assert_eq!(col(&tab, "x"), &Values::Int(vec![1, 2]));
}

#[test]
fn quoted_fields_with_separators_quotes_and_newlines() {
    let csv = "id,\"na,me\",x\n\
               \"a,1\",\"say \"\"hi\"\"\",1\n\
               \"multi\nline\",\"\",2\n\
               \"crlf\r\ninside\",plain,3\n";
    let tab = read_bytes("q.csv", csv.as_bytes(), &["id"]).unwrap();
    assert_eq!(tab.names(), vec!["id", "na,me", "x"]);
    assert_eq!(
        col(&tab, "id"),
        &t(&[Some("a,1"), Some("multi\nline"), Some("crlf\r\ninside")])
    );
    assert_eq!(
        col(&tab, "na,me"),
        &t(&[Some("say \"hi\""), None, Some("plain")])
    );
    assert_eq!(col(&tab, "x"), &Values::Int(vec![1, 2, 3]));
}

#[test]
fn stray_quotes_are_read_like_pandas() {
    // polars refuses these; the fallback tokenizer reads them like pandas
    let csv = "id,x,n\nA,5\",1\n\"B\"b,6,2\nC,7,3\n";
    let tab = read_bytes("stray.csv", csv.as_bytes(), &["id"]).unwrap();
    assert_eq!(col(&tab, "id"), &t(&[Some("A"), Some("Bb"), Some("C")]));
    assert_eq!(col(&tab, "x"), &t(&[Some("5\""), Some("6"), Some("7")]));
    assert_eq!(col(&tab, "n"), &Values::Int(vec![1, 2, 3]));
}

#[test]
fn every_na_token_is_missing_outside_text_columns() {
    let mut csv = String::from("id,x\n");
    for (i, tok) in NA_TOKENS.iter().enumerate() {
        csv.push_str(&format!("{tok},{tok}\n"));
        let _ = i;
    }
    csv.push_str("last,1.5\n");
    let tab = read_bytes("na.csv", csv.as_bytes(), &["id"]).unwrap();
    let x = floats(col(&tab, "x"));
    assert_eq!(x.len(), NA_TOKENS.len() + 1);
    assert!(x[..NA_TOKENS.len()].iter().all(|v| v.is_nan()));
    assert_eq!(x[NA_TOKENS.len()], 1.5);
    let Values::Text(ids) = col(&tab, "id") else {
        panic!()
    };
    for (got, tok) in ids.iter().zip(NA_TOKENS) {
        assert_eq!(
            got.as_deref(),
            Some(tok),
            "text columns keep NA tokens verbatim"
        );
    }
}

#[test]
fn blank_lines_are_skipped() {
    let csv = "id,x\n\nA,1\n\r\nB,2\n\n\n";
    let tab = read_bytes("blank.csv", csv.as_bytes(), &["id"]).unwrap();
    assert_eq!(tab.nrows, 2);
    assert_eq!(col(&tab, "id"), &t(&[Some("A"), Some("B")]));
    assert_eq!(col(&tab, "x"), &Values::Int(vec![1, 2]));
}

#[test]
fn header_only_and_empty_files() {
    let tab = read_bytes("h.csv", b"id,x\n", &["id"]).unwrap();
    assert_eq!(tab.nrows, 0);
    assert_eq!(tab.names(), vec!["id", "x"]);
    assert!(tab.columns.iter().all(|c| c.values.is_empty()));
    let tab = read_bytes("h2.csv", b"id,x", &[]).unwrap();
    assert_eq!((tab.nrows, tab.columns.len()), (0, 2));

    for (name, bytes) in [
        ("e.csv", &b""[..]),
        ("e2.csv", b"\xEF\xBB\xBF"),
        ("e3.tsv", b"\n\n"),
        ("e.jsonl", b""),
        ("e.xlsx", b""),
    ] {
        let e = err(read_bytes(name, bytes, &[]));
        assert!(e.contains("file is empty") && e.contains(name), "{e}");
    }
}

#[test]
fn ragged_rows_and_duplicate_names_are_errors() {
    let e = err(read_bytes("r.csv", b"id,x\nA,1\nB,2,3\n", &[]));
    assert!(
        e.contains("r.csv") && e.contains("line 3") && e.contains("3 fields"),
        "{e}"
    );
    let e = err(read_bytes("r2.csv", b"id,x\nA,1\n\"B\nC\",2\nD\n", &[]));
    assert!(e.contains("line 5") && e.contains("1 field "), "{e}");
    let e = err(read_bytes("d.csv", b"id,x,id,x,y\n1,2,3,4,5\n", &[]));
    assert!(e.contains("d.csv") && e.contains("'id', 'x'"), "{e}");
    let e = err(read_bytes("q.csv", b"id,x\nA,\"open\n", &[]));
    assert!(e.contains("line 2") && e.contains("never closed"), "{e}");
}

#[test]
fn non_utf8_bytes_are_an_error_naming_the_line() {
    let e = err(read_bytes("l.csv", b"id,x\nA,1\ncaf\xe9,2\n", &["id"]));
    assert!(
        e.contains("l.csv") && e.contains("line 3") && e.contains("UTF-8"),
        "{e}"
    );
    let e = err(read_bytes("l.jsonl", b"{\"id\": \"caf\xe9\"}\n", &["id"]));
    assert!(e.contains("line 1") && e.contains("UTF-8"), "{e}");
}

#[test]
fn unsupported_extensions() {
    for name in ["a.sas7bdat", "a.txt", "noext"] {
        let e = err(read_bytes(name, b"id\n1\n", &[]));
        assert!(e.contains(name) && e.contains(".parquet"), "{e}");
    }
    let e = err(read_table(Path::new("/nonexistent/x.csv"), &[]));
    assert!(e.contains("/nonexistent/x.csv"), "{e}");
}

#[test]
fn empty_header_cells_are_named_like_pandas() {
    let tab = read_bytes("u.csv", b",x,\n1,2,3\n", &[]).unwrap();
    assert_eq!(tab.names(), vec!["Unnamed: 0", "x", "Unnamed: 2"]);
}

#[test]
fn large_integers_and_whitespace() {
    let csv = "a,b,c\n99999999999999999999, 4 ,1\n1,5,-2\n";
    let tab = read_bytes("big.csv", csv.as_bytes(), &[]).unwrap();
    assert_eq!(col(&tab, "a"), &Values::Float(vec![1e20, 1.0]));
    assert_eq!(col(&tab, "b"), &Values::Int(vec![4, 5]));
    assert_eq!(col(&tab, "c"), &Values::Int(vec![1, -2]));
}

#[test]
fn ragged_rows_are_found_by_the_parallel_scan_too() {
    let mut csv = String::from("id,x\n");
    for i in 0..200_000 {
        csv.push_str(&format!("R{i},{i}\n"));
    }
    csv.push_str("bad\n");
    let e = err(read_bytes("big_bad.csv", csv.as_bytes(), &["id"]));
    assert!(e.contains("line 200002 has 1 field "), "{e}");
    // the same with a quote somewhere (sequential scan)
    let csv = csv.replacen("R5,", "\"R5\",", 1);
    let e = err(read_bytes("big_bad2.csv", csv.as_bytes(), &["id"]));
    assert!(e.contains("line 200002 has 1 field "), "{e}");
}

#[test]
fn a_bigger_csv_uses_the_parallel_path() {
    let mut csv = String::from("id,h,s,g\n");
    for i in 0..30_000 {
        csv.push_str(&format!(
            "R{i},{},{}.5,{}\n",
            i % 5,
            i,
            if i % 2 == 0 { "a" } else { "" }
        ));
    }
    let tab = read_bytes("big.csv", csv.as_bytes(), &["id", "g"]).unwrap();
    assert_eq!(tab.nrows, 30_000);
    let Values::Int(h) = col(&tab, "h") else {
        panic!()
    };
    assert_eq!(h[29_999], 4);
    let s = floats(col(&tab, "s"));
    assert_eq!(s[12_345], 12_345.5);
    let Values::Text(g) = col(&tab, "g") else {
        panic!()
    };
    assert_eq!((g[0].as_deref(), g[1].as_deref()), (Some("a"), Some("")));
}

// ---------------------------------------------------------------- JSON lines

#[test]
fn jsonl_null_absent_and_nesting() {
    let jl = "{\"id\": \"A\", \"h\": 4, \"g\": \"x\", \"meta\": {\"a\": 1.5, \"deep\": {\"leaf\": 2}}}\n\
              \n\
              {\"id\": null, \"h\": 5, \"meta\": {\"a\": 2.0}, \"extra\": true}\r\n\
              {\"h\": 6, \"g\": null, \"meta\": {\"a\": 3, \"deep\": {\"leaf\": 3}}, \"extra\": false}\n";
    let tab = read_bytes("n.jsonl", jl.as_bytes(), &["id", "g"]).unwrap();
    assert_eq!(tab.nrows, 3);
    assert_eq!(tab.names(), vec!["id", "h", "g", "a", "deep.leaf", "extra"]);
    assert_eq!(col(&tab, "id"), &t(&[Some("A"), Some("None"), Some("nan")]));
    assert_eq!(col(&tab, "g"), &t(&[Some("x"), Some("nan"), Some("None")]));
    assert_eq!(col(&tab, "h"), &Values::Int(vec![4, 5, 6]));
    // nested: json_normalize typing, no integral-float conversion
    assert_eq!(col(&tab, "a"), &Values::Float(vec![1.5, 2.0, 3.0]));
    let leaf = floats(col(&tab, "deep.leaf"));
    assert!(leaf[0] == 2.0 && leaf[1].is_nan() && leaf[2] == 3.0);
    // booleans with an absent cell: object column, which read_json turns
    // into floats
    let extra = floats(col(&tab, "extra"));
    assert!(extra[0].is_nan() && extra[1] == 1.0 && extra[2] == 0.0);
}

#[test]
fn jsonl_read_json_conversions() {
    let jl = "{\"f\": 4.0, \"fm\": 4.0, \"s\": \"4\", \"t\": \"a\", \"m\": 1, \"b\": true, \"id\": 4.0, \"n\": null}\n\
              {\"f\": 5.0, \"s\": \"5\", \"t\": null, \"m\": \"x\", \"b\": false, \"id\": 4.5, \"n\": null}\n";
    let tab = read_bytes("c.jsonlines", jl.as_bytes(), &["id"]).unwrap();
    // integral floats without missing values -> integers
    assert_eq!(col(&tab, "f"), &Values::Int(vec![4, 5]));
    let fm = floats(col(&tab, "fm"));
    assert!(fm[0] == 4.0 && fm[1].is_nan());
    // numeric strings -> numbers
    assert_eq!(col(&tab, "s"), &Values::Int(vec![4, 5]));
    assert_eq!(col(&tab, "t"), &t(&[Some("a"), None]));
    assert_eq!(
        col(&tab, "m"),
        &Values::Mixed(vec![Cell::Int(1), Cell::Text("x".into())])
    );
    assert_eq!(col(&tab, "b"), &Values::Bool(vec![true, false]));
    // text column of a float64 column: Python str of each float
    assert_eq!(col(&tab, "id"), &t(&[Some("4.0"), Some("4.5")]));
    let n = floats(col(&tab, "n"));
    assert!(n.len() == 2 && n.iter().all(|x| x.is_nan()));
}

#[test]
fn jsonl_errors_name_the_line() {
    let e = err(read_bytes("bad.jsonl", b"{\"a\": 1}\n{\"a\": 2,}\n", &[]));
    assert!(e.contains("bad.jsonl") && e.contains("line 2"), "{e}");
    let e = err(read_bytes("arr.jsonl", b"[{\"a\": 1}]\n", &[]));
    assert!(e.contains("plain JSON"), "{e}");
    let e = err(read_bytes("num.jsonl", b"{\"a\": 1}\n\n3\n", &[]));
    assert!(
        e.contains("line 3") && e.contains("not a JSON object"),
        "{e}"
    );
    let e = err(read_bytes(
        "mix.jsonl",
        b"{\"m\": {\"a\": 1}}\n{\"m\": 2}\n",
        &[],
    ));
    assert!(e.contains("line 2") && e.contains("'m'"), "{e}");
    let e = err(read_bytes(
        "dup.jsonl",
        b"{\"a\": 1, \"m\": {\"a\": 2}}\n",
        &[],
    ));
    assert!(e.contains("duplicate column name 'a'"), "{e}");
}

// ---------------------------------------------------------------- xlsx

fn xlsx_bytes(build: impl FnOnce(&mut rust_xlsxwriter::Worksheet)) -> Vec<u8> {
    let mut wb = rust_xlsxwriter::Workbook::new();
    let ws = wb.add_worksheet();
    build(ws);
    wb.add_worksheet()
        .write_string(0, 0, "second sheet is ignored")
        .unwrap();
    wb.save_to_buffer().unwrap()
}

#[test]
fn xlsx_types() {
    let bytes = xlsx_bytes(|ws| {
        for (j, h) in ["id", "i", "f", "b", "m", "s", "cand"].iter().enumerate() {
            ws.write_string(0, j as u16, *h).unwrap();
        }
        // row 1
        ws.write_number(1, 0, 1.0).unwrap();
        ws.write_number(1, 1, 4.0).unwrap();
        ws.write_number(1, 2, 4.0).unwrap();
        ws.write_boolean(1, 3, true).unwrap();
        ws.write_number(1, 4, 2.0).unwrap();
        ws.write_string(1, 5, "NA").unwrap();
        ws.write_string(1, 6, "c1").unwrap();
        // row 2
        ws.write_string(2, 0, "B").unwrap();
        ws.write_number(2, 1, 5.0).unwrap();
        // f empty
        ws.write_boolean(2, 3, false).unwrap();
        ws.write_string(2, 4, "x").unwrap();
        ws.write_string(2, 5, "txt").unwrap();
        ws.write_number(2, 6, 2.5).unwrap();
        // row 3
        ws.write_number(3, 0, 3.5).unwrap();
        ws.write_number(3, 1, -1.0).unwrap();
        ws.write_number(3, 2, 0.25).unwrap();
        ws.write_boolean(3, 3, true).unwrap();
        ws.write_boolean(3, 4, true).unwrap();
        ws.write_string(3, 5, "y").unwrap();
    });
    let tab = read_bytes("x.xlsx", &bytes, &["id", "cand"]).unwrap();
    assert_eq!(tab.nrows, 3);
    assert_eq!(tab.names(), vec!["id", "i", "f", "b", "m", "s", "cand"]);
    assert_eq!(col(&tab, "id"), &t(&[Some("1"), Some("B"), Some("3.5")]));
    assert_eq!(col(&tab, "cand"), &t(&[Some("c1"), Some("2.5"), None]));
    assert_eq!(col(&tab, "i"), &Values::Int(vec![4, 5, -1]));
    let f = floats(col(&tab, "f"));
    assert!(f[0] == 4.0 && f[1].is_nan() && f[2] == 0.25);
    assert_eq!(col(&tab, "b"), &Values::Bool(vec![true, false, true]));
    assert_eq!(
        col(&tab, "m"),
        &Values::Mixed(vec![Cell::Int(2), Cell::Text("x".into()), Cell::Bool(true)])
    );
    assert_eq!(col(&tab, "s"), &t(&[None, Some("txt"), Some("y")]));
}

/// Date cells read as the text pandas would show (`str()` of a Python
/// `datetime`), not as Excel's serial numbers.
#[test]
fn xlsx_dates_are_text() {
    use rust_xlsxwriter::{ExcelDateTime, Format};
    let bytes = xlsx_bytes(|ws| {
        let date = Format::new().set_num_format("yyyy-mm-dd");
        let stamp = Format::new().set_num_format("yyyy-mm-dd hh:mm:ss.000");
        for (j, h) in ["id", "when", "admin"].iter().enumerate() {
            ws.write_string(0, j as u16, *h).unwrap();
        }
        let d = ExcelDateTime::from_ymd(2024, 5, 1).unwrap();
        let t = ExcelDateTime::parse_from_str("2023-12-31 13:45:07.250").unwrap();
        ws.write_string(1, 0, "a").unwrap();
        ws.write_datetime_with_format(1, 1, &d, &date).unwrap();
        ws.write_datetime_with_format(1, 2, &d, &date).unwrap();
        ws.write_string(2, 0, "b").unwrap();
        ws.write_datetime_with_format(2, 1, &t, &stamp).unwrap();
        ws.write_datetime_with_format(2, 2, &t, &stamp).unwrap();
    });
    let tab = read_bytes("d.xlsx", &bytes, &["id", "admin"]).unwrap();
    assert_eq!(
        col(&tab, "admin"),
        &t(&[
            Some("2024-05-01 00:00:00"),
            Some("2023-12-31 13:45:07.250000")
        ])
    );
    assert_eq!(col(&tab, "when"), col(&tab, "admin"));

    // A time of day and a duration, recognised by their number formats.
    let bytes = xlsx_bytes(|ws| {
        let clock = Format::new().set_num_format("hh:mm:ss");
        let span = Format::new().set_num_format("[h]:mm:ss");
        ws.write_string(0, 0, "id").unwrap();
        ws.write_string(0, 1, "at").unwrap();
        ws.write_string(0, 2, "took").unwrap();
        ws.write_string(1, 0, "a").unwrap();
        let t = ExcelDateTime::from_hms(13, 45, 0).unwrap();
        ws.write_datetime_with_format(1, 1, &t, &clock).unwrap();
        ws.write_number_with_format(1, 2, 26.0 / 24.0, &span)
            .unwrap();
    });
    let tab = read_bytes("t.xlsx", &bytes, &["id", "at", "took"]).unwrap();
    assert_eq!(col(&tab, "at"), &t(&[Some("13:45:00")]));
    assert_eq!(col(&tab, "took"), &t(&[Some("1 day, 2:00:00")]));
}

/// Header cells are named the way pandas names columns: `str()` of the
/// cell (`True` for a boolean, `4` for an integral number).
#[test]
fn xlsx_header_cells_are_python_text() {
    let bytes = xlsx_bytes(|ws| {
        ws.write_boolean(0, 0, true).unwrap();
        ws.write_number(0, 1, 4.0).unwrap();
        ws.write_number(0, 2, 2.5).unwrap();
        ws.write_string(1, 0, "a").unwrap();
    });
    let tab = read_bytes("h.xlsx", &bytes, &[]).unwrap();
    assert_eq!(tab.names(), vec!["True", "4", "2.5"]);
}

#[test]
fn xlsx_header_only_and_duplicates() {
    let bytes = xlsx_bytes(|ws| {
        ws.write_string(0, 0, "id").unwrap();
        ws.write_string(0, 1, "x").unwrap();
    });
    let tab = read_bytes("h.xlsx", &bytes, &["id"]).unwrap();
    assert_eq!((tab.nrows, tab.names()), (0, vec!["id", "x"]));
    let bytes = xlsx_bytes(|ws| {
        ws.write_string(0, 0, "x").unwrap();
        ws.write_string(0, 1, "x").unwrap();
        ws.write_number(1, 0, 1.0).unwrap();
    });
    let e = err(read_bytes("d.xlsx", &bytes, &[]));
    assert!(e.contains("d.xlsx") && e.contains("'x'"), "{e}");
    let e = err(read_bytes("junk.xlsx", b"not a zip file", &[]));
    assert!(e.contains("junk.xlsx"), "{e}");
}

// ---------------------------------------------------------------- parquet

#[test]
fn parquet_types() {
    use polars::prelude::{df, ParquetWriter};
    let mut frame = df! {
        "id" => [Some("a"), None, Some("c")],
        "i" => [1i64, 2, 3],
        "in" => [Some(1i32), None, Some(3)],
        "f" => [0.5f64, 1.5, f64::NAN],
        "b" => [true, false, true],
        "bn" => [Some(true), None, Some(false)],
        "s" => [Some("x"), None, Some("z")],
        "num_id" => [7i64, 8, 9],
    }
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.parquet");
    let file = std::fs::File::create(&p).unwrap();
    ParquetWriter::new(file).finish(&mut frame).unwrap();
    let tab = read_table(&p, &["id", "num_id"]).unwrap();
    assert_eq!(tab.nrows, 3);
    assert_eq!(col(&tab, "id"), &t(&[Some("a"), None, Some("c")]));
    assert_eq!(col(&tab, "num_id"), &t(&[Some("7"), Some("8"), Some("9")]));
    assert_eq!(col(&tab, "i"), &Values::Int(vec![1, 2, 3]));
    let v = floats(col(&tab, "in"));
    assert!(v[0] == 1.0 && v[1].is_nan() && v[2] == 3.0);
    let v = floats(col(&tab, "f"));
    assert!(v[0] == 0.5 && v[2].is_nan());
    assert_eq!(col(&tab, "b"), &Values::Bool(vec![true, false, true]));
    assert_eq!(
        col(&tab, "bn"),
        &Values::Mixed(vec![Cell::Bool(true), Cell::Missing, Cell::Bool(false)])
    );
    assert_eq!(col(&tab, "s"), &t(&[Some("x"), None, Some("z")]));
    let e = err(read_bytes("junk.parquet", b"PAR1 nope", &[]));
    assert!(e.contains("junk.parquet"), "{e}");
}

// ---------------------------------------------------------------- fixtures

fn fixture_inputs() -> Option<PathBuf> {
    let shared = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared"));
    if !shared.exists() {
        eprintln!("skipping: {} not found", shared.display());
        return None;
    }
    Some(shared.join("spec/fixtures/inputs"))
}

#[test]
fn predictions_raw_is_the_same_in_every_format() {
    let Some(dir) = fixture_inputs() else { return };
    let csv = read_table(&dir.join("predictions_raw.csv"), &["spkitemid"]).unwrap();
    let tsv = read_table(&dir.join("predictions_raw.tsv"), &["spkitemid"]).unwrap();
    let xlsx = read_table(&dir.join("predictions_raw.xlsx"), &["spkitemid"]).unwrap();
    assert_eq!(csv.nrows, 200);
    assert_eq!(csv.names(), vec!["spkitemid", "h1", "score", "h2"]);
    let close = |a: &Values, b: &Values| {
        let (a, b) = (a.to_numeric(), b.to_numeric());
        a.len() == b.len()
            && a.iter()
                .zip(&b)
                .all(|(x, y)| (x - y).abs() <= 1e-12 * y.abs())
    };
    for other in [&tsv, &xlsx] {
        assert_eq!(other.names(), csv.names());
        assert_eq!(other.nrows, csv.nrows);
        assert_eq!(col(other, "spkitemid"), col(&csv, "spkitemid"));
        assert_eq!(col(other, "h2"), col(&csv, "h2"));
        // the fixture files differ in the last digit of some scores
        assert!(matches!(col(other, "score"), Values::Float(_)));
        assert!(close(col(other, "score"), col(&csv, "score")));
    }
    assert_eq!(col(&tsv, "h1"), col(&csv, "h1"));
    // h1 is written `4.0` in the CSV (float) but stored as 4 in the xlsx
    // (pandas reads integral xlsx numbers as integers)
    assert_eq!(col(&csv, "h1").to_numeric(), col(&xlsx, "h1").to_numeric());
    let Values::Float(_) = col(&csv, "h1") else {
        panic!("h1 is float in the CSV")
    };

    // The JSON lines version has other names (id, y) and rounded scores.
    let jl = read_table(&dir.join("predictions_raw.jsonlines"), &["id"]).unwrap();
    assert_eq!(jl.names(), vec!["id", "h1", "y", "h2"]);
    assert_eq!(jl.nrows, 200);
    assert_eq!(col(&jl, "id"), col(&csv, "spkitemid"));
    assert_eq!(col(&jl, "h1").to_numeric(), col(&csv, "h1").to_numeric());
    assert_eq!(col(&jl, "h2"), col(&csv, "h2"));
    let (y, score) = (col(&jl, "y").to_numeric(), col(&csv, "score").to_numeric());
    assert!(
        y.iter().zip(&score).all(|(a, b)| (a - b).abs() < 1e-9),
        "rounded to 10 places"
    );

    let nested = read_table(&dir.join("predictions_raw_nested.jsonlines"), &["id"]).unwrap();
    assert_eq!(nested.names(), vec!["id", "y", "h1", "h2"]);
    assert_eq!(col(&nested, "id"), col(&jl, "id"));
    assert_eq!(col(&nested, "y"), col(&jl, "y"));
    // inner values stay floats (the reference echoes h2 as `4.0`)
    let Values::Float(h2) = col(&nested, "h2") else {
        panic!("nested h2 is float")
    };
    assert_eq!(h2[0], 4.0);
}

#[test]
fn probe_and_sim_fixture_inputs() {
    let Some(dir) = fixture_inputs() else { return };
    let p = read_table(&dir.join("probe_pred.csv"), &["id", "grp", "cand"]).unwrap();
    assert_eq!(p.names(), vec!["id", "grp", "sys", "h1", "h2", "cand"]);
    assert_eq!(p.nrows, 60);
    let Values::Text(grp) = col(&p, "grp") else {
        panic!()
    };
    assert_eq!(
        grp[0].as_deref(),
        Some(""),
        "empty subgroup stays an empty string"
    );
    let Values::Text(sys) = col(&p, "sys") else {
        panic!("sys has 'abc' -> text")
    };
    assert_eq!(sys[6].as_deref(), Some("abc"));
    let Values::Text(h1) = col(&p, "h1") else {
        panic!("h1 has 'x' -> text")
    };
    assert_eq!(h1[7].as_deref(), Some("x"));
    let h2 = floats(col(&p, "h2"));
    assert!(h2[0].is_nan() && h2[2] == 1.0);

    let p2 = read_table(&dir.join("probe_pred2.csv"), &["id", "grp", "cand"]).unwrap();
    let h2empty = floats(col(&p2, "h2empty"));
    assert!(h2empty.iter().all(|x| x.is_nan()) && h2empty.len() == p2.nrows);
    assert_eq!(col(&p2, "h2zero"), &Values::Int(vec![0; p2.nrows]));

    let s = read_table(&dir.join("sim_scaled_jsonl.jsonlines"), &["id", "L1"]).unwrap();
    assert_eq!(s.nrows, 1500);
    assert_eq!(
        s.names(),
        vec!["id", "L1", "gender", "true_score", "h1", "h2", "system"]
    );
    let Values::Int(_) = col(&s, "h1") else {
        panic!("h1 ints")
    };
    let h2 = floats(col(&s, "h2"));
    assert!(h2[0].is_nan() && h2[17] == 4.0);
    assert_eq!(col(&s, "gender").cell(0), Cell::Text("F".into()));
}

#[test]
fn columns_of_unequal_length_are_a_damaged_file() {
    use rsmreport_core::table::Column;
    let ok = Table {
        columns: vec![Column::new("id", t(&[Some("a"), Some("b")]))],
        nrows: 2,
    };
    assert!(super::check_shape(Path::new("d.parquet"), &ok).is_ok());
    let bad = Table {
        columns: vec![
            Column::new("id", t(&[])),
            Column::new("x", Values::Float(vec![1.0, 2.0])),
        ],
        nrows: 2,
    };
    let e = format!(
        "{:#}",
        super::check_shape(Path::new("d.parquet"), &bad).unwrap_err()
    );
    assert!(
        e.contains("d.parquet") && e.contains("'id'") && e.contains("damaged"),
        "{e}"
    );
}
