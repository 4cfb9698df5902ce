//! Command assembly (train): the training report (train.md 14) through the
//! report engine: the decision first (what was trained and how it does on
//! the evaluation set), then the data, feature and model sections, then
//! `build`'s own evaluation sections of the test partition
//! (`kinds::evaluation::sections`, drawn on the same builder), the PCA,
//! the file list and the system information. Values are formatted here;
//! the engine places them.
//!
//! Produces a [`Report`] value; reads only custom section files; computes
//! no statistic (per-level means come from `metrics::summary`).

use anyhow::{Context as _, Result};
use rsmreport_config::Section;
use rsmreport_core::provenance::InputInfo;
use rsmreport_core::table::{Column, Frame, Values};
use rsmreport_report::plots::{grouped_bars, BarPanel, GroupedBars};
use rsmreport_report::render::context::{Glance, InputCtx};
use rsmreport_report::render::format::{escape_html, num3, thousands};
use rsmreport_report::render::tables::{frame_table, FrameOpts};
use rsmreport_report::render::{Block, Builder, ConfigCtx, Decision, Header, Report, Tone};

use super::partition::{Part, Removed};
use super::run::Trained;
use crate::kinds::evaluation;

/// The provenance rows of the inputs.
pub fn inputs(info: &[InputInfo]) -> Vec<InputCtx> {
    info.iter()
        .map(|i| InputCtx {
            role: i.role.to_string(),
            path: i.path.display().to_string(),
            rows: thousands(i.rows as u64),
            sha256: i.sha256.clone(),
        })
        .collect()
}

/// What each step of train.md 3.3 removed, in words (steps that removed
/// nothing left out).
pub fn removed_words(r: &Removed) -> Vec<String> {
    let mut out = Vec::new();
    let mut add = |n: usize, what: String| {
        if n > 0 {
            out.push(format!("{} {what}", thousands(n as u64)));
        }
    };
    add(r.flagged, "by the flag filter".into());
    add(
        r.label_missing,
        "with a missing or non-numeric label".into(),
    );
    add(r.label_zero, "with a label of 0".into());
    for (f, n) in &r.features {
        add(*n, format!("with a missing or non-numeric '{f}'"));
    }
    add(r.listwise, "of candidates with too few responses".into());
    out
}

/// The weighted kappa and correlation of the primary trimmed score on the
/// evaluation set.
fn headline(t: &Trained) -> (&'static str, f64, f64) {
    let run = &t.evaluation;
    let x = run.prepared.x_trim().name;
    let block = run
        .analysis
        .eval
        .iter()
        .find(|(n, _)| *n == x)
        .map(|(_, b)| b);
    (
        x,
        block.map_or(f64::NAN, |b| b.wtkappa),
        block.map_or(f64::NAN, |b| b.corr),
    )
}

/// What the run decided: the model trained and its agreement on the
/// evaluation set; the warnings a reader must see.
pub fn decision(t: &Trained) -> Decision {
    let (x, qwk, r) = headline(t);
    let fit = t.fitted.model_fit.map_or_else(String::new, |m| {
        format!(" (R2 {} on the training set)", num3(m.r2))
    });
    let mut d = Decision::new(
        Tone::Info,
        "trained",
        format!(
            "{} trained on {} responses with {} of {} features{fit}; on {} evaluation responses \
             the weighted kappa of {x} with the human scores is {} and the correlation {}.",
            t.cfg.model.name(),
            thousands(t.train.ids.len() as u64),
            t.selected.len(),
            t.train.features.len(),
            thousands(t.test.ids.len() as u64),
            num3(qwk),
            num3(r)
        ),
    );
    if !t.evaluation.gates.is_empty() {
        // The gates judge the evaluation: its badge, tone and marked
        // tiles are the build's, after the training's sentence.
        let g = evaluation::report::decision(&t.evaluation);
        d.tone = g.tone;
        d.badge = g.badge;
        d.sentence = format!("{} {}", d.sentence, g.sentence);
        d.marked = g.marked;
    }
    d.warnings = t
        .notes
        .iter()
        .filter_map(|n| n.strip_prefix("warning: ").map(str::to_string))
        .collect();
    d
}

