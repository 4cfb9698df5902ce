//! Command assembly (classify), the version workflow (issue 49): what a
//! classify folder keeps so that a later version can be compared with it
//! ([`units_files`]: per item its id, gold label, predicted label and
//! scores, `output/<id>_units.parquet`, and the settings that give the
//! statistics their meaning, `output/<id>_units.json`), and `rsmreport
//! compare` of two classify folders ([`compare`]): the items both share,
//! paired by id, analysed by this kind's own code ([`super::run::analyse`]
//! with the two versions as its two systems, the earlier one the
//! baseline), so that the comparison is the `system_comparisons` of one
//! run with both systems: the same estimates, deltas, intervals and
//! p-values (the same items in the same order, the same seed).
//!
//! A folder keeps one system: the version under test (the only system,
//! else the last system that is not the baseline); 1,000,000 items with
//! 10 probability columns make about 80 MB of parquet. Reads the folders'
//! units files (in [`compare`] only); writes nothing (the units files go
//! to the one writer as data).

use std::collections::HashMap;

use anyhow::{anyhow, Result};
use serde_json::{json, Value};

use super::read::{Data, Scores, SystemData};
use super::run::{analyse, Analysis};
use super::tables::comparison_rows;
use crate::kinds::common::verdict::Verdict;
use crate::kinds::common::versions::{self, Folder, Pair, Paired, PreflightRow};
use rsmreport_config::classify::{ClassifyConfig, ScoreColumns};
use rsmreport_config::intervals::{Intervals, Unit};
use rsmreport_core::error;
use rsmreport_core::schema::FileFormat;
use rsmreport_core::table::{Column, Table, Text, Values};
use rsmreport_io::output::OutputFile;
use rsmreport_report::render::format::thousands;

/// What one unit of a classify folder is, and its ground truth.
const UNIT: &str = "item";
const TRUTH: &str = "gold labels";
/// The columns of the units table read as text.
const TEXT_COLUMNS: [&str; 3] = ["id", "gold", "predicted"];

/// A score column's name in the units table.
fn score_column(label: &str) -> String {
    format!("p_{label}")
}

/// The units files of a classify run (see the module's documentation).
pub fn units_files(cfg: &ClassifyConfig, a: &Analysis, data: &Data) -> Result<Vec<OutputFile>> {
    let s = versions::kept_system(data.systems.len(), cfg.baseline);
    let sys = &data.systems[s];
    let labels: Vec<Text> = data.labels.iter().map(|l| Text::from(l.as_str())).collect();
    let label = |c: u32| labels.get(c as usize).cloned();
    let mut columns = vec![
        Column::new(
            "id",
            Values::Text(data.ids.iter().cloned().map(Some).collect()),
        ),
        Column::new(
            "gold",
            Values::Text(data.gold.iter().map(|&g| label(g)).collect()),
        ),
        Column::new(
            "predicted",
            Values::Text(sys.pred.iter().map(|&p| label(p)).collect()),
        ),
    ];
    if let Some(scores) = &sys.scores {
        for (l, c) in data.labels.iter().zip(&scores.columns) {
            columns.push(Column::new(score_column(l), Values::Float(c.clone())));
        }
    }
    let table = Table {
        columns,
        nrows: data.n(),
    };
    let settings = json!({
        "system": sys.name,
        "labels": data.labels,
        "ordinal": cfg.ordinal,
        "beta": cfg.beta,
        "positive_label": cfg.positive_label,
        "scores": a.systems[s].ranking.as_ref().map(|r| r.kind.name()),
        "intervals": cfg.intervals.map(|i| json!({
            "level": i.level, "replicates": i.replicates, "seed": i.seed,
            "unit": if i.unit == Unit::Candidate { "candidate" } else { UNIT },
        })),
        "margins": cfg.margins.iter().map(|(s, m)| (s.clone(), json!(m))).collect::<serde_json::Map<_, _>>(),
        "curve_points": cfg.curve_points,
        "file_format": cfg.file_format.extension(),
    });
    versions::units_files(&a.id, "classify", UNIT, settings, table)
}

