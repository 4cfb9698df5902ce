//! Comparisons a reviewer can trust (issue 24; compare spec 2.2-2.4
//! amended): the signed Δ and the oriented gain, the verdict words with
//! their margins, different responses refused or marked, corrupt per-response
//! files as data errors, gates that cannot check refused, a folder given
//! twice to `summarize` refused.
//!
//! Run with `cargo test --test integration compare_trust`.

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::common::{self, table, Run};
use crate::compare::{compare_into, num, ok, verdicts};

/// The column `name` of a verdict row.
fn col<'a>(out: &Path, row: &'a [table::Cell], name: &str) -> &'a table::Cell {
    let file = fs::read_dir(out.join("output"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with("_compare_verdicts.csv"))
        .unwrap();
    let t = table::read_table(&file).unwrap();
    let j = t.header.iter().position(|h| h == name).unwrap();
    &row[j]
}

fn text(c: &table::Cell) -> String {
    match c {
        table::Cell::Text(s) => s.clone(),
        other => format!("{other:?}"),
    }
}

/// Builds `v1` and `v2` from one data file: `v2` is `v1`'s scores with
/// `shift` added to every response of level `b` of `grp`, its experiment
/// file edited by the replacements `v2_edit`.
fn shifted_versions(tmp: &Path, shift: f64, v2_edit: &[(&str, &str)]) -> (PathBuf, PathBuf) {
    let mut g = 11u64;
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
    for i in 0..2000 {
        let t = 3.5 + 0.8 * normal();
        let h = (t + 0.5 * normal()).round().clamp(1.0, 6.0);
        let v1 = t + 0.5 * normal();
        let level = ["a", "b"][i % 2];
        let v2 = if level == "b" { v1 + shift } else { v1 };
        csv.push_str(&format!("r{i},{h},{v1:.4},{v2:.4},{level}\n"));
    }
    fs::write(tmp.join("data.csv"), csv).unwrap();
    let mut outs = Vec::new();
    for (v, edit) in [("v1", &[][..]), ("v2", v2_edit)] {
        let exp = tmp.join(format!("{v}.toml"));
        let mut text = format!(
            "experiment_id = \"{v}\"\npredictions_file = \"data.csv\"\nid_column = \"id\"\n\
             human_score_column = \"h1\"\nsystem_score_column = \"{v}\"\ntrim_min = 1\n\
             trim_max = 6\nsubgroups = [\"grp\"]\n[intervals]\nreplicates = 300\n"
        );
        for (from, to) in edit {
            text = text.replace(from, to);
        }
        fs::write(&exp, text).unwrap();
        let out = tmp.join(v);
        let run = common::build(tmp, &exp, &out, &[]);
        assert!(run.success, "{}", run.describe());
        outs.push(out);
    }
    (outs.remove(0), outs.remove(0))
}

