//! Part of the metrics stage (pure maths: no I/O, no tables, no plots).
//!
//! Additive sufficient statistics of a (human, comparison) pair: everything
//! the metric block of spec 3.1 needs except the extremes, as sums over a
//! set of responses. Sums of two sets add, and a set drawn `w` times adds
//! `w` times, so a bootstrap replicate of many responses is a weighted sum
//! of the sums of a few blocks of responses (uncertainty spec 6) instead of
//! a pass over the responses.
//!
//! [`PairSums::block`] turns sums into a [`MetricBlock`] through the same
//! metric definitions as [`metric_block`](super::metric_block): the
//! moment-based metrics through the same `*_with` functions of
//! `association` and `agreement`, kappa through `kappa_from_counts`.
//! Pearson's r is the same quantity computed from the moments (not scipy's
//! rescaled summation, which needs the values). Values agree with
//! `metric_block` to rounding (a test); the extremes are NaN.

use super::agreement::{kappa_from_counts, quadratic_weighted_kappa_with};
use super::association::{
    dsm_from_means, r2_with, smd_pooled_with, smd_unpooled_with, PairMoments,
};
use super::block::{DiffMethod, MetricBlock};
use super::round_half_even;

/// The label range counted for kappa: rounded values in `[lo, lo + K)`.
/// Wider ranges (absurd values) leave kappa NaN in the sums.
pub const MAX_LABELS: usize = 64;

/// The fixed reference points of a pair's sums: deviations are taken from
/// `h_centre` and `s_centre` (the full data's means keep the sums well
/// conditioned), labels are counted from `label_lo`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Centres {
    pub h_centre: f64,
    pub s_centre: f64,
    /// The smallest rounded label of the full data.
    pub label_lo: f64,
    /// Number of labels counted (`<= MAX_LABELS`); 0 when the data's
    /// labels do not fit (kappa is then NaN).
    pub labels: usize,
}

impl Centres {
    /// Centres of the full data `h`, `s`: their means and rounded label
    /// range (non-finite values leave kappa uncounted).
    pub fn of(h: &[f64], s: &[f64]) -> Self {
        let n = h.len().min(s.len()).max(1) as f64;
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for &v in h.iter().chain(s) {
            let r = round_half_even(v);
            lo = lo.min(r);
            hi = hi.max(r);
        }
        let span = hi - lo;
        let labels = if span.is_finite() && span < MAX_LABELS as f64 {
            span as usize + 1
        } else {
            0
        };
        Centres {
            h_centre: h.iter().sum::<f64>() / n,
            s_centre: s.iter().sum::<f64>() / n,
            label_lo: if lo.is_finite() { lo } else { 0.0 },
            labels,
        }
    }
}

/// Sums of a pair over a set of responses (see the module docs). Every
/// field adds.
#[derive(Clone, Debug, PartialEq)]
pub struct PairSums {
    pub n: f64,
    /// `sum dh`, `sum ds` with `dh = h - h_centre`, `ds = s - s_centre`.
    pub dh: f64,
    pub ds: f64,
    /// `sum dh^2`, `sum ds^2`, `sum dh*ds`.
    pub dhh: f64,
    pub dss: f64,
    pub dhs: f64,
    /// Pairs with `|h - s| <= 0` and `<= 1` (unrounded values).
    pub exact: f64,
    pub adjacent: f64,
    /// Pairs whose rounded values agree.
    pub diagonal: f64,
    /// Counts of the rounded `h` and `s` labels, `[h_0, s_0, h_1, s_1, ..]`.
    pub labels: Vec<f64>,
}

impl PairSums {
    /// The sums of no responses.
    pub fn zero(c: &Centres) -> Self {
        PairSums {
            n: 0.0,
            dh: 0.0,
            ds: 0.0,
            dhh: 0.0,
            dss: 0.0,
            dhs: 0.0,
            exact: 0.0,
            adjacent: 0.0,
            diagonal: 0.0,
            labels: vec![0.0; 2 * c.labels],
        }
    }

    /// Adds one pair.
    #[inline]
    pub fn push(&mut self, c: &Centres, h: f64, s: f64) {
        let (dh, ds) = (h - c.h_centre, s - c.s_centre);
        self.n += 1.0;
        self.dh += dh;
        self.ds += ds;
        self.dhh += dh * dh;
        self.dss += ds * ds;
        self.dhs += dh * ds;
        let d = (h - s).abs();
        self.exact += f64::from(u8::from(d <= 0.0));
        self.adjacent += f64::from(u8::from(d <= 1.0));
        let (rh, rs) = (round_half_even(h), round_half_even(s));
        self.diagonal += f64::from(u8::from(rh == rs));
        let k = c.labels as f64;
        let (ih, is) = (rh - c.label_lo, rs - c.label_lo);
        // False for NaN too; out-of-range labels poison kappa.
        if ih >= 0.0 && ih < k && is >= 0.0 && is < k {
            self.labels[2 * ih as usize] += 1.0;
            self.labels[2 * is as usize + 1] += 1.0;
        } else if let Some(first) = self.labels.first_mut() {
            *first = f64::NAN;
        }
    }

