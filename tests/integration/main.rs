//! The single integration-test binary of `rsmreport` (Cargo.toml sets
//! `autotests = false` and declares this file as test target `integration`),
//! so every suite below is linked once and shares `common`.
//!
//! * [`parity`]: builds every fixture experiment and compares the tables with
//!   what RSMTool's `rsmeval` wrote (`cargo test --test integration parity`).
//! * [`cli`]: the command-line contract (`--help`, `--version`, `check`,
//!   output-folder handling) (`cargo test --test integration cli`).
//!
//! See `tests/README.md` for the layout, the fixtures and how to refresh them.

mod cli;
mod common;
mod parity;
