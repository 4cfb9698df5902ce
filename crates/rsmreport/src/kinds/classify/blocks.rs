//! Command assembly (classify): what one block of items contributes to a
//! bootstrap replicate (spec 2): each block's sparse confusion counts over
//! the whole data's non-zero cells (summed for every replicate at once by
//! one exact matrix product when small, one by one otherwise), a system's
//! probability sums per block and its classes' sorted labels for AP/AUC,
//! the blocks the whole data's items are dealt into, and which blocks
//! sums were taken over ([`BlocksKey`]).
//!
//! Reads and writes nothing.

use super::read::Data;
use super::run::{probability_sums_by_block, Confusion, SystemResult};
use crate::analysis::intervals::design::{Blocks, MAX_BLOCKS};
use nalgebra::DMatrix;
use rsmreport_config::intervals::Intervals as Settings;
use rsmreport_metrics::calibration::ProbSums;
use rsmreport_metrics::ranking::SortedLabels;

/// The most `blocks x cells` entries a dense table of block cells takes
/// (32 MB) before replicates are summed one by one instead.
pub(super) const DENSE_CELLS: usize = 1 << 22;

/// Sparse confusion counts per block: `(cell, count)` runs, block `j`'s
/// at `cells[starts[j]..starts[j + 1]]`.
pub(super) struct SparseBlocks {
    starts: Vec<usize>,
    cells: Vec<(u32, f64)>,
}

impl SparseBlocks {
    fn new(blocks: &Blocks, cell_of: impl Fn(usize) -> usize, n_cells: usize) -> SparseBlocks {
        if n_cells > 0 && blocks.len() * n_cells <= DENSE_CELLS {
            SparseBlocks::counted(blocks, cell_of, n_cells)
        } else {
            SparseBlocks::listed(blocks, cell_of, n_cells)
        }
    }

    /// [`SparseBlocks::new`] by listing each block's cells, then counting
    /// them block by block (many blocks times cells).
    fn listed(blocks: &Blocks, cell_of: impl Fn(usize) -> usize, n_cells: usize) -> SparseBlocks {
        let m = blocks.len();
        let mut by_block: Vec<Vec<u32>> = vec![Vec::new(); m];
        for (i, &b) in blocks.of_response.iter().enumerate() {
            by_block[b as usize].push(cell_of(i) as u32);
        }
        let mut scratch = vec![0.0f64; n_cells];
        let mut touched: Vec<u32> = Vec::new();
        let mut out = SparseBlocks {
            starts: vec![0],
            cells: Vec::new(),
        };
        for items in by_block {
            for c in items {
                if scratch[c as usize] == 0.0 {
                    touched.push(c);
                }
                scratch[c as usize] += 1.0;
            }
            touched.sort_unstable();
            for &c in &touched {
                out.cells.push((c, scratch[c as usize]));
                scratch[c as usize] = 0.0;
            }
            touched.clear();
            out.starts.push(out.cells.len());
        }
        out
    }

    /// [`SparseBlocks::new`] by counting every (block, cell) pair in one
    /// dense table (few blocks times cells): the same counts, each
    /// block's cells in order.
    fn counted(blocks: &Blocks, cell_of: impl Fn(usize) -> usize, n_cells: usize) -> SparseBlocks {
        let mut counts = vec![0u32; blocks.len() * n_cells];
        for (i, &b) in blocks.of_response.iter().enumerate() {
            counts[b as usize * n_cells + cell_of(i)] += 1;
        }
        let mut out = SparseBlocks {
            starts: vec![0],
            cells: Vec::new(),
        };
        for block in counts.chunks(n_cells.max(1)).take(blocks.len()) {
            let nonzero = block.iter().enumerate().filter(|(_, &x)| x > 0);
            out.cells
                .extend(nonzero.map(|(c, &x)| (c as u32, f64::from(x))));
            out.starts.push(out.cells.len());
        }
        out
    }

