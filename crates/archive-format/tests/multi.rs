//! Multi-archive contexts: archives of one host read as one, in time order, with a
//! `<mark>` between them (1 ms after the earlier archive's end going forward, 1 ms
//! before the later one's start going backward), and the reference's errors for
//! archives of different hosts or overlapping in time.

use archive_format::codec::index::{encode_index_entry, IndexEntry};
use archive_format::codec::label::{encode_label, Label, VOL_INDEX, VOL_META};
use archive_format::codec::meta::{encode_meta, MetaRecord};
use archive_format::codec::record::encode_frame;
use archive_format::codec::result::{encode_result, OwnedValue, OwnedValueSet, VAL_INSITU};
use archive_format::error::{PM_ERR_LOGHOST, PM_ERR_LOGOVERLAP};
use archive_format::replay::{Delta, Mode, Replay};
use archive_format::types::{sem, vtype};
use archive_format::{Archive, Desc, InDom, PmId, Timestamp, Units};
use std::path::Path;

const PMID: PmId = PmId(251 << 22);

/// Writes a v2 archive with one U32 instant metric sampled once a second.
fn write(dir: &Path, name: &str, host: &str, start: i64, samples: u32) -> String {
    write_version(dir, name, host, start, samples, 2)
}

/// Writes an archive of format `version` with one U32 instant metric sampled once
/// a second.
fn write_version(
    dir: &Path,
    name: &str,
    host: &str,
    start: i64,
    samples: u32,
    version: u32,
) -> String {
    let base = dir.join(name);
    let label = |vol: i32| Label {
        version,
        pid: 1,
        start: Timestamp::new(start, 0),
        vol,
        features: 0,
        hostname: host.into(),
        timezone: "UTC".into(),
        zoneinfo: String::new(),
    };
    let mut meta = encode_label(&label(VOL_META));
    meta.extend(encode_frame(&encode_meta(&MetaRecord::Desc {
        desc: Desc {
            pmid: PMID,
            vtype: vtype::U32,
            indom: InDom::NULL,
            sem: sem::INSTANT,
            units: Units(0),
        },
        names: vec!["test.value".into()],
    })));
    let mut data = encode_label(&label(0));
    let mut index = encode_label(&label(VOL_INDEX));
    index.extend(encode_index_entry(
        &IndexEntry {
            stamp: Timestamp::new(start, 0),
            raw_nsec: 0,
            vol: 0,
            off_meta: meta.len() as i64,
            off_data: data.len() as i64,
        },
        version,
    ));
    for n in 0..samples {
        let vs = OwnedValueSet {
            pmid: PMID,
            numval: 1,
            valfmt: VAL_INSITU,
            values: vec![(-1, OwnedValue::Insitu(start as u32 % 1000 + n))],
        };
        data.extend(encode_frame(&encode_result(
            Timestamp::new(start + n as i64, 0),
            &[vs],
            version,
        )));
    }
    std::fs::write(base.with_extension("meta"), meta).expect("meta");
    std::fs::write(base.with_extension("0"), data).expect("data");
    std::fs::write(base.with_extension("index"), index).expect("index");
    base.to_string_lossy().into_owned()
}

#[test]
fn archives_of_one_host_read_as_one_with_a_mark_between() {
    let dir = tempfile::tempdir().expect("tempdir");
    let b = write(dir.path(), "b", "h", 1_000_100, 5);
    let a = write(dir.path(), "a", "h", 1_000_000, 5);
    // listed out of order: the context orders them by time
    let ctx = Archive::open_context(&format!("{b},{a}")).expect("context");
    assert_eq!(ctx.label().start, Timestamp::new(1_000_000, 0));
    assert_eq!(ctx.end_time().expect("end"), Timestamp::new(1_000_104, 0));

    let mut r = Replay::new(&ctx);
    r.set_mode(Mode::Forw, None, Delta::from_millis(0));
    let mut fwd = Vec::new();
    while let Ok(res) = r.fetch_archive() {
        fwd.push((res.stamp, res.sets.is_empty()));
    }
    assert_eq!(fwd.len(), 11);
    assert_eq!(
        fwd[5],
        (Timestamp::new(1_000_004, 1_000_000), true),
        "forward mark"
    );
    assert!(fwd.iter().filter(|(_, m)| *m).count() == 1);

    r.set_mode(
        Mode::Back,
        Some(Timestamp::new(1_000_104, 0)),
        Delta::from_millis(0),
    );
    let mut back = Vec::new();
    while let Ok(res) = r.fetch_archive() {
        back.push((res.stamp, res.sets.is_empty()));
    }
    assert_eq!(back.len(), 11);
    assert_eq!(
        back[5],
        (Timestamp::new(1_000_099, 999_000_000), true),
        "backward mark"
    );

    // interpolation does not bridge the gap between the archives
    r.set_mode(
        Mode::Interp,
        Some(Timestamp::new(1_000_002, 0)),
        Delta::from_millis(50_000),
    );
    let inside = r.fetch(&[PMID]).expect("fetch");
    assert_eq!(inside.sets[0].numval, 1);
    let gap = r.fetch(&[PMID]).expect("fetch");
    assert_eq!(gap.sets[0].numval, 0, "no value in the gap");
    let later = r.fetch(&[PMID]).expect("fetch");
    assert_eq!(later.sets[0].numval, 1);

    // a directory of archives is the same context
    let d = Archive::open_context(&dir.path().to_string_lossy()).expect("directory");
    assert_eq!(d.records().count(), 11);
}

