//! Plots stage, span annotations (`spec/spans.md` 6): the type-confusion
//! heat maps of matched spans (one panel per pair, counts in the cells,
//! the panel's title naming the pair and its Cohen's kappa) and the
//! boundary-disagreement bars (per pair, the counts of each kind of
//! boundary disagreement, stacked). Draws only the numbers it is given
//! (the kind computes them and writes the titles); touches nothing
//! outside `src/plots/`.

use anyhow::Result;
use plotters::style::text_anchor::{HPos, VPos};

use super::draw::{
    line, nice_ticks, no_data, rect, rect_alpha, render, text, x_grid, Area, Font, Frame, Scale,
    AXIS, FS_AXIS, FS_TICK, TICK, TITLE,
};
use super::text::{clean, fit_distinct, fmt_count, text_width, truncate_px, wrap};
use super::theme::{finish, heat_cell, series, FG, GRID, MUTED};
use super::Figure;

/// One pair's type confusion: `labels x labels` counts of matched spans.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfusionPanel {
    /// Up to three lines above the panel (the pair; its kappa; counts).
    pub title: Vec<String>,
    /// Whose label the rows and the columns are.
    pub row_axis: String,
    pub column_axis: String,
    /// The labels of both sides, in order (rows and columns alike).
    pub labels: Vec<String>,
    /// `labels x labels`, row-major.
    pub counts: Vec<u64>,
}

/// Heat maps of type confusion, one panel per pair.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeConfusion {
    /// File stem (letters, digits, `_`, `-`).
    pub name: String,
    pub title: String,
    pub description: String,
    pub panels: Vec<ConfusionPanel>,
}

const CELL: i32 = 44;
/// A label is shortened beyond this width, keeping the part that tells it
/// from the others ([`fit_distinct`]).
const LABEL_MAX: f64 = 150.0;
/// At most this many labels per panel.
const MAX_LABELS: usize = 30;
/// Panels side by side are kept within this width.
const WIDE: i32 = 1240;
const PAD: i32 = 16;
/// Lines of a panel's title.
const TITLE_LINES: i32 = 3;

/// A panel's shortened labels, their widths and its size.
struct PanelLayout {
    /// The first title line, cut where it differs from the others'.
    head: String,
    labels: Vec<String>,
    label_w: i32,
    width: i32,
    height: i32,
}

fn layout(p: &ConfusionPanel) -> PanelLayout {
    let labels = fit_distinct(
        &p.labels.iter().map(|l| clean(l)).collect::<Vec<_>>(),
        FS_TICK,
        LABEL_MAX,
    );
    let label_w = labels
        .iter()
        .map(|l| text_width(l, FS_TICK))
        .fold(0.0, f64::max)
        .ceil() as i32;
    let n = labels.len() as i32;
    let width = (24 + label_w + 8 + n * CELL).max(240);
    let height = TITLE_LINES * 17 + 20 + label_w + 8 + n * CELL;
    PanelLayout {
        head: String::new(),
        labels,
        label_w,
        width,
        height,
    }
}

/// The type-confusion figure: the panels side by side in rows (as many as
/// fit in about 1240 px), and a narrow variant with one panel per row.
pub fn type_confusion(d: &TypeConfusion) -> Result<Figure> {
    let too_many = d.panels.iter().any(|p| p.labels.len() > MAX_LABELS);
    let empty = d
        .panels
        .iter()
        .all(|p| p.labels.is_empty() || p.counts.iter().all(|&c| c == 0));
    if d.panels.is_empty() || empty || too_many {
        let why = match too_many {
            true => "Too many labels to draw a heat map",
            false => "No matched spans to plot",
        };
        return no_data(&d.name, &d.title, &d.description, why);
    }
    let mut layouts: Vec<PanelLayout> = d.panels.iter().map(layout).collect();
    let pw = layouts.iter().map(|l| l.width).max().unwrap_or(0);
    // The first lines name the pairs: long names keep where they differ
    // (bold text is about a tenth wider).
    let heads: Vec<String> = d
        .panels
        .iter()
        .map(|p| clean(p.title.first().map_or("", String::as_str)))
        .collect();
    let heads = fit_distinct(&heads, FS_AXIS * 1.1, f64::from(pw));
    for (l, h) in layouts.iter_mut().zip(heads) {
        l.head = h;
    }
    let per_row = ((WIDE / (pw + PAD)).max(1) as usize).min(d.panels.len());
    let raw = draw_confusion(d, &layouts, per_row)?;
    let mut fig = finish(&raw, &d.name, &d.title, &d.description);
    if per_row > 1 {
        let raw = draw_confusion(d, &layouts, 1)?;
        let narrow = format!("{}-narrow", d.name);
        fig.narrow_svg = Some(finish(&raw, &narrow, &d.title, &d.description).svg);
    }
    Ok(fig)
}

