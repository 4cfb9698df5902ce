//! `rsmreport spans` end to end against `../shared/spec/fixtures/spans`
//! (seqeval 1.2.2, nervaluate 1.2.1, bratiaa 0.1.4 and the spec's
//! oracle): every case is run through the command and every row of every
//! table of its `expected.json`, every key of `summary_json` and of `data`
//! is compared (counts exactly, other numbers at `1e-12 |e| + 1e-12`,
//! fixture README 4), or skipped by a named rule ([`SKIPPED`]). Pairs are
//! unordered (a row (B, A) stands for (A, B) with `only_1`/`only_2` and
//! `label_1`/`label_2` swapped); long-form rows with count 0 may be left
//! out. The error case must exit with its code naming its file, line and
//! column, with nothing written. Also: the bad inputs of spans.md 9.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{self, table::Cell};

/// Top-level keys of `expected.json` not compared, with the rule why.
const SKIPPED: [(&str, &str); 6] = [
    ("case", "metadata"),
    ("kind", "metadata"),
    ("description", "metadata"),
    ("versions", "metadata"),
    (
        "crosscheck",
        "the oracle's checks of itself against scipy, bratiaa and conlleval.pl (fixture README 5), not outputs",
    ),
    (
        "identities",
        "differences between two expected blocks (spans.md 7), each compared on its own",
    ),
];

/// Also skipped: `informational` (fixture README 5: "Not targets").
const INFORMATIONAL: &str = "informational";

fn close(e: f64, a: f64) -> bool {
    if e.is_nan() || a.is_nan() {
        return e.is_nan() && a.is_nan();
    }
    (a - e).abs() <= 1e-12 * e.abs() + 1e-12
}

fn cell_text(c: &Cell) -> String {
    match c {
        Cell::Text(t) => t.clone(),
        Cell::Num { text: Some(t), .. } => t.clone(),
        Cell::Num { value, .. } => value.to_string(),
        Cell::Empty => String::new(),
    }
}

fn cell_num(c: &Cell) -> f64 {
    match c {
        Cell::Num { value, .. } => *value,
        _ => f64::NAN,
    }
}

type Row = BTreeMap<String, Cell>;

fn read_rows(path: &Path) -> Vec<Row> {
    if !path.exists() {
        return Vec::new();
    }
    let t = common::table::read_table(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    t.rows
        .into_iter()
        .map(|r| t.header.iter().cloned().zip(r).collect())
        .collect()
}

#[derive(Default)]
struct Tally {
    checked: usize,
    failures: Vec<String>,
}

impl Tally {
    fn num(&mut self, what: &str, expected: &Value, actual: f64) {
        self.checked += 1;
        let ok = match expected {
            Value::Number(n) if n.is_i64() || n.is_u64() => n.as_f64() == Some(actual),
            Value::Number(n) => close(n.as_f64().unwrap(), actual),
            Value::String(s) if s == "NaN" => actual.is_nan(),
            _ => false,
        };
        if !ok {
            self.failures
                .push(format!("{what}: expected {expected}, got {actual:?}"));
        }
    }

    fn text(&mut self, what: &str, expected: &str, actual: &str) {
        self.checked += 1;
        if expected != actual {
            self.failures
                .push(format!("{what}: expected {expected:?}, got {actual:?}"));
        }
    }
}

const SWAPS: [(&str, &str); 3] = [
    ("rater_1", "rater_2"),
    ("only_1", "only_2"),
    ("label_1", "label_2"),
];

fn swapped(k: &str) -> &str {
    for (a, b) in SWAPS {
        if k == a {
            return b;
        }
        if k == b {
            return a;
        }
    }
    k
}

/// The actual row matching the expected row's text keys (pairs either
/// way round), and whether it was found swapped.
fn find<'a>(actual: &'a [Row], e: &serde_json::Map<String, Value>) -> Option<(&'a Row, bool)> {
    let keys: Vec<(&String, &str)> = e
        .iter()
        .filter_map(|(k, v)| v.as_str().filter(|s| *s != "NaN").map(|s| (k, s)))
        .collect();
    for swap in [false, true] {
        let hit = actual.iter().find(|r| {
            keys.iter().all(|(k, v)| {
                let k = if swap { swapped(k) } else { k.as_str() };
                r.get(k).map(cell_text).as_deref() == Some(*v)
            })
        });
        if let Some(r) = hit {
            return Some((r, swap));
        }
    }
    None
}

fn check_table(case: &str, out: &Path, name: &str, rows: &[Value], t: &mut Tally) {
    let actual = read_rows(&out.join(format!("output/case_{name}.csv")));
    if name == "span_agreement_by_document" {
        let e: Vec<&str> = rows
            .iter()
            .map(|r| r["document"].as_str().unwrap())
            .collect();
        let a: Vec<String> = actual.iter().map(|r| cell_text(&r["document"])).collect();
        t.text(&format!("{case} {name} order"), &e.join(","), &a.join(","));
    }
    for r in rows {
        let e = r.as_object().unwrap();
        let Some((row, swap)) = find(&actual, e) else {
            if e.get("count").and_then(Value::as_i64) == Some(0) {
                continue;
            }
            t.failures.push(format!("{case} {name}: no row like {r}"));
            continue;
        };
        for (k, v) in e {
            if v.is_null() || (v.is_string() && v != "NaN") {
                continue;
            }
            let col = if swap { swapped(k) } else { k.as_str() };
            let cell = row
                .get(col)
                .unwrap_or_else(|| panic!("{case} {name}: no column {col}"));
            t.num(&format!("{case} {name} {r} {k}"), v, cell_num(cell));
        }
    }
}

