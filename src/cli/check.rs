//! `rsmreport check EXP`: validates the experiment and its data and prints
//! what a build would do; writes nothing.

use super::finish;
use rsmreport::kinds::{self, evaluation, Destination, Request};
use std::path::Path;

pub fn run(experiment: &Path, gates: Option<&Path>) -> anyhow::Result<()> {
    let config = evaluation::load(experiment, gates)?;
    finish(kinds::run::<evaluation::Check>(Request {
        config,
        destination: Destination::Nowhere,
    })?)
}
