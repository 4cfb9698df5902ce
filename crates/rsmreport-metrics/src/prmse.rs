//! Part of the metrics stage (pure maths: no I/O, no tables, no plots).
//!
//! True-score evaluation (spec 3.13): rater error variance, true-score
//! variance, and for each system the MSE against the true score and the
//! PRMSE. Written for any number of human raters per response (columns of
//! equal length, NaN = missing); RSMTool's rsmeval uses one or two.
//!
//! Responses without any human score (`c_i = 0`) carry no information about
//! the true score; they are left out entirely (not counted in `n`, nor in
//! any sum). The pipeline never produces them (the first human score is
//! always present).

use crate::summary::pairwise_sum_by;

/// What a system score is evaluated against: the human-score summary of
/// spec 3.13, computed once per set of human columns.
#[derive(Clone, Debug, PartialEq)]
pub struct TrueScoreBasis {
    /// `N`: responses with at least one human score.
    pub n: usize,
    /// `max c_i`: the largest number of human scores of one response.
    pub n_raters: usize,
    /// Responses with exactly one human score.
    pub n_single: usize,
    /// Responses with more than one human score.
    pub n_multiple: usize,
    /// `Ve`: the configured rater error variance if given, else pooled from
    /// responses with `c_i > 1`; NaN when unknown.
    pub error_variance: f64,
    /// `VarT`; NaN when `Ve` is unknown.
    pub true_score_var: f64,
    /// `Hbar_i` per input row (NaN where `c_i = 0`).
    mean_scores: Vec<f64>,
    /// `c_i` per input row.
    counts: Vec<u32>,
    /// `M = sum c_i`.
    total_scores: usize,
}

/// Summarises the human columns (spec 3.13). With `c_i` = number of
/// non-missing scores of response `i`, `Hbar_i` their mean, `N` the number of
/// responses with `c_i >= 1`, `M = sum c_i` and `G` the mean of all
/// individual scores:
/// * `Ve` = `rater_error_variance` if given (even when several raters
///   exist), else `sum V_i (c_i - 1) / sum (c_i - 1)` over responses with
///   `c_i > 1`, `V_i` = sample variance (ddof 1) of the response's scores;
///   NaN when neither is available;
/// * `VarT = ( sum c_i (Hbar_i - G)^2 - (N - 1) Ve ) / ( M - sum c_i^2 / M )`.
///
/// Columns are read up to the first column's length; a shorter column counts
/// as missing past its end.
pub fn true_score_basis(humans: &[&[f64]], rater_error_variance: Option<f64>) -> TrueScoreBasis {
    let rows = humans.first().map_or(0, |c| c.len());
    let score = |j: usize, i: usize| humans[j].get(i).copied().filter(|v| !v.is_nan());

    let mut mean_scores = Vec::with_capacity(rows);
    let mut counts = Vec::with_capacity(rows);
    let (mut n, mut n_single, mut n_multiple, mut n_raters) = (0, 0, 0, 0);
    let (mut total_scores, mut sum_sq_counts, mut dof) = (0usize, 0u128, 0u64);
    for i in 0..rows {
        let (mut c, mut sum) = (0u32, 0.0);
        for j in 0..humans.len() {
            if let Some(v) = score(j, i) {
                c += 1;
                sum += v;
            }
        }
        mean_scores.push(if c == 0 { f64::NAN } else { sum / f64::from(c) });
        counts.push(c);
        if c == 0 {
            continue;
        }
        n += 1;
        n_raters = n_raters.max(c as usize);
        total_scores += c as usize;
        sum_sq_counts += u128::from(c) * u128::from(c);
        dof += u64::from(c - 1);
        if c == 1 {
            n_single += 1;
        } else {
            n_multiple += 1;
        }
    }

    let error_variance = match rater_error_variance {
        Some(v) => v,
        None if n_multiple == 0 => f64::NAN,
        None => {
            // np.average(V, weights = c - 1) with V_i = np.nanvar(row, ddof=1);
            // rows with c_i <= 1 contribute 0 (no per-row storage needed).
            let weighted = pairwise_sum_by(rows, |i| {
                let c = counts[i];
                if c <= 1 {
                    return [0.0];
                }
                let hbar = mean_scores[i];
                let ss = (0..humans.len())
                    .filter_map(|j| score(j, i))
                    .fold(0.0, |acc, v| acc + (v - hbar) * (v - hbar));
                let w = f64::from(c - 1);
                [ss / w * w]
            })[0];
            weighted / dof as f64
        }
    };

    let true_score_var = if error_variance.is_nan() {
        f64::NAN
    } else {
        // G = np.nanmean over all scores, summed in the frame's column-major
        // memory order (column 0 first, then column 1, ...).
        let flat = |t: usize| -> (usize, usize) {
            if t < rows {
                (0, t)
            } else if t < 2 * rows {
                (1, t - rows)
            } else {
                (t / rows, t % rows)
            }
        };
        let g = pairwise_sum_by(rows * humans.len(), |t| {
            let (j, i) = flat(t);
            [score(j, i).unwrap_or(0.0)]
        })[0]
            / total_scores as f64;
        let sum_sq = pairwise_sum_by(rows, |i| {
            if counts[i] == 0 {
                [0.0]
            } else {
                let d = mean_scores[i] - g;
                [f64::from(counts[i]) * (d * d)]
            }
        })[0];
        true_score_variance(
            sum_sq,
            n as f64,
            error_variance,
            total_scores as f64,
            sum_sq_counts as f64,
        )
    };

    TrueScoreBasis {
        n,
        n_raters,
        n_single,
        n_multiple,
        error_variance,
        true_score_var,
        mean_scores,
        counts,
        total_scores,
    }
}

