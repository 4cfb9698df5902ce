//! Stage 5 (analysis), agreement: every number of an agreement experiment, for
//! all items and for each level of each subgroup (`spec/agreement.md` 3,
//! 4, 6): the coefficient rows with their intervals (Krippendorff's alpha
//! by the seeded bootstrap over items, computed on threads but one
//! `(seed, replicate)` stream per replicate, so the same seed gives the
//! same numbers whatever the thread count), interpretation labels, the
//! pairwise table, the per-category table, the label distributions and
//! the classification view against the reference labels.
//!
//! Calls the pure maths of `rsmreport_metrics::raters` and
//! `rsmreport_metrics::classification` (one definition of every number);
//! reads and writes nothing, formats nothing.

use statrs::distribution::{ContinuousCDF, Normal};

use super::ratings::Ratings;
use rsmreport_config::agree::AgreeConfig;
use rsmreport_config::intervals::Intervals;
use rsmreport_metrics::bootstrap::percentile_interval;
use rsmreport_metrics::classification::{
    classification_report_cells, confusion_cells, kendall_tau_b_cells, pearson_test, spearman_test,
    ClassificationReport,
};
use rsmreport_metrics::distributions::t_ppf;
use rsmreport_metrics::raters::alpha::{AlphaBootstrap, Level};
use rsmreport_metrics::raters::chance::{category_shares, specific_agreement};
use rsmreport_metrics::raters::fleiss::fleiss_kappa_complete;
use rsmreport_metrics::raters::pairs::{
    cohen_kappa, cohen_kappa_se, exact_agreement, pearson_table,
};
use rsmreport_metrics::raters::rows::{coefficient_rows_at, CoefficientRow};
use rsmreport_metrics::raters::{CountTables, PairTable, RatingsSummary, Weights};

/// One pair of raters (spec 3, `<id>_agreement_pairs`).
#[derive(Clone, Debug, PartialEq)]
pub struct PairRow {
    pub rater_1: String,
    pub rater_2: String,
    pub n: f64,
    pub exact_agreement: f64,
    /// Unweighted Cohen's kappa with the FCE standard error and interval.
    pub kappa: f64,
    pub kappa_se: f64,
    pub kappa_lower: f64,
    pub kappa_upper: f64,
    pub kappa_linear: f64,
    pub kappa_quadratic: f64,
    pub pearson_r: f64,
}

/// One rater against the reference labels (spec 4).
#[derive(Clone, Debug, PartialEq)]
pub struct RaterClassification {
    pub rater: String,
    /// The confusion counts as sorted sparse cells `(reference, rater,
    /// count)` (never `q x q`: label sets of thousands).
    pub confusion: Vec<(u32, u32, f64)>,
    pub report: ClassificationReport,
    pub kappa: [f64; 3],
    /// `(r, p)` for Pearson, Spearman and Kendall's tau-b (NaN for text
    /// labels).
    pub pearson: (f64, f64),
    pub spearman: (f64, f64),
    pub kendall: (f64, f64),
}

/// Every number of one scope (all items, or one subgroup level).
#[derive(Clone, Debug)]
pub struct Scope {
    /// `All data`, or the subgroup level.
    pub label: String,
    pub summary: RatingsSummary,
    pub n_raters: usize,
    /// Ratings the layout leaves empty (items x raters - ratings; 0 for
    /// the counts layout).
    pub missing: u64,
    pub rows: Vec<CoefficientRow>,
    /// The configured scale's label of each row (none for percent
    /// agreement and NaN values).
    pub interpretation: Vec<Option<&'static str>>,
    pub pairs: Vec<PairRow>,
    /// Per category: Fleiss' kappa (complete items), share of ratings,
    /// specific agreement.
    pub category_kappa: Vec<f64>,
    pub category_share: Vec<f64>,
    pub specific: Vec<f64>,
    /// Per rater (or `all raters` in the counts layout): label counts.
    pub distribution: Vec<(String, Vec<f64>)>,
    pub classification: Vec<RaterClassification>,
    /// Why numbers are missing, the prevalence paradox.
    pub notes: Vec<String>,
}

/// The whole experiment's results.
#[derive(Clone, Debug)]
pub struct Agreement {
    pub ratings: Ratings,
    pub overall: Scope,
    /// Per subgroup column, the scope of each level (code-point order).
    pub groups: Vec<(String, Vec<Scope>)>,
}

