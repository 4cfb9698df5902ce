//! Command assembly (evaluation): the `build` command's report: assembles
//! the kind-agnostic [`Report`](rsmreport_report::render::Report) of one evaluation
//! run ([`crate::kinds::evaluation::run::Run`]): the header with key figures and provenance,
//! then every configured section in order, built-in ([`super::sections`], with
//! their templates in `templates/build/`) or custom (a Markdown or HTML
//! file).
//!
//! Reads only the custom section files; writes nothing; never changes the
//! run. The engine ([`rsmreport_report::render`]) renders what this returns.

use anyhow::{Context as _, Result};

use crate::kinds::common::gates;
use crate::kinds::evaluation::run::Run;
use crate::kinds::evaluation::sections;
use rsmreport_config::Section;
use rsmreport_report::render::context::{Glance, InputCtx};
use rsmreport_report::render::format::{num3, thousands};
use rsmreport_report::render::{glossary, tables};
use rsmreport_report::render::{Block, ConfigCtx, Decision, Header, Report, Tone};

/// The templates of the built-in sections, by the names their contexts
/// give (they import the engine's `macros.html`); `train`'s report loads
/// them too, for the evaluation sections it takes from here.
pub const TEMPLATES: &[(&str, &str)] = &[
    (
        "sections/data_description.html",
        include_str!("../../../../templates/evaluation/sections/data_description.html.tera"),
    ),
    (
        "sections/data_description_by_group.html",
        include_str!(
            "../../../../templates/evaluation/sections/data_description_by_group.html.tera"
        ),
    ),
    (
        "sections/consistency.html",
        include_str!("../../../../templates/evaluation/sections/consistency.html.tera"),
    ),
    (
        "sections/evaluation.html",
        include_str!("../../../../templates/evaluation/sections/evaluation.html.tera"),
    ),
    (
        "sections/true_score_evaluation.html",
        include_str!("../../../../templates/evaluation/sections/true_score_evaluation.html.tera"),
    ),
    (
        "sections/evaluation_by_group.html",
        include_str!("../../../../templates/evaluation/sections/evaluation_by_group.html.tera"),
    ),
    (
        "sections/fairness_analyses.html",
        include_str!("../../../../templates/evaluation/sections/fairness_analyses.html.tera"),
    ),
    (
        "sections/intermediate_file_paths.html",
        include_str!("../../../../templates/evaluation/sections/intermediate_file_paths.html.tera"),
    ),
    (
        "sections/sysinfo.html",
        include_str!("../../../../templates/evaluation/sections/sysinfo.html.tera"),
    ),
];

/// The engine's [`Builder`](rsmreport_report::render::Builder) with the run the
/// sections are built from (the engine's methods are reached through it).
pub struct Builder<'a> {
    pub run: &'a Run,
    doc: rsmreport_report::render::Builder,
}

impl std::ops::Deref for Builder<'_> {
    type Target = rsmreport_report::render::Builder;
    fn deref(&self) -> &Self::Target {
        &self.doc
    }
}

impl std::ops::DerefMut for Builder<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.doc
    }
}

impl<'a> Builder<'a> {
    /// The builder of `run` drawing into `doc`: how `train` (train.md 14)
    /// adds `build`'s evaluation sections of its test partition
    /// ([`super::sections::builtin`]) to its own report.
    pub fn over(run: &'a Run, doc: rsmreport_report::render::Builder) -> Self {
        Builder { run, doc }
    }

    /// The engine's builder back (after [`Builder::over`]).
    pub fn into_doc(self) -> rsmreport_report::render::Builder {
        self.doc
    }

    /// A table of the run by name, if it is written (has rows and columns):
    /// the report shows exactly the tables the output folder holds.
    pub fn frame(&self, name: &str) -> Option<&'a rsmreport_core::table::Frame> {
        self.run.analysis.frame(name).filter(|f| f.is_writable())
    }
}

/// The report of `run`, generated at `epoch` (seconds since the Unix
/// epoch; see `provenance::generation_epoch`).
pub fn report(run: &Run, epoch: i64) -> Result<Report> {
    let exp = &run.exp;
    let mut b = Builder {
        run,
        doc: rsmreport_report::render::Builder::new(&exp.experiment_id, exp.use_thumbnails),
    };
    // Section ids first, so no heading takes a section's name.
    let ids = b.section_ids(exp.sections.iter().map(|s| s.name()));
    let panels: Vec<_> = gates::panel(&mut b.doc, &run.gates, "build")
        .into_iter()
        .collect();
    let mut sections = Vec::with_capacity(exp.sections.len());
    for (s, id) in exp.sections.iter().zip(ids) {
        let (kind, blocks) = match s {
            Section::Builtin(name) => {
                let blocks = sections::builtin(&mut b, name)
                    .with_context(|| format!("cannot build the report section {name}"))?;
                ("builtin", blocks)
            }
            Section::Custom { name, path } => {
                let (kind, block) = custom(&mut b, &id, name, path)?;
                (kind, vec![block])
            }
        };
        sections.push(rsmreport_report::render::Section {
            id,
            name: s.name().to_string(),
            kind: kind.to_string(),
            blocks,
        });
    }
    Ok(b.doc
        .finish(header(run, epoch), panels, sections, TEMPLATES))
}

