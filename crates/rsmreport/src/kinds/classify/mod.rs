//! `rsmreport classify EXP` (`spec/classify.md`): one or more classifiers
//! against gold labels, with scikit-learn's numbers, curves, calibration,
//! intervals and paired verdicts against a baseline.
//!
//! * [`read`]: the predictions file as label codes and score columns.
//! * [`run`]: every number (all items and each subgroup level).
//! * [`resample`]: the seeded block bootstrap (intervals), on the block
//!   sums of [`blocks`] and the statistic lists of [`statistics`]; the
//!   paired differences against the baseline in [`deltas`].
//! * [`tables`]: the tables of spec 4 and `<id>_summary.json`.
//! * [`gates`]: the quality gates (parsed before reading, judged after).
//! * [`report`]: the HTML report through the engine `rsmreport_report::render`.
//! * [`versions`]: the per-item file a folder keeps and `rsmreport compare`
//!   of two classify folders (issue 49).
//! * this file: the kind's contract ([`Classify`], run by
//!   [`crate::kinds::run`]): read with the checksum, refuse an empty
//!   input, analyse, judge the gates; its data for the shared writer
//!   ([`crate::kinds::archive`]) and terminal lines.
//!
//! Command assembly: reads the predictions file (in `read` only), defines
//! no statistic of its own (`rsmreport_metrics` does), and makes no file.
//! Of the other kinds it uses none: the verdict,
//! the comparison row and table, the gates panel and the parallel map are
//! the shared kind layer's (`kinds::common`).

pub mod blocks;
pub mod deltas;
pub mod gates;
pub mod read;
pub mod report;
pub(crate) mod report_figures;
pub mod resample;
pub mod run;
pub mod statistics;
pub mod tables;
pub mod versions;

use std::path::{Path, PathBuf};

use anyhow::anyhow;

use rsmreport_config::classify::ClassifyConfig;
use rsmreport_core::provenance::{self, timed};
use rsmreport_core::schema::FileFormat;
use rsmreport_report::render::context::InputCtx;
use run::Analysis;

/// `rsmreport classify`: run it with [`crate::kinds::run`].
pub struct Classify;

/// A validated classify request: the experiment and its quality gates
/// (parsed with it, so that a bad gate is refused before any work).
#[derive(Clone, Debug)]
pub struct ClassifyRequest {
    pub cfg: ClassifyConfig,
    pub gates: Vec<rsmreport_config::gates::Gate>,
}

/// Reads and validates a classify experiment file and its gates
/// (configuration errors).
pub fn load(path: &Path) -> anyhow::Result<ClassifyRequest> {
    let cfg = rsmreport_config::classify::load(path).map_err(rsmreport_core::error::config)?;
    let gates = gates::parse(&cfg).map_err(rsmreport_core::error::config)?;
    Ok(ClassifyRequest { cfg, gates })
}

impl super::Kind for Classify {
    type Config = ClassifyRequest;
    const NAME: &'static str = "classify";

    fn default_dir(r: &ClassifyRequest) -> Option<PathBuf> {
        Some(PathBuf::from(&r.cfg.experiment_id))
    }

    fn inputs(r: &ClassifyRequest) -> Vec<PathBuf> {
        vec![r.cfg.origin.clone(), r.cfg.predictions_file.clone()]
    }

    fn compute(r: ClassifyRequest) -> anyhow::Result<Box<dyn super::Report>> {
        let ClassifyRequest { cfg, gates } = r;
        let (read, sha256) = provenance::read_with_checksum(&cfg.predictions_file, || {
            timed("read predictions", || read::read(&cfg))
        });
        let data = read?;
        if data.n() == 0 {
            return Err(anyhow!(
                "{}: no item has a gold label in column '{}' ({} rows read, every gold cell blank)",
                cfg.predictions_file.display(),
                cfg.gold_column,
                data.n_rows
            ));
        }
        let mut analysis = timed("analyse", || run::analyse(&cfg, &data));
        analysis.gates =
            gates::evaluate(&gates, &cfg, &analysis).map_err(rsmreport_core::error::config)?;
        let input = InputCtx {
            role: "predictions".into(),
            path: cfg.predictions_file.display().to_string(),
            rows: data.n_rows.to_string(),
            sha256: sha256?,
        };
        Ok(Box::new(Computed {
            analysis,
            cfg,
            input,
            data,
        }))
    }
}

