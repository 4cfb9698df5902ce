//! Command assembly (evaluation): the inputs of a build: the predictions
//! file and the scale file, each read through `rsmreport_io::input` while another
//! thread computes its SHA-256, and the list of every file a build reads.
//!
//! Reads the input files; computes nothing; writes nothing.

use std::path::Path;

use anyhow::{Context, Result};

use crate::preprocess;
use rsmreport_config::{Experiment, ScaleWith};
use rsmreport_core::provenance::{timed, InputInfo};
use rsmreport_core::table::Table;

/// Reads a table and, on another thread, hashes the same file (`train`
/// reads its data files with it too).
pub fn read_with_hash(
    role: &'static str,
    path: &Path,
    text_columns: &[&str],
) -> Result<(rsmreport_core::table::Table, InputInfo)> {
    let (table, sha256) = rsmreport_core::provenance::read_with_checksum(path, || {
        rsmreport_io::input::read_table(path, text_columns)
            .with_context(|| format!("cannot read the {role} file"))
    });
    let table = table?;
    let info = InputInfo {
        role,
        path: path.to_path_buf(),
        rows: table.nrows,
        sha256: sha256?,
    };
    Ok((table, info))
}

/// The predictions table, the scale table (when `scale_with` names a
/// file) and the provenance of both.
pub fn read(exp: &Experiment) -> Result<(Table, Option<Table>, Vec<InputInfo>)> {
    let text_cols = preprocess::text_columns(exp);
    let (table, info) = timed("read predictions", || {
        read_with_hash("predictions", &exp.predictions_file, &text_cols)
    })?;
    let mut inputs = vec![info];
    let scale_table = match &exp.scale_with {
        ScaleWith::File(path) => {
            let (t, info) = timed("read scale", || read_with_hash("scale", path, &[]))?;
            inputs.push(info);
            Some(t)
        }
        _ => None,
    };
    Ok((table, scale_table, inputs))
}

/// The files `build` reads for the experiment `exp`: the experiment file,
/// the predictions file, the scale file and the custom sections.
pub fn experiment_files(exp: &rsmreport_config::Experiment) -> Vec<&std::path::Path> {
    let mut out = vec![exp.config_path.as_path(), exp.predictions_file.as_path()];
    if let rsmreport_config::ScaleWith::File(p) = &exp.scale_with {
        out.push(p);
    }
    out.extend(exp.sections.iter().filter_map(|s| match s {
        rsmreport_config::Section::Custom { path, .. } => Some(path.as_path()),
        rsmreport_config::Section::Builtin(_) => None,
    }));
    out
}