/// A custom section: `.md` rendered safely, `.html` inserted as is
/// (`train`'s report reads its custom sections with it too).
pub fn custom(
    b: &mut Builder,
    id: &str,
    name: &str,
    path: &std::path::Path,
) -> Result<(&'static str, Block)> {
    let text = std::fs::read_to_string(path).with_context(|| {
        format!(
            "cannot read the custom report section {name} from {}",
            path.display()
        )
    })?;
    let is_md = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("md"));
    Ok(b.custom(id, name, &text, is_md))
}

/// The header: experiment id, model version, key figures, provenance.
fn header(run: &Run, epoch: i64) -> Header {
    let exp = &run.exp;
    Header {
        intro_html: format!(
            "This report evaluates the machine scores of the experiment <strong>{}</strong> \
             against human scores.",
            rsmreport_report::render::format::escape_html(&exp.experiment_id)
        ),
        thumbnails: exp.use_thumbnails,
        glance: key_figures(run),
        decision: Some(decision(run)),
        inputs: run
            .inputs
            .iter()
            .map(|i| InputCtx {
                role: i.role.to_string(),
                path: i.path.display().to_string(),
                rows: thousands(i.rows as u64),
                sha256: i.sha256.clone(),
            })
            .collect(),
        config: Some(ConfigCtx {
            path: exp.config_path.display().to_string(),
            json: rsmreport_config::saved_config_json(exp),
        }),
        ..Header::new("Evaluation report", exp.experiment_id.clone(), epoch)
    }
    .identified(&exp.description, exp.model_version.as_deref())
}

/// The glance label of a headline metric of the key figures, by its
/// name in gates and tables.
const TILES: [(&str, &str); 4] = [
    ("wtkappa", "Weighted kappa"),
    ("corr", "Correlation"),
    ("SMD", "SMD"),
    ("RMSE", "RMSE"),
];

/// The headline agreement in words: the weighted kappa of the trimmed
/// score, next to the human-human one when there are second scores.
fn agreement_words(run: &Run) -> String {
    let x_trim = run.prepared.x_trim().name;
    let qwk = run
        .analysis
        .eval
        .iter()
        .find(|(n, _)| *n == x_trim)
        .map_or(f64::NAN, |(_, b)| b.wtkappa);
    let hh = run.analysis.frame("consistency").map_or(f64::NAN, |f| {
        tables::column_f64(f, "wtkappa")
            .first()
            .copied()
            .unwrap_or(f64::NAN)
    });
    let mut s = format!("weighted kappa {} ({x_trim} vs human)", num3(qwk));
    if hh.is_finite() {
        s.push_str(&format!(", {} between two human raters", num3(hh)));
    } else {
        s.push_str(", no second human score to compare it with");
    }
    s
}

/// What the build decided (issue 38): the gates passed or failed, naming
/// the failed lines; without gates, the headline agreement next to the
/// human-human one. The key figures of a failed overall gate on the
/// trimmed score are marked.
pub fn decision(run: &Run) -> Decision {
    let agreement = agreement_words(run);
    if run.gates.is_empty() {
        return Decision::new(
            Tone::Info,
            "no gates",
            format!("No quality gates were set; {agreement}."),
        );
    }
    let failed: Vec<&crate::gates::Outcome> = run.gates.iter().filter(|o| o.fails()).collect();
    let checked = run
        .gates
        .iter()
        .filter(|o| o.status != crate::gates::Status::Skipped)
        .count();
    let warned = run
        .gates
        .iter()
        .filter(|o| {
            !o.fails()
                && matches!(
                    o.status,
                    crate::gates::Status::Warn | crate::gates::Status::Nan
                )
        })
        .count();
    let x_trim = run.prepared.x_trim().name;
    let skipped = run.gates.len() - checked;
    let skipped = if skipped > 0 {
        format!(", {} skipped", thousands(skipped as u64))
    } else {
        String::new()
    };
    if failed.is_empty() {
        let (tone, badge) = if warned > 0 {
            (Tone::Warn, "gates passed with warnings")
        } else {
            (Tone::Pass, "gates passed")
        };
        let warned = if warned > 0 {
            format!(" ({} with a warning)", thousands(warned as u64))
        } else {
            String::new()
        };
        return Decision::new(
            tone,
            badge,
            format!(
                "All {} checked gate lines passed{warned}{skipped}; {agreement}.",
                thousands(checked as u64)
            ),
        );
    }
    let names: Vec<String> = failed
        .iter()
        .take(4)
        .map(|o| format!("{} [{}] {}", o.gate.name, o.scope_text(), num3(o.value)))
        .collect();
    let more = if failed.len() > names.len() {
        format!(
            " and {} more",
            thousands((failed.len() - names.len()) as u64)
        )
    } else {
        String::new()
    };
    let mut d = Decision::new(
        Tone::Fail,
        "gates failed",
        format!(
            "{} of {} checked gate lines failed ({}{more}){skipped}; {agreement}.",
            thousands(failed.len() as u64),
            thousands(checked as u64),
            names.join("; ")
        ),
    );
    d.marked = failed
        .iter()
        .filter(|o| {
            o.level.is_none() && (o.gate.score_type.is_empty() || o.gate.score_type == x_trim)
        })
        .filter_map(|o| TILES.iter().find(|(m, _)| *m == o.gate.metric))
        .map(|(_, label)| format!("{label} · {x_trim}"))
        .collect();
    d.marked.dedup();
    d
}

