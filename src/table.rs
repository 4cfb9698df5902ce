//! The in-memory data model shared by every stage: input tables read from
//! disk ([`Table`]) and output tables ready to be written ([`Frame`]).
//!
//! Plain data only: no I/O and no formatting here (formatting of numbers for
//! files lives in `output::format`).

/// One column's values, typed the way pandas would type them after reading a
/// file, so that pass-through columns are echoed back the way the reference
/// echoes them (`4` for an integer column, `4.0` for a float column, text
/// verbatim).
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// Integers, no missing values.
    Int(Vec<i64>),
    /// Floats; `NaN` is a missing value.
    Float(Vec<f64>),
    /// Booleans, no missing values (JSON, xlsx and parquet inputs only).
    Bool(Vec<bool>),
    /// Text; `None` is a real missing value (written as an empty cell).
    Text(Vec<Option<String>>),
    /// A column whose cells have different kinds (pandas `object` column of
    /// numbers and strings, from JSON or xlsx input).
    Mixed(Vec<Cell>),
}

/// One cell of a [`Values::Mixed`] column.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Missing,
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
}

impl Values {
    pub fn len(&self) -> usize {
        match self {
            Values::Int(v) => v.len(),
            Values::Float(v) => v.len(),
            Values::Bool(v) => v.len(),
            Values::Text(v) => v.len(),
            Values::Mixed(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The cell at row `i` as a [`Cell`].
    pub fn cell(&self, i: usize) -> Cell {
        match self {
            Values::Int(v) => Cell::Int(v[i]),
            Values::Float(v) => {
                if v[i].is_nan() {
                    Cell::Missing
                } else {
                    Cell::Float(v[i])
                }
            }
            Values::Bool(v) => Cell::Bool(v[i]),
            Values::Text(v) => match &v[i] {
                Some(s) => Cell::Text(s.clone()),
                None => Cell::Missing,
            },
            Values::Mixed(v) => v[i].clone(),
        }
    }

    /// The rows at `idx`, in that order, with the same type.
    pub fn take(&self, idx: &[usize]) -> Values {
        match self {
            Values::Int(v) => Values::Int(idx.iter().map(|&i| v[i]).collect()),
            Values::Float(v) => Values::Float(idx.iter().map(|&i| v[i]).collect()),
            Values::Bool(v) => Values::Bool(idx.iter().map(|&i| v[i]).collect()),
            Values::Text(v) => Values::Text(idx.iter().map(|&i| v[i].clone()).collect()),
            Values::Mixed(v) => Values::Mixed(idx.iter().map(|&i| v[i].clone()).collect()),
        }
    }

    /// Numeric coercion of spec 2.2 (`pd.to_numeric(errors="coerce")`):
    /// numbers stay numbers, booleans are 1/0, text is parsed as a decimal
    /// float (surrounding whitespace ignored, `inf`/`infinity` in any case);
    /// anything else becomes `NaN`.
    pub fn to_numeric(&self) -> Vec<f64> {
        match self {
            Values::Int(v) => v.iter().map(|&x| x as f64).collect(),
            Values::Float(v) => v.clone(),
            Values::Bool(v) => v.iter().map(|&b| if b { 1.0 } else { 0.0 }).collect(),
            Values::Text(v) => v
                .iter()
                .map(|s| s.as_deref().map_or(f64::NAN, parse_number))
                .collect(),
            Values::Mixed(v) => v
                .iter()
                .map(|c| match c {
                    Cell::Missing => f64::NAN,
                    Cell::Bool(b) => f64::from(u8::from(*b)),
                    Cell::Int(i) => *i as f64,
                    Cell::Float(x) => *x,
                    Cell::Text(s) => parse_number(s),
                })
                .collect(),
        }
    }
}

/// Parses text as a decimal float the way the reference's numeric coercion
/// does: optional sign, digits with an optional decimal point (`.5` and `5.`
/// allowed), optional exponent, or `inf`/`infinity` in any case. Surrounding
/// whitespace is ignored. Anything else (including `nan`, `3,5`, hex, `1_0`)
/// gives `NaN`.
pub fn parse_number(text: &str) -> f64 {
    let t = text.trim();
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    if body.eq_ignore_ascii_case("inf") || body.eq_ignore_ascii_case("infinity") {
        return if t.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    let bytes = body.as_bytes();
    let mut i = 0;
    let mut digits = 0;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
        digits += 1;
    }
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return f64::NAN;
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        i += 1;
        if i < bytes.len() && (bytes[i] == b'+' || bytes[i] == b'-') {
            i += 1;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return f64::NAN;
        }
    }
    if i != bytes.len() {
        return f64::NAN;
    }
    t.parse::<f64>().unwrap_or(f64::NAN)
}

/// A named column.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub name: String,
    pub values: Values,
}

impl Column {
    pub fn new(name: impl Into<String>, values: Values) -> Self {
        Column {
            name: name.into(),
            values,
        }
    }
}

/// A table read from an input file: columns in file order, all of equal length.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<Column>,
    /// Number of data rows (kept separately so a table without columns still
    /// knows its length).
    pub nrows: usize,
}

