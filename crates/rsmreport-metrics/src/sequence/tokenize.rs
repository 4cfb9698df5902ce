//! BLEU's tokenizers as sacreBLEU 2.6.0 applies them (sequence.md 2.1):
//! `13a`, `intl`, `zh`, `char`, `none`, and the Tercom tokenizer of TER
//! (2.3). Each takes a segment already `rstrip()`-ed (and lowercased when
//! asked) and returns the tokenized line; callers split it with
//! [`super::text::py_split`]. Pure text functions; no I/O.

use std::sync::LazyLock;

use regex::Regex;

use super::text::{is_ascii_py_space, py_join_split, py_lower, py_strip};

/// The BLEU tokenizers sacreBLEU offers without extra packages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tokenizer {
    Tok13a,
    Intl,
    Zh,
    Char,
    None,
}

impl Tokenizer {
    /// The name used in the configuration and in BLEU's signature.
    pub fn name(self) -> &'static str {
        match self {
            Tokenizer::Tok13a => "13a",
            Tokenizer::Intl => "intl",
            Tokenizer::Zh => "zh",
            Tokenizer::Char => "char",
            Tokenizer::None => "none",
        }
    }

    /// The tokenizer called `name`, if any.
    pub fn from_name(name: &str) -> Option<Tokenizer> {
        Some(match name {
            "13a" => Tokenizer::Tok13a,
            "intl" => Tokenizer::Intl,
            "zh" => Tokenizer::Zh,
            "char" => Tokenizer::Char,
            "none" => Tokenizer::None,
            _ => return None,
        })
    }

    /// Every name, for error messages.
    pub const NAMES: [&'static str; 5] = ["13a", "intl", "zh", "char", "none"];

    /// Tokenizes one line.
    pub fn apply(self, line: &str) -> String {
        match self {
            Tokenizer::Tok13a => tokenize_13a(line),
            Tokenizer::Intl => tokenize_intl(line),
            Tokenizer::Zh => tokenize_zh(line),
            Tokenizer::Char => {
                let mut out = String::with_capacity(line.len() * 2);
                for (i, c) in line.chars().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    out.push(c);
                }
                out
            }
            Tokenizer::None => line.to_string(),
        }
    }
}

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("a valid built-in pattern")
}

/// sacreBLEU's `TokenizerRegexp` rules, in order: the definition that
/// [`tokenize_regexp`] applies by scanning (tests compare the two).
#[cfg(test)]
static REGEXP_RULES: LazyLock<[(Regex, &'static str); 4]> = LazyLock::new(|| {
    [
        (re(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), " ${1} "),
        (re(r"([^0-9])([\.,])"), "${1} ${2} "),
        (re(r"([\.,])([^0-9])"), " ${1} ${2}"),
        (re(r"([0-9])(-)"), "${1} ${2} "),
    ]
});

/// `TokenizerRegexp.__call__`: the four rules, then one space between
/// words. Each rule is a one- or two-character pattern replaced leftmost
/// first without overlap, so a scan applies it exactly as `re.sub` does
/// (`REGEXP_RULES` is the definition; a test compares). The scans go over
/// the UTF-8 bytes: every class of the rules is ASCII, a byte of a
/// multi-byte character falls in `[^0-9]` as its character does and in no
/// other class, so a match starts and ends where the character scan's
/// does and the spaces go between the same characters.
fn tokenize_regexp(line: &str) -> String {
    regexp_rules(&[line])
}

/// Bytes of the first rule's class `[\{-\~\[-\` -\&\(-\+\:-\@\/]`: ASCII
/// punctuation but `' , - .` and the space.
static SPACED: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] =
            matches!(b, b'{'..=b'~' | b'['..=b'`' | b' '..=b'&' | b'('..=b'+' | b':'..=b'@' | b'/');
        c += 1;
    }
    t
};

