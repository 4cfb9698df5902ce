//! `rsmreport compare` (compare spec): model versions from archived
//! output folders.
//!
//! * [`read`]: both folders through the archive reader
//!   ([`crate::input::archive`]), with the checksum of every file read.
//! * [`run`]: one comparison: [`pairing`] finds the responses two folders
//!   share, [`paired`] computes the paired differences with the code of
//!   `build`, [`preflight`] says what is compared, [`stored`] the old /
//!   new / Δ of the tables both folders stored, [`between`] the two
//!   versions against each other on the paired responses, [`gates`] the
//!   quality gates of `--gates`, [`verdict`] the one verdict rule (compare
//!   spec 2.3) of `compare`, `summarize` and `classify`.
//! * [`tables`]: the tables and `<cid>_compare.json`.
//! * [`report`]: the HTML report with the sections 3-9 of [`sections`].
//! * this file: [`files`] and [`terminal_lines`] (the command line's
//!   `cli/compare.rs` reads, runs and hands the files to `finish`).
//!
//! `summarize` ([`crate::kinds::summarize`]) builds on [`run::headline_deltas`]
//! and [`read`]. Not yet built (issue 13): resampling test takers.
//!
//! Command assembly: reads the folders (in `read` only); writes no files
//! and computes no statistic itself (the statistics come from the functions
//! `build` uses).

pub mod between;
pub mod gates;
pub mod paired;
pub mod pairing;
pub mod preflight;
pub mod read;
pub mod report;
pub mod run;
pub mod sections;
pub mod stored;
pub mod tables;
pub mod verdict;

use crate::output::OutputFile;
use crate::render::format::signed3;
use paired::DeltaRow;
use read::InputRecord;
use run::Comparison;
use tables::regressed_levels;

/// Every output file of a comparison: the tables, the JSON, and the
/// report with its figures (`inputs`: the two folders, for provenance).
pub fn files(
    c: &Comparison,
    inputs: &[InputRecord],
    epoch: i64,
) -> anyhow::Result<Vec<OutputFile>> {
    let mut out = tables::data_files(c, inputs);
    let rows = inputs.iter().map(InputRecord::ctx).collect();
    out.extend(crate::render::report_files_named(
        &report::report(c, rows, epoch)?,
        "compare",
    )?);
    Ok(out)
}

/// The preflight table on the terminal (compare spec 2.1): one line per
/// row, `item  status  baseline | candidate` (`-` for an empty value).
fn preflight_lines(c: &Comparison) -> Vec<String> {
    let mut out = vec!["preflight (baseline | candidate):".to_string()];
    let width = c
        .preflight
        .iter()
        .map(|r| r.item.chars().count())
        .max()
        .unwrap_or(0);
    let shown = |s: &str| {
        if s.is_empty() {
            "-".to_string()
        } else {
            crate::render::format::leading_count(s)
        }
    };
    for r in &c.preflight {
        let pad = width - r.item.chars().count();
        let line = format!(
            "  {}{}  {:<13}  {} | {}",
            r.item,
            " ".repeat(pad),
            r.status,
            shown(&r.baseline),
            shown(&r.candidate)
        );
        out.push(line);
    }
    out
}

/// The terminal lines: the preflight table, then criterion-style one line
/// per whole-set statistic and one per regressed subgroup level.
pub fn terminal_lines(c: &Comparison) -> Vec<String> {
    let mut out = preflight_lines(c);
    out.push(format!(
        "compare {} (baseline) -> {} (candidate), {}{}:",
        c.baseline_label,
        c.candidate_label,
        c.score_type,
        match (c.paired, c.overall.first()) {
            (true, _) => ", paired",
            (false, Some(r)) if r.delta.1.is_finite() => ", unpaired",
            (false, Some(_)) => ", stored estimates only",
            (false, None) => "",
        }
    ));
    let line = |scope: &str, r: &DeltaRow| {
        format!(
            "  {scope:<22} change: [{} {} {}] ({}) {}",
            signed3(r.delta.1),
            signed3(r.delta.0),
            signed3(r.delta.2),
            crate::render::format::p_clause(r.p_value),
            r.verdict.name()
        )
    };
    for r in &c.overall {
        out.push(line(r.statistic.name, r));
    }
    for (g, r) in regressed_levels(c) {
        out.push(line(
            &format!("{} {g}={}", r.row.statistic.name, r.level),
            &r.row,
        ));
    }
    out.extend(
        crate::kinds::compare::report::directions(c)
            .into_iter()
            .map(|d| format!("  {d}")),
    );
    out.extend(c.notes.iter().map(|n| format!("note: {n}")));
    out
}
