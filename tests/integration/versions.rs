//! The version workflow of every kind (issue 49): `compare` of two
//! folders of a kind other than build, paired by unit id and judged by the
//! kind's own code. Classify: two single-system runs of the bundled
//! example compared give the `system_comparisons` table of one run with
//! both systems (every number: same items, same order, same seed); folders
//! of two kinds, other label sets and folders of a release that kept no
//! units are refused (exit 2, naming both); gold labels that differ on
//! shared items are named with counts and get no verdict
//! (`cargo test --test integration versions`).

use std::fs;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::common;

/// The bundled classify example's folder.
fn example_dir() -> PathBuf {
    common::manifest_dir().join("examples/classify")
}

/// The example's experiment with one system (`system`), its own id and
/// model version, and `extra` lines at the top (`labels` replaces the
/// example's, without probabilities); the predictions file as
/// `predictions` (absolute).
fn single_system(system: &str, predictions: &Path, extra: &str) -> String {
    let text = fs::read_to_string(example_dir().join("exp.toml")).unwrap();
    let mut out = format!(
        "experiment_id = \"intent_{system}\"\nmodel_version = \"{system}\"\n{extra}\n\
         predictions_file = \"{}\"\nsystem_columns = [\"{system}\"]\n",
        predictions.display()
    );
    let replaced = [
        "experiment_id",
        "predictions_file",
        "system_columns",
        "baseline",
    ];
    let relabelled = ["labels", "probability_pattern"];
    for line in text.lines() {
        let key = line.split('=').next().unwrap_or("").trim();
        let dropped =
            replaced.contains(&key) || (relabelled.contains(&key) && extra.contains("labels"));
        if !dropped {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Runs `rsmreport <kind>` of `exp` (written to `cwd/<name>.toml`) into
/// `cwd/<name>`.
fn make(cwd: &Path, kind: &str, name: &str, exp: &str) -> PathBuf {
    let file = cwd.join(format!("{name}.toml"));
    fs::write(&file, exp).unwrap();
    let out = cwd.join(name);
    let run = common::run_in(
        cwd,
        [kind, file.to_str().unwrap(), "-o", out.to_str().unwrap()],
    );
    assert!(run.success, "{}", run.describe());
    out
}

fn classify(cwd: &Path, name: &str, exp: &str) -> PathBuf {
    make(cwd, "classify", name, exp)
}

fn compare(cwd: &Path, b: &Path, c: &Path, out: &str) -> common::Run {
    common::run_in(
        cwd,
        [
            "compare",
            b.to_str().unwrap(),
            c.to_str().unwrap(),
            "-o",
            out,
        ],
    )
}

/// A CSV file's rows, each as its cells.
fn rows(path: &Path) -> Vec<Vec<String>> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| l.split(',').map(String::from).collect())
        .collect()
}

#[test]
fn versions_classify_compare_is_the_within_experiment_comparison() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let predictions = example_dir().join("predictions.csv");
    let both = classify(
        cwd,
        "both",
        &fs::read_to_string(example_dir().join("exp.toml"))
            .unwrap()
            .replace(
                "predictions_file = \"predictions.csv\"",
                &format!("predictions_file = \"{}\"", predictions.display()),
            ),
    );
    let v1 = classify(cwd, "v1", &single_system("v1", &predictions, ""));
    let v2 = classify(cwd, "v2", &single_system("v2", &predictions, ""));
    for (dir, id) in [(&v1, "intent_v1"), (&v2, "intent_v2")] {
        for ext in ["parquet", "json"] {
            let f = dir.join(format!("output/{id}_units.{ext}"));
            assert!(f.is_file(), "{}", f.display());
        }
    }
    let run = compare(cwd, &v1, &v2, "cmp");
    assert_eq!(run.code, Some(0), "{}", run.describe());
    let want = rows(&both.join("output/intent_v2_system_comparisons.csv"));
    let got = rows(&cwd.join("cmp/output/v1_vs_v2_system_comparisons.csv"));
    assert_eq!(got.len(), want.len());
    assert!(want.len() > 5, "{want:?}");
    // The systems are named by the folders' model versions, here the
    // example's system names: the whole table is the same.
    assert_eq!(got, want);
    // The terminal: the preflight, compare's heading line, one change
    // line per overall statistic, the decision last.
    let out = &run.stdout;
    assert!(
        out.starts_with("preflight (baseline | candidate):\n"),
        "{out}"
    );
    assert!(
        out.contains("compare v1 (baseline) -> v2 (candidate), classify, paired on 600 items:"),
        "{out}"
    );
    assert!(
        out.contains(
            "  accuracy               change: [+0.087 +0.127 +0.165] (p < 0.001) improved"
        ),
        "{out}"
    );
    assert!(
        out.lines().last().unwrap().starts_with("overall: improved"),
        "{out}"
    );
    let report = cwd.join("cmp/report/v1_vs_v2_compare.html");
    assert!(report.is_file());
    let summary: serde_json::Value =
        serde_json::from_slice(&fs::read(cwd.join("cmp/output/v1_vs_v2_summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["kind"], "compare");
    assert_eq!(summary["compared_kind"], "classify");
    assert_eq!(summary["paired_units"], 600);
    assert_eq!(summary["inputs"].as_array().unwrap().len(), 2);
    // The same pair again: the same bytes.
    let again = compare(cwd, &v1, &v2, "cmp2");
    assert_eq!(again.code, Some(0));
    for f in [
        "output/v1_vs_v2_system_comparisons.csv",
        "output/v1_vs_v2_summary.json",
    ] {
        assert_eq!(
            fs::read(cwd.join("cmp").join(f)).unwrap(),
            fs::read(cwd.join("cmp2").join(f)).unwrap(),
            "{f}"
        );
    }
}

/// Gold labels changed on 7 items of the candidate's file: named with the
/// count and the first ids, every verdict withheld (`not testable`), the
/// numbers those of the items whose gold labels agree.
#[test]
fn versions_classify_gold_labels_that_differ_are_named_and_get_no_verdict() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let predictions = example_dir().join("predictions.csv");
    let text = fs::read_to_string(&predictions).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let gold = header.iter().position(|c| *c == "gold").unwrap();
    let mut changed = 0;
    for line in lines.iter_mut().skip(1).take(7) {
        let mut cells: Vec<String> = line.split(',').map(String::from).collect();
        cells[gold] = if cells[gold] == "tech" {
            "other".into()
        } else {
            "tech".into()
        };
        *line = cells.join(",");
        changed += 1;
    }
    let moved = cwd.join("moved.csv");
    fs::write(&moved, lines.join("\n") + "\n").unwrap();
    let v1 = classify(cwd, "v1", &single_system("v1", &predictions, ""));
    let v2 = classify(cwd, "v2", &single_system("v2", &moved, ""));
    let run = compare(cwd, &v1, &v2, "cmp");
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert!(
        run.stdout.contains(&format!(
            "gold labels differing on common items  differs        {changed} | {changed}"
        )),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains(&format!(
            "the gold labels differ on {changed} of the 600 items"
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout
            .contains("compare v1 (baseline) -> v2 (candidate), classify, paired on 593 items:"),
        "{}",
        run.stdout
    );
    let table = rows(&cwd.join("cmp/output/v1_vs_v2_system_comparisons.csv"));
    let verdict = table[0].iter().position(|c| c == "verdict").unwrap();
    assert!(table[1..].iter().all(|r| r[verdict] == "not testable"));
}

/// Refused, exit 2, nothing written: folders of two kinds (both named),
/// classify folders with other label sets (both sets named), and a
/// classify folder of a release that kept no per-item data.
#[test]
fn versions_compare_refuses_other_kinds_labels_and_old_folders() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let predictions = example_dir().join("predictions.csv");
    let v1 = classify(cwd, "v1", &single_system("v1", &predictions, ""));
    let wider = classify(
        cwd,
        "v2",
        &single_system(
            "v2",
            &predictions,
            "labels = [\"billing\", \"tech\", \"other\", \"refund\"]",
        ),
    );
    let run = compare(cwd, &v1, &wider, "c1");
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr.contains(&format!(
            "the baseline folder {} has the labels [billing, tech, other] and the candidate \
             folder {} the labels [billing, tech, other, refund]",
            v1.display(),
            wider.display()
        )),
        "{}",
        run.stderr
    );
    let agree = cwd.join("agree");
    let exp = common::manifest_dir().join("examples/agree/exp.toml");
    let made = common::run_in(
        cwd,
        [
            "agree",
            exp.to_str().unwrap(),
            "-o",
            agree.to_str().unwrap(),
        ],
    );
    assert!(made.success, "{}", made.describe());
    let run = compare(cwd, &v1, &agree, "c2");
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr.contains(&format!(
            "the baseline folder {} is an output folder of `rsmreport classify` and the \
             candidate folder {} one of `rsmreport agree`",
            v1.display(),
            agree.display()
        )),
        "{}",
        run.stderr
    );
    let old = common::local_fixtures().join("archives/classify-8648b92");
    let run = compare(cwd, &old, &v1, "c3");
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr.contains("without its per-item data")
            && run
                .stderr
                .contains("output/intent_v2_units.json is missing"),
        "{}",
        run.stderr
    );
    for out in ["c1", "c2", "c3"] {
        assert!(!cwd.join(out).exists(), "{out} was written");
    }
}

