//! Report stage: plain-language definitions of the column headers of every
//! kind beyond the score-evaluation metrics of the parent module (data and
//! provenance tables, quality gates, comparisons, classification,
//! agreement, sequence, span and feature statistics), and the rules that
//! compose a definition for a family of headers (`Δ X`, `X_lower`,
//! `n_<thing>`, `PC3`, `25%`, `hh.corr`, ...). Static text only.

/// Definition of a header word that is not a score-evaluation metric, or
/// `None`. A word that means different things in two kinds says so.
pub fn term(name: &str) -> Option<&'static str> {
    record(name)
        .or_else(|| comparison(name))
        .or_else(|| classes(name))
        .or_else(|| sequence(name))
        .or_else(|| spans(name))
        .or_else(|| features(name))
        .or_else(|| preferences(name))
}

/// Files read, quality gates, data tables and other bookkeeping columns.
fn record(name: &str) -> Option<&'static str> {
    Some(match name {
        "role" => {
            "What the file (or column) is used for in this run, for example the predictions, \
             the reference or an annotator."
        }
        "file" | "file (in output/)" => {
            "The file: the path of a file read, or the name of a file written to the output \
             folder."
        }
        "rows" => "Number of data rows read from the file.",
        "SHA-256" => {
            "Fingerprint (SHA-256 checksum) of the file's (or folder's) contents: two files with the same \
             fingerprint are byte for byte identical, so it records exactly which data the \
             report was made from."
        }
        "Gate" => "Name of the quality gate: a pass/fail check the experiment sets on a result.",
        "Scope" | "scope" => {
            "Which data the row covers: all of it (overall) or one subgroup level."
        }
        "Value" => "The value the gate checks, with its 95% confidence interval where computed.",
        "Condition" => "The rule the value must meet for the gate to pass.",
        "Status" => {
            "Outcome of the gate: pass, fail, a warning, or not checked (value not computable \
             or gate skipped)."
        }
        "Reason" => "Why the gate has this status: the value set against the threshold.",
        "human score \\ machine score" => {
            "Rows: the kind of human score; columns: whether the machine score is a number. \
             Each cell counts the responses left out of the evaluation."
        }
        "score type" => {
            "Which machine score the row uses: raw, scaled to the human scores, trimmed to the \
             score range, rounded (see the score types)."
        }
        "used for" => "What the software library is used for.",
        "partition" => "Part of the data: the training set or the evaluation set.",
        "item" => "What the row describes or compares.",
        "status" => "Whether the item is the same in both versions or differs.",
        "id" => "Identifier of the response.",
        "version" => "The version (one folder of results) the row is about.",
        "folder" => "The folder the version's results were read from.",
        "experiment id" => "The experiment's name, from its configuration.",
        "producer" => "The program (and its version) that wrote the folder.",
        "model version" => "Version of the scoring model, as the experiment states it.",
        "subgroup" => "The subgroup column, for example first language or gender.",
        "level" => "The subgroup level (one value of the subgroup column) the row is about.",
        "levels" => "The words of the scale: a value at or above each threshold gets that word.",
        "scale" => "The interpretation scale: its name and source.",
        "statistic" => {
            "Which statistic the row shows. In a table of tests: the value of the test \
             statistic (z or F)."
        }
        "value" => {
            "The statistic's value (with its 95% confidence interval where shown); in a table \
             of input data, the cell value as written in the file."
        }
        "count" => "Number of times this occurs.",
        "n" => "Number of items.",
        "items" => "Number of items.",
        "step" => "A step of reading and filtering the data, in order.",
        "training" => "Rows of the training data this step concerns (read, or left out).",
        "evaluation" => "Rows of the evaluation data this step concerns (read, or left out).",
        "Training set" => "Number of responses in the training set.",
        "Evaluation set" => "Number of responses in the evaluation set.",
        _ => return None,
    })
}

