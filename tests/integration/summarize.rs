//! `rsmreport summarize` end to end (compare spec 3): each version's
//! statistics are its own build's (the same intervals when the settings
//! agree), each difference from the baseline is `compare`'s verdict row,
//! versions without common responses are unpaired and said so, the order
//! and baseline options, rsmeval folders, bad input, and the report in a
//! headless browser.
//!
//! Run with `cargo test --test integration summarize`.

use std::ffi::OsStr;
use std::fs;
use std::path::Path;

use tempfile::TempDir;

use crate::common::{self, table, Run};
use crate::compare::{
    cell, mixed_formats_folder, num, ok, refused, renamed_candidate, renamed_column_folder,
    two_experiments_folder, two_versions, verdicts,
};

fn summarize(cwd: &Path, args: &[&OsStr]) -> Run {
    let mut all = vec![OsStr::new("summarize")];
    all.extend_from_slice(args);
    common::run_in(cwd, all)
}

/// The rows of a summary table: header and rows.
fn rows(path: &Path) -> (Vec<String>, Vec<Vec<table::Cell>>) {
    let t = table::read_table(path).unwrap();
    (t.header, t.rows)
}

fn text(c: &table::Cell) -> String {
    match c {
        table::Cell::Text(s) => s.clone(),
        other => format!("{other:?}"),
    }
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn summarize_versions_are_their_builds_and_deltas_are_compares() {
    let tmp = TempDir::new().unwrap();
    let (v1, v2) = two_versions(tmp.path());
    let v3 = renamed_candidate(tmp.path());
    let out = tmp.path().join("out");
    let run = summarize(
        tmp.path(),
        &[
            v1.as_os_str(),
            v2.as_os_str(),
            v3.as_os_str(),
            OsStr::new("-o"),
            out.as_os_str(),
        ],
    );
    ok(&run);
    let (header, versions) = rows(&out.join("output/versions_summary.csv"));
    assert_eq!(versions.len(), 3);
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    // The builds ran 300 replicates with seed 0; summarize takes the
    // baseline's settings, so each version's interval is its build's.
    for (k, (dir, id)) in [(&v1, "v1"), (&v2, "v2")].into_iter().enumerate() {
        let ci = dir.join(format!("output/{id}_eval_ci.csv"));
        let t = table::read_table(&ci).unwrap();
        let r = t
            .rows
            .iter()
            .find(|r| text(&r[0]) == "raw_trim" && text(&r[1]) == "wtkappa")
            .unwrap();
        for (j, suffix) in [(2, ""), (3, "_lower"), (4, "_upper")] {
            let got = num(&versions[k][col(&format!("wtkappa{suffix}"))]);
            let want = num(&r[j]);
            assert!(
                (got - want).abs() <= 1e-9,
                "{id} wtkappa{suffix}: {got} vs {want}"
            );
        }
        let eval = dir.join(format!("output/{id}_eval.csv"));
        let got = num(&versions[k][col("RMSE")]);
        assert!((got - cell(&eval, "raw_trim", "RMSE")).abs() <= 1e-9);
    }
    // Each difference from the baseline is compare's row, with the same
    // settings.
    let cfg = tmp.path().join("c.toml");
    fs::write(&cfg, "[intervals]\nreplicates = 300\n").unwrap();
    let cmp = tmp.path().join("cmp");
    let c = common::run_in(
        tmp.path(),
        [
            OsStr::new("compare"),
            v1.as_os_str(),
            v2.as_os_str(),
            OsStr::new("-o"),
            cmp.as_os_str(),
            OsStr::new("--config"),
            cfg.as_os_str(),
        ],
    );
    ok(&c);
    let want = verdicts(&cmp);
    let (dh, deltas) = rows(&out.join("output/versions_summary_deltas.csv"));
    let dcol = |name: &str| dh.iter().position(|h| h == name).unwrap();
    let mut checked = 0;
    for (scope, stat, w) in want.iter().filter(|(s, _, _)| s == "overall") {
        let d = deltas
            .iter()
            .find(|r| text(&r[0]) == "engine v2" && text(&r[1]) == *stat)
            .unwrap_or_else(|| panic!("no delta of {stat}"));
        for (name, j) in [("delta", 8), ("delta_lower", 9), ("delta_upper", 10)] {
            assert_eq!(num(&d[dcol(name)]), num(&w[j]), "{scope} {stat} {name}");
        }
        assert_eq!(text(&d[dcol("verdict")]), text(&w[16]), "{stat}");
        assert_eq!(text(&d[dcol("paired")]), "true");
        checked += 1;
    }
    assert!(checked >= 8, "{checked} statistics");
    // v3 shares no response with v1: unpaired, and said so.
    let v3: Vec<_> = deltas
        .iter()
        .filter(|r| text(&r[0]) == "engine v3")
        .collect();
    assert!(v3.len() >= 8);
    assert!(v3.iter().all(|r| text(&r[dcol("paired")]) == "false"));
    assert!(v3.iter().all(|r| num(&r[dcol("delta_lower")]).is_finite()));
    let doc = json(&out.join("output/versions_summary.json"));
    assert_eq!(doc["summarize_version"], 1);
    assert_eq!(doc["best"]["wtkappa"], "engine v2");
    assert_eq!(doc["best"]["RMSE"], "engine v2");
    assert_eq!(doc["versions"][2]["delta_from_baseline"]["paired"], false);
    let files = crate::compare::checked_inputs(&doc, 3);
    assert!(
        files.iter().any(|f| f == "output/v3_pred_processed.csv"),
        "{files:?}"
    );
    assert!(
        run.stdout.contains("shares no response with the baseline"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("(paired) improved"), "{}", run.stdout);
    for stat in ["wtkappa", "corr", "PRMSE", "RMSE"] {
        let f = out.join(format!("figure/versions_trend_{stat}.svg"));
        assert!(f.is_file() || stat == "PRMSE", "{}", f.display());
    }
}

#[test]
fn summarize_order_and_baseline_options() {
    let tmp = TempDir::new().unwrap();
    let (v1, v2) = two_versions(tmp.path());
    let out = tmp.path().join("out");
    // Given v2 first, ordered by model_version ("engine v1" < "engine v2"),
    // with v1 as the baseline.
    let run = summarize(
        tmp.path(),
        &[
            v2.as_os_str(),
            v1.as_os_str(),
            OsStr::new("--order"),
            OsStr::new("model-version"),
            OsStr::new("--baseline"),
            v1.as_os_str(),
            OsStr::new("-o"),
            out.as_os_str(),
            OsStr::new("--id"),
            OsStr::new("s"),
        ],
    );
    ok(&run);
    let doc = json(&out.join("output/s_summary.json"));
    assert_eq!(doc["baseline"], "engine v1");
    assert_eq!(doc["versions"][0]["label"], "engine v1");
    assert_eq!(doc["versions"][1]["label"], "engine v2");
    assert!(doc["versions"][0]["delta_from_baseline"].is_null());
    // A baseline that is not among the folders is summarized too, first.
    let out2 = tmp.path().join("out2");
    let run = summarize(
        tmp.path(),
        &[
            v2.as_os_str(),
            OsStr::new("--baseline"),
            v1.as_os_str(),
            OsStr::new("-o"),
            out2.as_os_str(),
        ],
    );
    ok(&run);
    let doc = json(&out2.join("output/versions_summary.json"));
    assert_eq!(doc["versions"].as_array().unwrap().len(), 2);
    assert_eq!(doc["versions"][0]["label"], "engine v1");
}

#[test]
fn summarize_rsmeval_folders_recomputes_their_own_numbers() {
    let dirs: Vec<_> = ["sim-h2-groups", "probe-h2-groups"]
        .iter()
        .map(|n| common::local_experiment(n).join("expected"))
        .collect();
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let run = summarize(
        tmp.path(),
        &[
            dirs[0].as_os_str(),
            dirs[1].as_os_str(),
            OsStr::new("-o"),
            out.as_os_str(),
        ],
    );
    ok(&run);
    let (header, versions) = rows(&out.join("output/versions_summary.csv"));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    for (k, dir) in dirs.iter().enumerate() {
        let eval = fs::read_dir(dir.join("output"))
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .find(|p| {
                let n = p.to_string_lossy();
                n.ends_with("_eval.csv") && !n.ends_with("true_score_eval.csv")
            })
            .unwrap();
        let trim = text(&versions[k][col("score_type")]);
        for stat in ["wtkappa", "corr", "RMSE", "SMD", "R2"] {
            let want = cell(&eval, &trim, stat);
            let got = num(&versions[k][col(stat)]);
            assert!(
                (got - want).abs() <= 1e-9 * want.abs().max(1.0),
                "{} {stat}: {got} vs {want}",
                dir.display()
            );
            let (lo, hi) = (
                num(&versions[k][col(&format!("{stat}_lower"))]),
                num(&versions[k][col(&format!("{stat}_upper"))]),
            );
            assert!(lo <= got && got <= hi, "{stat}: [{lo}, {hi}] around {got}");
        }
        assert!(text(&versions[k][col("producer")]).starts_with("rsmeval"));
    }
    // The subgroups' worst levels come from the stored eval_by tables.
    let (_, worst) = rows(&out.join("output/versions_summary_worst_dsm.csv"));
    assert!(!worst.is_empty());
}

#[test]
fn summarize_refuses_bad_input_and_writes_nothing() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let missing = tmp.path().join("nothing");
    let run = summarize(
        tmp.path(),
        &[missing.as_os_str(), OsStr::new("-o"), out.as_os_str()],
    );
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr.contains("nothing") && run.stderr.contains("does not exist"),
        "{}",
        run.stderr
    );
    assert!(!out.exists());
    let dir = common::local_experiment("sim-h2-groups").join("expected");
    let run = summarize(
        tmp.path(),
        &[
            dir.as_os_str(),
            OsStr::new("--id"),
            OsStr::new("a/b"),
            OsStr::new("-o"),
            out.as_os_str(),
        ],
    );
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(run.stderr.contains("--id"), "{}", run.stderr);
    assert!(!out.exists());
    let run = summarize(tmp.path(), &[]);
    assert_eq!(run.code, Some(2), "no folder: {}", run.describe());
}

