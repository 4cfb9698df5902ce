//! Command assembly (train): the inputs of a training run (train.md 3.1):
//! the training and test files (ids, candidates and subgroups as raw text,
//! everything else with type inference), the feature file and the subset
//! file, each read through `rsmreport_io::input` while another thread
//! computes its SHA-256; and the list of every file the run reads.
//!
//! Reads the input files; computes nothing; writes nothing.

use std::path::{Path, PathBuf};

use anyhow::Result;
use rsmreport_config::train::TrainConfig;
use rsmreport_config::Section;
use rsmreport_core::error;
use rsmreport_core::provenance::{timed, InputInfo};
use rsmreport_core::table::Table;

/// Reads the table at `path` (`text` columns as raw text) and hashes it:
/// `build`'s reader (`evaluation::read::read_with_hash`).
pub fn read_hashed(role: &'static str, path: &Path, text: &[&str]) -> Result<(Table, InputInfo)> {
    crate::kinds::evaluation::read::read_with_hash(role, path, text)
}

/// The columns read as text: ids, candidates, subgroups (rsmeval 2.1).
fn text_columns(cfg: &TrainConfig) -> Vec<&str> {
    let mut cols = vec![cfg.id_column.as_str()];
    cols.extend(cfg.candidate_column.as_deref());
    cols.extend(cfg.subgroups.iter().map(String::as_str));
    cols
}

/// Everything a training run reads.
pub struct Inputs {
    pub train: Table,
    pub test: Table,
    pub features: Option<Table>,
    pub subset: Option<Table>,
    pub info: Vec<InputInfo>,
}

/// Reads the training, test, feature and subset files. A feature or
/// subset file that cannot be read is a configuration error.
pub fn read(cfg: &TrainConfig) -> Result<Inputs> {
    let text = text_columns(cfg);
    let (train, i_train) = timed("read training file", || {
        read_hashed("training", &cfg.train_file, &text)
    })?;
    let (test, i_test) = timed("read test file", || {
        read_hashed("test", &cfg.test_file, &text)
    })?;
    let mut info = vec![i_train, i_test];
    let mut aux = |role: &'static str, path: Option<&Path>| -> Result<Option<Table>> {
        let Some(path) = path else {
            return Ok(None);
        };
        let (t, i) = read_hashed(role, path, &[]).map_err(error::config)?;
        info.push(i);
        Ok(Some(t))
    };
    let features = aux("feature", cfg.feature_file())?;
    let subset = aux("feature subset", cfg.feature_subset_file.as_deref())?;
    Ok(Inputs {
        train,
        test,
        features,
        subset,
        info,
    })
}

/// Every file a training run reads: the experiment, the data, the feature
/// and subset files and the custom sections.
pub fn files(cfg: &TrainConfig) -> Vec<PathBuf> {
    let mut out = vec![
        cfg.config_path.clone(),
        cfg.train_file.clone(),
        cfg.test_file.clone(),
    ];
    out.extend(cfg.feature_file().map(Path::to_path_buf));
    out.extend(cfg.feature_subset_file.clone());
    out.extend(cfg.sections.iter().filter_map(|s| match s {
        Section::Custom { path, .. } => Some(path.clone()),
        Section::Builtin(_) => None,
    }));
    out
}
