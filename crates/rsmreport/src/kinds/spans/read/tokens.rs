//! Command assembly (spans), input layout C (`spec/spans.md` 2): token
//! tags, as CoNLL columns (a blank line ends a sentence, `-DOCSTART-`
//! starts a document) or BIO JSON lines (one sentence per line, the tag
//! lists under the annotators' names). Every sentence is checked (invalid
//! transitions, prefixes outside the scheme) and decoded both ways
//! (`rsmreport_metrics::spans::tags`); span offsets are token positions
//! within the document.
//!
//! Reads the input file only; parses in-memory text otherwise; writes
//! nothing.

use anyhow::{anyhow, bail, Result};
use serde_json::Value;

use super::shared::{json_text, Index, Interner};
use super::{Data, Decoded, Sentence, Tokens};
use rsmreport_config::spans::{Format, Repair, SpansConfig};
use rsmreport_metrics::spans::agreement::Span;
use rsmreport_metrics::spans::tags::{self, Problem, Tag};

/// One sentence as read: per annotator its tags, and the line of each
/// token.
struct RawSentence {
    doc: usize,
    tags: Vec<Vec<Tag>>,
    lines: Vec<usize>,
}

/// The tags met so far with their parse, looked up before parsing again
/// (a token file has a few dozen distinct tags and millions of tokens).
const TAG_CACHE: usize = 64;

/// Format C's reading state: labels, documents, sentences decoded so far.
struct TokenReader<'c> {
    cfg: &'c SpansConfig,
    file: String,
    annotators: Vec<String>,
    labels: Interner,
    docs: Index,
    subgroups: Vec<(String, Vec<Option<String>>)>,
    tokens: Tokens,
    doc_len: Vec<u32>,
    cache: Vec<(Box<str>, Tag)>,
}

impl<'c> TokenReader<'c> {
    fn new(cfg: &'c SpansConfig) -> TokenReader<'c> {
        let annotators = cfg.annotators.clone().unwrap_or_default();
        let na = annotators.len();
        TokenReader {
            cfg,
            file: cfg.input_file.display().to_string(),
            annotators,
            labels: Interner::default(),
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
                ..Default::default()
            },
            doc_len: Vec::new(),
            cache: Vec::new(),
        }
    }

