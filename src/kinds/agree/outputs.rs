//! Command assembly (agree): the tables of `spec/agreement.md` 3 and 4 as
//! frames (`<id>_agreement`, `_agreement_pairs`, `_agreement_by_category`,
//! `_label_distribution`, `_classification`, `_classification_summary`,
//! `_data_description`, and each as `_by_<subgroup>` with the level as
//! first column), `<id>_agreement_tests` (the tests of no agreement beyond
//! chance reported beside the coefficients), `<id>_agree.json`, the
//! terminal lines, and every output file with the report.
//!
//! Produces bytes and text; writes nothing (the output stage does) and
//! computes no statistic.

use std::path::Path;

use serde_json::{json, Value};

use super::run::{Agreement, RaterClassification, Scope};
use crate::config::agree::AgreeConfig;
use crate::metrics::raters::alpha::Level;
use crate::metrics::raters::rows::{CoefficientRow, NullTest};
use crate::metrics::raters::scales::{benchmark, Benchmark, Scale};
use crate::output::OutputFile;
use crate::provenance::timed;
use crate::table::{text_values, Column, Frame, Values};

fn floats(v: impl IntoIterator<Item = f64>) -> Values {
    Values::Float(v.into_iter().collect())
}

fn ints(v: impl IntoIterator<Item = f64>) -> Values {
    Values::Int(v.into_iter().map(|x| x as i64).collect())
}

fn texts<S: AsRef<str>>(v: impl IntoIterator<Item = S>) -> Values {
    text_values(v.into_iter().map(|s| Some(s.as_ref().to_string())))
}

fn frame(name: &str, columns: Vec<(&str, Values)>) -> Frame {
    let columns = columns
        .into_iter()
        .map(|(n, v)| Column::new(n, v))
        .collect();
    Frame::new(name, None, columns)
}

/// `<id>_agreement`: one row per coefficient and variant.
pub fn agreement_frame(s: &Scope) -> Frame {
    let r = &s.rows;
    frame(
        "agreement",
        vec![
            ("coefficient", texts(r.iter().map(|r| r.coefficient))),
            ("weights", texts(r.iter().map(|r| r.weights))),
            ("value", floats(r.iter().map(|r| r.estimate.value))),
            ("se", floats(r.iter().map(|r| r.estimate.se))),
            ("lower", floats(r.iter().map(|r| r.estimate.lower))),
            ("upper", floats(r.iter().map(|r| r.estimate.upper))),
            ("n_items", ints(r.iter().map(|r| r.n_items))),
            ("n_raters", ints(r.iter().map(|r| r.n_raters as f64))),
            (
                "interpretation",
                text_values(s.interpretation.iter().map(|l| l.map(str::to_string))),
            ),
        ],
    )
}

/// `<id>_agreement_tests`: the test of no agreement beyond chance that the
/// reference package reports beside a coefficient: `z` under the null for
/// Cohen's kappa (statsmodels' ASE0) and Fleiss' kappa on complete items (R
/// `irr`), `F` for the ICCs (pingouin). These test kappa = 0; the
/// coefficients' intervals never come from them.
pub fn tests_frame(s: &Scope) -> Frame {
    let rows: Vec<(&CoefficientRow, &NullTest)> = s
        .rows
        .iter()
        .filter_map(|r| r.test.as_ref().map(|t| (r, t)))
        .collect();
    let num = |f: &dyn Fn(&NullTest) -> f64| floats(rows.iter().map(|(_, t)| f(t)));
    frame(
        "agreement_tests",
        vec![
            (
                "coefficient",
                texts(rows.iter().map(|(r, _)| r.coefficient)),
            ),
            ("weights", texts(rows.iter().map(|(r, _)| r.weights))),
            ("value", floats(rows.iter().map(|(r, _)| r.estimate.value))),
            ("test", texts(rows.iter().map(|(_, t)| t.statistic_name))),
            ("statistic", num(&|t| t.statistic)),
            ("se0", num(&|t| t.se0)),
            ("df1", num(&|t| t.df1)),
            ("df2", num(&|t| t.df2)),
            ("p_value", num(&|t| t.p_value)),
        ],
    )
}

/// `<id>_agreement_pairs`: one row per pair of raters.
pub fn pairs_frame(s: &Scope, weighted: bool) -> Frame {
    let p = &s.pairs;
    let mut cols = vec![
        ("rater_1", texts(p.iter().map(|p| &p.rater_1))),
        ("rater_2", texts(p.iter().map(|p| &p.rater_2))),
        ("n", ints(p.iter().map(|p| p.n))),
        (
            "exact_agreement",
            floats(p.iter().map(|p| p.exact_agreement)),
        ),
        ("cohen_kappa", floats(p.iter().map(|p| p.kappa))),
    ];
    if weighted {
        cols.extend([
            (
                "cohen_kappa_linear",
                floats(p.iter().map(|p| p.kappa_linear)),
            ),
            (
                "cohen_kappa_quadratic",
                floats(p.iter().map(|p| p.kappa_quadratic)),
            ),
            ("pearson_r", floats(p.iter().map(|p| p.pearson_r))),
        ]);
    }
    // Beyond spec 3's columns, after them: Cohen's kappa's standard error
    // and interval.
    cols.extend([
        ("cohen_kappa_se", floats(p.iter().map(|p| p.kappa_se))),
        ("cohen_kappa_lower", floats(p.iter().map(|p| p.kappa_lower))),
        ("cohen_kappa_upper", floats(p.iter().map(|p| p.kappa_upper))),
    ]);
    frame("agreement_pairs", cols)
}

