//! jiwer's `collect_error_counts` dictionaries (sequence.md 2.4) without a
//! text per chunk: a chunk's text is the `sep.join` of its words. While
//! counting, a chunk is its word sequence (which identifies the text
//! unless a word holds the separator: a custom `word_delimiter` lets a
//! token hold a space, and [`ErrorCounts::finish`] then merges the
//! sequences with one text, as jiwer's dictionaries keyed by text do);
//! words get ids from a small table that stays in cache, a chunk of up to
//! three words is one packed integer (a longer one an id of its own) and
//! each chunk appends a (reference, hypothesis) pair to a list: no large
//! map is touched per chunk. [`ErrorCounts::finish`] sorts the list, counts equal pairs and
//! builds each distinct text once (a shared [`Text`], which the tables
//! reuse as cells). Pure data; no I/O.

use std::collections::HashMap;

use super::ngram::Vocab;
use rsmreport_core::table::{FxBuild, Text};

/// Bits per word id in a packed chunk (three ids per `u64`).
const PACK_BITS: u32 = 21;
/// The mark of a chunk side that is a long-phrase id, not packed ids.
const LONG: u64 = 1 << 63;

/// The kind of an error entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ErrorKind {
    Deletion,
    Insertion,
    Substitution,
}

impl ErrorKind {
    /// The `type` cell of the `error_counts` table.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Deletion => "deletion",
            ErrorKind::Insertion => "insertion",
            ErrorKind::Substitution => "substitution",
        }
    }
}

/// One distinct entry: kind, reference and hypothesis text ids (`None` for
/// the side the kind has not), count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorEntry {
    pub kind: ErrorKind,
    pub reference: Option<u32>,
    pub hypothesis: Option<u32>,
    pub count: u64,
}

/// Word ids (`0..`) by text, in first-seen order: a [`Vocab`]'s ids less
/// one, and the words by id.
#[derive(Debug, Clone, Default)]
pub struct WordIds {
    words: Vec<Box<str>>,
    ids: Vocab,
}

impl WordIds {
    /// The id of `w`, added when new.
    pub fn id(&mut self, w: &str) -> u32 {
        let id = self.ids.insert_str(w) - 1;
        if id as usize == self.words.len() {
            self.words.push(w.into());
        }
        id
    }

    /// The word of an id.
    pub fn word(&self, id: u32) -> &str {
        &self.words[id as usize]
    }
}

/// jiwer's three error-count dictionaries: pairs while counting, distinct
/// entries and their texts after [`ErrorCounts::finish`].
#[derive(Debug, Clone, Default)]
pub struct ErrorCounts {
    sep: String,
    words: WordIds,
    /// Phrases of more than three words (or ids too large to pack).
    long: Vec<Box<[u32]>>,
    long_ids: HashMap<Box<[u32]>, u32, FxBuild>,
    /// (reference side, hypothesis side) per chunk, 0 = no side.
    pairs: Vec<(u64, u64)>,
    texts: Vec<Text>,
    entries: Vec<ErrorEntry>,
}

impl ErrorCounts {
    /// Takes the word ids a caller numbered itself (with
    /// [`ErrorCounts::side_of`]) and their separator; instead of
    /// [`ErrorCounts::side`], before merging or finishing.
    pub fn use_words(&mut self, words: WordIds, sep: &str) {
        self.words = words;
        self.sep = sep.to_string();
    }

    /// The side of a chunk of word ids: packed when it can be, else a
    /// long-phrase id.
    pub fn side_of(&mut self, ids: &[u32]) -> u64 {
        if ids.len() <= 3 && ids.iter().all(|&i| i + 1 < 1 << PACK_BITS) {
            return ids
                .iter()
                .fold(0u64, |k, &i| (k << PACK_BITS) | u64::from(i + 1));
        }
        let id = match self.long_ids.get(ids) {
            Some(&id) => id,
            None => {
                let id = self.long.len() as u32;
                self.long.push(ids.into());
                self.long_ids.insert(ids.into(), id);
                id
            }
        };
        LONG | u64::from(id)
    }

    /// The word ids of a side.
    fn ids_of(&self, side: u64) -> Vec<u32> {
        if side & LONG != 0 {
            return self.long[(side & !LONG) as usize].to_vec();
        }
        let mut ids = Vec::with_capacity(3);
        let mut key = side;
        while key != 0 {
            ids.push((key & ((1 << PACK_BITS) - 1)) as u32 - 1);
            key >>= PACK_BITS;
        }
        ids.reverse();
        ids
    }

