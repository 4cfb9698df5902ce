//! Stage 6 (output): a table as Arrow, for the Python module (handed over
//! through the Arrow C stream interface): the columns of the table's CSV
//! file, the index first (named `""`), each typed as pandas'
//! `read_csv` types the file's column (the input readers' inference,
//! `crate::input::infer_column`, applied to the text of the text and mixed
//! columns; integer, float and boolean columns as they are), so that a
//! DataFrame made from it equals `pd.read_csv(file, index_col=0)`. A
//! missing cell (an empty cell of the file) is an Arrow null. No CSV is
//! written or parsed. Writes nothing.

use polars_arrow::array::{Array, BooleanArray, PrimitiveArray, StructArray, Utf8Array};
use polars_arrow::bitmap::Bitmap;
use polars_arrow::datatypes::{ArrowDataType, Field};
use polars_arrow::ffi::{export_iterator, ArrowArrayStream};
use rsmreport_core::pyrepr::py_float;
use rsmreport_core::table::{Cell, Frame, Values};

/// A table's columns as Arrow arrays, the index first (named `""`).
pub struct ArrowColumns {
    columns: Vec<(String, Box<dyn Array>)>,
    rows: usize,
}

impl Clone for ArrowColumns {
    fn clone(&self) -> Self {
        ArrowColumns {
            columns: self
                .columns
                .iter()
                .map(|(n, a)| (n.clone(), a.to_boxed()))
                .collect(),
            rows: self.rows,
        }
    }
}

impl ArrowColumns {
    /// The columns of `frame` (its CSV file's columns, typed as pandas
    /// reads them).
    pub fn of(frame: &Frame) -> ArrowColumns {
        ArrowColumns {
            columns: frame_arrays(frame),
            rows: frame.nrows(),
        }
    }

    /// Its number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The column names, in order.
    pub fn names(&self) -> Vec<String> {
        self.columns.iter().map(|(n, _)| n.clone()).collect()
    }

    /// The table as one record batch in an Arrow C stream (released by
    /// the consumer, or when dropped unconsumed); the buffers are shared,
    /// not copied.
    pub fn stream(&self) -> ArrowArrayStream {
        let fields: Vec<Field> = self
            .columns
            .iter()
            .map(|(name, a)| Field::new(name.as_str().into(), a.dtype().clone(), true))
            .collect();
        let dtype = ArrowDataType::Struct(fields);
        let values: Vec<Box<dyn Array>> = self.columns.iter().map(|(_, a)| a.to_boxed()).collect();
        let batch = StructArray::new(dtype.clone(), self.rows, values, None);
        let field = Field::new("".into(), dtype, false);
        let batches: Vec<polars::prelude::PolarsResult<Box<dyn Array>>> = vec![Ok(batch.boxed())];
        export_iterator(Box::new(batches.into_iter()), field)
    }
}

/// The frame's columns as Arrow arrays: `(name, array)`, the index first.
fn frame_arrays(frame: &Frame) -> Vec<(String, Box<dyn Array>)> {
    let mut out = Vec::with_capacity(frame.columns.len() + 1);
    if let Some(ix) = &frame.index {
        out.push((String::new(), array(ix)));
    }
    for col in &frame.columns {
        out.push((col.name.clone(), array(&col.values)));
    }
    out
}

/// One column as the Arrow array of its CSV column's pandas type.
fn array(values: &Values) -> Box<dyn Array> {
    match values {
        Values::Int(v) => PrimitiveArray::<i64>::from_vec(v.clone()).boxed(),
        Values::Float(v) => floats(v),
        Values::Bool(v) => BooleanArray::new(
            ArrowDataType::Boolean,
            v.iter().copied().collect::<Bitmap>(),
            None,
        )
        .boxed(),
        Values::Text(v) => inferred(v.len(), |i| v[i].as_deref().map(str::to_string)),
        Values::Mixed(v) => inferred(v.len(), |i| cell_text(&v[i])),
    }
}

/// Floats, `NaN` (an empty cell) as null.
fn floats(v: &[f64]) -> Box<dyn Array> {
    let validity = v
        .iter()
        .any(|x| x.is_nan())
        .then(|| v.iter().map(|x| !x.is_nan()).collect::<Bitmap>());
    PrimitiveArray::<f64>::new(ArrowDataType::Float64, v.to_vec().into(), validity).boxed()
}

/// The text the CSV file holds for a mixed cell (`None`: empty).
fn cell_text(cell: &Cell) -> Option<String> {
    match cell {
        Cell::Missing => None,
        Cell::Bool(b) => Some(if *b { "True" } else { "False" }.to_string()),
        Cell::Int(i) => Some(i.to_string()),
        Cell::Float(x) if x.is_nan() => None,
        Cell::Float(x) => Some(py_float(*x)),
        Cell::Text(s) => Some(s.clone()),
    }
}

/// A column of cell texts typed as pandas' CSV reader types it.
fn inferred(len: usize, text: impl Fn(usize) -> Option<String>) -> Box<dyn Array> {
    let cells: Vec<Option<String>> = (0..len).map(text).collect();
    let values =
        crate::input::infer_column(|| cells.iter().map(|c| c.as_deref().unwrap_or("")), len);
    match &values {
        Values::Text(v) => v
            .iter()
            .map(|c| c.as_deref())
            .collect::<Utf8Array<i64>>()
            .boxed(),
        Values::Mixed(v) => {
            // Booleans with missing cells (pandas: an object column).
            let bools: Vec<Option<bool>> = v
                .iter()
                .map(|c| match c {
                    Cell::Bool(b) => Some(*b),
                    _ => None,
                })
                .collect();
            BooleanArray::from(bools.as_slice()).boxed()
        }
        other => array(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsmreport_core::table::{text_values, Column};

    /// Text columns take the types pandas reads their cells as; floats
    /// keep their values with missing cells null; the index comes first.
    #[test]
    fn columns_take_pandas_csv_types() {
        let frame = Frame::new(
            "t",
            Some(text_values(vec![Some("a"), Some("b")])),
            vec![
                Column::new("n", text_values(vec![Some("1"), Some("2")])),
                Column::new("x", Values::Float(vec![0.5, f64::NAN])),
                Column::new("na", text_values(vec![Some("NA"), None])),
                Column::new("b", text_values(vec![Some("True"), None])),
            ],
        );
        let arrays = frame_arrays(&frame);
        let names: Vec<&str> = arrays.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["", "n", "x", "na", "b"]);
        assert_eq!(arrays[0].1.dtype(), &ArrowDataType::LargeUtf8);
        assert_eq!(arrays[1].1.dtype(), &ArrowDataType::Int64);
        assert_eq!(arrays[2].1.dtype(), &ArrowDataType::Float64);
        assert_eq!(arrays[2].1.null_count(), 1);
        assert_eq!(arrays[3].1.dtype(), &ArrowDataType::Float64);
        assert_eq!(arrays[3].1.null_count(), 2);
        assert_eq!(arrays[4].1.dtype(), &ArrowDataType::Boolean);
        assert_eq!(arrays[4].1.null_count(), 1);
    }
}