/// A sequence experiment on the bundled example's outputs: `systems`,
/// its own id and model version, the text metrics, `extra` lines.
fn sequence_experiment(id: &str, systems: &str, extra: &str) -> String {
    let outputs = common::manifest_dir().join("examples/sequence/outputs.csv");
    format!(
        "experiment_id = \"mt_{id}\"\nmodel_version = \"{id}\"\n\
         predictions_file = \"{}\"\nid_column = \"id\"\n\
         reference_columns = [\"ref\", \"ref_2\"]\nsystem_columns = {systems}\n\
         subgroups = [\"domain\"]\nmetrics = [\"bleu\", \"chrf\", \"ter\", \"wer\", \"cer\"]\n\
         {extra}\n[significance]\nar_trials = 1000\n",
        outputs.display()
    )
}

fn sequence(cwd: &Path, name: &str, exp: &str) -> PathBuf {
    make(cwd, "sequence", name, exp)
}

/// Two single-system sequence runs compared: the `system_comparisons` of
/// one run with both systems, every cell (sacreBLEU's paired bootstrap and
/// approximate randomization on the same segments with the same seed).
#[test]
fn versions_sequence_compare_is_the_within_experiment_comparison() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let both = sequence(
        cwd,
        "both",
        &sequence_experiment("both", "[\"v1\", \"v2\"]", ""),
    );
    let v1 = sequence(cwd, "v1", &sequence_experiment("v1", "[\"v1\"]", ""));
    let v2 = sequence(cwd, "v2", &sequence_experiment("v2", "[\"v2\"]", ""));
    assert!(v1.join("output/mt_v1_units.parquet").is_file());
    let run = compare(cwd, &v1, &v2, "cmp");
    assert_eq!(run.code, Some(0), "{}", run.describe());
    let want = rows(&both.join("output/mt_both_system_comparisons.csv"));
    let got = rows(&cwd.join("cmp/output/v1_vs_v2_system_comparisons.csv"));
    assert_eq!(want.len(), 6, "{want:?}");
    assert_eq!(got, want);
    assert!(
        run.stdout.contains(
            "compare v1 (baseline) -> v2 (candidate), sequence, paired on 120 segments:\n  \
             BLEU                   change: [+1.965 +8.223 +14.183] (p = 0.006) improved"
        ),
        "{}",
        run.stdout
    );
    assert!(run
        .stdout
        .lines()
        .last()
        .unwrap()
        .starts_with("overall: improved"));
}

