//! The command-line contract of `rsmreport`:
//!
//! * `rsmreport build EXP [--output-dir DIR] [--force]`; DIR defaults to
//!   `./<experiment_id>`; tables in `DIR/output/`; a non-empty DIR is refused
//!   unless `--force`; a failing run leaves DIR untouched;
//! * `rsmreport check EXP` validates and prints a summary, writes nothing;
//! * `--help` on every command, `--version`.
//!
//! Every test works on copies of the local fixtures inside a
//! `tempfile::TempDir`, never on the repository itself.

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::{self, contains_number, snapshot, snapshot_diff, stage_local_experiment};

/// A small, fast fixture (60 input rows, 3 excluded, no subgroups).
const SMALL: &str = "probe-basic";
const SMALL_ID: &str = "probe_basic";

fn cmd() -> Command {
    let mut c = Command::new(common::bin());
    c.env("NO_COLOR", "1").env_remove("RUST_BACKTRACE");
    c
}

/// A temp folder holding `experiments/<SMALL>/exp.toml` and `inputs/`.
fn staged() -> (TempDir, PathBuf) {
    let tmp = TempDir::new().unwrap();
    let exp = stage_local_experiment(tmp.path(), SMALL);
    (tmp, exp)
}

fn eval_table(out: &Path) -> PathBuf {
    out.join("output").join(format!("{SMALL_ID}_eval.csv"))
}

fn assert_no_panic(run: &common::Run) {
    assert!(!run.panicked(), "the binary panicked:\n{}", run.describe());
}

// ---------------------------------------------------------------------------
// --help / --version

#[test]
fn cli_root_help_lists_commands() {
    cmd()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("build"))
        .stdout(predicate::str::contains("check"));
}

