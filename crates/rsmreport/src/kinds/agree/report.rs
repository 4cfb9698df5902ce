//! Command assembly (agree): the agreement report through the report
//! engine (`spec/agreement.md` 3, 4, 6): the coefficients with intervals
//! and interpretation, the scales side by side, the pairwise table and
//! heat map, the per-category table and label distributions (the blocks
//! `build`'s rater sections show too: `crate::kinds::common::agreement`),
//! then agree's own: the classification view with its confusion
//! matrices, each subgroup's headline coefficients, and the data
//! description. Values are formatted here; the engine only places them
//! (and escapes every string).
//!
//! Produces a [`Report`] value; writes nothing and computes no statistic.

use super::tables::{self, headline, tile_name};
use crate::analysis::agreement::run::Agreement;
use crate::kinds::common::agreement::{
    categories_blocks, classification_tables, coefficients_blocks, pairs_blocks, reference_support,
    scale_name, value_cell,
};
use rsmreport_config::agree::AgreeConfig;
use rsmreport_core::table::{text_values, Column, Frame, Values};
use rsmreport_report::render::context::{Cell, Glance, InputCtx, Row};
use rsmreport_report::render::format::{escape_html, num3};
use rsmreport_report::render::tables::{
    count_cell, head, matrix_table, most_frequent, text_cell, MAX_FIGURE_CATEGORIES,
};
use rsmreport_report::render::{Block, Header, Section};
use rsmreport_report::render::{Builder, Report};

fn classification_blocks(b: &mut Builder, a: &Agreement, cfg: &AgreeConfig) -> Vec<Block> {
    let s = &a.overall;
    let reference = cfg.reference_column.as_deref().unwrap_or("");
    let mut out = vec![Block::Heading(b.heading(2, "Against the reference"))];
    out.push(Block::Paragraph(format!(
        "Each rater's labels against the reference column {reference}, each label a class, as \
         scikit-learn computes them (a precision or recall of 0/0 counts as 0: zero_division = \
         0)."
    )));
    out.extend(classification_tables(
        b,
        &s.classification,
        &a.ratings.categories,
        cfg.level != rsmreport_metrics::raters::alpha::Level::Nominal,
        "rater",
    ));
    out.push(Block::Heading(b.heading(3, "Confusion matrices")));
    let q = a.ratings.categories.labels.len();
    let shown = most_frequent(
        &reference_support(&s.classification, q),
        MAX_FIGURE_CATEGORIES,
    );
    if shown.len() < q {
        out.push(Block::Paragraph(format!(
            "The matrices show the rows and columns of the {} labels the reference gives most \
             often, of {q}; every label's precision, recall and support are in the output file \
             classification.",
            shown.len()
        )));
    }
    for c in &s.classification {
        let t = b.table(
            &format!("confusion {}", c.rater),
            &format!(
                "Items by reference label (rows) and {}'s label (columns).",
                c.rater
            ),
            false,
            false,
        );
        let frame = confusion_frame(&c.confusion, &a.ratings.categories.labels, &shown);
        out.push(Block::Table(matrix_table(t, &frame, reference, &c.rater)));
    }
    out
}

/// A confusion matrix (sorted sparse cells) as a frame, the categories
/// `shown` only: the labels as index and columns.
fn confusion_frame(c: &[(u32, u32, f64)], labels: &[String], shown: &[usize]) -> Frame {
    let cell = |k: usize, l: usize| {
        let key = (k as u32, l as u32);
        c.binary_search_by(|e| (e.0, e.1).cmp(&key))
            .map_or(0, |i| c[i].2 as i64)
    };
    let index = text_values(shown.iter().map(|&k| Some(labels[k].clone())));
    let columns = shown
        .iter()
        .map(|&l| {
            let v = shown.iter().map(|&k| cell(k, l)).collect();
            Column::new(labels[l].clone(), Values::Int(v))
        })
        .collect();
    Frame::new("confusion", Some(index), columns)
}

fn subgroup_blocks(b: &mut Builder, a: &Agreement, cfg: &AgreeConfig) -> Vec<Block> {
    let mut out = vec![Block::Heading(b.heading(2, "By subgroup"))];
    for (g, scopes) in &a.groups {
        out.push(Block::Heading(b.heading(3, g)));
        let mut t = b.table(
            &format!("agreement by {g}"),
            &format!(
                "The headline coefficients for each level of {g} (every table of each level is \
                 in the output folder, as *_by_{g})."
            ),
            true,
            true,
        );
        t.columns = ["level", "items", "coefficient", "value", "interpretation"]
            .iter()
            .enumerate()
            .map(|(i, n)| head(n, i == 1 || i == 3))
            .collect();
        for s in scopes {
            for i in headline(s, cfg) {
                let r = &s.rows[i];
                t.rows.push(Row {
                    cells: vec![
                        Cell {
                            header: true,
                            ..text_cell(&s.label)
                        },
                        count_cell(s.summary.n_rows as f64),
                        text_cell(&format!("{} ({})", r.coefficient, r.weights)),
                        value_cell(r.estimate.value, r.estimate.lower, r.estimate.upper),
                        text_cell(s.interpretation[i].unwrap_or("")),
                    ],
                    class: String::new(),
                });
            }
        }
        out.push(Block::Table(t));
    }
    out
}