impl TrueScoreBasis {
    /// `(MSE_true, PRMSE)` of one system score column (same rows as the
    /// human columns): `MSE_true = ( sum c_i (Hbar_i - s_i)^2 - N Ve ) / M`,
    /// `PRMSE = 1 - MSE_true / VarT`. Not clipped: MSE may be negative and
    /// PRMSE above 1 on small samples. Both NaN when `Ve` is unknown or the
    /// system has a different number of rows.
    pub fn evaluate(&self, system: &[f64]) -> (f64, f64) {
        if self.error_variance.is_nan() || system.len() != self.counts.len() {
            return (f64::NAN, f64::NAN);
        }
        let se = pairwise_sum_by(system.len(), |i| {
            if self.counts[i] == 0 {
                [0.0]
            } else {
                let d = self.mean_scores[i] - system[i];
                [(d * d) * f64::from(self.counts[i])]
            }
        })[0];
        mse_prmse(
            se,
            self.n as f64,
            self.error_variance,
            self.total_scores as f64,
            self.true_score_var,
        )
    }
}

/// `VarT = ( sum c_i (Hbar_i - G)^2 - (N - 1) Ve ) / ( M - sum c_i^2 / M )`
/// from its sums (`sum_sq` is the first sum).
pub(crate) fn true_score_variance(sum_sq: f64, n: f64, ve: f64, m: f64, sum_sq_counts: f64) -> f64 {
    let numerator = sum_sq - (n - 1.0) * ve;
    let denominator = m - sum_sq_counts / m;
    numerator / denominator
}

/// `(MSE_true, PRMSE)` from `se = sum c_i (Hbar_i - s_i)^2`:
/// `MSE_true = (se - N Ve) / M`, `PRMSE = 1 - MSE_true / VarT`.
pub(crate) fn mse_prmse(se: f64, n: f64, ve: f64, m: f64, var_t: f64) -> (f64, f64) {
    let mse = (se - n * ve) / m;
    (mse, 1.0 - mse / var_t)
}