fn header(t: &Trained, epoch: i64) -> Header {
    let cfg = &t.cfg;
    let (x, qwk, r) = headline(t);
    let mut glance = vec![
        Glance {
            label: "Features used".into(),
            value: t.selected.len().to_string(),
            title: "The features with a coefficient in the model".into(),
            ci: format!("{} of {}", cfg.model.name(), t.train.features.len()),
        },
        Glance {
            label: "Training".into(),
            value: thousands(t.train.ids.len() as u64),
            title: "Responses the model was trained on".into(),
            ci: format!("of {} rows", thousands(t.train.n_read as u64)),
        },
        Glance {
            label: "Evaluation".into(),
            value: thousands(t.test.ids.len() as u64),
            title: "Responses the model was evaluated on".into(),
            ci: format!("of {} rows", thousands(t.test.n_read as u64)),
        },
    ];
    if let Some(m) = t.fitted.model_fit {
        glance.push(Glance {
            label: "R2 (training)".into(),
            value: num3(m.r2),
            title: "The model's R2 on the training set".into(),
            ci: format!("adjusted {}", num3(m.r2_adjusted)),
        });
    }
    glance.push(Glance {
        label: "Weighted kappa".into(),
        value: num3(qwk),
        title: format!("Quadratic weighted kappa of {x} with the human scores"),
        ci: format!("correlation {}", num3(r)),
    });
    Header {
        // description and model version: `Report::identified` (mod.rs)
        versions: Vec::new(),
        intro_html: format!(
            "This report trains the model <strong>{}</strong> ({}) on <strong>{}</strong> and \
             evaluates it on <strong>{}</strong>.",
            escape_html(&cfg.experiment_id),
            escape_html(cfg.model.name()),
            escape_html(&cfg.train_file.display().to_string()),
            escape_html(&cfg.test_file.display().to_string())
        ),
        description_html: String::new(),
        thumbnails: cfg.use_thumbnails,
        glance,
        decision: Some(decision(t)),
        inputs: inputs(&t.inputs),
        config: Some(ConfigCtx {
            path: cfg.config_path.display().to_string(),
            json: rsmreport_config::to_python_json(&cfg.saved_config),
        }),
        ..Header::new("Training report", cfg.experiment_id.clone(), epoch)
    }
}

/// A frame of the run by name (only when written: rows and columns).
fn frame<'a>(frames: &'a [Frame], name: &str) -> Option<&'a Frame> {
    frames.iter().find(|f| f.name == name && f.is_writable())
}

/// A table block of `f` with `caption`.
fn table(b: &mut Builder, f: &Frame, caption: &str, opts: &FrameOpts) -> Block {
    let t = b.table(&f.name, caption, true, true);
    Block::Table(frame_table(t, f, opts))
}

const LABELLED: FrameOpts<'static> = FrameOpts {
    index: Some(""),
    columns: None,
    counts: &[],
    p_values: &[],
    rename: &[],
    highlight: &rsmreport_report::render::tables::no_highlight,
    rows: None,
};

