//! `rsmreport agree EXP`: agreement among raters of an annotation file.

use super::{finish, OutputArgs};
use rsmreport::kinds::{self, agree, Request};
use std::path::Path;

pub fn run(experiment: &Path, output: OutputArgs) -> anyhow::Result<()> {
    let config = agree::load(experiment)?;
    finish(kinds::run::<agree::Agree>(Request {
        config,
        destination: output.destination(),
    })?)
}
