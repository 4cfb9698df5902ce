//! Command assembly (agree): the tables of `spec/agreement.md` 3 and 4 as
//! frames (`<id>_agreement`, `_agreement_pairs`, `_agreement_by_category`,
//! `_label_distribution`, `_classification`, `_classification_summary`,
//! `_data_description`, and each as `_by_<subgroup>` with the level as
//! first column), `<id>_agreement_tests` (the tests of no agreement beyond
//! chance reported beside the coefficients), `<id>_agree.json`, and the
//! words shared by the report and the terminal (headline rows, verdict).
//!
//! Produces bytes and text; writes nothing (the output stage does) and
//! computes no statistic.

use rsmreport_report::render::format::num3;
use std::path::Path;

use serde_json::{json, Value};

use rsmreport_io::output::json::number;

use crate::analysis::agreement::run::{Agreement, Scope};
use anyhow::Result;
use rsmreport_config::agree::AgreeConfig;
use rsmreport_core::table::{Column, Frame, Values};
use rsmreport_io::output::OutputFile;
use rsmreport_metrics::raters::alpha::Level;
use rsmreport_metrics::raters::rows::{CoefficientRow, NullTest};
use rsmreport_metrics::raters::scales::{benchmark, Benchmark, Scale};

use crate::analysis::agreement::tables::{
    agreement_frame, category_frame, classification_frame, classification_summary_frame,
    distribution_frame, pairs_frame, tests_frame,
};
use crate::analysis::agreement::tables::{floats, frame, texts};

/// `(statistic, value)` rows of the data description.
pub fn description_rows(s: &Scope, labels: &[String]) -> Vec<(&'static str, String)> {
    let m = &s.summary;
    let used: Vec<&str> = m
        .observed_categories
        .iter()
        .map(|&k| labels[k].as_str())
        .collect();
    let unused: Vec<&str> = (0..labels.len())
        .filter(|k| !m.observed_categories.contains(k))
        .map(|k| labels[k].as_str())
        .collect();
    vec![
        ("items", m.n_rows.to_string()),
        ("items_with_ratings", m.n_items_with_ratings.to_string()),
        (
            "items_with_two_or_more_ratings",
            m.n_items_pairable.to_string(),
        ),
        ("items_rated_by_every_rater", m.n_items_complete.to_string()),
        ("raters", s.n_raters.to_string()),
        ("ratings", m.n_ratings.to_string()),
        ("missing_ratings", s.missing.to_string()),
        ("categories", labels.len().to_string()),
        ("categories_used", used.join(" | ")),
        ("categories_unused", unused.join(" | ")),
    ]
}

/// `<id>_data_description`.
pub fn description_frame(s: &Scope, labels: &[String]) -> Frame {
    let rows = description_rows(s, labels);
    frame(
        "data_description",
        vec![
            ("statistic", texts(rows.iter().map(|r| r.0))),
            ("value", texts(rows.iter().map(|r| &r.1))),
        ],
    )
}

/// Every table of one scope, in file order.
pub fn scope_frames(a: &Agreement, cfg: &AgreeConfig, s: &Scope) -> Vec<Frame> {
    let labels = &a.ratings.categories.labels;
    let weighted = cfg.level != rsmreport_metrics::raters::alpha::Level::Nominal;
    vec![
        agreement_frame(s),
        tests_frame(s),
        pairs_frame(s, weighted),
        category_frame(s, labels),
        distribution_frame(s, labels),
        classification_frame(&s.classification, labels),
        classification_summary_frame(&s.classification, weighted, a.ratings.categories.numeric),
        description_frame(s, labels),
    ]
}

/// The frames of a subgroup's levels stacked, the level first
/// (`<name>_by_<group>`).
pub fn stacked(group: &str, levels: &[(String, Frame)]) -> Option<Frame> {
    let (_, first) = levels.first()?;
    let n: Vec<usize> = levels.iter().map(|(_, f)| f.nrows()).collect();
    let level_col = texts(
        levels
            .iter()
            .zip(&n)
            .flat_map(|((l, _), &k)| std::iter::repeat_n(l.as_str(), k)),
    );
    let mut columns = vec![Column::new(group, level_col)];
    for (j, c) in first.columns.iter().enumerate() {
        let parts: Vec<&Values> = levels.iter().map(|(_, f)| &f.columns[j].values).collect();
        columns.push(Column::new(c.name.clone(), concat(&parts)));
    }
    Some(Frame::new(
        format!("{}_by_{group}", first.name),
        None,
        columns,
    ))
}

