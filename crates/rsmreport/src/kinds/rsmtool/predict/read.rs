//! Command assembly (predict): the inputs of `rsmreport predict`
//! (train.md 13.2): the new responses (ids, candidates and subgroups as
//! raw text) and the model: our model file `output/<id>_model.json`, or
//! RSMTool's three tables of a built-in-model experiment (`<id>_feature`,
//! `<id>_postprocessing_params`, `<id>_coefficients`). A missing folder,
//! model or table is a configuration error naming the path.
//!
//! Reads the input files; computes nothing; writes nothing.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};
use rsmreport_config::predict::PredictConfig;
use rsmreport_core::error;
use rsmreport_core::provenance::{sha256_file, InputInfo};
use rsmreport_core::table::Table;
use rsmreport_metrics::linear::predict::Postprocessing;
use rsmreport_metrics::linear::preprocess::{FeatureStats, Transform, Truncation};

use crate::kinds::train::model::Stored;
use crate::kinds::train::read::read_hashed;

/// The model `predict` applies.
pub struct Loaded {
    /// Every feature's statistics, in the model's order.
    pub features: Vec<FeatureStats>,
    /// `(feature, coefficient)` of the model's features.
    pub coefficients: Vec<(String, f64)>,
    pub intercept: f64,
    pub post: Postprocessing,
    pub standardize: bool,
    /// The model's files, with their checksums.
    pub info: Vec<InputInfo>,
    pub notes: Vec<String>,
}

fn config_error(message: String) -> anyhow::Error {
    error::config(anyhow!(message))
}

/// `experiment_dir/output`, which must exist.
fn output_dir(cfg: &PredictConfig) -> Result<PathBuf> {
    let out = cfg.experiment_dir.join("output");
    if !out.is_dir() {
        return Err(config_error(format!(
            "{}: the experiment folder {} has no output/ folder (experiment_dir must be the \
             output folder of `rsmreport train` or of an RSMTool experiment)",
            cfg.config_path.display(),
            cfg.experiment_dir.display()
        )));
    }
    Ok(out)
}

fn info(role: &'static str, path: &Path, rows: usize) -> Result<InputInfo> {
    Ok(InputInfo {
        role,
        path: path.to_path_buf(),
        rows,
        sha256: sha256_file(path)?,
    })
}

/// A predict-config setting that contradicts the model file's (13.2).
fn check_setting(cfg: &PredictConfig, key: &str, given: Option<bool>, stored: bool) -> Result<()> {
    match given {
        Some(g) if g != stored => Err(config_error(format!(
            "{}: {key} = {g}, but the model was trained with {key} = {stored}; remove the key \
             (the model file's setting applies)",
            cfg.config_path.display()
        ))),
        _ => Ok(()),
    }
}

/// Our model file.
fn from_model_file(cfg: &PredictConfig, path: &Path) -> Result<Loaded> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        config_error(format!(
            "cannot read the model file {}: {e}",
            path.display()
        ))
    })?;
    let m = Stored::parse(&text, &path.display().to_string()).map_err(error::config)?;
    check_setting(
        cfg,
        "standardize_features",
        cfg.standardize_features,
        m.standardize_features,
    )?;
    check_setting(
        cfg,
        "truncate_outliers",
        cfg.truncate_outliers,
        m.truncate_outliers,
    )?;
    Ok(Loaded {
        coefficients: m
            .features
            .iter()
            .map(|(s, c)| (s.name.clone(), *c))
            .collect(),
        features: m.features.into_iter().map(|(s, _)| s).collect(),
        intercept: m.intercept,
        post: m.post,
        standardize: m.standardize_features,
        info: vec![info("model", path, 1)?],
        notes: Vec::new(),
    })
}

/// One of RSMTool's model tables, which must exist.
fn trio_table(dir: &Path, id: &str, name: &str) -> Result<(Table, PathBuf)> {
    let path = dir.join(format!("{id}_{name}.csv"));
    if !path.is_file() {
        return Err(config_error(format!(
            "no model for '{id}' in {}: neither {id}_model.json nor RSMTool's {} exists",
            dir.display(),
            path.display()
        )));
    }
    let table = rsmreport_io::input::read_table(&path, &["feature"]).map_err(error::config)?;
    Ok((table, path))
}

