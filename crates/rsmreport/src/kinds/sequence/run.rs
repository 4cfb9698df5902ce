//! Command assembly (sequence): every number of spec `sequence.md` 2-3 from
//! the metric core (`rsmreport_metrics::sequence`): segment statistics per
//! system, corpus and sentence scores, sacreBLEU's bootstrap with numpy's
//! index stream and its binary32 arithmetic, approximate randomization,
//! percentile intervals, differences, verdicts (compare's words), Holm,
//! subgroups and length buckets, jiwer's error counts.
//!
//! Defines no metric of its own; reads and writes nothing.

use crate::kinds::compare::verdict as words;
use rsmreport_config::sequence::{larger_is_better, SequenceConfig};
use rsmreport_metrics::bootstrap::percentile_interval;
use rsmreport_metrics::paired::{bootstrap_p_value, holm};
use rsmreport_metrics::sequence::bleu::{bleu_from_stats, BleuOptions, BleuRefs, BleuScore};
use rsmreport_metrics::sequence::chrf::{chrf_typed, ChrfOptions, ChrfRefs};
use rsmreport_metrics::sequence::errors::WordIds;
use rsmreport_metrics::sequence::ter::{ter_from_stats, TerRefs};
use rsmreport_metrics::sequence::text::py_split;
use rsmreport_metrics::sequence::wer::{self, ErrorCounts};

use std::collections::HashMap;

use rsmreport_core::table::FxBuild;

use super::parts::{Grouping, Subsets};
use super::pipelines::{for_each_word, words, Side};
use super::read::Segments;

/// The statistic families: metrics computed from the same segment sums.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Bleu,
    Chrf,
    ChrfPP,
    Ter,
    Word,
    Char,
}

/// The family of a metric key (not perplexity).
pub fn family(metric: &str) -> Family {
    match metric {
        "bleu" => Family::Bleu,
        "chrf" => Family::Chrf,
        "chrf++" => Family::ChrfPP,
        "ter" => Family::Ter,
        "cer" => Family::Char,
        _ => Family::Word,
    }
}

/// Whether the metric is one of sacreBLEU's.
pub fn is_sacre(metric: &str) -> bool {
    matches!(metric, "bleu" | "chrf" | "chrf++" | "ter")
}

/// One family's segment statistics: `n` rows of `k` values.
#[derive(Debug, Clone)]
pub struct Stats {
    pub family: Family,
    pub k: usize,
    pub values: Vec<f64>,
}

impl Stats {
    fn row(&self, i: usize) -> &[f64] {
        &self.values[i * self.k..(i + 1) * self.k]
    }

    /// Column sums over `rows`.
    pub fn sums(&self, rows: impl Iterator<Item = usize>) -> Vec<f64> {
        let mut out = vec![0.0; self.k];
        for i in rows {
            for (o, v) in out.iter_mut().zip(self.row(i)) {
                *o += v;
            }
        }
        out
    }
}

/// The chrF options of a chrF-family metric.
pub fn chrf_options(cfg: &SequenceConfig, f: Family) -> ChrfOptions {
    match f {
        Family::ChrfPP => ChrfOptions {
            word_order: 2,
            ..cfg.chrf.clone()
        },
        _ => cfg.chrf.clone(),
    }
}

/// A metric's value from summed statistics: the value and whether sacreBLEU
/// would hold it as a numpy float32 (`binary32` = float32 statistics).
pub fn score(cfg: &SequenceConfig, metric: &str, sums: &[f64], binary32: bool) -> (f64, bool) {
    match family(metric) {
        Family::Bleu => (bleu_from_stats(sums, &cfg.bleu, binary32).score, false),
        f @ (Family::Chrf | Family::ChrfPP) => chrf_typed(sums, &chrf_options(cfg, f), binary32),
        Family::Ter => {
            let v = ter_from_stats(sums[0], sums[1], binary32);
            (v, binary32 && sums[1] > 0.0)
        }
        Family::Word | Family::Char => {
            // [H, S, D, I, N, P]
            let m = wer::measures(sums[0], sums[1], sums[2], sums[3], sums[4], sums[5]);
            let v = match metric {
                "mer" => m[1],
                "wil" => m[2],
                "wip" => m[3],
                _ => m[0],
            };
            (v, false)
        }
    }
}

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

