//! Stage 5 (analysis), agreement among raters, shared by `rsmreport agree`
//! and `build`'s rater agreement section: [`labels`] maps label texts to
//! category codes, [`ratings`] reads the wide, long and counts layouts,
//! [`run`] computes every number (all items and each subgroup level) with
//! `rsmreport_metrics::raters`, and [`tables`] makes their frames. No report
//! kind is imported here; both kinds call these same functions.

pub mod labels;
pub mod ratings;
pub mod run;
pub mod tables;
