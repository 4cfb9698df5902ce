//! The `build` report: the agreement sections: `consistency` (spec 5.6),
//! `evaluation` (5.7, with figure 6.1) and `true_score_evaluation` (5.8).
//! Reads frames and typed results of the run; no I/O, no rendering.

use anyhow::Result;
use serde::Serialize;

use super::{add_intervals, add_row_intervals, continuous_human};
use crate::kinds::common::rounded;
use crate::kinds::evaluation::report::Builder;
use rsmreport_config::{Number, ScaleWith};
use rsmreport_metrics::block::MetricBlock;
use rsmreport_report::plots;
use rsmreport_report::render::context::{
    Cell, ColumnHead, FigureCtx, Heading, Row, Table, Term, Titled,
};
use rsmreport_report::render::format::{short, thousands};
use rsmreport_report::render::glossary;
use rsmreport_report::render::tables::{
    column_f64, count_cell, frame_table, head, label_cell, matrix_table, metric_cell, outside,
    text_cell, FrameOpts,
};
use rsmreport_report::render::template;
use rsmreport_report::render::Block;

#[derive(Serialize)]
struct ConsistencyBody {
    n_double: String,
    /// No response has a second human score.
    none_double: bool,
    continuous: bool,
    agreement: Titled,
    degradation: Titled,
    confusion: Option<Titled>,
    disattenuated: Option<Titled>,
}

#[derive(Serialize)]
struct ConsistencyCtx {
    heading: Heading,
    human_column: String,
    second_column: String,
    body: Option<ConsistencyBody>,
}

/// Highlighting of the human-human agreement table.
fn consistency_highlight(col: &str, x: f64) -> Option<String> {
    match col {
        "exact_agr" => outside(x, Some(50.0), None),
        "adj_agr" => outside(x, Some(95.0), None),
        "wtkappa" | "corr" => outside(x, Some(0.7), Some(1.0)),
        _ => None,
    }
}

pub fn consistency(b: &mut Builder) -> Result<Block> {
    let run = b.run;
    let exp = &run.exp;
    let heading = b.heading(2, "Consistency of human scores");
    let body = match (&run.analysis.consistency, b.frame("consistency")) {
        (Some(hh), Some(frame)) => {
            let h = b.heading(3, "Agreement between the two human raters");
            let t = b.table(
                "human human agreement",
                "Agreement between the first and the second human score on the double-scored responses",
                false,
                true,
            );
            let mut table = frame_table(
                t,
                frame,
                &FrameOpts {
                    highlight: &consistency_highlight,
                    ..FrameOpts::default()
                },
            );
            add_row_intervals(b, &mut table, "consistency");
            let agreement = Titled { heading: h, table };
            let degradation = degradation(b, hh);
            let confusion = b.frame("confMatrix_h1h2").map(|f| {
                let heading = b.heading(3, "Confusion matrix of the two human scores");
                let t = b.table(
                    "confusion matrix human human",
                    "Number of double-scored responses for each pair of first (rows) and second (columns) human score",
                    false,
                    true,
                );
                Titled {
                    heading,
                    table: matrix_table(t, f, "first human", "second human"),
                }
            });
            let disattenuated = b.frame("disattenuated_correlations").map(|f| {
                let heading = b.heading(3, "Disattenuated correlations");
                let t = b.table(
                    "disattenuated correlations",
                    "Human-machine correlation corrected for human rating error, by score type",
                    true,
                    true,
                );
                let hl = |c: &str, x: f64| {
                    (c == "corr_disattenuated")
                        .then(|| outside(x, Some(0.9), Some(1.0)))
                        .flatten()
                };
                let mut table = frame_table(
                    t,
                    f,
                    &FrameOpts {
                        index: Some("score type"),
                        highlight: &hl,
                        ..FrameOpts::default()
                    },
                );
                add_row_intervals(b, &mut table, "disattenuated_correlations");
                Titled { heading, table }
            });
            Some(ConsistencyBody {
                n_double: thousands(hh.n as u64),
                none_double: hh.n == 0,
                continuous: continuous_human(b),
                agreement,
                degradation,
                confusion,
                disattenuated,
            })
        }
        _ => None,
    };
    let ctx = ConsistencyCtx {
        heading,
        human_column: exp.human_score_column.clone(),
        second_column: exp.second_human_score_column.clone().unwrap_or_default(),
        body,
    };
    template("sections/consistency.html", &ctx)
}

const DEGRADATION_COLUMNS: [&str; 6] = ["corr", "kappa", "wtkappa", "exact_agr", "adj_agr", "SMD"];

