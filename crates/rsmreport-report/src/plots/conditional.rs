//! Plots stage, figure 6.4: mean machine score by human score, one line per
//! group, with 95% error bars. Draws only the aggregates it is given;
//! touches nothing outside `src/plots/`.

use anyhow::Result;
use plotters::style::text_anchor::{HPos, VPos};
use plotters::style::RGBColor;

use super::draw::{
    axes, clamp_px, dot, error_bar, extent, line, nice_domain, no_data, polygon, rect, render,
    text, ticks_width, y_grid, Area, Frame, Scale, AXIS, FS_AXIS, FS_TICK, TICK, TITLE,
};
use super::text::{clean, fmt_count, fmt_score, text_width, truncate_px};
use super::theme::{finish, series, SERIES};
use super::{ConditionalScores, Figure};

const LEGEND_ROW: i32 = 18;
const MAX_LEGEND_PX: f64 = 200.0;

/// Figure 6.4 (`conditional_score_<group>`): for each human score (x,
/// categorical) the mean machine score of each group (points joined by
/// lines, broken where a group has no response with that score) with
/// vertical 95% error bars; legend titled with the group column. Groups
/// beyond the eighth reuse the colours with square, then triangular markers.
pub fn conditional_scores(d: &ConditionalScores) -> Result<Figure> {
    let group = clean(&d.group);
    let y_name = clean(&d.y_label);
    let name = format!("conditional_score_{}", d.group);
    let title = format!("Conditional machine scores by {group}");
    let y_title = if y_name.is_empty() {
        "mean machine score".to_string()
    } else {
        format!("mean machine score ({y_name})")
    };
    let n_x = d.human_scores.len();
    let m = d.series.len();
    let description = format!(
        "Mean machine score ({}) for each human score (sc1), one line per group of \
         {group} ({m} groups), with 95% t-intervals as vertical error bars.",
        if y_name.is_empty() {
            "machine score"
        } else {
            &y_name
        }
    );
    let lines = series_lines(d, n_x);
    let ends = lines.iter().flat_map(|(_, pts)| {
        pts.iter().flat_map(|&(mean, hw, _)| {
            let hw = if hw.is_finite() { hw } else { 0.0 };
            [mean, mean - hw, mean + hw]
        })
    });
    let Some((vmin, vmax)) = extent(ends) else {
        return no_data(&name, &title, &description, "No conditional scores to plot");
    };
    let (vmin, vmax) = limit(d, vmin, vmax);
    let description = format!("{description}{}", small_cells_note(d));
    let (lo, hi) = super::draw::sane_range(vmin, vmax);
    let pad = 0.03 * (hi - lo);
    let (lo, hi, ticks, decimals) = nice_domain(lo - pad, hi + pad, 6);

    let labels: Vec<String> = d.human_scores.iter().map(|s| fmt_score(*s)).collect();
    let label_w = labels
        .iter()
        .map(|l| text_width(l, FS_TICK))
        .fold(0.0, f64::max);
    let plot_w = clamp_px(n_x as f64 * 70.0, 320, 760);
    let plot_h = 300;
    let slot = f64::from(plot_w) / n_x as f64;
    let every = ((label_w + 8.0) / slot).ceil().max(1.0) as usize;
    let left = 34 + ticks_width(&ticks, decimals) + 8;
    let frame = Frame {
        left,
        top: 20,
        right: left + plot_w,
        bottom: 20 + plot_h,
    };

    // Legend: title and one row per group, up to what fits beside the plot.
    let legend_title = truncate_px(&group, FS_AXIS, MAX_LEGEND_PX + 26.0);
    let max_rows = ((plot_h + 40 - 26) / LEGEND_ROW) as usize;
    let (shown, hidden) = if m > max_rows {
        (max_rows - 1, m - (max_rows - 1))
    } else {
        (m, 0)
    };
    let entries: Vec<String> = lines
        .iter()
        .take(shown)
        .map(|(l, _)| truncate_px(l, FS_TICK, MAX_LEGEND_PX))
        .collect();
    let legend_w = entries
        .iter()
        .map(|l| text_width(l, FS_TICK) + 30.0)
        .chain([text_width(&legend_title, FS_AXIS) + 4.0])
        .fold(0.0, f64::max)
        .ceil() as i32;
    let legend_left = frame.right + 24;
    let width = legend_left + legend_w + 12;
    let height = frame.bottom + 56;

    let raw = render(width as u32, height as u32, |area| {
        let y = Scale::new((lo, hi), (frame.bottom, frame.top));
        y_grid(area, &frame, &y, &ticks, decimals, true)?;
        for (i, l) in labels.iter().enumerate() {
            if i % every == 0 {
                let cx = f64::from(frame.left) + slot * (i as f64 + 0.5);
                let font = TICK.anchor(HPos::Center, VPos::Top);
                text(area, l, (cx.round() as i32, frame.bottom + 6), font)?;
            }
        }
        axes(area, &frame)?;
        draw_series(area, &frame, &y, slot, &lines, d.min_n)?;
        let font = AXIS.anchor(HPos::Center, VPos::Top);
        text(
            area,
            "human score (sc1)",
            (frame.center_x(), frame.bottom + 28),
            font,
        )?;
        let font = AXIS.anchor(HPos::Center, VPos::Top).rotated();
        let yt = truncate_px(&y_title, FS_AXIS, f64::from(plot_h));
        text(area, &yt, (10, frame.center_y()), font)?;

        draw_legend(
            area,
            &legend_title,
            (legend_left, frame.top),
            &entries,
            hidden,
        )?;
        Ok(())
    })?;
    Ok(finish(&raw, &name, &title, &description))
}

