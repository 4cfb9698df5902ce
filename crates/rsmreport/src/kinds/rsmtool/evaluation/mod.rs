//! `rsmreport build EXP` and `check EXP` (RSMTool's `rsmeval` and the
//! parity spec): one scoring engine's scores against human scores.
//!
//! * [`read`]: the predictions and scale files with their checksums, and
//!   the list of every file a build reads.
//! * [`run`]: preprocess, analysis, intervals and gates (the tables come
//!   from the analysis stage, `crate::analysis`).
//! * [`tables`]: the summary's keys (the tables themselves are the
//!   analysis stage's frames).
//! * [`report`]: the HTML report, with the built-in report sections of
//!   [`sections`] and the gates panel of [`gates`].
//! * this file: the contracts of `build` ([`Build`]) and `check`
//!   ([`Check`], which writes nothing and gives an account of what a build
//!   would do), run by [`crate::kinds::run`]: its data for the shared
//!   writer ([`crate::kinds::archive`]; a build also saves its
//!   configuration, `<id>_rsmeval.json`), terminal lines and `check`'s
//!   account.
//!
//! Command assembly: reads the inputs (in `read` only) and the custom
//! section files (in `report`), defines no statistic of its own, and makes
//! no file.

pub mod gates;
pub mod read;
pub mod report;
pub mod run;
pub mod sections;
pub mod tables;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::analysis;
use crate::preprocess::Exclusion;
use rsmreport_config::{self as config, Experiment};
use rsmreport_core::error;
use rsmreport_io::output::OutputFile;
use rsmreport_report::render::context::InputCtx;
use rsmreport_report::render::format::thousands;
use run::Run;

/// A build's configuration: the experiment, with the gates of a gates
/// file (`--gates FILE`) merged into its own, and that file.
#[derive(Clone, Debug)]
pub struct BuildConfig {
    pub exp: Experiment,
    pub gates_file: Option<PathBuf>,
}

/// Reads and validates the experiment at `path` (`.toml` or an rsmeval
/// `.json`) and the gates file `gates`, if any (configuration errors).
pub fn load(path: &Path, gates: Option<&Path>) -> Result<BuildConfig> {
    let mut exp = config::load(path).map_err(error::config)?;
    if let Some(file) = gates {
        let more = config::gates::load_file(file, &exp).map_err(error::config)?;
        config::gates::merge(&mut exp.gates, more);
    }
    config::gates::unique_names(&exp.gates).map_err(|e| error::config(anyhow::anyhow!(e)))?;
    Ok(BuildConfig {
        exp,
        gates_file: gates.map(Path::to_path_buf),
    })
}

/// Every file a build reads: the experiment's and the gates file.
fn build_inputs(cfg: &BuildConfig) -> Vec<PathBuf> {
    let mut inputs: Vec<PathBuf> = read::experiment_files(&cfg.exp)
        .into_iter()
        .map(Path::to_path_buf)
        .collect();
    inputs.extend(cfg.gates_file.clone());
    inputs
}

/// Runs the pipeline (data errors) and evaluates the gates (a scope the
/// data do not have is a configuration error).
fn execute(cfg: BuildConfig) -> Result<Run> {
    let mut run = run::execute(cfg.exp)?;
    run::evaluate_gates(&mut run).map_err(|e| error::config(anyhow::anyhow!(e)))?;
    Ok(run)
}

/// `rsmreport build`: run it with [`crate::kinds::run`].
pub struct Build;

impl crate::kinds::Kind for Build {
    type Config = BuildConfig;
    const NAME: &'static str = "build";

    fn default_dir(cfg: &BuildConfig) -> Option<PathBuf> {
        Some(PathBuf::from(&cfg.exp.experiment_id))
    }

    fn inputs(cfg: &BuildConfig) -> Vec<PathBuf> {
        build_inputs(cfg)
    }

    fn compute(cfg: BuildConfig) -> Result<Box<dyn crate::kinds::Report>> {
        Ok(Box::new(Built(execute(cfg)?)))
    }
}

/// `rsmreport check`: a build that writes nothing; its terminal lines are
/// the account of what a build would do ([`describe`]). Run it with
/// [`crate::kinds::run`] and [`crate::kinds::Destination::Nowhere`].
pub struct Check;

