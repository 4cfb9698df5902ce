//! The one writer of every kind's output folder: a kind gives data (its
//! tables, its summary, its gate results, its report page with its
//! figures; [`super::Report`]) and this module turns them into files, the
//! same way for every kind ([`each_file`]). The format of the files is the
//! archive format (`rsmreport_io::summary`, `docs/architecture.md`,
//! "Output folders"):
//!
//! ```text
//! <dir>/output/<id>_rsmeval.json         build (train: <id>_rsmtool.json): the saved configuration
//! <dir>/output/<id>_<table>.<csv|tsv|xlsx>  every table the kind gives, in its order
//! <dir>/output/<id>_summary.json         the summary: the envelope, then the kind's keys
//! <dir>/output/<id>_model.json           train only: the model file (and feature/<id>_selected)
//! <dir>/output/<id>_gates.json, .xml     when the run has gates (any kind)
//! <dir>/figure/<id>_<figure>.svg         the report's figures
//! <dir>/report/<id>_report.html          the report (compare: <cid>_compare.html)
//! ```
//!
//! The files are handed on in that order, each as soon as its bytes exist,
//! and a table's bytes are dropped before the next table is formatted, so
//! a 10M-response build never holds more than one table's bytes; the
//! report is rendered on a thread of its own meanwhile.
//!
//! [`Described`] is where each kind's configuration gives the common keys
//! the summary's envelope records (`description`, `model_version`).
//!
//! Produces bytes only: putting them on disk is `rsmreport_io::output`'s
//! job. Knows no kind's statistics.

use anyhow::Result;
use rsmreport_core::provenance::{generation_epoch, timed};
use rsmreport_io::output::{self, OutputFile};
use rsmreport_io::summary::{self, Envelope};

use super::Outcome;

/// The common keys a summary's envelope records from a run's
/// configuration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommonKeys {
    /// The configuration's `description` (`""` without one).
    pub description: String,
    /// The configuration's `model_version`, if any.
    pub model_version: Option<String>,
}

/// A kind's configuration, as the summary's envelope sees it.
pub trait Described {
    fn common_keys(&self) -> CommonKeys;
}

// The one place where every kind's configuration gives its common keys
// (read by `rsmreport_config::common` for every kind).

impl Described for super::evaluation::BuildConfig {
    fn common_keys(&self) -> CommonKeys {
        CommonKeys {
            description: self.exp.description.clone(),
            model_version: self.exp.model_version.clone(),
        }
    }
}

impl Described for super::classify::ClassifyRequest {
    fn common_keys(&self) -> CommonKeys {
        CommonKeys {
            description: self.cfg.description.clone(),
            model_version: self.cfg.model_version.clone(),
        }
    }
}

impl Described for rsmreport_config::spans::SpansConfig {
    fn common_keys(&self) -> CommonKeys {
        CommonKeys {
            description: self.description.clone(),
            model_version: self.model_version.clone(),
        }
    }
}

impl Described for rsmreport_config::sequence::SequenceConfig {
    fn common_keys(&self) -> CommonKeys {
        CommonKeys {
            description: self.description.clone(),
            model_version: self.model_version.clone(),
        }
    }
}

impl Described for rsmreport_config::train::TrainConfig {
    fn common_keys(&self) -> CommonKeys {
        CommonKeys {
            description: self.description.clone(),
            model_version: self.model_version.clone(),
        }
    }
}

impl Described for rsmreport_config::predict::PredictConfig {
    fn common_keys(&self) -> CommonKeys {
        CommonKeys {
            description: self.description.clone(),
            model_version: self.model_version.clone(),
        }
    }
}

impl Described for rsmreport_config::agree::AgreeConfig {
    fn common_keys(&self) -> CommonKeys {
        CommonKeys {
            description: self.description.clone(),
            model_version: self.model_version.clone(),
        }
    }
}

impl Described for rsmreport_config::preferences::PreferencesConfig {
    fn common_keys(&self) -> CommonKeys {
        CommonKeys {
            description: self.description.clone(),
            model_version: self.model_version.clone(),
        }
    }
}

/// A comparison holds two model versions (its keys name both): no
/// `model_version` of its own.
impl Described for super::compare::CompareRequest {
    fn common_keys(&self) -> CommonKeys {
        CommonKeys {
            description: self.config.description.clone().unwrap_or_default(),
            model_version: None,
        }
    }
}

/// A summary of versions has no configuration file: no description and
/// no `model_version` of its own.
impl Described for super::summarize::SummarizeRequest {
    fn common_keys(&self) -> CommonKeys {
        CommonKeys::default()
    }
}

/// The summary document of a finished run: the envelope (kind,
/// `summary_version`, id, `model_version`, description) and the kind's
/// own keys (`rsmreport_io::summary::enveloped`).
pub fn summary(o: &Outcome) -> serde_json::Value {
    let envelope = Envelope {
        kind: o.summary_kind,
        experiment_id: o.report.id(),
        model_version: o.keys.model_version.as_deref(),
        description: &o.keys.description,
    };
    summary::enveloped(o.report.summary(), &envelope)
}

