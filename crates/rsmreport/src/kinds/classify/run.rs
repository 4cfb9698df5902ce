//! Command assembly (classify): every number of spec 2-4 for each system,
//! on all items and on each subgroup level: the confusion matrix, the
//! label metrics, the ranking metrics and curves (one sort per class and
//! system), the probability metrics, the paired comparisons against the
//! baseline (McNemar, deltas, gains, verdicts), and the intervals of
//! [`super::resample`].
//!
//! Calls the pure maths of `rsmreport_metrics` (classification, ranking,
//! calibration, raters::pairs, paired, bootstrap): one definition of every
//! number. Reads and writes nothing, formats nothing.

use super::blocks::{whole_data_blocks, BlocksKey};
use super::read::{Data, Scores, SystemData};
use super::resample::{self, Intervals};
use crate::analysis::intervals::design::Blocks;
use rsmreport_config::classify::ClassifyConfig;
use rsmreport_metrics::bootstrap::wilson_interval;
use rsmreport_metrics::calibration::{is_probability_row, ProbSums, ProbTerms};
use rsmreport_metrics::classification::{label_report_cells, LabelReport};
use rsmreport_metrics::paired::mcnemar_exact_p;
use rsmreport_metrics::ranking::{macro_weighted, RankSums, SortedLabels};
use rsmreport_metrics::raters::pairs::cohen_kappa;
use rsmreport_metrics::raters::{PairTable, Weights};

/// What a system's scores are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreKind {
    /// Every row sums to 1 within 1e-6, every value in [0, 1].
    Probabilities,
    /// Any monotone scores: ranking metrics only.
    Scores,
}

impl ScoreKind {
    pub fn name(self) -> &'static str {
        match self {
            ScoreKind::Probabilities => "probabilities",
            ScoreKind::Scores => "scores",
        }
    }
}

/// The ranking metrics of one system (spec 2, with scores).
#[derive(Clone, Debug)]
pub struct Ranking {
    pub kind: ScoreKind,
    pub average_precision: Vec<f64>,
    pub roc_auc: Vec<f64>,
    pub positives: Vec<f64>,
    pub ap_macro: f64,
    pub ap_weighted: f64,
    pub auc_macro: f64,
    pub auc_weighted: f64,
    /// Mean AUC over the classes where it is defined, and those left out.
    pub auc_macro_present: f64,
    pub auc_left_out: Vec<usize>,
    /// Per class: PR rows `(threshold, precision, recall)` and ROC rows
    /// `(threshold, fpr, tpr)` (empty for a class without positives or
    /// negatives, and when curves were not asked for).
    /// At most `curve_points` rows per curve (spec 2, `ranking::thin`).
    pub pr: Vec<Vec<(f64, f64, f64)>>,
    pub roc: Vec<Vec<(f64, f64, f64)>>,
    /// Per class, how many points the whole PR and ROC curves have (more
    /// than `pr[j].len()` when the table's curve was thinned).
    pub pr_full: Vec<usize>,
    pub roc_full: Vec<usize>,
    /// Per class, the items in score order (slots: item numbers; the
    /// compacted order of [`SortedLabels::with_curve`]), for the subgroups
    /// and the bootstrap; kept on all items only, and dropped once they
    /// are done.
    pub sorted: Vec<SortedLabels>,
    /// On all items, when subgroups or resampling blocks were asked for
    /// ([`Parts`]): the probability sums of each subgroup level and block,
    /// taken in the pass of the whole data's
    /// ([`probability_sums_of_parts`]; `None` sums where the scores are
    /// not probabilities), for the subgroups and the bootstrap; dropped
    /// once they are done.
    pub parts: Option<Box<PartSums>>,
}

/// The probability sums of the parts of [`Parts`], in its order.
#[derive(Clone, Debug)]
pub struct PartSums {
    /// Per subgroup column, per level (as `probability_sums_by_level`).
    pub levels: Vec<Vec<Option<(ProbSums, usize)>>>,
    /// Per block of [`Parts::blocks`], with probabilities only.
    pub blocks: Option<BlockSums>,
}

/// The probability sums of each block of a [`Blocks`] (an empty block's
/// sums are 0), with the key of the blocks they were taken over.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockSums {
    pub key: BlocksKey,
    pub sums: Vec<ProbSums>,
}

impl BlockSums {
    /// From the sums of each block of `blocks` as
    /// [`probability_sums_of_parts`] gives them.
    fn new(blocks: &Blocks, parts: Vec<Option<(ProbSums, usize)>>) -> BlockSums {
        let sums = parts.into_iter();
        BlockSums {
            key: BlocksKey::of(blocks),
            sums: sums
                .map(|x| x.map(|(s, _)| s).unwrap_or_default())
                .collect(),
        }
    }

    /// Whether these are the sums of the blocks of `blocks`.
    pub fn are_of(&self, blocks: &Blocks) -> bool {
        self.sums.len() == blocks.len() && self.key == BlocksKey::of(blocks)
    }
}

