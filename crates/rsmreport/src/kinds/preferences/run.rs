//! Command assembly (preferences), computing half: from the [`Pairs`] as
//! read to every number of spec 2-4: the votes normalised, the exclusions,
//! the metrics and seeded intervals of every annotator on the whole set
//! and on each subset value, the overall statistics, the distinct vote
//! values, the max-difference of strength across subset values.
//!
//! Pure: no I/O, no formatting (that is `outputs` and `report`); the maths
//! is `rsmreport_metrics::preferences`.

use std::collections::HashMap;
use std::path::PathBuf;

use super::models::{model_view, ModelInput, ModelView};
use super::read::{DataSet, Pairs};
use rsmreport_config::preferences::PreferencesConfig;
use rsmreport_core::table::{FxBuild, Text};
use rsmreport_metrics::preferences::{
    annotator_intervals, annotator_metrics, normalize_votes, overall_stats, vote_tables,
    AnnotatorIntervals, AnnotatorMetrics, BootstrapSpec, Exclusions, OverallStats, PairSet,
    VoteValue,
};

/// The label of the whole data set in the subset-value column.
pub const ALL_DATA: &str = "All data";
/// The label of a missing subset value.
pub const NO_INFO: &str = "No info";

/// The results on one data set: the whole set or one subset value.
#[derive(Clone, Debug, PartialEq)]
pub struct Scope {
    /// The subset column (`None`: the whole set).
    pub column: Option<String>,
    /// The subset value, or [`ALL_DATA`].
    pub value: String,
    pub exclusions: Exclusions,
    pub overall: OverallStats,
    /// One per annotator, in column order.
    pub metrics: Vec<AnnotatorMetrics>,
    pub intervals: Vec<AnnotatorIntervals>,
}

/// The distinct vote values of one column (spec 1).
#[derive(Clone, Debug, PartialEq)]
pub struct VoteColumn {
    pub column: String,
    /// Its shown name (spec 6).
    pub name: String,
    /// `reference` or `annotator`.
    pub role: &'static str,
    pub values: Vec<VoteValue>,
}

/// Strength across the values of one subset column (the heat map).
#[derive(Clone, Debug, PartialEq)]
pub struct SubsetStrength {
    pub column: String,
    /// The values, in natural order (numbers as numbers).
    pub values: Vec<String>,
    /// Pairs used per value.
    pub pairs: Vec<u64>,
    /// `metrics[value][annotator]`.
    pub metrics: Vec<Vec<AnnotatorMetrics>>,
    /// Per annotator (column order): strength per value.
    pub strength: Vec<Vec<f64>>,
    /// Per annotator: largest minus smallest finite strength (NaN when
    /// none is finite).
    pub max_diff: Vec<f64>,
}

/// Everything `rsmreport preferences` reports.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    pub id: String,
    pub pairs_file: PathBuf,
    pub reference: String,
    pub annotators: Vec<String>,
    /// The shown names (spec 6): the reference's and each annotator's.
    pub reference_name: String,
    pub annotator_names: Vec<String>,
    pub subset_columns: Vec<String>,
    /// The bootstrap settings used (`replicates = 0` with intervals off).
    pub spec: BootstrapSpec,
    pub intervals_on: bool,
    /// The whole set first, then each subset column's values.
    pub scopes: Vec<Scope>,
    pub votes: Vec<VoteColumn>,
    pub subsets: Vec<SubsetStrength>,
    /// Metadata keys not used as subsets, with their distinct values.
    pub unused_metadata: Vec<(String, usize)>,
    /// The model view (spec 6), when the pairs' models are known.
    pub models: Option<ModelView>,
    /// Several pairs files: one data set each (empty for one file).
    pub datasets: Vec<DataSet>,
}

impl Analysis {
    /// The whole data set.
    pub fn all(&self) -> &Scope {
        &self.scopes[0]
    }

    /// Annotator indices sorted by strength on the whole set, largest
    /// first (NaN last, ties in column order).
    pub fn by_strength(&self) -> Vec<usize> {
        let s: Vec<f64> = self.all().metrics.iter().map(|m| m.strength).collect();
        sort_desc(&s)
    }
}

/// Indices sorted by value, largest first, NaN last, ties by index.
pub fn sort_desc(values: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    let key = |i: usize| {
        if values[i].is_nan() {
            f64::NEG_INFINITY
        } else {
            values[i]
        }
    };
    order.sort_by(|&a, &b| {
        (values[a].is_nan())
            .cmp(&values[b].is_nan())
            .then(key(b).total_cmp(&key(a)))
            .then(a.cmp(&b))
    });
    order
}

