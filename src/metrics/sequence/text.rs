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
pub fn py_split(s: &str) -> impl Iterator<Item = &str> {
    s.split(is_py_space).filter(|w| !w.is_empty())
}

/// Python's `str.rstrip()`.
pub fn py_rstrip(s: &str) -> &str {
    s.trim_end_matches(is_py_space)
}

/// Python's `str.strip()`.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// Python's `str.lower()` (full case mapping, final sigma by context, as
/// Rust's `str::to_lowercase`).
pub fn py_lower(s: &str) -> String {
    s.to_lowercase()
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
