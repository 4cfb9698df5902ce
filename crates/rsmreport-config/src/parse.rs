//! Stage 1 (config), parsing half: the text of a TOML or rsmeval JSON config
//! becomes a [`RawConfig`], the top-level keys in the user's order with their
//! values and the line where each key is defined. Pure text processing: it
//! reads no file, judges no value (that is `value` and each kind's reader)
//! and writes nothing.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};
use serde_json::{Map, Value};

/// The two config syntaxes `rsmreport` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigKind {
    /// `rsmreport`'s own format: TOML with the reference's flat key names.
    Toml,
    /// An rsmeval JSON config (`//` and `/* */` comments allowed).
    Json,
}

impl ConfigKind {
    /// Picks the syntax from the file extension (`.toml` / `.json`, any case).
    pub fn from_path(path: &Path) -> Result<ConfigKind> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("toml") => Ok(ConfigKind::Toml),
            Some("json") => Ok(ConfigKind::Json),
            Some(other) => bail!(
                "the configuration file {} has the extension .{other}, which is not supported; \
                 use a .toml file (or an rsmeval .json file)",
                path.display()
            ),
            None => bail!(
                "the configuration file {} has no extension; \
                 use a .toml file (or an rsmeval .json file)",
                path.display()
            ),
        }
    }

    /// "TOML" or "JSON", for messages.
    pub fn name(self) -> &'static str {
        match self {
            ConfigKind::Toml => "TOML",
            ConfigKind::Json => "JSON",
        }
    }
}

/// A parsed but unvalidated config: the top-level keys in the user's order
/// with their values (TOML values converted to JSON ones: TOML has no null,
/// a TOML `nan`/`inf` becomes the text `"nan"`/`"inf"`/`"-inf"`), and the
/// 1-based line where each key is defined.
#[derive(Clone, Debug)]
pub struct RawConfig {
    /// The file the text came from (for messages only).
    pub origin: PathBuf,
    pub kind: ConfigKind,
    /// Top-level keys in the user's order.
    pub entries: Map<String, Value>,
    lines: HashMap<String, usize>,
    /// For a key holding an array (`[[gates]]`), the line of each item.
    item_lines: HashMap<String, Vec<usize>>,
}

impl RawConfig {
    /// The value of a top-level key as written (JSON `null` included).
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.get(key)
    }

    /// The 1-based line where a top-level key is defined, when known.
    pub fn line_of(&self, key: &str) -> Option<usize> {
        self.lines.get(key).copied()
    }

    /// The 1-based line of item `index` (0-based) of an array key, e.g.
    /// the second `[[gates]]` table; the key's line when unknown.
    pub fn line_of_item(&self, key: &str, index: usize) -> Option<usize> {
        self.item_lines
            .get(key)
            .and_then(|l| l.get(index).copied())
            .or_else(|| self.line_of(key))
    }

    /// The top-level keys in the user's order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// `file, line N` of a top-level key (the file alone when the line is
    /// unknown), the prefix of an error about it.
    pub fn at(&self, key: &str) -> String {
        match self.line_of(key) {
            Some(l) => format!("{}, line {l}", self.origin.display()),
            None => self.origin.display().to_string(),
        }
    }

    /// Every top-level key is one of `allowed`; the error names the first
    /// other one with its line and the closest allowed key (or lists them).
    pub fn check_keys(&self, allowed: &[&str]) -> Result<()> {
        let Some(key) = self.keys().find(|k| !allowed.contains(k)) else {
            return Ok(());
        };
        let hint = super::closest(key, allowed.iter().copied()).map_or_else(
            || format!(" (the keys are {})", allowed.join(", ")),
            |k| format!("; did you mean {k}?"),
        );
        Err(anyhow!("{}: unknown key {key}{hint}", self.at(key)))
    }
}

/// Parses config text. `origin` is only used in messages. Syntax errors name
/// the file, the line and the column, and show the offending line.
pub fn parse(text: &str, kind: ConfigKind, origin: &Path) -> Result<RawConfig> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match kind {
        ConfigKind::Toml => parse_toml(text, origin),
        ConfigKind::Json => parse_json(text, origin),
    }
}

