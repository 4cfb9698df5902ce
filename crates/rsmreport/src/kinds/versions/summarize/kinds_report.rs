//! Command assembly (summarize): the outputs of a summary of the folders
//! of a kind other than build ([`super::kinds`]): its tables
//! (`<sid>_summary.csv`, one row per version with each statistic and its
//! interval; `<sid>_summary_deltas.csv`, build's summary's columns), the
//! summary's keys, the terminal lines, the decision of the first screen
//! (build's summary's rule, [`super::report::decide`]) and the HTML
//! report through the engine: the versions, their differences from the
//! baseline coloured by verdict, what each comparison decided, each
//! folder's gates, one trend figure per statistic, the folders.
//!
//! Produces data, text and a [`Report`] value; writes nothing.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::{json, Value};

use super::kinds::{KindSummary, KindVersion};
use super::report::{count, decide, named_sections, row, row_header, trend_figure, Judged};
use super::tables::{deltas_frame, estimate_columns, num_col, text_col, triple};
use crate::kinds::common::comparison::ComparisonRow;
use crate::kinds::common::versions::change_line;
use crate::kinds::versions::report::{number, verdict_class, verdict_counts};
use rsmreport_core::table::Frame;
use rsmreport_io::output::json::number as json_number;
use rsmreport_report::render::context::{Cell, InputCtx, Table};
use rsmreport_report::render::format::{escape_html, num3, p_clause, thousands};
use rsmreport_report::render::tables::{head, text_cell};
use rsmreport_report::render::{Block, Builder, Decision, Header, Report, Section};

impl crate::kinds::Report for KindSummary {
    fn id(&self) -> &str {
        &self.id
    }

    fn decision(&self) -> Option<Decision> {
        Some(decision(self))
    }

    fn tables(&self) -> crate::kinds::Tables<'_> {
        crate::kinds::owned(vec![version_frame(self), delta_frame(self)])
    }

    fn summary(&self) -> Value {
        summary_json(self)
    }

    fn inputs(&self) -> Vec<InputCtx> {
        self.versions.iter().map(|v| v.input.0.clone()).collect()
    }

    fn report(&self, epoch: i64) -> Result<Report> {
        report(self, epoch)
    }

    fn lines(&self, _written: &[PathBuf], _dir: &Path) -> Vec<String> {
        lines(self)
    }
}

/// `(version, row)` of every difference from the baseline.
fn delta_rows(s: &KindSummary) -> Vec<(&KindVersion, &ComparisonRow)> {
    s.versions
        .iter()
        .filter_map(|v| v.against.as_ref().map(|a| (v, a)))
        .flat_map(|(v, a)| a.rows.iter().map(move |r| (v, r)))
        .collect()
}

/// A statistic of a version as `(estimate, lower, upper)` (NaN when it
/// has none).
fn triple_of(v: &KindVersion, statistic: &str) -> (f64, f64, f64) {
    v.estimate(statistic)
        .map_or((f64::NAN, f64::NAN, f64::NAN), |e| {
            (e.value, e.lower, e.upper)
        })
}

/// One row per version: its identity, N, each statistic with its
/// interval, its gates, whether it is the baseline.
fn version_frame(s: &KindSummary) -> Frame {
    let v = &s.versions;
    let mut cols = vec![
        text_col("version", v.iter().map(|x| x.label.clone())),
        text_col("experiment_id", v.iter().map(|x| x.folder.id.clone())),
        text_col("system", v.iter().map(|x| x.system.clone())),
        num_col("N", v.iter().map(|x| x.units as f64)),
    ];
    for name in &s.statistics {
        let values: Vec<(f64, f64, f64)> = v.iter().map(|x| triple_of(x, name)).collect();
        cols.extend(estimate_columns(name, &values));
    }
    cols.push(text_col(
        "gates_passed",
        v.iter()
            .map(|x| x.gates_passed().map_or_else(String::new, |p| p.to_string())),
    ));
    cols.push(text_col(
        "baseline",
        (0..v.len()).map(|i| (i == s.baseline).to_string()),
    ));
    Frame::new("summary", None, cols)
}

/// The differences from the baseline, one row per version and statistic
/// (build's summary's columns).
fn delta_frame(s: &KindSummary) -> Frame {
    let lines: Vec<(&str, &ComparisonRow)> = delta_rows(s)
        .into_iter()
        .map(|(v, r)| (v.label.as_str(), r))
        .collect();
    deltas_frame(&lines)
}

