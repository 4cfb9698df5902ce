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
//! [`provenance`] (checksums, generation time, timings).
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
//! **Report kinds**, each one folder that runs the stages and assembles
//! its own report sections:
//!
//! * [`kinds::evaluation`]: `rsmreport build` and `check`;
//! * [`compare`] and [`summarize`]: paired verdicts over archived output
//!   folders;
//! * [`agree`]: rater agreement on an annotation file;
//! * [`preferences`]: pairwise-preference annotations.
//!
//! (`compare`, `summarize`, `agree` and `preferences` move under [`kinds`]
//! unchanged once the branches that edit them are merged.)
//!
//! Outside both, [`simulate`] generates realistic predictions files
//! (`rsmreport simulate`) for learning and benchmarks; the binary's `cli`
//! module holds one thin file per command.

// Leaf modules.
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
