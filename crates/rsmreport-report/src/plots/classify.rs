//! Plots stage, classification report (`spec/classify.md` 5): a shaded
//! grid (the normalised confusion matrix, per-level macro F1 by
//! subgroup), precision-recall and ROC curves with the chance line, and
//! the reliability diagram with the bins' counts. Draws only the numbers
//! it is given; touches nothing outside `src/plots/`.

use anyhow::Result;
use plotters::style::text_anchor::{HPos, VPos};
use plotters::style::RGBColor;

use super::draw::{
    axes, dot, line, no_data, rect, rect_alpha, render, text, x_grid, y_grid, Area, Frame, Scale,
    AXIS, FS_TICK, TICK, TITLE,
};
use super::text::{clean, text_width, truncate_px};
use super::theme::{finish, heat_cell, series, BG, GRID, MUTED, REF};
use super::Figure;

/// A shaded grid: rows x columns of values in [0, 1].
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    /// File stem (letters, digits, `_`, `-`).
    pub name: String,
    pub title: String,
    pub description: String,
    pub rows: Vec<String>,
    pub columns: Vec<String>,
    /// `rows x columns`, row-major, in [0, 1] (NaN: no value).
    pub values: Vec<f64>,
    /// The text of each cell (empty: none).
    pub labels: Vec<String>,
    /// What the rows and the columns are (`gold`, `predicted`).
    pub row_axis: String,
    pub column_axis: String,
}

const CELL: i32 = 52;
/// At most this many rows or columns are drawn.
const MAX_CELLS: usize = 40;

/// The grid as a heat map, each cell shaded by its value and labelled.
pub fn grid(d: &Grid) -> Result<Figure> {
    let (nr, nc) = (d.rows.len(), d.columns.len());
    if nr == 0 || nc == 0 || nr > MAX_CELLS || nc > MAX_CELLS {
        return no_data(
            &d.name,
            &d.title,
            &d.description,
            "Too many labels to draw a grid",
        );
    }
    let rows: Vec<String> = d
        .rows
        .iter()
        .map(|r| truncate_px(&clean(r), FS_TICK, 150.0))
        .collect();
    let cols: Vec<String> = d
        .columns
        .iter()
        .map(|c| truncate_px(&clean(c), FS_TICK, 90.0))
        .collect();
    let label_w = rows
        .iter()
        .map(|r| text_width(r, FS_TICK))
        .fold(0.0, f64::max)
        .ceil() as i32;
    let col_h = cols
        .iter()
        .map(|c| text_width(c, FS_TICK))
        .fold(0.0, f64::max)
        .ceil() as i32;
    let left = 30 + label_w + 8;
    let top = 34 + col_h + 10;
    let width = left + CELL * nc as i32 + 16;
    let height = top + CELL * nr as i32 + 30;
    let raw = render(width as u32, height as u32, |area| {
        text(
            area,
            &truncate_px(&clean(&d.title), 13.0, f64::from(width - 16)),
            (8, 6),
            TITLE,
        )?;
        for (j, c) in cols.iter().enumerate() {
            let x = left + CELL * j as i32 + CELL / 2;
            text(
                area,
                c,
                (x, top - 6),
                TICK.anchor(HPos::Left, VPos::Center).rotated(),
            )?;
        }
        for (i, r) in rows.iter().enumerate() {
            let y = top + CELL * i as i32 + CELL / 2;
            text(
                area,
                r,
                (left - 6, y),
                TICK.anchor(HPos::Right, VPos::Center),
            )?;
            for j in 0..nc {
                let (x0, y0) = (left + CELL * j as i32, top + CELL * i as i32);
                let v = d.values[i * nc + j];
                let color = grid_cell(area, (x0, y0), v)?;
                let font =
                    super::draw::Font::new(FS_TICK, color).anchor(HPos::Center, VPos::Center);
                let label = d.labels.get(i * nc + j).map_or("", String::as_str);
                text(area, label, (x0 + CELL / 2, y0 + CELL / 2), font)?;
            }
        }
        let axis = AXIS.anchor(HPos::Center, VPos::Center).rotated();
        text(
            area,
            &clean(&d.row_axis),
            (12, top + CELL * nr as i32 / 2),
            axis,
        )?;
        let axis = AXIS.anchor(HPos::Center, VPos::Top);
        text(
            area,
            &clean(&d.column_axis),
            (left + CELL * nc as i32 / 2, top + CELL * nr as i32 + 8),
            axis,
        )
    })?;
    Ok(finish(&raw, &d.name, &d.title, &d.description))
}