/// The partitions of all items whose probability sums a system's pass
/// takes beside the whole data's: each subgroup column's codes and number
/// of levels, and the bootstrap's blocks of items.
#[derive(Clone, Copy, Default)]
pub struct Parts<'a> {
    pub levels: &'a [(&'a [u32], usize)],
    pub blocks: Option<&'a Blocks>,
}

impl Ranking {
    /// No class yet: [`Ranking::finish`] fills the averages once every
    /// class is pushed.
    fn empty() -> Ranking {
        Ranking {
            kind: ScoreKind::Scores,
            average_precision: Vec::new(),
            roc_auc: Vec::new(),
            positives: Vec::new(),
            ap_macro: f64::NAN,
            ap_weighted: f64::NAN,
            auc_macro: f64::NAN,
            auc_weighted: f64::NAN,
            auc_macro_present: f64::NAN,
            auc_left_out: Vec::new(),
            pr: Vec::new(),
            roc: Vec::new(),
            pr_full: Vec::new(),
            roc_full: Vec::new(),
            sorted: Vec::new(),
            parts: None,
        }
    }

    /// The macro and weighted averages of the classes pushed, and the
    /// kind of scores (`probabilities`: every item's row is one).
    fn finish(&mut self, probabilities: bool) {
        let (ap, auc, positives) = (&self.average_precision, &self.roc_auc, &self.positives);
        (self.ap_macro, self.ap_weighted) = macro_weighted(ap, positives);
        (self.auc_macro, self.auc_weighted) = macro_weighted(auc, positives);
        let present: Vec<f64> = auc.iter().copied().filter(|a| !a.is_nan()).collect();
        self.auc_macro_present = present.iter().sum::<f64>() / present.len() as f64;
        self.auc_left_out = (0..auc.len()).filter(|&j| auc[j].is_nan()).collect();
        self.kind = if probabilities {
            ScoreKind::Probabilities
        } else {
            ScoreKind::Scores
        };
    }
}

/// How [`evaluate`] orders each class's items for the ranking metrics.
pub enum Order {
    /// Sorts them (all items): curves with at most `curve_points` points
    /// per curve (0: every point), and the order kept for the subgroups
    /// and the bootstrap.
    Sort { curve_points: usize },
    /// The sums of every class and the probability sums, given (a
    /// subgroup level's, from the order and the items of all: no second
    /// sort, `SortedLabels::sums_by_level` and
    /// [`probability_sums_by_level`]); no curves. The items' scores are
    /// not read.
    Given(Box<Given>),
}

/// A subgroup level's ranking sums (one per class) and probability sums
/// with its count of tied top scores (`None`: not probabilities).
pub struct Given {
    pub sums: Vec<RankSums>,
    pub probs: Option<(ProbSums, usize)>,
}

/// Everything about one system on one set of items.
#[derive(Clone, Debug)]
pub struct SystemResult {
    pub name: String,
    pub n: usize,
    pub n_abstained: usize,
    /// The `K x (K + 1)` counts, the last column the abstentions.
    pub confusion: Confusion,
    pub report: LabelReport,
    pub kappa: f64,
    /// Ordinal only (NaN otherwise).
    pub kappa_linear: f64,
    pub kappa_quadratic: f64,
    pub mae_classes: f64,
    pub wilson: (f64, f64),
    pub ranking: Option<Ranking>,
    /// With probabilities only.
    pub probs: Option<ProbSums>,
    /// Items whose two largest probabilities are equal.
    pub top_label_ties: usize,
}

impl SystemResult {
    /// The macro F1 (the first beta is 1 by construction of the F list).
    pub fn macro_f(&self, b: usize) -> f64 {
        self.report.macro_avg.f[b]
    }
}

/// A view of the items of one scope (all, or one subgroup level).
pub struct Items<'a> {
    pub gold: &'a [u32],
    pub pred: &'a [u32],
    pub scores: Option<&'a Scores>,
    /// Other partitions of the items whose probability sums to take.
    pub parts: Parts<'a>,
}

/// The `K x (K + 1)` confusion counts (gold rows; the `K` labels then
/// `(none)` as columns), stored as their non-zero cells: a run with
/// thousands of labels costs what its items use, never `K x K`.
#[derive(Clone, Debug, PartialEq)]
pub struct Confusion {
    pub k: usize,
    /// `(gold, predicted, count)`, sorted, every count positive.
    pub cells: Vec<(u32, u32, f64)>,
}

