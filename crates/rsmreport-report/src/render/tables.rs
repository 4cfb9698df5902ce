//! Report stage: turning [`Frame`]s and typed results into formatted
//! [`Table`] contexts (cells, tooltips, highlighting). No I/O; reads frames,
//! never changes them.

use super::context::{Cell, ColumnHead, Row, Table};
use super::format::{count_f64, num3, raw_value, score_label};
use super::glossary;
use rsmreport_core::table::{Cell as DataCell, Frame, Values};

/// A highlighting rule: for a column and a value, the reason it is
/// highlighted (the cell's tooltip), or `None`.
pub type Highlight<'a> = &'a dyn Fn(&str, f64) -> Option<String>;

/// No highlighting.
pub fn no_highlight(_: &str, _: f64) -> Option<String> {
    None
}

/// An empty table with the given id and caption.
pub fn table(id: String, caption: impl Into<String>, sortable: bool, csv: String) -> Table {
    Table {
        id,
        caption: caption.into(),
        sortable,
        csv,
        class: String::new(),
        columns: Vec::new(),
        rows: Vec::new(),
    }
}

/// Marks the column headed `name` as the table's one decision column (the
/// verdict or the gate status): below 700 px it sticks at the right edge,
/// header and cells together, with an opaque background, while the rest
/// of the table scrolls under it. At most one column of a table sticks
/// (an earlier mark is removed), and a table with a decision column keeps
/// its first column in place, so every cell stays under its own header at
/// every width. No change when no column has that name.
pub fn stick_column(t: &mut Table, name: &str) {
    let Some(j) = t.columns.iter().position(|c| c.text == name) else {
        return;
    };
    let unmark = |class: &mut String| {
        *class = class
            .split_whitespace()
            .filter(|c| *c != "stick")
            .collect::<Vec<_>>()
            .join(" ");
    };
    let mark = |class: &mut String| {
        if !class.is_empty() {
            class.push(' ');
        }
        class.push_str("stick");
    };
    for (i, c) in t.columns.iter_mut().enumerate() {
        unmark(&mut c.class);
        if i == j {
            mark(&mut c.class);
        }
    }
    for r in &mut t.rows {
        for (i, c) in r.cells.iter_mut().enumerate() {
            unmark(&mut c.class);
            if i == j {
                mark(&mut c.class);
            }
        }
    }
    if !t.class.split_whitespace().any(|c| c == "decided") {
        if !t.class.is_empty() {
            t.class.push(' ');
        }
        t.class.push_str("decided");
    }
}

/// A column header with the glossary definition of `name` as tooltip.
/// A name such as `DSM.scale_trim` is shown on two lines (`DSM`, then the
/// score type in small print).
pub fn head(name: &str, numeric: bool) -> ColumnHead {
    let (text, sub) = match name.split_once('.') {
        Some((base, ty)) if !base.is_empty() && !ty.is_empty() => (base, ty),
        _ => (name, ""),
    };
    ColumnHead {
        sub: sub.to_string(),
        ..titled_head(text, numeric, &glossary::column(name))
    }
}

/// A column header with its own tooltip `title` (a kind's own terms); an
/// empty `title` falls back to the glossary's definition of `text`.
pub fn titled_head(text: &str, numeric: bool, title: &str) -> ColumnHead {
    ColumnHead {
        text: text.to_string(),
        title: match title {
            "" => glossary::column(text),
            t => t.to_string(),
        },
        class: if numeric { "num" } else { "" }.to_string(),
        sub: String::new(),
    }
}

/// A text cell.
pub fn text_cell(s: &str) -> Cell {
    Cell {
        text: s.to_string(),
        ..Cell::default()
    }
}

/// A row-header cell; score-type labels get their definition as tooltip.
pub fn label_cell(s: &str) -> Cell {
    Cell {
        text: s.to_string(),
        title: glossary::score_type(s).unwrap_or("").to_string(),
        header: true,
        ..Cell::default()
    }
}

