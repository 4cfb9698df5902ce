//! Command assembly (spans), the version workflow (issue 49): what a
//! spans folder with a reference annotator keeps so that a later version
//! can be compared with it ([`units_files`]: per document its id, text,
//! the reference's spans and those of the version under test, each as
//! read (`[[start, end, "label"], ...]`, empty when the annotator did not
//! see the document), `output/<id>_units.parquet`; the experiment file's
//! text, whose matching settings give every statistic its meaning, in
//! `output/<id>_units.json`), and `rsmreport compare` of two spans folders
//! ([`compare`]): the documents both share, paired by id, analysed by this
//! kind's own code ([`super::analyse`]) with the reference and the two
//! versions as its annotators, the earlier version the baseline, so that
//! the comparison is the `system_comparisons` of one run with the
//! reference and both systems (the same documents in the same order, the
//! same seed).
//!
//! Folders of token input (CoNLL, BIO JSON lines: their statistics need
//! the sentences' tags) and folders with other matching settings
//! (`min_overlap`, nervaluate's overlap percentage) are refused, naming
//! them. Reads the folders' units files (in [`compare`] only); writes
//! nothing.

use anyhow::{anyhow, Result};
use serde_json::{json, Value};

use super::read::Data;
use super::Analysis;
use crate::kinds::common::verdict::Verdict;
use crate::kinds::common::versions::{self, Folder, Pair, Paired, PreflightRow};
use rsmreport_config::spans::SpansConfig;
use rsmreport_core::error;
use rsmreport_core::table::{Column, Table, Text, Values};
use rsmreport_io::output::OutputFile;
use rsmreport_metrics::spans::agreement::Span;
use rsmreport_report::render::format::thousands;

/// What one unit of a spans folder is, and its ground truth.
const UNIT: &str = "document";
const TRUTH: &str = "reference spans";
const TEXT_COLUMNS: [&str; 4] = ["id", "text", "reference", "system"];

/// An annotator's spans of one document as a cell: `None` where the
/// annotator did not see it.
fn spans_cell(d: &Data, doc: usize, a: usize) -> Option<Text> {
    d.covered[doc][a].then(|| {
        let spans: Vec<Value> = d.spans[doc][a]
            .iter()
            .map(|s| json!([s.start, s.end, d.labels[s.label as usize]]))
            .collect();
        Text::from(Value::Array(spans).to_string().as_str())
    })
}

/// The units files of a spans run with a reference annotator and a
/// system (none otherwise: such a folder measures agreement only).
pub fn units_files(a: &Analysis) -> Result<Vec<OutputFile>> {
    let (d, res) = (&a.data, &a.res);
    let Some(r) = res.reference else {
        return Ok(Vec::new());
    };
    let systems: Vec<usize> = res
        .systems
        .iter()
        .map(|s| s.annotator)
        .filter(|&s| res.compared(s))
        .collect();
    if systems.is_empty() {
        return Ok(Vec::new());
    }
    let baseline = res
        .baseline
        .and_then(|b| systems.iter().position(|&s| s == b))
        .unwrap_or(0);
    let s = systems[versions::kept_system(systems.len(), baseline)];
    let n = d.documents.len();
    let texts = |f: &dyn Fn(usize) -> Option<Text>| Values::Text((0..n).map(f).collect());
    let table = Table {
        columns: vec![
            Column::new("id", texts(&|i| Some(Text::from(d.documents[i].as_str())))),
            Column::new("text", texts(&|i| d.texts[i].as_deref().map(Text::from))),
            Column::new("reference", texts(&|i| spans_cell(d, i, r))),
            Column::new("system", texts(&|i| spans_cell(d, i, s))),
        ],
        nrows: n,
    };
    let experiment = std::fs::read_to_string(&a.cfg.origin)
        .map_err(|e| anyhow!("cannot read {} again: {e}", a.cfg.origin.display()))?;
    let settings = json!({
        "system": d.annotators[s],
        "reference": d.annotators[r],
        "token_input": a.cfg.format.tokens(),
        "origin": versions::file_name(a.cfg.origin.as_path()),
        "experiment": experiment,
    });
    versions::units_files(&a.cfg.experiment_id, "spans", UNIT, settings, table)
}

/// A folder's settings: its experiment file parsed again, the annotators
/// it kept.
struct Settings {
    cfg: SpansConfig,
    system: String,
    reference: String,
    token_input: bool,
}

