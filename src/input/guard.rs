//! Stage 2 (input): containing failures of third-party parsers. polars
//! (parquet, CSV) and calamine (xlsx) can panic on a damaged file, and
//! polars can ask for an absurd amount of memory when a damaged file claims
//! billions of values, which would abort the process. [`guarded`] turns a
//! panic into an error that names the file; [`ParserAllocator`], registered
//! by the binary as its global allocator, turns an allocation larger than
//! the computer's memory made inside [`guarded`] into a clean exit (a
//! message naming the file, exit code 1) instead of an abort. Being the
//! process's allocator, it is also where large blocks get the huge-page
//! hint ([`ParserAllocator`]) and malloc its settings ([`configure_malloc`]).

use std::alloc::{GlobalAlloc, Layout, System};
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
pub fn in_guarded_parser() -> bool {
    ACTIVE.load(Ordering::SeqCst) > 0
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

/// The system allocator, except that an allocation larger than the
/// computer's memory requested while a parser reads a file (inside
/// [`guarded`]) ends the process with an error naming the file and exit
/// code 1, rather than aborting with "memory allocation failed". Register
/// it in a binary: `#[global_allocator] static A: ParserAllocator = ParserAllocator;`.
pub struct ParserAllocator;

impl ParserAllocator {
    #[inline]
    fn check(size: usize) {
        if size > LIMIT.load(Ordering::Relaxed) && in_guarded_parser() {
            damaged_file_exit(size);
        }
    }
}

#[cold]
fn damaged_file_exit(size: usize) -> ! {
    use std::io::Write;
    // Small allocations still work here (they are below the limit).
    let file = FILE.try_lock().ok().and_then(|f| (*f).clone());
    let mut err = std::io::stderr().lock();
    let _ = match file {
        Some(p) => writeln!(
            err,
            "error: cannot read {}: the file is damaged or not a valid {} file (reading it \
             would need {size} bytes of memory)",
            p.display(),
            p.extension()
                .map(|e| e.to_string_lossy())
                .unwrap_or_default()
        ),
        None => writeln!(
            err,
            "error: cannot read an input file: it is damaged (reading it would need {size} \
             bytes of memory)"
        ),
    };
    let _ = err.flush();
    std::process::exit(1)
}

// SAFETY: every call is forwarded to `System` unchanged; `check` only reads
// atomics and may end the process.
unsafe impl GlobalAlloc for ParserAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        Self::check(layout.size());
        advise(unsafe { System.alloc(layout) }, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        Self::check(layout.size());
        advise(unsafe { System.alloc_zeroed(layout) }, layout.size())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        Self::check(new_size);
        advise(unsafe { System.realloc(ptr, layout, new_size) }, new_size)
    }
}

/// Large blocks (over 32 MiB: the columns and output buffers of big runs)
/// are advised to use transparent huge pages where the kernel leaves that
/// to the program (`/sys/kernel/mm/transparent_hugepage/enabled` =
/// `madvise`, the common default): a 10M-response run otherwise takes about
/// two million page faults, a third of its time in the kernel. glibc maps
/// blocks this large on their own (its mmap threshold is at most 32 MiB),
/// so the advice never reaches memory that small allocations reuse. Only
/// the whole 2 MiB pages inside the block are advised; the advice changes
/// nothing about the memory's contents, and `errno` is kept as it was.
#[inline]
fn advise(ptr: *mut u8, size: usize) -> *mut u8 {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        if size > 16 * HUGE && !ptr.is_null() {
            let start = (ptr as usize).next_multiple_of(HUGE);
            let end = (ptr as usize + size) & !(HUGE - 1);
            if end > start {
                // SAFETY: the range lies inside the block just allocated;
                // MADV_HUGEPAGE is only a hint, and a failure is harmless.
                // `__errno_location` (glibc and musl) gives this thread's
                // errno, restored so that a caller never sees our failure.
                unsafe {
                    let errno = sys::__errno_location();
                    let saved = *errno;
                    sys::madvise(start as *mut u8, end - start, sys::MADV_HUGEPAGE);
                    *errno = saved;
                }
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = size;
    ptr
}

/// Settings of glibc's malloc for this process, made once at start (the
/// binary calls this first thing in `main`): one malloc arena per four
/// cores (one on this project's 2-core benchmark machine) instead of one
/// per thread. With one arena per thread, the reading threads grow their
/// own heaps a few pages at a time (over 100,000 `mprotect` calls at 10M
/// responses) and keep what they freed to themselves, which raised the
/// peak memory; a few arenas keep lock contention low on larger machines.
pub fn configure_malloc() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let arenas = i32::try_from(cores.div_ceil(4)).unwrap_or(i32::MAX);
        // SAFETY: `mallopt` only changes malloc's parameters; it is called
        // before any other thread exists.
        unsafe {
            sys::mallopt(sys::M_ARENA_MAX, arenas);
        }
    }
}

#[cfg(target_os = "linux")]
mod sys {
    pub const MADV_HUGEPAGE: i32 = 14;
    #[cfg(target_env = "gnu")]
    pub const M_ARENA_MAX: i32 = -8;
    unsafe extern "C" {
        pub fn madvise(addr: *mut u8, len: usize, advice: i32) -> i32;
        pub fn __errno_location() -> *mut i32;
        #[cfg(target_env = "gnu")]
        pub fn mallopt(param: i32, value: i32) -> i32;
    }
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
