//! Volumes cut down to one metric as they decode (`OpenOptions::keep_only`): a
//! replay of that metric, interpolated or record by record, from any time, gives
//! what it gives on the whole archive; and a volume that is not all sound records
//! is read whole, faults and all.

mod common;

use archive_format::codec::result::OwnedValueSet;
use archive_format::replay::{Delta, Mode, Replay};
use archive_format::types::{sem, vtype};
use archive_format::{Archive, Desc, InDom, KeepOnly, OpenOptions, PmId, Timestamp, Units};
use proptest::prelude::*;
use std::path::Path;
use std::sync::Arc;

const T0: i64 = 1_700_000_000;

fn pmid(k: u32) -> PmId {
    PmId::new(60, 0, k)
}

/// An archive of three metrics (instant, counter, discrete) over several
/// volumes, with its index (an entry every 7 records): at each step (seconds on, which metrics have a
/// value, a mark after it) a record; `per_volume` records a volume.
type Step = (i64, [bool; 3], bool);

fn write(base: &Path, steps: &[Step], per_volume: usize) {
    let mut w = common::v3_writer(base);
    for (k, s) in [sem::INSTANT, sem::COUNTER, sem::DISCRETE]
        .iter()
        .enumerate()
    {
        let d = Desc {
            pmid: pmid(k as u32),
            vtype: vtype::U32,
            indom: InDom::NULL,
            sem: *s,
            units: Units(0),
        };
        w.put_desc(d, &[format!("m.k{k}")]).expect("desc");
    }
    let mut t = T0;
    for (n, (dt, has, mark)) in steps.iter().enumerate() {
        if n > 0 && n % per_volume == 0 {
            w.new_volume().expect("volume");
        }
        t += dt;
        let sets: Vec<OwnedValueSet> = (0..3u32)
            .filter(|&k| has[k as usize])
            .map(|k| OwnedValueSet::insitu(pmid(k), vec![(-1, (n as u32 + 1) * (k + 2))]))
            .collect();
        // index entries inside the volumes too, where the records move when cut
        if n % 7 == 3 {
            w.put_index(Timestamp::new(t, 0)).expect("index");
        }
        w.put_result(Timestamp::new(t, 0), &sets).expect("record");
        if *mark {
            w.put_mark(Timestamp::new(t, 500_000_000)).expect("mark");
        }
    }
    w.flush().expect("flush");
}

fn keeping(name: &str, k: u32) -> Archive {
    let opts = OpenOptions {
        keep_only: Some(KeepOnly(Arc::new(move |_| Some(vec![pmid(k)])))),
        ..OpenOptions::default()
    };
    Archive::open_with(name, opts).expect("open keeping one metric")
}

/// What a replay of metric `k` gives in `mode` from `start` by `step_ms`, `n`
/// fetches at most, as text (errors included).
fn replay(
    a: &Archive,
    k: u32,
    mode: Mode,
    start: Timestamp,
    step_ms: i64,
    n: usize,
) -> Vec<String> {
    let mut r = Replay::new(a);
    r.set_mode(mode, Some(start), Delta::from_millis(step_ms));
    let mut out = Vec::new();
    for _ in 0..n {
        match r.fetch(&[pmid(k)]) {
            Ok(f) => out.push(format!("{:?} {:?}", f.stamp, f.sets)),
            Err(e) => {
                out.push(e.to_string());
                break;
            }
        }
    }
    out
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    let step = (1i64..30, any::<[bool; 3]>(), proptest::bool::weighted(0.05));
    proptest::collection::vec(step, 1..120)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn a_replay_of_the_metric_kept_is_the_whole_archive_s(
        steps in steps(),
        per_volume in 5usize..60,
        k in 0u32..3,
        from in 0i64..3000,
        step_ms in prop_oneof![Just(7_000i64), Just(-11_000), Just(60_000)],
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().join("a");
        write(&base, &steps, per_volume);
        let name = base.to_string_lossy().into_owned();
        let whole = Archive::open(&name).expect("open");
        let start = Timestamp::new(T0 + from, 0);
        let want: Vec<Vec<String>> = [Mode::Interp, Mode::Forw, Mode::Back]
            .into_iter()
            .map(|m| replay(&whole, k, m, start, step_ms, 400))
            .collect();
        let end = whole.end_time().expect("end");
        common::xz_volumes(&name);
        let cut = keeping(&name, k);
        prop_assert_eq!(cut.end_time().expect("end"), end);
        for (m, want) in [Mode::Interp, Mode::Forw, Mode::Back].into_iter().zip(&want) {
            let got = replay(&cut, k, m, start, step_ms, 400);
            prop_assert_eq!(&got, want, "{:?}", m);
        }
    }
}

/// A record of volume 1 that does not decode: with or without cutting, a
/// replay meets the same fault at the same place.
#[test]
fn a_volume_with_a_bad_record_is_read_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = dir.path().join("a");
    let steps: Vec<Step> = (0..40)
        .map(|n| (10, [true, n % 3 == 0, true], false))
        .collect();
    write(&base, &steps, 10);
    let name = base.to_string_lossy().into_owned();
    // the 5th record of volume 1: more metrics than it holds
    let vol1 = format!("{name}.1");
    let mut v = std::fs::read(&vol1).expect("volume 1");
    let mut at = 808; // (a v3 label)
    for _ in 0..4 {
        at += u32::from_be_bytes(v[at..at + 4].try_into().expect("len")) as usize;
    }
    v[at + 16..at + 20].copy_from_slice(&1000i32.to_be_bytes());
    std::fs::write(&vol1, &v).expect("write");
    common::xz_volumes(&name);
    let start = Timestamp::new(T0, 0);
    let want = replay(
        &Archive::open(&name).expect("open"),
        0,
        Mode::Forw,
        start,
        0,
        100,
    );
    let fault = "a.1.xz: byte offset 1100: Corrupted record in a PCP archive log: illegal number";
    assert!(want.last().expect("some").contains(fault), "{want:?}");
    let got = replay(&keeping(&name, 0), 0, Mode::Forw, start, 0, 100);
    assert_eq!(got.len(), 15, "{got:?}");
    assert_eq!(got, want);
}
