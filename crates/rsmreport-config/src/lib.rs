//! Stage 1: the configuration of every report kind. Raw TOML (or rsmeval
//! JSON) text is parsed into a raw key/value map, then validated: every
//! default filled in, every cross-field rule checked, paths resolved.
//! Reads the config file (and checks that referenced files exist); never
//! reads data tables and never writes anything.
//!
//! Layout (ripgrep's low-level/high-level split): [`parse`] turns text into a
//! [`RawConfig`] (syntax only); [`value`] holds the one reader of each kind
//! of value (booleans, lists of names, referenced files, ids and the
//! wording of a value in a message), used by every kind. `build`'s and
//! `check`'s experiment: [`validate`] turns the raw map into an
//! [`Experiment`] (all meaning), [`load`] reads the file and runs both;
//! `keys` holds its key catalogue, `sections` the section rules (spec 5.1),
//! `saved` the text of the saved copy (spec 1.4). The other kinds' files:
//! [`agree`], [`classify`], [`compare`] (the optional `compare.toml`),
//! [`preferences`], [`sequence`], [`spans`], [`train`] and [`predict`]
//! (rsmtool's and rsmpredict's keys); [`common`] reads the keys every kind
//! accepts (its `parse_toml` and `Rules` refuse any other key with the
//! closest valid one); [`intervals`], [`margins`] and [`gates`] are tables
//! several kinds share; [`kind_hint`] lists a file's top-level keys, by
//! which the engine's kind table recognises its kind.
#![cfg_attr(test, allow(clippy::print_stdout, clippy::print_stderr))]
use std::path::{Path, PathBuf};

use anyhow::anyhow;

pub mod agree;
pub mod catalogue;
pub mod classify;
pub mod common;
pub mod compare;
pub mod gates;
pub mod intervals;
mod keys;
pub mod kind_hint;
pub mod margins;
mod parse;
pub mod predict;
pub mod preferences;
mod saved;
pub mod sections;
pub mod sequence;
pub mod spans;
pub mod train;
mod validate;
pub mod value;

pub use keys::{closest, osa_distance, DEFAULTED_KEYS, OWN_KEYS, REQUIRED_KEYS};
pub use parse::{parse, ConfigKind, RawConfig};
pub use rsmreport_core::pyrepr::parse_number_text;
pub use saved::{python_float_repr, saved_config_json, to_python_json};
pub use validate::validate;

/// The built-in report sections, in their default order (spec 5.1).
pub const BUILTIN_SECTIONS: [&str; 10] = [
    "data_description",
    "data_description_by_group",
    "consistency",
    "rater_agreement",
    "evaluation",
    "true_score_evaluation",
    "evaluation_by_group",
    "fairness_analyses",
    "intermediate_file_paths",
    "sysinfo",
];

/// How system scores are scaled (spec 2.10, 2.12).
#[derive(Clone, Debug, PartialEq)]
pub enum ScaleWith {
    /// Key absent: raw scores only (`raw`, `raw_trim`, `raw_trim_round`).
    None,
    /// `"asis"`: predictions already on the human scale (`scale*` == raw).
    Asis,
    /// `"raw"`: six score types, scaled == raw (reference behaviour).
    Raw,
    /// A scale file with `sc1` and `prediction` columns (resolved path).
    File(PathBuf),
}

use rsmreport_core::schema::FileFormat;

pub use rsmreport_core::pyrepr::Number;

/// An allowed value of a flag column, normalised as in spec 2.6: text that
/// parses as an integer or a float becomes that float, anything else stays
/// text (`NaN` matches a missing data cell).
#[derive(Clone, Debug, PartialEq)]
pub enum FlagValue {
    Number(f64),
    Text(String),
}

/// One flag column and the values it may take.
#[derive(Clone, Debug, PartialEq)]
pub struct FlagFilter {
    pub column: String,
    pub allowed: Vec<FlagValue>,
}

