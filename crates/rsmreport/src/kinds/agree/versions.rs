//! Command assembly (agree), the version workflow (issue 49): what an
//! agree folder keeps so that a later annotation round can be compared
//! with it ([`units_files`]: per item its id, the reference label if there
//! is one and each rater's label, or each category's count in the counts
//! layout, `output/<id>_units.parquet`; the settings that give the
//! coefficients their meaning, `output/<id>_units.json`: layout, level of
//! measurement, label set, raters, reference column, interpretation
//! scale, intervals), and `rsmreport compare` of two agree folders
//! ([`compare`]): the items both rounds share, paired by id, every
//! headline coefficient of the kind ([`super::tables::headline`]) computed
//! for both rounds by the kind's own analysis
//! (`crate::analysis::agreement::run`), and, with a reference in both,
//! each rater's accuracy against it; the changes judged by the shared
//! paired bootstrap of `kinds::common::rounds`.
//!
//! Folders with another layout, level of measurement (which sets the
//! weights), label set or set of raters are refused, naming both
//! settings. Reference labels that differ on shared items are counted on
//! the first screen, and the statistics against the reference get no
//! verdict. Reads the folders' units files (in [`compare`] only); writes
//! nothing (the units files go to the one writer as data).

use std::collections::HashMap;

use anyhow::{anyhow, Result};
use serde_json::{json, Value};

use super::tables::headline;
use crate::analysis::agreement::labels::Categories;
use crate::analysis::agreement::ratings::Ratings;
use crate::analysis::agreement::run::{agreement, classification, Agreement};
use crate::kinds::common::comparison::Estimate;
use crate::kinds::common::rounds::{paired_rows, Rounds, Stat};
use crate::kinds::common::versions::{self, Folder, Pair, Paired, PreflightRow, UnitsDoc};
use rsmreport_config::agree::AgreeConfig;
use rsmreport_core::error;
use rsmreport_core::schema::FileFormat;
use rsmreport_core::table::{Column, Table, Text, Values};
use rsmreport_io::output::OutputFile;
use rsmreport_metrics::raters::rows::coefficient_rows_at;

/// What one unit of an agree folder is, and its ground truth.
const UNIT: &str = "item";
const TRUTH: &str = "reference labels";
/// The practical margin of every compared coefficient (as the kappas of
/// compare spec 2.2).
const MARGIN: f64 = 0.01;
/// The statistic of a rater against the reference.
const ACCURACY: &str = "accuracy_vs_reference";

/// The units table's column of rater `g` (0-based) and of category `k`'s
/// count.
fn rater_column(g: usize) -> String {
    format!("rater_{}", g + 1)
}
fn count_column(k: usize) -> String {
    format!("count_{}", k + 1)
}

/// A headline coefficient's name as a compared statistic:
/// `krippendorff_alpha_ordinal`, `fleiss_kappa_quadratic`, `gwet_ac1`.
pub fn statistic_name(coefficient: &str, weights: &str) -> String {
    if weights == "none" {
        coefficient.to_string()
    } else {
        format!("{coefficient}_{weights}")
    }
}

/// The units files of an agree run (see the module's documentation).
pub fn units_files(cfg: &AgreeConfig, a: &Agreement) -> Result<Vec<OutputFile>> {
    let r = &a.ratings;
    let labels: Vec<Text> = r
        .categories
        .labels
        .iter()
        .map(|l| Text::from(l.as_str()))
        .collect();
    let label = |c: &Option<u32>| c.and_then(|k| labels.get(k as usize).cloned());
    let n = r.items.len();
    let mut columns = vec![Column::new(
        "id",
        Values::Text(
            r.items
                .iter()
                .map(|i| Some(Text::from(i.as_str())))
                .collect(),
        ),
    )];
    if let Some(reference) = &r.reference {
        columns.push(Column::new(
            "reference",
            Values::Text(reference.iter().map(label).collect()),
        ));
    }
    let (m, q) = (r.raters.len(), r.q());
    for g in 0..m {
        let codes = (0..n).map(|i| label(&r.codes[i * m + g]));
        columns.push(Column::new(rater_column(g), Values::Text(codes.collect())));
    }
    if m == 0 {
        for k in 0..q {
            let counts = (0..n).map(|i| i64::from(r.counts[i * q + k]));
            columns.push(Column::new(count_column(k), Values::Int(counts.collect())));
        }
    }
    let settings = json!({
        "layout": cfg.layout.name(),
        "level": cfg.level.name(),
        "categories": r.categories.labels,
        "values": r.categories.values,
        "numeric": r.categories.numeric,
        "raters": r.raters,
        "reference": cfg.reference_column,
        "interpretation": cfg.interpretation.key(),
        "intervals": versions::intervals_json(
            cfg.intervals.map(|i| (i.level, i.replicates, i.seed)),
            UNIT,
        ),
        "file_format": cfg.file_format.extension(),
    });
    let table = Table { columns, nrows: n };
    versions::units_files(&cfg.experiment_id, "agree", UNIT, settings, table)
}

