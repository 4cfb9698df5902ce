//! Stage 2: reading input tables (predictions, scale and annotation
//! files of every kind) into [`rsmreport_core::table::Table`]. Reads files; writes
//! nothing, and knows nothing about the configuration beyond the names of
//! the text columns (and, for an archive, the number syntax of its saved
//! configuration).
//!
//! The reader is chosen by the lower-cased extension: `.csv`, `.tsv`,
//! `.xlsx` (first sheet), `.jsonl`/`.jsonlines`, `.parquet`. Columns named
//! in `text_columns` (id, candidate, subgroups) are read as raw text; all
//! others get pandas-like types (spec 2.1), which only matter for how
//! pass-through columns are echoed into output files.
//!
//! A table given as data ([`arrow`], registered in
//! `rsmreport_core::in_memory`) is read by its registered name in place of
//! a file's path, typed as a parquet file of the same data.
//!
//! [`archive`] opens an archived experiment folder (the output of `build`,
//! `rsmeval` or `rsmtool`) for `compare` and `summarize`.

pub mod archive;
pub mod arrow;
mod csv;
mod guard;
mod infer;
mod json;
pub mod mapped;
mod parquet;
mod split;
mod xlsx;

pub use guard::{allocation_limit, guarded_file, in_guarded_parser};
pub use infer::{infer_column, is_na};

use guard::guarded;

use anyhow::{anyhow, bail, Result};
use rsmreport_core::table::Table;
use std::path::Path;

/// The extensions [`read_table`] accepts, as shown in error messages.
pub const SUPPORTED_EXTENSIONS: &str = ".csv, .tsv, .xlsx, .jsonl, .jsonlines, .parquet";

/// Reads the table at `path`, choosing the reader by extension. Columns named
/// in `text_columns` are read as raw text (spec 2.1). Every error names the
/// file (and the line, where there is one).
pub fn read_table(path: &Path, text_columns: &[&str]) -> Result<Table> {
    let table = read_any(path, text_columns)?;
    check_shape(path, &table)?;
    Ok(table)
}

/// Every column has one value per row. A damaged binary file can get past
/// a third-party reader with columns of different lengths (seen with
/// polars' parquet reader in release builds, where its debug assertions
/// are off); every later stage relies on equal lengths.
fn check_shape(path: &Path, table: &Table) -> Result<()> {
    if let Some(c) = table.columns.iter().find(|c| c.values.len() != table.nrows) {
        bail!(
            "{}: cannot read the file: it is damaged (column '{}' has {} values, the table has \
             {} rows)",
            path.display(),
            c.name,
            c.values.len(),
            table.nrows
        );
    }
    Ok(())
}

fn read_any(path: &Path, text_columns: &[&str]) -> Result<Table> {
    if let Some(held) = rsmreport_core::in_memory::get(path) {
        let Some(table) = held.as_any().downcast_ref::<arrow::ArrowTable>() else {
            bail!("{}: a table in memory of an unknown kind", path.display());
        };
        return guarded(path, || table.read(path, text_columns))
            .unwrap_or_else(|why| bail!("{}: cannot read the table: {why}", path.display()));
    }
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "csv" => read_text_file(path, |text| csv::read(path, text, b',', text_columns)),
        "tsv" => read_text_file(path, |text| csv::read(path, text, b'\t', text_columns)),
        "jsonl" | "jsonlines" => read_text_file(path, |text| json::read(path, text, text_columns)),
        "xlsx" => {
            check_readable(path)?;
            guarded(path, || xlsx::read(path, text_columns)).unwrap_or_else(|why| {
                bail!(
                    "{}: cannot read the xlsx workbook: it is damaged or not an xlsx file ({why})",
                    path.display()
                )
            })
        }
        "parquet" => {
            check_readable(path)?;
            guarded(path, || parquet::read(path, text_columns)).unwrap_or_else(|why| {
                bail!(
                    "{}: cannot read the parquet file: it is damaged or not a parquet file ({why})",
                    path.display()
                )
            })
        }
        "sas7bdat" => bail!(
            "{}: SAS files (.sas7bdat) are not supported; export the table as one of {}",
            path.display(),
            SUPPORTED_EXTENSIONS
        ),
        "" => bail!(
            "{}: the file has no extension; supported input files are {}",
            path.display(),
            SUPPORTED_EXTENSIONS
        ),
        other => bail!(
            "{}: unsupported file type '.{other}'; supported input files are {}",
            path.display(),
            SUPPORTED_EXTENSIONS
        ),
    }
}

