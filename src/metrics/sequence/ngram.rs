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

use crate::table::FxBuild;

/// Token ids of one segment's vocabulary (`1..=len`), built from the
/// references.
#[derive(Debug, Clone, Default)]
pub struct Vocab<K: std::hash::Hash + Eq> {
    ids: HashMap<K, u32, FxBuild>,
}

impl<K: std::hash::Hash + Eq> Vocab<K> {
    /// The id of `key`, adding it when new.
    pub fn insert(&mut self, key: K) -> u32 {
        let next = self.ids.len() as u32 + 1;
        *self.ids.entry(key).or_insert(next)
    }

    /// The id of `key`, 0 when it is not in the vocabulary.
    pub fn get<Q>(&self, key: &Q) -> u32
    where
        K: std::borrow::Borrow<Q>,
        Q: std::hash::Hash + Eq + ?Sized,
    {
        self.ids.get(key).copied().unwrap_or(0)
    }

    /// Bits per packed id.
    pub fn bits(&self) -> u32 {
        u32::BITS - (self.ids.len() as u32).leading_zeros()
    }
}

impl Vocab<String> {
    /// [`Vocab::insert`] of a borrowed word: the text is copied only the
    /// first time it is seen.
    pub fn insert_str(&mut self, key: &str) -> u32 {
        if let Some(&id) = self.ids.get(key) {
            return id;
        }
        let next = self.ids.len() as u32 + 1;
        self.ids.insert(key.to_string(), next);
        next
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
    long: HashMap<Box<[u32]>, u32, FxBuild>,
    /// Count of the n-gram whose slot the maps give.
    counts: Vec<u32>,
    /// N-grams (with repeats) per order, `windows[n - 1]`.
    windows: Vec<u64>,
    /// Distinct n-grams per order.
    distinct: Vec<u64>,
}

/// An open-addressing map from packed n-gram keys (never 0: no id is 0)
/// to slots, linear probing in a power-of-two table kept at most half
/// full: one segment's n-grams stay in a few cache lines' reach, which a
/// general hash map of `u128` keys did not (sequence.md 6).
#[derive(Debug, Clone, Default)]
struct PackedMap {
    /// `(key, slot)`; key 0 = empty.
    entries: Vec<(u64, u32)>,
    len: usize,
}

impl PackedMap {
    fn with_capacity(n: usize) -> PackedMap {
        let cap = (2 * n.max(4)).next_power_of_two();
        PackedMap {
            entries: vec![(0, 0); cap],
            len: 0,
        }
    }

    fn home(&self, key: u64) -> usize {
        let shift = 64 - self.entries.len().trailing_zeros();
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize
    }