impl Confusion {
    /// The counts of the codes `gold` (below `k`) and `pred` (at most `k`).
    pub fn of(gold: &[u32], pred: &[u32], k: usize) -> Confusion {
        let cols = k as u64 + 1;
        // Few labels: count in a dense table (one pass, no sort); many:
        // sort the cell codes, so memory never grows with K x K.
        if (k as u64) * cols <= 1 << 16 {
            let mut counts = vec![0u32; k * (k + 1)];
            for (&g, &p) in gold.iter().zip(pred) {
                counts[g as usize * (k + 1) + p as usize] += 1;
            }
            let cells = counts
                .iter()
                .enumerate()
                .filter(|(_, &c)| c > 0)
                .map(|(i, &c)| ((i / (k + 1)) as u32, (i % (k + 1)) as u32, f64::from(c)))
                .collect();
            return Confusion { k, cells };
        }
        let mut codes: Vec<u64> = gold
            .iter()
            .zip(pred)
            .map(|(&g, &p)| u64::from(g) * cols + u64::from(p))
            .collect();
        codes.sort_unstable();
        let mut cells: Vec<(u32, u32, f64)> = Vec::new();
        for c in codes {
            let (g, p) = ((c / cols) as u32, (c % cols) as u32);
            match cells.last_mut() {
                Some(last) if (last.0, last.1) == (g, p) => last.2 += 1.0,
                _ => cells.push((g, p, 1.0)),
            }
        }
        Confusion { k, cells }
    }

    /// Gold row `g`, every column (`K + 1` counts).
    pub fn row(&self, g: usize) -> Vec<f64> {
        let mut out = vec![0.0; self.k + 1];
        let start = self.cells.partition_point(|c| (c.0 as usize) < g);
        for &(_, p, m) in self.cells[start..].iter().take_while(|c| c.0 as usize == g) {
            out[p as usize] = m;
        }
        out
    }

    /// Items per predicted column (`K + 1`).
    pub fn column_totals(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.k + 1];
        for &(_, p, m) in &self.cells {
            out[p as usize] += m;
        }
        out
    }

    /// Items on the diagonal.
    pub fn correct(&self) -> f64 {
        self.cells.iter().filter(|c| c.0 == c.1).map(|c| c.2).sum()
    }
}

/// Cohen's kappa of the `K x (K + 1)` confusion cells `c` over `L +
/// (none)` (a square table of `K + 1` categories whose last row is empty).
pub fn kappa_of(c: &[(u32, u32, f64)], k: usize, w: Weights) -> f64 {
    let table = PairTable {
        rater_1: 0,
        rater_2: 1,
        q: k + 1,
        cells: c.to_vec(),
    };
    cohen_kappa(&table, w)
}

/// Evaluates one system on `items`, its ranking metrics in `order`.
/// `positive` is the positive class of a binary task (`positive_label`).
pub fn evaluate(
    cfg: &ClassifyConfig,
    name: &str,
    (k, positive): (usize, Option<usize>),
    items: &Items,
    order: Order,
) -> SystemResult {
    let n = items.gold.len();
    let c = Confusion::of(items.gold, items.pred, k);
    let n_abstained = items.pred.iter().filter(|&&p| p as usize == k).count();
    let report = label_report_cells(&c.cells, k, k + 1, &betas_with_one(&cfg.beta));
    let ordinal = |w| {
        if cfg.ordinal {
            kappa_of(&c.cells, k, w)
        } else {
            f64::NAN
        }
    };
    let mae_classes = if cfg.ordinal && n_abstained == 0 {
        let s: f64 = items
            .gold
            .iter()
            .zip(items.pred)
            .map(|(&g, &p)| (g as f64 - p as f64).abs())
            .sum();
        s / n as f64
    } else {
        f64::NAN
    };
    let correct = c.correct();
    let (ranking, probs, ties) = match (items.scores, order) {
        (_, Order::Given(given)) => given_scores(*given),
        (Some(s), Order::Sort { curve_points }) => {
            scores((k, positive), items.gold, (s, items.parts), curve_points)
        }
        (None, Order::Sort { .. }) => (None, None, 0),
    };
    SystemResult {
        name: name.to_string(),
        n,
        n_abstained,
        kappa: kappa_of(&c.cells, k, Weights::Identity),
        kappa_linear: ordinal(Weights::Linear),
        kappa_quadratic: ordinal(Weights::Quadratic),
        mae_classes,
        wilson: wilson_interval(correct, n, 0.95),
        confusion: c,
        report,
        ranking,
        probs,
        top_label_ties: ties,
    }
}

/// The betas of the tables, with 1 first when it is not asked for (macro
/// F1 is a headline number and a compared statistic whatever the betas).
pub fn betas_with_one(beta: &[f64]) -> Vec<f64> {
    let mut out = beta.to_vec();
    if !out.contains(&1.0) {
        out.push(1.0);
    }
    out
}

/// The index of beta 1 in [`betas_with_one`].
pub fn f1_index(beta: &[f64]) -> usize {
    betas_with_one(beta)
        .iter()
        .position(|&b| b == 1.0)
        .expect("added")
}

