//! Stage 4 (metrics): token tags to spans (`spec/spans.md` 2, C). A tag is
//! `O` or `P-TYPE` (one capital letter, a hyphen, a non-empty type); the
//! type is an interned label code. Three readings of one sentence:
//!
//! * [`problems`]: the spec's invalid transitions and prefixes outside the
//!   scheme (with `O` before the first and after the last token);
//! * [`decode_begin`]: seqeval 1.2.2 `get_entities` (conlleval's reading,
//!   the default mode), on bilou after mapping L to E and U to S;
//! * [`decode_discard`]: seqeval 1.2.2 strict mode
//!   (`seqeval.scheme.Tokens(...).entities` with IOB2, IOB1, IOBES or
//!   BILOU), `None` where seqeval refuses a prefix.
//!
//! Spans are `(start, end, label)` in token positions, end exclusive. Pure:
//! no I/O.

/// The label code of `O` (seqeval's type `_` of an outside tag).
pub const OUTSIDE: u32 = u32::MAX;

/// One parsed tag: its prefix letter (`b'O'` for `O`) and label code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tag {
    pub prefix: u8,
    pub label: u32,
}

impl Tag {
    /// The outside tag `O`.
    pub const O: Tag = Tag {
        prefix: b'O',
        label: OUTSIDE,
    };
}

/// The tagging scheme of a token column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    Bio,
    Iob1,
    Iobes,
    Bilou,
}

impl Scheme {
    /// The name in the experiment file.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Bio => "bio",
            Scheme::Iob1 => "iob1",
            Scheme::Iobes => "iobes",
            Scheme::Bilou => "bilou",
        }
    }

    /// The prefixes of the scheme besides `O`.
    fn allowed(self) -> &'static [u8] {
        match self {
            Scheme::Bio | Scheme::Iob1 => b"BI",
            Scheme::Iobes => b"BIES",
            Scheme::Bilou => b"BILU",
        }
    }

    /// Whether `prefix` belongs to the scheme (`O` always does).
    pub fn allows(self, prefix: u8) -> bool {
        prefix == b'O' || self.allowed().contains(&prefix)
    }
}

/// The prefix and type text of a tag, `None` for a malformed one (`O` is
/// `Some((b'O', ""))`).
pub fn split_tag(tag: &str) -> Option<(u8, &str)> {
    if tag == "O" {
        return Some((b'O', ""));
    }
    let b = tag.as_bytes();
    if b.len() >= 3 && b[0].is_ascii_uppercase() && b[1] == b'-' {
        Some((b[0], &tag[2..]))
    } else {
        None
    }
}

/// What is wrong at one position of a sentence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The pair (position - 1, position) is invalid; position = the
    /// sentence's length for the transition to the end.
    Transition(usize),
    /// The tag at this position has a prefix outside the scheme.
    Outside(usize),
}

fn inside_or_begin(t: Tag, label: u32) -> bool {
    matches!(t.prefix, b'B' | b'I') && t.label == label
}

/// Every invalid transition and prefix outside the scheme of one
/// sentence, in position order (spec 2, C).
pub fn problems(tags: &[Tag], scheme: Scheme) -> Vec<Problem> {
    let mut out = Vec::new();
    let n = tags.len();
    for i in 0..=n {
        let prev = if i == 0 { Tag::O } else { tags[i - 1] };
        let cur = if i == n { Tag::O } else { tags[i] };
        if i < n && !scheme.allows(cur.prefix) {
            out.push(Problem::Outside(i));
            continue;
        }
        let invalid = match scheme {
            Scheme::Bio => cur.prefix == b'I' && !inside_or_begin(prev, cur.label),
            Scheme::Iob1 => cur.prefix == b'B' && !inside_or_begin(prev, cur.label),
            Scheme::Iobes | Scheme::Bilou => {
                let end = if scheme == Scheme::Iobes { b'E' } else { b'L' };
                let open = matches!(prev.prefix, b'B' | b'I');
                let cont = cur.prefix == b'I' || cur.prefix == end;
                (open && !(cont && cur.label == prev.label))
                    || (cont && !inside_or_begin(prev, cur.label))
            }
        };
        if invalid {
            out.push(Problem::Transition(i));
        }
    }
    out
}

