//! Interpolation over instance domains whose instances come and go: the lives
//! read from a stream of the `.meta` equal those of the metadata held whole, and
//! those kept in a temporary file those in memory; a replay gives the same
//! results every way, and an instance born at a fetch's time has its value there.

mod common;

use archive_format::codec::meta::{InDomKind, Instance};
use archive_format::codec::result::{OwnedValue, OwnedValueSet};
use archive_format::lives;
use archive_format::replay::{Delta, Mode, Replay};
use archive_format::types::{sem, vtype};
use archive_format::{Archive, Desc, InDom, OpenOptions, PmId, Timestamp, Units};
use proptest::prelude::*;
use std::path::Path;

const T0: i64 = 1_700_000_000;

fn desc(k: u32, semantics: i32) -> Desc {
    Desc {
        pmid: PmId::new(60, 0, k),
        vtype: vtype::U32,
        indom: InDom::new(60, 1),
        sem: semantics,
        units: Units(0),
    }
}

/// An archive of one domain: at each step (seconds on, the set's instances, the
/// instances with values, a mark after it) a set and a record, 10 s apart.
type Step = (i64, Vec<i32>, Vec<i32>, bool);

fn write(base: &Path, steps: &[Step]) {
    let mut w = common::v3_writer(base);
    let sems = [sem::INSTANT, sem::COUNTER, sem::DISCRETE];
    for (k, s) in sems.iter().enumerate() {
        w.put_desc(desc(k as u32, *s), &[format!("m.k{k}")])
            .expect("desc");
    }
    let mut t = T0;
    for (n, (dt, set, vals, mark)) in steps.iter().enumerate() {
        t += dt;
        let stamp = Timestamp::new(t, 0);
        let mut set = set.clone();
        set.sort_unstable();
        set.dedup();
        if !set.is_empty() {
            let instances = set
                .iter()
                .map(|&i| Instance {
                    inst: i,
                    name: Some(format!("i{i}")),
                })
                .collect();
            w.put_indom_record(InDomKind::Full, stamp, InDom::new(60, 1), instances)
                .expect("indom");
        }
        let mut vals = vals.clone();
        vals.sort_unstable();
        vals.dedup();
        let vsets: Vec<OwnedValueSet> = (0..3u32)
            .map(|k| OwnedValueSet {
                pmid: PmId::new(60, 0, k),
                numval: vals.len() as i32,
                valfmt: 0,
                values: vals
                    .iter()
                    .map(|&i| (i, OwnedValue::Insitu((n as u32 + 1) * (i as u32 + 3) + k)))
                    .collect(),
            })
            .collect();
        w.put_result(stamp, &vsets).expect("result");
        if *mark {
            w.put_mark(Timestamp::new(t, 500_000_000)).expect("mark");
        }
    }
    w.close().expect("close");
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    // ids 0..40 and sets of up to 30: domains with and without time calipers;
    // values for instances the set in force may not hold
    proptest::collection::vec(
        (
            0i64..15,
            proptest::collection::vec(0i32..40, 0..30),
            proptest::collection::vec(0i32..40, 0..30),
            proptest::bool::weighted(0.1),
        ),
        1..30,
    )
}

fn lean(name: &str) -> Archive {
    let opts = OpenOptions {
        without_instances: true,
        ..OpenOptions::default()
    };
    Archive::open_with(name, opts).expect("opens without instances")
}

