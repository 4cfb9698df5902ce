//! The `rsmreport` command line: parses arguments, runs the pipeline and
//! prints errors with their whole chain. Exit codes: 0 success, 2 usage or
//! configuration error, 1 data or runtime error, 3 a quality gate of
//! severity `fail` failed (everything was written).

use anyhow::{anyhow, bail, Context, Result};
use clap::{Parser, Subcommand};
use rsmreport::output::file::TableFormat;
use rsmreport::{config, output, pipeline, simulate};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "rsmreport",
    version,
    about = "Evaluation reports for automated scoring engines, with the numbers of RSMTool's rsmeval",
    long_about = None
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate the predictions of an experiment and write every table.
    Build {
        /// The experiment definition (`.toml`, or an rsmeval `.json` config).
        experiment: PathBuf,
        /// Where to write the results (default: ./<experiment_id>).
        #[arg(short, long, value_name = "DIR")]
        output_dir: Option<PathBuf>,
        /// Replace an existing output folder (only once the new output is complete).
        #[arg(short, long)]
        force: bool,
        /// Quality gates to evaluate besides the experiment's own (a TOML file with
        /// [[gates]] tables and/or gates_preset); a failed gate exits with code 3.
        #[arg(long, value_name = "FILE")]
        gates: Option<PathBuf>,
    },
    /// Validate the experiment and its data and print what a build would do; writes nothing.
    Check {
        /// The experiment definition (`.toml`, or an rsmeval `.json` config).
        experiment: PathBuf,
        /// A gates file, as for `build`.
        #[arg(long, value_name = "FILE")]
        gates: Option<PathBuf>,
    },
    /// Compare two archived output folders (of `build`, or of RSMTool's rsmeval/rsmtool):
    /// paired differences with intervals, p-values and verdicts.
    Compare {
        /// The baseline's experiment folder (or its output/ subfolder).
        baseline: PathBuf,
        /// The candidate's experiment folder (or its output/ subfolder).
        candidate: PathBuf,
        /// Where to write the comparison [default: ./<baseline>_vs_<candidate>].
        #[arg(short, long, value_name = "DIR")]
        output_dir: Option<PathBuf>,
        /// Replace an existing output folder (only once the new output is complete).
        #[arg(short, long)]
        force: bool,
        /// A compare.toml (labels, score type, subgroups, [intervals], [margins]).
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Quality gates (a TOML file with [[gates]] tables and/or gates_preset): on the
        /// candidate's statistics, and delta.* gates on the differences; a failed gate
        /// exits with code 3.
        #[arg(long, value_name = "FILE")]
        gates: Option<PathBuf>,
    },
    /// Summarize archived output folders of model versions: one row per version with
    /// intervals, the difference of each from a baseline with its verdict, trend figures.
    Summarize {
        /// The experiment folders (of `build`, or of RSMTool's rsmeval/rsmtool).
        #[arg(required = true, value_name = "DIR")]
        folders: Vec<PathBuf>,
        /// Where to write the summary [default: ./<id>].
        #[arg(short, long, value_name = "DIR")]
        output_dir: Option<PathBuf>,
        /// Replace an existing output folder (only once the new output is complete).
        #[arg(short, long)]
        force: bool,
        /// The folder the others are compared with [default: the first]; summarized too
        /// when it is not among the folders.
        #[arg(long, value_name = "DIR")]
        baseline: Option<PathBuf>,
        /// The order of the rows: as given, or by model_version (numbers compared as numbers).
        #[arg(long, value_enum, default_value_t = SummaryOrder::Given)]
        order: SummaryOrder,
        /// The summary's id, the prefix of its files.
        #[arg(long, default_value = "versions")]
        id: String,
    },
    /// Agreement among raters of an annotation file (no system score): every
    /// coefficient with its interval, pairs, categories, the classification view.
    Agree {
        /// The agreement experiment (`.toml`).
        experiment: PathBuf,
        /// Where to write the results (default: ./<experiment_id>).
        #[arg(short, long, value_name = "DIR")]
        output_dir: Option<PathBuf>,
        /// Replace an existing output folder (only once the new output is complete).
        #[arg(short, long)]
        force: bool,
    },
    /// Audit pairwise preference annotations: how strongly each annotator follows a
    /// reference annotator (Feedback Forensics' metrics, seeded intervals, a report).
    Preferences {
        /// The experiment file (`.toml`: pairs_file, reference_column, annotator_columns, ...).
        experiment: PathBuf,
        /// Where to write the results (default: ./<experiment_id>).
        #[arg(short, long, value_name = "DIR")]
        output_dir: Option<PathBuf>,
        /// Replace an existing output folder (only once the new output is complete).
        #[arg(short, long)]
        force: bool,
    },
    /// Classifiers against gold labels: per-class and averaged metrics, curves,
    /// calibration, intervals and paired verdicts against a baseline.
    Classify {
        /// The experiment file (`.toml`: predictions_file, gold_column, system_columns, ...).
        experiment: PathBuf,
        /// Where to write the results (default: ./<experiment_id>).
        #[arg(short, long, value_name = "DIR")]
        output_dir: Option<PathBuf>,
        /// Replace an existing output folder (only once the new output is complete).
        #[arg(short, long)]
        force: bool,
    },
    /// Simulate a realistic predictions file (seeded; after Loukina et al. 2020), optionally
    /// with a scale file and a matching experiment file.
    #[command(long_about = SIMULATE_ABOUT)]
    Simulate(Box<SimulateArgs>),
}

