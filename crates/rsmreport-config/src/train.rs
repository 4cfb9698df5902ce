//! Stage 1 (config): `rsmreport train`'s experiment (train.md 1-2): RSMTool's
//! `rsmtool` keys in TOML, or an rsmtool `.json` config as `build` reads
//! rsmeval's. The keys are checked, values coerced, defaults filled, the
//! cross-field rules of train.md 2 applied in its order, referenced files
//! located (missing ones reported together), the report sections chosen
//! (rsmeval 5.1 with train.md 14's list) and the saved copy
//! (`<id>_rsmtool.json`) built.
//!
//! Values are read with the rules every kind shares (`value`, `validate`'s
//! readers). Only checks that files exist: the feature file and the data
//! are read by the kind (`rsmreport::kinds::train::read`); never writes.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use anyhow::{bail, Result};
use serde_json::{json, Map, Value};

use super::intervals::Intervals;
use super::keys::closest;
use super::sections::{select_sections, Available, Catalogue};
use super::validate::{self, Ctx};
use super::value::{coerce_bool, coerce_list, describe};
use super::{ConfigKind, FlagFilter, Number, Section};
use rsmreport_core::schema::FileFormat;
use rsmreport_metrics::linear::Model;

/// `rsmtool`'s report sections in their default order (train.md 14).
pub const TRAIN_SECTIONS: [&str; 15] = [
    "data_description",
    "data_description_by_group",
    "feature_descriptives",
    "features_by_group",
    "preprocessed_features",
    "dff_by_group",
    "consistency",
    "model",
    "evaluation",
    "true_score_evaluation",
    "evaluation_by_group",
    "fairness_analyses",
    "pca",
    "intermediate_file_paths",
    "sysinfo",
];

/// The sections that need subgroups (train.md 14).
pub const TRAIN_SUBGROUP_SECTIONS: [&str; 5] = [
    "data_description_by_group",
    "features_by_group",
    "dff_by_group",
    "evaluation_by_group",
    "fairness_analyses",
];

const CATALOGUE: Catalogue = Catalogue {
    builtins: &TRAIN_SECTIONS,
    subgroup_sections: &TRAIN_SUBGROUP_SECTIONS,
};

/// Required keys (train.md 2).
pub const REQUIRED: [&str; 4] = ["experiment_id", "model", "train_file", "test_file"];

/// Every key `train` reads, beyond [`REQUIRED`].
pub const OPTIONAL: [&str; 36] = [
    "description",
    "model_version",
    "features",
    "feature_subset_file",
    "feature_subset",
    "sign",
    "id_column",
    "train_label_column",
    "test_label_column",
    "length_column",
    "second_human_score_column",
    "candidate_column",
    "subgroups",
    "flag_column",
    "flag_column_test",
    "exclude_zero_scores",
    "min_items_per_candidate",
    "select_transformations",
    "standardize_features",
    "truncate_outliers",
    "use_truncation_thresholds",
    "trim_min",
    "trim_max",
    "trim_tolerance",
    "use_scaled_predictions",
    "rater_error_variance",
    "min_n_per_group",
    "general_sections",
    "custom_sections",
    "section_order",
    "use_thumbnails",
    "file_format",
    "intervals",
    "predict_expected_scores",
    "gates",
    "gates_preset",
];

/// Keys of the reference that `rsmreport` does not support; a saved
/// rsmtool config holds them with their harmless defaults, which are
/// accepted so that such a file can be re-run.
const OUT_OF_SCOPE: [&str; 6] = [
    "skll_fixed_parameters",
    "skll_objective",
    "skll_grid_search_jobs",
    "use_wandb",
    "wandb_project",
    "wandb_entity",
];

