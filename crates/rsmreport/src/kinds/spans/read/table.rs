//! Command assembly (spans), input layout A (`spec/spans.md` 2): the long
//! span table (one row per span, or a row with start, end and label blank
//! for "annotated, marked nothing") and its optional documents file
//! (documents, their texts, coverage rows, subgroup levels). Offsets are
//! code points; inclusive ends get +1 on reading.
//!
//! Reads the two tables through [`rsmreport_io::input::read_table`] (the
//! documents file with its checksum); parses in-memory tables otherwise;
//! writes nothing.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

use anyhow::{anyhow, bail, Result};

use super::shared::{
    assemble, cell, char_starts, check_span, column, offset, raw_cell, DocText, Fields, Index, Rows,
};
use super::Data;
use rsmreport_config::spans::SpansConfig;
use rsmreport_core::provenance::read_with_checksum;
use rsmreport_core::table::{Table, Values};
use rsmreport_metrics::spans::agreement::Span;
use rsmreport_report::render::context::InputCtx;

/// The documents file: documents in order, texts, coverage rows and
/// subgroup levels.
#[derive(Debug)]
struct DocumentsFile {
    docs: Index,
    texts: Vec<Option<String>>,
    /// (doc, annotator name) coverage rows, when it has the column.
    coverage: Option<Vec<(usize, String)>>,
    subgroups: Vec<(String, Vec<Option<String>>)>,
}

/// The documents file's columns: document, annotator (when present),
/// text and subgroups.
fn documents_columns(cfg: &SpansConfig) -> Vec<&str> {
    let mut wanted: Vec<&str> = vec![cfg.document_column.as_str(), cfg.annotator_column.as_str()];
    wanted.extend(cfg.document_text_column.as_deref());
    wanted.extend(cfg.subgroups.iter().map(String::as_str));
    wanted
}

/// Reads the documents file at `path` with its checksum (into `inputs`).
fn read_documents(
    cfg: &SpansConfig,
    path: &Path,
    inputs: &mut Vec<InputCtx>,
) -> Result<DocumentsFile> {
    let file = path.display().to_string();
    let wanted = documents_columns(cfg);
    let (table, sha) = read_with_checksum(path, || rsmreport_io::input::read_table(path, &wanted));
    let table = table?;
    inputs.push(InputCtx {
        role: "documents".into(),
        path: file.clone(),
        rows: table.nrows.to_string(),
        sha256: sha?,
    });
    documents(cfg, &file, &table)
}

