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
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};
use serde_json::{json, Value};

use super::read::{Data, Scores, SystemData};
use super::run::{analyse, Analysis};
use super::tables::{comparison_rows, McNemar};
use crate::kinds::common::comparison::ComparisonRow;
use crate::kinds::common::verdict::Verdict;
use crate::kinds::common::versions::{self, Folder, Pair, PreflightRow};
use rsmreport_config::classify::{ClassifyConfig, ScoreColumns};
use rsmreport_config::intervals::{Intervals, Unit};
use rsmreport_core::error;
use rsmreport_core::schema::FileFormat;
use rsmreport_core::table::{Column, Table, Text, Values};
use rsmreport_io::output::OutputFile;
use rsmreport_report::render::context::InputCtx;
use rsmreport_report::render::format::thousands;

/// What one unit of a classify folder is.
const UNIT: &str = "item";
/// The columns of the units table read as text.
const TEXT_COLUMNS: [&str; 3] = ["id", "gold", "predicted"];
/// How many differing ids a message names.
const SHOWN: usize = 5;

/// The system a folder keeps: the only one, else the last that is not
/// the baseline.
pub fn kept_system(n_systems: usize, baseline: usize) -> usize {
    (0..n_systems)
        .rev()
        .find(|&s| s != baseline || n_systems == 1)
        .unwrap_or(0)
}

/// A score column's name in the units table.
fn score_column(label: &str) -> String {
    format!("p_{label}")
}

