//! Pairwise-preference metrics against Feedback Forensics 0.5.0
//! (`cargo test --test integration preferences`).
//!
//! For each `tests/fixtures/preferences/<case>/` (copies of the shared
//! `fixtures/agreement/ff-*` cases: our own simulated and hand-made data)
//! the test reads `case.toml` and `pairs.csv`, computes every value of
//! `expected.json` with `rsmreport::metrics::preferences` (the summary's
//! vote counts, then for the whole table and for every subset value the
//! overview and the per-annotator metrics) and compares them with the
//! fixture's tolerance `|a - e| <= 1e-9 |e| + 1e-12` (integers exactly).
//! Every leaf of `expected.json` must be checked; the only keys not
//! compared are listed in [`SKIPPED`] with the reason. Feedback Forensics'
//! own bootstrap interval of strength is unseeded, so the fixtures do not
//! hold it (README 5.4) and nothing here compares it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use rsmreport::metrics::preferences::{
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
    let dir = case_dir(case);
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
    let mut c = Checker {
        expected: &expected,
        visited: BTreeSet::new(),
        failures: Vec::new(),
        matched: 0,
        p_values_relative: 0,
    };
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
