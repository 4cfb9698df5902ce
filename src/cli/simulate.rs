//! `rsmreport simulate`: a seeded synthetic predictions file, optionally
//! with a scale file and a matching experiment file. Its options are
//! defined here (the clap `Args` of the `simulate` subcommand).

use crate::simulate;
use anyhow::{bail, Context, Result};
use rsmreport_io::output;
use rsmreport_io::output::file::TableFormat;
use std::path::{Path, PathBuf};

pub const SIMULATE_ABOUT: &str = "\
Simulate a realistic predictions file: true scores T ~ Normal(3.844, 0.74) clipped to the \
score range; human scores h1, h2 = T + rater error, rounded and clipped, with the error sd set \
for the chosen inter-rater correlation; a system score = T + error for the chosen R2 against T \
(plus an optional group bias), written as A * S + B; subgroup columns with uneven sizes; \
optionally zero and non-numeric scores. The same seed gives the same file on every platform.

Example: rsmreport simulate -n 1000000 --out sim.csv --scale-out sim_scale.csv \
--write-config sim.toml && rsmreport build sim.toml";

/// Options of `rsmreport simulate` (defaults: `simulate::SimulationSpec::default()`).
#[derive(clap::Args)]
pub struct SimulateArgs {
    /// Number of responses.
    #[arg(
        short = 'n',
        long = "responses",
        value_name = "N",
        default_value_t = 10_000
    )]
    responses: usize,
    /// Seed of the random numbers.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// The predictions file; its extension (.csv, .tsv, .jsonl, .parquet) sets the format
    /// [default: simulated.<format>].
    #[arg(short, long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Format of the predictions file (default: from --out's extension, else csv).
    #[arg(long, value_name = "FORMAT", value_parser = ["csv", "tsv", "jsonl", "parquet"])]
    format: Option<String>,
    /// Also write an experiment file for these data (all sections; `scale_with` the scale
    /// file when --scale-out is given), so that `rsmreport build FILE` just works.
    #[arg(long, value_name = "FILE")]
    write_config: Option<PathBuf>,
    /// Also write a scale file (columns sc1, prediction) from an independent sample, for
    /// `scale_with`; its extension sets its format.
    #[arg(long, value_name = "FILE")]
    scale_out: Option<PathBuf>,
    /// Responses in the scale sample.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    scale_n: usize,
    /// Correlation of two (unrounded) human scores: low (0.40), moderate (0.55), average
    /// (0.65), high (0.80) or a number in (0, 1].
    #[arg(long, value_name = "R", default_value = "average")]
    inter_rater: String,
    /// Squared correlation of the system score with the true score, in (0, 1].
    #[arg(long, value_name = "R2", default_value_t = 0.7)]
    system_r2: f64,
    /// Fraction of responses with a second human score (0 leaves the h2 column out).
    #[arg(long, value_name = "FRACTION", default_value_t = 0.3)]
    double_scored: f64,
    /// Lowest score point.
    #[arg(long, default_value_t = 1)]
    score_min: i64,
    /// Highest score point.
    #[arg(long, default_value_t = 6)]
    score_max: i64,
    /// Mean of the true score (before clipping to the score range).
    #[arg(long, default_value_t = 3.844, allow_negative_numbers = true)]
    true_mean: f64,
    /// Standard deviation of the true score (before clipping).
    #[arg(long, default_value_t = 0.74)]
    true_sd: f64,
    /// The system score is written on its own scale as A * S + B: this is A.
    #[arg(
        long,
        value_name = "A",
        default_value_t = 1.0,
        allow_negative_numbers = true
    )]
    system_scale: f64,
    /// The offset B of the system score's own scale A * S + B.
    #[arg(
        long,
        value_name = "B",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    system_offset: f64,
    /// Decimal places of the system score.
    #[arg(long, default_value_t = 6)]
    decimals: u32,
    /// A subgroup column NAME=LEVEL:WEIGHT[:BIAS],... (repeat for more columns; replaces the
    /// default L1 (6 uneven levels) and gender (F, M)), e.g.
    /// --subgroup "L1=Spanish:40,Mandarin:25,Tagalog:1:-0.15".
    #[arg(long = "subgroup", value_name = "SPEC")]
    subgroups: Vec<String>,
    /// No subgroup columns.
    #[arg(long, conflicts_with = "subgroups")]
    no_subgroups: bool,
    /// Shift of the system score (score points) for the last level of every subgroup column.
    #[arg(
        long,
        value_name = "POINTS",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    group_bias: f64,
    /// Fraction of responses whose first human score is 0 (and of double-scored responses
    /// whose second one is); the evaluation excludes them by default.
    #[arg(long, value_name = "FRACTION", default_value_t = 0.0)]
    zero_scores: f64,
    /// Fraction of responses with a non-numeric first human score (NS) and, chosen
    /// independently, with a non-numeric system score (NA).
    #[arg(long, value_name = "FRACTION", default_value_t = 0.0)]
    non_numeric: f64,
    /// Replace existing files.
    #[arg(short, long)]
    force: bool,
}

impl SimulateArgs {
    fn spec(&self) -> Result<simulate::SimulationSpec> {
        let subgroups = if self.no_subgroups {
            Vec::new()
        } else if self.subgroups.is_empty() {
            simulate::default_subgroups()
        } else {
            self.subgroups
                .iter()
                .map(|s| simulate::SubgroupSpec::parse(s))
                .collect::<Result<_>>()?
        };
        let spec = simulate::SimulationSpec {
            n: self.responses,
            seed: self.seed,
            true_mean: self.true_mean,
            true_sd: self.true_sd,
            score_min: self.score_min,
            score_max: self.score_max,
            inter_rater: simulate::parse_inter_rater(&self.inter_rater)?,
            system_r2: self.system_r2,
            system_scale: self.system_scale,
            system_offset: self.system_offset,
            decimals: self.decimals,
            double_scored: self.double_scored,
            subgroups,
            group_bias: self.group_bias,
            zero_scores: self.zero_scores,
            non_numeric: self.non_numeric,
            scale_n: self.scale_n,
        };
        spec.validate()?;
        Ok(spec)
    }
}

