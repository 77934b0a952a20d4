//! Reading records through a `pread` window (`Archive::read_raw_forward_in`,
//! `read_forward_in`, and `read_sets_forward_in`, which reads the value sets in
//! place) gives what reading through the memory map gives: the same
//! records, payloads, positions and errors, across window refills, volumes, a record
//! larger than the window, and a volume cut short in the middle of a record.

mod common;

use archive_format::codec::result::{OwnedValue, OwnedValueSet};
use archive_format::types::{vtype, PmId};
use archive_format::{Archive, Position, ReadWindow};
use std::path::Path;

const COUNT: u32 = 3000;

/// 3000 records of a string metric whose values grow and shrink (a few hundred
/// bytes each, ~1 MB per volume, three volumes), one of them 400 KB long.
fn write(base: &Path) {
    common::write_one_metric(
        base,
        PmId::new(251, 0, 7),
        vtype::STRING,
        "t.s",
        COUNT,
        1000,
        |p, k| {
            let len = if k == 1500 {
                400 << 10
            } else {
                (k as usize * 37) % 700 + 1
            };
            OwnedValueSet {
                pmid: p,
                numval: 1,
                valfmt: 1,
                values: vec![(
                    -1,
                    OwnedValue::Block {
                        vtype: vtype::STRING as u8,
                        data: vec![b'a' + (k % 26) as u8; len].into(),
                    },
                )],
            }
        },
    );
}

/// Every record from `from` on, by both readers, until the end or an error; the
/// error's text when there is one.
fn compare_from(a: &Archive, from: Position) -> (usize, Option<String>) {
    let mut w = ReadWindow::new();
    let mut w2 = ReadWindow::new();
    let mut w3 = ReadWindow::new();
    let mut pos = from;
    let mut n = 0;
    loop {
        let mapped = a.read_raw_forward(pos);
        let windowed = a.read_raw_forward_in(pos, &mut w);
        match (mapped, windowed) {
            (Ok(None), Ok(None)) => return (n, None),
            (Ok(Some((at, p, next))), Ok(Some((at2, p2, next2)))) => {
                assert_eq!((at, next), (at2, next2), "record {n}");
                assert_eq!(p, p2, "payload of record {n}");
                let dec = a.read_forward(pos).expect("decodes").expect("record");
                let dec2 = a
                    .read_forward_in(pos, &mut w2)
                    .expect("decodes")
                    .expect("record");
                assert_eq!(
                    format!("{:?}", dec.1),
                    format!("{:?}", dec2.1),
                    "record {n}"
                );
                let (at3, sets, next3) = a
                    .read_sets_forward_in(pos, &mut w3)
                    .expect("decodes")
                    .expect("record");
                assert_eq!((at, next), (at3, next3), "record {n}");
                assert_eq!(sets.stamp, dec.1.stamp, "record {n}");
                assert_eq!(sets.sets.len(), dec.1.vsets.len(), "record {n}");
                for (r, d) in sets.sets.iter().zip(&dec.1.vsets) {
                    assert_eq!((r.pmid, r.numval), (d.pmid, d.numval), "record {n}");
                    let values: Vec<_> = r.checked_values().collect();
                    assert_eq!(&values[..], &d.values[..], "record {n}");
                }
                pos = next;
                n += 1;
            }
            (Err(e), Err(e2)) => {
                assert_eq!(e.to_string(), e2.to_string());
                let e3 = a.read_sets_forward_in(pos, &mut w3).expect_err("an error");
                assert_eq!(e.to_string(), e3.to_string());
                return (n, Some(e.to_string()));
            }
            (m, w) => panic!("record {n}: map {m:?} window {w:?}"),
        }
    }
}

#[test]
fn window_reads_what_the_map_reads() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = dir.path().join("w");
    write(&base);
    let a = Archive::open(base.to_string_lossy()).expect("open");
    assert_eq!(compare_from(&a, a.start()), (COUNT as usize, None));
    // re-reading a record is served from the window
    let mut w = ReadWindow::new();
    let (_, p1, _) = a.read_raw_forward_in(a.start(), &mut w).unwrap().unwrap();
    let p1 = p1.map(<[u8]>::to_vec);
    let (_, p2, _) = a.read_raw_forward_in(a.start(), &mut w).unwrap().unwrap();
    assert_eq!(p1.as_deref(), p2);

    // the middle volume cut short inside a record: the same error at the same place
    let vol1 = format!("{}.1", base.display());
    let len = std::fs::metadata(&vol1).expect("volume").len();
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&vol1)
        .expect("open");
    f.set_len(len / 2 + 3).expect("truncate");
    drop(f);
    let a = Archive::open(base.to_string_lossy()).expect("open truncated");
    let (n, err) = compare_from(&a, a.start());
    assert!(n > 1000 && n < 2000, "{n} records before the damage");
    let err = err.expect("an error");
    assert!(err.contains("w.1"), "{err}");
}
