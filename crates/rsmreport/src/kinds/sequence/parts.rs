//! Command assembly (sequence): the subsets whose scores get intervals
//! from the overall bootstrap (`spec/sequence.md` 2.6, 5: "bars with
//! intervals"). Each grouping (the length buckets, each subgroup column)
//! gives every segment a level; a part is the segments with the same level
//! in every grouping. The bootstrap sums each part's statistics per
//! replicate (the product it takes anyway, split by rows), and a subset's
//! replicate sums are the sums of its parts: a subset's replicate score is
//! its score on the segments of the whole-corpus resample that belong to it.
//!
//! Pure bookkeeping: no statistic, no I/O.

use std::collections::BTreeMap;

/// One grouping of the segments: each segment's level, below `levels`.
#[derive(Clone, Debug, PartialEq)]
pub struct Grouping {
    pub levels: usize,
    pub of: Vec<u32>,
}

/// The subsets the bootstrap also scores: the groupings, and which
/// segments the WER family and CER use (those with a first-stream
/// reference; the others have all-zero statistics there).
#[derive(Clone, Copy, Debug)]
pub struct Subsets<'a> {
    pub groupings: &'a [Grouping],
    pub first_ref: &'a [bool],
}

/// At most this many parts; a grouping that would cross the others into
/// more (a subgroup with many levels) gets no intervals ([`crossed`]).
pub const MAX_PARTS: usize = 512;

/// The parts of the groupings taken in order, each kept while the parts
/// stay at most [`MAX_PARTS`], and which groupings were kept: a subgroup
/// with many levels loses its own intervals, not the others'.
pub fn crossed(groupings: &[Grouping], n: usize) -> (Parts, Vec<bool>) {
    let mut parts = Parts::new(&[], n).expect("one part");
    let mut chosen: Vec<Grouping> = Vec::new();
    let kept = groupings
        .iter()
        .map(|g| {
            chosen.push(g.clone());
            match Parts::new(&chosen, n) {
                Some(p) => {
                    parts = p;
                    true
                }
                None => {
                    chosen.pop();
                    false
                }
            }
        })
        .collect();
    (parts, kept)
}

/// The segments in part order.
#[derive(Clone, Debug, PartialEq)]
pub struct Parts {
    /// Per segment, its position in part order.
    pub pos: Vec<u32>,
    /// Per segment, its part.
    pub part: Vec<u32>,
    /// Where each part starts in part order, then the end (`n`).
    pub start: Vec<usize>,
    /// Per grouping, per level: its parts (ascending).
    pub members: Vec<Vec<Vec<usize>>>,
}

impl Parts {
    /// The parts of `n` segments; `None` with more than [`MAX_PARTS`]
    /// parts. Parts are numbered by their levels (first grouping first),
    /// so the order depends on the data only.
    pub fn new(groupings: &[Grouping], n: usize) -> Option<Parts> {
        let mut radix: u64 = 1;
        for g in groupings {
            radix = radix.checked_mul(g.levels.max(1) as u64)?;
        }
        let key = |i: usize| {
            groupings
                .iter()
                .fold(0u64, |k, g| k * g.levels.max(1) as u64 + u64::from(g.of[i]))
        };
        let keys: Vec<u64> = (0..n).map(key).collect();
        let mut ids: BTreeMap<u64, u32> = BTreeMap::new();
        for &k in &keys {
            let next = ids.len() as u32;
            ids.entry(k).or_insert(next);
            if ids.len() > MAX_PARTS {
                return None;
            }
        }
        // number the parts in key order
        let rank: BTreeMap<u64, u32> = ids
            .keys()
            .enumerate()
            .map(|(r, &k)| (k, r as u32))
            .collect();
        let part: Vec<u32> = keys.iter().map(|k| rank[k]).collect();
        let count = rank.len();
        let mut start = vec![0usize; count + 1];
        for &p in &part {
            start[p as usize + 1] += 1;
        }
        for p in 0..count {
            start[p + 1] += start[p];
        }
        let mut next = start.clone();
        let pos = part
            .iter()
            .map(|&p| {
                let at = next[p as usize];
                next[p as usize] += 1;
                at as u32
            })
            .collect();
        let members = groupings
            .iter()
            .enumerate()
            .map(|(gi, g)| {
                let mut levels = vec![Vec::new(); g.levels];
                for (p, &k) in rank.keys().enumerate() {
                    levels[level_of(k, groupings, gi)].push(p);
                }
                levels
            })
            .collect();
        Some(Parts {
            pos,
            part,
            start,
            members,
        })
    }

    pub fn count(&self) -> usize {
        self.start.len() - 1
    }
}

/// The level of grouping `gi` in a part's key.
fn level_of(key: u64, groupings: &[Grouping], gi: usize) -> usize {
    let below: u64 = groupings[gi + 1..]
        .iter()
        .map(|g| g.levels.max(1) as u64)
        .product();
    ((key / below) % groupings[gi].levels.max(1) as u64) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_cross_the_groupings_and_keep_segment_order_inside() {
        let buckets = Grouping {
            levels: 3,
            of: vec![0, 2, 0, 2, 1, 0],
        };
        let domain = Grouping {
            levels: 2,
            of: vec![1, 0, 1, 1, 0, 0],
        };
        let p = Parts::new(&[buckets, domain], 6).expect("few parts");
        // parts by (bucket, domain): (0,0) (0,1) (1,0) (2,0) (2,1)
        assert_eq!(p.count(), 5);
        assert_eq!(p.part, vec![1, 3, 1, 4, 2, 0]);
        assert_eq!(p.start, vec![0, 1, 3, 4, 5, 6]);
        // segment 5 first, then 0 and 2 (in their order), 4, 1, 3
        assert_eq!(p.pos, vec![1, 4, 2, 5, 3, 0]);
        assert_eq!(p.members[0], vec![vec![0, 1], vec![2], vec![3, 4]]);
        assert_eq!(p.members[1], vec![vec![0, 2, 3], vec![1, 4]]);
    }

    #[test]
    fn a_grouping_with_too_many_levels_is_left_out_alone() {
        let n = MAX_PARTS + 100;
        let g = |levels: usize, of: &dyn Fn(usize) -> usize| Grouping {
            levels,
            of: (0..n).map(|i| of(i) as u32).collect(),
        };
        let groupings = [
            g(3, &|i| i % 3),
            g(n, &|i| i),
            g(2, &|i| usize::from(i % 7 == 0)),
        ];
        let (parts, kept) = crossed(&groupings, n);
        assert_eq!(kept, vec![true, false, true]);
        assert_eq!(parts.count(), 6);
        assert_eq!(parts.members.len(), 2);
        assert_eq!(parts.members[1].len(), 2);
    }

    #[test]
    fn too_many_parts_give_none_and_no_grouping_one_part() {
        let many = Grouping {
            levels: MAX_PARTS + 1,
            of: (0..=MAX_PARTS as u32).collect(),
        };
        assert!(Parts::new(&[many], MAX_PARTS + 1).is_none());
        let p = Parts::new(&[], 3).expect("one part");
        assert_eq!((p.count(), p.pos.clone()), (1, vec![0, 1, 2]));
    }
}
