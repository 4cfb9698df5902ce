//! More human raters in `build` (`spec/agreement.md` 1.1, 3, 4, 5):
//! `other_human_score_columns` gives the `rater_agreement` section and
//! tables, computed exactly as `rsmreport agree` computes them on the same
//! columns (one definition of every number), with the machine as one more
//! rater in the pairs; `true_score_eval_all_raters` reproduces the spec's
//! hand case; `classification = true` gives the classification view (a
//! hand-checked case, and equal to `agree`'s on the same labels); the
//! reference's tables are byte-identical with and without the new keys;
//! the example's report opens in headless Chromium.
//!
//! Run with `cargo test --test integration raters_`.

use std::fs;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::common::{self, Run};
use crate::compare::{cell, ok};

fn example() -> PathBuf {
    common::manifest_dir().join("examples").join("raters")
}

fn agree(cwd: &Path, exp: &Path, out: &Path) -> Run {
    common::run_in(
        cwd,
        [
            "agree".as_ref(),
            exp.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ],
    )
}

fn lines(path: &Path) -> Vec<String> {
    fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(String::from)
        .collect()
}

/// The example's agreement tables are `agree`'s on the four rater columns
/// with the scale's score points as categories (same default intervals,
/// same seed): identical bytes for the coefficients and the categories;
/// the pairs table holds `agree`'s human pairs and, with the machine, one
/// more pair per human rater.
#[test]
fn raters_example_tables_equal_agree_on_the_same_columns() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("build");
    ok(&common::build(
        tmp.path(),
        &example().join("exp.toml"),
        &out,
        &[],
    ));
    let toml = format!(
        "experiment_id = \"essays_raters\"\nannotations_file = \"{}\"\nlayout = \"wide\"\n\
         item_column = \"essay_id\"\nrater_columns = [\"r1\", \"r2\", \"r3\", \"r4\"]\n\
         level = \"interval\"\ncategories = [1, 2, 3, 4, 5, 6]\n",
        example().join("predictions.csv").display()
    );
    fs::write(tmp.path().join("agree.toml"), toml).unwrap();
    let agreed = tmp.path().join("agree");
    ok(&agree(tmp.path(), &tmp.path().join("agree.toml"), &agreed));
    let file = |dir: &Path, t: &str| dir.join(format!("output/essays_raters_{t}.csv"));
    for t in ["agreement", "agreement_by_category"] {
        assert_eq!(
            lines(&file(&out, t)),
            lines(&file(&agreed, t)),
            "{t} differs from agree's"
        );
    }
    let built = lines(&file(&out, "agreement_pairs"));
    let humans: Vec<&String> = built
        .iter()
        .filter(|l| !l.contains("raw_trim_round"))
        .collect();
    let theirs = lines(&file(&agreed, "agreement_pairs"));
    assert_eq!(humans, theirs.iter().collect::<Vec<_>>());
    assert_eq!(built.len() - humans.len(), 4, "one machine pair per rater");
    let dist = lines(&file(&out, "label_distribution"));
    assert_eq!(dist[0], "rater,1,2,3,4,5,6");
    assert!(dist.last().unwrap().starts_with("raw_trim_round,"));
    assert_eq!(&dist[..5], &lines(&file(&agreed, "label_distribution"))[..]);
}

const HAND_PRED: &str = "id,h1,h2,h3,sys\nA,1,2,,2\nB,3,3,4,2.5\nC,2,,,3\nD,4,5,5,4\nE,1,1,2,2\n";
const HAND_CONFIG: &str = "experiment_id = \"hand\"\npredictions_file = \"pred.csv\"\n\
                           id_column = \"id\"\nhuman_score_column = \"h1\"\n\
                           second_human_score_column = \"h2\"\nsystem_score_column = \"sys\"\n\
                           trim_min = 1\ntrim_max = 6\nintervals = false\n";

