//! `rsmreport._rsmreport`: the Python module's native half (PyO3, abi3).
//!
//! It calls the library's one entry point and nothing else: the kind
//! table (`rsmreport::kinds::registry`: every experiment-file kind is
//! loaded, run and checked through its entry, as the command line does;
//! [`kinds`] hands the table to the Python half, which makes one function
//! per kind from it), `compare`'s and `summarize`'s own requests,
//! `rsmreport::kinds::run`, and the [`Outcome`]'s tables, summary, gates
//! and files; errors keep their class (`rsmreport_core::error::class`)
//! and the command line's `error:` text, and become
//! `rsmreport.ConfigError` (exit code 2) or `rsmreport.DataError` (1); a
//! panic is caught here and becomes `rsmreport.InternalError`. Every run
//! releases the GIL. The command line itself ([`cli_main`]) is the
//! linked `rsmreport_cli::main_with`; this module never ends the process
//! and changes no process-wide setting (allocator, malloc, panic hook).
//! The Python half (`python/rsmreport/`) turns what this gives into
//! DataFrames and the result object.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Mutex;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyCapsule, PyDict, PyTuple, PyType};
use rsmreport::kinds::registry::{self, Options, Runner};
use rsmreport::kinds::{self, compare, summarize};
use rsmreport::kinds::{Destination, Kind, Outcome, Request};
use rsmreport_core::error::Class;
use rsmreport_core::in_memory;
use rsmreport_core::schema::FileFormat;
use rsmreport_io::input::arrow::{ArrowArrayStream, ArrowTable};
use rsmreport_io::output::arrow::ArrowColumns;
use rsmreport_report::render::Tone;
use std::sync::Arc;

create_exception!(
    rsmreport,
    RsmreportError,
    PyException,
    "Base class of every rsmreport error. `code`: the command line's exit code for this error \
     (2 configuration, 1 data, 3 failed gates, 101 internal)."
);
create_exception!(
    rsmreport,
    DataError,
    RsmreportError,
    "The inputs are wrong or unreadable, or writing failed (exit code 1)."
);
create_exception!(
    rsmreport,
    GateFailedError,
    RsmreportError,
    "A quality gate of severity `fail` failed (exit code 3). Raised only by \
     `Result.raise_for_gates()` (a run with failed gates returns its result and writes its \
     files, as the command line does); `failed`: the failing gate lines (as in gates.json)."
);
create_exception!(
    rsmreport,
    InternalError,
    RsmreportError,
    "A bug in rsmreport: a panic in the Rust code, caught at the boundary so that \
     `except Exception` sees it (the binary's exit code of a panic, 101). Please report it."
);

/// `rsmreport.ConfigError`: an [`RsmreportError`] that is also a
/// `ValueError` (two bases, which `create_exception!` cannot give: made
/// once with `PyErr_NewExceptionWithDoc` and a tuple of bases).
fn config_error(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    static TYPE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    TYPE.get_or_try_init(py, || {
        let bases = PyTuple::new(
            py,
            [
                py.get_type::<RsmreportError>(),
                py.get_type::<pyo3::exceptions::PyValueError>(),
            ],
        )?;
        // SAFETY: the name and doc are NUL-terminated and outlive the
        // call; `bases` is a tuple of exception classes; the result is a
        // new reference or NULL with an exception set.
        let made = unsafe {
            let ptr = pyo3::ffi::PyErr_NewExceptionWithDoc(
                c"rsmreport.ConfigError".as_ptr(),
                c"The request cannot be run as given: a configuration key, an argument or the \
                  output folder (the command line's exit code 2). Also a ValueError."
                    .as_ptr(),
                bases.as_ptr(),
                std::ptr::null_mut(),
            );
            Bound::from_owned_ptr_or_err(py, ptr)?
        };
        Ok(made.cast_into::<PyType>()?.unbind())
    })
    .map(|t| t.bind(py))
}

