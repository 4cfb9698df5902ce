//! Command assembly (sequence): sacreBLEU's resampling (spec `sequence.md`
//! 3.1-3.3): one index stream of numpy's `default_rng(seed).choice(n, (B,
//! n))` shared by every system, replicate values from summed segment
//! statistics under sacreBLEU's binary32 rule, and the
//! approximate-randomization test. The statistics on the replicates (the
//! half-width `bs_ci`, the mean, the paired-bootstrap and add-one
//! p-values) are `rsmreport_metrics::sequence::significance`'s; percentile
//! intervals from the same replicates.
//!
//! Defines no metric; reads and writes nothing.

use rsmreport_config::sequence::{SeqIntervals, SequenceConfig};
use rsmreport_metrics::bootstrap::percentile_interval;
use rsmreport_metrics::sequence::rng::NumpyRng;
use rsmreport_metrics::sequence::significance::{add_one_p, estimate_ci, paired_bootstrap_p};

use super::families::{family, is_sacre, score, Family};
use super::parts::{crossed, Parts, Subsets};
use super::run::MetricResult;
use super::statistics::SystemRun;

/// `_paired_bs_test`'s p-value of a candidate against the baseline
/// (binary32 when both replicate arrays are `float32`).
fn paired_bs_p(cand: &MetricResult, base: &MetricResult) -> f64 {
    let observed = (base.score - cand.score).abs();
    let binary32 = cand.replicates_f32 && base.replicates_f32;
    paired_bootstrap_p(&cand.replicates, &base.replicates, observed, binary32)
}

fn families_of(metrics: &[&str]) -> Vec<Family> {
    let mut out: Vec<Family> = Vec::new();
    for m in metrics {
        if !out.contains(&family(m)) {
            out.push(family(m));
        }
    }
    out
}

/// Replicates per block: one matrix product gives a block's sums.
const BLOCK: usize = 32;

/// A block of replicates: the drawn segments' positions in part order
/// (`Parts::pos`), row by row.
struct DrawBlock {
    rows: usize,
    draws: Vec<u32>,
}

/// The next block of numpy's `default_rng(seed).choice(n, (b, n))`, row by
/// row, each drawn segment `i` as its position `pos[i]` (drawing is
/// sequential; counting is left to the summing threads).
fn next_block(rng: &mut NumpyRng, pos: &[u32], rows: usize) -> DrawBlock {
    let n = pos.len();
    let draws = (0..rows * n)
        .map(|_| pos[rng.bounded(n as u64) as usize])
        .collect();
    DrawBlock { rows, draws }
}

/// A summing thread's working memory, reused from block to block: the
/// block's multiplicities (`rows x n`, row-major) and one replicate's
/// counts (all zeros between replicates).
#[derive(Default)]
struct Scratch {
    w: Vec<f64>,
    counts: Vec<u16>,
}

/// A block's multiplicities into `scratch.w`: how many times each segment
/// is drawn in each replicate (a replicate's sums do not depend on the
/// order of its draws), in part order. A replicate's draws are counted in
/// 16-bit counters (a quarter of the row: the random increments stay in
/// cache), then the row is written in order; a counter that would wrap
/// sends the replicate to counting in the row itself.
fn multiplicities(block: &DrawBlock, n: usize, scratch: &mut Scratch) {
    let Scratch { w, counts } = scratch;
    if w.len() < block.rows * n {
        w.resize(block.rows * n, 0.0);
    }
    counts.resize(n, 0);
    for (row, draws) in w.chunks_mut(n.max(1)).zip(block.draws.chunks(n.max(1))) {
        let mut wrapped = false;
        for &i in draws {
            let c = &mut counts[i as usize];
            *c = c.wrapping_add(1);
            wrapped |= *c == 0;
        }
        if wrapped {
            counts.fill(0);
            row.fill(0.0);
            for &i in draws {
                row[i as usize] += 1.0;
            }
            continue;
        }
        for (x, c) in row.iter_mut().zip(counts.iter_mut()) {
            *x = f64::from(*c);
            *c = 0;
        }
    }
}

/// Largest sum of whole numbers that binary64 holds exactly.
const EXACT: f64 = 9_007_199_254_740_992.0;

