//! `rsmreport classify EXP` (`spec/classify.md`): one or more classifiers
//! against gold labels, with scikit-learn's numbers, curves, calibration,
//! intervals and paired verdicts against a baseline.
//!
//! * [`read`]: the predictions file as label codes and score columns.
//! * [`run`]: every number (all items and each subgroup level).
//! * [`resample`]: the seeded block bootstrap (intervals, paired deltas).
//! * [`tables`]: the tables of spec 4 and `<id>_summary.json`.
//! * [`gates`]: the quality gates (parsed before reading, judged after).
//! * [`report`]: the HTML report through the engine `crate::render`.
//! * this file: [`files`] and [`terminal_lines`] (the command line's
//!   `cli/classify.rs` reads, runs and hands the files to `finish`).
//!
//! Command assembly: reads the predictions file (in `read` only), defines
//! no statistic of its own (`crate::metrics` does), and writes only
//! through the output stage. Touches no other kind.

pub mod gates;
pub mod read;
pub mod report;
mod report_figures;
pub mod resample;
pub mod run;
pub mod tables;

use std::path::Path;

use crate::config::classify::ClassifyConfig;
use crate::config::FileFormat;
use crate::output::OutputFile;
use run::Analysis;

/// The predicted "label" of an abstention (`schema::NONE_LABEL`).
pub use crate::schema::NONE_LABEL;

/// A table's bytes in the configured format.
fn table_bytes(f: &crate::table::Frame, format: FileFormat, epoch: i64) -> anyhow::Result<Vec<u8>> {
    Ok(match format {
        FileFormat::Csv => crate::output::write::to_delimited(f, b','),
        FileFormat::Tsv => crate::output::write::to_delimited(f, b'\t'),
        FileFormat::Xlsx => crate::output::write::to_xlsx(f, epoch)?,
    })
}

/// Every output file: the tables, `<id>_summary.json`, the report and its
/// figures.
pub fn files(
    a: &Analysis,
    cfg: &ClassifyConfig,
    inputs: Vec<crate::render::context::InputCtx>,
    epoch: i64,
) -> anyhow::Result<Vec<OutputFile>> {
    let out = Path::new("output");
    let ext = cfg.file_format.extension();
    let mut files = Vec::new();
    for f in tables::frames(a) {
        files.push(OutputFile {
            path: out.join(format!("{}_{}.{ext}", a.id, f.name)),
            bytes: table_bytes(&f, cfg.file_format, epoch)?,
        });
    }
    let (path, sha) = inputs.first().map_or((String::new(), String::new()), |i| {
        (i.path.clone(), i.sha256.clone())
    });
    files.push(OutputFile {
        path: out.join(format!("{}_summary.json", a.id)),
        bytes: tables::summary_json(a, &sha, &path),
    });
    files.extend(crate::gates::files(&a.id, &a.gates));
    files.extend(crate::render::report_files(&report::report(
        a, inputs, epoch,
    )?)?);
    Ok(files)
}

use crate::render::format::{num3 as fixed, p_clause, signed3, thousands};

/// One line per system (accuracy and macro F1 with intervals), then one
/// per compared statistic of each candidate, criterion-style.
pub fn terminal_lines(a: &Analysis) -> Vec<String> {
    let mut out = vec![format!(
        "{}: {} items ({} rows, {} without a gold label), {} labels",
        a.id,
        thousands(a.n as u64),
        thousands(a.n_rows as u64),
        thousands(a.n_dropped_blank_gold as u64),
        thousands(a.k() as u64)
    )];
    let width = a
        .systems
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(0);
    let ci = |s: usize, m: &str| {
        a.intervals
            .as_ref()
            .and_then(|iv| iv.get(s, "overall", m))
            .filter(|r| r.interval.lower.is_finite())
            .map_or_else(String::new, |r| {
                format!(
                    " [{}, {}]",
                    fixed(r.interval.lower),
                    fixed(r.interval.upper)
                )
            })
    };
    for (s, sys) in a.systems.iter().enumerate() {
        out.push(format!(
            "  {:<width$}  accuracy {}{}  macro F1 {}{}{}",
            sys.name,
            fixed(sys.report.accuracy),
            ci(s, "accuracy"),
            fixed(sys.macro_f(a.f1())),
            ci(s, "macro_f1"),
            if sys.n_abstained > 0 {
                format!("  ({} abstained)", thousands(sys.n_abstained as u64))
            } else {
                String::new()
            }
        ));
    }
    for r in tables::comparison_rows(a)
        .iter()
        .filter(|r| r.scope == "overall")
    {
        out.push(format!(
            "  {} vs {}: {} change: [{} {} {}] ({}) {}",
            a.systems[r.candidate].name,
            a.systems[r.baseline].name,
            r.statistic,
            signed3(r.delta.1),
            signed3(r.delta.0),
            signed3(r.delta.2),
            p_clause(r.p_value),
            r.verdict
        ));
    }
    out
}
