//! Command assembly (classify): the block bootstrap of spec 2
//! (uncertainty.md 2): every replicate's statistics, the intervals of each
//! system's statistics and of each subgroup level's, and the replicates
//! the paired differences of spec 3 are taken from ([`super::deltas`]).
//! The block sums are [`super::blocks`]', the statistics in replicate
//! order [`super::statistics`]'; the threads `kinds::common::parallel`.
//!
//! Items are dealt at random into at most 1,000 blocks (each item its own
//! block up to 1,000 items: then it is the plain item bootstrap); a
//! replicate draws blocks with replacement from the stream `(seed,
//! replicate)`, so the numbers do not depend on the thread count. The
//! label metrics of a replicate come from the weighted sum of the blocks'
//! sparse confusion counts, the probability metrics from block sums, and
//! average precision and ROC AUC from the curves' sorted order (no sort
//! per replicate), 16 replicates per pass over a class's items with their
//! integer block counts (at most [`RANK_REPLICATES`] replicates on large
//! data, said in the report).
//! Every statistic of a replicate is computed by the same functions as the
//! estimate, on the same resample for every system, so paired differences
//! keep their correlation.
//!
//! Reads and writes nothing.

use super::blocks::{system_blocks, whole_data_blocks, BlockCells, SystemBlocks};
use super::deltas::collect_deltas;
use super::read::Data;
use super::run::{Confusion, SystemResult};
use super::statistics::{estimates, is_rank, level_values, stat_names, stat_values, LEVEL_STATS};
use crate::analysis::intervals::design::{Blocks, MAX_BLOCKS};
use crate::kinds::common::comparison::ComparisonRow;
use crate::kinds::common::parallel::{default_threads, parallel};
use nalgebra::DMatrix;
use rsmreport_config::classify::ClassifyConfig;
use rsmreport_config::intervals::Intervals as Settings;
use rsmreport_metrics::bootstrap::{percentile_interval, replicate_rng, Interval};
use rsmreport_metrics::calibration::ProbSums;
use rsmreport_metrics::ranking::{SortedLabels, LANES};

/// Replicates for average precision and ROC AUC when the full number
/// would take long (more than [`RANK_WORK`] item-class passes).
pub const RANK_REPLICATES: usize = 200;
const RANK_WORK: usize = 400_000_000;

/// One statistic's interval.
#[derive(Clone, Debug)]
pub struct CiRow {
    pub system: usize,
    /// `overall` or the class label.
    pub row: String,
    pub metric: String,
    pub estimate: f64,
    pub interval: Interval,
    /// Wilson's interval (accuracy only), NaN otherwise.
    pub analytic: (f64, f64),
    pub replicates: usize,
}

/// One subgroup level's interval.
#[derive(Clone, Debug)]
pub struct LevelCi {
    pub column: String,
    pub level: String,
    pub system: usize,
    pub metric: String,
    pub estimate: f64,
    pub interval: Interval,
}

/// Every interval of a run.
#[derive(Clone, Debug)]
pub struct Intervals {
    pub level: f64,
    pub replicates: usize,
    pub rank_replicates: usize,
    pub blocks: usize,
    pub rows: Vec<CiRow>,
    /// The paired differences (spec 3), scope `overall` or
    /// `class=<label>`; per-class rows Holm-adjusted across classes.
    pub deltas: Vec<ComparisonRow>,
    pub levels: Vec<LevelCi>,
}

impl Intervals {
    /// The interval of `metric` of `system` in `row`.
    pub fn get(&self, system: usize, row: &str, metric: &str) -> Option<&CiRow> {
        self.rows
            .iter()
            .find(|r| r.system == system && r.row == row && r.metric == metric)
    }
}

/// Per class average precision and ROC AUC of one system in one
/// replicate.
type RankValues = (Vec<f64>, Vec<f64>);