fn description_blocks(b: &mut Builder, a: &Agreement) -> Vec<Block> {
    let s = &a.overall;
    let mut t = b.table(
        "data_description",
        "The annotations: items, raters, ratings, missing ratings, and which categories were \
         used.",
        false,
        true,
    );
    t.columns = vec![head("statistic", false), head("value", false)];
    t.rows = tables::description_rows(s, &a.ratings.categories.labels)
        .into_iter()
        .map(|(k, v)| Row {
            cells: vec![
                Cell {
                    header: true,
                    ..text_cell(&k.replace('_', " "))
                },
                // Counts for people (`1,314`); category labels as given.
                text_cell(&match k.starts_with("categories_") {
                    true => v,
                    false => rsmreport_report::render::format::leading_count(&v),
                }),
            ],
            class: String::new(),
        })
        .collect();
    vec![
        Block::Heading(b.heading(2, "Data description")),
        Block::Table(t),
    ]
}

fn header(
    a: &Agreement,
    cfg: &AgreeConfig,
    gates: &[crate::gates::Outcome],
    inputs: Vec<InputCtx>,
    epoch: i64,
) -> Header {
    let s = &a.overall;
    let level = cfg.intervals.map_or(0.95, |i| i.level);
    let glance = headline(s, cfg)
        .into_iter()
        .map(|i| {
            let r = &s.rows[i];
            let e = &r.estimate;
            let label = s.interpretation[i].unwrap_or("");
            let ci = if e.lower.is_finite() && e.upper.is_finite() {
                format!(
                    "{}% CI [{}, {}]",
                    level * 100.0,
                    num3(e.lower),
                    num3(e.upper)
                )
            } else {
                String::new()
            };
            Glance {
                label: tile_name(r.coefficient, r.weights),
                value: num3(e.value),
                title: format!("{label} on the {} scale", scale_name(cfg.interpretation)),
                ci: match (label.is_empty(), ci.is_empty()) {
                    (true, _) => ci,
                    (false, true) => label.to_string(),
                    (false, false) => format!("{label} · {ci}"),
                },
            }
        })
        .collect();
    Header {
        intro_html: format!(
            "How well <strong>{}</strong> raters agree on <strong>{}</strong> items of \
             <strong>{}</strong>: every agreement coefficient with its interval.",
            s.n_raters,
            s.summary.n_rows,
            escape_html(&cfg.annotations_file)
        ),
        decision: Some(tables::decision(s, cfg, gates)),
        glance,
        inputs,
        config: Some(rsmreport_report::render::ConfigCtx {
            path: cfg.origin.display().to_string(),
            json: serde_json::to_string_pretty(&tables::settings_json(cfg))
                .expect("JSON of plain values"),
        }),
        ..Header::new("Agreement report", cfg.experiment_id.clone(), epoch)
    }
}

/// The agreement report.
pub fn report(
    a: &Agreement,
    cfg: &AgreeConfig,
    gates: &[crate::gates::Outcome],
    inputs: Vec<InputCtx>,
    epoch: i64,
) -> anyhow::Result<Report> {
    let mut b = Builder::new(&cfg.experiment_id, false);
    let panels: Vec<_> = crate::kinds::common::gates::panel(&mut b, gates, "run")
        .into_iter()
        .collect();
    let mut names = vec!["coefficients", "pairs", "categories"];
    if cfg.reference_column.is_some() {
        names.push("classification");
    }
    if !a.groups.is_empty() {
        names.push("by_subgroup");
    }
    names.push("data_description");
    let ids = b.section_ids(names.iter().copied());
    let mut blocks = Vec::new();
    for name in &names {
        blocks.push(match *name {
            "coefficients" => coefficients_blocks(&mut b, a, cfg, 2),
            "pairs" => pairs_blocks(&mut b, a, cfg, 2)?,
            "categories" => categories_blocks(&mut b, a, 2)?,
            "classification" => classification_blocks(&mut b, a, cfg),
            "by_subgroup" => subgroup_blocks(&mut b, a, cfg),
            _ => description_blocks(&mut b, a),
        });
    }
    let sections = names
        .iter()
        .zip(ids)
        .zip(blocks)
        .map(|((name, id), blocks)| Section {
            id,
            name: name.to_string(),
            kind: "builtin".into(),
            blocks,
        })
        .collect();
    Ok(b.finish(header(a, cfg, gates, inputs, epoch), panels, sections, &[]))
}
