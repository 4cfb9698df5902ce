//! Python 3.11 `re` pattern syntax (`re._parser`) translated to a
//! fancy-regex pattern with the same matches. The parser follows
//! `_parser._parse_sub` / `_parse` / `_escape` / `_class_escape` /
//! `_parse_flags` step by step, with their error messages and positions;
//! every character class, `\w \d \s`, `\b \B`, `.`, anchor and
//! case-insensitive literal is emitted in explicit form (code-point classes,
//! look-around), so the result does not depend on fancy-regex's own Unicode
//! tables or flags. Capture groups keep Python's numbers (names become
//! numbers). Pure functions.

use crate::sequence::jiwer::charset::{
    category, category_class, ignorecase_set, Category, CharSet,
};

use super::ReError;

/// The character that opens a repeat's bounds (`{m,n}`); a `{` that opens
/// no bounds is a literal.
const OPEN_BRACE: char = '{';
/// Python's `MAXREPEAT` (repeat counts must be below it).
pub(super) const MAXREPEAT: u64 = 4_294_967_295;
/// Python's `MAXGROUPS` on 64-bit builds.
pub(super) const MAXGROUPS: usize = 1_073_741_823;
/// Python's `MAXWIDTH` (`1 << 64`), saturated: an unbounded width.
pub(super) const INF: u128 = 1 << 64;

/// The translation of one pattern.
#[derive(Debug, Clone)]
pub struct Translation {
    /// The fancy-regex pattern.
    pub pattern: String,
    /// Capturing groups (Python's `Pattern.groups`).
    pub groups: usize,
    /// Named groups and their numbers (`Pattern.groupindex`).
    pub names: Vec<(String, usize)>,
}

/// Python's matching flags that change the translation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Flags {
    pub(super) ignorecase: bool,
    pub(super) multiline: bool,
    pub(super) dotall: bool,
    pub(super) verbose: bool,
    pub(super) ascii: bool,
}

/// What an item is, for the quantifier rules ("nothing to repeat",
/// "multiple repeat").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// `^ $ \A \Z \b \B`: not repeatable.
    At,
    /// A repeat: not repeatable again.
    Repeat,
    /// Anything else.
    Other,
}

/// One translated item with Python's width (`SubPattern.getwidth`).
#[derive(Debug, Clone)]
pub(super) struct Item {
    pub(super) out: String,
    pub(super) min: u128,
    pub(super) max: u128,
    pub(super) kind: Kind,
}

impl Item {
    pub(super) fn unit(out: String) -> Item {
        Item {
            out,
            min: 1,
            max: 1,
            kind: Kind::Other,
        }
    }

    pub(super) fn at(out: String) -> Item {
        Item {
            out,
            min: 0,
            max: 0,
            kind: Kind::At,
        }
    }

    pub(super) fn zero(out: String) -> Item {
        Item {
            out,
            min: 0,
            max: 0,
            kind: Kind::Other,
        }
    }
}

/// A sequence of items (one branch) as one item.
pub(super) fn concat(items: Vec<Item>) -> Item {
    let mut out = String::new();
    let (mut min, mut max) = (0u128, 0u128);
    for it in items {
        out.push_str(&it.out);
        min = (min + it.min).min(INF);
        max = (max + it.max).min(INF);
    }
    Item {
        out,
        min,
        max,
        kind: Kind::Other,
    }
}

/// Python's `SubPattern.getwidth` of a repeat.
fn repeat_width(item: &Item, lo: u64, hi: u64) -> (u128, u128) {
    let min = (item.min * u128::from(lo)).min(INF);
    let max = if hi == MAXREPEAT && item.max > 0 {
        INF
    } else {
        (item.max * u128::from(hi)).min(INF)
    };
    (min, max)
}

/// The parser state (`re._parser.State` and `Tokenizer`).
pub(super) struct Parser {
    pub(super) s: Vec<char>,
    pub(super) pos: usize,
    pub(super) flags: Flags,
    /// Width of each group (index = number - 1); `None` while open.
    pub(super) widths: Vec<Option<(u128, u128)>>,
    pub(super) names: Vec<(String, usize)>,
    /// `State.lookbehindgroups`: groups opened before the current
    /// look-behind.
    pub(super) lookbehind_groups: Option<usize>,
    /// Conditional references to check at the end (group, position).
    pub(super) condrefs: Vec<(usize, usize)>,
    /// A look-behind that is not fixed-width (a compile-time error in
    /// Python, reported after the parse).
    pub(super) not_fixed_width: bool,
}