fn scores(
    (k, positive): (usize, Option<usize>),
    gold: &[u32],
    (s, parts): (&Scores, Parts<'_>),
    cap: usize,
) -> (Option<Ranking>, Option<ProbSums>, usize) {
    let n = gold.len();
    let mut r = Ranking::empty();
    let items: Vec<u32> = (0..n as u32).collect();
    let mut truth = vec![false; n];
    for j in 0..k {
        for (t, &g) in truth.iter_mut().zip(gold) {
            *t = g as usize == j;
        }
        let (sorted, curve, sums) = SortedLabels::with_curve(&s[j], &truth, &items, true);
        r.sorted.push(sorted);
        r.average_precision.push(sums.average_precision());
        r.roc_auc.push(sums.roc_auc());
        r.positives.push(curve.positives());
        let (points, full) = curve.pr_points_capped(cap);
        r.pr.push(points);
        r.pr_full.push(full);
        let (points, full) = curve.roc_points_capped(cap);
        r.roc.push(points);
        r.roc_full.push(full);
    }
    let (probs, part_sums) = probability_parts(s, gold, positive, parts);
    r.parts = part_sums.map(Box::new);
    r.finish(probs.is_some());
    match probs {
        Some((sums, ties)) => (Some(r), Some(sums), ties),
        None => (Some(r), None, 0),
    }
}

/// A subgroup level's numbers from its given sums (no curves).
fn given_scores(given: Given) -> (Option<Ranking>, Option<ProbSums>, usize) {
    if given.sums.is_empty() {
        return (None, None, 0);
    }
    let mut r = Ranking::empty();
    for sums in given.sums {
        r.average_precision.push(sums.average_precision());
        r.roc_auc.push(sums.roc_auc());
        r.positives.push(sums.positives());
        r.pr_full.push(0);
        r.roc_full.push(0);
        r.pr.push(Vec::new());
        r.roc.push(Vec::new());
    }
    r.finish(given.probs.is_some());
    match given.probs {
        Some((sums, ties)) => (Some(r), Some(sums), ties),
        None => (Some(r), None, 0),
    }
}

/// The probability sums and the items whose top score is tied, in one
/// pass over the items; `None` when some item's scores are not
/// probabilities (or there is no item).
fn probability_sums(
    s: &Scores,
    gold: &[u32],
    positive: Option<usize>,
) -> Option<(ProbSums, usize)> {
    let mut all = probability_sums_of_parts(s, gold, &[(None, 1)], positive);
    all.pop().and_then(|mut whole| whole.pop()).flatten()
}

/// [`probability_sums`] on all items and, when `parts` has any, the sums
/// of its parts, from one pass ([`probability_sums_of_parts`]). The
/// blocks' sums only with probabilities (the bootstrap needs no others).
fn probability_parts(
    s: &Scores,
    gold: &[u32],
    positive: Option<usize>,
    parts: Parts<'_>,
) -> (Option<(ProbSums, usize)>, Option<PartSums>) {
    if parts.levels.is_empty() && parts.blocks.is_none() {
        return (probability_sums(s, gold, positive), None);
    }
    let mut partitions: Vec<Partition<'_>> = vec![(None, 1)];
    partitions.extend(parts.levels.iter().map(|&(codes, m)| (Some(codes), m)));
    if let Some(b) = parts.blocks {
        partitions.push((Some(b.of_response.as_slice()), b.len()));
    }
    let mut all = probability_sums_of_parts(s, gold, &partitions, positive).into_iter();
    let whole = all.next().and_then(|mut w| w.pop()).flatten();
    let levels: Vec<_> = all.by_ref().take(parts.levels.len()).collect();
    let blocks = (parts.blocks.zip(all.next()))
        .filter(|_| whole.is_some())
        .map(|(b, sums)| BlockSums::new(b, sums));
    (whole, Some(PartSums { levels, blocks }))
}

/// The probability sums of each block of `blocks` in one pass over all
/// items ([`probability_sums_of_parts`]), for scores that are
/// probabilities on every item.
pub fn probability_sums_by_block(
    s: &Scores,
    gold: &[u32],
    blocks: &Blocks,
    positive: Option<usize>,
) -> BlockSums {
    let partition = [(Some(blocks.of_response.as_slice()), blocks.len())];
    let mut all = probability_sums_of_parts(s, gold, &partition, positive);
    BlockSums::new(blocks, all.pop().expect("one partition"))
}

/// [`probability_sums`] of each subgroup level (`codes[i]`: item `i`'s
/// level, below `levels`) in one pass over all items
/// ([`probability_sums_of_parts`]).
pub fn probability_sums_by_level(
    s: &Scores,
    gold: &[u32],
    (codes, levels): (&[u32], usize),
    positive: Option<usize>,
) -> Vec<Option<(ProbSums, usize)>> {
    let mut all = probability_sums_of_parts(s, gold, &[(Some(codes), levels)], positive);
    all.pop().expect("one partition")
}

/// The items cut in `parts` ways: each item's part (`None`: every item in
/// part 0) and how many parts.
type Partition<'a> = (Option<&'a [u32]>, usize);

