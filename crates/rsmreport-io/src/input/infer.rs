//! Stage 2 (input): pandas-style type inference for columns read as text
//! (CSV/TSV cells, and the string cells of xlsx files). Pure functions on
//! strings; reads no files.

use rsmreport_core::table::{text_values, Cell, Values};

/// Whether `s` is one of the [`rsmreport_core::schema::NA_TOKENS`] (a `match`, so no hashing).
#[inline]
pub fn is_na(s: &str) -> bool {
    matches!(
        s,
        "" | "#N/A"
            | "#N/A N/A"
            | "#NA"
            | "-1.#IND"
            | "-1.#QNAN"
            | "-NaN"
            | "-nan"
            | "1.#IND"
            | "1.#QNAN"
            | "<NA>"
            | "N/A"
            | "NA"
            | "NULL"
            | "NaN"
            | "None"
            | "n/a"
            | "nan"
            | "null"
    )
}

/// What one non-missing text cell looks like to pandas' CSV parser.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Parsed {
    Int(i64),
    Float(f64),
    Bool(bool),
    Text,
}

/// Classifies a cell that is not an NA token: an integer (optional sign,
/// ASCII digits, surrounding whitespace allowed, fits in `i64`), a float
/// (decimal/exponent syntax or `inf`/`infinity`, see
/// [`rsmreport_core::table::parse_number`]; integers too large for `i64` too), one of
/// pandas' boolean spellings (`True`/`TRUE`/`true`, `False`/`FALSE`/`false`),
/// or other text. A plain decimal with a point (`0.1234`, the common cell
/// of score columns) is recognised first, by
/// [`rsmreport_core::table::plain_decimal`].
#[inline]
pub fn classify(s: &str) -> Parsed {
    // A decimal with a point, the common cell of score columns, is a
    // float whatever else is tried (not an integer, not a boolean).
    if let Some(x) = rsmreport_core::table::plain_decimal(s.as_bytes()) {
        return Parsed::Float(x);
    }
    if let Some(i) = parse_int(s.as_bytes()) {
        return Parsed::Int(i);
    }
    match s {
        "True" | "TRUE" | "true" => return Parsed::Bool(true),
        "False" | "FALSE" | "false" => return Parsed::Bool(false),
        _ => {}
    }
    let x = rsmreport_core::table::parse_number(s);
    if x.is_nan() {
        Parsed::Text
    } else {
        Parsed::Float(x)
    }
}

