//! Quality gates end to end (`../shared/spec/gates.md`, README *Quality
//! gates*): a build whose gate of severity `fail` fails exits with 3 and
//! still writes the complete output folder; a build whose gates pass (with
//! warnings) exits with 0; `--gates FILE` on `build` and `check`; the JUnit
//! file read with a real XML parser (`roxmltree`) against the attributes CI
//! systems read; `gates.json` and the `gates` entry of the summary agree
//! with it.
//!
//! The data is the synthetic fixture `sim-h2-groups` (2,000 responses, a
//! second human score, subgroups `L1` and `gender`): QWK 0.625 and
//! correlation 0.632 on `scale_trim`, so the preset's 0.70 fails them.
//!
//! Run with `cargo test --test integration gates`.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tempfile::TempDir;

use crate::common::{self, Run};

const FIXTURE: &str = "sim-h2-groups";
const ID: &str = "sim_h2_groups";

/// The staged fixture with `extra` appended to its `exp.toml` (top-level
/// keys first, then `[[gates]]` tables).
fn stage(tmp: &TempDir, extra: &str) -> PathBuf {
    let exp = common::stage_local_experiment(tmp.path(), FIXTURE);
    let mut text = fs::read_to_string(&exp).unwrap();
    text.push_str(extra);
    fs::write(&exp, text).unwrap();
    exp
}

/// Every file under `dir` (relative path -> bytes).
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    common::list_files(dir)
        .into_iter()
        .map(|p| {
            let bytes = fs::read(dir.join(&p)).unwrap();
            (p, bytes)
        })
        .collect()
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The result lines of `<id>_gates.json`, with its `counts`.
fn gates_json(out: &Path) -> (Vec<Value>, Value) {
    let json = read_json(&out.join("output").join(format!("{ID}_gates.json")));
    assert_eq!(json["gates_version"], 1);
    assert_eq!(json["experiment_id"], ID);
    (
        json["results"].as_array().unwrap().clone(),
        json["counts"].clone(),
    )
}

fn count(results: &[Value], status: &str) -> usize {
    results.iter().filter(|r| r["status"] == status).count()
}

fn attr_usize(node: roxmltree::Node, name: &str) -> usize {
    node.attribute(name)
        .unwrap_or_else(|| panic!("<{}> has no {name} attribute", node.tag_name().name()))
        .parse()
        .unwrap()
}

