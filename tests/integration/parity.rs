//! Parity with RSMTool's `rsmeval`: build every fixture experiment and
//! compare what `rsmreport` wrote with what the reference wrote.
//!
//! Fixtures come from two places:
//! * `tests/fixtures/experiments/` — the project's own copies of the
//!   `probe-*` and `sim-*` families (always run);
//! * `../shared/spec/fixtures/experiments/` — the full set of 43, including
//!   RSMTool's own `lr-eval*` experiments, which are read from there only and
//!   never copied into this repository. Run when the folder exists (or the
//!   folder named by `RSMREPORT_SHARED_FIXTURES`).
//!
//! A fixture with `expected_error.txt` must fail cleanly (non-zero exit, no
//! panic, nothing left in the output folder) with a message naming the
//! problem ([`REQUIRED_WORDS`]). Every other fixture must produce the same
//! set of tables as `expected/output/`, each matching cell by cell (see
//! `common::table`), and the same saved configuration (`common::json`).
//!
//! All failures of all fixtures are collected and printed together before
//! the test fails once; the full list is also written to
//! `$CARGO_TARGET_TMPDIR/parity-report.txt`.
//!
//! Environment knobs:
//! * `RSMREPORT_PARITY_FILTER=sim,probe-basic` — only fixtures whose name
//!   contains one of the comma-separated strings;
//! * `RSMREPORT_PARITY_JOBS=N` — number of experiments built in parallel;
//! * `RSMREPORT_SHARED_FIXTURES=DIR` — another shared fixtures folder.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::common::json::compare_config;
use crate::common::table::{compare_tables, read_table, Cell, Mismatch, Table};
use crate::common::{self, snapshot, snapshot_diff, truncate};

/// Output files the test may skip while the fairness analyses are not
/// implemented yet: files whose name (after `<experiment_id>`) starts with
/// one of these. They are skipped for an experiment only when its actual
/// output folder contains NONE of them; as soon as `rsmreport` writes one
/// fairness file, all of them are compared. Empty this list once the
/// fairness work has landed so that a missing fairness file is a failure.
const SKIPPED_PREFIXES: &[&str] = &[];

/// At most this many mismatches are printed per file on the console (all of
/// them are counted, and all go to the report file).
const MAX_SHOWN_PER_FILE: usize = 12;

/// Cells that are not parity targets (spec/decisions.md, "Numbers"):
/// fairness p-values of degenerate fits. With a constant system score the
/// human-score categories explain the error exactly, so the CSD fits have a
/// zero residual and their p-values are rounding noise in the reference as
/// in rsmreport. Entries: (fixture, file-name substring, column name, row
/// label or "" for every row). Nothing else may be waived.
const NOT_PARITY_TARGETS: &[(&str, &str, &str, &str)] = &[
    (
        "lr-eval-system-score-constant",
        "_estimates_csd_by_",
        "P>[t]",
        "",
    ),
    (
        "lr-eval-system-score-constant",
        "_fairness_metrics_by_",
        "Conditional score difference",
        "sig",
    ),
];

/// Row labels of `test_excluded_composition`, in order (spec 3.14).
const EXCLUDED_COMPOSITION_LABELS: &[&str] = &[
    "numeric non-zero human score",
    "zero human score",
    "non-numeric human score",
];

