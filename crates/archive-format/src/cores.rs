//! How many threads one job of the library or a tool uses.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The environment variable that sets how many threads a job uses (at least 1);
/// without it, the machine's available parallelism.
pub const THREADS_ENV: &str = "PCPRS_THREADS";

/// The default a program set with [`set_default`] (0: none).
static DEFAULT: AtomicUsize = AtomicUsize::new(0);

/// How many threads a job uses: [`THREADS_ENV`] when it holds a positive number,
/// else what the program set with [`set_default`], else what the system says is
/// available (1 if it cannot say).
pub fn threads() -> usize {
    std::env::var(THREADS_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .or_else(|| Some(DEFAULT.load(Ordering::Relaxed)).filter(|&n| n > 0))
        .unwrap_or_else(machine)
}

/// The threads the system says are available (1 if it cannot say).
pub fn machine() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Sets how many threads a job uses where [`THREADS_ENV`] does not say: for a
/// program that runs several jobs at once, each its share of the cores (0: the
/// machine's again).
pub fn set_default(n: usize) {
    DEFAULT.store(n, Ordering::Relaxed);
}