/// seqeval 1.2.2 `get_entities` on one sentence (default mode,
/// conlleval's reading: an `I-` that cannot continue opens an entity,
/// `S-`/`E-` understood); on bilou L is read as E and U as S.
pub fn decode_begin(tags: &[Tag], scheme: Scheme) -> Vec<(u32, u32, u32)> {
    let map = |p: u8| match (scheme, p) {
        (Scheme::Bilou, b'L') => b'E',
        (Scheme::Bilou, b'U') => b'S',
        _ => p,
    };
    // seqeval's initial previous type is '' (a code no tag has).
    let (mut prev_tag, mut prev_type) = (b'O', OUTSIDE - 1);
    let mut begin = 0usize;
    let mut out = Vec::new();
    for i in 0..=tags.len() {
        let t = tags.get(i).copied().unwrap_or(Tag::O);
        let (tag, ty) = (map(t.prefix), t.label);
        let end = matches!(prev_tag, b'E' | b'S')
            || (matches!(prev_tag, b'B' | b'I') && matches!(tag, b'B' | b'S' | b'O'))
            || (prev_tag != b'O' && prev_tag != b'.' && prev_type != ty);
        if end {
            out.push((begin as u32, i as u32, prev_type));
        }
        let start = matches!(tag, b'B' | b'S')
            || (matches!(prev_tag, b'E' | b'S' | b'O') && matches!(tag, b'E' | b'I'))
            || (tag != b'O' && tag != b'.' && prev_type != ty);
        if start {
            begin = i;
        }
        prev_tag = tag;
        prev_type = ty;
    }
    out
}

/// A pattern of seqeval's scheme classes: previous prefixes, current
/// prefixes, and the type condition (`Some(true)` same, `Some(false)`
/// different, `None` any).
type Pattern = (&'static [u8], &'static [u8], Option<bool>);

const ANY: &[u8] = b"IOBESUL";

struct Patterns {
    start: &'static [Pattern],
    inside: &'static [Pattern],
    end: &'static [Pattern],
}

const IOB2: Patterns = Patterns {
    start: &[(ANY, b"B", None)],
    inside: &[(b"B", b"I", Some(true)), (b"I", b"I", Some(true))],
    end: &[
        (b"I", b"O", None),
        (b"I", b"I", Some(false)),
        (b"I", b"B", None),
        (b"B", b"O", None),
        (b"B", b"I", Some(false)),
        (b"B", b"B", None),
    ],
};

const IOB1: Patterns = Patterns {
    start: &[
        (b"O", b"I", None),
        (b"I", b"I", Some(false)),
        (b"B", b"I", None),
        (b"I", b"B", Some(true)),
        (b"B", b"B", Some(true)),
    ],
    inside: &[(b"B", b"I", Some(true)), (b"I", b"I", Some(true))],
    end: &[
        (b"I", b"I", Some(false)),
        (b"I", b"O", None),
        (b"I", b"B", None),
        (b"B", b"O", None),
        (b"B", b"I", Some(false)),
        (b"B", b"B", Some(true)),
    ],
};

const IOBES: Patterns = Patterns {
    start: &[(ANY, b"B", None), (ANY, b"S", None)],
    inside: &[
        (b"B", b"I", Some(true)),
        (b"B", b"E", Some(true)),
        (b"I", b"I", Some(true)),
        (b"I", b"E", Some(true)),
    ],
    end: &[(b"S", ANY, None), (b"E", ANY, None)],
};

const BILOU: Patterns = Patterns {
    start: &[(ANY, b"B", None), (ANY, b"U", None)],
    inside: &[
        (b"B", b"I", Some(true)),
        (b"B", b"L", Some(true)),
        (b"I", b"I", Some(true)),
        (b"I", b"L", Some(true)),
    ],
    end: &[(b"U", ANY, None), (b"L", ANY, None)],
};

fn matches(patterns: &[Pattern], prev: Tag, cur: Tag) -> bool {
    patterns.iter().any(|(p, c, same)| {
        p.contains(&prev.prefix)
            && c.contains(&cur.prefix)
            && same.is_none_or(|s| s == (prev.label == cur.label))
    })
}