/// The settings a folder's units file records.
#[derive(Clone, Debug, PartialEq)]
struct Settings {
    system: String,
    labels: Vec<String>,
    ordinal: bool,
    beta: Vec<f64>,
    positive_label: Option<String>,
    intervals: Option<Intervals>,
    margins: Vec<(String, f64)>,
    curve_points: usize,
    file_format: FileFormat,
}

impl Settings {
    /// Its interval settings and margins, for the preflight.
    fn judging(&self) -> versions::Judging<'_> {
        let iv = self.intervals.map(|i| (i.level, i.replicates, i.seed));
        (iv, self.margins.as_slice())
    }

    /// From a folder's units document (a configuration error naming the
    /// folder and key when one is not what this rsmreport writes).
    fn of(f: &Folder, doc: &Value) -> Result<Settings> {
        let bad = |key: &str| {
            error::config(anyhow!(
                "{}: output/{}_units.json has no valid '{key}'",
                f.dir.display(),
                f.id
            ))
        };
        let texts = |key: &str| -> Result<Vec<String>> {
            doc.get(key)
                .and_then(Value::as_array)
                .and_then(|v| v.iter().map(|x| x.as_str().map(String::from)).collect())
                .ok_or_else(|| bad(key))
        };
        let intervals = match doc.get("intervals") {
            None | Some(Value::Null) => None,
            Some(i) => Some(Intervals {
                level: i["level"].as_f64().ok_or_else(|| bad("intervals"))?,
                replicates: i["replicates"].as_u64().ok_or_else(|| bad("intervals"))?,
                seed: i["seed"].as_u64().ok_or_else(|| bad("intervals"))?,
                unit: match i["unit"].as_str() {
                    Some("candidate") => Unit::Candidate,
                    _ => Unit::Response,
                },
            }),
        };
        let margins = doc
            .get("margins")
            .and_then(Value::as_object)
            .ok_or_else(|| bad("margins"))?
            .iter()
            .map(|(k, v)| Ok((k.clone(), v.as_f64().ok_or_else(|| bad("margins"))?)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Settings {
            system: doc["system"]
                .as_str()
                .ok_or_else(|| bad("system"))?
                .to_string(),
            labels: texts("labels")?,
            ordinal: doc["ordinal"].as_bool().ok_or_else(|| bad("ordinal"))?,
            beta: doc["beta"]
                .as_array()
                .and_then(|v| v.iter().map(Value::as_f64).collect())
                .ok_or_else(|| bad("beta"))?,
            positive_label: doc["positive_label"].as_str().map(String::from),
            intervals,
            margins,
            curve_points: doc["curve_points"]
                .as_u64()
                .ok_or_else(|| bad("curve_points"))? as usize,
            file_format: match doc["file_format"].as_str() {
                Some("tsv") => FileFormat::Tsv,
                Some("xlsx") => FileFormat::Xlsx,
                _ => FileFormat::Csv,
            },
        })
    }
}

/// One folder's items, as its units table holds them.
struct Side {
    ids: Vec<Option<Text>>,
    gold: Vec<Option<Text>>,
    pred: Vec<Option<Text>>,
    /// Per label of the folder's own label set, its score column.
    scores: Option<Vec<Vec<f64>>>,
}

impl Side {
    /// A folder's units table (data errors name the file).
    fn read(f: &Folder, s: &Settings) -> Result<Side> {
        let mut t = f.units_table(&TEXT_COLUMNS)?;
        let has_scores = t.columns.iter().any(|c| c.name.starts_with("p_"));
        let path = f.dir.join(versions::units_table_path(&f.id));
        let ids = versions::take_texts(&mut t, "id", &path)?;
        let gold = versions::take_texts(&mut t, "gold", &path)?;
        let pred = versions::take_texts(&mut t, "predicted", &path)?;
        let scores = if has_scores {
            let mut out = Vec::new();
            for l in &s.labels {
                let name = score_column(l);
                out.push(match versions::take_column(&mut t, &name, &path)? {
                    Values::Float(v) => v,
                    Values::Int(v) => v.into_iter().map(|x| x as f64).collect(),
                    _ => {
                        return Err(anyhow!(
                            "{}: column '{name}' is not numbers",
                            path.display()
                        ))
                    }
                });
            }
            Some(out)
        } else {
            None
        };
        Ok(Side {
            ids,
            gold,
            pred,
            scores,
        })
    }
}

