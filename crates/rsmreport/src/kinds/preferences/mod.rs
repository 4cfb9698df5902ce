//! Command assembly for `rsmreport preferences` (`spec/preferences.md`):
//! how strongly each annotator's pairwise preferences follow a reference
//! annotator, with Feedback Forensics' metrics, seeded intervals and a
//! self-contained report.
//!
//! * [`read`]: the pairs file (tables through `rsmreport_io::input`, AnnotatedPairs
//!   JSON with serde_json) as raw columns; duplicate ids are refused.
//! * [`run`]: every number, from the pure maths of
//!   `rsmreport_metrics::preferences` (whole set and each subset value).
//! * [`models`]: the model view of spec 6 (traits by model).
//! * [`tables`]: the tables and the summary's keys.
//! * [`versions`]: the version workflow (the units files a later
//!   `compare` reads, and `compare` of two annotation rounds).
//! * this file: the kind's contract ([`Preferences`], run by
//!   [`crate::kinds::run`]): its data for the shared writer
//!   ([`crate::kinds::archive`]) and terminal lines.
//! * [`report`]: the HTML report through the engine `rsmreport_report::render`.
//! * [`gates`]: the quality gates (parsed in [`load`], judged after the
//!   run).
//!
//! Reads the pairs file (in `read` only) and makes no file. Touches no
//! other command's assembly (`build`, `compare`).

pub mod gates;
pub mod models;
pub mod read;
pub mod report;
pub mod run;
pub mod tables;
pub mod versions;

use std::path::{Path, PathBuf};

use rsmreport_config::preferences::PreferencesConfig;
use rsmreport_core::provenance::{self, timed};
use rsmreport_report::render::context::InputCtx;
use rsmreport_report::render::format::{num3, signed3};
use run::Analysis;

/// `rsmreport preferences`: run it with [`crate::kinds::run`].
pub struct Preferences;

/// Reads and validates a preferences experiment file and its gates
/// (configuration errors).
pub fn load(path: &Path) -> anyhow::Result<PreferencesConfig> {
    let mut cfg =
        rsmreport_config::preferences::load(path).map_err(rsmreport_core::error::config)?;
    cfg.parsed_gates = gates::parse(&cfg).map_err(rsmreport_core::error::config)?;
    Ok(cfg)
}

impl super::Kind for Preferences {
    type Config = PreferencesConfig;
    const NAME: &'static str = "preferences";

    fn default_dir(cfg: &PreferencesConfig) -> Option<PathBuf> {
        Some(PathBuf::from(&cfg.experiment_id))
    }

    fn inputs(cfg: &PreferencesConfig) -> Vec<PathBuf> {
        let mut inputs = vec![cfg.origin.clone()];
        inputs.extend(cfg.pairs_files.iter().cloned());
        inputs
    }

    fn compute(cfg: PreferencesConfig) -> anyhow::Result<Box<dyn super::Report>> {
        // The checksum of the pairs file is computed on another thread
        // while the pairs are read and analysed.
        let (read, sha256) = provenance::read_with_checksum(&cfg.pairs_file, || {
            timed("read pairs", || read::read(&cfg)).map(|pairs| {
                let analysis = timed("analyse", || run::analyse(&cfg, &pairs));
                (pairs, analysis)
            })
        });
        let (pairs, analysis) = read?;
        let first = InputCtx {
            role: "pairs".into(),
            path: cfg.pairs_file.display().to_string(),
            rows: pairs.len().to_string(),
            sha256: sha256?,
        };
        let inputs = inputs(&analysis, first);
        let gates = gates::evaluate(&cfg.parsed_gates, &analysis);
        Ok(Box::new(Computed {
            analysis,
            pairs,
            inputs,
            cfg,
            gates,
        }))
    }
}

