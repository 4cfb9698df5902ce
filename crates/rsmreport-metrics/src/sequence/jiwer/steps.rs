//! jiwer 4.0.0's transforms (`jiwer/transforms.py`), each on one string
//! (`process_string`, what `transform("...")` does) and on a list
//! (`process_list`, what `process_words` does: it wraps even a single
//! string in a list). Element-wise except `RemoveEmptyStrings` (drops
//! the items whose `strip()` is empty, keeps the others unstripped) and
//! `ReduceToSingleSentence` (drops `""` items, joins the rest). Pure
//! functions.

use super::pyre::{PyRegex, ReError, Template};
use super::pystr;

/// One `re.sub(pattern, template, s)` of `SubstituteWords`,
/// `SubstituteRegexes` or `RemoveSpecificWords`.
#[derive(Debug, Clone)]
pub struct Substitution {
    /// The key as written in the configuration (word or pattern).
    pub key: String,
    /// The replacement as written.
    pub replacement: String,
    matcher: Matcher,
    template: Template,
}

/// Equal configurations: the same key, replacement and kind of matcher
/// (a compiled pattern is determined by them).
impl PartialEq for Substitution {
    fn eq(&self, other: &Substitution) -> bool {
        let word = |m: &Matcher| matches!(m, Matcher::Word(_));
        self.key == other.key
            && self.replacement == other.replacement
            && word(&self.matcher) == word(&other.matcher)
    }
}

/// How a substitution finds its matches.
#[derive(Debug, Clone)]
enum Matcher {
    /// `\b` + `re.escape(word)` + `\b` for a non-empty word: the word's
    /// occurrences, leftmost first, kept where both ends are boundaries of
    /// Python's `\w` (what the regex matches, without compiling one).
    Word(String),
    /// A compiled pattern.
    Regex(Box<PyRegex>),
}

impl Substitution {
    /// `re.sub(pattern, replacement, s)`.
    pub fn regex(pattern: &str, replacement: &str) -> Result<Substitution, SubstitutionError> {
        let regex = PyRegex::new(pattern).map_err(SubstitutionError::Pattern)?;
        let template = Template::parse(replacement, &regex).map_err(SubstitutionError::Template)?;
        Ok(Substitution {
            key: pattern.to_string(),
            replacement: replacement.to_string(),
            matcher: Matcher::Regex(Box::new(regex)),
            template,
        })
    }

    /// `SubstituteWords`' entry: `re.sub(r"\b" + re.escape(word) + r"\b", to, s)`.
    pub fn word(word: &str, to: &str) -> Result<Substitution, SubstitutionError> {
        if word.is_empty() {
            let mut s = Substitution::regex(r"\b\b", to)?;
            s.key = String::new();
            return Ok(s);
        }
        // the pattern has no group but the whole match (\g<0>)
        let template = Template::parse_for(to, 0, &[]).map_err(SubstitutionError::Template)?;
        Ok(Substitution {
            key: word.to_string(),
            replacement: to.to_string(),
            matcher: Matcher::Word(word.to_string()),
            template,
        })
    }

    /// `RemoveSpecificWords`' entry: the word replaced by one space.
    pub fn removal(word: &str) -> Result<Substitution, SubstitutionError> {
        let mut s = Substitution::word(word, " ")?;
        s.template = Template::literal(" ");
        Ok(s)
    }

    /// Applies the substitution to `s`.
    pub fn apply(&self, s: &str) -> Result<String, ReError> {
        match &self.matcher {
            Matcher::Regex(regex) => regex.sub(&self.template, s),
            Matcher::Word(word) => Ok(sub_word(word, &self.template, s)),
        }
    }
}

/// Python's `\b` at byte `i` of `s`: exactly one of the characters around
/// it is a word character.
fn is_boundary(s: &str, i: usize) -> bool {
    let before = s[..i].chars().next_back().is_some_and(pystr::is_word);
    let after = s[i..].chars().next().is_some_and(pystr::is_word);
    before != after
}