fn hand_build(tmp: &Path, name: &str, extra: &str) -> PathBuf {
    let dir = tmp.join(name);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("pred.csv"), HAND_PRED).unwrap();
    fs::write(dir.join("exp.toml"), format!("{HAND_CONFIG}{extra}")).unwrap();
    let out = dir.join("out");
    ok(&common::build(&dir, &dir.join("exp.toml"), &out, &[]));
    out.join("output")
}

/// Agreement spec 5's hand case: human ratings (1,2,.) (3,3,4) (2,.,.)
/// (4,5,5) (1,1,2), system (2, 2.5, 3, 4, 2): error variance 5/14,
/// true-score variance 2.177295918, MSE 0.372023810, PRMSE 0.829134935.
#[test]
fn raters_prmse_from_all_ratings_is_the_spec_hand_case() {
    let tmp = TempDir::new().unwrap();
    let out = hand_build(tmp.path(), "all", "other_human_score_columns = [\"h3\"]\n");
    let f = out.join("hand_true_score_eval_all_raters.csv");
    let near = |column: &str, expected: f64, tol: f64| {
        let v = cell(&f, "raw", column);
        assert!((v - expected).abs() <= tol, "{column}: {v} vs {expected}");
    };
    near("Variance of errors", 5.0 / 14.0, 1e-12);
    near("True score var", 2.177295918, 5e-10);
    near("MSE true", 0.372023810, 5e-10);
    near("PRMSE true", 0.829134935, 5e-10);
    near("N raters", 3.0, 0.0);
    // The reference's table keeps the first two ratings.
    let two = cell(&out.join("hand_true_score_eval.csv"), "raw", "N raters");
    assert_eq!(two, 2.0);
}

/// RSMTool's PRMSE test files (`tests/data/files/prmse_data.csv`, 10,000
/// responses x 4 raters, and `prmse_data_sparse_matrix.csv`, the same with
/// ratings removed) are the reference's own test data: they are read from
/// `../shared/spec/fixtures/inputs/` and never copied here; without them
/// this test says so and checks nothing.
fn rsmtool_prmse_file(name: &str) -> Option<PathBuf> {
    let path = common::shared_fixtures_path().join("inputs").join(name);
    if path.is_file() {
        Some(path)
    } else {
        println!(
            "raters: {} is not in ../shared (RSMTool's PRMSE test data); the published pin \
             of agreement spec 5 is not checked",
            path.display()
        );
        None
    }
}

/// The columns `system, h1..h4` of an RSMTool PRMSE file (empty = NaN).
fn prmse_columns(path: &Path) -> [Vec<f64>; 5] {
    let text = fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("system,h1,h2,h3,h4"));
    let mut cols: [Vec<f64>; 5] = Default::default();
    for line in lines.filter(|l| !l.is_empty()) {
        for (col, cell) in cols.iter_mut().zip(line.split(',')) {
            col.push(if cell.is_empty() {
                f64::NAN
            } else {
                cell.parse().unwrap()
            });
        }
    }
    cols
}

