//! Command assembly (spans): a plain-language explanation of every column
//! header of the span report's tables (their tooltips, as build's glossary
//! gives build's headers), by table and column, for a reader who knows
//! neither seqeval, nervaluate nor the agreement literature.
//!
//! Static text only; computes nothing, writes nothing.

use rsmreport_report::render::context::Table;

/// The explanation of column `column` of table `table` (a spans table's
/// name without the experiment id; `span_agreement_by_<g>` and
/// `system_scores_by_<g>` for subgroup `g`).
pub fn column(table: &str, column: &str) -> Option<&'static str> {
    if let Some(g) = table
        .strip_prefix("span_agreement_by_")
        .or_else(|| table.strip_prefix("system_scores_by_"))
    {
        if g == column && g != "type" && g != "document" {
            return Some("The subgroup's level: the tables are computed again on its documents.");
        }
    }
    if let Some(text) = specific(table, column) {
        return Some(text);
    }
    general(column)
}

/// Columns whose meaning depends on the table.
fn specific(table: &str, column: &str) -> Option<&'static str> {
    let agreement = table == "span_agreement" || table.starts_with("span_agreement_by_");
    Some(match (table, column) {
        (_, "matched") if table == "boundary_disagreements" => {
            "Pairs of spans matched under the overlap criterion (overlapping, same label)."
        }
        (_, "matched") if table == "span_agreement_pairs" => {
            "Spans the two annotators agree on under this criterion."
        }
        (_, "matched") if agreement => {
            "Spans agreed on under this criterion, summed over every pair of annotators."
        }
        (_, "unmatched") => {
            "Spans only one annotator of a pair marked, summed over every pair of annotators."
        }
        ("span_agreement_pairs", "f1") => {
            "F1 between the two annotators: 2 x matched / (2 x matched + only_1 + only_2), \
             their positive specific agreement (1 = they mark exactly the same spans)."
        }
        ("nervaluate", "f1") | ("nervaluate", "precision") | ("nervaluate", "recall") => {
            "nervaluate's precision, recall or F1 under this scheme (partial matches count half \
             in the partial scheme)."
        }
        ("nervaluate", "correct") => {
            "Predictions that match a reference entity under this scheme (nervaluate's COR)."
        }
        ("type_confusion", "count") => "How many matched spans carry this pair of labels.",
        ("label_distribution", "count") => "Distinct spans of this label the annotator marked.",
        ("system_comparisons", "system") => "The system compared with the baseline system.",
        ("system_comparisons", "baseline") => "The baseline system's value of the statistic.",
        ("system_comparisons", "candidate") => "This system's value of the statistic.",
        (_, "lower") | (_, "upper") if table == "span_agreement_pairs" => {
            "Bounds of the bootstrap confidence interval of the pair's F1 (documents resampled)."
        }
        (_, "lower") | (_, "upper") => {
            "Bounds of the bootstrap confidence interval of the mean pairwise F1 (documents \
             resampled)."
        }
        (_, "n_documents") if table.starts_with("system_scores_by_") => {
            "Documents of this level that both the system and the reference annotated."
        }
        (_, "n_documents") if agreement => "Documents of this level.",
        _ => return None,
    })
}

