//! Stage 1 (config): the experiment file of `rsmreport spans EXP`
//! (`spec/spans.md` 2): the input format (span table, Prodigy JSON lines,
//! CoNLL columns, BIO JSON lines) and its columns or keys, the annotators,
//! the reference and baseline, the overlap thresholds, the tag scheme and
//! repair mode, coverage, subgroups, `file_format`, `[intervals]`
//! (documents are the resampled units), `[margins]` and `[[gates]]`.
//! Unknown keys and values are refused with the file, the line and the
//! closest valid one, before any data is read (exit 2).
//!
//! Pure apart from [`load`] (which reads the experiment file and checks
//! that the input files exist): never reads data, writes nothing.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::Value;

use super::common::{Common, Rules};
use super::intervals::Intervals;
use super::value::{
    boolean, choice, folder, missing, names, number, resolve_file, text, KeyError as Bad,
};
use super::RawConfig;
use rsmreport_core::schema::FileFormat;
use rsmreport_metrics::spans::tags::Scheme;

/// The keys of a spans experiment file beyond the common ones
/// ([`super::common::KEYS`]; spec 2).
pub const OWN_KEYS: [&str; 30] = [
    "format",
    "input_file",
    "annotators",
    "reference",
    "baseline",
    "systems",
    "agreement_includes_reference",
    "min_overlap",
    "nervaluate_min_overlap_percentage",
    "subgroups",
    "document_column",
    "annotator_column",
    "start_column",
    "end_column",
    "label_column",
    "text_column",
    "end_inclusive",
    "documents_file",
    "document_text_column",
    "coverage",
    "text_key",
    "annotator_key",
    "document_key",
    "columns",
    "token_column",
    "scheme",
    "repair",
    "suffix",
    "unknown_tags",
    "margins",
];

/// How `spans` reads the common keys: documents are the resampled units.
const RULES: Rules = Rules::new("spans", "ner_round2", "documents");

/// The statistics compared between systems (spec 4.3); `f1` is per type.
pub const COMPARED_STATISTICS: [&str; 5] = [
    "micro_f1",
    "macro_f1",
    "micro_precision",
    "micro_recall",
    "f1",
];

/// The margin of a statistic not named in `[margins]`.
pub const DEFAULT_MARGIN: f64 = 0.01;

/// The input format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Prodigy,
    Conll,
    BioJsonl,
}

impl Format {
    /// Token input (C).
    pub fn tokens(self) -> bool {
        matches!(self, Format::Conll | Format::BioJsonl)
    }
}

/// What to do with an ill-formed tag sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repair {
    Begin,
    Discard,
    Error,
}

/// What to do with a tag of no known form (spec 10).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnknownTags {
    /// Stop the run (exit 1), naming the file, line and column.
    Error,
    /// Read it as seqeval does and count it (only with repair = "begin").
    Warn,
}

/// A validated spans experiment.
#[derive(Clone, Debug, PartialEq)]
pub struct SpansConfig {
    pub experiment_id: String,
    /// Free text (Markdown) shown at the top of the report; empty when
    /// absent.
    pub description: String,
    /// The label under which the report is archived.
    pub model_version: Option<String>,
    pub format: Format,
    pub input_file: PathBuf,
    /// Configured annotators (order and full set); token input: the tag
    /// columns.
    pub annotators: Option<Vec<String>>,
    pub reference: Option<String>,
    pub baseline: Option<String>,
    /// The annotators that are systems under test (spec 1, roles); empty
    /// when `systems` is absent (every annotator in every table, as
    /// before).
    pub systems: Vec<String>,
    /// With `systems`: the reference joins the human annotators in the
    /// agreement tables.
    pub agreement_includes_reference: bool,
    pub min_overlap: Option<f64>,
    pub nervaluate_min_overlap_percentage: f64,
    pub subgroups: Vec<String>,
    pub document_column: String,
    pub annotator_column: String,
    pub start_column: String,
    pub end_column: String,
    pub label_column: String,
    pub text_column: Option<String>,
    pub end_inclusive: bool,
    pub documents_file: Option<PathBuf>,
    pub document_text_column: Option<String>,
    /// `coverage = "all"`.
    pub coverage_all: bool,
    pub text_key: String,
    pub annotator_key: Option<String>,
    pub document_key: Option<String>,
    pub columns: Vec<String>,
    pub token_column: Option<String>,
    pub scheme: Scheme,
    pub repair: Repair,
    /// Tags written `TYPE-P` (seqeval's `suffix=True`).
    pub suffix: bool,
    pub unknown_tags: UnknownTags,
    pub file_format: FileFormat,
    pub intervals: Option<Intervals>,
    pub margins: Vec<(String, f64)>,
    pub gates: Option<Value>,
    /// The gates, parsed by the kind (`kinds::spans::load`) before any
    /// data is read.
    pub parsed_gates: Vec<super::gates::Gate>,
    /// The config file, for messages.
    pub origin: PathBuf,
}