fn block_value(b: &MetricBlock, name: &str) -> f64 {
    match name {
        "corr" => b.corr,
        "kappa" => b.kappa,
        "wtkappa" => b.wtkappa,
        "exact_agr" => b.exact_agr,
        "adj_agr" => b.adj_agr,
        "SMD" => b.diff,
        _ => f64::NAN,
    }
}

/// The degradation table: per score type, the human-human (`H-H`),
/// human-machine (`H-M`) and difference (`diff`) rows.
fn degradation(b: &mut Builder, hh: &MetricBlock) -> Titled {
    let run = b.run;
    let heading = b.heading(3, "Degradation: machine compared with a second human");
    let mut t = b.table(
        "degradation",
        "Human-human (H-H) and human-machine (H-M) agreement and their difference (diff = H-M minus H-H), by score type",
        false,
        true,
    );
    t.class = "grouped".into();
    t.columns.push(head("score type", false));
    t.columns.push(ColumnHead {
        text: "comparison".into(),
        title: "H-H: first vs second human (double-scored responses); H-M: first human vs \
                machine (all responses); diff: H-M minus H-H."
            .into(),
        class: String::new(),
        sub: String::new(),
    });
    for c in DEGRADATION_COLUMNS {
        t.columns.push(head(c, true));
    }
    let frame = b.frame("degradation");
    let diff_cols: Vec<Vec<f64>> = DEGRADATION_COLUMNS
        .iter()
        .map(|c| frame.map_or_else(Vec::new, |f| column_f64(f, c)))
        .collect();
    let hl = |c: &str, x: f64| {
        matches!(c, "corr" | "wtkappa")
            .then(|| outside(x, Some(-0.1), None))
            .flatten()
    };
    for (i, (name, block)) in run.analysis.eval.iter().enumerate() {
        let rows: [(&str, Vec<f64>); 3] = [
            (
                "H-H",
                DEGRADATION_COLUMNS
                    .iter()
                    .map(|c| block_value(hh, c))
                    .collect(),
            ),
            (
                "H-M",
                DEGRADATION_COLUMNS
                    .iter()
                    .map(|c| block_value(block, c))
                    .collect(),
            ),
            (
                "diff",
                diff_cols
                    .iter()
                    .map(|col| col.get(i).copied().unwrap_or(f64::NAN))
                    .collect(),
            ),
        ];
        for (j, (label, values)) in rows.into_iter().enumerate() {
            let mut cells = vec![label_cell(name), text_cell(label)];
            for (c, x) in DEGRADATION_COLUMNS.iter().zip(values) {
                cells.push(metric_cell(x, hl(c, x)));
            }
            t.rows.push(Row {
                cells,
                class: if j == 0 { "group-start" } else { "" }.into(),
            });
        }
    }
    // H-H rows: the consistency intervals; H-M rows: eval; diff rows:
    // degradation.
    add_intervals(b, &mut t, |row| {
        let name = row.cells.first()?.text.clone();
        match row.cells.get(1)?.text.as_str() {
            "H-H" => Some(("consistency".to_string(), String::new())),
            "H-M" => Some(("eval".to_string(), name)),
            "diff" => Some(("degradation".to_string(), name)),
            _ => None,
        }
    });
    // The human-human rows compare whole-point human scores: always shown.
    rounded_only(&mut t, |row| {
        row.cells.get(1).is_some_and(|c| c.text == "H-H")
    });
    Titled { heading, table: t }
}

/// Kappa and the exact and adjacent agreement of the score types that are
/// not rounded show n/a with the reason ([`rounded`]), but not in the rows
/// `keep` names.
fn rounded_only(t: &mut Table, keep: impl Fn(&Row) -> bool) {
    let cols: Vec<(usize, String)> = t
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| (i, c.text.clone()))
        .collect();
    for row in &mut t.rows {
        let score_type = row.cells.first().map_or(String::new(), |c| c.text.clone());
        if keep(row) {
            continue;
        }
        for (i, name) in &cols {
            if rounded::hidden(&score_type, name) {
                if let Some(cell) = row.cells.get_mut(*i) {
                    rounded::mark(cell);
                }
            }
        }
    }
}