/// Additive sums of the true-score evaluation over a set of responses with
/// one or two human scores (NaN = missing) and `k` system scores: what
/// [`true_score_basis`] and [`TrueScoreBasis::evaluate`] compute, as sums
/// that add across sets and scale with repeats (the bootstrap, uncertainty
/// spec 2.1). [`TrueScoreSums::evaluate`] applies the same formulas
/// (`true_score_variance`, `mse_prmse`).
#[derive(Clone, Debug, PartialEq)]
pub struct TrueScoreSums {
    /// Responses with a human score, and with two.
    pub n: f64,
    pub n_multiple: f64,
    /// `M = sum c_i`, `sum c_i^2`, `sum (c_i - 1)`.
    pub m: f64,
    pub sum_sq_counts: f64,
    pub dof: f64,
    /// `sum V_i (c_i - 1)` over responses with two scores.
    pub within: f64,
    /// `sum c_i d_i` and `sum c_i d_i^2` with `d_i = Hbar_i - centre`.
    pub cd: f64,
    pub cdd: f64,
    /// Per system score: `sum c_i (Hbar_i - s_i)^2`.
    pub se: Vec<f64>,
}

impl TrueScoreSums {
    /// The sums of no responses, for `k` system scores.
    pub fn zero(k: usize) -> Self {
        TrueScoreSums {
            n: 0.0,
            n_multiple: 0.0,
            m: 0.0,
            sum_sq_counts: 0.0,
            dof: 0.0,
            within: 0.0,
            cd: 0.0,
            cdd: 0.0,
            se: vec![0.0; k],
        }
    }

    /// Adds one response: human scores `h1`, `h2` (NaN = missing), system
    /// scores `systems(j)` for `j < k`; `centre` is a fixed reference
    /// point near the mean score.
    #[inline]
    pub fn push(&mut self, centre: f64, h1: f64, h2: f64, systems: impl Fn(usize) -> f64) {
        let (c, sum) = match (h1.is_nan(), h2.is_nan()) {
            (true, true) => return,
            (false, true) => (1.0, h1),
            (true, false) => (1.0, h2),
            (false, false) => (2.0, h1 + h2),
        };
        let hbar = sum / c;
        self.n += 1.0;
        self.m += c;
        self.sum_sq_counts += c * c;
        self.dof += c - 1.0;
        if c > 1.0 {
            self.n_multiple += 1.0;
            let (a, b) = (h1 - hbar, h2 - hbar);
            self.within += a * a + b * b;
        }
        let d = hbar - centre;
        self.cd += c * d;
        self.cdd += c * d * d;
        for (j, se) in self.se.iter_mut().enumerate() {
            let e = hbar - systems(j);
            *se += c * (e * e);
        }
    }

    /// Adds one response with any number of human scores `hs` (NaN =
    /// missing; the ratings of every human column, `other_human_score_columns`
    /// included): the sums of [`TrueScoreSums::push`] for `c_i` ratings,
    /// with `sum V_i (c_i - 1) = sum (h - Hbar_i)^2`.
    pub fn push_all(&mut self, centre: f64, hs: &[f64], systems: impl Fn(usize) -> f64) {
        let (mut c, mut sum) = (0.0, 0.0);
        for &h in hs.iter().filter(|h| !h.is_nan()) {
            c += 1.0;
            sum += h;
        }
        if c == 0.0 {
            return;
        }
        let hbar = sum / c;
        self.n += 1.0;
        self.m += c;
        self.sum_sq_counts += c * c;
        self.dof += c - 1.0;
        if c > 1.0 {
            self.n_multiple += 1.0;
            self.within += hs
                .iter()
                .filter(|h| !h.is_nan())
                .map(|h| (h - hbar) * (h - hbar))
                .sum::<f64>();
        }
        let d = hbar - centre;
        self.cd += c * d;
        self.cdd += c * d * d;
        for (j, se) in self.se.iter_mut().enumerate() {
            let e = hbar - systems(j);
            *se += c * (e * e);
        }
    }

    /// Adds `w` times `other`.
    #[inline]
    pub fn add_scaled(&mut self, other: &TrueScoreSums, w: f64) {
        self.n += w * other.n;
        self.n_multiple += w * other.n_multiple;
        self.m += w * other.m;
        self.sum_sq_counts += w * other.sum_sq_counts;
        self.dof += w * other.dof;
        self.within += w * other.within;
        self.cd += w * other.cd;
        self.cdd += w * other.cdd;
        for (a, b) in self.se.iter_mut().zip(&other.se) {
            *a += w * b;
        }
    }