impl crate::kinds::Kind for Check {
    type Config = BuildConfig;
    const NAME: &'static str = "check";
    const SUMMARY_KIND: &'static str = "build";

    fn default_dir(cfg: &BuildConfig) -> Option<PathBuf> {
        <Build as crate::kinds::Kind>::default_dir(cfg)
    }

    fn inputs(cfg: &BuildConfig) -> Vec<PathBuf> {
        <Build as crate::kinds::Kind>::inputs(cfg)
    }

    fn compute(cfg: BuildConfig) -> Result<Box<dyn crate::kinds::Report>> {
        Ok(Box::new(Checked(Built(execute(cfg)?))))
    }
}

/// A finished build.
struct Built(Run);

impl crate::kinds::Report for Built {
    fn id(&self) -> &str {
        &self.0.exp.experiment_id
    }

    fn decision(&self) -> Option<rsmreport_report::render::Decision> {
        Some(report::decision(&self.0))
    }

    /// The analysis stage's frames that have rows and columns (spec 4.1).
    fn tables(&self) -> crate::kinds::Tables<'_> {
        Box::new(
            self.0
                .analysis
                .frames
                .iter()
                .filter(|f| f.is_writable())
                .map(std::borrow::Cow::Borrowed),
        )
    }

    fn table_format(&self) -> rsmreport_core::schema::FileFormat {
        self.0.exp.file_format
    }

    fn summary(&self) -> serde_json::Value {
        crate::kinds::json_value(&tables::summary_json(&self.0))
    }

    fn inputs(&self) -> Vec<InputCtx> {
        self.0
            .inputs
            .iter()
            .map(|i| InputCtx {
                role: i.role.to_string(),
                path: i.path.display().to_string(),
                rows: i.rows.to_string(),
                sha256: i.sha256.clone(),
            })
            .collect()
    }

    fn gates(&self) -> &[crate::gates::Outcome] {
        &self.0.gates
    }

    /// Drawn from the per-group results, never from the responses: small.
    fn report(&self, epoch: i64) -> Result<rsmreport_report::render::Report> {
        report::report(&self.0, epoch)
    }

    fn saved_configuration(&self) -> Option<OutputFile> {
        Some(OutputFile {
            path: Path::new("output").join(format!("{}_rsmeval.json", self.0.exp.experiment_id)),
            bytes: rsmreport_config::saved_config_json(&self.0.exp).into_bytes(),
        })
    }

    fn lines(&self, written: &[PathBuf], dir: &Path) -> Vec<String> {
        terminal_lines(&self.0, written, dir)
    }
}

/// A finished `check`: the build's numbers, no files, and its account as
/// the terminal lines. Its gates are the build's (a failed gate of
/// severity `fail` gives the build's exit code 3).
struct Checked(Built);

impl crate::kinds::Report for Checked {
    fn id(&self) -> &str {
        self.0.id()
    }

    fn tables(&self) -> crate::kinds::Tables<'_> {
        self.0.tables()
    }

    fn table_format(&self) -> rsmreport_core::schema::FileFormat {
        self.0.table_format()
    }

    fn summary(&self) -> serde_json::Value {
        self.0.summary()
    }

    fn inputs(&self) -> Vec<InputCtx> {
        self.0.inputs()
    }

    fn report(&self, epoch: i64) -> Result<rsmreport_report::render::Report> {
        self.0.report(epoch)
    }

    fn writes_files(&self) -> bool {
        false
    }

    fn gates(&self) -> &[crate::gates::Outcome] {
        self.0.gates()
    }

    fn lines(&self, _written: &[PathBuf], _dir: &Path) -> Vec<String> {
        describe(&self.0 .0).lines().map(str::to_string).collect()
    }
}

/// The terminal line of a finished build: the responses evaluated and the
/// tables written (`written`: every file written, relative to `dir`).
fn terminal_lines(run: &Run, written: &[PathBuf], dir: &Path) -> Vec<String> {
    let tables = written.iter().filter(|p| p.starts_with("output")).count();
    vec![format!(
        "{}: evaluated {} responses; wrote {} files to {}",
        run.exp.experiment_id,
        rsmreport_report::render::format::thousands(run.prepared.n() as u64),
        tables,
        dir.join("output").display()
    )]
}