/// `re.sub(r"\b" + re.escape(word) + r"\b", template, s)` for a non-empty
/// word: candidates in order of their start, the first whose ends are both
/// boundaries taken, the search going on after it.
fn sub_word(word: &str, template: &Template, s: &str) -> String {
    let mut out = String::new();
    let (mut copied, mut from) = (0, 0);
    while let Some(off) = s[from..].find(word) {
        let (i, j) = (from + off, from + off + word.len());
        if is_boundary(s, i) && is_boundary(s, j) {
            out.push_str(&s[copied..i]);
            template.expand_with(|g| (g == 0).then(|| &s[i..j]), &mut out);
            copied = j;
            from = j;
        } else {
            from = i + s[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    if copied == 0 {
        return s.to_string();
    }
    out.push_str(&s[copied..]);
    out
}

/// Why a substitution does not compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubstitutionError {
    /// The pattern (Python's message).
    Pattern(ReError),
    /// The replacement template (Python's message).
    Template(ReError),
}

/// A jiwer transform before the final reduction.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// `ToLowerCase`: `s.lower()`.
    ToLowerCase,
    /// `ToUpperCase`: `s.upper()`.
    ToUpperCase,
    /// `RemovePunctuation`: every code point of category P* removed.
    RemovePunctuation,
    /// `RemoveMultipleSpaces`: `re.sub(r"\s\s+", " ", s)`.
    RemoveMultipleSpaces,
    /// `Strip`: `s.strip()`.
    Strip,
    /// `RemoveWhiteSpace(replace_by_space)`: each of `string.whitespace`
    /// (space, `\t \n \r \x0b \x0c`) deleted or made a space.
    RemoveWhiteSpace {
        /// Replace by a space instead of deleting.
        replace_by_space: bool,
    },
    /// `RemoveKaldiNonWords`: `re.sub(r"[<\[][^>\]]*[>\]]", "", s)`.
    RemoveKaldiNonWords,
    /// `ExpandCommonEnglishContractions`: its eleven substitutions.
    ExpandCommonEnglishContractions,
    /// `RemoveSpecificWords(words)`: each word, in order, by a space.
    RemoveSpecificWords(Vec<Substitution>),
    /// `SubstituteWords(map)`: whole words, in the map's order.
    SubstituteWords(Vec<Substitution>),
    /// `SubstituteRegexes(map)`: patterns, in the map's order.
    SubstituteRegexes(Vec<Substitution>),
    /// `RemoveEmptyStrings`: list: blank items dropped; string: `strip()`.
    RemoveEmptyStrings,
    /// `ReduceToSingleSentence(word_delimiter)`: list: `""` items dropped,
    /// the rest joined (`[]` when none is left); string: unchanged.
    ReduceToSingleSentence {
        /// The joining delimiter.
        delimiter: String,
    },
}

/// The contractions of `ExpandCommonEnglishContractions`, in its order
/// (literal patterns: `re.sub` is `str.replace` here).
const CONTRACTIONS: [(&str, &str); 11] = [
    ("won't", "will not"),
    ("can't", "can not"),
    ("let's", "let us"),
    ("n't", " not"),
    ("'re", " are"),
    ("'s", " is"),
    ("'d", " would"),
    ("'ll", " will"),
    ("'t", " not"),
    ("'ve", " have"),
    ("'m", " am"),
];

impl Step {
    /// The step's name in the configuration.
    pub fn name(&self) -> &'static str {
        match self {
            Step::ToLowerCase => "to_lower_case",
            Step::ToUpperCase => "to_upper_case",
            Step::RemovePunctuation => "remove_punctuation",
            Step::RemoveMultipleSpaces => "remove_multiple_spaces",
            Step::Strip => "strip",
            Step::RemoveWhiteSpace { .. } => "remove_white_space",
            Step::RemoveKaldiNonWords => "remove_kaldi_non_words",
            Step::ExpandCommonEnglishContractions => "expand_common_english_contractions",
            Step::RemoveSpecificWords(_) => "remove_specific_words",
            Step::SubstituteWords(_) => "substitute_words",
            Step::SubstituteRegexes(_) => "substitute_regexes",
            Step::RemoveEmptyStrings => "remove_empty_strings",
            Step::ReduceToSingleSentence { .. } => "reduce_to_single_sentence",
        }
    }

    /// Whether the step treats a list otherwise than item by item (it can
    /// change the number of sentences).
    pub fn is_list_aware(&self) -> bool {
        matches!(
            self,
            Step::RemoveEmptyStrings | Step::ReduceToSingleSentence { .. }
        )
    }

    /// The step on one string (jiwer's `process_string`).
    pub fn apply_str(&self, s: &str) -> Result<String, ReError> {
        Ok(match self {
            Step::ToLowerCase => pystr::lower(s),
            Step::ToUpperCase => pystr::upper(s),
            Step::RemovePunctuation => s.chars().filter(|&c| !pystr::is_punctuation(c)).collect(),
            Step::RemoveMultipleSpaces => remove_multiple_spaces(s),
            Step::Strip | Step::RemoveEmptyStrings => pystr::strip(s).to_string(),
            Step::RemoveWhiteSpace { replace_by_space } => remove_white_space(s, *replace_by_space),
            Step::RemoveKaldiNonWords => remove_kaldi_non_words(s),
            Step::ExpandCommonEnglishContractions => {
                let mut out = s.to_string();
                for (from, to) in CONTRACTIONS {
                    out = out.replace(from, to);
                }
                out
            }
            Step::RemoveSpecificWords(subs)
            | Step::SubstituteWords(subs)
            | Step::SubstituteRegexes(subs) => {
                let mut out = s.to_string();
                for sub in subs {
                    out = sub.apply(&out)?;
                }
                out
            }
            Step::ReduceToSingleSentence { .. } => s.to_string(),
        })
    }

    /// The step on a list (jiwer's `process_list`).
    pub fn apply_list(&self, items: Vec<String>) -> Result<Vec<String>, ReError> {
        match self {
            Step::RemoveEmptyStrings => Ok(items
                .into_iter()
                .filter(|s| !pystr::strip(s).is_empty())
                .collect()),
            Step::ReduceToSingleSentence { delimiter } => {
                let kept: Vec<&str> = items
                    .iter()
                    .map(String::as_str)
                    .filter(|s| !s.is_empty())
                    .collect();
                Ok(if kept.is_empty() {
                    Vec::new()
                } else {
                    vec![kept.join(delimiter)]
                })
            }
            _ => items.iter().map(|s| self.apply_str(s)).collect(),
        }
    }
}