/// Refuses two folders whose statistics would not mean the same: other
/// label sets (as sets: their order follows the baseline) or one ordinal
/// and the other not (configuration errors naming both folders).
fn refuse_different(pair: &Pair, b: &Settings, c: &Settings) -> Result<()> {
    let mut sb = b.labels.clone();
    let mut sc = c.labels.clone();
    sb.sort();
    sc.sort();
    let (db, dc) = (pair.baseline.dir.display(), pair.candidate.dir.display());
    if sb != sc {
        return Err(error::config(anyhow!(
            "the baseline folder {db} has the labels [{}] and the candidate folder {dc} the \
             labels [{}]: classify folders are compared only on one label set",
            b.labels.join(", "),
            c.labels.join(", ")
        )));
    }
    if b.ordinal != c.ordinal {
        return Err(error::config(anyhow!(
            "the baseline folder {db} has ordinal = {} and the candidate folder {dc} ordinal = \
             {}: classify folders are compared only with the same setting",
            b.ordinal,
            c.ordinal
        )));
    }
    Ok(())
}

/// The two versions as the two systems of one experiment's data, on the
/// paired items (the baseline's label order).
fn data_of(
    pair: &Pair,
    (b, c): (&Side, &Side),
    (sb, sc): (&Settings, &Settings),
    p: &Paired,
) -> Data {
    let code: HashMap<&str, u32> = sb
        .labels
        .iter()
        .enumerate()
        .map(|(i, l)| (l.as_str(), i as u32))
        .collect();
    let k = sb.labels.len() as u32;
    let code_of = |t: &Option<Text>| t.as_deref().and_then(|t| code.get(t).copied()).unwrap_or(k);
    let system =
        |side: &Side, s: &Settings, rows: &mut dyn Iterator<Item = usize>, name: String| {
            let rows: Vec<usize> = rows.collect();
            let scores = side.scores.as_ref().map(|cols| {
                // The folder's own label order to the baseline's.
                let by_label: HashMap<&str, &Vec<f64>> =
                    s.labels.iter().map(String::as_str).zip(cols).collect();
                Scores {
                    columns: sb
                        .labels
                        .iter()
                        .map(|l| rows.iter().map(|&i| by_label[l.as_str()][i]).collect())
                        .collect(),
                }
            });
            SystemData {
                name,
                pred: rows.iter().map(|&i| code_of(&side.pred[i])).collect(),
                scores,
            }
        };
    let (lb, lc) = pair.labels();
    Data {
        file: pair.baseline.dir.clone(),
        n_rows: p.rows.len(),
        n_dropped_blank_gold: 0,
        ids: p
            .rows
            .iter()
            .map(|&(i, _)| b.ids[i].clone().unwrap_or_else(|| Text::from("")))
            .collect(),
        labels: sb.labels.clone(),
        gold: p.rows.iter().map(|&(i, _)| code_of(&b.gold[i])).collect(),
        systems: vec![
            system(b, sb, &mut p.rows.iter().map(|r| r.0), lb),
            system(c, sc, &mut p.rows.iter().map(|r| r.1), lc),
        ],
        subgroups: Vec::new(),
    }
}

/// The configuration of the comparison: the baseline folder's settings,
/// the two versions as the systems, the first the baseline.
fn config_of(pair: &Pair, s: &Settings, labels: (String, String)) -> ClassifyConfig {
    ClassifyConfig {
        experiment_id: pair.id(),
        description: String::new(),
        model_version: None,
        predictions_file: pair
            .baseline
            .dir
            .join(versions::units_table_path(&pair.baseline.id)),
        id_column: Some("id".into()),
        gold_column: "gold".into(),
        system_columns: vec![labels.0, labels.1],
        labels: Some(s.labels.clone()),
        scores: ScoreColumns::None,
        positive_label: s.positive_label.clone(),
        beta: s.beta.clone(),
        ordinal: s.ordinal,
        subgroups: Vec::new(),
        baseline: 0,
        file_format: s.file_format,
        intervals: s.intervals,
        curve_points: s.curve_points,
        gates: None,
        origin: pair.baseline.dir.clone(),
        margins: s.margins.clone(),
    }
}

