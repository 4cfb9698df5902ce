//! Exact n-gram matching without per-n-gram allocation, shared by BLEU
//! (word n-grams, sequence.md 2.1) and chrF/chrF++ (character and word
//! n-grams, 2.2).
//!
//! A segment's references fix a vocabulary: each distinct token (a word, or
//! a character) gets an id `1..=V`; a hypothesis token outside it gets `0`
//! and no n-gram through it can match. An n-gram of ids is packed into a
//! `u64` with `bits = bit length of V` per id; since no id is 0, the
//! orders occupy disjoint key ranges and one table holds them all. N-grams
//! too long to pack (`bits * n > 64`) are kept as boxed id slices. The
//! clipped match count `Σ_g min(c_hyp(g), c_ref(g))` is taken by walking
//! the hypothesis' n-grams and spending a copy of the reference counts, so
//! the hypothesis needs no table of its own. Pure maths; no I/O.

use std::collections::HashMap;

use super::text::packed_word;
use rsmreport_core::table::FxBuild;

/// Word ids (`1..=len`, in first-seen order): one segment's vocabulary,
/// built from its references, or a thread's words (`errors::WordIds`). A
/// word of at most 15 bytes is keyed by its
/// packed bytes ([`packed_word`]: no text copied or compared), a longer
/// one by its text.
#[derive(Debug, Clone, Default)]
pub struct Vocab {
    short: HashMap<u128, u32, FxBuild>,
    long: HashMap<String, u32, FxBuild>,
}

impl Vocab {
    fn len(&self) -> u32 {
        (self.short.len() + self.long.len()) as u32
    }

    /// Makes room for `additional` more words at once.
    pub fn reserve(&mut self, additional: usize) {
        self.short.reserve(additional);
    }

    /// The id of `word`, added when new (its text copied only if long).
    pub fn insert_str(&mut self, word: &str) -> u32 {
        let next = self.len() + 1;
        match packed_word(word) {
            Some(k) => *self.short.entry(k).or_insert(next),
            None => match self.long.get(word) {
                Some(&id) => id,
                None => *self.long.entry(word.to_string()).or_insert(next),
            },
        }
    }

    /// The id of `word`, 0 when it is not in the vocabulary.
    pub fn get(&self, word: &str) -> u32 {
        match packed_word(word) {
            Some(k) => self.short.get(&k),
            None => self.long.get(word),
        }
        .copied()
        .unwrap_or(0)
    }

    /// Bits per packed id.
    pub fn bits(&self) -> u32 {
        u32::BITS - self.len().leading_zeros()
    }
}

/// Character ids of one segment's vocabulary (`1..=len`): ASCII through a
/// table, other characters through a map. Which id a character gets does
/// not change any count (ids only tell n-grams apart).
#[derive(Debug, Clone)]
pub struct CharVocab {
    ascii: [u32; 128],
    other: HashMap<char, u32, FxBuild>,
    len: u32,
}

impl Default for CharVocab {
    fn default() -> Self {
        CharVocab {
            ascii: [0; 128],
            other: HashMap::default(),
            len: 0,
        }
    }
}

impl CharVocab {
    /// The id of `c`, adding it when new.
    pub fn insert(&mut self, c: char) -> u32 {
        let next = self.len + 1;
        let id = if c.is_ascii() {
            let slot = &mut self.ascii[c as usize];
            if *slot == 0 {
                *slot = next;
            }
            *slot
        } else {
            *self.other.entry(c).or_insert(next)
        };
        if id == next {
            self.len = next;
        }
        id
    }

    /// The id of `c`, 0 when it is not in the vocabulary.
    pub fn get(&self, c: char) -> u32 {
        if c.is_ascii() {
            self.ascii[c as usize]
        } else {
            self.other.get(&c).copied().unwrap_or(0)
        }
    }

    /// Bits per packed id.
    pub fn bits(&self) -> u32 {
        u32::BITS - self.len.leading_zeros()
    }
}

