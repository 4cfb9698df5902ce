//! Command assembly (compare): the preflight table of compare spec 2.1,
//! what is being compared, each row `same`, `differs` or `not available`.
//!
//! Pure: reads the archives' values, writes nothing.

use crate::kinds::versions::build::config_text;
use crate::kinds::versions::build::pairing::{Pairing, LOW_OVERLAP};
use rsmreport_io::input::archive::{Archive, Responses};

/// One row of the preflight table.
#[derive(Clone, Debug, PartialEq)]
pub struct PreflightRow {
    pub item: String,
    pub baseline: String,
    pub candidate: String,
    /// `same`, `differs` or `not available`.
    pub status: &'static str,
}

impl PreflightRow {
    /// The row in the shape every kind's comparison shares.
    pub fn shared(&self) -> crate::kinds::common::versions::PreflightRow {
        crate::kinds::common::versions::PreflightRow {
            item: self.item.clone(),
            status: self.status.to_string(),
            baseline: self.baseline.clone(),
            candidate: self.candidate.clone(),
        }
    }
}

fn row(item: &str, baseline: String, candidate: String) -> PreflightRow {
    let status = if baseline.is_empty() || candidate.is_empty() {
        "not available"
    } else if baseline == candidate {
        "same"
    } else {
        "differs"
    };
    PreflightRow {
        item: item.to_string(),
        baseline,
        candidate,
        status,
    }
}

/// The first few ids of a list, for a mismatch row.
fn first_ids(ids: &[rsmreport_core::table::Text]) -> String {
    let shown: Vec<&str> = ids.iter().take(5).map(|s| &**s).collect();
    let more = if ids.len() > 5 { ", ..." } else { "" };
    format!("{}{more}", shown.join(", "))
}

/// The rows about the responses (spec 2.1, first and second bullets).
fn response_rows(p: &Pairing) -> Vec<PreflightRow> {
    let share = |k: usize, n: usize| format!("{k} ({:.1}%)", 100.0 * k as f64 / n.max(1) as f64);
    // Judged, not just shown (compare spec 2.4, amended): fewer than 90% of
    // either side in common (0 included) differs.
    let judged = |k: usize| {
        let enough = |n: usize| n > 0 && k as f64 >= LOW_OVERLAP * n as f64;
        if enough(p.n_baseline) && enough(p.n_candidate) {
            "same"
        } else {
            "differs"
        }
    };
    let mut out = vec![
        row(
            "evaluated responses",
            p.n_baseline.to_string(),
            p.n_candidate.to_string(),
        ),
        PreflightRow {
            status: judged(p.common),
            ..row(
                "ids in common",
                share(p.common, p.n_baseline),
                share(p.common, p.n_candidate),
            )
        },
        PreflightRow {
            status: if p.only_baseline() + p.only_candidate() == 0 {
                "same"
            } else {
                "differs"
            },
            ..row(
                "ids on this side only",
                p.only_baseline().to_string(),
                p.only_candidate().to_string(),
            )
        },
    ];
    let mismatch = |item: &str, ids: &[rsmreport_core::table::Text], available: bool| {
        let text = if ids.is_empty() {
            "0".to_string()
        } else {
            format!("{} ({})", ids.len(), first_ids(ids))
        };
        PreflightRow {
            item: item.to_string(),
            baseline: text.clone(),
            candidate: text,
            status: match (available, ids.is_empty()) {
                (false, _) => "not available",
                (true, true) => "same",
                (true, false) => "differs",
            },
        }
    };
    out.push(mismatch(
        "first human scores differing on common ids",
        &p.sc1_mismatches,
        p.common > 0,
    ));
    out.push(mismatch(
        "second human scores differing on common ids",
        &p.sc2_mismatches,
        p.common > 0 && p.sc2_compared,
    ));
    out.push(PreflightRow {
        status: judged(p.pairs.len()),
        ..row(
            "responses paired",
            share(p.pairs.len(), p.n_baseline),
            share(p.pairs.len(), p.n_candidate),
        )
    });
    out
}

/// The SHA-256 of the input file of `role` (`scale`) an rsmreport
/// folder's summary records.
fn input_sha256(a: &Archive, role: &str) -> Option<String> {
    a.summary
        .as_ref()?
        .get("inputs")?
        .as_array()?
        .iter()
        .find(|i| i.get("role").and_then(|r| r.as_str()) == Some(role))?
        .get("sha256")?
        .as_str()
        .map(String::from)
}

