//! The in-memory data model shared by every stage: input tables read from
//! disk ([`Table`]) and output tables ready to be written ([`Frame`]).
//!
//! Plain data only: no I/O and no formatting here (formatting of numbers for
//! files lives in `pyrepr`).

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
    /// Cells are shared ([`Text`]): copying a column into several output
    /// tables copies pointers, and a column of repeated values (subgroups)
    /// stores each distinct value once ([`TextBuilder`]).
    Text(Vec<Option<Text>>),
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
                Some(s) => Cell::Text(s.to_string()),
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

/// The text of one cell: immutable and shared, so a clone is a reference
/// count, not a copy.
pub type Text = std::sync::Arc<str>;

/// Builds a [`Values::Text`] column. While the column looks like a few
/// categories repeated (subgroup columns), equal values share one
/// allocation; as soon as it looks like mostly distinct values (ids), it
/// stops looking values up and allocates each cell.
pub struct TextBuilder {
    cells: Vec<Option<Text>>,
    distinct: Option<std::collections::HashSet<Text, FxBuild>>,
}

impl TextBuilder {
    /// Distinct values at which sharing is reconsidered: above this, it
    /// continues only while at most half of the cells so far were new.
    const FEW: usize = 1024;
    /// Distinct values above which sharing stops in any case.
    const MAX: usize = 1 << 16;

    pub fn with_capacity(n: usize) -> Self {
        TextBuilder {
            cells: Vec::with_capacity(n),
            distinct: Some(Default::default()),
        }
    }

    #[inline]
    pub fn push(&mut self, cell: Option<&str>) {
        let value = cell.map(|s| self.text(s));
        self.cells.push(value);
    }

    fn text(&mut self, s: &str) -> Text {
        let Some(set) = &mut self.distinct else {
            return Text::from(s);
        };
        if let Some(t) = set.get(s) {
            return t.clone();
        }
        let t = Text::from(s);
        set.insert(t.clone());
        let n = set.len();
        if n > Self::MAX || (n > Self::FEW && 2 * n > self.cells.len()) {
            self.distinct = None;
        }
        t
    }

    pub fn finish(self) -> Values {
        Values::Text(self.cells)
    }

    /// The cells, for a caller that builds the [`Values::Text`] itself.
    pub fn into_cells(self) -> Vec<Option<Text>> {
        self.cells
    }
}

/// A text column from strings (`None` = missing), sharing repeated values
/// like [`TextBuilder`].
pub fn text_values<S: AsRef<str>>(cells: impl IntoIterator<Item = Option<S>>) -> Values {
    let cells = cells.into_iter();
    let mut b = TextBuilder::with_capacity(cells.size_hint().0);
    b.extend(cells);
    b.finish()
}

impl<S: AsRef<str>> Extend<Option<S>> for TextBuilder {
    fn extend<I: IntoIterator<Item = Option<S>>>(&mut self, cells: I) {
        for cell in cells {
            self.push(cell.as_ref().map(AsRef::as_ref));
        }
    }
}

/// The FxHash function (rustc's hasher): a multiply and a rotate per 8
/// bytes, plus a final mix (see `finish`). Only for sets whose keys come from the user's files, where
/// SipHash's protection against chosen collisions buys nothing and its
/// speed cost is measurable (the duplicate-id check of 2.4).
#[derive(Default)]
pub struct FxHasher {
    hash: u64,
}

impl FxHasher {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(Self::SEED);
    }
}