/// Sequence folders scored with another BLEU tokenizer are refused (exit
/// 2, the setting and both values named); references changed on shared
/// segments are named with their count and get no verdict.
#[test]
fn versions_sequence_refuses_other_tokenizers_and_names_other_references() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let v1 = sequence(cwd, "v1", &sequence_experiment("v1", "[\"v1\"]", ""));
    let chars = sequence(
        cwd,
        "v2c",
        &sequence_experiment("v2", "[\"v2\"]", "[bleu]\ntokenize = \"char\"\n"),
    );
    let run = compare(cwd, &v1, &chars, "c1");
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr.contains(&format!(
            "the baseline folder {} and the candidate folder {} were scored with other [bleu]",
            v1.display(),
            chars.display()
        )) && run.stderr.contains("Char"),
        "{}",
        run.stderr
    );
    assert!(!cwd.join("c1").exists());
    // The first 4 segments' first reference changed on the candidate's side.
    let outputs = common::manifest_dir().join("examples/sequence/outputs.csv");
    let table = fs::read_to_string(outputs).unwrap();
    let header = table.lines().next().unwrap();
    let refcol = header.split(',').position(|c| c == "ref").unwrap();
    assert!(!table.contains('"'), "the example has no quoted cell");
    let changed: Vec<String> = table
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let mut cells: Vec<String> = line.split(',').map(String::from).collect();
            if (1..=4).contains(&i) {
                cells[refcol] = format!("{} changed", cells[refcol]);
            }
            cells.join(",")
        })
        .collect();
    let moved = cwd.join("moved.csv");
    fs::write(&moved, changed.join("\n") + "\n").unwrap();
    let exp = sequence_experiment("v2", "[\"v2\"]", "").replace(
        &common::manifest_dir()
            .join("examples/sequence/outputs.csv")
            .display()
            .to_string(),
        &moved.display().to_string(),
    );
    let v2 = sequence(cwd, "v2", &exp);
    let run = compare(cwd, &v1, &v2, "c2");
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert!(
        run.stdout
            .contains("references differing on common segments  differs        4 | 4")
            && run.stdout.contains("paired on 116 segments:"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr
            .contains("the references differ on 4 of the 120 segments in common"),
        "{}",
        run.stderr
    );
    let table = rows(&cwd.join("c2/output/v1_vs_v2_system_comparisons.csv"));
    let verdict = table[0].iter().position(|c| c == "verdict").unwrap();
    assert!(table[1..].iter().all(|r| r[verdict] == "not testable"));
}

/// The spans example's files keeping `annotators` only (the annotator is
/// every file's second column), and an experiment on them with `gold` the
/// reference.
fn spans_experiment(cwd: &Path, id: &str, annotators: &[&str], extra: &str) -> String {
    let examples = common::manifest_dir().join("examples/spans");
    let mut files = Vec::new();
    for name in ["spans.csv", "documents.csv"] {
        let text = fs::read_to_string(examples.join(name)).unwrap();
        let kept: Vec<&str> = text
            .lines()
            .enumerate()
            .filter(|(i, l)| *i == 0 || annotators.contains(&l.split(',').nth(1).unwrap()))
            .map(|(_, l)| l)
            .collect();
        let file = cwd.join(format!("{id}_{name}"));
        fs::write(&file, kept.join("\n") + "\n").unwrap();
        files.push(file);
    }
    let names: Vec<String> = annotators.iter().map(|a| format!("\"{a}\"")).collect();
    format!(
        "experiment_id = \"ner_{id}\"\nmodel_version = \"{id}\"\nformat = \"table\"\n\
         input_file = \"{}\"\ntext_column = \"text\"\ndocuments_file = \"{}\"\n\
         document_text_column = \"text\"\nannotators = [{}]\nreference = \"gold\"\n\
         subgroups = [\"genre\"]\n{extra}\n[intervals]\nlevel = 0.95\nreplicates = 1000\nseed = 0\n",
        files[0].display(),
        files[1].display(),
        names.join(", ")
    )
}

fn spans(cwd: &Path, name: &str, exp: &str) -> PathBuf {
    make(cwd, "spans", name, exp)
}

/// Two spans runs of one tagger each against the gold annotator compared:
/// the `system_comparisons` of one run with the gold annotator and both
/// taggers, every cell; another matching criterion is refused.
#[test]
fn versions_spans_compare_is_the_within_experiment_comparison() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let all = ["gold", "tagger_v1", "tagger_v2"];
    let both = spans(cwd, "both", &spans_experiment(cwd, "both", &all, ""));
    let v1 = spans(
        cwd,
        "v1",
        &spans_experiment(cwd, "v1", &["gold", "tagger_v1"], ""),
    );
    let v2 = spans(
        cwd,
        "v2",
        &spans_experiment(cwd, "v2", &["gold", "tagger_v2"], ""),
    );
    let run = compare(cwd, &v1, &v2, "cmp");
    assert_eq!(run.code, Some(0), "{}", run.describe());
    let want = rows(&both.join("output/ner_both_system_comparisons.csv"));
    let got = rows(&cwd.join("cmp/output/v1_vs_v2_system_comparisons.csv"));
    assert!(want.len() > 4, "{want:?}");
    // The systems are the folders' model versions (v1, v2), the taggers'
    // names within the experiment: every other cell is the same.
    let cells = |t: &[Vec<String>]| t.iter().map(|r| r[2..].to_vec()).collect::<Vec<_>>();
    assert_eq!(cells(&got), cells(&want));
    assert_eq!(got[1][..2], ["v1", "v2"]);
    assert!(
        run.stdout
            .contains("compare v1 (baseline) -> v2 (candidate), spans, paired on 24 documents:"),
        "{}",
        run.stdout
    );
    let overlap = spans(
        cwd,
        "v2o",
        &spans_experiment(cwd, "v2o", &["gold", "tagger_v2"], "min_overlap = 0.5"),
    );
    let run = compare(cwd, &v1, &overlap, "c2");
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr.contains(&format!(
            "the baseline folder {} has min_overlap = None and the candidate folder {} \
             min_overlap = Some(0.5)",
            v1.display(),
            overlap.display()
        )),
        "{}",
        run.stderr
    );
}

