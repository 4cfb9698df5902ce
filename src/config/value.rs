//! Stage 1 (config): the value readers the report kinds' configuration
//! files share (`agree`, `compare`, `preferences`), so a key of one kind is
//! read and reported like the same key of another. Reads a parsed
//! [`RawConfig`]; no file access.
//!
//! `build`'s experiment reader (`validate::Reader`) has its own messages
//! (with an example value per key) and is not folded in here.

use super::{ConfigKind, RawConfig};
use serde_json::Value;

/// An error before its place in the file is known: the key and the message
/// (the caller adds the file and line with `RawConfig::at`).
pub type KeyError = (&'static str, String);

/// A non-empty text. Absent (or JSON `null`, which the TOML files of these
/// kinds cannot hold) is `None`; anything else (a number, a list, a text of
/// white space only) is an error naming the key and what it holds.
pub fn text(raw: &RawConfig, key: &'static str) -> Result<Option<String>, KeyError> {
    match raw.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.clone())),
        Some(other) => Err((
            key,
            format!(
                "{key} must be a non-empty text, but it is {}",
                super::validate::describe(other)
            ),
        )),
    }
}

/// Parses a kind's TOML configuration, refuses keys not in `keys`, and
/// reads it with `values`; an error names the file, the line and the key.
pub fn parse_toml<T>(
    text: &str,
    path: &std::path::Path,
    keys: &[&str],
    values: impl FnOnce(&RawConfig) -> Result<T, KeyError>,
) -> anyhow::Result<T> {
    let raw = super::parse(text, ConfigKind::Toml, path)?;
    raw.check_keys(keys)?;
    values(&raw).map_err(|(key, msg)| anyhow::anyhow!("{}: {msg}", raw.at(key)))
}

/// A required non-empty text; the error shows `example` (a TOML value as
/// written, e.g. `"gold"`).
pub fn required(raw: &RawConfig, key: &'static str, example: &str) -> Result<String, KeyError> {
    text(raw, key)?.ok_or_else(|| {
        (
            key,
            format!("the required key {key} is missing (for example {key} = {example})"),
        )
    })
}

/// The rules of an experiment id (it prefixes every file name): no white
/// space, and the file-name rules of `schema::check_file_name_part`.
pub fn experiment_id(id: String) -> Result<String, KeyError> {
    if id.chars().any(char::is_whitespace) {
        return Err((
            "experiment_id",
            format!(
                "experiment_id \"{id}\" contains spaces or other whitespace; use underscores \
                 instead"
            ),
        ));
    }
    crate::schema::check_file_name_part(&id, "experiment_id")
        .map_err(|e| ("experiment_id", e.to_string()))?;
    Ok(id)
}

/// The text of a kind's experiment file, or an error that says whether it
/// is missing or unreadable.
pub fn read_experiment(path: &std::path::Path) -> anyhow::Result<String> {
    std::fs::read_to_string(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            anyhow::anyhow!("experiment file not found: {}", path.display())
        }
        _ => anyhow::anyhow!("cannot read the experiment file {}: {e}", path.display()),
    })
}

/// The file `value` of the key `key` names, looked up beside the
/// configuration file `config` first, then in the current folder; the
/// error says where it looked.
pub fn resolve_file(
    key: &str,
    value: &str,
    config: &std::path::Path,
) -> Result<std::path::PathBuf, String> {
    let given = std::path::Path::new(value);
    let mut candidates = vec![];
    if given.is_absolute() {
        candidates.push(given.to_path_buf());
    } else {
        let dir = config.parent().unwrap_or(std::path::Path::new(""));
        candidates.push(dir.join(given));
        if let Ok(cwd) = std::env::current_dir() {
            candidates.push(cwd.join(given));
        }
    }
    if let Some(found) = candidates.iter().find(|c| c.is_file()) {
        return Ok(found.clone());
    }
    let looked: Vec<String> = candidates.iter().map(|c| c.display().to_string()).collect();
    Err(format!(
        "{key} = \"{value}\" does not exist (looked for {})",
        looked.join(" and ")
    ))
}

/// A list of column names under `key`: a TOML array of texts or one
/// comma-separated text; no name empty, none twice. `None` when the key
/// is absent.
pub fn names(raw: &RawConfig, key: &'static str) -> Result<Option<Vec<String>>, KeyError> {
    let bad = |what: String| {
        (
            key,
            format!(
                "{key} must be a list of column names (for example {key} = [\"a\", \"b\"]), but \
                 {what}"
            ),
        )
    };
    let items: Vec<String> = match raw.get(key) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) => s.split(',').map(|p| p.trim().to_string()).collect(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                other => Err(bad(format!(
                    "it holds {}",
                    super::validate::describe(other)
                ))),
            })
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(bad(format!("it is {}", super::validate::describe(other)))),
    };
    if items.iter().any(|s| s.trim().is_empty()) {
        return Err(bad("it holds an empty name".into()));
    }
    if let Some((_, dup)) = items
        .iter()
        .enumerate()
        .find(|(i, s)| items[..*i].contains(s))
    {
        return Err((
            key,
            format!("{key} lists the column \"{dup}\" more than once"),
        ));
    }
    Ok(Some(items))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ConfigKind;
    use std::path::Path;

    fn raw(text: &str, kind: ConfigKind) -> RawConfig {
        crate::config::parse(text, kind, Path::new("x")).unwrap()
    }

    #[test]
    fn text_reads_non_empty_texts_and_names_the_key_otherwise() {
        let r = raw("a = \"x\"\nb = \"  \"\nc = 3\n", ConfigKind::Toml);
        assert_eq!(text(&r, "a").unwrap().as_deref(), Some("x"));
        assert_eq!(text(&r, "missing").unwrap(), None);
        let (key, msg) = text(&r, "b").unwrap_err();
        assert_eq!(key, "b");
        assert_eq!(msg, "b must be a non-empty text, but it is the text \"  \"");
        let (_, msg) = text(&r, "c").unwrap_err();
        assert_eq!(msg, "c must be a non-empty text, but it is the number 3");
    }

    #[test]
    fn json_null_is_absent() {
        let r = raw("{\"a\": null}", ConfigKind::Json);
        assert_eq!(text(&r, "a").unwrap(), None);
    }
}
