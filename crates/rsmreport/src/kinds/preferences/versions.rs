//! Command assembly (preferences), the version workflow (issue 49): what
//! a preferences folder keeps so that a later round of annotation can be
//! compared with it ([`units_files`]: per pair its id, the lengths of its
//! two texts, the reference annotator's vote and each annotator's vote
//! as written, `output/<id>_units.parquet`; the reference and annotator
//! columns, their shown names and the intervals,
//! `output/<id>_units.json`), and `rsmreport compare` of two preferences
//! folders ([`compare`]): the pairs both rounds share, paired by id, each
//! annotator's strength, accuracy and relevance against the reference
//! (the judge's alignment with the human reference) computed for both
//! rounds by the kind's own analysis ([`super::run::analyse`]), the
//! changes judged by the shared paired bootstrap of `kinds::common::rounds`
//! (Holm across the annotators of each statistic).
//!
//! Folders with another set of annotators are refused, naming both.
//! Every statistic is against the reference: reference votes that differ
//! on shared pairs are counted on the first screen, those pairs left out
//! and no verdict given. Reads the folders' units files (in [`compare`]
//! only); writes nothing.

use anyhow::{anyhow, Result};
use serde_json::json;

use super::read::Pairs;
use super::run::{analyse, Analysis};
use crate::kinds::common::comparison::Estimate;
use crate::kinds::common::rounds::{paired_rows, Rounds, Stat};
use crate::kinds::common::versions::{self, Folder, Pair, Paired, PreflightRow, UnitsDoc};
use rsmreport_config::intervals::Intervals;
use rsmreport_config::preferences::PreferencesConfig;
use rsmreport_core::error;
use rsmreport_core::schema::FileFormat;
use rsmreport_core::table::{Column, Table, Text, Values};
use rsmreport_io::output::OutputFile;
use rsmreport_metrics::bootstrap::Interval;
use rsmreport_metrics::preferences::{
    annotator_metrics, normalize_votes, vote_tables, AnnotatorIntervals, AnnotatorMetrics, PairSet,
};

/// What one unit of a preferences folder is, and its ground truth.
const UNIT: &str = "pair";
const TRUTH: &str = "reference votes";
/// The practical margin of every compared statistic.
const MARGIN: f64 = 0.01;
/// The compared statistics of each annotator, the headline first.
const STATISTICS: [&str; 3] = ["strength", "accuracy", "relevance"];

/// The units table's column of annotator `j` (0-based).
fn annotator_column(j: usize) -> String {
    format!("annotator_{}", j + 1)
}

/// The units files of a preferences run (see the module's
/// documentation).
pub fn units_files(cfg: &PreferencesConfig, a: &Analysis, p: &Pairs) -> Result<Vec<OutputFile>> {
    let lengths = |v: &[u32]| Values::Int(v.iter().map(|&x| i64::from(x)).collect());
    let mut columns = vec![
        Column::new(
            "id",
            Values::Text(p.ids.iter().cloned().map(Some).collect()),
        ),
        Column::new("len_a", lengths(&p.len_a)),
        Column::new("len_b", lengths(&p.len_b)),
        Column::new("reference", Values::Text(p.reference.1.clone())),
    ];
    for (j, (_, votes)) in p.annotators.iter().enumerate() {
        columns.push(Column::new(
            annotator_column(j),
            Values::Text(votes.clone()),
        ));
    }
    let settings = json!({
        "reference": a.reference,
        "reference_name": a.reference_name,
        "annotators": a.annotators,
        "annotator_names": a.annotator_names,
        "intervals": versions::intervals_json(
            cfg.intervals.map(|i| (i.level, i.replicates, i.seed)),
            UNIT,
        ),
        "file_format": cfg.file_format.extension(),
    });
    let table = Table {
        columns,
        nrows: p.len(),
    };
    versions::units_files(&cfg.experiment_id, "preferences", UNIT, settings, table)
}

/// The settings a folder's units file records.
#[derive(Clone, Debug, PartialEq)]
struct Settings {
    reference: String,
    reference_name: String,
    annotators: Vec<String>,
    annotator_names: Vec<String>,
    intervals: Option<Intervals>,
    file_format: FileFormat,
}

impl Settings {
    fn of(d: &UnitsDoc<'_>) -> Result<Settings> {
        Ok(Settings {
            reference: d.text("reference")?,
            reference_name: d.text("reference_name")?,
            annotators: d.texts("annotators")?,
            annotator_names: d.texts("annotator_names")?,
            intervals: d.resampling()?.map(|(level, replicates, seed)| Intervals {
                level,
                replicates,
                seed,
                ..Intervals::default()
            }),
            file_format: d.file_format(),
        })
    }

    fn resampling(&self) -> Option<(f64, u64, u64)> {
        self.intervals.map(|i| (i.level, i.replicates, i.seed))
    }
}

