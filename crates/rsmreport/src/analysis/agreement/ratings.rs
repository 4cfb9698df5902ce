//! Stage 5 (analysis), agreement: the annotations table, in the wide, long or
//! counts layout, turned into items x raters codes (or items x categories
//! counts), the reference labels and the subgroup values of every item
//! (`spec/agreement.md` 1.2 and 7: absent columns, fewer than two raters,
//! repeated items or (item, rater) pairs, bad labels are errors naming the
//! file, the row and the column).
//!
//! Works on a [`Table`] already read by `rsmreport_io::input`; writes nothing and
//! computes no statistic.

use std::borrow::Cow;
use std::collections::HashMap;
use std::marker::PhantomData;

use anyhow::{bail, Result};

use super::labels::{Categories, Labeler, Place};
use rsmreport_config::agree::{AgreeConfig, Layout};
use rsmreport_core::table::{Cell, FxBuild, Table, Values};
use rsmreport_metrics::raters::CountTables;

/// The ratings of one experiment, ready for the count tables.
#[derive(Clone, Debug)]
pub struct Ratings {
    /// Item ids in file order (row numbers in the counts layout without
    /// `item_column`).
    pub items: Vec<String>,
    /// Rater names (empty in the counts layout).
    pub raters: Vec<String>,
    /// `items x raters` codes (wide and long layouts).
    pub codes: Vec<Option<u32>>,
    /// `items x categories` counts (counts layout).
    pub counts: Vec<u32>,
    pub categories: Categories,
    /// The reference label of each item, when configured.
    pub reference: Option<Vec<Option<u32>>>,
    /// Per subgroup column, each item's value.
    pub groups: Vec<(String, Vec<Option<String>>)>,
}

impl Ratings {
    /// Number of categories.
    pub fn q(&self) -> usize {
        self.categories.labels.len()
    }

    /// The count tables of the items `rows` (all items when `None`, read
    /// in place).
    pub fn tables(&self, rows: Option<&[usize]>) -> CountTables {
        let q = self.q();
        // Items x `width` values, the rows `rows` copied out (or all).
        fn pick<'a, T: Copy>(all: &'a [T], width: usize, rows: Option<&[usize]>) -> Cow<'a, [T]> {
            match rows {
                None => Cow::Borrowed(all),
                Some(rows) => Cow::Owned(
                    rows.iter()
                        .flat_map(|&i| all[i * width..(i + 1) * width].iter().copied())
                        .collect(),
                ),
            }
        }
        if self.raters.is_empty() {
            return CountTables::from_item_counts(&pick(&self.counts, q, rows), q);
        }
        let r = self.raters.len();
        CountTables::from_ratings(&pick(&self.codes, r, rows), r, q)
    }
}

/// The text of a cell (numbers as written by Python's `repr`), borrowed
/// from a text column (no allocation per cell).
fn cell_str(values: &Values, i: usize) -> Option<Cow<'_, str>> {
    if let Values::Text(cells) = values {
        return cells[i].as_deref().map(Cow::Borrowed);
    }
    match values.cell(i) {
        Cell::Missing => None,
        Cell::Text(s) => Some(Cow::Owned(s)),
        Cell::Int(v) => Some(Cow::Owned(v.to_string())),
        Cell::Float(x) => Some(Cow::Owned(rsmreport_core::pyrepr::py_float(x))),
        Cell::Bool(b) => Some(Cow::Owned(b.to_string())),
    }
}

/// The codes the labeler gave to the label texts of text columns, by
/// address and length: a text column stores a repeated label once
/// ([`rsmreport_core::table::TextBuilder`]), so most cells are coded by looking up
/// a pointer instead of trimming, hashing and comparing their text. Only
/// accepted labels are kept, at most [`SharedCodes::MAX`]; the addresses
/// belong to cells borrowed for `'t`, so they cannot be reused meanwhile.
#[derive(Default)]
struct SharedCodes<'t> {
    codes: HashMap<(*const u8, usize), Option<u32>, FxBuild>,
    cells: PhantomData<&'t str>,
}