/// A metric cell (three decimals), highlighted when `why` is given.
pub fn metric_cell(x: f64, why: Option<String>) -> Cell {
    let mut c = Cell {
        text: num3(x),
        class: "num".into(),
        value: raw_value(x),
        ..Cell::default()
    };
    if let Some(why) = why {
        c.class.push_str(" hl");
        c.title = why;
    }
    c
}

/// A number (three decimals) with its interval in small print under it;
/// no interval when an end is not finite. Sorted by the number.
pub fn interval_cell(x: f64, interval: Option<(f64, f64)>) -> Cell {
    let ci = interval
        .filter(|(lo, hi)| lo.is_finite() && hi.is_finite())
        .map_or_else(String::new, |(lo, hi)| {
            format!("[{}, {}]", num3(lo), num3(hi))
        });
    Cell {
        text: num3(x),
        class: "num".into(),
        value: raw_value(x),
        ci,
        ..Cell::default()
    }
}

/// A p-value cell: three decimals, `< 0.001` below that (a bootstrap
/// p-value of 0 is below 1 / replicates, not zero); sorted by the number.
pub fn p_value_cell(p: f64) -> Cell {
    Cell {
        text: crate::render::format::p_value(p),
        ..metric_cell(p, None)
    }
}

/// A count cell (integer display).
pub fn count_cell(x: f64) -> Cell {
    Cell {
        text: count_f64(x),
        class: "num".into(),
        value: raw_value(x),
        ..Cell::default()
    }
}

/// A cell of a data column, formatted by type: integers as integers, floats
/// with three decimals (or as integers when `count`), text as is.
fn data_cell(values: &Values, i: usize, count: bool, hl: Option<String>) -> Cell {
    match values.cell(i) {
        DataCell::Int(v) => count_cell(v as f64),
        DataCell::Float(x) if count => count_cell(x),
        DataCell::Float(x) => metric_cell(x, hl),
        DataCell::Missing => match values {
            Values::Text(_) => text_cell(""),
            _ => metric_cell(f64::NAN, None),
        },
        DataCell::Bool(b) => text_cell(if b { "true" } else { "false" }),
        DataCell::Text(s) => text_cell(&s),
    }
}

/// Row labels of a frame's index as text (`All data`, `raw`, `3`).
pub fn index_labels(frame: &Frame) -> Vec<String> {
    match &frame.index {
        None => Vec::new(),
        Some(values) => (0..values.len())
            .map(|i| match values.cell(i) {
                DataCell::Int(v) => v.to_string(),
                DataCell::Float(x) => score_label(x),
                DataCell::Text(s) => s,
                DataCell::Bool(b) => b.to_string(),
                DataCell::Missing => String::new(),
            })
            .collect(),
    }
}

/// A numeric column of a frame (`NaN` where missing or absent).
pub fn column_f64(frame: &Frame, name: &str) -> Vec<f64> {
    frame
        .column(name)
        .map_or_else(|| vec![f64::NAN; frame.nrows()], |c| c.values.to_numeric())
}

/// Options of [`frame_table`].
pub struct FrameOpts<'a> {
    /// Header of the index column (`None`: the index is not shown).
    pub index: Option<&'a str>,
    /// Columns to show, in this order (`None`: all, in frame order).
    pub columns: Option<&'a [&'a str]>,
    /// Float columns holding counts (shown as integers).
    pub counts: &'a [&'a str],
    /// Float columns holding p-values (`< 0.001` below that).
    pub p_values: &'a [&'a str],
    /// Column headers to show instead of the column names.
    pub rename: &'a [(&'a str, &'a str)],
    pub highlight: Highlight<'a>,
    /// Rows to keep (`None`: all).
    pub rows: Option<&'a [usize]>,
}

impl Default for FrameOpts<'_> {
    fn default() -> Self {
        FrameOpts {
            index: None,
            columns: None,
            counts: &[],
            p_values: &[],
            rename: &[],
            highlight: &no_highlight,
            rows: None,
        }
    }
}