/// One reference's n-gram counts (orders `1..=max_order`), or the maximum
/// over several references (BLEU).
#[derive(Debug, Clone, Default)]
pub struct NgramTable {
    bits: u32,
    max_order: usize,
    packed: PackedMap,
    /// N-grams too long to pack, to their index in `long_counts`.
    long: HashMap<Box<[u32]>, u32, FxBuild>,
    long_counts: Vec<u32>,
    /// N-grams (with repeats) per order, `windows[n - 1]`: the most over
    /// the references.
    windows: Vec<u64>,
}

/// An open-addressing map from packed n-gram keys (never 0: no id is 0)
/// to counts, linear probing in a power-of-two table sized for at most
/// two thirds of an upper bound on the keys (in practice about half
/// full, and less memory to zero than a half-full bound): one segment's
/// n-grams stay in a few cache lines' reach, which a general
/// hash map of `u128` keys did not (sequence.md 6). A count sits at its
/// key's position, so a lookup reads no slot indirection and the counts to
/// spend are one copy of `counts`; an empty position has count 0.
#[derive(Debug, Clone, Default)]
struct PackedMap {
    /// 0 = empty.
    keys: Vec<u64>,
    counts: Vec<u32>,
    len: usize,
}

/// Fibonacci hashing: the top bits of the product (`shift` = 64 - log2 of
/// the table size).
fn home(key: u64, shift: u32) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize
}

/// The position of `key` in `keys` (a power of two long, with an empty
/// position), or of the empty position where it would go.
#[inline(always)]
fn probe(keys: &[u64], key: u64) -> usize {
    let mask = keys.len() - 1;
    let mut i = home(key, 64 - keys.len().trailing_zeros()) & mask;
    loop {
        let k = keys[i];
        if k == key || k == 0 {
            return i;
        }
        i = (i + 1) & mask;
    }
}

impl PackedMap {
    /// An empty map with room for `n` keys within the load bound.
    fn with_capacity(n: usize) -> PackedMap {
        let cap = Self::room(n);
        PackedMap {
            keys: vec![0; cap],
            counts: vec![0; cap],
            len: 0,
        }
    }

    /// The table size for `n` keys: at most two thirds full, never full
    /// (a probe always ends).
    fn room(n: usize) -> usize {
        (n + n / 2 + 1).max(8).next_power_of_two()
    }

    /// Makes room for `additional` more keys at once (one allocation per
    /// reference, none while counting).
    fn reserve(&mut self, additional: usize) {
        let n = self.len + additional;
        if Self::room(n) > self.keys.len() {
            let old = std::mem::replace(self, PackedMap::with_capacity(n));
            for (&k, &c) in old.keys.iter().zip(&old.counts).filter(|e| *e.0 != 0) {
                let i = probe(&self.keys, k);
                self.keys[i] = k;
                self.counts[i] = c;
            }
            self.len = old.len;
        }
    }
}

/// Where [`NgramTable::tally`] counts one reference: per position of the
/// packed map, and per index of the long n-grams.
struct Tally<'a> {
    packed: &'a mut [u32],
    long: &'a mut Vec<u32>,
}

impl NgramTable {
    /// An empty table for ids of a vocabulary with `bits` bits per id.
    pub fn new(bits: u32, max_order: usize) -> NgramTable {
        NgramTable {
            bits: bits.max(1),
            max_order,
            windows: vec![0; max_order],
            ..NgramTable::default()
        }
    }

    /// The counts of one reference's ids (every id > 0).
    pub fn from_ids(ids: &[u32], bits: u32, max_order: usize) -> NgramTable {
        let mut t = NgramTable::new(bits, max_order);
        t.add_max(ids);
        t
    }

    /// Orders up to this one pack into a `u64`.
    fn packable(&self) -> usize {
        self.max_order.min((64 / self.bits) as usize)
    }

