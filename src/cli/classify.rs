//! `rsmreport classify EXP`: classifiers against gold labels (the
//! `classify` kind), with intervals and paired verdicts against a baseline.

use super::{config_error, data_error, finish_files, Failure};
use anyhow::anyhow;
use rsmreport::kinds::classify::{files, read, run, terminal_lines};
use rsmreport::provenance::{self, timed};
use rsmreport::{config, output};
use std::path::{Path, PathBuf};

pub fn run(experiment: &Path, output_dir: Option<PathBuf>, force: bool) -> Result<(), Failure> {
    let cfg = config::classify::load(experiment).map_err(config_error)?;
    let gates = rsmreport::kinds::classify::gates::parse(&cfg).map_err(config_error)?;
    let dir = output_dir.unwrap_or_else(|| PathBuf::from(&cfg.experiment_id));
    output::refuse_inputs_inside(&dir, &[experiment, &cfg.predictions_file])
        .map_err(config_error)?;
    output::check_output_dir(&dir, force).map_err(config_error)?;
    let (read, sha256) = provenance::read_with_checksum(&cfg.predictions_file, || {
        timed("read predictions", || read::read(&cfg))
    });
    let data = read.map_err(data_error)?;
    if data.n() == 0 {
        return Err(data_error(anyhow!(
            "{}: no item has a gold label in column '{}' ({} rows read, every gold cell blank)",
            cfg.predictions_file.display(),
            cfg.gold_column,
            data.n_rows
        )));
    }
    let mut analysis = timed("analyse", || run::analyse(&cfg, &data));
    analysis.gates = rsmreport::kinds::classify::gates::evaluate(&gates, &cfg, &analysis)
        .map_err(config_error)?;
    let input = rsmreport::render::context::InputCtx {
        role: "predictions".into(),
        path: cfg.predictions_file.display().to_string(),
        rows: data.n_rows.to_string(),
        sha256: sha256.map_err(data_error)?,
    };
    let files = timed("report and tables", || {
        files(&analysis, &cfg, vec![input], provenance::generation_epoch())
    })
    .map_err(data_error)?;
    let result = finish_files(
        &dir,
        force,
        &files,
        |_| terminal_lines(&analysis),
        &analysis.gates,
    );
    // The process ends right after this: leave the large buffers to the OS.
    std::mem::forget((data, analysis));
    result
}
