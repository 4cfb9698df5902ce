//! Stage 1 (config): `rsmreport predict`'s experiment (train.md 13.1):
//! rsmpredict's keys in TOML, or an rsmpredict `.json` config. Checks the
//! keys, coerces the values, locates the input file and the experiment
//! folder. Reads no data and no model (the kind does); writes nothing.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::train::{check_required, other_command_key};
use super::validate::{self, Ctx};
use super::{ConfigKind, FlagFilter};
use rsmreport_core::schema::FileFormat;

pub const REQUIRED: [&str; 3] = ["experiment_id", "experiment_dir", "input_features_file"];

pub const OPTIONAL: [&str; 11] = [
    "description",
    "model_version",
    "id_column",
    "human_score_column",
    "second_human_score_column",
    "candidate_column",
    "subgroups",
    "flag_column",
    "file_format",
    "standardize_features",
    "truncate_outliers",
];

/// A validated `predict` experiment.
#[derive(Clone, Debug)]
pub struct PredictConfig {
    /// The experiment file.
    pub config_path: PathBuf,
    /// The model's id (the prefix of its files and of the outputs).
    pub experiment_id: String,
    pub description: String,
    pub model_version: Option<String>,
    /// The folder of a `train` run (or of an RSMTool experiment).
    pub experiment_dir: PathBuf,
    pub input_features_file: PathBuf,
    pub id_column: String,
    pub human_score_column: String,
    /// Whether `human_score_column` was given (13.3 step 1).
    pub human_score_configured: bool,
    pub second_human_score_column: Option<String>,
    pub candidate_column: Option<String>,
    pub subgroups: Vec<String>,
    pub flag_column: Vec<FlagFilter>,
    pub file_format: FileFormat,
    /// As given (`None`: absent); checked against the model (13.2).
    pub standardize_features: Option<bool>,
    pub truncate_outliers: Option<bool>,
}

/// Reads, parses and validates a `predict` experiment.
pub fn load(path: &Path) -> Result<PredictConfig> {
    let text = super::value::read_experiment(path)?;
    let raw = super::parse(&text, ConfigKind::from_path(path)?, path)?;
    validate_predict(&raw, path)
}

fn check_keys(cx: &Ctx) -> Result<()> {
    let mut problems = Vec::new();
    for (key, value) in &cx.raw.entries {
        if REQUIRED.contains(&key.as_str()) || OPTIONAL.contains(&key.as_str()) {
            continue;
        }
        if key == "predict_expected_scores" {
            if super::value::coerce_bool(value) != Some(false) && !value.is_null() {
                problems.push(cx.err(
                    key,
                    "predict_expected_scores is not supported: the built-in linear models \
                     predict one score per response; remove this key",
                ));
            }
        } else if let Some(message) = other_command_key(key, "predict") {
            problems.push(cx.err(key, message));
        } else {
            let allowed = REQUIRED.iter().chain(&OPTIONAL).copied();
            let hint = match super::keys::closest(key, allowed) {
                Some(s) => format!("; did you mean {s}?"),
                None => "; check its spelling against the documented keys".to_string(),
            };
            problems.push(cx.err(key, format!("unknown key {key}{hint}")));
        }
    }
    validate::join_problems(problems)
}

/// The experiment folder: it must exist and be a folder.
fn experiment_dir(cx: &Ctx) -> Result<PathBuf> {
    let key = "experiment_dir";
    let given = cx.path_text(key)?.unwrap_or_default();
    let dir = super::value::folder(&cx.raw.origin).join(&given);
    let found = if Path::new(&given).is_absolute() || dir.is_dir() {
        dir
    } else {
        PathBuf::from(&given)
    };
    if !found.is_dir() {
        return Err(cx.err(
            key,
            format!(
                "experiment_dir = \"{given}\" is not a folder: it must be the output folder of \
                 `rsmreport train` (or of an RSMTool experiment), holding output/"
            ),
        ));
    }
    Ok(found)
}

/// Validates a parsed `predict` experiment (train.md 13.1).
pub fn validate_predict(raw: &super::RawConfig, config_path: &Path) -> Result<PredictConfig> {
    let cx = Ctx::new(raw, config_path);
    check_keys(&cx)?;
    check_required(&cx, "predict", &REQUIRED)?;
    let experiment_id = cx
        .at_key(super::value::id(cx.raw, "experiment_id"))?
        .unwrap_or_default();
    let standardize_features = cx.boolean("standardize_features")?;
    let truncate_outliers = cx.boolean("truncate_outliers")?;
    let human = cx.column("human_score_column")?;
    let input = cx.path_text("input_features_file")?.unwrap_or_default();
    let input_features_file = cx.resolve_file("input_features_file", &input, "features file")?;
    Ok(PredictConfig {
        config_path: config_path.to_path_buf(),
        experiment_id,
        description: cx.text("description")?.unwrap_or_default(),
        model_version: cx.text("model_version")?,
        experiment_dir: experiment_dir(&cx)?,
        input_features_file,
        id_column: cx
            .column("id_column")?
            .unwrap_or_else(|| "spkitemid".into()),
        human_score_configured: human.is_some(),
        human_score_column: human.unwrap_or_else(|| "sc1".into()),
        second_human_score_column: cx.column("second_human_score_column")?,
        candidate_column: cx.column("candidate_column")?,
        subgroups: validate::subgroups(&cx)?,
        flag_column: validate::flag_column(&cx)?,
        file_format: cx.at_key(crate::common::file_format(cx.raw))?,
        standardize_features,
        truncate_outliers,
    })
}
