//! The `build` command's quality gates (gates spec): its run's tables as
//! [`Results`] for [`crate::gates::evaluate`]. The statistics are read
//! from the run's tables and intervals, never recomputed. The panel under
//! the report header and the terminal lines are every kind's
//! ([`crate::kinds::common::gates`]).
//!
//! No I/O.

use crate::gates::{self, Outcome, Results, Stat};
use crate::kinds::evaluation::run::Run;
use rsmreport_config::gates::{Cell as Location, ScoreTypes};

/// A run's results as gates see them.
pub struct RunResults<'a> {
    run: &'a Run,
    types: ScoreTypes,
}

impl<'a> RunResults<'a> {
    pub fn new(run: &'a Run) -> Self {
        RunResults {
            run,
            types: ScoreTypes::with_primary(&run.exp.scale_with, run.prepared.primary == "scale"),
        }
    }
}

/// Why a table a gate reads does not exist in this run.
fn missing_table(run: &Run, table: &str) -> String {
    let hh_based = ["consistency", "degradation", "disattenuated_correlations"]
        .iter()
        .any(|t| table.starts_with(t));
    if hh_based && run.prepared.sc2.is_none() {
        return "needs a second human score (second_human_score_column), and the experiment \
                has none"
            .into();
    }
    if table == "true_score_eval" {
        return "needs a second human score or rater_error_variance (true_score_eval is not \
                computed)"
            .into();
    }
    format!("not computed in this experiment (there is no {table} table)")
}

impl Results for RunResults<'_> {
    fn stat(&self, cell: &Location) -> Result<Stat, String> {
        let frame = self
            .run
            .analysis
            .frame(&cell.table)
            .filter(|f| f.is_writable())
            .ok_or_else(|| missing_table(self.run, &cell.table))?;
        let estimate = frame.value_at(&cell.row, &cell.column).ok_or_else(|| {
            format!(
                "not computed in this experiment ({} has no value for {} in row \"{}\")",
                cell.table, cell.column, cell.row
            )
        })?;
        let interval = self
            .run
            .intervals
            .as_ref()
            .and_then(|r| r.get(&cell.table, &cell.row, &cell.column))
            .map(|r| (r.interval.lower, r.interval.upper));
        Ok(Stat { estimate, interval })
    }

    fn levels(&self, group: &str) -> Vec<(String, u64)> {
        let Some(g) = self.run.prepared.groups.iter().find(|g| g.name == group) else {
            return Vec::new();
        };
        g.labels
            .iter()
            .cloned()
            .zip(g.counts().into_iter().map(|n| n as u64))
            .collect()
    }

    fn n(&self) -> u64 {
        self.run.prepared.n() as u64
    }

    fn double_scored(&self, level: Option<(&str, &str)>) -> Option<u64> {
        let (table, row) = match level {
            None => ("consistency".to_string(), ""),
            Some((g, l)) => (format!("consistency_by_{g}"), l),
        };
        let frame = self.run.analysis.frame(&table)?;
        let n = frame.value_at(row, "N")?;
        Some(if n.is_finite() && n > 0.0 {
            n as u64
        } else {
            0
        })
    }

    fn types(&self) -> &ScoreTypes {
        &self.types
    }
}

/// The gate results of `run` (in gate order); an error when a
/// `<subgroup>=<level>` scope names a level that is not in the data.
pub fn evaluate(run: &Run) -> Result<Vec<Outcome>, String> {
    let results = RunResults::new(run);
    gates::check_levels(&run.exp.gates, &results)?;
    Ok(gates::evaluate(&run.exp.gates, &results))
}