#[test]
fn summarize_report_renders_escaped_and_in_the_browser() {
    let tmp = TempDir::new().unwrap();
    let (v1, v2) = two_versions(tmp.path());
    // A hostile model_version in the baseline's saved configuration.
    let saved = v1.join("output/v1_rsmeval.json");
    let text = fs::read_to_string(&saved)
        .unwrap()
        .replace("\"engine v1\"", "\"<b>old</b> & v1\"");
    fs::write(&saved, text).unwrap();
    let out = tmp.path().join("out");
    let run = summarize(
        tmp.path(),
        &[
            v1.as_os_str(),
            v2.as_os_str(),
            OsStr::new("-o"),
            out.as_os_str(),
        ],
    );
    ok(&run);
    let report = out.join("report/versions_report.html");
    let html = fs::read_to_string(&report).unwrap();
    assert!(!html.contains("<b>old</b>"), "unescaped label");
    assert!(html.contains("&lt;b&gt;old&lt;/b&gt; &amp; v1"));
    for id in [
        "versions",
        "differences",
        "trends",
        "subgroups",
        "fairness",
        "folders",
    ] {
        assert!(
            html.contains(&format!("<section id=\"{id}\"")),
            "no section {id}"
        );
    }
    assert!(html.contains("verdict verdict-improved") && html.contains(" best\""));
    assert!(html.contains("<svg"), "trend figures inline");
    assert!(!html.contains("src=\"http") && !html.contains("href=\"http"));
    if let Some(dom) =
        crate::report::renders_in_chromium(&report, &tmp.path().join("profile"), "summarize")
    {
        assert!(
            dom.contains("id=\"trends\""),
            "no trends section in the DOM"
        );
    }
}