    fn get(&self, key: u64) -> Option<u32> {
        if self.entries.is_empty() {
            return None;
        }
        let mask = self.entries.len() - 1;
        let mut i = self.home(key);
        loop {
            let (k, v) = self.entries[i];
            if k == key {
                return Some(v);
            }
            if k == 0 {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// The slot of `key`, `next` when it is new (then inserted).
    fn get_or_insert(&mut self, key: u64, next: u32) -> u32 {
        if 2 * (self.len + 1) > self.entries.len() {
            self.grow();
        }
        let mask = self.entries.len() - 1;
        let mut i = self.home(key);
        loop {
            let (k, v) = self.entries[i];
            if k == key {
                return v;
            }
            if k == 0 {
                self.entries[i] = (key, next);
                self.len += 1;
                return next;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let old = std::mem::take(&mut self.entries);
        *self = PackedMap::with_capacity(old.len().max(8));
        for (k, v) in old.into_iter().filter(|e| e.0 != 0) {
            self.get_or_insert(k, v);
        }
    }
}

/// Walks every n-gram of orders `1..=max_order` of `ids` that contains no
/// id 0, giving `(order, start, packed key or None when too long)`; `f`
/// returning false ends the walk from that start (no longer n-gram from
/// there is wanted).
fn for_each_ngram(
    ids: &[u32],
    bits: u32,
    max_order: usize,
    mut f: impl FnMut(usize, usize, Option<u64>) -> bool,
) {
    for i in 0..ids.len() {
        let mut key: u64 = 0;
        for n in 1..=max_order.min(ids.len() - i) {
            let id = ids[i + n - 1];
            if id == 0 {
                break;
            }
            let packed = if bits as usize * n <= 64 {
                key = (key << bits) | id as u64;
                Some(key)
            } else {
                None
            };
            if !f(n, i, packed) {
                break;
            }
        }
    }
}

impl NgramTable {
    /// An empty table for ids of a vocabulary with `bits` bits per id.
    pub fn new(bits: u32, max_order: usize) -> NgramTable {
        NgramTable {
            bits: bits.max(1),
            max_order,
            windows: vec![0; max_order],
            distinct: vec![0; max_order],
            ..NgramTable::default()
        }
    }

    /// The slot of an n-gram, added with count 0 when new.
    fn slot(&mut self, n: usize, gram: &[u32], key: Option<u64>) -> u32 {
        let next = self.counts.len() as u32;
        let slot = match key {
            Some(k) => self.packed.get_or_insert(k, next),
            None => *self.long.entry(gram.into()).or_insert(next),
        };
        if slot == next {
            self.counts.push(0);
            self.distinct[n - 1] += 1;
        }
        slot
    }

    /// The counts of one reference's ids (every id > 0).
    pub fn from_ids(ids: &[u32], bits: u32, max_order: usize) -> NgramTable {
        let mut t = NgramTable::new(bits, max_order);
        t.packed = PackedMap::with_capacity(ids.len() * max_order);
        t.add_max(ids);
        t
    }

    /// Merges a reference in by maximum (BLEU's several references):
    /// each n-gram's count becomes the larger of the two.
    pub fn add_max(&mut self, ids: &[u32]) {
        let bits = self.bits;
        let max_order = self.max_order;
        for n in 1..=max_order {
            let w = (ids.len() + 1).saturating_sub(n) as u64;
            self.windows[n - 1] = self.windows[n - 1].max(w);
        }
        if self.counts.is_empty() {
            // nothing to take the maximum with: count in place
            for_each_ngram(ids, bits, max_order, |n, i, key| {
                let s = self.slot(n, &ids[i..i + n], key);
                self.counts[s as usize] += 1;
                true
            });
            return;
        }
        let mut slots: Vec<u32> = Vec::with_capacity(ids.len() * max_order);
        for_each_ngram(ids, bits, max_order, |n, i, key| {
            slots.push(self.slot(n, &ids[i..i + n], key));
            true
        });
        let mut own = vec![0u32; self.counts.len()];
        for &s in &slots {
            own[s as usize] += 1;
        }
        for (e, &c) in self.counts.iter_mut().zip(&own) {
            *e = (*e).max(c);
        }
    }

    /// N-grams of order `n` with repeats (of one reference: its windows).
    pub fn windows(&self, n: usize) -> u64 {
        self.windows[n - 1]
    }

    /// Whether the table has any n-gram of order `n`.
    pub fn has_order(&self, n: usize) -> bool {
        self.distinct[n - 1] > 0
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

    fn clipped_with(&self, hyp: &[u32], left: &mut Vec<u32>, out: &mut [u64]) {
        left.clear();
        left.extend_from_slice(&self.counts);
        out.fill(0);
        for_each_ngram(hyp, self.bits, self.max_order, |n, i, key| {
            let slot = match key {
                Some(k) => self.packed.get(k),
                None => self.long.get(&hyp[i..i + n]).copied(),
            };
            let Some(s) = slot else { return false };
            let l = &mut left[s as usize];
            if *l > 0 {
                *l -= 1;
                out[n - 1] += 1;
            }
            true
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn maximum_over_references() {
        let mut t = NgramTable::from_ids(&[1, 1, 2], 2, 2);
        t.add_max(&[1, 2, 2, 2]);
        // unigram 1: max(2, 1); 2: max(1, 3); bigram 1 2: 1; 1 1: 1; 2 2: 2
        assert_eq!(t.clipped_matches(&[1, 1, 1, 2, 2, 2, 2]), vec![5, 4]);
    }
}
