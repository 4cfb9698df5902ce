//! Command assembly (train): one run of `rsmreport train`: the inputs
//! ([`super::read`]) -> the two partitions (3, [`super::partition`]) ->
//! the feature specification (4) -> preprocessing (5), the model (6),
//! predictions, scaling and trimming (7), all through `metrics::linear`
//! -> the training analyses (8) -> the evaluation of the test partition
//! (10) through `build`'s own preprocessing, analyses and intervals.
//!
//! Defines no statistic of its own; reads only through `read`; writes
//! nothing.

use anyhow::{anyhow, Result};
use rsmreport_config::train::{FeatureSource, TrainConfig};
use rsmreport_config::{Experiment, ScaleWith, Section};
use rsmreport_core::provenance::{timed, InputInfo};
use rsmreport_core::table::{Column, Table, Values};
use rsmreport_metrics::linear::analyses::Pca;
use rsmreport_metrics::linear::predict::{raw_predictions, Postprocessing, Predictions};
use rsmreport_metrics::linear::preprocess::{
    apply_in_place, preprocess_train_in_place, ApplyMode, FeatureStats, Partition,
};
use rsmreport_metrics::linear::{fit, FeatureMatrix, Fitted, LinearError};

use super::features::{self, FeatureFile, Specification, Subset};
use super::partition::{self, Part, Setting};
use crate::kinds::evaluation::run::{execute_prepared, Run};

/// Everything a training run computed, before anything is written.
pub struct Trained {
    pub cfg: TrainConfig,
    pub inputs: Vec<InputInfo>,
    pub train: Part,
    pub test: Part,
    pub file: Option<FeatureFile>,
    pub spec: Specification,
    /// `feature` statistics of every feature of `F`, in `F` order.
    pub stats: Vec<FeatureStats>,
    pub fitted: Fitted,
    /// `S`, code-point order.
    pub selected: Vec<String>,
    /// Preprocessed features, columns `F`.
    pub pre_train: FeatureMatrix,
    pub pre_test: FeatureMatrix,
    pub post: Postprocessing,
    pub pred_train: Predictions,
    pub pred_test: Predictions,
    /// The tables of train.md 8.
    pub analyses: Vec<rsmreport_core::table::Frame>,
    pub pca: Pca,
    /// `build`'s evaluation of the test partition (train.md 10).
    pub evaluation: Run,
    /// Warnings and notes, in the order they arose.
    pub notes: Vec<String>,
}

/// A `metrics::linear` error as a data error, with the partition's file
/// row for a transform that is undefined.
fn data_error(e: LinearError, train: &Part, test: &Part) -> anyhow::Error {
    match e {
        LinearError::TransformUndefined(mut v) => {
            let part = match v.partition {
                Partition::Test => test,
                _ => train,
            };
            let file_row = part.rows.get(v.row).copied().unwrap_or(v.row);
            v.row = file_row;
            anyhow!(
                "{v} (rows are numbered in the {} file, header excluded); choose another \
                 transform for '{}' in the feature file",
                part.name,
                v.feature
            )
        }
        other => anyhow!("{other}"),
    }
}

/// The two partitions (train.md 3.3); the test partition takes the
/// training's final feature list as `Q`.
fn partitions(
    cfg: &TrainConfig,
    train: Table,
    test: Table,
    requested: &[String],
    subset: &Subset,
) -> Result<(Part, Part, Vec<String>)> {
    let mut notes = Vec::new();
    let train_set = Setting {
        name: "train",
        source: cfg.train_file.display().to_string(),
        label: &cfg.train_label_column,
        label_key: "train_label_column",
        length: cfg.length_column.as_deref(),
        second: None,
        flags: &cfg.flag_column,
        flags_key: "flag_column",
        requested,
        subset: subset.names.as_deref(),
    };
    let train = timed("training partition", || {
        partition::process(cfg, &train_set, train)
    })?;
    let same = same_file(cfg);
    if same {
        notes.push(
            "warning: train_file and test_file are the same file with the same label: the \
             evaluation uses the training responses (and no second human score)"
                .to_string(),
        );
        let mut test = train.clone();
        test.name = "test";
        test.length = None;
        for f in &mut test.frames {
            if let Some(rest) = f.name.strip_prefix("train_") {
                f.name = format!("test_{rest}");
            }
        }
        test.frames.retain(|f| f.name != "test_response_lengths");
        return Ok((train, test, notes));
    }
    let test_set = Setting {
        name: "test",
        source: cfg.test_file.display().to_string(),
        label: &cfg.test_label_column,
        label_key: "test_label_column",
        length: None,
        second: cfg.second_human_score_column.as_deref(),
        flags: cfg.flag_column_test.as_deref().unwrap_or(&cfg.flag_column),
        flags_key: if cfg.flag_column_test.is_some() {
            "flag_column_test"
        } else {
            "flag_column"
        },
        requested: &train.features,
        subset: None,
    };
    let test = timed("test partition", || {
        partition::process(cfg, &test_set, test)
    })?;
    Ok((train, test, notes))
}

