//! `rsmreport check EXP`: validates the experiment and its data and prints
//! what a build would do; writes nothing.

use super::build::{execute, load_experiment};
use super::Failure;
use rsmreport::kinds::evaluation;
use std::path::Path;

pub fn run(experiment: &Path, gates: Option<&Path>) -> Result<(), Failure> {
    let exp = load_experiment(experiment, gates)?;
    let run = execute(exp)?;
    if !super::quiet() {
        print!("{}", evaluation::describe(&run));
    }
    Ok(())
}
