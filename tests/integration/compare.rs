//! `rsmreport compare` end to end (compare spec 2): a folder against
//! itself reproduces its own tables and finds no change; an rsmeval folder
//! against an rsmreport build of the same experiment finds Δ = 0; a
//! truly better candidate (the same responses, less system error) is
//! improved, its PRMSE too when the versions have second human scores;
//! the bad inputs of spec 5 exit with 2 (a path, a choice, the config) or
//! 1 (a table that is not the reference's) and write nothing. Every
//! fixture compared: `compare_fixtures.rs`.
//!
//! Run with `cargo test --test integration compare`.

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::common::{self, table, Run};

fn compare(cwd: &Path, args: &[&OsStr]) -> Run {
    let mut all = vec![OsStr::new("compare")];
    all.extend_from_slice(args);
    common::run_in(cwd, all)
}

/// `compare BASELINE CANDIDATE -o OUT`.
pub(crate) fn compare_into(cwd: &Path, baseline: &Path, candidate: &Path, out: &Path) -> Run {
    compare(
        cwd,
        &[
            baseline.as_os_str(),
            candidate.as_os_str(),
            OsStr::new("-o"),
            out.as_os_str(),
        ],
    )
}

/// The verdict table of an output folder: (scope, statistic) -> row.
pub(crate) fn verdicts(out: &Path) -> Vec<(String, String, Vec<table::Cell>)> {
    let file = fs::read_dir(out.join("output"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with("_compare_verdicts.csv"))
        .expect("a verdict table");
    let t = table::read_table(&file).unwrap();
    assert_eq!(t.header[0], "scope");
    t.rows
        .into_iter()
        .map(|r| {
            let text = |c: &table::Cell| match c {
                table::Cell::Text(s) => s.clone(),
                other => format!("{other:?}"),
            };
            (text(&r[0]), text(&r[1]), r)
        })
        .collect()
}

pub(crate) fn num(c: &table::Cell) -> f64 {
    match c {
        table::Cell::Num { value, .. } => *value,
        _ => f64::NAN,
    }
}

pub(crate) fn ok(run: &Run) {
    assert!(!run.panicked(), "{}", run.describe());
    assert_eq!(run.code, Some(0), "{}", run.describe());
}

/// The value of `column` in row `row` of a table file.
pub(crate) fn cell(path: &Path, row: &str, column: &str) -> f64 {
    let t = table::read_table(path).unwrap();
    let j = t.header.iter().position(|h| h == column).unwrap();
    let r = t
        .rows
        .iter()
        .find(|r| matches!(&r[0], table::Cell::Text(s) if s == row))
        .unwrap_or_else(|| panic!("no row {row} in {}", path.display()));
    num(&r[j])
}

#[test]
fn compare_a_folder_with_itself_finds_no_change_and_its_own_numbers() {
    for name in ["sim-h2-groups", "sim-raw-candidates", "probe-h2-groups"] {
        let dir = common::local_experiment(name).join("expected");
        let tmp = TempDir::new().unwrap();
        let out = tmp.path().join("out");
        let run = compare_into(tmp.path(), &dir, &dir, &out);
        ok(&run);
        let rows = verdicts(&out);
        assert!(rows.len() >= 8, "{name}: {} rows", rows.len());
        let eval = fs::read_dir(dir.join("output"))
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .find(|p| {
                let name = p.to_string_lossy();
                name.ends_with("_eval.csv") && !name.ends_with("true_score_eval.csv")
            })
            .unwrap();
        let trim = if cell_exists(&eval, "scale_trim") {
            "scale_trim"
        } else {
            "raw_trim"
        };
        for (scope, stat, r) in &rows {
            assert_eq!(num(&r[8]), 0.0, "{name} {scope} {stat}: delta");
            // A tiny level (Tagalog: 7 responses) has too many undefined
            // resamples for an interval (the 1% rule): not testable.
            let verdict = match &r[16] {
                table::Cell::Text(v) => v.clone(),
                other => format!("{other:?}"),
            };
            let tiny = scope != "overall" && num(&r[9]).is_nan();
            // Exactly the same numbers: equivalent (spec 2.3, amended).
            let want = if tiny { "not testable" } else { "equivalent" };
            assert_eq!(verdict, want, "{name} {scope} {stat}");
            assert!(matches!(&r[17], table::Cell::Text(v) if v == "true"));
            if scope == "overall"
                && ["wtkappa", "corr", "RMSE", "SMD", "R2"].contains(&stat.as_str())
            {
                let want = cell(&eval, trim, stat);
                let got = num(&r[2]);
                assert!(
                    (got - want).abs() <= 1e-9 * want.abs().max(1.0),
                    "{name} {stat}: {got} vs {want}"
                );
            }
        }
        assert!(run
            .stdout
            .contains("change: [+0.000 +0.000 +0.000] (p = 1.000) equivalent"));
        // exact agreement is a percentage: its change says percentage points
        assert!(
            run.stdout
                .lines()
                .any(|l| l.trim_start().starts_with("exact_agr ") && l.contains("] pp (")),
            "{}",
            run.stdout
        );
    }
}

/// Every number of column `column` of a table file (NaN for empty cells).
fn column(path: &Path, column: &str) -> Vec<f64> {
    let t = table::read_table(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let j = t
        .header
        .iter()
        .position(|h| h == column)
        .unwrap_or_else(|| panic!("no column {column} in {}", path.display()));
    t.rows.iter().map(|r| num(&r[j])).collect()
}

#[test]
fn compare_a_folder_with_itself_has_zero_deltas_in_every_section_table() {
    let dir = common::local_experiment("sim-h2-groups").join("expected");
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    ok(&compare_into(tmp.path(), &dir, &dir, &out));
    let cid = "sim_h2_groups_vs_sim_h2_groups";
    let file = |stem: &str| out.join(format!("output/{cid}_{stem}.csv"));
    for stem in [
        "compare_eval",
        "compare_consistency",
        "compare_true_score",
        "compare_fairness_by_L1",
        "compare_fairness_by_gender",
        "compare_by_L1",
        "compare_by_gender",
    ] {
        let path = file(stem);
        assert!(path.is_file(), "no {}", path.display());
        let (base, delta) = (column(&path, "baseline"), column(&path, "delta"));
        assert!(!delta.is_empty(), "{stem} has no rows");
        for (b, d) in base.iter().zip(&delta) {
            // A value both sides lack (an undefined statistic) has no Δ.
            assert!(*d == 0.0 || (b.is_nan() && d.is_nan()), "{stem}: Δ {d}");
        }
    }
    // The stored eval: 3 score types x 17 statistics; the paired PRMSE
    // first in the true-score table, with its interval.
    assert_eq!(column(&file("compare_eval"), "delta").len(), 3 * 17);
    let ts = table::read_table(&file("compare_true_score")).unwrap();
    assert!(matches!(&ts.rows[0][0], table::Cell::Text(t) if t == "paired"));
    assert_eq!(
        ts.header[..4],
        ["table", "row", "statistic", "baseline"].map(String::from)
    );
    let by = table::read_table(&file("compare_by_L1")).unwrap();
    assert_eq!(by.header[0], "level");
    assert_eq!(by.header[2], "N");
    assert!(by.header.contains(&"p_holm".to_string()));
    let json: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(out.join(format!("output/{cid}_summary.json"))).unwrap(),
    )
    .unwrap();
    assert_eq!(json["between"]["rounded_changed"], 0);
    assert_eq!(json["between"]["corr"]["rounded"], 1.0);
    assert_eq!(json["between"]["exact_agr"]["trimmed"], 100.0);
    for fig in [
        "compare_forest_L1",
        "compare_forest_gender",
        "compare_score_dist",
        "compare_score_changes",
    ] {
        let path = out.join(format!("figure/{cid}_{fig}.svg"));
        assert!(path.is_file(), "no {}", path.display());
    }
    let html = fs::read_to_string(out.join(format!("report/{cid}_compare.html"))).unwrap();
    assert!(html.contains("the rounded score changed for 0 responses"));
    assert!(
        html.contains("score changed."),
        "no largest-change sentence"
    );
    // Same input, same bytes (the report holds the time it was made).
    let again = tmp.path().join("again");
    ok(&compare_into(tmp.path(), &dir, &dir, &again));
    for sub in ["output", "figure"] {
        for e in fs::read_dir(out.join(sub)).unwrap() {
            let p = e.unwrap().path();
            let q = again.join(sub).join(p.file_name().unwrap());
            assert!(
                fs::read(&p).unwrap() == fs::read(&q).unwrap(),
                "{} differs between two runs",
                p.display()
            );
        }
    }
}

#[test]
fn compare_a_missing_table_leaves_its_part_empty_with_a_sentence() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("v1");
    common::copy_dir(
        &common::local_experiment("sim-h2-groups").join("expected"),
        &dir,
    );
    for t in ["consistency", "confMatrix", "fairness_metrics_by_L1"] {
        fs::remove_file(dir.join(format!("output/sim_h2_groups_{t}.csv"))).unwrap();
    }
    let full = common::local_experiment("sim-h2-groups").join("expected");
    let out = tmp.path().join("out");
    ok(&compare_into(tmp.path(), &full, &dir, &out));
    let html =
        fs::read_to_string(out.join("report/sim_h2_groups_vs_sim_h2_groups_compare.html")).unwrap();
    for t in ["consistency", "confMatrix", "fairness_metrics_by_L1"] {
        assert!(
            html.contains(&format!("The candidate folder has no {t} table")),
            "no sentence for {t}"
        );
    }
    let cons = out.join("output/sim_h2_groups_vs_sim_h2_groups_compare_consistency.csv");
    let tables = table::read_table(&cons).unwrap();
    assert!(tables
        .rows
        .iter()
        .all(|r| !matches!(&r[0], table::Cell::Text(t) if t == "consistency")));
    assert!(!out
        .join("output/sim_h2_groups_vs_sim_h2_groups_compare_fairness_by_L1.csv")
        .exists());
}