/// The summary's keys (`summarize_version` 1).
fn summary_json(s: &KindSummary) -> Value {
    let version = |v: &KindVersion| {
        let stats: serde_json::Map<String, Value> = v
            .estimates
            .iter()
            .map(|(n, e)| (n.clone(), triple((e.value, e.lower, e.upper))))
            .collect();
        let against = v.against.as_ref().map(|a| {
            let rows: Vec<Value> = a
                .rows
                .iter()
                .map(|r| {
                    json!({"statistic": r.statistic,
                           "delta": triple((r.delta.value, r.delta.lower, r.delta.upper)),
                           "p_value": json_number(r.p_value), "verdict": r.verdict.name()})
                })
                .collect();
            json!({
                "comparison_id": a.id,
                "badge": a.decision.as_ref().map(|d| d.badge.clone()),
                "sentence": a.decision.as_ref().map(|d| d.sentence.clone()),
                "rows": rows,
            })
        });
        json!({
            "label": v.label,
            "folder": v.folder.dir.display().to_string(),
            "experiment_id": v.folder.id,
            "model_version": v.folder.summary.get("model_version"),
            "system": v.system,
            "n": v.units,
            "statistics": stats,
            "gates": v.gates,
            "against_baseline": against,
        })
    };
    json!({
        "summarize_version": 1,
        "summary_id": s.id,
        "summarized_kind": s.kind,
        "unit": s.unit,
        "baseline": s.versions[s.baseline].label,
        "statistics": s.statistics,
        "versions": s.versions.iter().map(version).collect::<Vec<_>>(),
        "inputs": s.versions.iter().map(|v| v.input.1.clone()).collect::<Vec<_>>(),
    })
}

/// The decision of the first screen: build's summary's rule on each
/// version's whole-set verdicts and its folder's gates; each comparison's
/// warnings (ground truth that differs), with its version's label.
fn decision(s: &KindSummary) -> Decision {
    let judged: Vec<Judged<'_>> = s
        .versions
        .iter()
        .filter_map(|v| {
            let a = v.against.as_ref()?;
            Some(Judged {
                label: &v.label,
                counts: verdict_counts(a.rows.iter().map(|r| r.verdict)),
                gates_passed: v.gates_passed(),
            })
        })
        .collect();
    let failed = s
        .versions
        .iter()
        .filter(|v| v.gates_passed() == Some(false))
        .count();
    let base = &s.versions[s.baseline];
    let mut d = decide(&base.label, base.gates_passed(), &judged, failed);
    for v in &s.versions {
        let Some(cd) = v.against.as_ref().and_then(|a| a.decision.as_ref()) else {
            continue;
        };
        d.warnings
            .extend(cd.warnings.iter().map(|w| format!("{}: {w}", v.label)));
    }
    d
}

/// The terminal lines: one per version with N and its first three
/// statistics, then compare's `change:` line of each statistic of each
/// version against the baseline.
fn lines(s: &KindSummary) -> Vec<String> {
    let mut out = vec![format!(
        "summarize {} of {} (baseline {}):",
        super::count_versions(s.versions.len()),
        s.kind,
        s.versions[s.baseline].label
    )];
    for v in &s.versions {
        let stats: Vec<String> = s
            .statistics
            .iter()
            .take(3)
            .map(|n| match v.estimate(n) {
                Some(e) if e.lower.is_finite() => format!(
                    "{n} {} [{} {}]",
                    num3(e.value),
                    num3(e.lower),
                    num3(e.upper)
                ),
                Some(e) => format!("{n} {}", num3(e.value)),
                None => format!("{n} n/a"),
            })
            .collect();
        out.push(format!(
            "  {:<20} N = {:<8} {}",
            v.label,
            thousands(v.units as u64),
            stats.join("  ")
        ));
    }
    for (v, r) in delta_rows(s) {
        let scope = format!("{} {}", v.label, r.statistic);
        out.push(change_line(
            &scope,
            &r.delta,
            None,
            r.p_value,
            r.verdict.name(),
        ));
    }
    out
}

/// One row per version: N and each statistic with its interval.
fn version_table(b: &mut Builder, s: &KindSummary) -> Table {
    let mut t = b.table(
        "summary",
        "Each version's statistics as its own run reported them, with their intervals.",
        true,
        true,
    );
    t.columns = [head("version", false), head("N", true)]
        .into_iter()
        .chain(s.statistics.iter().map(|n| head(n, true)))
        .collect();
    t.rows = s
        .versions
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let mut label = v.label.clone();
            if i == s.baseline {
                label.push_str(" (baseline)");
            }
            let mut cells = vec![row_header(&label), count(v.units as f64)];
            cells.extend(s.statistics.iter().map(|n| {
                v.estimate(n).map_or_else(
                    || text_cell(""),
                    |e| number(e.value, Some((e.lower, e.upper))),
                )
            }));
            row(cells)
        })
        .collect();
    t
}

/// One row per version other than the baseline: Δ of each statistic with
/// its interval, coloured by the verdict (in the tooltip with the p-value).
fn delta_table(b: &mut Builder, s: &KindSummary) -> Table {
    let mut t = b.table(
        "summary_deltas",
        "Each version minus the baseline, paired on the units both share: the difference Δ \
         with its interval, coloured by the verdict of the comparison of the two folders \
         (green improved, red regressed, amber changed within the margin, plain no change \
         or not testable); the verdict and the p-value are in each cell's tooltip and in the \
         CSV.",
        true,
        true,
    );
    t.columns = std::iter::once(head("version", false))
        .chain(s.statistics.iter().map(|n| head(&format!("Δ {n}"), true)))
        .collect();
    for v in &s.versions {
        let Some(a) = &v.against else {
            continue;
        };
        let mut cells = vec![row_header(&v.label)];
        for n in &s.statistics {
            cells.push(match a.rows.iter().find(|r| r.statistic == *n) {
                Some(r) => Cell {
                    class: format!("num {}", verdict_class(r.verdict)),
                    title: format!("{} ({})", r.verdict.name(), p_clause(r.p_value)),
                    ..number(r.delta.value, Some((r.delta.lower, r.delta.upper)))
                },
                None => text_cell(""),
            });
        }
        t.rows.push(row(cells));
    }
    t
}

