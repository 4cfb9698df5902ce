//! Plots stage, figure 6.1: human and machine score distributions as
//! grouped vertical bars. Draws only the aggregates it is given; touches
//! nothing outside `src/plots/`.

use anyhow::Result;
use plotters::style::text_anchor::{HPos, VPos};

use super::draw::{
    axes, clamp_px, extent, nice_ticks, no_data, rect, render, text, ticks_width, y_grid, Frame,
    Scale, AXIS, FS_TICK, TICK,
};
use super::text::{fmt_score, text_width};
use super::theme::{finish, series};
use super::{Figure, ScoreDistribution};

const NAME: &str = "score_dist";
const TITLE: &str = "Score distributions";

/// Figure 6.1 (`score_dist`): for each score label, the percentage of
/// responses with that human score and with that (trimmed, rounded) machine
/// score, as two adjacent bars. Non-finite percentages draw no bar.
pub fn score_distribution(d: &ScoreDistribution) -> Result<Figure> {
    let n = d.scores.len().min(d.human.len()).min(d.machine.len());
    let description = format!(
        "Grouped bar chart: for each of {n} score levels, the percentage of responses \
         with that human score and with that machine score (trimmed and rounded)."
    );
    let bars: Vec<(f64, f64, f64)> = (0..n)
        .map(|i| (d.scores[i], d.human[i], d.machine[i]))
        .collect();
    let values = bars.iter().flat_map(|b| [b.1, b.2]);
    let Some((vmin, vmax)) = extent(values) else {
        return no_data(NAME, TITLE, &description, "No score distribution to plot");
    };

    let lo = vmin.min(0.0);
    let hi = if vmax > 0.0 { vmax * 1.1 } else { 1.0 };
    let (ticks, decimals) = nice_ticks(lo, hi, 5);
    let hi = ticks.last().copied().unwrap_or(hi).max(hi);

    let labels: Vec<String> = bars.iter().map(|b| fmt_score(b.0)).collect();
    let label_w = labels
        .iter()
        .map(|l| text_width(l, FS_TICK))
        .fold(0.0, f64::max);

    let plot_w = clamp_px(n as f64 * 56.0, 280, 820);
    let left = 34 + ticks_width(&ticks, decimals) + 8;
    let frame = Frame {
        left,
        top: 40,
        right: left + plot_w,
        bottom: 40 + 230,
    };
    let width = (frame.right + 20) as u32;
    let height = (frame.bottom + 50) as u32;
    let slot = f64::from(plot_w) / n as f64;
    let every = ((label_w + 8.0) / slot).ceil().max(1.0) as usize;

    let raw = render(width, height, |area| {
        let y = Scale::new((lo, hi), (frame.bottom, frame.top));
        y_grid(area, &frame, &y, &ticks, decimals, true)?;
        let base = y.px(0.0);
        for (i, (_, human, machine)) in bars.iter().enumerate() {
            let x0 = f64::from(frame.left) + slot * i as f64;
            let px = |t: f64| (x0 + slot * t).round() as i32;
            for (j, v) in [*human, *machine].into_iter().enumerate() {
                if !v.is_finite() {
                    continue;
                }
                let (l, r) = if j == 0 {
                    (px(0.1), px(0.5) - 1)
                } else {
                    (px(0.5) + 1, px(0.9))
                };
                rect(area, (l, y.px(v)), (r.max(l + 1), base), series(j))?;
            }
            if i % every == 0 {
                let font = TICK.anchor(HPos::Center, VPos::Top);
                text(area, &labels[i], (px(0.5), frame.bottom + 6), font)?;
            }
        }
        axes(area, &frame)?;
        let font = AXIS.anchor(HPos::Center, VPos::Top);
        text(area, "score", (frame.center_x(), frame.bottom + 28), font)?;
        let font = AXIS.anchor(HPos::Center, VPos::Top).rotated();
        text(area, "% of responses", (10, frame.center_y()), font)?;
        legend(area, frame.right, 14)
    })?;
    Ok(finish(&raw, NAME, TITLE, &description))
}

/// "Human" and "Machine" swatches, right-aligned at `right`.
fn legend(area: &super::draw::Area, right: i32, y: i32) -> Result<()> {
    let entries = ["Human", "Machine"];
    let widths: Vec<i32> = entries
        .iter()
        .map(|s| text_width(s, FS_TICK).ceil() as i32)
        .collect();
    let total: i32 = widths.iter().map(|w| 11 + 5 + w + 16).sum::<i32>() - 16;
    let mut x = right - total;
    for (i, (label, w)) in entries.iter().zip(&widths).enumerate() {
        rect(area, (x, y - 5), (x + 11, y + 6), series(i))?;
        let font = TICK.anchor(HPos::Left, VPos::Center);
        text(area, label, (x + 16, y), font)?;
        x += 11 + 5 + w + 16;
    }
    Ok(())
}
