//! Stage 1 (config): the experiment file of `rsmreport preferences`
//! (`spec/preferences.md` section 1): the pairs file, the id, text,
//! reference, annotator and subset columns, and the `[intervals]` table as
//! in `uncertainty.md` (pairs are the units). Unknown keys are refused
//! with the file, the line and the closest valid key.
//!
//! Pure apart from [`load`] (which reads the experiment file) and the
//! check that the pairs file exists: never reads the pairs, writes nothing.

use super::value::{folder, names, required, resolve_file, text, KeyError as Fail};
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::Value;

use super::common::{Common, Rules};
use super::intervals::Intervals;
use super::{FileFormat, RawConfig};

/// The keys of a preferences experiment file beyond the common ones
/// ([`super::common::KEYS`]), in the spec's order.
pub const OWN_KEYS: [&str; 11] = [
    "pairs_file",
    "id_column",
    "text_a_column",
    "text_b_column",
    "reference_column",
    "annotator_columns",
    "subset_columns",
    "model_a_column",
    "model_b_column",
    "target_models",
    "reference_models",
];

/// How `preferences` reads the common keys: pairs are the resampled units.
const RULES: Rules = Rules::new("preferences", "judge_audit", "pairs");

/// A validated preferences experiment.
#[derive(Clone, Debug, PartialEq)]
pub struct PreferencesConfig {
    pub experiment_id: String,
    /// Free text (Markdown) shown at the top of the report; empty when
    /// absent.
    pub description: String,
    /// The label under which the report is archived.
    pub model_version: Option<String>,
    /// The format of the tables in `output/`.
    pub file_format: FileFormat,
    /// `[[gates]]` as written (validated by the preferences kind, which
    /// knows its statistics).
    pub gates: Option<Value>,
    /// The gates, parsed by the kind (`kinds::preferences::load`) before
    /// any data is read.
    pub parsed_gates: Vec<super::gates::Gate>,
    /// The pairs file, resolved (config folder first, then the current one);
    /// the first of [`Self::pairs_files`].
    pub pairs_file: PathBuf,
    /// Every pairs file (spec 6: `pairs_file` may be a list, one data set
    /// per file).
    pub pairs_files: Vec<PathBuf>,
    /// `None`: the row number (1-based) is the id.
    pub id_column: Option<String>,
    pub text_a_column: String,
    pub text_b_column: String,
    /// `None` only for AnnotatedPairs JSON: its default annotator.
    pub reference_column: Option<String>,
    /// Empty only for AnnotatedPairs JSON: its other annotators.
    pub annotator_columns: Vec<String>,
    /// `None`: none for a table, every metadata key for AnnotatedPairs.
    pub subset_columns: Option<Vec<String>>,
    /// The models of `text_a` and `text_b` (spec 6; AnnotatedPairs:
    /// `response_a.model` / `response_b.model` when not set).
    pub model_a_column: Option<String>,
    pub model_b_column: Option<String>,
    /// `None`: every model is a target.
    pub target_models: Option<Vec<String>>,
    /// `None`: every model is a reference (one against all).
    pub reference_models: Option<Vec<String>>,
    /// `None`: `intervals = false` (only the exact interval of accuracy).
    pub intervals: Option<Intervals>,
    /// The experiment file this came from.
    pub origin: PathBuf,
}

impl PreferencesConfig {
    /// The pairs file is AnnotatedPairs JSON (`.json`).
    pub fn is_annotated_pairs(&self) -> bool {
        is_json(&self.pairs_file)
    }
}

fn is_json(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

/// Reads and validates the experiment file at `path`.
pub fn load(path: &Path) -> Result<PreferencesConfig> {
    parse(&super::value::read_experiment(path)?, path)
}

/// Validates the text of an experiment file; `path` is named in messages
/// and its folder is where a relative `pairs_file` is looked up first.
pub fn parse(text: &str, path: &Path) -> Result<PreferencesConfig> {
    super::common::parse_toml(text, path, &OWN_KEYS, &RULES, |raw, common| {
        values(raw, common, path)
    })
}

/// `pairs_file`: one file name, or a list of them (spec 6).
fn pairs_files(raw: &RawConfig) -> Result<Vec<String>, Fail> {
    let bad = |what: String| {
        (
            "pairs_file",
            format!(
                "pairs_file must be a file name or a list of file names (for example pairs_file \
                 = [\"a.json\", \"b.json\"]), but {what}"
            ),
        )
    };
    match raw.get("pairs_file") {
        Some(Value::Array(items)) if items.is_empty() => Err(bad("the list is empty".into())),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) if !s.trim().is_empty() => Ok(s.clone()),
                other => Err(bad(format!("it holds {}", super::value::describe(other)))),
            })
            .collect(),
        _ => Ok(vec![required(raw, "pairs_file", "\"pairs.csv\"")?]),
    }
}