/// Whether both partitions are the same file with the same label.
fn same_file(cfg: &TrainConfig) -> bool {
    let canon = |p: &std::path::Path| std::fs::canonicalize(p).ok();
    cfg.train_label_column == cfg.test_label_column
        && canon(&cfg.train_file).is_some()
        && canon(&cfg.train_file) == canon(&cfg.test_file)
}

/// The requested features `Q` (train.md 3.2) and the checked feature file.
fn requested(
    cfg: &TrainConfig,
    table: Option<&Table>,
) -> Result<(Vec<String>, Option<FeatureFile>)> {
    let (q, file) = match (&cfg.features, table) {
        (FeatureSource::File(path), Some(t)) => {
            let f = features::feature_file(cfg, path, t)?;
            (f.names.clone(), Some(f))
        }
        (FeatureSource::List(l), _) => (l.clone(), None),
        _ => (Vec::new(), None),
    };
    features::check_roles_not_features(cfg, &q)?;
    Ok((q, file))
}

/// The partition's raw columns preprocessed in one column-major buffer
/// (no second copy of the data): with `stats`, the stored statistics
/// (the test partition, strict checks); else training statistics are
/// computed (`metrics::linear::preprocess`, feature by feature).
fn preprocess_part(
    cfg: &TrainConfig,
    spec: &Specification,
    part: &Part,
    stats: Option<&[FeatureStats]>,
) -> rsmreport_metrics::linear::Result<(Vec<FeatureStats>, FeatureMatrix)> {
    let n = part.ids.len();
    let mut data = Vec::with_capacity(n * part.raw.len());
    for col in &part.raw {
        data.extend_from_slice(col);
    }
    let std = cfg.standardize_features;
    let mut out = Vec::with_capacity(spec.specs.len());
    for (j, values) in data.chunks_mut(n.max(1)).enumerate() {
        match stats {
            None => out.push(preprocess_train_in_place(&spec.specs[j], values, std)?),
            Some(st) => {
                apply_in_place(&st[j], values, std, ApplyMode::Strict(Partition::Test))?;
            }
        }
    }
    let stats = stats.map_or(out, <[FeatureStats]>::to_vec);
    Ok((stats, FeatureMatrix::new(part.features.clone(), n, data)?))
}

/// Preprocessing (5), the model (6) and the predictions (7).
struct Model {
    stats: Vec<FeatureStats>,
    pre_train: FeatureMatrix,
    pre_test: FeatureMatrix,
    fitted: Fitted,
    post: Postprocessing,
    pred_train: Predictions,
    pred_test: Predictions,
}

fn model(cfg: &TrainConfig, spec: &Specification, train: &Part, test: &Part) -> Result<Model> {
    let err = |e| data_error(e, train, test);
    let (stats, pre_train) = timed("preprocess features", || {
        preprocess_part(cfg, spec, train, None)
    })
    .map_err(err)?;
    let (_, pre_test) = preprocess_part(cfg, spec, test, Some(&stats)).map_err(err)?;
    let fitted = timed("fit", || fit(cfg.model, &pre_train, &train.sc1))
        .map_err(|e| anyhow!("{} (training file {})", err(e), cfg.train_file.display()))?;
    let coefs = fitted.feature_coefficients();
    let raw_tr = raw_predictions(fitted.intercept, &coefs, &pre_train).map_err(err)?;
    let (lo, hi) = train.label_range;
    let post = Postprocessing::from_training(
        &raw_tr,
        &train.sc1,
        cfg.trim_min.unwrap_or(lo),
        cfg.trim_max.unwrap_or(hi),
        cfg.trim_tolerance,
    )
    .map_err(err)?;
    let pred_train = post.postprocess(&raw_tr).map_err(err)?;
    let raw_te = raw_predictions(fitted.intercept, &coefs, &pre_test).map_err(err)?;
    let pred_test = post.postprocess(&raw_te).map_err(err)?;
    Ok(Model {
        stats,
        pre_train,
        pre_test,
        fitted,
        post,
        pred_train,
        pred_test,
    })
}

