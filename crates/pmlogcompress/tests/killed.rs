//! pmlogcompress and pmlogdecompress killed (SIGKILL) at moments from before
//! their first write to after their last: each file of the archive is then
//! there plain, or compressed, or (killed between the rename and the removal
//! of the source) both with the same bytes; never a partial file under
//! either name. The next run completes the work and sweeps what the killed
//! one left: no hidden file stays.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

const COMPRESS: &str = env!("CARGO_BIN_EXE_pmlogcompress");
const DECOMPRESS: &str = env!("CARGO_BIN_EXE_pmlogdecompress");
/// When each run is killed (microseconds after it starts).
const MOMENTS: [u64; 7] = [0, 1000, 5000, 20_000, 60_000, 150_000, 400_000];
const FILES: [&str; 2] = ["0", "meta"];

/// The bytes `file` (plain, or `.xz`) holds, if it is there.
fn bytes(file: &str) -> Option<Vec<u8>> {
    let packed = format!("{file}.xz");
    let plain = std::fs::read(file).ok();
    let unpacked = Path::new(&packed).exists().then(|| {
        let mut out = Vec::new();
        let f = std::fs::File::open(&packed).expect("opens");
        let mut d = archive_format::compress::decoder(archive_format::compress::Compression::Xz, f)
            .expect("a decoder");
        std::io::Read::read_to_end(&mut d, &mut out).expect("a whole .xz file");
        out
    });
    if let (Some(a), Some(b)) = (&plain, &unpacked) {
        assert_eq!(a, b, "{file} and {packed} differ");
    }
    plain.or(unpacked)
}

/// Runs `bin` over `base`, killed after `micros`.
fn killed(bin: &str, args: &[&str], base: &str, micros: u64) {
    let mut child = Command::new(bin)
        .args(args)
        .arg(base)
        .spawn()
        .expect("starts");
    std::thread::sleep(Duration::from_micros(micros));
    let _ = child.kill();
    let _ = child.wait();
}

fn finish(bin: &str, args: &[&str], base: &str) {
    let out = Command::new(bin)
        .args(args)
        .arg(base)
        .output()
        .expect("runs");
    assert!(out.status.success(), "{bin}: {out:?}");
}

#[test]
fn a_killed_run_leaves_whole_files_and_the_next_completes_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = test_support::wide_archive(dir.path(), 6000);
    let want: Vec<Vec<u8>> = FILES
        .iter()
        .map(|e| std::fs::read(format!("{base}.{e}")).expect("reads"))
        .collect();
    let check = |packed: bool| {
        for (e, want) in FILES.iter().zip(&want) {
            let f = format!("{base}.{e}");
            assert_eq!(bytes(&f).as_ref(), Some(want), "{f}");
            if packed {
                assert!(!Path::new(&f).exists(), "{f} left beside its .xz");
            } else {
                assert!(!Path::new(&format!("{f}.xz")).exists(), "{f}.xz left");
            }
        }
    };
    let compress = ["-l", "0", "-f", "xz"];
    let mut left = Vec::new();
    for micros in MOMENTS {
        killed(COMPRESS, &compress, &base, micros);
        left.push(test_support::hidden_files(dir.path()).len());
        FILES.iter().for_each(|e| {
            bytes(&format!("{base}.{e}")).expect("plain or compressed");
        });
        finish(COMPRESS, &compress, &base);
        check(true);
        assert_eq!(test_support::hidden_files(dir.path()), Vec::<String>::new());

        killed(DECOMPRESS, &[], &base, micros);
        left.push(test_support::hidden_files(dir.path()).len());
        FILES.iter().for_each(|e| {
            bytes(&format!("{base}.{e}")).expect("plain or compressed");
        });
        finish(DECOMPRESS, &[], &base);
        check(false);
        assert_eq!(test_support::hidden_files(dir.path()), Vec::<String>::new());
    }
    eprintln!("temporary files left by each killed run, then swept: {left:?}");
}
