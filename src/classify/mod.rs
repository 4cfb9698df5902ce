//! `rsmreport classify EXP` (`spec/classify.md`): one or more classifiers
//! against gold labels, with scikit-learn's numbers, curves, calibration,
//! intervals and paired verdicts against a baseline.
//!
//! * [`read`]: the predictions file as label codes and score columns.
//! * [`run`]: every number (all items and each subgroup level).
//! * [`resample`]: the seeded block bootstrap (intervals, paired deltas).
//! * [`tables`]: the tables of spec 4 and `<id>_summary.json`.
//! * [`report`]: the HTML report through the engine `crate::render`.
//! * this file: [`command`] (config -> read -> run -> files -> write),
//!   [`files`] and [`terminal_lines`].
//!
//! Command assembly: reads the predictions file (in `read` only), defines
//! no statistic of its own (`crate::metrics` does), and writes only
//! through the output stage. Touches no other kind.

pub mod read;
pub mod report;
mod report_figures;
pub mod resample;
pub mod run;
pub mod tables;

use std::path::{Path, PathBuf};

use anyhow::anyhow;

use crate::config::classify::ClassifyConfig;
use crate::config::FileFormat;
use crate::output::OutputFile;
use run::Analysis;

/// The predicted "label" of an abstention (a blank prediction): a column
/// of the confusion matrix, never a class.
pub const NONE_LABEL: &str = "(none)";

/// An error with the exit code it deserves (2 usage or configuration, 1
/// data).
#[derive(Debug)]
pub struct Failure {
    pub code: u8,
    pub error: anyhow::Error,
}

fn config_error(error: anyhow::Error) -> Failure {
    Failure { code: 2, error }
}

fn data_error(error: anyhow::Error) -> Failure {
    Failure { code: 1, error }
}

/// `rsmreport classify`: reads the experiment and its predictions,
/// computes every table, writes the folder and prints the headline lines.
pub fn command(experiment: &Path, output_dir: Option<PathBuf>, force: bool) -> Result<(), Failure> {
    let cfg = crate::config::classify::load(experiment).map_err(config_error)?;
    if cfg.gates.is_some() {
        return Err(config_error(anyhow!(
            "{}: [[gates]] are not supported by classify yet; remove them (a gate that checks \
             nothing would pass silently)",
            experiment.display()
        )));
    }
    let dir = output_dir.unwrap_or_else(|| PathBuf::from(&cfg.experiment_id));
    crate::output::check_output_dir(&dir, force).map_err(config_error)?;
    let (data, sha256) = std::thread::scope(|scope| {
        let hash = scope.spawn(|| crate::pipeline::sha256_file(&cfg.predictions_file));
        let data = read::read(&cfg);
        let sha = hash
            .join()
            .unwrap_or_else(|_| Err(anyhow!("checksum thread failed")));
        data.and_then(|d| sha.map(|s| (d, s)))
    })
    .map_err(data_error)?;
    if data.n() == 0 {
        return Err(data_error(anyhow!(
            "{}: no item has a gold label in column '{}' ({} rows read, every gold cell blank)",
            cfg.predictions_file.display(),
            cfg.gold_column,
            data.n_rows
        )));
    }
    let analysis = crate::pipeline::timed("analyse", || run::analyse(&cfg, &data));
    let input = crate::render::context::InputCtx {
        role: "predictions".into(),
        path: cfg.predictions_file.display().to_string(),
        rows: data.n_rows.to_string(),
        sha256,
    };
    let files = crate::pipeline::timed("report and tables", || {
        files(
            &analysis,
            &cfg,
            vec![input],
            crate::pipeline::generation_epoch(),
        )
    })
    .map_err(data_error)?;
    crate::pipeline::timed("write", || {
        crate::output::write_output_dir_with(&dir, force, |sink| {
            files.iter().try_for_each(|f| sink.put(f))
        })
    })
    .map_err(data_error)?;
    for line in terminal_lines(&analysis) {
        println!("{line}");
    }
    let report = dir
        .join("report")
        .join(format!("{}_report.html", analysis.id));
    println!("wrote {}", report.display());
    // The process ends right after this: leave the large buffers to the OS.
    std::mem::forget((data, analysis));
    Ok(())
}

