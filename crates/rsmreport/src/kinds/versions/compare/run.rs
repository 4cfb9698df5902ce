//! Command assembly (compare): one comparison of two archived folders,
//! from the preflight to the verdicts (compare spec 2.1-2.4).
//!
//! Pure: works on opened archives; writes nothing.

use crate::kinds::common::verdict::Verdict;
use crate::kinds::versions::build::config_text;
use crate::kinds::versions::build::deltas::{margin, stored_value, test_takers, Ground};
use crate::kinds::versions::build::paired::{
    self, Aligned, LevelRow, Side, Statistic, VerdictRow, BY_LEVEL, HEADLINE,
};
use crate::kinds::versions::build::pairing::{pair, Pairing};
use crate::kinds::versions::compare::preflight::{self, PreflightRow};
use rsmreport_config::compare::CompareConfig;
use rsmreport_config::intervals::Intervals;
use rsmreport_core::schema::NO_INFO;
use rsmreport_io::input::archive::{Archive, ArchiveError, Problem, Responses};
use rsmreport_report::render::format::thousands;

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
    pub overall: Vec<VerdictRow>,
    /// Per subgroup, its level rows.
    pub groups: Vec<(String, Vec<LevelRow>)>,
    /// Sentences for the user: warnings of the preflight, missing files,
    /// what could not be compared.
    pub notes: Vec<String>,
    /// The quality gate results (`--gates`), in gate order; empty without
    /// gates.
    pub gates: Vec<crate::gates::Outcome>,
    /// The stored tables' old / new / Δ, provenance, and the two versions
    /// against each other (report sections 3-9).
    pub extra: crate::kinds::versions::compare::stored::Extra,
    /// Every margin in force, by statistic name (compare spec 2.3).
    pub margins: Vec<(&'static str, f64)>,
    /// The score type each side's own report leads with `[baseline,
    /// candidate]` (compare spec 2.4).
    pub headline: [String; 2],
    /// The shared responses and their human scores (`None` without
    /// per-response files).
    pub ground: Option<Ground>,
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
    crate::kinds::common::versions::comparison_id(baseline, candidate)
}

/// The score type a folder's own report leads with (gates spec 2, compare
/// spec 2.4): `scale_trim` when its build scaled the scores (`scale_with`
/// in its saved configuration) and it has that type, else `raw_trim`.
pub fn headline_type(a: &Archive) -> &'static str {
    let scaled = !matches!(
        a.config.get("scale_with"),
        None | Some(serde_json::Value::Null)
    ) && !matches!(a.config.get("scale_with"), Some(serde_json::Value::String(s)) if s.trim().is_empty());
    let has = a.evaluates("scale_trim")
        || a.table("pred_processed")
            .is_some_and(|t| t.column("scale_trim").is_some());
    if scaled && has {
        "scale_trim"
    } else {
        "raw_trim"
    }
}

/// The score type compared: the configured one, else the one both sides'
/// own reports lead with; when they lead with different ones, a usage
/// error (compare spec 2.4, amended).
fn chosen_type(heads: &[String; 2], cfg: &CompareConfig) -> Result<String, String> {
    if let Some(t) = &cfg.score_type {
        return Ok(t.clone());
    }
    if heads[0] != heads[1] {
        return Err(format!(
            "the baseline's own report leads with the score type {} and the candidate's with {}; \
             compared on either one, one side would be judged on scores its report does not \
             lead with. Set score_type in a compare config (--config compare.toml) to the type \
             to compare",
            heads[0], heads[1]
        ));
    }
    Ok(heads[0].clone())
}

