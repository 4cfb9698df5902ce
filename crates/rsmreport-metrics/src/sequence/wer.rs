//! The WER family and CER as jiwer 4.0.0 computes them (sequence.md 2.4):
//! its `wer_default` / `wer_standardize` transforms, the Levenshtein
//! alignment of rapidfuzz 3.x (`Levenshtein.opcodes`, its backtracking tie
//! rule), hits/substitutions/deletions/insertions, the measures from their
//! sums, and `collect_error_counts`' chunks. Pure maths; no I/O.

use std::collections::HashMap;
use std::sync::LazyLock;

use super::jiwer::{ApplyError, Pipeline, PipelineError, SpecValue, Step};
use super::text::{py_strip, space_at};
use rsmreport_core::table::FxBuild;

pub use super::errors::{ErrorCounts, ErrorKind};

/// jiwer's word transforms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WerTransform {
    Default,
    Standardize,
}

impl WerTransform {
    pub const NAMES: [&'static str; 2] = ["default", "standardize"];

    pub fn from_name(name: &str) -> Option<WerTransform> {
        match name {
            "default" => Some(WerTransform::Default),
            "standardize" => Some(WerTransform::Standardize),
            _ => None,
        }
    }
}

/// One side's transform of the WER family (sequence.md 2.4, 8.1): jiwer's
/// `wer_default` / `wer_standardize` by name (the fast path:
/// [`transformed`] and [`for_each_default_word`]) or a list of jiwer
/// steps.
#[derive(Debug, Clone, PartialEq)]
pub enum WordTransform {
    /// `"default"` or `"standardize"`.
    Named(WerTransform),
    /// A list of steps (`[wer] transform = [..]`).
    Steps(Box<Pipeline>),
}

impl Default for WordTransform {
    fn default() -> WordTransform {
        WordTransform::Named(WerTransform::Default)
    }
}

impl WordTransform {
    /// Parses the value of `key` (`"default"`, `"standardize"` or a list of
    /// steps), with the errors of [`Pipeline::from_spec`].
    pub fn from_spec(key: &str, value: &SpecValue) -> Result<WordTransform, PipelineError> {
        if let SpecValue::String(name) = value {
            if let Some(t) = WerTransform::from_name(name) {
                return Ok(WordTransform::Named(t));
            }
        }
        Pipeline::from_spec(key, value).map(|p| WordTransform::Steps(Box::new(p)))
    }

    /// The transform as a jiwer pipeline.
    pub fn pipeline(&self) -> std::borrow::Cow<'_, Pipeline> {
        match self {
            WordTransform::Named(WerTransform::Default) => {
                std::borrow::Cow::Owned(Pipeline::wer_default())
            }
            WordTransform::Named(WerTransform::Standardize) => {
                std::borrow::Cow::Owned(Pipeline::wer_standardize())
            }
            WordTransform::Steps(p) => std::borrow::Cow::Borrowed(p),
        }
    }

    /// The named transform, if it is one.
    pub fn named(&self) -> Option<WerTransform> {
        match self {
            WordTransform::Named(t) => Some(*t),
            WordTransform::Steps(_) => None,
        }
    }

    /// The tokens `process_words(s, ..)` compares for one string: jiwer
    /// wraps it in a one-item list, so list semantics on that list (one
    /// sentence: a one-item list keeps at most one item).
    pub fn segment_tokens(&self, s: &str) -> Result<Vec<String>, ApplyError> {
        match self {
            WordTransform::Named(t) => Ok(words(s, *t)),
            WordTransform::Steps(p) => {
                Ok(p.apply_list(&[s])?.into_iter().next().unwrap_or_default())
            }
        }
    }
}

/// `[wer]`'s two sides: `process_words(refs, hyps, reference_transform,
/// hypothesis_transform)` (sequence.md 8.1, 8.2).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WerTransforms {
    pub reference: WordTransform,
    pub hypothesis: WordTransform,
}

impl WerTransforms {
    /// Both sides by name: the fast path's transforms (reference,
    /// hypothesis).
    pub fn named(&self) -> Option<(WerTransform, WerTransform)> {
        Some((self.reference.named()?, self.hypothesis.named()?))
    }

