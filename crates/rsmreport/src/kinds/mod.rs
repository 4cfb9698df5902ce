//! The report kinds and the one contract they are all run by.
//!
//! Every kind is run the same way, by [`run`]: a [`Request`] (the kind's
//! configuration, already parsed and validated, and the [`Destination`] of
//! its files) goes in; an [`Outcome`] comes out (the computed [`Report`]:
//! its tables and summary as data, its report page and figures, its
//! terminal lines, gate results and input provenance), or an error whose
//! class ([`rsmreport_core::error::class`]: configuration, exit 2, or
//! data, exit 1) comes from its type. [`run`] checks the destination
//! before any input is read (an output folder is never one of the inputs
//! or inside one, and a non-empty one is replaced only with `force`); the
//! kind reads its inputs with their checksums, refuses empty ones,
//! computes every number and evaluates its gates ([`Kind::compute`]).
//! Nothing is written by a run: [`Outcome::write`] (or [`Outcome::save`],
//! to another folder) hands the files to the output stage.
//!
//! Kinds return data; one writer writes: no kind makes a file. The shared
//! writer, [`archive`], turns a report's data into the files of the
//! archive format (the same names, order and table writers for every
//! kind, `<id>_summary.json` with its envelope, the gate files whenever
//! the run has gates). The command line, a test or the Python module all
//! call these and nothing else; `docs/architecture.md` says why a trait.
//!
//! The kinds, one folder each with the same files (`read`, `run`,
//! `tables`, `report`, and the contract in `mod.rs`; predict has no
//! `report`), two of them families of commands, re-exported here under
//! their command names:
//!
//! * [`rsmtool`]: RSMTool's three tools, [`evaluation`] (`rsmreport
//!   build`, rsmeval: predictions against human scores; with `build`'s
//!   own `check` account), [`train`] (rsmtool's built-in linear models,
//!   evaluated with `evaluation`'s code) and [`predict`] (rsmpredict:
//!   `train`'s model applied to new responses);
//! * [`versions`]: the version workflow over archived output folders, two
//!   commands with their own contracts, [`compare`] (two folders) and
//!   [`summarize`] (many);
//! * [`agree`]: rater agreement on an annotation file;
//! * [`preferences`]: pairwise-preference annotations against a reference
//!   annotator;
//! * [`classify`]: classifiers against gold labels;
//! * [`sequence`]: text against references (sacreBLEU, jiwer, perplexity);
//! * [`spans`]: span annotations (seqeval, nervaluate, agreement).
//!
//! [`registry`] declares every kind once (the kind table the command line,
//! `check`'s hints and the Python functions are made from); [`check`] is
//! `rsmreport check` for every experiment-file kind.
//!
//! [`common`] is the shared kind layer: what several kinds use (the
//! verdict and the comparison row, the gates panel, the parallel map, the
//! rater-agreement blocks) lives there, owned by none. No file of one kind
//! uses another kind's module, except within a family (`train` builds on
//! `evaluation`, `predict` reads `train`'s model file;
//! `scripts/check-layers.py`, rule (c)). Report
//! sections live only inside their kind. This module writes nothing,
//! prints nothing and never ends the process.

pub mod agree;
pub mod archive;
pub mod check;
pub mod classify;
pub mod common;
pub mod preferences;
pub mod registry;
pub mod rsmtool;
pub mod sequence;
pub mod spans;
pub mod versions;

/// The three kinds of [`rsmtool`], under their own names.
pub use rsmtool::{evaluation, predict, train};
/// The two commands of [`versions`], under their command names.
pub use versions::{compare, summarize};

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::gates;
use archive::{CommonKeys, Described};
use rsmreport_core::schema::FileFormat;
use rsmreport_core::table::Frame;
use rsmreport_io::output::{self, OutputFile};
use rsmreport_report::render::context::InputCtx;

/// Where a run's files go; checked by [`run`] before any input is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Destination {
    /// Compute only and write nothing (the outcome can still be saved
    /// with [`Outcome::save`]).
    Nowhere,
    /// The folder `dir` (`None`: the kind's default, `./<id>`). A
    /// non-empty folder is replaced only with `force`, only when it holds
    /// nothing but rsmreport output, and only once the new output is
    /// complete.
    Folder { dir: Option<PathBuf>, force: bool },
}

/// A validated request of one kind: its configuration (already parsed)
/// and where its files go.
pub struct Request<C> {
    pub config: C,
    pub destination: Destination,
}

