//! Report stage: the Tera templates (embedded from `templates/` at compile
//! time) and the rendering of a finished [`Report`] into the page. Escaping
//! is on for every template and every variable; only fragments we produced
//! (section HTML from our own templates, SVG from `plots`, Markdown made
//! safe by `markdown`, the CSS and JS) are inserted with `| safe`, plus
//! custom `.html` sections, which are inserted as is by design. No I/O.

use anyhow::{Context as _, Result};

use super::context::{PageCtx, SectionHtml};
use super::format::escape_html;
use super::model::{Block, Report};

/// The engine's own templates, by the name the others use for them; each
/// report kind adds its own ([`Report::templates`]).
const TEMPLATES: [(&str, &str); 4] = [
    (
        "report.html",
        include_str!("../../templates/report.html.tera"),
    ),
    (
        "macros.html",
        include_str!("../../templates/macros.html.tera"),
    ),
    (
        "block.html",
        include_str!("../../templates/block.html.tera"),
    ),
    (
        "footer.html",
        include_str!("../../templates/footer.html.tera"),
    ),
];

/// The page's style sheet and script.
const CSS: &str = include_str!("../../templates/report.css");
const JS: &str = include_str!("../../templates/report.js");

/// The template engine with the engine's templates and `kind`'s loaded,
/// escaping everything.
pub fn engine(kind: &[(&str, &str)]) -> Result<tera::Tera> {
    let mut tera = tera::Tera::default();
    tera.add_raw_templates(TEMPLATES.iter().chain(kind).copied())
        .context("the report templates do not compile")?;
    // Every template name ends with "": escape all of them.
    tera.autoescape_on(vec![""]);
    tera.set_escape_fn(escape_html);
    tera.register_filter("breakable", breakable);
    tera.register_filter("glossary", glossary);
    Ok(tera)
}

/// The `glossary` filter: the definition of a column header (the tooltip
/// of the headers the templates write themselves), empty when the glossary
/// has none.
fn glossary(
    value: &tera::Value,
    _: &std::collections::HashMap<String, tera::Value>,
) -> tera::Result<tera::Value> {
    let name = text_of(value, "glossary")?;
    Ok(tera::Value::String(super::glossary::column(name)))
}

/// The text a filter is applied to, or an error naming the filter.
fn text_of<'a>(value: &'a tera::Value, filter: &str) -> tera::Result<&'a str> {
    value
        .as_str()
        .ok_or_else(|| tera::Error::msg(format!("{filter}: the value is not text")))
}

/// The `breakable` filter (for table headers and text cells, then marked
/// `safe`): the text escaped as every value is, with a line-break
/// opportunity (`<wbr>`) after each underscore that is followed by at
/// least three more letters of the name (`roc_<wbr>auc_<wbr>macro`, but
/// `text_a` whole) and after each `|` between two fields (sacreBLEU's
/// signatures, `nrefs:1|case:mixed|...`; not in `|SMD| = 0.03`), so that a wide table of snake_case names narrows its
/// columns before it needs a sideways scroll, and a long statistic name
/// wraps at its parts instead of anywhere; where the table fits, nothing
/// changes on screen.
fn breakable(
    value: &tera::Value,
    _: &std::collections::HashMap<String, tera::Value>,
) -> tera::Result<tera::Value> {
    let text = text_of(value, "breakable")?;
    let escaped = escape_html(text);
    let mut out = String::with_capacity(escaped.len());
    for (i, c) in escaped.char_indices() {
        out.push(c);
        if c == '|' {
            // between two fields (`case:mixed|tok:13a`), not at the edge of
            // `|SMD|`
            let before = escaped[..i].chars().next_back();
            let after = escaped[i + 1..].chars().next();
            if before.is_some_and(|b| !b.is_whitespace())
                && after.is_some_and(|a| !a.is_whitespace())
            {
                out.push_str("<wbr>");
            }
            continue;
        }
        if c != '_' {
            continue;
        }
        // '_' is one byte: the rest of the text starts right after it.
        let rest = &escaped[i + 1..];
        let next = rest
            .find(|c: char| c == '_' || c.is_whitespace())
            .unwrap_or(rest.len());
        if next >= 3 {
            out.push_str("<wbr>");
        }
    }
    Ok(tera::Value::String(out))
}

/// The theme variables of the figures (light defaults and dark values), as
/// CSS declarations for `:root`.
fn figure_variables(vars: &[(&str, &str)]) -> String {
    vars.iter()
        .map(|(name, value)| format!("{name}:{value};"))
        .collect()
}

