//! `rsmreport sequence` end to end against the peers' fixtures of this
//! repository (`tests/fixtures/peers/sequence`, made by running jiwer
//! 4.0.0 on Python 3.11: `tests/fixtures/peers/README.md`): the `[wer]`
//! pipelines of sequence.md 8.1-8.2 and the character counts of 8.3. Every
//! case is run through the command and every expected value is read back
//! from its tables (counts and strings exactly, floats at 1e-9 relative +
//! 1e-12); the refused cases exit 1 or 2 with the words the fixture lists
//! and write nothing. Keys not compared here are skipped by a named rule
//! ([`SKIPPED`]).

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::sequence::{check_error_counts, f, no_mismatch, run_case, Rows, Tally};
use crate::common;

/// Expected keys not compared through the command, with the reason.
const SKIPPED: [(&str, &str); 8] = [
    ("case", "the case's name (informational)"),
    ("kind", "always sequence (informational)"),
    ("versions", "informational"),
    ("description", "informational"),
    ("settings", "the resolved configuration (informational)"),
    (
        "trace",
        "each step's intermediate value: checked step by step in crates/rsmreport-metrics/tests/jiwer",
    ),
    (
        "segments_string_semantics",
        "the numbers jiwer does not give (a transform on the strings themselves): checked in \
         crates/rsmreport-metrics/tests/jiwer",
    ),
    (
        "alignments",
        "jiwer's chunks: checked chunk by chunk against the production alignment in \
         crates/rsmreport-metrics/tests/jiwer",
    ),
];

/// The keys compared here.
const CHECKED: [&str; 7] = [
    "data",
    "segment_ids",
    "corpus",
    "segments",
    "error_counts",
    "segment_char_counts",
    "char_error_counts",
];

fn fixtures() -> PathBuf {
    common::manifest_dir().join("tests/fixtures/peers/sequence")
}

/// Every case folder, sorted.
fn cases() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(fixtures())
        .expect("tests/fixtures/peers/sequence")
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expected.json").is_file())
        .collect();
    out.sort();
    out
}

/// `corpus.<system>.word` and `.cer`: the scores and the counts.
fn check_corpus(out: &Path, e: &Value, t: &mut Tally) {
    let scores = Rows::read(&out.join("case_corpus_scores.csv"));
    let stats = Rows::read(&out.join("case_corpus_stats.csv"));
    for (sys, v) in e["corpus"].as_object().unwrap() {
        for (part, metrics, stat_metric) in [
            ("word", &["wer", "mer", "wil", "wip"][..], "wer"),
            ("cer", &["cer"][..], "cer"),
        ] {
            let x = &v[part];
            for m in metrics {
                let row = scores.find(&[("system", sys), ("metric", m)]);
                t.num(
                    &format!("corpus.{sys}.{part}.{m}"),
                    &x[*m],
                    f(row, "score"),
                    1e-9,
                );
            }
            for (k, want) in x.as_object().unwrap() {
                if metrics.contains(&k.as_str()) {
                    continue;
                }
                let row = stats.find(&[("system", sys), ("metric", stat_metric), ("statistic", k)]);
                t.num(
                    &format!("corpus.{sys}.{part}.{k}"),
                    want,
                    f(row, "value"),
                    0.0,
                );
            }
        }
    }
}

