//! Command assembly (sequence): the scores of the subsets of the segments
//! (spec `sequence.md` 2.6): each level of a subgroup column and each
//! length bucket (the words of the first present reference by tens, `60+`
//! last), every metric on the subset's summed statistics, with its
//! interval from the overall bootstrap's replicates (`super::parts`).
//!
//! Defines no metric; reads and writes nothing.

use std::collections::HashMap;

use rsmreport_config::sequence::SequenceConfig;
use rsmreport_core::table::FxBuild;
use rsmreport_metrics::sequence::text::py_split;

use super::families::{family, score, Family};
use super::parts::Grouping;
use super::read::Segments;
use super::statistics::SystemRun;

/// A subset's corpus score: (system, metric, n_segments, score) and its
/// percentile interval from the overall bootstrap's replicates (NaN
/// without intervals, or where over 1% of the replicates have no score).
#[derive(Debug, Clone)]
pub struct SubsetScore {
    pub system: String,
    pub metric: String,
    pub n_segments: usize,
    pub score: f64,
    pub lower: f64,
    pub upper: f64,
}

/// A length bucket: label, lower and upper length (none for `60+`),
/// segments, scores.
pub type Bucket = (String, usize, Option<usize>, usize, Vec<SubsetScore>);

/// What every subset's scores are computed from.
pub(super) type SubsetInputs<'a> = (
    &'a SequenceConfig,
    &'a Segments,
    &'a [SystemRun],
    &'a [&'a str],
);

/// One subset's scores, system by system and metric by metric, with the
/// intervals `iv` (the same order) when there are any.
fn subset_scores(
    (cfg, seg, systems, metrics): SubsetInputs,
    rows: &[usize],
    iv: Option<&Vec<(f64, f64)>>,
) -> Vec<SubsetScore> {
    let mut out = Vec::new();
    for (s, sys) in systems.iter().enumerate() {
        for m in metrics {
            let st = sys.stats(family(m));
            let used: Vec<usize> = match family(m) {
                Family::Word | Family::Char => rows
                    .iter()
                    .copied()
                    .filter(|&i| seg.refs[0][i].is_some())
                    .collect(),
                _ => rows.to_vec(),
            };
            let sums = st.sums(used.iter().copied());
            let (lower, upper) = iv
                .and_then(|iv| iv.get(out.len()))
                .copied()
                .unwrap_or((f64::NAN, f64::NAN));
            let value = if used.is_empty() {
                f64::NAN
            } else {
                score(cfg, m, &sums, false).0
            };
            let (value, lower, upper) =
                super::pipelines::subset_cell(cfg, seg, (s, m), &used, (value, lower, upper));
            out.push(SubsetScore {
                system: sys.name.clone(),
                metric: m.to_string(),
                n_segments: used.len(),
                score: value,
                lower,
                upper,
            });
        }
    }
    out
}

/// Each subgroup column's levels (sorted) and each segment's level.
pub(super) fn subgroup_groupings(seg: &Segments) -> Vec<(Vec<String>, Grouping)> {
    seg.subgroups
        .iter()
        .map(|(_, levels)| {
            let distinct: std::collections::BTreeSet<&str> =
                levels.iter().map(String::as_str).collect();
            let index: HashMap<&str, u32, FxBuild> = distinct
                .iter()
                .enumerate()
                .map(|(i, &l)| (l, i as u32))
                .collect();
            let of = levels.iter().map(|l| index[l.as_str()]).collect();
            let names = distinct.into_iter().map(str::to_string).collect();
            (
                names,
                Grouping {
                    levels: index.len(),
                    of,
                },
            )
        })
        .collect()
}

pub(super) fn subsets_by_group<'a>(
    inputs: SubsetInputs,
    groupings: &[(Vec<String>, Grouping)],
    iv: impl Fn(usize, usize) -> Option<&'a Vec<(f64, f64)>>,
) -> Vec<(String, String, usize, Vec<SubsetScore>)> {
    let mut out = Vec::new();
    for (j, ((g, _), (names, grouping))) in inputs.1.subgroups.iter().zip(groupings).enumerate() {
        for (l, level) in names.iter().enumerate() {
            let rows: Vec<usize> = (0..inputs.1.n())
                .filter(|&i| grouping.of[i] as usize == l)
                .collect();
            out.push((
                g.clone(),
                level.clone(),
                rows.len(),
                subset_scores(inputs, &rows, iv(j, l)),
            ));
        }
    }
    out
}

/// Each segment's length bucket (spec 2.6): the words of its first
/// present reference by tens, `60+` last.
pub(super) fn bucket_grouping(seg: &Segments) -> Grouping {
    let of = (0..seg.n())
        .map(|i| {
            let first = seg
                .present_refs(i)
                .first()
                .map_or(0, |r| py_split(r).count());
            (first / 10).min(6) as u32
        })
        .collect();
    Grouping { levels: 7, of }
}

pub(super) fn length_buckets<'a>(
    inputs: SubsetInputs,
    buckets: &Grouping,
    iv: impl Fn(usize) -> Option<&'a Vec<(f64, f64)>>,
) -> Vec<Bucket> {
    let mut out = Vec::new();
    for k in 0..=6 {
        let rows: Vec<usize> = (0..inputs.1.n())
            .filter(|&i| buckets.of[i] as usize == k)
            .collect();
        if rows.is_empty() {
            continue;
        }
        let (label, upper) = if k == 6 {
            ("60+".to_string(), None)
        } else {
            (format!("{}-{}", 10 * k, 10 * k + 9), Some(10 * k + 9))
        };
        out.push((
            label,
            10 * k,
            upper,
            rows.len(),
            subset_scores(inputs, &rows, iv(k)),
        ));
    }
    out
}

/// One level of a subgroup column: level, segments, scores.
pub type Subset<'a> = (String, usize, &'a [SubsetScore]);
