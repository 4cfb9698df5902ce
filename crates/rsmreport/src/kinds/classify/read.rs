//! Command assembly (classify), input half (spec 1, 7): the predictions
//! file as label codes and score columns. Gold, predicted and subgroup
//! texts are trimmed; a blank gold label drops the item (counted); a blank
//! prediction is the abstention code `K` (shown as `(none)`); the label
//! set is `labels`, or the gold labels in order of first appearance then
//! the labels only predicted. Scores are kept per system as the file's
//! columns in label order ([`Scores`]), moved out of the table when every
//! row is kept.
//!
//! Reads the predictions file only (through [`rsmreport_io::input::read_table`]);
//! computes no metric and writes nothing. Every error names the file and
//! the column, label or item (data errors, exit 1).

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::{anyhow, bail, Result};

use rsmreport_config::classify::ClassifyConfig;
use rsmreport_core::table::{Cell, FxBuild, Table, Text, Values};

/// How many offending items or rows an error names.
const SHOWN: usize = 5;

/// One system's predictions.
#[derive(Clone, Debug)]
pub struct SystemData {
    pub name: String,
    /// Label code per item; `K` (the number of labels) is an abstention.
    pub pred: Vec<u32>,
    /// The scores, when the system has score columns.
    pub scores: Option<Scores>,
}

/// One system's scores: a column per label (label order), a value per
/// item. Read straight from the file's columns (no copy when every row
/// is kept); the ranking metrics take a column, the probability metrics
/// an item's row ([`Scores::row_into`]).
#[derive(Clone, Debug, Default)]
pub struct Scores {
    pub columns: Vec<Vec<f64>>,
}

impl std::ops::Index<usize> for Scores {
    type Output = [f64];
    fn index(&self, j: usize) -> &[f64] {
        &self.columns[j]
    }
}

impl Scores {
    /// From `n x k` row-major values.
    pub fn from_rows(rows: &[f64], k: usize) -> Scores {
        Scores {
            columns: (0..k)
                .map(|j| rows.iter().skip(j).step_by(k).copied().collect())
                .collect(),
        }
    }

    /// Item `i`'s scores, label order, into `row` (`k` long).
    #[inline]
    pub fn row_into(&self, i: usize, row: &mut [f64]) {
        for (r, c) in row.iter_mut().zip(&self.columns) {
            *r = c[i];
        }
    }

    /// The scores of the items `idx`, in that order.
    pub fn subset(&self, idx: &[usize]) -> Scores {
        Scores {
            columns: self
                .columns
                .iter()
                .map(|c| idx.iter().map(|&i| c[i]).collect())
                .collect(),
        }
    }
}

/// One subgroup column: its levels (code-point order) and each item's code.
#[derive(Clone, Debug)]
pub struct Subgroup {
    pub column: String,
    pub levels: Vec<String>,
    pub codes: Vec<u32>,
}

/// The items with a gold label.
#[derive(Clone, Debug)]
pub struct Data {
    pub file: PathBuf,
    pub n_rows: usize,
    pub n_dropped_blank_gold: usize,
    pub ids: Vec<Text>,
    /// The label set L in order.
    pub labels: Vec<String>,
    pub gold: Vec<u32>,
    pub systems: Vec<SystemData>,
    pub subgroups: Vec<Subgroup>,
}

impl Data {
    pub fn n(&self) -> usize {
        self.gold.len()
    }

    pub fn k(&self) -> usize {
        self.labels.len()
    }
}

/// A cell as trimmed text; blank (empty after trimming, or missing) is
/// `None`. Text cells are borrowed, not copied.
fn cell_str(values: &Values, i: usize) -> Option<Cow<'_, str>> {
    let s: Cow<'_, str> = match values {
        Values::Text(v) => Cow::Borrowed(v[i].as_deref()?),
        _ => match values.cell(i) {
            Cell::Missing => return None,
            Cell::Text(s) => Cow::Owned(s),
            Cell::Int(n) => Cow::Owned(n.to_string()),
            Cell::Float(x) => Cow::Owned(rsmreport_config::python_float_repr(x)),
            Cell::Bool(b) => Cow::Borrowed(if b { "True" } else { "False" }),
        },
    };
    let t = s.trim();
    if t.is_empty() {
        return None;
    }
    Some(match s {
        Cow::Borrowed(b) => Cow::Borrowed(b.trim()),
        Cow::Owned(o) if o.len() == t.len() => Cow::Owned(o),
        Cow::Owned(o) => Cow::Owned(o.trim().to_string()),
    })
}

