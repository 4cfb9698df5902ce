//! `rsmreport compare` and `summarize`: what the report and the tables
//! show beyond the verdicts (compare spec 2.1, 2.2, 2.5, 2.6): the
//! analytic cross-checks beside the bootstrap, the regressed levels in the
//! Verdicts section, the excluded responses in the preflight, subgroups of
//! either side, `FOLDER#ID` for a folder holding several experiments, the
//! default folder and the report's name.
//!
//! Run with `cargo test --test integration compare_views`.

use std::ffi::OsStr;
use std::fs;
use std::path::Path;

use tempfile::TempDir;

use crate::common::{self, table, Run};
use crate::compare::{compare_into, num, ok, two_versions, verdicts};

fn run(cwd: &Path, args: &[&OsStr]) -> Run {
    common::run_in(cwd, args)
}

/// `summarize DIR... -o OUT`.
fn summarize_into(cwd: &Path, dirs: &[&Path], out: &Path) -> Run {
    let mut args = vec![OsStr::new("summarize")];
    args.extend(dirs.iter().map(|d| d.as_os_str()));
    args.extend([OsStr::new("-o"), out.as_os_str()]);
    run(cwd, &args)
}

fn text(c: &table::Cell) -> String {
    match c {
        table::Cell::Text(s) => s.clone(),
        other => format!("{other:?}"),
    }
}

/// The cross-checks of spec 2.2 sit beside the bootstrap in the verdict
/// table, the JSON and the report; the report's Verdicts section lists
/// the regressed levels; the report is `report/<cid>_compare.html`.
#[test]
fn compare_views_cross_checks_and_regressed_levels() {
    let tmp = TempDir::new().unwrap();
    let (v1, v2) = two_versions(tmp.path());
    let out = tmp.path().join("back");
    ok(&compare_into(tmp.path(), &v2, &v1, &out));
    let cid = "engine_v2_vs_engine_v1";
    let t = table::read_table(&out.join(format!("output/{cid}_compare_verdicts.csv"))).unwrap();
    assert_eq!(
        &t.header[17..],
        [
            "paired",
            "margin",
            "cross_check",
            "cross_check_lower",
            "cross_check_upper",
            "cross_check_p"
        ]
    );
    let rows = verdicts(&out);
    let overall = |stat: &str| -> &Vec<table::Cell> {
        &rows
            .iter()
            .find(|(s, n, _)| s == "overall" && n == stat)
            .unwrap()
            .2
    };
    // corr: Zou's interval of Δ, near the bootstrap's (1,500 responses).
    let corr = overall("corr");
    assert_eq!(text(&corr[19]), "zou");
    let (lo, hi) = (num(&corr[20]), num(&corr[21]));
    let (d, blo, bhi) = (num(&corr[8]), num(&corr[9]), num(&corr[10]));
    assert!(lo < d && d < hi && hi < 0.0, "Zou [{lo}, {hi}] around {d}");
    assert!((hi - lo) / (bhi - blo) > 0.7 && (hi - lo) / (bhi - blo) < 1.4);
    assert_eq!(num(&corr[18]), 0.01, "the margin");
    // exact_agr: McNemar's p-value, small for a clear regression.
    let exact = overall("exact_agr");
    assert_eq!(text(&exact[19]), "mcnemar");
    assert!(num(&exact[22]) < 0.01, "{}", num(&exact[22]));
    assert!(num(&exact[20]).is_nan());
    assert_eq!(text(&overall("wtkappa")[19]), "Empty");
    let json: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(out.join(format!("output/{cid}_summary.json"))).unwrap(),
    )
    .unwrap();
    let line = json["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["scope"] == "overall" && v["statistic"] == "corr")
        .unwrap();
    assert_eq!(line["cross_check"]["method"], "zou");
    assert_eq!(line["margin"], 0.01);
    // The report: the cross-check column and the regressed levels.
    let html = fs::read_to_string(out.join(format!("report/{cid}_compare.html"))).unwrap();
    let verdicts_section = &html[html.find("<section id=\"verdicts\"").unwrap()..];
    let verdicts_section = &verdicts_section[..verdicts_section.find("</section>").unwrap()];
    assert!(verdicts_section.contains("Zou: ["), "no Zou cell");
    assert!(
        verdicts_section.contains("McNemar: p &lt; 0.001"),
        "no McNemar cell"
    );
    let regressed = &verdicts_section[verdicts_section
        .find("subgroup levels regressed:")
        .expect("no regressed levels in the Verdicts section")..];
    assert!(
        regressed.contains(">grp=a<") && regressed.contains(">wtkappa<"),
        "no regressed level in the Verdicts section"
    );
    assert!(!out.join(format!("report/{cid}_report.html")).exists());
}

