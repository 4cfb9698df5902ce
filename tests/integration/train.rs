//! `rsmreport train` and `predict` against RSMTool 12.0.0 (the shared
//! `fixtures/train`, train.md 17): every visible case through the command,
//! each expected table compared cell by cell (rows keyed by the first
//! column when it is unique, else by position; columns by name; numbers
//! within `atol + rtol * |expected|`, rtol 1e-9 / atol 1e-12, the Lasso
//! cases 1e-6 / 1e-9; an empty cell equals NaN; text exactly), with the
//! sanctioned differences of the fixtures README: the `Score/Features`
//! label column of the excluded-composition tables, the stray
//! `pcor_score_no_length_by_<g>` table of runs without a length column, a
//! `pca` component negated as a whole. Error cases: the exit code and the
//! words of `expected_error.toml`, nothing written. Predict cases run
//! `predict` (the chain case twice: on the reference's folder and on our
//! own training output).
//!
//! Skipped with a message when `../shared/spec/fixtures/train` is absent
//! (`RSMREPORT_SHARED_FIXTURES` names another fixtures folder).

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::common::table::{read_table, Cell, Table};
use crate::common::{run_in, shared_fixtures_path, Run};

/// The fixture folder of train.md 17, if present.
fn fixtures() -> Option<PathBuf> {
    let dir = shared_fixtures_path().join("train");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("skipped: no train fixtures at {}", dir.display());
        None
    }
}

/// The cases of the fixture folder (folders with a `train.toml` or a
/// `predict.toml`), in name order.
fn cases(root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("train.toml").is_file() || p.join("predict.toml").is_file())
        .collect();
    out.sort();
    out
}

/// The tally of one comparison.
#[derive(Default)]
struct Tally {
    values: usize,
    matched: usize,
    failures: Vec<String>,
}

impl Tally {
    fn fail(&mut self, what: String) {
        self.failures.push(what);
    }

    fn add(&mut self, other: Tally) {
        self.values += other.values;
        self.matched += other.matched;
        self.failures.extend(other.failures);
    }
}

/// The case's tolerance (train.md 17): the pure Lasso models at 1e-6.
fn tolerance(case: &Path) -> (f64, f64) {
    let toml = fs::read_to_string(case.join("train.toml")).unwrap_or_default();
    let lasso = toml.lines().any(|l| {
        let l = l.trim();
        l.starts_with("model")
            && (l.contains("\"LassoFixedLambda\"") || l.contains("\"PositiveLassoCV\""))
    });
    if lasso {
        (1e-6, 1e-9)
    } else {
        (1e-9, 1e-12)
    }
}

fn number(c: &Cell) -> Option<f64> {
    match c {
        Cell::Empty => Some(f64::NAN),
        Cell::Num { value, .. } => Some(*value),
        Cell::Text(_) => None,
    }
}

/// Whether `got` equals `want` (numbers within the tolerance, NaN = empty,
/// text exactly).
fn same(want: &Cell, got: &Cell, (rtol, atol): (f64, f64)) -> bool {
    match (number(want), number(got)) {
        (Some(w), Some(g)) if w.is_nan() || g.is_nan() => w.is_nan() && g.is_nan(),
        (Some(w), Some(g)) => (g - w).abs() <= atol + rtol * w.abs(),
        _ => want == got,
    }
}

/// Columns of `got` that the comparison ignores (sanctioned: the label
/// column of the excluded-composition tables, which we always write).
fn sanctioned_extra(file: &str, column: &str) -> bool {
    file.ends_with("_excluded_composition.csv") && column == "Score/Features"
}

/// Row `i` of `want` -> its row in `got`: by the first column's value when
/// it is unique in `want`, else by position.
fn row_map(want: &Table, got: &Table) -> Vec<Option<usize>> {
    let key = |c: &Cell| format!("{c}");
    let first: Vec<String> = want.rows.iter().map(|r| key(&r[0])).collect();
    let unique = {
        let mut s = first.clone();
        s.sort();
        s.dedup();
        s.len() == first.len()
    };
    if !unique || want.header.is_empty() || got.header.first() != want.header.first() {
        return (0..want.rows.len())
            .map(|i| (i < got.rows.len()).then_some(i))
            .collect();
    }
    let index: HashMap<String, usize> = got
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| (key(&r[0]), i))
        .collect();
    first.iter().map(|k| index.get(k).copied()).collect()
}