/// Every (system, family) cell's segment statistics side by side, a row per
/// segment: cells of whole numbers whose sums stay exact in binary64 (summed
/// by one matrix product, exact whatever the order of its additions), the
/// others (TER's mean reference length over several references) summed in
/// segment order as before.
///
/// Of the whole-number columns only a basis is multiplied: a column equal
/// on every segment to an earlier column plus a constant (chrF's and
/// BLEU's n-gram totals of orders above 1, the reference lengths every
/// system shares) is that column's sum plus the constant times the
/// replicate's draws, the same whole number ([`Derived`]). With bleu, chrf
/// and wer on three systems this halves the product.
struct Matrix {
    int_k: usize,
    /// Basis columns, a row per segment (`n x basis_k`); the last two are
    /// 1 where the segment has a first-stream reference (their sum: the
    /// segments the WER family and CER can use among those drawn) and all
    /// ones (the segments drawn).
    ints: Vec<f64>,
    basis_k: usize,
    /// Per whole-number column: how its sum follows from the basis'.
    derived: Vec<Derived>,
    float_k: usize,
    floats: Vec<f64>,
    /// Per (system, family) in `systems x fams` order: integer part?, offset, width.
    cells: Vec<(bool, usize, usize)>,
}

/// A whole-number column as `basis column + constant` on every segment.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Derived {
    basis: usize,
    constant: f64,
}

/// Rows compared before a column is checked against a candidate basis
/// column in full.
const SIGNATURE_ROWS: usize = 16;

/// Splits whole-number columns (`column(c)` of `k`, `n` rows each) into a
/// basis and columns that are a basis column plus a constant: per column,
/// its derivation and, for the basis, the basis columns in order.
fn find_basis(
    k: usize,
    n: usize,
    value: impl Fn(usize, usize) -> f64,
) -> (Vec<usize>, Vec<Derived>) {
    if n == 0 {
        let derived = (0..k).map(|c| Derived {
            basis: c,
            constant: 0.0,
        });
        return ((0..k).collect(), derived.collect());
    }
    let mut by_signature: std::collections::HashMap<Vec<u64>, Vec<usize>> = Default::default();
    let (mut basis, mut derived) = (Vec::new(), Vec::with_capacity(k));
    for c in 0..k {
        let signature: Vec<u64> = (1..n.min(SIGNATURE_ROWS + 1))
            .map(|i| (value(c, i) - value(c, 0)).to_bits())
            .collect();
        let candidates = by_signature.entry(signature).or_default();
        let found = candidates.iter().copied().find(|&b| {
            let col = basis[b];
            let constant = value(c, 0) - value(col, 0);
            (0..n).all(|i| value(c, i) - value(col, i) == constant)
        });
        match found {
            Some(b) => derived.push(Derived {
                basis: b,
                constant: value(c, 0) - value(basis[b], 0),
            }),
            None => {
                candidates.push(basis.len());
                derived.push(Derived {
                    basis: basis.len(),
                    constant: 0.0,
                });
                basis.push(c);
            }
        }
    }
    (basis, derived)
}

impl Matrix {
    /// The statistics of `systems`, the whole-number basis' rows in
    /// `parts`' order (each part's rows together), the others in segment
    /// order.
    fn new(
        systems: &[SystemRun],
        fams: &[Family],
        (n, parts, first_ref): (usize, &Parts, &[bool]),
    ) -> Matrix {
        // a replicate's sum is at most n x the largest value
        let exact = |v: &[f64]| {
            v.iter()
                .all(|&x| x >= 0.0 && x.fract() == 0.0 && x * n as f64 <= EXACT)
        };
        let mut cells = Vec::new();
        // whole-number columns: (statistics, width, column within them)
        let mut int_cols: Vec<(&[f64], usize, usize)> = Vec::new();
        let (mut int_k, mut float_k) = (0, 0);
        for sys in systems {
            for &f in fams {
                let st = sys.stats(f);
                if exact(&st.values) {
                    cells.push((true, int_k, st.k));
                    int_k += st.k;
                    int_cols.extend((0..st.k).map(|j| (st.values.as_slice(), st.k, j)));
                } else {
                    cells.push((false, float_k, st.k));
                    float_k += st.k;
                }
            }
        }
        let value = |c: usize, i: usize| {
            let (v, k, j) = int_cols[c];
            v[i * k + j]
        };
        let (basis, derived) = find_basis(int_k, n, value);
        let basis_k = basis.len() + 2;
        let mut ints = vec![1f64; n * basis_k];
        for (i, (&pos, &present)) in parts.pos.iter().zip(first_ref).enumerate() {
            let at = pos as usize * basis_k;
            for (x, &c) in ints[at..at + basis_k].iter_mut().zip(&basis) {
                *x = value(c, i);
            }
            ints[at + basis_k - 2] = f64::from(u8::from(present));
        }
        let mut floats = vec![0f64; n * float_k];
        let mut cell = cells.iter();
        for sys in systems {
            for &f in fams {
                let st = sys.stats(f);
                let &(int, off, k) = cell.next().expect("a cell per system and family");
                if int {
                    continue;
                }
                for i in 0..n {
                    floats[i * float_k + off..i * float_k + off + k]
                        .copy_from_slice(&st.values[i * k..(i + 1) * k]);
                }
            }
        }
        Matrix {
            int_k,
            ints,
            basis_k,
            derived,
            float_k,
            floats,
            cells,
        }
    }

