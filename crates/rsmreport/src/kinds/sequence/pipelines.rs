//! Command assembly (sequence): jiwer's transformation pipelines of
//! `[wer]` (spec `sequence.md` 8.1-8.2) where they change what the WER
//! family compares.
//!
//! * A side given as a list of steps: every used segment's tokens, as
//!   `process_words(ref_i, hyp_i, ..)` makes them (jiwer wraps each string
//!   in a one-item list, so list semantics on that list), computed once
//!   before the statistics ([`segment_tokens`], read through
//!   [`for_each_word`]). jiwer's named transforms are applied by the
//!   statistics as they go (the fast path).
//! * A list-aware pipeline (`remove_empty_strings`,
//!   `reduce_to_single_sentence`) on either side: the corpus numbers and
//!   error counts are `process_words` on the lists of the used segments
//!   ([`corpus`]), where sentence `i` of one side goes with sentence `i` of
//!   the other and different numbers are jiwer's ValueError (exit 1, before
//!   anything is written); each subset is scored the same way, an empty
//!   cell where its numbers differ ([`subset_cell`]); the WER family has no
//!   replicates ([`blank_resampling`]), and the report says why
//!   ([`no_resampling_reason`]).
//!
//! Defines no metric (alignment, counts and measures are
//! `rsmreport_metrics::sequence::wer`'s); reads and writes nothing.

use anyhow::{anyhow, Result};

use rsmreport_config::sequence::SequenceConfig;
use rsmreport_metrics::sequence::jiwer::{transform_pair, ApplyError, WORD_SEPARATOR};
use rsmreport_metrics::sequence::wer::{self, ErrorCounts, WerTransform};

use super::families::{family, Family};
use super::read::Segments;
use super::run::MetricResult;

/// A side of `process_words`: the first reference stream, or a system's
/// hypotheses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Reference,
    Hypothesis(usize),
}

/// The WER family's tokens of every segment under `[wer]` steps.
#[derive(Debug, Clone, Default)]
pub struct SegmentTokens {
    /// Per segment, the first reference's tokens (`None`: missing).
    pub refs: Vec<Option<Vec<String>>>,
    /// Per system and segment, the hypothesis' tokens (none where the
    /// first reference is missing).
    pub hyps: Vec<Vec<Vec<String>>>,
}

/// Whether a WER-family metric is asked for.
fn has_word_metric(cfg: &SequenceConfig) -> bool {
    cfg.metrics
        .iter()
        .any(|m| m != "perplexity" && family(m) == Family::Word)
}

/// The `[wer]` side's words in messages.
fn side_name(side: Side) -> &'static str {
    match side {
        Side::Reference => "reference_transform",
        Side::Hypothesis(_) => "hypothesis_transform",
    }
}

/// A pipeline that gave up on a segment (a pattern's backtracking limit).
fn segment_error(seg: &Segments, side: Side, i: usize, e: ApplyError) -> anyhow::Error {
    let whose = match side {
        Side::Reference => "the first reference".to_string(),
        Side::Hypothesis(s) => format!("system {}", seg.systems[s]),
    };
    anyhow!(
        "segment {} ({whose}): the [wer] {} failed: {e}",
        seg.ids[i],
        side_name(side)
    )
}

