//! The intervals on simulated experiments run through the whole pipeline:
//! determinism across thread counts and seeds, agreement with the analytic
//! Fisher z interval and with a plain per-response bootstrap (the block
//! method must not change the answer), clusters, and degenerate data.
//! Every band is stated with the Monte Carlo error it allows.

use super::*;
use crate::kinds::evaluation::run::{execute, Run};
use rsmreport_config::intervals::{Intervals, Unit};
use rsmreport_metrics::block::{metric_block, DiffMethod};
use rsmreport_metrics::test_util::Lcg;

/// A standard normal draw (Box-Muller).
fn normal(g: &mut Lcg) -> f64 {
    let (u, v) = (g.next().max(1e-300), g.next());
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

/// `n` simulated responses: true score N(3.5, 0.8), two raters (the second
/// on 30%), a system score with error sd 0.5, three groups, four
/// responses per candidate. `extra` is appended to the experiment file.
fn simulate(n: usize, seed: u64, extra: &str) -> (tempfile::TempDir, Run) {
    let mut g = Lcg(seed);
    let mut csv = String::from("id,h1,h2,sys,grp,cand\n");
    for i in 0..n {
        let t = 3.5 + 0.8 * normal(&mut g);
        let rate = |g: &mut Lcg| (t + 0.55 * normal(g)).round().clamp(1.0, 6.0);
        let h1 = rate(&mut g);
        let h2 = if g.next() < 0.3 {
            rate(&mut g).to_string()
        } else {
            String::new()
        };
        let sys = t + 0.5 * normal(&mut g);
        let grp = ["a", "b", "c"][(g.next() * 3.0) as usize % 3];
        csv.push_str(&format!("r{i},{h1},{h2},{sys:.4},{grp},c{}\n", i / 4));
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.csv"), csv).unwrap();
    let toml = format!(
        "experiment_id = \"t\"\npredictions_file = \"p.csv\"\nid_column = \"id\"\n\
         human_score_column = \"h1\"\nsecond_human_score_column = \"h2\"\n\
         system_score_column = \"sys\"\ncandidate_column = \"cand\"\ntrim_min = 1\n\
         trim_max = 6\nsubgroups = [\"grp\"]\n{extra}"
    );
    std::fs::write(dir.path().join("exp.toml"), toml).unwrap();
    let exp = rsmreport_config::load(&dir.path().join("exp.toml")).unwrap();
    let run = execute(exp).unwrap();
    (dir, run)
}

fn settings(replicates: u64, seed: u64, unit: Unit) -> Intervals {
    Intervals {
        level: 0.95,
        replicates,
        seed,
        unit,
    }
}

fn compute_on(run: &Run, s: &Intervals, threads: usize) -> IntervalResults {
    let candidates = candidate_codes(&run.analysis.frames);
    compute_with_threads(
        s,
        &run.prepared,
        &run.analysis.frames,
        candidates.as_deref(),
        None,
        threads,
    )
}

fn bytes(results: &IntervalResults) -> Vec<Vec<u8>> {
    frames(results)
        .iter()
        .map(|f| rsmreport_io::output::write::to_delimited(f, b','))
        .collect()
}

#[test]
fn the_same_bytes_with_one_and_with_several_threads() {
    let (_dir, run) = simulate(1500, 1, "intervals = false\n");
    let s = settings(120, 9, Unit::Response);
    let one = bytes(&compute_on(&run, &s, 1));
    assert_eq!(one, bytes(&compute_on(&run, &s, 3)));
    assert_eq!(one, bytes(&compute_on(&run, &s, 8)));
    // A different seed draws different replicates.
    assert_ne!(
        one,
        bytes(&compute_on(&run, &settings(120, 10, Unit::Response), 2))
    );
}

#[test]
fn every_table_of_spec_3_with_the_estimates_of_the_source_tables() {
    let (_dir, run) = simulate(800, 2, "");
    let r = run.intervals.as_ref().expect("on by default");
    let sources: Vec<&str> = r.tables.iter().map(|t| t.source.as_str()).collect();
    assert_eq!(
        sources,
        [
            "eval",
            "consistency",
            "degradation",
            "disattenuated_correlations",
            "true_score_eval",
            "eval_by_grp"
        ]
    );
    let eval = &run.analysis.eval;
    let (name, block) = eval[1];
    assert_eq!(r.get("eval", name, "corr").unwrap().estimate, block.corr);
    assert_eq!(r.get("eval", name, "RMSE").unwrap().estimate, block.rmse);
    let c = r.get("consistency", "", "kappa").unwrap();
    assert_eq!(c.estimate, run.analysis.consistency.unwrap().kappa);
    for t in &r.tables {
        for row in &t.rows {
            assert!(
                row.estimate.is_finite(),
                "{} {} {}",
                t.source,
                row.row,
                row.metric
            );
            let i = row.interval;
            assert!(
                i.lower <= i.upper,
                "{} {} {}",
                t.source,
                row.row,
                row.metric
            );
            assert_eq!(i.valid, 1000);
        }
    }
    // The _ci tables are written with the run's tables.
    assert!(run.analysis.frame("eval_by_grp_ci").is_some());
    assert!(run.analysis.frame("true_score_eval_ci").is_some());
}

#[test]
fn the_bootstrap_corr_interval_agrees_with_fisher_z() {
    // n = 20,000: the sampling distribution of r is close to Fisher's. The
    // Monte Carlo SD of a 2.5% endpoint from 1,000 replicates is about
    // 0.09 bootstrap SEs; the band of 0.4 SE is over four of them.
    let (_dir, run) = simulate(20_000, 3, "intervals = false\n");
    let r = compute_on(&run, &settings(1000, 4, Unit::Response), 2);
    let row = r.get("eval", "raw_trim", "corr").unwrap();
    let (lo, hi) = row.analytic;
    let se = row.interval.se;
    assert!((row.interval.lower - lo).abs() < 0.4 * se, "{row:?}");
    assert!((row.interval.upper - hi).abs() < 0.4 * se, "{row:?}");
    // The bootstrap SE is the width of Fisher's interval over 2 z.
    let fisher_se = (hi - lo) / (2.0 * 1.959964);
    assert!((se / fisher_se - 1.0).abs() < 0.1, "{se} vs {fisher_se}");
}

/// A statistic of a metric block.
type Stat = fn(&rsmreport_metrics::block::MetricBlock) -> f64;

/// SE of `stat` by a plain bootstrap of responses: `reps` resamples of
/// the raw_trim pairs, each through `metric_block`.
fn plain_bootstrap_se(
    run: &Run,
    reps: u64,
    stat: impl Fn(&rsmreport_metrics::block::MetricBlock) -> f64,
) -> f64 {
    let p = &run.prepared;
    let s = &p.score("raw_trim").unwrap().values;
    let n = p.n();
    let (mut h, mut x) = (vec![0.0; n], vec![0.0; n]);
    let values: Vec<f64> = (0..reps)
        .map(|b| {
            let mut rng = rsmreport_metrics::bootstrap::replicate_rng(77, b);
            for k in 0..n {
                let i = rng.below(n as u64) as usize;
                h[k] = p.sc1[i];
                x[k] = s[i];
            }
            stat(&metric_block(&h, &x, DiffMethod::Unpooled))
        })
        .collect();
    rsmreport_metrics::bootstrap::percentile_interval(&values, 0.95).se
}

#[test]
fn blocks_agree_with_a_plain_per_response_bootstrap() {
    // 4,000 responses in 1,000 blocks of four. An SE from 600 replicates
    // has a Monte Carlo error of about 3%; two of them differ by about 4%,
    // so a 15% band is over three of those, and a wrong block weighting
    // (off by a factor of two in variance: 41% in SE) fails it.
    let (_dir, run) = simulate(4000, 5, "intervals = false\n");
    let r = compute_on(&run, &settings(600, 6, Unit::Response), 2);
    let checks: [(&str, Stat); 5] = [
        ("corr", |b| b.corr),
        ("RMSE", |b| b.rmse),
        ("kappa", |b| b.kappa),
        ("adj_agr", |b| b.adj_agr),
        ("wtkappa", |b| b.wtkappa),
    ];
    for (metric, stat) in checks {
        let ours = r.get("eval", "raw_trim", metric).unwrap().interval.se;
        let plain = plain_bootstrap_se(&run, 600, stat);
        assert!(
            (ours / plain - 1.0).abs() < 0.15,
            "{metric}: {ours} vs {plain}"
        );
    }
}

#[test]
fn test_takers_are_resampled_whole() {
    // Four responses per candidate: 1,000 candidates are the units.
    let (_dir, run) = simulate(4000, 7, "intervals = false\n");
    let by_candidate = compute_on(&run, &settings(200, 1, Unit::Candidate), 2);
    assert_eq!(by_candidate.tables[0].n_units, 1000);
    let by_response = compute_on(&run, &settings(200, 1, Unit::Response), 2);
    assert_eq!(by_response.tables[0].n_units, 4000);
    // The default unit with candidate_column is the candidate.
    let (_dir, run) = simulate(200, 7, "");
    assert_eq!(
        run.intervals.as_ref().unwrap().settings.unit,
        Unit::Candidate
    );
    assert_eq!(run.intervals.as_ref().unwrap().tables[0].n_units, 50);
}

#[test]
fn no_replicates_leaves_only_the_analytic_intervals() {
    let (_dir, run) = simulate(300, 8, "[intervals]\nreplicates = 0\n");
    let r = run.intervals.as_ref().unwrap();
    let row = r.get("eval", "raw_trim", "corr").unwrap();
    assert!(row.interval.lower.is_nan() && row.interval.valid == 0);
    assert!(row.analytic.0.is_finite());
}

/// Builds an experiment from literal CSV rows (`id,h1,h2,sys,grp`).
fn literal(rows: &str, extra: &str) -> Run {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("p.csv"),
        format!("id,h1,h2,sys,grp\n{rows}"),
    )
    .unwrap();
    let toml = format!(
        "experiment_id = \"d\"\npredictions_file = \"p.csv\"\nid_column = \"id\"\n\
         human_score_column = \"h1\"\nsecond_human_score_column = \"h2\"\n\
         system_score_column = \"sys\"\ntrim_min = 1\ntrim_max = 6\n\
         subgroups = [\"grp\"]\n[intervals]\nreplicates = 50\n{extra}"
    );
    std::fs::write(dir.path().join("exp.toml"), toml).unwrap();
    execute(rsmreport_config::load(&dir.path().join("exp.toml")).unwrap()).unwrap()
}

#[test]
fn degenerate_data_gives_nan_or_fixed_intervals_never_a_panic() {
    // One response.
    let r = literal("a,3,3,3.2,x\n", "");
    let i = r.intervals.as_ref().unwrap();
    assert!(i
        .get("eval", "raw_trim", "corr")
        .unwrap()
        .interval
        .lower
        .is_nan());
    let rmse = i.get("eval", "raw_trim", "RMSE").unwrap().interval;
    assert!(
        (rmse.lower - 0.2).abs() < 1e-12 && rmse.lower == rmse.upper,
        "{rmse:?}"
    );
    // Constant machine scores: corr NaN in every replicate, so NaN.
    let r = literal("a,3,,3.0,x\nb,4,,3.0,x\nc,2,,3.0,y\nd,5,,3.0,y\n", "");
    let i = r.intervals.as_ref().unwrap();
    assert!(i
        .get("eval", "raw", "corr")
        .unwrap()
        .interval
        .upper
        .is_nan());
    assert!(i
        .get("eval", "raw", "RMSE")
        .unwrap()
        .interval
        .upper
        .is_finite());
    // A group of one: its rows are fixed; no double-scored response: the
    // consistency table (written by the reference with NaN) has NaN
    // intervals.
    let r = literal("a,3,,3.1,x\nb,4,,3.7,y\nc,2,,2.4,y\nd,5,,4.4,y\n", "");
    let i = r.intervals.as_ref().unwrap();
    let one = i.get("eval_by_grp", "x", "RMSE.raw_trim").unwrap().interval;
    assert_eq!(one.lower, one.upper);
    for t in i.tables.iter().filter(|t| t.source == "consistency") {
        assert!(t.rows.iter().all(|r| r.interval.lower.is_nan()));
    }
    // No double-scored response and no rater_error_variance: PRMSE is
    // NaN, and so is its interval.
    let prmse = i.get("true_score_eval", "raw", "PRMSE true").unwrap();
    assert!(prmse.estimate.is_nan() && prmse.interval.lower.is_nan());
}

#[test]
fn a_supplied_rater_error_variance_is_not_resampled() {
    let (_dir, run) = simulate(500, 11, "rater_error_variance = 0.3\n");
    let r = run.intervals.as_ref().unwrap();
    assert!(r
        .get("true_score_eval", "raw_trim", "Variance of errors")
        .is_none());
    let prmse = r.get("true_score_eval", "raw_trim", "PRMSE true").unwrap();
    assert!(prmse.interval.lower < prmse.estimate && prmse.estimate < prmse.interval.upper);
}

/// The analytic intervals come from the full data's sums and the table's
/// estimates; they must equal the textbook computation on the pairs
/// themselves (Pearson's r, counts of agreeing pairs, the full label table).
#[test]
fn analytic_intervals_match_a_direct_computation_on_the_pairs() {
    let (_dir, run) = simulate(3_000, 21, "intervals = false\n");
    let r = compute_on(&run, &settings(0, 1, Unit::Response), 1);
    let prep = &run.prepared;
    let sc2 = prep.sc2.as_deref().unwrap();
    let (h2, s2) = double_scored(&prep.sc1, sc2);
    let mut pairs: Vec<(&str, String, Vec<f64>, Vec<f64>)> = prep
        .scores
        .iter()
        .map(|s| {
            (
                "eval",
                s.name.to_string(),
                prep.sc1.clone(),
                s.values.clone(),
            )
        })
        .collect();
    pairs.push(("consistency", String::new(), h2, s2));
    let mut checked = 0;
    for (table, row, h, s) in &pairs {
        let t = r.tables.iter().find(|t| t.source == *table).unwrap();
        for ci in t
            .rows
            .iter()
            .filter(|c| c.row == *row || table == &"consistency")
        {
            let n = h.len();
            let within = |tol: f64| {
                h.iter()
                    .zip(s)
                    .filter(|(a, b)| (*a - *b).abs() <= tol)
                    .count()
            };
            let want = match ci.metric.as_str() {
                "corr" => fisher_z_interval(rsmreport_metrics::association::pearson(h, s), n, 0.95),
                "exact_agr" => wilson_interval(within(0.0) as f64, n, 0.95),
                "adj_agr" => wilson_interval(within(1.0) as f64, n, 0.95),
                "kappa" => {
                    let lo = h
                        .iter()
                        .chain(s)
                        .map(|v| round_half_even(*v))
                        .fold(f64::INFINITY, f64::min);
                    let hi = h
                        .iter()
                        .chain(s)
                        .map(|v| round_half_even(*v))
                        .fold(f64::NEG_INFINITY, f64::max);
                    let k = (hi - lo) as usize + 1;
                    let mut counts = vec![0.0; k * k];
                    for (a, b) in h.iter().zip(s) {
                        let i = (round_half_even(*a) - lo) as usize;
                        let j = (round_half_even(*b) - lo) as usize;
                        counts[i * k + j] += 1.0;
                    }
                    let (_, lo, hi) = kappa_fce_interval(&counts, k, 0.95);
                    (lo, hi)
                }
                _ => continue,
            };
            let want = if ci.metric.ends_with("_agr") {
                (want.0 * 100.0, want.1 * 100.0)
            } else {
                want
            };
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
            assert!(
                close(ci.analytic.0, want.0) && close(ci.analytic.1, want.1),
                "{table} {row} {}: {:?} vs {want:?}",
                ci.metric,
                ci.analytic
            );
            checked += 1;
        }
    }
    // 4 metrics on each of the 3 score types and on the human pairs.
    assert_eq!(
        checked,
        4 * (prep.scores.len() + 1),
        "{:?}",
        r.tables[0].rows
    );
}