    /// For every replicate at once, `row r = sum_j draws[r][j] * block_j`
    /// over the blocks `range`: one matrix product (replicates x blocks
    /// times blocks x cells). Every entry is a whole number below 2^53, so
    /// the product is exact and equals [`SparseBlocks::add`]'s sums bit
    /// for bit whatever the order of its additions. `None` when the dense
    /// table of the blocks' cells would be large (many labels): the caller
    /// then sums each replicate sparsely, so memory never grows with
    /// `K x K`.
    pub(super) fn add_all(
        &self,
        draws: &[Vec<u32>],
        range: std::ops::Range<usize>,
        n_cells: usize,
    ) -> Option<DMatrix<f64>> {
        if range.len() * n_cells > DENSE_CELLS {
            return None;
        }
        let first = range.start;
        let mut table = DMatrix::<f64>::zeros(range.len(), n_cells);
        for j in range.clone() {
            for &(c, x) in &self.cells[self.starts[j]..self.starts[j + 1]] {
                table[(j - first, c as usize)] = x;
            }
        }
        let weights = DMatrix::from_fn(draws.len(), range.len(), |r, j| {
            f64::from(draws[r][first + j])
        });
        Some(weights * table)
    }

    /// `out = sum_j counts[j] * block_j` over the blocks `range`.
    fn add(&self, counts: &[u32], range: std::ops::Range<usize>, out: &mut [f64]) {
        for j in range {
            let w = f64::from(counts[j]);
            if w > 0.0 {
                for &(c, x) in &self.cells[self.starts[j]..self.starts[j + 1]] {
                    out[c as usize] += w * x;
                }
            }
        }
    }
}

/// One system's confusion counts per block, over the non-zero cells of
/// the whole data's matrix (a replicate's matrix has no other cell): the
/// cost of a replicate grows with those cells, never with `K x K`.
pub(super) struct BlockCells {
    pub(super) sparse: SparseBlocks,
    /// `(gold, predicted)` of each cell, sorted.
    cells: Vec<(u32, u32)>,
}

impl BlockCells {
    /// `all`: the confusion matrix of `gold` and `pred` over every item
    /// (each block's cells are among its cells).
    pub(super) fn new(blocks: &Blocks, gold: &[u32], pred: &[u32], all: &Confusion) -> BlockCells {
        let cells: Vec<(u32, u32)> = all.cells.iter().map(|c| (c.0, c.1)).collect();
        let search = |i: usize| {
            cells
                .binary_search(&(gold[i], pred[i]))
                .expect("every item's cell is in the whole data's matrix")
        };
        // Few labels: each (gold, predicted)'s cell from a table instead of
        // a search per item.
        let (k, cols) = (all.k, all.k + 1);
        let sparse = if k * cols <= 1 << 16 {
            let mut table = vec![u32::MAX; k * cols];
            for (c, &(g, p)) in cells.iter().enumerate() {
                table[g as usize * cols + p as usize] = c as u32;
            }
            let cell_of = |i: usize| table[gold[i] as usize * cols + pred[i] as usize] as usize;
            SparseBlocks::new(blocks, cell_of, cells.len())
        } else {
            SparseBlocks::new(blocks, search, cells.len())
        };
        BlockCells { sparse, cells }
    }

    /// Every replicate's cell sums over the blocks `range` at once
    /// ([`SparseBlocks::add_all`]), `None` for many labels.
    pub(super) fn weighted_all(
        &self,
        draws: &[Vec<u32>],
        range: std::ops::Range<usize>,
    ) -> Option<DMatrix<f64>> {
        self.sparse.add_all(draws, range, self.cells.len())
    }

    /// The confusion cells of replicate `r`: row `r` of `all` (from
    /// [`BlockCells::weighted_all`] over the same blocks) when there is
    /// one, else `sum_j counts[j] * block_j` over the blocks `range`.
    pub(super) fn replicate(
        &self,
        all: Option<&DMatrix<f64>>,
        (r, counts): (usize, &[u32]),
        range: std::ops::Range<usize>,
    ) -> Vec<(u32, u32, f64)> {
        match all {
            Some(m) => self.nonzero((0..self.cells.len()).map(|c| m[(r, c)]).collect()),
            None => self.weighted(counts, range),
        }
    }