/// The block counts of replicates `batch * LANES ..` (at most [`LANES`],
/// below `replicates`; the other lanes 0), block by block.
fn batch_weights(blocks: &Blocks, seed: u64, batch: usize, replicates: usize) -> Vec<[u16; LANES]> {
    let first = batch * LANES;
    let lanes = LANES.min(replicates - first);
    // A replicate draws as many blocks as there are (at most MAX_BLOCKS):
    // a block's count fits 16 bits, and the table of counts the cache.
    let mut weight = vec![[0u16; LANES]; blocks.len()];
    let mut counts = vec![0u32; blocks.len()];
    for l in 0..lanes {
        blocks.draw(&mut replicate_rng(seed, (first + l) as u64), &mut counts);
        for (w, &c) in weight.iter_mut().zip(&counts) {
            w[l] = u16::try_from(c).expect("a block count below MAX_BLOCKS");
        }
    }
    weight
}

/// The AP/AUC of every ranked system in the first `replicates`
/// replicates, by replicate then system: one pass per class, system and
/// batch of [`LANES`] replicates. The passes are shared out evenly over
/// the threads (not whole batches: 13 batches on 2 threads left one
/// thread a batch more); each lane's numbers depend on its replicate only.
fn rank_replicates_values(
    systems: &[SystemBlocks],
    blocks: &Blocks,
    (seed, replicates): (u64, usize),
    threads: usize,
) -> Vec<Vec<Option<RankValues>>> {
    let batches = replicates.div_ceil(LANES);
    let weights: Vec<Vec<[u16; LANES]>> = parallel(threads, batches, |batch| {
        batch_weights(blocks, seed, batch, replicates)
    });
    // Every (batch, system, class) pass.
    let passes: Vec<(usize, &SortedLabels)> = (0..batches)
        .flat_map(|batch| {
            systems
                .iter()
                .filter_map(|sb| sb.rank.as_ref())
                .flatten()
                .map(move |sl| (batch, sl))
        })
        .collect();
    let values = parallel(threads, passes.len(), |p| {
        let (batch, sl) = passes[p];
        sl.weighted(&weights[batch])
    });
    let mut values = values.into_iter();
    let mut out: Vec<Vec<Option<RankValues>>> = vec![vec![None; systems.len()]; replicates];
    for batch in 0..batches {
        let first = batch * LANES;
        let lanes = LANES.min(replicates - first);
        for (s, sb) in systems.iter().enumerate() {
            let Some(classes) = &sb.rank else { continue };
            for _ in classes {
                let v = values.next().expect("one pass per class");
                for (l, &(ap, auc)) in v.iter().take(lanes).enumerate() {
                    let slot = out[first + l][s].get_or_insert_with(Default::default);
                    slot.0.push(ap);
                    slot.1.push(auc);
                }
            }
        }
    }
    out
}

/// The statistics of every system for one replicate's block counts, with
/// its AP/AUC when computed (`rank`, by system).
fn replicate_values(
    cfg: &ClassifyConfig,
    k: usize,
    (systems, cells): (&[SystemBlocks], &[Option<DMatrix<f64>>]),
    (r, counts): (usize, &[u32]),
    rank: Option<&[Option<RankValues>]>,
) -> Vec<Vec<f64>> {
    let weights: Vec<f64> = counts.iter().map(|&c| f64::from(c)).collect();
    let nan = || (vec![f64::NAN; k], vec![f64::NAN; k]);
    systems
        .iter()
        .enumerate()
        .map(|(s, sb)| {
            let c = sb
                .confusion
                .replicate(cells[s].as_ref(), (r, counts), 0..counts.len());
            let probs = sb.probs.as_ref().map(|blocks| {
                let mut total = ProbSums::default();
                for (b, &w) in blocks.iter().zip(&weights) {
                    if w > 0.0 {
                        total.add_scaled(b, w);
                    }
                }
                total
            });
            let ranked = sb
                .rank
                .as_ref()
                .map(|_| rank.and_then(|r| r[s].clone()).unwrap_or_else(nan));
            let mut pos = vec![0.0; k];
            for &(g, _, m) in &c {
                pos[g as usize] += m;
            }
            stat_values(
                cfg,
                k,
                &c,
                probs.as_ref(),
                ranked
                    .as_ref()
                    .map(|(a, u)| (a.as_slice(), u.as_slice(), pos.as_slice())),
            )
        })
        .collect()
}

