//! `rsmreport check EXP` for every experiment-file kind: the kind's run
//! without its files. [`Checking`] computes what a run of kind `K`
//! computes (every input read with its rows and checksum, every number,
//! every gate judged) and writes nothing; its terminal lines are the
//! account of what a run would read, compute, gate and write
//! ([`Plan`] from the configuration, the rest from the computed report),
//! and its gates are the run's, so that the exit code is a run's.
//! `build` keeps its own account (`evaluation::Check`, which adds the
//! rows excluded and why); both word the gates with [`gate_lines`].
//!
//! Prints nothing, writes nothing.

use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use anyhow::Result;

use super::{Kind, Report};
use crate::gates::Outcome;
use rsmreport_config::gates::Gate;
use rsmreport_config::intervals::Intervals;
use rsmreport_core::schema::FileFormat;
use rsmreport_report::render::context::InputCtx;
use rsmreport_report::render::format::thousands;

/// What a run of an experiment computes, from its configuration (the
/// part of the check's account that needs no data).
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub model_version: Option<String>,
    pub file_format: Option<FileFormat>,
    /// What is computed, one `label: text` line each (`systems`,
    /// `metrics`, `subgroups`).
    pub computed: Vec<(&'static str, String)>,
    /// The intervals in words ([`interval_words`]), or `off`.
    pub intervals: String,
}

/// A kind whose configuration says what a run computes.
pub trait Planned: Kind {
    fn plan(config: &Self::Config) -> Plan;
}

/// `level%, N bootstrap replicates (seed S), resampling <units>` for
/// interval settings, `off` for none.
pub fn interval_words(i: Option<&Intervals>, units: &str) -> String {
    match i {
        None => "off".to_string(),
        Some(i) if i.replicates == 0 => {
            format!("{}% level, analytic only (replicates = 0)", i.level * 100.0)
        }
        Some(i) => format!(
            "{}% level, {} bootstrap replicates (seed {}), resampling {units}",
            i.level * 100.0,
            i.replicates,
            i.seed
        ),
    }
}

/// The check of kind `K`: run it with [`super::run`] and
/// [`super::Destination::Nowhere`].
pub struct Checking<K>(PhantomData<K>);

impl<K: Planned> Kind for Checking<K> {
    type Config = K::Config;
    const NAME: &'static str = "check";

    fn default_dir(config: &K::Config) -> Option<PathBuf> {
        K::default_dir(config)
    }

    fn inputs(config: &K::Config) -> Vec<PathBuf> {
        K::inputs(config)
    }

    fn compute(config: K::Config) -> Result<Box<dyn Report>> {
        let plan = K::plan(&config);
        let dir = K::default_dir(&config);
        let inner = K::compute(config)?;
        Ok(Box::new(Checked {
            kind: K::NAME,
            plan,
            dir,
            inner,
        }))
    }
}

/// A finished check: the run's numbers and gates, no files, and the
/// account as its terminal lines.
struct Checked {
    kind: &'static str,
    plan: Plan,
    dir: Option<PathBuf>,
    inner: Box<dyn Report>,
}

impl Report for Checked {
    fn id(&self) -> &str {
        self.inner.id()
    }

    fn tables(&self) -> super::Tables<'_> {
        self.inner.tables()
    }

    fn table_format(&self) -> rsmreport_core::schema::FileFormat {
        self.inner.table_format()
    }

    fn summary(&self) -> serde_json::Value {
        self.inner.summary()
    }

    fn inputs(&self) -> Vec<InputCtx> {
        self.inner.inputs()
    }

    fn gates(&self) -> &[Outcome] {
        self.inner.gates()
    }

    fn report(&self, epoch: i64) -> Result<rsmreport_report::render::Report> {
        self.inner.report(epoch)
    }

    fn writes_files(&self) -> bool {
        false
    }

    fn lines(&self, _written: &[PathBuf], _dir: &Path) -> Vec<String> {
        account(self)
    }
}

/// The check's account: the experiment, what is read (rows, checksums),
/// computed, gated and would be written.
fn account(c: &Checked) -> Vec<String> {
    let mut out = vec![format!("experiment: {} ({})", c.inner.id(), c.kind)];
    if let Some(v) = &c.plan.model_version {
        out.push(format!("model version: {v}"));
    }
    for i in c.inner.inputs() {
        let rows = i.rows.parse::<u64>().map_or(i.rows.clone(), thousands);
        out.push(format!(
            "{} file: {} ({rows} rows read, sha256 {})",
            i.role, i.path, i.sha256
        ));
    }
    for (label, text) in &c.plan.computed {
        out.push(format!("{label}: {text}"));
    }
    out.push(format!("intervals: {}", c.plan.intervals));
    let outcomes = c.inner.gates();
    out.extend(gate_lines(&distinct_gates(outcomes), outcomes, "a run"));
    let names: Vec<String> = c.inner.tables().map(|f| f.name.clone()).collect();
    let format = c.plan.file_format.unwrap_or(FileFormat::Csv).extension();
    out.push(format!(
        "tables ({} as {format}): {}",
        names.len(),
        names.join(", ")
    ));
    let dir = c.dir.clone().unwrap_or_else(|| c.inner.default_dir());
    let dir = if dir.is_relative() && !dir.starts_with(".") {
        Path::new(".").join(dir)
    } else {
        dir
    };
    let dir = dir.display();
    out.push(format!(
        "nothing written (a run writes {dir}: output/, figure/, report/)"
    ));
    out
}

/// The gates behind `outcomes`, each once, in order.
fn distinct_gates(outcomes: &[Outcome]) -> Vec<Gate> {
    let mut out: Vec<Gate> = Vec::new();
    for o in outcomes {
        if !out.contains(&o.gate) {
            out.push(o.gate.clone());
        }
    }
    out
}

/// The account of `gates` and their result lines `outcomes`: each gate
/// with its condition, scope, severity, origin and what it gives on these
/// data, then the counts and the exit code `run` (`a build`) would have.
pub fn gate_lines(gates: &[Gate], outcomes: &[Outcome], run: &str) -> Vec<String> {
    use super::common::gates::counts_text;
    if gates.is_empty() {
        return vec!["gates: none".to_string()];
    }
    let mut out = vec![format!("gates: {}", gates.len())];
    for g in gates {
        let lines: Vec<Outcome> = outcomes.iter().filter(|o| &o.gate == g).cloned().collect();
        out.push(format!(
            "  {}: {} [{}], severity {} ({}): {}",
            g.name,
            g.condition(),
            g.scope,
            g.severity.name(),
            g.origin,
            counts_text(&lines)
        ));
    }
    let verdict = if crate::gates::failed(outcomes) {
        format!("{run} would exit with code 3")
    } else {
        format!("{run} would pass them (exit code 0)")
    };
    out.push(format!(
        "gate results: {}; {verdict}",
        counts_text(outcomes)
    ));
    out
}
