//! Stage 6 (report engine): one HTML report and its figures, as bytes, for
//! every report kind. A command assembles a plain [`Report`] (header,
//! panels, sections of blocks, figures; see [`model`]) with a [`Builder`]
//! and the shared pieces ([`tables`], [`format`], [`glossary`],
//! [`markdown`]); [`report_files`] fills it into the Tera templates
//! embedded from `templates/` ([`templates`]). The page is self-contained:
//! CSS, JS and every figure inline, nothing fetched from anywhere.
//!
//! No I/O (the output stage writes the returned files). Depends only on
//! [`crate::plots`], [`rsmreport_core::table`], [`rsmreport_core::pyrepr`] and
//! [`rsmreport_io::output::OutputFile`]: never on `config`, `analysis` or any
//! report kind (the `kinds` folder), so every report kind can use it.

mod builder;
pub mod context;
pub mod format;
pub mod glossary;
pub mod markdown;
mod model;
pub mod sysinfo;
pub mod tables;
pub mod templates;

use std::path::Path;

pub use builder::{display_width, figure_file, nest, template, Builder};
pub use model::{Block, ConfigCtx, Decision, Header, Panel, Report, Section, Tone, Version};

use rsmreport_io::output::OutputFile;

/// The report (`report/<prefix>_report.html`) and its figures
/// (`figure/<prefix>_<name>.svg`), as bytes.
pub fn report_files(report: &Report) -> anyhow::Result<Vec<OutputFile>> {
    report_files_named(report, "report")
}

/// [`report_files`] with the report named `report/<prefix>_<name>.html`
/// (`compare`'s is `<cid>_compare.html`, compare spec 2.6).
pub fn report_files_named(report: &Report, name: &str) -> anyhow::Result<Vec<OutputFile>> {
    let html = templates::page(report)?;
    let prefix = &report.file_prefix;
    let mut files: Vec<OutputFile> = report
        .figures
        .iter()
        .map(|f| OutputFile {
            path: Path::new("figure").join(builder::figure_file(prefix, f)),
            bytes: format!("{}\n", f.svg).into_bytes(),
        })
        .collect();
    files.push(OutputFile {
        path: Path::new("report").join(format!("{prefix}_{name}.html")),
        bytes: html.into_bytes(),
    });
    Ok(files)
}

#[cfg(test)]
mod tests;
