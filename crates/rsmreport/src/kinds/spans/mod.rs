//! `rsmreport spans EXP` (`spec/spans.md`): agreement among annotators of
//! span annotations, and span-level evaluation against a reference at
//! seqeval, nervaluate and bratiaa parity.
//!
//! * [`read`]: the inputs (span table, Prodigy, CoNLL, BIO JSON lines)
//!   with their checksums, in one shape.
//! * [`run`]: every number of spec 3-4 (`metrics::spans`).
//! * [`resample`]: the bootstrap over documents and the comparisons.
//! * [`tables`] and [`subgroups`]: the tables of spec 5 and the summary.
//! * [`report`]: the HTML report through `rsmreport_report::render`, with the
//!   figures of [`figures`].
//! * [`gates`]: the quality gates (parsed in [`load`], before any data).
//! * [`versions`]: the per-document file a folder keeps and `rsmreport
//!   compare` of two spans folders (issue 49).
//! * this file: the kind's contract ([`Spans`], run by
//!   [`crate::kinds::run`]): its data for the shared writer
//!   ([`crate::kinds::archive`]) and terminal lines.
//!
//! Command assembly: reads only in `read`, defines no statistic of its
//! own, makes no file.

pub mod figures;
pub mod gates;
pub mod glossary;
pub mod read;
pub mod report;
pub mod resample;
pub mod roles;
pub mod run;
pub mod subgroups;
pub mod tables;
pub mod versions;

use std::path::{Path, PathBuf};

use rsmreport_config::spans::SpansConfig;
use rsmreport_core::provenance::timed;
use rsmreport_core::schema::FileFormat;
use rsmreport_report::render::context::InputCtx;

/// `rsmreport spans`: run it with [`crate::kinds::run`].
pub struct Spans;

/// Reads and validates a spans experiment file (configuration errors).
pub fn load(path: &Path) -> anyhow::Result<SpansConfig> {
    let mut cfg = rsmreport_config::spans::load(path).map_err(rsmreport_core::error::config)?;
    cfg.parsed_gates = gates::parse(&cfg).map_err(rsmreport_core::error::config)?;
    Ok(cfg)
}

/// Everything computed.
pub struct Analysis {
    pub cfg: SpansConfig,
    pub data: read::Data,
    pub res: run::Results,
    pub agree_iv: resample::AgreementIntervals,
    pub sys_iv: resample::SystemIntervals,
    pub gates: Vec<crate::gates::Outcome>,
}

impl super::Kind for Spans {
    type Config = SpansConfig;
    const NAME: &'static str = "spans";

    fn default_dir(cfg: &SpansConfig) -> Option<PathBuf> {
        Some(PathBuf::from(&cfg.experiment_id))
    }

    fn inputs(cfg: &SpansConfig) -> Vec<PathBuf> {
        let mut v = vec![cfg.origin.clone(), cfg.input_file.clone()];
        v.extend(cfg.documents_file.clone());
        v
    }

    fn compute(cfg: SpansConfig) -> anyhow::Result<Box<dyn super::Report>> {
        let data = timed("read", || read::read(&cfg))?;
        let mut a = analyse(cfg, data);
        a.gates = gates::evaluate(&a.cfg.parsed_gates, &a);
        Ok(Box::new(a))
    }
}

/// Every number of the experiment on the data read (no gates yet): the
/// run, the agreement intervals and the systems' intervals and
/// comparisons.
pub fn analyse(cfg: SpansConfig, data: read::Data) -> Analysis {
    {
        let res = timed("spans", || run::run(&cfg, &data));
        let n_docs = data.documents.len();
        let agree_iv = timed("agreement intervals", || {
            resample::agreement(&res, n_docs, cfg.intervals.as_ref())
        });
        let sys_iv = timed("system intervals", || {
            resample::systems(&res, &cfg, n_docs, &data.labels)
        });
        Analysis {
            cfg,
            data,
            res,
            agree_iv,
            sys_iv,
            gates: Vec::new(),
        }
    }
}

impl super::Report for Analysis {
    fn id(&self) -> &str {
        &self.cfg.experiment_id
    }

    fn tables(&self) -> super::Tables<'_> {
        Box::new(
            tables::frames(self)
                .into_iter()
                .filter(|f| f.is_writable())
                .map(std::borrow::Cow::Owned),
        )
    }

    fn table_format(&self) -> FileFormat {
        self.cfg.file_format
    }

    fn summary(&self) -> serde_json::Value {
        tables::summary(self)
    }

    fn inputs(&self) -> Vec<InputCtx> {
        self.data.inputs.clone()
    }

    /// `output/<id>_units.parquet` and `.json`: what a later `compare`
    /// needs of this run ([`versions::units_files`]).
    fn other_files(&self, _epoch: i64) -> anyhow::Result<Vec<rsmreport_io::output::OutputFile>> {
        versions::units_files(self)
    }

    fn gates(&self) -> &[crate::gates::Outcome] {
        &self.gates
    }

    fn report(&self, epoch: i64) -> anyhow::Result<rsmreport_report::render::Report> {
        Ok(report::report(self, self.data.inputs.clone(), epoch)?
            .identified(&self.cfg.description, self.cfg.model_version.as_deref()))
    }

    fn decision(&self) -> Option<rsmreport_report::render::Decision> {
        Some(report::decision(self))
    }

    fn lines(&self, _written: &[PathBuf], _dir: &Path) -> Vec<String> {
        let mut out = vec![format!(
            "{}: {} documents, {} annotators, {} labels",
            self.cfg.experiment_id,
            self.data.documents.len(),
            self.data.annotators.len(),
            self.data.labels.len()
        )];
        out.push(format!("  {}", report::headline(self)));
        for (k, sys) in self.res.systems.iter().enumerate() {
            let avg = &sys.modes[sys.headline].2;
            let iv = &self.sys_iv.stats[k][0];
            let flag = roles::macro_note(&roles::unreferenced(self, sys, sys.headline))
                .map_or_else(String::new, |n| format!(" ({n})"));
            out.push(format!(
                "  {}: micro F1 {} [{}, {}]  macro F1 {}{flag}",
                self.data.annotators[sys.annotator],
                rsmreport_report::render::format::num3(avg[0].f1),
                rsmreport_report::render::format::num3(iv.lower),
                rsmreport_report::render::format::num3(iv.upper),
                rsmreport_report::render::format::num3(avg[1].f1)
            ));
        }
        for c in self
            .sys_iv
            .comparisons
            .iter()
            .filter(|c| c.statistic == "micro_f1")
        {
            out.push(format!(
                "  {} vs {}: {} {:+.3} [{:+.3}, {:+.3}] {}",
                self.data.annotators[c.candidate_system],
                self.data.annotators[c.baseline_system],
                c.statistic,
                c.delta.value,
                c.delta.lower,
                c.delta.upper,
                c.verdict
            ));
        }
        out
    }
}
