//! The eleven built-in models of RSMTool 12.0.0 (spec train.md 6): which
//! solver each one runs, which features it keeps (`U`), its coefficient
//! table (rows and their order), its `model_fit` and its `betas`.
//!
//! Reference behaviour: `rsmtool.modeler.Modeler.train_*` with statsmodels
//! OLS/WLS ([`super::ols`]), scipy `nnls` ([`super::nnls`]) and
//! scikit-learn's positive `Lasso` / `LassoCV` ([`super::lasso`]).
//! `LassoFixedLambdaThenNNLR` computes and discards a Lasso in the
//! reference; its result does not depend on that Lasso, so it is not
//! computed here (the output is identical, spec 6.11).

use std::fmt;
use std::str::FromStr;

use super::error::{closest, LinearError, Result};
use super::lasso::{fixed_lambda_alpha, positive_lasso, positive_lasso_cv};
use super::matrix::{check_finite, FeatureMatrix};
use super::moments::Moments;
use super::nnls::nnls_from_moments;
use super::ols::{ols, weighted_ssr, OlsFit, OlsMethod};
use super::stats::{pairwise_sum, sd};

/// A built-in model, named as the reference spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Model {
    /// OLS on all features.
    LinearRegression,
    /// OLS on the sum of the features; every feature gets its slope.
    EqualWeightsLR,
    /// Weighted least squares, weights balancing the score levels.
    ScoreWeightedLR,
    /// OLS, then negative standardized weights replaced (5% of the positive
    /// total shared among them).
    RebalancedLR,
    /// NNLS selects, OLS refits.
    NNLR,
    /// OLS, negative features dropped, OLS refit, negatives zeroed.
    NNLRIterative,
    /// Positive Lasso with a fixed alpha selects, OLS refits.
    LassoFixedLambdaThenLR,
    /// Positive LassoCV selects, OLS refits.
    PositiveLassoCVThenLR,
    /// Positive Lasso coefficients with a fixed alpha.
    LassoFixedLambda,
    /// As `NNLR` (the reference's Lasso step is discarded).
    LassoFixedLambdaThenNNLR,
    /// Positive LassoCV coefficients.
    PositiveLassoCV,
}

impl Model {
    /// Every model, in the spec's order.
    pub const ALL: [Model; 11] = [
        Model::LinearRegression,
        Model::EqualWeightsLR,
        Model::ScoreWeightedLR,
        Model::RebalancedLR,
        Model::NNLR,
        Model::NNLRIterative,
        Model::LassoFixedLambdaThenLR,
        Model::PositiveLassoCVThenLR,
        Model::LassoFixedLambda,
        Model::LassoFixedLambdaThenNNLR,
        Model::PositiveLassoCV,
    ];

    /// The reference's name.
    pub fn name(self) -> &'static str {
        match self {
            Model::LinearRegression => "LinearRegression",
            Model::EqualWeightsLR => "EqualWeightsLR",
            Model::ScoreWeightedLR => "ScoreWeightedLR",
            Model::RebalancedLR => "RebalancedLR",
            Model::NNLR => "NNLR",
            Model::NNLRIterative => "NNLRIterative",
            Model::LassoFixedLambdaThenLR => "LassoFixedLambdaThenLR",
            Model::PositiveLassoCVThenLR => "PositiveLassoCVThenLR",
            Model::LassoFixedLambda => "LassoFixedLambda",
            Model::LassoFixedLambdaThenNNLR => "LassoFixedLambdaThenNNLR",
            Model::PositiveLassoCV => "PositiveLassoCV",
        }
    }

    /// True for the two models whose coefficients come straight from a Lasso
    /// (compared at rtol 1e-6 by the kit, spec 17).
    pub fn is_pure_lasso(self) -> bool {
        matches!(self, Model::LassoFixedLambda | Model::PositiveLassoCV)
    }
}

impl fmt::Display for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Model {
    type Err = LinearError;