/// [`probability_sums`] of every part of each partition of the items, in
/// one pass over all items: each item's terms are computed once
/// ([`ProbTerms`]) and added to its part in every partition, in item order,
/// so each part's sums are bit for bit those of its own pass, and no
/// part's scores are copied. A part is `None` once one of its rows is not
/// probabilities, and when it has no item.
pub fn probability_sums_of_parts(
    s: &Scores,
    gold: &[u32],
    partitions: &[Partition<'_>],
    positive: Option<usize>,
) -> Vec<Vec<Option<(ProbSums, usize)>>> {
    let new = |&(_, m): &Partition<'_>| vec![(ProbSums::default(), 0usize, 0usize, true); m];
    // Per part: the sums, the tied items, the items, whether it is fine.
    let mut acc: Vec<Vec<(ProbSums, usize, usize, bool)>> = partitions.iter().map(new).collect();
    let mut live: usize = partitions.iter().map(|p| p.1).sum();
    let mut row = vec![0.0; s.columns.len()];
    for (i, &g) in gold.iter().enumerate() {
        if live == 0 {
            // Every part has a row that is not probabilities: all `None`.
            break;
        }
        s.row_into(i, &mut row);
        let terms = is_probability_row(&row).then(|| {
            (
                ProbTerms::of(&row, g as usize, positive),
                has_tied_top(&row),
            )
        });
        for (acc, &(codes, _)) in acc.iter_mut().zip(partitions) {
            let part = &mut acc[codes.map_or(0, |c| c[i] as usize)];
            part.2 += 1;
            match (&terms, part.3) {
                (_, false) => {}
                (Some((t, tied)), true) => {
                    part.0.add(t, 1.0);
                    part.1 += usize::from(*tied);
                }
                (None, true) => {
                    part.3 = false;
                    live -= 1;
                }
            }
        }
    }
    acc.into_iter()
        .map(|parts| {
            let sums = parts.into_iter();
            sums.map(|(sums, ties, n, fine)| (fine && n > 0).then_some((sums, ties)))
                .collect()
        })
        .collect()
}

/// Whether the largest score is there twice or more.
fn has_tied_top(row: &[f64]) -> bool {
    let top = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    row.iter().filter(|&&x| x == top).count() > 1
}

/// One candidate against the baseline on the same items (spec 3).
#[derive(Clone, Debug)]
pub struct Comparison {
    pub baseline: usize,
    pub candidate: usize,
    /// `[[both correct, baseline only], [candidate only, both wrong]]`.
    pub mcnemar_table: [[u64; 2]; 2],
    pub mcnemar_p: f64,
}

/// Everything of one subgroup level.
#[derive(Clone, Debug)]
pub struct Level {
    pub name: String,
    pub n: usize,
    pub systems: Vec<SystemResult>,
}

/// Everything of one subgroup column.
#[derive(Clone, Debug)]
pub struct GroupResult {
    pub column: String,
    pub levels: Vec<Level>,
}

/// The whole analysis.
#[derive(Clone, Debug)]
pub struct Analysis {
    pub id: String,
    pub description: String,
    pub labels: Vec<String>,
    pub betas: Vec<f64>,
    pub n_rows: usize,
    pub n_dropped_blank_gold: usize,
    pub n: usize,
    pub gold_counts: Vec<usize>,
    /// Per system: predicted counts per label, then abstentions.
    pub pred_counts: Vec<Vec<usize>>,
    pub systems: Vec<SystemResult>,
    pub baseline: usize,
    pub positive: Option<usize>,
    pub ordinal: bool,
    pub comparisons: Vec<Comparison>,
    pub groups: Vec<GroupResult>,
    pub intervals: Option<Intervals>,
    pub settings: Option<rsmreport_config::intervals::Intervals>,
    /// The practical margin of each compared statistic (`[margins]`).
    pub margins: Vec<(String, f64)>,
    /// The most points a curve table holds per curve (0: every point).
    pub curve_points: usize,
    /// The quality gates' result lines (empty without gates).
    pub gates: Vec<crate::gates::Outcome>,
}

impl Analysis {
    pub fn k(&self) -> usize {
        self.labels.len()
    }

    pub fn f1(&self) -> usize {
        f1_index(&self.betas)
    }
}

fn items_of<'a>(sys: &'a SystemData, gold: &'a [u32], parts: Parts<'a>) -> Items<'a> {
    Items {
        gold,
        pred: &sys.pred,
        scores: sys.scores.as_ref(),
        parts,
    }
}