    /// The sums of the pairs `(h[i], s[i])` for `i` in `rows`.
    pub fn of_rows(c: &Centres, h: &[f64], s: &[f64], rows: impl Iterator<Item = usize>) -> Self {
        let mut sums = PairSums::zero(c);
        for i in rows {
            sums.push(c, h[i], s[i]);
        }
        sums
    }

    /// Adds `w` times `other` (same centres).
    #[inline]
    pub fn add_scaled(&mut self, other: &PairSums, w: f64) {
        self.n += w * other.n;
        self.dh += w * other.dh;
        self.ds += w * other.ds;
        self.dhh += w * other.dhh;
        self.dss += w * other.dss;
        self.dhs += w * other.dhs;
        self.exact += w * other.exact;
        self.adjacent += w * other.adjacent;
        self.diagonal += w * other.diagonal;
        for (a, b) in self.labels.iter_mut().zip(&other.labels) {
            *a += w * b;
        }
    }

    /// The moments of the pairs (what `PairMoments::new` computes from the
    /// values).
    pub(crate) fn moments(&self, c: &Centres) -> PairMoments {
        let n = self.n;
        let (mh, ms) = (self.dh / n, self.ds / n);
        let ss_h = (self.dhh - self.dh * mh).max(0.0);
        let ss_s = (self.dss - self.ds * ms).max(0.0);
        let sp_hs = self.dhs - self.dh * ms;
        // sum (h - s)^2 = sum ((dh - ds) + (ch - cs))^2
        let shift = c.h_centre - c.s_centre;
        let ss_res = (self.dhh - 2.0 * self.dhs
            + self.dss
            + 2.0 * shift * (self.dh - self.ds)
            + n * shift * shift)
            .max(0.0);
        PairMoments {
            n: n as usize,
            h_mean: c.h_centre + mh,
            s_mean: c.s_centre + ms,
            ss_h,
            ss_s,
            sp_hs,
            ss_res,
        }
    }

    /// Unweighted kappa from the label counts (`kappa_from_counts`), 1.0
    /// with a single label, NaN when the labels were not counted.
    fn kappa(&self) -> f64 {
        if self.labels.is_empty() || self.labels[0].is_nan() {
            return f64::NAN;
        }
        let used = self.labels.chunks(2).filter(|c| c[0] + c[1] > 0.0).count();
        if used == 1 {
            return 1.0;
        }
        let products: f64 = self.labels.chunks(2).map(|c| c[0] * c[1]).sum();
        kappa_from_counts(self.n as u128, self.diagonal as u128, products as u128)
    }

    /// The metric block of these pairs (extremes NaN); `n = 0` gives
    /// [`MetricBlock::empty`]. For [`DiffMethod::Dsm`], the population is
    /// the one given (a bootstrap replicate passes its own).
    pub fn block(&self, c: &Centres, diff: DiffMethod) -> MetricBlock {
        if self.n < 1.0 {
            return MetricBlock::empty();
        }
        let m = self.moments(c);
        let n = self.n;
        let nan = f64::NAN;
        MetricBlock {
            n: m.n,
            h_mean: m.h_mean,
            h_sd: m.h_sd(),
            h_min: nan,
            h_max: nan,
            sys_mean: m.s_mean,
            sys_sd: m.s_sd(),
            sys_min: nan,
            sys_max: nan,
            corr: pearson_from_moments(&m),
            wtkappa: quadratic_weighted_kappa_with(&m),
            r2: r2_with(&m),
            kappa: self.kappa(),
            exact_agr: self.exact / n * 100.0,
            adj_agr: self.adjacent / n * 100.0,
            diff: match diff {
                DiffMethod::Unpooled => smd_unpooled_with(&m),
                DiffMethod::Pooled => smd_pooled_with(&m),
                DiffMethod::Dsm(pop) => dsm_from_means(m.h_mean, m.s_mean, &pop),
            },
            rmse: (m.ss_res / n).sqrt(),
        }
    }
}

