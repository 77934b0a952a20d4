//! pmlogger under signals, as a running recorder meets them: SIGKILL in the middle
//! of a recording leaves an archive PCP's pmlogcheck calls clean and PCP's
//! pmdumplog reads record by record; a volume torn in the middle of its last record
//! (a machine that stopped mid-write) is mended by our `pmlogcheck --repair` so that
//! PCP's pmlogcheck calls it clean; SIGHUP starts a new volume; SIGINT closes the
//! archive as SIGTERM does. Recorded from the built-in source and, where one runs,
//! from pmcd.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

use archive_format::Archive;

const BUILTIN: &str = "log mandatory on 20 msec { kernel.all.load hinv.ncpu mem.util.used }\n";
const PMCD: &str = "log mandatory on 20 msec { sample.long.one sample.colour sample.bin }\n";

/// Our pmlogger recording `config` from `source` into `dir/arch`, until stopped.
fn start(dir: &Path, source: &str, config: &str) -> (Child, PathBuf) {
    let cfg = dir.join("config");
    std::fs::write(&cfg, config).expect("config");
    let base = dir.join("arch");
    let child = Command::new(env!("CARGO_BIN_EXE_pmlogger"))
        .args(["-h", source, "-l"])
        .arg(dir.join("log"))
        .arg("-c")
        .arg(&cfg)
        .arg(&base)
        .spawn()
        .expect("pmlogger starts");
    (child, base)
}

/// Waits until the archive has `n` records (a readiness wait: as many polls as it
/// takes within a minute).
fn wait_for_records(base: &Path, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let have = Archive::open(base.to_string_lossy())
            .map(|a| a.records().take_while(|r| r.is_ok()).count())
            .unwrap_or(0);
        if have >= n {
            return;
        }
        assert!(Instant::now() < deadline, "only {have} records in a minute");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([&format!("-{sig}"), &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(ok.success(), "kill -{sig}");
}

fn reference(tool: &str, args: &[&str]) -> Output {
    Command::new(tool)
        .args(args)
        .env("TZ", "UTC")
        .output()
        .unwrap_or_else(|e| panic!("{tool}: {e}"))
}

/// PCP's pmlogcheck finds nothing to say of the archive.
fn assert_clean(base: &Path, what: &str) {
    let out = reference("pmlogcheck", &[&base.to_string_lossy()]);
    assert!(
        out.status.success() && out.stdout.is_empty() && out.stderr.is_empty(),
        "{what}: PCP's pmlogcheck: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The records PCP's pmdumplog prints, and whether it read to the end without error.
fn reference_records(base: &Path) -> (usize, bool) {
    let out = reference("pmdumplog", &["-m", &base.to_string_lossy()]);
    let text = String::from_utf8_lossy(&out.stdout);
    let n = text
        .lines()
        .filter(|l| l.len() > 12 && l.as_bytes()[2] == b':' && l.contains(" metric"))
        .count();
    (n, out.status.success() && out.stderr.is_empty())
}

fn our_records(base: &Path) -> usize {
    let a = Archive::open(base.to_string_lossy()).expect("our reader opens it");
    let mut n = 0;
    for r in a.records() {
        r.expect("every record whole");
        n += 1;
    }
    n
}

/// Where PCP's pmcd with its sample agent answers, that source; else `None`.
fn pmcd() -> Option<&'static str> {
    let up = Command::new("pminfo")
        .arg("sample.long.one")
        .output()
        .is_ok_and(|o| o.status.success());
    if up {
        return Some("local:");
    }
    test_support::skip("pmcd with the sample agent is not running");
    None
}

fn killed_mid_recording(source: &str, config: &str) {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut child, base) = start(dir.path(), source, config);
    wait_for_records(&base, 12);
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    let ours = our_records(&base);
    assert!(ours >= 12, "{ours} records");
    assert_clean(&base, "killed");
    let (theirs, clean) = reference_records(&base);
    assert!(
        clean,
        "PCP's pmdumplog read the killed archive with an error"
    );
    assert_eq!(theirs, ours, "records PCP's pmdumplog reads");

    // the machine stopped in the middle of writing the last record
    let vol = base.with_extension("0");
    let len = std::fs::metadata(&vol).expect("volume").len();
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&vol)
        .expect("volume");
    f.set_len(len - 7).expect("torn");
    drop(f);
    let torn = reference("pmlogcheck", &[&base.to_string_lossy()]);
    assert!(!torn.status.success(), "PCP's pmlogcheck saw no damage");
    let args = vec!["--repair".to_string(), base.to_string_lossy().into_owned()];
    let (mut out, mut err) = (Vec::new(), Vec::new());
    pmlogcheck::run(&args, &mut out, &mut err);
    assert_clean(&base, "repaired");
    let (theirs, clean) = reference_records(&base);
    assert!(
        clean,
        "PCP's pmdumplog read the repaired archive with an error"
    );
    assert_eq!(theirs, ours - 1, "every whole record is left");
}

#[test]
fn killed_while_recording_the_builtin_source() {
    if !test_support::have_tool("pmlogcheck") {
        return;
    }
    killed_mid_recording("@builtin", BUILTIN);
}

#[test]
fn killed_while_recording_from_pmcd() {
    if !test_support::have_tool("pmlogcheck") {
        return;
    }
    if let Some(source) = pmcd() {
        killed_mid_recording(source, PMCD);
    }
}

#[test]
fn sighup_starts_a_volume_and_sigint_closes_the_archive() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut child, base) = start(dir.path(), "@builtin", BUILTIN);
    wait_for_records(&base, 4);
    signal(&child, "HUP");
    let vol1 = base.with_extension("1");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !vol1.exists() {
        assert!(Instant::now() < deadline, "no volume 1 after SIGHUP");
        std::thread::sleep(Duration::from_millis(20));
    }
    let before = our_records(&base);
    wait_for_records(&base, before + 3);
    signal(&child, "INT");
    let status = child.wait().expect("pmlogger");
    assert!(status.success(), "pmlogger after SIGINT: {status}");
    // closed as on SIGTERM: an epilogue last, and both volumes in use
    let a = Archive::open(base.to_string_lossy()).expect("archive");
    let recs: Vec<_> = a.records().map(|r| r.expect("record").1).collect();
    let pm_host = archive_format::PmId::new(2, 3, 3);
    let last = recs.last().expect("records");
    assert_eq!(
        last.vsets.first().map(|v| v.pmid),
        Some(pm_host),
        "the epilogue"
    );
    assert!(std::fs::metadata(&vol1).expect("volume 1").len() > 132);
    if test_support::have_tool("pmlogcheck") {
        assert_clean(&base, "after SIGHUP and SIGINT");
    }
}