/// A numeric column of an RSMTool model table (configuration errors).
fn numbers(t: &Table, path: &Path, col: &str) -> Result<Vec<f64>> {
    t.column(col)
        .map(|c| c.values.to_numeric())
        .ok_or_else(|| config_error(format!("{}: no column '{col}'", path.display())))
}

fn texts(t: &Table, path: &Path, col: &str) -> Result<Vec<String>> {
    let c = t
        .column(col)
        .ok_or_else(|| config_error(format!("{}: no column '{col}'", path.display())))?;
    Ok((0..t.nrows)
        .map(|i| {
            crate::preprocess::cell_text(&c.values, i).map_or_else(String::new, |s| s.into_owned())
        })
        .collect())
}

/// RSMTool's three tables (train.md 13.2): the predict config's settings
/// apply, truncation at `train_mean +/- 4 train_sd`.
fn from_trio(cfg: &PredictConfig, dir: &Path) -> Result<Loaded> {
    let id = &cfg.experiment_id;
    let (ft, fpath) = trio_table(dir, id, "feature")?;
    let (pt, ppath) = trio_table(dir, id, "postprocessing_params")?;
    let (ct, cpath) = trio_table(dir, id, "coefficients")?;
    let truncation = if cfg.truncate_outliers.unwrap_or(true) {
        Truncation::MeanSd4
    } else {
        Truncation::None
    };
    let names = texts(&ft, &fpath, "feature")?;
    let transforms = texts(&ft, &fpath, "transform")?;
    let col = |c: &str| numbers(&ft, &fpath, c);
    let (sign, mean, sd) = (col("sign")?, col("train_mean")?, col("train_sd")?);
    let (tmean, tsd) = (col("train_transformed_mean")?, col("train_transformed_sd")?);
    let mut features = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let t: Transform = transforms[i]
            .parse()
            .map_err(|e| config_error(format!("{}: feature '{name}': {e}", fpath.display())))?;
        features.push(FeatureStats::from_trained(
            name, t, sign[i], mean[i], sd[i], tmean[i], tsd[i], truncation,
        ));
    }
    let mut notes = Vec::new();
    let p = |c: &str| -> Result<f64> {
        Ok(numbers(&pt, &ppath, c)?
            .first()
            .copied()
            .unwrap_or(f64::NAN))
    };
    let trim_tolerance = match pt.column("trim_tolerance") {
        Some(_) => p("trim_tolerance")?,
        None => {
            notes.push(format!(
                "warning: {} has no trim_tolerance: the default 0.4998 is used",
                ppath.display()
            ));
            0.4998
        }
    };
    let post = Postprocessing {
        trim_min: p("trim_min")?,
        trim_max: p("trim_max")?,
        trim_tolerance,
        h1_mean: p("h1_mean")?,
        h1_sd: p("h1_sd")?,
        train_predictions_mean: p("train_predictions_mean")?,
        train_predictions_sd: p("train_predictions_sd")?,
    };
    let cnames = texts(&ct, &cpath, "feature")?;
    let cvalues = numbers(&ct, &cpath, "coefficient")?;
    let intercept = cnames
        .iter()
        .position(|n| n == "Intercept")
        .map_or(0.0, |i| cvalues[i]);
    let coefficients = cnames
        .into_iter()
        .zip(cvalues)
        .filter(|(n, _)| n != "Intercept")
        .collect();
    Ok(Loaded {
        features,
        coefficients,
        intercept,
        post,
        standardize: cfg.standardize_features.unwrap_or(true),
        info: vec![
            info("model features", &fpath, ft.nrows)?,
            info("model postprocessing", &ppath, pt.nrows)?,
            info("model coefficients", &cpath, ct.nrows)?,
        ],
        notes,
    })
}

/// The model of `experiment_dir` (13.2).
pub fn model(cfg: &PredictConfig) -> Result<Loaded> {
    let out = output_dir(cfg)?;
    let file = out.join(format!("{}_model.json", cfg.experiment_id));
    if file.is_file() {
        from_model_file(cfg, &file)
    } else {
        from_trio(cfg, &out)
    }
}

/// The new responses: ids, candidates and subgroups as raw text.
pub fn input(cfg: &PredictConfig) -> Result<(Table, InputInfo)> {
    let mut text = vec![cfg.id_column.as_str()];
    text.extend(cfg.candidate_column.as_deref());
    text.extend(cfg.subgroups.iter().map(String::as_str));
    read_hashed("features", &cfg.input_features_file, &text)
}
