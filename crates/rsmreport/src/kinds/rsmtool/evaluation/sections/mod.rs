//! The `build` report: one builder per built-in section (spec 5.4-5.12).
//! Each reads the [`Run`](crate::kinds::evaluation::run::Run) through the [`Builder`], decides
//! what is shown (skip conditions, thresholds, highlighting), formats every
//! number, and returns a typed context for its template. No I/O, no
//! rendering.

mod agreement;
mod groups;
mod meta;
mod raters;

use anyhow::{bail, Result};
use serde::Serialize;

use crate::kinds::evaluation::report::Builder;
use crate::preprocess::Exclusion;
use rsmreport_report::render::context::{Heading, Table};
use rsmreport_report::render::format::{percent, thousands};
use rsmreport_report::render::tables::{frame_table, FrameOpts};
use rsmreport_report::render::template;
use rsmreport_report::render::Block;

/// Builds the built-in section `name`.
pub fn builtin(b: &mut Builder, name: &str) -> Result<Vec<Block>> {
    if name == crate::analysis::raters::SECTION {
        return raters::rater_agreement(b);
    }
    let main = builtin_body(b, name)?;
    let has = |f: &str| b.frame(f).is_some();
    let note = match name {
        "evaluation" if has("eval") => intervals_note(b, false),
        "consistency" if has("consistency") => intervals_note(b, false),
        "true_score_evaluation" if has("true_score_eval") => intervals_note(b, false),
        "evaluation_by_group" if !b.run.prepared.groups.is_empty() => intervals_note(b, true),
        _ => None,
    };
    let more = match name {
        "evaluation" => raters::per_score_point(b),
        "true_score_evaluation" => raters::all_raters_prmse(b),
        _ => Vec::new(),
    };
    Ok(std::iter::once(main).chain(note).chain(more).collect())
}

/// The body of the built-in section `name`.
fn builtin_body(b: &mut Builder, name: &str) -> Result<Block> {
    match name {
        "data_description" => data_description(b),
        "data_description_by_group" => data_by_group(b),
        "consistency" => agreement::consistency(b),
        "evaluation" => agreement::evaluation(b),
        "true_score_evaluation" => agreement::true_score(b),
        "evaluation_by_group" => groups::evaluation_by_group(b),
        "fairness_analyses" => groups::fairness(b),
        "intermediate_file_paths" => meta::files(b),
        "sysinfo" => meta::sysinfo(b),
        other => bail!("unknown built-in report section {other}"),
    }
}

/// Whether any first human score is not a whole number (adds rounding
/// notes).
pub fn continuous_human(b: &Builder) -> bool {
    b.run.prepared.sc1.iter().any(|x| x.fract() != 0.0)
}

#[derive(Serialize)]
struct FlagCtx {
    column: String,
    values: String,
}

#[derive(Serialize)]
struct FlagsCtx {
    heading: Heading,
    n: String,
    pct: String,
    filters: Vec<FlagCtx>,
}

#[derive(Serialize)]
struct ReasonCtx {
    reason: String,
    n: String,
}

#[derive(Serialize)]
struct DoubleCtx {
    n: String,
    column: String,
    zeros_excluded: bool,
}

/// Non-numeric values of one of `other_human_score_columns`.
#[derive(Serialize)]
struct OtherNonNumeric {
    n: String,
    column: String,
}

#[derive(Serialize)]
struct DataCtx {
    heading: Heading,
    n_orig: String,
    n_evaluated: String,
    predictions_file: String,
    flags: Option<FlagsCtx>,
    excluded_heading: Heading,
    n_excluded: String,
    pct_excluded: String,
    any_excluded: bool,
    reasons: Vec<ReasonCtx>,
    excluded_table: Option<Table>,
    min_items: Option<String>,
    sc2_non_numeric: Option<String>,
    others_non_numeric: Vec<OtherNonNumeric>,
    second_column: String,
    composition_heading: Heading,
    composition_table: Option<Table>,
    double_scored: Option<DoubleCtx>,
}

