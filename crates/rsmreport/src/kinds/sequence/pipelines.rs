//! Command assembly (sequence): jiwer's transformation pipelines of
//! `[wer]` (spec `sequence.md` 8.1-8.2) where they change what the WER
//! family compares: with a side given as a list of steps, every used
//! segment's tokens, as `process_words(ref_i, hyp_i, ..)` makes them (jiwer
//! wraps each string in a one-item list, so list semantics on that list),
//! computed once before the statistics ([`segment_tokens`], read through
//! [`for_each_word`]). jiwer's named transforms are applied by the
//! statistics as they go (the fast path).
//!
//! Defines no metric (alignment, counts and measures are
//! `rsmreport_metrics::sequence::wer`'s); reads and writes nothing.

use anyhow::{anyhow, Result};

use rsmreport_config::sequence::SequenceConfig;
use rsmreport_metrics::sequence::jiwer::ApplyError;
use rsmreport_metrics::sequence::wer::{self, WerTransform};

use super::read::Segments;
use super::run::{family, Family};

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