/// Agreement spec 5: RSMTool's own pins (`test_utils_prmse.py`, 7
/// decimals): all four ratings, error variance 0.509375, true-score
/// variance 0.7765515, MSE 0.3564625, PRMSE 0.5409673; the sparse matrix
/// (3,421 responses single-scored): 0.5150882, 0.769816, 0.3550792,
/// 0.538748. The full file also runs through `build` with
/// `other_human_score_columns` (zeros kept, as RSMTool's function does):
/// the `raw` row of `true_score_eval_all_raters` is the same PRMSE.
#[test]
fn raters_prmse_rsmtool_four_rater_pins() {
    use rsmreport_metrics::prmse::true_score_basis;
    let near = |a: f64, b: f64, what: &str| {
        assert!((a - b).abs() <= 5e-8, "{what}: {a} vs {b} (7 decimals)")
    };
    let cases = [
        (
            "prmse_data.csv",
            [0.509375, 0.7765515, 0.3564625, 0.5409673],
        ),
        (
            "prmse_data_sparse_matrix.csv",
            [0.5150882, 0.769816, 0.3550792, 0.538748],
        ),
    ];
    for (name, [ve, vart, mse, prmse]) in cases {
        let Some(path) = rsmtool_prmse_file(name) else {
            continue;
        };
        let [system, h1, h2, h3, h4] = prmse_columns(&path);
        let basis = true_score_basis(&[&h1, &h2, &h3, &h4], None);
        near(basis.error_variance, ve, &format!("{name}: error variance"));
        near(
            basis.true_score_var,
            vart,
            &format!("{name}: true-score variance"),
        );
        let (m, p) = basis.evaluate(&system);
        near(m, mse, &format!("{name}: MSE"));
        near(p, prmse, &format!("{name}: PRMSE"));
        if name == "prmse_data_sparse_matrix.csv" {
            assert_eq!(basis.n_single, 3421, "single-scored responses");
            continue;
        }
        let tmp = TempDir::new().unwrap();
        let mut csv = String::from("id,system,h1,h2,h3,h4\n");
        for (i, line) in fs::read_to_string(&path)
            .unwrap()
            .lines()
            .skip(1)
            .enumerate()
        {
            csv.push_str(&format!("r{i},{line}\n"));
        }
        fs::write(tmp.path().join("pred.csv"), csv).unwrap();
        fs::write(
            tmp.path().join("exp.toml"),
            "experiment_id = \"prmse\"\npredictions_file = \"pred.csv\"\nid_column = \"id\"\n\
             human_score_column = \"h1\"\nsecond_human_score_column = \"h2\"\n\
             other_human_score_columns = [\"h3\", \"h4\"]\nsystem_score_column = \"system\"\n\
             trim_min = 0\ntrim_max = 4\nexclude_zero_scores = false\nintervals = false\n",
        )
        .unwrap();
        let out = tmp.path().join("out");
        ok(&common::build(
            tmp.path(),
            &tmp.path().join("exp.toml"),
            &out,
            &[],
        ));
        let f = out.join("output/prmse_true_score_eval_all_raters.csv");
        near(cell(&f, "raw", "PRMSE true"), prmse, "build: PRMSE true");
        near(cell(&f, "raw", "N raters"), 4.0, "build: N raters");
    }
}

/// The classification view of the hand case, by hand: human [1, 3, 2, 4,
/// 1], rounded machine [2, 2, 3, 4, 2] (2.5 rounds half to even): only
/// class 4 is right, so accuracy 0.2, macro F1 0.25, weighted F1 0.2.
#[test]
fn raters_classification_view_by_hand() {
    let tmp = TempDir::new().unwrap();
    let out = hand_build(tmp.path(), "cls", "classification = true\n");
    let rows = lines(&out.join("hand_classification.csv"));
    assert_eq!(rows[0], "rater,class,precision,recall,f1,support");
    assert_eq!(rows[1], "raw_trim_round,1,0.0,0.0,0.0,2");
    assert_eq!(rows[4], "raw_trim_round,4,1.0,1.0,1.0,1");
    assert_eq!(rows[5], "raw_trim_round,macro avg,0.25,0.25,0.25,5");
    assert_eq!(rows[6], "raw_trim_round,micro avg,0.2,0.2,0.2,5");
    assert_eq!(rows[7], "raw_trim_round,weighted avg,0.2,0.2,0.2,5");
    let summary = out.join("hand_classification_summary.csv");
    assert_eq!(cell(&summary, "raw_trim_round", "accuracy"), 0.2);
    assert_eq!(cell(&summary, "raw_trim_round", "n"), 5.0);
    for c in ["pearson_r", "spearman_rho", "kendall_tau_b", "kendall_p"] {
        assert!(cell(&summary, "raw_trim_round", c).is_finite(), "{c}");
    }
    // Without the key there is no such table.
    let plain = hand_build(tmp.path(), "plain", "");
    assert!(!plain.join("hand_classification.csv").exists());
}

