//! Feature preprocessing (spec train.md 5), as RSMTool's
//! `FeaturePreprocessor.preprocess_feature` / `FeatureTransformer`:
//! truncation at `mean +/- 4 sd` of the raw training values (or the feature
//! file's `min`/`max`), the seven transforms with their error checks, the
//! zero-sd check on the transformed training values, standardisation with
//! the transformed training mean and sd, and the sign.
//!
//! `train` checks transforms strictly (an undefined value is an error naming
//! the feature, transform and partition); `predict` only warns and lets the
//! undefined values become NaN or +/-inf exactly as numpy computes them
//! ([`ApplyMode::Lenient`]).

use std::fmt;
use std::str::FromStr;

use super::error::{closest, LinearError, Result, TransformViolation, ViolationKind};
use super::matrix::{check_finite, FeatureMatrix};
use super::stats::{mean_sd, pearson, sd};

/// A feature transform, spelled as in the reference's feature files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Transform {
    /// Identity.
    Raw,
    /// Identity (the name `select_transformations` writes).
    Org,
    /// `sqrt(v)`; undefined for v < 0.
    Sqrt,
    /// `ln(v)`; undefined for v <= 0.
    Log,
    /// `1/v`; undefined for v == 0 or mixed signs.
    Inv,
    /// `1/(v+1)`; undefined for v < 0.
    AddOneInv,
    /// `ln(v+1)`; undefined for v < 0.
    AddOneLn,
}

impl Transform {
    /// Every transform, in the reference's documentation order.
    pub const ALL: [Transform; 7] = [
        Transform::Raw,
        Transform::Org,
        Transform::Sqrt,
        Transform::Log,
        Transform::Inv,
        Transform::AddOneInv,
        Transform::AddOneLn,
    ];

    /// The reference's spelling (`raw`, `org`, `sqrt`, `log`, `inv`,
    /// `addOneInv`, `addOneLn`).
    pub fn name(self) -> &'static str {
        match self {
            Transform::Raw => "raw",
            Transform::Org => "org",
            Transform::Sqrt => "sqrt",
            Transform::Log => "log",
            Transform::Inv => "inv",
            Transform::AddOneInv => "addOneInv",
            Transform::AddOneLn => "addOneLn",
        }
    }

    /// The transformed value, as numpy computes it (NaN or +/-inf where
    /// undefined).
    pub fn apply_value(self, v: f64) -> f64 {
        match self {
            Transform::Raw | Transform::Org => v,
            Transform::Sqrt => v.sqrt(),
            Transform::Log => v.ln(),
            Transform::Inv => 1.0 / v,
            Transform::AddOneInv => 1.0 / (v + 1.0),
            Transform::AddOneLn => (v + 1.0).ln(),
        }
    }

    /// The first violation of this transform's error check among `values`
    /// (spec 5.3), if any: kind, 0-based row, value and count.
    pub fn check(self, values: &[f64]) -> Option<(ViolationKind, usize, f64, usize)> {
        let first = |kind: ViolationKind, bad: &dyn Fn(f64) -> bool| {
            let row = values.iter().position(|&v| bad(v))?;
            let count = values.iter().filter(|&&v| bad(v)).count();
            Some((kind, row, values[row], count))
        };
        match self {
            Transform::Raw | Transform::Org => None,
            Transform::Sqrt | Transform::AddOneInv | Transform::AddOneLn => {
                first(ViolationKind::Negative, &|v| v < 0.0)
            }
            Transform::Log => first(ViolationKind::NonPositive, &|v| v <= 0.0),
            Transform::Inv => first(ViolationKind::Zero, &|v| v == 0.0).or_else(|| {
                let all_nonneg = values.iter().all(|&v| v >= 0.0);
                let all_nonpos = values.iter().all(|&v| v <= 0.0);
                if all_nonneg || all_nonpos {
                    return None;
                }
                let positive_first = values.iter().find(|&&v| v != 0.0).is_some_and(|&v| v > 0.0);
                if positive_first {
                    first(ViolationKind::MixedSigns, &|v| v < 0.0)
                } else {
                    first(ViolationKind::MixedSigns, &|v| v > 0.0)
                }
            }),
        }
    }
}

impl fmt::Display for Transform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Transform {
    type Err = LinearError;