/// Each folder's own gates: passed, failed or none, with the counts.
fn gates_table(b: &mut Builder, s: &KindSummary) -> Table {
    let mut t = b.table(
        "gates",
        "The quality gates each version's own run judged.",
        false,
        false,
    );
    t.columns = ["version", "gates", "pass", "fail", "warn"]
        .iter()
        .enumerate()
        .map(|(i, n)| head(n, i >= 2))
        .collect();
    for v in &s.versions {
        let judged = |k: &str| {
            v.gates
                .as_ref()
                .and_then(|g| g.get("counts")?.get(k)?.as_u64())
                .map_or_else(|| text_cell(""), |n| count(n as f64))
        };
        let word = match v.gates_passed() {
            Some(true) => "passed",
            Some(false) => "FAILED",
            None => "none",
        };
        t.rows.push(row(vec![
            row_header(&v.label),
            text_cell(word),
            judged("pass"),
            judged("fail"),
            judged("warn"),
        ]));
    }
    t
}

/// Where each version comes from.
fn folders_table(b: &mut Builder, s: &KindSummary) -> Table {
    let mut t = b.table("provenance", "The folders summarized.", false, false);
    t.columns = ["version", "folder", "experiment id", "system", "comparison"]
        .iter()
        .map(|n| head(n, false))
        .collect();
    t.rows = s
        .versions
        .iter()
        .map(|v| {
            row(vec![
                row_header(&v.label),
                text_cell(&v.folder.dir.display().to_string()),
                text_cell(&v.folder.id),
                text_cell(&v.system),
                text_cell(v.against.as_ref().map_or("", |a| a.id.as_str())),
            ])
        })
        .collect();
    t
}

/// One trend figure per statistic.
fn trends(b: &mut Builder, s: &KindSummary) -> Result<Vec<Block>> {
    let labels: Vec<String> = s.versions.iter().map(|v| v.label.clone()).collect();
    let mut out = Vec::new();
    for st in &s.statistics {
        let values = s.versions.iter().map(|v| triple_of(v, st)).collect();
        out.push(trend_figure(b, st, &labels, values, s.baseline)?);
    }
    Ok(out)
}

fn sections(b: &mut Builder, s: &KindSummary) -> Result<Vec<Section>> {
    let names = ["versions", "differences", "gates", "trends", "folders"];
    let ids = b.section_ids(names);
    let versions = vec![
        Block::Heading(b.heading(2, "Versions")),
        Block::Paragraph(format!(
            "Each version's statistics on its own {}s, as its run of rsmreport {} reported \
             them.",
            s.unit, s.kind
        )),
        Block::Table(version_table(b, s)),
    ];
    let mut differences = vec![Block::Heading(
        b.heading(2, "Differences from the baseline"),
    )];
    if s.versions.len() > 1 {
        differences.push(Block::Table(delta_table(b, s)));
        for v in &s.versions {
            if let Some(d) = v.against.as_ref().and_then(|a| a.decision.as_ref()) {
                differences.push(Block::Paragraph(format!(
                    "{} against the baseline: {}: {}",
                    v.label, d.badge, d.sentence
                )));
            }
        }
    } else {
        differences.push(Block::Paragraph(
            "Only one version: nothing to compare.".into(),
        ));
    }
    let gates = vec![
        Block::Heading(b.heading(2, "Gates")),
        Block::Table(gates_table(b, s)),
    ];
    let mut trend = vec![Block::Heading(b.heading(2, "Trends"))];
    trend.extend(trends(b, s)?);
    let folders = vec![
        Block::Heading(b.heading(2, "Folders")),
        Block::Table(folders_table(b, s)),
    ];
    Ok(named_sections(
        vec![versions, differences, gates, trend, folders],
        &names,
        ids,
    ))
}

/// The summary's report.
fn report(s: &KindSummary, epoch: i64) -> Result<Report> {
    let mut b = Builder::new(&s.id, false);
    let sections = sections(&mut b, s)?;
    let n = super::count_versions(s.versions.len());
    let header = Header {
        intro_html: format!(
            "This report summarizes {n} of <code>rsmreport {}</code> against the baseline \
             <strong>{}</strong>.",
            s.kind,
            escape_html(&s.versions[s.baseline].label)
        ),
        decision: Some(decision(s)),
        inputs: s.versions.iter().map(|v| v.input.0.clone()).collect(),
        ..Header::new("Summary report", format!("{n} ({})", s.kind), epoch)
    };
    Ok(b.finish(header, Vec::new(), sections, &[]))
}
