//! The `rsmreport` command line: parses arguments, runs the pipeline and
//! prints errors with their whole chain. Exit codes: 0 success, 2 usage or
//! configuration error, 1 data or runtime error.

use anyhow::Result;
use clap::{Parser, Subcommand};
use rsmreport::{config, output, pipeline};
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
    },
    /// Validate the experiment and its data and print what a build would do; writes nothing.
    Check {
        /// The experiment definition (`.toml`, or an rsmeval `.json` config).
        experiment: PathBuf,
    },
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("error: {:#}", f.error);
            ExitCode::from(f.code)
        }
    }
}

fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::Build {
            experiment,
            output_dir,
            force,
        } => {
            let exp = config::load(&experiment).map_err(config_error)?;
            let dir = output_dir.unwrap_or_else(|| PathBuf::from(&exp.experiment_id));
            output::check_output_dir(&dir, force).map_err(config_error)?;
            let run = pipeline::execute(exp).map_err(data_error)?;
            let files = pipeline::files(&run).map_err(data_error)?;
            output::write_output_dir(&dir, &files, force).map_err(data_error)?;
            let tables = files
                .iter()
                .filter(|f| f.path.starts_with("output"))
                .count();
            println!(
                "{}: evaluated {} responses; wrote {} files to {}",
                run.exp.experiment_id,
                run.prepared.n(),
                tables,
                dir.join("output").display()
            );
            Ok(())
        }
        Command::Check { experiment } => {
            let exp = config::load(&experiment).map_err(config_error)?;
            let run = pipeline::execute(exp).map_err(data_error)?;
            print!("{}", pipeline::describe(&run));
            Ok(())
        }
    }
}
