//! Command assembly (sequence): every number of spec `sequence.md` 2-3 from
//! the metric core (`rsmreport_metrics::sequence`), in order: the segment
//! statistics per system ([`super::statistics`]), the corpus scores
//! ([`super::families`]), sacreBLEU's bootstrap and approximate
//! randomization ([`super::resample`]), perplexity ([`super::ppl`]), the
//! comparisons with the baseline ([`super::comparisons`]), the subgroups
//! and length buckets ([`super::subsets`]): the [`Run`] the tables and the
//! report read.
//!
//! Defines no metric of its own; reads and writes nothing.

use rsmreport_config::sequence::SequenceConfig;

use super::comparisons::{compare, Comparison};
use super::families::{families, family, score, Family};
use super::parts::{Grouping, Subsets};
use super::read::Segments;
use super::statistics::{all_systems, SystemRun};
use super::subsets::{
    bucket_grouping, length_buckets, subgroup_groupings, subsets_by_group, Bucket, Subset,
    SubsetScore,
};

/// One system's numbers for one metric.
#[derive(Debug, Clone)]
pub struct MetricResult {
    pub metric: String,
    pub score: f64,
    pub n_segments: usize,
    /// Bootstrap replicate values (empty without intervals).
    pub replicates: Vec<f64>,
    /// Whether sacreBLEU's replicate array is float32.
    pub replicates_f32: bool,
    pub lower: f64,
    pub upper: f64,
    pub bs_mean: f64,
    pub bs_ci: f64,
    /// Candidates: sacreBLEU's paired bootstrap and AR p-values.
    pub bs_p: Option<f64>,
    pub ar_p: Option<f64>,
}

impl MetricResult {
    /// A metric's estimate, before any interval or test.
    pub fn estimate(metric: &str, score: f64, n_segments: usize) -> MetricResult {
        MetricResult {
            metric: metric.to_string(),
            score,
            n_segments,
            replicates: Vec::new(),
            replicates_f32: false,
            lower: f64::NAN,
            upper: f64::NAN,
            bs_mean: f64::NAN,
            bs_ci: f64::NAN,
            bs_p: None,
            ar_p: None,
        }
    }
}

/// Everything the tables and the report show.
#[derive(Debug, Clone)]
pub struct Run {
    pub segments: Segments,
    pub systems: Vec<SystemRun>,
    pub baseline: usize,
    /// `results[system][metric]` (config order, perplexity left out).
    pub results: Vec<Vec<MetricResult>>,
    /// Per candidate (system index, rows).
    pub comparisons: Vec<(usize, Vec<Comparison>)>,
    /// `(column, level, scores)`.
    pub subgroups: Vec<(String, String, usize, Vec<SubsetScore>)>,
    /// `(label, lower, upper, n, scores)`.
    pub buckets: Vec<Bucket>,
    pub nrefs: String,
    pub wer_segments: usize,
    /// Perplexity per system with log-probabilities (spec 2.5).
    pub ppl: Vec<super::ppl::PplRun>,
    /// Per system, `collect_error_counts(process_characters(..))` (spec
    /// 8.3; empty without `cer`).
    pub char_errors: Vec<rsmreport_metrics::sequence::wer::ErrorCounts>,
    /// The quality gates' results (filled after the run).
    pub gates: Vec<crate::gates::Outcome>,
}

impl Run {
    /// The levels of subgroup column `g`, in the run's order.
    pub fn subsets_of(&self, g: &str) -> Vec<Subset<'_>> {
        self.subgroups
            .iter()
            .filter(|(c, ..)| c == g)
            .map(|(_, level, n, scores)| (level.clone(), *n, scores.as_slice()))
            .collect()
    }

    /// The metrics computed from segments (config order).
    pub fn text_metrics<'a>(&self, cfg: &'a SequenceConfig) -> Vec<&'a str> {
        text_metrics(cfg)
    }
}

/// The metrics computed from segments (config order): all but perplexity.
fn text_metrics(cfg: &SequenceConfig) -> Vec<&str> {
    cfg.metrics
        .iter()
        .map(String::as_str)
        .filter(|m| *m != "perplexity")
        .collect()
}

/// Segments with a first reference (WER and CER read that stream only);
/// 0 without any reference stream (perplexity alone).
fn first_stream_segments(seg: &Segments) -> usize {
    seg.refs
        .first()
        .map_or(0, |r| r.iter().filter(|r| r.is_some()).count())
}

fn n_segments_of(seg: &Segments, metric: &str) -> usize {
    match family(metric) {
        Family::Word | Family::Char => first_stream_segments(seg),
        _ => seg.n(),
    }
}