/// The families the metrics need.
pub fn families(cfg: &SequenceConfig) -> Vec<Family> {
    let mut out: Vec<Family> = Vec::new();
    for m in cfg.metrics.iter().filter(|m| *m != "perplexity") {
        let f = family(m);
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out
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
fn all_systems(cfg: &SequenceConfig, seg: &Segments, fams: &[Family]) -> Vec<SystemRun> {
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

/// One compared metric of a candidate.
#[derive(Debug, Clone)]
pub struct Comparison {
    pub metric: String,
    pub baseline: f64,
    pub baseline_lower: f64,
    pub baseline_upper: f64,
    pub candidate: f64,
    pub candidate_lower: f64,
    pub candidate_upper: f64,
    pub delta: f64,
    pub delta_lower: f64,
    pub delta_upper: f64,
    pub gain: f64,
    pub gain_lower: f64,
    pub gain_upper: f64,
    pub p_value: f64,
    pub p_holm: f64,
    pub verdict: String,
    pub margin: f64,
    pub p_paired_bs: Option<f64>,
    pub p_ar: Option<f64>,
}

/// A subset's corpus score: (system, metric, n_segments, score) and its
/// percentile interval from the overall bootstrap's replicates (NaN
/// without intervals, or where over 1% of the replicates have no score).
#[derive(Debug, Clone)]
pub struct SubsetScore {
    pub system: String,
    pub metric: String,
    pub n_segments: usize,
    pub score: f64,
    pub lower: f64,
    pub upper: f64,
}

/// A length bucket: label, lower and upper length (none for `60+`),
/// segments, scores.
pub type Bucket = (String, usize, Option<usize>, usize, Vec<SubsetScore>);

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
    pub char_errors: Vec<ErrorCounts>,
    /// The quality gates' results (filled after the run).
    pub gates: Vec<crate::gates::Outcome>,
}

/// One level of a subgroup column: level, segments, scores.
pub type Subset<'a> = (String, usize, &'a [SubsetScore]);

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
        cfg.metrics
            .iter()
            .map(String::as_str)
            .filter(|m| *m != "perplexity")
            .collect()
    }
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
    let metrics: Vec<&str> = cfg
        .metrics
        .iter()
        .map(String::as_str)
        .filter(|m| *m != "perplexity")
        .collect();
    let mut results: Vec<Vec<MetricResult>> = systems
        .iter()
        .map(|sys| {
            metrics
                .iter()
                .map(|m| {
                    let sums = sys.corpus_sums(family(m), n);
                    MetricResult::estimate(m, score(cfg, m, &sums, false).0, n_segments_of(&seg, m))
                })
                .collect()
        })
        .collect();
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
    let counts: std::collections::BTreeSet<usize> =
        (0..n).map(|i| seg.present_refs(i).len()).collect();
    let nrefs = if counts.len() == 1 {
        counts
            .iter()
            .next()
            .map(|c| c.to_string())
            .unwrap_or_default()
    } else {
        "var".into()
    };
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
        nrefs: if n == 0 { "0".into() } else { nrefs },
        wer_segments,
        ppl,
        char_errors,
        gates: Vec::new(),
    })
}

