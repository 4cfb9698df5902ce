//! Report stage: the kind-agnostic report model. A [`Report`] is everything
//! one HTML report shows (header, panels, sections of blocks, figures),
//! already computed and formatted by the report kind that assembles it.
//! The engine ([`super::templates`]) only places it.
//!
//! Plain data: no I/O, no arithmetic on results, and nothing here knows
//! which command made the report.

use serde::Serialize;

use super::context::{FigureCtx, Glance, Heading, InputCtx, Table, Term, TocEntry};
use crate::plots::Figure;

/// One complete report, ready to render.
pub struct Report {
    pub header: Header,
    /// Boxes between the header and the first section (a gates panel, for
    /// example), in order.
    pub panels: Vec<Panel>,
    /// The sections, in order.
    pub sections: Vec<Section>,
    /// The table of contents (see [`super::builder::Builder::finish`]).
    pub toc: Vec<TocEntry>,
    /// Every figure drawn, in document order (also written to `figure/`).
    pub figures: Vec<Figure>,
    /// The templates of this report kind, `(name, source)`, that
    /// [`Block::Template`] blocks name; the engine's own (`macros.html`,
    /// `report.html`, `footer.html`, `block.html`) are always loaded.
    pub templates: &'static [(&'static str, &'static str)],
    /// The prefix of every file name: `figure/<prefix>_<figure>.svg`,
    /// `report/<prefix>_report.html`, CSV downloads `<prefix>_<table>.csv`.
    pub file_prefix: String,
}

impl Report {
    /// The report with the experiment's own words in its header
    /// ([`Header::identified`]).
    pub fn identified(mut self, description: &str, model_version: Option<&str>) -> Report {
        self.header = self.header.identified(description, model_version);
        self
    }
}

/// The report header: what the report is about, key figures and
/// provenance.
#[derive(Clone, Debug, Serialize)]
pub struct Header {
    /// The kind of report, above the title and in the page title
    /// (`Evaluation report`).
    pub kind: String,
    /// The main heading (the experiment id, or `v2 vs v3`).
    pub title: String,
    /// Model versions shown under the title (`Model version` `v3`).
    pub versions: Vec<Version>,
    /// One sentence saying what the report does, as HTML: every value in
    /// it must already be escaped (see [`super::format::escape_html`]).
    pub intro_html: String,
    /// The user's description rendered from Markdown (raw HTML escaped).
    pub description_html: String,
    /// Generation time, formatted.
    pub generated: String,
    /// The rsmreport version.
    pub version: String,
    /// Figures are shown as thumbnails linking to their files.
    pub thumbnails: bool,
    /// The key figures ("at a glance" cards).
    pub glance: Vec<Glance>,
    /// Every input file read, with its checksum.
    pub inputs: Vec<InputCtx>,
    /// The configuration the run used, if it has one.
    pub config: Option<ConfigCtx>,
    /// The report's decision, shown first under the title (`None`: the
    /// kind decides nothing).
    pub decision: Option<Decision>,
}

/// What the report decides, in the header's first lines (before the
/// provenance and, on narrow screens, before the collapsed contents): a
/// coloured badge, one sentence, and the warnings a reader must see before
/// trusting it. The badge's word carries the meaning; the colour repeats
/// it.
#[derive(Clone, Debug, Serialize)]
pub struct Decision {
    /// The colour of the badge: `pass`, `fail`, `warn` or `info`.
    pub tone: Tone,
    /// The badge's word or words (`gates failed`, `regressed`).
    pub badge: String,
    /// One sentence saying what was decided and on what.
    pub sentence: String,
    /// Warnings shown with the decision (different ground truth, ...).
    pub warnings: Vec<String>,
    /// Labels of key figures (`Glance::label`) that fail a gate or
    /// regressed: their tiles are marked.
    pub marked: Vec<String>,
}

/// The colour of a [`Decision`]'s badge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tone {
    Pass,
    Fail,
    Warn,
    Info,
}

impl Decision {
    /// The terminal's last line: `overall: <badge>: <sentence>`.
    pub fn line(&self) -> String {
        format!("overall: {}: {}", self.badge, self.sentence)
    }

    /// A decision with no warnings and no marked tiles.
    pub fn new(tone: Tone, badge: impl Into<String>, sentence: impl Into<String>) -> Decision {
        Decision {
            tone,
            badge: badge.into(),
            sentence: sentence.into(),
            warnings: Vec::new(),
            marked: Vec::new(),
        }
    }

    /// The badge of candidates compared with a baseline, from how many
    /// overall statistics regressed and improved (`classify`, `spans`).
    pub fn comparison_badge(regressed: usize, improved: usize) -> (Tone, String) {
        match (regressed, improved) {
            (0, 0) => (Tone::Info, "no detectable change".to_string()),
            (0, _) => (Tone::Pass, "improved".to_string()),
            (_, 0) => (Tone::Fail, "regressed".to_string()),
            _ => (Tone::Warn, "mixed: some statistics worse".to_string()),
        }
    }