/// The settings a folder's units file records.
#[derive(Clone, Debug, PartialEq)]
struct Settings {
    layout: String,
    level: String,
    labels: Vec<String>,
    values: Vec<f64>,
    numeric: bool,
    raters: Vec<String>,
    reference: Option<String>,
    interpretation: String,
    /// `level, replicates, seed`.
    intervals: Option<(f64, u64, u64)>,
    file_format: FileFormat,
}

impl Settings {
    fn of(d: &UnitsDoc<'_>) -> Result<Settings> {
        Ok(Settings {
            layout: d.text("layout")?,
            level: d.text("level")?,
            labels: d.texts("categories")?,
            values: d.doc["values"]
                .as_array()
                .and_then(|v| v.iter().map(Value::as_f64).collect())
                .ok_or_else(|| d.bad("values"))?,
            numeric: d.doc["numeric"].as_bool().ok_or_else(|| d.bad("numeric"))?,
            raters: d.texts("raters")?,
            reference: d.optional_text("reference"),
            interpretation: d.text("interpretation")?,
            intervals: d.resampling()?,
            file_format: d.file_format(),
        })
    }

    fn counts(&self) -> bool {
        self.raters.is_empty()
    }
}

/// Refuses two folders whose coefficients would not mean the same:
/// raters' labels against category counts, another level of measurement
/// (the weights), another label set (or other category values), another
/// set of raters (configuration errors naming both folders' settings).
fn refuse_different(pair: &Pair, b: &Settings, c: &Settings) -> Result<()> {
    let sorted = |v: &[String]| {
        let mut v = v.to_vec();
        v.sort();
        v
    };
    let differs: Vec<(&str, String, String)> = [
        versions::differing("layouts", &b.counts(), &c.counts())
            .map(|(n, _, _)| (n, b.layout.clone(), c.layout.clone())),
        versions::differing("levels of measurement", &b.level, &c.level),
        versions::differing("label sets", &b.labels, &c.labels),
        versions::differing("category values", &b.values, &c.values),
        versions::differing("raters", &sorted(&b.raters), &sorted(&c.raters)),
    ]
    .into_iter()
    .flatten()
    .collect();
    match differs.first() {
        None => Ok(()),
        Some((name, vb, vc)) => Err(error::config(anyhow!(
            "the baseline folder {} and the candidate folder {} have other {name} ({vb} | \
             {vc}): agree folders are compared only when their coefficients mean the same",
            pair.baseline.dir.display(),
            pair.candidate.dir.display(),
        ))),
    }
}

/// One folder's items, as its units table holds them (labels as codes of
/// the common label set).
struct Side {
    ids: Vec<Option<Text>>,
    reference: Option<Vec<Option<u32>>>,
    /// Items x raters codes (the folder's rater order), or items x
    /// categories counts.
    codes: Vec<Option<u32>>,
    counts: Vec<u32>,
}

