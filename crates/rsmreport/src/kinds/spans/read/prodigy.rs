//! Command assembly (spans), input layout B (`spec/spans.md` 2):
//! Prodigy/spaCy JSON lines (`db-out`), one line per annotator's complete
//! annotation of one text: its spans in code points (end exclusive),
//! checked against the text; only accepted lines (or lines without
//! `answer`) are read, the others counted by answer.
//!
//! Reads the input file only; parses in-memory text otherwise; writes
//! nothing.

use std::collections::HashMap;

use anyhow::{anyhow, bail, Result};
use serde_json::Value;

use super::shared::{assemble, char_starts, check_span, json_text, DocText, Fields, Index, Rows};
use super::Data;
use rsmreport_config::spans::SpansConfig;
use rsmreport_metrics::spans::agreement::Span;

/// An offset under `key`: a non-negative integer.
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
        let fields = Fields {
            end: "key 'end'",
            text: "key 'text'",
        };
        check_span(at, (start, end), doc_text, given, fields)?;
        let label = r.labels.code(label.trim());
        r.rows.push((d, a, Some(Span { start, end, label })));
    }
    Ok(())
}

/// Format B: Prodigy/spaCy JSON lines.
pub(super) fn read(cfg: &SpansConfig) -> Result<Data> {
    let text = std::fs::read_to_string(&cfg.input_file)
        .map_err(|e| anyhow!("{}: cannot read the file: {e}", cfg.input_file.display()))?;
    from_text(cfg, &text)
}

