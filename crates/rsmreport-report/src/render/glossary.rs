//! Report stage: plain-language definitions of every column and score type
//! the report shows (column-header tooltips and the glossary boxes), for a
//! reader who is not a psychometrician. Static text only; touches nothing
//! else.

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
/// carries one.
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
    String::new()
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
}
