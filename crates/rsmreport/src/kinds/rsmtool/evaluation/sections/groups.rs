//! The `build` report: the subgroup sections `evaluation_by_group` (spec 5.9,
//! figure 6.2) and `fairness_analyses` (5.10, figures 6.3 and 6.4): which
//! groups are shown (`min_n_per_group`), in which order, and the figure
//! inputs. Reads frames and typed results; no I/O, no rendering.

use std::collections::BTreeMap;

use anyhow::Result;
use serde::Serialize;

use super::add_row_intervals;
use crate::kinds::evaluation::report::Builder;
use rsmreport_core::schema::{ALL_DATA, NO_INFO};
use rsmreport_metrics::fairness::{EstimateRow, FairnessResult};
use rsmreport_report::plots;
use rsmreport_report::render::context::{ColumnHead, FigureCtx, Heading, Row, Table};
use rsmreport_report::render::format::thousands;
use rsmreport_report::render::glossary;
use rsmreport_report::render::tables::{
    column_f64, count_cell, head, index_labels, label_cell, metric_cell, outside, text_cell,
};
use rsmreport_report::render::template;
use rsmreport_report::render::Block;

#[derive(Serialize)]
struct EvalGroupCtx {
    name: String,
    heading: Heading,
    min_n: Option<String>,
    /// No group other than `All data` reached the threshold.
    empty: bool,
    figure: Option<FigureCtx>,
    table: Option<Table>,
}

#[derive(Serialize)]
struct EvalByGroupCtx {
    x_trim: String,
    groups: Vec<EvalGroupCtx>,
}

/// The six panels of figure 6.2, for the `X_trim` family.
fn panel_columns(x_trim: &str, x_trim_round: &str) -> [String; 6] {
    [
        format!("DSM.{x_trim}"),
        format!("DSM.{x_trim_round}"),
        format!("R2.{x_trim}"),
        format!("RMSE.{x_trim}"),
        format!("corr.{x_trim}"),
        format!("wtkappa.{x_trim}"),
    ]
}

/// Rows of a by-group table to show, in display order: `All data` first,
/// then the groups with at least `m` responses in table order, `No info`
/// last.
pub fn shown_rows(labels: &[String], n: &[f64], m: u64) -> Vec<usize> {
    let keep = |i: usize| m == 0 || n.get(i).is_some_and(|&x| x >= m as f64);
    let mut rows: Vec<usize> = labels
        .iter()
        .position(|l| l == ALL_DATA)
        .into_iter()
        .collect();
    rows.extend(
        (0..labels.len()).filter(|&i| labels[i] != ALL_DATA && labels[i] != NO_INFO && keep(i)),
    );
    rows.extend((0..labels.len()).filter(|&i| labels[i] == NO_INFO && keep(i)));
    rows
}

/// The error bars of the by-group figure: for each panel column, the
/// interval of each shown row (NaN where there is none); empty without
/// intervals.
fn group_intervals(
    b: &Builder,
    group: &str,
    columns: &[String],
    rows: &[usize],
    labels: &[String],
) -> Vec<Vec<(f64, f64)>> {
    let Some(results) = &b.run.intervals else {
        return Vec::new();
    };
    let source = format!("eval_by_{group}");
    columns
        .iter()
        .map(|c| {
            rows.iter()
                .map(|&i| {
                    results
                        .get(&source, &labels[i], c)
                        .map_or((f64::NAN, f64::NAN), |r| {
                            (r.interval.lower, r.interval.upper)
                        })
                })
                .collect()
        })
        .collect()
}

