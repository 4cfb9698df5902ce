//! Stage 1 (config): the experiment file of `rsmreport sequence EXP`
//! (`spec/sequence.md` 1.1, 7): Input A (one table with reference and
//! system columns) or Input B (sacreBLEU-style text files), the optional
//! log-probabilities file, the metrics and their sacreBLEU / jiwer options,
//! `[intervals]`, `[significance]`, `[perplexity]`, `[margins]`. Unknown
//! keys (top level and in every table) are refused with the file, the line
//! and the closest valid key.
//!
//! Pure: [`parse`] works on text; [`load`] reads only the config file and
//! checks that the named files exist. Never reads the data; writes nothing.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};
use serde_json::{Map, Value};

use super::common::{Common, Rules};
use super::intervals::Intervals;
use super::value::{describe, folder, names, resolve_file, text, KeyError as Bad};
use super::RawConfig;
use rsmreport_core::schema::FileFormat;
use rsmreport_metrics::sequence::bleu::{BleuOptions, Smooth};
use rsmreport_metrics::sequence::chrf::ChrfOptions;
use rsmreport_metrics::sequence::jiwer::SpecValue;
use rsmreport_metrics::sequence::tokenize::{TerOptions, Tokenizer};
use rsmreport_metrics::sequence::wer::{WerTransforms, WordTransform};

/// The keys of a `sequence` experiment file beyond the common ones
/// ([`super::common::KEYS`]; spec 1.1).
pub const OWN_KEYS: [&str; 17] = [
    "predictions_file",
    "id_column",
    "reference_columns",
    "system_columns",
    "subgroups",
    "references",
    "systems",
    "logprobs_file",
    "baseline",
    "metrics",
    "bleu",
    "chrf",
    "ter",
    "wer",
    "significance",
    "perplexity",
    "margins",
];

/// How `sequence` reads the common keys: segments are the resampled
/// units, and the seed is sacreBLEU's (12345) unless given.
const RULES: Rules = Rules {
    intervals: Intervals {
        seed: 12345,
        ..Intervals::DEFAULT
    },
    ..Rules::new("sequence", "mt_example", "segments")
};

/// Every metric key, in the order tables list them.
pub const METRICS: [&str; 10] = [
    "bleu",
    "chrf",
    "chrf++",
    "ter",
    "wer",
    "mer",
    "wil",
    "wip",
    "cer",
    "perplexity",
];

/// Whether a larger value of the metric is better.
pub fn larger_is_better(metric: &str) -> bool {
    matches!(metric, "bleu" | "chrf" | "chrf++" | "wip")
}

/// The default practical margin of a metric (spec 1.1 `[margins]`).
pub fn default_margin(metric: &str) -> f64 {
    match metric {
        "bleu" | "chrf" | "chrf++" | "ter" => 1.0,
        "perplexity" => 0.1,
        _ => 0.01,
    }
}

/// Where the segments come from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// Input A: one table.
    Table {
        file: PathBuf,
        id_column: Option<String>,
        reference_columns: Vec<String>,
        system_columns: Vec<String>,
        subgroups: Vec<String>,
    },
    /// Input B: text files, one segment per line; systems in order.
    TextFiles {
        references: Vec<PathBuf>,
        systems: Vec<(String, PathBuf)>,
    },
    /// Only log-probabilities (`metrics = ["perplexity"]`).
    None,
}

/// What to do with OpenAI's -9999 sentinels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sentinel {
    Drop,
    Keep,
    Error,
}

/// A validated `sequence` experiment.
#[derive(Clone, Debug, PartialEq)]
pub struct SequenceConfig {
    pub experiment_id: String,
    /// Free text (Markdown) shown at the top of the report; empty when
    /// absent.
    pub description: String,
    /// The label under which the report is archived.
    pub model_version: Option<String>,
    pub source: Source,
    pub logprobs_file: Option<PathBuf>,
    /// `None`: the first system.
    pub baseline: Option<String>,
    pub metrics: Vec<String>,
    pub file_format: FileFormat,
    pub bleu: BleuOptions,
    pub chrf: ChrfOptions,
    pub ter: TerOptions,
    /// `[wer]`: each side's transform (sequence.md 8.1).
    pub wer: WerTransforms,
    /// `None`: `intervals = false`.
    pub intervals: Option<SeqIntervals>,
    pub ar_trials: usize,
    pub sentinel: Sentinel,
    /// A margin per metric key (every one of [`METRICS`]: `[margins]`, else
    /// [`default_margin`]).
    pub margins: Vec<(String, f64)>,
    /// The config file.
    pub origin: PathBuf,
    /// `[[gates]]` as written (an array of tables).
    pub gates: Option<serde_json::Value>,
    /// The gates, parsed by the kind (`kinds::sequence::load`) before any
    /// data is read.
    pub parsed_gates: Vec<super::gates::Gate>,
}

