//! Reading output tables (CSV, TSV, XLSX) into a common shape and comparing
//! an actual table with an expected one, cell by cell.
//!
//! Comparison rules (tests/README.md, "What parity means"):
//! * same header (column names and their order);
//! * same number of rows;
//! * numeric cells within relative 1e-6 / absolute 1e-9, `NaN` == empty;
//! * text cells exactly equal;
//! * CSV/TSV only: a number written as an integer (`4`) and one written as a
//!   float (`4.0`, `1e-05`) are different (decisions.md: Python `repr`
//!   formatting), reported as "number style";
//! * when rows are in a different order and the expected table is an index
//!   table (its first header is empty), rows are matched by their label
//!   (first cell) instead, and that is reported as a note, not a failure.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::fs;
use std::path::Path;

use super::close;

/// One cell of a table read from disk.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// An empty field, or a number that is NaN.
    Empty,
    /// A number; `text` is how it was written (CSV/TSV), `None` for XLSX.
    Num { value: f64, text: Option<String> },
    /// Anything else.
    Text(String),
}

impl Cell {
    /// Classifies one CSV/TSV field.
    pub fn from_field(s: &str) -> Cell {
        if s.is_empty() {
            return Cell::Empty;
        }
        // `str::parse::<f64>` also accepts "inf", "infinity" and "nan" in any
        // case; Python's repr writes `inf`, `-inf` (NaN is written empty).
        match s.parse::<f64>() {
            Ok(v) if v.is_nan() => Cell::Empty,
            Ok(v) => Cell::Num {
                value: v,
                text: Some(s.to_string()),
            },
            Err(_) => Cell::Text(s.to_string()),
        }
    }

    /// A key for matching rows by label: numbers by value, text by text.
    fn key(&self) -> String {
        match self {
            Cell::Empty => String::new(),
            Cell::Num { value, .. } => format!("#{value:?}"),
            Cell::Text(t) => t.clone(),
        }
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::Empty => write!(f, "(empty)"),
            Cell::Num { text: Some(t), .. } => write!(f, "{t}"),
            Cell::Num { value, text: None } => write!(f, "{value:?}"),
            Cell::Text(t) => write!(f, "{t:?}"),
        }
    }
}

/// A table as read from disk: header row plus data rows.
#[derive(Clone, Debug)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
    /// CSV/TSV: the file used `\r\n` line ends somewhere.
    pub crlf: bool,
    /// XLSX: the sheet names, in workbook order.
    pub sheets: Vec<String>,
    /// CSV/TSV (true) or XLSX (false): whether number style is meaningful.
    pub textual: bool,
}

/// Reads a `.csv`, `.tsv` or `.xlsx` table.
pub fn read_table(path: &Path) -> Result<Table, String> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "csv" => read_delimited(path, b','),
        "tsv" => read_delimited(path, b'\t'),
        "xlsx" => read_xlsx(path),
        _ => Err(format!("{}: not a table file", path.display())),
    }
}

fn read_delimited(path: &Path, sep: u8) -> Result<Table, String> {
    let bytes = fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| format!("{} is not valid UTF-8: {e}", path.display()))?;
    let crlf = text.contains("\r\n");
    let normalised = if crlf {
        text.replace("\r\n", "\n")
    } else {
        text
    };
    let records = parse_delimited(&normalised, sep as char)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let mut it = records.into_iter();
    let header = it.next().unwrap_or_default();
    let rows = it
        .map(|r| r.iter().map(|f| Cell::from_field(f)).collect())
        .collect();
    Ok(Table {
        header,
        rows,
        crlf,
        sheets: Vec::new(),
        textual: true,
    })
}

