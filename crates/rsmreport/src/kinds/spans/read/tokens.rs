//! Command assembly (spans), input layout C (`spec/spans.md` 2, 10):
//! token tags, as CoNLL columns (a blank line ends a sentence,
//! `-DOCSTART-` starts a document) or BIO JSON lines (one sentence per
//! line, the tag lists under the annotators' names). Every tag is read as
//! seqeval reads it (prefix-first or, with `suffix`, `TYPE-P`; unknown
//! tags stop the run or, with `unknown_tags = "warn"`, are read and
//! counted); every sentence is checked (invalid transitions, prefixes
//! outside the scheme), decoded both ways (`rsmreport_metrics::spans::tags`)
//! and, with a reference, its tags compared as written (`token_scores`).
//! Span offsets are token positions within the document.
//!
//! Reads the input file only; parses in-memory text otherwise; writes
//! nothing.

use std::collections::HashMap;

use anyhow::{anyhow, bail, Result};
use serde_json::Value;

use super::shared::{json_text, Index};
use super::{Data, Decoded, Sentence, Tokens};
use rsmreport_config::spans::{Format, Repair, SpansConfig, UnknownTags};
use rsmreport_core::table::FxBuild;
use rsmreport_metrics::spans::agreement::Span;
use rsmreport_metrics::spans::seqeval::TokenCounts;
use rsmreport_metrics::spans::tags::{self, Problem, Tag, OUTSIDE};

/// One sentence as read: per annotator its tags and their ids in
/// [`TagTable`], and the line of each token.
struct RawSentence {
    doc: usize,
    tags: Vec<Vec<Tag>>,
    ids: Vec<Vec<u32>>,
    lines: Vec<usize>,
}

impl RawSentence {
    fn new(doc: usize, n_annotators: usize) -> RawSentence {
        RawSentence {
            doc,
            tags: vec![Vec::new(); n_annotators],
            ids: vec![Vec::new(); n_annotators],
            lines: Vec::new(),
        }
    }
}

/// The distinct tag strings met so far, each with its reading; a tag's id
/// is its index (0 is `O`), so equal ids are equal strings
/// (`token_scores` compares tags as written). A token file has a few dozen
/// distinct tags and millions of tokens: the first [`TagTable::SCANNED`]
/// are found by a scan (faster than hashing for so few), any later ones
/// through a map.
struct TagTable {
    texts: Vec<Box<str>>,
    tags: Vec<Tag>,
    later: HashMap<Box<str>, u32, FxBuild>,
}

impl TagTable {
    const SCANNED: usize = 64;

    fn new() -> TagTable {
        TagTable {
            texts: vec!["O".into()],
            tags: vec![Tag::O],
            later: HashMap::default(),
        }
    }

    /// The id of `t`, if met before.
    fn find(&self, t: &str) -> Option<u32> {
        let scanned = &self.texts[..self.texts.len().min(Self::SCANNED)];
        match scanned.iter().position(|x| **x == *t) {
            Some(id) => Some(id as u32),
            None => self.later.get(t).copied(),
        }
    }

    /// Adds `t`, read as `tag`: its id.
    fn add(&mut self, t: &str, tag: Tag) -> u32 {
        let id = self.texts.len() as u32;
        if self.texts.len() >= Self::SCANNED {
            self.later.insert(t.into(), id);
        }
        self.texts.push(t.into());
        self.tags.push(tag);
        id
    }
}

/// Format C's reading state: labels, documents, sentences decoded so far.
struct TokenReader<'c> {
    cfg: &'c SpansConfig,
    file: String,
    annotators: Vec<String>,
    /// The reference's index, when there is one (`token_scores`).
    reference: Option<usize>,
    labels: Index,
    docs: Index,
    subgroups: Vec<(String, Vec<Option<String>>)>,
    tokens: Tokens,
    doc_len: Vec<u32>,
    table: TagTable,
}