    /// The list-aware steps of either side (`remove_empty_strings`,
    /// `reduce_to_single_sentence`), each named once: with any, the
    /// corpus' sentences need not be the segments, corpus counts are not
    /// sums of segment counts and the WER family has no replicates.
    pub fn list_aware_steps(&self) -> Vec<&'static str> {
        let mut out = self.reference.pipeline().list_aware_steps();
        for s in self.hypothesis.pipeline().list_aware_steps() {
            if !out.contains(&s) {
                out.push(s);
            }
        }
        out
    }

    /// Whether both sides transform each sentence on its own.
    pub fn is_elementwise(&self) -> bool {
        self.reference.pipeline().is_elementwise() && self.hypothesis.pipeline().is_elementwise()
    }

    /// Whether a side reduces to characters (the WER family then counts
    /// characters on that side).
    pub fn counts_characters(&self) -> bool {
        self.reference.pipeline().counts_characters()
            || self.hypothesis.pipeline().counts_characters()
    }
}

/// `wer_standardize`'s steps before `RemoveMultipleSpaces` (jiwer's own
/// steps, [`Pipeline::wer_standardize`]): `ToLowerCase`,
/// `ExpandCommonEnglishContractions`, `RemoveKaldiNonWords`,
/// `RemoveWhiteSpace(replace_by_space=True)`; none has a pattern that can
/// fail.
static STANDARDIZE_STEPS: LazyLock<Vec<Step>> = LazyLock::new(|| {
    Pipeline::wer_standardize()
        .steps()
        .iter()
        .take_while(|s| !matches!(s, Step::RemoveMultipleSpaces))
        .cloned()
        .collect()
});

/// `wer_standardize`'s text before the default transform: lowercased,
/// contractions expanded, Kaldi-style `<...>`/`[...]` tags removed, white
/// space characters made spaces (`wer_default` leaves the text as it is).
pub fn transformed(s: &str, transform: WerTransform) -> std::borrow::Cow<'_, str> {
    if transform == WerTransform::Default {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut text = s.to_string();
    for step in STANDARDIZE_STEPS.iter() {
        text = step.apply_str(&text).expect("a step without a pattern");
    }
    std::borrow::Cow::Owned(text)
}

/// `wer_default`'s words of `s`, as slices of it: `RemoveMultipleSpaces`
/// (`\s\s+` -> one space, Python's `\s`), `Strip`, then the split on
/// single spaces with empty pieces dropped. So a run of two or more white
/// space characters, or one space, separates words; a lone tab stays
/// inside its word; leading and trailing white space separates nothing.
pub fn for_each_default_word<'a>(s: &'a str, mut f: impl FnMut(&'a str)) {
    let t = py_strip(s);
    let mut word_start = 0;
    let mut at = 0;
    while at < t.len() {
        let (space, len) = space_at(t, at);
        if !space {
            at += len;
            continue;
        }
        let lone_space = len == 1 && t.as_bytes()[at] == b' ';
        let (mut end, mut run) = (at + len, 1);
        while end < t.len() {
            let (space, len) = space_at(t, end);
            if !space {
                break;
            }
            end += len;
            run += 1;
        }
        if run >= 2 || lone_space {
            if word_start < at {
                f(&t[word_start..at]);
            }
            word_start = end;
        }
        at = end;
    }
    if word_start < t.len() {
        f(&t[word_start..]);
    }
}

/// The words jiwer compares after `transform`.
pub fn words(s: &str, transform: WerTransform) -> Vec<String> {
    let text = transformed(s, transform);
    let mut out = Vec::new();
    for_each_default_word(&text, |w| out.push(w.to_string()));
    out
}

/// The characters jiwer's `cer_default` compares: `strip()`, code points.
pub fn chars(s: &str) -> Vec<String> {
    py_strip(s).chars().map(|c| c.to_string()).collect()
}

/// An opcode tag of rapidfuzz / jiwer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tag {
    Equal,
    Substitute,
    Delete,
    Insert,
}

