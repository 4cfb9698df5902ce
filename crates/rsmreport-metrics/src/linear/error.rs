//! Errors of the linear-model mathematics.
//!
//! Every fallible function of the crate returns [`LinearError`]; its
//! `Display` text says what is wrong with the data in terms a user can act
//! on (which feature, which value, which row, which counts). Row numbers in
//! messages are 1-based positions in the slice that was passed in (the
//! caller maps them to file rows if it needs to).

use std::fmt;

use super::preprocess::{Partition, Transform};

/// What made a transform undefined (spec train.md 5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViolationKind {
    /// A value below 0 (`sqrt`, `addOneInv`, `addOneLn`).
    Negative,
    /// A value of 0 or below (`log`).
    NonPositive,
    /// A value of exactly 0 (`inv`).
    Zero,
    /// Both positive and negative values (`inv`).
    MixedSigns,
}

/// One transform whose error check failed: the feature, the transform, the
/// partition, the kind of violation, the first offending value and its row
/// (0-based index into the values passed in) and how many values offend.
#[derive(Debug, Clone, PartialEq)]
pub struct TransformViolation {
    /// Feature name.
    pub feature: String,
    /// The transform that is undefined.
    pub transform: Transform,
    /// Which partition the values came from.
    pub partition: Partition,
    /// What is wrong.
    pub kind: ViolationKind,
    /// 0-based index of the first offending value.
    pub row: usize,
    /// The first offending value (after truncation).
    pub value: f64,
    /// Number of offending values.
    pub count: usize,
}

impl fmt::Display for TransformViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            ViolationKind::Negative => "negative value(s)",
            ViolationKind::NonPositive => "value(s) that are 0 or negative",
            ViolationKind::Zero => "value(s) equal to 0",
            ViolationKind::MixedSigns => {
                "value(s) whose sign differs from the first non-zero value (mixed signs)"
            }
        };
        write!(
            f,
            "transform '{}' is undefined for feature '{}' in the {} partition: {} {}, \
             the first at row {} (value {})",
            self.transform,
            self.feature,
            self.partition,
            self.count,
            what,
            self.row + 1,
            self.value
        )
    }
}

/// Errors of the linear-model mathematics.
#[derive(Debug, Clone, PartialEq)]
pub enum LinearError {
    /// An input that needs rows or columns has none.
    Empty {
        /// What is empty.
        what: String,
    },
    /// Two inputs whose lengths must agree do not.
    LengthMismatch {
        /// What was measured.
        what: String,
        /// Expected length.
        expected: usize,
        /// Length found.
        found: usize,
    },
    /// A value that must be finite is NaN or infinite.
    NonFinite {
        /// Which input (feature name, `sc1`, ...).
        what: String,
        /// 0-based row index.
        row: usize,
        /// The value.
        value: f64,
    },
    /// A feature name occurs twice.
    DuplicateFeature {
        /// The name.
        name: String,
    },
    /// A feature name is not among the columns given.
    UnknownFeature {
        /// The name.
        name: String,
    },
    /// Fewer training responses than features + 1 (the reference silently
    /// fits a minimum-norm solution; `rsmreport` refuses, spec 15).
    TooFewRows {
        /// Number of responses.
        rows: usize,
        /// Number of features.
        features: usize,
    },
    /// LassoCV needs at least as many responses as folds.
    TooFewRowsForFolds {
        /// Number of responses.
        rows: usize,
        /// Number of folds.
        folds: usize,
    },
    /// A feature whose standard deviation is within 1e-7 of 0.
    ConstantFeature {
        /// The feature.
        feature: String,
        /// Its (first) value.
        value: f64,
    },
    /// The transformed training values have a standard deviation within
    /// 1e-7 of 0 (spec 5.4).
    ZeroSdAfterPreprocessing {
        /// The feature.
        feature: String,
        /// The transform applied.
        transform: Transform,
        /// The standard deviation found.
        sd: f64,
    },
    /// A transform is undefined for some values (spec 5.3).
    TransformUndefined(TransformViolation),
    /// NNLS gave every feature a zero coefficient (the reference crashes).
    EmptyNnlsSupport,
    /// A model's feature selection left no feature (NNLRIterative with every
    /// OLS coefficient negative, a Lasso with every coefficient 0).
    NoFeatureSelected {
        /// The model.
        model: String,
        /// Why nothing is left.
        reason: String,
    },
    /// NNLS reached its iteration limit (scipy raises "Maximum number of
    /// iterations reached").
    NnlsMaxIterations {
        /// The limit (3 x columns).
        maxiter: usize,
    },
    /// RebalancedLR: no negative standardized coefficient and at least one
    /// exactly zero, so the redistributed weight `P * 0.05 / 0` is infinite.
    RebalancedZeroBeta {
        /// The feature whose standardized coefficient is 0.
        feature: String,
    },
    /// A model name that is not one of the eleven built-in models.
    UnknownModel {
        /// The name given.
        name: String,
        /// The closest built-in name.
        suggestion: String,
    },
    /// A transform name that is not one of the seven transforms.
    UnknownTransform {
        /// The name given.
        name: String,
        /// The closest transform name.
        suggestion: String,
    },
    /// A feature sign that is not -1 or 1.
    InvalidSign {
        /// The feature.
        feature: String,
        /// The sign given.
        sign: f64,
    },
}

