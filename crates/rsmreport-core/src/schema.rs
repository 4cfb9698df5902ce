//! Leaf module (schema): the names the output folder and the reference
//! (RSMTool's `rsmeval`) agree on, shared by every stage and kind: the
//! reserved internal column names, the `All data` and `No info` labels, the
//! cell texts read as missing, the columns of the `eval` and `consistency`
//! tables and the statistics that carry intervals, and the rule for names
//! used inside file names, and the formats of the output tables
//! ([`FileFormat`]). Constants and one check; imports nothing of the
//! crate, does no I/O.

use anyhow::{bail, Result};

/// Internal names of the configured columns (spec 2.3).
pub const RESERVED: [&str; 6] = ["spkitemid", "sc1", "sc2", "raw", "candidate", "length"];

/// The value that replaces empty subgroup values.
pub const NO_INFO: &str = "No info";
/// The pseudo-group holding every response in by-group tables.
pub const ALL_DATA: &str = "All data";

/// The columns of `eval` after the index (also what a gate may name).
pub const EVAL_COLUMNS: [&str; 17] = [
    "N",
    "h_mean",
    "h_sd",
    "h_min",
    "h_max",
    "sys_mean",
    "sys_sd",
    "sys_min",
    "sys_max",
    "corr",
    "wtkappa",
    "R2",
    "kappa",
    "exact_agr",
    "adj_agr",
    "SMD",
    "RMSE",
];

/// The columns of `consistency` after `N`: (its name, the metric block's
/// name); also what an `hh.` gate may name.
pub const CONSISTENCY_COLUMNS: [(&str, &str); 14] = [
    ("h1_mean", "h_mean"),
    ("h1_sd", "h_sd"),
    ("h1_min", "h_min"),
    ("h1_max", "h_max"),
    ("h2_mean", "sys_mean"),
    ("h2_sd", "sys_sd"),
    ("h2_min", "sys_min"),
    ("h2_max", "sys_max"),
    ("corr", "corr"),
    ("wtkappa", "wtkappa"),
    ("kappa", "kappa"),
    ("exact_agr", "exact_agr"),
    ("adj_agr", "adj_agr"),
    ("SMD", "SMD"),
];

/// The `eval` statistics with an interval.
pub const EVAL_METRICS: [&str; 10] = [
    "corr",
    "wtkappa",
    "kappa",
    "exact_agr",
    "adj_agr",
    "SMD",
    "RMSE",
    "R2",
    "sys_mean",
    "h_mean",
];

/// The `consistency` statistics with an interval (also every column of
/// `degradation`, in the degradation table's order below).
pub const CONSISTENCY_METRICS: [&str; 6] =
    ["corr", "wtkappa", "kappa", "exact_agr", "adj_agr", "SMD"];
pub const DEGRADATION_METRICS: [&str; 6] =
    ["corr", "kappa", "wtkappa", "exact_agr", "adj_agr", "SMD"];

/// The cell texts pandas reads as missing by default (spec 2.1), exactly.
pub const NA_TOKENS: [&str; 19] = [
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
];

/// Checks that `name` can be used inside a file name: no path separators,
/// no `..`, no control characters.
pub fn check_file_name_part(name: &str, what: &str) -> Result<()> {
    if name.is_empty()
        || name.contains(['/', '\\'])
        || name == "."
        || name == ".."
        || name.chars().any(char::is_control)
    {
        bail!(
            "{what} '{}' cannot be used in an output file name: it must not be empty or contain \
             '/', '\\' or control characters",
            name.escape_debug()
        );
    }
    Ok(())
}

/// Format of the intermediate tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileFormat {
    Csv,
    Tsv,
    Xlsx,
}

impl FileFormat {
    pub fn extension(self) -> &'static str {
        match self {
            FileFormat::Csv => "csv",
            FileFormat::Tsv => "tsv",
            FileFormat::Xlsx => "xlsx",
        }
    }
}

/// The predicted "label" of an abstention (a blank prediction) in
/// `classify`: a column of the confusion matrix, never a class.
pub const NONE_LABEL: &str = "(none)";
