//! Command assembly (spans), input half (`spec/spans.md` 2): every input
//! format read into one shape ([`Data`]): documents, annotators, labels in
//! code-point order, coverage, and every (document, annotator)'s spans as
//! read. Token input keeps its sentences' decoded spans (both seqeval
//! readings) and the invalid transitions. "Saw the document and marked
//! nothing" is coverage without spans; "never saw it" is no coverage.
//!
//! * `table`: layout A, the long span table with its documents file;
//! * `prodigy`: layout B, Prodigy/spaCy JSON lines;
//! * `tokens`: layout C, CoNLL columns and BIO JSON lines;
//! * `shared`: what they share (label codes, cells and offsets, the
//!   checks of one span, the assembly of rows into [`Data`]);
//! * this file: the shape and [`read`], which picks the reader, records
//!   the input's checksum and checks the annotators.
//!
//! Reads the input files only (tables through
//! [`rsmreport_io::input::read_table`], each with its SHA-256); computes no
//! statistic; writes nothing. Every error names the file, the line and the
//! column or key (data errors). Each reader parses in-memory text or
//! tables, so its unit tests need no file.

mod prodigy;
mod shared;
mod table;
mod tokens;

use anyhow::{bail, Result};

use rsmreport_config::spans::{Format, SpansConfig};
use rsmreport_core::provenance::read_with_checksum;
use rsmreport_metrics::spans::agreement::Span;
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
    /// `[annotator]`: tags of no known form, read as seqeval reads them
    /// (`unknown_tags = "warn"`), and the first (line, tag).
    pub unknown: Vec<u64>,
    pub first_unknown: Vec<Option<(usize, String)>>,
    /// `[annotator]`: why seqeval's strict mode refuses the annotator's
    /// tags, where it does (the first refused tag).
    pub strict_refusal: Vec<Option<String>>,
    /// `[annotator]`: the tags against the reference's, as written
    /// (`token_scores`; zero for the reference itself and without one).
    pub token_counts: Vec<rsmreport_metrics::spans::seqeval::TokenCounts>,
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

/// Reads every input of the experiment.
pub fn read(cfg: &SpansConfig) -> Result<Data> {
    let path = &cfg.input_file;
    let (data, sha) = read_with_checksum(path, || match cfg.format {
        Format::Table => table::read(cfg),
        Format::Prodigy => prodigy::read(cfg),
        Format::Conll | Format::BioJsonl => tokens::read(cfg),
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
    let named = [("reference", &cfg.reference), ("baseline", &cfg.baseline)]
        .into_iter()
        .filter_map(|(key, v)| v.as_ref().map(|v| (key, v)))
        .chain(cfg.systems.iter().map(|v| ("systems", v)));
    for (key, v) in named {
        if !d.annotators.contains(v) {
            let hint = rsmreport_core::names::closest(v, d.annotators.iter().map(String::as_str))
                .map_or_else(String::new, |c| format!("; did you mean \"{c}\"?"));
            bail!(
                "{file}: {key} \"{v}\" is not an annotator of the data (its annotators are {}){hint}",
                d.annotators.join(", ")
            );
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

/// Test helpers of the readers: a configuration from TOML lines and an
/// in-memory table.
#[cfg(test)]
mod testing {
    use std::path::{Path, PathBuf};

    use rsmreport_config::spans::SpansConfig;
    use rsmreport_core::table::{text_values, Column, Table};
    use rsmreport_metrics::spans::agreement::Span;

    /// The message of an error, with its causes.
    pub fn err<T: std::fmt::Debug>(r: anyhow::Result<T>) -> String {
        format!("{:#}", r.unwrap_err())
    }

    pub fn span(start: u32, end: u32, label: u32) -> Span {
        Span { start, end, label }
    }

    /// The experiment `experiment_id = "e"` plus `toml`; the files it
    /// names (`in.csv`, `docs.csv`, `in.jsonl`, `in.conll`) exist while it
    /// is parsed and are named without their folder afterwards.
    pub fn config(toml: &str) -> SpansConfig {
        let dir = tempfile::tempdir().unwrap();
        for f in ["in.csv", "docs.csv", "in.jsonl", "in.conll"] {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        let text = format!("experiment_id = \"e\"\n{toml}");
        let mut cfg = rsmreport_config::spans::parse(&text, &dir.path().join("exp.toml")).unwrap();
        fn bare(p: &Path) -> PathBuf {
            PathBuf::from(p.file_name().unwrap())
        }
        cfg.input_file = bare(&cfg.input_file);
        cfg.documents_file = cfg.documents_file.as_deref().map(bare);
        cfg
    }

    /// A table of text cells from lines of comma-separated cells (the
    /// first line names the columns; an empty cell is missing).
    pub fn table(csv: &str) -> Table {
        let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
        let columns = rows[0]
            .iter()
            .enumerate()
            .map(|(k, name)| {
                let cells = rows[1..]
                    .iter()
                    .map(|r| Some(r[k]).filter(|c| !c.is_empty()));
                Column::new(*name, text_values(cells))
            })
            .collect();
        Table {
            columns,
            nrows: rows.len() - 1,
        }
    }
}