/// A table's bytes in the configured format.
fn table_bytes(f: &crate::table::Frame, format: FileFormat, epoch: i64) -> anyhow::Result<Vec<u8>> {
    Ok(match format {
        FileFormat::Csv => crate::output::write::to_delimited(f, b','),
        FileFormat::Tsv => crate::output::write::to_delimited(f, b'\t'),
        FileFormat::Xlsx => crate::output::write::to_xlsx(f, epoch)?,
    })
}

/// Every output file: the tables, `<id>_summary.json`, the report and its
/// figures.
pub fn files(
    a: &Analysis,
    cfg: &ClassifyConfig,
    inputs: Vec<crate::render::context::InputCtx>,
    epoch: i64,
) -> anyhow::Result<Vec<OutputFile>> {
    let out = Path::new("output");
    let ext = cfg.file_format.extension();
    let mut files = Vec::new();
    for f in tables::frames(a) {
        files.push(OutputFile {
            path: out.join(format!("{}_{}.{ext}", a.id, f.name)),
            bytes: table_bytes(&f, cfg.file_format, epoch)?,
        });
    }
    let (path, sha) = inputs.first().map_or((String::new(), String::new()), |i| {
        (i.path.clone(), i.sha256.clone())
    });
    files.push(OutputFile {
        path: out.join(format!("{}_summary.json", a.id)),
        bytes: tables::summary_json(a, &sha, &path),
    });
    files.extend(crate::render::report_files(&report::report(
        a, inputs, epoch,
    )?)?);
    Ok(files)
}

fn fixed(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.3}")
    } else {
        "n/a".into()
    }
}

/// One line per system (accuracy and macro F1 with intervals), then one
/// per compared statistic of each candidate, criterion-style.
pub fn terminal_lines(a: &Analysis) -> Vec<String> {
    let mut out = vec![format!(
        "{}: {} items ({} rows, {} without a gold label), {} labels",
        a.id,
        a.n,
        a.n_rows,
        a.n_dropped_blank_gold,
        a.k()
    )];
    let width = a
        .systems
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(0);
    let ci = |s: usize, m: &str| {
        a.intervals
            .as_ref()
            .and_then(|iv| iv.get(s, "overall", m))
            .filter(|r| r.interval.lower.is_finite())
            .map_or_else(String::new, |r| {
                format!(
                    " [{}, {}]",
                    fixed(r.interval.lower),
                    fixed(r.interval.upper)
                )
            })
    };
    for (s, sys) in a.systems.iter().enumerate() {
        out.push(format!(
            "  {:<width$}  accuracy {}{}  macro F1 {}{}{}",
            sys.name,
            fixed(sys.report.accuracy),
            ci(s, "accuracy"),
            fixed(sys.macro_f(a.f1())),
            ci(s, "macro_f1"),
            if sys.n_abstained > 0 {
                format!("  ({} abstained)", sys.n_abstained)
            } else {
                String::new()
            }
        ));
    }
    for r in tables::comparison_rows(a)
        .iter()
        .filter(|r| r.scope == "overall")
    {
        out.push(format!(
            "  {} vs {}: {} change: [{:+.3} {:+.3} {:+.3}] (p = {}) {}",
            a.systems[r.candidate].name,
            a.systems[r.baseline].name,
            r.statistic,
            r.delta.1,
            r.delta.0,
            r.delta.2,
            match r.p_value {
                p if p < 0.001 => "< 0.001".to_string(),
                p if p.is_finite() => format!("{p:.3}"),
                _ => "n/a".into(),
            },
            r.verdict
        ));
    }
    out
}
