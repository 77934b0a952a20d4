//! The pairings of pmlc and pmlogger: our pmlc with our pmlogger, and our pmlc with
//! PCP's pmlogger (logging from PCP's pmcd) next to PCP's pmlc on the same kind of
//! logger: the transcripts must be the same (time stamps aside). (PCP's pmlc with our
//! pmlogger is tested in crates/pmlogger/tests/control.rs.)

mod common;

use common::{our_pmlc, pcp_pmlc, reference_pmlogger, spawn_pcp_logger};
use std::path::Path;

const SCRIPT: &str = "query { kernel.all.load hinv.ncpu mem.util.free }\nadvisory off mem.util.free\nquery mem.util.free\nlog mandatory on 400 msec hinv.ncpu\nquery hinv.ncpu\nnew volume\nflush\nstatus\nquit\n";

const CONFIG: &str = "log mandatory on 200 msec { kernel.all.load hinv.ncpu }\nlog advisory on 1 sec { mem.util.free }\n";
/// The metrics [`CONFIG`] logs.
const CONFIG_METRICS: &str = "kernel.all.load hinv.ncpu mem.util.free";

/// Times and sizes vary from run to run.
fn mask(s: &str) -> String {
    s.lines()
        .map(|l| {
            for key in [
                "log started",
                "last log entry",
                "current time",
                "log size",
                "pmlogger [",
                "Connected to",
            ] {
                if l.starts_with(key) {
                    return format!("{key} ...\n");
                }
            }
            format!("{l}\n")
        })
        .collect()
}

/// Waits until the pmlogger of process `pid` is ready (its map file written) and
/// has logged each of `metrics` (until then it says they are not in the log).
fn wait_for_logger(pid: u32, metrics: &str) {
    test_support::wait_for_logger(&pmlc::client::map_dir(), pid);
    common::wait_logged(&[&pid.to_string()], metrics);
}

/// PCP's pmlogger logging [`CONFIG`] for `samples` samples in `dir`, ready.
fn config_logger(reference: &Path, dir: &Path, samples: u32) -> std::process::Child {
    std::fs::write(dir.join("config"), CONFIG).expect("config");
    let child = spawn_pcp_logger(
        reference,
        &dir.join("config"),
        &dir.join("log"),
        samples,
        &dir.join("arch"),
    );
    wait_for_logger(child.id(), CONFIG_METRICS);
    child
}

