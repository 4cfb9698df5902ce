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

use rsmreport_metrics::raters::alpha::{AlphaBootstrap, Level};
use rsmreport_metrics::raters::rows::coefficient_rows;
use rsmreport_metrics::raters::{positions, CountTables};
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
        let (se, lower, upper) = if want.coefficient == "krippendorff_alpha" {
            let level = if want.weights == "nominal" {
                Level::Nominal
            } else {
                Level::Ordinal
            };
            let boot = AlphaBootstrap::new(&tables, level, &values);
            let i = boot.interval(0, 1000, 0.95);
            // The standard error: the replicates' standard deviation.
            let reps: Vec<f64> = (0..1000).map(|b| boot.replicate(0, b)).collect();
            let mean = reps.iter().sum::<f64>() / 1000.0;
            let sd = (reps.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 999.0).sqrt();
            (sd, i.lower, i.upper)
        } else {
            (e.se, e.lower, e.upper)
        };
        for (j, w) in [(2, e.value), (3, se), (4, lower), (5, upper)] {
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
        "output/sentiment_round2_summary.json",
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
    assert!(html.contains("<svg") && html.contains("Pairwise quadratic-weighted Cohen"));
    // Provenance: the experiment's settings; the tests against chance and
    // irrCAC's benchmark beside the coefficients.
    assert!(
        html.contains("&quot;layout&quot;: &quot;wide&quot;"),
        "no settings"
    );
    assert!(html.contains("Tests against chance") && html.contains("benchmark (95%)"));
    assert!(!html.contains("src=\"http") && !html.contains("href=\"http"));
    crate::report::renders_in_chromium(&report, &tmp.path().join("profile"), "agree");
}

/// One row of `<id>_agreement_tests.csv`: coefficient, weights, test, and
/// `[statistic, se0, df1, df2, p_value]`.
type TestRow = (String, String, String, [f64; 5]);

/// `agree` on a wide CSV of `items` (one label per rater and item; an empty
/// string is missing) at `level`; the rows of `<id>_agreement_tests.csv`.
fn null_tests(items: &[Vec<String>], level: &str) -> Vec<TestRow> {
    let tmp = TempDir::new().unwrap();
    let raters: Vec<String> = (1..=items[0].len()).map(|j| format!("r{j}")).collect();
    let mut csv = format!("item,{}\n", raters.join(","));
    for (i, row) in items.iter().enumerate() {
        csv.push_str(&format!("i{i},{}\n", row.join(",")));
    }
    fs::write(tmp.path().join("l.csv"), csv).unwrap();
    let quoted: Vec<String> = raters.iter().map(|r| format!("{r:?}")).collect();
    let toml = format!(
        "experiment_id = \"t\"\nannotations_file = \"l.csv\"\nitem_column = \"item\"\n\
         rater_columns = [{}]\nlevel = \"{level}\"\n[intervals]\nreplicates = 20\n",
        quoted.join(", ")
    );
    fs::write(tmp.path().join("exp.toml"), toml).unwrap();
    let out = tmp.path().join("out");
    ok(&agree(tmp.path(), &tmp.path().join("exp.toml"), &out));
    let t = table::read_table(&out.join("output/t_agreement_tests.csv")).unwrap();
    assert_eq!(
        t.header,
        [
            "coefficient",
            "weights",
            "value",
            "test",
            "statistic",
            "se0",
            "df1",
            "df2",
            "p_value"
        ]
    );
    t.rows
        .iter()
        .map(|r| {
            let v = [num(&r[4]), num(&r[5]), num(&r[6]), num(&r[7]), num(&r[8])];
            (text(&r[0]), text(&r[1]), text(&r[3]), v)
        })
        .collect()
}

/// The test row of `coefficient` with `weights`: `(test, values)`.
fn test_row(rows: &[TestRow], coefficient: &str, weights: &str) -> (String, [f64; 5]) {
    rows.iter()
        .find(|r| r.0 == coefficient && r.1 == weights)
        .map(|r| (r.2.clone(), r.3))
        .unwrap_or_else(|| panic!("no test row {coefficient} {weights}"))
}

