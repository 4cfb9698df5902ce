//! The coverage study of the confidence intervals (uncertainty spec 5),
//! run on purpose, in release, because it builds thousands of simulated
//! experiments:
//!
//! ```text
//! cargo test --release --test integration coverage -- --ignored --nocapture
//! ```
//!
//! `RSMREPORT_COVERAGE_RUNS` (default 400) sets the data sets per size,
//! `RSMREPORT_COVERAGE_SIZES` (default `200,1000,10000`) the sizes. For each
//! size it simulates that many independently seeded data sets (20%
//! double-scored, `rsmreport simulate`'s design after Loukina et al. 2020),
//! computes the 95% intervals with the default 1,000 replicates, and counts
//! how often each interval holds the population value. Population values
//! come from one simulated sample of 10,000,000 responses with the same
//! settings (seed 1). The table it prints is in `docs/intervals.md`.

use std::path::Path;

use rsmreport::analysis::intervals::{compute, IntervalResults};
use rsmreport_cli::simulate::{SimulationSpec, Simulator};
use rsmreport_config::{self as config, intervals::Intervals, ConfigKind, Experiment};

/// The statistics studied: (`_ci` source, metric, name in the table).
const STATS: [(&str, &str, &str); 6] = [
    ("true_score_eval", "PRMSE true", "PRMSE"),
    ("eval", "corr", "corr"),
    ("eval", "wtkappa", "wtkappa"),
    ("eval", "RMSE", "RMSE"),
    ("eval", "kappa", "kappa"),
    ("eval", "SMD", "SMD"),
];

fn spec(n: usize, seed: u64) -> SimulationSpec {
    SimulationSpec {
        n,
        seed,
        double_scored: 0.2,
        subgroups: Vec::new(),
        ..SimulationSpec::default()
    }
}

/// The experiment of a simulated table (the predictions file only has to
/// exist for the configuration to validate).
fn experiment(dir: &Path, replicates: u64) -> Experiment {
    let pred = dir.join("p.csv");
    std::fs::write(&pred, "x\n").unwrap();
    let text = format!(
        "experiment_id = \"cov\"\npredictions_file = \"p.csv\"\nid_column = \"response_id\"\n\
         human_score_column = \"h1\"\nsecond_human_score_column = \"h2\"\n\
         system_score_column = \"system\"\ntrim_min = 1\ntrim_max = 6\n\
         [intervals]\nreplicates = {replicates}\n"
    );
    let path = dir.join("exp.toml");
    let raw = config::parse(&text, ConfigKind::Toml, &path).unwrap();
    config::validate(raw, &path).unwrap()
}

/// Every statistic of one simulated data set, with intervals when `with`.
fn evaluate(
    exp: &Experiment,
    n: usize,
    seed: u64,
    with: Option<&Intervals>,
) -> (Vec<f64>, Option<IntervalResults>) {
    let table = Simulator::new(&spec(n, seed))
        .unwrap()
        .next_chunk(n)
        .unwrap();
    let prep = rsmreport::preprocess::prepare(exp, table, None, "simulated").unwrap();
    let analysis = rsmreport::analysis::analyze(exp, &prep);
    let primary = prep.x_trim().name;
    let results = with.map(|s| compute(s, &prep, &analysis.frames, None, None));
    let estimates = STATS
        .iter()
        .map(|(source, metric, _)| {
            let frame = analysis.frame(source).unwrap();
            let labels: Vec<String> = match &frame.index {
                Some(ix) => (0..ix.len())
                    .map(|i| match ix.cell(i) {
                        rsmreport_core::table::Cell::Text(s) => s,
                        _ => String::new(),
                    })
                    .collect(),
                None => Vec::new(),
            };
            let i = labels.iter().position(|l| l == primary).unwrap();
            frame.column(metric).unwrap().values.to_numeric()[i]
        })
        .collect();
    (estimates, results)
}

fn env_list(name: &str, default: &str) -> Vec<usize> {
    std::env::var(name)
        .unwrap_or_else(|_| default.to_string())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect()
}

#[test]
#[ignore = "the coverage study: minutes in release (see the module docs)"]
fn coverage_of_the_95_percent_intervals() {
    let dir = tempfile::tempdir().unwrap();
    let exp = experiment(dir.path(), 1000);
    let settings = exp.intervals.unwrap();
    let (population, _) = evaluate(&exp, 10_000_000, 1, None);
    println!("population values (10,000,000 responses, seed 1):");
    for ((_, _, name), v) in STATS.iter().zip(&population) {
        println!("  {name}: {v:.6}");
    }
    let runs = env_list("RSMREPORT_COVERAGE_RUNS", "400")[0];
    println!("\n| N | data sets | {} |", STATS.map(|s| s.2).join(" | "));
    println!("|---|---|{}", "---|".repeat(STATS.len()));
    for n in env_list("RSMREPORT_COVERAGE_SIZES", "200,1000,10000") {
        let mut hits = [0usize; STATS.len()];
        let mut valid = [0usize; STATS.len()];
        for r in 0..runs {
            let (_, results) = evaluate(&exp, n, 1000 + r as u64, Some(&settings));
            let results = results.unwrap();
            let primary = "raw_trim";
            for (k, (source, metric, _)) in STATS.iter().enumerate() {
                let row = results.get(source, primary, metric).unwrap();
                let (lo, hi) = (row.interval.lower, row.interval.upper);
                if lo.is_finite() && hi.is_finite() {
                    valid[k] += 1;
                    hits[k] += usize::from(lo <= population[k] && population[k] <= hi);
                }
            }
        }
        let cells: Vec<String> = (0..STATS.len())
            .map(|k| {
                let share = hits[k] as f64 / valid[k].max(1) as f64;
                if valid[k] == runs {
                    format!("{share:.3}")
                } else {
                    format!("{share:.3} ({} NaN)", runs - valid[k])
                }
            })
            .collect();
        println!("| {n} | {runs} | {} |", cells.join(" | "));
    }
}
