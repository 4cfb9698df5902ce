//! Command assembly (spans): every number of `spec/spans.md` 3-4 from the
//! read data, by the span metrics (`rsmreport_metrics::spans`): agreement per
//! pair, type, document and criterion; type confusion with Cohen's kappa
//! (`metrics::raters::pairs::cohen_kappa`, scikit-learn's); boundary
//! classes; annotator profiles; against a reference the seqeval rows, the
//! nervaluate block and the per-document counts the bootstrap resamples.
//!
//! Defines no statistic of its own; reads and writes nothing.

use std::collections::BTreeMap;

use super::read::{Data, Decoded};
use crate::kinds::common::parallel::{default_threads, parallel};
use rsmreport_config::spans::{Repair, SpansConfig};
use rsmreport_metrics::raters::pairs::cohen_kappa;
use rsmreport_metrics::raters::{PairTable, Weights};
use rsmreport_metrics::spans::agreement::{mean_sd, pair_doc, Abc, Boundaries, PairDoc, Span};
use rsmreport_metrics::spans::nervaluate::{self, Entity};
use rsmreport_metrics::spans::seqeval::{self, Counts, Prf};

/// One pair of annotators (`i < j` in annotator order) over the documents
/// both cover.
#[derive(Clone, Debug, Default)]
pub struct PairResult {
    pub i: usize,
    pub j: usize,
    pub n_documents: u64,
    /// strict, exact, overlap, overlap_any.
    pub sums: [Abc; 4],
    /// `[label]`: strict and overlap.
    pub by_label: Vec<[Abc; 2]>,
    pub boundaries: Boundaries,
    pub exact_labels: BTreeMap<(u32, u32), u64>,
    pub any_labels: BTreeMap<(u32, u32), u64>,
    pub exact_left_out: u64,
    /// `(document, counts)` of every common document, for the bootstrap.
    pub docs: Vec<(u32, [Abc; 4])>,
}

/// One document's row (spec 5.4).
#[derive(Clone, Debug)]
pub struct DocRow {
    pub doc: usize,
    pub n_annotators: usize,
    pub n_pairs: usize,
    pub n_undefined: usize,
    pub mean_f1: f64,
    pub sd_f1: f64,
    pub mean_f1_overlap: f64,
    pub n_spans: usize,
    /// The pair with the lowest defined strict F1 here (ties: pair
    /// order), the one the report shows side by side.
    pub worst_pair: Option<(usize, usize)>,
}

/// One annotator's profile (spec 5.7).
#[derive(Clone, Debug)]
pub struct Profile {
    pub n_documents: usize,
    pub n_spans: usize,
    pub n_duplicates: usize,
    pub mean_length: f64,
    pub n_overlapping: usize,
    pub mean_f1_strict: f64,
    /// `[label]` distinct spans.
    pub labels: Vec<u64>,
}

