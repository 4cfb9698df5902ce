//! The error catalogue (`docs/errors.md`): one test per entry. Each builds a
//! small experiment in a temporary folder, breaks one thing, runs the binary
//! and checks
//!
//! * the exit code (2 usage or configuration error, 1 data or runtime error);
//! * the key words of the message (what is wrong, and where: file, row,
//!   column, key);
//! * that nothing panicked (no `panicked at`, no backtrace hint);
//! * that nothing was written: a fresh output folder is not created, the
//!   whole temporary folder (config, inputs) is byte-identical afterwards,
//!   and a previous report replaced with `--force` is byte-identical too;
//! * that `check` fails the same way (for config and data errors).
//!
//! Run with `cargo test --test integration errors`.

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::common::{self, snapshot, snapshot_diff, Run};

/// The base experiment: keys on lines 1-7, anything added starts on line 8.
const BASE_CONFIG: &str = common::MINIMAL_CONFIG;

/// Six responses, a second human score, a subgroup, candidates, a flag.
const BASE_PRED: &str = "id,sys,h1,h2,grp,cand,flag
R1,2.1,2,3,a,c1,1
R2,3.2,3,,b,c1,1
R3,1.5,1,1,a,c2,0
R4,3.9,4,4,b,c2,1
R5,2.5,2,2,a,c3,1
R6,2.8,3,3,b,c3,1
";

/// Exit code of a configuration or usage error.
const CONFIG: i32 = 2;
/// Exit code of a data or runtime error.
const DATA: i32 = 1;

/// An experiment in its own temporary folder.
struct Case {
    tmp: TempDir,
}

impl Case {
    /// `exp.toml` = the base config plus `extra` lines, `pred.csv` = `pred`.
    fn with(extra: &str, pred: &str) -> Case {
        let case = Case {
            tmp: TempDir::new().unwrap(),
        };
        case.write("exp.toml", format!("{BASE_CONFIG}{extra}"));
        case.write("pred.csv", pred);
        case
    }

    fn new(extra: &str) -> Case {
        Case::with(extra, BASE_PRED)
    }

    fn root(&self) -> &Path {
        self.tmp.path()
    }

    fn path(&self, name: &str) -> PathBuf {
        self.root().join(name)
    }

    fn exp(&self) -> PathBuf {
        self.path("exp.toml")
    }

    fn write(&self, name: &str, bytes: impl AsRef<[u8]>) {
        let p = self.path(name);
        if let Some(parent) = p.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(p, bytes).unwrap();
    }

    /// Replaces `from` by `to` in `exp.toml` (which must contain `from`).
    fn edit_config(&self, from: &str, to: &str) {
        let text = fs::read_to_string(self.exp()).unwrap();
        assert!(text.contains(from), "config has no {from:?}:\n{text}");
        self.write("exp.toml", text.replacen(from, to, 1));
    }

    /// A folder that looks like an earlier rsmreport output (what `--force`
    /// may replace), at `name`.
    fn previous_report(&self, name: &str) -> PathBuf {
        let dir = self.path(name);
        self.write(&format!("{name}/output/e_eval.csv"), ",N\nraw,6\n");
        self.write(&format!("{name}/output/e_rsmeval.json"), "{}\n");
        self.write(&format!("{name}/figure/e_score_dist.svg"), "<svg/>\n");
        self.write(&format!("{name}/report/e_report.html"), "<html></html>\n");
        dir
    }
}

fn assert_no_panic(run: &Run) {
    assert!(
        !run.panicked()
            && !run.stderr.contains("RUST_BACKTRACE")
            && !run.stderr.contains("stack backtrace"),
        "the binary panicked:\n{}",
        run.describe()
    );
}

fn assert_fails(run: &Run, code: i32, words: &[&str]) {
    assert_no_panic(run);
    assert_eq!(
        run.code,
        Some(code),
        "wrong exit code (expected {code}):\n{}",
        run.describe()
    );
    assert!(
        run.stderr.starts_with("error: "),
        "message does not start with 'error: ':\n{}",
        run.describe()
    );
    for w in words {
        assert!(
            run.stderr.contains(w),
            "the message does not contain {w:?}:\n{}",
            run.stderr
        );
    }
}

/// Runs `build` on the experiment `exp` of `case` three ways and `check`
/// once; each must fail with `code` and a message holding `words`, write
/// nothing, and leave an earlier report byte-identical. Returns the message.
fn expect_failure(case: &Case, exp: &Path, code: i32, words: &[&str]) -> String {
    expect_failure_with(case, exp, &[], code, words)
}

/// [`expect_failure`] with the options `args` (e.g. `--gates FILE`) given
/// to both `build` and `check`.
fn expect_failure_with(
    case: &Case,
    exp: &Path,
    args: &[&str],
    code: i32,
    words: &[&str],
) -> String {
    // 1. Into a new folder: nothing at all is created or changed.
    let before = snapshot(case.root());
    let out = case.path("new_out");
    let run = common::build(case.root(), exp, &out, args);
    assert_fails(&run, code, words);
    let diff = snapshot_diff(&before, &snapshot(case.root()));
    assert!(diff.is_empty(), "the failed run wrote files: {diff:?}");
    assert!(!out.exists());

    // 2. With --force over an earlier report: that report is unchanged.
    let prev = case.previous_report("prev");
    let before = snapshot(case.root());
    let forced_args: Vec<&str> = args.iter().copied().chain(["--force"]).collect();
    let forced = common::build(case.root(), exp, &prev, &forced_args);
    assert_fails(&forced, code, words);
    let diff = snapshot_diff(&before, &snapshot(case.root()));
    assert!(
        diff.is_empty(),
        "a failed --force run changed files: {diff:?}"
    );
    fs::remove_dir_all(&prev).unwrap();

    // 3. `check` fails the same way and writes nothing.
    let before = snapshot(case.root());
    let check_args = [OsStr::new("check"), exp.as_os_str()]
        .into_iter()
        .chain(args.iter().map(OsStr::new));
    let checked = common::run_in(case.root(), check_args);
    assert_fails(&checked, code, words);
    assert!(snapshot_diff(&before, &snapshot(case.root())).is_empty());

    run.stderr
}

