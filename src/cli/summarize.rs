//! `rsmreport summarize DIR...`: one row per archived version, each
//! compared with a baseline.

use super::{archive_failure, config_error, data_error, finish_files, Failure};
use anyhow::anyhow;
use rsmreport::kinds::summarize::{self, read, run};
use rsmreport::output;
use rsmreport::provenance::{self, timed};
use std::path::{Path, PathBuf};

/// `summarize --order` (`model_version`, the config key, also works).
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum SummaryOrder {
    Given,
    #[value(alias = "model_version")]
    ModelVersion,
}

/// What `rsmreport summarize` was asked to do.
pub struct SummarizeArgs {
    pub folders: Vec<PathBuf>,
    pub output_dir: Option<PathBuf>,
    pub force: bool,
    pub baseline: Option<PathBuf>,
    pub order: SummaryOrder,
    pub id: String,
}

/// The folders in order and the index of the baseline among them (added
/// first when it is not one of them).
fn with_baseline(mut dirs: Vec<PathBuf>, baseline: Option<PathBuf>) -> (Vec<PathBuf>, usize) {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    };
    let base = match baseline {
        Some(b) => match dirs.iter().position(|d| same(d, &b)) {
            Some(i) => i,
            None => {
                dirs.insert(0, b);
                0
            }
        },
        None => 0,
    };
    (dirs, base)
}

pub fn run(args: SummarizeArgs) -> Result<(), Failure> {
    let id = args.id.as_str();
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
    {
        return Err(config_error(anyhow!(
            "--id {id:?} must be letters, digits, '.', '_' or '-' (it prefixes file names)"
        )));
    }
    let (dirs, base) = with_baseline(args.folders, args.baseline);
    let dir = args.output_dir.unwrap_or_else(|| PathBuf::from(id));
    run::distinct_folders(&dirs).map_err(|e| config_error(anyhow!(e)))?;
    let inputs = rsmreport::kinds::compare::run::input_paths(&dirs, &[]);
    output::refuse_inputs_inside(&dir, &inputs).map_err(config_error)?;
    let opened = timed("open folders", || read::open_all(&dirs)).map_err(archive_failure)?;
    let order = match args.order {
        SummaryOrder::Given => run::Order::Given,
        SummaryOrder::ModelVersion => run::Order::ModelVersion,
    };
    let settings = run::settings(&opened[base].archive);
    let summary = timed("summarize", || {
        run::summarize(id, &opened, base, order, &settings)
    });
    output::check_output_dir(&dir, args.force).map_err(config_error)?;
    let files = timed("report and tables", || {
        summarize::files(&summary, provenance::generation_epoch())
    })
    .map_err(data_error)?;
    let lines = |_: &[PathBuf]| summarize::terminal_lines(&summary);
    finish_files(&dir, args.force, &files, lines, &[])
}
