//! Command assembly (sequence): every system's segment statistics (spec
//! `sequence.md` 2), on threads: the references prepared once per chunk of
//! segments for every system, consecutive parts of the segments on their
//! own threads joined in order (the same values as one thread), jiwer's
//! word alignment and error counts, and each system's sentence scores.
//!
//! Defines no metric of its own (`rsmreport_metrics::sequence` does);
//! reads and writes nothing.

use rsmreport_config::sequence::SequenceConfig;
use rsmreport_metrics::sequence::bleu::{bleu_from_stats, BleuOptions, BleuRefs, BleuScore};
use rsmreport_metrics::sequence::chrf::ChrfRefs;
use rsmreport_metrics::sequence::errors::WordIds;
use rsmreport_metrics::sequence::ter::TerRefs;
use rsmreport_metrics::sequence::wer::{self, ErrorCounts};

use super::families::{chrf_options, families, family, score, Family, Stats};
use super::pipelines::{for_each_word, words, Side};
use super::read::Segments;

/// Per-segment word alignment of one system (WER segments only).
#[derive(Debug, Clone, Default)]
pub struct WordSegment {
    pub alignment: wer::Alignment,
    pub ref_words: Vec<String>,
    pub hyp_words: Vec<String>,
}

/// The word alignment of segment `i` of system `s`, recomputed for the
/// report (only WER segments, and only with a WER-family metric: the run
/// keeps counts, not every segment's alignment).
pub fn word_segment(
    cfg: &SequenceConfig,
    seg: &Segments,
    s: usize,
    i: usize,
) -> Option<WordSegment> {
    if !families(cfg).contains(&Family::Word) {
        return None;
    }
    let ref_text = seg.refs[0][i].as_deref()?;
    let ref_words = words(cfg, seg, (Side::Reference, i), ref_text);
    let hyp_words = words(cfg, seg, (Side::Hypothesis(s), i), &seg.hyps[s][i]);
    Some(WordSegment {
        alignment: wer::align_tokens(&ref_words, &hyp_words),
        ref_words,
        hyp_words,
    })
}

/// One system's statistics and per-segment results.
#[derive(Debug, Clone)]
pub struct SystemRun {
    pub name: String,
    pub stats: Vec<Stats>,
    /// Per metric (config order): sentence scores, `None` = empty cell.
    pub segment_scores: Vec<Vec<Option<f64>>>,
    pub errors: ErrorCounts,
    /// The WER family's corpus `[H, S, D, I, N, P]` where they are not
    /// the segments' sums (list-aware `[wer]` pipelines:
    /// [`super::pipelines::corpus`]).
    pub corpus_words: Option<Vec<f64>>,
}

impl SystemRun {
    pub fn stats(&self, f: Family) -> &Stats {
        self.stats
            .iter()
            .find(|s| s.family == f)
            .expect("family computed")
    }

    /// A family's corpus sums over the `n` segments.
    pub fn corpus_sums(&self, f: Family, n: usize) -> Vec<f64> {
        match (&self.corpus_words, f) {
            (Some(sums), Family::Word) => sums.clone(),
            _ => self.stats(f).sums(0..n),
        }
    }
}

/// Prepared references of every segment, shared by the systems.
struct Prepared {
    /// Segments of the chunk.
    n: usize,
    bleu: Vec<BleuRefs>,
    chrf: Vec<ChrfRefs>,
    chrfpp: Vec<ChrfRefs>,
    ter: Vec<TerRefs>,
    words: Vec<Option<WordRef>>,
    chars: Vec<Option<Vec<String>>>,
}

/// A segment's WER reference, prepared once for every system: its words'
/// ids in the thread's [`WordIds`] (the error counts' ids too). The
/// alignment compares only reference with hypothesis words, so ids that
/// are equal exactly where the words are equal are all it needs.
struct WordRef {
    ids: Vec<u32>,
}

