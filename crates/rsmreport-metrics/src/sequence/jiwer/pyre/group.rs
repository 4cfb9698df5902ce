//! Groups of Python 3.11's pattern syntax (`re._parser._parse`'s `(`
//! branch and `_parse_flags`): capturing and named groups, `(?:...)`,
//! comments, look-ahead and look-behind (fixed width, as Python's compiler
//! requires), named back-references, conditionals, atomic groups and inline
//! flags, with Python's error messages.

use super::parse::{Flags, Item, Kind, Parser, INF, MAXGROUPS};
use super::ReError;

/// Inline flags: `i m s x a u` (`L` is refused for str patterns; `t` is
/// the template flag, not supported).
#[derive(Debug, Clone, Copy, Default)]
struct FlagSet {
    i: bool,
    m: bool,
    s: bool,
    x: bool,
    a: bool,
    u: bool,
}

impl FlagSet {
    fn set(&mut self, c: char) {
        match c {
            'i' => self.i = true,
            'm' => self.m = true,
            's' => self.s = true,
            'x' => self.x = true,
            'a' => self.a = true,
            _ => self.u = true,
        }
    }

    fn any_common(&self, o: &FlagSet) -> bool {
        (self.i && o.i) || (self.m && o.m) || (self.s && o.s) || (self.x && o.x)
    }
}

const FLAG_CHARS: &str = "iLmsxatu";

/// Python's `repr` of a short string (group names in messages).
fn py_repr(s: &str) -> String {
    if s.contains('\'') && !s.contains('"') {
        format!("\"{s}\"")
    } else {
        format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
    }
}

/// `str.isidentifier()`, approximately: a letter or `_`, then letters,
/// digits, marks or `_` (Python uses XID_Start / XID_Continue).
pub(super) fn is_identifier(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && cs.all(|c| c == '_' || c.is_alphanumeric() || crate::sequence::jiwer::pystr::is_word(c))
}

impl Parser {
    /// A group after `(` (at `start`): the item, or `None` for a comment or
    /// global flags.
    pub(super) fn parse_group(
        &mut self,
        start: usize,
        nested: usize,
        first: bool,
    ) -> Result<Option<Item>, ReError> {
        if !self.eat('?') {
            return self
                .group_body(start, nested, GroupKind::Capture(None), self.flags)
                .map(Some);
        }
        let Some(c) = self.token()? else {
            return Err(self.error("unexpected end of pattern", 0));
        };
        match c.as_str() {
            "P" => self.python_extension(start, nested),
            ":" => self
                .group_body(start, nested, GroupKind::NonCapture, self.flags)
                .map(Some),
            ">" => self
                .group_body(start, nested, GroupKind::Atomic, self.flags)
                .map(Some),
            "#" => {
                loop {
                    match self.peek() {
                        None => {
                            return Err(
                                self.error("missing ), unterminated comment", self.pos - start)
                            )
                        }
                        Some(')') => break,
                        Some(_) => self.pos += 1,
                    }
                }
                self.pos += 1;
                Ok(None)
            }
            "=" | "!" => self.lookaround(start, nested, false, c == "!").map(Some),
            "<" => {
                let Some(d) = self.token()? else {
                    return Err(self.error("unexpected end of pattern", 0));
                };
                if d != "=" && d != "!" {
                    let n = d.chars().count() + 2;
                    return Err(self.error(&format!("unknown extension ?<{d}"), n));
                }
                self.lookaround(start, nested, true, d == "!").map(Some)
            }
            "(" => self.conditional(start, nested).map(Some),
            f if f.len() == 1 && (FLAG_CHARS.contains(f) || f == "-") => {
                self.inline_flags(start, nested, first, f.chars().next().expect("one"))
            }
            other => {
                let n = other.chars().count() + 1;
                Err(self.error(&format!("unknown extension ?{other}"), n))
            }
        }
    }

    /// `(?P<name>...)` and `(?P=name)`.
    fn python_extension(&mut self, start: usize, nested: usize) -> Result<Option<Item>, ReError> {
        if self.eat('<') {
            let name = self.until('>', "group name")?;
            self.check_group_name(&name, 1)?;
            let kind = GroupKind::Capture(Some(name));
            return self.group_body(start, nested, kind, self.flags).map(Some);
        }
        if self.eat('=') {
            let name = self.until(')', "group name")?;
            self.check_group_name(&name, 1)?;
            let n = name.chars().count() + 1;
            let Some(&(_, gid)) = self.names.iter().find(|(k, _)| *k == name) else {
                return Err(self.error(&format!("unknown group name {}", py_repr(&name)), n));
            };
            let Some(width) = self.widths[gid - 1] else {
                return Err(self.error("cannot refer to an open group", n));
            };
            self.check_lookbehind_group(gid)?;
            let out = if self.flags.ignorecase {
                format!("(?i:\\{gid})")
            } else {
                format!("(?:\\{gid})")
            };
            return Ok(Some(Item {
                out,
                min: width.0,
                max: width.1,
                kind: Kind::Other,
            }));
        }
        let Some(c) = self.token()? else {
            return Err(self.error("unexpected end of pattern", 0));
        };
        let n = c.chars().count() + 2;
        Err(self.error(&format!("unknown extension ?P{c}"), n))
    }

