//! `rsmreport preferences EXP`: an audit of pairwise preference
//! annotations against a reference annotator.

use super::{run_kind, OutputArgs};
use rsmreport::kinds::preferences;
use std::path::Path;

pub fn run(experiment: &Path, output: OutputArgs) -> anyhow::Result<()> {
    run_kind::<preferences::Preferences>(preferences::load(experiment)?, output.destination())
}