/// Computes every scope of the experiment.
pub fn agreement(cfg: &AgreeConfig, ratings: Ratings) -> Agreement {
    let overall = scope(cfg, &ratings, "All data", None);
    let groups = ratings
        .groups
        .iter()
        .map(|(g, values)| {
            let mut levels: Vec<&str> = values.iter().flatten().map(String::as_str).collect();
            levels.sort_unstable();
            levels.dedup();
            let scopes = levels
                .iter()
                .map(|level| {
                    let rows: Vec<usize> = (0..values.len())
                        .filter(|&i| values[i].as_deref() == Some(level))
                        .collect();
                    scope(cfg, &ratings, level, Some(&rows))
                })
                .collect();
            (g.clone(), scopes)
        })
        .collect();
    Agreement {
        ratings,
        overall,
        groups,
    }
}

fn scope(cfg: &AgreeConfig, r: &Ratings, label: &str, rows: Option<&[usize]>) -> Scope {
    let tables = r.tables(rows);
    let values = &r.categories.values;
    let ci_level = cfg.intervals.map_or(0.95, |i| i.level);
    let mut coefficient = coefficient_rows_at(&tables, values, cfg.level, ci_level);
    set_intervals(&mut coefficient, &tables, values, cfg.intervals.as_ref());
    let interpretation = coefficient
        .iter()
        .map(|row| match row.coefficient {
            "percent_agreement" => None,
            _ => cfg.interpretation.label(row.estimate.value),
        })
        .collect();
    let complete = fleiss_kappa_complete(&tables.complete_items());
    let summary = tables.summary();
    let n_raters = tables.n_raters();
    // Counts layout too: the raters are the largest row sum, and each
    // item's shortfall from it is missing.
    let missing = (summary.n_rows * n_raters) as u64 - summary.n_ratings;
    let notes = notes(r, &tables, &summary, &coefficient);
    Scope {
        label: label.to_string(),
        n_raters,
        missing,
        interpretation,
        pairs: pairs(r, &tables, cfg.level),
        category_kappa: complete.category_kappa,
        category_share: category_shares(&tables.items),
        specific: specific_agreement(&tables.items),
        distribution: distribution(r, &tables),
        classification: classification(r, rows),
        notes,
        summary,
        rows: coefficient,
    }
}

/// The interval of every row at the configured level: alpha's from the
/// bootstrap over items (its standard error the replicates' standard
/// deviation), the others from their standard errors (t(df) as irrCAC,
/// clipped at 1, or normal for Cohen's kappa); the ICCs keep the F
/// interval [`coefficient_rows_at`] computed at that level. With intervals
/// off, no row has an interval.
fn set_intervals(
    rows: &mut [CoefficientRow],
    tables: &CountTables,
    values: &[f64],
    intervals: Option<&Intervals>,
) {
    // One bootstrap (units and blocks) for alpha at every level.
    let mut boot: Option<AlphaBootstrap> = None;
    for row in rows.iter_mut() {
        let e = &mut row.estimate;
        let Some(iv) = intervals else {
            (e.lower, e.upper) = (f64::NAN, f64::NAN);
            continue;
        };
        if row.coefficient == "krippendorff_alpha" {
            let level = Level::ALL
                .into_iter()
                .find(|l| l.name() == row.weights)
                .expect("alpha rows are named by level");
            let boot = boot
                .get_or_insert_with(|| AlphaBootstrap::with_seed(tables, level, values, iv.seed))
                .at_level(level);
            (e.lower, e.upper, e.se) = bootstrap_interval(&boot, iv, e.value);
        } else if e.se.is_finite() && (iv.level - 0.95).abs() > 1e-12 {
            let q = if e.df.is_finite() {
                t_ppf((1.0 + iv.level) / 2.0, e.df)
            } else {
                Normal::standard().inverse_cdf((1.0 + iv.level) / 2.0)
            };
            e.lower = e.value - q * e.se;
            e.upper = e.value + q * e.se;
            if e.df.is_finite() {
                e.upper = e.upper.min(1.0);
            }
        }
    }
}

/// The percentile interval of alpha over `iv.replicates` replicates,
/// computed on up to as many threads as there are cores (each replicate
/// from its own `(seed, b)` stream, stored at its own index).
pub fn alpha_interval(
    tables: &CountTables,
    level: Level,
    values: &[f64],
    iv: &Intervals,
    estimate: f64,
) -> (f64, f64) {
    let boot = AlphaBootstrap::with_seed(tables, level, values, iv.seed);
    let (lower, upper, _) = bootstrap_interval(&boot, iv, estimate);
    (lower, upper)
}