/// The count each step removed, per partition.
fn steps_frame(parts: [&Part; 2]) -> Frame {
    let mut labels: Vec<String> = vec!["rows read".into(), "flag filter".into()];
    labels.push("missing or non-numeric label".into());
    labels.push("label of 0".into());
    let mut features: Vec<&str> = Vec::new();
    for p in parts {
        for (f, _) in &p.removed.features {
            if !features.contains(&f.as_str()) {
                features.push(f);
            }
        }
    }
    labels.extend(features.iter().map(|f| format!("non-numeric {f}")));
    labels.push("too few responses per candidate".into());
    labels.push("responses used".into());
    let column = |p: &Part| {
        let r = &p.removed;
        let mut v = vec![p.n_read, r.flagged, r.label_missing, r.label_zero];
        v.extend(features.iter().map(|f| {
            r.features
                .iter()
                .find(|(n, _)| n == f)
                .map_or(0, |(_, n)| *n)
        }));
        v.push(r.listwise);
        v.push(p.ids.len());
        Values::Int(v.into_iter().map(|n| n as i64).collect())
    };
    Frame::new(
        "exclusions",
        Some(Values::Text(
            labels.iter().map(|l| Some(l.as_str().into())).collect(),
        )),
        vec![
            Column::new("training", column(parts[0])),
            Column::new("evaluation", column(parts[1])),
        ],
    )
}

fn data_description(b: &mut Builder, t: &Trained, frames: &[Frame]) -> Vec<Block> {
    let mut out = vec![Block::Heading(b.heading(2, "Data"))];
    out.push(Block::Paragraph(format!(
        "The model is trained on {} and evaluated on {}. Each row below is one filtering step, \
         in the order they are applied, with the responses it removed.",
        t.cfg.train_file.display(),
        t.cfg.test_file.display()
    )));
    let steps = steps_frame([&t.train, &t.test]);
    out.push(table(
        b,
        &steps,
        "Responses removed by each step, and the responses used",
        &FrameOpts {
            index: Some("step"),
            ..FrameOpts::default()
        },
    ));
    for (name, caption) in [
        (
            "train_excluded_composition",
            "Excluded training responses by kind of label (rows) and feature values (columns)",
        ),
        (
            "test_excluded_composition",
            "Excluded evaluation responses by kind of label (rows) and feature values (columns)",
        ),
        (
            "data_composition",
            "Responses (and candidates and subgroup levels) in each partition",
        ),
    ] {
        if let Some(f) = frame(frames, name) {
            let opts = FrameOpts {
                counts: &["all features numeric"],
                ..FrameOpts::default()
            };
            out.push(table(b, f, caption, &opts));
        }
    }
    out
}

fn data_by_group(b: &mut Builder, t: &Trained, frames: &[Frame]) -> Vec<Block> {
    let mut out = vec![Block::Heading(b.heading(2, "Data by subgroup"))];
    for g in &t.cfg.subgroups {
        if let Some(f) = frame(frames, &format!("data_composition_by_{g}")) {
            out.push(table(
                b,
                f,
                &format!("Responses per level of {g} in each partition"),
                &FrameOpts::default(),
            ));
        }
    }
    out
}

/// Bars of the named columns of a labelled frame (categories = its rows).
fn bars(
    b: &mut Builder,
    f: &Frame,
    (name, title, description): (&str, &str, &str),
    series: &[(&str, &str)],
) -> Result<Block> {
    let categories = rsmreport_report::render::tables::index_labels(f);
    let cols: Vec<Vec<f64>> = series
        .iter()
        .map(|(c, _)| rsmreport_report::render::tables::column_f64(f, c))
        .collect();
    let d = GroupedBars {
        name: name.into(),
        title: title.into(),
        description: description.into(),
        categories,
        series: series.iter().map(|(_, s)| s.to_string()).collect(),
        panels: vec![BarPanel {
            title: title.into(),
            values: (0..f.nrows())
                .map(|i| cols.iter().map(|c| c[i]).collect())
                .collect(),
            intervals: Vec::new(),
        }],
    };
    Ok(Block::Figure(b.figure(grouped_bars(&d)?)))
}

