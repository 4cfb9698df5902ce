//! Stage 4 (metrics): token tags to spans (`spec/spans.md` 2, C and 10).
//! A tag is read twice, as seqeval 1.2.2 reads it ([`read_tag`]): by
//! `get_entities` (prefix = the first character, or the last with
//! `suffix`; type = the rest up to or after a hyphen, `_` when empty) and
//! by its strict-mode `Token` (the same character, which must be one of
//! I, O, B, E, S, U, L; type = the rest stripped of `-`, `_` when empty).
//! A tag of the spec's form (`O`, `P`, `P-TYPE`, with `suffix` `TYPE-P`,
//! P a capital letter) is *known*; other strings are unknown (read as
//! above when the experiment allows it). Types are interned label codes.
//! Three readings of one sentence:
//!
//! * [`problems`]: the spec's invalid transitions and prefixes outside the
//!   scheme (with `O` before the first and after the last token; unknown
//!   tags take part in neither);
//! * [`decode_begin`]: seqeval 1.2.2 `get_entities` (conlleval's reading,
//!   the default mode), on bilou after mapping L to E and U to S;
//! * [`decode_discard`]: seqeval 1.2.2 strict mode
//!   (`seqeval.scheme.Tokens(...).entities` with IOB2, IOB1, IOBES, BILOU,
//!   IOE1 or IOE2), `None` where seqeval refuses a tag.
//!
//! Spans are `(start, end, label)` in token positions, end exclusive. Pure:
//! no I/O.

/// The label code of the type of `O` (seqeval reads it as `_`, the type of
/// a typeless tag: [`decode_begin`] takes the code of `_` to compare them).
pub const OUTSIDE: u32 = u32::MAX;

/// One tag as seqeval reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tag {
    /// `get_entities`' prefix: the first (suffix: last) character, its
    /// byte when ASCII, 0 beyond (a prefix no rule names).
    pub prefix: u8,
    /// `get_entities`' type ([`OUTSIDE`] for an `O` of type `_`).
    pub label: u32,
    /// The strict-mode `Token`'s prefix, 0 where seqeval has no such
    /// prefix (a `KeyError`).
    pub strict_prefix: u8,
    /// The strict-mode `Token`'s type.
    pub strict_label: u32,
    /// Of the spec's form (`O`, `P`, `P-TYPE` or `TYPE-P`).
    pub known: bool,
}

impl Tag {
    /// The outside tag `O`.
    pub const O: Tag = Tag {
        prefix: b'O',
        label: OUTSIDE,
        strict_prefix: b'O',
        strict_label: OUTSIDE,
        known: true,
    };

    /// Whether seqeval's strict mode refuses the tag under `scheme`: no
    /// such prefix (`KeyError`) or a prefix outside the scheme
    /// (`ValueError: Invalid token`).
    pub fn refused_by(self, scheme: Scheme) -> bool {
        self.strict_prefix == 0 || !scheme.allows(self.strict_prefix)
    }
}

/// The tagging scheme of a token column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    Bio,
    Iob1,
    Iobes,
    Bilou,
    Ioe1,
    Ioe2,
}

impl Scheme {
    /// Every scheme, in the order of the experiment file's documentation.
    pub const ALL: [Scheme; 6] = [
        Scheme::Bio,
        Scheme::Iob1,
        Scheme::Iobes,
        Scheme::Bilou,
        Scheme::Ioe1,
        Scheme::Ioe2,
    ];

    /// The name in the experiment file.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Bio => "bio",
            Scheme::Iob1 => "iob1",
            Scheme::Iobes => "iobes",
            Scheme::Bilou => "bilou",
            Scheme::Ioe1 => "ioe1",
            Scheme::Ioe2 => "ioe2",
        }
    }

    /// The scheme class of `seqeval.scheme` that strict mode uses.
    pub fn seqeval_class(self) -> &'static str {
        match self {
            Scheme::Bio => "IOB2",
            Scheme::Iob1 => "IOB1",
            Scheme::Iobes => "IOBES",
            Scheme::Bilou => "BILOU",
            Scheme::Ioe1 => "IOE1",
            Scheme::Ioe2 => "IOE2",
        }
    }

    /// The prefixes of the scheme besides `O`.
    fn allowed(self) -> &'static [u8] {
        match self {
            Scheme::Bio | Scheme::Iob1 => b"BI",
            Scheme::Iobes => b"BIES",
            Scheme::Bilou => b"BILU",
            Scheme::Ioe1 | Scheme::Ioe2 => b"IE",
        }
    }

    /// Whether `prefix` belongs to the scheme (`O` always does).
    pub fn allows(self, prefix: u8) -> bool {
        prefix == b'O' || self.allowed().contains(&prefix)
    }
}