/// The units files of a classify run (see the module's documentation).
pub fn units_files(cfg: &ClassifyConfig, a: &Analysis, data: &Data) -> Result<Vec<OutputFile>> {
    let s = kept_system(data.systems.len(), cfg.baseline);
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
        let mut take = |name: &str| -> Result<Values> {
            let i = t
                .columns
                .iter()
                .position(|c| c.name == name)
                .ok_or_else(|| anyhow!("{}: no column '{name}'", path.display()))?;
            Ok(std::mem::replace(
                &mut t.columns[i].values,
                Values::Int(Vec::new()),
            ))
        };
        let text = |v: Values, name: &str| match v {
            Values::Text(v) => Ok(v),
            _ => Err(anyhow!("{}: column '{name}' is not text", path.display())),
        };
        let ids = text(take("id")?, "id")?;
        let gold = text(take("gold")?, "gold")?;
        let pred = text(take("predicted")?, "predicted")?;
        let scores = if has_scores {
            let mut out = Vec::new();
            for l in &s.labels {
                let name = score_column(l);
                out.push(match take(&name)? {
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

/// The items both folders share, paired by id in the baseline's order.
struct Paired {
    /// `(baseline row, candidate row)` of each shared item whose gold
    /// labels agree.
    rows: Vec<(usize, usize)>,
    shared: usize,
    /// Shared items whose gold labels differ: how many, the first ids.
    gold_differs: usize,
    gold_differs_ids: Vec<String>,
}

fn pair_items(b: &Side, c: &Side) -> Paired {
    let index: HashMap<&str, usize> = c
        .ids
        .iter()
        .enumerate()
        .filter_map(|(i, id)| Some((id.as_deref()?, i)))
        .collect();
    let mut out = Paired {
        rows: Vec::new(),
        shared: 0,
        gold_differs: 0,
        gold_differs_ids: Vec::new(),
    };
    for (i, id) in b.ids.iter().enumerate() {
        let Some(&j) = id.as_deref().and_then(|id| index.get(id)) else {
            continue;
        };
        out.shared += 1;
        if b.gold[i] == c.gold[j] {
            out.rows.push((i, j));
        } else {
            out.gold_differs += 1;
            if out.gold_differs_ids.len() < SHOWN {
                out.gold_differs_ids
                    .push(id.as_deref().unwrap_or_default().to_string());
            }
        }
    }
    out
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
    let count = |n: usize| thousands(n as u64);
    let share = |n: usize, of: usize| {
        format!(
            "{} ({:.1}%)",
            count(n),
            if of == 0 {
                0.0
            } else {
                100.0 * n as f64 / of as f64
            }
        )
    };
    let (nb, nc) = (b.ids.len(), c.ids.len());
    let low = p.shared * 10 < nb * 9 || p.shared * 10 < nc * 9 || p.shared == 0;
    let status = |bad: bool| if bad { "differs" } else { "same" }.to_string();
    let text = |v: &Value| match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    let envelope = |key: &str| {
        PreflightRow::judged(
            key,
            text(&pair.baseline.summary[key]),
            text(&pair.candidate.summary[key]),
        )
    };
    let intervals = |s: &Settings| {
        s.intervals.map_or_else(
            || "none".to_string(),
            |i| {
                format!(
                    "level {}, {} replicates, seed {}",
                    i.level, i.replicates, i.seed
                )
            },
        )
    };
    let margins = |s: &Settings| {
        s.margins
            .iter()
            .map(|(k, m)| format!("{k} {m}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    vec![
        PreflightRow::judged("items", count(nb), count(nc)),
        PreflightRow {
            item: "items in common".into(),
            status: status(low),
            baseline: share(p.shared, nb),
            candidate: share(p.shared, nc),
        },
        PreflightRow {
            item: "gold labels differing on common items".into(),
            status: status(p.gold_differs > 0),
            baseline: count(p.gold_differs),
            candidate: count(p.gold_differs),
        },
        PreflightRow::judged("system", sb.system.clone(), sc.system.clone()),
        PreflightRow::judged("labels", sb.labels.join(", "), sc.labels.join(", ")),
        PreflightRow::judged("ordinal", sb.ordinal.to_string(), sc.ordinal.to_string()),
        PreflightRow::judged(
            "positive_label",
            sb.positive_label.clone().unwrap_or_default(),
            sc.positive_label.clone().unwrap_or_default(),
        ),
        PreflightRow::judged("intervals", intervals(sb), intervals(sc)),
        PreflightRow::judged("margins", margins(sb), margins(sc)),
        envelope("experiment_id"),
        envelope("model_version"),
        envelope("producer"),
    ]
}

/// The warnings of the first screen: ground truth that differs, few
/// items in common, settings of the baseline's used for both.
fn warnings(p: &Paired, rows: &[PreflightRow]) -> Vec<String> {
    let mut out = Vec::new();
    if p.gold_differs > 0 {
        out.push(format!(
            "the gold labels differ on {} of the {} items in common (first: {}): every \
             statistic depends on them, so no verdict is given; the numbers are those of the {} \
             items whose gold labels agree",
            thousands(p.gold_differs as u64),
            thousands(p.shared as u64),
            p.gold_differs_ids.join(", "),
            thousands(p.rows.len() as u64)
        ));
    }
    if rows[1].status == "differs" {
        out.push(format!(
            "the two versions share {} items: fewer than 90% of either side's; the comparison \
             is on the items in common only",
            rows[1].baseline
        ));
    }
    for r in rows.iter().filter(|r| {
        ["intervals", "margins", "positive_label"].contains(&r.item.as_str())
            && r.status == "differs"
    }) {
        out.push(format!(
            "{} differ ({} | {}): the baseline folder's are used",
            r.item, r.baseline, r.candidate
        ));
    }
    out
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
    let p = pair_items(&b, &c);
    if p.rows.is_empty() {
        return Err(error::config(anyhow!(
            "the baseline folder {} ({} items) and the candidate folder {} ({} items) have no \
             item in common{}: they evaluated different items",
            pair.baseline.dir.display(),
            thousands(b.ids.len() as u64),
            pair.candidate.dir.display(),
            thousands(c.ids.len() as u64),
            if p.shared > 0 {
                " whose gold labels agree"
            } else {
                ""
            }
        )));
    }
    let labels = pair.labels();
    let data = data_of(pair, (&b, &c), (&sb, &sc), &p);
    let cfg = config_of(pair, &sb, labels);
    let mut analysis = analyse(&cfg, &data);
    if p.gold_differs > 0 {
        withhold_verdicts(&mut analysis);
    }
    let rows = preflight(pair, (&b, &c), (&sb, &sc), &p);
    let warnings = warnings(&p, &rows);
    let count = |n: usize| thousands(n as u64);
    let inputs = vec![
        versions::folder_input("baseline", &pair.baseline, count(b.ids.len()))?,
        versions::folder_input("candidate", &pair.candidate, count(c.ids.len()))?,
    ];
    Ok(Box::new(Compared {
        analysis,
        cfg,
        preflight: rows,
        warnings,
        inputs,
        paired: p.rows.len(),
    }))
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

/// A finished comparison of two classify folders.
struct Compared {
    analysis: Analysis,
    cfg: ClassifyConfig,
    preflight: Vec<PreflightRow>,
    warnings: Vec<String>,
    /// Each folder's row of the report's inputs and entry of the JSON's.
    inputs: Vec<(InputCtx, Value)>,
    paired: usize,
}

impl Compared {
    fn rows(&self) -> Vec<ComparisonRow<McNemar>> {
        comparison_rows(&self.analysis)
    }
}

impl crate::kinds::Report for Compared {
    fn id(&self) -> &str {
        &self.analysis.id
    }

    fn tables(&self) -> crate::kinds::Tables<'_> {
        let mut frames = vec![versions::preflight_frame(&self.preflight)];
        frames.extend(super::tables::frames(&self.analysis));
        crate::kinds::owned(frames)
    }

    fn table_format(&self) -> FileFormat {
        self.cfg.file_format
    }

    fn summary(&self) -> Value {
        let a = &self.analysis;
        let json = super::tables::summary_json(a, "", "");
        let mut doc = crate::kinds::json_value(&json);
        if let Value::Object(m) = &mut doc {
            m.remove("inputs");
            m.insert("compared_kind".into(), json!("classify"));
            m.insert("unit".into(), json!(UNIT));
            m.insert("paired_units".into(), json!(self.paired));
            m.insert(
                "preflight".into(),
                versions::preflight_json(&self.preflight),
            );
            m.insert("warnings".into(), json!(self.warnings));
            let inputs = self.inputs.iter().map(|i| i.1.clone()).collect();
            m.insert("inputs".into(), Value::Array(inputs));
        }
        doc
    }

    fn inputs(&self) -> Vec<InputCtx> {
        self.inputs.iter().map(|i| i.0.clone()).collect()
    }

    fn gates(&self) -> &[crate::gates::Outcome] {
        &self.analysis.gates
    }

    fn decision(&self) -> Option<rsmreport_report::render::Decision> {
        let mut d = super::report::decision(&self.analysis, &self.rows())?;
        d.warnings.extend(self.warnings.iter().cloned());
        Some(d)
    }

    fn report(&self, epoch: i64) -> Result<rsmreport_report::render::Report> {
        let mut r = super::report::report(&self.analysis, self.inputs(), epoch)?;
        r.header.kind = "Classification comparison".into();
        r.header.decision = self.decision();
        versions::add_preflight_section(&mut r, &self.preflight);
        Ok(r)
    }

    fn report_name(&self) -> &'static str {
        "compare"
    }

    fn lines(&self, _written: &[PathBuf], _dir: &Path) -> Vec<String> {
        let a = &self.analysis;
        let mut out = versions::preflight_lines(&self.preflight);
        out.push(format!(
            "compare {} (baseline) -> {} (candidate), classify, paired on {} items:",
            a.systems[0].name,
            a.systems[1].name,
            thousands(self.paired as u64)
        ));
        let rows = self.rows();
        for r in &rows {
            let regressed = r.verdict.direction() == Some(false);
            if r.scope == "overall" || regressed {
                let scope = if r.scope == "overall" {
                    r.statistic.clone()
                } else {
                    format!("{} {}", r.statistic, r.scope)
                };
                out.push(versions::change_line(
                    &scope,
                    &r.delta,
                    None,
                    r.p_value,
                    r.verdict.name(),
                ));
            }
        }
        out.extend(self.warnings.iter().map(|w| format!("note: {w}")));
        out
    }
}
