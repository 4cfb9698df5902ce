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
    let names: Vec<String> = df.columns().iter().map(|c| c.name().to_string()).collect();
    // The frame's columns are moved out, so that a float column's values
    // can be taken without a copy ([`owned_floats`]).
    let converted = convert_all(df.into_columns(), text_columns);
    let mut columns = Vec::with_capacity(names.len());
    for (name, values) in names.into_iter().zip(converted) {
        let values = values.map_err(|e| anyhow!("{}: column '{name}': {e}", path.display()))?;
        columns.push(TableColumn::new(name, values));
    }
    Ok(Table { columns, nrows })
}

/// [`convert`] of every column, the columns shared out over the cores
/// (each thread a contiguous run of columns, results in file order: the
/// same table whatever the number of threads).
fn convert_all(cols: Vec<Column>, text_columns: &[&str]) -> Vec<Result<Values>> {
    let one = |col: Column| {
        let text = text_columns.contains(&col.name().as_str());
        convert(col, text)
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads < 2 || cols.len() < 2 {
        return cols.into_iter().map(one).collect();
    }
    let per = cols.len().div_ceil(threads);
    let mut parts: Vec<Vec<Column>> = Vec::new();
    let mut cols = cols.into_iter();
    loop {
        let part: Vec<Column> = cols.by_ref().take(per).collect();
        if part.is_empty() {
            break;
        }
        parts.push(part);
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = parts
            .into_iter()
            .map(|part| scope.spawn(move || part.into_iter().map(one).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a column-converting thread panicked"))
            .collect()
    })
}

/// The values of a `Float64` column without nulls as the vector polars
/// decoded them into, when it holds them in one chunk that nothing else
/// shares (the usual case for a file just read): no copy of the column.
/// `None` otherwise (the caller copies).
fn owned_floats(col: &mut Column) -> Option<Vec<f64>> {
    type F64Array = <polars::prelude::Float64Type as polars::prelude::PolarsDataType>::Array;
    if col.dtype() != &DataType::Float64 || col.null_count() > 0 {
        return None;
    }
    let series = col.into_materialized_series();
    if series.n_chunks() != 1 {
        return None;
    }
    // SAFETY: the chunk is replaced by one of the same type and length
    // only when its values are taken, and the column is not used after.
    let chunks = unsafe { series.chunks_mut() };
    let array = chunks[0].as_any_mut().downcast_mut::<F64Array>()?;
    let (dtype, values, validity) = std::mem::take(array).into_inner();
    // A column without nulls may still carry a validity mask: all set.
    match values.into_mut().either(Err, Ok) {
        Ok(v) => Some(v),
        Err(values) => {
            *array = F64Array::new(dtype, values, validity);
            None
        }
    }
}

fn convert(mut col: Column, text: bool) -> Result<Values> {
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
            if let Some(v) = owned_floats(&mut col) {
                return Ok(Values::Float(v));
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use polars::prelude::{NamedFrom, Series};

    /// A float column nothing else holds gives its own values; one whose
    /// values are shared gives `None` and stays whole; both convert to the
    /// same values.
    #[test]
    fn owned_floats_only_when_unshared() {
        let values = vec![0.25, 1.0, -3.5, 1e-300];
        let mut col = Column::from(Series::new("x".into(), values.clone()));
        let shared = col.clone();
        assert_eq!(owned_floats(&mut col), None);
        assert_eq!(
            col.f64().unwrap().to_vec_null_aware().left(),
            Some(values.clone())
        );
        drop(shared);
        assert_eq!(owned_floats(&mut col), Some(values.clone()));
        let converted = convert(Column::from(Series::new("x".into(), values.clone())), false);
        assert!(matches!(converted, Ok(Values::Float(v)) if v == values));
    }
}
