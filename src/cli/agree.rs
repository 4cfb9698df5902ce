//! `rsmreport agree EXP`: agreement among raters of an annotation file.

use super::{config_error, data_error, finish_files, Failure};
use rsmreport::kinds::agree;
use rsmreport::{output, provenance};
use std::path::{Path, PathBuf};

pub fn run(experiment: &Path, output_dir: Option<PathBuf>, force: bool) -> Result<(), Failure> {
    let cfg = rsmreport::config::agree::load(experiment).map_err(config_error)?;
    let dir = output_dir.unwrap_or_else(|| PathBuf::from(&cfg.experiment_id));
    output::refuse_inputs_inside(&dir, &[&cfg.origin, &cfg.annotations_path])
        .map_err(config_error)?;
    output::check_output_dir(&dir, force).map_err(config_error)?;
    let (ratings, input) = agree::read::read(&cfg).map_err(data_error)?;
    let agreement = agree::run::run(&cfg, ratings);
    let files = agree::files(
        &agreement,
        &cfg,
        vec![input],
        provenance::generation_epoch(),
    )
    .map_err(data_error)?;
    let lines = |_: &[PathBuf]| agree::terminal_lines(&agreement, &cfg);
    finish_files(&dir, force, &files, lines, &[])
}
