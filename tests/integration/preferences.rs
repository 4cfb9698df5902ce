//! Pairwise-preference metrics against Feedback Forensics 0.5.0
//! (`cargo test --test integration preferences`).
//!
//! For each `tests/fixtures/preferences/<case>/` (copies of the shared
//! `fixtures/agreement/ff-*` cases: our own simulated and hand-made data)
//! the test reads `case.toml` and `pairs.csv`, computes every value of
//! `expected.json` with `rsmreport_metrics::preferences` (the summary's
//! vote counts, then for the whole table and for every subset value the
//! overview and the per-annotator metrics) and compares them with the
//! fixture's tolerance `|a - e| <= 1e-9 |e| + 1e-12` (integers exactly).
//! Every leaf of `expected.json` must be checked; the only keys not
//! compared are listed in [`SKIPPED`] with the reason. Feedback Forensics'
//! own bootstrap interval of strength is unseeded, so the fixtures do not
//! hold it (README 5.4) and nothing here compares it.
//!
//! The second half runs `rsmreport preferences` end to end: the example of
//! `examples/preferences/` (its numbers recomputed from its CSV), an
//! AnnotatedPairs JSON, TSV, JSON-lines, parquet and xlsx file against the
//! equivalent CSV (identical tables),
//! same seed same bytes, the report in headless Chromium (skipped without
//! it), and one test per bad input of spec 5 (`docs/errors.md`,
//! "preferences": exit code, message, nothing written).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use rsmreport_metrics::preferences::{
    annotator_intervals, annotator_metrics, normalize_votes, overall_stats, text_len, vote_tables,
    BootstrapSpec, PairSet, Vote,
};

use crate::common::{self, table::parse_delimited};

/// Keys of `expected.json` (JSON-pointer prefixes) that are not values to
/// compute, with the reason.
const SKIPPED: &[(&str, &str)] = &[(
    "/versions",
    "the reference package versions (metadata, not computed values)",
)];

/// Feedback Forensics' key of each metric and our column, floats then
/// counts.
const FLOAT_KEYS: [(&str, &str); 7] = [
    ("agreement", "agreement"),
    ("acc", "accuracy"),
    ("relevance", "relevance"),
    ("strength", "strength"),
    ("cohens_kappa", "kappa_randomized"),
    ("cohens_kappa_og", "kappa"),
    ("p_value", "p_value"),
];
const INT_KEYS: [(&str, &str); 4] = [
    ("num_votes", "votes"),
    ("agreed", "agreed"),
    ("disagreed", "disagreed"),
    ("not_applicable", "not_applicable"),
];

/// One row of `_annotator_metrics` or `_model_traits` (header `h`, row
/// `r`) against the metrics at `base` in `expected.json`.
fn metric_row(c: &mut Checker<'_>, base: &str, h: &[String], r: &[String]) {
    let f = |name: &str| field(h, r, name);
    let num = |s: &str| {
        if s.is_empty() {
            f64::NAN
        } else {
            s.parse::<f64>().unwrap()
        }
    };
    for (key, column) in FLOAT_KEYS {
        c.num(&format!("{base}/{key}"), num(f(column)));
    }
    for (key, column) in INT_KEYS {
        c.int(&format!("{base}/{key}"), f(column).parse::<u64>().unwrap());
    }
}

/// Relative and absolute tolerance of the fixture README, section 4.
const REL: f64 = 1e-9;
const ABS: f64 = 1e-12;

fn case_dir(case: &str) -> PathBuf {
    common::local_fixtures().join("preferences").join(case)
}

/// The CSV as named columns; an empty cell is a missing value (`None`).
struct Columns {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Columns {
    fn read(path: &Path) -> Columns {
        let text = fs::read_to_string(path).unwrap();
        let mut records = parse_delimited(&text, ',').unwrap();
        let header = records.remove(0);
        assert!(
            records.iter().all(|r| r.len() == header.len()),
            "ragged CSV"
        );
        Columns {
            header,
            rows: records,
        }
    }

    fn get(&self, name: &str) -> Vec<Option<&str>> {
        let j = self
            .header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name}"));
        self.rows
            .iter()
            .map(|r| Some(r[j].as_str()).filter(|s| !s.is_empty()))
            .collect()
    }
}

/// Compares values and remembers which expected keys were visited.
struct Checker<'a> {
    expected: &'a Value,
    visited: BTreeSet<String>,
    failures: Vec<String>,
    matched: usize,
    p_values_relative: usize,
}

impl<'a> Checker<'a> {
    fn new(expected: &'a Value) -> Checker<'a> {
        Checker {
            expected,
            visited: BTreeSet::new(),
            failures: Vec::new(),
            matched: 0,
            p_values_relative: 0,
        }
    }

    /// Prints the tally of `what` and fails on a mismatch, on a leaf of
    /// `unvisited` (the expected values that must have been compared) or on
    /// fewer than `least` values compared.
    fn finish(&self, what: &str, unvisited: &[String], least: usize) {
        println!(
            "preferences {what}: {} values matched, {} failed",
            self.matched,
            self.failures.len()
        );
        assert!(
            self.failures.is_empty(),
            "{what}:\n{}",
            self.failures.join("\n")
        );
        assert!(
            unvisited.is_empty(),
            "{what}: expected values not compared:\n{}",
            unvisited.join("\n")
        );
        assert!(
            self.matched >= least,
            "{what}: only {} values compared",
            self.matched
        );
    }

    fn get(&mut self, pointer: &str) -> Option<&'a Value> {
        self.visited.insert(pointer.to_owned());
        let v = self.expected.pointer(pointer);
        if v.is_none() {
            self.failures
                .push(format!("{pointer}: missing from expected.json"));
        }
        v
    }

    fn num(&mut self, pointer: &str, actual: f64) {
        let Some(e) = self.get(pointer) else { return };
        let expected = match e {
            Value::Number(n) => n.as_f64().unwrap(),
            Value::String(s) if s == "NaN" => f64::NAN,
            other => {
                self.failures.push(format!("{pointer}: unexpected {other}"));
                return;
            }
        };
        let ok = if expected.is_nan() {
            actual.is_nan()
        } else {
            (actual - expected).abs() <= REL * expected.abs() + ABS
        };
        if ok {
            self.matched += 1;
        } else {
            self.failures
                .push(format!("{pointer}: expected {expected:e}, got {actual:e}"));
        }
        // p-values: also at relative 1e-9 alone (no absolute term).
        if pointer.ends_with("/p_value") {
            if (actual - expected).abs() <= REL * expected.abs() {
                self.p_values_relative += 1;
            } else {
                self.failures.push(format!(
                    "{pointer}: p-value {actual:e} not within relative 1e-9 of {expected:e}"
                ));
            }
        }
    }

    fn int(&mut self, pointer: &str, actual: u64) {
        let Some(e) = self.get(pointer) else { return };
        if e.as_u64() == Some(actual) {
            self.matched += 1;
        } else {
            self.failures
                .push(format!("{pointer}: expected {e}, got {actual}"));
        }
    }

    fn text(&mut self, pointer: &str, actual: &str) {
        let Some(e) = self.get(pointer) else { return };
        if e.as_str() == Some(actual) {
            self.matched += 1;
        } else {
            self.failures
                .push(format!("{pointer}: expected {e}, got {actual:?}"));
        }
    }

    /// The keys of the object at `pointer` (marks it visited).
    fn keys(&mut self, pointer: &str) -> BTreeSet<String> {
        match self.get(pointer) {
            Some(Value::Object(m)) => m.keys().cloned().collect(),
            _ => BTreeSet::new(),
        }
    }

