//! Plots stage: drawing primitives shared by the figures, on top of
//! plotters' SVG backend (pixel-space layout, linear scales, "nice" ticks,
//! axes, text). No I/O; touches nothing outside `src/plots/`.
//!
//! Layout is done here in integer pixels rather than with plotters'
//! `ChartBuilder` mesh: categorical axes with wrapped or rotated labels,
//! panels sharing axes and legends need positions we control, and plotters
//! only estimates text sizes anyway (no font backend).

use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontTransform;

use super::text::{fmt_tick, text_width};
use super::theme::{finish, BG, FG, GRID, MUTED, REF};
use super::Figure;

pub(crate) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Font sizes (SVG px).
pub(crate) const FS_TITLE: f64 = 13.0;
pub(crate) const FS_AXIS: f64 = 12.0;
pub(crate) const FS_TICK: f64 = 11.0;

/// Line height factor for stacked lines of text.
pub(crate) const LINE: f64 = 1.25;

/// Converts plotters' drawing errors (which borrow nothing) into anyhow.
pub(crate) fn e<T, E: std::fmt::Display>(r: std::result::Result<T, E>) -> Result<T> {
    r.map_err(|err| anyhow!("drawing the figure failed: {err}"))
}

/// Draws onto a fresh `w` x `h` SVG (background `--bg`) and returns the raw
/// plotters markup.
pub(crate) fn render(w: u32, h: u32, f: impl FnOnce(&Area) -> Result<()>) -> Result<String> {
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (w.max(1), h.max(1))).into_drawing_area();
        e(root.fill(&BG))?;
        f(&root)?;
        e(root.present())?;
    }
    Ok(buf)
}

/// A text style: size, colour, anchor, rotation, weight.
#[derive(Clone, Copy)]
pub(crate) struct Font {
    pub size: f64,
    pub color: RGBColor,
    pub h: HPos,
    pub v: VPos,
    /// Rotated 90 degrees counter-clockwise (reads bottom to top).
    pub rotated: bool,
    pub bold: bool,
}

impl Font {
    pub(crate) const fn new(size: f64, color: RGBColor) -> Self {
        Font {
            size,
            color,
            h: HPos::Left,
            v: VPos::Top,
            rotated: false,
            bold: false,
        }
    }
    pub(crate) const fn anchor(mut self, h: HPos, v: VPos) -> Self {
        self.h = h;
        self.v = v;
        self
    }
    pub(crate) const fn rotated(mut self) -> Self {
        self.rotated = true;
        self
    }
    pub(crate) const fn bold(mut self) -> Self {
        self.bold = true;
        self
    }
}

pub(crate) const TITLE: Font = Font::new(FS_TITLE, FG).bold();
pub(crate) const AXIS: Font = Font::new(FS_AXIS, FG);
pub(crate) const TICK: Font = Font::new(FS_TICK, MUTED);

/// Draws one line of text (plotters XML-escapes it).
pub(crate) fn text(area: &Area, s: &str, (x, y): (i32, i32), font: Font) -> Result<()> {
    if s.is_empty() {
        return Ok(());
    }
    let weight = if font.bold {
        FontStyle::Bold
    } else {
        FontStyle::Normal
    };
    // plotters writes `font-size = size / 1.24` into the SVG.
    let mut desc = FontDesc::new(FontFamily::SansSerif, font.size * 1.24, weight);
    if font.rotated {
        desc = desc.transform(FontTransform::Rotate270);
    }
    let style = desc.color(&font.color).pos(Pos::new(font.h, font.v));
    e(area.draw(&Text::new(s.to_string(), (x, y), style)))
}

/// Filled rectangle between two pixel corners (in any order).
pub(crate) fn rect(
    area: &Area,
    (x0, y0): (i32, i32),
    (x1, y1): (i32, i32),
    color: RGBColor,
) -> Result<()> {
    let (l, r) = (x0.min(x1), x0.max(x1));
    let (t, b) = (y0.min(y1), y0.max(y1));
    e(area.draw(&Rectangle::new([(l, t), (r, b)], color.filled())))
}

