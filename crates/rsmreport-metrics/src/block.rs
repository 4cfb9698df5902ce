//! Part of the metrics stage (pure maths: no I/O, no tables, no plots).
//!
//! The per-pair metric block of spec 3.1: for a human reference `h` and a
//! comparison `s` (system or second human), every statistic that the `eval`,
//! `eval_short`, `consistency`, `degradation` and by-group tables select
//! from. The shared moments are computed once (two pairwise passes) and
//! reused, so a block over 10 million values costs a handful of linear
//! passes.

use crate::agreement::{kappa, kappa_from_counts, quadratic_weighted_kappa_with};
use crate::association::{
    dsm, pearson_with, r2_with, smd_pooled_with, smd_unpooled_with, PairMoments, Population,
};
use crate::round_half_even;

/// Which difference statistic fills [`MetricBlock::diff`] (spec 3.3, 3.4).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DiffMethod {
    /// SMD with denominator `sd(h)` (human-machine tables).
    Unpooled,
    /// SMD with denominator `sqrt((sd(h)^2 + sd(s)^2) / 2)` (consistency).
    Pooled,
    /// DSM against whole-evaluation-set statistics (by-group tables).
    Dsm(Population),
}

/// One row of spec 3.1 for a (human, comparison) pair. `diff` is the SMD or
/// the DSM depending on the [`DiffMethod`]. Every field but `n` is NaN when
/// `n = 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MetricBlock {
    pub n: usize,
    pub h_mean: f64,
    pub h_sd: f64,
    pub h_min: f64,
    pub h_max: f64,
    pub sys_mean: f64,
    pub sys_sd: f64,
    pub sys_min: f64,
    pub sys_max: f64,
    pub corr: f64,
    pub wtkappa: f64,
    pub r2: f64,
    pub kappa: f64,
    pub exact_agr: f64,
    pub adj_agr: f64,
    pub diff: f64,
    pub rmse: f64,
}

impl MetricBlock {
    /// The block of an empty pair: `n = 0`, every other field NaN (groups
    /// without double-scored responses).
    pub fn empty() -> Self {
        let nan = f64::NAN;
        MetricBlock {
            n: 0,
            h_mean: nan,
            h_sd: nan,
            h_min: nan,
            h_max: nan,
            sys_mean: nan,
            sys_sd: nan,
            sys_min: nan,
            sys_max: nan,
            corr: nan,
            wtkappa: nan,
            r2: nan,
            kappa: nan,
            exact_agr: nan,
            adj_agr: nan,
            diff: nan,
            rmse: nan,
        }
    }
}

/// Spec 3.1 for one pair: `N`, means, sample sds (ddof 1), extremes, Pearson
/// r, continuous QWK, R², unweighted kappa on half-to-even rounded values,
/// exact/adjacent agreement on unrounded values, the SMD/DSM chosen by
/// `diff`, and `RMSE = sqrt(sum (h_i - s_i)^2 / n)`. Each field equals the
/// corresponding stand-alone function of `agreement`/`association`.
/// `n = 0` gives [`MetricBlock::empty`]. Uses the common prefix of `h` and
/// `s`.
pub fn metric_block(h: &[f64], s: &[f64], diff: DiffMethod) -> MetricBlock {
    debug_assert_eq!(h.len(), s.len());
    let n = h.len().min(s.len());
    if n == 0 {
        return MetricBlock::empty();
    }
    let (h, s) = (&h[..n], &s[..n]);
    let m = PairMoments::new(h, s);
    let c = PairCounts::new(h, s);
    MetricBlock {
        n,
        h_mean: m.h_mean,
        h_sd: m.h_sd(),
        h_min: c.h_min,
        h_max: c.h_max,
        sys_mean: m.s_mean,
        sys_sd: m.s_sd(),
        sys_min: c.s_min,
        sys_max: c.s_max,
        corr: pearson_with(h, s, &m),
        wtkappa: quadratic_weighted_kappa_with(&m),
        r2: r2_with(&m),
        kappa: c.kappa.unwrap_or_else(|| kappa(h, s)),
        exact_agr: c.exact as f64 / n as f64 * 100.0,
        adj_agr: c.adjacent as f64 / n as f64 * 100.0,
        diff: match diff {
            DiffMethod::Unpooled => smd_unpooled_with(&m),
            DiffMethod::Pooled => smd_pooled_with(&m),
            DiffMethod::Dsm(pop) => dsm(h, s, &pop),
        },
        rmse: (m.ss_res / n as f64).sqrt(),
    }
}

