//! Plots stage, comparison report: the forest plot of a subgroup's paired
//! differences (compare spec 2.5, part 6): one panel per statistic, one
//! line per level, the difference candidate - baseline as a dot with its
//! interval as a horizontal bar, a dashed line at 0. Draws only the values
//! it is given; touches nothing outside `src/plots/`.

use anyhow::Result;
use plotters::style::text_anchor::{HPos, VPos};

use super::draw::{
    axes, error_bar, line, nice_domain, no_data, render, text, Area, Font, Frame, Scale, FS_TICK,
    FS_TITLE, TICK, TITLE,
};
use super::text::{clean, fmt_tick, text_width, truncate_px};
use super::theme::{finish, series, MUTED, REF};
use super::Figure;

/// One statistic's panel: the difference and its interval per level
/// (NaN: none).
#[derive(Clone, Debug, PartialEq)]
pub struct ForestPanel {
    pub statistic: String,
    /// `(delta, lower, upper)` per level, in the order of [`Forest::levels`].
    pub points: Vec<(f64, f64, f64)>,
}

/// The forest plot of one subgroup.
#[derive(Clone, Debug, PartialEq)]
pub struct Forest {
    pub group: String,
    /// Level labels, top to bottom.
    pub levels: Vec<String>,
    /// Per level, a mark shown after its label (`baseline only`), or "".
    pub marks: Vec<String>,
    pub panels: Vec<ForestPanel>,
}

const ROW_H: i32 = 22;
/// The row height when a label takes two lines, and their distance.
const ROW_H2: i32 = 32;
const LINE_H: i32 = 13;
const PANEL_W: i32 = 150;
/// Room between panels for the edge tick labels of both.
const GAP: i32 = 40;
const LABEL_MAX: f64 = 200.0;

/// The forest plot (`compare_forest_<group>`).
pub fn forest(d: &Forest) -> Result<Figure> {
    let group = clean(&d.group);
    let name = format!("compare_forest_{}", d.group);
    let title = format!("Differences by {group}");
    let stats: Vec<String> = d.panels.iter().map(|p| clean(&p.statistic)).collect();
    let description = format!(
        "Forest plot: for each of {} levels of {group}, the difference candidate minus baseline \
         of {} on the paired responses, as a dot with its interval as a horizontal bar; the \
         dashed line marks no difference. Levels marked as on one side only have no paired \
         difference.",
        d.levels.len(),
        if stats.is_empty() {
            "no statistic".to_string()
        } else {
            stats.join(", ")
        }
    );
    let n = d.levels.len();
    if n == 0 || d.panels.is_empty() {
        return no_data(&name, &title, &description, "No level to plot");
    }
    // A label wider than LABEL_MAX wraps (the level, then its mark) instead
    // of being cut where the difference may be; each line is cut only
    // beyond LABEL_MAX.
    let labels: Vec<Vec<String>> = (0..n)
        .map(|i| {
            let mark = d.marks.get(i).map_or("", String::as_str);
            let l = clean(&d.levels[i]);
            let one = match mark.is_empty() {
                true => l.clone(),
                false => format!("{l} ({mark})"),
            };
            let lines = if text_width(&one, FS_TICK) <= LABEL_MAX {
                vec![one]
            } else if mark.is_empty() {
                super::text::wrap(&l, 34, 2)
            } else {
                vec![l, format!("({mark})")]
            };
            lines
                .iter()
                .map(|x| truncate_px(x, FS_TICK, LABEL_MAX))
                .collect()
        })
        .collect();
    let label_w = labels
        .iter()
        .flatten()
        .map(|l| text_width(l, FS_TICK))
        .fold(0.0, f64::max)
        .ceil() as i32;
    let left0 = 12 + label_w + 10;
    let raw = draw(d, &labels, &stats, left0, false)?;
    let mut figure = finish(&raw, &name, &title, &description);
    if d.panels.len() > 1 {
        let raw = draw(d, &labels, &stats, left0, true)?;
        figure.narrow_svg = Some(finish(&raw, &format!("{name}-narrow"), &title, &description).svg);
    }
    Ok(figure)
}

