//! Command assembly (spans), input half (`spec/spans.md` 2): the span
//! table with its documents file, Prodigy/spaCy JSON lines, CoNLL columns
//! and BIO JSON lines, read into one shape ([`Data`]): documents,
//! annotators, labels in code-point order, coverage, and every
//! (document, annotator)'s spans as read. Token input keeps its sentences'
//! decoded spans (both seqeval readings) and the invalid transitions.
//! "Saw the document and marked nothing" is coverage without spans;
//! "never saw it" is no coverage.
//!
//! Reads the input files only (tables through [`rsmreport_io::input::read_table`],
//! each with its SHA-256); computes no statistic; writes nothing. Every
//! error names the file, the line and the column or key (data errors).

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

use anyhow::{anyhow, bail, Result};
use serde_json::Value;

use rsmreport_config::spans::{Format, Repair, SpansConfig};
use rsmreport_core::provenance::read_with_checksum;
use rsmreport_core::table::{Table, Values};
use rsmreport_metrics::spans::agreement::Span;
use rsmreport_metrics::spans::tags::{self, Problem, Tag};
use rsmreport_report::render::context::InputCtx;

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
            rsmreport_core::table::Cell::Missing => return None,
            rsmreport_core::table::Cell::Text(s) => s,
            rsmreport_core::table::Cell::Int(n) => n.to_string(),
            rsmreport_core::table::Cell::Float(x) => rsmreport_config::python_float_repr(x),
            rsmreport_core::table::Cell::Bool(b) => (if b { "True" } else { "False" }).to_string(),
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

/// An offset cell: a non-negative integer (`at` is "file line n").
fn offset(s: &str, at: &str, col: &str) -> Result<u32> {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(v) = s.parse::<u32>() {
            return Ok(v);
        }
    }
    bail!("{at}, column '{col}': the offset \"{s}\" is not a non-negative integer")
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
    let (table, sha) = read_with_checksum(path, || rsmreport_io::input::read_table(path, &wanted));
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

/// A trimmed non-blank cell, borrowed where the table holds text.
fn cell_str(values: &Values, i: usize) -> Option<Cow<'_, str>> {
    match values {
        Values::Text(v) => {
            let t = v[i].as_deref()?.trim();
            (!t.is_empty()).then_some(Cow::Borrowed(t))
        }
        _ => cell(values, i).map(Cow::Owned),
    }
}

/// One document's text with its code-point starts, for the span checks.
struct DocText<'t> {
    name: &'t str,
    text: &'t str,
    starts: &'t [usize],
}

/// The checks of one span (spec 9): start not after end, not empty,
/// within its document's text, and a given span text equal to the text at
/// its offsets (both trimmed). `at` is "file line n", `field` the column
/// or key of the given text.
fn check_span(
    at: &str,
    (start, end): (u32, u32),
    doc: Option<DocText>,
    given: Option<&str>,
    field: &str,
) -> Result<()> {
    if start > end {
        bail!("{at}: start {start} is after end {end}");
    }
    if start == end {
        bail!("{at}: the span [{start}, {end}) is empty");
    }
    let Some(d) = doc else { return Ok(()) };
    let n = d.starts.len() - 1;
    if end as usize > n {
        bail!(
            "{at}: the span [{start}, {end}) goes beyond the text of document \"{}\" ({n} code points)",
            d.name
        );
    }
    if let Some(given) = given {
        let here = &d.text[d.starts[start as usize]..d.starts[end as usize]];
        if given.trim() != here.trim() {
            bail!(
                "{at}, {field}: the span text \"{given}\" is not the document text at [{start}, {end}) (\"{here}\")"
            );
        }
    }
    Ok(())
}

/// Spans as read, before the annotators and labels get their final
/// order: `(document, annotator in reading order, span or coverage only)`.
struct Rows {
    docs: Index,
    anns: Index,
    labels: Interner,
    texts: Vec<Option<String>>,
    subgroups: Vec<(String, Vec<Option<String>>)>,
    rows: Vec<(usize, usize, Option<Span>)>,
}