/// A failed run as its Python exception: the command line's `error:` text
/// (the whole chain), the class from the error's type.
fn run_error(py: Python<'_>, error: &anyhow::Error) -> PyErr {
    let message = format!("{error:#}");
    match rsmreport_core::error::class(error) {
        Class::Config => match config_error(py) {
            Ok(class) => PyErr::from_type(class.clone(), message),
            Err(e) => e,
        },
        Class::Data => DataError::new_err(message),
    }
}

/// The text of a caught panic.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

/// Runs `work` without the GIL; an error keeps its class, a panic becomes
/// `InternalError`.
fn guarded<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> anyhow::Result<T> + Send,
) -> PyResult<T> {
    match py.detach(|| catch_unwind(AssertUnwindSafe(work))) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(run_error(py, &error)),
        Err(payload) => Err(internal_error(py, payload.as_ref())),
    }
}

/// A caught panic as `rsmreport.InternalError`.
fn internal_error(_py: Python<'_>, payload: &(dyn std::any::Any + Send)) -> PyErr {
    InternalError::new_err(format!(
        "internal error (a bug in rsmreport; please report it): {}",
        panic_text(payload)
    ))
}

/// Runs a short step with the GIL held (reading a finished outcome); a
/// panic becomes `InternalError`, never a `PanicException`.
fn caught<T>(py: Python<'_>, work: impl FnOnce() -> T) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(work)).map_err(|payload| internal_error(py, payload.as_ref()))
}

/// A configuration given as data (a dict, as JSON text) as a text in
/// memory the kind's own loader reads in place of a file
/// (`rsmreport_core::in_memory`): `dict in memory/<name>.<ext>` (JSON for
/// a kind that reads rsmeval's JSON configs, `build`; TOML for the
/// others; `<name>` its experiment_id, else the kind). Relative paths in
/// it resolve against the working directory (`config::value::
/// resolve_file` looks beside the configuration first, in a folder that
/// does not exist, then there). Nothing is written; the same dict gives
/// the same report bytes.
fn config_in_memory(kind: &str, json_text: &str) -> anyhow::Result<in_memory::Registration> {
    let value: serde_json::Value = serde_json::from_str(json_text)?;
    let json = registry::find(kind).is_some_and(|k| k.json);
    let (text, ext) = if json {
        (serde_json::to_string_pretty(&value)?, "json")
    } else {
        let text = toml::to_string(&value).map_err(|e| {
            rsmreport_core::error::config(anyhow::anyhow!(
                "the configuration dict cannot be written as TOML ({e}); use strings, numbers, \
                 booleans, lists and dicts (no None)"
            ))
        })?;
        (text, "toml")
    };
    let name = value
        .get("experiment_id")
        .and_then(|v| v.as_str())
        .filter(|s| rsmreport_core::schema::check_file_name_part(s, "experiment_id").is_ok())
        .unwrap_or(kind)
        .to_string();
    Ok(in_memory::register(
        &format!("dict in memory/{name}.{ext}"),
        Arc::new(in_memory::MemoryText(text)),
    ))
}

/// What a Python call asked for, as plain data (the Python half checked
/// the types).
struct Args {
    kind: String,
    /// `check`'s kind (`None`: the kind the configuration's keys say).
    check_kind: Option<String>,
    config: Option<PathBuf>,
    config_json: Option<String>,
    output_dir: Option<PathBuf>,
    overwrite: bool,
    gates: Option<PathBuf>,
    baseline: Option<PathBuf>,
    candidate: Option<PathBuf>,
    folders: Vec<PathBuf>,
    unpaired: bool,
    order: String,
    id: String,
    /// Input tables given as data, each registered in memory
    /// ([`in_memory_table`]): the role (`predictions`, `scale`,
    /// `annotations`, ...) and the name it is read by.
    tables: Vec<(String, PathBuf)>,
}

/// The name a table given as data is read by and shown as in the report:
/// `pandas.DataFrame in memory (predictions=)` (the producer's top-level
/// module and type).
fn memory_name(role: &str, data: &Bound<'_, PyAny>) -> PyResult<String> {
    let class = data.get_type();
    let module = class.module()?.to_string();
    let top = module.split('.').next().unwrap_or_default();
    let name = class.name()?.to_string();
    let what = if top.is_empty() || top == "builtins" {
        name
    } else {
        format!("{top}.{name}")
    };
    Ok(format!("{what} in memory ({role}=)"))
}