/// The style sheet with the figure colours filled in.
pub fn css() -> String {
    CSS.replace(
        "/*FIGURE_LIGHT*/",
        &figure_variables(crate::plots::CSS_VARIABLES),
    )
    .replace(
        "/*FIGURE_DARK*/",
        &figure_variables(crate::plots::CSS_VARIABLES_DARK),
    )
}

/// Renders one block.
pub fn block(tera: &tera::Tera, block: &Block) -> Result<String> {
    match (block, block.ctx()) {
        (Block::Template { template, context }, _) => tera
            .render(template, context)
            .with_context(|| format!("cannot render the report template {template}")),
        (Block::Html(html), _) => Ok(html.clone()),
        (_, Some(ctx)) => {
            let ctx = tera::Context::from_serialize(&ctx)
                .context("cannot prepare a block of the report")?;
            tera.render("block.html", &ctx)
                .context("cannot render a block of the report")
        }
        (_, None) => unreachable!("every other block has a context"),
    }
}

/// Renders blocks, joined by new lines.
fn blocks(tera: &tera::Tera, blocks: &[Block]) -> Result<String> {
    let parts = blocks
        .iter()
        .map(|b| block(tera, b))
        .collect::<Result<Vec<_>>>()?;
    Ok(parts.join("\n"))
}

/// Renders the whole page.
pub fn page(report: &Report) -> Result<String> {
    let tera = engine(report.templates)?;
    let mut panels = Vec::with_capacity(report.panels.len());
    for p in &report.panels {
        panels.push(SectionHtml {
            id: p.id.clone(),
            name: p.id.clone(),
            kind: p.class.clone(),
            html: blocks(&tera, &p.blocks)?,
        });
    }
    let mut sections = Vec::with_capacity(report.sections.len());
    for s in &report.sections {
        sections.push(SectionHtml {
            id: s.id.clone(),
            name: s.name.clone(),
            kind: s.kind.clone(),
            html: blocks(&tera, &s.blocks)?,
        });
    }
    let page = PageCtx {
        title: format!("{}: {}", report.header.kind, report.header.title),
        header: report.header.clone(),
        toc: report.toc.clone(),
        panels,
        sections,
        css: css(),
        js: JS.to_string(),
    };
    let ctx = tera::Context::from_serialize(&page).context("cannot prepare the report page")?;
    tera.render("report.html", &ctx)
        .context("cannot render the report page")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_compile_and_escape_everything() {
        let mut tera = engine(&[]).unwrap();
        tera.add_raw_template("t.html.tera", "{{ x }}|{{ y | safe }}")
            .unwrap();
        let mut ctx = tera::Context::new();
        ctx.insert("x", "<b a='1'>&/</b>");
        ctx.insert("y", "<i>ok</i>");
        assert_eq!(
            tera.render("t.html.tera", &ctx).unwrap(),
            "&lt;b a=&#39;1&#39;&gt;&amp;/&lt;/b&gt;|<i>ok</i>"
        );
    }

    #[test]
    fn breakable_headers_are_escaped_and_break_after_underscores() {
        let mut tera = engine(&[]).unwrap();
        tera.add_raw_template("t.html.tera", "{{ x | breakable | safe }}")
            .unwrap();
        let mut ctx = tera::Context::new();
        ctx.insert("x", "<b>_roc_auc_macro & text_a n_abstained p_ Δ_κ_ΔΔΔ");
        assert_eq!(
            tera.render("t.html.tera", &ctx).unwrap(),
            "&lt;b&gt;_<wbr>roc_<wbr>auc_<wbr>macro &amp; text_a n_<wbr>abstained p_ Δ_κ_<wbr>ΔΔΔ"
        );
        ctx.insert("x", "nrefs:1|case:mixed|tok:13a |SMD| = 0.1 |");
        assert_eq!(
            tera.render("t.html.tera", &ctx).unwrap(),
            "nrefs:1|<wbr>case:mixed|<wbr>tok:13a |SMD| = 0.1 |"
        );
    }

    #[test]
    fn css_defines_every_figure_variable_for_both_themes() {
        let css = css();
        assert!(!css.contains("/*FIGURE_"));
        for (name, light) in crate::plots::CSS_VARIABLES {
            assert!(css.contains(&format!("{name}:{light};")), "{name}");
        }
        for (name, dark) in crate::plots::CSS_VARIABLES_DARK {
            assert!(css.contains(&format!("{name}:{dark};")), "{name}");
        }
        for bad in ["@import", "url(", "http://", "https://"] {
            assert!(!css.contains(bad), "{bad}");
            assert!(!JS.contains(bad), "{bad}");
        }
    }
}
