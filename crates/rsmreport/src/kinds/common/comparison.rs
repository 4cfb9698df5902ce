//! The one candidate-against-baseline row of every kind that compares
//! ([`ComparisonRow`]: classify's and sequence's systems, spans'
//! annotators, compare's and summarize's model versions), its verdict
//! with Holm's adjustment across rows tested together
//! ([`adjust_holm`]), and the one table of such rows: the one column list
//! ([`COLUMNS`], [`Field`]) and the one function that turns rows into the
//! [`Frame`] of a comparison table ([`frame`]). A kind chooses which of
//! the columns its table has, in their one order, and adds its own (a
//! kind-specific extra such as classify's McNemar p-value) by name and
//! cells; it never retypes a shared column's name.
//!
//! Pure: rows in, a frame out; no I/O, no statistic computed here (the
//! kinds compute the differences, intervals and p-values).

use rsmreport_core::table::{text_values, Column as FrameColumn, Frame, Values};
use rsmreport_metrics::bootstrap::Interval;
use rsmreport_metrics::paired::holm;

use super::verdict::{verdict, Rules, Verdict};

/// A statistic's estimate with its interval; NaN ends: no interval (an
/// empty cell in the tables).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub value: f64,
    pub lower: f64,
    pub upper: f64,
}

impl Estimate {
    pub fn new(value: f64, lower: f64, upper: f64) -> Estimate {
        Estimate {
            value,
            lower,
            upper,
        }
    }

    /// An estimate without interval.
    pub fn point(value: f64) -> Estimate {
        Estimate::new(value, f64::NAN, f64::NAN)
    }

    /// `value` with the ends of `interval`.
    pub fn with(value: f64, interval: &Interval) -> Estimate {
        Estimate::new(value, interval.lower, interval.upper)
    }

    /// The estimate and interval of the negated statistic: `-value` in
    /// `[-upper, -lower]` (the gain of a statistic where smaller is
    /// better).
    pub fn negated(self) -> Estimate {
        Estimate::new(-self.value, -self.upper, -self.lower)
    }
}

/// A candidate against the baseline on one statistic in one scope.
#[derive(Clone, Debug, PartialEq)]
pub struct ComparisonRow<X = ()> {
    /// The compared systems: indices into the kind's list (classify's and
    /// sequence's systems, spans' annotators; compare's two folders: 0 the
    /// baseline, 1 the candidate).
    pub baseline_system: usize,
    pub candidate_system: usize,
    /// `overall`, or the part of the data compared (classify
    /// `class=<label>`, spans `label=<label>`, compare `<subgroup>=<level>`
    /// or the level alone in its by-level table).
    pub scope: String,
    /// The statistic's name (`accuracy`, `bleu`, `micro_f1`, `wtkappa`).
    pub statistic: String,
    /// Each side's estimate, with its interval where the kind computes one.
    pub baseline: Estimate,
    pub candidate: Estimate,
    /// The signed `candidate - baseline`, with its paired interval.
    pub delta: Estimate,
    /// The oriented change the verdict is taken on (positive is better:
    /// the delta, negated where smaller is better; compare's `SMD` and
    /// `DSM`: the change of the distance from 0), with its interval.
    pub gain: Estimate,
    /// The bootstrap p-value of the gain (NaN without one).
    pub p_value: f64,
    /// Holm-adjusted across the rows tested together (NaN when not
    /// adjusted).
    pub p_holm: f64,
    pub verdict: Verdict,
    /// The practical margin of the verdict (NaN without one).
    pub margin: f64,
    /// From paired units (the same items, segments, documents or
    /// responses on both sides; unpaired differences are never stronger
    /// than `likely improved` / `likely regressed`).
    pub paired: bool,
    /// What the kind adds (classify: McNemar's p-value; sequence:
    /// sacreBLEU's p-values; compare: the statistic's orientation and the
    /// analytic cross-check).
    pub extra: X,
}

impl<X> ComparisonRow<X> {
    /// The verdict (compare spec 2.3) on the gain's interval, the margin
    /// and the pairing; with `holm_level`, also Holm's p-value against
    /// `1 - level` (a row among several tested together).
    pub fn judged(&self, holm_level: Option<f64>) -> Verdict {
        let rules = Rules {
            paired: self.paired,
            holm: holm_level.map(|level| (self.p_holm, level)),
        };
        verdict(self.gain.lower, self.gain.upper, self.margin, rules)
    }

    /// The same row with `extra` instead.
    pub fn with_extra<Y>(self, extra: Y) -> ComparisonRow<Y> {
        ComparisonRow {
            baseline_system: self.baseline_system,
            candidate_system: self.candidate_system,
            scope: self.scope,
            statistic: self.statistic,
            baseline: self.baseline,
            candidate: self.candidate,
            delta: self.delta,
            gain: self.gain,
            p_value: self.p_value,
            p_holm: self.p_holm,
            verdict: self.verdict,
            margin: self.margin,
            paired: self.paired,
            extra,
        }
    }
}