/// The annotators in their order, labels in code-point order, coverage
/// (the data's rows, then `extra` rows as (document, annotator name)) and
/// every (document, annotator)'s spans.
fn assemble(cfg: &SpansConfig, file: &str, r: Rows, extra: &[(usize, String)]) -> Result<Data> {
    let annotators = annotator_order(cfg, &r.anns.names, file)?;
    let pos: HashMap<&str, usize> = annotators
        .iter()
        .enumerate()
        .map(|(i, a)| (a.as_str(), i))
        .collect();
    let amap: Vec<usize> = r.anns.names.iter().map(|a| pos[a.as_str()]).collect();
    let (labels, lmap) = r.labels.sorted();
    let (nd, na) = (r.docs.names.len(), annotators.len());
    let mut covered = vec![vec![cfg.coverage_all; na]; nd];
    let mut spans = vec![vec![Vec::new(); na]; nd];
    for (d, a, s) in r.rows {
        let a = amap[a];
        covered[d][a] = true;
        if let Some(mut s) = s {
            s.label = lmap[s.label as usize];
            spans[d][a].push(s);
        }
    }
    for (d, name) in extra {
        match pos.get(name.as_str()) {
            Some(&a) => covered[*d][a] = true,
            None if cfg.annotators.is_some() => bail!(
                "{}: annotator \"{name}\" is not among the configured annotators",
                cfg.documents_file
                    .as_ref()
                    .map_or(file.into(), |p| p.display().to_string())
            ),
            None => {}
        }
    }
    Ok(Data {
        annotators,
        documents: r.docs.names,
        texts: r.texts,
        labels,
        covered,
        spans,
        subgroups: r.subgroups,
        tokens: None,
        skipped: Vec::new(),
        inputs: Vec::new(),
    })
}

/// The span table's columns: document, annotator, start, end, label and
/// the optional span text.
fn table_columns(cfg: &SpansConfig) -> Vec<&str> {
    let mut wanted = vec![
        cfg.document_column.as_str(),
        cfg.annotator_column.as_str(),
        cfg.start_column.as_str(),
        cfg.end_column.as_str(),
        cfg.label_column.as_str(),
    ];
    wanted.extend(cfg.text_column.as_deref());
    wanted
}

/// One row of the span table into `r`: its document (known to the
/// documents file when there is one), annotator and span, checked.
fn table_row(
    cfg: &SpansConfig,
    cols: &[(&str, &Values)],
    i: usize,
    r: &mut Rows,
    starts: &mut HashMap<usize, Vec<usize>>,
) -> Result<()> {
    let file = cfg.input_file.display();
    let line = i + 2;
    let get = |k: usize| cell_str(cols[k].1, i);
    let blank = |k: usize, what: &str| {
        anyhow!(
            "{file} line {line}, column '{}': the {what} is blank",
            cols[k].0
        )
    };
    let doc = get(0).ok_or_else(|| blank(0, "document id"))?;
    let ann = get(1).ok_or_else(|| blank(1, "annotator"))?;
    let d = match r.docs.pos.get(doc.as_ref()) {
        Some(&d) => d,
        None if cfg.documents_file.is_some() => bail!(
            "{file} line {line}: document \"{doc}\" is not in the documents file {}",
            cfg.documents_file.as_ref().unwrap().display()
        ),
        None => {
            r.texts.push(None);
            r.docs.get(&doc)
        }
    };
    let a = r.anns.get(&ann);
    let span = match (get(2), get(3), get(4)) {
        (None, None, None) => None,
        (Some(s), Some(e), Some(l)) => {
            let at = format!("{file} line {line}");
            let start = offset(&s, &at, cols[2].0)?;
            let end = offset(&e, &at, cols[3].0)? + u32::from(cfg.end_inclusive);
            let text = r.texts[d].as_deref();
            let doc_text = text.map(|t| DocText {
                name: &doc,
                text: t,
                starts: starts.entry(d).or_insert_with(|| char_starts(t)),
            });
            let given = cols.get(5).and_then(|c| cell_str(c.1, i));
            let field = format!("column '{}'", cols.get(5).map_or("", |c| c.0));
            check_span(&at, (start, end), doc_text, given.as_deref(), &field)?;
            Some(Span {
                start,
                end,
                label: r.labels.code(&l),
            })
        }
        _ => bail!(
            "{file} line {line}: start, end and label must be all filled (a span) or all blank (annotated, nothing marked)"
        ),
    };
    r.rows.push((d, a, span));
    Ok(())
}

