//! A pmlogextract killed (SIGKILL) at any moment leaves either no output or the
//! whole output, never a partial archive under the output's name; the hidden
//! temporary files it leaves are removed by the next run beside them.

/// When each run is killed (microseconds after it starts): from before its
/// first write to after its last.
const MOMENTS: [u64; 6] = [0, 2000, 10_000, 30_000, 60_000, 120_000];

#[test]
fn a_killed_run_leaves_no_partial_output_and_the_next_sweeps() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = test_support::wide_archive(dir.path(), 4000);
    let bin = env!("CARGO_BIN_EXE_pmlogextract");
    let left = test_support::kill_check(bin, &[&input], dir.path(), &MOMENTS);
    eprintln!("{left} temporary files left by the killed runs, swept");
}
