//! The progress line and `--quiet`: the line is drawn on a terminal only
//! (never in a pipe, a file or a CI log), it changes no output byte, and
//! `--quiet` leaves nothing but errors and failed gates. The line's delay
//! is set to 0 (`RSMREPORT_PROGRESS_DELAY_MS`) so that the small bundled
//! example would draw it if it were drawn at all.

use std::fs;
use std::path::Path;
use std::process::Command;

use tempfile::TempDir;

use crate::common::{self, list_files};

/// `rsmreport ARGS` in `cwd` with stdout and stderr piped and no delay.
fn piped(cwd: &Path, args: &[&str]) -> std::process::Output {
    Command::new(common::bin())
        .args(args)
        .current_dir(cwd)
        .env("RSMREPORT_PROGRESS_DELAY_MS", "0")
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .env_remove("CI")
        .env_remove("RSMREPORT_TIMINGS")
        .output()
        .expect("could not start rsmreport")
}

/// A folder holding a copy of `examples/`.
fn examples() -> TempDir {
    let tmp = TempDir::new().unwrap();
    common::copy_dir(
        &common::manifest_dir().join("examples"),
        &tmp.path().join("examples"),
    );
    tmp
}

/// Escape sequences, carriage returns or a stage name: a progress line.
fn has_progress(text: &str) -> bool {
    text.contains('\u{1b}')
        || text.contains('\r')
        || ["preprocess", "analysis", "intervals", "report"]
            .iter()
            .any(|s| {
                text.lines()
                    .any(|l| l.contains(s) && !l.starts_with("report: "))
            })
}

#[test]
fn progress_never_reaches_a_pipe() {
    let tmp = examples();
    let runs: [&[&str]; 3] = [
        &["build", "examples/exp.toml", "-o", "build"],
        &["agree", "examples/agree/exp.toml", "-o", "agree"],
        &[
            "preferences",
            "examples/preferences/exp.toml",
            "-o",
            "prefs",
        ],
    ];
    for args in runs {
        let out = piped(tmp.path(), args);
        assert!(out.status.success(), "{args:?} failed: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !has_progress(&stderr),
            "{args:?} drew progress in a pipe:\n{stderr}"
        );
        assert!(stderr.lines().all(|l| l.starts_with("gate")), "{stderr}");
        assert!(!has_progress(&String::from_utf8_lossy(&out.stdout)));
    }
}

#[test]
fn quiet_prints_nothing_but_failed_gates() {
    let tmp = examples();
    let ok = piped(
        tmp.path(),
        &["--quiet", "build", "examples/exp.toml", "-o", "a"],
    );
    assert!(ok.status.success());
    assert!(ok.stdout.is_empty() && ok.stderr.is_empty(), "{ok:?}");
    let fail = piped(
        tmp.path(),
        &["build", "-q", "examples/gates-fail/exp.toml", "-o", "b"],
    );
    assert_eq!(fail.status.code(), Some(3));
    assert!(fail.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&fail.stderr);
    assert!(
        stderr
            .lines()
            .all(|l| l.starts_with("gate FAILED") || l.starts_with("error: ")),
        "{stderr}"
    );
    assert!(stderr.contains("gate FAILED"), "{stderr}");
}

/// Runs `command` under a pseudo-terminal (`script`); `None` when `script`
/// is not installed.
fn on_terminal(cwd: &Path, command: &str) -> Option<String> {
    let out = Command::new("script")
        .args(["-qec", command, "/dev/null"])
        .current_dir(cwd)
        .env("RSMREPORT_PROGRESS_DELAY_MS", "0")
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .env("TERM", "xterm")
        .env_remove("CI")
        .env_remove("RSMREPORT_TIMINGS")
        .output()
        .ok()?;
    assert!(out.status.success(), "{command} failed: {out:?}");
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn progress_on_a_terminal_changes_no_output_byte() {
    let tmp = examples();
    let bin = common::bin().display().to_string();
    let Some(tty) = on_terminal(tmp.path(), &format!("{bin} build examples/exp.toml -o tty"))
    else {
        eprintln!("skipped: `script` (util-linux) is not installed, no pseudo-terminal");
        return;
    };
    assert!(has_progress(&tty), "no progress line on a terminal:\n{tty}");
    assert!(tty.contains("report: tty/report/"), "{tty}");
    let piped_run = piped(tmp.path(), &["build", "examples/exp.toml", "-o", "pipe"]);
    assert!(piped_run.status.success());
    let (a, b) = (tmp.path().join("tty"), tmp.path().join("pipe"));
    let files = list_files(&a);
    assert_eq!(files, list_files(&b));
    for f in &files {
        assert!(
            fs::read(a.join(f)).unwrap() == fs::read(b.join(f)).unwrap(),
            "{f:?} differs"
        );
    }
    let quiet = on_terminal(
        tmp.path(),
        &format!("{bin} -q build examples/exp.toml -o q"),
    )
    .expect("script ran above");
    assert!(
        quiet.trim().is_empty(),
        "--quiet drew on a terminal:\n{quiet}"
    );
}
