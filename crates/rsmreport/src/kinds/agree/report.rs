//! Command assembly (agree): the agreement report through the report
//! engine (`spec/agreement.md` 3, 4, 6): coefficients with intervals and
//! interpretation, the scales side by side, the pairwise table and heat
//! map, the per-category table and label distributions, the
//! classification view, each subgroup's headline coefficients, and the
//! data description. Values are formatted here; the engine only places
//! them (and escapes every string).
//!
//! Produces a [`Report`] value; writes nothing and computes no statistic.

use super::tables::{self, headline, row_benchmark, scale_name, tile_name, verdict};
use crate::analysis::agreement::labels::Categories;
use crate::analysis::agreement::run::{Agreement, PairRow, RaterClassification, Scope};
use crate::analysis::agreement::tables as agreement_tables;
use rsmreport_config::agree::AgreeConfig;
use rsmreport_core::table::{text_values, Column, Frame, Values};
use rsmreport_metrics::raters::scales::Scale;
use rsmreport_report::plots::{kappa_heatmap, label_distribution, KappaMatrix, LabelDistribution};
use rsmreport_report::render::context::{Cell, Glance, InputCtx, Row, Table};
use rsmreport_report::render::format::{escape_html, num3};
use rsmreport_report::render::tables::{
    count_cell, frame_table, head, matrix_table, text_cell, FrameOpts,
};
use rsmreport_report::render::{Block, Header, Section};
use rsmreport_report::render::{Builder, Report};

fn value_cell(x: f64, lower: f64, upper: f64) -> Cell {
    rsmreport_report::render::tables::interval_cell(x, Some((lower, upper)))
}

fn coefficient_table(b: &mut Builder, s: &Scope, cfg: &AgreeConfig) -> Table {
    let mut t = b.table(
        "agreement",
        &format!(
            "Every coefficient with its interval, the number of items it uses, its label on the \
             {} scale, and irrCAC's probabilistic benchmark on that scale: the highest level \
             that the coefficient reaches with probability 0.95 or more, given its standard \
             error (blank without a standard error).",
            scale_name(cfg.interpretation)
        ),
        true,
        true,
    );
    t.columns = [
        ("coefficient", false),
        ("weights", false),
        ("value", true),
        ("se", true),
        ("n_items", true),
        ("interpretation", false),
        ("benchmark (95%)", false),
    ]
    .iter()
    .map(|(n, num)| head(n, *num))
    .collect();
    t.rows = s
        .rows
        .iter()
        .zip(&s.interpretation)
        .map(|(r, l)| Row {
            cells: vec![
                Cell {
                    header: true,
                    ..text_cell(r.coefficient)
                },
                text_cell(r.weights),
                value_cell(r.estimate.value, r.estimate.lower, r.estimate.upper),
                value_cell(r.estimate.se, f64::NAN, f64::NAN),
                count_cell(r.n_items),
                text_cell(l.unwrap_or("")),
                text_cell(row_benchmark(cfg.interpretation, r).label.unwrap_or("")),
            ],
            class: String::new(),
        })
        .collect();
    t
}

/// The tests of no agreement beyond chance (`<id>_agreement_tests`).
fn tests_table(b: &mut Builder, s: &Scope) -> Table {
    let t = b.table(
        "agreement_tests",
        "Tests of no agreement beyond chance, as the reference packages report them: z with \
         the standard error under that hypothesis (Cohen's kappa as statsmodels, Fleiss' kappa \
         on complete items as R irr; two-sided p), and the F test of each ICC (pingouin). A \
         small p says only that agreement is above chance, not that it is good: read the \
         coefficient and its interval.",
        true,
        true,
    );
    let opts = FrameOpts {
        counts: &["df1", "df2"],
        p_values: &["p_value"],
        ..FrameOpts::default()
    };
    frame_table(t, &agreement_tables::tests_frame(s), &opts)
}

fn scales_table(b: &mut Builder) -> Table {
    let mut t = b.table(
        "interpretation scales",
        "The interpretation scales side by side: each level starts at the value shown.",
        false,
        false,
    );
    t.columns = vec![head("scale", false), head("levels", false)];
    t.rows = Scale::ALL
        .iter()
        .map(|&s| {
            let levels: Vec<String> = s
                .levels()
                .iter()
                .map(|(lo, name)| {
                    if *lo <= -1.0 {
                        name.to_string()
                    } else {
                        format!("≥ {lo}: {name}")
                    }
                })
                .collect();
            Row {
                cells: vec![
                    Cell {
                        header: true,
                        ..text_cell(&format!("{} ({})", scale_name(s), s.key()))
                    },
                    text_cell(&levels.join("; ")),
                ],
                class: String::new(),
            }
        })
        .collect();
    t
}

