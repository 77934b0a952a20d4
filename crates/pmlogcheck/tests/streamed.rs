//! An archive whose data volume is compressed is checked in one pass over its
//! decoded bytes when it has cores for it, and in PCP's passes one after the
//! other on one thread: both print the same, sound or damaged.

use archive_format::codec::result::OwnedValueSet;
use archive_format::compress::{compress, Compression};
use archive_format::types::{sem, vtype};
use archive_format::{Desc, InDom, PmId, Timestamp, Units};
use std::path::Path;
use std::process::Command;

const P: PmId = PmId(0x0040_0002);

/// A v3 archive at `base`: a counter, one record a second,
/// going down at record 700 (a wrap) and, when `late` says so, one record that
/// comes after the archive's end.
fn write_counter(base: &Path, records: u32, late: Option<u32>) {
    let d = Desc {
        pmid: P,
        vtype: vtype::U32,
        indom: InDom::NULL,
        sem: sem::COUNTER,
        units: Units(0),
    };
    let mut w = test_support::one_metric_writer(base, 3, d, "c.n");
    w.set_auto_index(true);
    for k in 0..records {
        let sec = match late {
            Some(at) if at == k => 1_000_000,
            _ => 1000 + k as i64,
        };
        let t = Timestamp::new(sec, 0);
        let v = if k == 700 { 3 } else { 10 * k };
        w.begin_fetch();
        w.put_index(t).expect("index");
        w.put_result(t, &[OwnedValueSet::insitu(P, vec![(-1, v)])])
            .expect("result");
    }
    w.close().expect("close");
}

/// The data volume compressed in place, after `damage` has had its bytes.
fn xz_volume(base: &Path, damage: impl Fn(&mut Vec<u8>)) {
    let plain = base.with_extension("0");
    let mut bytes = std::fs::read(&plain).expect("volume");
    damage(&mut bytes);
    let z = compress(Compression::Xz, &bytes).expect("xz");
    std::fs::write(base.with_extension("0.xz"), z).expect("write");
    std::fs::remove_file(plain).expect("remove");
}

/// pmlogcheck's exit status, stdout and stderr with `threads` cores.
fn check(base: &Path, threads: &str) -> (Option<i32>, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_pmlogcheck"))
        .arg(base)
        .env("PCPRS_THREADS", threads)
        .env("TZ", "UTC")
        .output()
        .expect("run pmlogcheck");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

/// The archive as `damage` leaves it, checked both ways: what they print.
fn both_ways(late: Option<u32>, damage: impl Fn(&mut Vec<u8>)) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = dir.path().join("a");
    write_counter(&base, 1500, late);
    xz_volume(&base, damage);
    let one = check(&base, "1");
    let two = check(&base, "2");
    assert_eq!(one, two, "one thread and two differ");
    (one.0, one.2)
}

#[test]
fn a_sound_archive_reports_its_wrap_alike() {
    let (status, err) = both_ways(None, |_| {});
    assert_eq!(status, Some(0));
    assert!(err.contains("c.n: unsigned 32-bit wrap"), "{err}");
}

#[test]
fn a_record_after_the_end_stops_pass_3_alike() {
    let (status, err) = both_ways(Some(1200), |_| {});
    assert_eq!(status, Some(0));
    // the index says so; pass 3 ends at the late record, before the next
    assert!(err.contains("went backwards in time"), "{err}");
    assert!(!err.contains("timestamp went backwards"), "{err}");
}

#[test]
fn a_cut_volume_is_reported_alike() {
    let (status, err) = both_ways(None, |b| b.truncate(b.len() - 10));
    assert_eq!(status, Some(1));
    assert!(err.contains("unexpected EOF in record"), "{err}");
}

#[test]
fn a_trailer_that_is_not_its_header_is_reported_alike() {
    let (status, err) = both_ways(None, |b| {
        let n = b.len();
        b[n / 2..].iter_mut().take(4).for_each(|x| *x ^= 0x40);
    });
    assert_ne!(err, "");
    assert!(status.is_some());
}
