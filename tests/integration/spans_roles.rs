//! `rsmreport spans` with `systems` (spec/spans.md 1, roles amended; issue
//! 51): the keys refused as the other keys are; the agreement over the
//! human annotators is the agreement of a run on the data without the
//! systems' rows (with the reference, `agreement_includes_reference =
//! true`, or without it); fewer than two annotators leave the agreement
//! tables out with the reason; the baseline defaults to the first system
//! and only systems are compared with it; the headline leads with the
//! systems' verdict; a type the reference never marks is flagged beside
//! every macro average it lowers; every table header is explained; the
//! example's first screen in Chromium.
//!
//! Every expected number is read from the runs' own tables, none written
//! here.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common;

/// The bundled example's data (three human annotators, gold, two taggers).
fn example_dir() -> PathBuf {
    common::manifest_dir().join("examples/spans")
}

/// The example's data in `dir`, without the rows of the annotators in
/// `drop` (spans and documents files).
fn data_without(dir: &Path, drop: &[&str]) {
    for file in ["spans.csv", "documents.csv"] {
        let text = fs::read_to_string(example_dir().join(file)).unwrap();
        let kept: Vec<&str> = text
            .lines()
            .enumerate()
            .filter(|(i, l)| {
                *i == 0 || !drop.contains(&l.split(',').nth(1).expect("an annotator column"))
            })
            .map(|(_, l)| l)
            .collect();
        fs::write(dir.join(file), kept.join("\n") + "\n").unwrap();
    }
}

/// An experiment on the example's data with `extra` keys.
fn experiment(extra: &str) -> String {
    format!(
        "experiment_id = \"e\"\ninput_file = \"spans.csv\"\ntext_column = \"text\"\n\
         documents_file = \"documents.csv\"\ndocument_text_column = \"text\"\n\
         subgroups = [\"genre\"]\n{extra}\n[intervals]\nreplicates = 200\nseed = 3\n"
    )
}

/// Runs `spans` on the example's data without `drop`'s rows, with the
/// experiment `extra`; the output folder.
fn run(tmp: &Path, name: &str, drop: &[&str], extra: &str) -> (PathBuf, common::Run) {
    let dir = tmp.join(name);
    fs::create_dir_all(&dir).unwrap();
    data_without(&dir, drop);
    fs::write(dir.join("exp.toml"), experiment(extra)).unwrap();
    let run = common::run_in(&dir, ["spans", "exp.toml", "-o", "out"]);
    (dir.join("out"), run)
}

fn ok(tmp: &Path, name: &str, drop: &[&str], extra: &str) -> (PathBuf, common::Run) {
    let (out, run) = run(tmp, name, drop, extra);
    assert!(run.success, "{name}: {}", run.describe());
    (out, run)
}

/// The agreement tables (spec 5.1-5.6 and the subgroup's): every table
/// whose name says agreement, confusion or boundaries.
fn agreement_tables() -> Vec<String> {
    let out = common::manifest_dir().join("tests/snapshots/spans/output");
    common::list_files(&out)
        .iter()
        .filter_map(|f| {
            let name = f
                .to_str()?
                .strip_prefix("news_ner_")?
                .strip_suffix(".csv")?;
            let agreement = name.starts_with("span_agreement")
                || name.starts_with("type_")
                || name == "boundary_disagreements";
            agreement.then(|| name.to_string())
        })
        .collect()
}

fn table(out: &Path, name: &str) -> Option<String> {
    fs::read_to_string(out.join(format!("output/e_{name}.csv"))).ok()
}

fn summary(out: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(out.join("output/e_summary.json")).unwrap()).unwrap()
}

/// The agreement tables of `a` are those of `b`, byte for byte, and so
/// is the summary's agreement block.
fn same_agreement(a: &Path, b: &Path, what: &str) {
    let names = agreement_tables();
    assert_eq!(names.len(), 8, "{names:?}");
    for t in &names {
        let (x, y) = (table(a, t), table(b, t));
        assert!(x.is_some(), "{what}: {t} missing");
        assert_eq!(x, y, "{what}: {t}");
    }
    assert_eq!(summary(a)["agreement"], summary(b)["agreement"], "{what}");
}

const SYSTEMS: &str = "reference = \"gold\"\nsystems = [\"tagger_v1\", \"tagger_v2\"]\n";