fn intervals_text(cfg: &AgreeConfig) -> String {
    match &cfg.intervals {
        None => "Intervals are switched off (intervals = false).".into(),
        Some(iv) => format!(
            "Intervals are {}% intervals of sampling uncertainty over items (not rater error). \
             Krippendorff's alpha: bootstrap percentile interval over the items with two or more \
             ratings ({} replicates, seed {}), its standard error the replicates' standard \
             deviation. The chance-corrected coefficients: Gwet's linearised standard error with \
             a t interval clipped at 1 (irrCAC); Cohen's kappa: the Fleiss-Cohen-Everitt \
             standard error with a normal interval; ICC: the F-based interval at {}% \
             (pingouin's at 95%). Fleiss' kappa on complete items and Randolph's kappa are statsmodels' values, \
             given without standard error as statsmodels gives them; the rows fleiss_kappa and \
             brennan_prediger are the same coefficients as irrCAC computes them (equal on \
             complete data, missing ratings allowed) with their standard errors and intervals.",
            iv.level * 100.0,
            rsmreport_report::render::format::thousands(iv.replicates),
            iv.seed,
            iv.level * 100.0
        ),
    }
}

/// The coefficients with their intervals and labels, and the scales side
/// by side; headings at `depth` (2 in `agree`'s report, 3 inside a
/// `build` section).
pub fn coefficients_blocks(
    b: &mut Builder,
    a: &Agreement,
    cfg: &AgreeConfig,
    depth: u8,
) -> Vec<Block> {
    let s = &a.overall;
    let mut out = vec![Block::Heading(b.heading(depth, "Agreement coefficients"))];
    out.extend(s.notes.iter().map(|n| Block::Warning(n.clone())));
    out.push(Block::Paragraph(format!(
        "{} raters gave {} ratings to {} items ({} items have two or more ratings). Level of \
         measurement: {}. {}",
        s.n_raters,
        rsmreport_report::render::format::thousands(s.summary.n_ratings),
        rsmreport_report::render::format::thousands(s.summary.n_rows as u64),
        rsmreport_report::render::format::thousands(s.summary.n_items_pairable),
        cfg.level.name(),
        intervals_text(cfg)
    )));
    out.push(Block::Table(coefficient_table(b, s, cfg)));
    if s.rows.iter().any(|r| r.test.is_some()) {
        out.push(Block::Heading(b.heading(depth + 1, "Tests against chance")));
        out.push(Block::Table(tests_table(b, s)));
    }
    out.push(Block::Heading(
        b.heading(depth + 1, "Interpretation scales"),
    ));
    out.push(Block::Paragraph(format!(
        "The labels above use the {} scale (interpretation = \"{}\"). Labels are conventions, \
         not tests: read them with the interval.",
        scale_name(cfg.interpretation),
        cfg.interpretation.key()
    )));
    out.push(Block::Table(scales_table(b)));
    out
}