impl<'c> TokenReader<'c> {
    fn new(cfg: &'c SpansConfig) -> TokenReader<'c> {
        let annotators = cfg.annotators.clone().unwrap_or_default();
        let na = annotators.len();
        let reference = cfg
            .reference
            .as_ref()
            .and_then(|r| annotators.iter().position(|a| a == r));
        TokenReader {
            cfg,
            file: cfg.input_file.display().to_string(),
            annotators,
            reference,
            labels: Index::default(),
            docs: Index::default(),
            subgroups: cfg
                .subgroups
                .iter()
                .map(|g| (g.clone(), Vec::new()))
                .collect(),
            tokens: Tokens {
                begin: vec![Vec::new(); na],
                discard: vec![Some(Vec::new()); na],
                invalid: vec![0; na],
                outside: vec![0; na],
                first_problem: vec![None; na],
                unknown: vec![0; na],
                first_unknown: vec![None; na],
                strict_refusal: vec![None; na],
                token_counts: vec![TokenCounts::default(); na],
                ..Default::default()
            },
            doc_len: Vec::new(),
            table: TagTable::new(),
        }
    }

    /// The tag `t` of annotator `col` on `line` into `s`: its reading and
    /// id; an unknown tag is counted where it is allowed (spec 10) and an
    /// error naming the line and the annotator's column elsewhere.
    fn push_tag(&mut self, s: &mut RawSentence, t: &str, line: usize, col: usize) -> Result<()> {
        let (tag, id) = match self.table.find(t) {
            Some(id) => (self.table.tags[id as usize], id),
            None => self.new_tag(t, line, col)?,
        };
        if !tag.known {
            self.tokens.unknown[col] += 1;
            if self.tokens.first_unknown[col].is_none() {
                self.tokens.first_unknown[col] = Some((line, t.to_string()));
            }
        }
        s.tags[col].push(tag);
        s.ids[col].push(id);
        Ok(())
    }

    /// Reads a tag not met before (its types get label codes).
    fn new_tag(&mut self, t: &str, line: usize, col: usize) -> Result<(Tag, u32)> {
        let allowed =
            self.cfg.unknown_tags == UnknownTags::Warn && self.cfg.repair == Repair::Begin;
        let r = match tags::read_tag(t, self.cfg.suffix) {
            Some(r) if r.known || allowed => r,
            other => bail!(
                "{} line {line}, column '{}': {}",
                self.file,
                self.annotators[col],
                unknown_message(self.cfg, t, other.is_none())
            ),
        };
        // The type `_` of `O` and `.` (which never name an entity) keeps
        // the code OUTSIDE, which decode_begin equates with `_`: no label
        // `_` unless a tag that can open an entity has it.
        let mut code = |l: &str| match (r.prefix, l) {
            (b'O' | b'.', "_") => OUTSIDE,
            _ => self.labels.code(l),
        };
        let tag = Tag {
            prefix: r.prefix,
            label: code(r.label),
            strict_prefix: r.strict_prefix,
            strict_label: code(r.strict_label),
            known: r.known,
        };
        Ok((tag, self.table.add(t, tag)))
    }

    /// A new document named `key` (its subgroup levels from `level`).
    fn document(&mut self, key: &str, level: impl Fn(&str) -> Option<String>) -> usize {
        let d = self.docs.get(key);
        if d == self.doc_len.len() {
            self.doc_len.push(0);
            for (name, levels) in self.subgroups.iter_mut() {
                levels.push(level(name));
            }
        }
        d
    }

    /// A numbered document (`1, 2, ...` in file order).
    fn numbered(&mut self) -> usize {
        let key = (self.docs.names.len() + 1).to_string();
        self.document(&key, |_| None)
    }

    /// The column of each annotator in a CoNLL line.
    fn conll_columns(&self) -> Result<Vec<usize>> {
        let cols = &self.cfg.columns;
        self.annotators
            .iter()
            .map(|a| {
                cols.iter().position(|c| c == a).ok_or_else(|| {
                    anyhow!(
                        "{}: the annotator '{a}' is not one of the columns ({})",
                        self.file,
                        cols.join(", ")
                    )
                })
            })
            .collect()
    }

    /// CoNLL columns: a blank line ends a sentence, `-DOCSTART-` starts a
    /// document (without any, every sentence is one).
    fn conll(&mut self, text: &str) -> Result<()> {
        let cols = self.conll_columns()?;
        let n_columns = self.cfg.columns.len();
        let mut cur: Option<RawSentence> = None;
        let mut doc: Option<usize> = None;
        let mut fields: Vec<&str> = Vec::with_capacity(n_columns + 1);
        for (k, raw) in text.lines().enumerate() {
            let line = k + 1;
            fields.clear();
            fields.extend(raw.split_whitespace());
            if fields.is_empty() || fields[0] == "-DOCSTART-" {
                if let Some(s) = cur.take() {
                    self.sentence(s)?;
                }
                if !fields.is_empty() {
                    doc = Some(self.numbered());
                }
                continue;
            }
            if fields.len() != n_columns {
                bail!(
                    "{} line {line}: {} fields, but columns names {} ({})",
                    self.file,
                    fields.len(),
                    n_columns,
                    self.cfg.columns.join(", ")
                );
            }
            if cur.is_none() {
                let d = match doc {
                    Some(d) => d,
                    None => self.numbered(),
                };
                cur = Some(RawSentence::new(d, cols.len()));
            }
            let s = cur.as_mut().expect("a sentence");
            for (a, &c) in cols.iter().enumerate() {
                self.push_tag(s, fields[c], line, a)?;
            }
            s.lines.push(line);
        }
        match cur.take() {
            Some(s) => self.sentence(s),
            None => Ok(()),
        }
    }

    /// BIO JSON lines: one sentence per line, the tag lists under the
    /// annotators' names.
    fn bio_jsonl(&mut self, text: &str) -> Result<()> {
        for (k, raw) in text.lines().enumerate() {
            let line = k + 1;
            if raw.trim().is_empty() {
                continue;
            }
            let file = &self.file;
            let v: Value = serde_json::from_str(raw)
                .map_err(|e| anyhow!("{file} line {line}: not a JSON object: {e}"))?;
            let d = match &self.cfg.document_key {
                Some(dk) => {
                    let key = v
                        .get(dk)
                        .and_then(json_text)
                        .ok_or_else(|| anyhow!("{file} line {line}: no document (key '{dk}')"))?;
                    self.document(&key, |g| v.get(g).and_then(json_text))
                }
                None => {
                    let key = (self.docs.names.len() + 1).to_string();
                    self.document(&key, |g| v.get(g).and_then(json_text))
                }
            };
            let mut s = RawSentence::new(d, self.annotators.len());
            let mut n = None;
            for a in 0..self.annotators.len() {
                let name = &self.annotators[a];
                let list = v.get(name).and_then(Value::as_array).ok_or_else(|| {
                    anyhow!(
                        "{} line {line}: key '{name}' (a list of tags) is missing",
                        self.file
                    )
                })?;
                if *n.get_or_insert(list.len()) != list.len() {
                    bail!(
                        "{} line {line}, key '{name}': {} tags, but another annotator has {}",
                        self.file,
                        list.len(),
                        n.unwrap()
                    );
                }
                for x in list {
                    self.push_tag(&mut s, x.as_str().unwrap_or(""), line, a)?;
                }
            }
            s.lines = vec![line; n.unwrap_or(0)];
            self.sentence(s)?;
        }
        Ok(())
    }

    /// Labels in code-point order, every (document, annotator)'s spans of
    /// the headline reading (`discard` under repair = "discard").
    fn finish(self) -> Result<Data> {
        let TokenReader {
            cfg,
            annotators,
            labels,
            docs,
            subgroups,
            mut tokens,
            ..
        } = self;
        let (labels, lmap) = labels.sorted();
        let remap = |v: &mut Decoded| v.iter_mut().for_each(|x| x.2 = lmap[x.2 as usize]);
        tokens.begin.iter_mut().flatten().for_each(remap);
        tokens
            .discard
            .iter_mut()
            .flatten()
            .flatten()
            .for_each(remap);
        let (nd, na) = (docs.names.len(), annotators.len());
        let mut spans = vec![vec![Vec::new(); na]; nd];
        for (a, (discard, begin)) in tokens.discard.iter().zip(&tokens.begin).enumerate() {
            let decoded = if cfg.repair == Repair::Discard {
                discard
                    .as_ref()
                    .expect("repair = discard stops at a prefix outside the scheme")
            } else {
                begin
            };
            for (s, sent) in tokens.sentences.iter().zip(decoded) {
                spans[s.doc as usize][a].extend(sent.iter().map(|&(b, e, l)| Span {
                    start: b + s.offset,
                    end: e + s.offset,
                    label: l,
                }));
            }
        }
        Ok(Data {
            annotators,
            documents: docs.names,
            texts: vec![None; nd],
            labels,
            covered: vec![vec![true; na]; nd],
            spans,
            subgroups,
            tokens: Some(tokens),
            skipped: Vec::new(),
            inputs: Vec::new(),
        })
    }
}

/// Format C: CoNLL columns or BIO JSON lines.
pub(super) fn read(cfg: &SpansConfig) -> Result<Data> {
    let path = &cfg.input_file;
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow!("{}: cannot read the file: {e}", path.display()))?;
    from_text(cfg, &text)
}

