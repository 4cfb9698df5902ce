//! Sets of code points as sorted inclusive ranges, and Python's
//! IGNORECASE rule for character sets (`re._compiler._optimize_charset` and
//! the `*_UNI_IGNORE` opcodes: a character matches when its simple
//! lower-case mapping is in the set of lowered members, plus the
//! `_EXTRA_CASES` fixes). Emitted as explicit regex classes, so matching
//! never depends on the regex engine's own Unicode tables. Pure data.

use std::sync::LazyLock;

use super::tables;

/// The largest code point.
const MAX: u32 = 0x10FFFF;

/// A set of code points: sorted, disjoint, non-adjacent inclusive ranges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CharSet {
    ranges: Vec<(u32, u32)>,
}

impl CharSet {
    /// The set of a table of sorted disjoint ranges.
    pub fn from_ranges(ranges: &[(u32, u32)]) -> CharSet {
        let mut s = CharSet::default();
        for &(lo, hi) in ranges {
            s.add(lo, hi);
        }
        s
    }

    /// One code point.
    pub fn single(c: u32) -> CharSet {
        CharSet {
            ranges: vec![(c, c)],
        }
    }

    /// Adds `lo..=hi`.
    pub fn add(&mut self, lo: u32, hi: u32) {
        let at = self
            .ranges
            .partition_point(|&(_, h)| h.saturating_add(1) < lo);
        let mut end = at;
        let (mut nlo, mut nhi) = (lo, hi);
        while end < self.ranges.len() && self.ranges[end].0 <= hi.saturating_add(1) {
            nlo = nlo.min(self.ranges[end].0);
            nhi = nhi.max(self.ranges[end].1);
            end += 1;
        }
        self.ranges.splice(at..end, [(nlo, nhi)]);
    }

    /// Adds every range of `other`.
    pub fn union(&mut self, other: &CharSet) {
        for &(lo, hi) in &other.ranges {
            self.add(lo, hi);
        }
    }

    /// The complement within U+0000..U+10FFFF.
    pub fn negated(&self) -> CharSet {
        let mut out = Vec::new();
        let mut next = 0u32;
        for &(lo, hi) in &self.ranges {
            if lo > next {
                out.push((next, lo - 1));
            }
            next = hi.saturating_add(1);
        }
        if next <= MAX {
            out.push((next, MAX));
        }
        CharSet { ranges: out }
    }

    /// Whether `c` is in the set.
    pub fn contains(&self, c: u32) -> bool {
        let i = self.ranges.partition_point(|&(_, h)| h < c);
        i < self.ranges.len() && self.ranges[i].0 <= c
    }

    /// The ranges.
    pub fn ranges(&self) -> &[(u32, u32)] {
        &self.ranges
    }

    /// The set as a regex class of `\x{..}` escapes (surrogates left out; an
    /// empty set is a class that never matches).
    pub fn to_class(&self) -> String {
        let mut out = String::from("[");
        for &(lo, hi) in &self.ranges {
            for (a, b) in [(lo, hi.min(0xD7FF)), (lo.max(0xE000), hi)] {
                if a > b {
                    continue;
                }
                if a == b {
                    out.push_str(&format!("\\x{{{a:X}}}"));
                } else {
                    out.push_str(&format!("\\x{{{a:X}}}-\\x{{{b:X}}}"));
                }
            }
        }
        if out.len() == 1 {
            // nothing: a class that matches no scalar value
            return "[^\\x{0}-\\x{D7FF}\\x{E000}-\\x{10FFFF}]".to_string();
        }
        out.push(']');
        out
    }
}

/// Python's character categories in a pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    Word,
    Digit,
    Space,
}

/// The set of a category, Unicode (`ascii = false`) or under `re.ASCII`.
pub fn category(cat: Category, ascii: bool) -> &'static CharSet {
    static SETS: LazyLock<[CharSet; 6]> = LazyLock::new(|| {
        [
            CharSet::from_ranges(tables::WORD),
            CharSet::from_ranges(tables::DIGIT),
            CharSet::from_ranges(tables::SPACE),
            CharSet::from_ranges(&[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]),
            CharSet::from_ranges(&[(0x30, 0x39)]),
            CharSet::from_ranges(&[(0x9, 0xD), (0x20, 0x20)]),
        ]
    });
    let i = match cat {
        Category::Word => 0,
        Category::Digit => 1,
        Category::Space => 2,
    };
    &SETS[i + if ascii { 3 } else { 0 }]
}

/// A category's class, or its complement's (cached: the word class of
/// Unicode 14.0 is about 700 ranges and every `\b` uses it).
pub fn category_class(cat: Category, ascii: bool, negated: bool) -> &'static str {
    static CLASSES: LazyLock<Vec<String>> = LazyLock::new(|| {
        let mut out = Vec::new();
        for ascii in [false, true] {
            for cat in [Category::Word, Category::Digit, Category::Space] {
                let s = category(cat, ascii);
                out.push(s.to_class());
                out.push(s.negated().to_class());
            }
        }
        out
    });
    let c = match cat {
        Category::Word => 0,
        Category::Digit => 1,
        Category::Space => 2,
    };
    &CLASSES[usize::from(ascii) * 6 + c * 2 + usize::from(negated)]
}