/// A finished classify run, with the items read (the units file is made
/// from them).
struct Computed {
    analysis: Analysis,
    cfg: ClassifyConfig,
    input: InputCtx,
    data: read::Data,
}

impl super::Report for Computed {
    fn id(&self) -> &str {
        &self.analysis.id
    }

    fn tables(&self) -> super::Tables<'_> {
        Box::new(tables::each_frame(&self.analysis).map(std::borrow::Cow::Owned))
    }

    fn table_format(&self) -> FileFormat {
        self.cfg.file_format
    }

    fn summary(&self) -> serde_json::Value {
        let a = &self.analysis;
        let json = tables::summary_json(a, &self.input.sha256, &self.input.path);
        super::json_value(&json)
    }

    fn inputs(&self) -> Vec<InputCtx> {
        vec![self.input.clone()]
    }

    /// `output/<id>_units.parquet` and `.json`: what a later `compare`
    /// needs of this run ([`versions::units_files`]).
    fn other_files(&self, _epoch: i64) -> anyhow::Result<Vec<rsmreport_io::output::OutputFile>> {
        versions::units_files(&self.cfg, &self.analysis, &self.data)
    }

    fn gates(&self) -> &[crate::gates::Outcome] {
        &self.analysis.gates
    }

    fn decision(&self) -> Option<rsmreport_report::render::Decision> {
        report::decision(&self.analysis, &tables::comparison_rows(&self.analysis))
    }

    fn report(&self, epoch: i64) -> anyhow::Result<rsmreport_report::render::Report> {
        let cfg = &self.cfg;
        Ok(
            report::report(&self.analysis, vec![self.input.clone()], epoch)?
                .identified(&cfg.description, cfg.model_version.as_deref()),
        )
    }

    fn lines(&self, _written: &[PathBuf], _dir: &Path) -> Vec<String> {
        terminal_lines(&self.analysis)
    }
}

use rsmreport_report::render::format::{num3 as fixed, p_clause, signed3, thousands};

/// One line per system (accuracy and macro F1 with intervals), then one
/// per compared statistic of each candidate, criterion-style.
fn terminal_lines(a: &Analysis) -> Vec<String> {
    let mut out = vec![format!(
        "{}: {} items ({} rows, {} without a gold label), {} labels",
        a.id,
        thousands(a.n as u64),
        thousands(a.n_rows as u64),
        thousands(a.n_dropped_blank_gold as u64),
        thousands(a.k() as u64)
    )];
    let width = a
        .systems
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(0);
    let ci = |s: usize, m: &str| {
        a.intervals
            .as_ref()
            .and_then(|iv| iv.get(s, "overall", m))
            .filter(|r| r.interval.lower.is_finite())
            .map_or_else(String::new, |r| {
                format!(
                    " [{}, {}]",
                    fixed(r.interval.lower),
                    fixed(r.interval.upper)
                )
            })
    };
    for (s, sys) in a.systems.iter().enumerate() {
        out.push(format!(
            "  {:<width$}  accuracy {}{}  macro F1 {}{}{}",
            sys.name,
            fixed(sys.report.accuracy),
            ci(s, "accuracy"),
            fixed(sys.macro_f(a.f1())),
            ci(s, "macro_f1"),
            if sys.n_abstained > 0 {
                format!("  ({} abstained)", thousands(sys.n_abstained as u64))
            } else {
                String::new()
            }
        ));
    }
    for r in tables::comparison_rows(a)
        .iter()
        .filter(|r| r.scope == "overall")
    {
        out.push(format!(
            "  {} vs {}: {} change: [{} {} {}] ({}) {}",
            a.systems[r.candidate_system].name,
            a.systems[r.baseline_system].name,
            r.statistic,
            signed3(r.delta.lower),
            signed3(r.delta.value),
            signed3(r.delta.upper),
            p_clause(r.p_value),
            r.verdict
        ));
    }
    out
}