/// `summarize --order` (`model_version`, the config key, also works).
#[derive(Clone, Copy, clap::ValueEnum)]
enum SummaryOrder {
    Given,
    #[value(alias = "model_version")]
    ModelVersion,
}

/// An error with the exit code it deserves.
struct Failure {
    code: u8,
    error: anyhow::Error,
}

fn config_error(error: anyhow::Error) -> Failure {
    Failure { code: 2, error }
}

fn data_error(error: anyhow::Error) -> Failure {
    Failure { code: 1, error }
}

/// `rsmreport compare`: opens both folders, compares them, writes the
/// files and prints the verdict lines.
/// What `rsmreport compare` was asked to do.
struct CompareArgs<'a> {
    baseline: &'a Path,
    candidate: &'a Path,
    output_dir: Option<PathBuf>,
    force: bool,
    config: Option<&'a Path>,
    gates: Option<&'a Path>,
}

/// The gates of `--gates FILE` for a comparison, validated against its
/// subgroups and the candidate's score types (exit 2).
fn compare_gates(
    file: &Path,
    cfg: &config::compare::CompareConfig,
    baseline: &rsmreport::input::archive::Archive,
    candidate: &rsmreport::input::archive::Archive,
) -> Result<Vec<config::gates::Gate>, Failure> {
    let subgroups = cfg.subgroups.clone().unwrap_or_else(|| {
        rsmreport::compare::run::both_sides(baseline.subgroups.iter().chain(&candidate.subgroups))
    });
    let score_type = rsmreport::compare::run::stored_score_type(baseline, candidate, cfg);
    let no_min = |_: &str| 0;
    let cx = rsmreport::compare::gates::context(
        &subgroups,
        candidate,
        &score_type,
        cfg.intervals.replicates > 0,
        &no_min,
    );
    config::gates::load_file_in(file, &cx).map_err(config_error)
}

