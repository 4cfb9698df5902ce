//! Command assembly for `rsmreport preferences` (`spec/preferences.md`):
//! how strongly each annotator's pairwise preferences follow a reference
//! annotator, with Feedback Forensics' metrics, seeded intervals and a
//! self-contained report.
//!
//! * [`read`]: the pairs file (tables through `crate::input`, AnnotatedPairs
//!   JSON with serde_json) as raw columns; duplicate ids are refused.
//! * [`run`]: every number, from the pure maths of
//!   `crate::metrics::preferences` (whole set and each subset value).
//! * [`models`]: the model view of spec 6 (traits by model).
//! * [`outputs`]: the tables, `<id>_preferences.json` and the terminal lines.
//! * [`report`]: the HTML report through the engine `crate::render`.
//!
//! Reads the pairs file (in `read` only) and produces bytes; writing them
//! is the output stage's job (`crate::output`). Touches no other command's
//! assembly (`build`, `compare`).

pub mod models;
pub mod outputs;
pub mod read;
pub mod report;
pub mod run;
