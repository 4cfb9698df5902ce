//! Stage 2 (input): `.xlsx` files, first sheet only, read with calamine.
//! Reads files only; writes nothing.
//!
//! The reference reads xlsx with `pd.read_excel` (openpyxl): integral
//! numbers become Python ints, empty cells and NA-token strings are missing,
//! numeric strings count as numbers, and text columns get `str()` of each
//! cell with the NA check applied afterwards (so an empty cell stays a real
//! missing value, spec 2.1).

use super::infer::{classify, is_na, Parsed};
use anyhow::{anyhow, bail, Result};
use calamine::{open_workbook, Data, ExcelDateTime, ExcelDateTimeType, Reader, Xlsx};
use rsmreport_core::pyrepr::{civil_from_days, py_float};
use rsmreport_core::table::{Cell, Column, Table, Values};
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
            other => cell_str(other),
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

/// `str()` of the Python value that openpyxl, the reference's xlsx reader,
/// makes of a date, time or duration cell (`from_excel` in
/// `openpyxl.utils.datetime`): `2024-05-01 00:00:00` for a date-time
/// (`.ffffff` when there is a fraction of a second), `13:45:00` for a serial
/// number below 1 (a time of day), `1 day, 2:00:00` for a duration. Excel
/// stores milliseconds; openpyxl rounds to them half to even, counts from
/// 1899-12-30 (or 1904-01-01 in the 1904 date system) and moves serial
/// numbers below 60 one day on (Excel's phantom 1900-02-29). Without this,
/// calamine gives the serial number, e.g. `45413`.
fn excel_date_text(d: &ExcelDateTime) -> String {
    const MS_PER_DAY: i64 = 86_400_000;
    let value = d.as_f64();
    if !value.is_finite() {
        return py_float(value);
    }
    if d.is_duration() {
        return duration_text(value);
    }
    let day = value.floor();
    // `round(fraction * SECS_PER_DAY * 1000)`: two products, as in Python.
    let ms = ((value - day) * 86_400.0 * 1000.0).round_ties_even() as i64;
    if (0.0..1.0).contains(&value) && ms < MS_PER_DAY {
        return clock_text(ms * 1000, true);
    }
    // Days from 1970-01-01 to the epoch of the workbook's date system
    // (calamine has no getter for it; the flag is part of equality).
    let system_1904 = *d == ExcelDateTime::new(value, ExcelDateTimeType::DateTime, true);
    let mut day = day as i64;
    let epoch = if system_1904 { -24_107 } else { -25_569 };
    if !system_1904 && 0.0 < value && value < 60.0 {
        day += 1;
    }
    let (y, m, dd) = civil_from_days(epoch + day + ms.div_euclid(MS_PER_DAY));
    format!(
        "{y:04}-{m:02}-{dd:02} {}",
        clock_text(ms.rem_euclid(MS_PER_DAY) * 1000, true)
    )
}

/// `str()` of `datetime.timedelta(days=value)` rounded to milliseconds the
/// way openpyxl does (whole seconds floored, the microseconds rounded half
/// to even to thousands): `0:00:45`, `1 day, 2:00:00`, `-1 day, 23:00:00`.
fn duration_text(value: f64) -> String {
    const US_PER_DAY: i64 = 86_400_000_000;
    let mut us = (value * US_PER_DAY as f64).round_ties_even() as i64;
    let micro = us.rem_euclid(1_000_000);
    if micro != 0 {
        let (q, r) = (micro / 1000, micro % 1000);
        let q = if r > 500 || (r == 500 && q % 2 == 1) {
            q + 1
        } else {
            q
        };
        us = us.div_euclid(1_000_000) * 1_000_000 + q * 1000;
    }
    let days = us.div_euclid(US_PER_DAY);
    let clock = clock_text(us.rem_euclid(US_PER_DAY), false);
    match days {
        0 => clock,
        1 | -1 => format!("{days} day, {clock}"),
        _ => format!("{days} days, {clock}"),
    }
}

/// A time of day from microseconds after midnight, as Python prints a
/// `time` (`13:45:00`, two-digit hour) or the clock part of a `timedelta`
/// (`2:00:00`); `.ffffff` when there are microseconds.
fn clock_text(us: i64, two_digit_hour: bool) -> String {
    let (h, m, s, frac) = (
        us / 3_600_000_000,
        us / 60_000_000 % 60,
        us / 1_000_000 % 60,
        us % 1_000_000,
    );
    let mut text = if two_digit_hour {
        format!("{h:02}:{m:02}:{s:02}")
    } else {
        format!("{h}:{m:02}:{s:02}")
    };
    if frac > 0 {
        text.push_str(&format!(".{frac:06}"));
    }
    text
}