    /// Parses the reference's spelling (case-sensitive); an unknown name is an
    /// error suggesting the closest one.
    fn from_str(s: &str) -> Result<Self> {
        Transform::ALL
            .iter()
            .copied()
            .find(|t| t.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Transform::ALL.iter().map(|t| t.name()).collect();
                LinearError::UnknownTransform {
                    name: s.to_string(),
                    suggestion: closest(s, &names).to_string(),
                }
            })
    }
}

/// Which partition values come from (for messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partition {
    /// The training partition (`train_file`).
    Training,
    /// The evaluation partition (`test_file`).
    Test,
    /// Data given to `predict`.
    Prediction,
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Partition::Training => "training",
            Partition::Test => "test",
            Partition::Prediction => "prediction",
        })
    }
}

/// How raw values are clamped before the transform (spec 5.2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Truncation {
    /// `mean +/- 4 sd` of the raw training values (`truncate_outliers`).
    MeanSd4,
    /// The feature file's `min` / `max` (`use_truncation_thresholds`).
    Thresholds {
        /// Lower bound.
        min: f64,
        /// Upper bound.
        max: f64,
    },
    /// No truncation (`truncate_outliers = false`).
    None,
}

/// The specification of one feature.
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureSpec {
    /// Column name.
    pub name: String,
    /// Transform.
    pub transform: Transform,
    /// Sign, -1.0 or 1.0.
    pub sign: f64,
    /// Truncation rule.
    pub truncation: Truncation,
}

/// What training computed for one feature (the `feature` table plus the
/// bounds actually used): everything needed to preprocess new data.
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureStats {
    /// Column name.
    pub name: String,
    /// Transform.
    pub transform: Transform,
    /// Sign.
    pub sign: f64,
    /// `train_mean`: mean of the raw training values.
    pub train_mean: f64,
    /// `train_sd`: sd of the raw training values.
    pub train_sd: f64,
    /// Lower truncation bound, if truncating.
    pub truncation_min: Option<f64>,
    /// Upper truncation bound, if truncating.
    pub truncation_max: Option<f64>,
    /// `train_transformed_mean`.
    pub train_transformed_mean: f64,
    /// `train_transformed_sd`.
    pub train_transformed_sd: f64,
}

impl FeatureStats {
    /// Statistics of an already trained feature (e.g. read from RSMTool's
    /// `feature` table): the truncation bounds follow `truncation` as in
    /// training (`MeanSd4`: `train_mean -/+ 4 * train_sd`).
    #[allow(clippy::too_many_arguments)]
    pub fn from_trained(
        name: &str,
        transform: Transform,
        sign: f64,
        train_mean: f64,
        train_sd: f64,
        train_transformed_mean: f64,
        train_transformed_sd: f64,
        truncation: Truncation,
    ) -> FeatureStats {
        let (lo, hi) = bounds(truncation, train_mean, train_sd);
        FeatureStats {
            name: name.to_string(),
            transform,
            sign,
            train_mean,
            train_sd,
            truncation_min: lo,
            truncation_max: hi,
            train_transformed_mean,
            train_transformed_sd,
        }
    }
}

/// The truncation bounds of spec 5.2 (`m - 4*s`, `m + 4*s` as written).
fn bounds(truncation: Truncation, m: f64, s: f64) -> (Option<f64>, Option<f64>) {
    match truncation {
        Truncation::MeanSd4 => (Some(m - 4.0 * s), Some(m + 4.0 * s)),
        Truncation::Thresholds { min, max } => (Some(min), Some(max)),
        Truncation::None => (None, None),
    }
}

/// Strict (train: errors) or lenient (predict: warnings, NaN/inf values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApplyMode {
    /// Undefined transforms are errors naming this partition.
    Strict(Partition),
    /// Undefined transforms are reported as warnings; values become NaN or
    /// +/-inf.
    Lenient,
}

/// Preprocessed values plus the transform violations tolerated in
/// [`ApplyMode::Lenient`].
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    /// Preprocessed values, one per input value.
    pub values: Vec<f64>,
    /// Violations that were only warnings (empty in strict mode).
    pub warnings: Vec<TransformViolation>,
}