/// The "Done when" scenario of issue 24: one level's system scores
/// shifted down. The verdict table carries the signed DSM change (negative
/// for b) and the gain (|b| - |c|), the words say the level is now scored
/// below its human scores, on the terminal and in the report.
#[test]
fn compare_trust_a_shifted_level_shows_the_signed_dsm_change_in_words() {
    let tmp = TempDir::new().unwrap();
    let (v1, v2) = shifted_versions(tmp.path(), -0.6, &[]);
    let out = tmp.path().join("out");
    let run = compare_into(tmp.path(), &v1, &v2, &out);
    ok(&run);
    let rows = verdicts(&out);
    let (_, _, b) = rows
        .iter()
        .find(|(s, n, _)| s == "grp=b" && n == "DSM")
        .unwrap();
    let (base, cand) = (
        num(col(&out, b, "baseline")),
        num(col(&out, b, "candidate")),
    );
    let delta = num(col(&out, b, "delta"));
    let gain = num(col(&out, b, "gain"));
    assert!(cand < 0.0 && delta < 0.0, "{b:?}");
    assert!((delta - (cand - base)).abs() < 1e-12, "signed: {b:?}");
    assert!(
        (gain - (base.abs() - cand.abs())).abs() < 1e-12,
        "gain: {b:?}"
    );
    assert!(num(col(&out, b, "delta_upper")) < 0.0);
    assert_eq!(text(col(&out, b, "verdict")), "regressed");
    // Level a moved up a little through the population mean: its delta is
    // positive, the opposite sign of b's.
    let (_, _, a) = rows
        .iter()
        .find(|(s, n, _)| s == "grp=a" && n == "DSM")
        .unwrap();
    assert!(num(col(&out, a, "delta")) > 0.0, "{a:?}");
    let words = format!("DSM moved from {base:+.3} to {cand:+.3}");
    assert!(run.stdout.contains(&words), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("below its human scores (relative to all responses)"),
        "{}",
        run.stdout
    );
    let html = fs::read_to_string(out.join("report/v1_vs_v2_compare.html")).unwrap();
    assert!(html.contains(&words), "the report names the direction");
    assert!(html.contains(">gain<"), "the report shows the gain");
    // Every margin and every word explained, in the report and the JSON.
    assert!(html.contains("Margins in force: "), "margins");
    assert!(html.contains("DSM 0.02") && html.contains("exact_agr 1 percentage points"));
    assert!(html.contains("a real change too small to matter"));
    let json: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(out.join("output/v1_vs_v2_summary.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(json["margins"]["DSM"], 0.02);
    assert_eq!(json["verdict_words"].as_array().unwrap().len(), 10);
    assert_eq!(json["verdict_words"][1]["verdict"], "likely improved");
    let b_row = json["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["scope"] == "grp=b" && v["statistic"] == "DSM")
        .unwrap();
    assert!(b_row["delta"]["estimate"].as_f64().unwrap() < 0.0);
    assert!((b_row["gain"]["estimate"].as_f64().unwrap() - gain).abs() < 1e-12);
}

fn compare_args<'a>(
    v1: &'a Path,
    v2: &'a Path,
    out: &'a Path,
    more: &'a [&'a str],
) -> Vec<&'a OsStr> {
    let mut args = vec![OsStr::new("compare"), v1.as_os_str(), v2.as_os_str()];
    args.extend(more.iter().map(OsStr::new));
    args.extend([OsStr::new("-o"), out.as_os_str()]);
    args
}

/// Different trim ranges: a warning on the first screen, the agreement
/// rates and RMSE not comparable; the scale-free statistics compared.
#[test]
fn compare_trust_different_score_scales_are_marked_not_comparable() {
    let tmp = TempDir::new().unwrap();
    let (v1, v2) = shifted_versions(tmp.path(), 0.0, &[("trim_max = 6", "trim_max = 8")]);
    let out = tmp.path().join("out");
    let run = compare_into(tmp.path(), &v1, &v2, &out);
    ok(&run);
    assert!(
        run.stdout.contains("score on different scales"),
        "{}",
        run.stdout
    );
    let rows = verdicts(&out);
    let verdict = |scope: &str, stat: &str| {
        let (_, _, r) = rows
            .iter()
            .find(|(s, n, _)| s == scope && n == stat)
            .unwrap();
        text(col(&out, r, "verdict"))
    };
    for stat in ["exact_agr", "adj_agr", "RMSE"] {
        assert_eq!(verdict("overall", stat), "not comparable", "{stat}");
    }
    assert_eq!(verdict("grp=a", "RMSE"), "not comparable");
    assert_ne!(verdict("overall", "corr"), "not comparable");
    let html = fs::read_to_string(out.join("report/v1_vs_v2_compare.html")).unwrap();
    assert!(html.contains("score on different scales"));
    // summarize says so too.
    let sum = tmp.path().join("sum");
    let run = common::run_in(
        tmp.path(),
        [
            OsStr::new("summarize"),
            v1.as_os_str(),
            v2.as_os_str(),
            OsStr::new("-o"),
            sum.as_os_str(),
        ],
    );
    ok(&run);
    assert!(
        run.stdout
            .contains("scores on another scale than the baseline"),
        "{}",
        run.stdout
    );
}