    /// An upper bound on the distinct packed n-grams of `len` ids: per
    /// order its windows, and at most `2^(bits * n) - 1` keys.
    fn packed_bound(&self, len: usize) -> usize {
        (1..=self.packable().min(len))
            .map(|n| {
                let w = len + 1 - n;
                let key_bits = self.bits as usize * n;
                if key_bits < 32 {
                    w.min((1 << key_bits) - 1)
                } else {
                    w
                }
            })
            .sum()
    }

    /// Merges a reference in by maximum (BLEU's several references):
    /// each n-gram's count becomes the larger of the two. Every id is > 0
    /// (a reference's ids come from its own vocabulary).
    pub fn add_max(&mut self, ids: &[u32]) {
        debug_assert!(!ids.contains(&0), "a reference id is 0");
        for n in 1..=self.max_order {
            let w = (ids.len() + 1).saturating_sub(n) as u64;
            self.windows[n - 1] = self.windows[n - 1].max(w);
        }
        if ids.is_empty() || self.max_order == 0 {
            return;
        }
        self.packed.reserve(self.packed_bound(ids.len()));
        if self.packed.len == 0 && self.long.is_empty() {
            // nothing to take the maximum with: count in place
            let mut packed = std::mem::take(&mut self.packed.counts);
            let mut long = std::mem::take(&mut self.long_counts);
            self.tally(
                ids,
                Tally {
                    packed: &mut packed,
                    long: &mut long,
                },
            );
            self.packed.counts = packed;
            self.long_counts = long;
            return;
        }
        let mut packed = vec![0; self.packed.counts.len()];
        let mut long = vec![0; self.long_counts.len()];
        self.tally(
            ids,
            Tally {
                packed: &mut packed,
                long: &mut long,
            },
        );
        for (e, &c) in self.packed.counts.iter_mut().zip(&packed) {
            *e = (*e).max(c);
        }
        self.long_counts.resize(long.len(), 0);
        for (e, &c) in self.long_counts.iter_mut().zip(&long) {
            *e = (*e).max(c);
        }
    }

    /// Counts the n-grams of `ids` (every id > 0) into `to`, adding the
    /// new ones to the maps (the packed map has room for them all); a new
    /// long n-gram gets the index `to.long.len()`.
    fn tally(&mut self, ids: &[u32], to: Tally<'_>) {
        let bits = self.bits;
        let packable = self.packable();
        let keys = &mut self.packed.keys[..];
        let counts = &mut to.packed[..keys.len()];
        let mut added = 0;
        for i in 0..ids.len() {
            let mut key: u64 = 0;
            for &id in ids[i..].iter().take(packable) {
                key = (key << bits) | id as u64;
                let p = probe(keys, key);
                if keys[p] == 0 {
                    keys[p] = key;
                    added += 1;
                }
                counts[p] += 1;
            }
            let top = self.max_order.min(ids.len() - i);
            for n in packable + 1..=top {
                let next = to.long.len() as u32;
                let at = *self.long.entry(ids[i..i + n].into()).or_insert(next);
                match to.long.get_mut(at as usize) {
                    Some(c) => *c += 1,
                    None => to.long.push(1),
                }
            }
        }
        self.packed.len += added;
    }

    /// N-grams of order `n` with repeats (of one reference: its windows).
    pub fn windows(&self, n: usize) -> u64 {
        self.windows[n - 1]
    }

    /// Whether the table has any n-gram of order `n`: a reference at least
    /// `n` long (no reference id is 0, so its every window is an n-gram).
    pub fn has_order(&self, n: usize) -> bool {
        self.windows[n - 1] > 0
    }

    /// `Σ_g min(c_hyp(g), c_ref(g))` per order (index `n - 1`) for the
    /// hypothesis ids (0 = outside the vocabulary). An n-gram the table
    /// lacks ends the walk from its start: every longer n-gram from there
    /// contains it, and the table holds every prefix of its n-grams.
    pub fn clipped_matches(&self, hyp: &[u32]) -> Vec<u64> {
        let mut out = vec![0u64; self.max_order];
        self.clipped_matches_into(hyp, &mut out);
        out
    }

