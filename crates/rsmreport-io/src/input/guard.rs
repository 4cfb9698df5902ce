//! Stage 2 (input): containing failures of third-party parsers. polars
//! (parquet, CSV) and calamine (xlsx) can panic on a damaged file, and
//! polars can ask for an absurd amount of memory when a damaged file claims
//! billions of values, which would abort the process. [`guarded`] turns a
//! panic into an error that names the file, and says which file is being
//! parsed ([`in_guarded_parser`], [`guarded_file`]) and how large an
//! allocation cannot succeed ([`allocation_limit`]): the binary's global
//! allocator (`cli::process`) reads these to end the process cleanly
//! instead of aborting. The library installs no allocator or panic hook
//! and changes no process-wide setting.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Number of [`guarded`] calls in progress.
static ACTIVE: AtomicUsize = AtomicUsize::new(0);
/// The file the last [`guarded`] call reads (for the message).
static FILE: Mutex<Option<PathBuf>> = Mutex::new(None);
/// Allocations above this size inside [`guarded`] end the process cleanly
/// (`usize::MAX` until the first [`guarded`] call measures the memory).
static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);

/// Whether a call into a third-party parser is in progress: a panic now is
/// caught by [`guarded`] and becomes an error that names the file, so the
/// binary's panic hook stays silent.
#[inline]
pub fn in_guarded_parser() -> bool {
    ACTIVE.load(Ordering::SeqCst) > 0
}

/// The file the current (or last) [`guarded`] call reads, when it can be
/// had without waiting.
pub fn guarded_file() -> Option<PathBuf> {
    FILE.try_lock().ok().and_then(|f| (*f).clone())
}

/// The size above which an allocation cannot succeed (physical memory
/// plus swap), `usize::MAX` until the first [`guarded`] call measures it.
#[inline]
pub fn allocation_limit() -> usize {
    LIMIT.load(Ordering::Relaxed)
}

/// Runs `f`, a call into a third-party parser reading `path`; a panic
/// inside it is caught and returned as `Err` with its message.
pub(crate) fn guarded<T>(path: &Path, f: impl FnOnce() -> T) -> Result<T, String> {
    struct Active;
    impl Drop for Active {
        fn drop(&mut self) {
            ACTIVE.fetch_sub(1, Ordering::SeqCst);
        }
    }
    if LIMIT.load(Ordering::SeqCst) == usize::MAX {
        LIMIT.store(memory_limit(), Ordering::SeqCst);
    }
    if let Ok(mut file) = FILE.lock() {
        *file = Some(path.to_path_buf());
    }
    ACTIVE.fetch_add(1, Ordering::SeqCst);
    let _active = Active;
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown failure".to_string())
    })
}

/// Physical memory plus swap (Linux `/proc/meminfo`), else 1 TiB: a single
/// allocation larger than this cannot succeed.
fn memory_limit() -> usize {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .map(|text| {
            text.lines()
                .filter(|l| l.starts_with("MemTotal:") || l.starts_with("SwapTotal:"))
                .filter_map(|l| l.split_whitespace().nth(1)?.parse::<usize>().ok())
                .fold(0usize, usize::saturating_add)
                .saturating_mul(1024)
        })
        .filter(|&bytes| bytes > 0)
        .unwrap_or(1 << 40)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_errors_and_the_limit_is_measured() {
        let r = guarded(Path::new("x.parquet"), || -> u8 {
            panic!("thrift bool field")
        });
        assert_eq!(r.unwrap_err(), "thrift bool field");
        assert_eq!(guarded(Path::new("x.parquet"), || 7), Ok(7));
        assert!(!in_guarded_parser());
        let limit = LIMIT.load(Ordering::SeqCst);
        assert!((1 << 20..usize::MAX).contains(&limit), "{limit}");
    }
}