#[derive(Serialize)]
struct EvaluationCtx {
    heading: Heading,
    overall_heading: Heading,
    lo: String,
    hi: String,
    /// `none`, `asis`, `raw` or `file`.
    scaling: String,
    scale_file: String,
    x_trim: String,
    x_trim_round: String,
    scaled_word: String,
    continuous: bool,
    descriptive: Option<Titled>,
    association: Option<Titled>,
    confusion: Option<Titled>,
    distribution_heading: Heading,
    distribution_figure: Option<FigureCtx>,
    distribution_table: Option<Table>,
    terms: Vec<Term>,
}

const DESCRIPTIVE_COLUMNS: [&str; 10] = [
    "N", "h_mean", "sys_mean", "h_sd", "sys_sd", "h_min", "sys_min", "h_max", "sys_max", "SMD",
];
const ASSOCIATION_COLUMNS: [&str; 8] = [
    "N",
    "corr",
    "wtkappa",
    "R2",
    "kappa",
    "exact_agr",
    "adj_agr",
    "RMSE",
];

/// The descriptive statistics of human and machine scores by score type.
fn descriptive_table(b: &mut Builder, f: &rsmreport_core::table::Frame) -> Titled {
    let heading = b.heading(4, "Descriptive statistics of human and machine scores");
    let t = b.table(
        "descriptive statistics",
        "Human and machine score statistics by score type",
        true,
        true,
    );
    let hl = |c: &str, x: f64| {
        (c == "SMD")
            .then(|| outside(x, Some(-0.15), Some(0.15)))
            .flatten()
    };
    let mut table = frame_table(
        t,
        f,
        &FrameOpts {
            index: Some("score type"),
            columns: Some(&DESCRIPTIVE_COLUMNS),
            highlight: &hl,
            ..FrameOpts::default()
        },
    );
    add_row_intervals(b, &mut table, "eval");
    Titled { heading, table }
}

/// The association statistics by score type; kappa and the agreement
/// rates only for the rounded types.
fn association_table(b: &mut Builder, f: &rsmreport_core::table::Frame) -> Titled {
    let heading = b.heading(4, "Association statistics");
    let t = b.table(
        "association statistics",
        "Agreement between human and machine scores by score type",
        true,
        true,
    );
    let mut table = frame_table(
        t,
        f,
        &FrameOpts {
            index: Some("score type"),
            columns: Some(&ASSOCIATION_COLUMNS),
            ..FrameOpts::default()
        },
    );
    add_row_intervals(b, &mut table, "eval");
    rounded_only(&mut table, |_| false);
    Titled { heading, table }
}

pub fn evaluation(b: &mut Builder) -> Result<Block> {
    let run = b.run;
    let (exp, p) = (&run.exp, &run.prepared);
    let heading = b.heading(2, "Evaluation results");
    let overall_heading = b.heading(3, "Overall association statistics");
    let eval = b.frame("eval");
    let descriptive = eval.map(|f| descriptive_table(b, f));
    let association = eval.map(|f| association_table(b, f));
    let x_trim_round = p.x_trim_round().name;
    let confusion = b.frame("confMatrix").map(|f| {
        let heading = b.heading(3, "Confusion matrix");
        let t = b.table(
            "confusion matrix",
            &format!("Number of responses for each pair of human score (rows) and {x_trim_round} machine score (columns)"),
            false,
            true,
        );
        Titled {
            heading,
            table: matrix_table(t, f, "human", "machine"),
        }
    });
    let distribution_heading = b.heading(3, "Distribution of human and machine scores");
    let (distribution_figure, distribution_table) = match b.frame("score_dist") {
        Some(f) => {
            let sys = format!("sys_{}", p.primary);
            let data = plots::ScoreDistribution {
                scores: column_f64(f, "score"),
                human: column_f64(f, "human"),
                machine: column_f64(f, &sys),
            };
            let fig = b.figure(plots::score_distribution(&data)?);
            let t = b.table(
                "score distribution",
                "Percentage of responses with each score, human and machine",
                true,
                true,
            );
            let hl = |c: &str, x: f64| {
                (c == "difference")
                    .then(|| outside(x, Some(-5.0), Some(5.0)))
                    .flatten()
            };
            let table = frame_table(
                t,
                f,
                &FrameOpts {
                    counts: &["score"],
                    highlight: &hl,
                    ..FrameOpts::default()
                },
            );
            (Some(fig), Some(table))
        }
        None => (None, None),
    };
    let (scaling, scale_file) = match &exp.scale_with {
        ScaleWith::None => ("none", String::new()),
        ScaleWith::Asis => ("asis", String::new()),
        ScaleWith::Raw => ("raw", String::new()),
        ScaleWith::File(path) => (
            "file",
            path.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        ),
    };
    let terms = [
        "N",
        "corr",
        "wtkappa",
        "kappa",
        "R2",
        "exact_agr",
        "adj_agr",
        "SMD",
        "RMSE",
    ]
    .iter()
    .filter_map(|t| {
        glossary::metric(t).map(|d| Term {
            name: t.to_string(),
            text: d.to_string(),
        })
    })
    .collect();
    let ctx = EvaluationCtx {
        heading,
        overall_heading,
        lo: short(exp.trim_min - exp.trim_tolerance),
        hi: short(exp.trim_max + exp.trim_tolerance),
        scaling: scaling.into(),
        scale_file,
        x_trim: p.x_trim().name.into(),
        x_trim_round: x_trim_round.into(),
        scaled_word: if exp.scaled() { "scaled" } else { "raw" }.into(),
        continuous: continuous_human(b),
        descriptive,
        association,
        confusion,
        distribution_heading,
        distribution_figure,
        distribution_table,
        terms,
    };
    template("sections/evaluation.html", &ctx)
}

