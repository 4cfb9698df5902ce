//! Robustness (issue 6, `docs/errors.md`):
//!
//! * degenerate data that the reference evaluates must build (exit 0, no
//!   panic) with the values the reference computes (a few cells each):
//!   constant scores, one response, a group of one, no double-scored
//!   responses, continuous human scores, scores outside the trim range, very
//!   long strings, quoted newlines, `inf`/`NaN` text, spreadsheet exports;
//! * property tests (proptest): arbitrary text and bytes never panic the
//!   config parser and validator (`config::parse`, `config::validate`,
//!   `config::load`) or the table readers (`input::read_table`, every
//!   format), and every error names the file. Structured generators (CSV
//!   grids with quotes, separators, line breaks, NA tokens, numbers and
//!   unicode; JSON lines; xlsx and parquet files, also damaged ones) check
//!   that valid tables read back exactly.
//!
//! The property tests run a modest number of cases by default so the suite
//! stays fast; `PROPTEST_CASES=N` runs N cases per property, and
//! `ROBUSTNESS_FUZZ_SECONDS=S` repeats fresh random rounds of each property
//! for S seconds and prints how many cases ran (the long fuzz run of
//! `docs/errors.md`).

use std::fs;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::test_runner::{Config as PtConfig, TestCaseError, TestRunner};
use tempfile::TempDir;

use crate::common::table::{read_table, Cell, Table as OutTable};
use crate::common::{self, Run};
use rsmreport_config::{self as config, ConfigKind};
use rsmreport_core::table::Values;
use rsmreport_io::input;

// ---------------------------------------------------------------------------
// Degenerate data: builds, with the reference's values

const CONFIG: &str = crate::common::MINIMAL_CONFIG;

/// Builds `CONFIG + extra` on `pred` (written as `pred_name`); must succeed.
/// Returns the temp folder and the output folder.
fn build_ok(extra: &str, pred_name: &str, pred: &[u8]) -> (TempDir, PathBuf, Run) {
    let tmp = TempDir::new().unwrap();
    let config = CONFIG.replace("pred.csv", pred_name);
    fs::write(tmp.path().join("exp.toml"), format!("{config}{extra}")).unwrap();
    fs::write(tmp.path().join(pred_name), pred).unwrap();
    let out = tmp.path().join("out");
    let run = common::build(tmp.path(), &tmp.path().join("exp.toml"), &out, &[]);
    assert!(!run.panicked(), "the binary panicked:\n{}", run.describe());
    assert!(run.success, "build failed:\n{}", run.describe());
    (tmp, out, run)
}

fn table(out: &Path, name: &str) -> OutTable {
    read_table(&out.join("output").join(format!("e_{name}.csv")))
        .unwrap_or_else(|e| panic!("cannot read e_{name}.csv: {e}"))
}

/// The cell of `t` in the row whose first cell is `row` and column `col`.
fn cell(t: &OutTable, row: &str, col: &str) -> Cell {
    let j = t
        .header
        .iter()
        .position(|h| h == col)
        .unwrap_or_else(|| panic!("no column {col} in {:?}", t.header));
    let r = t
        .rows
        .iter()
        .find(|r| match &r[0] {
            Cell::Text(s) => s == row,
            Cell::Num { text: Some(s), .. } => s == row,
            Cell::Empty => row.is_empty(),
            _ => false,
        })
        .unwrap_or_else(|| panic!("no row {row:?} in {:?}", t.rows));
    r[j].clone()
}

fn num(c: &Cell) -> f64 {
    match c {
        Cell::Num { value, .. } => *value,
        other => panic!("not a number: {other:?}"),
    }
}

fn assert_num(t: &OutTable, row: &str, col: &str, want: f64) {
    let got = num(&cell(t, row, col));
    assert!(
        common::close(want, got),
        "{row}/{col}: {got}, expected {want}"
    );
}

fn assert_empty(t: &OutTable, row: &str, col: &str) {
    assert_eq!(
        cell(t, row, col),
        Cell::Empty,
        "{row}/{col} should be empty"
    );
}

#[test]
fn robustness_constant_scores() {
    let (_tmp, out, _) = build_ok(
        "second_human_score_column = \"h2\"\nsubgroups = [\"grp\"]\n",
        "pred.csv",
        b"id,sys,h1,h2,grp\nR1,2,2,2,a\nR2,2,2,2,b\nR3,2,2,2,a\nR4,2,2,,b\n",
    );
    let eval = table(&out, "eval");
    assert_num(&eval, "raw", "N", 4.0);
    assert_num(&eval, "raw", "h_sd", 0.0);
    assert_empty(&eval, "raw", "corr");
    assert_num(&eval, "raw", "exact_agr", 100.0);
    let consistency = table(&out, "consistency");
    assert_num(&consistency, "", "N", 3.0);
    assert_empty(&consistency, "", "corr");
}