#[test]
fn cli_build_help_lists_options() {
    cmd()
        .args(["build", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("--output-dir"))
        .stdout(predicate::str::contains("--force"));
}

#[test]
fn cli_check_help() {
    cmd()
        .args(["check", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::is_empty().not());
}

#[test]
fn cli_version() {
    cmd()
        .arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::contains(env!("CARGO_PKG_VERSION")));
}

#[test]
fn cli_no_command_or_unknown_command_fails() {
    let run = common::run_in(&std::env::temp_dir(), ["no-such-command"]);
    assert!(
        !run.success,
        "unknown command accepted:\n{}",
        run.describe()
    );
    assert_no_panic(&run);
}

// ---------------------------------------------------------------------------
// check

#[test]
fn cli_check_prints_counts_and_writes_nothing() {
    // sim-h2-groups: 2000 responses read, 7 excluded, 1993 kept.
    let tmp = TempDir::new().unwrap();
    let exp = stage_local_experiment(tmp.path(), "sim-h2-groups");
    let work = tmp.path().join("work");
    fs::create_dir(&work).unwrap();
    let before = snapshot(tmp.path());

    let run = common::run_in(&work, [std::ffi::OsStr::new("check"), exp.as_os_str()]);
    assert!(run.success, "check failed:\n{}", run.describe());
    let text = run.all_text();
    assert!(
        contains_number(&text, 2000),
        "check does not report the 2000 rows read:\n{text}"
    );
    assert!(
        contains_number(&text, 7) || contains_number(&text, 1993),
        "check does not report the 7 excluded (1993 kept) responses:\n{text}"
    );
    assert!(
        text.contains(
            "intervals: 95% level, 1000 bootstrap replicates (seed 0), resampling 1,993 responses"
        ),
        "check does not describe the intervals:\n{text}"
    );

    let diff = snapshot_diff(&before, &snapshot(tmp.path()));
    assert!(diff.is_empty(), "check wrote files: {diff:?}");
}

#[test]
fn cli_check_reports_invalid_config() {
    let (tmp, exp) = staged();
    let bad = exp.with_file_name("bad.toml");
    let text = fs::read_to_string(&exp)
        .unwrap()
        .replace("trim_max", "trim_mx");
    fs::write(&bad, text).unwrap();
    let before = snapshot(tmp.path());
    let run = common::run_in(tmp.path(), [std::ffi::OsStr::new("check"), bad.as_os_str()]);
    assert!(
        !run.success,
        "check accepted an unknown key:\n{}",
        run.describe()
    );
    assert_no_panic(&run);
    assert!(
        run.stderr.contains("trim_mx"),
        "error does not name the unknown key:\n{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("trim_max"),
        "error does not suggest the closest key (decisions.md):\n{}",
        run.stderr
    );
    assert!(
        snapshot_diff(&before, &snapshot(tmp.path())).is_empty(),
        "check wrote files"
    );
}

// ---------------------------------------------------------------------------
// build: output folder handling

#[test]
fn cli_build_into_missing_nested_folder() {
    let (tmp, exp) = staged();
    let out = tmp.path().join("a").join("b").join("report");
    assert!(!out.exists());
    let run = common::build(tmp.path(), &exp, &out, &[]);
    assert!(run.success, "build failed:\n{}", run.describe());
    assert!(
        eval_table(&out).is_file(),
        "no eval table in {}",
        out.display()
    );
    assert!(
        out.join("output")
            .join(format!("{SMALL_ID}_rsmeval.json"))
            .is_file(),
        "no saved configuration"
    );
}

#[test]
fn cli_build_default_output_dir_is_experiment_id() {
    let (tmp, exp) = staged();
    let work = tmp.path().join("work");
    fs::create_dir(&work).unwrap();
    let run = common::run_in(&work, [std::ffi::OsStr::new("build"), exp.as_os_str()]);
    assert!(run.success, "build failed:\n{}", run.describe());
    assert!(
        eval_table(&work.join(SMALL_ID)).is_file(),
        "default output folder ./{SMALL_ID} not used; files: {:?}",
        common::list_files(&work)
    );
}

#[test]
fn cli_build_into_existing_empty_folder() {
    let (tmp, exp) = staged();
    let out = tmp.path().join("out");
    fs::create_dir(&out).unwrap();
    let run = common::build(tmp.path(), &exp, &out, &[]);
    assert!(
        run.success,
        "build into an empty folder failed:\n{}",
        run.describe()
    );
    assert!(eval_table(&out).is_file());
}

#[test]
fn cli_build_refuses_non_empty_folder_without_force() {
    let (tmp, exp) = staged();
    let out = tmp.path().join("out");
    fs::create_dir(&out).unwrap();
    fs::write(out.join("keep.txt"), "precious").unwrap();
    let before = snapshot(&out);

    let run = common::build(tmp.path(), &exp, &out, &[]);
    assert!(
        !run.success,
        "non-empty output folder accepted without --force:\n{}",
        run.describe()
    );
    assert_no_panic(&run);
    assert!(
        run.stderr.contains("--force"),
        "error does not mention --force:\n{}",
        run.stderr
    );
    let diff = snapshot_diff(&before, &snapshot(&out));
    assert!(diff.is_empty(), "refused run changed the folder: {diff:?}");
}

#[test]
fn cli_build_force_replaces_previous_output() {
    let (tmp, exp) = staged();
    let out = tmp.path().join("out");
    let first = common::build(tmp.path(), &exp, &out, &[]);
    assert!(first.success, "first build failed:\n{}", first.describe());
    // Leftovers of an older run inside the rsmreport subfolders.
    fs::write(out.join("output").join("stale_eval.csv"), "x\n1\n").unwrap();
    fs::create_dir_all(out.join("report")).unwrap();
    fs::write(out.join("report").join("old.html"), "<html></html>").unwrap();

    let run = common::build(tmp.path(), &exp, &out, &["--force"]);
    assert!(run.success, "build --force failed:\n{}", run.describe());
    assert!(eval_table(&out).is_file(), "no eval table after --force");
    assert!(
        !out.join("output").join("stale_eval.csv").exists(),
        "--force kept a stale table"
    );
    assert!(
        !out.join("report").join("old.html").exists(),
        "--force kept a stale report"
    );
    // No temporary siblings left behind.
    let names: Vec<String> = fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let mut expected_names = vec![
        "experiments".to_string(),
        "inputs".to_string(),
        "out".to_string(),
    ];
    expected_names.sort();
    let mut names_sorted = names.clone();
    names_sorted.sort();
    assert_eq!(
        names_sorted, expected_names,
        "stray files next to the output folder"
    );
}

#[test]
fn cli_build_force_never_loses_foreign_files_silently() {
    // A folder that holds files rsmreport did not write (here a top-level
    // notes.txt). rsmreport may refuse even with --force (it does: it only
    // replaces its own output); whatever it does, it must not panic, and
    // if it refuses, the folder must be untouched.
    let (tmp, exp) = staged();
    let out = tmp.path().join("out");
    fs::create_dir(&out).unwrap();
    fs::write(out.join("notes.txt"), "my notes").unwrap();
    let before = snapshot(&out);
    let run = common::build(tmp.path(), &exp, &out, &["--force"]);
    assert_no_panic(&run);
    if run.success {
        assert!(eval_table(&out).is_file());
    } else {
        let diff = snapshot_diff(&before, &snapshot(&out));
        assert!(
            diff.is_empty(),
            "refused --force run changed the folder: {diff:?}"
        );
        assert!(
            run.stderr.contains("notes.txt") || run.stderr.contains("--output-dir"),
            "refusal does not say why:\n{}",
            run.stderr
        );
    }
}

#[test]
fn cli_build_twice_needs_force() {
    let (tmp, exp) = staged();
    let out = tmp.path().join("out");
    let first = common::build(tmp.path(), &exp, &out, &[]);
    assert!(first.success, "first build failed:\n{}", first.describe());
    let second = common::build(tmp.path(), &exp, &out, &[]);
    assert!(
        !second.success,
        "second build into the same folder accepted without --force"
    );
    assert!(second.stderr.contains("--force"), "{}", second.stderr);
    let third = common::build(tmp.path(), &exp, &out, &["--force"]);
    assert!(
        third.success,
        "rebuild with --force failed:\n{}",
        third.describe()
    );
}

#[test]
fn cli_failing_build_leaves_previous_output_untouched() {
    let (tmp, exp) = staged();
    let out = tmp.path().join("out");
    let ok = common::build(tmp.path(), &exp, &out, &[]);
    assert!(ok.success, "initial build failed:\n{}", ok.describe());
    let before = snapshot(&out);
    assert!(!before.is_empty());

    // Same experiment, but the predictions file lacks the configured column.
    let bad = exp.with_file_name("missing_column.toml");
    let text = fs::read_to_string(&exp).unwrap().replace(
        "human_score_column = \"h1\"",
        "human_score_column = \"no_such_column\"",
    );
    assert!(
        text.contains("no_such_column"),
        "fixture changed: cannot build the broken config"
    );
    fs::write(&bad, text).unwrap();

    let run = common::build(tmp.path(), &bad, &out, &["--force"]);
    assert!(
        !run.success,
        "build with a missing column succeeded:\n{}",
        run.describe()
    );
    assert_no_panic(&run);
    assert!(
        run.stderr.contains("no_such_column"),
        "error does not name the missing column:\n{}",
        run.stderr
    );
    let diff = snapshot_diff(&before, &snapshot(&out));
    assert!(
        diff.is_empty(),
        "failing --force run changed the previous output: {diff:?}"
    );
}

#[test]
fn cli_failing_build_into_new_folder_creates_nothing() {
    let (tmp, exp) = staged();
    let bad = exp.with_file_name("missing_file.toml");
    let text = fs::read_to_string(&exp)
        .unwrap()
        .replace("probe_pred.csv", "does_not_exist.csv");
    fs::write(&bad, text).unwrap();
    let out = tmp.path().join("out");
    let run = common::build(tmp.path(), &bad, &out, &[]);
    assert!(
        !run.success,
        "build with a missing input succeeded:\n{}",
        run.describe()
    );
    assert_no_panic(&run);
    assert!(
        run.stderr.contains("does_not_exist.csv"),
        "error does not name the file:\n{}",
        run.stderr
    );
    assert!(!out.exists(), "failing run created {}", out.display());
}

#[test]
fn cli_missing_experiment_file_fails_cleanly() {
    let tmp = TempDir::new().unwrap();
    let missing = tmp.path().join("nope.toml");
    for sub in ["build", "check"] {
        let run = common::run_in(tmp.path(), [std::ffi::OsStr::new(sub), missing.as_os_str()]);
        assert!(!run.success, "{sub} accepted a missing config");
        assert_no_panic(&run);
        assert!(
            run.stderr.contains("nope.toml"),
            "{sub}: error does not name the file:\n{}",
            run.stderr
        );
    }
}

// ---------------------------------------------------------------------------
// build: config formats and path resolution

#[test]
fn cli_build_accepts_rsmeval_json_with_comments() {
    let (tmp, exp) = staged();
    let json = exp.with_file_name("exp.json");
    fs::write(
        &json,
        r#"{
    // an rsmeval configuration, as RSMTool users have them
    "predictions_file": "../../inputs/probe_pred.csv",
    "system_score_column": "sys",
    "human_score_column": "h1",
    "id_column": "id",
    /* trimming bounds */
    "trim_min": 1,
    "trim_max": 4,
    "experiment_id": "probe_json"
}
"#,
    )
    .unwrap();
    let out = tmp.path().join("out");
    let run = common::build(tmp.path(), &json, &out, &[]);
    assert!(run.success, "JSON config rejected:\n{}", run.describe());
    let toml_out = tmp.path().join("out_toml");
    let run = common::build(tmp.path(), &exp, &toml_out, &[]);
    assert!(run.success, "{}", run.describe());
    // Same eval table as from the TOML config (modulo the id in the name).
    let a = fs::read(out.join("output").join("probe_json_eval.csv")).expect("probe_json_eval.csv");
    let b = fs::read(eval_table(&toml_out)).unwrap();
    assert_eq!(a, b, "JSON and TOML configs gave different eval tables");
}