/// [`expect_failure`] on `exp.toml`.
fn fails(case: &Case, code: i32, words: &[&str]) -> String {
    expect_failure(case, &case.exp(), code, words)
}

/// The base case must build: guards every test against a broken base.
#[test]
fn errors_base_case_builds() {
    let case = Case::new("");
    let out = case.path("out");
    let run = common::build(case.root(), &case.exp(), &out, &[]);
    assert!(run.success, "{}", run.describe());
    assert!(out.join("output/e_eval.csv").is_file());
}

// ---------------------------------------------------------------------------
// Files

#[test]
fn errors_predictions_file_missing() {
    let case = Case::new("");
    case.edit_config("\"pred.csv\"", "\"nope.csv\"");
    fails(
        &case,
        CONFIG,
        &["exp.toml, line 2", "predictions file not found", "nope.csv"],
    );
}

#[test]
fn errors_predictions_file_is_a_folder() {
    let case = Case::new("");
    fs::create_dir(case.path("folder.csv")).unwrap();
    case.edit_config("\"pred.csv\"", "\"folder.csv\"");
    fails(
        &case,
        CONFIG,
        &["exp.toml, line 2", "is a folder", "folder.csv"],
    );
}

#[test]
fn errors_predictions_file_unreadable() {
    use std::os::unix::fs::PermissionsExt;
    let case = Case::new("");
    let pred = case.path("pred.csv");
    fs::set_permissions(&pred, fs::Permissions::from_mode(0o000)).unwrap();
    if fs::File::open(&pred).is_ok() {
        // Running as root: permissions do not stop reading.
        eprintln!("skipped: this user can read a file with mode 000 (root?)");
        return;
    }
    fails(
        &case,
        DATA,
        &[
            "cannot read the predictions file",
            "pred.csv",
            "ermission denied",
        ],
    );
}

#[test]
fn errors_config_file_missing() {
    let case = Case::new("");
    fails_with_config(
        &case,
        "nope.toml",
        CONFIG,
        &["configuration file not found", "nope.toml"],
    );
}

#[test]
fn errors_config_file_not_utf8() {
    let case = Case::new("");
    case.write("latin1.toml", b"# config\ndescription = \"caf\xe9\"\n");
    fails_with_config(
        &case,
        "latin1.toml",
        CONFIG,
        &["latin1.toml, line 2", "UTF-8"],
    );
}

#[test]
fn errors_config_unknown_extension() {
    let case = Case::new("");
    case.write("exp.yaml", "experiment_id: e\n");
    fails_with_config(&case, "exp.yaml", CONFIG, &["exp.yaml", ".toml", ".json"]);
}

/// [`expect_failure`] on another config file of the case.
fn fails_with_config(case: &Case, name: &str, code: i32, words: &[&str]) -> String {
    expect_failure(case, &case.path(name), code, words)
}

#[test]
fn errors_unknown_extension() {
    for (name, words) in [
        (
            "pred.txt",
            &["pred.txt", "unsupported file type '.txt'", ".csv, .tsv"][..],
        ),
        ("pred", &["has no extension", ".csv, .tsv"][..]),
        (
            "pred.sas7bdat",
            &["SAS files (.sas7bdat) are not supported"][..],
        ),
    ] {
        let case = Case::new("");
        case.write(name, BASE_PRED);
        case.edit_config("\"pred.csv\"", &format!("\"{name}\""));
        fails(&case, DATA, words);
    }
}

#[test]
fn errors_empty_file() {
    for (name, bytes) in [
        ("pred.csv", &b""[..]),
        ("pred.csv", &b"  \n\n"[..]),
        ("pred.tsv", &b"\xEF\xBB\xBF"[..]),
        ("pred.jsonl", &b"\n"[..]),
        ("pred.xlsx", &b""[..]),
        ("pred.parquet", &b""[..]),
    ] {
        let case = Case::new("");
        case.write(name, bytes);
        case.edit_config("\"pred.csv\"", &format!("\"{name}\""));
        fails(&case, DATA, &[name, "file is empty"]);
    }
}

#[test]
fn errors_header_without_rows() {
    let case = Case::with("", "id,sys,h1\n");
    fails(
        &case,
        DATA,
        &[
            "pred.csv",
            "has a header but no data rows",
            "'id', 'sys', 'h1'",
        ],
    );
}