fn feature_descriptives(b: &mut Builder, frames: &[Frame]) -> Result<Vec<Block>> {
    let mut out = vec![Block::Heading(
        b.heading(2, "Feature descriptives (raw training values)"),
    )];
    if let Some(f) = frame(frames, "feature_descriptives") {
        out.push(table(
            b,
            f,
            "Raw feature values on the training set: mean, standard deviation, range, \
             skewness, kurtosis, and the correlation with the human score (p-value)",
            &FrameOpts {
                p_values: &["p"],
                ..LABELLED
            },
        ));
    }
    if let Some(f) = frame(frames, "feature_outliers") {
        out.push(Block::Heading(b.heading(3, "Outliers")));
        out.push(Block::Paragraph(
            "Values beyond the training mean ± 4 standard deviations, which are truncated to \
             those bounds before the model sees them."
                .into(),
        ));
        out.push(bars(
            b,
            f,
            (
                "feature_outliers",
                "Values beyond mean ± 4 sd, per feature",
                "How many training values of each feature lie below the mean - 4 sd and above \
                 the mean + 4 sd.",
            ),
            &[("lower", "below"), ("upper", "above")],
        )?);
        out.push(table(b, f, "Outliers per feature", &LABELLED));
    }
    if let Some(f) = frame(frames, "feature_descriptivesExtra") {
        out.push(Block::Heading(b.heading(3, "Percentiles")));
        out.push(table(
            b,
            f,
            "Percentiles, interquartile range and outliers by Tukey's fences (1.5 and 3 IQR)",
            &LABELLED,
        ));
    }
    Ok(out)
}

/// The rows of each level of a subgroup (levels in code-point order).
fn level_rows(levels: &[rsmreport_core::table::Text]) -> Vec<(&str, Vec<usize>)> {
    let mut map: std::collections::BTreeMap<&str, Vec<usize>> = std::collections::BTreeMap::new();
    for (i, l) in levels.iter().enumerate() {
        map.entry(l.as_ref()).or_default().push(i);
    }
    map.into_iter().collect()
}

/// The mean of `x` over `rows` (`metrics::summary::mean`).
fn mean_at(x: &[f64], rows: &[usize]) -> f64 {
    let v: Vec<f64> = rows.iter().map(|&i| x[i]).collect();
    rsmreport_metrics::summary::mean(&v)
}

/// The mean of each raw feature per level of a subgroup (training set).
fn means_by_level(t: &Trained, g: usize) -> Frame {
    let (name, levels) = &t.train.groups[g];
    let rows = level_rows(levels);
    let cols = t
        .selected
        .iter()
        .map(|f| {
            let j = t.train.features.iter().position(|n| n == f).expect("in F");
            let x = &t.train.raw[j];
            Column::new(
                f.clone(),
                Values::Float(rows.iter().map(|(_, r)| mean_at(x, r)).collect()),
            )
        })
        .collect();
    Frame::new(
        format!("feature_means_by_{name}"),
        Some(Values::Text(
            rows.iter().map(|(l, _)| Some((*l).into())).collect(),
        )),
        cols,
    )
}

fn features_by_group(b: &mut Builder, t: &Trained) -> Vec<Block> {
    let mut out = vec![Block::Heading(b.heading(2, "Features by subgroup"))];
    for (g, (name, _)) in t.train.groups.iter().enumerate() {
        let f = means_by_level(t, g);
        out.push(table(
            b,
            &f,
            &format!("Mean raw value of each feature per level of {name} (training set)"),
            &LABELLED,
        ));
    }
    out
}