    /// The side of the chunk `sep.join(words)` (at least one word).
    pub fn side<W: AsRef<str>>(&mut self, words: &[W], sep: &str) -> u64 {
        if self.sep.is_empty() {
            self.sep = sep.to_string();
        }
        let mut small = [0u32; 3];
        let mut big = Vec::new();
        let ids: &mut [u32] = if words.len() <= small.len() {
            &mut small[..words.len()]
        } else {
            big.resize(words.len(), 0);
            &mut big
        };
        for (i, w) in ids.iter_mut().zip(words) {
            *i = self.words.id(w.as_ref());
        }
        let ids: &[u32] = ids;
        self.side_of(ids)
    }

    /// Counts one chunk: a substitution (both sides), an insertion (no
    /// reference side) or a deletion (no hypothesis side); 0 = no side.
    pub fn count(&mut self, reference: u64, hypothesis: u64) {
        self.pairs.push((reference, hypothesis));
    }

    /// Adds another part's chunks (its words re-numbered).
    pub fn merge(&mut self, from: ErrorCounts) {
        if self.sep.is_empty() {
            self.sep.clone_from(&from.sep);
        }
        let map: Vec<u32> = from.words.words.iter().map(|w| self.words.id(w)).collect();
        let mut memo: HashMap<u64, u64, FxBuild> = HashMap::default();
        let mut side = |me: &mut Self, s: u64| -> u64 {
            if s == 0 {
                return 0;
            }
            if let Some(&m) = memo.get(&s) {
                return m;
            }
            let ids: Vec<u32> = from.ids_of(s).iter().map(|&i| map[i as usize]).collect();
            let m = me.side_of(&ids);
            memo.insert(s, m);
            m
        };
        self.pairs.reserve(from.pairs.len());
        for &(r, h) in &from.pairs {
            let pair = (side(self, r), side(self, h));
            self.pairs.push(pair);
        }
    }

    /// Counts equal chunks and builds the distinct texts; the counting
    /// state is released. Entries are keyed by text, as jiwer keys them:
    /// two different word sequences that join to one text (a token holding
    /// the separator, as a custom `word_delimiter` allows) are one entry.
    pub fn finish(&mut self) {
        let mut pairs = std::mem::take(&mut self.pairs);
        pairs.sort_unstable();
        let mut sides: Vec<u64> = pairs
            .iter()
            .flat_map(|&(r, h)| [r, h])
            .filter(|&s| s != 0)
            .collect();
        sides.sort_unstable();
        sides.dedup();
        // text ids in the texts' order: readers rank entries by id
        let mut texts: Vec<(Text, usize)> = sides
            .iter()
            .enumerate()
            .map(|(i, &s)| (self.text_of(s), i))
            .collect();
        texts.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut rank = vec![0u32; texts.len()];
        let mut distinct: Vec<Text> = Vec::with_capacity(texts.len());
        for (t, i) in texts {
            if distinct.last() != Some(&t) {
                distinct.push(t);
            }
            rank[i] = distinct.len() as u32 - 1;
        }
        let merged = distinct.len() < sides.len();
        self.texts = distinct;
        let id = |s: u64| -> Option<u32> {
            (s != 0).then(|| rank[sides.binary_search(&s).expect("a counted side")])
        };
        let mut by_text: Vec<(Option<u32>, Option<u32>, u64)> = pairs
            .chunk_by(|a, b| a == b)
            .map(|run| (id(run[0].0), id(run[0].1), run.len() as u64))
            .collect();
        if merged {
            // sides with one text: their runs are added up
            by_text.sort_unstable_by_key(|&(r, h, _)| (r, h));
            by_text.dedup_by(|b, a| {
                let same = (a.0, a.1) == (b.0, b.1);
                if same {
                    a.2 += b.2;
                }
                same
            });
        }
        self.entries = by_text
            .into_iter()
            .map(|(reference, hypothesis, count)| ErrorEntry {
                kind: match (reference, hypothesis) {
                    (_, None) => ErrorKind::Deletion,
                    (None, _) => ErrorKind::Insertion,
                    _ => ErrorKind::Substitution,
                },
                reference,
                hypothesis,
                count,
            })
            .collect();
        self.words = WordIds::default();
        self.long = Vec::new();
        self.long_ids = HashMap::default();
    }

    /// `sep.join` of a side's words.
    fn text_of(&self, side: u64) -> Text {
        let mut s = String::new();
        for (i, id) in self.ids_of(side).into_iter().enumerate() {
            if i > 0 {
                s.push_str(&self.sep);
            }
            s.push_str(self.words.word(id));
        }
        Text::from(s)
    }

    /// The distinct entries (after [`ErrorCounts::finish`]).
    pub fn entries(&self) -> &[ErrorEntry] {
        &self.entries
    }

    /// Distinct texts (ids `0..len`, in the texts' order: a smaller id is
    /// a text that sorts first).
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// Whether no text was counted.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// The text of an id.
    pub fn text(&self, id: u32) -> &str {
        &self.texts[id as usize]
    }