    /// `(Ve, VarT, [(MSE_true, PRMSE)])`: `Ve` is `rater_error_variance`
    /// when given, else pooled from the double-scored responses (NaN
    /// without any).
    pub fn evaluate(&self, rater_error_variance: Option<f64>) -> (f64, f64, Vec<(f64, f64)>) {
        let ve = match rater_error_variance {
            Some(v) => v,
            None if self.n_multiple == 0.0 => f64::NAN,
            None => self.within / self.dof,
        };
        let nan = (f64::NAN, f64::NAN);
        if ve.is_nan() || self.n == 0.0 {
            return (ve, f64::NAN, vec![nan; self.se.len()]);
        }
        // sum c (Hbar - G)^2 with G = sum c Hbar / M, from the centred sums.
        let sum_sq = (self.cdd - self.cd * self.cd / self.m).max(0.0);
        let var_t = true_score_variance(sum_sq, self.n, ve, self.m, self.sum_sq_counts);
        let results = self
            .se
            .iter()
            .map(|&se| mse_prmse(se, self.n, ve, self.m, var_t))
            .collect();
        (ve, var_t, results)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAN: f64 = f64::NAN;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        a == b || (a - b).abs() <= rel * b.abs().max(a.abs())
    }

    const SC1: [f64; 8] = [1.0, 2.0, 3.0, 4.0, 5.0, 3.0, 2.0, 4.0];
    const SC2: [f64; 8] = [2.0, 2.0, NAN, 4.0, 4.0, NAN, 1.0, NAN];
    const SYS: [f64; 8] = [1.2, 2.5, 2.9, 4.4, 4.6, 3.5, 1.5, 3.9];

    #[test]
    fn sums_give_the_basis_values() {
        for rev in [None, Some(0.25)] {
            let b = true_score_basis(&[&SC1, &SC2], rev);
            let mut sums = TrueScoreSums::zero(2);
            let sys2: Vec<f64> = SYS.iter().map(|x| x * 0.9 + 0.3).collect();
            for i in 0..SC1.len() {
                sums.push(
                    3.0,
                    SC1[i],
                    SC2[i],
                    |j| if j == 0 { SYS[i] } else { sys2[i] },
                );
            }
            let (ve, var_t, results) = sums.evaluate(rev);
            assert!(close(ve, b.error_variance, 1e-12));
            assert!(close(var_t, b.true_score_var, 1e-12));
            for (r, sys) in results.iter().zip([SYS.to_vec(), sys2]) {
                let (mse, prmse) = b.evaluate(&sys);
                assert!(close(r.0, mse, 1e-12) && close(r.1, prmse, 1e-12), "{r:?}");
            }
        }
        // Twice the same responses: the same Ve; sums scale.
        let mut once = TrueScoreSums::zero(1);
        for i in 0..SC1.len() {
            once.push(3.0, SC1[i], SC2[i], |_| SYS[i]);
        }
        let mut twice = TrueScoreSums::zero(1);
        twice.add_scaled(&once, 2.0);
        assert!(close(twice.evaluate(None).0, once.evaluate(None).0, 1e-15));
        assert_eq!(twice.n, 16.0);
        // No double-scored response: everything NaN.
        let mut single = TrueScoreSums::zero(1);
        single.push(3.0, 2.0, NAN, |_| 2.5);
        let (ve, var_t, r) = single.evaluate(None);
        assert!(ve.is_nan() && var_t.is_nan() && r[0].1.is_nan());
    }