#[test]
fn cli_relative_paths_resolve_against_config_folder() {
    // Run from an unrelated working folder: ../../inputs/... must still be
    // found next to the config (decisions.md, "Config").
    let (tmp, exp) = staged();
    let elsewhere = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let run = common::build(elsewhere.path(), &exp, &out, &[]);
    assert!(
        run.success,
        "paths not resolved against the config folder:\n{}",
        run.describe()
    );
    assert!(eval_table(&out).is_file());
}

// ---------------------------------------------------------------------------
// The bundled example (examples/exp.toml) stays valid.

#[test]
fn cli_bundled_example_checks_and_builds() {
    let example = common::manifest_dir().join("examples").join("exp.toml");
    let tmp = TempDir::new().unwrap();

    let run = common::run_in(
        tmp.path(),
        [std::ffi::OsStr::new("check"), example.as_os_str()],
    );
    assert!(
        run.success,
        "check of the bundled example failed:\n{}",
        run.describe()
    );
    let text = run.all_text();
    // 3000 responses; 9 zero + 3 non-numeric human scores and 5 non-numeric
    // engine scores excluded: 17 excluded, 2983 evaluated.
    assert!(
        contains_number(&text, 3000),
        "rows read not reported:\n{text}"
    );
    assert!(
        contains_number(&text, 17) || contains_number(&text, 2983),
        "excluded / kept counts not reported:\n{text}"
    );

    // The example's gates (williamson2012 and one on a confidence bound) are
    // listed by `check`.
    for gate in [
        "QWK clears 0.70 with 95% confidence",
        "standardized mean difference",
    ] {
        assert!(
            text.contains(gate),
            "check does not list the gate {gate:?}:\n{text}"
        );
    }

    // The example's engine meets every gate (README): a newcomer's first
    // build exits with 0.
    let out = tmp.path().join("example");
    let run = common::build(tmp.path(), &example, &out, &[]);
    assert_eq!(
        run.code,
        Some(0),
        "the bundled example should pass its gates (exit 0):\n{}",
        run.describe()
    );
    assert!(!run.panicked(), "{}", run.describe());
    assert!(
        run.stderr.contains("13 passed, 1 skipped") && !run.stderr.contains("FAILED"),
        "gate counts of the example changed (update the README):\n{}",
        run.stderr
    );
    assert!(out.join("report").join("example_report.html").is_file());
    let output = out.join("output");
    for name in [
        "eval",
        "eval_short",
        "consistency",
        "true_score_eval",
        "eval_by_L1",
        "eval_by_gender",
    ] {
        let p = output.join(format!("example_{name}.csv"));
        assert!(p.is_file(), "missing {}", p.display());
    }
    for name in [
        "example_gates.json",
        "example_gates.xml",
        "example_summary.json",
    ] {
        assert!(output.join(name).is_file(), "missing {name}");
    }
    let eval = crate::common::table::read_table(&output.join("example_eval.csv")).unwrap();
    assert_eq!(eval.header.get(1).map(String::as_str), Some("N"));
    for row in &eval.rows {
        assert!(
            matches!(row.get(1), Some(crate::common::table::Cell::Num { value, .. }) if *value == 2983.0),
            "N in example_eval.csv is {:?}, expected 2983",
            row.get(1)
        );
    }
}

