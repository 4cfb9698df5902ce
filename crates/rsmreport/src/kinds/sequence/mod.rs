//! `rsmreport sequence EXP` (`spec/sequence.md`): generated text against
//! references with sacreBLEU 2.6.0's and jiwer 4.0.0's numbers (BLEU,
//! chrF/chrF++, TER, WER/MER/WIL/WIP, CER), sacreBLEU's paired bootstrap
//! and approximate randomization, intervals and verdicts against a
//! baseline.
//!
//! * [`read`]: the segments (a table or text files), with checksums.
//! * [`run`]: every number, from `rsmreport_metrics::sequence`, in order:
//!   [`families`] (a metric key's family and value), [`statistics`] (the
//!   segment statistics, on threads), [`resample`] (sacreBLEU's bootstrap
//!   and randomization, the subsets' parts in [`parts`]), [`ppl`]
//!   (perplexity from [`logprobs`]), [`comparisons`] (each candidate
//!   against the baseline), [`subsets`] (subgroups and length buckets).
//! * [`pipelines`]: jiwer's `[wer]` pipelines where they change what the
//!   WER family compares (tokens, list-semantics corpus numbers).
//! * [`chars`]: the character error counts (spec 8.3).
//! * [`gates`]: the quality gates (parsed before reading, judged after).
//! * [`tables`]: the tables of spec 4 and the summary's keys.
//! * [`versions`]: the per-segment file a folder keeps and `rsmreport
//!   compare` of two sequence folders (issue 49).
//! * [`report`]: the HTML report through `rsmreport_report::render`; [`figures`]: its
//!   figures through `rsmreport_report::plots`.
//! * this file: the kind's contract ([`Sequence`]): its data for the
//!   shared writer ([`crate::kinds::archive`]) and terminal lines.
//!
//! Command assembly: reads only in `read`, defines no metric of its own,
//! makes no file.

pub mod chars;
pub mod comparisons;
pub mod families;
pub mod figures;
pub mod gates;
pub mod logprobs;
pub mod parts;
pub mod pipelines;
pub mod ppl;
pub mod read;
pub mod report;
pub mod resample;
pub mod run;
pub mod statistics;
pub mod subsets;
pub mod tables;
pub mod versions;

use std::path::{Path, PathBuf};

use rsmreport_config::sequence::SequenceConfig;
use rsmreport_core::provenance::timed;
use rsmreport_core::schema::FileFormat;
use rsmreport_report::render::context::InputCtx;

/// `rsmreport sequence`: run it with [`crate::kinds::run`].
pub struct Sequence;

/// Reads and validates a sequence experiment file (configuration errors).
pub fn load(path: &Path) -> anyhow::Result<SequenceConfig> {
    let mut cfg = rsmreport_config::sequence::load(path).map_err(rsmreport_core::error::config)?;
    cfg.parsed_gates = gates::parse(&cfg).map_err(rsmreport_core::error::config)?;
    Ok(cfg)
}

impl super::Kind for Sequence {
    type Config = SequenceConfig;
    const NAME: &'static str = "sequence";

    fn default_dir(cfg: &SequenceConfig) -> Option<PathBuf> {
        Some(PathBuf::from(&cfg.experiment_id))
    }

    fn inputs(cfg: &SequenceConfig) -> Vec<PathBuf> {
        cfg.inputs()
    }

    fn compute(cfg: SequenceConfig) -> anyhow::Result<Box<dyn super::Report>> {
        let (mut segments, mut inputs) = read::read(&cfg)?;
        let mut lp = Vec::new();
        if let (Some(path), true) = (
            &cfg.logprobs_file,
            cfg.metrics.iter().any(|m| m == "perplexity"),
        ) {
            let (read, sha) = rsmreport_core::provenance::read_with_checksum(path, || {
                logprobs::read(path, &segments.systems, cfg.sentinel)
            });
            lp = read?;
            if cfg.source == rsmreport_config::sequence::Source::None {
                ppl::name_systems(&cfg, &mut segments, &lp)?;
            }
            inputs.push(InputCtx {
                role: "log-probabilities".into(),
                path: path.display().to_string(),
                rows: lp
                    .iter()
                    .map(|s| s.sequences.len())
                    .sum::<usize>()
                    .to_string(),
                sha256: sha?,
            });
        }
        let mut run = run::run(&cfg, segments, lp)?;
        run.gates = gates::evaluate(&cfg.parsed_gates, &run);
        Ok(Box::new(Computed { run, cfg, inputs }))
    }
}

