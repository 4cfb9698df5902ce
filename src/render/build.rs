//! Report stage: computes everything the report shows, before anything is
//! rendered: the header and provenance, every section's typed context (in
//! the configured order), the figures, and the table of contents. Reads the
//! custom section files; writes nothing; never changes the [`Run`].

use anyhow::{Context as _, Result};
use serde::Serialize;

use super::context::{FigureCtx, Glance, HeaderCtx, Heading, InputCtx, Table, TocEntry};
use super::format::{self, num3, thousands, Ids};
use super::sections;
use super::{glossary, markdown};
use crate::config::Section;
use crate::pipeline::Run;
use crate::plots::Figure;

/// What a section renders to.
pub enum Body {
    /// A built-in section: its template and typed context.
    Template {
        template: &'static str,
        context: tera::Context,
    },
    /// A custom section: Markdown already turned into safe HTML (`markdown`)
    /// or an HTML fragment inserted as is (`html`).
    Html { kind: &'static str, html: String },
}

/// One section, ready to render.
pub struct BuiltSection {
    pub id: String,
    pub name: String,
    pub body: Body,
}

/// Everything the report shows.
pub struct Model {
    pub header: HeaderCtx,
    pub toc: Vec<TocEntry>,
    pub sections: Vec<BuiltSection>,
    /// Every figure drawn, in document order (also written to `figure/`).
    pub figures: Vec<Figure>,
}

/// The state shared by the section builders: unique ids, the headings seen
/// so far (for the table of contents), the figures drawn.
pub struct Builder<'a> {
    pub run: &'a Run,
    pub ids: Ids,
    toc: Vec<Heading>,
    pub figures: Vec<Figure>,
}

impl<'a> Builder<'a> {
    pub fn new(run: &'a Run) -> Self {
        Builder {
            run,
            ids: Ids::default(),
            toc: Vec::new(),
            figures: Vec::new(),
        }
    }

    /// A table of the run by name, if it is written (has rows and columns):
    /// the report shows exactly the tables the output folder holds.
    pub fn frame(&self, name: &str) -> Option<&'a crate::table::Frame> {
        self.run.analysis.frame(name).filter(|f| f.is_writable())
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

    /// An empty table with a fresh id; `csv` offers a CSV download.
    pub fn table(&mut self, name: &str, caption: &str, sortable: bool, csv: bool) -> Table {
        let id = self.ids.from_text(&format!("table {name}"));
        let csv = if csv {
            format!("{}_{}.csv", self.run.exp.experiment_id, id)
        } else {
            String::new()
        };
        super::tables::table(id, caption, sortable, csv)
    }

    /// Keeps a drawn figure (for `figure/`) and returns how the page shows it.
    pub fn figure(&mut self, figure: Figure) -> FigureCtx {
        let number = self.figures.len() + 1;
        let thumbnail = self.run.exp.use_thumbnails;
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
            href: format!(
                "../figure/{}",
                figure_file(&self.run.exp.experiment_id, &figure)
            ),
            max_width: display_width(&figure.svg).map_or_else(String::new, |w| w.to_string()),
            thumbnail,
        };
        self.figures.push(figure);
        ctx
    }

    /// A section-level table-of-contents entry pointing at an element that
    /// already has its id (custom sections).
    fn toc_entry(&mut self, id: &str, text: &str, level: u8) {
        self.toc.push(Heading {
            id: id.to_string(),
            text: text.to_string(),
            level,
        });
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

/// `<id>_<figure name>.svg`.
pub fn figure_file(experiment_id: &str, figure: &Figure) -> String {
    format!("{experiment_id}_{}.svg", figure.name)
}

/// A typed section context as a template context.
pub fn template<T: Serialize>(template: &'static str, ctx: &T) -> Result<Body> {
    Ok(Body::Template {
        template,
        context: tera::Context::from_serialize(ctx)
            .with_context(|| format!("cannot prepare the report section {template}"))?,
    })
}

/// Builds the whole report model; `epoch` is the generation time.
pub fn build(run: &Run, epoch: i64) -> Result<Model> {
    let mut b = Builder::new(run);
    for fixed in ["top", "contents", "provenance", "main"] {
        b.ids.reserve(fixed);
    }
    // Section ids first, so no heading takes a section's name.
    let mut section_ids = Vec::with_capacity(run.exp.sections.len());
    for s in &run.exp.sections {
        let wanted = section_id(s.name());
        let id = if b.ids.reserve(&wanted) {
            wanted
        } else {
            b.ids.from_text(&wanted)
        };
        section_ids.push(id);
    }
    let header = header(run, epoch);
    let mut built = Vec::with_capacity(run.exp.sections.len());
    for (s, id) in run.exp.sections.iter().zip(section_ids) {
        let body = match s {
            Section::Builtin(name) => sections::builtin(&mut b, name)
                .with_context(|| format!("cannot build the report section {name}"))?,
            Section::Custom { name, path } => custom(&mut b, &id, name, path)?,
        };
        built.push(BuiltSection {
            id,
            name: s.name().to_string(),
            body,
        });
    }
    Ok(Model {
        header,
        toc: nest(&b.toc),
        sections: built,
        figures: b.figures,
    })
}

/// A section's element id: its name, with whitespace as `-` (ids cannot
/// hold whitespace).
fn section_id(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_whitespace() { '-' } else { c })
        .collect()
}