#[test]
fn errors_malformed_table() {
    for (text, words) in [
        (
            "id,sys,h1\nR1,2,3\nR2,2\n",
            &["pred.csv: line 3 has 2 fields but the header has 3"][..],
        ),
        (
            "id,sys,h1\nR1,\"2,3\nR2,2,1\n",
            &["pred.csv: line 2: a quoted field is never closed"][..],
        ),
        (
            "id,sys,h1,h1\nR1,2,3,3\n",
            &["pred.csv: duplicate column name in the header: 'h1'"][..],
        ),
    ] {
        let case = Case::with("", text);
        fails(&case, DATA, words);
    }
    // A damaged workbook / parquet file / JSON line.
    for (name, bytes, word) in [
        ("pred.xlsx", &b"PK\x03\x04 not really a zip"[..], "xlsx"),
        ("pred.parquet", &b"PAR1 not really parquet"[..], "parquet"),
        (
            "pred.jsonl",
            &b"{\"id\": \"R1\", \"sys\": 2, \"h1\": 3}\n{\"id\": \"R2\"\n"[..],
            "line 2",
        ),
    ] {
        let case = Case::new("");
        case.write(name, bytes);
        case.edit_config("\"pred.csv\"", &format!("\"{name}\""));
        fails(&case, DATA, &[name, word]);
    }
}

/// A damaged parquet file on which polars' reader panics: the panic is
/// caught and reported as an error naming the file, with no panic text.
#[test]
fn errors_damaged_file_that_panics_the_parser() {
    let good = crate::robustness::parquet_bytes(&[
        (Some(1), 2.5, Some("a".into()), Some(true)),
        (Some(2), 3.5, None, None),
    ]);
    let case = Case::new("");
    case.edit_config("\"pred.csv\"", "\"pred.parquet\"");
    let path = case.path("pred.parquet");
    // With polars 0.55, byte 162 = 106 (in a page header) makes the reader
    // panic. (No random search in this process: other damage can make
    // polars ask for exabytes of memory, which aborts a process without
    // the binary's allocator.)
    let mut bytes = good.clone();
    if let Some(b) = bytes.get_mut(162) {
        *b = 106;
    }
    fs::write(&path, &bytes).unwrap();
    let found = rsmreport_io::input::read_table(&path, &["id"])
        .is_err_and(|e| format!("{e:#}").contains("it is damaged or not a parquet file ("));
    if !found {
        eprintln!("skipped: no one-byte change makes the parquet reader panic any more");
        return;
    }
    fails(
        &case,
        DATA,
        &["pred.parquet: cannot read the parquet file: it is damaged"],
    );
}

/// A damaged parquet file that makes polars ask for exabytes of memory:
/// the binary's allocator turns the would-be abort into an error naming
/// the file (exit code 1).
#[test]
fn errors_damaged_file_that_asks_for_too_much_memory() {
    let mut bytes = crate::robustness::parquet_bytes(&[
        (Some(1), 2.5, Some("a".into()), Some(true)),
        (None, f64::NAN, None, None),
        (Some(3), 1.5, Some("b".into()), Some(false)),
    ]);
    // With polars 0.55 this byte is in a page header: 13 makes one page
    // claim about 2^64 values.
    if bytes.len() > 297 {
        bytes[297] = 13;
    }
    let case = Case::new("");
    case.write("pred.parquet", &bytes);
    case.edit_config("\"pred.csv\"", "\"pred.parquet\"");
    case.edit_config("\"sys\"", "\"c\"");
    case.edit_config("\"h1\"", "\"a\"");
    let probe = common::run_in(case.root(), [OsStr::new("check"), case.exp().as_os_str()]);
    assert_no_panic(&probe);
    assert!(
        !probe.stderr.contains("memory allocation"),
        "{}",
        probe.describe()
    );
    if !probe.stderr.contains("would need") {
        eprintln!(
            "skipped: this damage no longer makes the parquet reader ask for too much memory"
        );
        return;
    }
    fails(
        &case,
        DATA,
        &[
            "pred.parquet: the file is damaged or not a valid parquet file",
            "bytes of memory",
        ],
    );
}

#[test]
fn errors_predictions_not_utf8() {
    // Latin-1 text in a subgroup column: reported with its line, no panic.
    let case = Case::new("subgroups = [\"grp\"]\n");
    case.write(
        "pred.csv",
        b"id,sys,h1,grp\nR1,2,3,abc\nR2,3,2,caf\xe9\nR3,2,1,abc\n",
    );
    fails(
        &case,
        DATA,
        &[
            "pred.csv: line 3 is not valid UTF-8",
            "save the file with UTF-8",
        ],
    );
}

// ---------------------------------------------------------------------------
// Configuration syntax and keys

#[test]
fn errors_toml_syntax() {
    let case = Case::new("trim_tolerance = = 3\n");
    fails(
        &case,
        CONFIG,
        &[
            "exp.toml, line 8, column 18",
            "TOML syntax error",
            "trim_tolerance = = 3",
        ],
    );
}

#[test]
fn errors_json_syntax() {
    let case = Case::new("");
    case.write(
        "exp.json",
        "{\n  \"experiment_id\": \"e\",\n  \"predictions_file\": \"pred.csv\"\n  \"trim_min\": 1\n}\n",
    );
    fails_with_config(
        &case,
        "exp.json",
        CONFIG,
        &["exp.json, line 4, column 3", "JSON syntax error"],
    );
}

#[test]
fn errors_json_config_not_an_object() {
    let case = Case::new("");
    case.write("exp.json", "[1, 2]\n");
    fails_with_config(
        &case,
        "exp.json",
        CONFIG,
        &["exp.json", "must be one object", "holds a list"],
    );
}

#[test]
fn errors_unknown_key() {
    let case = Case::new("trim_tolerence = 0.5\n");
    fails(
        &case,
        CONFIG,
        &[
            "exp.toml, line 8",
            "unknown key trim_tolerence",
            "did you mean trim_tolerance?",
        ],
    );
    let case = Case::new("[intervals]\nlevle = 0.9\n");
    fails(
        &case,
        CONFIG,
        &[
            "exp.toml, line 8",
            "unknown key intervals.levle",
            "did you mean intervals.level?",
        ],
    );
}

