//! Stage 1 (config): the experiment file of `rsmreport agree EXP`
//! (`spec/agreement.md` 1.2): the annotations file and its layout (wide,
//! long or counts), the level of measurement, the declared categories, the
//! optional reference column and subgroups, the interpretation scale and
//! `[intervals]` (items are the resampled units). Unknown keys are refused
//! with the file, the line and the closest valid key.
//!
//! Pure: [`parse`] works on text; [`load`] only reads the config file and
//! checks that the annotations file exists. Never reads the data and never
//! writes anything.

use super::value::{folder, names, resolve_file, text, KeyError as Bad};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};
use serde_json::Value;

use super::common::{Common, Rules};
use super::intervals::Intervals;
use super::{ConfigKind, FileFormat, RawConfig};
use rsmreport_metrics::raters::alpha::Level;
use rsmreport_metrics::raters::scales::Scale;

/// The keys of an `agree` experiment file beyond the common ones
/// ([`super::common::KEYS`]; spec 1.2).
pub const OWN_KEYS: [&str; 12] = [
    "annotations_file",
    "layout",
    "item_column",
    "rater_columns",
    "rater_column",
    "label_column",
    "category_columns",
    "level",
    "categories",
    "reference_column",
    "subgroups",
    "interpretation",
];

/// How `agree` reads the common keys: items are the resampled units.
const RULES: Rules = Rules::new("agree", "sentiment_round2", "items");

/// How the annotations file is laid out.
#[derive(Clone, Debug, PartialEq)]
pub enum Layout {
    /// One row per item, one column per rater.
    Wide { rater_columns: Vec<String> },
    /// One row per (item, rater, label).
    Long {
        rater_column: String,
        label_column: String,
    },
    /// One row per item, one column per category holding how many raters
    /// chose it (Fleiss' layout).
    Counts { category_columns: Vec<String> },
}

impl Layout {
    /// `wide`, `long` or `counts`.
    pub fn name(&self) -> &'static str {
        match self {
            Layout::Wide { .. } => "wide",
            Layout::Long { .. } => "long",
            Layout::Counts { .. } => "counts",
        }
    }
}

/// A declared category: its text as written, and its number when it is
/// one (`categories = [1, 2, 3]` or `["1", "2"]`).
#[derive(Clone, Debug, PartialEq)]
pub struct Category {
    pub text: String,
    pub number: Option<f64>,
}

/// A validated `agree` experiment.
#[derive(Clone, Debug, PartialEq)]
pub struct AgreeConfig {
    pub experiment_id: String,
    /// Free text (Markdown) shown at the top of the report; empty when
    /// absent.
    pub description: String,
    /// The label under which the report is archived.
    pub model_version: Option<String>,
    /// The format of the tables in `output/`.
    pub file_format: FileFormat,
    /// `[[gates]]` as written (validated by the agree kind, which knows
    /// its coefficients).
    pub gates: Option<Value>,
    /// The gates, parsed by the kind (`kinds::agree::load`) before any
    /// data is read.
    pub parsed_gates: Vec<super::gates::Gate>,
    /// The annotations file as written in the config.
    pub annotations_file: String,
    /// Where it is: relative paths against the config's folder ([`load`]
    /// also tries the current folder).
    pub annotations_path: PathBuf,
    pub layout: Layout,
    /// Required for wide and long layouts.
    pub item_column: Option<String>,
    pub level: Level,
    /// The full label set in order, when declared.
    pub categories: Option<Vec<Category>>,
    pub reference_column: Option<String>,
    pub subgroups: Vec<String>,
    pub interpretation: Scale,
    /// `None`: `intervals = false`.
    pub intervals: Option<Intervals>,
    /// The config file, for messages.
    pub origin: PathBuf,
}

