//! The `build` report: the rsmreport-only views of `spec/agreement.md`:
//! the `rater_agreement` section (1.1, 3: the human raters' coefficients,
//! the pairs with the machine as one more rater, the categories), the
//! "Per score point" subsection of `evaluation` (4) and the PRMSE from
//! all human ratings under `true_score_evaluation` (5). The blocks are
//! those of `rsmreport agree`'s report (`crate::kinds::common::agreement`),
//! one level deeper.
//! Reads the run's typed results; no I/O, no rendering.

use anyhow::Result;

use super::add_row_intervals;
use crate::kinds::common::agreement::{
    categories_blocks, classification_tables, coefficients_blocks, pairs_blocks,
};
use crate::kinds::evaluation::report::Builder;
use rsmreport_report::render::tables::{frame_table, FrameOpts};
use rsmreport_report::render::Block;

/// The `rater_agreement` section.
pub fn rater_agreement(b: &mut Builder) -> Result<Vec<Block>> {
    let run = b.run;
    let mut out = vec![Block::Heading(b.heading(2, "Agreement among raters"))];
    let r = match &run.analysis.raters {
        Some(Ok(r)) => r,
        Some(Err(why)) => {
            out.push(Block::Paragraph(format!(
                "The agreement among the raters is not computed: {why}."
            )));
            return Ok(out);
        }
        None => return Ok(out),
    };
    let a = &r.agreement;
    let humans = &a.ratings.raters[..a.ratings.raters.len() - 1];
    let resampled = if r.cfg.intervals.is_some() {
        " Their intervals resample responses, also where the other intervals of this report \
         resample test takers."
    } else {
        ""
    };
    out.push(Block::Paragraph(format!(
        "Every human score column ({}) is a rater and every score point a category. The \
         coefficients describe the human raters alone, on every evaluated response (a \
         response scored once counts towards no pair).{resampled} In the pairs, the heat map \
         and the label distributions the machine, its rounded scores ({}), is one more rater, \
         so the human-human and human-machine pairs sit side by side. The reference's \
         consistency tables keep using the first two human scores only.",
        humans.join(", "),
        r.machine
    )));
    out.extend(coefficients_blocks(b, a, &r.cfg, 3));
    out.extend(pairs_blocks(b, a, &r.cfg, 3)?);
    out.extend(categories_blocks(b, a, 3)?);
    Ok(out)
}

/// The "Per score point" subsection of `evaluation` (with
/// `classification = true`).
pub fn per_score_point(b: &mut Builder) -> Vec<Block> {
    let run = b.run;
    let Some(view) = &run.analysis.classification else {
        return Vec::new();
    };
    let mut out = vec![Block::Heading(b.heading(3, "Per score point"))];
    let c = match view {
        Ok(c) => c,
        Err(why) => {
            out.push(Block::Paragraph(format!(
                "The classification view is not computed: {why}."
            )));
            return out;
        }
    };
    let name = c.raters.first().map_or("", |r| r.rater.as_str());
    out.push(Block::Paragraph(format!(
        "Each score point as a class: the rounded machine scores ({name}) against the first \
         human score ({}), as scikit-learn computes them (a precision or recall of 0/0 counts \
         as 0: zero_division = 0).",
        run.exp.human_score_column
    )));
    out.extend(classification_tables(
        b,
        &c.raters,
        &c.categories,
        true,
        "score type",
    ));
    out
}

/// The PRMSE from all human ratings, after the reference's true score
/// table (with `other_human_score_columns`).
pub fn all_raters_prmse(b: &mut Builder) -> Vec<Block> {
    let Some(f) = b.frame("true_score_eval_all_raters") else {
        return Vec::new();
    };
    let exp = &b.run.exp;
    let mut columns = vec![exp.human_score_column.clone()];
    columns.extend(exp.second_human_score_column.clone());
    columns.extend(exp.other_human_score_columns.iter().cloned());
    let heading = b.heading(4, "PRMSE from all human ratings");
    let what = if exp.rater_error_variance.is_some() {
        "the true score of a response uses (the error variance is the one supplied)"
    } else {
        "the error variance and the true score of a response use"
    };
    let text = format!(
        "The same statistics from every human rating of a response ({}), so {what} up to {} \
         ratings. The reference's table keeps the first two.",
        columns.join(", "),
        columns.len()
    );
    let t = b.table(
        "prmse all raters",
        "How well each machine score type predicts the true score estimated from all human \
         ratings",
        true,
        true,
    );
    let mut table = frame_table(
        t,
        f,
        &FrameOpts {
            index: Some("score type"),
            counts: &["N", "N raters", "N single", "N multiple"],
            ..FrameOpts::default()
        },
    );
    add_row_intervals(b, &mut table, "true_score_eval_all_raters");
    vec![
        Block::Heading(heading),
        Block::Paragraph(text),
        Block::Table(table),
    ]
}