// The failing-gates example (examples/gates-fail/) writes everything, then
// exits with 3 (README, "Quality gates").
#[test]
fn cli_gates_fail_example_exits_3_with_complete_output() {
    let example = common::manifest_dir()
        .join("examples")
        .join("gates-fail")
        .join("exp.toml");
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("gates_fail");
    let run = common::build(tmp.path(), &example, &out, &[]);
    assert_eq!(
        run.code,
        Some(3),
        "the gates-fail example should fail its gates (exit 3):\n{}",
        run.describe()
    );
    assert!(!run.panicked(), "{}", run.describe());
    assert!(
        run.stderr.contains("10 passed, 3 failed, 1 skipped"),
        "gate counts of the gates-fail example changed (update the README):\n{}",
        run.stderr
    );
    for failed in [
        "gate FAILED: QWK [overall]: wtkappa = 0.5993 is not >= 0.7",
        "gate FAILED: correlation [overall]: corr = 0.5998 is not >= 0.7",
    ] {
        assert!(
            run.stderr.contains(failed),
            "missing {failed:?}:\n{}",
            run.stderr
        );
    }
    let output = out.join("output");
    for name in [
        "gates_fail_gates.json",
        "gates_fail_gates.xml",
        "gates_fail_eval.csv",
    ] {
        assert!(output.join(name).is_file(), "missing {name}");
    }
    assert!(out.join("report").join("gates_fail_report.html").is_file());
}