pub fn evaluation_by_group(b: &mut Builder) -> Result<Block> {
    let run = b.run;
    let p = &run.prepared;
    let x_trim = p.x_trim().name;
    let panels = panel_columns(x_trim, p.x_trim_round().name);
    let mut groups = Vec::new();
    for g in &p.groups {
        let Some(f) = b.frame(&format!("eval_by_{}", g.name)) else {
            continue;
        };
        let heading = b.heading(3, format!("Evaluation by {}", g.name));
        let m = run.exp.min_n_for(&g.name);
        let labels = index_labels(f);
        let n = column_f64(f, "N");
        let rows = shown_rows(&labels, &n, m);
        let empty = !rows.iter().any(|&i| labels[i] != ALL_DATA);
        let (figure, table) = if empty {
            (None, None)
        } else {
            let values: Vec<Vec<f64>> = panels.iter().map(|c| column_f64(f, c)).collect();
            let data = plots::EvalByGroup {
                group: g.name.clone(),
                x_trim: x_trim.to_string(),
                labels: rows.iter().map(|&i| labels[i].clone()).collect(),
                panels: panels
                    .iter()
                    .zip(&values)
                    .map(|(c, v)| (c.clone(), rows.iter().map(|&i| v[i]).collect()))
                    .collect(),
                intervals: group_intervals(b, &g.name, &panels, &rows, &labels),
            };
            let figure = b.figure(plots::eval_by_group(&data)?);
            let mut t = b.table(
                &format!("evaluation by {}", g.name),
                &format!("Key metrics for each value of {} ({x_trim} scores)", g.name),
                true,
                true,
            );
            t.columns.push(ColumnHead {
                text: g.name.clone(),
                title: format!("Value of {}.", g.name),
                class: String::new(),
                sub: String::new(),
            });
            t.columns.push(head("N", true));
            for c in &panels {
                t.columns.push(head(c, true));
            }
            for &i in &rows {
                let mut cells = vec![label_cell(&labels[i]), count_cell(n[i])];
                for (c, v) in panels.iter().zip(&values) {
                    let x = v[i];
                    let why = if c.starts_with("DSM.") {
                        outside(x, Some(-0.1), Some(0.1))
                    } else if c.starts_with("corr.") || c.starts_with("wtkappa.") {
                        outside(x, Some(0.7), None)
                    } else {
                        None
                    };
                    cells.push(metric_cell(x, why));
                }
                t.rows.push(Row {
                    cells,
                    class: if labels[i] == ALL_DATA {
                        "all-data"
                    } else {
                        ""
                    }
                    .into(),
                });
            }
            add_row_intervals(b, &mut t, &format!("eval_by_{}", g.name));
            (Some(figure), Some(t))
        };
        groups.push(EvalGroupCtx {
            name: g.name.clone(),
            heading,
            min_n: (m > 0).then(|| thousands(m)),
            empty,
            figure,
            table,
        });
    }
    template(
        "sections/evaluation_by_group.html",
        &EvalByGroupCtx {
            x_trim: x_trim.to_string(),
            groups,
        },
    )
}

#[derive(Serialize)]
struct FairGroupCtx {
    name: String,
    heading: Heading,
    base: String,
    metrics_table: Table,
    min_n: Option<String>,
    /// At least one category is shown in the figures.
    shown: bool,
    estimates_figure: Option<FigureCtx>,
    conditional_figure: Option<FigureCtx>,
    estimates_tables: Vec<Table>,
}

#[derive(Serialize)]
struct FairnessCtx {
    heading: Heading,
    x_trim: String,
    files_section: bool,
    groups: Vec<FairGroupCtx>,
}

/// The categories of a fairness figure: values with at least `m`
/// responses (all when `m` is 0), by descending count (the coding order).
pub fn shown_categories(result: &FairnessResult, m: u64) -> Vec<String> {
    result
        .levels
        .iter()
        .filter(|(_, n)| m == 0 || *n as u64 >= m)
        .map(|(l, _)| l.clone())
        .collect()
}

/// Bars of one fairness panel: the intercept row, then the shown
/// categories in table order.
fn bars(rows: &[EstimateRow], shown: &[String]) -> Vec<plots::EstimateBar> {
    rows.iter()
        .enumerate()
        .filter(|(i, r)| *i == 0 || shown.contains(&r.label))
        .map(|(_, r)| plots::EstimateBar {
            label: r.label.clone(),
            value: r.adjusted,
            half_width: r.half_width,
        })
        .collect()
}

