//! `rsmreport check EXP`: the experiment of any kind in the kind table
//! (the kind named by `--kind`, else the one its keys say), read,
//! validated and computed as a run would, with an account of what the run
//! would read, compute, gate and write on stdout; writes nothing. The exit
//! code is the run's: 2 configuration, 1 data, 3 when a gate of severity
//! `fail` fails.

use std::path::Path;

use rsmreport::kinds::registry::{self, Options};

/// The marker of a check whose gates of severity `fail` failed: exit
/// code 3, as the run's.
#[derive(Debug)]
pub struct CheckGatesFailed;

impl std::fmt::Display for CheckGatesFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(
            "a quality gate of severity fail failed (see above): a run would exit with code 3; \
             check wrote nothing",
        )
    }
}

impl std::error::Error for CheckGatesFailed {}

pub fn run(experiment: &Path, kind: Option<&str>, gates: Option<&Path>) -> anyhow::Result<()> {
    let entry = registry::kind_of(experiment, kind)?;
    let options = Options {
        experiment: experiment.to_path_buf(),
        gates: gates.map(Path::to_path_buf),
        tables: Vec::new(),
    };
    let outcome = entry.check(&options)?;
    super::progress::clear();
    if !super::quiet() {
        for line in outcome.lines(&[]) {
            super::say(&line);
        }
    }
    let failed = outcome.gates_failed();
    if failed && super::quiet() {
        let lines = rsmreport::kinds::common::gates::terminal_lines(outcome.report.gates());
        for line in lines.iter().filter(|l| l.starts_with("gate FAILED")) {
            super::warn(line);
        }
    }
    // The process ends right after this (see `super::finish`).
    std::mem::forget(outcome);
    if failed {
        return Err(CheckGatesFailed.into());
    }
    Ok(())
}