/// Comparisons of a candidate with a baseline, verdicts and p-values.
fn comparison(name: &str) -> Option<&'static str> {
    Some(match name {
        "baseline" => {
            "Value for the baseline: the version or system the candidate is compared with \
             (with its 95% confidence interval where shown)."
        }
        "candidate" => {
            "Value for the candidate: the new version or system compared with the baseline \
             (with its 95% confidence interval where shown)."
        }
        "Δ" | "delta" => {
            "Change: candidate minus baseline, with its 95% confidence interval where shown."
        }
        "gain" => {
            "The change turned so that positive always means better: the change where higher \
             is better, minus the change where lower is better (for SMD: how much closer to 0)."
        }
        "verdict" => {
            "The decision in words (improved, regressed, equivalent, no detectable change, \
             ...), read from the 95% interval of the gain and the margin."
        }
        "margin" => {
            "The smallest change that counts (set in the experiment): a change whose interval \
             lies within plus or minus the margin is called equivalent."
        }
        "condition" => {
            "When the verdict applies: lo and hi are the ends of the 95% interval of the \
             gain, m is the margin."
        }
        "meaning" => "What the verdict means, in words.",
        "cross-check" => {
            "A second, independent check of the same difference: Zou's interval for a \
             difference of correlations, or McNemar's test for exact agreement."
        }
        "p (Holm)" | "p Holm" | "p_holm" => {
            "p-value adjusted for making many comparisons at once (Holm's method): compare \
             this one, not the unadjusted p, with 0.05, so that many tests do not produce \
             false alarms."
        }
        "p_value" => return super::metric("p"),
        "paired" => {
            "Whether the difference is computed on the same responses in both versions \
             (paired), which makes it more precise."
        }
        "trimmed" => "Computed on the two versions' trimmed (unrounded) scores.",
        "rounded" => "Computed on the two versions' trimmed and rounded scores.",
        "PRMSE" => return super::metric("PRMSE true"),
        "degradation" => {
            "Degradation: the human-machine value minus the human-human value (negative: the \
             machine agrees with humans less than two humans agree with each other)."
        }
        "hh" => "Agreement between the two human scores (double-scored responses).",
        "model" => {
            "Preference audits: the model whose responses the row describes. Fairness \
             tables: the fairness model (overall score accuracy, overall score difference or \
             conditional score difference; see OSA, OSD and CSD)."
        }
        "system" => "The system (model or version) the row is about.",
        _ => return None,
    })
}