/// One cell of the grid at `(x0, y0)`, returning the ink of its text: the
/// themed heat colour of `v` ([`heat_cell`], the same as the agreement and
/// preference heat maps, so it follows the page into dark mode; 0 is the
/// figure's background) over a themed `--grid` frame that keeps the grid
/// visible where the value is 0; n/a is the grid colour.
fn grid_cell(area: &Area, (x0, y0): (i32, i32), v: f64) -> Result<RGBColor> {
    let (x1, y1) = (x0 + CELL - 1, y0 + CELL - 1);
    rect(area, (x0, y0), (x1, y1), GRID)?;
    if !v.is_finite() {
        return Ok(MUTED);
    }
    rect(area, (x0 + 1, y0 + 1), (x1 - 1, y1 - 1), BG)?;
    let c = heat_cell(v.clamp(0.0, 1.0), 1.0);
    rect_alpha(area, (x0 + 1, y0 + 1), (x1 - 1, y1 - 1), c.fill, c.opacity)?;
    Ok(c.ink)
}

/// Curves of one system: one line per class, in [0, 1] x [0, 1].
#[derive(Clone, Debug, PartialEq)]
pub struct Curves {
    pub name: String,
    pub title: String,
    pub description: String,
    pub x_label: String,
    pub y_label: String,
    /// `(legend, points (x, y))` per class.
    pub series: Vec<(String, Vec<(f64, f64)>)>,
    /// The chance line: a segment `((x0, y0), (x1, y1))`, or one level per
    /// series (PR: the class's prevalence) when `chance_levels` is set.
    pub chance: Option<((f64, f64), (f64, f64))>,
    pub chance_levels: Vec<f64>,
}

const PLOT: i32 = 300;

/// The start of a figure on the unit square `f` (the curves, the
/// reliability diagram): the title (cut to the figure's `width`), and both
/// axes' grid lines at `ticks` with `decimals`; the axes' scales.
fn unit_square(
    area: &Area,
    f: &Frame,
    (title, width): (&str, i32),
    ticks: &[f64],
    decimals: usize,
) -> Result<(Scale, Scale)> {
    text(
        area,
        &truncate_px(&clean(title), 13.0, f64::from(width - 16)),
        (8, 6),
        TITLE,
    )?;
    let (x, y) = (
        Scale::new((0.0, 1.0), (f.left, f.right)),
        Scale::new((0.0, 1.0), (f.bottom, f.top)),
    );
    y_grid(area, f, &y, ticks, decimals, true)?;
    x_grid(area, f, &x, ticks, decimals, true)?;
    Ok((x, y))
}

/// The curves with their legend and the chance line (dashed).
pub fn curves(d: &Curves) -> Result<Figure> {
    if d.series.iter().all(|s| s.1.is_empty()) {
        return no_data(
            &d.name,
            &d.title,
            &d.description,
            "No class has both positives and negatives",
        );
    }
    let legend_w = d
        .series
        .iter()
        .map(|s| text_width(&truncate_px(&clean(&s.0), FS_TICK, 220.0), FS_TICK))
        .fold(0.0, f64::max)
        .ceil() as i32;
    let f = Frame {
        left: 56,
        top: 34,
        right: 56 + PLOT,
        bottom: 34 + PLOT,
    };
    let width = f.right + 24 + 18 + legend_w + 12;
    let height = f.bottom + 46;
    let raw = render(width as u32, height as u32, |area| {
        let (x, y) = unit_square(area, &f, (&d.title, width), &[0.0, 0.25, 0.5, 0.75, 1.0], 2)?;
        if let Some(((x0, y0), (x1, y1))) = d.chance {
            line(
                area,
                vec![(x.px(x0), y.px(y0)), (x.px(x1), y.px(y1))],
                REF,
                1,
            )?;
        }
        for (k, (legend, points)) in d.series.iter().enumerate() {
            if let Some(&level) = d.chance_levels.get(k) {
                line(
                    area,
                    vec![(f.left, y.px(level)), (f.right, y.px(level))],
                    REF,
                    1,
                )?;
            }
            let px: Vec<(i32, i32)> = points.iter().map(|&(a, b)| (x.px(a), y.px(b))).collect();
            line(area, px, series(k), 2)?;
            let ly = f.top + 8 + 18 * k as i32;
            line(
                area,
                vec![(f.right + 24, ly), (f.right + 38, ly)],
                series(k),
                2,
            )?;
            let l = truncate_px(&clean(legend), FS_TICK, 220.0);
            text(
                area,
                &l,
                (f.right + 42, ly),
                TICK.anchor(HPos::Left, VPos::Center),
            )?;
        }
        axes(area, &f)?;
        text(
            area,
            &clean(&d.x_label),
            (f.center_x(), f.bottom + 26),
            AXIS.anchor(HPos::Center, VPos::Top),
        )?;
        let font = AXIS.anchor(HPos::Center, VPos::Center).rotated();
        text(area, &clean(&d.y_label), (14, f.center_y()), font)
    })?;
    Ok(finish(&raw, &d.name, &d.title, &d.description))
}

