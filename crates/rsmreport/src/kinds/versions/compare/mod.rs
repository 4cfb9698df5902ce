//! `rsmreport compare` (compare spec): two model versions from archived
//! output folders, one command of the version workflow
//! ([`crate::kinds::versions`]).
//!
//! * [`run`]: one comparison: both folders through the archive reader
//!   (`versions::folders`, with the checksum of every file read), the
//!   responses they share and their paired differences
//!   (`versions::build`: the code of `build`), [`preflight`] says what is
//!   compared, [`stored`] the old / new / Δ of the tables both folders
//!   stored, [`between`] the two versions against each other on the
//!   paired responses, [`gates`] the quality gates of `--gates`; the
//!   verdicts are the shared rows and rule (`kinds::common`).
//! * [`tables`]: the tables and the summary's keys.
//! * [`report`]: the HTML report with the sections 3-9 of [`sections`].
//! * this file: the kind's contract ([`Compare`], run by
//!   [`crate::kinds::run`]): open both folders, hash every input while
//!   comparing, judge the gates; its data for the shared writer
//!   ([`crate::kinds::archive`]) and terminal lines.
//!
//! Uses no module of `summarize` (what both use sits beside them in
//! `versions`).
//!
//! Command assembly: reads the folders (in `read` only); writes no files
//! and computes no statistic itself (the statistics come from the functions
//! `build` uses).

pub mod between;
pub mod gates;
pub mod preflight;
pub mod report;
pub mod run;
pub mod sections;
pub mod stored;
pub mod tables;

use std::path::{Path, PathBuf};

use rsmreport_config::compare::CompareConfig;
use rsmreport_core::error;
use rsmreport_io::input::archive::{Archive, ArchiveError};
use rsmreport_report::render::context::InputCtx;

/// What `rsmreport compare` is asked: the two folders, the comparison's
/// configuration and the files it came from.
#[derive(Clone, Debug)]
pub struct CompareRequest {
    pub baseline: PathBuf,
    pub candidate: PathBuf,
    pub config: CompareConfig,
    /// The compare.toml the configuration came from, if any.
    pub config_file: Option<PathBuf>,
    /// The gates file (`--gates`); its gates are read once the folders
    /// are open (they are checked against the candidate's tables).
    pub gates_file: Option<PathBuf>,
}

/// The request of `compare BASELINE CANDIDATE`: reads and validates the
/// compare.toml `config_file`, if any (configuration errors).
pub fn load(
    baseline: &Path,
    candidate: &Path,
    config_file: Option<&Path>,
    gates_file: Option<&Path>,
    unpaired: bool,
) -> anyhow::Result<CompareRequest> {
    let names = run::statistic_names();
    let mut config = match config_file {
        Some(path) => rsmreport_config::compare::load(path, &names).map_err(error::config)?,
        None => CompareConfig::default(),
    };
    config.unpaired = unpaired;
    Ok(CompareRequest {
        baseline: baseline.to_path_buf(),
        candidate: candidate.to_path_buf(),
        config,
        config_file: config_file.map(Path::to_path_buf),
        gates_file: gates_file.map(Path::to_path_buf),
    })
}

/// `rsmreport compare`: run it with [`crate::kinds::run`].
pub struct Compare;

impl crate::kinds::Kind for Compare {
    type Config = CompareRequest;
    const NAME: &'static str = "compare";

    /// Named by the labels read from the folders ([`Report::default_dir`]).
    fn default_dir(_: &CompareRequest) -> Option<PathBuf> {
        None
    }

    fn inputs(r: &CompareRequest) -> Vec<PathBuf> {
        crate::kinds::versions::folders::input_paths(
            &[&r.baseline, &r.candidate],
            &[r.config_file.as_deref(), r.gates_file.as_deref()],
        )
    }

    fn compute(r: CompareRequest) -> anyhow::Result<Box<dyn crate::kinds::Report>> {
        if let Some(report) = other_kind(&r)? {
            return Ok(report);
        }
        let (b, c) =
            read::open_both(&r.baseline, &r.candidate).map_err(ArchiveError::classified)?;
        let gate_list = match &r.gates_file {
            Some(file) => compare_gates(file, &r.config, &b, &c)?,
            None => Vec::new(),
        };
        let (cmp, records) = std::thread::scope(|scope| {
            let records = scope.spawn(|| records(&r, &b, &c));
            let cmp = run::compare(&b, &c, &r.config);
            (cmp, records.join().expect("the checksum thread panicked"))
        });
        let mut cmp = cmp.map_err(ArchiveError::classified)?;
        let records = records?;
        cmp.gates =
            gates::evaluate(&gate_list, &cmp, &c).map_err(|e| error::config(anyhow::anyhow!(e)))?;
        Ok(Box::new(Computed {
            cmp,
            records,
            _folders: (b, c),
        }))
    }
}