// ---------------------------------------------------------------------------
// A build killed with SIGKILL leaves its temporary folder; the next build
// into the same folder removes it (Linux: whether the process is gone is
// read from /proc).

/// `rsmreport simulate` of `n` responses into `dir` (`sim.csv`, `sim.toml`).
#[cfg(target_os = "linux")]
fn simulate_into(dir: &Path, n: usize) -> PathBuf {
    let n = n.to_string();
    let args = [
        "simulate",
        "-n",
        &n,
        "--out",
        "sim.csv",
        "--write-config",
        "sim.toml",
    ];
    let run = common::run_in(dir, args);
    assert!(run.success, "simulate failed:\n{}", run.describe());
    dir.join("sim.toml")
}

/// Starts `build EXP --output-dir OUT`, waits until its temporary folder
/// `.out.rsmreport-tmp-PID` appears and kills the process with SIGKILL.
/// Returns the folder and the process id, or `None` if the build finished
/// (or moved the folder into place) before it could be killed.
#[cfg(target_os = "linux")]
fn kill_while_writing(cwd: &Path, exp: &Path, out: &Path) -> Option<(PathBuf, u32)> {
    use std::process::{Command as StdCommand, Stdio};
    use std::time::{Duration, Instant};
    let mut child = StdCommand::new(common::bin())
        .args([std::ffi::OsStr::new("build"), exp.as_os_str()])
        .arg("--output-dir")
        .arg(out)
        .current_dir(cwd)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("could not start rsmreport build");
    let pid = child.id();
    let temp = out.with_file_name(format!(".out.rsmreport-tmp-{pid}"));
    let deadline = Instant::now() + Duration::from_secs(600);
    while !temp.is_dir() {
        if child.try_wait().unwrap().is_some() {
            return None;
        }
        assert!(Instant::now() < deadline, "the build did not start writing");
        std::thread::sleep(Duration::from_millis(1));
    }
    child.kill().unwrap(); // SIGKILL: no drop guard runs
    child.wait().unwrap(); // reaped: /proc/PID is gone
    temp.is_dir().then_some((temp, pid))
}

