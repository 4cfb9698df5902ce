//! Plots stage: grouped bars in panels, one panel per measure with its own
//! y axis (from 0), one group of bars per category along the x axis, one
//! bar per series in each group (the legend on top), error bars where
//! intervals are given. `sequence` draws its S/D/I counts (categories =
//! systems, series = error types) and its scores by length bucket and by
//! subgroup (categories = buckets or levels, series = systems) with it.
//! Draws only the values it is given; touches nothing outside `src/plots/`.

use anyhow::Result;
use plotters::style::text_anchor::{HPos, VPos};

use super::draw::{
    axes, clamp_px, error_bar, extent, nice_ticks, no_data, rect, render, text, ticks_width,
    y_grid, Area, Font, Frame, Scale, FS_TITLE, TITLE,
};
use super::eval_by_group::LabelLayout;
use super::text::{clean, truncate_px};
use super::theme::{finish, series, FG, MUTED};
use super::versions::legend;
use super::Figure;

/// One panel: a value per category and series.
#[derive(Clone, Debug, PartialEq)]
pub struct BarPanel {
    /// The panel's title (the measure, e.g. `BLEU (higher is better)`).
    pub title: String,
    /// `values[category][series]`; NaN draws no bar but an `n/a` mark.
    pub values: Vec<Vec<f64>>,
    /// `(lower, upper)` in the same shape; empty (or NaN): no error bar.
    pub intervals: Vec<Vec<(f64, f64)>>,
}

/// Grouped bars: categories along x, a bar per series, a panel per
/// measure.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupedBars {
    /// File stem of the figure.
    pub name: String,
    pub title: String,
    /// The SVG `<desc>` (what is shown, in words).
    pub description: String,
    /// Groups along the x axis, left to right.
    pub categories: Vec<String>,
    /// Bars in each group (the legend), left to right.
    pub series: Vec<String>,
    pub panels: Vec<BarPanel>,
}

const PANEL_TITLE_H: i32 = 26;
const PLOT_H: i32 = 150;
const LEGEND_H: i32 = 30;
/// Most bars per panel for two panels side by side.
const SIDE_BY_SIDE: usize = 12;

/// The figure: small panels two or three per row (with a stacked copy for
/// narrow screens), else one per row.
pub fn grouped_bars(d: &GroupedBars) -> Result<Figure> {
    let categories: Vec<String> = d.categories.iter().map(|c| clean(c)).collect();
    let k = categories.len();
    let s = d.series.len();
    let drawable = k > 0 && s > 0 && d.panels.iter().any(|p| values_extent(p).is_some());
    if !drawable {
        return no_data(&d.name, &d.title, &d.description, "No values to plot");
    }
    let small = d.panels.len() > 1 && k * s <= SIDE_BY_SIDE;
    let cols = if small { d.panels.len().min(3) } else { 1 };
    let raw = draw(d, &categories, cols)?;
    let mut figure = finish(&raw, &d.name, &d.title, &d.description);
    if small {
        let raw = draw(d, &categories, 1)?;
        let narrow = finish(
            &raw,
            &format!("{}-narrow", d.name),
            &d.title,
            &d.description,
        );
        figure.narrow_svg = Some(narrow.svg);
    }
    Ok(figure)
}

/// The extent of a panel's values and interval ends, if any is finite.
fn values_extent(p: &BarPanel) -> Option<(f64, f64)> {
    let values = p.values.iter().flatten().copied();
    let ends = p.intervals.iter().flatten().flat_map(|&(a, b)| [a, b]);
    extent(values.chain(ends))
}

/// A panel's y domain (always holding 0, from tick to tick, the highest
/// tick at or above every bar), ticks and decimals.
fn y_axis(p: &BarPanel) -> (f64, f64, Vec<f64>, usize) {
    let (lo, hi) = values_extent(p).unwrap_or((0.0, 1.0));
    let (lo, hi) = (lo.min(0.0), hi.max(0.0));
    let hi = if hi > lo { hi } else { lo + 1.0 };
    let (mut ticks, decimals) = nice_ticks(lo, hi, 4);
    if let [.., a, b] = ticks[..] {
        let step = b - a;
        let round = |t: f64| format!("{t:.decimals$}").parse::<f64>().unwrap_or(t);
        while ticks.last().is_some_and(|&t| t < hi - step * 1e-9) && ticks.len() < 50 {
            let next = round(ticks[ticks.len() - 1] + step);
            ticks.push(next);
        }
        if ticks[0] > lo + step * 1e-9 {
            ticks.insert(0, round(ticks[0] - step));
        }
    }
    let (first, last) = (ticks[0].min(lo), ticks[ticks.len() - 1].max(hi));
    (first, last, ticks, decimals)
}