/// Imports the input table `role` given as data through the Arrow C
/// stream interface (`__arrow_c_stream__`, the PyCapsule protocol) and
/// registers it in memory for the run's reader; no file is written.
fn in_memory_table(
    py: Python<'_>,
    role: &str,
    data: &Bound<'_, PyAny>,
) -> PyResult<in_memory::Registration> {
    if !data.hasattr("__arrow_c_stream__")? {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "{role}= takes a table with the Arrow stream interface (__arrow_c_stream__: a \
             pandas 2.2+, polars, pyarrow or duckdb table), not {}",
            data.get_type().name()?
        )));
    }
    let name = memory_name(role, data)?;
    let capsule = data
        .call_method0("__arrow_c_stream__")?
        .cast_into::<PyCapsule>()
        .map_err(PyErr::from)?;
    let pointer = capsule.pointer_checked(Some(c"arrow_array_stream"))?;
    // SAFETY: a capsule named `arrow_array_stream` holds an
    // `ArrowArrayStream` (the PyCapsule interface); the stream is moved
    // out and an empty (released) one left, so the capsule's destructor
    // does not release it a second time.
    let stream = unsafe {
        std::ptr::replace(
            pointer.as_ptr().cast::<ArrowArrayStream>(),
            ArrowArrayStream::empty(),
        )
    };
    // The GIL is held: a producer may call back into Python.
    // SAFETY: the producer's stream, as the interface promises it.
    let table = unsafe { ArrowTable::import(stream, &name) }.map_err(|e| run_error(py, &e))?;
    Ok(in_memory::register(&name, Arc::new(table)))
}

/// A dict configuration with the key of each input table given as data
/// set to the name it is read by (the keys of the kind the dict is for).
fn with_table_keys(args: &mut Args) -> anyhow::Result<()> {
    let Some(json) = &args.config_json else {
        return Ok(());
    };
    if args.tables.is_empty() {
        return Ok(());
    }
    let Some(entry) = registry::find(file_kind(args, json)) else {
        return Ok(());
    };
    let mut value: serde_json::Value = serde_json::from_str(json)?;
    if let Some(map) = value.as_object_mut() {
        for (role, path) in &args.tables {
            if let Some(t) = entry.tables.iter().find(|t| t.role == role) {
                map.insert(t.key.to_string(), path.to_string_lossy().into());
            }
        }
    }
    args.config_json = Some(serde_json::to_string(&value)?);
    Ok(())
}

/// A configuration error: an input table given as data to a kind that
/// reads none (`compare`, `summarize`).
fn no_tables(args: &Args) -> anyhow::Result<()> {
    match args.tables.first() {
        Some((role, _)) => Err(rsmreport_core::error::config(anyhow::anyhow!(
            "{} reads no {role} table",
            args.kind
        ))),
        None => Ok(()),
    }
}

/// A run's outcome and the files written (relative to its folder).
struct Ran {
    outcome: Outcome,
    written: Vec<PathBuf>,
}

fn go<K: Kind>(config: K::Config, destination: Destination) -> anyhow::Result<Ran> {
    written(kinds::run::<K>(Request {
        config,
        destination,
    })?)
}

/// The configuration file of a kind that reads one (a path, or a dict's
/// text in memory), or a configuration error saying it is missing.
fn needed(args: &Args) -> anyhow::Result<PathBuf> {
    match &args.config {
        Some(path) => Ok(path.clone()),
        None => Err(rsmreport_core::error::config(anyhow::anyhow!(
            "{} needs a configuration (a path or a dict)",
            args.kind
        ))),
    }
}

/// The kind whose file a dict configuration becomes: the kind asked for,
/// or for `check` the one named or recognised by its keys (`build` when
/// none).
fn file_kind<'a>(args: &'a Args, json: &str) -> &'a str {
    if args.kind != "check" {
        return &args.kind;
    }
    match &args.check_kind {
        Some(k) => k,
        None => registry::recognise(json).map_or("build", |(k, _)| k.name),
    }
}