fn concat(parts: &[&Values]) -> Values {
    match parts.first() {
        Some(Values::Int(_)) => Values::Int(
            parts
                .iter()
                .flat_map(|p| match p {
                    Values::Int(v) => v.clone(),
                    _ => Vec::new(),
                })
                .collect(),
        ),
        Some(Values::Float(_)) => floats(parts.iter().flat_map(|p| p.to_numeric())),
        _ => {
            let mut cells = Vec::new();
            for p in parts {
                if let Values::Text(v) = p {
                    cells.extend(v.iter().cloned());
                }
            }
            Values::Text(cells)
        }
    }
}

/// Every table file: the whole set's, then each subgroup's.
pub fn frames(a: &Agreement, cfg: &AgreeConfig) -> Vec<Frame> {
    let mut out = scope_frames(a, cfg, &a.overall);
    for (g, scopes) in &a.groups {
        let per_level: Vec<Vec<Frame>> = scopes.iter().map(|s| scope_frames(a, cfg, s)).collect();
        for j in 0..out.len() {
            let levels: Vec<(String, Frame)> = scopes
                .iter()
                .zip(&per_level)
                .map(|(s, f)| (s.label.clone(), f[j].clone()))
                .collect();
            out.extend(stacked(g, &levels));
        }
    }
    out
}

fn test_json(t: &NullTest) -> Value {
    json!({
        "test": t.statistic_name, "statistic": number(t.statistic), "se0": number(t.se0),
        "df1": number(t.df1), "df2": number(t.df2), "p_value": number(t.p_value),
    })
}

fn scope_json(s: &Scope, cfg: &AgreeConfig) -> Value {
    let rows: Vec<Value> = s
        .rows
        .iter()
        .zip(&s.interpretation)
        .map(|(r, l)| {
            json!({
                "coefficient": r.coefficient, "weights": r.weights,
                "value": number(r.estimate.value), "se": number(r.estimate.se),
                "lower": number(r.estimate.lower), "upper": number(r.estimate.upper),
                "n_items": r.n_items, "n_raters": r.n_raters, "interpretation": l,
                "benchmark": row_benchmark(cfg.interpretation, r).label,
                "test": r.test.as_ref().map(test_json),
            })
        })
        .collect();
    let pairs: Vec<Value> = s
        .pairs
        .iter()
        .map(|p| {
            json!({
                "rater_1": p.rater_1, "rater_2": p.rater_2, "n": p.n,
                "exact_agreement": number(p.exact_agreement),
                "cohen_kappa": number(p.kappa), "lower": number(p.kappa_lower),
                "upper": number(p.kappa_upper),
            })
        })
        .collect();
    json!({
        "scope": s.label,
        "items": s.summary.n_rows,
        "items_with_two_or_more_ratings": s.summary.n_items_pairable,
        "raters": s.n_raters,
        "ratings": s.summary.n_ratings,
        "missing_ratings": s.missing,
        "coefficients": rows,
        "pairs": pairs,
        "notes": s.notes,
    })
}

/// The experiment's settings as read (the report's provenance and
/// `<id>_agree.json`).
pub fn settings_json(cfg: &AgreeConfig) -> Value {
    use rsmreport_config::agree::Layout;
    let columns = match &cfg.layout {
        Layout::Wide { rater_columns } => json!({ "rater_columns": rater_columns }),
        Layout::Long {
            rater_column,
            label_column,
        } => json!({ "rater_column": rater_column, "label_column": label_column }),
        Layout::Counts { category_columns } => json!({ "category_columns": category_columns }),
    };
    json!({
        "experiment_id": cfg.experiment_id,
        "annotations_file": cfg.annotations_file,
        "layout": cfg.layout.name(),
        "columns": columns,
        "item_column": cfg.item_column,
        "level": cfg.level.name(),
        "categories": cfg.categories.as_ref().map(|c| c.iter().map(|c| c.text.clone()).collect::<Vec<_>>()),
        "reference_column": cfg.reference_column,
        "subgroups": cfg.subgroups,
        "interpretation": cfg.interpretation.key(),
        "intervals": cfg.intervals.map_or(Value::Bool(false), |i| i.saved()),
    })
}