/// A folder holding two experiments: each is named `FOLDER#ID` and gives
/// the same verdicts as its own folder; without the id it is refused with
/// the way to name one; `summarize` takes the same names.
#[test]
fn compare_views_folder_hash_id_picks_an_experiment() {
    let tmp = TempDir::new().unwrap();
    let (v1, v2) = two_versions(tmp.path());
    let runs = tmp.path().join("runs");
    common::copy_dir(&v1.join("output"), &runs.join("output"));
    common::copy_dir(&v2.join("output"), &runs.join("output"));
    let (one, both) = (tmp.path().join("one"), tmp.path().join("both"));
    let (a, b) = (
        format!("{}#v1", runs.display()),
        format!("{}#v2", runs.display()),
    );
    ok(&compare_into(tmp.path(), &v1, &v2, &one));
    ok(&compare_into(
        tmp.path(),
        Path::new(&a),
        Path::new(&b),
        &both,
    ));
    let file = "output/engine_v1_vs_engine_v2_compare_verdicts.csv";
    assert_eq!(
        fs::read(one.join(file)).unwrap(),
        fs::read(both.join(file)).unwrap()
    );
    let refused = tmp.path().join("refused");
    let r = compare_into(tmp.path(), &runs, &v2, &refused);
    assert_eq!(r.code, Some(2), "{}", r.describe());
    assert!(
        r.stderr.contains("holds several experiments (v1, v2)")
            && r.stderr.contains("name the one to read as FOLDER#ID"),
        "{}",
        r.stderr
    );
    assert!(!refused.exists());
    let summary = tmp.path().join("summary");
    ok(&run(
        tmp.path(),
        &[
            OsStr::new("summarize"),
            OsStr::new(&a),
            OsStr::new(&b),
            OsStr::new("-o"),
            summary.as_os_str(),
            OsStr::new("--order"),
            OsStr::new("model_version"),
        ],
    ));
    assert!(summary.join("output/versions_summary.csv").is_file());
}

/// A subgroup recorded by the candidate only is compared on its levels;
/// `comparison_id` names the files but not the default folder.
#[test]
fn compare_views_subgroup_of_the_candidate_only() {
    let tmp = TempDir::new().unwrap();
    let (v1, v2) = two_versions(tmp.path());
    // The baseline without its subgroup: no test_metadata column grp.
    let bare = tmp.path().join("bare");
    common::copy_dir(&v1, &bare);
    for e in fs::read_dir(bare.join("output")).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if name.contains("_by_grp") || name.ends_with("_test_metadata.csv") {
            fs::remove_file(&p).unwrap();
        }
    }
    let cfg_path = bare.join("output/v1_rsmeval.json");
    let mut cfg: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&cfg_path).unwrap()).unwrap();
    cfg["subgroups"] = serde_json::json!([]);
    fs::write(&cfg_path, cfg.to_string()).unwrap();
    fs::write(tmp.path().join("cmp.toml"), "comparison_id = \"x\"\n").unwrap();
    let r = run(
        tmp.path(),
        &[
            OsStr::new("compare"),
            bare.as_os_str(),
            v2.as_os_str(),
            OsStr::new("--config"),
            OsStr::new("cmp.toml"),
        ],
    );
    ok(&r);
    let out = tmp.path().join("engine_v1_vs_engine_v2");
    assert!(out.join("output/x_compare_verdicts.csv").is_file());
    let levels: Vec<String> = verdicts(&out)
        .into_iter()
        .map(|(scope, _, _)| scope)
        .filter(|s| s.starts_with("grp="))
        .collect();
    assert!(
        levels.contains(&"grp=a".to_string()) && levels.contains(&"grp=b".to_string()),
        "{levels:?}"
    );
}

