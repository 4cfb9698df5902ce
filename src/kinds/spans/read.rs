//! Command assembly (spans), input half (`spec/spans.md` 2): the span
//! table with its documents file, Prodigy/spaCy JSON lines, CoNLL columns
//! and BIO JSON lines, read into one shape ([`Data`]): documents,
//! annotators, labels in code-point order, coverage, and every
//! (document, annotator)'s spans as read. Token input keeps its sentences'
//! decoded spans (both seqeval readings) and the invalid transitions.
//! "Saw the document and marked nothing" is coverage without spans;
//! "never saw it" is no coverage.
//!
//! Reads the input files only (tables through [`crate::input::read_table`],
//! each with its SHA-256); computes no statistic; writes nothing. Every
//! error names the file, the line and the column or key (data errors).

use std::collections::HashMap;
use std::path::Path;

use anyhow::{anyhow, bail, Result};
use serde_json::Value;

use crate::config::spans::{Format, Repair, SpansConfig};
use crate::metrics::spans::agreement::Span;
use crate::metrics::spans::tags::{self, Problem, Tag};
use crate::provenance::read_with_checksum;
use crate::render::context::InputCtx;
use crate::table::{Table, Values};

/// Decoded spans of one sentence: `(start, end, label)` in tokens.
pub type Decoded = Vec<(u32, u32, u32)>;

/// One sentence of token input.
#[derive(Clone, Debug)]
pub struct Sentence {
    pub doc: u32,
    /// Its first token's position in the document.
    pub offset: u32,
    pub len: u32,
}

/// Token input: sentences and both readings per annotator.
#[derive(Clone, Debug, Default)]
pub struct Tokens {
    pub sentences: Vec<Sentence>,
    pub n_tokens: u64,
    /// `[annotator][sentence]`: seqeval default mode (repair begin).
    pub begin: Vec<Vec<Decoded>>,
    /// `[annotator]`: seqeval strict mode, `None` where seqeval refuses.
    pub discard: Vec<Option<Vec<Decoded>>>,
    pub invalid: Vec<u64>,
    pub outside: Vec<u64>,
    /// `[annotator]`: the first problem (line, message).
    pub first_problem: Vec<Option<(usize, String)>>,
}

/// Every input in one shape.
#[derive(Clone, Debug, Default)]
pub struct Data {
    pub annotators: Vec<String>,
    pub documents: Vec<String>,
    /// The document text where known.
    pub texts: Vec<Option<String>>,
    /// Labels in code-point order (the codes of the spans).
    pub labels: Vec<String>,
    /// `[doc][annotator]`.
    pub covered: Vec<Vec<bool>>,
    /// `[doc][annotator]`: spans as read (order kept, duplicates kept).
    pub spans: Vec<Vec<Vec<Span>>>,
    /// Per subgroup: its name and the level of each document.
    pub subgroups: Vec<(String, Vec<Option<String>>)>,
    pub tokens: Option<Tokens>,
    /// Prodigy lines skipped, by answer.
    pub skipped: Vec<(String, u64)>,
    pub inputs: Vec<InputCtx>,
}

/// Label codes in order of first appearance.
#[derive(Default)]
struct Interner {
    codes: HashMap<String, u32>,
    names: Vec<String>,
}

impl Interner {
    fn code(&mut self, s: &str) -> u32 {
        if let Some(&c) = self.codes.get(s) {
            return c;
        }
        self.names.push(s.to_string());
        let c = (self.names.len() - 1) as u32;
        self.codes.insert(s.to_string(), c);
        c
    }

    /// The names in code-point order and the map old code -> new code.
    fn sorted(self) -> (Vec<String>, Vec<u32>) {
        let mut order: Vec<usize> = (0..self.names.len()).collect();
        order.sort_by(|&a, &b| self.names[a].cmp(&self.names[b]));
        let mut map = vec![0u32; order.len()];
        for (new, &old) in order.iter().enumerate() {
            map[old] = new as u32;
        }
        let names = order.iter().map(|&i| self.names[i].clone()).collect();
        (names, map)
    }
}

/// Index of names in order of first appearance.
#[derive(Default)]
struct Index {
    pos: HashMap<String, usize>,
    names: Vec<String>,
}