    /// Every whole-number column's sums (`rows x int_k`) from the basis'
    /// (`rows x basis_k`), replicate `r` having drawn `draws[r]` segments.
    fn expand(&self, basis_sums: &[f64], draws: &[f64]) -> Vec<f64> {
        let mut out = Vec::with_capacity(draws.len() * self.int_k);
        for (r, &drawn) in draws.iter().enumerate() {
            let row = &basis_sums[r * self.basis_k..(r + 1) * self.basis_k];
            out.extend(
                self.derived
                    .iter()
                    .map(|d| row[d.basis] + d.constant * drawn),
            );
        }
        out
    }
}

/// A block's replicate sums, row-major: over all segments, every
/// whole-number column (`rows x int_k`) and the others (`rows x
/// float_k`); per part, its basis sums (`rows x basis_k`, the last two
/// columns its segments drawn with a first-stream reference and in all)
/// and other sums (`rows x float_k`).
struct BlockSums {
    ints: Vec<f64>,
    floats: Vec<f64>,
    part_basis: Vec<Vec<f64>>,
    part_floats: Vec<Vec<f64>>,
}

/// What every block is summed and scored with.
struct Ctx<'a> {
    cfg: &'a SequenceConfig,
    metrics: &'a [&'a str],
    fams: &'a [Family],
    m: &'a Matrix,
    parts: &'a Parts,
    n: usize,
}

/// The block's sums: the whole-number basis by one product of the
/// multiplicities and the statistics per part (whole numbers, so the
/// parts' sums add up exactly to the product over all segments), the
/// others in segment order.
fn block_sums(ctx: &Ctx, block: &DrawBlock, scratch: &mut Scratch) -> BlockSums {
    let (m, parts, n) = (ctx.m, ctx.parts, ctx.n);
    let (ki, kf, rows) = (m.basis_k, m.float_k, block.rows);
    multiplicities(block, n, scratch);
    let w = &scratch.w[..rows * n];
    // column-major views of the row-major arrays: (S^T W^T) = (W S)^T
    let st = nalgebra::DMatrixView::from_slice(&m.ints, ki, n);
    let wt = nalgebra::DMatrixView::from_slice(w, n, rows);
    let mut total = vec![0f64; rows * ki];
    let mut part_basis = Vec::with_capacity(parts.count());
    for p in 0..parts.count() {
        let (a, len) = (parts.start[p], parts.start[p + 1] - parts.start[p]);
        let sums: Vec<f64> = if len == 0 {
            vec![0f64; rows * ki]
        } else {
            (st.columns(a, len) * wt.rows(a, len)).as_slice().to_vec()
        };
        for (t, x) in total.iter_mut().zip(&sums) {
            *t += x;
        }
        part_basis.push(sums);
    }
    // every replicate draws n segments
    let ints = m.expand(&total, &vec![n as f64; rows]);
    let mut floats = vec![0f64; rows * kf];
    let mut part_floats = vec![vec![0f64; rows * kf]; parts.count()];
    if kf > 0 {
        for i in 0..n {
            let xf = &m.floats[i * kf..(i + 1) * kf];
            let (at, pf) = (
                parts.pos[i] as usize,
                &mut part_floats[parts.part[i] as usize],
            );
            for r in 0..rows {
                let mult = w[r * n + at];
                if mult != 0.0 {
                    for (j, &x) in xf.iter().enumerate() {
                        floats[r * kf + j] += mult * x;
                        pf[r * kf + j] += mult * x;
                    }
                }
            }
        }
    }
    BlockSums {
        ints,
        floats,
        part_basis,
        part_floats,
    }
}

