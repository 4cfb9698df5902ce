//! The archive format's folder layout, kind by kind: every file of every
//! kind's bundled example output, in the order the one writer
//! (`rsmreport::kinds::archive`) writes them: the saved configuration
//! (build), the tables, `<id>_summary.json` (with the envelope), the gate
//! files when the run has gates, the figures, the report.
//!
//! Run with `cargo test --test integration layout`.

use std::fs;
use std::path::{Path, PathBuf};

use rsmreport::kinds::{
    self, agree, classify, compare, evaluation, preferences, sequence, spans, summarize,
};
use rsmreport::kinds::{Destination, Kind, Outcome, Request};

use crate::common;

fn example(rel: &str) -> PathBuf {
    common::manifest_dir().join("examples").join(rel)
}

/// Runs kind `K` on `config` and saves its files into `dir`: the files
/// written, in order, and the outcome.
fn saved<K: Kind>(config: K::Config, dir: &Path) -> (Vec<String>, Outcome) {
    let o = kinds::run::<K>(Request {
        config,
        destination: Destination::Nowhere,
    })
    .unwrap_or_else(|e| panic!("{} failed: {e:#}", K::NAME));
    let written = o.save(dir, false).unwrap().files;
    let mut on_disk = common::list_files(dir);
    let mut in_order = written.clone();
    in_order.sort();
    on_disk.sort();
    assert_eq!(
        in_order,
        on_disk,
        "{}: the folder holds what was written",
        K::NAME
    );
    let names = written.iter().map(|p| p.display().to_string()).collect();
    (names, o)
}

/// `output/<id>_<name>.<ext>` of each name.
fn tables(id: &str, ext: &str, names: &[&str]) -> Vec<String> {
    names
        .iter()
        .map(|n| format!("output/{id}_{n}.{ext}"))
        .collect()
}

/// `figure/<id>_<name>.svg` of each name, then the report page
/// `report/<id>_<report>.html`.
fn page(id: &str, figures: &[&str], report: &str) -> Vec<String> {
    let mut out: Vec<String> = figures
        .iter()
        .map(|n| format!("figure/{id}_{n}.svg"))
        .collect();
    out.push(format!("report/{id}_{report}.html"));
    out
}

/// The envelope of a kind's summary file, checked against the outcome.
fn check_summary(dir: &Path, o: &Outcome, kind: &str) {
    let id = o.report.id();
    let bytes = fs::read(dir.join(format!("output/{id}_summary.json"))).unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(
        doc,
        o.summary(),
        "{kind}: the file is the outcome's summary"
    );
    assert_eq!(doc["kind"], kind);
    assert_eq!(doc["summary_version"], 1);
    assert_eq!(doc["experiment_id"], id);
    assert!(doc["description"].is_string(), "{kind}");
    assert!(
        doc["model_version"].is_string() || doc["model_version"].is_null(),
        "{kind}"
    );
}

/// The files written, in order: the saved configuration (build), the
/// tables, the summary, the gate files (`gates`), the figures, the report.
struct Layout<'a> {
    id: &'a str,
    config: bool,
    tables: &'a [&'a str],
    gates: bool,
    figures: &'a [&'a str],
    report: &'a str,
    /// The data files after the summary (`output/<id>_<name>`: classify's
    /// units files).
    other: &'a [&'a str],
}

impl Layout<'_> {
    fn files(&self) -> Vec<String> {
        let id = self.id;
        let mut out = Vec::new();
        if self.config {
            out.push(format!("output/{id}_rsmeval.json"));
        }
        out.extend(tables(id, "csv", self.tables));
        out.push(format!("output/{id}_summary.json"));
        out.extend(self.other.iter().map(|o| format!("output/{id}_{o}")));
        if self.gates {
            out.push(format!("output/{id}_gates.json"));
            out.push(format!("output/{id}_gates.xml"));
        }
        out.extend(page(id, self.figures, self.report));
        out
    }

    fn check(&self, kind: &str, got: &[String]) {
        let want = self.files();
        assert!(
            got == want.as_slice(),
            "{kind}: the files written, in order:\n{got:#?}\nexpected:\n{want:#?}"
        );
    }
}