/// The panels in `cols` columns, each with its category labels under it;
/// plotters' raw SVG.
fn draw(d: &GroupedBars, categories: &[String], cols: usize) -> Result<String> {
    let (k, s) = (categories.len(), d.series.len());
    let max_w = match cols {
        1 => 860,
        2 => 400,
        _ => 300,
    };
    let plot_w = clamp_px(k as f64 * (s as f64 * 16.0 + 20.0), 200, max_w);
    let slot = f64::from(plot_w) / k as f64;
    let layout = LabelLayout::new(categories, slot);
    let axes_y: Vec<_> = d.panels.iter().map(y_axis).collect();
    let tick_w = axes_y
        .iter()
        .map(|(_, _, t, dec)| ticks_width(t, *dec))
        .max()
        .unwrap_or(20);
    let inner_left = tick_w + 12;
    let panel_w = inner_left + plot_w + 18;
    let row_h = PANEL_TITLE_H + PLOT_H + layout.height + 12;
    let rows = d.panels.len().div_ceil(cols) as i32;
    let width = (cols as i32 * panel_w + 16).max(320);
    let height = LEGEND_H + rows * row_h + 8;
    render(width as u32, height as u32, |area| {
        legend(area, &d.series, width - 12, 14)?;
        for (j, (panel, y_axis)) in d.panels.iter().zip(&axes_y).enumerate() {
            let (row, col) = ((j / cols) as i32, (j % cols) as i32);
            let left = 8 + col * panel_w + inner_left;
            let top = LEGEND_H + row * row_h + PANEL_TITLE_H;
            let frame = Frame {
                left,
                top,
                right: left + plot_w,
                bottom: top + PLOT_H,
            };
            draw_panel(area, &frame, panel, y_axis, slot, s)?;
            layout.draw(area, &frame, slot)?;
        }
        Ok(())
    })
}

/// One panel: grid, bars, error bars, `n/a` marks, axes and title.
fn draw_panel(
    area: &Area,
    frame: &Frame,
    p: &BarPanel,
    (lo, hi, ticks, decimals): &(f64, f64, Vec<f64>, usize),
    slot: f64,
    s: usize,
) -> Result<()> {
    let y = Scale::new((*lo, *hi), (frame.bottom, frame.top));
    y_grid(area, frame, &y, ticks, *decimals, true)?;
    let base = y.px(0.0);
    let bar_w = (slot * 0.8 / s as f64).clamp(1.0, 40.0);
    for (i, row) in p.values.iter().enumerate() {
        let group_w = bar_w * s as f64;
        let x0 = f64::from(frame.left) + slot * (i as f64 + 0.5) - group_w / 2.0;
        for (j, v) in row.iter().enumerate().take(s) {
            let l = (x0 + bar_w * j as f64).round() as i32;
            let r = ((x0 + bar_w * (j + 1) as f64).round() as i32 - 1).max(l + 1);
            let cx = (l + r) / 2;
            if !v.is_finite() {
                if bar_w >= 14.0 {
                    let font = Font::new(9.0, MUTED).anchor(HPos::Center, VPos::Bottom);
                    text(area, "n/a", (cx, base - 2), font)?;
                }
                continue;
            }
            rect(area, (l, y.px(*v)), (r, base), series(j))?;
            let ci = p.intervals.get(i).and_then(|c| c.get(j)).copied();
            if let Some((a, b)) = ci.filter(|(a, b)| a.is_finite() && b.is_finite()) {
                let cap = ((bar_w / 4.0).round() as i32).clamp(1, 5);
                error_bar(area, (cx, y.px(a)), (cx, y.px(b)), cap, FG)?;
            }
        }
    }
    axes(area, frame)?;
    let title = truncate_px(&clean(&p.title), FS_TITLE, f64::from(frame.width() + 30));
    let font = TITLE.anchor(HPos::Center, VPos::Bottom);
    text(area, &title, (frame.center_x(), frame.top - 8), font)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bars(panels: usize, categories: usize) -> GroupedBars {
        GroupedBars {
            name: "b".into(),
            title: "Bars".into(),
            description: "Some bars.".into(),
            categories: (0..categories).map(|i| format!("c<{i}>")).collect(),
            series: vec!["v1".into(), "v2 & co".into()],
            panels: (0..panels)
                .map(|p| BarPanel {
                    title: format!("panel {p}"),
                    values: (0..categories)
                        .map(|i| vec![i as f64 + p as f64, f64::NAN])
                        .collect(),
                    intervals: (0..categories)
                        .map(|i| vec![(i as f64 - 0.5, i as f64 + 0.5), (f64::NAN, f64::NAN)])
                        .collect(),
                })
                .collect(),
        }
    }

    #[test]
    fn bars_escape_their_labels_and_are_deterministic() {
        let d = bars(2, 3);
        let f = grouped_bars(&d).unwrap();
        assert_eq!(f, grouped_bars(&d).unwrap());
        assert!(f.svg.contains("c&lt;1&gt;") && !f.svg.contains("c<1>"));
        assert!(f.svg.contains("v2 &amp; co"));
        assert!(f.svg.contains("panel 1"));
        // two small panels side by side, a stacked copy for narrow screens
        assert!(f.narrow_svg.is_some());
        // the y axis ends on a tick at or above the highest bar (2 + 1)
        assert_eq!(y_axis(&d.panels[1]).1, 3.0);
        assert_eq!(y_axis(&d.panels[0]).0, -1.0);
        // the NaN bars are marked, not drawn
        assert!(f.svg.contains("n/a"));
    }

    #[test]
    fn many_categories_stack_the_panels_and_no_values_say_so() {
        let f = grouped_bars(&bars(2, 9)).unwrap();
        assert!(f.narrow_svg.is_none());
        let mut empty = bars(1, 2);
        empty.panels[0].values = vec![vec![f64::NAN; 2]; 2];
        empty.panels[0].intervals.clear();
        let f = grouped_bars(&empty).unwrap();
        assert!(f.svg.contains("No values to plot"));
    }
}
