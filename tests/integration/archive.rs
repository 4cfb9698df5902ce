//! The archive reader (`rsmreport_io::input::archive`, compare spec 1): real
//! rsmeval output folders (the fixtures' `expected/` folders, ours and,
//! when `../shared` is beside the clone, the reference's csv, tsv and xlsx
//! ones), an `rsmreport build` folder, and every bad folder of spec 5 that
//! the reader owns.
//!
//! Run with `cargo test --test integration archive`.

use std::fs;
use std::path::{Path, PathBuf};

use rsmreport_io::input::archive::{self, Format, Problem};
use tempfile::TempDir;

use crate::common;

/// The `expected/` folders (real rsmeval output) under `experiments`.
fn expected_folders(experiments: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(experiments)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("expected"))
        .filter(|p| p.join("output").is_dir())
        .collect();
    out.sort();
    out
}

/// Opens `dir` and checks what every rsmeval folder must give: the id of
/// its saved config, `eval` with one row per score type, the subgroups
/// of its config, each with its by-group tables.
fn check_rsmeval_folder(dir: &Path) -> archive::Archive {
    let a = archive::open(dir, None).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    assert_eq!(a.producer.name, "rsmeval", "{}", dir.display());
    assert_eq!(a.config["experiment_id"].as_str(), Some(a.id.as_str()));
    let eval = a.table("eval").unwrap();
    assert!(
        (1..=6).contains(&eval.nrows),
        "{}: eval has {} rows",
        dir.display(),
        eval.nrows
    );
    let configured: Vec<String> = match &a.config.get("subgroups") {
        Some(serde_json::Value::Array(v)) => v
            .iter()
            .filter_map(|g| g.as_str().map(String::from))
            .collect(),
        _ => Vec::new(),
    };
    assert_eq!(a.subgroups, configured, "{}", dir.display());
    for g in &a.subgroups {
        assert!(
            a.table(&format!("eval_by_{g}")).is_some(),
            "{}",
            dir.display()
        );
    }
    let pred = a.table("pred_processed").expect("pred_processed");
    assert_eq!(pred.nrows, eval_n(&a), "{}", dir.display());
    a
}

/// `N` of the first row of `eval`.
fn eval_n(a: &archive::Archive) -> usize {
    let eval = a.table("eval").unwrap();
    let n = eval.column("N").unwrap();
    match n.values.cell(0) {
        rsmreport_core::table::Cell::Int(v) => v as usize,
        rsmreport_core::table::Cell::Float(v) => v as usize,
        other => panic!("N is {other:?}"),
    }
}

#[test]
fn archive_reads_the_local_fixtures_rsmeval_folders() {
    let folders = expected_folders(&common::local_fixtures().join("experiments"));
    assert!(folders.len() >= 8, "{folders:?}");
    for dir in folders {
        let a = check_rsmeval_folder(&dir);
        let configured = a.config["file_format"].as_str().unwrap_or("csv");
        assert_eq!(a.format.extension(), configured, "{}", dir.display());
        // The output folder itself is accepted too.
        let b = archive::open(&dir.join("output"), None).unwrap();
        assert_eq!((b.id, b.tables.len()), (a.id, a.tables.len()));
    }
}

#[test]
fn archive_reads_the_references_rsmeval_folders() {
    let Some(shared) = common::shared_fixtures() else {
        eprintln!(
            "archive: SKIPPED the reference's folders, {} not found",
            common::shared_fixtures_path().display()
        );
        return;
    };
    let folders = expected_folders(&shared.join("experiments"));
    let mut formats = Vec::new();
    for dir in &folders {
        let a = check_rsmeval_folder(dir);
        let configured = a.config["file_format"].as_str().unwrap_or("csv");
        assert_eq!(a.format.extension(), configured, "{}", dir.display());
        formats.push(a.format);
    }
    assert!(folders.len() >= 30, "{}", folders.len());
    for f in [Format::Csv, Format::Tsv, Format::Xlsx] {
        assert!(formats.contains(&f), "no {f:?} folder among the fixtures");
    }
}