/// The rule of train.md 3.3 step 12 (and 15's error for requested
/// features): error if the sample sd of `values` is within 1e-7 of 0.
pub fn check_feature_variation(name: &str, values: &[f64]) -> Result<()> {
    let s = sd(values);
    if values.len() < 2 || s.abs() <= 1e-7 {
        return Err(LinearError::ConstantFeature {
            feature: name.to_string(),
            value: values.first().copied().unwrap_or(f64::NAN),
        });
    }
    Ok(())
}

/// `select_transformations` (spec 4.3): on the filtered raw training values
/// `x` (before truncation) and labels `y`, the candidates are `org, inv` if
/// any value is negative, else `org, sqrt, addOneInv, addOneLn`; each scores
/// `|pearson(transform(x), y)|` (0 when the transform's check fails); the
/// first highest score wins, and a NaN score (constant transformed values)
/// wins over any number, as numpy `argmax`.
pub fn select_transform(x: &[f64], y: &[f64]) -> Transform {
    let candidates: &[Transform] = if x.iter().any(|&v| v < 0.0) {
        &[Transform::Org, Transform::Inv]
    } else {
        &[
            Transform::Org,
            Transform::Sqrt,
            Transform::AddOneInv,
            Transform::AddOneLn,
        ]
    };
    let mut best = candidates[0];
    let mut best_score = f64::NEG_INFINITY;
    for &t in candidates {
        let score = if t.check(x).is_some() {
            0.0
        } else {
            let v: Vec<f64> = x.iter().map(|&a| t.apply_value(a)).collect();
            pearson(&v, y).abs()
        };
        if score.is_nan() {
            return t;
        }
        if score > best_score {
            best_score = score;
            best = t;
        }
    }
    best
}

/// The sign of an automatically transformed feature (spec 4.3): the
/// subset file's sign (`-1` for `-`, else `+1`), negated for the
/// order-reversing transforms `inv` and `addOneInv`.
pub fn selected_sign(base_sign: f64, transform: Transform) -> f64 {
    match transform {
        Transform::Inv | Transform::AddOneInv => -base_sign,
        _ => base_sign,
    }
}

/// Clamps values above `hi` to `hi`, then values below `lo` to `lo`
/// (NaN stays NaN).
pub fn truncate(values: &[f64], lo: f64, hi: f64) -> Vec<f64> {
    values.iter().map(|&v| truncate_value(v, lo, hi)).collect()
}

/// One value clamped as [`truncate`] does.
#[inline]
pub fn truncate_value(v: f64, lo: f64, hi: f64) -> f64 {
    let v = if v > hi { hi } else { v };
    if v < lo {
        lo
    } else {
        v
    }
}

fn check_spec(spec: &FeatureSpec) -> Result<()> {
    if spec.sign != 1.0 && spec.sign != -1.0 {
        return Err(LinearError::InvalidSign {
            feature: spec.name.clone(),
            sign: spec.sign,
        });
    }
    Ok(())
}

/// Preprocesses one feature's filtered training values `x` (spec 5 steps
/// 1-7) and returns its statistics and the preprocessed training values.
pub fn preprocess_train_feature(
    spec: &FeatureSpec,
    x: &[f64],
    standardize: bool,
) -> Result<(FeatureStats, Vec<f64>)> {
    let mut values = x.to_vec();
    let stats = preprocess_train_in_place(spec, &mut values, standardize)?;
    Ok((stats, values))
}

/// [`preprocess_train_feature`] on a buffer holding the raw values, which
/// are replaced by the preprocessed ones.
pub fn preprocess_train_in_place(
    spec: &FeatureSpec,
    values: &mut [f64],
    standardize: bool,
) -> Result<FeatureStats> {
    check_spec(spec)?;
    if values.is_empty() {
        return Err(LinearError::Empty {
            what: format!("training values of feature '{}'", spec.name),
        });
    }
    check_finite(&spec.name, values)?;
    let (m, s) = mean_sd(values);
    let (lo, hi) = bounds(spec.truncation, m, s);
    let mut stats = FeatureStats {
        name: spec.name.clone(),
        transform: spec.transform,
        sign: spec.sign,
        train_mean: m,
        train_sd: s,
        truncation_min: lo,
        truncation_max: hi,
        train_transformed_mean: f64::NAN,
        train_transformed_sd: f64::NAN,
    };
    truncate_and_transform(&stats, values, ApplyMode::Strict(Partition::Training))?;
    let (tm, ts) = mean_sd(values);
    // `<= 1e-7` or NaN (np.isclose(sd, 0, atol=1e-7) with ddof = 1).
    let varies = ts.abs() > 1e-7;
    if !varies {
        return Err(LinearError::ZeroSdAfterPreprocessing {
            feature: spec.name.clone(),
            transform: spec.transform,
            sd: ts,
        });
    }
    stats.train_transformed_mean = tm;
    stats.train_transformed_sd = ts;
    finish(&stats, values, standardize);
    Ok(stats)
}