/// Each side is compared on the score type its own report leads with;
/// when they differ, exit 2 unless score_type is set, and then the report
/// says which type each led with.
#[test]
fn compare_trust_headline_score_types_must_agree_or_be_chosen() {
    let tmp = TempDir::new().unwrap();
    let (v1, v2) = shifted_versions(
        tmp.path(),
        0.0,
        &[("trim_min = 1", "trim_min = 1\nscale_with = \"raw\"")],
    );
    let out = tmp.path().join("out");
    let run = common::run_in(tmp.path(), compare_args(&v1, &v2, &out, &[]));
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr
            .contains("leads with the score type raw_trim and the candidate's with scale_trim"),
        "{}",
        run.stderr
    );
    assert!(!out.exists());
    let cfg = tmp.path().join("c.toml");
    fs::write(&cfg, "score_type = \"raw_trim\"\n").unwrap();
    let cfg_arg = cfg.to_string_lossy().into_owned();
    let run = common::run_in(
        tmp.path(),
        compare_args(&v1, &v2, &out, &["--config", &cfg_arg]),
    );
    ok(&run);
    assert!(
        run.stdout.contains(
            "the baseline's own report led with raw_trim and the candidate's with scale_trim"
        ),
        "{}",
        run.stdout
    );
    let preflight = fs::read_to_string(out.join("output/v1_vs_v2_compare_preflight.csv")).unwrap();
    assert!(
        preflight.contains("score type its report leads with,raw_trim,scale_trim,differs"),
        "{preflight}"
    );
    assert!(
        preflight.contains("scale_with,none,raw,differs"),
        "{preflight}"
    );
}

/// No response in common: exit 2 unless --unpaired; the preflight then
/// says the ids differ (0 in common is never "same").
#[test]
fn compare_trust_no_common_response_needs_unpaired() {
    let tmp = TempDir::new().unwrap();
    let (v1, _) = crate::compare::two_versions(tmp.path());
    let v3 = crate::compare::renamed_candidate(tmp.path());
    let out = tmp.path().join("out");
    let run = common::run_in(tmp.path(), compare_args(&v1, &v3, &out, &[]));
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr.contains("have no response id in common"),
        "{}",
        run.stderr
    );
    let run = common::run_in(tmp.path(), compare_args(&v1, &v3, &out, &["--unpaired"]));
    ok(&run);
    let preflight =
        fs::read_to_string(out.join("output/engine_v1_vs_engine_v3_compare_preflight.csv"))
            .unwrap();
    assert!(
        preflight.contains("ids in common,0 (0.0%),0 (0.0%),differs"),
        "{preflight}"
    );
    let html = fs::read_to_string(out.join("report/engine_v1_vs_engine_v3_compare.html")).unwrap();
    let first = &html[..html.find("id=\"verdicts\"").unwrap_or(html.len())];
    assert!(
        first.contains("Unpaired: different responses, differences mix the engine and the sample")
    );
}

/// Gates that cannot check are refused (exit 2): a bound with no interval
/// in the comparison, two gates with one name. A folder given twice to
/// summarize is refused too.
#[test]
fn compare_trust_gates_that_check_nothing_and_repeated_folders_are_refused() {
    let tmp = TempDir::new().unwrap();
    let (v1, v2) = crate::compare::two_versions(tmp.path());
    let out = tmp.path().join("out");
    let gates = tmp.path().join("g.toml");
    let bound = "[[gates]]\nmetric = \"delta.wtkappa\"\nop = \">=\"\nthreshold = -0.01\nbound = \"lower\"\n";
    fs::write(&gates, format!("{bound}\n{bound}")).unwrap();
    let g = gates.to_string_lossy().into_owned();
    let run = common::run_in(tmp.path(), compare_args(&v1, &v2, &out, &["--gates", &g]));
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr.contains("two gates are named") && run.stderr.contains("gates[2]"),
        "{}",
        run.stderr
    );
    assert!(!out.exists());
    fs::write(&gates, bound).unwrap();
    // Stored estimates only: no interval of delta.wtkappa.
    fs::remove_file(v2.join("output/v2_pred_processed.csv")).unwrap();
    let run = common::run_in(tmp.path(), compare_args(&v1, &v2, &out, &["--gates", &g]));
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr.contains("has no interval for delta.wtkappa"),
        "{}",
        run.stderr
    );
    assert!(!out.exists());
    let run = common::run_in(
        tmp.path(),
        [
            OsStr::new("summarize"),
            v1.as_os_str(),
            v2.as_os_str(),
            OsStr::new("v1/"),
            OsStr::new("-o"),
            out.as_os_str(),
        ],
    );
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(run.stderr.contains("is given twice"), "{}", run.stderr);
    assert!(!out.exists());
}