#[test]
fn spans_roles_agreement_over_the_humans_is_a_run_without_the_systems() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let taggers = ["tagger_v1", "tagger_v2"];
    // Humans only: against the data without the systems' and gold's rows.
    let (with, _) = ok(t, "with", &[], SYSTEMS);
    let (without, _) = ok(t, "without", &["tagger_v1", "tagger_v2", "gold"], "");
    same_agreement(&with, &without, "humans");
    // The reference joins them: against the data without the systems' rows
    // (and without `systems`, where the reference is one more annotator).
    let (joined, _) = ok(
        t,
        "joined",
        &[],
        &format!("{SYSTEMS}agreement_includes_reference = true\n"),
    );
    let (no_systems, _) = ok(t, "no_systems", &taggers, "reference = \"gold\"\n");
    same_agreement(&joined, &no_systems, "humans and the reference");
    // The scores against the reference are those of a run without
    // `systems` on the same data: the roles change no score.
    let (plain, _) = ok(t, "plain", &[], "reference = \"gold\"\n");
    for name in ["system_scores", "nervaluate", "system_scores_by_genre"] {
        assert_eq!(table(&with, name), table(&plain, name), "{name}");
    }
}

#[test]
fn spans_roles_fewer_than_two_humans_leave_the_agreement_out_and_say_why() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let (out, run) = ok(t, "one", &["ann2", "ann3"], SYSTEMS);
    for name in agreement_tables() {
        assert!(table(&out, &name).is_none(), "{name} written");
    }
    let html = fs::read_to_string(out.join("report/e_report.html")).unwrap();
    assert!(
        html.contains("No agreement tables: only ann1 is a human annotator"),
        "the reason"
    );
    assert!(run
        .stdout
        .contains("no agreement between annotators: only ann1"));
    assert!(!out.join("figure/e_span_agreement_heatmap.svg").exists());
    // With the reference, ann1 and gold make one pair, as a run on the
    // data without the systems.
    let (joined, _) = ok(
        t,
        "joined",
        &["ann2", "ann3"],
        &format!("{SYSTEMS}agreement_includes_reference = true\n"),
    );
    let (plain, _) = ok(
        t,
        "plain",
        &["ann2", "ann3", "tagger_v1", "tagger_v2"],
        "reference = \"gold\"\n",
    );
    same_agreement(&joined, &plain, "ann1 and gold");
}

#[test]
fn spans_roles_baseline_is_the_first_system_and_only_systems_are_compared() {
    let tmp = tempfile::tempdir().unwrap();
    let (out, run) = ok(
        tmp.path(),
        "rev",
        &[],
        "reference = \"gold\"\nsystems = [\"tagger_v2\", \"tagger_v1\"]\n",
    );
    let s = summary(&out);
    assert_eq!(s["baseline"], "tagger_v2");
    assert_eq!(s["roles"]["systems_under_test"][0], "tagger_v2");
    let comparisons = table(&out, "system_comparisons").unwrap();
    let rows: Vec<&str> = comparisons.lines().skip(1).collect();
    assert!(!rows.is_empty());
    assert!(
        rows.iter().all(|r| r.starts_with("tagger_v2,tagger_v1,")),
        "{comparisons}"
    );
    assert!(run.stdout.contains("  tagger_v1 vs tagger_v2: micro_f1"));
    assert!(!run.stdout.contains("ann1 vs"));
    // Without `systems`, the first annotator scored is the baseline, as
    // before.
    let (plain, _) = ok(tmp.path(), "plain", &[], "reference = \"gold\"\n");
    assert_eq!(summary(&plain)["baseline"], "ann1");
}

/// The number `x` as the report writes it (three decimals).
fn num3(x: f64) -> String {
    format!("{x:.3}")
}

/// Column `col` of the row whose first cells are `key` in a CSV.
fn cell(csv: &str, key: &[&str], col: &str) -> String {
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let j = head.iter().position(|h| *h == col).expect(col);
    let row = lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .find(|r| r.iter().zip(key).all(|(a, b)| a == b))
        .unwrap_or_else(|| panic!("{key:?} in {csv}"));
    row[j].to_string()
}