/// Every key of `expected` found in `actual` with the same value.
fn check_json(what: &str, expected: &Value, actual: &Value, t: &mut Tally) {
    match expected {
        Value::Object(m) => {
            for (k, v) in m {
                match actual.get(k) {
                    Some(a) => check_json(&format!("{what}.{k}"), v, a, t),
                    None => t.failures.push(format!("{what}.{k}: missing")),
                }
            }
        }
        Value::Array(v) => {
            let a = actual.as_array().cloned().unwrap_or_default();
            t.text(
                &format!("{what} length"),
                &v.len().to_string(),
                &a.len().to_string(),
            );
            for (i, (x, y)) in v.iter().zip(&a).enumerate() {
                check_json(&format!("{what}[{i}]"), x, y, t);
            }
        }
        Value::String(s) if s != "NaN" => t.text(what, s, actual.as_str().unwrap_or("(not text)")),
        Value::Bool(b) => t.text(what, &b.to_string(), &actual.to_string()),
        _ => t.num(what, expected, actual.as_f64().unwrap_or(f64::NAN)),
    }
}

/// Writes the experiment file of a case (case.toml minus the fixture keys,
/// plus the id and absolute input paths) and runs the command.
fn run_case(case: &Path, work: &Path) -> (PathBuf, common::Run) {
    let toml = fs::read_to_string(case.join("case.toml")).unwrap();
    let value: toml::Table = toml.parse().unwrap();
    let mut kept = toml::Table::new();
    kept.insert("experiment_id".into(), "case".into());
    let input = case.join(value["input"].as_str().unwrap());
    kept.insert("input_file".into(), input.display().to_string().into());
    for (k, v) in value {
        match k.as_str() {
            "kind" | "description" | "input" => {}
            "documents_file" => {
                let p = case.join(v.as_str().unwrap());
                kept.insert(k, p.display().to_string().into());
            }
            _ => {
                kept.insert(k, v);
            }
        }
    }
    let exp = work.join("exp.toml");
    fs::write(&exp, toml::to_string(&kept).unwrap()).unwrap();
    let out = work.join("out");
    let run = common::run_in(
        work,
        [
            "spans".as_ref(),
            exp.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ],
    );
    (out, run)
}

fn fixtures() -> Option<PathBuf> {
    let dir = common::shared_fixtures_path().join("spans");
    if dir.join("index.json").is_file() {
        Some(dir)
    } else {
        println!(
            "spans: {} missing, the fixture cases are skipped",
            dir.display()
        );
        None
    }
}

#[test]
fn spans_reproduces_every_fixture_value() {
    let Some(dir) = fixtures() else { return };
    let index: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("index.json")).unwrap()).unwrap();
    let mut t = Tally::default();
    let mut n_cases = 0;
    for c in index["cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let case = dir.join(name);
        let e: Value =
            serde_json::from_str(&fs::read_to_string(case.join("expected.json")).unwrap()).unwrap();
        let work = tempfile::tempdir().unwrap();
        let (out, run) = run_case(&case, work.path());
        n_cases += 1;
        for key in e.as_object().unwrap().keys() {
            let known = SKIPPED.iter().any(|s| s.0 == key)
                || key == INFORMATIONAL
                || ["expect_error", "data", "tables", "summary_json"].contains(&key.as_str());
            assert!(
                known,
                "{name}: key {key} neither compared nor skipped by a rule"
            );
        }
        if let Some(err) = e.get("expect_error") {
            let code = err["exit_code"].as_i64().unwrap() as i32;
            assert_eq!(run.code, Some(code), "{name}: {}", run.all_text());
            for m in err["mentions"].as_array().unwrap() {
                let m = m.as_str().unwrap();
                assert!(
                    run.all_text().contains(m),
                    "{name}: {m} not in {}",
                    run.all_text()
                );
            }
            assert!(!out.exists(), "{name}: an output folder was written");
            continue;
        }
        assert!(run.success, "{name}: {}", run.all_text());
        for (table, rows) in e["tables"].as_object().unwrap() {
            check_table(name, &out, table, rows.as_array().unwrap(), &mut t);
        }
        let summary: Value = serde_json::from_str(
            &fs::read_to_string(out.join("output/case_summary.json")).unwrap(),
        )
        .unwrap();
        check_json(
            &format!("{name} summary"),
            &e["summary_json"],
            &summary,
            &mut t,
        );
        check_json(
            &format!("{name} data"),
            &e["data"],
            &summary["data"],
            &mut t,
        );
    }
    assert!(n_cases >= 12, "{n_cases} cases");
    assert!(
        t.failures.is_empty(),
        "{} of {} values differ:\n{}",
        t.failures.len(),
        t.checked,
        t.failures.join("\n")
    );
    println!("spans: {n_cases} cases, {} values compared", t.checked);
}