impl std::hash::Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            // the remainder as a zero-padded little-endian word, byte by
            // byte (a copy of up to 7 bytes into a buffer calls memcpy)
            let last = rest
                .iter()
                .rev()
                .fold(0u64, |w, &b| (w << 8) | u64::from(b));
            self.add(last);
        }
    }

    fn write_u8(&mut self, i: u8) {
        // `str` hashing ends with a 0xff byte, which keeps "a" and "a\0"
        // apart; it must not be dropped.
        self.add(u64::from(i));
    }

    fn finish(&self) -> u64 {
        // The low bits of a product depend only on the low bits of its
        // factors, so ids that differ only in their last characters (the
        // high bytes of a little-endian word, e.g. `R0000001`, `R0000002`)
        // would share their low bits and collide in the table's buckets
        // (measured: 10x slower builds). The finaliser of MurmurHash3 mixes
        // every bit into every other.
        let mut h = self.hash;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

pub type FxBuild = std::hash::BuildHasherDefault<FxHasher>;

/// Parses text as a decimal float the way the reference's numeric coercion
/// does: optional sign, digits with an optional decimal point (`.5` and `5.`
/// allowed), optional exponent, or `inf`/`infinity` in any case. Surrounding
/// whitespace is ignored. Anything else (including `nan`, `3,5`, hex, `1_0`)
/// gives `NaN`.
pub fn parse_number(text: &str) -> f64 {
    let t = text.trim();
    let negative = t.starts_with('-');
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    if body.eq_ignore_ascii_case("inf") || body.eq_ignore_ascii_case("infinity") {
        return if negative {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    let bytes = body.as_bytes();
    let mut i = 0;
    let (mut digits, mut decimals) = (0, 0);
    // The digits as an integer (exact while there are at most 19).
    let mut mantissa: u64 = 0;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        mantissa = mantissa
            .wrapping_mul(10)
            .wrapping_add(u64::from(bytes[i] - b'0'));
        i += 1;
        digits += 1;
    }
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            mantissa = mantissa
                .wrapping_mul(10)
                .wrapping_add(u64::from(bytes[i] - b'0'));
            i += 1;
            digits += 1;
            decimals += 1;
        }
    }
    if digits == 0 {
        return f64::NAN;
    }
    let mut exponent = false;
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        exponent = true;
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
    if !exponent && digits <= 15 {
        // Clinger's fast path: the integer of at most 15 digits and the
        // power of ten (at most 1e15) are exact doubles, so their quotient,
        // rounded once, is the correctly rounded value of the text: the
        // value the standard parser gives.
        let x = mantissa as f64 / POWERS_OF_TEN[decimals];
        return if negative { -x } else { x };
    }
    t.parse::<f64>().unwrap_or(f64::NAN)
}

/// The double of a plain decimal with a point, `[+-]?digits.digits`
/// (at least one digit, at most 15, nothing else: no space, no
/// exponent), as [`parse_number`] gives it; `None` for any other text.
/// The common cell of score columns, typed without the general parser.
#[inline]
pub fn plain_decimal(text: &[u8]) -> Option<f64> {
    let (negative, body) = match text {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, text),
    };
    let (mut mantissa, mut digits, mut point) = (0u64, 0usize, None);
    for (i, &c) in body.iter().enumerate() {
        let d = c.wrapping_sub(b'0');
        if d < 10 {
            mantissa = mantissa * 10 + u64::from(d);
            digits += 1;
            if digits > 15 {
                return None;
            }
        } else if c == b'.' && point.is_none() {
            point = Some(i);
        } else {
            return None;
        }
    }
    let decimals = body.len() - point? - 1;
    if digits == 0 {
        return None;
    }
    // Clinger's fast path, as in `parse_number`.
    let x = mantissa as f64 / POWERS_OF_TEN[decimals];
    Some(if negative { -x } else { x })
}