/// Every replicate's block counts (replicate `r` from the stream `(seed,
/// r)`), in replicate order whatever the thread count.
fn draw_all(blocks: &Blocks, settings: &Settings, threads: usize) -> Vec<Vec<u32>> {
    parallel(threads, settings.replicates as usize, |r| {
        let mut counts = vec![0u32; blocks.len()];
        blocks.draw(&mut replicate_rng(settings.seed, r as u64), &mut counts);
        counts
    })
}

/// Every interval and paired difference of the run, on
/// [`default_threads`] threads; `blocks` are [`whole_data_blocks`] (the
/// results' part sums, if any, were taken over them).
pub fn run(
    cfg: &ClassifyConfig,
    data: &Data,
    results: &[SystemResult],
    (positive, settings): (Option<usize>, &Settings),
    blocks: Blocks,
) -> Intervals {
    run_on(
        cfg,
        data,
        results,
        (positive, settings),
        (blocks, default_threads()),
    )
}

/// [`run`] on `threads` threads (the numbers do not depend on it).
pub fn run_with_threads(
    cfg: &ClassifyConfig,
    data: &Data,
    results: &[SystemResult],
    (positive, settings): (Option<usize>, &Settings),
    threads: usize,
) -> Intervals {
    let blocks = whole_data_blocks(data.n(), settings);
    run_on(cfg, data, results, (positive, settings), (blocks, threads))
}

fn run_on(
    cfg: &ClassifyConfig,
    data: &Data,
    results: &[SystemResult],
    (positive, settings): (Option<usize>, &Settings),
    (blocks, threads): (Blocks, usize),
) -> Intervals {
    let (n, k) = (data.n(), data.k());
    let systems: Vec<SystemBlocks> = rsmreport_core::provenance::timed("bootstrap: blocks", || {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..data.systems.len())
                .map(|s| {
                    scope.spawn({
                        let blocks = &blocks;
                        let result = &results[s];
                        move || system_blocks(data, (s, result), blocks, positive)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("block sums"))
                .collect()
        })
    });
    let replicates = settings.replicates as usize;
    let ranked = data.systems.iter().filter(|s| s.scores.is_some()).count();
    let rank_replicates = if n * k * ranked * replicates <= RANK_WORK {
        replicates
    } else {
        replicates.min(RANK_REPLICATES)
    };
    let ranks: Vec<Vec<Option<RankValues>>> = if ranked > 0 {
        rsmreport_core::provenance::timed("bootstrap: ranking", || {
            let stream = (settings.seed, rank_replicates);
            rank_replicates_values(&systems, &blocks, stream, threads)
        })
    } else {
        Vec::new()
    };
    let values: Vec<Vec<Vec<f64>>> = rsmreport_core::provenance::timed("bootstrap: labels", || {
        let draws = draw_all(&blocks, settings, threads);
        let cells: Vec<Option<DMatrix<f64>>> = parallel(threads, systems.len(), |s| {
            systems[s].confusion.weighted_all(&draws, 0..blocks.len())
        });
        parallel(threads, replicates, |r| {
            let rank = ranks.get(r).map(Vec::as_slice);
            replicate_values(cfg, k, (&systems, &cells), (r, &draws[r]), rank)
        })
    });
    let mut out = Intervals {
        level: settings.level,
        replicates,
        rank_replicates,
        blocks: blocks.len(),
        rows: Vec::new(),
        deltas: Vec::new(),
        levels: Vec::new(),
    };
    let estimates: Vec<Vec<f64>> = results.iter().map(|r| estimates(cfg, k, r)).collect();
    // The names of each system's statistics, in the order of its values
    // (as `estimates` and `estimate_named`).
    let names: Vec<Vec<String>> = results
        .iter()
        .map(|r| stat_names(cfg, r.ranking.is_some(), r.probs.is_some()))
        .collect();
    collect_rows(data, (&names, &estimates), &values, &mut out);
    collect_deltas(cfg, data, (&names, &estimates), &values, &mut out);
    out.levels = rsmreport_core::provenance::timed("bootstrap by subgroup", || {
        levels(cfg, data, settings, threads)
    });
    out
}

