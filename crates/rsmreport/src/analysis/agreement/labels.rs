//! Stage 5 (analysis), agreement: label texts to category codes in one pass
//! (`spec/agreement.md` 1.2): declared categories in their order, or the
//! observed labels (numbers in numeric order, text in code-point order for
//! nominal data); `ordinal` without categories refuses text labels,
//! `interval` and `ratio` need numbers. A label outside the declared
//! categories is an error naming the file, the row and the column.
//!
//! Pure: works on cell texts; reads and writes nothing.

use std::collections::HashMap;

use anyhow::{anyhow, Result};

use rsmreport_config::agree::{number, Category};
use rsmreport_core::table::FxBuild;
use rsmreport_metrics::raters::alpha::Level;
use rsmreport_metrics::raters::positions;

/// Where a label was seen: the data row (1-based) and the column.
#[derive(Clone, Debug)]
pub struct Place {
    pub row: usize,
    pub column: String,
}

/// The category set in use.
#[derive(Clone, Debug, PartialEq)]
pub struct Categories {
    /// The label texts, in order.
    pub labels: Vec<String>,
    /// Category values for weights and distances: the numbers, or the
    /// positions `1..=q` for text labels.
    pub values: Vec<f64>,
    /// Every label is a number.
    pub numeric: bool,
}

/// Turns label texts into codes while the file is read.
pub struct Labeler {
    file: String,
    declared: Option<Declared>,
    /// Observed labels: text -> provisional code, first place seen.
    seen: HashMap<String, u32, FxBuild>,
    first: Vec<(String, Place)>,
}

struct Declared {
    categories: Vec<Category>,
    by_text: HashMap<String, u32, FxBuild>,
}

impl Labeler {
    /// A labeler for `file` (for messages) with the declared categories.
    pub fn new(file: &str, declared: Option<&[Category]>) -> Self {
        let declared = declared.map(|c| Declared {
            categories: c.to_vec(),
            by_text: c
                .iter()
                .enumerate()
                .map(|(i, c)| (c.text.clone(), i as u32))
                .collect(),
        });
        Labeler {
            file: file.to_string(),
            declared,
            seen: HashMap::default(),
            first: Vec::new(),
        }
    }

    /// The code of the label in a cell (`None` for a blank cell); `place`
    /// is only built for a label not seen before.
    pub fn code(
        &mut self,
        cell: Option<&str>,
        place: impl FnOnce() -> Place,
    ) -> Result<Option<u32>> {
        let Some(text) = cell
            .map(str::trim)
            .filter(|t| !rsmreport_io::input::is_na(t))
        else {
            return Ok(None);
        };
        if let Some(d) = &self.declared {
            return d.code(text).map(Some).ok_or_else(|| {
                let p = place();
                let list: Vec<&str> = d.categories.iter().map(|c| c.text.as_str()).collect();
                anyhow!(
                    "{}, row {}, column {}: the label {text:?} is not in categories ({}); add it \
                     to categories or correct the file",
                    self.file,
                    p.row,
                    p.column,
                    list.join(", ")
                )
            });
        }
        if let Some(&c) = self.seen.get(text) {
            return Ok(Some(c));
        }
        let c = self.first.len() as u32;
        self.seen.insert(text.to_string(), c);
        self.first.push((text.to_string(), place()));
        Ok(Some(c))
    }

    /// The categories and the map from provisional to final codes.
    pub fn finish(self, level: Level) -> Result<(Categories, Vec<u32>)> {
        if let Some(d) = self.declared {
            let numeric = d.categories.iter().all(|c| c.number.is_some());
            let values = if numeric {
                d.categories.iter().filter_map(|c| c.number).collect()
            } else {
                positions(d.categories.len())
            };
            let labels = d.categories.iter().map(|c| c.text.clone()).collect();
            let identity = (0..d.categories.len() as u32).collect();
            return Ok((
                Categories {
                    labels,
                    values,
                    numeric,
                },
                identity,
            ));
        }
        observed(&self.file, self.first, level)
    }
}

impl Declared {
    fn code(&self, text: &str) -> Option<u32> {
        if let Some(&c) = self.by_text.get(text) {
            return Some(c);
        }
        let x = number(text)?;
        self.categories
            .iter()
            .position(|c| c.number == Some(x))
            .map(|i| i as u32)
    }
}

