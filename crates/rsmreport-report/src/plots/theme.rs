//! Plots stage: colours and the SVG post-processing that turns plotters'
//! output into themeable, accessible markup (CSS variables, `<title>`,
//! `<desc>`, `role="img"`). Pure string work; touches nothing outside
//! `src/plots/`.
//!
//! Figures are drawn with *sentinel* colours: each CSS variable's light
//! default is a unique RGB value. After drawing, every `fill="#RRGGBB"` /
//! `stroke="#RRGGBB"` naming a sentinel becomes
//! `fill="var(--name, #RRGGBB)"`, so a page can restyle the figures (dark
//! mode) while a standalone SVG file keeps the light colours.

use plotters::style::RGBColor;

use super::text::escape_xml;
use super::Figure;

/// The CSS custom properties used by the figures, with their light-theme
/// defaults (which are also the fallbacks written into the SVG). A page
/// embedding the figures may define any of them, e.g. for a dark theme.
///
/// * `--bg`: figure background;
/// * `--fg`: titles, axis titles, axis lines, error bars, "no data" text;
/// * `--muted`: tick labels, legend and category labels, "n/a" marks;
/// * `--grid`: grid lines;
/// * `--ref`: dashed reference lines (drawn with `stroke-dasharray`);
/// * `--series-1` ... `--series-8`: data series (Okabe-Ito palette, which
///   stays distinguishable for the common forms of colour blindness).
pub const CSS_VARIABLES: &[(&str, &str)] = &[
    ("--bg", "#FFFFFF"),
    ("--fg", "#222222"),
    ("--muted", "#4D4D4D"),
    ("--grid", "#E2E2E2"),
    ("--ref", "#555555"),
    ("--series-1", "#0072B2"),
    ("--series-2", "#E69F00"),
    ("--series-3", "#009E73"),
    ("--series-4", "#CC79A7"),
    ("--series-5", "#56B4E9"),
    ("--series-6", "#D55E00"),
    ("--series-7", "#F0E442"),
    ("--series-8", "#000000"),
];

/// Suggested dark-theme values for [`CSS_VARIABLES`] (same names, same
/// order): the Okabe-Ito hues lightened where needed for contrast on a dark
/// background, and `--series-8` turned light grey.
pub const CSS_VARIABLES_DARK: &[(&str, &str)] = &[
    ("--bg", "#1B1D21"),
    ("--fg", "#E6E6E6"),
    ("--muted", "#B8B8B8"),
    ("--grid", "#3A3D43"),
    ("--ref", "#A8A8A8"),
    ("--series-1", "#3DA5E0"),
    ("--series-2", "#F0B43C"),
    ("--series-3", "#2EC497"),
    ("--series-4", "#E39BC6"),
    ("--series-5", "#8CCFF5"),
    ("--series-6", "#F07A3A"),
    ("--series-7", "#F5EC7A"),
    ("--series-8", "#D0D0D0"),
];

pub(crate) const BG: RGBColor = RGBColor(0xFF, 0xFF, 0xFF);
pub(crate) const FG: RGBColor = RGBColor(0x22, 0x22, 0x22);
pub(crate) const MUTED: RGBColor = RGBColor(0x4D, 0x4D, 0x4D);
pub(crate) const GRID: RGBColor = RGBColor(0xE2, 0xE2, 0xE2);
pub(crate) const REF: RGBColor = RGBColor(0x55, 0x55, 0x55);
pub(crate) const SERIES: [RGBColor; 8] = [
    RGBColor(0x00, 0x72, 0xB2),
    RGBColor(0xE6, 0x9F, 0x00),
    RGBColor(0x00, 0x9E, 0x73),
    RGBColor(0xCC, 0x79, 0xA7),
    RGBColor(0x56, 0xB4, 0xE9),
    RGBColor(0xD5, 0x5E, 0x00),
    RGBColor(0xF0, 0xE4, 0x42),
    RGBColor(0x00, 0x00, 0x00),
];