/// The lines of a Prodigy file (`cfg.input_file` in messages).
fn from_text(cfg: &SpansConfig, text: &str) -> Result<Data> {
    let file = cfg.input_file.display().to_string();
    let mut r = Rows {
        docs: Index::default(),
        anns: Index::default(),
        labels: Index::default(),
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

#[cfg(test)]
mod tests {
    use super::super::testing::{config, err, span};
    use super::*;

    const EXP: &str = "input_file = \"in.jsonl\"\nformat = \"prodigy\"\n";

    fn line(ann: &str, hash: &str, text: &str, spans: &str) -> String {
        format!(
            "{{\"text\": \"{text}\", \"_input_hash\": {hash}, \"_annotator_id\": \"{ann}\", \"answer\": \"accept\", \"spans\": [{spans}]}}\n"
        )
    }

    /// Offsets are code points: "🙂" is one (two UTF-16 units, four
    /// bytes), so "Łódź" starts at 7.
    #[test]
    fn lines_give_spans_in_code_points() {
        let text = format!(
            "{}{}\n{}",
            line(
                "b",
                "7",
                "Zoë 🙂 Łódź",
                "{\"start\": 0, \"end\": 3, \"label\": \"PER\", \"text\": \"Zoë\"}, {\"start\": 6, \"end\": 10, \"label\": \"LOC\", \"text\": \"Łódź\", \"token_start\": 2}"
            ),
            line("a", "7", "Zoë 🙂 Łódź", "{\"start\": 0, \"end\": 10, \"label\": \"LOC\"}, {\"start\": 0, \"end\": 3, \"label\": \"PER\"}"),
            line("a", "-8", "x", ""),
        );
        let d = from_text(&config(EXP), &text).unwrap();
        assert_eq!(d.documents, ["7", "-8"]);
        assert_eq!(d.annotators, ["a", "b"]);
        assert_eq!(d.labels, ["LOC", "PER"]);
        assert_eq!(d.spans[0][1], [span(0, 3, 1), span(6, 10, 0)]);
        // Nested spans of one annotator are kept.
        assert_eq!(d.spans[0][0], [span(0, 10, 0), span(0, 3, 1)]);
        assert_eq!(d.covered, [[true, true], [true, false]]);
        assert_eq!(d.texts[0].as_deref(), Some("Zoë 🙂 Łódź"));
    }

    #[test]
    fn crlf_lines_read_as_lf_lines() {
        let lf = format!(
            "{}\n{}",
            line(
                "a",
                "1",
                "ab",
                "{\"start\": 0, \"end\": 1, \"label\": \"X\"}"
            ),
            line("b", "1", "ab", "")
        );
        let crlf = lf.replace('\n', "\r\n");
        let (x, y) = (
            from_text(&config(EXP), &lf).unwrap(),
            from_text(&config(EXP), &crlf).unwrap(),
        );
        assert_eq!((x.spans, x.covered), (y.spans, y.covered));
        // The line numbers count the blank line.
        let twice = format!(
            "{}\r\n{}",
            line("a", "1", "ab", ""),
            line("a", "1", "ab", "")
        );
        assert_eq!(
            err(from_text(&config(EXP), &twice)),
            "in.jsonl line 3: annotator \"a\" annotated document \"1\" twice (first on line 1)"
        );
    }

    /// Lines answered otherwise are counted by answer; `_session_id`
    /// stands in for `_annotator_id`; `annotator_key` and `document_key`
    /// name other keys.
    #[test]
    fn answers_and_keys() {
        let text = "{\"text\": \"ab\", \"_input_hash\": 1, \"_session_id\": \"s1\", \"spans\": []}
{\"text\": \"ab\", \"_input_hash\": 1, \"_annotator_id\": \"a\", \"answer\": \"reject\"}
{\"text\": \"ab\", \"_input_hash\": 1, \"_annotator_id\": \"a\", \"answer\": \"ignore\"}
{\"text\": \"ab\", \"_input_hash\": 1, \"_annotator_id\": \"b\", \"answer\": \"reject\"}
{\"text\": \"ab\", \"_input_hash\": 1, \"_annotator_id\": \"b\", \"answer\": \"accept\"}
";
        let d = from_text(&config(EXP), text).unwrap();
        assert_eq!(d.annotators, ["b", "s1"]);
        assert_eq!(
            d.skipped,
            [("reject".to_string(), 2), ("ignore".to_string(), 1)]
        );
        let cfg = config(&format!(
            "{EXP}annotator_key = \"who\"\ndocument_key = \"id\"\ntext_key = \"body\"\n"
        ));
        let text = "{\"body\": \"ab\", \"id\": \"x\", \"who\": \"p\", \"spans\": [{\"start\": 1, \"end\": 2, \"label\": \"L\"}]}
{\"body\": \"ab\", \"id\": \"x\", \"who\": \"q\"}
";
        let d = from_text(&cfg, text).unwrap();
        assert_eq!(
            (d.documents, d.annotators),
            (
                vec!["x".to_string()],
                vec!["p".to_string(), "q".to_string()]
            )
        );
        assert_eq!(d.spans[0][0], [span(1, 2, 0)]);
    }

    #[test]
    fn bad_lines_name_file_line_and_key() {
        let ok = line("a", "1", "John", "");
        let run = |second: &str| err(from_text(&config(EXP), &format!("{ok}{second}")));
        assert!(run("{not json\n").starts_with("in.jsonl line 2: not a JSON object: "));
        assert_eq!(
            run("{\"text\": \"John\", \"_input_hash\": 1}\n"),
            "in.jsonl line 2: no annotator (key '_annotator_id')"
        );
        assert_eq!(
            run("{\"text\": \"John\", \"_annotator_id\": \"b\"}\n"),
            "in.jsonl line 2: no document (key '_input_hash')"
        );
        assert_eq!(
            run(&line("b", "1", "Jane", "")),
            "in.jsonl line 2: document \"1\" has two different texts"
        );
        let sp = |s: &str| run(&line("b", "1", "John", s));
        assert_eq!(
            sp("{\"start\": -1, \"end\": 2, \"label\": \"X\"}"),
            "in.jsonl line 2, key 'start': the offset -1 is not a non-negative integer"
        );
        assert_eq!(
            sp("{\"start\": 0, \"end\": 2.5, \"label\": \"X\"}"),
            "in.jsonl line 2, key 'end': the offset 2.5 is not a non-negative integer"
        );
        assert_eq!(
            sp("{\"start\": 0, \"label\": \"X\"}"),
            "in.jsonl line 2, key 'end': the offset (missing) is not a non-negative integer"
        );
        assert_eq!(
            sp("{\"start\": 0, \"end\": 2, \"label\": \" \"}"),
            "in.jsonl line 2, key 'label': a span has no label"
        );
        // Both texts are trimmed before they are compared.
        let trimmed = format!(
            "{ok}{}",
            line(
                "b",
                "1",
                "John",
                "{\"start\": 0, \"end\": 2, \"label\": \"X\", \"text\": \" Jo \"}"
            )
        );
        from_text(&config(EXP), &trimmed).unwrap();
        assert_eq!(
            sp("{\"start\": 0, \"end\": 2, \"label\": \"X\", \"text\": \"Ja\"}"),
            "in.jsonl line 2, key 'text': the span text \"Ja\" is not the document text at [0, 2) (\"Jo\")"
        );
        // issue 50: the message names the end key.
        assert_eq!(
            sp("{\"start\": 2, \"end\": 5, \"label\": \"X\"}"),
            "in.jsonl line 2, key 'end': the span [2, 5) goes beyond the text of document \"1\" (4 code points)"
        );
    }
}