/// Reads and validates the experiment file at `path`; the annotations file
/// must exist (relative to the config's folder, then the current folder).
pub fn load(path: &Path) -> Result<AgreeConfig> {
    let text = super::value::read_experiment(path)?;
    let mut cfg = parse(&text, path)?;
    let key = "annotations_file";
    match resolve_file(key, &cfg.annotations_file, "annotations file", folder(path)) {
        Ok(found) => cfg.annotations_path = found,
        Err(message) => {
            let raw = super::parse(&text, ConfigKind::Toml, path)?;
            return Err(anyhow!("{}: {message}", raw.at(key)));
        }
    }
    Ok(cfg)
}

/// Validates the text of an `agree` experiment file (TOML). Errors name
/// the file, the line and the key.
pub fn parse(text: &str, path: &Path) -> Result<AgreeConfig> {
    super::common::parse_toml(text, path, &OWN_KEYS, &RULES, |raw, common| {
        values(raw, common, path)
    })
}

fn required(raw: &RawConfig, key: &'static str, why: &str) -> Result<String, Bad> {
    text(raw, key)?.ok_or_else(|| (key, format!("{key} is required{why}")))
}

fn values(raw: &RawConfig, common: Common, path: &Path) -> Result<AgreeConfig, Bad> {
    let annotations_file = required(raw, "annotations_file", " (the file of ratings)")?;
    let layout = layout(raw)?;
    let item_column = text(raw, "item_column")?;
    if item_column.is_none() && !matches!(layout, Layout::Counts { .. }) {
        return Err((
            "layout",
            format!(
                "item_column is required with layout = \"{}\" (the column of item ids)",
                layout.name()
            ),
        ));
    }
    let level = level(raw)?;
    let reference_column = text(raw, "reference_column")?;
    if reference_column.is_some() && matches!(layout, Layout::Counts { .. }) {
        return Err((
            "reference_column",
            "reference_column needs the raters' own labels; layout = \"counts\" has only \
             counts per category"
                .into(),
        ));
    }
    Ok(AgreeConfig {
        experiment_id: common.experiment_id,
        description: common.description,
        model_version: common.model_version,
        file_format: common.file_format,
        gates: common.gates,
        parsed_gates: Vec::new(),
        annotations_path: folder(path).join(&annotations_file),
        annotations_file,
        layout,
        item_column,
        level,
        categories: categories(raw, level)?,
        reference_column,
        subgroups: names(raw, "subgroups")?.unwrap_or_default(),
        interpretation: interpretation(raw)?,
        intervals: common.intervals,
        origin: path.to_path_buf(),
    })
}

