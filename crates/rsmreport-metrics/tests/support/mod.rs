//! Test support: a small CSV reader, fixture-case discovery and a tally of
//! compared values.

#![allow(dead_code)]

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

/// A CSV table: header and rows of raw cells.
#[derive(Debug, Clone)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// Splits CSV text into records (RFC 4180: quoted fields with `""` escapes,
/// separators and newlines inside quotes, CRLF or LF line ends).
pub fn parse_csv(text: &str, sep: char) -> Vec<Vec<String>> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut in_quotes = false;
    let mut chars = text.chars().peekable();
    let mut any = false;
    while let Some(c) = chars.next() {
        any = true;
        if in_quotes {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    field.push('"');
                    chars.next();
                } else {
                    in_quotes = false;
                }
            } else {
                field.push(c);
            }
        } else if c == '"' {
            in_quotes = true;
        } else if c == sep {
            record.push(std::mem::take(&mut field));
        } else if c == '\n' || c == '\r' {
            if c == '\r' && chars.peek() == Some(&'\n') {
                chars.next();
            }
            record.push(std::mem::take(&mut field));
            records.push(std::mem::take(&mut record));
            any = false;
        } else {
            field.push(c);
        }
    }
    if any {
        record.push(field);
        records.push(record);
    }
    records
}

impl Table {
    pub fn read(path: &Path) -> Table {
        let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut recs = parse_csv(&text, ',');
        assert!(!recs.is_empty(), "{} is empty", path.display());
        let header = recs.remove(0);
        Table { header, rows: recs }
    }

    pub fn col(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    pub fn strings(&self, name: &str) -> Vec<String> {
        let j = self.col(name).unwrap_or_else(|| panic!("no column {name}"));
        self.rows.iter().map(|r| r[j].clone()).collect()
    }

    pub fn floats(&self, name: &str) -> Vec<f64> {
        self.strings(name).iter().map(|s| num(s)).collect()
    }

    /// The row whose first cell is `key`.
    pub fn row(&self, key: &str) -> Option<&Vec<String>> {
        self.rows.iter().find(|r| r[0] == key)
    }

    /// Cell of the row keyed `key` in column `name`, as a number.
    pub fn get(&self, key: &str, name: &str) -> Option<f64> {
        let j = self.col(name)?;
        self.row(key).map(|r| num(&r[j]))
    }
}

/// A cell as a number: empty = NaN.
pub fn num(s: &str) -> f64 {
    let t = s.trim();
    if t.is_empty() {
        return f64::NAN;
    }
    match t {
        "inf" => f64::INFINITY,
        "-inf" => f64::NEG_INFINITY,
        _ => t.parse().unwrap_or_else(|_| panic!("not a number: {s:?}")),
    }
}

/// The fixture root, or `None` (with a note) when it is absent.
pub fn fixture_root() -> Option<PathBuf> {
    let root = std::env::var("TRAIN_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/spec/fixtures/train")
        });
    if root.is_dir() {
        Some(root)
    } else {
        println!("skipped: fixture folder {} not found", root.display());
        None
    }
}

/// A fixture case with model tables.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    pub dir: PathBuf,
    pub id: String,
    pub config: serde_json::Value,
}

impl Case {
    pub fn out(&self, table: &str) -> PathBuf {
        self.dir
            .join("expected/output")
            .join(format!("{}_{table}.csv", self.id))
    }

    pub fn has(&self, table: &str) -> bool {
        self.out(table).is_file()
    }

    pub fn table(&self, table: &str) -> Table {
        Table::read(&self.out(table))
    }

    pub fn model(&self) -> String {
        self.config["model"].as_str().expect("model").to_string()
    }

    pub fn flag(&self, key: &str, default: bool) -> bool {
        match &self.config[key] {
            serde_json::Value::Bool(b) => *b,
            serde_json::Value::String(s) => s.eq_ignore_ascii_case("true"),
            _ => default,
        }
    }

    /// Every table name of `expected/output` (without the id prefix).
    pub fn tables(&self) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(self.dir.join("expected/output"))
            .unwrap()
            .filter_map(|e| {
                let name = e.ok()?.file_name().into_string().ok()?;
                let stem = name.strip_suffix(".csv")?;
                Some(stem.strip_prefix(&format!("{}_", self.id))?.to_string())
            })
            .collect();
        v.sort();
        v
    }
}

/// Every case of the fixture root whose model tables exist, by name.
pub fn cases(root: &Path) -> Vec<Case> {
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = fs::read_dir(root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let output = dir.join("expected/output");
        let Ok(entries) = fs::read_dir(&output) else {
            continue;
        };
        let id = entries.filter_map(|e| e.ok()).find_map(|e| {
            let name = e.file_name().into_string().ok()?;
            name.strip_suffix("_coefficients.csv").map(str::to_string)
        });
        let Some(id) = id else { continue };
        let text = fs::read_to_string(dir.join("expected/rsmtool_config.json")).unwrap();
        let config: serde_json::Value = serde_json::from_str(&text).unwrap();
        out.push(Case {
            name: dir.file_name().unwrap().to_string_lossy().into_owned(),
            dir,
            id,
            config,
        });
    }
    out
}