/// The score type compared (see [`chosen_type`]); it must exist on both
/// sides, with its rounded type.
fn score_type(
    b: &Responses,
    c: &Responses,
    cfg: &CompareConfig,
    heads: &[String; 2],
) -> Result<String, String> {
    let wanted = chosen_type(heads, cfg)?;
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

/// The level of `group` of the responses `rows` of `r` (in that order),
/// and the sorted level labels; `None` when `r` has no such column.
/// Equal labels mostly share one allocation (the table's text cells), so
/// each response's cell is first told apart by its address (the last one
/// remembered), and only the distinct cells are compared as text.
fn group_codes(
    r: &Responses,
    group: &str,
    rows: impl Iterator<Item = u32>,
) -> Option<(Vec<u32>, Vec<String>)> {
    let (_, values) = r.groups.iter().find(|(g, _)| g == group)?;
    // A missing value has address 0, which no allocation has.
    let address = |i: u32| {
        values[i as usize]
            .as_ref()
            .map_or(0, |t| t.as_ptr() as usize)
    };
    let mut slot_of: std::collections::HashMap<usize, u32, rsmreport_core::table::FxBuild> =
        Default::default();
    let mut slot_labels: Vec<&str> = Vec::new();
    let mut last = (usize::MAX, 0u32);
    let slots: Vec<u32> = rows
        .map(|i| {
            let a = address(i);
            if a != last.0 {
                let slot = *slot_of.entry(a).or_insert_with(|| {
                    slot_labels.push(values[i as usize].as_deref().unwrap_or(NO_INFO));
                    (slot_labels.len() - 1) as u32
                });
                last = (a, slot);
            }
            last.1
        })
        .collect();
    let mut labels = slot_labels.clone();
    labels.sort_unstable();
    labels.dedup();
    let code_of_slot: Vec<u32> = slot_labels
        .iter()
        .map(|l| labels.partition_point(|x| x < l) as u32)
        .collect();
    let codes = slots
        .into_iter()
        .map(|s| code_of_slot[s as usize])
        .collect();
    Some((codes, labels.into_iter().map(String::from).collect()))
}

/// Compares `b` (baseline) and `c` (candidate). An error says whether it
/// is a usage error (a score type absent on one side) or a data error (a
/// per-response file that is not what the reference writes).
pub fn compare(b: &Archive, c: &Archive, cfg: &CompareConfig) -> Result<Comparison, ArchiveError> {
    use rsmreport_core::provenance::timed;
    let (rb, rc) = timed("responses", || both_responses(b, c));
    let (rb, rc) = (rb?, rc?);
    let baseline_label = cfg
        .baseline_label
        .clone()
        .unwrap_or_else(|| b.label().to_string());
    let candidate_label = cfg
        .candidate_label
        .clone()
        .unwrap_or_else(|| c.label().to_string());
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
        gates: Vec::new(),
        extra: timed("stored tables", || {
            crate::kinds::versions::compare::stored::Extra::new(b, c)
        }),
        margins: statistic_names()
            .into_iter()
            .map(|n| {
                let st = HEADLINE.iter().chain(&BY_LEVEL).find(|s| s.name == n);
                (n, st.map_or(f64::NAN, |st| margin(cfg, st)))
            })
            .collect(),
        headline: [headline_type(b).to_string(), headline_type(c).to_string()],
        ground: None,
    };
    headline_note(&cmp.headline, cfg, &mut cmp.notes);
    let (Some(rb), Some(rc)) = (rb, rc) else {
        stored_only(&mut cmp, [b, c], cfg)?;
        return Ok(cmp);
    };
    // The real reason first: folders with no response to pair are refused
    // before their score types are looked at.
    let p = timed("pairing", || pair(&rb, &rc));
    if !p.is_paired() && !cfg.unpaired {
        return Err(usage(unpaired_refusal(b, c, &p)));
    }
    cmp.score_type = score_type(&rb, &rc, cfg, &cmp.headline).map_err(usage)?;
    cmp.ground = Some(Ground {
        common: p.common,
        differing: p.sc1_mismatches.len(),
        paired: p.pairs.len(),
    });
    cmp.preflight = timed("preflight", || {
        preflight::rows(b, c, Some(&p), (Some(&rb), Some(&rc)), &cmp.headline)
    });
    pairing_notes(&p, &mut cmp.notes);
    let scales = scale_note(b, c, &mut cmp.notes);
    let takers = test_takers(cfg, [&rb, &rc]).map_err(usage)?;
    if takers {
        cmp.settings.unit = rsmreport_config::intervals::Unit::Candidate;
    }
    let margin = |s: &Statistic| margin(cfg, s);
    if p.is_paired() {
        paired_comparison(&mut cmp, [&rb, &rc], &p, cfg, (takers, &margin))?;
    } else {
        unpaired(&mut cmp, [&rb, &rc], cfg, (takers, &margin));
    }
    if !scales {
        not_comparable(&mut cmp);
    }
    Ok(cmp)
}

/// The statistics that depend on the score scale (compare spec 2.4,
/// amended): the agreement rates and RMSE.
const SCALE_BOUND: [&str; 3] = ["exact_agr", "adj_agr", "RMSE"];