    /// Every leaf of `expected.json` (an empty object counts as a leaf)
    /// that was neither visited nor skipped.
    fn unvisited(&self) -> Vec<String> {
        let mut leaves = Vec::new();
        collect_leaves(self.expected, String::new(), &mut leaves);
        leaves
            .into_iter()
            .filter(|p| !self.visited.contains(p))
            .filter(|p| {
                !SKIPPED
                    .iter()
                    .any(|(s, _)| p == s || p.starts_with(&format!("{s}/")))
            })
            .collect()
    }
}

fn collect_leaves(v: &Value, path: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, child) in m {
                collect_leaves(child, format!("{path}/{}", escape(k)), out);
            }
        }
        Value::Array(a) if !a.is_empty() => {
            for (i, child) in a.iter().enumerate() {
                collect_leaves(child, format!("{path}/{i}"), out);
            }
        }
        _ => out.push(path),
    }
}

/// JSON-pointer escaping of one key.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The case's data: the pair set and the annotators' names.
struct Case {
    config: toml::Table,
    columns: Columns,
    pairs: PairSet,
    annotators: Vec<String>,
}

fn load(case: &str) -> Case {
    load_dir(&case_dir(case))
}

fn load_dir(dir: &Path) -> Case {
    let config: toml::Table = fs::read_to_string(dir.join("case.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let key = |k: &str| config[k].as_str().unwrap().to_owned();
    let columns = Columns::read(&dir.join(key("input")));
    let annotators: Vec<String> = config["annotator_columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    let lens = |c: &str| {
        columns
            .get(c)
            .into_iter()
            .map(text_len)
            .collect::<Vec<u32>>()
    };
    let pairs = PairSet::new(
        normalize_votes(columns.get(&key("reference_column"))).votes,
        annotators
            .iter()
            .map(|a| normalize_votes(columns.get(a)).votes)
            .collect(),
        lens(&key("text_a_column")),
        lens(&key("text_b_column")),
    );
    Case {
        config,
        columns,
        pairs,
        annotators,
    }
}

/// `summary`: row counts and every column's distinct vote values.
fn check_summary(c: &mut Checker, case: &Case) {
    c.int("/summary/n_rows", case.pairs.len() as u64);
    let valid = case.pairs.reference.iter().filter(|v| v.is_valid()).count();
    c.int("/summary/n_rows_reference_text_a_or_b", valid as u64);
    let reference = case.config["reference_column"].as_str().unwrap();
    for column in case
        .annotators
        .iter()
        .map(String::as_str)
        .chain([reference])
    {
        let base = format!("/summary/value_counts/{}", escape(column));
        let expected_keys = c.keys(&base);
        let values = normalize_votes(case.columns.get(column)).values;
        let ours: BTreeSet<String> = values
            .iter()
            .map(|v| v.raw.clone().unwrap_or_else(|| "<blank>".into()))
            .collect();
        if ours != expected_keys {
            c.failures
                .push(format!("{base}: values {ours:?} vs {expected_keys:?}"));
        }
        for v in values {
            let raw = v.raw.unwrap_or_else(|| "<blank>".into());
            c.int(&format!("{base}/{}", escape(&raw)), v.count as u64);
        }
    }
}

/// One scope (`/all` or `/subsets/<value>`): overview and annotator metrics.
fn check_scope(c: &mut Checker, base: &str, pairs: &PairSet, annotators: &[String]) {
    c.int(&format!("{base}/n_rows"), pairs.len() as u64);
    let o = overall_stats(pairs);
    let om = format!("{base}/overall_metrics");
    c.int(&format!("{om}/Number of preference pairs"), o.pairs);
    for (key, value) in [
        ("Prop selecting text_a", o.prop_text_a),
        ("Avg len text_a (chars)", o.avg_len_text_a),
        ("Avg len text_b (chars)", o.avg_len_text_b),
        ("Avg len selected text (chars)", o.avg_len_preferred),
        ("Avg len rejected text (chars)", o.avg_len_rejected),
        ("Prop selecting longer text", o.prop_prefer_longer),
    ] {
        c.num(&format!("{om}/{key}"), value);
    }
    let tables = vote_tables(pairs);
    let am = format!("{base}/annotator_metrics");
    c.int(&format!("{am}/num_pairs"), tables.exclusions.used());
    let expected_annotators = c.keys(&format!("{am}/per_annotator"));
    let ours: BTreeSet<String> = annotators.iter().cloned().collect();
    if ours != expected_annotators {
        c.failures.push(format!(
            "{am}: annotators {ours:?} vs {expected_annotators:?}"
        ));
    }
    for (name, table) in annotators.iter().zip(&tables.annotators) {
        let m = annotator_metrics(table);
        let p = format!("{am}/per_annotator/{}", escape(name));
        for (key, value) in [
            ("agreement", m.agreement),
            ("acc", m.accuracy),
            ("relevance", m.relevance),
            ("strength", m.strength),
            ("cohens_kappa", m.kappa_randomized),
            ("cohens_kappa_og", m.kappa),
            ("p_value", m.p_value),
        ] {
            c.num(&format!("{p}/{key}"), value);
        }
        for (key, value) in [
            ("num_votes", m.votes),
            ("agreed", m.agreed),
            ("disagreed", m.disagreed),
            ("not_applicable", m.not_applicable),
        ] {
            c.int(&format!("{p}/{key}"), value);
        }
    }
}

/// Rows per subset value (as strings, sorted: Feedback Forensics' split).
fn subsets(case: &Case) -> BTreeMap<String, Vec<usize>> {
    let column = case.config["subset_column"].as_str().unwrap();
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, v) in case.columns.get(column).into_iter().enumerate() {
        let v = v.expect("no missing subset values in the fixtures");
        groups.entry(v.to_owned()).or_default().push(i);
    }
    groups
}

fn check_case(case_name: &str) {
    let case = load(case_name);
    let text = fs::read_to_string(case_dir(case_name).join("expected.json")).unwrap();
    let expected: Value = serde_json::from_str(&text).unwrap();
    let mut c = Checker::new(&expected);
    c.text("/case", case_name);
    c.text("/kind", "pairwise");
    if c.keys("/warnings").is_empty() {
        c.visited.insert("/warnings".into());
    }
    check_summary(&mut c, &case);
    check_scope(&mut c, "/all", &case.pairs, &case.annotators);
    let groups = subsets(&case);
    let expected_groups = c.keys("/subsets");
    let ours: BTreeSet<String> = groups.keys().cloned().collect();
    if ours != expected_groups {
        c.failures
            .push(format!("/subsets: {ours:?} vs {expected_groups:?}"));
    }
    for (value, rows) in &groups {
        let base = format!("/subsets/{}", escape(value));
        check_scope(&mut c, &base, &case.pairs.select(rows), &case.annotators);
    }
    let unvisited = c.unvisited();
    println!(
        "preferences {case_name}: {} values matched (|a - e| <= 1e-9 |e| + 1e-12; integers exact), \
         {} p-values also at relative 1e-9 alone; {} failed; {} keys not checked; skipped: {}",
        c.matched,
        c.p_values_relative,
        c.failures.len(),
        unvisited.len(),
        SKIPPED.iter().map(|(k, why)| format!("{k} ({why})")).collect::<Vec<_>>().join(", ")
    );
    assert!(
        c.failures.is_empty(),
        "{case_name}:\n{}",
        c.failures.join("\n")
    );
    assert!(
        unvisited.is_empty(),
        "{case_name}: expected keys not checked:\n{}",
        unvisited.join("\n")
    );
}

#[test]
fn preferences_ff_pairs_600_matches_feedback_forensics() {
    check_case("ff-pairs-600");
}

#[test]
fn preferences_ff_edge_12_matches_feedback_forensics() {
    check_case("ff-edge-12");
}

/// The Feedback Forensics cases through `rsmreport preferences` itself: the
/// command reads `pairs.csv` (quoting, lengths in code points, blank
/// votes), splits the subsets and writes its tables; every value of those
/// tables that `expected.json` holds is compared with the fixture's
/// tolerance, and every per-annotator, overview and vote-count leaf of
/// `expected.json` must have been compared.
fn check_case_through_the_command(case_name: &str) {
    check_dir_through_the_command(case_name, &case_dir(case_name), "");
}

/// [`check_case_through_the_command`] on the case in `dir`, with `extra`
/// lines added to the experiment file; returns the output folder.
fn check_dir_through_the_command(case_name: &str, dir: &Path, extra: &str) -> tempfile::TempDir {
    let case = load_dir(dir);
    let key = |k: &str| case.config[k].as_str().unwrap().to_owned();
    let tmp = tempfile::TempDir::new().unwrap();
    let quoted = |v: &[String]| {
        v.iter()
            .map(|a| format!("{a:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let exp = format!(
        "experiment_id = \"ff\"\npairs_file = {:?}\nid_column = {:?}\ntext_a_column = {:?}\n\
         text_b_column = {:?}\nreference_column = {:?}\nannotator_columns = [{}]\n\
         subset_columns = [{:?}]\n{extra}[intervals]\nreplicates = 50\n",
        dir.join(key("input")).display().to_string(),
        key("id_column"),
        key("text_a_column"),
        key("text_b_column"),
        key("reference_column"),
        quoted(&case.annotators),
        key("subset_column"),
    );
    fs::write(tmp.path().join("exp.toml"), exp).unwrap();
    let out = tmp.path().join("out");
    ok(&preferences(
        tmp.path(),
        &tmp.path().join("exp.toml"),
        &out,
        &[],
    ));
    let text = fs::read_to_string(dir.join("expected.json")).unwrap();
    let expected: Value = serde_json::from_str(&text).unwrap();
    let mut c = Checker::new(&expected);
    let table = |name: &str| csv_rows(&out.join(format!("output/ff_{name}.csv")));
    let num = |s: &str| {
        if s.is_empty() {
            f64::NAN
        } else {
            s.parse::<f64>().unwrap()
        }
    };
    let int = |s: &str| s.parse::<u64>().unwrap();
    let scope = |value: &str| {
        if value == "All data" {
            "/all".to_owned()
        } else {
            format!("/subsets/{}", escape(value))
        }
    };
    let (h, rows) = table("annotator_metrics");
    for r in &rows {
        let f = |name: &str| field(&h, r, name);
        let base = format!(
            "{}/annotator_metrics/per_annotator/{}",
            scope(f("subset_value")),
            escape(f("annotator"))
        );
        metric_row(&mut c, &base, &h, r);
    }
    let (h, rows) = table("overall");
    for r in &rows {
        let f = |name: &str| field(&h, r, name);
        let base = scope(f("subset_value"));
        let om = format!("{base}/overall_metrics");
        c.int(&format!("{om}/Number of preference pairs"), int(f("pairs")));
        c.int(
            &format!("{base}/annotator_metrics/num_pairs"),
            int(f("pairs")),
        );
        for (key, column) in [
            ("Prop selecting text_a", "prop_text_a"),
            ("Avg len text_a (chars)", "avg_len_text_a"),
            ("Avg len text_b (chars)", "avg_len_text_b"),
            ("Avg len selected text (chars)", "avg_len_preferred"),
            ("Avg len rejected text (chars)", "avg_len_rejected"),
            ("Prop selecting longer text", "prop_prefer_longer"),
        ] {
            c.num(&format!("{om}/{key}"), num(f(column)));
        }
    }
    // Feedback Forensics' AnnotatedPairs loader drops the comparisons with
    // an empty response before counting (README: `ff_loader`); we keep them
    // in the vote counts and exclude them from the metrics, so its vote
    // counts are not ours there and its row counts leave them out.
    let loader_drops = expected
        .pointer("/ff_loader/n_rows_after_loader")
        .zip(expected.pointer("/ff_loader/n_rows_in_file"))
        .is_some_and(|(after, all)| after != all);
    let (h, rows) = table("votes");
    for r in rows.iter().filter(|_| !loader_drops) {
        let f = |name: &str| field(&h, r, name);
        let value = Some(f("value"))
            .filter(|v| !v.is_empty())
            .unwrap_or("<blank>");
        let pointer = format!(
            "/summary/value_counts/{}/{}",
            escape(f("annotator")),
            escape(value)
        );
        c.int(&pointer, int(f("count")));
    }
    let (h, rows) = table("exclusions");
    let excluded = |reason: &str| {
        let r = rows
            .iter()
            .find(|r| field(&h, r, "reason") == reason)
            .unwrap();
        int(field(&h, r, "pairs"))
    };
    let mut read = excluded("pairs read");
    if loader_drops {
        read -= excluded("excluded: text_a or text_b empty");
    }
    c.int("/summary/n_rows", read);
    c.int("/all/n_rows", read);
    let valid = read
        - excluded("excluded: reference vote is a tie (tie, both, neither)")
        - excluded("excluded: reference vote is not valid")
        - excluded("excluded: reference vote is blank");
    c.int("/summary/n_rows_reference_text_a_or_b", valid);
    // Every value the tables hold was compared; the leaves they do not
    // hold are the case name, kind, versions and each subset's row count.
    let unvisited: Vec<String> = c
        .unvisited()
        .into_iter()
        .filter(|p| !["/case", "/kind", "/warnings"].contains(&p.as_str()))
        // How the reference was called (its loader's row counts and its
        // warnings), not values; the model view is checked apart.
        .filter(|p| {
            !["/ff_loader/", "/warnings/", "/models/", "/model_traits"]
                .iter()
                .any(|k| p.starts_with(k))
        })
        .filter(|p| !(loader_drops && p.starts_with("/summary/value_counts/")))
        .filter(|p| !(p.starts_with("/subsets/") && p.ends_with("/n_rows")))
        .collect();
    c.finish(&format!("{case_name} through the command"), &unvisited, 50);
    tmp
}

#[test]
fn preferences_ff_pairs_600_through_the_command() {
    check_case_through_the_command("ff-pairs-600");
}

#[test]
fn preferences_ff_edge_12_through_the_command() {
    check_case_through_the_command("ff-edge-12");
}

#[test]
fn preferences_fixture_copies_equal_shared() {
    // The copies must not drift from the shared originals (when present).
    let shared = common::shared_dir().join("spec/fixtures/agreement");
    if !shared.is_dir() {
        println!("preferences: ../shared missing, copies not compared");
        return;
    }
    for case in ["ff-pairs-600", "ff-edge-12"] {
        for file in ["case.toml", "pairs.csv", "expected.json"] {
            let ours = fs::read(case_dir(case).join(file)).unwrap();
            let theirs = fs::read(shared.join(case).join(file)).unwrap();
            assert!(
                ours == theirs,
                "{case}/{file} differs from the shared fixture"
            );
        }
    }
}

#[test]
fn preferences_ff_pairs_600_intervals_bracket_the_estimates() {
    // Not a Feedback Forensics value (its interval is unseeded): our
    // intervals on the fixture are reproducible and contain the estimates.
    let case = load("ff-pairs-600");
    let spec = BootstrapSpec {
        level: 0.95,
        replicates: 500,
        seed: 2024,
    };
    let first = annotator_intervals(&case.pairs, &spec);
    assert_eq!(first, annotator_intervals(&case.pairs, &spec));
    let tables = vote_tables(&case.pairs);
    for (i, t) in first.iter().zip(&tables.annotators) {
        let m = annotator_metrics(t);
        for (iv, est) in [
            (i.strength, m.strength),
            (i.accuracy, m.accuracy),
            (i.relevance, m.relevance),
        ] {
            assert_eq!(iv.valid, 500);
            assert!(iv.lower <= est && est <= iv.upper, "{est} not in {iv:?}");
        }
        let (lo, hi) = i.accuracy_exact;
        assert!(lo < m.accuracy && m.accuracy < hi);
    }
    // Sanity of the vote coding on real rows: `both`/`neither` are ties.
    assert!(case.pairs.annotators[2].contains(&Vote::Tie));
}

// ---------------------------------------------------------------------------
// `rsmreport preferences EXP` end to end (spec 4 and 5).

/// The example experiment of `examples/preferences/`.
fn example() -> PathBuf {
    common::manifest_dir().join("examples/preferences/exp.toml")
}

/// `rsmreport preferences EXP -o OUT [extra]` in `cwd`, with a fixed
/// generation time so that reports compare byte for byte.
fn preferences(cwd: &Path, exp: &Path, out: &Path, extra: &[&str]) -> common::Run {
    std::process::Command::new(common::bin())
        .arg("preferences")
        .arg(exp)
        .arg("-o")
        .arg(out)
        .args(extra)
        .current_dir(cwd)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .env("NO_COLOR", "1")
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("run rsmreport")
        .into()
}

fn ok(run: &common::Run) {
    assert!(!run.panicked(), "{}", run.describe());
    assert_eq!(run.code, Some(0), "{}", run.describe());
}

/// A CSV written by the command as (header, rows of fields).
fn csv_rows(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut records = parse_delimited(&text, ',').unwrap();
    let header = records.remove(0);
    (header, records)
}

fn field<'r>(header: &[String], row: &'r [String], name: &str) -> &'r str {
    &row[header.iter().position(|h| h == name).unwrap()]
}

#[test]
fn preferences_example_builds_end_to_end() {
    let tmp = tempfile::TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let run = preferences(tmp.path(), &example(), &out, &[]);
    ok(&run);
    let id = "preferences_example";
    for f in [
        "annotator_metrics.csv",
        "overall.csv",
        "votes.csv",
        "exclusions.csv",
        "summary.json",
    ] {
        assert!(out.join(format!("output/{id}_{f}")).is_file(), "{f}");
    }
    for f in ["strength.svg", "strength_by_source.svg"] {
        assert!(out.join(format!("figure/{id}_{f}")).is_file(), "{f}");
    }
    // The whole-set rows come first, sorted by strength; the numbers are the
    // metrics module's on the example's own columns.
    let (header, rows) = csv_rows(&out.join(format!("output/{id}_annotator_metrics.csv")));
    let all: Vec<&Vec<String>> = rows
        .iter()
        .filter(|r| field(&header, r, "subset_value") == "All data")
        .collect();
    assert_eq!(all.len(), 4);
    assert_eq!(rows.len(), 4 * 4, "the whole set and three sources");
    let strength: Vec<f64> = all
        .iter()
        .map(|r| field(&header, r, "strength").parse().unwrap())
        .collect();
    assert!(strength.windows(2).all(|w| w[0] >= w[1]), "{strength:?}");
    let cols = Columns::read(&common::manifest_dir().join("examples/preferences/pairs.csv"));
    let votes = |c: &str| normalize_votes(cols.get(c)).votes;
    let names = [
        "judge_model",
        "longer_is_better",
        "first_position",
        "crowd_worker",
    ];
    let pairs = PairSet::new(
        votes("preferred_text"),
        names.iter().map(|n| votes(n)).collect(),
        cols.get("text_a").into_iter().map(text_len).collect(),
        cols.get("text_b").into_iter().map(text_len).collect(),
    );
    let tables = vote_tables(&pairs);
    for r in &all {
        let j = names
            .iter()
            .position(|n| *n == field(&header, r, "annotator"))
            .unwrap();
        let m = annotator_metrics(&tables.annotators[j]);
        let got: f64 = field(&header, r, "strength").parse().unwrap();
        assert_eq!(got, m.strength, "{}", names[j]);
        assert_eq!(field(&header, r, "votes"), m.votes.to_string());
    }
    // The length rule follows the reference, the position rule does not.
    let strength_of = |name: &str| -> f64 {
        let r = all
            .iter()
            .find(|r| field(&header, r, "annotator") == name)
            .unwrap();
        field(&header, r, "strength").parse().unwrap()
    };
    assert!(strength_of("longer_is_better") > 0.2);
    assert!(strength_of("first_position").abs() < 0.1);
    let (_, excl) = csv_rows(&out.join(format!("output/{id}_exclusions.csv")));
    assert_eq!(excl.last().unwrap(), &["pairs used", "287"]);
    let (vh, votes_rows) = csv_rows(&out.join(format!("output/{id}_votes.csv")));
    assert!(votes_rows
        .iter()
        .any(|r| field(&vh, r, "annotator") == "judge_model"
            && field(&vh, r, "annotator_name") == "judge_model"
            && field(&vh, r, "value") == "text-a"
            && field(&vh, r, "read_as") == "not valid"));
    // Terminal: one line per annotator, then the report's path.
    for n in names {
        assert!(run.stdout.contains(&format!("  {n} ")), "{}", run.stdout);
    }
    assert!(
        run.stdout.contains("strength +0.509 [+0.411, +0.599]"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains(&format!("report/{id}_report.html")));
    // The guide shows these lines (all but the path written).
    let page = common::manifest_dir().join("docs/guide/src/kinds/preferences.md");
    let readme = fs::read_to_string(page).unwrap();
    let start = readme
        .find("```text\npreferences_example:")
        .expect("the example's output in the guide")
        + "```text\n".len();
    let shown = &readme[start..start + readme[start..].find("```").unwrap()];
    let lines = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| {
                !l.starts_with("wrote ") && !l.starts_with("output: ") && !l.starts_with("report: ")
            })
            .map(String::from)
            .collect()
    };
    assert_eq!(
        lines(&run.stdout),
        lines(shown),
        "update the guide's example"
    );
    let html = fs::read_to_string(out.join(format!("report/{id}_report.html"))).unwrap();
    for section in ["overview", "annotators", "by_subset", "data"] {
        assert!(
            html.contains(&format!("<section id=\"{section}\"")),
            "{section}"
        );
    }
    assert!(html.contains("max diff") && html.contains("How to read strength"));
    assert!(!html.contains("src=\"http") && !html.contains("href=\"http"));
}

