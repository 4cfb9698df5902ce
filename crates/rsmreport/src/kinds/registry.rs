//! The kind table: every report kind declared once ([`KINDS`]), with its
//! name, its one-line help, how its experiment file is recognised, which
//! input tables may be given as data, and how it is loaded, run and
//! checked. The command line's subcommands of experiment-file kinds, its
//! `check` (which kind a file is; "this looks like a `classify`
//! experiment" when a command is given another kind's file) and the
//! Python module's functions are all made from this table, so adding a
//! kind means its folder under `kinds/` and one entry here.
//!
//! Kinds with arguments of their own (`compare`, `summarize`: folders,
//! not an experiment file) have an entry too ([`Runner::Own`]); the
//! command line and the Python module define their arguments by hand.
//!
//! Reads only the experiment file (to recognise its kind); computes and
//! writes nothing itself.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};

use super::check::{interval_words, Checking, Plan, Planned};
use super::common::versions::Pair;
use super::{
    agree, classify, evaluation, predict, preferences, run, sequence, spans, train, Destination,
    Kind, Outcome, Report, Request,
};
use rsmreport_config::intervals::Intervals;
use rsmreport_core::error;

/// One report kind.
#[derive(Debug)]
pub struct KindEntry {
    /// Its name: the subcommand, the Python function, the name in hints.
    pub name: &'static str,
    /// One line (no final period) for `--help` and the Python docstring.
    pub about: &'static str,
    /// What its experiment file is (the help of the command's argument).
    pub experiment: &'static str,
    /// Top-level keys that tell this kind's file (a key may tell two
    /// kinds, as `system_columns`: the kind with more of its keys wins):
    /// how `check` and a wrong command's hint recognise it.
    pub signature: &'static [&'static str],
    /// The input tables that may be given as data (the Python module),
    /// each with the key of the experiment file whose file it replaces.
    pub tables: &'static [InputTable],
    /// Whether `--gates FILE` adds the gates of a separate file.
    pub gates_file: bool,
    /// Whether its experiment may be an rsmeval `.json` configuration
    /// (else TOML only).
    pub json: bool,
    /// How it runs.
    pub runner: Runner,
    /// How its archived folders take part in the version workflow
    /// (`compare`), when they do; `build`'s are read by `compare` itself.
    pub versions: Option<Versions>,
}

/// A kind's part of the version workflow (issue 49): it compares two of
/// its archived folders with its own code.
#[derive(Debug)]
pub struct Versions {
    /// `rsmreport compare BASELINE CANDIDATE` of two folders of the kind.
    pub compare: fn(&Pair) -> Result<Box<dyn Report>>,
}

/// The version workflow of the kind named `kind`, if it has one.
pub fn versions_of(kind: &str) -> Option<&'static Versions> {
    KINDS
        .iter()
        .find(|k| k.name == kind)
        .and_then(|k| k.versions.as_ref())
}

/// The kinds whose folders `compare` takes, as a sentence's list.
pub fn comparable_kinds() -> String {
    let names: Vec<&str> = KINDS
        .iter()
        .filter(|k| k.versions.is_some() || k.name == "build")
        .map(|k| k.name)
        .collect();
    names.join(", ")
}

/// An input table that may be given as data.
#[derive(Debug)]
pub struct InputTable {
    /// Its name (`predictions`, the Python keyword argument).
    pub role: &'static str,
    /// The key of the experiment file it replaces (`predictions_file`).
    pub key: &'static str,
}

/// How a kind runs.
#[derive(Debug)]
pub enum Runner {
    /// `rsmreport <name> EXP`: one experiment file ([`Options`]), run into
    /// a destination or checked (computed, nothing written).
    Experiment {
        run: fn(&Options, Destination) -> Result<Outcome>,
        check: fn(&Options) -> Result<Outcome>,
    },
    /// Arguments of its own (archived folders), defined by the command
    /// line and the Python module.
    Own,
}

/// What an experiment-file kind is asked to run.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The experiment file.
    pub experiment: PathBuf,
    /// `--gates FILE` (only for a kind with [`KindEntry::gates_file`]).
    pub gates: Option<PathBuf>,
    /// Input tables given as data (the Python module): `(role, path)`,
    /// replacing the file the experiment names; the path is a table's
    /// name in `rsmreport_core::in_memory` (read in place of a file) or a
    /// file.
    pub tables: Vec<(String, PathBuf)>,
}