/// One alignment chunk (jiwer's `AlignmentChunk`), half-open ranges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    pub tag: Tag,
    pub ref_start: usize,
    pub ref_end: usize,
    pub hyp_start: usize,
    pub hyp_end: usize,
}

/// One pair's alignment and counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Alignment {
    pub hits: u64,
    pub substitutions: u64,
    pub deletions: u64,
    pub insertions: u64,
    pub ref_len: u64,
    pub hyp_len: u64,
    pub chunks: Vec<Chunk>,
}

impl Alignment {
    /// `[H, S, D, I, N, P]`: hits, substitutions, deletions, insertions,
    /// reference and hypothesis lengths (the WER family's segment row).
    pub fn counts(&self) -> [u64; 6] {
        [
            self.hits,
            self.substitutions,
            self.deletions,
            self.insertions,
            self.ref_len,
            self.hyp_len,
        ]
    }
}

/// rapidfuzz's `Levenshtein.opcodes(reference, hypothesis)` on token ids:
/// common prefix and suffix stripped, the distance matrix's backtracking
/// rule. Only reference tokens are compared with hypothesis tokens, so every
/// hypothesis token outside the reference may share one id.
pub fn align(reference: &[u32], hyp: &[u32]) -> Alignment {
    align_with(reference, hyp, &mut AlignScratch::default())
}

/// [`align`]'s working memory (the pattern masks, the matrix's deltas and
/// the operations), reused from one pair to the next.
#[derive(Debug, Clone, Default)]
pub struct AlignScratch {
    /// Each distinct reference token's row in `masks`.
    rows: HashMap<u32, u32, FxBuild>,
    /// Per distinct reference token, `words` masks of its positions.
    masks: Vec<u64>,
    /// Each hypothesis token's row in `masks` (`u32::MAX`: none).
    hyp_rows: Vec<u32>,
    /// The distance matrix's horizontal deltas of hypothesis rows `1..`:
    /// bit `c - 1` of `plus` (`minus`) is set where `d[r][c] - d[r][c - 1]`
    /// is 1 (-1); `words` per row.
    plus: Vec<u64>,
    minus: Vec<u64>,
    /// The row being computed (Hyyrö's vertical deltas).
    row: (Vec<u64>, Vec<u64>),
    ops: Vec<Tag>,
}

/// [`align`] with reused working memory. The matrix `d[r][c]` (distance of
/// the first `r` hypothesis and `c` reference tokens of the middle) is kept
/// as its row deltas, computed 64 columns at a time by Hyyrö's bit-vector
/// recurrence (Hyyrö 2003; rapidfuzz's `levenshtein_hyrroe2003_block`):
/// the backtracking reads only whether a delta is 1 or -1.
pub fn align_with(reference: &[u32], hyp: &[u32], scratch: &mut AlignScratch) -> Alignment {
    let (prefix, suffix) = common_affix(reference, hyp);
    let s1 = &reference[prefix..reference.len() - suffix];
    let s2 = &hyp[prefix..hyp.len() - suffix];
    let words = s1.len().div_ceil(64);
    if !s1.is_empty() && !s2.is_empty() {
        delta_rows(s1, s2, scratch);
    }
    let set = |v: &[u64], r: usize, c: usize| {
        (v[(r - 1) * words + (c - 1) / 64] >> ((c - 1) % 64)) & 1 == 1
    };
    let (plus, minus) = (&scratch.plus, &scratch.minus);
    backtrack(
        (s1, s2),
        (prefix, suffix),
        |r, c| set(plus, r, c),
        |r, c| set(minus, r, c),
        &mut scratch.ops,
    );
    chunks_of(&scratch.ops, reference.len() as u64, hyp.len() as u64)
}