fn draw_confusion(d: &TypeConfusion, layouts: &[PanelLayout], per_row: usize) -> Result<String> {
    let pw = layouts.iter().map(|l| l.width).max().unwrap_or(0);
    let rows = d.panels.len().div_ceil(per_row);
    let row_heights: Vec<i32> = layouts
        .chunks(per_row)
        .map(|c| c.iter().map(|l| l.height).max().unwrap_or(0))
        .collect();
    let width = PAD + per_row as i32 * (pw + PAD);
    // The title wraps (on at most two lines) rather than being cut.
    let chars = (f64::from(width - 2 * PAD) / (0.62 * 13.0)).floor() as usize;
    let title = wrap(&clean(&d.title), chars, 2);
    let title_h = 12 + 18 * title.len() as i32 + 6;
    let height = title_h + row_heights.iter().sum::<i32>() + rows as i32 * PAD;
    render(width as u32, height as u32, |area| {
        for (k, t) in title.iter().enumerate() {
            text(area, t, (PAD, 12 + 18 * k as i32), TITLE)?;
        }
        let mut y = title_h;
        for (r, chunk) in d.panels.chunks(per_row).enumerate() {
            for (c, p) in chunk.iter().enumerate() {
                let x = PAD + c as i32 * (pw + PAD);
                panel(area, p, &layouts[r * per_row + c], (x, y))?;
            }
            y += row_heights[r] + PAD;
        }
        Ok(())
    })
}

/// One panel with its top-left corner at `(x, y)`: the title lines, the
/// column axis and labels (rotated) above the cells, the row axis
/// (rotated) and labels on the left, every cell outlined, shaded by its
/// share of the panel's largest count (themed, as the kappa heat map) and
/// its count written in it (empty cells: none).
fn panel(area: &Area, p: &ConfusionPanel, l: &PanelLayout, (x, y): (i32, i32)) -> Result<()> {
    let room = f64::from(l.width);
    text(area, &l.head, (x, y), Font::new(FS_AXIS, FG).bold())?;
    for (k, t) in p
        .title
        .iter()
        .take(TITLE_LINES as usize)
        .enumerate()
        .skip(1)
    {
        let line = truncate_px(&clean(t), FS_AXIS, room);
        text(area, &line, (x, y + k as i32 * 17), AXIS)?;
    }
    let n = l.labels.len() as i32;
    let left = x + 24 + l.label_w + 8;
    let top = y + TITLE_LINES * 17 + 20 + l.label_w + 8;
    let axis_room = f64::from((n * CELL).max(CELL * 3));
    let col_axis = truncate_px(&clean(&p.column_axis), FS_AXIS, axis_room);
    let font = AXIS.anchor(HPos::Left, VPos::Bottom);
    text(area, &col_axis, (left, y + TITLE_LINES * 17 + 16), font)?;
    let row_axis = truncate_px(
        &clean(&p.row_axis),
        FS_AXIS,
        f64::from(n * CELL + l.label_w),
    );
    let font = AXIS.anchor(HPos::Center, VPos::Center).rotated();
    text(area, &row_axis, (x + 10, top + n * CELL / 2), font)?;
    let max = p.counts.iter().copied().max().unwrap_or(0).max(1);
    for (i, label) in l.labels.iter().enumerate() {
        let mid = i as i32 * CELL + CELL / 2;
        let font = TICK.anchor(HPos::Right, VPos::Center);
        text(area, label, (left - 6, top + mid), font)?;
        let font = TICK.anchor(HPos::Left, VPos::Center).rotated();
        text(area, label, (left + mid, top - 6), font)?;
    }
    for i in 0..n {
        for j in 0..n {
            let (cx, cy) = (left + j * CELL, top + i * CELL);
            let count = p.counts.get((i * n + j) as usize).copied().unwrap_or(0);
            if count > 0 {
                let c = heat_cell(count as f64 / max as f64, 1.0);
                rect_alpha(
                    area,
                    (cx + 1, cy + 1),
                    (cx + CELL - 1, cy + CELL - 1),
                    c.fill,
                    c.opacity,
                )?;
                let font = Font::new(FS_TICK, c.ink).anchor(HPos::Center, VPos::Center);
                text(
                    area,
                    &fmt_count(count as usize),
                    (cx + CELL / 2, cy + CELL / 2),
                    font,
                )?;
            }
            let outline = vec![
                (cx, cy),
                (cx + CELL, cy),
                (cx + CELL, cy + CELL),
                (cx, cy + CELL),
                (cx, cy),
            ];
            line(area, outline, if i == j { MUTED } else { GRID }, 1)?;
        }
    }
    Ok(())
}

