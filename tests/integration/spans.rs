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

    /// Fails listing every difference, else prints how many values of
    /// how many cases were compared.
    fn finish(self, what: &str, n_cases: usize) {
        assert!(
            self.failures.is_empty(),
            "{} of {} values differ:\n{}",
            self.failures.len(),
            self.checked,
            self.failures.join("\n")
        );
        println!("{what}: {n_cases} cases, {} values compared", self.checked);
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

/// A case's experiment file: its input is the span file, its documents
/// file a path of the case (`common::run_fixture_case`).
fn run_case(case: &Path, work: &Path) -> (PathBuf, common::Run) {
    let c = common::FixtureCase {
        command: "spans",
        input_key: "input_file",
        path_keys: &["documents_file"],
        extra: "",
    };
    common::run_fixture_case(&c, case, work)
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
    t.finish("spans", n_cases);
}

// ---------------------------------------------------------------------------
// seqeval 1.2.2's conventions (spans.md 10) against tests/fixtures/peers/spans
// (made by running seqeval: tests/fixtures/peers/make_peer_fixtures.py, whose
// README.md says how expected.json is laid out).

/// Top-level keys of a peer case's `expected.json` not compared as such,
/// with the rule why.
const PEER_SKIPPED: [(&str, &str); 6] = [
    ("case", "metadata"),
    ("kind", "metadata"),
    ("description", "metadata"),
    ("versions", "metadata"),
    (
        "settings",
        "the case.toml keys echoed, and seqeval's class of the scheme: inputs, not outputs",
    ),
    (
        "crosscheck",
        "the generator's check of seqeval against itself (suffix = prefix form), not an output",
    ),
];

/// The peer case's decoded entities (`entities.<annotator>.<mode>`, one
/// list per sentence; every sentence is a document) against what
/// rsmreport counts of them: the headline reading's distinct spans per
/// label in `label_distribution`, the other reading's in `system_scores`
/// (`predicted` of a system, `support` of the reference).
fn check_entities(name: &str, out: &Path, e: &Value, repair: &str, t: &mut Tally) {
    let headline = if repair == "discard" {
        "strict"
    } else {
        "default"
    };
    let dist = read_rows(&out.join("output/case_label_distribution.csv"));
    let scores = read_rows(&out.join("output/case_system_scores.csv"));
    let reference = e["data"]["reference"].as_str().unwrap();
    for (ann, modes) in e["entities"].as_object().unwrap() {
        for (mode, sentences) in modes.as_object().unwrap() {
            if mode.ends_with("_error") {
                continue;
            }
            let mut counts: BTreeMap<String, std::collections::BTreeSet<(usize, i64, i64)>> =
                BTreeMap::new();
            for (k, sent) in sentences.as_array().unwrap().iter().enumerate() {
                for ent in sent.as_array().unwrap() {
                    let label = ent[0].as_str().unwrap().to_string();
                    let (b, x) = (ent[1].as_i64().unwrap(), ent[2].as_i64().unwrap());
                    counts.entry(label).or_default().insert((k, b, x));
                }
            }
            for (label, set) in &counts {
                let what = format!("{name} entities {ann} {mode} {label}");
                let n = set.len() as f64;
                if mode == headline {
                    let row = dist.iter().find(|r| {
                        cell_text(&r["annotator"]) == *ann && cell_text(&r["label"]) == *label
                    });
                    t.num(
                        &what,
                        &Value::from(n),
                        row.map_or(f64::NAN, |r| cell_num(&r["count"])),
                    );
                } else {
                    let (sys, col) = if ann == reference {
                        (None, "support")
                    } else {
                        (Some(ann.as_str()), "predicted")
                    };
                    let row = scores.iter().find(|r| {
                        sys.is_none_or(|s| cell_text(&r["system"]) == s)
                            && cell_text(&r["mode"]) == *mode
                            && cell_text(&r["label"]) == *label
                    });
                    // The reference's strict reading is seen only through a
                    // system with strict rows.
                    if row.is_some() || sys.is_some() {
                        t.num(
                            &what,
                            &Value::from(n),
                            row.map_or(f64::NAN, |r| cell_num(&r[col])),
                        );
                    }
                }
            }
        }
    }
}

/// A system seqeval's strict mode refuses has no strict rows, and the
/// terminal says so.
fn check_refused(name: &str, out: &Path, e: &Value, run: &common::Run, t: &mut Tally) {
    let scores = read_rows(&out.join("output/case_system_scores.csv"));
    for (sys, modes) in e["refused"].as_object().unwrap() {
        assert!(
            modes.get("default").is_none(),
            "{name}: seqeval refuses default mode"
        );
        let strict_rows = scores
            .iter()
            .filter(|r| cell_text(&r["system"]) == *sys && cell_text(&r["mode"]) == "strict")
            .count();
        t.text(
            &format!("{name} {sys} strict rows"),
            "0",
            &strict_rows.to_string(),
        );
        let warning = format!("warning: seqeval's strict mode refuses a tag of {sys} (");
        t.checked += 1;
        if !run.stderr.contains(&warning) {
            t.failures
                .push(format!("{name}: no {warning:?} in {}", run.stderr));
        }
    }
}

#[test]
fn spans_matches_seqeval_on_the_peer_fixtures() {
    let dir = common::local_fixtures().join("peers/spans");
    let mut cases: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expected.json").is_file())
        .collect();
    cases.sort();
    let mut t = Tally::default();
    for case in &cases {
        let name = case.file_name().unwrap().to_str().unwrap();
        let e: Value =
            serde_json::from_str(&fs::read_to_string(case.join("expected.json")).unwrap()).unwrap();
        for key in e.as_object().unwrap().keys() {
            let known = PEER_SKIPPED.iter().any(|s| s.0 == key)
                || ["expect_error", "data", "tables", "entities", "refused"]
                    .contains(&key.as_str());
            assert!(
                known,
                "{name}: key {key} neither compared nor skipped by a rule"
            );
        }
        let work = tempfile::tempdir().unwrap();
        let (out, run) = run_case(case, work.path());
        if let Some(err) = e.get("expect_error") {
            let code = err["exit_code"].as_i64().unwrap() as i32;
            assert_eq!(run.code, Some(code), "{name}: {}", run.all_text());
            for m in err["mentions"].as_array().unwrap() {
                let m = m.as_str().unwrap();
                assert!(run.stderr.contains(m), "{name}: {m} not in {}", run.stderr);
            }
            assert!(!out.exists(), "{name}: an output folder was written");
            continue;
        }
        assert!(run.success, "{name}: {}", run.all_text());
        for (table, rows) in e["tables"].as_object().unwrap() {
            let rows = rows.as_array().unwrap();
            check_table(name, &out, table, rows, &mut t);
            let actual = read_rows(&out.join(format!("output/case_{table}.csv")));
            t.text(
                &format!("{name} {table} rows"),
                &rows.len().to_string(),
                &actual.len().to_string(),
            );
        }
        let mut summary: Value = serde_json::from_str(
            &fs::read_to_string(out.join("output/case_summary.json")).unwrap(),
        )
        .unwrap();
        // The input's path as the case names it.
        let reference = summary["reference"].clone();
        let data = &mut summary["data"];
        for first in data["unknown_tags"].as_object_mut().unwrap().values_mut() {
            let f = &mut first["first"]["file"];
            let base = Path::new(f.as_str().unwrap()).file_name().unwrap();
            *f = Value::from(base.to_str().unwrap());
        }
        data["reference"] = reference;
        check_json(
            &format!("{name} data"),
            &e["data"],
            &summary["data"],
            &mut t,
        );
        let repair = e["settings"]["repair"].as_str().unwrap();
        check_entities(name, &out, &e, repair, &mut t);
        check_refused(name, &out, &e, &run, &mut t);
    }
    assert!(cases.len() >= 14, "{} cases", cases.len());
    t.finish("spans peers", cases.len());
}

// ---------------------------------------------------------------------------
// Bad input (spans.md 9; docs/errors.md, section "spans"): each a clear
// error naming the file, line, column or key, with its exit code, and
// nothing written.

const SPANS_CSV: &str = "document,annotator,start,end,label,text
d1,a,0,4,PER,John
d1,b,0,4,PER,John
d2,a,,,,
d2,b,7,12,LOC,Paris
";

const DOCS_CSV: &str = "document,text
d1,John went home.
d2,He saw Paris.
";

const EXP: &str = "experiment_id = \"e\"
input_file = \"s.csv\"
documents_file = \"docs.csv\"
document_text_column = \"text\"
text_column = \"text\"
";

/// Runs `spans` on `files` (name, content) with the experiment `exp`.
fn spans_with(files: &[(&str, &str)], exp: &str) -> (tempfile::TempDir, common::Run) {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in files {
        fs::write(dir.path().join(name), content).unwrap();
    }
    fs::write(dir.path().join("exp.toml"), exp).unwrap();
    let run = common::run_in(dir.path(), ["spans", "exp.toml", "-o", "out"]);
    (dir, run)
}

fn refused(files: &[(&str, &str)], exp: &str, code: i32, needles: &[&str]) {
    let (dir, run) = spans_with(files, exp);
    assert_eq!(run.code, Some(code), "{}", run.describe());
    assert!(!run.panicked(), "{}", run.describe());
    for n in needles {
        assert!(
            run.stderr.contains(n),
            "missing {n:?} in {}",
            run.describe()
        );
    }
    assert!(!dir.path().join("out").exists(), "something was written");
}

fn table_files(spans: &str) -> Vec<(&'static str, String)> {
    vec![
        ("s.csv", spans.to_string()),
        ("docs.csv", DOCS_CSV.to_string()),
    ]
}

fn refused_table(spans: &str, extra: &str, code: i32, needles: &[&str]) {
    let files = table_files(spans);
    let files: Vec<(&str, &str)> = files.iter().map(|(n, c)| (*n, c.as_str())).collect();
    refused(&files, &format!("{EXP}{extra}"), code, needles);
}

#[test]
fn spans_the_small_table_runs() {
    let files = table_files(SPANS_CSV);
    let files: Vec<(&str, &str)> = files.iter().map(|(n, c)| (*n, c.as_str())).collect();
    let (dir, run) = spans_with(&files, EXP);
    assert!(run.success, "{}", run.describe());
    let rows = read_rows(&dir.path().join("out/output/e_span_agreement.csv"));
    // d1: both PER [0,4); d2: a marked nothing, b marked Paris: 1 of 3.
    assert_eq!(cell_num(&rows[0]["mean_pairwise_f1"]), 2.0 / 3.0);
    assert_eq!(cell_num(&rows[0]["matched"]), 1.0);
    assert_eq!(cell_num(&rows[0]["unmatched"]), 1.0);
}

#[test]
fn spans_refuses_bad_experiment_files_before_reading_data() {
    let cases: [(&str, &[&str]); 10] = [
        ("formt = \"table\"\n", &["formt", "format"]),
        ("format = \"conl\"\n", &["format", "did you mean \"conll\""]),
        ("scheme = \"bilu\"\n", &["scheme", "did you mean \"bilou\""]),
        (
            "repair = \"discards\"\n",
            &["repair", "did you mean \"discard\""],
        ),
        ("coverage = \"al\"\n", &["coverage", "did you mean \"all\""]),
        ("min_overlap = 0\n", &["min_overlap", "(0, 1]"]),
        (
            "nervaluate_min_overlap_percentage = 101\n",
            &["nervaluate_min_overlap_percentage", "[1, 100]"],
        ),
        ("annotators = [\"a\"]\n", &["annotators", "at least two"]),
        (
            "annotators = [\"a\", \"b\"]\nreference = \"c\"\n",
            &["reference", "not among the annotators"],
        ),
        (
            "annotators = [\"a\", \"b\", \"c\"]\nreference = \"a\"\nbaseline = \"x\"\n",
            &["baseline", "not among the annotators"],
        ),
    ];
    for (extra, needles) in cases {
        // A broken data file proves the data is never read.
        refused_table("not,a,span,table\n", extra, 2, needles);
    }
}

#[test]
fn spans_refuses_bad_span_tables_naming_file_line_and_column() {
    let with = |row: &str| format!("{SPANS_CSV}{row}\n");
    refused_table(
        "document,annotator,begin,end,label\nd1,a,0,4,PER\n",
        "",
        1,
        &[
            "s.csv",
            "'start'",
            "its columns are document, annotator, begin, end, label",
        ],
    );
    refused_table(
        &with("d1,a,x,4,PER,"),
        "",
        1,
        &["s.csv line 6", "'start'", "non-negative integer"],
    );
    refused_table(
        &with("d1,a,-1,4,PER,"),
        "",
        1,
        &["s.csv line 6", "non-negative integer"],
    );
    refused_table(
        &with("d1,a,5,4,PER,"),
        "",
        1,
        &["s.csv line 6", "start 5 is after end 4"],
    );
    refused_table(&with("d1,a,4,4,PER,"), "", 1, &["s.csv line 6", "empty"]);
    refused_table(
        &with("d1,a,10,40,PER,"),
        "",
        1,
        &["s.csv line 6, column 'end'", "beyond the text", "d1"],
    );
    refused_table(
        &with("d1,a,0,4,PER,Jane"),
        "",
        1,
        &["s.csv line 6", "'text'", "Jane", "John"],
    );
    refused_table(
        &with("d1,a,0,,PER,"),
        "",
        1,
        &["s.csv line 6", "all filled"],
    );
    refused_table(
        &with("d9,a,0,4,PER,"),
        "",
        1,
        &["s.csv line 6", "d9", "not in the documents file"],
    );
    refused_table(
        SPANS_CSV,
        "reference = \"gold\"\n",
        1,
        &["reference \"gold\"", "a, b"],
    );
    let one = "document,annotator,start,end,label,text\nd1,a,0,4,PER,John\n";
    refused_table(one, "", 1, &["1 annotator", "at least two"]);
    let docs = "document,text\nd1,John went home.\nd1,Another text.\n";
    refused(
        &[("s.csv", SPANS_CSV), ("docs.csv", docs)],
        EXP,
        1,
        &["docs.csv line 3", "two different texts"],
    );
}

#[test]
fn spans_refuses_bad_prodigy_lines() {
    let exp = "experiment_id = \"e\"\ninput_file = \"a.jsonl\"\nformat = \"prodigy\"\n";
    let line = |ann: &str, spans: &str| {
        format!("{{\"text\": \"John went home.\", \"_input_hash\": 7, \"_annotator_id\": \"{ann}\", \"answer\": \"accept\", \"spans\": [{spans}]}}\n")
    };
    let ok = line("a", "{\"start\": 0, \"end\": 4, \"label\": \"PER\"}");
    let twice = format!("{ok}{ok}{}", line("b", ""));
    refused(&[("a.jsonl", &twice)], exp, 1, &["a.jsonl line 2", "twice"]);
    let text = format!(
        "{ok}{}",
        line(
            "b",
            "{\"start\": 0, \"end\": 4, \"label\": \"PER\", \"text\": \"Jane\"}"
        )
    );
    refused(
        &[("a.jsonl", &text)],
        exp,
        1,
        &["a.jsonl line 2", "'text'", "Jane"],
    );
    let beyond = format!(
        "{ok}{}",
        line("b", "{\"start\": 0, \"end\": 40, \"label\": \"PER\"}")
    );
    refused(
        &[("a.jsonl", &beyond)],
        exp,
        1,
        &["a.jsonl line 2, key 'end'", "beyond the text"],
    );
    let neg = format!(
        "{ok}{}",
        line("b", "{\"start\": -1, \"end\": 4, \"label\": \"PER\"}")
    );
    refused(
        &[("a.jsonl", &neg)],
        exp,
        1,
        &["a.jsonl line 2", "'start'", "non-negative integer"],
    );
    let two_texts = format!(
        "{ok}{}",
        line("b", "").replace("John went home.", "Other text.")
    );
    refused(
        &[("a.jsonl", &two_texts)],
        exp,
        1,
        &["a.jsonl line 2", "two different texts"],
    );
}

#[test]
fn spans_refuses_bad_tags() {
    let exp = "experiment_id = \"e\"\ninput_file = \"t.conll\"\nformat = \"conll\"\ncolumns = [\"token\", \"gold\", \"sys\"]\nannotators = [\"gold\", \"sys\"]\nreference = \"gold\"\n";
    let conll = "John B-PER B-PER\nSmith I-PER PER\n\n";
    refused(
        &[("t.conll", conll)],
        exp,
        1,
        &["t.conll line 2", "'sys'", "malformed", "PER"],
    );
    let ill = "John O I-PER\nSmith O O\n\n";
    let err = format!("{exp}repair = \"error\"\n");
    refused(
        &[("t.conll", ill)],
        &err,
        1,
        &["t.conll line 1", "'sys'", "(start) -> I-PER"],
    );
    let outside = "John O S-PER\n\n";
    refused(
        &[("t.conll", outside)],
        &err,
        1,
        &["t.conll line 1", "'sys'", "outside the scheme bio"],
    );
    let discard = format!("{exp}repair = \"discard\"\n");
    refused(
        &[("t.conll", outside)],
        &discard,
        1,
        &[
            "t.conll line 1, column 'sys': prefix outside the scheme bio: S-PER; seqeval's strict mode (repair = \"discard\") refuses it",
        ],
    );
    let jsonl = "{\"gold\": [\"B-PER\", \"O\"], \"sys\": [\"B-PER\"]}\n";
    let exp_j = "experiment_id = \"e\"\ninput_file = \"t.jsonl\"\nformat = \"bio_jsonl\"\nannotators = [\"gold\", \"sys\"]\n";
    refused(
        &[("t.jsonl", jsonl)],
        exp_j,
        1,
        &["t.jsonl line 1", "'sys'", "1 tags"],
    );
    // begin (the default) reads the same ill-formed file, counting.
    let (dir, run) = spans_with(&[("t.conll", ill)], exp);
    assert!(run.success, "{}", run.describe());
    let p = read_rows(&dir.path().join("out/output/e_annotator_profiles.csv"));
    assert_eq!(cell_num(&p[1]["n_invalid_transitions"]), 1.0);
}

// ---------------------------------------------------------------------------
// issue 50's defects, each with its exact message or number.

/// `annotator_column = "who"` names the span table's column; a documents
/// file without it is read (everyone covers every document, spec 2).
#[test]
fn spans_documents_file_without_the_annotator_column_is_read() {
    let s = "document,who,start,end,label\nd1,a,0,4,PER\nd1,b,0,4,PER\nd2,b,7,12,LOC\n";
    let exp = "experiment_id = \"e\"\ninput_file = \"s.csv\"\ndocuments_file = \"docs.csv\"\nannotator_column = \"who\"\n";
    let (dir, run) = spans_with(&[("s.csv", s), ("docs.csv", DOCS_CSV)], exp);
    assert!(run.success, "{}", run.describe());
    let p = read_rows(&dir.path().join("out/output/e_annotator_profiles.csv"));
    // a covers d2 (it has no row there): 2 documents, none missing.
    assert_eq!(cell_text(&p[0]["annotator"]), "a");
    assert_eq!(cell_num(&p[0]["n_documents"]), 2.0);
    assert_eq!(cell_num(&p[0]["n_documents_missing"]), 0.0);
}

/// `system_scores_by_<g>.n_documents` counts the level's documents that
/// the system and the reference both cover (spec 4.1, 11).
#[test]
fn spans_system_scores_by_subgroup_count_the_documents_both_cover() {
    let docs = "document,annotator,genre
d1,gold,news
d1,sysA,news
d1,sysB,news
d2,gold,news
d2,sysA,news
d3,gold,blog
d3,sysB,blog
d4,sysA,blog
";
    let s = "document,annotator,start,end,label
d1,gold,0,2,X
d1,sysA,0,2,X
d1,sysB,0,2,X
d2,gold,0,2,X
d2,sysA,1,2,X
d3,gold,0,2,X
d3,sysB,0,2,X
d4,sysA,0,2,X
";
    let exp = "experiment_id = \"e\"\ninput_file = \"s.csv\"\ndocuments_file = \"docs.csv\"\nsubgroups = [\"genre\"]\nreference = \"gold\"\n";
    let (dir, run) = spans_with(&[("s.csv", s), ("docs.csv", docs)], exp);
    assert!(run.success, "{}", run.describe());
    let rows = read_rows(&dir.path().join("out/output/e_system_scores_by_genre.csv"));
    let got: Vec<(String, String, f64, f64)> = rows
        .iter()
        .map(|r| {
            (
                cell_text(&r["system"]),
                cell_text(&r["genre"]),
                cell_num(&r["n_documents"]),
                cell_num(&r["support"]),
            )
        })
        .collect();
    let row = |s: &str, g: &str, n: f64, support: f64| (s.to_string(), g.to_string(), n, support);
    assert_eq!(
        got,
        [
            row("sysA", "blog", 0.0, 0.0),
            row("sysB", "blog", 1.0, 1.0),
            row("sysA", "news", 2.0, 2.0),
            row("sysB", "news", 1.0, 1.0),
        ]
    );
}

/// Strict rows left out are a terminal warning too, not only a note in
/// the report.
#[test]
fn spans_terminal_warns_when_strict_rows_are_left_out() {
    let exp = "experiment_id = \"e\"\ninput_file = \"t.conll\"\nformat = \"conll\"\ncolumns = [\"token\", \"gold\", \"sys\"]\nannotators = [\"gold\", \"sys\"]\nreference = \"gold\"\n";
    let conll = "John B-PER S-PER\nSmith I-PER O\n\n";
    let (dir, run) = spans_with(&[("t.conll", conll)], exp);
    assert!(run.success, "{}", run.describe());
    assert!(
        run.stderr.contains(
            "warning: seqeval's strict mode refuses a tag of sys (a prefix outside the scheme bio): no strict rows\n"
        ),
        "{}",
        run.describe()
    );
    let rows = read_rows(&dir.path().join("out/output/e_system_scores.csv"));
    assert!(rows.iter().all(|r| cell_text(&r["mode"]) == "default"));
}

#[test]
fn spans_degenerate_data_give_nan_not_a_panic() {
    // Nothing marked anywhere, one document.
    let s = "document,annotator,start,end,label\nd1,a,,,\nd1,b,,,\n";
    let (dir, run) = spans_with(
        &[("s.csv", s)],
        "experiment_id = \"e\"\ninput_file = \"s.csv\"\nreference = \"a\"\n",
    );
    assert!(run.success, "{}", run.describe());
    let rows = read_rows(&dir.path().join("out/output/e_span_agreement.csv"));
    assert!(cell_num(&rows[0]["mean_pairwise_f1"]).is_nan());
    assert_eq!(cell_num(&rows[0]["n_pairs_undefined"]), 1.0);
}

// ---------------------------------------------------------------------------
// The example, the browser, escaping, gates, determinism.

fn example() -> PathBuf {
    common::manifest_dir().join("examples/spans/exp.toml")
}

/// The README's example runs (its gates pass), and its report opens in
/// headless Chromium (skipped without Chromium) with the first screen's
/// answer.
#[test]
fn spans_example_runs_and_renders_in_the_browser() {
    let tmp = tempfile::TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let run = common::run_in(
        tmp.path(),
        [
            "spans".as_ref(),
            example().as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ],
    );
    assert!(run.success, "{}", run.describe());
    assert!(
        run.stdout.contains("mean pairwise strict F1"),
        "{}",
        run.describe()
    );
    assert!(
        run.stdout.contains("tagger_v2 vs tagger_v1: micro_f1"),
        "{}",
        run.describe()
    );
    let report = out.join("report/news_ner_report.html");
    let html = fs::read_to_string(&report).unwrap();
    assert!(html.contains("positive specific agreement"));
    assert!(html.contains("nervaluate 1.2.1, reproduced with its quirks"));
    for t in [
        "system_comparisons",
        "nervaluate",
        "span_agreement_by_genre",
        "system_scores_by_genre",
    ] {
        assert!(
            out.join(format!("output/news_ner_{t}.csv")).is_file(),
            "{t}"
        );
    }
    example_figures(&out, &html);
    let Some(text) =
        crate::report::renders_in_chromium(&report, &tmp.path().join("profile"), "spans")
    else {
        return;
    };
    assert!(
        text.contains("Agreement between annotators")
            && text.contains("Systems against the reference")
            && text.contains("Labels of matched spans")
            && text.contains("Boundaries of matched spans")
    );
}

/// The type-confusion heat maps and the boundary bars of the example (spec
/// 6) are in the report after the per-type table, before the worst
/// documents, and show the numbers of their tables: with `systems`, each
/// pair of human annotators' kappa and matched count of `type_agreement`
/// (overlap_any), its differing boundaries of `boundary_disagreements`.
fn example_figures(out: &Path, html: &str) {
    let at = |needle: &str| {
        html.find(needle)
            .unwrap_or_else(|| panic!("{needle} not in the report"))
    };
    let by_type = at("id=\"table-span-agreement-by-type\"");
    let confusion = at("id=\"figure-span-type-confusion\"");
    let bars = at("id=\"figure-span-boundary-disagreements\"");
    assert!(by_type < confusion && confusion < bars && bars < at("id=\"documents\""));
    let svg =
        |name: &str| fs::read_to_string(out.join(format!("figure/news_ner_{name}.svg"))).unwrap();
    let (confusion, bars) = (
        svg("span_type_confusion"),
        svg("span_boundary_disagreements"),
    );
    let agreement = read_rows(&out.join("output/news_ner_type_agreement.csv"));
    let boundaries = read_rows(&out.join("output/news_ner_boundary_disagreements.csv"));
    let mut checked = 0;
    for r in agreement
        .iter()
        .filter(|r| cell_text(&r["matched_by"]) == "overlap_any")
    {
        let (r1, r2) = (cell_text(&r["rater_1"]), cell_text(&r["rater_2"]));
        let system = format!("{r1} × {r2}");
        assert!(confusion.contains(&system), "{system}");
        let kappa = format!("Cohen&apos;s kappa {:.3}", cell_num(&r["cohen_kappa"]));
        assert!(confusion.contains(&kappa), "{system}: {kappa}");
        let n = format!("{} matched,", cell_num(&r["n_matched"]));
        assert!(confusion.contains(&n), "{system}: {n}");
        let b = boundaries
            .iter()
            .find(|b| cell_text(&b["rater_1"]) == r1 && cell_text(&b["rater_2"]) == r2)
            .unwrap();
        let differ: f64 = ["start_only", "end_only", "containment", "crossing"]
            .iter()
            .map(|k| cell_num(&b[*k]))
            .sum();
        let note = format!("{differ} of {} differ", cell_num(&b["matched"]));
        assert!(bars.contains(&note), "{system}: {note}");
        checked += 1;
    }
    // The three pairs of human annotators; neither gold nor a tagger.
    assert_eq!(checked, 3);
    for other in ["gold", "tagger_v1", "tagger_v2"] {
        assert!(
            !confusion.contains(other) && !bars.contains(other),
            "{other}"
        );
    }
}

/// Every string of the data that reaches the report is escaped.
#[test]
fn spans_escapes_labels_names_and_text() {
    let s = "document,annotator,start,end,label\n<d>,<a>,0,3,<b>X\n<d>,b&c,0,3,<b>X\n";
    let docs = "document,text\n<d>,<i>x</i> y\n";
    let exp = "experiment_id = \"e\"\ninput_file = \"s.csv\"\ndocuments_file = \"docs.csv\"\ndocument_text_column = \"text\"\n";
    let (dir, run) = spans_with(&[("s.csv", s), ("docs.csv", docs)], exp);
    assert!(run.success, "{}", run.describe());
    let html = fs::read_to_string(dir.path().join("out/report/e_report.html")).unwrap();
    for raw in ["<b>X", "<a>", "<d>", "<i>x"] {
        assert!(!html.contains(raw), "{raw} unescaped");
    }
    assert!(html.contains("&lt;b&gt;X"));
    // The type-confusion and boundary figures name the label and the pair.
    for name in ["span_type_confusion", "span_boundary_disagreements"] {
        let svg = fs::read_to_string(dir.path().join(format!("out/figure/e_{name}.svg"))).unwrap();
        assert!(svg.contains("&lt;a&gt; × b&amp;c"), "{name}");
        assert!(!svg.contains("<b>X") && !svg.contains("<a>"), "{name}");
    }
    let confusion =
        fs::read_to_string(dir.path().join("out/figure/e_span_type_confusion.svg")).unwrap();
    assert!(confusion.contains("&lt;b&gt;X"));
}

/// Without a reference and with more than 12 pairs, the type-confusion
/// figure draws the 12 pairs with the lowest kappa and says how many are
/// left out; the boundary bars draw every pair (up to 20).
#[test]
fn spans_type_confusion_draws_the_lowest_kappas_of_many_pairs() {
    // Six annotators: all mark X on d1 and Y on d2, except f, who marks X
    // on d2: the five pairs with f have kappa 0, the ten others 1.
    let mut s = String::from("document,annotator,start,end,label\n");
    for a in ["a", "b", "c", "d", "e", "f"] {
        let y = if a == "f" { "X" } else { "Y" };
        s.push_str(&format!("d1,{a},0,3,X\nd2,{a},4,6,{y}\n"));
    }
    let docs = "document,text\nd1,abcdefgh\nd2,abcdefgh\n";
    let exp = "experiment_id = \"e\"\ninput_file = \"s.csv\"\ndocuments_file = \"docs.csv\"\ndocument_text_column = \"text\"\n";
    let (dir, run) = spans_with(&[("s.csv", &s), ("docs.csv", docs)], exp);
    assert!(run.success, "{}", run.describe());
    let svg = |name: &str| {
        fs::read_to_string(dir.path().join(format!("out/figure/e_{name}.svg"))).unwrap()
    };
    let confusion = svg("span_type_confusion");
    assert_eq!(confusion.matches("Cohen&apos;s kappa 1.000").count(), 7);
    assert_eq!(confusion.matches("Cohen&apos;s kappa 0.000").count(), 5);
    for kept in ["a × f", "e × f", "a × b", "b × e"] {
        assert!(confusion.contains(kept), "{kept}");
    }
    for left in ["c × d", "c × e", "d × e"] {
        assert!(!confusion.contains(left), "{left}");
    }
    let html = fs::read_to_string(dir.path().join("out/report/e_report.html")).unwrap();
    assert!(html.contains("The 12 pairs with the lowest kappa are drawn; 3 more"));
    let bars = svg("span_boundary_disagreements");
    assert!(bars.contains("d × e") && bars.contains("0 of 2 differ"));
    assert!(!html.contains("pairs with the largest share"));
}

/// The same input and seed give the same bytes.
#[test]
fn spans_same_seed_same_bytes() {
    let tmp = tempfile::TempDir::new().unwrap();
    for out in ["a", "b"] {
        let o = std::process::Command::new(common::bin())
            .args([
                "spans".as_ref(),
                example().as_os_str(),
                "-o".as_ref(),
                out.as_ref(),
            ])
            .current_dir(tmp.path())
            .env("SOURCE_DATE_EPOCH", "1700000000")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let files = common::list_files(&tmp.path().join("a"));
    assert!(files.len() > 12, "{files:?}");
    for f in files {
        let x = fs::read(tmp.path().join("a").join(&f)).unwrap();
        let y = fs::read(tmp.path().join("b").join(&f)).unwrap();
        assert!(x == y, "{} differs", f.display());
    }
}

/// Gates: a passing agreement gate and a failed system gate exit 3 with
/// every file written; a bad gate is refused before the data is read.
#[test]
fn spans_gates_pass_fail_and_refuse() {
    let base = fs::read_to_string(example()).unwrap();
    let dir = example().parent().unwrap().to_path_buf();
    let abs = |t: String| {
        t.replace(
            "\"spans.csv\"",
            &format!("{:?}", dir.join("spans.csv").display().to_string()),
        )
        .replace(
            "\"documents.csv\"",
            &format!("{:?}", dir.join("documents.csv").display().to_string()),
        )
    };
    let cut = base.find("[[gates]]").unwrap();
    let head = abs(base[..cut].to_string());
    let tmp = tempfile::TempDir::new().unwrap();
    let write = |gates: &str| {
        fs::write(tmp.path().join("exp.toml"), format!("{head}{gates}")).unwrap();
    };
    write("[[gates]]\nmetric = \"micro_f1\"\nsystem = \"tagger_v1\"\nop = \">=\"\nthreshold = 0.99\n\n[[gates]]\nmetric = \"pooled_f1\"\ncriterion = \"exact\"\nop = \">=\"\nthreshold = 0.1\n");
    let run = common::run_in(tmp.path(), ["spans", "exp.toml", "-o", "out"]);
    assert_eq!(run.code, Some(3), "{}", run.describe());
    assert!(tmp
        .path()
        .join("out/output/news_ner_span_agreement.csv")
        .is_file());
    assert!(tmp.path().join("out/report/news_ner_report.html").is_file());
    write("[[gates]]\nmetric = \"micro_f\"\nop = \">=\"\nthreshold = 0.5\n");
    let run = common::run_in(tmp.path(), ["spans", "exp.toml", "-o", "out2"]);
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr.contains("did you mean \"micro_f1\""),
        "{}",
        run.describe()
    );
    write("[[gates]]\nmetric = \"mean_pairwise_f1\"\ncriterion = \"overlapp\"\nop = \">=\"\nthreshold = 0.5\n");
    let run = common::run_in(tmp.path(), ["spans", "exp.toml", "-o", "out3"]);
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr.contains("did you mean \"overlap\""),
        "{}",
        run.describe()
    );
    assert!(!tmp.path().join("out3").exists());
}

