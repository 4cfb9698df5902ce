//! Python 3.11's `re.sub(pattern, repl, string)` on `str` patterns:
//! the pattern syntax translated to fancy-regex ([`parse`]), replacement
//! templates (`\1`, `\g<1>`, `\g<name>`, `\n`, octal escapes; [`template`]),
//! and the substitution loop with Python 3.7+'s empty-match rule (an empty
//! match may follow a non-empty one directly; after an empty match the
//! next match at the same position must be non-empty). Pure functions.

mod class;
mod group;
pub mod parse;
pub mod template;

use std::sync::OnceLock;

use fancy_regex::{Regex, RegexBuilder, RegexInput};

pub use template::Template;

/// A pattern or template Python's `re` refuses (its message, as `str(e)`
/// of the `re.error`, or of the `IndexError` Python raises for an unknown
/// group name in a template), or a match the engine gave up on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReError {
    /// The message.
    pub message: String,
    /// Python's exception type: `re.error`, `IndexError`, or `runtime` for
    /// a backtracking limit hit while matching (Python has none).
    pub kind: &'static str,
}

impl ReError {
    /// An `re.error`.
    pub fn new(message: String) -> ReError {
        ReError {
            message,
            kind: "re.error",
        }
    }
}

impl std::fmt::Display for ReError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ReError {}

/// The backtracking budget of one match attempt.
const BACKTRACK_LIMIT: usize = 10_000_000;

/// Compiles a translated pattern, optionally refusing empty matches.
fn build(pattern: &str, not_empty: bool) -> Result<Regex, fancy_regex::Error> {
    RegexBuilder::new(pattern)
        .backtrack_limit(BACKTRACK_LIMIT)
        .find_not_empty(not_empty)
        .build()
}

/// A compiled Python pattern.
#[derive(Debug, Clone)]
pub struct PyRegex {
    source: String,
    /// The translated pattern.
    translated: String,
    regex: Regex,
    /// The same pattern refusing empty matches (`None` when it can only
    /// match empty): Python's retry after an empty match, built the first
    /// time one is needed.
    non_empty: OnceLock<Option<Regex>>,
    groups: usize,
    pub(crate) names: Vec<(String, usize)>,
}

impl PyRegex {
    /// Compiles a Python 3.11 pattern (`re.compile(pattern)`), with
    /// Python's error message when Python refuses it.
    pub fn new(pattern: &str) -> Result<PyRegex, ReError> {
        let t = parse::translate(pattern)?;
        let regex = build(&t.pattern, false)
            .map_err(|e| ReError::new(format!("the translated pattern does not compile: {e}")))?;
        Ok(PyRegex {
            source: pattern.to_string(),
            translated: t.pattern,
            regex,
            non_empty: OnceLock::new(),
            groups: t.groups,
            names: t.names,
        })
    }

    /// The fancy-regex pattern it was translated to.
    pub fn translated(&self) -> &str {
        &self.translated
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Capturing groups (`Pattern.groups`).
    pub fn groups(&self) -> usize {
        self.groups
    }

    /// The number of a named group (`Pattern.groupindex`).
    pub fn group_index(&self, name: &str) -> Option<usize> {
        self.names.iter().find(|(n, _)| n == name).map(|&(_, g)| g)
    }

    /// `re.sub(pattern, template, text)` (every match, `count = 0`).
    pub fn sub(&self, template: &Template, text: &str) -> Result<String, ReError> {
        let mut out = String::with_capacity(text.len());
        let (mut copied, mut pos, mut must_advance) = (0usize, 0usize, false);
        while pos <= text.len() {
            let Some(caps) = self.next_match(text, pos, must_advance)? else {
                break;
            };
            let m = caps.get(0).expect("group 0");
            out.push_str(&text[copied..m.start()]);
            template.expand_into(&caps, &mut out);
            copied = m.end();
            must_advance = m.start() == m.end();
            pos = m.end();
        }
        out.push_str(&text[copied..]);
        Ok(out)
    }

    /// The leftmost match at or after `pos`; with `must_advance` (the last
    /// match was empty and ended at `pos`) a match at `pos` must be
    /// non-empty (Python backtracks into the pattern for one), and one
    /// starting later may be empty.
    fn next_match<'t>(
        &self,
        text: &'t str,
        pos: usize,
        must_advance: bool,
    ) -> Result<Option<fancy_regex::Captures<'t, str>>, ReError> {
        let run = |r: &Regex, input: RegexInput<'t, str>| {
            r.captures_input(input).map_err(|e| ReError {
                message: format!("pattern {:?}: {e}", self.source),
                kind: "runtime",
            })
        };
        if !must_advance {
            return run(&self.regex, RegexInput::new(text).from_pos(pos));
        }
        let non_empty = self
            .non_empty
            .get_or_init(|| build(&self.translated, true).ok());
        if let Some(ne) = non_empty {
            let at = RegexInput::new(text).from_pos(pos).anchored(true);
            if let Some(c) = run(ne, at)? {
                return Ok(Some(c));
            }
        }
        let Some(c) = text[pos..].chars().next() else {
            return Ok(None);
        };
        run(
            &self.regex,
            RegexInput::new(text).from_pos(pos + c.len_utf8()),
        )
    }
}

#[cfg(test)]
mod tests;