/// The panels side by side, the level labels once on the left; or
/// `stacked` in one column, each with the labels on its left.
fn draw(
    d: &Forest,
    labels: &[Vec<String>],
    stats: &[String],
    left0: i32,
    stacked: bool,
) -> Result<String> {
    let n = labels.len();
    // Two-line labels get taller rows.
    let row_h = match labels.iter().any(|l| l.len() > 1) {
        true => ROW_H2,
        false => ROW_H,
    };
    let band = 36 + row_h * n as i32 + 34;
    let (cols, rows) = if stacked {
        (1, d.panels.len())
    } else {
        (d.panels.len(), 1)
    };
    let width = left0 + cols as i32 * (PANEL_W + GAP) + 8;
    let height = rows as i32 * band;
    render(width as u32, height as u32, |area| {
        for r in 0..rows {
            let top = r as i32 * band + 36;
            for (i, lines) in labels.iter().enumerate() {
                let font = TICK.anchor(HPos::Right, VPos::Center);
                let first = row_y(top, i, row_h) - LINE_H * (lines.len() as i32 - 1) / 2;
                for (k, l) in lines.iter().enumerate() {
                    let y = first + LINE_H * k as i32;
                    text(area, l, (left0 - 10, y), font)?;
                }
            }
            for c in 0..cols {
                let k = r * cols + c;
                let left = left0 + c as i32 * (PANEL_W + GAP);
                let frame = Frame {
                    left,
                    top,
                    right: left + PANEL_W,
                    bottom: top + row_h * n as i32,
                };
                panel(area, &frame, &stats[k], &d.panels[k])?;
            }
        }
        Ok(())
    })
}

/// The vertical centre of row `i`.
fn row_y(top: i32, i: usize, row_h: i32) -> i32 {
    top + row_h * i as i32 + row_h / 2
}

/// One statistic's panel.
fn panel(area: &Area, frame: &Frame, title: &str, p: &ForestPanel) -> Result<()> {
    let values = p.points.iter().flat_map(|&(d, l, h)| [d, l, h]);
    let (lo, hi) = super::draw::extent(values.chain([0.0])).unwrap_or((-1.0, 1.0));
    let pad = 0.05 * (hi - lo);
    let (lo, hi, ticks, decimals) = nice_domain(lo - pad, hi + pad, 3);
    let x = Scale::new((lo, hi), (frame.left, frame.right));
    for &t in ticks.iter().filter(|t| x.contains(**t)) {
        let font = TICK.anchor(HPos::Center, VPos::Top);
        text(
            area,
            &fmt_tick(t, decimals),
            (x.px(t), frame.bottom + 6),
            font,
        )?;
    }
    let zero = x.px(0.0);
    line(area, vec![(zero, frame.top), (zero, frame.bottom)], REF, 1)?;
    let row_h = (frame.bottom - frame.top) / p.points.len().max(1) as i32;
    for (i, &(d, l, h)) in p.points.iter().enumerate() {
        let y = row_y(frame.top, i, row_h);
        if l.is_finite() && h.is_finite() {
            error_bar(area, (x.px(l), y), (x.px(h), y), 4, series(0))?;
        }
        if d.is_finite() {
            super::draw::dot(area, (x.px(d), y), 4, series(0))?;
        } else {
            let font = Font::new(9.0, MUTED).anchor(HPos::Center, VPos::Center);
            text(area, "n/a", (frame.center_x(), y), font)?;
        }
    }
    axes(area, frame)?;
    let title = truncate_px(&format!("Δ {title}"), FS_TITLE, f64::from(PANEL_W + GAP));
    let font = TITLE.anchor(HPos::Center, VPos::Bottom);
    text(area, &title, (frame.center_x(), frame.top - 10), font)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Forest {
        Forest {
            group: "L1 <b>".into(),
            levels: vec!["a".into(), "b & c".into(), "d".into()],
            marks: vec![String::new(), String::new(), "baseline only".into()],
            panels: vec![
                ForestPanel {
                    statistic: "wtkappa".into(),
                    points: vec![
                        (0.02, -0.01, 0.05),
                        (-0.03, -0.06, 0.0),
                        (f64::NAN, f64::NAN, f64::NAN),
                    ],
                },
                ForestPanel {
                    statistic: "DSM".into(),
                    points: vec![(0.0, 0.0, 0.0); 3],
                },
            ],
        }
    }

    #[test]
    fn forest_is_deterministic_escaped_and_accessible() {
        let f = forest(&sample()).unwrap();
        assert_eq!(f, forest(&sample()).unwrap());
        assert_eq!(f.name, "compare_forest_L1 <b>");
        assert!(f.svg.contains("role=\"img\""));
        assert!(!f.svg.contains("<b>"), "labels are escaped");
        assert!(f.svg.contains("b &amp; c"));
        assert!(f.svg.contains("d (baseline only)"));
        assert!(f.svg.contains("Δ wtkappa"));
    }

    #[test]
    fn forest_without_levels_says_so() {
        let f = forest(&Forest {
            levels: Vec::new(),
            marks: Vec::new(),
            ..sample()
        })
        .unwrap();
        assert!(f.svg.contains("No level to plot"));
    }
}