/// What the error message of each error fixture must contain. Each entry is
/// a list of requirements; a requirement is met when the error output
/// (stderr) contains one of its alternatives.
///
/// * [`Need::Any`]: case-insensitive substring, any of the alternatives;
/// * [`Need::Ident`]: a column name or other identifier, case-sensitive,
///   as a whole word (so `CAND` is not satisfied by `candidate_column`).
const REQUIRED_WORDS: &[(&str, &[Need])] = &[
    // ValueError: human_score_column equals system_score_column
    (
        "lr-eval-same-system-human-score",
        &[
            Need::Any(&["human_score_column"]),
            Need::Any(&["system_score_column"]),
        ],
    ),
    // ValueError: no responses left after removing non-numeric human scores
    (
        "lr-eval-with-all-non-numeric-scores",
        &[Need::Any(NON_NUMERIC), Need::Any(&["human"])],
    ),
    // ValueError: no responses left after removing non-numeric system scores
    (
        "lr-eval-with-all-non-numeric-machine-scores",
        &[Need::Any(NON_NUMERIC), Need::Any(&["system"])],
    ),
    // ValueError: duplicate response ids in the id column
    ("lr-eval-with-repeated-ids", &[Need::Any(&["duplicate"])]),
    // KeyError: configured column 'human2' absent from the predictions file
    (
        "lr-eval-with-missing-h2-column",
        &[Need::Ident("human2"), Need::Any(&["column"])],
    ),
    // KeyError: configured column 'CAND' absent from the predictions file
    (
        "lr-eval-with-missing-candidate-column",
        &[Need::Ident("CAND"), Need::Any(&["column"])],
    ),
    // FileNotFoundError: predictions file not found
    (
        "lr-eval-with-wrong-path",
        &[
            Need::Any(&["not found", "no such file", "does not exist", "cannot find"]),
            Need::Any(&["predictions_scaled_with_subgroups_does_not_exist.csv"]),
        ],
    ),
];

/// Ways to say "non-numeric". Bare "numeric" is not enough: the input file
/// names of these fixtures contain `non_numeric`.
const NON_NUMERIC: &[&str] = &["non-numeric", "non numeric", "not numeric", "no numeric"];

/// One requirement on an error message (see [`REQUIRED_WORDS`]).
#[derive(Debug)]
enum Need {
    Any(&'static [&'static str]),
    Ident(&'static str),
}

impl Need {
    fn met_by(&self, text: &str) -> bool {
        match self {
            Need::Any(alts) => {
                let lower = text.to_lowercase();
                alts.iter().any(|a| lower.contains(&a.to_lowercase()))
            }
            Need::Ident(word) => {
                let is_word = |c: char| c.is_alphanumeric() || c == '_';
                text.match_indices(word).any(|(i, _)| {
                    let before = text[..i].chars().next_back();
                    let after = text[i + word.len()..].chars().next();
                    !before.is_some_and(is_word) && !after.is_some_and(is_word)
                })
            }
        }
    }

    fn describe(&self) -> String {
        match self {
            Need::Any(alts) if alts.len() == 1 => format!("{:?}", alts[0]),
            Need::Any(alts) => format!("one of {alts:?}"),
            Need::Ident(w) => format!("{w:?} (case-sensitive, whole word)"),
        }
    }
}

/// Where a fixture was found.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Origin {
    Local,
    Shared,
}

impl Origin {
    fn label(self) -> &'static str {
        match self {
            Origin::Local => "tests/fixtures",
            Origin::Shared => "../shared",
        }
    }
}

#[derive(Clone, Debug)]
struct Fixture {
    name: String,
    dir: PathBuf,
    origin: Origin,
}

/// One failure, for the summary.
#[derive(Clone, Debug)]
struct Failure {
    file: String,
    m: Mismatch,
}

#[derive(Debug, Default)]
struct Outcome {
    name: String,
    origin: &'static str,
    expected_error: bool,
    failures: Vec<Failure>,
    /// (file, message)
    notes: Vec<(String, String)>,
    tables_matched: usize,
    tables_failed: usize,
    config_matched: bool,
    skipped_files: Vec<String>,
    /// Path-valued keys of the saved configuration that were not compared.
    json_keys_skipped: Vec<String>,
}

impl Outcome {
    fn fail(
        &mut self,
        file: &str,
        what: &str,
        expected: impl Into<String>,
        actual: impl Into<String>,
    ) {
        self.failures.push(Failure {
            file: file.to_string(),
            m: Mismatch {
                what: what.to_string(),
                row: None,
                column: None,
                expected: expected.into(),
                actual: actual.into(),
            },
        });
    }
}

fn experiment_dirs(root: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    if let Ok(entries) = fs::read_dir(root) {
        for e in entries.flatten() {
            let p = e.path();
            if p.join("exp.toml").is_file() {
                out.push((e.file_name().to_string_lossy().into_owned(), p));
            }
        }
    }
    out.sort();
    out
}