/// Classification and agreement statistics (labels, raters, coefficients).
fn classes(name: &str) -> Option<&'static str> {
    Some(match name {
        "accuracy" => "Share of items given the same label as the reference (1 = all).",
        "balanced_accuracy" => {
            "Recall averaged over the classes: accuracy in which a rare class counts as much \
             as a common one."
        }
        "matthews_corrcoef" => {
            "Matthews correlation coefficient: agreement with the reference over all classes \
             (1 = perfect, 0 = no better than chance, negative = worse)."
        }
        "cohen_kappa" => {
            "Cohen's kappa: agreement of two label sets beyond what chance would give \
             (1 = perfect, 0 = chance level)."
        }
        "cohen_kappa_linear" => {
            "Cohen's kappa with linear weights: a near miss between ordered categories counts \
             as partial agreement."
        }
        "cohen_kappa_quadratic" => {
            "Cohen's kappa with quadratic weights: larger disagreements between ordered \
             categories count much more than near misses."
        }
        "fleiss_kappa" => {
            "Fleiss' kappa: agreement of all raters beyond chance (per category: that \
             category against all others)."
        }
        "pearson_r" => "Pearson correlation of the two raters' labels read as ordered numbers.",
        "exact_agreement" => "Share of items to which both raters give the same label.",
        "specific_agreement" => {
            "Specific agreement: when one rater uses this category, how often another rater \
             uses it too (not corrected for chance)."
        }
        "share" => "Share of all ratings that use this category.",
        "category" | "class" | "label" => "The label (class or category) the row is about.",
        "rater" | "annotator" => "The annotator (a person, model or system giving labels).",
        "rater_1" => "First annotator of the pair.",
        "rater_2" => "Second annotator of the pair.",
        "coefficient" => {
            "Agreement tables: which agreement coefficient the row shows. Model tables: the \
             feature's weight in the linear model (for the intercept: the predicted score \
             when every feature is 0)."
        }
        "weights" => {
            "How disagreements are weighted: none (every disagreement counts the same), \
             linear or quadratic (larger disagreements count more)."
        }
        "se" => {
            "Standard error: how much the value would vary from sample to sample (smaller = \
             more precise)."
        }
        "se0" => {
            "Standard error of the coefficient if there were no agreement beyond chance (used \
             by the test)."
        }
        "n_items" => "Number of items the coefficient is computed on.",
        "interpretation" => "The value in words, on the chosen interpretation scale.",
        "benchmark (95%)" => {
            "The highest level of the interpretation scale the value reaches with 95% \
             confidence, taking its uncertainty into account."
        }
        "test" => "The test against chance agreement: z (normal) or F test.",
        "df1" => "Degrees of freedom of the F test (numerator).",
        "df2" => "Degrees of freedom of the F test (denominator).",
        "precision" => {
            "Of the items (or spans) labelled this way by the system or annotator, the share \
             the reference labels so too."
        }
        "recall" => {
            "Of the items (or spans) the reference labels this way, the share the system or \
             annotator labels so too."
        }
        "f1" | "F1" => "F1: the harmonic mean of precision and recall (1 = perfect).",
        "support" => "Number of items (or spans) of this kind in the reference.",
        "macro_f1" => {
            "F1 per class (or span type), averaged with equal weight: a rare class counts as \
             much as a common one."
        }
        "micro_f1" => "F1 from the counts pooled over all classes (or span types).",
        "micro_precision" => "Precision from the counts pooled over all span types.",
        "micro_recall" => "Recall from the counts pooled over all span types.",
        "gold" => "Number of items with this label in the reference (gold) labels.",
        "n_abstained" => "Number of items the system gave no label.",
        "McNemar p" => {
            "p-value of McNemar's test: do the two systems differ in how often they are right, \
             judged on the items only one of them gets right?"
        }
        "average_precision_macro" => {
            "Average precision per class from the predicted probabilities, averaged over \
             classes: how well the probabilities put each class's items first (1 = perfect)."
        }
        "roc_auc_macro" => {
            "Area under the ROC curve per class, averaged over classes: the chance that an \
             item of the class gets a higher probability than an item of another class \
             (0.5 = chance, 1 = perfect)."
        }
        "roc_auc_weighted" => {
            "Area under the ROC curve per class, averaged with each class weighted by its \
             number of items (0.5 = chance, 1 = perfect)."
        }
        "brier" => {
            "Brier score: mean squared difference between the predicted probabilities and \
             what happened (0 = perfect, lower is better)."
        }
        "log_loss" => {
            "Log loss: the average penalty for the probability given to the correct label; \
             confident wrong answers cost most (lower is better)."
        }
        "ece" => {
            "Expected calibration error: the average gap between how confident the \
             predictions are and how often they are right (0 = perfectly calibrated)."
        }
        _ => return None,
    })
}