/// Every used segment's tokens when a side is a list of steps (`None`
/// when both are jiwer's named transforms, or without a WER-family
/// metric); a pipeline that fails on a segment is a data error naming it.
pub fn segment_tokens(cfg: &SequenceConfig, seg: &Segments) -> Result<Option<SegmentTokens>> {
    if cfg.wer.named().is_some() || !has_word_metric(cfg) {
        return Ok(None);
    }
    let (rt, ht) = (&cfg.wer.reference, &cfg.wer.hypothesis);
    let refs = (0..seg.n())
        .map(|i| {
            seg.refs[0][i]
                .as_deref()
                .map(|t| rt.segment_tokens(t))
                .transpose()
                .map_err(|e| segment_error(seg, Side::Reference, i, e))
        })
        .collect::<Result<Vec<_>>>()?;
    let hyps = (0..seg.systems.len())
        .map(|s| {
            (0..seg.n())
                .map(|i| match refs[i] {
                    None => Ok(Vec::new()),
                    Some(_) => ht
                        .segment_tokens(&seg.hyps[s][i])
                        .map_err(|e| segment_error(seg, Side::Hypothesis(s), i, e)),
                })
                .collect::<Result<Vec<_>>>()
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Some(SegmentTokens { refs, hyps }))
}

/// The WER words of segment `i` on `side` (`text` is that side's text),
/// each given to `f`: the prepared tokens under `[wer]` steps, else
/// jiwer's named transform applied here.
pub fn for_each_word(
    cfg: &SequenceConfig,
    seg: &Segments,
    (side, i): (Side, usize),
    text: &str,
    mut f: impl FnMut(&str),
) {
    match (&seg.wer_tokens, side) {
        (Some(t), Side::Reference) => t.refs[i].iter().flatten().for_each(|w| f(w)),
        (Some(t), Side::Hypothesis(s)) => t.hyps[s][i].iter().for_each(|w| f(w)),
        (None, side) => {
            let named = match side {
                Side::Reference => cfg.wer.reference.named(),
                Side::Hypothesis(_) => cfg.wer.hypothesis.named(),
            };
            let text = wer::transformed(text, named.unwrap_or(WerTransform::Default));
            wer::for_each_default_word(&text, f);
        }
    }
}

/// [`for_each_word`] collected.
pub fn words(cfg: &SequenceConfig, seg: &Segments, at: (Side, usize), text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_word(cfg, seg, at, text, |w| out.push(w.to_string()));
    out
}

/// `n <what> sentence(s)`.
fn sentences(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what} sentence")
    } else {
        format!("{n} {what} sentences")
    }
}

/// `process_words(refs, hyps, reference_transform, hypothesis_transform)`
/// on the rows of `rows` that have a first reference, for system `s`:
/// `[H, S, D, I, N, P]` summed over the aligned sentences, and each
/// chunk's error entry added to `errors` (joined with one space, as
/// `collect_error_counts` of a `WordOutput`).
pub fn list_counts(
    cfg: &SequenceConfig,
    seg: &Segments,
    s: usize,
    rows: &[usize],
    mut errors: Option<&mut ErrorCounts>,
) -> std::result::Result<[f64; 6], ApplyError> {
    let used: Vec<usize> = rows
        .iter()
        .copied()
        .filter(|&i| seg.refs[0][i].is_some())
        .collect();
    let refs: Vec<&str> = used
        .iter()
        .filter_map(|&i| seg.refs[0][i].as_deref())
        .collect();
    let hyps: Vec<&str> = used.iter().map(|&i| seg.hyps[s][i].as_str()).collect();
    let (r, h) = transform_pair(
        &cfg.wer.reference.pipeline(),
        &cfg.wer.hypothesis.pipeline(),
        &refs,
        &hyps,
    )?;
    let mut sums = [0.0; 6];
    for (r, h) in r.iter().zip(&h) {
        let a = wer::align_tokens(r, h);
        for (x, v) in sums.iter_mut().zip(a.counts()) {
            *x += v as f64;
        }
        if let Some(e) = errors.as_deref_mut() {
            wer::add_error_counts(&a, r, h, WORD_SEPARATOR, e);
        }
    }
    Ok(sums)
}

/// One system's corpus numbers under list-aware pipelines.
#[derive(Debug, Clone)]
pub struct CorpusWords {
    /// `[H, S, D, I, N, P]` of `process_words` on the corpus.
    pub sums: Vec<f64>,
    /// `collect_error_counts` of the same call (finished).
    pub errors: ErrorCounts,
}

