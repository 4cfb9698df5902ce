//! Stage 1 (config): the keys every experiment kind accepts, with one
//! meaning and one reader: `experiment_id` (the id rule of
//! [`value::check_id`]), `description` (free text, Markdown, shown at the
//! top of the report), `model_version` (free text: the label under which
//! a report is archived, shown in the report's header and kept in its
//! summary), `file_format` (the format of the tables in `output/`),
//! `[intervals]` (the bootstrap of `uncertainty.md`: level, replicates,
//! seed, unit) and `[[gates]]` / `gates_preset` (quality gates: the
//! tables as written, which the kind validates against its own
//! statistics; presets exist only where the kind has one).
//!
//! `build`'s experiment (`validate`) calls the single readers
//! ([`description`], [`model_version`], [`file_format`], [`intervals`]);
//! the other kinds read them all at once with [`parse_toml`], which
//! refuses a key that is neither common nor the kind's own with the
//! closest valid key. Pure: reads a parsed [`RawConfig`], no file.

use std::path::Path;

use serde_json::Value;

use super::intervals::{self, Intervals};
use super::value::{self, describe, KeyError};
use super::RawConfig;
use rsmreport_core::schema::FileFormat;

/// The keys every experiment kind accepts ([`Common`]).
pub const KEYS: [&str; 7] = [
    "experiment_id",
    "description",
    "model_version",
    "file_format",
    "intervals",
    "gates",
    "gates_preset",
];

/// The common keys of one experiment file, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct Common {
    pub experiment_id: String,
    /// Empty when absent.
    pub description: String,
    pub model_version: Option<String>,
    pub file_format: FileFormat,
    /// `None`: `intervals = false`.
    pub intervals: Option<Intervals>,
    /// `[[gates]]` as written (an array of tables), validated by the kind
    /// against its statistics before any data is read.
    pub gates: Option<Value>,
}

/// How a kind reads the common keys.
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    /// The kind's name, for messages (`classify`).
    pub kind: &'static str,
    /// An id shown when `experiment_id` is missing (`"intent_v7"`).
    pub id_example: &'static str,
    /// What the kind's bootstrap resamples (`items`, `pairs`).
    pub units: &'static str,
    /// The interval settings when the table leaves a key out.
    pub intervals: Intervals,
}

impl Rules {
    /// The rules of kind `kind` with the default interval settings.
    pub const fn new(kind: &'static str, id_example: &'static str, units: &'static str) -> Rules {
        Rules {
            kind,
            id_example,
            units,
            intervals: Intervals::DEFAULT,
        }
    }
}