/// Minimal RFC 4180 reader: fields may be quoted with `"`, quotes inside a
/// quoted field are doubled, quoted fields may contain the separator and
/// newlines. A final newline does not start an empty record.
pub fn parse_delimited(text: &str, sep: char) -> Result<Vec<Vec<String>>, String> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut chars = text.chars().peekable();
    let mut in_quotes = false;
    let mut at_field_start = true;
    let mut line = 1usize;
    while let Some(c) = chars.next() {
        if in_quotes {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    field.push('"');
                } else {
                    in_quotes = false;
                }
            } else {
                if c == '\n' {
                    line += 1;
                }
                field.push(c);
            }
            continue;
        }
        if c == '"' && at_field_start {
            in_quotes = true;
            at_field_start = false;
        } else if c == sep {
            record.push(std::mem::take(&mut field));
            at_field_start = true;
        } else if c == '\n' {
            record.push(std::mem::take(&mut field));
            records.push(std::mem::take(&mut record));
            at_field_start = true;
            line += 1;
        } else {
            field.push(c);
            at_field_start = false;
        }
    }
    if in_quotes {
        return Err(format!("unterminated quoted field (line {line})"));
    }
    if !at_field_start || !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push(record);
    }
    Ok(records)
}

fn read_xlsx(path: &Path) -> Result<Table, String> {
    use calamine::{open_workbook_auto, Data, Reader};
    let mut wb =
        open_workbook_auto(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let sheets = wb.sheet_names();
    let first = sheets
        .first()
        .cloned()
        .ok_or_else(|| format!("{}: workbook has no sheets", path.display()))?;
    let range = wb
        .worksheet_range(&first)
        .map_err(|e| format!("{}: cannot read sheet {first:?}: {e}", path.display()))?;
    // Rebuild the grid from A1, whatever the used range is.
    let mut grid: Vec<Vec<Cell>> = Vec::new();
    if let Some((end_r, end_c)) = range.end() {
        for r in 0..=end_r {
            let mut row = Vec::new();
            for c in 0..=end_c {
                let cell = match range.get_value((r, c)) {
                    None | Some(Data::Empty) => Cell::Empty,
                    Some(Data::Int(i)) => Cell::Num {
                        value: *i as f64,
                        text: None,
                    },
                    Some(Data::Float(f)) if f.is_nan() => Cell::Empty,
                    Some(Data::Float(f)) => Cell::Num {
                        value: *f,
                        text: None,
                    },
                    Some(Data::String(s)) if s.is_empty() => Cell::Empty,
                    Some(Data::String(s)) => Cell::Text(s.clone()),
                    Some(Data::Bool(b)) => Cell::Text(if *b { "True" } else { "False" }.into()),
                    Some(other) => Cell::Text(other.to_string()),
                };
                row.push(cell);
            }
            grid.push(row);
        }
    }
    let mut it = grid.into_iter();
    let header = it
        .next()
        .unwrap_or_default()
        .into_iter()
        .map(|c| match c {
            Cell::Empty => String::new(),
            Cell::Num { value, .. } => format_header_number(value),
            Cell::Text(t) => t,
        })
        .collect();
    let rows = it.collect();
    Ok(Table {
        header,
        rows,
        crlf: false,
        sheets,
        textual: false,
    })
}

/// Header cells that are numbers in XLSX (confusion-matrix labels): written
/// the way the CSV writer would (`1`, not `1.0`, for integral labels).
fn format_header_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v:?}")
    }
}

/// One difference between an expected and an actual table.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// What kind of difference ("value", "number style", "header", ...).
    pub what: String,
    /// `row 3 ("All data")`, or `None` for table-level problems.
    pub row: Option<String>,
    /// Column name, or `None` for row- or table-level problems.
    pub column: Option<String>,
    pub expected: String,
    pub actual: String,
}

/// The outcome of comparing two tables.
#[derive(Clone, Debug, Default)]
pub struct Comparison {
    pub mismatches: Vec<Mismatch>,
    pub notes: Vec<String>,
}

fn row_name(i: usize, row: &[Cell]) -> String {
    match row.first() {
        Some(c) => format!("row {} ({})", i + 1, c),
        None => format!("row {}", i + 1),
    }
}

fn is_integer_style(text: &str) -> bool {
    let t = text.trim_start_matches(['-', '+']);
    t.bytes().all(|b| b.is_ascii_digit())
}