    #[test]
    fn golden_v5_partial_double_scoring() {
        // V_i for the 5 double-scored rows: 0.5, 0, 0, 0.5, 0.5 -> Ve = 1.5/5 = 0.3.
        let b = true_score_basis(&[&SC1, &SC2], None);
        assert_eq!((b.n, b.n_raters, b.n_single, b.n_multiple), (8, 2, 3, 5));
        assert!(close(b.error_variance, 0.3, 1e-12));
        assert!(close(b.true_score_var, 1.4328767123287671, 1e-12));
        let (mse, prmse) = b.evaluate(&SYS);
        assert!(close(mse, -0.08538461538461534, 1e-12), "{mse}");
        assert!(close(prmse, 1.0595896455361082, 1e-12), "{prmse}");
    }

    #[test]
    fn golden_v5_single_rater_with_supplied_variance() {
        let b = true_score_basis(&[&SC1], Some(0.5));
        assert_eq!((b.n, b.n_raters, b.n_single, b.n_multiple), (8, 1, 8, 0));
        assert_eq!(b.error_variance, 0.5);
        assert!(close(b.true_score_var, 1.2142857142857142, 1e-12));
        let (mse, prmse) = b.evaluate(&SYS);
        assert!(close(mse, -0.3587499999999999, 1e-12), "{mse}");
        assert!(close(prmse, 1.2954411764705882, 1e-12), "{prmse}");

        // sc1 [2,3,5], system [1,2,5], Ve 0.5: G = 10/3; sum (h-G)^2 = 16/9+1/9+25/9
        // = 42/9; VarT = (42/9 - 2*0.5)/(3 - 3/3) = (33/9)/2 = 11/6;
        // MSE = (1+1+0 - 3*0.5)/3 = 1/6; PRMSE = 1 - (1/6)/(11/6) = 10/11.
        let b = true_score_basis(&[&[2.0, 3.0, 5.0]], Some(0.5));
        assert!(close(b.true_score_var, 11.0 / 6.0, 1e-12));
        let (mse, prmse) = b.evaluate(&[1.0, 2.0, 5.0]);
        assert!(close(mse, 1.0 / 6.0, 1e-12));
        assert!(close(prmse, 0.9090909090909091, 1e-12));
    }

    #[test]
    fn supplied_variance_wins_over_second_rater() {
        let b = true_score_basis(&[&SC1, &SC2], Some(0.7));
        assert_eq!(b.error_variance, 0.7);
        assert_eq!(b.n_multiple, 5);
        let d = true_score_basis(&[&SC1, &SC2], None);
        assert_ne!(b.true_score_var, d.true_score_var);
        // Supplied 0 is used as such (not "unknown").
        let z = true_score_basis(&[&SC1, &SC2], Some(0.0));
        assert_eq!(z.error_variance, 0.0);
        assert!(z.true_score_var.is_finite());
    }

    #[test]
    fn ten_percent_double_scored() {
        // 10 responses, only the first double-scored (1 and 2):
        // c = [2,1,...,1], N = 10, M = 11, sum c^2 = 13; V_0 = 0.5 -> Ve = 0.5.
        // G = (30 + 2)/11 = 32/11. sum c (Hbar - G)^2 = sum c Hbar^2 - M G^2
        // = (2*2.25 + 109) - 1024/11 = 449/22. VarT = (449/22 - 9*0.5)/(11 - 13/11)
        // = (175/11)/(108/11) = 175/108.
        // System [3,2,3,3,5,1,2,3,4,3]: sum c (Hbar - s)^2 = 2*2.25 + 1 + 4 = 9.5;
        // MSE = (9.5 - 10*0.5)/11 = 9/22; PRMSE = 1 - (9/22)/(175/108) = 1439/1925.
        let sc1 = [1.0, 2.0, 3.0, 4.0, 5.0, 1.0, 2.0, 3.0, 4.0, 5.0];
        let mut sc2 = [NAN; 10];
        sc2[0] = 2.0;
        let b = true_score_basis(&[&sc1, &sc2], None);
        assert_eq!((b.n, b.n_raters, b.n_single, b.n_multiple), (10, 2, 9, 1));
        assert!(close(b.error_variance, 0.5, 1e-15));
        assert!(close(b.true_score_var, 175.0 / 108.0, 1e-12));
        let (mse, prmse) = b.evaluate(&[3.0, 2.0, 3.0, 3.0, 5.0, 1.0, 2.0, 3.0, 4.0, 3.0]);
        assert!(close(mse, 9.0 / 22.0, 1e-12), "{mse}");
        assert!(close(prmse, 1439.0 / 1925.0, 1e-12), "{prmse}");
    }

