//! Command assembly (the version workflow: `compare`, `summarize`): the
//! folders a command reads, for the output-folder check ([`input_paths`]);
//! `compare`'s two folders opened with the archive reader
//! ([`rsmreport_io::input::archive`], [`open_both`]); and the record of what
//! was read: the SHA-256 of every file read from each folder, the folder's
//! digest over them ([`rsmreport_core::provenance::FolderDigest`]), and the
//! checksum of each other file given (a config, a gates file), with their
//! rows of the report and of the JSON's `inputs`.
//!
//! Reads the folders and hashes the files it read; computes no statistic;
//! writes nothing.

use std::path::Path;

use anyhow::anyhow;
use serde_json::{json, Value};

use rsmreport_core::provenance::{folder_digest, sha256_file, timed, FolderDigest};
use rsmreport_io::input::archive::{self, Archive, ArchiveError};
use rsmreport_report::render::context::InputCtx;

/// Both folders at once (each reads its tables on threads of its own);
/// an error names the side.
pub fn open_both(baseline: &Path, candidate: &Path) -> Result<(Archive, Archive), ArchiveError> {
    let open = |dir: &Path, role: &str| {
        archive::open_arg(dir).map_err(|e| ArchiveError {
            problem: e.problem,
            error: anyhow!("the {role} folder: {e}"),
        })
    };
    timed("open folders", || {
        std::thread::scope(|scope| {
            let other = scope.spawn(|| open(candidate, "candidate"));
            let b = open(baseline, "baseline");
            let c = other.join().expect("reading the candidate folder panicked");
            Ok((b?, c?))
        })
    })
}

/// One input for provenance: a folder (with every file read from it) or
/// a single file.
#[derive(Clone, Debug)]
pub struct InputRecord {
    pub role: String,
    /// The folder or file as given.
    pub path: String,
    /// The responses (or rows) it holds, blank when not known.
    pub rows: String,
    pub digest: FolderDigest,
    /// A folder (its digest covers the files read from it), not one file.
    pub folder: bool,
}

impl InputRecord {
    /// Its row of the report's inputs table.
    pub fn ctx(&self) -> InputCtx {
        InputCtx {
            role: self.role.clone(),
            path: if self.folder {
                folder_label(&self.path, self.digest.files.len())
            } else {
                self.path.clone()
            },
            rows: self.rows.clone(),
            sha256: self.digest.sha256.clone(),
        }
    }
}

pub use crate::kinds::common::versions::folder_label;

/// The record of a folder: every file the archive reader read from it.
pub fn folder_record(role: &str, a: &Archive, rows: String) -> anyhow::Result<InputRecord> {
    Ok(InputRecord {
        role: role.to_string(),
        path: a.dir.display().to_string(),
        rows,
        digest: folder_digest(&a.dir, &a.files_read())?,
        folder: true,
    })
}

/// The record of a single file (a config, a gates file).
pub fn file_record(role: &str, path: &Path) -> anyhow::Result<InputRecord> {
    let sha256 = sha256_file(path)?;
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    Ok(InputRecord {
        role: role.to_string(),
        path: path.display().to_string(),
        rows: String::new(),
        digest: FolderDigest {
            sha256: sha256.clone(),
            files: vec![(name, sha256)],
        },
        folder: false,
    })
}

/// The `inputs` of a JSON file: each input with its checksum and, for a
/// folder, the checksum of every file read from it.
pub fn inputs_json(inputs: &[InputRecord]) -> Value {
    Value::Array(
        inputs
            .iter()
            .map(|i| {
                json!({
                    "role": i.role,
                    "path": i.path,
                    "sha256": i.digest.sha256,
                    "files": i.digest.files.iter()
                        .map(|(file, sha256)| json!({"file": file, "sha256": sha256}))
                        .collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}

/// What `compare` or `summarize` reads, for
/// [`rsmreport_io::output::refuse_inputs_inside`]: the experiment folder of each
/// folder argument and the given files (a config, a gates file).
pub fn input_paths<P: AsRef<std::path::Path>>(
    folders: &[P],
    files: &[Option<&std::path::Path>],
) -> Vec<std::path::PathBuf> {
    let folders = folders
        .iter()
        .map(|f| rsmreport_io::input::archive::experiment_folder(f.as_ref()));
    folders
        .chain(files.iter().flatten().map(|f| f.to_path_buf()))
        .collect()
}
