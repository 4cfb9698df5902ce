//! rsmreport: evaluation reports for automated scoring engines, at parity with
//! RSMTool's `rsmeval`.
//!
//! The tree shows the **stages** and the **report kinds**
//! (`docs/architecture.md` draws the whole picture and says how to add a
//! kind). Plain data is passed from one stage to the next; a module uses
//! only the stages above it in this list and the leaf modules.
//!
//! **Leaf modules** (import nothing of the crate): [`table`] (the data
//! model), [`schema`] (reference table and column names, `All data`/`No
//! info`, NA tokens, file-name rules), [`pyrepr`] (Python-repr numbers),
//! [`provenance`] (checksums, generation time, timings), [`error`] (the
//! two classes of failure, carried by the error's type).
//!
//! **Stages**, top to bottom:
//!
//! 1. [`config`]: raw TOML/JSON -> validated [`config::Experiment`] (and the
//!    other kinds' configurations, through one value reader);
//! 2. [`input`]: predictions, annotation and archived files -> [`table::Table`];
//! 3. [`preprocess`]: filters, scaling, trimming, rounding -> [`preprocess::Prepared`];
//! 4. [`metrics`]: pure maths on `f64` slices (no I/O, no tables);
//! 5. [`analysis`]: every computed table, as [`table::Frame`]s;
//! 6. [`gates`] (quality gates), [`plots`] (SVG figures) and [`render`]
//!    (the report engine, which knows no kind: a [`render::Report`] -> one
//!    HTML page, as bytes);
//! 7. [`output`]: the only stage that writes files.
//!
//! **Report kinds** ([`kinds`]), one folder each, all run by one contract:
//! [`kinds::run`] takes a [`kinds::Request`] (the kind's parsed
//! configuration and the [`kinds::Destination`] of its files) and gives a
//! [`kinds::Outcome`] (files as bytes, tables and summary as data,
//! terminal lines, gate results, input provenance) or an error whose
//! [`error::Class`] says whether it is about the request or the data:
//!
//! * [`kinds::evaluation`]: `rsmreport build` and `check`;
//! * [`kinds::compare`] and [`kinds::summarize`]: paired verdicts over
//!   archived output folders;
//! * [`kinds::agree`]: rater agreement on an annotation file;
//! * [`kinds::preferences`]: pairwise-preference annotations;
//! * [`kinds::classify`]: classifiers against gold labels.
//!
//! Outside both, [`simulate`] generates realistic predictions files
//! (`rsmreport simulate`) for learning and benchmarks. The binary
//! (`src/main.rs` and its `cli` module) holds one thin file per command,
//! the exit codes and everything process-wide (allocator, malloc settings,
//! panic hook); the library never ends the process, prints no result and
//! changes no process-wide setting.

// Leaf modules.
pub mod error;
pub mod provenance;
pub mod pyrepr;
pub mod schema;
pub mod table;

// Stages.
pub mod analysis;
pub mod config;
pub mod gates;
pub mod input;
pub mod metrics;
pub mod output;
pub mod plots;
pub mod preprocess;
pub mod render;

// Report kinds.
pub mod kinds;

// Aside.
pub mod simulate;