/// Digit strings (one digit per rater) as rows of labels.
fn digit_rows(rows: &[&str]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|r| r.chars().map(|c| c.to_string()).collect())
        .collect()
}

/// Spec 2's published tests of kappa = 0 reach `<id>_agreement_tests`
/// through the command: the SAS example's ASE0 0.1484 and z 3.2626 (linear
/// z 3.2971), Fleiss (1971)'s z under the null 17.65183 (R irr), and
/// Shrout and Fleiss (1979)'s F tests of the ICCs (pingouin, in the
/// fixture `shrout-fleiss-1979-6x4`: F 1.7946784922394683 on 5 and 18 df,
/// p 0.1647688083446397 for ICC(1); F 11.027247956403299 on 5 and 15 df,
/// p 0.00013456651648433476 for ICC(2) and ICC(3)).
#[test]
fn agree_tests_against_chance_are_written() {
    let near = |a: f64, b: f64, tol: f64| assert!((a - b).abs() <= tol, "{a} vs {b}");
    // SAS: the table [[0,4,1],[0,8,0],[0,1,5]] as 19 items of two raters.
    let table = [[0, 4, 1], [0, 8, 0], [0, 1, 5]];
    let mut sas = Vec::new();
    for (i, row) in table.iter().enumerate() {
        for (j, &n) in row.iter().enumerate() {
            sas.extend(std::iter::repeat_n(format!("{}{}", i + 1, j + 1), n));
        }
    }
    let sas: Vec<&str> = sas.iter().map(String::as_str).collect();
    let rows = null_tests(&digit_rows(&sas), "ordinal");
    let (test, v) = test_row(&rows, "cohen_kappa", "none");
    assert_eq!(test, "z");
    near(v[0], 3.2626, 5e-5);
    near(v[1], 0.1484, 5e-5);
    assert!(v[2].is_nan() && v[3].is_nan());
    near(test_row(&rows, "cohen_kappa", "linear").1[0], 3.2971, 5e-5);
    // Fleiss (1971), 30 subjects x 6 raters.
    let fleiss: Vec<&str> = "444444 222555 233335 555555 222444 113333 333355 113334 114444 \
        555555 144444 124444 222333 144444 224445 333335 111455 111112 224444 133555 555555 \
        244444 224555 114444 144445 222224 111155 224444 133333 555555"
        .split_whitespace()
        .collect();
    let rows = null_tests(&digit_rows(&fleiss), "nominal");
    let (test, v) = test_row(&rows, "fleiss_kappa_complete", "none");
    assert_eq!(test, "z");
    near(v[0], 17.65183, 5e-6);
    assert!(v[4] < 1e-60, "{}", v[4]);
    // Shrout and Fleiss (1979), 6 targets x 4 judges, ratings 1-10.
    let sf = [
        [9, 2, 5, 8],
        [6, 1, 3, 2],
        [8, 4, 6, 8],
        [7, 1, 2, 6],
        [10, 5, 6, 9],
        [6, 2, 4, 7],
    ];
    let sf: Vec<Vec<String>> = sf
        .iter()
        .map(|r| r.iter().map(|v| v.to_string()).collect())
        .collect();
    let rows = null_tests(&sf, "interval");
    let (test, v) = test_row(&rows, "icc1", "none");
    assert_eq!(test, "F");
    near(v[0], 1.7946784922394683, 1e-12);
    assert_eq!((v[2], v[3]), (5.0, 18.0));
    near(v[4], 0.1647688083446397, 1e-12);
    for icc in ["icc2", "icc3"] {
        let (_, v) = test_row(&rows, icc, "none");
        near(v[0], 11.027247956403299, 1e-11);
        assert_eq!((v[2], v[3]), (5.0, 15.0));
        near(v[4], 0.00013456651648433476, 1e-15);
    }
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

/// Every other column key of the experiment file is checked the same way
/// (spec 7: "a rater column absent"; the message names the key).
#[test]
fn agree_error_other_columns_absent() {
    let long = "experiment_id = \"e\"\nannotations_file = \"l.csv\"\nlayout = \"long\"\n\
                item_column = \"item\"\nrater_column = \"who\"\nlabel_column = \"label\"\n";
    let long_csv = "item,who,label\ni1,a,x\ni1,b,y\n";
    fails(
        &long.replace("\"who\"", "\"annotator\""),
        long_csv,
        1,
        &[
            "there is no column \"annotator\" (rater_column in",
            "columns are item, who, label",
        ],
    );
    fails(
        &long.replace("\"label\"", "\"lab\""),
        long_csv,
        1,
        &["there is no column \"lab\" (label_column in"],
    );
    fails(
        "experiment_id = \"e\"\nannotations_file = \"l.csv\"\nlayout = \"counts\"\n\
         category_columns = [\"c1\", \"c3\"]\n",
        "c1,c2\n2,1\n0,3\n",
        1,
        &[
            "there is no column \"c3\" (category_columns in",
            "columns are c1, c2",
        ],
    );
    fails(
        &format!("{WIDE_TOML}reference_column = \"gold\"\n"),
        WIDE_CSV,
        1,
        &["there is no column \"gold\" (reference_column in"],
    );
    fails(
        &format!("{WIDE_TOML}subgroups = [\"source\"]\n"),
        WIDE_CSV,
        1,
        &["there is no column \"source\" (subgroups in"],
    );
    fails(
        &WIDE_TOML.replace("\"item\"", "\"id\""),
        WIDE_CSV,
        1,
        &["there is no column \"id\" (item_column in"],
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

/// Spec 1.2: `ordinal` without categories orders numbers and refuses text
/// labels; `ratio` needs numbers as `interval` does; categories of text for
/// a numeric level are an error of the experiment file.
#[test]
fn agree_error_text_labels_with_ordinal_or_ratio_level() {
    fails(
        &format!("{WIDE_TOML}level = \"ordinal\"\n"),
        WIDE_CSV,
        1,
        &[
            "l.csv, row 1, column a1: the label \"x\" is text",
            "level = \"ordinal\" without categories can only order numbers",
        ],
    );
    fails(
        &format!("{WIDE_TOML}level = \"ratio\"\n"),
        WIDE_CSV,
        1,
        &[
            "l.csv, row 1, column a1: the label \"x\" is text",
            "level = \"ratio\"",
        ],
    );
    fails(
        &format!("{WIDE_TOML}level = \"interval\"\ncategories = [\"a\", \"b\"]\n"),
        WIDE_CSV,
        2,
        &["exp.toml, line", "categories holds the text \"a\""],
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
fn agree_the_guides_example_prints_what_the_guide_shows() {
    let page = common::manifest_dir().join("docs/guide/src/kinds/agree.md");
    let section = &fs::read_to_string(page).unwrap();
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
    for line in block.lines().filter(|l| {
        !l.starts_with("wrote ") && !l.starts_with("output: ") && !l.starts_with("report: ")
    }) {
        assert!(
            printed.contains(&line),
            "guide line {line:?} not printed:\n{}",
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

/// The value of `statistic` in the data description table of `out`.
fn description(out: &Path, statistic: &str) -> String {
    let text = fs::read_to_string(out.join("output/e_data_description.csv")).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{statistic},")))
        .unwrap_or_else(|| panic!("no {statistic} in\n{text}"))
        .to_string()
}

/// Counts rows summing to 12, 13 or 14 raters (10 items, 135 ratings):
/// 14 raters, each item's shortfall missing (5), and a note that says how
/// they are counted and which coefficients use which items.
#[test]
fn agree_counts_layout_with_unequal_row_sums_counts_missing_ratings_per_item() {
    let tmp = TempDir::new().unwrap();
    let sums: [u32; 10] = [14, 14, 13, 14, 12, 14, 14, 13, 13, 14];
    let mut csv = String::from("item,c1,c2,c3\n");
    for (i, &n) in sums.iter().enumerate() {
        let a = (i as u32 % 4 + 3).min(n);
        let b = ((n - a) / 2).min(n - a);
        csv.push_str(&format!("i{i},{a},{b},{}\n", n - a - b));
    }
    assert_eq!(sums.iter().sum::<u32>(), 135);
    fs::write(tmp.path().join("l.csv"), csv).unwrap();
    fs::write(
        tmp.path().join("exp.toml"),
        "experiment_id = \"e\"\nannotations_file = \"l.csv\"\nlayout = \"counts\"\n\
         item_column = \"item\"\ncategory_columns = [\"c1\", \"c2\", \"c3\"]\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    let run = agree(tmp.path(), &tmp.path().join("exp.toml"), &out);
    ok(&run);
    assert_eq!(description(&out, "raters"), "14");
    assert_eq!(description(&out, "ratings"), "135");
    assert_eq!(description(&out, "missing_ratings"), "5");
    assert_eq!(description(&out, "items_rated_by_every_rater"), "6");
    let html = fs::read_to_string(out.join("report/e_report.html")).unwrap();
    for words in [
        "items have between 12 and 14 ratings",
        "largest row sum (14)",
        "5 missing ratings in all",
        "only the 6 items with 14 ratings",
    ] {
        assert!(html.contains(words), "{words}");
    }
}

/// A rater column left entirely empty: named, left out of the pairs (with
/// the count), Conger's kappa and every complete-items coefficient empty
/// with the reason.
#[test]
fn agree_a_rater_with_no_rating_is_named_and_left_out_of_the_pairs() {
    let tmp = TempDir::new().unwrap();
    fs::write(
        tmp.path().join("l.csv"),
        "item,a1,a2,a3\ni1,x,x,\ni2,y,y,\ni3,x,y,\ni4,y,y,\n",
    )
    .unwrap();
    fs::write(tmp.path().join("exp.toml"), WIDE_TOML).unwrap();
    let out = tmp.path().join("out");
    let run = agree(tmp.path(), &tmp.path().join("exp.toml"), &out);
    ok(&run);
    let pairs = fs::read_to_string(out.join("output/e_agreement_pairs.csv")).unwrap();
    assert_eq!(pairs.lines().count(), 2, "only a1-a2:\n{pairs}");
    assert!(!pairs.contains("a3"));
    for words in [
        "'a3' gave no rating: left out of the pairs table (2 of 3 pairs)",
        "Conger",
        "No item was rated by all 3 raters",
        "fleiss_kappa_complete and randolph_kappa",
    ] {
        assert!(run.stdout.contains(words), "{words}:\n{}", run.stdout);
    }
    let agreement = fs::read_to_string(out.join("output/e_agreement.csv")).unwrap();
    let fleiss = agreement
        .lines()
        .find(|l| l.starts_with("fleiss_kappa,"))
        .unwrap();
    assert!(
        !fleiss.split(',').nth(2).unwrap().is_empty(),
        "irrCAC's Fleiss uses the ratings given: {fleiss}"
    );
}

/// Raters who agree on every item: alpha 1, and the first screen says the
/// labels are reliable enough for conclusions; the tiles name their level
/// or weights and carry a label of the configured scale.
#[test]
fn agree_the_first_screen_answers_the_reliability_question() {
    let tmp = TempDir::new().unwrap();
    let mut csv = String::from("item,a1,a2,a3\n");
    for i in 0..40 {
        let l = ["x", "y", "z"][i % 3];
        csv.push_str(&format!("i{i},{l},{l},{l}\n"));
    }
    fs::write(tmp.path().join("l.csv"), csv).unwrap();
    fs::write(tmp.path().join("exp.toml"), WIDE_TOML).unwrap();
    let out = tmp.path().join("out");
    let run = agree(tmp.path(), &tmp.path().join("exp.toml"), &out);
    ok(&run);
    assert!(
        run.stdout.contains(
            "overall: reliable: Reliable enough for conclusions under Krippendorff's (1980) \
             benchmark: Krippendorff's alpha (nominal) is 1.000"
        ),
        "{}",
        run.stdout
    );
    let html = fs::read_to_string(out.join("report/e_report.html")).unwrap();
    assert!(html.contains("<span class=\"badge\">reliable</span>"));
    assert!(html.contains("Reliable enough for conclusions under Krippendorff"));
    for tile in [
        "<dt>alpha · nominal</dt>",
        "<dt>Fleiss&#39; kappa</dt>",
        "<dt>AC1</dt>",
    ] {
        assert!(
            html.contains(tile) || html.contains(&tile.replace("&#39;", "&#x27;")),
            "{tile}"
        );
    }
    assert!(html.contains("almost perfect · 95% CI"));
    let table = fs::read_to_string(out.join("output/e_agreement.csv")).unwrap();
    let pa = table
        .lines()
        .find(|l| l.starts_with("percent_agreement,"))
        .unwrap();
    assert!(pa.ends_with(','), "no label for percent agreement: {pa}");
}

/// 120 labels with a reference column: the report's tables show the 50
/// labels with the most ratings (the figures and confusion matrices 30)
/// and say so; the output files keep every label.
#[test]
fn agree_many_labels_are_capped_in_the_report_not_in_the_files() {
    let tmp = TempDir::new().unwrap();
    let mut csv = String::from("item,a1,a2,a3,gold\n");
    for i in 0..600usize {
        // L000-L039 are the items' labels 11 times each, L040-L119 twice.
        let l = if i < 240 { i % 120 } else { (i - 240) % 40 };
        let other = (l + i % 3) % 120;
        csv.push_str(&format!("i{i},L{l:03},L{l:03},L{other:03},L{l:03}\n"));
    }
    fs::write(tmp.path().join("l.csv"), csv).unwrap();
    let toml = format!("{WIDE_TOML}reference_column = \"gold\"\n[intervals]\nreplicates = 20\n");
    fs::write(tmp.path().join("exp.toml"), toml).unwrap();
    let out = tmp.path().join("out");
    let run = agree(tmp.path(), &tmp.path().join("exp.toml"), &out);
    ok(&run);
    let html = fs::read_to_string(out.join("report/e_report.html")).unwrap();
    assert!(
        html.contains(
            "There are 120 categories: the tables in this section show the 50 with the most \
             ratings and the figure the 30 with the most ratings, leaving out the others"
        ),
        "the note"
    );
    assert!(html.contains("The per-class table shows the 50 classes"));
    assert!(html.contains("The matrices show the rows and columns of the 30 labels"));
    // L000 is the most frequent label, L119 among the rarest.
    assert!(html.contains(">L000<") && !html.contains(">L119<"));
    let by_category = fs::read_to_string(out.join("output/e_agreement_by_category.csv")).unwrap();
    assert_eq!(by_category.lines().count(), 121);
    assert!(by_category.contains("\nL119,"));
    let dist = fs::read_to_string(out.join("output/e_label_distribution.csv")).unwrap();
    assert_eq!(dist.lines().next().unwrap().split(',').count(), 121);
    let classes = fs::read_to_string(out.join("output/e_classification.csv")).unwrap();
    assert_eq!(classes.lines().count(), 1 + 3 * 123);
}

/// Every rating in one category: the note names the category and the
/// coefficients left empty (0/0), on the terminal and in the report.
#[test]
fn agree_a_single_category_says_why_coefficients_are_empty() {
    let tmp = TempDir::new().unwrap();
    fs::write(tmp.path().join("exp.toml"), WIDE_TOML).unwrap();
    fs::write(
        tmp.path().join("l.csv"),
        "item,a1,a2,a3\ni1,x,x,x\ni2,x,x,x\ni3,x,x,\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    let run = agree(tmp.path(), &tmp.path().join("exp.toml"), &out);
    ok(&run);
    let words = "Every rating is in one category (&#39;x&#39;): chance agreement is then 1, so";
    let html = fs::read_to_string(out.join("report/e_report.html")).unwrap();
    assert!(html.contains(words), "report note");
    assert!(
        run.stdout
            .contains("Every rating is in one category ('x'): chance agreement is then 1, so"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("(0/0) are empty"), "{}", run.stdout);
}