impl Options {
    /// The options of `rsmreport <kind> EXP`.
    pub fn file(experiment: &Path) -> Options {
        Options {
            experiment: experiment.to_path_buf(),
            ..Options::default()
        }
    }

    /// The path (in-memory name or file) of the input table `role` given
    /// as data, if any.
    pub fn table(&self, role: &str) -> Option<&Path> {
        self.tables
            .iter()
            .find(|(r, _)| r == role)
            .map(|(_, p)| p.as_path())
    }
}

const EXPERIMENT_TOML: &str = "The experiment file (`.toml`).";

/// Every report kind, in the order of the command line's help.
pub static KINDS: &[KindEntry] = &[
    KindEntry {
        name: "build",
        about: "Scores of an automated scoring engine against human scores, with the numbers of \
                RSMTool's rsmeval: every table, intervals, quality gates and the report",
        experiment: "The experiment definition (`.toml`, or an rsmeval `.json` config).",
        // Not `human_score_column` or `second_human_score_column`: a
        // predict file has them too, and they would outnumber its own keys.
        signature: &["system_score_column", "trim_min", "trim_max", "scale_with"],
        tables: &[
            InputTable {
                role: "predictions",
                key: "predictions_file",
            },
            InputTable {
                role: "scale",
                key: "scale_with",
            },
        ],
        gates_file: true,
        json: true,
        runner: experiment::<evaluation::Build>(),
        versions: None,
    },
    KindEntry {
        name: "classify",
        about: "Classifiers against gold labels: per-class and averaged metrics, curves, \
                calibration, intervals and paired verdicts against a baseline",
        experiment: EXPERIMENT_TOML,
        signature: &[
            "gold_column",
            "system_columns",
            "probability_pattern",
            "probability_columns",
            "positive_label",
        ],
        tables: &[InputTable {
            role: "predictions",
            key: "predictions_file",
        }],
        gates_file: false,
        json: false,
        runner: experiment::<classify::Classify>(),
        versions: Some(Versions {
            compare: classify::versions::compare,
        }),
    },
    KindEntry {
        name: "sequence",
        about: "Generated text against references: BLEU, chrF, TER (sacreBLEU), WER, CER \
                (jiwer), perplexity, sacreBLEU's paired bootstrap, intervals and verdicts \
                against a baseline",
        experiment: "The experiment file (`.toml`: predictions_file or references + [systems]).",
        signature: &[
            "reference_columns",
            "system_columns",
            "references",
            "systems",
            "logprobs_file",
            "metrics",
            "bleu",
            "chrf",
            "ter",
            "wer",
            "significance",
        ],
        tables: &[InputTable {
            role: "predictions",
            key: "predictions_file",
        }],
        gates_file: false,
        json: false,
        runner: experiment::<sequence::Sequence>(),
        versions: Some(Versions {
            compare: sequence::versions::compare,
        }),
    },
    KindEntry {
        name: "spans",
        about: "Span annotations: agreement among annotators (pairwise F1 under four criteria) \
                and, against a reference, seqeval and nervaluate scores with intervals and \
                verdicts against a baseline",
        experiment: EXPERIMENT_TOML,
        signature: &[
            "input_file",
            "annotators",
            "min_overlap",
            "nervaluate_min_overlap_percentage",
            "start_column",
            "end_column",
            "documents_file",
            "scheme",
            "repair",
            "token_column",
        ],
        tables: &[
            InputTable {
                role: "spans",
                key: "input_file",
            },
            InputTable {
                role: "documents",
                key: "documents_file",
            },
        ],
        gates_file: false,
        json: false,
        runner: experiment::<spans::Spans>(),
        versions: Some(Versions {
            compare: spans::versions::compare,
        }),
    },
    KindEntry {
        name: "agree",
        about: "Agreement among raters of an annotation file (no system score): every \
                coefficient with its interval, pairs, categories, the classification view",
        experiment: EXPERIMENT_TOML,
        signature: &[
            "annotations_file",
            "rater_columns",
            "rater_column",
            "item_column",
            "category_columns",
            "interpretation",
        ],
        tables: &[InputTable {
            role: "annotations",
            key: "annotations_file",
        }],
        gates_file: false,
        json: false,
        runner: experiment::<agree::Agree>(),
        versions: Some(Versions {
            compare: agree::versions::compare,
        }),
    },
    KindEntry {
        name: "preferences",
        about: "Pairwise preference annotations audited against a reference annotator: how \
                strongly each annotator follows it (Feedback Forensics' metrics, seeded \
                intervals, a report)",
        experiment: "The experiment file (`.toml`: pairs_file, reference_column, \
                     annotator_columns, ...).",
        signature: &[
            "pairs_file",
            "text_a_column",
            "text_b_column",
            "annotator_columns",
            "model_a_column",
            "model_b_column",
        ],
        tables: &[InputTable {
            role: "pairs",
            key: "pairs_file",
        }],
        gates_file: false,
        json: false,
        runner: experiment::<preferences::Preferences>(),
        versions: Some(Versions {
            compare: preferences::versions::compare,
        }),
    },
    KindEntry {
        name: "train",
        about: "Train one of RSMTool's built-in linear models on a training file and evaluate \
                it on a test file (rsmtool's tables, model file and report)",
        experiment: "The training experiment (`.toml`, or an rsmtool `.json` config).",
        signature: &[
            "train_file",
            "test_file",
            "model",
            "features",
            "train_label_column",
            "test_label_column",
            "feature_subset_file",
            "select_transformations",
        ],
        tables: &[
            InputTable {
                role: "train",
                key: "train_file",
            },
            InputTable {
                role: "test",
                key: "test_file",
            },
        ],
        gates_file: false,
        json: true,
        runner: experiment::<train::Train>(),
        versions: None,
    },
    KindEntry {
        name: "predict",
        about: "Apply a trained model (of `train`, or an RSMTool built-in-model experiment) to \
                new responses: rsmpredict's predictions, ready for `build`",
        experiment: "The prediction experiment (`.toml`, or an rsmpredict `.json` config).",
        signature: &["experiment_dir", "input_features_file"],
        tables: &[InputTable {
            role: "features",
            key: "input_features_file",
        }],
        gates_file: false,
        json: true,
        runner: experiment::<predict::Predict>(),
        versions: None,
    },
    KindEntry {
        name: "compare",
        about: "Two archived output folders of one kind (build or RSMTool's rsmeval/rsmtool, \
                classify, sequence, spans, agree, preferences): paired differences with \
                intervals, p-values and verdicts",
        experiment: "A compare.toml (labels, score type, subgroups, [intervals], [margins]).",
        signature: &["baseline_label", "candidate_label", "comparison_id"],
        tables: &[],
        gates_file: true,
        json: false,
        runner: Runner::Own,
        versions: None,
    },
    KindEntry {
        name: "summarize",
        about: "Archived output folders of model versions: one row per version with intervals, \
                the difference of each from a baseline with its verdict, trend figures",
        experiment: "",
        signature: &[],
        tables: &[],
        gates_file: false,
        json: false,
        runner: Runner::Own,
        versions: None,
    },
];