/// Truncates with the stored bounds and applies the transform in place,
/// checking it according to `mode`; returns the tolerated violations.
fn truncate_and_transform(
    stats: &FeatureStats,
    values: &mut [f64],
    mode: ApplyMode,
) -> Result<Vec<TransformViolation>> {
    let lo = stats.truncation_min.unwrap_or(f64::NEG_INFINITY);
    let hi = stats.truncation_max.unwrap_or(f64::INFINITY);
    if stats.truncation_min.is_some() || stats.truncation_max.is_some() {
        values
            .iter_mut()
            .for_each(|v| *v = truncate_value(*v, lo, hi));
    }
    let mut warnings = Vec::new();
    if let Some((kind, row, value, count)) = stats.transform.check(values) {
        let violation = TransformViolation {
            feature: stats.name.clone(),
            transform: stats.transform,
            partition: match mode {
                ApplyMode::Strict(p) => p,
                ApplyMode::Lenient => Partition::Prediction,
            },
            kind,
            row,
            value,
            count,
        };
        match mode {
            ApplyMode::Strict(_) => return Err(LinearError::TransformUndefined(violation)),
            ApplyMode::Lenient => warnings.push(violation),
        }
    }
    if !matches!(stats.transform, Transform::Raw | Transform::Org) {
        let t = stats.transform;
        values.iter_mut().for_each(|v| *v = t.apply_value(*v));
    }
    Ok(warnings)
}

/// Standardises (if asked) and applies the sign, in place.
fn finish(stats: &FeatureStats, values: &mut [f64], standardize: bool) {
    let (tm, ts, sign) = (
        stats.train_transformed_mean,
        stats.train_transformed_sd,
        stats.sign,
    );
    if standardize {
        values.iter_mut().for_each(|v| *v = (*v - tm) / ts * sign);
    } else {
        values.iter_mut().for_each(|v| *v *= sign);
    }
}

/// Preprocesses new values `z` of a feature with stored training statistics
/// (the test partition in `train`, or `predict`). In strict mode an
/// undefined transform is an error; in lenient mode it is a warning and the
/// values become NaN or +/-inf.
pub fn apply_feature(
    stats: &FeatureStats,
    z: &[f64],
    standardize: bool,
    mode: ApplyMode,
) -> Result<Applied> {
    let mut values = z.to_vec();
    let warnings = apply_in_place(stats, &mut values, standardize, mode)?;
    Ok(Applied { values, warnings })
}

/// [`apply_feature`] on a buffer holding the raw values, which are replaced
/// by the preprocessed ones; returns the tolerated violations.
pub fn apply_in_place(
    stats: &FeatureStats,
    values: &mut [f64],
    standardize: bool,
    mode: ApplyMode,
) -> Result<Vec<TransformViolation>> {
    let warnings = truncate_and_transform(stats, values, mode)?;
    finish(stats, values, standardize);
    Ok(warnings)
}

/// Copies the named columns of `raw` into one column-major buffer.
fn gather(raw: &FeatureMatrix, names: &[&str]) -> Result<Vec<f64>> {
    let mut data = Vec::with_capacity(names.len() * raw.n_rows());
    for name in names {
        let col = raw
            .column_by_name(name)
            .ok_or_else(|| LinearError::UnknownFeature {
                name: name.to_string(),
            })?;
        data.extend_from_slice(col);
    }
    Ok(data)
}

