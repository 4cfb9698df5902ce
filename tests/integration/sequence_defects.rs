//! `rsmreport sequence`: the defects of issue 50 against `spec/sequence.md`,
//! each with the exact message or number it must give: a perplexity-only
//! experiment honours `baseline` (its role, the comparisons, the summary,
//! the terminal's last line); very large perplexities in the exponent form;
//! the bad-input messages that lost the file, the key or their grammar.

use std::fs;

use serde_json::Value;

use super::sequence::{f, s, Rows};
use crate::common;

/// Runs `exp.toml` = `exp` with `files` in a fresh folder.
fn run(exp: &str, files: &[(&str, &str)]) -> (tempfile::TempDir, common::Run) {
    let work = tempfile::TempDir::new().unwrap();
    for (name, text) in files {
        fs::write(work.path().join(name), text).unwrap();
    }
    fs::write(work.path().join("exp.toml"), exp).unwrap();
    let run = common::run_in(work.path(), ["sequence", "exp.toml", "-o", "out"]);
    assert!(!run.panicked(), "{}", run.describe());
    (work, run)
}

/// m1: NLL 3 + 2 over 4 tokens, exp(1.25) = 3.4903; m2: 1.5 + 1 over 4,
/// exp(0.625) = 1.8682 (a leading null dropped in each first sequence).
const TWO_MODELS: &str = "{\"id\": \"a\", \"system\": \"m1\", \"logprobs\": [null, -1.0, -2.0]}\n\
                          {\"id\": \"b\", \"system\": \"m1\", \"logprobs\": [-0.5, -1.5]}\n\
                          {\"id\": \"a\", \"system\": \"m2\", \"logprobs\": [null, -0.5, -1.0]}\n\
                          {\"id\": \"b\", \"system\": \"m2\", \"logprobs\": [-0.25, -0.75]}\n";

