//! Python 3.11's replacement templates (`re._parser.parse_template` and
//! `expand_template`): `\1`..`\99` and `\g<n>` / `\g<name>` group
//! references (a group that did not participate gives `""`), octal escapes
//! (`\0`, `\012`, three digits after `\1`-`\7`), `\a \b \f \n \r \t \v \\`,
//! other escaped non-letters kept with their backslash; an escaped ASCII
//! letter is an error. Pure functions.

use super::{PyRegex, ReError};

/// The groups of the pattern a template is parsed for.
struct Groups<'a> {
    groups: usize,
    names: &'a [(String, usize)],
}

impl Groups<'_> {
    fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().find(|(n, _)| n == name).map(|&(_, g)| g)
    }
}

/// One piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Literal(String),
    Group(usize),
}

/// A parsed replacement template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pieces: Vec<Piece>,
}

impl Template {
    /// A template inserting `s` as it is (no escapes).
    pub fn literal(s: &str) -> Template {
        Template {
            pieces: vec![Piece::Literal(s.to_string())],
        }
    }

    /// Parses `repl` for `regex` (`re.sub` compiles the template before
    /// searching, so errors come even without a match).
    pub fn parse(repl: &str, regex: &PyRegex) -> Result<Template, ReError> {
        Template::parse_for(repl, regex.groups(), &regex.names)
    }

    /// Parses `repl` for a pattern with `groups` capturing groups and the
    /// named groups `names`.
    pub fn parse_for(
        repl: &str,
        groups: usize,
        names: &[(String, usize)],
    ) -> Result<Template, ReError> {
        let regex = &Groups { groups, names };
        let s: Vec<char> = repl.chars().collect();
        let mut t = Template { pieces: Vec::new() };
        let mut i = 0;
        while i < s.len() {
            if s[i] != '\\' {
                t.push_char(s[i]);
                i += 1;
                continue;
            }
            let Some(&c) = s.get(i + 1) else {
                return Err(ReError::new(format!(
                    "bad escape (end of pattern) at position {}",
                    s.len() - 1
                )));
            };
            i = match c {
                'g' => t.named(&s, i + 2, regex)?,
                '0' => t.octal_zero(&s, i + 2),
                '1'..='9' => t.digits(&s, i + 1, regex)?,
                _ => {
                    t.escaped(c, i)?;
                    i + 2
                }
            };
        }
        Ok(t)
    }

    fn push_char(&mut self, c: char) {
        match self.pieces.last_mut() {
            Some(Piece::Literal(l)) => l.push(c),
            _ => self.pieces.push(Piece::Literal(c.to_string())),
        }
    }

    fn push_str(&mut self, s: &str) {
        for c in s.chars() {
            self.push_char(c);
        }
    }

    /// `\g<...>` starting after `\g` at `i`; returns the next index.
    fn named(&mut self, s: &[char], i: usize, regex: &Groups<'_>) -> Result<usize, ReError> {
        if s.get(i) != Some(&'<') {
            return Err(ReError::new(format!("missing < at position {i}")));
        }
        let start = i + 1;
        let Some(len) = s[start..].iter().position(|&c| c == '>') else {
            let n = s.len() - start;
            let msg = if n == 0 {
                format!("missing group name at position {}", s.len())
            } else {
                format!("missing >, unterminated name at position {start}")
            };
            return Err(ReError::new(msg));
        };
        let name: String = s[start..start + len].iter().collect();
        if name.is_empty() {
            return Err(ReError::new(format!(
                "missing group name at position {start}"
            )));
        }
        let index = if name.chars().all(|c| c.is_ascii_digit()) {
            name.parse::<usize>().unwrap_or(usize::MAX)
        } else if super::group::is_identifier(&name) {
            regex.index(&name).ok_or_else(|| ReError {
                message: format!("unknown group name '{name}'"),
                kind: "IndexError",
            })?
        } else {
            return Err(ReError::new(format!(
                "bad character in group name '{name}' at position {start}"
            )));
        };
        self.group(index, regex, start)?;
        Ok(start + len + 1)
    }

    /// A group reference, checked against the pattern's groups.
    fn group(&mut self, index: usize, regex: &Groups<'_>, at: usize) -> Result<(), ReError> {
        if index > regex.groups {
            return Err(ReError::new(format!(
                "invalid group reference {index} at position {at}"
            )));
        }
        self.pieces.push(Piece::Group(index));
        Ok(())
    }

