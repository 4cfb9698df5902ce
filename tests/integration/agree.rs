//! `rsmreport agree EXP` end to end (`spec/agreement.md` 1.2, 3, 4, 7):
//! the README's example builds and its coefficient table is exactly what
//! `metrics::raters` gives on the same data (one definition of every
//! number); the wide and long layouts of the same data write identical
//! tables; the same seed gives the same bytes (also on one core); the
//! report opens in headless Chromium; every bad input of spec 7 exits
//! with its code, names the file, row, column or key, and writes nothing
//! (each has an entry in `docs/errors.md`).
//!
//! Run with `cargo test --test integration agree_`.

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use rsmreport::metrics::raters::alpha::{AlphaBootstrap, Level};
use rsmreport::metrics::raters::rows::coefficient_rows;
use rsmreport::metrics::raters::{positions, CountTables};
use tempfile::TempDir;

use crate::common::{self, table, Run};

fn example() -> PathBuf {
    common::manifest_dir().join("examples").join("agree")
}

fn agree(cwd: &Path, exp: &Path, out: &Path) -> Run {
    common::run_in(
        cwd,
        [
            OsStr::new("agree"),
            exp.as_os_str(),
            OsStr::new("-o"),
            out.as_os_str(),
        ],
    )
}

fn ok(run: &Run) {
    assert!(!run.panicked(), "{}", run.describe());
    assert_eq!(run.code, Some(0), "{}", run.describe());
}

fn num(c: &table::Cell) -> f64 {
    match c {
        table::Cell::Num { value, .. } => *value,
        _ => f64::NAN,
    }
}

fn text(c: &table::Cell) -> String {
    match c {
        table::Cell::Text(s) => s.clone(),
        table::Cell::Empty => String::new(),
        table::Cell::Num { value, .. } => value.to_string(),
    }
}

/// The example's ratings read by hand: codes of neg < neutral < pos.
fn example_codes() -> (Vec<Option<u32>>, usize) {
    let csv = fs::read_to_string(example().join("labels.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let raters: Vec<usize> = ["ann1", "ann2", "ann3", "ann4"]
        .iter()
        .map(|r| header.iter().position(|h| h == r).unwrap())
        .collect();
    let code = |s: &str| ["neg", "neutral", "pos"].iter().position(|l| *l == s);
    let mut codes = Vec::new();
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        codes.extend(raters.iter().map(|&j| code(cells[j]).map(|c| c as u32)));
    }
    (codes, raters.len())
}

fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

#[test]
fn agree_example_builds_and_matches_metrics_raters() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let run = agree(tmp.path(), &example().join("exp.toml"), &out);
    ok(&run);
    assert!(
        run.stdout.contains("krippendorff_alpha (ordinal)"),
        "{}",
        run.stdout
    );
    let t = table::read_table(&out.join("output/sentiment_round2_agreement.csv")).unwrap();
    assert_eq!(
        t.header,
        [
            "coefficient",
            "weights",
            "value",
            "se",
            "lower",
            "upper",
            "n_items",
            "n_raters",
            "interpretation"
        ]
    );
    let (codes, r) = example_codes();
    let tables = CountTables::from_ratings(&codes, r, 3);
    let values = positions(3);
    let rows = coefficient_rows(&tables, &values, Level::Ordinal);
    assert_eq!(t.rows.len(), rows.len());
    for (got, want) in t.rows.iter().zip(&rows) {
        assert_eq!(text(&got[0]), want.coefficient);
        assert_eq!(text(&got[1]), want.weights);
        let e = &want.estimate;
        let (lower, upper) = if want.coefficient == "krippendorff_alpha" {
            let level = if want.weights == "nominal" {
                Level::Nominal
            } else {
                Level::Ordinal
            };
            let i = AlphaBootstrap::new(&tables, level, &values).interval(0, 1000, 0.95);
            (i.lower, i.upper)
        } else {
            (e.lower, e.upper)
        };
        for (j, w) in [(2, e.value), (3, e.se), (4, lower), (5, upper)] {
            assert!(
                same(num(&got[j]), w),
                "{} {} column {}: {} vs {w}",
                want.coefficient,
                want.weights,
                t.header[j],
                num(&got[j])
            );
        }
        assert_eq!(num(&got[6]), want.n_items);
    }
    for f in [
        "output/sentiment_round2_agreement_pairs.csv",
        "output/sentiment_round2_classification_summary.csv",
        "output/sentiment_round2_agreement_by_source.csv",
        "output/sentiment_round2_agree.json",
        "figure/sentiment_round2_agreement_pairs_heatmap.svg",
        "report/sentiment_round2_report.html",
    ] {
        assert!(out.join(f).is_file(), "{f} was not written");
    }
}

