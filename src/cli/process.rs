//! The process-wide settings of the binary, which the library never
//! makes: the global allocator ([`ParserAllocator`]: a clean exit when a
//! damaged file makes a parser ask for more memory than the computer has,
//! and the huge-page hint for large blocks), glibc's malloc settings
//! ([`configure_malloc`]; [`reuse_freed_memory`] for `classify`) and the
//! panic hook that keeps a panic inside a guarded third-party parser
//! (which the library turns into an error naming the file) off the
//! terminal, and the SIGBUS handler that lets the library map large input
//! files ([`handle_bus_error`]).

use rsmreport_io::input::{allocation_limit, guarded_file, in_guarded_parser};
use std::alloc::{GlobalAlloc, Layout, System};

/// Everything process-wide, in `main` before any other thread starts:
/// malloc's settings (with [`reuse_freed_memory`] when `classify`, the
/// command being `classify`) and the panic hook (the allocator is
/// registered in `main.rs`).
pub fn install(classify: bool) {
    configure_malloc();
    if classify {
        reuse_freed_memory();
    }
    handle_bus_error();
    // A panic inside a third-party file parser is turned into an error that
    // names the file (`input::guarded`): do not print it as a panic.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !in_guarded_parser() {
            default_hook(info);
        }
    }));
}

/// Handles SIGBUS, which a mapped input file raises when another program
/// shortens it while it is read, with an error naming the file (the
/// library's `input::mapped`) and exit code 1 (a data error), instead of
/// "Bus error" and a core dump; then lets the library map large files.
fn handle_bus_error() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `on_bus_error` only reads atomics and calls the
        // async-signal-safe `write` and `_exit`.
        let previous = unsafe { sys::signal(sys::SIGBUS, on_bus_error as *const () as usize) };
        if previous != sys::SIG_ERR {
            rsmreport_io::input::mapped::allow_mapping();
        }
    }
}

#[cfg(target_os = "linux")]
extern "C" fn on_bus_error(_signal: i32) {
    let mut name = [0u8; 1024];
    let len = rsmreport_io::input::mapped::mapped_file(&mut name);
    let write = |bytes: &[u8]| {
        // SAFETY: writes the bytes of a live slice to stderr.
        unsafe { sys::write(2, bytes.as_ptr(), bytes.len()) };
    };
    write(b"error: ");
    if len > 0 {
        write(&name[..len]);
        write(b": ");
    }
    write(
        b"the file got shorter while it was being read (another program rewrote or truncated \
          it); run again once that program has finished writing it\n",
    );
    // SAFETY: ends the process at once, as a signal handler may.
    unsafe { sys::_exit(1) }
}

/// The system allocator, except that an allocation larger than the
/// computer's memory requested while a parser reads a file (inside
/// `rsmreport_io::input`'s guarded parsers) ends the process with an error
/// naming the file and exit code 1, rather than aborting with "memory
/// allocation failed".
pub struct ParserAllocator;

impl ParserAllocator {
    #[inline]
    fn check(size: usize) {
        if size > allocation_limit() && in_guarded_parser() {
            damaged_file_exit(size);
        }
    }
}

#[cold]
fn damaged_file_exit(size: usize) -> ! {
    use std::io::Write;
    // Small allocations still work here (they are below the limit).
    let file = guarded_file();
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
/// binary calls this first thing in `main`, through [`install`]): one malloc
/// arena per four cores, and at least two, instead of one per thread. With
/// one arena per thread, the reading threads grow their own heaps a few
/// pages at a time (over 100,000 `mprotect` calls at 10M responses) and
/// keep what they freed to themselves, which raised the peak memory; a few
/// arenas keep lock contention low on larger machines. One arena alone
/// serialised every allocation of two working threads on a 2-core machine
/// (sequence's statistics: 100,000 futex calls on 20,000 segments).
pub fn configure_malloc() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let arenas = i32::try_from(cores.div_ceil(4).max(2)).unwrap_or(i32::MAX);
        // SAFETY: `mallopt` only changes malloc's parameters; it is called
        // before any other thread exists.
        unsafe {
            sys::mallopt(sys::M_ARENA_MAX, arenas);
        }
    }
}

/// For `classify`, which frees and allocates blocks of a few MiB over
/// and over (a million items: a sort buffer, a curve and an order per
/// class and system): glibc's mmap threshold fixed at 32 MiB (its
/// largest dynamic value) and its trim threshold at 256 MiB, so such a
/// block freed is reused from malloc's heap instead of being given back
/// and faulted in again as fresh zeroed pages. On 1M x 3 x 10 with 6
/// decimals (parquet), page faults 280k -> 175k and system time 0.9-1.0
/// -> 0.6 s, peak memory unchanged (700 MB); from CSV, whose reading frees
/// more, the peak is 707 -> 824 MB. Blocks over 32 MiB are still mapped
/// on their own (and advised to use huge pages, [`advise`]).
///
/// Called from [`install`], not by the command: the Python module, which
/// runs commands in its own process, leaves malloc as it is.
fn reuse_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only changes malloc's parameters; it is called
    // before any other thread exists.
    unsafe {
        sys::mallopt(sys::M_MMAP_THRESHOLD, 32 << 20);
        sys::mallopt(sys::M_TRIM_THRESHOLD, 256 << 20);
    }
}

#[cfg(target_os = "linux")]
mod sys {
    pub const MADV_HUGEPAGE: i32 = 14;
    #[cfg(target_os = "linux")]
    pub const SIGBUS: i32 = 7;
    #[cfg(target_os = "linux")]
    pub const SIG_ERR: usize = usize::MAX;
    #[cfg(target_env = "gnu")]
    pub const M_ARENA_MAX: i32 = -8;
    #[cfg(target_env = "gnu")]
    pub const M_TRIM_THRESHOLD: i32 = -1;
    #[cfg(target_env = "gnu")]
    pub const M_MMAP_THRESHOLD: i32 = -3;
    unsafe extern "C" {
        pub fn madvise(addr: *mut u8, len: usize, advice: i32) -> i32;
        pub fn __errno_location() -> *mut i32;
        #[cfg(target_os = "linux")]
        pub fn signal(signum: i32, handler: usize) -> usize;
        #[cfg(target_os = "linux")]
        pub fn write(fd: i32, buf: *const u8, count: usize) -> isize;
        #[cfg(target_os = "linux")]
        pub fn _exit(status: i32) -> !;
        #[cfg(target_env = "gnu")]
        pub fn mallopt(param: i32, value: i32) -> i32;
    }
}