/// Every pairs file as an input of its own, each with its rows (the
/// first was read with the rows of all).
fn inputs(a: &Analysis, mut first: InputCtx) -> Vec<InputCtx> {
    if let Some(d) = a.datasets.first() {
        first.rows = d.rows.to_string();
    }
    let mut inputs = vec![first];
    inputs.extend(a.datasets.iter().skip(1).map(|d| InputCtx {
        role: "pairs".into(),
        path: d.file.display().to_string(),
        rows: d.rows.to_string(),
        sha256: d.sha256.clone(),
    }));
    inputs
}

/// A finished preferences run.
struct Computed {
    analysis: Analysis,
    /// The pairs as read (their votes go to the units files).
    pairs: read::Pairs,
    inputs: Vec<InputCtx>,
    cfg: PreferencesConfig,
    gates: Vec<crate::gates::Outcome>,
}

impl super::Report for Computed {
    fn id(&self) -> &str {
        &self.analysis.id
    }

    fn tables(&self) -> super::Tables<'_> {
        super::owned(tables::frames(&self.analysis))
    }

    fn summary(&self) -> serde_json::Value {
        let json = tables::preferences_json(&self.analysis);
        super::json_value(&json)
    }

    fn inputs(&self) -> Vec<InputCtx> {
        self.inputs.clone()
    }

    fn report(&self, epoch: i64) -> anyhow::Result<rsmreport_report::render::Report> {
        Ok(
            report::report(&self.analysis, &self.gates, self.inputs.clone(), epoch)?
                .identified(&self.cfg.description, self.cfg.model_version.as_deref()),
        )
    }

    fn gates(&self) -> &[crate::gates::Outcome] {
        &self.gates
    }

    /// `output/<id>_units.parquet` and `.json`: what a later `compare`
    /// needs of this run ([`versions::units_files`]).
    fn other_files(&self, _epoch: i64) -> anyhow::Result<Vec<rsmreport_io::output::OutputFile>> {
        versions::units_files(&self.cfg, &self.analysis, &self.pairs)
    }

    fn table_format(&self) -> rsmreport_core::schema::FileFormat {
        self.cfg.file_format
    }

    fn decision(&self) -> Option<rsmreport_report::render::Decision> {
        Some(report::decision(&self.analysis, &self.gates))
    }

    fn lines(&self, _written: &[PathBuf], _dir: &Path) -> Vec<String> {
        terminal_lines(&self.analysis)
    }
}

/// One line per annotator (by strength): strength with its interval,
/// accuracy and relevance on the whole set.
fn terminal_lines(a: &Analysis) -> Vec<String> {
    let all = a.all();
    let mut out = vec![format!(
        "{}: {} of {} pairs used; annotators against the reference {}:",
        a.id,
        rsmreport_report::render::format::thousands(all.exclusions.used()),
        rsmreport_report::render::format::thousands(all.exclusions.rows),
        a.reference_name
    )];
    let width = a
        .annotator_names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0);
    for j in a.by_strength() {
        let (m, i) = (&all.metrics[j], &all.intervals[j]);
        let ci = if i.strength.lower.is_finite() {
            format!(
                " [{}, {}]",
                signed3(i.strength.lower),
                signed3(i.strength.upper)
            )
        } else {
            String::new()
        };
        let few = if m.few_votes() {
            format!(
                "  (few votes: {})",
                rsmreport_report::render::format::thousands(m.valid_votes())
            )
        } else {
            String::new()
        };
        out.push(format!(
            "  {:<width$}  strength {}{ci}  accuracy {}  relevance {}{few}",
            a.annotator_names[j],
            signed3(m.strength),
            num3(m.accuracy),
            num3(m.relevance),
        ));
    }
    if let Some(v) = &a.models {
        out.push(format!(
            "traits by model: {} target models against {}; table {}_model_traits",
            v.targets.len(),
            if v.one_vs_all {
                "all the others".to_string()
            } else {
                v.references.join(", ")
            },
            a.id
        ));
    }
    if all.exclusions.used() == 0 {
        out.push(
            "note: no pair has a valid reference vote and two non-empty texts; every metric is n/a"
                .into(),
        );
    }
    out
}