/// Eight pairs as a CSV and as the equivalent AnnotatedPairs file.
const SMALL_CSV: &str = "\
comparison_id,text_a,text_b,human,judge,longer,source
c1,Short.,A longer answer.,a,a,b,chat
c2,Ünïcödé answer here.,No.,a,b,a,chat
c3,One,Two two,b,b,b,code
c4,Four four,x,b,,a,code
c5,Five,Six,a,a,b,chat
c6,Same,Same,b,a,b,code
c7,Seven seven seven,s,a,a,a,chat
c8,Eight,,a,a,b,code
";

/// The small pairs as an AnnotatedPairs file of format `version`: 2.0 keeps
/// the texts in `response_a`/`response_b` objects, 1.0 (written without a
/// `version`, which Feedback Forensics reads as 1.0) in `text_a`/`text_b`.
fn small_json_of(version: &str) -> String {
    let cols = {
        let mut records = parse_delimited(SMALL_CSV, ',').unwrap();
        records.remove(0);
        records
    };
    let pref = |s: &str| {
        if s.is_empty() {
            Value::Null
        } else {
            Value::String(s.into())
        }
    };
    let comparisons: Vec<Value> = cols
        .iter()
        .map(|r| {
            serde_json::json!({
                "id": r[0],
                "prompt": "Which is better?",
                "annotations": {
                    "h1": {"pref": pref(&r[3])},
                    "j1": {"pref": pref(&r[4]), "no_pref_reason": null},
                    "l1": {"pref": pref(&r[5])},
                },
                "metadata": {"source": r[6]},
            })
        })
        .zip(&cols)
        .map(|(mut c, r)| {
            let texts = if version == "1.0" {
                serde_json::json!({"text_a": r[1], "text_b": r[2]})
            } else {
                serde_json::json!({
                    "response_a": {"text": r[1], "model": "m1"},
                    "response_b": {"text": r[2], "model": "m2"},
                })
            };
            c.as_object_mut()
                .unwrap()
                .extend(texts.as_object().unwrap().clone());
            c
        })
        .collect();
    let metadata = if version == "1.0" {
        serde_json::json!({"default_annotator": "h1"})
    } else {
        serde_json::json!({"version": version, "default_annotator": "h1"})
    };
    serde_json::to_string_pretty(&serde_json::json!({
        "metadata": metadata,
        "annotators": {
            "h1": {"name": "human", "type": "human"},
            "j1": {"name": "judge", "type": "model"},
            "l1": {"name": "longer", "type": "rule"},
        },
        "comparisons": comparisons,
    }))
    .unwrap()
}

