//! `rsmreport compare BASELINE CANDIDATE`: paired differences of two
//! archived output folders, with verdicts and optional gates.

use super::{run_kind, OutputArgs};
use rsmreport::kinds::compare;
use std::path::Path;

/// What `rsmreport compare` was asked to do.
pub struct CompareArgs<'a> {
    pub baseline: &'a Path,
    pub candidate: &'a Path,
    pub output: OutputArgs,
    pub config: Option<&'a Path>,
    pub gates: Option<&'a Path>,
    pub unpaired: bool,
}

pub fn run(args: CompareArgs) -> anyhow::Result<()> {
    let config = compare::load(
        args.baseline,
        args.candidate,
        args.config,
        args.gates,
        args.unpaired,
    )?;
    run_kind::<compare::Compare>(config, args.output.destination())
}