/// [`alpha_interval`] from a prepared bootstrap (`iv.seed` the seed of its
/// blocks), with the replicates' standard deviation.
fn bootstrap_interval(boot: &AlphaBootstrap, iv: &Intervals, estimate: f64) -> (f64, f64, f64) {
    let none = (f64::NAN, f64::NAN, f64::NAN);
    if iv.replicates == 0 || boot.n_units() == 0 || estimate.is_nan() {
        return none;
    }
    let b = iv.replicates as usize;
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(b);
    let chunk = b.div_ceil(threads);
    let mut reps = vec![f64::NAN; b];
    std::thread::scope(|s| {
        for (t, part) in reps.chunks_mut(chunk).enumerate() {
            s.spawn(move || {
                for (j, slot) in part.iter_mut().enumerate() {
                    *slot = boot.replicate(iv.seed, (t * chunk + j) as u64);
                }
            });
        }
    });
    let i = percentile_interval(&reps, iv.level);
    // More than 1% of the replicates NaN: no interval (uncertainty 2.3).
    if (i.valid as f64) < 0.99 * b as f64 {
        return none;
    }
    (i.lower, i.upper, i.se)
}

/// Raters of the wide or long layout who gave no rating in `tables`.
fn silent_raters(tables: &CountTables) -> Vec<usize> {
    let Some(rt) = &tables.raters else {
        return Vec::new();
    };
    let q = tables.q;
    (0..rt.n_raters)
        .filter(|&g| rt.marginals[g * q..(g + 1) * q].iter().all(|&c| c == 0.0))
        .collect()
}

/// `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Why numbers are missing or need care: no pairable item, raters with no
/// rating, no complete item, a single category, the counts layout's
/// unequal row sums, the prevalence paradox.
fn notes(
    r: &Ratings,
    tables: &CountTables,
    s: &RatingsSummary,
    rows: &[CoefficientRow],
) -> Vec<String> {
    let mut out = Vec::new();
    if s.n_items_pairable == 0 {
        out.push(
            "No item has two ratings, so no agreement can be measured: every coefficient is \
             empty (NaN)."
                .to_string(),
        );
        return out;
    }
    let silent = silent_raters(tables);
    if !silent.is_empty() {
        let names: Vec<String> = silent
            .iter()
            .map(|&g| format!("'{}'", r.raters[g]))
            .collect();
        let m = tables.n_raters();
        let kept = m - silent.len();
        let left = m * (m - 1) / 2 - kept * kept.saturating_sub(1) / 2;
        out.push(format!(
            "{} gave no rating: left out of the pairs table ({left} of {} pairs), and Conger's \
             kappa, which needs each rater's own label shares, is empty. The other \
             coefficients use the ratings given.",
            and_list(&names),
            m * (m - 1) / 2
        ));
    }
    let empty = |c: &str| {
        rows.iter()
            .any(|row| row.coefficient == c && row.estimate.value.is_nan())
    };
    if s.n_items_complete == 0 && empty("fleiss_kappa_complete") {
        let icc = if rows.iter().any(|row| row.coefficient == "icc1") {
            ", randolph_kappa and the ICCs"
        } else {
            " and randolph_kappa"
        };
        out.push(format!(
            "No item was rated by all {} raters, so the coefficients computed on complete items \
             only are empty: fleiss_kappa_complete{icc}. fleiss_kappa, gwet_ac1, \
             brennan_prediger and krippendorff_alpha allow missing ratings and use every item \
             with two or more ratings.",
            tables.n_raters()
        ));
    }
    if s.observed_categories.len() == 1 {
        let mut names: Vec<&str> = rows
            .iter()
            .filter(|row| row.estimate.value.is_nan())
            .map(|row| row.coefficient)
            .collect();
        names.dedup();
        if !names.is_empty() {
            let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
            out.push(format!(
                "Every rating is in one category ('{}'): chance agreement is then 1, so {} \
                 (0/0) are empty. Agreement is perfect but says nothing about the raters' \
                 ability to tell categories apart.",
                r.categories.labels[s.observed_categories[0]],
                and_list(&names)
            ));
        }
    }
    if r.raters.is_empty() {
        out.extend(counts_note(tables, s));
    }
    let value = |c: &str| {
        rows.iter()
            .find(|r| r.coefficient == c && r.weights == "none")
            .map_or(f64::NAN, |r| r.estimate.value)
    };
    let (kappa, ac1, pa) = (
        value("fleiss_kappa"),
        value("gwet_ac1"),
        value("percent_agreement"),
    );
    if (kappa - ac1).abs() > 0.1 {
        out.push(format!(
            "Fleiss' kappa ({kappa:.3}) and Gwet's AC1 ({ac1:.3}) differ by more than 0.1. This \
             is the prevalence paradox: when one category dominates, chance agreement under \
             kappa's model is high, so kappa stays low even though the raters agree on {:.1}% \
             of pairs; AC1 models chance agreement differently and stays high. Read both, and \
             the per-category table, before concluding.",
            pa * 100.0
        ));
    }
    out
}

