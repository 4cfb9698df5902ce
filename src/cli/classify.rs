//! `rsmreport classify EXP`: classifiers against gold labels (the
//! `classify` kind), with intervals and paired verdicts against a baseline.

use super::{run_kind, OutputArgs};
use rsmreport::kinds::classify;
use std::path::Path;

pub fn run(experiment: &Path, output: OutputArgs) -> anyhow::Result<()> {
    let config =
        rsmreport_config::kind_hint::with_hint(classify::load(experiment), "classify", experiment)?;
    run_kind::<classify::Classify>(config, output.destination())
}