/// Parses `<id>_gates.xml` and checks it against `results`: the JUnit
/// layout CI systems read (`testsuites` > `testsuite` > `testcase` with
/// `name` and `classname`; `tests`, `failures`, `errors` and `skipped`
/// counts on both containers), one test case per result line in the same
/// order, a `<failure>` exactly for the lines that fail the build and the
/// `nan` lines (gates spec 4), a
/// `<skipped>` exactly for skipped ones, and the reason of a warned line in
/// `<system-out>`.
fn check_junit(out: &Path, results: &[Value]) {
    let path = out.join("output").join(format!("{ID}_gates.xml"));
    let text = fs::read_to_string(&path).unwrap();
    let doc = roxmltree::Document::parse(&text)
        .unwrap_or_else(|e| panic!("{} is not well-formed XML: {e}", path.display()));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let suites: Vec<_> = root.children().filter(|n| n.is_element()).collect();
    assert_eq!(suites.len(), 1, "one <testsuite>");
    let suite = suites[0];
    assert_eq!(suite.tag_name().name(), "testsuite");
    assert!(suite.attribute("name").is_some());

    let failure = |r: &Value| r["fails"] == true || r["status"] == "nan";
    let fails = results.iter().filter(|r| failure(r)).count();
    let skipped = count(results, "skipped");
    for node in [root, suite] {
        assert_eq!(attr_usize(node, "tests"), results.len());
        assert_eq!(attr_usize(node, "failures"), fails);
        assert_eq!(attr_usize(node, "errors"), 0);
        assert_eq!(attr_usize(node, "skipped"), skipped);
    }

    let cases: Vec<_> = suite.children().filter(|n| n.is_element()).collect();
    assert_eq!(cases.len(), results.len(), "one <testcase> per result line");
    // The JSON lists the lines in the order of definition, the JUnit file
    // failures first: pair each test case with its line through the name
    // and the "status: reason" its <system-out> starts with.
    let mut pool: Vec<&Value> = results.iter().collect();
    let mut names = std::collections::BTreeSet::new();
    for case in &cases {
        assert_eq!(case.tag_name().name(), "testcase");
        assert!(case.attribute("classname").is_some_and(|c| !c.is_empty()));
        let name = case.attribute("name").unwrap();
        assert!(names.insert(name.to_string()), "duplicate test case {name}");
        let child = |tag: &str| case.children().find(|n| n.has_tag_name(tag));
        let out = child("system-out").and_then(|n| n.text()).unwrap_or("");
        let at = pool
            .iter()
            .position(|r| {
                name.starts_with(&format!("{} [", r["name"].as_str().unwrap()))
                    && out.starts_with(&format!(
                        "{}: {}",
                        r["status"].as_str().unwrap(),
                        r["reason"].as_str().unwrap()
                    ))
            })
            .unwrap_or_else(|| panic!("no result line for test case {name}: {out}"));
        let result = pool.remove(at);
        assert_eq!(
            child("failure").is_some(),
            failure(result),
            "<failure> of {name}"
        );
        if let Some(f) = child("failure") {
            let message = f.attribute("message").unwrap();
            assert!(message.starts_with(result["reason"].as_str().unwrap()));
        }
        assert_eq!(
            child("skipped").is_some(),
            result["status"] == "skipped",
            "<skipped> of {name}"
        );
    }
    // Failures come first.
    let first_pass = cases
        .iter()
        .position(|c| !c.children().any(|n| n.has_tag_name("failure")))
        .unwrap_or(cases.len());
    assert_eq!(first_pass, fails, "failures are not listed first");
}

fn assert_exit(run: &Run, code: i32) {
    assert!(!run.panicked(), "{}", run.describe());
    assert_eq!(run.code, Some(code), "{}", run.describe());
}

/// Gates that the fixture fails (the preset's QWK and correlation), one
/// that passes on a confidence bound, one warning, one per level.
const FAILING: &str = r#"gates_preset = "williamson2012"

[[gates]]
name = "QWK lower bound above 0.55"
metric = "wtkappa"
op = ">="
threshold = 0.55
bound = "lower"

[[gates]]
name = "PRMSE at least 0.8"
metric = "PRMSE"
op = ">="
threshold = 0.8
severity = "warn"

[[gates]]
name = "worst L1 correlation"
metric = "corr"
scope = "worst:L1"
op = ">="
threshold = 0.3
min_n = 10
"#;

