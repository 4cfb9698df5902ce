//! Plots stage, preference annotations (`spec/preferences.md` 4): the
//! strength of each annotator as horizontal bars with interval bars, and
//! the heat map annotators x subset values of strength. Draws only the
//! values it is given; touches nothing outside `src/plots/`.

use anyhow::Result;
use plotters::style::text_anchor::{HPos, VPos};
use plotters::style::RGBColor;

use super::draw::{
    error_bar, line, no_data, rect, rect_alpha, render, text, x_grid, Font, Frame, Scale, AXIS,
    FS_TICK, TICK, TITLE,
};
use super::text::{clean, fmt_fixed, text_width, truncate_px, wrap};
use super::theme::{finish, heat_cell, series, FG, GRID, MUTED, REF};
use super::Figure;

/// Strength of every annotator on the whole data set.
#[derive(Clone, Debug, PartialEq)]
pub struct StrengthBars {
    /// Annotators in display order (top to bottom).
    pub labels: Vec<String>,
    pub strength: Vec<f64>,
    /// `(lower, upper)` per annotator; NaN: no interval bar.
    pub intervals: Vec<(f64, f64)>,
    /// Confidence level of the intervals (for the description).
    pub level: f64,
    /// Per annotator: fewer than 30 valid votes (a grey bar, spec 6).
    pub few: Vec<bool>,
}

/// Strength per annotator and value of one subset column.
#[derive(Clone, Debug, PartialEq)]
pub struct StrengthHeatmap {
    pub column: String,
    /// Rows, top to bottom.
    pub annotators: Vec<String>,
    /// Columns, left to right.
    pub values: Vec<String>,
    /// `strength[row][column]`; NaN: no value.
    pub strength: Vec<Vec<f64>>,
    /// `few[row][column]`: from fewer than 30 valid votes (a grey cell
    /// with `*`, spec 6).
    pub few: Vec<Vec<bool>>,
}

const ROW_H: i32 = 30;
const PLOT_W: i32 = 360;
/// A long annotator name (a trait's description) wraps at this many
/// characters, on at most [`LABEL_LINES`] lines, rather than being cut.
const WRAP_CHARS: usize = 42;
const LABEL_LINES: usize = 3;
const LINE_H: i32 = 13;

/// Every label wrapped ([`WRAP_CHARS`], [`LABEL_LINES`]), the widest line's
/// estimated width and the row height that holds the most lines.
fn wrapped_labels(labels: &[String], min_row: i32) -> (Vec<Vec<String>>, i32, i32) {
    let lines: Vec<Vec<String>> = labels
        .iter()
        .map(|l| wrap(&clean(l), WRAP_CHARS, LABEL_LINES))
        .collect();
    let width = lines
        .iter()
        .flatten()
        .map(|l| text_width(l, FS_TICK))
        .fold(0.0, f64::max)
        .ceil() as i32;
    let most = lines.iter().map(Vec::len).max().unwrap_or(1) as i32;
    (lines, width, min_row.max(LINE_H * most + 8))
}

/// The lines of one label, right-aligned at `x` and centred on `cy`.
fn label_lines(area: &super::draw::Area, lines: &[String], x: i32, cy: i32) -> Result<()> {
    let n = lines.len() as i32;
    for (k, l) in lines.iter().enumerate() {
        let y = cy - (n - 1) * LINE_H / 2 + k as i32 * LINE_H;
        text(area, l, (x, y), TICK.anchor(HPos::Right, VPos::Center))?;
    }
    Ok(())
}

