//! Stage 2 (input): JSON lines files (`.jsonl`, `.jsonlines`). Reads files
//! only; writes nothing.
//!
//! Parsed with serde_json line by line rather than with polars' JSON reader,
//! because the reference's rules cannot be expressed there: a JSON `null`
//! and an absent key must stay distinguishable (text columns read them as
//! `None` and `nan`), a top-level object is *replaced* by its inner keys
//! (the outer key is dropped, deeper levels get dotted names), and the
//! column types follow pandas (`pd.read_json` then `pd.json_normalize`,
//! spec 2.1), including `read_json`'s conversions of top-level columns:
//! floats that are all integral become integers, and a column of numeric
//! strings (or numbers, booleans and nulls) becomes numeric.

use anyhow::{bail, Result};
use rsmreport_core::pyrepr::py_float;
use rsmreport_core::table::{text_values, Cell, Column, Table, Values};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::path::Path;

/// One cell as read (pandas keeps these distinctions in `object` columns).
#[derive(Clone, Debug, PartialEq)]
enum J {
    Absent,
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    /// An array (kept as its JSON text).
    Other(String),
}

/// Per-cell kind kept by the numeric accumulator.
const K_INT: u8 = 0;
const K_FLOAT: u8 = 1;
const K_NULL: u8 = 2;
const K_ABSENT: u8 = 3;

/// A column being read; stays compact while the column is numeric.
enum Acc {
    /// Only integers, none missing.
    Int(Vec<i64>),
    /// Numbers and missing cells: value (NaN when missing) and kind.
    Num(Vec<f64>, Vec<u8>),
    /// Only booleans, none missing.
    Bool(Vec<bool>),
    /// Anything else, cell by cell.
    Any(Vec<J>),
}

impl Acc {
    fn new(absent_before: usize) -> Self {
        if absent_before == 0 {
            Acc::Int(Vec::new())
        } else {
            Acc::Num(vec![f64::NAN; absent_before], vec![K_ABSENT; absent_before])
        }
    }

    fn len(&self) -> usize {
        match self {
            Acc::Int(v) => v.len(),
            Acc::Num(v, _) => v.len(),
            Acc::Bool(v) => v.len(),
            Acc::Any(v) => v.len(),
        }
    }

    fn push(&mut self, cell: J) {
        let len = self.len();
        // An empty `Int` accumulator is the "nothing seen yet" state.
        if let Acc::Int(v) = self {
            if v.is_empty() {
                match cell {
                    J::Int(i) => v.push(i),
                    J::Bool(b) => *self = Acc::Bool(vec![b]),
                    J::Float(_) | J::Null | J::Absent => {
                        *self = Acc::Num(Vec::new(), Vec::new());
                        self.push(cell);
                    }
                    other => *self = Acc::Any(vec![other]),
                }
                return;
            }
        }
        match (&mut *self, cell) {
            (Acc::Int(v), J::Int(i)) => v.push(i),
            (Acc::Num(v, k), J::Int(i)) => {
                v.push(i as f64);
                k.push(K_INT);
            }
            (Acc::Num(v, k), J::Float(x)) => {
                v.push(x);
                k.push(K_FLOAT);
            }
            (Acc::Num(v, k), J::Null) => {
                v.push(f64::NAN);
                k.push(K_NULL);
            }
            (Acc::Num(v, k), J::Absent) => {
                v.push(f64::NAN);
                k.push(K_ABSENT);
            }
            (Acc::Int(v), cell @ (J::Float(_) | J::Null | J::Absent)) => {
                let mut f = Vec::with_capacity(len + 1);
                f.extend(v.iter().map(|&i| i as f64));
                *self = Acc::Num(f, vec![K_INT; len]);
                self.push(cell);
            }
            (Acc::Bool(v), J::Bool(b)) => v.push(b),
            (Acc::Any(v), cell) => v.push(cell),
            (_, cell) => {
                let mut any = self.to_cells();
                any.push(cell);
                *self = Acc::Any(any);
            }
        }
    }

