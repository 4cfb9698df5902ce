//! `rsmreport summarize` (compare spec 3): one row per archived model
//! version with its headline statistics and their intervals, the agreement
//! of the human scores, the worst subgroup level's DSM, the fairness
//! models, and the difference of each version from a baseline with its
//! verdict. One command of the version workflow
//! ([`crate::kinds::versions`]): the differences are `versions::build`'s
//! (the rows `compare` shows for the whole set); it uses no module of
//! `compare`.
//!
//! * [`kinds`], [`kinds_report`]: the folders of any other kind with a
//!   `versions` entry in the kind table (classify, sequence, spans, ...):
//!   each compared with the baseline by its kind's own comparison, its
//!   statistics from its own summary (issue 49).
//! * [`read`]: the folders through the archive reader, with the checksum
//!   of every file read.
//! * [`run`]: the summary from the opened archives.
//! * [`tables`]: its tables and the summary's keys.
//! * [`report`]: its HTML report through the engine `rsmreport_report::render`.
//! * this file: the kind's contract ([`Summarize`], run by
//!   [`crate::kinds::run`]): its data for the shared writer
//!   ([`crate::kinds::archive`]) and terminal lines.
//!
//! Pure: works on archives read by [`rsmreport_io::input::archive`]; writes no
//! files and computes no statistic itself (the statistics and the
//! differences come from the functions `build` uses, through
//! `versions::build`).

pub mod kinds;
pub mod kinds_report;
pub mod read;
pub mod report;
pub mod run;
pub mod tables;

use std::path::{Path, PathBuf};

use rsmreport_core::error;
use rsmreport_core::provenance::timed;
use rsmreport_io::input::archive::ArchiveError;
use rsmreport_report::render::context::InputCtx;
use rsmreport_report::render::format::{num3, signed3 as signed};
use run::Summary;

/// What `rsmreport summarize` is asked: the folders in order, the
/// position of the baseline among them, the order of the rows and the
/// summary's id.
#[derive(Clone, Debug)]
pub struct SummarizeRequest {
    pub folders: Vec<PathBuf>,
    pub baseline: usize,
    pub order: run::Order,
    pub id: String,
}

/// The request of `summarize DIR... [--baseline DIR] [--id ID]`: the
/// baseline is added first when it is not among the folders; an id that
/// breaks the one id rule (`config::value::check_id`), or a folder given
/// twice, is a configuration error.
pub fn request(
    folders: Vec<PathBuf>,
    baseline: Option<PathBuf>,
    order: run::Order,
    id: &str,
) -> anyhow::Result<SummarizeRequest> {
    rsmreport_config::value::check_id("--id", id).map_err(|e| error::config(anyhow::anyhow!(e)))?;
    let (folders, baseline) = with_baseline(folders, baseline);
    run::distinct_folders(&folders).map_err(|e| error::config(anyhow::anyhow!(e)))?;
    Ok(SummarizeRequest {
        folders,
        baseline,
        order,
        id: id.to_string(),
    })
}

/// The folders in order and the index of the baseline among them (added
/// first when it is not one of them).
fn with_baseline(mut dirs: Vec<PathBuf>, baseline: Option<PathBuf>) -> (Vec<PathBuf>, usize) {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    };
    let base = match baseline {
        Some(b) => match dirs.iter().position(|d| same(d, &b)) {
            Some(i) => i,
            None => {
                dirs.insert(0, b);
                0
            }
        },
        None => 0,
    };
    (dirs, base)
}

/// `rsmreport summarize`: run it with [`crate::kinds::run`].
pub struct Summarize;

impl crate::kinds::Kind for Summarize {
    type Config = SummarizeRequest;
    const NAME: &'static str = "summarize";

    fn default_dir(r: &SummarizeRequest) -> Option<PathBuf> {
        Some(PathBuf::from(&r.id))
    }

    fn inputs(r: &SummarizeRequest) -> Vec<PathBuf> {
        crate::kinds::versions::folders::input_paths(&r.folders, &[])
    }

    fn compute(r: SummarizeRequest) -> anyhow::Result<Box<dyn crate::kinds::Report>> {
        if let Some(kind) = kinds::other_kind(&r.folders)? {
            return Ok(Box::new(kinds::summarize(&r, kind)?));
        }
        let opened = timed("open folders", || read::open_all(&r.folders))
            .map_err(ArchiveError::classified)?;
        let settings = run::settings(&opened[r.baseline].archive);
        let summary = timed("summarize", || {
            run::summarize(&r.id, &opened, r.baseline, r.order, &settings)
        });
        Ok(Box::new(Computed { summary, opened }))
    }
}

/// A finished summary. The folders read are kept with it (a caller that
/// ends the process right after writing need not free them).
struct Computed {
    summary: Summary,
    opened: Vec<read::Opened>,
}

impl crate::kinds::Report for Computed {
    fn id(&self) -> &str {
        &self.summary.id
    }

    fn decision(&self) -> Option<rsmreport_report::render::Decision> {
        Some(report::decision(&self.summary))
    }

    fn tables(&self) -> crate::kinds::Tables<'_> {
        crate::kinds::owned(tables::frames(&self.summary))
    }

    fn summary(&self) -> serde_json::Value {
        crate::kinds::json_value(&tables::summary_json(&self.summary))
    }

    /// Each version's folder (its responses, the digest of the files read
    /// from it).
    fn inputs(&self) -> Vec<InputCtx> {
        self.opened
            .iter()
            .map(|o| InputCtx {
                role: "version".into(),
                path: o.archive.dir.display().to_string(),
                rows: o
                    .archive
                    .table("pred_processed")
                    .map_or_else(String::new, |t| t.nrows.to_string()),
                sha256: o.digest.sha256.clone(),
            })
            .collect()
    }

    fn report(&self, epoch: i64) -> anyhow::Result<rsmreport_report::render::Report> {
        report::report(&self.summary, epoch)
    }

    fn lines(&self, _written: &[PathBuf], _dir: &Path) -> Vec<String> {
        terminal_lines(&self.summary)
    }
}

/// `1 version`, `3 versions`.
pub(crate) fn count_versions(n: usize) -> String {
    format!(
        "{} version{}",
        rsmreport_report::render::format::thousands(n as u64),
        if n == 1 { "" } else { "s" }
    )
}

/// The terminal lines: one per version with its key statistics, then the
/// criterion-style change of each against the baseline.
fn terminal_lines(s: &Summary) -> Vec<String> {
    let base = &s.versions[s.baseline];
    let mut out = vec![format!(
        "summarize {} (baseline {}):",
        count_versions(s.versions.len()),
        base.label
    )];
    for v in &s.versions {
        let stat = |name: &str| {
            v.estimate(name).map_or_else(
                || "n/a".to_string(),
                |e| {
                    format!(
                        "{} [{} {}]",
                        num3(e.value.0),
                        num3(e.value.1),
                        num3(e.value.2)
                    )
                },
            )
        };
        out.push(format!(
            "  {:<20} N = {:<8} wtkappa {}  corr {}  PRMSE {}",
            v.label,
            rsmreport_report::render::format::count_f64(v.n),
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
            .filter(|r| ["wtkappa", "corr", "PRMSE"].contains(&r.statistic.as_str()))
        {
            out.push(format!(
                "  {:<20} {:<8} change: [{} {} {}] ({kind}) {}",
                v.label,
                r.statistic,
                signed(r.delta.lower),
                signed(r.delta.value),
                signed(r.delta.upper),
                r.verdict.name()
            ));
        }
    }
    out.extend(s.notes.iter().map(|n| format!("note: {n}")));
    out
}