/// The counts layout with unequal row sums: how raters and missing
/// ratings are counted, and which coefficients use which items.
fn counts_note(tables: &CountTables, s: &RatingsSummary) -> Option<String> {
    let totals = (0..tables.items.len()).map(|p| tables.items.total(p));
    let (lo, hi) = (totals.clone().min()?, totals.max()?);
    (lo != hi).then(|| {
        format!(
            "Counts layout with unequal row sums: items have between {lo} and {hi} ratings. \
             The number of raters is the largest row sum ({hi}), and each item's shortfall \
             from it counts as missing ({} missing ratings in all). As irrCAC does for this \
             layout, fleiss_kappa, gwet_ac1, brennan_prediger and krippendorff_alpha use each \
             item's own number of ratings; fleiss_kappa_complete and randolph_kappa use only \
             the {} items with {hi} ratings.",
            (s.n_rows as u64 * u64::from(hi)) - s.n_ratings,
            s.n_items_complete
        )
    })
}

/// One row per pair of raters of `r` (none in the counts layout); a pair
/// with a rater who gave no rating is left out (the notes say so).
pub fn pairs(r: &Ratings, tables: &CountTables, level: Level) -> Vec<PairRow> {
    let Some(rt) = &tables.raters else {
        return Vec::new();
    };
    let silent = silent_raters(tables);
    rt.pairs
        .iter()
        .filter(|p| !silent.contains(&p.rater_1) && !silent.contains(&p.rater_2))
        .map(|p| {
            let c = cohen_kappa_se(p, Weights::Identity);
            let weighted = level != Level::Nominal;
            let w = |kind| {
                if weighted {
                    cohen_kappa(p, kind)
                } else {
                    f64::NAN
                }
            };
            PairRow {
                rater_1: r.raters[p.rater_1].clone(),
                rater_2: r.raters[p.rater_2].clone(),
                n: p.n(),
                exact_agreement: exact_agreement(p),
                kappa: c.kappa,
                kappa_se: c.se,
                kappa_lower: c.lower,
                kappa_upper: c.upper,
                kappa_linear: w(Weights::Linear),
                kappa_quadratic: w(Weights::Quadratic),
                pearson_r: if weighted {
                    pearson_table(p, &r.categories.values).0
                } else {
                    f64::NAN
                },
            }
        })
        .collect()
}

/// Per rater (or `all raters` in the counts layout), the count of each label.
pub fn distribution(r: &Ratings, tables: &CountTables) -> Vec<(String, Vec<f64>)> {
    let q = tables.q;
    match &tables.raters {
        Some(rt) => r
            .raters
            .iter()
            .enumerate()
            .map(|(g, name)| (name.clone(), rt.marginals[g * q..(g + 1) * q].to_vec()))
            .collect(),
        None => vec![("all raters".to_string(), tables.items.category_totals())],
    }
}