/// Each system's corpus score of each metric (`results[system][metric]`),
/// before any interval or test.
fn estimates(
    cfg: &SequenceConfig,
    seg: &Segments,
    systems: &[SystemRun],
    metrics: &[&str],
) -> Vec<Vec<MetricResult>> {
    let n = seg.n();
    systems
        .iter()
        .map(|sys| {
            metrics
                .iter()
                .map(|m| {
                    let sums = sys.corpus_sums(family(m), n);
                    MetricResult::estimate(m, score(cfg, m, &sums, false).0, n_segments_of(seg, m))
                })
                .collect()
        })
        .collect()
}

/// sacreBLEU's `nrefs` signature value: the number of references of every
/// segment, `var` when it varies, `0` without segments.
fn nrefs(seg: &Segments) -> String {
    let n = seg.n();
    if n == 0 {
        return "0".into();
    }
    let counts: std::collections::BTreeSet<usize> =
        (0..n).map(|i| seg.present_refs(i).len()).collect();
    if counts.len() == 1 {
        counts
            .iter()
            .next()
            .map(|c| c.to_string())
            .unwrap_or_default()
    } else {
        "var".into()
    }
}

/// Every number.
pub fn run(
    cfg: &SequenceConfig,
    mut seg: Segments,
    logprobs: Vec<super::logprobs::SystemLogprobs>,
) -> anyhow::Result<Run> {
    let n = seg.n();
    if n == 0 && cfg.source != rsmreport_config::sequence::Source::None {
        return Err(super::read::no_segment_left(cfg, &seg));
    }
    seg.wer_tokens = super::pipelines::segment_tokens(cfg, &seg)?;
    let corpus_words = super::pipelines::corpus(cfg, &seg)?;
    let fams = families(cfg);
    let mut systems: Vec<SystemRun> =
        rsmreport_core::provenance::timed("statistics", || all_systems(cfg, &seg, &fams));
    for (sys, c) in systems.iter_mut().zip(corpus_words.into_iter().flatten()) {
        sys.corpus_words = Some(c.sums);
        sys.errors = c.errors;
    }
    let baseline = cfg
        .baseline
        .as_ref()
        .and_then(|b| seg.systems.iter().position(|s| s == b))
        .unwrap_or(0);
    let metrics = text_metrics(cfg);
    let mut results = estimates(cfg, &seg, &systems, &metrics);
    let (bucket_levels, subgroup_levels) = (bucket_grouping(&seg), subgroup_groupings(&seg));
    let groupings: Vec<Grouping> = std::iter::once(bucket_levels.clone())
        .chain(subgroup_levels.iter().map(|(_, g)| g.clone()))
        .collect();
    let first_ref: Vec<bool> = (0..n)
        .map(|i| seg.refs.first().is_some_and(|r| r[i].is_some()))
        .collect();
    let mut subset_iv = Vec::new();
    if let Some(iv) = cfg.intervals {
        subset_iv = rsmreport_core::provenance::timed("bootstrap", || {
            super::resample::bootstrap(
                cfg,
                &systems,
                &metrics,
                &mut results,
                iv,
                baseline,
                n,
                Subsets {
                    groupings: &groupings,
                    first_ref: &first_ref,
                },
            )
        });
        if cfg.ar_trials > 0 {
            rsmreport_core::provenance::timed("randomization", || {
                super::resample::randomization(
                    cfg,
                    &systems,
                    &metrics,
                    &mut results,
                    iv.seed,
                    baseline,
                    n,
                )
            });
        }
        super::pipelines::blank_resampling(cfg, &mut results);
    }
    let ppl_base = seg
        .systems
        .get(baseline)
        .and_then(|b| logprobs.iter().position(|l| &l.system == b))
        .unwrap_or(0);
    let ppl = rsmreport_core::provenance::timed("perplexity", || {
        super::ppl::run(&logprobs, cfg.intervals, ppl_base)
    });
    let comparisons = compare(cfg, &systems, &results, baseline, &ppl);
    let at = |g: usize, level: usize| subset_iv.get(g).and_then(|l: &Vec<_>| l.get(level));
    let subgroups = subsets_by_group((cfg, &seg, &systems, &metrics), &subgroup_levels, |j, l| {
        at(1 + j, l)
    });
    let buckets = length_buckets((cfg, &seg, &systems, &metrics), &bucket_levels, |k| {
        at(0, k)
    });
    let nrefs = nrefs(&seg);
    let wer_segments = first_stream_segments(&seg);
    let char_errors = rsmreport_core::provenance::timed("character error counts", || {
        super::chars::error_counts(cfg, &seg)
    });
    Ok(Run {
        segments: seg,
        systems,
        baseline,
        results,
        comparisons,
        subgroups,
        buckets,
        nrefs,
        wer_segments,
        ppl,
        char_errors,
        gates: Vec::new(),
    })
}
