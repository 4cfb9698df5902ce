//! Stage 2 (input): `.parquet` files, read with polars. Reads files only;
//! writes nothing. (Not a reference format: the column types follow what
//! pandas would make of the parquet types.)

use crate::pyrepr::py_float;
use crate::table::{text_values, Cell, Column as TableColumn, Table, Values};
use anyhow::{anyhow, Result};
use polars::prelude::{Column, DataType, ParquetReader, SerReader};
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
    let mut columns = Vec::with_capacity(df.width());
    for col in df.columns() {
        let name = col.name().to_string();
        let text = text_columns.contains(&name.as_str());
        let values =
            convert(col, text).map_err(|e| anyhow!("{}: column '{name}': {e}", path.display()))?;
        columns.push(TableColumn::new(name, values));
    }
    Ok(Table { columns, nrows })
}

fn convert(col: &Column, text: bool) -> Result<Values> {
    let dtype = col.dtype().clone();
    let has_nulls = col.null_count() > 0;
    if text {
        // Text columns: the values' text, nulls missing.
        let values: Vec<Option<String>> = if dtype.is_integer() {
            let c = col.cast(&DataType::Int64)?;
            c.i64()?.iter().map(|v| v.map(|i| i.to_string())).collect()
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
        return Ok(Values::Float(
            c.f64()?.iter().map(|v| v.unwrap_or(f64::NAN)).collect(),
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
