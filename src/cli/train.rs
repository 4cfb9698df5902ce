//! `rsmreport train EXP`: RSMTool's model building (`rsmtool` with its
//! built-in linear models) and the evaluation of the model.

use super::{run_kind, OutputArgs};
use rsmreport::kinds::train;
use std::path::Path;

pub fn run(experiment: &Path, output: OutputArgs) -> anyhow::Result<()> {
    run_kind::<train::Train>(train::load(experiment)?, output.destination())
}