impl SpansConfig {
    /// The margin of a compared statistic.
    pub fn margin(&self, statistic: &str) -> f64 {
        self.margins
            .iter()
            .find(|(s, _)| s == statistic)
            .map_or(DEFAULT_MARGIN, |m| m.1)
    }
}

/// Reads and validates the experiment file at `path`; the input files
/// must exist (relative to the config's folder, then the current folder).
pub fn load(path: &Path) -> Result<SpansConfig> {
    let text = super::value::read_experiment(path)?;
    parse(&text, path)
}

/// Validates the text of a spans experiment file (TOML). Errors name the
/// file, the line and the key.
pub fn parse(text: &str, path: &Path) -> Result<SpansConfig> {
    super::common::parse_toml(text, path, &OWN_KEYS, &RULES, |raw, common| {
        values(raw, common, path)
    })
}

/// `format`, `scheme`, `repair` and `coverage` (all: true).
fn reading(raw: &RawConfig) -> Result<(Format, Scheme, Repair, bool), Bad> {
    let format = match choice(
        raw,
        "format",
        &["table", "prodigy", "conll", "bio_jsonl"],
        "table",
    )?
    .as_str()
    {
        "table" => Format::Table,
        "prodigy" => Format::Prodigy,
        "conll" => Format::Conll,
        _ => Format::BioJsonl,
    };
    let names = Scheme::ALL.map(Scheme::name);
    let scheme = choice(raw, "scheme", &names, "bio")?;
    let scheme = Scheme::ALL
        .into_iter()
        .find(|s| s.name() == scheme)
        .expect("a scheme's name");
    let repair = match choice(raw, "repair", &["begin", "discard", "error"], "begin")?.as_str() {
        "begin" => Repair::Begin,
        "discard" => Repair::Discard,
        _ => Repair::Error,
    };
    let coverage_all = raw.get("coverage").is_some()
        && choice(raw, "coverage", &["all", "rows"], "rows")? == "all";
    Ok((format, scheme, repair, coverage_all))
}

/// `min_overlap` in (0, 1] and `nervaluate_min_overlap_percentage` in
/// [1, 100] (default 1).
fn thresholds(raw: &RawConfig) -> Result<(Option<f64>, f64), Bad> {
    let min_overlap = number(raw, "min_overlap")?;
    if let Some(m) = min_overlap {
        if !(m > 0.0 && m <= 1.0) {
            return Err((
                "min_overlap",
                format!("min_overlap must be in (0, 1] (an IoU), but it is {m}"),
            ));
        }
    }
    let key = "nervaluate_min_overlap_percentage";
    let nv = number(raw, key)?.unwrap_or(1.0);
    if !(1.0..=100.0).contains(&nv) {
        return Err((key, format!("{key} must be in [1, 100], but it is {nv}")));
    }
    Ok((min_overlap, nv))
}

/// Who is who: `annotators` (at least two; required with token input),
/// `columns` (CoNLL), `reference` and `baseline` (among the annotators
/// when they are listed; a baseline needs a reference and is not it),
/// `systems` and `agreement_includes_reference` ([`roles`]).
struct Who {
    annotators: Option<Vec<String>>,
    columns: Vec<String>,
    reference: Option<String>,
    baseline: Option<String>,
    systems: Vec<String>,
    agreement_includes_reference: bool,
}

