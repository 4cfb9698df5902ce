//! `rsmreport agree EXP` (`spec/agreement.md` 1.2, 3, 4, 6, 7): agreement
//! among raters of an annotation file with no system score. [`labels`]
//! maps label texts to category codes, [`ratings`] reads the wide, long
//! and counts layouts, [`run`] computes every number (all items and each
//! subgroup level) with `crate::metrics::raters`, [`outputs`] makes the
//! tables, the JSON and the terminal lines, and [`report`] the HTML report
//! through the report engine.
//!
//! Command assembly: writes no files (the output stage does) and defines
//! no statistic of its own. Must not touch `build`, `compare` or the
//! metrics it calls.

pub mod labels;
pub mod outputs;
pub mod ratings;
pub mod report;
pub mod run;