impl Settings {
    /// Its interval settings and margins, for the preflight.
    fn judging(&self) -> versions::Judging<'_> {
        let iv = self.cfg.intervals.map(|i| (i.level, i.replicates, i.seed));
        (iv, self.cfg.margins.as_slice())
    }

    fn of(f: &Folder, doc: &Value) -> Result<Settings> {
        let bad = |key: &str| {
            error::config(anyhow!(
                "{}: output/{}_units.json has no valid '{key}'",
                f.dir.display(),
                f.id
            ))
        };
        let text = |key: &str| -> Result<String> {
            Ok(doc[key].as_str().ok_or_else(|| bad(key))?.to_string())
        };
        let origin = std::path::PathBuf::from(text("origin")?);
        let cfg = rsmreport_config::spans::parse(&text("experiment")?, &origin).map_err(|e| {
            error::config(anyhow!(
                "{}: the experiment kept in output/{}_units.json: {e}",
                f.dir.display(),
                f.id
            ))
        })?;
        Ok(Settings {
            cfg,
            system: text("system")?,
            reference: text("reference")?,
            token_input: doc["token_input"].as_bool().unwrap_or(false),
        })
    }
}

/// Refuses folders of token input and folders whose matching settings
/// differ (configuration errors naming both folders and the setting).
fn refuse_different(pair: &Pair, b: &Settings, c: &Settings) -> Result<()> {
    let (db, dc) = (pair.baseline.dir.display(), pair.candidate.dir.display());
    if b.token_input || c.token_input {
        return Err(error::config(anyhow!(
            "{} is a spans folder of token input (CoNLL or BIO JSON lines): compare takes \
             spans folders of span input (a span table or Prodigy JSON lines)",
            if b.token_input { &db } else { &dc }
        )));
    }
    let settings = [
        (
            "min_overlap",
            format!("{:?}", b.cfg.min_overlap),
            format!("{:?}", c.cfg.min_overlap),
        ),
        (
            "nervaluate_min_overlap_percentage",
            b.cfg.nervaluate_min_overlap_percentage.to_string(),
            c.cfg.nervaluate_min_overlap_percentage.to_string(),
        ),
    ];
    match settings.iter().find(|s| s.1 != s.2) {
        None => Ok(()),
        Some((name, vb, vc)) => Err(error::config(anyhow!(
            "the baseline folder {db} has {name} = {vb} and the candidate folder {dc} {name} = \
             {vc}: spans folders are compared only with the same matching criterion"
        ))),
    }
}

/// One folder's documents, as its units table holds them.
struct Side {
    ids: Vec<Option<Text>>,
    texts: Vec<Option<Text>>,
    reference: Vec<Option<Text>>,
    system: Vec<Option<Text>>,
}

impl Side {
    fn read(f: &Folder) -> Result<Side> {
        let mut t = f.units_table(&TEXT_COLUMNS)?;
        let path = f.dir.join(versions::units_table_path(&f.id));
        Ok(Side {
            ids: versions::take_texts(&mut t, "id", &path)?,
            texts: versions::take_texts(&mut t, "text", &path)?,
            reference: versions::take_texts(&mut t, "reference", &path)?,
            system: versions::take_texts(&mut t, "system", &path)?,
        })
    }
}

/// A spans cell read back: `(start, end, label)` (a data error naming the
/// folder's file).
fn parse_cell(cell: &Option<Text>, f: &Folder) -> Result<Option<Vec<(u32, u32, String)>>> {
    let Some(text) = cell else {
        return Ok(None);
    };
    serde_json::from_str(text).map(Some).map_err(|e| {
        anyhow!(
            "{}: {}: a spans cell is not [[start, end, \"label\"], ...]: {e}",
            f.dir.display(),
            versions::units_table_path(&f.id).display()
        )
    })
}