impl Side {
    fn read(f: &Folder, s: &Settings) -> Result<Side> {
        let raters: Vec<String> = (0..s.raters.len()).map(rater_column).collect();
        let mut wanted: Vec<&str> = vec!["id", "reference"];
        wanted.extend(raters.iter().map(String::as_str));
        let mut t = f.units_table(&wanted)?;
        let path = f.dir.join(versions::units_table_path(&f.id));
        let code: HashMap<&str, u32> = s
            .labels
            .iter()
            .enumerate()
            .map(|(k, l)| (l.as_str(), k as u32))
            .collect();
        let coded = |v: Vec<Option<Text>>, column: &str| -> Result<Vec<Option<u32>>> {
            v.iter()
                .map(|x| match x.as_deref() {
                    None => Ok(None),
                    Some(l) => code.get(l).map(|&k| Some(k)).ok_or_else(|| {
                        anyhow!(
                            "{}: column '{column}' holds the label {l:?}, not one of the \
                             folder's categories",
                            path.display()
                        )
                    }),
                })
                .collect()
        };
        let ids = versions::take_texts(&mut t, "id", &path)?;
        let reference = match s.reference {
            Some(_) => Some(coded(
                versions::take_texts(&mut t, "reference", &path)?,
                "reference",
            )?),
            None => None,
        };
        let n = ids.len();
        let columns: Vec<Vec<Option<u32>>> = raters
            .iter()
            .map(|c| coded(versions::take_texts(&mut t, c, &path)?, c))
            .collect::<Result<_>>()?;
        let codes = (0..n)
            .flat_map(|i| columns.iter().map(move |col| col[i]))
            .collect();
        let mut per_category = Vec::new();
        if s.counts() {
            for k in 0..s.labels.len() {
                let name = count_column(k);
                per_category.push(match versions::take_column(&mut t, &name, &path)? {
                    Values::Int(v) => v.into_iter().map(|x| x.max(0) as u32).collect(),
                    Values::Float(v) => v.into_iter().map(|x| x.max(0.0) as u32).collect(),
                    _ => return Err(anyhow!("{}: column '{name}' is not counts", path.display())),
                });
            }
        }
        let counts = (0..n)
            .flat_map(|i| per_category.iter().map(move |col: &Vec<u32>| col[i]))
            .collect();
        Ok(Side {
            ids,
            reference,
            codes,
            counts,
        })
    }

    /// The ratings of the units `rows`, in that order, the raters in the
    /// order `raters` (positions in this folder's own order); the
    /// reference labels when `truth`.
    fn ratings(&self, s: &Settings, raters: &[usize], rows: &[usize], truth: bool) -> Ratings {
        let (m, q) = (s.raters.len(), s.labels.len());
        Ratings {
            items: rows
                .iter()
                .map(|&i| self.ids[i].as_deref().unwrap_or_default().to_string())
                .collect(),
            raters: raters.iter().map(|&g| s.raters[g].clone()).collect(),
            codes: rows
                .iter()
                .flat_map(|&i| raters.iter().map(move |&g| self.codes[i * m + g]))
                .collect(),
            counts: match s.counts() {
                true => rows
                    .iter()
                    .flat_map(|&i| self.counts[i * q..(i + 1) * q].iter().copied())
                    .collect(),
                false => Vec::new(),
            },
            categories: Categories {
                labels: s.labels.clone(),
                values: s.values.clone(),
                numeric: s.numeric,
            },
            reference: match (&self.reference, truth) {
                (Some(r), true) => Some(rows.iter().map(|&i| r[i]).collect()),
                _ => None,
            },
            groups: Vec::new(),
        }
    }
}

/// The configuration of the comparison: the baseline's level,
/// interpretation scale and intervals, the rounds' items as one
/// annotation file of its raters (never read: the ratings come from the
/// units files).
fn config_of(pair: &Pair, s: &Settings) -> Result<AgreeConfig> {
    let list = |v: &[String]| serde_json::to_string(v).expect("JSON of texts");
    let columns = if s.counts() {
        format!(
            "layout = \"counts\"\ncategory_columns = {}\n",
            list(&s.labels)
        )
    } else {
        format!(
            "layout = \"wide\"\nitem_column = \"id\"\nrater_columns = {}\n",
            list(&s.raters)
        )
    };
    let intervals = match s.intervals {
        Some((level, replicates, seed)) => {
            format!("[intervals]\nlevel = {level}\nreplicates = {replicates}\nseed = {seed}\n")
        }
        None => "intervals = false\n".to_string(),
    };
    let text = format!(
        "experiment_id = {}\nannotations_file = \"units\"\n{columns}level = \"{}\"\n\
         interpretation = \"{}\"\n{intervals}",
        serde_json::to_string(&pair.id()).expect("JSON of a text"),
        s.level,
        s.interpretation
    );
    let origin = pair
        .baseline
        .dir
        .join(versions::units_json_path(&pair.baseline.id));
    let mut cfg = rsmreport_config::agree::parse(&text, &origin).map_err(|e| {
        error::config(anyhow!(
            "{}: the settings kept in {} are not an agree experiment: {e}",
            pair.baseline.dir.display(),
            versions::units_json_path(&pair.baseline.id).display()
        ))
    })?;
    cfg.file_format = s.file_format;
    if let Some(file) = &pair.gates_file {
        cfg.gates = versions::gates_tables(file)?;
        cfg.origin = file.clone();
        cfg.parsed_gates = super::gates::parse(&cfg).map_err(error::config)?;
    }
    Ok(cfg)
}

