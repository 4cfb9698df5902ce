//! `rsmreport compare BASELINE CANDIDATE`: paired differences of two
//! archived output folders, with verdicts and optional gates.

use super::{archive_failure, config_error, data_error, finish_files, problem_failure, Failure};
use anyhow::anyhow;
use rsmreport::input::archive::{self, Archive};
use rsmreport::kinds::compare::{outputs, run};
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

/// Both folders at once (each reads its tables on threads of its own).
fn open_both(baseline: &Path, candidate: &Path) -> Result<(Archive, Archive), Failure> {
    let open = |dir: &Path, role: &str| {
        archive::open_arg(dir)
            .map_err(|e| problem_failure(e.problem, anyhow!("the {role} folder: {e}")))
    };
    timed("open folders", || {
        std::thread::scope(|scope| {
            let other = scope.spawn(|| open(candidate, "candidate"));
            let b = open(baseline, "baseline");
            let c = other.join().expect("reading the candidate folder panicked");
            Ok::<_, Failure>((b?, c?))
        })
    })
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
    let (b, c) = open_both(args.baseline, args.candidate)?;
    let gates = match args.gates {
        Some(file) => compare_gates(file, &cfg, &b, &c)?,
        None => Vec::new(),
    };
    let mut cmp = run::compare(&b, &c, &cfg).map_err(archive_failure)?;
    cmp.gates = rsmreport::kinds::compare::gates::evaluate(&gates, &cmp, &c)
        .map_err(|e| config_error(anyhow!(e)))?;
    // Compare spec 2: the labels name the default folder, also when
    // comparison_id names the files.
    let dir = args.output_dir.unwrap_or_else(|| {
        PathBuf::from(run::default_id(&cmp.baseline_label, &cmp.candidate_label))
    });
    output::refuse_inputs_inside(&dir, &inputs).map_err(config_error)?;
    output::check_output_dir(&dir, args.force).map_err(config_error)?;
    let inputs = [("baseline", &b), ("candidate", &c)]
        .into_iter()
        .map(|(role, a)| rsmreport::render::context::InputCtx {
            role: role.into(),
            path: a.dir.display().to_string(),
            rows: a
                .table("pred_processed")
                .map_or_else(String::new, |t| t.nrows.to_string()),
            sha256: String::new(),
        })
        .collect();
    let files = timed("report and tables", || {
        outputs::files(&cmp, inputs, provenance::generation_epoch())
    })
    .map_err(data_error)?;
    let lines = |_: &[PathBuf]| outputs::terminal_lines(&cmp);
    let result = finish_files(&dir, args.force, &files, lines, &cmp.gates);
    // The process ends right after this: returning the two folders'
    // millions of small allocations one by one only costs time.
    std::mem::forget((b, c, cmp));
    result
}
