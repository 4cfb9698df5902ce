//! Stage 4 (metrics, pure): ratio alpha's expected disagreement
//! `E = sum_{k,l} n_k n_l ((x_k - x_l) / (x_k + x_l))^2` in time linear in
//! the number of distinct values, where the direct sum over pairs of
//! values grows with their square (a million distinct continuous ratings
//! would be 5 x 10^11 pairs).
//!
//! The distance does not separate, but its denominator does under an
//! integral: `1 / s^2 = int_0^inf t e^{-t s} dt`, so with `w_k(t) = n_k
//! e^{-t x_k}`
//!
//! `E = int_0^inf t sum_{k,l} w_k w_l (x_k - x_l)^2 dt
//!    = int_0^inf t 2 W(t) SS(t) dt`,
//!
//! where `W` is the total weight and `SS` the centred sum of squares of
//! the values under the weights `w(t)` (summed as positive terms: no
//! cancellation). With `t = e^u` every pair's integrand is the same
//! function `e^{2v - e^v}` shifted by `ln(x_k + x_l)`, and the trapezoidal
//! rule on the `u` line with step `h` integrates each one with a relative
//! error of at most `2 |Gamma(2 + 2 pi i / h)| / Gamma(2)` (Poisson
//! summation), whatever the shift: `2.5e-13` for `h = 0.28`. Every pair's
//! term is positive, so the whole sum has the same relative error bound
//! (plus rounding, about `1e-16` times the values' size over their spread:
//! `3.4e-10` for two values near 1000, `3e-4` apart);
//! the nodes span the shifts of the occurring values (values rescaled to
//! `[0, 1]` by the largest, the distance being scale-free) plus the
//! tails of `e^{2v - e^v}` beyond `v in [-16, 3.8]` (below `1e-14`).
//! About a hundred nodes for values from 0.1 to 100.
//!
//! Pairs `0, 0` contribute `(0 - 0)^2 = 0` as the reference's `0 / 0 = 0`
//! convention wants; values of both signs (where `x_k + x_l` may vanish)
//! are left to the direct sum. The bootstrap keeps each resampled group's
//! `(W, mean, SS)` per node and pools them per replicate (Chan et al.'s
//! parallel variance, again positive terms), so a replicate costs groups
//! x nodes, whatever the number of distinct values.
//!
//! Pure maths on slices: nothing here may touch files, tables,
//! configuration, threads, formatting or report code.

/// Step of the trapezoidal rule in `u = ln t`.
const STEP: f64 = 0.28;
/// The integrand `e^{2v - e^v}` is below `1e-14` of its integral outside
/// `[V_LO, V_HI]`.
const V_LO: f64 = -16.0;
const V_HI: f64 = 3.8;
/// Below this many distinct values the direct sum over pairs is cheaper.
pub const DIRECT_MAX: usize = 400;
/// Values spanning more than `e^SPAN_MAX` (positive ones) use the direct
/// sum: the squared nodes would leave the range of `f64`.
const SPAN_MAX: f64 = 300.0;

/// `((a - b) / (a + b))^2`, 0 when `a + b = 0`.
#[inline]
pub fn distance(a: f64, b: f64) -> f64 {
    let s = a + b;
    let t = (a - b) / s;
    // A select rather than a branch, so the loops over pairs vectorise.
    if s == 0.0 {
        0.0
    } else {
        t * t
    }
}

/// `sum_{k,l} n_k n_l d(x_k, x_l)` over every pair of entries, directly.
pub fn direct(n: &[f64], x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for (i, (&c, &a)) in n.iter().zip(x).enumerate() {
        let inner: f64 = n[i + 1..]
            .iter()
            .zip(&x[i + 1..])
            .map(|(&c2, &b)| c2 * distance(a, b))
            .sum();
        sum += c * inner;
    }
    2.0 * sum
}

