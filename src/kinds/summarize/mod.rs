//! `rsmreport summarize` (compare spec 3): one row per archived model
//! version with its headline statistics and their intervals, the agreement
//! of the human scores, the worst subgroup level's DSM, the fairness
//! models, and the difference of each version from a baseline with its
//! verdict.
//!
//! * [`read`]: the folders through the archive reader, with the checksum
//!   of every file read.
//! * [`run`]: the summary from the opened archives.
//! * [`tables`]: its tables and `<sid>_summary.json`.
//! * [`report`]: its HTML report through the engine `crate::render`.
//! * this file: [`files`] and [`terminal_lines`] (the command line's
//!   `cli/summarize.rs` reads, runs and hands the files to `finish`).
//!
//! Pure: works on archives read by [`crate::input::archive`]; writes no
//! files and computes no statistic itself (the statistics and the
//! differences come from the functions `build` and `compare` use).

pub mod read;
pub mod report;
pub mod run;
pub mod tables;

use crate::output::OutputFile;
use crate::render::format::signed3 as signed;
use run::Summary;
use tables::data_files;

/// Every output file: the tables, the JSON and the report with its
/// figures.
pub fn files(s: &Summary, epoch: i64) -> anyhow::Result<Vec<OutputFile>> {
    let mut out = data_files(s);
    out.extend(crate::render::report_files(&report::report(s, epoch)?)?);
    Ok(out)
}

fn plain(x: f64) -> String {
    if x.is_nan() {
        "n/a".into()
    } else {
        format!("{x:.3}")
    }
}

/// The terminal lines: one per version with its key statistics, then the
/// criterion-style change of each against the baseline.
pub fn terminal_lines(s: &Summary) -> Vec<String> {
    let base = &s.versions[s.baseline];
    let mut out = vec![format!(
        "summarize {} versions (baseline {}):",
        s.versions.len(),
        base.label
    )];
    for v in &s.versions {
        let stat = |name: &str| {
            v.estimate(name).map_or_else(
                || "n/a".to_string(),
                |e| {
                    format!(
                        "{} [{} {}]",
                        plain(e.value.0),
                        plain(e.value.1),
                        plain(e.value.2)
                    )
                },
            )
        };
        out.push(format!(
            "  {:<20} N = {:<8} wtkappa {}  corr {}  PRMSE {}",
            v.label,
            crate::render::format::count_f64(v.n),
            stat("wtkappa"),
            stat("corr"),
            stat("PRMSE")
        ));
    }
    for v in &s.versions {
        let Some((paired, rows)) = &v.delta else {
            continue;
        };
        let kind = if *paired { "paired" } else { "unpaired" };
        for r in rows
            .iter()
            .filter(|r| ["wtkappa", "corr", "PRMSE"].contains(&r.statistic.name))
        {
            out.push(format!(
                "  {:<20} {:<8} change: [{} {} {}] ({kind}) {}",
                v.label,
                r.statistic.name,
                signed(r.delta.1),
                signed(r.delta.0),
                signed(r.delta.2),
                r.verdict.name()
            ));
        }
    }
    out.extend(s.notes.iter().map(|n| format!("note: {n}")));
    out
}