/// The example as a long file: one row per (item, rater), blanks kept.
fn long_copy(dir: &Path) -> PathBuf {
    let csv = fs::read_to_string(example().join("labels.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let mut long = String::from("item,annotator,label,source,gold\n");
    for line in lines {
        let c: Vec<&str> = line.split(',').collect();
        for (j, h) in header
            .iter()
            .enumerate()
            .filter(|(_, h)| h.starts_with("ann"))
        {
            long.push_str(&format!("{},{h},{},{},{}\n", c[0], c[j], c[1], c[6]));
        }
    }
    fs::write(dir.join("long.csv"), long).unwrap();
    let exp = fs::read_to_string(example().join("exp.toml"))
        .unwrap()
        .replace(
            "annotations_file = \"labels.csv\"",
            "annotations_file = \"long.csv\"",
        )
        .replace("layout = \"wide\"", "layout = \"long\"")
        .replace(
            "rater_columns = [\"ann1\", \"ann2\", \"ann3\", \"ann4\"]",
            "rater_column = \"annotator\"\nlabel_column = \"label\"",
        );
    let path = dir.join("long.toml");
    fs::write(&path, exp).unwrap();
    path
}

#[test]
fn agree_wide_and_long_layouts_give_identical_tables() {
    let tmp = TempDir::new().unwrap();
    let (wide, long) = (tmp.path().join("wide"), tmp.path().join("long"));
    ok(&agree(tmp.path(), &example().join("exp.toml"), &wide));
    ok(&agree(tmp.path(), &long_copy(tmp.path()), &long));
    let files = common::list_files(&wide.join("output"));
    assert!(files.len() >= 14, "{files:?}");
    for f in files
        .iter()
        .filter(|f| f.extension() == Some(OsStr::new("csv")))
    {
        let a = fs::read(wide.join("output").join(f)).unwrap();
        let b = fs::read(long.join("output").join(f)).unwrap();
        assert!(a == b, "{} differs between wide and long", f.display());
    }
}

#[test]
fn agree_same_seed_same_bytes_on_any_number_of_cores() {
    let tmp = TempDir::new().unwrap();
    let exp = example().join("exp.toml");
    let run = |out: &Path, one_core: bool| {
        let mut c = if one_core {
            let mut c = Command::new("taskset");
            c.args(["-c", "0"]).arg(common::bin());
            c
        } else {
            Command::new(common::bin())
        };
        let r: Run = c
            .args([
                OsStr::new("agree"),
                exp.as_os_str(),
                OsStr::new("-o"),
                out.as_os_str(),
            ])
            .env("SOURCE_DATE_EPOCH", "1700000000")
            .output()
            .unwrap()
            .into();
        ok(&r);
    };
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    run(&a, false);
    let taskset = Command::new("taskset").arg("-V").output().is_ok();
    run(&b, taskset);
    if !taskset {
        eprintln!("agree: taskset not found, the second run used every core too");
    }
    let files = common::list_files(&a);
    assert_eq!(files, common::list_files(&b));
    for f in &files {
        assert!(
            fs::read(a.join(f)).unwrap() == fs::read(b.join(f)).unwrap(),
            "{} differs",
            f.display()
        );
    }
}

#[test]
fn agree_report_opens_in_the_browser() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    ok(&agree(tmp.path(), &example().join("exp.toml"), &out));
    let report = out.join("report/sentiment_round2_report.html");
    let html = fs::read_to_string(&report).unwrap();
    for id in [
        "coefficients",
        "pairs",
        "categories",
        "classification",
        "by_subgroup",
        "data_description",
    ] {
        assert!(
            html.contains(&format!("<section id=\"{id}\"")),
            "no section {id}"
        );
    }
    assert!(html.contains("<svg") && html.contains("Pairwise Cohen"));
    assert!(!html.contains("src=\"http") && !html.contains("href=\"http"));
    crate::report::renders_in_chromium(&report, &tmp.path().join("profile"), "agree");
}

// ---------------------------------------------------------------------------
// Bad input (spec 7; docs/errors.md, section "agree")

const WIDE_CSV: &str = "item,a1,a2,a3\ni1,x,x,y\ni2,y,y,y\ni3,x,,x\n";
const WIDE_TOML: &str = "experiment_id = \"e\"\nannotations_file = \"l.csv\"\n\
                         item_column = \"item\"\nrater_columns = [\"a1\", \"a2\", \"a3\"]\n";

/// Runs `agree` on `toml` and `csv` in a fresh folder; expects `code`,
/// every word of `words` in stderr, no panic and no output folder.
fn fails(toml: &str, csv: &str, code: i32, words: &[&str]) {
    let tmp = TempDir::new().unwrap();
    fs::write(tmp.path().join("exp.toml"), toml).unwrap();
    fs::write(tmp.path().join("l.csv"), csv).unwrap();
    let out = tmp.path().join("out");
    let run = agree(tmp.path(), &tmp.path().join("exp.toml"), &out);
    assert!(!run.panicked(), "{}", run.describe());
    assert_eq!(run.code, Some(code), "{}", run.describe());
    for w in words {
        assert!(run.stderr.contains(w), "{w:?} not in {}", run.stderr);
    }
    assert!(!out.exists(), "a failed agree wrote {}", out.display());
}

#[test]
fn agree_error_rater_column_absent() {
    fails(
        &WIDE_TOML.replace("\"a3\"]", "\"a9\"]"),
        WIDE_CSV,
        1,
        &[
            "l.csv: there is no column \"a9\" (rater_columns in",
            "columns are item, a1, a2, a3",
        ],
    );
}

#[test]
fn agree_error_fewer_than_two_raters() {
    fails(
        &WIDE_TOML.replace("[\"a1\", \"a2\", \"a3\"]", "[\"a1\"]"),
        WIDE_CSV,
        2,
        &["exp.toml, line 4", "at least two raters"],
    );
    fails(
        "experiment_id = \"e\"\nannotations_file = \"l.csv\"\nlayout = \"long\"\n\
         item_column = \"item\"\nrater_column = \"who\"\nlabel_column = \"label\"\n",
        "item,who,label\ni1,ann,x\ni2,ann,y\n",
        1,
        &[
            "l.csv: column \"who\" names 1 rater (ann)",
            "at least two raters",
        ],
    );
}

#[test]
fn agree_error_item_repeated_in_wide_layout() {
    fails(
        WIDE_TOML,
        "item,a1,a2,a3\ni1,x,x,y\ni2,y,y,y\ni1,x,,x\n",
        1,
        &["l.csv: an item id is repeated", "i1 (rows 1, 3)"],
    );
}

#[test]
fn agree_error_item_and_rater_repeated_in_long_layout() {
    fails(
        "experiment_id = \"e\"\nannotations_file = \"l.csv\"\nlayout = \"long\"\n\
         item_column = \"item\"\nrater_column = \"who\"\nlabel_column = \"label\"\n",
        "item,who,label\ni1,a,x\ni1,b,y\ni1,a,y\n",
        1,
        &[
            "l.csv: the same (item, rater) appears more than once",
            "(i1, a) (rows 1, 3)",
        ],
    );
}

#[test]
fn agree_error_text_labels_with_interval_level() {
    fails(
        &format!("{WIDE_TOML}level = \"interval\"\n"),
        WIDE_CSV,
        1,
        &[
            "l.csv, row 1, column a1: the label \"x\" is text",
            "level = \"interval\"",
        ],
    );
}

#[test]
fn agree_error_label_not_in_categories() {
    fails(
        &format!("{WIDE_TOML}categories = [\"x\"]\n"),
        WIDE_CSV,
        1,
        &["l.csv, row 1, column a3: the label \"y\" is not in categories (x)"],
    );
}

#[test]
fn agree_error_unknown_key() {
    fails(
        &format!("{WIDE_TOML}refrence_column = \"gold\"\n"),
        WIDE_CSV,
        2,
        &["exp.toml, line 5: unknown key refrence_column; did you mean reference_column?"],
    );
}

#[test]
fn agree_no_item_with_two_ratings_is_not_an_error() {
    let tmp = TempDir::new().unwrap();
    fs::write(tmp.path().join("exp.toml"), WIDE_TOML).unwrap();
    fs::write(
        tmp.path().join("l.csv"),
        "item,a1,a2,a3\ni1,x,,\ni2,,y,\ni3,,,x\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    let run = agree(tmp.path(), &tmp.path().join("exp.toml"), &out);
    ok(&run);
    assert!(
        run.stdout.contains("No item has two ratings"),
        "{}",
        run.stdout
    );
    let html = fs::read_to_string(out.join("report/e_report.html")).unwrap();
    assert!(html.contains("No item has two ratings"));
}

/// The example as Fleiss' counts layout: per item, how many raters chose
/// each label.
fn counts_copy(dir: &Path) -> PathBuf {
    let csv = fs::read_to_string(example().join("labels.csv")).unwrap();
    let mut out = String::from("item,source,neg,neutral,pos\n");
    for line in csv.lines().skip(1) {
        let c: Vec<&str> = line.split(',').collect();
        let n = |l: &str| c[2..6].iter().filter(|x| **x == l).count();
        out.push_str(&format!(
            "{},{},{},{},{}\n",
            c[0],
            c[1],
            n("neg"),
            n("neutral"),
            n("pos")
        ));
    }
    fs::write(dir.join("counts.csv"), out).unwrap();
    let exp = "experiment_id = \"sentiment_round2\"\nannotations_file = \"counts.csv\"\n\
               layout = \"counts\"\nitem_column = \"item\"\n\
               category_columns = [\"neg\", \"neutral\", \"pos\"]\nlevel = \"ordinal\"\n\
               subgroups = [\"source\"]\n";
    let path = dir.join("counts.toml");
    fs::write(&path, exp).unwrap();
    path
}

#[test]
fn agree_counts_layout_gives_the_rows_that_need_no_rater_identity() {
    let tmp = TempDir::new().unwrap();
    let (wide, counts) = (tmp.path().join("wide"), tmp.path().join("counts"));
    ok(&agree(tmp.path(), &example().join("exp.toml"), &wide));
    ok(&agree(tmp.path(), &counts_copy(tmp.path()), &counts));
    let rows = |dir: &Path| -> Vec<String> {
        fs::read_to_string(dir.join("output/sentiment_round2_agreement.csv"))
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    };
    let (w, c) = (rows(&wide), rows(&counts));
    assert!(c.len() > 10, "{c:?}");
    for line in &c {
        assert!(w.contains(line), "counts row {line} is not a wide row");
    }
    for gone in ["conger_kappa", "icc1", "cohen_kappa"] {
        assert!(!c.iter().any(|l| l.starts_with(gone)), "{gone} in counts");
    }
    assert!(!counts
        .join("output/sentiment_round2_agreement_pairs.csv")
        .exists());
}

#[test]
fn agree_the_readmes_example_prints_what_the_readme_shows() {
    let readme = fs::read_to_string(common::manifest_dir().join("README.md")).unwrap();
    let section = &readme[readme.find("## Rater agreement").expect("the section")..];
    let block = &section[section
        .find("```text\nsentiment_round2")
        .expect("the output")..];
    let block = &block["```text\n".len()..block[8..].find("```").unwrap() + 8];
    let tmp = TempDir::new().unwrap();
    let run = agree(
        tmp.path(),
        &example().join("exp.toml"),
        &tmp.path().join("s"),
    );
    ok(&run);
    let printed: Vec<&str> = run.stdout.lines().collect();
    for line in block.lines().filter(|l| !l.starts_with("wrote ")) {
        assert!(
            printed.contains(&line),
            "README line {line:?} not printed:\n{}",
            run.stdout
        );
    }
}

#[test]
fn agree_degenerate_data_builds_without_a_panic() {
    let cases: [(&str, &str); 4] = [
        ("", "item,a1,a2,a3\ni1,x,x,x\ni2,x,x,x\ni3,x,x,x\n"),
        ("", "item,a1,a2,a3\ni1,x,y,x\n"),
        (
            "categories = [\"x\"]\nlevel = \"ordinal\"\n",
            "item,a1,a2,a3\ni1,x,x,x\ni2,x,,x\n",
        ),
        (
            "level = \"interval\"\n",
            "item,a1,a2,a3\ni1,1,1,\ni2,,,\ni3,2,2,2\n",
        ),
    ];
    for (extra, csv) in cases {
        let tmp = TempDir::new().unwrap();
        fs::write(tmp.path().join("exp.toml"), format!("{WIDE_TOML}{extra}")).unwrap();
        fs::write(tmp.path().join("l.csv"), csv).unwrap();
        let out = tmp.path().join("out");
        let run = agree(tmp.path(), &tmp.path().join("exp.toml"), &out);
        ok(&run);
        assert!(out.join("report/e_report.html").is_file(), "{csv}");
    }
}

#[test]
fn agree_prevalence_paradox_is_explained() {
    let tmp = TempDir::new().unwrap();
    fs::write(tmp.path().join("exp.toml"), WIDE_TOML).unwrap();
    let mut csv = String::from("item,a1,a2,a3\n");
    for i in 0..40 {
        let row = match i {
            0 => "x,x,y",
            1 => "y,x,x",
            2 => "x,y,x",
            _ => "x,x,x",
        };
        csv.push_str(&format!("i{i},{row}\n"));
    }
    fs::write(tmp.path().join("l.csv"), csv).unwrap();
    let out = tmp.path().join("out");
    let run = agree(tmp.path(), &tmp.path().join("exp.toml"), &out);
    ok(&run);
    assert!(run.stdout.contains("prevalence paradox"), "{}", run.stdout);
    let html = fs::read_to_string(out.join("report/e_report.html")).unwrap();
    assert!(html.contains("prevalence paradox"));
}