/// A cell as trimmed, owned text.
fn cell_text(values: &Values, i: usize) -> Option<String> {
    cell_str(values, i).map(Cow::into_owned)
}

/// The label set and the lookup from text to code.
struct LabelSet {
    labels: Vec<String>,
    ordinal: bool,
    by_text: HashMap<String, u32, FxBuild>,
    by_number: HashMap<u64, u32, FxBuild>,
}

impl LabelSet {
    fn new(ordinal: bool) -> LabelSet {
        LabelSet {
            labels: Vec::new(),
            ordinal,
            by_text: HashMap::default(),
            by_number: HashMap::default(),
        }
    }

    fn number(t: &str) -> Option<u64> {
        let x = rsmreport_core::table::parse_number(t);
        x.is_finite().then(|| (x + 0.0).to_bits())
    }

    fn get(&self, t: &str) -> Option<u32> {
        if self.ordinal {
            Self::number(t).and_then(|x| self.by_number.get(&x).copied())
        } else {
            self.by_text.get(t).copied()
        }
    }

    fn add(&mut self, t: &str) -> u32 {
        let code = self.labels.len() as u32;
        self.labels.push(t.to_string());
        self.by_text.insert(t.to_string(), code);
        if let Some(x) = Self::number(t) {
            self.by_number.insert(x, code);
        }
        code
    }
}

/// Reads the configured predictions file.
pub fn read(cfg: &ClassifyConfig) -> Result<Data> {
    let file = &cfg.predictions_file;
    let mut wanted: Vec<&str> = vec![&cfg.gold_column];
    wanted.extend(cfg.system_columns.iter().map(String::as_str));
    wanted.extend(cfg.subgroups.iter().map(String::as_str));
    wanted.extend(cfg.id_column.as_deref());
    // JSON lines: a text column would read `null` as the text "None"
    // (pandas' `astype(str)`); typed columns keep it missing, and labels
    // written as strings stay strings.
    let json = file
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| ["jsonl", "jsonlines"].contains(&e.to_ascii_lowercase().as_str()));
    let text_columns: &[&str] = if json { &[] } else { &wanted };
    let mut table = rsmreport_core::provenance::timed("read table", || {
        rsmreport_io::input::read_table(file, text_columns)
    })?;
    missing_columns(cfg, &table, &wanted)?;
    let column = |name: &str| &table.column(name).expect("checked").values;
    let gold_cells = LabelCells::of(column(&cfg.gold_column), 0..table.nrows);
    let kept: Vec<usize> = (0..table.nrows)
        .filter(|&i| gold_cells.local[i] != BLANK)
        .collect();
    let gold_cells = gold_cells.on_rows(&kept);
    // Each system's column on its own thread, and the ids beside them
    // (their errors are reported where they were before: after the
    // labels').
    let (pred_cells, ids): (Vec<LabelCells>, Result<Vec<Text>>) = std::thread::scope(|scope| {
        let ids = scope.spawn(|| ids(cfg, &table, &kept));
        let handles: Vec<_> = cfg
            .system_columns
            .iter()
            .map(|s| {
                let (values, kept) = (column(s), &kept);
                scope.spawn(move || LabelCells::of(values, kept.iter().copied()))
            })
            .collect();
        let cells = handles
            .into_iter()
            .map(|h| h.join().expect("a label-reading thread panicked"))
            .collect();
        (cells, ids.join().expect("the id-reading thread panicked"))
    });
    let set = label_set(cfg, &gold_cells, &pred_cells);
    if set.ordinal && cfg.labels.is_none() {
        if let Some(bad) = set.labels.iter().find(|l| LabelSet::number(l).is_none()) {
            bail!(
                "{}: ordinal = true but the label \"{bad}\" is not a number",
                file.display()
            );
        }
    }
    let k = set.labels.len() as u32;
    let gold = gold_cells.codes(&set, k, cfg, &cfg.gold_column, "gold label")?;
    let mut systems = Vec::new();
    for (s, cells) in cfg.system_columns.iter().zip(&pred_cells) {
        systems.push(SystemData {
            name: s.clone(),
            pred: cells.codes(&set, k, cfg, s, "predicted label")?,
            scores: None,
        });
    }
    let ids = ids?;
    if let Some(pos) = &cfg.positive_label {
        if set.get(pos).is_none() {
            bail!(
                "{}: positive_label \"{pos}\" is not among the labels ({})",
                cfg.origin.display(),
                set.labels.join(", ")
            );
        }
    }
    let subgroups = cfg
        .subgroups
        .iter()
        .map(|g| subgroup(g, &table, &kept))
        .collect();
    let mut score_columns = Vec::new();
    for sys in &systems {
        score_columns.push(checked_scores(
            cfg,
            &table,
            &kept,
            &ids,
            &sys.name,
            &set.labels,
        )?);
    }
    let n_rows = table.nrows;
    take_scores(&mut table, &kept, &score_columns, &mut systems);
    Ok(Data {
        file: file.clone(),
        n_rows,
        n_dropped_blank_gold: n_rows - kept.len(),
        ids,
        labels: set.labels,
        gold,
        systems,
        subgroups,
    })
}

