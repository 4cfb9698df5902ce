//! Aside from the stages and the kinds (not part of any report):
//! `rsmreport simulate`, a seeded generator of realistic predictions files.
//! Pure: no I/O, no clock, no environment. It builds [`Table`]s (and the
//! text of a matching experiment file); the command line's `simulate`
//! command hands them to `rsmreport_io::output`, which writes them. Of the
//! workspace it uses only `rsmreport_core`'s `table` and `pyrepr` (number
//! text) and the one random generator
//! (`rsmreport_metrics::bootstrap::Xoshiro256`).
//!
//! # Design
//!
//! After Loukina et al. (2020), "Using PRMSE to evaluate automated scoring
//! systems in the presence of label noise" (the "sim" family of the
//! fixtures and `scripts/make_example_data.py` follow the same design):
//!
//! * true score `T ~ Normal(true_mean, true_sd)` clipped to
//!   `[score_min, score_max]`;
//! * human scores `H_k = clip(round_half_even(T + e_k))`,
//!   `e_k ~ Normal(0, sd_e)` independent; the second human score only on a
//!   chosen fraction of the responses;
//! * system score `S = T + bias(group) + e_s`, `e_s ~ Normal(0, sd_s)`,
//!   written on its own scale as `a * S + b`, rounded to `decimals` places;
//! * subgroup columns with uneven, weighted level sizes; optionally a bias of
//!   the system score for some levels;
//! * optionally zero and non-numeric (`NS`) human scores and non-numeric
//!   (`NA`) system scores, as a real export has them.
//!
//! ## Error standard deviations
//!
//! Let `var_T` be the variance of the (clipped) true score; it is computed
//! exactly for the clipped normal ([`clipped_normal_moments`]), so a narrow
//! score range does not bias the targets. With independent errors,
//! `cov(H1*, H2*) = var_T` and `var(Hk*) = var_T + sd_e^2` for the
//! unrounded `Hk* = T + e_k`, so
//!
//! ```text
//! corr(H1*, H2*) = var_T / (var_T + sd_e^2) = rho
//!   =>  sd_e = sqrt(var_T * (1 - rho) / rho)
//! ```
//!
//! Likewise `corr(S, T)^2 = var_T / (var_T + sd_s^2) = R2` gives
//! `sd_s = sqrt(var_T * (1 - R2) / R2)` (without group bias; the linear
//! rescaling `a * S + b` changes neither correlation). The targets hold for
//! the unrounded scores. Rounding to whole score points adds about `1/12`
//! (the variance of a uniform rounding error) to each human score's
//! variance, so the observed correlation of the written scores is about
//! `var_T / (var_T + sd_e^2 + 1/12)`: 0.59 instead of 0.65 for the default
//! design (clipping lowers it a little more at the ends of the scale).
//!
//! # Determinism
//!
//! The same spec gives the same values on every platform: the random numbers
//! come from xoshiro256** seeded with SplitMix64 (the metrics crate's
//! generator with the `**` scrambler),
//! normal deviates from Marsaglia's polar method, and the only transcendental
//! functions used (`ln` in the polar method, `exp` for the moments of the
//! clipped normal) are implemented here with `+ - * /` and `sqrt`, which
//! IEEE-754 rounds exactly everywhere, instead of the platform's libm.
//! Independent random streams (derived from the seed) drive the rows, the
//! choice of double-scored responses, each kind of data problem and the
//! scale sample, so changing e.g. the double-scored fraction changes which
//! responses have a second score and nothing else. The data do not depend on
//! the chunk size used to stream them.

use anyhow::{bail, ensure, Result};
use rsmreport_core::pyrepr::py_float;
use rsmreport_core::table::{Cell, Column, Table, Values};
use rsmreport_metrics::bootstrap::{StarStar, Xoshiro256};

/// Column names of the predictions file.
pub const ID_COLUMN: &str = "response_id";
pub const H1_COLUMN: &str = "h1";
pub const H2_COLUMN: &str = "h2";
pub const SYSTEM_COLUMN: &str = "system";
/// Column names of the scale file (those `scale_with` requires).
pub const SCALE_HUMAN_COLUMN: &str = "sc1";
pub const SCALE_PREDICTION_COLUMN: &str = "prediction";
/// What a non-numeric human score / system score looks like.
pub const NON_NUMERIC_HUMAN: &str = "NS";
pub const NON_NUMERIC_SYSTEM: &str = "NA";

/// The inter-rater correlations of Loukina et al. (2020).
pub const INTER_RATER_LEVELS: [(&str, f64); 4] = [
    ("low", 0.40),
    ("moderate", 0.55),
    ("average", 0.65),
    ("high", 0.80),
];

/// Largest number of responses accepted (ids, counts and memory stay sane).
pub const MAX_RESPONSES: usize = 1_000_000_000;

/// One level of a subgroup column.
#[derive(Clone, Debug, PartialEq)]
pub struct Level {
    pub name: String,
    /// Relative size (any positive scale; normalised over the levels).
    pub weight: f64,
    /// Shift of the system score for this level (score points, before
    /// `a * S + b`); `None` = from [`SimulationSpec::group_bias`].
    pub bias: Option<f64>,
}

/// A subgroup (metadata) column.
#[derive(Clone, Debug, PartialEq)]
pub struct SubgroupSpec {
    pub name: String,
    pub levels: Vec<Level>,
}

impl SubgroupSpec {
    /// Parses `NAME=LEVEL:WEIGHT[:BIAS],LEVEL:WEIGHT[:BIAS],...`, e.g.
    /// `L1=Spanish:40,Mandarin:25,Tagalog:1:-0.15`.
    pub fn parse(text: &str) -> Result<Self> {
        let Some((name, levels)) = text.split_once('=') else {
            bail!(
                "subgroup '{text}' must look like NAME=LEVEL:WEIGHT[:BIAS],... \
                 (e.g. L1=Spanish:40,Mandarin:25,Tagalog:1:-0.15)"
            );
        };
        let name = name.trim();
        let mut out = Vec::new();
        for part in levels.split(',') {
            let fields: Vec<&str> = part.split(':').map(str::trim).collect();
            let number = |s: &str, what: &str| -> Result<f64> {
                s.parse::<f64>().map_err(|_| {
                    anyhow::anyhow!(
                        "subgroup '{name}': the {what} of level '{}' must be a number, got '{s}'",
                        fields[0]
                    )
                })
            };
            let (weight, bias) = match fields.as_slice() {
                [_, w] => (number(w, "weight")?, None),
                [_, w, b] => (number(w, "weight")?, Some(number(b, "bias")?)),
                _ => bail!(
                    "subgroup '{name}': level '{}' must look like LEVEL:WEIGHT or \
                     LEVEL:WEIGHT:BIAS",
                    part.trim()
                ),
            };
            out.push(Level {
                name: fields[0].to_string(),
                weight,
                bias,
            });
        }
        let spec = SubgroupSpec {
            name: name.to_string(),
            levels: out,
        };
        spec.validate()?;
        Ok(spec)
    }

