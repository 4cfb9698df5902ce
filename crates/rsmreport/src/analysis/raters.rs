//! Stage 5 (build): agreement among the human raters and the
//! classification view of a scoring experiment (`spec/agreement.md` 1.1,
//! 3, 4): the human score columns (`human_score_column`,
//! `second_human_score_column`, `other_human_score_columns`) and the
//! rounded primary score type as raters of the score points, with every
//! coefficient, pair, category and classification row computed by the
//! same functions as `rsmreport agree` (`crate::analysis::agreement::run`), never a copy.
//!
//! Works on the [`Prepared`] data; no I/O, no formatting beyond the score
//! point labels. The reference's tables are not touched: these are tables
//! of their own.

use crate::analysis::agreement::labels::Categories;
use crate::analysis::agreement::ratings::Ratings;
use crate::analysis::agreement::run::{self, Agreement, RaterClassification};
use crate::preprocess::Prepared;
use rsmreport_config::agree::{AgreeConfig, Layout};
use rsmreport_config::Experiment;
use rsmreport_core::table::Frame;
use rsmreport_metrics::raters::alpha::Level;
use rsmreport_metrics::raters::scales::Scale;

/// The report section of the rater agreement.
pub const SECTION: &str = rsmreport_config::sections::RATER_SECTION;

/// At most this many distinct score points make categories; more (scores
/// that are not score points) leave the agreement coefficients and the
/// classification view out, with the reason.
pub const MAX_SCORE_POINTS: usize = 50;

/// The agreement among the human raters (coefficients, categories), with
/// the machine as one more rater in the pairs and label distributions. The
/// categories are the score points of the scale and any other value a
/// human gave; the machine's trimmed and rounded scores never add one, so
/// the humans' coefficients do not depend on the machine.
#[derive(Clone, Debug)]
pub struct RaterAgreement {
    /// The build's settings seen as an agreement experiment (wide layout,
    /// interval level, Landis-Koch labels, the build's intervals).
    pub cfg: AgreeConfig,
    /// `ratings` holds the human raters and, last, the machine;
    /// `overall`'s coefficients are the humans' alone, its pairs and label
    /// distributions include the machine.
    pub agreement: Agreement,
    /// The machine's name among the raters (the rounded primary score
    /// type).
    pub machine: String,
}

/// The rounded primary score type against the first human score, each
/// score point a class.
#[derive(Clone, Debug)]
pub struct Classification {
    pub categories: Categories,
    /// One entry: the rounded primary score type.
    pub raters: Vec<RaterClassification>,
}

/// The score points of `columns`: their distinct values in numeric order,
/// with the `declared` points (the scale's, so that the categories, and the
/// weights built on them, do not depend on which points the raters happened
/// to use), or why there are too many to be categories. `-0` is `0`.
pub fn score_points(columns: &[&[f64]], declared: &[f64]) -> Result<Categories, String> {
    let mut values: Vec<f64> = columns
        .iter()
        .flat_map(|c| c.iter().copied())
        .chain(declared.iter().copied())
        .filter(|x| !x.is_nan())
        .map(|x| x + 0.0)
        .collect();
    values.sort_unstable_by(f64::total_cmp);
    values.dedup();
    if values.len() > MAX_SCORE_POINTS {
        return Err(format!(
            "the scores take {} distinct values; each score point is a category here, so this \
             is computed for at most {MAX_SCORE_POINTS} score points (round the human scores \
             to score points to see it)",
            values.len()
        ));
    }
    Ok(Categories {
        labels: values
            .iter()
            .map(|&x| rsmreport_report::render::format::score_label(x))
            .collect(),
        values,
        numeric: true,
    })
}

/// The score points a human can give on the scale: the whole numbers of
/// `[trim_min, trim_max]`, without 0 when zero scores are excluded (none
/// when the range holds more than [`MAX_SCORE_POINTS`]).
pub fn scale_points(trim_min: f64, trim_max: f64, exclude_zero: bool) -> Vec<f64> {
    let (lo, hi) = (trim_min.ceil(), trim_max.floor());
    let span = hi - lo;
    if span.is_nan() || span >= MAX_SCORE_POINTS as f64 {
        return Vec::new();
    }
    let n = span.max(-1.0) as i64 + 1;
    (0..n)
        .map(|k| lo + k as f64 + 0.0)
        .filter(|&x| !(exclude_zero && x == 0.0))
        .collect()
}

/// The category code of each value (`None` for missing).
fn codes(values: &[f64], categories: &Categories) -> Vec<Option<u32>> {
    values
        .iter()
        .map(|&x| {
            let x = x + 0.0;
            categories
                .values
                .binary_search_by(|v| v.total_cmp(&x))
                .ok()
                .map(|k| k as u32)
        })
        .collect()
}