/// The pairwise table and the kappa heat map of every rater of
/// `a.ratings`; headings at `depth`.
pub fn pairs_blocks(
    b: &mut Builder,
    a: &Agreement,
    cfg: &AgreeConfig,
    depth: u8,
) -> anyhow::Result<Vec<Block>> {
    let s = &a.overall;
    let mut out = vec![Block::Heading(b.heading(depth, "Pairs of raters"))];
    if s.pairs.is_empty() {
        out.push(Block::Paragraph(
            "The counts layout does not say which rater gave which label, so there are no pairs."
                .into(),
        ));
        return Ok(out);
    }
    let weighted = cfg.level != rsmreport_metrics::raters::alpha::Level::Nominal;
    let frame = agreement_tables::pairs_frame(s, weighted);
    let t = b.table(
        "agreement_pairs",
        "Every pair of raters on the items both rated: exact agreement and Cohen's kappa with \
         its standard error and interval (and weighted kappas and Pearson's r above the \
         nominal level).",
        true,
        true,
    );
    let opts = FrameOpts {
        counts: &["n"],
        ..FrameOpts::default()
    };
    out.push(Block::Table(frame_table(t, &frame, &opts)));
    let n = a.ratings.raters.len();
    let mut values = vec![f64::NAN; n * n];
    // Ordered scores: the quadratic-weighted kappa, as the headline
    // coefficients (and build's QWK) weigh them; labels: unweighted.
    let (kappa, statistic): (fn(&PairRow) -> f64, &str) = match weighted {
        true => (|p| p.kappa_quadratic, "quadratic-weighted Cohen's kappa"),
        false => (|p| p.kappa, "Cohen's kappa"),
    };
    for p in &s.pairs {
        let i = a.ratings.raters.iter().position(|r| *r == p.rater_1);
        let j = a.ratings.raters.iter().position(|r| *r == p.rater_2);
        if let (Some(i), Some(j)) = (i, j) {
            values[i * n + j] = kappa(p);
            values[j * n + i] = kappa(p);
        }
    }
    let fig = kappa_heatmap(&KappaMatrix {
        raters: a.ratings.raters.clone(),
        values,
        statistic: statistic.into(),
    })?;
    out.push(Block::Figure(b.figure(fig)));
    Ok(out)
}

use rsmreport_report::render::tables::{
    most_frequent, MAX_FIGURE_CATEGORIES, MAX_SHOWN_CATEGORIES,
};

/// The note above tables that leave categories out.
fn left_out_note(q: usize, tables: usize, figures: usize, what: &str, files: &str) -> String {
    format!(
        "There are {q} categories: the tables in this section show the {tables} {what} and the \
         figure the {figures} {what}, leaving out the others (every category is in the output \
         files {files})."
    )
}

/// `f` with rows `rows` only.
fn take_rows(f: &Frame, rows: &[usize]) -> Frame {
    let columns = f
        .columns
        .iter()
        .map(|c| Column::new(c.name.clone(), c.values.take(rows)))
        .collect();
    Frame::new(
        f.name.clone(),
        f.index.as_ref().map(|i| i.take(rows)),
        columns,
    )
}

/// The per-category table and the label distributions (table and
/// figure); headings at `depth`. With more than
/// [`MAX_SHOWN_CATEGORIES`] categories, the most frequent ones (the files
/// keep every one).
pub fn categories_blocks(b: &mut Builder, a: &Agreement, depth: u8) -> anyhow::Result<Vec<Block>> {
    let s = &a.overall;
    let labels = &a.ratings.categories.labels;
    let mut out = vec![Block::Heading(b.heading(depth, "Categories"))];
    let totals: Vec<f64> = (0..labels.len())
        .map(|k| {
            s.distribution
                .iter()
                .map(|(_, c)| c.get(k).copied().unwrap_or(0.0))
                .sum()
        })
        .collect();
    let shown = most_frequent(&totals, MAX_SHOWN_CATEGORIES);
    let in_figure = most_frequent(&totals, MAX_FIGURE_CATEGORIES);
    if shown.len() < labels.len() {
        out.push(Block::Note(left_out_note(
            labels.len(),
            shown.len(),
            in_figure.len(),
            "with the most ratings",
            "agreement_by_category and label_distribution",
        )));
    }
    let t = b.table(
        "agreement_by_category",
        "Per category: Fleiss' kappa for that category (items every rater rated), its share of \
         all ratings, and specific agreement (the share of agreeing pairs among the pairs of \
         ratings that involve it).",
        true,
        true,
    );
    let frame = take_rows(&agreement_tables::category_frame(s, labels), &shown);
    out.push(Block::Table(frame_table(t, &frame, &FrameOpts::default())));
    let t = b.table(
        "label_distribution",
        "How often each rater gave each label.",
        true,
        true,
    );
    let mut frame = agreement_tables::distribution_frame(s, labels);
    // Column 0 is the rater, column 1 + k category k.
    let keep: Vec<usize> = std::iter::once(0)
        .chain(shown.iter().map(|k| k + 1))
        .collect();
    frame.columns = keep.iter().map(|&j| frame.columns[j].clone()).collect();
    out.push(Block::Table(frame_table(t, &frame, &FrameOpts::default())));
    // Left-out labels share one last bar segment, so the shares stay
    // shares of every rating.
    let others = labels.len() - in_figure.len();
    let mut fig_labels: Vec<String> = in_figure.iter().map(|&k| labels[k].clone()).collect();
    if others > 0 {
        fig_labels.push(format!("the other {others} labels"));
    }
    let raters = s.distribution.iter().map(|(r, c)| {
        let mut counts: Vec<f64> = in_figure.iter().map(|&k| c[k]).collect();
        if others > 0 {
            counts.push(c.iter().sum::<f64>() - counts.iter().sum::<f64>());
        }
        (r.clone(), counts)
    });
    let fig = label_distribution(&LabelDistribution {
        labels: fig_labels,
        raters: raters.collect(),
    })?;
    out.push(Block::Figure(b.figure(fig)));
    Ok(out)
}

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