/// The entry of kind `name`.
pub fn find(name: &str) -> Option<&'static KindEntry> {
    KINDS.iter().find(|k| k.name == name)
}

/// The kinds whose request is one experiment file, in table order.
pub fn experiment_kinds() -> impl Iterator<Item = &'static KindEntry> {
    KINDS
        .iter()
        .filter(|k| matches!(k.runner, Runner::Experiment { .. }))
}

impl KindEntry {
    /// Runs `options` into `destination` (an experiment-file kind).
    pub fn run(&self, options: &Options, destination: Destination) -> Result<Outcome> {
        match self.runner {
            Runner::Experiment { run, .. } => run(options, destination),
            Runner::Own => Err(self.not_a_file()),
        }
    }

    /// Checks `options` (computes, writes nothing).
    pub fn check(&self, options: &Options) -> Result<Outcome> {
        match self.runner {
            Runner::Experiment { check, .. } => check(options),
            Runner::Own => Err(self.not_a_file()),
        }
    }

    fn not_a_file(&self) -> anyhow::Error {
        error::config(anyhow!(
            "{} reads archived output folders, not an experiment file",
            self.name
        ))
    }

    /// Whether the top-level `keys` of a file have any of this kind's own.
    fn found<'k>(&self, keys: &'k [String]) -> Vec<&'k str> {
        keys.iter()
            .map(String::as_str)
            .filter(|k| self.signature.contains(k))
            .collect()
    }
}

