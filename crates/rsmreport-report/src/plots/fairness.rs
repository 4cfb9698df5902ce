//! Plots stage, figure 6.3: fairness model estimates (OSA, OSD, CSD) as
//! three panels of horizontal bars with 95% error bars. Draws only the
//! estimates it is given; touches nothing outside `src/plots/`.

use anyhow::Result;
use plotters::style::text_anchor::{HPos, VPos};

use super::draw::{
    error_bar, extent, line, nice_domain, no_data, rect, render, text, x_grid, Font, Frame, Scale,
    AXIS, FS_TICK, TICK, TITLE,
};
use super::text::{clean, text_width, truncate_px};
use super::theme::{finish, series, BG, FG, MUTED, SERIES};
use super::{FairnessEstimates, Figure};

const PANEL_W: i32 = 230;

/// A panel: heading, meaning in words, rows of (label, value, half-width).
type Model = (String, String, Vec<(String, f64, f64)>);
const GAP: i32 = 40;
const MAX_LABEL_PX: f64 = 220.0;

/// Figure 6.3 (`fairness_estimates_<group>`): one panel per model in the
/// given order (`osa`, `osd`, `csd`), sharing the x axis; one horizontal
/// bar per table row (first row at the bottom), bar = adjusted estimate,
/// error bar = +/- the 95% half-width. Non-finite values draw nothing.
pub fn fairness_estimates(d: &FairnessEstimates) -> Result<Figure> {
    let group = clean(&d.group);
    let name = format!("fairness_estimates_{}", d.group);
    let title = format!("Fairness model estimates by {group}");
    let models = models_of(d);
    let description = describe(&group, &models);
    let ends = models.iter().flat_map(|(_, _, rows)| {
        rows.iter().flat_map(|(_, v, hw)| {
            let hw = if hw.is_finite() { *hw } else { 0.0 };
            [*v, *v - hw, *v + hw]
        })
    });
    let Some((vmin, vmax)) = extent(ends) else {
        return no_data(&name, &title, &description, "No fairness estimates to plot");
    };

    let (lo, hi) = (vmin.min(0.0), vmax.max(0.0));
    let (lo, hi) = super::draw::sane_range(lo, hi);
    let (lo, hi, ticks, decimals) = nice_domain(lo, hi, 4);

    let n_rows = models.iter().map(|m| m.2.len()).max().unwrap_or(0).max(1);
    let shared = models.windows(2).all(|w| {
        w[0].2.len() == w[1].2.len() && w[0].2.iter().zip(&w[1].2).all(|(a, b)| a.0 == b.0)
    });
    let label_w = models
        .iter()
        .flat_map(|m| m.2.iter())
        .map(|r| text_width(&r.0, FS_TICK))
        .fold(0.0, f64::max)
        .min(MAX_LABEL_PX)
        .ceil() as i32;
    // Rows of 30 px, shrinking to 14 px for many rows; beyond that the plot
    // stops growing and only every few labels are written.
    let n = n_rows as f64;
    let row_h = (620.0 / n).clamp(14.0, 30.0).min(1100.0 / n);
    let g = Geometry {
        lo,
        hi,
        ticks,
        decimals,
        row_h,
        label_every: (14.0 / row_h).ceil().max(1.0) as usize,
        plot_h: (row_h * n).round() as i32,
        label_area: label_w + 10,
        shared,
    };
    let raw = draw(&models, &group, &g, false)?;
    let mut figure = finish(&raw, &name, &title, &description);
    if models.len() > 1 {
        let raw = draw(&models, &group, &g, true)?;
        figure.narrow_svg = Some(finish(&raw, &format!("{name}-narrow"), &title, &description).svg);
    }
    Ok(figure)
}

/// What both layouts share: the x domain, the rows and the label room.
struct Geometry {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
    decimals: usize,
    row_h: f64,
    label_every: usize,
    plot_h: i32,
    label_area: i32,
    /// Every panel has the same rows: their labels are written once.
    shared: bool,
}

/// The panels side by side sharing the x axis (labels once when the rows
/// are shared), or `stacked` in one column, each with its labels and axis.
fn draw(models: &[Model], group: &str, g: &Geometry, stacked: bool) -> Result<String> {
    let panel_stride = PANEL_W + GAP + if g.shared { 0 } else { g.label_area };
    let first_left = 26 + g.label_area;
    let band = 46 + g.plot_h + 62;
    let n_panels = models.len() as i32;
    let (width, height) = if stacked {
        (first_left + PANEL_W + 16, n_panels * band)
    } else {
        (first_left + n_panels * panel_stride - GAP + 16, band)
    };
    render(width as u32, height as u32, |area| {
        for (p, model) in models.iter().enumerate() {
            let (left, top) = if stacked {
                (first_left, p as i32 * band + 46)
            } else {
                (first_left + p as i32 * panel_stride, 46)
            };
            let frame = Frame {
                left,
                top,
                right: left + PANEL_W,
                bottom: top + g.plot_h,
            };
            draw_panel(area, &frame, model, g, p == 0 || !g.shared || stacked)?;
            if stacked || p + 1 == models.len() {
                let centre = (first_left + frame.right) / 2;
                let font = AXIS.anchor(HPos::Center, VPos::Top);
                text(area, "Error estimate", (centre, top + g.plot_h + 30), font)?;
                let font = AXIS.anchor(HPos::Center, VPos::Top).rotated();
                let name = truncate_px(group, super::draw::FS_AXIS, f64::from(g.plot_h.max(60)));
                text(area, &name, (8, top + g.plot_h / 2), font)?;
            }
        }
        Ok(())
    })
}