/// `--gates FILE` on two classify folders: the gates are classify's own
/// (`gain.accuracy` of the candidate), judged on the comparison; a failed
/// gate of severity fail ends with exit 3 after every file is written.
#[test]
fn versions_classify_compare_judges_gates_exit_3() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let predictions = example_dir().join("predictions.csv");
    let v1 = classify(cwd, "v1", &single_system("v1", &predictions, ""));
    let v2 = classify(cwd, "v2", &single_system("v2", &predictions, ""));
    let gates = cwd.join("gates.toml");
    fs::write(
        &gates,
        "[[gates]]\nname = \"much better\"\nmetric = \"gain.accuracy\"\nop = \">=\"\n\
         threshold = 0.5\n",
    )
    .unwrap();
    let run = common::run_in(
        cwd,
        [
            "compare",
            v1.to_str().unwrap(),
            v2.to_str().unwrap(),
            "-o",
            "cmp",
            "--gates",
            gates.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, Some(3), "{}", run.describe());
    assert!(run.stderr.contains("gate FAILED"), "{}", run.stderr);
    assert!(cwd.join("cmp/output/v1_vs_v2_gates.json").is_file());
    assert!(cwd.join("cmp/report/v1_vs_v2_compare.html").is_file());
    fs::write(&gates, "gates_preset = \"x\"\n").unwrap();
    let run = common::run_in(
        cwd,
        [
            "compare",
            v1.to_str().unwrap(),
            v2.to_str().unwrap(),
            "-o",
            "cmp2",
            "--gates",
            gates.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr.contains("unknown key gates_preset"),
        "{}",
        run.stderr
    );
    assert!(!cwd.join("cmp2").exists());
}

/// A CSV file of the bundled examples with `change(row, header)` applied
/// to its first `n` data rows, written to `to` (no quoted commas in the
/// examples' cells that are changed; the rows are split on commas only
/// when a changed cell needs it).
fn changed_csv(from: &Path, to: &Path, n: usize, column: &str, change: &dyn Fn(&str) -> String) {
    let text = fs::read_to_string(from).unwrap();
    let mut reader = csv_rows(&text);
    let header = reader.remove(0);
    let k = header.iter().position(|c| c == column).unwrap();
    for row in reader.iter_mut().take(n) {
        row[k] = change(&row[k]);
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(reader.iter()) {
        let cells: Vec<String> = row
            .iter()
            .map(|c| {
                if c.contains([',', '"', '\n']) {
                    format!("\"{}\"", c.replace('"', "\"\""))
                } else {
                    c.clone()
                }
            })
            .collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    fs::write(to, out).unwrap();
}

/// The rows of a CSV text (quoted cells allowed).
fn csv_rows(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let (mut row, mut cell, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        match (ch, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => row.push(std::mem::take(&mut cell)),
            ('\n', false) => {
                row.push(std::mem::take(&mut cell));
                rows.push(std::mem::take(&mut row));
            }
            ('\r', false) => {}
            (c, _) => cell.push(c),
        }
    }
    if !cell.is_empty() || !row.is_empty() {
        row.push(cell);
        rows.push(row);
    }
    rows
}

/// A JSON document.
fn json_of(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

/// The bundled agree example as the round `id` on `labels` (absolute),
/// `replace` applied to its text (`(from, to)` pairs).
fn agree_round(cwd: &Path, id: &str, labels: &Path, replace: &[(&str, &str)]) -> PathBuf {
    let exp = common::manifest_dir().join("examples/agree/exp.toml");
    let mut text = fs::read_to_string(exp)
        .unwrap()
        .replace("\"sentiment_round2\"", &format!("\"{id}\""))
        .replace(
            "\"labels.csv\"",
            &format!("{:?}", labels.display().to_string()),
        );
    for (from, to) in replace {
        text = text.replace(from, to);
    }
    make(cwd, "agree", id, &text)
}

/// `ann2`'s labels moved one category up on the first 40 items.
fn moved_label(l: &str) -> String {
    match l {
        "neg" => "neutral",
        "neutral" => "pos",
        "pos" => "neg",
        other => other,
    }
    .to_string()
}

/// The agree summary's coefficient named as compare names it
/// (`krippendorff_alpha_ordinal`, `gwet_ac1`).
fn agree_coefficient(summary: &serde_json::Value, statistic: &str) -> f64 {
    summary["overall"]["coefficients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            let (c, w) = (
                r["coefficient"].as_str().unwrap(),
                r["weights"].as_str().unwrap(),
            );
            statistic
                == if w == "none" {
                    c.to_string()
                } else {
                    format!("{c}_{w}")
                }
        })
        .unwrap_or_else(|| panic!("{statistic}"))["value"]
        .as_f64()
        .unwrap()
}

/// Two annotation rounds of the agree example, the second with one rater
/// changed on 40 items: every headline coefficient's delta is the
/// difference of the two rounds' own agree summaries (and each side is
/// that round's value), each rater's accuracy against the reference is
/// the difference of the rounds' classification tables (0 for the raters
/// not changed); the changed rater's accuracy fell.
#[test]
fn versions_agree_compare_is_each_rounds_own_statistics() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let labels = common::manifest_dir().join("examples/agree/labels.csv");
    let moved = cwd.join("moved.csv");
    changed_csv(&labels, &moved, 40, "ann2", &moved_label);
    let r1 = agree_round(cwd, "round1", &labels, &[]);
    let r2 = agree_round(cwd, "round2", &moved, &[]);
    for ext in ["parquet", "json"] {
        assert!(r1.join(format!("output/round1_units.{ext}")).is_file());
    }
    let run = compare(cwd, &r1, &r2, "cmp");
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert!(
        run.stdout.contains(
            "compare round1 (baseline) -> round2 (candidate), agree, paired on 360 items:"
        ),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("overall: "), "{}", run.stdout);
    let (s1, s2) = (
        json_of(&r1.join("output/round1_summary.json")),
        json_of(&r2.join("output/round2_summary.json")),
    );
    let summary = json_of(&cwd.join("cmp/output/round1_vs_round2_summary.json"));
    assert_eq!(summary["compared_kind"], "agree");
    assert_eq!(summary["paired_units"], 360);
    let rows = summary["comparisons"].as_array().unwrap();
    let overall: Vec<&serde_json::Value> =
        rows.iter().filter(|r| r["scope"] == "overall").collect();
    assert_eq!(overall.len(), 3, "{rows:?}");
    for r in &overall {
        let stat = r["statistic"].as_str().unwrap();
        let (b, c) = (agree_coefficient(&s1, stat), agree_coefficient(&s2, stat));
        assert_eq!(r["delta"][0].as_f64().unwrap(), c - b, "{stat}");
        assert_eq!(summary["systems"]["round1"][stat]["estimate"], b, "{stat}");
        assert_eq!(summary["systems"]["round2"][stat]["estimate"], c, "{stat}");
        let (lo, hi) = (
            r["delta"][1].as_f64().unwrap(),
            r["delta"][2].as_f64().unwrap(),
        );
        assert!(lo <= c - b && c - b <= hi, "{r}");
    }
    let accuracy = |dir: &Path, id: &str| -> Vec<(String, f64)> {
        let t = rows_of(&dir.join(format!("output/{id}_classification_summary.csv")));
        let k = t[0].iter().position(|c| c == "accuracy").unwrap();
        t[1..]
            .iter()
            .map(|r| (r[0].clone(), r[k].parse().unwrap()))
            .collect()
    };
    let (a1, a2) = (accuracy(&r1, "round1"), accuracy(&r2, "round2"));
    assert_eq!(a1.len(), 4);
    for ((rater, b), (_, c)) in a1.iter().zip(&a2) {
        let r = rows
            .iter()
            .find(|r| r["scope"] == format!("rater={rater}").as_str())
            .unwrap();
        assert_eq!(r["statistic"], "accuracy_vs_reference");
        assert_eq!(r["delta"][0].as_f64().unwrap(), c - b, "{rater}");
        if rater == "ann2" {
            assert!(c < b, "{rater}: {b} -> {c}");
        } else {
            assert_eq!(c, b, "{rater}");
        }
    }
    let table = rows_of(&cwd.join("cmp/output/round1_vs_round2_round_comparisons.csv"));
    assert_eq!(table.len(), 1 + rows.len());
    assert!(cwd
        .join("cmp/report/round1_vs_round2_compare.html")
        .is_file());
    snapshot_versions(cwd, "agree", ("round1", "round2"), true);
}

/// The rows of a CSV file (quoted cells allowed).
fn rows_of(path: &Path) -> Vec<Vec<String>> {
    csv_rows(&fs::read_to_string(path).unwrap())
}

/// Refused, exit 2, nothing written: agree rounds of another level of
/// measurement (both named), of another rater set (both named), and an
/// agree folder against a preferences folder (both kinds named).
#[test]
fn versions_agree_and_preferences_refuse_changed_settings_and_mixed_kinds() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let labels = common::manifest_dir().join("examples/agree/labels.csv");
    let r1 = agree_round(cwd, "round1", &labels, &[]);
    let nominal = agree_round(
        cwd,
        "nominal",
        &labels,
        &[("level = \"ordinal\"", "level = \"nominal\"")],
    );
    let run = compare(cwd, &r1, &nominal, "c1");
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr.contains(&format!(
            "the baseline folder {} and the candidate folder {} have other levels of \
             measurement (\"ordinal\" | \"nominal\")",
            r1.display(),
            nominal.display()
        )),
        "{}",
        run.stderr
    );
    let three = agree_round(
        cwd,
        "three",
        &labels,
        &[(
            "[\"ann1\", \"ann2\", \"ann3\", \"ann4\"]",
            "[\"ann1\", \"ann2\", \"ann3\"]",
        )],
    );
    let run = compare(cwd, &r1, &three, "c2");
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr.contains("have other raters (") && run.stderr.contains("\"ann4\"]"),
        "{}",
        run.stderr
    );
    let pairs = common::manifest_dir().join("examples/preferences/pairs.csv");
    let p1 = preferences_round(cwd, "prefs1", &pairs, &[]);
    let run = compare(cwd, &r1, &p1, "c3");
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr.contains(&format!(
            "the baseline folder {} is an output folder of `rsmreport agree` and the \
             candidate folder {} one of `rsmreport preferences`",
            r1.display(),
            p1.display()
        )),
        "{}",
        run.stderr
    );
    let fewer = preferences_round(cwd, "prefs2", &pairs, &[(", \"crowd_worker\"]", "]")]);
    let run = compare(cwd, &p1, &fewer, "c4");
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr.contains(&format!(
            "the baseline folder {} has the annotators [judge_model, longer_is_better, \
             first_position, crowd_worker] and the candidate folder {} the annotators \
             [judge_model, longer_is_better, first_position]",
            p1.display(),
            fewer.display()
        )),
        "{}",
        run.stderr
    );
    for out in ["c1", "c2", "c3", "c4"] {
        assert!(!cwd.join(out).exists(), "{out} was written");
    }
}