fn missing_columns(cfg: &ClassifyConfig, table: &Table, wanted: &[&str]) -> Result<()> {
    let absent: Vec<String> = wanted
        .iter()
        .filter(|c| table.column(c).is_none())
        .map(|c| format!("'{c}'"))
        .collect();
    if absent.is_empty() {
        return Ok(());
    }
    bail!(
        "{}: the column{} {} named in the experiment file {} not in the file (its columns are {})",
        cfg.predictions_file.display(),
        if absent.len() > 1 { "s" } else { "" },
        absent.join(", "),
        if absent.len() > 1 { "are" } else { "is" },
        table.names().join(", ")
    )
}

/// The label set: `labels`, or the gold labels in order of first
/// appearance, then the labels only predicted (system after system).
fn label_set(cfg: &ClassifyConfig, gold: &LabelCells, preds: &[LabelCells]) -> LabelSet {
    let mut set = LabelSet::new(cfg.ordinal);
    if let Some(labels) = &cfg.labels {
        for l in labels {
            set.add(l);
        }
        return set;
    }
    for t in std::iter::once(gold).chain(preds).flat_map(|c| &c.texts) {
        if set.get(t).is_none() {
            set.add(t);
        }
    }
    set
}

/// The code of a blank cell in [`LabelCells::local`].
const BLANK: u32 = u32::MAX;

/// A label column's cells over some rows: its distinct trimmed texts in
/// order of first appearance, and each row's index into them ([`BLANK`]
/// for a blank cell). Text cells repeat one allocation per repeated value
/// (`TextBuilder`), so each allocation is trimmed and looked up once: a
/// pointer lookup per item, no copy of any text per item.
struct LabelCells {
    texts: Vec<String>,
    local: Vec<u32>,
}

impl LabelCells {
    fn of(values: &Values, rows: impl Iterator<Item = usize>) -> LabelCells {
        let mut out = LabelCells {
            texts: Vec::new(),
            local: Vec::with_capacity(rows.size_hint().0),
        };
        let mut by_text: HashMap<String, u32, FxBuild> = HashMap::default();
        let mut intern = |texts: &mut Vec<String>, t: Option<Cow<str>>| match t {
            None => BLANK,
            Some(t) => *by_text.entry(t.to_string()).or_insert_with(|| {
                texts.push(t.into_owned());
                (texts.len() - 1) as u32
            }),
        };
        match values {
            Values::Text(cells) => {
                let mut by_cell: HashMap<usize, u32, FxBuild> = HashMap::default();
                for i in rows {
                    let code = match &cells[i] {
                        None => BLANK,
                        Some(t) => {
                            let key = std::sync::Arc::as_ptr(t) as *const u8 as usize;
                            *by_cell
                                .entry(key)
                                .or_insert_with(|| intern(&mut out.texts, cell_str(values, i)))
                        }
                    };
                    out.local.push(code);
                }
            }
            _ => {
                for i in rows {
                    let code = intern(&mut out.texts, cell_str(values, i));
                    out.local.push(code);
                }
            }
        }
        out
    }

