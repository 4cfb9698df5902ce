//! Command assembly (compare): the parts of a comparison read from the
//! tables both folders stored (compare spec 2.5, parts 3-7 and 9): old /
//! new / Δ of `eval`, `consistency`, `degradation`,
//! `disattenuated_correlations`, `true_score_eval` and
//! `fairness_metrics_by_<g>`, both confusion matrices, the subgroup levels
//! present on one side only, and the provenance of both sides. Stored
//! values have no intervals; Δ is `candidate - baseline` of the stored
//! numbers (no statistic is recomputed here). A missing table leaves its
//! part empty with a sentence naming the missing file.
//!
//! Pure: works on opened archives; writes nothing.

use crate::kinds::versions::build::config_text;
use crate::kinds::versions::compare::between::Between;
use rsmreport_core::table::{Cell, Table, Values};
use rsmreport_io::input::archive::{Archive, INDEX};

/// One stored number of both sides and its difference.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredRow {
    /// The table it comes from (`eval`, `degradation`).
    pub table: String,
    /// The row label (`scale_trim`; `""` for a one-row table).
    pub row: String,
    /// The column (`wtkappa`, `PRMSE true`).
    pub statistic: String,
    pub baseline: f64,
    pub candidate: f64,
    /// `candidate - baseline` (NaN when a side lacks the value).
    pub delta: f64,
}

/// One part of the report: its rows and a sentence per missing file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Part {
    pub rows: Vec<StoredRow>,
    pub missing: Vec<String>,
}

/// Both sides' confusion matrices (`confMatrix`: human scores as rows,
/// machine scores as columns), on the union of both sides' labels; a
/// label one side lacks counts 0 there.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Matrices {
    pub rows: Vec<String>,
    pub columns: Vec<String>,
    pub baseline: Vec<Vec<f64>>,
    pub candidate: Vec<Vec<f64>>,
}

/// The levels of one subgroup that only one side evaluated.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OneSide {
    pub group: String,
    pub baseline_only: Vec<String>,
    pub candidate_only: Vec<String>,
}

/// Everything a comparison adds to the verdicts beyond the paired
/// statistics: the stored tables' parts, the provenance, and (when paired)
/// the relation between the two versions' scores.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Extra {
    pub eval: Part,
    pub consistency: Part,
    pub true_score: Part,
    /// The confusion matrices (none when a side has no `confMatrix`).
    pub confusion: Option<Matrices>,
    /// The sentences naming the missing `confMatrix` files.
    pub confusion_missing: Vec<String>,
    /// The stored score distributions (for a comparison without paired
    /// responses), with the sentences naming missing `score_dist` files.
    pub score_dist: Option<Distributions>,
    pub score_dist_missing: Vec<String>,
    /// Per subgroup (either side's), its fairness part.
    pub fairness: Vec<(String, Part)>,
    pub one_side: Vec<OneSide>,
    /// `(item, baseline, candidate)`.
    pub provenance: Vec<(String, String, String)>,
    /// The two versions on the paired responses (none when unpaired).
    pub between: Option<Between>,
}

impl Extra {
    /// The stored parts of `b` (baseline) and `c` (candidate).
    pub fn new(b: &Archive, c: &Archive) -> Extra {
        let groups = union(&b.subgroups, &c.subgroups);
        let (confusion, confusion_missing) = match matrices(b, c) {
            Ok(m) => (Some(m), Vec::new()),
            Err(missing) => (None, missing),
        };
        let (score_dist, score_dist_missing) = match distributions(b, c) {
            Ok(d) => (Some(d), Vec::new()),
            Err(missing) => (None, missing),
        };
        Extra {
            eval: part(b, c, &["eval"]),
            consistency: part(
                b,
                c,
                &["consistency", "degradation", "disattenuated_correlations"],
            ),
            true_score: part(b, c, &["true_score_eval"]),
            confusion,
            confusion_missing,
            score_dist,
            score_dist_missing,
            fairness: groups
                .iter()
                .map(|g| {
                    (
                        g.clone(),
                        part(b, c, &[&format!("fairness_metrics_by_{g}")]),
                    )
                })
                .collect(),
            one_side: groups.iter().filter_map(|g| one_side(b, c, g)).collect(),
            provenance: provenance(b, c),
            between: None,
        }
    }
}

/// `a` then the items of `b` not in `a`.
fn union(a: &[String], b: &[String]) -> Vec<String> {
    let mut out = a.to_vec();
    out.extend(b.iter().filter(|x| !a.contains(x)).cloned());
    out
}