/// Format A: the long span table, with its documents file.
fn read_table_input(cfg: &SpansConfig) -> Result<Data> {
    let path = &cfg.input_file;
    let file = path.display().to_string();
    let mut inputs = Vec::new();
    let docfile = match &cfg.documents_file {
        Some(p) => Some(read_documents(cfg, p, &mut inputs)?),
        None => None,
    };
    let wanted = table_columns(cfg);
    let table = rsmreport_io::input::read_table(path, &wanted)?;
    let cols: Vec<(&str, &Values)> = wanted
        .iter()
        .map(|c| column(&table, c, &file).map(|v| (*c, v)))
        .collect::<Result<_>>()?;
    let (docs, texts, subgroups, coverage) = match docfile {
        Some(d) => (d.docs, d.texts, d.subgroups, d.coverage),
        None => (Index::default(), Vec::new(), Vec::new(), Some(Vec::new())),
    };
    let mut rows = Rows {
        docs,
        anns: Index::default(),
        labels: Interner::default(),
        texts,
        subgroups,
        rows: Vec::with_capacity(table.nrows),
    };
    let mut starts: HashMap<usize, Vec<usize>> = HashMap::new();
    for i in 0..table.nrows {
        table_row(cfg, &cols, i, &mut rows, &mut starts)?;
    }
    let everyone = coverage.is_none();
    let mut data = assemble(cfg, &file, rows, coverage.as_deref().unwrap_or(&[]))?;
    if everyone {
        // A documents file without the annotator column: everyone covers
        // every document.
        data.covered.iter_mut().flatten().for_each(|c| *c = true);
    }
    data.inputs = inputs;
    Ok(data)
}

/// A JSON value as a document id or annotator name (numbers as text).
fn json_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn json_u32(v: Option<&Value>, at: &str, key: &str) -> Result<u32> {
    match v.and_then(Value::as_u64) {
        Some(n) if n <= u32::MAX as u64 => Ok(n as u32),
        _ => bail!(
            "{at}, key '{key}': the offset {} is not a non-negative integer",
            v.map_or("(missing)".to_string(), |v| v.to_string())
        ),
    }
}

/// Format B's state besides the rows: who annotated what first (line),
/// and the lines skipped by answer.
#[derive(Default)]
struct ProdigyState {
    seen: HashMap<(usize, usize), usize>,
    skipped: Vec<(String, u64)>,
}

/// A Prodigy line's annotator: `annotator_key`, else `_annotator_id`,
/// else `_session_id`.
fn prodigy_annotator(cfg: &SpansConfig, v: &Value) -> Option<String> {
    match &cfg.annotator_key {
        Some(k) => v.get(k).and_then(json_text),
        None => v
            .get("_annotator_id")
            .and_then(json_text)
            .or_else(|| v.get("_session_id").and_then(json_text)),
    }
}

/// A Prodigy line's document: known, or new with its text and subgroup
/// levels; a second, different text is an error.
fn prodigy_document(cfg: &SpansConfig, at: &str, v: &Value, r: &mut Rows) -> Result<usize> {
    let dkey = cfg.document_key.as_deref().unwrap_or("_input_hash");
    let doc = v
        .get(dkey)
        .and_then(json_text)
        .ok_or_else(|| anyhow!("{at}: no document (key '{dkey}')"))?;
    let t = v.get(&cfg.text_key).and_then(Value::as_str);
    let d = r.docs.get(&doc);
    if d == r.texts.len() {
        r.texts.push(t.map(str::to_string));
        for (name, levels) in r.subgroups.iter_mut() {
            levels.push(v.get(name.as_str()).and_then(json_text));
        }
    } else if let (Some(old), Some(new)) = (&r.texts[d], t) {
        if old != new {
            bail!("{at}: document \"{doc}\" has two different texts");
        }
    } else if r.texts[d].is_none() {
        r.texts[d] = t.map(str::to_string);
    }
    Ok(d)
}

