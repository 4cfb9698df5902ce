//! `rsmreport build EXP`: the evaluation kind over one experiment; each
//! file is written as soon as its bytes exist.

use super::{finish, OutputArgs};
use rsmreport::kinds::{self, evaluation, Request};
use std::path::Path;

pub fn run(experiment: &Path, output: OutputArgs, gates: Option<&Path>) -> anyhow::Result<()> {
    let config = evaluation::load(experiment, gates)?;
    finish(kinds::run::<evaluation::Build>(Request {
        config,
        destination: output.destination(),
    })?)
}