fn small_json() -> String {
    small_json_of("2.0")
}

const SMALL_TOML: &str = "experiment_id = \"small\"\npairs_file = \"pairs.csv\"\n\
    id_column = \"comparison_id\"\nreference_column = \"human\"\n\
    annotator_columns = [\"judge\", \"longer\"]\nsubset_columns = [\"source\"]\n\
    [intervals]\nreplicates = 200\nseed = 7\n";

#[test]
fn preferences_every_input_format_gives_the_csvs_tables() {
    let tmp = tempfile::TempDir::new().unwrap();
    let root = tmp.path();
    fs::write(root.join("pairs.csv"), SMALL_CSV).unwrap();
    fs::write(root.join("pairs.json"), small_json()).unwrap();
    fs::write(root.join("pairs_v1.json"), small_json_of("1.0")).unwrap();
    fs::write(root.join("pairs_v21.json"), small_json_of("2.1")).unwrap();
    fs::write(root.join("csv.toml"), SMALL_TOML).unwrap();
    for (name, file) in [
        ("json", "pairs.json"),
        ("json_v1", "pairs_v1.json"),
        ("json_v21", "pairs_v21.json"),
    ] {
        let toml = format!(
            "experiment_id = \"small\"\npairs_file = \"{file}\"\n[intervals]\nreplicates = 200\n\
             seed = 7\n"
        );
        fs::write(root.join(format!("{name}.toml")), toml).unwrap();
    }
    // The same pairs as TSV and JSON lines, through the table readers (an
    // empty cell is a blank vote or an empty text in every format).
    let mut records = parse_delimited(SMALL_CSV, ',').unwrap();
    let header = records.remove(0);
    let tsv: String = std::iter::once(&header)
        .chain(&records)
        .map(|r| format!("{}\n", r.join("\t")))
        .collect();
    fs::write(root.join("pairs.tsv"), tsv).unwrap();
    let jsonl: String = records
        .iter()
        .map(|r| {
            let obj: serde_json::Map<String, Value> = header
                .iter()
                .zip(r)
                .map(|(h, v)| (h.clone(), Value::String(v.clone())))
                .collect();
            format!("{}\n", Value::Object(obj))
        })
        .collect();
    fs::write(root.join("pairs.jsonl"), jsonl).unwrap();
    // And as parquet and xlsx, written by rsmreport's own writers.
    let columns: Vec<rsmreport_core::table::Column> = header
        .iter()
        .enumerate()
        .map(|(j, h)| {
            let cells = records.iter().map(|r| Some(r[j].as_str()));
            rsmreport_core::table::Column::new(
                h.as_str(),
                rsmreport_core::table::text_values(cells),
            )
        })
        .collect();
    let table = rsmreport_core::table::Table {
        columns: columns.clone(),
        nrows: records.len(),
    };
    let parquet = rsmreport_io::output::file::TableFormat::Parquet;
    rsmreport_io::output::file::write_table_chunks(
        &root.join("pairs.parquet"),
        parquet,
        false,
        [table],
    )
    .unwrap();
    let frame = rsmreport_core::table::Frame::new("pairs", None, columns);
    let xlsx = rsmreport_io::output::write::to_xlsx(&frame, 0).unwrap();
    fs::write(root.join("pairs.xlsx"), xlsx).unwrap();
    for ext in ["tsv", "jsonl", "parquet", "xlsx"] {
        let toml = SMALL_TOML.replace("pairs.csv", &format!("pairs.{ext}"));
        fs::write(root.join(format!("{ext}.toml")), toml).unwrap();
    }
    let others = [
        "json", "json_v1", "json_v21", "tsv", "jsonl", "parquet", "xlsx",
    ];
    for name in std::iter::once("csv").chain(others) {
        let exp = root.join(format!("{name}.toml"));
        ok(&preferences(root, &exp, &root.join(name), &[]));
    }
    for table in ["annotator_metrics", "overall", "votes", "exclusions"] {
        let file = format!("output/small_{table}.csv");
        let a = fs::read_to_string(root.join("csv").join(&file)).unwrap();
        for other in others {
            let b = fs::read_to_string(root.join(other).join(&file)).unwrap();
            assert_eq!(a, b, "{table}: csv and {other}");
        }
    }
    let (h, rows) = csv_rows(&root.join("csv/output/small_exclusions.csv"));
    assert_eq!(h, ["reason", "pairs"]);
    assert_eq!(rows.last().unwrap(), &["pairs used", "7"]);
}