/// Rewrites the cell in column `column` of data row `row` (1-based) of the
/// csv table `file`.
fn set_cell(file: &Path, row: usize, column: &str, value: &str) {
    let text = fs::read_to_string(file).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let j = lines[0].split(',').position(|h| h == column).unwrap();
    let mut cells: Vec<String> = lines[row].split(',').map(String::from).collect();
    cells[j] = value.to_string();
    lines[row] = cells.join(",");
    fs::write(file, lines.join("\n") + "\n").unwrap();
}

/// Runs `rsmreport ARGS` in `cwd` and expects the data error `code`, the
/// `words` on stderr and no output folder `out`.
fn fails(cwd: &Path, args: &[&OsStr], out: &Path, code: i32, words: &[&str]) -> Run {
    let run = common::run_in(cwd, args);
    assert!(!run.panicked(), "{}", run.describe());
    assert_eq!(run.code, Some(code), "{}", run.describe());
    for w in words {
        assert!(run.stderr.contains(w), "{w:?} not in {}", run.stderr);
    }
    assert!(!out.exists(), "{} was written", out.display());
    run
}

/// A corrupt per-response file is a data error naming the file, the column
/// and the first rows, in `compare` and `summarize`; never a silent n/a.
#[test]
fn compare_trust_corrupt_archives_are_data_errors() {
    let tmp = TempDir::new().unwrap();
    let (v1, v2) = crate::compare::two_versions(tmp.path());
    let out = tmp.path().join("out");
    let pred = v2.join("output/v2_pred_processed.csv");
    let clean = fs::read_to_string(&pred).unwrap();
    let cases: [(&str, usize, &str, &[&str]); 4] = [
        ("raw_trim", 3, "abc", &["column raw_trim", "row 4: \"abc\""]),
        (
            "raw_trim_round",
            7,
            "",
            &["column raw_trim_round", "row 8: blank"],
        ),
        ("sc1", 2, "four", &["column sc1", "row 3: \"four\""]),
        ("spkitemid", 5, "r0", &["the id r0 is listed twice"]),
    ];
    for (column, row, value, words) in cases {
        fs::write(&pred, &clean).unwrap();
        set_cell(&pred, row, column, value);
        let mut all = vec!["v2_pred_processed.csv"];
        all.extend_from_slice(words);
        let args = [
            OsStr::new("compare"),
            v1.as_os_str(),
            v2.as_os_str(),
            OsStr::new("-o"),
        ];
        let mut args = args.to_vec();
        args.push(out.as_os_str());
        fails(tmp.path(), &args, &out, 1, &all);
        let args = [
            OsStr::new("summarize"),
            v1.as_os_str(),
            v2.as_os_str(),
            OsStr::new("-o"),
            out.as_os_str(),
        ];
        fails(tmp.path(), &args, &out, 1, &all);
    }
    fs::write(&pred, &clean).unwrap();
    // A repeated id in test_metadata; a truncated row.
    let meta = v2.join("output/v2_test_metadata.csv");
    let text = fs::read_to_string(&meta).unwrap();
    let first = text.lines().nth(1).unwrap().to_string();
    fs::write(&meta, format!("{text}{first}\n")).unwrap();
    let args = [
        OsStr::new("compare"),
        v1.as_os_str(),
        v2.as_os_str(),
        OsStr::new("-o"),
        out.as_os_str(),
    ];
    fails(
        tmp.path(),
        &args,
        &out,
        1,
        &["v2_test_metadata.csv", "is listed twice"],
    );
    fs::write(&meta, text).unwrap();
    let cut: String = clean
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 4 {
                l.rsplit_once(',').unwrap().0.to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    fs::write(&pred, cut).unwrap();
    fails(
        tmp.path(),
        &args,
        &out,
        1,
        &["v2_pred_processed.csv", "line 5 has 4 fields"],
    );
}
