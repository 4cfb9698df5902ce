//! Stage 5 (analysis), agreement: the tables of `spec/agreement.md` 3 and 4
//! that `rsmreport agree` and `build` (its rater agreement section) both
//! write: `agreement`, `agreement_tests`, `agreement_pairs`,
//! `agreement_by_category`, `label_distribution`, `classification` and
//! `classification_summary`, as frames. Formats nothing for people and
//! writes nothing.

use rsmreport_core::table::{text_values, Frame, Values};
use rsmreport_metrics::raters::rows::{CoefficientRow, NullTest};

use super::run::{RaterClassification, Scope};

pub(crate) fn floats(v: impl IntoIterator<Item = f64>) -> Values {
    Values::Float(v.into_iter().collect())
}

pub(crate) fn ints(v: impl IntoIterator<Item = f64>) -> Values {
    Values::Int(v.into_iter().map(|x| x as i64).collect())
}

pub(crate) fn texts<S: AsRef<str>>(v: impl IntoIterator<Item = S>) -> Values {
    text_values(v.into_iter().map(|s| Some(s.as_ref().to_string())))
}

pub(crate) use rsmreport_core::table::frame;

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