/// Reads the inputs and computes everything (data errors, except the
/// feature and subset files' problems, which are configuration errors).
pub fn execute(cfg: TrainConfig) -> Result<Trained> {
    let inputs = super::read::read(&cfg)?;
    let (q, file) = requested(&cfg, inputs.features.as_ref())?;
    let subset = match (&cfg.feature_subset_file, &inputs.subset) {
        (Some(path), Some(t)) => features::subset(&cfg, path, t)?,
        _ => Subset::default(),
    };
    let (train, test, mut notes) = partitions(&cfg, inputs.train, inputs.test, &q, &subset)?;
    notes.extend(train.notes.iter().cloned());
    notes.extend(test.notes.iter().cloned());
    let spec = features::specification(
        &cfg,
        file.as_ref(),
        &subset,
        &train.features,
        &train.raw,
        &train.sc1,
        &mut notes,
    );
    let m = model(&cfg, &spec, &train, &test)?;
    let selected = m.fitted.selected();
    let (analyses, pca) = timed("training analyses", || {
        training_analyses(&train, &m, &selected)
    })?;
    let evaluation = timed("evaluation", || {
        evaluate(&cfg, &train, &test, &m, inputs.info.clone())
    })?;
    notes.extend(cfg.warnings.iter().map(|w| format!("warning: {w}")));
    Ok(Trained {
        inputs: inputs.info,
        train,
        test,
        file,
        spec,
        stats: m.stats,
        fitted: m.fitted,
        selected,
        pre_train: m.pre_train,
        pre_test: m.pre_test,
        post: m.post,
        pred_train: m.pred_train,
        pred_test: m.pred_test,
        analyses,
        pca,
        evaluation,
        notes,
        cfg,
    })
}

/// train.md 8 on `S` (code-point order).
fn training_analyses(
    train: &Part,
    m: &Model,
    s: &[String],
) -> Result<(Vec<rsmreport_core::table::Frame>, Pca)> {
    let pos = |f: &String| train.features.iter().position(|n| n == f).expect("in F");
    let d = super::analyses::Data {
        s,
        raw: s.iter().map(|f| train.raw[pos(f)].as_slice()).collect(),
        pre: s.iter().map(|f| m.pre_train.column(pos(f))).collect(),
        y: &train.sc1,
        length: train.length.as_deref(),
        groups: &train.groups,
    };
    super::analyses::frames(&d).map_err(|e| anyhow!("{e}"))
}

/// The evaluation sections `build` has, among the selected ones.
fn evaluation_sections(cfg: &TrainConfig) -> Vec<Section> {
    rsmreport_config::BUILTIN_SECTIONS
        .iter()
        .filter(|s| cfg.has_section(s))
        .map(|s| Section::Builtin(s))
        .collect()
}