/// The optional configuration file of `compare`.
fn optional(args: &Args) -> Option<PathBuf> {
    args.config.clone()
}

/// A run's outcome with its files written into its folder (none for
/// [`Destination::Nowhere`]).
fn written(outcome: Outcome) -> anyhow::Result<Ran> {
    // The notes (stale temporary folders removed) are the command line's
    // to print; the module prints nothing.
    let written = outcome.write()?.files;
    Ok(Ran { outcome, written })
}

/// Loads the kind's request as its command does and runs it: an
/// experiment-file kind through its entry in the kind table, `check`
/// through the entry of the experiment's kind.
fn dispatch(mut args: Args) -> anyhow::Result<Ran> {
    with_table_keys(&mut args)?;
    // A dict's text, registered while the run reads it.
    let _dict = match (&args.config, &args.config_json) {
        (None, Some(json)) => {
            let held = config_in_memory(file_kind(&args, json), json)?;
            args.config = Some(held.path().to_path_buf());
            Some(held)
        }
        _ => None,
    };
    let destination = match (&args.output_dir, args.kind.as_str()) {
        (_, "check") | (None, _) => Destination::Nowhere,
        (Some(dir), _) => Destination::Folder {
            dir: Some(dir.clone()),
            force: args.overwrite,
        },
    };
    let gates = args.gates.as_deref();
    match args.kind.as_str() {
        "check" => {
            let experiment = needed(&args)?;
            let entry = registry::kind_of(&experiment, args.check_kind.as_deref())?;
            written(entry.check(&options(&args, experiment))?)
        }
        "compare" => {
            no_tables(&args)?;
            let (Some(b), Some(c)) = (&args.baseline, &args.candidate) else {
                anyhow::bail!("compare needs a baseline and a candidate folder");
            };
            let config = optional(&args);
            let request = compare::load(b, c, config.as_deref(), gates, args.unpaired)?;
            go::<compare::Compare>(request, destination)
        }
        "summarize" => {
            no_tables(&args)?;
            let order = match args.order.as_str() {
                "given" => summarize::run::Order::Given,
                "model_version" | "model-version" => summarize::run::Order::ModelVersion,
                other => {
                    return Err(rsmreport_core::error::config(anyhow::anyhow!(
                        "order = {other:?}: it is \"given\" or \"model_version\""
                    )))
                }
            };
            let request =
                summarize::request(args.folders.clone(), args.baseline.clone(), order, &args.id)?;
            go::<summarize::Summarize>(request, destination)
        }
        name => match registry::find(name) {
            Some(entry) if matches!(entry.runner, Runner::Experiment { .. }) => {
                let experiment = needed(&args)?;
                written(entry.run(&options(&args, experiment), destination)?)
            }
            _ => Err(rsmreport_core::error::config(anyhow::anyhow!(
                "unknown report kind {name}"
            ))),
        },
    }
}

/// The options of an experiment-file kind from the Python call.
fn options(args: &Args, experiment: PathBuf) -> Options {
    Options {
        experiment,
        gates: args.gates.clone(),
        tables: args.tables.clone(),
    }
}

