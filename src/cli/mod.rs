//! The command line's commands (binary only), one thin file per command,
//! as cargo's `src/bin/cargo/commands/*.rs` over its `ops`: each turns the
//! parsed arguments into a validated request (exit 2 when it is not),
//! runs its report kind from the library, and hands the files and the
//! terminal lines to the one [`finish`], which writes, prints and maps
//! failed gates to exit code 3. `main.rs` holds only the clap definitions
//! and the dispatch. Nothing here computes a statistic or formats a table.

/// `println!` unless `--quiet` was given.
macro_rules! say {
    ($($arg:tt)*) => {
        if !$crate::cli::quiet() {
            println!($($arg)*);
        }
    };
}

pub mod agree;
pub mod build;
pub mod check;
pub mod classify;
pub mod compare;
pub mod preferences;
pub mod progress;
pub mod simulate;
pub mod summarize;

use anyhow::anyhow;
use rsmreport::input::archive::{ArchiveError, Problem};
use rsmreport::output::{self, Sink};
use rsmreport::provenance::timed;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// An error with the exit code it deserves.
pub struct Failure {
    pub code: u8,
    pub error: anyhow::Error,
}

/// A usage or configuration error (exit 2).
pub fn config_error(error: anyhow::Error) -> Failure {
    Failure { code: 2, error }
}

/// A data or runtime error (exit 1).
pub fn data_error(error: anyhow::Error) -> Failure {
    Failure { code: 1, error }
}

/// An error about the data that is a usage error (exit 2) when `problem`
/// says so, else a data error (exit 1): the archive readers' and compare's
/// errors.
pub fn problem_failure(problem: Problem, error: anyhow::Error) -> Failure {
    Failure {
        code: if problem == Problem::Usage { 2 } else { 1 },
        error,
    }
}

/// The archive error of a folder with its exit code (2 usage, 1 data).
pub fn archive_failure(e: ArchiveError) -> Failure {
    problem_failure(e.problem, e.error)
}

/// How a command ends once its results exist: writes the output folder
/// `dir` (each file as `produce` hands it over, into a temporary folder that
/// replaces `dir` only when complete), prints the terminal lines that
/// `lines` makes from the written paths on stdout, the gate lines on
/// stderr, and fails with exit code 3 when a gate of severity `fail`
/// failed (every file was written).
pub fn finish(
    dir: &Path,
    force: bool,
    produce: impl FnOnce(&mut Sink) -> anyhow::Result<()>,
    lines: impl FnOnce(&[PathBuf]) -> Vec<String>,
    gates: &[rsmreport::gates::Outcome],
) -> Result<(), Failure> {
    let written = timed("write", || {
        output::write_output_dir_with(dir, force, produce)
    })
    .map_err(data_error)?;
    progress::clear();
    if !quiet() {
        for line in lines(&written) {
            println!("{line}");
        }
    }
    if !gates.is_empty() {
        for line in rsmreport::kinds::evaluation::gates::terminal_lines(gates) {
            if !quiet() || line.starts_with("gate FAILED") {
                eprintln!("{line}");
            }
        }
    }
    if !quiet() {
        for line in where_lines(dir, &written) {
            println!("{line}");
        }
    }
    if rsmreport::gates::failed(gates) {
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

/// The last lines of every command that writes a folder: the output
/// folder, then the HTML report in it (the path a user opens next), as the
/// user named the folder.
fn where_lines(dir: &Path, written: &[PathBuf]) -> Vec<String> {
    let mut out = vec![format!("output: {}", dir.display())];
    let report = written.iter().find(|p| {
        p.extension().is_some_and(|e| e == "html")
            && p.parent()
                .and_then(Path::file_name)
                .is_some_and(|n| n == "report")
    });
    if let Some(name) = report.and_then(|p| p.file_name()) {
        out.push(format!(
            "report: {}",
            dir.join("report").join(name).display()
        ));
    }
    out
}

/// `--quiet`: nothing on the terminal but errors and failed gates.
static QUIET: AtomicBool = AtomicBool::new(false);

/// Sets `--quiet` for the whole run (once, from `main`).
pub fn set_quiet(on: bool) {
    QUIET.store(on, Ordering::Relaxed);
}

/// Whether `--quiet` was given.
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// [`finish`] for a kind whose files are all produced before writing.
pub fn finish_files(
    dir: &Path,
    force: bool,
    files: &[output::OutputFile],
    lines: impl FnOnce(&[PathBuf]) -> Vec<String>,
    gates: &[rsmreport::gates::Outcome],
) -> Result<(), Failure> {
    finish(
        dir,
        force,
        |sink| files.iter().try_for_each(|f| sink.put(f)),
        lines,
        gates,
    )
}