#[test]
fn errors_key_of_another_tool() {
    let case = Case::new("model = \"LinearRegression\"\n");
    fails(
        &case,
        CONFIG,
        &["exp.toml, line 8", "model", "model training (rsmtool)"],
    );
}

#[test]
fn errors_another_kinds_experiment() {
    let case = Case::new("");
    case.write(
        "exp.toml",
        "experiment_id = \"e\"\npredictions_file = \"pred.csv\"\nid_column = \"id\"\n\
         gold_column = \"h1\"\nsystem_columns = [\"cand\"]\n",
    );
    let words = [
        "this looks like a `classify` experiment (it has gold_column, system_columns), not a \
         `build` one: run `rsmreport classify",
        "unknown key gold_column",
    ];
    let before = snapshot(case.root());
    let out = case.path("new_out");
    let run = common::build(case.root(), &case.exp(), &out, &[]);
    assert_fails(&run, CONFIG, &words);
    assert!(
        run.stderr.starts_with("error: this looks like"),
        "{}",
        run.stderr
    );
    // `check` reads it as the classify experiment it is; told it is a
    // build experiment, it fails as build does.
    let exp = case.exp();
    let checked = common::run_in(
        case.root(),
        [
            OsStr::new("check"),
            OsStr::new("--kind"),
            OsStr::new("build"),
            exp.as_os_str(),
        ],
    );
    assert_fails(&checked, CONFIG, &words);
    let checked = common::run_in(case.root(), [OsStr::new("check"), exp.as_os_str()]);
    assert!(
        checked.stdout.starts_with("experiment: e (classify)")
            || checked.stderr.contains("classify"),
        "{}",
        checked.describe()
    );
    assert!(
        !checked.stderr.contains("this looks like"),
        "{}",
        checked.stderr
    );
    assert!(snapshot_diff(&before, &snapshot(case.root())).is_empty());
}

#[test]
fn errors_wrong_value_type() {
    for (line, words) in [
        (
            "exclude_zero_scores = \"yes\"",
            &[
                "exclude_zero_scores only accepts true or false",
                "the text \"yes\"",
            ][..],
        ),
        (
            "subgroups = 3",
            &["subgroups must be a list", "the number 3"][..],
        ),
        (
            "file_format = \"xls\"",
            &["file_format must be \"csv\", \"tsv\" or \"xlsx\""][..],
        ),
        (
            "intervals = 3",
            &["intervals must be a table", "or false", "the number 3"][..],
        ),
        (
            "[intervals]\nunit = \"person\"",
            &["intervals.unit must be \"response\", \"candidate\" or \"auto\""][..],
        ),
    ] {
        let case = Case::new(&format!("{line}\n"));
        let mut words = words.to_vec();
        words.push("exp.toml, line 8");
        fails(&case, CONFIG, &words);
    }
    let case = Case::new("");
    case.edit_config("trim_min = 1", "trim_min = \"low\"");
    fails(
        &case,
        CONFIG,
        &["exp.toml, line 6", "trim_min must be a number", "\"low\""],
    );
}

#[test]
fn errors_value_out_of_range() {
    for (line, words) in [
        (
            "trim_tolerance = -1",
            &["trim_tolerance must be 0 or more"][..],
        ),
        (
            "rater_error_variance = -0.5",
            &["rater_error_variance must be 0 or more"][..],
        ),
        (
            "min_n_per_group = -3",
            &["min_n_per_group must be a whole number of 0 or more"][..],
        ),
        (
            "[intervals]\nlevel = 95",
            &["intervals.level must be a number between 0 and 1"][..],
        ),
        (
            "[intervals]\nreplicates = -5",
            &["intervals.replicates must be a whole number from 0 to 100000"][..],
        ),
    ] {
        let case = Case::new(&format!("{line}\n"));
        let mut words = words.to_vec();
        words.push("exp.toml, line 8");
        fails(&case, CONFIG, &words);
    }
}

#[test]
fn errors_required_key_missing() {
    let case = Case::new("");
    case.edit_config("system_score_column = \"sys\"\n", "");
    fails(
        &case,
        CONFIG,
        &["exp.toml", "required key is missing: system_score_column"],
    );
}

#[test]
fn errors_key_needs_another_key() {
    let case = Case::new("min_items_per_candidate = 2\n");
    fails(
        &case,
        CONFIG,
        &[
            "exp.toml, line 8",
            "min_items_per_candidate needs candidate_column",
        ],
    );
    let case = Case::new("[intervals]\nunit = \"candidate\"\n");
    fails(
        &case,
        CONFIG,
        &[
            "exp.toml, line 8",
            "intervals.unit = \"candidate\" resamples whole test takers and needs candidate_column",
        ],
    );
    let case = Case::new("other_human_score_columns = [\"h2\"]\n");
    fails(
        &case,
        CONFIG,
        &[
            "exp.toml, line 8",
            "other_human_score_columns needs second_human_score_column",
        ],
    );
    let case = Case::new("general_sections = [\"evaluation\", \"rater_agreement\"]\n");
    fails(
        &case,
        CONFIG,
        &[
            "exp.toml, line 8",
            "rater_agreement, which needs at least two human score columns",
        ],
    );
}