/// Fills `t` with the rows of `frame`.
pub fn frame_table(mut t: Table, frame: &Frame, opts: &FrameOpts) -> Table {
    let labels = index_labels(frame);
    let columns: Vec<&rsmreport_core::table::Column> = match opts.columns {
        Some(names) => names.iter().filter_map(|n| frame.column(n)).collect(),
        None => frame.columns.iter().collect(),
    };
    if let Some(ix) = opts.index {
        t.columns.push(head(ix, false));
    }
    for c in &columns {
        let numeric = !matches!(c.values, Values::Text(_));
        let shown = opts
            .rename
            .iter()
            .find(|(from, _)| *from == c.name)
            .map_or(c.name.as_str(), |(_, to)| to);
        let mut h = head(shown, numeric);
        if h.title.is_empty() {
            h.title = glossary::column(&c.name);
        }
        t.columns.push(h);
    }
    let all: Vec<usize> = (0..frame.nrows()).collect();
    let rows = opts.rows.unwrap_or(&all);
    for &i in rows {
        let mut cells = Vec::with_capacity(columns.len() + 1);
        if opts.index.is_some() {
            cells.push(label_cell(labels.get(i).map_or("", String::as_str)));
        }
        for c in &columns {
            let count = opts.counts.contains(&c.name.as_str());
            let hl = match c.values.cell(i) {
                DataCell::Float(x) => (opts.highlight)(&c.name, x),
                _ => None,
            };
            let mut cell = match c.values.cell(i) {
                DataCell::Float(p) if opts.p_values.contains(&c.name.as_str()) => p_value_cell(p),
                _ => data_cell(&c.values, i, count, hl),
            };
            if matches!(c.values, Values::Text(_)) && opts.index.is_none() && cells.is_empty() {
                cell.header = true;
            }
            cells.push(cell);
        }
        t.rows.push(Row {
            cells,
            class: String::new(),
        });
    }
    t
}

/// A confusion matrix (`confMatrix`, `confMatrix_h1h2`): rows = first
/// score, columns = second score, counts.
pub fn matrix_table(mut t: Table, frame: &Frame, row_name: &str, col_name: &str) -> Table {
    t.class = "matrix".into();
    t.columns.push(ColumnHead {
        text: format!("{row_name} \u{2193} / {col_name} \u{2192}"),
        title: format!("Rows: {row_name}; columns: {col_name}."),
        class: String::new(),
        sub: String::new(),
    });
    for c in &frame.columns {
        t.columns.push(ColumnHead {
            text: c.name.clone(),
            title: format!("{col_name} = {}", c.name),
            class: "num".into(),
            sub: String::new(),
        });
    }
    for (i, label) in index_labels(frame).iter().enumerate() {
        let mut cells = vec![Cell {
            text: label.clone(),
            title: format!("{row_name} = {label}"),
            header: true,
            ..Cell::default()
        }];
        for c in &frame.columns {
            let mut cell = data_cell(&c.values, i, true, None);
            if c.name == *label {
                cell.class.push_str(" diag");
            }
            cells.push(cell);
        }
        t.rows.push(Row {
            cells,
            class: String::new(),
        });
    }
    t
}

/// Why `x` is outside `[lo, hi]` (for highlight tooltips), or `None`.
pub fn outside(x: f64, lo: Option<f64>, hi: Option<f64>) -> Option<String> {
    if let Some(lo) = lo {
        if x < lo {
            return Some(format!("Below {lo}"));
        }
    }
    if let Some(hi) = hi {
        if x > hi {
            return Some(format!("Above {hi}"));
        }
    }
    None
}

/// The most categories (labels, classes) a table of a report shows (the
/// output files keep every one).
pub const MAX_SHOWN_CATEGORIES: usize = 50;
/// The most categories a figure or a confusion matrix shows.
pub const MAX_FIGURE_CATEGORIES: usize = 30;