#[test]
fn sequence_perplexity_alone_honours_the_baseline() {
    let exp = "experiment_id = \"ppl\"\nlogprobs_file = \"lp.jsonl\"\nmetrics = [\"perplexity\"]\n\
               baseline = \"m2\"\n[intervals]\nreplicates = 200\n";
    let (work, run) = run(exp, &[("lp.jsonl", TWO_MODELS)]);
    assert!(run.success, "{}", run.describe());
    let out = work.path().join("out/output");
    let sig = Rows::read(&out.join("ppl_significance.csv"));
    assert_eq!(s(sig.find(&[("system", "m2")]), "role"), Some("baseline"));
    assert_eq!(s(sig.find(&[("system", "m1")]), "role"), Some("candidate"));
    // the first row is the baseline's, as sacreBLEU lists it
    assert_eq!(
        sig.rows[0]["system"].as_deref(),
        Some("m2"),
        "the baseline first"
    );
    let cmp = Rows::read(&out.join("ppl_system_comparisons.csv"));
    assert_eq!(cmp.rows.len(), 1);
    let row = cmp.find(&[
        ("baseline_system", "m2"),
        ("system", "m1"),
        ("statistic", "perplexity"),
    ]);
    let delta = 1.25f64.exp() - 0.625f64.exp();
    assert!((f(row, "delta").unwrap() - delta).abs() < 1e-12);
    // every replicate's difference lies in [e^1 - e^0.5, e^1.5 - e^0.75]: above the margin
    assert_eq!(s(row, "verdict"), Some("regressed"));
    let summary: Value =
        serde_json::from_str(&fs::read_to_string(out.join("ppl_summary.json")).unwrap()).unwrap();
    assert_eq!(summary["baseline"], "m2");
    assert_eq!(summary["comparisons"][0]["candidate"], "m1");
    assert_eq!(
        run.stdout.lines().last(),
        Some(
            "overall: regressed: m2 (the baseline) has the lowest perplexity: 1.8682. \
             Worse: m1 perplexity (+1.6221, regressed)."
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("  m1 vs m2: perplexity +1.6221 -> regressed\n"),
        "{}",
        run.stdout
    );
    // without `baseline`: the file's first system
    let exp = exp.replace("baseline = \"m2\"\n", "");
    let (work, run) = run_default(&exp);
    let summary: Value = serde_json::from_str(
        &fs::read_to_string(work.path().join("out/output/ppl_summary.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(summary["baseline"], "m1", "{}", run.stdout);
    assert_eq!(
        run.stdout.lines().last(),
        Some("overall: improved: m2 is 1.62 perplexity below m1: improved (margin 0.1 perplexity, Holm across metrics). No candidate metric got worse."),
    );
}

fn run_default(exp: &str) -> (tempfile::TempDir, common::Run) {
    let (work, r) = run(exp, &[("lp.jsonl", TWO_MODELS)]);
    assert!(r.success, "{}", r.describe());
    (work, r)
}

#[test]
fn sequence_perplexity_alone_refuses_a_baseline_that_is_no_system() {
    let exp = "experiment_id = \"ppl\"\nlogprobs_file = \"lp.jsonl\"\nmetrics = [\"perplexity\"]\n\
               baseline = \"m3\"\n";
    let (work, run) = run(exp, &[("lp.jsonl", TWO_MODELS)]);
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert_eq!(
        run.stderr.trim_end(),
        "error: exp.toml: baseline \"m3\" is not a system of lp.jsonl (its systems are m1, m2); \
         did you mean \"m1\"?"
    );
    assert!(!work.path().join("out").exists());
}

#[test]
fn sequence_perplexity_alone_with_one_system_says_its_perplexity() {
    // a sentinel kept: the first screen warns, so the decision line is printed
    let lines = "{\"id\": \"a\", \"system\": \"m1\", \"logprobs\": [-9999.0, -1.0]}\n";
    let exp = "experiment_id = \"ppl\"\nlogprobs_file = \"lp.jsonl\"\nmetrics = [\"perplexity\"]\n\
               intervals = false\n[perplexity]\nsentinel = \"keep\"\n";
    let (_work, run) = run(exp, &[("lp.jsonl", lines)]);
    assert!(run.success, "{}", run.describe());
    // exp(10000 / 2) overflows: inf
    assert_eq!(
        run.stdout.lines().last(),
        Some("overall: one system: m1 has perplexity inf.")
    );
}

#[test]
fn sequence_large_perplexities_are_written_in_exponent_form() {
    // one sentinel kept among 200 tokens: exp((9999 + 199 * 0.5) / 200) = 8.484e+21
    let mut logprobs = vec!["-9999.0".to_string()];
    logprobs.extend(std::iter::repeat_n("-0.5".to_string(), 199));
    let lines = format!(
        "{{\"id\": \"a\", \"system\": \"m1\", \"logprobs\": [{}]}}\n",
        logprobs.join(", ")
    );
    let exp = "experiment_id = \"ppl\"\nlogprobs_file = \"lp.jsonl\"\nmetrics = [\"perplexity\"]\n\
               intervals = false\n[perplexity]\nsentinel = \"keep\"\n";
    let (_work, run) = run(exp, &[("lp.jsonl", &lines)]);
    assert!(run.success, "{}", run.describe());
    assert!(
        run.stdout
            .contains("\n  m1               perplexity 8.484e+21 over 1 sequence\n"),
        "{}",
        run.stdout
    );
}

const TABLE: &str = "id,ref,ref2,v1,v2\n1,,,c,d\n2,,,e,f\n";
const HEAD: &str = "experiment_id = \"x\"\npredictions_file = \"p.csv\"\n\
                    reference_columns = [\"ref\", \"ref2\"]\nsystem_columns = [\"v1\", \"v2\"]\n";

#[test]
fn sequence_no_segment_left_names_the_file_and_its_reference_columns() {
    let (work, run) = run(HEAD, &[("p.csv", TABLE)]);
    assert_eq!(run.code, Some(1), "{}", run.describe());
    assert_eq!(
        run.stderr.trim_end(),
        "error: p.csv: no segment left: every one of its 2 rows lacks a reference \
         (reference_columns: ref, ref2 are empty)"
    );
    assert!(!work.path().join("out").exists());
    let (_work, run) = run_one(HEAD, "id,ref,ref2,v1,v2\n1,,,c,d\n");
    assert_eq!(
        run.stderr.trim_end(),
        "error: p.csv: no segment left: its only row lacks a reference \
         (reference_columns: ref, ref2 are empty)"
    );
}

fn run_one(exp: &str, table: &str) -> (tempfile::TempDir, common::Run) {
    run(exp, &[("p.csv", table)])
}

#[test]
fn sequence_text_files_of_different_lengths_name_each_file_and_role() {
    let exp = "experiment_id = \"x\"\nreferences = [\"ref.txt\"]\n[systems]\nv1 = \"hyp.txt\"\n";
    let (work, run) = run(exp, &[("ref.txt", "a\nb\nc\n"), ("hyp.txt", "a\n")]);
    assert_eq!(run.code, Some(1), "{}", run.describe());
    let err = run.stderr.trim_end();
    assert!(
        err.ends_with(
            "hyp.txt (system v1) has 1 line but ref.txt (reference 1) has 3 lines; every \
             reference and system file needs one line per segment"
        ),
        "{err}"
    );
    assert!(!work.path().join("out").exists());
}

#[test]
fn sequence_a_system_column_that_is_a_reference_column_names_both_keys() {
    let exp = "experiment_id = \"x\"\npredictions_file = \"p.csv\"\n\
               reference_columns = [\"ref\"]\nsystem_columns = [\"ref\", \"v2\"]\n";
    let (work, run) = run(exp, &[("p.csv", TABLE)]);
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert_eq!(
        run.stderr.trim_end(),
        "error: exp.toml, line 4: system_columns names \"ref\", which reference_columns names \
         too; a column is a reference or a system, not both"
    );
    assert!(!work.path().join("out").exists());
}
