//! Stage 1 (config): the optional `compare.toml` of `rsmreport compare`
//! (compare spec 2): every key optional, unknown keys refused with the
//! closest valid one, the `[intervals]` table as in the experiment file,
//! `[margins]` per statistic.
//!
//! Pure: [`parse`] works on text; [`load`] only reads the file.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{anyhow, Result};
use serde_json::Value;

use super::intervals::{self, Intervals};
use super::RawConfig;

/// The keys of a `compare.toml`.
pub const KEYS: [&str; 8] = [
    "comparison_id",
    "description",
    "baseline_label",
    "candidate_label",
    "score_type",
    "subgroups",
    "intervals",
    "margins",
];

/// A validated `compare.toml` (all defaults when there is none).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompareConfig {
    pub comparison_id: Option<String>,
    pub description: Option<String>,
    pub baseline_label: Option<String>,
    pub candidate_label: Option<String>,
    /// `scale_trim`, `raw_trim`, ...; default: `scale_trim` when both sides
    /// have it, else `raw_trim`.
    pub score_type: Option<String>,
    /// Default: every subgroup present on either side.
    pub subgroups: Option<Vec<String>>,
    pub intervals: Intervals,
    /// Margins by statistic name, overriding the defaults of spec 2.2.
    pub margins: BTreeMap<String, f64>,
    /// What the bootstrap resamples (`[intervals] unit`).
    pub units: Units,
    /// `--unpaired` (not a key of the file): compare two folders that
    /// share no response (compare spec 2.4) instead of refusing.
    pub unpaired: bool,
}

/// The sampling unit asked for: `auto` (default) resamples test takers
/// when both folders name them (the `candidate` column of
/// `test_metadata`), else responses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Units {
    #[default]
    Auto,
    Responses,
    TestTakers,
}

/// Reads and validates the file at `path`.
pub fn load(path: &Path, statistics: &[&str]) -> Result<CompareConfig> {
    let text = rsmreport_core::in_memory::read_to_string(path)
        .map_err(|e| anyhow!("cannot read the compare config {}: {e}", path.display()))?;
    parse(&text, path, statistics)
}

/// Validates the text of a `compare.toml`; `statistics` are the names a
/// margin may be given for. Errors name the file, the line and the key.
pub fn parse(text: &str, path: &Path, statistics: &[&str]) -> Result<CompareConfig> {
    super::value::parse_toml(text, path, &KEYS, |raw| values(raw, statistics))
}

fn values(raw: &RawConfig, statistics: &[&str]) -> Result<CompareConfig, (&'static str, String)> {
    let text = |key: &'static str| super::value::text(raw, key);
    Ok(CompareConfig {
        // The id rule of every kind (it names the output files).
        comparison_id: super::value::id(raw, "comparison_id")?,
        description: text("description")?,
        baseline_label: text("baseline_label")?,
        candidate_label: text("candidate_label")?,
        score_type: text("score_type")?,
        subgroups: super::value::names(raw, "subgroups")?,
        units: units(raw.get("intervals")),
        // `unit` is validated here and decided per comparison (`units`):
        // the folders say whether they name test takers.
        intervals: match intervals::parse(raw.get("intervals"), Some("candidate")) {
            Ok(Some(i)) => Intervals {
                unit: crate::intervals::Unit::Response,
                ..i
            },
            Ok(None) => Intervals {
                replicates: 0,
                ..Intervals::default()
            },
            Err(m) => return Err(("intervals", m)),
        },
        margins: super::margins::parse(raw.get("margins"), statistics)
            .map_err(|m| ("margins", m))?,
        unpaired: false,
    })
}

/// The unit asked for in the `[intervals]` table (validated by
/// [`intervals::parse`]).
fn units(v: Option<&Value>) -> Units {
    match v.and_then(|t| t.get("unit")).and_then(Value::as_str) {
        Some(u) if u.eq_ignore_ascii_case("response") => Units::Responses,
        Some(u) if u.eq_ignore_ascii_case("candidate") => Units::TestTakers,
        _ => Units::Auto,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATS: [&str; 3] = ["wtkappa", "corr", "RMSE"];

    fn parse_ok(text: &str) -> CompareConfig {
        parse(text, Path::new("compare.toml"), &STATS).unwrap()
    }

    fn parse_err(text: &str) -> String {
        format!(
            "{:#}",
            parse(text, Path::new("compare.toml"), &STATS).unwrap_err()
        )
    }

    #[test]
    fn every_key_is_read_and_defaults_apply() {
        assert_eq!(parse_ok(""), CompareConfig::default());
        let c = parse_ok(
            "comparison_id = \"v2_vs_v3\"\ndescription = \"*new* engine\"\n\
             baseline_label = \"v2\"\ncandidate_label = \"v3\"\nscore_type = \"raw_trim\"\n\
             subgroups = [\"L1\"]\n[intervals]\nreplicates = 200\nseed = 5\n\
             [margins]\nwtkappa = 0.02\n",
        );
        assert_eq!(c.comparison_id.as_deref(), Some("v2_vs_v3"));
        assert_eq!(c.candidate_label.as_deref(), Some("v3"));
        assert_eq!(c.subgroups, Some(vec!["L1".to_string()]));
        assert_eq!((c.intervals.replicates, c.intervals.seed), (200, 5));
        assert_eq!(c.margins.get("wtkappa"), Some(&0.02));
        assert_eq!(parse_ok("intervals = false\n").intervals.replicates, 0);
    }

    #[test]
    fn bad_keys_and_values_are_named_with_their_line() {
        let e = parse_err("baseline_label = \"a\"\ncandidat_label = \"b\"\n");
        assert!(
            e.contains(
                "compare.toml, line 2: unknown key candidat_label; did you mean candidate_label?"
            ),
            "{e}"
        );
        let e = parse_err("[margins]\nwtkapa = 0.01\n");
        assert!(
            e.contains("margins.wtkapa is not a statistic")
                && e.contains("did you mean margins.wtkappa?"),
            "{e}"
        );
        let e = parse_err("[margins]\ncorr = -1\n");
        assert!(
            e.contains("margins.corr must be a number of 0 or more"),
            "{e}"
        );
        let e = parse_err("[intervals]\nlevle = 0.9\n");
        assert!(e.contains("did you mean intervals.level?"), "{e}");
        let e = parse_err("comparison_id = \"a/b\"\n");
        assert!(
            e.contains(
                "comparison_id \"a/b\" contains a / or \\, which cannot be part of a file name"
            ),
            "{e}"
        );
        let e = parse_err("comparison_id = \"v2 vs v3\"\n");
        assert!(e.contains("contains spaces or other whitespace"), "{e}");
        let e = parse_err("subgroups = 3\n");
        assert!(e.contains("subgroups must be a list"), "{e}");
        let e = parse_err("subgroups = [\"L1\", \"L1\"]\n");
        assert!(e.contains("lists the column \"L1\" more than once"), "{e}");
        // One comma-separated text, as in every kind.
        assert_eq!(
            parse_ok("subgroups = \"L1, gender\"\n").subgroups,
            Some(vec!["L1".to_string(), "gender".to_string()])
        );
    }
}