/// The simple lower-case pairs (code point, `_sre.unicode_tolower`) that
/// change a code point, for Unicode or ASCII matching, and the complement
/// of their keys.
fn lower_pairs(ascii: bool) -> &'static (Vec<(u32, u32)>, CharSet) {
    fn build(pairs: Vec<(u32, u32)>) -> (Vec<(u32, u32)>, CharSet) {
        let mut keys = CharSet::default();
        for &(k, _) in &pairs {
            keys.add(k, k);
        }
        (pairs, keys.negated())
    }
    static ASCII: LazyLock<(Vec<(u32, u32)>, CharSet)> =
        LazyLock::new(|| build((0x41..=0x5A).map(|c| (c, c + 0x20)).collect()));
    static UNICODE: LazyLock<(Vec<(u32, u32)>, CharSet)> =
        LazyLock::new(|| build(tables::SIMPLE_LOWER.to_vec()));
    if ascii {
        &ASCII
    } else {
        &UNICODE
    }
}

impl CharSet {
    /// The code points in both sets.
    pub fn intersection(&self, other: &CharSet) -> CharSet {
        let (mut i, mut j) = (0, 0);
        let mut out = Vec::new();
        while i < self.ranges.len() && j < other.ranges.len() {
            let (a, b) = (self.ranges[i], other.ranges[j]);
            let (lo, hi) = (a.0.max(b.0), a.1.min(b.1));
            if lo <= hi {
                out.push((lo, hi));
            }
            if a.1 < b.1 {
                i += 1;
            } else {
                j += 1;
            }
        }
        CharSet { ranges: out }
    }
}

/// Whether `c` is cased for IGNORECASE (`_sre.unicode_iscased`, or an ASCII
/// letter under `re.ASCII`).
fn cased_set(ascii: bool) -> &'static CharSet {
    static SETS: LazyLock<[CharSet; 2]> = LazyLock::new(|| {
        [
            CharSet::from_ranges(tables::CASED),
            CharSet::from_ranges(&[(0x41, 0x5A), (0x61, 0x7A)]),
        ]
    });
    &SETS[usize::from(ascii)]
}

/// The code points an IGNORECASE set matches: `members` (literals and
/// ranges) and `categories` (tested on the lowered character, as Python
/// does when the set has a cased member), or the plain union when no
/// member is cased (Python then compiles the set without IGNORECASE).
pub fn ignorecase_set(members: &CharSet, categories: &CharSet, ascii: bool) -> CharSet {
    if members.intersection(cased_set(ascii)).ranges.is_empty() {
        let mut all = members.clone();
        all.union(categories);
        return all;
    }
    let (pairs, not_keys) = lower_pairs(ascii);
    // the lowered members: those that lower to themselves, and the lowers
    let mut lowered = members.intersection(not_keys);
    for &(k, l) in pairs {
        if members.contains(k) {
            lowered.add(l, l);
        }
    }
    if !ascii {
        for &(lo, extra) in tables::EXTRA_CASES {
            if lowered.contains(lo) {
                lowered.add(extra, extra);
            }
        }
    }
    lowered.union(categories);
    // matched: a character whose lower-case form is in the set
    let mut out = lowered.intersection(not_keys);
    for &(k, l) in pairs {
        if lowered.contains(l) {
            out.add(k, k);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_merge_and_negate() {
        let mut s = CharSet::default();
        s.add(5, 7);
        s.add(1, 2);
        s.add(3, 4);
        s.add(10, 10);
        assert_eq!(s.ranges(), &[(1, 7), (10, 10)]);
        assert_eq!(s.negated().ranges(), &[(0, 0), (8, 9), (11, MAX)]);
        assert!(s.contains(7) && !s.contains(8) && s.contains(10));
        assert_eq!(CharSet::default().negated().ranges(), &[(0, MAX)]);
    }

    #[test]
    fn ignorecase_sets_follow_python() {
        let none = CharSet::default();
        // (?i)k matches K, k and the Kelvin sign
        let k = ignorecase_set(&CharSet::single('k' as u32), &none, false);
        assert_eq!(k.ranges(), &[(0x4B, 0x4B), (0x6B, 0x6B), (0x212A, 0x212A)]);
        // (?i)i: İ lowers to i (simple mapping), ı is an extra case of i
        let i = ignorecase_set(&CharSet::single('i' as u32), &none, false);
        for c in ['i', 'I', 'İ', 'ı'] {
            assert!(i.contains(c as u32), "{c}");
        }
        // under re.ASCII only ASCII letters fold
        let ka = ignorecase_set(&CharSet::single('k' as u32), &none, true);
        assert_eq!(ka.ranges(), &[(0x4B, 0x4B), (0x6B, 0x6B)]);
        // a set without a cased member is taken as it is
        let d = ignorecase_set(&CharSet::single('1' as u32), &none, false);
        assert_eq!(d.ranges(), &[(0x31, 0x31)]);
    }
}