#[test]
fn spans_roles_headline_leads_with_the_systems_verdict() {
    let tmp = tempfile::tempdir().unwrap();
    let (out, run) = ok(tmp.path(), "with", &[], SYSTEMS);
    let comparisons = table(&out, "system_comparisons").unwrap();
    let key = ["tagger_v1", "tagger_v2", "overall", "micro_f1"];
    let f = |c: &str| cell(&comparisons, &key, c).parse::<f64>().unwrap();
    let verdict = cell(&comparisons, &key, "verdict");
    let systems = format!(
        "tagger_v2 against tagger_v1: micro F1 {} vs {}, {:+.3} [{:+.3}, {:+.3}] ({verdict}).",
        num3(f("candidate")),
        num3(f("baseline")),
        f("delta"),
        f("delta_lower"),
        f("delta_upper"),
    );
    let agreement = table(&out, "span_agreement").unwrap();
    let a = |c: &str| cell(&agreement, &["strict"], c).parse::<f64>().unwrap();
    let humans = format!(
        "The three human annotators (ann1, ann2, ann3): mean pairwise strict F1 {} [{}, {}] \
         over 3 pairs",
        num3(a("mean_pairwise_f1")),
        num3(a("lower")),
        num3(a("upper"))
    );
    let overall = run
        .stdout
        .lines()
        .find(|l| l.starts_with("overall: "))
        .unwrap();
    let sentence = overall.split_once(": ").unwrap().1;
    let (badge, sentence) = sentence.split_once(": ").unwrap();
    assert!(sentence.starts_with(&systems), "{sentence}\n{systems}");
    let at = sentence.find(&humans).expect("the humans' agreement");
    assert!(at > systems.len(), "the systems first");
    let s = summary(&out);
    assert_eq!(s["roles"]["headline"]["systems"], systems.as_str());
    assert!(s["roles"]["headline"]["agreement"]
        .as_str()
        .unwrap()
        .starts_with(&humans));
    let html = fs::read_to_string(out.join("report/e_report.html")).unwrap();
    let escaped = |t: &str| t.replace('\'', "&#39;");
    assert!(html.contains(&escaped(&systems)), "the header's sentence");
    assert!(html.contains(&format!(">{badge}<")), "the badge {badge}");
    // Not the old headline: no annotator crowned, no mixed agreement.
    assert!(!sentence.contains("has the highest micro F1"));
}

#[test]
fn spans_roles_types_without_reference_spans_are_flagged_beside_macro_averages() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, extra) in [("with", SYSTEMS), ("plain", "reference = \"gold\"\n")] {
        let (out, run) = ok(tmp.path(), name, &[], extra);
        let scores = table(&out, "system_scores").unwrap();
        let mut lines = scores.lines();
        let head: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = |c: &str| head.iter().position(|h| *h == c).unwrap();
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        // Per system (default mode): the types it predicted that the
        // reference never marks.
        let mut flagged = 0;
        for sys in ["ann1", "ann2", "ann3", "tagger_v1", "tagger_v2"] {
            let missing: Vec<&str> = rows
                .iter()
                .filter(|r| r[col("system")] == sys && !r[col("label")].contains(" avg"))
                .filter(|r| r[col("support")] == "0")
                .map(|r| r[col("label")])
                .collect();
            let line = run
                .stdout
                .lines()
                .find(|l| l.starts_with(&format!("  {sys}: micro F1")))
                .unwrap();
            assert_eq!(
                line.contains("which has no reference span: F1 0 by seqeval's convention"),
                !missing.is_empty(),
                "{name}: {line}"
            );
            for l in &missing {
                assert!(line.contains(&format!("includes {l}, ")), "{line}");
                flagged += 1;
            }
        }
        assert!(
            flagged > 0,
            "the example has a type without reference spans"
        );
        let html = fs::read_to_string(out.join("report/e_report.html")).unwrap();
        assert!(html.contains("macro avg *"), "{name}: the table's mark");
        assert!(html.contains("* This macro average includes a type with no reference span"));
        assert!(
            html.contains("no reference span, F1 0)"),
            "{name}: the tiles"
        );
    }
}

/// Every column header of every spans table in the example's report has
/// an explanation, and no spec file or section is named on screen.
#[test]
fn spans_roles_every_header_explained_no_spec_names() {
    let tmp = tempfile::tempdir().unwrap();
    let (out, _) = ok(tmp.path(), "with", &[], SYSTEMS);
    let html = fs::read_to_string(out.join("report/e_report.html")).unwrap();
    let mut heads = 0;
    let mut bare = Vec::new();
    for table in html.split("<table").skip(1) {
        let tag = &table[..table.find('>').unwrap()];
        let id = tag
            .split_once("id=\"")
            .map_or("", |x| &x.1[..x.1.find('"').unwrap()]);
        // The engine's own tables, alike in every kind (the provenance's
        // inputs, the gates).
        if tag.contains("inputs\"") || id == "table-gates" {
            continue;
        }
        let head = &table[..table.find("</thead>").unwrap_or(0)];
        for th in head
            .split("<th")
            .skip(1)
            .filter(|th| th.starts_with([' ', '>']))
        {
            heads += 1;
            let tag = &th[..th.find('>').unwrap()];
            if !tag.contains("title=\"") || tag.contains("title=\"\"") {
                bare.push(format!("{id}: {}", &th[..th.find("</th>").unwrap()]));
            }
        }
    }
    assert!(heads > 100, "{heads} headers");
    assert!(bare.is_empty(), "{bare:#?}");
    for needle in ["compare.md", "spans.md", "spec 2", "spec 4", "spec/"] {
        assert!(!html.contains(needle), "{needle} on screen");
    }
}