/// [`tokenize_regexp`] of the concatenated `pieces` (13a pads its line
/// with a space on each side without copying it first).
fn regexp_rules(pieces: &[&str]) -> String {
    let digit = |c: u8| c.is_ascii_digit();
    let dot = |c: u8| c == b'.' || c == b',';
    let len: usize = pieces.iter().map(|p| p.len()).sum();
    // the first rule: at most three bytes per byte, written in place
    let mut s = vec![0u8; 3 * len];
    let mut at = 0;
    for &c in pieces.iter().flat_map(|p| p.as_bytes()) {
        if SPACED[c as usize] {
            s[at..at + 3].copy_from_slice(&[b' ', c, b' ']);
            at += 3;
        } else {
            s[at] = c;
            at += 1;
        }
    }
    s.truncate(at);
    // a rule can only fire where its '.', ',' or '-' is: without one, the
    // pass would copy the line unchanged
    if memchr::memchr2(b'.', b',', &s).is_some() {
        s = pair_rule(&s, |a| !digit(a), dot, false);
        s = pair_rule(&s, dot, |b| !digit(b), true);
    }
    if memchr::memchr(b'-', &s).is_some() {
        s = pair_rule(&s, digit, |b| b == b'-', false);
    }
    if pieces.iter().all(|p| p.is_ascii()) {
        ascii_join_split(&s)
    } else {
        let s = String::from_utf8(s).expect("spaces are inserted between characters");
        py_join_split(&s)
    }
}

/// `re.sub("(A)(B)", template, s)` for one-character classes `A` and `B`
/// on the bytes of `s`: the template is `"{1} {2} "`, or `" {1} {2}"` when
/// `lead`.
fn pair_rule(
    s: &[u8],
    first: impl Fn(u8) -> bool,
    second: impl Fn(u8) -> bool,
    lead: bool,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() + s.len() / 4);
    let mut i = 0;
    while i < s.len() {
        let a = s[i];
        match s.get(i + 1) {
            Some(&b) if first(a) && second(b) => {
                if lead {
                    out.extend_from_slice(&[b' ', a, b' ', b]);
                } else {
                    out.extend_from_slice(&[a, b' ', b, b' ']);
                }
                i += 2;
            }
            _ => {
                out.push(a);
                i += 1;
            }
        }
    }
    out
}

/// [`py_join_split`] of ASCII text (Python's ASCII white space: `\t`-`\r`,
/// U+001C-U+001F and the space).
fn ascii_join_split(s: &[u8]) -> String {
    let mut out = Vec::with_capacity(s.len());
    let mut gap = false;
    for &c in s {
        if is_ascii_py_space(c) {
            gap = !out.is_empty();
        } else {
            if gap {
                out.push(b' ');
                gap = false;
            }
            out.push(c);
        }
    }
    String::from_utf8(out).expect("ASCII")
}

/// `Tokenizer13a`.
pub fn tokenize_13a(line: &str) -> String {
    use std::borrow::Cow;
    // each replacement needs a '<' or a line break to change anything
    let mut s = if memchr::memchr2(b'<', b'\n', line.as_bytes()).is_some() {
        Cow::Owned(
            line.replace("<skipped>", "")
                .replace("-\n", "")
                .replace('\n', " "),
        )
    } else {
        Cow::Borrowed(line)
    };
    if memchr::memchr(b'&', s.as_bytes()).is_some() {
        s = Cow::Owned(
            s.replace("&quot;", "\"")
                .replace("&amp;", "&")
                .replace("&lt;", "<")
                .replace("&gt;", ">"),
        );
    }
    regexp_rules(&[" ", &s, " "])
}

static INTL_RULES: LazyLock<[(Regex, &'static str); 3]> = LazyLock::new(|| {
    [
        (re(r"(\P{N})(\p{P})"), "${1} ${2} "),
        (re(r"(\p{P})(\P{N})"), " ${1} ${2}"),
        (re(r"(\p{S})"), " ${1} "),
    ]
});

/// `TokenizerV14International`.
pub fn tokenize_intl(line: &str) -> String {
    let mut s = line.to_string();
    for (pattern, replacement) in INTL_RULES.iter() {
        if let std::borrow::Cow::Owned(new) = pattern.replace_all(&s, *replacement) {
            s = new;
        }
    }
    py_join_split(&s)
}

