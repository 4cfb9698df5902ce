//! Command assembly (predict): `rsmpredict`'s pipeline (train.md 13.3, in
//! its order): required columns, renaming and ids, the model's features,
//! flags copied (not applied, 16 Q7), non-numeric feature values, the
//! lenient preprocessing with the stored statistics (undefined transforms
//! exclude the row), then the predictions, scaled, trimmed and rounded
//! with the stored parameters: all through `metrics::linear`.
//!
//! Defines no statistic of its own; writes nothing.

use anyhow::{anyhow, bail, Result};
use rsmreport_config::predict::PredictConfig;
use rsmreport_core::provenance::InputInfo;
use rsmreport_core::table::{Table, Text};
use rsmreport_metrics::linear::predict::{raw_predictions, Predictions};
use rsmreport_metrics::linear::preprocess::{apply_feature, ApplyMode, Transform};
use rsmreport_metrics::linear::FeatureMatrix;

use super::read::Loaded;
use crate::kinds::train::partition::{absent, rename_roles, unique_ids};
use crate::preprocess::{column_hint, has_columns};

/// A finished prediction run.
pub struct Predicted {
    pub cfg: PredictConfig,
    pub inputs: Vec<InputInfo>,
    pub model: Loaded,
    /// The table after renaming (columns copied to the outputs).
    pub table: Table,
    /// Kept rows (file positions, input order).
    pub kept: Vec<usize>,
    /// Excluded rows (file positions, input order).
    pub excluded: Vec<usize>,
    pub ids: Vec<Text>,
    /// The raw (coerced) values of every model feature, all rows.
    pub raw: Vec<Vec<f64>>,
    /// Preprocessed values of the kept rows, one vector per feature.
    pub preprocessed: Vec<Vec<f64>>,
    pub predictions: Predictions,
    /// Whether `sc1` is part of the outputs (13.3 step 1).
    pub has_sc1: bool,
    pub notes: Vec<String>,
}

/// Step 1: the columns that must exist (one error listing the missing
/// ones); returns whether the human score is used.
fn check_columns(cfg: &PredictConfig, table: &Table) -> Result<bool> {
    let has_sc1 = cfg.human_score_column != "sc1" || table.position("sc1").is_some();
    let mut wanted: Vec<(&str, &str)> = vec![(cfg.id_column.as_str(), "id_column")];
    wanted.extend(cfg.subgroups.iter().map(|g| (g.as_str(), "subgroups")));
    wanted.extend(
        cfg.flag_column
            .iter()
            .map(|f| (f.column.as_str(), "flag_column")),
    );
    if let Some(c) = &cfg.candidate_column {
        wanted.push((c, "candidate_column"));
    }
    if let Some(c) = &cfg.second_human_score_column {
        wanted.push((c, "second_human_score_column"));
    }
    if has_sc1 {
        wanted.push((&cfg.human_score_column, "human_score_column"));
    }
    let missing = absent(table, &wanted);
    if !missing.is_empty() {
        let names: Vec<String> = table.names().into_iter().map(String::from).collect();
        bail!(
            "the features file {} lacks the configured column{} {}; {}",
            cfg.input_features_file.display(),
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", "),
            has_columns(&names)
        );
    }
    if table.nrows == 0 {
        bail!(
            "the features file {} has a header but no data rows",
            cfg.input_features_file.display()
        );
    }
    Ok(has_sc1)
}

/// Step 2: rsmeval 2.3's roles (reserved names not configured, and not
/// model features, become `##name##`), then the ids (no repeats).
fn rename(
    cfg: &PredictConfig,
    table: &mut Table,
    features: &[String],
    has_sc1: bool,
) -> Result<Vec<Text>> {
    let pos = |c: &str| table.position(c).expect("checked");
    let mut roles: Vec<(usize, &str)> = vec![(pos(&cfg.id_column), "spkitemid")];
    if has_sc1 {
        roles.push((pos(&cfg.human_score_column), "sc1"));
    }
    if let Some(c) = &cfg.second_human_score_column {
        roles.push((pos(c), "sc2"));
    }
    if let Some(c) = &cfg.candidate_column {
        roles.push((pos(c), "candidate"));
    }
    rename_roles(table, &roles, features);
    unique_ids(
        table,
        &cfg.id_column,
        &format!("the features file {}", cfg.input_features_file.display()),
    )
}

/// Step 3: every model feature is a column.
fn check_features(cfg: &PredictConfig, table: &Table, features: &[String]) -> Result<()> {
    let names: Vec<String> = table.names().into_iter().map(String::from).collect();
    let missing: Vec<String> = features
        .iter()
        .filter(|f| table.position(f).is_none())
        .map(|f| format!("'{f}'{}", column_hint(f, &names)))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    bail!(
        "the features file {} lacks {} feature{} of the model: {}; {}",
        cfg.input_features_file.display(),
        missing.len(),
        if missing.len() == 1 { "" } else { "s" },
        missing.join(", "),
        has_columns(&names)
    )
}