impl SequenceConfig {
    /// The systems the configuration names (none when they come from the
    /// log-probabilities file alone).
    pub fn system_names(&self) -> Vec<String> {
        match &self.source {
            Source::Table { system_columns, .. } => system_columns.clone(),
            Source::TextFiles { systems, .. } => systems.iter().map(|(s, _)| s.clone()).collect(),
            Source::None => Vec::new(),
        }
    }

    /// The margin of `metric`.
    pub fn margin(&self, metric: &str) -> f64 {
        self.margins
            .iter()
            .find(|(m, _)| m == metric)
            .map_or_else(|| default_margin(metric), |(_, v)| *v)
    }

    /// Every file read.
    pub fn inputs(&self) -> Vec<PathBuf> {
        let mut out = vec![self.origin.clone()];
        match &self.source {
            Source::Table { file, .. } => out.push(file.clone()),
            Source::TextFiles {
                references,
                systems,
            } => {
                out.extend(references.iter().cloned());
                out.extend(systems.iter().map(|(_, p)| p.clone()));
            }
            Source::None => {}
        }
        out.extend(self.logprobs_file.iter().cloned());
        out
    }
}

/// `[intervals]`: sacreBLEU's bootstrap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeqIntervals {
    pub level: f64,
    pub replicates: usize,
    pub seed: u32,
}

/// Reads and validates the experiment file; every named file must exist
/// (relative to the config's folder, then the current folder).
pub fn load(path: &Path) -> Result<SequenceConfig> {
    let text = super::value::read_experiment(path)?;
    let raw = super::parse(&text, super::ConfigKind::Toml, path)?;
    let mut cfg = parse(&text, path)?;
    let dir = folder(path);
    let find = |key: &str, p: &Path| -> Result<PathBuf> {
        resolve_file(key, &p.to_string_lossy(), "file", dir)
            .map_err(|m| anyhow!("{}: {m}", raw.at(key)))
    };
    cfg.source = match cfg.source {
        Source::Table {
            file,
            id_column,
            reference_columns,
            system_columns,
            subgroups,
        } => Source::Table {
            file: find("predictions_file", &file)?,
            id_column,
            reference_columns,
            system_columns,
            subgroups,
        },
        Source::TextFiles {
            references,
            systems,
        } => Source::TextFiles {
            references: references
                .iter()
                .map(|p| find("references", p))
                .collect::<Result<_>>()?,
            systems: systems
                .into_iter()
                .map(|(n, p)| find("systems", &p).map(|f| (n, f)))
                .collect::<Result<_>>()?,
        },
        Source::None => Source::None,
    };
    if let Some(p) = cfg.logprobs_file.take() {
        cfg.logprobs_file = Some(find("logprobs_file", &p)?);
    }
    Ok(cfg)
}

/// Validates the text of a `sequence` experiment file (TOML).
pub fn parse(text: &str, path: &Path) -> Result<SequenceConfig> {
    super::common::parse_toml(text, path, &OWN_KEYS, &RULES, |raw, common| {
        values(raw, common, path)
    })
}

fn unknown(table: &'static str, key: &str, allowed: &[&str]) -> Bad {
    let hint = super::closest(key, allowed.iter().copied()).map_or_else(
        || format!(" (the keys are {})", allowed.join(", ")),
        |k| format!("; did you mean {k}?"),
    );
    (table, format!("unknown key {key} in [{table}]{hint}"))
}

