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

/// The top-level help: what rsmreport makes, naming every kind.
const ABOUT: &str = "Evaluation reports with intervals, verdicts and quality gates: scoring \
                     engines against human scores (build, with the numbers of RSMTool's \
                     rsmeval), classifiers (classify), generated text (sequence), span \
                     annotations (spans), rater agreement (agree), preference annotations \
                     (preferences), scoring models trained (train, RSMTool's rsmtool) and \
                     applied (predict, rsmpredict), and archived runs compared (compare) and \
                     summarized (summarize)";

#[derive(Parser)]
#[command(name = "rsmreport", version, about = ABOUT, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,

    /// Print nothing but errors and failed quality gates.
    #[arg(short, long, global = true)]
    quiet: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Every kind of the kind table whose request is one experiment file
    /// (`build`, `classify`, `sequence`, `spans`, `agree`, `preferences`).
    #[command(flatten)]
    Kind(cli::kind::KindCommand),

    /// Validate an experiment of any kind and its data and print what a run would read,
    /// compute and gate; writes nothing (exit codes as for the run).
    Check {
        /// The experiment file of any kind (`.toml`, or an rsmeval `.json` config).
        experiment: PathBuf,
        /// The experiment's kind [default: the kind its keys say; build when they say none].
        #[arg(long, value_name = "KIND")]
        kind: Option<String>,
        /// A gates file, as for `build` (build experiments only).
        #[arg(long, value_name = "FILE")]
        gates: Option<PathBuf>,
    },

    #[command(about = about("compare"), mut_arg("output_dir", |a| a.help(
        "Where to write the results [default: ./<baseline>_vs_<candidate>, the two folders' labels]"
    )))]
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

    #[command(about = about("summarize"), mut_arg("output_dir", |a| a.help(
        "Where to write the results [default: ./<id>, see --id]"
    )))]
    Summarize {
        /// The output folders, all of one kind: of `build` (or of RSMTool's rsmeval/rsmtool), or of
        /// a kind that `compare` takes (classify, sequence, spans, ...).
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

    /// Simulate a realistic predictions file (seeded; after Loukina et al. 2020), optionally
    /// with a scale file and a matching experiment file.
    #[command(long_about = cli::simulate::SIMULATE_ABOUT)]
    Simulate(Box<cli::simulate::SimulateArgs>),
}

/// The one-line help of kind `name` in the kind table.
fn about(name: &str) -> &'static str {
    rsmreport::kinds::registry::find(name).map_or("", |k| k.about)
}

/// The binary's whole run: parses the command line first, while no other
/// thread exists, so that the process-wide settings can depend on the
/// command (glibc's malloc thresholds for `classify`,
/// [`cli::process::install`]), then runs it. The Python module calls
/// [`main_with`] instead, which changes no process-wide setting.
pub fn main() -> ExitCode {
    let parsed = Cli::try_parse_from(std::env::args_os());
    let classify = matches!(
        &parsed,
        Ok(Cli {
            command: Command::Kind(k),
            ..
        }) if k.entry.name == "classify"
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
        Command::Kind(kind) => kind.run(),
        Command::Check {
            experiment,
            kind,
            gates,
        } => cli::check::run(&experiment, kind.as_deref(), gates.as_deref()),
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
        Command::Simulate(args) => cli::simulate::run(*args),
    }
}