impl Index {
    fn get(&mut self, s: &str) -> usize {
        if let Some(&i) = self.pos.get(s) {
            return i;
        }
        self.names.push(s.to_string());
        self.pos.insert(s.to_string(), self.names.len() - 1);
        self.names.len() - 1
    }
}

/// Reads every input of the experiment.
pub fn read(cfg: &SpansConfig) -> Result<Data> {
    let path = &cfg.input_file;
    let (data, sha) = read_with_checksum(path, || match cfg.format {
        Format::Table => read_table_input(cfg),
        Format::Prodigy => read_prodigy(cfg),
        Format::Conll | Format::BioJsonl => read_tokens(cfg),
    });
    let mut data = data?;
    let rows: usize = data.spans.iter().flatten().map(Vec::len).sum();
    data.inputs.insert(
        0,
        InputCtx {
            role: "spans".into(),
            path: path.display().to_string(),
            rows: rows.to_string(),
            sha256: sha?,
        },
    );
    check_annotators(cfg, &data)?;
    Ok(data)
}

/// A reference or baseline absent from the data, fewer than two
/// annotators.
fn check_annotators(cfg: &SpansConfig, d: &Data) -> Result<()> {
    let file = cfg.input_file.display();
    for (key, v) in [("reference", &cfg.reference), ("baseline", &cfg.baseline)] {
        if let Some(v) = v {
            if !d.annotators.contains(v) {
                bail!(
                    "{file}: {key} \"{v}\" is not an annotator of the data (its annotators are {})",
                    d.annotators.join(", ")
                );
            }
        }
    }
    if d.annotators.len() < 2 {
        bail!(
            "{file}: the data has {} annotator{} ({}); agreement and evaluation need at least two",
            d.annotators.len(),
            if d.annotators.len() == 1 { "" } else { "s" },
            d.annotators.join(", ")
        );
    }
    Ok(())
}

/// The annotator order: `annotators`, else code-point order of those seen.
fn annotator_order(cfg: &SpansConfig, seen: &[String], file: &str) -> Result<Vec<String>> {
    match &cfg.annotators {
        Some(a) => {
            if let Some(x) = seen.iter().find(|s| !a.contains(s)) {
                bail!(
                    "{file}: annotator \"{x}\" is not among the configured annotators ({})",
                    a.join(", ")
                );
            }
            Ok(a.clone())
        }
        None => {
            let mut s = seen.to_vec();
            s.sort();
            Ok(s)
        }
    }
}

/// A trimmed non-blank text cell.
fn cell(values: &Values, i: usize) -> Option<String> {
    let s = match values {
        Values::Text(v) => v[i].as_deref()?.to_string(),
        other => match other.cell(i) {
            crate::table::Cell::Missing => return None,
            crate::table::Cell::Text(s) => s,
            crate::table::Cell::Int(n) => n.to_string(),
            crate::table::Cell::Float(x) => crate::config::python_float_repr(x),
            crate::table::Cell::Bool(b) => (if b { "True" } else { "False" }).to_string(),
        },
    };
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// A verbatim text cell (not trimmed).
fn raw_cell(values: &Values, i: usize) -> Option<String> {
    match values {
        Values::Text(v) => v[i].as_deref().map(str::to_string),
        _ => cell(values, i),
    }
}

fn column<'a>(t: &'a Table, name: &str, file: &str) -> Result<&'a Values> {
    t.column(name).map(|c| &c.values).ok_or_else(|| {
        anyhow!(
            "{file}: the column '{name}' named in the experiment file is not in the file (its columns are {})",
            t.names().join(", ")
        )
    })
}

/// An offset cell: a non-negative integer.
fn offset(s: &str, file: &str, line: usize, col: &str) -> Result<u32> {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(v) = s.parse::<u32>() {
            return Ok(v);
        }
    }
    bail!("{file} line {line}, column '{col}': the offset \"{s}\" is not a non-negative integer")
}

/// Code-point to byte positions of a text.
fn char_starts(text: &str) -> Vec<usize> {
    let mut v: Vec<usize> = text.char_indices().map(|(b, _)| b).collect();
    v.push(text.len());
    v
}

/// The documents file: documents in order, texts, coverage rows and
/// subgroup levels.
struct DocumentsFile {
    docs: Index,
    texts: Vec<Option<String>>,
    /// (doc, annotator name) coverage rows, when it has the column.
    coverage: Option<Vec<(usize, String)>>,
    subgroups: Vec<(String, Vec<Option<String>>)>,
}