/// Reference labels changed on 5 items of the second round: the count on
/// the first screen, the accuracy rows against the reference without
/// verdict, the coefficients among raters (which do not use the
/// reference) still judged on all 360 items.
#[test]
fn versions_agree_reference_mismatch_is_named() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let labels = common::manifest_dir().join("examples/agree/labels.csv");
    let moved = cwd.join("moved.csv");
    changed_csv(&labels, &moved, 5, "gold", &moved_label);
    let fewer = [("replicates = 1000", "replicates = 200")];
    let r1 = agree_round(cwd, "round1", &labels, &fewer);
    let r2 = agree_round(cwd, "round2", &moved, &fewer);
    let run = compare(cwd, &r1, &r2, "cmp");
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert!(
        run.stdout
            .contains("reference labels differing on common items  differs        5 | 5"),
        "{}",
        run.stdout
    );
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(
        all.contains("the reference labels differ on 5 of the 360 items in common"),
        "{all}"
    );
    let summary = json_of(&cwd.join("cmp/output/round1_vs_round2_summary.json"));
    assert_eq!(summary["paired_units"], 360);
    for r in summary["comparisons"].as_array().unwrap() {
        let testable = r["verdict"] != "not testable";
        assert_eq!(testable, r["scope"] == "overall", "{r}");
    }
    // The kind's own gates, judged on the candidate round: a threshold
    // above its alpha fails, exit 3, every file written.
    let alpha = summary["systems"]["round2"]["krippendorff_alpha_ordinal"]["estimate"]
        .as_f64()
        .unwrap();
    let gates = cwd.join("gates.toml");
    fs::write(
        &gates,
        format!(
            "[[gates]]\nname = \"alpha\"\nmetric = \"krippendorff_alpha\"\nop = \">=\"\n\
             threshold = {}\n",
            alpha + 0.01
        ),
    )
    .unwrap();
    let run = common::run_in(
        cwd,
        [
            "compare",
            r1.to_str().unwrap(),
            r2.to_str().unwrap(),
            "-o",
            "gated",
            "--gates",
            gates.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, Some(3), "{}", run.describe());
    assert!(cwd
        .join("gated/output/round1_vs_round2_gates.json")
        .is_file());
}