    /// The confusion cells of `sum_j counts[j] * block_j` over the blocks
    /// `range`.
    pub(super) fn weighted(
        &self,
        counts: &[u32],
        range: std::ops::Range<usize>,
    ) -> Vec<(u32, u32, f64)> {
        let mut sums = vec![0.0; self.cells.len()];
        self.sparse.add(counts, range, &mut sums);
        self.nonzero(sums)
    }

    /// The cells whose sum in `sums` (one per cell) is not zero.
    fn nonzero(&self, sums: Vec<f64>) -> Vec<(u32, u32, f64)> {
        self.cells
            .iter()
            .zip(sums)
            .filter(|(_, m)| *m > 0.0)
            .map(|(&(g, p), m)| (g, p, m))
            .collect()
    }
}

/// What one system contributes to a replicate.
pub(super) struct SystemBlocks {
    pub(super) confusion: BlockCells,
    pub(super) probs: Option<Vec<ProbSums>>,
    /// Per class, sorted for AP/AUC, with the positives per class.
    pub(super) rank: Option<Vec<SortedLabels>>,
}

pub(super) fn system_blocks(
    data: &Data,
    (s, result): (usize, &SystemResult),
    blocks: &Blocks,
    positive: Option<usize>,
) -> SystemBlocks {
    let k = data.k();
    let sys = &data.systems[s];
    let confusion = BlockCells::new(blocks, &data.gold, &sys.pred, &result.confusion);
    let scores = sys.scores.as_ref();
    // Probability sums where the estimate found probabilities: taken in
    // the metrics' pass when it had these blocks, else taken here.
    let taken = result.ranking.as_ref().and_then(|r| r.parts.as_ref());
    let taken = taken
        .and_then(|p| p.blocks.as_ref())
        .filter(|b| b.are_of(blocks));
    let probs = scores.filter(|_| result.probs.is_some()).map(|sc| {
        taken.map_or_else(
            || probability_sums_by_block(sc, &data.gold, blocks, positive).sums,
            |b| b.sums.clone(),
        )
    });
    let rank = scores.map(
        |sc| match result.ranking.as_ref().filter(|r| r.sorted.len() == k) {
            Some(r) => r
                .sorted
                .iter()
                .map(|sl| sl.with_slots(&blocks.of_response))
                .collect(),
            None => (0..k)
                .map(|j| {
                    let truth: Vec<bool> = data.gold.iter().map(|&g| g as usize == j).collect();
                    SortedLabels::new(&sc[j], &truth, &blocks.of_response)
                })
                .collect(),
        },
    );
    SystemBlocks {
        confusion,
        probs,
        rank,
    }
}

/// The blocks the whole data's items are dealt into for the bootstrap.
pub fn whole_data_blocks(n: usize, settings: &Settings) -> Blocks {
    Blocks::deal(n, None, None, 1, MAX_BLOCKS, settings.seed)
}

/// Which blocks sums were taken over: the items, the blocks and a digest
/// of each item's block (one multiply per item), so that sums taken over
/// other blocks (another seed or other data) are not used for these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlocksKey {
    items: usize,
    blocks: usize,
    digest: u64,
}

impl BlocksKey {
    pub fn of(blocks: &Blocks) -> BlocksKey {
        let digest = blocks.of_response.iter().fold(0u64, |h, &b| {
            (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7C_C1_B7_27_22_0A_95)
        });
        BlocksKey {
            items: blocks.of_response.len(),
            blocks: blocks.len(),
            digest,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counting every (block, cell) pair in a table gives the cells that
    /// listing each block's gives.
    #[test]
    fn counted_block_cells_are_the_listed_ones() {
        let n = 5000;
        let mut g = rsmreport_metrics::bootstrap::Rng::from_seed(9);
        let cell: Vec<usize> = (0..n).map(|_| g.below(7) as usize * 3).collect();
        for (n_blocks, n_cells) in [(1000, 21), (40, 25), (5000, 19)] {
            let blocks = Blocks::deal(n, None, None, 1, n_blocks, 4);
            let a = SparseBlocks::counted(&blocks, |i| cell[i] % n_cells, n_cells);
            let b = SparseBlocks::listed(&blocks, |i| cell[i] % n_cells, n_cells);
            assert_eq!((a.starts, a.cells), (b.starts, b.cells));
        }
    }
}
