//! Report figures as SVG text, drawn with plotters' SVG backend (no system
//! fonts, so the same data gives the same bytes on every machine).
//!
//! Input: plain, already filtered and ordered data (the report stage decides
//! which groups are shown). Output: [`Figure`]s holding SVG strings. No file
//! I/O, no templates, no statistics beyond drawing what it is given.
//! Touches nothing outside `src/plots/`.
//!
//! Every figure's SVG root carries `role="img"` and `aria-labelledby`
//! pointing at the `<title>` and `<desc>` that follow it (ids derived from
//! the figure name), and its colours are CSS variables with light fallbacks
//! (see [`CSS_VARIABLES`]), so a page can theme them.

mod agreement;
mod bars;
mod classify;
mod conditional;
mod draw;
mod eval_by_group;
mod fairness;
mod forest;
mod pairs;
mod preferences;
mod score_dist;
mod spans;
mod strips;
#[cfg(test)]
mod tests;
mod text;
mod theme;
mod trend;
mod versions;

pub use agreement::{kappa_heatmap, label_distribution, KappaMatrix, LabelDistribution};
pub use bars::{grouped_bars, BarPanel, GroupedBars};
pub use classify::{curves, grid, reliability, Curves, Grid, Reliability};
pub use conditional::conditional_scores;
pub use eval_by_group::eval_by_group;
pub use fairness::fairness_estimates;
pub use forest::{forest, Forest, ForestPanel};
pub use pairs::{pairs, Pairs};
pub use preferences::{
    model_traits_heatmap, strength_bars, strength_heatmap, StrengthBars, StrengthHeatmap,
};
pub use score_dist::score_distribution;
pub use spans::{stacked_counts, type_confusion, ConfusionPanel, StackedCounts, TypeConfusion};
pub use strips::{strips, Strips};
pub use theme::{CSS_VARIABLES, CSS_VARIABLES_DARK};
pub use trend::trend;
pub use versions::{count_grid, distributions, CountGrid, Distributions};

/// One figure of the report.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// File stem without the experiment id: `score_dist`, `eval_by_<g>`,
    /// `fairness_estimates_<g>`, `conditional_score_<g>`.
    pub name: String,
    /// Short title (used for the SVG `<title>` and the caption).
    pub title: String,
    /// One or two sentences describing what is shown (SVG `<desc>`).
    pub description: String,
    /// The complete `<svg ...>...</svg>` element, with `role="img"`.
    pub svg: String,
    /// The same figure with its panels stacked in one column, for narrow
    /// screens (the report shows it below 700 px instead of `svg`; the
    /// figure file keeps `svg`); `None` for figures of one panel.
    pub narrow_svg: Option<String>,
}

/// `label` (a system, annotator or column name) as part of a figure's
/// [`Figure::name`], which is part of a file name: letters, digits and
/// `-` kept, every other character `_` (`model v2/large` gives
/// `model_v2_large`). Knows no kind: every kind names its figures so.
pub fn file_safe(label: &str) -> String {
    label
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Figure 6.1: human and machine score distributions.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreDistribution {
    /// Score labels, ascending (e.g. `1.0`, `2.0`).
    pub scores: Vec<f64>,
    /// Percent of responses with each human score.
    pub human: Vec<f64>,
    /// Percent of responses with each (trimmed, rounded) machine score.
    pub machine: Vec<f64>,
}

/// Figure 6.2: six metrics by subgroup.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalByGroup {
    /// Subgroup column name.
    pub group: String,
    /// Name of the `X_trim` score type (`scale_trim` or `raw_trim`), for the
    /// panel titles.
    pub x_trim: String,
    /// Bar labels in display order (`All data` first, `No info` last).
    pub labels: Vec<String>,
    /// Panels in display order: (column name such as `DSM.scale_trim`,
    /// one value per label; NaN = missing).
    pub panels: Vec<(String, Vec<f64>)>,
    /// Confidence intervals, one list per panel in the same order, one
    /// `(lower, upper)` per label (NaN = none); empty: no error bars.
    pub intervals: Vec<Vec<(f64, f64)>>,
}

/// One bar of a fairness panel.
#[derive(Clone, Debug, PartialEq)]
pub struct EstimateBar {
    pub label: String,
    /// Estimate adjusted by the intercept (intercept row: the estimate).
    pub value: f64,
    /// Half-width of the 95% confidence interval.
    pub half_width: f64,
}

/// Figure 6.3: fairness model estimates, three panels (OSA, OSD, CSD).
#[derive(Clone, Debug, PartialEq)]
pub struct FairnessEstimates {
    pub group: String,
    /// (`osa` / `osd` / `csd`, bars in table order: intercept first).
    pub models: Vec<(String, Vec<EstimateBar>)>,
}

/// Figure 6.4: mean machine score by human score, one line per group.
#[derive(Clone, Debug, PartialEq)]
pub struct ConditionalScores {
    pub group: String,
    /// Axis label of the machine score (`scale_trim` or `raw_trim`).
    pub y_label: String,
    /// Human score values, ascending (x axis, categorical).
    pub human_scores: Vec<f64>,
    /// One series per shown group (descending size): for each human score,
    /// (mean, 95% half-width, count); NaN mean where the group has no
    /// response with that score.
    pub series: Vec<(String, Vec<ConditionalPoint>)>,
    /// The y axis never reaches beyond this range (the score range with a
    /// margin): an error bar that leaves it ends in an arrow at its edge,
    /// so one tiny cell's wide interval cannot flatten every line. `None`:
    /// the axis spans every interval.
    pub y_limits: Option<(f64, f64)>,
    /// Cells with fewer responses than this are drawn with hollow markers
    /// and named in the description (0: none).
    pub min_n: usize,
}

/// One point of a [`ConditionalScores`] series: (mean machine score, 95%
/// half-width, number of responses). A plain alias, so tuples still work.
pub type ConditionalPoint = (f64, f64, usize);

/// The trend of one statistic across model versions (`summarize`).
#[derive(Clone, Debug, PartialEq)]
pub struct Trend {
    /// The statistic's name (`wtkappa`), for the file name and the axis.
    pub statistic: String,
    /// The versions' labels, in the summary's order.
    pub labels: Vec<String>,
    /// Each version's (estimate, lower, upper); NaN bounds: no interval.
    pub values: Vec<(f64, f64, f64)>,
    /// The baseline's position (its estimate is drawn as a dashed line).
    pub baseline: usize,
}