#[test]
fn spans_roles_refused_before_reading_data() {
    let listed =
        "annotators = [\"ann1\", \"ann2\", \"gold\", \"tagger_v1\", \"tagger_v2\"]\nreference = \"gold\"\n";
    let cases: [(String, &[&str]); 6] = [
        (
            format!("{listed}systems = [\"tagger_v3\"]\n"),
            &[
                "systems",
                "tagger_v3",
                "not among the annotators",
                "did you mean \"tagger_v",
            ],
        ),
        (
            format!("{listed}systems = [\"gold\"]\n"),
            &["systems", "reference \"gold\"", "not a system under test"],
        ),
        (
            format!("{listed}agreement_includes_reference = true\n"),
            &[
                "agreement_includes_reference",
                "only applies with `systems`",
            ],
        ),
        (
            "systems = [\"tagger_v1\"]\n".to_string(),
            &["systems", "needs a reference"],
        ),
        (
            format!("{listed}systems = [\"tagger_v1\"]\nbaseline = \"ann1\"\n"),
            &["baseline", "not one of the systems (tagger_v1)"],
        ),
        (
            format!("{listed}systems = [\"tagger_v1\", \"tagger_v1\"]\n"),
            &["systems", "more than once"],
        ),
    ];
    let tmp = tempfile::tempdir().unwrap();
    for (k, (extra, needles)) in cases.iter().enumerate() {
        let dir = tmp.path().join(k.to_string());
        fs::create_dir_all(&dir).unwrap();
        // A broken data file proves the data is never read.
        fs::write(dir.join("spans.csv"), "not,a,span,table\n").unwrap();
        fs::write(dir.join("documents.csv"), "x\n").unwrap();
        fs::write(dir.join("exp.toml"), experiment(extra)).unwrap();
        let run = common::run_in(&dir, ["spans", "exp.toml", "-o", "out"]);
        assert_eq!(run.code, Some(2), "{extra}: {}", run.describe());
        for n in *needles {
            assert!(run.stderr.contains(n), "{n:?} in {}", run.describe());
        }
        assert!(!dir.join("out").exists());
    }
    // Annotators not listed: a system absent from the data is named with
    // the closest annotator (a data error, as a missing reference).
    let (_, run) = run(
        tmp.path(),
        "data",
        &[],
        "reference = \"gold\"\nsystems = [\"tager_v1\"]\n",
    );
    assert_eq!(run.code, Some(1), "{}", run.describe());
    assert!(run
        .stderr
        .contains("systems \"tager_v1\" is not an annotator of the data"));
    assert!(run.stderr.contains("did you mean \"tagger_v1\""));
}

/// The example's first screen in Chromium, at 500 and 1400 px, light and
/// dark: the badge, then the sentence that starts with the systems'
/// verdict, within the first 900 px.
#[test]
fn spans_roles_browser_first_screen_leads_with_the_systems() {
    const SCRIPT: &str = r#"
      const d = document.querySelector('header#top .decision');
      const b = d ? d.querySelector('.badge').textContent : '';
      const r = d ? d.getBoundingClientRect() : null;
      const text = d ? d.textContent.replace(b, '').trim() : '';
      document.documentElement.setAttribute('data-probe', b + '|'
        + (r ? Math.round(r.bottom + window.scrollY) : -1) + '|'
        + text.replace(/["<>&]/g, ' ').slice(0, 60));
    "#;
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let example = example_dir().join("exp.toml");
    let run = common::run_in(
        tmp.path(),
        [
            "spans".as_ref(),
            example.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ],
    );
    assert!(run.success, "{}", run.describe());
    let report = out.join("report/news_ner_report.html");
    for width in [500, 1400] {
        for dark in [false, true] {
            let profile = tmp.path().join(format!("profile-{width}-{dark}"));
            let Some(seen) = crate::report::probe(&report, &profile, width, dark, SCRIPT) else {
                return;
            };
            let v: Vec<&str> = seen.splitn(3, '|').collect();
            assert_eq!(v[0], "no detectable change", "{seen}");
            assert!(v[1].parse::<i64>().unwrap() <= 900, "{width} px: {seen}");
            assert!(
                v[2].starts_with("tagger_v2 against tagger_v1: micro F1"),
                "{width} px: {seen}"
            );
        }
    }
}