/// Pearson's r from the moments, `sp / sqrt(ss_h ss_s)` clipped to
/// [-1, 1]: NaN when n < 2 or either sum of squares is (numerically) zero,
/// the moment form of `association::pearson`'s rules.
pub(crate) fn pearson_from_moments(m: &PairMoments) -> f64 {
    let tiny = |ss: f64, mean: f64| ss <= 1e-24 * (1.0 + mean * mean) * m.n as f64;
    if m.n < 2 || tiny(m.ss_h, m.h_mean) || tiny(m.ss_s, m.s_mean) {
        return f64::NAN;
    }
    (m.sp_hs / (m.ss_h.sqrt() * m.ss_s.sqrt())).clamp(-1.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::association::{dsm, Population};
    use crate::block::metric_block;
    use crate::test_util::Lcg;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= tol * (1.0 + b.abs())
    }

    fn data(n: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
        let mut g = Lcg(seed);
        let h: Vec<f64> = (0..n).map(|_| (1.0 + 5.0 * g.next()).floor()).collect();
        let s: Vec<f64> = h
            .iter()
            .map(|x| (x + 1.6 * (g.next() - 0.5) + 0.2).clamp(0.5, 6.5))
            .collect();
        (h, s)
    }

    fn assert_blocks_agree(a: &MetricBlock, b: &MetricBlock) {
        assert_eq!(a.n, b.n);
        for (x, y, name) in [
            (a.h_mean, b.h_mean, "h_mean"),
            (a.h_sd, b.h_sd, "h_sd"),
            (a.sys_mean, b.sys_mean, "sys_mean"),
            (a.sys_sd, b.sys_sd, "sys_sd"),
            (a.corr, b.corr, "corr"),
            (a.wtkappa, b.wtkappa, "wtkappa"),
            (a.r2, b.r2, "r2"),
            (a.kappa, b.kappa, "kappa"),
            (a.exact_agr, b.exact_agr, "exact_agr"),
            (a.adj_agr, b.adj_agr, "adj_agr"),
            (a.diff, b.diff, "diff"),
            (a.rmse, b.rmse, "rmse"),
        ] {
            assert!(close(x, y, 1e-11), "{name}: {x} vs {y}");
        }
    }

    #[test]
    fn sums_give_the_metric_block_of_the_values() {
        let (h, s) = data(5000, 7);
        let c = Centres::of(&h, &s);
        let sums = PairSums::of_rows(&c, &h, &s, 0..h.len());
        for diff in [DiffMethod::Unpooled, DiffMethod::Pooled] {
            assert_blocks_agree(&sums.block(&c, diff), &metric_block(&h, &s, diff));
        }
        let pop = Population {
            h_mean: 3.1,
            h_sd: 1.4,
            s_mean: 3.3,
            s_sd: 1.2,
        };
        let b = sums.block(&c, DiffMethod::Dsm(pop));
        assert!(close(b.diff, dsm(&h, &s, &pop), 1e-12));
    }

    #[test]
    fn sums_add_and_scale_like_repeated_rows() {
        let (h, s) = data(300, 11);
        let c = Centres::of(&h, &s);
        // Rows 0..100 twice, 100..300 once, as sums of two blocks.
        let mut total = PairSums::zero(&c);
        total.add_scaled(&PairSums::of_rows(&c, &h, &s, 0..100), 2.0);
        total.add_scaled(&PairSums::of_rows(&c, &h, &s, 100..300), 1.0);
        let rows: Vec<usize> = (0..100).chain(0..300).collect();
        let hh: Vec<f64> = rows.iter().map(|&i| h[i]).collect();
        let ss: Vec<f64> = rows.iter().map(|&i| s[i]).collect();
        assert_blocks_agree(
            &total.block(&c, DiffMethod::Unpooled),
            &metric_block(&hh, &ss, DiffMethod::Unpooled),
        );
    }

    #[test]
    fn degenerate_sums() {
        let c = Centres::of(&[2.0, 2.0], &[3.0, 3.0]);
        assert_eq!(PairSums::zero(&c).block(&c, DiffMethod::Unpooled).n, 0);
        assert!(PairSums::zero(&c)
            .block(&c, DiffMethod::Unpooled)
            .corr
            .is_nan());
        // Constant scores: corr NaN, kappa over two labels, r2 as sklearn.
        let sums = PairSums::of_rows(&c, &[2.0, 2.0], &[3.0, 3.0], 0..2);
        let b = sums.block(&c, DiffMethod::Unpooled);
        let m = metric_block(&[2.0, 2.0], &[3.0, 3.0], DiffMethod::Unpooled);
        assert!(b.corr.is_nan() && m.corr.is_nan());
        assert_eq!((b.kappa, b.r2, b.rmse), (m.kappa, m.r2, m.rmse));
        // One label only: kappa 1.
        let c1 = Centres::of(&[2.0], &[2.2]);
        let one = PairSums::of_rows(&c1, &[2.0], &[2.2], 0..1);
        assert_eq!(one.block(&c1, DiffMethod::Unpooled).kappa, 1.0);
        // Labels outside the counted range: kappa NaN, nothing else harmed.
        let wide = Centres::of(&[0.0], &[1000.0]);
        let sums = PairSums::of_rows(&wide, &[0.0, 1.0], &[1000.0, 2.0], 0..2);
        let b = sums.block(&wide, DiffMethod::Unpooled);
        assert!(b.kappa.is_nan());
        assert!(b.rmse.is_finite());
    }

    #[test]
    fn large_centres_keep_precision() {
        // Scores near 1e6 with unit spread: centring keeps r exact.
        let (h, s) = data(2000, 3);
        let h: Vec<f64> = h.iter().map(|x| x + 1e6).collect();
        let s: Vec<f64> = s.iter().map(|x| x + 1e6).collect();
        let c = Centres::of(&h, &s);
        let sums = PairSums::of_rows(&c, &h, &s, 0..h.len());
        let b = sums.block(&c, DiffMethod::Unpooled);
        let m = metric_block(&h, &s, DiffMethod::Unpooled);
        assert!(close(b.corr, m.corr, 1e-9), "{} {}", b.corr, m.corr);
        assert!(close(b.rmse, m.rmse, 1e-9));
    }
}
