//! Stage 6: the only stage that writes files.
//!
//! Producing bytes ([`table_file`], `write::to_delimited`,
//! `write::to_xlsx`, [`json::bytes`]) is separate from putting them on disk
//! ([`write_output_dir_with`]), which builds the whole output folder in a
//! temporary sibling and moves it into place only when every file was
//! written, so a failed run never damages an earlier report. A run killed
//! before the move leaves its temporary folder; the next run into the same
//! folder removes it ([`stale`]). The writing functions take plain values
//! (a folder, `force`, a producer), so every command can use them.
//! Files are written as they are produced ([`Sink`]): a 10M-response run
//! never holds more than one table's bytes. [`arrow`] hands a table to
//! the Python module as Arrow, typed as its CSV file reads in pandas.

pub mod arrow;
pub mod file;
mod inputs;
pub mod json;
pub mod stale;
pub mod write;

pub use inputs::refuse_inputs_inside;

use anyhow::{bail, Context, Result};
use rsmreport_core::schema::FileFormat;
use rsmreport_core::table::Frame;
use std::fs;
use std::path::{Component, Path, PathBuf};

/// One file of the output folder: a relative path and its bytes.
#[derive(Clone, Debug)]
pub struct OutputFile {
    /// Relative to the output folder, e.g. `output/exp_eval.csv`.
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

/// Sub-folders rsmreport creates in an output folder.
pub const SUBFOLDERS: [&str; 3] = ["output", "figure", "report"];

/// Every sub-folder rsmreport may write (`train` adds `feature/`, train.md
/// 1): what `--force` may replace.
pub const WRITTEN_FOLDERS: [&str; 4] = ["output", "figure", "report", "feature"];

use rsmreport_core::schema::check_file_name_part;

/// The file `output/<id>_<frame name>.<ext>` of one table in `format`:
/// the one table writer of every kind ([`frame_file`] in `output/`). The
/// frame's name must be usable in a file name.
pub fn table_file(id: &str, frame: &Frame, format: FileFormat, created: i64) -> Result<OutputFile> {
    check_file_name_part(&frame.name, "table name")?;
    frame_file(Path::new("output"), id, format, frame, created)
}

/// One frame as the file `<folder>/<id>_<name>.<ext>` in `format`.
pub fn frame_file(
    folder: &Path,
    id: &str,
    format: FileFormat,
    frame: &Frame,
    created: i64,
) -> Result<OutputFile> {
    let bytes = match format {
        FileFormat::Csv => write::to_delimited(frame, b','),
        FileFormat::Tsv => write::to_delimited(frame, b'\t'),
        FileFormat::Xlsx => write::to_xlsx(frame, created)
            .with_context(|| format!("could not produce the xlsx table '{}'", frame.name))?,
    };
    Ok(OutputFile {
        path: folder.join(format!("{id}_{}.{}", frame.name, format.extension())),
        bytes,
    })
}

/// Whether a folder exists and holds anything.
fn is_non_empty_dir(dir: &Path) -> Result<bool> {
    match fs::read_dir(dir) {
        Ok(mut entries) => Ok(entries.next().is_some()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => bail!(
            "cannot use {} as the output folder: a part of that path is a file, not a folder; \
             choose another --output-dir",
            dir.display()
        ),
        Err(e) => {
            Err(e).with_context(|| format!("cannot read the output folder {}", dir.display()))
        }
    }
}

/// Refuses to write where it must not: an existing non-empty folder without
/// `force`, a file in the way, or (even with `force`) a folder holding
/// anything rsmreport does not write itself.
pub fn check_output_dir(dir: &Path, force: bool) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        bail!(
            "the output folder {} exists and is not a folder; choose another --output-dir",
            dir.display()
        );
    }
    if !is_non_empty_dir(dir)? {
        return Ok(());
    }
    if !force {
        bail!(
            "the output folder {} already exists and is not empty; use --force to replace it \
             (the old report is kept until the new one is complete) or choose another --output-dir",
            dir.display()
        );
    }
    let foreign: Vec<String> = fs::read_dir(dir)
        .with_context(|| format!("cannot read the output folder {}", dir.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !WRITTEN_FOLDERS.contains(&n.as_str()))
        .collect();
    if !foreign.is_empty() {
        bail!(
            "refusing to replace the output folder {}: it holds files rsmreport did not write ({}); \
             --force only replaces earlier rsmreport output, choose another --output-dir",
            dir.display(),
            foreign.join(", ")
        );
    }
    Ok(())
}

/// Writes the files that `produce` hands to its [`Sink`] as the complete
/// content of `dir`: into a temporary sibling folder first, each file as
/// soon as it is handed over, then the folder is moved into place. With
/// `force`, an existing rsmreport output folder is replaced only after the
/// new one is complete; on any failure (of `produce` or of a write) `dir`
/// is left as it was and the temporary folder removed. Returns the
/// relative paths written, in order, and the notes for the user:
/// temporary folders of `dir` that an earlier, killed run left behind are
/// removed first (see [`stale`]), each with a line saying so.
pub fn write_output_dir_with(
    dir: &Path,
    force: bool,
    produce: impl FnOnce(&mut Sink) -> Result<()>,
) -> Result<Written> {
    check_output_dir(dir, force)?;
    let dir = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        std::env::current_dir()
            .context("cannot determine the current folder")?
            .join(dir)
    };
    if let Some(parent) = dir.parent() {
        fs::create_dir_all(parent)
            .with_context(|| format!("cannot create the folder {}", parent.display()))?;
    }
    let notes = stale::remove_stale_temporaries(&dir);
    let tmp = stale::sibling(&dir, stale::TMP_TAG, std::process::id());
    // Removes the temporary folder on every way out but success: an error
    // of `produce` or of a write, and a panic while `produce` runs.
    let mut cleanup = RemoveOnDrop(Some(&tmp));
    start(&tmp)?;
    let mut sink = Sink {
        tmp: tmp.clone(),
        written: Vec::new(),
    };
    produce(&mut sink)?;
    swap_into_place(&tmp, &dir)?;
    cleanup.0 = None;
    Ok(Written {
        files: sink.written,
        notes,
    })
}