/// Every key of a kind's experiment file: [`KEYS`], then the kind's `own`.
pub fn keys(own: &[&'static str]) -> Vec<&'static str> {
    KEYS.iter()
        .chain(own.iter().filter(|k| !KEYS.contains(k)))
        .copied()
        .collect()
}

/// Parses a kind's TOML experiment file: refuses a key that is neither
/// common nor in `own` (with the closest valid key), reads the common
/// keys by `rules`, then the kind's own with `values`. An error names the
/// file, the line and the key.
pub fn parse_toml<T>(
    text: &str,
    path: &Path,
    own: &[&'static str],
    rules: &Rules,
    values: impl FnOnce(&RawConfig, Common) -> Result<T, KeyError>,
) -> anyhow::Result<T> {
    value::parse_toml(text, path, &keys(own), |raw| {
        let common = read(raw, rules)?;
        values(raw, common)
    })
}

/// The common keys of `raw` (a kind other than `build`, whose presets
/// `validate` reads with its gates).
pub fn read(raw: &RawConfig, rules: &Rules) -> Result<Common, KeyError> {
    no_preset(raw, rules.kind)?;
    Ok(Common {
        experiment_id: experiment_id(raw, rules.id_example)?,
        description: description(raw)?,
        model_version: model_version(raw)?,
        file_format: file_format(raw)?,
        intervals: intervals::parse_for_with(raw.get("intervals"), rules.units, rules.intervals)
            .map_err(|m| ("intervals", m))?,
        gates: gates(raw)?,
    })
}

/// `experiment_id`: required, and the id rule of every kind; `example` is
/// shown when it is missing.
pub fn experiment_id(raw: &RawConfig, example: &str) -> Result<String, KeyError> {
    value::id(raw, "experiment_id")?
        .ok_or_else(|| value::missing("experiment_id", &format!("\"{example}\"")))
}

/// A free text under `key` (absent or `null`: `None`); the example is
/// shown when it is not a text.
fn free_text(
    raw: &RawConfig,
    key: &'static str,
    example: &str,
) -> Result<Option<String>, KeyError> {
    match raw.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err((
            key,
            format!(
                "{key} must be a text in quotes (for example {key} = \"{example}\"), but it is {}",
                describe(other)
            ),
        )),
    }
}

/// `description`: free text (Markdown) shown at the top of the report;
/// empty when absent.
pub fn description(raw: &RawConfig) -> Result<String, KeyError> {
    Ok(free_text(raw, "description", "what this report is about")?.unwrap_or_default())
}

/// `model_version`: free text, the label under which a report is
/// archived (decisions.md); shown in the report's header.
pub fn model_version(raw: &RawConfig) -> Result<Option<String>, KeyError> {
    free_text(raw, "model_version", "v1.2")
}

/// `file_format`: the format of the tables in `output/`, `csv` (the
/// default), `tsv` or `xlsx`, in any case.
pub fn file_format(raw: &RawConfig) -> Result<FileFormat, KeyError> {
    let key = "file_format";
    let Some(text) = free_text(raw, key, "csv")? else {
        return Ok(FileFormat::Csv);
    };
    match text.trim().to_ascii_lowercase().as_str() {
        "csv" => Ok(FileFormat::Csv),
        "tsv" => Ok(FileFormat::Tsv),
        "xlsx" => Ok(FileFormat::Xlsx),
        _ => Err((
            key,
            format!(
                "file_format must be \"csv\", \"tsv\" or \"xlsx\" (the format of the \
                 intermediate tables), but it is \"{text}\""
            ),
        )),
    }
}

/// `[intervals]` of `build`, whose bootstrap may resample test takers
/// (`candidate_column`): [`intervals::parse`].
pub fn intervals(
    raw: &RawConfig,
    candidate_column: Option<&str>,
) -> Result<Option<Intervals>, KeyError> {
    intervals::parse(raw.get("intervals"), candidate_column).map_err(|m| ("intervals", m))
}

/// `[[gates]]`: an array of tables, as written (the kind validates each
/// against its statistics).
pub fn gates(raw: &RawConfig) -> Result<Option<Value>, KeyError> {
    match raw.get("gates") {
        None | Some(Value::Null) => Ok(None),
        Some(g @ Value::Array(_)) => Ok(Some(g.clone())),
        Some(other) => Err((
            "gates",
            format!(
                "gates must be an array of [[gates]] tables, but it is {}",
                describe(other)
            ),
        )),
    }
}

/// `gates_preset` of a kind that has no preset: refused, saying which
/// kind has one.
fn no_preset(raw: &RawConfig, kind: &str) -> Result<(), KeyError> {
    match raw.get("gates_preset") {
        None | Some(Value::Null) => Ok(()),
        Some(v) => Err((
            "gates_preset",
            format!(
                "gates_preset is {}, but {kind} has no gate presets (the preset williamson2012 \
                 is for build's human-machine scores); write [[gates]] tables with this kind's \
                 statistics instead",
                describe(v)
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: Rules = Rules::new("classify", "intent_v7", "items");

    fn run(text: &str) -> anyhow::Result<Common> {
        parse_toml(text, Path::new("exp.toml"), &["own"], &RULES, |_, c| Ok(c))
    }

    fn err(text: &str) -> String {
        format!("{:#}", run(text).unwrap_err())
    }

    #[test]
    fn defaults_and_every_common_key() {
        let c = run("experiment_id = \"x\"\n").unwrap();
        assert_eq!(c.experiment_id, "x");
        assert_eq!((c.description.as_str(), c.model_version), ("", None));
        assert_eq!(c.file_format, FileFormat::Csv);
        assert_eq!(c.intervals, Some(Intervals::default()));
        assert_eq!(c.gates, None);
        let c = run(
            "experiment_id = \"x\"\ndescription = \"*new*\"\nmodel_version = \"2.1\"\n\
             file_format = \" XLSX \"\nown = 1\n[intervals]\nseed = 3\n[[gates]]\nmetric = \"m\"\n",
        )
        .unwrap();
        assert_eq!(c.description, "*new*");
        assert_eq!(c.model_version.as_deref(), Some("2.1"));
        assert_eq!(c.file_format, FileFormat::Xlsx);
        assert_eq!(c.intervals.unwrap().seed, 3);
        assert!(matches!(c.gates, Some(Value::Array(ref a)) if a.len() == 1));
        assert!(run("experiment_id = \"x\"\nintervals = false\n")
            .unwrap()
            .intervals
            .is_none());
        let seeded = Rules {
            intervals: Intervals {
                seed: 12345,
                ..Intervals::default()
            },
            ..RULES
        };
        let c = parse_toml(
            "experiment_id = \"x\"\n[intervals]\nlevel = 0.9\n",
            Path::new("e.toml"),
            &[],
            &seeded,
            |_, c| Ok(c),
        )
        .unwrap();
        assert_eq!(c.intervals.map(|i| (i.level, i.seed)), Some((0.9, 12345)));
    }

    #[test]
    fn errors_name_the_line_the_key_and_what_is_expected() {
        let e = err("experiment_id = \"x\"\nmodel_verison = \"1\"\n");
        assert!(
            e.contains("exp.toml, line 2: unknown key model_verison; did you mean model_version?"),
            "{e}"
        );
        let e = err("description = \"d\"\n");
        assert!(
            e.contains("the required key experiment_id is missing (for example experiment_id = \"intent_v7\")"),
            "{e}"
        );
        let e = err("experiment_id = \"a b\"\n");
        assert!(e.contains("contains spaces"), "{e}");
        let e = err("experiment_id = \"x\"\nmodel_version = 3\n");
        assert!(
            e.contains("line 2: model_version must be a text in quotes")
                && e.contains("the number 3"),
            "{e}"
        );
        let e = err("experiment_id = \"x\"\nfile_format = \"xls\"\n");
        assert!(
            e.contains("\"csv\", \"tsv\" or \"xlsx\"") && e.contains("\"xls\""),
            "{e}"
        );
        let e = err("experiment_id = \"x\"\ngates = 3\n");
        assert!(e.contains("array of [[gates]] tables"), "{e}");
        let e = err("experiment_id = \"x\"\ngates_preset = \"williamson2012\"\n");
        assert!(
            e.contains("line 2") && e.contains("classify has no gate presets"),
            "{e}"
        );
        let e = err("experiment_id = \"x\"\n[intervals]\nunit = \"candidate\"\n");
        assert!(e.contains("resamples items, not test takers"), "{e}");
    }
}
