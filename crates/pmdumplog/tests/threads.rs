//! The values are formatted on several threads and written in order: the output,
//! errors included, is the same byte for byte whatever the number of threads
//! (PCPRS_THREADS), on an archive of many jobs and on damaged copies of it.

use archive_format::codec::result::{OwnedValue, OwnedValueSet, VAL_DPTR};
use archive_format::types::{sem, vtype, Desc, InDom, PmId, Units};
use archive_format::writer::{ArchiveWriter, WriterOptions};
use archive_format::Timestamp;
use std::path::Path;
use std::process::Command;

/// An archive of 3,000 records of 12 metrics, some over an instance domain that
/// changes as it goes, some 64-bit (value blocks), one a string: a few MB of text,
/// many jobs. An instance name and some string values have a byte that is not
/// UTF-8. Returns each record's offset in the volume.
fn write_archive(base: &Path) -> Vec<u64> {
    let mut w = ArchiveWriter::create(
        base,
        WriterOptions {
            version: 2,
            hostname: "threads".into(),
            timezone: "UTC".into(),
            ..Default::default()
        },
    )
    .expect("create");
    let indom = InDom(0x0f00_0001);
    let mut descs = Vec::new();
    for k in 0..12u32 {
        let (ty, dom) = match k % 4 {
            0 => (vtype::U32, InDom::NULL),
            1 => (vtype::U64, indom),
            2 => (vtype::U32, indom),
            _ => (if k == 3 { vtype::STRING } else { vtype::I64 }, InDom::NULL),
        };
        let d = Desc {
            pmid: PmId::new(60, 1, k),
            vtype: ty,
            indom: dom,
            sem: sem::INSTANT,
            units: Units(0),
        };
        w.put_desc(d, &[format!("threads.m{k}")]).expect("desc");
        descs.push(d);
    }
    // and now and then a record with a metric of 6,000 instances: a record of more
    // than one job, dumped a part at a time
    let big_indom = InDom(0x0f00_0002);
    let big = Desc {
        pmid: PmId::new(60, 2, 0),
        vtype: vtype::U64,
        indom: big_indom,
        sem: sem::COUNTER,
        units: Units(0),
    };
    w.put_desc(big, &["threads.big".into()]).expect("desc");
    let big_insts: Vec<(i32, String)> = (0..6000).map(|i| (i, format!("big {i}"))).collect();
    w.put_indom(Timestamp::new(1_700_000_000, 0), big_indom, &big_insts)
        .expect("indom");
    let mut starts = Vec::new();
    for r in 0..3000u32 {
        let t = Timestamp::new(1_700_000_000 + r as i64, (r % 1000) * 1000);
        // instances come and go every 500 records
        let n = 3 + (r / 500) as i32 % 4;
        // one name has a byte that is not UTF-8 (0xc9, as the library holds it)
        let insts: Vec<(i32, String)> = (0..n)
            .map(|i| {
                (
                    i,
                    format!("inst-{i} of {n}{}", if i == 1 { "\u{10ffc9}" } else { "" }),
                )
            })
            .collect();
        w.put_indom(t, indom, &insts).expect("indom");
        let mut sets = Vec::new();
        for d in &descs {
            let ids: Vec<i32> = if d.indom.is_null() {
                vec![-1]
            } else {
                (0..n).collect()
            };
            let vals: Vec<(i32, OwnedValue)> = ids
                .iter()
                .map(|&i| {
                    let x = (r as u64) * 1_000_003 + (i.max(0) as u64) * 17 + d.pmid.0 as u64;
                    let v = match d.vtype {
                        vtype::U32 => OwnedValue::Insitu(x as u32),
                        vtype::STRING => OwnedValue::Block {
                            vtype: vtype::STRING as u8,
                            // and a byte that is not UTF-8 now and then
                            data: [
                                format!("text {x}").as_bytes(),
                                &[0xe9][..usize::from(x.is_multiple_of(3))],
                                b"\0",
                            ]
                            .concat()
                            .into(),
                        },
                        _ => OwnedValue::Block {
                            vtype: d.vtype as u8,
                            data: x.to_le_bytes().as_slice().into(),
                        },
                    };
                    (i, v)
                })
                .collect();
            let block = matches!(vals[0].1, OwnedValue::Block { .. });
            sets.push(OwnedValueSet {
                pmid: d.pmid,
                numval: vals.len() as i32,
                valfmt: if block { VAL_DPTR } else { 0 },
                values: vals,
            });
        }
        if r % 250 == 3 {
            sets.insert(
                sets.len() / 2,
                OwnedValueSet {
                    pmid: big.pmid,
                    numval: 6000,
                    valfmt: VAL_DPTR,
                    values: (0..6000)
                        .map(|i| {
                            let x = r as u64 * 7 + i as u64;
                            (
                                i,
                                OwnedValue::Block {
                                    vtype: vtype::U64 as u8,
                                    data: x.to_le_bytes().as_slice().into(),
                                },
                            )
                        })
                        .collect(),
                },
            );
        }
        starts.push(w.write_result(t, &sets).expect("result"));
    }
    w.close().expect("close");
    starts
}

