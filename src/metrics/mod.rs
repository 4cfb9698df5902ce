//! Stage 4: the maths. Every function takes plain `f64` slices (and group
//! codes) and returns numbers or small structs; nothing here reads or writes
//! files, knows about tables, templates or plots. Edge cases return `NaN`
//! exactly where the parity spec says, and never panic.

pub mod agreement;
pub mod association;
pub mod block;
pub mod bootstrap;
pub mod calibration;
pub mod classification;
pub mod distributions;
pub mod fairness;
pub mod ols;
pub mod pair_sums;
pub mod paired;
pub mod preferences;
pub mod prmse;
pub mod ranking;
pub mod raters;
pub mod summary;

pub use block::{metric_block, DiffMethod, MetricBlock};

/// Round half to even (numpy `rint`): 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> -0.
///
/// Bit-identical to `f64::round_ties_even` (sign of zero, NaN and
/// infinities included) without the libm call baseline x86-64 makes for it:
/// below 2^52, adding and subtracting 2^52 rounds to an integer with ties to
/// even (IEEE default rounding); larger magnitudes are already integers.
#[inline(always)]
pub fn round_half_even(x: f64) -> f64 {
    const TWO_52: f64 = 4_503_599_627_370_496.0;
    let t = x.abs();
    if t < TWO_52 {
        ((t + TWO_52) - TWO_52).copysign(x)
    } else {
        x
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_half_even_is_round_ties_even() {
        let mut state = 0x853c_49e6_748f_ea9bu64;
        let mut values = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            -2.5,
            3.5,
            0.5002,
            6.4998,
            0.49999999999999994,
            -0.49999999999999994,
            1e-310,
            -1e-310,
            4503599627370495.5,
            4503599627370496.0,
            4503599627370497.0,
            -4503599627370495.5,
            9007199254740993.0,
            1e300,
            -1e300,
            -1e-300,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        let mut g = super::test_util::Lcg(17);
        for _ in 0..10_000 {
            let v = (g.next() - 0.5) * 40.0;
            values.push(v);
            values.push((v * 2.0).round() / 2.0); // exact .5 ties
        }
        for _ in 0..100_000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            values.push(f64::from_bits(state));
            values.push((state >> 11) as f64 / 1024.0 - 4e12);
            values.push(((state >> 40) as f64) / 4.0 - 2e6);
        }
        for x in values {
            let (a, b) = (super::round_half_even(x), x.round_ties_even());
            assert!(
                a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan(),
                "{x:e}"
            );
        }
        assert!(super::round_half_even(f64::NAN).is_nan());
        // Spec V7.
        let v7 = [0.5, 1.5, 2.5, 3.5, -0.5, -1.5, 0.5002, 6.4998];
        let expected = [0.0, 2.0, 2.0, 4.0, -0.0, -2.0, 1.0, 6.0];
        for (v, e) in v7.iter().zip(expected) {
            assert_eq!(super::round_half_even(*v).to_bits(), f64::to_bits(e), "{v}");
        }
    }
}

/// Helpers shared by the metric unit tests.
#[cfg(test)]
pub(crate) mod test_util {
    /// Tiny deterministic LCG (Knuth MMIX constants) -> uniform [0, 1).
    pub(crate) struct Lcg(pub u64);

    impl Lcg {
        pub(crate) fn next(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }

        /// 64 random bits (two steps: the low bits of one LCG step are weak).
        pub(crate) fn next_u64(&mut self) -> u64 {
            let hi = (self.next() * 4294967296.0) as u64;
            let lo = (self.next() * 4294967296.0) as u64;
            (hi << 32) | lo
        }
    }
}