/// `sum_{k,l} n_k n_l d(x_k, x_l)` over the entries with `n_k != 0`: the
/// direct sum for few values or values of both signs, the quadrature
/// otherwise.
pub fn expected(n: &[f64], x: &[f64]) -> f64 {
    let (n, x): (Vec<f64>, Vec<f64>) = n
        .iter()
        .zip(x)
        .filter(|(c, _)| **c != 0.0)
        .map(|(&c, &v)| (c, v))
        .unzip();
    match Nodes::new(&x) {
        Some(nodes) if x.len() > DIRECT_MAX => {
            let stats = nodes.moments(n.iter().copied().zip(x.iter().copied()));
            nodes.integrate(&stats)
        }
        _ => direct(&n, &x),
    }
}

/// The quadrature nodes `t_j` (for values divided by `scale`).
#[derive(Clone, Debug)]
pub struct Nodes {
    t: Vec<f64>,
    scale: f64,
    /// True when the values are all `<= 0` (negated: `d(-a, -b) = d(a, b)`).
    negate: bool,
}

/// Per node, a group's total weight, weighted mean and centred sum of
/// squares (`3 x nodes` numbers, node-major within each array).
#[derive(Clone, Debug, Default)]
pub struct Moments {
    pub w: Vec<f64>,
    /// `w * mean` (pooled means sum it).
    pub wm: Vec<f64>,
    pub mean: Vec<f64>,
    pub ss: Vec<f64>,
}

impl Nodes {
    /// The nodes covering every pair of `values` (any order, repeats
    /// allowed); `None` when they have both signs, are not finite, or
    /// span too many orders of magnitude (use [`direct`]).
    pub fn new(values: &[f64]) -> Option<Nodes> {
        let finite = values.iter().all(|v| v.is_finite());
        let negate = values.iter().all(|&v| v <= 0.0);
        if !finite || (!negate && values.iter().any(|&v| v < 0.0)) {
            return None;
        }
        let abs = values.iter().map(|v| v.abs());
        let scale = abs.clone().fold(0.0, f64::max);
        let min_pos = abs.filter(|&v| v > 0.0).fold(f64::INFINITY, f64::min);
        if scale == 0.0 {
            return None;
        }
        // Pair sums s lie in [min_pos, 2] after rescaling; node u covers
        // the pair s while u + ln s is in [V_LO, V_HI].
        let (lo, hi) = (V_LO - 2f64.ln(), V_HI - (min_pos / scale).ln());
        if hi - lo > SPAN_MAX {
            return None;
        }
        let count = ((hi - lo) / STEP).ceil() as usize + 1;
        let t = (0..count).map(|j| (lo + j as f64 * STEP).exp()).collect();
        Some(Nodes { t, scale, negate })
    }

    /// Number of nodes.
    pub fn count(&self) -> usize {
        self.t.len()
    }

    /// The moments at every node of the `(count, value)` entries.
    pub fn moments(&self, entries: impl Iterator<Item = (f64, f64)>) -> Moments {
        let sign = if self.negate { -1.0 } else { 1.0 };
        let (m, y): (Vec<f64>, Vec<f64>) = entries.map(|(c, v)| (c, sign * v / self.scale)).unzip();
        let mut e = vec![0.0; m.len()];
        let mut out = Moments::default();
        for &t in &self.t {
            for ((e, &c), &y) in e.iter_mut().zip(&m).zip(&y) {
                *e = c * (-t * y).exp();
            }
            let w: f64 = e.iter().sum();
            let (mean, ss) = if w > 0.0 {
                let mean = e.iter().zip(&y).map(|(e, y)| e * y).sum::<f64>() / w;
                let ss = e
                    .iter()
                    .zip(&y)
                    .map(|(e, y)| e * (y - mean) * (y - mean))
                    .sum();
                (mean, ss)
            } else {
                (0.0, 0.0)
            };
            out.w.push(w);
            out.wm.push(w * mean);
            out.mean.push(mean);
            out.ss.push(ss);
        }
        out
    }

