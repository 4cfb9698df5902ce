//! Stage 2 (input): `.parquet` files, read with polars (and the typing
//! of polars columns, which tables given as data share). Reads files
//! only; writes nothing. (Not a reference format: the column types follow what
//! pandas would make of the parquet types.)

use anyhow::{anyhow, Result};
use polars::prelude::{Column, DataType, ParquetReader, SerReader};
use rsmreport_core::pyrepr::py_float;
use rsmreport_core::table::{text_values, Cell, Column as TableColumn, Table, TextBuilder, Values};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

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
    // The frame's columns are moved out, so that a float column's values
    // can be taken without a copy ([`owned_floats`]).
    from_columns(path, df.into_columns(), nrows, text_columns)
}

/// The table of polars columns (of a parquet file, or of a table given as
/// data through the Arrow C stream interface, `super::arrow`), typed by
/// the parquet rules; `path` names it in errors.
pub(super) fn from_columns(
    path: &Path,
    cols: Vec<Column>,
    nrows: usize,
    text_columns: &[&str],
) -> Result<Table> {
    let names: Vec<String> = cols.iter().map(|c| c.name().to_string()).collect();
    let converted = convert_all(cols, text_columns);
    let mut columns = Vec::with_capacity(names.len());
    for (name, values) in names.into_iter().zip(converted) {
        let values = values.map_err(|e| anyhow!("{}: column '{name}': {e}", path.display()))?;
        columns.push(TableColumn::new(name, values));
    }
    Ok(Table { columns, nrows })
}

/// [`convert`] of every column, the columns shared out over the cores:
/// each thread takes the next column not yet taken, the columns read as
/// text first (they cost the most: a float column without nulls is only
/// moved, [`owned_floats`]). Results in file order: the same table
/// whatever the number of threads and whichever thread took a column.
fn convert_all(cols: Vec<Column>, text_columns: &[&str]) -> Vec<Result<Values>> {
    let text: Vec<bool> = cols
        .iter()
        .map(|c| text_columns.contains(&c.name().as_str()))
        .collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads < 2 || cols.len() < 2 {
        return cols
            .into_iter()
            .zip(text)
            .map(|(c, t)| convert(c, t))
            .collect();
    }
    let mut order: Vec<usize> = (0..cols.len()).collect();
    order.sort_by_key(|&i| !text[i]);
    let cols: Vec<Mutex<Option<Column>>> = cols.into_iter().map(|c| Mutex::new(Some(c))).collect();
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) else {
                return done;
            };
            let col = cols[i]
                .lock()
                .expect("a column lock")
                .take()
                .expect("taken once");
            done.push((i, convert(col, text[i])));
        }
    };
    let mut out: Vec<(usize, Result<Values>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.min(cols.len()))
            .map(|_| scope.spawn(work))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a column-converting thread panicked"))
            .collect()
    });
    out.sort_unstable_by_key(|&(i, _)| i);
    out.into_iter().map(|(_, v)| v).collect()
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
    // SAFETY: taking the values leaves the chunk empty while the series
    // still records the old length; it is restored (same type, values and
    // validity) when the values cannot be taken. When they are taken, the
    // caller uses the column no more: it is only dropped.
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
        // Before the cast: a cast to its own type shares the column's
        // values, which could then not be taken.
        if !has_nulls {
            if let Some(v) = owned_floats(&mut col) {
                return Ok(Values::Float(v));
            }
        }
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

    /// [`convert`] of a float column nothing else holds gives the
    /// column's own buffer, not a copy; a shared one is copied, the same
    /// values.
    #[test]
    fn convert_moves_an_unshared_float_column() {
        let values = vec![0.5, -2.0, 7.25, f64::MAX];
        let col = Column::from(Series::new("x".into(), values.clone()));
        let data = col.f64().unwrap().cont_slice().unwrap().as_ptr();
        match convert(col, false) {
            Ok(Values::Float(v)) => {
                assert_eq!(v, values);
                assert_eq!(v.as_ptr(), data, "the column's buffer, reused");
            }
            _ => panic!("a float column converts to floats"),
        }
        let col = Column::from(Series::new("x".into(), values.clone()));
        let shared = col.clone();
        let data = col.f64().unwrap().cont_slice().unwrap().as_ptr();
        match convert(col, false) {
            Ok(Values::Float(v)) => {
                assert_eq!(v, values);
                assert_ne!(v.as_ptr(), data, "a shared buffer is copied");
            }
            _ => panic!("a float column converts to floats"),
        }
        drop(shared);
    }
}