/// What [`write_output_dir_with`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// The files written, relative to the folder, in order.
    pub files: Vec<PathBuf>,
    /// Lines for the user's terminal (`note: ...`, `warning: ...`): the
    /// library prints nothing itself.
    pub notes: Vec<String>,
}

/// Removes the folder it holds, if any, when dropped.
struct RemoveOnDrop<'a>(Option<&'a Path>);

impl Drop for RemoveOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(dir) = self.0.filter(|d| d.exists()) {
            let _ = fs::remove_dir_all(dir);
        }
    }
}

/// Where the files of [`write_output_dir_with`] go: the temporary folder.
pub struct Sink {
    tmp: PathBuf,
    written: Vec<PathBuf>,
}

impl Sink {
    /// Writes one file into the temporary folder. Paths must be relative
    /// and stay inside the folder.
    pub fn put(&mut self, f: &OutputFile) -> Result<()> {
        if f.path.is_absolute()
            || f.path
                .components()
                .any(|c| !matches!(c, Component::Normal(_)))
        {
            bail!(
                "refusing to write {} outside the output folder",
                f.path.display()
            );
        }
        let target = self.tmp.join(&f.path);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        fs::write(&target, &f.bytes)
            .with_context(|| format!("cannot write {}", target.display()))?;
        self.written.push(f.path.clone());
        Ok(())
    }
}

/// Creates the temporary folder and its sub-folders.
fn start(tmp: &Path) -> Result<()> {
    if tmp.exists() {
        fs::remove_dir_all(tmp)
            .with_context(|| format!("cannot remove the stale folder {}", tmp.display()))?;
    }
    fs::create_dir(tmp).with_context(|| {
        format!(
            "cannot create a temporary folder {} next to the output folder (is it writable?)",
            tmp.display()
        )
    })?;
    for sub in SUBFOLDERS {
        fs::create_dir(tmp.join(sub))
            .with_context(|| format!("cannot create {}", tmp.join(sub).display()))?;
    }
    Ok(())
}

