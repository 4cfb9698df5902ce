//! Shared helpers of the jiwer tests: the peers' fixtures
//! (`tests/fixtures/peers` of the repository), TOML and JSON values as
//! [`SpecValue`]s, and the pipelines' tokens scored with the production
//! alignment (`metrics::sequence::wer`, rapidfuzz's `Levenshtein.opcodes`
//! rule of sequence.md 2.4), so the fixtures check the whole chain.

#![allow(dead_code)]

use std::path::PathBuf;

use rsmreport_metrics::sequence::jiwer::SpecValue;
use rsmreport_metrics::sequence::wer::{self, ErrorCounts, Tag};
use serde_json::Value;

/// The peers' fixtures: `tests/fixtures/peers` of the repository (ours,
/// committed; made by its `make_peer_fixtures.py`).
pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/peers")
}

/// A JSON file of the fixtures.
pub fn read_json(rel: &str) -> Value {
    let path = fixtures().join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("valid JSON")
}

/// The folders of a fixture kind, sorted.
pub fn cases(kind: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(fixtures().join(kind))
        .expect("fixture folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("case.toml").exists())
        .collect();
    out.sort();
    out
}

/// A TOML value as the crate's configuration value (the conversion
/// rsmreport's config layer does; `toml` with `preserve_order` keeps `map`s
/// in file order).
pub fn spec_from_toml(v: &toml::Value) -> SpecValue {
    match v {
        toml::Value::String(s) => SpecValue::String(s.clone()),
        toml::Value::Boolean(b) => SpecValue::Bool(*b),
        toml::Value::Array(a) => SpecValue::Array(a.iter().map(spec_from_toml).collect()),
        toml::Value::Table(t) => SpecValue::Table(
            t.iter()
                .map(|(k, v)| (k.clone(), spec_from_toml(v)))
                .collect(),
        ),
        other => SpecValue::Other(other.type_str().to_string()),
    }
}

/// A JSON value (the fixtures' step specs) as a configuration value.
pub fn spec_from_json(v: &Value) -> SpecValue {
    match v {
        Value::String(s) => SpecValue::String(s.clone()),
        Value::Bool(b) => SpecValue::Bool(*b),
        Value::Array(a) => SpecValue::Array(a.iter().map(spec_from_json).collect()),
        Value::Object(o) => SpecValue::Table(
            o.iter()
                .map(|(k, v)| (k.clone(), spec_from_json(v)))
                .collect(),
        ),
        Value::Number(_) => SpecValue::Other("number".into()),
        Value::Null => SpecValue::Other("null".into()),
    }
}

pub fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_str().expect("string").to_string())
        .collect()
}

pub fn nested(v: &Value) -> Vec<Vec<String>> {
    v.as_array().expect("array").iter().map(strings).collect()
}

/// Counts of one alignment or of a corpus: the production alignment's
/// (chunks left empty when summed).
pub type Counts = wer::Alignment;

/// Adds `o`'s counts to `c`.
pub fn add(c: &mut Counts, o: &Counts) {
    c.hits += o.hits;
    c.substitutions += o.substitutions;
    c.deletions += o.deletions;
    c.insertions += o.insertions;
    c.ref_len += o.ref_len;
    c.hyp_len += o.hyp_len;
}

/// jiwer's (wer, mer, wil, wip): the production measures.
pub fn measures(c: &Counts) -> [f64; 4] {
    let [h, s, d, i, n, p] = c.counts().map(|x| x as f64);
    wer::measures(h, s, d, i, n, p)
}

/// An opcode chunk: tag (`equal`, `substitute`, `delete`, `insert`) and
/// the reference and hypothesis ranges.
pub type Chunk = (&'static str, usize, usize, usize, usize);

/// The production alignment of two token lists as chunks (jiwer's
/// `AlignmentChunk`s) and counts.
pub fn align(r: &[String], h: &[String]) -> (Vec<Chunk>, Counts) {
    let a = wer::align_tokens(r, h);
    let chunks = a
        .chunks
        .iter()
        .map(|c| {
            let tag = match c.tag {
                Tag::Equal => "equal",
                Tag::Substitute => "substitute",
                Tag::Delete => "delete",
                Tag::Insert => "insert",
            };
            (tag, c.ref_start, c.ref_end, c.hyp_start, c.hyp_end)
        })
        .collect();
    let counts = Counts {
        chunks: Vec::new(),
        ..a
    };
    (chunks, counts)
}

/// `collect_error_counts` over aligned sentence pairs with the production
/// [`ErrorCounts`] (chunks joined with `sep`): (type, reference,
/// hypothesis) -> count. One entry per distinct text, also where tokens
/// hold the separator (a custom `word_delimiter`).
pub fn error_counts(
    refs: &[Vec<String>],
    hyps: &[Vec<String>],
    sep: &str,
) -> std::collections::BTreeMap<(String, String, String), u64> {
    let mut counts = ErrorCounts::default();
    for (r, h) in refs.iter().zip(hyps) {
        let a = wer::align_tokens(r, h);
        wer::add_error_counts(&a, r, h, sep, &mut counts);
    }
    counts.finish();
    let mut out = std::collections::BTreeMap::new();
    for e in counts.entries() {
        let text = |id: Option<u32>| id.map_or_else(String::new, |i| counts.text(i).to_string());
        let key = (
            e.kind.name().to_string(),
            text(e.reference),
            text(e.hypothesis),
        );
        assert!(out.insert(key, e.count).is_none(), "one entry per text");
    }
    out
}

/// `|a - e| <= 1e-9 |e| + 1e-12`.
pub fn close(a: f64, e: f64) -> bool {
    (a - e).abs() <= 1e-9 * e.abs() + 1e-12
}