/// Two folders of a kind other than `build` (their summaries name it):
/// compared by that kind's own code, its entry of the kind table
/// ([`registry::versions_of`]); `None` when either folder is a build's
/// (or names no kind: then the archive reader says what it is). Folders
/// of two kinds, or of a kind whose folders are not compared, are refused
/// (configuration errors naming both).
fn other_kind(r: &CompareRequest) -> anyhow::Result<Option<Box<dyn crate::kinds::Report>>> {
    let (kb, kc) = (Folder::kind_of(&r.baseline), Folder::kind_of(&r.candidate));
    let (Some(kb), Some(kc)) = (kb, kc) else {
        return Ok(None);
    };
    if kb == "build" || kc == "build" {
        return Ok(None);
    }
    let (db, dc) = (r.baseline.display(), r.candidate.display());
    if kb != kc {
        return Err(error::config(anyhow::anyhow!(
            "the baseline folder {db} is an output folder of `rsmreport {kb}` and the candidate \
             folder {dc} one of `rsmreport {kc}`: compare takes two folders of one kind"
        )));
    }
    let Some(versions) = registry::versions_of(&kb) else {
        return Err(error::config(anyhow::anyhow!(
            "{db} and {dc} are output folders of `rsmreport {kb}`: compare takes the output \
             folders of {}",
            registry::comparable_kinds()
        )));
    };
    if r.config_file.is_some() || r.config.unpaired {
        return Err(error::config(anyhow::anyhow!(
            "a compare.toml and --unpaired apply to build folders; {kb} folders are compared \
             with the settings they were run with"
        )));
    }
    let pair = Pair {
        baseline: Folder::open(&r.baseline, "baseline")?,
        candidate: Folder::open(&r.candidate, "candidate")?,
        gates_file: r.gates_file.clone(),
    };
    (versions.compare)(&pair).map(Some)
}

/// The gates of `--gates FILE` for a comparison, validated against its
/// subgroups and the candidate's score types (configuration errors).
fn compare_gates(
    file: &Path,
    cfg: &CompareConfig,
    baseline: &Archive,
    candidate: &Archive,
) -> anyhow::Result<Vec<rsmreport_config::gates::Gate>> {
    let subgroups = cfg
        .subgroups
        .clone()
        .unwrap_or_else(|| run::both_sides(baseline.subgroups.iter().chain(&candidate.subgroups)));
    let score_type = run::stored_score_type(baseline, candidate, cfg);
    let no_min = |_: &str| 0;
    let cx = gates::context(
        &subgroups,
        candidate,
        &score_type,
        cfg.intervals.replicates > 0,
        &no_min,
    );
    rsmreport_config::gates::load_file_in(file, &cx).map_err(error::config)
}

/// The records of every input (the folders' files, the config and gates
/// files), hashed while the comparison runs.
fn records(r: &CompareRequest, b: &Archive, c: &Archive) -> anyhow::Result<Vec<InputRecord>> {
    let rows = |a: &Archive| {
        a.table("pred_processed")
            .map_or_else(String::new, |t| t.nrows.to_string())
    };
    let mut out = vec![
        read::folder_record("baseline", b, rows(b))?,
        read::folder_record("candidate", c, rows(c))?,
    ];
    for (role, file) in [("config", &r.config_file), ("gates", &r.gates_file)] {
        if let Some(f) = file {
            out.push(read::file_record(role, f)?);
        }
    }
    Ok(out)
}

/// A finished comparison. The two folders read are kept with it (a
/// caller that ends the process right after writing need not free their
/// many small allocations).
struct Computed {
    cmp: Comparison,
    records: Vec<InputRecord>,
    _folders: (Archive, Archive),
}

impl crate::kinds::Report for Computed {
    fn id(&self) -> &str {
        &self.cmp.id
    }

    fn decision(&self) -> Option<rsmreport_report::render::Decision> {
        Some(report::decision(&self.cmp))
    }