/// Each (system, metric) cell's value on `rows` replicates' sums (all
/// whole-number columns, then the others), appended to `cells`; `sacre`:
/// sacreBLEU's binary32 rule where it has one.
fn cell_values(
    ctx: &Ctx,
    (ints, floats, rows): (&[f64], &[f64], usize),
    sacre: bool,
    cells: &mut [Vec<(f64, bool)>],
) {
    let (m, metrics) = (ctx.m, ctx.metrics);
    for (c, &(int, off, k)) in m.cells.iter().enumerate() {
        let (s, f) = (c / ctx.fams.len(), ctx.fams[c % ctx.fams.len()]);
        for r in 0..rows {
            let sums = if int {
                &ints[r * m.int_k + off..r * m.int_k + off + k]
            } else {
                &floats[r * m.float_k + off..r * m.float_k + off + k]
            };
            for (mi, name) in metrics.iter().enumerate().filter(|(_, x)| family(x) == f) {
                let binary32 = sacre && is_sacre(name);
                cells[s * metrics.len() + mi].push(score(ctx.cfg, name, sums, binary32));
            }
        }
    }
}

/// A block's values: per (system, metric) cell, a value and its float32
/// flag per replicate; per subset (grouping by grouping, level by level),
/// the same cells' values on the subset's share of the replicates.
struct BlockValues {
    block: usize,
    overall: Vec<Vec<(f64, bool)>>,
    subsets: Vec<Vec<Vec<(f64, bool)>>>,
}

fn block_values(ctx: &Ctx, (b, block): (usize, &DrawBlock), scratch: &mut Scratch) -> BlockValues {
    let sums = block_sums(ctx, block, scratch);
    let (m, rows) = (ctx.m, block.rows);
    let cells = m.cells.len() / ctx.fams.len().max(1) * ctx.metrics.len();
    let mut overall = vec![Vec::with_capacity(rows); cells];
    cell_values(ctx, (&sums.ints, &sums.floats, rows), true, &mut overall);
    let mut subsets = Vec::new();
    for levels in &ctx.parts.members {
        for members in levels {
            let ki = m.basis_k;
            let mut basis = vec![0f64; rows * ki];
            let mut floats = vec![0f64; rows * m.float_k];
            for &p in members {
                let add = |to: &mut [f64], from: &[f64]| {
                    to.iter_mut().zip(from).for_each(|(t, x)| *t += x)
                };
                add(&mut basis, &sums.part_basis[p]);
                add(&mut floats, &sums.part_floats[p]);
            }
            // the basis' last two columns: the subset's segments drawn with
            // a first-stream reference, and in all
            let column = |j: usize| -> Vec<f64> { (0..rows).map(|r| basis[r * ki + j]).collect() };
            let (usable, draws) = (column(ki - 2), column(ki - 1));
            let ints = m.expand(&basis, &draws);
            let mut values = vec![Vec::with_capacity(rows); cells];
            cell_values(ctx, (&ints, &floats, rows), false, &mut values);
            // a replicate that drew none of the subset's segments a metric
            // can use has no score for it (not the score of empty
            // statistics): the WER family and CER need a first-stream
            // reference
            for (c, cell) in values.iter_mut().enumerate() {
                let metric = ctx.metrics[c % ctx.metrics.len()];
                let drawn = match family(metric) {
                    Family::Word | Family::Char => &usable,
                    _ => &draws,
                };
                for (v, &d) in cell.iter_mut().zip(drawn) {
                    if d == 0.0 {
                        v.0 = f64::NAN;
                    }
                }
            }
            subsets.push(values);
        }
    }
    BlockValues {
        block: b,
        overall,
        subsets,
    }
}

