//! `rsmreport agree EXP` (`spec/agreement.md` 1.2, 3, 4, 6, 7): agreement
//! among raters of an annotation file with no system score.
//!
//! * [`read`]: the annotation file, coded and checked, with its checksum.
//! * [`run`]: every number (the analysis stage's rater analyses, shared
//!   with `build`).
//! * [`tables`]: the tables of spec 3 and 4, `<id>_agree.json`, and the
//!   headline rows and verdict the report and the terminal share.
//! * [`report`]: the HTML report through the engine `crate::render`.
//! * this file: [`files`] and [`terminal_lines`] (the command line's
//!   `cli/agree.rs` reads, runs and hands the files to `finish`).
//!
//! Command assembly: reads the annotation file (in `read` only), defines no
//! statistic of its own, and writes only through the output stage. Must not
//! touch `evaluation`, `compare` or the metrics it calls.

pub mod read;
pub mod report;
pub mod run;
pub mod tables;

/// The shared analysis modules under the kind's names.
pub use crate::analysis::agreement::{labels, ratings};

use crate::config::agree::AgreeConfig;
use crate::output::OutputFile;
use crate::provenance::timed;
use crate::render::context::InputCtx;
use run::Agreement;
use tables::{headline, verdict};

/// Every output file: the tables, `<id>_agree.json`, the report and its
/// figures.
pub fn files(
    a: &Agreement,
    cfg: &AgreeConfig,
    inputs: Vec<InputCtx>,
    epoch: i64,
) -> anyhow::Result<Vec<OutputFile>> {
    let mut files = timed("tables", || tables::data_files(a, cfg));
    let report = timed("report", || report::report(a, cfg, inputs, epoch))?;
    files.extend(timed("report files", || {
        crate::render::report_files(&report)
    })?);
    Ok(files)
}

/// The terminal lines: one per headline coefficient with its interval.
pub fn terminal_lines(a: &Agreement, cfg: &AgreeConfig) -> Vec<String> {
    let s = &a.overall;
    let mut out = vec![format!(
        "{}: {} items, {} raters, {} ratings ({} missing), {} categories",
        cfg.experiment_id,
        crate::render::format::thousands(s.summary.n_rows as u64),
        s.n_raters,
        crate::render::format::thousands(s.summary.n_ratings),
        crate::render::format::thousands(s.missing),
        a.ratings.categories.labels.len()
    )];
    let f = |x: f64| {
        if x.is_nan() {
            "n/a".to_string()
        } else {
            format!("{x:.3}")
        }
    };
    for i in headline(s, cfg) {
        let r = &s.rows[i];
        let name = if r.weights == "none" {
            r.coefficient.to_string()
        } else {
            format!("{} ({})", r.coefficient, r.weights)
        };
        let line = format!(
            "  {name:<30} {:>6}  [{}, {}]  {}",
            f(r.estimate.value),
            f(r.estimate.lower),
            f(r.estimate.upper),
            s.interpretation[i].unwrap_or("")
        );
        out.push(line.trim_end().to_string());
    }
    if let Some((head, why)) = verdict(s, cfg) {
        out.push(format!("{head}: {why}"));
    }
    out.extend(s.notes.iter().map(|n| format!("note: {n}")));
    out
}
