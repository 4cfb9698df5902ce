//! Stage 4 (metrics, pure): pairwise-preference annotations, at parity with
//! Feedback Forensics 0.5.0 (`spec/preferences.md`, sections 1-3).
//!
//! * [`normalize_votes`]: raw vote strings to [`Vote`] codes (spec 1), with
//!   every distinct raw value and its count.
//! * [`PairSet`]: the compact data of one data set (or subset value): the
//!   reference's and every annotator's votes, text lengths in code points.
//! * [`vote_tables`]: one pass over the pairs gives the exclusions and a
//!   3 x 3 [`VoteTable`] per annotator; [`annotator_metrics`] turns a table
//!   into the metrics of spec 2 (agreement, accuracy, relevance, kappas,
//!   strength, Feedback Forensics' binomial p-value).
//! * [`annotator_intervals`]: seeded bootstrap percentile intervals of
//!   strength, accuracy and relevance over pairs, and the exact
//!   Clopper-Pearson interval of accuracy ([`clopper_pearson`]).
//! * [`overall_stats`]: the data-set overview of spec 3 ("longer" is
//!   `text_a` only when strictly longer).
//! * [`models::prefers_model`]: Feedback Forensics' model-identity
//!   annotators (spec 6), the references of the model view.
//!
//! Pure maths on votes, lengths and counts: this module must not touch
//! files, tables, configuration, threads, formatting or report code (the
//! caller reads the columns, splits subsets and runs things in parallel).
//! Degenerate data (no pair left, no valid vote) give `NaN`, never a panic;
//! only caller bugs (columns of different lengths) panic.

mod binomial;
mod intervals;
pub mod models;
mod overall;
#[cfg(test)]
mod tests;

pub use binomial::{binomial_p_value, clopper_pearson};
pub use intervals::{
    annotator_intervals, AnnotatorIntervals, BootstrapSpec, PairBootstrap, MAX_BLOCKS,
};
pub use overall::{overall_stats, OverallStats};

use std::collections::HashMap;

use rsmreport_core::table::FxBuild;

/// One vote, as spec 1 reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Vote {
    /// `text_a` or `a` (any case): prefers the first text.
    A,
    /// `text_b` or `b` (any case): prefers the second text.
    B,
    /// `tie`, `both` or `neither` (any case): no preference expressed.
    Tie,
    /// Any other non-blank value (`invalid`, typos such as `text-a`).
    Invalid,
    /// A blank cell (missing, empty or only white space).
    Missing,
}

impl Vote {
    /// `text_a` or `text_b`: a valid vote (spec 1).
    pub fn is_valid(self) -> bool {
        matches!(self, Vote::A | Vote::B)
    }

    /// Row/column of a [`VoteTable`]: 0 = `text_a`, 1 = `text_b`, 2 = not
    /// valid.
    pub fn cell(self) -> usize {
        match self {
            Vote::A => 0,
            Vote::B => 1,
            _ => 2,
        }
    }
}

/// The code of one raw vote (`None`: a missing cell). Surrounding white
/// space is ignored, comparisons ignore ASCII case.
pub fn normalize_vote(raw: Option<&str>) -> Vote {
    let Some(s) = raw.map(str::trim) else {
        return Vote::Missing;
    };
    let is = |word: &str| s.eq_ignore_ascii_case(word);
    if s.is_empty() {
        Vote::Missing
    } else if is("text_a") || is("a") {
        Vote::A
    } else if is("text_b") || is("b") {
        Vote::B
    } else if is("tie") || is("both") || is("neither") {
        Vote::Tie
    } else {
        Vote::Invalid
    }
}

/// A distinct raw vote value of one column, its code and how often it
/// occurs (for the `<id>_votes` table, spec 1 and 4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VoteValue {
    /// The value as read; `None` for missing cells.
    pub raw: Option<String>,
    pub vote: Vote,
    pub count: usize,
}

/// A normalised vote column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NormalizedVotes {
    /// One code per row.
    pub votes: Vec<Vote>,
    /// The distinct raw values: missing cells first, then in code-point
    /// order of the raw string.
    pub values: Vec<VoteValue>,
}