/// Marks the rows of [`SCALE_BOUND`] `not comparable`.
fn not_comparable(cmp: &mut Comparison) {
    let rows = cmp.overall.iter_mut().chain(
        cmp.groups
            .iter_mut()
            .flat_map(|(_, rows)| rows.iter_mut().map(|r| &mut r.row)),
    );
    for r in rows.filter(|r| SCALE_BOUND.contains(&r.statistic.as_str())) {
        r.verdict = Verdict::NotComparable;
    }
}

/// The error of two folders with no response to pair (compare spec 2.4).
fn unpaired_refusal(b: &Archive, c: &Archive, p: &Pairing) -> String {
    let why = if p.common == 0 {
        "have no response id in common".to_string()
    } else {
        format!(
            "share {} response ids, but the human scores of every one of them differ",
            thousands(p.common as u64)
        )
    };
    format!(
        "the two folders evaluated different responses: {} ({} responses) and {} ({} responses) \
         {why}, so no difference can be paired and a verdict would mix the engine with the \
         sample. Give --unpaired to compare them anyway (a new test form, a new sample): each \
         side's statistics then come from its own responses and no verdict is stronger than \
         likely improved / likely regressed",
        b.dir.display(),
        thousands(p.n_baseline as u64),
        c.dir.display(),
        thousands(p.n_candidate as u64)
    )
}

/// When the configured score type is compared although the two sides'
/// reports lead with different ones: which type each led with.
fn headline_note(heads: &[String; 2], cfg: &CompareConfig, notes: &mut Vec<String>) {
    if let Some(t) = cfg.score_type.as_ref().filter(|_| heads[0] != heads[1]) {
        notes.push(format!(
            "compared on {t} as the compare config sets; the baseline's own report led with {} \
             and the candidate's with {}",
            heads[0], heads[1]
        ));
    }
}

/// A warning when the two sides trim to different ranges (their score
/// scales differ); whether the scales are the same.
fn scale_note(b: &Archive, c: &Archive, notes: &mut Vec<String>) -> bool {
    let range = |a: &Archive| {
        let get = |k| config_text(a, k);
        (get("trim_min"), get("trim_max"))
    };
    let (rb, rc) = (range(b), range(c));
    let known = |r: &(String, String)| !r.0.is_empty() && !r.1.is_empty();
    if !known(&rb) || !known(&rc) || rb == rc {
        return true;
    }
    notes.push(format!(
        "the two folders score on different scales: the baseline trims to [{}, {}], the \
         candidate to [{}, {}]; exact and adjacent agreement and RMSE depend on the scale, so \
         they are marked not comparable (the correlations and kappas are compared as usual)",
        rb.0, rb.1, rc.0, rc.1
    ));
    false
}

/// Both folders' per-response data, read at once.
type BothResponses = (
    Result<Option<Responses>, ArchiveError>,
    Result<Option<Responses>, ArchiveError>,
);

fn both_responses(b: &Archive, c: &Archive) -> BothResponses {
    std::thread::scope(|scope| {
        let other = scope.spawn(|| c.responses());
        let rb = b.responses();
        let rc = other
            .join()
            .expect("reading the candidate's responses panicked");
        (rb, rc)
    })
}

/// A side has no per-response files (compare spec 2.4): the stored
/// estimates of a score type both sides evaluated, without intervals.
fn stored_only(
    cmp: &mut Comparison,
    [b, c]: [&Archive; 2],
    cfg: &CompareConfig,
) -> Result<(), ArchiveError> {
    cmp.notes.push(
        "a side has no pred_processed file, so nothing could be recomputed: only the stored \
         estimates are compared, without intervals (verdict not testable)"
            .into(),
    );
    cmp.preflight = preflight::rows(b, c, None, (None, None), &cmp.headline);
    cmp.score_type = chosen_type(&cmp.headline, cfg).map_err(usage)?;
    for (side, a) in [("baseline", b), ("candidate", c)] {
        if !a.evaluates(&cmp.score_type) {
            return Err(usage(format!(
                "the score type {} is not in the {side}'s eval table; set score_type in the \
                 compare config to one both sides evaluated",
                cmp.score_type
            )));
        }
    }
    cmp.overall = stored_rows(b, c, &cmp.score_type);
    Ok(())
}