/// A kind whose request is read from one experiment file.
pub trait FromExperiment: Kind {
    /// The kind that checks it: it computes what a run computes, writes
    /// nothing and gives an account of it.
    type Check: Kind<Config = Self::Config>;
    /// Reads and validates the experiment (configuration errors), with
    /// the input tables given as data in place of its files.
    fn load(options: &Options) -> Result<Self::Config>;
}

/// The runner of an experiment-file kind `K`.
const fn experiment<K: FromExperiment>() -> Runner {
    Runner::Experiment {
        run: run_experiment::<K>,
        check: check_experiment::<K>,
    }
}

/// Loads the experiment of `K` (its error preceded by a [`hint`] when the
/// file is another kind's) and runs it.
fn run_experiment<K: FromExperiment>(
    options: &Options,
    destination: Destination,
) -> Result<Outcome> {
    let config = with_hint(K::load(options), K::NAME, &options.experiment)?;
    run::<K>(Request {
        config,
        destination,
    })
}

/// [`run_experiment`] for `K`'s check, with nothing written.
fn check_experiment<K: FromExperiment>(options: &Options) -> Result<Outcome> {
    let config = with_hint(K::load(options), K::NAME, &options.experiment)?;
    run::<K::Check>(Request {
        config,
        destination: Destination::Nowhere,
    })
}

/// A configuration error: an input table given as data that the kind
/// does not read.
fn unused_tables(kind: &str, options: &Options, known: &[&str]) -> Result<()> {
    match options
        .tables
        .iter()
        .find(|(r, _)| !known.contains(&r.as_str()))
    {
        Some((role, _)) => Err(error::config(anyhow!("{kind} reads no {role} table"))),
        None => Ok(()),
    }
}

/// Refuses the input tables `K` does not read and `--gates` where the
/// kind takes no gates file.
fn refuse_unread<K: Kind>(options: &Options) -> Result<()> {
    let entry = find(K::NAME).expect("every kind has an entry");
    let roles: Vec<&str> = entry.tables.iter().map(|t| t.role).collect();
    unused_tables(K::NAME, options, &roles)?;
    if options.gates.is_some() && !entry.gates_file {
        return Err(error::config(anyhow!(
            "--gates adds gates to a build experiment; a {} experiment has its gates as \
             [[gates]] tables in its own file",
            K::NAME
        )));
    }
    Ok(())
}

impl FromExperiment for evaluation::Build {
    type Check = evaluation::Check;

    fn load(options: &Options) -> Result<evaluation::BuildConfig> {
        refuse_unread::<Self>(options)?;
        let mut cfg = evaluation::load(&options.experiment, options.gates.as_deref())?;
        if let Some(p) = options.table("predictions") {
            cfg.exp.predictions_file = p.to_path_buf();
        }
        if let Some(p) = options.table("scale") {
            match &mut cfg.exp.scale_with {
                rsmreport_config::ScaleWith::File(file) => *file = p.to_path_buf(),
                _ => {
                    return Err(error::config(anyhow!(
                        "scale= is a scale table, but the experiment's scale_with names no \
                         file; set scale_with to the file the table replaces"
                    )))
                }
            }
        }
        Ok(cfg)
    }
}

impl FromExperiment for classify::Classify {
    type Check = Checking<Self>;

    fn load(options: &Options) -> Result<classify::ClassifyRequest> {
        refuse_unread::<Self>(options)?;
        let mut request = classify::load(&options.experiment)?;
        if let Some(p) = options.table("predictions") {
            request.cfg.predictions_file = p.to_path_buf();
        }
        Ok(request)
    }
}

impl FromExperiment for sequence::Sequence {
    type Check = Checking<Self>;

    fn load(options: &Options) -> Result<rsmreport_config::sequence::SequenceConfig> {
        use rsmreport_config::sequence::Source;
        refuse_unread::<Self>(options)?;
        let mut cfg = sequence::load(&options.experiment)?;
        if let Some(p) = options.table("predictions") {
            match &mut cfg.source {
                Source::Table { file, .. } => *file = p.to_path_buf(),
                _ => {
                    return Err(error::config(anyhow!(
                        "predictions= is the segment table of predictions_file, but the \
                         experiment names no predictions_file (it reads text files or only \
                         log-probabilities); set predictions_file with reference_columns and \
                         system_columns"
                    )))
                }
            }
        }
        Ok(cfg)
    }
}

impl FromExperiment for spans::Spans {
    type Check = Checking<Self>;

