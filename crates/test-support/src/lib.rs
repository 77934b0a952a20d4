//! What the integration tests of every crate share about the reference PCP: a test
//! that needs it skips with a printed reason where it is missing, and fails instead
//! when REQUIRE_REFERENCE is set (as CI sets it). And how tests own the resources
//! they use: ports the system picks, and waits for a pmlogger to be ready rather
//! than sleeps, so that they pass on a loaded machine beside other pmloggers.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Records that the reference (or the part of it named by `what`) is missing: fails
/// under REQUIRE_REFERENCE, else prints why the test is skipped.
pub fn skip(what: &str) {
    assert!(
        std::env::var_os("REQUIRE_REFERENCE").is_none(),
        "REQUIRE_REFERENCE is set but {what}"
    );
    eprintln!("skipping: {what}");
}

/// Whether PCP's `tool` can be run; when it cannot, [`skip`]s.
pub fn have_tool(tool: &str) -> bool {
    let have = std::process::Command::new(tool)
        .arg("--help")
        .output()
        .is_ok();
    if !have {
        skip(&format!("PCP's {tool} is not installed"));
    }
    have
}

/// A loopback TCP port no one holds at this moment, picked by the system (for a
/// pmlogger's `PMLOGGER_PORT`: one that finds it taken meanwhile takes the next,
/// and [`wait_for_logger`] says which).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// How long a pmlogger may take to get ready on a loaded machine.
const READY: Duration = Duration::from_secs(60);