/// 1e0 to 1e15, each exact.
const POWERS_OF_TEN: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

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

    /// The number in the row whose first cell is the text `row` (a stored
    /// table's index: `raw_trim`, `All data`; `""`: the unlabelled row of a
    /// one-row table such as `consistency`) and the column `column`;
    /// `None` when there is no such row or column (NaN when the cell is
    /// empty or not a number).
    pub fn value_at(&self, row: &str, column: &str) -> Option<f64> {
        let index = self.columns.first()?;
        let i =
            (0..self.nrows).find(|&i| matches!(index.values.cell(i), Cell::Text(s) if s == row))?;
        Some(self.column(column)?.values.to_numeric()[i])
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

/// A frame without an index from its named columns, in order.
pub fn frame(name: &str, columns: Vec<(&str, Values)>) -> Frame {
    let columns = columns
        .into_iter()
        .map(|(n, v)| Column::new(n, v))
        .collect();
    Frame::new(name, None, columns)
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

    /// The number in the row labelled `row` (`""`: the unlabelled row of a
    /// one-row table such as `consistency`) and column `column`; `None`
    /// when there is no such row or column (NaN when the cell is empty).
    pub fn value_at(&self, row: &str, column: &str) -> Option<f64> {
        let index = self.index.as_ref()?;
        let i = (0..index.len()).find(|&i| match index.cell(i) {
            Cell::Text(s) => s == row,
            _ => row.is_empty(),
        })?;
        Some(self.column(column)?.values.to_numeric()[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path of plain decimals (at most 15 digits) gives the
    /// standard parser's double, bit for bit, on random decimals of every
    /// length and scale, signed and with leading or trailing zeros.
    #[test]
    fn plain_decimals_parse_as_the_standard_parser_parses_them() {
        // A seeded generator of uniform numbers in [0, 1) (the one of
        // `metrics::test_util`, here so that `table` needs nothing above it).
        let mut state = 7u64;
        let mut g = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut fast = 0;
        for _ in 0..200_000 {
            let digits = 1 + (g() * 17.0) as usize;
            let mut text: String = (0..digits)
                .map(|_| char::from(b'0' + (g() * 10.0) as u8 % 10))
                .collect();
            let point = (g() * (digits + 1) as f64) as usize;
            text.insert(point.min(digits), '.');
            if g() < 0.3 {
                text.insert(0, '-');
            }
            if text == "." || text == "-." {
                continue;
            }
            let ours = parse_number(&text);
            let std: f64 = text.parse().unwrap();
            assert_eq!(ours.to_bits(), std.to_bits(), "{text}");
            if let Some(x) = plain_decimal(text.as_bytes()) {
                assert_eq!(x.to_bits(), std.to_bits(), "{text}");
            }
            fast += usize::from(digits <= 15);
        }
        assert!(fast > 150_000, "{fast} texts took the fast path");
    }

    #[test]
    fn parse_number_follows_the_coercion_rule() {
        assert_eq!(plain_decimal(b"-0.25"), Some(-0.25));
        for not_plain in [
            "3", " 0.5", "0.5 ", "1e3", "1.2.3", ".", "-", "", "0x1.5", "1_0.5",
        ] {
            assert_eq!(plain_decimal(not_plain.as_bytes()), None, "{not_plain}");
        }
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

    #[test]
    fn fx_hash_spreads_ids_that_differ_only_at_the_end() {
        // Guards the final mix: without it these ids all share their low
        // bits, and the duplicate-id check becomes quadratic.
        use std::hash::BuildHasher;
        let build = FxBuild::default();
        let low: std::collections::HashSet<u64> = (0..1000)
            .map(|i| build.hash_one(format!("R{i:07}").as_str()) & 0x3ff)
            .collect();
        assert!(low.len() > 500, "{} distinct low-bit patterns", low.len());
    }

    /// A tail of 1-7 bytes is hashed as the zero-padded little-endian
    /// word (so every hash, and every map's order, stays as it was).
    #[test]
    fn fx_hash_tail_is_the_zero_padded_word() {
        use std::hash::Hasher;
        let bytes: Vec<u8> = (1..=23u8).map(|b| b.wrapping_mul(37)).collect();
        for len in 0..=bytes.len() {
            let mut h = FxHasher::default();
            h.write(&bytes[..len]);
            let mut want = FxHasher::default();
            for c in bytes[..len].chunks(8) {
                let mut w = [0u8; 8];
                w[..c.len()].copy_from_slice(c);
                want.add(u64::from_le_bytes(w));
            }
            assert_eq!(h.finish(), want.finish(), "{len} bytes");
        }
    }

    #[test]
    fn text_builder_shares_repeated_values_and_not_ids() {
        let mut groups = TextBuilder::with_capacity(3000);
        for i in 0..3000 {
            groups.push(Some(["a", "b", "c"][i % 3]));
        }
        groups.push(None);
        let Values::Text(g) = groups.finish() else {
            unreachable!()
        };
        assert_eq!(g.len(), 3001);
        assert!(std::sync::Arc::ptr_eq(
            g[0].as_ref().unwrap(),
            g[2997].as_ref().unwrap()
        ));
        assert_eq!(g[2].as_deref(), Some("c"));
        assert_eq!(g[3000], None);

        let mut ids = TextBuilder::with_capacity(5000);
        for i in 0..5000 {
            ids.push(Some(&format!("R{i}")));
        }
        assert!(
            ids.distinct.is_none(),
            "a column of ids stops looking values up"
        );
        let Values::Text(v) = ids.finish() else {
            unreachable!()
        };
        assert_eq!(v[4999].as_deref(), Some("R4999"));
    }
}