fn ppl_row(
    cfg: &SequenceConfig,
    iv: rsmreport_config::sequence::SeqIntervals,
    c: &super::ppl::PplRun,
    b: &super::ppl::PplRun,
) -> Comparison {
    let paired = super::ppl::paired(c, b);
    let diffs: Vec<f64> = if paired {
        c.replicates
            .iter()
            .zip(&b.replicates)
            .map(|(x, y)| x - y)
            .collect()
    } else {
        Vec::new()
    };
    let d = percentile_interval(&diffs, iv.level);
    let delta = c.numbers.perplexity - b.numbers.perplexity;
    Comparison {
        metric: "perplexity".into(),
        baseline: b.numbers.perplexity,
        baseline_lower: b.lower,
        baseline_upper: b.upper,
        candidate: c.numbers.perplexity,
        candidate_lower: c.lower,
        candidate_upper: c.upper,
        delta,
        delta_lower: d.lower,
        delta_upper: d.upper,
        gain: -delta,
        gain_lower: -d.upper,
        gain_upper: -d.lower,
        p_value: if paired {
            bootstrap_p_value(&diffs)
        } else {
            f64::NAN
        },
        p_holm: f64::NAN,
        verdict: String::new(),
        margin: cfg.margin("perplexity"),
        p_paired_bs: c.bs_p,
        p_ar: None,
    }
}

fn compare(
    cfg: &SequenceConfig,
    systems: &[SystemRun],
    results: &[Vec<MetricResult>],
    baseline: usize,
    ppl: &[super::ppl::PplRun],
) -> Vec<(usize, Vec<Comparison>)> {
    let Some(iv) = cfg.intervals else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (s, _) in systems.iter().enumerate().filter(|(s, _)| *s != baseline) {
        let mut rows: Vec<Comparison> = results[s]
            .iter()
            .zip(&results[baseline])
            .map(|(c, b)| {
                let diffs: Vec<f64> = c
                    .replicates
                    .iter()
                    .zip(&b.replicates)
                    .map(|(x, y)| x - y)
                    .collect();
                let iv_d = percentile_interval(&diffs, iv.level);
                let delta = c.score - b.score;
                let larger = larger_is_better(&c.metric);
                let (gain, gl, gu) = if larger {
                    (delta, iv_d.lower, iv_d.upper)
                } else {
                    (-delta, -iv_d.upper, -iv_d.lower)
                };
                Comparison {
                    metric: c.metric.clone(),
                    baseline: b.score,
                    baseline_lower: b.lower,
                    baseline_upper: b.upper,
                    candidate: c.score,
                    candidate_lower: c.lower,
                    candidate_upper: c.upper,
                    delta,
                    delta_lower: iv_d.lower,
                    delta_upper: iv_d.upper,
                    gain,
                    gain_lower: gl,
                    gain_upper: gu,
                    p_value: bootstrap_p_value(&diffs),
                    p_holm: f64::NAN,
                    verdict: String::new(),
                    margin: cfg.margin(&c.metric),
                    p_paired_bs: c.bs_p,
                    p_ar: c.ar_p,
                }
            })
            .collect();
        let find = |name: &str| ppl.iter().find(|p| p.system == name);
        if let (Some(c), Some(b)) = (find(&systems[s].name), find(&systems[baseline].name)) {
            rows.push(ppl_row(cfg, iv, c, b));
        }
        let p: Vec<f64> = rows.iter().map(|r| r.p_value).collect();
        for (r, ph) in rows.iter_mut().zip(holm(&p)) {
            r.p_holm = ph;
            let rules = words::Rules {
                paired: true,
                holm: Some((ph, iv.level)),
            };
            r.verdict = words::verdict(r.gain_lower, r.gain_upper, r.margin, rules)
                .name()
                .to_string();
        }
        out.push((s, rows));
    }
    out
}

/// What every subset's scores are computed from.
type SubsetInputs<'a> = (
    &'a SequenceConfig,
    &'a Segments,
    &'a [SystemRun],
    &'a [&'a str],
);

