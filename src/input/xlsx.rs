//! Stage 2 (input): `.xlsx` files, first sheet only, read with calamine.
//! Reads files only; writes nothing.
//!
//! The reference reads xlsx with `pd.read_excel` (openpyxl): integral
//! numbers become Python ints, empty cells and NA-token strings are missing,
//! numeric strings count as numbers, and text columns get `str()` of each
//! cell with the NA check applied afterwards (so an empty cell stays a real
//! missing value, spec 2.1).

use super::infer::{classify, is_na, Parsed};
use crate::output::format::py_float;
use crate::table::{Cell, Column, Table, Values};
use anyhow::{anyhow, bail, Result};
use calamine::{open_workbook, Data, Reader, Xlsx};
use std::path::Path;

pub fn read(path: &Path, text_columns: &[&str]) -> Result<Table> {
    let mut workbook: Xlsx<_> = open_workbook(path)
        .map_err(|e| anyhow!("{}: cannot open the xlsx workbook: {e}", path.display()))?;
    let range = workbook
        .worksheet_range_at(0)
        .ok_or_else(|| anyhow!("{}: the workbook has no sheet", path.display()))?
        .map_err(|e| anyhow!("{}: cannot read the first sheet: {e}", path.display()))?;

    let mut rows = range.rows();
    let Some(header) = rows.next() else {
        bail!(
            "{}: file is empty (the first sheet has no cells)",
            path.display()
        );
    };
    // Trailing empty header cells over empty columns are dropped.
    let width = header
        .iter()
        .rposition(|c| !matches!(c, Data::Empty))
        .map_or(0, |p| p + 1);
    if width == 0 {
        bail!(
            "{}: the first row of the first sheet (the header) is empty",
            path.display()
        );
    }
    let names: Vec<String> = header[..width]
        .iter()
        .enumerate()
        .map(|(j, c)| match c {
            Data::Empty => format!("Unnamed: {j}"),
            other => header_text(other),
        })
        .collect();
    super::check_unique_names(path, &names)?;

    let body: Vec<&[Data]> = rows.collect();
    // pandas drops trailing rows that are entirely empty.
    let nrows = body
        .iter()
        .rposition(|r| r.iter().take(width).any(|c| !matches!(c, Data::Empty)))
        .map_or(0, |p| p + 1);
    let body = &body[..nrows];

    let columns = names
        .into_iter()
        .enumerate()
        .map(|(j, name)| {
            let cells = body.iter().map(|r| r.get(j).unwrap_or(&Data::Empty));
            let values = if text_columns.contains(&name.as_str()) {
                text_values(cells)
            } else {
                typed_values(cells, nrows)
            };
            Column::new(name, values)
        })
        .collect();
    Ok(Table { columns, nrows })
}

fn header_text(c: &Data) -> String {
    match c {
        Data::Float(x) if x.fract() == 0.0 && x.abs() < 9.2e18 => (*x as i64).to_string(),
        Data::Float(x) => py_float(*x),
        Data::DateTime(d) if d.is_datetime() => timestamp_text(d),
        other => other.to_string(),
    }
}

/// A date/time cell as Python's `str()` of the `datetime` pandas gets from
/// openpyxl: `2024-05-01 00:00:00`, with `.ffffff` when there is a
/// fraction of a second. (Without this, calamine gives Excel's serial
/// number, e.g. `45413`, which no user would recognise.)
fn timestamp_text(d: &calamine::ExcelDateTime) -> String {
    let (y, mo, day, h, mi, s, ms) = d.to_ymd_hms_milli();
    let mut text = format!("{y:04}-{mo:02}-{day:02} {h:02}:{mi:02}:{s:02}");
    if ms > 0 {
        text.push_str(&format!(".{:06}", u32::from(ms) * 1000));
    }
    text
}

/// Python's `str()` of the value pandas gets from openpyxl.
fn cell_str(c: &Data) -> String {
    match c {
        Data::Empty => String::new(),
        Data::Int(i) => i.to_string(),
        Data::Float(x) if x.fract() == 0.0 && x.abs() < 9.2e18 => (*x as i64).to_string(),
        Data::Float(x) => py_float(*x),
        Data::Bool(b) => if *b { "True" } else { "False" }.into(),
        Data::String(s) => s.clone(),
        Data::DateTime(d) if d.is_datetime() => timestamp_text(d),
        other => other.to_string(),
    }
}

/// A text column: `str()` of every cell; empty cells and NA tokens missing.
fn text_values<'a>(cells: impl Iterator<Item = &'a Data>) -> Values {
    crate::table::text_values(cells.map(|c| {
        let s = cell_str(c);
        if is_na(&s) {
            None
        } else {
            Some(s)
        }
    }))
}

/// Any other column: pandas-like types.
fn typed_values<'a>(cells: impl Iterator<Item = &'a Data>, nrows: usize) -> Values {
    let cells: Vec<Cell> = cells
        .map(|c| match c {
            Data::Empty => Cell::Missing,
            Data::Int(i) => Cell::Int(*i),
            Data::Float(x) if x.fract() == 0.0 && x.abs() < 9.2e18 => Cell::Int(*x as i64),
            Data::Float(x) => Cell::Float(*x),
            Data::Bool(b) => Cell::Bool(*b),
            other => {
                let s = match other {
                    Data::String(s) => s.clone(),
                    Data::DateTime(d) if d.is_datetime() => {
                        return Cell::Text(timestamp_text(d));
                    }
                    o => o.to_string(),
                };
                if is_na(&s) {
                    Cell::Missing
                } else {
                    match classify(&s) {
                        Parsed::Int(i) => Cell::Int(i),
                        Parsed::Float(x) => Cell::Float(x),
                        Parsed::Bool(b) => Cell::Bool(b),
                        Parsed::Text => Cell::Text(s),
                    }
                }
            }
        })
        .collect();
    column_from_cells(cells, nrows)
}

/// The pandas type of a column of cells: all integers -> `Int`; numbers
/// with missing cells (or any float) -> `Float`; all booleans -> `Bool`;
/// only text and missing cells -> `Text`; no cells -> empty `Text`; all
/// missing -> `Float` of NaN; any other mix -> `Mixed`.
pub(super) fn column_from_cells(cells: Vec<Cell>, nrows: usize) -> Values {
    let (mut missing, mut ints, mut floats, mut bools, mut texts) = (0, 0, 0, 0, 0);
    for c in &cells {
        match c {
            Cell::Missing => missing += 1,
            Cell::Int(_) => ints += 1,
            Cell::Float(_) => floats += 1,
            Cell::Bool(_) => bools += 1,
            Cell::Text(_) => texts += 1,
        }
    }
    if nrows == 0 {
        return Values::Text(Vec::new());
    }
    if missing == nrows {
        return Values::Float(vec![f64::NAN; nrows]);
    }
    if ints == nrows {
        return Values::Int(
            cells
                .into_iter()
                .map(|c| if let Cell::Int(i) = c { i } else { 0 })
                .collect(),
        );
    }
    if bools == nrows {
        return Values::Bool(cells.into_iter().map(|c| c == Cell::Bool(true)).collect());
    }
    if bools == 0 && texts == 0 {
        return Values::Float(
            cells
                .into_iter()
                .map(|c| match c {
                    Cell::Int(i) => i as f64,
                    Cell::Float(x) => x,
                    _ => f64::NAN,
                })
                .collect(),
        );
    }
    if ints == 0 && floats == 0 && bools == 0 {
        return crate::table::text_values(cells.into_iter().map(|c| match c {
            Cell::Text(s) => Some(s),
            _ => None,
        }));
    }
    Values::Mixed(cells)
}