/// Every interpolated result from the start, `step_ms` apart, of the three
/// metrics; lives past `run` arrivals and departures kept in a file.
fn replay(a: &Archive, step_ms: i64, run: usize) -> Vec<String> {
    let pmids: Vec<PmId> = (0..3).map(|k| PmId::new(60, 0, k)).collect();
    let mut r = Replay::new(a);
    r.set_lives_run(run);
    r.set_mode(
        Mode::Interp,
        Some(a.label().start),
        Delta::from_millis(step_ms),
    );
    let mut out = Vec::new();
    while let Ok(res) = r.fetch(&pmids) {
        out.push(format!("{res:?}"));
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn streamed_lives_and_replay_equal_the_whole_metadatas(
        steps in steps(),
        step_ms in prop::sample::select(vec![1000i64, 3500, 10_000, 25_000]),
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().join("a");
        write(&base, &steps);
        let name = base.to_string_lossy().into_owned();
        let whole = Archive::open(&name).expect("opens");
        let lean = lean(&name);
        let indom = InDom::new(60, 1);
        let of_stream = |run| {
            let mut all = lives::of_stream(lean.instance_stream().expect("stream"), run)
                .expect("lives");
            told(&all.remove(&indom).unwrap_or_default())
        };
        let snaps = whole.metadata().snapshots(indom);
        let held = told(&lives::of_snapshots(indom, snaps, lives::RUN).expect("lives"));
        prop_assert_eq!(&of_stream(lives::RUN), &held);
        prop_assert_eq!(&of_stream(2), &held);
        prop_assert_eq!(
            &told(&lives::of_snapshots(indom, snaps, 1).expect("lives")),
            &held
        );
        let want = replay(&whole, step_ms, lives::RUN);
        prop_assert_eq!(&replay(&lean, step_ms, lives::RUN), &want);
        prop_assert_eq!(&replay(&lean, step_ms, 1), &want);
        prop_assert_eq!(&replay(&whole, step_ms, 3), &want);
    }
}

/// What a domain's lives tell, read back whole: the sets' times, whether it is
/// calipered, its members, and the births (with deaths) of each set.
type Told = (
    Vec<Timestamp>,
    bool,
    Vec<i32>,
    Vec<Vec<(i32, Option<usize>)>>,
);

fn told(l: &lives::Lives) -> Told {
    let born = (0..l.sets())
        .map(|k| l.born_at(k).expect("births"))
        .collect();
    let times = (0..=l.sets()).map(|k| l.time(k).expect("time"));
    (
        times.flatten().collect(),
        l.calipered(),
        l.members().expect("members"),
        born,
    )
}

/// An archive of 20 instances at 0 and 10 s, three of them replaced at 20 s
/// (0-2 out, 20-22 in), each with its values: opened whole and without its
/// instance domains.
fn three_replaced(dir: &Path) -> [Archive; 2] {
    let base = dir.join("a");
    let old: Vec<i32> = (0..20).collect();
    let new: Vec<i32> = (3..23).collect();
    write(
        &base,
        &[
            (0, old.clone(), old.clone(), false),
            (10, old.clone(), old, false),
            (10, new.clone(), new, false),
        ],
    );
    let name = base.to_string_lossy();
    [Archive::open(&name).expect("opens"), lean(&name)]
}

/// Instances first held by the last set, at the archive's last record, in a
/// domain large enough for time calipers: interpolated at that very time, each
/// has its recorded value (the replay must read the record for them although
/// every other instance is bounded already).
#[test]
fn an_instance_born_at_the_requested_time_has_its_value() {
    let dir = tempfile::tempdir().expect("tempdir");
    for a in three_replaced(dir.path()) {
        let mut r = Replay::new(&a);
        // 0, 7, 14, 21 (no record) ... 20 is the last record: ask for it exactly
        r.set_mode(
            Mode::Interp,
            Some(Timestamp::new(T0 + 6, 0)),
            Delta::from_millis(7000),
        );
        let pmid = PmId::new(60, 0, 0);
        r.fetch(&[pmid]).expect("t=6");
        r.fetch(&[pmid]).expect("t=13");
        let last = r.fetch(&[pmid]).expect("t=20");
        assert_eq!(last.stamp, Timestamp::new(T0 + 20, 0));
        let insts: Vec<i32> = last.sets[0].values.iter().map(|(i, _)| *i).collect();
        assert_eq!(
            insts,
            (3..23).collect::<Vec<i32>>(),
            "instances at the last record"
        );
        // the value of instance 22 in the third record (n = 2): 3 * 25
        let v22 = last.sets[0].values.iter().find(|(i, _)| *i == 22);
        assert_eq!(v22.map(|(_, v)| v.clone()), Some(OwnedValue::Insitu(75)));
    }
}

/// A discrete metric's instance keeps its last value until the set that takes
/// it out, inclusive (libpcp's calipers), and the replay then says it is gone.
#[test]
fn a_discrete_value_lasts_until_its_instance_is_taken_out() {
    let dir = tempfile::tempdir().expect("tempdir");
    for a in three_replaced(dir.path()) {
        let discrete = PmId::new(60, 0, 2);
        let mut r = Replay::new(&a);
        r.set_mode(
            Mode::Interp,
            Some(Timestamp::new(T0 + 15, 0)),
            Delta::from_millis(5000),
        );
        let mid = r.fetch(&[discrete]).expect("t=15");
        assert_eq!(mid.sets[0].values.len(), 20);
        assert!(!r.gone(discrete, 0), "alive at 15");
        let at = r.fetch(&[discrete]).expect("t=20");
        let insts: Vec<i32> = at.sets[0].values.iter().map(|(i, _)| *i).collect();
        assert_eq!(insts, (0..23).collect::<Vec<i32>>(), "0-2 until taken out");
        // instance 0's value is the second record's (n = 1): 2 * 3 + 2
        assert_eq!(at.sets[0].values[0].1, OwnedValue::Insitu(8));
        assert!(r.gone(discrete, 0) && !r.gone(discrete, 5) && !r.gone(discrete, 22));
    }
}

/// A process table of up to 60 processes over 2,600 sets: the oldest end (a few
/// at each set), new ones start, one early process keeps coming back; negative
/// numbers too.
fn churn(b: &mut lives::LivesBuilder, d: InDom) {
    let mut live: Vec<i32> = (0..50).collect();
    let mut next = 50;
    for k in 0..2600 {
        let leave = (k % 7).max(live.len().saturating_sub(60)).min(live.len());
        live.drain(..leave);
        for _ in 0..(k % 5) + 3 {
            live.push(if next % 11 == 0 { -next } else { next });
            next += 1;
        }
        if k % 50 == 49 && !live.contains(&3) {
            live.push(3);
        }
        b.push(d, Timestamp::new(T0 + k as i64, 0), live.iter().copied());
    }
}

#[test]
fn lives_in_a_file_tell_what_lives_in_memory_do() {
    let d = InDom::new(3, 9);
    let mut b = lives::LivesBuilder::new();
    churn(&mut b, d);
    let held = b.finish().expect("built").remove(&d).expect("built");
    assert!(!held.on_disk());
    let want = told(&held);
    assert!(want.2.len() > 2 * lives::BLOCK, "{} members", want.2.len());
    for run in [1, 2, 3, 100, 1000] {
        let mut b = lives::LivesBuilder::with_run(run);
        churn(&mut b, d);
        let l = b.finish().expect("built").remove(&d).expect("built");
        assert!(l.on_disk(), "run {run}");
        assert_eq!(told(&l), want, "run {run}");
        for i in (-15_000..15_000).step_by(3) {
            let m = held.is_member(i).expect("read");
            assert_eq!(l.is_member(i).expect("read"), m, "run {run}, {i}");
        }
        assert!(l.bytes() < held.bytes() / 2, "run {run}");
    }
}