/// One subset's scores, system by system and metric by metric, with the
/// intervals `iv` (the same order) when there are any.
fn subset_scores(
    (cfg, seg, systems, metrics): SubsetInputs,
    rows: &[usize],
    iv: Option<&Vec<(f64, f64)>>,
) -> Vec<SubsetScore> {
    let mut out = Vec::new();
    for (s, sys) in systems.iter().enumerate() {
        for m in metrics {
            let st = sys.stats(family(m));
            let used: Vec<usize> = match family(m) {
                Family::Word | Family::Char => rows
                    .iter()
                    .copied()
                    .filter(|&i| seg.refs[0][i].is_some())
                    .collect(),
                _ => rows.to_vec(),
            };
            let sums = st.sums(used.iter().copied());
            let (lower, upper) = iv
                .and_then(|iv| iv.get(out.len()))
                .copied()
                .unwrap_or((f64::NAN, f64::NAN));
            let value = if used.is_empty() {
                f64::NAN
            } else {
                score(cfg, m, &sums, false).0
            };
            let (value, lower, upper) =
                super::pipelines::subset_cell(cfg, seg, (s, m), &used, (value, lower, upper));
            out.push(SubsetScore {
                system: sys.name.clone(),
                metric: m.to_string(),
                n_segments: used.len(),
                score: value,
                lower,
                upper,
            });
        }
    }
    out
}

/// Each subgroup column's levels (sorted) and each segment's level.
fn subgroup_groupings(seg: &Segments) -> Vec<(Vec<String>, Grouping)> {
    seg.subgroups
        .iter()
        .map(|(_, levels)| {
            let distinct: std::collections::BTreeSet<&str> =
                levels.iter().map(String::as_str).collect();
            let index: HashMap<&str, u32, FxBuild> = distinct
                .iter()
                .enumerate()
                .map(|(i, &l)| (l, i as u32))
                .collect();
            let of = levels.iter().map(|l| index[l.as_str()]).collect();
            let names = distinct.into_iter().map(str::to_string).collect();
            (
                names,
                Grouping {
                    levels: index.len(),
                    of,
                },
            )
        })
        .collect()
}

fn subsets_by_group<'a>(
    inputs: SubsetInputs,
    groupings: &[(Vec<String>, Grouping)],
    iv: impl Fn(usize, usize) -> Option<&'a Vec<(f64, f64)>>,
) -> Vec<(String, String, usize, Vec<SubsetScore>)> {
    let mut out = Vec::new();
    for (j, ((g, _), (names, grouping))) in inputs.1.subgroups.iter().zip(groupings).enumerate() {
        for (l, level) in names.iter().enumerate() {
            let rows: Vec<usize> = (0..inputs.1.n())
                .filter(|&i| grouping.of[i] as usize == l)
                .collect();
            out.push((
                g.clone(),
                level.clone(),
                rows.len(),
                subset_scores(inputs, &rows, iv(j, l)),
            ));
        }
    }
    out
}

/// Each segment's length bucket (spec 2.6): the words of its first
/// present reference by tens, `60+` last.
fn bucket_grouping(seg: &Segments) -> Grouping {
    let of = (0..seg.n())
        .map(|i| {
            let first = seg
                .present_refs(i)
                .first()
                .map_or(0, |r| py_split(r).count());
            (first / 10).min(6) as u32
        })
        .collect();
    Grouping { levels: 7, of }
}

fn length_buckets<'a>(
    inputs: SubsetInputs,
    buckets: &Grouping,
    iv: impl Fn(usize) -> Option<&'a Vec<(f64, f64)>>,
) -> Vec<Bucket> {
    let mut out = Vec::new();
    for k in 0..=6 {
        let rows: Vec<usize> = (0..inputs.1.n())
            .filter(|&i| buckets.of[i] as usize == k)
            .collect();
        if rows.is_empty() {
            continue;
        }
        let (label, upper) = if k == 6 {
            ("60+".to_string(), None)
        } else {
            (format!("{}-{}", 10 * k, 10 * k + 9), Some(10 * k + 9))
        };
        out.push((
            label,
            10 * k,
            upper,
            rows.len(),
            subset_scores(inputs, &rows, iv(k)),
        ));
    }
    out
}

/// The sacreBLEU `BLEUScore` of a system's corpus.
pub fn bleu_corpus(cfg: &SequenceConfig, sys: &SystemRun, n: usize) -> BleuScore {
    bleu_from_stats(&sys.stats(Family::Bleu).sums(0..n), &cfg.bleu, false)
}
