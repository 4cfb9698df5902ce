//! Plots stage, comparison report: the two versions' scores (compare spec
//! 2.5, parts 3 and 8): the score distributions of human, baseline and
//! candidate as grouped bars, and the heat map of baseline vs candidate
//! rounded scores (counts). Draws only the aggregates it is given;
//! touches nothing outside `src/plots/`.

use anyhow::Result;
use plotters::prelude::{Color, Rectangle};
use plotters::style::text_anchor::{HPos, VPos};

use super::draw::{
    axes, clamp_px, e, extent, nice_ticks, no_data, rect, render, text, ticks_width, y_grid, Area,
    Font, Frame, Scale, AXIS, FS_TICK, TICK,
};
use super::text::{fmt_count, fmt_score, text_width, truncate_px};
use super::theme::{finish, series, BG, FG};
use super::Figure;

/// Score distributions of several series (percent of responses per
/// score label).
#[derive(Clone, Debug, PartialEq)]
pub struct Distributions {
    /// Score labels, ascending.
    pub scores: Vec<f64>,
    /// `(name, percent per label)`; NaN draws no bar.
    pub series: Vec<(String, Vec<f64>)>,
}

/// The grouped bars of several score distributions
/// (`compare_score_dist`).
pub fn distributions(d: &Distributions) -> Result<Figure> {
    const NAME: &str = "compare_score_dist";
    const TITLE: &str = "Score distributions of both versions";
    let names: Vec<String> = d.series.iter().map(|(n, _)| n.clone()).collect();
    let n = d.scores.len();
    let description = format!(
        "Grouped bar chart: for each of {n} score levels, the percentage of responses with \
         that score, for {}.",
        names.join(", ")
    );
    let k = d.series.len().max(1);
    let values = d.series.iter().flat_map(|(_, v)| v.iter().copied());
    let Some((_, vmax)) = extent(values) else {
        return no_data(NAME, TITLE, &description, "No score distribution to plot");
    };
    let hi = if vmax > 0.0 { vmax * 1.1 } else { 1.0 };
    let (ticks, decimals) = nice_ticks(0.0, hi, 5);
    let hi = ticks.last().copied().unwrap_or(hi).max(hi);
    let plot_w = clamp_px(n as f64 * (18.0 * k as f64 + 20.0), 280, 860);
    let left = 34 + ticks_width(&ticks, decimals) + 8;
    let frame = Frame {
        left,
        top: 44,
        right: left + plot_w,
        bottom: 44 + 230,
    };
    let slot = f64::from(plot_w) / n.max(1) as f64;
    let raw = render(
        (frame.right + 20) as u32,
        (frame.bottom + 50) as u32,
        |area| {
            let y = Scale::new((0.0, hi), (frame.bottom, frame.top));
            y_grid(area, &frame, &y, &ticks, decimals, true)?;
            for (i, score) in d.scores.iter().enumerate() {
                let x0 = f64::from(frame.left) + slot * i as f64;
                let bar = slot * 0.8 / k as f64;
                for (j, (_, v)) in d.series.iter().enumerate() {
                    let v = v.get(i).copied().unwrap_or(f64::NAN);
                    if v.is_finite() {
                        let l = (x0 + slot * 0.1 + bar * j as f64).round() as i32;
                        let r = ((x0 + slot * 0.1 + bar * (j + 1) as f64).round() as i32 - 1)
                            .max(l + 1);
                        rect(area, (l, y.px(v)), (r, y.px(0.0)), series(j))?;
                    }
                }
                let font = TICK.anchor(HPos::Center, VPos::Top);
                let cx = (x0 + slot / 2.0).round() as i32;
                text(area, &fmt_score(*score), (cx, frame.bottom + 6), font)?;
            }
            axes(area, &frame)?;
            let font = AXIS.anchor(HPos::Center, VPos::Top);
            text(area, "score", (frame.center_x(), frame.bottom + 28), font)?;
            let font = AXIS.anchor(HPos::Center, VPos::Top).rotated();
            text(area, "% of responses", (10, frame.center_y()), font)?;
            legend(area, &names, frame.right, 16)
        },
    )?;
    Ok(finish(&raw, NAME, TITLE, &description))
}

/// Colour swatches with names, right-aligned at `right` (also `bars`').
pub(crate) fn legend(area: &Area, names: &[String], right: i32, y: i32) -> Result<()> {
    let shown: Vec<String> = names
        .iter()
        .map(|n| truncate_px(&super::text::clean(n), FS_TICK, 160.0))
        .collect();
    let widths: Vec<i32> = shown
        .iter()
        .map(|s| text_width(s, FS_TICK).ceil() as i32)
        .collect();
    let total: i32 = widths.iter().map(|w| 11 + 5 + w + 16).sum::<i32>() - 16;
    let mut x = (right - total).max(4);
    for (i, (label, w)) in shown.iter().zip(&widths).enumerate() {
        rect(area, (x, y - 5), (x + 11, y + 6), series(i))?;
        text(
            area,
            label,
            (x + 16, y),
            TICK.anchor(HPos::Left, VPos::Center),
        )?;
        x += 11 + 5 + w + 16;
    }
    Ok(())
}

/// Counts of baseline (rows) vs candidate (columns) rounded scores.
#[derive(Clone, Debug, PartialEq)]
pub struct CountGrid {
    pub labels: Vec<f64>,
    /// `counts[i][j]`: baseline label `i`, candidate label `j`.
    pub counts: Vec<Vec<u64>>,
    pub baseline: String,
    pub candidate: String,
}