/// Filled rectangle of `color` at `opacity` (0 to 1) over what lies below.
pub(crate) fn rect_alpha(
    area: &Area,
    (x0, y0): (i32, i32),
    (x1, y1): (i32, i32),
    color: RGBColor,
    opacity: f64,
) -> Result<()> {
    let (l, r) = (x0.min(x1), x0.max(x1));
    let (t, b) = (y0.min(y1), y0.max(y1));
    // Three decimals: the same bytes on every platform.
    let opacity = (opacity * 1000.0).round() / 1000.0;
    e(area.draw(&Rectangle::new(
        [(l, t), (r, b)],
        color.mix(opacity).filled(),
    )))
}

/// Polyline of width `width` px.
pub(crate) fn line(
    area: &Area,
    points: Vec<(i32, i32)>,
    color: RGBColor,
    width: u32,
) -> Result<()> {
    if points.len() < 2 {
        return Ok(());
    }
    e(area.draw(&PathElement::new(points, color.stroke_width(width))))
}

/// An error bar from `a` to `b` (pixels) with end caps of half-length
/// `cap` (no caps when `cap == 0`), as a single polyline.
pub(crate) fn error_bar(
    area: &Area,
    a: (i32, i32),
    b: (i32, i32),
    cap: i32,
    color: RGBColor,
) -> Result<()> {
    if cap <= 0 {
        return line(area, vec![a, b], color, 1);
    }
    // Caps perpendicular to the bar: the bar is either vertical or horizontal.
    let (dx, dy) = if a.0 == b.0 { (cap, 0) } else { (0, cap) };
    let points = vec![
        (a.0 - dx, a.1 - dy),
        (a.0 + dx, a.1 + dy),
        a,
        b,
        (b.0 - dx, b.1 - dy),
        (b.0 + dx, b.1 + dy),
    ];
    line(area, points, color, 1)
}

/// Filled circle.
pub(crate) fn dot(area: &Area, c: (i32, i32), r: i32, color: RGBColor) -> Result<()> {
    e(area.draw(&Circle::new(c, r.max(1), color.filled())))
}

/// Filled polygon.
pub(crate) fn polygon(area: &Area, points: Vec<(i32, i32)>, color: RGBColor) -> Result<()> {
    e(area.draw(&Polygon::new(points, color.filled())))
}

/// Linear map from data `[d0, d1]` to pixels `[p0, p1]` (either direction).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scale {
    pub d0: f64,
    pub d1: f64,
    pub p0: i32,
    pub p1: i32,
}

impl Scale {
    pub(crate) fn new((d0, d1): (f64, f64), (p0, p1): (i32, i32)) -> Self {
        Scale { d0, d1, p0, p1 }
    }
    /// Pixel of `v`, clamped to the scale's pixel range.
    pub(crate) fn px(&self, v: f64) -> i32 {
        let span = self.d1 - self.d0;
        let t = if span.abs() > 0.0 && span.is_finite() {
            (v - self.d0) / span
        } else {
            0.5
        };
        let t = if t.is_finite() {
            t.clamp(0.0, 1.0)
        } else {
            0.0
        };
        (f64::from(self.p0) + t * f64::from(self.p1 - self.p0)).round() as i32
    }
    pub(crate) fn contains(&self, v: f64) -> bool {
        let (lo, hi) = (self.d0.min(self.d1), self.d0.max(self.d1));
        v >= lo - 1e-12 && v <= hi + 1e-12
    }
}

/// Finite values only.
pub(crate) fn finite(values: impl IntoIterator<Item = f64>) -> Vec<f64> {
    values.into_iter().filter(|v| v.is_finite()).collect()
}

/// Minimum and maximum of the finite values, if any.
pub(crate) fn extent(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    let v = finite(values);
    if v.is_empty() {
        return None;
    }
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some((lo, hi))
}

/// Makes `[lo, hi]` a usable, finite, non-empty range.
pub(crate) fn sane_range(lo: f64, hi: f64) -> (f64, f64) {
    let (mut lo, mut hi) = (lo, hi);
    if !lo.is_finite() || !hi.is_finite() {
        return (0.0, 1.0);
    }
    if lo > hi {
        std::mem::swap(&mut lo, &mut hi);
    }
    // Keep the arithmetic below far from overflow.
    lo = lo.max(-1e300);
    hi = hi.min(1e300);
    if hi - lo <= hi.abs().max(lo.abs()) * 1e-12 || hi - lo == 0.0 {
        let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        return (lo - pad, hi + pad);
    }
    (lo, hi)
}