    /// Parses a model name (case-sensitive); an unknown name is an error
    /// suggesting the closest built-in name.
    fn from_str(s: &str) -> Result<Self> {
        Model::ALL
            .iter()
            .copied()
            .find(|m| m.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Model::ALL.iter().map(|m| m.name()).collect();
                LinearError::UnknownModel {
                    name: s.to_string(),
                    suggestion: closest(s, &names).to_string(),
                }
            })
    }
}

/// The `model_fit` table: `N responses`, `N features` (rank - 1), `R2`,
/// `R2_adjusted`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelFit {
    /// `N responses`.
    pub n_responses: usize,
    /// `N features`.
    pub n_features: usize,
    /// `R2`.
    pub r2: f64,
    /// `R2_adjusted`.
    pub r2_adjusted: f64,
}

impl ModelFit {
    fn from_ols(f: &OlsFit) -> ModelFit {
        ModelFit {
            n_responses: f.n,
            n_features: f.rank.saturating_sub(1),
            r2: f.r2(),
            r2_adjusted: f.r2_adjusted(),
        }
    }
}

/// One row of the `betas` table.
#[derive(Debug, Clone, PartialEq)]
pub struct Beta {
    /// Feature name.
    pub feature: String,
    /// `coef * sd(X_f) / sd(y)`.
    pub standardized: f64,
    /// `standardized / sum |standardized|`.
    pub relative: f64,
}

/// A trained model.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    /// The model.
    pub model: Model,
    /// The intercept.
    pub intercept: f64,
    /// The coefficient table (`Intercept` included) in the spec's row order
    /// for this model.
    pub coefficients: Vec<(String, f64)>,
    /// The used features `U`, in their spec order (rows of `betas`).
    pub used: Vec<String>,
    /// `model_fit`, for the models that have one.
    pub model_fit: Option<ModelFit>,
    /// The `betas` table, rows `U`.
    pub betas: Vec<Beta>,
}

impl Fitted {
    /// `S`: every non-intercept name of the coefficient table, code-point
    /// order (zero coefficients included).
    pub fn selected(&self) -> Vec<String> {
        sorted(self.feature_names())
    }

    /// The non-intercept rows of the coefficient table, code-point order.
    pub fn feature_coefficients(&self) -> Vec<(String, f64)> {
        let mut v: Vec<(String, f64)> = self
            .coefficients
            .iter()
            .filter(|(n, _)| n != INTERCEPT)
            .cloned()
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    fn feature_names(&self) -> Vec<String> {
        self.coefficients
            .iter()
            .filter(|(n, _)| n != INTERCEPT)
            .map(|(n, _)| n.clone())
            .collect()
    }
}

/// The name of the intercept row.
pub const INTERCEPT: &str = "Intercept";

/// Options of [`fit_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FitOptions {
    /// How OLS/WLS fits are solved.
    pub ols_method: OlsMethod,
}

/// Trains `model` on the preprocessed training features (columns in the
/// specification order `F`) and the training labels `y`.
pub fn fit(model: Model, features: &FeatureMatrix, y: &[f64]) -> Result<Fitted> {
    fit_with(model, features, y, FitOptions::default())
}

/// [`fit`] with options.
pub fn fit_with(
    model: Model,
    features: &FeatureMatrix,
    y: &[f64],
    options: FitOptions,
) -> Result<Fitted> {
    validate(features, y)?;
    let ctx = Ctx {
        x: features,
        y,
        method: options.ols_method,
    };
    match model {
        Model::LinearRegression => ctx.plain_ols(model, features.names(), None),
        Model::ScoreWeightedLR => {
            let w = score_weights(y);
            ctx.plain_ols(model, features.names(), Some(&w))
        }
        Model::EqualWeightsLR => ctx.equal_weights(),
        Model::RebalancedLR => ctx.rebalanced(),
        Model::NNLR | Model::LassoFixedLambdaThenNNLR => {
            let used = ctx.nnls_support()?;
            ctx.plain_ols(model, &used, None)
        }
        Model::NNLRIterative => ctx.nnlr_iterative(),
        Model::LassoFixedLambdaThenLR => {
            let used = ctx.fixed_lasso_support()?;
            ctx.plain_ols(model, &used, None)
        }
        Model::PositiveLassoCVThenLR => {
            let used = ctx.lasso_cv_support()?;
            ctx.plain_ols(model, &used, None)
        }
        Model::LassoFixedLambda => ctx.lasso_fixed_lambda(),
        Model::PositiveLassoCV => ctx.positive_lasso_cv(),
    }
}

