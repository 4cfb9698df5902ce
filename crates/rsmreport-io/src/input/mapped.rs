//! Stage 2 (input): whether large input files may be mapped into memory
//! instead of copied, and which mapped file is being read.
//!
//! A mapped file that another program shortens while it is read ends the
//! process with the signal SIGBUS, which only the process can handle. So
//! the library maps nothing until its host says it handles that signal
//! ([`allow_mapping`]): the binary installs a SIGBUS handler (`cli::process`)
//! that prints an error naming the file ([`mapped_file`]) and exits with
//! code 1; any other host (the Python module, a test) gets copies, which a
//! shrinking file cannot break (it reads what was there, and the reader
//! refuses a cut record like any damaged file).
//!
//! Holds only atomics, so that a signal handler may read them; touches no
//! file and changes no process-wide setting.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};

/// Whether the host handles SIGBUS (set once by the binary).
static ALLOWED: AtomicBool = AtomicBool::new(false);
/// The path of the file being read through a map (its first bytes), and
/// its length in bytes (0: none).
const MAX_NAME: usize = 1024;
static NAME: [AtomicU8; MAX_NAME] = [const { AtomicU8::new(0) }; MAX_NAME];
static NAME_LEN: AtomicUsize = AtomicUsize::new(0);

/// Lets the library map large input files. Call it only after installing a
/// handler of SIGBUS that ends the process with a message (it may name the
/// file with [`mapped_file`]).
pub fn allow_mapping() {
    ALLOWED.store(true, Ordering::SeqCst);
}

/// Whether large files may be mapped.
pub(crate) fn mapping_allowed() -> bool {
    ALLOWED.load(Ordering::SeqCst)
}

/// Copies the path of the file being read through a map into `buf` and
/// returns its length (0: no file is mapped now). Only reads atomics: safe
/// in a signal handler.
pub fn mapped_file(buf: &mut [u8]) -> usize {
    let len = NAME_LEN.load(Ordering::SeqCst).min(buf.len());
    for (b, a) in buf.iter_mut().zip(&NAME).take(len) {
        *b = a.load(Ordering::Relaxed);
    }
    len
}

/// Marks `path` as the mapped file being read until the guard is dropped.
pub(crate) fn reading(path: &Path) -> Reading {
    let bytes = path.as_os_str().as_encoded_bytes();
    let len = bytes.len().min(MAX_NAME);
    NAME_LEN.store(0, Ordering::SeqCst);
    for (a, &b) in NAME.iter().zip(&bytes[..len]) {
        a.store(b, Ordering::Relaxed);
    }
    NAME_LEN.store(len, Ordering::SeqCst);
    Reading
}

/// The mark of [`reading`]; dropping it clears the name.
pub(crate) struct Reading;

impl Drop for Reading {
    fn drop(&mut self) {
        NAME_LEN.store(0, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mapped_file_is_named_while_it_is_read() {
        let mut buf = [0u8; 64];
        {
            let _r = reading(Path::new("data/big.csv"));
            let n = mapped_file(&mut buf);
            assert_eq!(&buf[..n], b"data/big.csv");
        }
        assert_eq!(mapped_file(&mut buf), 0);
    }
}