/// The saved copy's defaulted keys, in the reference's order (train.md 2).
const SAVED_DEFAULTS: [&str; 38] = [
    "id_column",
    "description",
    "train_label_column",
    "test_label_column",
    "exclude_zero_scores",
    "use_scaled_predictions",
    "select_transformations",
    "standardize_features",
    "truncate_outliers",
    "use_thumbnails",
    "use_truncation_thresholds",
    "predict_expected_scores",
    "sign",
    "features",
    "length_column",
    "second_human_score_column",
    "file_format",
    "candidate_column",
    "general_sections",
    "custom_sections",
    "feature_subset_file",
    "feature_subset",
    "rater_error_variance",
    "trim_min",
    "trim_max",
    "trim_tolerance",
    "subgroups",
    "min_n_per_group",
    "skll_fixed_parameters",
    "skll_objective",
    "section_order",
    "flag_column",
    "flag_column_test",
    "min_items_per_candidate",
    "skll_grid_search_jobs",
    "use_wandb",
    "wandb_project",
    "wandb_entity",
];

/// SKLL learners `rsmtool` also accepts (refused as "not supported").
const SKLL_LEARNERS: [&str; 24] = [
    "AdaBoostRegressor",
    "BayesianRidge",
    "DecisionTreeRegressor",
    "DummyRegressor",
    "ElasticNet",
    "GradientBoostingRegressor",
    "HuberRegressor",
    "KNeighborsRegressor",
    "Lars",
    "Lasso",
    "LinearSVR",
    "MLPRegressor",
    "RandomForestRegressor",
    "RANSACRegressor",
    "Ridge",
    "SGDRegressor",
    "SVR",
    "TheilSenRegressor",
    "LogisticRegression",
    "SVC",
    "LinearSVC",
    "MultinomialNB",
    "RandomForestClassifier",
    "DecisionTreeClassifier",
];

/// Where the features come from (train.md 3.2, 4).
#[derive(Clone, Debug, PartialEq)]
pub enum FeatureSource {
    /// No `features` key: generated from the training partition.
    Generated,
    /// A feature file (4.1), resolved.
    File(PathBuf),
    /// An array of column names.
    List(Vec<String>),
}

/// A validated `train` experiment: everything the kind needs, defaults
/// filled in.
#[derive(Clone, Debug)]
pub struct TrainConfig {
    /// The experiment file.
    pub config_path: PathBuf,
    pub experiment_id: String,
    pub description: String,
    pub model_version: Option<String>,
    pub model: Model,
    pub train_file: PathBuf,
    pub test_file: PathBuf,
    pub features: FeatureSource,
    pub feature_subset_file: Option<PathBuf>,
    pub feature_subset: Option<String>,
    pub sign: Option<String>,
    pub id_column: String,
    pub train_label_column: String,
    pub test_label_column: String,
    pub length_column: Option<String>,
    pub second_human_score_column: Option<String>,
    pub candidate_column: Option<String>,
    pub subgroups: Vec<String>,
    pub flag_column: Vec<FlagFilter>,
    /// `flag_column_test`, when given (else `flag_column` applies to both).
    pub flag_column_test: Option<Vec<FlagFilter>>,
    pub exclude_zero_scores: bool,
    pub min_items_per_candidate: Option<u64>,
    pub select_transformations: bool,
    pub standardize_features: bool,
    pub truncate_outliers: bool,
    pub use_truncation_thresholds: bool,
    /// `trim_min` when configured and truthy (train.md 3.3 step 10; a
    /// configured 0 is falsy, 16 Q1); `None`: the training minimum.
    pub trim_min: Option<f64>,
    /// `trim_max`, likewise.
    pub trim_max: Option<f64>,
    pub trim_tolerance: f64,
    pub use_scaled_predictions: bool,
    pub rater_error_variance: Option<Number>,
    /// Display threshold per subgroup, in `subgroups` order.
    pub min_n_per_group: Vec<(String, u64)>,
    /// The report sections, in their final order.
    pub sections: Vec<Section>,
    pub use_thumbnails: bool,
    pub file_format: FileFormat,
    /// The evaluation's confidence intervals (as `build`'s); `None`: off.
    pub intervals: Option<Intervals>,
    /// Quality gates on the evaluation (`gates_preset`, `[[gates]]`).
    pub gates: Vec<super::gates::Gate>,
    /// The saved copy (`output/<id>_rsmtool.json`).
    pub saved_config: Value,
    /// Warnings of the validation (train.md 2), for the terminal.
    pub warnings: Vec<String>,
}