/// Per-segment columns (`segments`, `segment_char_counts`) of the
/// `tables` (the first that has the column: `segment_char_counts` has no
/// `cer`, which is `segment_scores`' column): each system's rows in the
/// fixture's segment order.
fn check_segments(tables: &[&Path], key: &str, e: &Value, t: &mut Tally) {
    let tables: Vec<Rows> = tables.iter().map(|p| Rows::read(p)).collect();
    let ids: Vec<&str> = e["segment_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for (sys, cols) in e[key].as_object().unwrap() {
        for (c, values) in cols.as_object().unwrap() {
            let Some(rows) = tables
                .iter()
                .find(|r| r.rows.first().is_some_and(|row| row.contains_key(c)))
            else {
                t.failures.push(format!("{key}: no table has column {c}"));
                continue;
            };
            let mine = rows.all(&[("system", sys)]);
            t.checked += 1;
            let got: Vec<&str> = mine
                .iter()
                .map(|r| super::sequence::s(Some(r), "id").unwrap_or(""))
                .collect();
            if got != ids {
                t.failures.push(format!(
                    "{key}.{c} ids of {sys}: expected {ids:?}, got {got:?}"
                ));
                continue;
            }
            for (i, x) in values.as_array().unwrap().iter().enumerate() {
                t.num(
                    &format!("{key}.{sys}.{c}[{i}]"),
                    x,
                    f(Some(mine[i]), c),
                    1e-9,
                );
            }
        }
    }
}

/// Every compared value of a case that runs.
fn check_case(out: &Path, e: &Value, t: &mut Tally) {
    for key in e.as_object().unwrap().keys() {
        assert!(
            CHECKED.contains(&key.as_str()) || SKIPPED.iter().any(|(k, _)| k == key),
            "expected key {key} neither checked nor skipped"
        );
    }
    let summary: Value =
        serde_json::from_str(&fs::read_to_string(out.join("case_summary.json")).unwrap()).unwrap();
    for k in ["n_rows", "n_segments", "wer_segments"] {
        t.num(
            &format!("data.{k}"),
            &e["data"][k],
            summary["data"][k].as_f64(),
            0.0,
        );
    }
    check_corpus(out, e, t);
    let (scores, chars) = (
        out.join("case_segment_scores.csv"),
        out.join("case_segment_char_counts.csv"),
    );
    check_segments(&[&scores], "segments", e, t);
    check_segments(&[&chars, &scores], "segment_char_counts", e, t);
    for (key, file) in [
        ("error_counts", "case_error_counts.csv"),
        ("char_error_counts", "case_char_error_counts.csv"),
    ] {
        check_error_counts(&out.join(file), key, &e[key], t);
    }
}

/// A refused case: the exit code, every word the fixture lists, nothing
/// written.
fn check_refused(name: &str, out: &Path, run: &common::Run, want: &Value, t: &mut Tally) {
    t.checked += 1;
    let code = want["exit_code"].as_i64().map(|c| c as i32);
    if run.code != code {
        t.failures.push(format!(
            "exit code: expected {code:?}, got {:?} ({})",
            run.code, run.stderr
        ));
    }
    for m in want["mentions"].as_array().unwrap() {
        t.checked += 1;
        let m = m.as_str().unwrap();
        if !run.stderr.contains(m) {
            t.failures
                .push(format!("{name}: {m:?} not in the message {:?}", run.stderr));
        }
    }
    t.checked += 1;
    if out.parent().unwrap().exists() {
        t.failures
            .push(format!("{name}: the output folder was written"));
    }
}

#[test]
fn sequence_reproduces_every_peer_fixture_value() {
    let dirs = cases();
    assert!(dirs.len() >= 29, "peer fixtures found: {}", dirs.len());
    let only = std::env::var("SEQUENCE_CASE").ok();
    let (mut total, mut failures) = (0, Vec::new());
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        let expected: Value =
            serde_json::from_str(&fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
        let work = tempfile::TempDir::new().unwrap();
        let (out, run) = run_case(&dir, work.path());
        assert!(!run.panicked(), "{name}: {}", run.describe());
        let mut t = Tally::default();
        match expected.get("expect_error") {
            Some(want) => check_refused(&name, &out, &run, want, &mut t),
            None => {
                assert!(run.success, "{name}: {}", run.describe());
                check_case(&out, &expected, &mut t);
            }
        }
        println!(
            "sequence peers {name}: {} values checked, {} failed",
            t.checked,
            t.failures.len()
        );
        total += t.checked;
        failures.extend(t.failures.into_iter().map(|f| format!("{name}: {f}")));
    }
    no_mismatch("sequence peers", total, &SKIPPED, &failures);
}