/// Stacked horizontal bars of counts: per row (a pair), one segment per
/// part (a kind of boundary disagreement), the note after the bar.
#[derive(Clone, Debug, PartialEq)]
pub struct StackedCounts {
    pub name: String,
    pub title: String,
    pub description: String,
    /// Bars, top to bottom.
    pub rows: Vec<String>,
    /// Segments, left to right (and the legend).
    pub parts: Vec<String>,
    /// `rows x parts`.
    pub counts: Vec<Vec<u64>>,
    /// Per row, the text after its bar (`12 of 80 matched`), or "".
    pub notes: Vec<String>,
    /// The x axis' title (`matched span pairs`).
    pub x_label: String,
}

const BAR_W: i32 = 440;
const BAR_W_NARROW: i32 = 180;
const BAR_H: i32 = 20;
const ROW_LABEL_MAX: f64 = 240.0;

/// The stacked bars' labels, shortened, and their widths.
struct Bars {
    rows: Vec<String>,
    notes: Vec<String>,
    parts: Vec<String>,
    label_w: i32,
    note_w: i32,
    max: u64,
}

fn widest(labels: &[String]) -> i32 {
    labels
        .iter()
        .map(|l| text_width(l, FS_TICK))
        .fold(0.0, f64::max)
        .ceil() as i32
}

/// The stacked bars, an x axis of counts below, a legend under it; and a
/// narrow variant with shorter bars (the report shows it below 700 px).
pub fn stacked_counts(d: &StackedCounts) -> Result<Figure> {
    // No count at all still draws the rows (and their notes) on 0 to 1.
    let max = d
        .counts
        .iter()
        .map(|r| r.iter().sum())
        .max()
        .unwrap_or(0)
        .max(1);
    if d.rows.is_empty() || d.parts.is_empty() {
        return no_data(&d.name, &d.title, &d.description, "Nothing to plot");
    }
    let rows = fit_distinct(
        &d.rows.iter().map(|r| clean(r)).collect::<Vec<_>>(),
        FS_TICK,
        ROW_LABEL_MAX,
    );
    let short = |v: &[String], px: f64| -> Vec<String> {
        v.iter()
            .map(|n| truncate_px(&clean(n), FS_TICK, px))
            .collect()
    };
    let notes = short(&d.notes, 200.0);
    let parts = short(&d.parts, 130.0);
    let b = Bars {
        label_w: widest(&rows),
        note_w: widest(&notes),
        rows,
        notes,
        parts,
        max,
    };
    let raw = draw_bars(d, &b, BAR_W, 4)?;
    let mut fig = finish(&raw, &d.name, &d.title, &d.description);
    let raw = draw_bars(d, &b, BAR_W_NARROW, 2)?;
    let narrow = format!("{}-narrow", d.name);
    fig.narrow_svg = Some(finish(&raw, &narrow, &d.title, &d.description).svg);
    Ok(fig)
}