/// Sequence metrics (sacreBLEU, jiwer) and perplexity.
fn sequence(name: &str) -> Option<&'static str> {
    Some(match name {
        "BLEU" => {
            "BLEU: overlap of the output's word sequences with the reference's, 0 to 100 \
             (higher is better)."
        }
        "chrF2" => {
            "chrF2: overlap of character sequences, recall weighted twice as much as \
             precision, 0 to 100 (higher is better)."
        }
        "TER" => {
            "Translation edit rate: the edits needed to turn the output into the reference, \
             per 100 reference words (lower is better)."
        }
        "WER" => {
            "Word error rate: words substituted, deleted or inserted, per reference word \
             (lower is better)."
        }
        "CER" => "Character error rate: like WER, on characters (lower is better).",
        "metric" => "The metric's identifier.",
        "name" => "The metric's name.",
        "bs_mean" => "Mean of the score over the bootstrap resamples (as sacreBLEU reports it).",
        "bs_ci" => {
            "Half-width of the 95% bootstrap confidence interval (sacreBLEU's plus or minus): \
             the score is uncertain by about this much."
        }
        "bs_p" | "p_paired_bs" => {
            "sacreBLEU's paired bootstrap p-value for the difference from the baseline system."
        }
        "ar_p" | "p_ar" => {
            "sacreBLEU's approximate randomization p-value for the difference from the \
             baseline system."
        }
        "n_segments" => "Number of segments (sentences) scored.",
        "bucket" => "Length band of the segments: words of the reference, by tens.",
        "type" => "Kind of word error: substitution, insertion or deletion.",
        "reference" => "The words in the reference (the correct text).",
        "hypothesis" => "The words in the system's output.",
        "sequences" => "Number of sequences scored.",
        "tokens" => "Number of tokens scored.",
        "perplexity" => {
            "Perplexity over all tokens: how surprised the model is by the text, on average \
             (lower is better)."
        }
        "geometric_mean_perplexity" => "Geometric mean of the perplexities of the sequences.",
        "arithmetic_mean_perplexity" => {
            "Arithmetic mean of the perplexities of the sequences (pulled up by a few very \
             surprising sequences)."
        }
        "bits_per_token" => {
            "Average surprise per token in bits (the negative log-probability, base 2; lower \
             is better)."
        }
        "n_sentinel" => {
            "Tokens whose log-probability is a placeholder (-9999 or below) that some services \
             give for tokens outside their top list."
        }
        "n_empty_sequences" => "Number of sequences without tokens.",
        _ => return None,
    })
}

/// Span annotation statistics (agreement between annotators, span scoring).
fn spans(name: &str) -> Option<&'static str> {
    Some(match name {
        "criterion" => {
            "When two spans count as the same: strict = same start, end and label; exact = \
             same start and end; overlap = overlapping, same label; overlap_any = overlapping."
        }
        "n_pairs" => "Number of pairs of annotators.",
        "n_pairs_undefined" => "Pairs whose F1 is undefined (neither marked a span).",
        "mean_pairwise_f1" | "mean_f1" => {
            "Average F1 over the pairs of annotators (one taken as the reference for the \
             other)."
        }
        "sd_pairwise_f1" | "sd_f1" => "Standard deviation of the F1s of the pairs.",
        "pooled_f1" => "F1 from the matched and unmatched spans pooled over all pairs.",
        "matched" => "Number of spans matched with a span of the other annotator.",
        "unmatched" => "Number of spans with no match in the other annotator's spans.",
        "only_1" => "Spans marked only by the first annotator of the pair.",
        "only_2" => "Spans marked only by the second annotator of the pair.",
        "matched_by" => {
            "How spans are paired to compare their labels: exact (same start and end) or \
             overlap_any (overlapping)."
        }
        "n_matched" => "Number of matched pairs of spans.",
        "n_same_label" => "Matched pairs of spans with the same label.",
        "percent_same" => "Share of the matched pairs of spans with the same label (0 to 1).",
        "n_left_out" => {
            "Spans left out of the label comparison: same boundaries, but several labels on \
             one side."
        }
        "label_1" => "Label given by the first annotator of the pair.",
        "label_2" => "Label given by the second annotator of the pair.",
        "identical" => "Matched spans (overlapping, same label) with the same start and end.",
        "start_only" => "Matched spans that differ in the start only.",
        "end_only" => "Matched spans that differ in the end only.",
        "both" => {
            "Spans: matched spans that differ in both start and end (containment plus \
             crossing). Feature outliers: the number of values more than 4 standard deviations \
             from the mean, on either side."
        }
        "containment" => "Matched spans of which one lies inside the other.",
        "crossing" => "Matched spans that overlap without one containing the other.",
        "mean_abs_start_diff" => "Average distance between the starts of matched spans.",
        "mean_abs_end_diff" => "Average distance between the ends of matched spans.",
        "document" => "The document's identifier.",
        "n_spans" => "Number of spans marked.",
        "mean_length" => "Average span length.",
        "n_documents_missing" => "Documents the annotator did not annotate.",
        "n_duplicates" => "Spans marked twice (same start, end and label).",
        "n_overlapping" => "Spans that overlap another span of the same annotator.",
        "n_invalid_transitions" => "Tags that break the tagging scheme (for example I- after O).",
        "n_outside_scheme" => "Tags the tagging scheme does not allow.",
        "mode" => "seqeval's scoring mode: default (lenient) or strict.",
        "predicted" => "Number of spans the system marked.",
        "scheme" => {
            "nervaluate's scoring scheme: strict (same boundaries and type), exact (same \
             boundaries), partial (overlap counts half), ent_type (right type, some overlap)."
        }
        "correct" => "Spans of the system that match a reference span under the scheme.",
        "incorrect" => "Spans of the system at a reference span but wrong under the scheme.",
        "partial" => {
            "Spans: spans of the system that overlap a reference span without the same \
             boundaries. Features: partial correlation with the human score, the other \
             features held constant."
        }
        "missed" => "Reference spans the system did not mark.",
        "spurious" => "Spans of the system with no reference span.",
        "possible" => "Reference spans: correct + incorrect + partial + missed.",
        "actual" => "Spans of the system: correct + incorrect + partial + spurious.",
        _ => return None,
    })
}

