//! Report stage: plain-language definitions of every column and score type
//! the report shows (column-header tooltips and the glossary boxes), for a
//! reader who is not a psychometrician. Static text only; touches nothing
//! else. The score-evaluation metrics are here; every other kind's header
//! words, and the rules composing a family of headers, are in [`terms`].

mod terms;

pub use terms::term;

/// Definition of a base metric or column name (without a `.<score type>`
/// suffix), or `None` when there is nothing useful to say.
pub fn metric(name: &str) -> Option<&'static str> {
    Some(match name {
        "N" | "N responses" | "responses" => "Number of responses.",
        "candidates" => "Number of distinct test takers (candidates).",
        "h_mean" => "Mean of the human scores.",
        "h_sd" => "Standard deviation (spread) of the human scores.",
        "h_min" => "Lowest human score.",
        "h_max" => "Highest human score.",
        "sys_mean" => "Mean of the machine scores.",
        "sys_sd" => "Standard deviation (spread) of the machine scores.",
        "sys_min" => "Lowest machine score.",
        "sys_max" => "Highest machine score.",
        "h1_mean" => "Mean of the first human scores (double-scored responses).",
        "h1_sd" => "Standard deviation of the first human scores.",
        "h1_min" => "Lowest first human score.",
        "h1_max" => "Highest first human score.",
        "h2_mean" => "Mean of the second human scores.",
        "h2_sd" => "Standard deviation of the second human scores.",
        "h2_min" => "Lowest second human score.",
        "h2_max" => "Highest second human score.",
        "corr" => {
            "Pearson correlation: how closely the two scores rise and fall together \
             (1 = perfect linear agreement, 0 = none)."
        }
        "wtkappa" => {
            "Quadratically weighted kappa: agreement beyond chance in which larger \
             disagreements count more; computed on the unrounded scores \
             (1 = perfect, 0 = chance level)."
        }
        "kappa" => {
            "Cohen's kappa: exact agreement of the rounded scores beyond what chance \
             would give (1 = perfect, 0 = chance level)."
        }
        "R2" => {
            "Proportion of the variance of the human scores explained by the machine \
             scores; negative when the machine does worse than always predicting the \
             mean human score."
        }
        "exact_agr" => "Percentage of responses whose rounded scores are identical.",
        "adj_agr" => "Percentage of responses whose rounded scores differ by at most one point.",
        "SMD" => {
            "Standardised mean difference: (mean of the second score - mean of the \
             first) divided by a standard deviation; shows a systematic tendency to \
             score higher (positive) or lower (negative)."
        }
        "DSM" => {
            "Difference of standardised means: for this group, the machine mean minus \
             the human mean, each standardised with the whole evaluation set; \
             positive = the machine scores this group higher than humans do."
        }
        "RMSE" => {
            "Root mean squared error: the typical size of the difference between \
             human and machine scores, in score points (lower is better)."
        }
        "corr_HM" => "Correlation between the first human score and the machine score.",
        "corr_HH" => "Correlation between the two human scores (double-scored responses).",
        "sqrt_HH" => "Square root of the human-human correlation.",
        "corr_disattenuated" => {
            "Human-machine correlation divided by the square root of the human-human \
             correlation: an estimate of the correlation without human rating error."
        }
        "N raters" => "Largest number of human scores a response has.",
        "N single" => "Responses with one human score.",
        "N multiple" => "Responses with more than one human score.",
        "Variance of errors" => {
            "Variance of human rating errors (how much two human ratings of the same \
             response typically differ)."
        }
        "True score var" => "Estimated variance of the true scores.",
        "MSE true" => "Mean squared error of the machine scores against the true scores.",
        "PRMSE true" => {
            "Proportional reduction in mean squared error: the share of the true-score \
             variance the machine score explains (1 = perfect; like R2, but against \
             scores free of rating error)."
        }
        "N_total" => "Number of responses in the evaluation set.",
        "N_double" => "Number of responses with two human scores.",
        "h1_var (single)" => "Variance of the first human score, all responses.",
        "h1_var (double)" => "Variance of the first human score, double-scored responses.",
        "h2_var (double)" => "Variance of the second human score.",
        "score" => "Score level.",
        "human" => "Percentage of responses with this human score.",
        "difference" => "Machine percentage minus human percentage, in percentage points.",
        "OSA" => {
            "Overall score accuracy: how much of the variation in squared errors is \
             explained by group membership."
        }
        "OSD" => {
            "Overall score difference: how much of the variation in (signed) errors \
             is explained by group membership."
        }
        "CSD" => {
            "Conditional score difference: the extra variation in errors explained by \
             group membership once the human score is taken into account."
        }
        "estimate" => {
            "Regression coefficient (for the intercept: the value of the reference group)."
        }
        "ci_low" | "CI low" => "Lower bound of the 95% confidence interval.",
        "ci_high" | "CI high" => "Upper bound of the 95% confidence interval.",
        "p" | "p value" => "Probability of an effect at least this large if there were none.",
        "numeric system score" => "Excluded responses whose machine score is a number.",
        "non-numeric system score" => "Excluded responses whose machine score is not a number.",
        _ => return None,
    })
}