/// The key figures: responses, double-scored, the headline metrics of the
/// trimmed score and its PRMSE.
fn key_figures(run: &Run) -> Vec<Glance> {
    let p = &run.prepared;
    let mut glance = vec![Glance {
        label: "Responses evaluated".into(),
        value: thousands(p.n() as u64),
        title: format!(
            "{} of the {} rows of the predictions file; {} excluded.",
            thousands(p.n() as u64),
            thousands(p.n_original as u64),
            thousands((p.n_original - p.n().min(p.n_original)) as u64)
        ),
        ..Glance::default()
    }];
    if let Some(sc2) = &p.sc2 {
        let n = sc2.iter().filter(|x| !x.is_nan()).count();
        glance.push(Glance {
            label: "Double-scored".into(),
            value: thousands(n as u64),
            title: "Responses with a second human score.".into(),
            ..Glance::default()
        });
    }
    let x_trim = p.x_trim().name;
    if let Some((_, block)) = run.analysis.eval.iter().find(|(n, _)| *n == x_trim) {
        let values = [block.wtkappa, block.corr, block.diff, block.rmse];
        for ((metric, label), value) in TILES.into_iter().zip(values) {
            let ci = match na_reason(block, value) {
                Some(why) => why.to_string(),
                None => sections::ci_line(run, "eval", x_trim, metric),
            };
            glance.push(Glance {
                label: format!("{label} · {x_trim}"),
                value: num3(value),
                title: format!(
                    "{} Human scores vs {x_trim}.",
                    glossary::metric(metric).unwrap_or("")
                ),
                ci,
            });
        }
    }
    glance.extend(prmse_figure(run, x_trim));
    glance
}

/// Why a key figure of `block` is n/a, when it is and the data say why.
fn na_reason(block: &rsmreport_metrics::block::MetricBlock, value: f64) -> Option<&'static str> {
    if value.is_finite() {
        None
    } else if block.n < 2 {
        Some("n/a: fewer than two responses")
    } else if block.sys_sd == 0.0 {
        Some("n/a: every machine score is the same")
    } else if block.h_sd == 0.0 {
        Some("n/a: every human score is the same")
    } else {
        None
    }
}

/// The PRMSE key figure of score type `x_trim`, when it is finite.
fn prmse_figure(run: &Run, x_trim: &str) -> Option<Glance> {
    let f = run
        .analysis
        .frame("true_score_eval")
        .filter(|f| f.is_writable())?;
    let labels = tables::index_labels(f);
    let prmse = tables::column_f64(f, "PRMSE true");
    let i = labels.iter().position(|l| l == x_trim)?;
    prmse[i].is_finite().then(|| Glance {
        label: format!("PRMSE · {x_trim}"),
        value: num3(prmse[i]),
        title: format!(
            "{} Score type {x_trim}.",
            glossary::metric("PRMSE true").unwrap_or("")
        ),
        ci: sections::ci_line(run, "true_score_eval", x_trim, "PRMSE true"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn run(fixture: &str) -> Run {
        let exp = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/experiments")
            .join(fixture)
            .join("exp.toml");
        crate::kinds::evaluation::run::execute(rsmreport_config::load(&exp).unwrap()).unwrap()
    }

    #[test]
    fn report_and_figures_as_bytes() {
        let run = run("probe-h2-groups");
        let files = rsmreport_report::render::report_files(&report(&run, 0).unwrap()).unwrap();
        let names: Vec<String> = files
            .iter()
            .map(|f| f.path.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "figure/probe_h2_groups_score_dist.svg",
                "figure/probe_h2_groups_eval_by_grp.svg",
                "figure/probe_h2_groups_fairness_estimates_grp.svg",
                "figure/probe_h2_groups_conditional_score_grp.svg",
                "report/probe_h2_groups_report.html",
            ]
        );
        let html = String::from_utf8(files[4].bytes.clone()).unwrap();
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains("1970-01-01 00:00:00 UTC"));
        for s in &run.exp.sections {
            assert!(html.contains(&format!("<section id=\"{}\"", s.name())));
        }
        // Same input, same bytes.
        let again = rsmreport_report::render::report_files(&report(&run, 0).unwrap()).unwrap();
        assert!(files.iter().zip(&again).all(|(a, b)| a.bytes == b.bytes));
    }
}