/// The bundled preferences example as the round `id` on `pairs`
/// (absolute), `replace` applied to its text.
fn preferences_round(cwd: &Path, id: &str, pairs: &Path, replace: &[(&str, &str)]) -> PathBuf {
    let exp = common::manifest_dir().join("examples/preferences/exp.toml");
    let mut text = fs::read_to_string(exp)
        .unwrap()
        .replace("\"preferences_example\"", &format!("\"{id}\""))
        .replace(
            "\"pairs.csv\"",
            &format!("{:?}", pairs.display().to_string()),
        );
    for (from, to) in replace {
        text = text.replace(from, to);
    }
    make(cwd, "preferences", id, &text)
}

/// Each annotator's statistic on the whole set, from a preferences
/// summary.
fn annotator_statistic(summary: &serde_json::Value, annotator: &str, statistic: &str) -> f64 {
    summary["annotator_metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["annotator"] == annotator && r["subset_value"] == "All data")
        .unwrap()[statistic]
        .as_f64()
        .unwrap()
}

/// `text_a` and `text_b` swapped.
fn swapped(v: &str) -> String {
    match v {
        "text_a" => "text_b",
        "text_b" => "text_a",
        other => other,
    }
    .to_string()
}

/// Two rounds of the preferences example, the judge's votes swapped on
/// 60 pairs in the second: each annotator's strength, accuracy and
/// relevance delta is the difference of the rounds' own summaries (0 for
/// the annotators not changed), each side that round's value; the judge's
/// strength fell.
#[test]
fn versions_preferences_compare_is_each_rounds_own_statistics() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let pairs = common::manifest_dir().join("examples/preferences/pairs.csv");
    let moved = cwd.join("moved.csv");
    changed_csv(&pairs, &moved, 60, "judge_model", &swapped);
    let p1 = preferences_round(cwd, "prefs1", &pairs, &[]);
    let p2 = preferences_round(cwd, "prefs2", &moved, &[]);
    for ext in ["parquet", "json"] {
        assert!(p1.join(format!("output/prefs1_units.{ext}")).is_file());
    }
    let run = compare(cwd, &p1, &p2, "cmp");
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert!(
        run.stdout.contains(
            "compare prefs1 (baseline) -> prefs2 (candidate), preferences, paired on 300 pairs:"
        ),
        "{}",
        run.stdout
    );
    let (s1, s2) = (
        json_of(&p1.join("output/prefs1_summary.json")),
        json_of(&p2.join("output/prefs2_summary.json")),
    );
    let summary = json_of(&cwd.join("cmp/output/prefs1_vs_prefs2_summary.json"));
    assert_eq!(summary["compared_kind"], "preferences");
    let rows = summary["comparisons"].as_array().unwrap();
    assert_eq!(rows.len(), 12);
    for r in rows {
        let stat = r["statistic"].as_str().unwrap();
        let annotator = r["scope"]
            .as_str()
            .unwrap()
            .trim_start_matches("annotator=");
        let (b, c) = (
            annotator_statistic(&s1, annotator, stat),
            annotator_statistic(&s2, annotator, stat),
        );
        assert_eq!(r["delta"][0].as_f64().unwrap(), c - b, "{r}");
        if annotator != "judge_model" {
            assert_eq!(c, b, "{r}");
        } else if stat == "strength" {
            assert!(c < b, "{r}");
            let key = format!("{stat} annotator={annotator}");
            assert_eq!(summary["systems"]["prefs1"][&key]["estimate"], b);
            assert_eq!(summary["systems"]["prefs2"][&key]["estimate"], c);
        }
    }
    // summarize of the two rounds: every per-annotator row of the compare
    // (preferences has no whole-set statistic), named with its scope.
    let run = common::run_in(cwd, ["summarize", "prefs1", "prefs2", "-o", "sum"]);
    assert_eq!(run.code, Some(0), "{}", run.describe());
    let deltas = records(&cwd.join("sum/output/versions_summary_deltas.csv"));
    assert_eq!(deltas.len(), rows.len(), "{deltas:?}");
    for r in rows {
        let name = format!(
            "{} [{}]",
            r["statistic"].as_str().unwrap(),
            r["scope"].as_str().unwrap()
        );
        let d = deltas
            .iter()
            .find(|d| d["statistic"] == name)
            .unwrap_or_else(|| panic!("{name} not summarized: {deltas:?}"));
        assert!(
            same(num(&d["delta"]), r["delta"][0].as_f64().unwrap()),
            "{name}"
        );
    }
    snapshot_versions(cwd, "preferences", ("prefs1", "prefs2"), true);
}