/// Features and linear models (training).
fn features(name: &str) -> Option<&'static str> {
    Some(match name {
        "feature" => "The feature: a measured property of the response the model uses.",
        "mean" => "Average of the values.",
        "std. dev." => "Standard deviation: the typical distance of the values from their mean.",
        "min" => "Lowest value.",
        "max" => "Highest value.",
        "skewness" => {
            "Asymmetry of the values: 0 = symmetric, positive = a long tail of high values, \
             negative = of low values."
        }
        "kurtosis" => "How heavy the tails are: higher = more values far from the mean.",
        "Correlation" => "Pearson correlation of the feature with the human score.",
        "lower" => {
            "Lower end of the 95% confidence interval. Feature outliers: the number of \
             values more than 4 standard deviations below the mean."
        }
        "upper" => {
            "Upper end of the 95% confidence interval. Feature outliers: the number of \
             values more than 4 standard deviations above the mean."
        }
        "lowerperc" => "Percentage of values more than 4 standard deviations below the mean.",
        "upperperc" => "Percentage of values more than 4 standard deviations above the mean.",
        "bothperc" => "Percentage of values more than 4 standard deviations from the mean.",
        "IQR" => "Interquartile range: 75th minus 25th percentile, the spread of the middle half.",
        "Mild outliers" => {
            "Values 1.5 to 3 interquartile ranges below the 25th or above the 75th percentile."
        }
        "Extreme outliers" => {
            "Values 3 or more interquartile ranges below the 25th or above the 75th percentile."
        }
        "transform" => "How the feature is transformed before fitting (raw = unchanged).",
        "sign" => "1, or -1 when the feature is reversed so that higher means a higher score.",
        "train_mean" => "Mean of the feature in the training set.",
        "train_sd" => "Standard deviation of the feature in the training set.",
        "train_transformed_mean" => "Mean of the transformed feature in the training set.",
        "train_transformed_sd" => {
            "Standard deviation of the transformed feature in the training set."
        }
        "marginal" => "Correlation of the feature with the human score.",
        "partial, length only" => {
            "Correlation of the feature with the human score, response length held constant."
        }
        "standardized" => {
            "Standardised coefficient: the feature's weight on a common scale (every feature \
             with standard deviation 1), so features can be compared."
        }
        "relative" => "The feature's share of the sum of the absolute standardised weights.",
        "N features" => "Number of features in the model.",
        "R2_adjusted" => "R2 adjusted for the number of features.",
        "sc1" => "The human score.",
        "length" => "Response length.",
        "Score/Features" => {
            "Rows: the kind of human score; columns: whether the features are numbers. Each \
             cell counts the responses left out."
        }
        "all features numeric" => "Responses whose feature values are all numbers.",
        "non-numeric feature values" => "Responses with a feature value that is not a number.",
        _ => return None,
    })
}