/// The `raters` (name, scores per response) as wide-layout ratings.
fn ratings(raters: &[(&str, &[f64])], categories: &Categories) -> Ratings {
    let n = raters.first().map_or(0, |r| r.1.len());
    let m = raters.len();
    let columns: Vec<Vec<Option<u32>>> = raters.iter().map(|r| codes(r.1, categories)).collect();
    let mut all = Vec::with_capacity(n * m);
    for i in 0..n {
        all.extend(columns.iter().map(|c| c[i]));
    }
    Ratings {
        items: vec![String::new(); n],
        raters: raters.iter().map(|r| r.0.to_string()).collect(),
        codes: all,
        counts: Vec::new(),
        categories: categories.clone(),
        reference: None,
        groups: Vec::new(),
    }
}

/// The human score columns as raters, in config order.
fn human_raters<'a>(exp: &'a Experiment, prep: &'a Prepared) -> Vec<(&'a str, &'a [f64])> {
    let mut out: Vec<(&str, &[f64])> = vec![(exp.human_score_column.as_str(), &prep.sc1)];
    if let (Some(name), Some(sc2)) = (&exp.second_human_score_column, &prep.sc2) {
        out.push((name.as_str(), sc2));
    }
    out.extend(
        prep.other_humans
            .iter()
            .map(|o| (o.name.as_str(), o.values.as_slice())),
    );
    out
}

/// The build seen as an agreement experiment of the human `raters`.
fn agree_config(exp: &Experiment, raters: &[(&str, &[f64])]) -> AgreeConfig {
    AgreeConfig {
        experiment_id: exp.experiment_id.clone(),
        description: exp.description.clone(),
        model_version: exp.model_version.clone(),
        file_format: exp.file_format,
        gates: None,
        parsed_gates: Vec::new(),
        annotations_file: exp.predictions_file.display().to_string(),
        annotations_path: exp.predictions_file.clone(),
        layout: Layout::Wide {
            rater_columns: raters.iter().map(|r| r.0.to_string()).collect(),
        },
        item_column: Some(exp.id_column.clone()),
        level: Level::Interval,
        categories: None,
        reference_column: None,
        subgroups: Vec::new(),
        interpretation: Scale::LandisKoch,
        intervals: exp.intervals,
        origin: exp.config_path.clone(),
    }
}

/// Agreement among the human raters of the kept responses, the machine
/// (the rounded primary score type) one more rater in the pairs and the
/// label distributions. The humans' numbers use the humans' categories
/// (the scale's points and any other value a human gave), so the machine
/// never changes them; a point only the machine used is added to the
/// categories of the pairs and distributions.
pub fn rater_agreement(exp: &Experiment, prep: &Prepared) -> Result<RaterAgreement, String> {
    let humans = human_raters(exp, prep);
    if humans.len() < 2 {
        return Err("there is only one human score column".into());
    }
    let scale = scale_points(exp.trim_min, exp.trim_max, exp.exclude_zero_scores);
    let columns: Vec<&[f64]> = humans.iter().map(|r| r.1).collect();
    let human_points = score_points(&columns, &scale)?;
    let machine = prep.x_trim_round();
    let machine_name = if humans.iter().any(|h| h.0 == machine.name) {
        format!("machine ({})", machine.name)
    } else {
        machine.name.to_string()
    };
    let all_points = score_points(&[&human_points.values, &machine.values], &[])?;
    let cfg = agree_config(exp, &humans);
    let mut agreement = run::agreement(&cfg, ratings(&humans, &human_points));
    let mut all = humans.clone();
    all.push((&machine_name, &machine.values));
    let with_machine = ratings(&all, &all_points);
    let tables = with_machine.tables(None);
    let s = &mut agreement.overall;
    s.pairs = run::pairs(&with_machine, &tables, cfg.level)
        .into_iter()
        .map(|p| {
            let human = s
                .pairs
                .iter()
                .find(|h| h.rater_1 == p.rater_1 && h.rater_2 == p.rater_2);
            human.cloned().unwrap_or(p)
        })
        .collect();
    s.distribution = run::distribution(&with_machine, &tables);
    widen_categories(s, &human_points, &all_points);
    agreement.ratings = with_machine;
    Ok(RaterAgreement {
        cfg,
        agreement,
        machine: machine_name,
    })
}