/// A tag string as seqeval 1.2.2 reads it (see the module's text), before
/// its types get codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reading<'t> {
    pub prefix: u8,
    /// `get_entities`' type (`_` when empty).
    pub label: &'t str,
    pub strict_prefix: u8,
    /// The strict-mode `Token`'s type (`_` when empty).
    pub strict_label: &'t str,
    pub known: bool,
}

/// seqeval's prefixes (`seqeval.scheme.Prefix`); any other character is a
/// `KeyError` in strict mode.
const PREFIXES: &[u8] = b"IOBESUL";

/// How seqeval reads `tag` (`suffix`: its `suffix=True`); `None` for the
/// empty tag, which seqeval cannot read (`IndexError`).
pub fn read_tag<'t>(tag: &'t str, suffix: bool) -> Option<Reading<'t>> {
    let (p, rest) = if suffix {
        let p = tag.chars().next_back()?;
        (p, &tag[..tag.len() - p.len_utf8()])
    } else {
        let p = tag.chars().next()?;
        (p, &tag[p.len_utf8()..])
    };
    // get_entities: tag[1:].split('-', 1)[-1], suffix:
    // tag[:-1].rsplit('-', 1)[0]; Token: the rest stripped of '-'.
    let label = if suffix {
        rest.rsplit_once('-').map_or(rest, |(t, _)| t)
    } else {
        rest.split_once('-').map_or(rest, |(_, t)| t)
    };
    let strict = rest.trim_matches('-');
    let or_typeless = |s: &'t str| if s.is_empty() { "_" } else { s };
    let byte = if p.is_ascii() { p as u8 } else { 0 };
    let capital = p.is_ascii_uppercase();
    let known = tag == "O"
        || (capital && rest.is_empty())
        || (capital
            && if suffix {
                rest.ends_with('-')
            } else {
                rest.starts_with('-')
            });
    Some(Reading {
        prefix: byte,
        label: or_typeless(label),
        strict_prefix: if PREFIXES.contains(&byte) { byte } else { 0 },
        strict_label: or_typeless(strict),
        known,
    })
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

fn inside_or_end(t: Tag, label: u32) -> bool {
    matches!(t.prefix, b'I' | b'E') && t.label == label
}

/// Whether the pair (previous, current) is an invalid transition of
/// `scheme` (spec 2, C and 10; both tags known, prefixes in the scheme).
fn invalid(scheme: Scheme, prev: Tag, cur: Tag) -> bool {
    match scheme {
        Scheme::Bio => cur.prefix == b'I' && !inside_or_begin(prev, cur.label),
        Scheme::Iob1 => cur.prefix == b'B' && !inside_or_begin(prev, cur.label),
        Scheme::Iobes | Scheme::Bilou => {
            let end = if scheme == Scheme::Iobes { b'E' } else { b'L' };
            let open = matches!(prev.prefix, b'B' | b'I');
            let cont = cur.prefix == b'I' || cur.prefix == end;
            (open && !(cont && cur.label == prev.label))
                || (cont && !inside_or_begin(prev, cur.label))
        }
        Scheme::Ioe2 => prev.prefix == b'I' && !inside_or_end(cur, prev.label),
        Scheme::Ioe1 => prev.prefix == b'E' && !inside_or_end(cur, prev.label),
    }
}