#[test]
fn compare_without_per_response_files_still_shows_the_stored_tables() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("v1");
    common::copy_dir(
        &common::local_experiment("sim-h2-groups").join("expected"),
        &dir,
    );
    fs::remove_file(dir.join("output/sim_h2_groups_pred_processed.csv")).unwrap();
    let full = common::local_experiment("sim-h2-groups").join("expected");
    let out = tmp.path().join("out");
    ok(&compare_into(tmp.path(), &full, &dir, &out));
    let cid = "sim_h2_groups_vs_sim_h2_groups";
    let eval = out.join(format!("output/{cid}_compare_eval.csv"));
    assert!(column(&eval, "delta").iter().all(|d| *d == 0.0));
    assert!(out
        .join(format!("output/{cid}_compare_fairness_by_L1.csv"))
        .is_file());
    let html = fs::read_to_string(out.join(format!("report/{cid}_compare.html"))).unwrap();
    assert!(html.contains("From both folders&#39; stored score_dist tables"));
    assert!(html.contains("can only be compared response by response"));
    assert!(out
        .join(format!("figure/{cid}_compare_score_dist.svg"))
        .is_file());
}

fn cell_exists(path: &Path, row: &str) -> bool {
    table::read_table(path)
        .unwrap()
        .rows
        .iter()
        .any(|r| matches!(&r[0], table::Cell::Text(s) if s == row))
}

#[test]
fn compare_rsmeval_and_rsmreport_folders_of_one_experiment() {
    let tmp = TempDir::new().unwrap();
    let exp = common::stage_local_experiment(tmp.path(), "sim-h2-groups");
    let ours = tmp.path().join("ours");
    let run = common::build(tmp.path(), &exp, &ours, &[]);
    assert!(run.success, "{}", run.describe());
    let theirs = common::local_experiment("sim-h2-groups").join("expected");
    let out = tmp.path().join("cmp");
    let run = compare_into(tmp.path(), &theirs, &ours, &out);
    ok(&run);
    let rows = verdicts(&out);
    // 11 whole-set statistics, 5 per level of L1 (6) and gender (2).
    assert_eq!(rows.len(), 11 + 5 * 8);
    for (scope, stat, r) in &rows {
        assert!(
            num(&r[8]).abs() <= 1e-6,
            "{scope} {stat}: delta {}",
            num(&r[8])
        );
    }
    let preflight =
        fs::read_to_string(out.join("output/sim_h2_groups_vs_sim_h2_groups_compare_preflight.csv"))
            .unwrap();
    assert!(
        preflight.contains("producer,rsmeval,rsmreport"),
        "{preflight}"
    );
    assert!(preflight.contains("responses paired,1993 (100.0%),1993 (100.0%),same"));
}

/// Two versions of an engine on the same simulated responses: the
/// candidate's system error is half the baseline's.
pub(crate) fn two_versions(tmp: &Path) -> (PathBuf, PathBuf) {
    two_versions_with(tmp, ["a", "b"])
}

