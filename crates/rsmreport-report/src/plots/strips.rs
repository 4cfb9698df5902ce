//! Plots stage: distributions of values on a linear or a log scale, one
//! strip per row (a dot per value, spread vertically by a fixed pattern, or
//! a histogram of evenly spaced bins when a row has many values), with
//! marker lines for summary values of each row (legend on top). `sequence`
//! draws its sentence scores with it (the corpus score marked) and its
//! per-sequence perplexities on a log scale (the token-weighted, geometric
//! and arithmetic mean perplexities marked). Draws only the values it is
//! given; touches nothing outside `src/plots/`.

use anyhow::Result;
use plotters::style::text_anchor::{HPos, VPos};

use super::draw::{
    axes, dot, line, nice_domain, no_data, rect_alpha, render, text, x_grid, Area, Frame, Scale,
    AXIS, FS_TICK, TICK,
};
use super::text::{clean, fmt_tick, text_width, truncate_px};
use super::theme::{finish, series, GRID};
use super::versions::legend;
use super::Figure;

/// Rows of values and per-row marker values.
#[derive(Clone, Debug, PartialEq)]
pub struct Strips {
    /// File stem of the figure.
    pub name: String,
    pub title: String,
    /// The SVG `<desc>` (what is shown, in words).
    pub description: String,
    /// The x axis title.
    pub axis: String,
    /// What a dot is, for the legend (`one sequence`).
    pub dot: String,
    /// A log10 axis (values that are not positive are left out).
    pub log: bool,
    /// `(label, values)` top to bottom; values that are not finite are
    /// left out.
    pub rows: Vec<(String, Vec<f64>)>,
    /// `(name, value per row)`: a short vertical line in its own colour
    /// (series 2, 3, ...) across each row; NaN: none.
    pub markers: Vec<(String, Vec<f64>)>,
}

const ROW_H: i32 = 44;
const PLOT_W: i32 = 560;
/// The plot's width in the copy for narrow screens.
const NARROW_W: i32 = 400;
const LEGEND_H: i32 = 30;
/// Rows with more values than this get a histogram instead of dots.
const MAX_DOTS: usize = 400;
const BINS: usize = 40;