/// `<id>_agree.json` (`agree_version` 1).
pub fn agree_json(a: &Agreement, cfg: &AgreeConfig) -> Vec<u8> {
    let groups: serde_json::Map<String, Value> = a
        .groups
        .iter()
        .map(|(g, scopes)| {
            let levels = scopes.iter().map(|s| scope_json(s, cfg)).collect();
            (g.clone(), levels)
        })
        .collect();
    let doc = json!({
        "agree_version": 1,
        "experiment_id": cfg.experiment_id,
        "producer": format!("rsmreport {}", env!("CARGO_PKG_VERSION")),
        "annotations_file": cfg.annotations_file,
        "layout": cfg.layout.name(),
        "settings": settings_json(cfg),
        "level": cfg.level.name(),
        "categories": a.ratings.categories.labels,
        "raters": a.ratings.raters,
        "interpretation": cfg.interpretation.key(),
        "intervals": cfg.intervals.map_or(Value::Bool(false), |i| i.saved()),
        "overall": scope_json(&a.overall, cfg),
        "by_subgroup": groups,
    });
    rsmreport_io::output::json::bytes(&doc)
}

/// The tables and the JSON.
pub fn data_files(a: &Agreement, cfg: &AgreeConfig, epoch: i64) -> Result<Vec<OutputFile>> {
    let id = &cfg.experiment_id;
    let mut files: Vec<OutputFile> = frames(a, cfg)
        .iter()
        .filter(|f| f.is_writable())
        .map(|f| rsmreport_io::output::table_file(id, f, cfg.file_format, epoch))
        .collect::<Result<_>>()?;
    files.push(OutputFile {
        path: Path::new("output").join(format!("{id}_agree.json")),
        bytes: agree_json(a, cfg),
    });
    Ok(files)
}

/// irrCAC's probabilistic benchmark of a row on `scale`; none for percent
/// agreement, which is not chance-corrected and gets no label anywhere
/// (the interpretation column leaves it blank too).
pub fn row_benchmark(scale: Scale, r: &CoefficientRow) -> Benchmark {
    let value = if r.coefficient == "percent_agreement" {
        f64::NAN
    } else {
        r.estimate.value
    };
    benchmark(scale, value, r.estimate.se)
}

/// The headline rows: the coefficients that fit the declared level, the
/// one a verdict rests on first. Nominal: Krippendorff's alpha (nominal),
/// Fleiss' kappa and Gwet's AC1; ordinal: alpha (ordinal), the
/// quadratic-weighted Fleiss' kappa and AC2; interval and ratio: alpha at
/// that level and ICC(2,1) (the quadratic-weighted kappa and AC2 where no
/// ICC exists, in the counts layout); Cohen's kappa with the same weights
/// for two raters.
pub fn headline(s: &Scope, cfg: &AgreeConfig) -> Vec<usize> {
    let find = |c: &str, w: &str| {
        s.rows
            .iter()
            .position(|r| r.coefficient == c && r.weights == w)
    };
    let weights = if cfg.level == Level::Nominal {
        "none"
    } else {
        "quadratic"
    };
    let mut wanted = vec![("krippendorff_alpha", cfg.level.name())];
    let icc = find("icc2", "none").is_some();
    if matches!(cfg.level, Level::Interval | Level::Ratio) && icc {
        wanted.push(("icc2", "none"));
    } else {
        wanted.extend([("fleiss_kappa", weights), ("gwet_ac1", weights)]);
    }
    wanted.push(("cohen_kappa", weights));
    wanted.iter().filter_map(|(c, w)| find(c, w)).collect()
}

/// A coefficient row's name for a reader, with its level or weights:
/// `Krippendorff's alpha (ordinal)`, `Gwet's AC2 (quadratic weights)`.
pub fn display_name(coefficient: &str, weights: &str) -> String {
    let base = match (coefficient, weights) {
        ("krippendorff_alpha", level) => return format!("Krippendorff's alpha ({level})"),
        ("gwet_ac1", "none") => "Gwet's AC1",
        ("gwet_ac1", _) => "Gwet's AC2",
        ("fleiss_kappa", _) => "Fleiss' kappa",
        ("cohen_kappa", _) => "Cohen's kappa",
        ("conger_kappa", _) => "Conger's kappa",
        ("brennan_prediger", _) => "Brennan-Prediger",
        ("icc1", _) => "ICC(1,1)",
        ("icc2", _) => "ICC(2,1)",
        ("icc3", _) => "ICC(3,1)",
        ("icc1k", _) => "ICC(1,k)",
        ("icc2k", _) => "ICC(2,k)",
        ("icc3k", _) => "ICC(3,k)",
        (other, _) => other,
    };
    if weights == "none" {
        base.to_string()
    } else {
        format!("{base} ({weights} weights)")
    }
}

