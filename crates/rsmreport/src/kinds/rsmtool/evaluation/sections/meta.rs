//! The `build` report: the `intermediate_file_paths` (spec 5.11) and `sysinfo`
//! (5.12) sections. Derives file names from the run's frames (the output
//! stage writes them); no I/O, no rendering.

use anyhow::Result;
use serde::Serialize;

use crate::kinds::evaluation::report::Builder;
use rsmreport_report::render::context::{Cell, ColumnHead, Heading, Row, Table};
use rsmreport_report::render::sysinfo;
use rsmreport_report::render::tables::{text_cell, titled_head};
use rsmreport_report::render::template;
use rsmreport_report::render::Block;

/// What a table file holds, by its name without the `<id>_` prefix;
/// `groups` are the configured subgroup columns (for `*_by_<g>` names).
pub fn file_description(name: &str, groups: &[String]) -> String {
    if let Some(source) = name.strip_suffix("_ci") {
        let of = file_description(source, groups);
        let mut chars = of.chars();
        let lower = chars.next().map_or_else(String::new, |c| {
            c.to_lowercase().collect::<String>() + chars.as_str()
        });
        return format!("Confidence intervals: {lower}");
    }
    let fixed = match name {
        "rsmeval" => Some("The normalised configuration of this experiment"),
        "summary" => Some("Machine-readable summary: the headline statistics with their intervals"),
        "confMatrix" => Some("Confusion matrix of human and machine scores"),
        "confMatrix_h1h2" => Some("Confusion matrix of the first and the second human score"),
        "consistency" => Some("Agreement between the two human scores"),
        "data_composition" => Some("Composition of the evaluation set"),
        "degradation" => {
            Some("Change in human-machine agreement relative to human-human agreement")
        }
        "disattenuated_correlations" => Some("Disattenuated human-machine correlations"),
        "eval" => Some("All evaluation metrics, for every score type"),
        "eval_short" => Some("The most commonly used evaluation metrics"),
        "pred_processed" => Some("Machine scores of the evaluation set, after processing"),
        "score_dist" => Some("Distribution of human and machine scores"),
        "test_excluded_composition" => Some("Numbers of excluded responses by reason"),
        "test_excluded_responses" => Some("The responses excluded from the evaluation"),
        "test_human_scores" => Some("Human scores of the evaluation set"),
        "test_metadata" => Some("Metadata (subgroups, candidates) of the evaluation set"),
        "test_other_columns" => {
            Some("Other columns of the evaluation set, not used in the analyses")
        }
        "test_responses_with_excluded_flags" => Some("Responses removed by the flag filter"),
        "true_score_eval" => Some("True-score evaluation (PRMSE)"),
        "true_score_eval_all_raters" => {
            Some("True-score evaluation (PRMSE) from every human rating of a response")
        }
        "agreement" => Some("Agreement coefficients among the human raters"),
        "agreement_pairs" => {
            Some("Agreement of every pair of raters, the machine's rounded scores included")
        }
        "agreement_by_category" => Some("Agreement per score point"),
        "label_distribution" => Some("How often each rater gave each score point"),
        "classification" => {
            Some("Precision, recall and F1 per score point of the rounded machine scores")
        }
        "classification_summary" => Some(
            "Accuracy, balanced accuracy, Matthews correlation, kappas and rank correlations \
             of the rounded machine scores",
        ),
        _ => None,
    };
    if let Some(d) = fixed {
        return d.to_string();
    }
    const BY_GROUP: [(&str, &str); 8] = [
        ("consistency", "Agreement between the two human scores by"),
        ("data_composition", "Composition of the evaluation set by"),
        (
            "disattenuated_correlations",
            "Disattenuated correlations by",
        ),
        (
            "estimates_csd",
            "Conditional score difference model estimates by",
        ),
        ("estimates_osa", "Overall score accuracy model estimates by"),
        (
            "estimates_osd",
            "Overall score difference model estimates by",
        ),
        ("eval", "Evaluation metrics by"),
        (
            "fairness_metrics",
            "R2 and p values of the fairness models by",
        ),
    ];
    for (prefix, text) in BY_GROUP {
        for g in groups {
            if name == format!("{prefix}_by_{g}") {
                return format!("{text} {g}");
            }
        }
    }
    name.split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next().map_or_else(String::new, |f| {
                f.to_uppercase().collect::<String>() + c.as_str()
            })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[derive(Serialize)]
struct FilesCtx {
    heading: Heading,
    table: Table,
    folder: String,
}

pub fn files(b: &mut Builder) -> Result<Block> {
    let run = b.run;
    let exp = &run.exp;
    let heading = b.heading(2, "Links to intermediate files");
    let ext = exp.file_format.extension();
    let mut names: Vec<(String, String)> = run
        .analysis
        .frames
        .iter()
        .filter(|f| f.is_writable())
        .map(|f| {
            (
                f.name.clone(),
                format!("{}_{}.{ext}", exp.experiment_id, f.name),
            )
        })
        .collect();
    names.push((
        "rsmeval".to_string(),
        format!("{}_rsmeval.json", exp.experiment_id),
    ));
    names.push((
        "summary".to_string(),
        format!("{}_summary.json", exp.experiment_id),
    ));
    names.sort();
    let mut t = b.table(
        "intermediate files",
        "The tables written by this run",
        true,
        false,
    );
    t.class = "files".into();
    for (text, title) in [
        (
            "file",
            "Download the file (in the output folder next to this report's folder).",
        ),
        ("contents", "What the file holds."),
    ] {
        t.columns.push(ColumnHead {
            text: text.into(),
            title: title.into(),
            class: String::new(),
            sub: String::new(),
        });
    }
    for (name, file) in names {
        let link = Cell {
            text: name.clone(),
            title: file.clone(),
            href: format!("../output/{file}"),
            value: name.clone(),
            ..Cell::default()
        };
        t.rows.push(Row {
            cells: vec![link, text_cell(&file_description(&name, &exp.subgroups))],
            class: String::new(),
        });
    }
    template(
        "sections/intermediate_file_paths.html",
        &FilesCtx {
            heading,
            table: t,
            folder: "output".into(),
        },
    )
}

#[derive(Serialize)]
struct SysCtx {
    heading: Heading,
    version: String,
    platform: String,
    cpus: String,
    table: Table,
}

pub fn sysinfo(b: &mut Builder) -> Result<Block> {
    let heading = b.heading(2, "System information");
    let mut t = b.table(
        "libraries",
        "Main libraries built into rsmreport",
        false,
        false,
    );
    for (text, title) in [
        ("library", "Rust crate."),
        ("version", "Version compiled into this binary."),
        ("used for", ""),
    ] {
        t.columns.push(titled_head(text, false, title));
    }
    for (name, version, purpose) in sysinfo::crate_versions() {
        let mut first = text_cell(&name);
        first.header = true;
        t.rows.push(Row {
            cells: vec![
                first,
                Cell {
                    class: "version".into(),
                    ..text_cell(&version)
                },
                text_cell(&purpose),
            ],
            class: String::new(),
        });
    }
    template(
        "sections/sysinfo.html",
        &SysCtx {
            heading,
            version: env!("CARGO_PKG_VERSION").to_string(),
            platform: sysinfo::platform(),
            cpus: sysinfo::cpu_count().to_string(),
            table: t,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions() {
        let groups = vec!["L1".to_string(), "test_form".to_string()];
        assert_eq!(
            file_description("eval_by_L1", &groups),
            "Evaluation metrics by L1"
        );
        assert_eq!(
            file_description("fairness_metrics_by_test_form", &groups),
            "R2 and p values of the fairness models by test_form"
        );
        assert_eq!(
            file_description("eval_short", &groups),
            "The most commonly used evaluation metrics"
        );
        assert_eq!(file_description("new_thing", &groups), "New Thing");
        assert_eq!(
            file_description("eval_by_L1_ci", &groups),
            "Confidence intervals: evaluation metrics by L1"
        );
        assert_eq!(
            file_description("true_score_eval_ci", &groups),
            "Confidence intervals: true-score evaluation (PRMSE)"
        );
    }
}