/// `<id>_agreement_by_category`.
pub fn category_frame(s: &Scope, labels: &[String]) -> Frame {
    let kappa = if s.category_kappa.len() == labels.len() {
        s.category_kappa.clone()
    } else {
        vec![f64::NAN; labels.len()]
    };
    frame(
        "agreement_by_category",
        vec![
            ("category", texts(labels)),
            ("fleiss_kappa", floats(kappa)),
            ("share", floats(s.category_share.iter().copied())),
            ("specific_agreement", floats(s.specific.iter().copied())),
        ],
    )
}

/// `<id>_label_distribution`: per rater, the count of each label.
pub fn distribution_frame(s: &Scope, labels: &[String]) -> Frame {
    let d = &s.distribution;
    let mut cols = vec![("rater", texts(d.iter().map(|(r, _)| r)))];
    for (k, label) in labels.iter().enumerate() {
        cols.push((label.as_str(), ints(d.iter().map(|(_, c)| c[k]))));
    }
    frame("label_distribution", cols)
}

/// `<id>_classification`: per rater, per class, then the three averages.
pub fn classification_frame(raters: &[RaterClassification], labels: &[String]) -> Frame {
    let mut rows: Vec<(String, String, [f64; 4])> = Vec::new();
    for c in raters {
        let r = &c.report;
        for (k, l) in labels.iter().enumerate() {
            let p = r.per_class[k];
            rows.push((
                c.rater.clone(),
                l.clone(),
                [p.precision, p.recall, p.f1, r.support[k]],
            ));
        }
        for (name, p) in [
            ("macro avg", r.macro_avg),
            ("micro avg", r.micro_avg),
            ("weighted avg", r.weighted_avg),
        ] {
            rows.push((
                c.rater.clone(),
                name.into(),
                [p.precision, p.recall, p.f1, r.n],
            ));
        }
    }
    let num = |j: usize| floats(rows.iter().map(|r| r.2[j]));
    frame(
        "classification",
        vec![
            ("rater", texts(rows.iter().map(|r| &r.0))),
            ("class", texts(rows.iter().map(|r| &r.1))),
            ("precision", num(0)),
            ("recall", num(1)),
            ("f1", num(2)),
            ("support", ints(rows.iter().map(|r| r.2[3]))),
        ],
    )
}

/// `<id>_classification_summary`: one row per rater. The weighted kappas
/// weigh by the labels' order, so nominal labels (`ordered = false`) leave
/// them empty; the correlations need numeric labels.
pub fn classification_summary_frame(
    c: &[RaterClassification],
    ordered: bool,
    numeric: bool,
) -> Frame {
    let f = |g: &dyn Fn(&RaterClassification) -> f64| floats(c.iter().map(g));
    let weighted = |g: &dyn Fn(&RaterClassification) -> f64| {
        floats(c.iter().map(|c| if ordered { g(c) } else { f64::NAN }))
    };
    let mut cols = vec![
        ("rater", texts(c.iter().map(|c| &c.rater))),
        ("n", ints(c.iter().map(|c| c.report.n))),
        ("accuracy", f(&|c| c.report.accuracy)),
        ("balanced_accuracy", f(&|c| c.report.balanced_accuracy)),
        ("matthews_corrcoef", f(&|c| c.report.matthews)),
        ("cohen_kappa", f(&|c| c.kappa[0])),
        ("cohen_kappa_linear", weighted(&|c| c.kappa[1])),
        ("cohen_kappa_quadratic", weighted(&|c| c.kappa[2])),
    ];
    if numeric {
        cols.extend([
            ("pearson_r", f(&|c| c.pearson.0)),
            ("spearman_rho", f(&|c| c.spearman.0)),
            ("spearman_p", f(&|c| c.spearman.1)),
            ("kendall_tau_b", f(&|c| c.kendall.0)),
            ("kendall_p", f(&|c| c.kendall.1)),
        ]);
    }
    frame("classification_summary", cols)
}

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
    let weighted = cfg.level != crate::metrics::raters::alpha::Level::Nominal;
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

fn number(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else {
        Value::Null
    }
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
    use crate::config::agree::Layout;
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
    let mut bytes = serde_json::to_vec_pretty(&doc).expect("JSON of plain values");
    bytes.push(b'\n');
    bytes
}