    /// Compare spec 2: the labels name the default folder, also when
    /// comparison_id names the files.
    fn default_dir(&self) -> PathBuf {
        PathBuf::from(run::default_id(
            &self.cmp.baseline_label,
            &self.cmp.candidate_label,
        ))
    }

    fn tables(&self) -> crate::kinds::Tables<'_> {
        crate::kinds::owned(tables::frames(&self.cmp))
    }

    fn summary(&self) -> serde_json::Value {
        let json = tables::compare_json(&self.cmp, &self.records);
        crate::kinds::json_value(&json)
    }

    fn inputs(&self) -> Vec<InputCtx> {
        self.records.iter().map(InputRecord::ctx).collect()
    }

    fn gates(&self) -> &[crate::gates::Outcome] {
        &self.cmp.gates
    }

    fn report(&self, epoch: i64) -> anyhow::Result<rsmreport_report::render::Report> {
        let rows = self.records.iter().map(InputRecord::ctx).collect();
        report::report(&self.cmp, rows, epoch)
    }

    /// `report/<cid>_compare.html` (compare spec 2.6).
    fn report_name(&self) -> &'static str {
        "compare"
    }

    fn lines(&self, _written: &[PathBuf], _dir: &Path) -> Vec<String> {
        terminal_lines(&self.cmp)
    }
}
use crate::kinds::common::versions::{self, Folder, Pair};
use crate::kinds::registry;
use crate::kinds::versions::build::paired::VerdictRow;
use crate::kinds::versions::folders::{self as read, InputRecord};
use run::Comparison;
use tables::regressed_levels;

/// The preflight table on the terminal (compare spec 2.1), in the shape
/// every kind's comparison shares.
fn preflight_lines(c: &Comparison) -> Vec<String> {
    let rows: Vec<_> = c.preflight.iter().map(|r| r.shared()).collect();
    versions::preflight_lines(&rows)
}

/// The most regressed subgroup levels the terminal lists one per line;
/// more are counted on one line (the report and the tables list each).
const FOLD_LEVELS: usize = 5;

/// The one line of many regressed subgroup levels: how many, by
/// statistic and by subgroup.
fn folded_levels(levels: &[(&str, &crate::kinds::versions::build::paired::LevelRow)]) -> String {
    let counted =
        |key: &dyn Fn(&(&str, &crate::kinds::versions::build::paired::LevelRow)) -> String| {
            let mut counts: Vec<(String, usize)> = Vec::new();
            for l in levels {
                let k = key(l);
                match counts.iter_mut().find(|(x, _)| *x == k) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((k, 1)),
                }
            }
            counts
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
    format!(
        "  regressed in {} subgroup levels (by statistic: {}; by subgroup: {}): each is in the \
         report and the by-subgroup tables",
        levels.len(),
        counted(&|(_, r)| r.row.statistic.clone()),
        counted(&|(g, _)| g.to_string()),
    )
}

/// The terminal lines: the preflight table, then criterion-style one line
/// per whole-set statistic and one per regressed subgroup level (counted
/// on one line when there are more than [`FOLD_LEVELS`]).
fn terminal_lines(c: &Comparison) -> Vec<String> {
    let mut out = preflight_lines(c);
    out.push(format!(
        "compare {} (baseline) -> {} (candidate), {}{}:",
        c.baseline_label,
        c.candidate_label,
        c.score_type,
        match (c.paired, c.overall.first()) {
            (true, _) => ", paired",
            (false, Some(r)) if r.delta.lower.is_finite() => ", unpaired",
            (false, Some(_)) => ", stored estimates only",
            (false, None) => "",
        }
    ));
    let line = |scope: &str, r: &VerdictRow| {
        versions::change_line(
            scope,
            &r.delta,
            r.extra.statistic.unit(),
            r.p_value,
            r.verdict.name(),
        )
    };
    for r in &c.overall {
        out.push(line(&r.statistic, r));
    }
    let regressed: Vec<_> = regressed_levels(c).collect();
    if regressed.len() <= FOLD_LEVELS {
        for (g, r) in regressed {
            out.push(line(
                &format!("{} {g}={}", r.row.statistic, r.level),
                &r.row,
            ));
        }
    } else {
        out.push(folded_levels(&regressed));
    }
    out.extend(
        crate::kinds::versions::compare::report::directions(c)
            .into_iter()
            .map(|d| format!("  {d}")),
    );
    out.extend(c.notes.iter().map(|n| format!("note: {n}")));
    out
}
