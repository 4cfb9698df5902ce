//! Command assembly (compare): one comparison of two archived folders,
//! from the preflight to the verdicts (compare spec 2.1-2.4).
//!
//! Pure: works on opened archives; writes nothing.

use crate::compare::paired::{self, Aligned, DeltaRow, LevelRow, Statistic, BY_LEVEL, HEADLINE};
use crate::compare::pairing::{pair, Pairing};
use crate::compare::preflight::{self, PreflightRow};
use crate::config::compare::CompareConfig;
use crate::config::intervals::Intervals;
use crate::input::archive::{Archive, ArchiveError, Problem, Responses};
use crate::metrics::paired::Verdict;
use crate::preprocess::NO_INFO;

/// Everything a comparison found.
#[derive(Clone, Debug)]
pub struct Comparison {
    pub id: String,
    pub description: Option<String>,
    pub baseline_label: String,
    pub candidate_label: String,
    pub score_type: String,
    pub settings: Intervals,
    /// Whether the verdicts come from paired responses.
    pub paired: bool,
    pub preflight: Vec<PreflightRow>,
    pub overall: Vec<DeltaRow>,
    /// Per subgroup, its level rows.
    pub groups: Vec<(String, Vec<LevelRow>)>,
    /// Sentences for the user: warnings of the preflight, missing files,
    /// what could not be compared.
    pub notes: Vec<String>,
    /// The stored tables' old / new / Δ, provenance, and the two versions
    /// against each other (report sections 3-9).
    pub extra: crate::compare::stored::Extra,
}

fn usage(message: String) -> ArchiveError {
    ArchiveError {
        problem: Problem::Usage,
        error: anyhow::anyhow!(message),
    }
}

/// The statistic names a margin may be given for.
pub fn statistic_names() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = HEADLINE.iter().chain(&BY_LEVEL).map(|s| s.name).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// A comparison's id: `comparison_id`, else `<baseline>_vs_<candidate>`
/// with every character outside `[A-Za-z0-9._-]` made `_`.
pub fn default_id(baseline: &str, candidate: &str) -> String {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "._-".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    format!("{}_vs_{}", clean(baseline), clean(candidate))
}

/// The score type compared: the configured one (it must exist on both
/// sides), else `scale_trim` when both have it, else `raw_trim`.
fn score_type(b: &Responses, c: &Responses, cfg: &CompareConfig) -> Result<String, String> {
    let both = |t: &str| b.score(t).is_some() && c.score(t).is_some();
    let wanted = cfg.score_type.clone().unwrap_or_else(|| {
        if both("scale_trim") {
            "scale_trim"
        } else {
            "raw_trim"
        }
        .to_string()
    });
    for (side, r) in [("baseline", b), ("candidate", c)] {
        for t in [wanted.clone(), format!("{wanted}_round")] {
            if r.score(&t).is_none() {
                let names: Vec<&str> = r.scores.iter().map(|(n, _)| n.as_str()).collect();
                return Err(format!(
                    "the score type {t} is not in the {side}'s pred_processed (its score types \
                     are {}); set score_type in the compare config to one both sides have",
                    names.join(", ")
                ));
            }
        }
    }
    if !wanted.ends_with("_trim") {
        return Err(format!(
            "score_type must be a trimmed score type (raw_trim or scale_trim), but it is {wanted}"
        ));
    }
    Ok(wanted)
}

/// Each paired response's level of `group` (from the baseline's metadata)
/// and the sorted level labels.
fn group_codes(b: &Responses, group: &str, p: &Pairing) -> Option<(Vec<u32>, Vec<String>)> {
    let (_, values) = b.groups.iter().find(|(g, _)| g == group)?;
    let label = |i: u32| values[i as usize].as_deref().unwrap_or(NO_INFO).to_string();
    let mut labels: Vec<String> = p.pairs.iter().map(|&(i, _)| label(i)).collect();
    labels.sort();
    labels.dedup();
    let codes = p
        .pairs
        .iter()
        .map(|&(i, _)| labels.binary_search(&label(i)).unwrap_or(0) as u32)
        .collect();
    Some((codes, labels))
}