/// A finished sequence run.
struct Computed {
    run: run::Run,
    cfg: SequenceConfig,
    inputs: Vec<InputCtx>,
}

impl super::Report for Computed {
    fn id(&self) -> &str {
        &self.cfg.experiment_id
    }

    fn tables(&self) -> super::Tables<'_> {
        let frames = timed("tables", || tables::frames(&self.run, &self.cfg));
        Box::new(
            frames
                .into_iter()
                .filter(|f| f.is_writable())
                .map(std::borrow::Cow::Owned),
        )
    }

    fn table_format(&self) -> FileFormat {
        self.cfg.file_format
    }

    fn summary(&self) -> serde_json::Value {
        tables::summary(&self.run, &self.cfg)
    }

    fn inputs(&self) -> Vec<InputCtx> {
        self.inputs.clone()
    }

    /// `output/<id>_units.parquet` and `.json`: what a later `compare`
    /// needs of this run ([`versions::units_files`]).
    fn other_files(&self, _epoch: i64) -> anyhow::Result<Vec<rsmreport_io::output::OutputFile>> {
        versions::units_files(&self.cfg, &self.run)
    }

    fn report(&self, epoch: i64) -> anyhow::Result<rsmreport_report::render::Report> {
        Ok(
            report::report(&self.run, &self.cfg, self.inputs.clone(), epoch)?
                .identified(&self.cfg.description, self.cfg.model_version.as_deref()),
        )
    }

    fn gates(&self) -> &[crate::gates::Outcome] {
        &self.run.gates
    }

    fn decision(&self) -> Option<rsmreport_report::render::Decision> {
        report::decision(&self.run, &self.cfg)
    }

    fn lines(&self, _written: &[PathBuf], _dir: &Path) -> Vec<String> {
        terminal_lines(&self.run, &self.cfg)
    }
}

/// One line of data, one per system and metric, one per compared metric.
fn terminal_lines(run: &run::Run, cfg: &SequenceConfig) -> Vec<String> {
    let seg = &run.segments;
    let mut out = if cfg.source == rsmreport_config::sequence::Source::None {
        vec![format!(
            "{}: perplexity of {} system(s) from log-probabilities (no text metric)",
            cfg.experiment_id,
            run.ppl.len()
        )]
    } else {
        vec![format!(
            "{}: {} segments ({} rows, {} without a reference), {} systems, nrefs {}",
            cfg.experiment_id,
            seg.n(),
            seg.n_rows,
            seg.dropped_ids.len(),
            seg.systems.len(),
            run.nrefs
        )]
    };
    // (perplexity alone: no text metric, no line)
    for (s, results) in run
        .results
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.is_empty())
    {
        let parts: Vec<String> = results
            .iter()
            .map(|r| {
                let name = tables::metric_name(cfg, &r.metric);
                if r.lower.is_finite() {
                    format!(
                        "{name} {} [{}, {}]",
                        report::fmt(r.score),
                        report::fmt(r.lower),
                        report::fmt(r.upper)
                    )
                } else {
                    format!("{name} {}", report::fmt(r.score))
                }
            })
            .collect();
        out.push(format!(
            "  {:<16} {}",
            run.systems[s].name,
            parts.join("  ")
        ));
    }
    for p in &run.ppl {
        let interval = if p.lower.is_finite() {
            format!(" [{}, {}]", report::fmt(p.lower), report::fmt(p.upper))
        } else {
            String::new()
        };
        let n = p.numbers.sequences;
        out.push(format!(
            "  {:<16} perplexity {}{interval} over {n} sequence{}",
            p.system,
            report::fmt(p.numbers.perplexity),
            if n == 1 { "" } else { "s" }
        ));
    }
    for (s, rows) in &run.comparisons {
        for r in rows {
            out.push(format!(
                "  {} vs {}: {} {} -> {}",
                run.systems[*s].name,
                run.systems[run.baseline].name,
                tables::metric_name(cfg, &r.statistic),
                signed_delta(r.delta.value, r.baseline.value),
                r.verdict
            ));
        }
    }
    out
}

/// A difference for the terminal: the report's decimals without trailing
/// zeros and with its sign (`+8.22`, `+5.5`, `-0.0413`), the exponent form
/// as the report writes it (`-5.541e+34`).
fn signed_delta(delta: f64, like: f64) -> String {
    let text = report::fmt_like(delta, like);
    if !text.contains('e') {
        return format!("{:+}", text.parse::<f64>().unwrap_or(delta));
    }
    if text.starts_with('-') {
        text
    } else {
        format!("+{text}")
    }
}
