//! Command assembly (spans), input: what the span readers share: names
//! and label codes in order of first appearance ([`Index`]), the annotator order, table cells, offsets and
//! code-point positions, the checks of one span (spec 9), and the assembly
//! of rows read in any layout into [`Data`].
//!
//! Reads and writes nothing; every error names the file, the line and the
//! column or key it is given.

use std::collections::HashMap;

use anyhow::{anyhow, bail, Result};
use serde_json::Value;

use super::Data;
use rsmreport_config::spans::SpansConfig;
use rsmreport_core::table::{Table, Values};
use rsmreport_metrics::spans::agreement::Span;

/// Names in order of first appearance, each with its position:
/// documents, annotators, and labels (whose positions are their codes
/// while reading, renumbered in code-point order by [`Index::sorted`]).
#[derive(Debug, Default)]
pub(super) struct Index {
    pos: HashMap<String, usize>,
    pub(super) names: Vec<String>,
}

impl Index {
    /// The position of `s`, added at the end if new.
    pub(super) fn get(&mut self, s: &str) -> usize {
        if let Some(&i) = self.pos.get(s) {
            return i;
        }
        self.names.push(s.to_string());
        self.pos.insert(s.to_string(), self.names.len() - 1);
        self.names.len() - 1
    }

    /// The position of `s`, if it is there.
    pub(super) fn find(&self, s: &str) -> Option<usize> {
        self.pos.get(s).copied()
    }

    /// [`Index::get`] as a label code.
    pub(super) fn code(&mut self, s: &str) -> u32 {
        self.get(s) as u32
    }

    /// The names in code-point order and the map old code -> new code.
    pub(super) fn sorted(self) -> (Vec<String>, Vec<u32>) {
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

/// The annotator order: `annotators`, else code-point order of those seen.
pub(super) fn annotator_order(
    cfg: &SpansConfig,
    seen: &[String],
    file: &str,
) -> Result<Vec<String>> {
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
pub(super) fn cell(values: &Values, i: usize) -> Option<String> {
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
pub(super) fn raw_cell(values: &Values, i: usize) -> Option<String> {
    match values {
        Values::Text(v) => v[i].as_deref().map(str::to_string),
        _ => cell(values, i),
    }
}

pub(super) fn column<'a>(t: &'a Table, name: &str, file: &str) -> Result<&'a Values> {
    t.column(name).map(|c| &c.values).ok_or_else(|| {
        anyhow!(
            "{file}: the column '{name}' named in the experiment file is not in the file (its columns are {})",
            t.names().join(", ")
        )
    })
}

/// An offset cell: a non-negative integer (`at` is "file line n").
pub(super) fn offset(s: &str, at: &str, col: &str) -> Result<u32> {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(v) = s.parse::<u32>() {
            return Ok(v);
        }
    }
    bail!("{at}, column '{col}': the offset \"{s}\" is not a non-negative integer")
}

/// Code-point to byte positions of a text.
pub(super) fn char_starts(text: &str) -> Vec<usize> {
    let mut v: Vec<usize> = text.char_indices().map(|(b, _)| b).collect();
    v.push(text.len());
    v
}

/// One document's text with its code-point starts, for the span checks.
pub(super) struct DocText<'t> {
    pub(super) name: &'t str,
    pub(super) text: &'t str,
    pub(super) starts: &'t [usize],
}

/// The column or key names of a span's end and given text, for messages
/// (`column 'end'`, `key 'text'`).
pub(super) struct Fields<'f> {
    pub(super) end: &'f str,
    pub(super) text: &'f str,
}

/// The checks of one span (spec 9): start not after end, not empty,
/// within its document's text, and a given span text equal to the text at
/// its offsets (both trimmed). `at` is "file line n".
pub(super) fn check_span(
    at: &str,
    (start, end): (u32, u32),
    doc: Option<DocText>,
    given: Option<&str>,
    field: Fields,
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
            "{at}, {}: the span [{start}, {end}) goes beyond the text of document \"{}\" ({n} code points)",
            field.end,
            d.name
        );
    }
    if let Some(given) = given {
        let here = &d.text[d.starts[start as usize]..d.starts[end as usize]];
        if given.trim() != here.trim() {
            bail!(
                "{at}, {}: the span text \"{given}\" is not the document text at [{start}, {end}) (\"{here}\")",
                field.text
            );
        }
    }
    Ok(())
}

