//! Exact n-gram matching without per-n-gram allocation, shared by BLEU
//! (word n-grams, sequence.md 2.1) and chrF/chrF++ (character and word
//! n-grams, 2.2).
//!
//! A segment's references fix a vocabulary: each distinct token (a word, or
//! a character) gets an id `1..=V`; a hypothesis token outside it gets `0`
//! and no n-gram through it can match. An n-gram of ids is packed into a
//! `u128` with `bits = bit length of V` per id; since no id is 0, the
//! orders occupy disjoint key ranges and one table holds them all. N-grams
//! too long to pack (`bits * n > 128`) are kept as boxed id slices. The
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

/// One reference's n-gram counts (orders `1..=max_order`), or the maximum
/// over several references (BLEU).
#[derive(Debug, Clone, Default)]
pub struct NgramTable {
    bits: u32,
    max_order: usize,
    packed: HashMap<u128, u32, FxBuild>,
    long: HashMap<Box<[u32]>, u32, FxBuild>,
    /// Count of the n-gram whose slot the maps give.
    counts: Vec<u32>,
    /// N-grams (with repeats) per order, `windows[n - 1]`.
    windows: Vec<u64>,
    /// Distinct n-grams per order.
    distinct: Vec<u64>,
}

/// Walks every n-gram of orders `1..=max_order` of `ids` that contains no
/// id 0, giving `(order, start, packed key or None when too long)`.
fn for_each_ngram(
    ids: &[u32],
    bits: u32,
    max_order: usize,
    mut f: impl FnMut(usize, usize, Option<u128>),
) {
    for i in 0..ids.len() {
        let mut key: u128 = 0;
        for n in 1..=max_order.min(ids.len() - i) {
            let id = ids[i + n - 1];
            if id == 0 {
                break;
            }
            if bits as usize * n <= 128 {
                key = (key << bits) | id as u128;
                f(n, i, Some(key));
            } else {
                f(n, i, None);
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
    fn slot(&mut self, n: usize, gram: &[u32], key: Option<u128>) -> u32 {
        let next = self.counts.len() as u32;
        let slot = match key {
            Some(k) => *self.packed.entry(k).or_insert(next),
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
        t.add_max(ids);
        t
    }

    /// Merges a reference in by maximum (BLEU's several references):
    /// each n-gram's count becomes the larger of the two.
    pub fn add_max(&mut self, ids: &[u32]) {
        let mut own: HashMap<u32, u32, FxBuild> = HashMap::default();
        let bits = self.bits;
        let max_order = self.max_order;
        for n in 1..=max_order {
            let w = (ids.len() + 1).saturating_sub(n) as u64;
            self.windows[n - 1] = self.windows[n - 1].max(w);
        }
        let mut slots: Vec<u32> = Vec::new();
        for_each_ngram(ids, bits, max_order, |n, i, key| {
            slots.push(self.slot(n, &ids[i..i + n], key));
        });
        for s in slots {
            *own.entry(s).or_insert(0) += 1;
        }
        for (s, c) in own {
            let e = &mut self.counts[s as usize];
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
    /// hypothesis ids (0 = outside the vocabulary).
    pub fn clipped_matches(&self, hyp: &[u32]) -> Vec<u64> {
        let mut left = self.counts.clone();
        let mut out = vec![0u64; self.max_order];
        for_each_ngram(hyp, self.bits, self.max_order, |n, i, key| {
            let slot = match key {
                Some(k) => self.packed.get(&k),
                None => self.long.get(&hyp[i..i + n]),
            };
            if let Some(&s) = slot {
                let l = &mut left[s as usize];
                if *l > 0 {
                    *l -= 1;
                    out[n - 1] += 1;
                }
            }
        });
        out
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