/// With a list-aware pipeline (and a WER-family metric), each system's
/// `process_words` on the lists of every used segment; `None` otherwise
/// (the corpus numbers are then the segments' sums). Different numbers of
/// sentences are jiwer's ValueError: a data error naming the system and
/// both numbers.
pub fn corpus(cfg: &SequenceConfig, seg: &Segments) -> Result<Option<Vec<CorpusWords>>> {
    if cfg.wer.is_elementwise() || !has_word_metric(cfg) {
        return Ok(None);
    }
    let rows: Vec<usize> = (0..seg.n()).collect();
    let used = rows.iter().filter(|&&i| seg.refs[0][i].is_some()).count();
    let mut out = Vec::new();
    for (s, name) in seg.systems.iter().enumerate() {
        let mut errors = ErrorCounts::default();
        let sums = match list_counts(cfg, seg, s, &rows, Some(&mut errors)) {
            Ok(sums) => sums,
            Err(ApplyError::SentenceCounts {
                references,
                hypotheses,
            }) => {
                return Err(anyhow!(
                    "system {name}: the [wer] transforms leave {} and {} (from {used} \
                     segments with a first reference); jiwer aligns sentence i with sentence i \
                     and refuses different numbers (its ValueError \"their lengths must \
                     match\"); nothing was written",
                    sentences(references, "reference"),
                    sentences(hypotheses, "hypothesis")
                ))
            }
            Err(e) => {
                return Err(anyhow!(
                    "system {name}: the [wer] transforms failed on the corpus: {e}"
                ))
            }
        };
        errors.finish();
        out.push(CorpusWords {
            sums: sums.to_vec(),
            errors,
        });
    }
    Ok(Some(out))
}

/// A subset's WER-family cell under list-aware pipelines: the metric of
/// `process_words` on the subset's rows (NaN where the numbers of
/// sentences differ) and no interval; `cell` as it is otherwise.
pub fn subset_cell(
    cfg: &SequenceConfig,
    seg: &Segments,
    (s, metric): (usize, &str),
    used: &[usize],
    cell: (f64, f64, f64),
) -> (f64, f64, f64) {
    if cfg.wer.is_elementwise() || family(metric) != Family::Word {
        return cell;
    }
    let score = match list_counts(cfg, seg, s, used, None) {
        Ok(sums) if !used.is_empty() => super::families::score(cfg, metric, &sums, false).0,
        _ => f64::NAN,
    };
    (score, f64::NAN, f64::NAN)
}

/// Under list-aware pipelines, the WER family's intervals, bootstrap and
/// randomization cells are emptied: the replicate sums of sequence.md 3.2
/// need counts that add up segment by segment. Comparisons then have no
/// interval and are `not testable`.
pub fn blank_resampling(cfg: &SequenceConfig, results: &mut [Vec<MetricResult>]) {
    if cfg.wer.is_elementwise() {
        return;
    }
    for r in results
        .iter_mut()
        .flatten()
        .filter(|r| family(&r.metric) == Family::Word)
    {
        r.replicates = Vec::new();
        r.lower = f64::NAN;
        r.upper = f64::NAN;
        r.bs_mean = f64::NAN;
        r.bs_ci = f64::NAN;
        r.bs_p = None;
        r.ar_p = None;
    }
}

/// Why the WER family has no intervals (the report's note), under
/// list-aware pipelines and with a WER-family metric.
pub fn no_resampling_reason(cfg: &SequenceConfig) -> Option<String> {
    if cfg.wer.is_elementwise() || !has_word_metric(cfg) {
        return None;
    }
    Some(format!(
        "The WER family has no intervals, bootstrap or comparison here: the [wer] transforms use \
         {}, which can change the number of sentences, so its corpus numbers are jiwer's \
         process_words on the lists of all used segments, not sums of segment counts \
         (sequence.md 8.2), and resampling segments needs counts that add up. Its corpus and \
         subset scores are exact; its segment scores are process_words on each pair.",
        cfg.wer.list_aware_steps().join(" and ")
    ))
}
