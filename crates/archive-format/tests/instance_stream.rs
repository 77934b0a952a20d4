//! Instance domains read as a stream (`OpenOptions::without_instances` and
//! `Archive::instance_stream`) name every value's instance as the metadata loaded
//! whole does, and `meta_profile` tells which `.meta` files may be read so.

mod common;

use archive_format::archive::meta_profile;
use archive_format::codec::meta::{InDomKind, Instance};
use archive_format::codec::result::{OwnedValue, OwnedValueSet};
use archive_format::types::{sem, vtype};
use archive_format::{Archive, Desc, InDom, OpenOptions, PmId, Timestamp, Units};
use proptest::prelude::*;
use std::path::Path;

/// For every value of every record, the name the stream gives its instance equals
/// the one of the set in force in the metadata loaded whole; the number of values
/// looked at.
fn check_alike(name: &str) -> usize {
    let whole = Archive::open(name).expect("opens");
    let opts = OpenOptions {
        without_instances: true,
        ..OpenOptions::default()
    };
    let lean = Archive::open_with(name, opts).expect("opens without instances");
    assert!(
        lean.metadata().indoms().is_empty(),
        "{name}: no domain kept"
    );
    assert_eq!(lean.metadata().descs(), whole.metadata().descs(), "{name}");
    let mut stream = lean.instance_stream().expect("stream");
    let m = whole.metadata();
    let mut seen = 0;
    for rec in whole.records() {
        let Ok((_, rec)) = rec else { break };
        stream.advance_to(rec.stamp).expect("advances");
        for vs in &rec.vsets {
            let Some(d) = m.desc(vs.pmid) else { continue };
            if d.indom.is_null() {
                continue;
            }
            let want = m.indom_in_force(d.indom, rec.stamp);
            let got = stream.set(d.indom);
            assert_eq!(want.is_some(), got.is_some(), "{name} {:?}", rec.stamp);
            for (inst, _) in &vs.values {
                let w = want.and_then(|s| s.name_of(*inst));
                let g = got.and_then(|s| s.name_of(*inst));
                assert_eq!(w, g, "{name} {:?} {} {inst}", rec.stamp, d.indom);
                seen += 1;
            }
        }
    }
    seen
}

fn metric(k: u32) -> (Desc, String) {
    let d = Desc {
        pmid: PmId::new(60, 0, k),
        vtype: vtype::U32,
        indom: InDom::new(60, k),
        sem: sem::INSTANT,
        units: Units(0),
    };
    (d, format!("test.m{k}"))
}

/// A step of the archive: seconds on, the domain, a full set (or a delta), the
/// instances (ids, and whether each has a name: a deletion in a delta otherwise).
type Step = (i64, u32, bool, Vec<(i32, bool)>);

fn write_steps(base: &Path, steps: &[Step]) {
    let mut w = common::v3_writer(base);
    for k in 0..3 {
        let (d, n) = metric(k);
        w.put_desc(d, &[n]).expect("desc");
    }
    let mut t = 1_700_000_000;
    for (n, (dt, dom, full, insts)) in steps.iter().enumerate() {
        t += dt;
        let stamp = Timestamp::new(t, 0);
        let instances: Vec<Instance> = insts
            .iter()
            .map(|&(inst, named)| Instance {
                inst,
                name: (named || *full).then(|| format!("i{inst}-{n}")),
            })
            .collect();
        let kind = if *full {
            InDomKind::Full
        } else {
            InDomKind::Delta
        };
        w.put_indom_record(kind, stamp, InDom::new(60, *dom), instances)
            .expect("indom");
        // a value for every instance id there may be, in each domain
        let vsets: Vec<OwnedValueSet> = (0..3)
            .map(|k| OwnedValueSet {
                pmid: metric(k).0.pmid,
                numval: 8,
                valfmt: 0,
                values: (0..8).map(|i| (i, OwnedValue::Insitu(1))).collect(),
            })
            .collect();
        w.put_result(stamp, &vsets).expect("result");
        w.put_result(Timestamp::new(t, 500_000_000), &vsets)
            .expect("result");
    }
    w.close().expect("close");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn the_stream_names_instances_as_the_whole_metadata(steps in proptest::collection::vec(
        (0i64..3, 0u32..3, any::<bool>(), proptest::collection::vec((0i32..8, any::<bool>()), 0..6)),
        1..25,
    )) {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().join("a");
        write_steps(&base, &steps);
        let name = base.to_string_lossy().into_owned();
        let p = meta_profile(&name).expect("profile");
        prop_assert!(p.streamable(), "{:?}", p);
        prop_assert!(p.current_bytes <= p.indom_bytes && p.indom_bytes <= p.bytes);
        check_alike(&name);
    }
}