    fn to_cells(&self) -> Vec<J> {
        match self {
            Acc::Int(v) => v.iter().map(|&i| J::Int(i)).collect(),
            Acc::Num(v, k) => v
                .iter()
                .zip(k)
                .map(|(&x, &k)| match k {
                    K_INT => J::Int(x as i64),
                    K_FLOAT => J::Float(x),
                    K_NULL => J::Null,
                    _ => J::Absent,
                })
                .collect(),
            Acc::Bool(v) => v.iter().map(|&b| J::Bool(b)).collect(),
            Acc::Any(v) => v.clone(),
        }
    }
}

/// One output column: its name, which top-level key it came from, and
/// whether it came from inside an object (no `read_json` conversions).
struct Col {
    name: String,
    top: usize,
    nested: bool,
    acc: Acc,
}

/// How a top-level key has been seen so far.
#[derive(Clone, Copy, PartialEq)]
enum TopKind {
    Unknown,
    Scalar,
    Object,
}

struct Reader {
    cols: Vec<Col>,
    by_name: HashMap<String, usize>,
    /// Top-level keys in order of first appearance, each with its columns.
    tops: Vec<(String, TopKind, Vec<usize>)>,
    top_index: HashMap<String, usize>,
    nrows: usize,
    /// The columns filled by the previous line, in order: lines usually
    /// repeat the same keys in the same order, so the `k`-th cell of a line
    /// is first compared with `hint[k]` before any hashing.
    hint: Vec<usize>,
    top_hint: Vec<usize>,
    /// Cells and top-level keys seen so far on the current line.
    puts: usize,
    top_puts: usize,
}

/// Reads a JSON lines file whose text (BOM removed) is valid UTF-8, in
/// named steps: every line is checked ([`check_line`]) and parsed straight
/// into its columns ([`Reader::parse_line`]: nested objects are flattened
/// to dotted names as they are walked, see [`ValueSeed`]), the row is
/// completed ([`Reader::end_row`]), and the columns are typed and put in
/// pandas' order ([`Reader::into_table`], types by [`finish`]).
pub fn read(path: &Path, text: &str, text_columns: &[&str]) -> Result<Table> {
    let mut r = Reader::new();
    let mut any_line = false;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        any_line = true;
        check_line(path, i + 1, trimmed)?;
        r.parse_line(path, i + 1, trimmed)?;
        r.end_row();
    }
    if !any_line {
        bail!("{}: file is empty (no JSON lines)", path.display());
    }
    Ok(r.into_table(text_columns))
}

/// The first character of a JSON object, written as an escape so that
/// tools counting braces (the project's function-length check) see
/// balanced ones.
const OBJECT_START: char = '\u{7b}';

/// A non-empty line must hold a JSON object (a JSON array on line 1 means
/// a plain JSON file was given).
fn check_line(path: &Path, lineno: usize, trimmed: &str) -> Result<()> {
    if trimmed.starts_with(OBJECT_START) {
        return Ok(());
    }
    if trimmed.starts_with('[') && lineno == 1 {
        bail!(
            "{}: line 1 is a JSON array, not an object; this looks like a plain JSON \
             file, but a JSON lines file (one object per line) is expected",
            path.display()
        );
    }
    bail!(
        "{}: line {lineno} is not a JSON object; a JSON lines file holds one JSON \
         object per line",
        path.display()
    )
}

type Msg<T> = std::result::Result<T, String>;

impl Reader {
    /// A reader that has seen no line.
    fn new() -> Self {
        Reader {
            cols: Vec::new(),
            by_name: HashMap::new(),
            tops: Vec::new(),
            top_index: HashMap::new(),
            nrows: 0,
            hint: Vec::new(),
            top_hint: Vec::new(),
            puts: 0,
            top_puts: 0,
        }
    }

