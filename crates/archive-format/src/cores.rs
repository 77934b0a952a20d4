//! How many threads one job of the library or a tool uses.

/// The environment variable that sets how many threads a job uses (at least 1);
/// without it, the machine's available parallelism.
pub const THREADS_ENV: &str = "PCPRS_THREADS";

/// How many threads a job uses: [`THREADS_ENV`] when it holds a positive number,
/// else what the system says is available (1 if it cannot say).
pub fn threads() -> usize {
    std::env::var(THREADS_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