/// The lengths of the common prefix and (of the rest) common suffix.
fn common_affix(reference: &[u32], hyp: &[u32]) -> (usize, usize) {
    let prefix = reference
        .iter()
        .zip(hyp)
        .take_while(|(a, b)| a == b)
        .count();
    let suffix = reference[prefix..]
        .iter()
        .rev()
        .zip(hyp[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    (prefix, suffix)
}

/// rapidfuzz's backtracking from `d[s2.len()][s1.len()]` into `ops`: the
/// whole path, affixes included, in order. `plus(r, c)` and `minus(r, c)`
/// tell whether the row delta `d[r][c] - d[r][c - 1]` is 1 or -1
/// (`r, c >= 1`).
fn backtrack(
    (s1, s2): (&[u32], &[u32]),
    (prefix, suffix): (usize, usize),
    plus: impl Fn(usize, usize) -> bool,
    minus: impl Fn(usize, usize) -> bool,
    ops: &mut Vec<Tag>,
) {
    // the middle's operations, from the end
    ops.clear();
    ops.extend(std::iter::repeat_n(Tag::Equal, suffix));
    let (mut row, mut col) = (s2.len(), s1.len());
    while row > 0 && col > 0 {
        if plus(row, col) {
            col -= 1;
            ops.push(Tag::Delete);
        } else {
            row -= 1;
            if row > 0 && minus(row, col) {
                ops.push(Tag::Insert);
            } else {
                col -= 1;
                ops.push(if s1[col] != s2[row] {
                    Tag::Substitute
                } else {
                    Tag::Equal
                });
            }
        }
    }
    ops.extend(std::iter::repeat_n(Tag::Delete, col));
    ops.extend(std::iter::repeat_n(Tag::Insert, row));
    // the path from the end (suffix first), then reversed in place
    ops.extend(std::iter::repeat_n(Tag::Equal, prefix));
    ops.reverse();
}

/// The row deltas of `d` for hypothesis rows `1..=s2.len()` into
/// `scratch.plus` and `scratch.minus` (both sides non-empty). Row 0
/// (`d[0][c] = c`) has every delta 1. Per row and word of 64 columns, the
/// carries of the row's horizontal deltas go to the next word.
fn delta_rows(s1: &[u32], s2: &[u32], scratch: &mut AlignScratch) {
    let words = s1.len().div_ceil(64);
    let AlignScratch {
        rows,
        masks,
        hyp_rows,
        plus,
        minus,
        row: (vp, vn),
        ..
    } = scratch;
    rows.clear();
    masks.clear();
    for (i, &t) in s1.iter().enumerate() {
        let next = (masks.len() / words) as u32;
        let row = *rows.entry(t).or_insert(next);
        if row == next {
            masks.resize(masks.len() + words, 0);
        }
        masks[row as usize * words + i / 64] |= 1 << (i % 64);
    }
    hyp_rows.clear();
    hyp_rows.extend(s2.iter().map(|t| rows.get(t).copied().unwrap_or(u32::MAX)));
    plus.clear();
    minus.clear();
    plus.resize(s2.len() * words, 0);
    minus.resize(s2.len() * words, 0);
    // the previous row's vertical deltas in Hyyrö's terms are this
    // matrix's row deltas: row 0 all 1
    vp.clear();
    vp.resize(words, !0);
    vn.clear();
    vn.resize(words, 0);
    for (r, &m) in hyp_rows.iter().enumerate() {
        let (mut hp_carry, mut hn_carry) = (1u64, 0u64);
        for w in 0..words {
            let pm = if m == u32::MAX {
                0
            } else {
                masks[m as usize * words + w]
            };
            let x = pm | hn_carry;
            let d0 = (((x & vp[w]).wrapping_add(vp[w])) ^ vp[w]) | x | vn[w];
            let hp = vn[w] | !(d0 | vp[w]);
            let hn = d0 & vp[w];
            let hp_shifted = (hp << 1) | hp_carry;
            let hn_shifted = (hn << 1) | hn_carry;
            hp_carry = hp >> 63;
            hn_carry = hn >> 63;
            vp[w] = hn_shifted | !(d0 | hp_shifted);
            vn[w] = hp_shifted & d0;
        }
        plus[r * words..(r + 1) * words].copy_from_slice(vp);
        minus[r * words..(r + 1) * words].copy_from_slice(vn);
    }
}

fn chunks_of(path: &[Tag], ref_len: u64, hyp_len: u64) -> Alignment {
    let mut out = Alignment {
        ref_len,
        hyp_len,
        ..Alignment::default()
    };
    let (mut r, mut h) = (0usize, 0usize);
    let mut i = 0;
    while i < path.len() {
        let tag = path[i];
        let (r0, h0) = (r, h);
        while i < path.len() && path[i] == tag {
            match tag {
                Tag::Equal | Tag::Substitute => {
                    r += 1;
                    h += 1;
                }
                Tag::Delete => r += 1,
                Tag::Insert => h += 1,
            }
            i += 1;
        }
        let n = match tag {
            Tag::Insert => (h - h0) as u64,
            _ => (r - r0) as u64,
        };
        match tag {
            Tag::Equal => out.hits += n,
            Tag::Substitute => out.substitutions += n,
            Tag::Delete => out.deletions += n,
            Tag::Insert => out.insertions += n,
        }
        out.chunks.push(Chunk {
            tag,
            ref_start: r0,
            ref_end: r,
            hyp_start: h0,
            hyp_end: h,
        });
    }
    out
}

/// Aligns two token lists (words or characters).
pub fn align_tokens(reference: &[String], hyp: &[String]) -> Alignment {
    fn ids<'a>(ws: &'a [String], vocab: &mut HashMap<&'a str, u32, FxBuild>) -> Vec<u32> {
        ws.iter()
            .map(|w| {
                let next = vocab.len() as u32;
                *vocab.entry(w.as_str()).or_insert(next)
            })
            .collect()
    }
    let mut vocab: HashMap<&str, u32, FxBuild> = HashMap::default();
    let r = ids(reference, &mut vocab);
    let h = ids(hyp, &mut vocab);
    align(&r, &h)
}

/// jiwer's measures from summed counts: `(wer, mer, wil, wip)`.
pub fn measures(hits: f64, subs: f64, dels: f64, ins: f64, ref_len: f64, hyp_len: f64) -> [f64; 4] {
    let (wer, mer, wip) = if ref_len == 0.0 {
        if hyp_len == 0.0 {
            (ins, 0.0, 1.0)
        } else {
            (ins, 1.0, 0.0)
        }
    } else {
        let wip = if hyp_len >= 1.0 {
            (hits / ref_len) * (hits / hyp_len)
        } else {
            0.0
        };
        (
            (subs + dels + ins) / (hits + subs + dels),
            (subs + dels + ins) / (hits + subs + dels + ins),
            wip,
        )
    };
    [wer, mer, 1.0 - wip, wip]
}

/// `collect_error_counts` of one pair, added into `counts`: substitutions
/// keyed by (reference, hypothesis), insertions and deletions by text
/// (`sep.join` of the chunk's words). Words never contain `sep` (a space:
/// the transforms split on it), so a chunk's text is its word sequence.
pub fn add_error_counts<R: AsRef<str>, H: AsRef<str>>(
    a: &Alignment,
    reference: &[R],
    hyp: &[H],
    sep: &str,
    counts: &mut ErrorCounts,
) {
    for c in &a.chunks {
        let r = &reference[c.ref_start..c.ref_end];
        let h = &hyp[c.hyp_start..c.hyp_end];
        match c.tag {
            Tag::Substitute => {
                let (r, h) = (counts.side(r, sep), counts.side(h, sep));
                counts.count(r, h);
            }
            Tag::Insert => {
                let h = counts.side(h, sep);
                counts.count(0, h);
            }
            Tag::Delete => {
                let r = counts.side(r, sep);
                counts.count(r, 0);
            }
            Tag::Equal => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::text::is_py_space;
    use super::*;

    /// jiwer's `wer_default` spelled out step by step (the reference for
    /// [`for_each_default_word`]): `RemoveMultipleSpaces`, `Strip`, split.
    fn words_literal(s: &str) -> Vec<String> {
        let mut out = String::new();
        let mut run: Vec<char> = Vec::new();
        let flush = |out: &mut String, run: &mut Vec<char>| {
            match run.len() {
                0 => {}
                1 => out.push(run[0]),
                _ => out.push(' '),
            }
            run.clear();
        };
        for c in s.chars() {
            if is_py_space(c) {
                run.push(c);
                continue;
            }
            flush(&mut out, &mut run);
            out.push(c);
        }
        flush(&mut out, &mut run);
        py_strip(&out)
            .split(' ')
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn default_words_match_the_literal_transform() {
        let alphabet = [
            'a', 'b', ' ', ' ', '\t', '\n', '\u{a0}', '\u{1c}', 'é', '\u{3000}',
        ];
        let mut state = 11u64;
        for _ in 0..20_000 {
            let mut s = String::new();
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let len = (state >> 59) as usize;
            for _ in 0..len {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                s.push(alphabet[(state >> 33) as usize % alphabet.len()]);
            }
            assert_eq!(words(&s, WerTransform::Default), words_literal(&s), "{s:?}");
        }
    }

    /// The named transforms' fast path gives the tokens of jiwer's own
    /// pipelines (`wer_default`, `wer_standardize` as step lists), on
    /// random strings over white space, contractions and Kaldi marks.
    #[test]
    fn named_transforms_equal_their_pipelines() {
        let pieces = [
            "a", "B", " ", "  ", "\t", "\n", "\u{a0}", "\u{1c}", "can't", "'s", "<unk>", "[x", "]",
            "É", "\u{3000}",
        ];
        let mut rng = crate::bootstrap::Rng::from_seed(3);
        for t in [WerTransform::Default, WerTransform::Standardize] {
            let named = WordTransform::Named(t);
            let steps = WordTransform::Steps(Box::new(named.pipeline().into_owned()));
            for _ in 0..3_000 {
                let s: String = (0..rng.below(12))
                    .map(|_| pieces[rng.below(pieces.len() as u64) as usize])
                    .collect();
                assert_eq!(
                    named.segment_tokens(&s).unwrap(),
                    steps.segment_tokens(&s).unwrap(),
                    "{t:?} {s:?}"
                );
            }
        }
    }

    #[test]
    fn sides_and_list_aware_steps() {
        let key = "wer.transform";
        let list = |items: &[&str]| {
            SpecValue::Array(
                items
                    .iter()
                    .map(|s| SpecValue::String(s.to_string()))
                    .collect(),
            )
        };
        let contiguous = WordTransform::from_spec(
            key,
            &list(&[
                "strip",
                "reduce_to_single_sentence",
                "remove_empty_strings",
                "reduce_to_list_of_list_of_chars",
            ]),
        )
        .unwrap();
        let named =
            WordTransform::from_spec(key, &SpecValue::String("standardize".into())).unwrap();
        assert_eq!(named, WordTransform::Named(WerTransform::Standardize));
        let sides = WerTransforms {
            reference: named,
            hypothesis: contiguous,
        };
        assert_eq!(sides.named(), None);
        assert!(!sides.is_elementwise() && sides.counts_characters());
        assert_eq!(
            sides.list_aware_steps(),
            ["reduce_to_single_sentence", "remove_empty_strings"]
        );
        // one-item list semantics: a blank item is dropped, one empty sentence is left
        assert!(sides.hypothesis.segment_tokens("  ").unwrap().is_empty());
        assert_eq!(
            WerTransforms::default().named(),
            Some((WerTransform::Default, WerTransform::Default))
        );
    }

    fn w(s: &str) -> Vec<String> {
        words(s, WerTransform::Default)
    }

    /// The fixtures' README, section 8: jiwer on sacreBLEU's example.
    #[test]
    fn readme_example() {
        let pairs = [
            ("The dog bit the man.", "The dog bit the man."),
            ("It was not unexpected.", "It wasn't surprising."),
            ("The man bit him first.", "The man had just bitten him."),
        ];
        let mut sum = [0u64; 6];
        let mut counts = ErrorCounts::default();
        for (r, h) in pairs {
            let a = align_tokens(&w(r), &w(h));
            for (s, x) in sum.iter_mut().zip(a.counts()) {
                *s += x;
            }
            add_error_counts(&a, &w(r), &w(h), " ", &mut counts);
        }
        assert_eq!(sum, [8, 5, 1, 1, 14, 14]);
        let m = measures(8.0, 5.0, 1.0, 1.0, 14.0, 14.0);
        assert_eq!(
            m,
            [0.5, 7.0 / 15.0, 0.6734693877551021, 0.32653061224489793]
        );
        counts.finish();
        let find = |k, r, h| counts.find(k, r, h);
        assert_eq!(
            find(ErrorKind::Substitution, "was not", "wasn't surprising."),
            1
        );
        assert_eq!(find(ErrorKind::Insertion, "", "had"), 1);
        assert_eq!(find(ErrorKind::Deletion, "unexpected.", ""), 1);
    }

    #[test]
    fn transforms_and_empty_references() {
        assert_eq!(w("  a\tb  c "), ["a\tb", "c"]);
        assert_eq!(
            words("I can't go [noise] <unk>  Now", WerTransform::Standardize),
            ["i", "can", "not", "go", "now"]
        );
        assert_eq!(measures(0.0, 0.0, 0.0, 8.0, 0.0, 8.0), [8.0, 1.0, 1.0, 0.0]);
        assert_eq!(measures(0.0, 0.0, 0.0, 0.0, 0.0, 0.0), [0.0, 0.0, 0.0, 1.0]);
    }

    /// The distance matrix written out cell by cell and backtracked with
    /// rapidfuzz's rule: the reference for [`align_with`]'s bit rows.
    fn align_full_matrix(reference: &[u32], hyp: &[u32]) -> Alignment {
        let (prefix, suffix) = common_affix(reference, hyp);
        let s1 = &reference[prefix..reference.len() - suffix];
        let s2 = &hyp[prefix..hyp.len() - suffix];
        let (n1, n2) = (s1.len(), s2.len());
        let mut d = vec![vec![0i64; n1 + 1]; n2 + 1];
        for (c, cell) in d[0].iter_mut().enumerate() {
            *cell = c as i64;
        }
        for r in 1..=n2 {
            d[r][0] = r as i64;
            for c in 1..=n1 {
                let sub = d[r - 1][c - 1] + i64::from(s1[c - 1] != s2[r - 1]);
                d[r][c] = sub.min(d[r][c - 1] + 1).min(d[r - 1][c] + 1);
            }
        }
        let mut ops = Vec::new();
        backtrack(
            (s1, s2),
            (prefix, suffix),
            |r, c| d[r][c] - d[r][c - 1] == 1,
            |r, c| d[r][c] - d[r][c - 1] == -1,
            &mut ops,
        );
        chunks_of(&ops, reference.len() as u64, hyp.len() as u64)
    }

    /// The bit rows give the full matrix's alignment, within one word of
    /// 64 reference tokens and across several (the carries), on small and
    /// large alphabets, one scratch reused throughout.
    #[test]
    fn bit_rows_align_as_the_full_matrix() {
        let mut rng = crate::bootstrap::Rng::from_seed(5);
        let mut next = |m: u64| rng.below(m);
        let mut scratch = AlignScratch::default();
        for case in 0..6_000 {
            let max_len = [8, 70, 200][case % 3];
            let alphabet = [2, 5, 40][(case / 3) % 3];
            let r: Vec<u32> = (0..next(max_len)).map(|_| next(alphabet) as u32).collect();
            let h: Vec<u32> = if case % 4 == 0 {
                // an edited copy: long common runs, prefix and suffix
                let mut h = Vec::new();
                for &t in &r {
                    match next(10) {
                        0 => {}
                        1 => h.push(t + 1),
                        2 => h.extend([t, next(alphabet) as u32]),
                        _ => h.push(t),
                    }
                }
                h
            } else {
                (0..next(max_len)).map(|_| next(alphabet) as u32).collect()
            };
            let want = align_full_matrix(&r, &h);
            assert_eq!(align_with(&r, &h, &mut scratch), want, "{r:?} {h:?}");
        }
    }
}