/// The bar chart `strength`: one bar per annotator from 0 to its strength
/// on the fixed axis [-1, 1], the interval as an error bar, the value
/// written at the right.
pub fn strength_bars(d: &StrengthBars) -> Result<Figure> {
    let (name, title) = ("strength", "Strength of each annotator");
    let labels: Vec<String> = d.labels.iter().map(|l| clean(l)).collect();
    let description = format!(
        "Horizontal bars of strength (Cohen's kappa with chance agreement 0.5, times \
         relevance) for {} annotators against the reference, on an axis from -1 to 1; \
         error bars show {:.0}% bootstrap intervals where there are any; grey bars rest on \
         fewer than 30 valid votes.",
        labels.len(),
        d.level * 100.0
    );
    if labels.is_empty() {
        return no_data(name, title, &description, "No annotator to plot");
    }
    let (lines, label_w, row_h) = wrapped_labels(&labels, ROW_H);
    let left = 16 + label_w + 10;
    let frame = Frame {
        left,
        top: 36,
        right: left + PLOT_W,
        bottom: 36 + row_h * labels.len() as i32,
    };
    let width = frame.right + 70;
    let height = frame.bottom + 48;
    let raw = render(width as u32, height as u32, |area| {
        let x = Scale::new((-1.0, 1.0), (frame.left, frame.right));
        let ticks = [-1.0, -0.5, 0.0, 0.5, 1.0];
        x_grid(area, &frame, &x, &ticks, 1, true)?;
        for (i, label) in lines.iter().enumerate() {
            let cy = frame.top + row_h * i as i32 + row_h / 2;
            label_lines(area, label, frame.left - 8, cy)?;
            bar(
                area,
                &x,
                cy,
                d.strength.get(i).copied(),
                d.intervals.get(i).copied(),
                d.few.get(i).copied().unwrap_or(false),
            )?;
            let v = d.strength.get(i).copied().unwrap_or(f64::NAN);
            let value = if v.is_finite() {
                fmt_fixed(v, 3)
            } else {
                "n/a".into()
            };
            let font = Font::new(FS_TICK, FG).anchor(HPos::Left, VPos::Center);
            text(area, &value, (frame.right + 8, cy), font)?;
        }
        line(
            area,
            vec![(x.px(0.0), frame.top), (x.px(0.0), frame.bottom)],
            REF,
            1,
        )?;
        let font = AXIS.anchor(HPos::Center, VPos::Top);
        text(
            area,
            "strength",
            (frame.center_x(), frame.bottom + 24),
            font,
        )?;
        let font = TITLE.anchor(HPos::Left, VPos::Top);
        text(area, title, (16, 10), font)
    })?;
    Ok(finish(&raw, name, title, &description))
}

/// One bar with its interval at the row centred on `cy`.
fn bar(
    area: &super::draw::Area,
    x: &Scale,
    cy: i32,
    v: Option<f64>,
    ci: Option<(f64, f64)>,
    few: bool,
) -> Result<()> {
    let Some(v) = v.filter(|v| v.is_finite()) else {
        return Ok(());
    };
    let half = ROW_H * 3 / 10;
    let color = if few {
        FEW
    } else if v < 0.0 {
        series(5)
    } else {
        series(0)
    };
    rect(area, (x.px(0.0), cy - half), (x.px(v), cy + half), color)?;
    if let Some((lo, hi)) = ci.filter(|(a, b)| a.is_finite() && b.is_finite()) {
        error_bar(area, (x.px(lo), cy), (x.px(hi), cy), 5, FG)?;
    }
    Ok(())
}

/// The grey of a value from few votes.
const FEW: RGBColor = RGBColor(0xB8, 0xBC, 0xC4);

const CELL_W: i32 = 78;
const CELL_H: i32 = 28;

/// The heat map `strength_by_<column>`: one row per annotator, one column
/// per subset value, each cell coloured by strength and labelled with it.
pub fn strength_heatmap(d: &StrengthHeatmap) -> Result<Figure> {
    let column = clean(&d.column);
    let name = format!("strength_by_{}", super::file_safe(&d.column));
    let title = format!("Strength by {column}");
    let description = format!(
        "Heat map of strength for {} annotators (rows) and {} values of {column} \
         (columns): blue cells follow the reference, orange cells oppose it, a cell of 0 has no colour; \
         grey cells marked * rest on fewer than 30 valid votes.",
        d.annotators.len(),
        d.values.len()
    );
    heatmap(d, &name, &title, &description)
}

/// The heat map `model_traits` (spec 6): one row per annotator, one
/// column per target model, strength against `prefers M`.
pub fn model_traits_heatmap(d: &StrengthHeatmap) -> Result<Figure> {
    let description = format!(
        "Heat map of strength for {} annotators (rows) against prefers M for {} models \
         (columns): blue cells mark traits the model's responses show more than the other \
         models' responses, orange cells traits they show less, a cell of 0 has no colour; grey cells marked \
         * rest on fewer than 30 valid votes.",
        d.annotators.len(),
        d.values.len()
    );
    heatmap(d, "model_traits", "Traits by model", &description)
}