/// One Prodigy line: skipped unless accepted, else its (document,
/// annotator) once and its spans, checked against the text.
fn prodigy_line(
    cfg: &SpansConfig,
    at: &str,
    v: &Value,
    r: &mut Rows,
    st: &mut ProdigyState,
    line: usize,
) -> Result<()> {
    if let Some(ans) = v.get("answer").and_then(Value::as_str) {
        if ans != "accept" {
            match st.skipped.iter_mut().find(|s| s.0 == ans) {
                Some(s) => s.1 += 1,
                None => st.skipped.push((ans.to_string(), 1)),
            }
            return Ok(());
        }
    }
    let ann = prodigy_annotator(cfg, v).ok_or_else(|| {
        anyhow!(
            "{at}: no annotator (key '{}')",
            cfg.annotator_key.as_deref().unwrap_or("_annotator_id")
        )
    })?;
    let d = prodigy_document(cfg, at, v, r)?;
    let a = r.anns.get(&ann);
    if let Some(first) = st.seen.insert((d, a), line) {
        bail!(
            "{at}: annotator \"{ann}\" annotated document \"{}\" twice (first on line {first})",
            r.docs.names[d]
        );
    }
    r.rows.push((d, a, None));
    let text = r.texts[d].clone();
    let starts = text.as_deref().map(char_starts);
    for s in v
        .get("spans")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let start = json_u32(s.get("start"), at, "start")?;
        let end = json_u32(s.get("end"), at, "end")?;
        let label = s
            .get("label")
            .and_then(Value::as_str)
            .filter(|l| !l.trim().is_empty())
            .ok_or_else(|| anyhow!("{at}, key 'label': a span has no label"))?;
        let doc_text = text
            .as_deref()
            .zip(starts.as_deref())
            .map(|(t, cs)| DocText {
                name: &r.docs.names[d],
                text: t,
                starts: cs,
            });
        let given = s.get("text").and_then(Value::as_str);
        check_span(at, (start, end), doc_text, given, "key 'text'")?;
        let label = r.labels.code(label.trim());
        r.rows.push((d, a, Some(Span { start, end, label })));
    }
    Ok(())
}

/// Format B: Prodigy/spaCy JSON lines.
fn read_prodigy(cfg: &SpansConfig) -> Result<Data> {
    let path = &cfg.input_file;
    let file = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|e| anyhow!("{file}: cannot read the file: {e}"))?;
    let mut r = Rows {
        docs: Index::default(),
        anns: Index::default(),
        labels: Interner::default(),
        texts: Vec::new(),
        subgroups: cfg
            .subgroups
            .iter()
            .map(|g| (g.clone(), Vec::new()))
            .collect(),
        rows: Vec::new(),
    };
    let mut st = ProdigyState::default();
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let at = format!("{file} line {line}");
        let v: Value =
            serde_json::from_str(raw).map_err(|e| anyhow!("{at}: not a JSON object: {e}"))?;
        prodigy_line(cfg, &at, &v, &mut r, &mut st, line)?;
    }
    let mut data = assemble(cfg, &file, r, &[])?;
    data.skipped = st.skipped;
    Ok(data)
}

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
            file,
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
        for a in 0..na {
            let decoded = if cfg.repair == Repair::Discard {
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
fn read_tokens(cfg: &SpansConfig) -> Result<Data> {
    let path = &cfg.input_file;
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow!("{}: cannot read the file: {e}", path.display()))?;
    let mut r = TokenReader::new(cfg);
    if cfg.format == Format::Conll {
        r.conll(&text)?;
    } else {
        r.bio_jsonl(&text)?;
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