/// About `target` round tick values inside `[lo, hi]`, and the number of
/// decimals needed to print them.
pub(crate) fn nice_ticks(lo: f64, hi: f64, target: usize) -> (Vec<f64>, usize) {
    let (lo, hi) = sane_range(lo, hi);
    let raw = (hi - lo) / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    let (mult, extra) = if norm <= 1.0 {
        (1.0, 0)
    } else if norm <= 2.0 {
        (2.0, 0)
    } else if norm <= 2.5 {
        (2.5, 1)
    } else if norm <= 5.0 {
        (5.0, 0)
    } else {
        (10.0, 0)
    };
    let step = mult * mag;
    let decimals = ((-(step.log10().floor())).max(0.0) as usize + extra).min(12);
    let first = (lo / step - 1e-9).ceil();
    let mut ticks = Vec::new();
    let mut i = 0.0;
    while ticks.len() < 50 {
        let t = (first + i) * step;
        if t > hi + step * 1e-9 {
            break;
        }
        // Print-and-parse gives the shortest exact decimal (0.6, not
        // 0.6000000000000001), which keeps labels and bytes stable.
        let t = format!("{t:.decimals$}").parse::<f64>().unwrap_or(t);
        ticks.push(if t == 0.0 { 0.0 } else { t });
        i += 1.0;
    }
    (ticks, decimals)
}

/// Like [`nice_ticks`], but each end of the domain is widened to the next
/// tick outside `[lo, hi]` when that adds at most 15% of the range, so that
/// the axis usually starts and ends on a labelled tick.
pub(crate) fn nice_domain(lo: f64, hi: f64, target: usize) -> (f64, f64, Vec<f64>, usize) {
    let (lo, hi) = sane_range(lo, hi);
    let (mut ticks, decimals) = nice_ticks(lo, hi, target);
    if ticks.len() < 2 {
        return (lo, hi, ticks, decimals);
    }
    let step = ticks[1] - ticks[0];
    let slack = 0.15 * (hi - lo);
    let round = |t: f64| format!("{t:.decimals$}").parse::<f64>().unwrap_or(t);
    let (mut new_lo, mut new_hi) = (lo, hi);
    if ticks[0] > lo + step * 1e-9 {
        let t = round(ticks[0] - step);
        if lo - t <= slack {
            ticks.insert(0, if t == 0.0 { 0.0 } else { t });
            new_lo = t;
        }
    } else {
        new_lo = ticks[0];
    }
    let last = ticks[ticks.len() - 1];
    if last < hi - step * 1e-9 {
        let t = round(last + step);
        if t - hi <= slack {
            ticks.push(if t == 0.0 { 0.0 } else { t });
            new_hi = t;
        }
    } else {
        new_hi = last;
    }
    (new_lo.min(lo), new_hi.max(hi), ticks, decimals)
}

/// A plot frame: the pixel rectangle of the plotting area.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    pub left: i32,
    pub top: i32,
    pub right: i32,
    pub bottom: i32,
}

impl Frame {
    pub(crate) fn width(&self) -> i32 {
        self.right - self.left
    }
    pub(crate) fn center_x(&self) -> i32 {
        (self.left + self.right) / 2
    }
    pub(crate) fn center_y(&self) -> i32 {
        (self.top + self.bottom) / 2
    }
}

/// Horizontal grid lines and tick labels of a numeric y axis.
pub(crate) fn y_grid(
    area: &Area,
    f: &Frame,
    y: &Scale,
    ticks: &[f64],
    decimals: usize,
    labels: bool,
) -> Result<()> {
    for &t in ticks {
        if !y.contains(t) {
            continue;
        }
        let py = y.px(t);
        line(area, vec![(f.left, py), (f.right, py)], GRID, 1)?;
        if labels {
            let font = TICK.anchor(HPos::Right, VPos::Center);
            text(area, &fmt_tick(t, decimals), (f.left - 6, py), font)?;
        }
    }
    Ok(())
}

