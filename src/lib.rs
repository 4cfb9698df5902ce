//! rsmreport: evaluation reports for automated scoring engines, at parity with
//! RSMTool's `rsmeval`.
//!
//! The pipeline is visible in the module tree and runs top to bottom:
//!
//! 1. [`config`]: raw TOML/JSON -> validated [`config::Experiment`];
//! 2. [`input`]: predictions and scale files -> [`table::Table`];
//! 3. [`preprocess`]: filters, scaling, trimming, rounding -> [`preprocess::Prepared`];
//! 4. [`metrics`]: pure maths on `f64` slices (no I/O, no tables);
//! 5. [`sections`]: every intermediate table, as [`table::Frame`]s;
//! 6. [`plots`] and [`render`]: SVG figures, and the report engine that
//!    turns a kind-agnostic [`render::Report`] into one HTML page, as bytes;
//! 7. [`output`]: the only stage that writes files.
//!
//! [`pipeline`] runs stages 1-5 for one experiment; each command then
//! assembles its own report kind from its results in a module of its own
//! ([`build`] for `rsmreport build`; [`compare`] and [`summarize`] for
//! `compare` and `summarize` over archived output folders; [`agree`] for
//! `rsmreport agree`, rater agreement on an annotation file; [`preferences`]
//! for pairwise-preference annotations) and hands it to [`render`]. The
//! engine depends on no command: `render` imports only `plots`, `table` and
//! `output::OutputFile`. `docs/architecture.md` draws the whole picture and
//! says how to add a report kind or a section.
//!
//! Plain data is passed from one stage to the next.
//!
//! Outside the pipeline, [`simulate`] generates realistic predictions files
//! (`rsmreport simulate`) for learning and benchmarks.

pub mod agree;
pub mod build;
pub mod classify;
pub mod compare;
pub mod config;
pub mod gates;
pub mod input;
pub mod metrics;
pub mod output;
pub mod pipeline;
pub mod plots;
pub mod preferences;
pub mod preprocess;
pub mod render;
pub mod sections;
pub mod simulate;
pub mod summarize;
pub mod table;