/// sacreBLEU's `_is_chinese_char` as it behaves: its Extension B bounds are
/// two-character strings, so U+2001-U+2A6D counts and U+20000 does not.
pub fn is_zh_char(c: char) -> bool {
    const RANGES: [(u32, u32); 13] = [
        (0x2001, 0x2A6D),
        (0x2E80, 0x2FDF),
        (0x2FF0, 0x303F),
        (0x3100, 0x312F),
        (0x31A0, 0x31EF),
        (0x3200, 0x4DB5),
        (0x4E00, 0x9FBB),
        (0xF900, 0xFA2D),
        (0xFA30, 0xFA6A),
        (0xFA70, 0xFAD9),
        (0xFE10, 0xFE1F),
        (0xFE30, 0xFE4F),
        (0xFF00, 0xFFEF),
    ];
    let u = c as u32;
    RANGES.iter().any(|&(a, b)| a <= u && u <= b)
}

/// `TokenizerZh`.
pub fn tokenize_zh(line: &str) -> String {
    let stripped = py_strip(line);
    let mut s = String::with_capacity(stripped.len() * 2);
    for c in stripped.chars() {
        if is_zh_char(c) {
            s.push(' ');
            s.push(c);
            s.push(' ');
        } else {
            s.push(c);
        }
    }
    tokenize_regexp(&s)
}

/// Options of sacreBLEU's `TercomTokenizer`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TerOptions {
    pub normalized: bool,
    pub no_punct: bool,
    pub asian_support: bool,
    pub case_sensitive: bool,
}