/// The evaluation's experiment: the test partition's predictions as
/// `build` would read them (`spkitemid`, `sc1`, `raw`, `sc2`, subgroups,
/// `candidate`), scaled with the training predictions (a scale "file" of
/// training labels and raw predictions gives exactly train.md 7's
/// parameters).
fn evaluation_experiment(cfg: &TrainConfig, test: &Part, post: &Postprocessing) -> Experiment {
    Experiment {
        config_path: cfg.config_path.clone(),
        experiment_id: cfg.experiment_id.clone(),
        description: cfg.description.clone(),
        model_version: cfg.model_version.clone(),
        predictions_file: cfg.test_file.clone(),
        id_column: "spkitemid".into(),
        human_score_column: "sc1".into(),
        second_human_score_column: test.sc2.as_ref().map(|_| "sc2".into()),
        other_human_score_columns: Vec::new(),
        classification: false,
        system_score_column: "raw".into(),
        candidate_column: test.candidates.as_ref().map(|_| "candidate".into()),
        trim_min: post.trim_min,
        trim_max: post.trim_max,
        trim_tolerance: post.trim_tolerance,
        exclude_zero_scores: cfg.exclude_zero_scores,
        use_thumbnails: cfg.use_thumbnails,
        scale_with: ScaleWith::File(cfg.train_file.clone()),
        file_format: cfg.file_format,
        flag_column: Vec::new(),
        rater_error_variance: cfg.rater_error_variance,
        subgroups: cfg.subgroups.clone(),
        min_n_per_group: cfg.min_n_per_group.clone(),
        min_items_per_candidate: None,
        sections: evaluation_sections(cfg),
        intervals: cfg.intervals,
        gates: cfg.gates.clone(),
        saved_config: cfg.saved_config.clone(),
    }
}

/// The predictions table `build` reads, and the scale table.
fn evaluation_tables(train: &Part, test: &Part, m: &Model) -> (Table, Table) {
    let mut cols = vec![
        Column::new(
            "spkitemid",
            Values::Text(test.ids.iter().map(|i| Some(i.clone())).collect()),
        ),
        Column::new("sc1", Values::Float(test.sc1.clone())),
        Column::new("raw", Values::Float(m.pred_test.raw.clone())),
    ];
    if let Some(sc2) = &test.sc2 {
        cols.push(Column::new("sc2", Values::Float(sc2.clone())));
    }
    for (g, v) in &test.groups {
        cols.push(Column::new(
            g.clone(),
            Values::Text(v.iter().map(|t| Some(t.clone())).collect()),
        ));
    }
    if let Some(c) = &test.candidates {
        cols.push(Column::new(
            "candidate",
            Values::Text(c.iter().map(|t| Some(t.clone())).collect()),
        ));
    }
    let n = test.ids.len();
    let predictions = Table {
        columns: cols,
        nrows: n,
    };
    let scale = Table {
        nrows: m.pred_train.raw.len(),
        columns: vec![
            Column::new("sc1", Values::Float(train.sc1.clone())),
            Column::new("prediction", Values::Float(m.pred_train.raw.clone())),
        ],
    };
    (predictions, scale)
}

/// Tables of `build`'s run that are `train`'s own under another definition
/// (train.md 3.3 step 17, 9): dropped from the evaluation's frames.
fn is_build_processing_frame(name: &str) -> bool {
    matches!(
        name,
        "pred_processed"
            | "test_metadata"
            | "test_other_columns"
            | "test_human_scores"
            | "test_excluded_responses"
            | "test_responses_with_excluded_flags"
            | "test_excluded_composition"
            | "data_composition"
    ) || name.starts_with("data_composition_by_")
}

/// train.md 10 through `build`'s code: `preprocess::prepare` on the
/// predictions as `build` would read them, then `build`'s analyses and
/// intervals ([`execute_prepared`]); the primary family follows
/// `use_scaled_predictions`.
fn evaluate(
    cfg: &TrainConfig,
    train: &Part,
    test: &Part,
    m: &Model,
    inputs: Vec<InputInfo>,
) -> Result<Run> {
    let exp = evaluation_experiment(cfg, test, &m.post);
    let (predictions, scale) = evaluation_tables(train, test, m);
    let mut prepared = crate::preprocess::prepare(
        &exp,
        predictions,
        Some(&scale),
        &cfg.test_file.display().to_string(),
    )
    .map_err(|e| anyhow!("the evaluation of the test partition failed: {e:#}"))?;
    prepared.primary = if cfg.use_scaled_predictions {
        "scale"
    } else {
        "raw"
    };
    let mut run = execute_prepared(exp, prepared, inputs);
    run.analysis
        .frames
        .retain(|f| !is_build_processing_frame(&f.name));
    crate::kinds::evaluation::run::evaluate_gates(&mut run)
        .map_err(|e| rsmreport_core::error::config(anyhow!(e)))?;
    Ok(run)
}