fn read_documents(
    cfg: &SpansConfig,
    path: &Path,
    inputs: &mut Vec<InputCtx>,
) -> Result<DocumentsFile> {
    let file = path.display().to_string();
    let mut wanted: Vec<&str> = vec![cfg.document_column.as_str(), cfg.annotator_column.as_str()];
    wanted.extend(cfg.document_text_column.as_deref());
    wanted.extend(cfg.subgroups.iter().map(String::as_str));
    let (table, sha) = read_with_checksum(path, || crate::input::read_table(path, &wanted));
    let table = table?;
    inputs.push(InputCtx {
        role: "documents".into(),
        path: file.clone(),
        rows: table.nrows.to_string(),
        sha256: sha?,
    });
    let docs_col = column(&table, &cfg.document_column, &file)?;
    let ann_col = table.column(&cfg.annotator_column).map(|c| &c.values);
    if cfg.documents_annotator_column.is_some() && ann_col.is_none() {
        column(&table, &cfg.annotator_column, &file)?;
    }
    let text_col = match &cfg.document_text_column {
        Some(c) => Some(column(&table, c, &file)?),
        None => None,
    };
    let sub_cols: Vec<&Values> = cfg
        .subgroups
        .iter()
        .map(|g| column(&table, g, &file))
        .collect::<Result<_>>()?;
    let mut out = DocumentsFile {
        docs: Index::default(),
        texts: Vec::new(),
        coverage: ann_col.map(|_| Vec::new()),
        subgroups: cfg
            .subgroups
            .iter()
            .map(|g| (g.clone(), Vec::new()))
            .collect(),
    };
    for i in 0..table.nrows {
        let line = i + 2;
        let doc = cell(docs_col, i).ok_or_else(|| {
            anyhow!(
                "{file} line {line}, column '{}': the document id is blank",
                cfg.document_column
            )
        })?;
        let d = out.docs.get(&doc);
        if d == out.texts.len() {
            out.texts.push(None);
            for (k, col) in sub_cols.iter().enumerate() {
                out.subgroups[k].1.push(cell(col, i));
            }
        }
        if let Some(tc) = text_col {
            if let Some(t) = raw_cell(tc, i) {
                match &out.texts[d] {
                    Some(old) if *old != t => {
                        bail!("{file} line {line}: document \"{doc}\" has two different texts")
                    }
                    _ => out.texts[d] = Some(t),
                }
            }
        }
        if let (Some(cov), Some(ac)) = (out.coverage.as_mut(), ann_col) {
            if let Some(a) = cell(ac, i) {
                cov.push((d, a));
            }
        }
    }
    Ok(out)
}