/// Vertical grid lines and tick labels of a numeric x axis.
pub(crate) fn x_grid(
    area: &Area,
    f: &Frame,
    x: &Scale,
    ticks: &[f64],
    decimals: usize,
    labels: bool,
) -> Result<()> {
    for &t in ticks {
        if !x.contains(t) {
            continue;
        }
        let px = x.px(t);
        line(area, vec![(px, f.top), (px, f.bottom)], GRID, 1)?;
        if labels {
            let font = TICK.anchor(HPos::Center, VPos::Top);
            text(area, &fmt_tick(t, decimals), (px, f.bottom + 6), font)?;
        }
    }
    Ok(())
}

/// The left and bottom axis lines.
pub(crate) fn axes(area: &Area, f: &Frame) -> Result<()> {
    line(
        area,
        vec![(f.left, f.top), (f.left, f.bottom), (f.right, f.bottom)],
        FG,
        1,
    )
}

/// A dashed (`--ref`) horizontal reference line at data value `v`.
pub(crate) fn ref_hline(area: &Area, f: &Frame, y: &Scale, v: f64) -> Result<()> {
    if !y.contains(v) {
        return Ok(());
    }
    let py = y.px(v);
    line(area, vec![(f.left, py), (f.right, py)], REF, 1)
}

/// Estimated pixel width of tick labels.
pub(crate) fn ticks_width(ticks: &[f64], decimals: usize) -> i32 {
    ticks
        .iter()
        .map(|t| text_width(&fmt_tick(*t, decimals), FS_TICK))
        .fold(0.0, f64::max)
        .ceil() as i32
}

/// A small figure that only says why there is nothing to plot.
pub(crate) fn no_data(name: &str, title: &str, description: &str, message: &str) -> Result<Figure> {
    let raw = render(480, 120, |area| {
        let font = AXIS.anchor(HPos::Center, VPos::Center);
        text(area, message, (240, 60), font)
    })?;
    Ok(finish(&raw, name, title, description))
}

/// Clamps a pixel size computed in `f64` to `[lo, hi]`.
pub(crate) fn clamp_px(v: f64, lo: i32, hi: i32) -> i32 {
    if v.is_finite() {
        (v.round() as i64).clamp(i64::from(lo), i64::from(hi)) as i32
    } else {
        lo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round() {
        assert_eq!(
            nice_ticks(0.0, 1.0, 5),
            (vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0], 1)
        );
        let (t, d) = nice_ticks(-1.0, 1.0, 5);
        assert_eq!(t.first(), Some(&-1.0));
        assert_eq!(t.last(), Some(&1.0));
        assert_eq!(d, 1);
        let (t, d) = nice_ticks(0.0, 47.0, 5);
        assert_eq!(t, vec![0.0, 10.0, 20.0, 30.0, 40.0]);
        assert_eq!(d, 0);
        assert!(nice_ticks(f64::NAN, 1.0, 5).0.len() <= 50);
        assert!(nice_ticks(-1e308, 1e308, 5).0.len() <= 50);
        assert!(!nice_ticks(3.0, 3.0, 5).0.is_empty());
        let (lo, hi, t, d) = nice_domain(-0.19, 0.47, 4);
        assert_eq!((lo, hi, d), (-0.2, 0.47, 1));
        assert_eq!(t, vec![-0.2, 0.0, 0.2, 0.4]);
        let (lo, hi, _, _) = nice_domain(-0.19, 0.59, 4);
        assert_eq!((lo, hi), (-0.2, 0.6));
        let (lo, hi, _, _) = nice_domain(1.0, 6.0, 5);
        assert_eq!((lo, hi), (1.0, 6.0));
    }

    #[test]
    fn scale_clamps() {
        let s = Scale::new((0.0, 1.0), (100, 0));
        assert_eq!(s.px(0.0), 100);
        assert_eq!(s.px(1.0), 0);
        assert_eq!(s.px(2.0), 0);
        assert_eq!(s.px(f64::NAN), 100);
    }
}