/// Input files an experiment refers to as `../../inputs/<file>`.
fn referenced_inputs(exp_toml: &Path) -> Vec<String> {
    let text = fs::read_to_string(exp_toml).unwrap_or_default();
    let mut out = Vec::new();
    for (i, _) in text.match_indices("../../inputs/") {
        let rest = &text[i + "../../inputs/".len()..];
        let end = rest
            .find(['"', '\'', ',', ' ', '\n', ']'])
            .unwrap_or(rest.len());
        out.push(rest[..end].to_string());
    }
    out.sort();
    out.dedup();
    out
}

/// Gathers the fixtures to run, plus notes about what was left out.
fn collect_fixtures(notes: &mut Vec<String>) -> Vec<Fixture> {
    let local_root = common::local_fixtures();
    let mut fixtures: Vec<Fixture> = experiment_dirs(&local_root.join("experiments"))
        .into_iter()
        .map(|(name, dir)| Fixture {
            name,
            dir,
            origin: Origin::Local,
        })
        .collect();

    match common::shared_fixtures() {
        Some(shared) => {
            for (name, dir) in experiment_dirs(&shared.join("experiments")) {
                if let Some(local) = fixtures.iter().find(|f| f.name == name) {
                    // Run the local copy; make sure it is still the same as the shared one.
                    let mut drift = snapshot_diff(&snapshot(&dir), &snapshot(&local.dir));
                    for input in referenced_inputs(&dir.join("exp.toml")) {
                        let a = fs::read(shared.join("inputs").join(&input)).ok();
                        let b = fs::read(local_root.join("inputs").join(&input)).ok();
                        if a != b {
                            drift.push(format!("inputs/{input}"));
                        }
                    }
                    if !drift.is_empty() {
                        notes.push(format!(
                            "WARNING: tests/fixtures copy of {name} differs from ../shared ({}); \
                             refresh with scripts/refresh_fixtures.sh",
                            drift.join(", ")
                        ));
                    }
                } else {
                    if !name.starts_with("lr-eval") {
                        notes.push(format!(
                            "{name} exists only in ../shared (not copied to tests/fixtures; \
                             see scripts/refresh_fixtures.sh)"
                        ));
                    }
                    fixtures.push(Fixture {
                        name,
                        dir,
                        origin: Origin::Shared,
                    });
                }
            }
        }
        None => {
            notes.push(format!(
                "NOTE: the lr-eval* fixtures (RSMTool's own rsmeval test experiments) were SKIPPED: \
                 {} does not exist. They are read from ../shared only and never copied into \
                 this repository; check out the shared folder next to the repository or set \
                 RSMREPORT_SHARED_FIXTURES to run them. Only the local probe-*/sim-* copies ran.",
                common::shared_fixtures_path().join("experiments").display()
            ));
        }
    }

    if let Ok(filter) = std::env::var("RSMREPORT_PARITY_FILTER") {
        let parts: Vec<&str> = filter
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        if !parts.is_empty() {
            let before = fixtures.len();
            fixtures.retain(|f| parts.iter().any(|p| f.name.contains(p)));
            notes.push(format!(
                "RSMREPORT_PARITY_FILTER={filter:?}: running {} of {before} fixtures",
                fixtures.len()
            ));
        }
    }
    fixtures
}

fn is_table(p: &Path) -> bool {
    matches!(
        p.extension()
            .and_then(|e| e.to_str())
            .map(|e| e.to_ascii_lowercase())
            .as_deref(),
        Some("csv" | "tsv" | "xlsx")
    )
}

/// Tables rsmreport writes beyond the reference's (uncertainty spec 4.1:
/// the `<id>_<source>_ci` interval tables); they are checked by their own
/// tests, not against the reference.
fn is_own_table(name: &str) -> bool {
    Path::new(name)
        .file_stem()
        .and_then(|s| s.to_str())
        .is_some_and(|s| s.ends_with("_ci"))
}

/// Top-level file names in `dir` that satisfy `keep`.
fn file_names(dir: &Path, keep: impl Fn(&Path) -> bool) -> Vec<String> {
    let mut out: Vec<String> = fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file() && keep(p))
                .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// The experiment id, from the expected `<id>_rsmeval.json` file name.