/// The reference and the two versions as the three annotators of one
/// run's data (the paired documents in the baseline's order, the labels
/// in code-point order).
fn data_of(pair: &Pair, (b, c): (&Side, &Side), reference: &str, p: &Paired) -> Result<Data> {
    let mut cells = Vec::with_capacity(p.rows.len());
    for &(i, j) in &p.rows {
        cells.push([
            parse_cell(&b.reference[i], &pair.baseline)?,
            parse_cell(&b.system[i], &pair.baseline)?,
            parse_cell(&c.system[j], &pair.candidate)?,
        ]);
    }
    let mut labels: Vec<String> = cells
        .iter()
        .flatten()
        .flatten()
        .flatten()
        .map(|s| s.2.clone())
        .collect();
    labels.sort();
    labels.dedup();
    let code = |l: &str| labels.binary_search_by(|x| x.as_str().cmp(l)).unwrap_or(0) as u32;
    let spans = cells
        .iter()
        .map(|doc| {
            doc.iter()
                .map(|a| {
                    a.iter()
                        .flatten()
                        .map(|s| Span {
                            start: s.0,
                            end: s.1,
                            label: code(&s.2),
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    let (lb, lc) = pair.labels();
    Ok(Data {
        annotators: vec![reference.to_string(), lb, lc],
        documents: p
            .rows
            .iter()
            .map(|&(i, _)| b.ids[i].as_deref().unwrap_or_default().to_string())
            .collect(),
        texts: p
            .rows
            .iter()
            .map(|&(i, _)| b.texts[i].as_deref().map(String::from))
            .collect(),
        covered: cells
            .iter()
            .map(|doc| doc.iter().map(Option::is_some).collect())
            .collect(),
        spans,
        labels,
        ..Data::default()
    })
}

/// The configuration of the comparison: the baseline folder's, with the
/// reference and the two versions as its annotators (the first version
/// the baseline), no subgroups, no gates.
fn config_of(pair: &Pair, s: &Settings) -> SpansConfig {
    let (lb, lc) = pair.labels();
    let mut cfg = s.cfg.clone();
    cfg.experiment_id = pair.id();
    cfg.description = String::new();
    cfg.model_version = None;
    cfg.annotators = Some(vec![s.reference.clone(), lb.clone(), lc]);
    cfg.reference = Some(s.reference.clone());
    cfg.baseline = Some(lb);
    cfg.systems = Vec::new();
    cfg.agreement_includes_reference = false;
    cfg.subgroups = Vec::new();
    cfg.gates = None;
    cfg.parsed_gates = Vec::new();
    cfg
}

/// The preflight rows (compare spec 2.1, for documents).
fn preflight(
    pair: &Pair,
    (b, c): (&Side, &Side),
    (sb, sc): (&Settings, &Settings),
    p: &Paired,
) -> Vec<PreflightRow> {
    let mut rows = versions::unit_rows(UNIT, TRUTH, (b.ids.len(), c.ids.len()), p);
    rows.extend([
        PreflightRow::judged("reference", sb.reference.clone(), sc.reference.clone()),
        PreflightRow::judged("system", sb.system.clone(), sc.system.clone()),
        PreflightRow::judged(
            "min_overlap",
            format!("{:?}", sb.cfg.min_overlap),
            format!("{:?}", sc.cfg.min_overlap),
        ),
    ]);
    rows.extend(versions::judging_rows(sb.judging(), sc.judging()));
    rows.extend(versions::envelope_rows(pair));
    rows
}

/// `rsmreport compare` of two spans folders (see the module's
/// documentation).
pub fn compare(pair: &Pair) -> Result<Box<dyn crate::kinds::Report>> {
    let (db, dc) = (pair.baseline.units(UNIT)?, pair.candidate.units(UNIT)?);
    let (sb, sc) = (
        Settings::of(&pair.baseline, &db)?,
        Settings::of(&pair.candidate, &dc)?,
    );
    refuse_different(pair, &sb, &sc)?;
    let (b, c) = (Side::read(&pair.baseline)?, Side::read(&pair.candidate)?);
    let p = versions::pair_units(&b.ids, &c.ids, |i, j| b.reference[i] == c.reference[j]);
    if p.rows.is_empty() {
        let n = (b.ids.len(), c.ids.len());
        return Err(versions::no_common_units(pair, UNIT, TRUTH, n, &p));
    }
    let data = data_of(pair, (&b, &c), &sb.reference, &p)?;
    let mut cfg = config_of(pair, &sb);
    if let Some(file) = &pair.gates_file {
        cfg.gates = versions::gates_tables(file)?;
        cfg.origin = file.clone();
        cfg.parsed_gates = super::gates::parse(&cfg).map_err(error::config)?;
    }
    let mut a = super::analyse(cfg, data);
    if p.differs > 0 {
        for r in a
            .sys_iv
            .comparisons
            .iter_mut()
            .chain(a.sys_iv.lead.as_mut())
        {
            r.verdict = Verdict::NotTestable;
        }
    }
    a.gates = super::gates::evaluate(&a.cfg.parsed_gates, &a);
    let preflight = preflight(pair, (&b, &c), (&sb, &sc), &p);
    let warnings = versions::warnings(UNIT, TRUTH, &p, &preflight, &["intervals", "margins"]);
    let inputs = versions::folder_inputs(pair, (b.ids.len(), c.ids.len()))?;
    let lines = change_lines(&a, p.rows.len());
    a.data.inputs = inputs.iter().map(|i| i.0.clone()).collect();
    Ok(Box::new(versions::Compared {
        inner: Box::new(a),
        kind: "spans",
        unit: UNIT,
        title: "Span annotation comparison",
        preflight,
        warnings,
        inputs,
        paired: p.rows.len(),
        lines,
    }))
}

/// compare's heading line and one change line per overall statistic and
/// per label whose verdict is a regression.
fn change_lines(a: &Analysis, paired: usize) -> Vec<String> {
    let names = &a.data.annotators;
    let heading = format!(
        "compare {} (baseline) -> {} (candidate), spans, paired on {} documents:",
        names[1],
        names[2],
        thousands(paired as u64)
    );
    versions::change_lines(heading, &a.sys_iv.comparisons, str::to_string)
}
