//! Tests of the engine on its own: a report made only of generic blocks
//! (what a new report kind uses), escaping of every block, panels, the
//! table of contents, and the dependency rule of the module.

use super::context::{Glance, InputCtx, Term};
use super::model::{Block, ConfigCtx, Header, Panel, Section, Version};
use super::tables::text_cell;
use super::{report_files, Builder};
use crate::plots::Figure;

const HOSTILE: &str = "<script>alert('x')</script>&";
const ESCAPED: &str = "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;";

fn header(config: bool) -> Header {
    Header {
        kind: "Comparison report".into(),
        title: format!("v2 vs {HOSTILE}"),
        versions: vec![
            Version {
                label: "Baseline".into(),
                value: "v2".into(),
            },
            Version {
                label: "Candidate".into(),
                value: HOSTILE.into(),
            },
        ],
        intro_html: "This report compares <strong>two</strong> versions.".into(),
        description_html: String::new(),
        generated: "1970-01-01 00:00:00 UTC".into(),
        version: "0.0.0".into(),
        thumbnails: false,
        decision: None,
        glance: vec![Glance {
            label: HOSTILE.into(),
            value: "0.700".into(),
            title: String::new(),
            ci: "95% CI [0.650, 0.750]".into(),
        }],
        inputs: vec![InputCtx {
            role: "baseline".into(),
            path: HOSTILE.into(),
            rows: "10".into(),
            sha256: "ab".into(),
        }],
        config: config.then(|| ConfigCtx {
            path: "compare.toml".into(),
            json: format!("{{\"x\": \"{HOSTILE}\"}}"),
        }),
    }
}

/// A report with one panel and one section using every generic block.
fn generic_report(config: bool) -> super::Report {
    let mut b = Builder::new("cmp", false);
    let ids = b.section_ids(["overview", "top"]);
    let panel_heading = b.heading(2, "Quality gates");
    let h = b.heading(2, HOSTILE);
    let sub = b.heading(3, "Details");
    let mut t = b.table("deltas", HOSTILE, true, true);
    t.columns.push(super::tables::head(HOSTILE, false));
    t.rows.push(super::context::Row {
        cells: vec![text_cell(HOSTILE)],
        class: String::new(),
    });
    let figure = b.figure(Figure {
        name: "trend".into(),
        title: HOSTILE.into(),
        description: "A trend.".into(),
        svg: "<svg width=\"100\" height=\"50\"><title>t</title></svg>".into(),
        narrow_svg: None,
    });
    let blocks = vec![
        Block::Heading(h),
        Block::Paragraph(HOSTILE.into()),
        Block::KeyFigures(vec![Glance {
            label: "QWK".into(),
            value: HOSTILE.into(),
            title: HOSTILE.into(),
            ci: HOSTILE.into(),
        }]),
        Block::Heading(sub),
        Block::Legend(HOSTILE.into()),
        Block::Table(t),
        Block::Figure(figure),
        Block::Note(HOSTILE.into()),
        Block::Warning(HOSTILE.into()),
        Block::Glossary {
            summary: "Terms".into(),
            terms: vec![Term {
                name: HOSTILE.into(),
                text: HOSTILE.into(),
            }],
        },
    ];
    let panel = Panel {
        id: "gates".into(),
        class: "gates".into(),
        blocks: vec![
            Block::Heading(panel_heading),
            Block::Note("2 failed".into()),
        ],
    };
    let sections = vec![
        Section {
            id: ids[0].clone(),
            name: "overview".into(),
            kind: "builtin".into(),
            blocks,
        },
        Section {
            id: ids[1].clone(),
            name: "top".into(),
            kind: "builtin".into(),
            blocks: vec![Block::Paragraph("second".into())],
        },
    ];
    b.finish(header(config), vec![panel], sections, &[])
}

fn page(config: bool) -> String {
    let files = report_files(&generic_report(config)).unwrap();
    let names: Vec<_> = files.iter().map(|f| f.path.clone()).collect();
    assert_eq!(
        names,
        [
            std::path::Path::new("figure/cmp_trend.svg"),
            std::path::Path::new("report/cmp_report.html")
        ]
    );
    String::from_utf8(files[1].bytes.clone()).unwrap()
}

#[test]
fn generic_blocks_render_and_escape_every_string() {
    let html = page(true);
    assert!(!html.contains("<script>alert"), "unescaped user text");
    // Title, version, key figure, input path, configuration, heading,
    // paragraph, table caption/head/cell, figure title, note, warning,
    // legend, glossary: every one escaped.
    assert!(
        html.matches(ESCAPED).count() >= 15,
        "{}",
        html.matches(ESCAPED).count()
    );
    assert!(html.contains("<title>Comparison report: v2 vs &lt;script&gt;"));
    assert!(html.contains("<p class=\"eyebrow\">Comparison report</p>"));
    assert!(html.contains("<p class=\"model-version\">Baseline <strong>v2</strong></p>"));
    assert!(
        html.contains("<p class=\"intro\">This report compares <strong>two</strong> versions.</p>")
    );
    assert!(html.contains(&format!("<p>{ESCAPED}</p>")));
    assert!(html.contains(&format!("<p class=\"note\">{ESCAPED}</p>")));
    assert!(
        html.contains("<div class=\"notes warning\" role=\"note\"><p><strong>Warning:</strong> ")
    );
    assert!(html.contains("data-csv=\"cmp_table-deltas.csv\""));
    assert!(html.contains("<figure class=\"figure\" id=\"figure-trend\">"));
    assert!(html.contains("<details class=\"glossary\">"));
    assert!(html.contains("<pre class=\"config\"><code>{&quot;x&quot;"));
}

#[test]
fn panels_come_between_the_header_and_the_sections() {
    let html = page(true);
    let header_end = html.find("</header>").unwrap();
    let panel = html
        .find("<section id=\"gates\" class=\"report-panel gates\">")
        .unwrap();
    let first = html.find("<section id=\"overview\"").unwrap();
    assert!(header_end < panel && panel < first);
    assert!(html[panel..first].contains("<p class=\"note\">2 failed</p>"));
}

#[test]
fn section_ids_are_reserved_and_the_toc_nests_headings() {
    let report = generic_report(true);
    // `top` is the page's own id: the section gets a fresh one.
    assert_eq!(report.sections[1].id, "top-2");
    let toc: Vec<(&str, usize)> = report
        .toc
        .iter()
        .map(|e| (e.id.as_str(), e.children.len()))
        .collect();
    assert_eq!(toc, [("quality-gates", 0), ("script-alert-x-script", 1)]);
}

#[test]
fn the_configuration_is_optional() {
    let html = page(false);
    assert!(!html.contains("Configuration file:"));
    assert!(html.contains("</table>\n</div>\n</details>"));
}
