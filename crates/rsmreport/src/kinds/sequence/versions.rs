//! Command assembly (sequence), the version workflow (issue 49): what a
//! sequence folder keeps so that a later version can be compared with it
//! ([`units_files`]: per segment its id, every reference and the
//! hypothesis of the version under test, `output/<id>_units.parquet`;
//! the experiment file's text, whose settings give every metric its
//! meaning, in `output/<id>_units.json`), and `rsmreport compare` of two
//! sequence folders ([`compare`]): the segments both share, paired by id,
//! scored by this kind's own run ([`super::run::run`]) with the two
//! versions as its two systems, the earlier one the baseline, so that the
//! comparison is the `system_comparisons` of one run with both systems
//! (the same segments in the same order, the same seed).
//!
//! The segments' texts are kept rather than their n-gram and edit counts:
//! the counts depend on every tokenizer setting, and rescoring the texts
//! with one run's code is what makes the two comparisons the same.
//! Perplexity (log-probabilities) is not compared between folders.
//! Folders with other metrics, tokenizers or `[wer]` transforms are
//! refused, naming the setting. Reads the folders' units files (in
//! [`compare`] only); writes nothing.

use anyhow::{anyhow, Result};
use serde_json::{json, Value};

use super::read::Segments;
use super::run::Run;
use crate::kinds::common::verdict::Verdict;
use crate::kinds::common::versions::{self, Folder, Pair, Paired, PreflightRow};
use rsmreport_config::sequence::{SequenceConfig, Source};
use rsmreport_core::error;
use rsmreport_core::table::{Column, Table, Text, Values};
use rsmreport_io::output::OutputFile;
use rsmreport_report::render::format::thousands;

/// What one unit of a sequence folder is, and its ground truth.
const UNIT: &str = "segment";
const TRUTH: &str = "references";

/// The units table's column of reference stream `k`.
fn reference_column(k: usize) -> String {
    format!("reference_{}", k + 1)
}

/// The units files of a sequence run (see the module's documentation).
pub fn units_files(cfg: &SequenceConfig, run: &Run) -> Result<Vec<OutputFile>> {
    let seg = &run.segments;
    if seg.systems.is_empty() {
        return Ok(Vec::new());
    }
    let s = versions::kept_system(seg.systems.len(), run.baseline);
    let text = |v: &Option<String>| v.as_deref().map(Text::from);
    let mut columns = vec![Column::new(
        "id",
        Values::Text(
            seg.ids
                .iter()
                .map(|i| Some(Text::from(i.as_str())))
                .collect(),
        ),
    )];
    for (k, stream) in seg.refs.iter().enumerate() {
        columns.push(Column::new(
            reference_column(k),
            Values::Text(stream.iter().map(text).collect()),
        ));
    }
    columns.push(Column::new(
        "hypothesis",
        Values::Text(
            seg.hyps[s]
                .iter()
                .map(|h| Some(Text::from(h.as_str())))
                .collect(),
        ),
    ));
    let table = Table {
        columns,
        nrows: seg.n(),
    };
    let experiment = std::fs::read_to_string(&cfg.origin)
        .map_err(|e| anyhow!("cannot read {} again: {e}", cfg.origin.display()))?;
    let settings = json!({
        "system": seg.systems[s],
        "references": seg.refs.len(),
        "metrics": cfg.metrics,
        "origin": versions::file_name(cfg.origin.as_path()),
        "experiment": experiment,
    });
    versions::units_files(&cfg.experiment_id, "sequence", UNIT, settings, table)
}

/// A folder's settings: its experiment file parsed again, and the system
/// it kept.
struct Settings {
    cfg: SequenceConfig,
    system: String,
    references: usize,
}

impl Settings {
    /// Its interval settings and margins, for the preflight.
    fn judging(&self) -> versions::Judging<'_> {
        let iv = self
            .cfg
            .intervals
            .map(|i| (i.level, i.replicates as u64, u64::from(i.seed)));
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
        let text = doc["experiment"]
            .as_str()
            .ok_or_else(|| bad("experiment"))?;
        let origin = std::path::PathBuf::from(doc["origin"].as_str().ok_or_else(|| bad("origin"))?);
        let cfg = rsmreport_config::sequence::parse(text, &origin).map_err(|e| {
            error::config(anyhow!(
                "{}: the experiment kept in output/{}_units.json: {e}",
                f.dir.display(),
                f.id
            ))
        })?;
        Ok(Settings {
            cfg,
            system: doc["system"]
                .as_str()
                .ok_or_else(|| bad("system"))?
                .to_string(),
            references: doc["references"]
                .as_u64()
                .ok_or_else(|| bad("references"))? as usize,
        })
    }

    /// The metrics compared between folders (perplexity left out).
    fn metrics(&self) -> Vec<&str> {
        self.cfg
            .metrics
            .iter()
            .map(String::as_str)
            .filter(|m| *m != "perplexity")
            .collect()
    }
}

