//! Every kind's quality gates as the reader meets them: the Quality gates
//! panel under the report header ([`panel`]), the terminal lines
//! ([`terminal_lines`], also printed by the command line), the counts in
//! words ([`counts_text`]) and the error of a gate naming a metric the kind
//! does not know ([`unknown_metric`]). The outcomes come from
//! [`crate::gates`] (stage 6), whichever way the kind evaluated them.
//!
//! No I/O (the caller prints the terminal lines); knows no kind.

use crate::gates::{self, Outcome, Status};
use rsmreport_config::closest;
use rsmreport_config::gates::WILLIAMSON2012;
use rsmreport_report::render::context::{Cell, Row};
use rsmreport_report::render::format::num3;
use rsmreport_report::render::tables::{head, text_cell};
use rsmreport_report::render::{Block, Panel};

/// The error of a gate on `metric`, which `kind` does not compute: the
/// closest of `names` as a hint when one is close, then `(<listing> are
/// a, b, c)`; `listing` says which metrics `names` are ("the metrics",
/// "the metrics of this experiment").
pub fn unknown_metric(kind: &str, metric: &str, names: &[&str], listing: &str) -> String {
    let hint = closest(metric, names.iter().copied())
        .map_or_else(String::new, |c| format!("; did you mean \"{c}\"?"));
    format!(
        "unknown metric \"{metric}\" for {kind}{hint} ({listing} are {})",
        names.join(", ")
    )
}

/// `3 passed, 1 failed, 2 skipped` (statuses with no line left out).
pub fn counts_text(outcomes: &[Outcome]) -> String {
    let parts: Vec<String> = gates::counts(outcomes)
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(s, n)| {
            let word = match s {
                Status::Pass => "passed",
                Status::Fail => "failed",
                Status::Warn => "warned",
                Status::Skipped => "skipped",
                Status::Nan => "NaN",
            };
            format!("{n} {word}")
        })
        .collect();
    parts.join(", ")
}

/// The terminal lines: one per line that fails the run or warns, then the
/// counts.
pub fn terminal_lines(outcomes: &[Outcome]) -> Vec<String> {
    let mut out: Vec<String> = gates::display_order(outcomes)
        .into_iter()
        .filter(|o| o.fails() || matches!(o.status, Status::Warn | Status::Nan))
        .map(|o| {
            let tag = if o.fails() { "FAILED" } else { "warning" };
            format!(
                "gate {tag}: {} [{}]: {}",
                o.gate.name,
                o.scope_text(),
                o.reason
            )
        })
        .collect();
    out.push(format!(
        "gates: {} result lines: {}",
        outcomes.len(),
        counts_text(outcomes)
    ));
    out
}

/// The Quality gates panel, or `None` without gates; `what` is what the
/// gates judge (`build`, `comparison`).
pub fn panel(
    doc: &mut rsmreport_report::render::Builder,
    outcomes: &[Outcome],
    what: &str,
) -> Option<Panel> {
    if outcomes.is_empty() {
        return None;
    }
    // The panel's own id, apart from its heading's (ids are unique).
    let id = doc.section_ids(["gates"]).remove(0);
    let heading = doc.heading(2, "Quality gates");
    let mut blocks = vec![Block::Heading(heading)];
    let verdict = if gates::failed(outcomes) {
        format!("The {what} fails its quality gates (exit code 3)")
    } else {
        format!("The {what} passes its quality gates")
    };
    // The order is only worth a word when something did not pass.
    let order = if outcomes
        .iter()
        .any(|o| matches!(o.status, Status::Fail | Status::Nan | Status::Warn))
    {
        " Failures and warnings are listed first."
    } else {
        ""
    };
    blocks.push(Block::Paragraph(format!(
        "{verdict}: {} result lines, {}.{order}",
        outcomes.len(),
        counts_text(outcomes)
    )));
    blocks.push(Block::Table(table(doc, outcomes)));
    let prefix = doc.file_prefix().to_string();
    blocks.push(Block::Note(note(outcomes, &prefix)));
    Some(Panel {
        id,
        class: "gates".into(),
        blocks,
    })
}

fn table(
    doc: &mut rsmreport_report::render::Builder,
    outcomes: &[Outcome],
) -> rsmreport_report::render::context::Table {
    let mut t = doc.table(
        "gates",
        "Every gate result: the statistic's estimate and interval, the condition, and why it \
         passed or not.",
        true,
        true,
    );
    t.columns = vec![
        head("Gate", false),
        head("Scope", false),
        head("Value", true),
        head("Condition", false),
        head("Status", false),
        head("Reason", false),
    ];
    t.rows = gates::display_order(outcomes)
        .into_iter()
        .map(|o| Row {
            cells: vec![
                // A long gate name wraps (th.wrap), so that the scope
                // and the status stay beside it on a narrow screen.
                Cell {
                    header: true,
                    class: "wrap".into(),
                    title: o.gate.origin.clone(),
                    ..text_cell(&o.gate.name)
                },
                text_cell(&o.scope_text()),
                value_cell(o),
                text_cell(&o.gate.condition()),
                status_cell(o),
                text_cell(&o.reason),
            ],
            class: String::new(),
        })
        .collect();
    rsmreport_report::render::tables::stick_column(&mut t, "Status");
    t
}

fn value_cell(o: &Outcome) -> Cell {
    let ci = o
        .interval
        .filter(|(lo, hi)| lo.is_finite() && hi.is_finite())
        .map_or_else(String::new, |(lo, hi)| {
            format!("[{}, {}]", num3(lo), num3(hi))
        });
    Cell {
        text: if o.status == Status::Skipped {
            String::new()
        } else {
            num3(o.estimate)
        },
        class: "num".into(),
        value: rsmreport_report::render::format::raw_value(o.estimate),
        ci,
        ..Cell::default()
    }
}

fn status_cell(o: &Outcome) -> Cell {
    let class = if o.fails() {
        "gate-status gate-fail"
    } else {
        match o.status {
            Status::Pass => "gate-status gate-pass",
            Status::Warn | Status::Nan => "gate-status gate-warn",
            _ => "gate-status gate-skipped",
        }
    };
    Cell {
        text: o.status.name().to_string(),
        class: class.into(),
        title: format!("severity {}", o.gate.severity.name()),
        ..Cell::default()
    }
}

/// What the statuses mean, and the preset's source when it is used.
fn note(outcomes: &[Outcome], id: &str) -> String {
    let mut s = format!(
        "A gate of severity fail that fails (or whose statistic is NaN) fails the build; one of \
         severity warn is reported only. Skipped lines were not checked: the group is below \
         min_n, or the statistic is not computed in this experiment. Intervals are shown \
         under the value; a gate on a bound compares that end of the interval. The same \
         results are in output/{id}_gates.json and, for CI systems, output/{id}_gates.xml \
         (JUnit).",
    );
    if outcomes
        .iter()
        .any(|o| o.gate.origin.contains("williamson2012"))
    {
        s.push_str(" The preset williamson2012 follows ");
        s.push_str(WILLIAMSON2012);
    }
    s
}