/// Preference annotations.
fn preferences(name: &str) -> Option<&'static str> {
    Some(match name {
        "data" => "The pairs the row covers: all of them, or one subset.",
        "pairs" => "Number of pairs of texts counted.",
        "prefers text_a" => {
            "Share of pairs in which the reference prefers text_a (far from 0.5: a position \
             preference)."
        }
        "length text_a" => "Mean length of text_a, in characters.",
        "length text_b" => "Mean length of text_b, in characters.",
        "length preferred" => "Mean length of the preferred text, in characters.",
        "length rejected" => "Mean length of the text not preferred, in characters.",
        "prefers longer" => "Share of pairs in which the preferred text is the longer one.",
        "max diff" => "Largest minus smallest strength across the subset's values.",
        "spread" => "Largest minus smallest strength across the models.",
        "shows more" => "Traits the model's responses show more than other models' do.",
        "shows less" => "Traits the model's responses show less than other models' do.",
        "column" => "Column of the input file.",
        "read as" => "How the value was read.",
        _ => return None,
    })
}

/// When two spans count as the same under a matching criterion, or `None`.
fn criterion(c: &str) -> Option<&'static str> {
    Some(match c {
        "strict" => "same start, end and label",
        "exact" => "same start and end",
        "overlap" => "overlapping, same label",
        "overlap_any" => "overlapping",
        _ => return None,
    })
}

/// A definition composed from a rule for a family of headers, with `define`
/// giving the definition of a part (empty when unknown); empty when no rule
/// applies.
pub fn composed(name: &str, define: impl Fn(&str) -> String) -> String {
    let with = |lead: String, part: &str| match define(part) {
        d if d.is_empty() => format!("{lead}."),
        d => format!("{lead}. {part}: {d}"),
    };
    if let Some((rows, cols)) = name
        .strip_suffix(" \u{2192}")
        .and_then(|s| s.split_once(" \u{2193} / "))
    {
        return format!("Rows: {rows}; columns: {cols}.");
    }
    if let Some(rest) = name
        .strip_prefix("Δ ")
        .or_else(|| name.strip_prefix("delta."))
        .or_else(|| name.strip_prefix('Δ').filter(|r| !r.starts_with('.')))
        .filter(|r| !r.is_empty())
    {
        return with(format!("Change of {rest}: candidate minus baseline"), rest);
    }
    if let Some((base, sub)) = name.split_once('.') {
        let d = define(base);
        if !d.is_empty() && !sub.is_empty() {
            return format!("{d} {}", part(sub, &define));
        }
    }
    for (suffix, lead) in [
        ("_lower", "Lower end of the 95% confidence interval of"),
        ("_upper", "Upper end of the 95% confidence interval of"),
        ("_se", "Standard error (uncertainty from sampling) of"),
    ] {
        if let Some(x) = name.strip_suffix(suffix).filter(|x| !x.is_empty()) {
            return with(format!("{lead} {x}"), x);
        }
    }
    if let Some(d) = name.strip_prefix("mean_f1_").and_then(criterion) {
        return format!(
            "Average F1 over the pairs of annotators, spans counted as the same when {d}."
        );
    }
    if let Some(p) = name.strip_suffix('%').filter(|p| is_number(p)) {
        return format!("Percentile {p}: {p}% of the values are at or below it.");
    }
    if let Some(k) = name.strip_prefix("PC").filter(|k| is_number(k)) {
        return format!(
            "Principal component {k}: a combination of the standardised features; the \
             eigenvalue and percentage rows say how much of their variation it captures, \
             the feature rows how much each feature weighs in it."
        );
    }
    if let Some(thing) = name.strip_prefix("n_").filter(|t| !t.is_empty()) {
        return format!("Number of {}.", thing.replace('_', " "));
    }
    String::new()
}

/// The second part of a two-part header such as `baseline.raw_trim`,
/// `hh.corr` or `baseline.3`.
fn part(sub: &str, define: &impl Fn(&str) -> String) -> String {
    if super::score_type(sub).is_some() {
        return format!("Score type: {sub}.");
    }
    if is_number(sub) {
        return format!("Score level {sub}.");
    }
    match sub {
        "R2" => {
            return "R2: how much of the variation of the errors the fairness model explains."
                .into()
        }
        "sig" => return "sig: the p-value of that R2.".into(),
        _ => {}
    }
    match define(sub) {
        d if d.is_empty() => format!("({sub})."),
        d => format!("{sub}: {d}"),
    }
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_digit())
}