fn preprocessed_features(b: &mut Builder, t: &Trained, frames: &[Frame]) -> Result<Vec<Block>> {
    let mut out = vec![Block::Heading(b.heading(2, "Preprocessed features"))];
    out.push(Block::Paragraph(format!(
        "Each feature is {}truncated, transformed, {}and multiplied by its sign.",
        if t.cfg.truncate_outliers { "" } else { "not " },
        if t.cfg.standardize_features {
            "standardised with its training mean and standard deviation "
        } else {
            ""
        }
    )));
    if let Some(f) = frame(frames, "feature") {
        out.push(table(
            b,
            f,
            "Transform, sign and training statistics of each feature the model uses",
            &FrameOpts::default(),
        ));
    }
    let mut merged: Vec<Column> = Vec::new();
    let mut series: Vec<(String, String)> = Vec::new();
    for (name, label) in [
        ("margcor_score_all_data", "marginal"),
        ("pcor_score_all_data", "partial"),
        ("pcor_score_no_length_all_data", "partial, length only"),
    ] {
        if let Some(f) = frame(frames, name) {
            let values: Vec<f64> = f.columns.iter().map(|c| c.values.to_numeric()[0]).collect();
            merged.push(Column::new(label, Values::Float(values)));
            series.push((label.to_string(), label.to_string()));
        }
    }
    if !merged.is_empty() {
        let f = Frame::new(
            "correlations_with_score",
            Some(Values::Text(
                t.selected.iter().map(|s| Some(s.as_str().into())).collect(),
            )),
            merged,
        );
        out.push(Block::Heading(
            b.heading(3, "Correlations with the human score"),
        ));
        let s: Vec<(&str, &str)> = series
            .iter()
            .map(|(a, c)| (a.as_str(), c.as_str()))
            .collect();
        out.push(bars(
            b,
            &f,
            (
                "correlations_with_score",
                "Marginal and partial correlations with the human score",
                "For each preprocessed feature, its correlation with the human score alone, \
                 given all other features, and (with a length column) given the length only.",
            ),
            &s,
        )?);
        out.push(table(
            b,
            &f,
            "Correlation of each preprocessed feature with the human score: marginal, and \
             partial given the other features (and given the length only)",
            &LABELLED,
        ));
    }
    if let Some(f) = frame(frames, "cors_processed") {
        out.push(Block::Heading(b.heading(3, "Correlation matrix")));
        out.push(table(
            b,
            f,
            "Pearson correlations of the preprocessed features, the human score and the length",
            &LABELLED,
        ));
    }
    Ok(out)
}

/// Differential feature functioning: the mean preprocessed feature per
/// human score and level of a subgroup.
fn dff_frame(t: &Trained, g: usize) -> Frame {
    let (name, levels) = &t.train.groups[g];
    let by_level = level_rows(levels);
    let mut scores = t.train.sc1.clone();
    scores.sort_by(f64::total_cmp);
    scores.dedup();
    // cells[score][level]: the rows with that human score and level.
    let cells: Vec<Vec<Vec<usize>>> = scores
        .iter()
        .map(|&s| {
            by_level
                .iter()
                .map(|(_, r)| r.iter().copied().filter(|&i| t.train.sc1[i] == s).collect())
                .collect()
        })
        .collect();
    let mut rows: Vec<String> = Vec::new();
    let mut columns: Vec<Vec<f64>> = vec![Vec::new(); by_level.len()];
    for f in &t.selected {
        let j = t.train.features.iter().position(|n| n == f).expect("in F");
        let x = t.pre_train.column(j);
        for (s, per_level) in scores.iter().zip(&cells) {
            rows.push(format!(
                "{f} at {}",
                rsmreport_report::render::format::score_label(*s)
            ));
            for (k, r) in per_level.iter().enumerate() {
                columns[k].push(mean_at(x, r));
            }
        }
    }
    Frame::new(
        format!("dff_by_{name}"),
        Some(Values::Text(
            rows.iter().map(|r| Some(r.as_str().into())).collect(),
        )),
        by_level
            .iter()
            .zip(columns)
            .map(|((l, _), c)| Column::new(*l, Values::Float(c)))
            .collect(),
    )
}

/// Most distinct human scores the differential feature functioning table
/// shows (score points, not continuous scores).
const MAX_DFF_SCORES: usize = 20;