/// Runs one report kind (the Python half's `build`, `compare`, ...):
/// loads its configuration as the command does, runs it through
/// `rsmreport::kinds::run` and writes its folder when `output_dir` is
/// given (nothing otherwise; `check` never writes).
#[pyfunction]
#[pyo3(signature = (kind, *, config=None, config_json=None, output_dir=None, overwrite=false,
    gates=None, baseline=None, candidate=None, folders=Vec::new(), unpaired=false,
    order="given".to_string(), id="versions".to_string(), tables=Vec::new(), check_kind=None))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    kind: String,
    config: Option<PathBuf>,
    config_json: Option<String>,
    output_dir: Option<PathBuf>,
    overwrite: bool,
    gates: Option<PathBuf>,
    baseline: Option<PathBuf>,
    candidate: Option<PathBuf>,
    folders: Vec<PathBuf>,
    unpaired: bool,
    order: String,
    id: String,
    tables: Vec<(String, Bound<'_, PyAny>)>,
    check_kind: Option<String>,
) -> PyResult<NativeOutcome> {
    // Held until the run is done: the registered tables are read by name.
    let held = tables
        .iter()
        .map(|(role, data)| Ok((role.clone(), in_memory_table(py, role, data)?)))
        .collect::<PyResult<Vec<_>>>()?;
    let tables = held
        .iter()
        .map(|(role, r)| (role.clone(), r.path().to_path_buf()))
        .collect();
    let args = Args {
        kind,
        check_kind,
        config,
        config_json,
        output_dir,
        overwrite,
        gates,
        baseline,
        candidate,
        folders,
        unpaired,
        order,
        id,
        tables,
    };
    let ran = guarded(py, move || dispatch(args))?;
    drop(held);
    Ok(NativeOutcome {
        dir: ran.outcome.dir.clone(),
        written: ran.written,
        inner: Mutex::new(ran.outcome),
    })
}

/// A finished run: the library's `Outcome` (behind a lock: the report is
/// `Send`, not `Sync`).
#[pyclass(module = "rsmreport._rsmreport", name = "Outcome", frozen)]
struct NativeOutcome {
    inner: Mutex<Outcome>,
    dir: Option<PathBuf>,
    written: Vec<PathBuf>,
}

impl NativeOutcome {
    fn with<T>(&self, f: impl FnOnce(&Outcome) -> T) -> T {
        let guard = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        f(&guard)
    }
}

