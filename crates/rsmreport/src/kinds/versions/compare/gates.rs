//! Command assembly (compare): quality gates on a comparison (gates spec
//! 5). `delta.*` gates read the signed paired differences `candidate -
//! baseline` of the verdict table (whole set) and of the subgroup levels,
//! `gain.*` gates their oriented change (positive is better; for SMD and
//! DSM `|baseline| - |candidate|`); every other gate reads the
//! candidate's own stored tables and their `_ci` intervals, exactly as
//! `build --gates` would on the candidate. Nothing is recomputed.
//!
//! Pure: works on a finished [`Comparison`] and the opened candidate
//! folder; writes nothing.

use crate::gates::{Results, Stat};
use crate::kinds::versions::build::paired::VerdictRow;
use crate::kinds::versions::compare::run::Comparison;
use rsmreport_config::gates::{Cell, Context, ScoreTypes};
use rsmreport_io::input::archive::Archive;

/// The score types a folder's `eval` table has (of the six names gates
/// know).
fn score_types(candidate: &Archive, trim: &str) -> ScoreTypes {
    const NAMES: [&str; 6] = [
        "raw",
        "raw_trim",
        "raw_trim_round",
        "scale",
        "scale_trim",
        "scale_trim_round",
    ];
    let pick = |t: &str| NAMES.iter().copied().find(|n| *n == t);
    let trim = pick(trim).unwrap_or("raw_trim");
    let round = if trim == "scale_trim" {
        "scale_trim_round"
    } else {
        "raw_trim_round"
    };
    let mut all: Vec<&'static str> = NAMES
        .iter()
        .copied()
        .filter(|t| candidate.evaluates(t))
        .collect();
    for t in [trim, round] {
        if !all.contains(&t) {
            all.push(t);
        }
    }
    ScoreTypes { all, trim, round }
}

/// The validation context of a comparison's gates: its subgroups, the
/// candidate's score types, `delta.*` allowed.
pub fn context<'a>(
    subgroups: &'a [String],
    candidate: &Archive,
    score_type: &str,
    bootstrap: bool,
    min_n: &'a dyn Fn(&str) -> u64,
) -> Context<'a> {
    Context {
        subgroups,
        types: score_types(candidate, score_type),
        bootstrap,
        min_n,
        compare: true,
    }
}

/// A comparison and its candidate as gates see them.
pub struct CompareResults<'a> {
    cmp: &'a Comparison,
    candidate: &'a Archive,
    types: ScoreTypes,
}

impl<'a> CompareResults<'a> {
    pub fn new(cmp: &'a Comparison, candidate: &'a Archive) -> Self {
        CompareResults {
            cmp,
            candidate,
            types: score_types(candidate, &cmp.score_type),
        }
    }

    /// A difference of the verdict rows: its signed `delta` or its
    /// oriented `gain` (`kind`).
    fn delta(&self, row: Option<&VerdictRow>, kind: &str, what: &str) -> Result<Stat, String> {
        let r = row.ok_or_else(|| format!("{what} was not compared"))?;
        let e = if kind == "gain" { r.gain } else { r.delta };
        Ok(Stat {
            estimate: e.value,
            interval: (e.lower.is_finite() && e.upper.is_finite()).then_some((e.lower, e.upper)),
        })
    }

    /// A statistic of the candidate's stored tables, with its interval
    /// from the `_ci` table when the folder has one.
    fn stored(&self, cell: &Cell) -> Result<Stat, String> {
        let table = self.candidate.table(&cell.table).ok_or_else(|| {
            format!(
                "the candidate folder has no {} table, so this statistic is not available",
                cell.table
            )
        })?;
        let estimate = table.value_at(&cell.row, &cell.column).ok_or_else(|| {
            format!(
                "the candidate's {} has no value for {} in row \"{}\"",
                cell.table, cell.column, cell.row
            )
        })?;
        Ok(Stat {
            estimate,
            interval: self.stored_interval(cell),
        })
    }

    fn stored_interval(&self, cell: &Cell) -> Option<(f64, f64)> {
        self.candidate
            .stored_interval((&cell.table, &cell.row, &cell.column), None)
    }
}

