//! Helpers shared by the integration suites: where things are, how to run
//! the binary, file-tree snapshots, and (in the submodules) reading and
//! comparing output tables and saved configurations.

#![allow(dead_code)]

pub mod json;
pub mod table;

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Relative tolerance for numeric cells (docs: spec/decisions.md, "Numbers").
pub const REL_TOL: f64 = 1e-6;
/// Absolute tolerance for numeric cells.
pub const ABS_TOL: f64 = 1e-9;

/// A minimal experiment on `pred.csv` (columns id, sys, h1), keys on lines
/// 1-7, so anything appended starts on line 8. Shared by the error and
/// robustness suites.
pub const MINIMAL_CONFIG: &str = "experiment_id = \"e\"
predictions_file = \"pred.csv\"
system_score_column = \"sys\"
human_score_column = \"h1\"
id_column = \"id\"
trim_min = 1
trim_max = 4
";

// ---------------------------------------------------------------------------
// Paths

/// The package root (where Cargo.toml is).
pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The project's own fixtures: `tests/fixtures/{experiments,inputs}`
/// (copies of the probe-* and sim-* families, see tests/README.md).
pub fn local_fixtures() -> PathBuf {
    manifest_dir().join("tests").join("fixtures")
}

/// The shared folder next to the repository (`../shared`), which holds the
/// specification and the full fixture set (including RSMTool's lr-eval*
/// experiments, which are never copied into the repository).
pub fn shared_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared"))
}

/// `../shared/spec/fixtures`, or the folder named by the environment
/// variable `RSMREPORT_SHARED_FIXTURES` when it is set.
pub fn shared_fixtures_path() -> PathBuf {
    match std::env::var_os("RSMREPORT_SHARED_FIXTURES") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => shared_dir().join("spec").join("fixtures"),
    }
}

/// The shared fixtures folder if it exists (with an `experiments/` folder).
pub fn shared_fixtures() -> Option<PathBuf> {
    let p = shared_fixtures_path();
    p.join("experiments").is_dir().then_some(p)
}

/// The `rsmreport` binary Cargo built for this test run.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rsmreport"))
}

/// A local fixture experiment folder, e.g. `experiment("probe-basic")`.
pub fn local_experiment(name: &str) -> PathBuf {
    local_fixtures().join("experiments").join(name)
}

// ---------------------------------------------------------------------------
// Running the binary

/// The result of one run of the binary.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub success: bool,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// stdout and stderr together (for "the user was told X" checks that do
    /// not care which stream was used).
    pub fn all_text(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }

    /// True if the process panicked (Rust's panic message or exit code 101).
    pub fn panicked(&self) -> bool {
        self.code == Some(101)
            || self.stderr.contains("panicked at")
            || self.stdout.contains("panicked at")
    }

    /// A short human-readable description for assertion messages.
    pub fn describe(&self) -> String {
        format!(
            "exit code {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.code,
            truncate(&self.stdout, 4000),
            truncate(&self.stderr, 4000)
        )
    }
}