/// [`two_versions`] with the two levels of the subgroup `grp` named.
fn two_versions_with(tmp: &Path, levels: [&str; 2]) -> (PathBuf, PathBuf) {
    let data = tmp.join("data.csv");
    let mut g = 7u64;
    let mut next = || {
        g = g
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (g >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut normal = || {
        let (u, v) = (next().max(1e-300), next());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    };
    let mut csv = String::from("id,h1,v1,v2,grp\n");
    for i in 0..1500 {
        let t = 3.5 + 0.8 * normal();
        let h = (t + 0.5 * normal()).round().clamp(1.0, 6.0);
        let (v1, v2) = (t + 0.7 * normal(), t + 0.35 * normal());
        csv.push_str(&format!("r{i},{h},{v1:.4},{v2:.4},{}\n", levels[i % 2]));
    }
    fs::write(&data, csv).unwrap();
    let mut outs = Vec::new();
    for v in ["v1", "v2"] {
        let exp = tmp.join(format!("{v}.toml"));
        fs::write(
            &exp,
            format!(
                "experiment_id = \"{v}\"\npredictions_file = \"data.csv\"\nid_column = \"id\"\n\
                 human_score_column = \"h1\"\nsystem_score_column = \"{v}\"\ntrim_min = 1\n\
                 trim_max = 6\nsubgroups = [\"grp\"]\nmodel_version = \"engine {v}\"\n\
                 [intervals]\nreplicates = 300\n"
            ),
        )
        .unwrap();
        let out = tmp.join(v);
        let run = common::build(tmp, &exp, &out, &[]);
        assert!(run.success, "{}", run.describe());
        outs.push(out);
    }
    (outs.remove(0), outs.remove(0))
}

#[test]
fn compare_a_better_candidate_is_improved() {
    let tmp = TempDir::new().unwrap();
    let (v1, v2) = two_versions(tmp.path());
    let run = compare(tmp.path(), &[v1.as_os_str(), v2.as_os_str()]);
    ok(&run);
    // The default folder: <baseline label>_vs_<candidate label>.
    let out = tmp.path().join("engine_v1_vs_engine_v2");
    assert!(out
        .join("output/engine_v1_vs_engine_v2_summary.json")
        .is_file());
    let rows = verdicts(&out);
    for stat in ["wtkappa", "corr", "RMSE"] {
        let (_, _, r) = rows
            .iter()
            .find(|(s, n, _)| s == "overall" && n == stat)
            .unwrap();
        assert!(
            matches!(&r[16], table::Cell::Text(v) if v == "improved"),
            "{stat}: {r:?}"
        );
    }
    assert!(run
        .stdout
        .contains("compare engine v1 (baseline) -> engine v2 (candidate), raw_trim, paired"));
    let json: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(out.join("output/engine_v1_vs_engine_v2_summary.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(json["compare_version"], 1);
    assert_eq!(json["verdicts"][0]["statistic"], "wtkappa");
    assert_eq!(json["verdicts"][0]["verdict"], "improved");
    let files = checked_inputs(&json, 2);
    assert!(files.iter().any(|f| f == "output/v1_eval.csv"), "{files:?}");
    assert!(
        files.iter().any(|f| f == "output/v2_pred_processed.csv"),
        "{files:?}"
    );
    // Reversed: regressed, and said on the terminal for the levels too.
    let back = tmp.path().join("back");
    let run = compare_into(tmp.path(), &v2, &v1, &back);
    ok(&run);
    assert!(run.stdout.contains("regressed"));
    // Said for the levels too: more than five are counted on one line
    // (issue 51, item 7), by statistic and by subgroup.
    assert!(
        run.stdout.contains("  regressed in ")
            && run.stdout.contains("(by statistic: wtkappa ")
            && run.stdout.contains("; by subgroup: grp "),
        "{}",
        run.stdout
    );
}

/// Checks the `inputs` of a compare or summarize JSON against the files
/// themselves: `folders` folders, each file's SHA-256 as `sha256sum`
/// computes it, and the folder's digest the SHA-256 of the sorted
/// `sha256sum` listing. Returns every file named.
pub(crate) fn checked_inputs(json: &serde_json::Value, folders: usize) -> Vec<String> {
    use sha2::{Digest, Sha256};
    let hex = |b: &[u8]| -> String { b.iter().map(|x| format!("{x:02x}")).collect() };
    let inputs = json["inputs"].as_array().expect("inputs");
    assert_eq!(inputs.len(), folders, "{inputs:?}");
    let mut named = Vec::new();
    for input in inputs {
        let dir = PathBuf::from(input["path"].as_str().unwrap());
        let mut listing = String::new();
        for f in input["files"].as_array().unwrap() {
            let name = f["file"].as_str().unwrap();
            let want = hex(&Sha256::digest(fs::read(dir.join(name)).unwrap()));
            assert_eq!(f["sha256"], want.as_str(), "{name}");
            listing.push_str(&format!("{want}  {name}\n"));
            named.push(name.to_string());
        }
        assert_eq!(
            input["sha256"],
            hex(&Sha256::digest(listing.as_bytes())).as_str()
        );
    }
    named
}

/// The candidate `v2` of [`two_versions`] built again on copies of the
/// responses whose ids all differ from the baseline's.
pub(crate) fn renamed_candidate(tmp: &Path) -> PathBuf {
    let data = fs::read_to_string(tmp.join("data.csv")).unwrap();
    fs::write(tmp.join("other.csv"), data.replace("\nr", "\nx")).unwrap();
    let exp = tmp.join("v3.toml");
    let text = fs::read_to_string(tmp.join("v2.toml"))
        .unwrap()
        .replace("data.csv", "other.csv")
        .replace("experiment_id = \"v2\"", "experiment_id = \"v3\"")
        .replace("engine v2", "engine v3");
    fs::write(&exp, text).unwrap();
    let out = tmp.join("v3");
    let run = common::build(tmp, &exp, &out, &[]);
    assert!(run.success, "{}", run.describe());
    out
}

/// The text of column `j` of a verdict row.
fn text_at(r: &[table::Cell], j: usize) -> String {
    match &r[j] {
        table::Cell::Text(s) => s.clone(),
        other => format!("{other:?}"),
    }
}

#[test]
fn compare_folders_with_different_responses_are_unpaired_and_say_so() {
    let tmp = TempDir::new().unwrap();
    let (v1, _) = two_versions(tmp.path());
    let v3 = renamed_candidate(tmp.path());
    let out = tmp.path().join("out");
    // Refused without --unpaired (compare spec 2.4, amended).
    let run = compare_into(tmp.path(), &v1, &v3, &out);
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr.contains("evaluated different responses") && run.stderr.contains("--unpaired"),
        "{}",
        run.stderr
    );
    assert!(!out.exists());
    let run = compare(
        tmp.path(),
        &[
            v1.as_os_str(),
            v3.as_os_str(),
            OsStr::new("--unpaired"),
            OsStr::new("-o"),
            out.as_os_str(),
        ],
    );
    ok(&run);
    assert!(run.stdout.contains("raw_trim, unpaired:"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("unpaired: different responses, differences mix the engine and the sample"),
        "{}",
        run.stdout
    );
    let rows = verdicts(&out);
    assert!(rows.iter().any(|(s, _, _)| s == "grp=a"), "levels compared");
    for (scope, stat, r) in &rows {
        assert_eq!(
            text_at(r, 17),
            "false",
            "{scope} {stat}: every row unpaired"
        );
        assert!(num(&r[9]) < num(&r[8]) && num(&r[8]) < num(&r[10]), "{r:?}");
    }
    // Each side's estimate is its own folder's: the baseline's wtkappa is
    // v1's stored value, the candidate's v3's.
    let (_, _, w) = rows
        .iter()
        .find(|(s, n, _)| s == "overall" && n == "wtkappa")
        .unwrap();
    let stored = |dir: &Path, id: &str| {
        cell(
            &dir.join(format!("output/{id}_eval.csv")),
            "raw_trim",
            "wtkappa",
        )
    };
    assert!((num(&w[2]) - stored(&v1, "v1")).abs() < 1e-9);
    assert!((num(&w[5]) - stored(&v3, "v3")).abs() < 1e-9);
    // Never more than likely when unpaired.
    assert_eq!(text_at(w, 16), "likely improved", "{w:?}");
    assert!(rows
        .iter()
        .all(|(_, _, r)| !["improved", "regressed"].contains(&text_at(r, 16).as_str())));
    let html = fs::read_to_string(out.join("report/engine_v1_vs_engine_v3_compare.html")).unwrap();
    assert!(
        html.contains("Unpaired: different responses, differences mix the engine and the sample")
    );
}

#[test]
fn compare_without_per_response_files_compares_stored_estimates() {
    let tmp = TempDir::new().unwrap();
    let (v1, v2) = two_versions(tmp.path());
    fs::remove_file(v2.join("output/v2_pred_processed.csv")).unwrap();
    let out = tmp.path().join("out");
    let run = compare_into(tmp.path(), &v1, &v2, &out);
    ok(&run);
    assert!(
        run.stdout.contains("stored estimates only"),
        "{}",
        run.stdout
    );
    let rows = verdicts(&out);
    assert!(rows.iter().all(|(s, _, _)| s == "overall"), "no levels");
    let eval = |dir: &Path, id: &str, row: &str, col: &str| {
        cell(&dir.join(format!("output/{id}_eval.csv")), row, col)
    };
    for (_, stat, r) in &rows {
        assert_eq!(text_at(r, 16), "not testable", "{stat}");
        assert!(num(&r[9]).is_nan() && num(&r[14]).is_nan(), "{stat}: {r:?}");
    }
    let (_, _, k) = rows.iter().find(|(_, n, _)| n == "kappa").unwrap();
    let want =
        eval(&v2, "v2", "raw_trim_round", "kappa") - eval(&v1, "v1", "raw_trim_round", "kappa");
    assert!((num(&k[8]) - want).abs() < 1e-12, "{k:?}");
}

/// A gates file for [`two_versions`]: a non-inferiority rule on the
/// paired difference, a bar on the candidate's own QWK, and a per-level
/// rule on the difference of DSM.
const COMPARE_GATES: &str = "[[gates]]\nname = \"QWK not worse by more than 0.01\"\n\
    metric = \"delta.wtkappa\"\nop = \">=\"\nthreshold = -0.01\nbound = \"lower\"\n\n\
    [[gates]]\nmetric = \"wtkappa\"\nop = \">=\"\nthreshold = 0.99\nseverity = \"warn\"\n\n\
    [[gates]]\nmetric = \"delta.DSM\"\nscope = \"each:grp\"\nop = \"abs<=\"\nthreshold = 0.5\n";

#[test]
fn compare_gates_judge_the_differences_and_the_candidate() {
    let tmp = TempDir::new().unwrap();
    let (v1, v2) = two_versions(tmp.path());
    let gates = tmp.path().join("gates.toml");
    fs::write(&gates, COMPARE_GATES).unwrap();
    let cfg = tmp.path().join("c.toml");
    fs::write(
        &cfg,
        "comparison_id = \"g\"\n[intervals]\nreplicates = 200\n",
    )
    .unwrap();
    let run_with = |b: &Path, c: &Path, out: &Path| {
        compare(
            tmp.path(),
            &[
                b.as_os_str(),
                c.as_os_str(),
                OsStr::new("-o"),
                out.as_os_str(),
                OsStr::new("--config"),
                cfg.as_os_str(),
                OsStr::new("--gates"),
                gates.as_os_str(),
            ],
        )
    };
    // The better candidate passes the non-inferiority rule; its QWK is
    // below 0.99, a warning only: exit 0.
    let out = tmp.path().join("up");
    let run = run_with(&v1, &v2, &out);
    ok(&run);
    let doc: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("output/g_gates.json")).unwrap())
            .unwrap();
    let lines = doc["results"].as_array().expect("result lines");
    assert_eq!(lines.len(), 1 + 1 + 2, "{doc}");
    let line = |name: &str| {
        lines
            .iter()
            .find(|l| l["name"].as_str().is_some_and(|n| n.starts_with(name)))
            .unwrap_or_else(|| panic!("no line {name}: {doc}"))
    };
    assert_eq!(line("QWK not worse")["status"], "pass");
    assert_eq!(line("wtkappa")["status"], "warn");
    // The candidate's statistic is its own build's.
    let want = cell(&v2.join("output/v2_eval.csv"), "raw_trim", "wtkappa");
    let got = line("wtkappa")["value"].as_f64().unwrap();
    assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    let xml = fs::read_to_string(out.join("output/g_gates.xml")).unwrap();
    let junit = roxmltree::Document::parse(&xml).unwrap();
    assert_eq!(
        junit
            .descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .count(),
        4
    );
    assert!(fs::read_to_string(out.join("report/g_compare.html"))
        .unwrap()
        .contains("Quality gates"));
    // Reversed, the candidate regresses: the rule fails, exit 3, and every
    // file is written.
    let down = tmp.path().join("down");
    let run = run_with(&v2, &v1, &down);
    assert_eq!(run.code, Some(3), "{}", run.describe());
    assert!(
        run.stderr
            .contains("gate FAILED: QWK not worse by more than 0.01"),
        "{}",
        run.stderr
    );
    for f in [
        "output/g_compare_verdicts.csv",
        "output/g_gates.xml",
        "report/g_compare.html",
    ] {
        assert!(down.join(f).is_file(), "{f}");
    }
    // A gate that names no compared statistic: exit 2 before any work,
    // nothing written.
    fs::write(
        &gates,
        COMPARE_GATES.replace("delta.wtkappa", "delta.wtkapa"),
    )
    .unwrap();
    let bad = tmp.path().join("bad");
    let run = run_with(&v1, &v2, &bad);
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr.contains("gates.toml, line 1: gates[1]"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("did you mean delta.wtkappa"),
        "{}",
        run.stderr
    );
    assert!(!bad.exists());
}

#[test]
fn compare_resamples_test_takers_when_both_folders_name_them() {
    let tmp = TempDir::new().unwrap();
    let (v1, v2) = two_versions(tmp.path());
    // The same data with a test taker per 3 responses, built again.
    let data = fs::read_to_string(tmp.path().join("data.csv")).unwrap();
    let mut lines = data.lines();
    let mut csv = format!("{},taker\n", lines.next().unwrap());
    for (i, line) in lines.enumerate() {
        csv.push_str(&format!("{line},t{}\n", i / 3));
    }
    fs::write(tmp.path().join("takers.csv"), csv).unwrap();
    let mut outs = Vec::new();
    for v in ["v1", "v2"] {
        let exp = tmp.path().join(format!("{v}t.toml"));
        let text = fs::read_to_string(tmp.path().join(format!("{v}.toml")))
            .unwrap()
            .replace("data.csv", "takers.csv")
            .replace("subgroups =", "candidate_column = \"taker\"\nsubgroups =");
        fs::write(&exp, text).unwrap();
        let out = tmp.path().join(format!("{v}t"));
        let run = common::build(tmp.path(), &exp, &out, &[]);
        assert!(run.success, "{}", run.describe());
        outs.push(out);
    }
    let unit_of = |out: &Path, cfg: Option<&str>| {
        let mut args = vec![
            outs[0].as_os_str(),
            outs[1].as_os_str(),
            OsStr::new("-o"),
            out.as_os_str(),
        ];
        let file = tmp.path().join("u.toml");
        if let Some(text) = cfg {
            fs::write(&file, text).unwrap();
            args.extend([OsStr::new("--config"), file.as_os_str()]);
        }
        let run = compare(tmp.path(), &args);
        ok(&run);
        let json: serde_json::Value = serde_json::from_str(
            &fs::read_to_string(out.join("output/engine_v1_vs_engine_v2_summary.json")).unwrap(),
        )
        .unwrap();
        json["intervals"]["unit"].as_str().unwrap().to_string()
    };
    assert_eq!(unit_of(&tmp.path().join("a"), None), "candidate", "auto");
    let r = "[intervals]\nunit = \"response\"\n";
    assert_eq!(unit_of(&tmp.path().join("b"), Some(r)), "response");
    // Asked for, but the first two folders have no test takers: exit 2.
    let cfg = tmp.path().join("c.toml");
    fs::write(&cfg, "[intervals]\nunit = \"candidate\"\n").unwrap();
    let out = tmp.path().join("c");
    let args = [
        v1.as_os_str(),
        v2.as_os_str(),
        OsStr::new("-o"),
        out.as_os_str(),
        OsStr::new("--config"),
        cfg.as_os_str(),
    ];
    let run = compare(tmp.path(), &args);
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(run.stderr.contains("no candidate column"), "{}", run.stderr);
    assert!(!out.exists());
}

#[test]
fn compare_refuses_bad_input_and_writes_nothing() {
    let tmp = TempDir::new().unwrap();
    let dir = common::local_experiment("sim-h2-groups").join("expected");
    let out = tmp.path().join("out");
    let fails = |args: &[&OsStr], words: &[&str]| {
        let mut all: Vec<&OsStr> = args.to_vec();
        all.extend([OsStr::new("-o"), out.as_os_str()]);
        let run = compare(tmp.path(), &all);
        assert!(!run.panicked(), "{}", run.describe());
        assert_eq!(run.code, Some(2), "{}", run.describe());
        for w in words {
            assert!(run.stderr.contains(w), "{w:?} not in {}", run.stderr);
        }
        assert!(!out.exists(), "a failed compare wrote {}", out.display());
    };
    let nope = tmp.path().join("nope");
    fails(
        &[nope.as_os_str(), dir.as_os_str()],
        &["the baseline folder", "nope", "does not exist"],
    );
    // (A folder beside the output folder: one that held the output folder
    // would be refused first, as an input the output would lie inside.)
    let empty = tmp.path().join("empty");
    fs::create_dir(&empty).unwrap();
    fails(
        &[dir.as_os_str(), empty.as_os_str()],
        &["the candidate folder", "no output/ subfolder"],
    );
    let cfg = tmp.path().join("compare.toml");
    fs::write(&cfg, "basline_label = \"v2\"\n").unwrap();
    fails(
        &[
            dir.as_os_str(),
            dir.as_os_str(),
            OsStr::new("--config"),
            cfg.as_os_str(),
        ],
        &["compare.toml, line 1: unknown key basline_label; did you mean baseline_label?"],
    );
    fs::write(&cfg, "score_type = \"raw_trim\"\n").unwrap();
    fails(
        &[
            dir.as_os_str(),
            dir.as_os_str(),
            OsStr::new("--config"),
            cfg.as_os_str(),
        ],
        &[
            "the score type raw_trim is not in the baseline's pred_processed",
            "scale_trim",
        ],
    );
}

#[test]
fn compare_the_guides_worked_example_prints_what_the_guide_shows() {
    let page = common::manifest_dir().join("docs/guide/src/versions.md");
    let readme = fs::read_to_string(page).unwrap();
    let start = readme
        .find("```text\npreflight (baseline | candidate):")
        .expect("the worked example in the guide");
    let block = &readme[start + "```text\n".len()..];
    let shown = &block[..block.find("```").unwrap()];
    let tmp = TempDir::new().unwrap();
    let run = |args: &[&str]| {
        let r = common::run_in(tmp.path(), args);
        assert!(r.success, "{args:?}: {}", r.describe());
        r
    };
    for (v, r2) in [("v1", "0.60"), ("v2", "0.75")] {
        let (csv, toml) = (format!("{v}.csv"), format!("{v}.toml"));
        run(&[
            "simulate",
            "-n",
            "5000",
            "--seed",
            "1",
            "--system-r2",
            r2,
            "--out",
            &csv,
            "--write-config",
            &toml,
        ]);
        run(&["build", &toml, "--output-dir", v]);
    }
    let out = run(&["compare", "v1", "v2"]);
    assert_eq!(out.stdout, shown, "update the guide's worked example");
    // And the summarize example, on the same two builds.
    let start = readme
        .find("```text\nsummarize 2 versions")
        .expect("the summarize example in the guide");
    let block = &readme[start + "```text\n".len()..];
    let shown = &block[..block.find("```").unwrap()];
    let out = run(&["summarize", "v1", "v2"]);
    assert_eq!(out.stdout, shown, "update the guide's summarize example");
}

#[test]
fn compare_a_damaged_per_response_file_is_a_data_error() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("v1");
    common::copy_dir(
        &common::local_experiment("sim-h2-groups").join("expected"),
        &dir,
    );
    let pred = dir.join("output/sim_h2_groups_pred_processed.csv");
    let text = fs::read_to_string(&pred).unwrap();
    let first = text.lines().nth(1).unwrap().to_string();
    fs::write(&pred, format!("{text}{first}\n")).unwrap();
    let out = tmp.path().join("out");
    let run = compare_into(tmp.path(), &dir, &dir, &out);
    assert!(!run.panicked(), "{}", run.describe());
    assert_eq!(run.code, Some(1), "{}", run.describe());
    assert!(
        run.stderr.contains("R000001 is listed twice"),
        "{}",
        run.stderr
    );
    assert!(!out.exists());
}

#[test]
fn compare_report_renders_escaped_and_in_the_browser() {
    let tmp = TempDir::new().unwrap();
    let (v1, v2) = two_versions_with(tmp.path(), ["a", "<i>x</i> & y"]);
    let cfg = tmp.path().join("compare.toml");
    fs::write(
        &cfg,
        "comparison_id = \"cmp\"\nbaseline_label = \"<b>old</b> & v1\"\n\
         description = \"Two *versions*.\"\n[intervals]\nreplicates = 100\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    let run = compare(
        tmp.path(),
        &[
            v1.as_os_str(),
            v2.as_os_str(),
            OsStr::new("-o"),
            out.as_os_str(),
            OsStr::new("--config"),
            cfg.as_os_str(),
        ],
    );
    ok(&run);
    let report = out.join("report/cmp_compare.html");
    let html = fs::read_to_string(&report).unwrap();
    assert!(!html.contains("<b>old</b>"), "unescaped label");
    assert!(html.contains("&lt;b&gt;old&lt;/b&gt; &amp; v1"));
    assert!(
        html.contains("<em>versions</em>"),
        "the description is Markdown"
    );
    for id in [
        "verdicts",
        "preflight",
        "evaluation",
        "consistency",
        "true_score",
        "by_subgroup",
        "fairness",
        "between_versions",
        "sides",
    ] {
        assert!(
            html.contains(&format!("<section id=\"{id}\"")),
            "no section {id}"
        );
    }
    assert!(html.contains("verdict verdict-improved"));
    // The label is in the new sections' figures (score distributions, heat
    // map), escaped there and in the figure files.
    assert!(html.contains("baseline: &lt;b&gt;old&lt;/b&gt; &amp; v1"));
    // A level with markup: in the level table and the forest plot, escaped.
    assert!(!html.contains("<i>x</i>"), "unescaped level");
    assert!(html.contains("&lt;i&gt;x&lt;/i&gt; &amp; y"));
    for e in fs::read_dir(out.join("figure")).unwrap() {
        let svg = fs::read_to_string(e.unwrap().path()).unwrap();
        assert!(!svg.contains("<b>old</b>"), "unescaped label in a figure");
        assert!(!svg.contains("<i>x</i>"), "unescaped level in a figure");
    }
    assert!(out.join("figure/cmp_compare_forest_grp.svg").is_file());
    assert!(
        !html.contains("src=\"http") && !html.contains("href=\"http"),
        "the report loads nothing"
    );

    let Some(text) =
        crate::report::renders_in_chromium(&report, &tmp.path().join("profile"), "compare")
    else {
        return;
    };
    for id in ["evaluation", "between_versions", "sides"] {
        assert!(
            text.contains(&format!("id=\"{id}\"")),
            "no section {id} in the DOM"
        );
    }
    assert!(
        // Forest plot of grp, score distributions, heat map.
        text.matches("<figure").count() >= 3,
        "the figures are missing"
    );
}

// ------------------------------------------------------------ bad folders
//
// Compare spec 5 and docs/errors.md ("compare: folders and config"): each
// bad folder exits with the documented code (2 for a path or a choice, 1
// for a file that is not what the reference writes), names the folder or
// file and the problem, and writes nothing.

/// Runs `rsmreport SUBCOMMAND ARGS... -o OUT` in `cwd` and checks the
/// refusal: exit `code`, no panic, every word of `words` on stderr, and
/// no `OUT`.
pub(crate) fn refused(cwd: &Path, subcommand: &str, args: &[&OsStr], code: i32, words: &[&str]) {
    let out = cwd.join("refused-out");
    let mut all = vec![OsStr::new(subcommand)];
    all.extend_from_slice(args);
    all.extend([OsStr::new("-o"), out.as_os_str()]);
    let run = common::run_in(cwd, all);
    assert!(!run.panicked(), "{}", run.describe());
    assert_eq!(run.code, Some(code), "{args:?}: {}", run.describe());
    for w in words {
        assert!(run.stderr.contains(w), "{w:?} not in: {}", run.stderr);
    }
    assert!(
        run.stderr.trim_start().starts_with("error: "),
        "{}",
        run.stderr
    );
    assert!(
        !out.exists(),
        "a refused {subcommand} wrote {}",
        out.display()
    );
}

/// `tmp/two`: the rsmeval folders of probe-basic and probe-listwise in one
/// `output/`.
pub(crate) fn two_experiments_folder(tmp: &Path) -> PathBuf {
    let dir = tmp.join("two");
    for name in ["probe-basic", "probe-listwise"] {
        common::copy_dir(&common::local_experiment(name).join("expected"), &dir);
    }
    dir
}

/// `tmp/NAME`: a copy of probe-basic's rsmeval folder whose `eval` table
/// calls `wtkappa` `qwk`.
pub(crate) fn renamed_column_folder(tmp: &Path, name: &str) -> PathBuf {
    let dir = tmp.join(name);
    common::copy_dir(
        &common::local_experiment("probe-basic").join("expected"),
        &dir,
    );
    let eval = dir.join("output/probe_basic_eval.csv");
    let text = fs::read_to_string(&eval).unwrap();
    assert!(text.lines().next().unwrap().contains(",wtkappa,"));
    fs::write(&eval, text.replacen(",wtkappa,", ",qwk,", 1)).unwrap();
    dir
}

/// `tmp/NAME`: a copy of probe-basic's rsmeval folder whose `score_dist`
/// table was converted to tsv (every other table is csv).
pub(crate) fn mixed_formats_folder(tmp: &Path, name: &str) -> PathBuf {
    let dir = tmp.join(name);
    common::copy_dir(
        &common::local_experiment("probe-basic").join("expected"),
        &dir,
    );
    let csv = dir.join("output/probe_basic_score_dist.csv");
    let text = fs::read_to_string(&csv).unwrap();
    assert!(!text.contains('"') && !text.contains('\t'), "a plain table");
    fs::write(csv.with_extension("tsv"), text.replace(',', "\t")).unwrap();
    fs::remove_file(&csv).unwrap();
    dir
}

#[test]
fn compare_refuses_a_folder_holding_two_experiments() {
    let tmp = TempDir::new().unwrap();
    let two = two_experiments_folder(tmp.path());
    let one = common::local_experiment("probe-basic").join("expected");
    refused(
        tmp.path(),
        "compare",
        &[two.as_os_str(), one.as_os_str()],
        2,
        &[
            "the baseline folder",
            &two.join("output").display().to_string(),
            "holds several experiments (probe_basic, probe_listwise)",
        ],
    );
    refused(
        tmp.path(),
        "compare",
        &[one.as_os_str(), two.as_os_str()],
        2,
        &[
            "the candidate folder",
            "several experiments",
            "probe_listwise",
        ],
    );
}

#[test]
fn compare_refuses_a_table_without_the_references_columns() {
    let tmp = TempDir::new().unwrap();
    let bad = renamed_column_folder(tmp.path(), "qwk");
    let good = common::local_experiment("probe-basic").join("expected");
    refused(
        tmp.path(),
        "compare",
        &[good.as_os_str(), bad.as_os_str()],
        1,
        &[
            "the candidate folder",
            &bad.join("output/probe_basic_eval.csv")
                .display()
                .to_string(),
            "not the reference's eval table",
            "lacks the columns wtkappa",
            "qwk",
        ],
    );
}

#[test]
fn compare_refuses_mixed_table_formats_in_one_folder() {
    let tmp = TempDir::new().unwrap();
    let bad = mixed_formats_folder(tmp.path(), "mixed");
    let good = common::local_experiment("probe-basic").join("expected");
    refused(
        tmp.path(),
        "compare",
        &[bad.as_os_str(), good.as_os_str()],
        1,
        &[
            "the baseline folder",
            &bad.join("output").display().to_string(),
            "mixes table formats (csv, tsv)",
            "probe_basic",
        ],
    );
}

#[test]
fn compare_refuses_a_score_type_absent_on_one_side() {
    // sim-h2-groups has scale* score types only, sim-raw-candidates raw*
    // only.
    let tmp = TempDir::new().unwrap();
    let scaled = common::local_experiment("sim-h2-groups").join("expected");
    let raw = common::local_experiment("sim-raw-candidates").join("expected");
    let cfg = tmp.path().join("compare.toml");
    fs::write(&cfg, "score_type = \"scale_trim\"\n").unwrap();
    let config = [OsStr::new("--config"), cfg.as_os_str()];
    refused(
        tmp.path(),
        "compare",
        &[&[scaled.as_os_str(), raw.as_os_str()][..], &config].concat(),
        2,
        &[
            "the score type scale_trim is not in the candidate's pred_processed",
            "raw, raw_trim, raw_trim_round",
            "score_type",
        ],
    );
    refused(
        tmp.path(),
        "compare",
        &[&[raw.as_os_str(), scaled.as_os_str()][..], &config].concat(),
        2,
        &["the score type scale_trim is not in the baseline's pred_processed"],
    );
    // Without a choice: the two reports lead with different score types
    // (compare spec 2.4, amended), so the user must choose.
    refused(
        tmp.path(),
        "compare",
        &[raw.as_os_str(), scaled.as_os_str()],
        2,
        &[
            "the baseline's own report leads with the score type raw_trim and the candidate's \
             with scale_trim",
            "Set score_type",
        ],
    );
}

#[test]
fn compare_refuses_paths_that_are_not_experiment_folders() {
    let tmp = TempDir::new().unwrap();
    let good = common::local_experiment("probe-basic").join("expected");
    // A file.
    let file = good.join("output/probe_basic_eval.csv");
    refused(
        tmp.path(),
        "compare",
        &[file.as_os_str(), good.as_os_str()],
        2,
        &[
            "the baseline folder",
            &file.display().to_string(),
            "is not a folder",
        ],
    );
    // An output/ without a saved configuration.
    let empty = tmp.path().join("empty");
    fs::create_dir_all(empty.join("output")).unwrap();
    fs::copy(&file, empty.join("output/probe_basic_eval.csv")).unwrap();
    refused(
        tmp.path(),
        "compare",
        &[good.as_os_str(), empty.as_os_str()],
        2,
        &[
            "the candidate folder",
            &empty.join("output").display().to_string(),
            "is not an experiment folder",
            "no saved configuration",
        ],
    );
    // A folder above an experiment folder.
    let above = common::local_experiment("probe-basic");
    refused(
        tmp.path(),
        "compare",
        &[above.as_os_str(), good.as_os_str()],
        2,
        &[
            "the baseline folder",
            &above.display().to_string(),
            "no output/ subfolder",
        ],
    );
}

#[test]
fn compare_refuses_unknown_keys_inside_the_configs_tables() {
    let tmp = TempDir::new().unwrap();
    let dir = common::local_experiment("probe-basic").join("expected");
    let cfg = tmp.path().join("compare.toml");
    for (text, words) in [
        (
            "[intervals]\nreplicate = 50\n",
            "unknown key intervals.replicate; did you mean intervals.replicates?",
        ),
        (
            "[margins]\nwtkapa = 0.02\n",
            "margins.wtkapa is not a statistic of the comparison; did you mean margins.wtkappa?",
        ),
    ] {
        fs::write(&cfg, text).unwrap();
        refused(
            tmp.path(),
            "compare",
            &[
                dir.as_os_str(),
                dir.as_os_str(),
                OsStr::new("--config"),
                cfg.as_os_str(),
            ],
            2,
            &["compare.toml, line ", words],
        );
    }
}

/// PRMSE end to end: two simulated versions of an engine on the same
/// responses with second human scores (the same seed; only the system
/// score's accuracy differs), each built with `build`, then compared.
#[test]
fn compare_prmse_of_a_more_accurate_simulated_version_is_improved() {
    let tmp = TempDir::new().unwrap();
    let run = |args: &[&str]| {
        let r = common::run_in(tmp.path(), args);
        assert!(r.success, "{args:?}: {}", r.describe());
        r
    };
    for (v, r2) in [("v1", "0.50"), ("v2", "0.80")] {
        let (csv, toml) = (format!("{v}.csv"), format!("{v}.toml"));
        run(&[
            "simulate",
            "-n",
            "3000",
            "--seed",
            "7",
            "--double-scored",
            "0.4",
            "--system-r2",
            r2,
            "--out",
            &csv,
            "--write-config",
            &toml,
        ]);
        run(&["build", &toml, "--output-dir", v]);
    }
    // The premise: the same responses, human scores and second human
    // scores (on 40% of them); only the system scores differ.
    let data = |v: &str| table::read_table(&tmp.path().join(format!("{v}.csv"))).unwrap();
    let (d1, d2) = (data("v1"), data("v2"));
    let col = |t: &table::Table, name: &str| t.header.iter().position(|h| h == name).unwrap();
    for name in ["h1", "h2"] {
        let (j1, j2) = (col(&d1, name), col(&d2, name));
        assert!(
            d1.rows.iter().zip(&d2.rows).all(|(a, b)| a[j1] == b[j2]),
            "{name} differs between the simulated versions"
        );
    }
    let h2 = col(&d1, "h2");
    let double = d1.rows.iter().filter(|r| num(&r[h2]).is_finite()).count();
    assert!((1000..1400).contains(&double), "{double} second scores");

    let out = tmp.path().join("cmp");
    let r = compare_into(
        tmp.path(),
        &tmp.path().join("v1"),
        &tmp.path().join("v2"),
        &out,
    );
    ok(&r);
    let rows = verdicts(&out);
    let (_, _, p) = rows
        .iter()
        .find(|(s, n, _)| s == "overall" && n == "PRMSE")
        .unwrap_or_else(|| panic!("no overall PRMSE row: {rows:?}"));
    assert_eq!(text_at(p, 16), "improved", "{p:?}");
    assert_eq!(text_at(p, 17), "true", "paired: {p:?}");
    assert!(
        num(&p[9]) > 0.01,
        "the whole interval above the margin: {p:?}"
    );
    // Each side's PRMSE is its own build's.
    for (v, j) in [("v1", 2), ("v2", 5)] {
        let ts = fs::read_dir(tmp.path().join(v).join("output"))
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().ends_with("_true_score_eval.csv"))
            .unwrap_or_else(|| panic!("{v} has no true_score_eval table"));
        let row = ["scale_trim", "raw_trim"]
            .into_iter()
            .find(|r| cell_exists(&ts, r))
            .unwrap();
        let want = cell(&ts, row, "PRMSE true");
        assert!(
            (num(&p[j]) - want).abs() <= 1e-9 * want.abs().max(1.0),
            "{v}: PRMSE {} vs its build's {want}",
            num(&p[j])
        );
    }
    assert!(
        r.stdout
            .lines()
            .any(|l| l.trim_start().starts_with("PRMSE") && l.ends_with("improved")),
        "{}",
        r.stdout
    );
}

