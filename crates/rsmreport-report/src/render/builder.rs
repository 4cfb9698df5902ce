//! Report stage: the state shared while a report is assembled, for every
//! report kind: unique element ids, the headings seen so far (the table of
//! contents), the figures drawn, and the shared pieces (a table with its
//! CSV download, a figure with its caption, custom Markdown or HTML
//! sections). Each report kind's assembly drives a [`Builder`] and
//! [`Builder::finish`]es it into a [`Report`]. No I/O; knows nothing of
//! any kind.

use anyhow::{Context as _, Result};
use serde::Serialize;

use super::context::{FigureCtx, Heading, Table, TocEntry};
use super::format::Ids;
use super::markdown;
use super::model::{Block, Header, Panel, Report, Section};
use crate::plots::Figure;

/// Element ids of the page itself, never given to anything else.
const PAGE_IDS: [&str; 4] = ["top", "contents", "provenance", "main"];

/// The state shared by the section builders of one report.
pub struct Builder {
    pub ids: Ids,
    toc: Vec<Heading>,
    figures: Vec<Figure>,
    file_prefix: String,
    thumbnails: bool,
}

impl Builder {
    /// A builder for a report whose files are named `<file_prefix>_..`;
    /// with `thumbnails`, figures are shown as thumbnails linking to their
    /// files.
    pub fn new(file_prefix: &str, thumbnails: bool) -> Self {
        let mut ids = Ids::default();
        for fixed in PAGE_IDS {
            ids.reserve(fixed);
        }
        Builder {
            ids,
            toc: Vec::new(),
            figures: Vec::new(),
            file_prefix: file_prefix.to_string(),
            thumbnails,
        }
    }

    /// The prefix of the report's file names (the run's id).
    pub fn file_prefix(&self) -> &str {
        &self.file_prefix
    }

    /// The element ids of sections with these names, reserved before any
    /// heading takes one: the name itself (whitespace as `-`), or a fresh
    /// id when it is taken.
    pub fn section_ids<'n>(&mut self, names: impl IntoIterator<Item = &'n str>) -> Vec<String> {
        names
            .into_iter()
            .map(|name| {
                let wanted = section_id(name);
                if self.ids.reserve(&wanted) {
                    wanted
                } else {
                    self.ids.from_text(&wanted)
                }
            })
            .collect()
    }

    /// A heading with a fresh id; levels 2 and 3 go into the table of
    /// contents.
    pub fn heading(&mut self, level: u8, text: impl Into<String>) -> Heading {
        let text = text.into();
        let h = Heading {
            id: self.ids.from_text(&text),
            text,
            level,
        };
        if level <= 3 {
            self.toc.push(h.clone());
        }
        h
    }

    /// An empty table with a fresh id; `csv` offers a CSV download
    /// (`<prefix>_<id>.csv`).
    pub fn table(&mut self, name: &str, caption: &str, sortable: bool, csv: bool) -> Table {
        let id = self.ids.from_text(&format!("table {name}"));
        let csv = if csv {
            format!("{}_{}.csv", self.file_prefix, id)
        } else {
            String::new()
        };
        super::tables::table(id, caption, sortable, csv)
    }

    /// Keeps a drawn figure (for `figure/`) and returns how the page shows it.
    pub fn figure(&mut self, figure: Figure) -> FigureCtx {
        let number = self.figures.len() + 1;
        let thumbnail = self.thumbnails;
        let ctx = FigureCtx {
            id: self.ids.from_text(&format!("figure {}", figure.name)),
            label: format!("Figure {number}"),
            title: figure.title.clone(),
            description: figure.description.clone(),
            svg: if thumbnail {
                String::new()
            } else {
                figure.svg.clone()
            },
            href: format!("../figure/{}", figure_file(&self.file_prefix, &figure)),
            max_width: display_width(&figure.svg).map_or_else(String::new, |w| w.to_string()),
            narrow_svg: match (&figure.narrow_svg, thumbnail) {
                (Some(svg), false) => svg.clone(),
                _ => String::new(),
            },
            narrow_max_width: figure
                .narrow_svg
                .as_deref()
                .and_then(display_width)
                .map_or_else(String::new, |w| w.to_string()),
            thumbnail,
            compact: false,
        };
        self.figures.push(figure);
        ctx
    }

    /// A section-level table-of-contents entry pointing at an element that
    /// already has its id.
    pub fn toc_entry(&mut self, id: &str, text: &str, level: u8) {
        self.toc.push(Heading {
            id: id.to_string(),
            text: text.to_string(),
            level,
        });
    }

    /// A custom section's body from its text: Markdown rendered safely
    /// (its headings in the table of contents, the section's name when it
    /// has no level-1 or level-2 heading), or HTML inserted as is. Returns
    /// the section's CSS class (`markdown` or `html`) and its block.
    pub fn custom(
        &mut self,
        id: &str,
        name: &str,
        text: &str,
        markdown: bool,
    ) -> (&'static str, Block) {
        if markdown {
            let (html, headings) = markdown::to_html(text, Some(&mut self.ids));
            if !headings.iter().any(|h| h.level <= 2) {
                self.toc_entry(id, name, 2);
            }
            for h in headings.iter().filter(|h| h.level <= 3) {
                self.toc_entry(&h.id, &h.text, h.level.max(2));
            }
            ("markdown", Block::Html(html))
        } else {
            self.toc_entry(id, name, 2);
            ("html", Block::Html(text.to_string()))
        }
    }

    /// The finished report.
    pub fn finish(
        self,
        header: Header,
        panels: Vec<Panel>,
        sections: Vec<Section>,
        templates: &'static [(&'static str, &'static str)],
    ) -> Report {
        Report {
            header,
            panels,
            sections,
            toc: nest(&self.toc),
            figures: self.figures,
            templates,
            file_prefix: self.file_prefix,
        }
    }
}