#[test]
fn robustness_single_response() {
    let (_tmp, out, _) = build_ok(
        "second_human_score_column = \"h2\"\nsubgroups = [\"grp\"]\n",
        "pred.csv",
        b"id,sys,h1,h2,grp\nR1,2.3,2,3,a\n",
    );
    let eval = table(&out, "eval");
    assert_num(&eval, "raw", "N", 1.0);
    assert_empty(&eval, "raw", "h_sd");
    assert_empty(&eval, "raw", "sys_sd");
    assert_num(&eval, "raw", "RMSE", 0.3);
    let by = table(&out, "eval_by_grp");
    assert_num(&by, "a", "N", 1.0);
}

#[test]
fn robustness_group_of_one() {
    let (_tmp, out, _) = build_ok(
        "subgroups = [\"grp\"]\nmin_n_per_group = 2\n",
        "pred.csv",
        b"id,sys,h1,grp\nR1,2.1,2,a\nR2,3.2,3,b\nR3,1.5,1,a\nR4,3.9,4,b\nR5,2.5,2,z\n",
    );
    let by = table(&out, "eval_by_grp");
    assert_num(&by, "z", "N", 1.0);
    assert_empty(&by, "z", "h_sd");
    assert_num(&by, "All data", "N", 5.0);
    let comp = table(&out, "data_composition_by_grp");
    assert_eq!(comp.rows.len(), 3);
}

#[test]
fn robustness_no_double_scored_responses() {
    let (_tmp, out, _) = build_ok(
        "second_human_score_column = \"h2\"\n",
        "pred.csv",
        b"id,sys,h1,h2\nR1,2.3,2,\nR2,3.1,3,\nR3,1.2,1,\n",
    );
    let consistency = table(&out, "consistency");
    assert_num(&consistency, "", "N", 0.0);
    assert_empty(&consistency, "", "corr");
    assert!(
        !out.join("output/e_confMatrix_h1h2.csv").exists(),
        "no double-scored responses: no human-human confusion matrix"
    );
    let tse = table(&out, "true_score_eval");
    assert_num(&tse, "raw", "N multiple", 0.0);
    assert_empty(&tse, "raw", "PRMSE true");
}

#[test]
fn robustness_continuous_human_scores() {
    let (_tmp, out, _) = build_ok(
        "",
        "pred.csv",
        b"id,sys,h1\nR1,2.3,2.5\nR2,3.1,3.25\nR3,1.2,1.7\nR4,3.3,3.9\n",
    );
    let eval = table(&out, "eval");
    assert_num(&eval, "raw", "N", 4.0);
    assert_num(&eval, "raw", "h_mean", 2.8375);
    assert_num(&eval, "raw", "exact_agr", 0.0);
}

#[test]
fn robustness_scores_outside_the_trim_range() {
    let (_tmp, out, _) = build_ok(
        "",
        "pred.csv",
        b"id,sys,h1\nR1,-20,2\nR2,30,3\nR3,1.2,1\nR4,3.3,4\n",
    );
    let pp = table(&out, "pred_processed");
    assert_num(&pp, "R1", "raw_trim", 0.5002);
    assert_num(&pp, "R2", "raw_trim", 4.4998);
    assert_num(&pp, "R1", "raw_trim_round", 1.0);
    assert_num(&pp, "R2", "raw_trim_round", 4.0);
}

#[test]
fn robustness_very_long_strings() {
    very_long_strings(200_000);
}

/// 20 responses with 100,000-character ids, 50,000-character notes and a
/// subgroup value of `group_len` characters.
fn very_long_strings(group_len: usize) {
    let long_id = "x".repeat(100_000);
    let long_group = "g".repeat(group_len);
    let mut text = String::from("id,sys,h1,grp,note\n");
    for i in 0..20 {
        let group = if i % 2 == 0 { "short" } else { &long_group };
        text.push_str(&format!(
            "R{i}{long_id},{},{},{group},{}\n",
            1.0 + (i % 7) as f64 * 0.4,
            i % 4 + 1,
            "n".repeat(50_000)
        ));
    }
    let (_tmp, out, _) = build_ok("subgroups = [\"grp\"]\n", "pred.csv", text.as_bytes());
    let by = table(&out, "eval_by_grp");
    assert_num(&by, &long_group, "N", 10.0);
    assert_num(&by, "short", "N", 10.0);
}

