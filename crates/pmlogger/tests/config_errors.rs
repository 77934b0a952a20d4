//! Configuration errors and warnings in the reference's words. Each case's expected
//! log lines are what PCP 6.0.3's pmlogger writes for it; where the reference is
//! installed the syntax-error cases are also run through it and compared live.

#[path = "../../pmlc/tests/common/mod.rs"]
mod common;

use std::path::Path;
use std::process::Command;

/// (configuration, the lines the log must hold; FILE stands for the config's path)
const CASES: &[(&str, &str)] = &[
    (
        "log mandatory on 1 sec { hinv.ncpu\n",
        "Specification error in configuration file (FILE)\n[line 2] syntax error\n",
    ),
    (
        "log mandatory on { hinv.ncpu }\n",
        "Specification error in configuration file (FILE)\n[line 1] syntax error\n",
    ),
    (
        "log sometimes on 1 sec hinv.ncpu\n",
        "Specification error in configuration file (FILE)\n[line 1] syntax error\n",
    ),
    (
        "log advisory maybe hinv.ncpu\n",
        "Specification error in configuration file (FILE)\n[line 1] syntax error\n",
    ),
    (
        "log mandatory on 1 sec hinv.ncpu [ x\n",
        "Specification error in configuration file (FILE)\n[line 2] syntax error\n",
    ),
    (
        "\n\nlog mandatory on 1 sec {\n hinv.ncpu\n}\nlog foo\n",
        "Specification error in configuration file (FILE)\n[line 6] syntax error\n",
    ),
    (
        "log mandatory on 1 sec { no.such.metric hinv.ncpu }\n",
        "Warning [FILE, line 1]\nProblem with lookup for metric \"no.such.metric\" ... logging not activated\nReason: Unknown metric name\n",
    ),
    (
        "log mandatory on 1 sec kernel.all.load [ \"nosuch\" \"5\" ]\n",
        "Warning [FILE, line 1]\nInstance \"nosuch\" is not defined for the metric \"kernel.all.load\"\n",
    ),
];

fn ours(dir: &Path, n: usize, config: &str) -> (i32, String) {
    let cfg = dir.join(format!("c{n}"));
    std::fs::write(&cfg, config).expect("config");
    let log = dir.join(format!("ours{n}.log"));
    let st = Command::new(env!("CARGO_BIN_EXE_pmlogger"))
        .env("PMLOGGER_LOCAL", "1")
        .env("PMLOGGER_PORT", test_support::free_port().to_string())
        .arg("-c")
        .arg(&cfg)
        .arg("-l")
        .arg(&log)
        .args(["-s", "1", "-t", "0.05"])
        .arg(dir.join(format!("ours{n}")))
        .status()
        .expect("our pmlogger");
    (
        st.code().unwrap_or(-1),
        std::fs::read_to_string(&log).unwrap_or_default(),
    )
}

#[test]
fn messages_are_the_references() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (n, (config, want)) in CASES.iter().enumerate() {
        let (code, log) = ours(dir.path(), n, config);
        let want = want.replace("FILE", &dir.path().join(format!("c{n}")).to_string_lossy());
        assert!(
            log.contains(&want),
            "case {n}: {config:?}\nwant:\n{want}\ngot:\n{log}"
        );
        let syntax = want.starts_with("Specification error");
        assert_eq!(code, if syntax { 1 } else { 0 }, "case {n}: {log}");
        // nothing is created for a configuration that does not parse
        assert_eq!(
            dir.path().join(format!("ours{n}.0")).exists(),
            !syntax,
            "case {n}"
        );
    }
}

#[test]
fn syntax_errors_as_the_reference_reports_them_live() {
    // the reference parses its configuration after reaching pmcd
    let Some(reference) = common::reference_pmlogger("hinv.ncpu") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    for (n, (config, want)) in CASES.iter().enumerate() {
        if !want.starts_with("Specification error") {
            continue; // the reference lingers on warnings; those are checked above
        }
        let (_, log) = ours(dir.path(), n, config);
        let rlog = dir.path().join(format!("ref{n}.log"));
        let st = Command::new(reference)
            .arg("-c")
            .arg(dir.path().join(format!("c{n}")))
            .arg("-l")
            .arg(&rlog)
            .args(["-s", "1"])
            .arg(dir.path().join(format!("ref{n}")))
            .status()
            .expect("PCP's pmlogger");
        assert_eq!(st.code(), Some(1), "case {n}");
        let r = std::fs::read_to_string(&rlog).expect("reference log");
        let lines: Vec<&str> = r
            .lines()
            .skip_while(|l| !l.starts_with("Specification error"))
            .take(2)
            .collect();
        assert_eq!(lines.len(), 2, "case {n}: {r}");
        assert!(
            log.contains(&format!("{}\n{}\n", lines[0], lines[1])),
            "case {n}: ours\n{log}\nreference\n{r}"
        );
    }
}

/// `-r` as the reference reports it (with `-V 2` our record sizes are the sizes the
/// reference counts): one paragraph per group, in the order the groups first log.
const REPORT_CONFIG: &str = "log mandatory on once { hinv.ncpu }\nlog mandatory on 200 msec { hinv.ncpu kernel.all.load }\nlog mandatory on 2 sec { mem.util.free }\n";
const REPORT: &str = "\nMetric hinv.ncpu logged once: 40 bytes\n\nGroup [2 metrics] {\n\tkernel.all.load\n\thinv.ncpu\n} logged every 0.200 sec: 100 bytes or 41.20 Mbytes/day\n\nMetric mem.util.free logged every 2 sec: 52 bytes or 2.14 Mbytes/day\n";

#[test]
fn report_as_the_reference() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("c"), REPORT_CONFIG).expect("config");
    let st = Command::new(env!("CARGO_BIN_EXE_pmlogger"))
        .env("PMLOGGER_LOCAL", "1")
        .env("PMLOGGER_PORT", test_support::free_port().to_string())
        .current_dir(dir.path())
        .args(["-V", "2", "-r", "-c", "c", "-l", "log", "-s", "12", "ours"])
        .status()
        .expect("our pmlogger");
    assert!(st.success());
    let log = std::fs::read_to_string(dir.path().join("log")).expect("log");
    assert!(log.contains(REPORT), "{log}");
    let Some(reference) = common::reference_pmlogger("hinv.ncpu") else {
        return;
    };
    let st = Command::new(reference)
        .current_dir(dir.path())
        .args(["-V", "2", "-r", "-c", "c", "-l", "rlog", "-s", "12", "ref"])
        .status()
        .expect("PCP's pmlogger");
    assert!(st.success());
    let rlog = std::fs::read_to_string(dir.path().join("rlog")).expect("reference log");
    assert!(rlog.contains(REPORT), "{rlog}");
}