    fn validate(&self) -> Result<()> {
        let name = &self.name;
        ensure!(
            !name.is_empty()
                && !name.contains(['/', '\\', '=', ','])
                && !name.chars().any(char::is_control)
                && name != "."
                && name != "..",
            "subgroup name '{}' is not usable: it names output files, so it must not be empty \
             or contain '/', '\\', ',', '=' or control characters",
            name.escape_debug()
        );
        ensure!(
            ![ID_COLUMN, H1_COLUMN, H2_COLUMN, SYSTEM_COLUMN].contains(&name.as_str()),
            "subgroup name '{name}' is already a column of the simulated file \
             ({ID_COLUMN}, {H1_COLUMN}, {H2_COLUMN}, {SYSTEM_COLUMN})"
        );
        ensure!(!self.levels.is_empty(), "subgroup '{name}' has no levels");
        for (i, l) in self.levels.iter().enumerate() {
            ensure!(
                !l.name.is_empty() && !l.name.chars().any(char::is_control),
                "subgroup '{name}': level {} has an empty or unprintable name",
                i + 1
            );
            ensure!(
                l.name != "All data",
                "subgroup '{name}': a level cannot be called 'All data' (the by-group tables \
                 use that name for the whole data)"
            );
            ensure!(
                l.weight.is_finite() && l.weight > 0.0,
                "subgroup '{name}': the weight of level '{}' must be a positive number, got {}",
                l.name,
                l.weight
            );
            if let Some(b) = l.bias {
                ensure!(
                    b.is_finite(),
                    "subgroup '{name}': the bias of level '{}' must be finite",
                    l.name
                );
            }
            ensure!(
                !self.levels[..i].iter().any(|o| o.name == l.name),
                "subgroup '{name}': level '{}' is listed twice",
                l.name
            );
        }
        Ok(())
    }
}

/// The default subgroups: `L1` (six first languages, very uneven) and
/// `gender`, as in the bundled example.
pub fn default_subgroups() -> Vec<SubgroupSpec> {
    let levels = |v: &[(&str, f64)]| {
        v.iter()
            .map(|&(name, weight)| Level {
                name: name.to_string(),
                weight,
                bias: None,
            })
            .collect()
    };
    vec![
        SubgroupSpec {
            name: "L1".into(),
            levels: levels(&[
                ("Spanish", 40.0),
                ("Mandarin", 25.0),
                ("Arabic", 15.0),
                ("Korean", 11.0),
                ("Hindi", 8.4),
                ("Tagalog", 0.6),
            ]),
        },
        SubgroupSpec {
            name: "gender".into(),
            levels: levels(&[("F", 52.0), ("M", 48.0)]),
        },
    ]
}

/// Everything `rsmreport simulate` can vary. [`Default`] gives the design
/// of the bundled example at average inter-rater agreement.
#[derive(Clone, Debug, PartialEq)]
pub struct SimulationSpec {
    /// Number of responses (rows of the predictions file).
    pub n: usize,
    pub seed: u64,
    /// Mean and sd of the true score before clipping (3.844, 0.74).
    pub true_mean: f64,
    pub true_sd: f64,
    /// The score scale (integer score points `score_min..=score_max`).
    pub score_min: i64,
    pub score_max: i64,
    /// Correlation of two unrounded human scores (0.65, "average").
    pub inter_rater: f64,
    /// Squared correlation of the system score with the true score.
    pub system_r2: f64,
    /// The system score is written as `system_scale * S + system_offset`.
    pub system_scale: f64,
    pub system_offset: f64,
    /// Decimal places of the system score (6).
    pub decimals: u32,
    /// Fraction of responses with a second human score (0.3); `0` leaves
    /// the `h2` column out.
    pub double_scored: f64,
    pub subgroups: Vec<SubgroupSpec>,
    /// System-score shift of the last level of every subgroup column
    /// (levels with an explicit bias keep theirs).
    pub group_bias: f64,
    /// Fraction of responses whose first human score is 0 (and of
    /// double-scored responses whose second one is).
    pub zero_scores: f64,
    /// Fraction of responses with a non-numeric first human score (`NS`),
    /// and, chosen independently, with a non-numeric system score (`NA`).
    pub non_numeric: f64,
    /// Size of the independent sample of the scale file (`sc1`,
    /// `prediction`).
    pub scale_n: usize,
}

impl Default for SimulationSpec {
    fn default() -> Self {
        SimulationSpec {
            n: 10_000,
            seed: 42,
            true_mean: 3.844,
            true_sd: 0.74,
            score_min: 1,
            score_max: 6,
            inter_rater: 0.65,
            system_r2: 0.7,
            system_scale: 1.0,
            system_offset: 0.0,
            decimals: 6,
            double_scored: 0.3,
            subgroups: default_subgroups(),
            group_bias: 0.0,
            zero_scores: 0.0,
            non_numeric: 0.0,
            scale_n: 10_000,
        }
    }
}

/// Parses an inter-rater correlation: a level name of
/// [`INTER_RATER_LEVELS`] or a number.
pub fn parse_inter_rater(text: &str) -> Result<f64> {
    let t = text.trim();
    if let Some((_, r)) = INTER_RATER_LEVELS
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(t))
    {
        return Ok(*r);
    }
    t.parse::<f64>().map_err(|_| {
        anyhow::anyhow!(
            "inter-rater correlation '{text}' must be low (0.40), moderate (0.55), average (0.65), \
             high (0.80) or a number in (0, 1]"
        )
    })
}

fn check_fraction(value: f64, what: &str) -> Result<()> {
    ensure!(
        (0.0..=1.0).contains(&value),
        "{what} must be a fraction between 0 and 1, got {value}"
    );
    Ok(())
}