/// Compares one expected table with ours.
fn compare(file: &str, want: &Table, got: &Table, tol: (f64, f64)) -> Tally {
    let mut t = Tally::default();
    for c in &got.header {
        if !want.header.contains(c) && !sanctioned_extra(file, c) {
            t.fail(format!("{file}: extra column '{c}'"));
        }
    }
    if want.rows.len() != got.rows.len() {
        t.fail(format!(
            "{file}: {} rows, expected {}",
            got.rows.len(),
            want.rows.len()
        ));
    }
    let rows = row_map(want, got);
    let pca = file.ends_with("_pca.csv");
    for (j, name) in want.header.iter().enumerate() {
        let Some(k) = got.header.iter().position(|h| h == name) else {
            t.fail(format!("{file}: missing column '{name}'"));
            continue;
        };
        // A PCA component may be negated as a whole (train.md 17).
        let negated = pca
            && j > 0
            && want.rows.iter().zip(&rows).all(|(w, r)| {
                r.is_some_and(|r| {
                    let g = number(&got.rows[r][k]).unwrap_or(f64::NAN);
                    number(&w[j]).is_some_and(|w| {
                        same(
                            &Cell::Num {
                                value: -w,
                                text: None,
                            },
                            &Cell::Num {
                                value: g,
                                text: None,
                            },
                            tol,
                        )
                    })
                })
            });
        for (i, w) in want.rows.iter().enumerate() {
            t.values += 1;
            let Some(r) = rows[i] else {
                t.fail(format!("{file}: row {i} ({}) missing", w[0]));
                continue;
            };
            let g = &got.rows[r][k];
            let ok = if negated {
                let gv = number(g).map(|v| -v);
                gv.is_some_and(|v| {
                    same(
                        &w[j],
                        &Cell::Num {
                            value: v,
                            text: None,
                        },
                        tol,
                    )
                })
            } else {
                same(&w[j], g, tol)
            };
            if ok {
                t.matched += 1;
            } else if t.failures.len() < 400 {
                t.fail(format!(
                    "{file}: row {} column '{name}': got {g}, expected {}",
                    w[0], w[j]
                ));
            }
        }
    }
    t
}

/// Compares every expected table of `want_dir` with `got_dir`.
fn compare_dir(want_dir: &Path, got_dir: &Path, tol: (f64, f64), length: bool) -> Tally {
    let mut t = Tally::default();
    let Ok(entries) = fs::read_dir(want_dir) else {
        return t;
    };
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    for want_path in files {
        let name = want_path.file_name().unwrap().to_string_lossy().to_string();
        if name.ends_with(".json") {
            continue;
        }
        if !length && name.contains("_pcor_score_no_length_by_") {
            continue; // the reference's stray table (train.md 16 Q5)
        }
        let got_path = got_dir.join(&name);
        let (Ok(want), Ok(got)) = (read_table(&want_path), read_table(&got_path)) else {
            t.fail(format!("{name}: not written"));
            continue;
        };
        t.add(compare(&name, &want, &got, tol));
    }
    t
}

