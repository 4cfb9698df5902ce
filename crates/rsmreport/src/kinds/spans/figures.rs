//! Command assembly (spans): the report's figures (`spec/spans.md` 6)
//! through the shared plots: the heat map of pairwise strict F1
//! (`plots::kappa_heatmap`, as `agree`'s kappa matrix) and, with two or
//! more systems, one forest plot per candidate of its differences from
//! the baseline (`plots::forest`, as `classify`'s gains), the verdict
//! beside each statistic; the type-confusion heat maps of matched spans
//! with each pair's Cohen's kappa (`plots::type_confusion`, the counts and
//! the kappa of the `type_confusion` and `type_agreement` tables) and the
//! boundary-disagreement bars (`plots::stacked_counts`, the counts of the
//! `boundary_disagreements` table).
//!
//! Draws only numbers already computed; writes nothing.

use anyhow::Result;

use super::run::{kappa_of, PairResult};
use super::Analysis;
use rsmreport_report::plots::{
    file_safe, forest, kappa_heatmap, stacked_counts, type_confusion, ConfusionPanel, Forest,
    ForestPanel, KappaMatrix, StackedCounts, TypeConfusion,
};
use rsmreport_report::render::format::{num3, thousands};
use rsmreport_report::render::{Block, Builder};

/// The heat map of every pair's strict F1 (NaN: no common document).
/// Its annotators are those of the agreement tables (`Results::raters`).
pub fn pairs_heatmap(b: &mut Builder, a: &Analysis) -> Result<Block> {
    let raters = &a.res.raters;
    let n = raters.len();
    let at = |k: usize| raters.iter().position(|&r| r == k).expect("a rater");
    let mut values = vec![f64::NAN; n * n];
    for p in &a.res.pairs {
        let f = super::run::pair_f1(p, 0);
        let (i, j) = (at(p.i), at(p.j));
        values[i * n + j] = f;
        values[j * n + i] = f;
    }
    let mut fig = kappa_heatmap(&KappaMatrix {
        raters: raters
            .iter()
            .map(|&k| a.data.annotators[k].clone())
            .collect(),
        values,
        statistic: "strict F1".into(),
    })?;
    fig.name = "span_agreement_heatmap".into();
    fig.title = "Pairwise strict F1".into();
    fig.description = "Heat map: for each pair of annotators, the F1 of their spans under the \
                       strict criterion (same start, end and label) on the documents both \
                       annotated; positive specific agreement, not chance-corrected."
        .into();
    Ok(Block::Figure(b.figure(fig)))
}

/// Per candidate system, the forest plot of its differences from the
/// baseline (overall statistics, then per type), with their paired
/// bootstrap intervals and verdicts.
pub fn comparison_forests(b: &mut Builder, a: &Analysis) -> Result<Vec<Block>> {
    let comps = &a.sys_iv.comparisons;
    let mut candidates: Vec<usize> = comps.iter().map(|c| c.candidate_system).collect();
    candidates.dedup();
    let mut out = Vec::new();
    for cand in candidates {
        let mine: Vec<_> = comps
            .iter()
            .filter(|c| c.candidate_system == cand)
            .collect();
        let base = &a.data.annotators[mine[0].baseline_system];
        let name = &a.data.annotators[cand];
        let d = Forest {
            group: file_safe(name),
            levels: mine
                .iter()
                .map(|c| match c.scope.strip_prefix("label=") {
                    Some(l) => format!("f1 {l}"),
                    None => c.statistic.to_string(),
                })
                .collect(),
            marks: mine.iter().map(|c| c.verdict.to_string()).collect(),
            panels: vec![ForestPanel {
                statistic: format!("{name} - {base}"),
                points: mine
                    .iter()
                    .map(|c| (c.delta.value, c.delta.lower, c.delta.upper))
                    .collect(),
            }],
        };
        let mut fig = forest(&d)?;
        fig.name = format!("spans_forest_{}", file_safe(name));
        fig.title = format!("Differences of {name} from {base}");
        fig.description = format!(
            "Forest plot: for each statistic (micro and macro F1, micro precision and recall, \
             then F1 per type), {name} minus {base} on the same documents as a dot with its \
             paired bootstrap interval as a bar, the verdict in brackets; the dashed line marks \
             no difference."
        );
        out.push(Block::Figure(b.figure(fig)));
    }
    Ok(out)
}