    /// `\0` plus up to two octal digits (starting after `\0` at `i`).
    fn octal_zero(&mut self, s: &[char], i: usize) -> usize {
        let mut j = i;
        let mut v = 0u32;
        while j < i + 2 && j < s.len() && ('0'..='7').contains(&s[j]) {
            v = v * 8 + s[j].to_digit(8).expect("octal");
            j += 1;
        }
        self.push_char(char::from_u32(v & 0xFF).expect("a byte"));
        j
    }

    /// `\d`, `\dd` (a group) or `\ddd` (octal, first two digits 0-7).
    fn digits(&mut self, s: &[char], i: usize, regex: &Groups<'_>) -> Result<usize, ReError> {
        let oct = |c: char| ('0'..='7').contains(&c);
        let (c, d, e) = (s[i], s.get(i + 1).copied(), s.get(i + 2).copied());
        if let Some(d) = d.filter(char::is_ascii_digit) {
            if oct(c) && oct(d) && e.is_some_and(oct) {
                let digits: String = s[i..i + 3].iter().collect();
                let v = u32::from_str_radix(&digits, 8).expect("octal");
                if v > 0o377 {
                    return Err(ReError::new(format!(
                        "octal escape value \\{digits} outside of range 0-0o377 at position {}",
                        i - 1
                    )));
                }
                self.push_char(char::from_u32(v).expect("a byte"));
                return Ok(i + 3);
            }
            let g = (c as usize - '0' as usize) * 10 + (d as usize - '0' as usize);
            self.group(g, regex, i)?;
            return Ok(i + 2);
        }
        self.group(c as usize - '0' as usize, regex, i)?;
        Ok(i + 1)
    }

    /// Any other escape `\c` at `i`.
    fn escaped(&mut self, c: char, i: usize) -> Result<(), ReError> {
        let code = match c {
            'a' => '\u{7}',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\u{b}',
            '\\' => '\\',
            c if c.is_ascii_alphabetic() => {
                return Err(ReError::new(format!("bad escape \\{c} at position {i}")));
            }
            c => {
                self.push_str(&format!("\\{c}"));
                return Ok(());
            }
        };
        self.push_char(code);
        Ok(())
    }

    /// Appends the expansion for one match.
    pub fn expand_into(&self, caps: &fancy_regex::Captures<'_, str>, out: &mut String) {
        self.expand_with(|g| caps.get(g).map(|m| m.as_str()), out);
    }

    /// Appends the expansion, the groups' texts given by `group` (`None`:
    /// the group did not participate, `""` as in Python).
    pub fn expand_with<'a>(&self, group: impl Fn(usize) -> Option<&'a str>, out: &mut String) {
        for p in &self.pieces {
            match p {
                Piece::Literal(l) => out.push_str(l),
                Piece::Group(g) => out.push_str(group(*g).unwrap_or("")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(p: &str, r: &str, s: &str) -> Result<String, ReError> {
        let re = PyRegex::new(p)?;
        let t = Template::parse(r, &re)?;
        re.sub(&t, s)
    }

    #[test]
    fn templates_by_hand() {
        assert_eq!(sub(r"(\w)(\w)", r"\2\1", "abcd").unwrap(), "badc");
        assert_eq!(sub(r"(\w)", r"\g<1>0", "ab").unwrap(), "a0b0");
        assert_eq!(sub(r"(?P<w>\w)", r"<\g<w>>", "ab").unwrap(), "<a><b>");
        assert_eq!(sub("x", r"\n\t\\\101\0", "x").unwrap(), "\n\t\\A\0");
        assert_eq!(sub("x", r"\&\-", "x").unwrap(), "\\&\\-");
        assert_eq!(sub("(x)|(y)", r"[\1|\2]", "xy").unwrap(), "[x|][|y]");
    }

    #[test]
    fn template_errors_are_pythons() {
        let e = sub("(a)b", r"\2", "zzz").unwrap_err();
        assert_eq!(e.message, "invalid group reference 2 at position 1");
        let e = sub("(?P<a>x)", r"\g<b>", "zzz").unwrap_err();
        assert_eq!(
            (e.kind, e.message.as_str()),
            ("IndexError", "unknown group name 'b'")
        );
        let e = sub("x", r"\q", "zzz").unwrap_err();
        assert_eq!(e.message, "bad escape \\q at position 0");
        let e = sub("(?P<a>x)", r"\g<a-b>", "zzz").unwrap_err();
        assert_eq!(e.message, "bad character in group name 'a-b' at position 3");
    }
}