// ------------------------------------------------------------ bad folders
//
// As compare's (compare spec 5, README "Summarizing model versions"): the
// documented exit code, the folder or file and the problem named, nothing
// written, also when the bad folder comes after good ones.

#[test]
fn summarize_refuses_paths_that_are_not_experiment_folders() {
    let tmp = TempDir::new().unwrap();
    let good = common::local_experiment("probe-basic").join("expected");
    let above = common::local_experiment("probe-basic");
    refused(
        tmp.path(),
        "summarize",
        &[good.as_os_str(), above.as_os_str()],
        2,
        &[
            &above.display().to_string(),
            "is not an experiment folder",
            "no output/ subfolder",
        ],
    );
    let empty = tmp.path().join("empty");
    fs::create_dir_all(empty.join("output")).unwrap();
    refused(
        tmp.path(),
        "summarize",
        &[empty.as_os_str(), good.as_os_str()],
        2,
        &[
            &empty.join("output").display().to_string(),
            "no saved configuration",
        ],
    );
    let file = good.join("output/probe_basic_eval.csv");
    refused(
        tmp.path(),
        "summarize",
        &[good.as_os_str(), file.as_os_str()],
        2,
        &[&file.display().to_string(), "is not a folder"],
    );
    // As --baseline too.
    refused(
        tmp.path(),
        "summarize",
        &[
            good.as_os_str(),
            OsStr::new("--baseline"),
            above.as_os_str(),
        ],
        2,
        &[&above.display().to_string(), "no output/ subfolder"],
    );
}