/// Translates a Python 3.11 pattern (a `str` pattern, no flags argument).
pub fn translate(pattern: &str) -> Result<Translation, ReError> {
    let mut p = Parser {
        s: pattern.chars().collect(),
        pos: 0,
        flags: Flags::default(),
        widths: Vec::new(),
        names: Vec::new(),
        lookbehind_groups: None,
        condrefs: Vec::new(),
        not_fixed_width: false,
    };
    let item = p.parse_sub(0)?;
    if p.pos < p.s.len() {
        return Err(p.error("unbalanced parenthesis", 0));
    }
    for &(g, at) in &p.condrefs {
        if g > p.widths.len() {
            return Err(ReError::new(format!(
                "invalid group reference {g} at position {at}"
            )));
        }
    }
    if p.not_fixed_width {
        return Err(ReError::new(
            "look-behind requires fixed-width pattern".into(),
        ));
    }
    Ok(Translation {
        pattern: item.out,
        groups: p.widths.len(),
        names: p.names,
    })
}

impl Parser {
    /// Python's `source.error(msg, offset)`: the position is the index of
    /// the next token less `offset`.
    pub(super) fn error(&self, msg: &str, offset: usize) -> ReError {
        ReError::new(format!(
            "{msg} at position {}",
            self.pos.saturating_sub(offset)
        ))
    }

    pub(super) fn peek(&self) -> Option<char> {
        self.s.get(self.pos).copied()
    }

    /// Consumes `c` when it is next (`Tokenizer.match`; an escape token is
    /// never a single character).
    pub(super) fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// The next token (`Tokenizer.get`): one character, or a backslash and
    /// the character after it.
    pub(super) fn token(&mut self) -> Result<Option<String>, ReError> {
        let Some(c) = self.peek() else {
            return Ok(None);
        };
        if c == '\\' {
            let Some(&d) = self.s.get(self.pos + 1) else {
                return Err(ReError::new(format!(
                    "bad escape (end of pattern) at position {}",
                    self.s.len() - 1
                )));
            };
            self.pos += 2;
            return Ok(Some(format!("\\{d}")));
        }
        self.pos += 1;
        Ok(Some(c.to_string()))
    }

    /// Up to `n` characters of `set` (`Tokenizer.getwhile`).
    pub(super) fn take_while(&mut self, n: usize, set: impl Fn(char) -> bool) -> String {
        let mut out = String::new();
        while out.chars().count() < n {
            match self.peek() {
                Some(c) if set(c) => {
                    out.push(c);
                    self.pos += 1;
                }
                _ => break,
            }
        }
        out
    }

    /// `Tokenizer.getuntil`: the tokens up to `end` (consumed).
    pub(super) fn until(&mut self, end: char, name: &str) -> Result<String, ReError> {
        let mut out = String::new();
        loop {
            let tok = self.token()?;
            match tok {
                None if out.is_empty() => return Err(self.error(&format!("missing {name}"), 0)),
                None => {
                    let n = out.chars().count();
                    return Err(self.error(&format!("missing {end}, unterminated name"), n));
                }
                Some(t) if t.len() == end.len_utf8() && t.starts_with(end) => {
                    if out.is_empty() {
                        return Err(self.error(&format!("missing {name}"), 1));
                    }
                    return Ok(out);
                }
                Some(t) => out.push_str(&t),
            }
        }
    }

    /// `_parse_sub`: alternatives separated by `|`.
    pub(super) fn parse_sub(&mut self, nested: usize) -> Result<Item, ReError> {
        let mut branches = Vec::new();
        loop {
            let first = nested == 0 && branches.is_empty();
            branches.push(self.parse_seq(nested + 1, first)?);
            if !self.eat('|') {
                break;
            }
        }
        if branches.len() == 1 {
            return Ok(branches.pop().expect("one branch"));
        }
        let min = branches.iter().map(|b| b.min).min().unwrap_or(0);
        let max = branches.iter().map(|b| b.max).max().unwrap_or(0);
        let outs: Vec<&str> = branches.iter().map(|b| b.out.as_str()).collect();
        Ok(Item {
            out: format!("(?:{})", outs.join("|")),
            min,
            max,
            kind: Kind::Other,
        })
    }