/// Figure 6.4's data: mean machine score per human score, one series per
/// shown category.
pub fn conditional_data(
    group: &str,
    x_trim: &str,
    result: &FairnessResult,
    shown: &[String],
) -> plots::ConditionalScores {
    let mut human_scores: Vec<f64> = Vec::new();
    let mut cells: BTreeMap<(&str, u64), (f64, f64, usize)> = BTreeMap::new();
    for c in &result.conditional {
        if human_scores.last() != Some(&c.human) && !human_scores.contains(&c.human) {
            human_scores.push(c.human);
        }
        cells.insert(
            (c.group.as_str(), c.human.to_bits()),
            (c.mean, c.half_width, c.n),
        );
    }
    human_scores.sort_by(f64::total_cmp);
    let series = shown
        .iter()
        .map(|g| {
            let points = human_scores
                .iter()
                .map(|h| {
                    cells.get(&(g.as_str(), h.to_bits())).copied().unwrap_or((
                        f64::NAN,
                        f64::NAN,
                        0,
                    ))
                })
                .collect();
            (g.clone(), points)
        })
        .collect();
    plots::ConditionalScores {
        group: group.to_string(),
        y_label: x_trim.to_string(),
        human_scores,
        series,
        y_limits: None,
        min_n: 0,
    }
}

pub fn fairness(b: &mut Builder) -> Result<Block> {
    let run = b.run;
    let x_trim = run.prepared.x_trim().name;
    let heading = b.heading(2, "Additional fairness analyses");
    let mut groups = Vec::new();
    for (g, result) in &run.analysis.fairness {
        let heading = b.heading(3, format!("Additional fairness evaluation by {g}"));
        let metrics_table = metrics_table(b, g, result);
        let m = run.exp.min_n_for(g);
        let shown = shown_categories(result, m);
        let (estimates_figure, conditional_figure) = if shown.is_empty() {
            (None, None)
        } else {
            let est = plots::FairnessEstimates {
                group: g.clone(),
                models: [
                    ("osa", &result.osa),
                    ("osd", &result.osd),
                    ("csd", &result.csd),
                ]
                .into_iter()
                .map(|(name, rows)| (name.to_string(), bars(rows, &shown)))
                .collect(),
            };
            let e = b.figure(plots::fairness_estimates(&est)?);
            let mut cond = conditional_data(g, x_trim, result, &shown);
            // The score range with a margin of one score point.
            let exp = &run.exp;
            cond.y_limits = Some((exp.trim_min - 1.0, exp.trim_max + 1.0));
            cond.min_n = usize::try_from(m).unwrap_or(usize::MAX);
            let c = b.figure(plots::conditional_scores(&cond)?);
            (Some(e), Some(c))
        };
        let estimates_tables = [
            ("osa", "overall score accuracy", &result.osa),
            ("osd", "overall score difference", &result.osd),
            ("csd", "conditional score difference", &result.csd),
        ]
        .into_iter()
        .map(|(model, what, rows)| estimates_table(b, g, model, what, rows))
        .collect();
        groups.push(FairGroupCtx {
            name: g.clone(),
            heading,
            base: result.base_category.clone(),
            metrics_table,
            min_n: (m > 0).then(|| thousands(m)),
            shown: !shown.is_empty(),
            estimates_figure,
            conditional_figure,
            estimates_tables,
        });
    }
    template(
        "sections/fairness_analyses.html",
        &FairnessCtx {
            heading,
            x_trim: x_trim.to_string(),
            files_section: run.exp.has_section("intermediate_file_paths"),
            groups,
        },
    )
}