/// The tables and the JSON.
pub fn data_files(a: &Agreement, cfg: &AgreeConfig) -> Vec<OutputFile> {
    let out = Path::new("output");
    let id = &cfg.experiment_id;
    let mut files: Vec<OutputFile> = frames(a, cfg)
        .into_iter()
        .filter(Frame::is_writable)
        .map(|f| OutputFile {
            path: out.join(format!("{id}_{}.csv", f.name)),
            bytes: crate::output::write::to_delimited(&f, b','),
        })
        .collect();
    files.push(OutputFile {
        path: out.join(format!("{id}_agree.json")),
        bytes: agree_json(a, cfg),
    });
    files
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
        format!(" ({level}% CI [{:.3}, {:.3}])", e.lower, e.upper)
    } else {
        String::new()
    };
    let name = display_name(r.coefficient, r.weights);
    let (head, why) = if e.value >= ALPHA_DEFINITE {
        let caveat = if e.lower < ALPHA_DEFINITE {
            format!(
                ", though the interval reaches below {ALPHA_DEFINITE:.3}: firm conclusions \
                 rest on the point value"
            )
        } else {
            String::new()
        };
        (
            "Reliable enough for conclusions".to_string(),
            format!(
                "{name} is {:.3}{ci}, at least {ALPHA_DEFINITE:.3}{caveat}",
                e.value
            ),
        )
    } else if e.value >= ALPHA_TENTATIVE {
        (
            "Reliable enough for tentative conclusions only".to_string(),
            format!(
                "{name} is {:.3}{ci}, between {ALPHA_TENTATIVE:.3} and {ALPHA_DEFINITE:.3}",
                e.value
            ),
        )
    } else {
        (
            "Not reliable enough".to_string(),
            format!(
                "{name} is {:.3}{ci}, below {ALPHA_TENTATIVE:.3}, the least it accepts even for \
                 tentative conclusions",
                e.value
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

/// The terminal lines: one per headline coefficient with its interval.
pub fn terminal_lines(a: &Agreement, cfg: &AgreeConfig) -> Vec<String> {
    let s = &a.overall;
    let mut out = vec![format!(
        "{}: {} items, {} raters, {} ratings ({} missing), {} categories",
        cfg.experiment_id,
        s.summary.n_rows,
        s.n_raters,
        s.summary.n_ratings,
        s.missing,
        a.ratings.categories.labels.len()
    )];
    let f = |x: f64| {
        if x.is_nan() {
            "n/a".to_string()
        } else {
            format!("{x:.3}")
        }
    };
    for i in headline(s, cfg) {
        let r = &s.rows[i];
        let name = if r.weights == "none" {
            r.coefficient.to_string()
        } else {
            format!("{} ({})", r.coefficient, r.weights)
        };
        let line = format!(
            "  {name:<30} {:>6}  [{}, {}]  {}",
            f(r.estimate.value),
            f(r.estimate.lower),
            f(r.estimate.upper),
            s.interpretation[i].unwrap_or("")
        );
        out.push(line.trim_end().to_string());
    }
    if let Some((head, why)) = verdict(s, cfg) {
        out.push(format!("{head}: {why}"));
    }
    out.extend(s.notes.iter().map(|n| format!("note: {n}")));
    out
}

/// Reads the annotations, computes everything and returns the results
/// with every output file (tables, JSON, report and figures). Errors are
/// data errors naming the file, the row and the column.
pub fn run(cfg: &AgreeConfig, epoch: i64) -> anyhow::Result<(Agreement, Vec<OutputFile>)> {
    let path = &cfg.annotations_path;
    let file = path.display().to_string();
    let mut text_columns: Vec<&str> = cfg.subgroups.iter().map(String::as_str).collect();
    text_columns.extend(cfg.item_column.as_deref());
    text_columns.extend(cfg.reference_column.as_deref());
    match &cfg.layout {
        crate::config::agree::Layout::Wide { rater_columns } => {
            text_columns.extend(rater_columns.iter().map(String::as_str))
        }
        crate::config::agree::Layout::Long {
            rater_column,
            label_column,
        } => text_columns.extend([rater_column.as_str(), label_column.as_str()]),
        crate::config::agree::Layout::Counts { .. } => {}
    }
    let table = timed("read", || crate::input::read_table(path, &text_columns))?;
    let nrows = table.nrows;
    // The file's digest on another thread while the ratings are coded, and
    // the table freed on another thread while the coefficients are computed.
    let (agreement, sha256) = std::thread::scope(|s| {
        let sha256 = s.spawn(|| crate::provenance::sha256_file(path));
        let ratings = timed("ratings", || super::ratings::ratings(&table, &file, cfg));
        s.spawn(move || drop(table));
        let agreement =
            ratings.map(|ratings| timed("coefficients", || super::run::agreement(cfg, ratings)));
        (
            agreement,
            sha256.join().expect("the digest thread does not panic"),
        )
    });
    let agreement = agreement?;
    let input = crate::render::context::InputCtx {
        role: "annotations".into(),
        path: file,
        rows: nrows.to_string(),
        sha256: sha256?,
    };
    let mut files = timed("tables", || data_files(&agreement, cfg));
    let report = timed("report", || {
        super::report::report(&agreement, cfg, vec![input], epoch)
    })?;
    files.extend(timed("report files", || {
        crate::render::report_files(&report)
    })?);
    Ok((agreement, files))
}