/// Each rater of `r` against the reference labels, on the items `rows`
/// (all when `None`); empty without reference labels.
pub fn classification(r: &Ratings, rows: Option<&[usize]>) -> Vec<RaterClassification> {
    let Some(reference) = &r.reference else {
        return Vec::new();
    };
    let all: Vec<usize> = (0..r.items.len()).collect();
    let rows = rows.unwrap_or(&all);
    let (q, m) = (r.q(), r.raters.len());
    let values = &r.categories.values;
    (0..m)
        .map(|g| {
            let (mut gold, mut pred) = (Vec::new(), Vec::new());
            for &i in rows {
                if let (Some(a), Some(b)) = (reference[i], r.codes[i * m + g]) {
                    gold.push(a);
                    pred.push(b);
                }
            }
            let c = confusion_cells(&gold, &pred, q);
            let table = PairTable {
                rater_1: 0,
                rater_2: 1,
                q,
                cells: c.clone(),
            };
            let numeric = r.categories.numeric;
            let x: Vec<f64> = gold.iter().map(|&k| values[k as usize]).collect();
            let y: Vec<f64> = pred.iter().map(|&k| values[k as usize]).collect();
            let nan = (f64::NAN, f64::NAN);
            RaterClassification {
                rater: r.raters[g].clone(),
                report: classification_report_cells(&c, q),
                kappa: Weights::ALL.map(|w| cohen_kappa(&table, w)),
                pearson: if numeric { pearson_test(&x, &y) } else { nan },
                spearman: if numeric { spearman_test(&x, &y) } else { nan },
                kendall: if numeric {
                    kendall_tau_b_cells(&c, q)
                } else {
                    nan
                },
                confusion: c,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The threaded bootstrap gives exactly the serial interval.
    #[test]
    fn agree_alpha_interval_on_threads_equals_the_serial_one() {
        let codes: Vec<Option<u32>> = (0..120u32)
            .map(|i| (i % 7 != 3).then_some((i * 7 + i / 5) % 3))
            .collect();
        let tables = CountTables::from_ratings(&codes, 3, 3);
        let values = rsmreport_metrics::raters::positions(3);
        let iv = Intervals {
            replicates: 203,
            seed: 11,
            ..Intervals::default()
        };
        let serial =
            AlphaBootstrap::with_seed(&tables, Level::Ordinal, &values, 11).interval(11, 203, 0.95);
        let (lo, hi) = alpha_interval(&tables, Level::Ordinal, &values, &iv, 0.5);
        assert!(lo.is_finite() && hi > lo);
        assert_eq!(
            (lo.to_bits(), hi.to_bits()),
            (serial.lower.to_bits(), serial.upper.to_bits())
        );
    }

    /// Continuous ratings (about 600 distinct values, 1,500 items: the
    /// block path) at every level: the threaded interval is the serial one
    /// to the last bit.
    #[test]
    fn agree_continuous_alpha_interval_on_threads_equals_the_serial_one() {
        let mut g = rsmreport_metrics::test_util::Lcg(21);
        let q = 600u32;
        let codes: Vec<Option<u32>> = (0..1500 * 3)
            .map(|i| {
                let t = (i / 3) as f64 * 0.37 % 1.0;
                let c = ((t + (g.next() - 0.5) * 0.1).clamp(0.0, 0.999) * f64::from(q)) as u32;
                (g.next() > 0.05).then_some(c)
            })
            .collect();
        let tables = CountTables::from_ratings(&codes, 3, q as usize);
        let values: Vec<f64> = (0..q).map(|k| f64::from(k) / 6.0).collect();
        let iv = Intervals {
            replicates: 101,
            seed: 5,
            ..Intervals::default()
        };
        for level in Level::ALL {
            let serial =
                AlphaBootstrap::with_seed(&tables, level, &values, 5).interval(5, 101, 0.95);
            let (lo, hi) = alpha_interval(&tables, level, &values, &iv, 0.5);
            assert!(lo.is_finite() && hi > lo, "{level:?}");
            assert_eq!(
                (lo.to_bits(), hi.to_bits()),
                (serial.lower.to_bits(), serial.upper.to_bits()),
                "{level:?}"
            );
        }
    }

    /// At a level other than 95%, the ICC rows take the F interval at that
    /// level (through [`scope`]) and alpha's standard error is its
    /// replicates' standard deviation; at 95% the ICC rows keep pingouin's
    /// interval.
    #[test]
    fn agree_intervals_follow_the_level() {
        use rsmreport_metrics::raters::icc::icc_at;
        let codes: Vec<Option<u32>> = (0..160u32).map(|i| Some((i * 7 + i / 4) % 5)).collect();
        let tables = CountTables::from_ratings(&codes, 4, 5);
        let values = rsmreport_metrics::raters::positions(5);
        for level in [0.8, 0.95] {
            let iv = Intervals {
                level,
                replicates: 200,
                seed: 3,
                ..Intervals::default()
            };
            let mut rows = coefficient_rows_at(&tables, &values, Level::Interval, level);
            set_intervals(&mut rows, &tables, &values, Some(&iv));
            let icc = icc_at(&tables, &values, level);
            let names = ["icc1", "icc2", "icc3", "icc1k", "icc2k", "icc3k"];
            for (j, name) in names.iter().enumerate() {
                let r = rows.iter().find(|r| r.coefficient == *name).unwrap();
                assert_eq!(r.estimate.lower, icc.forms[j].lower, "{name} at {level}");
                assert_eq!(r.estimate.upper, icc.forms[j].upper, "{name} at {level}");
            }
            let alpha = rows
                .iter()
                .find(|r| r.coefficient == "krippendorff_alpha" && r.weights == "interval")
                .unwrap();
            let e = &alpha.estimate;
            assert!(e.se > 0.0 && e.se < e.upper - e.lower, "{e:?}");
        }
    }
}
