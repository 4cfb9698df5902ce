//! Stage 5 (intervals): the resampling design (uncertainty spec 2.1, 2.2,
//! 6). Responses belong to sampling units (themselves, or their test
//! taker); the units of each stratum are dealt at random into blocks; every
//! block's additive sums are accumulated in one pass over the responses,
//! and a replicate is a weighted sum of block sums, the weights being how
//! often each block was drawn. No I/O; the maths is in `metrics`.

use rsmreport_metrics::bootstrap::{random_blocks, Plan, Rng};

/// Most blocks of one stratum. A replicate resamples blocks of randomly
/// dealt units: block sums are independent and identically distributed,
/// so resampling `M` blocks gives the unit bootstrap's variance of a total
/// (up to `(M - 1)/M`); with `M` in the hundreds the percentile interval
/// of a smooth statistic is as good as the unit bootstrap's (the coverage
/// study in `docs/intervals.md` checks it). Strata with fewer units get
/// one block per unit: then it is the plain unit bootstrap.
pub const MAX_BLOCKS: usize = 1000;

/// Responses dealt into blocks, the blocks of each stratum contiguous.
#[derive(Clone, Debug)]
pub struct Blocks {
    /// Block of each response.
    pub of_response: Vec<u32>,
    /// `starts[s]..starts[s + 1]` are the blocks of stratum `s`.
    pub starts: Vec<usize>,
    /// Units in each stratum (responses, or test takers).
    pub units: Vec<usize>,
    /// The blocks as the bootstrap's resampling units, by stratum.
    plan: Plan,
}

impl Blocks {
    /// Deals the units of every stratum into at most `max_blocks` blocks.
    /// `unit_of_response` gives each response's unit code (any `u32`; a
    /// response is its own unit when `None`), `stratum_of_response` its
    /// stratum (`n_strata` of them; one when `None`). A unit with
    /// responses in two strata is one unit in each. `seed` fixes the deal.
    pub fn deal(
        n: usize,
        unit_of_response: Option<&[u32]>,
        stratum_of_response: Option<&[u32]>,
        n_strata: usize,
        max_blocks: usize,
        seed: u64,
    ) -> Blocks {
        let stratum = |i: usize| stratum_of_response.map_or(0, |s| s[i] as usize);
        // Dense unit index within each stratum, in order of first appearance.
        let mut local = vec![0u32; n];
        let mut units = vec![0usize; n_strata];
        match unit_of_response {
            None => {
                for (i, l) in local.iter_mut().enumerate() {
                    let s = stratum(i);
                    *l = units[s] as u32;
                    units[s] += 1;
                }
            }
            Some(codes) => {
                let mut seen: std::collections::HashMap<(usize, u32), u32> =
                    std::collections::HashMap::new();
                for (i, l) in local.iter_mut().enumerate() {
                    let s = stratum(i);
                    *l = *seen.entry((s, codes[i])).or_insert_with(|| {
                        units[s] += 1;
                        (units[s] - 1) as u32
                    });
                }
            }
        }
        let mut starts = vec![0usize];
        let mut deal_of_stratum = Vec::with_capacity(n_strata);
        for (s, &u) in units.iter().enumerate() {
            let m = u.min(max_blocks);
            deal_of_stratum.push(random_blocks(u, m as u32, stratum_seed(seed, s)));
            starts.push(starts[s] + m);
        }
        let of_response = (0..n)
            .map(|i| {
                let s = stratum(i);
                (starts[s] as u32) + deal_of_stratum[s][local[i] as usize]
            })
            .collect();
        let block_strata: Vec<u32> = (0..n_strata)
            .flat_map(|s| std::iter::repeat_n(s as u32, starts[s + 1] - starts[s]))
            .collect();
        Blocks {
            of_response,
            starts,
            units,
            plan: Plan::stratified(&block_strata),
        }
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        *self.starts.last().unwrap_or(&0)
    }

    /// No blocks (no responses).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of strata.
    pub fn strata(&self) -> usize {
        self.starts.len() - 1
    }