/// Holm's adjustment (`metrics::paired::holm`) of the p-values of `rows`,
/// tested together: each row's `p_holm` set and its verdict taken again
/// with it at confidence `level` (compare spec 2.3).
pub fn adjust_holm<X>(rows: &mut [ComparisonRow<X>], level: f64) {
    let adjusted = holm(&rows.iter().map(|r| r.p_value).collect::<Vec<_>>());
    for (r, p) in rows.iter_mut().zip(adjusted) {
        r.p_holm = p;
        r.verdict = r.judged(Some(level));
    }
}

/// The columns of a comparison table, in their one order: every kind's
/// table has some of them in this order (and its own columns added).
pub const COLUMNS: [&str; 21] = [
    "baseline_system",
    "system",
    "scope",
    "statistic",
    "baseline",
    "baseline_lower",
    "baseline_upper",
    "candidate",
    "candidate_lower",
    "candidate_upper",
    "delta",
    "delta_lower",
    "delta_upper",
    "gain",
    "gain_lower",
    "gain_upper",
    "p_value",
    "p_holm",
    "verdict",
    "paired",
    "margin",
];

/// A column of [`COLUMNS`]: a field of the row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Field {
    BaselineSystem,
    System,
    Scope,
    Statistic,
    Baseline,
    BaselineLower,
    BaselineUpper,
    Candidate,
    CandidateLower,
    CandidateUpper,
    Delta,
    DeltaLower,
    DeltaUpper,
    Gain,
    GainLower,
    GainUpper,
    PValue,
    PHolm,
    Verdict,
    Paired,
    Margin,
}

impl Field {
    /// Every field, in the order of [`COLUMNS`].
    pub const ALL: [Field; 21] = [
        Field::BaselineSystem,
        Field::System,
        Field::Scope,
        Field::Statistic,
        Field::Baseline,
        Field::BaselineLower,
        Field::BaselineUpper,
        Field::Candidate,
        Field::CandidateLower,
        Field::CandidateUpper,
        Field::Delta,
        Field::DeltaLower,
        Field::DeltaUpper,
        Field::Gain,
        Field::GainLower,
        Field::GainUpper,
        Field::PValue,
        Field::PHolm,
        Field::Verdict,
        Field::Paired,
        Field::Margin,
    ];

    /// The column's name.
    pub fn name(self) -> &'static str {
        COLUMNS[self as usize]
    }

    /// The fields from `first` to `last` (both included), in their order.
    pub fn span(first: Field, last: Field) -> impl Iterator<Item = Field> {
        Field::ALL[first as usize..=last as usize].iter().copied()
    }
}

/// A column of a comparison table: a field of the rows, or one of the
/// kind's own (its name and its cells, one per row).
#[derive(Clone, Debug)]
pub enum Column {
    Field(Field),
    Own(String, Values),
}

impl Column {
    /// The fields from `first` to `last` as columns.
    pub fn span(first: Field, last: Field) -> impl Iterator<Item = Column> {
        Field::span(first, last).map(Column::Field)
    }

    /// A column of the kind's own numbers.
    pub fn floats(name: &str, cells: impl IntoIterator<Item = f64>) -> Column {
        Column::Own(name.to_string(), Values::Float(cells.into_iter().collect()))
    }
}

/// How the `paired` column spells the pairing: `true` / `false` (classify,
/// compare), or Python's `True` / `False` (sequence, whose tables follow
/// sacreBLEU's and pandas' output).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spelling {
    Lower,
    Python,
}

