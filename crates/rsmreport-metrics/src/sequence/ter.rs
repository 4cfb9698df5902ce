//! TER as sacreBLEU 2.6.0's Tercom port computes it (sequence.md 2.3):
//! greedy block shifts and a beam edit distance per hypothesis-reference
//! pair (`lib_ter.translation_edit_rate`), segment statistics `[edits, mean
//! reference length]` and the corpus score from their sums. Pure maths on
//! token lists; no I/O.

use std::collections::HashMap;

use super::text::{py_rstrip, py_split};
use super::tokenize::{tokenize_ter, TerOptions};
use rsmreport_core::table::FxBuild;

const MAX_SHIFT_SIZE: usize = 10;
const MAX_SHIFT_DIST: usize = 50;
const BEAM_WIDTH: usize = 25;
const MAX_SHIFT_CANDIDATES: usize = 1000;
const INF: u64 = 10_000_000_000_000_000;

const OP_INS: u8 = b'i';
const OP_DEL: u8 = b'd';
const OP_NOP: u8 = b' ';
const OP_SUB: u8 = b's';
const OP_UNDEF: u8 = b'x';

impl TerOptions {
    /// The signature without bootstrap keys.
    pub fn signature(&self, nrefs: &str, extra: &str) -> String {
        format!(
            "nrefs:{nrefs}{extra}|case:{}|tok:tercom|norm:{}|punct:{}|asian:{}|version:2.6.0",
            if self.case_sensitive { "mixed" } else { "lc" },
            if self.normalized { "yes" } else { "no" },
            if self.no_punct { "no" } else { "yes" },
            if self.asian_support { "yes" } else { "no" }
        )
    }

    /// `_preprocess_segment` then `split()`.
    pub fn words(&self, s: &str) -> Vec<String> {
        py_split(&tokenize_ter(py_rstrip(s), *self))
            .map(str::to_string)
            .collect()
    }
}

/// The beam edit distance of sacreBLEU's `BeamEditDistance` (without its
/// cache, which only saves work): the distance and the trace of operations
/// rewriting the hypothesis into the reference.
fn beam_edit_distance(hyp: &[u32], reference: &[u32]) -> (u64, Vec<u8>) {
    let (nh, nr) = (hyp.len(), reference.len());
    let width = nr + 1;
    let mut dist = vec![(INF, OP_UNDEF); (nh + 1) * width];
    for (j, cell) in dist.iter_mut().take(width).enumerate() {
        *cell = (j as u64, OP_INS);
    }
    let ratio = if nh > 0 { nr as f64 / nh as f64 } else { 1.0 };
    let beam = if (BEAM_WIDTH as f64) < ratio / 2.0 {
        (ratio / 2.0 + BEAM_WIDTH as f64).ceil() as i64
    } else {
        BEAM_WIDTH as i64
    };
    for i in 1..=nh {
        let diag = (i as f64 * ratio).floor() as i64;
        let min_j = (diag - beam).max(0) as usize;
        let mut max_j = ((nr + 1) as i64).min(diag + beam).max(0) as usize;
        if i == nh {
            max_j = nr + 1;
        }
        for j in min_j..max_j {
            let here = i * width + j;
            if j == 0 {
                dist[here] = (dist[here - width].0 + 1, OP_DEL);
                continue;
            }
            let (cost, op) = if hyp[i - 1] == reference[j - 1] {
                (0, OP_NOP)
            } else {
                (1, OP_SUB)
            };
            let options = [
                (dist[here - width - 1].0 + cost, op),
                (dist[here - width].0 + 1, OP_DEL),
                (dist[here - 1].0 + 1, OP_INS),
            ];
            for (c, o) in options {
                if dist[here].0 > c {
                    dist[here] = (c, o);
                }
            }
        }
    }
    let mut trace = Vec::new();
    let (mut i, mut j) = (nh, nr);
    while i > 0 || j > 0 {
        let op = dist[i * width + j].1;
        trace.push(op);
        match op {
            OP_SUB | OP_NOP => {
                i -= 1;
                j -= 1;
            }
            OP_INS => j -= 1,
            OP_DEL => i -= 1,
            _ => break,
        }
    }
    trace.reverse();
    (dist[nh * width + nr].0, trace)
}