/// One mode's seqeval rows: its name (`default` or `strict`), the
/// per-type rows (label code, row) and the micro, macro and weighted
/// averages.
pub type ModeRows = (&'static str, Vec<(u32, Prf)>, [Prf; 3]);

/// One system against the reference.
#[derive(Clone, Debug)]
pub struct System {
    pub annotator: usize,
    /// Per mode (`default`, then `strict` when computed): per-type rows
    /// (label code, row) and the three averages.
    pub modes: Vec<ModeRows>,
    /// Why the strict rows are absent, when they are.
    pub strict_note: Option<String>,
    pub nervaluate: nervaluate::Block,
    /// `[doc][label]` counts of the headline mode, for the bootstrap.
    pub doc_counts: Vec<Vec<Counts>>,
    /// The headline mode's index in `modes`.
    pub headline: usize,
}

/// Everything computed.
#[derive(Clone, Debug)]
pub struct Results {
    /// `[doc][annotator]`: sorted distinct spans.
    pub distinct: Vec<Vec<Vec<Span>>>,
    pub pairs: Vec<PairResult>,
    pub documents: Vec<DocRow>,
    pub profiles: Vec<Profile>,
    pub reference: Option<usize>,
    pub baseline: Option<usize>,
    pub systems: Vec<System>,
    /// The annotators of the agreement tables, in annotator order: every
    /// annotator without `systems`; with them the human annotators (and
    /// the reference with `agreement_includes_reference`).
    pub raters: Vec<usize>,
    /// The annotators named by `systems` (annotator order of `systems`);
    /// empty without the key.
    pub under_test: Vec<usize>,
}

/// The roles of `systems` (spec 1, amended): the annotators named by it
/// (in its order) and the annotators of the agreement tables (every one
/// without `systems`; else neither the reference, unless
/// `agreement_includes_reference`, nor a system).
pub fn roles(cfg: &SpansConfig, d: &Data, reference: Option<usize>) -> (Vec<usize>, Vec<usize>) {
    let under_test: Vec<usize> = cfg
        .systems
        .iter()
        .filter_map(|s| d.annotators.iter().position(|a| a == s))
        .collect();
    let raters = (0..d.annotators.len())
        .filter(|&a| {
            cfg.systems.is_empty()
                || (!under_test.contains(&a)
                    && (Some(a) != reference || cfg.agreement_includes_reference))
        })
        .collect();
    (under_test, raters)
}

impl Results {
    /// Whether `annotator` is compared with the baseline: every annotator
    /// scored without `systems`, the systems under test with them.
    pub fn compared(&self, annotator: usize) -> bool {
        self.under_test.is_empty() || self.under_test.contains(&annotator)
    }

    /// Whether there is agreement to report: two or more annotators in
    /// the agreement tables.
    pub fn agreeing(&self) -> bool {
        self.raters.len() >= 2
    }
}

/// The pair F1 of criterion `k`.
pub fn pair_f1(p: &PairResult, k: usize) -> f64 {
    if p.n_documents == 0 {
        f64::NAN
    } else {
        p.sums[k].f1()
    }
}

impl PairResult {
    fn new(i: usize, j: usize, n_labels: usize) -> PairResult {
        PairResult {
            i,
            j,
            by_label: vec![[Abc::default(); 2]; n_labels],
            ..Default::default()
        }
    }

    /// Adds one common document's counts.
    fn add(&mut self, doc: usize, pd: &PairDoc) {
        self.n_documents += 1;
        for k in 0..4 {
            self.sums[k] += pd.criteria[k];
        }
        for l in &pd.by_label {
            self.by_label[l.label as usize][0] += l.strict;
            self.by_label[l.label as usize][1] += l.overlap;
        }
        for (x, y) in &pd.overlap_pairs {
            self.boundaries.add(x, y);
        }
        for &lp in &pd.exact_labels {
            *self.exact_labels.entry(lp).or_default() += 1;
        }
        for &lp in &pd.any_labels {
            *self.any_labels.entry(lp).or_default() += 1;
        }
        self.exact_left_out += pd.exact_left_out;
        self.docs.push((doc as u32, pd.criteria));
    }

    /// Adds the counts of later documents (every sum is an integer, so
    /// the result does not depend on how the documents were split).
    fn merge(&mut self, o: PairResult) {
        self.n_documents += o.n_documents;
        for k in 0..4 {
            self.sums[k] += o.sums[k];
        }
        for (mine, theirs) in self.by_label.iter_mut().zip(&o.by_label) {
            mine[0] += theirs[0];
            mine[1] += theirs[1];
        }
        self.boundaries.merge(&o.boundaries);
        for (lp, c) in o.exact_labels {
            *self.exact_labels.entry(lp).or_default() += c;
        }
        for (lp, c) in o.any_labels {
            *self.any_labels.entry(lp).or_default() += c;
        }
        self.exact_left_out += o.exact_left_out;
        self.docs.extend(o.docs);
    }
}

/// Sorted distinct spans of every (document, annotator).
fn distinct_spans(d: &Data) -> Vec<Vec<Vec<Span>>> {
    d.spans
        .iter()
        .map(|row| {
            row.iter()
                .map(|s| {
                    let mut v = s.clone();
                    v.sort_unstable();
                    v.dedup();
                    v
                })
                .collect()
        })
        .collect()
}

/// Every pair of `raters` (their counts) and every document's row over
/// `docs`.
fn agreement_chunk(
    cfg: &SpansConfig,
    d: &Data,
    (distinct, raters): (&[Vec<Vec<Span>>], &[usize]),
    docs: std::ops::Range<usize>,
) -> (Vec<PairResult>, Vec<DocRow>) {
    let nl = d.labels.len();
    let mut pairs: Vec<PairResult> = raters
        .iter()
        .enumerate()
        .flat_map(|(k, &i)| raters[k + 1..].iter().map(move |&j| (i, j)))
        .map(|(i, j)| PairResult::new(i, j, nl))
        .collect();
    let mut documents = Vec::with_capacity(docs.len());
    for doc in docs {
        let cov = &d.covered[doc];
        let mut strict = Vec::new();
        let mut overlap = Vec::new();
        let mut worst: Option<(f64, usize, usize)> = None;
        for p in pairs.iter_mut() {
            if !(cov[p.i] && cov[p.j]) {
                continue;
            }
            let pd = pair_doc(&distinct[doc][p.i], &distinct[doc][p.j], cfg.min_overlap);
            p.add(doc, &pd);
            let f = pd.criteria[0].f1();
            if !f.is_nan() && worst.is_none_or(|w| f < w.0) {
                worst = Some((f, p.i, p.j));
            }
            strict.push(f);
            overlap.push(pd.criteria[2].f1());
        }
        let (mean_f1, sd_f1, n_undefined) = mean_sd(&strict);
        documents.push(DocRow {
            doc,
            n_annotators: raters.iter().filter(|&&a| cov[a]).count(),
            n_pairs: strict.len(),
            n_undefined,
            mean_f1,
            sd_f1,
            mean_f1_overlap: mean_sd(&overlap).0,
            n_spans: raters
                .iter()
                .filter(|&&a| cov[a])
                .map(|&a| distinct[doc][a].len())
                .sum(),
            worst_pair: worst.map(|w| (w.1, w.2)),
        });
    }
    (pairs, documents)
}

/// Every pair's counts (pairs in annotator order) and the documents'
/// rows, worst first: chunks of documents on the threads, merged in
/// document order.
fn agreement(
    cfg: &SpansConfig,
    d: &Data,
    who: (&[Vec<Vec<Span>>], &[usize]),
) -> (Vec<PairResult>, Vec<DocRow>) {
    let nd = d.documents.len();
    let threads = default_threads();
    let size = nd.div_ceil(4 * threads).max(64);
    let chunks = parallel(threads, nd.div_ceil(size), |c| {
        agreement_chunk(cfg, d, who, c * size..((c + 1) * size).min(nd))
    });
    let mut chunks = chunks.into_iter();
    let (mut pairs, mut documents) = chunks
        .next()
        .unwrap_or_else(|| agreement_chunk(cfg, d, who, 0..0));
    for (p, docs) in chunks {
        for (mine, theirs) in pairs.iter_mut().zip(p) {
            mine.merge(theirs);
        }
        documents.extend(docs);
    }
    documents.sort_by(|a, b| {
        let key = |r: &DocRow| (r.mean_f1.is_nan(), r.mean_f1);
        let (ka, kb) = (key(a), key(b));
        ka.0.cmp(&kb.0)
            .then(ka.1.total_cmp(&kb.1))
            .then_with(|| d.documents[a.doc].cmp(&d.documents[b.doc]))
    });
    (pairs, documents)
}

/// Every number of spec 3-4: the agreement and the systems against the
/// reference at the same time.
pub fn run(cfg: &SpansConfig, d: &Data) -> Results {
    let na = d.annotators.len();
    let distinct = distinct_spans(d);
    let reference = cfg
        .reference
        .as_ref()
        .and_then(|r| d.annotators.iter().position(|a| a == r));
    let (under_test, raters) = roles(cfg, d, reference);
    let ((pairs, documents), systems) = std::thread::scope(|scope| {
        let systems = scope.spawn(|| match reference {
            Some(r) => {
                let others: Vec<usize> = (0..na).filter(|&a| a != r).collect();
                let threads = default_threads();
                parallel(threads, others.len(), |k| {
                    system(cfg, d, &distinct, r, others[k])
                })
            }
            None => Vec::new(),
        });
        let agreement = agreement(cfg, d, (&distinct, &raters));
        (agreement, systems.join().expect("the systems' thread"))
    });
    let profiles = profiles(d, &distinct, &pairs);
    // The baseline: as configured, else the first system under test
    // (with `systems`), else the first annotator scored.
    let baseline = reference.and_then(|_| match &cfg.baseline {
        Some(b) => d.annotators.iter().position(|a| a == b),
        None => under_test
            .first()
            .copied()
            .or_else(|| systems.first().map(|s| s.annotator)),
    });
    Results {
        distinct,
        pairs,
        documents,
        profiles,
        reference,
        baseline,
        systems,
        raters,
        under_test,
    }
}

fn profiles(d: &Data, distinct: &[Vec<Vec<Span>>], pairs: &[PairResult]) -> Vec<Profile> {
    (0..d.annotators.len())
        .map(|a| {
            let mut labels = vec![0u64; d.labels.len()];
            let (mut n_documents, mut n_spans, mut n_read, mut len_sum, mut n_overlapping) =
                (0, 0, 0, 0u64, 0);
            for (doc, cov) in d.covered.iter().enumerate() {
                if !cov[a] {
                    continue;
                }
                n_documents += 1;
                let s = &distinct[doc][a];
                n_spans += s.len();
                n_read += d.spans[doc][a].len();
                n_overlapping += overlapping(s);
                for x in s {
                    labels[x.label as usize] += 1;
                    len_sum += x.len() as u64;
                }
            }
            let f1s: Vec<f64> = pairs
                .iter()
                .filter(|p| p.i == a || p.j == a)
                .map(|p| pair_f1(p, 0))
                .collect();
            Profile {
                n_documents,
                n_spans,
                n_duplicates: n_read - n_spans,
                mean_length: len_sum as f64 / n_spans as f64,
                n_overlapping,
                mean_f1_strict: mean_sd(&f1s).0,
                labels,
            }
        })
        .collect()
}

/// How many of sorted, distinct, non-empty spans overlap another: an
/// earlier one overlaps `x` when it ends after `x` starts (the largest
/// earlier end tells), a later one when it starts before `x` ends (the
/// next one tells, having the smallest start).
fn overlapping(s: &[Span]) -> usize {
    let mut n = 0;
    let mut max_end = 0;
    for (k, x) in s.iter().enumerate() {
        let before = k > 0 && max_end > x.start;
        let after = s.get(k + 1).is_some_and(|y| y.start < x.end);
        n += usize::from(before || after);
        max_end = max_end.max(x.end);
    }
    n
}

/// Per-document, per-label set counts of `sys` against `gold`
/// (`(start, end)` sets per type; duplicates collapse).
fn set_counts(gold: &[Span], sys: &[Span], nl: usize) -> Vec<Counts> {
    let mut out = vec![Counts::default(); nl];
    for g in gold {
        out[g.label as usize].support += 1;
    }
    for s in sys {
        out[s.label as usize].predicted += 1;
    }
    // Both sorted and distinct: (s, e, l) equality is the per-type match.
    let (mut i, mut j) = (0, 0);
    while i < gold.len() && j < sys.len() {
        match gold[i].cmp(&sys[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out[gold[i].label as usize].correct += 1;
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// The seqeval rows of summed per-type counts: types present in either
/// side, in code order (= code-point order), and the averages.
pub fn score_rows(totals: &[Counts]) -> (Vec<(u32, Prf)>, [Prf; 3]) {
    let rows: Vec<(u32, Prf)> = totals
        .iter()
        .enumerate()
        .filter(|(_, c)| c.predicted + c.support > 0)
        .map(|(l, c)| (l as u32, seqeval::row(*c)))
        .collect();
    let prfs: Vec<Prf> = rows.iter().map(|r| r.1).collect();
    let avg = seqeval::averages(&prfs);
    (rows, avg)
}

fn sum_docs(counts: &[Vec<Counts>], nl: usize) -> Vec<Counts> {
    let mut t = vec![Counts::default(); nl];
    for doc in counts {
        for (l, c) in doc.iter().enumerate() {
            t[l] += *c;
        }
    }
    t
}

/// Sorted distinct spans of decoded sentences, per document.
fn sentence_spans(sents: &[Decoded], d: &Data, nd: usize) -> Vec<Vec<Span>> {
    let tokens = d.tokens.as_ref().expect("token input");
    let mut out = vec![Vec::new(); nd];
    for (s, dec) in tokens.sentences.iter().zip(sents) {
        for &(b, e, l) in dec {
            out[s.doc as usize].push(Span {
                start: b + s.offset,
                end: e + s.offset,
                label: l,
            });
        }
    }
    out.iter_mut().for_each(|v| {
        v.sort_unstable();
        v.dedup();
    });
    out
}

fn system(cfg: &SpansConfig, d: &Data, distinct: &[Vec<Vec<Span>>], r: usize, a: usize) -> System {
    let nl = d.labels.len();
    let nd = d.documents.len();
    let mut modes = Vec::new();
    let mut per_mode_docs = Vec::new();
    let mut strict_note = None;
    let nv_docs: Vec<(Vec<Entity>, Vec<Entity>)>;
    let ent = |s: &Span| Entity {
        start: s.start,
        end: s.end - 1,
        label: s.label,
    };
    match &d.tokens {
        None => {
            let counts: Vec<Vec<Counts>> = (0..nd)
                .map(|doc| {
                    if d.covered[doc][r] && d.covered[doc][a] {
                        set_counts(&distinct[doc][r], &distinct[doc][a], nl)
                    } else {
                        vec![Counts::default(); nl]
                    }
                })
                .collect();
            let (rows, avg) = score_rows(&sum_docs(&counts, nl));
            modes.push(("default", rows, avg));
            per_mode_docs.push(counts);
            nv_docs = (0..nd)
                .filter(|&doc| d.covered[doc][r] && d.covered[doc][a])
                .map(|doc| {
                    (
                        d.spans[doc][r].iter().map(ent).collect(),
                        d.spans[doc][a].iter().map(ent).collect(),
                    )
                })
                .collect();
        }
        Some(t) => {
            let mut push = |g: &[Decoded], s: &[Decoded], name: &'static str| {
                let gs = sentence_spans(g, d, nd);
                let ss = sentence_spans(s, d, nd);
                let counts: Vec<Vec<Counts>> = (0..nd)
                    .map(|doc| set_counts(&gs[doc], &ss[doc], nl))
                    .collect();
                let (rows, avg) = score_rows(&sum_docs(&counts, nl));
                modes.push((name, rows, avg));
                per_mode_docs.push(counts);
            };
            push(&t.begin[r], &t.begin[a], "default");
            match (&t.discard[r], &t.discard[a]) {
                (Some(g), Some(s)) => push(g, s, "strict"),
                _ => {
                    let who = if t.discard[r].is_none() { r } else { a };
                    strict_note = Some(format!(
                        "seqeval's strict mode refuses a tag of {} ({}): no strict rows",
                        d.annotators[who],
                        t.strict_refusal[who].as_deref().unwrap_or_default()
                    ));
                }
            }
            let pick = |x: usize| -> &Vec<Decoded> {
                match (cfg.repair, &t.discard[x]) {
                    (Repair::Discard, Some(v)) => v,
                    _ => &t.begin[x],
                }
            };
            let to_ent = |v: &Decoded| -> Vec<Entity> {
                v.iter()
                    .map(|&(b, e, l)| Entity {
                        start: b,
                        end: e - 1,
                        label: l,
                    })
                    .collect()
            };
            nv_docs = pick(r)
                .iter()
                .zip(pick(a))
                .map(|(g, s)| (to_ent(g), to_ent(s)))
                .collect();
        }
    }
    let headline = if cfg.repair == Repair::Discard && modes.len() > 1 {
        1
    } else {
        0
    };
    System {
        annotator: a,
        doc_counts: per_mode_docs.swap_remove(headline),
        modes,
        strict_note,
        nervaluate: nervaluate::block(&nv_docs, nl, cfg.nervaluate_min_overlap_percentage),
        headline,
    }
}

/// A pair's type-confusion counts as a kappa table over all labels.
pub fn kappa_of(counts: &BTreeMap<(u32, u32), u64>, q: usize) -> f64 {
    let table = PairTable {
        rater_1: 0,
        rater_2: 1,
        q,
        cells: counts
            .iter()
            .filter(|(_, &c)| c > 0)
            .map(|(&(k, l), &c)| (k, l, c as f64))
            .collect(),
    };
    if table.cells.is_empty() {
        return f64::NAN;
    }
    cohen_kappa(&table, Weights::Identity)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The linear count of overlapping spans equals the pairwise one on
    /// nested, crossing, touching, repeated-boundary and disjoint spans.
    #[test]
    fn overlapping_counts_like_the_pairwise_definition() {
        let s = |start, end, label| Span { start, end, label };
        let cases = [
            vec![],
            vec![s(0, 2, 0)],
            vec![s(0, 2, 0), s(2, 4, 0)],
            vec![s(0, 2, 0), s(0, 2, 1), s(5, 6, 0)],
            vec![s(0, 10, 0), s(1, 2, 0), s(3, 4, 0), s(12, 13, 0)],
            vec![s(0, 3, 0), s(2, 5, 0), s(6, 8, 1), s(7, 9, 0), s(20, 21, 0)],
            vec![s(0, 1, 0), s(0, 5, 0), s(4, 6, 0), s(6, 7, 0)],
        ];
        for mut c in cases {
            c.sort_unstable();
            let pairwise = c
                .iter()
                .enumerate()
                .filter(|(k, x)| {
                    c.iter()
                        .enumerate()
                        .any(|(m, y)| m != *k && x.overlap(y) > 0)
                })
                .count();
            assert_eq!(overlapping(&c), pairwise, "{c:?}");
        }
    }
}
