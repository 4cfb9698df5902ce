//! The version workflow: compare two archived folders ([`compare`],
//! `rsmreport compare`), summarize many ([`summarize`], `rsmreport
//! summarize`). Both read the output folders a run archived and judge the
//! versions against a baseline with the shared verdict rows
//! (`kinds::common::comparison`). One kind with two commands: each keeps
//! its own `Kind` impl, configuration, outputs and tests; what both use
//! sits beside them, so that neither imports the other:
//!
//! * [`folders`]: the folders a command reads (for the output-folder
//!   check), and the record of every file read from them (provenance);
//! * [`report`]: the report pieces both show (a verdict cell's colour,
//!   a number with its interval, the badge of a set of verdicts);
//! * [`build`]: what is specific to the archives of `rsmreport build`:
//!   the headline statistics and their paired differences, the pairing
//!   of the responses both folders share, and the whole-set verdict rows
//!   of two versions. The folders of the other kinds are compared by
//!   their kind's own code (the kind table's `versions` entry), which
//!   `compare` calls for two folders and `summarize` for the baseline and
//!   each other folder (issue 49).
//!
//! Command assembly: reads the folders (in `folders` and the commands'
//! `read`); writes no files and computes no statistic itself (the
//! statistics come from the functions `build` uses).

pub mod build;
pub mod compare;
pub mod folders;
pub mod report;
pub mod summarize;