impl TrainConfig {
    /// The display threshold of a subgroup (0 = none).
    pub fn min_n_for(&self, group: &str) -> u64 {
        self.min_n_per_group
            .iter()
            .find(|(g, _)| g == group)
            .map_or(0, |(_, n)| *n)
    }

    /// Whether a built-in section is part of the report.
    pub fn has_section(&self, name: &str) -> bool {
        self.sections.iter().any(|s| s.name() == name)
    }

    /// The feature file, if the features come from one.
    pub fn feature_file(&self) -> Option<&Path> {
        match &self.features {
            FeatureSource::File(p) => Some(p),
            _ => None,
        }
    }
}

/// Reads, parses and validates a `train` experiment (`.toml`, or an
/// rsmtool `.json`).
pub fn load(path: &Path) -> Result<TrainConfig> {
    let text = super::value::read_experiment(path)?;
    let raw = super::parse(&text, ConfigKind::from_path(path)?, path)?;
    validate_train(&raw, path)
}

/// The message for a key of another command (`None`: not one).
pub(crate) fn other_command_key(key: &str, this: &str) -> Option<String> {
    const BUILD: [&str; 9] = [
        "predictions_file",
        "system_score_column",
        "human_score_column",
        "scale_with",
        "other_human_score_columns",
        "classification",
        "gates",
        "gates_preset",
        "experiment_names",
    ];
    const PREDICT: [&str; 2] = ["experiment_dir", "input_features_file"];
    const TRAIN: [&str; 5] = [
        "model",
        "train_file",
        "test_file",
        "train_label_column",
        "test_label_column",
    ];
    let (command, what) = if BUILD.contains(&key) && this != "build" {
        ("build", "evaluating existing predictions")
    } else if PREDICT.contains(&key) && this != "predict" {
        ("predict", "applying a trained model to new responses")
    } else if TRAIN.contains(&key) && this != "train" {
        ("train", "training a model")
    } else if let Some(purpose) = super::keys::other_tool_purpose(key) {
        return Some(format!(
            "{key} is a setting for {purpose}, which `rsmreport {this}` does not do; remove \
             this key"
        ));
    } else {
        return None;
    };
    Some(format!(
        "{key} is a setting of `rsmreport {command}` ({what}), not of `rsmreport {this}`; \
         remove this key"
    ))
}

/// Whether `value` of an out-of-scope key is its harmless default.
fn harmless(key: &str, value: &Value) -> bool {
    match key {
        "skll_fixed_parameters" => value.is_null() || value.as_object().is_some_and(Map::is_empty),
        "skll_grid_search_jobs" => value.is_null() || value.as_u64() == Some(1),
        "use_wandb" | "predict_expected_scores" => {
            value.is_null() || coerce_bool(value) == Some(false)
        }
        _ => value.is_null(),
    }
}

/// Unknown, other-command and out-of-scope keys, all at once.
fn check_keys(cx: &Ctx, this: &str, allowed: &[&str]) -> Result<()> {
    let mut problems = Vec::new();
    for (key, value) in &cx.raw.entries {
        if allowed.contains(&key.as_str()) && key != "predict_expected_scores" {
            continue;
        }
        if key == "predict_expected_scores" || OUT_OF_SCOPE.contains(&key.as_str()) {
            if !harmless(key, value) {
                problems.push(cx.err(
                    key,
                    format!(
                        "{key} is not supported: rsmreport {this} fits RSMTool's built-in \
                         linear models only (no SKLL learners, expected scores or Weights & \
                         Biases logging); remove this key"
                    ),
                ));
            }
        } else if let Some(message) = other_command_key(key, this) {
            problems.push(cx.err(key, message));
        } else {
            let hint = match closest(key, allowed.iter().copied()) {
                Some(s) => format!("; did you mean {s}?"),
                None => "; check its spelling against the documented keys".to_string(),
            };
            problems.push(cx.err(key, format!("unknown key {key}{hint}")));
        }
    }
    validate::join_problems(problems)
}