    /// The cells of the rows `rows` (positions into these cells).
    fn on_rows(self, rows: &[usize]) -> LabelCells {
        LabelCells {
            local: rows.iter().map(|&i| self.local[i]).collect(),
            texts: self.texts,
        }
    }

    /// The codes in `set` (a blank cell: `blank`); a text outside a given
    /// label set is an error with its count.
    fn codes(
        &self,
        set: &LabelSet,
        blank: u32,
        cfg: &ClassifyConfig,
        column: &str,
        what: &str,
    ) -> Result<Vec<u32>> {
        let map: Vec<Option<u32>> = self.texts.iter().map(|t| set.get(t)).collect();
        if map.iter().all(Option::is_some) {
            return Ok(self
                .local
                .iter()
                .map(|&c| {
                    if c == BLANK {
                        blank
                    } else {
                        map[c as usize].expect("known")
                    }
                })
                .collect());
        }
        let mut counts = vec![0usize; self.texts.len()];
        for &c in self.local.iter().filter(|&&c| c != BLANK) {
            counts[c as usize] += 1;
        }
        let unknown: Vec<(&str, usize)> = (0..self.texts.len())
            .filter(|&c| map[c].is_none() && counts[c] > 0)
            .map(|c| (self.texts[c].as_str(), counts[c]))
            .collect();
        Err(unknown_labels(set, &unknown, cfg, column, what))
    }
}

/// The error for texts outside the label set, with their counts.
fn unknown_labels(
    set: &LabelSet,
    unknown: &[(&str, usize)],
    cfg: &ClassifyConfig,
    column: &str,
    what: &str,
) -> anyhow::Error {
    let shown: Vec<String> = unknown
        .iter()
        .take(SHOWN)
        .map(|(u, n)| format!("\"{u}\" ({n} item{})", if *n == 1 { "" } else { "s" }))
        .collect();
    anyhow!(
        "{}: column '{column}' has {what}{} outside labels: {}{}; add {} to labels (labels = [{}]) \
         or correct the file",
        cfg.predictions_file.display(),
        if unknown.len() > 1 { "s" } else { "" },
        shown.join(", "),
        if unknown.len() > SHOWN { format!(" and {} more", unknown.len() - SHOWN) } else { String::new() },
        if unknown.len() > 1 { "them" } else { "it" },
        set.labels.iter().map(|l| format!("\"{l}\"")).collect::<Vec<_>>().join(", ")
    )
}

fn ids(cfg: &ClassifyConfig, table: &Table, kept: &[usize]) -> Result<Vec<Text>> {
    let Some(col) = &cfg.id_column else {
        return Ok(kept
            .iter()
            .map(|&i| Text::from((i + 1).to_string()))
            .collect());
    };
    let values = &table.column(col).expect("checked").values;
    let ids: Vec<Text> = kept
        .iter()
        .map(|&i| match &values {
            Values::Text(v) if v[i].as_deref().is_some_and(|t| t.trim().len() == t.len()) => {
                v[i].clone().expect("checked")
            }
            _ => Text::from(cell_str(values, i).unwrap_or_default()),
        })
        .collect();
    let texts: Vec<&str> = ids.iter().map(|id| &**id).collect();
    let (count, shown) = crate::preprocess::repeats(&texts, SHOWN);
    let dups: Vec<String> = shown
        .iter()
        .map(|&(j, i)| format!("'{}' (rows {} and {})", texts[i], kept[j] + 1, kept[i] + 1))
        .collect();
    if count > 0 {
        bail!(
            "{}: column '{col}': {count} item{} repeat{} an id: {}{}; every item needs its own id \
             (rows are counted from the first data row)",
            cfg.predictions_file.display(),
            if count > 1 { "s" } else { "" },
            if count > 1 { "" } else { "s" },
            dups.join(", "),
            if count > dups.len() {
                format!(" and {} more", count - dups.len())
            } else {
                String::new()
            }
        );
    }
    Ok(ids)
}

