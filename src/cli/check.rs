//! `rsmreport check EXP`: validates the experiment and its data and prints
//! what a build would do; writes nothing.

use super::run_kind;
use rsmreport::kinds::{evaluation, Destination};
use std::path::Path;

pub fn run(experiment: &Path, gates: Option<&Path>) -> anyhow::Result<()> {
    let config = rsmreport_config::kind_hint::with_hint(
        evaluation::load(experiment, gates),
        "build",
        experiment,
    )?;
    run_kind::<evaluation::Check>(config, Destination::Nowhere)
}