#[test]
fn summarize_refuses_a_folder_holding_two_experiments() {
    let tmp = TempDir::new().unwrap();
    let two = two_experiments_folder(tmp.path());
    let good = common::local_experiment("probe-basic").join("expected");
    refused(
        tmp.path(),
        "summarize",
        &[good.as_os_str(), two.as_os_str()],
        2,
        &[
            &two.join("output").display().to_string(),
            "holds several experiments (probe_basic, probe_listwise)",
        ],
    );
}

#[test]
fn summarize_refuses_mixed_table_formats_in_one_folder() {
    let tmp = TempDir::new().unwrap();
    let bad = mixed_formats_folder(tmp.path(), "mixed");
    let good = common::local_experiment("probe-basic").join("expected");
    refused(
        tmp.path(),
        "summarize",
        &[good.as_os_str(), bad.as_os_str()],
        1,
        &[
            &bad.join("output").display().to_string(),
            "mixes table formats (csv, tsv)",
        ],
    );
}

#[test]
fn summarize_refuses_a_table_without_the_references_columns() {
    let tmp = TempDir::new().unwrap();
    let bad = renamed_column_folder(tmp.path(), "qwk");
    refused(
        tmp.path(),
        "summarize",
        &[bad.as_os_str()],
        1,
        &[
            &bad.join("output/probe_basic_eval.csv")
                .display()
                .to_string(),
            "not the reference's eval table",
            "wtkappa",
        ],
    );
}

/// Issue 51, item 7: the worst subgroup level is one the build report
/// shows (at least `min_n_per_group` responses: the bundled example has
/// 30, and a level of 25 responses with the largest |DSM|), with its N
/// beside it; one folder alone ends with a sentence, not "(its gates
/// passed): .".
#[test]
fn summarize_worst_level_respects_min_n_per_group_and_one_folder_reads() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let exp = common::manifest_dir().join("examples/exp.toml");
    let b = cwd.join("b");
    let run = common::build(cwd, &exp, &b, &[]);
    assert!(
        run.code == Some(0) || run.code == Some(3),
        "{}",
        run.describe()
    );
    let out = cwd.join("s");
    let run = summarize(cwd, &[b.as_os_str(), OsStr::new("-o"), out.as_os_str()]);
    assert_eq!(run.code, Some(0), "{}", run.describe());
    let last = run.stdout.lines().last().unwrap();
    assert!(!last.contains(": ."), "{last}");
    assert!(last.starts_with("overall: "), "{last}");
    let config = json(&b.join("output/example_rsmeval.json"));
    let (worst_header, worst) = rows(&out.join("output/versions_summary_worst_dsm.csv"));
    let col = |name: &str| worst_header.iter().position(|h| h == name).unwrap();
    let mut hidden_seen = false;
    for g in ["L1", "gender"] {
        let min_n = config["min_n_per_group"][g].as_f64().unwrap();
        let (header, levels) = rows(&b.join(format!("output/example_eval_by_{g}.csv")));
        let dsm = header.iter().position(|h| h == "DSM.scale_trim").unwrap();
        let n = header.iter().position(|h| h == "N").unwrap();
        let all: Vec<(String, f64, f64)> = levels
            .iter()
            .filter(|r| text(&r[0]) != "All data")
            .map(|r| (text(&r[0]), num(&r[n]), num(&r[dsm])))
            .collect();
        let largest = |shown: bool| {
            all.iter()
                .filter(|l| !shown || l.1 >= min_n)
                .max_by(|a, b| a.2.abs().total_cmp(&b.2.abs()))
                .unwrap()
                .clone()
        };
        let want = largest(true);
        hidden_seen |= largest(false).0 != want.0;
        let row = worst
            .iter()
            .find(|r| text(&r[col("subgroup")]) == g)
            .unwrap();
        assert_eq!(text(&row[col("level")]), want.0, "{g}");
        assert_eq!(num(&row[col("N")]), want.1, "{g}");
        assert_eq!(num(&row[col("DSM")]), want.2, "{g}");
    }
    assert!(
        hidden_seen,
        "the example has a level below min_n_per_group with the largest |DSM|"
    );
}