fn compare(args: CompareArgs) -> Result<(), Failure> {
    let (baseline, candidate, config, gates) =
        (args.baseline, args.candidate, args.config, args.gates);
    use rsmreport::compare::{outputs, run};
    use rsmreport::input::archive::{self, Problem};
    let names = run::statistic_names();
    let cfg = match config {
        Some(path) => rsmreport::config::compare::load(path, &names).map_err(config_error)?,
        None => Default::default(),
    };
    let open = |dir: &Path, role: &str| {
        archive::open_arg(dir).map_err(|e| Failure {
            code: if e.problem == Problem::Usage { 2 } else { 1 },
            error: anyhow!("the {role} folder: {e}"),
        })
    };
    // Both folders at once (each reads its tables on threads of its own).
    let (b, c) = pipeline::timed("open folders", || {
        std::thread::scope(|scope| {
            let other = scope.spawn(|| open(candidate, "candidate"));
            let b = open(baseline, "baseline");
            let c = other.join().expect("reading the candidate folder panicked");
            Ok::<_, Failure>((b?, c?))
        })
    })?;
    let gates = match gates {
        Some(file) => compare_gates(file, &cfg, &b, &c)?,
        None => Vec::new(),
    };
    let mut cmp = run::compare(&b, &c, &cfg).map_err(|e| Failure {
        code: if e.problem == Problem::Usage { 2 } else { 1 },
        error: e.error,
    })?;
    cmp.gates = rsmreport::compare::gates::evaluate(&gates, &cmp, &c)
        .map_err(|e| config_error(anyhow!(e)))?;
    // Compare spec 2: the labels name the default folder, also when
    // comparison_id names the files.
    let (dir, force) = (
        args.output_dir.unwrap_or_else(|| {
            PathBuf::from(run::default_id(&cmp.baseline_label, &cmp.candidate_label))
        }),
        args.force,
    );
    output::check_output_dir(&dir, force).map_err(config_error)?;
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
    let files = pipeline::timed("report and tables", || {
        outputs::files(&cmp, inputs, pipeline::generation_epoch())
    })
    .map_err(data_error)?;
    pipeline::timed("write", || {
        output::write_output_dir_with(&dir, force, |sink| {
            files.iter().try_for_each(|f| sink.put(f))
        })
    })
    .map_err(data_error)?;
    for line in outputs::terminal_lines(&cmp) {
        println!("{line}");
    }
    println!("wrote {}", dir.join("output").display());
    if !cmp.gates.is_empty() {
        for line in rsmreport::build::gates::terminal_lines(&cmp.gates) {
            eprintln!("{line}");
        }
    }
    let failed = rsmreport::gates::failed(&cmp.gates);
    // The process ends right after this: returning the two folders'
    // millions of small allocations one by one only costs time.
    std::mem::forget((b, c, cmp));
    if failed {
        return Err(Failure {
            code: 3,
            error: anyhow!(
                "a quality gate of severity fail failed (see above and the report); every file \
                 was written"
            ),
        });
    }
    Ok(())
}

/// The archive error of `dir` with its exit code (2 usage, 1 data).
fn archive_failure(e: rsmreport::input::archive::ArchiveError) -> Failure {
    use rsmreport::input::archive::Problem;
    Failure {
        code: if e.problem == Problem::Usage { 2 } else { 1 },
        error: e.error,
    }
}

