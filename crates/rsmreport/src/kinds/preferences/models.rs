//! Command assembly (preferences), the model view of spec 6 ("Which
//! traits a model shows", Feedback Forensics' second use case): the models
//! of each pair coded, the target and reference models resolved, and for
//! every target model `M` the metrics of spec 2 of every annotator (and of
//! the configured reference annotator) measured against `prefers M`.
//!
//! Pure: no I/O, no formatting; the maths is
//! `rsmreport_metrics::preferences` (the same functions as the annotator
//! table, with `prefers M` as the reference).

use std::collections::HashMap;

use rsmreport_core::table::{FxBuild, Text};
use rsmreport_metrics::preferences::models::{prefers_model, NO_MODEL};
use rsmreport_metrics::preferences::{
    annotator_intervals, annotator_metrics, vote_tables, AnnotatorIntervals, AnnotatorMetrics,
    BootstrapSpec, PairSet, Vote,
};

/// The traits of one target model on one data set.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelTraits {
    pub model: String,
    /// `prefers M`'s votes over the pairs with two non-empty texts:
    /// `text_a`, `text_b`, not applicable (Feedback Forensics' counts).
    pub identity_votes: [u64; 3],
    /// One per annotator in column order, then the reference annotator.
    pub metrics: Vec<AnnotatorMetrics>,
    pub intervals: Vec<AnnotatorIntervals>,
}

impl ModelTraits {
    /// No pair compares `M` with a reference model: never applicable.
    pub fn never_applicable(&self) -> bool {
        self.identity_votes[0] + self.identity_votes[1] == 0
    }
}

/// The model view on one data set (the whole data, or one data set of
/// several).
#[derive(Clone, Debug, PartialEq)]
pub struct ModelScope {
    pub column: Option<String>,
    pub value: String,
    /// One per target model, in target order.
    pub models: Vec<ModelTraits>,
}

/// Everything of the model view.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelView {
    /// The models of the pairs with two non-empty texts, in code-point
    /// order (Feedback Forensics' `get_available_models`).
    pub available: Vec<String>,
    pub targets: Vec<String>,
    pub references: Vec<String>,
    /// No `reference_models`: every model against all the others.
    pub one_vs_all: bool,
    /// The whole data first.
    pub scopes: Vec<ModelScope>,
}

impl ModelView {
    /// Feedback Forensics' description of `prefers M` (its list of the
    /// other reference models stops after three with ", ...").
    pub fn description(&self, model: &str) -> String {
        if self.one_vs_all {
            return format!("Always prefer {model} over any other model");
        }
        let others: Vec<&str> = self
            .references
            .iter()
            .map(String::as_str)
            .filter(|m| *m != model)
            .collect();
        let mut list = others[..others.len().min(3)].join(", ");
        if others.len() > 3 {
            list.push_str(", ...");
        }
        format!("Always prefer {model} over reference models ({list})")
    }
}

/// Model names to codes, in order of first appearance.
#[derive(Default)]
struct Coder {
    index: HashMap<String, u32, FxBuild>,
    names: Vec<String>,
}

impl Coder {
    fn code(&mut self, m: &str) -> u32 {
        if let Some(&c) = self.index.get(m) {
            return c;
        }
        let c = self.names.len() as u32;
        self.index.insert(m.to_string(), c);
        self.names.push(m.to_string());
        c
    }

    fn column(&mut self, c: &[Option<Text>]) -> Vec<u32> {
        c.iter()
            .map(|m| m.as_deref().map_or(NO_MODEL, |m| self.code(m)))
            .collect()
    }
}

/// The configured list, or every model when absent (or empty, as Feedback
/// Forensics reads an empty list).
fn resolve(given: Option<&Vec<String>>, available: &[String]) -> (Vec<String>, bool) {
    match given.filter(|g| !g.is_empty()) {
        Some(g) => (g.clone(), false),
        None => (available.to_vec(), true),
    }
}

/// The inputs of the model view: the pairs' models, the data set whose
/// reference annotator and annotators are measured (`base`), the
/// configured model lists, and the data sets of several files (`(name,
/// rows)`; empty for one file).
pub struct ModelInput<'a> {
    pub model_a: &'a [Option<Text>],
    pub model_b: &'a [Option<Text>],
    pub base: &'a PairSet,
    pub target_models: Option<&'a Vec<String>>,
    pub reference_models: Option<&'a Vec<String>>,
    pub datasets: &'a [(String, Vec<usize>)],
    pub spec: &'a BootstrapSpec,
}

