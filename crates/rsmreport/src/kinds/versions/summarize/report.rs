//! Command assembly (summarize): the summary's HTML report through the
//! report engine (compare spec 3): the versions with their intervals and
//! the best value of each statistic highlighted, the differences from the
//! baseline with their verdicts, one trend figure per headline statistic,
//! the worst subgroup levels, the fairness models and where every
//! folder comes from. Values are formatted here; the engine only places them
//! (and escapes every string).
//!
//! Produces a [`Report`] value; writes nothing.

use anyhow::Result;

use crate::kinds::versions::report::{number, verdict_class};
use crate::kinds::versions::summarize::run::Summary;
use crate::kinds::versions::summarize::tables::{statistic_names, subgroups};
use rsmreport_report::render::context::{Cell, Glance, InputCtx, Row, Table};
use rsmreport_report::render::format::{escape_html, num3, raw_value};
use rsmreport_report::render::tables::{head, text_cell};
use rsmreport_report::render::{Block, Decision, Header, Section, Tone};
use rsmreport_report::render::{Builder, Report};

/// A count (`5000`), empty when unknown.
pub(crate) fn count(n: f64) -> Cell {
    if !n.is_finite() {
        return text_cell("");
    }
    Cell {
        text: rsmreport_report::render::format::count_f64(n.round()),
        class: "num".into(),
        value: raw_value(n),
        ..Cell::default()
    }
}

/// A version's label as the row header; it wraps (`th.wrap`) before a
/// wide table scrolls, so the statistics stay in view on a large screen.
pub(crate) fn row_header(text: &str) -> Cell {
    Cell {
        header: true,
        class: "wrap".into(),
        ..text_cell(text)
    }
}

pub(crate) fn row(cells: Vec<Cell>) -> Row {
    Row {
        cells,
        class: String::new(),
    }
}

/// One row per version: N and every statistic with its interval, the best
/// value of each headline statistic highlighted.
fn version_table(b: &mut Builder, s: &Summary) -> Table {
    let mut t = b.table(
        "summary",
        "Each version's statistics on its own responses with their intervals (none for \
         stored estimates). Highlighted: the best value of the column.",
        true,
        true,
    );
    let names = statistic_names(s);
    t.columns = std::iter::once(head("version", false))
        .chain(std::iter::once(head("N", true)))
        .chain(names.iter().map(|n| head(n, true)))
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
            let mut cells = vec![row_header(&label), count(v.n)];
            for name in &names {
                let mut c = v.estimate(name).map_or_else(
                    || text_cell(""),
                    |e| number(e.value.0, Some((e.value.1, e.value.2))),
                );
                if s.best.contains(&(name, i)) && s.versions.len() > 1 {
                    c.class.push_str(" best");
                    c.title = "the best of the versions".into();
                }
                cells.push(c);
            }
            row(cells)
        })
        .collect();
    t
}

/// One row per version other than the baseline, one column per
/// statistic: Δ from the baseline with its interval, the cell coloured by
/// the verdict (the verdict and p-value in its tooltip).
fn delta_table(b: &mut Builder, s: &Summary) -> Table {
    let mut t = b.table(
        "summary_deltas",
        "Each version minus the baseline: the signed difference Δ with its interval (paired \
         on the responses both share, else unpaired), coloured by the verdict, which is taken \
         on the gain (Δ oriented so that positive is better; for SMD |baseline| - |candidate|, \
         closer to 0; the gain is in the tooltip and the CSV): green improved or likely \
         improved, red regressed or likely regressed, amber changed within the margin, plain \
         equivalent, no detectable change, not testable or not comparable (the words of \
         compare spec 2.3, explained in compare's report; never more than likely when \
         unpaired); the verdict and the bootstrap p-value are in each cell's tooltip and in \
         the CSV.",
        true,
        true,
    );
    let names: Vec<&str> = crate::kinds::versions::build::paired::HEADLINE
        .iter()
        .map(|st| st.name)
        .filter(|n| {
            s.versions.iter().any(|v| {
                v.delta
                    .as_ref()
                    .is_some_and(|(_, r)| r.iter().any(|r| r.statistic == *n))
            })
        })
        .collect();
    t.columns = ["version", "paired"]
        .iter()
        .map(|n| head(n, false))
        .chain(names.iter().map(|n| head(&format!("Δ {n}"), true)))
        .collect();
    for v in &s.versions {
        let Some((paired, rows)) = &v.delta else {
            continue;
        };
        let mut cells = vec![
            row_header(&v.label),
            text_cell(if *paired { "yes" } else { "no" }),
        ];
        for n in &names {
            cells.push(match rows.iter().find(|r| r.statistic == *n) {
                Some(r) => Cell {
                    class: format!("num {}", verdict_class(r.verdict)),
                    title: format!(
                        "{} (gain {}, {})",
                        r.verdict.name(),
                        num3(r.gain.value),
                        rsmreport_report::render::format::p_clause(r.p_value)
                    ),
                    ..number(r.delta.value, Some((r.delta.lower, r.delta.upper)))
                },
                None => text_cell(""),
            });
        }
        t.rows.push(row(cells));
    }
    t
}

