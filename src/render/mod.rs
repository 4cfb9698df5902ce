//! Stage 6 (report): the HTML report and its figures, as bytes. Everything
//! is computed first ([`build`]: typed, already formatted contexts, figures
//! drawn by [`crate::plots`]), then filled into the Tera templates embedded
//! from `templates/` ([`templates`]). The page is self-contained: CSS, JS
//! and every figure inline, nothing fetched from anywhere.
//!
//! Reads only the custom section files; writes nothing (the output stage
//! writes the returned files). Must not change the run or touch the
//! analysis, plots or output stages.

pub mod build;
pub mod context;
pub mod format;
pub mod glossary;
pub mod markdown;
mod sections;
pub mod sysinfo;
pub mod tables;
pub mod templates;

use std::path::Path;

use crate::output::OutputFile;
use crate::pipeline::Run;

/// The report (`report/<id>_report.html`) and its figures
/// (`figure/<id>_<name>.svg`), as bytes, generated at `epoch` (seconds
/// since the Unix epoch; see `pipeline::generation_epoch`).
pub fn report_files(run: &Run, epoch: i64) -> anyhow::Result<Vec<OutputFile>> {
    let model = build::build(run, epoch)?;
    let html = templates::page(&model)?;
    let id = &run.exp.experiment_id;
    let mut files: Vec<OutputFile> = model
        .figures
        .iter()
        .map(|f| OutputFile {
            path: Path::new("figure").join(build::figure_file(id, f)),
            bytes: format!("{}\n", f.svg).into_bytes(),
        })
        .collect();
    files.push(OutputFile {
        path: Path::new("report").join(format!("{id}_report.html")),
        bytes: html.into_bytes(),
    });
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn run(fixture: &str) -> Run {
        let exp = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/experiments")
            .join(fixture)
            .join("exp.toml");
        crate::pipeline::execute(crate::config::load(&exp).unwrap()).unwrap()
    }

    #[test]
    fn report_and_figures_as_bytes() {
        let run = run("probe-h2-groups");
        let files = report_files(&run, 0).unwrap();
        let names: Vec<String> = files
            .iter()
            .map(|f| f.path.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "figure/probe_h2_groups_score_dist.svg",
                "figure/probe_h2_groups_eval_by_grp.svg",
                "figure/probe_h2_groups_fairness_estimates_grp.svg",
                "figure/probe_h2_groups_conditional_score_grp.svg",
                "report/probe_h2_groups_report.html",
            ]
        );
        let html = String::from_utf8(files[4].bytes.clone()).unwrap();
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains("1970-01-01 00:00:00 UTC"));
        for s in &run.exp.sections {
            assert!(html.contains(&format!("<section id=\"{}\"", s.name())));
        }
        // Same input, same bytes.
        let again = report_files(&run, 0).unwrap();
        assert!(files.iter().zip(&again).all(|(a, b)| a.bytes == b.bytes));
    }
}
