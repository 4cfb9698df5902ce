//! Stage 3: cleaning the predictions exactly like the reference (spec
//! 2.3-2.13): reserved-name renaming, duplicate ids, `No info` subgroups,
//! flag filtering, human and system score filters, listwise candidate
//! exclusion, scaling, trimming and half-to-even rounding.
//!
//! Input: a validated [`Experiment`] and the [`Table`]s read by `input`.
//! Output: [`Prepared`], plain columns for the analyses plus the processing
//! frames of spec 2.13. No I/O happens here.

use crate::config::{Experiment, FlagValue, ScaleWith};
use crate::metrics::{round_half_even, summary};
use crate::table::{Cell, Column, Frame, Table, Values};
use anyhow::{bail, Result};
use std::collections::{HashMap, HashSet};

/// Internal names of the configured columns (spec 2.3).
pub const RESERVED: [&str; 6] = ["spkitemid", "sc1", "sc2", "raw", "candidate", "length"];

/// The value that replaces empty subgroup values.
pub const NO_INFO: &str = "No info";
/// The pseudo-group holding every response in by-group tables.
pub const ALL_DATA: &str = "All data";

/// One score type (`raw`, `scale_trim_round`, ...) for the kept responses.
#[derive(Clone, Debug)]
pub struct ScoreColumn {
    pub name: &'static str,
    /// Values as `f64` (the `*_round` types hold integral values).
    pub values: Vec<f64>,
}

impl ScoreColumn {
    pub fn is_rounded(&self) -> bool {
        self.name.ends_with("_round")
    }
}

/// A subgroup column of the kept responses, dictionary-encoded.
#[derive(Clone, Debug)]
pub struct Grouping {
    /// The subgroup column name as configured.
    pub name: String,
    /// Distinct values in code-point order (`No info` included when present).
    pub labels: Vec<String>,
    /// For each kept response, the index of its value in `labels`.
    pub codes: Vec<u32>,
}

impl Grouping {
    /// Number of kept responses per label.
    pub fn counts(&self) -> Vec<usize> {
        let mut counts = vec![0usize; self.labels.len()];
        for &c in &self.codes {
            counts[c as usize] += 1;
        }
        counts
    }
}

/// Why a response was excluded (spec 2.7-2.9), in exclusion-list order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exclusion {
    NonNumericHuman,
    ZeroHuman,
    NonNumericSystem,
    Listwise,
}

/// The scaling parameters of spec 2.10.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scaling {
    pub pred_mean: f64,
    pub pred_sd: f64,
    pub human_mean: f64,
    pub human_sd: f64,
}

impl Default for Scaling {
    fn default() -> Self {
        Scaling {
            pred_mean: 0.0,
            pred_sd: 1.0,
            human_mean: 0.0,
            human_sd: 1.0,
        }
    }
}

/// Everything the analyses need, plus the processing frames.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// Data rows in the predictions file before any filtering.
    pub n_original: usize,
    /// Rows removed by `flag_column`.
    pub n_flagged: usize,
    /// Reasons of the exclusion list, in its order, with the coerced human
    /// and system scores of each excluded response (`NaN` if non-numeric).
    pub excluded: Vec<(Exclusion, f64, f64)>,
    /// Whether listwise exclusion (`min_items_per_candidate`) is active.
    pub listwise: bool,
    /// First human score of the kept responses.
    pub sc1: Vec<f64>,
    /// Second human score (non-numeric and, with `exclude_zero_scores`,
    /// zero values are `NaN`), when configured.
    pub sc2: Option<Vec<f64>>,
    /// Non-numeric (non-empty) second-human values that became missing.
    pub sc2_non_numeric: usize,
    /// Score types in production order (spec 2.12).
    pub scores: Vec<ScoreColumn>,
    /// `scale` when scaled predictions are in use, else `raw`.
    pub primary: &'static str,
    pub scaling: Scaling,
    /// Subgroup columns in config order.
    pub groups: Vec<Grouping>,
    /// Number of distinct candidates among the kept responses.
    pub n_candidates: Option<usize>,
    /// `pred_processed`, `test_metadata`, `test_other_columns`,
    /// `test_human_scores`, `test_excluded_responses`,
    /// `test_responses_with_excluded_flags` (only those that exist).
    pub frames: Vec<Frame>,
}