/// The score columns of `system` in label order (None without score
/// columns), once every score of the items `kept` is checked: a missing
/// column, a blank, non-numeric, negative or non-finite cell is an error.
fn checked_scores(
    cfg: &ClassifyConfig,
    table: &Table,
    kept: &[usize],
    ids: &[Text],
    system: &str,
    labels: &[String],
) -> Result<Option<Vec<String>>> {
    if !cfg.has_scores(system) {
        return Ok(None);
    }
    let file = cfg.predictions_file.display();
    let mut columns = Vec::with_capacity(labels.len());
    let mut absent = Vec::new();
    for l in labels {
        match cfg.score_column(system, l) {
            Some(c) if table.column(&c).is_some() => columns.push(c),
            Some(c) => absent.push(format!("'{c}' (label \"{l}\")")),
            None => absent.push(format!("(none configured for label \"{l}\")")),
        }
    }
    if !absent.is_empty() {
        bail!(
            "{file}: the score columns of system '{system}' are missing: {}; the file's columns are {}",
            absent.join(", "),
            table.names().join(", ")
        );
    }
    let values: Vec<&Values> = columns
        .iter()
        .map(|c| &table.column(c).expect("checked").values)
        .collect();
    let owned: Vec<Option<Vec<f64>>> = values
        .iter()
        .map(|v| (!matches!(v, Values::Float(_))).then(|| v.to_numeric()))
        .collect();
    let numbers: Vec<&[f64]> = values
        .iter()
        .zip(&owned)
        .map(|(v, o)| match (v, o) {
            (Values::Float(x), _) => x.as_slice(),
            (_, Some(x)) => x.as_slice(),
            _ => unreachable!("converted above"),
        })
        .collect();
    if numbers.iter().all(|col| all_fine(col, kept)) {
        return Ok(Some(columns));
    }
    Err(bad_score(
        cfg, &columns, &values, &numbers, kept, ids, system, labels,
    ))
}

/// Whether every score of the rows `kept` is finite and not negative.
/// When every row is kept (the usual case) the column is read straight,
/// without a test per item that stops early, so the loop is vectorised
/// (about twenty times faster on a million scores than going through
/// `kept`).
fn all_fine(col: &[f64], kept: &[usize]) -> bool {
    let fine = |x: f64| x.is_finite() && x >= 0.0;
    if kept.len() == col.len() {
        return col
            .chunks(1024)
            .all(|c| c.iter().fold(true, |ok, &x| ok & fine(x)));
    }
    kept.iter().all(|&i| fine(col[i]))
}

/// Moves each system's checked score columns (`columns[s]`) out of the
/// table into [`Scores`]: when every row is kept, a number column is
/// taken as it is (no copy: a million items with thirty score columns
/// would otherwise take 240 MB of fresh memory); otherwise the kept rows
/// are copied. A column named twice is copied the second time.
fn take_scores(
    table: &mut Table,
    kept: &[usize],
    columns: &[Option<Vec<String>>],
    systems: &mut [SystemData],
) {
    let all_rows = kept.len() == table.nrows;
    let mut taken: HashMap<&str, (usize, usize), FxBuild> = HashMap::default();
    for (s, names) in columns.iter().enumerate() {
        let Some(names) = names else { continue };
        let mut scores: Vec<Vec<f64>> = Vec::with_capacity(names.len());
        for (j, name) in names.iter().enumerate() {
            let column = match taken.get(name.as_str()) {
                Some(&(s2, j2)) if s2 == s => scores[j2].clone(),
                Some(&(s2, j2)) => systems[s2].scores.as_ref().expect("taken")[j2].to_vec(),
                None => {
                    taken.insert(name, (s, j));
                    let values = &mut table
                        .columns
                        .iter_mut()
                        .find(|c| &c.name == name)
                        .expect("checked")
                        .values;
                    match values {
                        Values::Float(v) if all_rows => std::mem::take(v),
                        Values::Float(v) => kept.iter().map(|&i| v[i]).collect(),
                        other => {
                            let v = other.to_numeric();
                            kept.iter().map(|&i| v[i]).collect()
                        }
                    }
                }
            };
            scores.push(column);
        }
        systems[s].scores = Some(Scores { columns: scores });
    }
}