fn validate(features: &FeatureMatrix, y: &[f64]) -> Result<()> {
    if features.n_features() == 0 {
        return Err(LinearError::Empty {
            what: "the feature list".into(),
        });
    }
    if y.len() != features.n_rows() {
        return Err(LinearError::LengthMismatch {
            what: "the training label".into(),
            expected: features.n_rows(),
            found: y.len(),
        });
    }
    features.check_finite()?;
    check_finite("the training label", y)?;
    if y.len() < features.n_features() + 1 {
        return Err(LinearError::TooFewRows {
            rows: y.len(),
            features: features.n_features(),
        });
    }
    Ok(())
}

/// `w_i = (1/K) / count(y == y_i)`, `K` distinct label values (counted on a
/// sorted copy: O(n log n) even for continuous labels).
pub fn score_weights(y: &[f64]) -> Vec<f64> {
    let mut sorted = y.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mut levels: Vec<(f64, usize)> = Vec::new();
    for &v in &sorted {
        match levels.last_mut() {
            Some((l, c)) if *l == v => *c += 1,
            _ => levels.push((v, 1)),
        }
    }
    let k = levels.len() as f64;
    y.iter()
        .map(|&v| {
            let i = levels.partition_point(|(l, _)| l.total_cmp(&v).is_lt());
            let count = levels.get(i).map_or(1, |(_, c)| *c);
            (1.0 / k) / count as f64
        })
        .collect()
}

fn sorted(mut names: Vec<String>) -> Vec<String> {
    names.sort();
    names
}

struct Ctx<'a> {
    x: &'a FeatureMatrix,
    y: &'a [f64],
    method: OlsMethod,
}