#[test]
fn errors_two_roles_name_the_same_column() {
    for (from, to, words) in [
        (
            "human_score_column = \"h1\"",
            "human_score_column = \"sys\"",
            &["human_score_column and system_score_column are both \"sys\""][..],
        ),
        (
            "",
            "second_human_score_column = \"h1\"\n",
            &["human_score_column and second_human_score_column are both \"h1\""][..],
        ),
        (
            "",
            "second_human_score_column = \"sys\"\n",
            &["system_score_column and second_human_score_column are both \"sys\""][..],
        ),
        (
            "",
            "candidate_column = \"id\"\n",
            &["id_column and candidate_column are both \"id\""][..],
        ),
        (
            "",
            "second_human_score_column = \"h2\"\nother_human_score_columns = \"h2\"\n",
            &["other_human_score_columns lists \"h2\", which is already the second_human_score_column"][..],
        ),
    ] {
        let case = if from.is_empty() {
            Case::new(to)
        } else {
            let c = Case::new("");
            c.edit_config(from, to);
            c
        };
        fails(&case, CONFIG, words);
    }
}

#[test]
fn errors_trim_min_above_trim_max() {
    let case = Case::new("");
    case.edit_config("trim_max = 4", "trim_max = 0");
    fails(
        &case,
        CONFIG,
        &[
            "exp.toml, line 6",
            "trim_min (1) is larger than trim_max (0)",
        ],
    );
}

#[test]
fn errors_unsafe_experiment_id() {
    let long = "a".repeat(201);
    for (id, words) in [
        (
            "../evil",
            &["experiment_id \"../evil\" contains a / or \\"][..],
        ),
        ("a\\\\b", &["contains a / or \\"][..]),
        (".hidden", &["starts with a dot"][..]),
        ("my model", &["contains spaces or other whitespace"][..]),
        (
            long.as_str(),
            &["experiment_id is too long: 201 characters"][..],
        ),
    ] {
        let case = Case::new("");
        case.edit_config(
            "experiment_id = \"e\"",
            &format!("experiment_id = \"{id}\""),
        );
        let mut words = words.to_vec();
        words.push("exp.toml, line 1");
        fails(&case, CONFIG, &words);
    }
}

#[test]
fn errors_scale_file_missing() {
    let case = Case::new("scale_with = \"scale.csv\"\n");
    fails(
        &case,
        CONFIG,
        &["exp.toml, line 8", "scale file not found", "scale.csv"],
    );
}

#[test]
fn errors_scale_file_without_its_columns() {
    let case = Case::new("scale_with = \"scale.csv\"\n");
    case.write("scale.csv", "human,Prediction\n1,2\n3,4\n");
    fails(
        &case,
        DATA,
        &[
            "scale.csv",
            "must have the columns 'sc1'",
            "'prediction' (did you mean 'Prediction'?",
            "the file has the columns 'human', 'Prediction'",
        ],
    );
    // Right columns, but no rows or no usable numbers.
    let case = Case::new("scale_with = \"scale.csv\"\n");
    case.write("scale.csv", "sc1,prediction\n");
    fails(&case, DATA, &["scale.csv", "has a header but no data rows"]);
    let case = Case::new("scale_with = \"scale.csv\"\n");
    case.write("scale.csv", "sc1,prediction\n1,2\n2,2\n");
    fails(
        &case,
        DATA,
        &[
            "scale.csv",
            "column 'prediction' needs at least two different numeric values",
        ],
    );
}

#[test]
fn errors_custom_section_file_missing() {
    let case = Case::new("custom_sections = [\"mine.md\"]\n");
    fails(
        &case,
        CONFIG,
        &[
            "exp.toml, line 8",
            "custom section file not found",
            "mine.md",
        ],
    );
}

#[test]
fn errors_section_order_mismatch() {
    let case = Case::new("section_order = [\"evaluation\"]\n");
    fails(
        &case,
        CONFIG,
        &[
            "exp.toml, line 8",
            "section_order must list every selected section",
            "data_description",
        ],
    );
    let case = Case::new(
        "general_sections = [\"evaluation\", \"sysinfo\"]\n\
         section_order = [\"evaluation\", \"sysinfo\", \"evalution\"]\n",
    );
    fails(
        &case,
        CONFIG,
        &[
            "exp.toml, line 9",
            "section_order names sections",
            "evalution",
        ],
    );
}

// ---------------------------------------------------------------------------
// Columns and data

#[test]
fn errors_configured_column_absent() {
    let case = Case::new("");
    case.edit_config("\"h1\"", "\"human\"");
    fails(
        &case,
        DATA,
        &[
            "configured column 'human' (human_score_column) is absent",
            "pred.csv",
            "the file has the columns 'id', 'sys', 'h1', 'h2', 'grp', 'cand', 'flag'",
        ],
    );
    // Same name up to case and spaces: says so.
    let case = Case::with("", "id,sys,H1 \nR1,2,3\n");
    fails(
        &case,
        DATA,
        &["'h1' (human_score_column) (did you mean 'H1 '? column names must match exactly)"],
    );
    // A spreadsheet export with ';' separators.
    let case = Case::with("", "id;sys;h1\nR1;2;3\n");
    fails(
        &case,
        DATA,
        &[
            "configured columns 'id' (id_column), 'h1' (human_score_column), 'sys' \
             (system_score_column) are absent",
            "seems to use ';' as separator",
        ],
    );
    // The second human score and candidate columns too.
    let case = Case::new("second_human_score_column = \"human2\"\ncandidate_column = \"CAND\"\n");
    fails(
        &case,
        DATA,
        &[
            "'human2' (second_human_score_column)",
            "'CAND' (candidate_column)",
        ],
    );
    let case =
        Case::new("second_human_score_column = \"h2\"\nother_human_score_columns = [\"rater3\"]\n");
    fails(
        &case,
        DATA,
        &["configured column 'rater3' (other_human_score_columns) is absent"],
    );
}