/// The preflight rows (compare spec 2.1, for items).
fn preflight(
    pair: &Pair,
    (b, c): (&Side, &Side),
    (sb, sc): (&Settings, &Settings),
    p: &Paired,
) -> Vec<PreflightRow> {
    let mut rows = versions::unit_rows(UNIT, TRUTH, (b.ids.len(), c.ids.len()), p);
    rows.extend([
        PreflightRow::judged("system", sb.system.clone(), sc.system.clone()),
        PreflightRow::judged("labels", sb.labels.join(", "), sc.labels.join(", ")),
        PreflightRow::judged("ordinal", sb.ordinal.to_string(), sc.ordinal.to_string()),
        PreflightRow::judged(
            "positive_label",
            sb.positive_label.clone().unwrap_or_default(),
            sc.positive_label.clone().unwrap_or_default(),
        ),
    ]);
    rows.extend(versions::judging_rows(sb.judging(), sc.judging()));
    rows.extend(versions::envelope_rows(pair));
    rows
}

/// `rsmreport compare` of two classify folders (see the module's
/// documentation).
pub fn compare(pair: &Pair) -> Result<Box<dyn crate::kinds::Report>> {
    let (db, dc) = (pair.baseline.units(UNIT)?, pair.candidate.units(UNIT)?);
    let (sb, sc) = (
        Settings::of(&pair.baseline, &db)?,
        Settings::of(&pair.candidate, &dc)?,
    );
    refuse_different(pair, &sb, &sc)?;
    let (b, c) = std::thread::scope(|scope| {
        let other = scope.spawn(|| Side::read(&pair.candidate, &sc));
        let b = Side::read(&pair.baseline, &sb);
        (
            b,
            other.join().expect("reading the candidate folder panicked"),
        )
    });
    let (b, c) = (b?, c?);
    let p = versions::pair_units(&b.ids, &c.ids, |i, j| b.gold[i] == c.gold[j]);
    if p.rows.is_empty() {
        let n = (b.ids.len(), c.ids.len());
        return Err(versions::no_common_units(pair, UNIT, TRUTH, n, &p));
    }
    let data = data_of(pair, (&b, &c), (&sb, &sc), &p);
    let mut cfg = config_of(pair, &sb, pair.labels());
    let gates = match &pair.gates_file {
        Some(file) => {
            cfg.gates = versions::gates_tables(file)?;
            cfg.origin = file.clone();
            super::gates::parse(&cfg).map_err(error::config)?
        }
        None => Vec::new(),
    };
    let mut analysis = analyse(&cfg, &data);
    if p.differs > 0 {
        withhold_verdicts(&mut analysis);
    }
    analysis.gates = super::gates::evaluate(&gates, &cfg, &analysis).map_err(error::config)?;
    let preflight = preflight(pair, (&b, &c), (&sb, &sc), &p);
    let warnings = versions::warnings(
        UNIT,
        TRUTH,
        &p,
        &preflight,
        &["intervals", "margins", "positive_label"],
    );
    let inputs = versions::folder_inputs(pair, (b.ids.len(), c.ids.len()))?;
    let lines = change_lines(&analysis, p.rows.len());
    let input = inputs[0].0.clone();
    Ok(Box::new(versions::Compared {
        inner: Box::new(super::Computed {
            analysis,
            cfg,
            input,
            data,
        }),
        kind: "classify",
        unit: UNIT,
        title: "Classification comparison",
        preflight,
        warnings,
        inputs,
        paired: p.rows.len(),
        lines,
    }))
}

/// compare's heading line and one change line per overall statistic and
/// per class whose recall regressed.
fn change_lines(a: &Analysis, paired: usize) -> Vec<String> {
    let heading = format!(
        "compare {} (baseline) -> {} (candidate), classify, paired on {} items:",
        a.systems[0].name,
        a.systems[1].name,
        thousands(paired as u64)
    );
    versions::change_lines(heading, &comparison_rows(a), str::to_string)
}

/// No verdict where the ground truth differs: every paired row becomes
/// `not testable` (its numbers kept).
fn withhold_verdicts(a: &mut Analysis) {
    if let Some(iv) = a.intervals.as_mut() {
        for r in &mut iv.deltas {
            r.verdict = Verdict::NotTestable;
        }
    }
}