/// Every block's values: one thread draws the index stream block by block
/// (it is sequential), the others sum; the blocks come back in order.
fn all_blocks(ctx: &Ctx, seed: u32, b_count: usize) -> Vec<BlockValues> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |t| t.get())
        .clamp(1, 8);
    let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, DrawBlock)>(threads);
    let rx = std::sync::Mutex::new(rx);
    let mut ordered: Vec<BlockValues> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let rx = &rx;
                scope.spawn(move || {
                    let (mut out, mut scratch) = (Vec::new(), Scratch::default());
                    loop {
                        let next = rx.lock().expect("block queue").recv();
                        let Ok((b, block)) = next else { break };
                        out.push(block_values(ctx, (b, &block), &mut scratch));
                    }
                    out
                })
            })
            .collect();
        let mut rng = NumpyRng::new(seed);
        let (mut done, mut b) = (0, 0);
        while done < b_count {
            let rows = BLOCK.min(b_count - done);
            if tx
                .send((b, next_block(&mut rng, &ctx.parts.pos, rows)))
                .is_err()
            {
                break;
            }
            done += rows;
            b += 1;
        }
        drop(tx);
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("bootstrap thread"))
            .collect()
    });
    ordered.sort_by_key(|v| v.block);
    ordered
}

/// Per grouping, level and (system, metric) cell (system-major): the
/// percentile interval of the subset's score; no levels for a grouping
/// left out ([`crossed`]).
pub type SubsetIntervals = Vec<Vec<Vec<(f64, f64)>>>;

/// Fills every system's replicates, intervals, `bs_mean`, `bs_ci` and the
/// candidates' paired-bootstrap p-values; returns the intervals of the
/// subsets of `subsets.groupings` from the same replicates.
#[allow(clippy::too_many_arguments)]
pub fn bootstrap(
    cfg: &SequenceConfig,
    systems: &[SystemRun],
    metrics: &[&str],
    results: &mut [Vec<MetricResult>],
    iv: SeqIntervals,
    baseline: usize,
    n: usize,
    subsets: Subsets,
) -> SubsetIntervals {
    let b_count = iv.replicates;
    let fams = families_of(metrics);
    let (parts, kept) = crossed(subsets.groupings, n);
    let matrix = Matrix::new(systems, &fams, (n, &parts, subsets.first_ref));
    let ctx = Ctx {
        cfg,
        metrics,
        fams: &fams,
        m: &matrix,
        parts: &parts,
        n,
    };
    let ordered = all_blocks(&ctx, iv.seed, b_count);
    drop(matrix);
    let cells = systems.len() * metrics.len();
    let mut reps: Vec<Vec<Vec<f64>>> =
        vec![vec![Vec::with_capacity(b_count); metrics.len()]; systems.len()];
    let mut all_f32 = vec![vec![true; metrics.len()]; systems.len()];
    let mut subset_reps: Vec<Vec<Vec<f64>>> = Vec::new();
    for block in ordered {
        for (cell, values) in block.overall.into_iter().enumerate() {
            let (s, mi) = (cell / metrics.len(), cell % metrics.len());
            for (v, is32) in values {
                reps[s][mi].push(v);
                all_f32[s][mi] &= is32;
            }
        }
        subset_reps.resize_with(block.subsets.len(), || vec![Vec::new(); cells]);
        for (to, from) in subset_reps.iter_mut().zip(block.subsets) {
            for (t, values) in to.iter_mut().zip(from) {
                t.extend(values.into_iter().map(|(v, _)| v));
            }
        }
    }
    for (s, per_metric) in reps.into_iter().enumerate() {
        for (mi, r) in per_metric.into_iter().enumerate() {
            let res = &mut results[s][mi];
            let interval = percentile_interval(&r, iv.level);
            res.lower = interval.lower;
            res.upper = interval.upper;
            let (mean, ci) = estimate_ci(&r, all_f32[s][mi]);
            res.bs_mean = mean;
            res.bs_ci = ci;
            res.replicates = r;
            res.replicates_f32 = all_f32[s][mi];
        }
    }
    paired_p_values(results, baseline);
    // per grouping: the next kept grouping's levels, or none where it was
    // left out
    let mut flat = subset_reps.into_iter();
    let mut members = parts.members.iter();
    kept.iter()
        .map(|&k| {
            let levels = if k {
                members.next().map_or(0, Vec::len)
            } else {
                0
            };
            (0..levels)
                .map(|_| {
                    flat.next()
                        .unwrap_or_default()
                        .iter()
                        .map(|r| {
                            let i = percentile_interval(r, iv.level);
                            (i.lower, i.upper)
                        })
                        .collect()
                })
                .collect()
        })
        .collect()
}

