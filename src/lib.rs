//! The `rsmreport` command line: the clap definitions and the dispatch to
//! one thin file per command in [`cli`] (which run the report kinds of the
//! library and end in `cli::finish`). Errors are printed with their whole
//! chain. Exit codes: 0 success, 2 usage or configuration error, 1 data or
//! runtime error, 3 a quality gate of severity `fail` failed (everything
//! was written).
//!
//! This is a library (`rsmreport_cli`) so that the binary (`src/main.rs`:
//! the global allocator and [`main`]) and the Python module (`python/`,
//! which links this crate and calls [`main_with`]) run the same command
//! line: the same arguments, output bytes and exit codes. Only this crate
//! prints and picks exit codes; the libraries below it never do.
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::exit)]

pub mod cli;
pub mod simulate;

use clap::{Parser, Subcommand};
use cli::summarize::SummaryOrder;
use std::ffi::OsString;
use std::path::PathBuf;
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
    /// Print nothing but errors and failed quality gates.
    #[arg(short, long, global = true)]
    quiet: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate the predictions of an experiment and write every table.
    Build {
        /// The experiment definition (`.toml`, or an rsmeval `.json` config).
        experiment: PathBuf,
        #[command(flatten)]
        output: cli::OutputArgs,
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
        #[command(flatten)]
        output: cli::OutputArgs,
        /// A compare.toml (labels, score type, subgroups, [intervals], [margins]).
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Quality gates (a TOML file with [[gates]] tables and/or gates_preset): on the
        /// candidate's statistics, and delta.* gates on the differences; a failed gate
        /// exits with code 3.
        #[arg(long, value_name = "FILE")]
        gates: Option<PathBuf>,
        /// Compare two folders that share no response (a new test form, a new sample):
        /// unpaired differences, no verdict stronger than "likely".
        #[arg(long)]
        unpaired: bool,
    },
    /// Summarize archived output folders of model versions: one row per version with
    /// intervals, the difference of each from a baseline with its verdict, trend figures.
    Summarize {
        /// The experiment folders (of `build`, or of RSMTool's rsmeval/rsmtool).
        #[arg(required = true, value_name = "DIR")]
        folders: Vec<PathBuf>,
        #[command(flatten)]
        output: cli::OutputArgs,
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
        #[command(flatten)]
        output: cli::OutputArgs,
    },
    /// Generated text against references: BLEU, chrF, TER (sacreBLEU), WER, CER
    /// (jiwer), sacreBLEU's paired bootstrap, intervals and verdicts against a baseline.
    Sequence {
        /// The experiment file (`.toml`: predictions_file or references + [systems]).
        experiment: PathBuf,
        #[command(flatten)]
        output: cli::OutputArgs,
    },
    /// Span annotations: agreement among annotators (pairwise F1 under four
    /// criteria) and, against a reference, seqeval and nervaluate scores with
    /// intervals and verdicts against a baseline.
    Spans {
        /// The spans experiment (`.toml`).
        experiment: PathBuf,
        #[command(flatten)]
        output: cli::OutputArgs,
    },
    /// Audit pairwise preference annotations: how strongly each annotator follows a
    /// reference annotator (Feedback Forensics' metrics, seeded intervals, a report).
    Preferences {
        /// The experiment file (`.toml`: pairs_file, reference_column, annotator_columns, ...).
        experiment: PathBuf,
        #[command(flatten)]
        output: cli::OutputArgs,
    },
    /// Classifiers against gold labels: per-class and averaged metrics, curves,
    /// calibration, intervals and paired verdicts against a baseline.
    Classify {
        /// The experiment file (`.toml`: predictions_file, gold_column, system_columns, ...).
        experiment: PathBuf,
        #[command(flatten)]
        output: cli::OutputArgs,
    },
    /// Train one of RSMTool's built-in linear models on a training file, evaluate it on a
    /// test file (rsmtool's tables, model file and report).
    Train {
        /// The training experiment (`.toml`, or an rsmtool `.json` config).
        experiment: PathBuf,
        #[command(flatten)]
        output: cli::OutputArgs,
    },
    /// Apply a trained model (of `train`, or an RSMTool built-in-model experiment) to new
    /// responses: rsmpredict's predictions, ready for `build`.
    Predict {
        /// The prediction experiment (`.toml`, or an rsmpredict `.json` config).
        experiment: PathBuf,
        #[command(flatten)]
        output: cli::OutputArgs,
    },
    /// Simulate a realistic predictions file (seeded; after Loukina et al. 2020), optionally
    /// with a scale file and a matching experiment file.
    #[command(long_about = cli::simulate::SIMULATE_ABOUT)]
    Simulate(Box<cli::simulate::SimulateArgs>),
}