/// The transcript PCP's pmlc gives for PCP's pmlogger on this script (masked).
const WANT: &str = "Connected to ...
kernel.all.load
    mand on         200 msec [1 or \"1 minute\"]
    mand on         200 msec [5 or \"5 minute\"]
    mand on         200 msec [15 or \"15 minute\"]

hinv.ncpu
    mand on         200 msec

mem.util.free
    adv  on           1 sec 

mem.util.free
    adv  off                

hinv.ncpu
    mand on         400 msec

pmlogger [ ...
PMCD host        HOST
log started ...
last log entry ...
current time ...
log volume       1
log size ...
Goodbye
";

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

#[test]
fn our_pmlc_with_our_pmlogger_and_with_pcps() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("config"), CONFIG).expect("config");
    // our pmlogger, in this process (the only test of this binary sets these)
    std::env::set_var("PMLOGGER_LOCAL", "1");
    std::env::set_var("PMLOGGER_PORT", test_support::free_port().to_string());
    let base = dir.path().join("ours").to_string_lossy().into_owned();
    let cfg = dir.path().join("config").to_string_lossy().into_owned();
    let log = dir.path().join("log").to_string_lossy().into_owned();
    let args: Vec<String> = ["-c", &cfg, "-l", &log, "-s", "12", &base]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let logger = std::thread::spawn(move || pmlogger::run(&args, &mut std::io::sink()));
    wait_for_logger(std::process::id(), CONFIG_METRICS);
    let (out, err, _) = our_pmlc(&[&std::process::id().to_string()], SCRIPT.as_bytes());
    let want = WANT.replace("HOST", &hostname());
    assert_eq!(mask(&out), want, "stderr: {err}");
    assert_eq!(err, "New log volume 1\n");
    assert_eq!(logger.join().expect("pmlogger thread"), 0);
    assert!(Path::new(&format!("{base}.1")).exists());

    // PCP's pmlogger: our pmlc and PCP's pmlc say the same
    let Some(reference) = reference_pmlogger("hinv.ncpu") else {
        return;
    };
    std::env::remove_var("PMLOGGER_PORT");
    std::env::remove_var("PMLOGGER_LOCAL");
    let mut transcripts = Vec::new();
    for who in ["pcp", "ours"] {
        let arch = dir.path().join(format!("ref-{who}"));
        let rlog = Path::new(&format!("{log}.{who}")).to_path_buf();
        let mut child = spawn_pcp_logger(reference, Path::new(&cfg), &rlog, 12, &arch);
        wait_for_logger(child.id(), CONFIG_METRICS);
        let pid = child.id().to_string();
        let (out, err) = if who == "ours" {
            let (o, e, _) = our_pmlc(&[&pid], SCRIPT.as_bytes());
            (o, e)
        } else {
            pcp_pmlc(&[&pid], SCRIPT.as_bytes()).expect("PCP's pmlc is installed with pmlogger")
        };
        let _ = child.wait();
        transcripts.push((mask(&out), err));
    }
    assert_eq!(
        transcripts[1], transcripts[0],
        "ours (right) vs PCP's pmlc (left) on PCP's pmlogger"
    );
    assert_eq!(transcripts[0].0, want, "PCP's pmlc on PCP's pmlogger");
}

const SAMPLE_CONFIG: &str = "log mandatory on 500 msec { sample.long.one sample.colour }\nlog advisory on 1 sec { sample.bin [\"bin-100\" \"bin-200\"] }\n";
/// The metrics [`SAMPLE_CONFIG`] logs.
const SAMPLE_METRICS: &str = "sample.long.one sample.colour sample.bin [\"bin-100\" \"bin-200\"]";

/// Names only PCP's pmcd knows (the sample agent), subtrees, instances, errors.
const SAMPLE_SCRIPT: &str = "query { sample.long.one sample.colour sample.bin }\nlog mandatory on 1 sec sample.colour[red]\nquery sample.colour\nlog advisory on 2 sec sample.long\nquery sample.long\nquery sample.nosuchmetric\nlog mandatory on 1 sec sample.colour[purple]\nlog mandatory on 1 sec sample.colour[Blue]\nquery kernel.all.load\nquit\n";

#[test]
fn names_through_pmcd_as_pcps_pmlc() {
    let Some(reference) = reference_pmlogger("sample.long.one") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("config"), SAMPLE_CONFIG).expect("config");
    let mut transcripts = Vec::new();
    for who in ["pcp", "ours"] {
        let arch = dir.path().join(format!("s-{who}"));
        let mut child = spawn_pcp_logger(
            reference,
            &dir.path().join("config"),
            &dir.path().join(format!("log-{who}")),
            16,
            &arch,
        );
        wait_for_logger(child.id(), SAMPLE_METRICS);
        let pid = child.id().to_string();
        let (out, err, failed) = if who == "ours" {
            let (o, e, rc) = our_pmlc(&[&pid], SAMPLE_SCRIPT.as_bytes());
            (o, e, rc != 0)
        } else {
            let (o, e) = pcp_pmlc(&[&pid], SAMPLE_SCRIPT.as_bytes())
                .expect("PCP's pmlc is installed with pmlogger");
            (o, e, false)
        };
        assert!(child.wait().expect("pmlogger").success());
        // whether a metric just turned on has been logged yet ("nl") depends on
        // when its first sample falls against the query: not compared
        let out = mask(&out).replace(" nl ", "    ");
        transcripts.push((out, err, failed));
        // the archive shows the change: sample.long.* is logged from the request on
        let a = archive_format::Archive::open(arch.to_string_lossy()).expect("archive");
        let m = a.metadata();
        assert!(
            m.descs()
                .iter()
                .any(|d| m.names(d.pmid).iter().any(|n| n == "sample.long.ten")),
            "{who}: sample.long.ten never logged"
        );
    }
    let (pcp, ours) = (&transcripts[0], &transcripts[1]);
    assert_eq!(ours.0, pcp.0, "stdout: ours (right) vs PCP's pmlc (left)");
    assert_eq!(ours.1, pcp.1, "stderr: ours (right) vs PCP's pmlc (left)");
    assert!(pcp.0.contains("sample.long.bin_ctr\n"), "{}", pcp.0);
    assert!(pcp.1.contains("no instance named purple"), "{}", pcp.1);
    assert!(
        ours.2,
        "our pmlc reports the failed commands in its exit status"
    );
}

/// A logger named by pid at a host that is not `local:`: its port comes from that
/// host's pmcd (`pmcd.pmlogger.port`), for our pmlc as for PCP's.
#[test]
fn pid_at_a_host_through_its_pmcd() {
    let Some(reference) = reference_pmlogger("pmcd.pmlogger.port") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    // (a logger that outlives both clients on a loaded machine: 12 samples, 2.4 s,
    // once ended before PCP's pmlc connected; it is stopped when they are done)
    let mut child = config_logger(reference, dir.path(), 150);
    let pid = child.id().to_string();
    let script = b"query hinv.ncpu\nquit\n";
    let (ours, err, _) = our_pmlc(&["-h", "127.0.0.1", &pid], script);
    let theirs = pcp_pmlc(&["-h", "127.0.0.1", &pid], script);
    let _ = child.kill();
    let _ = child.wait();
    let (theirs, _) = theirs.expect("PCP's pmlc is installed with pmlogger");
    assert!(
        theirs.starts_with("Connected to pmlogger on port "),
        "PCP's pmlc: {theirs}"
    );
    assert_eq!(ours, theirs, "stderr: {err}");
    assert!(
        ours.contains("hinv.ncpu\n    mand on         200 msec\n"),
        "{ours}"
    );
}

/// Interactive mode: the banner, the prompts and `help` as PCP's pmlc prints them.
#[test]
fn interactive_prompts_and_help() {
    let script = b"help\nquit\n";
    let (ours, _, _) = our_pmlc(&["-i"], script);
    assert!(
        ours.starts_with(
            "Performance Co-Pilot Logger Control (pmlc), Version 6.0.3\n\npmlc commands\n"
        ),
        "{ours}"
    );
    assert!(ours.contains("\npmlc> pmlc commands\n"), "{ours}");
    assert!(ours.ends_with("\npmlc> Goodbye\n"), "{ours}");
    if let Some((theirs, _)) = pcp_pmlc(&["-i"], script) {
        assert_eq!(ours, theirs, "ours vs PCP's pmlc -i");
    }
}

/// Characters PCP's pmlc lexer does not take: "Unexpected character", and the
/// statement after it is lost to the parser's recovery, as in PCP's pmlc.
#[test]
fn illegal_characters_as_pcps() {
    let scripts = [
        "timezone 'UTC'\nhelp\nquit\n",
        "status !\nstatus\nquit\n",
        "timezone \"UTC\"\nquit\n",
    ];
    let want0 = "Error [<stdin>, line 1]\nUnexpected character '''\nError [<stdin>, line 2]\nsyntax error\n";
    for (n, script) in scripts.iter().enumerate() {
        let (out, err, _) = our_pmlc(&[], script.as_bytes());
        if n == 0 {
            assert_eq!(err, want0);
            assert_eq!(out, "Goodbye\n");
        }
        if let Some(theirs) = pcp_pmlc(&[], script.as_bytes()) {
            assert_eq!((out, err), theirs, "script {n}");
        }
    }
}

/// Metric names PCP's pmlc lexer does not take as names (a leading `_` or `.`, a
/// digit, a `-`), numbers with a point, odd characters after a whole statement,
/// host URLs: the errors, their lines and their order as PCP's pmlc gives them
/// (some come from the character its lexer read past the refused token, lexed
/// after the recovery skipped the line; a statement can be lost to that recovery).
#[test]
fn metric_name_errors_as_pcps() {
    let Some(reference) = reference_pmlogger("kernel.all.load") else {
        return;
    };
    let script = "query { _x }\nstatus\nquery { 60.2 }\nquery { kernel.all.load }\n\
        query { .x }\nquery { x- }\nquery { a-b.c }\nquery { 60 .2 }\n\
        query { kernel.all.load [ 1a ] }\nquery { 60}\nquery hinv.ncpu\n\
        query { 60x }\nquery hinv.ncpu\nquery { x } $\nquery { y }\nquery { 60$ }\n\
        query { x-$ }\nQUERY x\nquery { 60.2.0 }\nquery kernel..all\n\
        query { kernel.all.load } $\nshow loggers @local:x$\n\
        log mandatory on 1.5 sec { x }\nquery { $x }\n";
    let dir = tempfile::tempdir().expect("tempdir");
    let mut child = config_logger(reference, dir.path(), 40);
    let pid = child.id().to_string();
    let theirs = pcp_pmlc(&[&pid], script.as_bytes());
    let (out, err, _) = our_pmlc(&[&pid], script.as_bytes());
    let _ = child.kill();
    let _ = child.wait();
    let (t_out, t_err) = theirs.expect("PCP's pmlc is installed with pmlogger");
    assert!(t_err.contains("Unexpected character '_'"), "{t_err}");
    assert_eq!(
        mask(&out),
        mask(&t_out),
        "stdout: ours (left) vs PCP's pmlc"
    );
    assert_eq!(err, t_err, "stderr: ours (left) vs PCP's pmlc");
}
