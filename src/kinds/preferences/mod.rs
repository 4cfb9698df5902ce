//! Command assembly for `rsmreport preferences` (`spec/preferences.md`):
//! how strongly each annotator's pairwise preferences follow a reference
//! annotator, with Feedback Forensics' metrics, seeded intervals and a
//! self-contained report.
//!
//! * [`read`]: the pairs file (tables through `crate::input`, AnnotatedPairs
//!   JSON with serde_json) as raw columns; duplicate ids are refused.
//! * [`run`]: every number, from the pure maths of
//!   `crate::metrics::preferences` (whole set and each subset value).
//! * [`models`]: the model view of spec 6 (traits by model).
//! * [`tables`]: the tables and `<id>_preferences.json`.
//! * this file: [`files`] and [`terminal_lines`] (the command line's
//!   `cli/preferences.rs` reads, runs and hands the files to `finish`).
//! * [`report`]: the HTML report through the engine `crate::render`.
//!
//! Reads the pairs file (in `read` only) and produces bytes; writing them
//! is the output stage's job (`crate::output`). Touches no other command's
//! assembly (`build`, `compare`).

pub mod models;
pub mod read;
pub mod report;
pub mod run;
pub mod tables;

use crate::output::OutputFile;
use run::Analysis;
use tables::data_files;

/// Every output file: the tables, the JSON, the report and its figures.
pub fn files(
    a: &Analysis,
    inputs: Vec<crate::render::context::InputCtx>,
    epoch: i64,
) -> anyhow::Result<Vec<OutputFile>> {
    let mut inputs = inputs;
    // Several pairs files: each is an input of its own (the command gave
    // the first with the rows of all).
    if let (Some(first), Some(d)) = (inputs.first_mut(), a.datasets.first()) {
        first.rows = d.rows.to_string();
    }
    inputs.extend(
        a.datasets
            .iter()
            .skip(1)
            .map(|d| crate::render::context::InputCtx {
                role: "pairs".into(),
                path: d.file.display().to_string(),
                rows: d.rows.to_string(),
                sha256: d.sha256.clone(),
            }),
    );
    let mut out = data_files(a);
    out.extend(crate::render::report_files(&report::report(
        a, inputs, epoch,
    )?)?);
    Ok(out)
}

fn fixed(x: f64, signed: bool) -> String {
    match (x.is_finite(), signed) {
        (false, _) => "n/a".into(),
        (true, true) => format!("{x:+.3}"),
        (true, false) => format!("{x:.3}"),
    }
}

/// One line per annotator (by strength): strength with its interval,
/// accuracy and relevance on the whole set.
pub fn terminal_lines(a: &Analysis) -> Vec<String> {
    let all = a.all();
    let mut out = vec![format!(
        "{}: {} of {} pairs used; annotators against the reference {}:",
        a.id,
        crate::render::format::thousands(all.exclusions.used()),
        crate::render::format::thousands(all.exclusions.rows),
        a.reference_name
    )];
    let width = a
        .annotator_names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0);
    for j in a.by_strength() {
        let (m, i) = (&all.metrics[j], &all.intervals[j]);
        let ci = if i.strength.lower.is_finite() {
            format!(
                " [{}, {}]",
                fixed(i.strength.lower, true),
                fixed(i.strength.upper, true)
            )
        } else {
            String::new()
        };
        let few = if m.few_votes() {
            format!(
                "  (few votes: {})",
                crate::render::format::thousands(m.valid_votes())
            )
        } else {
            String::new()
        };
        out.push(format!(
            "  {:<width$}  strength {}{ci}  accuracy {}  relevance {}{few}",
            a.annotator_names[j],
            fixed(m.strength, true),
            fixed(m.accuracy, false),
            fixed(m.relevance, false),
        ));
    }
    if let Some(v) = &a.models {
        out.push(format!(
            "traits by model: {} target models against {}; table {}_model_traits",
            v.targets.len(),
            if v.one_vs_all {
                "all the others".to_string()
            } else {
                v.references.join(", ")
            },
            a.id
        ));
    }
    if all.exclusions.used() == 0 {
        out.push(
            "note: no pair has a valid reference vote and two non-empty texts; every metric is n/a"
                .into(),
        );
    }
    out
}