/// The note on what averages hide, then the summary and the per-class
/// tables of `raters` against the reference (`who`: what a row is, "rater"
/// or "score type"; `ordered`: the labels have an order, so the weighted
/// kappas mean something).
pub fn classification_tables(
    b: &mut Builder,
    raters: &[RaterClassification],
    categories: &Categories,
    ordered: bool,
    who: &str,
) -> Vec<Block> {
    let mut out = vec![Block::Note(
        "Averages hide things: the macro average weighs every class equally, so a rare class \
         moves it as much as a common one; the weighted average weighs classes by their support \
         and so mostly reflects the common classes. A rare label can have perfect precision \
         simply because it is rarely given: read the per-class rows and the support."
            .into(),
    )];
    let t = b.table(
        "classification_summary",
        &format!(
            "Per {who}: accuracy, balanced accuracy, Matthews correlation and Cohen's kappas \
             against the reference (and Pearson's r beside the rank correlations, Spearman's \
             rho and Kendall's tau-b with their p-values, for numeric labels)."
        ),
        true,
        true,
    );
    let frame = agreement_tables::classification_summary_frame(raters, ordered, categories.numeric);
    let opts = FrameOpts {
        counts: &["n"],
        ..FrameOpts::default()
    };
    out.push(Block::Table(frame_table(t, &frame, &opts)));
    let t = b.table(
        "classification",
        &format!(
            "Per {who} and class: precision, recall, F1 and support, then the macro, micro and \
             weighted averages."
        ),
        true,
        true,
    );
    let q = categories.labels.len();
    let shown = most_frequent(&reference_support(raters, q), MAX_SHOWN_CATEGORIES);
    let mut frame = agreement_tables::classification_frame(raters, &categories.labels);
    if shown.len() < q {
        out.push(Block::Paragraph(format!(
            "The per-class table shows the {} classes the reference gives most often, of {q}, \
             then the averages over every class (every class is in the output file \
             classification).",
            shown.len()
        )));
        // Each rater's rows: its q classes, then the three averages.
        let rows: Vec<usize> = (0..raters.len())
            .flat_map(|g| {
                let first = g * (q + 3);
                let classes = shown.iter().map(move |&k| first + k);
                classes.chain(first + q..first + q + 3)
            })
            .collect();
        frame = take_rows(&frame, &rows);
    }
    out.push(Block::Table(frame_table(t, &frame, &opts_support())));
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

/// The reference's count of each of the `q` labels (the support, summed
/// over the raters).
fn reference_support(raters: &[RaterClassification], q: usize) -> Vec<f64> {
    (0..q)
        .map(|k| {
            let support = raters.iter().map(|c| c.report.support.get(k).copied());
            support.map(|x| x.unwrap_or(0.0)).sum()
        })
        .collect()
}

fn opts_support() -> FrameOpts<'static> {
    FrameOpts {
        counts: &["support"],
        ..FrameOpts::default()
    }
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

fn header(a: &Agreement, cfg: &AgreeConfig, inputs: Vec<InputCtx>, epoch: i64) -> Header {
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
        description_html: verdict(s, cfg).map_or_else(String::new, |(head, why)| {
            format!(
                "<p class=\"verdict\"><strong>{}</strong>: {}</p>",
                escape_html(&head),
                escape_html(&why)
            )
        }),
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
    let panels: Vec<_> = crate::kinds::evaluation::gates::panel(&mut b, gates, "run")
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
    Ok(b.finish(header(a, cfg, inputs, epoch), panels, sections, &[]))
}