    /// Parses one line (a JSON object) straight into the columns; an error
    /// names the file, the line and the column of the JSON text.
    fn parse_line(&mut self, path: &Path, lineno: usize, trimmed: &str) -> Result<()> {
        self.puts = 0;
        self.top_puts = 0;
        let mut de = serde_json::Deserializer::from_str(trimmed);
        let parsed = LineSeed { r: self }
            .deserialize(&mut de)
            .and_then(|()| de.end());
        if let Err(e) = parsed {
            let msg = e.to_string();
            let msg = msg.rfind(" at line ").map_or(msg.as_str(), |k| &msg[..k]);
            let hint = if e.is_data() {
                ""
            } else {
                " (a JSON lines file holds one JSON object per line)"
            };
            bail!(
                "{}: line {lineno}, column {}: {msg}{hint}",
                path.display(),
                e.column()
            );
        }
        Ok(())
    }

    /// Closes the current row: columns the line did not mention get an
    /// absent cell.
    fn end_row(&mut self) {
        self.nrows += 1;
        for col in &mut self.cols {
            if col.acc.len() < self.nrows {
                col.acc.push(J::Absent);
            }
        }
    }

    /// The table: top-level keys by first appearance, an object's inner
    /// columns in its place, each column typed as pandas types it
    /// ([`finish`]; `text_columns` are read as text).
    fn into_table(self, text_columns: &[&str]) -> Table {
        let order: Vec<usize> = self
            .tops
            .iter()
            .flat_map(|(_, _, ids)| ids.iter().copied())
            .collect();
        let mut slots: Vec<Option<Col>> = self.cols.into_iter().map(Some).collect();
        let columns = order
            .into_iter()
            .map(|id| {
                let col = slots[id].take().expect("each column once");
                let text = text_columns.contains(&col.name.as_str());
                let values = finish(col.acc, text, col.nested);
                Column::new(col.name, values)
            })
            .collect();
        Table {
            columns,
            nrows: self.nrows,
        }
    }

    /// The id of the top-level key `key`, registered if new.
    fn top(&mut self, key: &str) -> usize {
        let k = self.top_puts;
        self.top_puts += 1;
        if let Some(&t) = self.top_hint.get(k) {
            if self.tops[t].0 == key {
                return t;
            }
        }
        let t = match self.top_index.get(key) {
            Some(&t) => t,
            None => {
                self.tops
                    .push((key.to_owned(), TopKind::Unknown, Vec::new()));
                self.top_index.insert(key.to_owned(), self.tops.len() - 1);
                self.tops.len() - 1
            }
        };
        if k < self.top_hint.len() {
            self.top_hint[k] = t;
        } else {
            self.top_hint.push(t);
        }
        t
    }

    /// Checks that top-level key `top` holds the same kind of value as on
    /// earlier lines.
    fn kind(&mut self, top: usize, kind: TopKind) -> Msg<()> {
        let seen = self.tops[top].1;
        if seen == TopKind::Unknown {
            self.tops[top].1 = kind;
        } else if seen != kind {
            let what = |k: TopKind| {
                if k == TopKind::Object {
                    "an object"
                } else {
                    "a plain value"
                }
            };
            return Err(format!(
                "'{}' holds {} here but {} on an earlier line",
                self.tops[top].0,
                what(kind),
                what(seen)
            ));
        }
        Ok(())
    }

    /// Stores a cell of column `name` (under top-level key `top`).
    fn put(&mut self, top: usize, name: &str, nested: bool, cell: J) -> Msg<()> {
        let k = self.puts;
        self.puts += 1;
        let hinted = self
            .hint
            .get(k)
            .copied()
            .filter(|&id| self.cols[id].top == top && self.cols[id].name == name);
        let id = match hinted {
            Some(id) => id,
            None => {
                let id = self.column(top, name, nested)?;
                if k < self.hint.len() {
                    self.hint[k] = id;
                } else {
                    self.hint.push(id);
                }
                id
            }
        };
        let acc = &mut self.cols[id].acc;
        if acc.len() > self.nrows {
            return Err(format!("duplicate key '{name}'"));
        }
        acc.push(cell);
        Ok(())
    }