/// Opens every folder (several at once) and reads its per-response files.
fn open_all(dirs: &[PathBuf]) -> Result<Vec<rsmreport::summarize::run::Opened>, Failure> {
    use rsmreport::summarize::run::Opened;
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let mut slots: Vec<Option<Result<Opened, _>>> = (0..dirs.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let chunk = dirs.len().div_ceil(threads).max(1);
        for (part, out) in slots.chunks_mut(chunk).enumerate() {
            scope.spawn(move || {
                for (k, slot) in out.iter_mut().enumerate() {
                    *slot = Some(Opened::read(&dirs[part * chunk + k]));
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|s| s.expect("every folder was read").map_err(archive_failure))
        .collect()
}

/// `rsmreport summarize`: opens every folder, summarizes them, writes the
/// files and prints one line per version.
fn summarize(
    folders: Vec<PathBuf>,
    output_dir: Option<PathBuf>,
    force: bool,
    baseline: Option<PathBuf>,
    order: SummaryOrder,
    id: &str,
) -> Result<(), Failure> {
    use rsmreport::summarize::{outputs, run};
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
    {
        return Err(config_error(anyhow!(
            "--id {id:?} must be letters, digits, '.', '_' or '-' (it prefixes file names)"
        )));
    }
    let mut dirs = folders;
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
    let opened = pipeline::timed("open folders", || open_all(&dirs))?;
    let order = match order {
        SummaryOrder::Given => run::Order::Given,
        SummaryOrder::ModelVersion => run::Order::ModelVersion,
    };
    let settings = run::settings(&opened[base].archive);
    let summary = pipeline::timed("summarize", || {
        run::summarize(id, &opened, base, order, &settings)
    });
    let dir = output_dir.unwrap_or_else(|| PathBuf::from(id));
    output::check_output_dir(&dir, force).map_err(config_error)?;
    let files = outputs::files(&summary, pipeline::generation_epoch()).map_err(data_error)?;
    output::write_output_dir_with(&dir, force, |sink| {
        files.iter().try_for_each(|f| sink.put(f))
    })
    .map_err(data_error)?;
    for line in outputs::terminal_lines(&summary) {
        println!("{line}");
    }
    println!("wrote {}", dir.join("output").display());
    Ok(())
}

/// `rsmreport agree`: reads the experiment and its annotations, computes
/// every agreement table, writes the files and prints the headline lines.
fn agree(experiment: &Path, output_dir: Option<PathBuf>, force: bool) -> Result<(), Failure> {
    let cfg = rsmreport::config::agree::load(experiment).map_err(config_error)?;
    let dir = output_dir.unwrap_or_else(|| PathBuf::from(&cfg.experiment_id));
    output::check_output_dir(&dir, force).map_err(config_error)?;
    let (agreement, files) =
        rsmreport::agree::outputs::run(&cfg, pipeline::generation_epoch()).map_err(data_error)?;
    output::write_output_dir_with(&dir, force, |sink| {
        files.iter().try_for_each(|f| sink.put(f))
    })
    .map_err(data_error)?;
    for line in rsmreport::agree::outputs::terminal_lines(&agreement, &cfg) {
        println!("{line}");
    }
    println!("wrote {}", dir.join("report").display());
    Ok(())
}

/// `rsmreport preferences`: reads the experiment and the pairs, computes
/// every table, writes the folder and prints one line per annotator.
fn preferences(experiment: &Path, output_dir: Option<PathBuf>, force: bool) -> Result<(), Failure> {
    use rsmreport::preferences::{outputs, read, run};
    let cfg = config::preferences::load(experiment).map_err(config_error)?;
    let dir = output_dir.unwrap_or_else(|| PathBuf::from(&cfg.experiment_id));
    output::check_output_dir(&dir, force).map_err(config_error)?;
    // The checksum of the pairs file is computed on another thread while the
    // pairs are read and analysed.
    let (pairs, analysis, sha256) = std::thread::scope(|scope| {
        let hash = scope.spawn(|| pipeline::sha256_file(&cfg.pairs_file));
        let read = pipeline::timed("read pairs", || read::read(&cfg)).map(|pairs| {
            let analysis = pipeline::timed("analyse", || run::analyse(&cfg, &pairs));
            (pairs, analysis)
        });
        let sha256 = hash
            .join()
            .unwrap_or_else(|_| Err(anyhow!("checksum thread failed")));
        read.map(|(pairs, analysis)| (pairs, analysis, sha256))
    })
    .map_err(data_error)?;
    let input = rsmreport::render::context::InputCtx {
        role: "pairs".into(),
        path: cfg.pairs_file.display().to_string(),
        rows: pairs.len().to_string(),
        sha256: sha256.map_err(data_error)?,
    };
    let files = pipeline::timed("report and tables", || {
        outputs::files(&analysis, vec![input], pipeline::generation_epoch())
    })
    .map_err(data_error)?;
    pipeline::timed("write", || {
        output::write_output_dir_with(&dir, force, |sink| {
            files.iter().try_for_each(|f| sink.put(f))
        })
    })
    .map_err(data_error)?;
    for line in outputs::terminal_lines(&analysis) {
        println!("{line}");
    }
    let report = dir
        .join("report")
        .join(format!("{}_report.html", analysis.id));
    println!("wrote {}", report.display());
    Ok(())
}

/// The system allocator; an absurd allocation while a damaged input file is
/// parsed becomes an error naming the file instead of an abort, and large
/// blocks are advised to use huge pages.
#[global_allocator]
static ALLOCATOR: rsmreport::input::ParserAllocator = rsmreport::input::ParserAllocator;

fn main() -> ExitCode {
    rsmreport::input::configure_malloc();
    // A panic inside a third-party file parser is turned into an error that
    // names the file (`input::guarded`): do not print it as a panic.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !rsmreport::input::in_guarded_parser() {
            default_hook(info);
        }
    }));
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("error: {:#}", f.error);
            ExitCode::from(f.code)
        }
    }
}

/// The experiment and the gates of `--gates FILE`, validated (exit 2).
fn load_experiment(path: &Path, gates: Option<&Path>) -> Result<config::Experiment, Failure> {
    let mut exp = config::load(path).map_err(config_error)?;
    if let Some(file) = gates {
        let more = config::gates::load_file(file, &exp).map_err(config_error)?;
        config::gates::merge(&mut exp.gates, more);
    }
    Ok(exp)
}

/// Runs the pipeline and evaluates the gates.
fn execute(exp: config::Experiment) -> Result<pipeline::Run, Failure> {
    let mut run = pipeline::execute(exp).map_err(data_error)?;
    pipeline::evaluate_gates(&mut run).map_err(|e| config_error(anyhow!(e)))?;
    Ok(run)
}

fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::Build {
            experiment,
            output_dir,
            force,
            gates,
        } => {
            let exp = load_experiment(&experiment, gates.as_deref())?;
            let dir = output_dir.unwrap_or_else(|| PathBuf::from(&exp.experiment_id));
            output::check_output_dir(&dir, force).map_err(config_error)?;
            let run = execute(exp)?;
            // Each file is written as soon as its bytes exist, into a
            // temporary folder that replaces `dir` only when complete.
            let written = output::write_output_dir_with(&dir, force, |sink| {
                pipeline::emit_files(&run, &mut |f| sink.put(f))
            })
            .map_err(data_error)?;
            let tables = written.iter().filter(|p| p.starts_with("output")).count();
            println!(
                "{}: evaluated {} responses; wrote {} files to {}",
                run.exp.experiment_id,
                run.prepared.n(),
                tables,
                dir.join("output").display()
            );
            if !run.gates.is_empty() {
                for line in rsmreport::build::gates::terminal_lines(&run.gates) {
                    eprintln!("{line}");
                }
            }
            let failed = rsmreport::gates::failed(&run.gates);
            // The process ends right after this: returning the run's
            // millions of small allocations to malloc one by one only costs
            // time (4% of a 1M build), so leave them to the OS.
            std::mem::forget(run);
            if failed {
                return Err(Failure {
                    code: 3,
                    error: anyhow!(
                        "a quality gate of severity fail failed (see above and the report); \
                         every file was written"
                    ),
                });
            }
            Ok(())
        }
        Command::Check { experiment, gates } => {
            let exp = load_experiment(&experiment, gates.as_deref())?;
            let run = execute(exp)?;
            print!("{}", pipeline::describe(&run));
            Ok(())
        }
        Command::Compare {
            baseline,
            candidate,
            output_dir,
            force,
            config,
            gates,
        } => compare(CompareArgs {
            baseline: &baseline,
            candidate: &candidate,
            output_dir,
            force,
            config: config.as_deref(),
            gates: gates.as_deref(),
        }),
        Command::Summarize {
            folders,
            output_dir,
            force,
            baseline,
            order,
            id,
        } => summarize(folders, output_dir, force, baseline, order, &id),
        Command::Agree {
            experiment,
            output_dir,
            force,
        } => agree(&experiment, output_dir, force),
        Command::Preferences {
            experiment,
            output_dir,
            force,
        } => preferences(&experiment, output_dir, force),
        Command::Classify {
            experiment,
            output_dir,
            force,
        } => rsmreport::classify::command(&experiment, output_dir, force).map_err(|f| Failure {
            code: f.code,
            error: f.error,
        }),
        Command::Simulate(args) => simulate(*args),
    }
}

const SIMULATE_ABOUT: &str = "\
Simulate a realistic predictions file: true scores T ~ Normal(3.844, 0.74) clipped to the \
score range; human scores h1, h2 = T + rater error, rounded and clipped, with the error sd set \
for the chosen inter-rater correlation; a system score = T + error for the chosen R2 against T \
(plus an optional group bias), written as A * S + B; subgroup columns with uneven sizes; \
optionally zero and non-numeric scores. The same seed gives the same file on every platform.

Example: rsmreport simulate -n 1000000 --out sim.csv --scale-out sim_scale.csv \
--write-config sim.toml && rsmreport build sim.toml";

