//! Stage 2 (input): tables given as data through the Arrow C stream
//! interface (the Python module's `predictions=df`: pandas, polars,
//! pyarrow, duckdb), imported with polars' own arrow crate (no copy of the
//! buffers) and typed by the same rules as a parquet file of the same data
//! (`super::parquet::from_columns`). An [`ArrowTable`] is read through
//! `rsmreport_core::in_memory`: registered under a name, it is read by
//! [`super::read_table`] of that name as a file would be.
//!
//! Its checksum is the SHA-256 of a canonical encoding of the data
//! ([`canonical_sha256`]): the same values, column names and types give
//! the same checksum whatever their chunks or producer. Reads and writes
//! no file.

use std::any::Any;
use std::path::Path;
use std::sync::OnceLock;

use anyhow::{anyhow, bail, Result};
use polars::prelude::{ArrayRef, Column, DataType, Series};
use polars_arrow::array::{new_empty_array, StructArray};
use polars_arrow::datatypes::ArrowDataType;
pub use polars_arrow::ffi::ArrowArrayStream;
use polars_arrow::ffi::ArrowArrayStreamReader;
use rsmreport_core::in_memory::MemoryTable;
use rsmreport_core::table::Table;
use sha2::{Digest, Sha256};

/// A table imported from an Arrow C stream.
pub struct ArrowTable {
    columns: Vec<Column>,
    nrows: usize,
    sha256: OnceLock<String>,
}

impl std::fmt::Debug for ArrowTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ArrowTable({} columns, {} rows)",
            self.columns.len(),
            self.nrows
        )
    }
}

impl ArrowTable {
    /// Imports every record batch of `stream` (taken: it is released when
    /// the table is dropped). `what` names the table in errors.
    ///
    /// # Safety
    /// `stream` is a valid Arrow C stream (the producer's promise, as the
    /// PyCapsule interface makes it).
    pub unsafe fn import(stream: ArrowArrayStream, what: &str) -> Result<ArrowTable> {
        let cannot =
            |e: &dyn std::fmt::Display| anyhow!("{what}: cannot import the Arrow C stream: {e}");
        // SAFETY: the caller's promise.
        let mut reader =
            unsafe { ArrowArrayStreamReader::try_new(Box::new(stream)) }.map_err(|e| cannot(&e))?;
        let fields = match reader.field().dtype() {
            ArrowDataType::Struct(fields) => fields.clone(),
            other => bail!("{what}: the Arrow C stream is not a table (its type is {other:?})"),
        };
        let mut chunks: Vec<Vec<ArrayRef>> = vec![Vec::new(); fields.len()];
        let mut nrows = 0usize;
        // SAFETY: the caller's promise.
        while let Some(batch) = unsafe { reader.next() } {
            let batch = batch.map_err(|e| cannot(&e))?;
            let Some(batch) = batch.as_any().downcast_ref::<StructArray>() else {
                bail!("{what}: a record batch of the Arrow C stream is not a struct array");
            };
            nrows += batch.len();
            for (out, values) in chunks.iter_mut().zip(batch.values()) {
                out.push(values.clone());
            }
        }
        let names: Vec<String> = fields.iter().map(|f| f.name.to_string()).collect();
        super::check_unique_names(Path::new(what), &names)?;
        let mut columns = Vec::with_capacity(fields.len());
        for (field, mut chunk) in fields.iter().zip(chunks) {
            if chunk.is_empty() {
                chunk.push(new_empty_array(field.dtype().clone()));
            }
            let series = Series::try_from((field, chunk))
                .map_err(|e| anyhow!("{what}: column '{}': {e}", field.name))?;
            columns.push(Column::from(series));
        }
        Ok(ArrowTable {
            columns,
            nrows,
            sha256: OnceLock::new(),
        })
    }

    /// The table read with `text_columns` as text (the parquet rules);
    /// `path` (its registered name) names it in errors.
    pub(super) fn read(&self, path: &Path, text_columns: &[&str]) -> Result<Table> {
        // Cloning a column shares its buffers (the float columns are then
        // copied once, into the table).
        super::parquet::from_columns(path, self.columns.clone(), self.nrows, text_columns)
    }
}

impl MemoryTable for ArrowTable {
    fn sha256(&self) -> String {
        self.sha256
            .get_or_init(|| canonical_sha256(&self.columns, self.nrows))
            .clone()
    }

