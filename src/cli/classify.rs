//! `rsmreport classify EXP`: classifiers against gold labels (the
//! `classify` kind), with intervals and paired verdicts against a baseline.

use super::{finish, OutputArgs};
use rsmreport::kinds::{self, classify, Request};
use std::path::Path;

pub fn run(experiment: &Path, output: OutputArgs) -> anyhow::Result<()> {
    let config = classify::load(experiment)?;
    finish(kinds::run::<classify::Classify>(Request {
        config,
        destination: output.destination(),
    })?)
}