/// Options of `rsmreport simulate` (defaults: `simulate::SimulationSpec::default()`).
#[derive(clap::Args)]
struct SimulateArgs {
    /// Number of responses.
    #[arg(
        short = 'n',
        long = "responses",
        value_name = "N",
        default_value_t = 10_000
    )]
    responses: usize,
    /// Seed of the random numbers.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// The predictions file; its extension (.csv, .tsv, .jsonl, .parquet) sets the format
    /// [default: simulated.<format>].
    #[arg(short, long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Format of the predictions file (default: from --out's extension, else csv).
    #[arg(long, value_name = "FORMAT", value_parser = ["csv", "tsv", "jsonl", "parquet"])]
    format: Option<String>,
    /// Also write an experiment file for these data (all sections; `scale_with` the scale
    /// file when --scale-out is given), so that `rsmreport build FILE` just works.
    #[arg(long, value_name = "FILE")]
    write_config: Option<PathBuf>,
    /// Also write a scale file (columns sc1, prediction) from an independent sample, for
    /// `scale_with`; its extension sets its format.
    #[arg(long, value_name = "FILE")]
    scale_out: Option<PathBuf>,
    /// Responses in the scale sample.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    scale_n: usize,
    /// Correlation of two (unrounded) human scores: low (0.40), moderate (0.55), average
    /// (0.65), high (0.80) or a number in (0, 1].
    #[arg(long, value_name = "R", default_value = "average")]
    inter_rater: String,
    /// Squared correlation of the system score with the true score, in (0, 1].
    #[arg(long, value_name = "R2", default_value_t = 0.7)]
    system_r2: f64,
    /// Fraction of responses with a second human score (0 leaves the h2 column out).
    #[arg(long, value_name = "FRACTION", default_value_t = 0.3)]
    double_scored: f64,
    /// Lowest score point.
    #[arg(long, default_value_t = 1)]
    score_min: i64,
    /// Highest score point.
    #[arg(long, default_value_t = 6)]
    score_max: i64,
    /// Mean of the true score (before clipping to the score range).
    #[arg(long, default_value_t = 3.844, allow_negative_numbers = true)]
    true_mean: f64,
    /// Standard deviation of the true score (before clipping).
    #[arg(long, default_value_t = 0.74)]
    true_sd: f64,
    /// The system score is written on its own scale as A * S + B: this is A.
    #[arg(
        long,
        value_name = "A",
        default_value_t = 1.0,
        allow_negative_numbers = true
    )]
    system_scale: f64,
    /// The offset B of the system score's own scale A * S + B.
    #[arg(
        long,
        value_name = "B",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    system_offset: f64,
    /// Decimal places of the system score.
    #[arg(long, default_value_t = 6)]
    decimals: u32,
    /// A subgroup column NAME=LEVEL:WEIGHT[:BIAS],... (repeat for more columns; replaces the
    /// default L1 (6 uneven levels) and gender (F, M)), e.g.
    /// --subgroup "L1=Spanish:40,Mandarin:25,Tagalog:1:-0.15".
    #[arg(long = "subgroup", value_name = "SPEC")]
    subgroups: Vec<String>,
    /// No subgroup columns.
    #[arg(long, conflicts_with = "subgroups")]
    no_subgroups: bool,
    /// Shift of the system score (score points) for the last level of every subgroup column.
    #[arg(
        long,
        value_name = "POINTS",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    group_bias: f64,
    /// Fraction of responses whose first human score is 0 (and of double-scored responses
    /// whose second one is); the evaluation excludes them by default.
    #[arg(long, value_name = "FRACTION", default_value_t = 0.0)]
    zero_scores: f64,
    /// Fraction of responses with a non-numeric first human score (NS) and, chosen
    /// independently, with a non-numeric system score (NA).
    #[arg(long, value_name = "FRACTION", default_value_t = 0.0)]
    non_numeric: f64,
    /// Replace existing files.
    #[arg(short, long)]
    force: bool,
}

impl SimulateArgs {
    fn spec(&self) -> Result<simulate::SimulationSpec> {
        let subgroups = if self.no_subgroups {
            Vec::new()
        } else if self.subgroups.is_empty() {
            simulate::default_subgroups()
        } else {
            self.subgroups
                .iter()
                .map(|s| simulate::SubgroupSpec::parse(s))
                .collect::<Result<_>>()?
        };
        let spec = simulate::SimulationSpec {
            n: self.responses,
            seed: self.seed,
            true_mean: self.true_mean,
            true_sd: self.true_sd,
            score_min: self.score_min,
            score_max: self.score_max,
            inter_rater: simulate::parse_inter_rater(&self.inter_rater)?,
            system_r2: self.system_r2,
            system_scale: self.system_scale,
            system_offset: self.system_offset,
            decimals: self.decimals,
            double_scored: self.double_scored,
            subgroups,
            group_bias: self.group_bias,
            zero_scores: self.zero_scores,
            non_numeric: self.non_numeric,
            scale_n: self.scale_n,
        };
        spec.validate()?;
        Ok(spec)
    }
}

