//! `rsmreport simulate` end to end (`cargo test --test integration
//! simulate`): simulated data with an experiment file build as they are, the
//! same seed gives the same bytes, existing files are kept without
//! `--force`, and bad options fail with exit code 2 and a clear message.
//! Works only inside `tempfile::TempDir`s; must not touch the repository's
//! fixtures.

use std::fs;
use std::path::Path;

use tempfile::TempDir;

use crate::common::{self, run_in};

fn simulate(cwd: &Path, extra: &[&str]) -> common::Run {
    let mut args = vec!["simulate"];
    args.extend_from_slice(extra);
    run_in(cwd, args)
}

#[test]
fn simulate_then_build_just_works() {
    let tmp = TempDir::new().unwrap();
    let sim = simulate(
        tmp.path(),
        &[
            "-n",
            "2000",
            "--seed",
            "5",
            "--out",
            "data/sim.csv",
            "--scale-out",
            "data/scale.csv",
            "--write-config",
            "sim.toml",
            "--system-scale",
            "0.8",
            "--system-offset",
            "0.35",
            "--zero-scores",
            "0.01",
            "--non-numeric",
            "0.005",
            "--group-bias",
            "-0.2",
        ],
    );
    assert!(sim.success, "{}", sim.describe());
    assert!(sim
        .stdout
        .contains("simulated 2000 responses (600 double-scored"));
    let config = fs::read_to_string(tmp.path().join("sim.toml")).unwrap();
    assert!(
        config.contains("predictions_file = \"data/sim.csv\""),
        "{config}"
    );
    assert!(
        config.contains("scale_with = \"data/scale.csv\""),
        "{config}"
    );

    let out = tmp.path().join("report");
    let run = common::build(tmp.path(), Path::new("sim.toml"), &out, &[]);
    assert!(run.success, "{}", run.describe());
    // 20 zero and 10 non-numeric human scores, 10 non-numeric system scores
    // (chosen independently, so some responses have two problems).
    let evaluated: usize = run
        .stdout
        .split("evaluated ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.replace(',', "").parse().ok())
        .unwrap_or_else(|| panic!("no count in {}", run.stdout));
    assert!((1960..=1970).contains(&evaluated), "{}", run.stdout);
    for table in [
        "eval",
        "consistency",
        "true_score_eval",
        "eval_by_L1",
        "eval_by_gender",
        "fairness_metrics_by_L1",
        "test_excluded_responses",
    ] {
        let path = out.join("output").join(format!("sim_{table}.csv"));
        assert!(path.is_file(), "{} is missing", path.display());
    }
    // Six score types: the scale file is used.
    let eval = fs::read_to_string(out.join("output/sim_eval.csv")).unwrap();
    assert_eq!(eval.lines().count(), 7, "{eval}");
    assert!(eval.contains("\nscale_trim,"), "{eval}");
}

#[test]
fn simulate_same_seed_same_bytes_in_every_format() {
    let tmp = TempDir::new().unwrap();
    for (name, format) in [("a", "csv"), ("b", "csv"), ("c", "tsv"), ("d", "jsonl")] {
        let file = format!("{name}.{format}");
        let run = simulate(tmp.path(), &["-n", "500", "--seed", "9", "--out", &file]);
        assert!(run.success, "{}", run.describe());
    }
    let read = |f: &str| fs::read(tmp.path().join(f)).unwrap();
    assert_eq!(read("a.csv"), read("b.csv"));
    let tsv = String::from_utf8(read("c.tsv")).unwrap();
    assert_eq!(
        tsv.replace('\t', ","),
        String::from_utf8(read("a.csv")).unwrap()
    );
    let jsonl = String::from_utf8(read("d.jsonl")).unwrap();
    assert_eq!(jsonl.lines().count(), 500);
    let first: serde_json::Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    assert!(first["h1"].is_i64() && first["system"].is_f64(), "{first}");
    let other = simulate(tmp.path(), &["-n", "500", "--seed", "10", "--out", "e.csv"]);
    assert!(other.success);
    assert_ne!(read("a.csv"), read("e.csv"));
}

#[test]
fn simulate_parquet_builds() {
    let tmp = TempDir::new().unwrap();
    let run = simulate(
        tmp.path(),
        &[
            "-n",
            "1000",
            "--out",
            "sim.parquet",
            "--write-config",
            "sim.toml",
            "--no-subgroups",
            "--double-scored",
            "0",
        ],
    );
    assert!(run.success, "{}", run.describe());
    let config = fs::read_to_string(tmp.path().join("sim.toml")).unwrap();
    assert!(!config.contains("second_human_score_column"), "{config}");
    assert!(!config.contains("subgroups"), "{config}");
    let out = tmp.path().join("out");
    let built = common::build(tmp.path(), Path::new("sim.toml"), &out, &[]);
    assert!(built.success, "{}", built.describe());
    assert!(built.stdout.contains("evaluated 1,000 responses"));
}

#[test]
fn simulate_keeps_existing_files_without_force() {
    let tmp = TempDir::new().unwrap();
    fs::write(tmp.path().join("sim.csv"), "precious").unwrap();
    let run = simulate(tmp.path(), &["-n", "10", "--out", "sim.csv"]);
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(run.stderr.contains("--force"), "{}", run.stderr);
    assert_eq!(
        fs::read_to_string(tmp.path().join("sim.csv")).unwrap(),
        "precious"
    );
    let run = simulate(tmp.path(), &["-n", "10", "--out", "sim.csv", "--force"]);
    assert!(run.success, "{}", run.describe());
    assert!(fs::read_to_string(tmp.path().join("sim.csv"))
        .unwrap()
        .starts_with("response_id,"));
}

#[test]
fn simulate_rejects_bad_options_clearly() {
    let tmp = TempDir::new().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["-n", "0"], "number of responses"),
        (&["--inter-rater", "great"], "moderate"),
        (&["--system-r2", "1.5"], "R2"),
        (&["--double-scored", "2"], "double-scored"),
        (&["--score-min", "6", "--score-max", "1"], "score range"),
        (&["--subgroup", "L1=Spanish"], "LEVEL:WEIGHT"),
        (&["--out", "sim.xlsx"], ".csv"),
        (&["--out", "sim.csv", "--format", "tsv"], "--format"),
        (&["--write-config", "sim.json"], ".toml"),
    ];
    for (args, needle) in cases {
        let run = simulate(tmp.path(), args);
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.describe());
        assert!(
            run.stderr.contains(needle),
            "{args:?}: expected {needle:?} in {}",
            run.stderr
        );
        assert!(!run.panicked(), "{}", run.describe());
    }
    assert_eq!(
        fs::read_dir(tmp.path()).unwrap().count(),
        0,
        "nothing is written"
    );
}