impl SimulationSpec {
    /// Checks every option; the error says which one and what is allowed.
    pub fn validate(&self) -> Result<()> {
        ensure!(
            (1..=MAX_RESPONSES).contains(&self.n),
            "the number of responses must be between 1 and {MAX_RESPONSES}, got {}",
            self.n
        );
        ensure!(
            self.true_mean.is_finite(),
            "the true-score mean must be a finite number, got {}",
            self.true_mean
        );
        ensure!(
            self.true_sd.is_finite() && self.true_sd > 0.0,
            "the true-score sd must be a positive number, got {}",
            self.true_sd
        );
        ensure!(
            self.score_min >= 0 && self.score_min < self.score_max && self.score_max <= 1_000_000,
            "the score range must satisfy 0 <= score_min < score_max <= 1000000, got {}..{}",
            self.score_min,
            self.score_max
        );
        ensure!(
            self.inter_rater > 0.0 && self.inter_rater <= 1.0,
            "the inter-rater correlation must be in (0, 1], got {}",
            self.inter_rater
        );
        ensure!(
            self.system_r2 > 0.0 && self.system_r2 <= 1.0,
            "the system R2 against the true score must be in (0, 1], got {}",
            self.system_r2
        );
        ensure!(
            self.system_scale.is_finite() && self.system_scale != 0.0,
            "the system scale factor must be a non-zero finite number, got {}",
            self.system_scale
        );
        ensure!(
            self.system_offset.is_finite(),
            "the system offset must be a finite number, got {}",
            self.system_offset
        );
        ensure!(
            self.decimals <= 15,
            "the number of decimals of the system score must be at most 15, got {}",
            self.decimals
        );
        check_fraction(self.double_scored, "the double-scored fraction")?;
        check_fraction(self.zero_scores, "the fraction of zero human scores")?;
        check_fraction(self.non_numeric, "the fraction of non-numeric scores")?;
        ensure!(
            self.zero_scores + self.non_numeric <= 1.0,
            "the fractions of zero ({}) and non-numeric ({}) human scores add up to more than 1",
            self.zero_scores,
            self.non_numeric
        );
        ensure!(
            self.group_bias.is_finite(),
            "the group bias must be a finite number, got {}",
            self.group_bias
        );
        ensure!(
            self.scale_n <= MAX_RESPONSES,
            "the scale sample size must be at most {MAX_RESPONSES}, got {}",
            self.scale_n
        );
        for (i, g) in self.subgroups.iter().enumerate() {
            g.validate()?;
            ensure!(
                !self.subgroups[..i].iter().any(|o| o.name == g.name),
                "subgroup '{}' is listed twice",
                g.name
            );
        }
        Ok(())
    }

    /// The numbers the design derives from the spec.
    pub fn derived(&self) -> Derived {
        let (lo, hi) = (self.score_min as f64, self.score_max as f64);
        let (mean_t, var_t) = clipped_normal_moments(self.true_mean, self.true_sd, lo, hi);
        Derived {
            true_score_mean: mean_t,
            true_score_var: var_t,
            rater_error_sd: (var_t * (1.0 - self.inter_rater) / self.inter_rater).sqrt(),
            system_error_sd: (var_t * (1.0 - self.system_r2) / self.system_r2).sqrt(),
        }
    }

    fn count(&self, fraction: f64, of: usize) -> u64 {
        (fraction * of as f64).round() as u64
    }
}

/// Derived quantities of a spec (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Derived {
    /// Mean and variance of the clipped true score.
    pub true_score_mean: f64,
    pub true_score_var: f64,
    /// `sqrt(var_T (1 - rho) / rho)`.
    pub rater_error_sd: f64,
    /// `sqrt(var_T (1 - R2) / R2)`.
    pub system_error_sd: f64,
}

// ---------------------------------------------------------------------------
// Random numbers

/// The generator of every stream: the project's one xoshiro256
/// (`rsmreport_metrics::bootstrap`) with the `**` scrambler (the files a
/// seed gives depend on it), plus a cached second normal.
#[derive(Clone, Debug)]
struct Rng {
    inner: Xoshiro256<StarStar>,
    spare: Option<f64>,
}

impl Rng {
    /// Stream `stream` of `seed`: independent streams for independent parts
    /// of the design (the state: four SplitMix64 outputs of `seed ^ stream
    /// * K`).
    fn new(seed: u64, stream: u64) -> Self {
        Rng {
            inner: Xoshiro256::from_seed(seed ^ stream.wrapping_mul(0xA076_1D64_78BD_642F)),
            spare: None,
        }
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    fn uniform(&mut self) -> f64 {
        self.inner.next_f64()
    }

    /// Uniform integer in `0..n` (`n > 0`), unbiased (Lemire 2019).
    fn below(&mut self, n: u64) -> u64 {
        self.inner.below(n)
    }

    /// Standard normal deviate (Marsaglia's polar method).
    fn normal(&mut self) -> f64 {
        if let Some(z) = self.spare.take() {
            return z;
        }
        loop {
            let u = 2.0 * self.uniform() - 1.0;
            let v = 2.0 * self.uniform() - 1.0;
            let s = u * u + v * v;
            if s > 0.0 && s < 1.0 {
                let f = (-2.0 * portable_ln(s) / s).sqrt();
                self.spare = Some(v * f);
                return u * f;
            }
        }
    }
}

const LN_2: f64 = std::f64::consts::LN_2;

/// Natural logarithm of a positive normal number with arithmetic only:
/// `x = m 2^e`, `m` in `[sqrt(1/2), sqrt(2))`, `ln m = 2 atanh(t)` with
/// `t = (m - 1) / (m + 1)`, `|t| <= 0.172`, summed to `t^23` (relative
/// error below 1e-16).
fn portable_ln(x: f64) -> f64 {
    debug_assert!(x.is_normal() && x > 0.0);
    let bits = x.to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & 0x000F_FFFF_FFFF_FFFF) | 0x3FF0_0000_0000_0000);
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    let t = (m - 1.0) / (m + 1.0);
    let t2 = t * t;
    let mut series = 0.0;
    for k in (0..12).rev() {
        series = series * t2 + 1.0 / f64::from(2 * k + 1);
    }
    e as f64 * LN_2 + 2.0 * t * series
}

/// `exp(x)` with arithmetic only: `x = k ln 2 + r`, `|r| <= ln(2)/2`,
/// Taylor series of `exp(r)` to `r^16`, times `2^k`. Returns 0 below -700.
fn portable_exp(x: f64) -> f64 {
    if x < -700.0 {
        return 0.0;
    }
    debug_assert!(x < 700.0);
    // Cody-Waite: LN2_HI has 32 trailing zero bits, so k * LN2_HI is exact.
    // (fdlibm's ln2_hi and ln2_lo, ln2_hi + ln2_lo = ln 2 to 2^-85)
    const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000);
    const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76);
    let k = (x / LN_2).round_ties_even();
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let mut sum = 1.0;
    for i in (1..=16).rev() {
        sum = 1.0 + sum * r / f64::from(i);
    }
    sum * f64::from_bits(((1023 + k as i64) as u64) << 52)
}

/// Standard normal density, portable.
fn std_normal_pdf(z: f64) -> f64 {
    // 1 / sqrt(2 pi)
    0.398_942_280_401_432_7 * portable_exp(-0.5 * z * z)
}