/// Normalises one column of raw votes (spec 1): codes per row, and the
/// distinct raw values with their counts, so a typo is visible. Each
/// distinct value is coded once; a row costs one hash lookup.
pub fn normalize_votes<I, S>(raw: I) -> NormalizedVotes
where
    I: IntoIterator<Item = Option<S>>,
    S: AsRef<str>,
{
    let mut missing = 0usize;
    // Distinct raw value -> its position in `seen`.
    let mut index: HashMap<String, usize, FxBuild> = HashMap::default();
    let mut seen: Vec<VoteValue> = Vec::new();
    let votes = raw
        .into_iter()
        .map(|cell| {
            let Some(s) = cell else {
                missing += 1;
                return Vote::Missing;
            };
            let s = s.as_ref();
            let k = match index.get(s) {
                Some(&k) => k,
                None => {
                    index.insert(s.to_owned(), seen.len());
                    seen.push(VoteValue {
                        raw: Some(s.to_owned()),
                        vote: normalize_vote(Some(s)),
                        count: 0,
                    });
                    seen.len() - 1
                }
            };
            seen[k].count += 1;
            seen[k].vote
        })
        .collect();
    // Code-point order of the raw strings is their byte order.
    seen.sort_unstable_by(|a, b| a.raw.cmp(&b.raw));
    let missing_value = (missing > 0).then_some(VoteValue {
        raw: None,
        vote: Vote::Missing,
        count: missing,
    });
    let values = missing_value.into_iter().chain(seen).collect();
    NormalizedVotes { votes, values }
}

/// Length of a text in Unicode scalar values (code points, as Python's
/// `len`); a missing text has length 0.
pub fn text_len(text: Option<&str>) -> u32 {
    text.map_or(0, |t| t.chars().count().min(u32::MAX as usize) as u32)
}

/// The pairs of one data set (or one subset value), column by column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairSet {
    /// The reference annotator's vote per pair.
    pub reference: Vec<Vote>,
    /// Each annotator's votes, one vector per annotator, in column order.
    pub annotators: Vec<Vec<Vote>>,
    /// Length of `text_a` per pair ([`text_len`]); 0 = empty or missing.
    pub len_a: Vec<u32>,
    /// Length of `text_b` per pair.
    pub len_b: Vec<u32>,
}

impl PairSet {
    /// Checks that every column has one entry per pair.
    ///
    /// # Panics
    /// If the columns differ in length (a caller bug).
    pub fn new(
        reference: Vec<Vote>,
        annotators: Vec<Vec<Vote>>,
        len_a: Vec<u32>,
        len_b: Vec<u32>,
    ) -> PairSet {
        let n = reference.len();
        assert!(
            len_a.len() == n && len_b.len() == n && annotators.iter().all(|a| a.len() == n),
            "PairSet columns of different lengths"
        );
        PairSet {
            reference,
            annotators,
            len_a,
            len_b,
        }
    }

    /// Number of pairs (rows), excluded ones included.
    pub fn len(&self) -> usize {
        self.reference.len()
    }

    /// No pairs at all.
    pub fn is_empty(&self) -> bool {
        self.reference.is_empty()
    }

    /// The pairs `rows` (in that order): a subset value's data set, whose
    /// metrics are computed from scratch as Feedback Forensics does.
    ///
    /// # Panics
    /// If a row number is out of range (a caller bug).
    pub fn select(&self, rows: &[usize]) -> PairSet {
        let pick = |v: &[Vote]| rows.iter().map(|&i| v[i]).collect::<Vec<_>>();
        PairSet {
            reference: pick(&self.reference),
            annotators: self.annotators.iter().map(|a| pick(a)).collect(),
            len_a: rows.iter().map(|&i| self.len_a[i]).collect(),
            len_b: rows.iter().map(|&i| self.len_b[i]).collect(),
        }
    }

    /// Why pair `i` is excluded, or `None` when it is used (spec 1: both
    /// texts non-empty and a valid reference vote).
    pub fn exclusion(&self, i: usize) -> Option<Exclusion> {
        if self.len_a[i] == 0 || self.len_b[i] == 0 {
            return Some(Exclusion::EmptyText);
        }
        match self.reference[i] {
            Vote::A | Vote::B => None,
            Vote::Tie => Some(Exclusion::ReferenceTie),
            Vote::Invalid => Some(Exclusion::ReferenceInvalid),
            Vote::Missing => Some(Exclusion::ReferenceMissing),
        }
    }

    /// The numbers of the pairs that are used, in order.
    pub fn used_rows(&self) -> Vec<usize> {
        (0..self.len())
            .filter(|&i| self.exclusion(i).is_none())
            .collect()
    }
}