    fn load(options: &Options) -> Result<rsmreport_config::spans::SpansConfig> {
        refuse_unread::<Self>(options)?;
        let mut cfg = spans::load(&options.experiment)?;
        if let Some(p) = options.table("spans") {
            if cfg.format != rsmreport_config::spans::Format::Table {
                return Err(error::config(anyhow!(
                    "spans= is a span table, but the experiment's format is not \"table\" (its \
                     input_file is JSON lines or CoNLL text, which is read from a file)"
                )));
            }
            cfg.input_file = p.to_path_buf();
        }
        if let Some(p) = options.table("documents") {
            cfg.documents_file = Some(p.to_path_buf());
        }
        Ok(cfg)
    }
}

impl FromExperiment for agree::Agree {
    type Check = Checking<Self>;

    fn load(options: &Options) -> Result<rsmreport_config::agree::AgreeConfig> {
        refuse_unread::<Self>(options)?;
        let mut cfg = agree::load(&options.experiment)?;
        if let Some(p) = options.table("annotations") {
            cfg.annotations_path = p.to_path_buf();
        }
        Ok(cfg)
    }
}

impl FromExperiment for preferences::Preferences {
    type Check = Checking<Self>;

    fn load(options: &Options) -> Result<rsmreport_config::preferences::PreferencesConfig> {
        refuse_unread::<Self>(options)?;
        let mut cfg = preferences::load(&options.experiment)?;
        if let Some(p) = options.table("pairs") {
            cfg.pairs_file = p.to_path_buf();
            cfg.pairs_files = vec![p.to_path_buf()];
        }
        Ok(cfg)
    }
}

impl FromExperiment for train::Train {
    type Check = Checking<Self>;

    fn load(options: &Options) -> Result<rsmreport_config::train::TrainConfig> {
        refuse_unread::<Self>(options)?;
        let mut cfg = train::load(&options.experiment)?;
        if let Some(p) = options.table("train") {
            cfg.train_file = p.to_path_buf();
        }
        if let Some(p) = options.table("test") {
            cfg.test_file = p.to_path_buf();
        }
        Ok(cfg)
    }
}

impl FromExperiment for predict::Predict {
    type Check = Checking<Self>;

    fn load(options: &Options) -> Result<rsmreport_config::predict::PredictConfig> {
        refuse_unread::<Self>(options)?;
        let mut cfg = predict::load(&options.experiment)?;
        if let Some(p) = options.table("features") {
            cfg.input_features_file = p.to_path_buf();
        }
        Ok(cfg)
    }
}

impl Planned for train::Train {
    fn plan(c: &rsmreport_config::train::TrainConfig) -> Plan {
        Plan {
            model_version: c.model_version.clone(),
            file_format: Some(c.file_format),
            computed: vec![
                ("model", c.model.name().to_string()),
                ("training file", c.train_file.display().to_string()),
                ("test file", c.test_file.display().to_string()),
                ("subgroups", listed(&c.subgroups, "none")),
            ],
            intervals: interval_words(c.intervals.as_ref(), "responses"),
        }
    }
}

impl Planned for predict::Predict {
    fn plan(c: &rsmreport_config::predict::PredictConfig) -> Plan {
        Plan {
            model_version: c.model_version.clone(),
            file_format: Some(c.file_format),
            computed: vec![
                ("model", c.experiment_dir.display().to_string()),
                ("responses", c.input_features_file.display().to_string()),
                ("subgroups", listed(&c.subgroups, "none")),
            ],
            intervals: "off".to_string(),
        }
    }
}

/// `a, b, c`, or `what` when `names` is empty.
fn listed(names: &[String], what: &str) -> String {
    if names.is_empty() {
        what.to_string()
    } else {
        names.join(", ")
    }
}

/// `names` with `(baseline b)` when there are several.
fn with_baseline(names: &[String], baseline: Option<&str>, what: &str) -> String {
    let text = listed(names, what);
    match baseline {
        Some(b) if names.len() > 1 || names.is_empty() => format!("{text} (baseline {b})"),
        _ => text,
    }
}