/// Steps 5-6: rows with a non-numeric feature value leave; each feature
/// is preprocessed leniently and rows whose transform is undefined leave.
/// Returns the kept rows and the preprocessed values of the kept rows.
fn preprocess(
    model: &Loaded,
    raw: &[Vec<f64>],
    n: usize,
    notes: &mut Vec<String>,
) -> (Vec<bool>, Vec<Vec<f64>>) {
    let mut keep = vec![true; n];
    for values in raw {
        for (k, v) in keep.iter_mut().zip(values) {
            *k &= v.is_finite();
        }
    }
    let numeric: Vec<usize> = (0..n).filter(|&i| keep[i]).collect();
    let mut pre = Vec::with_capacity(raw.len());
    for (stats, values) in model.features.iter().zip(raw) {
        let x: Vec<f64> = numeric.iter().map(|&i| values[i]).collect();
        let applied = apply_feature(stats, &x, model.standardize, ApplyMode::Lenient)
            .expect("lenient preprocessing does not fail");
        for w in &applied.warnings {
            let mut w = w.clone();
            w.row = numeric.get(w.row).copied().unwrap_or(w.row);
            notes.push(format!(
                "warning: {w} (rows of the features file, header excluded); those responses \
                 are excluded"
            ));
        }
        if !matches!(stats.transform, Transform::Raw | Transform::Org) {
            for (&i, v) in numeric.iter().zip(&applied.values) {
                if !v.is_finite() {
                    keep[i] = false;
                }
            }
        }
        pre.push((numeric.clone(), applied.values));
    }
    let pre = pre
        .into_iter()
        .map(|(rows, values)| {
            rows.iter()
                .zip(values)
                .filter(|(&i, _)| keep[i])
                .map(|(_, v)| v)
                .collect()
        })
        .collect();
    (keep, pre)
}

/// Runs train.md 13.3 on the input table with the loaded model.
pub fn execute(
    cfg: PredictConfig,
    mut table: Table,
    input: InputInfo,
    model: Loaded,
) -> Result<Predicted> {
    let names: Vec<String> = model.features.iter().map(|s| s.name.clone()).collect();
    let has_sc1 = check_columns(&cfg, &table)?;
    let ids = rename(&cfg, &mut table, &names, has_sc1)?;
    check_features(&cfg, &table, &names)?;
    let mut notes = model.notes.clone();
    let used: Vec<&str> = ["spkitemid", "sc1", "sc2", "candidate"]
        .into_iter()
        .chain(names.iter().map(String::as_str))
        .chain(cfg.subgroups.iter().map(String::as_str))
        .chain(cfg.flag_column.iter().map(|f| f.column.as_str()))
        .collect();
    let ignored: Vec<&str> = table
        .names()
        .into_iter()
        .filter(|n| !used.contains(n))
        .collect();
    if !ignored.is_empty() {
        notes.push(format!(
            "note: these columns of the features file are not used: {}",
            ignored.join(", ")
        ));
    }
    if !cfg.flag_column.is_empty() {
        notes.push(
            "warning: flag_column is copied to the predictions but not applied (as rsmpredict \
             does): no response is excluded by it"
                .into(),
        );
    }
    let raw: Vec<Vec<f64>> = names
        .iter()
        .map(|f| table.column(f).expect("checked").values.to_numeric())
        .collect();
    let (keep, preprocessed) = preprocess(&model, &raw, table.nrows, &mut notes);
    let kept: Vec<usize> = (0..table.nrows).filter(|&i| keep[i]).collect();
    if kept.is_empty() {
        bail!(
            "no responses left in the features file {} after removing non-numeric feature values \
             and values the transforms are undefined for",
            cfg.input_features_file.display()
        );
    }
    let x = FeatureMatrix::from_columns(
        names
            .iter()
            .cloned()
            .zip(preprocessed.iter().cloned())
            .collect(),
    )
    .map_err(|e| anyhow!("{e}"))?;
    let raw_pred =
        raw_predictions(model.intercept, &model.coefficients, &x).map_err(|e| anyhow!("{e}"))?;
    let predictions = model
        .post
        .postprocess(&raw_pred)
        .map_err(|e| anyhow!("{e}"))?;
    let mut inputs = vec![input];
    inputs.extend(model.info.iter().cloned());
    Ok(Predicted {
        excluded: (0..table.nrows).filter(|&i| !keep[i]).collect(),
        kept,
        ids,
        raw,
        preprocessed,
        predictions,
        has_sc1,
        notes,
        inputs,
        model,
        table,
        cfg,
    })
}