impl WordRef {
    fn new(cfg: &SequenceConfig, seg: &Segments, i: usize, names: &mut WordIds) -> Option<WordRef> {
        let text = seg.refs[0][i].as_deref()?;
        let mut ids = Vec::new();
        for_each_word(cfg, seg, (Side::Reference, i), text, |w| {
            ids.push(names.id(w))
        });
        Some(WordRef { ids })
    }
}

/// One thread's working memory for the WER segments, reused from segment
/// to segment, and its word ids (shared by the systems and the error
/// counts).
#[derive(Default)]
struct WordScratch {
    ids: Vec<u32>,
    names: WordIds,
    align: wer::AlignScratch,
}

/// One system's WER counts and error entries on one segment (`at`:
/// system, segment): the hypothesis words given the thread's ids.
fn word_row(
    (cfg, seg): (&SequenceConfig, &Segments),
    r: &WordRef,
    at: (usize, usize),
    scratch: &mut WordScratch,
    errors: &mut ErrorCounts,
) -> [f64; 6] {
    let (ids, names) = (&mut scratch.ids, &mut scratch.names);
    ids.clear();
    let (hyp, side) = (&seg.hyps[at.0][at.1], (Side::Hypothesis(at.0), at.1));
    for_each_word(cfg, seg, side, hyp, |w| ids.push(names.id(w)));
    let a = wer::align_with(&r.ids, ids, &mut scratch.align);
    for c in &a.chunks {
        let side = |e: &mut ErrorCounts, w: &[u32], from: usize, to: usize| {
            if from < to {
                e.side_of(&w[from..to])
            } else {
                0
            }
        };
        if c.tag != wer::Tag::Equal {
            let rs = side(errors, &r.ids, c.ref_start, c.ref_end);
            let hs = side(errors, ids, c.hyp_start, c.hyp_end);
            errors.count(rs, hs);
        }
    }
    [
        a.hits as f64,
        a.substitutions as f64,
        a.deletions as f64,
        a.insertions as f64,
        a.ref_len as f64,
        a.hyp_len as f64,
    ]
}

fn prepare(
    cfg: &SequenceConfig,
    seg: &Segments,
    fams: &[Family],
    range: std::ops::Range<usize>,
    names: &mut WordIds,
) -> Prepared {
    let has = |f: Family| fams.contains(&f);
    let refs: Vec<Vec<&str>> = range.clone().map(|i| seg.present_refs(i)).collect();
    let first: Vec<Option<&str>> = range.clone().map(|i| seg.refs[0][i].as_deref()).collect();
    // WER and CER references of the first stream; `None` where it is missing
    let first_tokens = |f: Family, tokens: &dyn Fn(&str) -> Vec<String>| {
        if has(f) {
            first.iter().map(|r| r.map(tokens)).collect()
        } else {
            vec![None; first.len()]
        }
    };
    Prepared {
        n: range.len(),
        bleu: if has(Family::Bleu) {
            refs.iter().map(|r| BleuRefs::new(&cfg.bleu, r)).collect()
        } else {
            Vec::new()
        },
        chrf: if has(Family::Chrf) {
            let o = chrf_options(cfg, Family::Chrf);
            refs.iter().map(|r| ChrfRefs::new(&o, r)).collect()
        } else {
            Vec::new()
        },
        chrfpp: if has(Family::ChrfPP) {
            let o = chrf_options(cfg, Family::ChrfPP);
            refs.iter().map(|r| ChrfRefs::new(&o, r)).collect()
        } else {
            Vec::new()
        },
        ter: if has(Family::Ter) {
            refs.iter().map(|r| TerRefs::new(&cfg.ter, r)).collect()
        } else {
            Vec::new()
        },
        words: if has(Family::Word) {
            range
                .clone()
                .map(|i| WordRef::new(cfg, seg, i, names))
                .collect()
        } else {
            Vec::new()
        },
        chars: first_tokens(Family::Char, &wer::chars),
    }
}