/// Format A: the long span table.
fn read_table_input(cfg: &SpansConfig) -> Result<Data> {
    let path = &cfg.input_file;
    let file = path.display().to_string();
    let mut inputs = Vec::new();
    let docfile = match &cfg.documents_file {
        Some(p) => Some(read_documents(cfg, p, &mut inputs)?),
        None => None,
    };
    let mut wanted = vec![
        cfg.document_column.as_str(),
        cfg.annotator_column.as_str(),
        cfg.start_column.as_str(),
        cfg.end_column.as_str(),
        cfg.label_column.as_str(),
    ];
    wanted.extend(cfg.text_column.as_deref());
    let table = crate::input::read_table(path, &wanted)?;
    let cols: Vec<&Values> = wanted
        .iter()
        .map(|c| column(&table, c, &file))
        .collect::<Result<_>>()?;
    let (mut docs, mut texts, subgroups) = match docfile.as_ref() {
        Some(d) => (
            Index {
                pos: d.docs.pos.clone(),
                names: d.docs.names.clone(),
            },
            d.texts.clone(),
            d.subgroups.clone(),
        ),
        None => (Index::default(), Vec::new(), Vec::new()),
    };
    let mut anns = Index::default();
    let mut labels = Interner::default();
    // (doc, ann) -> spans; coverage pairs.
    let mut rows: Vec<(usize, usize, Option<Span>)> = Vec::with_capacity(table.nrows);
    let mut starts: HashMap<usize, Vec<usize>> = HashMap::new();
    for i in 0..table.nrows {
        let line = i + 2;
        let get = |k: usize| cell(cols[k], i);
        let doc = get(0).ok_or_else(|| {
            anyhow!(
                "{file} line {line}, column '{}': the document id is blank",
                wanted[0]
            )
        })?;
        let ann = get(1).ok_or_else(|| {
            anyhow!(
                "{file} line {line}, column '{}': the annotator is blank",
                wanted[1]
            )
        })?;
        let d = match docs.pos.get(&doc) {
            Some(&d) => d,
            None if docfile.is_some() => bail!(
                "{file} line {line}: document \"{doc}\" is not in the documents file {}",
                cfg.documents_file.as_ref().unwrap().display()
            ),
            None => {
                texts.push(None);
                docs.get(&doc)
            }
        };
        let a = anns.get(&ann);
        let (s, e, l) = (get(2), get(3), get(4));
        let span = match (&s, &e, &l) {
            (None, None, None) => None,
            (Some(s), Some(e), Some(l)) => {
                let start = offset(s, &file, line, wanted[2])?;
                let mut end = offset(e, &file, line, wanted[3])?;
                if cfg.end_inclusive {
                    end += 1;
                }
                if start > end {
                    bail!("{file} line {line}: start {start} is after end {end}");
                }
                if start == end {
                    bail!("{file} line {line}: the span [{start}, {end}) is empty");
                }
                if let Some(text) = &texts[d] {
                    let cs = starts.entry(d).or_insert_with(|| char_starts(text));
                    let n = cs.len() - 1;
                    if end as usize > n {
                        bail!(
                            "{file} line {line}: the span [{start}, {end}) goes beyond the text of document \"{doc}\" ({n} code points)"
                        );
                    }
                    if let Some(tc) = cols.get(5) {
                        if let Some(given) = cell(tc, i) {
                            let at = &text[cs[start as usize]..cs[end as usize]];
                            if given.trim() != at.trim() {
                                bail!(
                                    "{file} line {line}, column '{}': the span text \"{given}\" is not the document text at [{start}, {end}) (\"{at}\")",
                                    wanted[5]
                                );
                            }
                        }
                    }
                }
                Some(Span {
                    start,
                    end,
                    label: labels.code(l),
                })
            }
            _ => bail!(
                "{file} line {line}: start, end and label must be all filled (a span) or all blank (annotated, nothing marked)"
            ),
        };
        rows.push((d, a, span));
    }
    let annotators = annotator_order(cfg, &anns.names, &file)?;
    let pos: HashMap<&str, usize> = annotators
        .iter()
        .enumerate()
        .map(|(i, a)| (a.as_str(), i))
        .collect();
    let amap: Vec<usize> = anns.names.iter().map(|a| pos[a.as_str()]).collect();
    let (labels, lmap) = labels.sorted();
    let nd = docs.names.len();
    let na = annotators.len();
    let mut covered = vec![vec![false; na]; nd];
    let mut spans = vec![vec![Vec::new(); na]; nd];
    for (d, a, s) in rows {
        let a = amap[a];
        covered[d][a] = true;
        if let Some(mut s) = s {
            s.label = lmap[s.label as usize];
            spans[d][a].push(s);
        }
    }
    if let Some(df) = &docfile {
        match &df.coverage {
            Some(cov) => {
                for (d, name) in cov {
                    match pos.get(name.as_str()) {
                        Some(&a) => covered[*d][a] = true,
                        None if cfg.annotators.is_some() => bail!(
                            "{}: annotator \"{name}\" is not among the configured annotators",
                            cfg.documents_file.as_ref().unwrap().display()
                        ),
                        None => {}
                    }
                }
            }
            None => covered
                .iter_mut()
                .for_each(|r| r.iter_mut().for_each(|c| *c = true)),
        }
    }
    if cfg.coverage_all {
        covered
            .iter_mut()
            .for_each(|r| r.iter_mut().for_each(|c| *c = true));
    }
    Ok(Data {
        annotators,
        documents: docs.names,
        texts,
        labels,
        covered,
        spans,
        subgroups,
        tokens: None,
        skipped: Vec::new(),
        inputs,
    })
}