#[derive(Serialize)]
struct TrueScoreBody {
    estimated: bool,
    supplied: String,
    variance: Option<Titled>,
    prmse: Titled,
    lo: String,
    hi: String,
    scaled: bool,
}

#[derive(Serialize)]
struct TrueScoreCtx {
    heading: Heading,
    human_column: String,
    second_column: String,
    body: Option<TrueScoreBody>,
}

pub fn true_score(b: &mut Builder) -> Result<Block> {
    let run = b.run;
    let exp = &run.exp;
    let heading = b.heading(3, "True score evaluation");
    let body = match b.frame("true_score_eval") {
        None => None,
        Some(f) => {
            let estimated = exp.rater_error_variance.is_none();
            let variance = estimated.then(|| variance_table(b));
            let heading = b.heading(4, "Proportional reduction in mean squared error (PRMSE)");
            let t = b.table(
                "prmse",
                "How well each machine score type predicts the true score",
                true,
                true,
            );
            let mut table = frame_table(
                t,
                f,
                &FrameOpts {
                    index: Some("score type"),
                    counts: &["N", "N raters", "N single", "N multiple"],
                    ..FrameOpts::default()
                },
            );
            add_row_intervals(b, &mut table, "true_score_eval");
            let prmse = Titled { heading, table };
            Some(TrueScoreBody {
                estimated,
                supplied: match exp.rater_error_variance {
                    Some(Number::Int(v)) => v.to_string(),
                    Some(Number::Float(x)) => format!("{x}"),
                    None => String::new(),
                },
                variance,
                prmse,
                lo: short(exp.trim_min - exp.trim_tolerance),
                hi: short(exp.trim_max + exp.trim_tolerance),
                scaled: exp.scaled(),
            })
        }
    };
    let ctx = TrueScoreCtx {
        heading,
        human_column: exp.human_score_column.clone(),
        second_column: exp.second_human_score_column.clone().unwrap_or_default(),
        body,
    };
    template("sections/true_score_evaluation.html", &ctx)
}

/// The one-row "variance of human scores" table.
fn variance_table(b: &mut Builder) -> Titled {
    let run = b.run;
    let heading = b.heading(4, "Variance of human scores");
    let mut t = b.table(
        "variance of human scores",
        "Variance of the first and second human scores, on all and on the double-scored responses",
        false,
        true,
    );
    let single = run.analysis.eval.first().map(|(_, b)| *b);
    let double = run.analysis.consistency;
    let sq = |x: f64| x * x;
    let cols: [(&str, Cell); 5] = [
        (
            "N_total",
            count_cell(single.map_or(f64::NAN, |b| b.n as f64)),
        ),
        (
            "N_double",
            count_cell(double.map_or(f64::NAN, |b| b.n as f64)),
        ),
        (
            "h1_var (single)",
            metric_cell(single.map_or(f64::NAN, |b| sq(b.h_sd)), None),
        ),
        (
            "h1_var (double)",
            metric_cell(double.map_or(f64::NAN, |b| sq(b.h_sd)), None),
        ),
        (
            "h2_var (double)",
            metric_cell(double.map_or(f64::NAN, |b| sq(b.sys_sd)), None),
        ),
    ];
    t.columns.push(head("", false));
    let mut cells = vec![label_cell("human")];
    for (name, cell) in cols {
        t.columns.push(head(name, true));
        cells.push(cell);
    }
    t.rows.push(Row {
        cells,
        class: String::new(),
    });
    Titled { heading, table: t }
}