/// The preflight rows (compare spec 2.1, for items).
fn preflight(
    pair: &Pair,
    (nb, nc): (usize, usize),
    (sb, sc): (&Settings, &Settings),
    p: &Paired,
) -> Vec<PreflightRow> {
    let mut rows = versions::unit_rows(UNIT, TRUTH, (nb, nc), p);
    let or_none = |r: &Option<String>| r.clone().unwrap_or_default();
    rows.extend([
        PreflightRow::judged("layout", sb.layout.clone(), sc.layout.clone()),
        PreflightRow::judged("level", sb.level.clone(), sc.level.clone()),
        PreflightRow::judged("categories", sb.labels.join(", "), sc.labels.join(", ")),
        PreflightRow::judged("raters", sb.raters.join(", "), sc.raters.join(", ")),
        PreflightRow::judged("reference", or_none(&sb.reference), or_none(&sc.reference)),
        PreflightRow::judged(
            "interpretation",
            sb.interpretation.clone(),
            sc.interpretation.clone(),
        ),
    ]);
    let margins = [("agreement coefficients".to_string(), MARGIN)];
    rows.extend(versions::judging_rows(
        (sb.intervals, &margins),
        (sc.intervals, &margins),
    ));
    rows.extend(versions::envelope_rows(pair));
    rows
}

/// Each headline coefficient of both rounds, then (with a reference in
/// both) each rater's accuracy against it.
fn statistics(cfg: &AgreeConfig, ab: &Agreement, ac: &Agreement) -> Vec<Stat> {
    let estimate = |a: &Agreement, c: &str, w: &str| {
        a.overall
            .rows
            .iter()
            .find(|r| r.coefficient == c && r.weights == w)
            .map_or(Estimate::point(f64::NAN), |r| {
                Estimate::new(r.estimate.value, r.estimate.lower, r.estimate.upper)
            })
    };
    let mut out: Vec<Stat> = headline(&ab.overall, cfg)
        .into_iter()
        .map(|i| {
            let r = &ab.overall.rows[i];
            Stat {
                scope: "overall".into(),
                statistic: statistic_name(r.coefficient, r.weights),
                baseline: estimate(ab, r.coefficient, r.weights),
                candidate: estimate(ac, r.coefficient, r.weights),
                on_truth: false,
            }
        })
        .collect();
    let (cb, cc) = (&ab.overall.classification, &ac.overall.classification);
    for (x, y) in cb.iter().zip(cc) {
        out.push(Stat {
            scope: format!("rater={}", x.rater),
            statistic: ACCURACY.into(),
            baseline: Estimate::point(x.report.accuracy),
            candidate: Estimate::point(y.report.accuracy),
            on_truth: true,
        });
    }
    out
}

/// Every statistic of `stats` on the items `rows` of `r` (which may
/// repeat), by the functions the kind's analysis uses.
fn values_of(cfg: &AgreeConfig, r: &Ratings, stats: &[Stat], rows: &[usize]) -> Vec<f64> {
    let ci = cfg.intervals.map_or(0.95, |i| i.level);
    let coefficients =
        coefficient_rows_at(&r.tables(Some(rows)), &r.categories.values, cfg.level, ci);
    let against = if r.reference.is_some() {
        classification(r, Some(rows))
    } else {
        Vec::new()
    };
    stats
        .iter()
        .map(|s| {
            if s.statistic == ACCURACY {
                let rater = s.scope.trim_start_matches("rater=");
                against
                    .iter()
                    .find(|c| c.rater == rater)
                    .map_or(f64::NAN, |c| c.report.accuracy)
            } else {
                coefficients
                    .iter()
                    .find(|c| statistic_name(c.coefficient, c.weights) == s.statistic)
                    .map_or(f64::NAN, |c| c.estimate.value)
            }
        })
        .collect()
}