/// One report section after selection and ordering (spec 5.1).
#[derive(Clone, Debug, PartialEq)]
pub enum Section {
    /// One of [`BUILTIN_SECTIONS`].
    Builtin(&'static str),
    /// A user section: `name` is the file stem, `path` the resolved file
    /// (`.md` rendered as Markdown, `.html` inserted as is).
    Custom { name: String, path: PathBuf },
}

impl Section {
    pub fn name(&self) -> &str {
        match self {
            Section::Builtin(n) => n,
            Section::Custom { name, .. } => name,
        }
    }
}

/// A validated experiment: everything later stages need, with every default
/// filled in.
#[derive(Clone, Debug)]
pub struct Experiment {
    /// The config file this came from.
    pub config_path: PathBuf,
    pub experiment_id: String,
    pub description: String,
    /// Optional free-text label of the model version (rsmreport only).
    pub model_version: Option<String>,
    /// Resolved path of the predictions file (it exists).
    pub predictions_file: PathBuf,
    pub id_column: String,
    pub human_score_column: String,
    pub second_human_score_column: Option<String>,
    /// Further human score columns (`other_human_score_columns`, agreement
    /// spec 1.1; empty when not given): they enter the `rater_agreement`
    /// section and `true_score_eval_all_raters`, never the reference's
    /// tables.
    pub other_human_score_columns: Vec<String>,
    /// `classification = true`: the classification view of the rounded
    /// primary score type against the first human score (agreement spec 4).
    pub classification: bool,
    pub system_score_column: String,
    pub candidate_column: Option<String>,
    pub trim_min: f64,
    pub trim_max: f64,
    pub trim_tolerance: f64,
    pub exclude_zero_scores: bool,
    pub use_thumbnails: bool,
    pub scale_with: ScaleWith,
    pub file_format: FileFormat,
    /// Empty when no flag filtering is configured.
    pub flag_column: Vec<FlagFilter>,
    pub rater_error_variance: Option<Number>,
    pub subgroups: Vec<String>,
    /// Display threshold per subgroup, in `subgroups` order; 0 = no threshold.
    pub min_n_per_group: Vec<(String, u64)>,
    /// `None` when listwise exclusion is off.
    pub min_items_per_candidate: Option<u64>,
    /// The report sections to render, in their final order.
    pub sections: Vec<Section>,
    /// Confidence intervals (uncertainty spec 1); `None` when switched off.
    pub intervals: Option<intervals::Intervals>,
    /// Quality gates (gates spec): the experiment file's, then those of a
    /// `--gates` file.
    pub gates: Vec<gates::Gate>,
    /// The normalised configuration in the reference's shape (spec 1.4),
    /// written as `output/<id>_rsmeval.json`.
    pub saved_config: serde_json::Value,
}

impl Experiment {
    /// True when `scale_with` is given (the "scaled in use" flag of spec 2.12).
    pub fn scaled(&self) -> bool {
        self.scale_with != ScaleWith::None
    }

    /// Whether a built-in section is part of the report.
    pub fn has_section(&self, name: &str) -> bool {
        self.sections.iter().any(|s| s.name() == name)
    }