/// A report kind: what it reads and how it computes. Run it with [`run`].
pub trait Kind {
    /// The kind's validated configuration (with its command's arguments),
    /// which gives the common keys of the summary ([`Described`]).
    type Config: Described;
    /// The command's name (`build`, `classify`, ...).
    const NAME: &'static str;
    /// The kind its summary names (`kind`): the command's name, but
    /// `build` for `check`, which describes a build.
    const SUMMARY_KIND: &'static str = Self::NAME;
    /// The default output folder, when it is known before running
    /// (compare names it from the labels in its folders: `None`, and
    /// [`Report::default_dir`] names it).
    fn default_dir(config: &Self::Config) -> Option<PathBuf>;
    /// Every file and folder the run reads: the output folder may be none
    /// of them and lie inside none of them.
    fn inputs(config: &Self::Config) -> Vec<PathBuf>;
    /// Reads the inputs (with their checksums; an empty input is a data
    /// error), computes every number and evaluates the gates.
    fn compute(config: Self::Config) -> Result<Box<dyn Report>>;
}

/// A report's tables, each made when the writer reaches it, in the order
/// their files are written.
pub type Tables<'a> = Box<dyn Iterator<Item = Cow<'a, Frame>> + 'a>;

/// What a kind computed, as data: the shared writer ([`archive`]) makes
/// the files.
pub trait Report: Send + Sync {
    /// The id that prefixes every file name.
    fn id(&self) -> &str;
    /// The default output folder (`./<id>` unless the kind says otherwise).
    fn default_dir(&self) -> PathBuf {
        PathBuf::from(self.id())
    }
    /// The tables whose files are written (`output/<id>_<name>.<ext>`), in
    /// that order; the writer formats each and drops its bytes before it
    /// asks for the next.
    fn tables(&self) -> Tables<'_>;
    /// The format of the table files: the configuration's `file_format`
    /// (csv for the kinds without that key).
    fn table_format(&self) -> FileFormat {
        FileFormat::Csv
    }
    /// The kind's own keys of the summary (settings and headline
    /// statistics); [`Outcome::summary`] adds the envelope.
    fn summary(&self) -> serde_json::Value;
    /// The inputs read, each with its rows and SHA-256.
    fn inputs(&self) -> Vec<InputCtx>;
    /// The quality gates' results (empty without gates).
    fn gates(&self) -> &[gates::Outcome] {
        &[]
    }
    /// The report page with its figures; `epoch` (seconds since the Unix
    /// epoch) is the time its header shows.
    fn report(&self, epoch: i64) -> Result<rsmreport_report::render::Report>;
    /// The report page's name: `report/<id>_<name>.html`.
    fn report_name(&self) -> &'static str {
        "report"
    }
    /// A saved configuration written before the tables (build's
    /// `output/<id>_rsmeval.json`, the file rsmeval writes).
    fn saved_configuration(&self) -> Option<OutputFile> {
        None
    }
    /// Data files besides the tables and the summary, written after the
    /// summary (train's model file and its `feature/` list).
    fn other_files(&self, _epoch: i64) -> Result<Vec<OutputFile>> {
        Ok(Vec::new())
    }
    /// Whether the run writes files at all (`check` writes none).
    fn writes_files(&self) -> bool {
        true
    }
    /// Whether the run has a report page (`predict`, as rsmpredict, has
    /// none: [`Report::report`] is then never called).
    fn writes_report(&self) -> bool {
        true
    }
    /// The terminal lines of a finished run (`written`: the files written,
    /// relative to `dir`).
    fn lines(&self, written: &[PathBuf], dir: &Path) -> Vec<String>;
    /// What the run decided (the report's first lines; the terminal's
    /// `warning:` lines and last line, `overall: ...`); `None` when the
    /// kind decides nothing.
    fn decision(&self) -> Option<rsmreport_report::render::Decision> {
        None
    }
}

/// A report's tables from frames it holds (borrowed, not copied).
pub fn borrowed(frames: &[Frame]) -> Tables<'_> {
    Box::new(frames.iter().map(Cow::Borrowed))
}

/// A report's tables from frames made for the purpose.
pub fn owned<'a>(frames: Vec<Frame>) -> Tables<'a> {
    Box::new(frames.into_iter().map(Cow::Owned))
}

/// The summary document of a kind's JSON bytes (which its own writer
/// made, so they are JSON).
fn json_value(bytes: &[u8]) -> serde_json::Value {
    serde_json::from_slice(bytes).expect("a kind's summary bytes are JSON")
}

