//! pmlogger records archives every reader accepts: ours always, and PCP's pmlogcheck
//! and pmdumplog when the reference is installed (required when REQUIRE_REFERENCE is
//! set, as in CI).

use archive_format::Archive;
use std::path::Path;
use std::process::Command;

const CONFIG: &str = "\
log mandatory on once { sample.long.one sample.string.hullo }
log mandatory on 50 msec {
    sample.colour sample.bin sample.seconds sample.float.million sample.double.million
    sample.longlong.million sample.ulonglong.million sample.aggregate.hullo
    sample.event.records sample.event.highres_records
}
";

fn record(dir: &Path, version: &str) -> String {
    let cfg = dir.join("config");
    std::fs::write(&cfg, CONFIG).expect("config");
    let base = dir
        .join(format!("rec{version}"))
        .to_string_lossy()
        .into_owned();
    let args: Vec<String> = ["-V", version, "-l", "-", "-h", "@sample", "-s", "6", "-c"]
        .iter()
        .map(|s| s.to_string())
        .chain([cfg.to_string_lossy().into_owned(), base.clone()])
        .collect();
    let mut err = Vec::new();
    let status = pmlogger::run(&args, &mut err);
    assert_eq!(status, 0, "{}", String::from_utf8_lossy(&err));
    base
}

fn reference() -> bool {
    test_support::have_tool("pmlogcheck")
}

#[test]
fn recordings_read_back_with_prologue_and_epilogue() {
    for v in ["2", "3"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = record(dir.path(), v);
        let a = Archive::open(&base).expect("open");
        assert_eq!(a.label().version.to_string(), v);
        let recs: Vec<_> = a.records().map(|r| r.expect("record").1).collect();
        // prologue, the once group, 5 more samples, epilogue
        assert_eq!(recs.len(), 8, "v{v}");
        let pm_host = archive_format::PmId::new(2, 3, 3);
        assert_eq!(recs[0].vsets[0].pmid, pm_host);
        assert_eq!(recs[recs.len() - 1].vsets[0].pmid, pm_host);
        // the changing instance domain was written more than once
        let bins = a.metadata().snapshots(sources::sample::BIN_INDOM).len();
        assert!(bins >= 2, "v{v}: {bins} snapshots");
        // a second run does not overwrite the archive
        let mut err = Vec::new();
        let again: Vec<String> = ["-l", "-", "-h", "@sample", "-s", "1", &base]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_ne!(pmlogger::run(&again, &mut err), 0);
        assert!(String::from_utf8_lossy(&err).contains("Cannot create archive"));
    }
}

#[test]
fn the_reference_accepts_our_recordings() {
    if !reference() {
        return;
    }
    for v in ["2", "3"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = record(dir.path(), v);
        let check = Command::new("pmlogcheck")
            .arg(&base)
            .output()
            .expect("pmlogcheck");
        assert!(
            check.status.success(),
            "pmlogcheck: {}",
            String::from_utf8_lossy(&check.stderr)
        );
        assert!(
            check.stdout.is_empty() && check.stderr.is_empty(),
            "pmlogcheck complained"
        );
        let theirs = Command::new("pmdumplog")
            .args(["-a", &base])
            .env("TZ", "UTC")
            .output()
            .expect("pmdumplog");
        std::env::set_var("TZ", "UTC");
        let mut ours = Vec::new();
        let mut err = Vec::new();
        let args = vec!["-a".to_string(), base.clone()];
        let status = pmdumplog::run(&args, &mut ours, &mut err);
        assert_eq!(status, 0);
        assert_eq!(
            String::from_utf8_lossy(&ours),
            String::from_utf8_lossy(&theirs.stdout),
            "v{v}"
        );
    }
}

/// The same configuration recorded by the reference pmlogger (from pmcd and its sample
/// agent) and by ours (from our sample source) gives records holding the same metrics
/// in the same order, and metadata records of the same kinds in the same order.
#[test]
fn record_structure_matches_the_reference_pmlogger() {
    if !reference() {
        return;
    }
    let sample_up = Command::new("pminfo")
        .arg("sample.long.one")
        .output()
        .is_ok_and(|o| o.status.success());
    if !sample_up {
        test_support::skip("pmcd's sample agent is not running (scripts/start-pmcd.sh --sample)");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let cfg = dir.path().join("config");
    std::fs::write(
        &cfg,
        "log mandatory on once { sample.long.one sample.string.hullo }\n\
         log mandatory on 100 msec { sample.colour sample.double.million sample.ulonglong.million }\n",
    )
    .expect("config");
    let theirs = dir.path().join("theirs").to_string_lossy().into_owned();
    let st = Command::new("/usr/lib/pcp/bin/pmlogger")
        .args(["-V", "3", "-s", "5", "-l"])
        .arg(dir.path().join("log"))
        .arg("-c")
        .arg(&cfg)
        .arg(&theirs)
        .status()
        .expect("reference pmlogger");
    assert!(st.success());
    let ours = dir.path().join("ours").to_string_lossy().into_owned();
    let args: Vec<String> = ["-l", "-", "-h", "@sample", "-s", "5", "-c"]
        .iter()
        .map(|s| s.to_string())
        .chain([cfg.to_string_lossy().into_owned(), ours.clone()])
        .collect();
    let mut err = Vec::new();
    assert_eq!(pmlogger::run(&args, &mut err), 0);
    let shape = |base: &str| -> Vec<Vec<archive_format::PmId>> {
        let a = Archive::open(base).expect("open");
        a.records()
            .map(|r| r.expect("record").1.vsets.iter().map(|v| v.pmid).collect())
            .collect()
    };
    assert_eq!(shape(&ours), shape(&theirs));
    // and the same metadata records (descriptors, label sets, help texts, instance
    // domains) in the same order
    assert_eq!(meta_shape(&ours), meta_shape(&theirs));
}

/// The kind and identifier of every `.meta` record after the label.
fn meta_shape(base: &str) -> Vec<(&'static str, u32, u32)> {
    use archive_format::codec::meta::{decode_meta, MetaRecord};
    let bytes = std::fs::read(format!("{base}.meta")).expect("meta");
    let be = |o: usize| u32::from_be_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
    let mut off = be(0) as usize;
    let mut out = Vec::new();
    while off + 8 <= bytes.len() {
        let len = be(off) as usize;
        let rec = decode_meta(&bytes[off + 4..off + len - 4], off as u64).expect("record");
        out.push(match rec {
            MetaRecord::Desc { desc, .. } => ("desc", 0, desc.pmid.0),
            MetaRecord::InDom { indom, .. } => ("indom", 0, indom.0),
            MetaRecord::Label { ltype, ident, .. } => ("label", ltype, ident),
            MetaRecord::Text { ttype, ident, .. } => ("text", ttype, ident),
        });
        off += len;
    }
    out
}