#[test]
fn gates_failing_gate_exits_3_with_complete_output() {
    let tmp = TempDir::new().unwrap();

    // The same experiment without gates: the reference output folder.
    let plain = stage(&tmp, "");
    let plain_out = tmp.path().join("plain");
    assert_exit(&common::build(tmp.path(), &plain, &plain_out, &[]), 0);
    let plain_files = files(&plain_out);

    let exp = stage(&tmp, FAILING);
    let out = tmp.path().join("gated");
    let run = common::build(tmp.path(), &exp, &out, &[]);
    assert_exit(&run, 3);
    for line in [
        "gate FAILED: QWK [overall]: wtkappa = 0.6255 is not >= 0.7",
        "gate FAILED: correlation [overall]: corr = 0.632 is not >= 0.7",
        "gate warning: PRMSE at least 0.8 [overall]",
        "error: a quality gate of severity fail failed",
    ] {
        assert!(run.stderr.contains(line), "no {line:?} in:\n{}", run.stderr);
    }
    assert!(
        !run.stderr.contains("gate FAILED: QWK lower bound"),
        "{}",
        run.stderr
    );

    // Complete: every file of the plain build, the tables byte-identical,
    // plus the two gate files; no temporary folder left.
    let gated = files(&out);
    for (path, bytes) in &plain_files {
        let got = gated
            .get(path)
            .unwrap_or_else(|| panic!("missing {}", path.display()));
        let same_bytes = path.starts_with("report")
            || path.ends_with(format!("{ID}_summary.json"))
            || path.ends_with(format!("{ID}_rsmeval.json"));
        if !same_bytes {
            assert!(got == bytes, "{} differs", path.display());
        }
    }
    let extra: Vec<_> = gated
        .keys()
        .filter(|p| !plain_files.contains_key(*p))
        .collect();
    assert_eq!(
        extra,
        [
            Path::new("output").join(format!("{ID}_gates.json")),
            Path::new("output").join(format!("{ID}_gates.xml")),
        ]
        .iter()
        .collect::<Vec<_>>()
    );
    let leftovers: Vec<_> = fs::read_dir(tmp.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("rsmreport-tmp"))
        .collect();
    assert!(leftovers.is_empty());

    // The result lines: 5 preset gates + DSM for 6 L1 levels (one below
    // min_n = 10) and 2 gender levels, + 3 own gates.
    let (results, counts) = gates_json(&out);
    assert_eq!(results.len(), 5 + 6 + 2 + 3);
    assert_eq!(results[0]["status"], "fail", "failures first");
    let by_name =
        |name: &str| -> Vec<&Value> { results.iter().filter(|r| r["name"] == name).collect() };
    assert_eq!(by_name("QWK")[0]["status"], "fail");
    assert_eq!(by_name("correlation")[0]["status"], "fail");
    let lower = by_name("QWK lower bound above 0.55")[0];
    assert_eq!(lower["status"], "pass");
    assert_eq!(lower["value"], lower["lower"]);
    assert!(lower["lower"].as_f64().unwrap() < lower["estimate"].as_f64().unwrap());
    assert_eq!(by_name("PRMSE at least 0.8")[0]["status"], "warn");
    let worst = by_name("worst L1 correlation");
    assert_eq!(worst.len(), 1);
    assert!(worst[0]["level"].is_string());
    let dsm_l1: Vec<_> = by_name("subgroup differences")
        .into_iter()
        .filter(|r| r["scope"] == "each:L1")
        .collect();
    assert_eq!(dsm_l1.len(), 6);
    assert_eq!(
        count(&dsm_l1.into_iter().cloned().collect::<Vec<_>>(), "skipped"),
        1
    );
    for status in ["pass", "fail", "warn", "skipped", "nan"] {
        assert_eq!(counts[status], count(&results, status), "count of {status}");
    }
    check_junit(&out, &results);

    // The summary says the same.
    let summary = read_json(&out.join("output").join(format!("{ID}_summary.json")));
    assert_eq!(summary["gates"]["passed"], false);
    assert_eq!(summary["gates"]["counts"], counts);

    // The report shows the panel under the header, failures first.
    let html = fs::read_to_string(out.join("report").join(format!("{ID}_report.html"))).unwrap();
    let panel = html
        .find("class=\"report-panel gates\"")
        .expect("gates panel");
    assert!(panel < html.find("class=\"report-section").unwrap());
    assert!(html.contains("gate-status gate-fail"));
    assert!(html.contains("Williamson"));
    let mut ids: Vec<&str> = html
        .split(" id=\"")
        .skip(1)
        .map(|t| &t[..t.find('"').unwrap()])
        .collect();
    let all = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), all, "duplicate element ids in the report");
    assert!(
        !fs::read_to_string(plain_out.join("report").join(format!("{ID}_report.html")))
            .unwrap()
            .contains("class=\"report-panel")
    );
}