/// A JSON value as a document id or annotator name (numbers as text).
fn json_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn json_u32(v: Option<&Value>, file: &str, line: usize, key: &str) -> Result<u32> {
    match v.and_then(Value::as_u64) {
        Some(n) if n <= u32::MAX as u64 => Ok(n as u32),
        _ => bail!(
            "{file} line {line}, key '{key}': the offset {} is not a non-negative integer",
            v.map_or("(missing)".to_string(), |v| v.to_string())
        ),
    }
}

/// Format B: Prodigy/spaCy JSON lines.
fn read_prodigy(cfg: &SpansConfig) -> Result<Data> {
    let path = &cfg.input_file;
    let file = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|e| anyhow!("{file}: cannot read the file: {e}"))?;
    let mut docs = Index::default();
    let mut anns = Index::default();
    let mut labels = Interner::default();
    let mut texts: Vec<Option<String>> = Vec::new();
    let mut subgroups: Vec<(String, Vec<Option<String>>)> = cfg
        .subgroups
        .iter()
        .map(|g| (g.clone(), Vec::new()))
        .collect();
    let mut seen: HashMap<(usize, usize), usize> = HashMap::new();
    let mut rows: Vec<(usize, usize, Vec<Span>)> = Vec::new();
    let mut skipped: Vec<(String, u64)> = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(raw)
            .map_err(|e| anyhow!("{file} line {line}: not a JSON object: {e}"))?;
        if let Some(ans) = v.get("answer").and_then(Value::as_str) {
            if ans != "accept" {
                match skipped.iter_mut().find(|s| s.0 == ans) {
                    Some(s) => s.1 += 1,
                    None => skipped.push((ans.to_string(), 1)),
                }
                continue;
            }
        }
        let ann = match &cfg.annotator_key {
            Some(k) => v.get(k).and_then(json_text),
            None => v
                .get("_annotator_id")
                .and_then(json_text)
                .or_else(|| v.get("_session_id").and_then(json_text)),
        }
        .ok_or_else(|| {
            anyhow!(
                "{file} line {line}: no annotator (key '{}')",
                cfg.annotator_key.as_deref().unwrap_or("_annotator_id")
            )
        })?;
        let dkey = cfg.document_key.as_deref().unwrap_or("_input_hash");
        let doc = v
            .get(dkey)
            .and_then(json_text)
            .ok_or_else(|| anyhow!("{file} line {line}: no document (key '{dkey}')"))?;
        let t = v
            .get(&cfg.text_key)
            .and_then(Value::as_str)
            .map(str::to_string);
        let d = docs.get(&doc);
        if d == texts.len() {
            texts.push(t.clone());
            for (name, levels) in subgroups.iter_mut() {
                levels.push(v.get(name.as_str()).and_then(json_text));
            }
        } else if let (Some(old), Some(new)) = (&texts[d], &t) {
            if old != new {
                bail!("{file} line {line}: document \"{doc}\" has two different texts");
            }
        } else if texts[d].is_none() {
            texts[d] = t.clone();
        }
        let a = anns.get(&ann);
        if let Some(first) = seen.insert((d, a), line) {
            bail!(
                "{file} line {line}: annotator \"{ann}\" annotated document \"{doc}\" twice (first on line {first})"
            );
        }
        let cs = t.as_deref().map(char_starts);
        let mut spans = Vec::new();
        for s in v
            .get("spans")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let start = json_u32(s.get("start"), &file, line, "start")?;
            let end = json_u32(s.get("end"), &file, line, "end")?;
            let label = s
                .get("label")
                .and_then(Value::as_str)
                .filter(|l| !l.trim().is_empty())
                .ok_or_else(|| anyhow!("{file} line {line}, key 'label': a span has no label"))?;
            if start > end {
                bail!("{file} line {line}: start {start} is after end {end}");
            }
            if start == end {
                bail!("{file} line {line}: the span [{start}, {end}) is empty");
            }
            if let (Some(cs), Some(t)) = (&cs, &t) {
                let n = cs.len() - 1;
                if end as usize > n {
                    bail!("{file} line {line}: the span [{start}, {end}) goes beyond the text ({n} code points)");
                }
                if let Some(given) = s.get("text").and_then(Value::as_str) {
                    let at = &t[cs[start as usize]..cs[end as usize]];
                    if given.trim() != at.trim() {
                        bail!(
                            "{file} line {line}, key 'text': the span text \"{given}\" is not the document text at [{start}, {end}) (\"{at}\")"
                        );
                    }
                }
            }
            spans.push(Span {
                start,
                end,
                label: labels.code(label.trim()),
            });
        }
        rows.push((d, a, spans));
    }
    let annotators = annotator_order(cfg, &anns.names, &file)?;
    let pos: HashMap<&str, usize> = annotators
        .iter()
        .enumerate()
        .map(|(i, a)| (a.as_str(), i))
        .collect();
    let amap: Vec<usize> = anns.names.iter().map(|a| pos[a.as_str()]).collect();
    let (labels, lmap) = labels.sorted();
    let (nd, na) = (docs.names.len(), annotators.len());
    let mut covered = vec![vec![cfg.coverage_all; na]; nd];
    let mut spans = vec![vec![Vec::new(); na]; nd];
    for (d, a, ss) in rows {
        let a = amap[a];
        covered[d][a] = true;
        spans[d][a] = ss
            .into_iter()
            .map(|mut s| {
                s.label = lmap[s.label as usize];
                s
            })
            .collect();
    }
    Ok(Data {
        annotators,
        documents: docs.names,
        texts,
        labels,
        covered,
        spans,
        subgroups,
        tokens: None,
        skipped,
        inputs: Vec::new(),
    })
}