    /// Adds the quality gates' status (`failed` of `total` gate lines;
    /// nothing without gates): a failed gate turns the badge to fail and
    /// says so, in the badge's place when `alone` (the decision is the
    /// gates' only), else after it; the sentence ends with the count.
    pub fn with_gates(mut self, failed: usize, total: usize, alone: bool) -> Decision {
        if total == 0 {
            return self;
        }
        if alone {
            (self.tone, self.badge) = (Tone::Pass, "gates passed".into());
        }
        if failed > 0 {
            self.tone = Tone::Fail;
            self.badge = if alone {
                "gates failed".into()
            } else {
                format!("{}, gates failed", self.badge)
            };
            self.sentence.push_str(&format!(
                " {} of {} gate lines failed.",
                super::format::thousands(failed as u64),
                super::format::thousands(total as u64)
            ));
        } else {
            self.sentence.push_str(" Every gate passed.");
        }
        self
    }
}

impl Header {
    /// A header of report kind `kind` titled `title`, generated at `epoch`
    /// (seconds, UTC) by this version of rsmreport, with nothing else yet:
    /// each kind sets the rest with struct update syntax.
    pub fn new(kind: &str, title: String, epoch: i64) -> Header {
        Header {
            kind: kind.to_string(),
            title,
            versions: Vec::new(),
            intro_html: String::new(),
            description_html: String::new(),
            generated: super::format::utc_datetime(epoch),
            version: env!("CARGO_PKG_VERSION").to_string(),
            thumbnails: false,
            glance: Vec::new(),
            inputs: Vec::new(),
            config: None,
            decision: None,
        }
    }

    /// The experiment's own words on the first screen, as every kind
    /// shows them: its `model_version` under the title (`Model version`
    /// `v3`, after any version the kind named) and its `description`
    /// (Markdown, raw HTML escaped) at the top of the description box,
    /// before what the kind wrote there. Nothing for an empty description
    /// and no version.
    pub fn identified(mut self, description: &str, model_version: Option<&str>) -> Header {
        if let Some(v) = model_version {
            self.versions.push(Version {
                label: "Model version".into(),
                value: v.to_string(),
            });
        }
        let (html, _) = super::markdown::to_html(description, None);
        self.description_html.insert_str(0, &html);
        self
    }
}

/// A labelled model version.
#[derive(Clone, Debug, Serialize)]
pub struct Version {
    pub label: String,
    pub value: String,
}

/// The configuration file and its normalised form, in the provenance block.
#[derive(Clone, Debug, Serialize)]
pub struct ConfigCtx {
    pub path: String,
    pub json: String,
}

/// A box under the header, before the sections (`<section class="panel">`).
pub struct Panel {
    /// The element id (unique in the page; take it from the builder).
    pub id: String,
    /// Extra CSS classes.
    pub class: String,
    pub blocks: Vec<Block>,
}

/// One section of the report (`<section id=.. data-section=..>`).
pub struct Section {
    /// The element id (unique in the page).
    pub id: String,
    /// The section's name (`data-section`).
    pub name: String,
    /// Its CSS class: `builtin` for the command's own sections, `markdown`
    /// or `html` for custom sections.
    pub kind: String,
    pub blocks: Vec<Block>,
}

/// A piece of a section or panel. The fragments of one section are joined
/// by new lines.
pub enum Block {
    /// A fragment from one of the report kind's own templates
    /// ([`Report::templates`]), filled with its typed context.
    Template {
        template: &'static str,
        context: tera::Context,
    },
    /// HTML inserted as is: Markdown made safe by [`super::markdown`], or a
    /// custom `.html` section (inserted as is by design).
    Html(String),
    /// Everything below is escaped when rendered.
    Heading(Heading),
    /// A paragraph of plain text.
    Paragraph(String),
    /// A table with its caption (and CSV download when it names a file).
    Table(Table),
    /// A figure with its caption.
    Figure(FigureCtx),
    /// The legend of highlighted cells above a table.
    Legend(String),
    /// A short note in a note box.
    Note(String),
    /// A warning box.
    Warning(String),
    /// Key-figure cards.
    KeyFigures(Vec<Glance>),
    /// A collapsible glossary.
    Glossary { summary: String, terms: Vec<Term> },
}

/// The escaped blocks as the `block.html` template sees them (one field
/// set).
#[derive(Serialize, Default)]
pub(super) struct BlockCtx<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heading: Option<&'a Heading>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paragraph: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<&'a Table>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub figure: Option<&'a FigureCtx>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub legend: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub glance: Option<&'a [Glance]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub glossary: Option<GlossaryCtx<'a>>,
}

#[derive(Serialize)]
pub(super) struct GlossaryCtx<'a> {
    pub summary: &'a str,
    pub terms: &'a [Term],
}

impl Block {
    /// The block as `block.html` sees it; `None` for the two blocks that
    /// are HTML already ([`Block::Template`] renders through its own
    /// template).
    pub(super) fn ctx(&self) -> Option<BlockCtx<'_>> {
        let mut c = BlockCtx::default();
        match self {
            Block::Template { .. } | Block::Html(_) => return None,
            Block::Heading(h) => c.heading = Some(h),
            Block::Paragraph(t) => c.paragraph = Some(t),
            Block::Table(t) => c.table = Some(t),
            Block::Figure(f) => c.figure = Some(f),
            Block::Legend(t) => c.legend = Some(t),
            Block::Note(t) => c.note = Some(t),
            Block::Warning(t) => c.warning = Some(t),
            Block::KeyFigures(g) => c.glance = Some(g),
            Block::Glossary { summary, terms } => c.glossary = Some(GlossaryCtx { summary, terms }),
        }
        Some(c)
    }
}