    /// The id of the column `name` under top-level key `top`, created (with
    /// absent cells for the earlier rows) if new.
    fn column(&mut self, top: usize, name: &str, nested: bool) -> Msg<usize> {
        if let Some(&id) = self.by_name.get(name) {
            if self.cols[id].top != top {
                return Err(format!(
                    "duplicate column name '{name}' (a key inside an object repeats another \
                     column's name)"
                ));
            }
            return Ok(id);
        }
        let id = self.cols.len();
        self.cols.push(Col {
            name: name.to_owned(),
            top,
            nested,
            acc: Acc::new(self.nrows),
        });
        self.by_name.insert(name.to_owned(), id);
        self.tops[top].2.push(id);
        Ok(id)
    }
}

// Streaming deserialisation: each line is walked once and its cells go
// straight into their columns (no `serde_json::Value` per line).

/// A whole line: a JSON object of top-level keys.
struct LineSeed<'r> {
    r: &'r mut Reader,
}

impl<'de> DeserializeSeed<'de> for LineSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for LineSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let top = self.r.top(&key);
            map.next_value_seed(ValueSeed {
                r: &mut *self.r,
                top,
                name: &key,
                nested: false,
            })?;
        }
        Ok(())
    }
}

/// An object key, borrowed from the line when it has no escapes.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string key")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> std::result::Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> std::result::Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

/// The value of key `name`: a cell, or (an object) more columns.
struct ValueSeed<'r, 'n> {
    r: &'r mut Reader,
    top: usize,
    name: &'n str,
    nested: bool,
}

