//! rsmreport: the engine. Every report kind, and the stages only kinds use.
//!
//! The crates below it (`docs/architecture.md` draws the graph):
//! `rsmreport-core` (tables, names, number text, provenance, error
//! classes), `rsmreport-metrics` (pure maths), `rsmreport-config` (the
//! configuration files), `rsmreport-io` (readers and the one writer) and
//! `rsmreport-report` (the report engine and figures).
//!
//! Here, top to bottom:
//!
//! 1. [`preprocess`] (stage 3): filters, scaling, trimming, rounding ->
//!    [`preprocess::Prepared`];
//! 2. [`analysis`] (stage 5): every computed table of `build`, as
//!    `Frame`s, and the bootstrap design of its intervals;
//! 3. [`gates`] (stage 6): quality gates on computed tables, their JSON
//!    and JUnit bytes;
//! 4. [`kinds`]: the report kinds, one folder each, all run by one
//!    contract: [`kinds::run`] takes a [`kinds::Request`] (the kind's
//!    parsed configuration and the [`kinds::Destination`] of its files) and
//!    gives a [`kinds::Outcome`] (files as bytes, tables and summary as
//!    data, terminal lines, gate results, input provenance) or an error
//!    whose `rsmreport_core::error::Class` says whether it is about the
//!    request or the data.
//!
//! The library never ends the process, prints nothing and changes no
//! process-wide setting (the workspace denies `print_stdout`,
//! `print_stderr` and `exit` outside the command line).
#![cfg_attr(test, allow(clippy::print_stdout, clippy::print_stderr))]

pub mod analysis;
pub mod gates;
pub mod kinds;
pub mod preprocess;
