//! Command assembly (train): the feature specification (train.md 4): the
//! feature file (4.1) or the subset file and its sign column, the default
//! specification (4.2), the automatic transformations (4.3, through
//! `metrics::linear::preprocess`), and the `feature/<id>_selected` table.
//!
//! Reads no file (`read` did); a problem with the feature or subset file
//! is a configuration error naming the file; writes nothing.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{anyhow, Result};
use rsmreport_config::train::TrainConfig;
use rsmreport_core::error;
use rsmreport_core::table::{Column, Frame, Table, Values};
use rsmreport_metrics::linear::preprocess::{
    select_transform, selected_sign, FeatureSpec, Transform, Truncation,
};

/// One row of the feature file (4.1).
#[derive(Clone, Debug)]
pub struct FileRow {
    pub transform: Transform,
    pub sign: f64,
    /// `min`, `max` (with `use_truncation_thresholds`).
    pub bounds: Option<(f64, f64)>,
    /// The row's position in the file (for the `min`/`max` cells as read).
    pub row: usize,
}

/// A checked feature file: its features in file order with their rows.
#[derive(Clone, Debug)]
pub struct FeatureFile {
    pub names: Vec<String>,
    pub rows: HashMap<String, FileRow>,
    /// The `min` and `max` columns as read (for `_selected`).
    pub min_max: Option<(Values, Values)>,
}

fn config_error(path: &Path, message: impl std::fmt::Display) -> anyhow::Error {
    error::config(anyhow!("{}: {message}", path.display()))
}

/// The `feature` column (a title-case `Feature` is accepted), as text.
fn feature_names(path: &Path, table: &Table, what: &str) -> Result<Vec<String>> {
    let col = table
        .column("feature")
        .or_else(|| table.column("Feature"))
        .ok_or_else(|| {
            config_error(
                path,
                format!(
                    "the {what} has no column 'feature' (or 'Feature'); its columns are {}",
                    table.names().join(", ")
                ),
            )
        })?;
    Ok((0..table.nrows)
        .map(|i| {
            crate::preprocess::cell_text(&col.values, i)
                .map_or_else(String::new, |c| c.into_owned())
        })
        .collect())
}

/// Reads and checks the feature file (train.md 4.1; configuration errors
/// naming the file).
pub fn feature_file(cfg: &TrainConfig, path: &Path, table: &Table) -> Result<FeatureFile> {
    let names = feature_names(path, table, "feature file")?;
    let mut dups: Vec<&str> = Vec::new();
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) && !dups.contains(&n.as_str()) {
            dups.push(n);
        }
    }
    if !dups.is_empty() {
        return Err(config_error(
            path,
            format!(
                "the feature file lists these features more than once: {}",
                dups.join(", ")
            ),
        ));
    }
    let signs = table.column("sign").map(|c| c.values.to_numeric());
    let transforms = table.column("transform").map(|c| &c.values);
    let bounds = if cfg.use_truncation_thresholds {
        let get = |c: &str| {
            table
                .column(c)
                .map(|c| c.values.to_numeric())
                .ok_or_else(|| {
                    config_error(
                        path,
                        format!(
                        "use_truncation_thresholds needs a '{c}' column in the feature file; its \
                         columns are {}",
                        table.names().join(", ")
                    ),
                    )
                })
        };
        Some((get("min")?, get("max")?))
    } else {
        None
    };
    let mut rows = HashMap::new();
    for (i, name) in names.iter().enumerate() {
        let sign = match &signs {
            None => 1.0,
            Some(s) if s[i] == 1.0 || s[i] == -1.0 => s[i],
            Some(_) => {
                let shown =
                    crate::preprocess::cell_text(&table.column("sign").expect("present").values, i)
                        .map_or_else(|| "(empty)".to_string(), |c| format!("'{c}'"));
                return Err(config_error(
                    path,
                    format!(
                        "the sign of feature '{name}' (row {}) is {shown}, but a sign must be 1 \
                         or -1",
                        i + 1
                    ),
                ));
            }
        };
        let transform = match transforms {
            None => Transform::Raw,
            Some(v) => {
                let text = crate::preprocess::cell_text(v, i)
                    .map_or_else(String::new, |c| c.trim().to_string());
                text.parse::<Transform>().map_err(|e| {
                    config_error(path, format!("feature '{name}' (row {}): {e}", i + 1))
                })?
            }
        };
        let b = match &bounds {
            None => None,
            Some((lo, hi)) if lo[i].is_finite() && hi[i].is_finite() => Some((lo[i], hi[i])),
            Some(_) => {
                return Err(config_error(
                    path,
                    format!(
                        "feature '{name}' (row {}) has no numeric min and max, which \
                         use_truncation_thresholds needs",
                        i + 1
                    ),
                ))
            }
        };
        rows.insert(
            name.clone(),
            FileRow {
                transform,
                sign,
                bounds: b,
                row: i,
            },
        );
    }
    let min_max = bounds.as_ref().map(|_| {
        (
            table.column("min").expect("checked").values.clone(),
            table.column("max").expect("checked").values.clone(),
        )
    });
    Ok(FeatureFile {
        names,
        rows,
        min_max,
    })
}

/// train.md 2: the length and second human score columns cannot be listed
/// as features (configuration errors).
pub fn check_roles_not_features(cfg: &TrainConfig, requested: &[String]) -> Result<()> {
    for (key, col) in [
        ("length_column", &cfg.length_column),
        ("second_human_score_column", &cfg.second_human_score_column),
    ] {
        if let Some(c) = col.as_ref().filter(|c| requested.contains(c)) {
            return Err(error::config(anyhow!(
                "{}: the features list '{c}', which is the {key}; the {key} cannot be a feature",
                cfg.config_path.display()
            )));
        }
    }
    Ok(())
}