// ------------------------------------- list-aware pipelines (sequence.md 8.2)

/// Four rows in two subgroups; row 2's hypotheses are empty and row 3's
/// reference is blank, so `remove_empty_strings` drops a sentence on each
/// side of the corpus (equal numbers: jiwer aligns the shifted sentences)
/// but not within each subgroup.
const SHIFTED: &str = "id,ref,v1,v2,domain\n\
                       1,a b c,a b c,a b,x\n\
                       2,d e,,,x\n\
                       3, ,x,x y,y\n\
                       4,p q,p q,p,y\n";

const SHIFTED_EXP: &str = "experiment_id = \"shift\"\npredictions_file = \"p.csv\"\n\
                           reference_columns = [\"ref\"]\nsystem_columns = [\"v1\", \"v2\"]\n\
                           subgroups = [\"domain\"]\nmetrics = [\"bleu\", \"wer\"]\n\
                           [intervals]\nreplicates = 50\n";

/// An empty cell (read back as NaN), or no such row.
fn empty(cell: Option<f64>) -> bool {
    cell.is_none_or(f64::is_nan)
}

/// Runs `exp` on `table` in a fresh folder.
fn run_table(exp: &str, table: &str) -> (tempfile::TempDir, common::Run) {
    let work = tempfile::TempDir::new().unwrap();
    fs::write(work.path().join("p.csv"), table).unwrap();
    fs::write(work.path().join("exp.toml"), exp).unwrap();
    let run = common::run_in(work.path(), ["sequence", "exp.toml", "-o", "out"]);
    assert!(!run.panicked(), "{}", run.describe());
    (work, run)
}

#[test]
fn sequence_list_aware_pipelines_score_the_lists_and_leave_resampling_empty() {
    let exp = format!(
        "{SHIFTED_EXP}[wer]\ntransform = [\"strip\", \"remove_empty_strings\", \
         \"reduce_to_list_of_list_of_words\"]\n"
    );
    let (work, run) = run_table(&exp, SHIFTED);
    assert!(run.success, "{}", run.describe());
    let out = work.path().join("out/output");
    let corpus = Rows::read(&out.join("shift_corpus_scores.csv"));
    // v1: (a b c | a b c), (d e | x), (p q | p q): 1 S + 1 D of 7 words;
    // v2: (a b c | a b), (d e | x y), (p q | p): 2 S + 2 D of 7
    for (sys, wer) in [("v1", 2.0 / 7.0), ("v2", 4.0 / 7.0)] {
        let row = corpus.find(&[("system", sys), ("metric", "wer")]);
        assert!((f(row, "score").unwrap() - wer).abs() < 1e-12, "{sys}");
        assert!(empty(f(row, "lower")), "{sys}: no interval");
        assert_eq!(f(row, "n_segments"), Some(4.0));
        // BLEU keeps its interval
        let bleu = corpus.find(&[("system", sys), ("metric", "bleu")]);
        assert!(!empty(f(bleu, "lower")), "{sys}: BLEU interval");
    }
    let stats = Rows::read(&out.join("shift_corpus_stats.csv"));
    let stat = |sys: &str, k: &str| {
        f(
            stats.find(&[("system", sys), ("metric", "wer"), ("statistic", k)]),
            "value",
        )
    };
    assert_eq!(
        [
            "hits",
            "substitutions",
            "deletions",
            "insertions",
            "ref_words",
            "hyp_words"
        ]
        .map(|k| stat("v1", k).unwrap()),
        [5.0, 1.0, 1.0, 0.0, 7.0, 6.0]
    );
    let significance = Rows::read(&out.join("shift_significance.csv"));
    let row = significance.find(&[("system", "v2"), ("metric", "wer")]);
    assert!(empty(f(row, "bs_mean")) && empty(f(row, "bs_p")));
    let cmp = Rows::read(&out.join("shift_system_comparisons.csv"));
    let row = cmp.find(&[("system", "v2"), ("statistic", "wer")]);
    assert!((f(row, "delta").unwrap() - 2.0 / 7.0).abs() < 1e-12);
    assert!(empty(f(row, "delta_lower")) && empty(f(row, "p_value")));
    assert_eq!(super::sequence::s(row, "verdict"), Some("not testable"));
    // each subgroup's lists: x keeps 2 references and 1 hypothesis, y 1 and
    // 2: jiwer would refuse them, so empty cells
    let by = Rows::read(&out.join("shift_corpus_scores_by_domain.csv"));
    for level in ["x", "y"] {
        let row = by.find(&[("system", "v1"), ("domain", level), ("metric", "wer")]);
        assert!(empty(f(row, "score")), "{level}");
        assert_eq!(f(row, "n_segments"), Some(2.0), "{level}");
    }
    // segment scores: process_words on each pair (one-item lists): row 3's
    // blank reference leaves one empty sentence, "x" is an insertion
    let seg = Rows::read(&out.join("shift_segment_scores.csv"));
    let row = seg.find(&[("system", "v1"), ("id", "3")]);
    assert_eq!(
        (f(row, "wer"), f(row, "ref_words"), f(row, "insertions")),
        (Some(1.0), Some(0.0), Some(1.0))
    );
    let report = fs::read_to_string(work.path().join("out/report/shift_report.html")).unwrap();
    assert!(
        report.contains(
            "The WER family has no intervals, bootstrap or comparison here: the [wer] \
             transforms use remove_empty_strings, which can change the number of sentences"
        ),
        "the report says why"
    );
}