/// A custom section: `.md` rendered safely, `.html` inserted as is.
fn custom(b: &mut Builder, id: &str, name: &str, path: &std::path::Path) -> Result<Body> {
    let text = std::fs::read_to_string(path).with_context(|| {
        format!(
            "cannot read the custom report section {name} from {}",
            path.display()
        )
    })?;
    let is_md = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("md"));
    if is_md {
        let (html, headings) = markdown::to_html(&text, Some(&mut b.ids));
        if !headings.iter().any(|h| h.level <= 2) {
            b.toc_entry(id, name, 2);
        }
        for h in headings.iter().filter(|h| h.level <= 3) {
            b.toc_entry(&h.id, &h.text, h.level.max(2));
        }
        Ok(Body::Html {
            kind: "markdown",
            html,
        })
    } else {
        b.toc_entry(id, name, 2);
        Ok(Body::Html {
            kind: "html",
            html: text,
        })
    }
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

fn header(run: &Run, epoch: i64) -> HeaderCtx {
    let exp = &run.exp;
    let p = &run.prepared;
    let (description_html, _) = markdown::to_html(&exp.description, None);
    let mut glance = vec![Glance {
        label: "Responses evaluated".into(),
        value: thousands(p.n() as u64),
        title: format!(
            "{} of the {} rows of the predictions file; {} excluded.",
            thousands(p.n() as u64),
            thousands(p.n_original as u64),
            thousands((p.n_original - p.n().min(p.n_original)) as u64)
        ),
    }];
    if let Some(sc2) = &p.sc2 {
        let n = sc2.iter().filter(|x| !x.is_nan()).count();
        glance.push(Glance {
            label: "Double-scored".into(),
            value: thousands(n as u64),
            title: "Responses with a second human score.".into(),
        });
    }
    let x_trim = p.x_trim().name;
    if let Some((_, block)) = run.analysis.eval.iter().find(|(n, _)| *n == x_trim) {
        for (label, metric, value) in [
            ("Weighted kappa", "wtkappa", block.wtkappa),
            ("Correlation", "corr", block.corr),
            ("SMD", "SMD", block.diff),
            ("RMSE", "RMSE", block.rmse),
        ] {
            glance.push(Glance {
                label: label.into(),
                value: num3(value),
                title: format!(
                    "{} Human scores vs {x_trim}.",
                    glossary::metric(metric).unwrap_or("")
                ),
            });
        }
    }
    if let Some(f) = run
        .analysis
        .frame("true_score_eval")
        .filter(|f| f.is_writable())
    {
        let labels = super::tables::index_labels(f);
        let prmse = super::tables::column_f64(f, "PRMSE true");
        if let Some(i) = labels.iter().position(|l| l == x_trim) {
            if prmse[i].is_finite() {
                glance.push(Glance {
                    label: "PRMSE".into(),
                    value: num3(prmse[i]),
                    title: format!(
                        "{} Score type {x_trim}.",
                        glossary::metric("PRMSE true").unwrap_or("")
                    ),
                });
            }
        }
    }
    HeaderCtx {
        experiment_id: exp.experiment_id.clone(),
        model_version: exp.model_version.clone(),
        description_html,
        generated: format::utc_datetime(epoch),
        version: env!("CARGO_PKG_VERSION").to_string(),
        thumbnails: exp.use_thumbnails,
        glance,
        inputs: run
            .inputs
            .iter()
            .map(|i| InputCtx {
                role: i.role.to_string(),
                path: i.path.display().to_string(),
                rows: thousands(i.rows as u64),
                sha256: i.sha256.clone(),
            })
            .collect(),
        config_json: crate::config::saved_config_json(exp),
        config_path: exp.config_path.display().to_string(),
    }
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