/// Waits until the pmlogger of process `pid` has written its map file in
/// `map_dir` (which it does once its control port is bound and listening), and
/// returns the port the file names.
pub fn wait_for_logger(map_dir: &Path, pid: u32) -> u16 {
    let t0 = Instant::now();
    loop {
        let port = std::fs::read_to_string(map_dir.join(pid.to_string()))
            .ok()
            // a whole first line only (the file may be half written)
            .and_then(|t| t.split_once('\n').and_then(|(l, _)| l.trim().parse().ok()));
        if let Some(p) = port {
            return p;
        }
        assert!(
            t0.elapsed() < READY,
            "pmlogger {pid} never wrote its map file in {}",
            map_dir.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Checks what a tool printed for `--version`: PCP's line first (scripts parse
/// it), then this project's, naming the PCP version it follows.
pub fn assert_version(tool: &str, out: &[u8]) {
    let out = String::from_utf8_lossy(out);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines.first().copied(),
        Some(format!("{tool} version 6.0.3").as_str()),
        "{out}"
    );
    assert!(
        lines
            .get(1)
            .is_some_and(|l| l.starts_with("pcp-archive-rs ") && l.ends_with("following PCP 6.0.3")),
        "{out}"
    );
}

/// Checks what a tool printed for `--help` (on stderr): PCP's usage, then the
/// options that are ours, `ours` among them.
pub fn assert_help_lists(tool: &str, err: &[u8], ours: &[&str]) {
    let err = String::from_utf8_lossy(err);
    let (pcp, listed) = err
        .split_once("\nOptions of pcp-archive-rs (not in PCP 6.0.3):\n")
        .unwrap_or_else(|| panic!("no options of ours after PCP's usage: {err}"));
    assert!(pcp.starts_with(&format!("Usage: {tool} ")), "{err}");
    for opt in ours {
        assert!(
            listed.lines().any(|l| l.trim_start().starts_with(opt)),
            "{opt} missing: {err}"
        );
    }
}

/// A tool run in-process: arguments, standard output, standard error; the status.
pub type RunFn = fn(&[String], &mut dyn std::io::Write, &mut dyn std::io::Write) -> i32;

/// Runs a tool in-process on `args`: its status, standard output and standard error
/// (lossily UTF-8).
pub fn run_tool(run: RunFn, args: &[&str]) -> (i32, String, String) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = run(&args, &mut out, &mut err);
    (
        code,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

/// Runs every golden case under `testdata/GOLDEN/ARCHIVE/CASE` (made by PCP 6.0.3's
/// tool with scripts/regen-testdata.sh: `cmd`, or `args` one argument a line where
/// an argument holds spaces; `stdout`, `stderr`, `status`) through `run`, in
/// `testdata/archives` with `TZ=UTC` as they were made, and fails listing every case
/// that differs. At least `min_cases` must be there. Changes the process's
/// directory and zone: call it from a test binary of its own.
pub fn assert_goldens(golden: &str, min_cases: usize, run: RunFn) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root");
    let dir = root.join("testdata").join(golden);
    std::env::set_var("TZ", "UTC");
    std::env::set_current_dir(root.join("testdata/archives")).expect("cd testdata/archives");
    let mut cases: Vec<PathBuf> = Vec::new();
    for arch in std::fs::read_dir(&dir).expect("the goldens' directory") {
        for case in std::fs::read_dir(arch.expect("entry").path()).expect("archive dir") {
            cases.push(case.expect("case").path());
        }
    }
    cases.sort();
    assert!(
        cases.len() >= min_cases,
        "expected the committed goldens, found {}",
        cases.len()
    );
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| golden_differs(c, run))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// What differs in one golden case, if anything.
fn golden_differs(case: &Path, run: RunFn) -> Option<String> {
    let read = |f: &str| std::fs::read(case.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
    let cmd = String::from_utf8_lossy(&read("cmd")).into_owned();
    let args: Vec<String> = match std::fs::read_to_string(case.join("args")) {
        Ok(lines) => lines.lines().map(String::from).collect(),
        Err(_) => cmd.split_whitespace().map(String::from).collect(),
    };
    let want_status: i32 = String::from_utf8_lossy(&read("status"))
        .trim()
        .parse()
        .expect("a status");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = run(&args, &mut out, &mut err);
    let want_out = read("stdout");
    if out == want_out && err == read("stderr") && status == want_status {
        return None;
    }
    let (ours, theirs) = (
        String::from_utf8_lossy(&out),
        String::from_utf8_lossy(&want_out),
    );
    let first = ours
        .lines()
        .zip(theirs.lines())
        .enumerate()
        .find(|(_, (a, b))| a != b)
        .map(|(i, (a, b))| format!("line {}: ours {a:?} reference {b:?}", i + 1))
        .unwrap_or_else(|| "lengths or stderr/status differ".into());
    Some(format!(
        "{} ({cmd}): {first}; status {status} vs {want_status}",
        case.display()
    ))
}

/// Writes a v3 archive at `dir/in` of 100 counters over `records` records, for
/// a tool that should take a while over it; its base name.
pub fn wide_archive(dir: &Path, records: u32) -> String {
    use archive_format::codec::result::{OwnedValue, OwnedValueSet, VAL_INSITU};
    use archive_format::types::{sem, vtype, Desc, InDom, PmId, Timestamp, Units};
    use archive_format::writer::{ArchiveWriter, FlushPolicy, WriterOptions};
    let base = dir.join("in");
    let opts = WriterOptions {
        flush: FlushPolicy::NoSync,
        buffered: true,
        ..WriterOptions::default()
    };
    let mut w = ArchiveWriter::create(&base, opts).expect("creates");
    let pmids: Vec<PmId> = (0..100).map(|i| PmId::new(60, 0, i)).collect();
    for (i, p) in pmids.iter().enumerate() {
        let d = Desc {
            pmid: *p,
            vtype: vtype::U32,
            indom: InDom::NULL,
            sem: sem::COUNTER,
            units: Units(0),
        };
        w.put_desc(d, &[format!("m.m{i}")]).expect("desc");
    }
    for k in 0..records {
        let sets: Vec<OwnedValueSet> = pmids
            .iter()
            .map(|p| OwnedValueSet {
                pmid: *p,
                numval: 1,
                valfmt: VAL_INSITU,
                values: vec![(-1, OwnedValue::Insitu(k))],
            })
            .collect();
        w.put_result(Timestamp::new(1_700_000_000 + i64::from(k), 0), &sets)
            .expect("result");
    }
    w.close().expect("closes");
    base.to_string_lossy().into_owned()
}

/// A writer of a v`version` archive at `base` (host "h", UTC) describing one
/// metric, `desc`, named `name`.
pub fn one_metric_writer(
    base: &Path,
    version: u32,
    desc: archive_format::types::Desc,
    name: &str,
) -> archive_format::writer::ArchiveWriter {
    use archive_format::writer::{ArchiveWriter, WriterOptions};
    let opts = WriterOptions {
        version,
        hostname: "h".into(),
        timezone: "UTC".into(),
        ..WriterOptions::default()
    };
    let mut w = ArchiveWriter::create(base, opts).expect("creates");
    w.put_desc(desc, &[name.into()]).expect("desc");
    w
}

/// Every file under `dir`, in its subdirectories too, sorted (none where `dir`
/// cannot be read).
pub fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The names of the hidden files in `dir` (what a killed tool may leave).
pub fn hidden_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("lists")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

/// A copy of the project's test archive `name` (`testdata/archives`) in `dir`;
/// its base name there.
pub fn copy_test_archive(name: &str, dir: &Path) -> String {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/archives");
    for ext in ["0", "index", "meta"] {
        let f = format!("{name}.{ext}");
        std::fs::copy(src.join(&f), dir.join(&f)).expect("copies");
    }
    dir.join(name).to_string_lossy().into_owned()
}

/// Runs `bin ARGS... OUT` into `dir/outK` and SIGKILLs it at each of `moments`
/// (microseconds after it starts): each output must then be absent or whole
/// (readable). Then runs it to completion beside each absent output, which
/// must sweep what the killed runs left: no hidden file stays in `dir`.
/// Returns how many temporary files the killed runs had left.
pub fn kill_check(bin: &str, args: &[&str], dir: &Path, moments: &[u64]) -> usize {
    use std::process::Command;
    let run = |out: &Path| {
        let mut c = Command::new(bin);
        c.args(args).arg(out);
        c
    };
    let hidden = || hidden_files(dir);
    for (k, micros) in moments.iter().enumerate() {
        let out = dir.join(format!("out{k}"));
        let mut child = run(&out).spawn().expect("starts");
        std::thread::sleep(Duration::from_micros(*micros));
        let _ = child.kill();
        let _ = child.wait();
        let files: Vec<_> = ["0", "meta", "index"]
            .iter()
            .filter(|e| Path::new(&format!("{}.{e}", out.display())).exists())
            .collect();
        assert!(
            files.is_empty() || files.len() == 3,
            "partial output {files:?}"
        );
        if files.len() == 3 {
            archive_format::Archive::open(out.to_string_lossy()).expect("a whole archive");
        }
    }
    let left = hidden().len();
    for k in 0..moments.len() {
        let out = dir.join(format!("out{k}"));
        if !Path::new(&format!("{}.meta", out.display())).exists() {
            assert!(run(&out).status().expect("runs").success());
        }
    }
    assert_eq!(hidden(), Vec::<String>::new());
    left
}

pub mod receiver;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_tool_is_missing() {
        // an absent tool is reported missing (and fails if the reference is required)
        if std::env::var_os("REQUIRE_REFERENCE").is_none() {
            assert!(!have_tool("no-such-pcp-tool-here"));
        }
        assert!(have_tool("true"), "a tool that runs is there");
    }

    #[test]
    fn a_free_port_is_not_one_held() {
        // (whether it is still free a moment later is a race no test can settle:
        // what holds is that the system does not hand out a port held now)
        let held = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("listener");
        let held_port = held.local_addr().expect("address").port();
        for _ in 0..20 {
            let p = free_port();
            assert_ne!(p, 0);
            assert_ne!(p, held_port);
        }
    }

    #[test]
    fn the_port_comes_from_a_whole_map_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let map = dir.path().join("4242");
        std::fs::write(&map, "43").expect("half a map file");
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            std::fs::write(&map, "4330\nhost\n/arch\n").expect("map file");
        });
        assert_eq!(wait_for_logger(dir.path(), 4242), 4330);
        writer.join().expect("writer");
    }
}