fn experiment_id(expected_dir: &Path) -> Option<String> {
    file_names(expected_dir, |p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with("_rsmeval.json"))
    })
    .into_iter()
    .next()
    .map(|n| n.trim_end_matches("_rsmeval.json").to_string())
}

fn matches_skip_prefix(file: &str, id: &str) -> bool {
    let rest = file.strip_prefix(id).unwrap_or(file);
    SKIPPED_PREFIXES
        .iter()
        .any(|p| rest.starts_with(p) || (rest == file && file.contains(p)))
}

fn run_fixture(f: &Fixture) -> Outcome {
    let mut o = Outcome {
        name: f.name.clone(),
        origin: f.origin.label(),
        ..Default::default()
    };
    let exp = f.dir.join("exp.toml");
    let tmp = tempfile::TempDir::new().expect("temp dir");
    let out_dir = tmp.path().join("out");
    let fixture_before = snapshot(&f.dir);

    let run = common::build(tmp.path(), &exp, &out_dir, &[]);

    let fixture_after = snapshot(&f.dir);
    let wrote_into_fixture = snapshot_diff(&fixture_before, &fixture_after);
    if !wrote_into_fixture.is_empty() {
        o.fail(
            "(fixture folder)",
            "build wrote next to the config",
            "nothing",
            wrote_into_fixture.join(", "),
        );
    }
    let stray: Vec<String> = common::list_files(tmp.path())
        .into_iter()
        .filter(|p| !p.starts_with("out"))
        .map(|p| p.display().to_string())
        .collect();
    if !stray.is_empty() {
        o.fail(
            "(working folder)",
            "files written outside --output-dir",
            "nothing",
            stray.join(", "),
        );
    }
    if run.panicked() {
        o.fail(
            "(process)",
            "panic",
            "no panic",
            truncate(&run.stderr, 1500),
        );
    }

    // ----- error fixtures
    let err_file = f.dir.join("expected_error.txt");
    if err_file.is_file() {
        o.expected_error = true;
        let expected = fs::read_to_string(&err_file)
            .unwrap_or_default()
            .trim()
            .to_string();
        if run.success {
            o.fail(
                "(process)",
                "exit status",
                format!("failure ({expected})"),
                "exit code 0",
            );
        }
        match REQUIRED_WORDS.iter().find(|(n, _)| *n == f.name) {
            None => o.fail(
                "expected_error.txt",
                "no REQUIRED_WORDS entry",
                format!("an entry for {} (reference error: {expected})", f.name),
                "none: add one to REQUIRED_WORDS in tests/integration/parity.rs",
            ),
            Some((_, needs)) => {
                for need in needs.iter() {
                    if !need.met_by(&run.stderr) {
                        o.fail(
                            "(stderr)",
                            "error message lacks a required word",
                            need.describe(),
                            truncate(run.stderr.trim(), 600),
                        );
                    }
                }
            }
        }
        if out_dir.exists() {
            o.fail(
                "(output folder)",
                "failing run left an output folder",
                "no folder",
                common::list_files(&out_dir)
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            );
        }
        return o;
    }

    // ----- successful fixtures
    if !run.success {
        o.fail(
            "(process)",
            "build failed",
            "exit code 0",
            format!(
                "exit code {:?}: {}",
                run.code,
                truncate(run.stderr.trim(), 1500)
            ),
        );
        return o;
    }
    let expected_dir = common::expected_output(&f.dir);
    let actual_dir = out_dir.join("output");
    if !actual_dir.is_dir() {
        o.fail("(output folder)", "no output/ folder", "output/", "absent");
        return o;
    }
    let id = experiment_id(&expected_dir).unwrap_or_default();
    let expected_tables = file_names(&expected_dir, is_table);
    let actual_tables = file_names(&actual_dir, is_table);

    let actual_has_fairness = actual_tables.iter().any(|n| matches_skip_prefix(n, &id));
    let skip = |n: &String| !actual_has_fairness && matches_skip_prefix(n, &id);

    for name in &expected_tables {
        if skip(name) {
            o.skipped_files.push(name.clone());
            continue;
        }
        if !actual_tables.contains(name) {
            o.fail(name, "missing file", "present", "absent");
            o.tables_failed += 1;
            continue;
        }
        let expected = match read_table(&expected_dir.join(name)) {
            Ok(t) => t,
            Err(e) => {
                o.fail(name, "cannot read expected table", "readable", e);
                o.tables_failed += 1;
                continue;
            }
        };
        let actual = match read_table(&actual_dir.join(name)) {
            Ok(t) => t,
            Err(e) => {
                o.fail(name, "cannot read table", "readable", e);
                o.tables_failed += 1;
                continue;
            }
        };
        let mut expected = expected;
        for n in apply_decisions(name, &mut expected, &actual) {
            o.notes.push((name.clone(), n));
        }
        let mut cmp = compare_tables(&expected, &actual);
        for n in cmp.notes.drain(..) {
            o.notes.push((name.clone(), n));
        }
        let (kept, waived): (Vec<Mismatch>, Vec<Mismatch>) = cmp
            .mismatches
            .into_iter()
            .partition(|m| !is_waived(&f.name, name, m));
        cmp.mismatches = kept;
        if !waived.is_empty() {
            o.notes.push((
                name.clone(),
                format!(
                    "{} cell(s) differ that are not parity targets (NOT_PARITY_TARGETS: \
                 degenerate fairness fits), e.g. {}",
                    waived.len(),
                    format_failure(&Failure {
                        file: name.clone(),
                        m: waived[0].clone()
                    })
                    .trim()
                ),
            ));
        }
        if cmp.mismatches.is_empty() {
            o.tables_matched += 1;
        } else {
            o.tables_failed += 1;
            for m in cmp.mismatches {
                o.failures.push(Failure {
                    file: name.clone(),
                    m,
                });
            }
        }
    }
    for name in &actual_tables {
        if !expected_tables.contains(name) && !is_own_table(name) {
            o.fail(name, "unexpected file", "absent", "present");
            o.tables_failed += 1;
        }
    }

    // Saved configuration.
    let json_name = format!("{id}_rsmeval.json");
    let expected_json = expected_dir.join(&json_name);
    if expected_json.is_file() {
        let actual_json = actual_dir.join(&json_name);
        let parse = |p: &Path| -> Result<serde_json::Value, String> {
            let text = fs::read_to_string(p).map_err(|e| format!("cannot read: {e}"))?;
            serde_json::from_str(&text).map_err(|e| format!("invalid JSON: {e}"))
        };
        match (parse(&expected_json), parse(&actual_json)) {
            (Ok(e), Ok(a)) => {
                let user_keys = toml_keys(&exp);
                let cmp =
                    compare_config(&e, &a, f.name.starts_with("lr-eval"), user_keys.as_deref());
                for n in cmp.notes {
                    o.notes.push((json_name.clone(), n));
                }
                o.json_keys_skipped = cmp.skipped;
                if cmp.mismatches.is_empty() {
                    o.config_matched = true;
                } else {
                    for m in cmp.mismatches {
                        o.failures.push(Failure {
                            file: json_name.clone(),
                            m,
                        });
                    }
                }
            }
            (Err(e), _) => o.fail(&json_name, "cannot read expected config", "readable", e),
            (_, Err(e)) if !actual_json.exists() => {
                o.fail(&json_name, "missing file", "present", e)
            }
            (_, Err(e)) => o.fail(&json_name, "cannot read config", "readable", e),
        }
    }
    o
}

