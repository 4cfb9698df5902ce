//! Plots stage: the trend of one statistic across model versions
//! (`summarize`, compare spec 3): one point per version with its interval
//! bar, the versions in the summary's order on the x axis, the baseline's
//! estimate as a dashed line. Draws only what it is given; touches nothing
//! outside `src/plots/`.

use anyhow::Result;
use plotters::style::text_anchor::{HPos, VPos};

use super::draw::{
    axes, clamp_px, dot, error_bar, extent, line, nice_domain, no_data, ref_hline, render, text,
    ticks_width, y_grid, Frame, Scale, AXIS, FS_TICK, TICK, TITLE,
};
use super::text::{clean, text_width, truncate_px};
use super::theme::{finish, series, FG};
use super::{Figure, Trend};

const LABEL_PX: f64 = 110.0;

/// The trend figure `trend_<statistic>`.
pub fn trend(d: &Trend) -> Result<Figure> {
    let stat = clean(&d.statistic);
    let name = format!("trend_{}", d.statistic);
    let title = format!("{stat} across versions");
    let labels: Vec<String> = d
        .labels
        .iter()
        .map(|l| truncate_px(&clean(l), FS_TICK, LABEL_PX))
        .collect();
    let description = format!(
        "{stat} of {} versions in order ({}), each with its interval where it has one; the \
         dashed line is the baseline's estimate.",
        labels.len(),
        labels.join(", ")
    );
    let all = d.values.iter().flat_map(|&(e, lo, hi)| [e, lo, hi]);
    let Some((lo, hi)) = extent(all) else {
        return no_data(&name, &title, &description, "No value to plot");
    };
    let (d0, d1, ticks, decimals) = nice_domain(lo, hi, 5);
    let slot = clamp_px(
        LABEL_PX.min(600.0 / labels.len().max(1) as f64 + 40.0),
        60,
        120,
    );
    let left = 24 + ticks_width(&ticks, decimals) + 10;
    let f = Frame {
        left,
        top: 34,
        right: left + slot * labels.len() as i32,
        bottom: 34 + 180,
    };
    let slanted = labels
        .iter()
        .any(|l| text_width(l, FS_TICK) > f64::from(slot) - 8.0);
    let height = f.bottom + if slanted { 100 } else { 40 };
    let y = Scale::new((d0, d1), (f.bottom, f.top));
    let raw = render((f.right + 20) as u32, height as u32, |area| {
        text(area, &title, (8, 8), TITLE)?;
        let font = AXIS.anchor(HPos::Center, VPos::Center).rotated();
        text(area, &stat, (10, f.center_y()), font)?;
        y_grid(area, &f, &y, &ticks, decimals, true)?;
        if let Some(&(b, _, _)) = d.values.get(d.baseline).filter(|v| v.0.is_finite()) {
            ref_hline(area, &f, &y, b)?;
        }
        axes(area, &f)?;
        let x = |i: usize| f.left + slot * i as i32 + slot / 2;
        let points: Vec<(i32, i32)> = d
            .values
            .iter()
            .enumerate()
            .filter(|(_, v)| v.0.is_finite())
            .map(|(i, v)| (x(i), y.px(v.0)))
            .collect();
        line(area, points, series(0), 1)?;
        for (i, &(e, lo, hi)) in d.values.iter().enumerate() {
            if lo.is_finite() && hi.is_finite() {
                error_bar(area, (x(i), y.px(lo)), (x(i), y.px(hi)), 4, FG)?;
            }
            if e.is_finite() {
                dot(area, (x(i), y.px(e)), 4, series(0))?;
            }
            let font = if slanted {
                TICK.anchor(HPos::Right, VPos::Center).rotated()
            } else {
                TICK.anchor(HPos::Center, VPos::Top)
            };
            text(area, &labels[i], (x(i), f.bottom + 6), font)?;
        }
        Ok(())
    })?;
    Ok(finish(&raw, &name, &title, &description))
}