impl From<Output> for Run {
    fn from(o: Output) -> Self {
        Run {
            code: o.status.code(),
            success: o.status.success(),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

/// Runs `rsmreport` with `args` in the working folder `cwd`.
pub fn run_in<I, S>(cwd: &Path, args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    Command::new(bin())
        .args(args)
        .current_dir(cwd)
        // Deterministic, uncoloured messages.
        .env("NO_COLOR", "1")
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap_or_else(|e| panic!("could not start {}: {e}", bin().display()))
        .into()
}

/// `rsmreport build EXP --output-dir OUT [extra...]`, run in `cwd`.
pub fn build(cwd: &Path, exp: &Path, out: &Path, extra: &[&str]) -> Run {
    let mut args: Vec<&OsStr> = vec![
        OsStr::new("build"),
        exp.as_os_str(),
        OsStr::new("--output-dir"),
        out.as_os_str(),
    ];
    args.extend(extra.iter().map(OsStr::new));
    run_in(cwd, args)
}

/// A fixture case of a report kind (`<case>/case.toml`): what its
/// experiment file takes from the case.
pub struct FixtureCase<'a> {
    /// The command (`classify`, `spans`).
    pub command: &'a str,
    /// The key that receives the case's `input` file (`predictions_file`).
    pub input_key: &'a str,
    /// Keys whose values are files of the case, made absolute.
    pub path_keys: &'a [&'a str],
    /// Appended to the experiment file (`[intervals]` ...).
    pub extra: &'a str,
}

/// Writes the experiment file of a fixture case (case.toml minus the
/// fixture keys `kind`, `description` and `input`; plus `experiment_id =
/// "case"`, the input under `input_key` and every `path_keys` file as
/// absolute paths; plus `extra`) to `work/exp.toml` and runs the command
/// into `work/out`. The output folder and the run.
pub fn run_fixture_case(c: &FixtureCase, case: &Path, work: &Path) -> (PathBuf, Run) {
    let toml = fs::read_to_string(case.join("case.toml")).unwrap();
    let value: toml::Table = toml.parse().unwrap();
    let abs = |v: &toml::Value| -> toml::Value {
        case.join(v.as_str().unwrap()).display().to_string().into()
    };
    let mut kept = toml::Table::new();
    kept.insert("experiment_id".into(), "case".into());
    kept.insert(c.input_key.into(), abs(&value["input"]));
    for (k, v) in value {
        if matches!(k.as_str(), "kind" | "description" | "input") {
            continue;
        }
        let v = if c.path_keys.contains(&k.as_str()) {
            abs(&v)
        } else {
            v
        };
        kept.insert(k, v);
    }
    let exp = work.join("exp.toml");
    let text = format!("{}{}", toml::to_string(&kept).unwrap(), c.extra);
    fs::write(&exp, text).unwrap();
    let out = work.join("out");
    let args = [
        OsStr::new(c.command),
        exp.as_os_str(),
        OsStr::new("-o"),
        out.as_os_str(),
    ];
    let run = run_in(work, args);
    (out, run)
}

// ---------------------------------------------------------------------------
// Snapshots

/// `UPDATE_SNAPSHOTS` is set (and not `0`): the snapshot suites rewrite
/// their snapshots instead of comparing.
pub fn updating_snapshots() -> bool {
    std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The first line where two texts differ, for a failure message.
pub fn first_difference(want: &str, got: &str) -> String {
    for (i, (a, b)) in want.lines().zip(got.lines()).enumerate() {
        if a != b {
            return format!("line {}:\n  snapshot: {a}\n  actual:   {b}", i + 1);
        }
    }
    format!(
        "lengths differ: snapshot {} lines, actual {} lines",
        want.lines().count(),
        got.lines().count()
    )
}

// ---------------------------------------------------------------------------
// Files

/// Regular files below `dir`, as paths relative to it, sorted.
pub fn list_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.push(p.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Every file below `dir` (relative path -> (size, hash of the bytes)),
/// plus every sub-folder (size `u64::MAX`), so that two snapshots are equal
/// exactly when the tree is byte-identical.
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (u64, u64)> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, (u64, u64)>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().to_path_buf();
            if p.is_dir() {
                out.insert(rel, (u64::MAX, 0));
                walk(root, &p, out);
            } else {
                let bytes = fs::read(&p).unwrap_or_default();
                let mut h = std::collections::hash_map::DefaultHasher::new();
                bytes.hash(&mut h);
                out.insert(rel, (bytes.len() as u64, h.finish()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Describes how two snapshots differ (empty when they are equal).
pub fn snapshot_diff(
    before: &BTreeMap<PathBuf, (u64, u64)>,
    after: &BTreeMap<PathBuf, (u64, u64)>,
) -> Vec<String> {
    let mut diffs = Vec::new();
    for (p, v) in before {
        match after.get(p) {
            None => diffs.push(format!("removed: {}", p.display())),
            Some(w) if w != v => diffs.push(format!("changed: {}", p.display())),
            _ => {}
        }
    }
    for p in after.keys() {
        if !before.contains_key(p) {
            diffs.push(format!("added: {}", p.display()));
        }
    }
    diffs
}

/// Copies the folder `from` into `to` (created), recursively.
pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap_or_else(|e| panic!("create {}: {e}", to.display()));
    for e in fs::read_dir(from).unwrap_or_else(|e| panic!("read {}: {e}", from.display())) {
        let e = e.unwrap();
        let src = e.path();
        let dst = to.join(e.file_name());
        if src.is_dir() {
            copy_dir(&src, &dst);
        } else {
            fs::copy(&src, &dst)
                .unwrap_or_else(|err| panic!("copy {} -> {}: {err}", src.display(), dst.display()));
        }
    }
}

/// Copies a local fixture experiment (its folder, minus `expected/`) and the
/// input files it uses into `root`, keeping the `experiments/<name>` and
/// `inputs/` layout so the `../../inputs/...` paths still resolve. Returns
/// the path of the copied `exp.toml`.
pub fn stage_local_experiment(root: &Path, name: &str) -> PathBuf {
    let src = local_experiment(name);
    let dst = root.join("experiments").join(name);
    fs::create_dir_all(&dst).unwrap();
    for e in fs::read_dir(&src).unwrap() {
        let e = e.unwrap();
        if e.file_name() == "expected" {
            continue;
        }
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &dst.join(e.file_name()));
        } else {
            fs::copy(&p, dst.join(e.file_name())).unwrap();
        }
    }
    copy_dir(&local_fixtures().join("inputs"), &root.join("inputs"));
    dst.join("exp.toml")
}

/// The expected output folder of a fixture experiment.
pub fn expected_output(exp_dir: &Path) -> PathBuf {
    exp_dir.join("expected").join("output")
}

/// `s`, cut to at most `n` bytes (on a char boundary) with a marker.
pub fn truncate(s: &str, n: usize) -> String {
    if s.len() <= n {
        return s.to_string();
    }
    let mut end = n;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... [{} more bytes]", &s[..end], s.len() - end)
}

/// True if `text` contains `n` as a whole number (not as part of a longer
/// number such as `1600` for `60`).
pub fn contains_number(text: &str, n: u64) -> bool {
    let grouped = rsmreport_report::render::format::thousands(n);
    contains_digits(text, &grouped) || contains_digits(text, &n.to_string())
}

/// Whether `needle` (digits, maybe with separators) occurs in `text`
/// without further digits on either side.
fn contains_digits(text: &str, needle: &str) -> bool {
    let bytes = text.as_bytes();
    let mut start = 0;
    while let Some(pos) = text[start..].find(needle) {
        let i = start + pos;
        let j = i + needle.len();
        // A digit, or a separator next to a digit, continues the number.
        let digit = |k: usize| bytes.get(k).is_some_and(u8::is_ascii_digit);
        let before_ok = i == 0 || !(digit(i - 1) || bytes[i - 1] == b',' && i >= 2 && digit(i - 2));
        let after_ok = !(digit(j) || bytes.get(j) == Some(&b',') && digit(j + 1));
        if before_ok && after_ok {
            return true;
        }
        start = i + 1;
    }
    false
}

/// Numeric closeness with the project's tolerances (`NaN == NaN`).
pub fn close(expected: f64, actual: f64) -> bool {
    if expected.is_nan() || actual.is_nan() {
        return expected.is_nan() && actual.is_nan();
    }
    if expected.is_infinite() || actual.is_infinite() {
        return expected == actual;
    }
    (expected - actual).abs() <= ABS_TOL + REL_TOL * expected.abs()
}

/// A produced file as a snapshot holds it: its text, or, for a binary file
/// (the units tables, parquet), the line `sha256 <hex>`.
pub fn snapshot_text(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            use sha2::Digest;
            let digest = sha2::Sha256::digest(e.as_bytes());
            let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
            format!("sha256 {hex}\n")
        }
    }
}