#[test]
fn preferences_default_folder_help_and_force() {
    let tmp = tempfile::TempDir::new().unwrap();
    fs::write(tmp.path().join("exp.toml"), SMALL_TOML).unwrap();
    fs::write(tmp.path().join("pairs.csv"), SMALL_CSV).unwrap();
    let run = |args: &[&str]| common::run_in(tmp.path(), args);
    let help = run(&["preferences", "--help"]);
    ok(&help);
    assert!(help.stdout.contains("--output-dir") && help.stdout.contains("--force"));
    ok(&run(&["preferences", "exp.toml"]));
    assert!(tmp.path().join("small/report/small_report.html").is_file());
    let again = run(&["preferences", "exp.toml"]);
    assert_eq!(again.code, Some(2), "{}", again.describe());
    assert!(again.stderr.contains("not empty"), "{}", again.stderr);
    ok(&run(&["preferences", "exp.toml", "--force"]));
}

#[test]
fn preferences_same_seed_same_bytes() {
    let tmp = tempfile::TempDir::new().unwrap();
    let (a, b, c) = (
        tmp.path().join("a"),
        tmp.path().join("b"),
        tmp.path().join("c"),
    );
    ok(&preferences(tmp.path(), &example(), &a, &[]));
    ok(&preferences(tmp.path(), &example(), &b, &[]));
    let files = common::list_files(&a);
    assert_eq!(files, common::list_files(&b));
    assert!(files.len() >= 8, "{files:?}");
    for f in &files {
        assert!(
            fs::read(a.join(f)).unwrap() == fs::read(b.join(f)).unwrap(),
            "{} differs between two runs",
            f.display()
        );
    }
    // Another seed moves the bootstrap intervals only.
    let text = fs::read_to_string(example())
        .unwrap()
        .replace("seed = 0", "seed = 1");
    let exp = tmp.path().join("exp.toml");
    fs::write(&exp, text).unwrap();
    fs::copy(
        common::manifest_dir().join("examples/preferences/pairs.csv"),
        tmp.path().join("pairs.csv"),
    )
    .unwrap();
    ok(&preferences(tmp.path(), &exp, &c, &[]));
    let metrics = "output/preferences_example_annotator_metrics.csv";
    let (h, x) = csv_rows(&a.join(metrics));
    let (_, y) = csv_rows(&c.join(metrics));
    for (r, s) in x.iter().zip(&y) {
        assert_eq!(field(&h, r, "strength"), field(&h, s, "strength"));
    }
    assert_ne!(x, y, "seed 1 gives other intervals");
}