/// The replicate values of statistic `stat` of system `s` (the rank
/// statistics only from the replicates that computed them).
pub(super) fn column(values: &[Vec<Vec<f64>>], s: usize, stat: usize, reps: usize) -> Vec<f64> {
    values[..reps].iter().map(|r| r[s][stat]).collect()
}

fn collect_rows(
    data: &Data,
    (names, estimates): (&[Vec<String>], &[Vec<f64>]),
    values: &[Vec<Vec<f64>>],
    out: &mut Intervals,
) {
    let k = data.k();
    let nan2 = (f64::NAN, f64::NAN);
    for (s, estimate) in estimates.iter().enumerate() {
        for (i, name) in names[s].iter().enumerate() {
            let reps = if is_rank(name) {
                out.rank_replicates
            } else {
                out.replicates
            };
            let analytic = if name == "accuracy" {
                let correct = (estimate[0] * data.n() as f64).round();
                rsmreport_metrics::bootstrap::wilson_interval(correct, data.n(), out.level)
            } else {
                nan2
            };
            let reps = column(values, s, i, reps);
            out.rows.push(ci_row(
                s,
                "overall",
                name,
                estimate[i],
                &reps,
                out.level,
                analytic,
            ));
        }
        for j in 0..k {
            for (m, metric) in ["precision", "recall", "f1"].iter().enumerate() {
                let i = names[s].len() + 3 * j + m;
                let reps = column(values, s, i, out.replicates);
                out.rows.push(ci_row(
                    s,
                    &data.labels[j],
                    metric,
                    estimate[i],
                    &reps,
                    out.level,
                    nan2,
                ));
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn ci_row(
    system: usize,
    row: &str,
    metric: &str,
    estimate: f64,
    reps: &[f64],
    level: f64,
    analytic: (f64, f64),
) -> CiRow {
    CiRow {
        system,
        row: row.to_string(),
        metric: metric.to_string(),
        estimate,
        interval: if estimate.is_nan() {
            Interval::nan()
        } else {
            percentile_interval(reps, level)
        },
        analytic,
        replicates: reps.len(),
    }
}

/// Intervals per subgroup level (stratified: every replicate keeps each
/// level's size), label statistics only.
fn levels(cfg: &ClassifyConfig, data: &Data, settings: &Settings, threads: usize) -> Vec<LevelCi> {
    let (n, k) = (data.n(), data.k());
    let mut out = Vec::new();
    // The whole data's confusion cells of each system (every level's
    // cells are among them).
    let whole: Vec<Confusion> = if data.subgroups.is_empty() {
        Vec::new()
    } else {
        let gold = &data.gold;
        data.systems
            .iter()
            .map(|s| Confusion::of(gold, &s.pred, k))
            .collect()
    };
    for g in &data.subgroups {
        let nl = g.levels.len();
        let blocks = Blocks::deal(n, None, Some(&g.codes), nl, MAX_BLOCKS, settings.seed);
        let sparse: Vec<BlockCells> = parallel(threads, data.systems.len(), |s| {
            BlockCells::new(&blocks, &data.gold, &data.systems[s].pred, &whole[s])
        });
        let range = |l: usize| blocks.starts[l]..blocks.starts[l + 1];
        let ones = vec![1u32; blocks.len()];
        let estimate: Vec<[f64; 5]> = (0..nl)
            .flat_map(|l| sparse.iter().map(move |sb| (l, sb)))
            .map(|(l, sb)| level_values(cfg, k, &sb.weighted(&ones, range(l))))
            .collect();
        let draws = draw_all(&blocks, settings, threads);
        // Each (level, system)'s cells for every replicate, then the
        // statistics of each replicate.
        let cells: Vec<Option<DMatrix<f64>>> = parallel(threads, nl * sparse.len(), |cell| {
            let (l, s) = (cell / sparse.len(), cell % sparse.len());
            sparse[s].weighted_all(&draws, range(l))
        });
        let values: Vec<Vec<[f64; 5]>> = parallel(threads, settings.replicates as usize, |r| {
            (0..nl * sparse.len())
                .map(|cell| {
                    let (l, s) = (cell / sparse.len(), cell % sparse.len());
                    let c = sparse[s].replicate(cells[cell].as_ref(), (r, &draws[r]), range(l));
                    level_values(cfg, k, &c)
                })
                .collect()
        });
        for l in 0..nl {
            for s in 0..sparse.len() {
                let cell = l * sparse.len() + s;
                for (m, metric) in LEVEL_STATS.iter().enumerate() {
                    let reps: Vec<f64> = values.iter().map(|v| v[cell][m]).collect();
                    let e = estimate[cell][m];
                    out.push(LevelCi {
                        column: g.column.clone(),
                        level: g.levels[l].clone(),
                        system: s,
                        metric: metric.to_string(),
                        estimate: e,
                        interval: if e.is_nan() {
                            Interval::nan()
                        } else {
                            percentile_interval(&reps, settings.level)
                        },
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::classify::blocks::DENSE_CELLS;

    fn small() -> (ClassifyConfig, Data) {
        let dir = tempfile::TempDir::new().unwrap();
        std::fs::write(dir.path().join("p.csv"), "x\n").unwrap();
        let cfg = rsmreport_config::classify::parse(
            "experiment_id = \"t\"\npredictions_file = \"p.csv\"\ngold_column = \"g\"\n\
             system_columns = [\"a\", \"b\"]\n",
            &dir.path().join("e.toml"),
        )
        .unwrap();
        let mut g = rsmreport_metrics::bootstrap::Rng::from_seed(3);
        let n = 2500;
        let gold: Vec<u32> = (0..n).map(|_| g.below(3) as u32).collect();
        let noisy = |g: &mut rsmreport_metrics::bootstrap::Rng, p: u64| -> Vec<u32> {
            gold.iter()
                .map(|&x| {
                    if g.below(100) < p {
                        g.below(4) as u32
                    } else {
                        x
                    }
                })
                .collect()
        };
        let (a, b) = (noisy(&mut g, 40), noisy(&mut g, 30));
        let mut scores = vec![0.0; n * 3];
        for (i, &x) in gold.iter().enumerate() {
            for j in 0..3 {
                scores[i * 3 + j] =
                    if j as u32 == x { 0.4 } else { 0.25 } + g.below(40) as f64 / 100.0;
            }
        }
        let data = Data {
            file: "p.csv".into(),
            n_rows: n,
            n_dropped_blank_gold: 0,
            ids: Vec::new(),
            labels: vec!["x".into(), "y".into(), "z".into()],
            gold,
            systems: vec![
                crate::kinds::classify::read::SystemData {
                    name: "a".into(),
                    pred: a,
                    scores: Some(crate::kinds::classify::read::Scores::from_rows(&scores, 3)),
                },
                crate::kinds::classify::read::SystemData {
                    name: "b".into(),
                    pred: b,
                    scores: None,
                },
            ],
            subgroups: Vec::new(),
        };
        (cfg, data)
    }

    /// Every system evaluated on all items.
    fn results_of(cfg: &ClassifyConfig, data: &Data) -> Vec<SystemResult> {
        data.systems
            .iter()
            .map(|s| {
                let items = super::super::run::Items {
                    gold: &data.gold,
                    pred: &s.pred,
                    scores: s.scores.as_ref(),
                    parts: Default::default(),
                };
                let order = super::super::run::Order::Sort { curve_points: 0 };
                super::super::run::evaluate(cfg, &s.name, (3, None), &items, order)
            })
            .collect()
    }

    /// Block sums the metrics' pass took over other blocks (another seed)
    /// are not used: the bootstrap takes its own, as when none were
    /// taken; those taken over its own blocks are the same.
    #[test]
    fn block_sums_over_other_blocks_are_taken_again() {
        let (cfg, mut data) = small();
        let n = data.n();
        let sc = data.systems[0].scores.as_ref().expect("scores");
        let (mut rows, mut row) = (Vec::with_capacity(n * 3), vec![0.0; 3]);
        for i in 0..n {
            sc.row_into(i, &mut row);
            let total: f64 = row.iter().sum();
            rows.extend(row.iter().map(|x| x / total));
        }
        let probs = crate::kinds::classify::read::Scores::from_rows(&rows, 3);
        data.systems[0].scores = Some(probs);
        let settings = Settings {
            replicates: 20,
            ..Settings::default()
        };
        let blocks = whole_data_blocks(n, &settings);
        let other = Settings {
            seed: settings.seed + 1,
            ..settings
        };
        let other = whole_data_blocks(n, &other);
        let evaluated = |b: Option<&Blocks>| {
            let s = &data.systems[0];
            let items = super::super::run::Items {
                gold: &data.gold,
                pred: &s.pred,
                scores: s.scores.as_ref(),
                parts: super::super::run::Parts {
                    levels: &[],
                    blocks: b,
                },
            };
            let order = super::super::run::Order::Sort { curve_points: 0 };
            super::super::run::evaluate(&cfg, &s.name, (3, None), &items, order)
        };
        let (none, own, wrong) = (
            evaluated(None),
            evaluated(Some(&blocks)),
            evaluated(Some(&other)),
        );
        let taken = |r: &SystemResult| {
            let parts = r.ranking.as_ref().and_then(|r| r.parts.as_ref());
            parts.and_then(|p| p.blocks.clone()).expect("block sums")
        };
        assert!(none.probs.is_some() && none.ranking.as_ref().unwrap().parts.is_none());
        assert!(taken(&own).are_of(&blocks) && !taken(&wrong).are_of(&blocks));
        assert_ne!(taken(&own).sums, taken(&wrong).sums);
        let sums = |r: &SystemResult| system_blocks(&data, (0, r), &blocks, None).probs;
        let want = sums(&none).expect("probabilities");
        assert_eq!(want, taken(&own).sums);
        assert_eq!(sums(&own), Some(want.clone()));
        assert_eq!(sums(&wrong), Some(want));
    }

    /// Uncertainty spec 2.4: the same seed gives the same numbers with 1
    /// and with 3 threads; intervals contain the estimates.
    #[test]
    fn thread_count_changes_nothing() {
        let (cfg, data) = small();
        let results = results_of(&cfg, &data);
        let settings = Settings {
            replicates: 60,
            ..Settings::default()
        };
        let one = run_with_threads(&cfg, &data, &results, (None, &settings), 1);
        let three = run_with_threads(&cfg, &data, &results, (None, &settings), 3);
        assert_eq!(one.rows.len(), three.rows.len());
        for (x, y) in one.rows.iter().zip(&three.rows) {
            assert_eq!(
                (x.interval.lower.to_bits(), x.interval.upper.to_bits()),
                (y.interval.lower.to_bits(), y.interval.upper.to_bits()),
                "{}",
                x.metric
            );
        }
        // Every per-class row carries its class's own estimate.
        for (s, r) in results.iter().enumerate() {
            for (j, label) in ["x", "y", "z"].iter().enumerate() {
                let c = &r.report.per_class[j];
                for (metric, want) in [("precision", c.precision), ("recall", c.recall)] {
                    let row = one.get(s, label, metric).unwrap();
                    assert_eq!(row.estimate, want, "system {s}, {label} {metric}");
                }
            }
        }
        let acc = one.get(0, "overall", "accuracy").unwrap();
        assert!(acc.interval.lower < acc.estimate && acc.estimate < acc.interval.upper);
        assert_eq!(acc.estimate, results[0].report.accuracy);
        // b is less noisy: accuracy gain > 0 with a small p-value.
        let d = one
            .deltas
            .iter()
            .find(|d| d.statistic == "accuracy")
            .unwrap();
        assert!(d.delta.value > 0.0 && d.p_value < 0.05, "{d:?}");
    }

    /// Every replicate's cells from the one matrix product equal the
    /// replicate's own sparse sum bit for bit, over all blocks and over
    /// one stratum's; a table over [`DENSE_CELLS`] is left to the sparse
    /// sums.
    #[test]
    fn all_replicates_at_once_equal_one_at_a_time() {
        let (n, k) = (20_000usize, 6usize);
        let mut state = 7u64;
        let mut next = |m: u64| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
            (state >> 33) % m
        };
        let gold: Vec<u32> = (0..n).map(|_| next(k as u64) as u32).collect();
        let pred: Vec<u32> = gold
            .iter()
            .map(|&g| {
                if next(3) == 0 {
                    next(k as u64 + 1) as u32
                } else {
                    g
                }
            })
            .collect();
        let strata: Vec<u32> = (0..n).map(|_| next(3) as u32).collect();
        let blocks = Blocks::deal(n, None, Some(&strata), 3, MAX_BLOCKS, 5);
        let cells = BlockCells::new(&blocks, &gold, &pred, &Confusion::of(&gold, &pred, k));
        let settings = Settings {
            replicates: 40,
            ..Settings::default()
        };
        let draws = draw_all(&blocks, &settings, 2);
        for range in [0..blocks.len(), blocks.starts[1]..blocks.starts[2]] {
            let all = cells
                .weighted_all(&draws, range.clone())
                .expect("few cells");
            for (r, counts) in draws.iter().enumerate() {
                let one = cells.weighted(counts, range.clone());
                let at_once = cells.replicate(Some(&all), (r, counts), range.clone());
                assert_eq!(format!("{one:?}"), format!("{at_once:?}"), "replicate {r}");
                assert!(!one.is_empty());
            }
        }
        let wide = vec![vec![1u32; DENSE_CELLS + 1]];
        assert!(cells.sparse.add_all(&wide, 0..DENSE_CELLS + 1, 1).is_none());
    }

    /// The block bootstrap (2,500 items in 1,000 blocks, AP/AUC by
    /// batches of replicates) gives the intervals of a plain per-item
    /// bootstrap, recomputed here from resampled items with the metric
    /// functions, within Monte Carlo error (widths within 20% with 600
    /// replicates each; centres within a fifth of a width).
    #[test]
    fn block_intervals_match_a_plain_item_bootstrap() {
        use rsmreport_metrics::ranking::RankCurve;
        let (cfg, data) = small();
        let results = results_of(&cfg, &data);
        let reps = 600;
        let settings = Settings {
            replicates: reps as u64,
            ..Settings::default()
        };
        let blocked = run_with_threads(&cfg, &data, &results, (None, &settings), 2);
        assert!(blocked.blocks == MAX_BLOCKS && blocked.rank_replicates == reps);
        let (n, k) = (data.n(), 3);
        let sc = data.systems[0].scores.as_ref().unwrap();
        let mut rng = rsmreport_metrics::bootstrap::Rng::from_seed(99);
        let mut plain: [Vec<f64>; 4] = Default::default();
        for _ in 0..reps {
            let draw: Vec<usize> = (0..n).map(|_| rng.below(n as u64) as usize).collect();
            let mut c = vec![0.0; k * (k + 1)];
            for &i in &draw {
                c[data.gold[i] as usize * (k + 1) + data.systems[0].pred[i] as usize] += 1.0;
            }
            let r = rsmreport_metrics::classification::label_report(&c, k, k + 1, &[1.0]);
            let (mut ap, mut auc) = (0.0, 0.0);
            for j in 0..k {
                let s: Vec<f64> = draw.iter().map(|&i| sc[j][i]).collect();
                let y: Vec<bool> = draw.iter().map(|&i| data.gold[i] as usize == j).collect();
                let curve = RankCurve::new(&s, &y);
                ap += curve.average_precision() / k as f64;
                auc += curve.roc_auc() / k as f64;
            }
            for (v, x) in plain
                .iter_mut()
                .zip([r.accuracy, r.macro_avg.f[0], ap, auc])
            {
                v.push(x);
            }
        }
        let names = [
            "accuracy",
            "macro_f1",
            "average_precision_macro",
            "roc_auc_macro",
        ];
        for (name, values) in names.iter().zip(&plain) {
            let want = percentile_interval(values, 0.95);
            let got = blocked.get(0, "overall", name).unwrap().interval;
            let (wa, wb) = (want.upper - want.lower, got.upper - got.lower);
            assert!(
                (wb / wa - 1.0).abs() < 0.2,
                "{name}: width {wb} vs plain {wa}"
            );
            let centre = |i: &Interval| (i.upper + i.lower) / 2.0;
            assert!(
                (centre(&got) - centre(&want)).abs() < wa / 5.0,
                "{name}: {got:?} vs {want:?}"
            );
        }
    }
}