impl Ctx<'_> {
    fn cols(&self, names: &[String]) -> Result<Vec<&[f64]>> {
        self.x.columns_named(names)
    }

    /// `Intercept` then `names` in code-point order.
    fn table(&self, intercept: f64, names: &[String], coefs: &[f64]) -> Vec<(String, f64)> {
        let mut rows: Vec<(String, f64)> =
            names.iter().cloned().zip(coefs.iter().copied()).collect();
        rows.sort_by(|a, b| a.0.cmp(&b.0));
        rows.insert(0, (INTERCEPT.to_string(), intercept));
        rows
    }

    /// Betas of `used` from the coefficient table.
    fn betas(&self, used: &[String], table: &[(String, f64)]) -> Result<Vec<Beta>> {
        let sd_y = sd(self.y);
        let mut std = Vec::with_capacity(used.len());
        for f in used {
            let coef = table
                .iter()
                .find(|(n, _)| n == f)
                .map(|(_, c)| *c)
                .ok_or_else(|| LinearError::UnknownFeature { name: f.clone() })?;
            let sd_x = sd(self.cols(std::slice::from_ref(f))?[0]);
            std.push(coef * sd_x / sd_y);
        }
        Ok(relative_betas(used, std))
    }

    fn plain_ols(&self, model: Model, used: &[String], w: Option<&[f64]>) -> Result<Fitted> {
        let fit = ols(&self.cols(used)?, self.y, w, self.method)?;
        let table = self.table(fit.intercept, used, &fit.coefficients);
        let betas = self.betas(used, &table)?;
        Ok(Fitted {
            model,
            intercept: fit.intercept,
            coefficients: table,
            used: used.to_vec(),
            model_fit: Some(ModelFit::from_ols(&fit)),
            betas,
        })
    }

    fn equal_weights(&self) -> Result<Fitted> {
        let cols = self.x.columns();
        let n = self.x.n_rows();
        let sum: Vec<f64> = (0..n)
            .map(|i| cols.iter().fold(0.0, |acc, c| acc + c[i]))
            .collect();
        let fit = ols(&[&sum], self.y, None, self.method)?;
        let names = self.x.names().to_vec();
        let coefs = vec![fit.coefficients[0]; names.len()];
        let table = self.table(fit.intercept, &names, &coefs);
        let betas = self.betas(&names, &table)?;
        Ok(Fitted {
            model: Model::EqualWeightsLR,
            intercept: fit.intercept,
            coefficients: table,
            used: names,
            model_fit: Some(ModelFit::from_ols(&fit)),
            betas,
        })
    }

    fn rebalanced(&self) -> Result<Fitted> {
        let names = self.x.names().to_vec();
        let cols = self.x.columns();
        let fit = ols(&cols, self.y, None, self.method)?;
        let sd_y = sd(self.y);
        let sd_x: Vec<f64> = cols.iter().map(|c| sd(c)).collect();
        let b: Vec<f64> = (0..names.len())
            .map(|j| fit.coefficients[j] * sd_x[j] / sd_y)
            .collect();
        let positive_sum: f64 = b.iter().filter(|&&v| v > 0.0).sum();
        let k = b.iter().filter(|&&v| v < 0.0).count();
        if k == 0 {
            if let Some(j) = b.iter().position(|&v| v == 0.0) {
                return Err(LinearError::RebalancedZeroBeta {
                    feature: names[j].clone(),
                });
            }
        }
        let delta = positive_sum * 0.05 / k as f64;
        let new_b: Vec<f64> = b
            .iter()
            .map(|&v| if v > 0.0 { 0.95 * v } else { delta })
            .collect();
        let coefs: Vec<f64> = (0..names.len())
            .map(|j| new_b[j] * sd_y / sd_x[j])
            .collect();
        let mut table: Vec<(String, f64)> = names.iter().cloned().zip(coefs).collect();
        table.push((INTERCEPT.to_string(), fit.intercept));
        table.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(Fitted {
            model: Model::RebalancedLR,
            intercept: fit.intercept,
            coefficients: table,
            betas: relative_betas(&names, new_b),
            used: names,
            model_fit: Some(ModelFit::from_ols(&fit)),
        })
    }

    /// Features with a non-zero NNLS coefficient on `[1, X]` (or `[-1, X]`
    /// when the intercept's coefficient is exactly 0), in `F` order.
    fn nnls_support(&self) -> Result<Vec<String>> {
        let cols = self.x.columns();
        let mut all = cols.clone();
        all.push(self.y);
        let mom = Moments::compute(&all, None);
        let mut sol = nnls_from_moments(&cols, self.y, &mom, 1.0)?;
        if sol.x[0] == 0.0 {
            sol = nnls_from_moments(&cols, self.y, &mom, -1.0)?;
        }
        let used: Vec<String> = self
            .x
            .names()
            .iter()
            .zip(&sol.x[1..])
            .filter(|(_, &v)| v != 0.0)
            .map(|(n, _)| n.clone())
            .collect();
        if used.is_empty() {
            return Err(LinearError::EmptyNnlsSupport);
        }
        Ok(used)
    }

    fn nnlr_iterative(&self) -> Result<Fitted> {
        let names = self.x.names();
        let first = ols(&self.x.columns(), self.y, None, self.method)?;
        let used: Vec<String> = names
            .iter()
            .zip(&first.coefficients)
            .filter(|(_, &c)| c >= 0.0)
            .map(|(n, _)| n.clone())
            .collect();
        if used.is_empty() {
            return Err(LinearError::NoFeatureSelected {
                model: Model::NNLRIterative.name().into(),
                reason: "every OLS coefficient is negative".into(),
            });
        }
        let cols = self.cols(&used)?;
        let mut fit = ols(&cols, self.y, None, self.method)?;
        for c in fit.coefficients.iter_mut() {
            if *c < 0.0 {
                *c = 0.0;
            }
        }
        fit.ssr = weighted_ssr(&cols, self.y, None, fit.intercept, &fit.coefficients);
        let table = self.table(fit.intercept, &used, &fit.coefficients);
        let betas = self.betas(&used, &table)?;
        Ok(Fitted {
            model: Model::NNLRIterative,
            intercept: fit.intercept,
            coefficients: table,
            used,
            model_fit: Some(ModelFit::from_ols(&fit)),
            betas,
        })
    }

    /// The fixed-alpha Lasso on the features in code-point order: names and
    /// fit.
    fn fixed_lasso(&self) -> Result<(Vec<String>, super::lasso::LassoFit)> {
        let order = sorted(self.x.names().to_vec());
        let cols = self.cols(&order)?;
        let alpha = fixed_lambda_alpha(self.y.len(), order.len());
        Ok((order, positive_lasso(&cols, self.y, alpha)?))
    }

    fn nonzero_in_f_order(
        &self,
        names: &[String],
        coefs: &[f64],
        model: Model,
    ) -> Result<Vec<String>> {
        let used: Vec<String> = self
            .x
            .names()
            .iter()
            .filter(|f| {
                names
                    .iter()
                    .position(|n| n == *f)
                    .is_some_and(|j| coefs[j] != 0.0)
            })
            .cloned()
            .collect();
        if used.is_empty() {
            return Err(LinearError::NoFeatureSelected {
                model: model.name().into(),
                reason: "the Lasso gave every feature a zero coefficient".into(),
            });
        }
        Ok(used)
    }

    fn fixed_lasso_support(&self) -> Result<Vec<String>> {
        let (order, fit) = self.fixed_lasso()?;
        self.nonzero_in_f_order(&order, &fit.coefficients, Model::LassoFixedLambdaThenLR)
    }

    fn lasso_cv_support(&self) -> Result<Vec<String>> {
        let cv = positive_lasso_cv(&self.x.columns(), self.y)?;
        self.nonzero_in_f_order(
            self.x.names(),
            &cv.fit.coefficients,
            Model::PositiveLassoCVThenLR,
        )
    }

    fn lasso_fixed_lambda(&self) -> Result<Fitted> {
        let (order, fit) = self.fixed_lasso()?;
        let table = self.table(fit.intercept, &order, &fit.coefficients);
        let used = self.x.names().to_vec();
        let betas = self.betas(&used, &table)?;
        Ok(Fitted {
            model: Model::LassoFixedLambda,
            intercept: fit.intercept,
            coefficients: table,
            used,
            model_fit: None,
            betas,
        })
    }

    fn positive_lasso_cv(&self) -> Result<Fitted> {
        let names = self.x.names();
        let cv = positive_lasso_cv(&self.x.columns(), self.y)?;
        let used = self.nonzero_in_f_order(names, &cv.fit.coefficients, Model::PositiveLassoCV)?;
        let mut table = vec![(INTERCEPT.to_string(), cv.fit.intercept)];
        for (n, &c) in names.iter().zip(&cv.fit.coefficients) {
            if c != 0.0 {
                table.push((n.clone(), c));
            }
        }
        let betas = self.betas(&used, &table)?;
        Ok(Fitted {
            model: Model::PositiveLassoCV,
            intercept: cv.fit.intercept,
            coefficients: table,
            used,
            model_fit: None,
            betas,
        })
    }
}