/// The required keys `required`, all missing ones in one message.
pub(crate) fn check_required(cx: &Ctx, this: &str, required: &[&str]) -> Result<()> {
    let missing: Vec<&str> = required
        .iter()
        .copied()
        .filter(|k| cx.value(k).is_none())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    bail!(
        "{}: required key{} missing: {} (every `rsmreport {this}` experiment needs {})",
        cx.raw.origin.display(),
        if missing.len() == 1 { " is" } else { "s are" },
        missing.join(", "),
        required.join(", ")
    )
}

/// The model name: one of the eleven built-in models (a SKLL learner is
/// "not supported", anything else "unknown" with the closest name).
fn model(cx: &Ctx) -> Result<Model> {
    let key = "model";
    let name = cx.text(key)?.unwrap_or_default();
    if let Ok(m) = Model::from_str(&name) {
        return Ok(m);
    }
    let names: Vec<&str> = Model::ALL.iter().map(|m| m.name()).collect();
    if SKLL_LEARNERS.contains(&name.as_str()) {
        return Err(cx.err(
            key,
            format!(
                "model \"{name}\" is not supported: it is a SKLL learner; rsmreport train fits \
                 RSMTool's built-in linear models: {}",
                names.join(", ")
            ),
        ));
    }
    let hint = closest(&name, names.iter().copied())
        .map_or_else(String::new, |c| format!("; did you mean \"{c}\"?"));
    Err(cx.err(
        key,
        format!(
            "unknown model \"{name}\"{hint} (model names are case-sensitive; the built-in \
             models are {})",
            names.join(", ")
        ),
    ))
}

/// `trim_min` / `trim_max`: the configured number when it is truthy (a
/// numeric text counts; a configured 0 is falsy, train.md 16 Q1).
fn trim_bound(cx: &Ctx, key: &str) -> Result<Option<f64>> {
    let Some(n) = cx.number(key)? else {
        return Ok(None);
    };
    let raw = cx.value(key).expect("a number was read");
    Ok(validate::is_truthy(raw).then_some(n.as_f64()))
}

/// A boolean with its default.
fn flag(cx: &Ctx, key: &'static str, default: bool) -> Result<bool> {
    Ok(cx.boolean(key)?.unwrap_or(default))
}

/// The booleans of train.md 2, in the order of its table.
struct Switches {
    exclude_zero_scores: bool,
    select_transformations: bool,
    standardize_features: bool,
    truncate_outliers: bool,
    use_truncation_thresholds: bool,
    use_scaled_predictions: bool,
    use_thumbnails: bool,
}

fn switches(cx: &Ctx) -> Result<Switches> {
    Ok(Switches {
        exclude_zero_scores: flag(cx, "exclude_zero_scores", true)?,
        select_transformations: flag(cx, "select_transformations", false)?,
        standardize_features: flag(cx, "standardize_features", true)?,
        truncate_outliers: flag(cx, "truncate_outliers", true)?,
        use_truncation_thresholds: flag(cx, "use_truncation_thresholds", false)?,
        use_scaled_predictions: flag(cx, "use_scaled_predictions", false)?,
        use_thumbnails: flag(cx, "use_thumbnails", false)?,
    })
}

/// `features`: a file (resolved later) or a list of names.
enum FeaturesGiven {
    None,
    File(String),
    List(Vec<String>),
}

fn features_given(cx: &Ctx) -> Result<FeaturesGiven> {
    match cx.value("features") {
        None => Ok(FeaturesGiven::None),
        Some(Value::String(s)) if s.trim().is_empty() => Err(cx.err(
            "features",
            "features is empty; give a feature file or a list of column names",
        )),
        Some(Value::String(s)) => Ok(FeaturesGiven::File(s.clone())),
        Some(Value::Array(_)) => Ok(FeaturesGiven::List(
            cx.names("features")?.unwrap_or_default(),
        )),
        Some(other) => Err(cx.err(
            "features",
            format!(
                "features must be the path of a feature file or a list of column names, but it \
                 is {}",
                describe(other)
            ),
        )),
    }
}