/// Counts of compared values and the first failures.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    pub matched: usize,
    pub failed: usize,
    pub failures: Vec<String>,
    pub per_table: HashMap<String, (usize, usize)>,
    /// Largest `|got - exp| / max(|exp|, 1e-300)` among compared finite values
    /// with `|exp| > 1e-12` (for reporting).
    pub max_rel: f64,
    /// Where `max_rel` was seen.
    pub worst: String,
}

impl Tally {
    fn record(&mut self, table: &str, ok: bool, what: impl FnOnce() -> String) {
        let e = self.per_table.entry(table.to_string()).or_default();
        if ok {
            self.matched += 1;
            e.0 += 1;
        } else {
            self.failed += 1;
            e.1 += 1;
            if self.failures.len() < 40 {
                self.failures.push(format!("{table}: {}", what()));
            }
        }
    }

    /// Compares numbers within `atol + rtol |expected|` (NaN equals NaN).
    pub fn num(&mut self, table: &str, what: &str, got: f64, exp: f64, tol: (f64, f64)) {
        let ok = close(got, exp, tol);
        if got.is_finite() && exp.is_finite() && exp.abs() > 1e-12 {
            let rel = (got - exp).abs() / exp.abs();
            if rel > self.max_rel {
                self.max_rel = rel;
                self.worst = format!("{table}: {what}");
            }
        }
        self.record(table, ok, || {
            format!("{what}: got {got:e}, expected {exp:e}")
        });
    }

    /// Compares text exactly.
    pub fn text(&mut self, table: &str, what: &str, got: &str, exp: &str) {
        self.record(table, got == exp, || {
            format!("{what}: got {got:?}, expected {exp:?}")
        });
    }

    /// A check that is one value (e.g. "no model_fit table").
    pub fn check(&mut self, table: &str, what: &str, ok: bool) {
        self.record(table, ok, || what.to_string());
    }

    pub fn add(&mut self, other: Tally) {
        self.matched += other.matched;
        self.failed += other.failed;
        if other.max_rel > self.max_rel {
            self.max_rel = other.max_rel;
            self.worst = other.worst.clone();
        }
        for f in other.failures {
            if self.failures.len() < 60 {
                self.failures.push(f);
            }
        }
        for (k, (a, b)) in other.per_table {
            let e = self.per_table.entry(k).or_default();
            e.0 += a;
            e.1 += b;
        }
    }
}

pub fn close(got: f64, exp: f64, (rtol, atol): (f64, f64)) -> bool {
    if exp.is_nan() || got.is_nan() {
        return exp.is_nan() && got.is_nan();
    }
    if exp.is_infinite() || got.is_infinite() {
        return got == exp;
    }
    (got - exp).abs() <= atol + rtol * exp.abs()
}

#[test]
fn csv_reader_handles_quotes_and_crlf() {
    let recs = parse_csv("a,b\r\n\"x,1\",\"say \"\"hi\"\"\"\n,3", ',');
    assert_eq!(recs.len(), 3);
    assert_eq!(recs[1], vec!["x,1".to_string(), "say \"hi\"".to_string()]);
    assert_eq!(recs[2], vec!["".to_string(), "3".to_string()]);
    assert!(num("").is_nan());
    assert_eq!(num("1e-3"), 0.001);
}

/// The flat `key = value` pairs of a TOML experiment (strings unquoted;
/// tables and arrays are not needed by the tests and are skipped).
pub fn read_flat_toml(path: &Path) -> HashMap<String, String> {
    let text = fs::read_to_string(path).unwrap_or_default();
    let mut out = HashMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            break;
        }
        if line.starts_with('#') || !line.contains('=') {
            continue;
        }
        let (k, v) = line.split_once('=').unwrap();
        out.insert(k.trim().to_string(), v.trim().trim_matches('"').to_string());
    }
    out
}

/// A `predict` fixture case: the model trio, the input file and the
/// expected outputs.
#[derive(Debug, Clone)]
pub struct PredictCase {
    pub name: String,
    pub dir: PathBuf,
    pub config: HashMap<String, String>,
}

impl PredictCase {
    pub fn id(&self) -> &str {
        &self.config["experiment_id"]
    }

    pub fn model_table(&self, table: &str) -> Table {
        let dir = self.dir.join(&self.config["experiment_dir"]).join("output");
        Table::read(&dir.join(format!("{}_{table}.csv", self.id())))
    }

    pub fn expected(&self, table: &str) -> Option<Table> {
        let p = self
            .dir
            .join("expected_predict/output")
            .join(format!("{}_{table}.csv", self.id()));
        p.is_file().then(|| Table::read(&p))
    }

    pub fn input(&self) -> Table {
        Table::read(&self.dir.join(&self.config["input_features_file"]))
    }
}

/// Every case with `predict.toml` and `expected_predict/output`.
pub fn predict_cases(root: &Path) -> Vec<PredictCase> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("predict.toml").is_file() && p.join("expected_predict/output").is_dir())
        .collect();
    dirs.sort();
    dirs.into_iter()
        .map(|dir| PredictCase {
            name: dir.file_name().unwrap().to_string_lossy().into_owned(),
            config: read_flat_toml(&dir.join("predict.toml")),
            dir,
        })
        .collect()
}