#[test]
fn errors_subgroup_column_absent() {
    let case = Case::new("subgroups = [\"grp\", \"L1\"]\n");
    fails(
        &case,
        DATA,
        &[
            "subgroup column(s) absent from the predictions file",
            "pred.csv",
            "'L1'",
            "the file has the columns 'id', 'sys', 'h1'",
        ],
    );
    // A subgroup that is also the human score column.
    let case = Case::new("subgroups = [\"h1\"]\n");
    fails(&case, DATA, &["'h1' is already the human_score_column"]);
}

#[test]
fn errors_reserved_subgroup_value() {
    let case = Case::with(
        "subgroups = [\"grp\"]\n",
        "id,sys,h1,grp\nR1,2,3,a\nR2,3,2,All data\n",
    );
    fails(
        &case,
        DATA,
        &[
            "subgroup column 'grp'",
            "pred.csv",
            "'All data' (row 3)",
            "rename that value",
        ],
    );
}

#[test]
fn errors_flag_column_absent() {
    let case = Case::new("flag_column = { advisory = [0] }\n");
    fails(
        &case,
        DATA,
        &[
            "flag column(s) absent from the predictions file",
            "'advisory'",
            "the file has the columns",
        ],
    );
}

#[test]
fn errors_duplicate_ids() {
    let pred = format!("{BASE_PRED}R1,2,2,2,a,c1,1\nR3,2,2,2,a,c1,1\nR1,2,2,2,a,c1,1\n");
    let case = Case::with("", &pred);
    fails(
        &case,
        DATA,
        &[
            "duplicate response ids in the id column 'id' (id_column)",
            "pred.csv",
            "3 row(s) repeat an earlier id",
            "'R1' (rows 2, 8, 10)",
            "'R3' (rows 4, 9)",
        ],
    );
    // Empty ids are duplicates of each other, and shown as such.
    let case = Case::with("", "id,sys,h1\n,2,3\n,3,2\n");
    fails(&case, DATA, &["'' (empty) (rows 2, 3)"]);
}

#[test]
fn errors_no_responses_after_flag_filter() {
    let case = Case::new("flag_column = { flag = [7, \"yes\"] }\n");
    fails(
        &case,
        DATA,
        &[
            "no responses left after flag filtering",
            "none of the 6 rows of",
            "'flag' allows 7, 'yes' and matches 0 row(s) (values in the file: '1', '0')",
        ],
    );
}

#[test]
fn errors_every_human_score_non_numeric() {
    let case = Case::with("", "id,sys,h1\nR1,2,x\nR2,3,\nR3,2,n/a\n");
    fails(
        &case,
        DATA,
        &[
            "no responses left after removing non-numeric human scores",
            "pred.csv has 3 rows: 3 with a missing or non-numeric human score in column 'h1'",
            "'x'",
            "human_score_column",
        ],
    );
    // With a flag filter and zero scores: each filter's count is given.
    let case = Case::with(
        "flag_column = { flag = 1 }\n",
        "id,sys,h1,flag\nR1,2,x,1\nR2,3,0,1\nR3,2,0,1\nR4,2,3,0\nR5,2,2,0\n",
    );
    fails(
        &case,
        DATA,
        &[
            "no responses left after removing non-numeric human scores and zero human scores",
            "has 5 rows: 2 removed by flag_column, 1 with a missing or non-numeric human score \
             in column 'h1' (values such as 'x'), 2 with a zero human score",
            "exclude_zero_scores = false",
        ],
    );
}

#[test]
fn errors_every_system_score_non_numeric() {
    let case = Case::with("", "id,sys,h1\nR1,x,2\nR2,,3\nR3,2,0\nR4,abc,1\n");
    fails(
        &case,
        DATA,
        &[
            "no responses left after removing non-numeric system scores",
            "has 4 rows: 1 removed for a zero human score, 3 left with a missing or non-numeric \
             system score in column 'sys' (values such as 'x', (empty), 'abc')",
            "system_score_column",
        ],
    );
}

#[test]
fn errors_no_responses_after_listwise_exclusion() {
    let case = Case::new("candidate_column = \"cand\"\nmin_items_per_candidate = 3\n");
    fails(
        &case,
        DATA,
        &[
            "no responses left after listwise exclusion",
            "6 responses of",
            "from 3 candidates in column 'cand' (candidate_column)",
            "the most any candidate has is 2",
            "min_items_per_candidate",
        ],
    );
}

// ---------------------------------------------------------------------------
// The output folder

#[test]
fn errors_output_folder_not_empty_without_force() {
    let case = Case::new("");
    case.write("out/notes.txt", "precious");
    let before = snapshot(case.root());
    let run = common::build(case.root(), &case.exp(), &case.path("out"), &[]);
    assert_fails(
        &run,
        CONFIG,
        &["the output folder", "is not empty", "--force"],
    );
    assert!(snapshot_diff(&before, &snapshot(case.root())).is_empty());
    // Not even with --force: files rsmreport did not write are never replaced.
    let run = common::build(case.root(), &case.exp(), &case.path("out"), &["--force"]);
    assert_fails(&run, CONFIG, &["refusing to replace", "notes.txt"]);
    assert!(snapshot_diff(&before, &snapshot(case.root())).is_empty());
}

