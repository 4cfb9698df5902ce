//! Leaf module (in-memory inputs): input tables given as data, not as
//! files (the Python module's `predictions=df`). A table is registered
//! under a name that reads as a path where a file's path would be shown
//! (`pandas.DataFrame in memory (predictions=)`), and every place that
//! would open that file asks here first: the readers
//! (`rsmreport_io::input::read_table`), the checksum
//! ([`crate::provenance::sha256_file`]), the configuration's file lookup
//! and the rule that no command writes into what it reads. So a kind reads
//! an in-memory table through the same configuration key and reader as a
//! file, with no file written.
//!
//! A configuration given as a dict is held the same way ([`MemoryText`],
//! read through [`read`] by the configuration loaders).
//!
//! The registry is process-wide (a run's readers and hashers work on
//! other threads); a [`Registration`] removes its table when dropped. The
//! name is the one asked for unless a different table is registered under
//! it at the same time (another thread's run), then ` #2`, ` #3`, ...
//! follow it. Holds the data only; reads and writes nothing.

use std::any::Any;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// An input table held in memory (implemented by the readers' crate, which
/// knows its representation).
pub trait MemoryTable: Any + Send + Sync {
    /// The SHA-256 (lower-case hex) of a canonical encoding of the data:
    /// the same data give the same checksum, whatever their chunks.
    fn sha256(&self) -> String;
    /// Its number of rows.
    fn rows(&self) -> usize;
    /// Itself, for the reader to take its representation back.
    fn as_any(&self) -> &dyn Any;
    /// The bytes of a text held in memory ([`MemoryText`]), read in place
    /// of a file's by [`read`]; `None` for a table.
    fn bytes(&self) -> Option<&[u8]> {
        None
    }
}

/// A text held in memory in place of a file: a configuration given as a
/// dict (the Python module), read by [`read`] and hashed as the file of
/// the same bytes would be.
#[derive(Debug)]
pub struct MemoryText(pub String);

impl MemoryTable for MemoryText {
    fn sha256(&self) -> String {
        use sha2::{Digest, Sha256};
        Sha256::digest(self.0.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    fn rows(&self) -> usize {
        self.0.lines().count()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn bytes(&self) -> Option<&[u8]> {
        Some(self.0.as_bytes())
    }
}

/// The bytes of the file at `path`, or of the text registered under it.
pub fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    match get(path) {
        Some(held) => held.bytes().map(<[u8]>::to_vec).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "a table given as data, not a text",
            )
        }),
        None => std::fs::read(path),
    }
}

/// [`read`] as UTF-8 text (as `std::fs::read_to_string`).
pub fn read_to_string(path: &Path) -> std::io::Result<String> {
    String::from_utf8(read(path)?)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

type Entry = (Arc<dyn MemoryTable>, usize);

fn registry() -> &'static Mutex<HashMap<PathBuf, Entry>> {
    static REGISTRY: std::sync::OnceLock<Mutex<HashMap<PathBuf, Entry>>> =
        std::sync::OnceLock::new();
    REGISTRY.get_or_init(|| Mutex::new(HashMap::new()))
}

/// A table registered under [`Registration::path`] while this lives.
#[derive(Debug)]
pub struct Registration {
    path: PathBuf,
}

impl Registration {
    /// The name the table is read by, in place of a file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut map = registry().lock().unwrap_or_else(|e| e.into_inner());
        if let Some(entry) = map.get_mut(&self.path) {
            entry.1 -= 1;
            if entry.1 == 0 {
                map.remove(&self.path);
            }
        }
    }
}

/// Registers `table` under `name` (or `name #2`, ... when another table
/// holds that name now; the same table shares it).
pub fn register(name: &str, table: Arc<dyn MemoryTable>) -> Registration {
    let mut map = registry().lock().unwrap_or_else(|e| e.into_inner());
    let mut n = 1;
    loop {
        let path = if n == 1 {
            PathBuf::from(name)
        } else {
            PathBuf::from(format!("{name} #{n}"))
        };
        match map.get_mut(&path) {
            None => {
                map.insert(path.clone(), (table, 1));
                return Registration { path };
            }
            Some((held, count)) if Arc::ptr_eq(held, &table) => {
                *count += 1;
                return Registration { path };
            }
            Some(_) => n += 1,
        }
    }
}

/// The table registered under `path`, if any.
pub fn get(path: &Path) -> Option<Arc<dyn MemoryTable>> {
    let map = registry().lock().unwrap_or_else(|e| e.into_inner());
    map.get(path).map(|(t, _)| Arc::clone(t))
}

/// Whether `path` names a table in memory, not a file.
pub fn is_in_memory(path: &Path) -> bool {
    get(path).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fake(usize);
    impl MemoryTable for Fake {
        fn sha256(&self) -> String {
            format!("{:064}", self.0)
        }
        fn rows(&self) -> usize {
            self.0
        }
        fn as_any(&self) -> &dyn Any {
            self
        }
    }

    /// A name is held while registered; a different table gets the next
    /// free name, the same table shares it; dropping frees it.
    #[test]
    fn names_are_held_shared_and_freed() {
        let a: Arc<dyn MemoryTable> = Arc::new(Fake(3));
        let b: Arc<dyn MemoryTable> = Arc::new(Fake(4));
        let name = "x.DataFrame in memory (test-registry=)";
        let ra = register(name, Arc::clone(&a));
        let ra2 = register(name, Arc::clone(&a));
        let rb = register(name, b);
        assert_eq!(ra.path(), Path::new(name));
        assert_eq!(ra2.path(), Path::new(name));
        assert_eq!(rb.path(), Path::new(&format!("{name} #2")));
        assert_eq!(get(rb.path()).map(|t| t.rows()), Some(4));
        drop(ra);
        assert!(is_in_memory(Path::new(name)), "still held by the second");
        drop(ra2);
        assert!(!is_in_memory(Path::new(name)));
        drop(rb);
        assert!(!is_in_memory(Path::new(&format!("{name} #2"))));
    }

    /// A text is read as a file's bytes and hashed as the file would be;
    /// a table is no text; an unregistered path is the file's.
    #[test]
    fn texts_are_read_in_place_of_files() {
        let name = "dict in memory (test-read)/x.toml";
        let text = register(name, Arc::new(MemoryText("a = 1\n".into())));
        assert_eq!(read_to_string(text.path()).unwrap(), "a = 1\n");
        assert_eq!(
            get(text.path()).unwrap().sha256(),
            // `printf 'a = 1\n' | sha256sum`
            "cb78bd8a17f7b751fe0d4663366dcbc257204033ef7ddd64b1f2969573b5b2e2"
        );
        let table = register("t (test-read)", Arc::new(Fake(1)));
        assert!(read(table.path()).is_err());
        assert!(read(Path::new("/no/such/file (test-read)")).is_err());
    }
}