/// Issue 38: the decision is the terminal's last line, and different
/// ground truth is named with its counts. The bundled example and the
/// gates-fail example evaluate the same 2,983 responses, but their first
/// human scores differ on 627 of them: compare and summarize warn on
/// stderr (and the reports' first screen, tested in the browser suite)
/// and say their verdicts rest on the 2,208 responses whose scores agree;
/// build ends with the gates' decision.
#[test]
fn compare_and_summarize_name_different_ground_truth_and_end_with_the_decision() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let examples = common::manifest_dir().join("examples");
    let (ex, gf) = (cwd.join("ex"), cwd.join("gf"));
    let run = common::build(cwd, &examples.join("exp.toml"), &ex, &[]);
    assert!(run.success, "{}", run.describe());
    assert!(
        run.stdout
            .trim_end()
            .lines()
            .last()
            .unwrap()
            .starts_with("overall: gates passed: All 13 checked gate lines passed, 1 skipped"),
        "{}",
        run.stdout
    );
    let run = common::build(cwd, &examples.join("gates-fail").join("exp.toml"), &gf, &[]);
    assert_eq!(run.code, Some(3), "{}", run.describe());
    let last = run.stdout.trim_end().lines().last().unwrap().to_string();
    assert!(
        last.starts_with(
            "overall: gates failed: 3 of 13 checked gate lines failed (QWK [overall] 0.599;"
        ) && last
            .contains("weighted kappa 0.599 (scale_trim vs human), 0.512 between two human raters"),
        "{last}"
    );
    let run = compare_into(cwd, &ex, &gf, &cwd.join("c"));
    assert!(run.success, "{}", run.describe());
    assert!(
        run.stderr.contains(
            "warning: different ground truth: the first human scores differ on 627 of the 2,983 \
             responses both folders evaluated (21.0%); the verdicts rest on the 2,208 responses \
             whose human scores agree"
        ),
        "{}",
        run.stderr
    );
    let last = run.stdout.trim_end().lines().last().unwrap().to_string();
    assert_eq!(
        last,
        "overall: regressed: example-engine 1.0.0 against example-engine 2.3.1: regressed on 10 \
         of 11 statistics, improved on 0, paired on 2,208 responses."
    );
    let html = fs::read_to_string(
        cwd.join("c/report/example-engine_2.3.1_vs_example-engine_1.0.0_compare.html"),
    )
    .unwrap();
    let header = &html[html.find("<header").unwrap()..html.find("</header>").unwrap()];
    assert!(header.contains("<span class=\"badge\">regressed</span>"));
    assert!(header.contains("different ground truth: the first human scores differ on 627"));
    assert_eq!(
        header.matches("class=\"marked\"").count(),
        3,
        "Δ wtkappa, corr, PRMSE"
    );
    // Percentages to one decimal (was 16.848%).
    assert!(html.contains("the rounded score changed for 372 responses (16.8%)."));
    // The gates note names the real files (was output/<id>_gates.json).
    let build = fs::read_to_string(gf.join("report/gates_fail_report.html")).unwrap();
    assert!(build
        .contains("output/gates_fail_gates.json and, for CI systems, output/gates_fail_gates.xml"));
    let run = common::run_in(
        cwd,
        [
            OsStr::new("summarize"),
            ex.as_os_str(),
            gf.as_os_str(),
            OsStr::new("-o"),
            cwd.join("s").as_os_str(),
        ],
    );
    assert!(run.success, "{}", run.describe());
    assert!(
        run.stderr.contains(
            "warning: different ground truth: the first human scores of example-engine 1.0.0 \
             differ from the baseline's on 627 of the 2,983 shared responses (21.0%)"
        ),
        "{}",
        run.stderr
    );
    let last = run.stdout.trim_end().lines().last().unwrap().to_string();
    assert!(
        last.starts_with(
            "overall: 1 of 1 version regressed, gates failed: Against the baseline \
             example-engine 2.3.1 (its gates passed): example-engine 1.0.0 regressed (regressed \
             on 10 of 11 statistics, improved on 0, gates FAILED)"
        ),
        "{last}"
    );
}