/// At most this many pairs get a type-confusion panel, and a bar.
const MAX_PANELS: usize = 12;
const MAX_BARS: usize = 20;

/// One pair as the type and boundary figures show it: the pair, and
/// whether its sides are swapped (the reference's labels are the rows).
type Shown<'a> = (&'a PairResult, bool);

/// The reference the type and boundary figures show every other
/// annotator against: the reference without `systems` (with them the
/// figures show the agreement among the human annotators, as the tables).
fn versus(a: &Analysis) -> Option<usize> {
    a.res.reference.filter(|_| a.res.under_test.is_empty())
}

/// The pairs the type and boundary figures show: with a reference
/// ([`versus`]), each other annotator against it (the reference first);
/// else every pair, or the
/// `max` first by `key` (ascending, then pair order) when there are more.
/// The second value: how many pairs were left out.
fn shown_pairs<'a>(
    a: &'a Analysis,
    max: usize,
    key: impl Fn(&PairResult) -> f64,
) -> (Vec<Shown<'a>>, usize) {
    let pairs = &a.res.pairs;
    if let Some(r) = versus(a) {
        let shown: Vec<Shown> = pairs
            .iter()
            .filter(|p| p.i == r || p.j == r)
            .map(|p| (p, p.j == r))
            .collect();
        return (shown, 0);
    }
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    if pairs.len() > max {
        order.sort_by(|&x, &y| key(&pairs[x]).total_cmp(&key(&pairs[y])).then(x.cmp(&y)));
        order.truncate(max);
        order.sort_unstable();
    }
    let left = pairs.len() - order.len();
    (
        order.into_iter().map(|k| (&pairs[k], false)).collect(),
        left,
    )
}

/// The names of a shown pair: (rows' side, columns' side).
fn sides<'a>(a: &'a Analysis, &(p, swapped): &Shown) -> (&'a str, &'a str) {
    let (x, y) = if swapped { (p.j, p.i) } else { (p.i, p.j) };
    (&a.data.annotators[x], &a.data.annotators[y])
}

/// The kappa of a pair's `overlap_any` label pairs, as `type_agreement`.
fn pair_kappa(a: &Analysis, p: &PairResult) -> f64 {
    kappa_of(&p.any_labels, a.data.labels.len())
}

/// The heat maps of the labels of spans matched under `overlap_any`, one
/// panel per pair (with a reference: each system against it), Cohen's
/// kappa in each panel's title; a note when pairs were left out.
pub fn confusion_heatmaps(b: &mut Builder, a: &Analysis) -> Result<Vec<Block>> {
    let (shown, left) = shown_pairs(a, MAX_PANELS, |p| {
        let k = pair_kappa(a, p);
        if k.is_nan() {
            f64::INFINITY
        } else {
            k
        }
    });
    let panels: Vec<ConfusionPanel> = shown.iter().map(|s| confusion_panel(a, s)).collect();
    let with_ref = versus(a).is_some();
    let d = TypeConfusion {
        name: "span_type_confusion".into(),
        title: "Type confusion of matched spans, with Cohen's kappa".into(),
        description: format!(
            "Heat maps, one per pair of annotators{}: spans matched under overlap_any \
             (overlapping, labels ignored; a maximum one-to-one matching), the label on one \
             side as the row and on the other as the column, the count in each cell (stronger \
             blue: more); the diagonal holds the spans both labelled alike. Each title gives \
             Cohen's kappa on those label pairs.",
            if with_ref {
                ", each system against the reference"
            } else {
                ""
            }
        ),
        panels,
    };
    let mut out = Vec::new();
    if left > 0 {
        out.push(Block::Note(format!(
            "The {MAX_PANELS} pairs with the lowest kappa are drawn; {left} more are in the \
             type_confusion table."
        )));
    }
    out.push(Block::Figure(b.figure(type_confusion(&d)?)));
    Ok(out)
}

