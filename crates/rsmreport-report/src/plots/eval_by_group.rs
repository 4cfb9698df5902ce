//! Plots stage, figure 6.2: six metrics by subgroup as bar panels. Draws
//! only the aggregates it is given; touches nothing outside `src/plots/`.

use anyhow::Result;
use plotters::style::text_anchor::{HPos, VPos};

use super::draw::{
    axes, clamp_px, error_bar, extent, nice_ticks, no_data, rect, ref_hline, render, text,
    ticks_width, y_grid, Area, Font, Frame, Scale, FS_TICK, LINE, TICK, TITLE,
};
use super::text::{clean, text_width, truncate_px, wrap};
use super::theme::{finish, series, FG, MUTED};
use super::{EvalByGroup, Figure};

/// Characters per line of a wrapped group label (as the reference).
const WRAP: usize = 20;
/// At most this many lines per group label.
const MAX_LINES: usize = 3;
const PANEL_TITLE_H: i32 = 28;

/// Figure 6.2 (`eval_by_<group>`): one bar panel per metric column (in the
/// given order), one bar per group label. Layout 2 x 3 panels for up to six
/// bars, else 1 x 6 with the group labels under the bottom panel only.
/// Missing (non-finite) values draw no bar but a small "n/a" mark.
pub fn eval_by_group(d: &EvalByGroup) -> Result<Figure> {
    let group = clean(&d.group);
    let name = format!("eval_by_{}", d.group);
    let title = format!("Evaluation by {group}");
    let labels: Vec<String> = d.labels.iter().map(|l| clean(l)).collect();
    let k = labels.len();
    let metric_list: Vec<String> = d.panels.iter().map(|(m, _)| clean(m)).collect();
    let bars = if d.intervals.is_empty() {
        ""
    } else {
        " Error bars show confidence intervals."
    };
    let description = format!(
        "Bar charts of {} for each of {k} groups of {group} ({}). Dashed lines mark \
         reference values: 0.7 for correlation and weighted kappa, plus and minus 0.1 for \
         DSM, and 0 when a panel has negative values.{bars}",
        if metric_list.is_empty() {
            "no metrics".to_string()
        } else {
            metric_list.join(", ")
        },
        preview_list(&labels)
    );
    let panels: Vec<Panel> = d
        .panels
        .iter()
        .enumerate()
        .map(|(j, (column, values))| {
            let ci = d.intervals.get(j).map_or(&[][..], Vec::as_slice);
            Panel::new(column, values, ci, k, &group)
        })
        .collect();
    if k == 0 || panels.iter().all(|p| p.extent.is_none()) {
        return no_data(
            &name,
            &title,
            &description,
            "No evaluation by group to plot",
        );
    }

    // Up to six groups: 2 x 3 panels, and a stacked copy for narrow
    // screens; more: one column of wide panels.
    let small = k <= 6;
    let raw = draw(&panels, &labels, if small { 2 } else { 1 }, small)?;
    let mut figure = finish(&raw, &name, &title, &description);
    if small && panels.len() > 1 {
        let raw = draw(&panels, &labels, 1, small)?;
        figure.narrow_svg = Some(finish(&raw, &format!("{name}-narrow"), &title, &description).svg);
    }
    Ok(figure)
}

/// The panels in `cols` columns (`small`: up to six groups, narrow panels
/// with the group labels under each; else wide panels with the labels under
/// the last row only); plotters' raw SVG.
fn draw(panels: &[Panel], labels: &[String], cols: usize, small: bool) -> Result<String> {
    let k = labels.len();
    let rows = panels.len().div_ceil(cols);
    let plot_w = if small {
        clamp_px(k as f64 * 62.0, 200, 380)
    } else {
        clamp_px(k as f64 * 34.0, 520, 1040)
    };
    let plot_h = if small { 150 } else { 130 };
    let slot = f64::from(plot_w) / k as f64;
    let layout = LabelLayout::new(labels, slot);

    let tick_w = panels
        .iter()
        .map(|p| ticks_width(&p.ticks, p.decimals))
        .max()
        .unwrap_or(20);
    let inner_left = tick_w + 12;
    let panel_w = inner_left + plot_w + 18;
    let labels_in_row = |row: usize| small || row + 1 == rows;
    let row_h = |row: usize| {
        PANEL_TITLE_H
            + plot_h
            + if labels_in_row(row) {
                layout.height + 10
            } else {
                16
            }
    };
    let width = cols as i32 * panel_w + 16;
    let height: i32 = (0..rows).map(row_h).sum::<i32>() + 12;

    let raw = render(width as u32, height as u32, |area| {
        let mut top = 8;
        for row in 0..rows {
            for col in 0..cols {
                let Some(panel) = panels.get(row * cols + col) else {
                    continue;
                };
                let left = 8 + col as i32 * panel_w + inner_left;
                let frame = Frame {
                    left,
                    top: top + PANEL_TITLE_H,
                    right: left + plot_w,
                    bottom: top + PANEL_TITLE_H + plot_h,
                };
                panel.draw(area, &frame, slot)?;
                if labels_in_row(row) {
                    layout.draw(area, &frame, slot)?;
                }
            }
            top += row_h(row);
        }
        Ok(())
    })?;
    Ok(raw)
}