/// The extent of the y axis: the means and intervals, cut to
/// `d.y_limits` (the means themselves always stay in view).
fn limit(d: &ConditionalScores, vmin: f64, vmax: f64) -> (f64, f64) {
    let Some((a, b)) = d.y_limits else {
        return (vmin, vmax);
    };
    let means = d
        .series
        .iter()
        .flat_map(|(_, pts)| pts.iter().map(|p| p.0))
        .filter(|m| m.is_finite());
    let (mlo, mhi) = extent(means).unwrap_or((a, b));
    (vmin.max(a.min(mlo)), vmax.min(b.max(mhi)))
}

/// The sentence naming the cells below `d.min_n` (empty when none).
fn small_cells_note(d: &ConditionalScores) -> String {
    if d.min_n == 0 {
        return String::new();
    }
    let mut cells = Vec::new();
    for (group, pts) in &d.series {
        for (i, p) in pts.iter().enumerate() {
            if p.0.is_finite() && p.2 < d.min_n {
                let score = d
                    .human_scores
                    .get(i)
                    .map_or_else(String::new, |s| fmt_score(*s));
                cells.push(format!("{} at {score} (n={})", clean(group), p.2));
            }
        }
    }
    if cells.is_empty() {
        return String::new();
    }
    let shown = cells.len().min(12);
    let more = if cells.len() > shown {
        format!(" and {} more", cells.len() - shown)
    } else {
        String::new()
    };
    format!(
        " Hollow markers: fewer than {} responses ({}{more}); their means and intervals are \
         uncertain.",
        d.min_n,
        cells[..shown].join(", ")
    )
}

/// A series' legend label and its (mean, half-width, count) per human score.
type Line = (String, Vec<(f64, f64, usize)>);

/// Per series: its legend label (with its count) and, per human score,
/// (mean, half-width, count) with non-finite values turned into NaN.
fn series_lines(d: &ConditionalScores, n_x: usize) -> Vec<Line> {
    d.series
        .iter()
        .map(|(label, points)| {
            let total = points.iter().fold(0usize, |a, p| a.saturating_add(p.2));
            let n = format!(" (n={})", fmt_count(total));
            let room = MAX_LEGEND_PX - text_width(&n, FS_TICK);
            let label = format!("{}{n}", truncate_px(&clean(label), FS_TICK, room));
            let pts = (0..n_x)
                .map(|i| {
                    let (mean, hw, n) = points.get(i).copied().unwrap_or((f64::NAN, f64::NAN, 0));
                    let mean = if mean.is_finite() { mean } else { f64::NAN };
                    let hw = if hw.is_finite() { hw.abs() } else { f64::NAN };
                    (mean, hw, n)
                })
                .collect();
            (label, pts)
        })
        .collect()
}