fn confusion_panel(a: &Analysis, s: &Shown) -> ConfusionPanel {
    let (p, swapped) = *s;
    let counts = &p.any_labels;
    let mut codes: Vec<u32> = counts.keys().flat_map(|&(x, y)| [x, y]).collect();
    codes.sort_unstable();
    codes.dedup();
    let at = |c: u32| codes.binary_search(&c).expect("a label of the counts");
    let n = codes.len();
    let mut cells = vec![0u64; n * n];
    let (mut total, mut same) = (0u64, 0u64);
    for (&(x, y), &c) in counts {
        let (r, col) = if swapped { (y, x) } else { (x, y) };
        cells[at(r) * n + at(col)] += c;
        total += c;
        same += if x == y { c } else { 0 };
    }
    let (rows, cols) = sides(a, s);
    let share = if total > 0 {
        format!("{:.0}%", 100.0 * same as f64 / total as f64)
    } else {
        "n/a".into()
    };
    ConfusionPanel {
        title: vec![
            format!("{rows} × {cols}"),
            format!("Cohen's kappa {}", num3(pair_kappa(a, p))),
            format!("{} matched, {share} same label", thousands(total)),
        ],
        row_axis: format!("{rows}'s label"),
        column_axis: format!("{cols}'s label"),
        labels: codes
            .iter()
            .map(|&c| a.data.labels[c as usize].clone())
            .collect(),
        counts: cells,
    }
}

/// The bars of boundary disagreements of spans matched under `overlap`:
/// per pair (with a reference: each system against it) the pairs whose
/// start only, end only, or both boundaries differ (one inside the other,
/// or crossing); a note when pairs were left out.
pub fn boundary_bars(b: &mut Builder, a: &Analysis) -> Result<Vec<Block>> {
    let differ = |p: &PairResult| {
        let x = &p.boundaries;
        x.start_only + x.end_only + x.containment + x.crossing
    };
    // The most disagreeing shares first.
    let (shown, left) = shown_pairs(a, MAX_BARS, |p| {
        -(differ(p) as f64 / p.boundaries.matched.max(1) as f64)
    });
    let d = StackedCounts {
        name: "span_boundary_disagreements".into(),
        title: "Boundary disagreements of matched spans".into(),
        description: format!(
            "Stacked bars, one per pair of annotators{}: of the spans matched under overlap \
             (overlapping, same label), how many differ in the start only, the end only, or \
             both (one span inside the other, or crossing); after each bar, how many of the \
             matched pairs differ at all.",
            if versus(a).is_some() {
                ", each system against the reference"
            } else {
                ""
            }
        ),
        rows: shown
            .iter()
            .map(|s| {
                let (x, y) = sides(a, s);
                format!("{x} × {y}")
            })
            .collect(),
        parts: ["start only", "end only", "containment", "crossing"]
            .map(String::from)
            .to_vec(),
        counts: shown
            .iter()
            .map(|(p, _)| {
                let x = &p.boundaries;
                vec![x.start_only, x.end_only, x.containment, x.crossing]
            })
            .collect(),
        notes: shown
            .iter()
            .map(|(p, _)| {
                format!(
                    "{} of {} differ",
                    thousands(differ(p)),
                    thousands(p.boundaries.matched)
                )
            })
            .collect(),
        x_label: "matched span pairs whose boundaries differ".into(),
    };
    let mut out = Vec::new();
    if left > 0 {
        out.push(Block::Note(format!(
            "The {MAX_BARS} pairs with the largest share of differing boundaries are drawn; \
             {left} more are in the boundary_disagreements table."
        )));
    }
    out.push(Block::Figure(b.figure(stacked_counts(&d)?)));
    Ok(out)
}
