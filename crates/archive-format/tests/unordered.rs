//! Interpolation over an archive whose records are not in time order: one volume
//! holding two runs over the same hour, the first of metric `a`, the second of
//! metric `b` (as PCP 7.2's QA archive `gfs`). libpcp's scans meet `b` in the
//! second run and follow it from there; so does ours.

mod common;

use archive_format::codec::result::{OwnedValue, OwnedValueSet};
use archive_format::replay::{Delta, Mode, Replay};
use archive_format::types::{sem, vtype};
use archive_format::{Archive, Desc, InDom, PmId, Timestamp, Units};
use std::path::Path;

const T0: i64 = 1_700_000_000;

fn pmid(k: u32) -> PmId {
    PmId::new(61, 0, k)
}

/// Two runs of 7 records 10 s apart from T0: `a` = 1000 + k, then `b` = 100 + k.
fn write(base: &Path) {
    let mut w = common::v3_writer(base);
    for k in 0..2 {
        let d = Desc {
            pmid: pmid(k),
            vtype: vtype::U32,
            indom: InDom::NULL,
            sem: sem::INSTANT,
            units: Units(0),
        };
        w.put_desc(d, &[format!("m.{}", ["a", "b"][k as usize])])
            .expect("desc");
    }
    for (metric, base_value) in [(0, 1000), (1, 100)] {
        for k in 0..7u32 {
            let set = OwnedValueSet {
                pmid: pmid(metric),
                numval: 1,
                valfmt: 0,
                values: vec![(-1, OwnedValue::Insitu(base_value + k))],
            };
            w.put_result(Timestamp::new(T0 + 10 * k as i64, 0), &[set])
                .expect("result");
        }
    }
    w.close().expect("close");
}

/// `b` interpolated every 15 s from the start: its value, or `None`.
fn replay_b(a: &Archive) -> Vec<Option<u32>> {
    let mut r = Replay::new(a);
    r.set_mode(
        Mode::Interp,
        Some(Timestamp::new(T0, 0)),
        Delta::from_millis(15_000),
    );
    let mut got = Vec::new();
    while let Ok(res) = r.fetch(&[pmid(1)]) {
        got.push(res.sets[0].values.first().map(|(_, v)| match v {
            OwnedValue::Insitu(x) => *x,
            other => panic!("not in situ: {other:?}"),
        }));
    }
    got
}

#[test]
fn a_second_run_is_followed_from_where_the_scans_meet_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = dir.path().join("two-runs");
    write(&base);
    let a = Archive::open(base.to_str().expect("utf-8")).expect("open");
    // t = 0: the forward scan for a next value passes the first run and meets
    // b@0 in the second; from there every request is bounded within that run
    // (instant values: the prior's, b@10 for t = 15, b@30 for t = 30, ...)
    assert_eq!(
        replay_b(&a),
        vec![Some(100), Some(101), Some(103), Some(104), Some(106)]
    );
}
