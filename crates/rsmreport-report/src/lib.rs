//! rsmreport-report: the report engine and the figures (stage 6).
//!
//! * [`render`]: a [`render::Report`] model (header, panels, sections of
//!   blocks, figures, table of contents) rendered to one self-contained
//!   HTML page, as bytes, with the shared number formatting;
//! * [`plots`]: SVG figures drawn with plotters (no system fonts).
//!
//! It knows no report kind and no configuration: a kind builds its
//! `Report` through [`render::Builder`]; the bytes go to
//! `rsmreport_io::output`.
#![cfg_attr(test, allow(clippy::print_stdout, clippy::print_stderr))]

pub mod plots;
pub mod render;