/// The table under `key` (absent: empty), its keys checked.
fn table<'a>(
    raw: &'a RawConfig,
    key: &'static str,
    allowed: &[&str],
) -> Result<Map<String, Value>, Bad> {
    match raw.get(key) {
        None => Ok(Map::new()),
        Some(Value::Object(m)) => {
            if let Some(k) = m.keys().find(|k| !allowed.contains(&k.as_str())) {
                return Err(unknown(key, k, allowed));
            }
            let _: &'a RawConfig = raw;
            Ok(m.clone())
        }
        Some(other) => Err((
            key,
            format!("[{key}] must be a table, but it is {}", describe(other)),
        )),
    }
}

fn flag(
    t: &Map<String, Value>,
    table: &'static str,
    key: &str,
    default: bool,
) -> Result<bool, Bad> {
    match t.get(key) {
        None => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err((
            table,
            format!(
                "{table}.{key} must be true or false, but it is {}",
                describe(other)
            ),
        )),
    }
}

fn number(t: &Map<String, Value>, table: &'static str, key: &str) -> Result<Option<f64>, Bad> {
    match t.get(key) {
        None => Ok(None),
        Some(Value::Number(n)) => Ok(n.as_f64()),
        Some(other) => Err((
            table,
            format!(
                "{table}.{key} must be a number, but it is {}",
                describe(other)
            ),
        )),
    }
}

fn whole(t: &Map<String, Value>, table: &'static str, key: &str, default: u64) -> Result<u64, Bad> {
    match t.get(key) {
        None => Ok(default),
        Some(Value::Number(n)) if n.as_u64().is_some() => Ok(n.as_u64().unwrap_or(default)),
        Some(other) => Err((
            table,
            format!(
                "{table}.{key} must be a whole number >= 0, but it is {}",
                describe(other)
            ),
        )),
    }
}

fn word<'t>(
    t: &'t Map<String, Value>,
    table: &'static str,
    key: &str,
) -> Result<Option<&'t str>, Bad> {
    match t.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.as_str())),
        Some(other) => Err((
            table,
            format!(
                "{table}.{key} must be a text, but it is {}",
                describe(other)
            ),
        )),
    }
}