struct TerRules {
    western: Vec<(Regex, &'static str)>,
    asian: Vec<(Regex, &'static str)>,
    space_runs: Regex,
    punct: Regex,
    asian_punct: Regex,
    full_width_punct: Regex,
}

const ASIAN_PUNCT: &str =
    r"([\x{3001}\x{3002}\x{3008}-\x{3011}\x{3014}-\x{301f}\x{ff61}-\x{ff65}\x{30fb}])";
const FULL_WIDTH_PUNCT: &str =
    r"([\x{ff0e}\x{ff0c}\x{ff1f}\x{ff1a}\x{ff1b}\x{ff01}\x{ff02}\x{ff08}\x{ff09}])";

static TER_RULES: LazyLock<TerRules> = LazyLock::new(|| TerRules {
    western: vec![
        (re(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), " ${1} "),
        (re(r"'s "), " 's "),
        (re(r"'s$"), " 's"),
        (re(r"([^0-9])([\.,])"), "${1} ${2} "),
        (re(r"([\.,])([^0-9])"), " ${1} ${2}"),
        (re(r"([0-9])(-)"), "${1} ${2} "),
    ],
    asian: vec![
        (re(r"([\x{4e00}-\x{9fff}\x{3400}-\x{4dbf}])"), " ${1} "),
        (re(r"([\x{31c0}-\x{31ef}\x{2e80}-\x{2eff}])"), " ${1} "),
        (
            re(r"([\x{3300}-\x{33ff}\x{f900}-\x{faff}\x{fe30}-\x{fe4f}])"),
            " ${1} ",
        ),
        (re(r"([\x{3200}-\x{3f22}])"), " ${1} "),
        (
            re(r"(^|^[\x{3040}-\x{309f}])([\x{3040}-\x{309f}]+)$"),
            "${1} ${2} ",
        ),
        (
            re(r"(^|^[\x{30a0}-\x{30ff}])([\x{30a0}-\x{30ff}]+)$"),
            "${1} ${2} ",
        ),
        (
            re(r"(^|^[\x{31f0}-\x{31ff}])([\x{31f0}-\x{31ff}]+)$"),
            "${1} ${2} ",
        ),
        (re(ASIAN_PUNCT), " ${1} "),
        (re(FULL_WIDTH_PUNCT), " ${1} "),
    ],
    space_runs: re(r"[\s\x{1c}-\x{1f}]+"),
    punct: re(r#"[\.,\?:;!"\(\)]"#),
    asian_punct: re(ASIAN_PUNCT),
    full_width_punct: re(FULL_WIDTH_PUNCT),
});

fn apply_rules(mut s: String, rules: &[(Regex, &'static str)]) -> String {
    for (pattern, replacement) in rules {
        if let std::borrow::Cow::Owned(new) = pattern.replace_all(&s, *replacement) {
            s = new;
        }
    }
    s
}

/// `TercomTokenizer.__call__` (the caller has applied `rstrip()`).
pub fn tokenize_ter(sent: &str, options: TerOptions) -> String {
    if sent.is_empty() {
        return String::new();
    }
    let mut s = if options.case_sensitive {
        sent.to_string()
    } else {
        py_lower(sent)
    };
    let rules = &*TER_RULES;
    if options.normalized {
        s = s
            .replace("\n-", "")
            .replace('\n', " ")
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">");
        s = apply_rules(format!(" {s} "), &rules.western);
        if options.asian_support {
            s = apply_rules(s, &rules.asian);
        }
        s = rules.space_runs.replace_all(&s, " ").into_owned();
        s = py_strip_spaces(&s).to_string();
    }
    if options.no_punct {
        s = rules.punct.replace_all(&s, "").into_owned();
        if options.asian_support {
            s = rules.asian_punct.replace_all(&s, "").into_owned();
            s = rules.full_width_punct.replace_all(&s, "").into_owned();
        }
    }
    s
}

/// After runs of white space became one space, `^\s+` and `\s+$` remove at
/// most one leading and one trailing space.
fn py_strip_spaces(s: &str) -> &str {
    let s = s.strip_prefix(' ').unwrap_or(s);
    s.strip_suffix(' ').unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tok13a_matches_sacrebleu() {
        // Values from sacreBLEU's own test_tokenizers / the 13a rules by hand.
        assert_eq!(
            tokenize_13a("The dog bit the man."),
            "The dog bit the man ."
        );
        assert_eq!(
            tokenize_13a("It wasn't surprising."),
            "It wasn't surprising ."
        );
        assert_eq!(
            tokenize_13a("1,000.50 costs $5-6."),
            "1,000.50 costs $ 5 - 6 ."
        );
        assert_eq!(tokenize_13a("A &amp; B &lt;x&gt;"), "A & B < x >");
        assert_eq!(tokenize_13a("a<skipped>b-\nc\nd"), "abc d");
        assert_eq!(tokenize_13a("e.g. U.S."), "e . g . U . S .");
    }

    /// The scanning 13a rules against sacreBLEU's regular expressions on
    /// random strings over the characters the rules treat specially.
    #[test]
    fn regexp_scan_matches_the_patterns() {
        let alphabet: Vec<char> =
            "a1.,-'& 9(@\u{e9}\u{4e00}\u{1c}\n$\t\u{b}\u{1f}\u{85}\u{a0}<{~`/"
                .chars()
                .collect();
        let mut state = 11u64;
        for _ in 0..5000 {
            let mut line = String::new();
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
            let len = (state >> 59) as usize;
            for _ in 0..len {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                line.push(alphabet[(state >> 33) as usize % alphabet.len()]);
            }
            let mut expected = line.clone();
            for (pattern, replacement) in REGEXP_RULES.iter() {
                expected = pattern.replace_all(&expected, *replacement).into_owned();
            }
            assert_eq!(tokenize_regexp(&line), py_join_split(&expected), "{line:?}");
        }
    }

    #[test]
    fn intl_and_zh_and_char() {
        assert_eq!(
            tokenize_intl("Hello, world! 2023."),
            "Hello , world ! 2023."
        );
        assert_eq!(tokenize_intl("5€ x"), "5 € x");
        assert_eq!(tokenize_zh("我爱你。"), "我 爱 你 。");
        // U+2014 falls inside sacreBLEU's accidental U+2001-U+2A6D range;
        // U+20000 does not.
        assert_eq!(
            tokenize_zh("a\u{2014}b\u{20000}c"),
            "a \u{2014} b\u{20000}c"
        );
        assert_eq!(Tokenizer::Char.apply("ab c"), "a b   c");
    }

    #[test]
    fn tercom_default_only_lowercases() {
        let o = TerOptions::default();
        assert_eq!(tokenize_ter("The Man.", o), "the man.");
        let n = TerOptions {
            normalized: true,
            no_punct: true,
            ..o
        };
        let words: Vec<String> =
            super::super::text::py_split(&tokenize_ter("The man's dog, 1,000.", n))
                .map(str::to_string)
                .collect();
        assert_eq!(words, ["the", "man", "'s", "dog", "1000"]);
    }
}
