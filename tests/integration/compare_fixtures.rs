//! `rsmreport compare` and `summarize` on every fixture experiment
//! (compare spec 1, 2.6, 5): each rsmeval output folder compared with
//! itself reproduces its own stored tables with Δ = 0 and no change; each
//! rsmeval folder compared with an `rsmreport build` of the same
//! experiment (the local fixtures, and the shared ones when `../shared`
//! is beside the clone) finds Δ = 0; a folder written by RSMTool's
//! `rsmtool` (its saved configuration `<id>_rsmtool.json`) is read like
//! an rsmeval one.
//!
//! Run with `cargo test --test integration compare_fixtures`.

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tempfile::TempDir;

use crate::common::{self, table, Run};
use crate::compare::{num, ok, verdicts};

fn run(cwd: &Path, args: &[&OsStr]) -> Run {
    common::run_in(cwd, args)
}

/// The local fixture experiments (`tests/fixtures/experiments/<name>`
/// with an `expected/output/` folder), sorted by name.
fn local_fixtures() -> Vec<(String, PathBuf)> {
    let root = common::local_fixtures().join("experiments");
    let mut out: Vec<(String, PathBuf)> = fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| e.ok())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .filter(|(_, p)| p.join("expected").join("output").is_dir())
        .collect();
    out.sort();
    out
}

/// The experiment id of an archived folder: the `<id>` of its saved
/// configuration `output/<id>_rsmeval.json` (or `_rsmtool.json`).
fn experiment_id(dir: &Path) -> String {
    let mut ids: Vec<String> = fs::read_dir(dir.join("output"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            ["_rsmeval.json", "_rsmtool.json"]
                .iter()
                .find_map(|s| name.strip_suffix(s).map(String::from))
        })
        .collect();
    assert_eq!(
        ids.len(),
        1,
        "{}: saved configurations {ids:?}",
        dir.display()
    );
    ids.remove(0)
}

/// The stored table `output/<id>_<name>.{csv,tsv,xlsx}` of a folder.
fn stored(dir: &Path, id: &str, name: &str) -> Option<PathBuf> {
    ["csv", "tsv", "xlsx"]
        .iter()
        .map(|ext| dir.join("output").join(format!("{id}_{name}.{ext}")))
        .find(|p| p.is_file())
}

/// The subgroups of a folder: the `<g>` of its `<id>_eval_by_<g>` tables.
fn subgroups(dir: &Path, id: &str) -> Vec<String> {
    let prefix = format!("{id}_eval_by_");
    let mut out: Vec<String> = fs::read_dir(dir.join("output"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let p = e.path();
            let stem = p.file_stem()?.to_str()?.to_string();
            stem.strip_prefix(&prefix).map(String::from)
        })
        .collect();
    out.sort();
    out
}

/// The text of a row label (a number as written).
fn label(c: &table::Cell) -> String {
    match c {
        table::Cell::Text(s) => s.clone(),
        table::Cell::Num { text: Some(t), .. } => t.clone(),
        table::Cell::Num { value, .. } => format!("{value}"),
        table::Cell::Empty => String::new(),
    }
}

/// A stored table as (row label, column) -> value.
struct Stored(table::Table);