/// Composite Simpson rule of `f` on `[a, b]` with `intervals` (even).
fn simpson(f: impl Fn(f64) -> f64, a: f64, b: f64, intervals: usize) -> f64 {
    if b <= a {
        return 0.0;
    }
    let h = (b - a) / intervals as f64;
    let mut sum = f(a) + f(b);
    for i in 1..intervals {
        let w = if i % 2 == 1 { 4.0 } else { 2.0 };
        sum += w * f(a + i as f64 * h);
    }
    sum * h / 3.0
}

/// Mean and variance of `clip(X, lo, hi)` for `X ~ Normal(mu, sd)`, by
/// integrating the standard normal density piecewise (the mass below `lo`
/// sits at `lo`, above `hi` at `hi`); accurate to about 1e-12, portable.
pub fn clipped_normal_moments(mu: f64, sd: f64, lo: f64, hi: f64) -> (f64, f64) {
    const Z: f64 = 12.0;
    const STEPS: usize = 4000;
    let alpha = ((lo - mu) / sd).clamp(-Z, Z);
    let beta = ((hi - mu) / sd).clamp(-Z, Z);
    let below = simpson(std_normal_pdf, -Z, alpha, STEPS);
    let above = simpson(std_normal_pdf, beta, Z, STEPS);
    let m1 = simpson(|z| (mu + sd * z) * std_normal_pdf(z), alpha, beta, STEPS);
    let m2 = simpson(
        |z| (mu + sd * z) * (mu + sd * z) * std_normal_pdf(z),
        alpha,
        beta,
        STEPS,
    );
    let mean = lo * below + hi * above + m1;
    let second = lo * lo * below + hi * hi * above + m2;
    (mean, (second - mean * mean).max(0.0))
}

/// Chooses exactly `picks` of the next `rows` items, uniformly at random,
/// one item at a time (selection sampling, Knuth's algorithm S).
#[derive(Clone, Debug)]
struct Quota {
    rng: Rng,
    rows: u64,
    picks: u64,
}

impl Quota {
    fn new(rng: Rng, picks: u64, rows: u64) -> Self {
        Quota { rng, rows, picks }
    }

    fn pick(&mut self) -> bool {
        if self.rows == 0 {
            return false;
        }
        let chosen = self.picks > 0 && self.rng.below(self.rows) < self.picks;
        self.rows -= 1;
        if chosen {
            self.picks -= 1;
        }
        chosen
    }
}

/// Like [`Quota`] with two disjoint kinds of picks: `Some(0)` = first kind,
/// `Some(1)` = second kind.
#[derive(Clone, Debug)]
struct Quota2 {
    rng: Rng,
    rows: u64,
    picks: [u64; 2],
}

impl Quota2 {
    fn pick(&mut self) -> Option<usize> {
        if self.rows == 0 {
            return None;
        }
        let r = if self.picks == [0, 0] {
            u64::MAX
        } else {
            self.rng.below(self.rows)
        };
        self.rows -= 1;
        let kind = if r < self.picks[0] {
            Some(0)
        } else if r < self.picks[0] + self.picks[1] {
            Some(1)
        } else {
            None
        };
        if let Some(k) = kind {
            self.picks[k] -= 1;
        }
        kind
    }
}

// ---------------------------------------------------------------------------
// The generator

/// Stream numbers of the independent parts.
const STREAM_ROWS: u64 = 1;
const STREAM_DOUBLE: u64 = 2;
const STREAM_HUMAN_PROBLEMS: u64 = 3;
const STREAM_SYSTEM_PROBLEMS: u64 = 4;
const STREAM_H2_ZEROS: u64 = 5;
const STREAM_SCALE: u64 = 6;

/// The unrounded quantities of one response.
#[derive(Clone, Copy, Debug)]
struct Latent {
    /// Read by the tests (the targets are defined against it).
    #[cfg_attr(not(test), allow(dead_code))]
    true_score: f64,
    h1: f64,
    h2: f64,
    /// `T + bias + e_s`, before `a * S + b`.
    system: f64,
}

/// Per-row sampling of the design, shared by the predictions and the scale
/// sample.
#[derive(Clone, Debug)]
struct Design {
    lo: f64,
    hi: f64,
    true_mean: f64,
    true_sd: f64,
    rater_sd: f64,
    system_sd: f64,
    scale: f64,
    offset: f64,
    rounding: f64,
    /// Per subgroup: cumulative weights (normalised) and level biases.
    cumulative: Vec<Vec<f64>>,
    biases: Vec<Vec<f64>>,
}

impl Design {
    fn new(spec: &SimulationSpec) -> Self {
        let d = spec.derived();
        let mut cumulative = Vec::new();
        let mut biases = Vec::new();
        for g in &spec.subgroups {
            let total: f64 = g.levels.iter().map(|l| l.weight).sum();
            let mut acc = 0.0;
            let mut cum: Vec<f64> = g
                .levels
                .iter()
                .map(|l| {
                    acc += l.weight;
                    acc / total
                })
                .collect();
            if let Some(last) = cum.last_mut() {
                *last = f64::INFINITY;
            }
            cumulative.push(cum);
            let k = g.levels.len();
            biases.push(
                g.levels
                    .iter()
                    .enumerate()
                    .map(|(j, l)| {
                        l.bias.unwrap_or(if j + 1 == k && k > 1 {
                            spec.group_bias
                        } else {
                            0.0
                        })
                    })
                    .collect(),
            );
        }
        Design {
            lo: spec.score_min as f64,
            hi: spec.score_max as f64,
            true_mean: spec.true_mean,
            true_sd: spec.true_sd,
            rater_sd: d.rater_error_sd,
            system_sd: d.system_error_sd,
            scale: spec.system_scale,
            offset: spec.system_offset,
            rounding: 10f64.powi(spec.decimals as i32),
            cumulative,
            biases,
        }
    }

    /// Draws one response: the level of every subgroup (into `levels`), the
    /// true score, two human scores and the system score, always in this
    /// order and always all of them.
    fn draw(&self, rng: &mut Rng, levels: &mut [usize]) -> Latent {
        let mut bias = 0.0;
        for (g, cum) in self.cumulative.iter().enumerate() {
            let u = rng.uniform();
            let j = cum.iter().position(|&c| u < c).unwrap_or(cum.len() - 1);
            levels[g] = j;
            bias += self.biases[g][j];
        }
        let t = (self.true_mean + self.true_sd * rng.normal()).clamp(self.lo, self.hi);
        let h1 = t + self.rater_sd * rng.normal();
        let h2 = t + self.rater_sd * rng.normal();
        let system = t + bias + self.system_sd * rng.normal();
        Latent {
            true_score: t,
            h1,
            h2,
            system,
        }
    }

