//! `rsmreport preferences EXP`: an audit of pairwise preference
//! annotations against a reference annotator.

use super::{config_error, data_error, finish_files, Failure};
use rsmreport::kinds::preferences::{self, read, run};
use rsmreport::provenance::{self, timed};
use rsmreport::{config, output};
use std::path::{Path, PathBuf};

pub fn run(experiment: &Path, output_dir: Option<PathBuf>, force: bool) -> Result<(), Failure> {
    let cfg = config::preferences::load(experiment).map_err(config_error)?;
    let dir = output_dir.unwrap_or_else(|| PathBuf::from(&cfg.experiment_id));
    let mut inputs = vec![experiment];
    inputs.extend(cfg.pairs_files.iter().map(PathBuf::as_path));
    output::refuse_inputs_inside(&dir, &inputs).map_err(config_error)?;
    output::check_output_dir(&dir, force).map_err(config_error)?;
    // The checksum of the pairs file is computed on another thread while the
    // pairs are read and analysed.
    let (read, sha256) = provenance::read_with_checksum(&cfg.pairs_file, || {
        timed("read pairs", || read::read(&cfg)).map(|pairs| {
            let analysis = timed("analyse", || run::analyse(&cfg, &pairs));
            (pairs, analysis)
        })
    });
    let (pairs, analysis) = read.map_err(data_error)?;
    let input = rsmreport::render::context::InputCtx {
        role: "pairs".into(),
        path: cfg.pairs_file.display().to_string(),
        rows: pairs.len().to_string(),
        sha256: sha256.map_err(data_error)?,
    };
    let files = timed("report and tables", || {
        preferences::files(&analysis, vec![input], provenance::generation_epoch())
    })
    .map_err(data_error)?;
    let lines = |_: &[PathBuf]| preferences::terminal_lines(&analysis);
    finish_files(&dir, force, &files, lines, &[])
}
