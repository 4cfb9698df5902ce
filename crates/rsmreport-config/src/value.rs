//! Stage 1 (config): the one value reader of every kind's configuration
//! file (`build`/`check`'s experiment through `validate`, and `agree`,
//! `classify`, `compare`, `preferences`, `sequence`, `spans`), so that a
//! key of one kind is read, refused and reported like the same key of
//! another. Each rule is here once: [`boolean`], [`whole`], [`number`],
//! [`choice`], [`list`] and [`names`], [`resolve_file`], the id rule
//! [`check_id`] (experiment ids, compare's `comparison_id`, summarize's
//! `--id`) and the wording of a value in a message ([`describe`]).
//! `validate`'s reader keeps only thin wrappers that add the file and line.
//!
//! Reads a parsed [`RawConfig`]; the only file access is
//! [`resolve_file`]'s existence check and [`read_experiment`].

use std::path::{Path, PathBuf};

use super::{ConfigKind, RawConfig};
use serde_json::Value;

/// An error before its place in the file is known: the key and the message
/// (the caller adds the file and line with `RawConfig::at`).
pub type KeyError = (&'static str, String);

/// The longest id (it is part of every output file name; spec 1.1 step 6).
pub const MAX_ID_CHARS: usize = 200;

/// The rule of every id that names output files (`experiment_id`,
/// `comparison_id`, summarize's `--id`): not empty, at most
/// [`MAX_ID_CHARS`] characters, no white space, no `/` or `\`, no leading
/// dot, no control character. `key` is how the user gave it and starts
/// the message.
pub fn check_id(key: &str, id: &str) -> Result<(), String> {
    let n = id.chars().count();
    if id.is_empty() {
        return Err(format!("{key} is empty; it names every output file"));
    }
    if n > MAX_ID_CHARS {
        return Err(format!(
            "{key} is too long: {n} characters, but at most {MAX_ID_CHARS} are allowed (it is \
             part of every output file name)"
        ));
    }
    if id.chars().any(char::is_whitespace) {
        return Err(format!(
            "{key} \"{id}\" contains spaces or other whitespace, which are not allowed; use \
             underscores instead (for example \"{}\")",
            id.split_whitespace().collect::<Vec<_>>().join("_")
        ));
    }
    if id.contains('/') || id.contains('\\') {
        return Err(format!(
            "{key} \"{id}\" contains a / or \\, which cannot be part of a file name"
        ));
    }
    if id.starts_with('.') {
        return Err(format!(
            "{key} \"{id}\" starts with a dot, which would hide the output files"
        ));
    }
    if id.chars().any(char::is_control) {
        return Err(format!(
            "{key} contains a control character, which cannot be part of a file name"
        ));
    }
    Ok(())
}

/// The id under `key` (`experiment_id`, `comparison_id`): a text that
/// passes [`check_id`]. Absent (or JSON `null`) is `None`.
pub fn id(raw: &RawConfig, key: &'static str) -> Result<Option<String>, KeyError> {
    match raw.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => {
            check_id(key, s).map_err(|m| (key, m))?;
            Ok(Some(s.clone()))
        }
        Some(other) => Err((
            key,
            format!(
                "{key} must be a text in quotes (for example {key} = \"{}\"), but it is {}",
                if key == "comparison_id" {
                    "v2_vs_v3"
                } else {
                    "my_experiment"
                },
                describe(other)
            ),
        )),
    }
}

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
                describe(other)
            ),
        )),
    }
}

/// Parses a kind's TOML configuration, refuses keys not in `keys`, and
/// reads it with `values`; an error names the file, the line and the key.
pub fn parse_toml<T>(
    text: &str,
    path: &Path,
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
    text(raw, key)?.ok_or_else(|| missing(key, example))
}

/// The error of a required key that is absent; it shows `example` (a TOML
/// value as written).
pub fn missing(key: &'static str, example: &str) -> KeyError {
    (
        key,
        format!("the required key {key} is missing (for example {key} = {example})"),
    )
}

/// The folder of a configuration file, where [`resolve_file`] looks first
/// (empty for a bare file name: the current folder, as a relative path).
pub fn folder(config: &Path) -> &Path {
    config.parent().unwrap_or(Path::new(""))
}

/// The text of a kind's experiment file, or an error that says whether it
/// is missing or unreadable.
pub fn read_experiment(path: &Path) -> anyhow::Result<String> {
    rsmreport_core::in_memory::read_to_string(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            anyhow::anyhow!("experiment file not found: {}", path.display())
        }
        _ => anyhow::anyhow!("cannot read the experiment file {}: {e}", path.display()),
    })
}

