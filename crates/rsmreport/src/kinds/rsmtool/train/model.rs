//! Command assembly (train, predict): the model file
//! `output/<id>_model.json` (train.md 12): everything `predict` needs, in
//! one JSON object, numbers with shortest round-trip digits (they read back
//! exactly). [`document`] makes it from a training run; [`Stored::parse`]
//! reads it back (an unknown `format` or a newer `format_version` is a
//! configuration error).
//!
//! Builds and parses JSON values; reads no file and writes none.

use anyhow::{anyhow, bail, Result};
use serde_json::{json, Map, Value};

use rsmreport_metrics::linear::predict::Postprocessing;
use rsmreport_metrics::linear::preprocess::{FeatureStats, Transform};

use super::run::Trained;

/// The value of `format`.
pub const FORMAT: &str = "rsmreport-linear-model";
/// The value of `format_version` this version writes and the newest it reads.
pub const FORMAT_VERSION: u64 = 1;

/// A number, `null` when not finite (a bound that does not apply).
fn number(x: Option<f64>) -> Value {
    x.filter(|v| v.is_finite())
        .map_or(Value::Null, |v| json!(v))
}

/// The postprocessing object: the seven values of `postprocessing_params`.
pub fn postprocessing_json(p: &Postprocessing) -> Value {
    json!({
        "trim_min": p.trim_min,
        "trim_max": p.trim_max,
        "trim_tolerance": p.trim_tolerance,
        "h1_mean": p.h1_mean,
        "h1_sd": p.h1_sd,
        "train_predictions_mean": p.train_predictions_mean,
        "train_predictions_sd": p.train_predictions_sd,
    })
}

/// The model file of a training run.
pub fn document(t: &Trained) -> Value {
    let cfg = &t.cfg;
    let coefs = t.fitted.feature_coefficients();
    let features: Vec<Value> = t
        .stats
        .iter()
        .filter(|s| t.selected.contains(&s.name))
        .map(|s| {
            let coefficient = coefs
                .iter()
                .find(|(n, _)| *n == s.name)
                .map_or(0.0, |(_, c)| *c);
            json!({
                "feature": s.name,
                "transform": s.transform.name(),
                "sign": s.sign,
                "train_mean": s.train_mean,
                "train_sd": s.train_sd,
                "truncation_min": number(s.truncation_min),
                "truncation_max": number(s.truncation_max),
                "train_transformed_mean": s.train_transformed_mean,
                "train_transformed_sd": s.train_transformed_sd,
                "coefficient": coefficient,
            })
        })
        .collect();
    let truncation = match (cfg.truncate_outliers, cfg.use_truncation_thresholds) {
        (false, _) => "none",
        (true, true) => "thresholds",
        (true, false) => "mean_4sd",
    };
    json!({
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "experiment_id": cfg.experiment_id,
        "model": cfg.model.name(),
        "created_by": format!("rsmreport {}", env!("CARGO_PKG_VERSION")),
        "standardize_features": cfg.standardize_features,
        "truncate_outliers": cfg.truncate_outliers,
        "truncation": truncation,
        "use_scaled_predictions": cfg.use_scaled_predictions,
        "intercept": t.fitted.intercept,
        "postprocessing": postprocessing_json(&t.post),
        "features": features,
    })
}

/// A model read back: what `predict` applies.
#[derive(Clone, Debug)]
pub struct Stored {
    pub model: String,
    pub standardize_features: bool,
    pub truncate_outliers: bool,
    pub use_scaled_predictions: bool,
    pub intercept: f64,
    /// Every feature of the model with its coefficient, in `F` order.
    pub features: Vec<(FeatureStats, f64)>,
    pub post: Postprocessing,
}

fn field<'a>(m: &'a Map<String, Value>, key: &str, at: &str) -> Result<&'a Value> {
    m.get(key)
        .ok_or_else(|| anyhow!("{at}: the model file has no '{key}'"))
}