impl Planned for classify::Classify {
    fn plan(r: &classify::ClassifyRequest) -> Plan {
        let c = &r.cfg;
        let scores = match &c.scores {
            rsmreport_config::classify::ScoreColumns::None => "none (label metrics only)".into(),
            rsmreport_config::classify::ScoreColumns::Pattern(p) => format!("pattern {p}"),
            rsmreport_config::classify::ScoreColumns::Tables(t) => {
                let systems: Vec<String> = t.iter().map(|(s, _)| s.clone()).collect();
                format!("columns for {}", systems.join(", "))
            }
        };
        let betas: Vec<String> = c
            .beta
            .iter()
            .map(|b| rsmreport_config::classify::ClassifyConfig::f_name(*b))
            .collect();
        Plan {
            model_version: c.model_version.clone(),
            file_format: Some(c.file_format),
            computed: vec![
                (
                    "systems",
                    with_baseline(&c.system_columns, Some(&c.system_columns[c.baseline]), ""),
                ),
                ("gold labels", c.gold_column.clone()),
                (
                    "labels",
                    c.labels
                        .as_ref()
                        .map_or_else(|| "as found in the data".into(), |l| l.join(", ")),
                ),
                ("scores", scores),
                ("F-beta", betas.join(", ")),
                ("subgroups", listed(&c.subgroups, "none")),
            ],
            intervals: interval_words(c.intervals.as_ref(), "items"),
        }
    }
}

impl Planned for sequence::Sequence {
    fn plan(c: &rsmreport_config::sequence::SequenceConfig) -> Plan {
        use rsmreport_config::sequence::Source;
        let systems = c.system_names();
        let baseline = c.baseline.clone().or_else(|| systems.first().cloned());
        let (references, subgroups) = match &c.source {
            Source::Table {
                reference_columns,
                subgroups,
                ..
            } => (
                format!("columns {}", reference_columns.join(", ")),
                listed(subgroups, "none"),
            ),
            Source::TextFiles { references, .. } => {
                (format!("{} text files", references.len()), "none".into())
            }
            Source::None => ("none (log-probabilities only)".into(), "none".into()),
        };
        let intervals = c.intervals.map(|i| Intervals {
            level: i.level,
            replicates: i.replicates as u64,
            seed: u64::from(i.seed),
            unit: rsmreport_config::intervals::Unit::Response,
        });
        Plan {
            model_version: c.model_version.clone(),
            file_format: Some(c.file_format),
            computed: vec![
                (
                    "systems",
                    with_baseline(
                        &systems,
                        baseline.as_deref(),
                        "as named by the log-probabilities",
                    ),
                ),
                ("references", references),
                ("metrics", c.metrics.join(", ")),
                ("subgroups", subgroups),
            ],
            intervals: interval_words(intervals.as_ref(), "segments"),
        }
    }
}

impl Planned for spans::Spans {
    fn plan(c: &rsmreport_config::spans::SpansConfig) -> Plan {
        let annotators = c.annotators.clone().unwrap_or_default();
        let mut computed = vec![
            ("annotators", listed(&annotators, "as found in the data")),
            (
                "reference",
                c.reference
                    .clone()
                    .unwrap_or_else(|| "none (agreement only)".into()),
            ),
        ];
        // With `systems` (spec 1, roles): the systems under test, the
        // baseline (default the first), who the agreement tables compare.
        let baseline = match (&c.baseline, c.systems.first()) {
            (Some(b), _) => b.clone(),
            (None, Some(first)) => format!("{first} (the first system)"),
            (None, None) => "none".into(),
        };
        if !c.systems.is_empty() {
            computed.push(("systems", listed(&c.systems, "none")));
            computed.push((
                "agreement",
                if c.agreement_includes_reference {
                    "the human annotators and the reference".into()
                } else {
                    "the human annotators (neither the reference nor a system)".into()
                },
            ));
        }
        computed.push(("baseline", baseline));
        computed.push(("subgroups", listed(&c.subgroups, "none")));
        Plan {
            model_version: c.model_version.clone(),
            file_format: Some(c.file_format),
            computed,
            intervals: interval_words(c.intervals.as_ref(), "documents"),
        }
    }
}

impl Planned for agree::Agree {
    fn plan(c: &rsmreport_config::agree::AgreeConfig) -> Plan {
        use rsmreport_config::agree::Layout;
        let raters = match &c.layout {
            Layout::Wide { rater_columns } => rater_columns.join(", "),
            Layout::Long { rater_column, .. } => format!("the values of {rater_column}"),
            Layout::Counts { category_columns } => {
                format!("counts in {}", category_columns.join(", "))
            }
        };
        let categories: Vec<String> = c
            .categories
            .iter()
            .flatten()
            .map(|k| k.text.clone())
            .collect();
        Plan {
            model_version: c.model_version.clone(),
            file_format: Some(c.file_format),
            computed: vec![
                ("layout", c.layout.name().to_string()),
                ("raters", raters),
                ("level", c.level.name().to_string()),
                ("categories", listed(&categories, "as found in the data")),
                (
                    "reference",
                    c.reference_column.clone().unwrap_or_else(|| "none".into()),
                ),
                ("subgroups", listed(&c.subgroups, "none")),
            ],
            intervals: interval_words(c.intervals.as_ref(), "items"),
        }
    }
}