#[test]
fn preferences_report_renders_in_the_browser() {
    let tmp = tempfile::TempDir::new().unwrap();
    let out = tmp.path().join("out");
    ok(&preferences(tmp.path(), &example(), &out, &[]));
    let report = out.join("report/preferences_example_report.html");
    // The judge's p-value is below 0.001: shown as such, not as 0.000.
    let html = fs::read_to_string(&report).unwrap();
    assert!(html.contains(">&lt; 0.001<"), "no '< 0.001' cell");
    let Some(text) =
        crate::report::renders_in_chromium(&report, &tmp.path().join("profile"), "preferences")
    else {
        return;
    };
    assert!(text.contains("Strength of each annotator"));
}

// ---------------------------------------------------------------------------
// Bad input (spec 5, `docs/errors.md` "preferences"): exit code, message,
// nothing written.

/// Writes `files` into a fresh folder, runs the command on `exp.toml` and
/// checks the exit code, the words of the message and that no output
/// folder was created.
fn refused(files: &[(&str, &str)], code: i32, words: &[&str]) {
    let tmp = tempfile::TempDir::new().unwrap();
    for (name, text) in files {
        fs::write(tmp.path().join(name), text).unwrap();
    }
    let out = tmp.path().join("out");
    let run = preferences(tmp.path(), &tmp.path().join("exp.toml"), &out, &[]);
    assert!(!run.panicked(), "{}", run.describe());
    assert_eq!(run.code, Some(code), "{}", run.describe());
    for w in words {
        assert!(run.stderr.contains(w), "{w:?} not in {}", run.stderr);
    }
    assert!(!out.exists(), "a failed run wrote {}", out.display());
}

#[test]
fn preferences_errors_configured_column_absent() {
    refused(
        &[
            (
                "exp.toml",
                &SMALL_TOML.replace("\"judge\", \"longer\"", "\"judge\", \"jduge_2\""),
            ),
            ("pairs.csv", SMALL_CSV),
        ],
        1,
        &[
            "pairs.csv: the column 'jduge_2' named in the experiment file is not in the file",
            "its columns are comparison_id, text_a, text_b, human, judge, longer, source",
        ],
    );
}

#[test]
fn preferences_errors_no_annotator_column() {
    refused(
        &[
            (
                "exp.toml",
                &SMALL_TOML.replace("[\"judge\", \"longer\"]", "[]"),
            ),
            ("pairs.csv", SMALL_CSV),
        ],
        2,
        &["exp.toml, line 5: annotator_columns must name at least one annotator column"],
    );
}

#[test]
fn preferences_errors_reference_among_the_annotators() {
    refused(
        &[
            (
                "exp.toml",
                &SMALL_TOML.replace("\"judge\", \"longer\"", "\"judge\", \"human\""),
            ),
            ("pairs.csv", SMALL_CSV),
        ],
        2,
        &["exp.toml, line 5: the reference column \"human\" is also listed in annotator_columns"],
    );
}

#[test]
fn preferences_errors_unknown_key() {
    refused(
        &[
            ("exp.toml", &format!("reference_colum = 1\n{SMALL_TOML}")),
            ("pairs.csv", SMALL_CSV),
        ],
        2,
        &["exp.toml, line 1: unknown key reference_colum; did you mean reference_column?"],
    );
}

#[test]
fn preferences_errors_duplicate_ids() {
    let pairs = SMALL_CSV.replace("c3,", "c1,").replace("c8,", "c2,");
    refused(
        &[("exp.toml", SMALL_TOML), ("pairs.csv", &pairs)],
        1,
        &[
            "pairs.csv: 2 pairs repeat an id: 'c1' (rows 1 and 3), 'c2' (rows 2 and 8)",
            "every pair needs its own id",
        ],
    );
}

const JSON_TOML: &str = "experiment_id = \"small\"\npairs_file = \"pairs.json\"\n";

#[test]
fn preferences_errors_annotated_pairs_default_annotator_unknown() {
    let json = small_json().replace(
        "\"default_annotator\": \"h1\"",
        "\"default_annotator\": \"h9\"",
    );
    refused(
        &[("exp.toml", JSON_TOML), ("pairs.json", &json)],
        1,
        &["pairs.json: metadata.default_annotator \"h9\" is not among its annotators (h1, j1, l1)"],
    );
}

#[test]
fn preferences_errors_annotated_pairs_unknown_version() {
    let json = small_json().replace("\"version\": \"2.0\"", "\"version\": \"9.1\"");
    refused(
        &[("exp.toml", JSON_TOML), ("pairs.json", &json)],
        1,
        &["pairs.json: AnnotatedPairs version \"9.1\" is not supported (supported: 1.x, 2.x)"],
    );
}

#[test]
fn preferences_errors_annotated_pairs_text_key_absent() {
    // A 1.x file (no version) keeps its texts in text_a/text_b; one that
    // has response objects instead is refused, not read as empty texts.
    let mut doc: Value = serde_json::from_str(&small_json()).unwrap();
    doc["metadata"].as_object_mut().unwrap().remove("version");
    refused(
        &[("exp.toml", JSON_TOML), ("pairs.json", &doc.to_string())],
        1,
        &[
            "pairs.json: comparisons[0] has no \"text_a\"",
            "an AnnotatedPairs 1.x file keeps the two texts in \"text_a\" and \"text_b\"",
        ],
    );
}

#[test]
fn preferences_errors_annotated_pairs_reference_among_the_annotators() {
    // The reference is the default annotator (no reference_column): naming
    // it among the annotators is refused as for a table.
    refused(
        &[
            (
                "exp.toml",
                &format!("{JSON_TOML}annotator_columns = [\"judge\", \"human\"]\n"),
            ),
            ("pairs.json", &small_json()),
        ],
        1,
        &[
            "pairs.json: the reference annotator \"human\"",
            "also listed in annotator_columns",
        ],
    );
}