impl<'t> SharedCodes<'t> {
    const MAX: usize = 4096;

    /// The code of the label in row `i` of `values` ([`Labeler::code`]).
    fn code(
        &mut self,
        labeler: &mut Labeler,
        values: &'t Values,
        i: usize,
        place: impl FnOnce() -> Place,
    ) -> Result<Option<u32>> {
        let Values::Text(cells) = values else {
            return labeler.code(cell_str(values, i).as_deref(), place);
        };
        let Some(text) = cells[i].as_deref() else {
            return labeler.code(None, place);
        };
        let key = (text.as_ptr(), text.len());
        if let Some(&c) = self.codes.get(&key) {
            return Ok(c);
        }
        let c = labeler.code(Some(text), place)?;
        if self.codes.len() < Self::MAX {
            self.codes.insert(key, c);
        }
        Ok(c)
    }
}

/// [`cell_str`] as an owned string.
fn cell_text(values: &Values, i: usize) -> Option<String> {
    cell_str(values, i).map(Cow::into_owned)
}

/// Every column the config names must be in the table.
fn check_columns(table: &Table, file: &str, cfg: &AgreeConfig) -> Result<()> {
    let mut wanted: Vec<(&str, &str)> = Vec::new();
    if let Some(c) = &cfg.item_column {
        wanted.push((c, "item_column"));
    }
    match &cfg.layout {
        Layout::Wide { rater_columns } => {
            wanted.extend(rater_columns.iter().map(|c| (c.as_str(), "rater_columns")))
        }
        Layout::Long {
            rater_column,
            label_column,
        } => wanted.extend([
            (rater_column.as_str(), "rater_column"),
            (label_column.as_str(), "label_column"),
        ]),
        Layout::Counts { category_columns } => wanted.extend(
            category_columns
                .iter()
                .map(|c| (c.as_str(), "category_columns")),
        ),
    }
    if let Some(c) = &cfg.reference_column {
        wanted.push((c, "reference_column"));
    }
    wanted.extend(cfg.subgroups.iter().map(|c| (c.as_str(), "subgroups")));
    if let Some((col, key)) = wanted.iter().find(|(c, _)| table.column(c).is_none()) {
        bail!(
            "{file}: there is no column {col:?} ({key} in {}); the file's columns are {}",
            cfg.origin.display(),
            table.names().join(", ")
        );
    }
    Ok(())
}

/// Reads the ratings of `table` (the annotations file `file`).
pub fn ratings(table: &Table, file: &str, cfg: &AgreeConfig) -> Result<Ratings> {
    check_columns(table, file, cfg)?;
    let text = |name: &str| -> Vec<Option<String>> {
        let v = &table.column(name).expect("checked").values;
        (0..table.nrows).map(|i| cell_text(v, i)).collect()
    };
    let mut labeler = Labeler::new(file, cfg.categories.as_deref());
    let mut out = match &cfg.layout {
        Layout::Wide { rater_columns } => wide(table, file, cfg, rater_columns, &mut labeler)?,
        Layout::Long {
            rater_column,
            label_column,
        } => long(table, file, cfg, (rater_column, label_column), &mut labeler)?,
        Layout::Counts { category_columns } => return counts(table, file, cfg, category_columns),
    };
    let (categories, map) = labeler.finish(cfg.level)?;
    let remap = |c: &mut Option<u32>| *c = c.map(|c| map[c as usize]);
    out.codes.iter_mut().for_each(remap);
    if let Some(r) = out.reference.as_mut() {
        r.iter_mut().for_each(remap);
    }
    out.categories = categories;
    let first_rows = out.first_rows.clone();
    out.ratings.groups = cfg
        .subgroups
        .iter()
        .map(|g| {
            let values = text(g);
            let per_item = first_rows.iter().map(|&i| values[i].clone()).collect();
            (g.clone(), per_item)
        })
        .collect();
    Ok(out.into_ratings())
}