#[test]
fn errors_output_folder_is_a_file() {
    let case = Case::new("");
    case.write("out", "a file");
    case.write("blocker", "a file");
    let before = snapshot(case.root());
    for (out, words) in [
        (
            "out",
            &["the output folder", "exists and is not a folder"][..],
        ),
        (
            "blocker/out",
            &["cannot use", "blocker/out", "a part of that path is a file"][..],
        ),
    ] {
        for extra in [&[][..], &["--force"][..]] {
            let run = common::build(case.root(), &case.exp(), &case.path(out), extra);
            assert_fails(&run, CONFIG, words);
            assert!(snapshot_diff(&before, &snapshot(case.root())).is_empty());
        }
    }
}

#[test]
fn errors_output_folder_not_writable() {
    use std::os::unix::fs::PermissionsExt;
    let case = Case::new("");
    let locked = case.path("locked");
    fs::create_dir(&locked).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o555)).unwrap();
    let probe = locked.join("probe");
    let out = if fs::create_dir(&probe).is_ok() {
        // Root ignores permissions; /proc refuses new folders to everyone.
        fs::remove_dir(&probe).unwrap();
        if !Path::new("/proc/self").is_dir() {
            eprintln!("skipped: no read-only folder available (root, no /proc)");
            return;
        }
        PathBuf::from("/proc/rsmreport-test-out")
    } else {
        locked.join("out")
    };
    let before = snapshot(case.root());
    let run = common::build(case.root(), &case.exp(), &out, &[]);
    assert_fails(&run, DATA, &["cannot create", "is it writable?"]);
    assert!(snapshot_diff(&before, &snapshot(case.root())).is_empty());
    assert!(!out.exists());
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
}

/// A failing `--force` run (here: a data error found after the config was
/// read) leaves a real previous report byte-identical, and no temporary
/// folder behind.
#[test]
fn errors_failed_force_run_keeps_previous_report() {
    let case = Case::new("");
    let out = case.path("out");
    let first = common::build(case.root(), &case.exp(), &out, &[]);
    assert!(first.success, "{}", first.describe());
    let before = snapshot(case.root());
    assert!(before.keys().any(|p| p.ends_with("e_eval.csv")));

    case.write("bad.csv", format!("{BASE_PRED}R2,1,1,1,a,c1,1\n"));
    case.write(
        "bad.toml",
        BASE_CONFIG.replace("\"pred.csv\"", "\"bad.csv\""),
    );
    let before = snapshot(case.root());
    for extra in [&["--force"][..], &[][..]] {
        let run = common::build(case.root(), &case.path("bad.toml"), &out, extra);
        assert_no_panic(&run);
        assert!(!run.success, "{}", run.describe());
        let diff = snapshot_diff(&before, &snapshot(case.root()));
        assert!(diff.is_empty(), "the previous report changed: {diff:?}");
    }
}

// ---------------------------------------------------------------------------
// Usage

#[test]
fn errors_usage() {
    let tmp = TempDir::new().unwrap();
    for args in [
        &["build"][..],
        &["build", "exp.toml", "--bogus"][..],
        &["frobnicate"][..],
        &[][..],
    ] {
        let run = common::run_in(tmp.path(), args);
        assert_no_panic(&run);
        assert_eq!(run.code, Some(2), "{args:?}:\n{}", run.describe());
        assert!(
            run.stderr.contains("Usage") || run.stderr.contains("usage"),
            "{args:?}:\n{}",
            run.describe()
        );
    }
    assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 0);
}

// ---------------------------------------------------------------------------
// Quality gates

/// `[[gates]]` tables come after every top-level key; the base config gains
/// a subgroup on line 8, so the gate starts on line 9.
const GATE_BASE: &str = "subgroups = [\"grp\"]\n";

/// A `[[gates]]` table on `wtkappa >= 0.7` with `extra` lines.
fn gate(extra: &str) -> String {
    format!("[[gates]]\nmetric = \"wtkappa\"\nop = \">=\"\nthreshold = 0.7\n{extra}")
}

#[test]
fn errors_gate_definition() {
    let cases: Vec<(String, Vec<&str>)> =
        vec![
        (
            "[[gates]]\nmetric = \"wtkapa\"\nop = \">=\"\nthreshold = 0.7\n".into(),
            vec!["gates[1]", "unknown metric \"wtkapa\"", "did you mean wtkappa"],
        ),
        (
            "[[gates]]\nname = \"q\"\nmetric = \"wtkappa\"\nop = \"=>\"\nthreshold = 0.7\n"
                .into(),
            vec!["gates[1] (\"q\")", "op \"=>\" is not an operator", "abs<="],
        ),
        (
            gate("bound = \"lowr\"\n"),
            vec!["bound \"lowr\"", "did you mean \"lower\""],
        ),
        (
            gate("scope = \"each:grup\"\n"),
            vec!["subgroup \"grup\"", "not in subgroups", "did you mean \"grp\""],
        ),
        (
            gate("scope = \"evry:grp\"\n"),
            vec!["scope \"evry:grp\" is not a scope", "worst:<subgroup>"],
        ),
        (
            gate("score_type = \"scale_trim\"\n"),
            vec!["score_type \"scale_trim\" is not produced", "raw_trim_round"],
        ),
        (
            gate("severity = \"error\"\n"),
            vec!["severity must be \"fail\" or \"warn\"", "\"error\""],
        ),
        (
            gate("threshhold = 1\n"),
            vec!["unknown key threshhold", "did you mean threshold"],
        ),
        (
            "[[gates]]\nmetric = \"wtkappa\"\nop = \">=\"\n".into(),
            vec!["threshold is missing"],
        ),
        (
            "[[gates]]\nmetric = \"PRMSE\"\nop = \">=\"\nthreshold = 0.7\nscope = \"each:grp\"\n"
                .into(),
            vec!["PRMSE is computed for the whole set only", "scope = \"overall\""],
        ),
    ];
    for (gates, mut words) in cases {
        let case = Case::new(&format!("{GATE_BASE}{gates}"));
        words.push("exp.toml, line 9: gates[1]");
        fails(&case, CONFIG, &words);
    }
    // The second of two gates: its own line, not the first table's.
    let case = Case::new(&format!(
        "{GATE_BASE}{}\n{}",
        gate(""),
        "[[gates]]\nmetric = \"wtkapa\"\nop = \">=\"\nthreshold = 0.7\n"
    ));
    fails(
        &case,
        CONFIG,
        &["exp.toml, line 14: gates[2]", "unknown metric \"wtkapa\""],
    );
    let case = Case::new(&format!("{GATE_BASE}gates = 3\n"));
    fails(
        &case,
        CONFIG,
        &[
            "exp.toml, line 9",
            "gates must be an array of tables",
            "the number 3",
        ],
    );
}