/// Reference votes changed on 5 pairs of the second round: the count on
/// the first screen, those pairs left out (every statistic is against
/// the reference), no verdict anywhere.
#[test]
fn versions_preferences_reference_mismatch_is_named() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let pairs = common::manifest_dir().join("examples/preferences/pairs.csv");
    let moved = cwd.join("moved.csv");
    changed_csv(&pairs, &moved, 5, "preferred_text", &swapped);
    let p1 = preferences_round(cwd, "prefs1", &pairs, &[]);
    let p2 = preferences_round(cwd, "prefs2", &moved, &[]);
    let run = compare(cwd, &p1, &p2, "cmp");
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert!(
        run.stdout
            .contains("reference votes differing on common pairs  differs        5 | 5"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("preferences, paired on 295 pairs:"),
        "{}",
        run.stdout
    );
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(
        all.contains("the reference votes differ on 5 of the 300 pairs in common"),
        "{all}"
    );
    let summary = json_of(&cwd.join("cmp/output/prefs1_vs_prefs2_summary.json"));
    assert!(summary["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["verdict"] == "not testable"));
}

/// A CSV table as rows of `column -> cell`.
fn records(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let t = rows(path);
    t[1..]
        .iter()
        .map(|r| t[0].iter().cloned().zip(r.iter().cloned()).collect())
        .collect()
}

/// A number cell (empty: NaN).
fn num(cell: &str) -> f64 {
    if cell.is_empty() {
        f64::NAN
    } else {
        cell.parse()
            .unwrap_or_else(|_| panic!("not a number: {cell}"))
    }
}

/// Two numbers the same (both NaN included).
fn same(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

/// A statistic of a folder's own `<id>_summary.json`: its system's
/// `{estimate, lower, upper}`, or a number with `_lower` and `_upper`.
fn own_statistic(folder: &Path, statistic: &str) -> (f64, f64, f64) {
    let output = folder.join("output");
    let name = fs::read_dir(&output)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|n| n.ends_with("_summary.json"))
        .unwrap();
    let doc: serde_json::Value =
        serde_json::from_slice(&fs::read(output.join(name)).unwrap()).unwrap();
    let systems = doc["systems"].as_object().unwrap();
    assert_eq!(systems.len(), 1, "one system per version folder");
    let s = systems.values().next().unwrap();
    let f = |v: &serde_json::Value| v.as_f64().unwrap_or(f64::NAN);
    match &s[statistic] {
        serde_json::Value::Object(o) => (f(&o["estimate"]), f(&o["lower"]), f(&o["upper"])),
        v => (
            f(v),
            f(&s[format!("{statistic}_lower")]),
            f(&s[format!("{statistic}_upper")]),
        ),
    }
}

/// `summarize v1 v2 v3` of three folders of one kind (in `cwd`): every
/// difference is the pairwise compare's (`compare v1 vK`: delta, interval,
/// p-value, verdict of each whole-set statistic), every statistic of a
/// version its own summary's with its interval, and the terminal ends
/// with the decision. Then the whole output against its snapshot
/// (`tests/snapshots/kinds/summarize-<kind>`).
/// The whole-output snapshots of `compare A B` (`compare-<kind>`) and,
/// with `summarize`, of `summarize A B` (`summarize-<kind>`) of two
/// folders of a kind in `cwd`.
fn snapshot_versions(cwd: &Path, kind: &str, (a, b): (&str, &str), summarize: bool) {
    let mut failures = crate::kinds_snapshot::snapshot_run(
        cwd,
        &format!("compare-{kind}"),
        &["compare", a, b, "-o", "csnap"],
        "csnap",
    );
    if summarize {
        failures.extend(crate::kinds_snapshot::snapshot_run(
            cwd,
            &format!("summarize-{kind}"),
            &["summarize", a, b, "-o", "ssnap"],
            "ssnap",
        ));
    }
    assert!(
        failures.is_empty(),
        "if intended, update with `UPDATE_SNAPSHOTS=1 cargo test --test integration \
         versions` and review the diff:\n{}",
        failures.join("\n")
    );
}

fn check_summarize_of_three(cwd: &Path, kind: &str) {
    let run = common::run_in(cwd, ["summarize", "v1", "v2", "v3", "-o", "sum"]);
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert!(
        run.stdout
            .starts_with(&format!("summarize 3 versions of {kind} (baseline v1):\n")),
        "{}",
        run.stdout
    );
    assert!(run.stdout.lines().last().unwrap().starts_with("overall: "));
    let versions = records(&cwd.join("sum/output/versions_summary.csv"));
    let deltas = records(&cwd.join("sum/output/versions_summary_deltas.csv"));
    let labels: Vec<&str> = versions.iter().map(|v| v["version"].as_str()).collect();
    assert_eq!(labels, ["v1", "v2", "v3"]);
    let mut statistics = Vec::new();
    for candidate in ["v2", "v3"] {
        let out = format!("cmp_{candidate}");
        let cmp = compare(cwd, Path::new("v1"), Path::new(candidate), &out);
        assert_eq!(cmp.code, Some(0), "{}", cmp.describe());
        let table = cwd.join(format!(
            "{out}/output/v1_vs_{candidate}_system_comparisons.csv"
        ));
        let overall: Vec<_> = records(&table)
            .into_iter()
            .filter(|r| r["scope"] == "overall")
            .collect();
        let mine: Vec<_> = deltas
            .iter()
            .filter(|d| d["version"] == candidate)
            .collect();
        assert_eq!(mine.len(), overall.len(), "{candidate}: {mine:?}");
        assert!(!overall.is_empty());
        for (want, got) in overall.iter().zip(&mine) {
            assert_eq!(got["statistic"], want["statistic"]);
            for column in [
                "delta",
                "delta_lower",
                "delta_upper",
                "p_value",
                "baseline",
                "candidate",
            ] {
                assert!(
                    same(num(&got[column]), num(&want[column])),
                    "{candidate} {} {column}: {} vs compare's {}",
                    want["statistic"],
                    got[column],
                    want[column]
                );
            }
            assert_eq!(got["verdict"], want["verdict"]);
            let line = format!(
                "  {:<22} change:",
                format!("{candidate} {}", want["statistic"])
            );
            assert!(run.stdout.contains(&line), "{line}\n{}", run.stdout);
            if !statistics.contains(&want["statistic"]) {
                statistics.push(want["statistic"].clone());
            }
        }
    }
    for (v, row) in labels.iter().zip(&versions) {
        for st in &statistics {
            let (e, lo, hi) = own_statistic(&cwd.join(v), st);
            assert!(e.is_finite(), "{v} {st}");
            for (col, want) in [
                (st.clone(), e),
                (format!("{st}_lower"), lo),
                (format!("{st}_upper"), hi),
            ] {
                assert!(
                    same(num(&row[&col]), want),
                    "{v} {col}: {} vs its own summary's {want}",
                    row[&col]
                );
            }
        }
    }
    snapshot_versions(cwd, kind, ("v1", "v2"), false);
    let failures = crate::kinds_snapshot::snapshot_run(
        cwd,
        &format!("summarize-{kind}"),
        &["summarize", "v1", "v2", "v3", "-o", "snap"],
        "snap",
    );
    assert!(
        failures.is_empty(),
        "if intended, update with `UPDATE_SNAPSHOTS=1 cargo test --test integration \
         versions_summarize` and review the diff:\n{}",
        failures.join("\n")
    );
}

/// `path` with every line passed through `edit` (its index, its cells)
/// written to `to`.
fn edit_csv(path: &Path, to: &Path, edit: impl Fn(usize, &mut Vec<String>) -> bool) {
    let text = fs::read_to_string(path).unwrap();
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        let mut cells: Vec<String> = line.split(',').map(String::from).collect();
        if edit(i, &mut cells) {
            out.push_str(&cells.join(","));
            out.push('\n');
        }
    }
    fs::write(to, out).unwrap();
}

/// Three classify versions: v1 and v2 of the example, v3 the example's v2
/// with every seventh prediction set to the gold label.
#[test]
fn versions_summarize_classify_three_versions_are_the_pairwise_compares() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let predictions = example_dir().join("predictions.csv");
    classify(cwd, "v1", &single_system("v1", &predictions, ""));
    classify(cwd, "v2", &single_system("v2", &predictions, ""));
    let changed = cwd.join("predictions_v3.csv");
    edit_csv(&predictions, &changed, |i, cells| {
        if i == 0 {
            for c in cells.iter_mut() {
                *c = c.replace("v2", "v3");
            }
        } else if i % 7 == 0 {
            cells[4] = cells[2].clone();
        }
        true
    });
    classify(cwd, "v3", &single_system("v3", &changed, ""));
    check_summarize_of_three(cwd, "classify");
}

