//! Plots stage: paired values, baseline against candidate, one square
//! panel per candidate (a dot per pair, or with many pairs a grid of cells
//! shaded by how many pairs fall in each), the diagonal `y = x` drawn, and
//! each panel's count of pairs above, on and below it. `sequence` draws
//! its sentence scores with it (segment by segment, the baseline system on
//! the x axis). Draws only the values it is given; touches nothing outside
//! `src/plots/`.

use anyhow::Result;
use plotters::style::text_anchor::{HPos, VPos};

use super::draw::{axes, dot, line, nice_domain, no_data, rect_alpha, render, text, Frame, Scale};
use super::draw::{x_grid, y_grid, AXIS, TICK, TITLE};
use super::text::{clean, fmt_count, truncate_px};
use super::theme::{finish, series, REF};
use super::Figure;

/// Pairs of values, one panel per candidate.
#[derive(Clone, Debug, PartialEq)]
pub struct Pairs {
    /// File stem of the figure.
    pub name: String,
    pub title: String,
    /// The SVG `<desc>` (what is shown, in words).
    pub description: String,
    /// The x axis title (the baseline's values).
    pub x_axis: String,
    /// The y axis title (each panel's candidate).
    pub y_axis: String,
    /// `(panel title, (x, y) pairs)`; pairs with a value that is not
    /// finite are left out.
    pub panels: Vec<(String, Vec<(f64, f64)>)>,
    /// What a point above the diagonal means (`candidate better`), and
    /// below it.
    pub above: String,
    pub below: String,
}

/// The side of a panel's square plot, in pixels.
const SIDE: i32 = 220;
/// Panels per row at full width (the narrow copy has one).
const PER_ROW: usize = 3;
/// Panels with more pairs than this get shaded cells instead of dots.
const MAX_DOTS: usize = 600;
const CELLS: usize = 40;

/// The figure (`name`), or a note when no pair can be drawn.
pub fn pairs(d: &Pairs) -> Result<Figure> {
    let finite = |&(x, y): &(f64, f64)| x.is_finite() && y.is_finite();
    let all = d
        .panels
        .iter()
        .flat_map(|(_, p)| p.iter())
        .filter(|p| finite(p));
    let (lo, hi) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &(x, y)| {
        (a.min(x).min(y), b.max(x).max(y))
    });
    if !lo.is_finite() {
        return no_data(&d.name, &d.title, &d.description, "No pairs to plot");
    }
    let (lo, hi, ticks, decimals) = nice_domain(lo, hi, 5);
    let draw = |per_row: usize| -> Result<String> {
        let (cell_w, cell_h) = (SIDE + 70, SIDE + 96);
        let rows = d.panels.len().div_ceil(per_row) as i32;
        let cols = per_row.min(d.panels.len()) as i32;
        render(
            (cols * cell_w + 16) as u32,
            (rows * cell_h + 8) as u32,
            |area| {
                for (i, (title, points)) in d.panels.iter().enumerate() {
                    let (r, c) = ((i / per_row) as i32, (i % per_row) as i32);
                    let frame = Frame {
                        left: c * cell_w + 58,
                        top: r * cell_h + 28,
                        right: c * cell_w + 58 + SIDE,
                        bottom: r * cell_h + 28 + SIDE,
                    };
                    let points: Vec<(f64, f64)> = points.iter().copied().filter(finite).collect();
                    panel(
                        area,
                        d,
                        &frame,
                        (title, &points),
                        (lo, hi, &ticks, decimals),
                    )?;
                }
                Ok(())
            },
        )
    };
    let mut figure = finish(&draw(PER_ROW)?, &d.name, &d.title, &d.description);
    let narrow = format!("{}-narrow", d.name);
    figure.narrow_svg = Some(finish(&draw(1)?, &narrow, &d.title, &d.description).svg);
    Ok(figure)
}