/// The first few labels, for the description.
fn preview_list(labels: &[String]) -> String {
    let mut shown: Vec<String> = labels
        .iter()
        .take(6)
        .map(|l| super::text::truncate(l, 40))
        .collect();
    if labels.len() > 6 {
        shown.push(format!("and {} more", labels.len() - 6));
    }
    shown.join(", ")
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Metric {
    Dsm,
    R2,
    Rmse,
    Corr,
    WtKappa,
    Other,
}

struct Panel {
    title: String,
    metric: Metric,
    values: Vec<f64>,
    /// `(lower, upper)` per bar; NaN ends draw no error bar.
    ci: Vec<(f64, f64)>,
    extent: Option<(f64, f64)>,
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
    decimals: usize,
}

impl Panel {
    fn new(column: &str, values: &[f64], ci: &[(f64, f64)], k: usize, group: &str) -> Self {
        let column = clean(column);
        let metric = match column.split('.').next().unwrap_or("") {
            "DSM" => Metric::Dsm,
            "R2" => Metric::R2,
            "RMSE" => Metric::Rmse,
            "corr" => Metric::Corr,
            "wtkappa" => Metric::WtKappa,
            _ => Metric::Other,
        };
        let values: Vec<f64> = (0..k)
            .map(|i| values.get(i).copied().unwrap_or(f64::NAN))
            .map(|v| if v.is_finite() { v } else { f64::NAN })
            .collect();
        let ci: Vec<(f64, f64)> = (0..k)
            .map(|i| ci.get(i).copied().unwrap_or((f64::NAN, f64::NAN)))
            .map(|(a, b)| {
                if a.is_finite() && b.is_finite() {
                    (a, b)
                } else {
                    (f64::NAN, f64::NAN)
                }
            })
            .collect();
        let extent = extent(
            values
                .iter()
                .copied()
                .chain(ci.iter().flat_map(|&(a, b)| [a, b])),
        );
        let (vmin, vmax) = extent.unwrap_or((0.0, 0.0));
        let (lo, hi) = match metric {
            Metric::Corr | Metric::WtKappa => (if vmin < 0.0 { -1.0 } else { 0.0 }, 1.0),
            Metric::R2 => (if vmin < 0.0 { vmin - 0.1 } else { 0.0 }, 1.0),
            Metric::Rmse => (0.0, (vmax + 0.1).max(1.0)),
            Metric::Dsm | Metric::Other => {
                let (mut lo, mut hi) = (vmin.min(0.0), vmax.max(0.0));
                if metric == Metric::Dsm {
                    lo = lo.min(-0.1);
                    hi = hi.max(0.1);
                }
                let pad = 0.1 * (hi - lo);
                (lo - pad, hi + pad)
            }
        };
        let (lo, hi) = super::draw::sane_range(lo, hi);
        let (ticks, decimals) = nice_ticks(lo, hi, 5);
        Panel {
            title: format!("{column} by {group}"),
            metric,
            values,
            ci,
            extent,
            lo,
            hi,
            ticks,
            decimals,
        }
    }

    fn draw(&self, area: &Area, frame: &Frame, slot: f64) -> Result<()> {
        let y = Scale::new((self.lo, self.hi), (frame.bottom, frame.top));
        y_grid(area, frame, &y, &self.ticks, self.decimals, true)?;
        let base = y.px(0.0);
        let bar_w = (slot * 0.7).clamp(2.0, 56.0);
        for (i, v) in self.values.iter().enumerate() {
            let cx = f64::from(frame.left) + slot * (i as f64 + 0.5);
            let l = (cx - bar_w / 2.0).round() as i32;
            let r = ((cx + bar_w / 2.0).round() as i32).max(l + 1);
            if v.is_finite() {
                rect(area, (l, y.px(*v)), (r, base), series(0))?;
                let (lo, hi) = self.ci[i];
                if lo.is_finite() {
                    let x = cx.round() as i32;
                    let cap = ((bar_w / 4.0).round() as i32).clamp(2, 6);
                    error_bar(area, (x, y.px(lo)), (x, y.px(hi)), cap, FG)?;
                }
            } else {
                let font = Font::new(9.0, MUTED).anchor(HPos::Center, VPos::Bottom);
                text(area, "n/a", (cx.round() as i32, base - 2), font)?;
            }
        }
        let negative = self.extent.is_some_and(|(lo, _)| lo < 0.0);
        let mut refs: Vec<f64> = match self.metric {
            Metric::Corr | Metric::WtKappa => vec![0.7],
            Metric::Dsm => vec![0.1, -0.1],
            _ => vec![],
        };
        if negative && self.metric != Metric::Rmse {
            refs.push(0.0);
        }
        for v in refs {
            ref_hline(area, frame, &y, v)?;
        }
        axes(area, frame)?;
        let title = truncate_px(
            &self.title,
            super::draw::FS_TITLE,
            f64::from(frame.width() + 30),
        );
        let font = TITLE.anchor(HPos::Center, VPos::Bottom);
        text(area, &title, (frame.center_x(), frame.top - 10), font)
    }
}

/// How group labels are drawn under a panel: horizontal lines when every
/// wrapped label fits its slot, else rotated to read bottom to top (also
/// `bars`' category labels).
pub(crate) struct LabelLayout {
    lines: Vec<Vec<String>>,
    rotated: bool,
    pub(crate) height: i32,
}

impl LabelLayout {
    pub(crate) fn new(labels: &[String], slot: f64) -> Self {
        let line_h = FS_TICK * LINE;
        let widest = |lines: &[Vec<String>]| {
            lines
                .iter()
                .flatten()
                .map(|l| text_width(l, FS_TICK))
                .fold(0.0, f64::max)
        };
        // Horizontal when every label wraps into at most three lines that fit
        // the slot, without breaking a word.
        let fit = ((slot - 6.0) / (0.6 * FS_TICK)).floor().max(0.0) as usize;
        let width = fit.min(WRAP);
        if width >= 3 {
            let wrapped: Vec<Vec<String>> =
                labels.iter().map(|l| wrap(l, width, MAX_LINES)).collect();
            let intact = labels
                .iter()
                .zip(&wrapped)
                .all(|(l, w)| w.join(" ") == l.split_whitespace().collect::<Vec<_>>().join(" "));
            if intact && widest(&wrapped) <= slot - 4.0 {
                let n = wrapped.iter().map(Vec::len).max().unwrap_or(1);
                return LabelLayout {
                    lines: wrapped,
                    rotated: false,
                    height: (n as f64 * line_h).ceil() as i32 + 8,
                };
            }
        }
        let fit = (((slot - 2.0) / line_h).floor() as usize).clamp(1, MAX_LINES);
        let lines: Vec<Vec<String>> = labels.iter().map(|l| wrap(l, WRAP, fit)).collect();
        LabelLayout {
            height: widest(&lines).ceil() as i32 + 8,
            lines,
            rotated: true,
        }
    }

    pub(crate) fn draw(&self, area: &Area, frame: &Frame, slot: f64) -> Result<()> {
        let line_h = FS_TICK * LINE;
        for (i, lines) in self.lines.iter().enumerate() {
            let cx = f64::from(frame.left) + slot * (i as f64 + 0.5);
            let m = lines.len() as f64;
            for (j, l) in lines.iter().enumerate() {
                if self.rotated {
                    let x = cx + (j as f64 - (m - 1.0) / 2.0) * line_h;
                    let font = TICK.anchor(HPos::Right, VPos::Center).rotated();
                    text(area, l, (x.round() as i32, frame.bottom + 6), font)?;
                } else {
                    let y = f64::from(frame.bottom + 6) + j as f64 * line_h;
                    let font = TICK.anchor(HPos::Center, VPos::Top);
                    text(area, l, (cx.round() as i32, y.round() as i32), font)?;
                }
            }
        }
        Ok(())
    }
}