/// Refuses two folders of other annotators (a configuration error naming
/// both folders' annotators): each statistic is an annotator's.
fn refuse_different(pair: &Pair, b: &Settings, c: &Settings) -> Result<()> {
    let sorted = |v: &[String]| {
        let mut v = v.to_vec();
        v.sort();
        v
    };
    if sorted(&b.annotators) == sorted(&c.annotators) {
        return Ok(());
    }
    Err(error::config(anyhow!(
        "the baseline folder {} has the annotators [{}] and the candidate folder {} the \
         annotators [{}]: preferences folders are compared only with the same annotators",
        pair.baseline.dir.display(),
        b.annotators.join(", "),
        pair.candidate.dir.display(),
        c.annotators.join(", ")
    )))
}

/// One folder's pairs, as its units table holds them.
struct Side {
    ids: Vec<Option<Text>>,
    len_a: Vec<u32>,
    len_b: Vec<u32>,
    reference: Vec<Option<Text>>,
    /// Each annotator's votes, in the folder's own order.
    votes: Vec<Vec<Option<Text>>>,
}

impl Side {
    fn read(f: &Folder, s: &Settings) -> Result<Side> {
        let names: Vec<String> = (0..s.annotators.len()).map(annotator_column).collect();
        let mut wanted: Vec<&str> = vec!["id", "reference"];
        wanted.extend(names.iter().map(String::as_str));
        let mut t = f.units_table(&wanted)?;
        let path = f.dir.join(versions::units_table_path(&f.id));
        let mut lengths = |name: &str| -> Result<Vec<u32>> {
            match versions::take_column(&mut t, name, &path)? {
                Values::Int(v) => Ok(v.into_iter().map(|x| x.max(0) as u32).collect()),
                _ => Err(anyhow!("{}: column '{name}' is not counts", path.display())),
            }
        };
        let (len_a, len_b) = (lengths("len_a")?, lengths("len_b")?);
        Ok(Side {
            ids: versions::take_texts(&mut t, "id", &path)?,
            len_a,
            len_b,
            reference: versions::take_texts(&mut t, "reference", &path)?,
            votes: names
                .iter()
                .map(|n| versions::take_texts(&mut t, n, &path))
                .collect::<Result<_>>()?,
        })
    }

    /// The pairs `rows`, in that order, as the kind reads them; the
    /// annotators in the order `order` (positions in this folder's own).
    fn pairs(&self, s: &Settings, order: &[usize], rows: &[usize]) -> Pairs {
        let pick = |v: &[Option<Text>]| rows.iter().map(|&i| v[i].clone()).collect::<Vec<_>>();
        Pairs {
            file: versions::units_table_path("units"),
            ids: rows
                .iter()
                .map(|&i| self.ids[i].clone().unwrap_or_else(|| Text::from("")))
                .collect(),
            len_a: rows.iter().map(|&i| self.len_a[i]).collect(),
            len_b: rows.iter().map(|&i| self.len_b[i]).collect(),
            reference: (s.reference.clone(), pick(&self.reference)),
            annotators: order
                .iter()
                .map(|&j| (s.annotators[j].clone(), pick(&self.votes[j])))
                .collect(),
            subsets: Vec::new(),
            reference_name: s.reference_name.clone(),
            annotator_names: order
                .iter()
                .map(|&j| s.annotator_names[j].clone())
                .collect(),
            unused_metadata: Vec::new(),
            models: None,
            dataset_name: None,
            datasets: Vec::new(),
        }
    }
}

/// The configuration of the comparison: the baseline's annotators and
/// intervals; `--gates FILE`'s gates.
fn config_of(pair: &Pair, s: &Settings) -> Result<PreferencesConfig> {
    let origin = pair
        .baseline
        .dir
        .join(versions::units_json_path(&pair.baseline.id));
    let mut cfg = PreferencesConfig {
        experiment_id: pair.id(),
        description: String::new(),
        model_version: None,
        file_format: s.file_format,
        gates: None,
        parsed_gates: Vec::new(),
        pairs_file: origin.clone(),
        pairs_files: vec![origin.clone()],
        origin,
        id_column: Some("id".into()),
        text_a_column: "text_a".into(),
        text_b_column: "text_b".into(),
        reference_column: Some(s.reference.clone()),
        annotator_columns: s.annotators.clone(),
        subset_columns: Some(Vec::new()),
        model_a_column: None,
        model_b_column: None,
        target_models: None,
        reference_models: None,
        intervals: s.intervals,
    };
    if let Some(file) = &pair.gates_file {
        cfg.gates = versions::gates_tables(file)?;
        cfg.origin = file.clone();
        cfg.parsed_gates = super::gates::parse(&cfg).map_err(error::config)?;
    }
    Ok(cfg)
}

/// A statistic of an annotator's metrics and intervals.
fn pick(name: &str, m: &AnnotatorMetrics, i: &AnnotatorIntervals) -> Estimate {
    let with = |v: f64, iv: &Interval| Estimate::new(v, iv.lower, iv.upper);
    match name {
        "strength" => with(m.strength, &i.strength),
        "accuracy" => with(m.accuracy, &i.accuracy),
        _ => with(m.relevance, &i.relevance),
    }
}

