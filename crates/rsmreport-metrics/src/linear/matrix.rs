//! Named feature columns: the data-in type of the models and analyses.
//!
//! A [`FeatureMatrix`] holds `n_rows x n_features` values column-major in
//! one contiguous `Vec<f64>` (column `j` is `data[j*n_rows .. (j+1)*n_rows]`)
//! together with the feature names in their order (the specification order
//! `F` of train.md 4, or whatever order the caller chooses).

use super::error::{LinearError, Result};

/// Named, column-major feature values.
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureMatrix {
    names: Vec<String>,
    n_rows: usize,
    data: Vec<f64>,
}

impl FeatureMatrix {
    /// Builds a matrix from names and column-major data
    /// (`data.len() == names.len() * n_rows`). Names must be unique.
    pub fn new(names: Vec<String>, n_rows: usize, data: Vec<f64>) -> Result<Self> {
        let expected = names.len() * n_rows;
        if data.len() != expected {
            return Err(LinearError::LengthMismatch {
                what: "feature data".into(),
                expected,
                found: data.len(),
            });
        }
        for (i, name) in names.iter().enumerate() {
            if names[..i].contains(name) {
                return Err(LinearError::DuplicateFeature { name: name.clone() });
            }
        }
        Ok(FeatureMatrix {
            names,
            n_rows,
            data,
        })
    }

    /// Builds a matrix from `(name, column)` pairs of equal length.
    pub fn from_columns(columns: Vec<(String, Vec<f64>)>) -> Result<Self> {
        let n_rows = columns.first().map_or(0, |(_, c)| c.len());
        let mut names = Vec::with_capacity(columns.len());
        let mut data = Vec::with_capacity(columns.len() * n_rows);
        for (name, col) in columns {
            if col.len() != n_rows {
                return Err(LinearError::LengthMismatch {
                    what: format!("feature '{name}'"),
                    expected: n_rows,
                    found: col.len(),
                });
            }
            names.push(name);
            data.extend_from_slice(&col);
        }
        FeatureMatrix::new(names, n_rows, data)
    }

    /// Feature names in column order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Number of rows (responses).
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    /// Number of columns (features).
    pub fn n_features(&self) -> usize {
        self.names.len()
    }

    /// Column `j` (panics if `j >= n_features()`, a programming error).
    pub fn column(&self, j: usize) -> &[f64] {
        &self.data[j * self.n_rows..(j + 1) * self.n_rows]
    }

    /// The column of the feature called `name`, if any.
    pub fn column_by_name(&self, name: &str) -> Option<&[f64]> {
        self.index_of(name).map(|j| self.column(j))
    }

    /// Position of the feature called `name`, if any.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// All columns as slices, in column order.
    pub fn columns(&self) -> Vec<&[f64]> {
        (0..self.n_features()).map(|j| self.column(j)).collect()
    }

    /// The columns of the named features, in the order given.
    pub fn columns_named(&self, names: &[String]) -> Result<Vec<&[f64]>> {
        names
            .iter()
            .map(|n| {
                self.column_by_name(n)
                    .ok_or_else(|| LinearError::UnknownFeature { name: n.clone() })
            })
            .collect()
    }

    /// Column-major data.
    pub fn data(&self) -> &[f64] {
        &self.data
    }

    /// A new matrix with the named features, in the order given.
    pub fn select(&self, names: &[String]) -> Result<FeatureMatrix> {
        let cols = self.columns_named(names)?;
        let mut data = Vec::with_capacity(cols.len() * self.n_rows);
        for c in cols {
            data.extend_from_slice(c);
        }
        FeatureMatrix::new(names.to_vec(), self.n_rows, data)
    }

    /// Error if any value is NaN or infinite (names the feature and row).
    pub fn check_finite(&self) -> Result<()> {
        for (j, name) in self.names.iter().enumerate() {
            check_finite(name, self.column(j))?;
        }
        Ok(())
    }
}

/// Error if any column's length differs from `n` (names the column by
/// its 1-based position within `what`).
pub fn check_lengths(what: &str, cols: &[&[f64]], n: usize) -> Result<()> {
    match cols.iter().position(|c| c.len() != n) {
        Some(j) => Err(LinearError::LengthMismatch {
            what: format!("{what}, column {}", j + 1),
            expected: n,
            found: cols[j].len(),
        }),
        None => Ok(()),
    }
}

/// Error naming `what` and the first row if any value is NaN or infinite.
pub fn check_finite(what: &str, values: &[f64]) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(row) => Err(LinearError::NonFinite {
            what: what.to_string(),
            row,
            value: values[row],
        }),
        None => Ok(()),
    }
}