    /// A tag's prefix and label code; a malformed tag is an error naming
    /// the line and the annotator's column.
    fn tag(&mut self, t: &str, line: usize, col: usize) -> Result<Tag> {
        if let Some((_, tag)) = self.cache.iter().find(|(k, _)| **k == *t) {
            return Ok(*tag);
        }
        let tag = match tags::split_tag(t) {
            Some((b'O', _)) => Tag::O,
            Some((p, ty)) => Tag {
                prefix: p,
                label: self.labels.code(ty),
            },
            None => bail!(
                "{} line {line}, column '{}': the tag \"{t}\" is malformed (expected O or a prefix letter, a hyphen and a type, as B-PER)",
                self.file,
                self.annotators[col]
            ),
        };
        if self.cache.len() < TAG_CACHE {
            self.cache.push((t.into(), tag));
        }
        Ok(tag)
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

    fn sentence(&mut self, s: RawSentence) -> Result<()> {
        sentence(
            self.cfg,
            &self.file,
            &self.annotators,
            &self.labels.names,
            s,
            &mut self.tokens,
            &mut self.doc_len,
        )
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
                cur = Some(RawSentence {
                    doc: d,
                    tags: vec![Vec::new(); cols.len()],
                    lines: Vec::new(),
                });
            }
            for (a, &c) in cols.iter().enumerate() {
                let tag = self.tag(fields[c], line, a)?;
                cur.as_mut().expect("a sentence").tags[a].push(tag);
            }
            cur.as_mut().expect("a sentence").lines.push(line);
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
            let mut s = RawSentence {
                doc: d,
                tags: Vec::new(),
                lines: Vec::new(),
            };
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
                let t = list
                    .iter()
                    .map(|x| self.tag(x.as_str().unwrap_or(""), line, a))
                    .collect::<Result<Vec<Tag>>>()?;
                s.tags.push(t);
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

/// The text of a tag for messages (labels still in reading codes).
fn tag_text(t: Tag, labels: &[String]) -> String {
    if t.prefix == b'O' {
        "O".into()
    } else {
        format!("{}-{}", t.prefix as char, labels[t.label as usize])
    }
}

/// Checks and decodes one sentence.
fn sentence(
    cfg: &SpansConfig,
    file: &str,
    annotators: &[String],
    names: &[String],
    s: RawSentence,
    tokens: &mut Tokens,
    doc_len: &mut [u32],
) -> Result<()> {
    let n = s.lines.len();
    let offset = doc_len[s.doc];
    doc_len[s.doc] += n as u32;
    tokens.sentences.push(Sentence {
        doc: s.doc as u32,
        offset,
        len: n as u32,
    });
    tokens.n_tokens += n as u64;
    // The first problem and the first prefix outside the scheme: (line,
    // annotator, message), in file order, then in annotator order.
    let mut first: Option<(usize, usize, String)> = None;
    let mut first_outside: Option<(usize, usize, String)> = None;
    for (a, tags) in s.tags.iter().enumerate() {
        for p in tags::problems(tags, cfg.scheme) {
            let (pos, msg) = match p {
                Problem::Outside(i) => {
                    tokens.outside[a] += 1;
                    (
                        i,
                        format!(
                            "prefix outside the scheme {}: {}",
                            cfg.scheme.name(),
                            tag_text(tags[i], names)
                        ),
                    )
                }
                Problem::Transition(i) => {
                    tokens.invalid[a] += 1;
                    let prev = if i == 0 {
                        "(start)".to_string()
                    } else {
                        tag_text(tags[i - 1], names)
                    };
                    let cur = if i == n {
                        "(end)".to_string()
                    } else {
                        tag_text(tags[i], names)
                    };
                    (
                        i,
                        format!(
                            "invalid transition {prev} -> {cur} (scheme {})",
                            cfg.scheme.name()
                        ),
                    )
                }
            };
            let line = s.lines[pos.min(n - 1)];
            if tokens.first_problem[a].is_none() {
                tokens.first_problem[a] = Some((line, msg.clone()));
            }
            if matches!(p, Problem::Outside(_)) && first_outside.as_ref().is_none_or(|f| line < f.0)
            {
                first_outside = Some((line, a, msg.clone()));
            }
            if first.as_ref().is_none_or(|f| line < f.0) {
                first = Some((line, a, msg));
            }
        }
        tokens.begin[a].push(tags::decode_begin(tags, cfg.scheme));
        let strict = tags::decode_discard(tags, cfg.scheme);
        match (&mut tokens.discard[a], strict) {
            (Some(v), Some(d)) => v.push(d),
            (slot, _) => *slot = None,
        }
    }
    match (cfg.repair, first, first_outside) {
        (Repair::Error, Some((line, a, msg)), _) => {
            bail!("{file} line {line}, column '{}': {msg}", annotators[a])
        }
        (Repair::Discard, _, Some((line, a, msg))) => bail!(
            "{file} line {line}, column '{}': {msg}; seqeval's strict mode (repair = \"discard\") refuses it",
            annotators[a]
        ),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::config;
    use super::*;

    fn err<T: std::fmt::Debug>(r: Result<T>) -> String {
        format!("{:#}", r.unwrap_err())
    }

    fn span(start: u32, end: u32, label: u32) -> Span {
        Span { start, end, label }
    }

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
            "in.conll line 2, column 'sys': the tag \"b-PER\" is malformed (expected O or a prefix letter, a hyphen and a type, as B-PER)"
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
            "in.jsonl line 1, column 'sys': the tag \"\" is malformed (expected O or a prefix letter, a hyphen and a type, as B-PER)"
        );
        let cfg = config("input_file = \"in.conll\"\nformat = \"conll\"\ncolumns = [\"token\", \"gold\"]\nannotators = [\"gold\", \"sys\"]\n");
        assert_eq!(
            err(from_text(&cfg, "a O\n")),
            "in.conll: the annotator 'sys' is not one of the columns (token, gold)"
        );
    }
}
