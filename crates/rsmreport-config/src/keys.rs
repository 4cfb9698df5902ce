//! Stage 1 (config): the catalogue of config keys (required, defaulted,
//! rsmreport's own, and those rejected with a dedicated message) and the
//! "did you mean" suggestion. Constant data and pure functions only; touches
//! no file.

use serde_json::{json, Value};

/// Keys that must be present (spec 1.2).
pub const REQUIRED_KEYS: [&str; 5] = [
    "experiment_id",
    "predictions_file",
    "system_score_column",
    "trim_min",
    "trim_max",
];

/// Optional keys of the reference, in the order in which the saved config
/// appends the defaulted ones (spec 1.4).
pub const DEFAULTED_KEYS: [&str; 21] = [
    "id_column",
    "description",
    "human_score_column",
    "exclude_zero_scores",
    "use_thumbnails",
    "scale_with",
    "second_human_score_column",
    "file_format",
    "candidate_column",
    "general_sections",
    "custom_sections",
    "rater_error_variance",
    "trim_tolerance",
    "subgroups",
    "min_n_per_group",
    "section_order",
    "flag_column",
    "min_items_per_candidate",
    "use_wandb",
    "wandb_project",
    "wandb_entity",
];

/// Optional keys of `rsmreport` beyond the reference (`model_version` is
/// never defaulted into the saved config; `intervals` always records the
/// settings used; `gates`, `gates_preset`, `other_human_score_columns` and
/// `classification` are echoed as given).
pub const OWN_KEYS: [&str; 6] = [
    "model_version",
    "intervals",
    "gates",
    "gates_preset",
    "other_human_score_columns",
    "classification",
];

/// The default of a defaulted key, as the saved config shows it.
pub fn default_value(key: &str) -> Value {
    match key {
        "id_column" => json!("spkitemid"),
        "description" => json!(""),
        "human_score_column" => json!("sc1"),
        "exclude_zero_scores" => json!(true),
        "use_thumbnails" => json!(false),
        "file_format" => json!("csv"),
        "general_sections" => json!(["all"]),
        "trim_tolerance" => json!(0.4998),
        "subgroups" => json!([]),
        "use_wandb" => json!(false),
        _ => Value::Null,
    }
}

/// Keys that are valid in an rsmreport config (the ones suggested by "did
/// you mean"). The W&B keys are left out: they are not supported.
pub fn valid_keys() -> impl Iterator<Item = &'static str> {
    REQUIRED_KEYS
        .into_iter()
        .chain(DEFAULTED_KEYS.into_iter().filter(|k| !is_wandb_key(k)))
        .chain(OWN_KEYS)
}

/// `use_wandb` and every `wandb_*` key.
pub fn is_wandb_key(key: &str) -> bool {
    key == "use_wandb" || key.starts_with("wandb_")
}

/// Keys of other RSMTool tools (spec 1.3, plus the rsmtool training keys
/// `model`, `train_file`, `test_file`), with what they are for.
pub fn other_tool_purpose(key: &str) -> Option<&'static str> {
    const TRAINING: &str = "model training (rsmtool)";
    Some(match key {
        "train_label_column"
        | "test_label_column"
        | "use_scaled_predictions"
        | "select_transformations"
        | "standardize_features"
        | "truncate_outliers"
        | "use_truncation_thresholds"
        | "predict_expected_scores"
        | "sign"
        | "features"
        | "length_column"
        | "form_level_scores"
        | "feature_subset_file"
        | "feature_subset"
        | "skll_fixed_parameters"
        | "skll_objective"
        | "skll_grid_search_jobs"
        | "flag_column_test"
        | "model"
        | "train_file"
        | "test_file" => TRAINING,
        "description_old"
        | "description_new"
        | "use_scaled_predictions_old"
        | "use_scaled_predictions_new" => "comparing two experiments (rsmcompare)",
        "experiment_names" => "summarising several experiments (rsmsummarize)",
        "folds_file" | "folds" => "cross-validated model training (rsmxval)",
        "sample_range"
        | "sample_size"
        | "sample_ids"
        | "background_kmeans_size"
        | "num_features_to_display"
        | "show_auto_cohorts" => "explaining a trained model (rsmexplain)",
        _ => return None,
    })
}

/// The closest-name rule of every "did you mean" (one definition, in the
/// leaf crate, shared with the metrics' jiwer step names).
pub use rsmreport_core::names::{closest, osa_distance};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance() {
        assert_eq!(osa_distance("trim_mn", "trim_min"), 1);
        assert_eq!(osa_distance("subgropus", "subgroups"), 1);
        assert_eq!(osa_distance("", "abc"), 3);
        assert_eq!(osa_distance("abc", "abc"), 0);
    }

    #[test]
    fn suggestions_only_when_close() {
        assert_eq!(closest("trim_mn", valid_keys()), Some("trim_min"));
        assert_eq!(closest("Trim_Max", valid_keys()), Some("trim_max"));
        assert_eq!(closest("subgroup", valid_keys()), Some("subgroups"));
        assert_eq!(
            closest("human_score", valid_keys()),
            Some("human_score_column")
        );
        assert_eq!(closest("experiment", valid_keys()), Some("experiment_id"));
        assert_eq!(closest("xyz", valid_keys()), None);
        assert_eq!(closest("colour_scheme", valid_keys()), None);
        assert_eq!(closest("wandb_projct", valid_keys()), None);
    }

    #[test]
    fn key_tables_are_consistent() {
        for k in valid_keys() {
            assert!(other_tool_purpose(k).is_none(), "{k}");
            assert!(!is_wandb_key(k), "{k}");
        }
        // build reads every key every kind accepts (`common`).
        for k in crate::common::KEYS {
            assert!(valid_keys().any(|v| v == k), "{k}");
        }
        assert_eq!(default_value("trim_tolerance"), json!(0.4998));
        assert_eq!(default_value("candidate_column"), Value::Null);
        assert!(other_tool_purpose("features")
            .unwrap()
            .contains("model training (rsmtool)"));
    }
}