#[pymethods]
impl NativeOutcome {
    /// The kind's name (`build`, `compare`, ...).
    #[getter]
    fn kind(&self) -> &'static str {
        self.with(|o| o.kind)
    }

    /// The id that prefixes every file name.
    #[getter]
    fn id(&self) -> String {
        self.with(|o| o.report.id().to_string())
    }

    /// The folder written (`None` when nothing was written).
    #[getter]
    fn output_dir(&self) -> Option<PathBuf> {
        self.dir.clone()
    }

    /// The files written, relative to the folder.
    #[getter]
    fn written(&self) -> Vec<PathBuf> {
        self.written.clone()
    }

    /// The names of the tables, in the order their files are written.
    fn table_names(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        guarded(py, || {
            Ok(self.with(|o| o.report.tables().map(|f| f.name.clone()).collect()))
        })
    }

    /// Table `name` as Arrow (an object with `__arrow_c_stream__`): the
    /// columns of its CSV file, the index first, typed as pandas' `read_csv`
    /// types them; no CSV is written or parsed.
    fn table_arrow(&self, py: Python<'_>, name: &str) -> PyResult<TableArrow> {
        let columns = guarded(py, || {
            Ok(self.with(|o| {
                o.report
                    .tables()
                    .find(|f| f.name == name)
                    .map(|f| ArrowColumns::of(&f))
            }))
        })?;
        match columns {
            Some(columns) => Ok(TableArrow { columns }),
            None => Err(pyo3::exceptions::PyKeyError::new_err(name.to_string())),
        }
    }

    /// Table `name` as `(name, CSV bytes)`: the bytes of the command's
    /// `output/<id>_<name>.csv`.
    fn table_csv<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = guarded(py, || {
            self.with(|o| {
                let id = o.report.id();
                match o.report.tables().find(|f| f.name == name) {
                    Some(frame) => Ok(Some(
                        rsmreport_io::output::table_file(id, &frame, FileFormat::Csv, 0)?.bytes,
                    )),
                    None => Ok(None),
                }
            })
        })?;
        match bytes {
            Some(bytes) => Ok(PyBytes::new(py, &bytes)),
            None => Err(pyo3::exceptions::PyKeyError::new_err(name.to_string())),
        }
    }

    /// The summary document (`output/<id>_summary.json`), as JSON text.
    fn summary_json(&self, py: Python<'_>) -> PyResult<String> {
        caught(py, || self.with(|o| o.summary().to_string()))
    }

    /// The gates file's document (`output/<id>_gates.json`), as JSON text.
    fn gates_json(&self, py: Python<'_>) -> PyResult<String> {
        caught(py, || {
            self.with(|o| {
                let bytes = rsmreport::gates::json::gates_json(o.report.id(), o.report.gates());
                String::from_utf8_lossy(&bytes).into_owned()
            })
        })
    }

    /// What a notebook's card shows, as the report's header shows it:
    /// `decision` (`None`, or a dict of `tone` (`pass`, `fail`, `warn`,
    /// `info`), `badge`, `sentence`, `warnings`) and `glance` (the key
    /// figures: a list of dicts of `label`, `value`, `ci`, `title`; made
    /// with the report page, so only for a kind that has one).
    fn card<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (decision, glance) = guarded(py, || {
            self.with(|o| {
                let decision = o.report.decision();
                let glance = if o.report.writes_files() && o.report.writes_report() {
                    let epoch = rsmreport_core::provenance::generation_epoch();
                    o.report.report(epoch)?.header.glance
                } else {
                    Vec::new()
                };
                Ok((decision, glance))
            })
        })?;
        let card = PyDict::new(py);
        match decision {
            Some(d) => {
                let item = PyDict::new(py);
                let tone = match d.tone {
                    Tone::Pass => "pass",
                    Tone::Fail => "fail",
                    Tone::Warn => "warn",
                    Tone::Info => "info",
                };
                item.set_item("tone", tone)?;
                item.set_item("badge", d.badge)?;
                item.set_item("sentence", d.sentence)?;
                item.set_item("warnings", d.warnings)?;
                card.set_item("decision", item)?;
            }
            None => card.set_item("decision", py.None())?,
        }
        let tiles = glance
            .into_iter()
            .map(|g| {
                let tile = PyDict::new(py);
                tile.set_item("label", g.label)?;
                tile.set_item("value", g.value)?;
                tile.set_item("ci", g.ci)?;
                tile.set_item("title", g.title)?;
                Ok(tile)
            })
            .collect::<PyResult<Vec<_>>>()?;
        card.set_item("glance", tiles)?;
        Ok(card)
    }

    /// Whether a gate of severity `fail` failed.
    fn gates_failed(&self) -> bool {
        self.with(Outcome::gates_failed)
    }

    /// The terminal lines of the run, as the command line prints them.
    fn lines(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        caught(py, || self.with(|o| o.lines(&self.written)))
    }

    /// Every output file as `(relative path, bytes)`: what `save` writes.
    fn files<'py>(&self, py: Python<'py>) -> PyResult<Vec<(String, Bound<'py, PyBytes>)>> {
        let files = guarded(py, || self.with(|o| o.files()))?;
        Ok(files
            .iter()
            .map(|f| {
                let path = f.path.to_string_lossy().replace('\\', "/");
                (path, PyBytes::new(py, &f.bytes))
            })
            .collect())
    }

    /// Writes the files into `dir` (checked as a run checks its folder:
    /// a non-empty folder only with `overwrite`); the paths written,
    /// relative to it.
    #[pyo3(signature = (dir, overwrite=false))]
    fn save(&self, py: Python<'_>, dir: PathBuf, overwrite: bool) -> PyResult<Vec<PathBuf>> {
        guarded(py, || {
            self.with(|o| o.save(&dir, overwrite).map(|w| w.files))
        })
    }
}

/// One result table as Arrow, handed over through the Arrow C stream
/// interface (`__arrow_c_stream__`, the PyCapsule protocol): each call
/// gives a new stream over the same buffers.
#[pyclass(module = "rsmreport._rsmreport", name = "ArrowTable", frozen)]
struct TableArrow {
    columns: ArrowColumns,
}

