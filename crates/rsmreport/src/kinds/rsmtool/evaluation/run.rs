//! Command assembly (evaluation): one run of `rsmreport build` or `check`:
//! the inputs ([`super::read`]) -> preprocess -> analysis -> intervals, and
//! the gates on the finished run. Defines no statistic of its own; reads
//! only through `read`; writes nothing.

use crate::analysis::intervals::{self, IntervalResults};
use crate::analysis::{self, Analysis};
use crate::preprocess::{self, Prepared};
use anyhow::{Context, Result};
use rsmreport_config::Experiment;
use rsmreport_core::provenance::{timed, InputInfo};
use rsmreport_core::schema::check_file_name_part;

/// The complete result of a run, before anything is written.
#[derive(Clone, Debug)]
pub struct Run {
    pub exp: Experiment,
    pub inputs: Vec<InputInfo>,
    pub prepared: Prepared,
    pub analysis: Analysis,
    /// Confidence intervals (their `_ci` tables are in `analysis.frames`);
    /// `None` when switched off.
    pub intervals: Option<IntervalResults>,
    /// The quality gate results, in gate order (empty without gates);
    /// filled by [`evaluate_gates`].
    pub gates: Vec<crate::gates::Outcome>,
}

/// Evaluates the experiment's gates on the finished run. The error (a
/// `<subgroup>=<level>` scope whose level is not in the data) is a
/// configuration error.
pub fn evaluate_gates(run: &mut Run) -> Result<(), String> {
    run.gates = timed("gates", || crate::kinds::evaluation::gates::evaluate(run))?;
    Ok(())
}

/// Reads the inputs of `exp` and computes every table.
pub fn execute(exp: Experiment) -> Result<Run> {
    for g in &exp.subgroups {
        check_file_name_part(g, "subgroup column")
            .with_context(|| format!("invalid `subgroups` in {}", exp.config_path.display()))?;
    }
    let pred_path = exp.predictions_file.clone();
    let (table, scale_table, inputs) = super::read::read(&exp)?;
    let prepared = timed("preprocess", || {
        preprocess::prepare(
            &exp,
            table,
            scale_table.as_ref(),
            &pred_path.display().to_string(),
        )
    })?;
    Ok(execute_prepared(exp, prepared, inputs))
}

/// The analyses and intervals of predictions already prepared by
/// `preprocess::prepare`: the second half of [`execute`], and the seam
/// through which `train` evaluates its test partition (train.md 10) with
/// exactly `build`'s tables, intervals included. `prepared.frames` (the
/// processing frames) are moved into the analysis frames, as in a build.
pub fn execute_prepared(exp: Experiment, mut prepared: Prepared, inputs: Vec<InputInfo>) -> Run {
    let mut analysis = timed("analyze", || {
        analysis::analyze_moving_frames(&exp, &mut prepared)
    });
    let intervals = exp.intervals.as_ref().map(|settings| {
        timed("intervals", || {
            let candidates = intervals::candidate_codes(&analysis.frames);
            intervals::compute(
                settings,
                &prepared,
                &analysis.frames,
                candidates.as_deref(),
                exp.rater_error_variance
                    .map(rsmreport_config::Number::as_f64),
            )
        })
    });
    if let Some(results) = &intervals {
        analysis.frames.extend(intervals::frames(results));
    }
    Run {
        exp,
        inputs,
        prepared,
        analysis,
        intervals,
        gates: Vec::new(),
    }
}