/// Computes the model view (spec 6).
pub fn model_view(input: &ModelInput<'_>) -> ModelView {
    let base = input.base;
    let mut coder = Coder::default();
    let a = coder.column(input.model_a);
    let b = coder.column(input.model_b);
    // The default model list: the models of the pairs that are kept when
    // no reference applies (both texts non-empty).
    let mut seen = vec![false; coder.names.len()];
    for i in 0..base.len() {
        if base.len_a[i] > 0 && base.len_b[i] > 0 {
            for c in [a[i], b[i]] {
                if c != NO_MODEL {
                    seen[c as usize] = true;
                }
            }
        }
    }
    let mut available: Vec<String> = (0..seen.len())
        .filter(|&c| seen[c])
        .map(|c| coder.names[c].clone())
        .collect();
    available.sort_unstable();
    let (targets, _) = resolve(input.target_models, &available);
    let (references, one_vs_all) = resolve(input.reference_models, &available);
    let target_codes: Vec<u32> = targets.iter().map(|m| coder.code(m)).collect();
    let mut is_reference = vec![false; coder.names.len()];
    for m in &references {
        let c = coder.code(m) as usize;
        is_reference.resize(coder.names.len(), false);
        is_reference[c] = true;
    }
    is_reference.resize(coder.names.len(), false);
    let mut columns = base.annotators.clone();
    columns.push(base.reference.clone());
    let work = PairSet::new(
        vec![Vote::Missing; base.len()],
        columns,
        base.len_a.clone(),
        base.len_b.clone(),
    );
    let scope = |set: PairSet, a: &[u32], b: &[u32], column: Option<String>, value: String| {
        let targets: Vec<(&String, u32)> =
            targets.iter().zip(target_codes.iter().copied()).collect();
        let models = all_traits(&set, (a, b), &targets, &is_reference, input.spec);
        ModelScope {
            column,
            value,
            models,
        }
    };
    let mut scopes = Vec::with_capacity(1 + input.datasets.len());
    for (name, rows) in input.datasets {
        let pick = |v: &[u32]| rows.iter().map(|&i| v[i]).collect::<Vec<u32>>();
        let (da, db) = (pick(&a), pick(&b));
        scopes.push(scope(
            work.select(rows),
            &da,
            &db,
            Some(super::read::DATASET.into()),
            name.clone(),
        ));
    }
    scopes.insert(0, scope(work, &a, &b, None, super::run::ALL_DATA.into()));
    ModelView {
        available,
        targets,
        references,
        one_vs_all,
        scopes,
    }
}

/// The traits of every target model on `set` (models `(a, b)` per pair),
/// the targets split over the available threads: each model is computed
/// on its own, so the values do not depend on the number of threads.
fn all_traits(
    set: &PairSet,
    (a, b): (&[u32], &[u32]),
    targets: &[(&String, u32)],
    is_reference: &[bool],
    spec: &BootstrapSpec,
) -> Vec<ModelTraits> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, targets.len().max(1));
    let chunk = targets.len().div_ceil(threads).max(1);
    std::thread::scope(|sc| {
        let handles: Vec<_> = targets
            .chunks(chunk)
            .map(|part| {
                sc.spawn(move || {
                    let mut own = set.clone();
                    part.iter()
                        .map(|&(name, t)| {
                            own.reference = prefers_model(a, b, t, is_reference);
                            traits(&own, name, spec)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a model-view thread panicked"))
            .collect()
    })
}

/// One target model's row of metrics on `set` (whose reference is
/// `prefers M`).
fn traits(set: &PairSet, model: &str, spec: &BootstrapSpec) -> ModelTraits {
    let mut identity_votes = [0u64; 3];
    for i in 0..set.len() {
        if set.len_a[i] > 0 && set.len_b[i] > 0 {
            identity_votes[set.reference[i].cell()] += 1;
        }
    }
    let tables = vote_tables(set);
    ModelTraits {
        model: model.to_string(),
        identity_votes,
        metrics: tables.annotators.iter().map(annotator_metrics).collect(),
        intervals: annotator_intervals(set, spec),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn votes(v: &[&str]) -> Vec<Vote> {
        v.iter()
            .map(|s| rsmreport_metrics::preferences::normalize_vote(Some(s)))
            .collect()
    }

    fn models(v: &[&str]) -> Vec<Option<Text>> {
        v.iter()
            .map(|s| (!s.is_empty()).then(|| Text::from(*s)))
            .collect()
    }

    #[test]
    fn explicit_lists_and_a_never_applicable_target() {
        // Pair 5 has an empty text: its models are not available models.
        let base = PairSet::new(
            votes(&["a", "b", "a", "b", "a"]),
            vec![votes(&["a", "a", "b", "b", "a"])],
            vec![3, 3, 3, 3, 0],
            vec![2, 2, 2, 2, 2],
        );
        let (a, b) = (
            models(&["x", "y", "z", "x", "w"]),
            models(&["y", "x", "x", "", "x"]),
        );
        let spec = BootstrapSpec {
            level: 0.95,
            replicates: 0,
            seed: 1,
        };
        let targets = vec!["x".to_string(), "q".to_string()];
        let references = vec!["y".to_string(), "x".to_string()];
        let view = model_view(&ModelInput {
            model_a: &a,
            model_b: &b,
            base: &base,
            target_models: Some(&targets),
            reference_models: Some(&references),
            datasets: &[],
            spec: &spec,
        });
        assert_eq!(view.available, ["x", "y", "z"]);
        assert!(!view.one_vs_all);
        let x = &view.scopes[0].models[0];
        // Pairs 1 and 2 compare x with y; pair 3 (z) is no reference; pair
        // 4 misses a model; pair 5 has an empty text.
        assert_eq!(x.identity_votes, [1, 1, 2]);
        let m = x.metrics[0];
        assert_eq!((m.votes, m.agreed, m.disagreed), (2, 1, 1));
        assert_eq!(x.metrics[1].agreed, 2, "the reference annotator last");
        assert!(view.scopes[0].models[1].never_applicable());
        assert_eq!(
            view.description("x"),
            "Always prefer x over reference models (y)"
        );
        let many = ModelView {
            references: ["a", "b", "c", "d", "e"].map(String::from).to_vec(),
            ..view
        };
        assert_eq!(
            many.description("a"),
            "Always prefer a over reference models (b, c, d, ...)"
        );
    }
}