/// Adjusts an expected table for deliberate deviations from the reference
/// listed in spec/decisions.md; returns notes describing what was done.
fn apply_decisions(file: &str, expected: &mut Table, actual: &Table) -> Vec<String> {
    let mut notes = Vec::new();
    // decisions.md, "Tables": test_excluded_composition always has the
    // row-label column Human/System (the reference drops it when nothing
    // was excluded). Expect it, with the standard labels.
    let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
    if stem.ends_with("_test_excluded_composition")
        && expected.header.first().map(String::as_str) != Some("Human/System")
        && actual.header.first().map(String::as_str) == Some("Human/System")
    {
        expected.header.insert(0, "Human/System".to_string());
        for (i, row) in expected.rows.iter_mut().enumerate() {
            let label = EXCLUDED_COMPOSITION_LABELS
                .get(i)
                .map_or(Cell::Empty, |l| Cell::Text((*l).to_string()));
            row.insert(0, label);
        }
        notes.push(
            "reference has no Human/System column (nothing excluded); expected it with the \
             standard labels (decisions.md)"
                .to_string(),
        );
    }
    notes
}

/// True if the mismatch is in a cell listed in [`NOT_PARITY_TARGETS`].
fn is_waived(fixture: &str, file: &str, m: &Mismatch) -> bool {
    if m.what != "value" {
        return false;
    }
    NOT_PARITY_TARGETS.iter().any(|(fx, part, column, row)| {
        *fx == fixture
            && file.contains(part)
            && m.column.as_deref() == Some(column)
            && (row.is_empty()
                || m.row
                    .as_deref()
                    .is_some_and(|r| r.contains(&format!("({row:?})"))))
    })
}