/// The reliability diagram of one system: per bin `(lower, upper, n,
/// mean confidence, accuracy)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Reliability {
    pub name: String,
    pub title: String,
    pub description: String,
    pub bins: Vec<(f64, f64, f64, f64, f64)>,
}

/// Accuracy against mean confidence per bin (dots joined), the diagonal of
/// perfect calibration dashed, and the bins' counts as bars under it.
pub fn reliability(d: &Reliability) -> Result<Figure> {
    if d.bins.iter().all(|b| b.2 == 0.0) {
        return no_data(&d.name, &d.title, &d.description, "No item");
    }
    let f = Frame {
        left: 56,
        top: 34,
        right: 56 + PLOT,
        bottom: 34 + PLOT,
    };
    let bars_top = f.bottom + 40;
    let bars_h = 60;
    let width = f.right + 24;
    let height = bars_top + bars_h + 40;
    let max_n = d.bins.iter().map(|b| b.2).fold(0.0, f64::max);
    let raw = render(width as u32, height as u32, |area| {
        let ticks = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0];
        let (x, y) = unit_square(area, &f, (&d.title, width), &ticks, 1)?;
        line(
            area,
            vec![(x.px(0.0), y.px(0.0)), (x.px(1.0), y.px(1.0))],
            REF,
            1,
        )?;
        let pts: Vec<(i32, i32)> = d
            .bins
            .iter()
            .filter(|b| b.2 > 0.0)
            .map(|b| (x.px(b.3), y.px(b.4)))
            .collect();
        line(area, pts.clone(), series(0), 2)?;
        for p in pts {
            dot(area, p, 4, series(0))?;
        }
        axes(area, &f)?;
        let font = AXIS.anchor(HPos::Center, VPos::Center).rotated();
        text(area, "accuracy", (14, f.center_y()), font)?;
        for b in &d.bins {
            let (x0, x1) = (x.px(b.0) + 1, x.px(b.1) - 1);
            let h = if max_n > 0.0 {
                (b.2 / max_n * f64::from(bars_h)).round() as i32
            } else {
                0
            };
            rect(
                area,
                (x0, bars_top + bars_h - h),
                (x1, bars_top + bars_h),
                MUTED,
            )?;
            let font = TICK.anchor(HPos::Center, VPos::Bottom);
            text(
                area,
                &super::text::fmt_count(b.2 as usize),
                ((x0 + x1) / 2, bars_top + bars_h - h - 2),
                font,
            )?;
        }
        let font = AXIS.anchor(HPos::Center, VPos::Top);
        text(
            area,
            "confidence (top label); bars: items per bin",
            (f.center_x(), bars_top + bars_h + 8),
            font,
        )
    })?;
    Ok(finish(&raw, &d.name, &d.title, &d.description))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_are_escaped_deterministic_and_survive_empty_data() {
        let g = Grid {
            name: "confusion_a".into(),
            title: "Confusion <a>".into(),
            description: "d".into(),
            rows: vec!["x & y".into(), "z".into()],
            columns: vec!["x & y".into(), "z".into(), "(none)".into()],
            values: vec![0.5, 0.5, 0.0, f64::NAN, 1.0, 0.0],
            labels: vec!["0.50".into(); 6],
            row_axis: "gold".into(),
            column_axis: "predicted".into(),
        };
        let f = grid(&g).unwrap();
        assert_eq!(f, grid(&g).unwrap());
        assert!(f.svg.contains("x &amp; y") && !f.svg.contains("<a>"));
        // Dark mode: the cells are the themed heat colour over the themed
        // background, framed by the themed grid colour; no fixed shade.
        for themed in [
            "fill=\"var(--series-1, #0072B2)\"",
            "fill=\"var(--grid, #E2E2E2)\"",
        ] {
            assert!(f.svg.contains(themed), "{themed}");
        }
        assert!(!f.svg.contains("#F6F6F6") && !f.svg.contains("#1A1A1A"));
        let c = Curves {
            name: "roc".into(),
            title: "ROC".into(),
            description: "d".into(),
            x_label: "fpr".into(),
            y_label: "tpr".into(),
            series: vec![(
                "a (AUC 0.9)".into(),
                vec![(0.0, 0.0), (0.2, 0.8), (1.0, 1.0)],
            )],
            chance: Some(((0.0, 0.0), (1.0, 1.0))),
            chance_levels: Vec::new(),
        };
        assert!(curves(&c).unwrap().svg.contains("AUC 0.9"));
        let empty = Curves {
            series: vec![("a".into(), Vec::new())],
            ..c
        };
        assert!(curves(&empty).unwrap().svg.contains("No class"));
        let r = Reliability {
            name: "rel".into(),
            title: "R".into(),
            description: "d".into(),
            bins: vec![
                (0.0, 0.1, 0.0, f64::NAN, f64::NAN),
                (0.9, 1.0, 12.0, 0.95, 0.9),
            ],
        };
        assert!(reliability(&r).unwrap().svg.contains("12"));
    }
}