/// Preprocesses every feature of `specs` (in spec order) from the raw
/// training matrix; returns the statistics and the preprocessed matrix with
/// columns in spec order.
pub fn preprocess_train(
    specs: &[FeatureSpec],
    raw: &FeatureMatrix,
    standardize: bool,
) -> Result<(Vec<FeatureStats>, FeatureMatrix)> {
    let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
    let mut data = gather(raw, &names)?;
    let n = raw.n_rows();
    let mut stats = Vec::with_capacity(specs.len());
    for (spec, values) in specs.iter().zip(data.chunks_mut(n.max(1))) {
        stats.push(preprocess_train_in_place(spec, values, standardize)?);
    }
    let names = names.iter().map(|s| s.to_string()).collect();
    Ok((stats, FeatureMatrix::new(names, n, data)?))
}

/// Preprocesses every feature of `stats` from a raw matrix of new data;
/// returns the preprocessed matrix (columns in `stats` order) and the
/// warnings of lenient mode.
pub fn apply(
    stats: &[FeatureStats],
    raw: &FeatureMatrix,
    standardize: bool,
    mode: ApplyMode,
) -> Result<(FeatureMatrix, Vec<TransformViolation>)> {
    let names: Vec<&str> = stats.iter().map(|s| s.name.as_str()).collect();
    let mut data = gather(raw, &names)?;
    let n = raw.n_rows();
    let mut warnings = Vec::new();
    for (st, values) in stats.iter().zip(data.chunks_mut(n.max(1))) {
        warnings.extend(apply_in_place(st, values, standardize, mode)?);
    }
    let names = names.iter().map(|s| s.to_string()).collect();
    Ok((FeatureMatrix::new(names, n, data)?, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(t: Transform, sign: f64, truncation: Truncation) -> FeatureSpec {
        FeatureSpec {
            name: "f".into(),
            transform: t,
            sign,
            truncation,
        }
    }

    #[test]
    fn transform_names_round_trip_and_suggest() {
        for t in Transform::ALL {
            assert_eq!(t.name().parse::<Transform>().unwrap(), t);
        }
        let err = "addoneinv".parse::<Transform>().unwrap_err();
        assert_eq!(
            err,
            LinearError::UnknownTransform {
                name: "addoneinv".into(),
                suggestion: "addOneInv".into()
            }
        );
        assert!(err.to_string().contains("did you mean 'addOneInv'"));
    }

    #[test]
    fn transform_selection_by_hand() {
        // y = 1/(x+1) exactly: addOneInv correlates perfectly (|r| = 1).
        let x = [0.0, 1.0, 3.0, 7.0];
        let y: Vec<f64> = x.iter().map(|v| 1.0 / (v + 1.0)).collect();
        assert_eq!(select_transform(&x, &y), Transform::AddOneInv);
        assert_eq!(selected_sign(1.0, Transform::AddOneInv), -1.0);
        assert_eq!(selected_sign(-1.0, Transform::Sqrt), -1.0);
        // y = x: org wins (first of the ties is not needed: |r| = 1 only there).
        assert_eq!(select_transform(&x, &x), Transform::Org);
        // Negative values: only org and inv; y = 1/x.
        let xn = [-1.0, -2.0, -4.0];
        let yn: Vec<f64> = xn.iter().map(|v| 1.0 / v).collect();
        assert_eq!(select_transform(&xn, &yn), Transform::Inv);
        // Mixed signs: inv fails its check (score 0), org wins.
        assert_eq!(
            select_transform(&[-1.0, 2.0, 3.0], &[1.0, 2.0, 4.0]),
            Transform::Org
        );
        // A constant label gives NaN for org, which wins at once.
        assert_eq!(select_transform(&[1.0, 2.0], &[3.0, 3.0]), Transform::Org);
    }

    #[test]
    fn transform_checks() {
        use ViolationKind::*;
        assert_eq!(
            Transform::Sqrt.check(&[1.0, -2.0, -3.0]),
            Some((Negative, 1, -2.0, 2))
        );
        assert_eq!(
            Transform::Log.check(&[1.0, 0.0]),
            Some((NonPositive, 1, 0.0, 1))
        );
        assert_eq!(Transform::Inv.check(&[1.0, 0.0]), Some((Zero, 1, 0.0, 1)));
        assert_eq!(Transform::Inv.check(&[-1.0, -2.0]), None);
        assert_eq!(
            Transform::Inv.check(&[2.0, -1.0, 3.0]),
            Some((MixedSigns, 1, -1.0, 1))
        );
        assert_eq!(Transform::AddOneLn.check(&[0.0, 1.0]), None);
        assert_eq!(Transform::Raw.check(&[-1.0]), None);
    }

    #[test]
    fn train_by_hand_no_truncation_effect() {
        // x = 1, 2, 3, 4: m = 2.5, s = sqrt(5/3); bounds m +/- 4 s do not bind.
        // addOneInv: 1/2, 1/3, 1/4, 1/5; sign -1.
        let x = [1.0, 2.0, 3.0, 4.0];
        let (st, v) = preprocess_train_feature(
            &spec(Transform::AddOneInv, -1.0, Truncation::MeanSd4),
            &x,
            true,
        )
        .unwrap();
        assert_eq!(st.train_mean, 2.5);
        assert!((st.train_sd - (5.0f64 / 3.0).sqrt()).abs() < 1e-15);
        let t = [0.5, 1.0 / 3.0, 0.25, 0.2];
        let tm = (0.5 + 1.0 / 3.0 + 0.25 + 0.2) / 4.0;
        assert!((st.train_transformed_mean - tm).abs() < 1e-15);
        let ts = (t.iter().map(|a| (a - tm) * (a - tm)).sum::<f64>() / 3.0).sqrt();
        assert!((st.train_transformed_sd - ts).abs() < 1e-15);
        for (got, a) in v.iter().zip(t) {
            assert!((got - (-(a - tm) / ts)).abs() < 1e-14);
        }
    }

    #[test]
    fn truncation_with_thresholds_and_apply() {
        let s = spec(
            Transform::Raw,
            1.0,
            Truncation::Thresholds { min: 0.0, max: 2.0 },
        );
        let (st, v) = preprocess_train_feature(&s, &[-1.0, 1.0, 3.0], false).unwrap();
        assert_eq!(v, vec![0.0, 1.0, 2.0]);
        assert_eq!(st.train_mean, 1.0); // raw mean, before truncation
        let a =
            apply_feature(&st, &[5.0, -5.0], false, ApplyMode::Strict(Partition::Test)).unwrap();
        assert_eq!(a.values, vec![2.0, 0.0]);
        assert_eq!(truncate(&[f64::NAN, 9.0], 0.0, 1.0)[1], 1.0);
        assert!(truncate(&[f64::NAN], 0.0, 1.0)[0].is_nan());
    }

    #[test]
    fn strict_and_lenient_transform_errors() {
        let s = spec(Transform::Sqrt, 1.0, Truncation::None);
        let (st, _) = preprocess_train_feature(&s, &[1.0, 4.0, 9.0], false).unwrap();
        let err = apply_feature(&st, &[4.0, -1.0], false, ApplyMode::Strict(Partition::Test))
            .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("sqrt") && msg.contains("'f'") && msg.contains("test"),
            "{msg}"
        );
        assert!(msg.contains("row 2") && msg.contains("-1"), "{msg}");
        let a = apply_feature(&st, &[4.0, -1.0], false, ApplyMode::Lenient).unwrap();
        assert_eq!(a.values[0], 2.0);
        assert!(a.values[1].is_nan());
        assert_eq!(a.warnings.len(), 1);
        let log = spec(Transform::Log, 1.0, Truncation::None);
        let (st, _) = preprocess_train_feature(&log, &[1.0, 2.0], false).unwrap();
        let a = apply_feature(&st, &[0.0], false, ApplyMode::Lenient).unwrap();
        assert_eq!(a.values[0], f64::NEG_INFINITY);
    }

    #[test]
    fn zero_sd_and_constant_errors() {
        let s = spec(Transform::Raw, 1.0, Truncation::None);
        let err = preprocess_train_feature(&s, &[2.0, 2.0, 2.0], true).unwrap_err();
        assert!(matches!(err, LinearError::ZeroSdAfterPreprocessing { .. }));
        assert!(err
            .to_string()
            .contains("standard deviation is 0 after pre-processing"));
        let err = check_feature_variation("LENGTH", &[7.0, 7.0]).unwrap_err();
        assert!(err.to_string().contains("LENGTH") && err.to_string().contains('7'));
        assert!(check_feature_variation("x", &[1.0, 2.0]).is_ok());
        let bad = spec(Transform::Raw, 2.0, Truncation::None);
        assert!(matches!(
            preprocess_train_feature(&bad, &[1.0, 2.0], true),
            Err(LinearError::InvalidSign { .. })
        ));
    }
}