#[test]
fn robustness_quoted_newlines_and_separators() {
    let (_tmp, out, _) = build_ok(
        "subgroups = [\"grp\"]\n",
        "pred.csv",
        b"id,sys,h1,grp\n\"R1\nx\",2.3,2,\"a\nb\"\nR2,3.1,3,\"c,d\"\nR3,1.2,1,\"e\"\"f\"\nR4,2.2,2,\"a\nb\"\n",
    );
    let by = table(&out, "eval_by_grp");
    assert_num(&by, "a\nb", "N", 2.0);
    assert_num(&by, "c,d", "N", 1.0);
    assert_num(&by, "e\"f", "N", 1.0);
    let pp = table(&out, "pred_processed");
    assert_num(&pp, "R1\nx", "sc1", 2.0);
}

#[test]
fn robustness_inf_and_nan_text() {
    let (_tmp, out, run) = build_ok(
        "",
        "pred.csv",
        b"id,sys,h1\nR1,inf,2\nR2,NaN,3\nR3,1.2,inf\nR4,3.3,4\nR5,-inf,1\nR6,2,NaN\nR7,2.2,3\nR8,2.3,1\n",
    );
    assert!(
        run.stdout.contains("evaluated 3 responses"),
        "{}",
        run.stdout
    );
    let eval = table(&out, "eval");
    assert_num(&eval, "raw", "N", 3.0);
    let excluded = table(&out, "test_excluded_responses");
    assert_eq!(excluded.rows.len(), 5);
    // The value written for an excluded infinite score stays `inf`.
    assert_eq!(num(&cell(&excluded, "R3", "sc1")), f64::INFINITY);
}

#[test]
fn robustness_spreadsheet_exports() {
    // BOM, CRLF line ends, a blank line, a half-empty column and padded
    // numbers, as spreadsheet programs write them.
    let (_tmp, out, _) = build_ok(
        "second_human_score_column = \"h2\"\n",
        "pred.csv",
        b"\xEF\xBB\xBFid,sys,h1,h2,empty\r\nR1, 2.1 ,2,,\r\nR2,3.2,3,3,\r\n\r\nR3,1.5,1,,\r\nR4,3.9,4,,\r\n",
    );
    assert_num(&table(&out, "eval"), "raw", "N", 4.0);
    assert_num(&table(&out, "consistency"), "", "N", 1.0);

    // An Excel workbook with text, numbers, empty cells and a number stored
    // as text.
    let xlsx = {
        let mut book = rust_xlsxwriter::Workbook::new();
        let sheet = book.add_worksheet();
        for (j, h) in ["id", "sys", "h1", "grp"].iter().enumerate() {
            sheet.write_string(0, j as u16, *h).unwrap();
        }
        let rows: [(&str, f64, &str, &str); 4] = [
            ("R1", 2.1, "2", "a"),
            ("R2", 3.2, "3", ""),
            ("R3", 1.5, "x", "a"),
            ("R4", 3.9, "4", "b"),
        ];
        for (i, (id, sys, h1, grp)) in rows.iter().enumerate() {
            let r = i as u32 + 1;
            sheet.write_string(r, 0, *id).unwrap();
            sheet.write_number(r, 1, *sys).unwrap();
            match h1.parse::<f64>() {
                Ok(x) if i != 1 => sheet.write_number(r, 2, x).unwrap(),
                _ => sheet.write_string(r, 2, *h1).unwrap(),
            };
            if !grp.is_empty() {
                sheet.write_string(r, 3, *grp).unwrap();
            }
        }
        book.save_to_buffer().unwrap()
    };
    let (_tmp, out, _) = build_ok("subgroups = [\"grp\"]\n", "pred.xlsx", &xlsx);
    assert_num(&table(&out, "eval"), "raw", "N", 3.0);
    assert_num(&table(&out, "eval_by_grp"), "No info", "N", 1.0);
}

// ---------------------------------------------------------------------------
// Property tests

/// Cases per property: `PROPTEST_CASES` when set, else `default`.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A runner with `cases(default)` cases that never writes regression files
/// into the repository (a failure prints the minimal input instead).
fn runner(default: u32) -> TestRunner {
    TestRunner::new(PtConfig {
        cases: cases(default),
        failure_persistence: None,
        ..PtConfig::default()
    })
}

/// Runs `test` over `strategy`; a failure (or panic) fails the test with the
/// minimal failing input.
fn check<S: Strategy>(
    default_cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) where
    S::Value: std::fmt::Debug,
{
    // A long fuzz run: fresh random rounds until the time budget is spent.
    let budget = std::env::var("ROBUSTNESS_FUZZ_SECONDS")
        .ok()
        .and_then(|v| v.parse::<f64>().ok());
    let start = std::time::Instant::now();
    let mut total = 0u64;
    loop {
        let mut runner = runner(default_cases);
        if let Err(e) = runner.run(&strategy, &test) {
            panic!("{e}");
        }
        total += u64::from(runner.config().cases);
        match budget {
            Some(secs) if start.elapsed().as_secs_f64() < secs => continue,
            Some(_) => {
                eprintln!(
                    "{}: {total} cases in {:.0} s, no failure",
                    std::thread::current().name().unwrap_or("property"),
                    start.elapsed().as_secs_f64()
                );
                return;
            }
            None => return,
        }
    }
}