#[pymethods]
impl TableArrow {
    /// The stream of the table's one record batch, in a capsule named
    /// `arrow_array_stream` (released with the capsule when not taken).
    /// `requested_schema` is not honoured (the interface allows that).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let name = std::ffi::CString::new("arrow_array_stream").expect("no NUL");
        PyCapsule::new(py, self.columns.stream(), Some(name))
    }

    /// The number of rows.
    #[getter]
    fn num_rows(&self) -> usize {
        self.columns.rows()
    }

    /// The column names, the index (`""`) first.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.columns.names()
    }
}

/// The command line (`rsmreport ARGS...`, `python -m rsmreport`): the
/// binary's own `main`, without ending the process; returns the exit code
/// (101 after a panic, as the binary).
#[cfg(not(test))]
#[pyfunction]
fn cli_main(py: Python<'_>, argv: Vec<std::ffi::OsString>) -> PyResult<u8> {
    use std::io::Write;
    let code = py.detach(|| catch_unwind(|| rsmreport_cli::main_with(argv)));
    let _ = std::io::stdout().flush();
    match code {
        Ok(code) => Ok(code),
        // The binary's exit code of a panic (the hook printed it).
        Err(_) => Ok(101),
    }
}

/// Panics inside the boundary: the Python tests' check that a panic
/// becomes `rsmreport.InternalError`, in a run (`held = false`: without
/// the GIL) or in reading a finished outcome (`held = true`).
#[pyfunction]
#[pyo3(signature = (held=false))]
fn _panic_for_tests(py: Python<'_>, held: bool) -> PyResult<()> {
    if held {
        return caught(py, || panic!("a test of the panic boundary (GIL held)"));
    }
    guarded(py, || -> anyhow::Result<()> {
        panic!("a test of the panic boundary")
    })
}

/// The kind table (`rsmreport::kinds::registry::KINDS`), from which the
/// Python half makes its functions: one dict per kind, in table order,
/// with `name`, `about` (one line), `experiment` (what its configuration
/// is), `runner` (`"experiment"`: one experiment file; `"own"`: arguments
/// of its own, a function written by hand), `gates_file` (whether
/// `gates=` adds a gates file) and `tables` (`[(role, key)]`: the input
/// tables that may be given as data and the key each replaces).
#[pyfunction(name = "kinds")]
fn kind_table(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    registry::KINDS
        .iter()
        .map(|k| {
            let d = PyDict::new(py);
            d.set_item("name", k.name)?;
            d.set_item("about", k.about)?;
            d.set_item("experiment", k.experiment)?;
            let runner = match k.runner {
                Runner::Experiment { .. } => "experiment",
                Runner::Own => "own",
            };
            d.set_item("runner", runner)?;
            d.set_item("gates_file", k.gates_file)?;
            let tables: Vec<(&str, &str)> = k.tables.iter().map(|t| (t.role, t.key)).collect();
            d.set_item("tables", tables)?;
            Ok(d)
        })
        .collect()
}

/// The kind whose experiment a configuration dict (as JSON text) is: the
/// name of the kind its keys say, `None` when they say none.
#[pyfunction]
fn recognise(config_json: &str) -> Option<&'static str> {
    registry::recognise(config_json).map(|(k, _)| k.name)
}

/// The version of the crate (and of the wheel).
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Adds the exception classes, each with its `code` (the command line's
/// exit code).
fn add_exceptions(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let classes = [
        (py.get_type::<RsmreportError>(), 1),
        (config_error(py)?.clone(), 2),
        (py.get_type::<DataError>(), 1),
        (py.get_type::<GateFailedError>(), 3),
        (py.get_type::<InternalError>(), 101),
    ];
    for (class, code) in classes {
        class.setattr("code", code)?;
        m.add(class.name()?, class)?;
    }
    py.get_type::<GateFailedError>()
        .setattr("failed", pyo3::types::PyList::empty(py).to_tuple())?;
    Ok(())
}

#[pymodule]
fn _rsmreport(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_exceptions(m)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    #[cfg(not(test))]
    m.add_function(wrap_pyfunction!(cli_main, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(kind_table, m)?)?;
    m.add_function(wrap_pyfunction!(recognise, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add_class::<NativeOutcome>()?;
    m.add_class::<TableArrow>()?;
    Ok(())
}