#[test]
fn the_profile_counts_records_and_sees_disorder_and_damage() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = dir.path().join("a");
    let steps: Vec<Step> = vec![
        (0, 0, true, vec![(1, true), (2, true)]),
        (1, 1, true, vec![(1, true)]),
        (1, 0, true, vec![(1, true), (2, true), (3, true)]),
    ];
    write_steps(&base, &steps);
    let name = base.to_string_lossy().into_owned();
    let meta = dir.path().join("a.meta");
    let len = std::fs::metadata(&meta).expect("meta").len();
    let p = meta_profile(&name).expect("profile");
    let label = Archive::open(&name).expect("opens").label().record_len() as u64;
    assert_eq!(p.bytes, len - label, "{p:?}");
    assert!(p.streamable(), "{p:?}");
    // three domain records, two of domain 0: the larger of those, and domain 1's
    assert!(
        p.indom_bytes > p.current_bytes && p.current_bytes > 0,
        "{p:?}"
    );
    assert_eq!(
        p.streamed_bytes(),
        p.bytes - p.indom_bytes + p.current_bytes
    );

    // a record earlier than the one before it
    let back = dir.path().join("b");
    let steps: Vec<Step> = vec![
        (5, 0, true, vec![(1, true)]),
        (-3, 1, true, vec![(1, true)]),
    ];
    write_steps(&back, &steps);
    let p = meta_profile(&back.to_string_lossy()).expect("profile");
    assert!(p.clean && !p.in_time_order && !p.streamable(), "{p:?}");

    // cut inside its last record
    let bytes = std::fs::read(&meta).expect("meta");
    std::fs::write(&meta, &bytes[..bytes.len() - 3]).expect("cut");
    let p = meta_profile(&name).expect("profile");
    assert!(!p.clean && !p.streamable(), "{p:?}");
}

/// Every archive of PCP's QA corpus whose instance domains come in time order.
#[test]
fn the_stream_names_the_corpus_instances_as_the_whole_metadata() {
    let dir = Path::new("/var/lib/pcp/testsuite/archives");
    let Ok(entries) = std::fs::read_dir(dir) else {
        assert!(
            std::env::var_os("REQUIRE_REFERENCE").is_none(),
            "REQUIRE_REFERENCE is set but PCP's QA corpus is not installed"
        );
        eprintln!("skipping: PCP's QA corpus is not installed");
        return;
    };
    let mut bases: Vec<String> = entries
        .filter_map(|e| {
            let n = e.ok()?.file_name().to_string_lossy().into_owned();
            let stem = archive_format::compress::strip_suffix(&n).map_or(n.as_str(), |(b, _)| b);
            Some(
                dir.join(stem.strip_suffix(".meta")?)
                    .to_string_lossy()
                    .into_owned(),
            )
        })
        .collect();
    bases.sort();
    bases.dedup();
    let (mut streamed, mut values) = (0, 0);
    for b in &bases {
        let Ok(p) = meta_profile(b) else { continue };
        if !p.streamable() || Archive::open(b).is_err() {
            continue;
        }
        values += check_alike(b);
        streamed += 1;
    }
    eprintln!(
        "{streamed} of {} archives streamed, {values} values",
        bases.len()
    );
    assert!(streamed > 100 && values > 1_000_000, "{streamed} {values}");
}