/// Series colour `i` (cycling through the palette).
pub(crate) fn series(i: usize) -> RGBColor {
    SERIES[i % SERIES.len()]
}

/// The text colour for a label drawn on a cell filled with `fill`: near
/// black or near white, whichever contrasts more with the cell (black when
/// the WCAG relative luminance is above 0.179). Neither is a sentinel
/// colour, so the text keeps its contrast in the dark theme too, where the
/// themed `--fg` would turn light on a light cell.
pub(crate) fn ink_on(fill: RGBColor) -> RGBColor {
    let lin = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let l = 0.2126 * lin(fill.0) + 0.7152 * lin(fill.1) + 0.0722 * lin(fill.2);
    if l > 0.179 {
        RGBColor(0x11, 0x11, 0x11)
    } else {
        RGBColor(0xFE, 0xFE, 0xFE)
    }
}

/// A heat-map cell that follows the page's theme: the first series colour
/// (value >= 0) or the sixth (value < 0), both themed, at opacity
/// `|v| * strength` (at most `strength`) over the figure's themed
/// background, so that 0 is the background in light and dark mode alike;
/// the ink of its text is the themed `--fg`, or near white where the light
/// theme's cell is dark (the dark theme's cell is dark there too).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct HeatCell {
    pub fill: RGBColor,
    pub opacity: f64,
    pub ink: RGBColor,
}

pub(crate) fn heat_cell(v: f64, strength: f64) -> HeatCell {
    let fill = if v >= 0.0 { SERIES[0] } else { SERIES[5] };
    let opacity = (v.abs().min(1.0) * strength).clamp(0.0, 1.0);
    let mix = |c: u8| (255.0 + opacity * (f64::from(c) - 255.0)).round() as u8;
    let light = RGBColor(mix(fill.0), mix(fill.1), mix(fill.2));
    let ink = match ink_on(light) {
        RGBColor(0x11, 0x11, 0x11) => FG,
        white => white,
    };
    HeatCell { fill, opacity, ink }
}

/// Dash pattern of the `--ref` lines.
const REF_DASH: &str = "5 4";

/// Builds the final [`Figure`] from plotters' raw SVG: themeable colours,
/// rounded font sizes, one `font-family` on the root, accessibility
/// attributes and the `<title>`/`<desc>` elements.
pub(crate) fn finish(raw: &str, name: &str, title: &str, description: &str) -> Figure {
    // Attributes equal to the SVG defaults are dropped to keep files small.
    let mut svg = raw.replace(" opacity=\"1\"", "");
    svg = svg.replace(" stroke=\"none\"", "");
    svg = svg.replace(" stroke-width=\"1\"", "");
    svg = svg.replace(" font-family=\"sans-serif\"", "");
    svg = round_font_sizes(&svg);
    for (var, hex) in CSS_VARIABLES {
        let dash = if *var == "--ref" {
            format!(" stroke-dasharray=\"{REF_DASH}\"")
        } else {
            String::new()
        };
        for attr in ["fill", "stroke"] {
            let from = format!("{attr}=\"{hex}\"");
            let extra = if attr == "stroke" { dash.as_str() } else { "" };
            let to = format!("{attr}=\"var({var}, {hex})\"{extra}");
            svg = svg.replace(&from, &to);
        }
    }
    let id = figure_id(name);
    let title_id = format!("{id}-title");
    let desc_id = format!("{id}-desc");
    let head = format!(
        " role=\"img\" aria-labelledby=\"{title_id} {desc_id}\" font-family=\"sans-serif\">\n\
         <title id=\"{title_id}\">{}</title>\n<desc id=\"{desc_id}\">{}</desc>\n",
        escape_xml(title),
        escape_xml(description)
    );
    // plotters always starts with `<svg ...>\n`; the first `>` closes it.
    if let Some(end) = svg.find('>') {
        let rest = svg[end + 1..].trim_start_matches('\n').to_string();
        svg.truncate(end);
        svg.push_str(&head);
        svg.push_str(&rest);
    }
    Figure {
        name: name.to_string(),
        title: title.to_string(),
        description: description.to_string(),
        svg,
        narrow_svg: None,
    }
}