/// A DSM cell, highlighted with its reason outside [-0.1, 0.1] (the
/// build report's rule for DSM by subgroup).
fn dsm_cell(dsm: f64) -> Cell {
    let why = rsmreport_report::render::tables::outside(dsm, Some(-0.1), Some(0.1));
    let mut c = number(dsm, None);
    if let Some(why) = why {
        c.class.push_str(" hl");
        c.title = why;
    }
    c
}

/// Per subgroup, each version's level with the largest absolute DSM.
fn worst_table(b: &mut Builder, s: &Summary) -> Table {
    let mut t = b.table(
        "summary_worst_dsm",
        "For each subgroup, the level with the largest absolute DSM (difference of the \
         standardized mean differences) of each version among the levels its build report \
         shows (those with at least min_n_per_group responses), with its responses N; \
         highlighted when |DSM| > 0.1, as in the build report.",
        true,
        true,
    );
    t.columns = ["version", "subgroup", "level", "N", "DSM"]
        .iter()
        .enumerate()
        .map(|(i, n)| head(n, i >= 3))
        .collect();
    for g in subgroups(s) {
        for v in &s.versions {
            if let Some(w) = v.worst.iter().find(|w| w.group == g) {
                t.rows.push(row(vec![
                    row_header(&v.label),
                    text_cell(&g),
                    text_cell(&w.level),
                    count(w.n),
                    dsm_cell(w.dsm),
                ]));
            }
        }
    }
    t
}

/// The fairness models' R2 and p-value of each version and subgroup.
fn fairness_table(b: &mut Builder, s: &Summary) -> Table {
    let mut t = b.table(
        "summary_fairness",
        "The fairness models of each version (fairness_metrics_by_<subgroup>): the share of \
         variance the subgroup explains (R2) and its p-value.",
        true,
        true,
    );
    t.columns = ["version", "subgroup", "model", "R2", "p"]
        .iter()
        .enumerate()
        .map(|(i, n)| head(n, i >= 3))
        .collect();
    for v in &s.versions {
        for f in &v.fairness {
            t.rows.push(row(vec![
                row_header(&v.label),
                text_cell(&f.group),
                text_cell(&f.model),
                number(f.r2, None),
                number(f.p, None),
            ]));
        }
    }
    t
}

/// Where each version comes from.
fn provenance_table(b: &mut Builder, s: &Summary) -> Table {
    let mut t = b.table("provenance", "The folders summarized.", false, false);
    t.columns = [
        "version",
        "folder",
        "experiment id",
        "producer",
        "model version",
        "score type",
    ]
    .iter()
    .map(|n| head(n, false))
    .collect();
    t.rows = s
        .versions
        .iter()
        .map(|v| {
            row(vec![
                row_header(&v.label),
                text_cell(&v.folder),
                text_cell(&v.id),
                text_cell(&v.producer),
                text_cell(v.model_version.as_deref().unwrap_or("")),
                text_cell(&v.score_type),
            ])
        })
        .collect();
    t
}