fn layout(raw: &RawConfig) -> Result<Layout, Bad> {
    let name = text(raw, "layout")?.unwrap_or_else(|| "wide".into());
    let needs = |key: &'static str| -> Result<Vec<String>, Bad> {
        match names(raw, key)? {
            Some(v) if !v.is_empty() => Ok(v),
            _ => Err((
                "layout",
                format!("layout = \"{name}\" needs {key} (a list of column names)"),
            )),
        }
    };
    let one = |key: &'static str| required(raw, key, &format!(" with layout = \"{name}\""));
    let layout = match name.as_str() {
        "wide" => Layout::Wide {
            rater_columns: needs("rater_columns")?,
        },
        "long" => Layout::Long {
            rater_column: one("rater_column")?,
            label_column: one("label_column")?,
        },
        "counts" => Layout::Counts {
            category_columns: needs("category_columns")?,
        },
        other => {
            return Err((
                "layout",
                format!("layout must be \"wide\", \"long\" or \"counts\", but it is \"{other}\""),
            ))
        }
    };
    let foreign: &[&'static str] = match layout {
        Layout::Wide { .. } => &["rater_column", "label_column", "category_columns"],
        Layout::Long { .. } => &["rater_columns", "category_columns"],
        Layout::Counts { .. } => &["rater_columns", "rater_column", "label_column"],
    };
    if let Some(k) = foreign.iter().find(|k| raw.get(k).is_some()) {
        return Err((k, format!("{k} does not apply to layout = \"{name}\"")));
    }
    if let Layout::Wide { rater_columns } = &layout {
        if rater_columns.len() < 2 {
            return Err((
                "rater_columns",
                format!(
                    "rater_columns names {} rater; agreement needs at least two raters (to \
                     evaluate one rater or classifier against reference labels, use `rsmreport \
                     classify` with gold_column = the reference and system_columns = [{}])",
                    rater_columns.len(),
                    rater_columns
                        .iter()
                        .map(|r| format!("\"{r}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
    }
    Ok(layout)
}

fn level(raw: &RawConfig) -> Result<Level, Bad> {
    let name = text(raw, "level")?.unwrap_or_else(|| "nominal".into());
    Level::ALL
        .into_iter()
        .find(|l| l.name() == name)
        .ok_or_else(|| {
            (
                "level",
                format!(
                    "level must be \"nominal\", \"ordinal\", \"interval\" or \"ratio\", but it is \
                     \"{name}\""
                ),
            )
        })
}

fn categories(raw: &RawConfig, level: Level) -> Result<Option<Vec<Category>>, Bad> {
    let items = match raw.get("categories") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(items)) if !items.is_empty() => items,
        Some(other) => {
            return Err((
                "categories",
                format!(
                    "categories must be a non-empty list of labels, but it is {}",
                    super::value::describe(other)
                ),
            ))
        }
    };
    let mut out: Vec<Category> = Vec::with_capacity(items.len());
    for v in items {
        let c = match v {
            Value::String(s) if !s.trim().is_empty() => Category {
                text: s.trim().to_string(),
                number: number(s),
            },
            Value::Number(n) => Category {
                text: n.to_string(),
                number: n.as_f64(),
            },
            other => {
                return Err((
                    "categories",
                    format!(
                        "categories must hold labels (texts or numbers), but it holds {}",
                        super::value::describe(other)
                    ),
                ))
            }
        };
        if out
            .iter()
            .any(|o| o.text == c.text || (o.number.is_some() && o.number == c.number))
        {
            return Err((
                "categories",
                format!("categories names the label {} twice", c.text),
            ));
        }
        out.push(c);
    }
    if matches!(level, Level::Interval | Level::Ratio) {
        if let Some(c) = out.iter().find(|c| c.number.is_none()) {
            return Err((
                "categories",
                format!(
                    "level = \"{}\" needs numeric labels, but categories holds the text {:?}",
                    level.name(),
                    c.text
                ),
            ));
        }
    }
    Ok(Some(out))
}

/// The number a label text stands for (finite decimal), if any.
pub fn number(s: &str) -> Option<f64> {
    let x = rsmreport_core::table::parse_number(s.trim());
    x.is_finite().then_some(x)
}

fn interpretation(raw: &RawConfig) -> Result<Scale, Bad> {
    let name = text(raw, "interpretation")?.unwrap_or_else(|| "landis-koch".into());
    Scale::from_key(&name).ok_or_else(|| {
        let keys: Vec<&str> = Scale::ALL.iter().map(|s| s.key()).collect();
        (
            "interpretation",
            format!(
                "interpretation must be one of {}, but it is \"{name}\"",
                keys.join(", ")
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const WIDE: &str = "experiment_id = \"s2\"\nannotations_file = \"labels.csv\"\n\
                        item_column = \"item\"\nrater_columns = [\"a1\", \"a2\", \"a3\"]\n";

    fn ok(text: &str) -> AgreeConfig {
        parse(text, Path::new("dir/exp.toml")).unwrap()
    }

    fn err(text: &str) -> String {
        format!("{:#}", parse(text, Path::new("exp.toml")).unwrap_err())
    }

    #[test]
    fn agree_config_defaults_and_every_key() {
        let c = ok(WIDE);
        assert_eq!(c.layout.name(), "wide");
        assert_eq!(c.level, Level::Nominal);
        assert_eq!(c.interpretation, Scale::LandisKoch);
        assert_eq!(c.intervals, Some(Intervals::default()));
        assert_eq!(c.annotations_path, Path::new("dir/labels.csv"));
        let c = ok(
            "experiment_id = \"x\"\nannotations_file = \"l.tsv\"\nlayout = \"long\"\n\
             item_column = \"item\"\nrater_column = \"who\"\nlabel_column = \"label\"\n\
             level = \"ordinal\"\ncategories = [\"lo\", \"mid\", \"hi\"]\n\
             reference_column = \"gold\"\nsubgroups = [\"source\"]\n\
             interpretation = \"green\"\n[intervals]\nreplicates = 50\nseed = 3\n",
        );
        assert_eq!(
            c.layout,
            Layout::Long {
                rater_column: "who".into(),
                label_column: "label".into()
            }
        );
        assert_eq!(c.categories.as_ref().unwrap()[2].text, "hi");
        assert_eq!(c.subgroups, ["source"]);
        assert_eq!(c.interpretation, Scale::Green);
        assert_eq!(c.intervals.unwrap().replicates, 50);
        let c = ok(
            "experiment_id = \"x\"\nannotations_file = \"c.csv\"\nlayout = \"counts\"\n\
             category_columns = \"c1, c2\"\nlevel = \"interval\"\ncategories = [1, 2]\n\
             intervals = false\n",
        );
        assert_eq!(c.categories.unwrap()[1].number, Some(2.0));
        assert!(c.intervals.is_none() && c.item_column.is_none());
    }

    #[test]
    fn agree_config_errors_name_file_line_and_key() {
        let e = err(&format!("{WIDE}refrence_column = \"gold\"\n"));
        assert!(
            e.contains(
                "exp.toml, line 5: unknown key refrence_column; did you mean reference_column?"
            ),
            "{e}"
        );
        let e = err(&WIDE.replace("[\"a1\", \"a2\", \"a3\"]", "[\"a1\", \"a2\", \"a1\"]"));
        assert!(
            e.contains("line 4") && e.contains("lists the column \"a1\" more than once"),
            "{e}"
        );
        let e = err(&WIDE.replace("[\"a1\", \"a2\", \"a3\"]", "[\"a1\", \" \"]"));
        assert!(e.contains("has an empty name at position 2"), "{e}");
        let e = err(&WIDE.replace("[\"a1\", \"a2\", \"a3\"]", "[\"a1\"]"));
        assert!(
            e.contains("line 4")
                && e.contains("at least two raters")
                && e.contains("use `rsmreport classify` with gold_column"),
            "{e}"
        );
        let e = err(&format!(
            "{WIDE}level = \"interval\"\ncategories = [\"a\", 2]\n"
        ));
        assert!(
            e.contains("line 6") && e.contains("needs numeric labels"),
            "{e}"
        );
        let e = err(&format!("{WIDE}interpretation = \"cohen\"\n"));
        assert!(e.contains("landis-koch, grove"), "{e}");
        let e = err(&format!("{WIDE}label_column = \"l\"\n"));
        assert!(e.contains("label_column does not apply"), "{e}");
        let e = err(&format!("{WIDE}[intervals]\nsed = 1\n"));
        assert!(e.contains("did you mean intervals.seed?"), "{e}");
        let e = err("annotations_file = \"l.csv\"\n");
        assert!(
            e.contains("the required key experiment_id is missing"),
            "{e}"
        );
        let e = err(&format!("{WIDE}categories = [\"a\", \"a\"]\n"));
        assert!(e.contains("twice"), "{e}");
    }

    #[test]
    fn load_finds_the_annotations_file_or_says_where_it_looked() {
        let dir = tempfile::TempDir::new().unwrap();
        let exp = dir.path().join("exp.toml");
        std::fs::write(&exp, WIDE).unwrap();
        let e = format!("{:#}", load(&exp).unwrap_err());
        assert!(
            e.contains(
                "exp.toml, line 2: annotations file not found: annotations_file = \"labels.csv\""
            ) && e.contains(&dir.path().join("labels.csv").display().to_string()),
            "{e}"
        );
        std::fs::write(dir.path().join("labels.csv"), "item,a1,a2\n").unwrap();
        assert_eq!(
            load(&exp).unwrap().annotations_path,
            dir.path().join("labels.csv")
        );
    }
}
