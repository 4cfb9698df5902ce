//! `rsmreport sequence EXP`: generated text against references (BLEU,
//! chrF, TER, WER, CER) at sacreBLEU and jiwer parity, with verdicts.

use super::{run_kind, OutputArgs};
use rsmreport::kinds::sequence;
use std::path::Path;

pub fn run(experiment: &Path, output: OutputArgs) -> anyhow::Result<()> {
    run_kind::<sequence::Sequence>(sequence::load(experiment)?, output.destination())
}
