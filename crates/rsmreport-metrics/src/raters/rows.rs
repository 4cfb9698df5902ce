//! Stage 4 (metrics, pure): the coefficients of spec 3's `<id>_agreement`
//! table as numbers, one [`CoefficientRow`] per coefficient and weighting,
//! computed from the count tables (the caller formats and writes them).
//! Krippendorff's alpha rows carry no standard error: their interval comes
//! from [`super::alpha::AlphaBootstrap`], which the caller runs with its
//! seed and replicate count.
//!
//! Pure maths on the count tables of [`super`]: nothing here may touch
//! files, tables, configuration, threads, formatting or report code.
//! Degenerate data give `NaN` values, never a panic.

use super::alpha::{krippendorff_alpha, Level};
use super::chance::{brennan_prediger, conger_kappa, fleiss_kappa, gwet_ac, percent_agreement};
use super::fleiss::{fleiss_kappa_complete, two_sided_normal};
use super::icc::{icc_at, ICC_NAMES};
use super::pairs::{cohen_kappa_se, scott_pi};
use super::{CountTables, Estimate, Kernel, PValue, Weights};

/// One row of the agreement table.
#[derive(Clone, Debug, PartialEq)]
pub struct CoefficientRow {
    /// `percent_agreement`, `fleiss_kappa`, `fleiss_kappa_complete`,
    /// `randolph_kappa`, `brennan_prediger`, `gwet_ac1`, `conger_kappa`,
    /// `krippendorff_alpha`, `icc1` ... `icc3k`, `cohen_kappa`, `scott_pi`.
    pub coefficient: &'static str,
    /// `none`, `linear`, `quadratic`; the level for `krippendorff_alpha`.
    pub weights: &'static str,
    /// Value, standard error, interval, z and p (NaN where the coefficient
    /// has none: no interval is ever built from a null standard error).
    pub estimate: Estimate,
    pub n_items: f64,
    pub n_raters: usize,
    /// The test of "no agreement beyond chance" that the reference package
    /// reports beside the coefficient (never used for its interval).
    pub test: Option<NullTest>,
}

/// A test of the null hypothesis of no agreement beyond chance: `z` with
/// the standard error under that hypothesis (Cohen's kappa as statsmodels,
/// Fleiss' kappa on complete items as R `irr`), or the ICC's `F` test
/// (pingouin). Two-sided p-value for `z`, upper tail for `F`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NullTest {
    /// `z` or `F`.
    pub statistic_name: &'static str,
    pub statistic: f64,
    /// The standard error under the null (`z` tests; NaN for `F`).
    pub se0: f64,
    /// Degrees of freedom (`F` tests; NaN for `z`).
    pub df1: f64,
    pub df2: f64,
    pub p_value: f64,
}

impl NullTest {
    fn z(z: f64, se0: f64) -> NullTest {
        NullTest {
            statistic_name: "z",
            statistic: z,
            se0,
            df1: f64::NAN,
            df2: f64::NAN,
            p_value: two_sided_normal(z),
        }
    }
}

/// Every coefficient a row may hold ([`CoefficientRow::coefficient`]), in
/// the order of the rows.
pub const COEFFICIENTS: [&str; 16] = [
    "percent_agreement",
    "fleiss_kappa",
    "fleiss_kappa_complete",
    "randolph_kappa",
    "brennan_prediger",
    "gwet_ac1",
    "conger_kappa",
    "krippendorff_alpha",
    "icc1",
    "icc2",
    "icc3",
    "icc1k",
    "icc2k",
    "icc3k",
    "cohen_kappa",
    "scott_pi",
];

/// Every row spec 3 lists for data at `level` with category `values`:
/// weighted forms (linear, quadratic over the values) and ICCs only above
/// the nominal level; alpha at every level up to the data's own
/// (nominal < ordinal < interval < ratio); `cohen_kappa` and `scott_pi`
/// for two raters; Conger's kappa, the ICCs and the pair rows only with
/// rater information. The ICCs' intervals are pingouin's 95% ones.
pub fn coefficient_rows(tables: &CountTables, values: &[f64], level: Level) -> Vec<CoefficientRow> {
    coefficient_rows_at(tables, values, level, 0.95)
}

/// [`coefficient_rows`] with the ICCs' F intervals at `ci_level`.
pub fn coefficient_rows_at(
    tables: &CountTables,
    values: &[f64],
    level: Level,
    ci_level: f64,
) -> Vec<CoefficientRow> {
    let s = tables.summary();
    let r = tables.n_raters();
    let (n_with, n_pairable) = (s.n_items_with_ratings as f64, s.n_items_pairable as f64);
    let row = |coefficient, weights, estimate, n_items| CoefficientRow {
        coefficient,
        weights,
        estimate,
        n_items,
        n_raters: r,
        test: None,
    };
    let identity = Kernel::new(values, Weights::Identity);
    let mut out = vec![row(
        "percent_agreement",
        "none",
        percent_agreement(&tables.items, &identity),
        n_pairable,
    )];
    let kinds: &[Weights] = if level == Level::Nominal {
        &Weights::ALL[..1]
    } else {
        &Weights::ALL
    };
    let complete = fleiss_kappa_complete(&tables.complete_items());
    let no_se =
        |v: f64| Estimate::from_se(v, f64::NAN, f64::NAN, f64::NAN, f64::NAN, PValue::TwoSided);
    for &kind in kinds {
        let w = Kernel::new(values, kind);
        out.push(row(
            "fleiss_kappa",
            kind.name(),
            fleiss_kappa(&tables.items, &w),
            n_with,
        ));
        if kind == Weights::Identity {
            out.push(CoefficientRow {
                test: Some(NullTest::z(complete.z, complete.se0)),
                ..row(
                    "fleiss_kappa_complete",
                    "none",
                    no_se(complete.kappa),
                    complete.n_items,
                )
            });
            out.push(row(
                "randolph_kappa",
                "none",
                no_se(complete.randolph),
                complete.n_items,
            ));
        }
        out.push(row(
            "brennan_prediger",
            kind.name(),
            brennan_prediger(&tables.items, &w),
            n_with,
        ));
        out.push(row(
            "gwet_ac1",
            kind.name(),
            gwet_ac(&tables.items, &w),
            n_with,
        ));
        if tables.raters.is_some() {
            out.push(row(
                "conger_kappa",
                kind.name(),
                conger_kappa(tables, &w),
                n_with,
            ));
        }
    }
    for l in Level::ALL
        .into_iter()
        .take_while(|&l| l as u8 <= level as u8)
    {
        let a = krippendorff_alpha(&tables.items, l, values);
        out.push(row("krippendorff_alpha", l.name(), no_se(a), n_pairable));
    }
    if level != Level::Nominal && tables.raters.is_some() {
        out.extend(icc_rows(tables, values, ci_level));
    }
    if r == 2 && tables.raters.is_some() {
        out.extend(two_rater_rows(tables, values, kinds));
    }
    out
}