/// Ratings being read, with the first file row of every item.
struct Partial {
    ratings: Ratings,
    codes: Vec<Option<u32>>,
    reference: Option<Vec<Option<u32>>>,
    categories: Categories,
    first_rows: Vec<usize>,
}

impl Partial {
    fn into_ratings(self) -> Ratings {
        Ratings {
            codes: self.codes,
            reference: self.reference,
            categories: self.categories,
            ..self.ratings
        }
    }
}

fn empty_ratings() -> Ratings {
    Ratings {
        items: Vec::new(),
        raters: Vec::new(),
        codes: Vec::new(),
        counts: Vec::new(),
        categories: Categories {
            labels: Vec::new(),
            values: Vec::new(),
            numeric: false,
        },
        reference: None,
        groups: Vec::new(),
    }
}

/// The ids in a column (items or raters); a blank one is an error naming
/// its row.
fn item_ids(table: &Table, file: &str, column: &str, what: &str) -> Result<Vec<String>> {
    let v = &table.column(column).expect("checked").values;
    let mut out = Vec::with_capacity(table.nrows);
    for i in 0..table.nrows {
        match cell_text(v, i).filter(|s| !s.trim().is_empty()) {
            Some(s) => out.push(s),
            None => bail!(
                "{file}, row {}, column {column:?}: the {what} is blank",
                i + 1
            ),
        }
    }
    Ok(out)
}

/// Repeated keys as `'key' (rows a, b)`, the first five.
fn repeats(keys: impl Iterator<Item = (String, usize)>) -> Vec<String> {
    let mut rows: HashMap<String, Vec<usize>> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    for (k, i) in keys {
        let e = rows.entry(k.clone()).or_default();
        e.push(i + 1);
        if e.len() == 2 {
            order.push(k);
        }
    }
    order
        .iter()
        .take(5)
        .map(|k| {
            let r: Vec<String> = rows[k].iter().map(usize::to_string).collect();
            format!("{k} (rows {})", r.join(", "))
        })
        .collect()
}

/// Whether an id of `column` may occur twice: the fast check over a text
/// column's shared cells (true for other columns, which [`repeats`] then
/// checks itself).
fn has_repeats(table: &Table, column: &str) -> bool {
    match &table.column(column).expect("checked").values {
        Values::Text(cells) => !crate::preprocess::first_duplicates(cells, 1).is_empty(),
        _ => true,
    }
}

fn wide(
    table: &Table,
    file: &str,
    cfg: &AgreeConfig,
    raters: &[String],
    labeler: &mut Labeler,
) -> Result<Partial> {
    let items = item_ids(
        table,
        file,
        cfg.item_column.as_deref().expect("validated"),
        "item id",
    )?;
    let dups = if has_repeats(table, cfg.item_column.as_deref().expect("validated")) {
        repeats(items.iter().cloned().zip(0..))
    } else {
        Vec::new()
    };
    if !dups.is_empty() {
        bail!(
            "{file}: an item id is repeated, but layout = \"wide\" needs one row per item: {}",
            dups.join("; ")
        );
    }
    let cols: Vec<&Values> = raters
        .iter()
        .map(|r| &table.column(r).expect("checked").values)
        .collect();
    let mut codes = Vec::with_capacity(items.len() * raters.len());
    let mut shared = SharedCodes::default();
    for i in 0..table.nrows {
        for (col, name) in cols.iter().zip(raters) {
            let place = || Place {
                row: i + 1,
                column: name.clone(),
            };
            codes.push(shared.code(labeler, col, i, place)?);
        }
    }
    let reference = reference(table, cfg, labeler, &(0..table.nrows).collect::<Vec<_>>())?;
    Ok(Partial {
        ratings: Ratings {
            items,
            raters: raters.to_vec(),
            ..empty_ratings()
        },
        codes,
        reference,
        categories: empty_ratings().categories,
        first_rows: (0..table.nrows).collect(),
    })
}