#[test]
fn archive_reads_an_rsmreport_build_folder() {
    let tmp = TempDir::new().unwrap();
    let exp = common::stage_local_experiment(tmp.path(), "sim-h2-groups");
    let mut text = fs::read_to_string(&exp).unwrap();
    text.push_str("model_version = \"engine 3.1\"\nfile_format = \"xlsx\"\n");
    fs::write(&exp, text).unwrap();
    let out = tmp.path().join("out");
    let run = common::build(tmp.path(), &exp, &out, &[]);
    assert!(run.success, "{}", run.describe());

    let a = archive::open(&out, None).unwrap();
    assert_eq!(a.producer.name, "rsmreport");
    assert_eq!(
        a.producer.version.as_deref(),
        Some(env!("CARGO_PKG_VERSION"))
    );
    assert_eq!((a.id.as_str(), a.label()), ("sim_h2_groups", "engine 3.1"));
    assert_eq!(a.format, Format::Xlsx);
    assert_eq!(a.subgroups, ["L1", "gender"]);
    assert!(a.summary.is_some());
    assert!(a.missing.is_empty(), "{:?}", a.missing);
    assert_eq!(a.table("test_human_scores").unwrap().nrows, 1993);
    // The row labels are text, as written.
    let eval = a.table("eval").unwrap();
    let labels = eval.column(archive::INDEX).unwrap();
    assert_eq!(
        labels.values.cell(1),
        rsmreport_core::table::Cell::Text("scale_trim".into())
    );
}

/// A copy of the local fixture `sim-h2-groups`'s rsmeval folder.
fn copy_folder(tmp: &TempDir) -> PathBuf {
    let dir = tmp.path().join("v1");
    common::copy_dir(
        &common::local_experiment("sim-h2-groups").join("expected"),
        &dir,
    );
    dir
}

fn expect_error(dir: &Path, id: Option<&str>, problem: Problem, words: &[&str]) {
    let err = archive::open(dir, id).expect_err("the folder should be refused");
    let text = err.to_string();
    assert_eq!(err.problem, problem, "{text}");
    for w in words {
        assert!(text.contains(w), "{w:?} not in: {text}");
    }
}

#[test]
fn archive_refuses_what_is_not_an_experiment_folder() {
    let tmp = TempDir::new().unwrap();
    let missing = tmp.path().join("nope");
    expect_error(&missing, None, Problem::Usage, &["nope", "does not exist"]);
    fs::write(tmp.path().join("file"), "x").unwrap();
    expect_error(
        &tmp.path().join("file"),
        None,
        Problem::Usage,
        &["is not a folder"],
    );
    expect_error(tmp.path(), None, Problem::Usage, &["no output/ subfolder"]);
    fs::create_dir(tmp.path().join("output")).unwrap();
    expect_error(
        tmp.path(),
        None,
        Problem::Usage,
        &["no saved configuration"],
    );
}

#[test]
fn archive_needs_an_id_when_a_folder_holds_several_experiments() {
    let tmp = TempDir::new().unwrap();
    let dir = copy_folder(&tmp);
    let out = dir.join("output");
    fs::copy(
        out.join("sim_h2_groups_rsmeval.json"),
        out.join("other_rsmeval.json"),
    )
    .unwrap();
    fs::copy(
        out.join("sim_h2_groups_eval.csv"),
        out.join("other_eval.csv"),
    )
    .unwrap();
    expect_error(
        &dir,
        None,
        Problem::Usage,
        &["several experiments", "other, sim_h2_groups"],
    );
    assert_eq!(archive::open(&dir, Some("other")).unwrap().id, "other");
    assert_eq!(
        archive::open(&dir, Some("sim_h2_groups"))
            .unwrap()
            .subgroups,
        ["L1", "gender"]
    );
    expect_error(&dir, Some("v9"), Problem::Usage, &["no experiment \"v9\""]);
}

#[test]
fn archive_refuses_bad_tables() {
    let tmp = TempDir::new().unwrap();
    let dir = copy_folder(&tmp);
    let out = dir.join("output");

    // Mixed formats.
    fs::write(out.join("sim_h2_groups_score_dist.tsv"), "a\tb\n1\t2\n").unwrap();
    expect_error(
        &dir,
        None,
        Problem::Data,
        &["mixes table formats", "csv, tsv"],
    );
    fs::remove_file(out.join("sim_h2_groups_score_dist.tsv")).unwrap();

    // A table without the reference's columns.
    let eval = out.join("sim_h2_groups_eval.csv");
    let good = fs::read_to_string(&eval).unwrap();
    fs::write(&eval, good.replacen(",wtkappa,", ",qwk,", 1)).unwrap();
    expect_error(
        &dir,
        None,
        Problem::Data,
        &[
            "sim_h2_groups_eval.csv",
            "not the reference's eval table",
            "wtkappa",
        ],
    );
    let by = out.join("sim_h2_groups_consistency_by_L1.csv");
    fs::write(&eval, &good).unwrap();
    fs::write(&by, "x,y\n1,2\n").unwrap();
    expect_error(&dir, None, Problem::Data, &["consistency_by_L1", "DSM"]);

    // No eval: nothing to compare.
    fs::remove_file(&by).unwrap();
    fs::remove_file(&eval).unwrap();
    expect_error(&dir, None, Problem::Data, &["has no table eval"]);
}