/// Why a pair is left out (the first reason that applies, in this order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exclusion {
    /// `text_a` or `text_b` is empty or missing.
    EmptyText,
    /// The reference says `tie`, `both` or `neither`.
    ReferenceTie,
    /// The reference's vote is another value.
    ReferenceInvalid,
    /// The reference's vote is blank.
    ReferenceMissing,
}

/// How many pairs were read, used and left out, by reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Exclusions {
    /// Pairs read.
    pub rows: u64,
    pub empty_text: u64,
    pub reference_tie: u64,
    pub reference_invalid: u64,
    pub reference_missing: u64,
}

impl Exclusions {
    /// Pairs used (`N` of spec 2).
    pub fn used(&self) -> u64 {
        self.rows
            - self.empty_text
            - self.reference_tie
            - self.reference_invalid
            - self.reference_missing
    }

    fn count(&mut self, why: Option<Exclusion>) {
        self.rows += 1;
        match why {
            None => {}
            Some(Exclusion::EmptyText) => self.empty_text += 1,
            Some(Exclusion::ReferenceTie) => self.reference_tie += 1,
            Some(Exclusion::ReferenceInvalid) => self.reference_invalid += 1,
            Some(Exclusion::ReferenceMissing) => self.reference_missing += 1,
        }
    }
}

/// Counts of (reference vote, annotator vote): `counts[r][c]` with rows the
/// reference and columns the annotator, each coded 0 = `text_a`, 1 =
/// `text_b`, 2 = not valid ([`Vote::cell`]). Row 2 holds the pairs with
/// non-empty texts whose reference vote is not valid (excluded from every
/// metric); pairs with an empty text are in no cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VoteTable {
    pub counts: [[u64; 3]; 3],
}

impl VoteTable {
    /// `N`: pairs with a valid reference vote.
    pub fn votes(&self) -> u64 {
        self.counts[0].iter().chain(&self.counts[1]).sum()
    }

    /// `A`: valid annotator votes equal to the reference's.
    pub fn agreed(&self) -> u64 {
        self.counts[0][0] + self.counts[1][1]
    }

    /// `D`: valid annotator votes different from the reference's.
    pub fn disagreed(&self) -> u64 {
        self.counts[0][1] + self.counts[1][0]
    }

    /// `N - A - D`: annotator votes that are not valid.
    pub fn not_applicable(&self) -> u64 {
        self.counts[0][2] + self.counts[1][2]
    }
}

/// The exclusions and one [`VoteTable`] per annotator, from one pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VoteTables {
    pub exclusions: Exclusions,
    pub annotators: Vec<VoteTable>,
}

/// Counts every pair once (spec 1 exclusions, spec 2 tables).
pub fn vote_tables(pairs: &PairSet) -> VoteTables {
    let mut exclusions = Exclusions::default();
    let mut tables = vec![VoteTable::default(); pairs.annotators.len()];
    for i in 0..pairs.len() {
        let why = pairs.exclusion(i);
        exclusions.count(why);
        if why == Some(Exclusion::EmptyText) {
            continue;
        }
        let r = pairs.reference[i].cell();
        for (table, votes) in tables.iter_mut().zip(&pairs.annotators) {
            table.counts[r][votes[i].cell()] += 1;
        }
    }
    VoteTables {
        exclusions,
        annotators: tables,
    }
}

/// The metrics of one annotator against the reference (spec 2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnnotatorMetrics {
    /// `N`.
    pub votes: u64,
    pub agreed: u64,
    pub disagreed: u64,
    pub not_applicable: u64,
    /// `A / N`.
    pub agreement: f64,
    /// `A / (A + D)`; 0.5 when `A + D = 0`.
    pub accuracy: f64,
    /// `(A + D) / N`.
    pub relevance: f64,
    /// Feedback Forensics' "Cohen's kappa (randomized)": `2 (accuracy -
    /// 0.5)`, chance agreement fixed at 0.5 because the annotator did not
    /// see the order of the responses (spec 2), not estimated from the
    /// marginals as in [`cohen_kappa`]. Strength builds on this one.
    pub kappa_randomized: f64,
    /// `kappa_randomized * relevance`.
    pub strength: f64,
    /// Feedback Forensics' "Cohen's kappa (not adjusted)": scikit-learn's
    /// Cohen's kappa on the pairs where both votes are valid
    /// ([`cohen_kappa`]).
    pub kappa: f64,
    /// Feedback Forensics' one-sided binomial p-value.
    pub p_value: f64,
}