/// The binary's whole run: parses the command line first, while no other
/// thread exists, so that the process-wide settings can depend on the
/// command (glibc's malloc thresholds for `classify`,
/// [`cli::process::install`]), then runs it. The Python module calls
/// [`main_with`] instead, which changes no process-wide setting.
pub fn main() -> ExitCode {
    let parsed = Cli::try_parse_from(std::env::args_os());
    let classify = matches!(
        parsed,
        Ok(Cli {
            command: Command::Classify { .. },
            ..
        })
    );
    cli::process::install(classify);
    ExitCode::from(run_parsed(parsed))
}

/// The whole command line on `args` (the program's name first): parses
/// them (usage errors and `--help` print as clap prints them), runs the
/// command, prints an error with its whole chain, and returns the exit
/// code. Never ends the process: the Python module's entry (the binary's
/// `main` parses before its process-wide settings, then [`run_parsed`]).
pub fn main_with(args: impl IntoIterator<Item = OsString>) -> u8 {
    run_parsed(Cli::try_parse_from(args))
}

/// [`main_with`] once the arguments are parsed.
fn run_parsed(parsed: Result<Cli, clap::Error>) -> u8 {
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            // What `Cli::parse` does before it exits: help and version on
            // stdout (exit 0), usage errors on stderr (exit 2).
            let _ = e.print();
            return u8::try_from(e.exit_code()).unwrap_or(2);
        }
    };
    cli::set_quiet(cli.quiet);
    cli::progress::install();
    let result = run(cli);
    cli::progress::clear();
    match result {
        Ok(()) => 0,
        Err(error) => {
            cli::warn(&format!("error: {error:#}"));
            cli::exit_code(&error)
        }
    }
}

/// Hands each command to its file in `cli`.
fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Build {
            experiment,
            output,
            gates,
        } => cli::build::run(&experiment, output, gates.as_deref()),
        Command::Check { experiment, gates } => cli::check::run(&experiment, gates.as_deref()),
        Command::Compare {
            baseline,
            candidate,
            output,
            config,
            gates,
            unpaired,
        } => cli::compare::run(cli::compare::CompareArgs {
            baseline: &baseline,
            candidate: &candidate,
            output,
            config: config.as_deref(),
            gates: gates.as_deref(),
            unpaired,
        }),
        Command::Summarize {
            folders,
            output,
            baseline,
            order,
            id,
        } => cli::summarize::run(cli::summarize::SummarizeArgs {
            folders,
            output,
            baseline,
            order,
            id,
        }),
        Command::Agree { experiment, output } => cli::agree::run(&experiment, output),
        Command::Sequence { experiment, output } => cli::sequence::run(&experiment, output),
        Command::Spans { experiment, output } => cli::spans::run(&experiment, output),
        Command::Preferences { experiment, output } => cli::preferences::run(&experiment, output),
        Command::Classify { experiment, output } => cli::classify::run(&experiment, output),
        Command::Train { experiment, output } => cli::train::run(&experiment, output),
        Command::Predict { experiment, output } => cli::predict::run(&experiment, output),
        Command::Simulate(args) => cli::simulate::run(*args),
    }
}