/// Appends one system's statistics (and WER error counts) on the chunk's
/// segments `start..start + p.n` to `into`.
fn system_run(
    cfg: &SequenceConfig,
    seg: &Segments,
    p: &Prepared,
    (s, start): (usize, usize),
    scratch: &mut WordScratch,
    into: &mut SystemRun,
) {
    let n = p.n;
    let hyps = &seg.hyps[s][start..start + n];
    let errors = &mut into.errors;
    for st in into.stats.iter_mut() {
        let (f, k, v) = (st.family, st.k, &mut st.values);
        match f {
            Family::Bleu => {
                for (pr, h) in p.bleu.iter().zip(hyps) {
                    v.extend(pr.stats(&cfg.bleu, h).into_iter().map(|x| x as f64));
                }
            }
            Family::Chrf | Family::ChrfPP => {
                let o = chrf_options(cfg, f);
                let refs = if f == Family::Chrf {
                    &p.chrf
                } else {
                    &p.chrfpp
                };
                let mut row = Vec::with_capacity(k);
                for (pr, h) in refs.iter().zip(hyps) {
                    pr.stats_into(&o, h, &mut row);
                    v.extend(row.iter().map(|&x| x as f64));
                    v.extend(std::iter::repeat_n(0.0, k - row.len()));
                }
            }
            Family::Ter => {
                for (pr, h) in p.ter.iter().zip(hyps) {
                    let (e, l) = pr.stats(&cfg.ter, h);
                    v.extend([e as f64, l]);
                }
            }
            Family::Word => {
                for (j, r) in p.words.iter().enumerate() {
                    match r {
                        Some(r) => {
                            let row = word_row((cfg, seg), r, (s, start + j), scratch, errors);
                            v.extend(row)
                        }
                        None => v.extend([0.0; 6]),
                    }
                }
            }
            Family::Char => {
                for (r, hyp) in p.chars.iter().zip(hyps) {
                    let Some(r) = r else {
                        v.extend([0.0; 6]);
                        continue;
                    };
                    let a = wer::align_tokens(r, &wer::chars(hyp));
                    v.extend([
                        a.hits as f64,
                        a.substitutions as f64,
                        a.deletions as f64,
                        a.insertions as f64,
                        a.ref_len as f64,
                        a.hyp_len as f64,
                    ]);
                }
            }
        }
    }
}

/// Segments per chunk: a chunk's prepared references (chrF's n-gram tables
/// are the largest part) stay in cache while every system reads them.
const CHUNK: usize = 16;

/// Appends a later part's statistics and error counts, system by system.
fn append_parts(systems: &mut Vec<SystemRun>, parts: Vec<SystemRun>) {
    if systems.is_empty() {
        *systems = parts;
        return;
    }
    for (sys, part) in systems.iter_mut().zip(parts) {
        for (a, b) in sys.stats.iter_mut().zip(part.stats) {
            a.values.extend_from_slice(&b.values);
        }
        sys.errors.merge(part.errors);
    }
}

/// A system with no statistics yet (each family's row width set, room
/// for `n` segments' rows: the columns are not copied as they grow).
fn empty_run(
    cfg: &SequenceConfig,
    seg: &Segments,
    fams: &[Family],
    (s, n): (usize, usize),
) -> SystemRun {
    let stats = fams
        .iter()
        .map(|&f| {
            let k = match f {
                Family::Bleu => 2 + 2 * cfg.bleu.max_order,
                Family::Chrf | Family::ChrfPP => 3 * chrf_options(cfg, f).order(),
                Family::Ter => 2,
                Family::Word | Family::Char => 6,
            };
            Stats {
                family: f,
                k,
                values: Vec::with_capacity(n * k),
            }
        })
        .collect();
    SystemRun {
        name: seg.systems[s].clone(),
        stats,
        segment_scores: Vec::new(),
        errors: ErrorCounts::default(),
        corpus_words: None,
    }
}