    /// `Tokenizer.checkgroupname`.
    fn check_group_name(&self, name: &str, offset: usize) -> Result<(), ReError> {
        if !is_identifier(name) {
            let n = name.chars().count() + offset;
            return Err(self.error(&format!("bad character in group name {}", py_repr(name)), n));
        }
        Ok(())
    }

    /// The body of a group up to its `)`.
    fn group_body(
        &mut self,
        start: usize,
        nested: usize,
        kind: GroupKind,
        inner: Flags,
    ) -> Result<Item, ReError> {
        let group = match &kind {
            GroupKind::Capture(name) => Some(self.open_group(name.as_deref())?),
            _ => None,
        };
        let outer = self.flags;
        self.flags = inner;
        let body = self.parse_sub(nested + 1);
        self.flags = outer;
        let body = body?;
        if !self.eat(')') {
            return Err(self.error("missing ), unterminated subpattern", self.pos - start));
        }
        if let Some(g) = group {
            self.widths[g - 1] = Some((body.min, body.max));
        }
        let out = match kind {
            GroupKind::Capture(_) => format!("({})", body.out),
            GroupKind::NonCapture => format!("(?:{})", body.out),
            GroupKind::Atomic => format!("(?>{})", body.out),
        };
        Ok(Item {
            out,
            min: body.min,
            max: body.max,
            kind: Kind::Other,
        })
    }

    /// `State.opengroup`.
    fn open_group(&mut self, name: Option<&str>) -> Result<usize, ReError> {
        let gid = self.widths.len() + 1;
        if gid >= MAXGROUPS {
            return Err(self.error("too many groups", 0));
        }
        if let Some(name) = name {
            if let Some(&(_, old)) = self.names.iter().find(|(k, _)| k == name) {
                let msg = format!(
                    "redefinition of group name {} as group {gid}; was group {old}",
                    py_repr(name)
                );
                return Err(self.error(&msg, name.chars().count() + 1));
            }
            self.names.push((name.to_string(), gid));
        }
        self.widths.push(None);
        Ok(gid)
    }

    /// `(?=...)`, `(?!...)`, `(?<=...)`, `(?<!...)`.
    fn lookaround(
        &mut self,
        start: usize,
        nested: usize,
        behind: bool,
        negative: bool,
    ) -> Result<Item, ReError> {
        let saved = self.lookbehind_groups;
        if behind && saved.is_none() {
            self.lookbehind_groups = Some(self.widths.len());
        }
        let body = self.parse_sub(nested + 1);
        if behind && saved.is_none() {
            self.lookbehind_groups = None;
        }
        let body = body?;
        if !self.eat(')') {
            return Err(self.error("missing ), unterminated subpattern", self.pos - start));
        }
        if behind && body.min != body.max {
            self.not_fixed_width = true;
        }
        let open = match (behind, negative) {
            (false, false) => "(?=",
            (false, true) => "(?!",
            (true, false) => "(?<=",
            (true, true) => "(?<!",
        };
        Ok(Item::zero(format!("{open}{})", body.out)))
    }

    /// `(?(group)yes|no)`.
    fn conditional(&mut self, start: usize, nested: usize) -> Result<Item, ReError> {
        let name = self.until(')', "group name")?;
        let n = name.chars().count() + 1;
        let group = if is_identifier(&name) {
            match self.names.iter().find(|(k, _)| *k == name) {
                Some(&(_, g)) => g,
                None => {
                    return Err(self.error(&format!("unknown group name {}", py_repr(&name)), n))
                }
            }
        } else {
            let g = name
                .parse::<usize>()
                .ok()
                .filter(|_| name.chars().all(|c| c.is_ascii_digit()))
                .ok_or_else(|| {
                    self.error(
                        &format!("bad character in group name {}", py_repr(&name)),
                        n,
                    )
                })?;
            if g == 0 {
                return Err(self.error("bad group number", n));
            }
            if g >= MAXGROUPS {
                return Err(self.error(&format!("invalid group reference {g}"), n));
            }
            self.condrefs.push((g, self.pos - n));
            g
        };
        self.check_lookbehind_group(group)?;
        let yes = self.parse_seq(nested + 1, false)?;
        let no = if self.eat('|') {
            let no = self.parse_seq(nested + 1, false)?;
            if self.peek() == Some('|') {
                return Err(self.error("conditional backref with more than two branches", 0));
            }
            Some(no)
        } else {
            None
        };
        if !self.eat(')') {
            return Err(self.error("missing ), unterminated subpattern", self.pos - start));
        }
        let (min, max, out) = match no {
            Some(no) => (
                yes.min.min(no.min),
                yes.max.max(no.max),
                format!("(?({group}){}|{})", yes.out, no.out),
            ),
            None => (0, yes.max, format!("(?({group}){}|)", yes.out)),
        };
        Ok(Item {
            out,
            min,
            max: max.min(INF),
            kind: Kind::Other,
        })
    }