fn dff_by_group(b: &mut Builder, t: &Trained) -> Vec<Block> {
    let mut out = vec![Block::Heading(
        b.heading(2, "Differential feature functioning"),
    )];
    out.push(Block::Paragraph(
        "For responses with the same human score, a feature should have the same mean in every \
         subgroup; a difference suggests the feature works differently for that group."
            .into(),
    ));
    let mut scores = t.train.sc1.clone();
    scores.sort_by(f64::total_cmp);
    scores.dedup();
    if scores.len() > MAX_DFF_SCORES {
        out.push(Block::Note(format!(
            "The human scores take {} different values; this table is shown for at most \
             {MAX_DFF_SCORES} score points.",
            scores.len()
        )));
        return out;
    }
    for (g, (name, _)) in t.train.groups.iter().enumerate() {
        let f = dff_frame(t, g);
        out.push(table(
            b,
            &f,
            &format!(
                "Mean preprocessed feature value by human score (rows) and level of {name} \
                 (columns), training set"
            ),
            &LABELLED,
        ));
    }
    out
}

fn model_section(b: &mut Builder, t: &Trained, frames: &[Frame]) -> Result<Vec<Block>> {
    let mut out = vec![Block::Heading(b.heading(2, "Model"))];
    out.push(Block::Paragraph(format!(
        "{} on {} training responses: {} of the {} features have a coefficient.",
        t.cfg.model.name(),
        thousands(t.train.ids.len() as u64),
        t.selected.len(),
        t.train.features.len()
    )));
    if let Some(f) = frame(frames, "model_fit") {
        out.push(table(
            b,
            f,
            "Model fit on the training set",
            &FrameOpts::default(),
        ));
    }
    if let Some(f) = frame(frames, "coefficients") {
        out.push(table(
            b,
            f,
            "Coefficients of the preprocessed features",
            &FrameOpts::default(),
        ));
    }
    if let Some(f) = frame(frames, "coefficients_scaled") {
        out.push(table(
            b,
            f,
            "Coefficients that give the scaled scores directly",
            &FrameOpts::default(),
        ));
    }
    if let Some(f) = frame(frames, "betas") {
        out.push(Block::Heading(b.heading(3, "Standardised coefficients")));
        let labelled = Frame::new(
            "betas",
            f.columns.first().map(|c| c.values.clone()),
            f.columns[1..].to_vec(),
        );
        out.push(bars(
            b,
            &labelled,
            (
                "betas",
                "Standardised and relative coefficients",
                "Each feature's standardised coefficient and its share of the sum of their \
                 absolute values.",
            ),
            &[("standardized", "standardized"), ("relative", "relative")],
        )?);
        out.push(table(
            b,
            f,
            "Standardised coefficients (coefficient × sd of the feature / sd of the score) and \
             their share of the total",
            &FrameOpts::default(),
        ));
    }
    Ok(out)
}

fn pca_section(b: &mut Builder, t: &Trained, frames: &[Frame]) -> Result<Vec<Block>> {
    let mut out = vec![Block::Heading(b.heading(2, "Principal components"))];
    if let Some(f) = frame(frames, "pcavar") {
        let k = t.pca.proportion.len();
        let scree = Frame::new(
            "pca_scree",
            Some(Values::Text(
                (1..=k)
                    .map(|c| Some(format!("PC{c}").as_str().into()))
                    .collect(),
            )),
            vec![Column::new(
                "proportion",
                Values::Float(t.pca.proportion.clone()),
            )],
        );
        out.push(bars(
            b,
            &scree,
            (
                "pca_scree",
                "Proportion of variance of each component",
                "The share of the preprocessed features' variance each principal component \
                 explains, in order (a scree plot).",
            ),
            &[("proportion", "proportion of variance")],
        )?);
        out.push(table(
            b,
            f,
            "Eigenvalues and the variance of the preprocessed features each component explains",
            &LABELLED,
        ));
    }
    if let Some(f) = frame(frames, "pca") {
        out.push(table(
            b,
            f,
            "Loadings of each feature on each component",
            &LABELLED,
        ));
    }
    Ok(out)
}

