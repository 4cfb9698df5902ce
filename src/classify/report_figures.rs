//! Command assembly (classify): the figure-bearing report sections
//! (confusion heat maps, PR and ROC curves, the reliability diagram, the
//! forest plot of paired differences, subgroup gaps) and the verdict
//! glossary. Figures are drawn by `crate::plots`; this file only selects
//! and arranges the numbers of an [`Analysis`].
//!
//! Produces report blocks; computes nothing new, writes nothing.

use anyhow::Result;

use super::run::{Analysis, SystemResult};
use super::tables::ComparisonRow;
use crate::render::context::Term;
use crate::render::model::Block;
use crate::render::Builder;

/// The confusion heat map of one system.
pub fn confusion(_b: &mut Builder, _a: &Analysis, _sys: &SystemResult) -> Result<Vec<Block>> {
    Ok(Vec::new())
}

/// The forest plot of the paired differences.
pub fn forest(_b: &mut Builder, _a: &Analysis, _rows: &[ComparisonRow]) -> Result<Vec<Block>> {
    Ok(Vec::new())
}

/// PR and ROC curves per class.
pub fn curves_section(b: &mut Builder, _a: &Analysis) -> Result<Vec<Block>> {
    Ok(vec![Block::Heading(b.heading(2, "Curves"))])
}

/// The reliability diagram.
pub fn calibration_section(b: &mut Builder, _a: &Analysis) -> Result<Vec<Block>> {
    Ok(vec![Block::Heading(b.heading(2, "Calibration"))])
}

/// By subgroup.
pub fn groups_section(b: &mut Builder, _a: &Analysis) -> Result<Vec<Block>> {
    Ok(vec![Block::Heading(b.heading(2, "By subgroup"))])
}

/// What each verdict word means (compare.md 2.3, amended).
pub fn verdict_terms() -> Vec<Term> {
    [
        ("improved", "better, by more than the margin"),
        (
            "likely improved",
            "better, but it may be by less than the margin",
        ),
        ("changed within margin", "a real change too small to matter"),
        ("equivalent", "no change larger than the margin"),
        ("no detectable change", "the data cannot tell"),
        (
            "likely regressed",
            "worse, and it may be by more than the margin",
        ),
        ("regressed", "worse, by more than the margin"),
        (
            "no detectable change (after Holm)",
            "a per-class change whose Holm-adjusted p-value is not below 1 - level",
        ),
    ]
    .iter()
    .map(|(n, t)| Term {
        name: n.to_string(),
        text: t.to_string(),
    })
    .collect()
}