/// The items of both rounds whose reference labels differ (all shared
/// items are compared: only the statistics against the reference depend
/// on them).
fn reference_differences(b: &Side, c: &Side, p: &mut Paired) {
    let (Some(rb), Some(rc)) = (&b.reference, &c.reference) else {
        return;
    };
    for &(i, j) in &p.rows {
        if rb[i] != rc[j] {
            p.differs += 1;
            if p.differs_ids.len() < 5 {
                p.differs_ids
                    .push(b.ids[i].as_deref().unwrap_or_default().to_string());
            }
        }
    }
}

/// `rsmreport compare` of two agree folders (see the module's
/// documentation).
pub fn compare(pair: &Pair) -> Result<Box<dyn crate::kinds::Report>> {
    let (sb, sc) = pair.settings(UNIT, Settings::of)?;
    refuse_different(pair, &sb, &sc)?;
    let (b, c) = (
        Side::read(&pair.baseline, &sb)?,
        Side::read(&pair.candidate, &sc)?,
    );
    let mut p = versions::pair_units(&b.ids, &c.ids, |_, _| true);
    let n = (b.ids.len(), c.ids.len());
    if p.rows.is_empty() {
        return Err(versions::no_common_units(pair, UNIT, TRUTH, n, &p));
    }
    reference_differences(&b, &c, &mut p);
    let truth = b.reference.is_some() && c.reference.is_some();
    let cfg = config_of(pair, &sb)?;
    let own: Vec<usize> = (0..sb.raters.len()).collect();
    let moved: Vec<usize> = sb
        .raters
        .iter()
        .map(|name| sc.raters.iter().position(|x| x == name).unwrap_or(0))
        .collect();
    let rows_b: Vec<usize> = p.rows.iter().map(|r| r.0).collect();
    let rows_c: Vec<usize> = p.rows.iter().map(|r| r.1).collect();
    let (ab, ac) = (
        agreement(&cfg, b.ratings(&sb, &own, &rows_b, truth)),
        agreement(&cfg, c.ratings(&sc, &moved, &rows_c, truth)),
    );
    let stats = statistics(&cfg, &ab, &ac);
    let sides = [&ab.ratings, &ac.ratings];
    let rows = paired_rows(
        &stats,
        p.rows.len(),
        sb.intervals,
        MARGIN,
        p.differs > 0,
        |side, units| values_of(&cfg, sides[side], &stats, units),
    );
    let preflight = preflight(pair, n, (&sb, &sc), &p);
    let mut warnings = versions::warnings(
        UNIT,
        TRUTH,
        &Paired {
            differs: 0,
            ..p.clone()
        },
        &preflight,
        &["intervals", "interpretation", "reference"],
    );
    if p.differs > 0 {
        warnings.insert(0, reference_warning(&p));
    }
    let rounds = Rounds {
        id: pair.id(),
        title: "Agreement comparison",
        unit: UNIT,
        labels: pair.labels(),
        headline: "",
        rows,
        resampling: sb.intervals,
        margin: MARGIN,
        paired: p.rows.len(),
        about: "Each headline agreement coefficient of the kind (and, with reference labels in \
                both rounds, each rater's accuracy against them) computed for both annotation \
                rounds on the items they share, by the same functions as rsmreport agree."
            .into(),
        gates: super::gates::evaluate(&cfg.parsed_gates, &ac),
        file_format: sb.file_format,
    };
    rounds.compared("agree", pair, n, (preflight, warnings))
}

/// The first screen's word on reference labels that differ.
fn reference_warning(p: &Paired) -> String {
    let count = |n: usize| rsmreport_report::render::format::thousands(n as u64);
    format!(
        "the {TRUTH} differ on {} of the {} {UNIT}s in common (first: {}): the statistics \
         against the reference ({ACCURACY}) get no verdict; the agreement among raters does \
         not depend on them",
        count(p.differs),
        count(p.shared),
        p.differs_ids.join(", ")
    )
}