/// One trend figure per headline statistic any version has.
fn trends(b: &mut Builder, s: &Summary) -> Result<Vec<Block>> {
    let full: Vec<String> = s.versions.iter().map(|v| v.label.clone()).collect();
    // The figures' labels keep the part that tells the versions apart.
    let (prefix, labels) = rsmreport_report::render::format::distinct_labels(&full);
    let mut out = Vec::new();
    if !prefix.is_empty() {
        out.push(Block::Paragraph(format!(
            "The figures label each version without the prefix all of them share, \"{}\": {}.",
            prefix.trim(),
            labels
                .iter()
                .zip(&full)
                .map(|(l, f)| format!("{l} = {f}"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    for st in crate::kinds::versions::build::paired::HEADLINE {
        let values: Vec<(f64, f64, f64)> = s
            .versions
            .iter()
            .map(|v| {
                v.estimate(st.name)
                    .map_or((f64::NAN, f64::NAN, f64::NAN), |e| e.value)
            })
            .collect();
        if values.iter().all(|v| !v.0.is_finite()) {
            continue;
        }
        out.push(trend_figure(b, st.name, &labels, values, s.baseline)?);
    }
    Ok(out)
}

/// The trend figure of one statistic: each version's estimate with its
/// interval (`values`, in the order of `labels`), the baseline's dashed.
pub(crate) fn trend_figure(
    b: &mut Builder,
    statistic: &str,
    labels: &[String],
    values: Vec<(f64, f64, f64)>,
    baseline: usize,
) -> Result<Block> {
    let fig = rsmreport_report::plots::trend(&rsmreport_report::plots::Trend {
        statistic: statistic.to_string(),
        labels: labels.to_vec(),
        values,
        baseline,
    })?;
    let mut fig = b.figure(fig);
    fig.compact = true;
    Ok(Block::Figure(fig))
}

/// The report's sections: the blocks of each, with its name and id.
pub(crate) fn named_sections(
    parts: Vec<Vec<Block>>,
    names: &[&str],
    ids: Vec<String>,
) -> Vec<Section> {
    parts
        .into_iter()
        .zip(names)
        .zip(ids)
        .map(|((blocks, name), id)| Section {
            id,
            name: (*name).into(),
            kind: "builtin".into(),
            blocks,
        })
        .collect()
}

fn sections(b: &mut Builder, s: &Summary) -> Result<Vec<Section>> {
    let names = [
        "versions",
        "differences",
        "trends",
        "subgroups",
        "fairness",
        "folders",
    ];
    let ids = b.section_ids(names);
    let mut versions = vec![Block::Heading(b.heading(2, "Versions"))];
    versions.extend(s.notes.iter().map(|n| Block::Warning(n.clone())));
    versions.push(Block::Paragraph(format!(
        "Statistics on each version's {} responses: {}% bootstrap percentile intervals ({} \
         replicates of the responses), computed by the code of build and compare.",
        "evaluated",
        s.settings.level * 100.0,
        rsmreport_report::render::format::thousands(s.settings.replicates)
    )));
    versions.push(Block::Table(version_table(b, s)));
    let mut differences = vec![Block::Heading(
        b.heading(2, "Differences from the baseline"),
    )];
    differences.push(if s.versions.len() > 1 {
        Block::Table(delta_table(b, s))
    } else {
        Block::Paragraph("Only one version: nothing to compare.".into())
    });
    let mut trend = vec![Block::Heading(b.heading(2, "Trends"))];
    trend.extend(trends(b, s)?);
    let mut groups = vec![Block::Heading(b.heading(2, "Subgroups"))];
    groups.push(Block::Table(worst_table(b, s)));
    let mut fair = vec![Block::Heading(b.heading(2, "Fairness"))];
    fair.push(Block::Table(fairness_table(b, s)));
    let prov = vec![
        Block::Heading(b.heading(2, "Folders")),
        Block::Table(provenance_table(b, s)),
    ];
    Ok(named_sections(
        vec![versions, differences, trend, groups, fair, prov],
        &names,
        ids,
    ))
}

/// What the summary decided (issue 38): each version's verdict against
/// the baseline (the compare verdict counts) and its own gates, worst
/// first in the badge; a warning per version whose shared responses have
/// other human scores than the baseline's.
pub fn decision(s: &Summary) -> Decision {
    use crate::kinds::versions::report::verdict_counts;
    use rsmreport_report::render::format::thousands;
    let base = &s.versions[s.baseline];
    let mut judged = Vec::new();
    let mut warnings = Vec::new();
    for v in &s.versions {
        let Some((_, rows)) = &v.delta else {
            continue;
        };
        judged.push(Judged {
            label: &v.label,
            counts: verdict_counts(rows.iter().map(|r| r.verdict)),
            gates_passed: v.gates_passed,
        });
        if let Some(g) = v.ground.filter(|g| g.differing > 0) {
            warnings.push(format!(
                "different ground truth: the first human scores of {} differ from the baseline's on {} of the {} shared responses ({:.1}%); its verdicts rest on the {} responses whose human scores agree",
                v.label,
                thousands(g.differing as u64),
                thousands(g.common as u64),
                100.0 * g.differing as f64 / g.common.max(1) as f64,
                thousands(g.paired as u64)
            ));
        }
    }
    let gates_failed = s
        .versions
        .iter()
        .filter(|v| v.gates_passed == Some(false))
        .count();
    let mut d = decide(&base.label, base.gates_passed, &judged, gates_failed);
    d.warnings = warnings;
    d
}

/// One version's verdicts against the baseline, for [`decide`].
pub struct Judged<'a> {
    pub label: &'a str,
    /// `(regressed, improved, tested)` of its verdicts
    /// ([`crate::kinds::versions::report::verdict_counts`]).
    pub counts: (usize, usize, usize),
    /// Whether its folder's own gates passed (`None`: it had none).
    pub gates_passed: Option<bool>,
}

/// The decision of a summary of any kind: the badge (versions regressed,
/// else improved, else no regression; `gates failed` when any folder's
/// own gates failed, `gates_failed` of them) and one sentence with each
/// version's verdicts against the baseline `base`.
pub fn decide(
    base: &str,
    base_gates: Option<bool>,
    judged: &[Judged<'_>],
    gates_failed: usize,
) -> Decision {
    use crate::kinds::versions::report::verdict_badge;
    use rsmreport_report::render::format::thousands;
    let gates = |g: Option<bool>| match g {
        Some(true) => ", gates passed",
        Some(false) => ", gates FAILED",
        None => "",
    };
    let mut parts = Vec::new();
    let (mut regressed_versions, mut improved_versions) = (0usize, 0usize);
    for v in judged {
        let (regressed, improved, tested) = v.counts;
        regressed_versions += usize::from(regressed > 0);
        improved_versions += usize::from(improved > 0 && regressed == 0);
        parts.push(format!(
            "{} {} (regressed on {} of {} statistics, improved on {}{})",
            v.label,
            verdict_badge(v.counts).1,
            thousands(regressed as u64),
            thousands(tested as u64),
            thousands(improved as u64),
            gates(v.gates_passed)
        ));
    }
    let (tone, mut badge) = if judged.is_empty() {
        (Tone::Info, "one version".to_string())
    } else if regressed_versions > 0 {
        (
            Tone::Fail,
            format!(
                "{} of {} regressed",
                thousands(regressed_versions as u64),
                super::count_versions(judged.len())
            ),
        )
    } else if improved_versions > 0 {
        (Tone::Pass, "improved".to_string())
    } else {
        (Tone::Pass, "no regression".to_string())
    };
    let tone = if gates_failed > 0 {
        badge.push_str(", gates failed");
        Tone::Fail
    } else {
        tone
    };
    // The baseline's own gates, in brackets: "Against the baseline X,
    // gates passed: Y regressed" read as Y's.
    let base_gates = match base_gates {
        Some(true) => " (its gates passed)",
        Some(false) => " (its gates FAILED)",
        None => "",
    };
    let sentence = if judged.is_empty() {
        format!("Only the baseline {base}{base_gates}: no other version to compare it with.")
    } else {
        format!(
            "Against the baseline {base}{base_gates}: {}.",
            parts.join("; ")
        )
    };
    Decision::new(tone, badge, sentence)
}

fn header(s: &Summary, epoch: i64) -> Header {
    let glance = s
        .best
        .iter()
        .filter(|(n, _)| ["wtkappa", "corr", "PRMSE"].contains(n))
        .map(|&(n, i)| {
            let v = &s.versions[i];
            let e = v.estimate(n).map_or(f64::NAN, |e| e.value.0);
            Glance {
                label: format!("best {n}"),
                value: num3(e),
                title: format!("{n}: best of the versions"),
                ci: v.label.clone(),
            }
        })
        .collect();
    Header {
        intro_html: format!(
            "This report summarizes {} archived model {} against the baseline \
             <strong>{}</strong>.",
            s.versions.len(),
            if s.versions.len() == 1 {
                "version"
            } else {
                "versions"
            },
            escape_html(&s.versions[s.baseline].label)
        ),
        glance,
        decision: Some(decision(s)),
        inputs: s
            .versions
            .iter()
            .map(|v| InputCtx {
                role: v.label.clone(),
                path: crate::kinds::versions::folders::folder_label(
                    &v.folder,
                    v.inputs.files.len(),
                ),
                rows: if v.n.is_finite() {
                    format!("{}", v.n)
                } else {
                    String::new()
                },
                sha256: v.inputs.sha256.clone(),
            })
            .collect(),
        ..Header::new(
            "Summary report",
            format!(
                "{} model {}",
                s.versions.len(),
                if s.versions.len() == 1 {
                    "version"
                } else {
                    "versions"
                }
            ),
            epoch,
        )
    }
}

/// The summary's report.
pub fn report(s: &Summary, epoch: i64) -> Result<Report> {
    let mut b = Builder::new(&s.id, false);
    let sections = sections(&mut b, s)?;
    Ok(b.finish(header(s, epoch), Vec::new(), sections, &[]))
}

#[cfg(test)]
mod tests {
    use super::dsm_cell;

    #[test]
    fn dsm_beyond_a_tenth_is_highlighted_as_in_build() {
        for (dsm, hl) in [
            (0.1, false),
            (-0.1, false),
            (0.1001, true),
            (-0.25, true),
            (0.0, false),
        ] {
            let c = dsm_cell(dsm);
            assert_eq!(c.class.contains("hl"), hl, "{dsm}: {}", c.class);
            assert_eq!(c.title.is_empty(), !hl, "{dsm}");
        }
        assert!(!dsm_cell(f64::NAN).class.contains("hl"));
    }
}
