//! The one parallel map of the kinds: `f(i)` for every `i` in `0..n` on a
//! given number of scoped threads, each thread a consecutive run of
//! indices, results in index order whatever the thread count (so numbers
//! computed this way do not depend on it: uncertainty spec 2.4), and the
//! default thread count of the bootstraps.
//!
//! No I/O; knows no kind.

/// The threads a bootstrap uses by default: the available parallelism,
/// at most 16.
pub fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 16)
}

/// Runs `f(i)` for every `i` in `0..n` on `threads` threads (at least one;
/// thread `t` runs a consecutive run of `ceil(n / threads)` indices); the
/// result of `i` is at index `i` whatever the thread count.
pub fn parallel<T: Send>(threads: usize, n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = threads.max(1);
    let chunk = n.div_ceil(threads).max(1);
    let mut out: Vec<Option<T>> = (0..n).map(|_| None).collect();
    std::thread::scope(|scope| {
        for (c, slots) in out.chunks_mut(chunk).enumerate() {
            let f = &f;
            scope.spawn(move || {
                for (i, slot) in slots.iter_mut().enumerate() {
                    *slot = Some(f(c * chunk + i));
                }
            });
        }
    });
    out.into_iter()
        .map(|x| x.expect("every index ran"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_in_index_order_whatever_the_threads() {
        let want: Vec<usize> = (0..37).map(|i| i * i).collect();
        for threads in [0, 1, 2, 5, 36, 37, 100] {
            assert_eq!(parallel(threads, 37, |i| i * i), want, "{threads} threads");
        }
        assert!(parallel(4, 0, |i| i).is_empty());
        assert!(default_threads() >= 1 && default_threads() <= 16);
    }
}