    /// The stratum of block `j`.
    pub fn stratum_of_block(&self, j: usize) -> usize {
        self.starts.partition_point(|&s| s <= j) - 1
    }

    /// One replicate's draw: within each stratum, as many blocks as it has,
    /// with replacement; `counts[j]` = times block `j` was drawn.
    pub fn draw(&self, rng: &mut Rng, counts: &mut [u32]) {
        self.plan.draw_counts(rng, counts);
    }
}

/// The deal's seed of stratum `s` (SplitMix64 finaliser of the pair).
fn stratum_seed(seed: u64, s: usize) -> u64 {
    let mut z = seed ^ (s as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Sums that add (`PairSums`, `TrueScoreSums`, and tuples of them).
pub trait Additive: Clone {
    /// `self += w * other`.
    fn add_scaled(&mut self, other: &Self, w: f64);
}

/// The sums of each block, from one pass: `push(sums, i)` adds response
/// `i` to its block's sums.
pub fn block_sums<T: Clone>(
    blocks: &Blocks,
    zero: &T,
    mut push: impl FnMut(&mut T, usize),
) -> Vec<T> {
    let mut sums = vec![zero.clone(); blocks.len()];
    for (i, &b) in blocks.of_response.iter().enumerate() {
        push(&mut sums[b as usize], i);
    }
    sums
}

/// The totals of each stratum for one replicate's block counts.
pub fn stratum_totals<T: Additive>(
    blocks: &Blocks,
    sums: &[T],
    counts: &[u32],
    zero: &T,
) -> Vec<T> {
    let mut totals = vec![zero.clone(); blocks.strata()];
    for (s, total) in totals.iter_mut().enumerate() {
        for j in blocks.starts[s]..blocks.starts[s + 1] {
            if counts[j] > 0 {
                total.add_scaled(&sums[j], f64::from(counts[j]));
            }
        }
    }
    totals
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsmreport_metrics::bootstrap::replicate_rng;

    #[test]
    fn responses_are_dealt_within_their_stratum() {
        let strata = [0u32, 1, 0, 1, 1, 0, 0];
        let b = Blocks::deal(7, None, Some(&strata), 2, 2, 9);
        assert_eq!(b.units, [4, 3]);
        assert_eq!(b.starts, [0, 2, 4]);
        for (i, &s) in strata.iter().enumerate() {
            assert_eq!(b.stratum_of_block(b.of_response[i] as usize), s as usize);
        }
        // Same seed, same deal.
        assert_eq!(
            b.of_response,
            Blocks::deal(7, None, Some(&strata), 2, 2, 9).of_response
        );
    }

    #[test]
    fn a_cluster_stays_in_one_block() {
        // One huge test taker (code 7) and many small ones.
        let codes: Vec<u32> = (0..500)
            .map(|i| if i % 2 == 0 { 10_000 } else { i })
            .collect();
        let b = Blocks::deal(500, Some(&codes), None, 1, 1000, 1);
        assert_eq!(b.units, [251]);
        let big: Vec<u32> = (0..500).step_by(2).map(|i| b.of_response[i]).collect();
        assert!(big.iter().all(|&x| x == big[0]));
        // Every draw takes the big candidate's responses all or none.
        let mut counts = vec![0u32; b.len()];
        for r in 0..50 {
            b.draw(&mut replicate_rng(3, r), &mut counts);
            assert_eq!(counts.iter().sum::<u32>() as usize, b.len());
        }
    }

    #[test]
    fn draws_keep_each_stratum_size() {
        let strata: Vec<u32> = (0..300).map(|i| u32::from(i % 3 == 0)).collect();
        let b = Blocks::deal(300, None, Some(&strata), 2, 50, 4);
        let mut counts = vec![0u32; b.len()];
        for r in 0..20 {
            b.draw(&mut replicate_rng(8, r), &mut counts);
            for s in 0..2 {
                let drawn: u32 = counts[b.starts[s]..b.starts[s + 1]].iter().sum();
                assert_eq!(drawn as usize, b.starts[s + 1] - b.starts[s]);
            }
        }
    }
}