    /// [`NgramTable::clipped_matches`] into `out` (`max_order` values), the
    /// counts left to spend in a buffer of the thread reused from call to
    /// call.
    pub fn clipped_matches_into(&self, hyp: &[u32], out: &mut [u64]) {
        thread_local! {
            static LEFT: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        LEFT.with_borrow_mut(|left| self.clipped_with(hyp, left, out));
    }

    /// The walk of [`NgramTable::clipped_matches`]; `left` holds the packed
    /// counts to spend, then the long ones.
    fn clipped_with(&self, hyp: &[u32], left: &mut Vec<u32>, out: &mut [u64]) {
        out.fill(0);
        if self.packed.len == 0 && self.long.is_empty() {
            return;
        }
        left.clear();
        left.extend_from_slice(&self.packed.counts);
        left.extend_from_slice(&self.long_counts);
        let bits = self.bits;
        let keys = &self.packed.keys[..];
        let (left, left_long) = left.split_at_mut(keys.len());
        let (short, long) = out.split_at_mut(self.packable());
        for i in 0..hyp.len() {
            let mut key: u64 = 0;
            let mut reached = 0;
            for (&id, o) in hyp[i..].iter().zip(short.iter_mut()) {
                if id == 0 {
                    break;
                }
                key = (key << bits) | id as u64;
                let p = probe(keys, key);
                if keys[p] == 0 {
                    break;
                }
                let l = &mut left[p];
                if *l > 0 {
                    *l -= 1;
                    *o += 1;
                }
                reached += 1;
            }
            if reached == short.len() && !long.is_empty() {
                self.clipped_long(&hyp[i..], left_long, long);
            }
        }
    }

    /// The n-grams too long to pack from the start of `hyp`, after every
    /// packed one from there matched.
    #[cold]
    fn clipped_long(&self, hyp: &[u32], left: &mut [u32], out: &mut [u64]) {
        let first = self.packable() + 1;
        for (n, o) in (first..=hyp.len()).zip(out.iter_mut()) {
            if hyp[n - 1] == 0 {
                return;
            }
            let Some(&at) = self.long.get(&hyp[..n]) else {
                return;
            };
            let l = &mut left[at as usize];
            if *l > 0 {
                *l -= 1;
                *o += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids `1..` in first-seen order for short and long words alike, 0
    /// outside the vocabulary, the bits of the largest id.
    #[test]
    fn vocab_numbers_words_from_one() {
        let mut v = Vocab::default();
        let words = ["a", "fifteen-bytes-x", "sixteen-bytes-xy", "a", "", "b\0"];
        let ids: Vec<u32> = words.iter().map(|w| v.insert_str(w)).collect();
        assert_eq!(ids, [1, 2, 3, 1, 4, 5]);
        for (w, id) in words.iter().zip(&ids) {
            assert_eq!(v.get(w), *id);
        }
        assert_eq!((v.get("b"), v.get("sixteen-bytes-xz")), (0, 0));
        assert_eq!(v.bits(), 3);
    }

    /// The clipped counts by brute force over n-gram vectors.
    fn brute(r: &[u32], h: &[u32], n: usize) -> u64 {
        let grams = |x: &[u32]| -> HashMap<Vec<u32>, u64> {
            let mut m = HashMap::new();
            for w in x.windows(n) {
                *m.entry(w.to_vec()).or_insert(0) += 1;
            }
            m
        };
        let (gr, gh) = (grams(r), grams(h));
        gh.iter()
            .map(|(g, c)| (*c).min(gr.get(g).copied().unwrap_or(0)))
            .sum()
    }

    #[test]
    fn matches_brute_force_packed_and_long() {
        let mut state = 7u64;
        let mut next = |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        for case in 0..400 {
            let v = if case % 2 == 0 { 5 } else { 3000 };
            let r: Vec<u32> = (0..next(30)).map(|_| 1 + next(v) as u32).collect();
            let h: Vec<u32> = (0..next(30))
                .map(|_| if next(6) == 0 { 0 } else { 1 + next(v) as u32 })
                .collect();
            let vocab_bits = u32::BITS - (v as u32).leading_zeros();
            // 12 orders: with 12-bit ids the longest do not pack
            let t = NgramTable::from_ids(&r, vocab_bits, 12);
            let got = t.clipped_matches(&h);
            for n in 1..=12 {
                let hh: Vec<u32> = h.clone();
                assert_eq!(got[n - 1], brute(&r, &hh, n), "case {case} order {n}");
                assert_eq!(t.windows(n), (r.len() + 1).saturating_sub(n) as u64);
            }
        }
    }

    /// Several references merged by maximum, against the brute-force
    /// count of each reference: the clipped count against the maximum of
    /// the references' counts per n-gram is the largest per-n-gram minimum.
    #[test]
    fn maximum_over_references_matches_brute_force() {
        let mut rng = crate::bootstrap::Rng::from_seed(11);
        let mut next = |m: u64| rng.below(m);
        let grams = |x: &[u32], n: usize| -> HashMap<Vec<u32>, u64> {
            let mut m = HashMap::new();
            for w in x.windows(n) {
                *m.entry(w.to_vec()).or_insert(0) += 1;
            }
            m
        };
        for case in 0..300 {
            // small vocabularies repeat n-grams; 3000 ids do not pack 6-grams
            let v = [3, 40, 3000][case % 3];
            let bits = u32::BITS - (v as u32).leading_zeros();
            let refs: Vec<Vec<u32>> = (0..1 + next(4))
                .map(|_| (0..next(40)).map(|_| 1 + next(v) as u32).collect())
                .collect();
            let h: Vec<u32> = (0..next(40))
                .map(|_| if next(8) == 0 { 0 } else { 1 + next(v) as u32 })
                .collect();
            let mut t = NgramTable::new(bits, 6);
            for r in &refs {
                t.add_max(r);
            }
            let got = t.clipped_matches(&h);
            for n in 1..=6 {
                let mut most: HashMap<Vec<u32>, u64> = HashMap::new();
                for r in &refs {
                    for (g, c) in grams(r, n) {
                        let e = most.entry(g).or_insert(0);
                        *e = (*e).max(c);
                    }
                }
                let want: u64 = grams(&h, n)
                    .iter()
                    .map(|(g, c)| (*c).min(most.get(g).copied().unwrap_or(0)))
                    .sum();
                assert_eq!(got[n - 1], want, "case {case} order {n}");
                let longest = refs.iter().map(|r| r.len()).max().unwrap_or(0);
                assert_eq!(t.windows(n), (longest + 1).saturating_sub(n) as u64);
                assert_eq!(t.has_order(n), longest >= n);
            }
        }
    }

    #[test]
    fn empty_texts() {
        let t = NgramTable::from_ids(&[], 1, 4);
        assert_eq!(t.clipped_matches(&[1, 0, 1]), vec![0; 4]);
        assert!(!t.has_order(1));
        let t = NgramTable::from_ids(&[1, 2], 2, 4);
        assert_eq!(t.clipped_matches(&[]), vec![0; 4]);
        assert_eq!(t.clipped_matches(&[0, 0]), vec![0; 4]);
        let mut t = NgramTable::new(2, 2);
        t.add_max(&[]);
        t.add_max(&[2, 1]);
        t.add_max(&[]);
        assert_eq!(t.clipped_matches(&[2, 1, 2, 1]), vec![2, 1]);
        assert_eq!(
            NgramTable::from_ids(&[1], 1, 0).clipped_matches(&[1]),
            Vec::<u64>::new()
        );
    }

    #[test]
    fn maximum_over_references() {
        let mut t = NgramTable::from_ids(&[1, 1, 2], 2, 2);
        t.add_max(&[1, 2, 2, 2]);
        // unigram 1: max(2, 1); 2: max(1, 3); bigram 1 2: 1; 1 1: 1; 2 2: 2
        assert_eq!(t.clipped_matches(&[1, 1, 1, 2, 2, 2, 2]), vec![5, 4]);
    }
}
