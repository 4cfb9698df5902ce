//! Stage 1 (config): the text of the saved configuration copy
//! (`output/<id>_rsmeval.json`, spec 1.4), byte-compatible with Python's
//! `json.dump(config, f, indent=4)`: 4-space indentation, non-ASCII escaped
//! as `\uXXXX`, floats as Python's `repr`, no trailing newline. Formats only;
//! writing the file is the output stage's job.

use std::io;

use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};

use super::Experiment;

/// The saved configuration as the reference writes it (no trailing newline).
pub fn saved_config_json(exp: &Experiment) -> String {
    to_python_json(&exp.saved_config)
}

/// Any JSON value in the format of Python's `json.dumps(v, indent=4)`.
pub fn to_python_json(value: &serde_json::Value) -> String {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, PythonFormatter::new());
    // Serialising a `Value` into memory cannot fail (no I/O, string keys).
    if value.serialize(&mut ser).is_err() {
        return value.to_string();
    }
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Python's `repr(float)`: shortest round-trip digits; positional notation
/// for exponents -4..=15 (always with a `.0` or decimals), otherwise
/// `1e-05` / `1.5e+16` style.
pub fn python_float_repr(v: f64) -> String {
    // JSON spells the non-finite values like Python's json module does; every
    // finite value is Python's repr, shared with the table writers.
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    rsmreport_core::pyrepr::py_float(v)
}

struct PythonFormatter {
    inner: PrettyFormatter<'static>,
}

impl PythonFormatter {
    fn new() -> Self {
        PythonFormatter {
            inner: PrettyFormatter::with_indent(b"    "),
        }
    }
}

impl Formatter for PythonFormatter {
    fn write_f64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        writer.write_all(python_float_repr(value).as_bytes())
    }

    fn write_f32<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        self.write_f64(writer, f64::from(value))
    }

    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        // serde_json has already escaped `"`, `\` and U+0000..U+001F the way
        // Python does; what is left is `ensure_ascii`: DEL and non-ASCII.
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if c.is_ascii() && c != '\u{7f}' {
                continue;
            }
            writer.write_all(&fragment.as_bytes()[start..i])?;
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                write!(writer, "\\u{unit:04x}")?;
            }
            start = i + c.len_utf8();
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.inner.begin_array(writer)
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.inner.end_array(writer)
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.inner.begin_array_value(writer, first)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.inner.end_array_value(writer)
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.inner.begin_object(writer)
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.inner.end_object(writer)
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.inner.begin_object_key(writer, first)
    }

    fn end_object_key<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.inner.end_object_key(writer)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.inner.begin_object_value(writer)
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.inner.end_object_value(writer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn float_repr_matches_python() {
        let cases = [
            (0.4998, "0.4998"),
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.2782134497062227e-05, "1.2782134497062227e-05"),
            (2.5, "2.5"),
            (-3.25, "-3.25"),
            (100.0, "100.0"),
            (0.1, "0.1"),
            (1.5e300, "1.5e+300"),
            (5e-324, "5e-324"),
        ];
        for (v, want) in cases {
            assert_eq!(python_float_repr(v), want, "{v}");
        }
    }

    #[test]
    fn layout_matches_python_json_dump_indent_4() {
        let v = json!({"a": [1, 2.0], "b": {}, "c": [], "d": null, "e": "é\u{7f}\u{1F600}\n\"", "f": {"x": true}});
        let want = "{\n    \"a\": [\n        1,\n        2.0\n    ],\n    \"b\": {},\n    \"c\": [],\n    \
                    \"d\": null,\n    \"e\": \"\\u00e9\\u007f\\ud83d\\ude00\\n\\\"\",\n    \"f\": {\n        \
                    \"x\": true\n    }\n}";
        assert_eq!(to_python_json(&v), want);
        // It stays valid JSON with the same value.
        let back: serde_json::Value = serde_json::from_str(&to_python_json(&v)).unwrap();
        assert_eq!(back, v);
    }
}
