//! The report kinds: one folder per kind, each with the same shape (it
//! reads its inputs, runs the stages, assembles its report sections and
//! hands its files to the command line's `finish`). Report sections live
//! only inside their kind.
//!
//! * [`evaluation`]: `rsmreport build` and `check` (an experiment's
//!   predictions against human scores, at parity with RSMTool's rsmeval);
//! * [`classify`]: `rsmreport classify` (classifiers against gold labels).
//!
//! `compare`, `summarize`, `agree` and `preferences` still sit at the top
//! of the crate and move here unchanged (`git mv`) once the branches that
//! edit them are merged; see `docs/architecture.md`.

pub mod agree;
pub mod classify;
pub mod compare;
pub mod evaluation;
pub mod preferences;
pub mod summarize;