/// `raw[key]`, one of `allowed` (default `default` when absent), refused
/// with the closest allowed value.
pub fn choice(
    raw: &RawConfig,
    key: &'static str,
    allowed: &[&str],
    default: &str,
) -> Result<String, KeyError> {
    let v = text(raw, key)?.unwrap_or_else(|| default.to_string());
    if allowed.contains(&v.as_str()) {
        return Ok(v);
    }
    let hint = super::closest(&v, allowed.iter().copied())
        .map_or_else(String::new, |c| format!("; did you mean \"{c}\"?"));
    let list: Vec<String> = allowed.iter().map(|a| format!("\"{a}\"")).collect();
    Err((
        key,
        format!(
            "{key} must be one of {}, but it is \"{v}\"{hint}",
            list.join(", ")
        ),
    ))
}

/// `raw[key]` as a number (absent: `None`).
pub fn number(raw: &RawConfig, key: &'static str) -> Result<Option<f64>, KeyError> {
    match raw.get(key) {
        None => Ok(None),
        Some(Value::Number(n)) => Ok(n.as_f64()),
        Some(other) => Err((
            key,
            format!("{key} must be a number, but it is {}", describe(other)),
        )),
    }
}

/// A true/false setting: a boolean, or the text "true"/"false" in any case
/// (an rsmeval JSON config may hold either). Absent (or `null`) is `None`;
/// anything else (`1`, `"yes"`) is an error naming the key.
pub fn boolean(raw: &RawConfig, key: &'static str) -> Result<Option<bool>, KeyError> {
    let Some(v) = raw.get(key).filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    match coerce_bool(v) {
        Some(b) => Ok(Some(b)),
        None => Err((
            key,
            format!(
                "{key} only accepts true or false, but it is {}",
                describe(v)
            ),
        )),
    }
}

/// A whole number from `lo` to `hi` under `key` (a TOML integer), `None`
/// when the key is absent (or `null`); anything else is an error naming
/// the key and the range.
pub fn whole(
    raw: &RawConfig,
    key: &'static str,
    lo: u64,
    hi: u64,
) -> Result<Option<u64>, KeyError> {
    match raw.get(key).filter(|v| !v.is_null()) {
        None => Ok(None),
        Some(v) => whole_value(v, key, lo, hi).map(Some).map_err(|m| (key, m)),
    }
}