const CELL: i32 = 46;
/// At most this many score levels get a heat map.
const MAX_LEVELS: usize = 30;

/// The heat map of rounded scores (`compare_score_changes`): one cell per
/// pair of labels, shaded by its count, the count written in it.
pub fn count_grid(d: &CountGrid) -> Result<Figure> {
    const NAME: &str = "compare_score_changes";
    const TITLE: &str = "Rounded scores of both versions";
    let n = d.labels.len();
    let description = format!(
        "Heat map of {n} by {n} rounded score levels: each cell counts the paired responses \
         with that baseline score (row) and that candidate score (column); the diagonal holds \
         the unchanged scores."
    );
    let max = d.counts.iter().flatten().copied().max().unwrap_or(0);
    if n == 0 || max == 0 {
        return no_data(
            NAME,
            TITLE,
            &description,
            "No paired rounded scores to plot",
        );
    }
    if n > MAX_LEVELS {
        let message = format!("{n} score levels: too many for a heat map");
        return no_data(NAME, TITLE, &description, &message);
    }
    let frame = Frame {
        left: 96,
        top: 58,
        right: 96 + CELL * n as i32,
        bottom: 58 + CELL * n as i32,
    };
    let raw = render(
        (frame.right + 20) as u32,
        (frame.bottom + 20) as u32,
        |area| {
            for (i, row) in d.counts.iter().enumerate() {
                for (j, &count) in row.iter().enumerate() {
                    cell(area, &frame, (i, j), count, max)?;
                }
            }
            for (i, l) in d.labels.iter().enumerate() {
                let at = frame.left + CELL * i as i32 + CELL / 2;
                let s = fmt_score(*l);
                text(
                    area,
                    &s,
                    (at, frame.top - 6),
                    TICK.anchor(HPos::Center, VPos::Bottom),
                )?;
                let y = frame.top + CELL * i as i32 + CELL / 2;
                text(
                    area,
                    &s,
                    (frame.left - 6, y),
                    TICK.anchor(HPos::Right, VPos::Center),
                )?;
            }
            axes(area, &frame)?;
            let name = |s: &str| truncate_px(&super::text::clean(s), 12.0, 260.0);
            let font = AXIS.anchor(HPos::Center, VPos::Bottom);
            let top = format!("candidate: {}", name(&d.candidate));
            text(area, &top, (frame.center_x(), frame.top - 26), font)?;
            let font = AXIS.anchor(HPos::Center, VPos::Top).rotated();
            let side = format!("baseline: {}", name(&d.baseline));
            text(area, &side, (12, frame.center_y()), font)
        },
    )?;
    Ok(finish(&raw, NAME, TITLE, &description))
}

/// One cell of the heat map, shaded by `count / max`.
fn cell(area: &Area, frame: &Frame, (i, j): (usize, usize), count: u64, max: u64) -> Result<()> {
    let l = frame.left + CELL * j as i32;
    let t = frame.top + CELL * i as i32;
    let share = count as f64 / max as f64;
    if count > 0 {
        let alpha = (0.08 + 0.92 * share).min(1.0);
        let style = series(0).mix(alpha).filled();
        e(area.draw(&Rectangle::new(
            [(l, t), (l + CELL - 1, t + CELL - 1)],
            style,
        )))?;
    }
    let color = if share > 0.55 { BG } else { FG };
    let font = Font::new(10.0, color).anchor(HPos::Center, VPos::Center);
    text(
        area,
        &fmt_count(count as usize),
        (l + CELL / 2, t + CELL / 2),
        font,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distributions_show_every_series_in_the_legend() {
        let d = Distributions {
            scores: vec![1.0, 2.0, 3.0],
            series: vec![
                ("Human".into(), vec![20.0, 50.0, 30.0]),
                ("baseline <i>".into(), vec![25.0, 45.0, 30.0]),
                ("candidate".into(), vec![f64::NAN, 60.0, 40.0]),
            ],
        };
        let f = distributions(&d).unwrap();
        assert_eq!(f, distributions(&d).unwrap());
        assert!(f.svg.contains("baseline &lt;i&gt;"));
        // In the description and in the legend.
        assert!(f.svg.matches("candidate").count() >= 2);
    }

    #[test]
    fn the_heat_map_writes_its_counts() {
        let d = CountGrid {
            labels: vec![1.0, 2.0],
            counts: vec![vec![1200, 3], vec![0, 40]],
            baseline: "v1".into(),
            candidate: "v2 & more".into(),
        };
        let f = count_grid(&d).unwrap();
        assert!(f.svg.contains("1,200"));
        assert!(f.svg.contains("40"));
        assert!(f.svg.contains("v2 &amp; more"));
        let empty = count_grid(&CountGrid {
            labels: Vec::new(),
            counts: Vec::new(),
            ..d
        })
        .unwrap();
        assert!(empty.svg.contains("No paired rounded scores"));
        let n = 40;
        let many = count_grid(&CountGrid {
            labels: (0..n).map(f64::from).collect(),
            counts: (0..n)
                .map(|i| (0..n).map(|j| u64::from(i == j)).collect())
                .collect(),
            baseline: "a".into(),
            candidate: "b".into(),
        })
        .unwrap();
        assert!(many.svg.contains("too many for a heat map"));
    }
}