/// Computes every result of the experiment on the pairs read.
pub fn analyse(cfg: &PreferencesConfig, pairs: &Pairs) -> Analysis {
    let spec = match cfg.intervals {
        Some(i) => BootstrapSpec {
            level: i.level,
            replicates: i.replicates,
            seed: i.seed,
        },
        None => BootstrapSpec {
            level: 0.95,
            replicates: 0,
            seed: 0,
        },
    };
    let reference = normalize_votes(pairs.reference.1.iter().map(Option::as_deref));
    let annotators: Vec<_> = pairs
        .annotators
        .iter()
        .map(|(_, v)| normalize_votes(v.iter().map(Option::as_deref)))
        .collect();
    let mut votes = vec![VoteColumn {
        column: pairs.reference.0.clone(),
        name: pairs.reference_name.clone(),
        role: "reference",
        values: reference.values.clone(),
    }];
    votes.extend(
        pairs
            .annotators
            .iter()
            .zip(&annotators)
            .zip(&pairs.annotator_names)
            .map(|(((column, _), n), name)| VoteColumn {
                column: column.clone(),
                name: name.clone(),
                role: "annotator",
                values: n.values.clone(),
            }),
    );
    let set = PairSet::new(
        reference.votes,
        annotators.into_iter().map(|n| n.votes).collect(),
        pairs.len_a.clone(),
        pairs.len_b.clone(),
    );
    let mut start = 0;
    let datasets: Vec<(String, Vec<usize>)> = pairs
        .datasets
        .iter()
        .map(|d| {
            start += d.rows;
            (d.name.clone(), (start - d.rows..start).collect())
        })
        .collect();
    let models = pairs.models.as_ref().map(|((_, model_a), (_, model_b))| {
        rsmreport_core::provenance::timed("model view", || {
            model_view(&ModelInput {
                model_a,
                model_b,
                base: &set,
                target_models: cfg.target_models.as_ref(),
                reference_models: cfg.reference_models.as_ref(),
                datasets: &datasets,
                spec: &spec,
            })
        })
    });
    let mut scopes = vec![scope(&set, None, ALL_DATA.to_string(), &spec)];
    let mut subsets = Vec::new();
    for (column, values) in &pairs.subsets {
        let groups = groups(values);
        let first = scopes.len();
        for (value, rows) in &groups {
            let part = set.select(rows);
            scopes.push(scope(&part, Some(column.clone()), value.clone(), &spec));
        }
        subsets.push(subset_strength(
            column,
            &scopes[first..],
            pairs.annotators.len(),
        ));
    }
    Analysis {
        id: cfg.experiment_id.clone(),
        pairs_file: pairs.file.clone(),
        reference: pairs.reference.0.clone(),
        annotators: pairs.annotators.iter().map(|(n, _)| n.clone()).collect(),
        reference_name: pairs.reference_name.clone(),
        annotator_names: pairs.annotator_names.clone(),
        subset_columns: pairs.subsets.iter().map(|(n, _)| n.clone()).collect(),
        spec,
        intervals_on: cfg.intervals.is_some(),
        scopes,
        votes,
        subsets,
        unused_metadata: pairs.unused_metadata.clone(),
        models,
        datasets: pairs.datasets.clone(),
    }
}

/// The rows of each value of a subset column, values in natural order
/// (numbers as numbers: 2 before 10; a missing value is [`NO_INFO`]).
fn groups(values: &[Option<Text>]) -> Vec<(String, Vec<usize>)> {
    let mut rows: HashMap<&str, Vec<usize>, FxBuild> = HashMap::default();
    for (i, v) in values.iter().enumerate() {
        rows.entry(v.as_deref().unwrap_or(NO_INFO))
            .or_default()
            .push(i);
    }
    let mut out: Vec<(String, Vec<usize>)> =
        rows.into_iter().map(|(k, r)| (k.to_string(), r)).collect();
    out.sort_by(|a, b| rsmreport_core::order::natural(&a.0, &b.0));
    out
}

/// The values a heat map shows (spec 6): all up to `most`, else the `most`
/// with the most pairs (ties: the earlier value), in their order; and how
/// many are left out.
pub fn largest_values(pairs: &[u64], most: usize) -> (Vec<usize>, usize) {
    if pairs.len() <= most {
        return ((0..pairs.len()).collect(), 0);
    }
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by(|&a, &b| pairs[b].cmp(&pairs[a]).then(a.cmp(&b)));
    let mut kept = order[..most].to_vec();
    kept.sort_unstable();
    (kept, pairs.len() - most)
}

fn scope(set: &PairSet, column: Option<String>, value: String, spec: &BootstrapSpec) -> Scope {
    let tables = vote_tables(set);
    Scope {
        column,
        value,
        exclusions: tables.exclusions,
        overall: overall_stats(set),
        metrics: tables.annotators.iter().map(annotator_metrics).collect(),
        intervals: annotator_intervals(set, spec),
    }
}