    /// The shared text of an id.
    pub fn shared(&self, id: u32) -> &Text {
        &self.texts[id as usize]
    }

    /// The count of an entry by its texts (0 if none; after finishing).
    pub fn find(&self, kind: ErrorKind, reference: &str, hypothesis: &str) -> u64 {
        let text = |id: Option<u32>| id.map_or("", |i| self.text(i));
        self.entries
            .iter()
            .find(|e| {
                e.kind == kind && text(e.reference) == reference && text(e.hypothesis) == hypothesis
            })
            .map_or(0, |e| e.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids in first-seen order, the same for the same word, short (packed)
    /// and long alike, words with a NUL or of 15 and 16 bytes included.
    #[test]
    fn word_ids_number_words_in_first_seen_order() {
        let mut rng = crate::bootstrap::Rng::from_seed(9);
        let mut ids = WordIds::default();
        let mut want: HashMap<String, u32> = HashMap::new();
        for _ in 0..20_000 {
            let len = rng.below(20);
            let w: String = (0..len)
                .map(|_| ['a', '\0', 'é', 'b'][rng.below(4) as usize])
                .collect();
            let next = want.len() as u32;
            let expected = *want.entry(w.clone()).or_insert(next);
            assert_eq!(ids.id(&w), expected, "{w:?}");
            assert_eq!(ids.word(expected), w);
        }
        assert!(want.keys().any(|w| w.len() == 15) && want.keys().any(|w| w.len() == 16));
    }

    /// Tokens that hold the separator (a custom `word_delimiter`): the
    /// chunks `["a b"]` and `["a", "b"]` are one text, so one entry, as
    /// jiwer's dictionaries keyed by `" ".join(chunk)` count them.
    #[test]
    fn chunks_with_one_text_are_one_entry() {
        let mut e = ErrorCounts::default();
        for (r, h) in [
            (vec!["a b"], vec!["x"]),
            (vec!["a", "b"], vec!["x"]),
            (vec!["a", "b"], vec!["x"]),
            (vec!["c"], vec!["x"]),
        ] {
            let (rs, hs) = (e.side(&r, " "), e.side(&h, " "));
            e.count(rs, hs);
        }
        for h in [vec!["y z"], vec!["y", "z"]] {
            let hs = e.side(&h, " ");
            e.count(0, hs);
        }
        e.finish();
        assert_eq!(e.entries().len(), 3);
        assert_eq!(e.find(ErrorKind::Substitution, "a b", "x"), 3);
        assert_eq!(e.find(ErrorKind::Substitution, "c", "x"), 1);
        assert_eq!(e.find(ErrorKind::Insertion, "", "y z"), 2);
        assert!((1..e.len() as u32).all(|i| e.text(i - 1) < e.text(i)));
    }

    /// Counting in two parts and merging gives the counts of one part with
    /// everything, whatever the phrase lengths.
    #[test]
    fn merged_parts_count_as_one() {
        let mut state = 3u64;
        let mut next = |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        let mut all: HashMap<(ErrorKind, String, String), u64> = HashMap::new();
        let mut one = ErrorCounts::default();
        let mut parts = [ErrorCounts::default(), ErrorCounts::default()];
        for i in 0..3000 {
            let mut words = |n: u64| -> Vec<String> {
                (0..1 + next(n)).map(|_| format!("w{}", next(40))).collect()
            };
            let (r, h) = (words(5), words(5));
            let kind = [
                ErrorKind::Deletion,
                ErrorKind::Insertion,
                ErrorKind::Substitution,
            ][i % 3];
            for e in [&mut one, &mut parts[i % 2]] {
                let rs = if kind == ErrorKind::Insertion {
                    0
                } else {
                    e.side(&r, " ")
                };
                let hs = if kind == ErrorKind::Deletion {
                    0
                } else {
                    e.side(&h, " ")
                };
                e.count(rs, hs);
            }
            let rt = if kind == ErrorKind::Insertion {
                String::new()
            } else {
                r.join(" ")
            };
            let ht = if kind == ErrorKind::Deletion {
                String::new()
            } else {
                h.join(" ")
            };
            *all.entry((kind, rt, ht)).or_insert(0) += 1;
        }
        let [mut a, b] = parts;
        a.merge(b);
        for e in [&mut one, &mut a] {
            e.finish();
            // ids order as their texts
            assert!((1..e.len() as u32).all(|i| e.text(i - 1) < e.text(i)));
            assert_eq!(e.entries().len(), all.len());
            for ((k, r, h), c) in &all {
                assert_eq!(e.find(*k, r, h), *c);
            }
        }
    }
}