/// The preflight's excluded responses by reason, from each side's
/// `test_excluded_composition` (probe-basic excluded a non-numeric system
/// score, a zero and a non-numeric human score).
#[test]
fn compare_views_preflight_counts_the_excluded_responses() {
    let dir = common::local_experiment("probe-basic").join("expected");
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let r = compare_into(tmp.path(), &dir, &dir, &out);
    ok(&r);
    let want = "numeric non-zero human score / non-numeric system score: 1; zero human score / \
                numeric system score: 1; non-numeric human score / numeric system score: 1";
    let pre =
        fs::read_to_string(out.join("output/probe_basic_vs_probe_basic_compare_preflight.csv"))
            .unwrap();
    let line = pre
        .lines()
        .find(|l| l.starts_with("excluded responses,"))
        .unwrap();
    assert_eq!(line, format!("excluded responses,{want},{want},same"));
    // Issue 51, item 7: the terminal folds the long list behind a count
    // (the table keeps every reason).
    let parts: Vec<&str> = want.split("; ").collect();
    let folded = format!("{}; +{} more", parts[0], parts.len() - 1);
    let shown = r
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("excluded responses"))
        .unwrap();
    assert!(shown.ends_with(&format!("{folded} | {folded}")), "{shown}");
    assert!(r.stdout.starts_with("preflight (baseline | candidate):\n"));
}

/// `summarize` of a folder without per-response files: its stored
/// estimates with the intervals its build stored (`eval_ci`), and an
/// rsmeval folder (no `_ci` tables) without intervals.
#[test]
fn compare_views_summarize_takes_stored_intervals() {
    let tmp = TempDir::new().unwrap();
    let (v1, v2) = two_versions(tmp.path());
    let bare = tmp.path().join("bare");
    common::copy_dir(&v2, &bare);
    fs::remove_file(bare.join("output/v2_pred_processed.csv")).unwrap();
    let out = tmp.path().join("sum");
    ok(&summarize_into(tmp.path(), &[&v1, &bare], &out));
    let t = table::read_table(&out.join("output/versions_summary.csv")).unwrap();
    let col = |name: &str| t.header.iter().position(|h| h == name).unwrap();
    let row = &t.rows[1];
    let ci = table::read_table(&v2.join("output/v2_eval_ci.csv")).unwrap();
    let stored = |score: &str, metric: &str, column: usize| -> f64 {
        let r = ci
            .rows
            .iter()
            .find(|r| text(&r[0]) == score && text(&r[1]) == metric)
            .unwrap();
        num(&r[column])
    };
    for (stat, score) in [("wtkappa", "raw_trim"), ("kappa", "raw_trim_round")] {
        assert_eq!(num(&row[col(stat)]), stored(score, stat, 2), "{stat}");
        assert_eq!(
            num(&row[col(&format!("{stat}_lower"))]),
            stored(score, stat, 3)
        );
        assert_eq!(
            num(&row[col(&format!("{stat}_upper"))]),
            stored(score, stat, 4)
        );
    }
    // Intervals stored at another level than the summary's are left out.
    let ci_path = bare.join("output/v2_eval_ci.csv");
    let other = fs::read_to_string(&ci_path)
        .unwrap()
        .replace(",0.95,", ",0.9,");
    fs::write(&ci_path, other).unwrap();
    let out = tmp.path().join("sum90");
    ok(&summarize_into(tmp.path(), &[&v1, &bare], &out));
    let t = table::read_table(&out.join("output/versions_summary.csv")).unwrap();
    assert!(num(&t.rows[1][col("wtkappa_lower")]).is_nan());
    assert!(num(&t.rows[1][col("wtkappa")]).is_finite());
    // An rsmeval folder has no stored intervals.
    let rsmeval = tmp.path().join("rsmeval");
    common::copy_dir(
        &common::local_experiment("sim-h2-groups").join("expected"),
        &rsmeval,
    );
    fs::remove_file(rsmeval.join("output/sim_h2_groups_pred_processed.csv")).unwrap();
    let out = tmp.path().join("sum2");
    ok(&summarize_into(tmp.path(), &[&rsmeval], &out));
    let t = table::read_table(&out.join("output/versions_summary.csv")).unwrap();
    let j = t.header.iter().position(|h| h == "wtkappa_lower").unwrap();
    assert!(num(&t.rows[0][j]).is_nan());
    assert!(num(&t.rows[0][j - 1]).is_finite());
}