/// A sentence per side lacking table `name`, naming the missing file.
fn missing(b: &Archive, c: &Archive, name: &str) -> Vec<String> {
    [("baseline", b), ("candidate", c)]
        .into_iter()
        .filter(|(_, a)| a.table(name).is_none())
        .map(|(side, a)| {
            format!(
                "The {side} folder has no {name} table ({} is missing), so this part is left out.",
                a.path_of(name).display()
            )
        })
        .collect()
}

/// The old / new / Δ rows of the tables `names` present on both sides.
fn part(b: &Archive, c: &Archive, names: &[&str]) -> Part {
    let mut out = Part::default();
    for name in names {
        match (b.table(name), c.table(name)) {
            (Some(x), Some(y)) => out.rows.extend(old_new(name, x, y)),
            _ => out.missing.extend(missing(b, c, name)),
        }
    }
    out
}

/// The row labels of a stored table (`""` for a row without one).
pub fn labels(t: &Table) -> Vec<String> {
    match t.column(INDEX) {
        Some(col) => (0..t.nrows)
            .map(|i| match col.values.cell(i) {
                Cell::Missing => String::new(),
                Cell::Text(s) => s,
                Cell::Int(v) => v.to_string(),
                Cell::Float(v) => v.to_string(),
                Cell::Bool(v) => v.to_string(),
            })
            .collect(),
        None => vec![String::new(); t.nrows],
    }
}

/// The numeric columns of a stored table (not the row labels, not text
/// columns such as `base_category`), with their values.
fn numeric(t: &Table) -> Vec<(&str, Vec<f64>)> {
    t.columns
        .iter()
        .filter(|c| c.name != INDEX && !matches!(c.values, Values::Text(_)))
        .map(|c| (c.name.as_str(), c.values.to_numeric()))
        .collect()
}

/// Old / new / Δ of every number of two stored versions of table `name`:
/// rows matched by label, columns by name (the baseline's order, then the
/// candidate's extra ones); a value one side lacks is NaN.
pub fn old_new(name: &str, b: &Table, c: &Table) -> Vec<StoredRow> {
    let (lb, lc) = (labels(b), labels(c));
    let (nb, nc) = (numeric(b), numeric(c));
    let rows = union(&lb, &lc);
    let names: Vec<String> = nb.iter().map(|(n, _)| n.to_string()).collect();
    let other: Vec<String> = nc.iter().map(|(n, _)| n.to_string()).collect();
    let columns = union(&names, &other);
    let value = |labels: &[String], cols: &[(&str, Vec<f64>)], row: &str, col: &str| {
        let i = labels.iter().position(|l| l == row)?;
        cols.iter().find(|(n, _)| *n == col).map(|(_, v)| v[i])
    };
    let mut out = Vec::new();
    for row in &rows {
        for col in &columns {
            let x = value(&lb, &nb, row, col).unwrap_or(f64::NAN);
            let y = value(&lc, &nc, row, col).unwrap_or(f64::NAN);
            out.push(StoredRow {
                table: name.to_string(),
                row: row.clone(),
                statistic: col.clone(),
                baseline: x,
                candidate: y,
                delta: y - x,
            });
        }
    }
    out
}

/// Both confusion matrices on the union of their labels; the sentences
/// naming the missing files when a side has none.
fn matrices(b: &Archive, c: &Archive) -> Result<Matrices, Vec<String>> {
    let (Some(x), Some(y)) = (b.table("confMatrix"), c.table("confMatrix")) else {
        return Err(missing(b, c, "confMatrix"));
    };
    Ok(align_matrices(x, y))
}

/// Two confusion matrices on the union of their row and column labels
/// (sorted as numbers when they all are).
pub fn align_matrices(x: &Table, y: &Table) -> Matrices {
    let cols = |t: &Table| -> Vec<String> {
        t.columns
            .iter()
            .filter(|c| c.name != INDEX)
            .map(|c| c.name.clone())
            .collect()
    };
    let rows = sorted_labels(union(&labels(x), &labels(y)));
    let columns = sorted_labels(union(&cols(x), &cols(y)));
    let grid = |t: &Table| -> Vec<Vec<f64>> {
        let lt = labels(t);
        rows.iter()
            .map(|r| {
                let i = lt.iter().position(|l| l == r);
                columns
                    .iter()
                    .map(|col| match (i, t.column(col)) {
                        (Some(i), Some(c)) => c.values.to_numeric()[i],
                        _ => 0.0,
                    })
                    .collect()
            })
            .collect()
    };
    Matrices {
        baseline: grid(x),
        candidate: grid(y),
        rows,
        columns,
    }
}

