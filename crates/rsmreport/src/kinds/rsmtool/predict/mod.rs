//! `rsmreport predict EXP` (train.md 13, RSMTool's `rsmpredict`): the
//! model of a `train` folder (or of an RSMTool built-in-model experiment)
//! applied to new responses, with rsmpredict's outputs; the predictions
//! file is a `build` predictions file as it stands.
//!
//! * [`read`]: the new responses and the model (our model file, read by
//!   `kinds::train::model`, or RSMTool's three tables).
//! * [`run`]: rsmpredict's pipeline through `metrics::linear`.
//! * [`tables`]: the output tables and the summary.
//! * this file: the kind's contract ([`Predict`], run by
//!   [`crate::kinds::run`]): its tables and summary for the shared writer
//!   ([`crate::kinds::archive`]) and its terminal lines; it writes no
//!   report (`writes_report` is false), as rsmpredict: the predictions go
//!   on to `build`.
//!
//! Command assembly: reads its inputs (in `read` only), defines no
//! statistic of its own, and makes no file. Of the other kinds it uses
//! only its family's `train` (the model file's reader and the summary
//! version; `kinds::rsmtool`).

pub mod read;
pub mod run;
pub mod tables;

use std::path::{Path, PathBuf};

use anyhow::Result;
use rsmreport_config::predict::PredictConfig;
use rsmreport_report::render::context::InputCtx;
use run::Predicted;

/// Reads and validates a `predict` experiment file (configuration errors).
pub fn load(path: &Path) -> Result<PredictConfig> {
    rsmreport_config::predict::load(path).map_err(rsmreport_core::error::config)
}

/// `rsmreport predict`: run it with [`crate::kinds::run`].
pub struct Predict;

impl crate::kinds::Kind for Predict {
    type Config = PredictConfig;
    const NAME: &'static str = "predict";

    fn default_dir(cfg: &PredictConfig) -> Option<PathBuf> {
        Some(PathBuf::from(format!("{}_predictions", cfg.experiment_id)))
    }

    fn inputs(cfg: &PredictConfig) -> Vec<PathBuf> {
        vec![
            cfg.config_path.clone(),
            cfg.input_features_file.clone(),
            cfg.experiment_dir.clone(),
        ]
    }

    fn compute(cfg: PredictConfig) -> Result<Box<dyn crate::kinds::Report>> {
        let model = read::model(&cfg)?;
        let (table, input) = read::input(&cfg)?;
        Ok(Box::new(Computed(run::execute(cfg, table, input, model)?)))
    }
}

/// A finished prediction run.
struct Computed(Predicted);

impl crate::kinds::Report for Computed {
    fn id(&self) -> &str {
        &self.0.cfg.experiment_id
    }

    fn default_dir(&self) -> PathBuf {
        PathBuf::from(format!("{}_predictions", self.0.cfg.experiment_id))
    }

    fn tables(&self) -> crate::kinds::Tables<'_> {
        crate::kinds::owned(
            tables::frames(&self.0)
                .into_iter()
                .filter(|f| f.is_writable())
                .collect(),
        )
    }

    fn table_format(&self) -> rsmreport_core::schema::FileFormat {
        self.0.cfg.file_format
    }

    fn summary(&self) -> serde_json::Value {
        tables::summary(&self.0)
    }

    fn inputs(&self) -> Vec<InputCtx> {
        crate::kinds::train::report::inputs(&self.0.inputs)
    }

    fn writes_report(&self) -> bool {
        false
    }

    fn report(&self, _epoch: i64) -> Result<rsmreport_report::render::Report> {
        Err(anyhow::anyhow!("predict writes no report (as rsmpredict)"))
    }

    fn lines(&self, written: &[PathBuf], dir: &Path) -> Vec<String> {
        let p = &self.0;
        let thousands = |n: usize| rsmreport_report::render::format::thousands(n as u64);
        let mut out = vec![format!(
            "{}: predicted {} of {} responses ({} excluded); wrote {} files to {}",
            p.cfg.experiment_id,
            thousands(p.kept.len()),
            thousands(p.table.nrows),
            thousands(p.excluded.len()),
            written.len(),
            dir.join("output").display()
        )];
        out.extend(p.notes.iter().cloned());
        out
    }
}