impl Results for CompareResults<'_> {
    fn stat(&self, cell: &Cell) -> Result<Stat, String> {
        if cell.table == "delta" || cell.table == "gain" {
            if cell.row != self.cmp.score_type {
                return Err(format!(
                    "the comparison is on {}, not {}",
                    self.cmp.score_type, cell.row
                ));
            }
            let row = self.cmp.overall.iter().find(|r| r.statistic == cell.column);
            return self.delta(row, &cell.table, &format!("{}.{}", cell.table, cell.column));
        }
        let by_level = ["delta", "gain"].into_iter().find_map(|kind| {
            let group = cell.table.strip_prefix(kind)?.strip_prefix("_by_")?;
            Some((kind, group))
        });
        if let Some((kind, group)) = by_level {
            let row = self
                .cmp
                .groups
                .iter()
                .filter(|(g, _)| g == group)
                .flat_map(|(_, rows)| rows)
                .find(|r| r.level == cell.row && r.row.statistic == cell.column)
                .map(|r| &r.row);
            return self.delta(
                row,
                kind,
                &format!("{kind}.{} of {group}={}", cell.column, cell.row),
            );
        }
        self.stored(cell)
    }

    fn levels(&self, group: &str) -> Vec<(String, u64)> {
        let compared = || {
            let mut out: Vec<(String, u64)> = Vec::new();
            for r in self
                .cmp
                .groups
                .iter()
                .filter(|(g, _)| g == group)
                .flat_map(|(_, r)| r)
            {
                if !out.iter().any(|(l, _)| *l == r.level) {
                    out.push((r.level.clone(), r.n_candidate as u64));
                }
            }
            out
        };
        let Some(t) = self.candidate.table(&format!("eval_by_{group}")) else {
            return compared();
        };
        let (Some(labels), Some(n)) = (t.columns.first(), t.column("N")) else {
            return compared();
        };
        let n = n.values.to_numeric();
        (0..t.nrows)
            .filter_map(|i| match labels.values.cell(i) {
                rsmreport_core::table::Cell::Text(l) if l != "All data" => {
                    Some((l, if n[i].is_finite() { n[i] as u64 } else { 0 }))
                }
                _ => None,
            })
            .collect()
    }

    fn n(&self) -> u64 {
        self.candidate
            .table("eval")
            .and_then(|t| t.value_at(&self.cmp.score_type, "N"))
            .filter(|n| n.is_finite())
            .map_or(0, |n| n as u64)
    }

    fn double_scored(&self, level: Option<(&str, &str)>) -> Option<u64> {
        let (table, row) = match level {
            None => ("consistency".to_string(), ""),
            Some((g, l)) => (format!("consistency_by_{g}"), l),
        };
        let n = self.candidate.table(&table)?.value_at(row, "N")?;
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

/// The gate results of a comparison (in gate order); an error when a
/// `<subgroup>=<level>` scope names a level that is not in the data.
///
/// Also an error (exit 2, gates spec 2.1): two gates with one name (their
/// JUnit test cases would be indistinguishable), and a gate on a bound of
/// an interval where no line of it has one (the comparison has no
/// intervals: stored estimates only, or the candidate's tables have none),
/// which would otherwise be skipped and let CI pass without checking.
pub fn evaluate(
    gates: &[rsmreport_config::gates::Gate],
    cmp: &Comparison,
    candidate: &Archive,
) -> Result<Vec<crate::gates::Outcome>, String> {
    rsmreport_config::gates::unique_names(gates)?;
    let results = CompareResults::new(cmp, candidate);
    crate::gates::check_levels(gates, &results)?;
    let out = crate::gates::evaluate(gates, &results);
    for g in gates
        .iter()
        .filter(|g| g.bound != rsmreport_config::gates::Bound::Estimate)
    {
        let mut lines = out.iter().filter(|o| &o.gate == g).peekable();
        let unchecked = lines.peek().is_some()
            && lines.all(|o| {
                o.status == crate::gates::Status::Skipped
                    && o.reason.starts_with("no interval was computed")
            });
        if unchecked {
            return Err(format!(
                "{}: the gate \"{}\" compares the {} bound of an interval, but this comparison \
                 has no interval for {} (intervals are off, a side has no per-response files, or \
                 the candidate's tables have no intervals); use bound = \"estimate\" or switch \
                 intervals on",
                g.place(),
                g.name,
                g.bound.name(),
                g.metric
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::kinds::versions::build::paired::{BY_LEVEL, HEADLINE};
    use rsmreport_config::gates::{DELTA_BY_LEVEL, DELTA_OVERALL};

    #[test]
    fn the_delta_metrics_gates_accept_are_the_compared_statistics() {
        let overall: Vec<&str> = HEADLINE.iter().map(|s| s.name).collect();
        assert_eq!(overall, DELTA_OVERALL);
        let levels: Vec<&str> = BY_LEVEL.iter().map(|s| s.name).collect();
        assert_eq!(levels, DELTA_BY_LEVEL);
    }
}