/// The top-level keys of a TOML experiment, in file order (None if the file
/// cannot be parsed: then the plain key-order rule applies).
fn toml_keys(exp_toml: &Path) -> Option<Vec<String>> {
    let text = fs::read_to_string(exp_toml).ok()?;
    let table: toml::Table = text.parse().ok()?;
    Some(table.keys().cloned().collect())
}

fn format_failure(f: &Failure) -> String {
    let mut s = format!("    {}", f.m.what);
    if let Some(r) = &f.m.row {
        let _ = write!(s, " | {r}");
    }
    if let Some(c) = &f.m.column {
        let _ = write!(s, " | column {c}");
    }
    let _ = write!(s, " | expected {} | actual {}", f.m.expected, f.m.actual);
    s
}

/// Renders the failures of one experiment, at most `cap` per file.
fn render_failures(o: &Outcome, cap: Option<usize>) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "FAIL {} [{}]", o.name, o.origin);
    let mut by_file: BTreeMap<&str, Vec<&Failure>> = BTreeMap::new();
    for f in &o.failures {
        by_file.entry(f.file.as_str()).or_default().push(f);
    }
    for (file, fs_) in by_file {
        let _ = writeln!(s, "  {file}: {} problem(s)", fs_.len());
        let shown = cap.unwrap_or(usize::MAX).min(fs_.len());
        for f in &fs_[..shown] {
            let _ = writeln!(s, "{}", format_failure(f));
        }
        if shown < fs_.len() {
            let _ = writeln!(
                s,
                "    ... and {} more (see the report file)",
                fs_.len() - shown
            );
        }
    }
    s
}

