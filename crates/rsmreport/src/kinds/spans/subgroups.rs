//! Command assembly (spans): the subgroup tables of `spec/spans.md` 5.11,
//! `span_agreement_by_<g>` and, with a reference, `system_scores_by_<g>`:
//! the same sums as the whole-set tables, on each level's documents (a
//! blank level is `(missing)`; a system's `n_documents` counts those it and
//! the reference both cover).
//!
//! Computes nothing new (sums of `run`'s per-document counts); writes
//! nothing.

use super::run::score_rows;
use super::tables::{build, criterion_row, C};
use super::Analysis;
use rsmreport_core::table::Frame;
use rsmreport_metrics::spans::agreement::{Abc, CRITERIA};
use rsmreport_metrics::spans::seqeval::Counts;

/// The level name of a blank subgroup cell.
pub const MISSING: &str = "(missing)";

/// Levels in code-point order (`(missing)` last) with their documents.
pub fn levels(values: &[Option<String>]) -> Vec<(String, Vec<usize>)> {
    let mut out: Vec<(String, Vec<usize>)> = Vec::new();
    for (doc, v) in values.iter().enumerate() {
        let name = v.clone().unwrap_or_else(|| MISSING.to_string());
        match out.iter_mut().find(|l| l.0 == name) {
            Some(l) => l.1.push(doc),
            None => out.push((name, vec![doc])),
        }
    }
    out.sort_by(|a, b| (a.0 == MISSING, &a.0).cmp(&(b.0 == MISSING, &b.0)));
    out
}

/// How many of `docs` both the reference and `system` cover: the
/// documents a system is scored on (spec 4.1, 11).
fn n_scored(a: &Analysis, system: usize, docs: &[usize]) -> usize {
    let r = a
        .res
        .reference
        .expect("systems are scored against a reference");
    docs.iter()
        .filter(|&&d| a.data.covered[d][r] && a.data.covered[d][system])
        .count()
}

/// Per system and level of subgroup `g`, the types of its macro F1 with
/// no reference span on the level's documents (each F1 0 by seqeval's
/// convention): "tagger_v1 on sports: MISC" (only those with any).
pub fn unreferenced(a: &Analysis, g: &str) -> Vec<String> {
    let Some((_, values)) = a.data.subgroups.iter().find(|(name, _)| name == g) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (level, docs) in levels(values) {
        for sys in &a.res.systems {
            let mut t = vec![Counts::default(); a.data.labels.len()];
            for &d in &docs {
                for (l, c) in sys.doc_counts[d].iter().enumerate() {
                    t[l] += *c;
                }
            }
            let (rows, _) = score_rows(&t);
            let missing: Vec<&str> = rows
                .iter()
                .filter(|(_, r)| r.counts.support == 0)
                .map(|(l, _)| a.data.labels[*l as usize].as_str())
                .collect();
            if !missing.is_empty() {
                out.push(format!(
                    "{} on {level}: {}",
                    a.data.annotators[sys.annotator],
                    missing.join(", ")
                ));
            }
        }
    }
    out
}

/// Every subgroup table.
pub fn frames(a: &Analysis) -> Vec<Frame> {
    let mut out = Vec::new();
    for (g, values) in &a.data.subgroups {
        let lv = levels(values);
        let mut rows = Vec::new();
        let mut scores = Vec::new();
        for (level, docs) in &lv {
            let mut inside = vec![false; a.data.documents.len()];
            docs.iter().for_each(|&d| inside[d] = true);
            for (k, c) in CRITERIA.iter().enumerate() {
                let mut sums = Vec::new();
                let mut f1s = Vec::new();
                for p in &a.res.pairs {
                    let mut s = Abc::default();
                    let mut n = 0;
                    for (doc, x) in &p.docs {
                        if inside[*doc as usize] {
                            s += x[k];
                            n += 1;
                        }
                    }
                    f1s.push(if n == 0 { f64::NAN } else { s.f1() });
                    sums.push(s);
                }
                let r = criterion_row(&f1s, &sums);
                rows.push(vec![
                    C::S(level.clone()),
                    C::S(c.to_string()),
                    C::I(docs.len() as i64),
                    C::I(r.n_pairs as i64),
                    C::I(r.undefined as i64),
                    C::F(r.mean),
                    C::F(r.sd),
                    C::F(r.pooled),
                ]);
            }
            for sys in &a.res.systems {
                let mut t = vec![Counts::default(); a.data.labels.len()];
                for &d in docs {
                    for (l, c) in sys.doc_counts[d].iter().enumerate() {
                        t[l] += *c;
                    }
                }
                let (_, avg) = score_rows(&t);
                scores.push(vec![
                    C::S(a.data.annotators[sys.annotator].clone()),
                    C::S(level.clone()),
                    C::I(n_scored(a, sys.annotator, docs) as i64),
                    C::F(avg[0].precision),
                    C::F(avg[0].recall),
                    C::F(avg[0].f1),
                    C::F(avg[1].f1),
                    C::I(avg[0].counts.support as i64),
                ]);
            }
        }
        out.push(build(
            &format!("span_agreement_by_{g}"),
            &[
                g.as_str(),
                "criterion",
                "n_documents",
                "n_pairs",
                "n_pairs_undefined",
                "mean_pairwise_f1",
                "sd_pairwise_f1",
                "pooled_f1",
            ],
            rows,
        ));
        if a.res.reference.is_some() {
            out.push(build(
                &format!("system_scores_by_{g}"),
                &[
                    "system",
                    g.as_str(),
                    "n_documents",
                    "micro_precision",
                    "micro_recall",
                    "micro_f1",
                    "macro_f1",
                    "support",
                ],
                scores,
            ));
        }
    }
    out
}