/// The short name of a headline tile (`alpha · ordinal`, `AC2 ·
/// quadratic`): the tiles are narrow.
pub fn tile_name(coefficient: &str, weights: &str) -> String {
    let base = match (coefficient, weights) {
        ("krippendorff_alpha", _) => "alpha",
        ("gwet_ac1", "none") => "AC1",
        ("gwet_ac1", _) => "AC2",
        ("fleiss_kappa", _) => "Fleiss' kappa",
        ("cohen_kappa", _) => "Cohen's kappa",
        ("icc2", _) => "ICC(2,1)",
        (other, _) => other,
    };
    if weights == "none" {
        base.to_string()
    } else {
        format!("{base} · {weights}")
    }
}

/// Krippendorff's (1980) rule for alpha: 0.800 for conclusions, 0.667
/// for tentative ones.
const ALPHA_DEFINITE: f64 = 0.8;
const ALPHA_TENTATIVE: f64 = 0.667;

/// The one-sentence answer to "are these raters reliable enough?": the
/// first headline coefficient (alpha at the declared level) against
/// Krippendorff's 0.667/0.800 rule, with its interval, and its label on
/// the configured scale. `(verdict, explanation)`; `None` without a value.
pub fn verdict(s: &Scope, cfg: &AgreeConfig) -> Option<(String, String)> {
    let i = *headline(s, cfg).first()?;
    let r = &s.rows[i];
    let e = &r.estimate;
    if e.value.is_nan() {
        return None;
    }
    let level = cfg.intervals.map_or(0.95, |iv| iv.level) * 100.0;
    let ci = if e.lower.is_finite() && e.upper.is_finite() {
        format!(" ({level}% CI [{}, {}])", num3(e.lower), num3(e.upper))
    } else {
        String::new()
    };
    let name = display_name(r.coefficient, r.weights);
    let (head, why) = if e.value >= ALPHA_DEFINITE {
        let caveat = if e.lower < ALPHA_DEFINITE {
            format!(
                ", though the interval reaches below {}: firm conclusions rest on the \
                 point value",
                num3(ALPHA_DEFINITE)
            )
        } else {
            String::new()
        };
        (
            "Reliable enough for conclusions".to_string(),
            format!(
                "{name} is {}{ci}, at least {}{caveat}",
                num3(e.value),
                num3(ALPHA_DEFINITE)
            ),
        )
    } else if e.value >= ALPHA_TENTATIVE {
        (
            "Reliable enough for tentative conclusions only".to_string(),
            format!(
                "{name} is {}{ci}, between {} and {}",
                num3(e.value),
                num3(ALPHA_TENTATIVE),
                num3(ALPHA_DEFINITE)
            ),
        )
    } else {
        (
            "Not reliable enough".to_string(),
            format!(
                "{name} is {}{ci}, below {}, the least it accepts even for tentative \
                 conclusions",
                num3(e.value),
                num3(ALPHA_TENTATIVE)
            ),
        )
    };
    let label = match (cfg.interpretation, s.interpretation[i]) {
        (Scale::Krippendorff, _) | (_, None) => String::new(),
        (scale, Some(l)) => format!("; on the {} scale it is '{l}'", scale_name(scale)),
    };
    Some((
        format!("{head} under Krippendorff's (1980) benchmark"),
        format!("{why}{label}."),
    ))
}

/// The reference of an interpretation scale.
pub fn scale_name(s: Scale) -> &'static str {
    match s {
        Scale::LandisKoch => "Landis and Koch (1977)",
        Scale::Grove => "Grove et al. (1981)",
        Scale::Krippendorff => "Krippendorff (1980)",
        Scale::RietveldVanHout => "Rietveld and van Hout (1993)",
        Scale::Green => "Green (1997)",
    }
}
