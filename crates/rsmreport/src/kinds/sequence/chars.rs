//! Command assembly (sequence): the character error counts of spec
//! `sequence.md` 8.3, `collect_error_counts(process_characters(refs1,
//! hyps))` per system: each used segment's `cer_default` characters
//! (`strip`, code points) aligned as CER aligns them, each chunk's
//! characters joined with nothing (a chunk may be or hold a space). The
//! per-segment counts are CER's own statistics (`run`); the tables are
//! `segment_char_counts` and `char_error_counts` (`tables`).
//!
//! Defines no metric (alignment and chunks are
//! `rsmreport_metrics::sequence::wer`'s); reads and writes nothing.

use rsmreport_config::sequence::SequenceConfig;
use rsmreport_metrics::sequence::jiwer::CHAR_SEPARATOR;
use rsmreport_metrics::sequence::wer::{self, ErrorCounts};

use super::read::Segments;

/// Whether the character counts are asked for (`cer` among the metrics).
pub fn wanted(cfg: &SequenceConfig) -> bool {
    cfg.metrics.iter().any(|m| m == "cer")
}

/// Each system's character error counts (finished), one thread per
/// system; empty without `cer`.
pub fn error_counts(cfg: &SequenceConfig, seg: &Segments) -> Vec<ErrorCounts> {
    if !wanted(cfg) {
        return Vec::new();
    }
    let used: Vec<(usize, Vec<String>)> = (0..seg.n())
        .filter_map(|i| seg.refs[0][i].as_deref().map(|r| (i, wer::chars(r))))
        .collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..seg.systems.len())
            .map(|s| {
                let used = &used;
                scope.spawn(move || {
                    let mut counts = ErrorCounts::default();
                    for (i, r) in used {
                        let h = wer::chars(&seg.hyps[s][*i]);
                        let a = wer::align_tokens(r, &h);
                        wer::add_error_counts(&a, r, &h, CHAR_SEPARATOR, &mut counts);
                    }
                    counts.finish();
                    counts
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("character error counts thread"))
            .collect()
    })
}