#[test]
fn preferences_errors_annotated_pairs_no_other_annotator() {
    let mut doc: Value = serde_json::from_str(&small_json()).unwrap();
    let annotators = doc["annotators"].as_object_mut().unwrap();
    annotators.remove("j1");
    annotators.remove("l1");
    refused(
        &[("exp.toml", JSON_TOML), ("pairs.json", &doc.to_string())],
        1,
        &["pairs.json: the file has no annotator besides the default annotator human"],
    );
}

#[test]
fn preferences_no_valid_pair_is_not_an_error() {
    let tmp = tempfile::TempDir::new().unwrap();
    fs::write(tmp.path().join("exp.toml"), SMALL_TOML).unwrap();
    let ties: String = SMALL_CSV
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                format!("{l}\n")
            } else {
                let mut f: Vec<&str> = l.split(',').collect();
                f[3] = "tie";
                format!("{}\n", f.join(","))
            }
        })
        .collect();
    fs::write(tmp.path().join("pairs.csv"), ties).unwrap();
    let out = tmp.path().join("out");
    let run = preferences(tmp.path(), &tmp.path().join("exp.toml"), &out, &[]);
    ok(&run);
    assert!(run.stdout.contains("every metric is n/a"), "{}", run.stdout);
    let (h, rows) = csv_rows(&out.join("output/small_annotator_metrics.csv"));
    assert!(rows.iter().all(|r| field(&h, r, "strength").is_empty()));
    let html = fs::read_to_string(out.join("report/small_report.html")).unwrap();
    assert!(html.contains("No pair is left"));
}

// ---------------------------------------------------------------------------
// Real Feedback Forensics data (spec 6).

/// The shared external case `case`, or `None` (said) when `../shared` is
/// missing.
fn external_case(case: &str) -> Option<PathBuf> {
    let dir = common::shared_fixtures_path().join("external").join(case);
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("preferences: {} missing, test skipped", dir.display());
        None
    }
}

/// Runs `rsmreport preferences` on an experiment file holding `toml`
/// (written into a temporary folder, which is returned with the run).
fn run_experiment(toml: &str) -> (tempfile::TempDir, common::Run) {
    let tmp = tempfile::TempDir::new().unwrap();
    fs::write(tmp.path().join("exp.toml"), toml).unwrap();
    let out = tmp.path().join("out");
    let run = preferences(tmp.path(), &tmp.path().join("exp.toml"), &out, &[]);
    (tmp, run)
}

#[test]
fn preferences_ff_example_file_names_subsets_and_few_votes() {
    let Some(dir) = external_case("ff-annotated-pairs-example") else {
        return;
    };
    let (tmp, run) = run_experiment(&format!(
        "experiment_id = \"ffex\"\npairs_file = {:?}\n",
        dir.join("pairs_ap.json").display().to_string()
    ));
    ok(&run);
    let out = tmp.path().join("out");
    // Names: the trait's description, the reference by its name.
    let (h, rows) = csv_rows(&out.join("output/ffex_annotator_metrics.csv"));
    assert_eq!(h[..2], ["annotator", "annotator_name"]);
    assert_eq!(rows.len(), 40, "40 annotators, no subset rows");
    let name = |id: &str| {
        let r = rows
            .iter()
            .find(|r| field(&h, r, "annotator") == id)
            .unwrap();
        field(&h, r, "annotator_name").to_owned()
    };
    assert_eq!(name("bf731c7f"), "Select the response that is more concise");
    assert_eq!(name("d4f11654"), "Select the response that is too long");
    // `index` is one value per comparison: not a subset.
    assert!(rows
        .iter()
        .all(|r| field(&h, r, "subset_value") == "All data"));
    // One comparison: every annotator rests on at most one valid vote.
    assert!(rows.iter().all(|r| field(&h, r, "few_votes") == "True"));
    let (h, rows) = csv_rows(&out.join("output/ffex_votes.csv"));
    let reference = rows.iter().find(|r| field(&h, r, "role") == "reference");
    assert_eq!(
        field(&h, reference.unwrap(), "annotator_name"),
        "preferred_text"
    );
    let html = fs::read_to_string(out.join("report/ffex_report.html")).unwrap();
    for words in [
        "Select the response that is more concise",
        "reference: <strong>preferred_text</strong>",
        "Metadata not used as subsets: index (1 distinct values)",
    ] {
        assert!(html.contains(words), "report lacks {words}");
    }
    assert!(!html.contains("strength_by_index"));
    // Few votes: greyed cells, a footnote, no strength as the headline, and
    // the collapsed [1, 1] interval with the exact one beside it.
    assert!(html.contains("few-votes") && html.contains("Few votes: greyed values"));
    assert!(!html.contains("<dt>strength"), "a few-votes headline tile");
    assert!(html.contains("[1.000, 1.000]; exact accuracy [0.025, 1.000]"));
    assert!(run.stdout.contains("against the reference preferred_text"));
    assert!(run
        .stdout
        .contains("  Select the response that is too long "));
    assert!(run.stdout.contains("(few votes: 1)"));
}

