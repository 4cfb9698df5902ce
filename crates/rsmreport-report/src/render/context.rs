//! Report stage: the typed, already formatted contexts the templates are
//! filled with. Every string here is final text (numbers formatted, ids
//! unique); the templates only place them. Plain data; no I/O.

use serde::Serialize;

/// A heading with its element id (levels 2 and 3 are in the table of
/// contents).
#[derive(Clone, Debug, Serialize)]
pub struct Heading {
    pub id: String,
    pub text: String,
    pub level: u8,
}

/// One cell of a table body.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Cell {
    /// The formatted text shown.
    pub text: String,
    /// CSS classes: `num` (right-aligned figure), `hl` (highlighted).
    pub class: String,
    /// Tooltip (why a value is highlighted, what a row label means).
    pub title: String,
    /// The exact value for sorting and CSV export (empty: use the text).
    pub value: String,
    /// A link target (the intermediate files); empty for none.
    pub href: String,
    /// A row header (`<th scope="row">`).
    pub header: bool,
    /// A compact confidence interval shown under the value
    /// (`[0.578, 0.620]`); empty for none.
    pub ci: String,
}

/// One column header.
#[derive(Clone, Debug, Serialize)]
pub struct ColumnHead {
    pub text: String,
    /// The metric's definition (tooltip).
    pub title: String,
    /// `num` for numeric columns.
    pub class: String,
    /// A second, smaller line (the score type of `DSM.scale_trim`); the
    /// full name is then `text.sub`.
    pub sub: String,
}

/// A table, ready to be placed.
#[derive(Clone, Debug, Serialize)]
pub struct Table {
    pub id: String,
    /// Short description (the table's `<caption>`).
    pub caption: String,
    /// Click-to-sort column headers.
    pub sortable: bool,
    /// File name offered by the "Download CSV" button; empty for none.
    pub csv: String,
    /// Extra CSS classes of the `<table>` (`matrix`, `grouped`).
    pub class: String,
    pub columns: Vec<ColumnHead>,
    pub rows: Vec<Row>,
}

/// One table row.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Row {
    pub cells: Vec<Cell>,
    /// CSS classes of the `<tr>` (`group-start`).
    pub class: String,
}

/// A figure: inline SVG, or a thumbnail linking to the SVG file.
#[derive(Clone, Debug, Serialize)]
pub struct FigureCtx {
    pub id: String,
    /// `Figure 3`.
    pub label: String,
    pub title: String,
    pub description: String,
    /// The `<svg>` element (inline mode); empty with thumbnails.
    pub svg: String,
    /// `../figure/<id>_<name>.svg`.
    pub href: String,
    /// Largest display width in pixels (the figure's own width, enlarged a
    /// little); empty when unknown.
    pub max_width: String,
    /// The panels stacked in one column, shown instead of `svg` below
    /// 700 px (empty when the figure has none, and with thumbnails).
    pub narrow_svg: String,
    /// Its largest display width, as `max_width`.
    pub narrow_max_width: String,
    pub thumbnail: bool,
    /// A small figure of a series (summarize's trends): consecutive
    /// compact figures sit side by side in a grid, as many as fit.
    pub compact: bool,
}

/// A term of a glossary box.
#[derive(Clone, Debug, Serialize)]
pub struct Term {
    pub name: String,
    pub text: String,
}

/// A heading with the table below it.
#[derive(Clone, Debug, Serialize)]
pub struct Titled {
    pub heading: Heading,
    pub table: Table,
}

/// An entry of the table of contents.
#[derive(Clone, Debug, Serialize)]
pub struct TocEntry {
    pub id: String,
    pub text: String,
    pub children: Vec<TocEntry>,
}

/// One input file in the provenance block.
#[derive(Clone, Debug, Serialize)]
pub struct InputCtx {
    pub role: String,
    pub path: String,
    pub rows: String,
    pub sha256: String,
}

/// A key figure of the "at a glance" strip.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Glance {
    pub label: String,
    pub value: String,
    pub title: String,
    /// Its confidence interval, shown under the value (`95% CI [0.578,
    /// 0.620]`); empty for none.
    pub ci: String,
}

/// A section after rendering: its fragment and where it goes.
#[derive(Clone, Debug, Serialize)]
pub struct SectionHtml {
    /// The `<section>` element id (the section's name).
    pub id: String,
    pub name: String,
    /// `builtin`, `markdown` or `html` (a panel: its CSS classes).
    pub kind: String,
    /// The fragment: rendered by our templates, or a custom section.
    pub html: String,
}

/// The whole page.
#[derive(Clone, Debug, Serialize)]
pub struct PageCtx {
    pub title: String,
    pub header: super::model::Header,
    pub toc: Vec<TocEntry>,
    /// The panels under the header (`kind` is the panel's CSS class).
    pub panels: Vec<SectionHtml>,
    pub sections: Vec<SectionHtml>,
    pub css: String,
    pub js: String,
}
