//! Stage 4 (metrics): agreement between two annotators' spans of one
//! document (`spec/spans.md` 3): the four criteria (`strict`, `exact`,
//! `overlap`, `overlap_any`) as counts a, b, c; the maximum one-to-one
//! matching of the overlap criteria (greedy in the spec's key order, then
//! Kuhn's augmenting paths); per-label counts; the label pairs of the
//! type-confusion tables; the boundary classes of matched pairs; and the
//! F1 `2a / (2a + b + c)` with the mean and population SD over pairs.
//! Pure: no I/O.

use std::cmp::Reverse;

/// A span: code points or tokens, end exclusive; labels are codes in
/// code-point order of their text, so the derived order is (s, e, l).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub start: u32,
    pub end: u32,
    pub label: u32,
}

impl Span {
    pub fn len(&self) -> u32 {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }

    /// `min(e_x, e_y) - max(s_x, s_y)` (positive when they overlap).
    pub fn overlap(&self, o: &Span) -> i64 {
        self.end.min(o.end) as i64 - self.start.max(o.start) as i64
    }
}

/// Matched, only in the first, only in the second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Abc {
    pub a: u64,
    pub b: u64,
    pub c: u64,
}

impl std::ops::AddAssign for Abc {
    fn add_assign(&mut self, o: Abc) {
        self.a += o.a;
        self.b += o.b;
        self.c += o.c;
    }
}

impl Abc {
    fn of(a: usize, n1: usize, n2: usize) -> Abc {
        Abc {
            a: a as u64,
            b: (n1 - a) as u64,
            c: (n2 - a) as u64,
        }
    }

    /// `2a / (2a + b + c)`, NaN on 0/0.
    pub fn f1(&self) -> f64 {
        let den = 2 * self.a + self.b + self.c;
        if den == 0 {
            f64::NAN
        } else {
            (2 * self.a) as f64 / den as f64
        }
    }
}

/// The criteria in the tables' order.
pub const CRITERIA: [&str; 4] = ["strict", "exact", "overlap", "overlap_any"];

/// The counts of one label between two annotators in one document.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LabelCounts {
    pub label: u32,
    pub strict: Abc,
    pub overlap: Abc,
}

/// Everything two annotators' distinct spans of one document give.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PairDoc {
    /// strict, exact, overlap, overlap_any.
    pub criteria: [Abc; 4],
    /// Labels present on either side, ascending.
    pub by_label: Vec<LabelCounts>,
    /// The pairs of the `overlap` matching (spans of the first, second).
    pub overlap_pairs: Vec<(Span, Span)>,
    /// The label pairs of the `overlap_any` matching.
    pub any_labels: Vec<(u32, u32)>,
    /// The label pairs of the shared boundaries with one label each side.
    pub exact_labels: Vec<(u32, u32)>,
    /// Shared boundaries with several labels on one side.
    pub exact_left_out: u64,
}