impl Prepared {
    pub fn score(&self, name: &str) -> Option<&ScoreColumn> {
        self.scores.iter().find(|s| s.name == name)
    }

    /// The `X_trim` score type.
    pub fn x_trim(&self) -> &ScoreColumn {
        let name = if self.primary == "scale" {
            "scale_trim"
        } else {
            "raw_trim"
        };
        self.score(name)
            .expect("trimmed primary score always exists")
    }

    /// The `X_trim_round` score type.
    pub fn x_trim_round(&self) -> &ScoreColumn {
        let name = if self.primary == "scale" {
            "scale_trim_round"
        } else {
            "raw_trim_round"
        };
        self.score(name)
            .expect("rounded primary score always exists")
    }

    pub fn n(&self) -> usize {
        self.sc1.len()
    }
}

/// Text form of any cell, as pandas' `astype(str)` would give it.
fn cell_text(values: &Values, i: usize) -> Option<String> {
    match values {
        Values::Text(v) => v[i].clone(),
        _ => match values.cell(i) {
            Cell::Missing => None,
            Cell::Bool(b) => Some(if b { "True" } else { "False" }.to_string()),
            Cell::Int(x) => Some(x.to_string()),
            Cell::Float(x) => Some(crate::output::format::py_float(x)),
            Cell::Text(s) => Some(s),
        },
    }
}

/// Flag-value normalisation of spec 2.6 for a data cell.
fn flag_key(values: &Values, i: usize) -> FlagValue {
    match values.cell(i) {
        Cell::Missing => FlagValue::Number(f64::NAN),
        Cell::Bool(b) => FlagValue::Text(if b { "True" } else { "False" }.to_string()),
        Cell::Int(x) => FlagValue::Number(x as f64),
        Cell::Float(x) => FlagValue::Number(x),
        Cell::Text(s) => {
            let x = crate::table::parse_number(&s);
            if x.is_nan() {
                let t = s.trim();
                if t.eq_ignore_ascii_case("nan") || t.eq_ignore_ascii_case("-nan") {
                    FlagValue::Number(f64::NAN)
                } else {
                    FlagValue::Text(s)
                }
            } else {
                FlagValue::Number(x)
            }
        }
    }
}

fn flag_matches(value: &FlagValue, allowed: &[FlagValue]) -> bool {
    allowed.iter().any(|a| match (a, value) {
        (FlagValue::Number(x), FlagValue::Number(y)) => x == y || (x.is_nan() && y.is_nan()),
        (FlagValue::Text(x), FlagValue::Text(y)) => x == y,
        _ => false,
    })
}