impl Stored {
    fn read(path: &Path) -> Self {
        Stored(table::read_table(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
    }

    fn labels(&self) -> Vec<String> {
        self.0.rows.iter().map(|r| label(&r[0])).collect()
    }

    /// The value, `None` when the row or the column is absent.
    fn get(&self, row: &str, column: &str) -> Option<f64> {
        let j = self.0.header.iter().position(|h| h == column)?;
        let r = self.0.rows.iter().find(|r| label(&r[0]) == row)?;
        Some(num(&r[j]))
    }
}

/// Equal at relative 1e-9 (absolute below 1), NaN only with NaN.
fn same(got: f64, want: f64) -> bool {
    if got.is_nan() || want.is_nan() {
        return got.is_nan() && want.is_nan();
    }
    (got - want).abs() <= 1e-9 * want.abs().max(1.0)
}

fn text(c: &table::Cell) -> String {
    match c {
        table::Cell::Text(s) => s.clone(),
        other => format!("{other:?}"),
    }
}

/// The whole-set headline statistics and where a folder stores them:
/// (statistic in the verdict table, stored table, row on the rounded
/// score type, column).
const OVERALL: [(&str, &str, bool, &str); 11] = [
    ("wtkappa", "eval", false, "wtkappa"),
    ("corr", "eval", false, "corr"),
    ("RMSE", "eval", false, "RMSE"),
    ("SMD", "eval", false, "SMD"),
    ("R2", "eval", false, "R2"),
    ("kappa", "eval", true, "kappa"),
    ("exact_agr", "eval", true, "exact_agr"),
    ("adj_agr", "eval", true, "adj_agr"),
    ("PRMSE", "true_score_eval", false, "PRMSE true"),
    ("degradation.corr", "degradation", false, "corr"),
    ("degradation.wtkappa", "degradation", false, "wtkappa"),
];

/// The statistics of each subgroup level and their columns' stems in
/// `eval_by_<g>` (`wtkappa.scale_trim`, ...).
const BY_LEVEL: [&str; 5] = ["wtkappa", "corr", "DSM", "RMSE", "R2"];

/// `compare DIR DIR` on one fixture's rsmeval folder: the problems found
/// (empty when it reproduces its own tables) and the number of verdict
/// rows checked against a stored table.
fn self_comparison(name: &str, dir: &Path) -> (Vec<String>, usize) {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let args = [
        OsStr::new("compare"),
        dir.as_os_str(),
        dir.as_os_str(),
        OsStr::new("-o"),
        out.as_os_str(),
    ];
    let r = run(tmp.path(), &args);
    if r.panicked() || r.code != Some(0) {
        return (vec![format!("{name}: compare failed: {}", r.describe())], 0);
    }
    let mut problems = Vec::new();
    let mut fail = |s: String| problems.push(format!("{name}: {s}"));
    let rows = verdicts(&out);
    let id = experiment_id(dir);
    let eval = Stored::read(&stored(dir, &id, "eval").expect("an eval table"));
    let trim = if eval.labels().iter().any(|l| l == "scale_trim") {
        "scale_trim"
    } else {
        "raw_trim"
    };
    let round = format!("{trim}_round");

    // The whole-set statistics as the folder stores them: (statistic,
    // stored value, where), `None` for a table the folder lacks.
    let mut stored_overall = Vec::new();
    for (stat, source, rounded, column) in OVERALL {
        let Some(path) = stored(dir, &id, source) else {
            stored_overall.push((stat, None, format!("no {source} table")));
            continue;
        };
        let table = Stored::read(&path);
        let row = if rounded { round.as_str() } else { trim };
        let value = table.get(row, column);
        if value.is_none() {
            fail(format!(
                "no row {row} / column {column} in {}",
                path.display()
            ));
        }
        stored_overall.push((stat, value, format!("{}, {row}, {column}", path.display())));
    }
    let undefined = |stat: &str| {
        stored_overall
            .iter()
            .any(|(s, v, _)| *s == stat && v.is_some_and(f64::is_nan))
    };

    // Every row: Δ = 0, the same numbers on both sides, no change, paired.
    // A whole-set statistic the folder's own table leaves undefined (PRMSE
    // and degradation when no response has a second human score) has no
    // row at all.
    for (scope, stat, r) in &rows {
        let (b, c, d) = (num(&r[2]), num(&r[5]), num(&r[8]));
        if scope == "overall" && undefined(stat) {
            fail(format!(
                "overall {stat}: a row, but the folder leaves it undefined"
            ));
        }
        if d != 0.0 {
            fail(format!(
                "{scope} {stat}: delta {d} (baseline {b}, candidate {c})"
            ));
        }
        for (j, what) in [(2, "estimate"), (3, "lower"), (4, "upper")] {
            let (x, y) = (num(&r[j]), num(&r[j + 3]));
            if x.to_bits() != y.to_bits() {
                fail(format!(
                    "{scope} {stat}: baseline {what} {x} vs candidate {y}"
                ));
            }
        }
        let verdict = text(&r[16]);
        let untestable_level = scope != "overall" && num(&r[9]).is_nan();
        let want = if untestable_level {
            "not testable"
        } else {
            "equivalent"
        };
        if verdict != want {
            fail(format!(
                "{scope} {stat}: verdict {verdict:?}, want {want:?}: {r:?}"
            ));
        }
        // A testable row: the interval of Δ is [0, 0] and p = 1.
        if want == "equivalent" && (num(&r[9]), num(&r[10]), num(&r[14])) != (0.0, 0.0, 1.0) {
            fail(format!("{scope} {stat}: Δ interval or p-value: {r:?}"));
        }
        if text(&r[17]) != "true" {
            fail(format!("{scope} {stat}: paired {:?}", text(&r[17])));
        }
    }

    // The whole-set statistics against the stored tables.
    let mut checked = 0;
    let find = |scope: &str, stat: &str| {
        rows.iter()
            .find(|(s, n, _)| s == scope && n == stat)
            .map(|(_, _, r)| num(&r[2]))
    };
    for (stat, value, place) in &stored_overall {
        let got = find("overall", stat);
        match (value, got) {
            (None, None) => {}
            (None, Some(_)) => fail(format!("overall {stat}: a row, but {place}")),
            // An undefined statistic (no second human score) may have no row.
            (Some(want), None) if want.is_nan() => {}
            (Some(want), None) => fail(format!(
                "overall {stat}: no verdict row, but the folder has {want} ({place})"
            )),
            (Some(want), Some(got)) if same(got, *want) => checked += 1,
            (Some(want), Some(got)) => fail(format!(
                "overall {stat}: baseline {got}, stored {want} ({place})"
            )),
        }
    }

    // Each subgroup level against the stored eval_by_<g> table.
    let groups = subgroups(dir, &id);
    for g in &groups {
        let path = stored(dir, &id, &format!("eval_by_{g}")).unwrap();
        let table = Stored::read(&path);
        let levels: Vec<String> = table
            .labels()
            .into_iter()
            .filter(|l| l != "All data")
            .collect();
        for level in &levels {
            let scope = format!("{g}={level}");
            for stat in BY_LEVEL {
                let column = format!("{stat}.{trim}");
                let Some(want) = table.get(level, &column) else {
                    fail(format!("no column {column} in {}", path.display()));
                    continue;
                };
                match find(&scope, stat) {
                    None => fail(format!(
                        "{scope} {stat}: no verdict row (stored {want} in {})",
                        path.display()
                    )),
                    Some(got) if same(got, want) => checked += 1,
                    Some(got) => fail(format!(
                        "{scope} {stat}: baseline {got}, stored {want} ({}, {column})",
                        path.display()
                    )),
                }
            }
        }
        // No level the stored table does not have.
        for (scope, stat, _) in &rows {
            if let Some(level) = scope.strip_prefix(&format!("{g}=")) {
                if !levels.iter().any(|l| l == level) {
                    fail(format!("{scope} {stat}: a level {} lacks", path.display()));
                }
            }
        }
    }
    for (scope, stat, _) in &rows {
        let known =
            scope == "overall" || groups.iter().any(|g| scope.starts_with(&format!("{g}=")));
        if !known {
            fail(format!("{scope} {stat}: a scope of no stored table"));
        }
    }
    // Every headline statistic that needs no second human score is there.
    for (stat, ..) in &OVERALL[..8] {
        if find("overall", stat).is_none() {
            fail(format!("no overall {stat} row"));
        }
    }
    if !r
        .stdout
        .contains("change: [+0.000 +0.000 +0.000] (p = 1.000) equivalent")
    {
        fail(format!("terminal: {}", r.stdout));
    }
    (problems, checked)
}

#[test]
fn compare_fixtures_each_folder_with_itself_reproduces_its_own_tables() {
    let fixtures = local_fixtures();
    assert!(fixtures.len() >= 10, "{} local fixtures", fixtures.len());
    let mut problems = Vec::new();
    let mut checked = 0;
    for (name, dir) in &fixtures {
        let (p, n) = self_comparison(name, &dir.join("expected"));
        println!("compare_fixtures: {name}: {n} rows equal to the stored tables");
        problems.extend(p);
        checked += n;
    }
    println!(
        "compare_fixtures: {} folders compared with themselves, {checked} verdict rows equal \
         to their stored tables, {} problems",
        fixtures.len(),
        problems.len()
    );
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// The fixture experiments to build: every local one, then every shared
/// one not copied locally (when `../shared` is there), except those the
/// parity suite expects to fail (`expected_error.txt`).
fn buildable_fixtures() -> (Vec<(String, PathBuf)>, usize, Option<String>) {
    let mut out = local_fixtures();
    let mut expected_errors = 0;
    let note = match common::shared_fixtures() {
        None => Some(format!(
            "SKIPPED the shared fixtures: {} does not exist",
            common::shared_fixtures_path().join("experiments").display()
        )),
        Some(shared) => {
            let mut more: Vec<(String, PathBuf)> = fs::read_dir(shared.join("experiments"))
                .unwrap()
                .filter_map(|e| e.ok())
                .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
                .filter(|(n, p)| p.join("exp.toml").is_file() && !out.iter().any(|(m, _)| m == n))
                .collect();
            more.sort();
            for (name, dir) in more {
                if dir.join("expected_error.txt").is_file() {
                    expected_errors += 1;
                } else {
                    out.push((name, dir));
                }
            }
            None
        }
    };
    out.retain(|(_, p)| !p.join("expected_error.txt").is_file());
    (out, expected_errors, note)
}

/// Builds one fixture and compares its rsmeval folder with the build:
/// (problems, verdict rows checked).
fn rsmeval_against_build(name: &str, dir: &Path) -> (Vec<String>, usize) {
    let tmp = TempDir::new().unwrap();
    let built = tmp.path().join("built");
    let b = common::build(tmp.path(), &dir.join("exp.toml"), &built, &[]);
    if !b.success {
        return (vec![format!("{name}: build failed: {}", b.describe())], 0);
    }
    let cfg = tmp.path().join("compare.toml");
    fs::write(&cfg, "[intervals]\nreplicates = 50\n").unwrap();
    let out = tmp.path().join("cmp");
    let expected = dir.join("expected");
    let args = [
        OsStr::new("compare"),
        expected.as_os_str(),
        built.as_os_str(),
        OsStr::new("-o"),
        out.as_os_str(),
        OsStr::new("--config"),
        cfg.as_os_str(),
    ];
    let r = run(tmp.path(), &args);
    if r.panicked() || r.code != Some(0) {
        return (vec![format!("{name}: compare failed: {}", r.describe())], 0);
    }
    let rows = verdicts(&out);
    let mut problems = Vec::new();
    if rows.is_empty() {
        problems.push(format!("{name}: no verdict row"));
    }
    for (scope, stat, r) in &rows {
        let (b, c, d) = (num(&r[2]), num(&r[5]), num(&r[8]));
        let fine = if d.is_nan() {
            b.is_nan() && c.is_nan()
        } else {
            d.abs() <= 1e-6
        };
        if !fine {
            problems.push(format!(
                "{name}: {scope} {stat}: delta {d} (rsmeval {b}, rsmreport {c})"
            ));
        }
        if text(&r[17]) != "true" {
            problems.push(format!("{name}: {scope} {stat}: not paired"));
        }
    }
    (problems, rows.len())
}

#[test]
fn compare_fixtures_rsmeval_folders_against_builds_of_the_same_experiments() {
    let (fixtures, expected_errors, note) = buildable_fixtures();
    if let Some(note) = &note {
        println!("compare_fixtures: {note}");
    }
    assert!(fixtures.len() >= 10, "{} fixtures", fixtures.len());
    let results = Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some((name, dir)) = fixtures.get(i) else {
                    break;
                };
                let r = rsmeval_against_build(name, dir);
                results.lock().unwrap().push(r);
            });
        }
    });
    let results = results.into_inner().unwrap();
    let rows: usize = results.iter().map(|(_, n)| n).sum();
    let problems: Vec<String> = results.into_iter().flat_map(|(p, _)| p).collect();
    println!(
        "compare_fixtures: {} fixtures built and compared with their rsmeval folders \
         ({expected_errors} expected-error fixtures left out{}), {rows} verdict rows checked, \
         {} problems",
        fixtures.len(),
        if note.is_some() {
            "; shared fixtures skipped"
        } else {
            ""
        },
        problems.len()
    );
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn compare_fixtures_an_rsmtool_folder_is_read_like_an_rsmeval_one() {
    for name in ["sim-h2-groups", "probe-basic"] {
        let original = common::local_experiment(name).join("expected");
        let id = experiment_id(&original);
        let tmp = TempDir::new().unwrap();
        let tool = tmp.path().join("rsmtool");
        common::copy_dir(&original, &tool);
        fs::rename(
            tool.join(format!("output/{id}_rsmeval.json")),
            tool.join(format!("output/{id}_rsmtool.json")),
        )
        .unwrap();
        assert_eq!(experiment_id(&tool), id);
        assert!(!tool.join(format!("output/{id}_rsmeval.json")).exists());

        // compare, both ways round.
        for (k, (b, c)) in [(&original, &tool), (&tool, &original)]
            .into_iter()
            .enumerate()
        {
            let out = tmp.path().join(format!("cmp{k}"));
            let args = [
                OsStr::new("compare"),
                b.as_os_str(),
                c.as_os_str(),
                OsStr::new("-o"),
                out.as_os_str(),
            ];
            let r = run(tmp.path(), &args);
            ok(&r);
            let rows = verdicts(&out);
            assert!(rows.len() >= 8, "{name}: {} rows", rows.len());
            for (scope, stat, r) in &rows {
                assert_eq!(num(&r[8]), 0.0, "{name} {scope} {stat}: delta");
                assert_eq!(text(&r[17]), "true", "{name} {scope} {stat}");
            }
            let eval = Stored::read(&stored(&original, &id, "eval").unwrap());
            let (_, _, w) = rows
                .iter()
                .find(|(s, n, _)| s == "overall" && n == "wtkappa")
                .unwrap();
            let trim = if eval.labels().iter().any(|l| l == "scale_trim") {
                "scale_trim"
            } else {
                "raw_trim"
            };
            let want = eval.get(trim, "wtkappa").unwrap();
            assert!(same(num(&w[5]), want), "{name}: {w:?} vs {want}");
        }

        // summarize, the rsmtool folder against the rsmeval one.
        let out = tmp.path().join("sum");
        let args = [
            OsStr::new("summarize"),
            original.as_os_str(),
            tool.as_os_str(),
            OsStr::new("-o"),
            out.as_os_str(),
        ];
        let r = run(tmp.path(), &args);
        ok(&r);
        let summary = table::read_table(&out.join("output/versions_summary.csv")).unwrap();
        assert_eq!(summary.rows.len(), 2, "{name}: two versions");
        let col = |c: &str| summary.header.iter().position(|h| h == c).unwrap();
        for stat in ["wtkappa", "corr", "RMSE"] {
            let (a, b) = (
                num(&summary.rows[0][col(stat)]),
                num(&summary.rows[1][col(stat)]),
            );
            assert!(a.is_finite() && a == b, "{name} {stat}: {a} vs {b}");
        }
        let deltas = table::read_table(&out.join("output/versions_summary_deltas.csv")).unwrap();
        let dcol = |c: &str| deltas.header.iter().position(|h| h == c).unwrap();
        assert!(
            deltas.rows.len() >= 8,
            "{name}: {} deltas",
            deltas.rows.len()
        );
        for d in &deltas.rows {
            assert_eq!(num(&d[dcol("delta")]), 0.0, "{name}: {d:?}");
            assert_eq!(text(&d[dcol("paired")]), "true", "{name}: {d:?}");
        }
    }
}
