//! Property tests: every codec round-trips, and damaged archives (truncated, bytes
//! flipped) give errors, never panics.

use archive_format::codec::event::{decode_events, EventArrayBuilder};
use archive_format::codec::index::{decode_index, encode_index_entry, IndexEntry};
use archive_format::codec::label::{decode_label, encode_label, Label};
use archive_format::codec::meta::{
    decode_meta, encode_meta, indom_head, InDomKind, Instance, LabelEntry, LabelSet, MetaRecord,
    INDOM_HEAD_LEN,
};
use archive_format::codec::result::{
    decode_result, encode_result, OwnedValue, OwnedValueSet, Value,
};
use archive_format::{Archive, Desc, InDom, PmId, Timestamp, Units};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn ts(v3: bool) -> impl Strategy<Value = Timestamp> {
    (0i64..=i32::MAX as i64, 0u32..1_000_000)
        .prop_map(move |(s, u)| Timestamp::new(s, if v3 { u * 999 } else { u * 1000 }))
}

fn name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_.]{0,20}"
}

proptest! {
    #[test]
    fn label_round_trip(v3 in any::<bool>(), pid in any::<i32>(), host in "[a-z.-]{0,60}", tz in "[A-Z0-9+-]{0,30}", t in ts(true)) {
        let l = Label {
            version: if v3 { 3 } else { 2 },
            pid,
            start: if v3 { t } else { Timestamp::new(t.sec, t.nsec / 1000 * 1000) },
            vol: 0,
            features: 0,
            hostname: host,
            timezone: tz.clone(),
            zoneinfo: if v3 { tz } else { String::new() },
        };
        prop_assert_eq!(decode_label(&encode_label(&l)).unwrap(), l);
    }

    #[test]
    fn desc_round_trip(pmid in any::<u32>(), ty in -1i32..11, indom in any::<u32>(), sem in 0i32..5, units in any::<u32>(), names in proptest::collection::vec(name(), 1..5)) {
        let r = MetaRecord::Desc { desc: Desc { pmid: PmId(pmid), vtype: ty, indom: InDom(indom), sem, units: Units(units) }, names };
        prop_assert_eq!(indom_head(&encode_meta(&r)), None);
        prop_assert_eq!(decode_meta(&encode_meta(&r), 0).unwrap(), r);
    }

    #[test]
    fn indom_round_trip(kind in 0u8..3, t in ts(true), indom in any::<u32>(), insts in proptest::collection::btree_map(0i32..100000, proptest::option::of("[ -~]{0,30}"), 0..40)) {
        let kind = [InDomKind::V2, InDomKind::Full, InDomKind::Delta][kind as usize];
        let instances: Vec<Instance> = insts.into_iter().map(|(inst, n)| Instance {
            inst,
            name: if kind == InDomKind::Delta { n.map(|s| s.replace('\0', "")) } else { Some(n.unwrap_or_default().replace('\0', "")) },
        }).collect();
        let stamp = if kind == InDomKind::V2 { Timestamp::new(t.sec, t.nsec / 1000 * 1000) } else { t };
        let r = MetaRecord::InDom { kind, stamp, indom: InDom(indom), instances };
        let b = encode_meta(&r);
        // the head alone says what the record is, from no more than its first bytes
        let head = &b[..b.len().min(INDOM_HEAD_LEN)];
        prop_assert_eq!(indom_head(head), Some((kind, stamp, InDom(indom))));
        prop_assert_eq!(decode_meta(&b, 0).unwrap(), r);
    }

    #[test]
    fn labelset_and_text_round_trip(v3 in any::<bool>(), t in ts(false), json in "[ -~]{0,80}", n in 0usize..4, text in "[ -~\n]{0,200}") {
        let sets = vec![LabelSet {
            inst: -1,
            json,
            nlabels: n as i32,
            labels: (0..n).map(|i| LabelEntry { name_off: i as u16, name_len: 1, flags: 1, value_off: 2, value_len: 3 }).collect(),
        }];
        let r = MetaRecord::Label { v3, stamp: t, ltype: 1, ident: 0xffff_ffff, sets };
        prop_assert_eq!(decode_meta(&encode_meta(&r), 0).unwrap(), r);
        let r = MetaRecord::Text { ttype: 5, ident: 7, text };
        prop_assert_eq!(decode_meta(&encode_meta(&r), 0).unwrap(), r);
    }

    #[test]
    fn index_round_trip(v3 in any::<bool>(), t in ts(false), vol in 0i32..100, m in 0i64..i32::MAX as i64, d in 0i64..i32::MAX as i64) {
        let v = if v3 { 3 } else { 2 };
        let e = IndexEntry { stamp: t, raw_nsec: t.nsec as i64, vol, off_meta: m, off_data: d };
        prop_assert_eq!(decode_index(&encode_index_entry(&e, v), 0, v).unwrap(), vec![e]);
    }

    #[test]
    fn result_round_trip(v3 in any::<bool>(), t in ts(false), sets in proptest::collection::vec((any::<u32>(), proptest::collection::vec((any::<i32>(), any::<u32>(), proptest::collection::vec(any::<u8>(), 0..20)), 0..5), any::<bool>()), 0..6)) {
        let v = if v3 { 3 } else { 2 };
        let vsets: Vec<OwnedValueSet> = sets.iter().map(|(pmid, vals, insitu)| OwnedValueSet {
            pmid: PmId(*pmid),
            numval: vals.len() as i32,
            valfmt: if *insitu { 0 } else { 1 },
            values: vals.iter().map(|(i, w, b)| (*i, if *insitu { OwnedValue::Insitu(*w) } else { OwnedValue::Block { vtype: 7, data: b.as_slice().into() } })).collect(),
        }).collect();
        let p = encode_result(t, &vsets, v);
        // what the encoder makes is canonical: it may be copied as is
        let mut pmids = Vec::new();
        prop_assert!(archive_format::codec::result::scan_canonical(&p, v, &mut pmids));
        prop_assert_eq!(pmids, vsets.iter().map(|x| x.pmid).collect::<Vec<_>>());
        if p.len() > 16 {
            let mut q = p.clone();
            q.push(0);
            prop_assert!(!archive_format::codec::result::scan_canonical(&q, v, &mut Vec::new()));
        }
        let r = decode_result(&p, 4, v).unwrap();
        prop_assert_eq!(r.stamp, t);
        prop_assert_eq!(r.vsets.len(), vsets.len());
        for (a, b) in r.vsets.iter().zip(&vsets) {
            prop_assert_eq!(a.pmid, b.pmid);
            prop_assert_eq!(a.values.len(), b.values.len());
            for ((ia, va), (ib, vb)) in a.values.iter().zip(&b.values) {
                prop_assert_eq!(ia, ib);
                match (va, vb) {
                    (Value::Insitu(x), OwnedValue::Insitu(y)) => prop_assert_eq!(x, y),
                    (Value::Block { data, .. }, OwnedValue::Block { data: d2, .. }) => prop_assert_eq!(*data, d2.as_slice()),
                    _ => prop_assert!(false, "value form changed"),
                }
            }
        }
    }

    /// What `scan_canonical` accepts is copied as stored in place of decoding and
    /// re-encoding it, so whatever it accepts, damaged or not, must decode and
    /// encode back to the same bytes.
    #[test]
    fn what_scan_canonical_accepts_re_encodes_to_itself(v3 in any::<bool>(), t in ts(false), sets in proptest::collection::vec((any::<u32>(), proptest::collection::vec((any::<i32>(), any::<u32>(), proptest::collection::vec(any::<u8>(), 0..12)), 0..4), any::<bool>()), 0..5), flips in proptest::collection::vec((any::<prop::sample::Index>(), 1u8..), 0..3)) {
        let v = if v3 { 3 } else { 2 };
        let vsets: Vec<OwnedValueSet> = sets.iter().map(|(pmid, vals, insitu)| OwnedValueSet {
            pmid: PmId(*pmid),
            numval: vals.len() as i32,
            valfmt: if vals.is_empty() || *insitu { 0 } else { 1 },
            values: vals.iter().map(|(i, w, b)| (*i, if *insitu { OwnedValue::Insitu(*w) } else { OwnedValue::Block { vtype: 7, data: b.as_slice().into() } })).collect(),
        }).collect();
        let mut p = encode_result(t, &vsets, v);
        for (at, x) in &flips {
            if !p.is_empty() {
                let i = at.index(p.len());
                p[i] ^= x;
            }
        }
        if archive_format::codec::result::scan_canonical(&p, v, &mut Vec::new()) {
            let r = decode_result(&p, 4, v);
            prop_assert!(r.is_ok(), "accepted but does not decode: {:?}", r.err());
            let r = r.unwrap();
            let owned: Vec<OwnedValueSet> = r.vsets.iter().map(OwnedValueSet::from_set).collect();
            prop_assert_eq!(encode_result(r.stamp, &owned, v), p.clone());
        }
    }

    #[test]
    fn events_round_trip(highres in any::<bool>(), recs in proptest::collection::vec((0i64..i32::MAX as i64, 0u32..1_000_000, proptest::collection::vec((any::<u32>(), proptest::collection::vec(any::<u8>(), 0..12)), 0..4)), 0..5)) {
        let mut b = EventArrayBuilder::new(highres);
        for (s, u, params) in &recs {
            b.add_record(Timestamp::new(*s, u * 1000), 1);
            for (p, data) in params {
                b.add_param(PmId(*p), 7, data);
            }
        }
        let data = b.finish();
        let got = decode_events(&data, 0, highres).unwrap();
        prop_assert_eq!(got.len(), recs.len());
        for (g, (s, u, params)) in got.iter().zip(&recs) {
            prop_assert_eq!(g.stamp, Timestamp::new(*s, u * 1000));
            prop_assert_eq!(g.params.len(), params.len());
            for (gp, (p, d)) in g.params.iter().zip(params) {
                prop_assert_eq!(gp.pmid, PmId(*p));
                prop_assert_eq!(gp.data, d.as_slice());
            }
        }
    }
}

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/archives")
}