/// One line per series through its available means (dodged sideways so
/// the error bars do not overlap), each mean with its error bar and marker.
fn draw_series(
    area: &Area,
    frame: &Frame,
    y: &Scale,
    slot: f64,
    lines: &[Line],
    min_n: usize,
) -> Result<()> {
    let m = lines.len();
    let dodge = (0.5 / m.max(1) as f64).min(0.08) * slot;
    for (s, (_, pts)) in lines.iter().enumerate() {
        let color = series(s);
        let offset = (s as f64 - (m as f64 - 1.0) / 2.0) * dodge;
        let px: Vec<Option<(i32, i32, f64)>> = pts
            .iter()
            .enumerate()
            .map(|(i, &(mean, hw, _))| {
                mean.is_finite().then(|| {
                    let cx = f64::from(frame.left) + slot * (i as f64 + 0.5) + offset;
                    (cx.round() as i32, y.px(mean), hw)
                })
            })
            .collect();
        // Lines between consecutive available points.
        let mut run: Vec<(i32, i32)> = Vec::new();
        for p in px.iter().chain([&None]) {
            match p {
                Some((x, py, _)) => run.push((*x, *py)),
                None => line(area, std::mem::take(&mut run), color, 2)?,
            }
        }
        for (i, p) in px.iter().enumerate() {
            let Some((x, py, hw)) = *p else { continue };
            if hw.is_finite() && hw > 0.0 {
                clipped_bar(area, y, x, pts[i].0, hw, color)?;
            }
            marker(area, s, (x, py), color)?;
            if pts[i].2 < min_n {
                // Hollow: the figure's background inside the marker.
                dot(area, (x, py), 2, super::theme::BG)?;
            }
        }
    }
    Ok(())
}

/// The error bar `mean ± hw` at `x`, cut to the axis: an end inside the
/// axis gets its cap, an end beyond it an arrow head at the axis' edge.
fn clipped_bar(area: &Area, y: &Scale, x: i32, mean: f64, hw: f64, color: RGBColor) -> Result<()> {
    let (d_lo, d_hi) = (y.d0.min(y.d1), y.d0.max(y.d1));
    let (lo, hi) = (mean - hw, mean + hw);
    if lo >= d_lo && hi <= d_hi {
        return error_bar(area, (x, y.px(lo)), (x, y.px(hi)), 3, color);
    }
    let (a, b) = (y.px(lo.max(d_lo)), y.px(hi.min(d_hi)));
    line(area, vec![(x, a), (x, b)], color, 1)?;
    for (px, out) in [(a, lo < d_lo), (b, hi > d_hi)] {
        if out {
            // Pointing away from the mean, towards where the bar goes on.
            let dir = if px > y.px(mean) { 1 } else { -1 };
            polygon(
                area,
                vec![(x - 4, px - 6 * dir), (x + 4, px - 6 * dir), (x, px)],
                color,
            )?;
        } else {
            line(area, vec![(x - 3, px), (x + 3, px)], color, 1)?;
        }
    }
    Ok(())
}

/// The legend: its title at `(legend_left, top)`, one row per shown
/// series, and `… and N more` when `hidden` series did not fit.
fn draw_legend(
    area: &Area,
    legend_title: &str,
    (legend_left, top): (i32, i32),
    entries: &[String],
    hidden: usize,
) -> Result<()> {
    let font = TITLE.anchor(HPos::Left, VPos::Top);
    let font = super::draw::Font {
        size: FS_AXIS,
        ..font
    };
    text(area, legend_title, (legend_left, top), font)?;
    for (s, label) in entries.iter().enumerate() {
        let cy = top + 26 + s as i32 * LEGEND_ROW + LEGEND_ROW / 2;
        let color = series(s);
        line(
            area,
            vec![(legend_left, cy), (legend_left + 20, cy)],
            color,
            2,
        )?;
        marker(area, s, (legend_left + 10, cy), color)?;
        let font = TICK.anchor(HPos::Left, VPos::Center);
        text(area, label, (legend_left + 28, cy), font)?;
    }
    if hidden > 0 {
        let cy = top + 26 + entries.len() as i32 * LEGEND_ROW + LEGEND_ROW / 2;
        let font = TICK.anchor(HPos::Left, VPos::Center);
        text(
            area,
            &format!("… and {hidden} more"),
            (legend_left, cy),
            font,
        )?;
    }
    Ok(())
}

/// The marker of series `s`: circles for the first palette cycle, then
/// squares, then triangles.
fn marker(area: &Area, s: usize, (x, y): (i32, i32), color: RGBColor) -> Result<()> {
    match (s / SERIES.len()) % 3 {
        0 => dot(area, (x, y), 4, color),
        1 => rect(area, (x - 4, y - 4), (x + 4, y + 4), color),
        _ => polygon(
            area,
            vec![(x, y - 5), (x + 5, y + 4), (x - 5, y + 4)],
            color,
        ),
    }
}