/// The per-category numbers of `s` (on `from`'s categories) moved to the
/// categories `to` (a superset): a category no human used has no kappa,
/// share 0 and no specific agreement.
fn widen_categories(s: &mut run::Scope, from: &Categories, to: &Categories) {
    let index: Vec<Option<usize>> = to
        .values
        .iter()
        .map(|v| from.values.iter().position(|w| w == v))
        .collect();
    let widen = |xs: &[f64], absent: f64| -> Vec<f64> {
        index
            .iter()
            .map(|i| i.and_then(|i| xs.get(i).copied()).unwrap_or(absent))
            .collect()
    };
    s.category_kappa = widen(&s.category_kappa, f64::NAN);
    s.category_share = widen(&s.category_share, 0.0);
    s.specific = widen(&s.specific, f64::NAN);
}

/// The rounded primary score type as a classifier of the first human
/// score (scikit-learn's labels: the score points either one uses).
pub fn classification(prep: &Prepared) -> Result<Classification, String> {
    if prep.sc1.iter().any(|x| x.fract() != 0.0) {
        return Err(
            "the human scores are not all whole numbers, so they are not score points".into(),
        );
    }
    let machine = prep.x_trim_round();
    let categories = score_points(&[&prep.sc1, &machine.values], &[])?;
    let mut r = ratings(&[(machine.name, &machine.values)], &categories);
    r.reference = Some(codes(&prep.sc1, &categories));
    Ok(Classification {
        raters: run::classification(&r, None),
        categories,
    })
}

/// The tables of the rater agreement (`agreement`, `agreement_tests`,
/// `agreement_pairs`, `agreement_by_category`, `label_distribution`).
pub fn agreement_frames(r: &RaterAgreement) -> Vec<Frame> {
    use crate::analysis::agreement::tables::{
        agreement_frame, category_frame, distribution_frame, pairs_frame, tests_frame,
    };
    let s = &r.agreement.overall;
    let labels = &r.agreement.ratings.categories.labels;
    vec![
        agreement_frame(s),
        tests_frame(s),
        pairs_frame(s, true),
        category_frame(s, labels),
        distribution_frame(s, labels),
    ]
}

/// The tables of the classification view (`classification`,
/// `classification_summary`).
pub fn classification_frames(c: &Classification) -> Vec<Frame> {
    use crate::analysis::agreement::tables::{classification_frame, classification_summary_frame};
    vec![
        classification_frame(&c.raters, &c.categories.labels),
        classification_summary_frame(&c.raters, true, true),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_points_are_the_sorted_distinct_values() {
        let c = score_points(&[&[3.0, 1.0, f64::NAN], &[2.0, 3.0]], &[]).unwrap();
        assert_eq!(c.values, [1.0, 2.0, 3.0]);
        assert_eq!(c.labels, ["1", "2", "3"]);
        assert_eq!(codes(&[2.0, f64::NAN, 3.0], &c), [Some(1), None, Some(2)]);
        // Declared points are categories even when nobody used them; other
        // values a rater gave are added; -0 is 0.
        let c = score_points(&[&[2.0, 3.5, -0.0]], &[0.0, 1.0, 4.0]).unwrap();
        assert_eq!(c.labels, ["0", "1", "2", "3.5", "4"]);
        assert_eq!(codes(&[-0.0, 0.0], &c), [Some(0), Some(0)]);
        let many: Vec<f64> = (0..=MAX_SCORE_POINTS).map(|i| i as f64 / 10.0).collect();
        let e = score_points(&[&many], &[]).unwrap_err();
        assert!(e.contains("51 distinct values"), "{e}");
    }

    #[test]
    fn scale_points_are_the_whole_numbers_a_human_can_give() {
        assert_eq!(scale_points(1.0, 4.0, true), [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(scale_points(0.0, 2.0, true), [1.0, 2.0]);
        assert_eq!(scale_points(0.0, 2.0, false), [0.0, 1.0, 2.0]);
        assert_eq!(scale_points(-0.5, 0.5, false), [0.0]);
        assert!(scale_points(-0.5, 0.5, false)[0].is_sign_positive());
        assert!(scale_points(1.5, 1.7, true).is_empty());
        assert!(scale_points(0.0, 1000.0, true).is_empty());
    }

    #[test]
    fn wide_ratings_interleave_the_raters() {
        let c = score_points(&[&[1.0, 2.0]], &[]).unwrap();
        let r = ratings(&[("a", &[1.0, 2.0]), ("b", &[2.0, f64::NAN])], &c);
        assert_eq!(r.raters, ["a", "b"]);
        assert_eq!(r.codes, [Some(0), Some(1), Some(1), None]);
        assert_eq!(r.items.len(), 2);
    }
}