/// The format of a table file to write: `--format` if given (it must agree
/// with the extension, which is what `build` reads by), else the extension.
fn table_format(path: &Path, given: Option<TableFormat>) -> Result<TableFormat> {
    match (TableFormat::from_path(path), given) {
        (Some(a), Some(b)) if a != b => bail!(
            "{} has the extension of {} but --format {} was given; rsmreport reads tables by \
             their extension, so make them agree",
            path.display(),
            a.extension(),
            b.extension()
        ),
        (Some(a), _) => Ok(a),
        (None, _) => bail!(
            "{}: the file name must end in one of .{} (rsmreport reads tables by their extension)",
            path.display(),
            TableFormat::NAMES.replace(", ", ", .")
        ),
    }
}

/// How the experiment file `config` should name `file`: relative to the
/// config's folder when it is inside it, else absolute.
fn path_for_config(file: &Path, config: &Path) -> Result<String> {
    let cwd = std::env::current_dir().context("cannot determine the current folder")?;
    let file = cwd.join(file);
    let folder = cwd.join(config);
    let folder = folder.parent().unwrap_or(&cwd);
    Ok(match file.strip_prefix(folder) {
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => file.to_string_lossy().into_owned(),
    })
}

fn simulate(args: SimulateArgs) -> Result<(), Failure> {
    let spec = args.spec().map_err(config_error)?;
    let given = args.format.as_deref().and_then(TableFormat::parse);
    let out = args.out.clone().unwrap_or_else(|| {
        PathBuf::from(format!(
            "simulated.{}",
            given.unwrap_or(TableFormat::Csv).extension()
        ))
    });
    let format = table_format(&out, given).map_err(config_error)?;
    let scale_format = match &args.scale_out {
        Some(p) => Some(table_format(p, None).map_err(config_error)?),
        None => None,
    };
    let targets: Vec<&Path> = [
        Some(out.as_path()),
        args.scale_out.as_deref(),
        args.write_config.as_deref(),
    ]
    .into_iter()
    .flatten()
    .collect();
    for (i, p) in targets.iter().enumerate() {
        if targets[..i].contains(p) {
            return Err(config_error(anyhow!(
                "{} is named twice among --out, --scale-out and --write-config",
                p.display()
            )));
        }
        output::file::check_new_file(p, args.force).map_err(config_error)?;
    }
    if let Some(config) = &args.write_config {
        if config.extension().and_then(|e| e.to_str()) != Some("toml") {
            return Err(config_error(anyhow!(
                "--write-config {}: the experiment file must end in .toml",
                config.display()
            )));
        }
    }

    let mut sim = simulate::Simulator::new(&spec).map_err(config_error)?;
    let chunks = std::iter::from_fn(|| sim.next_chunk(1 << 16));
    output::file::write_table_chunks(&out, format, args.force, chunks).map_err(data_error)?;
    let counts = sim.counts();
    println!(
        "simulated {} responses ({} double-scored; {} zero and {} non-numeric human scores, \
         {} non-numeric system scores) -> {}",
        counts.rows,
        counts.double_scored,
        counts.zero_h1,
        counts.non_numeric_h1,
        counts.non_numeric_system,
        out.display()
    );
    if let (Some(path), Some(fmt)) = (&args.scale_out, scale_format) {
        let table = simulate::scale_sample(&spec).map_err(config_error)?;
        output::file::write_table_chunks(path, fmt, args.force, [table]).map_err(data_error)?;
        println!(
            "scale sample: {} responses -> {}",
            spec.scale_n,
            path.display()
        );
    }
    if let Some(config) = &args.write_config {
        let stem = out
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let paths = simulate::ConfigPaths {
            experiment_id: simulate::experiment_id_from(&stem),
            predictions: path_for_config(&out, config).map_err(data_error)?,
            scale: match &args.scale_out {
                Some(p) => Some(path_for_config(p, config).map_err(data_error)?),
                None => None,
            },
        };
        let text = simulate::experiment_toml(&spec, &paths);
        output::file::write_file(config, text.as_bytes(), args.force).map_err(data_error)?;
        println!(
            "experiment: {} (run `rsmreport build {}`)",
            config.display(),
            config.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simulate_defaults_are_the_spec_defaults() {
        let cli = Cli::parse_from(["rsmreport", "simulate"]);
        let Command::Simulate(args) = cli.command else {
            panic!("not simulate");
        };
        assert_eq!(args.spec().unwrap(), simulate::SimulationSpec::default());
    }
}