    #[test]
    fn three_raters_pool_by_degrees_of_freedom() {
        // Row 0: (1,2,3): V = 1, weight 2. Row 1: (2,4,-): V = 2, weight 1.
        // Row 2: (3,-,-). Ve = (1*2 + 2*1)/3 = 4/3.
        // c = [3,2,1], N = 3, M = 6, sum c^2 = 14; Hbar = [2,3,3]; G = 15/6 = 2.5.
        // sum c (Hbar - G)^2 = 3*0.25 + 2*0.25 + 0.25 = 1.5.
        // VarT = (1.5 - 2*4/3)/(6 - 14/6) = (-7/6)/(11/3) = -7/22.
        // System [2,3,3]: MSE = (0 - 3*4/3)/6 = -2/3;
        // PRMSE = 1 - (-2/3)/(-7/22) = 1 - 44/21 = -23/21.
        let r1 = [1.0, 2.0, 3.0];
        let r2 = [2.0, 4.0, NAN];
        let r3 = [3.0, NAN, NAN];
        let b = true_score_basis(&[&r1, &r2, &r3], None);
        assert_eq!((b.n, b.n_raters, b.n_single, b.n_multiple), (3, 3, 1, 2));
        assert!(close(b.error_variance, 4.0 / 3.0, 1e-15));
        assert!(close(b.true_score_var, -7.0 / 22.0, 1e-12));
        let (mse, prmse) = b.evaluate(&[2.0, 3.0, 3.0]);
        assert!(close(mse, -2.0 / 3.0, 1e-12));
        assert!(close(prmse, -23.0 / 21.0, 1e-12));
    }

    #[test]
    fn no_double_scores_and_no_variance_is_nan() {
        let sc2 = [NAN; 8];
        let b = true_score_basis(&[&SC1, &sc2], None);
        assert_eq!((b.n, b.n_raters, b.n_single, b.n_multiple), (8, 1, 8, 0));
        assert!(b.error_variance.is_nan());
        assert!(b.true_score_var.is_nan());
        let (mse, prmse) = b.evaluate(&SYS);
        assert!(mse.is_nan() && prmse.is_nan());
        let single = true_score_basis(&[&SC1], None);
        assert!(single.error_variance.is_nan() && single.true_score_var.is_nan());
    }

    #[test]
    fn unscored_rows_and_degenerate_inputs() {
        // A row with no human score is left out: same result as without it.
        let with = true_score_basis(&[&[1.0, NAN, 3.0, 2.0], &[2.0, NAN, 3.0, NAN]], None);
        let without = true_score_basis(&[&[1.0, 3.0, 2.0], &[2.0, 3.0, NAN]], None);
        assert_eq!(with.n, 3);
        assert_eq!(with.error_variance, without.error_variance);
        assert_eq!(with.true_score_var, without.true_score_var);
        assert_eq!(
            with.evaluate(&[1.0, 9.0, 3.0, 2.0]),
            without.evaluate(&[1.0, 3.0, 2.0])
        );
        // Wrong system length -> NaN, no panic.
        let (a, b) = with.evaluate(&[1.0]);
        assert!(a.is_nan() && b.is_nan());
        // No columns at all / no rows.
        let empty = true_score_basis(&[], Some(0.5));
        assert_eq!((empty.n, empty.n_raters), (0, 0));
        assert!(empty.true_score_var.is_nan());
        let (mse, prmse) = empty.evaluate(&[]);
        assert!(mse.is_nan() && prmse.is_nan());
        // A shorter second column is missing past its end.
        let short = true_score_basis(&[&SC1, &SC2[..2]], None);
        assert_eq!(short.n_multiple, 2);
        // Rows 0 and 1 double-scored: V = 0.5 and 0 -> Ve = 0.25.
        assert!(close(short.error_variance, 0.25, 1e-15));
    }
}

