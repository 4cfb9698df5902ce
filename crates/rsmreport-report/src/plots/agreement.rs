//! Plots stage, agreement report (`spec/agreement.md` 3): the pairwise
//! Cohen's kappa matrix as a heat map, and the label distribution of each
//! rater as stacked horizontal bars. Draws only the numbers it is given;
//! touches nothing outside `src/plots/`.

use anyhow::Result;
use plotters::style::text_anchor::{HPos, VPos};

use super::draw::{no_data, rect, rect_alpha, render, text, Font, FS_TICK, TICK, TITLE};
use super::text::{clean, fmt_fixed, text_width, truncate_px};
use super::theme::{finish, heat_cell, series, MUTED};
use super::Figure;

/// The pairwise matrix of a heat map.
#[derive(Clone, Debug, PartialEq)]
pub struct KappaMatrix {
    /// Rater names, in order.
    pub raters: Vec<String>,
    /// `raters x raters`, symmetric; NaN where there is no value (the
    /// diagonal, pairs without common items).
    pub values: Vec<f64>,
    /// What the cells hold (`Cohen's kappa`).
    pub statistic: String,
}

/// Label counts of each rater.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelDistribution {
    /// Category labels, in order.
    pub labels: Vec<String>,
    /// `(rater, count per label)`.
    pub raters: Vec<(String, Vec<f64>)>,
}

const CELL: i32 = 56;

/// The heat map `agreement_pairs_heatmap`: one cell per pair of raters,
/// coloured by the value (white at 0, blue up to 1, orange down to -1),
/// the value written in the cell.
pub fn kappa_heatmap(d: &KappaMatrix) -> Result<Figure> {
    let name = "agreement_pairs_heatmap";
    let title = format!("Pairwise {}", clean(&d.statistic));
    let n = d.raters.len();
    let labels: Vec<String> = d
        .raters
        .iter()
        .map(|r| truncate_px(&clean(r), FS_TICK, 140.0))
        .collect();
    let description = format!(
        "Heat map of {} for every pair of the {n} raters ({}): stronger blue is higher \
         agreement, orange is below chance; the value is written in each cell.",
        clean(&d.statistic),
        labels.join(", ")
    );
    if n < 2 || d.values.iter().all(|v| v.is_nan()) {
        return no_data(name, &title, &description, "No pair of raters to plot");
    }
    let label_w = labels
        .iter()
        .map(|l| text_width(l, FS_TICK))
        .fold(0.0, f64::max)
        .ceil() as i32;
    let left = 16 + label_w + 8;
    let top = 40 + 24;
    let width = left + n as i32 * CELL + 16;
    let height = top + n as i32 * CELL + 16;
    let raw = render(width as u32, height as u32, |area| {
        text(area, &title, (16, 12), TITLE)?;
        for (i, l) in labels.iter().enumerate() {
            let mid = i as i32 * CELL + CELL / 2;
            text(
                area,
                l,
                (left - 8, top + mid),
                TICK.anchor(HPos::Right, VPos::Center),
            )?;
            text(
                area,
                l,
                (left + mid, top - 6),
                TICK.anchor(HPos::Center, VPos::Bottom),
            )?;
        }
        for i in 0..n {
            for j in 0..n {
                let v = d.values[i * n + j];
                let (x, y) = (left + j as i32 * CELL, top + i as i32 * CELL);
                if v.is_nan() {
                    continue;
                }
                let c = heat_cell(v, 1.0);
                rect_alpha(
                    area,
                    (x + 1, y + 1),
                    (x + CELL - 1, y + CELL - 1),
                    c.fill,
                    c.opacity,
                )?;
                let font = Font::new(FS_TICK, c.ink).anchor(HPos::Center, VPos::Center);
                text(area, &fmt_fixed(v, 2), (x + CELL / 2, y + CELL / 2), font)?;
            }
        }
        Ok(())
    })?;
    Ok(finish(&raw, name, &title, &description))
}

const BAR_W: i32 = 420;
const BAR_H: i32 = 22;

/// `label_distribution`: one stacked horizontal bar per rater, the share
/// of each label (percent of the rater's ratings), a legend below.
pub fn label_distribution(d: &LabelDistribution) -> Result<Figure> {
    let name = "label_distribution";
    let title = "Label distribution by rater".to_string();
    let raters: Vec<String> = d
        .raters
        .iter()
        .map(|(r, _)| truncate_px(&clean(r), FS_TICK, 140.0))
        .collect();
    let labels: Vec<String> = d
        .labels
        .iter()
        .map(|l| truncate_px(&clean(l), FS_TICK, 120.0))
        .collect();
    let description = format!(
        "Stacked bars: for each of {} raters, the share of their ratings in each of the {} \
         labels ({}).",
        raters.len(),
        labels.len(),
        labels.join(", ")
    );
    let total: f64 = d.raters.iter().flat_map(|(_, c)| c.iter()).sum();
    if raters.is_empty() || labels.is_empty() || total <= 0.0 {
        return no_data(name, &title, &description, "No ratings to plot");
    }
    let label_w = raters
        .iter()
        .map(|l| text_width(l, FS_TICK))
        .fold(0.0, f64::max)
        .ceil() as i32;
    let left = 16 + label_w + 8;
    let top = 40;
    let bars_h = raters.len() as i32 * (BAR_H + 8);
    let legend_rows = labels.len().div_ceil(4) as i32;
    let width = left + BAR_W + 24;
    let height = top + bars_h + 16 + legend_rows * 18 + 12;
    let raw = render(width as u32, height as u32, |area| {
        text(area, &title, (16, 12), TITLE)?;
        for (i, ((_, counts), r)) in d.raters.iter().zip(&raters).enumerate() {
            let y = top + i as i32 * (BAR_H + 8);
            text(
                area,
                r,
                (left - 8, y + BAR_H / 2),
                TICK.anchor(HPos::Right, VPos::Center),
            )?;
            let n: f64 = counts.iter().sum();
            let mut x = f64::from(left);
            for (k, &c) in counts.iter().enumerate() {
                let w = if n > 0.0 {
                    c / n * f64::from(BAR_W)
                } else {
                    0.0
                };
                if w > 0.0 {
                    let (x0, x1) = (x.round() as i32, (x + w).round() as i32);
                    rect(area, (x0, y), (x1, y + BAR_H), series(k))?;
                }
                x += w;
            }
        }
        let ly = top + bars_h + 12;
        for (k, l) in labels.iter().enumerate() {
            let (col, row) = ((k % 4) as i32, (k / 4) as i32);
            let (x, y) = (left + col * (BAR_W / 4), ly + row * 18);
            rect(area, (x, y + 2), (x + 10, y + 12), series(k))?;
            let font = Font::new(FS_TICK, MUTED).anchor(HPos::Left, VPos::Top);
            text(area, l, (x + 14, y), font)?;
        }
        Ok(())
    })?;
    Ok(finish(&raw, name, &title, &description))
}