/// Errors must name the file: `Err(e)` whose text lacks `name` fails.
fn names_file<T>(result: &anyhow::Result<T>, name: &str) -> Result<(), TestCaseError> {
    if let Err(e) = result {
        let text = format!("{e:#}");
        prop_assert!(
            text.contains(name),
            "the error does not name {name}: {text}"
        );
    }
    Ok(())
}

/// A folder with a predictions file and a section file, where config files
/// are parsed (validation checks that the files they name exist).
fn config_dir() -> TempDir {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("pred.csv"), "id,sys,h1\nR1,2,3\n").unwrap();
    fs::write(dir.path().join("scale.csv"), "sc1,prediction\n1,2\n3,5\n").unwrap();
    fs::write(dir.path().join("mine.md"), "# Mine\n").unwrap();
    dir
}

/// Parses and, when that works, validates `text` as a config of `kind`.
fn parse_and_validate(text: &str, kind: ConfigKind, path: &Path) -> Result<(), TestCaseError> {
    let name = path.file_name().unwrap().to_str().unwrap().to_string();
    match config::parse(text, kind, path) {
        Ok(raw) => names_file(&config::validate(raw, path), &name),
        Err(e) => names_file::<()>(&Err(e), &name),
    }
}

#[test]
fn robustness_prop_config_arbitrary_text() {
    let dir = config_dir();
    let toml = dir.path().join("fuzz.toml");
    let json = dir.path().join("fuzz.json");
    check(256, any::<String>(), |s| {
        parse_and_validate(&s, ConfigKind::Toml, &toml)?;
        parse_and_validate(&s, ConfigKind::Json, &json)
    });
}

#[test]
fn robustness_prop_config_arbitrary_bytes() {
    let dir = config_dir();
    let toml = dir.path().join("fuzz.toml");
    let json = dir.path().join("fuzz.json");
    check(128, prop::collection::vec(any::<u8>(), 0..256), |bytes| {
        for path in [&toml, &json] {
            fs::write(path, &bytes).unwrap();
            let name = path.file_name().unwrap().to_str().unwrap();
            names_file(&config::load(path), name)?;
        }
        Ok(())
    });
}

const KEYS: &[&str] = &[
    "experiment_id",
    "predictions_file",
    "system_score_column",
    "human_score_column",
    "second_human_score_column",
    "id_column",
    "candidate_column",
    "trim_min",
    "trim_max",
    "trim_tolerance",
    "exclude_zero_scores",
    "scale_with",
    "subgroups",
    "min_n_per_group",
    "min_items_per_candidate",
    "flag_column",
    "rater_error_variance",
    "file_format",
    "general_sections",
    "custom_sections",
    "section_order",
    "use_thumbnails",
    "description",
    "model_version",
    "model",
    "use_wandb",
    "trim_mn",
    "sections",
];

/// TOML values of every type, including awkward ones.
fn toml_value() -> impl Strategy<Value = String> {
    let scalar = prop_oneof![
        any::<i64>().prop_map(|i| i.to_string()),
        any::<f64>().prop_map(|x| {
            if x.is_nan() {
                "nan".to_string()
            } else if x.is_infinite() {
                if x > 0.0 { "inf" } else { "-inf" }.to_string()
            } else {
                format!("{x:?}")
            }
        }),
        (-3i64..10).prop_map(|i| i.to_string()),
        Just("true".to_string()),
        Just("false".to_string()),
        prop::sample::select(vec![
            "\"pred.csv\"",
            "\"scale.csv\"",
            "\"mine.md\"",
            "\"missing.csv\"",
            "\"asis\"",
            "\"raw\"",
            "\"all\"",
            "\"\"",
            "\"sys\"",
            "\"h1\"",
            "\"id\"",
            "\"../x\"",
            "\"a/b\"",
            "\".x\"",
            "\"a b\"",
            "\"é中\u{1F600}\"",
            "\"evaluation\"",
            "\"sysinfo, evaluation\"",
            "\"mine\"",
            "\"nan\"",
            "\"1e999\"",
            "1979-05-27",
        ])
        .prop_map(String::from),
        "[a-z_ .,/]{0,12}".prop_map(|s| format!("\"{s}\"")),
    ];
    scalar.prop_recursive(2, 8, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(", "))),
            prop::collection::vec(("[a-z0-9_]{1,6}", inner), 0..3).prop_map(|v| {
                let items: Vec<String> = v.into_iter().map(|(k, v)| format!("{k} = {v}")).collect();
                format!("{{ {} }}", items.join(", "))
            }),
        ]
    })
}