/// Spec `agreement.md` section 5: PRMSE with any number of raters (the
/// published and hand-computed pins; new tests, the ones above unchanged).
#[cfg(test)]
mod many_raters_tests {
    use super::*;

    const NAN: f64 = f64::NAN;

    fn near(a: f64, b: f64, tol: f64, what: &str) {
        assert!((a - b).abs() <= tol, "{what}: {a} vs {b}");
    }

    /// Ratings `(1,2,.) (3,3,4) (2,.,.) (4,5,5) (1,1,2)`, system `(2, 2.5,
    /// 3, 4, 2)`: error variance 5/14, true-score variance 2.177295918,
    /// MSE 0.372023810, PRMSE 0.829134935.
    #[test]
    fn spec5_hand_case_three_raters_with_missing_ratings() {
        let h1 = [1.0, 3.0, 2.0, 4.0, 1.0];
        let h2 = [2.0, 3.0, NAN, 5.0, 1.0];
        let h3 = [NAN, 4.0, NAN, 5.0, 2.0];
        let basis = true_score_basis(&[&h1, &h2, &h3], None);
        assert_eq!(basis.n_raters, 3);
        near(basis.error_variance, 5.0 / 14.0, 1e-15, "Ve");
        near(basis.true_score_var, 2.177295918, 5e-10, "VarT");
        let (mse, prmse) = basis.evaluate(&[2.0, 2.5, 3.0, 4.0, 2.0]);
        near(mse, 0.372023810, 5e-10, "MSE");
        near(prmse, 0.829134935, 5e-10, "PRMSE");
    }

    /// RSMTool's test: one human score, `rater_error_variance = 0.5`,
    /// system `[1, 2, 5]`, human `[2, 3, 5]`: PRMSE 0.9090909090909091.
    #[test]
    fn sums_of_any_number_of_raters_give_the_basis_values() {
        // Spec 5's hand case: ratings (1,2,.) (3,3,4) (2,.,.) (4,5,5) (1,1,2).
        let cols = [
            vec![1.0, 3.0, 2.0, 4.0, 1.0],
            vec![2.0, 3.0, NAN, 5.0, 1.0],
            vec![NAN, 4.0, NAN, 5.0, 2.0],
        ];
        let system = [2.0, 2.5, 3.0, 4.0, 2.0];
        let refs: Vec<&[f64]> = cols.iter().map(Vec::as_slice).collect();
        let basis = true_score_basis(&refs, None);
        let (mse, prmse) = basis.evaluate(&system);
        let mut sums = TrueScoreSums::zero(1);
        for i in 0..5 {
            let hs: Vec<f64> = cols.iter().map(|c| c[i]).collect();
            sums.push_all(2.5, &hs, |_| system[i]);
        }
        let (ve, var_t, r) = sums.evaluate(None);
        near(ve, basis.error_variance, 1e-12, "Ve");
        near(var_t, basis.true_score_var, 1e-12, "VarT");
        near(r[0].0, mse, 1e-12, "MSE");
        near(r[0].1, prmse, 1e-12, "PRMSE");
        near(prmse, 0.829134935, 1e-9, "PRMSE (spec 5)");
        // Two ratings: the same sums as push.
        let mut two = TrueScoreSums::zero(1);
        let mut all = TrueScoreSums::zero(1);
        for i in 0..5 {
            two.push(2.5, cols[0][i], cols[1][i], |_| system[i]);
            all.push_all(2.5, &[cols[0][i], cols[1][i]], |_| system[i]);
        }
        assert_eq!(two.evaluate(None), all.evaluate(None));
    }

    #[test]
    fn spec5_rsmtool_single_rater_with_given_error_variance() {
        let basis = true_score_basis(&[&[2.0, 3.0, 5.0]], Some(0.5));
        let (_, prmse) = basis.evaluate(&[1.0, 2.0, 5.0]);
        near(prmse, 0.9090909090909091, 1e-15, "PRMSE");
    }
}
