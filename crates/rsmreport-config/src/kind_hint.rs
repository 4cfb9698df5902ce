//! Stage 1 (config): "wrong command, right hint". When a command cannot
//! load its configuration file, and the file's top-level keys are those of
//! another report kind (a classify experiment given to `build`), the error
//! starts with the command to run instead. Reads only the configuration
//! file; writes nothing.

use std::path::Path;

/// The keys that only one kind's configuration has, by command name.
const SIGNATURES: [(&str, &[&str]); 5] = [
    (
        "build",
        &[
            "system_score_column",
            "human_score_column",
            "second_human_score_column",
            "trim_min",
            "trim_max",
            "scale_with",
        ],
    ),
    (
        "classify",
        &[
            "gold_column",
            "system_columns",
            "probability_pattern",
            "probability_columns",
            "positive_label",
        ],
    ),
    (
        "agree",
        &[
            "annotations_file",
            "rater_columns",
            "rater_column",
            "item_column",
            "category_columns",
            "label_column",
        ],
    ),
    (
        "preferences",
        &[
            "pairs_file",
            "text_a_column",
            "text_b_column",
            "annotator_columns",
            "model_a_column",
            "model_b_column",
        ],
    ),
    (
        "compare",
        &["baseline_label", "candidate_label", "comparison_id"],
    ),
];

/// The top-level keys of a TOML or JSON configuration text (none when it
/// is neither).
fn top_level_keys(text: &str) -> Vec<String> {
    if let Ok(t) = toml::from_str::<toml::Table>(text) {
        return t.keys().cloned().collect();
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(o)) => o.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// The hint for configuration `text` given to command `this`: the other
/// kind whose own keys it has most of (and none of `this` kind's own
/// keys), as "this looks like a `classify` experiment (it has gold_column,
/// system_columns): run `rsmreport classify <path>`".
pub fn hint(text: &str, this: &str, path: &Path) -> Option<String> {
    let keys = top_level_keys(text);
    let own = |kind: &str| -> Vec<&str> {
        SIGNATURES
            .iter()
            .filter(|(k, _)| *k == kind)
            .flat_map(|(_, sig)| sig.iter().copied())
            .filter(|s| keys.iter().any(|k| k == s))
            .collect()
    };
    // `check` reads build's experiments.
    let this_kind = if this == "check" { "build" } else { this };
    if !own(this_kind).is_empty() {
        return None;
    }
    let (kind, found) = SIGNATURES
        .iter()
        .filter(|(k, _)| *k != this_kind)
        .map(|(k, _)| (*k, own(k)))
        .max_by_key(|(_, found)| found.len())?;
    if found.is_empty() {
        return None;
    }
    let what = if kind == "compare" {
        "comparison configuration"
    } else {
        "experiment"
    };
    Some(format!(
        "this looks like a `{kind}` {what} (it has {}), not {} `{this}` one: run `rsmreport {kind} \
         {}`",
        found.join(", "),
        if this.starts_with('a') { "an" } else { "a" },
        path.display()
    ))
}

/// `result`, or its error preceded by the [`hint`] when the file at `path`
/// looks like another kind's configuration (the error keeps its class).
pub fn with_hint<T>(result: anyhow::Result<T>, this: &str, path: &Path) -> anyhow::Result<T> {
    result.map_err(|e| {
        match std::fs::read_to_string(path)
            .ok()
            .and_then(|text| hint(&text, this, path))
        {
            Some(h) => e.context(h),
            None => e,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_kinds_keys_name_that_kind() {
        let p = Path::new("exp.toml");
        let classify = "experiment_id = \"x\"\npredictions_file = \"p.csv\"\n\
                        gold_column = \"gold\"\nsystem_columns = [\"a\"]\n";
        assert_eq!(
            hint(classify, "build", p).unwrap(),
            "this looks like a `classify` experiment (it has gold_column, system_columns), not \
             a `build` one: run `rsmreport classify exp.toml`"
        );
        let build = "experiment_id = \"x\"\npredictions_file = \"p.csv\"\n\
                     system_score_column = \"s\"\ntrim_min = 1\ntrim_max = 6\n";
        assert!(hint(build, "classify", p).unwrap().starts_with(
            "this looks like a `build` experiment (it has system_score_column, trim_min, trim_max)"
        ));
        let json = r#"{"annotations_file": "a.csv", "rater_columns": ["r1", "r2"]}"#;
        assert!(hint(json, "preferences", p)
            .unwrap()
            .contains("`agree` experiment"));
        // A file of the right kind with a typo, or of no known kind: no hint.
        let typo = "experiment_id = \"x\"\ngold_colum = \"g\"\nsystem_columns = [\"a\"]\n";
        assert_eq!(hint(typo, "classify", p), None);
        let typo = "experiment_id = \"x\"\nsystem_score_column = \"s\"\ntrim_mn = 1\n";
        assert_eq!(hint(typo, "check", p), None);
        assert!(hint(classify, "check", p)
            .unwrap()
            .ends_with("not a `check` one: run `rsmreport classify exp.toml`"));
        assert_eq!(hint("experiment_id = \"x\"\n", "build", p), None);
        assert_eq!(hint("not [toml", "build", p), None);
    }
}
