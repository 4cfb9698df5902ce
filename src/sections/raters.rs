//! Stage 5 (build): agreement among the human raters and the
//! classification view of a scoring experiment (`spec/agreement.md` 1.1,
//! 3, 4): the human score columns (`human_score_column`,
//! `second_human_score_column`, `other_human_score_columns`) and the
//! rounded primary score type as raters of the score points, with every
//! coefficient, pair, category and classification row computed by the
//! same functions as `rsmreport agree` (`crate::agree::run`), never a copy.
//!
//! Works on the [`Prepared`] data; no I/O, no formatting beyond the score
//! point labels. The reference's tables are not touched: these are tables
//! of their own.

use crate::agree::labels::Categories;
use crate::agree::ratings::Ratings;
use crate::agree::run::{self, Agreement, RaterClassification};
use crate::config::agree::{AgreeConfig, Layout};
use crate::config::Experiment;
use crate::metrics::raters::alpha::Level;
use crate::metrics::raters::scales::Scale;
use crate::preprocess::Prepared;
use crate::table::Frame;

/// The report section of the rater agreement.
pub const SECTION: &str = crate::config::sections::RATER_SECTION;

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
/// with every whole number of `scale` (the score range `[trim_min,
/// trim_max]`, so that the categories, and the weights built on them, do
/// not depend on which points the raters happened to use), or why there
/// are too many to be categories.
pub fn score_points(columns: &[&[f64]], scale: Option<(f64, f64)>) -> Result<Categories, String> {
    let mut values: Vec<f64> = columns
        .iter()
        .flat_map(|c| c.iter().copied())
        .filter(|x| !x.is_nan())
        .collect();
    if let Some((lo, hi)) = scale {
        let (lo, hi) = (lo.ceil(), hi.floor());
        if hi - lo < MAX_SCORE_POINTS as f64 {
            let n = (hi - lo).max(-1.0) as i64 + 1;
            values.extend((0..n).map(|k| lo + k as f64));
        }
    }
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
            .map(|&x| crate::render::format::score_label(x))
            .collect(),
        values,
        numeric: true,
    })
}

/// The category code of each value (`None` for missing).
fn codes(values: &[f64], categories: &Categories) -> Vec<Option<u32>> {
    values
        .iter()
        .map(|x| {
            categories
                .values
                .binary_search_by(|v| v.total_cmp(x))
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
/// label distributions.
pub fn rater_agreement(exp: &Experiment, prep: &Prepared) -> Result<RaterAgreement, String> {
    let humans = human_raters(exp, prep);
    if humans.len() < 2 {
        return Err("there is only one human score column".into());
    }
    let machine = prep.x_trim_round();
    let mut all = humans.clone();
    all.push((machine.name, &machine.values));
    let columns: Vec<&[f64]> = all.iter().map(|r| r.1).collect();
    let categories = score_points(&columns, Some((exp.trim_min, exp.trim_max)))?;
    let cfg = agree_config(exp, &humans);
    let mut agreement = run::agreement(&cfg, ratings(&humans, &categories));
    let with_machine = ratings(&all, &categories);
    let tables = with_machine.tables(None);
    agreement.overall.pairs = run::pairs(&with_machine, &tables, cfg.level);
    agreement.overall.distribution = run::distribution(&with_machine, &tables);
    agreement.ratings = with_machine;
    Ok(RaterAgreement {
        cfg,
        agreement,
        machine: machine.name.to_string(),
    })
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
    let categories = score_points(&[&prep.sc1, &machine.values], None)?;
    let mut r = ratings(&[(machine.name, &machine.values)], &categories);
    r.reference = Some(codes(&prep.sc1, &categories));
    Ok(Classification {
        raters: run::classification(&r, None),
        categories,
    })
}

/// The tables of the rater agreement (`agreement`, `agreement_pairs`,
/// `agreement_by_category`, `label_distribution`).
pub fn agreement_frames(r: &RaterAgreement) -> Vec<Frame> {
    use crate::agree::outputs::{agreement_frame, category_frame, distribution_frame, pairs_frame};
    let s = &r.agreement.overall;
    let labels = &r.agreement.ratings.categories.labels;
    vec![
        agreement_frame(s),
        pairs_frame(s, true),
        category_frame(s, labels),
        distribution_frame(s, labels),
    ]
}

/// The tables of the classification view (`classification`,
/// `classification_summary`).
pub fn classification_frames(c: &Classification) -> Vec<Frame> {
    use crate::agree::outputs::{classification_frame, classification_summary_frame};
    vec![
        classification_frame(&c.raters, &c.categories.labels),
        classification_summary_frame(&c.raters, true),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_points_are_the_sorted_distinct_values() {
        let c = score_points(&[&[3.0, 1.0, f64::NAN], &[2.0, 3.0]], None).unwrap();
        assert_eq!(c.values, [1.0, 2.0, 3.0]);
        assert_eq!(c.labels, ["1", "2", "3"]);
        assert_eq!(codes(&[2.0, f64::NAN, 3.0], &c), [Some(1), None, Some(2)]);
        // The scale's whole numbers are categories even when nobody used
        // them; other values a rater gave are added.
        let c = score_points(&[&[2.0, 3.5]], Some((1.0, 4.0))).unwrap();
        assert_eq!(c.labels, ["1", "2", "3", "3.5", "4"]);
        let c = score_points(&[&[2.0]], Some((1.5, 1.7))).unwrap();
        assert_eq!(c.labels, ["2"]);
        let many: Vec<f64> = (0..=MAX_SCORE_POINTS).map(|i| i as f64 / 10.0).collect();
        let e = score_points(&[&many], None).unwrap_err();
        assert!(e.contains("51 distinct values"), "{e}");
    }

    #[test]
    fn wide_ratings_interleave_the_raters() {
        let c = score_points(&[&[1.0, 2.0]], None).unwrap();
        let r = ratings(&[("a", &[1.0, 2.0]), ("b", &[2.0, f64::NAN])], &c);
        assert_eq!(r.raters, ["a", "b"]);
        assert_eq!(r.codes, [Some(0), Some(1), Some(1), None]);
        assert_eq!(r.items.len(), 2);
    }
}