    /// `_parse`: a sequence of items up to `|`, `)` or the end.
    pub(super) fn parse_seq(&mut self, nested: usize, first: bool) -> Result<Item, ReError> {
        let mut items: Vec<Item> = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let start = self.pos;
            let tok = self.token()?.expect("a token");
            if self.flags.verbose && self.skip_verbose(&tok) {
                continue;
            }
            let first_item = first && items.is_empty();
            self.parse_token(&tok, start, nested, first_item, &mut items)?;
        }
        Ok(concat(items))
    }

    /// In verbose mode, whitespace is skipped and `#` comments out the rest
    /// of the line; true when `tok` was such a token.
    fn skip_verbose(&mut self, tok: &str) -> bool {
        if tok.len() == 1 && " \t\n\r\u{b}\u{c}".contains(tok) {
            return true;
        }
        if tok != "#" {
            return false;
        }
        while let Some(c) = self.peek() {
            self.pos += 1;
            if c == '\n' {
                break;
            }
        }
        true
    }

    /// One token of `_parse` (starting at `start`): an escape, a class, a
    /// repeat of the last item, `.`, a group, an anchor or a literal.
    fn parse_token(
        &mut self,
        tok: &str,
        start: usize,
        nested: usize,
        first_item: bool,
        items: &mut Vec<Item>,
    ) -> Result<(), ReError> {
        if let Some(rest) = tok.strip_prefix('\\') {
            let c = rest.chars().next().expect("escaped character");
            items.push(self.escape(c)?);
            return Ok(());
        }
        let c = tok.chars().next().expect("a character");
        match c {
            '[' => items.push(self.parse_class(start)?),
            '*' | '+' | '?' | OPEN_BRACE => self.repeat(c, items)?,
            '.' => items.push(Item::unit(if self.flags.dotall {
                "(?s:.)".to_string()
            } else {
                "[^\\n]".to_string()
            })),
            '(' => {
                if let Some(item) = self.parse_group(start, nested, first_item)? {
                    items.push(item);
                }
            }
            '^' => items.push(Item::at(if self.flags.multiline {
                "(?m:^)".to_string()
            } else {
                "\\A".to_string()
            })),
            '$' => items.push(Item::at(if self.flags.multiline {
                "(?m:$)".to_string()
            } else {
                "(?=\\n?\\z)".to_string()
            })),
            _ => items.push(self.literal(c as u32)),
        }
        Ok(())
    }

    /// A literal code point, case-insensitive as Python compiles it.
    /// Surrogates (which a Rust string cannot hold) are refused.
    pub(super) fn literal(&self, c: u32) -> Item {
        if self.flags.ignorecase {
            let set = ignorecase_set(&CharSet::single(c), &CharSet::default(), self.flags.ascii);
            if set.ranges() != [(c, c)] {
                return Item::unit(set.to_class());
            }
        }
        Item::unit(literal_out(c))
    }

    /// `_escape`: an escape outside a class.
    fn escape(&mut self, c: char) -> Result<Item, ReError> {
        let ascii = self.flags.ascii;
        let cat = |cat, neg| Item::unit(category_class(cat, ascii, neg).to_string());
        Ok(match c {
            'A' => Item::at("\\A".into()),
            'Z' => Item::at("\\z".into()),
            'b' => Item::at(boundary(ascii, false)),
            'B' => Item::at(boundary(ascii, true)),
            'd' => cat(Category::Digit, false),
            'D' => cat(Category::Digit, true),
            's' => cat(Category::Space, false),
            'S' => cat(Category::Space, true),
            'w' => cat(Category::Word, false),
            'W' => cat(Category::Word, true),
            '1'..='9' => return self.group_ref_or_octal(c),
            _ => {
                let code = self.code_escape(c, false)?;
                self.literal(code)
            }
        })
    }

    /// The escapes that stand for one code point, outside or (`in_class`)
    /// inside a class: `\a \f \n \r \t \v \\`, `\xhh`, `\uhhhh`,
    /// `\Uhhhhhhhh`, octal, any non-letter; `\b` is a backspace in a class.
    pub(super) fn code_escape(&mut self, c: char, in_class: bool) -> Result<u32, ReError> {
        let hex = |p: &mut Parser, n: usize, tag: char| -> Result<u32, ReError> {
            let digits = p.take_while(n, |d| d.is_ascii_hexdigit());
            if digits.len() != n {
                let esc = format!("\\{tag}{digits}");
                return Err(p.error(&format!("incomplete escape {esc}"), esc.chars().count()));
            }
            Ok(u32::from_str_radix(&digits, 16).expect("hex digits"))
        };
        match c {
            'a' => Ok(7),
            'b' if in_class => Ok(8),
            'f' => Ok(12),
            'n' => Ok(10),
            'r' => Ok(13),
            't' => Ok(9),
            'v' => Ok(11),
            'x' => hex(self, 2, 'x'),
            'u' => hex(self, 4, 'u'),
            'U' => {
                let at = self.pos;
                let v = hex(self, 8, 'U')?;
                if v > 0x10FFFF {
                    let digits: String = self.s[at..self.pos].iter().collect();
                    return Err(self.error(&format!("bad escape \\U{digits}"), 10));
                }
                Ok(v)
            }
            'N' => Err(self.error(
                "named Unicode escapes (\\N{...}) are not supported by this translation",
                2,
            )),
            '0'..='7' => self.octal(c, in_class),
            '8' | '9' => Err(self.error(&format!("bad escape \\{c}"), 2)),
            c if c.is_ascii_alphabetic() => Err(self.error(&format!("bad escape \\{c}"), 2)),
            c => Ok(c as u32),
        }
    }

    /// An octal escape: `\0` plus up to two octal digits outside a class;
    /// up to three digits in a class (checked against 0o377).
    fn octal(&mut self, c: char, in_class: bool) -> Result<u32, ReError> {
        let more = if in_class || c == '0' { 2 } else { 0 };
        let digits = format!("{c}{}", self.take_while(more, |d| ('0'..='7').contains(&d)));
        let v = u32::from_str_radix(&digits, 8).expect("octal digits");
        if v > 0o377 {
            let esc = format!("\\{digits}");
            return Err(self.error(
                &format!("octal escape value {esc} outside of range 0-0o377"),
                esc.chars().count(),
            ));
        }
        Ok(v)
    }

    /// `\1`..`\99`: a group reference, or a three-digit octal escape.
    fn group_ref_or_octal(&mut self, c: char) -> Result<Item, ReError> {
        let mut digits = c.to_string();
        if let Some(d) = self.peek().filter(char::is_ascii_digit) {
            self.pos += 1;
            digits.push(d);
            let third = self.peek().filter(|x| ('0'..='7').contains(x));
            if let Some(t) = third.filter(|_| c <= '7' && d <= '7') {
                self.pos += 1;
                digits.push(t);
                let v = u32::from_str_radix(&digits, 8).expect("octal digits");
                if v > 0o377 {
                    return Err(self.error(
                        &format!("octal escape value \\{digits} outside of range 0-0o377"),
                        4,
                    ));
                }
                return Ok(self.literal(v));
            }
        }
        let group: usize = digits.parse().expect("digits");
        if group <= self.widths.len() {
            let Some(width) = self.widths[group - 1] else {
                return Err(self.error("cannot refer to an open group", digits.len() + 1));
            };
            self.check_lookbehind_group(group)?;
            return Ok(self.backref(group, width));
        }
        Err(self.error(&format!("invalid group reference {group}"), digits.len()))
    }

    /// A reference to a closed group.
    fn backref(&self, group: usize, (min, max): (u128, u128)) -> Item {
        let out = if self.flags.ignorecase {
            format!("(?i:\\{group})")
        } else {
            format!("(?:\\{group})")
        };
        Item {
            out,
            min,
            max,
            kind: Kind::Other,
        }
    }

    /// `State.checklookbehindgroup`.
    pub(super) fn check_lookbehind_group(&self, group: usize) -> Result<(), ReError> {
        if let Some(first) = self.lookbehind_groups {
            if group > first {
                return Err(self.error(
                    "cannot refer to group defined in the same lookbehind subpattern",
                    0,
                ));
            }
        }
        Ok(())
    }

    /// A repeat of the last item (`*`, `+`, `?`, `{m,n}`), greedy, lazy
    /// (`?`) or possessive (`+`); a `{` that is no repeat is a literal.
    fn repeat(&mut self, c: char, items: &mut Vec<Item>) -> Result<(), ReError> {
        let here = self.pos;
        let (lo, hi) = match c {
            '?' => (0, 1),
            '*' => (0, MAXREPEAT),
            '+' => (1, MAXREPEAT),
            _ => match self.braces(here)? {
                Some(bounds) => bounds,
                None => {
                    items.push(self.literal(OPEN_BRACE as u32));
                    return Ok(());
                }
            },
        };
        let tok_len = self.pos - here + 1;
        let Some(item) = items.pop().filter(|it| it.kind != Kind::At) else {
            return Err(self.error("nothing to repeat", tok_len));
        };
        if item.kind == Kind::Repeat {
            return Err(self.error("multiple repeat", tok_len));
        }
        let (min, max) = repeat_width(&item, lo, hi);
        if item.max == 0 {
            // a repeated zero-width item (look-around, anchor in a group):
            // Python repeats it in place; fancy-regex refuses the syntax
            items.push(zero_width_repeat(item, lo, self.eat('?'), self.eat('+')));
            return Ok(());
        }
        let q = match (lo, hi) {
            (0, 1) => "?".to_string(),
            (0, MAXREPEAT) => "*".to_string(),
            (1, MAXREPEAT) => "+".to_string(),
            (lo, MAXREPEAT) => format!("{{{lo},}}"),
            (lo, hi) if lo == hi => format!("{{{lo}}}"),
            (lo, hi) => format!("{{{lo},{hi}}}"),
        };
        let out = if self.eat('?') {
            format!("(?:{}){q}?", item.out)
        } else if self.eat('+') {
            format!("(?>(?:{}){q})", item.out)
        } else {
            format!("(?:{}){q}", item.out)
        };
        items.push(Item {
            out,
            min,
            max,
            kind: Kind::Repeat,
        });
        Ok(())
    }

    /// The bounds of `{m}`, `{m,}`, `{,n}`, `{m,n}` after a `{` (`None`, with
    /// nothing consumed, when the braces are no repeat).
    fn braces(&mut self, here: usize) -> Result<Option<(u64, u64)>, ReError> {
        if self.peek() == Some('}') {
            return Ok(None);
        }
        let lo = self.take_while(usize::MAX, |c| c.is_ascii_digit());
        let hi = if self.eat(',') {
            self.take_while(usize::MAX, |c| c.is_ascii_digit())
        } else {
            lo.clone()
        };
        if !self.eat('}') {
            self.pos = here;
            return Ok(None);
        }
        let parse = |s: &str, dflt: u64| -> Result<u64, ReError> {
            if s.is_empty() {
                return Ok(dflt);
            }
            match s.parse::<u64>() {
                Ok(v) if v < MAXREPEAT => Ok(v),
                _ => Err(ReError::new("the repetition number is too large".into())),
            }
        };
        let (min, max) = (parse(&lo, 0)?, parse(&hi, MAXREPEAT)?);
        if max < min {
            return Err(self.error("min repeat greater than max repeat", self.pos - here));
        }
        Ok(Some((min, max)))
    }
}

