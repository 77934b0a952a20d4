//! `Replay::fetch_archive_for` is `pmFetchArchive` called until a record holds a
//! wanted metric (or is a `<mark>`): the same records, with the wanted sets, in
//! both directions, whatever the order of the records' times (a record earlier
//! than one read before is skipped, whether that one was wanted or not).

use archive_format::codec::result::{OwnedValue, OwnedValueSet, VAL_INSITU};
use archive_format::replay::{Delta, FetchResult, Mode, Replay};
use archive_format::types::{sem, vtype};
use archive_format::writer::{ArchiveWriter, WriterOptions};
use archive_format::{Archive, Desc, InDom, PmId, Timestamp, Units};
use proptest::prelude::*;

const METRICS: [PmId; 3] = [
    PmId((60 << 22) | 1),
    PmId((60 << 22) | 2),
    PmId((60 << 22) | 3),
];

/// Each record: its second (times may go back) and which metrics it holds.
fn write(dir: &std::path::Path, recs: &[(i64, [bool; 3])]) -> Archive {
    let base = dir.join("t");
    let mut w = ArchiveWriter::create(
        &base,
        WriterOptions {
            hostname: "h".into(),
            timezone: "UTC".into(),
            ..Default::default()
        },
    )
    .expect("create");
    for (k, p) in METRICS.iter().enumerate() {
        let d = Desc {
            pmid: *p,
            vtype: vtype::U32,
            indom: InDom::NULL,
            sem: sem::INSTANT,
            units: Units(0),
        };
        w.put_desc(d, &[format!("m.{k}")]).expect("desc");
    }
    for (n, (sec, has)) in recs.iter().enumerate() {
        let vsets: Vec<OwnedValueSet> = METRICS
            .iter()
            .zip(has)
            .filter(|(_, h)| **h)
            .map(|(p, _)| OwnedValueSet {
                pmid: *p,
                numval: 1,
                valfmt: VAL_INSITU,
                values: vec![(-1, OwnedValue::Insitu(n as u32))],
            })
            .collect();
        w.put_result(Timestamp::new(1_700_000_000 + sec, 0), &vsets)
            .expect("result");
    }
    w.close().expect("close");
    Archive::open(base.to_string_lossy()).expect("open")
}

/// What the caller sees of a fetch: time and (metric, value) pairs.
fn seen(f: &FetchResult) -> (Timestamp, Vec<(PmId, usize)>) {
    (
        f.stamp,
        f.sets.iter().map(|s| (s.pmid, s.values.len())).collect(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn the_records_fetched_one_by_one_that_hold_the_metric(
        recs in proptest::collection::vec((0i64..20, any::<[bool; 3]>()), 1..25),
        back in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        let a = write(dir.path(), &recs);
        let keep = |p: PmId| p == METRICS[1];
        let (mode, from) = if back {
            (Mode::Back, a.end_time().expect("end"))
        } else {
            (Mode::Forw, a.label().start)
        };
        let mut r = Replay::new(&a);
        r.set_mode(mode, Some(from), Delta::from_millis(0));
        let mut want = Vec::new();
        while let Ok(f) = r.fetch_archive() {
            if f.sets.is_empty() || f.sets.iter().any(|s| keep(s.pmid)) {
                let kept = FetchResult { stamp: f.stamp, sets: f.sets.into_iter().filter(|s| keep(s.pmid)).collect() };
                want.push(seen(&kept));
            }
        }
        let mut r = Replay::new(&a);
        r.set_mode(mode, Some(from), Delta::from_millis(0));
        let mut got = Vec::new();
        while let Ok(f) = r.fetch_archive_for(&keep) {
            got.push(seen(&f));
        }
        prop_assert_eq!(got, want);
    }
}