/// A heat map of strength with its file name, title and description.
fn heatmap(d: &StrengthHeatmap, name: &str, title: &str, description: &str) -> Result<Figure> {
    if d.annotators.is_empty() || d.values.is_empty() {
        return no_data(name, title, description, "No values to plot");
    }
    let (lines, label_w, cell_h) = wrapped_labels(&d.annotators, CELL_H);
    let left = 16 + label_w + 10;
    let top = 64;
    let width = left + CELL_W * d.values.len() as i32 + 16;
    let height = top + cell_h * d.annotators.len() as i32 + 16;
    let raw = render(width as u32, height as u32, |area| {
        for (c, value) in d.values.iter().enumerate() {
            let cx = left + CELL_W * c as i32 + CELL_W / 2;
            let shown = truncate_px(&clean(value), FS_TICK, f64::from(CELL_W - 6));
            text(
                area,
                &shown,
                (cx, top - 6),
                TICK.anchor(HPos::Center, VPos::Bottom),
            )?;
        }
        for (r, label) in lines.iter().enumerate() {
            let y = top + cell_h * r as i32;
            label_lines(area, label, left - 8, y + cell_h / 2)?;
            for c in 0..d.values.len() {
                let v = d.strength.get(r).and_then(|row| row.get(c)).copied();
                let few = d.few.get(r).and_then(|row| row.get(c)).copied();
                let at = (left + CELL_W * c as i32, y);
                cell(
                    area,
                    at,
                    cell_h,
                    v.unwrap_or(f64::NAN),
                    few.unwrap_or(false),
                )?;
            }
        }
        text(area, title, (16, 10), TITLE.anchor(HPos::Left, VPos::Top))
    })?;
    Ok(finish(&raw, name, title, description))
}

/// A cell: the strength's heat colour ([`heat_cell`], themed, at most 65%
/// so that the text stays readable), or the themed grid colour for a value
/// from few votes (marked `*`) and for n/a.
fn cell(area: &super::draw::Area, (x, y): (i32, i32), h: i32, v: f64, few: bool) -> Result<()> {
    let (x1, y1) = (x + CELL_W - 1, y + h - 1);
    let (label, color) = if v.is_finite() && !few {
        let c = heat_cell(v, 0.65);
        rect_alpha(area, (x + 1, y + 1), (x1, y1), c.fill, c.opacity)?;
        (fmt_fixed(v, 2), c.ink)
    } else {
        rect(area, (x + 1, y + 1), (x1, y1), GRID)?;
        match v.is_finite() {
            true => (format!("{}*", fmt_fixed(v, 2)), MUTED),
            false => ("n/a".to_string(), MUTED),
        }
    };
    let font = Font::new(FS_TICK, color).anchor(HPos::Center, VPos::Center);
    text(area, &label, (x + CELL_W / 2, y + h / 2), font)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_and_heat_map_are_deterministic_svg() {
        let d = StrengthBars {
            labels: vec!["judge".into(), "<longer>".into(), "first".into()],
            strength: vec![0.5, -0.25, f64::NAN],
            intervals: vec![(0.4, 0.6), (f64::NAN, f64::NAN), (f64::NAN, f64::NAN)],
            level: 0.95,
            few: vec![false, true, false],
        };
        let f = strength_bars(&d).unwrap();
        assert_eq!(f, strength_bars(&d).unwrap());
        assert!(f.svg.contains("role=\"img\"") && f.svg.contains("&lt;longer&gt;"));
        assert!(f.svg.contains("n/a") && f.svg.contains("0.500"));
        let h = StrengthHeatmap {
            column: "source".into(),
            annotators: vec!["judge".into(), "first".into()],
            values: vec!["chat".into(), "math".into()],
            strength: vec![vec![0.5, -1.0], vec![0.0, f64::NAN]],
            few: vec![vec![false, true], vec![false, false]],
        };
        let f = strength_heatmap(&h).unwrap();
        assert_eq!(f.name, "strength_by_source");
        assert!(f.svg.contains("-1.00*") && f.svg.contains("n/a"));
        // Themed: the series colour at an opacity over the background.
        assert!(
            f.svg.contains("opacity=\"0.325\" fill=\"var(--series-1"),
            "{}",
            f.svg
        );
        let odd = StrengthHeatmap {
            column: "a/b c".into(),
            ..h
        };
        assert_eq!(strength_heatmap(&odd).unwrap().name, "strength_by_a_b_c");
    }
}