    /// A human score: rounded half to even, clipped to the scale.
    fn human(&self, x: f64) -> i64 {
        x.round_ties_even().clamp(self.lo, self.hi) as i64
    }

    /// The system score as written: `a * S + b`, rounded to the decimals.
    fn system(&self, s: f64) -> f64 {
        ((self.scale * s + self.offset) * self.rounding).round_ties_even() / self.rounding
    }
}

/// How many responses got each treatment so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub rows: usize,
    pub double_scored: usize,
    pub zero_h1: usize,
    pub non_numeric_h1: usize,
    pub zero_h2: usize,
    pub non_numeric_system: usize,
}

/// Streams the predictions table in chunks of rows; the concatenation of
/// the chunks is the same for any chunk size.
#[derive(Clone, Debug)]
pub struct Simulator {
    spec: SimulationSpec,
    design: Design,
    rows: Rng,
    double: Quota,
    human_problems: Quota2,
    system_problems: Quota,
    h2_zeros: Quota,
    id_width: usize,
    counts: Counts,
}

impl Simulator {
    /// Validates `spec` and prepares the streams.
    pub fn new(spec: &SimulationSpec) -> Result<Self> {
        spec.validate()?;
        let n = spec.n as u64;
        let seed = spec.seed;
        let n_double = spec.count(spec.double_scored, spec.n);
        Ok(Simulator {
            spec: spec.clone(),
            design: Design::new(spec),
            rows: Rng::new(seed, STREAM_ROWS),
            double: Quota::new(Rng::new(seed, STREAM_DOUBLE), n_double, n),
            human_problems: Quota2 {
                rng: Rng::new(seed, STREAM_HUMAN_PROBLEMS),
                rows: n,
                picks: [
                    spec.count(spec.zero_scores, spec.n),
                    spec.count(spec.non_numeric, spec.n),
                ],
            },
            system_problems: Quota::new(
                Rng::new(seed, STREAM_SYSTEM_PROBLEMS),
                spec.count(spec.non_numeric, spec.n),
                n,
            ),
            h2_zeros: Quota::new(
                Rng::new(seed, STREAM_H2_ZEROS),
                spec.count(spec.zero_scores, n_double as usize),
                n_double,
            ),
            id_width: spec.n.to_string().len().max(6),
            counts: Counts::default(),
        })
    }

    pub fn spec(&self) -> &SimulationSpec {
        &self.spec
    }

    /// What was generated so far.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// Rows not generated yet.
    pub fn remaining(&self) -> usize {
        self.spec.n - self.counts.rows
    }

    /// The next at most `max_rows` rows (at least one), or `None` when
    /// every row was generated. Column types depend on the spec only, never
    /// on the rows of a chunk: `h1` is integer, or text when non-numeric
    /// scores are simulated; `h2` (only when some responses are
    /// double-scored) integer with missing cells; `system` float, or text
    /// with non-numeric scores.
    pub fn next_chunk(&mut self, max_rows: usize) -> Option<Table> {
        let rows = self.remaining().min(max_rows.max(1));
        if rows == 0 {
            return None;
        }
        let spec = &self.spec;
        let ng = spec.subgroups.len();
        let text_h1 = spec.non_numeric > 0.0;
        let text_system = spec.non_numeric > 0.0;
        let with_h2 = spec.double_scored > 0.0;

        let mut ids: Vec<Option<String>> = Vec::with_capacity(rows);
        let mut groups: Vec<Vec<Option<String>>> = vec![Vec::with_capacity(rows); ng];
        let mut h1_int: Vec<i64> = Vec::with_capacity(if text_h1 { 0 } else { rows });
        let mut h1_text: Vec<Option<String>> = Vec::with_capacity(if text_h1 { rows } else { 0 });
        let mut h2: Vec<Cell> = Vec::with_capacity(if with_h2 { rows } else { 0 });
        let mut sys_float: Vec<f64> = Vec::with_capacity(if text_system { 0 } else { rows });
        let mut sys_text: Vec<Option<String>> =
            Vec::with_capacity(if text_system { rows } else { 0 });
        let mut levels = vec![0usize; ng];

        for _ in 0..rows {
            self.counts.rows += 1;
            ids.push(Some(format!(
                "R{:0width$}",
                self.counts.rows,
                width = self.id_width
            )));
            let latent = self.design.draw(&mut self.rows, &mut levels);
            for (g, &j) in levels.iter().enumerate() {
                groups[g].push(Some(spec.subgroups[g].levels[j].name.clone()));
            }

            // first human score
            let h1 = match self.human_problems.pick() {
                Some(0) => {
                    self.counts.zero_h1 += 1;
                    Some(0)
                }
                Some(_) => {
                    self.counts.non_numeric_h1 += 1;
                    None
                }
                None => Some(self.design.human(latent.h1)),
            };
            if text_h1 {
                h1_text.push(Some(
                    h1.map_or_else(|| NON_NUMERIC_HUMAN.to_string(), |v| v.to_string()),
                ));
            } else {
                h1_int.push(h1.unwrap_or_default());
            }

            // second human score
            if self.double.pick() {
                self.counts.double_scored += 1;
                let v = if self.h2_zeros.pick() {
                    self.counts.zero_h2 += 1;
                    0
                } else {
                    self.design.human(latent.h2)
                };
                h2.push(Cell::Int(v));
            } else if with_h2 {
                h2.push(Cell::Missing);
            }

            // system score
            let s = self.design.system(latent.system);
            let bad = self.system_problems.pick();
            if bad {
                self.counts.non_numeric_system += 1;
            }
            if text_system {
                sys_text.push(Some(if bad {
                    NON_NUMERIC_SYSTEM.to_string()
                } else {
                    py_float(s)
                }));
            } else {
                sys_float.push(s);
            }
        }

        Some(chunk_table(
            spec,
            rows,
            ChunkColumns {
                ids,
                groups,
                h1_int,
                h1_text,
                h2,
                sys_float,
                sys_text,
            },
        ))
    }
}

/// The cells of one chunk, column by column, as `next_chunk` draws them.
struct ChunkColumns {
    ids: Vec<Option<String>>,
    groups: Vec<Vec<Option<String>>>,
    h1_int: Vec<i64>,
    h1_text: Vec<Option<String>>,
    h2: Vec<Cell>,
    sys_float: Vec<f64>,
    sys_text: Vec<Option<String>>,
}