/// Every invalid transition and prefix outside the scheme of one
/// sentence, in position order (spec 2, C). A pair with an unknown tag or
/// a prefix outside the scheme is not a transition.
pub fn problems(tags: &[Tag], scheme: Scheme) -> Vec<Problem> {
    let mut out = Vec::new();
    let n = tags.len();
    let checked = |t: &Tag| t.known && scheme.allows(t.prefix);
    for i in 0..=n {
        let prev = if i == 0 { Tag::O } else { tags[i - 1] };
        let cur = if i == n { Tag::O } else { tags[i] };
        if i < n && cur.known && !scheme.allows(cur.prefix) {
            out.push(Problem::Outside(i));
        }
        if checked(&prev) && checked(&cur) && invalid(scheme, prev, cur) {
            out.push(Problem::Transition(i));
        }
    }
    out
}

/// seqeval 1.2.2 `get_entities` on one sentence (default mode,
/// conlleval's reading: an `I-` that cannot continue opens an entity,
/// `S-`/`E-` understood, `.` neither ends nor starts one); on bilou L is
/// read as E and U as S. `underscore` is the label code of the type `_`
/// (the type seqeval gives `O` and typeless tags), [`OUTSIDE`] when no tag
/// has it.
pub fn decode_begin(tags: &[Tag], scheme: Scheme, underscore: u32) -> Vec<(u32, u32, u32)> {
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
        let tag = map(t.prefix);
        let ty = if t.label == OUTSIDE {
            underscore
        } else {
            t.label
        };
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

/// seqeval's IOE1, which it calls unfinished: `I-PER E-PER` gives no
/// entity (no end pattern (E, O)), `E-PER I-PER` only PER 1-2.
const IOE1: Patterns = Patterns {
    start: &[
        (b"O", b"I", None),
        (b"I", b"I", Some(false)),
        (b"E", b"I", None),
        (b"E", b"E", Some(true)),
    ],
    inside: &[(b"I", b"I", Some(true)), (b"I", b"E", Some(true))],
    end: &[
        (b"I", b"I", Some(false)),
        (b"I", b"O", None),
        (b"I", b"E", Some(false)),
        (b"E", b"I", Some(true)),
        (b"E", b"E", Some(true)),
    ],
};

const IOE2: Patterns = Patterns {
    start: &[
        (b"O", b"I", None),
        (b"O", b"E", None),
        (b"E", b"I", None),
        (b"E", b"E", None),
        (b"I", b"I", Some(false)),
        (b"I", b"E", Some(false)),
    ],
    inside: &[(b"I", b"E", Some(true)), (b"I", b"I", Some(true))],
    end: &[(b"E", ANY, None)],
};

/// Whether (prev, cur) matches one of `patterns` on the strict reading
/// (seqeval's `Token._check_patterns`).
fn matches(patterns: &[Pattern], prev: Tag, cur: Tag) -> bool {
    patterns.iter().any(|(p, c, same)| {
        p.contains(&prev.strict_prefix)
            && c.contains(&cur.strict_prefix)
            && same.is_none_or(|s| s == (prev.strict_label == cur.strict_label))
    })
}

/// seqeval 1.2.2 strict mode on one sentence: `Tokens(tags, scheme)
/// .entities` (an entity that does not close properly is dropped), on
/// the strict reading of the tags. `None` when seqeval refuses a tag
/// ([`Tag::refused_by`]).
pub fn decode_discard(tags: &[Tag], scheme: Scheme) -> Option<Vec<(u32, u32, u32)>> {
    if tags.iter().any(|t| t.refused_by(scheme)) {
        return None;
    }
    let p = match scheme {
        Scheme::Bio => &IOB2,
        Scheme::Iob1 => &IOB1,
        Scheme::Iobes => &IOBES,
        Scheme::Bilou => &BILOU,
        Scheme::Ioe1 => &IOE1,
        Scheme::Ioe2 => &IOE2,
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
                out.push((i as u32, end as u32, token.strict_label));
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

    /// Label codes: PER = 0, LOC = 1, MISC = 2, `_` = 3, others from 4 in
    /// order of appearance.
    fn code(t: &str, extra: &mut Vec<String>) -> u32 {
        match t {
            "PER" => 0,
            "LOC" => 1,
            "MISC" => 2,
            "_" => 3,
            _ => match extra.iter().position(|x| x == t) {
                Some(k) => 4 + k as u32,
                None => {
                    extra.push(t.to_string());
                    3 + extra.len() as u32
                }
            },
        }
    }

    /// Tags of a sentence as the reader makes them.
    fn tags_with(s: &str, suffix: bool) -> Vec<Tag> {
        let mut extra = Vec::new();
        s.split_whitespace()
            .map(|t| {
                if t == "O" {
                    return Tag::O;
                }
                let r = read_tag(t, suffix).unwrap();
                let outside = |l: &str| r.prefix == b'O' && l == "_";
                let mut c = |l: &str| {
                    if outside(l) {
                        OUTSIDE
                    } else {
                        code(l, &mut extra)
                    }
                };
                Tag {
                    prefix: r.prefix,
                    label: c(r.label),
                    strict_prefix: r.strict_prefix,
                    strict_label: c(r.strict_label),
                    known: r.known,
                }
            })
            .collect()
    }

    fn tags(s: &str) -> Vec<Tag> {
        tags_with(s, false)
    }

    fn reading(t: &str, suffix: bool) -> (char, &str, char, &str, bool) {
        let r = read_tag(t, suffix).unwrap();
        let c = |b: u8| if b == 0 { '∅' } else { b as char };
        (
            c(r.prefix),
            r.label,
            c(r.strict_prefix),
            r.strict_label,
            r.known,
        )
    }

    /// spec 10: typeless, suffix and unknown tags read as seqeval reads
    /// them (`get_entities` and `Token`).
    #[test]
    fn tags_read_as_seqeval_reads_them() {
        assert_eq!(reading("B-PER", false), ('B', "PER", 'B', "PER", true));
        assert_eq!(reading("O", false), ('O', "_", 'O', "_", true));
        assert_eq!(reading("B", false), ('B', "_", 'B', "_", true));
        assert_eq!(reading("B-", false), ('B', "_", 'B', "_", true));
        assert_eq!(
            reading("I-ORG-X", false),
            ('I', "ORG-X", 'I', "ORG-X", true)
        );
        assert_eq!(reading("B--PER-", false), ('B', "-PER-", 'B', "PER", true));
        // A capital letter outside seqeval's prefixes: known, a KeyError.
        assert_eq!(reading("X-PER", false), ('X', "PER", '∅', "PER", true));
        // Unknown: seqeval's test_get_entities_with_non_NE_input.
        assert_eq!(reading("MISC", false), ('M', "ISC", '∅', "ISC", false));
        assert_eq!(reading("PER", false), ('P', "ER", '∅', "ER", false));
        assert_eq!(
            reading("BX-MISC", false),
            ('B', "MISC", 'B', "X-MISC", false)
        );
        assert_eq!(reading("B_ORG", false), ('B', "_ORG", 'B', "_ORG", false));
        assert_eq!(reading(".", false), ('.', "_", '∅', "_", false));
        assert_eq!(reading("b-PER", false), ('b', "PER", '∅', "PER", false));
        assert_eq!(reading("É-PER", false), ('∅', "PER", '∅', "PER", false));
        assert_eq!(reading("PER-B", false), ('P', "B", '∅', "ER-B", false));
        // suffix = true: the last character, the type before the last '-'.
        assert_eq!(
            reading("ORG-COMPANY-I", true),
            ('I', "ORG-COMPANY", 'I', "ORG-COMPANY", true)
        );
        assert_eq!(reading("PER-B", true), ('B', "PER", 'B', "PER", true));
        assert_eq!(reading("S", true), ('S', "_", 'S', "_", true));
        assert_eq!(reading("-S", true), ('S', "_", 'S', "_", true));
        assert_eq!(reading("B-PER", true), ('R', "B", '∅', "B-PE", false));
        assert_eq!(read_tag("", false), None);
        assert_eq!(read_tag("", true), None);
    }

    #[test]
    fn begin_reads_like_seqeval_get_entities() {
        let begin = |s: &str, scheme| decode_begin(&tags(s), scheme, 3);
        // seqeval README: get_entities(['B-PER','I-PER','O','B-LOC'])
        // = [('PER', 0, 1), ('LOC', 3, 3)].
        assert_eq!(
            begin("B-PER I-PER O B-LOC", Scheme::Bio),
            [(0, 2, 0), (3, 4, 1)]
        );
        // An I- after O opens an entity; a type change splits.
        assert_eq!(
            begin("O I-PER I-PER B-PER I-LOC", Scheme::Bio),
            [(1, 3, 0), (3, 4, 0), (4, 5, 1)]
        );
        // IOBES read by get_entities: B E I gives (0, 2) and then I opens.
        assert_eq!(
            begin("B-PER E-PER I-PER O E-LOC", Scheme::Iobes),
            [(0, 2, 0), (2, 3, 0), (4, 5, 1)]
        );
        // BILOU: U is S, L is E.
        assert_eq!(
            begin("U-PER B-LOC L-LOC", Scheme::Bilou),
            [(0, 1, 0), (1, 3, 1)]
        );
        // Typeless tags are of type `_` (test_get_entities_with_only_IOB).
        assert_eq!(begin("O O O B I I O", Scheme::Bio), [(3, 6, 3)]);
        assert_eq!(
            begin("B-PER I O B- I- B", Scheme::Bio),
            [(0, 1, 0), (1, 2, 3), (3, 5, 3), (5, 6, 3)]
        );
        // Unknown tags: MISC MISC MISC is one ISC entity, PER PER one ER
        // (test_get_entities_with_non_NE_input); '.' acts as O.
        let t = tags("O MISC MISC MISC O PER PER . B-LOC");
        let got = decode_begin(&t, Scheme::Bio, OUTSIDE);
        assert_eq!(got, [(1, 4, t[1].label), (5, 7, t[5].label), (8, 9, 1)]);
        // IOE: E closes, I after E opens.
        assert_eq!(
            begin("I-PER E-PER I-PER O", Scheme::Ioe2),
            [(0, 2, 0), (2, 3, 0)]
        );
    }

    /// The type of `O` is `_`, as a typeless tag's: an unknown prefix of
    /// type `_` (the tag `M`) does not end at `O`, and `M` after `O` opens
    /// nothing new.
    #[test]
    fn the_type_of_o_is_the_typeless_type() {
        let t = tags("B-PER M O M B-LOC");
        assert_eq!(
            decode_begin(&t, Scheme::Bio, 3),
            [(0, 1, 0), (1, 4, 3), (4, 5, 1)]
        );
    }

    #[test]
    fn discard_reads_like_seqeval_strict() {
        let discard = |s: &str, scheme| decode_discard(&tags(s), scheme);
        // seqeval docs: Tokens(['B-PER','I-PER','O','B-LOC'], IOB2)
        // .entities = [('PER', 0, 2), ('LOC', 3, 4)].
        assert_eq!(
            discard("B-PER I-PER O B-LOC", Scheme::Bio),
            Some(vec![(0, 2, 0), (3, 4, 1)])
        );
        // An I- without B- is dropped in IOB2.
        assert_eq!(
            discard("O I-PER I-PER O B-LOC", Scheme::Bio),
            Some(vec![(4, 5, 1)])
        );
        // IOB1: I- opens, B- splits same-type neighbours, B- after O drops.
        assert_eq!(
            discard("I-PER I-PER B-PER O B-LOC", Scheme::Iob1),
            Some(vec![(0, 2, 0), (2, 3, 0)])
        );
        // IOBES: B without E dropped; E without B dropped.
        assert_eq!(
            discard("B-PER I-PER O O E-LOC O S-MISC", Scheme::Iobes),
            Some(vec![(6, 7, 2)])
        );
        // A prefix outside the scheme, or no such prefix: seqeval refuses.
        assert_eq!(discard("S-PER", Scheme::Bio), None);
        assert_eq!(discard("O MISC", Scheme::Bio), None);
        assert_eq!(discard("B-PER", Scheme::Ioe2), None);
        // Token's type is stripped of '-': BX-MISC is of type X-MISC.
        let t = tags("BX-MISC IX-MISC");
        assert_eq!(
            decode_discard(&t, Scheme::Bio),
            Some(vec![(0, 2, t[0].strict_label)])
        );
        assert_ne!(t[0].strict_label, t[0].label);
    }

    /// seqeval's test_scheme.py IOE1 and IOE2 expectations, and the
    /// unfinished IOE1 (spec 10).
    #[test]
    fn ioe_schemes_read_like_seqeval() {
        let ioe1 = |s: &str| decode_discard(&tags(s), Scheme::Ioe1).unwrap();
        assert_eq!(ioe1("I-PER E-PER"), []);
        assert_eq!(ioe1("E-PER I-PER"), [(1, 2, 0)]);
        assert_eq!(ioe1("I-PER"), [(0, 1, 0)]);
        assert_eq!(ioe1("I-PER I-ORG"), [(0, 1, 0), (1, 2, 4)]);
        assert_eq!(ioe1("E-PER E-PER"), []);
        assert_eq!(ioe1("E-PER I-ORG"), [(1, 2, 4)]);
        assert_eq!(ioe1("I-PER E-PER I-PER O"), [(0, 2, 0), (2, 3, 0)]);
        let ioe2 = |s: &str| decode_discard(&tags(s), Scheme::Ioe2).unwrap();
        assert_eq!(ioe2("E-PER"), [(0, 1, 0)]);
        assert_eq!(ioe2("I-PER"), []);
        assert_eq!(ioe2("I-PER E-PER"), [(0, 2, 0)]);
        assert_eq!(ioe2("I-PER E-ORG"), [(1, 2, 4)]);
        assert_eq!(ioe2("E-PER E-PER"), [(0, 1, 0), (1, 2, 0)]);
        assert_eq!(ioe2("I E"), [(0, 2, 3)]);
        assert_eq!(
            ioe2("O I-LOC E-LOC E-LOC O I-ORG I-ORG E-ORG"),
            [(1, 3, 1), (3, 4, 1), (5, 8, 4)]
        );
    }

    #[test]
    fn suffix_tags_decode_like_prefix_tags() {
        let s = tags_with("PER-B PER-I O LOC-S ORG-COMPANY-B ORG-COMPANY-E", true);
        let p = tags("B-PER I-PER O S-LOC B-ORG-COMPANY E-ORG-COMPANY");
        assert_eq!(s, p);
        assert_eq!(
            decode_begin(&s, Scheme::Iobes, 3),
            [(0, 2, 0), (3, 4, 1), (4, 6, 4)]
        );
    }

    #[test]
    fn transitions_follow_the_spec_rule() {
        use Problem::*;
        let p = |s: &str, scheme| problems(&tags(s), scheme);
        assert_eq!(
            p("I-PER O B-PER I-LOC", Scheme::Bio),
            [Transition(0), Transition(3)]
        );
        assert_eq!(
            p("B-PER O I-PER I-PER B-PER", Scheme::Iob1),
            [Transition(0)]
        );
        // iobes: B then O, O then E; the end after B.
        assert_eq!(
            p("B-PER O E-LOC B-LOC", Scheme::Iobes),
            [Transition(1), Transition(2), Transition(4)]
        );
        // A prefix outside the scheme is counted apart.
        assert_eq!(p("S-PER O", Scheme::Bio), [Outside(0)]);
        assert!(p("U-PER B-LOC L-LOC", Scheme::Bilou).is_empty());
        // ioe2: every chunk ends in E; ioe1: E only before the same type.
        assert_eq!(
            p("I-PER O I-LOC E-LOC I-PER", Scheme::Ioe2),
            [Transition(1), Transition(5)]
        );
        assert_eq!(p("I-PER I-LOC E-LOC", Scheme::Ioe2), [Transition(1)]);
        assert_eq!(
            p("I-PER E-PER O E-LOC E-PER", Scheme::Ioe1),
            [Transition(2), Transition(4), Transition(5)]
        );
        assert_eq!(p("E-PER I-PER E-PER I-PER", Scheme::Ioe1), []);
        assert_eq!(p("B-PER E-PER", Scheme::Ioe2), [Outside(0)]);
        // Typeless tags are of one type, `_`.
        assert_eq!(p("B I O I", Scheme::Bio), [Transition(3)]);
        // Unknown tags take part in no transition (neither side of a pair).
        assert_eq!(p("MISC I-PER", Scheme::Bio), []);
        assert_eq!(p("B-PER b-PER I-PER O I-LOC", Scheme::Bio), [Transition(4)]);
    }
}