fn values(raw: &RawConfig, common: Common, path: &Path) -> Result<PreferencesConfig, Fail> {
    let pairs_values = pairs_files(raw)?;
    let json = pairs_values.iter().all(|v| is_json(Path::new(v)));
    let reference_column = text(raw, "reference_column")?;
    let annotator_columns = names(raw, "annotator_columns")?.unwrap_or_default();
    if !json {
        if reference_column.is_none() {
            return Err(missing_column_key("reference_column", "preferred_text"));
        }
        if annotator_columns.is_empty() {
            return Err((
                "annotator_columns",
                "annotator_columns must name at least one annotator column to compare with the \
                 reference (for example annotator_columns = [\"judge_model\"])"
                    .into(),
            ));
        }
    }
    if let Some(r) = reference_column
        .as_ref()
        .filter(|r| annotator_columns.contains(r))
    {
        return Err((
            "annotator_columns",
            format!(
                "the reference column \"{r}\" is also listed in annotator_columns; an annotator \
                 is compared with the reference, so list it in one place only"
            ),
        ));
    }
    let (model_a_column, model_b_column) =
        (text(raw, "model_a_column")?, text(raw, "model_b_column")?);
    if model_a_column.is_some() != model_b_column.is_some() {
        let (set, unset) = if model_a_column.is_some() {
            ("model_a_column", "model_b_column")
        } else {
            ("model_b_column", "model_a_column")
        };
        return Err((
            set,
            format!("{set} is set but {unset} is not; the model view needs both model columns"),
        ));
    }
    let target_models = names(raw, "target_models")?;
    let reference_models = names(raw, "reference_models")?;
    for (key, given) in [
        ("target_models", &target_models),
        ("reference_models", &reference_models),
    ] {
        if given.is_some() && model_a_column.is_none() && !json {
            return Err((
                key,
                format!(
                    "{key} is set but the models are unknown: set model_a_column and \
                     model_b_column (the columns naming the model of text_a and of text_b)"
                ),
            ));
        }
    }
    let pairs_files = pairs_values
        .iter()
        .map(|v| {
            resolve_file("pairs_file", v, "pairs file", folder(path)).map_err(|m| ("pairs_file", m))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(PreferencesConfig {
        experiment_id: common.experiment_id,
        description: common.description,
        model_version: common.model_version,
        file_format: common.file_format,
        gates: common.gates,
        parsed_gates: Vec::new(),
        pairs_file: pairs_files[0].clone(),
        pairs_files,
        origin: path.to_path_buf(),
        id_column: text(raw, "id_column")?,
        text_a_column: text(raw, "text_a_column")?.unwrap_or_else(|| "text_a".into()),
        text_b_column: text(raw, "text_b_column")?.unwrap_or_else(|| "text_b".into()),
        reference_column,
        annotator_columns,
        subset_columns: names(raw, "subset_columns")?,
        model_a_column,
        model_b_column,
        target_models,
        reference_models,
        intervals: common.intervals,
    })
}

fn missing_column_key(key: &'static str, example: &str) -> Fail {
    (
        key,
        format!(
            "the required key {key} is missing (for example {key} = \"{example}\"); only an \
             AnnotatedPairs .json file names its annotators itself"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "experiment_id = \"audit\"\npairs_file = \"Cargo.toml.csv\"\n\
                        reference_column = \"ref\"\nannotator_columns = [\"judge\", \"longer\"]\n";

    /// A config folder holding an empty `pairs.csv` (and `pairs.json`).
    fn folder() -> tempfile::TempDir {
        let dir = tempfile::TempDir::new().unwrap();
        std::fs::write(dir.path().join("Cargo.toml.csv"), "x\n").unwrap();
        std::fs::write(dir.path().join("pairs.json"), "{}").unwrap();
        dir
    }

    fn run(text: &str) -> Result<PreferencesConfig> {
        let dir = folder();
        parse(text, &dir.path().join("exp.toml"))
    }

    fn err(text: &str) -> String {
        format!("{:#}", run(text).unwrap_err())
    }

    #[test]
    fn every_key_is_read_and_defaults_apply() {
        let c = run(BASE).unwrap();
        assert_eq!(c.experiment_id, "audit");
        assert!(c.pairs_file.ends_with("Cargo.toml.csv") && c.pairs_file.is_absolute());
        assert_eq!(
            (c.text_a_column.as_str(), c.text_b_column.as_str()),
            ("text_a", "text_b")
        );
        assert_eq!(c.reference_column.as_deref(), Some("ref"));
        assert_eq!(c.annotator_columns, ["judge", "longer"]);
        assert_eq!((c.id_column, c.subset_columns), (None, None));
        assert_eq!(c.intervals, Some(Intervals::default()));
        let c = run(&format!(
            "{BASE}id_column = \"cid\"\ntext_a_column = \"a\"\ntext_b_column = \"b\"\n\
             subset_columns = \"source, lang\"\n[intervals]\nseed = 3\nreplicates = 20\n"
        ))
        .unwrap();
        assert_eq!(c.id_column.as_deref(), Some("cid"));
        assert_eq!(c.subset_columns.unwrap(), ["source", "lang"]);
        assert_eq!(c.intervals.map(|i| (i.seed, i.replicates)), Some((3, 20)));
        assert_eq!(
            run(&format!("{BASE}intervals = false\n"))
                .unwrap()
                .intervals,
            None
        );
    }

    #[test]
    fn annotated_pairs_need_no_columns() {
        let c = run("experiment_id = \"a\"\npairs_file = \"pairs.json\"\n").unwrap();
        assert!(c.is_annotated_pairs());
        assert!(c.reference_column.is_none() && c.annotator_columns.is_empty());
    }

    #[test]
    fn bad_keys_and_values_name_the_file_line_and_key() {
        let e = err(&format!("{BASE}anotator_column = [\"x\"]\n"));
        assert!(
            e.contains(
                "exp.toml, line 5: unknown key anotator_column; did you mean annotator_columns?"
            ),
            "{e}"
        );
        let e = err(&format!("{BASE}colour = 1\n"));
        assert!(
            e.contains("the keys are experiment_id, description, model_version")
                && e.contains("pairs_file"),
            "{e}"
        );
        let e = err(&BASE.replace("\"judge\", \"longer\"", "\"judge\", \"ref\""));
        assert!(
            e.contains("line 4") && e.contains("the reference column \"ref\" is also listed"),
            "{e}"
        );
        let e = err(&BASE.replace("[\"judge\", \"longer\"]", "[]"));
        assert!(
            e.contains("annotator_columns must name at least one"),
            "{e}"
        );
        let e = err(&BASE.replace("reference_column = \"ref\"\n", ""));
        assert!(
            e.contains("the required key reference_column is missing"),
            "{e}"
        );
        let e = err(&BASE.replace("Cargo.toml.csv", "nope.csv"));
        assert!(
            e.contains("line 2: pairs file not found: pairs_file = \"nope.csv\""),
            "{e}"
        );
        let e = err(&BASE.replace("\"audit\"", "\"my audit\""));
        assert!(e.contains("line 1") && e.contains("whitespace"), "{e}");
        let e = err(&format!("{BASE}[intervals]\nlevle = 0.9\n"));
        assert!(
            e.contains("line 5") && e.contains("did you mean intervals.level?"),
            "{e}"
        );
        let e = err(&format!("{BASE}subset_columns = [\"s\", \"s\"]\n"));
        assert!(e.contains("lists the column \"s\" more than once"), "{e}");
        let e = err(&format!("{BASE}model_a_column = \"ma\"\n"));
        assert!(
            e.contains("line 5: model_a_column is set but model_b_column is not"),
            "{e}"
        );
        let e = err(&format!("{BASE}target_models = [\"m1\"]\n"));
        assert!(
            e.contains("target_models is set but the models are unknown"),
            "{e}"
        );
    }

    #[test]
    fn pairs_file_may_be_a_list() {
        let c = run(&BASE.replace(
            "pairs_file = \"Cargo.toml.csv\"",
            "pairs_file = [\"Cargo.toml.csv\", \"pairs.json\"]",
        ))
        .unwrap();
        assert_eq!(c.pairs_files.len(), 2);
        assert!(c.pairs_files[1].ends_with("pairs.json"));
        assert_eq!(c.pairs_file, c.pairs_files[0]);
        let e = err(&BASE.replace("\"Cargo.toml.csv\"", "[]"));
        assert!(
            e.contains("line 2") && e.contains("the list is empty"),
            "{e}"
        );
        let e = err(&BASE.replace("\"Cargo.toml.csv\"", "[\"Cargo.toml.csv\", \"no.csv\"]"));
        assert!(
            e.contains("pairs file not found: pairs_file = \"no.csv\""),
            "{e}"
        );
    }

    #[test]
    fn model_columns_and_lists_are_read() {
        let c = run(&format!(
            "{BASE}model_a_column = \"ma\"\nmodel_b_column = \"mb\"\n\
             target_models = [\"m1\"]\nreference_models = \"m2, m3\"\n"
        ))
        .unwrap();
        assert_eq!(c.model_a_column.as_deref(), Some("ma"));
        assert_eq!(c.model_b_column.as_deref(), Some("mb"));
        assert_eq!(c.target_models.unwrap(), ["m1"]);
        assert_eq!(c.reference_models.unwrap(), ["m2", "m3"]);
        assert_eq!(run(BASE).unwrap().target_models, None);
    }
}