    /// `E = h sum_j t_j^2 2 W_j SS_j` (`dt = t du`).
    pub fn integrate(&self, m: &Moments) -> f64 {
        let sum: f64 = self
            .t
            .iter()
            .zip(m.w.iter().zip(&m.ss))
            .map(|(t, (w, ss))| t * t * w * ss)
            .sum();
        2.0 * STEP * sum
    }

    /// The moments of groups drawn `draws[g]` times each, pooled: total
    /// weight, mean, and within- plus between-group sums of squares (two
    /// passes of loops over the nodes that vectorise).
    pub fn pool(&self, groups: &[Moments], draws: &[u32]) -> Moments {
        let k = self.count();
        let (mut w, mut wm, mut ss) = (vec![0.0; k], vec![0.0; k], vec![0.0; k]);
        let drawn = || {
            draws
                .iter()
                .zip(groups)
                .filter(|(&c, _)| c > 0)
                .map(|(&c, g)| (f64::from(c), g))
        };
        let axpy = |c: f64, x: &[f64], y: &mut [f64]| {
            for (y, x) in y.iter_mut().zip(x) {
                *y += c * x;
            }
        };
        for (c, g) in drawn() {
            axpy(c, &g.w, &mut w);
            axpy(c, &g.wm, &mut wm);
            axpy(c, &g.ss, &mut ss);
        }
        let mean: Vec<f64> = (w.iter().zip(&wm))
            .map(|(&w, &m)| if w > 0.0 { m / w } else { 0.0 })
            .collect();
        for (c, g) in drawn() {
            let between = ss.iter_mut().zip(g.w.iter().zip(&g.mean)).zip(&mean);
            for ((s, (&gw, &gm)), &m) in between {
                let d = gm - m;
                *s += c * gw * d * d;
            }
        }
        Moments { w, wm, mean, ss }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::Lcg;
    use proptest::prelude::*;

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs().max(f64::MIN_POSITIVE)
    }

    /// Distinct values of a kind, with counts (ties: counts above one).
    fn data(seed: u64, d: usize, kind: u8) -> (Vec<f64>, Vec<f64>) {
        let mut g = Lcg(seed);
        let mut x: Vec<f64> = (0..d)
            .map(|i| match kind {
                // One decimal on 0..100, zero included.
                0 => (i as f64 / 10.0).min(100.0),
                // Six orders of magnitude.
                1 => 10f64.powf(g.next() * 6.0 - 3.0),
                // Concentrated far from zero: 1000 +- 0.5.
                2 => 1000.0 + g.next() - 0.5,
                // Zeros and a few large values.
                3 => {
                    if i % 3 == 0 {
                        0.0
                    } else {
                        g.next() * 1e6
                    }
                }
                // All non-positive.
                _ => -(g.next() * 50.0),
            })
            .collect();
        if kind == 3 {
            x[d - 1] = 0.0;
            x[0] = 7.5;
        }
        let n = (0..d)
            .map(|_| 1.0 + (g.next() * 20.0).floor() * f64::from(u8::from(g.next() < 0.3)))
            .collect();
        (n, x)
    }

    #[test]
    fn quadrature_equals_the_direct_sum_on_varied_data() {
        for kind in 0..5 {
            for (seed, d) in [(1, 2), (2, 3), (3, 50), (4, 700), (5, 1500)] {
                let (n, x) = data(seed, d, kind);
                let nodes = Nodes::new(&x).expect("one sign");
                let q = nodes.integrate(&nodes.moments(n.iter().copied().zip(x.iter().copied())));
                let want = direct(&n, &x);
                assert!(rel(q, want) < 1e-10, "kind {kind} d {d}: {q} vs {want}");
                assert!(rel(expected(&n, &x), want) < 1e-10);
            }
        }
    }

