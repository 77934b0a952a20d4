//! Helpers for the tests that run PCP's tools next to ours (shared by pmlc's and
//! pmlogger's tests). A test that needs the reference skips with a printed reason
//! where it is not there, and fails instead when REQUIRE_REFERENCE is set.
#![allow(dead_code)] // each test binary uses some of these

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

pub use test_support::skip;

/// Whether a pmcd answers on this host (pmlc resolves metric names through it);
/// when none does, [`skip`]s.
pub fn pmcd_answers() -> bool {
    let port: u16 = std::env::var("PMCD_PORT")
        .ok()
        .and_then(|p| p.split(',').next().and_then(|p| p.trim().parse().ok()))
        .unwrap_or(44321);
    let up = std::net::TcpStream::connect(("127.0.0.1", port)).is_ok();
    if !up {
        skip("no pmcd answers on this host to resolve metric names for pmlc");
    }
    up
}

/// PCP's pmlogger, when it is installed and the reference pmcd answers for
/// `probe` (a metric name); `None` (after [`skip`]) otherwise.
pub fn reference_pmlogger(probe: &str) -> Option<&'static Path> {
    let path = Path::new("/usr/lib/pcp/bin/pmlogger");
    let up = Command::new("pminfo")
        .arg(probe)
        .output()
        .is_ok_and(|o| o.status.success());
    if path.exists() && up {
        Some(path)
    } else {
        skip(&format!(
            "PCP's pmlogger is not installed or the reference pmcd has no {probe}"
        ));
        None
    }
}

/// A pmlogger serves one client at a time and turns others away with
/// EADDRINUSE; one that has just served a client (a readiness probe) may not have
/// let it go yet. Runs `pmlc` again until it is not turned away.
fn when_free<T>(pmlc: impl Fn() -> T, err: impl Fn(&T) -> &str) -> T {
    let t0 = std::time::Instant::now();
    loop {
        let got = pmlc();
        if !err(&got).contains("Address already in use")
            || t0.elapsed() > std::time::Duration::from_secs(60)
        {
            return got;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Runs PCP's pmlc on `script`: `(stdout, stderr)`, or `None` (after [`skip`])
/// when it is not installed.
pub fn pcp_pmlc(args: &[&str], script: &[u8]) -> Option<(String, String)> {
    when_free(
        || pcp_pmlc_once(args, script),
        |r| r.as_ref().map_or("", |(_, e)| e.as_str()),
    )
}

fn pcp_pmlc_once(args: &[&str], script: &[u8]) -> Option<(String, String)> {
    let Ok(mut p) = Command::new("pmlc")
        .args(args)
        .env_remove("PMLOGGER_PORT")
        .env_remove("PMLOGGER_LOCAL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    else {
        skip("PCP's pmlc is not installed");
        return None;
    };
    p.stdin
        .take()
        .expect("stdin")
        .write_all(script)
        .expect("script");
    let o = p.wait_with_output().expect("pmlc");
    Some((
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    ))
}

/// Runs our pmlc in-process on `script`: `(stdout, stderr, exit status)`.
pub fn our_pmlc(args: &[&str], script: &[u8]) -> (String, String, i32) {
    when_free(|| our_pmlc_once(args, script), |r| r.1.as_str())
}

fn our_pmlc_once(args: &[&str], script: &[u8]) -> (String, String, i32) {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut input = std::io::Cursor::new(script.to_vec());
    let rc = pmlc::run(&args, &mut input, &mut out, &mut err);
    (
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
        rc,
    )
}

/// Starts PCP's pmlogger (`pmlogger`, from [`reference_pmlogger`]) on `config`,
/// logging to `log`, for `samples` samples, into `archive`.
pub fn spawn_pcp_logger(
    pmlogger: &Path,
    config: &Path,
    log: &Path,
    samples: u32,
    archive: &Path,
) -> std::process::Child {
    Command::new(pmlogger)
        // a port the system picked (one held by another pmlogger is passed over)
        .env("PMLOGGER_PORT", test_support::free_port().to_string())
        .env_remove("PMLOGGER_LOCAL")
        .arg("-c")
        .arg(config)
        .arg("-l")
        .arg(log)
        .arg("-s")
        .arg(samples.to_string())
        .arg(archive)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("PCP's pmlogger")
}

/// Waits until the pmlogger that pmlc reaches with `args` has logged each of
/// `metrics` (until then its answers mark them "nl", not in the log yet).
pub fn wait_logged(args: &[&str], metrics: &str) {
    let query = format!("query {{ {metrics} }}\nquit\n");
    let t0 = std::time::Instant::now();
    loop {
        let (out, _, _) = our_pmlc(args, query.as_bytes());
        if out.contains("Connected to") && !out.contains(" nl ") {
            return;
        }
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(60),
            "pmlogger {args:?} never logged {metrics}: {out}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