/// The reference's tables are byte-identical with and without the new
/// keys; the new keys only add tables.
#[test]
fn raters_leave_the_references_tables_unchanged() {
    let tmp = TempDir::new().unwrap();
    let plain = hand_build(tmp.path(), "plain", "");
    let more = hand_build(
        tmp.path(),
        "more",
        "other_human_score_columns = [\"h3\"]\nclassification = true\n",
    );
    let names = |dir: &Path| -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let before = names(&plain);
    for name in before.iter().filter(|n| n.ends_with(".csv")) {
        assert_eq!(
            fs::read(plain.join(name)).unwrap(),
            fs::read(more.join(name)).unwrap(),
            "{name} changed"
        );
    }
    let added: Vec<String> = names(&more)
        .into_iter()
        .filter(|n| !before.contains(n))
        .collect();
    assert_eq!(
        added,
        [
            "hand_agreement.csv",
            "hand_agreement_by_category.csv",
            "hand_agreement_pairs.csv",
            "hand_agreement_tests.csv",
            "hand_classification.csv",
            "hand_classification_summary.csv",
            "hand_label_distribution.csv",
            "hand_true_score_eval_all_raters.csv",
        ]
    );
}

/// The example's report has the new section and subsections, and opens in
/// headless Chromium.
#[test]
fn raters_report_opens_in_the_browser() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    ok(&common::build(
        tmp.path(),
        &example().join("exp.toml"),
        &out,
        &[],
    ));
    let report = out.join("report/essays_raters_report.html");
    let html = fs::read_to_string(&report).unwrap();
    for text in [
        "<section id=\"rater_agreement\"",
        "Agreement among raters",
        "Pairwise quadratic-weighted Cohen",
        "Per score point",
        "PRMSE from all human ratings",
        "zero_division = 0",
    ] {
        assert!(html.contains(text), "no {text}");
    }
    // The README's numbers: Fleiss' kappa among the four raters with its
    // interval, the PRMSE of raw_trim from the first two and from all
    // ratings.
    let file = |t: &str| out.join(format!("output/essays_raters_{t}.csv"));
    let fleiss = lines(&file("agreement"))
        .into_iter()
        .find(|l| l.starts_with("fleiss_kappa,none,"))
        .unwrap();
    let v: Vec<f64> = fleiss
        .split(',')
        .skip(2)
        .take(4)
        .map(|x| x.parse().unwrap())
        .collect();
    let three = |x: f64| format!("{x:.3}");
    assert_eq!(
        [three(v[0]), three(v[2]), three(v[3])],
        ["0.304", "0.264", "0.344"]
    );
    let prmse = |t: &str| three(cell(&file(t), "raw_trim", "PRMSE true"));
    assert_eq!(prmse("true_score_eval"), "0.691");
    assert_eq!(prmse("true_score_eval_all_raters"), "0.674");
    crate::report::renders_in_chromium(&report, &tmp.path().join("profile"), "raters");
}

/// The further human columns are read like the second human score: with
/// `exclude_zero_scores` a 0 is missing, a text is missing and counted in
/// the report's data section, an empty column rates nothing; a column with
/// a name rsmreport reserves (`raw`) is still read under it; a human column
/// named like the machine's score type leaves the machine its own name.
#[test]
fn raters_further_columns_are_read_like_the_second_score() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path();
    fs::write(
        dir.join("pred.csv"),
        "id,h1,h2,raw,raw_trim_round,empty,sys\nA,1,2,0,2,,2\nB,3,3,NS,3,,2.5\n\
         C,2,,2,,,3\nD,4,5,5,4,,4\nE,1,1,2,1,,2\n",
    )
    .unwrap();
    fs::write(
        dir.join("exp.toml"),
        format!(
            "{HAND_CONFIG}other_human_score_columns = [\"raw\", \"raw_trim_round\", \"empty\"]\n"
        ),
    )
    .unwrap();
    let out = dir.join("out");
    ok(&common::build(dir, &dir.join("exp.toml"), &out, &[]));
    let dist = lines(&out.join("output/hand_label_distribution.csv"));
    assert_eq!(
        dist,
        [
            "rater,1,2,3,4,5,6",
            "h1,2,1,1,1,0,0",
            "h2,1,1,1,0,1,0",
            "raw,0,2,0,0,1,0",
            "raw_trim_round,1,1,1,1,0,0",
            "empty,0,0,0,0,0,0",
            "machine (raw_trim_round),0,3,1,1,0,0",
        ]
    );
    let html = fs::read_to_string(out.join("report/hand_report.html")).unwrap();
    assert!(
        html.contains("1 values of the further human score <code>raw</code> are not numbers"),
        "no note on the non-numeric value"
    );
    let all = out.join("output/hand_true_score_eval_all_raters.csv");
    assert_eq!(cell(&all, "raw", "N raters"), 4.0);
}

