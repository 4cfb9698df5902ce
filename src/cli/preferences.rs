//! `rsmreport preferences EXP`: an audit of pairwise preference
//! annotations against a reference annotator.

use super::{finish, OutputArgs};
use rsmreport::kinds::{self, preferences, Request};
use std::path::Path;

pub fn run(experiment: &Path, output: OutputArgs) -> anyhow::Result<()> {
    let config = preferences::load(experiment)?;
    finish(kinds::run::<preferences::Preferences>(Request {
        config,
        destination: output.destination(),
    })?)
}