/// The cross-field rules of train.md 2 that need no file.
fn check_combinations(cx: &Ctx, features: &FeaturesGiven) -> Result<()> {
    let has = |k: &str| cx.value(k).is_some();
    if !matches!(features, FeaturesGiven::None)
        && (has("feature_subset_file") || has("feature_subset"))
    {
        let key = if has("feature_subset_file") {
            "feature_subset_file"
        } else {
            "feature_subset"
        };
        return Err(cx.err(
            key,
            "features cannot be combined with feature_subset_file or feature_subset: give \
             either the features to use, or a subset file and the subset column to choose them",
        ));
    }
    for key in ["feature_subset", "sign"] {
        if has(key) && !has("feature_subset_file") {
            return Err(cx.err(
                key,
                format!("{key} needs feature_subset_file (the table holding the {key} column)"),
            ));
        }
    }
    Ok(())
}

/// Every missing file at once (train.md 3.1), each as configured.
fn resolve_files(cx: &Ctx, keys: &[(&str, &str, &str)]) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut problems = Vec::new();
    for (key, given, what) in keys {
        match cx.resolve_file(key, given, what) {
            Ok(p) => found.push(p),
            Err(e) => problems.push(e),
        }
    }
    validate::join_problems(problems)?;
    Ok(found)
}

/// The column settings of the two partitions.
struct Columns {
    id: String,
    train_label: String,
    test_label: String,
    length: Option<String>,
    second: Option<String>,
    candidate: Option<String>,
}

fn columns(cx: &Ctx) -> Result<Columns> {
    Ok(Columns {
        id: cx
            .column("id_column")?
            .unwrap_or_else(|| "spkitemid".into()),
        train_label: cx
            .column("train_label_column")?
            .unwrap_or_else(|| "sc1".into()),
        test_label: cx
            .column("test_label_column")?
            .unwrap_or_else(|| "sc1".into()),
        length: cx.column("length_column")?,
        second: cx.column("second_human_score_column")?,
        candidate: cx.column("candidate_column")?,
    })
}

/// Refuses a column in two roles: the second human score in the test label's column, the
/// length or second score column among the listed features; and truncation thresholds without
/// a feature file (train.md 2).
fn check_roles(cx: &Ctx, cols: &Columns, features: &FeaturesGiven, sw: &Switches) -> Result<()> {
    if let Some(second) = &cols.second {
        if *second == cols.test_label {
            return Err(cx.err(
                "second_human_score_column",
                format!(
                    "second_human_score_column and test_label_column are both \"{second}\"; the \
                     two human scores must come from two different columns"
                ),
            ));
        }
    }
    if let FeaturesGiven::List(names) = features {
        for (key, col) in [
            ("length_column", &cols.length),
            ("second_human_score_column", &cols.second),
        ] {
            if let Some(c) = col.as_ref().filter(|c| names.contains(c)) {
                return Err(cx.err(
                    "features",
                    format!("features lists \"{c}\", which is the {key}; it cannot be a feature"),
                ));
            }
        }
    }
    if sw.use_truncation_thresholds && !matches!(features, FeaturesGiven::File(_)) {
        return Err(cx.err(
            "use_truncation_thresholds",
            "use_truncation_thresholds needs a feature file (features = \"file.csv\") with min \
             and max columns",
        ));
    }
    Ok(())
}

/// The files a `train` experiment reads, resolved against the configuration's folder.
struct InputFiles {
    train_file: PathBuf,
    test_file: PathBuf,
    features: FeatureSource,
    feature_subset_file: Option<PathBuf>,
}

/// Resolves the training and test files, the feature file (if the features are one) and the
/// feature subset file, in that order.
fn input_files(cx: &Ctx, features: FeaturesGiven) -> Result<InputFiles> {
    let mut files = vec![
        (
            "train_file",
            cx.path_text("train_file")?.unwrap_or_default(),
            "training file",
        ),
        (
            "test_file",
            cx.path_text("test_file")?.unwrap_or_default(),
            "test file",
        ),
    ];
    if let FeaturesGiven::File(f) = &features {
        files.push(("features", f.clone(), "feature file"));
    }
    if let Some(f) = cx.path_text("feature_subset_file")? {
        files.push(("feature_subset_file", f, "feature subset file"));
    }
    let refs: Vec<(&str, &str, &str)> =
        files.iter().map(|(k, g, w)| (*k, g.as_str(), *w)).collect();
    let mut found = resolve_files(cx, &refs)?.into_iter();
    let train_file = found.next().expect("resolved");
    let test_file = found.next().expect("resolved");
    let features = match features {
        FeaturesGiven::None => FeatureSource::Generated,
        FeaturesGiven::File(_) => FeatureSource::File(found.next().expect("resolved")),
        FeaturesGiven::List(l) => FeatureSource::List(l),
    };
    Ok(InputFiles {
        train_file,
        test_file,
        features,
        feature_subset_file: found.next(),
    })
}