/// The rule of [`whole`] for a value already taken out of its table
/// (`key` as the message names it, e.g. `intervals.replicates`).
pub fn whole_value(v: &Value, key: &str, lo: u64, hi: u64) -> Result<u64, String> {
    match v.as_u64() {
        Some(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(format!(
            "{key} must be a whole number from {lo} to {hi}, but it is {}",
            describe(v)
        )),
    }
}

/// A list of names: a list of texts, or one comma-separated text (each
/// piece stripped); no name empty. `None` when the key is absent (or
/// `null`). Repeats are allowed (see [`names`]).
pub fn list(raw: &RawConfig, key: &'static str) -> Result<Option<Vec<String>>, KeyError> {
    let Some(v) = raw.get(key).filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let Some(items) = coerce_list(v) else {
        let (a, b) = example_list(key);
        return Err((
            key,
            format!(
                "{key} must be a list of texts (for example {key} = [\"{a}\", \"{b}\"]) or one \
                 comma-separated text (\"{a}, {b}\"), but it is {}",
                describe(v)
            ),
        ));
    };
    let items = items.map_err(|(index, bad)| {
        (
            key,
            format!(
                "{key} must only hold texts, but item {} is {}",
                index + 1,
                describe(bad)
            ),
        )
    })?;
    if let Some(pos) = items.iter().position(|s| s.trim().is_empty()) {
        return Err((
            key,
            format!(
                "{key} has an empty name at position {} (check for a doubled or trailing comma)",
                pos + 1
            ),
        ));
    }
    Ok(Some(items))
}

/// A list of column names: a [`list`] in which no name appears twice.
pub fn names(raw: &RawConfig, key: &'static str) -> Result<Option<Vec<String>>, KeyError> {
    let Some(items) = list(raw, key)? else {
        return Ok(None);
    };
    if let Some((_, dup)) = items
        .iter()
        .enumerate()
        .find(|(i, s)| items[..*i].contains(s))
    {
        return Err((
            key,
            format!("{key} lists the column \"{dup}\" more than once; list each column once"),
        ));
    }
    Ok(Some(items))
}

/// The file `value` of the key `key` names (`what`: "predictions file"),
/// looked up in `dir` (the configuration file's folder) first, then in the
/// current folder; an absolute path as it is. The path found is returned as
/// `dir` forms it (a relative `dir` gives a relative path). The error
/// names a folder given for a file, or says where it looked.
pub fn resolve_file(key: &str, value: &str, what: &str, dir: &Path) -> Result<PathBuf, String> {
    let given = Path::new(value);
    // A table given as data (the Python module): read by its name.
    if rsmreport_core::in_memory::is_in_memory(given) {
        return Ok(given.to_path_buf());
    }
    let cwd = std::env::current_dir().ok();
    // (the path tried, the path shown in a message: absolute when possible)
    let mut candidates: Vec<(PathBuf, PathBuf)> = Vec::new();
    if given.is_absolute() {
        candidates.push((given.to_path_buf(), given.to_path_buf()));
    } else {
        let beside = dir.join(given);
        let shown = match &cwd {
            Some(c) if beside.is_relative() => c.join(&beside),
            _ => beside.clone(),
        };
        candidates.push((beside, shown));
        if let Some(c) = &cwd {
            let here = c.join(given);
            if candidates[0].1 != here {
                candidates.push((here.clone(), here));
            }
        }
    }
    if let Some((found, _)) = candidates.iter().find(|(p, _)| p.is_file()) {
        return Ok(found.clone());
    }
    if let Some((_, folder)) = candidates.iter().find(|(p, _)| p.is_dir()) {
        return Err(format!(
            "{key} = \"{value}\" is a folder ({}), but it must name a {what}",
            folder.display()
        ));
    }
    let place = match candidates.as_slice() {
        _ if given.is_absolute() => format!("looked for {}", given.display()),
        [(_, beside), (_, here)] => format!(
            "looked for it relative to the config file's folder ({}) and to the current folder \
             ({})",
            beside.display(),
            here.display()
        ),
        [(_, only)] if cwd.is_some() => format!(
            "looked for {} (relative to the config file's folder, which is also the current \
             folder)",
            only.display()
        ),
        [(_, only)] => format!(
            "looked for {} (relative to the config file's folder; the current folder could not \
             be determined)",
            only.display()
        ),
        _ => "the current folder could not be determined".to_string(),
    };
    Err(format!("{what} not found: {key} = \"{value}\"; {place}"))
}

/// How a value reads in a message: `the text "abc"`, `the number 5`, ...
pub fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the text \"{s}\""),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "a table".into(),
    }
}

/// Spec 1.1 step 2: a real boolean, or text that is true/false in any case
/// (surrounding whitespace ignored). Anything else (1, "yes") is `None`.
pub(crate) fn coerce_bool(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// Spec 1.1 step 1: a list of texts as is, or one text split on commas with
/// each piece stripped. `None`: not a list or text; `Err`: a non-text item
/// (its index and value).
#[allow(clippy::type_complexity)]
pub(crate) fn coerce_list(v: &Value) -> Option<Result<Vec<String>, (usize, &Value)>> {
    match v {
        Value::String(s) => Some(Ok(s.split(',').map(|p| p.trim().to_string()).collect())),
        Value::Array(items) => Some(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| match item {
                    Value::String(s) => Ok(s.clone()),
                    other => Err((i, other)),
                })
                .collect(),
        ),
        _ => None,
    }
}