/// The reference label of each item (from its rows; the first non-blank).
fn reference(
    table: &Table,
    cfg: &AgreeConfig,
    labeler: &mut Labeler,
    item_of_row: &[usize],
) -> Result<Option<Vec<Option<u32>>>> {
    let Some(col) = &cfg.reference_column else {
        return Ok(None);
    };
    let v = &table.column(col).expect("checked").values;
    let n_items = item_of_row.iter().max().map_or(0, |m| m + 1);
    let mut out = vec![None; n_items];
    let mut shared = SharedCodes::default();
    for (i, &item) in item_of_row.iter().enumerate() {
        let place = || Place {
            row: i + 1,
            column: col.clone(),
        };
        let c = shared.code(labeler, v, i, place)?;
        if out[item].is_none() {
            out[item] = c;
        }
    }
    Ok(Some(out))
}

fn long(
    table: &Table,
    file: &str,
    cfg: &AgreeConfig,
    (rater_column, label_column): (&str, &str),
    labeler: &mut Labeler,
) -> Result<Partial> {
    let ids = item_ids(
        table,
        file,
        cfg.item_column.as_deref().expect("validated"),
        "item id",
    )?;
    let who = item_ids(table, file, rater_column, "rater")?;
    let (items, item_of_row) = first_seen(&ids);
    let (raters, rater_of_row) = first_seen(&who);
    check_long(file, rater_column, &raters, &ids, &who)?;
    let labels = &table.column(label_column).expect("checked").values;
    let r = raters.len();
    let mut codes = vec![None; items.len() * r];
    let mut shared = SharedCodes::default();
    for i in 0..table.nrows {
        let place = || Place {
            row: i + 1,
            column: label_column.to_string(),
        };
        codes[item_of_row[i] * r + rater_of_row[i]] = shared.code(labeler, labels, i, place)?;
    }
    let reference = reference(table, cfg, labeler, &item_of_row)?;
    let mut first_rows = vec![usize::MAX; items.len()];
    for (i, &item) in item_of_row.iter().enumerate().rev() {
        first_rows[item] = i;
    }
    Ok(Partial {
        ratings: Ratings {
            items,
            raters,
            ..empty_ratings()
        },
        codes,
        reference,
        categories: empty_ratings().categories,
        first_rows,
    })
}

/// Distinct keys in first-seen order, and each row's index among them.
fn first_seen(keys: &[String]) -> (Vec<String>, Vec<usize>) {
    let mut map: HashMap<&str, usize> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    let of_row = keys
        .iter()
        .map(|k| {
            *map.entry(k.as_str()).or_insert_with(|| {
                order.push(k.clone());
                order.len() - 1
            })
        })
        .collect();
    (order, of_row)
}

/// At least two raters, and each (item, rater) once.
fn check_long(
    file: &str,
    rater_column: &str,
    raters: &[String],
    ids: &[String],
    who: &[String],
) -> Result<()> {
    if raters.len() < 2 {
        bail!(
            "{file}: column {rater_column:?} names {} rater{} ({}); agreement needs at least two \
             raters",
            raters.len(),
            if raters.len() == 1 { "" } else { "s" },
            raters.join(", ")
        );
    }
    let dups = repeats(
        ids.iter()
            .zip(who)
            .enumerate()
            .map(|(i, (a, b))| (format!("({a}, {b})"), i)),
    );
    if !dups.is_empty() {
        bail!(
            "{file}: the same (item, rater) appears more than once in layout = \"long\": {}",
            dups.join("; ")
        );
    }
    Ok(())
}