impl Table {
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    pub fn position(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    pub fn names(&self) -> Vec<&str> {
        self.columns.iter().map(|c| c.name.as_str()).collect()
    }
}

/// An output table, ready for a writer. `index`, when present, is written as
/// a first column whose header is the empty string (the reference's row
/// labels); `columns` follow in order. A frame with no rows or no columns is
/// never written (spec 4.1).
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// The table's name without the experiment prefix, e.g. `eval` or
    /// `eval_by_L1`; the file is `<id>_<name>.<ext>`.
    pub name: String,
    pub index: Option<Values>,
    pub columns: Vec<Column>,
}

impl Frame {
    pub fn new(name: impl Into<String>, index: Option<Values>, columns: Vec<Column>) -> Self {
        Frame {
            name: name.into(),
            index,
            columns,
        }
    }

    pub fn nrows(&self) -> usize {
        match (&self.index, self.columns.first()) {
            (Some(ix), _) => ix.len(),
            (None, Some(c)) => c.values.len(),
            (None, None) => 0,
        }
    }

    /// A frame is written only when it has at least one row and one column.
    pub fn is_writable(&self) -> bool {
        !self.columns.is_empty() && self.nrows() > 0
    }

    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_number_follows_the_coercion_rule() {
        assert_eq!(parse_number(" 3 "), 3.0);
        assert_eq!(parse_number(".5"), 0.5);
        assert_eq!(parse_number("5."), 5.0);
        assert_eq!(parse_number("-1e3"), -1000.0);
        assert_eq!(parse_number("+2.5E-1"), 0.25);
        assert_eq!(parse_number("Infinity"), f64::INFINITY);
        assert_eq!(parse_number("-inf"), f64::NEG_INFINITY);
        for bad in [
            "", "NA", "nan", "3,5", "0x10", "1_0", "e5", ".", "1e", "abc", "1.2.3",
        ] {
            assert!(parse_number(bad).is_nan(), "{bad:?} should not be numeric");
        }
    }

    #[test]
    fn to_numeric_handles_every_kind() {
        let v = Values::Mixed(vec![
            Cell::Int(2),
            Cell::Float(2.5),
            Cell::Bool(true),
            Cell::Text("x".into()),
            Cell::Missing,
        ]);
        let n = v.to_numeric();
        assert_eq!(&n[..3], &[2.0, 2.5, 1.0]);
        assert!(n[3].is_nan() && n[4].is_nan());
    }

    #[test]
    fn take_keeps_order_and_type() {
        let v = Values::Text(vec![Some("a".into()), None, Some("c".into())]);
        assert_eq!(
            v.take(&[2, 0]),
            Values::Text(vec![Some("c".into()), Some("a".into())])
        );
    }
}