/// Opens the file first so that a missing file gives a plain message.
fn check_readable(path: &Path) -> Result<()> {
    let meta = std::fs::metadata(path)
        .map_err(|e| anyhow!("{}: cannot read the file: {e}", path.display()))?;
    if meta.is_dir() {
        bail!("{}: is a folder, not a file", path.display());
    }
    if meta.len() == 0 {
        bail!("{}: file is empty", path.display());
    }
    Ok(())
}

/// Files from this size on are mapped into memory instead of copied.
const MAP_FROM: u64 = 16 << 20;

/// A file's bytes, mapped or read (with the mark that names a mapped
/// file for the host's SIGBUS handler while it is read).
enum FileBytes {
    Read(Vec<u8>),
    Mapped(memmap2::Mmap, mapped::Reading),
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Read(v) => v,
            FileBytes::Mapped(m, _) => m,
        }
    }
}

/// The bytes of the file at `path`. A large regular file is mapped (its
/// pages filled in at once) when the host handles SIGBUS
/// ([`mapped::allow_mapping`]; the binary does): no copy of it and no
/// zeroed buffer, which cost 0.7 s on a 229 MB CSV file. Anything else, or
/// a file the system cannot map (some network and FUSE file systems), is
/// read.
fn file_bytes(path: &Path) -> std::io::Result<FileBytes> {
    let mut file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_file() && meta.len() >= MAP_FROM && mapped::mapping_allowed() {
        let mark = mapped::reading(path);
        // SAFETY: the map is only read, and dropped before `read_table`
        // returns (the table owns copies of the cells). Another program
        // that shortens the file while it is read makes a read of the
        // missing pages raise SIGBUS, which the host handles (an error
        // naming the file, exit 1): `mapping_allowed` says it does.
        if let Ok(map) = unsafe { memmap2::MmapOptions::new().populate().map(&file) } {
            shrink_for_test(path, &file);
            return Ok(FileBytes::Mapped(map, mark));
        }
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::io::Read::read_to_end(&mut file, &mut bytes)?;
    Ok(FileBytes::Read(bytes))
}

/// Debug builds only, for the test of a file shortened while it is read
/// (`RSMREPORT_TEST_SHRINK_MAPPED=1`): halves the file just mapped, as
/// another program rewriting it would. Nothing in release builds.
fn shrink_for_test(path: &Path, file: &std::fs::File) {
    #[cfg(debug_assertions)]
    if std::env::var_os("RSMREPORT_TEST_SHRINK_MAPPED").is_some() {
        let len = file.metadata().map_or(0, |m| m.len());
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|f| f.set_len(len / 2));
    }
    #[cfg(not(debug_assertions))]
    let _ = (path, file);
}

/// Reads a text file: refuses an empty file, drops a UTF-8 byte order mark,
/// and refuses bytes that are not UTF-8, naming the line.
fn read_text_file(path: &Path, parse: impl FnOnce(&str) -> Result<Table>) -> Result<Table> {
    check_readable(path)?;
    let bytes =
        file_bytes(path).map_err(|e| anyhow!("{}: cannot read the file: {e}", path.display()))?;
    let bom = if bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let bytes = &bytes[bom..];
    if bytes.iter().all(u8::is_ascii_whitespace) {
        bail!("{}: file is empty", path.display());
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.valid_up_to();
            let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
            bail!(
                "{}: line {line} is not valid UTF-8 text (byte {} of the file); save the file \
                 with UTF-8 encoding",
                path.display(),
                at + bom + 1
            );
        }
    };
    parse(text)
}

#[cfg(test)]
mod tests;

/// Refuses a header that names a column twice (each duplicate listed once).
fn check_unique_names(path: &Path, names: &[String]) -> anyhow::Result<()> {
    let mut seen = std::collections::HashSet::with_capacity(names.len());
    let mut dups: Vec<&str> = Vec::new();
    for n in names {
        if !seen.insert(n.as_str()) && !dups.contains(&n.as_str()) {
            dups.push(n);
        }
    }
    if !dups.is_empty() {
        anyhow::bail!(
            "{}: duplicate column name{} in the header: {}",
            path.display(),
            if dups.len() > 1 { "s" } else { "" },
            dups.iter()
                .map(|d| format!("'{d}'"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(())
}