/// seqeval 1.2.2 strict mode on one sentence: `Tokens(tags, scheme)
/// .entities` (an entity that does not close properly is dropped). `None`
/// when seqeval refuses a tag (a prefix outside the scheme).
pub fn decode_discard(tags: &[Tag], scheme: Scheme) -> Option<Vec<(u32, u32, u32)>> {
    if tags.iter().any(|t| !scheme.allows(t.prefix)) {
        return None;
    }
    let p = match scheme {
        Scheme::Bio => &IOB2,
        Scheme::Iob1 => &IOB1,
        Scheme::Iobes => &IOBES,
        Scheme::Bilou => &BILOU,
    };
    let n = tags.len();
    let at = |i: usize| if i < n { tags[i] } else { Tag::O };
    let mut out = Vec::new();
    let (mut i, mut prev) = (0usize, Tag::O);
    while i <= n {
        let token = at(i);
        if matches(p.start, prev, token) {
            // _forward
            let mut end = n;
            let mut inner = token;
            for j in i + 1..=n {
                if matches(p.inside, inner, at(j)) {
                    inner = at(j);
                } else {
                    end = j;
                    break;
                }
            }
            if matches(p.end, at(end - 1), at(end)) {
                out.push((i as u32, end as u32, token.label));
            }
            i = end;
        } else {
            i += 1;
        }
        prev = at(i - 1);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tags of a sentence with labels PER = 0, LOC = 1, MISC = 2.
    fn tags(s: &str) -> Vec<Tag> {
        s.split_whitespace()
            .map(|t| {
                let (prefix, ty) = split_tag(t).unwrap();
                let label = match ty {
                    "" => OUTSIDE,
                    "PER" => 0,
                    "LOC" => 1,
                    _ => 2,
                };
                Tag { prefix, label }
            })
            .collect()
    }

    #[test]
    fn malformed_tags_are_refused() {
        assert_eq!(split_tag("B-PER"), Some((b'B', "PER")));
        assert_eq!(split_tag("O"), Some((b'O', "")));
        for bad in ["B", "b-PER", "B-", "BPER", "B_PER", "", "o"] {
            assert_eq!(split_tag(bad), None, "{bad}");
        }
    }

    #[test]
    fn begin_reads_like_seqeval_get_entities() {
        // seqeval README: get_entities(['B-PER','I-PER','O','B-LOC'])
        // = [('PER', 0, 1), ('LOC', 3, 3)].
        let t = tags("B-PER I-PER O B-LOC");
        assert_eq!(decode_begin(&t, Scheme::Bio), vec![(0, 2, 0), (3, 4, 1)]);
        // An I- after O opens an entity; a type change splits.
        let t = tags("O I-PER I-PER B-PER I-LOC");
        assert_eq!(
            decode_begin(&t, Scheme::Bio),
            vec![(1, 3, 0), (3, 4, 0), (4, 5, 1)]
        );
        // IOBES read by get_entities: B E I gives (0, 2) and then I opens.
        let t = tags("B-PER E-PER I-PER O E-LOC");
        assert_eq!(
            decode_begin(&t, Scheme::Iobes),
            vec![(0, 2, 0), (2, 3, 0), (4, 5, 1)]
        );
        // BILOU: U is S, L is E.
        let t = tags("U-PER B-LOC L-LOC");
        assert_eq!(decode_begin(&t, Scheme::Bilou), vec![(0, 1, 0), (1, 3, 1)]);
    }

    #[test]
    fn discard_reads_like_seqeval_strict() {
        // seqeval docs: Tokens(['B-PER','I-PER','O','B-LOC'], IOB2)
        // .entities = [('PER', 0, 2), ('LOC', 3, 4)].
        let t = tags("B-PER I-PER O B-LOC");
        assert_eq!(
            decode_discard(&t, Scheme::Bio),
            Some(vec![(0, 2, 0), (3, 4, 1)])
        );
        // An I- without B- is dropped in IOB2.
        let t = tags("O I-PER I-PER O B-LOC");
        assert_eq!(decode_discard(&t, Scheme::Bio), Some(vec![(4, 5, 1)]));
        // IOB1: I- opens, B- splits same-type neighbours, B- after O drops.
        let t = tags("I-PER I-PER B-PER O B-LOC");
        assert_eq!(
            decode_discard(&t, Scheme::Iob1),
            Some(vec![(0, 2, 0), (2, 3, 0)])
        );
        // IOBES: B without E dropped; E without B dropped.
        let t = tags("B-PER I-PER O O E-LOC O S-MISC");
        assert_eq!(decode_discard(&t, Scheme::Iobes), Some(vec![(6, 7, 2)]));
        // A prefix outside the scheme: seqeval refuses.
        assert_eq!(decode_discard(&tags("S-PER"), Scheme::Bio), None);
    }

    #[test]
    fn transitions_follow_the_spec_rule() {
        use Problem::*;
        let t = tags("I-PER O B-PER I-LOC");
        assert_eq!(
            problems(&t, Scheme::Bio),
            vec![Transition(0), Transition(3)]
        );
        let t = tags("B-PER O I-PER I-PER B-PER");
        assert_eq!(problems(&t, Scheme::Iob1), vec![Transition(0)]);
        // iobes: B then O, O then E; the end after B.
        let t = tags("B-PER O E-LOC B-LOC");
        assert_eq!(
            problems(&t, Scheme::Iobes),
            vec![Transition(1), Transition(2), Transition(4)]
        );
        // A prefix outside the scheme is counted apart.
        let t = tags("S-PER O");
        assert_eq!(problems(&t, Scheme::Bio), vec![Outside(0)]);
        let t = tags("U-PER B-LOC L-LOC");
        assert!(problems(&t, Scheme::Bilou).is_empty());
    }
}