/// The subset file: the names marked 1 in `feature_subset` (data order of
/// the file) and the base signs of `Sign_<sign>`.
#[derive(Clone, Debug, Default)]
pub struct Subset {
    pub names: Option<Vec<String>>,
    pub signs: Option<HashMap<String, f64>>,
}

/// Reads the subset file's columns the config names (configuration errors
/// naming the file and the column).
pub fn subset(cfg: &TrainConfig, path: &Path, table: &Table) -> Result<Subset> {
    let names = feature_names(path, table, "feature subset file")?;
    let column = |c: &str, key: &str| {
        table.column(c).ok_or_else(|| {
            config_error(
                path,
                format!(
                    "the feature subset file has no column '{c}' ({key}); its columns are {}",
                    table.names().join(", ")
                ),
            )
        })
    };
    let mut out = Subset::default();
    if let Some(s) = &cfg.feature_subset {
        let marks = column(s, "feature_subset")?.values.to_numeric();
        out.names = Some(
            names
                .iter()
                .zip(&marks)
                .filter(|(_, &m)| m == 1.0)
                .map(|(n, _)| n.clone())
                .collect(),
        );
    }
    if let Some(s) = &cfg.sign {
        let col = format!("Sign_{s}");
        let values = &column(&col, "sign")?.values;
        out.signs = Some(
            names
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    let minus =
                        crate::preprocess::cell_text(values, i).is_some_and(|c| c.trim() == "-");
                    (n.clone(), if minus { -1.0 } else { 1.0 })
                })
                .collect(),
        );
    }
    Ok(out)
}

/// Where each feature's transform and sign came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    File,
    Generated,
}

/// The specification of `F` (train.md 4), in `F` order.
#[derive(Clone, Debug)]
pub struct Specification {
    pub specs: Vec<FeatureSpec>,
    pub origin: Origin,
    /// Feature-file rows of the features (for `_selected`'s min/max).
    pub file_rows: Vec<usize>,
}

/// The specification of the final features `f` (train.md 4.1-4.3):
/// `raw` values and labels `y` of the training partition choose the
/// transforms with `select_transformations` (no feature file).
pub fn specification(
    cfg: &TrainConfig,
    file: Option<&FeatureFile>,
    subset: &Subset,
    f: &[String],
    raw: &[Vec<f64>],
    y: &[f64],
    notes: &mut Vec<String>,
) -> Specification {
    let truncation = |bounds: Option<(f64, f64)>| match (cfg.truncate_outliers, bounds) {
        (false, _) => Truncation::None,
        (true, Some((min, max))) => Truncation::Thresholds { min, max },
        (true, None) => Truncation::MeanSd4,
    };
    if let Some(file) = file {
        let rows: Vec<&FileRow> = f.iter().map(|n| &file.rows[n]).collect();
        return Specification {
            specs: f
                .iter()
                .zip(&rows)
                .map(|(n, r)| FeatureSpec {
                    name: n.clone(),
                    transform: r.transform,
                    sign: r.sign,
                    truncation: truncation(r.bounds),
                })
                .collect(),
            origin: Origin::File,
            file_rows: rows.iter().map(|r| r.row).collect(),
        };
    }
    let mut absent = Vec::new();
    let specs = f
        .iter()
        .zip(raw)
        .map(|(n, x)| {
            let (transform, sign) = if cfg.select_transformations {
                let base = match &subset.signs {
                    Some(signs) => signs.get(n).copied().unwrap_or_else(|| {
                        absent.push(n.clone());
                        1.0
                    }),
                    None => 1.0,
                };
                let t = select_transform(x, y);
                (t, selected_sign(base, t))
            } else {
                (Transform::Raw, 1.0)
            };
            FeatureSpec {
                name: n.clone(),
                transform,
                sign,
                truncation: truncation(None),
            }
        })
        .collect();
    if !absent.is_empty() {
        notes.push(format!(
            "warning: no sign for {} in the subset file's Sign_{} column: +1 is used",
            absent.join(", "),
            cfg.sign.as_deref().unwrap_or_default()
        ));
    }
    Specification {
        specs,
        origin: Origin::Generated,
        file_rows: Vec::new(),
    }
}

/// `feature/<id>_selected`: the rows of `S` in `F` order, `feature, sign,
/// transform[, min, max]` from a feature file, else `feature, transform,
/// sign`.
pub fn selected_frame(spec: &Specification, file: Option<&FeatureFile>, s: &[String]) -> Frame {
    let idx: Vec<usize> = (0..spec.specs.len())
        .filter(|&i| s.contains(&spec.specs[i].name))
        .collect();
    let names = Column::new(
        "feature",
        Values::Text(
            idx.iter()
                .map(|&i| Some(spec.specs[i].name.as_str().into()))
                .collect(),
        ),
    );
    let sign = Column::new(
        "sign",
        Values::Float(idx.iter().map(|&i| spec.specs[i].sign).collect()),
    );
    let transform = Column::new(
        "transform",
        Values::Text(
            idx.iter()
                .map(|&i| Some(spec.specs[i].transform.name().into()))
                .collect(),
        ),
    );
    let mut cols = match spec.origin {
        Origin::File => vec![names, sign, transform],
        Origin::Generated => vec![names, transform, sign],
    };
    if let (Origin::File, Some((min, max))) = (spec.origin, file.and_then(|f| f.min_max.as_ref())) {
        let rows: Vec<usize> = idx.iter().map(|&i| spec.file_rows[i]).collect();
        cols.push(Column::new("min", min.take(&rows)));
        cols.push(Column::new("max", max.take(&rows)));
    }
    Frame::new("selected", None, cols)
}