/// Runs the example into `out` (under `taskset -c 0`, one CPU, when
/// `one_cpu`: `None` without taskset); its stdout.
fn run_example(out: &Path, one_cpu: bool) -> Option<String> {
    let mut cmd = if one_cpu {
        let which = std::process::Command::new("taskset").arg("-V").output();
        if !which.is_ok_and(|o| o.status.success()) {
            eprintln!("skipped: taskset is not available (the one-CPU run)");
            return None;
        }
        let mut c = std::process::Command::new("taskset");
        c.args(["-c", "0"]).arg(common::bin());
        c
    } else {
        std::process::Command::new(common::bin())
    };
    let o = cmd
        .args([
            "spans".as_ref(),
            example().as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ])
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    Some(String::from_utf8(o.stdout).unwrap())
}

/// The example's tables, summary JSON, gate files and terminal lines
/// (the output folder's path replaced by `<out>`) match
/// `tests/snapshots/spans/` byte for byte, on every CPU and on one (the
/// bootstrap does not depend on the thread count).
/// `UPDATE_SNAPSHOTS=1 cargo test --test integration spans_snapshot`
/// rewrites them (review the diff).
#[test]
fn spans_snapshot_of_the_example() {
    let tmp = tempfile::TempDir::new().unwrap();
    let dir = common::manifest_dir().join("tests/snapshots/spans");
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| !v.is_empty() && v != "0");
    if update {
        let _ = fs::remove_dir_all(&dir);
    }
    for (run, one_cpu) in [("all", false), ("one", true)] {
        let out = tmp.path().join(run);
        let Some(stdout) = run_example(&out, one_cpu) else {
            continue;
        };
        let mut files: Vec<(String, String)> = common::list_files(&out.join("output"))
            .into_iter()
            .map(|f| {
                // The units table (parquet) as its SHA-256.
                let text = common::snapshot_text(fs::read(out.join("output").join(&f)).unwrap());
                (format!("output/{}", f.display()), text)
            })
            .collect();
        let out_text = out.display().to_string();
        files.push(("stdout.txt".into(), stdout.replace(&out_text, "<out>")));
        let mut failures = Vec::new();
        for (f, got) in &files {
            let path = dir.join(f);
            if update && !one_cpu {
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                fs::write(&path, got).unwrap();
            } else if fs::read_to_string(&path).ok().as_deref() != Some(got.as_str()) {
                failures.push(f.clone());
            }
        }
        let want = common::list_files(&dir);
        let names: Vec<&String> = files.iter().map(|f| &f.0).collect();
        assert_eq!(
            want.len(),
            files.len(),
            "files ({run}): {want:?} vs {names:?}"
        );
        assert!(
            failures.is_empty(),
            "differ from tests/snapshots/spans ({run} CPUs): {failures:?}"
        );
    }
}