/// The `max` categories with the largest `totals` (ties: the first in
/// declared order), in declared order; every category when there are no
/// more than `max`.
pub fn most_frequent(totals: &[f64], max: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..totals.len()).collect();
    if totals.len() > max {
        order.sort_by(|&a, &b| totals[b].total_cmp(&totals[a]).then(a.cmp(&b)));
        order.truncate(max);
        order.sort_unstable();
    }
    order
}

/// At most `max` names joined with commas, then how many more there are.
pub fn some_names(names: &[&str], max: usize) -> String {
    let shown = names[..names.len().min(max)].join(", ");
    if names.len() > max {
        format!("{shown} and {} more", names.len() - max)
    } else {
        shown
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsmreport_core::table::Column;

    #[test]
    fn frames_become_formatted_tables() {
        let f = Frame::new(
            "eval",
            Some(Values::Text(vec![
                Some("raw".into()),
                Some("raw_trim".into()),
            ])),
            vec![
                Column::new("N", Values::Int(vec![10, 10])),
                Column::new("corr", Values::Float(vec![0.65, f64::NAN])),
                Column::new("n2", Values::Float(vec![3.0, 4.0])),
            ],
        );
        let hl = |c: &str, x: f64| (c == "corr").then(|| outside(x, Some(0.7), None)).flatten();
        let t = frame_table(
            table("t".into(), "cap", true, "x.csv".into()),
            &f,
            &FrameOpts {
                index: Some("score type"),
                counts: &["n2"],
                highlight: &hl,
                ..FrameOpts::default()
            },
        );
        let texts: Vec<Vec<&str>> = t
            .rows
            .iter()
            .map(|r| r.cells.iter().map(|c| c.text.as_str()).collect())
            .collect();
        assert_eq!(
            texts,
            [["raw", "10", "0.650", "3"], ["raw_trim", "10", "n/a", "4"]]
        );
        assert_eq!(t.rows[0].cells[2].class, "num hl");
        assert_eq!(t.rows[0].cells[2].title, "Below 0.7");
        assert_eq!(t.rows[0].cells[2].value, "0.65");
        assert!(t.rows[0].cells[0].header);
        assert!(t.columns[2].title.starts_with("Pearson"));
    }

    #[test]
    fn confusion_matrices_mark_the_diagonal() {
        let f = Frame::new(
            "confMatrix",
            Some(Values::Int(vec![1, 2])),
            vec![
                Column::new("1", Values::Int(vec![5, 1])),
                Column::new("2", Values::Int(vec![0, 7])),
            ],
        );
        let t = matrix_table(
            table("m".into(), "", false, String::new()),
            &f,
            "human",
            "machine",
        );
        assert_eq!(t.rows[1].cells[2].text, "7");
        assert!(t.rows[1].cells[2].class.contains("diag"));
        assert!(!t.rows[1].cells[1].class.contains("diag"));
    }

    #[test]
    fn one_column_sticks_header_and_cells_together() {
        let mut t = table("v".into(), "", false, String::new());
        t.columns = ["statistic", "p", "verdict"]
            .iter()
            .map(|n| head(n, false))
            .collect();
        t.rows = vec![Row {
            cells: vec![
                label_cell("corr"),
                p_value_cell(0.2),
                Cell {
                    class: "verdict verdict-none".into(),
                    ..text_cell("equivalent")
                },
            ],
            class: String::new(),
        }];
        stick_column(&mut t, "p");
        stick_column(&mut t, "verdict");
        stick_column(&mut t, "no such column");
        let stuck = |class: &str| class.split_whitespace().any(|c| c == "stick");
        let heads: Vec<bool> = t.columns.iter().map(|c| stuck(&c.class)).collect();
        let cells: Vec<bool> = t.rows[0].cells.iter().map(|c| stuck(&c.class)).collect();
        assert_eq!(heads, [false, false, true]);
        assert_eq!(cells, [false, false, true]);
        assert_eq!(t.rows[0].cells[1].class, "num");
        assert_eq!(t.rows[0].cells[2].class, "verdict verdict-none stick");
        assert_eq!(t.class, "decided");
    }
}