/// One panel: its title, grid, the diagonal, the points or cells, the
/// counts above and below the diagonal, and the axis titles.
fn panel(
    area: &super::draw::Area,
    d: &Pairs,
    frame: &Frame,
    (title, points): (&str, &[(f64, f64)]),
    (lo, hi, ticks, decimals): (f64, f64, &[f64], usize),
) -> Result<()> {
    let x = Scale::new((lo, hi), (frame.left, frame.right));
    let y = Scale::new((lo, hi), (frame.bottom, frame.top));
    let shown = truncate_px(&clean(title), super::draw::FS_TITLE, f64::from(SIDE + 40));
    let font = TITLE.anchor(HPos::Left, VPos::Bottom);
    text(area, &shown, (frame.left - 40, frame.top - 8), font)?;
    x_grid(area, frame, &x, ticks, decimals, true)?;
    y_grid(area, frame, &y, ticks, decimals, true)?;
    let diagonal = vec![(x.px(lo), y.px(lo)), (x.px(hi), y.px(hi))];
    line(area, diagonal, REF, 1)?;
    if points.len() <= MAX_DOTS {
        for &(px, py) in points {
            dot(area, (x.px(px), y.px(py)), 2, series(0))?;
        }
    } else {
        cells(area, frame, (&x, &y), points)?;
    }
    axes(area, frame)?;
    let above = points.iter().filter(|(a, b)| b > a).count();
    let below = points.iter().filter(|(a, b)| b < a).count();
    let same = points.len() - above - below;
    let tick = TICK.anchor(HPos::Left, VPos::Top);
    let note = |s: String, at: (i32, i32)| text(area, &s, at, tick);
    note(
        format!("{}: {}", d.above, fmt_count(above)),
        (frame.left + 6, frame.top + 4),
    )?;
    let font = TICK.anchor(HPos::Right, VPos::Bottom);
    let below_text = format!("{}: {}", d.below, fmt_count(below));
    text(
        area,
        &below_text,
        (frame.right - 6, frame.bottom - 18),
        font,
    )?;
    text(
        area,
        &format!("equal: {}", fmt_count(same)),
        (frame.right - 6, frame.bottom - 4),
        font,
    )?;
    let font = AXIS.anchor(HPos::Center, VPos::Top);
    let axis = truncate_px(
        &clean(&d.x_axis),
        super::draw::FS_AXIS,
        f64::from(SIDE + 40),
    );
    text(area, &axis, (frame.center_x(), frame.bottom + 26), font)?;
    let font = AXIS.anchor(HPos::Center, VPos::Center).rotated();
    let axis = truncate_px(&clean(&d.y_axis), super::draw::FS_AXIS, f64::from(SIDE));
    text(area, &axis, (frame.left - 36, frame.center_y()), font)
}

/// Many pairs: a [`CELLS`] x [`CELLS`] grid, each cell shaded by the
/// square root of its share of the fullest cell (a few pairs stay visible).
fn cells(
    area: &super::draw::Area,
    frame: &Frame,
    (x, y): (&Scale, &Scale),
    points: &[(f64, f64)],
) -> Result<()> {
    let mut counts = vec![0usize; CELLS * CELLS];
    let (w, h) = (frame.width().max(1), (frame.bottom - frame.top).max(1));
    let bin = |p: i32, from: i32, size: i32| {
        let t = f64::from(p - from) / f64::from(size);
        ((t * CELLS as f64) as usize).min(CELLS - 1)
    };
    for &(a, b) in points {
        let (cx, cy) = (
            bin(x.px(a), frame.left, w),
            bin(frame.bottom - y.px(b), 0, h),
        );
        counts[cy * CELLS + cx] += 1;
    }
    let most = counts.iter().copied().max().unwrap_or(1).max(1) as f64;
    for (k, &n) in counts.iter().enumerate().filter(|(_, &n)| n > 0) {
        let (cx, cy) = ((k % CELLS) as i32, (k / CELLS) as i32);
        let x0 = frame.left + w * cx / CELLS as i32;
        let x1 = frame.left + w * (cx + 1) / CELLS as i32;
        let y0 = frame.bottom - h * (cy + 1) / CELLS as i32;
        let y1 = frame.bottom - h * cy / CELLS as i32;
        let opacity = 0.15 + 0.85 * (n as f64 / most).sqrt();
        rect_alpha(area, (x0, y0), (x1, y1), series(0), opacity)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(n: usize) -> Pairs {
        // y = x, then above (y = x + 1), then below, cycling
        let points = (0..n)
            .map(|i| {
                let x = (i % 50) as f64;
                (x, x + [0.0, 1.0, -1.0][i % 3])
            })
            .chain([(f64::NAN, 1.0), (2.0, f64::INFINITY)])
            .collect();
        Pairs {
            name: "pairs".into(),
            title: "Sentence BLEU".into(),
            description: "Dots.".into(),
            x_axis: "<b>v1</b> (baseline)".into(),
            y_axis: "candidate".into(),
            panels: vec![("v2 & co".into(), points)],
            above: "candidate higher (better)".into(),
            below: "lower (worse)".into(),
        }
    }

    #[test]
    fn pairs_count_each_side_escape_labels_and_switch_to_cells() {
        let f = pairs(&sample(30)).unwrap();
        assert_eq!(f, pairs(&sample(30)).unwrap());
        // 30 finite pairs drawn (the two with a non-finite value left out)
        assert_eq!(f.svg.matches("<circle").count(), 30);
        assert!(f.svg.contains("candidate higher (better): 10"), "{}", f.svg);
        assert!(f.svg.contains("lower (worse): 10") && f.svg.contains("equal: 10"));
        assert!(f.svg.contains("&lt;b&gt;v1") && !f.svg.contains("<b>v1"));
        assert!(f.svg.contains("v2 &amp; co"));
        let many = pairs(&sample(MAX_DOTS + 3)).unwrap();
        assert_eq!(many.svg.matches("<circle").count(), 0);
        assert!(many.svg.contains("equal: 201"), "{}", many.svg);
        assert!(many.narrow_svg.is_some());
        let none = Pairs {
            panels: vec![("v2".into(), vec![(f64::NAN, 0.0)])],
            ..sample(0)
        };
        assert!(pairs(&none).unwrap().svg.contains("No pairs to plot"));
    }
}