/// Every system's statistics on the segments of `range`, chunk by chunk.
fn range_systems(
    cfg: &SequenceConfig,
    seg: &Segments,
    fams: &[Family],
    range: std::ops::Range<usize>,
) -> Vec<SystemRun> {
    // the first part's columns have room for every segment: the later
    // parts are appended to them without moving them
    let room = if range.start == 0 {
        seg.n()
    } else {
        range.len()
    };
    let mut systems: Vec<SystemRun> = (0..seg.systems.len())
        .map(|s| empty_run(cfg, seg, fams, (s, room)))
        .collect();
    let mut scratch = WordScratch::default();
    let mut start = range.start;
    while start < range.end {
        let end = (start + CHUNK).min(range.end);
        let prepared = prepare(cfg, seg, fams, start..end, &mut scratch.names);
        for (s, sys) in systems.iter_mut().enumerate() {
            system_run(cfg, seg, &prepared, (s, start), &mut scratch, sys);
        }
        start = end;
    }
    // the error counts' words are the thread's, numbered once for all systems
    for sys in systems.iter_mut() {
        sys.errors.use_words(scratch.names.clone(), " ");
    }
    systems
}

/// Every system's statistics: consecutive parts of the segments on their
/// own threads, joined in order (the same values as one thread).
pub(super) fn all_systems(cfg: &SequenceConfig, seg: &Segments, fams: &[Family]) -> Vec<SystemRun> {
    let n = seg.n();
    let threads = std::thread::available_parallelism()
        .map_or(1, |t| t.get())
        .clamp(1, 8);
    let per = n.div_ceil(threads).max(CHUNK);

    let parts: Vec<Vec<SystemRun>> =
        rsmreport_core::provenance::timed("statistics: segments", || {
            std::thread::scope(|scope| {
                let handles: Vec<_> = (0..n.div_ceil(per).max(1))
                    .map(|t| {
                        let range = (t * per).min(n)..((t + 1) * per).min(n);
                        scope.spawn(move || range_systems(cfg, seg, fams, range))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("statistics thread"))
                    .collect()
            })
        });
    let mut systems: Vec<SystemRun> = Vec::new();
    rsmreport_core::provenance::timed("statistics: join", || {
        for part in parts {
            append_parts(&mut systems, part);
        }
    });
    // each system's sentence scores and its error counts' finish as tasks
    // of their own (twice as many threads as systems: the cores stay busy
    // to the end with three systems on two cores)
    let mut errors: Vec<ErrorCounts> = systems
        .iter_mut()
        .map(|s| std::mem::take(&mut s.errors))
        .collect();
    let scores: Vec<Vec<Vec<Option<f64>>>> =
        rsmreport_core::provenance::timed("statistics: sentence scores", || {
            std::thread::scope(|scope| {
                for e in errors.iter_mut() {
                    scope.spawn(move || e.finish());
                }
                let handles: Vec<_> = systems
                    .iter()
                    .map(|sys| {
                        scope.spawn(move || {
                            cfg.metrics
                                .iter()
                                .filter(|m| *m != "perplexity")
                                .map(|m| segment_scores(cfg, seg, sys, m))
                                .collect()
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("sentence scores thread"))
                    .collect()
            })
        });
    for ((sys, e), sc) in systems.iter_mut().zip(errors).zip(scores) {
        sys.errors = e;
        sys.segment_scores = sc;
    }
    systems
}

fn segment_scores(
    cfg: &SequenceConfig,
    seg: &Segments,
    run: &SystemRun,
    metric: &str,
) -> Vec<Option<f64>> {
    let st = run.stats(family(metric));
    // sentence BLEU: sacreBLEU's effective order
    let sentence_bleu = BleuOptions {
        effective_order: true,
        ..cfg.bleu.clone()
    };
    (0..seg.n())
        .map(|i| {
            let row = st.row(i);
            match st.family {
                Family::Bleu => Some(bleu_from_stats(row, &sentence_bleu, false).score),
                Family::Word | Family::Char => seg.refs[0][i]
                    .as_ref()
                    .map(|_| score(cfg, metric, row, false).0),
                _ => Some(score(cfg, metric, row, false).0),
            }
        })
        .collect()
}

/// The sacreBLEU `BLEUScore` of a system's corpus.
pub fn bleu_corpus(cfg: &SequenceConfig, sys: &SystemRun, n: usize) -> BleuScore {
    bleu_from_stats(&sys.stats(Family::Bleu).sums(0..n), &cfg.bleu, false)
}
