//! The command line's commands (the `rsmreport` binary and the Python
//! module's `rsmreport` script run them both, through `main_with`), as cargo's
//! `src/bin/cargo/commands/*.rs` over its `ops`: [`kind`] makes the
//! command of every experiment-file kind from the kind table
//! (`rsmreport::kinds::registry`) and runs it; [`check`] checks an
//! experiment of any kind; [`compare`], [`summarize`] and [`simulate`]
//! have arguments of their own. Each turns the parsed arguments into the
//! library's request and runs it (`rsmreport::kinds::run`, then the one
//! [`finish`], which writes, prints and reports failed gates). No command
//! reads an input, hashes a file or picks an exit code: the exit code of
//! an error comes from its type ([`exit_code`]). `lib.rs` holds the clap
//! definitions and the dispatch; [`process`] the process-wide settings
//! (allocator, malloc, panic hook) that the library never touches.
//! Nothing here computes a statistic or formats a table.

/// A line on stdout unless `--quiet` was given ([`say`]).
macro_rules! say {
    ($($arg:tt)*) => {
        if !$crate::cli::quiet() {
            $crate::cli::say(&format!($($arg)*));
        }
    };
}

pub mod check;
pub mod compare;
pub mod kind;
pub mod process;
pub mod progress;
pub mod simulate;
pub mod summarize;

use rsmreport::kinds::{self, Destination, Kind, Outcome, Request};
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// The arguments of every command that writes an output folder.
#[derive(clap::Args, Clone, Debug)]
pub struct OutputArgs {
    /// Where to write the results [default: ./<experiment_id>].
    #[arg(short, long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// Replace an existing output folder (only once the new output is complete).
    #[arg(short, long)]
    pub force: bool,
}

impl OutputArgs {
    /// The library's destination for these arguments.
    pub fn destination(self) -> Destination {
        Destination::Folder {
            dir: self.output_dir,
            force: self.force,
        }
    }
}

/// The marker of a run whose files were all written but a quality gate of
/// severity `fail` failed: exit code 3.
#[derive(Debug)]
pub struct GatesFailed;

impl fmt::Display for GatesFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "a quality gate of severity fail failed (see above and the report); every file was \
             written",
        )
    }
}

impl std::error::Error for GatesFailed {}

/// The exit code of an error: 3 for failed gates (of a run or a check),
/// else its class's
/// (`rsmreport_core::error`: 2 configuration, 1 data).
pub fn exit_code(error: &anyhow::Error) -> u8 {
    if error.is::<GatesFailed>() || error.is::<check::CheckGatesFailed>() {
        3
    } else {
        rsmreport_core::error::class(error).exit_code()
    }
}

/// Runs the request of kind `K` and [`finish`]es it (`compare`,
/// `summarize`, once they have parsed their arguments into `config`).
pub fn run_kind<K: Kind>(config: K::Config, destination: Destination) -> anyhow::Result<()> {
    finish(kinds::run::<K>(Request {
        config,
        destination,
    })?)
}

/// How a command ends once its outcome exists: writes the output folder
/// (each file as soon as its bytes exist, into a temporary folder that
/// replaces the destination only when complete), prints the terminal
/// lines on stdout, the gate lines on stderr, the folder and the report,
/// then the run's decision (its warnings on stderr, `overall: ...` last),
/// and fails with [`GatesFailed`] when a gate of severity `fail`
/// failed (every file was written).
pub fn finish(outcome: Outcome) -> anyhow::Result<()> {
    let written = match outcome.write() {
        Ok(written) => {
            for note in &written.notes {
                warn(note);
            }
            written.files
        }
        Err(e) => {
            // Ending now: leave the run's allocations to the OS (below).
            std::mem::forget(outcome);
            return Err(e);
        }
    };
    progress::clear();
    if !quiet() {
        for line in outcome.lines(&written) {
            say(&line);
        }
    }
    let gates = outcome.report.gates();
    if !gates.is_empty() {
        for line in rsmreport::kinds::common::gates::terminal_lines(gates) {
            if !quiet() || line.starts_with("gate FAILED") {
                warn(&line);
            }
        }
    }
    if let (Some(dir), false) = (&outcome.dir, quiet()) {
        for line in where_lines(dir, &written) {
            say(&line);
        }
    }
    // The decision last: its warnings, then `overall: ...`.
    if let (Some(d), false) = (outcome.report.decision(), quiet()) {
        for w in &d.warnings {
            warn(&format!("warning: {w}"));
        }
        say(&d.line());
    }
    let failed = outcome.gates_failed();
    // The process ends right after this: returning the run's millions of
    // small allocations to malloc one by one only costs time (4% of a 1M
    // build), so leave them to the OS.
    std::mem::forget(outcome);
    if failed {
        return Err(GatesFailed.into());
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

/// Set once a write to stdout failed (a closed pipe: `rsmreport ... |
/// head`): the files are written already, so the rest is dropped quietly.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Prints `line` on stdout. A closed standard output (or any failure to
/// print) is not an error and never a panic: the line and every later one
/// are dropped, and the command ends with the exit code it would have had.
pub fn say(line: &str) {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
    }
}

/// Prints `line` on stderr; a failure to print is ignored (never a panic).
pub fn warn(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}");
}