/// Spans as read, before the annotators and labels get their final
/// order: `(document, annotator in reading order, span or coverage only)`.
pub(super) struct Rows {
    pub(super) docs: Index,
    pub(super) anns: Index,
    pub(super) labels: Index,
    pub(super) texts: Vec<Option<String>>,
    pub(super) subgroups: Vec<(String, Vec<Option<String>>)>,
    pub(super) rows: Vec<(usize, usize, Option<Span>)>,
}

/// The annotators in their order, labels in code-point order, coverage
/// (the data's rows, then `extra` rows as (document, annotator name)) and
/// every (document, annotator)'s spans.
pub(super) fn assemble(
    cfg: &SpansConfig,
    file: &str,
    r: Rows,
    extra: &[(usize, String)],
) -> Result<Data> {
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

/// A JSON value as a document id or annotator name (numbers as text).
pub(super) fn json_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{config, err};
    use super::*;
    use rsmreport_core::table::text_values;

    #[test]
    fn labels_get_codes_in_reading_order_and_names_in_code_point_order() {
        let mut i = Index::default();
        let codes: Vec<u32> = ["ORG", "Ärger", "PER", "ORG", "loc", "PER"]
            .iter()
            .map(|s| i.code(s))
            .collect();
        assert_eq!(codes, [0, 1, 2, 0, 3, 2]);
        let (names, map) = i.sorted();
        // Code-point order: capitals, then lower case, then beyond ASCII.
        assert_eq!(names, ["ORG", "PER", "loc", "Ärger"]);
        assert_eq!(map, [0, 3, 1, 2]);
    }

    #[test]
    fn offsets_are_non_negative_integers() {
        assert_eq!(offset("0", "f line 2", "start").unwrap(), 0);
        assert_eq!(offset("4294967295", "f line 2", "start").unwrap(), u32::MAX);
        for bad in ["-1", "1.0", "+3", "", "x", "4294967296", "１"] {
            assert_eq!(
                err(offset(bad, "f line 2", "start")),
                format!(
                    "f line 2, column 'start': the offset \"{bad}\" is not a non-negative integer"
                )
            );
        }
    }

    #[test]
    fn cells_are_trimmed_and_raw_cells_verbatim() {
        let v = text_values([Some("  a b "), None, Some("   ")]);
        assert_eq!(cell(&v, 0).as_deref(), Some("a b"));
        assert_eq!(cell(&v, 1), None);
        assert_eq!(cell(&v, 2), None);
        assert_eq!(raw_cell(&v, 0).as_deref(), Some("  a b "));
        assert_eq!(cell(&Values::Int(vec![7]), 0).as_deref(), Some("7"));
        assert_eq!(cell(&Values::Float(vec![2.0]), 0).as_deref(), Some("2.0"));
        assert_eq!(cell(&Values::Float(vec![f64::NAN]), 0), None);
    }

    #[test]
    fn a_missing_column_lists_the_file_s_columns() {
        let t = super::super::testing::table("document,who\nd1,a\n");
        assert_eq!(
            err(column(&t, "annotator", "in.csv")),
            "in.csv: the column 'annotator' named in the experiment file is not in the file (its columns are document, who)"
        );
    }

    /// Offsets count code points: "é" (2 bytes), "日本" (3 bytes each) and
    /// "🙂" (4 bytes, 2 UTF-16 units) are one position each.
    #[test]
    fn span_checks_count_code_points() {
        let text = "Zoë 🙂 日本\r\nx";
        let starts = char_starts(text);
        assert_eq!(starts.len() - 1, 11);
        let doc = || {
            Some(DocText {
                name: "d1",
                text,
                starts: &starts,
            })
        };
        let fields = || Fields {
            end: "column 'end'",
            text: "column 'text'",
        };
        let check = |s, e, given| check_span("f line 2", (s, e), doc(), given, fields());
        check(0, 3, Some("Zoë")).unwrap();
        check(4, 5, Some("🙂")).unwrap();
        check(6, 8, Some(" 日本 ")).unwrap();
        check(10, 11, Some("x")).unwrap();
        // CR and LF are code points too.
        check(8, 11, Some("x")).unwrap();
        assert_eq!(
            err(check(0, 3, Some("Zoe"))),
            "f line 2, column 'text': the span text \"Zoe\" is not the document text at [0, 3) (\"Zoë\")"
        );
        assert_eq!(err(check(3, 2, None)), "f line 2: start 3 is after end 2");
        assert_eq!(err(check(2, 2, None)), "f line 2: the span [2, 2) is empty");
        assert_eq!(
            err(check(10, 12, None)),
            "f line 2, column 'end': the span [10, 12) goes beyond the text of document \"d1\" (11 code points)"
        );
        // Without a text only the order is checked.
        check_span("f line 2", (5, 900), None, Some("x"), fields()).unwrap();
    }

    /// (document, annotator, span or nothing marked).
    type Row<'a> = (usize, usize, Option<(u32, u32, &'a str)>);

    fn rows(spans: &[Row], anns: &[&str]) -> Rows {
        let mut r = Rows {
            docs: Index::default(),
            anns: Index::default(),
            labels: Index::default(),
            texts: Vec::new(),
            subgroups: Vec::new(),
            rows: Vec::new(),
        };
        r.docs.get("d1");
        r.docs.get("d2");
        for a in anns {
            r.anns.get(a);
        }
        for &(d, a, s) in spans {
            let s = s.map(|(start, end, l)| Span {
                start,
                end,
                label: r.labels.code(l),
            });
            r.rows.push((d, a, s));
        }
        r
    }

    /// Annotators in code-point order unless configured; labels renumbered
    /// in code-point order; overlapping, nested and repeated spans of one
    /// annotator kept in reading order; coverage from the rows and from
    /// the extra (documents file) rows.
    #[test]
    fn assembly_orders_annotators_and_labels_and_keeps_spans_as_read() {
        let cfg = config("input_file = \"in.csv\"\n");
        let r = rows(
            &[
                (0, 0, Some((0, 5, "PER"))),
                (0, 0, Some((2, 4, "LOC"))),
                (0, 0, Some((0, 5, "PER"))),
                (0, 1, Some((3, 8, "PER"))),
                (1, 1, None),
            ],
            &["zed", "amy"],
        );
        let d = assemble(&cfg, "in.csv", r, &[(1, "zed".into())]).unwrap();
        assert_eq!(d.annotators, ["amy", "zed"]);
        assert_eq!(d.labels, ["LOC", "PER"]);
        assert_eq!(d.covered, [[true, true], [true, true]]);
        let s = |start, end, label| Span { start, end, label };
        assert_eq!(d.spans[0][1], [s(0, 5, 1), s(2, 4, 0), s(0, 5, 1)]);
        assert_eq!(d.spans[0][0], [s(3, 8, 1)]);
        assert!(d.spans[1][0].is_empty() && d.spans[1][1].is_empty());

        let cfg = config("input_file = \"in.csv\"\nannotators = [\"zed\", \"amy\", \"bo\"]\n");
        let r = rows(&[(0, 0, None), (0, 1, None)], &["zed", "amy"]);
        let d = assemble(&cfg, "in.csv", r, &[]).unwrap();
        assert_eq!(d.annotators, ["zed", "amy", "bo"]);
        assert_eq!(d.covered, [[true, true, false], [false, false, false]]);
        let r = rows(&[(0, 0, None)], &["zed"]);
        assert_eq!(
            err(assemble(&cfg, "in.csv", r, &[(0, "eve".into())])),
            "in.csv: annotator \"eve\" is not among the configured annotators"
        );
        let r = rows(&[(0, 0, None)], &["eve"]);
        assert_eq!(
            err(assemble(&cfg, "in.csv", r, &[])),
            "in.csv: annotator \"eve\" is not among the configured annotators (zed, amy, bo)"
        );
    }

    #[test]
    fn json_ids_are_trimmed_text_or_numbers() {
        let v: Value = serde_json::json!([" a ", 7, -3, 1.5, "", null, true]);
        let got: Vec<Option<String>> = v.as_array().unwrap().iter().map(json_text).collect();
        assert_eq!(
            got,
            [
                Some("a".into()),
                Some("7".into()),
                Some("-3".into()),
                Some("1.5".into()),
                None,
                None,
                None
            ]
        );
    }
}
