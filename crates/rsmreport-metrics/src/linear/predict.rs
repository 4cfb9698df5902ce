//! Predictions, scaling, trimming and rounding (spec train.md 7; rsmeval
//! 2.11), as RSMTool's `Modeler.predict` / `predict_with_model` and
//! `FeaturePreprocessor.process_predictions` / `trim`:
//! `raw = intercept + sum_S coef_f x_f`; `scale = (raw - pm) / psd * hsd + hm`
//! with the training means and sds of `raw` and `sc1`; trimming to
//! `[trim_min - tol, trim_max + tol]` (upper bound first, NaN kept);
//! rounding half to even (numpy `rint`); and the scaled coefficients
//! `coefficients_scaled`.

use super::error::{LinearError, Result};
use super::matrix::FeatureMatrix;
use super::models::INTERCEPT;
use super::stats::{mean, round_half_even, sd};

/// The `postprocessing_params` row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Postprocessing {
    /// `trim_min`.
    pub trim_min: f64,
    /// `trim_max`.
    pub trim_max: f64,
    /// `trim_tolerance`.
    pub trim_tolerance: f64,
    /// `h1_mean`: mean of the training labels.
    pub h1_mean: f64,
    /// `h1_sd`: sd of the training labels.
    pub h1_sd: f64,
    /// `train_predictions_mean`: mean of the raw training predictions.
    pub train_predictions_mean: f64,
    /// `train_predictions_sd`: sd of the raw training predictions.
    pub train_predictions_sd: f64,
}

/// The six prediction columns of `pred_train` / `pred_processed`.
#[derive(Debug, Clone, PartialEq)]
pub struct Predictions {
    /// `raw`.
    pub raw: Vec<f64>,
    /// `scale`.
    pub scale: Vec<f64>,
    /// `raw_trim`.
    pub raw_trim: Vec<f64>,
    /// `raw_trim_round`.
    pub raw_trim_round: Vec<i64>,
    /// `scale_trim`.
    pub scale_trim: Vec<f64>,
    /// `scale_trim_round`.
    pub scale_trim_round: Vec<i64>,
}

/// `raw` predictions: `intercept + sum coef_f * x_f` over the given
/// `(feature, coefficient)` pairs (features outside them play no role; an
/// `Intercept` row, if present, is skipped).
pub fn raw_predictions(
    intercept: f64,
    coefficients: &[(String, f64)],
    features: &FeatureMatrix,
) -> Result<Vec<f64>> {
    let mut raw = vec![intercept; features.n_rows()];
    for (name, coef) in coefficients.iter().filter(|(n, _)| n != INTERCEPT) {
        let col = features
            .column_by_name(name)
            .ok_or_else(|| LinearError::UnknownFeature { name: name.clone() })?;
        for (r, &x) in raw.iter_mut().zip(col) {
            *r += coef * x;
        }
    }
    Ok(raw)
}

impl Postprocessing {
    /// Computes the parameters from the raw training predictions and the
    /// training labels.
    pub fn from_training(
        raw_train: &[f64],
        y: &[f64],
        trim_min: f64,
        trim_max: f64,
        trim_tolerance: f64,
    ) -> Result<Postprocessing> {
        if raw_train.len() != y.len() {
            return Err(LinearError::LengthMismatch {
                what: "raw training predictions".into(),
                expected: y.len(),
                found: raw_train.len(),
            });
        }
        Ok(Postprocessing {
            trim_min,
            trim_max,
            trim_tolerance,
            h1_mean: mean(y),
            h1_sd: sd(y),
            train_predictions_mean: mean(raw_train),
            train_predictions_sd: sd(raw_train),
        })
    }

    /// `(trim_min - tol, trim_max + tol)`.
    pub fn trim_bounds(&self) -> (f64, f64) {
        (
            self.trim_min - self.trim_tolerance,
            self.trim_max + self.trim_tolerance,
        )
    }

    /// `(raw - pm) / psd * hsd + hm`.
    pub fn scale(&self, raw: f64) -> f64 {
        (raw - self.train_predictions_mean) / self.train_predictions_sd * self.h1_sd + self.h1_mean
    }

    /// All six prediction columns for raw predictions (error on NaN raw
    /// values, which have no rounded value).
    pub fn postprocess(&self, raw: &[f64]) -> Result<Predictions> {
        if let Some(row) = raw.iter().position(|v| v.is_nan()) {
            return Err(LinearError::NonFinite {
                what: "the raw predictions".into(),
                row,
                value: raw[row],
            });
        }
        let (lo, hi) = self.trim_bounds();
        let scale: Vec<f64> = raw.iter().map(|&r| self.scale(r)).collect();
        let raw_trim: Vec<f64> = raw.iter().map(|&v| trim(v, lo, hi)).collect();
        let scale_trim: Vec<f64> = scale.iter().map(|&v| trim(v, lo, hi)).collect();
        Ok(Predictions {
            raw_trim_round: raw_trim.iter().map(|&v| round_to_i64(v)).collect(),
            scale_trim_round: scale_trim.iter().map(|&v| round_to_i64(v)).collect(),
            raw: raw.to_vec(),
            scale,
            raw_trim,
            scale_trim,
        })
    }