/// Every number of the experiment.
pub fn analyse(cfg: &ClassifyConfig, data: &Data) -> Analysis {
    let k = data.k();
    // Binary tasks only: `brier_positive` and the positive class's row.
    let positive = cfg
        .positive_label
        .as_ref()
        .filter(|_| k == 2)
        .and_then(|p| {
            data.labels
                .iter()
                .position(|l| rsmreport_config::classify::same_label(l, p, cfg.ordinal))
        });
    let settings = cfg.intervals.filter(|i| i.replicates > 0);
    // The bootstrap's blocks, so that each system's pass over its
    // probabilities also sums them by block (and by subgroup level).
    let blocks = settings.map(|st| whole_data_blocks(data.n(), &st));
    let levels: Vec<(&[u32], usize)> = data
        .subgroups
        .iter()
        .map(|g| (g.codes.as_slice(), g.levels.len()))
        .collect();
    let parts = Parts {
        levels: &levels,
        blocks: blocks.as_ref(),
    };
    let systems: Vec<SystemResult> = rsmreport_core::provenance::timed("metrics", || {
        std::thread::scope(|scope| {
            let handles: Vec<_> = data
                .systems
                .iter()
                .map(|s| {
                    scope.spawn(move || {
                        let order = Order::Sort {
                            curve_points: cfg.curve_points,
                        };
                        let items = items_of(s, &data.gold, parts);
                        evaluate(cfg, &s.name, (k, positive), &items, order)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("metrics thread"))
                .collect()
        })
    });
    let comparisons = comparisons(cfg, data);
    let groups =
        rsmreport_core::provenance::timed("subgroups", || groups(cfg, data, positive, &systems));
    let intervals = settings.zip(blocks).map(|(settings, blocks)| {
        rsmreport_core::provenance::timed("bootstrap", || {
            resample::run(cfg, data, &systems, (positive, &settings), blocks)
        })
    });
    // The orders and part sums served the subgroups and the bootstrap: the
    // report does not need them.
    let mut systems = systems;
    for r in systems.iter_mut().filter_map(|s| s.ranking.as_mut()) {
        r.sorted = Vec::new();
        r.parts = None;
    }
    let mut gold_counts = vec![0usize; k];
    for &g in &data.gold {
        gold_counts[g as usize] += 1;
    }
    let pred_counts = data
        .systems
        .iter()
        .map(|s| {
            let mut c = vec![0usize; k + 1];
            for &p in &s.pred {
                c[p as usize] += 1;
            }
            c
        })
        .collect();
    Analysis {
        id: cfg.experiment_id.clone(),
        description: cfg.description.clone(),
        labels: data.labels.clone(),
        betas: cfg.beta.clone(),
        n_rows: data.n_rows,
        n_dropped_blank_gold: data.n_dropped_blank_gold,
        n: data.n(),
        gold_counts,
        pred_counts,
        systems,
        baseline: cfg.baseline,
        positive,
        ordinal: cfg.ordinal,
        comparisons,
        groups,
        intervals,
        settings: cfg.intervals,
        margins: cfg.margins.clone(),
        curve_points: cfg.curve_points,
        gates: Vec::new(),
    }
}

fn comparisons(cfg: &ClassifyConfig, data: &Data) -> Vec<Comparison> {
    let k = data.k() as u32;
    let b = cfg.baseline;
    let base = &data.systems[b].pred;
    (0..data.systems.len())
        .filter(|&c| c != b)
        .map(|c| {
            let cand = &data.systems[c].pred;
            let mut t = [[0u64; 2]; 2];
            for ((&g, &x), &y) in data.gold.iter().zip(base).zip(cand) {
                let (bx, cy) = (x == g && x != k, y == g && y != k);
                t[usize::from(!bx)][usize::from(!cy)] += 1;
            }
            // Rows: baseline right/wrong; columns: candidate right/wrong.
            // The table of the spec: [[both, baseline only], [candidate only, neither]].
            let table = [[t[0][0], t[0][1]], [t[1][0], t[1][1]]];
            Comparison {
                baseline: b,
                candidate: c,
                mcnemar_p: mcnemar_exact_p(table[0][1], table[1][0]),
                mcnemar_table: table,
            }
        })
        .collect()
}

/// Every subgroup level's numbers: the items of each level, and each
/// class's ranking sums by level from the order of all items (`all`, one
/// pass per class and system instead of a sort per level).
fn groups(
    cfg: &ClassifyConfig,
    data: &Data,
    positive: Option<usize>,
    all: &[SystemResult],
) -> Vec<GroupResult> {
    data.subgroups
        .iter()
        .enumerate()
        .map(|(column, g)| {
            let (k, nl) = (data.k(), g.levels.len());
            let mut idx: Vec<Vec<usize>> = vec![Vec::new(); nl];
            for (i, &c) in g.codes.iter().enumerate() {
                idx[c as usize].push(i);
            }
            let gold: Vec<Vec<u32>> = idx
                .iter()
                .map(|ix| ix.iter().map(|&i| data.gold[i]).collect())
                .collect();
            let by_system: Vec<Vec<SystemResult>> = std::thread::scope(|scope| {
                let handles: Vec<_> = data
                    .systems
                    .iter()
                    .zip(all)
                    .map(|(s, r)| {
                        let (idx, gold, codes) = (&idx, &gold, g.codes.as_slice());
                        let whole_gold = data.gold.as_slice();
                        scope.spawn(move || {
                            let level_items = (codes, idx.as_slice(), gold.as_slice(), whole_gold);
                            system_levels(cfg, (s, r, column), level_items, (k, positive))
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("subgroup thread"))
                    .collect()
            });
            let mut by_system: Vec<_> = by_system.into_iter().map(|v| v.into_iter()).collect();
            let levels = g
                .levels
                .iter()
                .enumerate()
                .map(|(l, name)| Level {
                    name: name.clone(),
                    n: idx[l].len(),
                    systems: by_system
                        .iter_mut()
                        .map(|it| it.next().expect("one result per level"))
                        .collect(),
                })
                .collect();
            GroupResult {
                column: g.column.clone(),
                levels,
            }
        })
        .collect()
}

/// Each item's level, each level's items and gold labels, and every
/// item's gold label.
type LevelItems<'a> = (&'a [u32], &'a [Vec<usize>], &'a [Vec<u32>], &'a [u32]);

/// One system's numbers on every level of one subgroup: `codes` holds each
/// item's level, `idx` and `gold` each level's items and gold labels.
fn system_levels(
    cfg: &ClassifyConfig,
    (s, whole, column): (&SystemData, &SystemResult, usize),
    (codes, idx, gold, whole_gold): LevelItems<'_>,
    (k, positive): (usize, Option<usize>),
) -> Vec<SystemResult> {
    let nl = idx.len();
    // Per level, the ranking sums of each class and the probability sums.
    let mut sums: Vec<Vec<RankSums>> = (0..nl).map(|_| Vec::new()).collect();
    if let Some(r) = whole.ranking.as_ref() {
        for sl in &r.sorted {
            for (l, s) in sl.sums_by_level(codes, nl).into_iter().enumerate() {
                sums[l].push(s);
            }
        }
    }
    // Taken in the metrics' pass when it had the subgroups.
    let taken = whole.ranking.as_ref().and_then(|r| r.parts.as_ref());
    let probs = match (&s.scores, &whole.ranking, taken) {
        (Some(_), Some(_), Some(p)) => p.levels[column].clone(),
        (Some(sc), Some(_), None) => {
            probability_sums_by_level(sc, whole_gold, (codes, nl), positive)
        }
        _ => vec![None; nl],
    };
    idx.iter()
        .zip(gold)
        .zip(sums.into_iter().zip(probs))
        .map(|((ix, gold), (sums, probs))| {
            let pred: Vec<u32> = ix.iter().map(|&i| s.pred[i]).collect();
            let items = Items {
                gold,
                pred: &pred,
                scores: None,
                parts: Parts::default(),
            };
            let given = Given { sums, probs };
            evaluate(
                cfg,
                &s.name,
                (k, positive),
                &items,
                Order::Given(Box::new(given)),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsmreport_metrics::classification::label_report;

    /// Gold 0 0 1 1 2, predicted 0 1 1 (none) 2 over 3 labels: the cells,
    /// rows, column totals and diagonal by hand; the sparse report and
    /// kappas equal the dense ones.
    #[test]
    fn sparse_confusion_is_the_dense_one() {
        let (gold, pred) = ([0, 0, 1, 1, 2], [0, 1, 1, 3, 2]);
        let c = Confusion::of(&gold, &pred, 3);
        let one = |g, p| (g, p, 1.0);
        assert_eq!(
            c.cells,
            [one(0, 0), one(0, 1), one(1, 1), one(1, 3), one(2, 2)]
        );
        assert_eq!(c.row(1), [0.0, 1.0, 0.0, 1.0]);
        assert_eq!(c.row(2), [0.0, 0.0, 1.0, 0.0]);
        assert_eq!(c.column_totals(), [1.0, 2.0, 1.0, 1.0]);
        assert_eq!(c.correct(), 3.0);
        let mut dense = vec![0.0; 3 * 4];
        for (&g, &p) in gold.iter().zip(&pred) {
            dense[g as usize * 4 + p as usize] += 1.0;
        }
        let (a, b) = (
            label_report(&dense, 3, 4, &[1.0]),
            label_report_cells(&c.cells, 3, 4, &[1.0]),
        );
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        let mut square = dense.clone();
        square.extend([0.0; 4]);
        for w in [Weights::Identity, Weights::Linear, Weights::Quadratic] {
            let want = cohen_kappa(&PairTable::from_dense(&square, 4), w);
            assert_eq!(kappa_of(&c.cells, 3, w).to_bits(), want.to_bits());
        }
        // Many labels (sorted codes) and few (counted) give the same cells.
        let gold: Vec<u32> = (0..5000u32).map(|i| (i * 7) % 300).collect();
        let pred: Vec<u32> = (0..5000u32).map(|i| (i * 13) % 301).collect();
        let many = Confusion::of(&gold, &pred, 300);
        let mut dense = std::collections::BTreeMap::new();
        for (&g, &p) in gold.iter().zip(&pred) {
            *dense.entry((g, p)).or_insert(0.0) += 1.0;
        }
        let want: Vec<(u32, u32, f64)> = dense.into_iter().map(|((g, p), c)| (g, p, c)).collect();
        assert_eq!(many.cells, want);
    }

    /// `n` rows of three seeded random probabilities that sum to 1.
    fn random_probability_rows(n: usize, seed: u64) -> Vec<f64> {
        let mut rng = rsmreport_metrics::bootstrap::Rng::from_seed(seed);
        let mut next = move || rng.next_f64();
        let mut rows = Vec::new();
        for _ in 0..n {
            let (a, b) = (next(), next());
            let (lo, hi) = (a.min(b), a.max(b));
            rows.extend([lo, hi - lo, 1.0 - hi]);
        }
        rows
    }

    /// One pass by level gives each level's own probability sums bit for
    /// bit (`Scores::subset` then [`probability_sums`]), `None` for a
    /// level with a row that is not probabilities and for an empty level.
    #[test]
    fn probability_sums_by_level_are_each_levels_own() {
        let n = 900;
        let mut rows = random_probability_rows(n, 7);
        let codes: Vec<u32> = (0..n).map(|i| (i % 7 % 3) as u32).collect();
        // Level 1 gets one row that is not probabilities; level 3 is empty.
        let bad = (0..n).filter(|&i| codes[i] == 1).nth(30).unwrap();
        rows[3 * bad] = 1.5;
        let gold: Vec<u32> = (0..n).map(|i| (i * 5 % 3) as u32).collect();
        let scores = Scores::from_rows(&rows, 3);
        let by_level = probability_sums_by_level(&scores, &gold, (&codes, 4), Some(1));
        for (l, got) in by_level.iter().enumerate() {
            let ix: Vec<usize> = (0..n).filter(|&i| codes[i] as usize == l).collect();
            let g: Vec<u32> = ix.iter().map(|&i| gold[i]).collect();
            let want = probability_sums(&scores.subset(&ix), &g, Some(1));
            assert_eq!(format!("{got:?}"), format!("{want:?}"), "level {l}");
        }
        assert!(by_level[0].is_some() && by_level[2].is_some());
        assert!(by_level[1].is_none() && by_level[3].is_none());
    }

    /// All items, the levels and blocks in one pass give each one's own
    /// sums bit for bit (the blocks' as `ProbSums::push` item by item);
    /// with a row that is not probabilities, the whole data's and its
    /// level's are `None` and the blocks are dropped.
    #[test]
    fn parts_in_one_pass_are_each_ones_own() {
        let n = 700;
        let rows = random_probability_rows(n, 3);
        let gold: Vec<u32> = (0..n).map(|i| (i * 7 % 3) as u32).collect();
        let codes: Vec<u32> = (0..n).map(|i| (i % 5 % 3) as u32).collect();
        let settings = rsmreport_config::intervals::Intervals {
            replicates: 10,
            ..Default::default()
        };
        let blocks = whole_data_blocks(n, &settings);
        let levels = [(codes.as_slice(), 3)];
        let parts = Parts {
            levels: &levels,
            blocks: Some(&blocks),
        };
        for bad in [None, Some(123)] {
            let mut rows = rows.clone();
            if let Some(i) = bad {
                rows[3 * i] = -0.5;
            }
            let scores = Scores::from_rows(&rows, 3);
            let (whole, got) = probability_parts(&scores, &gold, Some(2), parts);
            let got = got.expect("parts asked for");
            let want = probability_sums(&scores, &gold, Some(2));
            assert_eq!(format!("{whole:?}"), format!("{want:?}"));
            let by_level = probability_sums_by_level(&scores, &gold, (&codes, 3), Some(2));
            assert_eq!(format!("{:?}", got.levels[0]), format!("{by_level:?}"));
            let mut by_block = vec![ProbSums::default(); blocks.len()];
            let mut row = vec![0.0; 3];
            for (i, &b) in blocks.of_response.iter().enumerate() {
                scores.row_into(i, &mut row);
                by_block[b as usize].push(&row, gold[i] as usize, Some(2), 1.0);
            }
            match bad {
                None => {
                    let got = got.blocks.expect("probabilities");
                    assert!(got.are_of(&blocks));
                    assert_eq!(got.sums, by_block);
                    let alone = probability_sums_by_block(&scores, &gold, &blocks, Some(2));
                    assert_eq!(alone, got);
                }
                Some(_) => assert!(whole.is_none() && got.blocks.is_none()),
            }
        }
    }
}
