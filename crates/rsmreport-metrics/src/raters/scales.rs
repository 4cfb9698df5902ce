//! Stage 4 (metrics, pure): interpretation scales for agreement
//! coefficients (spec 6: Landis and Koch 1977, Grove et al. 1981,
//! Krippendorff 1980, Rietveld and van Hout 1993, Green 1997) and irrCAC's
//! probabilistic benchmarking (the first level, from the top, whose
//! cumulative membership probability reaches 0.95, the coefficient taken
//! as normal with its standard error, truncated to [-1, 1]).
//!
//! Pure maths on numbers: nothing here may touch files, tables,
//! configuration, threads, formatting or report code. A NaN coefficient
//! has no label, never a panic.

use statrs::distribution::{ContinuousCDF, Normal};

/// An interpretation scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scale {
    LandisKoch,
    Grove,
    Krippendorff,
    RietveldVanHout,
    Green,
}

impl Scale {
    /// Every scale, in the order of the report's reference table.
    pub const ALL: [Scale; 5] = [
        Scale::LandisKoch,
        Scale::Grove,
        Scale::Krippendorff,
        Scale::RietveldVanHout,
        Scale::Green,
    ];

    /// The configuration name (`interpretation = "landis-koch"`).
    pub fn key(self) -> &'static str {
        match self {
            Scale::LandisKoch => "landis-koch",
            Scale::Grove => "grove",
            Scale::Krippendorff => "krippendorff",
            Scale::RietveldVanHout => "rietveld-van-hout",
            Scale::Green => "green",
        }
    }

    /// The scale of a configuration name.
    pub fn from_key(key: &str) -> Option<Scale> {
        Scale::ALL.into_iter().find(|s| s.key() == key)
    }

    /// Levels from the lowest up: `(lower bound, label)`; a level runs
    /// from its bound (included) to the next one (excluded), the first
    /// from -1, the last to 1.
    pub fn levels(self) -> &'static [(f64, &'static str)] {
        match self {
            Scale::LandisKoch => &[
                (-1.0, "poor"),
                (0.0, "slight"),
                (0.2, "fair"),
                (0.4, "moderate"),
                (0.6, "substantial"),
                (0.8, "almost perfect"),
            ],
            Scale::Grove => &[(-1.0, "not acceptable"), (0.6, "acceptable")],
            Scale::Krippendorff => &[
                (-1.0, "discard"),
                (0.667, "tentative conclusions"),
                (0.8, "definite conclusions"),
            ],
            Scale::RietveldVanHout => &[
                (-1.0, "slight"),
                (0.2, "fair"),
                (0.4, "moderate"),
                (0.6, "substantial"),
                (0.8, "almost perfect"),
            ],
            Scale::Green => &[(-1.0, "low"), (0.4, "fair to good"), (0.75, "high")],
        }
    }

    /// The label of `value`: the highest level whose lower bound it
    /// reaches (values below -1 get the lowest). `None` for NaN.
    pub fn label(self, value: f64) -> Option<&'static str> {
        if value.is_nan() {
            return None;
        }
        let levels = self.levels();
        let level = levels
            .iter()
            .rev()
            .find(|(lo, _)| value >= *lo)
            .unwrap_or(&levels[0]);
        Some(level.1)
    }
}

/// irrCAC's benchmarking of a coefficient on a scale.
#[derive(Clone, Debug, PartialEq)]
pub struct Benchmark {
    /// Per level from the top: `(label, membership probability, cumulative
    /// probability)`.
    pub levels: Vec<(&'static str, f64, f64)>,
    /// The first level whose cumulative probability reaches 0.95.
    pub label: Option<&'static str>,
}

/// Membership probability of each level for a coefficient distributed
/// normally around `value` with standard deviation `se`, truncated to
/// [-1, 1] (irrCAC `landis.koch.bf` and friends); levels from the top,
/// cumulated. NaN value or standard error (or `se <= 0`): no label.
pub fn benchmark(scale: Scale, value: f64, se: f64) -> Benchmark {
    let levels = scale.levels();
    let Ok(normal) = Normal::new(value, se) else {
        return Benchmark {
            levels: Vec::new(),
            label: None,
        };
    };
    let total = normal.cdf(1.0) - normal.cdf(-1.0);
    let mut out = Vec::with_capacity(levels.len());
    let (mut cumulative, mut label) = (0.0, None);
    for (i, &(lo, name)) in levels.iter().enumerate().rev() {
        let hi = levels.get(i + 1).map_or(1.0, |l| l.0);
        let p = (normal.cdf(hi) - normal.cdf(lo)) / total;
        cumulative += p;
        if label.is_none() && cumulative >= 0.95 {
            label = Some(name);
        }
        out.push((name, p, cumulative));
    }
    Benchmark { levels: out, label }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spec 6: coefficient 0.77544, SE 0.14295 on Landis-Koch gives the
    /// cumulative probabilities 0.39674, 0.88336, 0.99542: "moderate".
    #[test]
    fn benchmark_landis_koch_published_pin() {
        let b = benchmark(Scale::LandisKoch, 0.77544, 0.14295);
        let cum: Vec<f64> = b.levels.iter().map(|l| l.2).collect();
        for (got, want) in cum.iter().zip([0.39674, 0.88336, 0.99542]) {
            assert!((got - want).abs() < 5e-6, "{got} vs {want}");
        }
        assert_eq!(b.label, Some("moderate"));
    }

    #[test]
    fn labels_on_every_scale() {
        assert_eq!(Scale::LandisKoch.label(-0.1), Some("poor"));
        assert_eq!(Scale::LandisKoch.label(0.2), Some("fair"));
        assert_eq!(Scale::LandisKoch.label(0.81), Some("almost perfect"));
        assert_eq!(Scale::Grove.label(0.61), Some("acceptable"));
        assert_eq!(
            Scale::Krippendorff.label(0.7),
            Some("tentative conclusions")
        );
        assert_eq!(Scale::RietveldVanHout.label(0.1), Some("slight"));
        assert_eq!(Scale::Green.label(0.5), Some("fair to good"));
        assert_eq!(Scale::Green.label(f64::NAN), None);
        assert_eq!(Scale::from_key("green"), Some(Scale::Green));
        assert!(benchmark(Scale::Green, f64::NAN, 0.1).label.is_none());
    }
}
