//! Character classes of Python 3.11's pattern syntax (`re._parser._parse`'s
//! `[` branch and `_class_escape`): a `]` first is a literal, ranges of
//! literals only, `\d \D \s \S \w \W` as Python's sets, `\b` a backspace,
//! negation, IGNORECASE by Python's lowering rule. Emitted as one explicit
//! code-point class.

use crate::sequence::jiwer::charset::{ignorecase_set, CharSet};

use super::parse::{class_category, Item, Parser};
use super::ReError;

/// One member of a class as parsed.
enum Member {
    Literal(u32),
    Category(CharSet, bool),
}

impl Parser {
    /// A class after `[` (at `start`).
    pub(super) fn parse_class(&mut self, start: usize) -> Result<Item, ReError> {
        let negate = self.eat('^');
        let mut literals = CharSet::default();
        let mut categories = CharSet::default();
        let mut any = false;
        loop {
            let Some(this) = self.token()? else {
                return Err(self.error("unterminated character set", self.pos - start));
            };
            if this == "]" && any {
                break;
            }
            any = true;
            let code1 = self.class_member(&this)?;
            if self.eat('-') {
                let Some(that) = self.token()? else {
                    return Err(self.error("unterminated character set", self.pos - start));
                };
                if that == "]" {
                    add_member(code1, &mut literals, &mut categories);
                    literals.add('-' as u32, '-' as u32);
                    break;
                }
                let code2 = self.class_member(&that)?;
                let (Member::Literal(lo), Member::Literal(hi)) = (code1, code2) else {
                    return Err(self.bad_range(&this, &that));
                };
                if hi < lo {
                    return Err(self.bad_range(&this, &that));
                }
                literals.add(lo, hi);
            } else {
                add_member(code1, &mut literals, &mut categories);
            }
        }
        let set = if self.flags.ignorecase {
            ignorecase_set(&literals, &categories, self.flags.ascii)
        } else {
            let mut all = literals;
            all.union(&categories);
            all
        };
        let set = if negate { set.negated() } else { set };
        Ok(Item::unit(set.to_class()))
    }

    /// "bad character range a-b".
    fn bad_range(&self, this: &str, that: &str) -> ReError {
        let n = this.chars().count() + 1 + that.chars().count();
        self.error(&format!("bad character range {this}-{that}"), n)
    }

    /// `_class_escape`, or a literal character.
    fn class_member(&mut self, tok: &str) -> Result<Member, ReError> {
        let Some(rest) = tok.strip_prefix('\\') else {
            return Ok(Member::Literal(
                tok.chars().next().expect("a character") as u32
            ));
        };
        let c = rest.chars().next().expect("escaped character");
        if let Some((set, neg)) = class_category(c, self.flags.ascii) {
            return Ok(Member::Category(set, neg));
        }
        Ok(Member::Literal(self.code_escape(c, true)?))
    }
}

/// Adds a member to the literal or category part.
fn add_member(m: Member, literals: &mut CharSet, categories: &mut CharSet) {
    match m {
        Member::Literal(c) => literals.add(c, c),
        Member::Category(set, false) => categories.union(&set),
        Member::Category(set, true) => categories.union(&set.negated()),
    }
}
