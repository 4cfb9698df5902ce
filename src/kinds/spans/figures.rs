//! Command assembly (spans): the report's figures (`spec/spans.md` 6)
//! through the shared plots: the heat map of pairwise strict F1
//! (`plots::kappa_heatmap`, as `agree`'s kappa matrix) and, with two or
//! more systems, one forest plot per candidate of its differences from
//! the baseline (`plots::forest`, as `classify`'s gains), the verdict
//! beside each statistic.
//!
//! Draws only numbers already computed; writes nothing.

use anyhow::Result;

use super::Analysis;
use crate::kinds::classify::report_figures::safe;
use crate::plots::{forest, kappa_heatmap, Forest, ForestPanel, KappaMatrix};
use crate::render::{Block, Builder};

/// The heat map of every pair's strict F1 (NaN: no common document).
pub fn pairs_heatmap(b: &mut Builder, a: &Analysis) -> Result<Block> {
    let n = a.data.annotators.len();
    let mut values = vec![f64::NAN; n * n];
    for p in &a.res.pairs {
        let f = super::run::pair_f1(p, 0);
        values[p.i * n + p.j] = f;
        values[p.j * n + p.i] = f;
    }
    let mut fig = kappa_heatmap(&KappaMatrix {
        raters: a.data.annotators.clone(),
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
    let mut candidates: Vec<usize> = comps.iter().map(|c| c.candidate).collect();
    candidates.dedup();
    let mut out = Vec::new();
    for cand in candidates {
        let mine: Vec<_> = comps.iter().filter(|c| c.candidate == cand).collect();
        let base = &a.data.annotators[mine[0].baseline];
        let name = &a.data.annotators[cand];
        let d = Forest {
            group: safe(name),
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
                    .map(|c| (c.delta, c.interval.lower, c.interval.upper))
                    .collect(),
            }],
        };
        let mut fig = forest(&d)?;
        fig.name = format!("spans_forest_{}", safe(name));
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