/// stdout, stderr and status of our pmdumplog with `threads` threads.
fn run(threads: usize, args: &[&str]) -> (Vec<u8>, Vec<u8>, Option<i32>) {
    let out = Command::new(env!("CARGO_BIN_EXE_pmdumplog"))
        .args(args)
        .env("PCPRS_THREADS", threads.to_string())
        .env("TZ", "UTC")
        .output()
        .expect("run pmdumplog");
    (out.stdout, out.stderr, out.status.code())
}

fn same_on_every_thread_count(args: &[&str]) -> (Vec<u8>, Vec<u8>, Option<i32>) {
    let one = run(1, args);
    for t in [2, 3, 5] {
        let many = run(t, args);
        assert!(
            many == one,
            "{args:?}: {t} threads differ from one (status {:?} vs {:?}, {} vs {} bytes, stderr {:?} vs {:?})",
            many.2,
            one.2,
            many.0.len(),
            one.0.len(),
            String::from_utf8_lossy(&many.1),
            String::from_utf8_lossy(&one.1),
        );
    }
    one
}

/// [`write_archive`]'s archive as `name` in a directory of its own (gone with
/// it): the directory, each record's offset and the archive's path.
fn archive_named(name: &str) -> (tempfile::TempDir, Vec<u64>, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = dir.path().join(name);
    let starts = write_archive(&base);
    let b = base.to_str().expect("utf-8 path").to_string();
    (dir, starts, b)
}

#[test]
fn output_does_not_depend_on_the_number_of_threads() {
    let (dir, starts, b) = archive_named("a");
    let b = b.as_str();
    let (out, _, status) = same_on_every_thread_count(&["-a", b]);
    assert_eq!(status, Some(0));
    assert!(out.len() > 1 << 20, "a small dump: {} bytes", out.len());
    let values = out.windows(7).filter(|w| w == b" value ").count();
    // six singular metrics, six over the domain of 3, 4, 5, 6, 3 and 4 instances
    assert_eq!(
        values,
        3000 * 6 + 6 * 500 * (3 + 4 + 5 + 6 + 3 + 4) + 12 * 6000
    );
    for args in [
        vec!["-a", b],
        vec!["-m", "-s", "-x", b],
        vec!["-m", "-s", "-r", b],
        vec!["-m", b, "threads.big", "threads.m2"],
        vec![
            "-m",
            "-S",
            "@ 2023-11-14 22:20:00",
            "-T",
            "@ 2023-11-14 22:40:00",
            b,
        ],
        vec!["-m", b, "threads.m1", "threads.m3"],
        vec!["-m", "-r", b],
    ] {
        let (_, _, status) = same_on_every_thread_count(&args);
        assert_eq!(status, Some(0), "{args:?}");
    }

    // a record whose value lists are damaged in the middle: the dump stops there
    // with pmFetch's error, after every record before it
    let vol = dir.path().join("a.0");
    let good = std::fs::read(&vol).expect("volume");
    std::fs::write(&vol, damaged_record(&good, &starts)).expect("damage");
    let (out, err, status) = same_on_every_thread_count(&["-m", b]);
    assert_eq!(status, Some(1));
    assert!(
        String::from_utf8_lossy(&err).contains("pmFetch"),
        "{}",
        String::from_utf8_lossy(&err)
    );
    let records = out.windows(9).filter(|w| w == b" metrics\n").count();
    assert_eq!(records, 1700);
    // a large record (dumped in parts) whose value block points outside it
    let mut bad = good.clone();
    let big_rec = starts[1503] as usize;
    // the first pointer of the big set: find its pmid in the record
    let pmid = PmId::new(60, 2, 0).0.to_be_bytes();
    let at = big_rec
        + bad[big_rec..big_rec + 4096]
            .windows(4)
            .position(|w| w == pmid)
            .expect("the big set");
    // pmid, numval, valfmt, then (inst, pointer) pairs: the 3rd pointer
    let ptr = at + 12 + 2 * 8 + 4;
    bad[ptr..ptr + 4].copy_from_slice(&0x7fff_fff0u32.to_be_bytes());
    std::fs::write(&vol, &bad).expect("damage");
    let (out, err, status) = same_on_every_thread_count(&["-m", b]);
    assert_eq!(status, Some(1));
    assert!(String::from_utf8_lossy(&err).contains("pmFetch"));
    let records = out.windows(9).filter(|w| w == b" metrics\n").count();
    assert_eq!(records, 1503);
    // cut short in the middle of a record: the same, a framing error this time
    std::fs::write(&vol, &good[..starts[2200] as usize + 40]).expect("truncate");
    let (out, err, status) = same_on_every_thread_count(&["-m", b]);
    assert_eq!(status, Some(1));
    assert!(!err.is_empty());
    let records = out.windows(9).filter(|w| w == b" metrics\n").count();
    assert_eq!(records, 2200);
}