/// `trace_to_alignment` of the flipped trace: `align` per reference
/// position (hypothesis position, -1 before the first), error flags.
fn alignment(inv_trace: &[u8], nr: usize) -> (Vec<i64>, Vec<u8>, Vec<u8>) {
    let (mut pos_hyp, mut pos_ref) = (-1i64, -1i64);
    let mut align = vec![-1i64; nr];
    let (mut ref_err, mut hyp_err) = (Vec::new(), Vec::new());
    for &op in inv_trace {
        // flipped: an insertion of the inverse trace is a deletion here
        match op {
            OP_NOP | OP_SUB => {
                pos_hyp += 1;
                pos_ref += 1;
                align[pos_ref as usize] = pos_hyp;
                let e = u8::from(op == OP_SUB);
                hyp_err.push(e);
                ref_err.push(e);
            }
            OP_DEL => {
                pos_hyp += 1;
                hyp_err.push(1);
            }
            OP_INS => {
                pos_ref += 1;
                align[pos_ref as usize] = pos_hyp;
                ref_err.push(1);
            }
            _ => {}
        }
    }
    (align, ref_err, hyp_err)
}

fn slice(v: &[u32], a: usize, b: usize) -> &[u32] {
    let a = a.min(v.len());
    let b = b.min(v.len());
    if a >= b {
        &[]
    } else {
        &v[a..b]
    }
}

/// `_perform_shift` (Python slices clamp).
fn perform_shift(words: &[u32], start: usize, length: usize, target: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(words.len());
    if target < start {
        out.extend_from_slice(slice(words, 0, target));
        out.extend_from_slice(slice(words, start, start + length));
        out.extend_from_slice(slice(words, target, start));
        out.extend_from_slice(slice(words, start + length, usize::MAX));
    } else if target > start + length {
        out.extend_from_slice(slice(words, 0, start));
        out.extend_from_slice(slice(words, start + length, target));
        out.extend_from_slice(slice(words, start, start + length));
        out.extend_from_slice(slice(words, target, usize::MAX));
    } else {
        out.extend_from_slice(slice(words, 0, start));
        out.extend_from_slice(slice(words, start + length, length + target));
        out.extend_from_slice(slice(words, start, start + length));
        out.extend_from_slice(slice(words, length + target, usize::MAX));
    }
    out
}

/// `_shift`: the best shift (gain, shifted words) and the updated number of
/// checked candidates.
fn best_shift(hyp: &[u32], reference: &[u32], checked: &mut usize) -> (i64, Vec<u32>) {
    let (pre_score, trace) = beam_edit_distance(hyp, reference);
    let (align, ref_err, hyp_err) = alignment(&trace, reference.len());
    let (nh, nr) = (hyp.len(), reference.len());
    let mut best: Best = None;
    'pairs: for start_h in 0..nh {
        for start_r in 0..nr {
            if start_r.abs_diff(start_h) > MAX_SHIFT_DIST {
                continue;
            }
            let mut length = 0;
            while hyp[start_h + length] == reference[start_r + length] && length < MAX_SHIFT_SIZE {
                length += 1;
                let stop = nh == start_h + length || nr == start_r + length;
                consider(
                    hyp,
                    reference,
                    &align,
                    &ref_err,
                    &hyp_err,
                    pre_score,
                    (start_h, start_r, length),
                    checked,
                    &mut best,
                );
                if *checked >= MAX_SHIFT_CANDIDATES {
                    break 'pairs;
                }
                if stop {
                    break;
                }
            }
        }
    }
    match best {
        None => (0, hyp.to_vec()),
        Some(((gain, ..), words)) => (gain, words),
    }
}

type Best = Option<((i64, usize, i64, i64), Vec<u32>)>;

#[allow(clippy::too_many_arguments)]
fn consider(
    hyp: &[u32],
    reference: &[u32],
    align: &[i64],
    ref_err: &[u8],
    hyp_err: &[u8],
    pre_score: u64,
    (start_h, start_r, length): (usize, usize, usize),
    checked: &mut usize,
    best: &mut Best,
) {
    let sum =
        |v: &[u8], a: usize| -> u32 { v.iter().skip(a).take(length).map(|&x| x as u32).sum() };
    if sum(hyp_err, start_h) == 0 || sum(ref_err, start_r) == 0 {
        return;
    }
    let a = align[start_r];
    if start_h as i64 <= a && a < (start_h + length) as i64 {
        return;
    }
    let mut prev_idx = -1i64;
    for offset in -1i64..length as i64 {
        let pos = start_r as i64 + offset;
        let idx = if pos == -1 {
            0
        } else if (pos as usize) < align.len() {
            align[pos as usize] + 1
        } else {
            break;
        };
        if idx == prev_idx {
            continue;
        }
        prev_idx = idx;
        let shifted = perform_shift(hyp, start_h, length, idx as usize);
        let gain = pre_score as i64 - beam_edit_distance(&shifted, reference).0 as i64;
        let key = (gain, length, -(start_h as i64), -idx);
        *checked += 1;
        if best.as_ref().is_none_or(|(k, _)| key > *k) {
            *best = Some((key, shifted));
        }
    }
}