/// `"{key} \"{v}\" is not among the annotators (...); did you mean ...?"`.
fn not_listed(key: &'static str, v: &str, listed: &[String]) -> Bad {
    not_in(key, v, listed, "among the annotators")
}

/// `"{key} \"{v}\" is not {what} (...); did you mean ...?"`.
fn not_in(key: &'static str, v: &str, listed: &[String], what: &str) -> Bad {
    let hint = super::closest(v, listed.iter().map(String::as_str))
        .map_or_else(String::new, |c| format!("; did you mean \"{c}\"?"));
    (
        key,
        format!("{key} \"{v}\" is not {what} ({}){hint}", listed.join(", ")),
    )
}

/// `systems` (spec 1, roles amended): each an annotator (when they are
/// listed; `names` refuses a name given twice), not the reference, and a reference to score them
/// against; a `baseline` is then one of them. `agreement_includes_reference`
/// only means something with `systems` (without them the reference is in
/// the agreement tables already), so it is refused without them.
fn roles(
    raw: &RawConfig,
    annotators: Option<&[String]>,
    reference: Option<&String>,
    baseline: Option<&String>,
) -> Result<(Vec<String>, bool), Bad> {
    let systems = names(raw, "systems")?;
    let includes = boolean(raw, "agreement_includes_reference")?;
    let Some(systems) = systems else {
        if includes.is_some() {
            return Err((
                "agreement_includes_reference",
                "agreement_includes_reference only applies with `systems` (without them the \
                 agreement tables cover every annotator, the reference included); name the \
                 systems under test or remove the key"
                    .into(),
            ));
        }
        return Ok((Vec::new(), false));
    };
    if systems.is_empty() {
        return Err(("systems", "systems must name at least one annotator".into()));
    }
    let Some(reference) = reference else {
        return Err((
            "systems",
            "systems needs a reference (the gold annotator every system is scored against)".into(),
        ));
    };
    for v in &systems {
        if let Some(listed) = annotators.filter(|l| !l.contains(v)) {
            return Err(not_listed("systems", v, listed));
        }
        if v == reference {
            return Err((
                "systems",
                format!(
                    "systems names the reference \"{v}\"; the reference is not a system under test"
                ),
            ));
        }
    }
    if let Some(b) = baseline.filter(|b| !systems.contains(b)) {
        return Err(not_in("baseline", b, &systems, "one of the systems"));
    }
    Ok((systems, includes.unwrap_or(false)))
}

fn who(raw: &RawConfig, format: Format) -> Result<Who, Bad> {
    let annotators = names(raw, "annotators")?;
    if let Some(a) = annotators.as_ref().filter(|a| a.len() < 2) {
        return Err((
            "annotators",
            format!(
                "annotators must name at least two annotators, but it names {}",
                a.len()
            ),
        ));
    }
    let columns = names(raw, "columns")?.unwrap_or_default();
    if format == Format::Conll && columns.is_empty() {
        return Err(missing("columns", "[\"token\", \"gold\", \"system\"]"));
    }
    if format.tokens() && annotators.is_none() {
        return Err(missing("annotators", "[\"gold\", \"system\"]"));
    }
    let reference = text(raw, "reference")?;
    let baseline = text(raw, "baseline")?;
    let listed = annotators.as_deref().unwrap_or_default();
    for (key, v) in [("reference", &reference), ("baseline", &baseline)] {
        match v {
            Some(v) if annotators.is_some() && !listed.contains(v) => {
                return Err(not_listed(key, v, listed));
            }
            _ => {}
        }
    }
    if baseline.is_some() && reference.is_none() {
        return Err((
            "baseline",
            "baseline needs a reference (the gold annotator)".into(),
        ));
    }
    if baseline.is_some() && baseline == reference {
        return Err((
            "baseline",
            "baseline is the reference; name a system".into(),
        ));
    }
    let (systems, agreement_includes_reference) = roles(
        raw,
        annotators.as_deref(),
        reference.as_ref(),
        baseline.as_ref(),
    )?;
    Ok(Who {
        annotators,
        columns,
        reference,
        baseline,
        systems,
        agreement_includes_reference,
    })
}

