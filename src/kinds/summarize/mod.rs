//! `rsmreport summarize` (compare spec 3): one row per archived model
//! version with its headline statistics and their intervals, the agreement
//! of the human scores, the worst subgroup level's DSM, the fairness
//! models, and the difference of each version from a baseline with its
//! verdict. [`run`] assembles the summary from opened archives,
//! [`outputs`] its tables, JSON and terminal lines, [`report`] its HTML
//! report.
//!
//! Pure: works on archives read by [`crate::input::archive`]; writes no
//! files and computes no statistic itself (the statistics and the
//! differences come from the functions `build` and `compare` use).

pub mod outputs;
pub mod report;
pub mod run;