#[test]
fn gates_passing_gates_exit_0_with_gates_file() {
    let tmp = TempDir::new().unwrap();
    let exp = stage(&tmp, "");
    fs::write(
        tmp.path().join("gates.toml"),
        r#"[[gates]]
name = "QWK above 0.55 with confidence"
metric = "wtkappa"
op = ">="
threshold = 0.55
bound = "lower"

[[gates]]
metric = "SMD"
op = "abs<="
threshold = 0.15

[[gates]]
metric = "DSM"
scope = "each:gender"
op = "abs<"
threshold = 0.1

[[gates]]
name = "QWK at 0.9 (aspirational)"
metric = "wtkappa"
op = ">="
threshold = 0.9
severity = "warn"
"#,
    )
    .unwrap();

    // `check --gates` lists the gates and their results, exits 0.
    let check = common::run_in(
        tmp.path(),
        [
            OsStr::new("check"),
            exp.as_os_str(),
            OsStr::new("--gates"),
            OsStr::new("gates.toml"),
        ],
    );
    assert_exit(&check, 0);
    for words in [
        "QWK above 0.55 with confidence",
        "QWK at 0.9 (aspirational)",
        "(gates.toml, gates[3])",
        "a build would pass them (exit code 0)",
    ] {
        assert!(check.stdout.contains(words), "{words:?}:\n{}", check.stdout);
    }

    let out = tmp.path().join("out");
    let run = common::build(tmp.path(), &exp, &out, &["--gates", "gates.toml"]);
    assert_exit(&run, 0);
    assert!(run
        .stderr
        .contains("gate warning: QWK at 0.9 (aspirational)"));
    assert!(!run.stderr.contains("gate FAILED"), "{}", run.stderr);

    let (results, _) = gates_json(&out);
    assert_eq!(results.len(), 1 + 1 + 2 + 1);
    assert_eq!(count(&results, "pass"), 4);
    assert_eq!(count(&results, "warn"), 1);
    assert!(results.iter().all(|r| r["fails"] == false));
    check_junit(&out, &results);
    let summary = read_json(&out.join("output").join(format!("{ID}_summary.json")));
    assert_eq!(summary["gates"]["passed"], true);
}

#[test]
fn gates_without_gates_write_no_gate_files() {
    let tmp = TempDir::new().unwrap();
    let exp = stage(&tmp, "");
    let out = tmp.path().join("out");
    assert_exit(&common::build(tmp.path(), &exp, &out, &[]), 0);
    assert!(!out.join("output").join(format!("{ID}_gates.json")).exists());
    assert!(!out.join("output").join(format!("{ID}_gates.xml")).exists());
    let summary = read_json(&out.join("output").join(format!("{ID}_summary.json")));
    assert!(summary["gates"].is_null());
}

#[test]
fn gates_on_an_empty_second_score_column_are_skipped_not_failed() {
    // second_human_score_column is set, but no response has a value in it:
    // the human-human statistics are undefined, which is not a failure.
    let tmp = TempDir::new().unwrap();
    let exp = stage(
        &tmp,
        r#"
[[gates]]
metric = "degradation.wtkappa"
op = ">="
threshold = -0.1

[[gates]]
metric = "hh.wtkappa"
scope = "each:gender"
op = ">="
threshold = 0.5
"#,
    );
    let csv = tmp.path().join("inputs").join("sim_h2_groups.csv");
    let text = fs::read_to_string(&csv).unwrap();
    let blanked: String = text
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let mut cells: Vec<&str> = line.split(',').collect();
            if i > 0 {
                cells[5] = "";
            }
            cells.join(",") + "\n"
        })
        .collect();
    assert!(text.starts_with("id,L1,gender,true_score,h1,h2,system"));
    fs::write(&csv, blanked).unwrap();
    let out = tmp.path().join("out");
    let run = common::build(tmp.path(), &exp, &out, &[]);
    assert_exit(&run, 0);
    let (results, _) = gates_json(&out);
    assert_eq!(results.len(), 1 + 2);
    for r in &results {
        assert_eq!(r["status"], "skipped", "{r}");
        assert!(
            r["reason"]
                .as_str()
                .unwrap()
                .contains("no response has a second human score"),
            "{r}"
        );
    }
}