/// Definition of a score type (`raw`, `scale_trim_round`, ...).
pub fn score_type(name: &str) -> Option<&'static str> {
    Some(match name {
        "raw" => "The machine scores as given in the predictions file.",
        "raw_trim" => {
            "Raw machine scores clipped to the valid score range (plus a small tolerance)."
        }
        "raw_trim_round" => "Raw machine scores, clipped, then rounded to whole points.",
        "scale" => "Machine scores rescaled to the mean and spread of the human scores.",
        "scale_trim" => {
            "Scaled machine scores clipped to the valid score range (plus a small tolerance)."
        }
        "scale_trim_round" => "Scaled machine scores, clipped, then rounded to whole points.",
        _ => return None,
    })
}

/// Tooltip of a column header such as `corr`, `DSM.scale_trim` or
/// `sys_raw`: the metric's definition, plus the score type when the name
/// carries one; else the header word's definition ([`term`]) or one
/// composed by a rule (`Δ corr`, `cohen_kappa_lower`, `n_spans`, ...);
/// empty for a name of the data (a system, a subgroup level).
pub fn column(name: &str) -> String {
    if let Some(d) = metric(name) {
        return d.to_string();
    }
    if let Some((base, ty)) = name.split_once('.') {
        if let Some(d) = metric(base) {
            return format!("{d} Score type: {ty}.");
        }
    }
    if let Some(ty) = name.strip_prefix("sys_") {
        if score_type(ty).is_some() {
            return format!("Percentage of responses with this machine score ({ty}).");
        }
    }
    match term(name) {
        Some(d) => d.to_string(),
        None => terms::composed(name, column),
    }
}