// ---------------------------------------------------------------- TOML

fn parse_toml(text: &str, origin: &Path) -> Result<RawConfig> {
    // First pass: the span of every top-level key (and the syntax check).
    let spanned =
        toml::de::DeTable::parse(text).map_err(|e| toml_syntax_error(text, origin, &e))?;
    let mut lines = HashMap::new();
    let mut item_lines = HashMap::new();
    for (key, value) in spanned.get_ref().iter() {
        let name = key.get_ref().to_string();
        if let toml::de::DeValue::Array(items) = value.get_ref() {
            let at: Vec<usize> = items
                .iter()
                .map(|item| line_col(text, item.span().start).0)
                .collect();
            item_lines.insert(name.clone(), at);
        }
        lines.insert(name, line_col(text, key.span().start).0);
    }
    // Second pass: the values, in document order (`preserve_order`).
    let table: toml::Table =
        toml::from_str(text).map_err(|e| toml_syntax_error(text, origin, &e))?;
    let mut entries = Map::new();
    for (key, value) in table {
        let line = lines.get(&key).copied();
        let json = toml_to_json(value, &key, line, origin)?;
        entries.insert(key, json);
    }
    Ok(RawConfig {
        origin: origin.to_path_buf(),
        kind: ConfigKind::Toml,
        entries,
        lines,
        item_lines,
    })
}

fn toml_syntax_error(text: &str, origin: &Path, err: &toml::de::Error) -> anyhow::Error {
    let message = err.message().trim().replace('\n', "; ");
    match err.span() {
        Some(span) => {
            let (line, col) = line_col(text, span.start);
            anyhow!(
                "{}, line {line}, column {col}: TOML syntax error: {message}{}",
                origin.display(),
                snippet(text, line, col)
            )
        }
        None => anyhow!("{}: TOML syntax error: {message}", origin.display()),
    }
}

fn toml_to_json(
    value: toml::Value,
    key: &str,
    line: Option<usize>,
    origin: &Path,
) -> Result<Value> {
    Ok(match value {
        toml::Value::String(s) => Value::String(s),
        toml::Value::Integer(i) => Value::from(i),
        toml::Value::Float(x) => match serde_json::Number::from_f64(x) {
            Some(n) => Value::Number(n),
            None if x.is_nan() => Value::String("nan".into()),
            None if x > 0.0 => Value::String("inf".into()),
            None => Value::String("-inf".into()),
        },
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(d) => {
            let at = match line {
                Some(l) => format!("{}, line {l}", origin.display()),
                None => origin.display().to_string(),
            };
            bail!(
                "{at}: {key} holds the TOML date/time {d}, which no setting accepts; \
                 if it is meant as text, put it in quotes (\"{d}\")"
            )
        }
        toml::Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|v| toml_to_json(v, key, line, origin))
                .collect::<Result<_>>()?,
        ),
        toml::Value::Table(table) => {
            let mut map = Map::new();
            for (k, v) in table {
                let inner = format!("{key}.{k}");
                let json = toml_to_json(v, &inner, line, origin)?;
                map.insert(k, json);
            }
            Value::Object(map)
        }
    })
}

// ---------------------------------------------------------------- JSON

fn parse_json(text: &str, origin: &Path) -> Result<RawConfig> {
    let stripped = strip_json_comments(text).map_err(|(line, col)| {
        anyhow!(
            "{}, line {line}, column {col}: JSON syntax error: this /* comment is never \
             closed with */{}",
            origin.display(),
            snippet(text, line, col)
        )
    })?;
    let value: Value = serde_json::from_str(&stripped).map_err(|e| {
        let line = e.line().max(1);
        let col = e.column().max(1);
        let full = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        let message = full.strip_suffix(&suffix).unwrap_or(&full);
        anyhow!(
            "{}, line {line}, column {col}: JSON syntax error: {message}{}",
            origin.display(),
            snippet(&stripped, line, col)
        )
    })?;
    let Value::Object(entries) = value else {
        bail!(
            "{}: an rsmeval JSON config must be one object {{ \"key\": value, ... }}, \
             but this file holds {}",
            origin.display(),
            describe_json_kind(&value)
        );
    };
    let lines = json_key_lines(&stripped, origin)?;
    Ok(RawConfig {
        origin: origin.to_path_buf(),
        kind: ConfigKind::Json,
        entries,
        lines,
        item_lines: HashMap::new(),
    })
}