/// 300 responses: two human scores (the second on 80%), a third on half
/// of them, a system score (`h3` empty: `empty = true`).
fn three_rater_csv(empty: bool) -> String {
    let mut s = String::from("id,h1,h2,h3,sys\n");
    let mut x: u64 = 7;
    let mut next = || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    for i in 0..300 {
        let t = 1.0 + 4.0 * next();
        let score = |u: f64| (t + 1.5 * (u - 0.5)).round().clamp(1.0, 6.0);
        let (a, b, c) = (score(next()), score(next()), score(next()));
        let b = if next() < 0.8 {
            b.to_string()
        } else {
            String::new()
        };
        let c = if !empty && next() < 0.5 {
            c.to_string()
        } else {
            String::new()
        };
        s.push_str(&format!(
            "r{i},{a},{b},{c},{:.3}\n",
            t + 0.4 * (next() - 0.5)
        ));
    }
    s
}

/// Agreement issue 6: the all-raters PRMSE has intervals, from the same
/// bootstrap (by response) as the two-rater table: with the third column
/// empty, its interval is the two-rater one to the last bit; with ratings,
/// the interval holds the estimate.
#[test]
fn raters_all_raters_prmse_has_intervals_from_the_same_bootstrap() {
    let tmp = TempDir::new().unwrap();
    let run = |name: &str, empty: bool| -> PathBuf {
        let dir = tmp.path().join(name);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("pred.csv"), three_rater_csv(empty)).unwrap();
        fs::write(
            dir.join("exp.toml"),
            HAND_CONFIG.replace("intervals = false\n", "")
                + "other_human_score_columns = [\"h3\"]\n\
                   [intervals]\nreplicates = 200\nseed = 3\n",
        )
        .unwrap();
        let out = dir.join("out");
        ok(&common::build(&dir, &dir.join("exp.toml"), &out, &[]));
        out.join("output")
    };
    let ci_rows = |out: &Path, table: &str| -> Vec<String> {
        lines(&out.join(format!("hand_{table}_ci.csv")))
            .into_iter()
            .skip(1)
            .collect()
    };
    let empty = run("empty", true);
    let (two, all) = (
        ci_rows(&empty, "true_score_eval"),
        ci_rows(&empty, "true_score_eval_all_raters"),
    );
    assert!(!two.is_empty() && two == all, "{two:?}\n{all:?}");
    let full = run("full", false);
    let all = ci_rows(&full, "true_score_eval_all_raters");
    assert_ne!(all, ci_rows(&full, "true_score_eval"));
    let prmse = cell(
        &full.join("hand_true_score_eval_all_raters.csv"),
        "raw",
        "PRMSE true",
    );
    let row = all
        .iter()
        .find(|l| l.starts_with("raw,PRMSE true,"))
        .unwrap_or_else(|| panic!("no PRMSE row in {all:?}"));
    let nums: Vec<f64> = row
        .split(',')
        .skip(2)
        .filter_map(|c| c.parse().ok())
        .collect();
    assert!(nums.len() >= 3, "{row}");
    assert!(
        nums.contains(&prmse) || nums.iter().any(|v| (v - prmse).abs() < 1e-12),
        "estimate {prmse} in {row}"
    );
    let (lo, hi) = (nums[1], nums[2]);
    assert!(lo < prmse && prmse < hi, "{row}");
}