/// The figure (`name`), or a note when no value can be drawn.
pub fn strips(d: &Strips) -> Result<Figure> {
    let usable = |v: &f64| v.is_finite() && (*v > 0.0 || !d.log);
    let all = d
        .rows
        .iter()
        .flat_map(|(_, v)| v.iter())
        .chain(d.markers.iter().flat_map(|(_, v)| v.iter()))
        .copied()
        .filter(usable);
    let (lo, hi) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    if !lo.is_finite() {
        return no_data(&d.name, &d.title, &d.description, "No values to plot");
    }
    let (lo, hi, ticks, decimals) = if d.log {
        let (lo, hi, ticks) = log_ticks(lo, hi);
        (lo, hi, ticks, None)
    } else {
        let (lo, hi, ticks, decimals) = nice_domain(lo, hi, 6);
        (lo, hi, ticks, Some(decimals))
    };
    let labels: Vec<String> = d
        .rows
        .iter()
        .map(|(l, _)| truncate_px(&clean(l), FS_TICK, 180.0))
        .collect();
    let label_w = labels
        .iter()
        .map(|l| text_width(l, FS_TICK))
        .fold(0.0, f64::max)
        .ceil() as i32;
    // The figure at full width, and narrower for small screens (the page
    // shows `narrow_svg` below 700 px) so its text stays readable.
    let draw = |plot_w: i32| -> Result<String> {
        let left = 12 + label_w + 10;
        let frame = Frame {
            left,
            top: LEGEND_H + 8,
            right: left + plot_w,
            bottom: LEGEND_H + 8 + ROW_H * d.rows.len() as i32,
        };
        let width = frame.right + 24;
        let names: Vec<String> = std::iter::once(d.dot.clone())
            .chain(d.markers.iter().map(|(n, _)| n.clone()))
            .collect();
        render(width as u32, (frame.bottom + 48) as u32, |area| {
            legend(area, &names, frame.right, 14)?;
            let x = Axis::new(d.log, (lo, hi), (frame.left, frame.right));
            let grid: Vec<f64> = ticks.iter().map(|&t| x.at(t)).collect();
            x_grid(area, &frame, &x.scale, &grid, 0, false)?;
            for &t in &ticks {
                let font = TICK.anchor(HPos::Center, VPos::Top);
                let label = decimals.map_or_else(|| tick_label(t), |k| fmt_tick(t, k));
                text(area, &label, (x.px(t), frame.bottom + 6), font)?;
            }
            for (i, ((_, values), label)) in d.rows.iter().zip(&labels).enumerate() {
                let top = frame.top + ROW_H * i as i32;
                let cy = top + ROW_H / 2;
                let font = TICK.anchor(HPos::Right, VPos::Center);
                text(area, label, (frame.left - 8, cy), font)?;
                if i > 0 {
                    line(area, vec![(frame.left, top), (frame.right, top)], GRID, 1)?;
                }
                let values: Vec<f64> = values.iter().copied().filter(usable).collect();
                strip(area, &x, &values, (top, top + ROW_H))?;
                for (m, (_, per_row)) in d.markers.iter().enumerate() {
                    let v = per_row.get(i).copied().unwrap_or(f64::NAN);
                    if usable(&v) {
                        let px = x.px(v);
                        line(
                            area,
                            vec![(px, top + 4), (px, top + ROW_H - 4)],
                            series(m + 1),
                            3,
                        )?;
                    }
                }
            }
            axes(area, &frame)?;
            let font = AXIS.anchor(HPos::Center, VPos::Top);
            text(area, &d.axis, (frame.center_x(), frame.bottom + 26), font)
        })
    };
    let mut figure = finish(&draw(PLOT_W)?, &d.name, &d.title, &d.description);
    let narrow = format!("{}-narrow", d.name);
    figure.narrow_svg = Some(finish(&draw(NARROW_W)?, &narrow, &d.title, &d.description).svg);
    Ok(figure)
}

/// A linear or log10 x axis.
struct Axis {
    log: bool,
    scale: Scale,
}

impl Axis {
    fn new(log: bool, (lo, hi): (f64, f64), pixels: (i32, i32)) -> Self {
        let scale = if log {
            Scale::new((lo.log10(), hi.log10()), pixels)
        } else {
            Scale::new((lo, hi), pixels)
        };
        Axis { log, scale }
    }
    /// The scale's coordinate of a value.
    fn at(&self, v: f64) -> f64 {
        if self.log {
            v.log10()
        } else {
            v
        }
    }
    fn px(&self, v: f64) -> i32 {
        self.scale.px(self.at(v))
    }
}

/// One row: dots spread over the row's height by a fixed pattern (the
/// golden-ratio sequence: the same picture every run), or with many
/// values a histogram of [`BINS`] bins (even on the axis) scaled to the row.
fn strip(area: &Area, x: &Axis, values: &[f64], (top, bottom): (i32, i32)) -> Result<()> {
    let h = f64::from(bottom - top - 12);
    if values.len() <= MAX_DOTS {
        for (k, &v) in values.iter().enumerate() {
            let spread = (k as f64 * 0.618_033_988_75).fract();
            let y = top + 6 + (spread * h).round() as i32;
            dot(area, (x.px(v), y), 3, series(0))?;
        }
        return Ok(());
    }
    let (l, r) = (x.scale.p0, x.scale.p1);
    let mut counts = [0usize; BINS];
    for &v in values {
        let t = f64::from(x.px(v) - l) / f64::from((r - l).max(1));
        counts[((t * BINS as f64) as usize).min(BINS - 1)] += 1;
    }
    let most = counts.iter().copied().max().unwrap_or(1).max(1);
    for (b, &c) in counts.iter().enumerate().filter(|(_, &c)| c > 0) {
        let x0 = l + ((r - l) as usize * b / BINS) as i32;
        let x1 = l + ((r - l) as usize * (b + 1) / BINS) as i32 - 1;
        let y = bottom - 6 - (h * c as f64 / most as f64).round() as i32;
        rect_alpha(area, (x0, y), (x1.max(x0 + 1), bottom - 6), series(0), 0.7)?;
    }
    Ok(())
}