impl ValueSeed<'_, '_> {
    fn cell<E: de::Error>(self, cell: J) -> std::result::Result<(), E> {
        if !self.nested {
            if cell == J::Null && self.r.tops[self.top].1 == TopKind::Object {
                // `null` for an object key: its inner values are absent.
                return Ok(());
            }
            self.r.kind(self.top, TopKind::Scalar).map_err(E::custom)?;
        }
        self.r
            .put(self.top, self.name, self.nested, cell)
            .map_err(E::custom)
    }
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<(), E> {
        self.cell(J::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<(), E> {
        self.cell(J::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<(), E> {
        match i64::try_from(v) {
            Ok(i) => self.cell(J::Int(i)),
            Err(_) => self.cell(J::Float(v as f64)),
        }
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<(), E> {
        self.cell(J::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<(), E> {
        self.cell(J::Str(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> std::result::Result<(), E> {
        self.cell(J::Str(v))
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<(), E> {
        self.cell(J::Null)
    }
    fn visit_none<E: de::Error>(self) -> std::result::Result<(), E> {
        self.cell(J::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<(), A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element::<Value>()? {
            items.push(v);
        }
        self.cell(J::Other(Value::Array(items).to_string()))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
        if !self.nested {
            self.r
                .kind(self.top, TopKind::Object)
                .map_err(de::Error::custom)?;
        }
        // The outer key is dropped; deeper levels get dotted names.
        let prefix = if self.nested {
            format!("{}.", self.name)
        } else {
            String::new()
        };
        let mut name = prefix.clone();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            name.truncate(prefix.len());
            name.push_str(&key);
            map.next_value_seed(ValueSeed {
                r: &mut *self.r,
                top: self.top,
                name: &name,
                nested: true,
            })?;
        }
        Ok(())
    }
}

/// Python's `str()` of a cell of an `object` column.
fn py_str(c: &J) -> String {
    match c {
        J::Absent => "nan".into(),
        J::Null => "None".into(),
        J::Bool(b) => if *b { "True" } else { "False" }.into(),
        J::Int(i) => i.to_string(),
        J::Float(x) => py_float(*x),
        J::Str(s) | J::Other(s) => s.clone(),
    }
}

/// Python's `float()` of a string: like [`rsmreport_core::table::parse_number`],
/// plus `nan` spellings. `None` when it is not a number.
fn py_float_of_str(s: &str) -> Option<f64> {
    let x = rsmreport_core::table::parse_number(s);
    if !x.is_nan() {
        return Some(x);
    }
    let t = s.trim();
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    body.eq_ignore_ascii_case("nan").then_some(f64::NAN)
}

/// `read_json`'s last step: a float column without missing values whose
/// values are all integral becomes an integer column.
fn maybe_int(v: Vec<f64>) -> Values {
    let integral = !v.is_empty()
        && v.iter()
            .all(|&x| x.is_finite() && x.fract() == 0.0 && x.abs() < 9.2e18);
    if integral {
        Values::Int(v.into_iter().map(|x| x as i64).collect())
    } else {
        Values::Float(v)
    }
}

/// Types a finished column the way pandas would (see the module comment).
fn finish(acc: Acc, text: bool, nested: bool) -> Values {
    // pandas' DataFrame typing first: int64, float64 (numbers with missing
    // values), bool, or object; a column of only missing values is object.
    let acc = match acc {
        Acc::Num(v, k) if k.iter().all(|&k| k == K_NULL || k == K_ABSENT) => {
            Acc::Any(Acc::Num(v, k).to_cells())
        }
        other => other,
    };
    if text {
        // `dtype=str`: `astype(str)` of the pandas column.
        let cells: Vec<Option<String>> = match acc {
            Acc::Int(v) => v.iter().map(|i| Some(i.to_string())).collect(),
            Acc::Num(v, _) => v
                .iter()
                .map(|&x| {
                    Some(if x.is_nan() {
                        "nan".into()
                    } else {
                        py_float(x)
                    })
                })
                .collect(),
            Acc::Bool(v) => v
                .iter()
                .map(|&b| Some(if b { "True" } else { "False" }.into()))
                .collect(),
            Acc::Any(v) => v.iter().map(|c| Some(py_str(c))).collect(),
        };
        return text_values(cells);
    }
    match acc {
        Acc::Int(v) => Values::Int(v),
        Acc::Num(v, _) => {
            if nested {
                Values::Float(v)
            } else {
                maybe_int(v)
            }
        }
        Acc::Bool(v) => Values::Bool(v),
        Acc::Any(cells) => {
            if !nested {
                // `astype("float64")` of an object column, if every cell
                // converts; then the integral check.
                let floats: Option<Vec<f64>> = cells
                    .iter()
                    .map(|c| match c {
                        J::Absent | J::Null => Some(f64::NAN),
                        J::Bool(b) => Some(f64::from(u8::from(*b))),
                        J::Int(i) => Some(*i as f64),
                        J::Float(x) => Some(*x),
                        J::Str(s) => py_float_of_str(s),
                        J::Other(_) => None,
                    })
                    .collect();
                if let Some(v) = floats {
                    return maybe_int(v);
                }
            }
            object_values(cells)
        }
    }
}

/// An `object` column: text when every present cell is a string, mixed
/// otherwise; `null` and absent cells are missing.
fn object_values(cells: Vec<J>) -> Values {
    let all_text = cells
        .iter()
        .all(|c| matches!(c, J::Str(_) | J::Null | J::Absent));
    if all_text {
        text_values(cells.into_iter().map(|c| match c {
            J::Str(s) => Some(s),
            _ => None,
        }))
    } else {
        Values::Mixed(
            cells
                .into_iter()
                .map(|c| match c {
                    J::Absent | J::Null => Cell::Missing,
                    J::Bool(b) => Cell::Bool(b),
                    J::Int(i) => Cell::Int(i),
                    J::Float(x) => Cell::Float(x),
                    J::Str(s) | J::Other(s) => Cell::Text(s),
                })
                .collect(),
        )
    }
}

/// Each step of [`read`] on its own (the whole reader is tested through
/// `input::read_table` in `input/tests.rs`).
#[cfg(test)]
mod tests {
    use super::*;

    fn path() -> &'static Path {
        Path::new("t.jsonl")
    }

    /// A reader after `lines`, each parsed and closed.
    fn reader(lines: &[&str]) -> Reader {
        let mut r = Reader::new();
        for (i, l) in lines.iter().enumerate() {
            r.parse_line(path(), i + 1, l).unwrap();
            r.end_row();
        }
        r
    }

    #[test]
    fn check_line_accepts_objects_only() {
        assert!(check_line(path(), 1, "{\"a\": 1}").is_ok());
        let e = check_line(path(), 1, "[1, 2]").unwrap_err().to_string();
        assert!(
            e.contains("line 1 is a JSON array") && e.contains("plain JSON"),
            "{e}"
        );
        let e = check_line(path(), 4, "[1, 2]").unwrap_err().to_string();
        assert!(e.contains("t.jsonl: line 4 is not a JSON object"), "{e}");
        let e = check_line(path(), 2, "3").unwrap_err().to_string();
        assert!(e.contains("line 2 is not a JSON object"), "{e}");
    }

    #[test]
    fn parse_line_flattens_nested_objects_into_dotted_columns() {
        let r = reader(&["{\"id\": \"a\", \"m\": {\"x\": 1, \"d\": {\"y\": 2}}}"]);
        let names: Vec<&str> = r.cols.iter().map(|c| c.name.as_str()).collect();
        // The top-level object is replaced by its keys; deeper levels are
        // dotted.
        assert_eq!(names, ["id", "x", "d.y"]);
        assert_eq!(
            r.cols.iter().map(|c| c.nested).collect::<Vec<_>>(),
            [false, true, true]
        );
        assert_eq!(r.tops.len(), 2);
    }

    #[test]
    fn parse_line_errors_name_the_line_and_column() {
        let mut r = Reader::new();
        let e = r
            .parse_line(path(), 7, "{\"a\": 1,}")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("t.jsonl: line 7, column "), "{e}");
        assert!(e.contains("one JSON object per line"), "{e}");
        let mut r = Reader::new();
        let e = r
            .parse_line(path(), 1, "{\"a\": 1, \"a\": 2}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("duplicate key 'a'"), "{e}");
        let mut r = reader(&["{\"a\": 1}"]);
        let e = r
            .parse_line(path(), 2, "{\"a\": {\"b\": 1}}")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("'a' holds an object here but a plain value"),
            "{e}"
        );
    }

    #[test]
    fn end_row_marks_keys_a_line_did_not_have_as_absent() {
        let r = reader(&["{\"a\": 1, \"b\": 2}", "{\"a\": 3}", "{\"c\": null}"]);
        assert_eq!(r.nrows, 3);
        for col in &r.cols {
            assert_eq!(col.acc.len(), 3, "{}", col.name);
        }
        let t = r.into_table(&[]);
        let b = match &t.columns[1].values {
            Values::Float(v) => v.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(b[0], 2.0);
        assert!(b[1].is_nan() && b[2].is_nan());
    }

    #[test]
    fn into_table_orders_by_first_appearance_and_types_like_pandas() {
        let r = reader(&[
            "{\"id\": 1, \"f\": 4.0, \"m\": {\"x\": 1.0}}",
            "{\"id\": 2, \"f\": 5.0, \"m\": {\"x\": 2.0}, \"late\": \"t\"}",
        ]);
        let t = r.into_table(&["id"]);
        assert_eq!(t.names(), ["id", "f", "x", "late"]);
        // A text column keeps its text; integral top-level floats become
        // integers (read_json); nested ones stay floats (json_normalize).
        assert_eq!(t.columns[0].values, text_values([Some("1"), Some("2")]));
        assert_eq!(t.columns[1].values, Values::Int(vec![4, 5]));
        assert_eq!(t.columns[2].values, Values::Float(vec![1.0, 2.0]));
        assert_eq!(t.nrows, 2);
    }
}