/// The paired comparison (compare spec 2.2): the whole-set differences
/// with their cross-checks, each subgroup's levels, and the two versions
/// against each other.
fn paired_comparison(
    cmp: &mut Comparison,
    [rb, rc]: [&Responses; 2],
    p: &Pairing,
    cfg: &CompareConfig,
    (takers, margin): (bool, &(dyn Fn(&Statistic) -> f64 + Sync)),
) -> Result<(), ArchiveError> {
    use rsmreport_core::provenance::timed;
    let data = paired::align(rb, rc, p, &cmp.score_type, takers).ok_or_else(|| {
        usage(format!(
            "the score type {} is missing on a side",
            cmp.score_type
        ))
    })?;
    cmp.paired = true;
    variance_note([rb, rc], &mut cmp.notes);
    cmp.overall = timed("paired differences", || {
        paired::overall_deltas(&data, &cfg.intervals, margin)
    });
    paired::add_cross_checks(&mut cmp.overall, &data, cfg.intervals.level);
    cmp.groups = timed("paired differences by level", || {
        groups([rb, rc], p, &data, cfg, margin, &mut cmp.notes)
    });
    cmp.extra.between = Some(timed("between the versions", || {
        crate::kinds::versions::compare::between::between(rb, p, &data)
    }));
    Ok(())
}

/// In a paired comparison, when the two builds configured different rater
/// error variances: the PRMSE of both versions uses the baseline's (an
/// unpaired one uses each side's own).
fn variance_note([rb, rc]: [&Responses; 2], notes: &mut Vec<String>) {
    if rb.rater_error_variance == rc.rater_error_variance {
        return;
    }
    let text = |v: Option<f64>| v.map_or("none".to_string(), |v| v.to_string());
    notes.push(format!(
        "the two builds configured different rater error variances (baseline {}, candidate {}); \
         the paired PRMSE of both versions uses the baseline's",
        text(rb.rater_error_variance),
        text(rc.rater_error_variance)
    ));
}

/// The compared subgroups: the configured ones, else every subgroup of
/// either side's `test_metadata` (the baseline's first).
fn group_names(sides: [&Responses; 2], cfg: &CompareConfig) -> Vec<String> {
    match &cfg.subgroups {
        Some(g) => g.clone(),
        None => both_sides(sides.iter().flat_map(|r| r.groups.iter().map(|(g, _)| g))),
    }
}

/// Each name once, in the order of first appearance (the subgroups of
/// both sides, the baseline's first).
pub fn both_sides<'a>(names: impl IntoIterator<Item = &'a String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for g in names {
        if !out.contains(g) {
            out.push(g.clone());
        }
    }
    out
}