#[test]
fn layout_every_file_of_every_kinds_example_in_writing_order() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = |name: &str| tmp.path().join(name);

    // build: the saved configuration first; the example has gates.
    let cfg = evaluation::load(&example("exp.toml"), None).unwrap();
    let (got, o) = saved::<evaluation::Build>(cfg, &dir("build"));
    Layout {
        id: "example",
        config: true,
        tables: &[
            "pred_processed",
            "test_metadata",
            "test_other_columns",
            "test_human_scores",
            "test_excluded_responses",
            "test_excluded_composition",
            "data_composition",
            "data_composition_by_L1",
            "data_composition_by_gender",
            "eval",
            "eval_short",
            "consistency",
            "degradation",
            "disattenuated_correlations",
            "confMatrix",
            "score_dist",
            "true_score_eval",
            "confMatrix_h1h2",
            "eval_by_L1",
            "consistency_by_L1",
            "disattenuated_correlations_by_L1",
            "eval_by_gender",
            "consistency_by_gender",
            "disattenuated_correlations_by_gender",
            "estimates_osa_by_L1",
            "estimates_osd_by_L1",
            "estimates_csd_by_L1",
            "fairness_metrics_by_L1",
            "estimates_osa_by_gender",
            "estimates_osd_by_gender",
            "estimates_csd_by_gender",
            "fairness_metrics_by_gender",
            "eval_ci",
            "consistency_ci",
            "degradation_ci",
            "disattenuated_correlations_ci",
            "true_score_eval_ci",
            "eval_by_L1_ci",
            "eval_by_gender_ci",
        ],
        gates: true,
        figures: &[
            "score_dist",
            "eval_by_L1",
            "eval_by_gender",
            "fairness_estimates_L1",
            "conditional_score_L1",
            "fairness_estimates_gender",
            "conditional_score_gender",
        ],
        report: "report",
        other: &[],
    }
    .check("build", &got);
    check_summary(&dir("build"), &o, "build");
    assert_eq!(o.summary()["model_version"], "example-engine 2.3.1");

    // The second version for compare and summarize (its gates fail: the
    // files are written all the same).
    let cfg = evaluation::load(&example("gates-fail/exp.toml"), None).unwrap();
    saved::<evaluation::Build>(cfg, &dir("gates-fail"));

    // compare: named by the two model versions; its page is
    // `<cid>_compare.html`.
    let request = compare::load(&dir("build"), &dir("gates-fail"), None, None, false).unwrap();
    let (got, o) = saved::<compare::Compare>(request, &dir("compare"));
    Layout {
        id: "example-engine_2.3.1_vs_example-engine_1.0.0",
        config: false,
        tables: &[
            "compare_verdicts",
            "compare_preflight",
            "compare_eval",
            "compare_consistency",
            "compare_true_score",
            "compare_by_L1",
            "compare_by_gender",
            "compare_fairness_by_L1",
            "compare_fairness_by_gender",
        ],
        gates: false,
        figures: &[
            "compare_score_dist",
            "compare_forest_L1",
            "compare_forest_gender",
            "compare_score_changes",
        ],
        report: "compare",
        other: &[],
    }
    .check("compare", &got);
    check_summary(&dir("compare"), &o, "compare");

    let request = summarize::request(
        vec![dir("build"), dir("gates-fail")],
        None,
        summarize::run::Order::Given,
        "versions",
    )
    .unwrap();
    let (got, o) = saved::<summarize::Summarize>(request, &dir("summarize"));
    Layout {
        id: "versions",
        config: false,
        tables: &[
            "summary",
            "summary_deltas",
            "summary_worst_dsm",
            "summary_fairness",
        ],
        gates: false,
        figures: &[
            "trend_wtkappa",
            "trend_corr",
            "trend_kappa",
            "trend_exact_agr",
            "trend_adj_agr",
            "trend_R2",
            "trend_RMSE",
            "trend_SMD",
            "trend_PRMSE",
            "trend_degradation.corr",
            "trend_degradation.wtkappa",
        ],
        report: "report",
        other: &[],
    }
    .check("summarize", &got);
    check_summary(&dir("summarize"), &o, "summarize");

    // agree, preferences, classify and sequence: no gates, no gate files.
    let cfg = agree::load(&example("agree/exp.toml")).unwrap();
    let (got, o) = saved::<agree::Agree>(cfg, &dir("agree"));
    Layout {
        id: "sentiment_round2",
        config: false,
        tables: &[
            "agreement",
            "agreement_tests",
            "agreement_pairs",
            "agreement_by_category",
            "label_distribution",
            "classification",
            "classification_summary",
            "data_description",
            "agreement_by_source",
            "agreement_tests_by_source",
            "agreement_pairs_by_source",
            "agreement_by_category_by_source",
            "label_distribution_by_source",
            "classification_by_source",
            "classification_summary_by_source",
            "data_description_by_source",
        ],
        gates: false,
        figures: &["agreement_pairs_heatmap", "label_distribution"],
        report: "report",
        other: &["units.parquet", "units.json"],
    }
    .check("agree", &got);
    check_summary(&dir("agree"), &o, "agree");

    let cfg = preferences::load(&example("preferences/exp.toml")).unwrap();
    let (got, o) = saved::<preferences::Preferences>(cfg, &dir("preferences"));
    Layout {
        id: "preferences_example",
        config: false,
        tables: &[
            "annotator_metrics",
            "overall",
            "votes",
            "exclusions",
            "model_traits",
        ],
        gates: false,
        figures: &["strength", "strength_by_source", "model_traits"],
        report: "report",
        other: &["units.parquet", "units.json"],
    }
    .check("preferences", &got);
    check_summary(&dir("preferences"), &o, "preferences");

    let cfg = classify::load(&example("classify/exp.toml")).unwrap();
    let (got, o) = saved::<classify::Classify>(cfg, &dir("classify"));
    Layout {
        id: "intent_v2",
        config: false,
        tables: &[
            "classification_summary",
            "classification",
            "confusion_matrix",
            "ranking",
            "pr_curve",
            "roc_curve",
            "calibration",
            "system_comparisons",
            "classification_summary_by_channel",
            "class_recall_by_channel",
            "classification_summary_ci",
            "classification_ci",
            "classification_summary_by_channel_ci",
        ],
        gates: false,
        figures: &[
            "compare_forest_v2",
            "confusion_v1",
            "confusion_v2",
            "pr_v1",
            "roc_v1",
            "pr_v2",
            "roc_v2",
            "reliability_v1",
            "reliability_v2",
            "macro_f1_by_channel",
        ],
        report: "report",
        other: &["units.parquet", "units.json"],
    }
    .check("classify", &got);
    check_summary(&dir("classify"), &o, "classify");
    assert_eq!(
        o.summary()["description"],
        "Intent classifier **v2** against v1 on 600 support tickets (synthetic)."
    );

    let cfg = sequence::load(&example("sequence/exp.toml")).unwrap();
    let (got, o) = saved::<sequence::Sequence>(cfg, &dir("sequence"));
    Layout {
        id: "mt_example",
        config: false,
        tables: &[
            "corpus_scores",
            "corpus_stats",
            "segment_scores",
            "significance",
            "system_comparisons",
            "perplexity",
            "perplexity_sequences",
            "corpus_scores_by_domain",
            "length_buckets",
            "error_counts",
            "segment_char_counts",
            "char_error_counts",
        ],
        gates: false,
        figures: &[
            "differences",
            "sentence_scores",
            "baseline_pairs",
            "error_types",
            "scores_by_length",
            "scores_by_domain",
            "perplexity_sequences",
        ],
        report: "report",
        other: &["units.parquet", "units.json"],
    }
    .check("sequence", &got);
    check_summary(&dir("sequence"), &o, "sequence");

    // spans: its example has gates, so the gate files follow the summary.
    let cfg = spans::load(&example("spans/exp.toml")).unwrap();
    let (got, o) = saved::<spans::Spans>(cfg, &dir("spans"));
    Layout {
        id: "news_ner",
        config: false,
        tables: &[
            "span_agreement",
            "span_agreement_pairs",
            "span_agreement_by_type",
            "span_agreement_by_document",
            "type_confusion",
            "type_agreement",
            "boundary_disagreements",
            "annotator_profiles",
            "label_distribution",
            "system_scores",
            "nervaluate",
            "system_comparisons",
            "span_agreement_by_genre",
            "system_scores_by_genre",
        ],
        gates: true,
        // Its systems: the humans are scored, not compared with tagger_v1.
        figures: &[
            "spans_forest_tagger_v2",
            "span_agreement_heatmap",
            "span_type_confusion",
            "span_boundary_disagreements",
        ],
        report: "report",
        other: &["units.parquet", "units.json"],
    }
    .check("spans", &got);
    check_summary(&dir("spans"), &o, "spans");
}