#[test]
fn sequence_element_wise_pipelines_keep_their_intervals() {
    let exp = format!(
        "{SHIFTED_EXP}[wer]\nreference_transform = \"standardize\"\n\
         hypothesis_transform = [\"to_upper_case\", \"to_lower_case\", \
         {{ step = \"substitute_words\", map = {{ \"x\" = \"d\" }} }}, \"strip\", \
         \"reduce_to_list_of_list_of_words\"]\n"
    );
    let (work, run) = run_table(&exp, SHIFTED);
    assert!(run.success, "{}", run.describe());
    let out = work.path().join("out/output");
    let corpus = Rows::read(&out.join("shift_corpus_scores.csv"));
    let row = corpus.find(&[("system", "v1"), ("metric", "wer")]);
    assert!(!empty(f(row, "lower")), "an interval");
    // v1 by segment: 0 + 2 D + 1 I ("x" -> "d" against the empty reference) + 0, of 7 words
    assert!((f(row, "score").unwrap() - 3.0 / 7.0).abs() < 1e-12);
    let report = fs::read_to_string(work.path().join("out/report/shift_report.html")).unwrap();
    assert!(!report.contains("The WER family has no intervals"));
}

#[test]
fn sequence_different_sentence_counts_are_a_data_error_naming_system_and_numbers() {
    let exp = format!(
        "{SHIFTED_EXP}[wer]\nreference_transform = [\"strip\", \"remove_empty_strings\", \
         \"reduce_to_list_of_list_of_words\"]\n"
    );
    let (work, run) = run_table(&exp, SHIFTED);
    assert_eq!(run.code, Some(1), "{}", run.describe());
    assert_eq!(
        run.stderr.trim_end(),
        "error: system v1: the [wer] transforms leave 3 reference sentences and 4 hypothesis \
         sentences (from 4 segments with a first reference); jiwer aligns sentence i with \
         sentence i and refuses different numbers (its ValueError \"their lengths must \
         match\"); nothing was written"
    );
    assert!(!work.path().join("out").exists());
}