/// The by-level rows of every compared subgroup.
fn groups(
    [rb, rc]: [&Responses; 2],
    p: &Pairing,
    data: &Aligned,
    cfg: &CompareConfig,
    margin: &(dyn Fn(&Statistic) -> f64 + Sync),
    notes: &mut Vec<String>,
) -> Vec<(String, Vec<LevelRow>)> {
    let names = group_names([rb, rc], cfg);
    // Each subgroup on its own thread (its own stream of replicates, so
    // the numbers do not depend on the threads), taken in order.
    let rows: Vec<Option<Vec<LevelRow>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = names
            .iter()
            .enumerate()
            .map(|(k, g)| {
                scope.spawn(move || {
                    // The levels of the paired responses: the baseline's, or
                    // the candidate's for a subgroup only it records.
                    let (codes, labels) = group_codes(rb, g, p.pairs.iter().map(|&(i, _)| i))
                        .or_else(|| group_codes(rc, g, p.pairs.iter().map(|&(_, j)| j)))?;
                    let stream = k as u64 + 1;
                    Some(paired::group_deltas(
                        g,
                        data,
                        &codes,
                        &labels,
                        stream,
                        &cfg.intervals,
                        margin,
                    ))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a subgroup's differences panicked"))
            .collect()
    });
    let mut out = Vec::new();
    for (g, rows) in names.into_iter().zip(rows) {
        match rows {
            Some(rows) => out.push((g, rows)),
            None => notes.push(format!(
                "the subgroup {g} is in neither side's test_metadata, so it was not compared"
            )),
        }
    }
    out
}

/// The unpaired comparison (compare spec 2.4): each side's statistics on
/// its own responses, resampled independently.
fn unpaired<'a>(
    cmp: &mut Comparison,
    sides: [&'a Responses; 2],
    cfg: &CompareConfig,
    (takers, margin): (bool, &dyn Fn(&Statistic) -> f64),
) {
    let with_h2 = sides.iter().all(|r| r.sc2.is_some());
    let score_type = cmp.score_type.clone();
    let side = |r: &'a Responses| Side::of(r, &score_type, with_h2, takers);
    let (Some(sb), Some(sc)) = (side(sides[0]), side(sides[1])) else {
        return;
    };
    cmp.overall = paired::unpaired_overall_deltas([sb, sc], &cfg.intervals, margin);
    for (k, g) in group_names(sides, cfg).iter().enumerate() {
        let all = |r: &Responses| group_codes(r, g, 0..r.len() as u32);
        let (Some((cb, lb)), Some((cc, lc))) = (all(sides[0]), all(sides[1])) else {
            cmp.notes.push(format!(
                "the subgroup {g} is not in both sides' test_metadata, so it was not compared"
            ));
            continue;
        };
        let rows = paired::unpaired_group_deltas(
            g,
            [(sb, &cb, &lb), (sc, &cc, &lc)],
            k as u64 + 1,
            &cfg.intervals,
            margin,
        );
        cmp.groups.push((g.clone(), rows));
    }
}

/// The score type of a comparison as the gates see it before the data
/// are read: the configured one, else the one the baseline's own report
/// leads with ([`compare`] refuses when the candidate's leads with
/// another).
pub fn stored_score_type(b: &Archive, _c: &Archive, cfg: &CompareConfig) -> String {
    cfg.score_type
        .clone()
        .unwrap_or_else(|| headline_type(b).to_string())
}

/// The headline statistics' stored estimates of both sides (compare spec
/// 2.4, no per-response files): no interval, verdict `not testable`.
fn stored_rows(b: &Archive, c: &Archive, score_type: &str) -> Vec<VerdictRow> {
    HEADLINE
        .iter()
        .filter_map(|st| {
            let value = |a| stored_value(a, st, score_type);
            let (vb, vc) = (value(b)?, value(c)?);
            Some(paired::stored_row(st, vb, vc))
        })
        .collect()
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
            "unpaired: different responses, differences mix the engine and the sample. The two \
             folders have no response in common whose human scores agree (--unpaired), so each \
             version's statistics come from its own responses, resampled independently, and no \
             verdict is stronger than likely improved / likely regressed"
                .into(),
        );
    } else if p.low_overlap() {
        notes.push(format!(
            "only {} responses are paired: fewer than 90% of the baseline's {} or of the \
             candidate's {}; the verdicts describe those responses only",
            rsmreport_report::render::format::thousands(p.pairs.len() as u64),
            rsmreport_report::render::format::thousands(p.n_baseline as u64),
            rsmreport_report::render::format::thousands(p.n_candidate as u64)
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

#[cfg(test)]
mod tests {
    use super::*;
    use rsmreport_core::table::Text;

    /// Levels coded by their text, whether equal labels share one
    /// allocation or not, missing values as `NO_INFO`, in the order of the
    /// rows asked for.
    #[test]
    fn levels_are_coded_by_text_whatever_their_allocation() {
        let shared = Text::from("b");
        let values: Vec<Option<Text>> = vec![
            Some(shared.clone()),
            Some(Text::from("a")),
            None,
            Some(shared.clone()),
            Some(Text::from("b")),
            Some(Text::from("a")),
            Some(shared),
        ];
        let r = Responses {
            ids: (0..7).map(|i| Text::from(i.to_string())).collect(),
            sc1: vec![1.0; 7],
            sc2: None,
            scores: Vec::new(),
            groups: vec![("g".into(), values)],
            candidates: None,
            rater_error_variance: None,
        };
        let (codes, labels) = group_codes(&r, "g", 0..7).unwrap();
        assert_eq!(labels, ["No info", "a", "b"].map(String::from));
        assert_eq!(codes, [2, 1, 0, 2, 2, 1, 2]);
        let (codes, labels) = group_codes(&r, "g", [6, 4, 1].into_iter()).unwrap();
        assert_eq!(labels, ["a", "b"].map(String::from));
        assert_eq!(codes, [1, 1, 0]);
        assert!(group_codes(&r, "h", 0..7).is_none());
    }
}
