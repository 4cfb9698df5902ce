//! The peers' sequence fixtures (`sequence/<case>/`): the pipelines of
//! `case.toml`'s `[wer]` run on `predictions.jsonl` give jiwer 4.0.0's
//! intermediate strings, token lists, counts, measures and error counts;
//! the refused configurations are refused (exit 2) or fail on sentence
//! counts (exit 1).

use std::collections::BTreeMap;
use std::path::Path;

use super::common::{
    add, align, cases, close, error_counts, measures, nested, spec_from_toml, strings, Counts,
};
use rsmreport_metrics::sequence::jiwer::{
    transform_pair, ApplyError, Pipeline, PipelineError, Stage,
};
use serde_json::Value;

struct Case {
    name: String,
    expected: Value,
    refs: Vec<String>,
    systems: Vec<(String, Vec<String>)>,
    wer: Option<toml::Value>,
}

fn load(dir: &Path) -> Case {
    let cfg: toml::Value =
        toml::from_str(&std::fs::read_to_string(dir.join("case.toml")).unwrap()).unwrap();
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    let input = std::fs::read_to_string(dir.join(cfg["input"].as_str().unwrap())).unwrap();
    let rows: Vec<Value> = input
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ref_col = cfg["reference_columns"][0].as_str().unwrap();
    let refs = rows
        .iter()
        .map(|r| r[ref_col].as_str().unwrap().to_string())
        .collect();
    let systems = cfg["system_columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let s = s.as_str().unwrap();
            (
                s.to_string(),
                rows.iter()
                    .map(|r| r[s].as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect();
    Case {
        name: dir.file_name().unwrap().to_string_lossy().into_owned(),
        expected,
        refs,
        systems,
        wer: cfg.get("wer").cloned(),
    }
}

/// The two sides' pipelines, as sequence.md 8.1 resolves them.
fn pipelines(wer: &Option<toml::Value>) -> Result<(Pipeline, Pipeline), PipelineError> {
    let get = |k: &str| wer.as_ref().and_then(|w| w.get(k));
    let side = |k: &str| -> Result<Pipeline, PipelineError> {
        match get(k).or(get("transform")) {
            Some(v) => {
                let key = if get(k).is_some() {
                    format!("wer.{k}")
                } else {
                    "wer.transform".to_string()
                };
                Pipeline::from_spec(&key, &spec_from_toml(v))
            }
            None => Ok(Pipeline::wer_default()),
        }
    };
    Ok((side("reference_transform")?, side("hypothesis_transform")?))
}

fn stage_json(s: &Stage) -> Value {
    match s {
        Stage::Texts(t) => serde_json::json!(t),
        Stage::Tokens(t) => serde_json::json!(t),
    }
}

/// The corpus trace (list semantics) and, where recorded, the strings'.
fn check_trace(name: &str, p: &Pipeline, texts: &[String], want: &Value) {
    let got: Vec<Value> = p
        .trace_list(texts)
        .unwrap()
        .iter()
        .map(stage_json)
        .collect();
    let steps = want["corpus"]["steps"].as_array().unwrap();
    assert_eq!(got.len(), steps.len(), "{name}: number of steps");
    for (i, (g, w)) in got.iter().zip(steps).enumerate() {
        assert_eq!(g, w, "{name}: corpus after step {}", i + 1);
    }
    if let Some(strings_want) = want.get("strings") {
        for (t, w) in texts.iter().zip(strings_want.as_array().unwrap()) {
            let (steps, tokens) = p.trace_str(t).unwrap();
            let ws = w["steps"].as_array().unwrap();
            for (g, x) in steps.iter().zip(ws) {
                assert_eq!(g, x.as_str().unwrap(), "{name}: string {t:?}");
            }
            assert_eq!(
                vec![tokens],
                nested(ws.last().unwrap()),
                "{name}: string {t:?} tokens"
            );
        }
    }
}

fn sum_counts(r: &[Vec<String>], h: &[Vec<String>]) -> Counts {
    let mut c = Counts::default();
    for (a, b) in r.iter().zip(h) {
        add(&mut c, &align(a, b).1);
    }
    c
}

fn check_counts(name: &str, c: &Counts, want: &Value, len_keys: (&str, &str)) {
    let fields = [
        ("hits", c.hits),
        ("substitutions", c.substitutions),
        ("deletions", c.deletions),
        ("insertions", c.insertions),
        (len_keys.0, c.ref_len),
        (len_keys.1, c.hyp_len),
    ];
    for (k, v) in fields {
        assert_eq!(want[k].as_u64(), Some(v), "{name}: {k}");
    }
}

fn check_errors(name: &str, got: BTreeMap<(String, String, String), u64>, want: &Value) {
    let mut w = BTreeMap::new();
    for kind in ["substitution", "insertion", "deletion"] {
        for e in want[kind].as_array().unwrap() {
            let key = (
                kind.to_string(),
                e[0].as_str().unwrap().to_string(),
                e[1].as_str().unwrap().to_string(),
            );
            w.insert(key, e[2].as_u64().unwrap());
        }
    }
    assert_eq!(got, w, "{name}: error counts");
}

/// Corpus, segment, character and error numbers of one system.
fn check_system(c: &Case, rp: &Pipeline, hp: &Pipeline, sys: &str, hyps: &[String]) {
    let e = &c.expected;
    let name = format!("{} / {sys}", c.name);
    let (r, h) = transform_pair(rp, hp, &c.refs, hyps).unwrap();
    let corpus = sum_counts(&r, &h);
    let want = &e["corpus"][sys]["word"];
    check_counts(&name, &corpus, want, ("ref_words", "hyp_words"));
    for (k, v) in ["wer", "mer", "wil", "wip"].iter().zip(measures(&corpus)) {
        assert!(close(v, want[k].as_f64().unwrap()), "{name}: {k} {v}");
    }
    check_errors(
        &name,
        error_counts(&r, &h, rsmreport_metrics::sequence::jiwer::WORD_SEPARATOR),
        &e["error_counts"][sys],
    );
    if let Some(al) = e.get("alignments") {
        // jiwer's chunks of each corpus sentence pair
        let got: Vec<Value> = r
            .iter()
            .zip(&h)
            .map(|(a, b)| {
                let chunks: Vec<Value> = align(a, b)
                    .0
                    .iter()
                    .map(|(t, a, b, c, d)| serde_json::json!([t, a, b, c, d]))
                    .collect();
                Value::from(chunks)
            })
            .collect();
        assert_eq!(
            &Value::from(got),
            &al[sys]["corpus_words"],
            "{name}: word alignment"
        );
    }
    // segments: process_words on the pair (one-item lists)
    let seg = &e["segments"][sys];
    for (i, (rt, ht)) in c.refs.iter().zip(hyps).enumerate() {
        let (r1, h1) = transform_pair(rp, hp, &[rt], &[ht]).unwrap();
        let counts = sum_counts(&r1, &h1);
        let one = |k: &str| seg[k][i].clone();
        let want: Value = [
            "hits",
            "substitutions",
            "deletions",
            "insertions",
            "ref_words",
            "hyp_words",
        ]
        .iter()
        .map(|k| (k.to_string(), one(k)))
        .collect::<serde_json::Map<_, _>>()
        .into();
        check_counts(
            &format!("{name} segment {i}"),
            &counts,
            &want,
            ("ref_words", "hyp_words"),
        );
        for (k, v) in ["wer", "mer", "wil", "wip"].iter().zip(measures(&counts)) {
            assert!(
                close(v, one(k).as_f64().unwrap()),
                "{name} segment {i}: {k}"
            );
        }
        check_string_semantics(
            &name,
            i,
            rp,
            hp,
            rt,
            ht,
            &e["segments_string_semantics"][sys],
        );
    }
    check_chars(&name, c, hyps, sys);
}

/// Where the fixture records them, the numbers of the pipelines applied to
/// the two strings themselves (sequence.md 8.2's wording).
fn check_string_semantics(
    name: &str,
    i: usize,
    rp: &Pipeline,
    hp: &Pipeline,
    r: &str,
    h: &str,
    want: &Value,
) {
    if want.is_string() {
        let (a, b) = (rp.apply_str(r).unwrap(), hp.apply_str(h).unwrap());
        let (lr, lh) = transform_pair(rp, hp, &[r], &[h]).unwrap();
        assert_eq!(
            align(&a, &b).1,
            sum_counts(&lr, &lh),
            "{name} segment {i}: string = list semantics"
        );
        return;
    }
    let (a, b) = (rp.apply_str(r).unwrap(), hp.apply_str(h).unwrap());
    let counts = align(&a, &b).1;
    assert_eq!(
        want["hits"][i].as_u64(),
        Some(counts.hits),
        "{name} segment {i}: string semantics hits"
    );
    assert_eq!(
        want["ref_words"][i].as_u64(),
        Some(counts.ref_len),
        "{name} segment {i}: string semantics ref"
    );
    assert_eq!(
        want["hyp_words"][i].as_u64(),
        Some(counts.hyp_len),
        "{name} segment {i}: string semantics hyp"
    );
}

/// sequence.md 8.3: process_characters per pair and collect_error_counts
/// of process_characters on the corpus.
fn check_chars(name: &str, c: &Case, hyps: &[String], sys: &str) {
    let e = &c.expected;
    let cer = Pipeline::cer_default();
    let (r, h) = transform_pair(&cer, &cer, &c.refs, hyps).unwrap();
    let corpus = sum_counts(&r, &h);
    check_counts(
        name,
        &corpus,
        &e["corpus"][sys]["cer"],
        ("ref_chars", "hyp_chars"),
    );
    assert!(close(
        measures(&corpus)[0],
        e["corpus"][sys]["cer"]["cer"].as_f64().unwrap()
    ));
    check_errors(
        name,
        error_counts(&r, &h, rsmreport_metrics::sequence::jiwer::CHAR_SEPARATOR),
        &e["char_error_counts"][sys],
    );
    let seg = &e["segment_char_counts"][sys];
    for (i, (rt, ht)) in c.refs.iter().zip(hyps).enumerate() {
        let (r1, h1) = transform_pair(&cer, &cer, &[rt], &[ht]).unwrap();
        let counts = sum_counts(&r1, &h1);
        for (k, v) in [
            ("hits", counts.hits),
            ("substitutions", counts.substitutions),
            ("deletions", counts.deletions),
            ("insertions", counts.insertions),
            ("ref_chars", counts.ref_len),
            ("hyp_chars", counts.hyp_len),
        ] {
            assert_eq!(seg[k][i].as_u64(), Some(v), "{name} segment {i}: char {k}");
        }
        if let Some(al) = e.get("alignments") {
            let want = &al[sys]["segment_chars"][i];
            let got: Vec<Value> = align(&r1[0], &h1[0])
                .0
                .iter()
                .map(|(t, a, b, c, d)| serde_json::json!([t, a, b, c, d]))
                .collect();
            assert_eq!(
                &Value::from(got),
                want,
                "{name} segment {i}: char alignment"
            );
        }
    }
}

/// A refused case: exit 2 (configuration) or exit 1 (sentence counts).
fn check_error(c: &Case) {
    let want = &c.expected["expect_error"];
    let mentions = strings(&want["mentions"]);
    match want["exit_code"].as_u64() {
        Some(2) => {
            let err = pipelines(&c.wer).expect_err(&c.name).to_string();
            for m in &mentions {
                assert!(err.contains(m.as_str()), "{}: {err:?} names {m:?}", c.name);
            }
        }
        _ => {
            let (rp, hp) = pipelines(&c.wer).unwrap();
            let (sys, hyps) = &c.systems[0];
            let err = transform_pair(&rp, &hp, &c.refs, hyps).expect_err(&c.name);
            let ApplyError::SentenceCounts {
                references,
                hypotheses,
            } = err
            else {
                panic!("{err}")
            };
            assert_eq!(
                mentions,
                [sys.clone(), references.to_string(), hypotheses.to_string()],
                "{}",
                c.name
            );
        }
    }
}

#[test]
fn sequence_fixtures_reproduce_jiwer() {
    let dirs = cases("sequence");
    assert!(dirs.len() >= 20, "fixtures found: {}", dirs.len());
    for dir in dirs {
        let c = load(&dir);
        if c.expected.get("expect_error").is_some() {
            check_error(&c);
            continue;
        }
        let (rp, hp) = pipelines(&c.wer).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        check_trace(&c.name, &rp, &c.refs, &c.expected["trace"]["reference"]);
        for (sys, hyps) in &c.systems {
            check_trace(
                &format!("{} / {sys}", c.name),
                &hp,
                hyps,
                &c.expected["trace"]["hypothesis"][sys],
            );
            check_system(&c, &rp, &hp, sys, hyps);
        }
    }
}