/// Each candidate's paired-bootstrap p-value against the baseline, metric
/// by metric.
fn paired_p_values(results: &mut [Vec<MetricResult>], baseline: usize) {
    for s in (0..results.len()).filter(|&s| s != baseline) {
        let ps: Vec<f64> = results[s]
            .iter()
            .zip(&results[baseline])
            .map(|(c, b)| paired_bs_p(c, b))
            .collect();
        for (r, p) in results[s].iter_mut().zip(ps) {
            r.bs_p = Some(p);
        }
    }
}

/// sacreBLEU's paired approximate randomization (`_paired_ar_test`): a fresh
/// `default_rng(seed).integers(2, (T, n), dtype=bool)` per candidate.
pub fn randomization(
    cfg: &SequenceConfig,
    systems: &[SystemRun],
    metrics: &[&str],
    results: &mut [Vec<MetricResult>],
    seed: u32,
    baseline: usize,
    n: usize,
) {
    let trials = cfg.ar_trials;
    let fams = families_of(metrics);
    for s in (0..systems.len()).filter(|&s| s != baseline) {
        let pos = NumpyRng::new(seed).bool_matrix(n, trials);
        for &f in &fams {
            let bl = systems[baseline].stats(f);
            let sy = systems[s].stats(f);
            let k = bl.k;
            let total_bl = bl.sums(0..n);
            let total_sy = sy.sums(0..n);
            let mut counts = vec![0usize; metrics.len()];
            let mut d = vec![0.0; k];
            for t in 0..trials {
                d.iter_mut().for_each(|x| *x = 0.0);
                let sel = &pos[t * n..(t + 1) * n];
                for (i, _) in sel.iter().enumerate().filter(|(_, p)| **p) {
                    let (a, b) = (
                        &bl.values[i * k..(i + 1) * k],
                        &sy.values[i * k..(i + 1) * k],
                    );
                    for j in 0..k {
                        d[j] += a[j] - b[j];
                    }
                }
                let a: Vec<f64> = (0..k).map(|j| total_sy[j] + d[j]).collect();
                let b: Vec<f64> = (0..k).map(|j| total_bl[j] - d[j]).collect();
                for (mi, m) in metrics.iter().enumerate().filter(|(_, m)| family(m) == f) {
                    let delta = (results[baseline][mi].score - results[s][mi].score).abs();
                    let (va, _) = score(cfg, m, &a, false);
                    let (vb, _) = score(cfg, m, &b, false);
                    if (va - vb).abs() > delta {
                        counts[mi] += 1;
                    }
                }
            }
            for (mi, _) in metrics.iter().enumerate().filter(|(_, m)| family(m) == f) {
                results[s][mi].ar_p = Some(add_one_p(counts[mi], trials));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::sequence::parts::Grouping;

    /// The multiplicities are the draws' counts, row by row, whether a
    /// 16-bit counter wraps (one segment drawn 70,000 times) or not, and
    /// the counters are left at zero for the next block.
    #[test]
    fn multiplicities_count_the_draws_even_past_a_counter() {
        let n = 70_000;
        let mut draws = vec![3u32; n];
        draws[5] = 1;
        draws.extend((0..n as u32).map(|i| (i * 7) % 11));
        let block = DrawBlock { rows: 2, draws };
        let mut scratch = Scratch::default();
        for _ in 0..2 {
            multiplicities(&block, n, &mut scratch);
            let (first, second) = scratch.w[..2 * n].split_at(n);
            assert_eq!((first[3], first[1]), ((n - 1) as f64, 1.0));
            assert_eq!(first.iter().sum::<f64>(), n as f64);
            let mut want = vec![0.0; n];
            for d in 0..n {
                want[(d * 7) % 11] += 1.0;
            }
            assert_eq!(second, &want[..]);
            assert!(scratch.counts.iter().all(|&c| c == 0));
        }
    }

    #[test]
    fn basis_keeps_columns_that_are_not_another_plus_a_constant() {
        let cols: [[f64; 4]; 6] = [
            [1.0, 2.0, 3.0, 9.0],
            [3.0, 4.0, 5.0, 11.0], // column 0 + 2
            [1.0, 2.0, 3.0, 8.0],  // same first rows as column 0, not after
            [0.0, 1.0, 2.0, 8.0],  // column 0 - 1
            [5.0, 5.0, 5.0, 5.0],
            [0.0, 0.0, 0.0, 0.0], // column 4 - 5
        ];
        let (basis, derived) = find_basis(6, 4, |c, i| cols[c][i]);
        assert_eq!(basis, vec![0, 2, 4]);
        let d = |basis, constant| Derived { basis, constant };
        assert_eq!(
            derived,
            vec![
                d(0, 0.0),
                d(0, 2.0),
                d(1, 0.0),
                d(0, -1.0),
                d(2, 0.0),
                d(2, -5.0)
            ]
        );
    }

    /// The sums of every column from the basis' are the direct sums, bit
    /// for bit, for multiplicities that total n per replicate.
    #[test]
    fn expanded_sums_are_the_direct_sums() {
        let (n, k, rows) = (50usize, 12usize, 7usize);
        let mut rng = NumpyRng::new(3);
        let base: Vec<f64> = (0..n).map(|_| rng.bounded(40) as f64 + 8.0).collect();
        // column j: the base plus j for even j, independent counts for odd j
        let cols: Vec<Vec<f64>> = (0..k)
            .map(|j| {
                (0..n)
                    .map(|i| {
                        if j % 2 == 0 {
                            base[i] + j as f64
                        } else {
                            rng.bounded(10) as f64
                        }
                    })
                    .collect()
            })
            .collect();
        let (basis, derived) = find_basis(k, n, |c, i| cols[c][i]);
        assert_eq!(basis.len(), 1 + k / 2);
        let m = Matrix {
            int_k: k,
            ints: Vec::new(),
            basis_k: basis.len(),
            derived,
            float_k: 0,
            floats: Vec::new(),
            cells: Vec::new(),
        };
        let draws: Vec<Vec<usize>> = (0..rows)
            .map(|_| (0..n).map(|_| rng.bounded(n as u64) as usize).collect())
            .collect();
        let sum = |c: usize, r: usize| draws[r].iter().map(|&i| cols[c][i]).sum::<f64>();
        let basis_sums: Vec<f64> = (0..rows)
            .flat_map(|r| basis.iter().map(move |&c| (c, r)))
            .map(|(c, r)| sum(c, r))
            .collect();
        let direct: Vec<f64> = (0..rows)
            .flat_map(|r| (0..k).map(move |c| (c, r)))
            .map(|(c, r)| sum(c, r))
            .collect();
        assert_eq!(m.expand(&basis_sums, &vec![n as f64; rows]), direct);
    }

    /// Word statistics of `n` segments (hits, substitutions, deletions,
    /// insertions, reference and hypothesis words); all zero where the
    /// segment has no first-stream reference.
    fn word_run(name: &str, first_ref: &[bool], rng: &mut NumpyRng) -> SystemRun {
        let mut values = Vec::new();
        for &present in first_ref {
            if !present {
                values.extend([0.0; 6]);
                continue;
            }
            let (h, s, d, ins) = (
                rng.bounded(20) as f64,
                rng.bounded(5) as f64,
                rng.bounded(3) as f64,
                rng.bounded(3) as f64,
            );
            values.extend([h, s, d, ins, h + s + d, h + s + ins]);
        }
        SystemRun {
            name: name.into(),
            stats: vec![super::super::families::Stats {
                family: Family::Word,
                k: 6,
                values,
            }],
            segment_scores: Vec::new(),
            errors: Default::default(),
            corpus_words: None,
        }
    }

    /// The subsets' intervals are those of scoring, replicate by
    /// replicate, the subset's segments among numpy's draws, and the
    /// overall numbers do not depend on the subsets.
    #[test]
    fn subset_intervals_are_the_subsets_share_of_each_replicate() {
        let cfg = rsmreport_config::sequence::parse(
            "experiment_id = \"x\"\npredictions_file = \"p.csv\"\nreference_columns = [\"ref\"]\n\
             system_columns = [\"a\", \"b\"]\nmetrics = [\"wer\", \"mer\"]\n\
             [intervals]\nreplicates = 60\nseed = 7\n",
            std::path::Path::new("exp.toml"),
        )
        .expect("a valid config");
        let iv = cfg.intervals.expect("intervals");
        let n = 45;
        let mut rng = NumpyRng::new(11);
        // every fifth segment has no first-stream reference
        let first_ref: Vec<bool> = (0..n).map(|i| i % 5 != 4).collect();
        let systems = vec![
            word_run("a", &first_ref, &mut rng),
            word_run("b", &first_ref, &mut rng),
        ];
        let groupings = vec![
            Grouping {
                levels: 3,
                of: (0..n as u32).map(|i| i % 3).collect(),
            },
            Grouping {
                levels: 2,
                of: (0..n as u32).map(|i| u32::from(i % 7 < 2)).collect(),
            },
            // one segment alone: a third of the replicates draw it not at all
            Grouping {
                levels: 2,
                of: (0..n as u32).map(|i| u32::from(i == 0)).collect(),
            },
            // a level of segments without a first-stream reference only
            Grouping {
                levels: 2,
                of: (0..n as u32).map(|i| u32::from(i % 5 == 4)).collect(),
            },
        ];
        let metrics = ["wer", "mer"];
        let fresh = || -> Vec<Vec<MetricResult>> {
            systems
                .iter()
                .map(|_| {
                    metrics
                        .iter()
                        .map(|m| MetricResult::estimate(m, 0.3, n))
                        .collect()
                })
                .collect()
        };
        let (mut with, mut without) = (fresh(), fresh());
        let subsets = |groupings| Subsets {
            groupings,
            first_ref: &first_ref,
        };
        let got = bootstrap(
            &cfg,
            &systems,
            &metrics,
            &mut with,
            iv,
            0,
            n,
            subsets(&groupings),
        );
        let none = bootstrap(
            &cfg,
            &systems,
            &metrics,
            &mut without,
            iv,
            0,
            n,
            subsets(&[]),
        );
        assert!(none.is_empty());
        for (a, b) in with.iter().flatten().zip(without.iter().flatten()) {
            assert_eq!(a.replicates, b.replicates);
            assert_eq!(
                (a.lower.to_bits(), a.upper.to_bits()),
                (b.lower.to_bits(), b.upper.to_bits())
            );
        }
        // by hand: numpy's draws, row by row, and the subset's rows summed
        let mut draws = NumpyRng::new(iv.seed);
        let rows: Vec<Vec<usize>> = (0..iv.replicates)
            .map(|_| (0..n).map(|_| draws.bounded(n as u64) as usize).collect())
            .collect();
        let shape: Vec<usize> = got.iter().map(Vec::len).collect();
        assert_eq!(shape, vec![3, 2, 2, 2]);
        for (grouping, got) in groupings.iter().zip(&got) {
            for (level, got) in got.iter().enumerate() {
                for (s, sys) in systems.iter().enumerate() {
                    for (mi, m) in metrics.iter().enumerate() {
                        let reps: Vec<f64> =
                            rows.iter()
                                .map(|drawn| {
                                    let st = sys.stats(Family::Word);
                                    let mine = drawn.iter().copied().filter(|&i| {
                                        grouping.of[i] as usize == level && first_ref[i]
                                    });
                                    let mine: Vec<usize> = mine.collect();
                                    if mine.is_empty() {
                                        return f64::NAN;
                                    }
                                    score(&cfg, m, &st.sums(mine.into_iter()), false).0
                                })
                                .collect();
                        let want = percentile_interval(&reps, iv.level);
                        let (lo, hi) = got[s * metrics.len() + mi];
                        assert_eq!(
                            (lo.to_bits(), hi.to_bits()),
                            (want.lower.to_bits(), want.upper.to_bits())
                        );
                        let usable = (0..n)
                            .filter(|&i| grouping.of[i] as usize == level && first_ref[i])
                            .count();
                        assert_eq!(lo.is_nan(), usable <= 1, "{level} {m}: {lo} {hi}");
                    }
                }
            }
        }
    }
}
