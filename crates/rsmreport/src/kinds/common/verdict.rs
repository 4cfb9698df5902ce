//! The one verdict on a candidate against a baseline (compare spec 2.3,
//! amended), every kind's (`compare`, `summarize`, `classify`,
//! `sequence`, `spans`): the words, what each means, and the rule that
//! turns an interval of the oriented change (`gain`, positive is better),
//! a practical margin, a Holm-adjusted p-value (a row among several tested
//! together: a subgroup's levels, a candidate's metrics) and the pairing
//! into one word. A comparison row ([`super::comparison`]) carries it.
//!
//! Pure: numbers in, a word out; no I/O, no statistic computed here.

/// The verdict on a difference (compare spec 2.3, amended).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Better, by more than the margin (`lo > m`).
    Improved,
    /// Worse, by more than the margin (`hi < -m`).
    Regressed,
    /// Better, but perhaps by less than the margin (`lo > 0`, `lo <= m < hi`).
    LikelyImproved,
    /// Worse, perhaps by more than the margin (`hi < 0`, `lo < -m <= hi`).
    LikelyRegressed,
    /// A real change too small to matter (`-m <= lo`, `hi <= m`, 0 outside).
    ChangedWithinMargin,
    /// No change larger than the margin (`-m <= lo`, `hi <= m`, 0 inside).
    Equivalent,
    /// The data cannot tell (0 inside, the interval reaches past a margin).
    NoDetectableChange,
    /// A per-level change whose Holm-adjusted p-value is not below `1 -
    /// level`.
    NoDetectableChangeAfterHolm,
    /// No interval (stored estimates only, or a NaN end).
    NotTestable,
    /// The two sides' score scales differ (different trim ranges): an
    /// agreement rate or RMSE of one is not comparable with the other's.
    NotComparable,
}

impl Verdict {
    /// Every verdict, in the order the report explains them.
    pub const ALL: [Verdict; 10] = [
        Verdict::Improved,
        Verdict::LikelyImproved,
        Verdict::ChangedWithinMargin,
        Verdict::Equivalent,
        Verdict::NoDetectableChange,
        Verdict::NoDetectableChangeAfterHolm,
        Verdict::LikelyRegressed,
        Verdict::Regressed,
        Verdict::NotTestable,
        Verdict::NotComparable,
    ];

    /// The word of the verdict tables.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Improved => "improved",
            Verdict::Regressed => "regressed",
            Verdict::LikelyImproved => "likely improved",
            Verdict::LikelyRegressed => "likely regressed",
            Verdict::ChangedWithinMargin => "changed within margin",
            Verdict::Equivalent => "equivalent",
            Verdict::NoDetectableChange => "no detectable change",
            Verdict::NoDetectableChangeAfterHolm => "no detectable change (after Holm)",
            Verdict::NotTestable => "not testable",
            Verdict::NotComparable => "not comparable",
        }
    }

    /// The condition on the gain's interval `[lo, hi]` and the margin `m`.
    pub fn condition(self) -> &'static str {
        match self {
            Verdict::Improved => "lo > m",
            Verdict::Regressed => "hi < -m",
            Verdict::LikelyImproved => "lo > 0 and lo <= m < hi",
            Verdict::LikelyRegressed => "hi < 0 and lo < -m <= hi",
            Verdict::ChangedWithinMargin => "-m <= lo, hi <= m, 0 outside [lo, hi]",
            Verdict::Equivalent => "-m <= lo, hi <= m, 0 inside [lo, hi]",
            Verdict::NoDetectableChange => "0 inside [lo, hi], which reaches past a margin",
            Verdict::NoDetectableChangeAfterHolm => {
                "a subgroup level's change whose Holm-adjusted p-value is not below 1 - level"
            }
            Verdict::NotTestable => "no interval",
            Verdict::NotComparable => "the two sides' score scales (trim ranges) differ",
        }
    }

    /// What the word means for the reader (compare spec 2.3).
    pub fn meaning(self) -> &'static str {
        match self {
            Verdict::Improved => "better, by more than the margin",
            Verdict::Regressed => "worse, by more than the margin",
            Verdict::LikelyImproved => "better, but it may be by less than the margin",
            Verdict::LikelyRegressed => "worse, and it may be by more than the margin",
            Verdict::ChangedWithinMargin => "a real change too small to matter",
            Verdict::Equivalent => "no change larger than the margin",
            Verdict::NoDetectableChange => "the data cannot tell",
            Verdict::NoDetectableChangeAfterHolm => {
                "a level's change that does not survive the correction for testing every level \
                 of its subgroup"
            }
            Verdict::NotTestable => {
                "no interval: only the stored estimates could be compared (no per-response files)"
            }
            Verdict::NotComparable => {
                "an agreement rate or RMSE on two different score scales: the numbers cannot be \
                 compared"
            }
        }
    }

    /// Whether the verdict says the candidate is better (`Some(true)`),
    /// worse (`Some(false)`) or neither.
    pub fn direction(self) -> Option<bool> {
        match self {
            Verdict::Improved | Verdict::LikelyImproved => Some(true),
            Verdict::Regressed | Verdict::LikelyRegressed => Some(false),
            _ => None,
        }
    }
}