/// `str()` of what openpyxl's `from_ISO8601` makes of a date stored as ISO
/// text (cells of type `d`): `2024-05-01T13:45:07.25Z` becomes
/// `2024-05-01 13:45:07.250000`, `13:45` becomes `13:45:00`; a date alone
/// stays as it is. Text of any other shape is returned unchanged.
fn iso_date_text(text: &str) -> String {
    fn number(s: &str, len: usize) -> Option<u32> {
        if s.len() == len && s.bytes().all(|b| b.is_ascii_digit()) {
            s.parse().ok()
        } else {
            None
        }
    }
    let clock = |t: &str| -> Option<String> {
        let mut parts = t.splitn(3, ':');
        let h = number(parts.next()?, 2)?;
        let m = number(parts.next()?, 2)?;
        let (s, micro) = match parts.next() {
            None => (0, 0),
            Some(rest) => {
                let (s, f) = rest.split_once('.').unwrap_or((rest, ""));
                let micro = if f.is_empty() {
                    0
                } else {
                    // `int(float(".25") * 1_000_000)`, at most 3 digits.
                    number(f, f.len()).filter(|_| f.len() <= 3)?;
                    (format!("0.{f}").parse::<f64>().ok()? * 1e6) as i64
                };
                (number(s, 2)?, micro)
            }
        };
        Some(clock_text(
            i64::from(h * 3600 + m * 60 + s) * 1_000_000 + micro,
            true,
        ))
    };
    let body = text.strip_suffix('Z').unwrap_or(text);
    let parsed = match body.split_once('T') {
        Some((date, time)) if date.len() == 10 => clock(time).map(|c| format!("{date} {c}")),
        None if body.contains(':') => clock(body),
        _ => None,
    };
    parsed.unwrap_or_else(|| text.to_string())
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
        Data::DateTime(d) => excel_date_text(d),
        Data::DateTimeIso(t) => iso_date_text(t),
        other => other.to_string(),
    }
}

/// A text column: `str()` of every cell; empty cells and NA tokens missing.
fn text_values<'a>(cells: impl Iterator<Item = &'a Data>) -> Values {
    rsmreport_core::table::text_values(cells.map(|c| {
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
                    Data::DateTime(d) => return Cell::Text(excel_date_text(d)),
                    Data::DateTimeIso(t) => return Cell::Text(iso_date_text(t)),
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
        return rsmreport_core::table::text_values(cells.into_iter().map(|c| match c {
            Cell::Text(s) => Some(s),
            _ => None,
        }));
    }
    Values::Mixed(cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(value: f64, system_1904: bool) -> String {
        excel_date_text(&ExcelDateTime::new(
            value,
            ExcelDateTimeType::DateTime,
            system_1904,
        ))
    }

    fn duration(value: f64) -> String {
        excel_date_text(&ExcelDateTime::new(
            value,
            ExcelDateTimeType::TimeDelta,
            false,
        ))
    }

    /// Expected texts from `str(openpyxl.utils.datetime.from_excel(v))`
    /// (its algorithm run with Python's `datetime`).
    #[test]
    fn dates_times_and_durations_read_as_openpyxl_prints_them() {
        for (v, want) in [
            (45413.0, "2024-05-01 00:00:00"),
            (45291.57299189815, "2023-12-31 13:45:06.500000"),
            (45413.99999999, "2024-05-01 23:59:59.999000"),
            (0.5, "12:00:00"),
            (1.5 / 86_400_000.0, "00:00:00.001000"),
            (0.9999999999, "1900-01-01 00:00:00"),
            (1.0, "1900-01-01 00:00:00"),
            (59.5, "1900-02-28 12:00:00"),
            (60.0, "1900-02-28 00:00:00"),
            (61.0, "1900-03-01 00:00:00"),
        ] {
            assert_eq!(date(v, false), want, "{v}");
        }
        assert_eq!(date(0.0, true), "00:00:00");
        assert_eq!(date(1.0, true), "1904-01-02 00:00:00");
        assert_eq!(date(43000.25, true), "2021-09-23 06:00:00");
        for (v, want) in [
            (1.0833333333333333, "1 day, 2:00:00"),
            (45.0 / 86_400.0, "0:00:45"),
            (-1.0 / 24.0, "-1 day, 23:00:00"),
            (2.5 / 86_400.0, "0:00:02.500000"),
            (0.0000123, "0:00:01.063000"),
            (3.00000001, "3 days, 0:00:00.001000"),
        ] {
            assert_eq!(duration(v), want, "{v}");
        }
    }

    #[test]
    fn iso_dates_read_as_openpyxl_prints_them() {
        assert_eq!(
            iso_date_text("2024-05-01T13:45:07.25Z"),
            "2024-05-01 13:45:07.250000"
        );
        assert_eq!(iso_date_text("2024-05-01T13:45"), "2024-05-01 13:45:00");
        assert_eq!(iso_date_text("13:45"), "13:45:00");
        assert_eq!(iso_date_text("2024-05-01"), "2024-05-01");
        assert_eq!(iso_date_text("not a date"), "not a date");
        assert_eq!(iso_date_text("2024-05-01T1:2"), "2024-05-01T1:2");
    }
}