    /// `coefficients_scaled`: `Intercept = b0 * r + pm * (1 - r)` with
    /// `r = hsd / psd`, then `coef_f * r` for the given features (pass `S` in
    /// code-point order).
    pub fn scaled_coefficients(
        &self,
        intercept: f64,
        coefficients: &[(String, f64)],
    ) -> Vec<(String, f64)> {
        let r = self.h1_sd / self.train_predictions_sd;
        let mut out = vec![(
            INTERCEPT.to_string(),
            intercept * r + self.train_predictions_mean * (1.0 - r),
        )];
        out.extend(
            coefficients
                .iter()
                .filter(|(n, _)| n != INTERCEPT)
                .map(|(n, c)| (n.clone(), c * r)),
        );
        out
    }
}

/// Values above `hi` become `hi`, then values below `lo` become `lo`
/// (boundary values unchanged, NaN kept).
pub fn trim(v: f64, lo: f64, hi: f64) -> f64 {
    let v = if v > hi { hi } else { v };
    if v < lo {
        lo
    } else {
        v
    }
}

/// Half-to-even rounding to an integer (`-0.5` gives 0). Values outside
/// the `i64` range saturate; trimmed predictions never get there.
pub fn round_to_i64(v: f64) -> i64 {
    round_half_even(v) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trim_and_round_half_even() {
        // trim 1-6 with tolerance 0.4998: bounds 0.5002, 6.4998.
        let p = Postprocessing {
            trim_min: 1.0,
            trim_max: 6.0,
            trim_tolerance: 0.4998,
            h1_mean: 3.0,
            h1_sd: 1.0,
            train_predictions_mean: 3.0,
            train_predictions_sd: 1.0,
        };
        let (lo, hi) = p.trim_bounds();
        assert_eq!(lo, 1.0 - 0.4998);
        assert_eq!(trim(7.0, lo, hi), hi);
        assert_eq!(trim(-1.0, lo, hi), lo);
        assert_eq!(trim(2.5, lo, hi), 2.5);
        assert!(trim(f64::NAN, lo, hi).is_nan());
        let out = p.postprocess(&[2.5, 3.5, 0.0, 9.0, 4.5000001]).unwrap();
        assert_eq!(out.raw_trim_round, vec![2, 4, 1, 6, 5]);
        assert_eq!(out.scale, vec![2.5, 3.5, 0.0, 9.0, 4.5000001]);
        // tolerance 0.5 with trim_min 1: the bound 0.5 rounds to 0 (even).
        let q = Postprocessing {
            trim_tolerance: 0.5,
            ..p
        };
        assert_eq!(
            q.postprocess(&[-3.0, 99.0]).unwrap().raw_trim_round,
            vec![0, 6]
        );
        assert_eq!(round_to_i64(-0.5), 0);
        assert!(p.postprocess(&[f64::NAN]).is_err());
    }

    #[test]
    fn scaling_and_scaled_coefficients_by_hand() {
        // raw = 1, 2, 3 (pm 2, psd 1); y = 2, 4, 6 (hm 4, hsd 2): scale = 2 raw.
        let p = Postprocessing::from_training(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.0], 1.0, 6.0, 0.4998)
            .unwrap();
        assert_eq!((p.h1_mean, p.h1_sd), (4.0, 2.0));
        assert_eq!(
            (p.train_predictions_mean, p.train_predictions_sd),
            (2.0, 1.0)
        );
        assert_eq!(p.scale(2.5), 5.0);
        // r = 2: Intercept 0.5 * 2 + 2 * (1 - 2) = -1; coef 0.25 -> 0.5.
        let sc = p.scaled_coefficients(0.5, &[("Intercept".into(), 0.5), ("f".into(), 0.25)]);
        assert_eq!(
            sc,
            vec![("Intercept".to_string(), -1.0), ("f".to_string(), 0.5)]
        );
    }

    #[test]
    fn raw_predictions_use_named_features_only() {
        let x = FeatureMatrix::from_columns(vec![
            ("a".into(), vec![1.0, 2.0]),
            ("b".into(), vec![10.0, 20.0]),
        ])
        .unwrap();
        let raw =
            raw_predictions(0.5, &[("Intercept".into(), 0.5), ("b".into(), 0.1)], &x).unwrap();
        assert_eq!(raw, vec![1.5, 2.5]);
        assert!(raw_predictions(0.0, &[("c".into(), 1.0)], &x).is_err());
    }
}