/// Three sequence versions: v3 is v2 with every fourth hypothesis the
/// first reference.
#[test]
fn versions_summarize_sequence_three_versions_are_the_pairwise_compares() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    sequence(cwd, "v1", &sequence_experiment("v1", "[\"v1\"]", ""));
    sequence(cwd, "v2", &sequence_experiment("v2", "[\"v2\"]", ""));
    let outputs = common::manifest_dir().join("examples/sequence/outputs.csv");
    let changed = cwd.join("outputs_v3.csv");
    edit_csv(&outputs, &changed, |i, cells| {
        if i == 0 {
            cells[4] = "v3".into();
        } else if i % 4 == 0 {
            cells[4] = cells[1].clone();
        }
        true
    });
    let exp = sequence_experiment("v3", "[\"v3\"]", "").replace(
        &outputs.display().to_string(),
        &changed.display().to_string(),
    );
    sequence(cwd, "v3", &exp);
    check_summarize_of_three(cwd, "sequence");
}

/// Three spans versions: tagger v1, tagger v2, and tagger v2 without
/// every fifth of its spans, each against the gold annotator.
#[test]
fn versions_summarize_spans_three_versions_are_the_pairwise_compares() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    spans(
        cwd,
        "v1",
        &spans_experiment(cwd, "v1", &["gold", "tagger_v1"], ""),
    );
    spans(
        cwd,
        "v2",
        &spans_experiment(cwd, "v2", &["gold", "tagger_v2"], ""),
    );
    let exp = spans_experiment(cwd, "v3", &["gold", "tagger_v2"], "");
    let file = cwd.join("v3_spans.csv");
    let count = std::cell::Cell::new(0);
    edit_csv(&file.clone(), &file, |_, cells| {
        if cells[1] != "tagger_v2" {
            return true;
        }
        count.set(count.get() + 1);
        count.get() % 5 != 0
    });
    spans(cwd, "v3", &exp);
    check_summarize_of_three(cwd, "spans");
}

/// Folders of several kinds are refused, each named with its kind; a
/// pair the kind's comparison refuses (another tokenizer) is refused,
/// naming the folder.
#[test]
fn versions_summarize_refuses_mixed_kinds_and_changed_settings() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let predictions = example_dir().join("predictions.csv");
    classify(cwd, "c1", &single_system("v1", &predictions, ""));
    sequence(cwd, "s1", &sequence_experiment("v1", "[\"v1\"]", ""));
    sequence(cwd, "s2", &sequence_experiment("v2", "[\"v2\"]", ""));
    let run = common::run_in(cwd, ["summarize", "s1", "c1", "s2", "-o", "sum"]);
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr.contains(
            "summarize takes folders of one kind; these are of several: s1 (rsmreport \
             sequence), c1 (rsmreport classify), s2 (rsmreport sequence)"
        ),
        "{}",
        run.stderr
    );
    assert!(!cwd.join("sum").exists());
    sequence(
        cwd,
        "s3",
        &sequence_experiment("v3", "[\"v2\"]", "[bleu]\ntokenize = \"char\"\n"),
    );
    let run = common::run_in(cwd, ["summarize", "s1", "s2", "s3", "-o", "sum"]);
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(
        run.stderr
            .contains("cannot summarize s3 with the baseline s1: "),
        "{}",
        run.stderr
    );
    assert!(!cwd.join("sum").exists());
}