/// Fewer valid votes than this (agreed + disagreed) and a strength,
/// accuracy or relevance is marked `few votes` (spec 6).
pub const FEW_VOTES: u64 = 30;

impl AnnotatorMetrics {
    /// The votes valid for both the annotator and the reference: `A + D`.
    pub fn valid_votes(&self) -> u64 {
        self.agreed + self.disagreed
    }

    /// Fewer than [`FEW_VOTES`] valid votes (spec 6).
    pub fn few_votes(&self) -> bool {
        self.valid_votes() < FEW_VOTES
    }
}

/// Accuracy, relevance and strength from the counts, as Feedback Forensics
/// evaluates them (`NaN` for all three when `N = 0`).
pub fn rates(table: &VoteTable) -> (f64, f64, f64) {
    rates_of(table.votes(), table.agreed(), table.disagreed())
}

/// [`rates`] from `N`, `A` and `D`: `acc = A / (A + D)` (0.5 when `A + D =
/// 0`), `relevance = (A + D) / N`, `strength = 2 (acc - 0.5) relevance`.
pub(crate) fn rates_of(n: u64, a: u64, d: u64) -> (f64, f64, f64) {
    if n == 0 {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    let accuracy = if a + d == 0 {
        0.5
    } else {
        a as f64 / (a + d) as f64
    };
    let relevance = (a + d) as f64 / n as f64;
    let kappa_randomized = 2.0 * (accuracy - 0.5);
    (accuracy, relevance, kappa_randomized * relevance)
}

/// scikit-learn's `cohen_kappa_score(annotator, reference, labels=["text_a",
/// "text_b"])` on the pairs where both votes are valid, evaluated in its
/// order: `1 - sum(w * C) / sum(w * E)` with `E = outer(ref, annotator) /
/// n`. 0 when the annotator has no valid vote on those pairs (Feedback
/// Forensics catches scikit-learn's error); NaN when the expected
/// disagreement is 0 (both use one and the same label only).
///
/// This is Cohen's kappa with the observed marginals (chance agreement
/// `sum_k p_ref(k) p_annotator(k)`): Feedback Forensics' "Cohen's kappa
/// (not adjusted)", the `kappa` column. It is not Feedback Forensics'
/// "randomized" kappa, whose chance agreement is fixed at 0.5 because the
/// annotator did not see the order of the responses:
/// [`AnnotatorMetrics::kappa_randomized`], `2 (accuracy - 0.5)`, on which
/// strength builds. Feedback Forensics reports both, so both are here (spec
/// 2, parity). Its numbers are those of
/// [`crate::raters::pairs::cohen_kappa`] on the 2 x 2 table to
/// rounding (not bit for bit; a test in `metrics` compares them), except
/// the 0 for an empty table, where that one gives NaN.
pub fn cohen_kappa(table: &VoteTable) -> f64 {
    let c = &table.counts;
    let n = table.agreed() + table.disagreed();
    if n == 0 {
        return 0.0;
    }
    let (ref_a, ref_b) = ((c[0][0] + c[0][1]) as f64, (c[1][0] + c[1][1]) as f64);
    let (ann_a, ann_b) = ((c[0][0] + c[1][0]) as f64, (c[0][1] + c[1][1]) as f64);
    let nf = n as f64;
    let expected = ref_a * ann_b / nf + ref_b * ann_a / nf;
    if expected == 0.0 {
        return f64::NAN;
    }
    1.0 - table.disagreed() as f64 / expected
}

/// Every metric of spec 2 from one annotator's table. With `N = 0` (no
/// pair left) every rate, kappa and p-value is NaN.
pub fn annotator_metrics(table: &VoteTable) -> AnnotatorMetrics {
    let (n, a, d) = (table.votes(), table.agreed(), table.disagreed());
    let (accuracy, relevance, strength) = rates(table);
    let defined = |x: f64| if n == 0 { f64::NAN } else { x };
    AnnotatorMetrics {
        votes: n,
        agreed: a,
        disagreed: d,
        not_applicable: table.not_applicable(),
        agreement: defined(a as f64 / n as f64),
        accuracy,
        relevance,
        kappa_randomized: defined(2.0 * (accuracy - 0.5)),
        strength,
        kappa: defined(cohen_kappa(table)),
        p_value: defined(binomial_p_value(a, d)),
    }
}