fn compare_cell(e: &Cell, a: &Cell, textual: bool) -> Option<&'static str> {
    match (e, a) {
        (Cell::Empty, Cell::Empty) => None,
        (
            Cell::Num {
                value: ev,
                text: et,
            },
            Cell::Num {
                value: av,
                text: at,
            },
        ) => {
            if !close(*ev, *av) {
                Some("value")
            } else if textual {
                match (et, at) {
                    (Some(et), Some(at)) if is_integer_style(et) != is_integer_style(at) => {
                        Some("number style (integer vs float)")
                    }
                    _ => None,
                }
            } else {
                None
            }
        }
        (Cell::Text(et), Cell::Text(at)) if et == at => None,
        _ => Some("value"),
    }
}

/// Compares `actual` with `expected` (see the module docs for the rules).
pub fn compare_tables(expected: &Table, actual: &Table) -> Comparison {
    let mut cmp = Comparison::default();
    let push = |cmp: &mut Comparison,
                what: &str,
                row: Option<String>,
                column: Option<String>,
                e: String,
                a: String| {
        cmp.mismatches.push(Mismatch {
            what: what.to_string(),
            row,
            column,
            expected: e,
            actual: a,
        });
    };

    if actual.crlf && !expected.crlf {
        push(
            &mut cmp,
            "line ends",
            None,
            None,
            "\\n".into(),
            "\\r\\n".into(),
        );
    }
    if !expected.sheets.is_empty() && expected.sheets != actual.sheets {
        push(
            &mut cmp,
            "sheet names",
            None,
            None,
            format!("{:?}", expected.sheets),
            format!("{:?}", actual.sheets),
        );
    }

    // Header.
    if expected.header != actual.header {
        let es: HashSet<&String> = expected.header.iter().collect();
        let as_: HashSet<&String> = actual.header.iter().collect();
        let what = if es == as_ && expected.header.len() == actual.header.len() {
            "header (same columns, different order)"
        } else {
            "header"
        };
        push(
            &mut cmp,
            what,
            None,
            None,
            format!("{:?}", expected.header),
            format!("{:?}", actual.header),
        );
    }
    // Column pairing by name (first occurrence), so that a header problem
    // still lets the common columns be compared.
    let mut actual_col: HashMap<&str, usize> = HashMap::new();
    for (j, h) in actual.header.iter().enumerate() {
        actual_col.entry(h.as_str()).or_insert(j);
    }
    let columns: Vec<(usize, usize, &str)> = expected
        .header
        .iter()
        .enumerate()
        .filter_map(|(i, h)| actual_col.get(h.as_str()).map(|&j| (i, j, h.as_str())))
        .collect();

    // Row count.
    if expected.rows.len() != actual.rows.len() {
        push(
            &mut cmp,
            "row count",
            None,
            None,
            expected.rows.len().to_string(),
            actual.rows.len().to_string(),
        );
    }

    // Row pairing.
    let pairs = pair_rows(expected, actual, &mut cmp);

    for (ei, ai) in pairs {
        let er = &expected.rows[ei];
        let ar = &actual.rows[ai];
        if er.len() != expected.header.len() || ar.len() != actual.header.len() {
            push(
                &mut cmp,
                "field count",
                Some(row_name(ei, er)),
                None,
                er.len().to_string(),
                ar.len().to_string(),
            );
        }
        for &(i, j, name) in &columns {
            let e = er.get(i).unwrap_or(&Cell::Empty);
            let a = ar.get(j).unwrap_or(&Cell::Empty);
            if let Some(what) = compare_cell(e, a, expected.textual && actual.textual) {
                push(
                    &mut cmp,
                    what,
                    Some(row_name(ei, er)),
                    Some(if name.is_empty() {
                        "(index)".to_string()
                    } else {
                        name.to_string()
                    }),
                    e.to_string(),
                    a.to_string(),
                );
            }
        }
    }
    cmp
}

