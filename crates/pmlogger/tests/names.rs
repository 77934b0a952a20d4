//! Archive names with strftime(3) conversions, and SIGUSR2: the archive is closed
//! and the logger runs itself again into a new archive named for the new time, as
//! PCP's pmlogger does (pmlogger_daily relies on both).

use archive_format::Archive;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// Waits (bounded) until `cond` holds; readiness, not a fixed sleep.
fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    let end = Instant::now() + Duration::from_secs(30);
    while !cond() {
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn basenames(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.strip_prefix("Archive basename: "))
        .map(str::to_string)
        .collect()
}

#[test]
fn strftime_names_and_sigusr2_start_a_new_archive() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cfg = dir.path().join("config");
    std::fs::write(
        &cfg,
        "log mandatory on 50 msec { sample.long.one sample.colour }\n",
    )
    .expect("config");
    let log = dir.path().join("log");
    let template = dir.path().join("a-%Y%m%d.%H.%M.%S");
    let mut child = Command::new(env!("CARGO_BIN_EXE_pmlogger"))
        .args(["-h", "@sample", "-T", "60sec", "-c"])
        .arg(&cfg)
        .arg("-l")
        .arg(&log)
        .arg(&template)
        .spawn()
        .expect("spawn");
    wait_until("the first archive", || basenames(&log).len() == 1);
    let first = basenames(&log).remove(0);
    assert!(!first.contains('%'), "{first}");
    let prefix = dir.path().join("a-").to_string_lossy().into_owned();
    let stamp = first
        .strip_prefix(&prefix)
        .expect("named from the template");
    assert_eq!(stamp.len(), "20261124.06.55.49".len(), "{stamp}");
    assert!(stamp.bytes().all(|b| b.is_ascii_digit() || b == b'.'));
    let has_records = |base: &str| {
        Archive::open(base)
            .map(|a| a.records().filter(|r| r.is_ok()).count() >= 3)
            .unwrap_or(false)
    };
    wait_until("records in the first archive", || has_records(&first));
    // the new archive is named for a later second than the first one
    let now_name = || {
        let t = jiff::Timestamp::now().to_zoned(cli_common::zone::local());
        jiff::fmt::strtime::format("%Y%m%d.%H.%M.%S", &t).expect("format")
    };
    wait_until("the next second", || now_name().as_str() > stamp);
    let pid = child.id().to_string();
    assert!(Command::new("kill")
        .args(["-USR2", &pid])
        .status()
        .expect("kill")
        .success());
    wait_until("the second archive", || basenames(&log).len() == 2);
    let second = basenames(&log).remove(1);
    assert_ne!(first, second);
    wait_until("records in the second archive", || has_records(&second));
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill")
        .success());
    assert!(child.wait().expect("wait").success());
    // the first was closed whole (prologue, samples, epilogue) and both read back
    let a = Archive::open(&first).expect("first archive");
    let recs: Vec<_> = a.records().map(|r| r.expect("record").1).collect();
    assert!(recs.len() >= 3);
    let pm_host = archive_format::PmId::new(2, 3, 3);
    assert_eq!(recs[recs.len() - 1].vsets[0].pmid, pm_host);
    assert!(has_records(&second));
    let text = std::fs::read_to_string(&log).expect("log");
    assert!(text.contains("Caught signal 12, reexec"), "{text}");
    assert!(
        text.contains("reexec cmdlne:") && text.contains("-mreexec"),
        "{text}"
    );
    // one header for the whole log, one footer
    assert_eq!(text.matches("Log for pmlogger on").count(), 1, "{text}");
    assert_eq!(text.matches("Log finished").count(), 1, "{text}");
}