impl std::fmt::Display for Verdict {
    /// The word ([`Verdict::name`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What else a verdict depends on besides the interval and the margin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rules {
    /// The differences come from paired responses; unpaired ones (different
    /// responses, compare spec 2.4) are never stronger than `likely
    /// improved` / `likely regressed`.
    pub paired: bool,
    /// For a subgroup level: its Holm-adjusted p-value and the confidence
    /// level; a verdict other than `equivalent` or `no detectable change`
    /// needs `p_holm < 1 - level`.
    pub holm: Option<(f64, f64)>,
}

impl Rules {
    /// A whole-set difference on paired responses.
    pub const PAIRED: Rules = Rules {
        paired: true,
        holm: None,
    };
}

/// The verdict (compare spec 2.3, amended) on the interval `[lo, hi]` of
/// the oriented change `gain` (positive is better; see
/// [`super::comparison::ComparisonRow::gain`]) with the practical margin
/// `margin` (>= 0), under `rules`:
///
/// | condition | verdict |
/// |---|---|
/// | `lo > m` | improved |
/// | `hi < -m` | regressed |
/// | `lo > 0`, `lo <= m < hi` | likely improved |
/// | `hi < 0`, `lo < -m <= hi` | likely regressed |
/// | `-m <= lo`, `hi <= m`, 0 outside | changed within margin |
/// | `-m <= lo`, `hi <= m`, 0 inside | equivalent |
/// | otherwise | no detectable change |
///
/// then, for a subgroup level (`rules.holm = Some((p_holm, level))`), any
/// verdict but `equivalent` and `no detectable change` becomes `no
/// detectable change (after Holm)` unless `p_holm < 1 - level`; and when
/// `rules.paired` is false, `improved` / `regressed` become `likely
/// improved` / `likely regressed`. A NaN end is `not testable`.
pub fn verdict(lo: f64, hi: f64, margin: f64, rules: Rules) -> Verdict {
    use Verdict::*;
    if lo.is_nan() || hi.is_nan() {
        return NotTestable;
    }
    let m = margin;
    let word = if lo > m {
        Improved
    } else if hi < -m {
        Regressed
    } else if lo > 0.0 && hi > m {
        LikelyImproved
    } else if hi < 0.0 && lo < -m {
        LikelyRegressed
    } else if -m <= lo && hi <= m {
        if lo > 0.0 || hi < 0.0 {
            ChangedWithinMargin
        } else {
            Equivalent
        }
    } else {
        NoDetectableChange
    };
    // A NaN p-value does not pass.
    let passes = |p: f64, level: f64| p < 1.0 - level;
    let word = match rules.holm {
        Some((p_holm, level))
            if !matches!(word, Equivalent | NoDetectableChange) && !passes(p_holm, level) =>
        {
            NoDetectableChangeAfterHolm
        }
        _ => word,
    };
    match (rules.paired, word) {
        (false, Improved) => LikelyImproved,
        (false, Regressed) => LikelyRegressed,
        (_, w) => w,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Verdict::*;

    const P: Rules = Rules::PAIRED;

    #[test]
    fn the_words_follow_the_table_of_spec_2_3() {
        let m = 0.01;
        assert_eq!(verdict(0.02, 0.05, m, P), Improved);
        assert_eq!(verdict(-0.05, -0.02, m, P), Regressed);
        assert_eq!(verdict(0.005, 0.03, m, P), LikelyImproved);
        // The case: [-0.038, -0.009] may be four times the margin.
        assert_eq!(verdict(-0.038, -0.009, m, P), LikelyRegressed);
        assert_eq!(verdict(0.002, 0.008, m, P), ChangedWithinMargin);
        assert_eq!(verdict(-0.008, -0.001, m, P), ChangedWithinMargin);
        assert_eq!(verdict(-0.004, 0.006, m, P), Equivalent);
        // A self-comparison is exactly equivalent.
        assert_eq!(verdict(0.0, 0.0, m, P), Equivalent);
        assert_eq!(verdict(-0.01, 0.02, m, P), NoDetectableChange);
        assert_eq!(verdict(-0.5, 0.5, m, P), NoDetectableChange);
        // The margin's edges: not beyond it.
        assert_eq!(verdict(0.01, 0.05, m, P), LikelyImproved);
        assert_eq!(verdict(-0.01, 0.01, m, P), Equivalent);
        assert_eq!(verdict(-0.05, -0.01, m, P), LikelyRegressed);
        assert_eq!(verdict(f64::NAN, 0.1, m, P), NotTestable);
        assert_eq!(verdict(0.0, f64::NAN, m, P), NotTestable);
    }

    /// Every interval gets exactly the word its condition describes: the
    /// conditions of the table partition the plane of `(lo, hi)`.
    #[test]
    fn each_interval_meets_exactly_one_condition() {
        let m = 0.01;
        let grid: Vec<f64> = (-30..=30).map(|i| f64::from(i) * 0.001).collect();
        for &lo in &grid {
            for &hi in grid.iter().filter(|&&h| h >= lo) {
                let conditions = [
                    (lo > m, Improved),
                    (hi < -m, Regressed),
                    (lo > 0.0 && lo <= m && m < hi, LikelyImproved),
                    (hi < 0.0 && lo < -m && -m <= hi, LikelyRegressed),
                    (
                        -m <= lo && hi <= m && (lo > 0.0 || hi < 0.0),
                        ChangedWithinMargin,
                    ),
                    (-m <= lo && hi <= m && lo <= 0.0 && 0.0 <= hi, Equivalent),
                ];
                let met: Vec<Verdict> = conditions
                    .iter()
                    .filter(|(c, _)| *c)
                    .map(|(_, v)| *v)
                    .collect();
                assert!(met.len() <= 1, "[{lo}, {hi}]: {met:?}");
                let want = met.first().copied().unwrap_or(NoDetectableChange);
                assert_eq!(verdict(lo, hi, m, P), want, "[{lo}, {hi}]");
            }
        }
    }

    #[test]
    fn a_level_needs_its_holm_adjusted_p_value() {
        let level = |p| Rules {
            paired: true,
            holm: Some((p, 0.95)),
        };
        assert_eq!(verdict(0.02, 0.05, 0.01, level(0.01)), Improved);
        assert_eq!(
            verdict(0.02, 0.05, 0.01, level(0.13)),
            NoDetectableChangeAfterHolm
        );
        assert_eq!(
            verdict(0.002, 0.008, 0.01, level(0.06)),
            NoDetectableChangeAfterHolm
        );
        assert_eq!(
            verdict(0.002, 0.008, 0.01, level(0.049)),
            ChangedWithinMargin
        );
        // Equivalent and no detectable change need no test.
        assert_eq!(verdict(-0.004, 0.006, 0.01, level(1.0)), Equivalent);
        assert_eq!(verdict(-0.5, 0.5, 0.01, level(1.0)), NoDetectableChange);
        assert_eq!(
            verdict(0.02, 0.05, 0.01, level(f64::NAN)),
            NoDetectableChangeAfterHolm
        );
    }

    #[test]
    fn unpaired_differences_say_likely_at_most() {
        let u = Rules {
            paired: false,
            holm: None,
        };
        assert_eq!(verdict(0.02, 0.05, 0.01, u), LikelyImproved);
        assert_eq!(verdict(-0.05, -0.02, 0.01, u), LikelyRegressed);
        assert_eq!(verdict(-0.004, 0.006, 0.01, u), Equivalent);
    }

    #[test]
    fn every_word_is_explained() {
        for v in Verdict::ALL {
            assert!(!v.meaning().is_empty() && !v.condition().is_empty());
        }
        let mut names: Vec<&str> = Verdict::ALL.iter().map(|v| v.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Verdict::ALL.len());
    }
}