/// `translation_edit_rate`: (edits, reference length) of one pair.
pub fn translation_edit_rate(hyp: &[u32], reference: &[u32]) -> (u64, usize) {
    if reference.is_empty() {
        return (hyp.len() as u64, 0);
    }
    let mut shifts = 0u64;
    let mut input = hyp.to_vec();
    let mut checked = 0usize;
    loop {
        let (delta, shifted) = best_shift(&input, reference, &mut checked);
        if checked >= MAX_SHIFT_CANDIDATES || delta <= 0 {
            break;
        }
        shifts += 1;
        input = shifted;
    }
    (
        shifts + beam_edit_distance(&input, reference).0,
        reference.len(),
    )
}

/// One segment's references (words), prepared once for every system.
#[derive(Debug, Clone, Default)]
pub struct TerRefs {
    refs: Vec<Vec<String>>,
}

impl TerRefs {
    pub fn new(options: &TerOptions, refs: &[&str]) -> TerRefs {
        TerRefs {
            refs: refs.iter().map(|r| options.words(r)).collect(),
        }
    }

    /// `[best edits, mean reference length]`.
    pub fn stats(&self, options: &TerOptions, hyp: &str) -> (u64, f64) {
        let hyp_words = options.words(hyp);
        let mut vocab: HashMap<&str, u32, FxBuild> = HashMap::default();
        fn id<'a>(w: &'a str, vocab: &mut HashMap<&'a str, u32, FxBuild>) -> u32 {
            let next = vocab.len() as u32;
            *vocab.entry(w).or_insert(next)
        }
        let h: Vec<u32> = hyp_words.iter().map(|w| id(w, &mut vocab)).collect();
        let mut best = u64::MAX;
        let mut lengths = 0usize;
        for r in &self.refs {
            let rr: Vec<u32> = r.iter().map(|w| id(w, &mut vocab)).collect();
            let (edits, len) = translation_edit_rate(&h, &rr);
            lengths += len;
            best = best.min(edits);
        }
        (best, lengths as f64 / self.refs.len() as f64)
    }
}

/// `_compute_score_from_stats` (x 100); `binary32` = float32 statistics.
pub fn ter_from_stats(edits: f64, ref_length: f64, binary32: bool) -> f64 {
    if ref_length > 0.0 {
        if binary32 {
            (100f32 * (edits as f32 / ref_length as f32)) as f64
        } else {
            100.0 * (edits / ref_length)
        }
    } else if edits > 0.0 {
        100.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(s: &str, vocab: &mut Vec<String>) -> Vec<u32> {
        s.split(' ')
            .map(|w| match vocab.iter().position(|v| v == w) {
                Some(i) => i as u32,
                None => {
                    vocab.push(w.to_string());
                    vocab.len() as u32 - 1
                }
            })
            .collect()
    }

    #[test]
    fn a_block_shift_costs_one() {
        let mut v = Vec::new();
        let r = ids("a b c d e f", &mut v);
        let h = ids("d e f a b c", &mut v);
        // one shift of "a b c" to the end
        assert_eq!(translation_edit_rate(&h, &r), (1, 6));
        let h2 = ids("a b x d e f", &mut v);
        assert_eq!(translation_edit_rate(&h2, &r), (1, 6));
        assert_eq!(translation_edit_rate(&h2, &[]), (6, 0));
    }

    /// sacreBLEU's README: TER 40.0 (edits 0, 3, 3; lengths 5.5, 4, 5.5).
    #[test]
    fn readme_example() {
        let o = TerOptions::default();
        let refs = [
            ["The dog bit the man.", "The dog had bit the man."],
            ["It was not unexpected.", "No one was surprised."],
            ["The man bit him first.", "The man had bitten the dog."],
        ];
        let hyps = [
            "The dog bit the man.",
            "It wasn't surprising.",
            "The man had just bitten him.",
        ];
        let stats: Vec<(u64, f64)> = refs
            .iter()
            .zip(hyps)
            .map(|(r, h)| TerRefs::new(&o, r).stats(&o, h))
            .collect();
        assert_eq!(stats, [(0, 5.5), (3, 4.0), (3, 5.5)]);
        assert_eq!(ter_from_stats(6.0, 15.0, false), 40.0);
        assert_eq!(
            o.signature("2", ""),
            "nrefs:2|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0"
        );
    }
}