/// Each annotator's statistics of both rounds (the baseline's annotator
/// order), each statistic's annotators together.
fn statistics(ab: &Analysis, ac: &Analysis) -> Vec<Stat> {
    let (b, c) = (ab.all(), ac.all());
    let mut out = Vec::new();
    for name in STATISTICS {
        for (j, annotator) in ab.annotator_names.iter().enumerate() {
            out.push(Stat {
                scope: format!("annotator={annotator}"),
                statistic: name.into(),
                baseline: pick(name, &b.metrics[j], &b.intervals[j]),
                candidate: pick(name, &c.metrics[j], &c.intervals[j]),
                on_truth: true,
            });
        }
    }
    out
}

/// The pairs of one round as the kind's pair set.
fn pair_set(p: &Pairs) -> PairSet {
    let votes = |v: &[Option<Text>]| normalize_votes(v.iter().map(Option::as_deref)).votes;
    PairSet::new(
        votes(&p.reference.1),
        p.annotators.iter().map(|(_, v)| votes(v)).collect(),
        p.len_a.clone(),
        p.len_b.clone(),
    )
}

/// Every statistic of [`statistics`]' order on the pairs `rows` of `set`
/// (which may repeat), by the functions the kind's analysis uses.
fn values_of(set: &PairSet, rows: &[usize]) -> Vec<f64> {
    let tables = vote_tables(&set.select(rows));
    let metrics: Vec<AnnotatorMetrics> = tables.annotators.iter().map(annotator_metrics).collect();
    STATISTICS
        .iter()
        .flat_map(|name| {
            metrics.iter().map(move |m| match *name {
                "strength" => m.strength,
                "accuracy" => m.accuracy,
                _ => m.relevance,
            })
        })
        .collect()
}

/// The preflight rows (compare spec 2.1, for pairs).
fn preflight(
    pair: &Pair,
    (nb, nc): (usize, usize),
    (sb, sc): (&Settings, &Settings),
    p: &Paired,
) -> Vec<PreflightRow> {
    let mut rows = versions::unit_rows(UNIT, TRUTH, (nb, nc), p);
    rows.extend([
        PreflightRow::judged(
            "reference",
            sb.reference_name.clone(),
            sc.reference_name.clone(),
        ),
        PreflightRow::judged(
            "annotators",
            sb.annotator_names.join(", "),
            sc.annotator_names.join(", "),
        ),
    ]);
    let margins: Vec<(String, f64)> = STATISTICS.iter().map(|s| (s.to_string(), MARGIN)).collect();
    let judging = |s: &Settings| s.resampling();
    rows.extend(versions::judging_rows(
        (judging(sb), &margins),
        (judging(sc), &margins),
    ));
    rows.extend(versions::envelope_rows(pair));
    rows
}

/// `rsmreport compare` of two preferences folders (see the module's
/// documentation).
pub fn compare(pair: &Pair) -> Result<Box<dyn crate::kinds::Report>> {
    let (sb, sc) = pair.settings(UNIT, Settings::of)?;
    refuse_different(pair, &sb, &sc)?;
    let (b, c) = (
        Side::read(&pair.baseline, &sb)?,
        Side::read(&pair.candidate, &sc)?,
    );
    let p = versions::pair_units(&b.ids, &c.ids, |i, j| b.reference[i] == c.reference[j]);
    let n = (b.ids.len(), c.ids.len());
    if p.rows.is_empty() {
        return Err(versions::no_common_units(pair, UNIT, TRUTH, n, &p));
    }
    let cfg = config_of(pair, &sb)?;
    let own: Vec<usize> = (0..sb.annotators.len()).collect();
    let moved: Vec<usize> = sb
        .annotators
        .iter()
        .map(|a| sc.annotators.iter().position(|x| x == a).unwrap_or(0))
        .collect();
    let rows_b: Vec<usize> = p.rows.iter().map(|r| r.0).collect();
    let rows_c: Vec<usize> = p.rows.iter().map(|r| r.1).collect();
    let (pb, pc) = (b.pairs(&sb, &own, &rows_b), c.pairs(&sc, &moved, &rows_c));
    let (ab, ac) = (analyse(&cfg, &pb), analyse(&cfg, &pc));
    let stats = statistics(&ab, &ac);
    let sets = [pair_set(&pb), pair_set(&pc)];
    let rows = paired_rows(
        &stats,
        p.rows.len(),
        sb.resampling(),
        MARGIN,
        p.differs > 0,
        |side, units| values_of(&sets[side], units),
    );
    let preflight = preflight(pair, n, (&sb, &sc), &p);
    let warnings = versions::warnings(UNIT, TRUTH, &p, &preflight, &["intervals", "reference"]);
    let rounds = Rounds {
        id: pair.id(),
        title: "Preference annotation comparison",
        unit: UNIT,
        labels: pair.labels(),
        headline: "strength",
        rows,
        resampling: sb.resampling(),
        margin: MARGIN,
        paired: p.rows.len(),
        about: "Each annotator's strength, accuracy and relevance against the reference \
                annotator (how closely a judge follows the human reference) computed for both \
                rounds on the pairs they share, by the same functions as rsmreport \
                preferences."
            .into(),
        gates: super::gates::evaluate(&cfg.parsed_gates, &ac),
        file_format: sb.file_format,
    };
    rounds.compared("preferences", pair, n, (preflight, warnings))
}