/// The chunk's table: id, subgroups, `h1`, `h2` (when some responses are
/// double-scored) and `system`, each typed by the spec alone.
fn chunk_table(spec: &SimulationSpec, rows: usize, cells: ChunkColumns) -> Table {
    let ChunkColumns {
        ids,
        groups,
        h1_int,
        h1_text,
        h2,
        sys_float,
        sys_text,
    } = cells;
    let text_h1 = spec.non_numeric > 0.0;
    let text_system = spec.non_numeric > 0.0;
    let with_h2 = spec.double_scored > 0.0;
    let mut columns = vec![Column::new(
        ID_COLUMN,
        rsmreport_core::table::text_values(ids),
    )];
    for (g, values) in spec.subgroups.iter().zip(groups) {
        columns.push(Column::new(
            g.name.clone(),
            rsmreport_core::table::text_values(values),
        ));
    }
    columns.push(Column::new(
        H1_COLUMN,
        if text_h1 {
            rsmreport_core::table::text_values(h1_text)
        } else {
            Values::Int(h1_int)
        },
    ));
    if with_h2 {
        let all_present = spec.double_scored >= 1.0;
        columns.push(Column::new(
            H2_COLUMN,
            if all_present {
                Values::Int(
                    h2.iter()
                        .map(|c| match c {
                            Cell::Int(v) => *v,
                            _ => 0,
                        })
                        .collect(),
                )
            } else {
                Values::Mixed(h2)
            },
        ));
    }
    columns.push(Column::new(
        SYSTEM_COLUMN,
        if text_system {
            rsmreport_core::table::text_values(sys_text)
        } else {
            Values::Float(sys_float)
        },
    ));
    Table {
        columns,
        nrows: rows,
    }
}

/// The whole predictions table in memory (small `n`; stream large ones
/// with [`Simulator::next_chunk`]).
pub fn generate(spec: &SimulationSpec) -> Result<Table> {
    let mut sim = Simulator::new(spec)?;
    Ok(sim.next_chunk(spec.n).expect("n >= 1"))
}

/// The scale file: `sc1` (a first human score) and `prediction` (the
/// system score on its own scale) for an independent sample of
/// `spec.scale_n` responses of the same design, without data problems.
pub fn scale_sample(spec: &SimulationSpec) -> Result<Table> {
    spec.validate()?;
    ensure!(
        spec.scale_n >= 2,
        "the scale sample needs at least 2 responses, got {}",
        spec.scale_n
    );
    let design = Design::new(spec);
    let mut rng = Rng::new(spec.seed, STREAM_SCALE);
    let mut levels = vec![0usize; spec.subgroups.len()];
    let mut sc1 = Vec::with_capacity(spec.scale_n);
    let mut prediction = Vec::with_capacity(spec.scale_n);
    for _ in 0..spec.scale_n {
        let latent = design.draw(&mut rng, &mut levels);
        sc1.push(design.human(latent.h1));
        prediction.push(design.system(latent.system));
    }
    Ok(Table {
        columns: vec![
            Column::new(SCALE_HUMAN_COLUMN, Values::Int(sc1)),
            Column::new(SCALE_PREDICTION_COLUMN, Values::Float(prediction)),
        ],
        nrows: spec.scale_n,
    })
}

/// Where the files of a simulation are, as the experiment file should name
/// them.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigPaths {
    pub experiment_id: String,
    /// The predictions file, relative to the experiment file's folder or
    /// absolute.
    pub predictions: String,
    /// The scale file, if one is written.
    pub scale: Option<String>,
}

/// An experiment id made from a file stem: characters other than ASCII
/// letters, digits, `_` and `-` become `_`; at most 200 characters;
/// `simulated` when nothing is left.
pub fn experiment_id_from(stem: &str) -> String {
    let id: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(200)
        .collect();
    if id.is_empty() || id.chars().all(|c| c == '_') {
        "simulated".to_string()
    } else {
        id
    }
}

fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// The text of an experiment file (TOML) that evaluates the simulated data
/// with every report section: `rsmreport build` on it just works.
pub fn experiment_toml(spec: &SimulationSpec, paths: &ConfigPaths) -> String {
    let d = spec.derived();
    let mut s = String::new();
    s.push_str("# Written by `rsmreport simulate`: simulated data after Loukina et al. (2020).\n");
    s.push_str(&format!(
        "# n = {}, seed = {}, true score N({}, {}) clipped to [{}, {}] (variance {:.6}),\n\
         # inter-rater correlation {} (rater error sd {:.6}), system R2 {} (error sd {:.6}),\n\
         # system score = {} * S + {}, double-scored {}, zero scores {}, non-numeric {}, \
         group bias {}.\n\n",
        spec.n,
        spec.seed,
        spec.true_mean,
        spec.true_sd,
        spec.score_min,
        spec.score_max,
        d.true_score_var,
        spec.inter_rater,
        d.rater_error_sd,
        spec.system_r2,
        d.system_error_sd,
        spec.system_scale,
        spec.system_offset,
        spec.double_scored,
        spec.zero_scores,
        spec.non_numeric,
        spec.group_bias,
    ));
    let line = |s: &mut String, key: &str, value: String| {
        s.push_str(key);
        s.push_str(" = ");
        s.push_str(&value);
        s.push('\n');
    };
    line(&mut s, "experiment_id", toml_string(&paths.experiment_id));
    line(
        &mut s,
        "description",
        toml_string(&format!(
            "Simulated data: {} responses (seed {}), inter-rater correlation {}, system R2 {} \
             against the true score.",
            spec.n, spec.seed, spec.inter_rater, spec.system_r2
        )),
    );
    line(&mut s, "predictions_file", toml_string(&paths.predictions));
    line(&mut s, "id_column", toml_string(ID_COLUMN));
    line(&mut s, "human_score_column", toml_string(H1_COLUMN));
    if spec.double_scored > 0.0 {
        line(&mut s, "second_human_score_column", toml_string(H2_COLUMN));
    }
    line(&mut s, "system_score_column", toml_string(SYSTEM_COLUMN));
    if !spec.subgroups.is_empty() {
        let names: Vec<String> = spec
            .subgroups
            .iter()
            .map(|g| toml_string(&g.name))
            .collect();
        line(&mut s, "subgroups", format!("[{}]", names.join(", ")));
    }
    if let Some(scale) = &paths.scale {
        line(&mut s, "scale_with", toml_string(scale));
    }
    line(&mut s, "trim_min", spec.score_min.to_string());
    line(&mut s, "trim_max", spec.score_max.to_string());
    line(&mut s, "general_sections", "[\"all\"]".to_string());
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsmreport_metrics::association::pearson;
    use rsmreport_metrics::summary::{mean, sd};

    fn int_column(t: &Table, name: &str) -> Vec<f64> {
        t.column(name).unwrap().values.to_numeric()
    }

    #[test]
    fn portable_functions_are_accurate() {
        for &x in &[
            1e-300, 1e-10, 0.001, 0.3, 0.5, 0.7, 0.999_999, 1.0, 1.5, 2.0, 1e10,
        ] {
            let (a, b) = (portable_ln(x), x.ln());
            assert!(
                (a - b).abs() <= 4.0 * f64::EPSILON * b.abs().max(1.0),
                "ln({x})"
            );
        }
        for &x in &[-600.0, -72.0, -3.3, -0.5, 0.0, 1e-9, 0.4, 1.0, 10.0, 300.0] {
            let (a, b) = (portable_exp(x), x.exp());
            assert!((a - b).abs() <= 8.0 * f64::EPSILON * b, "exp({x}) {a} {b}");
        }
        assert_eq!(portable_exp(-800.0), 0.0);
    }

    #[test]
    fn clipped_moments_are_right() {
        // No clipping to speak of: the normal's own moments.
        let (m, v) = clipped_normal_moments(0.0, 1.0, -20.0, 20.0);
        assert!(m.abs() < 1e-12 && (v - 1.0).abs() < 1e-10, "{m} {v}");
        // Half the mass at 0: E = phi(0) = 0.3989.., E[X^2] = 1/2.
        let (m, v) = clipped_normal_moments(0.0, 1.0, 0.0, 50.0);
        let phi0 = 0.398_942_280_401_432_7;
        assert!((m - phi0).abs() < 1e-10);
        assert!((v - (0.5 - phi0 * phi0)).abs() < 1e-10);
        // Everything clipped to one point.
        let (m, v) = clipped_normal_moments(100.0, 1.0, 1.0, 6.0);
        assert!((m - 6.0).abs() < 1e-12 && v < 1e-12);
    }

    #[test]
    fn selection_sampling_picks_exactly() {
        let mut q = Quota::new(Rng::new(7, 9), 30, 100);
        let picked = (0..100).filter(|_| q.pick()).count();
        assert_eq!(picked, 30);
        let mut q = Quota2 {
            rng: Rng::new(7, 10),
            rows: 1000,
            picks: [17, 5],
        };
        let kinds: Vec<Option<usize>> = (0..1000).map(|_| q.pick()).collect();
        assert_eq!(kinds.iter().filter(|k| **k == Some(0)).count(), 17);
        assert_eq!(kinds.iter().filter(|k| **k == Some(1)).count(), 5);
    }

    #[test]
    fn same_seed_same_data_any_chunk_size() {
        let spec = SimulationSpec {
            n: 3000,
            zero_scores: 0.01,
            non_numeric: 0.01,
            ..Default::default()
        };
        let whole = generate(&spec).unwrap();
        assert_eq!(whole, generate(&spec).unwrap());
        let mut sim = Simulator::new(&spec).unwrap();
        let mut chunks = Vec::new();
        while let Some(c) = sim.next_chunk(777) {
            chunks.push(c);
        }
        assert_eq!(chunks.len(), 4);
        for (j, col) in whole.columns.iter().enumerate() {
            let idx: Vec<usize> = (0..777).collect();
            assert_eq!(chunks[0].columns[j].values, col.values.take(&idx));
            let idx: Vec<usize> = (2331..3000).collect();
            assert_eq!(chunks[3].columns[j].values, col.values.take(&idx));
        }
        let other = generate(&SimulationSpec { seed: 43, ..spec }).unwrap();
        assert_ne!(whole, other);
    }

    #[test]
    fn the_values_are_pinned_for_a_seed() {
        // Guards the "same on every platform" promise: these exact values
        // must never change for this seed (change them only on purpose).
        let t = generate(&SimulationSpec {
            n: 3,
            ..Default::default()
        })
        .unwrap();
        let names: Vec<&str> = t.names();
        assert_eq!(names, ["response_id", "L1", "gender", "h1", "h2", "system"]);
        let frame = rsmreport_core::table::Frame::new("t", None, t.columns.clone());
        let csv =
            String::from_utf8(rsmreport_io::output::write::to_delimited(&frame, b',')).unwrap();
        assert_eq!(csv, PINNED_CSV, "got:\n{csv}");
    }

    const PINNED_CSV: &str = "response_id,L1,gender,h1,h2,system\n\
        R000001,Mandarin,M,5,5,4.319545\n\
        R000002,Hindi,F,3,,3.201781\n\
        R000003,Mandarin,F,5,,4.957594\n";

    #[test]
    fn statistics_follow_the_design() {
        let spec = SimulationSpec {
            n: 20_000,
            seed: 2020,
            ..Default::default()
        };
        let d = spec.derived();
        // Latent (unrounded) scores: the derivations hold.
        let design = Design::new(&spec);
        let mut rng = Rng::new(spec.seed, STREAM_ROWS);
        let mut levels = vec![0; 2];
        let rows: Vec<Latent> = (0..spec.n)
            .map(|_| design.draw(&mut rng, &mut levels))
            .collect();
        let col = |f: fn(&Latent) -> f64| rows.iter().map(f).collect::<Vec<f64>>();
        let (t, h1, h2, s) = (
            col(|r| r.true_score),
            col(|r| r.h1),
            col(|r| r.h2),
            col(|r| r.system),
        );
        assert!((mean(&t) - d.true_score_mean).abs() < 0.02);
        assert!((sd(&t, 1).powi(2) - d.true_score_var).abs() < 0.02);
        assert!((d.true_score_mean - 3.844).abs() < 0.01);
        let r_hh = pearson(&h1, &h2);
        assert!(
            (r_hh - spec.inter_rater).abs() < 0.03,
            "corr(H1*, H2*) = {r_hh}"
        );
        let r2 = pearson(&s, &t).powi(2);
        assert!((r2 - spec.system_r2).abs() < 0.03, "R2(S, T) = {r2}");

        // The written data.
        let table = generate(&spec).unwrap();
        let h1 = int_column(&table, "h1");
        assert!((mean(&h1) - 3.844).abs() < 0.05, "mean h1 {}", mean(&h1));
        assert!(h1
            .iter()
            .all(|&x| (1.0..=6.0).contains(&x) && x.fract() == 0.0));
        let h2 = int_column(&table, "h2");
        let double: Vec<usize> = (0..spec.n).filter(|&i| !h2[i].is_nan()).collect();
        assert_eq!(double.len(), 6000, "exactly 30% double-scored");
        let a: Vec<f64> = double.iter().map(|&i| h1[i]).collect();
        let b: Vec<f64> = double.iter().map(|&i| h2[i]).collect();
        let r = pearson(&a, &b);
        // Rounding adds about 1/12 to the variance of each human score.
        let rounded = d.true_score_var / (d.true_score_var + d.rater_error_sd.powi(2) + 1.0 / 12.0);
        assert!(
            (r - rounded).abs() < 0.03,
            "corr(h1, h2) = {r}, about {rounded}"
        );
        assert!(r < spec.inter_rater, "rounding lowers the correlation: {r}");
        let sys = int_column(&table, "system");
        assert!((mean(&sys) - 3.844).abs() < 0.05);
        // Groups: uneven and in proportion to the weights.
        let l1 = match &table.column("L1").unwrap().values {
            Values::Text(v) => v.clone(),
            _ => panic!(),
        };
        let count = |name: &str| l1.iter().filter(|v| v.as_deref() == Some(name)).count();
        assert!((count("Spanish") as f64 - 8000.0).abs() < 300.0);
        assert!(count("Tagalog") > 60 && count("Tagalog") < 200);
        assert!(count("Spanish") > 3 * count("Korean"));
    }

    #[test]
    fn bias_scale_and_problems() {
        let spec = SimulationSpec {
            n: 20_000,
            system_scale: 0.8,
            system_offset: 0.35,
            group_bias: -0.5,
            zero_scores: 0.01,
            non_numeric: 0.005,
            decimals: 3,
            ..Default::default()
        };
        let table = generate(&spec).unwrap();
        let h1 = match &table.column("h1").unwrap().values {
            Values::Text(v) => v.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            h1.iter().filter(|v| v.as_deref() == Some("NS")).count(),
            100
        );
        assert_eq!(h1.iter().filter(|v| v.as_deref() == Some("0")).count(), 200);
        let sys = match &table.column("system").unwrap().values {
            Values::Text(v) => v.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            sys.iter().filter(|v| v.as_deref() == Some("NA")).count(),
            100
        );
        let numeric: Vec<f64> = sys
            .iter()
            .filter_map(|v| v.as_deref())
            .filter(|v| *v != "NA")
            .map(|v| v.parse().unwrap())
            .collect();
        assert!(numeric
            .iter()
            .all(|x| ((x * 1000.0).round() / 1000.0 - x).abs() < 1e-12));
        // a * 3.844 + b
        // a * (3.844 + mean bias) + b; the last levels are Tagalog (0.6%) and M (48%).
        let m = mean(&numeric);
        let want = 0.8 * (3.844 - 0.5 * (0.006 + 0.48)) + 0.35;
        assert!((m - want).abs() < 0.05, "mean {m}, want {want}");
        // The last L1 level (Tagalog) is biased by -0.5 * 0.8 on the written
        // scale (gender is independent of L1, so its bias cancels out).
        let l1 = table.column("L1").unwrap().values.clone();
        let (mut tag, mut other) = (Vec::new(), Vec::new());
        for (i, v) in sys.iter().enumerate() {
            let Some(x) = v.as_deref().and_then(|v| v.parse::<f64>().ok()) else {
                continue;
            };
            match l1.cell(i) {
                Cell::Text(ref l) if l == "Tagalog" => tag.push(x),
                _ => other.push(x),
            }
        }
        let gap = mean(&tag) - mean(&other);
        assert!((gap + 0.4).abs() < 0.25, "bias gap {gap}");
    }

    #[test]
    fn scale_sample_has_the_columns_scale_with_needs() {
        let spec = SimulationSpec {
            scale_n: 500,
            ..Default::default()
        };
        let t = scale_sample(&spec).unwrap();
        assert_eq!(t.names(), ["sc1", "prediction"]);
        assert_eq!(t.nrows, 500);
        assert_eq!(t, scale_sample(&spec).unwrap());
    }

    #[test]
    fn options_are_validated_with_clear_errors() {
        let err = |spec: SimulationSpec| format!("{:#}", spec.validate().unwrap_err());
        let base = SimulationSpec::default();
        assert!(base.validate().is_ok());
        assert!(err(SimulationSpec {
            n: 0,
            ..base.clone()
        })
        .contains("number of responses"));
        assert!(err(SimulationSpec {
            inter_rater: 0.0,
            ..base.clone()
        })
        .contains("inter-rater"));
        assert!(err(SimulationSpec {
            system_r2: 1.5,
            ..base.clone()
        })
        .contains("R2"));
        assert!(err(SimulationSpec {
            double_scored: -0.1,
            ..base.clone()
        })
        .contains("double-scored"));
        assert!(err(SimulationSpec {
            score_min: 6,
            score_max: 1,
            ..base.clone()
        })
        .contains("score range"));
        assert!(err(SimulationSpec {
            zero_scores: 0.6,
            non_numeric: 0.6,
            ..base.clone()
        })
        .contains("add up"));
        assert!(err(SimulationSpec {
            true_sd: 0.0,
            ..base.clone()
        })
        .contains("sd"));
        assert_eq!(parse_inter_rater("High").unwrap(), 0.8);
        assert_eq!(parse_inter_rater("0.5").unwrap(), 0.5);
        assert!(format!("{:#}", parse_inter_rater("good").unwrap_err()).contains("moderate"));
        let g = SubgroupSpec::parse("L1=Spanish:40,Tagalog:1:-0.15").unwrap();
        assert_eq!(g.levels[1].bias, Some(-0.15));
        for bad in [
            "L1",
            "L1=Spanish",
            "L1=Spanish:x",
            "L1=Spanish:0",
            "L1=A:1,A:2",
            "h1=A:1",
            "a/b=A:1",
            "g=All data:1",
        ] {
            assert!(SubgroupSpec::parse(bad).is_err(), "{bad}");
        }
        let twice = SimulationSpec {
            subgroups: vec![g.clone(), g],
            ..base
        };
        assert!(format!("{:#}", twice.validate().unwrap_err()).contains("twice"));
    }

    #[test]
    fn experiment_file_names_everything() {
        let spec = SimulationSpec::default();
        let text = experiment_toml(
            &spec,
            &ConfigPaths {
                experiment_id: experiment_id_from("sim 1M"),
                predictions: "sim.csv".into(),
                scale: Some("sim_scale.csv".into()),
            },
        );
        let v: toml::Table = text.parse().unwrap();
        assert_eq!(v["experiment_id"].as_str(), Some("sim_1M"));
        assert_eq!(v["predictions_file"].as_str(), Some("sim.csv"));
        assert_eq!(v["scale_with"].as_str(), Some("sim_scale.csv"));
        assert_eq!(v["second_human_score_column"].as_str(), Some("h2"));
        assert_eq!(v["subgroups"].as_array().unwrap().len(), 2);
        assert_eq!(v["trim_max"].as_integer(), Some(6));
        assert_eq!(experiment_id_from("..."), "simulated");
    }
}