fn files_section(b: &mut Builder, t: &Trained) -> Vec<Block> {
    let id = &t.cfg.experiment_id;
    let ext = t.cfg.file_format.extension();
    let mut names: Vec<String> = super::tables::names(t)
        .iter()
        .map(|n| format!("{id}_{n}.{ext}"))
        .collect();
    names.extend(["rsmtool.json", "model.json", "summary.json"].map(|n| format!("{id}_{n}")));
    names.sort();
    let list = Frame::new(
        "files",
        None,
        vec![Column::new(
            "file (in output/)",
            Values::Text(names.iter().map(|n| Some(n.as_str().into())).collect()),
        )],
    );
    vec![
        Block::Heading(b.heading(2, "Intermediate files")),
        Block::Paragraph(format!(
            "Every table is in the folder output/ next to this report's folder; the feature \
             specification of the model is feature/{id}_selected.{ext}, and output/{id}_model.json \
             is what `rsmreport predict` applies to new responses."
        )),
        table(b, &list, "The files of this run", &FrameOpts::default()),
    ]
}

/// The builder's doc, moved into `build`'s section builder and back.
fn evaluation_section(doc: Builder, t: &Trained, name: &str) -> Result<(Builder, Vec<Block>)> {
    let mut eb = evaluation::report::Builder::over(&t.evaluation, doc);
    let blocks = evaluation::sections::builtin(&mut eb, name)
        .with_context(|| format!("cannot build the report section {name}"))?;
    Ok((eb.into_doc(), blocks))
}

/// One built-in section.
fn builtin(
    doc: Builder,
    t: &Trained,
    frames: &[Frame],
    name: &str,
) -> Result<(Builder, Vec<Block>)> {
    let mut b = doc;
    let blocks = match name {
        "data_description" => data_description(&mut b, t, frames),
        "data_description_by_group" => data_by_group(&mut b, t, frames),
        "feature_descriptives" => feature_descriptives(&mut b, frames)?,
        "features_by_group" => features_by_group(&mut b, t),
        "preprocessed_features" => preprocessed_features(&mut b, t, frames)?,
        "dff_by_group" => dff_by_group(&mut b, t),
        "model" => model_section(&mut b, t, frames)?,
        "pca" => pca_section(&mut b, t, frames)?,
        "intermediate_file_paths" => files_section(&mut b, t),
        other => return evaluation_section(b, t, other),
    };
    Ok((b, blocks))
}

/// The report of a training run, generated at `epoch`.
pub fn report(t: &Trained, epoch: i64) -> Result<Report> {
    let cfg = &t.cfg;
    let frames = super::tables::report_frames(t);
    let mut doc = Builder::new(&cfg.experiment_id, cfg.use_thumbnails);
    let panels: Vec<_> =
        crate::kinds::common::gates::panel(&mut doc, &t.evaluation.gates, "training run")
            .into_iter()
            .collect();
    let ids = doc.section_ids(cfg.sections.iter().map(|s| s.name()));
    let mut sections = Vec::with_capacity(cfg.sections.len());
    for (s, id) in cfg.sections.iter().zip(ids) {
        let (kind, blocks) = match s {
            Section::Builtin(name) => {
                let (d, blocks) = builtin(doc, t, &frames, name)?;
                doc = d;
                ("builtin", blocks)
            }
            Section::Custom { name, path } => {
                let mut eb = evaluation::report::Builder::over(&t.evaluation, doc);
                let (kind, block) = evaluation::report::custom(&mut eb, &id, name, path)?;
                doc = eb.into_doc();
                (kind, vec![block])
            }
        };
        sections.push(rsmreport_report::render::Section {
            id,
            name: s.name().to_string(),
            kind: kind.to_string(),
            blocks,
        });
    }
    Ok(doc.finish(
        header(t, epoch),
        panels,
        sections,
        evaluation::report::TEMPLATES,
    ))
}