/// The format of a table file to write: `--format` if given (it must agree
/// with the extension, which is what `build` reads by), else the extension.
fn table_format(path: &Path, given: Option<TableFormat>) -> Result<TableFormat> {
    match (TableFormat::from_path(path), given) {
        (Some(a), Some(b)) if a != b => bail!(
            "{} has the extension of {} but --format {} was given; rsmreport reads tables by \
             their extension, so make them agree",
            path.display(),
            a.extension(),
            b.extension()
        ),
        (Some(a), _) => Ok(a),
        (None, _) => bail!(
            "{}: the file name must end in one of .{} (rsmreport reads tables by their extension)",
            path.display(),
            TableFormat::NAMES.replace(", ", ", .")
        ),
    }
}

/// How the experiment file `config` should name `file`: relative to the
/// config's folder when it is inside it, else absolute.
fn path_for_config(file: &Path, config: &Path) -> Result<String> {
    let cwd = std::env::current_dir().context("cannot determine the current folder")?;
    let file = cwd.join(file);
    let folder = cwd.join(config);
    let folder = folder.parent().unwrap_or(&cwd);
    Ok(match file.strip_prefix(folder) {
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => file.to_string_lossy().into_owned(),
    })
}

/// What a simulation writes, validated before anything is written.
struct Plan {
    spec: simulate::SimulationSpec,
    sim: simulate::Simulator,
    out: PathBuf,
    format: TableFormat,
    /// The scale file with its format and its rows, drawn up front.
    scale: Option<(PathBuf, TableFormat, rsmreport_core::table::Table)>,
    write_config: Option<PathBuf>,
    force: bool,
}

/// Checks the arguments and the files to write; every error is about the
/// request (exit 2).
fn plan(args: SimulateArgs) -> Result<Plan> {
    let spec = args.spec()?;
    let given = args.format.as_deref().and_then(TableFormat::parse);
    let out = args.out.clone().unwrap_or_else(|| {
        PathBuf::from(format!(
            "simulated.{}",
            given.unwrap_or(TableFormat::Csv).extension()
        ))
    });
    let format = table_format(&out, given)?;
    let scale_format = match &args.scale_out {
        Some(p) => Some(table_format(p, None)?),
        None => None,
    };
    let targets: Vec<&Path> = [
        Some(out.as_path()),
        args.scale_out.as_deref(),
        args.write_config.as_deref(),
    ]
    .into_iter()
    .flatten()
    .collect();
    for (i, p) in targets.iter().enumerate() {
        if targets[..i].contains(p) {
            bail!(
                "{} is named twice among --out, --scale-out and --write-config",
                p.display()
            );
        }
        output::file::check_new_file(p, args.force)?;
    }
    if let Some(config) = &args.write_config {
        if config.extension().and_then(|e| e.to_str()) != Some("toml") {
            bail!(
                "--write-config {}: the experiment file must end in .toml",
                config.display()
            );
        }
    }
    let scale = match (args.scale_out, scale_format) {
        (Some(path), Some(fmt)) => Some((path, fmt, simulate::scale_sample(&spec)?)),
        _ => None,
    };
    let sim = simulate::Simulator::new(&spec)?;
    Ok(Plan {
        spec,
        sim,
        out,
        format,
        scale,
        write_config: args.write_config,
        force: args.force,
    })
}

pub fn run(args: SimulateArgs) -> Result<()> {
    let mut plan = plan(args).map_err(rsmreport_core::error::config)?;
    let sim = &mut plan.sim;
    let chunks = std::iter::from_fn(|| sim.next_chunk(1 << 16));
    output::file::write_table_chunks(&plan.out, plan.format, plan.force, chunks)?;
    let counts = plan.sim.counts();
    say!(
        "simulated {} responses ({} double-scored; {} zero and {} non-numeric human scores, \
         {} non-numeric system scores) -> {}",
        counts.rows,
        counts.double_scored,
        counts.zero_h1,
        counts.non_numeric_h1,
        counts.non_numeric_system,
        plan.out.display()
    );
    let scale_path = plan.scale.as_ref().map(|(path, _, _)| path.clone());
    if let Some((path, fmt, table)) = plan.scale {
        output::file::write_table_chunks(&path, fmt, plan.force, [table])?;
        say!(
            "scale sample: {} responses -> {}",
            plan.spec.scale_n,
            path.display()
        );
    }
    if let Some(config) = &plan.write_config {
        let stem = plan
            .out
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let paths = simulate::ConfigPaths {
            experiment_id: simulate::experiment_id_from(&stem),
            predictions: path_for_config(&plan.out, config)?,
            scale: match &scale_path {
                Some(p) => Some(path_for_config(p, config)?),
                None => None,
            },
        };
        let text = simulate::experiment_toml(&plan.spec, &paths);
        output::file::write_file(config, text.as_bytes(), plan.force)?;
        say!(
            "experiment: {} (run `rsmreport build {}`)",
            config.display(),
            config.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[test]
    fn simulate_defaults_are_the_spec_defaults() {
        let cli = crate::Cli::parse_from(["rsmreport", "simulate"]);
        let crate::Command::Simulate(args) = cli.command else {
            panic!("not simulate");
        };
        assert_eq!(args.spec().unwrap(), simulate::SimulationSpec::default());
    }
}
