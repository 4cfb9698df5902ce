//! `rsmreport agree EXP`: agreement among raters of an annotation file.

use super::{run_kind, OutputArgs};
use rsmreport::kinds::agree;
use std::path::Path;

pub fn run(experiment: &Path, output: OutputArgs) -> anyhow::Result<()> {
    let config =
        rsmreport_config::kind_hint::with_hint(agree::load(experiment), "agree", experiment)?;
    run_kind::<agree::Agree>(config, output.destination())
}