/// How wide a figure may be shown: its own width enlarged by up to 30%, as
/// long as it stays at most 700 pixels high (from the root element's
/// `width` and `height`).
pub fn display_width(svg: &str) -> Option<u32> {
    let root = &svg[..svg.find('>')?];
    let attr = |name: &str| -> Option<f64> {
        let key = format!(" {name}=\"");
        let start = root.find(&key)? + key.len();
        let end = root[start..].find('"')? + start;
        root[start..end].parse().ok()
    };
    let (w, h) = (attr("width")?, attr("height")?);
    if !(w > 0.0 && h > 0.0) {
        return None;
    }
    Some((w * 1.3).min(w * 700.0 / h).max(w).round() as u32)
}

/// `<prefix>_<figure name>.svg`.
pub fn figure_file(prefix: &str, figure: &Figure) -> String {
    format!("{prefix}_{}.svg", figure.name)
}

/// A typed context for one of the report kind's templates, as a block.
pub fn template<T: Serialize>(template: &'static str, ctx: &T) -> Result<Block> {
    Ok(Block::Template {
        template,
        context: tera::Context::from_serialize(ctx)
            .with_context(|| format!("cannot prepare the report section {template}"))?,
    })
}

/// A section's element id: its name, with whitespace as `-` (ids cannot
/// hold whitespace).
fn section_id(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_whitespace() { '-' } else { c })
        .collect()
}

/// Headings in document order as a two-level tree: a level-3 heading goes
/// under the level-2 heading before it (at top level if there is none).
pub fn nest(flat: &[Heading]) -> Vec<TocEntry> {
    let mut out: Vec<TocEntry> = Vec::new();
    for h in flat {
        let entry = TocEntry {
            id: h.id.clone(),
            text: h.text.clone(),
            children: Vec::new(),
        };
        match out.last_mut() {
            Some(parent) if h.level > 2 => parent.children.push(entry),
            _ => out.push(entry),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(id: &str, level: u8) -> Heading {
        Heading {
            id: id.into(),
            text: id.into(),
            level,
        }
    }

    #[test]
    fn toc_nests_level_three_under_level_two() {
        let toc = nest(&[h("a", 3), h("b", 2), h("c", 3), h("d", 3), h("e", 2)]);
        let shape: Vec<(&str, Vec<&str>)> = toc
            .iter()
            .map(|e| {
                (
                    e.id.as_str(),
                    e.children.iter().map(|c| c.id.as_str()).collect(),
                )
            })
            .collect();
        assert_eq!(shape, [("a", vec![]), ("b", vec!["c", "d"]), ("e", vec![])]);
    }

    #[test]
    fn figures_may_grow_a_little() {
        assert_eq!(
            display_width("<svg width=\"400\" height=\"300\">"),
            Some(520)
        );
        assert_eq!(
            display_width("<svg width=\"542\" height=\"642\">"),
            Some(591)
        );
        assert_eq!(
            display_width("<svg width=\"900\" height=\"900\">"),
            Some(900)
        );
        assert_eq!(display_width("<svg viewBox=\"0 0 1 1\">"), None);
    }

    #[test]
    fn section_ids_have_no_whitespace() {
        assert_eq!(section_id("my notes"), "my-notes");
        assert_eq!(section_id("evaluation"), "evaluation");
    }
}