/// Columns that mean the same in every spans table.
fn general(column: &str) -> Option<&'static str> {
    Some(match column {
        "criterion" => {
            "When two spans count as the same: strict = same start, end and label; exact = \
             same start and end; overlap = overlapping with the same label; overlap_any = \
             overlapping."
        }
        "n_pairs" => "Pairs of annotators compared.",
        "n_pairs_undefined" => {
            "Pairs left out of the mean: they share no document, or neither marked anything."
        }
        "mean_pairwise_f1" => {
            "Mean over the pairs of annotators of their F1 (positive specific agreement: the \
             share of marked spans both mark; not corrected for chance)."
        }
        "sd_pairwise_f1" => "Spread (standard deviation) of the pairs' F1.",
        "pooled_f1" => "F1 of all pairs' counts added up before dividing.",
        "rater_1" | "rater_2" => "The annotators of the pair.",
        "annotator" => "The annotator.",
        "n_documents" => "Documents both annotators of the pair annotated (or the annotator).",
        "only_1" => "Spans only the first annotator of the pair marked.",
        "only_2" => "Spans only the second annotator of the pair marked.",
        "label" => "The span type (entity label).",
        "document" => "The document.",
        "n_annotators" => "Annotators of the agreement tables who annotated the document.",
        "mean_f1" => "Mean strict F1 over the pairs of annotators on this document.",
        "sd_f1" => "Spread (standard deviation) of those pairs' strict F1.",
        "mean_f1_overlap" => "Mean F1 over the pairs on this document under the overlap criterion.",
        "n_spans" => "Distinct spans marked on this document (or by this annotator).",
        "matched_by" => {
            "Which spans are paired: exact = same boundaries; overlap_any = overlapping spans, \
             one-to-one."
        }
        "label_1" => "The first annotator's label.",
        "label_2" => "The second annotator's label.",
        "n_matched" => "Matched spans of the pair.",
        "n_same_label" => "Matched spans both annotators labelled alike.",
        "percent_same" => "Share of matched spans labelled alike.",
        "cohen_kappa" => {
            "Cohen's kappa on the labels of matched spans: agreement beyond chance (1 = \
             perfect, 0 = chance level)."
        }
        "n_left_out" => "Boundaries with several labels on one side, left out of kappa.",
        "identical" => "Matched spans with the same start and end.",
        "start_only" => "Matched spans whose start alone differs.",
        "end_only" => "Matched spans whose end alone differs.",
        "both" => "Matched spans whose start and end both differ (containment + crossing).",
        "containment" => "Both boundaries differ and one span lies inside the other.",
        "crossing" => "Both boundaries differ and the spans cross.",
        "mean_abs_start_diff" => "Mean distance between the starts of matched spans.",
        "mean_abs_end_diff" => "Mean distance between the ends of matched spans.",
        "n_documents_missing" => "Documents the annotator did not annotate (missing, not empty).",
        "n_duplicates" => "Spans marked more than once (counted once).",
        "mean_length" => "Mean span length (characters, or tokens for token input).",
        "n_overlapping" => "Spans overlapping another span of the same annotator.",
        "mean_f1_strict" => "Mean strict F1 of this annotator with every other in the tables.",
        "n_invalid_transitions" => "Tag sequences the tag scheme does not allow (token input).",
        "n_outside_scheme" => "Tags whose prefix the tag scheme does not have (token input).",
        "system" => "The annotator scored against the reference.",
        "mode" => {
            "seqeval's mode: default (lenient decoding, as conlleval) or strict (entities must \
             be well formed in the tag scheme)."
        }
        "precision" => "Share of the predicted spans that the reference has (correct / predicted).",
        "recall" => "Share of the reference spans that were predicted (correct / support).",
        "f1" => "Harmonic mean of precision and recall (0 when both are 0).",
        "support" => "Spans of the reference.",
        "predicted" => "Spans predicted.",
        "correct" => "Predicted spans the reference has (same start, end and type).",
        "tokens" => "Tokens compared.",
        "matching" => "Tokens whose tags are equal.",
        "accuracy" => "Share of tokens whose tags are equal.",
        "tp" => "Tokens with equal tags other than O.",
        "fp" => "Tokens whose tags differ where the prediction is not O.",
        "fn" => "Tokens where the reference is not O and the prediction is O.",
        "tn" => "Tokens that are O on both sides.",
        "scheme" => {
            "nervaluate's scheme: strict = exact boundaries and type; exact = exact \
             boundaries; partial = overlapping boundaries; ent_type = overlapping with the \
             right type."
        }
        "incorrect" => {
            "Predictions at a reference entity but wrong under this scheme (nervaluate's INC)."
        }
        "partial" => "Predictions that overlap a reference entity without the same boundaries.",
        "missed" => "Reference entities nothing predicted.",
        "spurious" => "Predictions matching no reference entity.",
        "actual" => "Predictions (nervaluate's ACT).",
        "possible" => "Reference entities (nervaluate's POS).",
        "scope" => "overall, or one type (label=TYPE).",
        "statistic" => "The statistic compared.",
        "delta" => "The system's value minus the baseline system's.",
        "delta_lower" | "delta_upper" => {
            "Bounds of the paired bootstrap confidence interval of the difference (documents \
             resampled)."
        }
        "p_value" => "Bootstrap p-value of the difference.",
        "p_holm" => {
            "p-value adjusted with Holm's method across the types (overall rows: not adjusted)."
        }
        "verdict" => {
            "What the difference means: improved or regressed when its interval lies beyond \
             the practical margin, equivalent when it lies within it, no detectable change \
             otherwise."
        }
        "micro_precision" => "Precision over every span, whatever its type.",
        "micro_recall" => "Recall over every span, whatever its type.",
        "micro_f1" => "F1 over every span, whatever its type.",
        "macro_f1" => {
            "Mean of the per-type F1; a type with no reference span counts with F1 0 \
             (seqeval's convention)."
        }
        _ => return None,
    })
}

/// Sets every column header of `t` (shown from table `table`) to its
/// explanation.
pub fn explain(t: &mut Table, table: &str) {
    for h in &mut t.columns {
        if let Some(text) = column(table, &h.text) {
            h.title = text.to_string();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_column_is_explained() {
        assert!(column("span_agreement_by_genre", "genre").is_some());
        assert!(column("system_scores_by_genre", "genre").is_some());
        assert!(column("span_agreement_by_type", "label").is_some());
        assert_ne!(
            column("boundary_disagreements", "matched"),
            column("span_agreement", "matched")
        );
        assert_eq!(column("x", "no such column"), None);
    }
}
