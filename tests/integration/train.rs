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
