//! Hand-worked `re.sub` cases (the Python output noted beside each).

use super::{PyRegex, Template};

fn sub(p: &str, r: &str, s: &str) -> String {
    let re = PyRegex::new(p).unwrap_or_else(|e| panic!("{p}: {e}"));
    re.sub(&Template::parse(r, &re).unwrap(), s).unwrap()
}

fn err(p: &str) -> String {
    PyRegex::new(p).unwrap_err().message
}

#[test]
fn empty_matches_follow_python_3_7() {
    // an empty match right after a non-empty one is replaced too
    assert_eq!(sub("x*", "-", "abxd"), "-a-b--d-");
    // after an empty match Python backtracks for a non-empty one there
    assert_eq!(sub("x*?", "-", "xx"), "-----");
    assert_eq!(sub("|a", "-", "a"), "---");
    assert_eq!(sub("a|", "-", "a"), "--");
}

#[test]
fn anchors_and_boundaries_are_pythons() {
    assert_eq!(sub("$", "Y", "ax\n"), "axY\nY");
    assert_eq!(sub(r"\Z", "Y", "ax\n"), "ax\nY");
    assert_eq!(sub("(?m)^", ">", "a\nb\n"), ">a\n>b\n>");
    assert_eq!(sub(r"\b", "|", "ab c"), "|ab| |c|");
    assert_eq!(sub(r"\B", "|", ""), "");
    assert_eq!(sub(r"\B", "|", " "), "| |");
    // U+0301 is no word character in Python: a boundary before it
    assert_eq!(
        sub(r"\bcafe\b", "C", "cafe\u{301} cafe_x"),
        "C\u{301} cafe_x"
    );
}

#[test]
fn classes_are_pythons() {
    assert_eq!(sub(r"\w+", "W", "x² e\u{301} ٣ ‿"), "W W\u{301} W ‿");
    assert_eq!(sub(r"\d", "D", "1²٣"), "D²D");
    assert_eq!(sub(r"\s", "_", "a\u{1c}b\u{200b}c"), "a_b\u{200b}c");
    assert_eq!(sub(r"[^\W\d]+", "L", "ab12c_d"), "L12L");
    assert_eq!(sub("(?i)i", "X", "İ ı I i"), "X X X X");
    assert_eq!(sub("(?ai)k", "X", "\u{212a} K k"), "\u{212a} X X");
    assert_eq!(sub("a{,2}", "X", "aaa"), "XXX");
    assert_eq!(sub("a{x}", "X", "a{x}"), "X");
}

#[test]
fn errors_are_pythons() {
    assert_eq!(
        err("(ab"),
        "missing ), unterminated subpattern at position 0"
    );
    assert_eq!(err("ab)"), "unbalanced parenthesis at position 2");
    assert_eq!(err("a**"), "multiple repeat at position 2");
    assert_eq!(err(r"(?<=a+)b"), "look-behind requires fixed-width pattern");
    assert_eq!(
        err("a(?i)b"),
        "global flags not at the start of the expression at position 1"
    );
    assert_eq!(err(r"(a)\2"), "invalid group reference 2 at position 4");
    // fixed-width alternatives are fine in a look-behind
    assert_eq!(sub("(?<=a|b)c", "_", "acbc"), "a_b_");
}