    fn rows(&self) -> usize {
        self.nrows
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Hashes bytes in blocks (one `update` per 64 KiB, not per cell).
struct Blocks {
    hasher: Sha256,
    buf: Vec<u8>,
}

impl Blocks {
    fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= 1 << 16 {
            self.hasher.update(&self.buf);
            self.buf.clear();
        }
    }

    /// A missing cell (`0`) or a present one (`1` and its bytes).
    fn cell(&mut self, bytes: Option<&[u8]>) {
        match bytes {
            None => self.push(&[0]),
            Some(b) => {
                self.push(&[1]);
                self.push(b);
            }
        }
    }
}

/// The SHA-256 (lower-case hex) of the canonical encoding of a table: the
/// row and column counts (u64, little-endian), then for each column its
/// name and polars type (text, each followed by a zero byte) and each
/// cell: `0` when missing, else `1` and its value: a boolean as one byte,
/// an integer as i64 (u64 for an unsigned 64-bit column), a float as the
/// bits of its f64, anything else as its text (u64 length, UTF-8 bytes).
pub fn canonical_sha256(columns: &[Column], nrows: usize) -> String {
    let mut b = Blocks {
        hasher: Sha256::new(),
        buf: Vec::with_capacity(1 << 17),
    };
    b.push(&(nrows as u64).to_le_bytes());
    b.push(&(columns.len() as u64).to_le_bytes());
    for col in columns {
        b.push(col.name().as_bytes());
        b.push(&[0]);
        b.push(col.dtype().to_string().as_bytes());
        b.push(&[0]);
        if hash_cells(&mut b, col.as_materialized_series()).is_err() {
            // A type polars cannot cast to text: each value's text form.
            let s = col.as_materialized_series();
            for i in 0..s.len() {
                let text = s.get(i).map(|v| v.to_string()).unwrap_or_default();
                b.cell(Some(&(text.len() as u64).to_le_bytes()));
                b.push(text.as_bytes());
            }
        }
    }
    b.hasher.update(&b.buf);
    b.hasher
        .finalize()
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

/// The cells of one column into `b` (see [`canonical_sha256`]).
fn hash_cells(b: &mut Blocks, s: &Series) -> polars::prelude::PolarsResult<()> {
    let dtype = s.dtype();
    if dtype.is_bool() {
        for v in s.bool()?.iter() {
            b.cell(v.map(|x| [x as u8]).as_ref().map(|a| &a[..]));
        }
    } else if dtype == &DataType::UInt64 {
        for v in s.u64()?.iter() {
            b.cell(v.map(u64::to_le_bytes).as_ref().map(|a| &a[..]));
        }
    } else if dtype.is_integer() {
        for v in s.cast(&DataType::Int64)?.i64()?.iter() {
            b.cell(v.map(i64::to_le_bytes).as_ref().map(|a| &a[..]));
        }
    } else if dtype.is_float() {
        for v in s.cast(&DataType::Float64)?.f64()?.iter() {
            b.cell(
                v.map(|x| x.to_bits().to_le_bytes())
                    .as_ref()
                    .map(|a| &a[..]),
            );
        }
    } else {
        for v in s.cast(&DataType::String)?.str()?.iter() {
            match v {
                None => b.cell(None),
                Some(t) => {
                    b.cell(Some(&(t.len() as u64).to_le_bytes()));
                    b.push(t.as_bytes());
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use polars::prelude::NamedFrom;

    fn col(name: &str, chunks: &[&[Option<f64>]]) -> Column {
        let mut s = Series::new(name.into(), chunks[0]);
        for c in &chunks[1..] {
            s.append(&Series::new(name.into(), *c)).unwrap();
        }
        Column::from(s)
    }

    /// The checksum depends on the values, names and types, not on how
    /// the column is chunked.
    #[test]
    fn canonical_checksum_ignores_chunks() {
        let one = [col("x", &[&[Some(1.0), None, Some(2.5)]])];
        let two = [col("x", &[&[Some(1.0)], &[None, Some(2.5)]])];
        assert_eq!(
            two[0].as_materialized_series().n_chunks(),
            2,
            "the test needs two chunks"
        );
        assert_eq!(canonical_sha256(&one, 3), canonical_sha256(&two, 3));
        let other = [col("x", &[&[Some(1.0), Some(0.0), Some(2.5)]])];
        assert_ne!(canonical_sha256(&one, 3), canonical_sha256(&other, 3));
        let renamed = [col("y", &[&[Some(1.0), None, Some(2.5)]])];
        assert_ne!(canonical_sha256(&one, 3), canonical_sha256(&renamed, 3));
        let ints = [Column::from(Series::new(
            "x".into(),
            &[Some(1i64), None, Some(2)],
        ))];
        let floats = [col("x", &[&[Some(1.0), None, Some(2.0)]])];
        assert_ne!(canonical_sha256(&ints, 3), canonical_sha256(&floats, 3));
    }
}