/// An id prefix that is unique per figure name: the name restricted to
/// `[A-Za-z0-9_-]`, plus a short FNV-1a hash of the original name when
/// characters had to be replaced (so `a b` and `a_b` differ).
pub(crate) fn figure_id(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean == name {
        format!("fig-{clean}")
    } else {
        format!("fig-{clean}-{:08x}", fnv1a(name.as_bytes()))
    }
}

fn fnv1a(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in bytes {
        h ^= u32::from(*b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// plotters writes `font-size="<size / 1.24>"` with full float precision;
/// round to one decimal (`12`, `10.5`).
fn round_font_sizes(svg: &str) -> String {
    const KEY: &str = "font-size=\"";
    let mut out = String::with_capacity(svg.len());
    let mut rest = svg;
    while let Some(pos) = rest.find(KEY) {
        let start = pos + KEY.len();
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        let Some(end) = tail.find('"') else {
            rest = tail;
            break;
        };
        let value = &tail[..end];
        match value.parse::<f64>() {
            Ok(v) if v.is_finite() => {
                let r = (v * 10.0).round() / 10.0;
                out.push_str(&format!("{r}"));
            }
            _ => out.push_str(value),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn ink_on_is_dark_on_light_cells_and_light_on_dark_ones() {
        use super::{ink_on, CSS_VARIABLES};
        use plotters::style::RGBColor;
        let dark = RGBColor(0x11, 0x11, 0x11);
        let light = RGBColor(0xFE, 0xFE, 0xFE);
        assert_eq!(ink_on(RGBColor(0xFF, 0xFF, 0xFF)), dark);
        assert_eq!(ink_on(RGBColor(0xCC, 0xE3, 0xF0)), dark);
        assert_eq!(ink_on(RGBColor(0x00, 0x72, 0xB2)), light);
        assert_eq!(ink_on(RGBColor(0x80, 0x30, 0x00)), light);
        // A medium blue of a kappa near 0.7: dark text contrasts more.
        assert_eq!(ink_on(RGBColor(0x4C, 0xA0, 0xD0)), dark);
        // Neither ink is a themed sentinel colour.
        for ink in [dark, light] {
            let hex = format!("#{:02X}{:02X}{:02X}", ink.0, ink.1, ink.2);
            assert!(CSS_VARIABLES.iter().all(|(_, c)| *c != hex), "{hex}");
        }
    }

    use super::*;

    fn hex(c: RGBColor) -> String {
        format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
    }

    #[test]
    fn sentinels_match_the_documented_variables() {
        let mut consts = vec![hex(BG), hex(FG), hex(MUTED), hex(GRID), hex(REF)];
        consts.extend(SERIES.iter().map(|c| hex(*c)));
        let documented: Vec<String> = CSS_VARIABLES.iter().map(|(_, h)| h.to_string()).collect();
        assert_eq!(consts, documented);
        let mut unique = documented.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), documented.len(), "sentinels must be unique");
        let names: Vec<&str> = CSS_VARIABLES.iter().map(|(n, _)| *n).collect();
        let dark: Vec<&str> = CSS_VARIABLES_DARK.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, dark);
    }

    #[test]
    fn ids_are_sanitised_and_distinct() {
        assert_eq!(figure_id("eval_by_L1"), "fig-eval_by_L1");
        let a = figure_id("eval_by_a b");
        let b = figure_id("eval_by_a_b");
        assert_ne!(a, b);
        assert!(a
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
    }

    #[test]
    fn font_sizes_are_rounded() {
        assert_eq!(
            round_font_sizes("<text font-size=\"11.999999999\">a</text>"),
            "<text font-size=\"12\">a</text>"
        );
        assert_eq!(
            round_font_sizes("font-size=\"10.5400001\" x"),
            "font-size=\"10.5\" x"
        );
    }
}
