//! The primary logger (-P): its links, the refusal of a second one, stale links,
//! and pmlc -P (ours and PCP's) finding it. Runs in its own test binary because it
//! points PCP_TMP_DIR and PCP_RUN_DIR at a scratch directory for the whole process.

#[path = "../../pmlc/tests/common/mod.rs"]
mod common;

use common::{our_pmlc, pcp_pmlc};
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

fn spawn(dir: &Path, args: &[&str], log: &str, port: u16) -> Child {
    Command::new(env!("CARGO_BIN_EXE_pmlogger"))
        .current_dir(dir)
        .env("PMLOGGER_PORT", port.to_string())
        .env("PMLOGGER_LOCAL", "1")
        .args(["-c", "config", "-l", log])
        .args(args)
        .spawn()
        .expect("our pmlogger")
}

fn wait_for(path: &Path) {
    let t0 = Instant::now();
    while std::fs::symlink_metadata(path).is_err() {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn one_primary_found_by_pmlc() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (tmp, run) = (dir.path().join("tmp"), dir.path().join("run"));
    std::fs::create_dir_all(tmp.join("pmlogger")).expect("mkdir");
    std::fs::create_dir_all(&run).expect("mkdir");
    // the only test of this binary: the children inherit these
    std::env::set_var("PCP_TMP_DIR", &tmp);
    std::env::set_var("PCP_RUN_DIR", &run);
    std::fs::write(
        dir.path().join("config"),
        "log mandatory on 200 msec { hinv.ncpu }\n",
    )
    .expect("config");
    let port = test_support::free_port();

    // a link left by a primary that died does not stop a new one
    std::os::unix::fs::symlink(tmp.join("pmlogger/999999999"), tmp.join("pmlogger/primary"))
        .expect("stale link");
    let mut first = spawn(
        dir.path(),
        // long enough for a loaded machine: ended by SIGTERM once checked
        &["-P", "-m", "a note", "-s", "3000", "one"],
        "log1",
        port,
    );
    let pid = first.id();
    let link = tmp.join("pmlogger/primary");
    wait_for(&run.join("pmlogger.primary.socket"));
    assert_eq!(
        std::fs::read_link(&link).expect("primary link"),
        tmp.join(format!("pmlogger/{pid}"))
    );
    let map = std::fs::read_to_string(&link).expect("map file");
    let lines: Vec<&str> = map.lines().collect();
    assert_eq!(lines.len(), 4, "{map}");
    // the port asked for, or the next free one after it
    let held: u16 = lines[0].parse().expect("a port");
    assert!(held >= port, "{map}");
    assert!(lines[2].ends_with("/one"), "{map}");
    assert_eq!(lines[3], "a note");

    // a second primary is refused before it creates anything
    let second = spawn(dir.path(), &["-P", "-s", "2", "two"], "log2", port + 1)
        .wait()
        .expect("second");
    assert_eq!(second.code(), Some(1));
    let log2 = std::fs::read_to_string(dir.path().join("log2")).expect("log2");
    let want = format!(
        "\npmlogger: ERROR: there is already a primary pmlogger running, pid {pid} linkfile={}\n",
        link.display()
    );
    assert!(log2.starts_with("Log for pmlogger on "), "{log2}");
    assert!(log2.contains(&want), "{log2}");
    assert!(!dir.path().join("two.0").exists());
    assert!(!dir.path().join("two.meta").exists());

    // pmlc -P: over the primary socket, named as PCP's pmlc names it
    let want = "Connected to primary pmlogger at local:\npmlogger [primary] on host local: is logging metrics from host ";
    let (out, err, _) = our_pmlc(&["-P"], b"status\n");
    assert!(out.starts_with(want), "{out}{err}");
    if let Some((got, _)) = pcp_pmlc(&["-P"], b"status\n") {
        assert!(got.starts_with(want), "PCP's pmlc: {got}");
    }

    let term = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(term.success());
    assert!(first.wait().expect("first").success());
    // everything the primary made goes with it
    for gone in [
        link,
        run.join("pmlogger.primary.socket"),
        run.join(format!("pmlogger.{pid}.socket")),
        tmp.join(format!("pmlogger/{pid}")),
    ] {
        assert!(
            std::fs::symlink_metadata(&gone).is_err(),
            "{} left behind",
            gone.display()
        );
    }
}