/// One sentence as read: per annotator its tags, and the line of each
/// token.
struct RawSentence {
    doc: usize,
    tags: Vec<Vec<Tag>>,
    lines: Vec<usize>,
}

/// Format C: CoNLL columns or BIO JSON lines.
fn read_tokens(cfg: &SpansConfig) -> Result<Data> {
    let path = &cfg.input_file;
    let file = path.display().to_string();
    let annotators = cfg.annotators.clone().unwrap_or_default();
    let text =
        std::fs::read_to_string(path).map_err(|e| anyhow!("{file}: cannot read the file: {e}"))?;
    let mut labels = Interner::default();
    let mut docs = Index::default();
    let mut subgroups: Vec<(String, Vec<Option<String>>)> = cfg
        .subgroups
        .iter()
        .map(|g| (g.clone(), Vec::new()))
        .collect();
    let mut tokens = Tokens {
        begin: vec![Vec::new(); annotators.len()],
        discard: vec![Some(Vec::new()); annotators.len()],
        invalid: vec![0; annotators.len()],
        outside: vec![0; annotators.len()],
        first_problem: vec![None; annotators.len()],
        ..Default::default()
    };
    let mut doc_len: Vec<u32> = Vec::new();
    let handle =
        |s: RawSentence,
         tokens: &mut Tokens,
         doc_len: &mut Vec<u32>,
         names: &[String]|
         -> Result<()> { sentence(cfg, &file, &annotators, names, s, tokens, doc_len) };
    let tag = |t: &str, labels: &mut Interner, line: usize, col: &str| -> Result<Tag> {
        match tags::split_tag(t) {
            Some((b'O', _)) => Ok(Tag::O),
            Some((p, ty)) => Ok(Tag {
                prefix: p,
                label: labels.code(ty),
            }),
            None => bail!(
                "{file} line {line}, column '{col}': the tag \"{t}\" is malformed (expected O or a prefix letter, a hyphen and a type, as B-PER)"
            ),
        }
    };
    if cfg.format == Format::Conll {
        let cols: Vec<usize> = annotators
            .iter()
            .map(|a| {
                cfg.columns.iter().position(|c| c == a).ok_or_else(|| {
                    anyhow!(
                        "{file}: the annotator '{a}' is not one of the columns ({})",
                        cfg.columns.join(", ")
                    )
                })
            })
            .collect::<Result<_>>()?;
        let mut cur: Option<RawSentence> = None;
        let mut doc: Option<usize> = None;
        let mut n_docstart = 0usize;
        let new_doc = |docs: &mut Index,
                       subgroups: &mut Vec<(String, Vec<Option<String>>)>,
                       doc_len: &mut Vec<u32>| {
            let d = docs.get(&(docs.names.len() + 1).to_string());
            subgroups.iter_mut().for_each(|g| g.1.push(None));
            doc_len.push(0);
            d
        };
        for (k, raw) in text.lines().enumerate() {
            let line = k + 1;
            let fields: Vec<&str> = raw.split_whitespace().collect();
            if fields.is_empty() {
                if let Some(s) = cur.take() {
                    handle(s, &mut tokens, &mut doc_len, &labels.names)?;
                }
                continue;
            }
            if fields[0] == "-DOCSTART-" {
                if let Some(s) = cur.take() {
                    handle(s, &mut tokens, &mut doc_len, &labels.names)?;
                }
                n_docstart += 1;
                doc = Some(new_doc(&mut docs, &mut subgroups, &mut doc_len));
                continue;
            }
            if fields.len() != cfg.columns.len() {
                bail!(
                    "{file} line {line}: {} fields, but columns names {} ({})",
                    fields.len(),
                    cfg.columns.len(),
                    cfg.columns.join(", ")
                );
            }
            let s = cur.get_or_insert_with(|| {
                let d = match doc {
                    Some(d) if n_docstart > 0 => d,
                    _ => new_doc(&mut docs, &mut subgroups, &mut doc_len),
                };
                RawSentence {
                    doc: d,
                    tags: vec![Vec::new(); annotators.len()],
                    lines: Vec::new(),
                }
            });
            for (a, &c) in cols.iter().enumerate() {
                s.tags[a].push(tag(fields[c], &mut labels, line, &annotators[a])?);
            }
            s.lines.push(line);
        }
        if let Some(s) = cur.take() {
            handle(s, &mut tokens, &mut doc_len, &labels.names)?;
        }
    } else {
        for (k, raw) in text.lines().enumerate() {
            let line = k + 1;
            if raw.trim().is_empty() {
                continue;
            }
            let v: Value = serde_json::from_str(raw)
                .map_err(|e| anyhow!("{file} line {line}: not a JSON object: {e}"))?;
            let key = match &cfg.document_key {
                Some(dk) => v
                    .get(dk)
                    .and_then(json_text)
                    .ok_or_else(|| anyhow!("{file} line {line}: no document (key '{dk}')"))?,
                None => (docs.names.len() + 1).to_string(),
            };
            let d = docs.get(&key);
            if d == doc_len.len() {
                doc_len.push(0);
                for (name, levels) in subgroups.iter_mut() {
                    levels.push(v.get(name.as_str()).and_then(json_text));
                }
            }
            let mut s = RawSentence {
                doc: d,
                tags: Vec::new(),
                lines: Vec::new(),
            };
            let mut n = None;
            for a in &annotators {
                let list = v.get(a).and_then(Value::as_array).ok_or_else(|| {
                    anyhow!("{file} line {line}: key '{a}' (a list of tags) is missing")
                })?;
                if *n.get_or_insert(list.len()) != list.len() {
                    bail!(
                        "{file} line {line}, key '{a}': {} tags, but another annotator has {}",
                        list.len(),
                        n.unwrap()
                    );
                }
                let t = list
                    .iter()
                    .map(|x| {
                        let t = x.as_str().unwrap_or("");
                        tag(t, &mut labels, line, a)
                    })
                    .collect::<Result<Vec<Tag>>>()?;
                s.tags.push(t);
            }
            s.lines = vec![line; n.unwrap_or(0)];
            handle(s, &mut tokens, &mut doc_len, &labels.names)?;
        }
    }
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
    let use_discard = cfg.repair == Repair::Discard;
    for a in 0..na {
        let decoded = if use_discard {
            tokens.discard[a].as_ref().ok_or_else(|| {
                anyhow!(
                    "{file}, column '{}': a prefix outside the scheme {}; seqeval's strict mode (repair = \"discard\") refuses it",
                    annotators[a],
                    cfg.scheme.name()
                )
            })?
        } else {
            &tokens.begin[a]
        };
        for (s, sent) in tokens.sentences.iter().zip(decoded) {
            for &(b, e, l) in sent {
                spans[s.doc as usize][a].push(Span {
                    start: b + s.offset,
                    end: e + s.offset,
                    label: l,
                });
            }
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
    let mut first: Option<(usize, usize, String)> = None;
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
    if cfg.repair == Repair::Error {
        if let Some((line, a, msg)) = first {
            bail!("{file} line {line}, column '{}': {msg}", annotators[a]);
        }
    }
    Ok(())
}