#[cfg(target_os = "linux")]
#[test]
fn cli_build_removes_the_temporary_folder_of_a_killed_build() {
    // 100k responses keep a debug build writing for about a second; a
    // release build writes faster, hence the larger retry.
    for n in [100_000, 1_000_000] {
        let tmp = TempDir::new().unwrap();
        let exp = simulate_into(tmp.path(), n);
        let out = tmp.path().join("out");
        let Some((temp, pid)) = kill_while_writing(tmp.path(), &exp, &out) else {
            eprintln!("the build of {n} responses finished before it could be killed");
            continue;
        };
        assert!(!out.exists(), "a killed build moved its output into place");

        let run = common::build(tmp.path(), &exp, &out, &[]);
        assert!(
            run.success,
            "build after the kill failed:\n{}",
            run.describe()
        );
        assert!(
            !temp.exists(),
            "the stale {} is still there",
            temp.display()
        );
        let note = format!(
            "note: removed the temporary folder {} left by an earlier run that did not finish \
             (process {pid} is gone)",
            temp.display()
        );
        assert!(run.stderr.contains(&note), "no note:\n{}", run.stderr);
        assert_output_complete(&out, &run.stdout);
        let mut names: Vec<String> = fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["out", "sim.csv", "sim.toml"]);
        return;
    }
    eprintln!("skipping: every build finished before it could be killed");
}

/// Every table the build says it wrote, the figures and a whole report.
#[cfg(target_os = "linux")]
fn assert_output_complete(out: &Path, stdout: &str) {
    let tables = common::list_files(&out.join("output")).len();
    assert!(
        stdout.contains(&format!("wrote {tables} files")),
        "{tables} tables on disk, stdout: {stdout}"
    );
    assert_eq!(common::list_files(&out.join("figure")).len(), 7);
    let report = fs::read_to_string(out.join("report").join("sim_report.html")).unwrap();
    assert!(report.trim_end().ends_with("</html>"), "truncated report");
}

/// `rsmreport ... | true`: standard output closed before the command
/// prints. The files are written, nothing panics, and the exit code is
/// the command's own (0 here; 3 where a gate failed).
#[test]
fn cli_closed_stdout_is_not_a_crash() {
    let tmp = tempfile::tempdir().unwrap();
    let example = common::manifest_dir().join("examples");
    let cases: [(&str, Vec<String>, i32); 3] = [
        (
            "check",
            vec![example.join("exp.toml").display().to_string()],
            0,
        ),
        (
            "build",
            vec![
                example.join("exp.toml").display().to_string(),
                "--output-dir".into(),
                tmp.path().join("b").display().to_string(),
            ],
            0,
        ),
        (
            "build",
            vec![
                example.join("gates-fail/exp.toml").display().to_string(),
                "--output-dir".into(),
                tmp.path().join("g").display().to_string(),
            ],
            3,
        ),
    ];
    for (command, args, code) in cases {
        // `true` exits at once, so the pipe is closed long before the
        // command has its results to print.
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg("\"$0\" \"$@\" | true; echo \"rc=${PIPESTATUS[0]}\" >&2")
            .arg(common::bin())
            .arg(command)
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{command}: {stderr}");
        assert!(
            stderr.contains(&format!("rc={code}\n")),
            "{command} {args:?}: {stderr}"
        );
    }
    assert!(tmp.path().join("b/report/example_report.html").is_file());
    assert!(tmp.path().join("g/output").is_dir());
}