/// Number of labels around the first rounded human score that
/// [`PairCounts`] counts in place (score scales have a handful).
const KAPPA_WINDOW: usize = 64;

/// Everything of a block that is a count or an extreme, from one pass over
/// the pairs (instead of seven), each equal to its stand-alone function:
/// `summary::min`/`max` (first wins, NaN if any value is NaN), exact and
/// adjacent agreement counts (`|h - s| <= 0`, `<= 1`), and unweighted kappa
/// from the label counts when every rounded value lies within
/// [`KAPPA_WINDOW`] labels of the first one (`None` otherwise, e.g. with
/// non-finite values: then the caller uses `agreement::kappa`).
struct PairCounts {
    h_min: f64,
    h_max: f64,
    s_min: f64,
    s_max: f64,
    exact: usize,
    adjacent: usize,
    kappa: Option<f64>,
}

impl PairCounts {
    /// `h` and `s` of equal, non-zero length.
    fn new(h: &[f64], s: &[f64]) -> Self {
        let (mut h_min, mut h_max, mut s_min, mut s_max) = (h[0], h[0], s[0], s[0]);
        let (mut h_nan, mut s_nan) = (false, false);
        let (mut exact, mut adjacent) = (0usize, 0usize);
        let base = round_half_even(h[0]) - (KAPPA_WINDOW / 2) as f64;
        let mut labels = [[0u64; 2]; KAPPA_WINDOW];
        let mut diagonal = 0u64;
        let mut in_window = true;
        for (&a, &b) in h.iter().zip(s) {
            h_nan |= a.is_nan();
            s_nan |= b.is_nan();
            if a < h_min {
                h_min = a;
            }
            if a > h_max {
                h_max = a;
            }
            if b < s_min {
                s_min = b;
            }
            if b > s_max {
                s_max = b;
            }
            let d = (a - b).abs();
            exact += usize::from(d <= 0.0);
            adjacent += usize::from(d <= 1.0);
            let (ra, rb) = (round_half_even(a), round_half_even(b));
            let (ia, ib) = (ra - base, rb - base);
            // False for NaN and infinities too.
            let window = KAPPA_WINDOW as f64;
            if ia >= 0.0 && ia < window && ib >= 0.0 && ib < window {
                labels[ia as usize][0] += 1;
                labels[ib as usize][1] += 1;
                diagonal += u64::from(ra == rb);
            } else {
                in_window = false;
            }
        }
        let kappa = in_window.then(|| {
            let used = labels.iter().filter(|c| c[0] + c[1] > 0).count();
            if used == 1 {
                // A single label: all weights are zero.
                return 1.0;
            }
            let products: u128 = labels
                .iter()
                .map(|c| u128::from(c[0]) * u128::from(c[1]))
                .sum();
            kappa_from_counts(h.len() as u128, u128::from(diagonal), products)
        });
        let nan = f64::NAN;
        PairCounts {
            h_min: if h_nan { nan } else { h_min },
            h_max: if h_nan { nan } else { h_max },
            s_min: if s_nan { nan } else { s_min },
            s_max: if s_nan { nan } else { s_max },
            exact,
            adjacent,
            kappa,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agreement::{adjacent_agreement, exact_agreement, quadratic_weighted_kappa};
    use crate::association::{pearson, r2, rmse, smd_pooled, smd_unpooled};
    use crate::summary::{mean, sd};

    fn close(a: f64, b: f64, rel: f64) -> bool {
        a == b || (a - b).abs() <= rel * b.abs().max(a.abs())
    }

    /// Equal, or both NaN.
    fn same(a: f64, b: f64) -> bool {
        a == b || a.is_nan() && b.is_nan()
    }

    use crate::test_util::Lcg;

    fn fields(b: &MetricBlock) -> [f64; 16] {
        [
            b.h_mean,
            b.h_sd,
            b.h_min,
            b.h_max,
            b.sys_mean,
            b.sys_sd,
            b.sys_min,
            b.sys_max,
            b.corr,
            b.wtkappa,
            b.r2,
            b.kappa,
            b.exact_agr,
            b.adj_agr,
            b.diff,
            b.rmse,
        ]
    }

    #[test]
    fn golden_v1() {
        let h = [1.0, 3.0, 4.0, 2.0, 3.0, 1.0, 3.0, 4.0, 2.0, 1.0];
        let s = [2.54; 10];
        let b = metric_block(&h, &s, DiffMethod::Unpooled);
        assert_eq!(b.n, 10);
        assert!(close(b.h_mean, 2.4, 1e-15));
        assert!(close(b.h_sd, 1.1737877907772674, 1e-12));
        assert_eq!((b.h_min, b.h_max), (1.0, 4.0));
        assert!(b.sys_sd.abs() < 1e-15);
        assert_eq!((b.sys_min, b.sys_max), (2.54, 2.54));
        assert!(b.corr.is_nan());
        assert!(b.wtkappa.abs() < 1e-15);
        assert!(close(b.r2, -0.015806451612903283, 1e-12));
        assert_eq!(b.kappa, 0.0);
        assert_eq!(b.exact_agr, 0.0);
        assert_eq!(b.adj_agr, 50.0);
        assert!(close(b.diff, 0.11927198519188371, 1e-12));
        assert!(close(b.rmse, 1.122319027727856, 1e-12));
    }

    #[test]
    fn golden_v2() {
        let h = [1.0, 2.0, 3.0, 4.0, 5.0, 3.0, 2.0, 4.0];
        let s = [1.2, 2.5, 2.9, 4.4, 4.6, 3.5, 1.5, 3.9];
        let b = metric_block(&h, &s, DiffMethod::Unpooled);
        assert_eq!(b.n, 8);
        assert!(close(b.kappa, 0.84, 1e-12));
        assert!(close(b.wtkappa, 0.9515645092156023, 1e-12));
        assert_eq!(b.exact_agr, 0.0);
        assert_eq!(b.adj_agr, 100.0);
        assert!(close(b.diff, 0.047735163489123336, 1e-12));
        assert!(close(b.corr, 0.9532727005878368, 1e-12));
        assert!(close(b.r2, 0.9058333333333333, 1e-12));
        assert!(close(b.rmse, 0.3758324094593228, 1e-12));
        assert!(close(b.sys_mean, 3.0625, 1e-12));
        assert!(close(b.sys_sd, 1.270475164203198, 1e-12));
        assert!(close(b.h_sd, 1.3093073414159542, 1e-12));
        let p = metric_block(&h, &s, DiffMethod::Pooled);
        assert!(close(p.diff, 0.048448208724271635, 1e-12));
        // Only `diff` depends on the method.
        assert_eq!(fields(&b)[..14], fields(&p)[..14]);
        assert_eq!(b.rmse, p.rmse);
    }

    #[test]
    fn golden_v4_dsm_in_block() {
        let pop = Population {
            h_mean: 3.0,
            h_sd: 1.2,
            s_mean: 3.0,
            s_sd: 1.1,
        };
        let b = metric_block(
            &[1.0, 2.0, 3.0, 4.0],
            &[1.2, 2.5, 2.9, 4.4],
            DiffMethod::Dsm(pop),
        );
        assert!(close(b.diff, 0.18939393939393948, 1e-12));
    }

    #[test]
    fn empty_and_single() {
        let e = metric_block(&[], &[], DiffMethod::Pooled);
        assert_eq!(e.n, 0);
        assert!(fields(&e).iter().all(|v| v.is_nan()));
        let e2 = MetricBlock::empty();
        assert_eq!(e2.n, 0);
        assert!(fields(&e2).iter().all(|v| v.is_nan()));

        // n = 1, h = 2, s = 3.4: sds, corr, R2, SMD NaN; QWK 0/(0+0+1.96) = 0;
        // kappa: 2 vs 3 -> d = 0, a b = 0 -> 0; exact 0, adjacent 0 (|d| = 1.4);
        // RMSE 1.4.
        let b = metric_block(&[2.0], &[3.4], DiffMethod::Unpooled);
        assert_eq!(b.n, 1);
        assert!(b.h_sd.is_nan() && b.sys_sd.is_nan());
        assert!(b.corr.is_nan() && b.r2.is_nan() && b.diff.is_nan());
        assert_eq!(b.wtkappa, 0.0);
        assert_eq!(b.kappa, 0.0);
        assert_eq!((b.exact_agr, b.adj_agr), (0.0, 0.0));
        assert!(close(b.rmse, 1.4, 1e-15));
        assert_eq!(
            (b.h_min, b.h_max, b.sys_min, b.sys_max),
            (2.0, 2.0, 3.4, 3.4)
        );
        // n = 1 with DSM: the population sds are fine, so DSM is a number:
        // (3.4 - 3)/1 - (2 - 2)/1 = 0.4.
        let pop = Population {
            h_mean: 2.0,
            h_sd: 1.0,
            s_mean: 3.0,
            s_sd: 1.0,
        };
        let d = metric_block(&[2.0], &[3.4], DiffMethod::Dsm(pop));
        assert!(close(d.diff, 0.4, 1e-15));
    }

    #[test]
    fn block_equals_standalone_functions() {
        let mut g = Lcg(11);
        for k in 0..300 {
            let n = 1 + (g.next() * 300.0) as usize;
            let h: Vec<f64> = (0..n).map(|_| (1.0 + g.next() * 5.0).floor()).collect();
            let s: Vec<f64> = if k % 4 == 0 {
                vec![2.5; n]
            } else {
                h.iter().map(|v| v + (g.next() - 0.5) * 3.0).collect()
            };
            let b = metric_block(&h, &s, DiffMethod::Unpooled);
            assert_eq!(b.n, n);
            assert!(same(b.h_mean, mean(&h)));
            assert!(same(b.sys_mean, mean(&s)));
            assert!(same(b.h_sd, sd(&h, 1)));
            assert!(same(b.sys_sd, sd(&s, 1)));
            assert!(same(b.corr, pearson(&h, &s)));
            assert!(same(b.wtkappa, quadratic_weighted_kappa(&h, &s)));
            assert!(same(b.r2, r2(&h, &s)));
            assert!(same(b.kappa, kappa(&h, &s)));
            assert!(same(b.exact_agr, exact_agreement(&h, &s)));
            assert!(same(b.adj_agr, adjacent_agreement(&h, &s)));
            assert!(same(b.diff, smd_unpooled(&h, &s)));
            assert!(same(b.rmse, rmse(&h, &s)));
            let p = metric_block(&h, &s, DiffMethod::Pooled);
            assert!(same(p.diff, smd_pooled(&h, &s)));

            // Bounds.
            assert!(b.kappa <= 1.0);
            assert!(b.corr.is_nan() || b.corr.abs() <= 1.0);
            assert!(b.wtkappa.is_nan() || b.wtkappa <= 1.0 + 1e-12);
            assert!(b.r2.is_nan() || b.r2 <= 1.0);
            assert!((0.0..=100.0).contains(&b.exact_agr));
            assert!((0.0..=100.0).contains(&b.adj_agr));
            assert!(b.exact_agr <= b.adj_agr);
            assert!(b.h_min <= b.h_mean + 1e-12 && b.h_mean <= b.h_max + 1e-12);
            assert!(b.sys_min <= b.sys_mean + 1e-12 && b.sys_mean <= b.sys_max + 1e-12);

            // Swapping the roles: symmetric metrics unchanged, sides swapped,
            // pooled SMD changes sign.
            let r = metric_block(&s, &h, DiffMethod::Pooled);
            assert_eq!(r.n, b.n);
            assert!(same(r.h_mean, b.sys_mean) && same(r.sys_mean, b.h_mean));
            assert!(same(r.h_sd, b.sys_sd) && same(r.sys_sd, b.h_sd));
            assert!(same(r.h_min, b.sys_min) && same(r.sys_max, b.h_max));
            assert!(same(r.kappa, b.kappa));
            assert!(same(r.exact_agr, b.exact_agr) && same(r.adj_agr, b.adj_agr));
            assert!(same(r.rmse, b.rmse));
            assert!(r.corr.is_nan() && b.corr.is_nan() || close(r.corr, b.corr, 1e-12));
            assert!(r.wtkappa.is_nan() && b.wtkappa.is_nan() || close(r.wtkappa, b.wtkappa, 1e-12));
            assert!(r.diff.is_nan() && p.diff.is_nan() || close(r.diff, -p.diff, 1e-12));
        }
    }

    #[test]
    fn counts_equal_standalone_functions_on_edge_cases() {
        use crate::summary::{max, min};
        let cases: Vec<(Vec<f64>, Vec<f64>)> = vec![
            (vec![0.0, -0.0, 0.0], vec![-0.0, 0.0, 0.4]),
            (vec![1.0, f64::NAN, 3.0], vec![1.0, 2.0, 3.0]),
            (
                vec![1.0, 2.0, 3.0],
                vec![f64::INFINITY, 2.0, f64::NEG_INFINITY],
            ),
            (vec![f64::INFINITY, 2.0], vec![f64::INFINITY, 2.0]),
            (vec![1.0, 200.0, 3.0], vec![1.0, 2.0, -150.0]),
            (vec![2.5, 3.5, 2.5], vec![2.5, 2.5, 2.5]),
            (vec![4.0; 5], vec![4.4; 5]),
            (vec![1e300, -1e300], vec![0.5, -0.5]),
            (vec![33.0, -30.0], vec![1.0, 2.0]),
            (vec![-31.5, 32.5], vec![-32.0, 31.0]),
        ];
        for (h, s) in cases {
            let b = metric_block(&h, &s, DiffMethod::Unpooled);
            let what = format!("{h:?} {s:?}");
            assert!(same(b.kappa, kappa(&h, &s)), "kappa {what}");
            assert!(same(b.exact_agr, exact_agreement(&h, &s)), "exact {what}");
            assert!(
                same(b.adj_agr, adjacent_agreement(&h, &s)),
                "adjacent {what}"
            );
            for (got, want) in [
                (b.h_min, min(&h)),
                (b.h_max, max(&h)),
                (b.sys_min, min(&s)),
                (b.sys_max, max(&s)),
            ] {
                assert!(
                    got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan(),
                    "extremes {what}"
                );
            }
        }
    }

    #[test]
    fn large_input_matches_numpy_style_means() {
        // 20 000 values: more than one numpy buffer chunk; the block's means
        // must be the chunked pairwise means of `summary`.
        let mut g = Lcg(1);
        let h: Vec<f64> = (0..20_000)
            .map(|_| (1.0 + g.next() * 5.0).floor())
            .collect();
        let s: Vec<f64> = h.iter().map(|v| v + g.next() - 0.5).collect();
        let b = metric_block(&h, &s, DiffMethod::Unpooled);
        assert_eq!(b.h_mean, mean(&h));
        assert_eq!(b.sys_mean, mean(&s));
        assert_eq!(b.adj_agr, 100.0);
        assert!(b.corr > 0.9);
    }
}