#[test]
fn parity_all_fixtures() {
    let mut global_notes = Vec::new();
    let fixtures = collect_fixtures(&mut global_notes);
    assert!(
        !fixtures.is_empty(),
        "no fixture experiments found under {} (nor ../shared)",
        common::local_fixtures().join("experiments").display()
    );

    // Build in parallel; each build is its own process.
    let jobs = std::env::var("RSMREPORT_PARITY_JOBS")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2)
                .min(8)
        })
        .max(1);
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Outcome>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.min(fixtures.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(f) = fixtures.get(i) else { break };
                let o = run_fixture(f);
                results.lock().unwrap().push(o);
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by(|a, b| a.name.cmp(&b.name));

    // ----- report
    let mut console = String::new();
    let mut full = String::new();
    for n in &global_notes {
        let _ = writeln!(console, "{n}");
        let _ = writeln!(full, "{n}");
    }
    let failed: Vec<&Outcome> = results.iter().filter(|o| !o.failures.is_empty()).collect();
    for o in &results {
        if !o.failures.is_empty() {
            console.push_str(&render_failures(o, Some(MAX_SHOWN_PER_FILE)));
            full.push_str(&render_failures(o, None));
        }
    }
    // Notes: every one in the report file; on the console, identical
    // messages are folded into one line.
    let all_notes: Vec<(&str, &str, &str)> = results
        .iter()
        .flat_map(|o| {
            o.notes
                .iter()
                .map(move |(f, m)| (o.name.as_str(), f.as_str(), m.as_str()))
        })
        .collect();
    if !all_notes.is_empty() {
        let _ = writeln!(console, "notes:");
        let _ = writeln!(full, "notes:");
        let mut groups: Vec<(&str, Vec<(&str, &str)>)> = Vec::new();
        for &(fx, file, msg) in &all_notes {
            let _ = writeln!(full, "  {fx}: {file}: {msg}");
            match groups.iter_mut().find(|(m, _)| *m == msg) {
                Some((_, v)) => v.push((fx, file)),
                None => groups.push((msg, vec![(fx, file)])),
            }
        }
        for (msg, places) in groups {
            if places.len() == 1 {
                let (fx, file) = places[0];
                let _ = writeln!(console, "  {fx}: {file}: {}", truncate(msg, 400));
            } else {
                let mut fxs: Vec<&str> = places.iter().map(|(fx, _)| *fx).collect();
                fxs.dedup();
                let _ = writeln!(
                    console,
                    "  {} [{} file(s) in {} experiment(s): {}]",
                    truncate(msg, 400),
                    places.len(),
                    fxs.len(),
                    truncate(&fxs.join(", "), 300)
                );
            }
        }
    }

    let skipped: Vec<&Outcome> = results
        .iter()
        .filter(|o| !o.skipped_files.is_empty())
        .collect();
    let skipped_desc =
        if skipped.is_empty() {
            "none".to_string()
        } else {
            let n: usize = skipped.iter().map(|o| o.skipped_files.len()).sum();
            let _ = writeln!(
                full,
                "skipped (no fairness output yet, SKIPPED_PREFIXES = {SKIPPED_PREFIXES:?}):"
            );
            let _ = writeln!(
                console,
                "skipped (no fairness output yet, SKIPPED_PREFIXES = {SKIPPED_PREFIXES:?}):"
            );
            for o in &skipped {
                let _ = writeln!(full, "  {}: {}", o.name, o.skipped_files.join(", "));
                let _ = writeln!(console, "  {}: {}", o.name, o.skipped_files.join(", "));
            }
            format!(
            "{n} fairness file(s) matching {SKIPPED_PREFIXES:?} in {} experiment(s) ({}) because \
             no fairness output was written",
            skipped.len(),
            skipped.iter().map(|o| o.name.as_str()).collect::<Vec<_>>().join(", ")
        )
        };
    let json_skips: Vec<&Outcome> = results
        .iter()
        .filter(|o| !o.json_keys_skipped.is_empty())
        .collect();
    let skipped_desc = if json_skips.is_empty() {
        skipped_desc
    } else {
        let _ = writeln!(
            full,
            "saved-configuration keys not compared (paths point into RSMTool's repository):"
        );
        for o in &json_skips {
            let _ = writeln!(full, "  {}: {}", o.name, o.json_keys_skipped.join(", "));
        }
        let mut keys: Vec<&str> = json_skips
            .iter()
            .flat_map(|o| o.json_keys_skipped.iter().map(String::as_str))
            .collect();
        keys.sort();
        keys.dedup();
        format!(
            "{skipped_desc}; path-valued config keys {keys:?} of {} lr-eval* experiment(s)",
            json_skips.len()
        )
    };
    let skipped_desc = if common::shared_fixtures().is_none() {
        format!("{skipped_desc}; ALL lr-eval* fixtures (../shared not found)")
    } else {
        skipped_desc
    };
    if common::shared_fixtures().is_none() {
        // repeated at the end so it cannot be missed
        let _ = writeln!(
            console,
            "NOTE: lr-eval* fixtures skipped: ../shared not found"
        );
    }

    let n_err = results.iter().filter(|o| o.expected_error).count();
    let n_local = results
        .iter()
        .filter(|o| o.origin == Origin::Local.label())
        .count();
    let matched: usize = results.iter().map(|o| o.tables_matched).sum();
    let tables_failed: usize = results.iter().map(|o| o.tables_failed).sum();
    let configs = results.iter().filter(|o| o.config_matched).count();
    let summary = format!(
        "parity: {} experiments ({} built, {} expected errors; {} from tests/fixtures, {} from ../shared), \
         {} tables matched, {} failed, {} configs matched, {} experiment(s) with failures; skipped: {}",
        results.len(),
        results.len() - n_err,
        n_err,
        n_local,
        results.len() - n_local,
        matched,
        tables_failed,
        configs,
        failed.len(),
        skipped_desc
    );
    let _ = writeln!(console, "{summary}");
    let _ = writeln!(full, "{summary}");

    let report_path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("parity-report.txt");
    let wrote = fs::write(&report_path, &full).is_ok();
    println!("{console}");
    if wrote {
        println!("full report: {}", report_path.display());
    }

    assert!(
        failed.is_empty(),
        "{} of {} experiments failed parity: {}\n{}",
        failed.len(),
        results.len(),
        failed
            .iter()
            .map(|o| o.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        summary
    );
}

/// The repository must never contain RSMTool's test data: the lr-eval*
/// experiments and their input tables are read from ../shared only.
#[test]
fn parity_fixture_copies_respect_policy() {
    let root = common::local_fixtures();
    let mut bad = Vec::new();
    for (name, _) in experiment_dirs(&root.join("experiments")) {
        if name.starts_with("lr-eval") {
            bad.push(format!("experiments/{name}"));
        }
    }
    if let Ok(rd) = fs::read_dir(root.join("inputs")) {
        for e in rd.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if [
                "predictions_raw",
                "predictions_scaled",
                "predictions_same_system",
                "train_predictions",
            ]
            .iter()
            .any(|p| n.starts_with(p))
            {
                bad.push(format!("inputs/{n}"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "tests/fixtures must not contain RSMTool test data (read it from ../shared): {bad:?}"
    );
    // Every input a local experiment refers to is there.
    for (name, dir) in experiment_dirs(&root.join("experiments")) {
        for input in referenced_inputs(&dir.join("exp.toml")) {
            assert!(
                root.join("inputs").join(&input).is_file(),
                "{name} uses ../../inputs/{input}, which is not in tests/fixtures/inputs \
                 (run scripts/refresh_fixtures.sh)"
            );
        }
    }
}

#[test]
fn parity_required_words_table_is_sound() {
    // Each requirement must be satisfiable by a plausible message and
    // `Ident` must not be fooled by longer words.
    assert!(Need::Ident("CAND").met_by("column 'CAND' not found"));
    assert!(!Need::Ident("CAND").met_by("candidate_column CANDIDATE"));
    assert!(
        Need::Any(&["not found", "no such file"]).met_by("No such file or directory (os error 2)")
    );
    // Every local or shared error fixture has an entry.
    let mut notes = Vec::new();
    for f in collect_fixtures(&mut notes) {
        if f.dir.join("expected_error.txt").is_file() {
            assert!(
                REQUIRED_WORDS.iter().any(|(n, _)| *n == f.name),
                "error fixture {} has no REQUIRED_WORDS entry",
                f.name
            );
        }
    }
}

/// The XLSX reader sees the same table as the TSV reader: the reference's
/// `lr-eval-with-xlsx-output` and `lr-eval-with-tsv-output` differ only in
/// `file_format`. (Needs ../shared; skipped with a message otherwise.)
#[test]
fn parity_xlsx_reader_agrees_with_tsv() {
    let Some(shared) = common::shared_fixtures() else {
        println!(
            "skipped: ../shared not found (lr-eval* fixtures are not copied into the repository)"
        );
        return;
    };
    let x = common::expected_output(&shared.join("experiments/lr-eval-with-xlsx-output"));
    let t = common::expected_output(&shared.join("experiments/lr-eval-with-tsv-output"));
    let names = file_names(&x, is_table);
    assert!(!names.is_empty());
    for name in names {
        let tsv_name = name
            .replace("lr_eval_with_xlsx_output", "lr_eval_with_tsv_output")
            .replace(".xlsx", ".tsv");
        let xt = read_table(&x.join(&name)).unwrap();
        let tt = read_table(&t.join(&tsv_name)).unwrap();
        assert_eq!(xt.sheets, vec!["Sheet1".to_string()], "{name}");
        let cmp = compare_tables(&tt, &xt);
        assert!(
            cmp.mismatches.is_empty(),
            "{name} vs {tsv_name}: {:#?}",
            cmp.mismatches
        );
    }
}
