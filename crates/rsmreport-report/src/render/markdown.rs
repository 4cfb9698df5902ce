//! Report stage: Markdown (the experiment description and `.md` custom
//! sections) to HTML with pulldown-cmark, made safe for the report. Pure
//! string work; reads no files (the caller reads custom sections).
//!
//! Safety rules, so user text can never inject markup or make the page
//! fetch anything:
//! * raw HTML (block or inline) is shown as text, escaped;
//! * images are not embedded: their alt text is shown, followed by the
//!   address in brackets;
//! * links keep only `http:`, `https:`, `mailto:` or scheme-less (relative,
//!   `#fragment`) targets; any other link (e.g. `javascript:`) becomes plain
//!   text.

use pulldown_cmark::{html, CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use super::format::Ids;

/// A heading found in a Markdown text, with the id given to it.
#[derive(Clone, Debug, PartialEq)]
pub struct MdHeading {
    /// 1 to 6.
    pub level: u8,
    pub id: String,
    pub text: String,
}

/// Markdown to safe HTML. With `ids`, every heading gets a unique id and is
/// returned (for the table of contents); without, headings have no id.
pub fn to_html(src: &str, ids: Option<&mut Ids>) -> (String, Vec<MdHeading>) {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_SMART_PUNCTUATION;
    let mut events: Vec<Event> = Vec::new();
    let mut in_image = false;
    let mut image_url = String::new();
    let mut dropped_link = false;
    for event in Parser::new_ext(src, options) {
        match event {
            Event::Html(text) | Event::InlineHtml(text) => events.push(Event::Text(text)),
            Event::Start(Tag::HtmlBlock) => events.push(Event::Start(Tag::Paragraph)),
            Event::End(TagEnd::HtmlBlock) => events.push(Event::End(TagEnd::Paragraph)),
            Event::Start(Tag::Image { dest_url, .. }) => {
                in_image = true;
                image_url = dest_url.to_string();
            }
            Event::End(TagEnd::Image) => {
                in_image = false;
                if !image_url.is_empty() {
                    events.push(Event::Text(CowStr::from(format!(" [image: {image_url}]"))));
                }
            }
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                if in_image {
                    continue;
                }
                if safe_link(&dest_url) {
                    events.push(Event::Start(Tag::Link {
                        link_type,
                        dest_url,
                        title,
                        id,
                    }));
                } else {
                    dropped_link = true;
                }
            }
            Event::End(TagEnd::Link) => {
                if in_image {
                    continue;
                }
                if dropped_link {
                    dropped_link = false;
                } else {
                    events.push(Event::End(TagEnd::Link));
                }
            }
            other => events.push(other),
        }
    }

    let mut headings = Vec::new();
    if let Some(ids) = ids {
        let mut i = 0;
        while i < events.len() {
            if let Event::Start(Tag::Heading { level, .. }) = &events[i] {
                let level = *level;
                let mut text = String::new();
                let mut j = i + 1;
                while j < events.len() && !matches!(events[j], Event::End(TagEnd::Heading(_))) {
                    if let Event::Text(t) | Event::Code(t) = &events[j] {
                        text.push_str(t);
                    }
                    j += 1;
                }
                let text = text.trim().to_string();
                let id = ids.from_text(&text);
                events[i] = Event::Start(Tag::Heading {
                    level,
                    id: Some(CowStr::from(id.clone())),
                    classes: Vec::new(),
                    attrs: Vec::new(),
                });
                headings.push(MdHeading {
                    level: level_number(level),
                    id,
                    text,
                });
                i = j;
            }
            i += 1;
        }
    }
    let mut out = String::with_capacity(src.len() * 2);
    html::push_html(&mut out, events.into_iter());
    (out, headings)
}

fn level_number(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// Whether a link target may stay a link: `http:`, `https:`, `mailto:`, or
/// no scheme at all (relative paths, `#fragment`).
fn safe_link(url: &str) -> bool {
    let u: String = url
        .trim()
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .collect::<String>()
        .to_ascii_lowercase();
    match u.find(':') {
        None => true,
        Some(colon) => {
            let before = &u[..colon];
            if before.contains(['/', '?', '#']) {
                return true;
            }
            matches!(before, "http" | "https" | "mailto")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(s: &str) -> String {
        to_html(s, None).0
    }

    #[test]
    fn markdown_is_rendered() {
        assert_eq!(
            md("Some *emphasis* and `code`."),
            "<p>Some <em>emphasis</em> and <code>code</code>.</p>\n"
        );
        assert!(md("| a | b |\n|---|---|\n| 1 | 2 |\n").contains("<table>"));
    }

    #[test]
    fn raw_html_is_escaped() {
        let out = md("Hello <img src=x onerror=alert(1)> there");
        assert!(out.contains("&lt;img src=x onerror=alert(1)&gt;"), "{out}");
        assert!(!out.contains("<img"), "{out}");
        let out = md("<script>alert(1)</script>\n\ntext");
        assert!(!out.contains("<script"), "{out}");
        assert!(out.contains("&lt;script&gt;"), "{out}");
    }

    #[test]
    fn images_and_dangerous_links_are_neutralised() {
        let out = md("![chart](https://example.org/x.png)");
        assert!(!out.contains("<img"), "{out}");
        assert!(
            out.contains("chart [image: https://example.org/x.png]"),
            "{out}"
        );
        let out = md("[click](javascript:alert(1)) [ok](https://example.org) [rel](notes.html)");
        assert!(!out.contains("javascript"), "{out}");
        assert!(out.contains("click"), "{out}");
        assert!(
            out.contains("<a href=\"https://example.org\">ok</a>"),
            "{out}"
        );
        assert!(out.contains("<a href=\"notes.html\">rel</a>"), "{out}");
        assert!(!md("[x](JaVaScRiPt:alert(1))").contains("href"));
        assert!(!md("[x](java\tscript:alert(1))").contains("href"));
        assert!(!md("[x](data:text/html,hi)").contains("href"));
    }

    #[test]
    fn headings_get_unique_ids() {
        let mut ids = Ids::default();
        ids.reserve("notes");
        let (out, hs) = to_html(
            "## Notes\n\ntext\n\n### A `b` c\n\n## Notes\n",
            Some(&mut ids),
        );
        assert_eq!(
            hs,
            [
                MdHeading {
                    level: 2,
                    id: "notes-2".into(),
                    text: "Notes".into()
                },
                MdHeading {
                    level: 3,
                    id: "a-b-c".into(),
                    text: "A b c".into()
                },
                MdHeading {
                    level: 2,
                    id: "notes-3".into(),
                    text: "Notes".into()
                },
            ]
        );
        assert!(out.contains("<h2 id=\"notes-2\">Notes</h2>"), "{out}");
    }
}
