//! Python's string rules that the reference packages rely on (sequence.md
//! 1.2): white space as `str.split()` / `str.strip()` see it (Unicode
//! White_Space plus U+001C-U+001F, which Rust's `char::is_whitespace`
//! lacks), and `str.lower()`. Pure functions on `&str`; no I/O.

/// Python's `str.isspace()` for one code point: Unicode White_Space and the
/// four information separators U+001C-U+001F (bidirectional class B/S).
pub fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.split()` without arguments: runs of white space separate,
/// leading and trailing white space give no empty piece.
pub fn py_split(s: &str) -> PySplit<'_> {
    PySplit { s, at: 0 }
}

/// The iterator of [`py_split`]: ASCII bytes are tested as bytes
/// ([`is_ascii_py_space`]), other characters decoded.
#[derive(Debug, Clone)]
pub struct PySplit<'a> {
    s: &'a str,
    at: usize,
}

/// [`is_py_space`] of an ASCII byte: `\t`-`\r`, U+001C-U+001F and the space.
#[inline(always)]
pub fn is_ascii_py_space(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | 0x1c..=0x1f | b' ')
}

/// Whether the character starting at byte `i` of `s` is white space, and
/// its length: ASCII inline, other characters decoded out of line.
#[inline(always)]
pub fn space_at(s: &str, i: usize) -> (bool, usize) {
    let b = s.as_bytes()[i];
    if b.is_ascii() {
        (is_ascii_py_space(b), 1)
    } else {
        wide_space_at(s, i)
    }
}

#[inline(never)]
fn wide_space_at(s: &str, i: usize) -> (bool, usize) {
    let c = s[i..].chars().next().expect("a character starts here");
    (is_py_space(c), c.len_utf8())
}

impl<'a> Iterator for PySplit<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let n = self.s.len();
        let mut i = self.at;
        while i < n {
            let (space, len) = space_at(self.s, i);
            if !space {
                break;
            }
            i += len;
        }
        if i == n {
            self.at = n;
            return None;
        }
        let start = i;
        while i < n {
            let (space, len) = space_at(self.s, i);
            if space {
                break;
            }
            i += len;
        }
        self.at = i;
        Some(&self.s[start..i])
    }
}

/// A word of at most 15 bytes as one integer, its bytes above its length
/// (distinct words, distinct keys): looked up in a map without comparing
/// or copying text.
pub fn packed_word(w: &str) -> Option<u128> {
    let b = w.as_bytes();
    (b.len() < 16).then(|| {
        b.iter().rev().fold(0u128, |k, &c| (k << 8) | u128::from(c)) << 8 | b.len() as u128
    })
}

/// Python's `str.rstrip()`.
pub fn py_rstrip(s: &str) -> &str {
    s.trim_end_matches(is_py_space)
}

/// Python's `str.strip()`.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// Python 3.11's `str.lower()`: full case mapping, final sigma by context,
/// mappings Unicode 14.0 knows ([`super::jiwer::pystr::lower`], the one
/// definition).
pub fn py_lower(s: &str) -> String {
    super::jiwer::pystr::lower(s)
}

/// `' '.join(s.split())`: one space between words, none around.
pub fn py_join_split(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in py_split(s) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The split by bytes is the split by characters, on random strings
    /// over ASCII and other white space and other characters.
    #[test]
    fn split_is_the_split_by_characters() {
        let alphabet: Vec<char> =
            "ab \t\n\u{b}\u{1c}\u{1f}\u{85}\u{a0}\u{3000}\u{200b}\u{e9}\u{4e00}\u{1f600}"
                .chars()
                .collect();
        let mut rng = crate::bootstrap::Rng::from_seed(7);
        for _ in 0..20_000 {
            let len = rng.below(32);
            let mut s = String::new();
            for _ in 0..len {
                s.push(alphabet[rng.below(alphabet.len() as u64) as usize]);
            }
            let want: Vec<&str> = s.split(is_py_space).filter(|w| !w.is_empty()).collect();
            assert_eq!(py_split(&s).collect::<Vec<_>>(), want, "{s:?}");
        }
    }

    #[test]
    fn python_white_space_includes_information_separators() {
        let s = "a\u{1c}b\u{1f}c\u{a0}d\u{3000}e\u{85}f\u{2028}g\u{200b}h\u{feff}i";
        let words: Vec<&str> = py_split(s).collect();
        assert_eq!(words, ["a", "b", "c", "d", "e", "f", "g\u{200b}h\u{feff}i"]);
        assert_eq!(py_rstrip("x \u{1f}\r\n"), "x");
        assert_eq!(py_strip("\u{1c} x \u{a0}"), "x");
        assert_eq!(py_join_split("  a \t b\n"), "a b");
    }

    #[test]
    fn python_lowercase() {
        assert_eq!(py_lower("İ"), "i\u{307}");
        assert_eq!(
            py_lower("\u{39f}\u{394}\u{39f}\u{3a3}"),
            "\u{3bf}\u{3b4}\u{3bf}\u{3c2}"
        );
        assert_eq!(py_lower("ẞ"), "ß");
    }
}