/// The maximum one-to-one matching of the overlap criteria between sorted
/// distinct spans `x` (the earlier annotator) and `y`: candidates overlap
/// (ov > 0), have IoU >= `min_iou` when set and, when `typed`, the same
/// label. Greedy in the key order (|s_x - s_y| + |e_x - e_y|, labels
/// differ, -ov, x, y), then every free span of `x` in order looks for an
/// augmenting path trying its candidates in key order. Returns the index
/// pairs, ordered by the first.
pub fn match_overlap(
    x: &[Span],
    y: &[Span],
    typed: bool,
    min_iou: Option<f64>,
) -> Vec<(usize, usize)> {
    let mut cand = Vec::new();
    for (i, sx) in x.iter().enumerate() {
        for (j, sy) in y.iter().enumerate() {
            if sy.start >= sx.end {
                break;
            }
            let ov = sx.overlap(sy);
            if ov <= 0 || (typed && sx.label != sy.label) {
                continue;
            }
            if let Some(m) = min_iou {
                let union = sx.len() as i64 + sy.len() as i64 - ov;
                if (ov as f64 / union as f64) < m {
                    continue;
                }
            }
            let d =
                (sx.start as i64 - sy.start as i64).abs() + (sx.end as i64 - sy.end as i64).abs();
            cand.push(((d, sx.label != sy.label, Reverse(ov), *sx, *sy), i, j));
        }
    }
    cand.sort_unstable();
    let mut mx = vec![usize::MAX; x.len()];
    let mut my = vec![usize::MAX; y.len()];
    for &(_, i, j) in &cand {
        if mx[i] == usize::MAX && my[j] == usize::MAX {
            mx[i] = j;
            my[j] = i;
        }
    }
    // Kuhn only where a span of x is still free and has a candidate (a
    // free y among its candidates would have been taken greedily, so
    // this is rare); its candidates in key order, as CSR rows.
    if cand.iter().any(|&(_, i, _)| mx[i] == usize::MAX) {
        let mut start = vec![0usize; x.len() + 1];
        for &(_, i, _) in &cand {
            start[i + 1] += 1;
        }
        for i in 0..x.len() {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut adj = vec![0usize; cand.len()];
        for &(_, i, j) in &cand {
            adj[fill[i]] = j;
            fill[i] += 1;
        }
        let adj: Vec<&[usize]> = (0..x.len()).map(|i| &adj[start[i]..start[i + 1]]).collect();
        let mut visited = vec![false; y.len()];
        for i in 0..x.len() {
            if mx[i] == usize::MAX && !adj[i].is_empty() {
                visited.iter_mut().for_each(|v| *v = false);
                augment(i, &adj, &mut mx, &mut my, &mut visited);
            }
        }
    }
    (0..x.len())
        .filter(|&i| mx[i] != usize::MAX)
        .map(|i| (i, mx[i]))
        .collect()
}

/// Kuhn's search from `i`: takes a free candidate or moves its partner on.
fn augment(
    i: usize,
    adj: &[&[usize]],
    mx: &mut [usize],
    my: &mut [usize],
    seen: &mut [bool],
) -> bool {
    for &j in adj[i] {
        if seen[j] {
            continue;
        }
        seen[j] = true;
        if my[j] == usize::MAX || augment(my[j], adj, mx, my, seen) {
            mx[i] = j;
            my[j] = i;
            return true;
        }
    }
    false
}

/// Size of the intersection of two sorted distinct lists.
fn intersection<T: Ord>(a: &[T], b: &[T]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// Boundaries `(s, e)` of sorted spans: each with its first label and
/// how many labels it has.
fn boundaries(s: &[Span]) -> Vec<((u32, u32), u32, u32)> {
    let mut out: Vec<((u32, u32), u32, u32)> = Vec::with_capacity(s.len());
    for x in s {
        match out.last_mut() {
            Some((b, _, n)) if *b == (x.start, x.end) => *n += 1,
            _ => out.push(((x.start, x.end), x.label, 1)),
        }
    }
    out
}

/// Every count of spec 3 and 5.5-5.6 for two annotators' sorted distinct
/// spans of one document.
pub fn pair_doc(x: &[Span], y: &[Span], min_iou: Option<f64>) -> PairDoc {
    let strict = intersection(x, y);
    let bx = boundaries(x);
    let by = boundaries(y);
    let typed = match_overlap(x, y, true, min_iou);
    let any = match_overlap(x, y, false, min_iou);
    let mut out = PairDoc {
        overlap_pairs: typed.iter().map(|&(i, j)| (x[i], y[j])).collect(),
        any_labels: any.iter().map(|&(i, j)| (x[i].label, y[j].label)).collect(),
        ..Default::default()
    };
    // The shared boundaries: those with one label each side give a label
    // pair, the others are left out.
    let (mut i, mut j, mut exact) = (0, 0, 0);
    while i < bx.len() && j < by.len() {
        match bx[i].0.cmp(&by[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                exact += 1;
                match (bx[i], by[j]) {
                    ((_, l1, 1), (_, l2, 1)) => out.exact_labels.push((l1, l2)),
                    _ => out.exact_left_out += 1,
                }
                i += 1;
                j += 1;
            }
        }
    }
    out.criteria = [
        Abc::of(strict, x.len(), y.len()),
        Abc::of(exact, bx.len(), by.len()),
        Abc::of(typed.len(), x.len(), y.len()),
        Abc::of(any.len(), x.len(), y.len()),
    ];
    out.by_label = by_label(x, y, &out);
    out
}

/// Per-label strict and overlap counts (the typed matching decomposes by
/// label, so its pairs of one label are a maximum matching of that label).
fn by_label(x: &[Span], y: &[Span], d: &PairDoc) -> Vec<LabelCounts> {
    let mut labels: Vec<u32> = x.iter().chain(y).map(|s| s.label).collect();
    labels.sort_unstable();
    labels.dedup();
    let at = |l: u32| labels.binary_search(&l).expect("a label of x or y");
    // [label]: spans of x, of y, strict matches, overlap matches.
    let mut n = vec![[0usize; 4]; labels.len()];
    x.iter().for_each(|s| n[at(s.label)][0] += 1);
    y.iter().for_each(|s| n[at(s.label)][1] += 1);
    let (mut i, mut j) = (0, 0);
    while i < x.len() && j < y.len() {
        match x[i].cmp(&y[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n[at(x[i].label)][2] += 1;
                i += 1;
                j += 1;
            }
        }
    }
    d.overlap_pairs
        .iter()
        .for_each(|p| n[at(p.0.label)][3] += 1);
    labels
        .iter()
        .zip(n)
        .map(|(&label, [nx, ny, strict, overlap])| LabelCounts {
            label,
            strict: Abc::of(strict, nx, ny),
            overlap: Abc::of(overlap, nx, ny),
        })
        .collect()
}

/// The boundary classes of matched pairs (spec 5.6).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Boundaries {
    pub matched: u64,
    pub identical: u64,
    pub start_only: u64,
    pub end_only: u64,
    pub containment: u64,
    pub crossing: u64,
    pub sum_abs_start: u64,
    pub sum_abs_end: u64,
}

impl Boundaries {
    /// Adds one matched pair.
    pub fn add(&mut self, x: &Span, y: &Span) {
        self.matched += 1;
        let ds = (x.start as i64 - y.start as i64).unsigned_abs();
        let de = (x.end as i64 - y.end as i64).unsigned_abs();
        self.sum_abs_start += ds;
        self.sum_abs_end += de;
        match (ds == 0, de == 0) {
            (true, true) => self.identical += 1,
            (false, true) => self.start_only += 1,
            (true, false) => self.end_only += 1,
            (false, false) => {
                let contains = |a: &Span, b: &Span| a.start <= b.start && b.end <= a.end;
                if contains(x, y) || contains(y, x) {
                    self.containment += 1
                } else {
                    self.crossing += 1
                }
            }
        }
    }

    pub fn merge(&mut self, o: &Boundaries) {
        self.matched += o.matched;
        self.identical += o.identical;
        self.start_only += o.start_only;
        self.end_only += o.end_only;
        self.containment += o.containment;
        self.crossing += o.crossing;
        self.sum_abs_start += o.sum_abs_start;
        self.sum_abs_end += o.sum_abs_end;
    }

    /// Mean absolute start and end differences (NaN without a pair).
    pub fn means(&self) -> (f64, f64) {
        let n = self.matched as f64;
        (self.sum_abs_start as f64 / n, self.sum_abs_end as f64 / n)
    }
}

/// Mean and population SD (ddof 0, as bratiaa) of the defined values,
/// and how many were NaN; both NaN without a defined value.
pub fn mean_sd(values: &[f64]) -> (f64, f64, usize) {
    let defined: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    let undefined = values.len() - defined.len();
    if defined.is_empty() {
        return (f64::NAN, f64::NAN, undefined);
    }
    let n = defined.len() as f64;
    let mean = defined.iter().sum::<f64>() / n;
    let var = defined.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    (mean, var.sqrt(), undefined)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(start: u32, end: u32, label: u32) -> Span {
        Span { start, end, label }
    }

    /// fixtures/spans README 9: greedy takes (x, u) and blocks the rest;
    /// Kuhn moves x to v so that y gets u: a = 2, F1 0.8.
    #[test]
    fn greedy_is_augmented_to_a_maximum_matching() {
        let (org, loc) = (1, 0);
        let mut gold = vec![s(0, 24, org), s(0, 15, org), s(0, 4, loc)];
        gold.sort();
        let mut sys = vec![s(0, 27, org), s(16, 24, org)];
        sys.sort();
        let d = pair_doc(&gold, &sys, None);
        assert_eq!(d.criteria[2], Abc { a: 2, b: 1, c: 0 });
        assert_eq!(d.criteria[2].f1(), 0.8);
        assert_eq!(d.criteria[0], Abc { a: 0, b: 3, c: 2 });
        let mut b = Boundaries::default();
        for (x, y) in &d.overlap_pairs {
            b.add(x, y);
        }
        assert_eq!((b.start_only, b.end_only), (1, 1));
    }

    #[test]
    fn criteria_on_a_small_case() {
        // x: PER [0,2), LOC [5,9); y: PER [0,2), PER [5,9) and LOC [6,9).
        let x = vec![s(0, 2, 0), s(5, 9, 1)];
        let y = vec![s(0, 2, 0), s(5, 9, 0), s(6, 9, 1)];
        let d = pair_doc(&x, &y, None);
        assert_eq!(d.criteria[0], Abc { a: 1, b: 1, c: 2 });
        assert_eq!(d.criteria[1], Abc { a: 2, b: 0, c: 1 });
        assert_eq!(d.criteria[2], Abc { a: 2, b: 0, c: 1 });
        assert_eq!(d.criteria[3], Abc { a: 2, b: 0, c: 1 });
        // overlap_any prefers the identical boundary [5,9) despite labels.
        assert_eq!(d.any_labels, vec![(0, 0), (1, 0)]);
        assert_eq!(d.exact_labels, vec![(0, 0), (1, 0)]);
        // IoU 3/4 of LOC [5,9) vs [6,9): kept at 0.75, dropped at 0.8.
        assert_eq!(pair_doc(&x, &y, Some(0.75)).criteria[2].a, 2);
        assert_eq!(pair_doc(&x, &y, Some(0.8)).criteria[2].a, 1);
        // Touching spans do not overlap.
        assert_eq!(
            pair_doc(&[s(0, 2, 0)], &[s(2, 4, 0)], None).criteria[3].a,
            0
        );
    }

    #[test]
    fn f1_and_mean_sd() {
        assert!(Abc::default().f1().is_nan());
        assert_eq!(Abc { a: 3, b: 7, c: 7 }.f1(), 0.3);
        let (m, sd, u) = mean_sd(&[0.5, f64::NAN, 1.0]);
        assert_eq!((m, sd, u), (0.75, 0.25, 1));
        let (m, _, u) = mean_sd(&[f64::NAN]);
        assert!(m.is_nan());
        assert_eq!(u, 1);
    }
}