/// [`write_archive`]'s archive as `name` with its volume xz-compressed: the
/// directory, each record's offset, the archive's path, the plain volume's bytes
/// and the compressed volume's path (which [`write_xz`] writes).
fn compressed_archive(
    name: &str,
) -> (
    tempfile::TempDir,
    Vec<u64>,
    String,
    Vec<u8>,
    std::path::PathBuf,
) {
    let (dir, starts, b) = archive_named(name);
    let vol = dir.path().join(format!("{name}.0"));
    let good = std::fs::read(&vol).expect("volume");
    std::fs::remove_file(&vol).expect("remove plain volume");
    let xz = dir.path().join(format!("{name}.0.xz"));
    write_xz(&xz, &good);
    (dir, starts, b, good, xz)
}

/// `bytes` xz-compressed into `path`.
fn write_xz(path: &Path, bytes: &[u8]) {
    use archive_format::compress::{compress, Compression};
    let z = compress(Compression::Xz, bytes).expect("xz");
    std::fs::write(path, z).expect("write");
}

/// The volume `good` with record 1700's value lists damaged (the dump stops there).
fn damaged_record(good: &[u8], starts: &[u64]) -> Vec<u8> {
    let mut bad = good.to_vec();
    let at = starts[1700] as usize + 4 + 8;
    bad[at..at + 4].copy_from_slice(&0x00ff_ffffu32.to_be_bytes());
    bad
}

/// The compressed file `xz` damaged after the label, its index intact.
fn damage_compressed(xz: &Path) {
    let mut z = std::fs::read(xz).expect("xz");
    let at = z.len() / 2;
    for byte in &mut z[at..at + 32] {
        *byte ^= 0xa5;
    }
    std::fs::write(xz, &z).expect("damage");
}

/// The one volume xz-compressed: on more than one thread its values are
/// formatted while it decodes and spooled until the report's head (which needs
/// the archive's end) is out. The output is the one thread's, which decodes the
/// volume first: on a sound volume, on one with a damaged record, and on one
/// whose compressed data is damaged part way (dumped again the usual way).
#[test]
fn a_compressed_volume_dumped_while_it_decodes() {
    let (_dir, starts, b, good, xz) = compressed_archive("z");
    let b = b.as_str();
    for args in [
        vec!["-a", b],
        vec!["-m", "-x", b],
        vec!["-L", "-i", "-m", b],
    ] {
        let (out, _, status) = same_on_every_thread_count(&args);
        assert_eq!(status, Some(0), "{args:?}");
        assert!(out.len() > 1 << 20, "a small dump: {} bytes", out.len());
        // the bytes that are not UTF-8 printed as they are
        let name = b"inst-1 of 3\xc9";
        assert!(out.windows(name.len()).any(|w| w == name), "{args:?}");
        assert!(!out.windows(2).any(|w| w == b"\xf4\x8f"), "{args:?}");
        if args[0] == "-a" {
            assert!(out.windows(2).any(|w| w == b"\xe9\""), "{args:?}");
        }
    }
    write_xz(&xz, &damaged_record(&good, &starts));
    let (out, _, status) = same_on_every_thread_count(&["-a", b]);
    assert_eq!(status, Some(1));
    assert_eq!(out.windows(9).filter(|w| w == b" metrics\n").count(), 1700);
    write_xz(&xz, &good);
    damage_compressed(&xz);
    let (_, err, status) = same_on_every_thread_count(&["-a", b]);
    assert_ne!(status, Some(0), "{}", String::from_utf8_lossy(&err));
}