/// The glossary entries shown under the evaluation tables, in reading
/// order.
pub const CORE_TERMS: [&str; 10] = [
    "corr",
    "wtkappa",
    "kappa",
    "R2",
    "exact_agr",
    "adj_agr",
    "SMD",
    "DSM",
    "RMSE",
    "PRMSE true",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions() {
        assert!(column("corr").starts_with("Pearson"));
        assert!(column("DSM.scale_trim").ends_with("Score type: scale_trim."));
        assert!(column("sys_raw").contains("(raw)"));
        assert_eq!(column("whatever"), "");
        for t in CORE_TERMS {
            assert!(metric(t).is_some(), "{t}");
        }
        assert!(score_type("scale_trim_round").is_some());
    }

    /// Every header of the bundled examples' reports that had no tooltip
    /// before issue 51, except names of the data (subgroup levels, systems,
    /// annotators, models, features, classes); two-part headers as the
    /// engine names them (`baseline.raw_trim`, `hh.corr`).
    const UNTITLED_BEFORE: [&str; 305] = [
        "1%",
        "25%",
        "5%",
        "50%",
        "75%",
        "95%",
        "99%",
        "BLEU",
        "CER",
        "Condition",
        "Correlation",
        "Evaluation set",
        "Extreme outliers",
        "Gate",
        "IQR",
        "McNemar p",
        "Mild outliers",
        "N features",
        "PC1",
        "PC10",
        "PC2",
        "PC3",
        "PC4",
        "PC5",
        "PC6",
        "PC7",
        "PC8",
        "PC9",
        "PRMSE",
        "R2_adjusted",
        "Reason",
        "SHA-256",
        "Scope",
        "Score/Features",
        "Status",
        "TER",
        "Training set",
        "Value",
        "WER",
        "accuracy",
        "actual",
        "all features numeric",
        "annotator",
        "ar_p",
        "arithmetic_mean_perplexity",
        "average_precision_macro",
        "balanced_accuracy",
        "baseline",
        "baseline.1",
        "baseline.2",
        "baseline.3",
        "baseline.4",
        "baseline.5",
        "baseline.6",
        "baseline.R2",
        "baseline.raw",
        "baseline.raw_trim",
        "baseline.raw_trim_round",
        "baseline.scale",
        "baseline.scale_trim",
        "baseline.scale_trim_round",
        "baseline.sig",
        "benchmark (95%)",
        "bits_per_token",
        "both",
        "bothperc",
        "brier",
        "bs_ci",
        "bs_mean",
        "bs_p",
        "bucket",
        "candidate",
        "candidate.1",
        "candidate.2",
        "candidate.3",
        "candidate.4",
        "candidate.5",
        "candidate.6",
        "candidate.R2",
        "candidate.raw",
        "candidate.raw_trim",
        "candidate.raw_trim_round",
        "candidate.scale",
        "candidate.scale_trim",
        "candidate.scale_trim_round",
        "candidate.sig",
        "category",
        "chrF2",
        "class",
        "coefficient",
        "cohen_kappa",
        "cohen_kappa_linear",
        "cohen_kappa_lower",
        "cohen_kappa_quadratic",
        "cohen_kappa_se",
        "cohen_kappa_upper",
        "column",
        "condition",
        "containment",
        "correct",
        "count",
        "criterion",
        "cross-check",
        "crossing",
        "data",
        "degradation.corr",
        "degradation.wtkappa",
        "delta",
        "delta_lower",
        "delta_upper",
        "df1",
        "df2",
        "document",
        "ece",
        "end_only",
        "evaluation",
        "exact_agreement",
        "experiment id",
        "f1",
        "feature",
        "file",
        "file (in output/)",
        "fleiss_kappa",
        "folder",
        "gain",
        "geometric_mean_perplexity",
        "gold",
        "hh.corr",
        "hh.wtkappa",
        "human score \\ machine score",
        "hypothesis",
        "id",
        "identical",
        "incorrect",
        "interpretation",
        "item",
        "items",
        "kurtosis",
        "label",
        "label_1",
        "label_2",
        "length",
        "length preferred",
        "length rejected",
        "length text_a",
        "length text_b",
        "level",
        "levels",
        "log_loss",
        "lower",
        "lowerperc",
        "macro_f1",
        "margin",
        "marginal",
        "matched",
        "matched_by",
        "matthews_corrcoef",
        "max",
        "max diff",
        "mean",
        "mean_abs_end_diff",
        "mean_abs_start_diff",
        "mean_f1",
        "mean_f1_overlap",
        "mean_f1_strict",
        "mean_length",
        "mean_pairwise_f1",
        "meaning",
        "metric",
        "micro_f1",
        "micro_precision",
        "micro_recall",
        "min",
        "missed",
        "mode",
        "model",
        "model version",
        "n",
        "n_abstained",
        "n_annotators",
        "n_documents",
        "n_documents_missing",
        "n_duplicates",
        "n_empty_sequences",
        "n_invalid_transitions",
        "n_items",
        "n_left_out",
        "n_matched",
        "n_outside_scheme",
        "n_overlapping",
        "n_pairs",
        "n_pairs_undefined",
        "n_same_label",
        "n_segments",
        "n_sentinel",
        "n_spans",
        "name",
        "non-numeric feature values",
        "only_1",
        "only_2",
        "p",
        "p (Holm)",
        "p Holm",
        "p_ar",
        "p_holm",
        "p_paired_bs",
        "p_value",
        "paired",
        "pairs",
        "partial",
        "partial, length only",
        "partition",
        "pearson_r",
        "percent_same",
        "perplexity",
        "pooled_f1",
        "possible",
        "precision",
        "predicted",
        "prefers longer",
        "prefers text_a",
        "producer",
        "rater",
        "rater_1",
        "rater_2",
        "read as",
        "recall",
        "reference",
        "relative",
        "roc_auc_macro",
        "roc_auc_weighted",
        "role",
        "rounded",
        "rows",
        "sc1",
        "scale",
        "scheme",
        "scope",
        "score type",
        "sd_f1",
        "sd_pairwise_f1",
        "se",
        "se0",
        "sequences",
        "share",
        "shows less",
        "shows more",
        "sign",
        "skewness",
        "specific_agreement",
        "spread",
        "spurious",
        "standardized",
        "start_only",
        "statistic",
        "status",
        "std. dev.",
        "step",
        "subgroup",
        "support",
        "system",
        "test",
        "tokens",
        "train_mean",
        "train_sd",
        "train_transformed_mean",
        "train_transformed_sd",
        "training",
        "transform",
        "trimmed",
        "type",
        "unmatched",
        "upper",
        "upperperc",
        "used for",
        "value",
        "verdict",
        "version",
        "weights",
        "Δ",
        "Δ PRMSE",
        "Δ R2",
        "Δ RMSE",
        "Δ SMD",
        "Δ adj_agr",
        "Δ corr",
        "Δ degradation.corr",
        "Δ degradation.wtkappa",
        "Δ exact_agr",
        "Δ kappa",
        "Δ wtkappa",
        "Δ.1",
        "Δ.2",
        "Δ.3",
        "Δ.4",
        "Δ.5",
        "Δ.6",
        "Δ.R2",
        "Δ.raw",
        "Δ.raw_trim",
        "Δ.raw_trim_round",
        "Δ.scale",
        "Δ.scale_trim",
        "Δ.scale_trim_round",
        "Δ.sig",
    ];

    #[test]
    fn every_header_of_every_kind_is_explained() {
        let missing: Vec<&str> = UNTITLED_BEFORE
            .into_iter()
            .filter(|n| column(n).trim().is_empty())
            .collect();
        assert!(missing.is_empty(), "no definition: {missing:?}");
        for n in UNTITLED_BEFORE {
            let d = column(n);
            assert!(!d.contains("spec") && !d.contains(".md"), "{n}: {d}");
        }
    }

    #[test]
    fn families_are_composed() {
        assert_eq!(
            column("cohen_kappa_lower"),
            format!(
                "Lower end of the 95% confidence interval of cohen_kappa. cohen_kappa: {}",
                term("cohen_kappa").unwrap()
            )
        );
        assert!(column("delta_upper")
            .starts_with("Upper end of the 95% confidence interval of delta. delta: Change:"));
        assert!(column("cohen_kappa_se")
            .starts_with("Standard error (uncertainty from sampling) of cohen_kappa."));
        assert_eq!(
            column("Δ corr"),
            format!(
                "Change of corr: candidate minus baseline. corr: {}",
                column("corr")
            )
        );
        assert!(column("Δ degradation.corr").starts_with(
            "Change of degradation.corr: candidate minus baseline. degradation.corr: Degradation:"
        ));
        assert!(column("delta.f1").starts_with("Change of f1: candidate minus baseline. f1: F1:"));
        assert!(column("Δ.raw_trim").ends_with("Score type: raw_trim."));
        assert!(column("baseline.3").ends_with("Score level 3."));
        assert!(column("hh.corr").starts_with(
            "Agreement between the two human scores (double-scored responses). corr: Pearson"
        ));
        assert_eq!(column("n_documents"), "Number of documents.");
        assert_eq!(
            column("mean_f1_overlap"),
            "Average F1 over the pairs of annotators, spans counted as the same when overlapping, same label."
        );
        assert_eq!(column("mean_f1_bogus"), "");
        assert_eq!(
            column("25%"),
            "Percentile 25: 25% of the values are at or below it."
        );
        assert!(column("PC10").starts_with("Principal component 10:"));
        assert_eq!(
            column("gold \u{2193} / ann1 \u{2192}"),
            "Rows: gold; columns: ann1."
        );
        // Names of the data stay without a definition.
        for n in [
            "Arabic",
            "ann1",
            "tagger_v2",
            "atlas-7b",
            "cohesion",
            "neg",
            "n_",
            "PC",
            "%",
        ] {
            assert_eq!(column(n), "", "{n}");
        }
        // The score-evaluation metrics keep their definitions.
        assert!(column("DSM.scale_trim").ends_with("Score type: scale_trim."));
        assert_eq!(column("N"), "Number of responses.");
    }
}
