//! Python 3.11's `str` methods as jiwer's transforms call them: white space
//! (`str.isspace`, U+001C-U+001F included) and `strip()` (the project's
//! [`text`] rules, re-exported under jiwer's names), `lower()`, `upper()`
//! (also [`text::py_lower`]'s definition), category P* and `re.escape`. Character properties come from the
//! generated [`super::tables`] (Unicode 14.0, Python 3.11's); case mappings
//! are Rust's full mappings restricted to code points Python's Unicode
//! knows, which reproduces `str.lower()`/`str.upper()` on every code point
//! (see the tests). Pure functions; no I/O.

use super::tables;
use crate::sequence::text;

/// Whether `c` lies in one of the sorted, disjoint inclusive `ranges`.
pub fn in_ranges(ranges: &[(u32, u32)], c: char) -> bool {
    let c = c as u32;
    ranges
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// Python's `str.isspace()` for one code point (Unicode White_Space plus
/// U+001C-U+001F); `re`'s `\s`. The project's one definition,
/// [`text::is_py_space`] (checked against Python's table [`tables::SPACE`]
/// over every code point).
pub fn is_space(c: char) -> bool {
    text::is_py_space(c)
}

/// `re`'s `\w` on a str pattern: `c.isalnum() or c == '_'` (categories L*
/// and N*, not the combining marks or connector punctuation other than `_`
/// that Rust's `\w` includes).
pub fn is_word(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric() || c == '_'
    } else {
        in_ranges(tables::WORD, c)
    }
}

/// Whether `c` is of general category P* (jiwer's `RemovePunctuation`).
pub fn is_punctuation(c: char) -> bool {
    in_ranges(tables::PUNCT, c)
}

/// Whether `c` is assigned in Python 3.11's Unicode database (14.0).
pub fn is_assigned(c: char) -> bool {
    in_ranges(tables::ASSIGNED, c)
}

/// Python's `str.strip()`: [`text::py_strip`].
pub fn strip(s: &str) -> &str {
    text::py_strip(s)
}

/// Python's `str.lower()`: full mappings (`İ` -> `i̇`), final sigma by
/// context (`ΟΔΟΣ.` -> `οδος.`).
pub fn lower(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    map_case(s, |c| c.to_lowercase().all(is_assigned), str::to_lowercase)
}

/// Python's `str.upper()`: full mappings (`ß` -> `SS`, `ﬁ` -> `FI`).
pub fn upper(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_uppercase();
    }
    map_case(s, |c| c.to_uppercase().all(is_assigned), str::to_uppercase)
}

/// Applies Rust's case mapping to the runs of code points whose mapping
/// Python 3.11 shares, and leaves the others (code points, or mapping
/// targets, assigned after Unicode 14.0) as they are. Runs are mapped as
/// strings so that the final-sigma context works within them; a kept code
/// point is uncased for Python, which ends the context as a run boundary
/// does.
fn map_case(s: &str, targets_known: impl Fn(char) -> bool, run: impl Fn(&str) -> String) -> String {
    let mut out = String::with_capacity(s.len());
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let python_maps = c.is_ascii() || (is_assigned(c) && targets_known(c));
        if !python_maps {
            out.push_str(&run(&s[start..i]));
            out.push(c);
            start = i + c.len_utf8();
        }
    }
    out.push_str(&run(&s[start..]));
    out
}

/// Python's `re.escape` (3.7+): a backslash before each of
/// `()[]{}?*+-|^$\.&~#`, space, `\t \n \r \v \f`.
pub fn re_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if "()[]{}?*+-|^$\\.&~# \t\n\r\u{b}\u{c}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FNV-1a (64 bits), as `scripts/gen_jiwer_tables.py` computes it.
    fn fnv(h: u64, data: &[u8]) -> u64 {
        data.iter()
            .fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100000001B3))
    }

    fn digest(f: impl Fn(&str) -> String) -> (u64, usize) {
        let (mut h, mut n) = (0xCBF29CE484222325u64, 0);
        for c in (0..0x110000u32).filter_map(char::from_u32) {
            let m = f(c.encode_utf8(&mut [0; 4]));
            if m.chars().ne(std::iter::once(c)) {
                let cps: Vec<String> = m.chars().map(|x| format!("{:X}", x as u32)).collect();
                h = fnv(h, format!("{:X}:{}\n", c as u32, cps.join(",")).as_bytes());
                n += 1;
            }
        }
        (h, n)
    }

    /// `lower`/`upper` of every single code point equal Python 3.11's (the
    /// generator's digests of `str.lower()` / `str.upper()`).
    #[test]
    fn case_mappings_match_python_digest() {
        assert_eq!(
            digest(lower),
            (tables::PY_LOWER_DIGEST, tables::PY_LOWER_COUNT)
        );
        assert_eq!(
            digest(upper),
            (tables::PY_UPPER_DIGEST, tables::PY_UPPER_COUNT)
        );
    }

    #[test]
    fn case_mappings_by_hand() {
        assert_eq!(lower("ẞ ß İ ΟΔΟΣ ΑΣ. Σ ǅ"), "ß ß i\u{307} οδος ας. σ ǆ");
        assert_eq!(upper("ß ﬁ ŉ ΐ ς ǅ"), "SS FI ʼN \u{399}\u{308}\u{301} Σ Ǆ");
        // ƛ's capital (U+A7DC) is Unicode 16.0: Python 3.11 keeps ƛ
        assert_eq!(upper("ƛ ɤ"), "ƛ ɤ");
        assert_eq!(lower("ABC"), "abc");
    }

    /// The project's white space is Python's table, code point by code
    /// point.
    #[test]
    fn white_space_is_pythons_table() {
        for c in (0..0x110000u32).filter_map(char::from_u32) {
            assert_eq!(
                is_space(c),
                in_ranges(tables::SPACE, c),
                "U+{:04X}",
                c as u32
            );
        }
    }

    #[test]
    fn white_space_and_strip() {
        for c in [
            '\u{1c}', '\u{1f}', '\u{85}', '\u{a0}', '\u{2028}', '\u{3000}', '\t',
        ] {
            assert!(is_space(c), "{c:?}");
        }
        for c in ['\u{200b}', '\u{feff}', 'a', '\u{180e}'] {
            assert!(!is_space(c), "{c:?}");
        }
        assert_eq!(strip("\u{1c}\u{3000}x\u{a0}\u{85}\u{2028}"), "x");
        assert_eq!(strip("\u{200b}x\u{feff}"), "\u{200b}x\u{feff}");
    }

    #[test]
    fn word_characters_are_pythons() {
        // L*, N* and '_' are \w; Mn, Pc other than '_', ZWJ are not
        for c in ['a', 'é', '²', '½', 'Ⅷ', '〇', '٣', '_', '東'] {
            assert!(is_word(c), "{c:?}");
        }
        for c in ['\u{301}', '‿', '\u{200d}', '-', ' '] {
            assert!(!is_word(c), "{c:?}");
        }
        assert!(is_punctuation('_') && is_punctuation('‐') && is_punctuation('、'));
        assert!(!is_punctuation('$') && !is_punctuation('+') && !is_punctuation('€'));
    }

    #[test]
    fn escape_is_python_re_escape() {
        assert_eq!(re_escape("c++"), "c\\+\\+");
        assert_eq!(re_escape("u.s. a-b"), "u\\.s\\.\\ a\\-b");
        assert_eq!(re_escape("don't é_"), "don't\\ é_");
    }
}
