//! Whole-output snapshots of every report kind
//! (`cargo test --test integration kinds_snapshot`).
//!
//! One test runs, with `SOURCE_DATE_EPOCH` fixed, in a temporary folder
//! holding a copy of `examples/` (so every path is relative to that folder):
//!
//! * `check` and `build` of the bundled example `examples/exp.toml` (its
//!   gates fail: exit 3 with a complete folder), `build` of
//!   `examples/raters/exp.toml` (more human raters, classification);
//! * `simulate` of two versions of an engine (the README's worked example,
//!   1000 responses), `build` of each, `compare v1 v2` and `summarize v1 v2`;
//! * `agree` of `examples/agree/exp.toml` and `preferences` of
//!   `examples/preferences/exp.toml`;
//! * the training loop of `examples/train/`: `train`, `predict` of new
//!   essays with its model, `build` of predict's file.
//!
//! Each run's exit code, stdout and stderr and every file of its output
//! folder (tables, JSON, JUnit, report, figures) are compared byte for byte
//! with `tests/snapshots/kinds/<run>/`:
//!
//! * `manifest.txt`: the exit code, then one line `sha256 size path` per
//!   file (sorted), stdout and stderr included as `<stdout>`/`<stderr>`;
//! * a verbatim copy of every text file under 8 KB that is not HTML or
//!   SVG (tables, JSON, terminal lines), so a failure shows the first line
//!   that changed and a reviewer can read the diff. The large files (the
//!   report pages, the figures, the big tables) are kept as hashes only,
//!   which keeps the snapshots at about 150 KB in all.
//!
//! Normalised, before hashing, only what depends on the checkout or the
//! machine: the absolute path of the temporary folder, which the provenance
//! of `build` (`<id>_summary.json`, the report's inputs, `check`'s lines) and
//! of `compare` records for each input file, replaced by `$ROOT`; and the
//! platform and CPU count of build's report (`<span class="machine">`),
//! replaced by `[machine]`. Nothing else is masked: times come from
//! `SOURCE_DATE_EPOCH`, the version is the crate's, the library versions
//! come from the committed Cargo.lock.
//!
//! Update with `UPDATE_SNAPSHOTS=1 cargo test --test integration
//! kinds_snapshot` and review the diff (`git diff tests/snapshots/kinds`).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};
use tempfile::TempDir;

use crate::common;

/// Fixed generation time (2023-11-14 22:13:20 UTC).
const EPOCH: &str = "1700000000";

/// Text files below this size are stored verbatim beside the manifest.
const VERBATIM_MAX: usize = 8 * 1024;

/// One command of the snapshot: its name (the snapshot folder), its
/// arguments, and the output folder it writes (None: terminal only, or
/// files named in `files`).
struct Step {
    name: &'static str,
    args: &'static [&'static str],
    out_dir: Option<&'static str>,
    files: &'static [&'static str],
}

const STEPS: [Step; 14] = [
    Step {
        name: "check",
        args: &["check", "examples/exp.toml"],
        out_dir: None,
        files: &[],
    },
    Step {
        name: "build",
        args: &["build", "examples/exp.toml", "--output-dir", "build"],
        out_dir: Some("build"),
        files: &[],
    },
    Step {
        name: "build-raters",
        args: &[
            "build",
            "examples/raters/exp.toml",
            "--output-dir",
            "raters",
        ],
        out_dir: Some("raters"),
        files: &[],
    },
    Step {
        name: "simulate-v1",
        args: &[
            "simulate",
            "-n",
            "1000",
            "--seed",
            "1",
            "--system-r2",
            "0.60",
            "--out",
            "v1.csv",
            "--write-config",
            "v1.toml",
        ],
        out_dir: None,
        files: &["v1.csv", "v1.toml"],
    },
    Step {
        name: "simulate-v2",
        args: &[
            "simulate",
            "-n",
            "1000",
            "--seed",
            "1",
            "--system-r2",
            "0.75",
            "--out",
            "v2.csv",
            "--write-config",
            "v2.toml",
        ],
        out_dir: None,
        files: &["v2.csv", "v2.toml"],
    },
    Step {
        name: "build-v1",
        args: &["build", "v1.toml", "--output-dir", "v1"],
        out_dir: Some("v1"),
        files: &[],
    },
    Step {
        name: "build-v2",
        args: &["build", "v2.toml", "--output-dir", "v2"],
        out_dir: Some("v2"),
        files: &[],
    },
    Step {
        name: "compare",
        args: &["compare", "v1", "v2", "--output-dir", "cmp"],
        out_dir: Some("cmp"),
        files: &[],
    },
    Step {
        name: "summarize",
        args: &["summarize", "v1", "v2", "--output-dir", "sum"],
        out_dir: Some("sum"),
        files: &[],
    },
    Step {
        name: "agree",
        args: &["agree", "examples/agree/exp.toml", "--output-dir", "agree"],
        out_dir: Some("agree"),
        files: &[],
    },
    Step {
        name: "preferences",
        args: &[
            "preferences",
            "examples/preferences/exp.toml",
            "--output-dir",
            "prefs",
        ],
        out_dir: Some("prefs"),
        files: &[],
    },
    Step {
        name: "train",
        args: &[
            "train",
            "examples/train/train.toml",
            "--output-dir",
            "essays",
        ],
        out_dir: Some("essays"),
        files: &[],
    },
    Step {
        name: "predict",
        args: &[
            "predict",
            "examples/train/predict.toml",
            "--output-dir",
            "essays_predictions",
        ],
        out_dir: Some("essays_predictions"),
        files: &[],
    },
    Step {
        name: "build-predictions",
        args: &[
            "build",
            "examples/train/build.toml",
            "--output-dir",
            "essays_new",
        ],
        out_dir: Some("essays_new"),
        files: &[],
    },
];