/// A finished run: the report and where it goes.
pub struct Outcome {
    /// The kind's name.
    pub kind: &'static str,
    /// The kind its summary names ([`Kind::SUMMARY_KIND`]).
    pub summary_kind: &'static str,
    /// The common keys of its configuration, for the summary's envelope.
    pub keys: CommonKeys,
    /// The checked output folder (`None` for [`Destination::Nowhere`]).
    pub dir: Option<PathBuf>,
    /// Whether `dir` may replace an earlier rsmreport output folder.
    pub force: bool,
    /// Every file and folder the run read.
    pub read: Vec<PathBuf>,
    /// What was computed.
    pub report: Box<dyn Report>,
}

/// Runs the request of kind `K`: checks the destination (configuration
/// errors) before any input is read, computes, and checks a default
/// folder that only the result names (compare's).
pub fn run<K: Kind>(request: Request<K::Config>) -> Result<Outcome> {
    let Request {
        config,
        destination,
    } = request;
    // Tables given as data are no files to protect (and are gone from the
    // in-memory registry when a later `save` checks its folder).
    let mut read = K::inputs(&config);
    read.retain(|p| !rsmreport_core::in_memory::is_in_memory(p));
    let keys = config.common_keys();
    let folder = match destination {
        Destination::Nowhere => None,
        Destination::Folder { dir, force } => {
            Some((dir.or_else(|| K::default_dir(&config)), force))
        }
    };
    if let Some((Some(dir), force)) = &folder {
        check_destination(dir, *force, &read)?;
    }
    let report = K::compute(config)?;
    let (dir, force) = match folder {
        None => (None, false),
        Some((Some(dir), force)) => (Some(dir), force),
        Some((None, force)) => {
            let dir = report.default_dir();
            check_destination(&dir, force, &read)?;
            (Some(dir), force)
        }
    };
    Ok(Outcome {
        kind: K::NAME,
        summary_kind: K::SUMMARY_KIND,
        keys,
        dir,
        force,
        read,
        report,
    })
}

/// Whether `dir` may receive a run's files: it is none of the inputs and
/// lies inside none of them, and a non-empty folder is replaced only with
/// `force` (configuration errors).
pub fn check_destination(dir: &Path, force: bool, read: &[PathBuf]) -> Result<()> {
    output::refuse_inputs_inside(dir, read).map_err(rsmreport_core::error::config)?;
    output::check_output_dir(dir, force).map_err(rsmreport_core::error::config)
}

impl Outcome {
    /// Every output file with its bytes, in the order they are written
    /// ([`archive::each_file`]).
    pub fn files(&self) -> Result<Vec<OutputFile>> {
        let mut out = Vec::new();
        archive::each_file(self, &mut |f| {
            out.push(f.clone());
            Ok(())
        })?;
        Ok(out)
    }

    /// The summary document, `output/<id>_summary.json`: the envelope
    /// and the kind's own keys ([`archive::summary`]).
    pub fn summary(&self) -> serde_json::Value {
        archive::summary(self)
    }

    /// Writes the files into the checked folder, each as soon as its
    /// bytes exist (nothing for [`Destination::Nowhere`]); returns the
    /// paths written, relative to the folder, and the notes for the user.
    pub fn write(&self) -> Result<output::Written> {
        match &self.dir {
            Some(dir) => self.write_to(dir, self.force),
            None => Ok(output::Written::default()),
        }
    }

    /// Writes the files into `dir`, checked as [`run`] checks a
    /// destination: the bytes [`Outcome::write`] would write there.
    pub fn save(&self, dir: &Path, force: bool) -> Result<output::Written> {
        check_destination(dir, force, &self.read)?;
        self.write_to(dir, force)
    }

    fn write_to(&self, dir: &Path, force: bool) -> Result<output::Written> {
        rsmreport_core::provenance::timed("write", || {
            output::write_output_dir_with(dir, force, |sink| {
                archive::each_file(self, &mut |f| sink.put(f))
            })
        })
    }

    /// The terminal lines, once `written` (relative paths) are written.
    pub fn lines(&self, written: &[PathBuf]) -> Vec<String> {
        let dir = self
            .dir
            .clone()
            .unwrap_or_else(|| self.report.default_dir());
        self.report.lines(written, &dir)
    }

    /// Whether a gate of severity `fail` failed.
    pub fn gates_failed(&self) -> bool {
        gates::failed(self.report.gates())
    }
}
