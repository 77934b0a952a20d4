//! The writer round trip: random descriptors, instance domains (full and delta),
//! label sets, help text and results, v2 and v3, read back exactly as written.

use archive_format::codec::meta::LabelSet;
use archive_format::codec::result::{BlockData, OwnedValue, OwnedValueSet, VAL_DPTR, VAL_INSITU};
use archive_format::types::{sem, vtype};
use archive_format::writer::{ArchiveWriter, WriterOptions};
use archive_format::{Archive, Desc, InDom, PmId, Timestamp, Units};
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct Sample {
    /// instance id -> value, for each of the two metrics
    insts: Vec<(i32, u32)>,
    doubles: Vec<(i32, u64)>,
}

fn sample() -> impl Strategy<Value = Sample> {
    (
        proptest::collection::btree_map(0i32..40, any::<u32>(), 0..8),
        proptest::collection::btree_map(0i32..40, any::<u64>(), 0..8),
    )
        .prop_map(|(a, b)| Sample {
            insts: a.into_iter().collect(),
            doubles: b.into_iter().collect(),
        })
}

const INDOM: InDom = InDom((251 << 22) | 1);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    #[test]
    fn written_archives_read_back(
        v3 in any::<bool>(),
        samples in proptest::collection::vec(sample(), 1..12),
        text in "[ -~]{1,60}",
        label in "[a-z]{1,10}",
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().join("t");
        let mut w = ArchiveWriter::create(&base, WriterOptions {
            version: if v3 { 3 } else { 2 },
            hostname: "h".into(),
            timezone: "UTC".into(),
            zoneinfo: if v3 { ":UTC".into() } else { String::new() },
            pid: 42,
            ..Default::default()
        }).expect("create");
        let p1 = PmId::new(251, 0, 1);
        let p2 = PmId::new(251, 0, 2);
        w.put_desc(Desc { pmid: p1, vtype: vtype::U32, indom: INDOM, sem: sem::INSTANT, units: Units(0) }, &["t.a".into()]).expect("desc");
        w.put_desc(Desc { pmid: p2, vtype: vtype::U64, indom: INDOM, sem: sem::COUNTER, units: Units(0) }, &["t.b".into(), "t.c".into()]).expect("desc");
        w.put_text(4 | 1, p1.0, &text).expect("text");
        let json = format!("{{\"k\":\"{label}\"}}");
        let set = LabelSet { inst: -1, json: json.clone(), nlabels: 1, labels: vec![archive_format::codec::meta::LabelEntry { name_off: 2, name_len: 1, flags: 0, value_off: 5, value_len: (label.len() + 2) as u16 }] };
        let mut expect_snaps: Vec<Vec<(i32, String)>> = Vec::new();
        for (k, s) in samples.iter().enumerate() {
            let stamp = Timestamp::new(1_600_000_000 + k as i64, if v3 { 123_456_789 } else { 123_456_000 });
            let mut ids: Vec<i32> = s.insts.iter().map(|x| x.0).chain(s.doubles.iter().map(|x| x.0)).collect();
            ids.sort();
            ids.dedup();
            let insts: Vec<(i32, String)> = ids.iter().map(|i| (*i, format!("i{i}"))).collect();
            if w.put_indom(stamp, INDOM, &insts).expect("indom") {
                expect_snaps.push(insts.clone());
            }
            if k == 0 {
                w.put_labels(stamp, 0x10, p1.0, vec![set.clone()]).expect("labels");
            }
            let vsets = vec![
                OwnedValueSet { pmid: p1, numval: s.insts.len() as i32, valfmt: if s.insts.is_empty() { 0 } else { VAL_INSITU },
                    values: s.insts.iter().map(|(i, v)| (*i, OwnedValue::Insitu(*v))).collect() },
                OwnedValueSet { pmid: p2, numval: s.doubles.len() as i32, valfmt: if s.doubles.is_empty() { 0 } else { VAL_DPTR },
                    values: s.doubles.iter().map(|(i, v)| (*i, OwnedValue::Block { vtype: vtype::U64 as u8, data: BlockData::from_slice(&v.to_be_bytes()) })).collect() },
            ];
            w.put_result(stamp, &vsets).expect("result");
        }
        w.close().expect("close");

        let a = Archive::open(base.to_string_lossy()).expect("open what we wrote");
        prop_assert_eq!(a.label().version, if v3 { 3 } else { 2 });
        prop_assert_eq!(a.label().pid, 42);
        let m = a.metadata();
        prop_assert_eq!(m.descs().len(), 2);
        prop_assert_eq!(m.names(p2), ["t.b".to_string(), "t.c".to_string()]);
        prop_assert_eq!(m.text(4 | 1, p1.0), Some(text.as_str()));
        prop_assert_eq!(m.labels().len(), 1);
        prop_assert_eq!(&m.labels()[0].sets[0].json, &json);
        let snaps: Vec<Vec<(i32, String)>> = m.snapshots(INDOM).iter().map(|s| s.instances.iter().map(|(i, n)| (*i, n.to_string())).collect()).collect();
        prop_assert_eq!(&snaps, &expect_snaps);
        // the records as written (v3 writes a change as a delta), read again
        // from the file and applied in turn, give the same sets
        let mut applied: Vec<Vec<(i32, String)>> = Vec::new();
        for r in a.indom_records().expect("records") {
            prop_assert_eq!(r.indom, INDOM);
            let mut set = if r.kind == archive_format::codec::meta::InDomKind::Delta {
                applied.last().cloned().unwrap_or_default()
            } else {
                Vec::new()
            };
            for i in &r.instances {
                set.retain(|(id, _)| *id != i.inst);
                if let Some(n) = &i.name {
                    set.push((i.inst, n.clone()));
                }
            }
            set.sort();
            applied.push(set);
        }
        prop_assert_eq!(applied, expect_snaps);
        let recs: Vec<_> = a.records().map(|r| r.expect("record").1).collect();
        prop_assert_eq!(recs.len(), samples.len());
        for (r, s) in recs.iter().zip(&samples) {
            let got1: Vec<(i32, u32)> = r.vsets[0].values.iter().map(|(i, v)| (*i, match v { archive_format::Value::Insitu(w) => *w, _ => 0 })).collect();
            prop_assert_eq!(got1, s.insts.clone());
            let got2: Vec<(i32, u64)> = r.vsets[1].values.iter().map(|(i, v)| (*i, match v {
                archive_format::Value::Block { data, .. } => u64::from_be_bytes(data[..8].try_into().expect("8 bytes")),
                _ => 0,
            })).collect();
            prop_assert_eq!(got2, s.doubles.clone());
        }
        // the index points at the first record
        prop_assert!(!a.index().is_empty());
        prop_assert_eq!(a.index()[0].stamp, recs[0].stamp);
    }
}

#[test]
fn existing_archives_are_not_overwritten() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = dir.path().join("x");
    let w = ArchiveWriter::create(&base, WriterOptions::default()).expect("create");
    w.close().expect("close");
    assert!(ArchiveWriter::create(&base, WriterOptions::default()).is_err());
}