fn choice<T>(
    given: &str,
    table: &'static str,
    key: &str,
    names: &[&str],
    find: impl Fn(&str) -> Option<T>,
) -> Result<T, Bad> {
    find(given).ok_or_else(|| {
        let hint = super::closest(given, names.iter().copied())
            .map_or_else(String::new, |k| format!("; did you mean \"{k}\"?"));
        (
            table,
            format!(
                "{table}.{key} must be one of {}, but it is \"{given}\"{hint}",
                names
                    .iter()
                    .map(|n| format!("\"{n}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    })
}

fn bleu(raw: &RawConfig) -> Result<BleuOptions, Bad> {
    const K: [&str; 6] = [
        "tokenize",
        "smooth_method",
        "smooth_value",
        "lowercase",
        "effective_order",
        "max_ngram_order",
    ];
    let t = table(raw, "bleu", &K)?;
    let tokenizer = match word(&t, "bleu", "tokenize")? {
        None => Tokenizer::Tok13a,
        Some(s) => choice(
            s,
            "bleu",
            "tokenize",
            &Tokenizer::NAMES,
            Tokenizer::from_name,
        )?,
    };
    let smooth = match word(&t, "bleu", "smooth_method")? {
        None => Smooth::Exp,
        Some(s) => choice(
            s,
            "bleu",
            "smooth_method",
            &Smooth::NAMES,
            Smooth::from_name,
        )?,
    };
    let max_order = whole(&t, "bleu", "max_ngram_order", 4)? as usize;
    if max_order == 0 {
        return Err(("bleu", "bleu.max_ngram_order must be at least 1".into()));
    }
    Ok(BleuOptions {
        tokenizer,
        smooth,
        smooth_value: number(&t, "bleu", "smooth_value")?,
        lowercase: flag(&t, "bleu", "lowercase", false)?,
        effective_order: flag(&t, "bleu", "effective_order", false)?,
        max_order,
    })
}

fn chrf(raw: &RawConfig) -> Result<ChrfOptions, Bad> {
    const K: [&str; 6] = [
        "char_order",
        "word_order",
        "beta",
        "lowercase",
        "whitespace",
        "eps_smoothing",
    ];
    let t = table(raw, "chrf", &K)?;
    let o = ChrfOptions {
        char_order: whole(&t, "chrf", "char_order", 6)? as usize,
        word_order: whole(&t, "chrf", "word_order", 0)? as usize,
        beta: whole(&t, "chrf", "beta", 2)? as u32,
        lowercase: flag(&t, "chrf", "lowercase", false)?,
        whitespace: flag(&t, "chrf", "whitespace", false)?,
        eps_smoothing: flag(&t, "chrf", "eps_smoothing", false)?,
    };
    if o.char_order < 1 || o.word_order > 2 || o.beta < 1 {
        return Err((
            "chrf",
            "chrf needs char_order >= 1, word_order <= 2 and beta >= 1 (sacreBLEU's limits)".into(),
        ));
    }
    Ok(o)
}

fn ter(raw: &RawConfig) -> Result<TerOptions, Bad> {
    const K: [&str; 4] = ["normalized", "no_punct", "asian_support", "case_sensitive"];
    let t = table(raw, "ter", &K)?;
    Ok(TerOptions {
        normalized: flag(&t, "ter", "normalized", false)?,
        no_punct: flag(&t, "ter", "no_punct", false)?,
        asian_support: flag(&t, "ter", "asian_support", false)?,
        case_sensitive: flag(&t, "ter", "case_sensitive", false)?,
    })
}

/// The `[wer]` keys (sequence.md 8.1).
const WER_KEYS: [&str; 3] = ["transform", "reference_transform", "hypothesis_transform"];

/// `[wer]`: `transform` (both sides), `reference_transform` and
/// `hypothesis_transform` (one side each, replacing `transform` there);
/// each `"default"`, `"standardize"` or a list of jiwer steps. Every key
/// given is validated, also a `transform` both sides replace.
fn wer(raw: &RawConfig) -> Result<WerTransforms, Bad> {
    let t = table(raw, "wer", &WER_KEYS)?;
    let side = |key: &str| -> Result<Option<WordTransform>, Bad> {
        t.get(key)
            .map(|v| {
                WordTransform::from_spec(&format!("wer.{key}"), &spec_value(v))
                    .map_err(|e| ("wer", e.to_string()))
            })
            .transpose()
    };
    let both = side("transform")?;
    let reference = side("reference_transform")?;
    let hypothesis = side("hypothesis_transform")?;
    Ok(WerTransforms {
        reference: reference.or_else(|| both.clone()).unwrap_or_default(),
        hypothesis: hypothesis.or(both).unwrap_or_default(),
    })
}

/// A configuration value as jiwer's pipeline reader takes it (tables in
/// file order: a `map`'s order is significant).
fn spec_value(v: &Value) -> SpecValue {
    match v {
        Value::String(s) => SpecValue::String(s.clone()),
        Value::Bool(b) => SpecValue::Bool(*b),
        Value::Array(items) => SpecValue::Array(items.iter().map(spec_value).collect()),
        Value::Object(m) => {
            SpecValue::Table(m.iter().map(|(k, v)| (k.clone(), spec_value(v))).collect())
        }
        Value::Number(n) if n.is_f64() => SpecValue::Other("float".into()),
        Value::Number(_) => SpecValue::Other("integer".into()),
        Value::Null => SpecValue::Other("null".into()),
    }
}

/// `[intervals]` as the common reader read it, for sacreBLEU's bootstrap:
/// at least 2 replicates and a seed below 2^32.
fn intervals(common: Option<Intervals>) -> Result<Option<SeqIntervals>, Bad> {
    let Some(i) = common else {
        return Ok(None);
    };
    if i.replicates < 2 {
        return Err((
            "intervals",
            "intervals.replicates must be at least 2".into(),
        ));
    }
    let seed = u32::try_from(i.seed).map_err(|_| {
        (
            "intervals",
            format!("intervals.seed must be below 2^32, but it is {}", i.seed),
        )
    })?;
    Ok(Some(SeqIntervals {
        level: i.level,
        replicates: i.replicates as usize,
        seed,
    }))
}

fn metrics(raw: &RawConfig) -> Result<Vec<String>, Bad> {
    let list =
        names(raw, "metrics")?.unwrap_or_else(|| vec!["bleu".into(), "chrf".into(), "wer".into()]);
    let mut out: Vec<String> = Vec::new();
    for m in list {
        let key = m.to_lowercase();
        if !METRICS.contains(&key.as_str()) {
            let hint = super::closest(&m, METRICS)
                .map_or_else(String::new, |k| format!("; did you mean \"{k}\"?"));
            return Err((
                "metrics",
                format!(
                    "unknown metric \"{m}\" in metrics (the metrics are {}){hint}",
                    METRICS.join(", ")
                ),
            ));
        }
        if !out.contains(&key) {
            out.push(key);
        }
    }
    // table order
    out.sort_by_key(|m| METRICS.iter().position(|k| k == m));
    Ok(out)
}

fn source(raw: &RawConfig, metrics: &[String], logprobs: bool) -> Result<Source, Bad> {
    let table_file = text(raw, "predictions_file")?;
    let references = names(raw, "references")?;
    match (table_file, references) {
        (Some(_), Some(_)) => Err((
            "references",
            "give either predictions_file (one table) or references with [systems] (text files), not both".into(),
        )),
        (Some(file), None) => {
            if raw.get("systems").is_some() {
                return Err(("systems", "[systems] goes with references (text files), not with predictions_file; name the table's columns in system_columns".into()));
            }
            let reference_columns = names(raw, "reference_columns")?.unwrap_or_default();
            if reference_columns.is_empty() {
                return Err(("reference_columns", "reference_columns is required with predictions_file (for example [\"ref\"])".into()));
            }
            let system_columns = names(raw, "system_columns")?.unwrap_or_default();
            if system_columns.is_empty() {
                return Err(("system_columns", "system_columns is required with predictions_file (for example [\"v1\", \"v2\"])".into()));
            }
            if let Some(s) = system_columns.iter().find(|s| reference_columns.contains(s)) {
                return Err(("system_columns", format!("system_columns names \"{s}\", which reference_columns names too; a column is a reference or a system, not both")));
            }
            Ok(Source::Table {
                file: PathBuf::from(file),
                id_column: text(raw, "id_column")?,
                reference_columns,
                system_columns,
                subgroups: names(raw, "subgroups")?.unwrap_or_default(),
            })
        }
        (None, Some(refs)) => {
            for k in ["reference_columns", "system_columns", "id_column", "subgroups"] {
                if raw.get(k).is_some() {
                    let key: &'static str = OWN_KEYS.iter().find(|x| **x == k).copied().unwrap_or("references");
                    return Err((key, format!("{k} goes with predictions_file (a table), not with references (text files)")));
                }
            }
            let systems = match raw.get("systems") {
                Some(Value::Object(m)) if !m.is_empty() => m
                    .iter()
                    .map(|(k, v)| match v {
                        Value::String(s) => Ok((k.clone(), PathBuf::from(s))),
                        other => Err(("systems", format!("systems.{k} must be a file name, but it is {}", describe(other)))),
                    })
                    .collect::<Result<Vec<_>, Bad>>()?,
                _ => return Err(("systems", "references needs a [systems] table (name = \"file\", in order)".into())),
            };
            if refs.is_empty() {
                return Err(("references", "references must name at least one file".into()));
            }
            Ok(Source::TextFiles {
                references: refs.into_iter().map(PathBuf::from).collect(),
                systems,
            })
        }
        (None, None) => {
            if logprobs && metrics.iter().all(|m| m == "perplexity") {
                Ok(Source::None)
            } else {
                Err((
                    "predictions_file",
                    "give predictions_file (one table) or references with [systems] (text files)".into(),
                ))
            }
        }
    }
}

fn values(raw: &RawConfig, common: Common, path: &Path) -> Result<SequenceConfig, Bad> {
    let metrics = metrics(raw)?;
    let logprobs_file = text(raw, "logprobs_file")?.map(PathBuf::from);
    if metrics.iter().any(|m| m == "perplexity") && logprobs_file.is_none() {
        return Err((
            "metrics",
            "metric \"perplexity\" needs logprobs_file (token log-probabilities, JSON lines)"
                .into(),
        ));
    }
    let source = source(raw, &metrics, logprobs_file.is_some())?;
    let baseline = text(raw, "baseline")?;
    if let Some(b) = &baseline {
        let systems: Vec<&str> = match &source {
            Source::Table { system_columns, .. } => {
                system_columns.iter().map(String::as_str).collect()
            }
            Source::TextFiles { systems, .. } => systems.iter().map(|(n, _)| n.as_str()).collect(),
            Source::None => Vec::new(),
        };
        if !systems.is_empty() && !systems.contains(&b.as_str()) {
            let hint = super::closest(b, systems.iter().copied())
                .map_or_else(String::new, |k| format!("; did you mean \"{k}\"?"));
            return Err((
                "baseline",
                format!(
                    "baseline \"{b}\" is not a system (the systems are {}){hint}",
                    systems.join(", ")
                ),
            ));
        }
    }
    let wer = wer(raw)?;
    let ar_trials = whole(
        &table(raw, "significance", &["ar_trials"])?,
        "significance",
        "ar_trials",
        0,
    )? as usize;
    let sentinel = match word(
        &table(raw, "perplexity", &["sentinel"])?,
        "perplexity",
        "sentinel",
    )? {
        None => Sentinel::Drop,
        Some(s) => choice(
            s,
            "perplexity",
            "sentinel",
            &["drop", "keep", "error"],
            |s| match s {
                "drop" => Some(Sentinel::Drop),
                "keep" => Some(Sentinel::Keep),
                "error" => Some(Sentinel::Error),
                _ => None,
            },
        )?,
    };
    Ok(SequenceConfig {
        experiment_id: common.experiment_id,
        description: common.description,
        model_version: common.model_version,
        source,
        logprobs_file,
        baseline,
        metrics,
        file_format: common.file_format,
        bleu: bleu(raw)?,
        chrf: chrf(raw)?,
        ter: ter(raw)?,
        wer,
        intervals: intervals(common.intervals)?,
        ar_trials,
        sentinel,
        margins: crate::margins::every(raw.get("margins"), &METRICS, default_margin)
            .map_err(|m| ("margins", m))?,
        origin: path.to_path_buf(),
        gates: common.gates,
        parsed_gates: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Result<SequenceConfig> {
        parse(text, Path::new("exp.toml"))
    }

    const BASE: &str = "experiment_id = \"x\"\npredictions_file = \"p.csv\"\nreference_columns = [\"ref\"]\nsystem_columns = [\"a\", \"b\"]\n";

    #[test]
    fn defaults_are_sacrebleus() {
        let c = p(BASE).unwrap();
        assert_eq!(c.metrics, ["bleu", "chrf", "wer"]);
        assert_eq!(
            c.intervals,
            Some(SeqIntervals {
                level: 0.95,
                replicates: 1000,
                seed: 12345
            })
        );
        assert_eq!(c.margin("ter"), 1.0);
        assert_eq!(c.margin("wer"), 0.01);
    }

    /// issue 50: the message names the key `system_columns`.
    #[test]
    fn a_system_column_that_is_a_reference_column_names_the_key() {
        let e = p("experiment_id = \"x\"\npredictions_file = \"p.csv\"\nreference_columns = [\"ref\"]\nsystem_columns = [\"v1\", \"ref\"]\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "exp.toml, line 4: system_columns names \"ref\", which reference_columns names too; a column is a reference or a system, not both"
        );
    }

    #[test]
    fn bad_keys_and_values_name_the_key() {
        let e = |extra: &str| p(&format!("{BASE}{extra}")).unwrap_err().to_string();
        assert!(e("[bleu]\ntokenise = \"13a\"\n").contains("did you mean tokenize?"));
        assert!(e("[bleu]\ntokenize = \"13b\"\n").contains("did you mean \"13a\"?"));
        assert!(e("metrics = [\"bleu\", \"chrff\"]\n").contains("did you mean \"chrf\"?"));
        assert!(e("baseline = \"c\"\n").contains("baseline \"c\" is not a system"));
        assert!(e("[intervals]\nlevel = 1.5\n").contains("intervals.level"));
        assert!(e("[margins]\nbleu = -1\n").contains("margins.bleu"));
        assert!(e("metrics = [\"perplexity\"]\n").contains("needs logprobs_file"));
        assert!(e("references = [\"r.txt\"]\n").contains("not both"));
        assert!(e("[wer]\ntransform = \"x\"\n").contains("wer.transform"));
        assert!(e("[chrf]\nsmooth = 1\n").contains("unknown key smooth in [chrf]"));
        assert!(e("gates = 3\n").contains("array of [[gates]] tables"));
    }

    /// `[wer]`'s sides (sequence.md 8.1): `transform` for both, a side's
    /// own key replacing it there, `"default"` when nothing is given.
    #[test]
    fn wer_transforms_per_side() {
        use rsmreport_metrics::sequence::wer::WerTransform;
        let c = p(BASE).unwrap();
        assert_eq!(c.wer, WerTransforms::default());
        let c = p(&format!(
            "{BASE}[wer]\ntransform = \"standardize\"\n\
             hypothesis_transform = [\"to_lower_case\", {{ step = \"substitute_words\", map = {{ b = \"c\", a = \"b\" }} }}, \"reduce_to_list_of_list_of_words\"]\n"
        ))
        .unwrap();
        assert_eq!(c.wer.reference.named(), Some(WerTransform::Standardize));
        // the map in file order: b -> c first, then a -> b
        let h = &c.wer.hypothesis;
        assert_eq!(h.segment_tokens("A b").unwrap(), ["b", "c"]);
        let c = p(&format!(
            "{BASE}[wer]\nreference_transform = [\"remove_empty_strings\", \"reduce_to_list_of_list_of_chars\"]\n"
        ))
        .unwrap();
        assert_eq!(c.wer.hypothesis, Default::default());
        assert!(!c.wer.is_elementwise() && c.wer.counts_characters());
    }

    /// Every refused pipeline names the file, the line of `[wer]`, the key,
    /// the step and the closest valid name (exit 2 before any data).
    #[test]
    fn bad_pipelines_name_the_key_step_and_closest_name() {
        let e = |wer: &str| p(&format!("{BASE}[wer]\n{wer}\n")).unwrap_err().to_string();
        assert_eq!(
            e("transform = [\"remove_punctuations\", \"reduce_to_list_of_list_of_words\"]")
                .split(" (valid: ")
                .next()
                .unwrap(),
            "exp.toml, line 5: wer.transform, step 1 (remove_punctuations): unknown step \
             \"remove_punctuations\""
        );
        assert!(
            e("transform = [\"remove_punctuations\", \"reduce_to_list_of_list_of_words\"]")
                .ends_with("; did you mean \"remove_punctuation\"?")
        );
        assert!(e(
            "hypothesis_transform = [{ step = \"remove_white_space\", replace_by_spaces = true }, \"reduce_to_list_of_list_of_words\"]"
        )
        .ends_with(
            "wer.hypothesis_transform, step 1 (remove_white_space): unknown argument \
             \"replace_by_spaces\" (valid: replace_by_space); did you mean \"replace_by_space\"?"
        ));
        assert!(e(
            "reference_transform = [{ step = \"remove_specific_words\" }, \"reduce_to_list_of_list_of_words\"]"
        )
        .ends_with("wer.reference_transform, step 1 (remove_specific_words): missing argument \"words\""));
        assert!(e("transform = [\"strip\"]").contains(
            "wer.transform: no reduce_to_list_of_list_* step: a pipeline must end in exactly one"
        ));
        assert!(e(
            "transform = [{ step = \"substitute_regexes\", map = { '(?<=a+)b' = 'x' } }, \"reduce_to_list_of_list_of_words\"]"
        )
        .ends_with(
            "pattern \"(?<=a+)b\" does not compile (Python's re: look-behind requires \
             fixed-width pattern)"
        ));
        assert!(e("transform = 3").ends_with("or a list of jiwer steps, but it is an integer"));
        assert!(e("transforms = \"default\"")
            .ends_with("unknown key transforms in [wer]; did you mean transform?"));
        // a transform both sides replace is still checked
        assert!(e("transform = \"x\"\nreference_transform = \"default\"\nhypothesis_transform = \"default\"")
            .contains("wer.transform must be one of"));
    }
}
