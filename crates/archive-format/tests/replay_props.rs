//! Properties of replay over the committed testdata archives:
//! - interpolating at a recorded timestamp gives the recorded value (numeric types);
//! - FORW then BACK visits the same records, reversed;
//! - replaying a damaged archive gives errors, never a panic.

use archive_format::atom::extract;
use archive_format::replay::{Delta, Mode, Replay};
use archive_format::types::vtype;
use archive_format::{Archive, Timestamp};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

const ARCHIVES: [&str; 3] = ["sample_v2", "sample_v3", "pmi_v2"];

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/archives")
}

fn open(name: &str) -> Archive {
    Archive::open(testdata().join(name).to_string_lossy()).expect("testdata archive")
}

fn numeric(t: i32) -> bool {
    matches!(
        t,
        vtype::I32 | vtype::U32 | vtype::I64 | vtype::U64 | vtype::FLOAT | vtype::DOUBLE
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn interpolation_at_a_recorded_time_is_the_recorded_value(
        arch in 0usize..3,
        pick in any::<prop::sample::Index>(),
        set in any::<prop::sample::Index>(),
    ) {
        let a = open(ARCHIVES[arch]);
        let recs: Vec<_> = a.records().map(|r| r.expect("record").1).filter(|r| !r.is_mark()).collect();
        prop_assume!(!recs.is_empty());
        let rec = &recs[pick.index(recs.len())];
        // only a timestamp that no other record shares identifies one value
        prop_assume!(recs.iter().filter(|r| r.stamp == rec.stamp).count() == 1);
        let sets: Vec<_> = rec.vsets.iter().filter(|vs| {
            vs.numval > 0 && a.metadata().desc(vs.pmid).is_some_and(|d| numeric(d.vtype))
        }).collect();
        prop_assume!(!sets.is_empty());
        let vs = sets[set.index(sets.len())];
        let desc = *a.metadata().desc(vs.pmid).expect("desc");

        let mut r = Replay::new(&a);
        r.set_mode(Mode::Interp, Some(rec.stamp), Delta::from_millis(1000));
        let got = r.fetch(&[vs.pmid]).expect("fetch at a recorded time");
        prop_assert_eq!(got.stamp, rec.stamp);
        let fs = &got.sets[0];
        for (inst, v) in &vs.values {
            let Some((_, gv)) = fs.values.iter().find(|(i, _)| i == inst) else {
                // instances outside the archive-wide instance list are not reported
                let known = desc.indom.is_null() || a.metadata().indom_union(desc.indom).iter().any(|(i, _)| i == inst);
                prop_assert!(!known, "instance {} of {} missing", inst, vs.pmid);
                continue;
            };
            let want = extract(desc.vtype, v).and_then(|x| x.as_f64());
            let have = extract(desc.vtype, &gv.as_value()).and_then(|x| x.as_f64());
            prop_assert_eq!(have.map(f64::to_bits), want.map(f64::to_bits), "pmid {} inst {}", vs.pmid, inst);
        }
    }

    #[test]
    fn damaged_archives_replay_without_panics(
        arch in 0usize..3,
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        step_ms in 1i64..400,
        back in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = ARCHIVES[arch];
        for ext in ["0", "meta", "index"] {
            let src = testdata().join(format!("{base}.{ext}"));
            let mut bytes = std::fs::read(&src).expect("read");
            if ext == "0" {
                for (at, b) in &flips {
                    let i = at.index(bytes.len());
                    bytes[i] ^= b | 1;
                }
            }
            std::fs::write(dir.path().join(format!("{base}.{ext}")), bytes).expect("write");
        }
        let Ok(a) = Archive::open(dir.path().join(base).to_string_lossy()) else {
            return Ok(());
        };
        let pmids: Vec<_> = a.metadata().descs().iter().map(|d| d.pmid).collect();
        let mut r = Replay::new(&a);
        let start = a.label().start;
        r.set_mode(Mode::Interp, Some(start), Delta::from_millis(if back { -step_ms } else { step_ms }));
        for _ in 0..50 {
            if r.fetch(&pmids).is_err() {
                break;
            }
        }
        r.set_mode(if back { Mode::Back } else { Mode::Forw }, Some(start), Delta::from_millis(0));
        for _ in 0..200 {
            if r.fetch_archive().is_err() {
                break;
            }
        }
    }
}

#[test]
fn forward_then_backward_visit_the_same_records() {
    for name in ARCHIVES {
        let a = open(name);
        let mut r = Replay::new(&a);
        r.set_mode(Mode::Forw, Some(a.label().start), Delta::from_millis(0));
        let mut fwd: Vec<Timestamp> = Vec::new();
        while let Ok(res) = r.fetch_archive() {
            fwd.push(res.stamp);
        }
        assert!(!fwd.is_empty(), "{name}: no records");
        let end = a.end_time().expect("end");
        r.set_mode(Mode::Back, Some(end), Delta::from_millis(0));
        let mut bwd: Vec<Timestamp> = Vec::new();
        while let Ok(res) = r.fetch_archive() {
            bwd.push(res.stamp);
        }
        bwd.reverse();
        assert_eq!(fwd, bwd, "{name}");
        // and the record count is the archive's
        assert_eq!(fwd.len(), a.records().count(), "{name}");
    }
}
