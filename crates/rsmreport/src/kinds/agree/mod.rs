//! `rsmreport agree EXP` (`spec/agreement.md` 1.2, 3, 4, 6, 7): agreement
//! among raters of an annotation file with no system score.
//!
//! * [`read`]: the annotation file, coded and checked, with its checksum.
//! * [`run`]: every number (the analysis stage's rater analyses, shared
//!   with `build`).
//! * [`tables`]: the tables of spec 3 and 4, the summary's keys, and the
//!   headline rows and verdict the report and the terminal share.
//! * [`report`]: the HTML report through the engine `rsmreport_report::render`.
//! * [`gates`]: the quality gates (parsed in [`load`], judged after the
//!   run).
//! * [`versions`]: the version workflow (the units files a later
//!   `compare` reads, and `compare` of two annotation rounds).
//! * this file: the kind's contract ([`Agree`], run by
//!   [`crate::kinds::run`]): its data for the shared writer
//!   ([`crate::kinds::archive`]) and terminal lines.
//!
//! Command assembly: reads the annotation file (in `read` only), defines no
//! statistic of its own, and makes no file. Uses no other kind: the
//! report blocks it shares with `build`'s rater sections are the shared
//! kind layer's (`kinds::common::agreement`).

pub mod gates;
pub mod read;
pub mod report;
pub mod run;
pub mod tables;
pub mod versions;

use std::path::{Path, PathBuf};

use crate::analysis::agreement::run::Agreement;
use rsmreport_config::agree::AgreeConfig;
use rsmreport_report::render::context::InputCtx;
use tables::headline;

/// `rsmreport agree`: run it with [`crate::kinds::run`].
pub struct Agree;

/// Reads and validates an agree experiment file and its gates
/// (configuration errors).
pub fn load(path: &Path) -> anyhow::Result<AgreeConfig> {
    let mut cfg = rsmreport_config::agree::load(path).map_err(rsmreport_core::error::config)?;
    cfg.parsed_gates = gates::parse(&cfg).map_err(rsmreport_core::error::config)?;
    Ok(cfg)
}

impl super::Kind for Agree {
    type Config = AgreeConfig;
    const NAME: &'static str = "agree";

    fn default_dir(cfg: &AgreeConfig) -> Option<PathBuf> {
        Some(PathBuf::from(&cfg.experiment_id))
    }

    fn inputs(cfg: &AgreeConfig) -> Vec<PathBuf> {
        vec![cfg.origin.clone(), cfg.annotations_path.clone()]
    }

    fn compute(cfg: AgreeConfig) -> anyhow::Result<Box<dyn super::Report>> {
        let (ratings, input) = read::read(&cfg)?;
        let agreement = run::run(&cfg, ratings);
        let gates = gates::evaluate(&cfg.parsed_gates, &agreement);
        Ok(Box::new(Computed {
            agreement,
            cfg,
            input,
            gates,
        }))
    }
}

/// A finished agree run.
struct Computed {
    agreement: Agreement,
    cfg: AgreeConfig,
    input: InputCtx,
    gates: Vec<crate::gates::Outcome>,
}

impl super::Report for Computed {
    fn id(&self) -> &str {
        &self.cfg.experiment_id
    }

    fn tables(&self) -> super::Tables<'_> {
        Box::new(
            tables::frames(&self.agreement, &self.cfg)
                .into_iter()
                .filter(|f| f.is_writable())
                .map(std::borrow::Cow::Owned),
        )
    }

    fn summary(&self) -> serde_json::Value {
        let json = tables::agree_json(&self.agreement, &self.cfg);
        super::json_value(&json)
    }

    fn inputs(&self) -> Vec<InputCtx> {
        vec![self.input.clone()]
    }

    fn report(&self, epoch: i64) -> anyhow::Result<rsmreport_report::render::Report> {
        Ok(report::report(
            &self.agreement,
            &self.cfg,
            &self.gates,
            vec![self.input.clone()],
            epoch,
        )?
        .identified(&self.cfg.description, self.cfg.model_version.as_deref()))
    }

    fn gates(&self) -> &[crate::gates::Outcome] {
        &self.gates
    }

    /// `output/<id>_units.parquet` and `.json`: what a later `compare`
    /// needs of this run ([`versions::units_files`]).
    fn other_files(&self, _epoch: i64) -> anyhow::Result<Vec<rsmreport_io::output::OutputFile>> {
        versions::units_files(&self.cfg, &self.agreement)
    }

    fn table_format(&self) -> rsmreport_core::schema::FileFormat {
        self.cfg.file_format
    }

    fn decision(&self) -> Option<rsmreport_report::render::Decision> {
        Some(tables::decision(
            &self.agreement.overall,
            &self.cfg,
            &self.gates,
        ))
    }

    fn lines(&self, _written: &[PathBuf], _dir: &Path) -> Vec<String> {
        terminal_lines(&self.agreement, &self.cfg)
    }
}

/// The terminal lines: one per headline coefficient with its interval.
fn terminal_lines(a: &Agreement, cfg: &AgreeConfig) -> Vec<String> {
    let s = &a.overall;
    let mut out = vec![format!(
        "{}: {} items, {} raters, {} ratings ({} missing), {} categories",
        cfg.experiment_id,
        rsmreport_report::render::format::thousands(s.summary.n_rows as u64),
        s.n_raters,
        rsmreport_report::render::format::thousands(s.summary.n_ratings),
        rsmreport_report::render::format::thousands(s.missing),
        a.ratings.categories.labels.len()
    )];
    let f = rsmreport_report::render::format::num3;
    for i in headline(s, cfg) {
        let r = &s.rows[i];
        let name = if r.weights == "none" {
            r.coefficient.to_string()
        } else {
            format!("{} ({})", r.coefficient, r.weights)
        };
        let line = format!(
            "  {name:<30} {:>6}  [{}, {}]  {}",
            f(r.estimate.value),
            f(r.estimate.lower),
            f(r.estimate.upper),
            s.interpretation[i].unwrap_or("")
        );
        out.push(line.trim_end().to_string());
    }
    out.extend(s.notes.iter().map(|n| format!("note: {n}")));
    out
}