#[test]
fn robustness_prop_config_key_value_soup() {
    // Syntactically valid TOML (mostly), so validation is exercised deeply.
    let dir = config_dir();
    let toml = dir.path().join("soup.toml");
    let json = dir.path().join("soup.json");
    let line = (prop::sample::select(KEYS), toml_value());
    let base = "experiment_id = \"e\"\npredictions_file = \"pred.csv\"\n\
                system_score_column = \"sys\"\ntrim_min = 1\ntrim_max = 4\n";
    check(
        256,
        (any::<bool>(), prop::collection::vec(line, 0..10)),
        |(with_base, lines)| {
            let mut text = if with_base {
                base.to_string()
            } else {
                String::new()
            };
            for (k, v) in &lines {
                text.push_str(&format!("{k} = {v}\n"));
            }
            parse_and_validate(&text, ConfigKind::Toml, &toml)?;
            // The same as rsmeval JSON (TOML values are close to JSON ones).
            let json_text = format!(
                "{{{}}}",
                lines
                    .iter()
                    .map(|(k, v)| format!(
                        "\"{k}\": {}",
                        v.replace(" = ", "\": ").replace("{ ", "{\"")
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            parse_and_validate(&json_text, ConfigKind::Json, &json)
        },
    );
}

const VALID_TOML: &str = "experiment_id = \"e\"
predictions_file = \"pred.csv\"
system_score_column = \"sys\"
human_score_column = \"h1\"
second_human_score_column = \"h2\"
id_column = \"id\"
candidate_column = \"cand\"
min_items_per_candidate = 2
trim_min = 1
trim_max = 4
scale_with = \"scale.csv\"
subgroups = [\"L1\", \"grp\"]
min_n_per_group = { L1 = 5, grp = 0 }
flag_column = { flag = [0, \"1\", 2.5] }
general_sections = [\"evaluation\", \"sysinfo\"]
custom_sections = [\"mine.md\"]
section_order = [\"sysinfo\", \"mine\", \"evaluation\"]
";

const VALID_JSON: &str = "// rsmeval
{
  \"experiment_id\": \"e\", /* id */
  \"predictions_file\": \"pred.csv\",
  \"system_score_column\": \"sys\",
  \"trim_min\": 1, \"trim_max\": 4,
  \"subgroups\": \"L1, grp\",
  \"flag_column\": {\"flag\": [0, 1]},
  \"min_n_per_group\": {\"L1\": 5, \"grp\": 0},
  \"scale_with\": null
}
";

/// Random edits of a text: delete a span, insert a piece, or duplicate a
/// span; positions are fractions of the current length.
fn mutations() -> impl Strategy<Value = Vec<(u8, f64, usize, String)>> {
    let piece = prop_oneof![
        prop::sample::select(vec![
            "\"", "=", "[", "]", "{", "}", ",", "\n", ":", "nan", "-1", "\"\"", "true", "null",
            "é", "\u{0}", "\r", "#", "//", "/*", "*/", "\\", "'", "1e400", "[[a]]", "[t]",
        ])
        .prop_map(String::from),
        any::<String>(),
    ];
    prop::collection::vec((0u8..3, 0.0f64..1.0, 0usize..12, piece), 1..6)
}

fn mutate(text: &str, edits: &[(u8, f64, usize, String)]) -> String {
    let mut s = text.to_string();
    let at = |s: &str, f: f64| {
        let mut i = ((s.len() as f64) * f) as usize;
        while !s.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    for (op, pos, len, piece) in edits {
        let i = at(&s, *pos);
        let mut j = (i + len).min(s.len());
        while !s.is_char_boundary(j) {
            j -= 1;
        }
        match op {
            0 => s.replace_range(i..j, ""),
            1 => s.insert_str(i, piece),
            _ => {
                let span = s[i..j].to_string();
                s.insert_str(i, &span);
            }
        }
    }
    s
}

#[test]
fn robustness_prop_config_mutated_valid_configs() {
    let dir = config_dir();
    let toml = dir.path().join("m.toml");
    let json = dir.path().join("m.json");
    // The unmutated configs are valid: the mutations start from a good place.
    let raw = config::parse(VALID_TOML, ConfigKind::Toml, &toml).unwrap();
    config::validate(raw, &toml).unwrap_or_else(|e| panic!("{e:#}"));
    let raw = config::parse(VALID_JSON, ConfigKind::Json, &json).unwrap();
    config::validate(raw, &json).unwrap_or_else(|e| panic!("{e:#}"));
    check(256, mutations(), |edits| {
        parse_and_validate(&mutate(VALID_TOML, &edits), ConfigKind::Toml, &toml)?;
        parse_and_validate(&mutate(VALID_JSON, &edits), ConfigKind::Json, &json)
    });
}

const TABLE_EXTENSIONS: &[&str] = &["csv", "tsv", "jsonl", "jsonlines", "xlsx", "parquet"];

#[test]
fn robustness_prop_tables_arbitrary_bytes() {
    let dir = TempDir::new().unwrap();
    check(64, prop::collection::vec(any::<u8>(), 0..512), |bytes| {
        for ext in TABLE_EXTENSIONS {
            let name = format!("fuzz.{ext}");
            let path = dir.path().join(&name);
            fs::write(&path, &bytes).unwrap();
            names_file(&input::read_table(&path, &["id", "a"]), &name)?;
        }
        Ok(())
    });
}

/// Bytes that look like a delimited table: field-ish tokens.
#[test]
fn robustness_prop_tables_delimited_soup() {
    let dir = TempDir::new().unwrap();
    let token = prop::sample::select(vec![
        ",", ",", "\t", "\n", "\n", "\r\n", "\r", "\"", "\"\"", "a", "id", "1", "-2.5", "1e5",
        "inf", "NaN", "NA", "n/a", "", " ", "é", "\u{0}", "\u{feff}", "True",
    ]);
    check(128, prop::collection::vec(token, 0..60), |tokens| {
        let text: String = tokens.concat();
        for ext in ["csv", "tsv", "jsonl"] {
            let name = format!("soup.{ext}");
            let path = dir.path().join(&name);
            fs::write(&path, &text).unwrap();
            names_file(&input::read_table(&path, &["id"]), &name)?;
            names_file(&input::read_table(&path, &[]), &name)?;
        }
        Ok(())
    });
}

/// One CSV cell: numbers, NA tokens, text with separators, quotes, line
/// breaks, spaces and unicode.
fn csv_cell() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i32>().prop_map(|i| i.to_string()),
        any::<f64>().prop_map(|x| x.to_string()),
        prop::sample::select(vec![
            "",
            "NA",
            "NaN",
            "nan",
            "null",
            "None",
            "n/a",
            "#N/A",
            "inf",
            "-inf",
            "True",
            "false",
            " 1 ",
            "1,5",
            "0x10",
            "1_0",
            "é",
            "中文",
            "\u{1F600}",
            "a\"b",
            "\"q\"",
            "line\nbreak",
            "x,y",
            "tab\there",
            " ",
            "No info",
            "All data",
            "\u{0}",
        ])
        .prop_map(String::from),
        "[ -~]{0,8}".prop_map(String::from),
        "\\PC{0,6}".prop_map(String::from),
    ]
}

/// A CSV field, quoted when it has to be (or when `force` says so).
fn quote(cell: &str, sep: char, force: bool) -> String {
    if force || cell.contains(sep) || cell.contains('"') || cell.contains('\n') {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell.to_string()
    }
}

#[test]
fn robustness_prop_csv_grids_read_back_exactly() {
    let dir = TempDir::new().unwrap();
    let grid = (2usize..6).prop_flat_map(|ncols| {
        (
            Just(ncols),
            prop::collection::vec(prop::collection::vec(csv_cell(), ncols), 0..8),
            any::<bool>(), // tab-separated
            any::<bool>(), // CRLF line ends
            any::<bool>(), // BOM
            any::<bool>(), // final line end
            any::<u8>(),   // which cells are quoted needlessly
        )
    });
    check(
        128,
        grid,
        |(ncols, rows, tsv, crlf, bom, final_eol, force_bits)| {
            let sep = if tsv { '\t' } else { ',' };
            let eol = if crlf { "\r\n" } else { "\n" };
            let names: Vec<String> = (0..ncols).map(|j| format!("c{j}")).collect();
            let mut text = String::new();
            if bom {
                text.push('\u{feff}');
            }
            text.push_str(&names.join(&sep.to_string()));
            for (i, row) in rows.iter().enumerate() {
                text.push_str(eol);
                let fields: Vec<String> = row
                    .iter()
                    .enumerate()
                    .map(|(j, c)| quote(c, sep, (force_bits >> ((i + j) % 8)) & 1 == 1))
                    .collect();
                text.push_str(&fields.join(&sep.to_string()));
            }
            if final_eol {
                text.push_str(eol);
            }
            let name = if tsv { "grid.tsv" } else { "grid.csv" };
            let path = dir.path().join(name);
            fs::write(&path, &text).unwrap();

            // Every column as text: each cell reads back exactly.
            let all: Vec<&str> = names.iter().map(String::as_str).collect();
            let result = input::read_table(&path, &all);
            names_file(&result, name)?;
            // A cell holding a line break before `\r` is read like pandas does
            // (CRLF inside a quoted field): only the clean cases are compared.
            let clean = !rows.iter().flatten().any(|c| c.contains('\r'));
            if clean {
                let t = result.map_err(|e| TestCaseError::fail(format!("{e:#}\n{text:?}")))?;
                prop_assert_eq!(t.nrows, rows.len(), "{:?}", text);
                prop_assert_eq!(t.names(), all.clone());
                for (j, col) in t.columns.iter().enumerate() {
                    let Values::Text(v) = &col.values else {
                        return Err(TestCaseError::fail(format!("column {j} is not text")));
                    };
                    for (i, row) in rows.iter().enumerate() {
                        prop_assert_eq!(
                            v[i].as_deref(),
                            Some(row[j].as_str()),
                            "row {} column {} of {:?}",
                            i,
                            j,
                            text
                        );
                    }
                }
            }
            // Typed reading (no text columns) works on the same file.
            let typed = input::read_table(&path, &[]);
            names_file(&typed, name)?;
            if clean {
                let t = typed.map_err(|e| TestCaseError::fail(format!("{e:#}")))?;
                prop_assert_eq!(t.nrows, rows.len());
            }
            Ok(())
        },
    );
}

/// A JSON value of any shape.
fn json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value as J;
    let leaf = prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::Bool),
        any::<i64>().prop_map(J::from),
        any::<f64>().prop_map(|x| serde_json::Number::from_f64(x).map_or(J::Null, J::Number)),
        csv_cell().prop_map(J::String),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(J::Array),
            prop::collection::vec(
                (prop::sample::select(vec!["a", "b", "id", "a.b"]), inner),
                0..3
            )
            .prop_map(|kv| J::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

#[test]
fn robustness_prop_jsonl_objects() {
    let dir = TempDir::new().unwrap();
    let line = prop::collection::vec(
        (
            prop::sample::select(vec!["id", "a", "b", "c", "é"]),
            json_value(),
        ),
        0..4,
    );
    check(128, prop::collection::vec(line, 1..8), |lines| {
        let mut text = String::new();
        for kv in &lines {
            let obj: serde_json::Map<String, serde_json::Value> =
                kv.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
            text.push_str(&serde_json::Value::Object(obj).to_string());
            text.push('\n');
        }
        let path = dir.path().join("objs.jsonl");
        fs::write(&path, &text).unwrap();
        for text_cols in [&["id", "a"][..], &[][..]] {
            let result = input::read_table(&path, text_cols);
            names_file(&result, "objs.jsonl")?;
            if let Ok(t) = result {
                prop_assert_eq!(t.nrows, lines.len());
                for c in &t.columns {
                    prop_assert_eq!(c.values.len(), t.nrows);
                }
            }
        }
        Ok(())
    });
}

/// One xlsx cell: a number, a string, a boolean or nothing.
#[derive(Clone, Debug)]
enum XCell {
    Num(f64),
    Str(String),
    Bool(bool),
    Empty,
}

fn xlsx_bytes(rows: &[Vec<XCell>]) -> Vec<u8> {
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet();
    for (j, h) in ["id", "a", "b"].iter().enumerate() {
        sheet.write_string(0, j as u16, *h).unwrap();
    }
    for (i, row) in rows.iter().enumerate() {
        for (j, c) in row.iter().enumerate() {
            let (r, col) = (i as u32 + 1, j as u16);
            match c {
                XCell::Num(x) => {
                    let _ = sheet.write_number(r, col, *x);
                }
                XCell::Str(s) => {
                    let _ = sheet.write_string(r, col, s);
                }
                XCell::Bool(b) => {
                    sheet.write_boolean(r, col, *b).unwrap();
                }
                XCell::Empty => {}
            }
        }
    }
    book.save_to_buffer().unwrap()
}

fn xcell() -> impl Strategy<Value = XCell> {
    prop_oneof![
        prop::num::f64::NORMAL.prop_map(XCell::Num),
        (-5i32..5).prop_map(|i| XCell::Num(i as f64)),
        csv_cell().prop_map(XCell::Str),
        any::<bool>().prop_map(XCell::Bool),
        Just(XCell::Empty),
    ]
}

#[test]
fn robustness_prop_xlsx_files() {
    let dir = TempDir::new().unwrap();
    let rows = prop::collection::vec(prop::collection::vec(xcell(), 3), 0..6);
    check(32, rows, |rows| {
        let path = dir.path().join("book.xlsx");
        fs::write(&path, xlsx_bytes(&rows)).unwrap();
        for text_cols in [&["id", "a"][..], &[][..]] {
            let result = input::read_table(&path, text_cols);
            names_file(&result, "book.xlsx")?;
            let t = result.map_err(|e| TestCaseError::fail(format!("{e:#}")))?;
            prop_assert!(t.nrows <= rows.len());
            prop_assert_eq!(t.names(), vec!["id", "a", "b"]);
        }
        Ok(())
    });
}

/// One row of [`parquet_bytes`]: `id`, `a`, `b`, `c`.
pub(crate) type ParquetRow = (Option<i64>, f64, Option<String>, Option<bool>);

/// A valid parquet file with nullable integer, float, text and boolean
/// columns.
pub(crate) fn parquet_bytes(rows: &[ParquetRow]) -> Vec<u8> {
    use polars::prelude::{Column, DataFrame, ParquetWriter};
    let mut df = DataFrame::new_infer_height(vec![
        Column::new("id".into(), rows.iter().map(|r| r.0).collect::<Vec<_>>()),
        Column::new("a".into(), rows.iter().map(|r| r.1).collect::<Vec<_>>()),
        Column::new(
            "b".into(),
            rows.iter().map(|r| r.2.clone()).collect::<Vec<_>>(),
        ),
        Column::new("c".into(), rows.iter().map(|r| r.3).collect::<Vec<_>>()),
    ])
    .unwrap();
    let mut buf = Vec::new();
    ParquetWriter::new(&mut buf).finish(&mut df).unwrap();
    buf
}

#[test]
fn robustness_prop_parquet_files() {
    let dir = TempDir::new().unwrap();
    let row = (
        any::<Option<i64>>(),
        any::<f64>(),
        proptest::option::of(csv_cell()),
        any::<Option<bool>>(),
    );
    check(32, prop::collection::vec(row, 0..6), |rows| {
        let path = dir.path().join("t.parquet");
        fs::write(&path, parquet_bytes(&rows)).unwrap();
        for text_cols in [&["id", "b"][..], &[][..]] {
            let result = input::read_table(&path, text_cols);
            names_file(&result, "t.parquet")?;
            let t = result.map_err(|e| TestCaseError::fail(format!("{e:#}")))?;
            prop_assert_eq!(t.nrows, rows.len());
        }
        Ok(())
    });
}

/// Damaged xlsx and parquet files (bytes changed, cut short or repeated),
/// through the binary (`rsmreport check`): an error naming the file, never
/// a panic or an abort. (Through the binary because a damaged parquet file
/// can make polars ask for exabytes of memory: the binary's allocator
/// (`input::ParserAllocator`) turns that into a clean error, a test process
/// would abort.)
#[test]
fn robustness_prop_damaged_binary_files() {
    let dir = TempDir::new().unwrap();
    let xlsx = xlsx_bytes(&[
        vec![XCell::Str("R1".into()), XCell::Num(2.0), XCell::Bool(true)],
        vec![
            XCell::Str("R2".into()),
            XCell::Num(3.0),
            XCell::Str("x".into()),
        ],
    ]);
    let parquet = parquet_bytes(&[
        (Some(1), 2.5, Some("a".into()), Some(true)),
        (None, f64::NAN, None, None),
        (Some(3), 1.5, Some("b".into()), Some(false)),
    ]);
    for (ext, system) in [("xlsx", "b"), ("parquet", "c")] {
        fs::write(
            dir.path().join(format!("{ext}.toml")),
            format!(
                "experiment_id = \"e\"\npredictions_file = \"d.{ext}\"\n\
                 id_column = \"id\"\nhuman_score_column = \"a\"\n\
                 system_score_column = \"{system}\"\ntrim_min = 1\ntrim_max = 4\n"
            ),
        )
        .unwrap();
    }
    let damage = (
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8),
        any::<prop::sample::Index>(),
        any::<bool>(),
    );
    check(12, damage, |(changes, cut, truncate)| {
        for (ext, good) in [("xlsx", &xlsx), ("parquet", &parquet)] {
            let mut bytes = good.clone();
            for (i, b) in &changes {
                let k = i.index(bytes.len());
                bytes[k] = *b;
            }
            if truncate {
                bytes.truncate(cut.index(bytes.len()));
            }
            let name = format!("d.{ext}");
            fs::write(dir.path().join(&name), &bytes).unwrap();
            let config = dir.path().join(format!("{ext}.toml"));
            let run = common::run_in(
                dir.path(),
                [std::ffi::OsStr::new("check"), config.as_os_str()],
            );
            prop_assert!(
                !run.panicked() && !run.stderr.contains("memory allocation"),
                "{}",
                run.describe()
            );
            prop_assert!(matches!(run.code, Some(0 | 1)), "{}", run.describe());
            if run.code == Some(1) {
                prop_assert!(run.stderr.contains(&name), "{}", run.describe());
            }
        }
        Ok(())
    });
}
