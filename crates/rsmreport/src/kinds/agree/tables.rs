//! Command assembly (agree): the tables of `spec/agreement.md` 3 and 4 as
//! frames (`<id>_agreement`, `_agreement_pairs`, `_agreement_by_category`,
//! `_label_distribution`, `_classification`, `_classification_summary`,
//! `_data_description`, and each as `_by_<subgroup>` with the level as
//! first column), `<id>_agreement_tests` (the tests of no agreement beyond
//! chance reported beside the coefficients), the summary's keys
//! (`<id>_summary.json`), and the words shared by the report and the
//! terminal (headline rows, verdict).
//!
//! Produces bytes and text; writes nothing (the output stage does) and
//! computes no statistic.

use rsmreport_report::render::format::num3;

use serde_json::{json, Value};

use rsmreport_io::output::json::number;

use crate::analysis::agreement::run::{Agreement, Scope};
use crate::kinds::common::agreement::{row_benchmark, scale_name};
use rsmreport_config::agree::AgreeConfig;
use rsmreport_core::table::{Column, Frame, Values};
use rsmreport_metrics::raters::alpha::Level;
use rsmreport_metrics::raters::rows::NullTest;
use rsmreport_metrics::raters::scales::Scale;
use rsmreport_report::render::{Decision, Tone};

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
/// the summary).
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

/// The summary's keys (`agree_version` 1; the file `<id>_agree.json` of
/// releases up to 8648b92, now `<id>_summary.json` with the envelope).
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
/// the configured scale; `None` without a value.
pub fn verdict(s: &Scope, cfg: &AgreeConfig) -> Option<Verdict> {
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
    let (reliability, head, why) = if e.value >= ALPHA_DEFINITE {
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
            Reliability::Definite,
            "Reliable enough for conclusions".to_string(),
            format!(
                "{name} is {}{ci}, at least {}{caveat}",
                num3(e.value),
                num3(ALPHA_DEFINITE)
            ),
        )
    } else if e.value >= ALPHA_TENTATIVE {
        (
            Reliability::Tentative,
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
            Reliability::Not,
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
    Some(Verdict {
        reliability,
        head: format!("{head} under Krippendorff's (1980) benchmark"),
        why: format!("{why}{label}."),
    })
}

/// Krippendorff's (1980) three levels of reliability.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reliability {
    /// At least 0.800: firm conclusions.
    Definite,
    /// From 0.667 to 0.800: tentative conclusions only.
    Tentative,
    /// Below 0.667.
    Not,
}

/// [`verdict`]'s answer: the level, the verdict and its explanation.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub reliability: Reliability,
    pub head: String,
    pub why: String,
}

/// What the run decided, for the first screen and the terminal's last
/// line: the verdict's level as the badge (`reliable`, `tentative only`,
/// `not reliable`; `no verdict` when the headline coefficient is
/// undefined), then the gates' status.
pub fn decision(s: &Scope, cfg: &AgreeConfig, gates: &[crate::gates::Outcome]) -> Decision {
    let d = match verdict(s, cfg) {
        Some(v) => {
            let (tone, badge) = match v.reliability {
                Reliability::Definite => (Tone::Pass, "reliable"),
                Reliability::Tentative => (Tone::Warn, "tentative only"),
                Reliability::Not => (Tone::Fail, "not reliable"),
            };
            Decision::new(tone, badge, format!("{}: {}", v.head, v.why))
        }
        None => Decision::new(
            Tone::Info,
            "no verdict",
            "The headline coefficient is undefined on these data (see the coefficients table).",
        ),
    };
    let failed = gates.iter().filter(|o| o.fails()).count();
    d.with_gates(failed, gates.len(), false)
}