/// Without per-response files, a configured score type that a side did not
/// evaluate is refused (spec 5), not compared on fewer rows.
#[test]
fn compare_views_stored_only_score_type_absent_is_refused() {
    let tmp = TempDir::new().unwrap();
    let (v1, v2) = two_versions(tmp.path());
    let bare = tmp.path().join("bare");
    common::copy_dir(&v1, &bare);
    fs::remove_file(bare.join("output/v1_pred_processed.csv")).unwrap();
    fs::write(tmp.path().join("cmp.toml"), "score_type = \"scale_trim\"\n").unwrap();
    let out = tmp.path().join("out");
    let r = run(
        tmp.path(),
        &[
            OsStr::new("compare"),
            bare.as_os_str(),
            v2.as_os_str(),
            OsStr::new("--config"),
            OsStr::new("cmp.toml"),
            OsStr::new("-o"),
            out.as_os_str(),
        ],
    );
    assert_eq!(r.code, Some(2), "{}", r.describe());
    assert!(
        r.stderr
            .contains("the score type scale_trim is not in the baseline's eval table"),
        "{}",
        r.stderr
    );
    assert!(!out.exists());
}

/// Issue 51, item 7: `scale_with` is judged by the scale file's checksum,
/// not its path (two copies of one file at two paths are the same scale);
/// many regressed subgroup levels are counted on one terminal line (each
/// stays in the by-subgroup tables).
#[test]
fn compare_views_scale_file_by_checksum_and_regressed_levels_folded() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let examples = common::manifest_dir().join("examples");
    let (a, b) = (cwd.join("a"), cwd.join("b"));
    common::copy_dir(&examples, &a);
    common::copy_dir(&examples, &b);
    fs::rename(b.join("scale.csv"), b.join("other_scale.csv")).unwrap();
    let exp = fs::read_to_string(b.join("exp.toml")).unwrap();
    assert!(exp.contains("scale_with = \"scale.csv\""));
    fs::write(
        b.join("exp.toml"),
        exp.replace(
            "scale_with = \"scale.csv\"",
            "scale_with = \"other_scale.csv\"",
        ),
    )
    .unwrap();
    let built = |exp: &Path, out: &str| {
        let r = common::build(cwd, exp, &cwd.join(out), &[]);
        assert!(r.code == Some(0) || r.code == Some(3), "{}", r.describe());
        cwd.join(out)
    };
    let (ba, bb) = (
        built(&a.join("exp.toml"), "ba"),
        built(&b.join("exp.toml"), "bb"),
    );
    let out = cwd.join("c1");
    let r = compare_into(cwd, &ba, &bb, &out);
    ok(&r);
    let preflight = |out: &Path| {
        let name = fs::read_dir(out.join("output"))
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().ends_with("_compare_preflight.csv"))
            .unwrap();
        fs::read_to_string(name).unwrap()
    };
    assert!(
        preflight(&out).contains("\nscale_with,scale.csv,other_scale.csv,same\n"),
        "{}",
        preflight(&out)
    );
    let fail = built(&a.join("gates-fail/exp.toml"), "bf");
    let out = cwd.join("c2");
    let r = compare_into(cwd, &ba, &fail, &out);
    assert!(r.code == Some(0) || r.code == Some(3), "{}", r.describe());
    // Another scale file's content: differs, though both are scale.csv.
    assert!(
        preflight(&out).contains("\nscale_with,scale.csv,scale.csv,differs\n"),
        "{}",
        preflight(&out)
    );
    let mut regressed = 0;
    for entry in fs::read_dir(out.join("output")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.contains("_compare_by_") {
            let t = table::read_table(&path).unwrap();
            let v = t.header.iter().position(|h| h == "verdict").unwrap();
            regressed += t.rows.iter().filter(|r| text(&r[v]) == "regressed").count();
        }
    }
    assert!(
        regressed > 5,
        "the example regressed in many levels: {regressed}"
    );
    let line = format!("  regressed in {regressed} subgroup levels (by statistic: ");
    assert!(r.stdout.contains(&line), "{}", r.stdout);
    assert!(!r.stdout.contains(" L1="), "{}", r.stdout);
}