    /// The display threshold for a subgroup (0 = none).
    pub fn min_n_for(&self, group: &str) -> u64 {
        self.min_n_per_group
            .iter()
            .find(|(g, _)| g == group)
            .map_or(0, |(_, n)| *n)
    }
}

/// Reads, parses and validates the experiment file at `path` (`.toml`, or an
/// rsmeval `.json` config).
pub fn load(path: &Path) -> anyhow::Result<Experiment> {
    let bytes = rsmreport_core::in_memory::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            anyhow!("configuration file not found: {}", path.display())
        }
        _ => anyhow!("cannot read the configuration file {}: {e}", path.display()),
    })?;
    let kind = ConfigKind::from_path(path)?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..valid]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        anyhow!(
            "{}, line {line}: the configuration file is not UTF-8 text; save it with UTF-8 \
             encoding",
            path.display()
        )
    })?;
    let raw = parse(&text, kind, path)?;
    validate(raw, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use std::fs;

    /// `../shared` next to the crate, or `None` (with a message) when absent.
    fn shared_dir() -> Option<PathBuf> {
        let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared"));
        if dir.is_dir() {
            Some(dir)
        } else {
            eprintln!("skipping: {} does not exist", dir.display());
            None
        }
    }

    /// Every fixture experiment folder (sorted).
    fn experiments(shared: &Path) -> Vec<PathBuf> {
        let root = shared.join("spec/fixtures/experiments");
        let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        dirs.retain(|d| d.join("exp.toml").is_file());
        dirs.sort();
        dirs
    }

    fn expected_saved(dir: &Path) -> Option<PathBuf> {
        let out = dir.join("expected/output");
        fs::read_dir(out)
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.ends_with("_rsmeval.json"))
            })
    }

    const PATH_KEYS: [&str; 3] = ["predictions_file", "scale_with", "custom_sections"];

    #[test]
    fn saved_config_matches_every_fixture() {
        let Some(shared) = shared_dir() else { return };
        let mut compared = 0;
        let mut same_path_fixtures = 0;
        for dir in experiments(&shared) {
            let Some(expected_path) = expected_saved(&dir) else {
                continue;
            };
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            let exp = load(&dir.join("exp.toml")).unwrap_or_else(|e| panic!("{name}: {e:#}"));
            let text = fs::read_to_string(&expected_path).unwrap();
            let expected: Value = serde_json::from_str(&text).unwrap();
            // The formatter reproduces the reference's bytes.
            assert_eq!(to_python_json(&expected), text, "{name}: layout");
            let (mut got, mut want) = (exp.saved_config.clone(), expected.clone());
            // rsmreport's own last key (uncertainty spec 1): not the reference's.
            assert!(got["intervals"].is_object(), "{name}: intervals recorded");
            got.as_object_mut().unwrap().shift_remove("intervals");
            let same_paths = PATH_KEYS.iter().all(|k| got.get(k) == want.get(k));
            if name.starts_with("sim-") {
                assert!(same_paths, "{name}: sim-* fixtures keep the exp.toml paths");
            }
            if same_paths {
                same_path_fixtures += 1;
            } else {
                for k in PATH_KEYS {
                    got.as_object_mut().unwrap().shift_remove(k);
                    want.as_object_mut().unwrap().shift_remove(k);
                }
            }
            // Equal as JSON values (object key order not considered) ...
            assert_eq!(got, want, "{name}");
            let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
            // ... the defaulted keys in the reference's order ...
            let user: Vec<String> = fs::read_to_string(dir.join("exp.toml"))
                .ok()
                .and_then(|t| parse(&t, ConfigKind::Toml, &dir).ok())
                .map(|raw| raw.keys().map(String::from).collect())
                .unwrap_or_default();
            let defaulted = |v: &Value| {
                keys(v)
                    .into_iter()
                    .filter(|k| !user.contains(k))
                    .collect::<Vec<_>>()
            };
            assert_eq!(
                defaulted(&got),
                defaulted(&want),
                "{name}: defaulted key order"
            );
            // ... and, where the reference's JSON config had the exp.toml key
            // order (all but the sim-* ones), the same order overall.
            if !name.starts_with("sim-") {
                assert_eq!(keys(&got), keys(&want), "{name}: key order");
            }
            compared += 1;
        }
        assert!(compared >= 30, "only {compared} fixtures compared");
        assert!(
            same_path_fixtures >= 3,
            "only {same_path_fixtures} with the same paths"
        );
    }

    #[test]
    fn error_fixtures_fail_in_the_right_stage() {
        let Some(shared) = shared_dir() else { return };
        let mut seen = 0;
        for dir in experiments(&shared) {
            if !dir.join("expected_error.txt").is_file() {
                continue;
            }
            seen += 1;
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            let result = load(&dir.join("exp.toml"));
            match name.as_str() {
                "lr-eval-same-system-human-score" => {
                    let e = format!("{:#}", result.unwrap_err());
                    assert!(e.contains("human_score_column"), "{e}");
                    assert!(e.contains("system_score_column"), "{e}");
                    assert!(e.contains("exp.toml, line"), "{e}");
                }
                "lr-eval-with-wrong-path" => {
                    let e = format!("{:#}", result.unwrap_err());
                    assert!(e.contains("predictions file not found"), "{e}");
                    assert!(
                        e.contains("predictions_scaled_with_subgroups_does_not_exist.csv"),
                        "{e}"
                    );
                }
                // The others fail later, on the data.
                _ => {
                    result.unwrap_or_else(|e| panic!("{name}: {e:#}"));
                }
            }
        }
        assert!(seen >= 2, "only {seen} error fixtures");
    }

    #[test]
    fn fixture_section_order_is_applied() {
        let Some(shared) = shared_dir() else { return };
        let dir = shared.join("spec/fixtures/experiments/lr-eval-with-custom-sections-and-order");
        let exp = load(&dir.join("exp.toml")).unwrap();
        let names: Vec<&str> = exp.sections.iter().map(Section::name).collect();
        assert_eq!(
            names,
            [
                "consistency",
                "evaluation",
                "true_score_evaluation",
                "custom1",
                "evaluation_by_group",
                "fairness_analyses",
                "data_description",
                "data_description_by_group",
                "custom2",
                "intermediate_file_paths",
                "sysinfo"
            ]
        );
        assert_eq!(
            exp.sections[3],
            Section::Custom {
                name: "custom1".into(),
                path: dir.join("custom1.md")
            }
        );
        let dir = shared.join("spec/fixtures/experiments/lr-eval-same-system-human-score");
        let text = fs::read_to_string(dir.join("exp.toml")).unwrap();
        let raw = parse(&text, ConfigKind::Toml, &dir.join("exp.toml")).unwrap();
        assert_eq!(raw.get("trim_min"), Some(&Value::from("1")));
    }

    #[test]
    fn load_reads_toml_and_json() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("pred.csv"), "x\n").unwrap();
        let toml = dir.path().join("exp.TOML");
        fs::write(
            &toml,
            "experiment_id = \"e\"\npredictions_file = \"pred.csv\"\n\
             system_score_column = \"s\"\ntrim_min = 1\ntrim_max = 4\n",
        )
        .unwrap();
        assert_eq!(load(&toml).unwrap().experiment_id, "e");
        let json = dir.path().join("exp.json");
        fs::write(
            &json,
            "// rsmeval config\n{\n  \"experiment_id\": \"e\", /* id */\n  \
             \"predictions_file\": \"pred.csv\",\n  \"system_score_column\": \"s\",\n  \
             \"description\": \"see http://example.org\",\n  \
             \"trim_min\": 1, \"trim_max\": 4, \"subgroups\": \"L1, L2\"\n}\n",
        )
        .unwrap();
        let exp = load(&json).unwrap();
        assert_eq!(exp.description, "see http://example.org");
        assert_eq!(exp.subgroups, ["L1", "L2"]);
        assert_eq!(
            exp.saved_config
                .as_object()
                .unwrap()
                .keys()
                .next()
                .map(String::as_str),
            Some("experiment_id")
        );
        let bad = dir.path().join("bad.json");
        fs::write(&bad, "{\n  \"experiment_id\": \"e\",\n  \"trim_mn\": 1\n}").unwrap();
        let e = format!("{:#}", load(&bad).unwrap_err());
        assert!(
            e.contains("bad.json, line 3") && e.contains("did you mean trim_min"),
            "{e}"
        );
    }

    #[test]
    fn load_errors_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.toml");
        let e = format!("{:#}", load(&missing).unwrap_err());
        assert!(
            e.contains("configuration file not found") && e.contains("nope.toml"),
            "{e}"
        );
        let yaml = dir.path().join("exp.yaml");
        fs::write(&yaml, "a: 1").unwrap();
        let e = format!("{:#}", load(&yaml).unwrap_err());
        assert!(
            e.contains("exp.yaml") && e.contains(".toml") && e.contains(".json"),
            "{e}"
        );
        let latin1 = dir.path().join("latin1.toml");
        fs::write(&latin1, b"a = 1\ndescription = \"caf\xe9\"\n").unwrap();
        let e = format!("{:#}", load(&latin1).unwrap_err());
        assert!(
            e.contains("latin1.toml, line 2") && e.contains("UTF-8"),
            "{e}"
        );
        let e = format!("{:#}", load(dir.path()).unwrap_err());
        assert!(e.contains("cannot read the configuration file"), "{e}");
        let syntax = dir.path().join("syntax.toml");
        fs::write(&syntax, "experiment_id = \"x\"\ntrim_min = \n").unwrap();
        let e = format!("{:#}", load(&syntax).unwrap_err());
        assert!(
            e.contains("syntax.toml, line 2, column") && e.contains("TOML syntax error"),
            "{e}"
        );
    }

    /// Pseudo-random inputs (no extra crates): parse + validate + load must
    /// return, never panic.
    #[test]
    fn garbage_never_panics() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("pred.csv"), "x\n").unwrap();
        let toml_path = dir.path().join("g.toml");
        let json_path = dir.path().join("g.json");
        let valid = "experiment_id = \"e\"\npredictions_file = \"pred.csv\"\n\
                     system_score_column = \"s\"\ntrim_min = 1\ntrim_max = 4\n\
                     subgroups = [\"a\"]\nmin_n_per_group = { a = 1 }\n\
                     flag_column = { f = [1, \"x\"] }\nsection_order = \"sysinfo\"\n";
        let mut state: u64 = 7;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as usize
        };
        let mut inputs: Vec<String> = Vec::new();
        // Mutations of a valid config: delete, duplicate or replace a span.
        let pieces = [
            "\"", "=", "[", "]", "{", "}", ",", "\n", "nan", "-1", "\"\"", "true", "é", "\u{0}",
        ];
        for _ in 0..300 {
            let mut s = valid.to_string();
            for _ in 0..(1 + next() % 4) {
                let mut at = next() % (s.len() + 1);
                while !s.is_char_boundary(at) {
                    at -= 1;
                }
                match next() % 3 {
                    0 => {
                        let mut end = (at + next() % 8).min(s.len());
                        while !s.is_char_boundary(end) {
                            end -= 1;
                        }
                        s.replace_range(at..end, "");
                    }
                    1 => s.insert_str(at, pieces[next() % pieces.len()]),
                    _ => {
                        let line = s.lines().nth(next() % 9).unwrap_or("").to_string();
                        s.insert_str(at, &line);
                    }
                }
            }
            inputs.push(s);
        }
        inputs.extend(parse::tests::garbage_strings(300));
        for s in &inputs {
            for (kind, path) in [
                (ConfigKind::Toml, &toml_path),
                (ConfigKind::Json, &json_path),
            ] {
                if let Ok(raw) = parse(s, kind, path) {
                    let _ = validate(raw, path);
                }
            }
        }
        // Raw bytes through load (not necessarily UTF-8).
        for i in 0..100 {
            let bytes: Vec<u8> = (0..(next() % 64)).map(|_| (next() % 256) as u8).collect();
            let path = if i % 2 == 0 { &toml_path } else { &json_path };
            fs::write(path, &bytes).unwrap();
            let _ = load(path);
        }
    }
}
