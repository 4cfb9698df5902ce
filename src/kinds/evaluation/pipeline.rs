//! The evaluation kind's run (`rsmreport build`, `check`): config -> input -> preprocess ->
//! analysis, then the files of the output folder ([`emit_files`]: the
//! tables, and the report assembled by [`super::report`] and rendered by
//! [`crate::render`]). Reads the input files through `input`; writes
//! nothing (the caller hands the files to `output`).

use crate::analysis::intervals::{self, IntervalResults};
use crate::analysis::{self, Analysis};
use crate::config::{Experiment, ScaleWith};
use crate::output::OutputFile;
use crate::preprocess::{self, Exclusion, Prepared};
pub use crate::provenance::{generation_epoch, sha256_file, timed, InputInfo};
use crate::schema::check_file_name_part;
use anyhow::{Context, Result};
use std::fmt::Write as _;
use std::path::Path;

/// Reads a table and, on another thread, hashes the same file.
fn read_with_hash(
    role: &'static str,
    path: &Path,
    text_columns: &[&str],
) -> Result<(crate::table::Table, InputInfo)> {
    let (table, sha256) = crate::provenance::read_with_checksum(path, || {
        crate::input::read_table(path, text_columns)
            .with_context(|| format!("cannot read the {role} file"))
    });
    let table = table?;
    let info = InputInfo {
        role,
        path: path.to_path_buf(),
        rows: table.nrows,
        sha256: sha256?,
    };
    Ok((table, info))
}

/// The complete result of a run, before anything is written.
#[derive(Clone, Debug)]
pub struct Run {
    pub exp: Experiment,
    pub inputs: Vec<InputInfo>,
    pub prepared: Prepared,
    pub analysis: Analysis,
    /// Confidence intervals (their `_ci` tables are in `analysis.frames`);
    /// `None` when switched off.
    pub intervals: Option<IntervalResults>,
    /// The quality gate results, in gate order (empty without gates);
    /// filled by [`evaluate_gates`].
    pub gates: Vec<crate::gates::Outcome>,
}

/// Evaluates the experiment's gates on the finished run. The error (a
/// `<subgroup>=<level>` scope whose level is not in the data) is a
/// configuration error.
pub fn evaluate_gates(run: &mut Run) -> Result<(), String> {
    run.gates = timed("gates", || crate::kinds::evaluation::gates::evaluate(run))?;
    Ok(())
}

/// Reads the inputs of `exp` and computes every table.
pub fn execute(exp: Experiment) -> Result<Run> {
    for g in &exp.subgroups {
        check_file_name_part(g, "subgroup column")
            .with_context(|| format!("invalid `subgroups` in {}", exp.config_path.display()))?;
    }
    let pred_path = exp.predictions_file.clone();
    let text_cols = preprocess::text_columns(&exp);
    let (table, info) = timed("read predictions", || {
        read_with_hash("predictions", &pred_path, &text_cols)
    })?;
    let mut inputs = vec![info];
    let scale_table = match &exp.scale_with {
        ScaleWith::File(path) => {
            let (t, info) = timed("read scale", || read_with_hash("scale", path, &[]))?;
            inputs.push(info);
            Some(t)
        }
        _ => None,
    };
    let mut prepared = timed("preprocess", || {
        preprocess::prepare(
            &exp,
            table,
            scale_table.as_ref(),
            &pred_path.display().to_string(),
        )
    })?;
    let mut analysis = timed("analyze", || {
        analysis::analyze_moving_frames(&exp, &mut prepared)
    });
    let intervals = exp.intervals.as_ref().map(|settings| {
        timed("intervals", || {
            let candidates = intervals::candidate_codes(&analysis.frames);
            intervals::compute(
                settings,
                &prepared,
                &analysis.frames,
                candidates.as_deref(),
                exp.rater_error_variance.map(crate::config::Number::as_f64),
            )
        })
    });
    if let Some(results) = &intervals {
        analysis.frames.extend(intervals::frames(results));
    }
    Ok(Run {
        exp,
        inputs,
        prepared,
        analysis,
        intervals,
        gates: Vec::new(),
    })
}