impl Planned for preferences::Preferences {
    fn plan(c: &rsmreport_config::preferences::PreferencesConfig) -> Plan {
        let subsets = c.subset_columns.clone().unwrap_or_default();
        Plan {
            model_version: c.model_version.clone(),
            file_format: Some(c.file_format),
            computed: vec![
                (
                    "reference",
                    c.reference_column
                        .clone()
                        .unwrap_or_else(|| "the default annotator of the pairs".into()),
                ),
                (
                    "annotators",
                    listed(&c.annotator_columns, "the other annotators of the pairs"),
                ),
                ("subsets", listed(&subsets, "none")),
                (
                    "models",
                    match (&c.model_a_column, &c.model_b_column) {
                        (Some(a), Some(b)) => format!("{a}, {b}"),
                        _ => "none".into(),
                    },
                ),
            ],
            intervals: interval_words(c.intervals.as_ref(), "pairs"),
        }
    }
}

/// The kind whose own keys ([`KindEntry::signature`]) the configuration
/// `text` has most of (the first in table order on a tie), with those
/// keys; `None` when it has none of any kind's.
pub fn recognise(text: &str) -> Option<(&'static KindEntry, Vec<String>)> {
    let keys = rsmreport_config::kind_hint::top_level_keys(text);
    let mut best: Option<(&'static KindEntry, Vec<String>)> = None;
    for entry in KINDS {
        let found: Vec<String> = entry.found(&keys).into_iter().map(String::from).collect();
        if found.len() > best.as_ref().map_or(0, |(_, f)| f.len()) {
            best = Some((entry, found));
        }
    }
    best
}

/// The hint for configuration `text` given to command `this` (a kind, or
/// `check --kind`): the other kind it looks like, when that kind's keys
/// outnumber `this` kind's in it ([`recognise`]), as "this looks like a
/// `classify` experiment (it has gold_column, system_columns), not a
/// `build` one: run `rsmreport classify <path>`".
pub fn hint(text: &str, this: &str, path: &Path) -> Option<String> {
    let keys = rsmreport_config::kind_hint::top_level_keys(text);
    let own = find(this).map_or(0, |e| e.found(&keys).len());
    let (kind, found) = recognise(text)?;
    if kind.name == this || found.len() <= own {
        return None;
    }
    let what = match kind.runner {
        Runner::Experiment { .. } => "experiment",
        Runner::Own => "comparison configuration",
    };
    Some(format!(
        "this looks like a `{}` {what} (it has {}), not {} `{this}` one: run `rsmreport {} {}`",
        kind.name,
        found.join(", "),
        if this.starts_with('a') { "an" } else { "a" },
        kind.name,
        path.display()
    ))
}

/// `result`, or its error preceded by the [`hint`] when the file at
/// `path` looks like another kind's configuration (the error keeps its
/// class).
pub fn with_hint<T>(result: Result<T>, this: &str, path: &Path) -> Result<T> {
    result.map_err(|e| {
        match rsmreport_core::in_memory::read_to_string(path)
            .ok()
            .and_then(|text| hint(&text, this, path))
        {
            Some(h) => e.context(h),
            None => e,
        }
    })
}

/// The kind of the experiment file at `path` for `rsmreport check`: the
/// kind named (`--kind`), else the one it looks like ([`recognise`]),
/// else `build` (whose messages then say what is missing). An unreadable
/// file is the kind's loader's to report.
pub fn kind_of(path: &Path, named: Option<&str>) -> Result<&'static KindEntry> {
    if let Some(name) = named {
        return experiment_kinds().find(|k| k.name == name).ok_or_else(|| {
            let names: Vec<&str> = experiment_kinds().map(|k| k.name).collect();
            error::config(anyhow!(
                "--kind {name}: check reads the experiment file of {}",
                names.join(", ")
            ))
        });
    }
    let recognised = rsmreport_core::in_memory::read_to_string(path)
        .ok()
        .and_then(|text| recognise(&text))
        .map(|(k, _)| k)
        .filter(|k| matches!(k.runner, Runner::Experiment { .. }));
    Ok(recognised.unwrap_or(&KINDS[0]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_kind_is_recognised_by_its_keys() {
        for (i, k) in KINDS.iter().enumerate() {
            assert!(KINDS[..i].iter().all(|o| o.name != k.name), "{}", k.name);
            assert!(!k.about.is_empty() && !k.about.ends_with('.'), "{}", k.name);
            if k.signature.is_empty() {
                continue;
            }
            // A file with every key of the kind's signature is the kind's.
            let text: String = k.signature.iter().map(|s| format!("{s} = 1\n")).collect();
            assert_eq!(recognise(&text).map(|(e, _)| e.name), Some(k.name));
        }
        assert_eq!(
            experiment_kinds().map(|k| k.name).collect::<Vec<_>>(),
            [
                "build",
                "classify",
                "sequence",
                "spans",
                "agree",
                "preferences",
                "train",
                "predict"
            ]
        );
        assert_eq!(KINDS[0].name, "build");
    }

    #[test]
    fn another_kinds_keys_name_that_kind() {
        let p = Path::new("exp.toml");
        let classify = "experiment_id = \"x\"\npredictions_file = \"p.csv\"\n\
                        gold_column = \"gold\"\nsystem_columns = [\"a\"]\n";
        assert_eq!(
            hint(classify, "build", p).unwrap(),
            "this looks like a `classify` experiment (it has gold_column, system_columns), not \
             a `build` one: run `rsmreport classify exp.toml`"
        );
        let build = "experiment_id = \"x\"\npredictions_file = \"p.csv\"\n\
                     system_score_column = \"s\"\ntrim_min = 1\ntrim_max = 6\n";
        assert!(hint(build, "classify", p).unwrap().starts_with(
            "this looks like a `build` experiment (it has system_score_column, trim_min, trim_max)"
        ));
        let json = r#"{"annotations_file": "a.csv", "rater_columns": ["r1", "r2"]}"#;
        assert!(hint(json, "preferences", p)
            .unwrap()
            .contains("`agree` experiment"));
        let sequence = "experiment_id = \"x\"\npredictions_file = \"o.csv\"\n\
                        reference_columns = [\"ref\"]\nsystem_columns = [\"a\"]\n";
        assert!(
            hint(sequence, "classify", p).unwrap().starts_with(
                "this looks like a `sequence` experiment (it has reference_columns, \
                 system_columns)"
            ),
            "{:?}",
            hint(sequence, "classify", p)
        );
        assert!(hint(classify, "sequence", p)
            .unwrap()
            .contains("`classify` experiment (it has gold_column, system_columns)"));
        let compare = "baseline_label = \"v1\"\ncandidate_label = \"v2\"\n";
        assert!(hint(compare, "build", p)
            .unwrap()
            .contains("`compare` comparison configuration"));
        // A file of the right kind with a typo, or of no known kind: no hint.
        let typo = "experiment_id = \"x\"\ngold_colum = \"g\"\nsystem_columns = [\"a\"]\n";
        assert_eq!(hint(typo, "classify", p), None);
        assert_eq!(hint("experiment_id = \"x\"\n", "build", p), None);
        assert_eq!(hint("not [toml", "build", p), None);
    }

    #[test]
    fn check_recognises_the_kind_of_a_file() {
        let dir = tempfile::TempDir::new().unwrap();
        let write = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        let seq = write(
            "seq.toml",
            "experiment_id = \"x\"\nreferences = [\"r.txt\"]\n[systems]\na = \"a.txt\"\n",
        );
        assert_eq!(kind_of(&seq, None).unwrap().name, "sequence");
        assert_eq!(kind_of(&seq, Some("classify")).unwrap().name, "classify");
        let plain = write("plain.toml", "experiment_id = \"x\"\n");
        assert_eq!(kind_of(&plain, None).unwrap().name, "build");
        assert_eq!(
            kind_of(&dir.path().join("missing.toml"), None)
                .unwrap()
                .name,
            "build"
        );
        let e = kind_of(&plain, Some("compare")).unwrap_err().to_string();
        assert!(
            e.contains("check reads the experiment file of build, classify"),
            "{e}"
        );
    }
}
