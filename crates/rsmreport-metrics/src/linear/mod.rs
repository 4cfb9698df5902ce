//! Pure mathematics of RSMTool 12.0.0's `rsmtool` built-in linear models, as
//! specified in `spec/train.md` sections 5-8: feature preprocessing, the
//! eleven models (statsmodels OLS/WLS, scipy NNLS, scikit-learn 1.4.2
//! positive Lasso and LassoCV), predictions with scaling, trimming and
//! rounding, and the training analyses (descriptives, outliers,
//! correlations, partial correlations, PCA).
//!
//! Data in, data out: no file I/O, no printing; every fallible function
//! returns [`LinearError`]. Used by the engine's `train` and `predict`
//! kinds only. Moved here from the standalone `train-math` crate, where it
//! was checked against every visible fixture of `fixtures/train`
//! (`tests/linear_fixtures.rs`). Sums, means, minima, rounding and the
//! incomplete beta are the crate's own ([`crate::summary`],
//! [`crate::distributions`]); [`stats`] adds pandas' conventions on top.

#![deny(missing_docs)]

pub mod analyses;
pub mod error;
pub mod lasso;
pub mod matrix;
pub mod models;
pub mod moments;
pub mod nnls;
pub mod ols;
pub mod predict;
pub mod preprocess;
pub mod stats;

pub use error::{LinearError, Result, TransformViolation, ViolationKind};
pub use matrix::FeatureMatrix;
pub use models::{fit, fit_with, Beta, FitOptions, Fitted, Model, ModelFit};
pub use preprocess::{
    apply, apply_feature, apply_in_place, preprocess_train, preprocess_train_feature,
    preprocess_train_in_place, select_transform, selected_sign, ApplyMode, FeatureSpec,
    FeatureStats, Partition, Transform, Truncation,
};
