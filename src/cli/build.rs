//! `rsmreport build EXP`: the evaluation kind over one experiment; each
//! file is written as soon as its bytes exist.

use super::{run_kind, OutputArgs};
use rsmreport::kinds::evaluation;
use std::path::Path;

pub fn run(experiment: &Path, output: OutputArgs, gates: Option<&Path>) -> anyhow::Result<()> {
    let config = rsmreport_config::kind_hint::with_hint(
        evaluation::load(experiment, gates),
        "build",
        experiment,
    )?;
    run_kind::<evaluation::Build>(config, output.destination())
}