/// What one step produced: relative name -> normalised bytes, and the exit code.
struct Produced {
    code: Option<i32>,
    files: BTreeMap<String, Vec<u8>>,
}

/// Replaces every occurrence of `from` in `bytes` by `to`.
fn replace_bytes(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    if from.is_empty() {
        return bytes.to_vec();
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

/// The bytes with the temporary root (as given and canonical) masked, and
/// the machine spans of build's report (`<span class="machine">`: the
/// platform and the CPU count) emptied.
fn normalise(bytes: &[u8], roots: &[String]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    for r in roots {
        b = replace_bytes(&b, r.as_bytes(), b"$ROOT");
    }
    mask_machine(&b)
}

/// Every run of 64 hexadecimal digits (a SHA-256) -> `$SHA256`: the
/// checksums `compare` and `summarize` record of the folders' files, whose
/// bytes hold the temporary root (`compare::checked_inputs` checks them).
fn mask_checksums(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let run = bytes[i..]
            .iter()
            .take_while(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
            .count();
        if run == 64 {
            out.extend_from_slice(b"$SHA256");
            i += run;
        } else {
            out.extend_from_slice(&bytes[i..i + run.max(1)]);
            i += run.max(1);
        }
    }
    out
}

/// `<span class="machine">...</span>` -> `<span class="machine">[machine]</span>`.
fn mask_machine(bytes: &[u8]) -> Vec<u8> {
    const OPEN: &[u8] = b"<span class=\"machine\">";
    const CLOSE: &[u8] = b"</span>";
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(OPEN) {
            let body = i + OPEN.len();
            if let Some(end) = bytes[body..].windows(CLOSE.len()).position(|w| w == CLOSE) {
                out.extend_from_slice(OPEN);
                out.extend_from_slice(b"[machine]");
                i = body + end;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

/// Runs one step in `root` and collects what it produced.
fn run_step(root: &Path, roots: &[String], step: &Step) -> Produced {
    run_args(root, roots, step.args, step.out_dir, step.files)
}

/// The masked roots of `root`: as given and canonical, longest first.
fn roots_of(root: &Path) -> Vec<String> {
    let mut roots = vec![root.to_string_lossy().into_owned()];
    let canonical = fs::canonicalize(root)
        .unwrap()
        .to_string_lossy()
        .into_owned();
    if canonical != roots[0] {
        // Longest first, so a canonical path containing the other is masked whole.
        roots.push(canonical);
        roots.sort_by_key(|r| std::cmp::Reverse(r.len()));
    }
    roots
}

/// One more whole-output snapshot, `tests/snapshots/kinds/<name>/`, of
/// `rsmreport ARGS` run in `root` (with `SOURCE_DATE_EPOCH` fixed) into
/// `out_dir`: rewritten with `UPDATE_SNAPSHOTS=1`, else compared; the
/// differences (none when identical).
pub fn snapshot_run(root: &Path, name: &str, args: &[&str], out_dir: &str) -> Vec<String> {
    let produced = run_args(root, &roots_of(root), args, Some(out_dir), &[]);
    let dir = snapshot_root().join(name);
    if common::updating_snapshots() {
        write_snapshot(&dir, &produced);
        Vec::new()
    } else {
        compare_snapshot(&dir, name, &produced)
    }
}

/// Runs `rsmreport ARGS` in `root` and collects what it produced: the
/// terminal, every file of `out_dir`, the `files` named.
fn run_args(
    root: &Path,
    roots: &[String],
    args: &[&str],
    out_dir: Option<&str>,
    extra: &[&str],
) -> Produced {
    let out = Command::new(common::bin())
        .args(args)
        .current_dir(root)
        .env("NO_COLOR", "1")
        .env("SOURCE_DATE_EPOCH", EPOCH)
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("run rsmreport");
    let mut files = BTreeMap::new();
    files.insert("<stdout>".to_string(), normalise(&out.stdout, roots));
    files.insert("<stderr>".to_string(), normalise(&out.stderr, roots));
    if let Some(dir) = out_dir {
        let dir = root.join(dir);
        for rel in common::list_files(&dir) {
            let bytes = fs::read(dir.join(&rel)).unwrap();
            let name = rel.to_string_lossy().replace('\\', "/");
            let mut bytes = normalise(&bytes, roots);
            if ["compare", "summarize"].contains(&args[0]) {
                bytes = mask_checksums(&bytes);
            }
            files.insert(name, bytes);
        }
    }
    for f in extra {
        let bytes = fs::read(root.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        files.insert((*f).to_string(), normalise(&bytes, roots));
    }
    Produced {
        code: out.status.code(),
        files,
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The manifest text of a step.
fn manifest(p: &Produced) -> String {
    let mut s = format!("exit code: {:?}\n", p.code);
    for (name, bytes) in &p.files {
        s.push_str(&format!("{} {} {}\n", sha256_hex(bytes), bytes.len(), name));
    }
    s
}

/// Kept verbatim: small text files other than HTML and SVG.
fn verbatim(name: &str, bytes: &[u8]) -> bool {
    bytes.len() <= VERBATIM_MAX
        && !name.ends_with(".html")
        && !name.ends_with(".svg")
        && std::str::from_utf8(bytes).is_ok()
}

/// The file name of a verbatim copy inside the snapshot folder.
fn stored_name(name: &str) -> String {
    match name {
        "<stdout>" => "stdout.txt".to_string(),
        "<stderr>" => "stderr.txt".to_string(),
        n => format!("files/{n}"),
    }
}

fn snapshot_root() -> PathBuf {
    common::manifest_dir()
        .join("tests")
        .join("snapshots")
        .join("kinds")
}

/// Rewrites the snapshot folder of a step.
fn write_snapshot(dir: &Path, p: &Produced) {
    let _ = fs::remove_dir_all(dir);
    fs::create_dir_all(dir).unwrap();
    fs::write(dir.join("manifest.txt"), manifest(p)).unwrap();
    for (name, bytes) in &p.files {
        if verbatim(name, bytes) {
            let path = dir.join(stored_name(name));
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, bytes).unwrap();
        }
    }
}

/// How a step differs from its snapshot (empty when identical).
fn compare_snapshot(dir: &Path, step: &str, p: &Produced) -> Vec<String> {
    let want = fs::read_to_string(dir.join("manifest.txt")).unwrap_or_default();
    let got = manifest(p);
    if want == got {
        return Vec::new();
    }
    let mut diffs = vec![format!(
        "{step}: manifest differs ({})",
        common::first_difference(&want, &got)
    )];
    for (name, bytes) in &p.files {
        let stored = dir.join(stored_name(name));
        if let (Ok(w), Ok(g)) = (fs::read_to_string(&stored), std::str::from_utf8(bytes)) {
            if w != g {
                diffs.push(format!(
                    "{step}/{name}: {}",
                    common::first_difference(&w, g)
                ));
            }
        }
    }
    diffs
}

#[test]
fn kinds_snapshot_every_output_byte() {
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    common::copy_dir(
        &common::manifest_dir().join("examples"),
        &root.join("examples"),
    );
    let roots = roots_of(root);
    let mut failures = Vec::new();
    for step in &STEPS {
        let produced = run_step(root, &roots, step);
        let dir = snapshot_root().join(step.name);
        if common::updating_snapshots() {
            write_snapshot(&dir, &produced);
        } else {
            failures.extend(compare_snapshot(&dir, step.name, &produced));
        }
    }
    assert!(
        failures.is_empty(),
        "{} difference(s) from tests/snapshots/kinds; if intended, update with \
         `UPDATE_SNAPSHOTS=1 cargo test --test integration kinds_snapshot` and review the diff:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