/// Compares `b` (baseline) and `c` (candidate). An error says whether it
/// is a usage error (a score type absent on one side) or a data error (a
/// per-response file that is not what the reference writes).
pub fn compare(b: &Archive, c: &Archive, cfg: &CompareConfig) -> Result<Comparison, ArchiveError> {
    let baseline_label = cfg
        .baseline_label
        .clone()
        .unwrap_or_else(|| b.label().to_string());
    let candidate_label = cfg
        .candidate_label
        .clone()
        .unwrap_or_else(|| c.label().to_string());
    let rb = b.responses()?;
    let rc = c.responses()?;
    let mut cmp = Comparison {
        id: cfg
            .comparison_id
            .clone()
            .unwrap_or_else(|| default_id(&baseline_label, &candidate_label)),
        description: cfg.description.clone(),
        baseline_label,
        candidate_label,
        score_type: String::new(),
        settings: cfg.intervals,
        paired: false,
        preflight: Vec::new(),
        overall: Vec::new(),
        groups: Vec::new(),
        notes: missing_notes(b, c),
        extra: crate::compare::stored::Extra::new(b, c),
    };
    let (Some(rb), Some(rc)) = (rb, rc) else {
        cmp.notes.push(
            "a side has no pred_processed file, so nothing was recomputed and no statistic \
             could be tested"
                .into(),
        );
        cmp.preflight = preflight::rows(b, c, None, (None, None), "");
        return Ok(cmp);
    };
    cmp.score_type = score_type(&rb, &rc, cfg).map_err(usage)?;
    let p = pair(&rb, &rc);
    cmp.preflight = preflight::rows(b, c, Some(&p), (Some(&rb), Some(&rc)), &cmp.score_type);
    pairing_notes(&p, &mut cmp.notes);
    if !p.is_paired() {
        return Ok(cmp);
    }
    let data = paired::align(&rb, &rc, &p, &cmp.score_type).ok_or_else(|| {
        usage(format!(
            "the score type {} is missing on a side",
            cmp.score_type
        ))
    })?;
    let margin = |s: &Statistic| cfg.margins.get(s.name).copied().unwrap_or(s.margin);
    cmp.paired = true;
    cmp.overall = paired::overall_deltas(&data, &cfg.intervals, &margin);
    cmp.groups = groups(&rb, &p, &data, cfg, &margin, &mut cmp.notes);
    cmp.extra.between = Some(crate::compare::between::between(&rb, &p, &data));
    Ok(cmp)
}

/// The by-level rows of every compared subgroup.
fn groups(
    rb: &Responses,
    p: &Pairing,
    data: &Aligned,
    cfg: &CompareConfig,
    margin: &dyn Fn(&Statistic) -> f64,
    notes: &mut Vec<String>,
) -> Vec<(String, Vec<LevelRow>)> {
    let names: Vec<String> = match &cfg.subgroups {
        Some(g) => g.clone(),
        None => rb.groups.iter().map(|(g, _)| g.clone()).collect(),
    };
    let mut out = Vec::new();
    for (k, g) in names.iter().enumerate() {
        match group_codes(rb, g, p) {
            Some((codes, labels)) => {
                let rows = paired::group_deltas(
                    data,
                    &codes,
                    &labels,
                    k as u64 + 1,
                    &cfg.intervals,
                    margin,
                );
                out.push((g.clone(), rows));
            }
            None => notes.push(format!(
                "the subgroup {g} is not in the baseline's test_metadata, so it was not compared"
            )),
        }
    }
    out
}

/// A sentence per missing optional table of either side.
fn missing_notes(b: &Archive, c: &Archive) -> Vec<String> {
    let mut out = Vec::new();
    for (side, a) in [("baseline", b), ("candidate", c)] {
        if !a.missing.is_empty() {
            out.push(format!(
                "the {side} folder {} has no {} (those parts are left out)",
                a.dir.display(),
                a.missing.join(", ")
            ));
        }
    }
    out
}

/// The preflight's warnings (spec 2.1, 2.4).
fn pairing_notes(p: &Pairing, notes: &mut Vec<String>) {
    if !p.is_paired() {
        notes.push(
            "the two folders have no response in common whose human scores agree, so no \
             paired comparison is possible; the unpaired comparison of spec 2.4 is not \
             implemented yet, so no statistic was tested"
                .into(),
        );
    } else if p.low_overlap() {
        notes.push(format!(
            "only {} responses are paired: fewer than 90% of the baseline's {} or of the \
             candidate's {}; the verdicts describe those responses only",
            p.pairs.len(),
            p.n_baseline,
            p.n_candidate
        ));
    }
}

/// Whether any verdict is a regression (for the terminal summary).
pub fn regressions(c: &Comparison) -> usize {
    c.overall
        .iter()
        .chain(
            c.groups
                .iter()
                .flat_map(|(_, rows)| rows.iter().map(|r| &r.row)),
        )
        .filter(|r| r.verdict == Verdict::Regressed)
        .count()
}