/// Where [`run_to_file`] sends standard output.
#[derive(Clone, Copy, Debug)]
enum Into {
    /// A new file.
    New,
    /// A file holding a line, opened to append.
    Appended,
    /// A file holding a line, opened to write after it (not to append).
    After,
    /// A new file, standard error going into it too (`>f 2>&1`).
    Shared,
}

const BEFORE: &[u8] = b"a line before the report\n";

/// Our pmdumplog on `threads` threads with its standard output a regular file:
/// what the file holds after the line put there before, what standard error
/// said (unless it went into the file), the status.
fn run_to_file(threads: usize, into: Into, args: &[&str]) -> (Vec<u8>, Vec<u8>, Option<i32>) {
    use std::fs::OpenOptions;
    use std::io::{Seek, SeekFrom, Write};
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("out");
    let mut file = match into {
        Into::New | Into::Shared => std::fs::File::create(&path).expect("create"),
        Into::Appended | Into::After => {
            std::fs::write(&path, BEFORE).expect("write");
            let mut o = OpenOptions::new();
            o.read(true).write(true);
            if let Into::Appended = into {
                o.append(true);
            }
            let mut f = o.open(&path).expect("open");
            f.seek(SeekFrom::End(0)).expect("seek");
            f
        }
    };
    file.flush().expect("flush");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pmdumplog"));
    cmd.args(args)
        .env("PCPRS_THREADS", threads.to_string())
        .env("TZ", "UTC");
    if let Into::Shared = into {
        cmd.stderr(file.try_clone().expect("dup"));
    }
    let out = cmd.stdout(file).output().expect("run pmdumplog");
    let mut written = std::fs::read(&path).expect("read");
    if matches!(into, Into::Appended | Into::After) {
        assert!(
            written.starts_with(BEFORE),
            "{into:?}: the line before is gone"
        );
        written.drain(..BEFORE.len());
    }
    (written, out.stderr, out.status.code())
}

/// To a regular file, the report's head (which needs the archive's end) is
/// written last into room left for it and nothing is spooled: the file holds what
/// a pipe gets, wherever the report starts in it, also where the dump stops with
/// an error, where the compressed volume is damaged part way (what was written is
/// taken back and the report made again) and with standard error going into the
/// same file; a file opened to append is written in order instead.
#[test]
fn a_compressed_volume_dumped_into_a_file() {
    let (_dir, starts, b, good, xz) = compressed_archive("f");
    let b = b.as_str();
    let check = |args: &[&str]| {
        let piped = run(1, args);
        for into in [Into::New, Into::Appended, Into::After] {
            for t in [1, 2, 3] {
                assert!(
                    run_to_file(t, into, args) == piped,
                    "{args:?}, {into:?}, {t} threads: not what a pipe gets"
                );
            }
        }
        // standard error into the file too: as one thread (which spools nothing)
        // leaves it
        let one = run_to_file(1, Into::Shared, args);
        assert_eq!(one.0.len(), piped.0.len() + piped.1.len(), "{args:?}");
        for t in [2, 3] {
            assert!(
                run_to_file(t, Into::Shared, args) == one,
                "{args:?}, {t} threads, 2>&1"
            );
        }
        piped
    };
    for args in [vec!["-a", b], vec!["-m", "-x", b]] {
        let (out, _, status) = check(&args);
        assert_eq!(status, Some(0), "{args:?}");
        assert!(out.len() > 1 << 20, "a small dump: {} bytes", out.len());
    }
    write_xz(&xz, &damaged_record(&good, &starts));
    let (out, err, status) = check(&["-a", b]);
    assert_eq!(status, Some(1));
    assert!(String::from_utf8_lossy(&err).contains("pmFetch"));
    assert_eq!(out.windows(9).filter(|w| w == b" metrics\n").count(), 1700);
    write_xz(&xz, &good);
    damage_compressed(&xz);
    let (_, err, status) = check(&["-a", b]);
    assert_ne!(status, Some(0), "{}", String::from_utf8_lossy(&err));
}