/// `re.sub(r"\s\s+", " ", s)` with Python's `\s`: each run of two or more
/// white space characters becomes one space; a single one stays.
pub fn remove_multiple_spaces(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut run: Option<(usize, usize, char)> = None; // (start byte, count, first char)
    let flush = |out: &mut String, run: &mut Option<(usize, usize, char)>| {
        if let Some((_, n, c)) = run.take() {
            out.push(if n >= 2 { ' ' } else { c });
        }
    };
    for (i, c) in s.char_indices() {
        if pystr::is_space(c) {
            match &mut run {
                Some((_, n, _)) => *n += 1,
                None => run = Some((i, 1, c)),
            }
            continue;
        }
        flush(&mut out, &mut run);
        out.push(c);
    }
    flush(&mut out, &mut run);
    out
}

/// `RemoveWhiteSpace`: space, `\t \n \r \x0b \x0c` deleted or made spaces.
pub fn remove_white_space(s: &str, replace_by_space: bool) -> String {
    let ws = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{b}' | '\u{c}');
    if replace_by_space {
        s.chars().map(|c| if ws(c) { ' ' } else { c }).collect()
    } else {
        s.chars().filter(|&c| !ws(c)).collect()
    }
}

/// `re.sub(r"[<\[][^>\]]*[>\]]", "", s)`: from each `<` or `[` to the next
/// `>` or `]` (brackets need not pair), leftmost first.
pub fn remove_kaldi_non_words(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(open) = rest.find(['<', '[']) {
        match rest[open + 1..].find(['>', ']']) {
            Some(close) => {
                out.push_str(&rest[..open]);
                rest = &rest[open + 1 + close + 1..];
            }
            None => break,
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subs(map: &[(&str, &str)]) -> Vec<Substitution> {
        map.iter()
            .map(|(k, v)| Substitution::word(k, v).unwrap())
            .collect()
    }

    /// jiwer's tests/test_transforms.py, string and list forms.
    #[test]
    fn jiwer_unit_tests() {
        let s = |step: &Step, x: &str| step.apply_str(x).unwrap();
        assert_eq!(
            s(&Step::RemoveMultipleSpaces, "this is   an   example "),
            "this is an example "
        );
        assert_eq!(s(&Step::RemoveMultipleSpaces, "  "), " ");
        assert_eq!(s(&Step::Strip, "  hello goodbye  "), "hello goodbye");
        assert_eq!(
            s(
                &Step::RemoveWhiteSpace {
                    replace_by_space: true
                },
                "hello\tworld\n\r"
            ),
            "hello world  "
        );
        assert_eq!(
            s(
                &Step::RemoveWhiteSpace {
                    replace_by_space: false
                },
                "hello\tworld\n\r"
            ),
            "helloworld"
        );
        assert_eq!(s(&Step::RemovePunctuation, "word༆’'"), "word");
        assert_eq!(
            s(&Step::RemoveKaldiNonWords, "you <unk> like [laugh]"),
            "you  like "
        );
        assert_eq!(
            s(
                &Step::ExpandCommonEnglishContractions,
                "she'll make sure you can't make it"
            ),
            "she will make sure you can not make it"
        );
        let words = ["yhe", "yeah", "a", "he", "the"];
        let rsw = Step::RemoveSpecificWords(
            words
                .iter()
                .map(|w| Substitution::removal(w).unwrap())
                .collect(),
        );
        assert_eq!(
            s(&rsw, "he asked a helpful question"),
            "  asked   helpful question"
        );
        assert_eq!(s(&rsw, "yhe"), " ");
        let sw = Step::SubstituteWords(subs(&[
            ("pretty", "awesome"),
            ("you", "i"),
            ("'re", " am"),
            ("foo", "bar"),
        ]));
        assert_eq!(s(&sw, "you're pretty"), "i am awesome");
        assert_eq!(s(&sw, "your book"), "your book");
        assert_eq!(s(&sw, "foobar"), "foobar");
        let sr = Step::SubstituteRegexes(vec![
            Substitution::regex("doom", "sacr").unwrap(),
            Substitution::regex(r"\b(\w+)ed\b", r"\1").unwrap(),
        ]);
        assert_eq!(
            s(&sr, "is the world doomed or loved?"),
            "is the world sacr or lov?"
        );
        assert_eq!(
            s(&sr, "edibles are allegedly cultivated"),
            "edibles are allegedly cultivat"
        );
    }

    #[test]
    fn list_aware_steps() {
        let v = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let res = Step::RemoveEmptyStrings;
        assert_eq!(
            res.apply_list(v(&["", " b ", "\u{1c}", "\u{200b}"]))
                .unwrap(),
            v(&[" b ", "\u{200b}"])
        );
        assert_eq!(res.apply_str(" a ").unwrap(), "a");
        let rss = Step::ReduceToSingleSentence {
            delimiter: "_".into(),
        };
        assert_eq!(
            rss.apply_list(v(&["one", "", "five_six"])).unwrap(),
            v(&["one_five_six"])
        );
        assert_eq!(rss.apply_list(v(&[""])).unwrap(), Vec::<String>::new());
        assert_eq!(rss.apply_str("a b").unwrap(), "a b");
    }

    #[test]
    fn hand_worked_edge_cases() {
        // a single non-space white space character stays inside a word
        assert_eq!(
            remove_multiple_spaces("a\u{1c}\u{1d}b \u{a0}c\u{200b}\u{200b}d\t e"),
            "a b c\u{200b}\u{200b}d e"
        );
        assert_eq!(
            remove_kaldi_non_words("<a]b> [x> <<x>> [] <> [a[b]c]"),
            "b>  >   c]"
        );
        assert_eq!(remove_kaldi_non_words("a <b c"), "a <b c");
        // Won't is not lower-case: only n't matches
        assert_eq!(
            Step::ExpandCommonEnglishContractions
                .apply_str("Won't 'tis")
                .unwrap(),
            "Wo not  notis"
        );
        // the word boundaries are Python's: U+0301 is no word character
        let rsw = Step::RemoveSpecificWords(vec![Substitution::removal("cafe").unwrap()]);
        assert_eq!(
            rsw.apply_str("cafe\u{301} cafe_bar cafe").unwrap(),
            " \u{301} cafe_bar  "
        );
        // c++ before a space: '+' then ' ' is no boundary
        let rsw = Step::RemoveSpecificWords(vec![Substitution::removal("c++").unwrap()]);
        assert_eq!(rsw.apply_str("c++ c++x").unwrap(), "c++  x");
    }
}

#[cfg(test)]
mod word_matcher_tests {
    use super::*;

    /// The word matcher equals the compiled `\b` + `re.escape(w)` + `\b`
    /// pattern on random strings over word, non-word and mark characters.
    #[test]
    fn word_matcher_equals_the_regex() {
        let alphabet: Vec<char> = "ab+. _\u{301}é²-".chars().collect();
        let words = [
            "a", "ab", "a+", "+", ".a", "b.", "a b", "é", "_a", "a\u{301}",
        ];
        let mut state = 7u64;
        let mut next = |m: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) % m as u64) as usize
        };
        // compiled once per word: a debug build compiles slowly
        let pairs: Vec<(Substitution, Substitution)> = words
            .iter()
            .map(|w| {
                let pattern = format!("\\b{}\\b", pystr::re_escape(w));
                (
                    Substitution::word(w, "<\\g<0>>").unwrap(),
                    Substitution::regex(&pattern, "<\\g<0>>").unwrap(),
                )
            })
            .collect();
        for _ in 0..3000 {
            let len = next(10);
            let s: String = (0..len).map(|_| alphabet[next(alphabet.len())]).collect();
            let (fast, slow) = &pairs[next(words.len())];
            let w = &fast.key;
            assert_eq!(
                fast.apply(&s).unwrap(),
                slow.apply(&s).unwrap(),
                "{w:?} in {s:?}"
            );
        }
    }
}
