//! Instance names in `values` when the instance domains are read as a stream:
//! each row names its instance as the metadata loaded whole does (the set in
//! force, else the newest set that names it, else before any set the first
//! one's), and an archive whose processes come and go has its names forgotten
//! and found again without a row losing its name.

// helpers of the tests below: a failure to read what the tool wrote is the test failing
#![allow(clippy::unwrap_used)]

use archive_format::codec::result::{OwnedValue, OwnedValueSet, VAL_INSITU};
use archive_format::types::{sem, vtype};
use archive_format::writer::ArchiveWriter;
use archive_format::{Archive, Desc, InDom, PmId, Timestamp, Units};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

const INDOM: InDom = InDom(60 << 22 | 1);
const PMID: PmId = PmId(60 << 22 | 1);

fn writer(base: &Path) -> ArchiveWriter {
    let d = Desc {
        pmid: PMID,
        vtype: vtype::U32,
        indom: INDOM,
        sem: sem::INSTANT,
        units: Units(0),
    };
    test_support::one_metric_writer(base, 2, d, "test.proc")
}

fn values(insts: &[i32]) -> Vec<OwnedValueSet> {
    vec![OwnedValueSet {
        pmid: PMID,
        numval: insts.len() as i32,
        valfmt: VAL_INSITU,
        values: insts.iter().map(|&i| (i, OwnedValue::Insitu(7))).collect(),
    }]
}

fn set(pairs: &[(i32, &str)]) -> Vec<(i32, String)> {
    pairs.iter().map(|&(i, n)| (i, n.to_string())).collect()
}

fn at(s: i64) -> Timestamp {
    Timestamp::new(1_700_000_000 + s, 0)
}

/// Exports `base`; the `values` rows as (time, instance id, instance name), and
/// the number of row groups.
fn export(base: &Path, out: &Path) -> (BTreeSet<(i64, i32, Option<String>)>, usize) {
    let st = Command::new(env!("CARGO_BIN_EXE_pcp2parquet"))
        .arg("-o")
        .arg(out)
        .arg(base)
        .status()
        .unwrap();
    assert!(st.success());
    let mut rows = BTreeSet::new();
    let mut groups = 0;
    let mut files = test_support::files_under(&out.join("values"));
    files.retain(|p| p.extension().is_some_and(|x| x == "parquet"));
    assert!(!files.is_empty());
    for f in files {
        let r = SerializedFileReader::new(std::fs::File::open(f).unwrap()).unwrap();
        groups += r.metadata().num_row_groups();
        for row in r.get_row_iter(None).unwrap() {
            let row = row.unwrap();
            let (mut t, mut id, mut name) = (0, -1, None);
            for (col, v) in row.get_column_iter() {
                match (col.as_str(), v) {
                    ("time", Field::Long(x)) => t = *x,
                    ("time", Field::TimestampMicros(x)) => t = *x * 1000,
                    ("inst_id", Field::Int(x)) => id = *x,
                    ("instance", Field::Str(s)) => name = Some(s.clone()),
                    _ => {}
                }
            }
            rows.insert((t, id, name));
        }
    }
    (rows, groups)
}

/// Every value of the archive with the name the metadata loaded whole gives
/// its instance at its time.
fn expected(base: &Path) -> BTreeSet<(i64, i32, Option<String>)> {
    let a = Archive::open(base.to_str().unwrap()).unwrap();
    let m = a.metadata();
    let snaps = m.snapshots(INDOM);
    let mut out = BTreeSet::new();
    for rec in a.records() {
        let (_, rec) = rec.unwrap();
        for vs in &rec.vsets {
            for (inst, _) in &vs.values {
                let newest = || snaps.iter().rev().find_map(|s| s.name_of(*inst));
                let name = match m.indom_in_force(INDOM, rec.stamp) {
                    Some(s) => s.name_of(*inst).or_else(newest),
                    None => snaps.first().and_then(|s| s.name_of(*inst)).or_else(newest),
                };
                let t = rec.stamp.as_nanos() as i64;
                out.insert((t, *inst, name.map(String::from)));
            }
        }
    }
    out
}

#[test]
fn instances_not_in_the_set_in_force_are_named_as_the_whole_metadata_names_them() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("a");
    let mut w = writer(&base);
    // before any set: 1 has the first set's name, 5 none
    w.put_result(at(0), &values(&[1, 5])).unwrap();
    w.put_indom(at(10), INDOM, &set(&[(1, "a"), (2, "b")]))
        .unwrap();
    // 3 is named only later
    w.put_result(at(10), &values(&[1, 2, 3])).unwrap();
    w.put_indom(at(20), INDOM, &set(&[(1, "a2"), (3, "c")]))
        .unwrap();
    // 2 has gone: the newest set naming it; 4 is never named
    w.put_result(at(20), &values(&[1, 2, 3, 4])).unwrap();
    w.close().unwrap();

    let want = expected(&base);
    let name = |s: &str| Some(s.to_string());
    let t = |s| at(s).as_nanos() as i64;
    // the whole metadata's answers, spelled out
    assert!(want.contains(&(t(0), 1, name("a"))));
    assert!(want.contains(&(t(0), 5, None)));
    assert!(want.contains(&(t(10), 3, name("c"))));
    assert!(want.contains(&(t(20), 2, name("b"))));
    assert!(want.contains(&(t(20), 4, None)));
    let out = dir.path().join("out");
    let (got, _) = export(&base, &out);
    assert_eq!(got, want);
}

#[test]
fn names_of_processes_that_come_and_go_are_forgotten_and_found_again() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("procs");
    let mut w = writer(&base);
    // 40 samples of 1,000 processes, all new at each: 40,000 names, more than a
    // run holds at once
    let name = |i: i32| format!("{:07} /usr/lib/worker --job {i}", 100_000 + i);
    for s in 0..40 {
        let insts: Vec<i32> = (s * 1000..(s + 1) * 1000).collect();
        let pairs: Vec<(i32, String)> = insts.iter().map(|&i| (i, name(i))).collect();
        w.put_indom(at(i64::from(s) * 10), INDOM, &pairs).unwrap();
        // one of the last sample's processes reports once more
        let mut report = insts.clone();
        if s > 0 {
            report.push(s * 1000 - 1);
        }
        w.put_result(at(i64::from(s) * 10), &values(&report))
            .unwrap();
        // and all again, the set unchanged (names are forgotten between two
        // records: the set's names are looked up again, not taken as known)
        w.put_result(at(i64::from(s) * 10 + 5), &values(&insts))
            .unwrap();
    }
    w.close().unwrap();

    let want = expected(&base);
    assert_eq!(want.len(), 2 * 40 * 1000 + 39);
    assert!(want
        .iter()
        .all(|(_, i, n)| n.as_deref() == Some(name(*i).as_str())));
    let out = dir.path().join("out");
    let (got, groups) = export(&base, &out);
    assert_eq!(got, want);
    // far fewer values than a row group holds: the names' bound wrote them
    assert!(groups >= 2, "{groups} row groups");
}