/// The documents file's table (named `file` in messages): documents in
/// order, their texts, coverage rows and subgroup levels. The annotator
/// column (`annotator_column`, as in the span table) is optional here
/// (spec 2): without it, everyone covers every document.
fn documents(cfg: &SpansConfig, file: &str, table: &Table) -> Result<DocumentsFile> {
    let docs_col = column(table, &cfg.document_column, file)?;
    let ann_col = table.column(&cfg.annotator_column).map(|c| &c.values);
    let text_col = match &cfg.document_text_column {
        Some(c) => Some(column(table, c, file)?),
        None => None,
    };
    let sub_cols: Vec<&Values> = cfg
        .subgroups
        .iter()
        .map(|g| column(table, g, file))
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
    let d = match r.docs.find(doc.as_ref()) {
        Some(d) => d,
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
            let end_field = format!("column '{}'", cols[3].0);
            let text_field = format!("column '{}'", cols.get(5).map_or("", |c| c.0));
            let fields = Fields {
                end: &end_field,
                text: &text_field,
            };
            check_span(&at, (start, end), doc_text, given.as_deref(), fields)?;
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
pub(super) fn read(cfg: &SpansConfig) -> Result<Data> {
    let mut inputs = Vec::new();
    let docfile = match &cfg.documents_file {
        Some(p) => Some(read_documents(cfg, p, &mut inputs)?),
        None => None,
    };
    let table = rsmreport_io::input::read_table(&cfg.input_file, &table_columns(cfg))?;
    let mut data = from_tables(cfg, &table, docfile)?;
    data.inputs = inputs;
    Ok(data)
}

/// The span table (`cfg.input_file` in messages) with its documents file,
/// read.
fn from_tables(cfg: &SpansConfig, table: &Table, docfile: Option<DocumentsFile>) -> Result<Data> {
    let file = cfg.input_file.display().to_string();
    let wanted = table_columns(cfg);
    let cols: Vec<(&str, &Values)> = wanted
        .iter()
        .map(|c| column(table, c, &file).map(|v| (*c, v)))
        .collect::<Result<_>>()?;
    let (docs, texts, subgroups, coverage) = match docfile {
        Some(d) => (d.docs, d.texts, d.subgroups, d.coverage),
        None => (Index::default(), Vec::new(), Vec::new(), Some(Vec::new())),
    };
    let mut rows = Rows {
        docs,
        anns: Index::default(),
        labels: Index::default(),
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
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{config, err, span, table};
    use super::*;
    use rsmreport_core::table::{text_values, Column};

    const EXP: &str = "input_file = \"in.csv\"\n";

    /// Spans as read, a row that marks nothing, labels in code-point
    /// order, annotators in code-point order, every annotator covering
    /// the documents it has rows for.
    #[test]
    fn the_span_table_gives_spans_and_coverage() {
        let t = table(
            "document,annotator,start,end,label
d1,b,0,4,PER
d1,b,2,9,LOC
d1,b,0,4,PER
d1,a, 0 ,4, PER 
d2,a,,,
d3,b,1,2,LOC
",
        );
        let d = from_tables(&config(EXP), &t, None).unwrap();
        assert_eq!(d.documents, ["d1", "d2", "d3"]);
        assert_eq!(d.annotators, ["a", "b"]);
        assert_eq!(d.labels, ["LOC", "PER"]);
        assert_eq!(d.covered, [[true, true], [true, false], [false, true]]);
        // Overlapping and repeated spans of one annotator are kept.
        assert_eq!(d.spans[0][1], [span(0, 4, 1), span(2, 9, 0), span(0, 4, 1)]);
        assert_eq!(d.spans[0][0], [span(0, 4, 1)]);
        assert!(d.spans[1][0].is_empty());
        assert_eq!(d.spans[2][1], [span(1, 2, 0)]);
        assert_eq!(d.texts, [None, None, None]);
    }

    #[test]
    fn inclusive_ends_get_one_more() {
        let t = table("document,annotator,start,end,label\nd1,a,0,0,X\nd1,b,3,5,Y\n");
        let d = from_tables(&config(&format!("{EXP}end_inclusive = true\n")), &t, None).unwrap();
        assert_eq!(d.spans[0][0], [span(0, 1, 0)]);
        assert_eq!(d.spans[0][1], [span(3, 6, 1)]);
    }

    /// The documents file gives the texts (verbatim, CR LF included),
    /// whose code points the offsets count and against which the span
    /// text is checked.
    #[test]
    fn offsets_are_code_points_of_the_documents_text() {
        let cfg = config(
            "input_file = \"in.csv\"\ndocuments_file = \"docs.csv\"\ndocument_text_column = \"text\"\ntext_column = \"text\"\n",
        );
        let docs = Table {
            columns: vec![
                Column::new("document", text_values([Some("d1"), Some("d2")])),
                Column::new(
                    "text",
                    text_values([Some("Zoë 🙂 in Łódź\r\nok"), Some("日本")]),
                ),
            ],
            nrows: 2,
        };
        let df = documents(&cfg, "docs.csv", &docs).unwrap();
        let t = table(
            "document,annotator,start,end,label,text
d1,a,0,3,PER,Zoë
d1,b,9,13,LOC, Łódź
d1,b,15,17,X,ok
d2,a,0,2,LOC,日本
d2,b,,,,
",
        );
        let d = from_tables(&cfg, &t, Some(df)).unwrap();
        assert_eq!(d.texts[0].as_deref(), Some("Zoë 🙂 in Łódź\r\nok"));
        assert_eq!(d.spans[0][1], [span(9, 13, 0), span(15, 17, 2)]);
        assert_eq!(d.spans[1][0], [span(0, 2, 0)]);
        let bad = table("document,annotator,start,end,label,text\nd1,a,0,3,PER,Zoe\n");
        let df = documents(&cfg, "docs.csv", &docs).unwrap();
        assert_eq!(
            err(from_tables(&cfg, &bad, Some(df))),
            "in.csv line 2, column 'text': the span text \"Zoe\" is not the document text at [0, 3) (\"Zoë\")"
        );
        let beyond = table("document,annotator,start,end,label,text\nd2,a,1,3,PER,\n");
        let df = documents(&cfg, "docs.csv", &docs).unwrap();
        // issue 50: the message names the end column.
        assert_eq!(
            err(from_tables(&cfg, &beyond, Some(df))),
            "in.csv line 2, column 'end': the span [1, 3) goes beyond the text of document \"d2\" (2 code points)"
        );
    }

    #[test]
    fn the_documents_file_lists_documents_coverage_and_levels() {
        let cfg = config(
            "input_file = \"in.csv\"\ndocuments_file = \"docs.csv\"\nsubgroups = [\"genre\"]\n",
        );
        let docs = table("document,annotator,genre\nd2,a,news\nd1,b,\nd2,b,news\nd3,,blog\n");
        let df = documents(&cfg, "docs.csv", &docs).unwrap();
        let t = table("document,annotator,start,end,label\nd1,a,0,1,X\nd3,b,,,\n");
        let d = from_tables(&cfg, &t, Some(df)).unwrap();
        assert_eq!(d.documents, ["d2", "d1", "d3"]);
        assert_eq!(
            d.subgroups,
            [(
                "genre".to_string(),
                vec![Some("news".to_string()), None, Some("blog".to_string())]
            )]
        );
        // a: d2 (documents file) and d1 (a row); b: d1 and d2 (documents
        // file) and d3 (a row).
        assert_eq!(d.covered, [[true, true], [true, true], [false, true]]);
        let t = table("document,annotator,start,end,label\nd9,a,0,1,X\n");
        let df = documents(&cfg, "docs.csv", &docs).unwrap();
        assert_eq!(
            err(from_tables(&cfg, &t, Some(df))),
            "in.csv line 2: document \"d9\" is not in the documents file docs.csv"
        );
        let two = table("document,annotator,text\nd1,a,x\nd1,b,y\n");
        let cfg = config(
            "input_file = \"in.csv\"\ndocuments_file = \"docs.csv\"\ndocument_text_column = \"text\"\n",
        );
        assert_eq!(
            err(documents(&cfg, "docs.csv", &two)),
            "docs.csv line 3: document \"d1\" has two different texts"
        );
        let blank = table("document,annotator,text\nd1,a,x\n,b,x\n");
        assert_eq!(
            err(documents(&cfg, "docs.csv", &blank)),
            "docs.csv line 3, column 'document': the document id is blank"
        );
    }

    /// issue 50: `annotator_column = "who"` names the span table's column;
    /// a documents file without it is read (everyone covers every
    /// document), not refused.
    #[test]
    fn a_documents_file_without_the_annotator_column_covers_everyone() {
        let cfg = config(
            "input_file = \"in.csv\"\ndocuments_file = \"docs.csv\"\nannotator_column = \"who\"\n",
        );
        let df = documents(&cfg, "docs.csv", &table("document\nd1\nd2\n")).unwrap();
        assert!(df.coverage.is_none());
        let t = table("document,who,start,end,label\nd1,a,0,1,X\nd2,b,0,1,X\n");
        let d = from_tables(&cfg, &t, Some(df)).unwrap();
        assert_eq!(d.annotators, ["a", "b"]);
        assert_eq!(d.covered, [[true, true], [true, true]]);
        // With the column, its rows are the coverage.
        let df = documents(&cfg, "docs.csv", &table("document,who\nd1,a\nd2,b\n")).unwrap();
        let d = from_tables(&cfg, &t, Some(df)).unwrap();
        assert_eq!(d.covered, [[true, false], [false, true]]);
    }

    #[test]
    fn bad_rows_name_file_line_and_column() {
        let cfg = config(EXP);
        let head = "document,annotator,start,end,label\n";
        let run = |row: &str| {
            err(from_tables(
                &cfg,
                &table(&format!("{head}d1,a,0,1,X\n{row}\n")),
                None,
            ))
        };
        assert_eq!(
            run("d1,,0,1,X"),
            "in.csv line 3, column 'annotator': the annotator is blank"
        );
        assert_eq!(
            run(",a,0,1,X"),
            "in.csv line 3, column 'document': the document id is blank"
        );
        assert_eq!(
            run("d1,a,0,,X"),
            "in.csv line 3: start, end and label must be all filled (a span) or all blank (annotated, nothing marked)"
        );
        assert_eq!(
            run("d1,a,x,1,X"),
            "in.csv line 3, column 'start': the offset \"x\" is not a non-negative integer"
        );
        assert_eq!(
            run("d1,a,0,-1,X"),
            "in.csv line 3, column 'end': the offset \"-1\" is not a non-negative integer"
        );
        assert_eq!(run("d1,a,3,1,X"), "in.csv line 3: start 3 is after end 1");
        assert_eq!(run("d1,a,1,1,X"), "in.csv line 3: the span [1, 1) is empty");
        let t = table("doc,annotator,start,end,label\nd1,a,0,1,X\n");
        assert_eq!(
            err(from_tables(&cfg, &t, None)),
            "in.csv: the column 'document' named in the experiment file is not in the file (its columns are doc, annotator, start, end, label)"
        );
    }
}
