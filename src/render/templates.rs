//! Report stage: the Tera templates (embedded from `templates/` at compile
//! time) and the rendering of a finished [`Model`] into the page. Escaping
//! is on for every template and every variable; only fragments we produced
//! (section HTML from our own templates, SVG from `plots`, Markdown made
//! safe by `markdown`, the CSS and JS) are inserted with `| safe`, plus
//! custom `.html` sections, which are inserted as is by design. No I/O.

use anyhow::{Context as _, Result};

use super::build::{Body, Model};
use super::context::{PageCtx, SectionHtml};
use super::format::escape_html;

/// Every template, by the name the others use for it.
const TEMPLATES: [(&str, &str); 12] = [
    (
        "report.html",
        include_str!("../../templates/report.html.tera"),
    ),
    (
        "macros.html",
        include_str!("../../templates/macros.html.tera"),
    ),
    (
        "sections/data_description.html",
        include_str!("../../templates/sections/data_description.html.tera"),
    ),
    (
        "sections/data_description_by_group.html",
        include_str!("../../templates/sections/data_description_by_group.html.tera"),
    ),
    (
        "sections/consistency.html",
        include_str!("../../templates/sections/consistency.html.tera"),
    ),
    (
        "sections/evaluation.html",
        include_str!("../../templates/sections/evaluation.html.tera"),
    ),
    (
        "sections/true_score_evaluation.html",
        include_str!("../../templates/sections/true_score_evaluation.html.tera"),
    ),
    (
        "sections/evaluation_by_group.html",
        include_str!("../../templates/sections/evaluation_by_group.html.tera"),
    ),
    (
        "sections/fairness_analyses.html",
        include_str!("../../templates/sections/fairness_analyses.html.tera"),
    ),
    (
        "sections/intermediate_file_paths.html",
        include_str!("../../templates/sections/intermediate_file_paths.html.tera"),
    ),
    (
        "sections/sysinfo.html",
        include_str!("../../templates/sections/sysinfo.html.tera"),
    ),
    (
        "footer.html",
        include_str!("../../templates/footer.html.tera"),
    ),
];

/// The page's style sheet and script.
const CSS: &str = include_str!("../../templates/report.css");
const JS: &str = include_str!("../../templates/report.js");

/// The template engine with every template loaded, escaping everything.
pub fn engine() -> Result<tera::Tera> {
    let mut tera = tera::Tera::default();
    tera.add_raw_templates(TEMPLATES)
        .context("the report templates do not compile")?;
    // Every template name ends with "": escape all of them.
    tera.autoescape_on(vec![""]);
    tera.set_escape_fn(escape_html);
    Ok(tera)
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

/// Renders one section's fragment.
pub fn section(tera: &tera::Tera, body: &Body) -> Result<String> {
    match body {
        Body::Template { template, context } => tera
            .render(template, context)
            .with_context(|| format!("cannot render the report template {template}")),
        Body::Html { html, .. } => Ok(html.clone()),
    }
}

/// Renders the whole page.
pub fn page(model: &Model) -> Result<String> {
    let tera = engine()?;
    let mut sections = Vec::with_capacity(model.sections.len());
    for s in &model.sections {
        sections.push(SectionHtml {
            id: s.id.clone(),
            name: s.name.clone(),
            kind: match &s.body {
                Body::Template { .. } => "builtin".to_string(),
                Body::Html { kind, .. } => kind.to_string(),
            },
            html: section(&tera, &s.body)?,
        });
    }
    let page = PageCtx {
        title: format!("Evaluation report: {}", model.header.experiment_id),
        header: model.header.clone(),
        toc: model.toc.clone(),
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
        let mut tera = engine().unwrap();
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