#[test]
fn archive_lists_missing_optional_tables() {
    let tmp = TempDir::new().unwrap();
    let dir = copy_folder(&tmp);
    let out = dir.join("output");
    for t in [
        "true_score_eval",
        "test_human_scores",
        "fairness_metrics_by_gender",
    ] {
        fs::remove_file(out.join(format!("sim_h2_groups_{t}.csv"))).unwrap();
    }
    let a = archive::open(&dir, None).unwrap();
    assert_eq!(
        a.missing,
        [
            "true_score_eval",
            "test_human_scores",
            "fairness_metrics_by_gender"
        ]
    );
    assert!(a.table("eval").is_some() && a.table("true_score_eval").is_none());
}

#[test]
fn archive_responses_join_the_per_response_files_by_id() {
    let tmp = TempDir::new().unwrap();
    let dir = copy_folder(&tmp);
    let a = archive::open(&dir, None).unwrap();
    let r = a.responses().unwrap().expect("pred_processed is there");
    assert_eq!(r.len(), 1993);
    assert_eq!(
        r.scores.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        ["scale", "scale_trim", "scale_trim_round"]
    );
    // 596 double-scored responses (the consistency table's N).
    let sc2 = r.sc2.as_ref().unwrap();
    assert_eq!(sc2.iter().filter(|v| !v.is_nan()).count(), 596);
    // Values by id, whatever the row order of the other files.
    let i = r.ids.iter().position(|id| &**id == "R000001").unwrap();
    assert_eq!((r.sc1[i], sc2[i]), (4.0, 4.0));
    assert_eq!(r.groups[0].0, "L1");
    assert_eq!(r.groups[0].1[i].as_deref(), Some("Arabic"));
    assert_eq!(r.groups[1].1[i].as_deref(), Some("M"));

    // Reversing the rows of test_metadata changes nothing.
    let meta = dir.join("output").join("sim_h2_groups_test_metadata.csv");
    let text = fs::read_to_string(&meta).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[1..].reverse();
    fs::write(&meta, lines.join("\n") + "\n").unwrap();
    let again = archive::open(&dir, None)
        .unwrap()
        .responses()
        .unwrap()
        .unwrap();
    assert!(
        again.ids == r.ids && again.groups == r.groups,
        "the join depends on row order"
    );
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert!(bits(again.sc2.as_ref().unwrap()) == bits(sc2));

    // A repeated id is a data error naming the file.
    let pred = dir.join("output").join("sim_h2_groups_pred_processed.csv");
    let text = fs::read_to_string(&pred).unwrap();
    let first = text.lines().nth(1).unwrap().to_string();
    fs::write(&pred, format!("{text}{first}\n")).unwrap();
    let err = archive::open(&dir, None).unwrap().responses().unwrap_err();
    assert_eq!(err.problem, Problem::Data);
    assert!(err.to_string().contains("pred_processed.csv"), "{err}");
    assert!(err.to_string().contains("R000001 is listed twice"), "{err}");

    // Without pred_processed there are no per-response data.
    fs::remove_file(&pred).unwrap();
    assert!(archive::open(&dir, None)
        .unwrap()
        .responses()
        .unwrap()
        .is_none());
}

#[test]
fn archive_rsmeval_and_rsmreport_folders_of_one_experiment_pair_fully() {
    let tmp = TempDir::new().unwrap();
    let exp = common::stage_local_experiment(tmp.path(), "sim-h2-groups");
    let out = tmp.path().join("ours");
    let run = common::build(tmp.path(), &exp, &out, &[]);
    assert!(run.success, "{}", run.describe());
    let theirs = archive::open(&copy_folder(&tmp), None).unwrap();
    let ours = archive::open(&out, None).unwrap();
    assert_eq!(
        (ours.producer.name.as_str(), theirs.producer.name.as_str()),
        ("rsmreport", "rsmeval")
    );
    let (b, c) = (
        theirs.responses().unwrap().unwrap(),
        ours.responses().unwrap().unwrap(),
    );
    let p = rsmreport::kinds::versions::build::pairing::pair(&b, &c);
    assert_eq!((p.common, p.pairs.len()), (1993, 1993));
    assert!(p.sc1_mismatches.is_empty() && p.sc2_mismatches.is_empty() && p.sc2_compared);
    assert!(!p.low_overlap());
    // Both sides hold the same scores for each pair.
    let (bs, cs) = (
        b.score("scale_trim").unwrap(),
        c.score("scale_trim").unwrap(),
    );
    for &(i, j) in &p.pairs {
        let (x, y) = (bs[i as usize], cs[j as usize]);
        assert!(
            (x - y).abs() <= 1e-9 * x.abs().max(1.0),
            "{} {x} {y}",
            b.ids[i as usize]
        );
    }
}