/// The model view of a `ff-*-models` case in the output folder `out`
/// (experiment id `id`): every row of `<id>_model_traits` on the whole data
/// against `model_traits` / `model_traits_reference_annotator`, and the
/// resolved model lists and `prefers M` vote counts of the JSON against
/// `models`; every leaf of those blocks must be compared.
fn check_model_view(case_name: &str, expected: &Value, out: &Path, id: &str) {
    let mut c = Checker::new(expected);
    let (h, rows) = csv_rows(&out.join(format!("output/{id}_model_traits.csv")));
    for r in rows
        .iter()
        .filter(|r| field(&h, r, "subset_value") == "All data")
    {
        let f = |name: &str| field(&h, r, name);
        let model = escape(f("model"));
        let base = if f("role") == "reference" {
            format!("/model_traits_reference_annotator/{model}")
        } else {
            format!("/model_traits/{model}/{}", escape(f("annotator")))
        };
        metric_row(&mut c, &base, &h, r);
    }
    let json: Value = serde_json::from_str(
        &fs::read_to_string(out.join(format!("output/{id}_summary.json"))).unwrap(),
    )
    .unwrap();
    let models = &json["models"];
    for key in ["available_models", "target_models", "reference_models"] {
        let ours: Vec<&str> = models[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        for (i, m) in ours.iter().enumerate() {
            c.text(&format!("/models/{key}/{i}"), m);
        }
    }
    for (m, doc) in models["identity_annotators"].as_object().unwrap() {
        let base = format!("/models/identity_annotators/{}", escape(m));
        c.text(
            &format!("{base}/ff_description"),
            doc["description"].as_str().unwrap(),
        );
        c.int(
            &format!("{base}/num_pairs"),
            doc["num_pairs"].as_u64().unwrap(),
        );
        for (key, ours) in [
            ("text_a", "text_a"),
            ("text_b", "text_b"),
            ("Not applicable", "not_applicable"),
        ] {
            let n = doc["votes"][ours].as_u64().unwrap();
            c.int(&format!("{base}/votes/{}", escape(key)), n);
        }
    }
    let unvisited: Vec<String> = c
        .unvisited()
        .into_iter()
        .filter(|p| {
            p.starts_with("/model_traits")
                || (p.starts_with("/models/")
                    && [
                        "available_models",
                        "target_models/",
                        "reference_models/",
                        "num_pairs",
                    ]
                    .iter()
                    .any(|k| p.contains(k)))
        })
        .filter(|p| !p.contains("/identity_annotators/") || !p.contains("/reference_models/"))
        .collect();
    c.finish(&format!("{case_name} model view"), &unvisited, 200);
}

/// Every Feedback Forensics case of `fixtures/external/` through the
/// command (tables at 1e-9); the models cases also through their model
/// view, from `pairs.csv` with model columns and from the AnnotatedPairs
/// file alike.
#[test]
fn preferences_ff_external_cases_through_the_command() {
    let Some(root) = external_case(".") else {
        return;
    };
    let mut cases: Vec<String> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("ff-"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 4, "{cases:?}");
    for case in &cases {
        let dir = root.join(case);
        let config: toml::Table = fs::read_to_string(dir.join("case.toml"))
            .unwrap()
            .parse()
            .unwrap();
        let models = config.get("model_a_column").is_some();
        let lists: String = ["target_models", "reference_models"]
            .iter()
            .filter_map(|k| config.get(*k).map(|v| format!("{k} = {v}\n")))
            .collect();
        let extra = if models {
            format!(
                "model_a_column = {}\nmodel_b_column = {}\n{lists}",
                config["model_a_column"], config["model_b_column"]
            )
        } else {
            String::new()
        };
        let tmp = check_dir_through_the_command(case, &dir, &extra);
        if !models {
            continue;
        }
        let expected: Value =
            serde_json::from_str(&fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
        check_model_view(case, &expected, &tmp.path().join("out"), "ff");
        // The same comparisons as AnnotatedPairs: models from
        // response_a.model / response_b.model.
        let ap = config["input_annotated_pairs"].as_str().unwrap();
        let (tmp, run) = run_experiment(&format!(
            "experiment_id = \"ap\"\npairs_file = {:?}\n{lists}[intervals]\nreplicates = 20\n",
            dir.join(ap).display().to_string()
        ));
        ok(&run);
        check_model_view(case, &expected, &tmp.path().join("out"), "ap");
    }
}

/// Two AnnotatedPairs files are two data sets side by side (spec 6): the
/// virtual subset column `dataset` holds their `dataset_name`s, and the
/// models file's data set gives exactly that case's values (annotator
/// metrics and model traits), whatever the other file holds.
#[test]
fn preferences_two_files_give_a_dataset_subset_side_by_side() {
    let (Some(models), Some(human1)) = (
        external_case("ff-pandalm-999-models"),
        external_case("ff-pandalm-999-human1-ref"),
    ) else {
        return;
    };
    let (tmp, run) = run_experiment(&format!(
        "experiment_id = \"two\"\npairs_file = [{:?}, {:?}]\n[intervals]\nreplicates = 20\n",
        models.join("pairs_ap.json").display().to_string(),
        human1.join("pairs_ap.json").display().to_string()
    ));
    ok(&run);
    let out = tmp.path().join("out");
    let name = "ff-pandalm-999-models";
    let expected: Value =
        serde_json::from_str(&fs::read_to_string(models.join("expected.json")).unwrap()).unwrap();
    let mut c = Checker::new(&expected);
    let (h, rows) = csv_rows(&out.join("output/two_annotator_metrics.csv"));
    let values: BTreeSet<&str> = rows
        .iter()
        .filter(|r| field(&h, r, "subset_column") == "dataset")
        .map(|r| field(&h, r, "subset_value"))
        .collect();
    assert_eq!(
        values,
        BTreeSet::from([name, "ff-pandalm-999-human1-ref"]),
        "the dataset subset"
    );
    for r in rows.iter().filter(|r| field(&h, r, "subset_value") == name) {
        let base = format!(
            "/all/annotator_metrics/per_annotator/{}",
            field(&h, r, "annotator")
        );
        metric_row(&mut c, &base, &h, r);
    }
    let (h, rows) = csv_rows(&out.join("output/two_model_traits.csv"));
    for r in rows.iter().filter(|r| field(&h, r, "subset_value") == name) {
        let base = if field(&h, r, "role") == "reference" {
            format!(
                "/model_traits_reference_annotator/{}",
                field(&h, r, "model")
            )
        } else {
            format!(
                "/model_traits/{}/{}",
                field(&h, r, "model"),
                field(&h, r, "annotator")
            )
        };
        metric_row(&mut c, &base, &h, r);
    }
    // The other file has no models: prefers M is never applicable there.
    let other: Vec<&Vec<String>> = rows
        .iter()
        .filter(|r| field(&h, r, "subset_value") == "ff-pandalm-999-human1-ref")
        .collect();
    assert_eq!(other.len(), 25);
    assert!(other
        .iter()
        .all(|r| field(&h, r, "votes") == "0" && !field(&h, r, "note").is_empty()));
    assert!(c.failures.is_empty(), "{}", c.failures.join("\n"));
    assert_eq!(c.matched, 4 * 11 + 25 * 11);
    let html = fs::read_to_string(out.join("report/two_report.html")).unwrap();
    assert!(
        html.contains("strength_by_dataset") && html.contains("2 data sets, one per pairs file")
    );
}

/// The same file twice: ids repeat across files (allowed: unique within a
/// file), the second data set's name gets " (2)", and both data sets give
/// the same strengths as the whole.
#[test]
fn preferences_a_repeated_data_set_name_is_numbered() {
    let pairs = common::manifest_dir().join("examples/preferences/pairs.csv");
    let pairs = pairs.display().to_string();
    let (tmp, run) = run_experiment(&format!(
        "experiment_id = \"twice\"\npairs_file = [{pairs:?}, {pairs:?}]\nid_column = \
         \"comparison_id\"\nreference_column = \"preferred_text\"\nannotator_columns = \
         [\"judge_model\", \"crowd_worker\"]\nintervals = false\n"
    ));
    ok(&run);
    let (h, rows) = csv_rows(&tmp.path().join("out/output/twice_annotator_metrics.csv"));
    let strength = |value: &str, annotator: &str| {
        let r = rows
            .iter()
            .find(|r| {
                field(&h, r, "subset_value") == value && field(&h, r, "annotator") == annotator
            })
            .unwrap_or_else(|| panic!("no row {value} {annotator}"));
        field(&h, r, "strength").to_owned()
    };
    for a in ["judge_model", "crowd_worker"] {
        assert_eq!(strength("pairs", a), strength("All data", a));
        assert_eq!(strength("pairs (2)", a), strength("All data", a));
    }
}

#[test]
fn preferences_errors_one_model_column() {
    let toml = SMALL_TOML.replace(
        "subset_columns = [\"source\"]\n",
        "subset_columns = [\"source\"]\nmodel_a_column = \"judge\"\n",
    );
    refused(
        &[("exp.toml", &toml), ("pairs.csv", SMALL_CSV)],
        2,
        &["exp.toml, line 7: model_a_column is set but model_b_column is not"],
    );
}

#[test]
fn preferences_errors_dataset_subset_column_with_several_files() {
    let toml = SMALL_TOML
        .replace("\"pairs.csv\"", "[\"pairs.csv\", \"pairs.csv\"]")
        .replace("[\"source\"]", "[\"dataset\"]");
    refused(
        &[
            ("exp.toml", &toml),
            ("pairs.csv", &SMALL_CSV.replace("source", "dataset")),
        ],
        1,
        &["pairs.csv: a subset column is named \"dataset\", the name of the virtual column"],
    );
}