/// Percent of responses per score label of each side's stored
/// `score_dist`: the human scores (the baseline's) and each side's
/// machine score.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Distributions {
    pub scores: Vec<f64>,
    pub human: Vec<f64>,
    pub baseline: Vec<f64>,
    pub candidate: Vec<f64>,
}

/// Both stored `score_dist` tables on the union of their score labels.
fn distributions(b: &Archive, c: &Archive) -> Result<Distributions, Vec<String>> {
    let (Some(x), Some(y)) = (b.table("score_dist"), c.table("score_dist")) else {
        return Err(missing(b, c, "score_dist"));
    };
    Ok(align_distributions(x, y))
}

/// `(score, human, machine)` of a stored `score_dist` (the machine column
/// is its `sys_*` column).
fn score_columns(t: &Table) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let col = |pick: &dyn Fn(&str) -> bool| {
        t.columns
            .iter()
            .find(|c| pick(&c.name))
            .map_or_else(|| vec![f64::NAN; t.nrows], |c| c.values.to_numeric())
    };
    (
        col(&|n| n == "score"),
        col(&|n| n == "human"),
        col(&|n| n.starts_with("sys_")),
    )
}

/// Two stored score distributions on the union of their score labels (a
/// label a side lacks is 0% there).
pub fn align_distributions(x: &Table, y: &Table) -> Distributions {
    let (sx, hx, mx) = score_columns(x);
    let (sy, _, my) = score_columns(y);
    let mut scores: Vec<f64> = sx
        .iter()
        .chain(&sy)
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    scores.sort_by(f64::total_cmp);
    scores.dedup();
    let at = |labels: &[f64], values: &[f64], s: f64| {
        labels
            .iter()
            .position(|l| *l == s)
            .map_or(0.0, |i| values[i])
    };
    Distributions {
        human: scores.iter().map(|s| at(&sx, &hx, *s)).collect(),
        baseline: scores.iter().map(|s| at(&sx, &mx, *s)).collect(),
        candidate: scores.iter().map(|s| at(&sy, &my, *s)).collect(),
        scores,
    }
}

/// Labels in numeric order when every one is a number, else as given.
fn sorted_labels(mut labels: Vec<String>) -> Vec<String> {
    let num = |s: &String| s.trim().parse::<f64>().ok();
    if labels.iter().all(|l| num(l).is_some()) {
        labels.sort_by(|a, b| num(a).unwrap_or(0.0).total_cmp(&num(b).unwrap_or(0.0)));
    }
    labels
}

/// The levels of `group` in a side's `eval_by_<group>` (without the
/// whole-set row).
fn stored_levels(a: &Archive, group: &str) -> Option<Vec<String>> {
    let t = a.table(&format!("eval_by_{group}"))?;
    Some(labels(t).into_iter().filter(|l| l != "All data").collect())
}

/// The levels of `group` only one side's `eval_by_<group>` lists; `None`
/// when a side lacks that table or both list the same levels.
fn one_side(b: &Archive, c: &Archive, group: &str) -> Option<OneSide> {
    let (lb, lc) = (stored_levels(b, group)?, stored_levels(c, group)?);
    let only = |x: &[String], y: &[String]| -> Vec<String> {
        x.iter().filter(|l| !y.contains(l)).cloned().collect()
    };
    let out = OneSide {
        group: group.to_string(),
        baseline_only: only(&lb, &lc),
        candidate_only: only(&lc, &lb),
    };
    (!out.baseline_only.is_empty() || !out.candidate_only.is_empty()).then_some(out)
}

