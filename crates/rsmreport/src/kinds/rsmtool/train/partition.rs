//! Command assembly (train): one partition, training or evaluation, from
//! its table (train.md 3.3 steps 1-17, in order): configured columns,
//! renaming, ids, the feature list, subgroups, flags, the label and feature
//! filters with the count each step removed, the length column, listwise
//! exclusion, and the partition's frames.
//!
//! Works on the table `read` gave it; defines no statistic (the constant
//! feature check is `metrics::linear`'s); writes nothing.

use std::collections::{HashMap, HashSet};

use anyhow::{bail, Result};
use rsmreport_config::train::TrainConfig;
use rsmreport_config::FlagFilter;
use rsmreport_core::error;
use rsmreport_core::schema::{NO_INFO, RESERVED};
use rsmreport_core::table::{Column, Frame, Table, Text, TextBuilder, Values};
use rsmreport_metrics::linear::preprocess::check_feature_variation;
use rsmreport_metrics::linear::stats;

use crate::preprocess::{cell_text, column_hint, flag_key, flag_matches, has_columns};

/// The settings of one partition (train.md 3.3's two parameter sets).
pub struct Setting<'a> {
    /// `train` or `test`: the prefix of the partition's tables.
    pub name: &'static str,
    /// The file, for messages.
    pub source: String,
    pub label: &'a str,
    pub label_key: &'static str,
    pub length: Option<&'a str>,
    pub second: Option<&'a str>,
    pub flags: &'a [FlagFilter],
    pub flags_key: &'static str,
    /// `Q`: the requested features (test: the training's final list).
    pub requested: &'a [String],
    /// The names marked 1 in the `feature_subset` column (generated
    /// features only).
    pub subset: Option<&'a [String]>,
}

impl Setting<'_> {
    fn is_train(&self) -> bool {
        self.name == "train"
    }

    fn partition(&self) -> &'static str {
        if self.is_train() {
            "training"
        } else {
            "evaluation"
        }
    }
}

/// How many responses each step removed (train.md 3.3, in step order).
#[derive(Clone, Debug, Default)]
pub struct Removed {
    pub flagged: usize,
    pub label_missing: usize,
    pub label_zero: usize,
    /// Per feature of the step-12 list, in list order.
    pub features: Vec<(String, usize)>,
    pub listwise: usize,
}

impl Removed {
    pub fn total(&self) -> usize {
        self.flagged
            + self.label_missing
            + self.label_zero
            + self.features.iter().map(|(_, n)| n).sum::<usize>()
            + self.listwise
    }
}

/// One filtered partition: the kept responses' values and frames.
#[derive(Clone, Debug)]
pub struct Part {
    pub name: &'static str,
    /// Data rows in the file.
    pub n_read: usize,
    /// The kept rows' positions in the file (0-based, header excluded).
    pub rows: Vec<usize>,
    pub ids: Vec<Text>,
    pub sc1: Vec<f64>,
    /// The final feature list (train.md 3.3 step 14).
    pub features: Vec<String>,
    /// Raw (coerced) values of the kept rows, one vector per feature.
    pub raw: Vec<Vec<f64>>,
    /// The usable length (training partition only).
    pub length: Option<Vec<f64>>,
    /// The second human score (evaluation partition only).
    pub sc2: Option<Vec<f64>>,
    /// Subgroup values of the kept rows, in `subgroups` order.
    pub groups: Vec<(String, Vec<Text>)>,
    pub candidates: Option<Vec<Text>>,
    /// The smallest and largest label left after step 9 (step 10).
    pub label_range: (f64, f64),
    pub removed: Removed,
    /// Excluded responses by label (numeric non-zero, zero, non-numeric)
    /// and features (all numeric, any non-numeric): train.md 9.
    pub composition: [[usize; 2]; 3],
    /// `<p>_metadata`, `<p>_other_columns`,
    /// `train_response_lengths`, `test_human_scores`,
    /// `<p>_excluded_responses`, `<p>_responses_with_excluded_flags`
    /// (those that apply).
    pub frames: Vec<Frame>,
    /// Notes and warnings for the terminal and the report.
    pub notes: Vec<String>,
}

