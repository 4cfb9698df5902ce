//! `rsmreport build EXP`: the evaluation kind over one experiment; each
//! file is written as soon as its bytes exist.

use super::{config_error, data_error, finish, Failure};
use anyhow::anyhow;
use rsmreport::kinds::evaluation::{self, run::Run};
use rsmreport::{config, output};
use std::path::{Path, PathBuf};

/// The experiment and the gates of `--gates FILE`, validated (exit 2).
pub fn load_experiment(path: &Path, gates: Option<&Path>) -> Result<config::Experiment, Failure> {
    let mut exp = config::load(path).map_err(config_error)?;
    if let Some(file) = gates {
        let more = config::gates::load_file(file, &exp).map_err(config_error)?;
        config::gates::merge(&mut exp.gates, more);
    }
    config::gates::unique_names(&exp.gates).map_err(|e| config_error(anyhow!(e)))?;
    Ok(exp)
}

/// Runs the pipeline and evaluates the gates.
pub fn execute(exp: config::Experiment) -> Result<Run, Failure> {
    let mut run = evaluation::run::execute(exp).map_err(data_error)?;
    evaluation::run::evaluate_gates(&mut run).map_err(|e| config_error(anyhow!(e)))?;
    Ok(run)
}

pub fn run(
    experiment: &Path,
    output_dir: Option<PathBuf>,
    force: bool,
    gates: Option<&Path>,
) -> Result<(), Failure> {
    let exp = load_experiment(experiment, gates)?;
    let dir = output_dir.unwrap_or_else(|| PathBuf::from(&exp.experiment_id));
    let mut inputs = evaluation::experiment_files(&exp);
    inputs.extend(gates);
    output::refuse_inputs_inside(&dir, &inputs).map_err(config_error)?;
    output::check_output_dir(&dir, force).map_err(config_error)?;
    let run = execute(exp)?;
    let result = finish(
        &dir,
        force,
        |sink| evaluation::files(&run, &mut |f| sink.put(f)),
        |written| evaluation::terminal_lines(&run, written, &dir),
        &run.gates,
    );
    // The process ends right after this: returning the run's millions of
    // small allocations to malloc one by one only costs time (4% of a 1M
    // build), so leave them to the OS.
    std::mem::forget(run);
    result
}