/// The input files' checksums of an rsmreport folder's summary.
fn checksums(a: &Archive) -> String {
    let Some(inputs) = a
        .summary
        .as_ref()
        .and_then(|s| s.get("inputs")?.as_array().cloned())
    else {
        return String::new();
    };
    inputs
        .iter()
        .filter_map(|i| {
            let role = i.get("role")?.as_str()?;
            let sha = i.get("sha256")?.as_str()?;
            Some(format!("{role} {}", &sha[..sha.len().min(12)]))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The responses a side excluded, by reason: the non-zero cells of its
/// `test_excluded_composition` (human score kind / system score kind, the
/// row labels in its `Human/System` column, which the reference leaves
/// out when nothing was excluded), `none` when every cell is 0, empty
/// without the table.
fn exclusions(a: &Archive) -> String {
    const LABELS: &str = "Human/System";
    let Some(t) = a.table("test_excluded_composition") else {
        return String::new();
    };
    let labels = t.column(LABELS);
    let counts = t.columns.iter().filter(|c| c.name != LABELS);
    let mut parts = Vec::new();
    for i in 0..t.nrows {
        let label = match labels.map(|l| l.values.cell(i)) {
            Some(rsmreport_core::table::Cell::Text(s)) => format!("{s} / "),
            _ => String::new(),
        };
        for c in counts.clone() {
            let n = c.values.to_numeric()[i];
            if n.is_finite() && n > 0.0 {
                parts.push(format!("{label}{}: {n}", c.name));
            }
        }
    }
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join("; ")
    }
}

/// The subgroup levels of a side's responses, sorted.
fn levels(r: Option<&Responses>, group: &str) -> Vec<String> {
    let Some((_, values)) = r.and_then(|r| r.groups.iter().find(|(g, _)| g == group)) else {
        return Vec::new();
    };
    let distinct: std::collections::HashSet<&str, rsmreport_core::table::FxBuild> =
        values.iter().flatten().map(|v| &**v).collect();
    let mut out: Vec<String> = distinct.into_iter().map(String::from).collect();
    out.sort();
    out
}

/// Every row of the preflight table.
pub fn rows(
    b: &Archive,
    c: &Archive,
    pairing: Option<&Pairing>,
    responses: (Option<&Responses>, Option<&Responses>),
    headline: &[String; 2],
) -> Vec<PreflightRow> {
    let mut out = match pairing {
        Some(p) => response_rows(p),
        None => vec![row("evaluated responses", String::new(), String::new())],
    };
    out.push(row(
        "score type its report leads with",
        headline[0].clone(),
        headline[1].clone(),
    ));
    for key in [
        "trim_min",
        "trim_max",
        "trim_tolerance",
        "scale_with",
        "exclude_zero_scores",
        "rater_error_variance",
    ] {
        let (vb, vc) = (config_text(b, key), config_text(c, key));
        // No scale_with is a scaling mode of its own: none.
        let none = |v: String| if v.is_empty() { "none".to_string() } else { v };
        let (vb, vc) = if key == "scale_with" {
            (none(vb), none(vc))
        } else {
            (vb, vc)
        };
        let mut r = row(key, vb, vc);
        if key == "scale_with" {
            // A file: the same content is the same scale, wherever it is.
            if let (Some(sb), Some(sc)) = (input_sha256(b, "scale"), input_sha256(c, "scale")) {
                r.status = if sb == sc { "same" } else { "differs" };
            }
        }
        out.push(r);
    }
    out.push(row("excluded responses", exclusions(b), exclusions(c)));
    out.push(row(
        "subgroups",
        b.subgroups.join(", "),
        c.subgroups.join(", "),
    ));
    let mut groups: Vec<&String> = b.subgroups.iter().chain(&c.subgroups).collect();
    groups.sort();
    groups.dedup();
    for g in groups {
        let (lb, lc) = (levels(responses.0, g), levels(responses.1, g));
        let only = |x: &[String], y: &[String]| {
            x.iter()
                .filter(|l| !y.contains(l))
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        };
        let (ob, oc) = (only(&lb, &lc), only(&lc, &lb));
        out.push(PreflightRow {
            status: if lb.is_empty() || lc.is_empty() {
                "not available"
            } else if ob.is_empty() && oc.is_empty() {
                "same"
            } else {
                "differs"
            },
            ..row(&format!("levels of {g} on this side only"), ob, oc)
        });
    }
    let producer = |a: &Archive| match &a.producer.version {
        Some(v) => format!("{} {v}", a.producer.name),
        None => a.producer.name.clone(),
    };
    out.push(row("producer", producer(b), producer(c)));
    out.push(row("experiment id", b.id.clone(), c.id.clone()));
    out.push(row(
        "model version",
        config_text(b, "model_version"),
        config_text(c, "model_version"),
    ));
    out.push(row("input checksums", checksums(b), checksums(c)));
    out
}