/// Categories from the observed labels, in first-seen order as given.
fn observed(
    file: &str,
    first: Vec<(String, Place)>,
    level: Level,
) -> Result<(Categories, Vec<u32>)> {
    let text = first.iter().find(|(t, _)| number(t).is_none());
    match (text, level) {
        (Some((t, p)), Level::Interval | Level::Ratio) => {
            return Err(anyhow!(
                "{file}, row {}, column {}: the label {t:?} is text, but level = \"{}\" needs \
                 numeric labels; use level = \"nominal\" (or \"ordinal\" with categories in \
                 order)",
                p.row,
                p.column,
                level.name()
            ))
        }
        (Some((t, p)), Level::Ordinal) => {
            return Err(anyhow!(
                "{file}, row {}, column {}: the label {t:?} is text, and level = \"ordinal\" \
                 without categories can only order numbers; declare categories = [...] in \
                 their order",
                p.row,
                p.column
            ))
        }
        _ => {}
    }
    if text.is_some() {
        let mut order: Vec<usize> = (0..first.len()).collect();
        order.sort_by(|&a, &b| first[a].0.cmp(&first[b].0));
        let labels: Vec<String> = order.iter().map(|&i| first[i].0.clone()).collect();
        let mut map = vec![0u32; first.len()];
        for (code, &i) in order.iter().enumerate() {
            map[i] = code as u32;
        }
        let values = positions(labels.len());
        return Ok((
            Categories {
                labels,
                values,
                numeric: false,
            },
            map,
        ));
    }
    Ok(numeric_order(&first))
}

/// Numeric labels in numeric order; texts of equal value (`2`, `2.0`)
/// share one category, shown as first seen.
fn numeric_order(first: &[(String, Place)]) -> (Categories, Vec<u32>) {
    let nums: Vec<f64> = first.iter().filter_map(|(t, _)| number(t)).collect();
    let mut order: Vec<usize> = (0..nums.len()).collect();
    order.sort_by(|&a, &b| nums[a].total_cmp(&nums[b]).then(a.cmp(&b)));
    let (mut labels, mut values) = (Vec::new(), Vec::new());
    let mut map = vec![0u32; nums.len()];
    for &i in &order {
        if values.last() != Some(&nums[i]) {
            values.push(nums[i]);
            labels.push(first[i].0.clone());
        }
        map[i] = (values.len() - 1) as u32;
    }
    (
        Categories {
            labels,
            values,
            numeric: true,
        },
        map,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place() -> Place {
        Place {
            row: 3,
            column: "a1".into(),
        }
    }

    fn codes(l: &mut Labeler, cells: &[&str]) -> Vec<Option<u32>> {
        cells
            .iter()
            .map(|c| l.code(Some(c), place).unwrap())
            .collect()
    }

    #[test]
    fn agree_labels_observed_numbers_sort_numerically_and_text_by_code_point() {
        let mut l = Labeler::new("f.csv", None);
        let c = codes(&mut l, &["10", "2", "", "2.0", "NA", "9"]);
        let (cats, map) = l.finish(Level::Ordinal).unwrap();
        assert_eq!(cats.labels, ["2", "9", "10"]);
        assert_eq!(cats.values, [2.0, 9.0, 10.0]);
        let fin: Vec<Option<u32>> = c.iter().map(|c| c.map(|c| map[c as usize])).collect();
        assert_eq!(fin, [Some(2), Some(0), None, Some(0), None, Some(1)]);
        let mut l = Labeler::new("f.csv", None);
        codes(&mut l, &["pos", "neg", "neutral"]);
        let (cats, map) = l.finish(Level::Nominal).unwrap();
        assert_eq!(cats.labels, ["neg", "neutral", "pos"]);
        assert_eq!(map, [2, 0, 1]);
        assert!(!cats.numeric);
    }

    #[test]
    fn agree_labels_refuse_text_for_ordinal_and_interval_and_unknown_labels() {
        for level in [Level::Ordinal, Level::Interval] {
            let mut l = Labeler::new("f.csv", None);
            codes(&mut l, &["1", "x"]);
            let e = l.finish(level).unwrap_err().to_string();
            assert!(
                e.contains("f.csv, row 3, column a1: the label \"x\" is text"),
                "{e}"
            );
        }
        let cats = [
            Category {
                text: "lo".into(),
                number: None,
            },
            Category {
                text: "hi".into(),
                number: None,
            },
        ];
        let mut l = Labeler::new("f.csv", Some(&cats));
        assert_eq!(codes(&mut l, &["hi", "lo"]), [Some(1), Some(0)]);
        let e = l.code(Some("mid"), place).unwrap_err().to_string();
        assert!(e.contains("row 3, column a1: the label \"mid\" is not in categories (lo, hi)"));
    }
}