/// The text of a token file (`cfg.input_file` in messages).
fn from_text(cfg: &SpansConfig, text: &str) -> Result<Data> {
    let mut r = TokenReader::new(cfg);
    if cfg.format == Format::Conll {
        r.conll(text)?;
    } else {
        r.bio_jsonl(text)?;
    }
    r.finish()
}

/// The message of a tag seqeval cannot read (`empty`) or of no known
/// form where unknown tags are not allowed.
fn unknown_message(cfg: &SpansConfig, t: &str, empty: bool) -> String {
    let form = if cfg.suffix {
        "O, or a capital prefix letter alone or after a type and a hyphen, as B or PER-B"
    } else {
        "O, or a capital prefix letter alone or followed by a hyphen and a type, as B or B-PER"
    };
    let hint = match (empty, cfg.repair) {
        (true, _) => "",
        (false, Repair::Begin) => "; unknown_tags = \"warn\" reads it as seqeval does",
        (false, _) => "; unknown_tags = \"warn\" applies with repair = \"begin\" only",
    };
    format!("the tag \"{t}\" is malformed (expected {form}){hint}")
}

/// The first problem of a sentence (line, annotator, message).
type First = Option<(usize, usize, String)>;

impl TokenReader<'_> {
    /// Checks, compares and decodes one sentence.
    fn sentence(&mut self, s: RawSentence) -> Result<()> {
        let n = s.lines.len();
        let offset = self.doc_len[s.doc];
        self.doc_len[s.doc] += n as u32;
        self.tokens.sentences.push(Sentence {
            doc: s.doc as u32,
            offset,
            len: n as u32,
        });
        self.tokens.n_tokens += n as u64;
        let (first, first_outside) = self.problems(&s);
        self.compare(&s);
        let underscore = self.labels.find("_").map_or(OUTSIDE, |c| c as u32);
        let scheme = self.cfg.scheme;
        for (a, tags) in s.tags.iter().enumerate() {
            self.tokens.begin[a].push(tags::decode_begin(tags, scheme, underscore));
            let strict = tags::decode_discard(tags, scheme);
            if strict.is_none() && self.tokens.strict_refusal[a].is_none() {
                self.tokens.strict_refusal[a] = Some(self.refusal(&s, a));
            }
            match (&mut self.tokens.discard[a], strict) {
                (Some(v), Some(d)) => v.push(d),
                (slot, _) => *slot = None,
            }
        }
        let file = &self.file;
        match (self.cfg.repair, first, first_outside) {
            (Repair::Error, Some((line, a, msg)), _) => {
                bail!("{file} line {line}, column '{}': {msg}", self.annotators[a])
            }
            (Repair::Discard, _, Some((line, a, msg))) => bail!(
                "{file} line {line}, column '{}': {msg}; seqeval's strict mode (repair = \"discard\") refuses it",
                self.annotators[a]
            ),
            _ => Ok(()),
        }
    }

    /// Counts the sentence's invalid transitions and prefixes outside the
    /// scheme; the first problem and the first prefix outside the scheme,
    /// in file order, then in annotator order.
    fn problems(&mut self, s: &RawSentence) -> (First, First) {
        let n = s.lines.len();
        let scheme = self.cfg.scheme;
        let text = |a: usize, i: usize| -> &str { &self.table.texts[s.ids[a][i] as usize] };
        let (mut first, mut first_outside): (First, First) = (None, None);
        for (a, tags) in s.tags.iter().enumerate() {
            for p in tags::problems(tags, scheme) {
                let (pos, msg) = match p {
                    Problem::Outside(i) => {
                        self.tokens.outside[a] += 1;
                        let msg = format!(
                            "prefix outside the scheme {}: {}",
                            scheme.name(),
                            text(a, i)
                        );
                        (i, msg)
                    }
                    Problem::Transition(i) => {
                        self.tokens.invalid[a] += 1;
                        let prev = if i == 0 { "(start)" } else { text(a, i - 1) };
                        let cur = if i == n { "(end)" } else { text(a, i) };
                        let msg = format!(
                            "invalid transition {prev} -> {cur} (scheme {})",
                            scheme.name()
                        );
                        (i, msg)
                    }
                };
                let line = s.lines[pos.min(n - 1)];
                if self.tokens.first_problem[a].is_none() {
                    self.tokens.first_problem[a] = Some((line, msg.clone()));
                }
                if matches!(p, Problem::Outside(_))
                    && first_outside.as_ref().is_none_or(|f| line < f.0)
                {
                    first_outside = Some((line, a, msg.clone()));
                }
                if first.as_ref().is_none_or(|f| line < f.0) {
                    first = Some((line, a, msg));
                }
            }
        }
        (first, first_outside)
    }

    /// With a reference, every other annotator's tags against it as
    /// written (`token_scores`, spec 10).
    fn compare(&mut self, s: &RawSentence) {
        let Some(r) = self.reference else { return };
        let truth = &s.ids[r];
        for (a, pred) in s.ids.iter().enumerate().filter(|(a, _)| *a != r) {
            let c = &mut self.tokens.token_counts[a];
            for (&t, &p) in truth.iter().zip(pred) {
                c.add(t == p, t == 0, p == 0);
            }
        }
    }

    /// Why seqeval's strict mode refuses annotator `a`'s tags in `s`: its
    /// first refused tag.
    fn refusal(&self, s: &RawSentence, a: usize) -> String {
        let scheme = self.cfg.scheme;
        let i = s.tags[a]
            .iter()
            .position(|t| t.refused_by(scheme))
            .expect("a refused tag");
        let t = &self.table.texts[s.ids[a][i] as usize];
        if s.tags[a][i].strict_prefix == 0 {
            let p = if self.cfg.suffix {
                t.chars().next_back()
            } else {
                t.chars().next()
            };
            format!(
                "\"{t}\" on line {}: seqeval has no prefix \"{}\"",
                s.lines[i],
                p.unwrap_or_default()
            )
        } else {
            format!("a prefix outside the scheme {}", scheme.name())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{config, err, span};
    use super::*;

    const CONLL: &str = "input_file = \"in.conll\"\nformat = \"conll\"\ncolumns = [\"token\", \"gold\", \"sys\"]\nannotators = [\"gold\", \"sys\"]\n";
    const JSONL: &str =
        "input_file = \"in.jsonl\"\nformat = \"bio_jsonl\"\nannotators = [\"gold\", \"sys\"]\n";

    /// `-DOCSTART-` starts a document; offsets are token positions within
    /// the document, across its sentences; tokens may be any text.
    #[test]
    fn conll_documents_sentences_and_offsets() {
        let text = "-DOCSTART- O O

Zoë B-PER B-PER
Łódź I-PER B-LOC

🙂 O O
in O O
Oslo B-LOC B-LOC
-DOCSTART- O O
Bo B-PER O
";
        let d = from_text(&config(CONLL), text).unwrap();
        assert_eq!(d.documents, ["1", "2"]);
        assert_eq!(d.labels, ["LOC", "PER"]);
        assert_eq!(d.spans[0][0], [span(0, 2, 1), span(4, 5, 0)]);
        assert_eq!(d.spans[0][1], [span(0, 1, 1), span(1, 2, 0), span(4, 5, 0)]);
        assert_eq!(d.spans[1][0], [span(0, 1, 1)]);
        assert!(d.spans[1][1].is_empty());
        let t = d.tokens.unwrap();
        assert_eq!(t.n_tokens, 6);
        let s: Vec<(u32, u32, u32)> = t
            .sentences
            .iter()
            .map(|s| (s.doc, s.offset, s.len))
            .collect();
        assert_eq!(s, [(0, 0, 2), (0, 2, 3), (1, 0, 1)]);
        // Without -DOCSTART- every sentence is a document.
        let d = from_text(&config(CONLL), "a O O\n\nb O O\n\n\nc O O").unwrap();
        assert_eq!(d.documents, ["1", "2", "3"]);
    }

    #[test]
    fn crlf_reads_as_lf() {
        let lf = "John B-PER B-PER\nSmith I-PER O\n\nin O O\nOslo B-LOC I-LOC\n";
        let x = from_text(&config(CONLL), lf).unwrap();
        let y = from_text(&config(CONLL), &lf.replace('\n', "\r\n")).unwrap();
        assert_eq!((&x.spans, &x.documents), (&y.spans, &y.documents));
        let json = "{\"gold\": [\"B-PER\", \"O\"], \"sys\": [\"B-PER\", \"B-LOC\"]}\n{\"gold\": [], \"sys\": []}\n";
        let x = from_text(&config(JSONL), json).unwrap();
        let y = from_text(&config(JSONL), &json.replace('\n', "\r\n")).unwrap();
        assert_eq!(x.spans, y.spans);
        assert_eq!(x.documents, ["1", "2"]);
    }

    /// BIO JSON lines: lines with the same `document_key` value form one
    /// document (numbers as text); subgroup levels from the line's keys.
    #[test]
    fn bio_jsonl_documents_by_key() {
        let cfg = config(&format!(
            "{JSONL}document_key = \"doc\"\nsubgroups = [\"genre\"]\n"
        ));
        let text = "{\"doc\": 7, \"genre\": \"news\", \"gold\": [\"B-PER\"], \"sys\": [\"O\"]}

{\"doc\": \"x\", \"gold\": [\"O\", \"B-PER\"], \"sys\": [\"O\", \"B-PER\"]}
{\"doc\": 7, \"gold\": [\"I-PER\", \"B-PER\"], \"sys\": [\"B-PER\", \"I-PER\"]}
";
        let d = from_text(&cfg, text).unwrap();
        assert_eq!(d.documents, ["7", "x"]);
        assert_eq!(
            d.subgroups,
            [("genre".to_string(), vec![Some("news".to_string()), None])]
        );
        // Document 7: its second line starts at token 1; I-PER after the
        // sentence break opens a new entity (default mode).
        assert_eq!(d.spans[0][0], [span(0, 1, 0), span(1, 2, 0), span(2, 3, 0)]);
        assert_eq!(d.spans[0][1], [span(1, 3, 0)]);
        assert_eq!(d.spans[1][1], [span(1, 2, 0)]);
    }

    #[test]
    fn invalid_transitions_are_counted_with_the_first_named() {
        let text = "a O O\nb I-PER O\n\nc B-PER I-LOC\nd O S-PER\n";
        let d = from_text(&config(CONLL), text).unwrap();
        let t = d.tokens.unwrap();
        assert_eq!(t.invalid, [1, 1]);
        assert_eq!(t.outside, [0, 1]);
        assert_eq!(
            t.first_problem,
            [
                Some((2, "invalid transition O -> I-PER (scheme bio)".to_string())),
                Some((
                    4,
                    "invalid transition (start) -> I-LOC (scheme bio)".to_string()
                ))
            ]
        );
        // seqeval's strict mode refuses the S- of sys: no strict reading.
        assert!(t.discard[0].is_some() && t.discard[1].is_none());
        let cfg = config(&format!("{CONLL}repair = \"error\"\n"));
        assert_eq!(
            err(from_text(&cfg, text)),
            "in.conll line 2, column 'gold': invalid transition O -> I-PER (scheme bio)"
        );
        let cfg = config(&format!("{CONLL}repair = \"error\"\nscheme = \"iobes\"\n"));
        assert_eq!(
            err(from_text(&cfg, "a B-PER S-PER\n")),
            "in.conll line 1, column 'gold': invalid transition B-PER -> (end) (scheme iobes)"
        );
    }

    /// issue 50: with `repair = "discard"` a prefix outside the scheme
    /// names the line and the tag, as with `repair = "error"` (the first in
    /// file order, then in annotator order).
    #[test]
    fn discard_names_the_line_and_tag_of_a_prefix_outside_the_scheme() {
        let text = "a O O\nb B-PER B-PER\n\nc O S-LOC\nd E-PER S-PER\n";
        let cfg = config(&format!("{CONLL}repair = \"discard\"\n"));
        assert_eq!(
            err(from_text(&cfg, text)),
            "in.conll line 4, column 'sys': prefix outside the scheme bio: S-LOC; seqeval's strict mode (repair = \"discard\") refuses it"
        );
        let cfg = config(&format!("{CONLL}repair = \"error\"\n"));
        assert_eq!(
            err(from_text(&cfg, text)),
            "in.conll line 4, column 'sys': prefix outside the scheme bio: S-LOC"
        );
        // Ties on one line: the first annotator.
        let cfg = config(&format!("{CONLL}repair = \"discard\"\n"));
        assert_eq!(
            err(from_text(&cfg, "d E-PER S-PER\n")),
            "in.conll line 1, column 'gold': prefix outside the scheme bio: E-PER; seqeval's strict mode (repair = \"discard\") refuses it"
        );
    }

    #[test]
    fn bad_lines_and_tags_name_file_line_and_column() {
        let cfg = config(CONLL);
        assert_eq!(
            err(from_text(&cfg, "a O O\nb O\n")),
            "in.conll line 2: 2 fields, but columns names 3 (token, gold, sys)"
        );
        assert_eq!(
            err(from_text(&cfg, "a O O\nb B-PER b-PER\n")),
            "in.conll line 2, column 'sys': the tag \"b-PER\" is malformed (expected O, or a capital prefix letter alone or followed by a hyphen and a type, as B or B-PER); unknown_tags = \"warn\" reads it as seqeval does"
        );
        let cfg = config(&format!("{JSONL}document_key = \"doc\"\n"));
        assert!(err(from_text(&cfg, "[1,\n")).starts_with("in.jsonl line 1: not a JSON object: "));
        assert_eq!(
            err(from_text(&cfg, "{\"gold\": [], \"sys\": []}\n")),
            "in.jsonl line 1: no document (key 'doc')"
        );
        let cfg = config(JSONL);
        assert_eq!(
            err(from_text(&cfg, "{\"gold\": [\"O\"]}\n")),
            "in.jsonl line 1: key 'sys' (a list of tags) is missing"
        );
        assert_eq!(
            err(from_text(
                &cfg,
                "{\"gold\": [\"O\"], \"sys\": [\"O\", \"O\"]}\n"
            )),
            "in.jsonl line 1, key 'sys': 2 tags, but another annotator has 1"
        );
        assert_eq!(
            err(from_text(&cfg, "{\"gold\": [\"O\"], \"sys\": [3]}\n")),
            "in.jsonl line 1, column 'sys': the tag \"\" is malformed (expected O, or a capital prefix letter alone or followed by a hyphen and a type, as B or B-PER)"
        );
        let cfg = config("input_file = \"in.conll\"\nformat = \"conll\"\ncolumns = [\"token\", \"gold\"]\nannotators = [\"gold\", \"sys\"]\n");
        assert_eq!(
            err(from_text(&cfg, "a O\n")),
            "in.conll: the annotator 'sys' is not one of the columns (token, gold)"
        );
    }

    fn labels_of(d: &Data, a: usize) -> Vec<(u32, u32, &str)> {
        d.spans
            .iter()
            .flat_map(|doc| doc[a].iter())
            .map(|s| (s.start, s.end, d.labels[s.label as usize].as_str()))
            .collect()
    }

    /// spec 10: a bare prefix (or `B-`) is of type `_`, in both readings.
    #[test]
    fn typeless_tags_are_of_type_underscore() {
        let text = "{\"gold\": [\"B\", \"I\", \"O\", \"B-\", \"I-PER\"], \"sys\": [\"B\", \"I\", \"O\", \"I\", \"B-PER\"]}\n";
        let d = from_text(&config(JSONL), text).unwrap();
        assert_eq!(d.labels, ["PER", "_"]);
        assert_eq!(labels_of(&d, 0), [(0, 2, "_"), (3, 4, "_"), (4, 5, "PER")]);
        assert_eq!(labels_of(&d, 1), [(0, 2, "_"), (3, 4, "_"), (4, 5, "PER")]);
        let t = d.tokens.unwrap();
        // I- after B- of the same (empty) type is valid; I-PER after B- is not.
        assert_eq!(t.invalid, [1, 1]);
        assert_eq!(t.unknown, [0, 0]);
    }

    /// spec 10: `suffix = true` reads `TYPE-P`; a prefix-first tag is then
    /// unknown.
    #[test]
    fn suffix_tags_read_type_then_prefix() {
        let cfg = config(&format!("{CONLL}suffix = true\nscheme = \"iobes\"\n"));
        let text =
            "a ORG-COMPANY-B ORG-COMPANY-B\nb ORG-COMPANY-E ORG-COMPANY-I\nc O S\nd PER-S -S\n";
        let d = from_text(&cfg, text).unwrap();
        assert_eq!(labels_of(&d, 0), [(0, 2, "ORG-COMPANY"), (3, 4, "PER")]);
        assert_eq!(
            labels_of(&d, 1),
            [(0, 2, "ORG-COMPANY"), (2, 3, "_"), (3, 4, "_")]
        );
        assert_eq!(
            err(from_text(&cfg, "a B-PER PER-B\n")),
            "in.conll line 1, column 'gold': the tag \"B-PER\" is malformed (expected O, or a capital prefix letter alone or after a type and a hyphen, as B or PER-B); unknown_tags = \"warn\" reads it as seqeval does"
        );
    }

    /// spec 10: `unknown_tags = "warn"` reads unknown tags as seqeval's
    /// get_entities does and counts them; strict mode refuses the prefixes
    /// seqeval does not have.
    #[test]
    fn unknown_tags_warn_reads_them_as_seqeval_and_counts_them() {
        let cfg = config(&format!(
            "{JSONL}unknown_tags = \"warn\"\nreference = \"gold\"\n"
        ));
        let text = "{\"gold\": [\"B-MISC\", \"I-MISC\", \"I-MISC\", \"O\", \"B-ORG\"], \"sys\": [\"MISC\", \"MISC\", \"MISC\", \".\", \"B_ORG\"]}
{\"gold\": [\"B-PER\", \"I-PER\"], \"sys\": [\"BX-PER\", \"IX-PER\"]}
";
        let d = from_text(&cfg, text).unwrap();
        // Every line is a document: offsets restart.
        assert_eq!(
            labels_of(&d, 1),
            [(0, 3, "ISC"), (4, 5, "_ORG"), (0, 2, "PER")]
        );
        assert_eq!(d.labels, ["ISC", "MISC", "ORG", "PER", "X-PER", "_ORG"]);
        let t = d.tokens.unwrap();
        assert_eq!(t.unknown, [0, 7]);
        assert_eq!(t.first_unknown, [None, Some((1, "MISC".to_string()))]);
        assert_eq!(
            t.strict_refusal,
            [
                None,
                Some("\"MISC\" on line 1: seqeval has no prefix \"M\"".to_string())
            ]
        );
        assert!(t.discard[1].is_none());
        // Unknown tags take part in no transition.
        assert_eq!((t.invalid[1], t.outside[1]), (0, 0));
        // With discard or error, or an empty tag, an unknown tag stays an
        // error.
        let discard = config(&format!(
            "{JSONL}unknown_tags = \"warn\"\nrepair = \"discard\"\n"
        ));
        assert_eq!(
            err(from_text(&discard, text)),
            "in.jsonl line 1, column 'sys': the tag \"MISC\" is malformed (expected O, or a capital prefix letter alone or followed by a hyphen and a type, as B or B-PER); unknown_tags = \"warn\" applies with repair = \"begin\" only"
        );
        assert_eq!(
            err(from_text(&cfg, "{\"gold\": [\"O\"], \"sys\": [\"\"]}\n")),
            "in.jsonl line 1, column 'sys': the tag \"\" is malformed (expected O, or a capital prefix letter alone or followed by a hyphen and a type, as B or B-PER)"
        );
    }

    /// spec 10: token_scores compare tags as written, before the bilou
    /// mapping (`S-PER` is not `U-PER`), every system against the reference.
    #[test]
    fn token_counts_compare_tags_as_written() {
        let cfg = config(
            "input_file = \"in.conll\"\nformat = \"conll\"\ncolumns = [\"token\", \"sys\", \"gold\", \"other\"]\nannotators = [\"sys\", \"gold\", \"other\"]\nreference = \"gold\"\nscheme = \"bilou\"\n",
        );
        let text = "a S-PER U-PER U-PER\nb O O B-LOC\nc B-LOC B-LOC L-LOC\n\nd L-LOC O O\n";
        let d = from_text(&cfg, text).unwrap();
        let t = d.tokens.as_ref().unwrap();
        let c = |k: usize| {
            let c = t.token_counts[k];
            (c.tokens, c.matching, c.tp, c.fp, c.fn_, c.tn)
        };
        assert_eq!(c(0), (4, 2, 1, 2, 0, 1));
        assert_eq!(c(1), (0, 0, 0, 0, 0, 0));
        assert_eq!(c(2), (4, 2, 1, 2, 0, 1));
        assert_eq!(t.token_counts[0].accuracy(), 0.5);
        // The default reading maps S to U's entity: both find PER [0, 1).
        assert_eq!(labels_of(&d, 0)[0], (0, 1, "PER"));
        // Strict BILOU refuses S.
        assert_eq!(
            t.strict_refusal[0].as_deref(),
            Some("a prefix outside the scheme bilou")
        );
    }

    /// spec 10: IOE2 with repair = "discard" keeps the chunks that reach E.
    #[test]
    fn ioe2_discard_drops_chunks_without_e() {
        let cfg = config(&format!("{CONLL}scheme = \"ioe2\"\nrepair = \"discard\"\n"));
        // gold: I-PER E-PER O I-LOC O; sys: I-PER E-PER O E-LOC I-ORG.
        let text = "a I-PER I-PER\nb E-PER E-PER\nc O O\nd I-LOC E-LOC\ne O I-ORG\n";
        let d = from_text(&cfg, text).unwrap();
        assert_eq!(labels_of(&d, 0), [(0, 2, "PER")]);
        assert_eq!(labels_of(&d, 1), [(0, 2, "PER"), (3, 4, "LOC")]);
        let t = d.tokens.unwrap();
        // I-PER -> E-PER is valid; I-LOC -> O and I-ORG -> (end) are not.
        assert_eq!(t.invalid, [1, 1]);
        assert_eq!(
            t.first_problem[1],
            Some((
                5,
                "invalid transition I-ORG -> (end) (scheme ioe2)".to_string()
            ))
        );
    }
}
