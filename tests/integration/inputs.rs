//! No command writes into what it reads (issue 24, 1): for every kind, an
//! output folder that is, contains or lies inside an input folder, or that
//! holds an input file, is refused with exit 2 before anything is read,
//! `--force` or not; the error names both paths and the input is left
//! byte for byte as it was.
//!
//! Run with `cargo test --test integration inputs`.

use std::ffi::OsStr;
use std::fs;
use std::path::Path;

use tempfile::TempDir;

use crate::common;

/// Runs `args` in `cwd` and checks the refusal: exit 2, both paths named,
/// `keep` unchanged.
fn refused(cwd: &Path, args: &[&OsStr], names: [&str; 2], keep: &Path) {
    let before = common::snapshot(keep);
    let run = common::run_in(cwd, args);
    assert!(!run.panicked(), "{}", run.describe());
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(run.stderr.contains("refusing to write the output folder"));
    for n in names {
        assert!(run.stderr.contains(n), "{n:?} not in {}", run.stderr);
    }
    assert!(
        common::snapshot_diff(&before, &common::snapshot(keep)).is_empty(),
        "{} changed",
        keep.display()
    );
}

fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

#[test]
fn inputs_compare_never_writes_into_an_archive() {
    let tmp = TempDir::new().unwrap();
    let (v1, _) = crate::compare::two_versions(tmp.path());
    let cwd = tmp.path();
    for out in ["v1", "v1/output", "v1/report/new", "."] {
        let args = [
            os("compare"),
            os("v1"),
            os("v2"),
            os("-o"),
            os(out),
            os("--force"),
        ];
        refused(cwd, &args, [out, "v1"], &v1);
    }
    // The candidate given as its output/ subfolder: its experiment folder
    // is the input.
    let args = [os("compare"), os("v1"), os("v2/output"), os("-o"), os("v2")];
    refused(cwd, &args, ["v2"; 2], &tmp.path().join("v2"));
    // The default folder, from inside the baseline.
    let args = [os("compare"), os("."), os("../v2")];
    refused(&v1, &args, ["engine_v1_vs_engine_v2", "."], &v1);
    // Beside the archives is fine.
    let run = common::run_in(cwd, [os("compare"), os("v1"), os("v2"), os("-o"), os("c")]);
    assert_eq!(run.code, Some(0), "{}", run.describe());
}

#[test]
fn inputs_summarize_never_writes_into_an_archive() {
    let tmp = TempDir::new().unwrap();
    let (v1, v2) = crate::compare::two_versions(tmp.path());
    let cwd = tmp.path();
    let args = [
        os("summarize"),
        os("v1"),
        os("v2"),
        os("-o"),
        os("v2"),
        os("--force"),
    ];
    refused(cwd, &args, ["v2"; 2], &v2);
    let args = [
        os("summarize"),
        os("v2"),
        os("--baseline"),
        os("v1"),
        os("-o"),
        os("v1/figure"),
        os("--force"),
    ];
    refused(cwd, &args, ["v1/figure", "v1"], &v1);
}

#[test]
fn inputs_build_never_replaces_its_data_file() {
    let tmp = TempDir::new().unwrap();
    let data = tmp.path().join("d");
    fs::create_dir(&data).unwrap();
    fs::write(
        data.join("p.csv"),
        "id,h,s\n1,1,1.2\n2,2,2.1\n3,3,2.9\n4,2,2.2\n",
    )
    .unwrap();
    fs::write(
        tmp.path().join("e.toml"),
        "experiment_id = \"e\"\npredictions_file = \"d/p.csv\"\nid_column = \"id\"\n\
         human_score_column = \"h\"\nsystem_score_column = \"s\"\ntrim_min = 1\ntrim_max = 3\n",
    )
    .unwrap();
    let args = [os("build"), os("e.toml"), os("-o"), os("d"), os("--force")];
    refused(tmp.path(), &args, ["d", "p.csv"], &data);
    // Beside the data file is fine.
    let args = [os("build"), os("e.toml"), os("-o"), os("d/e")];
    let run = common::run_in(tmp.path(), args);
    assert_eq!(run.code, Some(0), "{}", run.describe());
}

#[test]
fn inputs_agree_never_replaces_its_annotations() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("a");
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join("l.csv"), "item,a1,a2\ni1,x,x\ni2,y,x\n").unwrap();
    fs::write(
        dir.join("e.toml"),
        "experiment_id = \"e\"\nannotations_file = \"l.csv\"\nitem_column = \"item\"\n\
         rater_columns = [\"a1\", \"a2\"]\n",
    )
    .unwrap();
    let args = [
        os("agree"),
        os("a/e.toml"),
        os("-o"),
        os("a"),
        os("--force"),
    ];
    refused(tmp.path(), &args, ["a", "e.toml"], &dir);
}

#[test]
fn inputs_preferences_never_replaces_its_pairs() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("p");
    fs::create_dir(&dir).unwrap();
    fs::write(
        dir.join("pairs.csv"),
        "comparison_id,human,judge\n1,text_a,text_b\n",
    )
    .unwrap();
    fs::write(
        dir.join("e.toml"),
        "experiment_id = \"e\"\npairs_file = \"pairs.csv\"\nid_column = \"comparison_id\"\n\
         reference_column = \"human\"\nannotator_columns = [\"judge\"]\n",
    )
    .unwrap();
    let args = [
        os("preferences"),
        os("p/e.toml"),
        os("-o"),
        os("p"),
        os("--force"),
    ];
    refused(tmp.path(), &args, ["p", "e.toml"], &dir);
}