fn describe_json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Removes `//` line comments and `/* */` block comments outside JSON
/// strings (so `"http://..."` is untouched). Every removed byte becomes a
/// space (newlines stay), so lines and columns are unchanged. An unclosed
/// block comment gives its 1-based (line, column).
pub(crate) fn strip_json_comments(text: &str) -> std::result::Result<String, (usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let mut in_string = false;
    let mut escaped = false;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            out.push(b);
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        let next = bytes.get(i + 1).copied();
        match (b, next) {
            (b'"', _) => {
                in_string = true;
                out.push(b);
                i += 1;
            }
            (b'/', Some(b'/')) => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    out.push(if bytes[i] == b'\r' { b'\r' } else { b' ' });
                    i += 1;
                }
            }
            (b'/', Some(b'*')) => {
                let start = i;
                out.extend_from_slice(b"  ");
                i += 2;
                loop {
                    if i >= bytes.len() {
                        return Err(line_col(text, start));
                    }
                    if bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/') {
                        out.extend_from_slice(b"  ");
                        i += 2;
                        break;
                    }
                    out.push(if bytes[i] == b'\n' { b'\n' } else { b' ' });
                    i += 1;
                }
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    // Only whole UTF-8 sequences were replaced (by ASCII spaces), so the
    // result is valid UTF-8; the lossy fallback can never trigger.
    Ok(String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

/// Line of every top-level key of a syntactically valid JSON object text;
/// rejects a key given twice (JSON parsers silently keep the last one).
fn json_key_lines(text: &str, origin: &Path) -> Result<HashMap<String, usize>> {
    let bytes = text.as_bytes();
    let mut lines: HashMap<String, usize> = HashMap::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                let end = (i + 1).min(bytes.len());
                if depth == 1 {
                    let mut j = end;
                    while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    if bytes.get(j) == Some(&b':') {
                        let literal = text.get(start..end).unwrap_or_default();
                        let key: String = serde_json::from_str(literal).unwrap_or_default();
                        let line = line_col(text, start).0;
                        if let Some(first) = lines.get(&key) {
                            bail!(
                                "{}, line {line}: the key {key} is given twice (first on line \
                                 {first}); keep only one of them",
                                origin.display()
                            );
                        }
                        lines.insert(key, line);
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    Ok(lines)
}

// ---------------------------------------------------------------- positions

/// 1-based (line, column in characters) of a byte offset.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while offset > 0 && !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |p| p + 1);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

/// The offending line with a caret under the column, indented; long lines
/// are cut to a window around the column.
fn snippet(text: &str, line: usize, col: usize) -> String {
    const WIDTH: usize = 100;
    let Some(content) = text.split('\n').nth(line.saturating_sub(1)) else {
        return String::new();
    };
    let chars: Vec<char> = content
        .trim_end_matches('\r')
        .chars()
        .map(|c| if c == '\t' || c.is_control() { ' ' } else { c })
        .collect();
    if chars.iter().all(|c| c.is_whitespace()) {
        return String::new();
    }
    let col0 = col.saturating_sub(1).min(chars.len());
    let start = col0.saturating_sub(WIDTH / 2);
    let end = (start + WIDTH).min(chars.len());
    let mut shown: String = chars[start..end].iter().collect();
    let mut caret = col0 - start;
    if start > 0 {
        shown.insert_str(0, "...");
        caret += 3;
    }
    if end < chars.len() {
        shown.push_str("...");
    }
    let gutter = line.to_string();
    let mut s = String::new();
    let _ = write!(
        s,
        "\n    {gutter} | {shown}\n    {} | {}^",
        " ".repeat(gutter.len()),
        " ".repeat(caret)
    );
    s
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn toml(text: &str) -> Result<RawConfig> {
        parse(text, ConfigKind::Toml, Path::new("exp.toml"))
    }

    fn json(text: &str) -> Result<RawConfig> {
        parse(text, ConfigKind::Json, Path::new("exp.json"))
    }

    #[test]
    fn kind_from_extension_is_case_insensitive() {
        assert_eq!(
            ConfigKind::from_path(Path::new("a/b.TOML")).unwrap(),
            ConfigKind::Toml
        );
        assert_eq!(
            ConfigKind::from_path(Path::new("b.Json")).unwrap(),
            ConfigKind::Json
        );
        let e = ConfigKind::from_path(Path::new("b.yaml"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("b.yaml") && e.contains(".toml") && e.contains(".json"),
            "{e}"
        );
        let e = ConfigKind::from_path(Path::new("config"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("no extension"), "{e}");
    }

    #[test]
    fn toml_keeps_user_order_and_lines() {
        let raw =
            toml("# comment\nzeta = 1\nalpha = \"x\"\n\n[flag_column]\nflag = [0, 1]\n").unwrap();
        let keys: Vec<_> = raw.keys().collect();
        assert_eq!(keys, ["zeta", "alpha", "flag_column"]);
        assert_eq!(raw.line_of("zeta"), Some(2));
        assert_eq!(raw.line_of("alpha"), Some(3));
        assert_eq!(raw.line_of("flag_column"), Some(5));
        assert_eq!(
            raw.get("flag_column").unwrap()["flag"],
            serde_json::json!([0, 1])
        );
        assert_eq!(raw.kind, ConfigKind::Toml);
    }

    #[test]
    fn toml_syntax_error_names_file_line_and_column() {
        let e = toml("a = 1\ntrim_min = = 2\n").unwrap_err().to_string();
        assert!(e.starts_with("exp.toml, line 2, column "), "{e}");
        assert!(e.contains("TOML syntax error"), "{e}");
        assert!(e.contains("trim_min = = 2"), "{e}");
        let e = toml("a = 1\na = 2\n").unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
    }

    #[test]
    fn toml_special_values() {
        let raw = toml("a = nan\nb = -inf\nc = 1.5\nd = 1.0\n").unwrap();
        assert_eq!(raw.get("a").unwrap(), "nan");
        assert_eq!(raw.get("b").unwrap(), "-inf");
        assert_eq!(raw.get("c").unwrap().as_f64(), Some(1.5));
        assert!(raw.get("d").unwrap().is_f64());
        let e = toml("x = 1\ndescription = 1979-05-27\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("exp.toml, line 2") && e.contains("description"),
            "{e}"
        );
        assert!(e.contains("quotes"), "{e}");
    }

    #[test]
    fn toml_bom_is_ignored() {
        let raw = toml("\u{feff}a = 1\n").unwrap();
        assert_eq!(raw.line_of("a"), Some(1));
    }

    #[test]
    fn json_comments_are_stripped_but_not_inside_strings() {
        let text = r#"{
    // a line comment with "quotes"
    "url": "http://example.org/a//b", /* block
       comment */ "path": "C://data/*x*/", // trailing
    "n": 1 /* inline */
}"#;
        let raw = json(text).unwrap();
        assert_eq!(raw.get("url").unwrap(), "http://example.org/a//b");
        assert_eq!(raw.get("path").unwrap(), "C://data/*x*/");
        assert_eq!(raw.get("n").unwrap(), 1);
        assert_eq!(raw.line_of("url"), Some(3));
        assert_eq!(raw.line_of("path"), Some(4));
        assert_eq!(raw.line_of("n"), Some(5));
        let keys: Vec<_> = raw.keys().collect();
        assert_eq!(keys, ["url", "path", "n"]);
    }

    #[test]
    fn json_escaped_quotes_and_nested_keys() {
        let raw =
            json("{\"a\\\"b\": \"x\\\\\", \"t\": {\"inner\": 1},\n \"z\": [\"k\", {\"q\": 2}]}")
                .unwrap();
        assert_eq!(raw.line_of("a\"b"), Some(1));
        assert_eq!(raw.line_of("inner"), None);
        assert_eq!(raw.line_of("q"), None);
        assert_eq!(raw.line_of("z"), Some(2));
    }

    #[test]
    fn json_syntax_error_names_file_line_and_column() {
        let e = json("{\n  \"a\": 1,\n  \"b\" 2\n}")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("exp.json, line 3, column "), "{e}");
        assert!(e.contains("JSON syntax error"), "{e}");
        assert!(!e.contains(" at line 3 column"), "{e}");
        let e = json("{\"a\": 1 /* never closed\n}")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("exp.json, line 1, column 9") && e.contains("never closed"),
            "{e}"
        );
        let e = json("").unwrap_err().to_string();
        assert!(e.contains("exp.json, line 1"), "{e}");
    }

    #[test]
    fn json_must_be_an_object_without_duplicate_keys() {
        let e = json("[1, 2]").unwrap_err().to_string();
        assert!(e.contains("one object") && e.contains("a list"), "{e}");
        let e = json("{\"a\": 1,\n\"a\": 2}").unwrap_err().to_string();
        assert!(
            e.contains("exp.json, line 2") && e.contains("given twice"),
            "{e}"
        );
        assert!(e.contains("line 1"), "{e}");
    }

    #[test]
    fn long_lines_are_cut_around_the_error() {
        let text = format!("a = [{}1 1]\n", "1, ".repeat(5000));
        let e = toml(&text).unwrap_err().to_string();
        assert!(e.len() < 400, "{e}");
        assert!(e.contains("line 1, column 15006"), "{e}");
        let caret_line = e.lines().last().unwrap();
        let code_line = e.lines().nth(1).unwrap();
        let caret = caret_line.find('^').unwrap();
        assert_eq!(code_line[caret..].chars().next(), Some('1'), "{e}");
    }

    #[test]
    fn line_col_is_char_based_and_clamped() {
        assert_eq!(line_col("ab\ncé d", 6), (2, 3));
        assert_eq!(line_col("ab\ncé d", 5), (2, 2)); // inside 'é': floored
        assert_eq!(line_col("x", 99), (1, 2));
        assert_eq!(line_col("", 0), (1, 1));
    }

    /// Deterministic pseudo-random generator (no extra crates).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[(self.next() as usize) % items.len()]
        }
    }

    /// Random snippets built from config-ish tokens, and plain random text:
    /// parsing must return (Ok or Err) without panicking.
    pub(crate) fn garbage_strings(n: usize) -> Vec<String> {
        let tokens = [
            "{",
            "}",
            "[",
            "]",
            "\"",
            "'",
            "=",
            ",",
            ":",
            ".",
            "/",
            "//",
            "/*",
            "*/",
            "\\",
            "#",
            "\n",
            "\r\n",
            "\t",
            " ",
            "0",
            "1.5",
            "-3",
            "1e999",
            "nan",
            "inf",
            "true",
            "false",
            "null",
            "trim_min",
            "subgroups",
            "\"a\"",
            "é",
            "\u{0}",
            "\u{feff}",
            "[[x]]",
            "[t]",
            "1979-05-27",
            "\"\"\"",
            "'''",
            "\\u00",
            "experiment_id",
            "=\"x\"",
            "\u{1F600}",
        ];
        let mut rng = Lcg(42);
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let len = (rng.next() % 40) as usize;
            let mut s = String::new();
            if i % 3 == 0 {
                for _ in 0..len {
                    let c = char::from_u32((rng.next() % 0x3000) as u32).unwrap_or('?');
                    s.push(c);
                }
            } else {
                for _ in 0..len {
                    s.push_str(rng.pick(&tokens));
                }
            }
            out.push(s);
        }
        out
    }

    #[test]
    fn garbage_never_panics() {
        for s in garbage_strings(600) {
            let _ = toml(&s);
            let _ = json(&s);
            let _ = strip_json_comments(&s);
            for off in [0, 1, 3, s.len(), s.len() + 5] {
                let _ = line_col(&s, off);
            }
        }
    }
}