/// A code point as a pattern literal (ASCII letters and digits as they
/// are, everything else as `\x{..}`).
pub(crate) fn literal_out(c: u32) -> String {
    match char::from_u32(c) {
        Some(ch) if ch.is_ascii_alphanumeric() => ch.to_string(),
        _ => format!("\\x{{{c:X}}}"),
    }
}

/// Python's `\b` (or `\B`): a boundary between a word and a non-word
/// character by Python's `\w`; neither matches in an empty string.
fn boundary(ascii: bool, negated: bool) -> String {
    let w = category_class(Category::Word, ascii, false);
    if negated {
        format!("(?:(?!\\A\\z)(?:(?<={w})(?={w})|(?<!{w})(?!{w})))")
    } else {
        format!("(?:(?<={w})(?!{w})|(?<!{w})(?={w}))")
    }
}

/// The word, digit or space set of a class escape.
pub(crate) fn class_category(c: char, ascii: bool) -> Option<(CharSet, bool)> {
    let (cat, neg) = match c {
        'd' => (Category::Digit, false),
        'D' => (Category::Digit, true),
        's' => (Category::Space, false),
        'S' => (Category::Space, true),
        'w' => (Category::Word, false),
        'W' => (Category::Word, true),
        _ => return None,
    };
    Some((category(cat, ascii).clone(), neg))
}

/// `X{lo,hi}` of a zero-width `X`: `X` itself when it must hold at least
/// once, else optional (tried first when greedy, last when lazy; a
/// possessive optional keeps `X` when it holds).
fn zero_width_repeat(item: Item, lo: u64, lazy: bool, possessive: bool) -> Item {
    let x = &item.out;
    let out = if lo > 0 {
        format!("(?:{x})")
    } else if lazy {
        format!("(?:|{x})")
    } else if possessive {
        format!("(?>{x}|)")
    } else {
        format!("(?:{x}|)")
    };
    Item {
        out,
        min: 0,
        max: 0,
        kind: Kind::Repeat,
    }
}
