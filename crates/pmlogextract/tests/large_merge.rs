//! A merge large enough that its records go file to file in several pieces on the
//! writer's copying thread: the output holds every record of the first input, a
//! `<mark>`, then every record of the second, byte for byte; and, where PCP is
//! installed, every output file is the reference pmlogextract's (apart from the
//! labels' pid).

use archive_format::codec::result::{OwnedValue, OwnedValueSet, VAL_DPTR};
use archive_format::types::{sem, vtype};
use archive_format::writer::{ArchiveWriter, WriterOptions};
use archive_format::{Archive, Desc, InDom, PmId, Timestamp, Units};
use std::path::Path;
use std::process::Command;

mod common;
use common::masked;

const METRICS: u32 = 40;
/// About 0.5 KB a record: 12 MB an input, past the writer's 8 MB pieces.
const RECORDS: u32 = 24_000;

/// An archive of `METRICS` 64-bit counters sampled every second from `start`.
fn write_input(base: &Path, start: i64) {
    let opts = WriterOptions {
        version: 2,
        hostname: "bighost".into(),
        timezone: "UTC".into(),
        pid: 1,
        ..Default::default()
    };
    let mut w = ArchiveWriter::create(base, opts).expect("create input");
    let pmids: Vec<PmId> = (0..METRICS).map(|i| PmId::new(251, 0, i)).collect();
    for (i, &pmid) in pmids.iter().enumerate() {
        let d = Desc {
            pmid,
            vtype: vtype::U64,
            indom: InDom::NULL,
            sem: sem::COUNTER,
            units: Units(0),
        };
        w.put_desc(d, &[format!("big.m{i}")]).expect("desc");
    }
    for k in 0..RECORDS {
        let vsets: Vec<OwnedValueSet> = pmids
            .iter()
            .map(|&pmid| {
                let v = (k as u64) * 1_000 + pmid.0 as u64;
                let block = OwnedValue::Block {
                    vtype: vtype::U64 as u8,
                    data: v.to_be_bytes().as_slice().into(),
                };
                OwnedValueSet {
                    pmid,
                    numval: 1,
                    valfmt: VAL_DPTR,
                    values: vec![(-1, block)],
                }
            })
            .collect();
        w.put_result(Timestamp::new(start + k as i64, 0), &vsets)
            .expect("result");
    }
    w.close().expect("close input");
}

/// Every data record's payload in order, `None` for a `<mark>` (a v2 record of no
/// metrics: its payload is the stamp and a zero count).
fn payloads(base: &Path) -> Vec<Option<Vec<u8>>> {
    let a = Archive::open(base.to_string_lossy()).expect("open");
    let mut out = Vec::new();
    let mut pos = a.start();
    while let Some((_, payload, next)) = a.read_raw_forward(pos).expect("read") {
        let mark = payload.is_none_or(|p| p.get(8..12) == Some(&[0; 4][..]));
        out.push(payload.filter(|_| !mark).map(|p| p.to_vec()));
        pos = next;
    }
    out
}

#[test]
fn a_large_merge_keeps_every_record_in_place() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    write_input(&a, 1_700_000_000);
    write_input(&b, 1_700_000_000 + RECORDS as i64 + 60);
    let out = dir.path().join("ours");
    let args: Vec<String> = [&a, &b, &out]
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let (mut so, mut se) = (Vec::new(), Vec::new());
    let status = pmlogextract::run(&args, &mut so, &mut se);
    assert_eq!(status, 0, "{}", String::from_utf8_lossy(&se));
    assert!(
        std::fs::metadata(dir.path().join("ours.0"))
            .expect("output volume")
            .len()
            > 2 * (8 << 20),
        "the inputs are too small to be copied in pieces"
    );

    let mut want = payloads(&a);
    want.push(None);
    want.extend(payloads(&b));
    let got = payloads(&out);
    assert_eq!(got.len(), want.len(), "record count");
    if let Some(k) = (0..got.len()).find(|&k| got[k] != want[k]) {
        panic!("record {k} of the merge differs from its input's");
    }

    if !test_support::have_tool("pmlogextract") {
        return;
    }
    let theirs = dir.path().join("theirs");
    let ran = Command::new("pmlogextract")
        .args([&a, &b, &theirs])
        .env("TZ", "UTC")
        .output()
        .expect("run the reference pmlogextract");
    assert!(ran.status.success(), "{ran:?}");
    for ext in ["0", "meta", "index"] {
        let (o, t) = (
            dir.path().join(format!("ours.{ext}")),
            dir.path().join(format!("theirs.{ext}")),
        );
        assert!(
            masked(&o) == masked(&t),
            ".{ext} differs from the reference's"
        );
    }
}