    proptest! {
        // A fixed seed: the same cases on every run (a failure is a
        // finding, not luck), and no regression file is written.
        #![proptest_config(ProptestConfig {
            rng_seed: proptest::test_runner::RngSeed::Fixed(25),
            failure_persistence: None,
            ..ProptestConfig::default()
        })]
        /// The quadrature's own error is below 2.5e-13; rounding adds
        /// about 1e-16 times the values' size over their spread (the
        /// centred sums of squares of values nearly equal to each other:
        /// two values near 1000, 3e-4 apart, give 3.4e-10, the worst of
        /// 105,000 cases scanned), which the bound allows for.
        #[test]
        fn quadrature_equals_the_direct_sum(
            seed in 0u64..10_000, d in 2usize..300, kind in 0u8..5
        ) {
            let (n, x) = data(seed, d, kind);
            let nodes = Nodes::new(&x).unwrap();
            let q = nodes.integrate(&nodes.moments(n.iter().copied().zip(x.iter().copied())));
            let want = direct(&n, &x);
            let hi = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let spread = x.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v))
                - x.iter().fold(f64::INFINITY, |m, &v| m.min(v));
            let bound = 1e-10 + 1e-14 * hi / spread.max(f64::MIN_POSITIVE);
            prop_assert!(rel(q, want) < bound, "{} vs {} (bound {})", q, want, bound);
        }
    }

    /// The case that found the rounding term: two values near 1000 very
    /// close together (relative error 3.4e-10, within its bound).
    #[test]
    fn nearly_equal_values_far_from_zero() {
        let (n, x) = data(1690, 2, 2);
        let nodes = Nodes::new(&x).unwrap();
        let q = nodes.integrate(&nodes.moments(n.iter().copied().zip(x.iter().copied())));
        let want = direct(&n, &x);
        let spread = (x[0] - x[1]).abs();
        assert!(
            rel(q, want) < 1e-10 + 1e-14 * 1000.5 / spread,
            "{q} vs {want}"
        );
        assert!(rel(q, want) < 1e-9);
    }

    #[test]
    fn pooled_groups_equal_the_whole() {
        let (n, x) = data(9, 900, 0);
        let nodes = Nodes::new(&x).unwrap();
        // Three groups sharing the values; drawn 2, 0 and 1 times.
        let parts: Vec<Vec<(f64, f64)>> = (0..3)
            .map(|g| {
                n.iter()
                    .zip(&x)
                    .enumerate()
                    .filter(|(i, _)| i % 3 == g)
                    .map(|(_, (&c, &v))| (c, v))
                    .collect()
            })
            .collect();
        let groups: Vec<Moments> = parts
            .iter()
            .map(|p| nodes.moments(p.iter().copied()))
            .collect();
        let pooled = nodes.integrate(&nodes.pool(&groups, &[2, 0, 1]));
        let (mut n2, mut x2) = (Vec::new(), Vec::new());
        for (g, times) in [(0, 2.0), (2, 1.0)] {
            for &(c, v) in &parts[g] {
                n2.push(c * times);
                x2.push(v);
            }
        }
        let want = direct(&n2, &x2);
        assert!(rel(pooled, want) < 1e-10, "{pooled} vs {want}");
    }

    #[test]
    fn signs_zeros_and_degenerate_values() {
        // Both signs: the direct sum (a + b = 0 gives 0).
        assert!(Nodes::new(&[-1.0, 2.0]).is_none());
        assert_eq!(expected(&[1.0, 1.0], &[-1.0, 1.0]), 0.0);
        // Only zeros: nothing to integrate.
        assert!(Nodes::new(&[0.0, 0.0]).is_none());
        // 0 against any positive value is at distance 1.
        assert_eq!(direct(&[2.0, 3.0], &[0.0, 5.0]), 12.0);
        let nodes = Nodes::new(&[0.0, 5.0]).unwrap();
        let q = nodes.integrate(&nodes.moments([(2.0, 0.0), (3.0, 5.0)].into_iter()));
        assert!(rel(q, 12.0) < 1e-12, "{q}");
        // A hand value: d(1, 3) = (2/4)^2 = 1/4; E = 2 n_1 n_3 / 4.
        assert_eq!(direct(&[1.0, 2.0], &[1.0, 3.0]), 1.0);
        assert!(!f64::NAN.is_finite() && Nodes::new(&[1.0, f64::NAN]).is_none());
    }
}