/// Every file of the output folder, each handed to `emit` as soon as its
/// bytes exist: the tables first, then the report (which is small: it is
/// drawn from the per-group results, never from the responses).
/// Everything that carries a time (the report's header, the xlsx tables'
/// document properties) gets the same one, [`generation_epoch`].
pub fn emit_files(run: &Run, emit: &mut dyn FnMut(&OutputFile) -> Result<()>) -> Result<()> {
    let epoch = generation_epoch();
    timed("format and write tables", || {
        let spec = crate::output::TableFiles {
            id: &run.exp.experiment_id,
            format: run.exp.file_format,
            saved_config: crate::config::saved_config_json(&run.exp).into_bytes(),
        };
        crate::output::each_table_file(spec, &run.analysis.frames, epoch, emit)
    })?;
    emit(&OutputFile {
        path: Path::new("output").join(format!("{}_summary.json", run.exp.experiment_id)),
        bytes: crate::kinds::evaluation::summary::summary_json(run),
    })?;
    if !run.exp.gates.is_empty() {
        let id = &run.exp.experiment_id;
        emit(&OutputFile {
            path: Path::new("output").join(format!("{id}_gates.json")),
            bytes: crate::gates::json::gates_json(id, &run.gates),
        })?;
        emit(&OutputFile {
            path: Path::new("output").join(format!("{id}_gates.xml")),
            bytes: crate::gates::junit::junit_xml(id, &run.gates),
        })?;
    }
    let report = timed("report", || {
        crate::render::report_files(&crate::kinds::evaluation::report(run, epoch)?)
    })?;
    timed("write report", || report.iter().try_for_each(&mut *emit))
}

/// The gates a build evaluates, each with its condition, scope, origin and
/// what it gives on these data.
fn describe_gates(run: &Run, s: &mut String) {
    let gates = &run.exp.gates;
    if gates.is_empty() {
        let _ = writeln!(s, "gates: none");
        return;
    }
    let _ = writeln!(s, "gates: {}", gates.len());
    for g in gates {
        let lines: Vec<_> = run.gates.iter().filter(|o| &o.gate == g).cloned().collect();
        let _ = writeln!(
            s,
            "  {}: {} [{}], severity {} ({}): {}",
            g.name,
            g.condition(),
            g.scope,
            g.severity.name(),
            g.origin,
            crate::kinds::evaluation::gates::counts_text(&lines)
        );
    }
    let verdict = if crate::gates::failed(&run.gates) {
        "a build would exit with code 3"
    } else {
        "a build would pass them (exit code 0)"
    };
    let _ = writeln!(
        s,
        "gate results: {}; {verdict}",
        crate::kinds::evaluation::gates::counts_text(&run.gates)
    );
}

/// A plain-text account of what a build does with this experiment (the
/// `check` command's output).
pub fn describe(run: &Run) -> String {
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
            i.rows
        );
    }
    if p.n_flagged > 0 {
        let _ = writeln!(s, "excluded by flag_column: {}", p.n_flagged);
    }
    for (why, n) in analysis::exclusion_counts(p) {
        if n > 0 {
            let reason = match why {
                Exclusion::NonNumericHuman => "non-numeric human score",
                Exclusion::ZeroHuman => "zero human score",
                Exclusion::NonNumericSystem => "non-numeric system score",
                Exclusion::Listwise => "candidate with too few responses",
            };
            let _ = writeln!(s, "excluded ({reason}): {n}");
        }
    }
    let _ = writeln!(s, "responses evaluated: {}", p.n());
    if let Some(sc2) = &p.sc2 {
        let double = sc2.iter().filter(|x| !x.is_nan()).count();
        let _ = writeln!(s, "double-scored responses: {double}");
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
        let _ = writeln!(s, "further human scores in {}: {n}", o.name);
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
            .map(|(l, c)| format!("{l} ({c})"))
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
                r.tables.first().map_or(0, |t| t.n_units),
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