/// Issue 38: folders with no response in common are refused for that
/// reason first, before their score types are looked at (the raters
/// example has only raw scores, the bundled example scaled ones).
#[test]
fn compare_unrelated_folders_are_refused_for_the_real_reason_first() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let examples = common::manifest_dir().join("examples");
    let (ex, ra) = (cwd.join("ex"), cwd.join("ra"));
    for (exp, out) in [
        (examples.join("exp.toml"), &ex),
        (examples.join("raters/exp.toml"), &ra),
    ] {
        let run = common::build(cwd, &exp, out, &[]);
        assert!(run.success, "{}", run.describe());
    }
    let run = compare_into(cwd, &ex, &ra, &cwd.join("c"));
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr.contains("(2,983 responses) and")
            && run
                .stderr
                .contains("(800 responses) have no response id in common")
            && !run.stderr.contains("score_type"),
        "{}",
        run.stderr
    );
}

/// Issue 38, item 5: a folder written by another kind is named as such
/// (was "is not an experiment folder: it holds no saved configuration"),
/// by compare and summarize alike, exit 2, nothing written; since issue 49
/// compare takes two folders of one kind other than build, and names both
/// kinds when they differ.
#[test]
fn compare_and_summarize_name_a_folder_of_another_kind() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let examples = common::manifest_dir().join("examples");
    let (k, a) = (cwd.join("k"), cwd.join("a"));
    for (cmd, exp, out) in [
        ("classify", examples.join("classify/exp.toml"), &k),
        ("agree", examples.join("agree/exp.toml"), &a),
    ] {
        let args = [
            std::ffi::OsStr::new(cmd),
            exp.as_os_str(),
            std::ffi::OsStr::new("-o"),
            out.as_os_str(),
        ];
        let run = common::run_in(cwd, args);
        assert!(run.success, "{}", run.describe());
    }
    let run = compare_into(cwd, &k, &a, &cwd.join("c"));
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr.contains(&format!(
            "the baseline folder {} is an output folder of `rsmreport classify` and the \
             candidate folder {} one of `rsmreport agree`: compare takes two folders of one kind",
            k.display(),
            a.display()
        )),
        "{}",
        run.stderr
    );
    assert!(!cwd.join("c").exists());
    let s_out = cwd.join("s");
    let args = [
        std::ffi::OsStr::new("summarize"),
        a.as_os_str(),
        k.as_os_str(),
        std::ffi::OsStr::new("-o"),
        s_out.as_os_str(),
    ];
    let run = common::run_in(cwd, args);
    assert_eq!(run.code, Some(2), "{}", run.describe());
    // Since issue 49 summarize takes the folders of one kind, any kind
    // compare takes: folders of two kinds are named, each with its kind.
    assert!(
        run.stderr.contains(&format!(
            "summarize takes folders of one kind; these are of several: {} (rsmreport agree), \
             {} (rsmreport classify)",
            a.display(),
            k.display()
        )),
        "{}",
        run.stderr
    );
    assert!(!s_out.exists());
}