/// Opens and reads everything of the archive at `base`; must not panic.
fn exercise(base: &Path) {
    if let Ok(a) = Archive::open(base.to_string_lossy()) {
        let m = a.metadata();
        let _ = m.descs_hash_order();
        for d in m.indoms_hash_order() {
            let _ = m.indom_union(d);
        }
        let _ = a.end_time();
        for r in a.records().take(10_000) {
            if r.is_err() {
                break;
            }
        }
        for r in a.records_rev().take(10_000) {
            if r.is_err() {
                break;
            }
        }
        // replay as pmdumplog does, both ways, from either end and the middle
        use archive_format::logfetch::{Direction, LogCursor};
        let end = a.end_time().unwrap_or(a.label().start);
        let mid = archive_format::Timestamp::from_nanos(
            (a.label().start.as_nanos() + end.as_nanos()) / 2,
        );
        for (dir, origin) in [
            (Direction::Forward, a.label().start),
            (Direction::Forward, mid),
            (Direction::Backward, end),
            (Direction::Backward, mid),
        ] {
            let mut c = LogCursor::new(&a);
            c.set_mode(dir, origin);
            for _ in 0..10_000 {
                match c.fetch() {
                    Ok(Some(_)) => {}
                    _ => break,
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn damaged_archives_never_panic(arch in 0usize..3, file in 0usize..3, cut in any::<prop::sample::Index>(), flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8), truncate in any::<bool>()) {
        let names = ["sample_v2", "sample_v3", "pmi_v2"];
        let exts = ["meta", "0", "index"];
        let dir = tempfile::tempdir().unwrap();
        for e in exts {
            let src = testdata().join(format!("{}.{e}", names[arch]));
            std::fs::copy(&src, dir.path().join(format!("a.{e}"))).unwrap();
        }
        let victim = dir.path().join(format!("a.{}", exts[file]));
        let mut bytes = std::fs::read(&victim).unwrap();
        for (at, b) in flips {
            let i = at.index(bytes.len());
            bytes[i] ^= b;
        }
        if truncate {
            let n = cut.index(bytes.len() + 1);
            bytes.truncate(n);
        }
        std::fs::write(&victim, &bytes).unwrap();
        exercise(&dir.path().join("a"));
    }
}

#[test]
fn every_truncation_of_a_data_volume_is_handled() {
    let src = std::fs::read(testdata().join("sample_v3.0")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for e in ["meta", "index"] {
        std::fs::copy(
            testdata().join(format!("sample_v3.{e}")),
            dir.path().join(format!("a.{e}")),
        )
        .unwrap();
    }
    // where each record of the volume ends (the label first): a frame's first word
    // is its length
    let mut ends = Vec::new();
    let mut at = 0usize;
    while at + 4 <= src.len() {
        let len = u32::from_be_bytes(src[at..at + 4].try_into().unwrap()) as usize;
        assert!(len >= 8, "a frame of {len} bytes at {at}");
        at += len;
        ends.push(at);
    }
    assert_eq!(at, src.len(), "the volume is whole frames");
    let records = ends.len() - 1;
    assert!(records > 10, "{records} records");
    let mut errors = 0;
    for n in (0..src.len()).step_by(97).chain([src.len()]) {
        std::fs::write(dir.path().join("a.0"), &src[..n]).unwrap();
        match Archive::open(dir.path().join("a").to_string_lossy()) {
            Err(e) => {
                errors += 1;
                assert!(e.path().is_some(), "error names no file: {e}");
                assert!(
                    n < ends[0],
                    "a volume with its label whole opens ({n} bytes): {e}"
                );
            }
            Ok(a) => {
                // every whole record reads, and nothing past them
                let whole = ends[1..].iter().filter(|e| **e <= n).count();
                let n_ok = a.records().take_while(|r| r.is_ok()).count();
                assert_eq!(n_ok, whole, "records read from the first {n} bytes");
            }
        }
    }
    assert!(
        errors > 0,
        "truncating to below the label must fail to open"
    );
}