fn subset_strength(column: &str, scopes: &[Scope], k: usize) -> SubsetStrength {
    let strength: Vec<Vec<f64>> = (0..k)
        .map(|j| scopes.iter().map(|s| s.metrics[j].strength).collect())
        .collect();
    let max_diff = strength
        .iter()
        .map(|row| {
            let finite: Vec<f64> = row.iter().copied().filter(|x| x.is_finite()).collect();
            if finite.is_empty() {
                return f64::NAN;
            }
            let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
            hi - lo
        })
        .collect();
    SubsetStrength {
        column: column.to_string(),
        values: scopes.iter().map(|s| s.value.clone()).collect(),
        pairs: scopes.iter().map(|s| s.exclusions.used()).collect(),
        metrics: scopes.iter().map(|s| s.metrics.clone()).collect(),
        strength,
        max_diff,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(name: &str, v: &[&str]) -> (String, Vec<Option<Text>>) {
        let cells = v
            .iter()
            .map(|s| (!s.is_empty()).then(|| Text::from(*s)))
            .collect();
        (name.to_string(), cells)
    }

    /// The pin of spec 3, with a subset column.
    fn pin() -> Pairs {
        Pairs {
            file: PathBuf::from("pairs.csv"),
            ids: (1..=9).map(|i| Text::from(i.to_string())).collect(),
            len_a: vec![4, 2, 3, 1, 5, 2, 1, 4, 3],
            len_b: vec![2, 4, 3, 5, 1, 2, 6, 1, 3],
            reference: col("ref", &["a", "a", "b", "b", "a", "b", "a", "b", "tie"]),
            annotators: vec![col(
                "x",
                &["a", "b", "b", "both", "a", "neither", "a", "a", "a"],
            )],
            subsets: vec![col("s", &["u", "u", "u", "u", "v", "v", "v", "v", ""])],
            reference_name: "ref".into(),
            annotator_names: vec!["x".into()],
            unused_metadata: Vec::new(),
            models: None,
            dataset_name: None,
            datasets: Vec::new(),
        }
    }

    fn config() -> PreferencesConfig {
        rsmreport_config::preferences::PreferencesConfig {
            experiment_id: "pin".into(),
            description: String::new(),
            model_version: None,
            file_format: rsmreport_core::schema::FileFormat::Csv,
            gates: None,
            parsed_gates: Vec::new(),
            pairs_file: PathBuf::from("pairs.csv"),
            pairs_files: vec![PathBuf::from("pairs.csv")],
            origin: PathBuf::from("exp.toml"),
            id_column: None,
            text_a_column: "text_a".into(),
            text_b_column: "text_b".into(),
            reference_column: Some("ref".into()),
            annotator_columns: vec!["x".into()],
            subset_columns: Some(vec!["s".into()]),
            model_a_column: None,
            model_b_column: None,
            target_models: None,
            reference_models: None,
            intervals: Some(rsmreport_config::intervals::Intervals {
                replicates: 50,
                ..Default::default()
            }),
        }
    }

    #[test]
    fn the_spec_pin_and_its_subsets() {
        let a = analyse(&config(), &pin());
        let m = a.all().metrics[0];
        assert_eq!((m.votes, m.agreed, m.disagreed), (8, 4, 2));
        assert!((m.strength - 0.25).abs() < 1e-12, "{}", m.strength);
        assert_eq!(a.all().overall.prop_prefer_longer, 0.625);
        assert_eq!(a.all().exclusions.reference_tie, 1);
        let values: Vec<&str> = a.scopes.iter().map(|s| s.value.as_str()).collect();
        assert_eq!(values, [ALL_DATA, NO_INFO, "u", "v"]);
        // The lone tie pair is the "No info" value: no pair used.
        assert!(a.scopes[1].metrics[0].strength.is_nan());
        let s = &a.subsets[0];
        let (u, v) = (
            a.scopes[2].metrics[0].strength,
            a.scopes[3].metrics[0].strength,
        );
        assert_eq!(s.max_diff[0], (u - v).abs());
        assert_eq!(a.votes[0].role, "reference");
        assert_eq!(a.votes[1].values.len(), 4);
        // Same seed, same results (NaN included, hence the text).
        let again = analyse(&config(), &pin());
        assert_eq!(format!("{again:?}"), format!("{a:?}"));
    }

    #[test]
    fn subset_values_sort_naturally_and_heat_maps_keep_the_largest() {
        let values: Vec<Option<Text>> = ["10", "2", "b", "1", "", "2"]
            .iter()
            .map(|s| (!s.is_empty()).then(|| Text::from(*s)))
            .collect();
        let g = groups(&values);
        let keys: Vec<&str> = g.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["1", "2", "10", NO_INFO, "b"]);
        assert_eq!(g[1].1, [1, 5]);
        assert_eq!(largest_values(&[5, 1, 9, 1], 4), (vec![0, 1, 2, 3], 0));
        // The two largest, in their order; a tie goes to the earlier value.
        assert_eq!(largest_values(&[5, 1, 9, 5], 2), (vec![0, 2], 2));
        assert_eq!(largest_values(&[1, 7, 7, 7], 2), (vec![1, 2], 2));
    }

    #[test]
    fn strength_order_puts_nan_last() {
        assert_eq!(sort_desc(&[0.1, f64::NAN, 0.5, 0.1]), [2, 0, 3, 1]);
    }
}