/// The axis domain (powers of ten or 1-2-5 steps around the values) and
/// its ticks: 1, 2, 3, 5 per decade over at most one decade, 1, 2, 5 over
/// at most three, else the powers of ten.
fn log_ticks(lo: f64, hi: f64) -> (f64, f64, Vec<f64>) {
    let (e0, e1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let e1 = e1.max(e0 + 1);
    let steps: &[f64] = match e1 - e0 {
        1 => &[1.0, 2.0, 3.0, 5.0],
        2 | 3 => &[1.0, 2.0, 5.0],
        _ => &[1.0],
    };
    let mut all: Vec<f64> = (e0..=e1)
        .flat_map(|e| steps.iter().map(move |m| m * 10f64.powi(e)))
        .collect();
    all.dedup();
    let start = all.iter().rposition(|&t| t <= lo).unwrap_or(0);
    let end = all.iter().position(|&t| t >= hi).unwrap_or(all.len() - 1);
    let ticks = all[start..=end].to_vec();
    (ticks[0], ticks[ticks.len() - 1], ticks)
}

/// A tick's label: as few decimals as the value needs (`0.5`, `2`,
/// `1000`).
fn tick_label(t: f64) -> String {
    let decimals = (-t.log10().floor()).max(0.0) as usize;
    format!("{t:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(n: usize) -> Strips {
        Strips {
            name: "ppl".into(),
            title: "Perplexity per sequence".into(),
            description: "Dots.".into(),
            axis: "perplexity (log scale)".into(),
            dot: "one sequence".into(),
            log: true,
            rows: vec![
                ("v1".into(), (0..n).map(|i| 1.5 + i as f64).collect()),
                ("<b>v2</b>".into(), vec![3.0, f64::NAN, 0.0, 40.0]),
            ],
            markers: vec![("token-weighted".into(), vec![4.0, f64::NAN])],
        }
    }

    #[test]
    fn ticks_cover_the_values_on_round_numbers() {
        assert_eq!(log_ticks(3.0, 6.7), (3.0, 10.0, vec![3.0, 5.0, 10.0]));
        assert_eq!(
            log_ticks(1.5, 40.0),
            (1.0, 50.0, vec![1.0, 2.0, 5.0, 10.0, 20.0, 50.0])
        );
        assert_eq!(
            log_ticks(2.0, 2e5).2,
            vec![1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6]
        );
        assert_eq!(tick_label(0.5), "0.5");
        assert_eq!(tick_label(20.0), "20");
    }

    #[test]
    fn strips_escape_labels_skip_bad_values_and_switch_to_bins() {
        let f = strips(&sample(10)).unwrap();
        assert_eq!(f, strips(&sample(10)).unwrap());
        assert!(f.svg.contains("&lt;b&gt;v2") && !f.svg.contains("<b>v2"));
        assert!(f.svg.contains("token-weighted"));
        // 10 + 2 usable dots (NaN and 0 left out)
        assert_eq!(f.svg.matches("<circle").count(), 12);
        let many = strips(&sample(MAX_DOTS + 1)).unwrap();
        assert_eq!(many.svg.matches("<circle").count(), 2);
        let mut none = sample(0);
        none.rows[1].1 = vec![f64::NAN];
        none.markers.clear();
        assert!(strips(&none).unwrap().svg.contains("No values to plot"));
    }

    #[test]
    fn a_linear_axis_keeps_zero_and_negative_values() {
        let d = Strips {
            log: false,
            rows: vec![("a".into(), vec![-5.0, 0.0, 50.0, f64::NAN])],
            markers: vec![("corpus".into(), vec![20.0])],
            ..sample(1)
        };
        let f = strips(&d).unwrap();
        assert_eq!(f.svg.matches("<circle").count(), 3);
        assert!(f.svg.contains("corpus"));
    }
}