/// Refuses two folders whose metrics would not mean the same (other
/// metrics, BLEU, chrF or TER options, `[wer]` transforms, number of
/// reference streams): a configuration error naming the setting and
/// both folders' values.
fn refuse_different(pair: &Pair, b: &Settings, c: &Settings) -> Result<()> {
    let (x, y) = (&b.cfg, &c.cfg);
    let differs: Vec<(&str, String, String)> = [
        versions::differing("metrics", &b.metrics(), &c.metrics()),
        versions::differing("[bleu]", &x.bleu, &y.bleu),
        versions::differing("[chrf]", &x.chrf, &y.chrf),
        versions::differing("[ter]", &x.ter, &y.ter),
        versions::differing("[wer]", &x.wer, &y.wer),
        versions::differing("reference streams", &b.references, &c.references),
    ]
    .into_iter()
    .flatten()
    .collect();
    match differs.first() {
        None => Ok(()),
        Some((name, vb, vc)) => Err(error::config(anyhow!(
            "the baseline folder {} and the candidate folder {} were scored with other {name} \
             ({vb} | {vc}): sequence folders are compared only with the same settings",
            pair.baseline.dir.display(),
            pair.candidate.dir.display(),
        ))),
    }
}

/// One folder's segments, as its units table holds them.
struct Side {
    ids: Vec<Option<Text>>,
    refs: Vec<Vec<Option<Text>>>,
    hyps: Vec<Option<Text>>,
}

impl Side {
    fn read(f: &Folder, s: &Settings) -> Result<Side> {
        let names: Vec<String> = (0..s.references).map(reference_column).collect();
        let mut wanted: Vec<&str> = vec!["id", "hypothesis"];
        wanted.extend(names.iter().map(String::as_str));
        let mut t = f.units_table(&wanted)?;
        let path = f.dir.join(versions::units_table_path(&f.id));
        Ok(Side {
            ids: versions::take_texts(&mut t, "id", &path)?,
            refs: names
                .iter()
                .map(|n| versions::take_texts(&mut t, n, &path))
                .collect::<Result<_>>()?,
            hyps: versions::take_texts(&mut t, "hypothesis", &path)?,
        })
    }
}

/// The two versions as the two systems of one run's segments (the
/// baseline's references, the paired segments in the baseline's order).
fn segments_of(pair: &Pair, (b, c): (&Side, &Side), p: &Paired) -> Segments {
    let owned = |t: &Option<Text>| t.as_deref().map(String::from);
    let (lb, lc) = pair.labels();
    Segments {
        n_rows: p.rows.len(),
        ids: p
            .rows
            .iter()
            .map(|&(i, _)| owned(&b.ids[i]).unwrap_or_default())
            .collect(),
        dropped_ids: Vec::new(),
        refs: b
            .refs
            .iter()
            .map(|stream| p.rows.iter().map(|&(i, _)| owned(&stream[i])).collect())
            .collect(),
        systems: vec![lb, lc],
        hyps: vec![
            p.rows
                .iter()
                .map(|&(i, _)| owned(&b.hyps[i]).unwrap_or_default())
                .collect(),
            p.rows
                .iter()
                .map(|&(_, j)| owned(&c.hyps[j]).unwrap_or_default())
                .collect(),
        ],
        subgroups: Vec::new(),
        wer_tokens: None,
    }
}