#[test]
fn errors_unknown_gates_preset() {
    let case = Case::new("gates_preset = \"williamson\"\n");
    fails(
        &case,
        CONFIG,
        &[
            "exp.toml, line 8",
            "unknown gates_preset \"williamson\"",
            "did you mean \"williamson2012\"",
        ],
    );
}

#[test]
fn errors_gate_bound_without_intervals() {
    for off in ["intervals = false\n", "[intervals]\nreplicates = 0\n"] {
        // The [intervals] table must come before the [[gates]] table.
        let case = Case::new(&format!("{off}{}", gate("bound = \"lower\"\n")));
        fails(
            &case,
            CONFIG,
            &[
                "gates[1]",
                "bound = \"lower\" needs bootstrap intervals",
                "intervals are off",
            ],
        );
    }
}

#[test]
fn errors_gates_file() {
    let case = Case::new("");
    let exp = case.exp();
    let missing = expect_failure_with(&case, &exp, &["--gates", "nope.toml"], CONFIG, &[]);
    assert!(
        missing.contains("gates file not found: nope.toml"),
        "{missing}"
    );

    case.write(
        "g.toml",
        "gates_preset = \"williamson2012\"\nmodel_version = \"x\"\n",
    );
    expect_failure_with(
        &case,
        &exp,
        &["--gates", "g.toml"],
        CONFIG,
        &[
            "g.toml, line 2",
            "unknown key model_version in the gates file",
        ],
    );
    case.write("g.toml", "[[gates]\n");
    expect_failure_with(
        &case,
        &exp,
        &["--gates", "g.toml"],
        CONFIG,
        &["g.toml, line 1", "TOML syntax error"],
    );
    case.write(
        "g.toml",
        "[[gates]]\nmetric = \"wtkapa\"\nop = \">=\"\nthreshold = 0.7\n",
    );
    expect_failure_with(
        &case,
        &exp,
        &["--gates", "g.toml"],
        CONFIG,
        &["g.toml, line 1: gates[1]", "unknown metric \"wtkapa\""],
    );
    // A gate file's gates are validated against the experiment: a bound
    // needs intervals there too.
    let case = Case::new("intervals = false\n");
    case.write("g.toml", gate("bound = \"upper\"\n"));
    expect_failure_with(
        &case,
        &case.exp(),
        &["--gates", "g.toml"],
        CONFIG,
        &["g.toml", "needs bootstrap intervals"],
    );
}

#[test]
fn errors_gate_level_not_in_the_data() {
    let case = Case::new(&format!("{GATE_BASE}{}", gate("scope = \"grp=c\"\n")));
    // Found in the data, named with the line of its [[gates]] table.
    let at = format!(
        "(exp.toml, line {}, gates[1])",
        case_line(&case, "[[gates]]", 1)
    );
    fails(
        &case,
        CONFIG,
        &[
            &format!("gate \"wtkappa >= 0.7\" {at}"),
            "the subgroup grp has no level \"c\" in the data",
            "its levels are a, b",
        ],
    );
}

/// Issue 24: two gates may not share a name, in build as in compare (one
/// JUnit test case per result line, named by its gate); the error names
/// both gates with their lines, before anything is read or written.
#[test]
fn errors_gate_names_repeated() {
    let two = format!("{}\n{}", gate(""), gate("scope = \"each:grp\"\n"));
    let case = Case::new(&format!("{GATE_BASE}{two}"));
    let first = case_line(&case, "[[gates]]", 1);
    let second = case_line(&case, "[[gates]]", 2);
    fails(
        &case,
        CONFIG,
        &[
            "two gates are named \"wtkappa >= 0.7\"",
            &format!("(exp.toml, line {first}, gates[1] and exp.toml, line {second}, gates[2])"),
            "give each gate its own name",
        ],
    );
    // A gates file's gate repeating a name of the experiment's own.
    let case = Case::new(&format!("{GATE_BASE}{}", gate("")));
    case.write("g.toml", gate("scope = \"each:grp\"\n"));
    expect_failure_with(
        &case,
        &case.exp(),
        &["--gates", "g.toml"],
        CONFIG,
        &["two gates are named", "and g.toml, line 1, gates[1])"],
    );
}

/// The line (from 1) of the `nth` line of the case's exp.toml that starts
/// with `start`.
fn case_line(case: &Case, start: &str, nth: usize) -> usize {
    let text = fs::read_to_string(case.exp()).unwrap();
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with(start))
        .nth(nth - 1)
        .map(|(i, _)| i + 1)
        .expect("no such line")
}