/// The two example items of a list key's message.
fn example_list(key: &str) -> (&'static str, &'static str) {
    match key {
        "subgroups" => ("L1", "gender"),
        "custom_sections" => ("notes.md", "appendix.html"),
        "general_sections" | "section_order" => ("evaluation", "consistency"),
        "other_human_score_columns" => ("h3", "h4"),
        "rater_columns" => ("rater_1", "rater_2"),
        "category_columns" => ("n_positive", "n_negative"),
        "system_columns" => ("v6", "v7"),
        "annotator_columns" => ("judge_model", "judge_2"),
        "subset_columns" => ("source", "language"),
        "target_models" | "reference_models" => ("model_a", "model_b"),
        _ => ("a", "b"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ConfigKind;
    use std::fs;

    fn raw(text: &str, kind: ConfigKind) -> RawConfig {
        crate::parse(text, kind, Path::new("x")).unwrap()
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
        assert_eq!(boolean(&r, "a").unwrap(), None);
        assert_eq!(names(&r, "a").unwrap(), None);
        assert_eq!(id(&r, "a").unwrap(), None);
    }

    #[test]
    fn boolean_takes_true_false_and_their_texts_only() {
        let r = raw(
            "a = true\nb = \" FALSE \"\nc = \"True\"\nd = 1\ne = \"yes\"\n",
            ConfigKind::Toml,
        );
        assert_eq!(boolean(&r, "a").unwrap(), Some(true));
        assert_eq!(boolean(&r, "b").unwrap(), Some(false));
        assert_eq!(boolean(&r, "c").unwrap(), Some(true));
        assert_eq!(boolean(&r, "missing").unwrap(), None);
        assert_eq!(
            boolean(&r, "d").unwrap_err(),
            (
                "d",
                "d only accepts true or false, but it is the number 1".into()
            )
        );
        assert_eq!(
            boolean(&r, "e").unwrap_err().1,
            "e only accepts true or false, but it is the text \"yes\""
        );
    }

    #[test]
    fn lists_take_arrays_and_comma_text_and_names_refuse_repeats() {
        let r = raw(
            "a = [\"x\", \"y\"]\nb = \" x , y \"\nc = []\nd = 3\ne = [\"x\", 2]\n\
             f = \"x,,y\"\ng = \"x, x\"\n",
            ConfigKind::Toml,
        );
        assert_eq!(names(&r, "a").unwrap().unwrap(), ["x", "y"]);
        assert_eq!(names(&r, "b").unwrap().unwrap(), ["x", "y"]);
        assert_eq!(names(&r, "c").unwrap().unwrap(), Vec::<String>::new());
        assert_eq!(
            names(&r, "d").unwrap_err().1,
            "d must be a list of texts (for example d = [\"a\", \"b\"]) or one comma-separated \
             text (\"a, b\"), but it is the number 3"
        );
        assert_eq!(
            names(&r, "e").unwrap_err().1,
            "e must only hold texts, but item 2 is the number 2"
        );
        assert_eq!(
            names(&r, "f").unwrap_err().1,
            "f has an empty name at position 2 (check for a doubled or trailing comma)"
        );
        assert_eq!(list(&r, "g").unwrap().unwrap(), ["x", "x"]);
        assert_eq!(
            names(&r, "g").unwrap_err().1,
            "g lists the column \"x\" more than once; list each column once"
        );
    }

    #[test]
    fn resolve_file_looks_beside_the_config_then_here() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("p.csv"), "x\n").unwrap();
        fs::create_dir(dir.path().join("folder.csv")).unwrap();
        let found = resolve_file("k", "p.csv", "data file", dir.path()).unwrap();
        assert_eq!(found, dir.path().join("p.csv"));
        // The current folder (the crate root when tests run) second.
        let found = resolve_file("k", "Cargo.toml", "data file", dir.path()).unwrap();
        assert_eq!(found, std::env::current_dir().unwrap().join("Cargo.toml"));
        // A relative folder gives a relative path, as before.
        assert_eq!(
            resolve_file("k", "Cargo.toml", "data file", Path::new("")).unwrap(),
            Path::new("Cargo.toml")
        );
        let e = resolve_file("k", "folder.csv", "data file", dir.path()).unwrap_err();
        assert_eq!(
            e,
            format!(
                "k = \"folder.csv\" is a folder ({}), but it must name a data file",
                dir.path().join("folder.csv").display()
            )
        );
        let e = resolve_file("k", "nope.csv", "data file", dir.path()).unwrap_err();
        assert!(
            e.starts_with("data file not found: k = \"nope.csv\"; looked for it relative to")
                && e.contains(&dir.path().join("nope.csv").display().to_string()),
            "{e}"
        );
        let abs = dir.path().join("nope.csv").display().to_string();
        let e = resolve_file("k", &abs, "data file", Path::new("")).unwrap_err();
        assert_eq!(
            e,
            format!("data file not found: k = \"{abs}\"; looked for {abs}")
        );
    }

    #[test]
    fn check_id_rules_and_their_wording() {
        assert!(check_id("experiment_id", "exp_1.v2-final").is_ok());
        assert!(check_id("experiment_id", &"a".repeat(MAX_ID_CHARS)).is_ok());
        let bad = |id: &str| check_id("--id", id).unwrap_err();
        assert_eq!(bad(""), "--id is empty; it names every output file");
        assert_eq!(
            bad(&"a".repeat(250)),
            "--id is too long: 250 characters, but at most 200 are allowed (it is part of \
             every output file name)"
        );
        assert_eq!(
            bad("my exp"),
            "--id \"my exp\" contains spaces or other whitespace, which are not allowed; use \
             underscores instead (for example \"my_exp\")"
        );
        assert_eq!(
            bad("../x"),
            "--id \"../x\" contains a / or \\, which cannot be part of a file name"
        );
        assert_eq!(
            bad(".x"),
            "--id \".x\" starts with a dot, which would hide the output files"
        );
        assert_eq!(
            bad("a\u{1}b"),
            "--id contains a control character, which cannot be part of a file name"
        );
    }

    /// The bad ids of the id tests, as TOML texts, and the message
    /// (after the file and line) that every kind gives for them.
    fn bad_ids() -> Vec<(String, String)> {
        let long = "x".repeat(250);
        [
            ("my exp", check_id("experiment_id", "my exp")),
            (long.as_str(), check_id("experiment_id", &long)),
            ("../x", check_id("experiment_id", "../x")),
            (".x", check_id("experiment_id", ".x")),
            ("a\\u0001b", check_id("experiment_id", "a\u{1}b")),
            ("", check_id("experiment_id", "")),
        ]
        .into_iter()
        .map(|(toml, expected)| (toml.to_string(), expected.unwrap_err()))
        .collect()
    }

    /// The message after `<file>, line 1: `.
    fn after_line_1(e: anyhow::Error) -> String {
        let e = format!("{e:#}");
        match e.split_once(", line 1: ") {
            Some((_, message)) => message.to_string(),
            None => panic!("no line 1 in: {e}"),
        }
    }

    /// Every kind's experiment file, with `id` as its experiment_id (the
    /// files they name exist).
    fn every_kind(dir: &Path, id: &str) -> Vec<(&'static str, anyhow::Result<()>)> {
        let exp = dir.join("exp.toml");
        let build = format!(
            "experiment_id = \"{id}\"\npredictions_file = \"p.csv\"\n\
             system_score_column = \"sys\"\ntrim_min = 1\ntrim_max = 6\n"
        );
        let agree = format!(
            "experiment_id = \"{id}\"\nannotations_file = \"p.csv\"\nitem_column = \"item\"\n\
             rater_columns = [\"a1\", \"a2\"]\n"
        );
        let classify = format!(
            "experiment_id = \"{id}\"\npredictions_file = \"p.csv\"\ngold_column = \"gold\"\n\
             system_columns = [\"v7\"]\n"
        );
        let preferences = format!(
            "experiment_id = \"{id}\"\npairs_file = \"p.csv\"\nreference_column = \"ref\"\n\
             annotator_columns = [\"judge\"]\n"
        );
        vec![
            (
                "build",
                crate::parse(&build, ConfigKind::Toml, &exp)
                    .and_then(|raw| crate::validate(raw, &exp))
                    .map(drop),
            ),
            ("agree", crate::agree::parse(&agree, &exp).map(drop)),
            (
                "classify",
                crate::classify::parse(&classify, &exp).map(drop),
            ),
            (
                "preferences",
                crate::preferences::parse(&preferences, &exp).map(drop),
            ),
        ]
    }

    #[test]
    fn every_kind_refuses_the_same_bad_ids_with_the_same_message() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("p.csv"), "x\n").unwrap();
        for (kind, result) in every_kind(dir.path(), "fine_id") {
            result.unwrap_or_else(|e| panic!("{kind}: {e:#}"));
        }
        for (toml, expected) in bad_ids() {
            for (kind, result) in every_kind(dir.path(), &toml) {
                let e = result.expect_err(&format!("{kind} accepted {toml:?}"));
                assert_eq!(after_line_1(e), expected, "{kind}, id {toml:?}");
            }
            // compare's comparison_id: the same rule under its own key.
            let e = crate::compare::parse(
                &format!("comparison_id = \"{toml}\"\n"),
                Path::new("compare.toml"),
                &[],
            )
            .unwrap_err();
            assert_eq!(
                after_line_1(e),
                expected.replace("experiment_id", "comparison_id"),
                "compare, id {toml:?}"
            );
        }
    }

    #[test]
    fn a_non_text_id_has_one_message() {
        let r = raw(
            "experiment_id = 12\ncomparison_id = [\"a\"]\n",
            ConfigKind::Toml,
        );
        assert_eq!(
            id(&r, "experiment_id").unwrap_err().1,
            "experiment_id must be a text in quotes (for example experiment_id = \
             \"my_experiment\"), but it is the number 12"
        );
        assert_eq!(
            id(&r, "comparison_id").unwrap_err().1,
            "comparison_id must be a text in quotes (for example comparison_id = \"v2_vs_v3\"), \
             but it is a list"
        );
    }
}