/// The warnings of settings that are accepted but do less than they seem to (train.md 2).
fn warnings(cx: &Ctx, sw: &Switches, features: &FeatureSource) -> Result<Vec<String>> {
    let mut warnings = Vec::new();
    for key in ["trim_min", "trim_max"] {
        if cx.number(key)?.is_some_and(|n| n.as_f64() == 0.0) {
            warnings.push(format!(
                "{key} = 0 is treated as absent, as RSMTool does: the {} training score is \
                 used instead",
                if key == "trim_min" {
                    "lowest"
                } else {
                    "highest"
                }
            ));
        }
    }
    if sw.exclude_zero_scores && cx.number("trim_min")?.is_some_and(|n| n.as_f64() == 0.0) {
        warnings.push(
            "exclude_zero_scores is true but trim_min is 0: responses with a human score of 0 \
             are excluded although 0 is on the score scale"
                .into(),
        );
    }
    if sw.select_transformations && matches!(features, FeatureSource::File(_)) {
        warnings.push(
            "select_transformations has no effect with a feature file: the file's transforms \
             and signs are used (as RSMTool does)"
                .into(),
        );
    }
    Ok(warnings)
}

/// Validates a parsed `train` experiment (train.md 2, in its order).
pub fn validate_train(raw: &super::RawConfig, config_path: &Path) -> Result<TrainConfig> {
    let cx = Ctx::new(raw, config_path);
    let allowed: Vec<&str> = REQUIRED.iter().chain(&OPTIONAL).copied().collect();
    check_keys(&cx, "train", &allowed)?;
    check_required(&cx, "train", &REQUIRED)?;
    let sw = switches(&cx)?;
    let subgroups = validate::subgroups(&cx)?;
    let general_sections = cx.list("general_sections")?;
    let custom_sections = cx.list("custom_sections")?.unwrap_or_default();
    let section_order = cx.list("section_order")?;
    let experiment_id = cx
        .at_key(super::value::id(cx.raw, "experiment_id"))?
        .unwrap_or_default();
    let features = features_given(&cx)?;
    check_combinations(&cx, &features)?;
    let cols = columns(&cx)?;
    let min_items_per_candidate = cx.count("min_items_per_candidate")?.filter(|&n| n > 0);
    validate::check_min_items(&cx, min_items_per_candidate, cols.candidate.as_deref())?;
    let (min_n_per_group, _) = validate::min_n_per_group(&cx, &subgroups)?;
    let model = model(&cx)?;
    check_roles(&cx, &cols, &features, &sw)?;
    let custom = validate::custom_files(&cx, &custom_sections)?;
    let sections = select_sections(
        &cx,
        general_sections.as_deref(),
        &custom,
        section_order.as_deref(),
        Available {
            catalogue: CATALOGUE,
            subgroups: !subgroups.is_empty(),
            other_raters: false,
            human_columns: 1 + usize::from(cols.second.is_some()),
        },
    )?;
    let files = input_files(&cx, features)?;
    let trim_min = trim_bound(&cx, "trim_min")?;
    let trim_max = trim_bound(&cx, "trim_max")?;
    let warnings = warnings(&cx, &sw, &files.features)?;
    let intervals = super::intervals::parse(cx.raw.get("intervals"), cols.candidate.as_deref())
        .map_err(|message| cx.err("intervals", message))?;
    let mut cfg = TrainConfig {
        config_path: config_path.to_path_buf(),
        experiment_id,
        description: cx.text("description")?.unwrap_or_default(),
        model_version: cx.text("model_version")?,
        model,
        train_file: files.train_file,
        test_file: files.test_file,
        features: files.features,
        feature_subset_file: files.feature_subset_file,
        feature_subset: cx.text("feature_subset")?,
        sign: cx.text("sign")?,
        id_column: cols.id,
        train_label_column: cols.train_label,
        test_label_column: cols.test_label,
        length_column: cols.length,
        second_human_score_column: cols.second,
        candidate_column: cols.candidate,
        subgroups,
        flag_column: validate::flag_column(&cx)?,
        flag_column_test: cx
            .value("flag_column_test")
            .map(|_| validate::flag_filters(&cx, "flag_column_test"))
            .transpose()?,
        exclude_zero_scores: sw.exclude_zero_scores,
        min_items_per_candidate,
        select_transformations: sw.select_transformations,
        standardize_features: sw.standardize_features,
        truncate_outliers: sw.truncate_outliers,
        use_truncation_thresholds: sw.use_truncation_thresholds,
        trim_min,
        trim_max,
        trim_tolerance: validate::trim_tolerance(&cx)?,
        use_scaled_predictions: sw.use_scaled_predictions,
        rater_error_variance: validate::rater_error_variance(&cx)?,
        min_n_per_group,
        sections,
        use_thumbnails: sw.use_thumbnails,
        file_format: cx.at_key(crate::common::file_format(cx.raw))?,
        intervals,
        gates: Vec::new(),
        saved_config: saved_config(&cx),
        warnings,
    };
    cfg.gates = gates(&cx, &cfg)?;
    Ok(cfg)
}