fn swap_into_place(tmp: &Path, dir: &Path) -> Result<()> {
    if dir.exists() {
        let old = stale::sibling(dir, stale::OLD_TAG, std::process::id());
        if old.exists() {
            fs::remove_dir_all(&old)
                .with_context(|| format!("cannot remove the stale folder {}", old.display()))?;
        }
        fs::rename(dir, &old).with_context(|| {
            format!("cannot move the old output folder {} aside", dir.display())
        })?;
        if let Err(e) = fs::rename(tmp, dir) {
            let _ = fs::rename(&old, dir);
            return Err(e)
                .with_context(|| format!("cannot move the new output into {}", dir.display()));
        }
        fs::remove_dir_all(&old)
            .with_context(|| format!("cannot remove the old output folder {}", old.display()))?;
    } else {
        fs::rename(tmp, dir)
            .with_context(|| format!("cannot move the new output into {}", dir.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `files` as the complete content of `dir` (see
    /// [`write_output_dir_with`]).
    fn write_output_dir(dir: &Path, files: &[OutputFile], force: bool) -> Result<()> {
        write_output_dir_with(dir, force, |sink| {
            files.iter().try_for_each(|f| sink.put(f))
        })
        .map(|_| ())
    }

    fn file(path: &str, bytes: &[u8]) -> OutputFile {
        OutputFile {
            path: PathBuf::from(path),
            bytes: bytes.to_vec(),
        }
    }

    #[test]
    fn writes_a_new_folder_and_refuses_to_overwrite_without_force() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("exp");
        write_output_dir(&dir, &[file("output/a.csv", b"x\n")], false).unwrap();
        assert_eq!(fs::read(dir.join("output/a.csv")).unwrap(), b"x\n");
        assert!(dir.join("report").is_dir() && dir.join("figure").is_dir());
        let err = write_output_dir(&dir, &[file("output/b.csv", b"y\n")], false).unwrap_err();
        assert!(format!("{err:#}").contains("--force"));
        assert!(!dir.join("output/b.csv").exists());
        write_output_dir(&dir, &[file("output/b.csv", b"y\n")], true).unwrap();
        assert!(dir.join("output/b.csv").exists());
        assert!(
            !dir.join("output/a.csv").exists(),
            "force replaces the old output"
        );
        let leftovers: Vec<_> = fs::read_dir(tmp.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary folder is left behind");
    }

    #[test]
    fn force_never_replaces_a_folder_with_foreign_files() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("thesis.docx"), b"precious").unwrap();
        let err = write_output_dir(tmp.path(), &[file("output/a.csv", b"x")], true).unwrap_err();
        assert!(format!("{err:#}").contains("thesis.docx"));
        assert_eq!(
            fs::read(tmp.path().join("thesis.docx")).unwrap(),
            b"precious"
        );
    }

    #[test]
    fn paths_outside_the_folder_are_refused_and_nothing_is_left() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("exp");
        assert!(write_output_dir(&dir, &[file("../evil.csv", b"x")], false).is_err());
        assert!(!dir.exists());
        assert!(!tmp.path().join("evil.csv").exists());
        assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_producer_that_fails_midway_leaves_the_earlier_folder_as_it_was() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("exp");
        write_output_dir(&dir, &[file("output/a.csv", b"old\n")], false).unwrap();
        let err = write_output_dir_with(&dir, true, |sink| {
            sink.put(&file("output/a.csv", b"new\n"))?;
            sink.put(&file("output/b.csv", b"new\n"))?;
            anyhow::bail!("the third table could not be produced")
        })
        .unwrap_err();
        assert!(format!("{err:#}").contains("third table"));
        assert_eq!(fs::read(dir.join("output/a.csv")).unwrap(), b"old\n");
        assert!(!dir.join("output/b.csv").exists());
        let names: Vec<_> = fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["exp"], "the temporary folder is removed");

        // A producer that succeeds: files in the order handed over.
        let written = write_output_dir_with(&dir, true, |sink| {
            sink.put(&file("output/b.csv", b"b"))?;
            sink.put(&file("report/r.html", b"r"))
        })
        .unwrap();
        assert_eq!(
            written.files,
            [
                PathBuf::from("output/b.csv"),
                PathBuf::from("report/r.html")
            ]
        );
        assert!(!dir.join("output/a.csv").exists());

        // A producer that panics half-way: the temporary folder goes too.
        let panicked = std::panic::catch_unwind(|| {
            write_output_dir_with(&dir, true, |sink| {
                sink.put(&file("output/c.csv", b"c"))?;
                panic!("a bug while formatting a table")
            })
        });
        assert!(panicked.is_err());
        assert_eq!(fs::read(dir.join("output/b.csv")).unwrap(), b"b");
        assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 1);
    }

    #[test]
    fn file_name_parts_are_checked() {
        assert!(check_file_name_part("L1", "subgroup").is_ok());
        for bad in ["", "a/b", "..", "a\\b", "x\ny"] {
            assert!(check_file_name_part(bad, "subgroup").is_err(), "{bad:?}");
        }
    }
}