/// Lists `names` for an error message: `'a', 'b'`.
fn quoted_list<S: AsRef<str>>(names: &[S]) -> String {
    names
        .iter()
        .map(|n| format!("'{}'", n.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The columns of `table` that `exp` needs as raw text (spec 2.1).
pub fn text_columns(exp: &Experiment) -> Vec<&str> {
    let mut cols = vec![exp.id_column.as_str()];
    if let Some(c) = &exp.candidate_column {
        cols.push(c);
    }
    cols.extend(exp.subgroups.iter().map(String::as_str));
    cols
}

/// Runs spec 2.3-2.13 on the predictions table (and the scale table when
/// `scale_with` names a file). `source` names the predictions file in
/// messages.
pub fn prepare(
    exp: &Experiment,
    mut table: Table,
    scale_table: Option<&Table>,
    source: &str,
) -> Result<Prepared> {
    let n_original = table.nrows;

    // 1.6 step 8: configured columns must exist.
    let mut configured: Vec<(&str, &'static str)> = vec![
        (exp.id_column.as_str(), "spkitemid"),
        (exp.human_score_column.as_str(), "sc1"),
    ];
    if let Some(c) = &exp.second_human_score_column {
        configured.push((c, "sc2"));
    }
    configured.push((exp.system_score_column.as_str(), "raw"));
    if let Some(c) = &exp.candidate_column {
        configured.push((c, "candidate"));
    }
    let absent: Vec<&str> = configured
        .iter()
        .map(|(c, _)| *c)
        .filter(|c| table.position(c).is_none())
        .collect();
    if !absent.is_empty() {
        let what = if absent.len() == 1 {
            format!("configured column {} is", quoted_list(&absent))
        } else {
            format!("configured columns {} are", quoted_list(&absent))
        };
        bail!(
            "{what} absent from the predictions file {source}; the file has the columns {}",
            quoted_list(&table.names())
        );
    }

    // 2.3 renaming: reserved names not configured under exactly that name
    // become `##name##`, then configured columns get their internal names.
    let configured_positions: Vec<(usize, &'static str)> = configured
        .iter()
        .map(|(c, internal)| (table.position(c).expect("checked above"), *internal))
        .collect();
    for (pos, col) in table.columns.iter_mut().enumerate() {
        if RESERVED.contains(&col.name.as_str())
            && !configured_positions
                .iter()
                .any(|(p, internal)| *p == pos && *internal == col.name)
        {
            col.name = format!("##{}##", col.name);
        }
    }
    for (pos, internal) in &configured_positions {
        table.columns[*pos].name = internal.to_string();
    }

    // 2.4 duplicate ids.
    let id_col = table.position("spkitemid").expect("renamed above");
    let ids: Vec<String> = (0..table.nrows)
        .map(|i| cell_text(&table.columns[id_col].values, i).unwrap_or_else(|| "nan".into()))
        .collect();
    {
        let mut seen: HashSet<&str> = HashSet::with_capacity(ids.len());
        let mut dups: Vec<&str> = Vec::new();
        for id in &ids {
            if !seen.insert(id.as_str()) && !dups.contains(&id.as_str()) {
                dups.push(id);
                if dups.len() == 5 {
                    break;
                }
            }
        }
        if !dups.is_empty() {
            bail!(
                "duplicate response ids in the id column '{}' of {source} (first duplicates: {}); \
                 every response needs a unique id",
                exp.id_column,
                quoted_list(&dups)
            );
        }
    }
    table.columns[id_col].values = Values::Text(ids.into_iter().map(Some).collect());

    // 2.5 subgroup columns.
    let missing_groups: Vec<&String> = exp
        .subgroups
        .iter()
        .filter(|g| table.position(g).is_none())
        .collect();
    if !missing_groups.is_empty() {
        bail!(
            "subgroup column(s) {} absent from the predictions file {source}; the file has the columns {}",
            quoted_list(&missing_groups),
            quoted_list(&table.names())
        );
    }
    for g in &exp.subgroups {
        let pos = table.position(g).expect("checked above");
        let values = &table.columns[pos].values;
        let mut texts = Vec::with_capacity(table.nrows);
        for i in 0..table.nrows {
            let t = cell_text(values, i).unwrap_or_default();
            let t = if t.trim().is_empty() {
                NO_INFO.to_string()
            } else {
                t
            };
            if t == ALL_DATA {
                bail!(
                    "subgroup column '{g}' of {source} has the value 'All data' (row {}), \
                     which is reserved for the whole evaluation set; rename that value",
                    i + 2
                );
            }
            texts.push(Some(t));
        }
        table.columns[pos].values = Values::Text(texts);
    }

    // 2.6 flag filtering.
    let mut keep: Vec<usize> = (0..table.nrows).collect();
    let mut flagged: Vec<usize> = Vec::new();
    if !exp.flag_column.is_empty() {
        let missing_flags: Vec<&str> = exp
            .flag_column
            .iter()
            .map(|f| f.column.as_str())
            .filter(|c| table.position(c).is_none())
            .collect();
        if !missing_flags.is_empty() {
            bail!(
                "flag column(s) {} absent from the predictions file {source}; the file has the columns {}",
                quoted_list(&missing_flags),
                quoted_list(&table.names())
            );
        }
        let filters: Vec<(usize, &[FlagValue])> = exp
            .flag_column
            .iter()
            .map(|f| {
                (
                    table.position(&f.column).expect("checked"),
                    f.allowed.as_slice(),
                )
            })
            .collect();
        let (kept, removed): (Vec<usize>, Vec<usize>) = keep.iter().partition(|&&i| {
            filters.iter().all(|(pos, allowed)| {
                flag_matches(&flag_key(&table.columns[*pos].values, i), allowed)
            })
        });
        keep = kept;
        flagged = removed;
        if keep.is_empty() {
            bail!(
                "no responses left after flag filtering: none of the {n_original} responses in {source} \
                 has an allowed value in every flag column ({})",
                exp.flag_column
                    .iter()
                    .map(|f| f.column.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }

    // 2.7 human-score filter.
    let sc1_pos = table.position("sc1").expect("renamed");
    let raw_pos = table.position("raw").expect("renamed");
    let sc1_all = table.columns[sc1_pos].values.to_numeric();
    let raw_all = table.columns[raw_pos].values.to_numeric();
    let mut excluded: Vec<(Exclusion, usize)> = Vec::new();
    let mut after_h: Vec<usize> = Vec::with_capacity(keep.len());
    for &i in &keep {
        if !sc1_all[i].is_finite() {
            excluded.push((Exclusion::NonNumericHuman, i));
        }
    }
    if exp.exclude_zero_scores {
        for &i in &keep {
            if sc1_all[i] == 0.0 {
                excluded.push((Exclusion::ZeroHuman, i));
            }
        }
    }
    for &i in &keep {
        let x = sc1_all[i];
        if x.is_finite() && !(exp.exclude_zero_scores && x == 0.0) {
            after_h.push(i);
        }
    }
    if after_h.is_empty() {
        let zeros = if exp.exclude_zero_scores {
            " (zero human scores are excluded too, see exclude_zero_scores)"
        } else {
            ""
        };
        bail!(
            "no responses left after removing non-numeric human scores: column '{}' of {source} \
             has no usable numeric value in any of the {} responses{zeros}",
            exp.human_score_column,
            keep.len()
        );
    }

    // 2.8 system-score filter.
    let mut after_s: Vec<usize> = Vec::with_capacity(after_h.len());
    for &i in &after_h {
        if raw_all[i].is_finite() {
            after_s.push(i);
        } else {
            excluded.push((Exclusion::NonNumericSystem, i));
        }
    }
    if after_s.is_empty() {
        bail!(
            "no responses left after removing non-numeric system scores: column '{}' of {source} \
             has no numeric value in any of the {} responses with a usable human score",
            exp.system_score_column,
            after_h.len()
        );
    }

    // 2.9 listwise exclusion.
    let mut kept = after_s;
    let listwise = exp.min_items_per_candidate.is_some_and(|m| m > 0);
    let cand_pos = table.position("candidate");
    if let (Some(min_items), true, Some(cpos)) = (exp.min_items_per_candidate, listwise, cand_pos) {
        let cvals = &table.columns[cpos].values;
        let mut counts: HashMap<String, u64> = HashMap::new();
        for &i in &kept {
            *counts
                .entry(cell_text(cvals, i).unwrap_or_default())
                .or_default() += 1;
        }
        let (k, out): (Vec<usize>, Vec<usize>) = kept
            .iter()
            .partition(|&&i| counts[&cell_text(cvals, i).unwrap_or_default()] >= min_items);
        excluded.extend(out.into_iter().map(|i| (Exclusion::Listwise, i)));
        kept = k;
        if kept.is_empty() {
            bail!(
                "no responses left after listwise exclusion: no candidate in column '{}' has \
                 {min_items} or more remaining responses (min_items_per_candidate = {min_items})",
                exp.candidate_column.as_deref().unwrap_or("candidate")
            );
        }
    }

    // 2.10 scaling.
    let scaling = match (&exp.scale_with, scale_table) {
        (ScaleWith::File(path), Some(st)) => scaling_from(st, &path.display().to_string())?,
        (ScaleWith::File(path), None) => {
            bail!("scale file {} was not read", path.display())
        }
        _ => Scaling::default(),
    };

    // 2.11-2.12 score types.
    let raw: Vec<f64> = kept.iter().map(|&i| raw_all[i]).collect();
    let sc1: Vec<f64> = kept.iter().map(|&i| sc1_all[i]).collect();
    let lo = exp.trim_min - exp.trim_tolerance;
    let hi = exp.trim_max + exp.trim_tolerance;
    let trim = |v: &[f64]| -> Vec<f64> { v.iter().map(|&x| trim_value(x, lo, hi)).collect() };
    let round = |v: &[f64]| -> Vec<f64> { v.iter().map(|&x| round_half_even(x) + 0.0).collect() };
    let mut scores = Vec::new();
    let with_raw = !matches!(exp.scale_with, ScaleWith::Asis);
    if with_raw {
        let raw_trim = trim(&raw);
        let raw_trim_round = round(&raw_trim);
        scores.push(ScoreColumn {
            name: "raw",
            values: raw.clone(),
        });
        scores.push(ScoreColumn {
            name: "raw_trim",
            values: raw_trim,
        });
        scores.push(ScoreColumn {
            name: "raw_trim_round",
            values: raw_trim_round,
        });
    }
    if exp.scaled() {
        let s = &scaling;
        let scale: Vec<f64> = raw
            .iter()
            .map(|&x| (x - s.pred_mean) / s.pred_sd * s.human_sd + s.human_mean)
            .collect();
        let scale_trim = trim(&scale);
        let scale_trim_round = round(&scale_trim);
        scores.push(ScoreColumn {
            name: "scale",
            values: scale,
        });
        scores.push(ScoreColumn {
            name: "scale_trim",
            values: scale_trim,
        });
        scores.push(ScoreColumn {
            name: "scale_trim_round",
            values: scale_trim_round,
        });
    }
    let primary = if exp.scaled() { "scale" } else { "raw" };

    // Second human score.
    let sc2_pos = table.position("sc2");
    let mut sc2_non_numeric = 0;
    let sc2: Option<Vec<f64>> = sc2_pos.map(|pos| {
        let vals = &table.columns[pos].values;
        let numeric = vals.to_numeric();
        kept.iter()
            .map(|&i| {
                let x = numeric[i];
                if x.is_nan() {
                    if let Some(t) = cell_text(vals, i) {
                        if !is_na_token(&t) {
                            sc2_non_numeric += 1;
                        }
                    }
                }
                if exp.exclude_zero_scores && x == 0.0 {
                    f64::NAN
                } else {
                    x
                }
            })
            .collect()
    });

    // Subgroups of the kept rows.
    let groups: Vec<Grouping> = exp
        .subgroups
        .iter()
        .map(|g| {
            let pos = table.position(g).expect("checked");
            let Values::Text(vals) = &table.columns[pos].values else {
                unreachable!("subgroup columns were converted to text above")
            };
            encode(
                g,
                kept.iter().map(|&i| vals[i].as_deref().unwrap_or(NO_INFO)),
            )
        })
        .collect();

    let n_candidates = cand_pos.map(|cpos| {
        let cvals = &table.columns[cpos].values;
        kept.iter()
            .map(|&i| cell_text(cvals, i).unwrap_or_default())
            .collect::<HashSet<_>>()
            .len()
    });

    // 2.13 frames.
    let mut frames = Vec::new();
    let ids_kept = table.columns[id_col].values.take(&kept);
    {
        let mut cols = vec![
            Column::new("spkitemid", ids_kept.clone()),
            Column::new("sc1", Values::Float(sc1.clone())),
        ];
        for s in &scores {
            let values = if s.is_rounded() {
                Values::Int(s.values.iter().map(|&x| x as i64).collect())
            } else {
                Values::Float(s.values.clone())
            };
            cols.push(Column::new(s.name, values));
        }
        frames.push(Frame::new("pred_processed", None, cols));
    }
    {
        let mut cols = vec![Column::new("spkitemid", ids_kept.clone())];
        for g in &exp.subgroups {
            let pos = table.position(g).expect("checked");
            cols.push(Column::new(
                g.clone(),
                table.columns[pos].values.take(&kept),
            ));
        }
        if let Some(cpos) = cand_pos {
            cols.push(Column::new(
                "candidate",
                table.columns[cpos].values.take(&kept),
            ));
        }
        frames.push(Frame::new("test_metadata", None, cols));
    }
    {
        let produced: Vec<&str> = scores.iter().map(|s| s.name).collect();
        let mut cols = Vec::new();
        for c in &table.columns {
            let n = c.name.as_str();
            let skip = n == "sc1"
                || n == "sc2"
                || produced.contains(&n)
                || exp.subgroups.iter().any(|g| g == n)
                || n == "candidate";
            if skip {
                continue;
            }
            let values = if n == "raw" {
                Values::Float(raw.clone())
            } else {
                c.values.take(&kept)
            };
            cols.push(Column::new(n, values));
        }
        frames.push(Frame::new("test_other_columns", None, cols));
    }
    if let Some(sc2) = &sc2 {
        frames.push(Frame::new(
            "test_human_scores",
            None,
            vec![
                Column::new("spkitemid", ids_kept.clone()),
                Column::new("sc1", Values::Float(sc1.clone())),
                Column::new("sc2", Values::Float(sc2.clone())),
            ],
        ));
    }
    if !excluded.is_empty() {
        let rows: Vec<usize> = excluded.iter().map(|(_, i)| *i).collect();
        let mut others: Vec<&Column> = table
            .columns
            .iter()
            .filter(|c| c.name != "spkitemid")
            .collect();
        others.sort_by(|a, b| a.name.cmp(&b.name));
        let mut cols = vec![Column::new(
            "spkitemid",
            table.columns[id_col].values.take(&rows),
        )];
        for c in others {
            let values = match c.name.as_str() {
                "sc1" => Values::Float(rows.iter().map(|&i| sc1_all[i]).collect()),
                "raw" => Values::Float(rows.iter().map(|&i| raw_all[i]).collect()),
                _ => c.values.take(&rows),
            };
            cols.push(Column::new(c.name.clone(), values));
        }
        frames.push(Frame::new("test_excluded_responses", None, cols));
    }
    if !flagged.is_empty() {
        let cols = table
            .columns
            .iter()
            .map(|c| Column::new(c.name.clone(), c.values.take(&flagged)))
            .collect();
        frames.push(Frame::new("test_responses_with_excluded_flags", None, cols));
    }

    Ok(Prepared {
        n_original,
        n_flagged: flagged.len(),
        excluded: excluded
            .iter()
            .map(|&(why, i)| (why, sc1_all[i], raw_all[i]))
            .collect(),
        listwise,
        sc1,
        sc2,
        sc2_non_numeric,
        scores,
        primary,
        scaling,
        groups,
        n_candidates,
        frames,
    })
}

/// Trimming of spec 2.11: above `hi` becomes `hi`, then below `lo` becomes `lo`.
#[inline]
pub fn trim_value(x: f64, lo: f64, hi: f64) -> f64 {
    let x = if x > hi { hi } else { x };
    if x < lo {
        lo
    } else {
        x
    }
}

/// Whether `text` is one of pandas' missing-value tokens.
fn is_na_token(text: &str) -> bool {
    const NA: [&str; 19] = [
        "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
        "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
    ];
    NA.contains(&text.trim())
}

/// Dictionary-encodes group values, labels in code-point order.
pub fn encode<'a>(name: &str, values: impl Iterator<Item = &'a str> + Clone) -> Grouping {
    let mut labels: Vec<String> = values
        .clone()
        .collect::<HashSet<&str>>()
        .into_iter()
        .map(str::to_string)
        .collect();
    labels.sort();
    let index: HashMap<&str, u32> = labels
        .iter()
        .enumerate()
        .map(|(i, l)| (l.as_str(), i as u32))
        .collect();
    let codes = values.map(|v| index[v]).collect();
    Grouping {
        name: name.to_string(),
        labels,
        codes,
    }
}

/// Scaling parameters from a scale file (spec 2.10).
fn scaling_from(table: &Table, source: &str) -> Result<Scaling> {
    let missing: Vec<&str> = ["sc1", "prediction"]
        .into_iter()
        .filter(|c| table.column(c).is_none())
        .collect();
    if !missing.is_empty() {
        bail!(
            "the scale file {source} must have the columns 'sc1' and 'prediction'; missing: {}; it has {}",
            quoted_list(&missing),
            quoted_list(&table.names())
        );
    }
    let pred = table
        .column("prediction")
        .expect("checked")
        .values
        .to_numeric();
    let human = table.column("sc1").expect("checked").values.to_numeric();
    let (pred_mean, pred_sd) = summary::nan_mean_sd(&pred);
    let (human_mean, human_sd) = summary::nan_mean_sd(&human);
    if !(pred_sd.is_finite() && pred_sd > 0.0) {
        bail!(
            "the scale file {source} cannot be used for scaling: column 'prediction' needs at least \
             two different numeric values (its standard deviation is {pred_sd})"
        );
    }
    Ok(Scaling {
        pred_mean,
        pred_sd,
        human_mean,
        human_sd,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trimming_clamps_to_the_padded_bounds() {
        assert_eq!(trim_value(0.2, 0.5002, 6.4998), 0.5002);
        assert_eq!(trim_value(7.0, 0.5002, 6.4998), 6.4998);
        assert_eq!(trim_value(3.3, 0.5002, 6.4998), 3.3);
    }

    #[test]
    fn rounding_at_the_trim_bounds_is_half_to_even() {
        // tolerance 0.5, trim range [1, 4]: 0.5 -> 0, 4.5 -> 4; 2.5 -> 2
        let lo = 1.0 - 0.5;
        let hi = 4.0 + 0.5;
        assert_eq!(round_half_even(trim_value(-3.0, lo, hi)), 0.0);
        assert_eq!(round_half_even(trim_value(9.0, lo, hi)), 4.0);
        assert_eq!(round_half_even(2.5), 2.0);
        assert_eq!(round_half_even(3.5), 4.0);
        // default tolerance keeps the bounds inside [1, 4]
        assert_eq!(round_half_even(trim_value(-3.0, 1.0 - 0.4998, hi)), 1.0);
    }

    #[test]
    fn flag_values_compare_numerically_or_as_text() {
        let allowed = [FlagValue::Number(1.0), FlagValue::Text("ok".into())];
        let col = Values::Text(vec![
            Some(" 1".into()),
            Some("1.0".into()),
            Some("ok".into()),
            Some("2".into()),
            None,
        ]);
        let got: Vec<bool> = (0..5)
            .map(|i| flag_matches(&flag_key(&col, i), &allowed))
            .collect();
        assert_eq!(got, [true, true, true, false, false]);
        let ints = Values::Int(vec![1, 0]);
        assert!(flag_matches(&flag_key(&ints, 0), &allowed));
        assert!(!flag_matches(&flag_key(&ints, 1), &allowed));
    }

    #[test]
    fn encode_sorts_labels_by_code_point() {
        let g = encode("L1", ["b", "No info", "a", "b", "Afr"].into_iter());
        assert_eq!(g.labels, ["Afr", "No info", "a", "b"]);
        assert_eq!(g.codes, [3, 1, 2, 3, 0]);
        assert_eq!(g.counts(), [1, 1, 1, 2]);
    }
}