/// One model's panel in `frame`: grid, bars with error bars, the row
/// labels (when `labelled`), the zero line, the axis and the headings.
fn draw_panel(
    area: &super::draw::Area,
    frame: &Frame,
    (short, long, rows): &Model,
    g: &Geometry,
    labelled: bool,
) -> Result<()> {
    let x = Scale::new((g.lo, g.hi), (frame.left, frame.right));
    x_grid(area, frame, &x, &g.ticks, g.decimals, true)?;
    let bar_h = (g.row_h * 0.66).clamp(1.0, 22.0);
    for (i, (label, v, hw)) in rows.iter().enumerate() {
        let cy = f64::from(frame.bottom) - g.row_h * (i as f64 + 0.5);
        let t = (cy - bar_h / 2.0).round() as i32;
        let b = ((cy + bar_h / 2.0).round() as i32).max(t + 1);
        let cyi = cy.round() as i32;
        if v.is_finite() {
            rect(area, (x.px(0.0), t), (x.px(*v), b), bar_color(i))?;
            if hw.is_finite() {
                let (l, r) = (x.px(v - hw), x.px(v + hw));
                // No caps and no halo on rows too thin to show them.
                let cap = ((bar_h * 0.35).round() as i32).min(6);
                let cap = if cap < 2 { 0 } else { cap };
                if cap > 0 {
                    // A 3 px halo in `--bg` keeps the error bar visible
                    // over any bar colour, in light and dark themes.
                    halo(area, (l, cyi), (r, cyi), cap)?;
                }
                error_bar(area, (l, cyi), (r, cyi), cap, FG)?;
            }
        } else {
            let font = Font::new(9.0, MUTED).anchor(HPos::Left, VPos::Center);
            text(area, "n/a", (x.px(0.0) + 3, cyi), font)?;
        }
        if labelled && i % g.label_every == 0 {
            let l = truncate_px(label, FS_TICK, MAX_LABEL_PX);
            let font = TICK.anchor(HPos::Right, VPos::Center);
            text(area, &l, (frame.left - 6, cyi), font)?;
        }
    }
    let zero = x.px(0.0);
    line(area, vec![(zero, frame.top), (zero, frame.bottom)], FG, 1)?;
    line(
        area,
        vec![(frame.left, frame.bottom), (frame.right, frame.bottom)],
        FG,
        1,
    )?;
    let font = TITLE.anchor(HPos::Center, VPos::Bottom);
    let head = truncate_px(short, super::draw::FS_TITLE, f64::from(PANEL_W));
    text(area, &head, (frame.center_x(), frame.top - 22), font)?;
    let font = TICK.anchor(HPos::Center, VPos::Bottom);
    let sub = truncate_px(long, FS_TICK, f64::from(PANEL_W));
    text(area, &sub, (frame.center_x(), frame.top - 7), font)?;
    Ok(())
}

/// The panels: per model its short and long name and its rows (label,
/// estimate, half-width), non-finite values as NaN.
fn models_of(d: &FairnessEstimates) -> Vec<Model> {
    d.models
        .iter()
        .map(|(m, bars)| {
            let (short, long) = model_names(m);
            let rows = bars
                .iter()
                .map(|b| {
                    let v = if b.value.is_finite() {
                        b.value
                    } else {
                        f64::NAN
                    };
                    let hw = if b.half_width.is_finite() {
                        b.half_width.abs()
                    } else {
                        f64::NAN
                    };
                    (clean(&b.label), v, hw)
                })
                .collect();
            (short, long, rows)
        })
        .collect()
}

/// The figure's description in words: the models and what the bars show.
fn describe(group: &str, models: &[Model]) -> String {
    format!(
        "Estimates of the fairness models ({}) by {group}, one horizontal bar per group \
         (first table row at the bottom; the intercept row is the reference group, the \
         other rows are adjusted by the intercept), with 95% confidence intervals as \
         error bars.",
        if models.is_empty() {
            "none".to_string()
        } else {
            models
                .iter()
                .map(|(s, l, _)| {
                    if l.is_empty() {
                        s.clone()
                    } else {
                        format!("{s}: {l}")
                    }
                })
                .collect::<Vec<_>>()
                .join("; ")
        }
    )
}

/// The error bar's outline in the background colour.
fn halo(area: &super::draw::Area, (l, y): (i32, i32), (r, _): (i32, i32), cap: i32) -> Result<()> {
    let points = vec![
        (l, y - cap),
        (l, y + cap),
        (l, y),
        (r, y),
        (r, y - cap),
        (r, y + cap),
    ];
    line(area, points, BG, 3)
}

/// Bar colour of row `i`: the palette without its last colour (black),
/// which would hide the error bar drawn in `--fg`.
fn bar_color(i: usize) -> plotters::style::RGBColor {
    series(i % (SERIES.len() - 1))
}

/// Panel heading and its meaning in words.
fn model_names(model: &str) -> (String, String) {
    let model = clean(model);
    let long = match model.to_ascii_lowercase().as_str() {
        "osa" => "Overall score accuracy",
        "osd" => "Overall score difference",
        "csd" => "Conditional score difference",
        _ => "",
    };
    (model.to_uppercase(), long.to_string())
}