/// The error for the first score, column after column, that is not
/// finite or negative.
#[allow(clippy::too_many_arguments)]
fn bad_score(
    cfg: &ClassifyConfig,
    columns: &[String],
    values: &[&Values],
    numbers: &[&[f64]],
    kept: &[usize],
    ids: &[Text],
    system: &str,
    labels: &[String],
) -> anyhow::Error {
    let file = cfg.predictions_file.display();
    for (j, c) in columns.iter().enumerate() {
        let Some((r, &i)) = kept
            .iter()
            .enumerate()
            .find(|(_, &i)| !(numbers[j][i].is_finite() && numbers[j][i] >= 0.0))
        else {
            continue;
        };
        let x = numbers[j][i];
        let why = match cell_text(values[j], i) {
            None => "is empty or NaN; every item needs a finite score for every label".to_string(),
            Some(t) if x.is_nan() && rsmreport_core::table::parse_number(&t).is_nan() => {
                format!("holds \"{t}\", which is not a number")
            }
            Some(t) => format!("holds {t}; scores must be finite and not negative"),
        };
        return anyhow!(
            "{file}: column '{c}' (system '{system}', label \"{}\"), item '{}' (row {}) {why}",
            labels[j],
            ids[r],
            i + 1
        );
    }
    unreachable!("called for a bad score")
}

fn subgroup(column: &str, table: &Table, kept: &[usize]) -> Subgroup {
    let values = &table.column(column).expect("checked").values;
    // Each distinct cell's text once (shared cells are looked up by
    // pointer), then its level: no text per item, no sort of every item.
    let cells = LabelCells::of(values, kept.iter().copied());
    let blank = "(blank)";
    let text = |c: u32| {
        if c == BLANK {
            blank
        } else {
            cells.texts[c as usize].as_str()
        }
    };
    let mut levels: Vec<&str> = cells.texts.iter().map(String::as_str).collect();
    if cells.local.contains(&BLANK) {
        levels.push(blank);
    }
    levels.sort_unstable();
    levels.dedup();
    let level_of = |c: u32| levels.binary_search(&text(c)).expect("a level") as u32;
    let by_text: Vec<u32> = (0..cells.texts.len() as u32).map(level_of).collect();
    let blank_level = levels.binary_search(&blank).map_or(u32::MAX, |l| l as u32);
    let codes = cells
        .local
        .iter()
        .map(|&c| {
            if c == BLANK {
                blank_level
            } else {
                by_text[c as usize]
            }
        })
        .collect();
    Subgroup {
        column: column.to_string(),
        levels: levels.into_iter().map(str::to_string).collect(),
        codes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsmreport_core::table::{text_values, Column};

    /// Levels in code-point order; a blank cell (missing or spaces) and
    /// the text "(blank)" are one level; texts are trimmed; only the kept
    /// rows count (a level seen only in a dropped row is not one).
    #[test]
    fn subgroup_levels_and_codes() {
        let cells = [
            Some("news"),
            Some(" forum "),
            None,
            Some("(blank)"),
            Some("legal"),
            Some("  "),
            Some("news"),
            Some("Zed"),
            Some("dropped"),
        ];
        let table = Table {
            columns: vec![Column::new("domain", text_values(cells))],
            nrows: cells.len(),
        };
        let kept = [0, 1, 2, 3, 4, 5, 6, 7];
        let g = subgroup("domain", &table, &kept);
        assert_eq!(g.levels, ["(blank)", "Zed", "forum", "legal", "news"]);
        assert_eq!(g.codes, [4, 2, 0, 0, 3, 0, 4, 1]);
        // Numbers by their text form.
        let table = Table {
            columns: vec![Column::new("year", Values::Int(vec![2021, 2020, 2021]))],
            nrows: 3,
        };
        let g = subgroup("year", &table, &[0, 1, 2]);
        assert_eq!(g.levels, ["2020", "2021"]);
        assert_eq!(g.codes, [1, 0, 1]);
    }
}