/// The input files of a side's `summary.json` with their checksums, one
/// `role path sha256` per input.
fn inputs(a: &Archive) -> String {
    let Some(list) = a
        .summary
        .as_ref()
        .and_then(|s| s.get("inputs")?.as_array().cloned())
    else {
        return String::new();
    };
    list.iter()
        .filter_map(|i| {
            let role = i.get("role")?.as_str()?;
            let path = i.get("path").and_then(|p| p.as_str()).unwrap_or("");
            let sha = i.get("sha256").and_then(|p| p.as_str()).unwrap_or("");
            Some(format!("{role}: {path} {sha}").trim().to_string())
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The provenance rows of both sides (compare spec 2.5, 9).
fn provenance(b: &Archive, c: &Archive) -> Vec<(String, String, String)> {
    let each = |f: &dyn Fn(&Archive) -> String| (f(b), f(c));
    let rows: [(&str, (String, String)); 8] = [
        ("folder", each(&|a| a.dir.display().to_string())),
        ("producer", each(&|a| a.producer.name.clone())),
        (
            "producer version",
            each(&|a| a.producer.version.clone().unwrap_or_default()),
        ),
        ("experiment id", each(&|a| a.id.clone())),
        ("model version", each(&|a| config_text(a, "model_version"))),
        ("table format", each(&|a| a.format.extension().to_string())),
        ("description", each(&|a| config_text(a, "description"))),
        ("inputs and checksums", each(&inputs)),
    ];
    rows.into_iter()
        .map(|(item, (x, y))| (item.to_string(), x, y))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsmreport_core::table::Column;

    fn table(labels: &[&str], columns: &[(&str, &[f64])]) -> Table {
        let mut cols = vec![Column::new(
            INDEX,
            rsmreport_core::table::text_values(labels.iter().map(|l| Some(*l))),
        )];
        cols.extend(
            columns
                .iter()
                .map(|(n, v)| Column::new(*n, Values::Float(v.to_vec()))),
        );
        Table {
            columns: cols,
            nrows: labels.len(),
        }
    }

    #[test]
    fn old_new_matches_rows_by_label_and_columns_by_name() {
        let b = table(
            &["raw", "raw_trim"],
            &[("corr", &[0.5, 0.6]), ("RMSE", &[1.0, 0.9])],
        );
        let c = table(
            &["raw_trim", "scale"],
            &[
                ("RMSE", &[0.8, 0.7]),
                ("corr", &[0.7, 0.65]),
                ("R2", &[0.3, 0.2]),
            ],
        );
        let rows = old_new("eval", &b, &c);
        // 3 row labels (raw, raw_trim, scale) x 3 columns (corr, RMSE, R2).
        assert_eq!(rows.len(), 9);
        let get = |row: &str, stat: &str| {
            rows.iter()
                .find(|r| r.row == row && r.statistic == stat)
                .unwrap()
                .clone()
        };
        let r = get("raw_trim", "corr");
        assert_eq!((r.baseline, r.candidate), (0.6, 0.7));
        assert!((r.delta - 0.1).abs() < 1e-12);
        let r = get("raw_trim", "RMSE");
        assert!((r.delta + 0.1).abs() < 1e-12);
        assert!(get("raw", "corr").candidate.is_nan() && get("raw", "corr").delta.is_nan());
        assert!(get("scale", "R2").baseline.is_nan());
        assert_eq!(rows[0].table, "eval");
        assert_eq!(
            rows.iter()
                .map(|r| r.statistic.as_str())
                .take(3)
                .collect::<Vec<_>>(),
            ["corr", "RMSE", "R2"]
        );
    }

    #[test]
    fn a_table_with_itself_has_zero_deltas() {
        let b = table(&[""], &[("N", &[10.0]), ("corr", &[0.5])]);
        let rows = old_new("consistency", &b, &b);
        assert_eq!(rows.len(), 2);
        assert!(rows.iter().all(|r| r.delta == 0.0 && r.row.is_empty()));
    }

    #[test]
    fn stored_score_distributions_are_aligned_on_both_labels() {
        let x = table(
            &["1.0", "2.0"],
            &[
                ("score", &[1.0, 2.0]),
                ("human", &[40.0, 60.0]),
                ("sys_raw", &[30.0, 70.0]),
            ],
        );
        let y = table(
            &["2.0", "3.0"],
            &[
                ("score", &[2.0, 3.0]),
                ("human", &[50.0, 50.0]),
                ("sys_scale", &[90.0, 10.0]),
            ],
        );
        let d = align_distributions(&x, &y);
        assert_eq!(d.scores, [1.0, 2.0, 3.0]);
        assert_eq!(d.human, [40.0, 60.0, 0.0]);
        assert_eq!(d.baseline, [30.0, 70.0, 0.0]);
        assert_eq!(d.candidate, [0.0, 90.0, 10.0]);
    }

    #[test]
    fn confusion_matrices_are_aligned_on_both_labels() {
        let b = table(&["1", "2"], &[("1", &[3.0, 1.0]), ("2", &[0.0, 4.0])]);
        let c = table(
            &["1", "2", "3"],
            &[("1", &[2.0, 1.0, 0.0]), ("3", &[0.0, 0.0, 5.0])],
        );
        let m = align_matrices(&b, &c);
        assert_eq!(m.rows, ["1", "2", "3"]);
        assert_eq!(m.columns, ["1", "2", "3"]);
        assert_eq!(m.baseline[0], [3.0, 0.0, 0.0]);
        assert_eq!(m.baseline[2], [0.0, 0.0, 0.0]);
        assert_eq!(m.candidate[2], [0.0, 0.0, 5.0]);
        assert_eq!(sorted_labels(vec!["10".into(), "9".into()]), ["9", "10"]);
    }
}
