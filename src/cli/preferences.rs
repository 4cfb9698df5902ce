//! `rsmreport preferences EXP`: an audit of pairwise preference
//! annotations against a reference annotator.

use super::{run_kind, OutputArgs};
use rsmreport::kinds::preferences;
use std::path::Path;

pub fn run(experiment: &Path, output: OutputArgs) -> anyhow::Result<()> {
    let config = rsmreport_config::kind_hint::with_hint(
        preferences::load(experiment),
        "preferences",
        experiment,
    )?;
    run_kind::<preferences::Preferences>(config, output.destination())
}
