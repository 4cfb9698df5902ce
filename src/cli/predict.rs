//! `rsmreport predict EXP`: a trained model (of `rsmreport train`, or an
//! RSMTool built-in-model experiment) applied to new responses.

use super::{run_kind, OutputArgs};
use rsmreport::kinds::predict;
use std::path::Path;

pub fn run(experiment: &Path, output: OutputArgs) -> anyhow::Result<()> {
    run_kind::<predict::Predict>(predict::load(experiment)?, output.destination())
}