/// The bars `bar_w` px long at most, `per_row` legend keys a row.
fn draw_bars(d: &StackedCounts, b: &Bars, bar_w: i32, per_row: usize) -> Result<String> {
    let f = Frame {
        left: 16 + b.label_w + 10,
        top: 40,
        right: 16 + b.label_w + 10 + bar_w,
        bottom: 40 + b.rows.len() as i32 * (BAR_H + 8),
    };
    let width = f.right + 10 + b.note_w + 16;
    let legend_y = f.bottom + 44;
    let height = legend_y + b.parts.len().div_ceil(per_row) as i32 * 18 + 10;
    let (ticks, _) = nice_ticks(0.0, b.max as f64, if bar_w < BAR_W { 3 } else { 5 });
    let hi = ticks.iter().copied().fold(b.max as f64, f64::max);
    let x = Scale::new((0.0, hi), (f.left, f.right));
    let title = truncate_px(&clean(&d.title), 13.0, f64::from(width - 32));
    render(width as u32, height as u32, |area| {
        text(area, &title, (16, 12), TITLE)?;
        let ticks: Vec<f64> = ticks.iter().copied().filter(|t| t.fract() == 0.0).collect();
        x_grid(area, &f, &x, &ticks, 0, true)?;
        for (i, (label, counts)) in b.rows.iter().zip(&d.counts).enumerate() {
            let y = f.top + 4 + i as i32 * (BAR_H + 8);
            let font = TICK.anchor(HPos::Right, VPos::Center);
            text(area, label, (f.left - 8, y + BAR_H / 2), font)?;
            let mut sum = 0u64;
            for (k, &c) in counts.iter().enumerate() {
                if c > 0 {
                    let (x0, x1) = (x.px(sum as f64), x.px((sum + c) as f64));
                    rect(area, (x0, y), (x1.max(x0 + 1), y + BAR_H), series(k))?;
                }
                sum += c;
            }
            let font = TICK.anchor(HPos::Left, VPos::Center);
            let note = b.notes.get(i).map_or("", String::as_str);
            text(area, note, (x.px(sum as f64) + 6, y + BAR_H / 2), font)?;
        }
        line(area, vec![(f.left, f.top), (f.left, f.bottom)], FG, 1)?;
        let x_label = truncate_px(&clean(&d.x_label), FS_AXIS, f64::from(width - 32));
        let x_w = text_width(&x_label, FS_AXIS).ceil() as i32;
        let font = AXIS.anchor(HPos::Left, VPos::Top);
        let at = f.left.min(width - 16 - x_w).max(16);
        text(area, &x_label, (at, f.bottom + 24), font)?;
        let key_w = bar_w / per_row as i32;
        for (k, p) in b.parts.iter().enumerate() {
            let (col, row) = ((k % per_row) as i32, (k / per_row) as i32);
            let (lx, ly) = (f.left + col * key_w, legend_y + row * 18);
            rect(area, (lx, ly + 2), (lx + 10, ly + 12), series(k))?;
            let font = Font::new(FS_TICK, MUTED).anchor(HPos::Left, VPos::Top);
            text(area, p, (lx + 14, ly), font)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts of an SVG, trimmed.
    fn texts(svg: &str) -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| {
                let body = &t[t.find('>')? + 1..];
                Some(body[..body.find("</text>")?].trim().to_string())
            })
            .collect()
    }

    fn has(svg: &str, needle: &str) -> bool {
        texts(svg).iter().any(|t| t == needle)
    }

    fn confusion(labels: &[&str]) -> TypeConfusion {
        TypeConfusion {
            name: "type_confusion".into(),
            title: "Types of matched spans".into(),
            description: "Heat maps.".into(),
            panels: vec![
                ConfusionPanel {
                    title: vec!["gold × <b>&".into(), "Cohen's kappa 0.62".into()],
                    row_axis: "gold".into(),
                    column_axis: "<b>&".into(),
                    labels: labels.iter().map(|l| l.to_string()).collect(),
                    counts: vec![17, 3, 0, 1234],
                },
                ConfusionPanel {
                    title: vec!["gold × sys".into(), "Cohen's kappa 1.00".into()],
                    row_axis: "gold".into(),
                    column_axis: "sys".into(),
                    labels: labels.iter().map(|l| l.to_string()).collect(),
                    counts: vec![5, 0, 0, 9],
                },
            ],
        }
    }

    #[test]
    fn type_confusion_writes_counts_labels_and_escapes() {
        let fig = type_confusion(&confusion(&["PER", "<b>&"])).unwrap();
        let svg = &fig.svg;
        for needle in [
            "17",
            "3",
            "1,234",
            "5",
            "9",
            "PER",
            "&lt;b&gt;&amp;",
            "Cohen&apos;s kappa 0.62",
        ] {
            assert!(has(svg, needle), "{needle} missing in {:?}", texts(svg));
        }
        assert!(!svg.contains("<b>"), "unescaped label");
        // Empty cells carry no count; the cells are themed (dark mode).
        assert!(!has(svg, "0"));
        assert!(svg.contains("var(--series-1"));
        assert!(fig.narrow_svg.as_deref().is_some_and(|n| has(n, "1,234")));
        assert_eq!(fig, type_confusion(&confusion(&["PER", "<b>&"])).unwrap());
    }

    #[test]
    fn long_labels_keep_the_part_where_they_differ() {
        let a = "medication_dosage_amount_per_day_in_milligrams";
        let b = "medication_dosage_amount_per_day_in_millilitres";
        let fig = type_confusion(&confusion(&[a, b])).unwrap();
        let shown = fit_distinct(&[a.to_string(), b.to_string()], FS_TICK, LABEL_MAX);
        assert_ne!(shown[0], shown[1]);
        for s in &shown {
            assert!(has(&fig.svg, s), "{s}");
        }
    }

    #[test]
    fn long_pair_names_keep_the_part_where_they_differ() {
        let mut d = confusion(&["A", "B"]);
        let long = "gold × tagger_trained_on_the_2024_news_corpus_with_seed_";
        d.panels[0].title[0] = format!("{long}11");
        d.panels[1].title[0] = format!("{long}12");
        let svg = type_confusion(&d).unwrap().svg;
        let heads: Vec<String> = texts(&svg)
            .into_iter()
            .filter(|t| t.starts_with("gold ×"))
            .collect();
        assert_eq!(heads.len(), 2, "{heads:?}");
        assert_ne!(heads[0], heads[1]);
        assert!(
            heads[0].ends_with("11") && heads[1].ends_with("12"),
            "{heads:?}"
        );
    }

    #[test]
    fn nothing_to_draw_says_so() {
        let mut d = confusion(&["A", "B"]);
        for p in &mut d.panels {
            p.counts = vec![0; 4];
        }
        assert!(type_confusion(&d).unwrap().svg.contains("No matched spans"));
    }

    fn bars() -> StackedCounts {
        StackedCounts {
            name: "boundaries".into(),
            title: "Boundary disagreements".into(),
            description: "Bars.".into(),
            rows: vec!["ann1 × ann2".into(), "<b>& × ann3".into()],
            parts: vec![
                "start only".into(),
                "end only".into(),
                "containment".into(),
                "crossing".into(),
            ],
            counts: vec![vec![3, 2, 1, 0], vec![0, 7, 0, 4]],
            notes: vec!["6 of 40 matched".into(), "11 of 52 matched".into()],
            x_label: "matched span pairs".into(),
        }
    }

    #[test]
    fn stacked_counts_draw_one_segment_per_count_and_escape() {
        let fig = stacked_counts(&bars()).unwrap();
        let svg = &fig.svg;
        for needle in [
            "6 of 40 matched",
            "11 of 52 matched",
            "&lt;b&gt;&amp; × ann3",
            "start only",
            "crossing",
        ] {
            assert!(svg.contains(needle), "{needle} missing");
        }
        assert!(!svg.contains("<b>"));
        // 3 + 2 non-zero segments, and 4 legend keys.
        let segments = (1..=4)
            .map(|k| svg.matches(&format!("fill=\"var(--series-{k}")).count())
            .sum::<usize>();
        assert_eq!(segments, 5 + 4);
        // No disagreement: the rows and notes, no segment.
        let mut none = bars();
        none.counts = vec![vec![0; 4]; 2];
        let svg = stacked_counts(&none).unwrap().svg;
        assert!(svg.contains("6 of 40 matched") && has(&svg, "ann1 × ann2"));
        assert_eq!(svg.matches("fill=\"var(--series-1").count(), 1);
        let mut empty = bars();
        empty.rows.clear();
        assert!(stacked_counts(&empty)
            .unwrap()
            .svg
            .contains("Nothing to plot"));
    }
}