/// Decides which expected row is compared with which actual row.
fn pair_rows(expected: &Table, actual: &Table, cmp: &mut Comparison) -> Vec<(usize, usize)> {
    let in_order: Vec<(usize, usize)> = (0..expected.rows.len().min(actual.rows.len()))
        .map(|i| (i, i))
        .collect();
    let is_index_table = expected
        .header
        .first()
        .map(|h| h.is_empty())
        .unwrap_or(false)
        && actual.header.first().map(|h| h.is_empty()).unwrap_or(false);
    if !is_index_table {
        return in_order;
    }
    let labels = |t: &Table| -> Vec<String> {
        t.rows
            .iter()
            .map(|r| r.first().map(Cell::key).unwrap_or_default())
            .collect()
    };
    let el = labels(expected);
    let al = labels(actual);
    if el == al {
        return in_order;
    }
    let unique = |v: &[String]| v.iter().collect::<HashSet<_>>().len() == v.len();
    if !unique(&el) || !unique(&al) {
        return in_order;
    }
    let apos: HashMap<&String, usize> = al.iter().enumerate().map(|(i, l)| (l, i)).collect();
    let epos: HashSet<&String> = el.iter().collect();
    let mut pairs = Vec::new();
    for (i, l) in el.iter().enumerate() {
        match apos.get(l) {
            Some(&j) => pairs.push((i, j)),
            None => cmp.mismatches.push(Mismatch {
                what: "row missing".into(),
                row: Some(row_name(i, &expected.rows[i])),
                column: None,
                expected: "present".into(),
                actual: "absent".into(),
            }),
        }
    }
    for (j, l) in al.iter().enumerate() {
        if !epos.contains(l) {
            cmp.mismatches.push(Mismatch {
                what: "unexpected row".into(),
                row: Some(row_name(j, &actual.rows[j])),
                column: None,
                expected: "absent".into(),
                actual: "present".into(),
            });
        }
    }
    let common_e: Vec<&String> = el.iter().filter(|l| apos.contains_key(l)).collect();
    let common_a: Vec<&String> = al.iter().filter(|l| epos.contains(l)).collect();
    if common_e != common_a {
        cmp.notes.push(format!(
            "rows in a different order, matched by label: expected {:?}, actual {:?}",
            el, al
        ));
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str) -> Table {
        let recs = parse_delimited(text, ',').unwrap();
        let mut it = recs.into_iter();
        Table {
            header: it.next().unwrap(),
            rows: it
                .map(|r| r.iter().map(|f| Cell::from_field(f)).collect())
                .collect(),
            crlf: false,
            sheets: vec![],
            textual: true,
        }
    }

    #[test]
    fn parses_quotes_and_trailing_newline() {
        let r = parse_delimited("a,\"b,\"\"c\"\"\"\n1,\"x\ny\"\n", ',').unwrap();
        assert_eq!(r, vec![vec!["a", "b,\"c\""], vec!["1", "x\ny"]]);
        let r = parse_delimited(",N\n", ',').unwrap();
        assert_eq!(r, vec![vec!["", "N"]]);
        let r = parse_delimited("a,b\n1,\n", ',').unwrap();
        assert_eq!(r, vec![vec!["a", "b"], vec!["1", ""]]);
    }

    #[test]
    fn numeric_tolerance_and_style() {
        let e = t(",x,y\nA,1.0,3\n");
        assert!(compare_tables(&e, &t(",x,y\nA,1.0000000001,3\n"))
            .mismatches
            .is_empty());
        let c = compare_tables(&e, &t(",x,y\nA,1.001,3\n"));
        assert_eq!(c.mismatches.len(), 1);
        assert_eq!(c.mismatches[0].what, "value");
        let c = compare_tables(&e, &t(",x,y\nA,1,3.0\n"));
        assert_eq!(c.mismatches.len(), 2);
        assert!(c.mismatches[0].what.starts_with("number style"));
        assert!(compare_tables(&t("a\nnan\n"), &t("a\n\n"))
            .mismatches
            .is_empty());
    }

    #[test]
    fn index_rows_matched_by_label() {
        let e = t(",N\nAll data,3\nb,1\nc,2\n");
        let a = t(",N\nb,1\nAll data,3\nc,2\n");
        let c = compare_tables(&e, &a);
        assert!(c.mismatches.is_empty(), "{:?}", c.mismatches);
        assert_eq!(c.notes.len(), 1);
        // Not an index table: order matters.
        let e = t("g,N\nb,1\nc,2\n");
        let a = t("g,N\nc,2\nb,1\n");
        assert_eq!(compare_tables(&e, &a).mismatches.len(), 4);
    }
}
