//! `rsmreport agree EXP`: agreement among raters of an annotation file.

use super::{run_kind, OutputArgs};
use rsmreport::kinds::agree;
use std::path::Path;

pub fn run(experiment: &Path, output: OutputArgs) -> anyhow::Result<()> {
    run_kind::<agree::Agree>(agree::load(experiment)?, output.destination())
}
