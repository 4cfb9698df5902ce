//! `rsmreport spans EXP`: span agreement and span-level evaluation.

use super::{run_kind, OutputArgs};
use rsmreport::kinds::spans;
use std::path::Path;

pub fn run(experiment: &Path, output: OutputArgs) -> anyhow::Result<()> {
    run_kind::<spans::Spans>(spans::load(experiment)?, output.destination())
}
