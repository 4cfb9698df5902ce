//! `rsmreport train EXP` (`spec/train.md`, RSMTool 12.0.0's `rsmtool` with
//! its built-in linear models): a model trained on one partition and
//! evaluated on the other, at parity with the reference.
//!
//! * [`read`]: the training, test, feature and subset files with their
//!   checksums, and the list of every file the run reads.
//! * [`partition`]: reading, filtering and the feature list of one
//!   partition (train.md 3), with the count each step removed.
//! * [`features`]: the feature specification (4).
//! * [`run`]: preprocessing, the model, predictions (5-7, through
//!   `metrics::linear`), the training analyses ([`analyses`], 8) and the
//!   evaluation (10) through `build`'s own code
//!   (`kinds::evaluation::run::execute_prepared`, the one seam).
//! * [`tables`]: the file catalogue (11) and the summary; [`model`]: the
//!   model file (12), which `predict` reads back.
//! * [`report`]: the HTML report (14), ending with `build`'s evaluation
//!   sections.
//! * this file: the kind's contract ([`Train`], run by
//!   [`crate::kinds::run`]): its data for the shared writer
//!   ([`crate::kinds::archive`]: the tables, the summary, the saved
//!   configuration `<id>_rsmtool.json`, and as other files the model file
//!   and the selected features) and its terminal lines.
//!
//! Command assembly: reads the inputs (in `read` only), defines no
//! statistic of its own, and makes no file. Of the other kinds it uses
//! only its family's `evaluation` (its reading, run, tables and report
//! sections; train.md 10, 14; `kinds::rsmtool`).

pub mod analyses;
pub mod features;
pub mod model;
pub mod partition;
pub mod read;
pub mod report;
pub mod run;
pub mod tables;

use std::path::{Path, PathBuf};

use anyhow::Result;
use rsmreport_config::train::TrainConfig;
use rsmreport_io::output::OutputFile;
use rsmreport_report::render::context::InputCtx;
use run::Trained;

/// Reads and validates a `train` experiment file (configuration errors).
pub fn load(path: &Path) -> Result<TrainConfig> {
    rsmreport_config::train::load(path).map_err(rsmreport_core::error::config)
}

/// `rsmreport train`: run it with [`crate::kinds::run`].
pub struct Train;

impl crate::kinds::Kind for Train {
    type Config = TrainConfig;
    const NAME: &'static str = "train";

    fn default_dir(cfg: &TrainConfig) -> Option<PathBuf> {
        Some(PathBuf::from(&cfg.experiment_id))
    }

    fn inputs(cfg: &TrainConfig) -> Vec<PathBuf> {
        read::files(cfg)
    }

    fn compute(cfg: TrainConfig) -> Result<Box<dyn crate::kinds::Report>> {
        Ok(Box::new(Computed(run::execute(cfg)?)))
    }
}

/// A finished training run.
struct Computed(Trained);

impl crate::kinds::Report for Computed {
    fn id(&self) -> &str {
        &self.0.cfg.experiment_id
    }

    fn decision(&self) -> Option<rsmreport_report::render::Decision> {
        Some(report::decision(&self.0))
    }

    fn gates(&self) -> &[crate::gates::Outcome] {
        &self.0.evaluation.gates
    }

    fn tables(&self) -> crate::kinds::Tables<'_> {
        tables::each_table(&self.0)
    }

    fn table_format(&self) -> rsmreport_core::schema::FileFormat {
        self.0.cfg.file_format
    }

    fn summary(&self) -> serde_json::Value {
        tables::summary(&self.0)
    }

    fn inputs(&self) -> Vec<InputCtx> {
        report::inputs(&self.0.inputs)
    }

    fn saved_configuration(&self) -> Option<OutputFile> {
        let t = &self.0;
        Some(OutputFile {
            path: Path::new("output").join(format!("{}_rsmtool.json", t.cfg.experiment_id)),
            bytes: rsmreport_config::to_python_json(&t.cfg.saved_config).into_bytes(),
        })
    }

    fn other_files(&self, epoch: i64) -> Result<Vec<OutputFile>> {
        model_and_features(&self.0, epoch)
    }

    fn report(&self, epoch: i64) -> Result<rsmreport_report::render::Report> {
        Ok(report::report(&self.0, epoch)?
            .identified(&self.0.cfg.description, self.0.cfg.model_version.as_deref()))
    }

    fn lines(&self, written: &[PathBuf], dir: &Path) -> Vec<String> {
        terminal_lines(&self.0, written, dir)
    }
}

/// The model file `output/<id>_model.json` (train.md 12, which `predict`
/// reads back) and the selected features `feature/<id>_selected`.
fn model_and_features(t: &Trained, epoch: i64) -> Result<Vec<OutputFile>> {
    let id = &t.cfg.experiment_id;
    let model = OutputFile {
        path: Path::new("output").join(format!("{id}_model.json")),
        bytes: rsmreport_io::output::json::bytes(&model::document(t)),
    };
    let selected = features::selected_frame(&t.spec, t.file.as_ref(), &t.selected);
    let feature = rsmreport_io::output::frame_file(
        Path::new("feature"),
        id,
        t.cfg.file_format,
        &selected,
        epoch,
    )?;
    Ok(vec![model, feature])
}

/// The terminal lines: what was trained on how many responses, the notes
/// and warnings, and the tables written.
fn terminal_lines(t: &Trained, written: &[PathBuf], dir: &Path) -> Vec<String> {
    let thousands = |n: usize| rsmreport_report::render::format::thousands(n as u64);
    let mut out = vec![format!(
        "{}: trained {} on {} responses ({} features, {} used), evaluated on {} responses; \
         wrote {} files to {}",
        t.cfg.experiment_id,
        t.cfg.model.name(),
        thousands(t.train.ids.len()),
        thousands(t.train.features.len()),
        thousands(t.selected.len()),
        thousands(t.test.ids.len()),
        written.iter().filter(|p| p.starts_with("output")).count(),
        dir.join("output").display()
    )];
    for part in [&t.train, &t.test] {
        let r = &part.removed;
        if r.total() > 0 {
            out.push(format!(
                "{}: {} of {} rows excluded ({})",
                part.name,
                thousands(r.total()),
                thousands(part.n_read),
                report::removed_words(r).join(", ")
            ));
        }
    }
    out.extend(t.notes.iter().cloned());
    out
}