/// The flag filter's paragraph (only when it removed responses).
fn flags_ctx(b: &mut Builder) -> Option<FlagsCtx> {
    let run = b.run;
    let (exp, p) = (&run.exp, &run.prepared);
    if p.n_flagged > 0 {
        let filters = exp
            .flag_column
            .iter()
            .map(|f| FlagCtx {
                column: f.column.clone(),
                values: f
                    .allowed
                    .iter()
                    .map(|v| match v {
                        rsmreport_config::FlagValue::Number(x) => {
                            rsmreport_report::render::format::score_label(*x)
                        }
                        rsmreport_config::FlagValue::Text(t) => t.clone(),
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
            })
            .collect();
        Some(FlagsCtx {
            heading: b.heading(3, "Responses removed by the flag filter"),
            n: thousands(p.n_flagged as u64),
            pct: percent(p.n_flagged, p.n_original),
            filters,
        })
    } else {
        None
    }
}

/// Why responses were excluded, one line per reason that applies.
fn exclusion_reasons(run: &crate::kinds::evaluation::run::Run) -> Vec<ReasonCtx> {
    let (exp, p) = (&run.exp, &run.prepared);
    crate::analysis::exclusion_counts(p)
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(why, n)| ReasonCtx {
            reason: match why {
                Exclusion::NonNumericHuman => "the human score is missing or not a number".into(),
                Exclusion::ZeroHuman => "the human score is 0 (zero scores are excluded)".into(),
                Exclusion::NonNumericSystem => {
                    "the machine score is missing or not a number".into()
                }
                Exclusion::Listwise => format!(
                    "the test taker has fewer than {} responses left",
                    exp.min_items_per_candidate.unwrap_or(0)
                ),
            },
            n: thousands(n as u64),
        })
        .collect()
}

/// The excluded responses by kind of human and machine score (when `k`
/// responses were excluded).
fn excluded_table(b: &mut Builder, k: usize) -> Option<Table> {
    match b.frame("test_excluded_composition") {
        Some(f) if k > 0 => {
            let t = b.table(
                "excluded composition",
                "Excluded responses by kind of human score (rows) and machine score (columns)",
                false,
                true,
            );
            Some(frame_table(
                t,
                f,
                &FrameOpts {
                    counts: &["numeric system score", "non-numeric system score"],
                    rename: &[
                        ("Human/System", "human score \\ machine score"),
                        ("numeric system score", "numeric machine score"),
                        ("non-numeric system score", "non-numeric machine score"),
                    ],
                    ..FrameOpts::default()
                },
            ))
        }
        _ => None,
    }
}

fn data_description(b: &mut Builder) -> Result<Block> {
    let run = b.run;
    let (exp, p) = (&run.exp, &run.prepared);
    let heading = b.heading(2, "Description of the data");
    let flags = flags_ctx(b);
    let excluded_heading = b.heading(3, "Responses excluded from the evaluation");
    let k = p.excluded.len();
    let reasons = exclusion_reasons(run);
    let excluded_table = excluded_table(b, k);
    let min_items = exp
        .min_items_per_candidate
        .filter(|&m| m > 0 && k > 0)
        .map(|m| m.to_string());
    let composition_heading = b.heading(3, "Composition of the evaluation set");
    let composition_table = b.frame("data_composition").map(|f| {
        let t = b.table(
            "data composition",
            "Number of responses, test takers and subgroup values in the evaluation set",
            true,
            true,
        );
        let mut t = frame_table(t, f, &FrameOpts::default());
        for c in t.columns.iter_mut() {
            if exp.subgroups.contains(&c.text) {
                c.title = format!("Number of distinct values of {}.", c.text);
            } else if c.text == "partition" {
                c.title = "The part of the data described.".into();
            }
        }
        t
    });
    let double_scored = exp.second_human_score_column.as_ref().map(|col| DoubleCtx {
        n: thousands(
            p.sc2
                .as_ref()
                .map_or(0, |s| s.iter().filter(|x| !x.is_nan()).count()) as u64,
        ),
        column: col.clone(),
        zeros_excluded: exp.exclude_zero_scores,
    });
    let ctx = DataCtx {
        heading,
        n_orig: thousands(p.n_original as u64),
        n_evaluated: thousands(p.n() as u64),
        predictions_file: exp
            .predictions_file
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        flags,
        excluded_heading,
        n_excluded: thousands(k as u64),
        pct_excluded: percent(k, p.n_original),
        any_excluded: k > 0,
        reasons,
        excluded_table,
        min_items,
        sc2_non_numeric: (p.sc2_non_numeric > 0).then(|| thousands(p.sc2_non_numeric as u64)),
        others_non_numeric: p
            .other_humans
            .iter()
            .filter(|o| o.non_numeric > 0)
            .map(|o| OtherNonNumeric {
                n: thousands(o.non_numeric as u64),
                column: o.name.clone(),
            })
            .collect(),
        second_column: exp.second_human_score_column.clone().unwrap_or_default(),
        composition_heading,
        composition_table,
        double_scored,
    };
    template("sections/data_description.html", &ctx)
}

#[derive(Serialize)]
struct GroupDataCtx {
    name: String,
    heading: Heading,
    table: Table,
    min_n: Option<String>,
}

#[derive(Serialize)]
struct DataByGroupCtx {
    groups: Vec<GroupDataCtx>,
}

fn data_by_group(b: &mut Builder) -> Result<Block> {
    let run = b.run;
    let mut groups = Vec::new();
    for g in &run.prepared.groups {
        let Some(f) = b.frame(&format!("data_composition_by_{}", g.name)) else {
            continue;
        };
        let heading = b.heading(3, format!("Number of responses by {}", g.name));
        let t = b.table(
            &format!("responses by {}", g.name),
            &format!(
                "Number of responses in the evaluation set for each value of {}",
                g.name
            ),
            true,
            true,
        );
        let mut table = frame_table(t, f, &FrameOpts::default());
        if let Some(c) = table.columns.first_mut() {
            c.title = format!("Value of {}.", g.name);
        }
        let m = run.exp.min_n_for(&g.name);
        groups.push(GroupDataCtx {
            name: g.name.clone(),
            heading,
            table,
            min_n: (m > 0).then(|| thousands(m)),
        });
    }
    template(
        "sections/data_description_by_group.html",
        &DataByGroupCtx { groups },
    )
}

/// The confidence level as a percentage (`95%`, `97.5%`).
fn level_text(level: f64) -> String {
    let pct = level * 100.0;
    if (pct - pct.round()).abs() < 1e-9 {
        format!("{}%", pct.round())
    } else {
        format!("{}%", rsmreport_report::render::format::short(pct))
    }
}

/// `[lo, hi]` with three decimals (readable with negative ends), or
/// `None` when the interval is NaN.
fn compact(lower: f64, upper: f64) -> Option<String> {
    use rsmreport_report::render::format::num3;
    (lower.is_finite() && upper.is_finite()).then(|| format!("[{}, {}]", num3(lower), num3(upper)))
}

/// A key figure's interval line (`95% CI [0.578, 0.620]`), empty without
/// one.
pub fn ci_line(
    run: &crate::kinds::evaluation::run::Run,
    source: &str,
    row: &str,
    metric: &str,
) -> String {
    let Some(results) = &run.intervals else {
        return String::new();
    };
    results
        .get(source, row, metric)
        .and_then(|r| compact(r.interval.lower, r.interval.upper))
        .map_or_else(String::new, |c| {
            format!("{} CI {c}", level_text(results.settings.level))
        })
}

/// The full column name of a header (`corr`, or `DSM.scale_trim`).
fn column_name(c: &rsmreport_report::render::context::ColumnHead) -> String {
    if c.sub.is_empty() {
        c.text.clone()
    } else {
        format!("{}.{}", c.text, c.sub)
    }
}

/// Shows each cell's interval under its value: `locate` gives, for a
/// table row, the `_ci` source and row label its cells belong to (`None`:
/// the row has no intervals); the column's name is the metric.
pub fn add_intervals(
    b: &Builder,
    t: &mut Table,
    locate: impl Fn(&rsmreport_report::render::context::Row) -> Option<(String, String)>,
) {
    let Some(results) = &b.run.intervals else {
        return;
    };
    let names: Vec<String> = t.columns.iter().map(column_name).collect();
    for row in &mut t.rows {
        let Some((source, label)) = locate(row) else {
            continue;
        };
        for (cell, name) in row.cells.iter_mut().zip(&names) {
            if let Some(r) = results.get(&source, &label, name) {
                cell.ci = compact(r.interval.lower, r.interval.upper).unwrap_or_default();
            }
        }
    }
}

/// [`add_intervals`] for a table whose rows are labelled by their first
/// cell (a row header), all from `source`.
pub fn add_row_intervals(b: &Builder, t: &mut Table, source: &str) {
    add_intervals(b, t, |row| {
        let label = row
            .cells
            .first()
            .filter(|c| c.header)
            .map_or_else(String::new, |c| c.text.clone());
        Some((source.to_string(), label))
    });
}

/// The sentence a section with intervals ends with: what the small print
/// under a number means and which unit was resampled.
pub fn intervals_note(b: &Builder, stratified: bool) -> Option<Block> {
    let r = b.run.intervals.as_ref()?;
    let s = &r.settings;
    let units = r.tables.first().map_or(0, |t| t.n_units);
    let (unit, together) = match s.unit {
        rsmreport_config::intervals::Unit::Response => ("responses", ""),
        rsmreport_config::intervals::Unit::Candidate => {
            ("test takers", " (all responses of a test taker together)")
        }
    };
    let how = if s.replicates == 0 {
        "from analytic formulas only (no bootstrap replicates were drawn), so most statistics have none".to_string()
    } else {
        format!(
            "from {} bootstrap resamples of the {} {unit}{together}{}",
            thousands(s.replicates),
            thousands(units as u64),
            if stratified {
                ", drawn within each group so every group keeps its size"
            } else {
                ""
            }
        )
    };
    Some(Block::Note(format!(
        "The small numbers under a value are its {} confidence interval, {how} (seed {}). \
         They show how much the number could differ in another sample of {unit} like this \
         one; they do not include the error of the human raters themselves.",
        level_text(s.level),
        s.seed
    )))
}