/// The six ICC rows: value, F-quantile interval, F-test p-value.
fn icc_rows(tables: &CountTables, values: &[f64], ci_level: f64) -> Vec<CoefficientRow> {
    const NAMES: [&str; 6] = ["icc1", "icc2", "icc3", "icc1k", "icc2k", "icc3k"];
    debug_assert_eq!(NAMES.len(), ICC_NAMES.len());
    let result = icc_at(tables, values, ci_level);
    NAMES
        .iter()
        .zip(&result.forms)
        .map(|(&name, f)| CoefficientRow {
            coefficient: name,
            weights: "none",
            estimate: Estimate {
                value: f.icc,
                se: f64::NAN,
                lower: f.lower,
                upper: f.upper,
                z: f64::NAN,
                p_value: f.p_value,
                df: f.df1,
                pa: f64::NAN,
                pe: f64::NAN,
            },
            n_items: result.n,
            n_raters: tables.n_raters(),
            test: Some(NullTest {
                statistic_name: "F",
                statistic: f.f,
                se0: f64::NAN,
                df1: f.df1,
                df2: f.df2,
                p_value: f.p_value,
            }),
        })
        .collect()
}

/// Cohen's kappa (statsmodels: FCE standard error, normal interval, z and
/// p under the null) per weighting, and Scott's pi (irrCAC).
fn two_rater_rows(tables: &CountTables, values: &[f64], kinds: &[Weights]) -> Vec<CoefficientRow> {
    let Some(pair) = tables.raters.as_ref().map(|r| &r.pairs[0]) else {
        return Vec::new();
    };
    let n = pair.n();
    let mut out = Vec::new();
    for &kind in kinds {
        let c = cohen_kappa_se(pair, kind);
        let estimate = Estimate {
            value: c.kappa,
            se: c.se,
            lower: c.lower,
            upper: c.upper,
            z: c.z,
            p_value: two_sided_normal(c.z),
            df: f64::NAN,
            pa: f64::NAN,
            pe: f64::NAN,
        };
        out.push(CoefficientRow {
            coefficient: "cohen_kappa",
            weights: kind.name(),
            estimate,
            n_items: n,
            n_raters: 2,
            test: Some(NullTest::z(c.z, c.se0)),
        });
    }
    let w = Kernel::new(values, Weights::Identity);
    out.push(CoefficientRow {
        coefficient: "scott_pi",
        weights: "none",
        estimate: scott_pi(pair, &w),
        n_items: n,
        n_raters: 2,
        test: None,
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raters::positions;

    #[test]
    fn rows_follow_the_level_of_measurement() {
        let codes: Vec<Option<u32>> = [0, 0, 1, 1, 2, 1, 2, 2, 0, 1, 1, 1]
            .iter()
            .map(|&c| Some(c))
            .collect();
        let t = CountTables::from_ratings(&codes, 2, 3);
        let names = |rows: &[CoefficientRow]| -> Vec<(&str, &str)> {
            rows.iter().map(|r| (r.coefficient, r.weights)).collect()
        };
        let nominal = coefficient_rows(&t, &positions(3), Level::Nominal);
        let n = names(&nominal);
        assert!(n.contains(&("krippendorff_alpha", "nominal")));
        assert!(!n.contains(&("krippendorff_alpha", "ordinal")));
        assert!(!n
            .iter()
            .any(|(c, w)| c.starts_with("icc") || *w == "quadratic"));
        assert!(n.contains(&("cohen_kappa", "none")) && n.contains(&("scott_pi", "none")));
        let interval = coefficient_rows(&t, &positions(3), Level::Interval);
        let n = names(&interval);
        assert!(n.contains(&("gwet_ac1", "quadratic")) && n.contains(&("icc3k", "none")));
        assert!(n.contains(&("krippendorff_alpha", "interval")));
        assert!(!n.contains(&("krippendorff_alpha", "ratio")));
        // No interval from a null standard error: Fleiss complete has none.
        let fc = interval
            .iter()
            .find(|r| r.coefficient == "fleiss_kappa_complete")
            .unwrap();
        assert!(fc.estimate.se.is_nan() && fc.estimate.lower.is_nan());
        assert!(fc.estimate.value.is_finite());
        // Every row's coefficient is listed, in row order.
        let listed = |r: &CoefficientRow| COEFFICIENTS.iter().position(|c| *c == r.coefficient);
        for rows in [&nominal, &interval] {
            assert!(rows.iter().all(|r| listed(r).is_some()));
        }
        assert!(n.iter().all(|(c, _)| COEFFICIENTS.contains(c)));
    }
}