/// The table `name` of `rows` with `columns` (`systems`: the names the
/// row's system indices point to; `paired`: the spelling of the `paired`
/// column).
pub fn frame<X>(
    name: &str,
    rows: &[&ComparisonRow<X>],
    columns: Vec<Column>,
    systems: &[&str],
    paired: Spelling,
) -> Frame {
    let num = |f: fn(&ComparisonRow<X>) -> f64| Values::Float(rows.iter().map(|r| f(r)).collect());
    let text = |cells: Vec<&str>| text_values(cells.into_iter().map(Some));
    let words = |f: fn(&ComparisonRow<X>) -> &str| text(rows.iter().map(|r| f(r)).collect());
    let columns = columns
        .into_iter()
        .map(|c| match c {
            Column::Own(name, values) => FrameColumn::new(name, values),
            Column::Field(field) => {
                let values = match field {
                    Field::BaselineSystem => {
                        text(rows.iter().map(|r| systems[r.baseline_system]).collect())
                    }
                    Field::System => {
                        text(rows.iter().map(|r| systems[r.candidate_system]).collect())
                    }
                    Field::Scope => words(|r| &r.scope),
                    Field::Statistic => words(|r| &r.statistic),
                    Field::Baseline => num(|r| r.baseline.value),
                    Field::BaselineLower => num(|r| r.baseline.lower),
                    Field::BaselineUpper => num(|r| r.baseline.upper),
                    Field::Candidate => num(|r| r.candidate.value),
                    Field::CandidateLower => num(|r| r.candidate.lower),
                    Field::CandidateUpper => num(|r| r.candidate.upper),
                    Field::Delta => num(|r| r.delta.value),
                    Field::DeltaLower => num(|r| r.delta.lower),
                    Field::DeltaUpper => num(|r| r.delta.upper),
                    Field::Gain => num(|r| r.gain.value),
                    Field::GainLower => num(|r| r.gain.lower),
                    Field::GainUpper => num(|r| r.gain.upper),
                    Field::PValue => num(|r| r.p_value),
                    Field::PHolm => num(|r| r.p_holm),
                    Field::Verdict => words(|r| r.verdict.name()),
                    Field::Paired => text(
                        rows.iter()
                            .map(|r| match (paired, r.paired) {
                                (Spelling::Lower, true) => "true",
                                (Spelling::Lower, false) => "false",
                                (Spelling::Python, true) => "True",
                                (Spelling::Python, false) => "False",
                            })
                            .collect(),
                    ),
                    Field::Margin => num(|r| r.margin),
                };
                FrameColumn::new(field.name(), values)
            }
        })
        .collect();
    Frame::new(name, None, columns)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(scope: &str, gain: (f64, f64, f64), p: f64) -> ComparisonRow {
        let g = Estimate::new(gain.0, gain.1, gain.2);
        ComparisonRow {
            baseline_system: 0,
            candidate_system: 1,
            scope: scope.into(),
            statistic: "f1".into(),
            baseline: Estimate::point(0.5),
            candidate: Estimate::new(0.5 + gain.0, f64::NAN, f64::NAN),
            delta: g,
            gain: g,
            p_value: p,
            p_holm: f64::NAN,
            verdict: Verdict::NotTestable,
            margin: 0.01,
            paired: true,
            extra: (),
        }
    }

    /// Holm by hand: p = 0.01, 0.04, 0.03 of three rows become 0.03, 0.06,
    /// 0.06; at 95% the first keeps its word, the others do not survive.
    #[test]
    fn holm_adjusts_and_judges_again() {
        let mut rows = vec![
            row("a", (0.05, 0.02, 0.08), 0.01),
            row("b", (0.05, 0.02, 0.08), 0.04),
            row("c", (0.05, 0.02, 0.08), 0.03),
        ];
        adjust_holm(&mut rows, 0.95);
        let p: Vec<f64> = rows.iter().map(|r| r.p_holm).collect();
        assert!(
            (p[0] - 0.03).abs() < 1e-15 && (p[1] - 0.06).abs() < 1e-15,
            "{p:?}"
        );
        assert_eq!(rows[0].verdict, Verdict::Improved);
        assert_eq!(rows[1].verdict, Verdict::NoDetectableChangeAfterHolm);
        assert_eq!(rows[2].verdict, Verdict::NoDetectableChangeAfterHolm);
        let mut unpaired = row("d", (0.05, 0.02, 0.08), 0.01);
        unpaired.paired = false;
        assert_eq!(unpaired.judged(None), Verdict::LikelyImproved);
    }

    /// A kind's table: the chosen fields in their one order with the
    /// shared names, the kind's own column where it puts it, the systems
    /// by name, NaN ends as they are, `paired` in the chosen spelling.
    #[test]
    fn tables_take_their_columns_from_the_one_list() {
        let r = row("overall", (0.05, 0.02, 0.08), 0.01);
        let columns: Vec<Column> = Column::span(Field::BaselineSystem, Field::Baseline)
            .chain([Column::Field(Field::Verdict), Column::Field(Field::Paired)])
            .chain([Column::floats("mine", [7.0])])
            .collect();
        let f = frame("t", &[&r], columns, &["old", "new"], Spelling::Python);
        let names: Vec<&str> = f.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "baseline_system",
                "system",
                "scope",
                "statistic",
                "baseline",
                "verdict",
                "paired",
                "mine"
            ]
        );
        let cell = |j: usize| f.columns[j].values.clone();
        assert_eq!(cell(1), text_values([Some("new")]));
        assert_eq!(cell(5), text_values([Some("not testable")]));
        assert_eq!(cell(6), text_values([Some("True")]));
        assert_eq!(cell(7), Values::Float(vec![7.0]));
        let empty = frame::<()>(
            "t",
            &[],
            Column::span(Field::Scope, Field::Delta).collect(),
            &[],
            Spelling::Lower,
        );
        assert_eq!(empty.nrows(), 0);
        assert_eq!(Field::ALL.map(Field::name), COLUMNS);
    }
}