/// Why a row left (train.md 3.3 step 17's order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Why {
    LabelMissing,
    LabelZero,
    Feature,
    Listwise,
}

/// `R`: names no feature may have (train.md 3.2).
pub fn reserved(cfg: &TrainConfig) -> HashSet<String> {
    let mut r: HashSet<String> = [
        "spkitemid",
        "spkitemlab",
        "itemType",
        "r1",
        "r2",
        "score",
        "sc",
        "sc1",
        "adj",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    r.insert(cfg.train_label_column.clone());
    r.insert(cfg.test_label_column.clone());
    r.insert(cfg.id_column.clone());
    r.extend(cfg.subgroups.iter().cloned());
    r.extend(cfg.flag_column.iter().map(|f| f.column.clone()));
    for (configured, internal) in [
        (&cfg.second_human_score_column, "sc2"),
        (&cfg.length_column, "length"),
        (&cfg.candidate_column, "candidate"),
    ] {
        if let Some(c) = configured {
            r.insert(c.clone());
            r.insert(internal.to_string());
        }
    }
    r
}

/// Runs train.md 3.3 on one partition's table.
pub fn process(cfg: &TrainConfig, set: &Setting, mut table: Table) -> Result<Part> {
    let n_read = table.nrows;
    check_configured(cfg, set, &table)?;
    rename(cfg, set, &mut table);
    let ids = ids(cfg, set, &table)?;
    let features = feature_list(cfg, set, &table)?;
    let groups = subgroups(cfg, set, &mut table)?;
    let (mut keep, flagged) = filter_flags(set, &table)?;
    let mut removed = Removed {
        flagged: flagged.len(),
        ..Removed::default()
    };
    let sc1 = table.column("sc1").expect("renamed").values.to_numeric();
    let mut excluded = filter_labels(cfg, set, &sc1, &mut keep, &mut removed)?;
    let label_range = remaining_range(&sc1, &keep);
    check_feature_columns(set, &table, &features.names)?;
    let (final_features, coerced) = filter_features(
        set,
        &table,
        &features,
        &mut keep,
        &mut excluded,
        &mut removed,
    )?;
    let mut notes = features.notes;
    let length = usable_length(set, &mut table, &keep, &mut notes);
    exclude_listwise(cfg, set, &table, &mut keep, &mut excluded, &mut removed)?;
    let kept: Vec<usize> = (0..table.nrows).filter(|&i| keep[i]).collect();
    let final_pos: Vec<usize> = final_features
        .iter()
        .map(|f| features.names.iter().position(|n| n == f).expect("listed"))
        .collect();
    let composition = composition(&sc1, &coerced, &final_pos, &excluded);
    let sc2 = second_scores(cfg, &table, &kept);
    let frames = frames(
        cfg,
        set,
        &table,
        &Kept {
            rows: &kept,
            ids: &ids,
            sc1: &sc1,
            features: &features.names,
            final_features: &final_features,
            coerced: &coerced,
            length: length.is_some(),
            sc2: sc2.as_deref(),
        },
        &excluded,
        &flagged,
    );
    Ok(Part {
        name: set.name,
        n_read,
        ids: kept.iter().map(|&i| ids[i].clone()).collect(),
        sc1: kept.iter().map(|&i| sc1[i]).collect(),
        raw: final_pos
            .iter()
            .map(|&j| kept.iter().map(|&i| coerced[j][i]).collect())
            .collect(),
        features: final_features,
        length: length.map(|l| kept.iter().map(|&i| l[i]).collect()),
        sc2,
        groups: groups
            .into_iter()
            .map(|(g, v)| (g, kept.iter().map(|&i| v[i].clone()).collect()))
            .collect(),
        rows: kept.clone(),
        candidates: table
            .column("candidate")
            .filter(|_| cfg.candidate_column.is_some())
            .map(|c| kept.iter().map(|&i| text_at(&c.values, i)).collect()),
        label_range,
        removed,
        composition,
        frames,
        notes,
    })
}

/// The text of a cell (`nan` when missing, as pandas' `astype(str)`).
fn text_at(values: &Values, i: usize) -> Text {
    cell_text(values, i).map_or_else(|| Text::from("nan"), |c| Text::from(c.as_ref()))
}

/// The columns of `wanted` (`(column, config key)`) absent from `table`,
/// each with its key and a spelling hint: `'x' (id_column) (did you mean
/// 'X'?)`. Shared with `predict`.
pub fn absent(table: &Table, wanted: &[(&str, &str)]) -> Vec<String> {
    let names: Vec<String> = table.names().into_iter().map(String::from).collect();
    wanted
        .iter()
        .filter(|(c, _)| table.position(c).is_none())
        .map(|(c, key)| format!("'{c}' ({key}){}", column_hint(c, &names)))
        .collect()
}

/// Step 1: every configured column of this partition exists (one error
/// listing them all), and the file has rows.
fn check_configured(cfg: &TrainConfig, set: &Setting, table: &Table) -> Result<()> {
    let mut wanted: Vec<(&str, &str)> = vec![
        (cfg.id_column.as_str(), "id_column"),
        (set.label, set.label_key),
    ];
    if let Some(l) = set.length {
        wanted.push((l, "length_column"));
    }
    if let Some(s) = set.second {
        wanted.push((s, "second_human_score_column"));
    }
    if let Some(c) = &cfg.candidate_column {
        wanted.push((c, "candidate_column"));
    }
    let absent = absent(table, &wanted);
    if !absent.is_empty() {
        let names: Vec<String> = table.names().into_iter().map(String::from).collect();
        bail!(
            "the {} file {} lacks the configured column{} {}; {}",
            set.partition(),
            set.source,
            if absent.len() == 1 { "" } else { "s" },
            absent.join(", "),
            has_columns(&names)
        );
    }
    if table.nrows == 0 {
        bail!(
            "the {} file {} has a header but no data rows",
            set.partition(),
            set.source
        );
    }
    Ok(())
}

/// Steps 2-3: the candidate column doubles as the id when they are the
/// same column; reserved names not configured under that very name (and
/// not requested as features) become `##name##`; configured columns get
/// their internal names.
fn rename(cfg: &TrainConfig, set: &Setting, table: &mut Table) {
    let pos = |t: &Table, c: &str| t.position(c).expect("checked in step 1");
    let mut roles: Vec<(usize, &str)> = Vec::new();
    let id = pos(table, &cfg.id_column);
    match &cfg.candidate_column {
        Some(c) if *c == cfg.id_column => {
            let copy = table.columns[id].clone();
            let name = if c == "candidate" {
                "spkitemid"
            } else {
                "candidate"
            };
            table.columns.push(Column::new(name, copy.values));
            let copy_pos = table.columns.len() - 1;
            if name == "spkitemid" {
                roles.push((copy_pos, "spkitemid"));
                roles.push((id, "candidate"));
            } else {
                roles.push((id, "spkitemid"));
                roles.push((copy_pos, "candidate"));
            }
        }
        Some(c) => {
            roles.push((id, "spkitemid"));
            roles.push((pos(table, c), "candidate"));
        }
        None => roles.push((id, "spkitemid")),
    }
    roles.push((pos(table, set.label), "sc1"));
    if let Some(l) = set.length {
        roles.push((pos(table, l), "length"));
    }
    if let Some(s) = set.second {
        roles.push((pos(table, s), "sc2"));
    }
    rename_roles(table, &roles, set.requested);
}

/// rsmeval 2.3's renaming: the reserved names of columns that have no
/// role (and are not in `keep`, the requested features) become
/// `##name##`, then each role's column (`(position, internal name)`) gets
/// its internal name. Shared with `predict`.
pub fn rename_roles(table: &mut Table, roles: &[(usize, &str)], keep: &[String]) {
    for (p, col) in table.columns.iter_mut().enumerate() {
        if RESERVED.contains(&col.name.as_str())
            && !roles.iter().any(|(q, _)| *q == p)
            && !keep.contains(&col.name)
        {
            col.name = format!("##{}##", col.name);
        }
    }
    for (p, internal) in roles {
        table.columns[*p].name = internal.to_string();
    }
}

/// Step 4: the ids as text; a repeated id is an error naming the id
/// column.
fn ids(cfg: &TrainConfig, set: &Setting, table: &Table) -> Result<Vec<Text>> {
    unique_ids(
        table,
        &cfg.id_column,
        &format!("the {} file {}", set.partition(), set.source),
    )
}

/// The `spkitemid` column as text (`nan` for a missing id); a repeated id
/// is an error naming `id_column` and the file (`source`). Shared with
/// `predict`.
pub fn unique_ids(table: &Table, id_column: &str, source: &str) -> Result<Vec<Text>> {
    let values = &table.column("spkitemid").expect("renamed").values;
    let ids: Vec<Option<Text>> = (0..table.nrows).map(|i| Some(text_at(values, i))).collect();
    let dups = crate::preprocess::first_duplicates(&ids, 5);
    if !dups.is_empty() {
        let all: Vec<String> = ids
            .iter()
            .map(|i| i.as_deref().unwrap_or("nan").to_string())
            .collect();
        bail!(crate::preprocess::duplicate_ids_message(
            &all, &dups, id_column, source
        ));
    }
    Ok(ids
        .into_iter()
        .map(|i| i.expect("every id is set"))
        .collect())
}

/// The step-5 feature list with its notes.
struct Features {
    names: Vec<String>,
    /// Whether the list was requested (`Q` non-empty) or generated.
    requested: bool,
    notes: Vec<String>,
}

/// Steps 5-6: `Q`, or every column not in `R` (restricted to the subset);
/// a requested name in `R` is a configuration error.
fn feature_list(cfg: &TrainConfig, set: &Setting, table: &Table) -> Result<Features> {
    let r = reserved(cfg);
    let mut notes = Vec::new();
    if !set.requested.is_empty() {
        if set.is_train() {
            let bad: Vec<&str> = set
                .requested
                .iter()
                .filter(|f| r.contains(*f))
                .map(String::as_str)
                .collect();
            if !bad.is_empty() {
                return Err(error::config(anyhow::anyhow!(
                    "{}: these requested features have reserved names and cannot be features: \
                     {} (a reserved name is an id, a label, a subgroup, a flag column, the \
                     second human score, the length or the candidate column, under its \
                     configured or internal name, or one of {}); rename the columns",
                    cfg.config_path.display(),
                    bad.iter()
                        .map(|b| format!("'{b}'"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    "spkitemid, spkitemlab, itemType, r1, r2, score, sc, sc1, adj"
                )));
            }
        }
        return Ok(Features {
            names: set.requested.to_vec(),
            requested: true,
            notes,
        });
    }
    let candidates: Vec<String> = table
        .names()
        .into_iter()
        .filter(|n| !r.contains(*n))
        .map(String::from)
        .collect();
    let names = match set.subset {
        None => candidates,
        Some(subset) => {
            let absent: Vec<&str> = subset
                .iter()
                .filter(|s| !candidates.contains(s))
                .map(String::as_str)
                .collect();
            if !absent.is_empty() {
                notes.push(format!(
                    "warning: the feature subset names features that are not columns of the \
                     training file: {}",
                    absent.join(", ")
                ));
            }
            let (used, unused): (Vec<String>, Vec<String>) =
                candidates.into_iter().partition(|c| subset.contains(c));
            if !unused.is_empty() {
                notes.push(format!(
                    "warning: these columns of the training file are not used (not in the \
                     feature subset): {}",
                    unused.join(", ")
                ));
            }
            used
        }
    };
    Ok(Features {
        names,
        requested: false,
        notes,
    })
}

/// Step 7: subgroup columns exist; blank values become `No info`.
fn subgroups(
    cfg: &TrainConfig,
    set: &Setting,
    table: &mut Table,
) -> Result<Vec<(String, Vec<Text>)>> {
    let names: Vec<String> = table.names().into_iter().map(String::from).collect();
    let missing: Vec<String> = cfg
        .subgroups
        .iter()
        .filter(|g| table.position(g).is_none())
        .map(|g| format!("'{g}'{}", column_hint(g, &names)))
        .collect();
    if !missing.is_empty() {
        bail!(
            "subgroup column(s) absent from the {} file {} (see subgroups): {}; {}",
            set.partition(),
            set.source,
            missing.join(", "),
            has_columns(&names)
        );
    }
    let no_info: Text = NO_INFO.into();
    let mut out = Vec::with_capacity(cfg.subgroups.len());
    for g in &cfg.subgroups {
        let pos = table.position(g).expect("checked");
        let values = &table.columns[pos].values;
        let mut b = TextBuilder::with_capacity(table.nrows);
        b.extend((0..table.nrows).map(|i| cell_text(values, i)));
        let mut texts = b.into_cells();
        for t in texts.iter_mut() {
            if t.as_deref().is_none_or(|s| s.trim().is_empty()) {
                *t = Some(no_info.clone());
            }
        }
        table.columns[pos].values = Values::Text(texts.clone());
        out.push((
            g.clone(),
            texts.into_iter().map(|t| t.expect("filled")).collect(),
        ));
    }
    Ok(out)
}

/// Step 8: the rows allowed by every flag column (kept mask) and the
/// removed rows.
fn filter_flags(set: &Setting, table: &Table) -> Result<(Vec<bool>, Vec<usize>)> {
    let mut keep = vec![true; table.nrows];
    if set.flags.is_empty() {
        return Ok((keep, Vec::new()));
    }
    let names: Vec<String> = table.names().into_iter().map(String::from).collect();
    let missing: Vec<String> = set
        .flags
        .iter()
        .filter(|f| table.position(&f.column).is_none())
        .map(|f| format!("'{}'{}", f.column, column_hint(&f.column, &names)))
        .collect();
    if !missing.is_empty() {
        bail!(
            "flag column(s) absent from the {} file {} (see {}): {}; {}",
            set.partition(),
            set.source,
            set.flags_key,
            missing.join(", "),
            has_columns(&names)
        );
    }
    let columns: Vec<(&Values, &FlagFilter)> = set
        .flags
        .iter()
        .map(|f| (&table.column(&f.column).expect("checked").values, f))
        .collect();
    let mut removed = Vec::new();
    for (i, k) in keep.iter_mut().enumerate() {
        let allowed = columns
            .iter()
            .all(|(values, f)| flag_matches(&flag_key(values, i), &f.allowed));
        if !allowed {
            *k = false;
            removed.push(i);
        }
    }
    if removed.len() == table.nrows {
        bail!(
            "no responses left in the {} file {} after flag filtering ({}): none of its {} rows \
             has an allowed value in every flag column",
            set.partition(),
            set.source,
            set.flags_key,
            table.nrows
        );
    }
    Ok((keep, removed))
}

/// Step 9: rows whose label is missing or infinite, then (with
/// `exclude_zero_scores`) those whose label is 0, leave.
fn filter_labels(
    cfg: &TrainConfig,
    set: &Setting,
    sc1: &[f64],
    keep: &mut [bool],
    removed: &mut Removed,
) -> Result<Vec<(usize, Why)>> {
    let mut excluded = Vec::new();
    for (i, k) in keep.iter_mut().enumerate() {
        if *k && !sc1[i].is_finite() {
            *k = false;
            excluded.push((i, Why::LabelMissing));
        }
    }
    removed.label_missing = excluded.len();
    if cfg.exclude_zero_scores {
        for (i, k) in keep.iter_mut().enumerate() {
            if *k && sc1[i] == 0.0 {
                *k = false;
                excluded.push((i, Why::LabelZero));
            }
        }
    }
    removed.label_zero = excluded.len() - removed.label_missing;
    if !keep.iter().any(|&k| k) {
        bail!(
            "no responses left in the {} file {} after removing non-numeric{} labels in \
             '{}' ({}): {} missing or non-numeric, {} zero",
            set.partition(),
            set.source,
            if cfg.exclude_zero_scores {
                " and zero"
            } else {
                ""
            },
            set.label,
            set.label_key,
            removed.label_missing,
            removed.label_zero
        );
    }
    Ok(excluded)
}

/// Step 10's range: the smallest and largest remaining label.
fn remaining_range(sc1: &[f64], keep: &[bool]) -> (f64, f64) {
    let left: Vec<f64> = (0..sc1.len())
        .filter(|&i| keep[i])
        .map(|i| sc1[i])
        .collect();
    (stats::min(&left), stats::max(&left))
}

/// Step 11: every feature of the list is a column.
fn check_feature_columns(set: &Setting, table: &Table, features: &[String]) -> Result<()> {
    let names: Vec<String> = table.names().into_iter().map(String::from).collect();
    let missing: Vec<String> = features
        .iter()
        .filter(|f| table.position(f).is_none())
        .map(|f| format!("'{f}'{}", column_hint(f, &names)))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    bail!(
        "the {} file {} lacks {} feature column{}: {}; {} (the id and label columns renamed to \
         spkitemid and sc1)",
        set.partition(),
        set.source,
        missing.len(),
        if missing.len() == 1 { "" } else { "s" },
        missing.join(", "),
        has_columns(&names)
    )
}

/// Steps 12-14: each feature in list order drops the rows where it is
/// missing or infinite; on the training partition a feature whose values
/// left are constant is an error (requested) or dropped (generated).
/// Returns the final list and every feature's coerced values (all rows).
fn filter_features(
    set: &Setting,
    table: &Table,
    features: &Features,
    keep: &mut [bool],
    excluded: &mut Vec<(usize, Why)>,
    removed: &mut Removed,
) -> Result<(Vec<String>, Vec<Vec<f64>>)> {
    let mut coerced = Vec::with_capacity(features.names.len());
    let mut kept_features = Vec::new();
    let mut first_bad: Vec<String> = Vec::new();
    for name in &features.names {
        let column = &table.column(name).expect("checked").values;
        let values = column.to_numeric();
        let mut bad = 0;
        for (i, k) in keep.iter_mut().enumerate() {
            if *k && !values[i].is_finite() {
                if bad == 0 {
                    first_bad.push(format!(
                        "'{name}': {} value(s), the first in row {} ({})",
                        values.iter().filter(|v| !v.is_finite()).count(),
                        i + 1,
                        crate::preprocess::cell_text(column, i)
                            .map_or_else(|| "empty".to_string(), |c| format!("'{c}'"))
                    ));
                }
                *k = false;
                excluded.push((i, Why::Feature));
                bad += 1;
            }
        }
        removed.features.push((name.clone(), bad));
        let left: Vec<f64> = (0..values.len())
            .filter(|&i| keep[i])
            .map(|i| values[i])
            .collect();
        let usable = if left.is_empty() {
            false
        } else if set.is_train() {
            constant_check(set, features, name, &left)?
        } else {
            true
        };
        if usable {
            kept_features.push(name.clone());
        }
        coerced.push(values);
    }
    if !keep.iter().any(|&k| k) {
        bail!(
            "no responses left in the {} file {} after filtering out non-numeric feature \
             values (rows numbered without the header): {}",
            set.partition(),
            set.source,
            first_bad.join("; ")
        );
    }
    Ok((kept_features, coerced))
}

/// Step 12's check of the training values left for one feature: `true`
/// when it varies; a constant requested feature is an error (naming its
/// value), a constant generated one is dropped with a note (`false`).
fn constant_check(set: &Setting, features: &Features, name: &str, left: &[f64]) -> Result<bool> {
    match check_feature_variation(name, left) {
        Ok(()) => Ok(true),
        Err(e) if features.requested => bail!(
            "the requested feature '{name}' cannot be used: {e} (training file {}, {} \
             responses left); remove it from the features",
            set.source,
            left.len()
        ),
        Err(_) => Ok(false),
    }
}

/// Step 15 (training only): the length column when every remaining value
/// is numeric and it varies; else a warning, and the column is renamed
/// `##<length_column>##`. Returns the coerced values (all rows).
fn usable_length(
    set: &Setting,
    table: &mut Table,
    keep: &[bool],
    notes: &mut Vec<String>,
) -> Option<Vec<f64>> {
    let configured = set.length?;
    if !set.is_train() {
        return None;
    }
    let pos = table.position("length").expect("renamed");
    let values = table.columns[pos].values.to_numeric();
    let left: Vec<f64> = (0..values.len())
        .filter(|&i| keep[i])
        .map(|i| values[i])
        .collect();
    let missing = left.iter().filter(|v| v.is_nan()).count();
    let sd = stats::sd(&left);
    if missing == 0 && sd > 0.0 {
        return Some(values);
    }
    notes.push(format!(
        "warning: the length column '{configured}' is not used ({}): no length analyses",
        if missing > 0 {
            format!("{missing} of the remaining responses have no numeric length")
        } else {
            "its standard deviation is 0".to_string()
        }
    ));
    table.columns[pos].name = format!("##{configured}##");
    None
}

/// Step 16: candidates with fewer than `min_items_per_candidate` remaining
/// responses leave.
fn exclude_listwise(
    cfg: &TrainConfig,
    set: &Setting,
    table: &Table,
    keep: &mut [bool],
    excluded: &mut Vec<(usize, Why)>,
    removed: &mut Removed,
) -> Result<()> {
    let Some(min) = cfg.min_items_per_candidate else {
        return Ok(());
    };
    let cand = &table.column("candidate").expect("renamed").values;
    let mut counts: HashMap<Text, u64> = HashMap::new();
    for (i, &k) in keep.iter().enumerate() {
        if k {
            *counts.entry(text_at(cand, i)).or_default() += 1;
        }
    }
    for (i, k) in keep.iter_mut().enumerate() {
        if *k && counts[&text_at(cand, i)] < min {
            *k = false;
            excluded.push((i, Why::Listwise));
            removed.listwise += 1;
        }
    }
    if !keep.iter().any(|&k| k) {
        bail!(
            "no responses left in the {} file {} after excluding candidates with fewer than {min} \
             responses (min_items_per_candidate); the most any candidate has is {}",
            set.partition(),
            set.source,
            counts.values().max().copied().unwrap_or(0)
        );
    }
    Ok(())
}

/// train.md 9: the excluded responses by label category and whether any
/// feature of the final list is non-numeric.
fn composition(
    sc1: &[f64],
    coerced: &[Vec<f64>],
    final_pos: &[usize],
    excluded: &[(usize, Why)],
) -> [[usize; 2]; 3] {
    let mut counts = [[0usize; 2]; 3];
    for &(i, _) in excluded {
        let h = if sc1[i].is_nan() {
            2
        } else if sc1[i] == 0.0 {
            1
        } else {
            0
        };
        let f = usize::from(final_pos.iter().any(|&j| coerced[j][i].is_nan()));
        counts[h][f] += 1;
    }
    counts
}

/// The second human score of the kept rows: coerced, zeros missing with
/// `exclude_zero_scores` (evaluation partition, when configured).
fn second_scores(cfg: &TrainConfig, table: &Table, kept: &[usize]) -> Option<Vec<f64>> {
    let values = table.column("sc2")?.values.to_numeric();
    Some(
        kept.iter()
            .map(|&i| {
                let v = values[i];
                if !v.is_finite() || (cfg.exclude_zero_scores && v == 0.0) {
                    f64::NAN
                } else {
                    v
                }
            })
            .collect(),
    )
}

/// What the frames are built from.
struct Kept<'a> {
    rows: &'a [usize],
    ids: &'a [Text],
    sc1: &'a [f64],
    /// The step-12 list and its coerced values (all rows).
    features: &'a [String],
    final_features: &'a [String],
    coerced: &'a [Vec<f64>],
    length: bool,
    sc2: Option<&'a [f64]>,
}

fn id_column(ids: &[Text], rows: &[usize]) -> Column {
    Column::new(
        "spkitemid",
        Values::Text(rows.iter().map(|&i| Some(ids[i].clone())).collect()),
    )
}

fn floats_at(name: &str, values: &[f64], rows: &[usize]) -> Column {
    Column::new(
        name,
        Values::Float(rows.iter().map(|&i| values[i]).collect()),
    )
}

/// Step 17: the partition's frames (`<p>_features` is made from
/// [`Part::raw`] when it is written).
fn frames(
    cfg: &TrainConfig,
    set: &Setting,
    table: &Table,
    k: &Kept,
    excluded: &[(usize, Why)],
    flagged: &[usize],
) -> Vec<Frame> {
    let p = set.name;
    let rows = k.rows;
    let mut out = Vec::new();
    let mut meta = vec![id_column(k.ids, rows)];
    for g in &cfg.subgroups {
        meta.push(Column::new(
            g.clone(),
            table.column(g).expect("checked").values.take(rows),
        ));
    }
    if cfg.candidate_column.is_some() {
        let c = &table.column("candidate").expect("renamed").values;
        meta.push(Column::new(
            "candidate",
            Values::Text(rows.iter().map(|&i| Some(text_at(c, i))).collect()),
        ));
    }
    out.push(Frame::new(format!("{p}_metadata"), None, meta));
    let mut used: HashSet<&str> = ["spkitemid", "sc1"].into_iter().collect();
    used.extend(k.final_features.iter().map(String::as_str));
    used.extend(cfg.subgroups.iter().map(String::as_str));
    if cfg.candidate_column.is_some() {
        used.insert("candidate");
    }
    if k.length {
        used.insert("length");
    }
    if k.sc2.is_some() {
        used.insert("sc2");
    }
    let mut other = vec![id_column(k.ids, rows)];
    for c in table
        .columns
        .iter()
        .filter(|c| !used.contains(c.name.as_str()))
    {
        other.push(Column::new(c.name.clone(), c.values.take(rows)));
    }
    out.push(Frame::new(format!("{p}_other_columns"), None, other));
    if k.length {
        let l = table.column("length").expect("renamed");
        out.push(Frame::new(
            "train_response_lengths",
            None,
            vec![
                id_column(k.ids, rows),
                Column::new("length", l.values.take(rows)),
            ],
        ));
    }
    if let Some(sc2) = k.sc2 {
        out.push(Frame::new(
            "test_human_scores",
            None,
            vec![
                id_column(k.ids, rows),
                floats_at("sc1", k.sc1, rows),
                Column::new("sc2", Values::Float(sc2.to_vec())),
            ],
        ));
    }
    out.push(excluded_frame(p, table, k, excluded));
    let flagged_cols: Vec<Column> = table
        .columns
        .iter()
        .map(|c| Column::new(c.name.clone(), c.values.take(flagged)))
        .collect();
    out.push(Frame::new(
        format!("{p}_responses_with_excluded_flags"),
        None,
        flagged_cols,
    ));
    out
}

/// `<p>_excluded_responses`: the excluded rows in exclusion order, columns
/// `spkitemid` then every other column in code-point order, the label and
/// the features as coerced numbers, the rest as read.
fn excluded_frame(p: &str, table: &Table, k: &Kept, excluded: &[(usize, Why)]) -> Frame {
    let rows: Vec<usize> = excluded.iter().map(|&(i, _)| i).collect();
    let mut names: Vec<&str> = table
        .names()
        .into_iter()
        .filter(|n| *n != "spkitemid")
        .collect();
    names.sort_unstable();
    let mut cols = vec![id_column(k.ids, &rows)];
    for name in names {
        let col = if name == "sc1" {
            floats_at("sc1", k.sc1, &rows)
        } else if let Some(j) = k.features.iter().position(|f| f == name) {
            floats_at(name, &k.coerced[j], &rows)
        } else {
            let c = table.column(name).expect("listed");
            Column::new(name, c.values.take(&rows))
        };
        cols.push(col);
    }
    Frame::new(format!("{p}_excluded_responses"), None, cols)
}