/// The quality gates (gates spec) on the evaluation of the test partition:
/// `build`'s statistics, of the raw and scaled score types (train.md 7),
/// the primary family the one `use_scaled_predictions` selects.
fn gates(cx: &Ctx, cfg: &TrainConfig) -> Result<Vec<super::gates::Gate>> {
    let min_n = |g: &str| cfg.min_n_for(g);
    let scale = super::ScaleWith::File(cfg.train_file.clone());
    let gcx = super::gates::Context {
        subgroups: &cfg.subgroups,
        types: super::gates::ScoreTypes::with_primary(&scale, cfg.use_scaled_predictions),
        bootstrap: cfg.intervals.is_some_and(|i| i.replicates > 0),
        min_n: &min_n,
        compare: false,
    };
    validate::gates_in(cx, &gcx, &cfg.config_path)
}

/// The default of a saved key (train.md 2), as the saved copy shows it.
fn saved_default(key: &str) -> Value {
    match key {
        "id_column" => json!("spkitemid"),
        "description" => json!(""),
        "train_label_column" | "test_label_column" => json!("sc1"),
        "exclude_zero_scores" | "standardize_features" | "truncate_outliers" => json!(true),
        "use_scaled_predictions"
        | "select_transformations"
        | "use_thumbnails"
        | "use_truncation_thresholds"
        | "predict_expected_scores"
        | "use_wandb" => json!(false),
        "file_format" => json!("csv"),
        "general_sections" => json!(["all"]),
        "trim_tolerance" => json!(0.4998),
        "subgroups" => json!([]),
        "skll_fixed_parameters" => json!({}),
        "skll_grid_search_jobs" => json!(1),
        _ => Value::Null,
    }
}

/// The saved copy (train.md 2): the user's keys in the user's order (lists
/// split, booleans coerced), then the missing keys with their defaults.
fn saved_config(cx: &Ctx) -> Value {
    let mut out = Map::new();
    for (key, value) in &cx.raw.entries {
        let v = match key.as_str() {
            "general_sections" | "custom_sections" | "subgroups" | "section_order" => {
                match coerce_list(value) {
                    Some(Ok(items)) => Value::from(items),
                    _ => value.clone(),
                }
            }
            k if saved_default(k).is_boolean() => {
                coerce_bool(value).map_or_else(|| value.clone(), Value::Bool)
            }
            _ => value.clone(),
        };
        out.insert(key.clone(), v);
    }
    for key in SAVED_DEFAULTS {
        if !out.contains_key(key) {
            out.insert(key.to_string(), saved_default(key));
        }
    }
    Value::Object(out)
}
