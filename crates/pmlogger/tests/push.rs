//! pmlogger records to a `/logger` receiver when its archive is `http://...`: the
//! archive the receiver stores reads back whole, and the receiver's refusals end
//! the run as PCP 7's pmlogger ends it.

use archive_format::Archive;
use test_support::receiver::{write_archive, Mode, Receiver};

const CONFIG: &str = "log mandatory on 50 msec { sample.colour sample.bin sample.string.hullo }\n";

fn record(dir: &std::path::Path, url: &str, extra: &[&str]) -> (i32, String) {
    let cfg = dir.join("config");
    std::fs::write(&cfg, CONFIG).expect("config");
    let mut args: Vec<String> = ["-l", "-", "-h", "@sample", "-s", "6", "-c"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.push(cfg.to_string_lossy().into_owned());
    args.extend(extra.iter().map(|s| s.to_string()));
    args.push(url.to_string());
    let mut err = Vec::new();
    let code = pmlogger::run(&args, &mut err);
    (code, String::from_utf8_lossy(&err).into_owned())
}

#[test]
fn a_pushed_recording_reads_back() {
    for (version, volumes) in [("2", &[][..]), ("3", &["-v", "3"][..])] {
        let dir = tempfile::tempdir().expect("tempdir");
        let r = Receiver::start(Mode::Store);
        let mut extra = vec!["-V", version];
        extra.extend_from_slice(volumes);
        let (code, log) = record(dir.path(), &r.url, &extra);
        assert_eq!(code, 0, "{log}");
        assert!(!log.contains("Archive basename"), "{log}");
        let files = r.files();
        let base = write_archive(&files, dir.path());
        let a = Archive::open(&base).expect("open");
        let recs: Vec<_> = a.records().map(|x| x.expect("record").1).collect();
        // prologue, 6 samples, epilogue
        assert_eq!(recs.len(), 8, "v{version}");
        // the prologue takes the first sample's time, as PCP 7's
        assert_eq!(recs[0].stamp, recs[1].stamp);
        // one data volume per file, every volume switch (-v 3) pushed as its own
        let want = if volumes.is_empty() { 1 } else { 3 };
        let vols = files
            .keys()
            .filter(|f| f.ends_with(|c: char| c.is_ascii_digit()))
            .count();
        assert_eq!(vols, want, "v{version}: {files:?}");
        assert_eq!(r.requests()[0], "GET /logger/ping");
    }
}

#[test]
fn refusals_end_the_run_as_pcp_7_ends_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let r = Receiver::start(Mode::RefuseLabel(409));
    let (code, log) = record(dir.path(), &r.url, &[]);
    assert_eq!(code, 0, "{log}");
    assert!(
        log.contains("Info: pmlogger: Remote push recording failed to start, exiting"),
        "{log}"
    );
    let r = Receiver::start(Mode::RefuseWrite(500, 3));
    let (code, log) = record(dir.path(), &r.url, &[]);
    assert_eq!(code, 0, "{log}");
    let lost = format!("pmlogger: lost pmproxy {} connection at ", r.url);
    assert!(log.contains(&lost), "{log}");
    assert!(
        log.contains("Info: pmlogger: Remote push recording terminated, exiting"),
        "{log}"
    );
    // nothing is sent after the refused write (the third data record)
    let requests = r.requests();
    let volumes = requests.iter().filter(|q| q.contains("/volume/")).count();
    assert_eq!(volumes, 3, "{requests:?}");
    assert!(
        requests.last().is_some_and(|q| q.contains("/volume/")),
        "{requests:?}"
    );
    let free = format!("http://127.0.0.1:{}", test_support::free_port());
    let (code, log) = record(dir.path(), &free, &[]);
    assert_eq!(code, 1, "{log}");
    let refused = format!("Error: /logger/ping check for {free} failed: Connection refused");
    assert!(log.contains(&refused), "{log}");
}