fn float(m: &Map<String, Value>, key: &str, at: &str) -> Result<f64> {
    field(m, key, at)?
        .as_f64()
        .ok_or_else(|| anyhow!("{at}: '{key}' in the model file is not a number"))
}

fn boolean(m: &Map<String, Value>, key: &str, at: &str) -> Result<bool> {
    field(m, key, at)?
        .as_bool()
        .ok_or_else(|| anyhow!("{at}: '{key}' in the model file is not true or false"))
}

fn text<'a>(m: &'a Map<String, Value>, key: &str, at: &str) -> Result<&'a str> {
    field(m, key, at)?
        .as_str()
        .ok_or_else(|| anyhow!("{at}: '{key}' in the model file is not a text"))
}

/// One feature object of the model file.
fn feature(v: &Value, at: &str) -> Result<(FeatureStats, f64)> {
    let m = v
        .as_object()
        .ok_or_else(|| anyhow!("{at}: a feature of the model file is not an object"))?;
    let name = text(m, "feature", at)?;
    let transform: Transform = text(m, "transform", at)?
        .parse()
        .map_err(|e| anyhow!("{at}: feature '{name}': {e}"))?;
    let bound = |key: &str| -> Result<Option<f64>> {
        match field(m, key, at)? {
            Value::Null => Ok(None),
            v => v
                .as_f64()
                .map(Some)
                .ok_or_else(|| anyhow!("{at}: '{key}' of feature '{name}' is not a number")),
        }
    };
    let stats = FeatureStats {
        name: name.to_string(),
        transform,
        sign: float(m, "sign", at)?,
        train_mean: float(m, "train_mean", at)?,
        train_sd: float(m, "train_sd", at)?,
        truncation_min: bound("truncation_min")?,
        truncation_max: bound("truncation_max")?,
        train_transformed_mean: float(m, "train_transformed_mean", at)?,
        train_transformed_sd: float(m, "train_transformed_sd", at)?,
    };
    Ok((stats, float(m, "coefficient", at)?))
}

impl Stored {
    /// Parses a model file's text (`at`: its path, for messages).
    pub fn parse(source: &str, at: &str) -> Result<Stored> {
        let v: Value = serde_json::from_str(source)
            .map_err(|e| anyhow!("{at}: not a JSON model file: {e}"))?;
        let m = v
            .as_object()
            .ok_or_else(|| anyhow!("{at}: the model file is not a JSON object"))?;
        let format = text(m, "format", at)?;
        if format != FORMAT {
            bail!("{at}: unknown model format '{format}' (expected '{FORMAT}')");
        }
        let version = field(m, "format_version", at)?.as_u64().unwrap_or(u64::MAX);
        if version > FORMAT_VERSION {
            bail!(
                "{at}: the model file has format_version {version}, newer than this rsmreport \
                 reads ({FORMAT_VERSION}); use a newer rsmreport"
            );
        }
        let post = field(m, "postprocessing", at)?
            .as_object()
            .ok_or_else(|| anyhow!("{at}: 'postprocessing' is not an object"))?;
        let features = field(m, "features", at)?
            .as_array()
            .ok_or_else(|| anyhow!("{at}: 'features' is not a list"))?
            .iter()
            .map(|f| feature(f, at))
            .collect::<Result<Vec<_>>>()?;
        Ok(Stored {
            model: text(m, "model", at)?.to_string(),
            standardize_features: boolean(m, "standardize_features", at)?,
            truncate_outliers: boolean(m, "truncate_outliers", at)?,
            use_scaled_predictions: boolean(m, "use_scaled_predictions", at)?,
            intercept: float(m, "intercept", at)?,
            features,
            post: Postprocessing {
                trim_min: float(post, "trim_min", at)?,
                trim_max: float(post, "trim_max", at)?,
                trim_tolerance: float(post, "trim_tolerance", at)?,
                h1_mean: float(post, "h1_mean", at)?,
                h1_sd: float(post, "h1_sd", at)?,
                train_predictions_mean: float(post, "train_predictions_mean", at)?,
                train_predictions_sd: float(post, "train_predictions_sd", at)?,
            },
        })
    }
}