/// `input_file` (required) and `documents_file`, resolved from the
/// experiment file's folder.
fn files(raw: &RawConfig, path: &Path) -> Result<(PathBuf, Option<PathBuf>), Bad> {
    let input = text(raw, "input_file")?.ok_or_else(|| missing("input_file", "\"spans.csv\""))?;
    let input_file = resolve_file("input_file", &input, "input file", folder(path))
        .map_err(|m| ("input_file", m))?;
    let documents_file = match text(raw, "documents_file")? {
        None => None,
        Some(d) => Some(
            resolve_file("documents_file", &d, "documents file", folder(path))
                .map_err(|m| ("documents_file", m))?,
        ),
    };
    Ok((input_file, documents_file))
}

fn values(raw: &RawConfig, common: Common, path: &Path) -> Result<SpansConfig, Bad> {
    let (format, scheme, repair, coverage_all) = reading(raw)?;
    let unknown_tags = match choice(raw, "unknown_tags", &["error", "warn"], "error")?.as_str() {
        "warn" => UnknownTags::Warn,
        _ => UnknownTags::Error,
    };
    let (min_overlap, nv) = thresholds(raw)?;
    let w = who(raw, format)?;
    let (input_file, documents_file) = files(raw, path)?;
    let col = |key: &'static str, default: &str| -> Result<String, Bad> {
        Ok(text(raw, key)?.unwrap_or_else(|| default.to_string()))
    };
    Ok(SpansConfig {
        experiment_id: common.experiment_id,
        description: common.description,
        model_version: common.model_version,
        format,
        input_file,
        annotators: w.annotators,
        reference: w.reference,
        baseline: w.baseline,
        systems: w.systems,
        agreement_includes_reference: w.agreement_includes_reference,
        min_overlap,
        nervaluate_min_overlap_percentage: nv,
        subgroups: names(raw, "subgroups")?.unwrap_or_default(),
        document_column: col("document_column", "document")?,
        annotator_column: col("annotator_column", "annotator")?,
        start_column: col("start_column", "start")?,
        end_column: col("end_column", "end")?,
        label_column: col("label_column", "label")?,
        text_column: text(raw, "text_column")?,
        end_inclusive: boolean(raw, "end_inclusive")?.unwrap_or(false),
        documents_file,
        document_text_column: text(raw, "document_text_column")?,
        coverage_all,
        text_key: col("text_key", "text")?,
        annotator_key: text(raw, "annotator_key")?,
        document_key: text(raw, "document_key")?,
        columns: w.columns,
        token_column: text(raw, "token_column")?,
        scheme,
        repair,
        suffix: boolean(raw, "suffix")?.unwrap_or(false),
        unknown_tags,
        file_format: common.file_format,
        intervals: common.intervals,
        margins: crate::margins::every(raw.get("margins"), &COMPARED_STATISTICS, |_| {
            DEFAULT_MARGIN
        })
        .map_err(|m| ("margins", m))?,
        gates: common.gates,
        parsed_gates: Vec::new(),
        origin: path.to_path_buf(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(extra: &str) -> Result<SpansConfig> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("s.csv"), "document\n").unwrap();
        let text = format!("experiment_id = \"e\"\ninput_file = \"s.csv\"\n{extra}");
        parse(&text, &dir.path().join("exp.toml"))
    }

    /// The message after the experiment file's path (`line 3: ...`).
    fn after_path(extra: &str) -> String {
        let e = err(extra);
        e[e.find("exp.toml, ").expect("the path") + "exp.toml, ".len()..].to_string()
    }

    fn err(extra: &str) -> String {
        format!("{:#}", run(extra).unwrap_err())
    }

    #[test]
    fn defaults() {
        let c = run("").unwrap();
        assert_eq!(c.format, Format::Table);
        assert_eq!((c.scheme, c.repair), (Scheme::Bio, Repair::Begin));
        assert_eq!((c.suffix, c.unknown_tags), (false, UnknownTags::Error));
        let c = run("scheme = \"ioe2\"\nsuffix = true\nunknown_tags = \"warn\"\n").unwrap();
        assert_eq!(
            (c.scheme, c.suffix, c.unknown_tags),
            (Scheme::Ioe2, true, UnknownTags::Warn)
        );
        assert_eq!(c.nervaluate_min_overlap_percentage, 1.0);
        assert_eq!(c.margin("micro_f1"), DEFAULT_MARGIN);
        assert!(c.min_overlap.is_none());
    }

    #[test]
    fn bad_keys_and_values_are_refused_with_the_closest() {
        assert!(err("formatt = \"table\"\n").contains("format"));
        assert!(err("format = \"conl\"\n").contains("did you mean \"conll\""));
        assert!(err("scheme = \"bilu\"\n").contains("did you mean \"bilou\""));
        // issue 50, spec 10: the message lists every scheme.
        assert_eq!(
            after_path("\nscheme = \"ioe3\"\n"),
            "line 4: scheme must be one of \"bio\", \"iob1\", \"iobes\", \"bilou\", \"ioe1\", \"ioe2\", but it is \"ioe3\"; did you mean \"ioe1\"?"
        );
        assert_eq!(
            after_path("unknown_tags = \"warning\"\n"),
            "line 3: unknown_tags must be one of \"error\", \"warn\", but it is \"warning\"; did you mean \"warn\"?"
        );
        assert_eq!(
            after_path("suffix = 1\n"),
            "line 3: suffix only accepts true or false, but it is the number 1"
        );
        assert!(err("repair = \"discards\"\n").contains("did you mean \"discard\""));
        assert!(err("coverage = \"al\"\n").contains("did you mean \"all\""));
        assert!(err("min_overlap = 0\n").contains("(0, 1]"));
        assert!(err("min_overlap = 1.5\n").contains("(0, 1]"));
        assert!(err("nervaluate_min_overlap_percentage = 0.5\n").contains("[1, 100]"));
        assert!(err("annotators = [\"a\"]\n").contains("at least two"));
        let e = err("annotators = [\"gold\", \"sys\"]\nreference = \"gld\"\n");
        assert!(e.contains("did you mean \"gold\""), "{e}");
        let e = err("annotators = [\"gold\", \"sys\"]\nreference = \"gold\"\nbaseline = \"sy\"\n");
        assert!(e.contains("did you mean \"sys\""), "{e}");
    }

    /// `systems` and `agreement_includes_reference` (spec 1, roles).
    #[test]
    fn roles() {
        let who = "annotators = [\"a\", \"b\", \"gold\", \"s1\", \"s2\"]\nreference = \"gold\"\n";
        let c = run(who).unwrap();
        assert!(c.systems.is_empty() && !c.agreement_includes_reference);
        let c = run(&format!(
            "{who}systems = [\"s2\", \"s1\"]\nagreement_includes_reference = true\n"
        ))
        .unwrap();
        assert_eq!(c.systems, ["s2", "s1"]);
        assert!(c.agreement_includes_reference);
        let e = err(&format!("{who}systems = [\"s3\"]\n"));
        assert!(
            e.contains("not among the annotators") && e.contains("did you mean \"s"),
            "{e}"
        );
        let e = err(&format!("{who}systems = [\"gold\"]\n"));
        assert!(e.contains("not a system under test"), "{e}");
        let e = err(&format!("{who}agreement_includes_reference = false\n"));
        assert!(e.contains("only applies with `systems`"), "{e}");
        let e = err(&format!("{who}systems = [\"s1\"]\nbaseline = \"a\"\n"));
        assert!(e.contains("not one of the systems (s1)"), "{e}");
        let e = err("systems = [\"s1\"]\n");
        assert!(e.contains("needs a reference"), "{e}");
        let e = err(&format!("{who}systems = []\n"));
        assert!(e.contains("at least one"), "{e}");
    }
}