/// The configuration of the comparison: the baseline folder's, the two
/// versions as its systems (the first the baseline), no subgroups, no
/// log-probabilities, no gates.
fn config_of(pair: &Pair, s: &Settings) -> SequenceConfig {
    let (lb, lc) = pair.labels();
    let mut cfg = s.cfg.clone();
    cfg.experiment_id = pair.id();
    cfg.description = String::new();
    cfg.model_version = None;
    cfg.source = Source::Table {
        file: pair
            .baseline
            .dir
            .join(versions::units_table_path(&pair.baseline.id)),
        id_column: Some("id".into()),
        reference_columns: (0..s.references).map(reference_column).collect(),
        system_columns: vec![lb.clone(), lc],
        subgroups: Vec::new(),
    };
    cfg.logprobs_file = None;
    cfg.metrics.retain(|m| m != "perplexity");
    cfg.baseline = Some(lb);
    cfg.gates = None;
    cfg.parsed_gates = Vec::new();
    cfg
}

/// The preflight rows (compare spec 2.1, for segments).
fn preflight(
    pair: &Pair,
    (b, c): (&Side, &Side),
    (sb, sc): (&Settings, &Settings),
    p: &Paired,
) -> Vec<PreflightRow> {
    let mut rows = versions::unit_rows(UNIT, TRUTH, (b.ids.len(), c.ids.len()), p);
    rows.extend([
        PreflightRow::judged("system", sb.system.clone(), sc.system.clone()),
        PreflightRow::judged("metrics", sb.metrics().join(", "), sc.metrics().join(", ")),
        PreflightRow::judged(
            "reference streams",
            sb.references.to_string(),
            sc.references.to_string(),
        ),
    ]);
    rows.extend(versions::judging_rows(sb.judging(), sc.judging()));
    rows.extend(versions::envelope_rows(pair));
    rows
}

/// `rsmreport compare` of two sequence folders (see the module's
/// documentation).
pub fn compare(pair: &Pair) -> Result<Box<dyn crate::kinds::Report>> {
    let (db, dc) = (pair.baseline.units(UNIT)?, pair.candidate.units(UNIT)?);
    let (sb, sc) = (
        Settings::of(&pair.baseline, &db)?,
        Settings::of(&pair.candidate, &dc)?,
    );
    refuse_different(pair, &sb, &sc)?;
    let (b, c) = (
        Side::read(&pair.baseline, &sb)?,
        Side::read(&pair.candidate, &sc)?,
    );
    let p = versions::pair_units(&b.ids, &c.ids, |i, j| {
        b.refs.iter().zip(&c.refs).all(|(x, y)| x[i] == y[j])
    });
    if p.rows.is_empty() {
        let n = (b.ids.len(), c.ids.len());
        return Err(versions::no_common_units(pair, UNIT, TRUTH, n, &p));
    }
    let mut cfg = config_of(pair, &sb);
    if let Some(file) = &pair.gates_file {
        cfg.gates = versions::gates_tables(file)?;
        cfg.origin = file.clone();
        cfg.parsed_gates = super::gates::parse(&cfg).map_err(error::config)?;
    }
    let mut run = super::run::run(&cfg, segments_of(pair, (&b, &c), &p), Vec::new())?;
    if p.differs > 0 {
        for (_, rows) in &mut run.comparisons {
            for r in rows.iter_mut() {
                r.verdict = Verdict::NotTestable;
            }
        }
    }
    run.gates = super::gates::evaluate(&cfg.parsed_gates, &run);
    let preflight = preflight(pair, (&b, &c), (&sb, &sc), &p);
    let warnings = versions::warnings(UNIT, TRUTH, &p, &preflight, &["intervals", "margins"]);
    let inputs = versions::folder_inputs(pair, (b.ids.len(), c.ids.len()))?;
    let lines = change_lines(&run, &cfg, p.rows.len());
    Ok(Box::new(versions::Compared {
        inner: Box::new(super::Computed {
            run,
            cfg,
            inputs: inputs.iter().map(|i| i.0.clone()).collect(),
        }),
        kind: "sequence",
        unit: UNIT,
        title: "Sequence comparison",
        preflight,
        warnings,
        inputs,
        paired: p.rows.len(),
        lines,
    }))
}

/// compare's heading line and one change line per compared metric.
fn change_lines(run: &Run, cfg: &SequenceConfig, paired: usize) -> Vec<String> {
    let heading = format!(
        "compare {} (baseline) -> {} (candidate), sequence, paired on {} segments:",
        run.systems[0].name,
        run.systems[1].name,
        thousands(paired as u64)
    );
    let rows = run.comparisons.iter().flat_map(|(_, rows)| rows);
    versions::change_lines(heading, rows, |m| super::tables::metric_name(cfg, m))
}
