//! `rsmreport summarize DIR...`: one row per archived version, each
//! compared with a baseline.

use super::{run_kind, OutputArgs};
use rsmreport::kinds::summarize::{self, run::Order};
use std::path::PathBuf;

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
    pub output: OutputArgs,
    pub baseline: Option<PathBuf>,
    pub order: SummaryOrder,
    pub id: String,
}

pub fn run(args: SummarizeArgs) -> anyhow::Result<()> {
    let order = match args.order {
        SummaryOrder::Given => Order::Given,
        SummaryOrder::ModelVersion => Order::ModelVersion,
    };
    let config = summarize::request(args.folders, args.baseline, order, &args.id)?;
    run_kind::<summarize::Summarize>(config, args.output.destination())
}