impl fmt::Display for LinearError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinearError::Empty { what } => write!(f, "{what} is empty"),
            LinearError::LengthMismatch {
                what,
                expected,
                found,
            } => write!(f, "{what} has {found} values, expected {expected}"),
            LinearError::NonFinite { what, row, value } => write!(
                f,
                "{what} has a non-finite value ({value}) at row {}",
                row + 1
            ),
            LinearError::DuplicateFeature { name } => {
                write!(f, "feature '{name}' is listed more than once")
            }
            LinearError::UnknownFeature { name } => {
                write!(f, "feature '{name}' is not among the feature columns")
            }
            LinearError::TooFewRows { rows, features } => write!(
                f,
                "too few training responses: {rows} response(s) for {features} feature(s); \
                 a linear model needs at least features + 1 = {} responses",
                features + 1
            ),
            LinearError::TooFewRowsForFolds { rows, folds } => write!(
                f,
                "too few training responses for {folds}-fold cross-validation: {rows} response(s)"
            ),
            LinearError::ConstantFeature { feature, value } => write!(
                f,
                "feature '{feature}' has a standard deviation of 0 on the training set \
                 (every value is {value})"
            ),
            LinearError::ZeroSdAfterPreprocessing {
                feature,
                transform,
                sd,
            } => write!(
                f,
                "feature '{feature}': the standard deviation is 0 after pre-processing \
                 (transform '{transform}', sd {sd})"
            ),
            LinearError::TransformUndefined(v) => write!(f, "{v}"),
            LinearError::EmptyNnlsSupport => write!(
                f,
                "non-negative least squares gave every feature a zero coefficient: \
                 no feature is left for the model"
            ),
            LinearError::NoFeatureSelected { model, reason } => {
                write!(f, "{model}: no feature is left for the model ({reason})")
            }
            LinearError::NnlsMaxIterations { maxiter } => write!(
                f,
                "non-negative least squares did not converge within {maxiter} iterations"
            ),
            LinearError::RebalancedZeroBeta { feature } => write!(
                f,
                "RebalancedLR: no standardized coefficient is negative and the one of \
                 feature '{feature}' is exactly 0, so its rebalanced weight would be infinite"
            ),
            LinearError::UnknownModel { name, suggestion } => {
                write!(f, "unknown model '{name}'; did you mean '{suggestion}'?")
            }
            LinearError::UnknownTransform { name, suggestion } => {
                write!(
                    f,
                    "unknown transform '{name}'; did you mean '{suggestion}'?"
                )
            }
            LinearError::InvalidSign { feature, sign } => {
                write!(f, "feature '{feature}': sign {sign} is neither -1 nor 1")
            }
        }
    }
}

impl std::error::Error for LinearError {}

/// Result type of the crate.
pub type Result<T> = std::result::Result<T, LinearError>;

/// Levenshtein distance between two strings (by `char`), used for
/// "did you mean" suggestions.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The candidate closest to `name` (case-insensitive edit distance; the
/// first candidate on ties).
pub(crate) fn closest<'a>(name: &str, candidates: &[&'a str]) -> &'a str {
    let lower = name.to_lowercase();
    let mut best = candidates[0];
    let mut best_d = usize::MAX;
    for &c in candidates {
        let d = edit_distance(&lower, &c.to_lowercase());
        if d < best_d {
            best_d = d;
            best = c;
        }
    }
    best
}
