//! Stage 2 (input): `.parquet` files, read with polars. Reads files only;
//! writes nothing. (Not a reference format: the column types follow what
//! pandas would make of the parquet types.)

use crate::pyrepr::py_float;
use crate::table::{text_values, Cell, Column as TableColumn, Table, TextBuilder, Values};
use anyhow::{anyhow, Result};
use polars::prelude::{Column, DataType, ParquetReader, SerReader};
use std::fmt::Write as _;
use std::path::Path;

pub fn read(path: &Path, text_columns: &[&str]) -> Result<Table> {
    let mut file = std::fs::File::open(path)
        .map_err(|e| anyhow!("{}: cannot open the file: {e}", path.display()))?;
    let cannot = |e| anyhow!("{}: cannot read the parquet file: {e}", path.display());
    // polars maps a file it is given: only where the host handles SIGBUS
    // (`super::mapped`); otherwise it reads a copy of the bytes.
    let df = if super::mapped::mapping_allowed() {
        let _mark = super::mapped::reading(path);
        ParquetReader::new(file).finish().map_err(cannot)?
    } else {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut bytes)
            .map_err(|e| anyhow!("{}: cannot read the file: {e}", path.display()))?;
        ParquetReader::new(std::io::Cursor::new(bytes))
            .finish()
            .map_err(cannot)?
    };
    let nrows = df.height();
    let converted = convert_all(df.columns(), text_columns);
    let mut columns = Vec::with_capacity(df.width());
    for (col, values) in df.columns().iter().zip(converted) {
        let name = col.name().to_string();
        let values = values.map_err(|e| anyhow!("{}: column '{name}': {e}", path.display()))?;
        columns.push(TableColumn::new(name, values));
    }
    Ok(Table { columns, nrows })
}

/// [`convert`] of every column, the columns shared out over the cores
/// (each thread a contiguous run of columns, results in file order: the
/// same table whatever the number of threads).
fn convert_all(cols: &[Column], text_columns: &[&str]) -> Vec<Result<Values>> {
    let one = |col: &Column| convert(col, text_columns.contains(&col.name().as_str()));
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads < 2 || cols.len() < 2 {
        return cols.iter().map(one).collect();
    }
    let per = cols.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = cols
            .chunks(per)
            .map(|part| scope.spawn(move || part.iter().map(one).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a column-converting thread panicked"))
            .collect()
    })
}

fn convert(col: &Column, text: bool) -> Result<Values> {
    let dtype = col.dtype().clone();
    let has_nulls = col.null_count() > 0;
    if text {
        // Text columns: the values' text, nulls missing.
        let values: Vec<Option<String>> = if dtype.is_integer() {
            // One reused buffer, not a string per cell (ids: a million).
            let c = col.cast(&DataType::Int64)?;
            let mut b = TextBuilder::with_capacity(c.len());
            let mut buf = String::new();
            for v in c.i64()?.iter() {
                b.push(v.map(|i| {
                    buf.clear();
                    write!(buf, "{i}").expect("writing to a string");
                    buf.as_str()
                }));
            }
            return Ok(b.finish());
        } else if dtype.is_float() {
            let c = col.cast(&DataType::Float64)?;
            c.f64()?.iter().map(|v| v.map(py_float)).collect()
        } else if dtype.is_bool() {
            col.bool()?
                .iter()
                .map(|v| v.map(|b| if b { "True" } else { "False" }.to_string()))
                .collect()
        } else {
            let c = col.cast(&DataType::String)?;
            return Ok(text_values(c.str()?.iter()));
        };
        return Ok(text_values(values));
    }
    if dtype.is_integer() {
        let c = col.cast(&DataType::Int64)?;
        let ca = c.i64()?;
        return Ok(if has_nulls {
            Values::Float(
                ca.iter()
                    .map(|v| v.map_or(f64::NAN, |i| i as f64))
                    .collect(),
            )
        } else {
            Values::Int(ca.iter().map(|v| v.unwrap_or_default()).collect())
        });
    }
    if dtype.is_float() {
        let c = col.cast(&DataType::Float64)?;
        let ca = c.f64()?;
        if !has_nulls {
            // Without nulls, each chunk's values are the column's: copied
            // as slices, not cell by cell through an optional value.
            let mut out = Vec::with_capacity(ca.len());
            for chunk in ca.downcast_iter() {
                out.extend_from_slice(chunk.values());
            }
            return Ok(Values::Float(out));
        }
        return Ok(Values::Float(
            ca.iter().map(|v| v.unwrap_or(f64::NAN)).collect(),
        ));
    }
    if dtype.is_bool() {
        let ca = col.bool()?;
        return Ok(if has_nulls {
            Values::Mixed(
                ca.iter()
                    .map(|v| v.map_or(Cell::Missing, Cell::Bool))
                    .collect(),
            )
        } else {
            Values::Bool(ca.iter().map(|v| v.unwrap_or_default()).collect())
        });
    }
    // Strings, and any other type by its text form.
    let c = col.cast(&DataType::String)?;
    Ok(text_values(c.str()?.iter()))
}
