//! `rsmreport compare BASELINE CANDIDATE`: paired differences of two
//! archived output folders, with verdicts and optional gates.

use super::{archive_failure, config_error, data_error, finish_files, Failure};
use anyhow::anyhow;
use rsmreport::input::archive::Archive;
use rsmreport::kinds::compare::{self, read, run};
use rsmreport::provenance::{self, timed};
use rsmreport::{config, output};
use std::path::{Path, PathBuf};

/// What `rsmreport compare` was asked to do.
pub struct CompareArgs<'a> {
    pub baseline: &'a Path,
    pub candidate: &'a Path,
    pub output_dir: Option<PathBuf>,
    pub force: bool,
    pub config: Option<&'a Path>,
    pub gates: Option<&'a Path>,
    pub unpaired: bool,
}

/// The gates of `--gates FILE` for a comparison, validated against its
/// subgroups and the candidate's score types (exit 2).
fn compare_gates(
    file: &Path,
    cfg: &config::compare::CompareConfig,
    baseline: &Archive,
    candidate: &Archive,
) -> Result<Vec<config::gates::Gate>, Failure> {
    let subgroups = cfg.subgroups.clone().unwrap_or_else(|| {
        rsmreport::kinds::compare::run::both_sides(
            baseline.subgroups.iter().chain(&candidate.subgroups),
        )
    });
    let score_type = rsmreport::kinds::compare::run::stored_score_type(baseline, candidate, cfg);
    let no_min = |_: &str| 0;
    let cx = rsmreport::kinds::compare::gates::context(
        &subgroups,
        candidate,
        &score_type,
        cfg.intervals.replicates > 0,
        &no_min,
    );
    config::gates::load_file_in(file, &cx).map_err(config_error)
}

/// The records of every input (the folders' files, the config and gates
/// files), hashed while the comparison runs.
fn records(args: &CompareArgs, b: &Archive, c: &Archive) -> anyhow::Result<Vec<read::InputRecord>> {
    let rows = |a: &Archive| {
        a.table("pred_processed")
            .map_or_else(String::new, |t| t.nrows.to_string())
    };
    let mut out = vec![
        read::folder_record("baseline", b, rows(b))?,
        read::folder_record("candidate", c, rows(c))?,
    ];
    for (role, file) in [("config", args.config), ("gates", args.gates)] {
        if let Some(f) = file {
            out.push(read::file_record(role, f)?);
        }
    }
    Ok(out)
}

pub fn run(args: CompareArgs) -> Result<(), Failure> {
    let inputs = run::input_paths(&[args.baseline, args.candidate], &[args.config, args.gates]);
    if let Some(dir) = &args.output_dir {
        output::refuse_inputs_inside(dir, &inputs).map_err(config_error)?;
    }
    let names = run::statistic_names();
    let mut cfg = match args.config {
        Some(path) => config::compare::load(path, &names).map_err(config_error)?,
        None => config::compare::CompareConfig::default(),
    };
    cfg.unpaired = args.unpaired;
    let (b, c) = read::open_both(args.baseline, args.candidate).map_err(archive_failure)?;
    let gates = match args.gates {
        Some(file) => compare_gates(file, &cfg, &b, &c)?,
        None => Vec::new(),
    };
    let (cmp, records) = std::thread::scope(|scope| {
        let records = scope.spawn(|| records(&args, &b, &c));
        let cmp = run::compare(&b, &c, &cfg);
        (cmp, records.join().expect("the checksum thread panicked"))
    });
    let mut cmp = cmp.map_err(archive_failure)?;
    let records = records.map_err(data_error)?;
    cmp.gates = rsmreport::kinds::compare::gates::evaluate(&gates, &cmp, &c)
        .map_err(|e| config_error(anyhow!(e)))?;
    // Compare spec 2: the labels name the default folder, also when
    // comparison_id names the files.
    let dir = args.output_dir.unwrap_or_else(|| {
        PathBuf::from(run::default_id(&cmp.baseline_label, &cmp.candidate_label))
    });
    output::refuse_inputs_inside(&dir, &inputs).map_err(config_error)?;
    output::check_output_dir(&dir, args.force).map_err(config_error)?;
    let files = timed("report and tables", || {
        compare::files(&cmp, &records, provenance::generation_epoch())
    })
    .map_err(data_error)?;
    let lines = |_: &[PathBuf]| compare::terminal_lines(&cmp);
    let result = finish_files(&dir, args.force, &files, lines, &cmp.gates);
    // The process ends right after this: returning the two folders'
    // millions of small allocations one by one only costs time.
    std::mem::forget((b, c, cmp));
    result
}