fn counts(table: &Table, file: &str, cfg: &AgreeConfig, columns: &[String]) -> Result<Ratings> {
    let q = columns.len();
    let categories = count_categories(file, cfg, columns)?;
    let mut counts = vec![0u32; table.nrows * q];
    for (k, name) in columns.iter().enumerate() {
        let v = table.column(name).expect("checked").values.to_numeric();
        for (i, &x) in v.iter().enumerate() {
            let x = if x.is_nan() { 0.0 } else { x };
            if x < 0.0 || x.fract() != 0.0 || x > f64::from(u32::MAX) {
                bail!(
                    "{file}, row {}, column {name:?}: {x} is not a count (a whole number of \
                     raters, 0 or more)",
                    i + 1
                );
            }
            counts[i * q + k] = x as u32;
        }
    }
    let items = match &cfg.item_column {
        Some(c) => item_ids(table, file, c, "item id")?,
        None => (1..=table.nrows).map(|i| i.to_string()).collect(),
    };
    let groups = cfg
        .subgroups
        .iter()
        .map(|g| {
            let v = &table.column(g).expect("checked").values;
            (
                g.clone(),
                (0..table.nrows).map(|i| cell_text(v, i)).collect(),
            )
        })
        .collect();
    Ok(Ratings {
        items,
        counts,
        categories,
        groups,
        ..empty_ratings()
    })
}

/// The categories of the counts layout: `categories` (one per column) or
/// the column names.
fn count_categories(file: &str, cfg: &AgreeConfig, columns: &[String]) -> Result<Categories> {
    use rsmreport_config::agree::number;
    use rsmreport_metrics::raters::alpha::Level;
    if let Some(c) = &cfg.categories {
        if c.len() != columns.len() {
            bail!(
                "{}: categories has {} labels but category_columns names {} columns; give one \
                 label per column, in the same order",
                cfg.origin.display(),
                c.len(),
                columns.len()
            );
        }
        let labeler = Labeler::new(file, Some(c));
        return Ok(labeler.finish(cfg.level)?.0);
    }
    let numeric = columns.iter().all(|c| number(c).is_some());
    if !numeric && matches!(cfg.level, Level::Interval | Level::Ratio) {
        bail!(
            "{}: level = \"{}\" needs numeric categories, but the category columns are named \
             {}; give categories = [...] with one number per column",
            cfg.origin.display(),
            cfg.level.name(),
            columns.join(", ")
        );
    }
    Ok(Categories {
        labels: columns.to_vec(),
        values: if numeric {
            columns.iter().filter_map(|c| number(c)).collect()
        } else {
            rsmreport_metrics::raters::positions(columns.len())
        },
        numeric,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsmreport_config::agree::Category;
    use rsmreport_core::table::text_values;

    /// Shared label texts are coded as the labeler codes each cell, and an
    /// unknown label is still an error naming its own row.
    #[test]
    fn agree_shared_codes_equal_the_labelers_codes() {
        let cells = ["b", "a", "", "b", " a", "b", "c"];
        let column = text_values(cells.iter().map(|c| Some(*c)));
        let place = |row: usize| {
            move || Place {
                row,
                column: "r1".into(),
            }
        };
        let mut plain = Labeler::new("f.csv", None);
        let want: Vec<Option<u32>> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| plain.code(Some(c), place(i + 1)).unwrap())
            .collect();
        let mut labeler = Labeler::new("f.csv", None);
        let mut shared = SharedCodes::default();
        let got: Vec<Option<u32>> = (0..cells.len())
            .map(|i| shared.code(&mut labeler, &column, i, place(i + 1)).unwrap())
            .collect();
        assert_eq!(got, want);
        let declared = [Category {
            text: "a".into(),
            number: None,
        }];
        let mut labeler = Labeler::new("f.csv", Some(&declared));
        let mut shared = SharedCodes::default();
        assert_eq!(
            shared.code(&mut labeler, &column, 1, place(2)).unwrap(),
            Some(0)
        );
        let e = shared.code(&mut labeler, &column, 3, place(4)).unwrap_err();
        assert!(e.to_string().contains("row 4, column r1"), "{e}");
    }
}