/// Every file of a finished run, each handed to `emit` as soon as its
/// bytes exist, in the order of the module's table: the saved
/// configuration, the tables (one at a time), the summary, the kind's
/// other files (made on a thread of their own while the tables are
/// written), the gate files when the run has gates, then the figures and
/// the report page, which are rendered on a thread of their own while the
/// others are written.
/// Nothing for a run that writes no files (`check`). Everything that
/// carries a time (the report's header, the xlsx tables' document
/// properties) gets the same one, [`generation_epoch`].
pub fn each_file(o: &Outcome, emit: &mut dyn FnMut(&OutputFile) -> Result<()>) -> Result<()> {
    let r = &*o.report;
    if !r.writes_files() {
        return Ok(());
    }
    let epoch = generation_epoch();
    if !r.writes_report() {
        return data_files(o, epoch, emit);
    }
    std::thread::scope(|scope| {
        let page = scope.spawn(|| {
            timed("report", || {
                rsmreport_report::render::report_files_named(&r.report(epoch)?, r.report_name())
            })
        });
        let data = data_files(o, epoch, emit);
        let page = page.join().expect("the report thread panicked");
        data?;
        timed("write report", || page?.iter().try_for_each(&mut *emit))
    })
}

/// The files under `output/`: the saved configuration, the tables, the
/// summary and the gate files.
fn data_files(
    o: &Outcome,
    epoch: i64,
    emit: &mut dyn FnMut(&OutputFile) -> Result<()>,
) -> Result<()> {
    let r = &*o.report;
    let id = r.id();
    if let Some(config) = r.saved_configuration() {
        emit(&config)?;
    }
    // The other files (a kind's units file for `compare`: a compressed
    // parquet file of every unit) are made on a thread of their own while
    // the tables are formatted and written; emitted in their place after
    // the summary, so the order of the files does not change.
    std::thread::scope(|scope| {
        let others = scope.spawn(|| timed("other files", || r.other_files(epoch)));
        let tables = timed("format and write tables", || {
            let format = r.table_format();
            r.tables()
                .try_for_each(|frame| emit(&output::table_file(id, &frame, format, epoch)?))
        });
        let others = others.join().expect("the other files' thread panicked");
        tables?;
        emit(&OutputFile {
            path: summary::path(id),
            bytes: output::json::bytes(&summary(o)),
        })?;
        others?.iter().try_for_each(&mut *emit)
    })?;
    // The gate files whenever the run has gates (every gate gives at
    // least one result line), whatever the kind; none without.
    crate::gates::files(id, r.gates())
        .iter()
        .try_for_each(&mut *emit)
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::path::{Path, PathBuf};
    use std::sync::{Arc, Mutex};

    use rsmreport_core::schema::FileFormat;
    use rsmreport_core::table::{Column, Frame, Values};
    use rsmreport_io::output::OutputFile;
    use rsmreport_report::plots::Figure;
    use rsmreport_report::render::{Builder, Header};

    use super::*;
    use crate::kinds::{Outcome, Report, Tables};

    /// A report of three tables that logs when each table is made.
    struct Fake {
        log: Arc<Mutex<Vec<String>>>,
        format: FileFormat,
        writes: bool,
    }

    /// The table `t<k>`: columns `n` and `m`, `k` rows.
    fn frame(k: usize) -> Frame {
        let rows: Vec<i64> = (0..k as i64).collect();
        let columns = vec![
            Column::new("n", Values::Int(rows.clone())),
            Column::new("m", Values::Int(rows)),
        ];
        Frame::new(format!("t{k}"), None, columns)
    }

    impl Report for Fake {
        fn id(&self) -> &str {
            "x"
        }
        fn tables(&self) -> Tables<'_> {
            let log = Arc::clone(&self.log);
            Box::new((1..=3).map(move |k| {
                log.lock().unwrap().push(format!("make t{k}"));
                Cow::Owned(frame(k))
            }))
        }
        fn table_format(&self) -> FileFormat {
            self.format
        }
        fn summary(&self) -> serde_json::Value {
            serde_json::json!({"headline": 0.5})
        }
        fn inputs(&self) -> Vec<rsmreport_report::render::context::InputCtx> {
            Vec::new()
        }
        fn report(&self, epoch: i64) -> Result<rsmreport_report::render::Report> {
            let mut b = Builder::new("x", false);
            b.figure(Figure {
                name: "f".into(),
                title: "F".into(),
                description: "A figure.".into(),
                svg: "<svg role=\"img\" width=\"10\" height=\"10\"></svg>".into(),
                narrow_svg: None,
            });
            Ok(b.finish(Header::new("Fake", "x".into(), epoch), vec![], vec![], &[]))
        }
        fn saved_configuration(&self) -> Option<OutputFile> {
            Some(OutputFile {
                path: PathBuf::from("output/x_config.json"),
                bytes: b"{}\n".to_vec(),
            })
        }
        fn writes_files(&self) -> bool {
            self.writes
        }
        fn lines(&self, _: &[PathBuf], _: &Path) -> Vec<String> {
            Vec::new()
        }
    }

    fn outcome(format: FileFormat, writes: bool) -> (Outcome, Arc<Mutex<Vec<String>>>) {
        let log = Arc::new(Mutex::new(Vec::new()));
        let report = Fake {
            log: Arc::clone(&log),
            format,
            writes,
        };
        let o = Outcome {
            kind: "fake",
            summary_kind: "fake",
            keys: CommonKeys {
                description: "about x".into(),
                model_version: Some("x 2".into()),
            },
            dir: None,
            force: false,
            read: Vec::new(),
            report: Box::new(report),
        };
        (o, log)
    }

    /// Every file, logged as it is handed on, among the tables' making.
    fn written(o: &Outcome, log: &Arc<Mutex<Vec<String>>>) -> Vec<OutputFile> {
        let mut files = Vec::new();
        each_file(o, &mut |f| {
            log.lock().unwrap().push(f.path.display().to_string());
            files.push(f.clone());
            Ok(())
        })
        .unwrap();
        files
    }

    #[test]
    fn files_come_in_the_documented_order_each_table_made_after_the_last_was_handed_on() {
        let (o, log) = outcome(FileFormat::Csv, true);
        let files = written(&o, &log);
        assert_eq!(
            *log.lock().unwrap(),
            [
                "output/x_config.json",
                "make t1",
                "output/x_t1.csv",
                "make t2",
                "output/x_t2.csv",
                "make t3",
                "output/x_t3.csv",
                "output/x_summary.json",
                "figure/x_f.svg",
                "report/x_report.html",
            ],
            "streaming: no table is made before the previous one's file was handed on"
        );
        assert_eq!(files[1].bytes, b"n,m\n0,0\n");
        let summary: serde_json::Value = serde_json::from_slice(&files[4].bytes).unwrap();
        assert_eq!(summary, o.summary());
        let keys: Vec<&str> = summary
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        assert_eq!(
            keys,
            [
                "kind",
                "summary_version",
                "experiment_id",
                "model_version",
                "description",
                "headline"
            ]
        );
        assert_eq!(summary["kind"], "fake");
        assert_eq!(summary["model_version"], "x 2");
        assert_eq!(summary["description"], "about x");
        assert_eq!(files.len(), o.files().unwrap().len());
    }

    #[test]
    fn one_table_writer_per_format() {
        for format in [FileFormat::Csv, FileFormat::Tsv, FileFormat::Xlsx] {
            let (o, log) = outcome(format, true);
            let files = written(&o, &log);
            let t2 = files
                .iter()
                .find(|f| f.path.file_stem().is_some_and(|s| s == "x_t2"))
                .unwrap();
            assert_eq!(
                t2.path,
                Path::new(&format!("output/x_t2.{}", format.extension()))
            );
            // The writer's bytes are the format's one table writer's (xlsx
            // files record the time they were made: compared as workbooks).
            match format {
                FileFormat::Csv | FileFormat::Tsv => {
                    let expected = output::table_file("x", &frame(2), format, 0).unwrap();
                    assert!(t2.bytes == expected.bytes, "{format:?}");
                    let sep = if format == FileFormat::Csv { "," } else { "\t" };
                    let text = format!("n{sep}m\n0{sep}0\n1{sep}1\n");
                    assert_eq!(String::from_utf8_lossy(&t2.bytes), text);
                }
                FileFormat::Xlsx => assert!(t2.bytes.starts_with(b"PK\x03\x04")),
            }
        }
    }

    #[test]
    fn a_run_that_writes_no_files_gives_none_and_makes_no_table() {
        let (o, log) = outcome(FileFormat::Csv, false);
        assert!(written(&o, &log).is_empty());
        assert!(log.lock().unwrap().is_empty());
        assert_eq!(o.summary()["kind"], "fake", "its summary is still data");
    }

    #[test]
    fn a_table_that_cannot_be_named_stops_the_files_before_the_summary() {
        struct Bad(Fake);
        impl Report for Bad {
            fn id(&self) -> &str {
                "x"
            }
            fn tables(&self) -> Tables<'_> {
                let mut f = frame(1);
                f.name = "a/b".into();
                Box::new(std::iter::once(Cow::Owned(f)))
            }
            fn summary(&self) -> serde_json::Value {
                self.0.summary()
            }
            fn inputs(&self) -> Vec<rsmreport_report::render::context::InputCtx> {
                Vec::new()
            }
            fn report(&self, epoch: i64) -> Result<rsmreport_report::render::Report> {
                self.0.report(epoch)
            }
            fn lines(&self, _: &[PathBuf], _: &Path) -> Vec<String> {
                Vec::new()
            }
        }
        let (mut o, log) = outcome(FileFormat::Csv, true);
        o.report = Box::new(Bad(Fake {
            log: Arc::clone(&log),
            format: FileFormat::Csv,
            writes: true,
        }));
        let mut paths = Vec::new();
        let e = each_file(&o, &mut |f| {
            paths.push(f.path.clone());
            Ok(())
        })
        .unwrap_err();
        assert!(format!("{e:#}").contains("table name 'a/b'"), "{e:#}");
        assert!(paths.is_empty(), "{paths:?}");
    }
}
