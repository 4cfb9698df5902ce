//! `rsmreport agree EXP` (`spec/agreement.md` 1.2, 3, 4, 6, 7): agreement
//! among raters of an annotation file with no system score. The reading
//! and the numbers are the analysis stage's (`crate::analysis::agreement`:
//! labels, ratings, run, tables), shared with `build`; [`outputs`] makes the
//! files, the JSON and the terminal lines, and [`report`] the HTML report
//! through the report engine.
//!
//! Command assembly: writes no files (the output stage does) and defines
//! no statistic of its own. Must not touch `build`, `compare` or the
//! metrics it calls.

pub mod outputs;
pub mod report;

/// The computation lives in the analysis stage (`build` shares it).
pub use crate::analysis::agreement::{labels, ratings, run};