/// The gates a build evaluates, each with its condition, scope, origin and
/// what it gives on these data.
fn describe_gates(run: &Run, s: &mut String) {
    for line in crate::kinds::check::gate_lines(&run.exp.gates, &run.gates, "a build") {
        let _ = writeln!(s, "{line}");
    }
}

/// A plain-text account of what a build does with this experiment (the
/// `check` command's terminal output).
fn describe(run: &Run) -> String {
    let exp = &run.exp;
    let p = &run.prepared;
    let mut s = String::new();
    let _ = writeln!(s, "experiment: {}", exp.experiment_id);
    if let Some(v) = &exp.model_version {
        let _ = writeln!(s, "model version: {v}");
    }
    for i in &run.inputs {
        let _ = writeln!(
            s,
            "{} file: {} ({} rows read)",
            i.role,
            i.path.display(),
            thousands(i.rows as u64)
        );
    }
    if p.n_flagged > 0 {
        let _ = writeln!(
            s,
            "excluded by flag_column: {}",
            thousands(p.n_flagged as u64)
        );
    }
    for (why, n) in analysis::exclusion_counts(p) {
        if n > 0 {
            let reason = match why {
                Exclusion::NonNumericHuman => "non-numeric human score",
                Exclusion::ZeroHuman => "zero human score",
                Exclusion::NonNumericSystem => "non-numeric system score",
                Exclusion::Listwise => "candidate with too few responses",
            };
            let _ = writeln!(s, "excluded ({reason}): {}", thousands(n as u64));
        }
    }
    let _ = writeln!(s, "responses evaluated: {}", thousands(p.n() as u64));
    if let Some(sc2) = &p.sc2 {
        let double = sc2.iter().filter(|x| !x.is_nan()).count();
        let _ = writeln!(s, "double-scored responses: {}", thousands(double as u64));
        if p.sc2_non_numeric > 0 {
            let _ = writeln!(
                s,
                "warning: {} non-numeric second human scores were treated as missing",
                p.sc2_non_numeric
            );
        }
    }
    for o in &p.other_humans {
        let n = o.values.iter().filter(|x| !x.is_nan()).count();
        let _ = writeln!(
            s,
            "further human scores in {}: {}",
            o.name,
            thousands(n as u64)
        );
        if o.non_numeric > 0 {
            let _ = writeln!(
                s,
                "warning: {} non-numeric values of {} were treated as missing",
                o.non_numeric, o.name
            );
        }
    }
    let names: Vec<&str> = p.scores.iter().map(|c| c.name).collect();
    let _ = writeln!(s, "score types: {}", names.join(", "));
    for g in &p.groups {
        let counts = g.counts();
        let parts: Vec<String> = g
            .labels
            .iter()
            .zip(&counts)
            .map(|(l, c)| format!("{l} ({})", thousands(*c as u64)))
            .collect();
        let _ = writeln!(s, "subgroup {}: {}", g.name, parts.join(", "));
    }
    let sections: Vec<&str> = exp.sections.iter().map(|x| x.name()).collect();
    let _ = writeln!(s, "report sections: {}", sections.join(", "));
    match &run.intervals {
        Some(r) => {
            let i = &r.settings;
            let _ = writeln!(
                s,
                "intervals: {}% level, {} bootstrap replicates (seed {}), resampling {} {}s",
                i.level * 100.0,
                i.replicates,
                i.seed,
                thousands(r.tables.first().map_or(0, |t| t.n_units) as u64),
                i.unit.name()
            );
        }
        None => {
            let _ = writeln!(s, "intervals: off");
        }
    }
    describe_gates(run, &mut s);
    let tables: Vec<&str> = run
        .analysis
        .frames
        .iter()
        .filter(|f| f.is_writable())
        .map(|f| f.name.as_str())
        .collect();
    let _ = writeln!(
        s,
        "tables ({} as {}): {}",
        tables.len(),
        exp.file_format.extension(),
        tables.join(", ")
    );
    s
}
