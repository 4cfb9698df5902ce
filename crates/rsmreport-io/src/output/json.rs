//! Stage 7 (output): the one JSON number writer of every kind's JSON files
//! (`<id>_summary.json`, the gates, compare, summarize, agree and
//! preferences files): a finite number as itself, anything else as `null`.
//! Pure; writes nothing.

use serde_json::{json, Value};

/// The bytes of a JSON file of the output: indented, ending with a line
/// end. The one writer of every kind's and the gates' JSON files.
pub fn bytes(doc: &Value) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(doc).expect("a JSON value always serialises");
    bytes.push(b'\n');
    bytes
}

/// A number for JSON (`null` when not finite).
pub fn number(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else {
        Value::Null
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finite_numbers_as_themselves_others_as_null() {
        assert_eq!(number(0.25).to_string(), "0.25");
        assert_eq!(number(-3.0).to_string(), "-3.0");
        assert_eq!(number(f64::NAN), Value::Null);
        assert_eq!(number(f64::INFINITY), Value::Null);
        assert_eq!(number(f64::NEG_INFINITY), Value::Null);
    }
}