/// libpcp reads a context of a v2 and a v3 archive (each volume in its own format).
#[test]
fn archives_of_both_versions_read_as_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (first, second) in [(2, 3), (3, 2)] {
        let a = write_version(dir.path(), &format!("a{first}"), "h", 1_000_000, 4, first);
        let b = write_version(dir.path(), &format!("b{second}"), "h", 1_000_100, 3, second);
        let ctx = Archive::open_context(&format!("{a},{b}")).expect("mixed context");
        assert_eq!(ctx.end_time().expect("end"), Timestamp::new(1_000_102, 0));
        let mut r = Replay::new(&ctx);
        r.set_mode(Mode::Forw, None, Delta::from_millis(0));
        let mut got = Vec::new();
        while let Ok(res) = r.fetch_archive() {
            // each record's one value, as written (none on the <mark>)
            let v = res.sets.first().map(|s| match s.values.as_slice() {
                [(-1, OwnedValue::Insitu(w))] => *w,
                other => panic!("one singular value was written: {other:?}"),
            });
            got.push((res.stamp.sec, v));
        }
        let want: Vec<(i64, Option<u32>)> = [
            (1_000_000, Some(0)),
            (1_000_001, Some(1)),
            (1_000_002, Some(2)),
            (1_000_003, Some(3)),
            (1_000_003, None),
            (1_000_100, Some(100)),
            (1_000_101, Some(101)),
            (1_000_102, Some(102)),
        ]
        .into();
        assert_eq!(got, want, "v{first} then v{second}");
        // backward across the boundary too
        assert_eq!(ctx.records_rev().count(), 8);
    }
}

#[test]
fn different_hosts_and_overlaps_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = write(dir.path(), "a", "h1", 1_000_000, 5);
    let b = write(dir.path(), "b", "h2", 1_000_100, 5);
    let c = write(dir.path(), "c", "h1", 1_000_002, 5);
    let e = Archive::open_context(&format!("{a},{b}")).expect_err("hosts differ");
    assert_eq!(e.pm_err(), PM_ERR_LOGHOST);
    let e = Archive::open_context(&format!("{a},{c}")).expect_err("overlap");
    assert_eq!(e.pm_err(), PM_ERR_LOGOVERLAP);
}

/// With `skip_damaged`, as PCP 7.1.4's libpcp: an archive that cannot be opened is
/// left out (and named), one of another host whose label reads stops the context,
/// and a list of which none opens is `PM_ERR_LOGFILE`; without it, the first
/// failure is the context's.
#[test]
fn damaged_archives_are_left_out_when_asked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = write(dir.path(), "a", "h", 1000, 3);
    let b = write(dir.path(), "b", "h", 2000, 3);
    let other = write(dir.path(), "o", "elsewhere", 3000, 3);
    // a label that does not read: the data volume cut to 10 bytes
    let bad = write(dir.path(), "bad", "h", 4000, 3);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(format!("{bad}.0"))
        .expect("open");
    f.set_len(10).expect("cut");
    let missing = dir.path().join("missing").to_string_lossy().into_owned();
    let spec = format!("{a},{bad},{missing},{b}");
    assert!(Archive::open_context(&spec).is_err());
    let mut left = Vec::new();
    let ctx = Archive::open_context_skipping(&spec, true, &mut |n, _| left.push(n.to_string()))
        .expect("two archives left");
    assert_eq!(left, vec![bad.clone(), missing.clone()]);
    assert!(ctx.is_multi());
    assert_eq!(ctx.records().count(), 7, "3 + a mark + 3");
    // an archive of another host that opens is not skipped: the context fails
    let spec = format!("{a},{other}");
    let e = Archive::open_context_skipping(&spec, true, &mut |_, _| {}).expect_err("hosts");
    assert_eq!(e.pm_err(), PM_ERR_LOGHOST);
    let e = Archive::open_context_skipping(&format!("{bad},{missing}"), true, &mut |_, _| {})
        .expect_err("none left");
    assert_eq!(e.pm_err(), archive_format::error::PM_ERR_LOGFILE);
}

/// With `skip_damaged`, as PCP 7.1.4's libpcp: an archive whose record turns out
/// corrupted as reading meets it is removed from the context (and named once),
/// and reading goes on at the next archive's first record; without it, the read
/// fails there.
#[test]
fn an_archive_corrupted_inside_is_removed_as_it_is_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = write(dir.path(), "a", "h", 1000, 3);
    let b = write(dir.path(), "b", "h", 2000, 3);
    let c = write(dir.path(), "c", "h", 3000, 3);
    // b's second record's trailer no longer matches its header
    let vol = format!("{b}.0");
    let mut bytes = std::fs::read(&vol).expect("read");
    let word = |b: &[u8], at: usize| u32::from_be_bytes(b[at..at + 4].try_into().expect("word"));
    let second = 132 + word(&bytes, 132) as usize;
    let trailer = second + word(&bytes, second) as usize - 4;
    bytes[trailer..trailer + 4].copy_from_slice(&7u32.to_be_bytes());
    std::fs::write(&vol, bytes).expect("write");
    let spec = format!("{a},{b},{c}");

    let plain = Archive::open_context(&spec).expect("opens");
    assert!(plain.records().any(|r| r.is_err()));

    let ctx = Archive::open_context_skipping(&spec, true, &mut |_, _| {}).expect("opens");
    let stamps: Vec<i64> = ctx
        .records()
        .map(|r| r.expect("no error once b is removed").1.stamp.sec)
        .collect();
    // a's three, the mark after a, b's first, then c's three (no mark: reading
    // goes straight on to c's first record)
    assert_eq!(stamps.len(), 8, "{stamps:?}");
    assert_eq!(&stamps[4..], [2000, 3000, 3001, 3002]);
    assert_eq!(ctx.take_removed(), vec![(b.clone(), 0)]);
    assert!(ctx.take_removed().is_empty(), "named once");
    // read again, b stays out
    assert_eq!(ctx.records().count(), 7, "a's three, a mark, c's three");
}