/// Beta rows from standardized values: `relative = s / sum |s|` (numpy's
/// pairwise sum).
fn relative_betas(used: &[String], standardized: Vec<f64>) -> Vec<Beta> {
    let abs: Vec<f64> = standardized.iter().map(|v| v.abs()).collect();
    let total = pairwise_sum(&abs);
    used.iter()
        .zip(standardized)
        .map(|(f, s)| Beta {
            feature: f.clone(),
            standardized: s,
            relative: s / total,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(cols: &[(&str, &[f64])]) -> FeatureMatrix {
        FeatureMatrix::from_columns(
            cols.iter()
                .map(|(n, c)| (n.to_string(), c.to_vec()))
                .collect(),
        )
        .unwrap()
    }

    #[test]
    fn names_round_trip_and_suggestions() {
        for m in Model::ALL {
            assert_eq!(m.name().parse::<Model>().unwrap(), m);
            assert_eq!(m.to_string(), m.name());
        }
        let e = "linearregression".parse::<Model>().unwrap_err();
        assert_eq!(
            e,
            LinearError::UnknownModel {
                name: "linearregression".into(),
                suggestion: "LinearRegression".into()
            }
        );
        let e = "NNLRIterativ".parse::<Model>().unwrap_err();
        assert!(
            e.to_string().contains("did you mean 'NNLRIterative'"),
            "{e}"
        );
        let e = "PositiveLassoCVThenLr".parse::<Model>().unwrap_err();
        assert!(e.to_string().contains("'PositiveLassoCVThenLR'"), "{e}");
    }

    #[test]
    fn score_weights_by_hand() {
        // Levels 1 (x2), 2 (x1): K = 2 -> 1/2/2 = 0.25, 1/2/1 = 0.5.
        assert_eq!(score_weights(&[1.0, 2.0, 1.0]), vec![0.25, 0.5, 0.25]);
        // Three levels, counts 1, 2, 3.
        let w = score_weights(&[3.0, 1.0, 2.0, 3.0, 2.0, 3.0]);
        let third = 1.0 / 3.0;
        assert_eq!(
            w,
            vec![
                third / 3.0,
                third,
                third / 2.0,
                third / 3.0,
                third / 2.0,
                third / 3.0
            ]
        );
    }

    #[test]
    fn linear_regression_table_order_and_betas() {
        // y = 1 + 2 b - a exactly; names out of code-point order.
        let b = [0.0, 1.0, 2.0, 3.0, 1.0];
        let a = [1.0, 0.0, 2.0, 1.0, 3.0];
        let y: Vec<f64> = (0..5).map(|i| 1.0 + 2.0 * b[i] - a[i]).collect();
        let x = matrix(&[("b", &b), ("a", &a)]);
        let f = fit(Model::LinearRegression, &x, &y).unwrap();
        let names: Vec<&str> = f.coefficients.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["Intercept", "a", "b"]);
        assert!((f.coefficients[1].1 + 1.0).abs() < 1e-13);
        assert!((f.coefficients[2].1 - 2.0).abs() < 1e-13);
        assert_eq!(f.used, vec!["b".to_string(), "a".to_string()]);
        assert_eq!(f.selected(), vec!["a".to_string(), "b".to_string()]);
        let mf = f.model_fit.unwrap();
        assert_eq!((mf.n_responses, mf.n_features), (5, 2));
        assert!((mf.r2 - 1.0).abs() < 1e-13);
        let sd_y = sd(&y);
        assert!((f.betas[0].standardized - 2.0 * sd(&b) / sd_y).abs() < 1e-13);
        let total = f.betas[0].standardized.abs() + f.betas[1].standardized.abs();
        assert!((f.betas[1].relative - f.betas[1].standardized / total).abs() < 1e-15);
    }

    #[test]
    fn rebalanced_by_hand_and_zero_beta_error() {
        let b = [0.0, 1.0, 2.0, 3.0, 1.0, 2.0];
        let a = [1.0, 0.0, 2.0, 1.0, 3.0, 0.0];
        let y: Vec<f64> = (0..6)
            .map(|i| 1.0 + 2.0 * b[i] - a[i] + 0.1 * (i % 2) as f64)
            .collect();
        let x = matrix(&[("b", &b), ("a", &a)]);
        let lr = fit(Model::LinearRegression, &x, &y).unwrap();
        let f = fit(Model::RebalancedLR, &x, &y).unwrap();
        // Table sorted with Intercept: "Intercept" < "a" < "b".
        let names: Vec<&str> = f.coefficients.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["Intercept", "a", "b"]);
        let sd_y = sd(&y);
        let beta_b = lr.coefficients[2].1 * sd(&b) / sd_y;
        assert!(beta_b > 0.0 && lr.coefficients[1].1 < 0.0);
        // One negative: it gets 5% of the positive sum; b keeps 95%.
        assert!((f.betas[0].standardized - 0.95 * beta_b).abs() < 1e-13);
        assert!((f.betas[1].standardized - 0.05 * beta_b).abs() < 1e-13);
        assert!((f.betas[1].relative - 0.05).abs() < 1e-13);
        assert_eq!(f.intercept, lr.intercept);
        // No negative and a zero beta: error naming the feature.
        let z = [0.0; 6];
        let mut zc = z;
        zc[0] = 0.0;
        let x = matrix(&[("b", &b), ("zero", &zc)]);
        let yb: Vec<f64> = b.iter().map(|v| 2.0 * v + 1.0).collect();
        let e = fit(Model::RebalancedLR, &x, &yb).unwrap_err();
        assert_eq!(
            e,
            LinearError::RebalancedZeroBeta {
                feature: "zero".into()
            }
        );
    }

    #[test]
    fn nnlr_drops_negative_feature() {
        let b = [0.0, 1.0, 2.0, 3.0, 1.0, 2.0, 0.5];
        let a = [1.0, 0.0, 2.0, 1.0, 3.0, 0.0, 1.5];
        let y: Vec<f64> = (0..7).map(|i| 1.0 + 2.0 * b[i] - a[i]).collect();
        let x = matrix(&[("b", &b), ("a", &a)]);
        for m in [
            Model::NNLR,
            Model::LassoFixedLambdaThenNNLR,
            Model::NNLRIterative,
        ] {
            let f = fit(m, &x, &y).unwrap();
            assert_eq!(f.used, vec!["b".to_string()], "{m}");
            assert_eq!(f.selected(), vec!["b".to_string()]);
            // OLS of y on b alone.
            let lr = ols(&[&b], &y, None, OlsMethod::Auto).unwrap();
            assert!((f.coefficients[1].1 - lr.coefficients[0]).abs() < 1e-12);
        }
    }

    #[test]
    fn nnlr_iterative_zeroes_after_refit_and_keeps_intercept() {
        // y = 2a + 0.2b - 1.5c with b close to c: the full fit drops c; the
        // refit on (a, b) gives b a negative slope, which is set to 0; R2 is
        // then computed with the refit's intercept and a's slope only.
        let n = 12;
        let a: Vec<f64> = (0..n).map(|i| ((i * 7) % 5) as f64).collect();
        let c: Vec<f64> = (0..n).map(|i| ((i * 3) % 7) as f64).collect();
        let b: Vec<f64> = (0..n)
            .map(|i| c[i] + 0.1 * ((i % 3) as f64 - 1.0))
            .collect();
        let y: Vec<f64> = (0..n)
            .map(|i| 2.0 * a[i] + 0.2 * b[i] - 1.5 * c[i])
            .collect();
        let x = matrix(&[("a", &a), ("b", &b), ("c", &c)]);
        let full = ols(&[&a, &b, &c], &y, None, OlsMethod::Auto).unwrap();
        assert!(full.coefficients[2] < 0.0 && full.coefficients[1] >= 0.0);
        let refit = ols(&[&a, &b], &y, None, OlsMethod::Auto).unwrap();
        assert!(refit.coefficients[1] < 0.0);
        let f = fit(Model::NNLRIterative, &x, &y).unwrap();
        assert_eq!(f.used, vec!["a".to_string(), "b".to_string()]);
        let names: Vec<&str> = f.coefficients.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["Intercept", "a", "b"]);
        assert_eq!(f.coefficients[0].1, refit.intercept);
        assert_eq!(f.coefficients[1].1, refit.coefficients[0]);
        assert_eq!(f.coefficients[2].1, 0.0);
        let ssr: f64 = (0..n)
            .map(|i| (y[i] - refit.intercept - refit.coefficients[0] * a[i]).powi(2))
            .sum();
        let mf = f.model_fit.unwrap();
        assert!((mf.r2 - (1.0 - ssr / refit.centered_tss)).abs() < 1e-12);
        assert_eq!(mf.n_features, 2);
        assert_eq!(f.betas[1].standardized, 0.0);
    }

    #[test]
    fn lasso_tables_order() {
        // Names out of code-point order: LassoFixedLambda lists every
        // feature sorted (zeros included), betas in F order; PositiveLassoCV
        // lists the non-zero ones in F order.
        let n = 40;
        let z: Vec<f64> = (0..n).map(|i| ((i * 7) % 11) as f64).collect();
        let m: Vec<f64> = (0..n).map(|i| ((i * 5) % 13) as f64).collect();
        let neg: Vec<f64> = (0..n).map(|i| ((i * 3) % 17) as f64).collect();
        let y: Vec<f64> = (0..n)
            .map(|i| 1.0 + 0.8 * z[i] + 0.5 * m[i] - 0.3 * neg[i])
            .collect();
        let x = matrix(&[("z", &z), ("neg", &neg), ("m", &m)]);
        let f = fit(Model::LassoFixedLambda, &x, &y).unwrap();
        let names: Vec<&str> = f.coefficients.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["Intercept", "m", "neg", "z"]);
        assert_eq!(f.coefficients[2].1, 0.0); // negative association -> 0
        let betas: Vec<&str> = f.betas.iter().map(|b| b.feature.as_str()).collect();
        assert_eq!(betas, ["z", "neg", "m"]);
        assert!(f.model_fit.is_none());
        let f = fit(Model::PositiveLassoCV, &x, &y).unwrap();
        let names: Vec<&str> = f.coefficients.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["Intercept", "z", "m"]);
        assert_eq!(f.selected(), vec!["m".to_string(), "z".to_string()]);
        let f = fit(Model::LassoFixedLambdaThenLR, &x, &y).unwrap();
        assert_eq!(f.used, vec!["z".to_string(), "m".to_string()]);
        assert!(f.model_fit.is_some());
    }

    #[test]
    fn empty_nnls_support_is_an_error() {
        let a = [0.0, 1.0, 2.0, 3.0];
        let y = [3.0, 2.0, 1.0, 0.0];
        let x = matrix(&[("a", &a)]);
        assert_eq!(
            fit(Model::NNLR, &x, &y).unwrap_err(),
            LinearError::EmptyNnlsSupport
        );
        assert!(matches!(
            fit(Model::NNLRIterative, &x, &y),
            Err(LinearError::NoFeatureSelected { .. })
        ));
    }

    #[test]
    fn equal_weights_common_slope() {
        // y = 3 (a + b) + 1 exactly.
        let a = [0.0, 1.0, 2.0, 0.5];
        let b = [1.0, 1.0, 0.0, 2.0];
        let y: Vec<f64> = (0..4).map(|i| 3.0 * (a[i] + b[i]) + 1.0).collect();
        let f = fit(Model::EqualWeightsLR, &matrix(&[("a", &a), ("b", &b)]), &y).unwrap();
        assert!((f.coefficients[1].1 - 3.0).abs() < 1e-13);
        assert_eq!(f.coefficients[1].1, f.coefficients[2].1);
        assert_eq!(f.model_fit.unwrap().n_features, 1);
    }

    #[test]
    fn input_errors() {
        let x = matrix(&[("a", &[1.0, 2.0])]);
        assert_eq!(
            fit(Model::LinearRegression, &x, &[1.0]).unwrap_err(),
            LinearError::LengthMismatch {
                what: "the training label".into(),
                expected: 2,
                found: 1
            }
        );
        let x = matrix(&[("a", &[1.0]), ("b", &[2.0])]);
        assert_eq!(
            fit(Model::LinearRegression, &x, &[1.0]).unwrap_err(),
            LinearError::TooFewRows {
                rows: 1,
                features: 2
            }
        );
    }
}