/// Parses an `i64` written as optional sign and ASCII digits, with optional
/// surrounding ASCII whitespace. `None` when it is not such a number or does
/// not fit (the caller then tries a float).
#[inline]
pub fn parse_int(bytes: &[u8]) -> Option<i64> {
    let mut b = bytes;
    while let [first, rest @ ..] = b {
        if first.is_ascii_whitespace() {
            b = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = b {
        if last.is_ascii_whitespace() {
            b = rest;
        } else {
            break;
        }
    }
    let (negative, digits) = match b {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, b),
    };
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    let mut v: u64 = 0;
    for &d in digits {
        let d = d.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        // 19 digits fit in u64 without overflow.
        v = v * 10 + u64::from(d);
    }
    if negative {
        if v <= i64::MAX as u64 + 1 {
            Some((v as i64).wrapping_neg())
        } else {
            None
        }
    } else {
        i64::try_from(v).ok()
    }
}

/// The running type of a column during the single inference pass.
enum State {
    /// Only missing cells so far (how many).
    AllNa(usize),
    Int(Vec<i64>),
    Float(Vec<f64>),
    Bool(Vec<bool>),
    /// Booleans with at least one missing cell (pandas: object column).
    BoolNa(Vec<Option<bool>>),
    /// Gave up: some cell is plain text.
    Text,
}

/// Infers a column's type from its cell texts the way pandas' CSV reader
/// does (spec 2.1) and builds its [`Values`]:
///
/// * NA tokens are missing;
/// * all cells integers, none missing -> `Int`;
/// * numbers with a missing cell, or any decimal/exponent/inf -> `Float`
///   (missing = NaN); a column of only missing cells -> `Float` of NaN;
/// * no cells at all -> empty `Text`;
/// * all cells booleans, none missing -> `Bool`; booleans with missing
///   cells -> `Mixed` of `Bool`/`Missing` (pandas keeps Python booleans in
///   an object column, echoed `True`/`False`);
/// * anything else -> `Text`, cells verbatim, NA tokens as `None`.
///
/// `cells` is called once, or twice when the column turns out to be text
/// (the first pass stops at the first text cell).
pub fn infer_column<'a, I, F>(cells: F, len: usize) -> Values
where
    F: Fn() -> I,
    I: Iterator<Item = &'a str>,
{
    let mut inference = Inference::new(len);
    for s in cells() {
        if !inference.push(s) {
            break;
        }
    }
    inference
        .finish()
        .unwrap_or_else(|| text_values(cells().map(|s| (!is_na(s)).then_some(s))))
}

/// [`infer_column`] one cell at a time, for readers that go through the
/// cells of several columns together.
pub struct Inference {
    state: State,
    len: usize,
}

impl Inference {
    /// For a column of `len` cells.
    pub fn new(len: usize) -> Inference {
        Inference {
            state: State::AllNa(0),
            len,
        }
    }

    /// The number of cells added so far (0 once the column is text).
    fn cells(&self) -> usize {
        match &self.state {
            State::AllNa(n) => *n,
            State::Int(v) => v.len(),
            State::Float(v) => v.len(),
            State::Bool(v) => v.len(),
            State::BoolNa(v) => v.len(),
            State::Text => 0,
        }
    }

    /// Adds the next cell; `false` once the column is text (the caller
    /// may stop: [`Inference::finish`] is then `None`).
    #[inline]
    pub fn push(&mut self, s: &str) -> bool {
        let cell = (!is_na(s)).then(|| classify(s));
        // A cell of the column's kind is added in place; anything else
        // may change the kind.
        match (&mut self.state, cell) {
            (State::Float(v), Some(Parsed::Float(x))) => v.push(x),
            (State::Float(v), Some(Parsed::Int(i))) => v.push(i as f64),
            (State::Float(v), None) => v.push(f64::NAN),
            (State::Int(v), Some(Parsed::Int(i))) => v.push(i),
            (State::Bool(v), Some(Parsed::Bool(b))) => v.push(b),
            _ => {
                let state = std::mem::replace(&mut self.state, State::Text);
                self.state = push(state, cell, self.len);
            }
        }
        !matches!(self.state, State::Text)
    }

    /// The column's values, or `None` when it is text (the caller builds
    /// it from the cells again, as [`infer_column`] does).
    pub fn finish(self) -> Option<Values> {
        Some(match self.state {
            // pandas gives an empty column `object` dtype.
            State::AllNa(0) => Values::Text(Vec::new()),
            State::AllNa(n) => Values::Float(vec![f64::NAN; n]),
            State::Int(v) => Values::Int(v),
            State::Float(v) => Values::Float(v),
            State::Bool(v) => Values::Bool(v),
            State::BoolNa(v) => Values::Mixed(
                v.into_iter()
                    .map(|b| b.map_or(Cell::Missing, Cell::Bool))
                    .collect(),
            ),
            State::Text => return None,
        })
    }
}

/// The values of a column read in parts (consecutive runs of its cells,
/// each through its own [`Inference`]): what one [`Inference`] over all
/// the cells in order would give, or `None` when the column is text.
/// The type depends only on which kinds of cell occur (missing, integer,
/// float, boolean), not on their order, so the parts' types combine:
/// integers and missing cells make floats, booleans and missing cells
/// make `BoolNa`, numbers and booleans together make text.
pub fn concat(parts: Vec<Inference>) -> Option<Values> {
    let len: usize = parts.iter().map(Inference::cells).sum();
    let (mut numbers, mut ints_only, mut bools, mut bools_only) = (false, true, false, true);
    let mut missing = false;
    for p in &parts {
        match &p.state {
            State::AllNa(n) => missing |= *n > 0,
            State::Int(_) => numbers = true,
            State::Float(_) => (numbers, ints_only) = (true, false),
            State::Bool(_) => bools = true,
            State::BoolNa(_) => (bools, bools_only) = (true, false),
            State::Text => return None,
        }
    }
    let state = match (numbers, bools) {
        (true, true) => return None,
        (false, false) => State::AllNa(len),
        (true, false) if ints_only && !missing => {
            State::Int(concat_with(parts, len, own_int, |s, v| {
                if let State::Int(p) = s {
                    v.extend(p);
                }
            }))
        }
        (true, false) => State::Float(concat_with(parts, len, own_float, |s, v| match s {
            State::AllNa(n) => v.resize(v.len() + n, f64::NAN),
            State::Int(p) => v.extend(p.into_iter().map(|i| i as f64)),
            State::Float(p) => v.extend(p),
            _ => unreachable!("a number or missing part"),
        })),
        (false, true) if bools_only && !missing => {
            State::Bool(concat_with(parts, len, own_bool, |s, v| {
                if let State::Bool(p) = s {
                    v.extend(p);
                }
            }))
        }
        (false, true) => State::BoolNa(concat_with(parts, len, own_bool_na, |s, v| match s {
            State::AllNa(n) => v.resize(v.len() + n, None),
            State::Bool(p) => v.extend(p.into_iter().map(Some)),
            State::BoolNa(p) => v.extend(p),
            _ => unreachable!("a boolean or missing part"),
        })),
    };
    Inference { state, len }.finish()
}

/// The state's vector when it is of this kind (taken, left empty).
fn own_int(s: &mut State) -> Option<Vec<i64>> {
    match s {
        State::Int(v) => Some(std::mem::take(v)),
        _ => None,
    }
}

/// The state's vector when it is of this kind (taken, left empty).
fn own_float(s: &mut State) -> Option<Vec<f64>> {
    match s {
        State::Float(v) => Some(std::mem::take(v)),
        _ => None,
    }
}

/// The state's vector when it is of this kind (taken, left empty).
fn own_bool(s: &mut State) -> Option<Vec<bool>> {
    match s {
        State::Bool(v) => Some(std::mem::take(v)),
        _ => None,
    }
}

/// The state's vector when it is of this kind (taken, left empty).
fn own_bool_na(s: &mut State) -> Option<Vec<Option<bool>>> {
    match s {
        State::BoolNa(v) => Some(std::mem::take(v)),
        _ => None,
    }
}

/// The parts' values appended one after the other into one vector (the
/// first part's own vector when `own` takes it: no copy of it).
fn concat_with<T>(
    mut parts: Vec<Inference>,
    len: usize,
    own: impl Fn(&mut State) -> Option<Vec<T>>,
    add: impl Fn(State, &mut Vec<T>),
) -> Vec<T> {
    // Taken, the first part's vector is left empty: adding it adds nothing.
    let mut out = parts
        .first_mut()
        .and_then(|p| own(&mut p.state))
        .unwrap_or_default();
    out.reserve(len.saturating_sub(out.len()));
    for p in parts {
        add(p.state, &mut out);
    }
    out
}

/// The state after a cell (`None`: missing).
fn push(state: State, cell: Option<Parsed>, len: usize) -> State {
    let Some(cell) = cell else {
        return match state {
            State::AllNa(n) => State::AllNa(n + 1),
            State::Int(v) => {
                let mut f = to_float(v, len);
                f.push(f64::NAN);
                State::Float(f)
            }
            State::Float(mut v) => {
                v.push(f64::NAN);
                State::Float(v)
            }
            State::Bool(v) => {
                let mut b: Vec<Option<bool>> = Vec::with_capacity(len);
                b.extend(v.into_iter().map(Some));
                b.push(None);
                State::BoolNa(b)
            }
            State::BoolNa(mut v) => {
                v.push(None);
                State::BoolNa(v)
            }
            State::Text => State::Text,
        };
    };
    match (state, cell) {
        (State::Int(mut v), Parsed::Int(i)) => {
            v.push(i);
            State::Int(v)
        }
        (State::Float(mut v), Parsed::Int(i)) => {
            v.push(i as f64);
            State::Float(v)
        }
        (State::Float(mut v), Parsed::Float(x)) => {
            v.push(x);
            State::Float(v)
        }
        (State::Int(v), Parsed::Float(x)) => {
            let mut f = to_float(v, len);
            f.push(x);
            State::Float(f)
        }
        (State::AllNa(0), Parsed::Int(i)) => {
            let mut v = Vec::with_capacity(len);
            v.push(i);
            State::Int(v)
        }
        (State::AllNa(n), Parsed::Int(i)) => {
            let mut v = Vec::with_capacity(len);
            v.resize(n, f64::NAN);
            v.push(i as f64);
            State::Float(v)
        }
        (State::AllNa(n), Parsed::Float(x)) => {
            let mut v = Vec::with_capacity(len);
            v.resize(n, f64::NAN);
            v.push(x);
            State::Float(v)
        }
        (State::AllNa(0), Parsed::Bool(b)) => {
            let mut v = Vec::with_capacity(len);
            v.push(b);
            State::Bool(v)
        }
        (State::AllNa(n), Parsed::Bool(b)) => {
            let mut v = Vec::with_capacity(len);
            v.resize(n, None);
            v.push(Some(b));
            State::BoolNa(v)
        }
        (State::Bool(mut v), Parsed::Bool(b)) => {
            v.push(b);
            State::Bool(v)
        }
        (State::BoolNa(mut v), Parsed::Bool(b)) => {
            v.push(Some(b));
            State::BoolNa(v)
        }
        _ => State::Text,
    }
}

fn to_float(v: Vec<i64>, len: usize) -> Vec<f64> {
    let mut f = Vec::with_capacity(len.max(v.len() + 1));
    f.extend(v.into_iter().map(|i| i as f64));
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    fn infer(cells: &[&str]) -> Values {
        infer_column(|| cells.iter().copied(), cells.len())
    }

    /// A column cut into parts (each through its own [`Inference`]) and
    /// joined by [`concat`] is the column inferred in one go, for random
    /// columns of every kind of cell and random cuts.
    #[test]
    fn parts_join_as_one_column() {
        use rsmreport_metrics::test_util::Lcg;
        let pool = [
            "", "NA", "1", "-2", "2.5", "1e3", "True", "false", "x", "inf",
        ];
        let mut kinds = std::collections::BTreeSet::new();
        for seed in 1..=400u64 {
            let mut g = Lcg(seed);
            let mut pick = |n: usize| ((g.next() * n as f64) as usize).min(n - 1);
            let choices: Vec<&str> = (0..1 + pick(3)).map(|_| pool[pick(pool.len())]).collect();
            let cells: Vec<&str> = (0..1 + pick(12))
                .map(|_| choices[pick(choices.len())])
                .collect();
            let mut cuts: Vec<usize> = (0..pick(4)).map(|_| pick(cells.len() + 1)).collect();
            cuts.extend([0, cells.len()]);
            cuts.sort_unstable();
            let parts = cuts
                .windows(2)
                .map(|w| {
                    let mut i = Inference::new(w[1] - w[0]);
                    for s in &cells[w[0]..w[1]] {
                        if !i.push(s) {
                            break;
                        }
                    }
                    i
                })
                .collect();
            let mut whole = Inference::new(cells.len());
            let text = !cells.iter().all(|s| whole.push(s));
            let expected = if text { None } else { whole.finish() };
            kinds.insert(format!("{expected:?}").chars().take(9).collect::<String>());
            assert_eq!(
                format!("{:?}", concat(parts)),
                format!("{expected:?}"),
                "{cells:?} cut at {cuts:?}"
            );
        }
        // Every outcome occurred: Int, Float, Bool, Mixed (booleans with
        // missing cells) and text.
        assert_eq!(kinds.len(), 5, "{kinds:?}");
    }

    #[test]
    fn na_tokens_are_exact() {
        for t in rsmreport_core::schema::NA_TOKENS {
            assert!(is_na(t), "{t:?}");
        }
        for t in [" ", "na", "N/a", "NONE", "Null", "NAN", " NA", "nan "] {
            assert!(!is_na(t), "{t:?}");
        }
    }

    #[test]
    fn integers() {
        assert_eq!(parse_int(b"42"), Some(42));
        assert_eq!(parse_int(b" -7 "), Some(-7));
        assert_eq!(parse_int(b"+007"), Some(7));
        assert_eq!(parse_int(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_int(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_int(b"9223372036854775808"), None);
        assert_eq!(parse_int(b"99999999999999999999"), None);
        for bad in ["", "-", "4.0", "1e3", "1_0", "0x1", "4 4"] {
            assert_eq!(parse_int(bad.as_bytes()), None, "{bad:?}");
        }
    }

    #[test]
    fn column_types() {
        assert_eq!(infer(&["1", "2", "-3"]), Values::Int(vec![1, 2, -3]));
        assert_eq!(infer(&["1", "2.5"]), Values::Float(vec![1.0, 2.5]));
        assert_eq!(infer(&["1e3", "4"]), Values::Float(vec![1000.0, 4.0]));
        let v = infer(&["1", "", "3"]);
        let Values::Float(f) = v else { panic!("{v:?}") };
        assert!(f[0] == 1.0 && f[1].is_nan() && f[2] == 3.0);
        let v = infer(&["NA", "n/a", "4"]);
        let Values::Float(f) = v else { panic!("{v:?}") };
        assert!(f[0].is_nan() && f[1].is_nan() && f[2] == 4.0);
        let v = infer(&["", "NaN"]);
        let Values::Float(f) = v else { panic!("{v:?}") };
        assert!(f.iter().all(|x| x.is_nan()) && f.len() == 2);
        assert_eq!(
            infer(&["inf", "-Infinity"]),
            Values::Float(vec![f64::INFINITY, f64::NEG_INFINITY])
        );
        assert_eq!(
            infer(&["99999999999999999999", "1"]),
            Values::Float(vec![1e20, 1.0])
        );
        assert_eq!(
            infer(&["True", "false", "TRUE"]),
            Values::Bool(vec![true, false, true])
        );
        assert_eq!(
            infer(&["True", "", "False"]),
            Values::Mixed(vec![Cell::Bool(true), Cell::Missing, Cell::Bool(false)])
        );
        assert_eq!(
            infer(&["1", "abc", "NA", "2.5", ""]),
            Values::Text(vec![
                Some("1".into()),
                Some("abc".into()),
                None,
                Some("2.5".into()),
                None
            ])
        );
        assert_eq!(
            infer(&["True", "1"]),
            Values::Text(vec![Some("True".into()), Some("1".into())])
        );
        assert_eq!(infer(&[" 4", "5 "]), Values::Int(vec![4, 5]));
        assert_eq!(infer(&[]), Values::Text(vec![]));
    }
}