    /// `(?flags)` at the start (global) or `(?flags-flags:...)`.
    fn inline_flags(
        &mut self,
        start: usize,
        nested: usize,
        first: bool,
        c: char,
    ) -> Result<Option<Item>, ReError> {
        let (add, del, global) = self.parse_flags(c)?;
        if global {
            if !first {
                let n = self.pos - start;
                return Err(self.error("global flags not at the start of the expression", n));
            }
            self.flags = apply_flags(self.flags, &add, &FlagSet::default());
            return Ok(None);
        }
        let inner = apply_flags(self.flags, &add, &del);
        let item = self.group_body(start, nested, GroupKind::NonCapture, inner)?;
        Ok(Some(item))
    }

    /// `_parse_flags`: (added, removed, global).
    fn parse_flags(&mut self, mut c: char) -> Result<(FlagSet, FlagSet, bool), ReError> {
        let (mut add, mut del) = (FlagSet::default(), FlagSet::default());
        if c != '-' {
            loop {
                self.check_flag(c, &add)?;
                add.set(c);
                let Some(next) = self.peek() else {
                    return Err(self.error("missing -, : or )", 0));
                };
                self.pos += 1;
                c = next;
                if ")-:".contains(c) {
                    break;
                }
                if !FLAG_CHARS.contains(c) {
                    let msg = if c.is_alphabetic() {
                        "unknown flag"
                    } else {
                        "missing -, : or )"
                    };
                    return Err(self.error(msg, 1));
                }
            }
        }
        if c == ')' {
            return Ok((add, del, true));
        }
        if c == '-' {
            self.removed_flags(&mut del)?;
        }
        if add.any_common(&del) {
            return Err(self.error("bad inline flags: flag turned on and off", 1));
        }
        Ok((add, del, false))
    }

    /// The flags after `-` up to `:`.
    fn removed_flags(&mut self, del: &mut FlagSet) -> Result<(), ReError> {
        let Some(mut c) = self.peek() else {
            return Err(self.error("missing flag", 0));
        };
        self.pos += 1;
        if !FLAG_CHARS.contains(c) {
            let msg = if c.is_alphabetic() {
                "unknown flag"
            } else {
                "missing flag"
            };
            return Err(self.error(msg, 1));
        }
        loop {
            if "aLu".contains(c) {
                return Err(self.error(
                    "bad inline flags: cannot turn off flags 'a', 'u' and 'L'",
                    0,
                ));
            }
            if c == 't' {
                return Err(self.error("bad inline flags: cannot turn off global flag", 1));
            }
            del.set(c);
            let Some(next) = self.peek() else {
                return Err(self.error("missing :", 0));
            };
            self.pos += 1;
            c = next;
            if c == ':' {
                return Ok(());
            }
            if !FLAG_CHARS.contains(c) {
                let msg = if c.is_alphabetic() {
                    "unknown flag"
                } else {
                    "missing :"
                };
                return Err(self.error(msg, 1));
            }
        }
    }

    /// The checks of one added flag.
    fn check_flag(&self, c: char, add: &FlagSet) -> Result<(), ReError> {
        match c {
            'L' => Err(self.error(
                "bad inline flags: cannot use 'L' flag with a str pattern",
                0,
            )),
            't' => Err(self.error("the template flag (?t) is not supported", 0)),
            'a' if add.u => Err(self.error(
                "bad inline flags: flags 'a', 'u' and 'L' are incompatible",
                0,
            )),
            'u' if add.a => Err(self.error(
                "bad inline flags: flags 'a', 'u' and 'L' are incompatible",
                0,
            )),
            _ => Ok(()),
        }
    }
}

/// What a group captures.
enum GroupKind {
    Capture(Option<String>),
    NonCapture,
    Atomic,
}

/// `_combine_flags`: a type flag (`a`, `u`) replaces the other.
fn apply_flags(f: Flags, add: &FlagSet, del: &FlagSet) -> Flags {
    Flags {
        ignorecase: (f.ignorecase || add.i) && !del.i,
        multiline: (f.multiline || add.m) && !del.m,
        dotall: (f.dotall || add.s) && !del.s,
        verbose: (f.verbose || add.x) && !del.x,
        ascii: if add.a {
            true
        } else if add.u {
            false
        } else {
            f.ascii
        },
    }
}