/// The `exit` and `mentions` of an `expected_error.toml`.
fn expected_error(case: &Path) -> Option<(i32, Vec<String>)> {
    let text = fs::read_to_string(case.join("expected_error.toml")).ok()?;
    let v: toml::Table = text.parse().unwrap();
    let exit = v["exit"].as_integer().unwrap() as i32;
    let mentions = v["mentions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    Some((exit, mentions))
}

fn run_command(case: &Path, command: &str, exp: &str, out: &Path) -> Run {
    run_in(
        case,
        [
            command,
            exp,
            "--output-dir",
            out.to_str().unwrap(),
            "--force",
        ],
    )
}

/// One case: the error, or every table of `train` (and `predict`).
fn check_case(case: &Path, work: &Path) -> Tally {
    let mut t = Tally::default();
    let name = case.file_name().unwrap().to_string_lossy().to_string();
    let tol = tolerance(case);
    let out = work.join(format!("{name}-train"));
    if case.join("train.toml").is_file() {
        let run = run_command(case, "train", "train.toml", &out);
        if let Some((exit, mentions)) = expected_error(case) {
            t.values += 1;
            let text = run.stderr.to_lowercase();
            let mut ok = run.code == Some(exit) && !out.exists();
            for m in &mentions {
                ok &= text.contains(&m.to_lowercase());
            }
            if ok {
                t.matched += 1;
            } else {
                t.fail(format!(
                    "{name}: expected exit {exit} mentioning {mentions:?}, nothing written; got \
                     {:?}: {}",
                    run.code, run.stderr
                ));
            }
            return t;
        }
        if run.code != Some(0) {
            t.fail(format!("{name}: train failed: {}", run.describe()));
            return t;
        }
        let length = fs::read_to_string(case.join("train.toml"))
            .unwrap()
            .contains("length_column");
        t.add(compare_dir(
            &case.join("expected/output"),
            &out.join("output"),
            tol,
            length,
        ));
        t.add(compare_dir(
            &case.join("expected/feature"),
            &out.join("feature"),
            tol,
            length,
        ));
    }
    if case.join("predict.toml").is_file() {
        t.add(check_predict(case, work, &name, None));
        if case.join("train.toml").is_file() {
            t.add(check_predict(case, work, &name, Some(&out)));
        }
    }
    t
}

/// `predict` on the case's `predict.toml` (with `experiment_dir` replaced
/// by `ours`, our own training output, when given).
fn check_predict(case: &Path, work: &Path, name: &str, ours: Option<&Path>) -> Tally {
    let mut t = Tally::default();
    let suffix = if ours.is_some() { "ours" } else { "ref" };
    let out = work.join(format!("{name}-predict-{suffix}"));
    let exp = match ours {
        None => case.join("predict.toml"),
        Some(dir) => {
            let text = fs::read_to_string(case.join("predict.toml")).unwrap();
            let mut v: toml::Table = text.parse().unwrap();
            v.insert("experiment_dir".into(), dir.display().to_string().into());
            let input = case.join(v["input_features_file"].as_str().unwrap());
            v.insert(
                "input_features_file".into(),
                input.display().to_string().into(),
            );
            let path = work.join(format!("{name}-predict.toml"));
            fs::write(&path, toml::to_string(&v).unwrap()).unwrap();
            path
        }
    };
    let run = run_command(case, "predict", exp.to_str().unwrap(), &out);
    if run.code != Some(0) {
        t.fail(format!(
            "{name}: predict ({suffix}) failed: {}",
            run.describe()
        ));
        return t;
    }
    t.add(compare_dir(
        &case.join("expected_predict/output"),
        &out.join("output"),
        (1e-9, 1e-12),
        true,
    ));
    t
}

#[test]
fn train_fixtures() {
    let Some(root) = fixtures() else { return };
    let work = tempfile::tempdir().unwrap();
    let filter = std::env::var("RSMREPORT_TRAIN_FILTER").unwrap_or_default();
    let mut total = Tally::default();
    let (mut n, mut passed) = (0, 0);
    for case in cases(&root) {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        if !filter.is_empty() && !filter.split(',').any(|f| name.contains(f)) {
            continue;
        }
        let t = check_case(&case, work.path());
        n += 1;
        if t.failures.is_empty() {
            passed += 1;
        } else {
            println!("{name}: {} failures", t.failures.len());
            for f in t.failures.iter().take(15) {
                println!("  {f}");
            }
        }
        total.add(t);
    }
    println!(
        "train: {passed}/{n} visible cases, {}/{} values match",
        total.matched, total.values
    );
    assert!(n > 0, "no train case under {}", root.display());
    assert!(
        total.failures.is_empty(),
        "{} failures",
        total.failures.len()
    );
}

/// The comparison can fail: a coefficient moved by 1e-7 relative, a
/// dropped row, a text cell changed and a PCA component negated in one
/// cell only are failures; a whole negated component is not.
#[test]
fn train_comparison_can_fail() {
    let parse = |text: &str| {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.csv");
        fs::write(&p, text).unwrap();
        read_table(&p).unwrap()
    };
    let want = parse("feature,coefficient\nIntercept,3.42\nF1,0.336\nF2,-0.5\n");
    let tol = (1e-9, 1e-12);
    let ok = compare("x_coefficients.csv", &want, &want, tol);
    assert!(
        ok.failures.is_empty() && ok.matched == 6,
        "{:?}",
        ok.failures
    );
    let moved = parse("feature,coefficient\nIntercept,3.42\nF1,0.3360000336\nF2,-0.5\n");
    assert_eq!(
        compare("x_coefficients.csv", &want, &moved, tol)
            .failures
            .len(),
        1
    );
    let dropped = parse("feature,coefficient\nIntercept,3.42\nF1,0.336\n");
    assert!(!compare("x_coefficients.csv", &want, &dropped, tol)
        .failures
        .is_empty());
    let renamed = parse("feature,coefficient\nIntercept,3.42\nF1,0.336\nF3,-0.5\n");
    assert!(!compare("x_coefficients.csv", &want, &renamed, tol)
        .failures
        .is_empty());
    let pca = parse(",PC1,PC2\nF1,0.6,0.8\nF2,0.8,-0.6\n");
    let negated = parse(",PC1,PC2\nF1,-0.6,0.8\nF2,-0.8,-0.6\n");
    assert!(compare("x_pca.csv", &pca, &negated, tol)
        .failures
        .is_empty());
    let one_cell = parse(",PC1,PC2\nF1,-0.6,0.8\nF2,0.8,-0.6\n");
    assert_eq!(compare("x_pca.csv", &pca, &one_cell, tol).failures.len(), 1);
    let extra = parse(",PC1,PC2,PC3\nF1,0.6,0.8,0\nF2,0.8,-0.6,0\n");
    assert!(!compare("x_pca.csv", &pca, &extra, tol).failures.is_empty());
}

/// A small seeded data set for the error cases: `n` rows of `id`,
/// `score` (1-4) and the features `f1..f3` (numbers), plus `text`.
fn small_data(n: usize, seed: u64) -> String {
    let mut rng = rsmreport_metrics::bootstrap::Rng::from_seed(seed);
    let mut s = String::from("id,score,f1,f2,f3,text\n");
    for i in 0..n {
        let t = rng.next_f64() * 3.0;
        let score = (t + 1.0).round();
        s.push_str(&format!(
            "r{i},{score},{:.4},{:.4},{:.4},word{i}\n",
            t + rng.next_f64(),
            t * 2.0 - rng.next_f64(),
            rng.next_f64()
        ));
    }
    s
}

/// Writes `train.csv`, `test.csv` and `exp.toml` (the base experiment plus
/// `extra`) into `dir`; runs `train`; returns the run and the output folder.
fn train_with(dir: &Path, train: &str, extra: &str) -> (Run, PathBuf) {
    fs::write(dir.join("train.csv"), train).unwrap();
    fs::write(dir.join("test.csv"), small_data(40, 7)).unwrap();
    let exp = format!(
        "experiment_id = \"e\"\ntrain_file = \"train.csv\"\ntest_file = \"test.csv\"\n\
         id_column = \"id\"\ntrain_label_column = \"score\"\ntest_label_column = \"score\"\n\
         trim_min = 1\ntrim_max = 4\n{extra}"
    );
    fs::write(dir.join("exp.toml"), exp).unwrap();
    let out = dir.join("out");
    let run = run_in(
        dir,
        ["train", "exp.toml", "--output-dir", out.to_str().unwrap()],
    );
    (run, out)
}

/// The bad inputs of issue 52 point 4 and train.md 15: exit code, the
/// words of the message, nothing written.
#[test]
fn train_errors() {
    let base = small_data(60, 1);
    let with = |old: &str, new: &str| base.replacen(old, new, 1);
    let cases: Vec<(&str, String, String, i32, Vec<&str>)> = vec![
        (
            "a feature missing from the file",
            base.clone(),
            "model = \"LinearRegression\"\nfeatures = [\"f1\", \"f4\"]\n".into(),
            1,
            vec!["train.csv", "f4", "feature column"],
        ),
        (
            "a feature whose values are all text",
            base.clone(),
            "model = \"LinearRegression\"\nfeatures = [\"f1\", \"text\"]\n".into(),
            1,
            vec!["train.csv", "'text'", "row 1", "word0"],
        ),
        (
            "a constant feature",
            base.lines()
                .enumerate()
                .map(|(i, l)| {
                    if i == 0 {
                        format!("{l},c\n")
                    } else {
                        format!("{l},7.5\n")
                    }
                })
                .collect(),
            "model = \"LinearRegression\"\nfeatures = [\"f1\", \"c\"]\n".into(),
            1,
            vec!["'c'", "standard deviation of 0", "7.5"],
        ),
        (
            "more features than responses",
            small_data(3, 2),
            "model = \"LinearRegression\"\nfeatures = [\"f1\", \"f2\", \"f3\"]\n".into(),
            1,
            vec!["3 response", "3 feature"],
        ),
        (
            "an unknown model",
            base.clone(),
            "model = \"LinearRegresion\"\n".into(),
            2,
            vec![
                "exp.toml",
                "model",
                "LinearRegresion",
                "did you mean \"LinearRegression\"",
            ],
        ),
        (
            "a SKLL learner",
            base.clone(),
            "model = \"Ridge\"\n".into(),
            2,
            vec!["Ridge", "not supported"],
        ),
        (
            "a sign that is not 1 or -1",
            base.clone(),
            "model = \"LinearRegression\"\nfeatures = \"features.csv\"\n".into(),
            2,
            vec!["features.csv", "'f2'", "row 2", "'2'", "1 or -1"],
        ),
        (
            "a duplicated id",
            with("r1,", "r0,"),
            "model = \"LinearRegression\"\n".into(),
            1,
            vec!["duplicate", "'id'"],
        ),
        (
            "a key of build",
            base.clone(),
            "model = \"LinearRegression\"\nsystem_score_column = \"x\"\n".into(),
            2,
            vec!["system_score_column", "rsmreport build"],
        ),
    ];
    let mut problems = Vec::new();
    for (what, train, extra, exit, words) in cases {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(
            tmp.path().join("features.csv"),
            "feature,sign\nf1,1\nf2,2\n",
        )
        .unwrap();
        let (run, out) = train_with(tmp.path(), &train, &extra);
        let missing: Vec<&&str> = words.iter().filter(|w| !run.stderr.contains(**w)).collect();
        if run.code != Some(exit) || !missing.is_empty() || out.exists() || run.panicked() {
            problems.push(format!(
                "{what}: exit {:?} (expected {exit}), missing {missing:?}, written {}:\n{}",
                run.code,
                out.exists(),
                run.stderr
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// `[[gates]]` in a training experiment judge the evaluation of the test
/// partition with `build`'s statistics (issue 48: every kind has gates):
/// a gate that holds passes with the value of the evaluation table, one
/// that cannot hold fails the run with exit 3, every file written, the
/// gate files beside the tables; an unknown metric is a configuration
/// error before any work, naming the closest one.
#[test]
fn train_gates() {
    let gates = "model = \"LinearRegression\"\nfeatures = [\"f1\", \"f2\", \"f3\"]\n\
                 [[gates]]\nname = \"correlation\"\nmetric = \"corr\"\nop = \">=\"\nthreshold = -1\n\
                 [[gates]]\nname = \"kappa above 2\"\nmetric = \"wtkappa\"\nop = \">=\"\nthreshold = 2\n";
    let tmp = tempfile::tempdir().unwrap();
    let (run, out) = train_with(tmp.path(), &small_data(60, 1), gates);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert!(
        run.stderr.contains("gate FAILED: kappa above 2"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.contains("overall: gates failed"),
        "{}",
        run.stdout
    );
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("output/e_gates.json")).unwrap())
            .unwrap();
    let results = json["results"].as_array().unwrap();
    let by_name = |n: &str| results.iter().find(|r| r["name"] == n).unwrap();
    let eval = read_table(&out.join("output/e_eval_short.csv")).unwrap();
    let column = |c: &str| {
        let i = eval.header.iter().position(|h| h == c).unwrap();
        number(&eval.rows[0][i]).unwrap()
    };
    // Without use_scaled_predictions the primary score is raw_trim.
    let corr = by_name("correlation");
    assert_eq!(
        (corr["status"].as_str(), corr["score_type"].as_str()),
        (Some("pass"), Some("raw_trim"))
    );
    assert_eq!(corr["value"].as_f64().unwrap(), column("corr.raw_trim"));
    let kappa = by_name("kappa above 2");
    assert_eq!(kappa["status"], "fail");
    assert_eq!(kappa["value"].as_f64().unwrap(), column("wtkappa.raw_trim"));
    assert!(out.join("output/e_gates.xml").exists());
    let report = fs::read_to_string(out.join("report/e_report.html")).unwrap();
    assert!(report.contains("The training run fails its quality gates"));

    let bad = "model = \"LinearRegression\"\nfeatures = [\"f1\"]\n\
               [[gates]]\nname = \"typo\"\nmetric = \"wtkapa\"\nop = \">=\"\nthreshold = 0.5\n";
    let tmp = tempfile::tempdir().unwrap();
    let (run, out) = train_with(tmp.path(), &small_data(60, 1), bad);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("wtkappa"), "{}", run.stderr);
    assert!(!out.exists());
}

/// A copy of `examples/train` in a temporary folder.
fn example() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    crate::common::copy_dir(
        &crate::common::manifest_dir().join("examples/train"),
        &tmp.path().join("examples/train"),
    );
    tmp
}

/// `train`, then `predict` of the test file with our model, then `build`
/// of predict's file as it stands: the predictions equal `pred_processed`
/// and build's evaluation of the scaled score equals train's (train.md 10,
/// 13.4: the same numbers as rsmtool, rsmpredict, rsmeval).
#[test]
fn train_predict_build_chain() {
    let tmp = example();
    let root = tmp.path();
    let run = run_in(root, ["train", "examples/train/train.toml"]);
    assert_eq!(run.code, Some(0), "{}", run.describe());
    let predict = "experiment_id = \"essays\"\nexperiment_dir = \"essays\"\n\
        input_features_file = \"examples/train/test.csv\"\nid_column = \"essay_id\"\n\
        human_score_column = \"h1\"\nsecond_human_score_column = \"h2\"\nsubgroups = [\"L1\"]\n";
    fs::write(root.join("p.toml"), predict).unwrap();
    let run = run_in(root, ["predict", "p.toml", "--output-dir", "p"]);
    assert_eq!(run.code, Some(0), "{}", run.describe());
    let build = "experiment_id = \"b\"\npredictions_file = \"p/output/essays_predictions.csv\"\n\
        id_column = \"spkitemid\"\nhuman_score_column = \"sc1\"\nsecond_human_score_column = \"sc2\"\n\
        system_score_column = \"scale\"\ntrim_min = 1\ntrim_max = 6\nsubgroups = [\"L1\"]\n";
    fs::write(root.join("b.toml"), build).unwrap();
    let run = run_in(root, ["build", "b.toml", "--output-dir", "b"]);
    assert_eq!(run.code, Some(0), "{}", run.describe());
    let table = |p: &str| read_table(&root.join(p)).unwrap();
    let ours = table("essays/output/essays_pred_processed.csv");
    let predicted = table("p/output/essays_predictions.csv");
    // predict keeps the rows with a non-numeric or zero label (build drops
    // them); every row of pred_processed is among them, with equal values.
    let by_id: HashMap<String, &Vec<Cell>> = predicted
        .rows
        .iter()
        .map(|r| (format!("{}", r[0]), r))
        .collect();
    let tol = (1e-12, 1e-12);
    for r in &ours.rows {
        let p = by_id[&format!("{}", r[0])];
        for col in ["raw", "scale", "raw_trim", "scale_trim", "raw_trim_round"] {
            let (i, j) = (
                ours.header.iter().position(|h| h == col).unwrap(),
                predicted.header.iter().position(|h| h == col).unwrap(),
            );
            assert!(
                same(&r[i], &p[j], tol),
                "{col} of {}: {} vs {}",
                r[0],
                r[i],
                p[j]
            );
        }
    }
    let train_eval = table("essays/output/essays_eval.csv");
    let build_eval = table("b/output/b_eval.csv");
    let row = |t: &Table, label: &str| {
        let wanted = Cell::Text(label.to_string());
        t.rows.iter().find(|r| r[0] == wanted).cloned().unwrap()
    };
    let (a, b) = (row(&train_eval, "scale_trim"), row(&build_eval, "raw_trim"));
    assert_eq!(train_eval.header, build_eval.header);
    for (k, h) in train_eval.header.iter().enumerate().skip(1) {
        assert!(
            same(&a[k], &b[k], (1e-9, 1e-12)),
            "{h}: {} vs {}",
            a[k],
            b[k]
        );
    }
}

/// predict's bad inputs: no model for the id (exit 2, naming the path), a
/// model feature missing from the file (exit 1), a setting contradicting
/// the model file (exit 2); nothing written.
#[test]
fn predict_errors() {
    let tmp = example();
    let root = tmp.path();
    assert_eq!(
        run_in(root, ["train", "examples/train/train.toml"]).code,
        Some(0)
    );
    fs::write(root.join("bad.csv"), "essay_id,vocab_level,h1\nX1,2.0,3\n").unwrap();
    let cases = [
        ("experiment_id = \"nope\"\nexperiment_dir = \"essays\"\ninput_features_file = \"examples/train/new.csv\"\nid_column = \"essay_id\"\n", 2, vec!["nope", "essays/output"]),
        ("experiment_id = \"essays\"\nexperiment_dir = \"essays\"\ninput_features_file = \"bad.csv\"\nid_column = \"essay_id\"\n", 1, vec!["bad.csv", "grammar_err_rate"]),
        ("experiment_id = \"essays\"\nexperiment_dir = \"essays\"\ninput_features_file = \"examples/train/new.csv\"\nid_column = \"essay_id\"\nstandardize_features = false\n", 2, vec!["standardize_features", "model"]),
    ];
    for (exp, exit, words) in cases {
        fs::write(root.join("p.toml"), exp).unwrap();
        let run = run_in(root, ["predict", "p.toml", "--output-dir", "p"]);
        assert_eq!(run.code, Some(exit), "{exp}\n{}", run.describe());
        for w in words {
            assert!(run.stderr.contains(w), "{w}: {}", run.stderr);
        }
        assert!(!root.join("p").exists());
    }
}

/// The example's report opens in headless Chromium without script errors
/// (skipped without Chromium).
#[test]
fn train_report_in_browser() {
    let tmp = example();
    let root = tmp.path();
    assert_eq!(
        run_in(root, ["train", "examples/train/train.toml"]).code,
        Some(0)
    );
    let report = root.join("essays/report/essays_report.html");
    if let Some(dom) = crate::report::renders_in_chromium(&report, &root.join("profile"), "train") {
        for section in [
            "data_description",
            "model",
            "evaluation",
            "pca",
            "fairness_analyses",
        ] {
            assert!(
                dom.contains(&format!("data-section=\"{section}\"")),
                "{section}"
            );
        }
    }
}