fn metrics_table(b: &mut Builder, g: &str, result: &FairnessResult) -> Table {
    let mut t = b.table(
        &format!("fairness metrics by {g}"),
        &format!(
            "Variance explained by {g} (R2) and its p value (sig) in the three fairness models"
        ),
        true,
        true,
    );
    t.columns.push(ColumnHead {
        text: String::new(),
        title: String::new(),
        class: String::new(),
        sub: String::new(),
    });
    for c in ["OSA", "OSD", "CSD"] {
        t.columns.push(head(c, true));
    }
    let m = &result.metrics;
    for (label, title, values) in [
        (
            "R2",
            "Share of the variance explained by the group (adjusted R2; for CSD, the increase over the model with the human score only).",
            [m.osa_r2, m.osd_r2, m.csd_r2],
        ),
        (
            "sig",
            "p value of the F test: the probability of differences at least this large if the group made no difference.",
            [m.osa_sig, m.osd_sig, m.csd_sig],
        ),
    ] {
        let mut cells = vec![label_cell(label)];
        cells[0].title = title.into();
        cells.extend(values.iter().map(|&x| metric_cell(x, None)));
        t.rows.push(Row {
            cells,
            class: String::new(),
        });
    }
    t
}

fn estimates_table(
    b: &mut Builder,
    g: &str,
    model: &str,
    what: &str,
    rows: &[EstimateRow],
) -> Table {
    let mut t = b.table(
        &format!("estimates {model} by {g}"),
        &format!(
            "{} model ({what}): coefficients by {g}",
            model.to_uppercase()
        ),
        true,
        true,
    );
    t.columns.push(ColumnHead {
        text: g.to_string(),
        title: format!("Value of {g}; the intercept row is the reference group."),
        class: String::new(),
        sub: String::new(),
    });
    for c in ["estimate", "CI low", "CI high", "p value"] {
        t.columns.push(ColumnHead {
            text: c.into(),
            title: glossary::metric(c).unwrap_or("").into(),
            class: "num".into(),
            sub: String::new(),
        });
    }
    for r in rows {
        let mut cells = vec![text_cell(&r.label)];
        cells[0].header = true;
        for x in [r.estimate, r.ci_low, r.ci_high, r.p_value] {
            cells.push(metric_cell(x, None));
        }
        t.rows.push(Row {
            cells,
            class: String::new(),
        });
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsmreport_metrics::fairness::fairness_analysis;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn shown_rows_put_all_data_first_and_no_info_last() {
        let labels = s(&["All data", "No info", "b", "a"]);
        let n = [100.0, 40.0, 5.0, 55.0];
        assert_eq!(shown_rows(&labels, &n, 0), [0, 2, 3, 1]);
        assert_eq!(shown_rows(&labels, &n, 10), [0, 3, 1]);
        assert_eq!(shown_rows(&labels, &n, 55), [0, 3]);
        assert_eq!(shown_rows(&labels, &n, 1000), [0]);
    }

    #[test]
    fn fairness_figure_inputs() {
        let labels = s(&["small", "big", "mid"]);
        let codes = [1u32, 1, 1, 1, 2, 2, 2, 0, 1, 2];
        let human = [1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 1.0, 2.0, 2.0, 1.0];
        let system = [1.2, 2.1, 2.7, 1.4, 2.2, 2.9, 1.1, 2.5, 2.0, 1.3];
        let r = fairness_analysis(&codes, &labels, &human, &system);
        assert_eq!(shown_categories(&r, 0), s(&["big", "mid", "small"]));
        let shown = shown_categories(&r, 2);
        assert_eq!(shown, s(&["big", "mid"]));
        let bars = bars(&r.osd, &shown);
        let names: Vec<&str> = bars.iter().map(|b| b.label.as_str()).collect();
        assert_eq!(names, ["Intercept (big)", "mid"]);
        let c = conditional_data("grp", "raw_trim", &r, &shown);
        assert_eq!(c.human_scores, [1.0, 2.0, 3.0]);
        assert_eq!(c.series.len(), 2);
        assert_eq!(c.series[0].0, "big");
        // "mid" has rows with human scores 2, 3, 1 and 1.
        let mid = &c.series[1].1;
        assert_eq!(mid.iter().map(|p| p.2).collect::<Vec<_>>(), [2, 1, 1]);
        let c = conditional_data("grp", "raw_trim", &r, &s(&["small"]));
        let small = &c.series[0].1;
        assert!(small[0].0.is_nan() && small[0].2 == 0);
        assert_eq!(small[1].2, 1);
    }
}
