//! Damage libpcp reads into, found by conformance/mutations.py: libpcp checks a
//! data volume's label when it opens the archive, not when reading goes on into
//! a later volume, so a later "volume" that is really another file (here the
//! temporal index copied as volume 1) is read record by record, and its first
//! "record" is corrupt: reading ends with an error, as PCP's pmdumplog does
//! ("pmFetch: Corrupted record in a PCP archive log", exit status 1).

use archive_format::Archive;
use std::path::Path;

#[test]
fn a_later_volume_of_another_file_is_read_and_found_corrupt() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/archives");
    let dir = tempfile::tempdir().expect("tempdir");
    for ext in ["0", "meta", "index"] {
        std::fs::copy(
            src.join(format!("sample_v3.{ext}")),
            dir.path().join(format!("a.{ext}")),
        )
        .expect("copy");
    }
    let base = dir.path().join("a").to_string_lossy().into_owned();
    let whole = Archive::open(&base).expect("open").records().count();
    std::fs::copy(dir.path().join("a.index"), dir.path().join("a.1")).expect("copy");
    let a = Archive::open(&base).expect("the first volume is still good");
    let read: Vec<_> = a.records().collect();
    // every record of volume 0, then an error (not a quiet end)
    assert_eq!(read.iter().filter(|r| r.is_ok()).count(), whole);
    assert!(
        read.last().is_some_and(|r| r.is_err()),
        "reading ends with an error"
    );
}

mod libpcp_verdicts {
    //! The checks libpcp makes of a record's contents, on records built here.
    use archive_format::codec::label::{encode_label, Label};
    use archive_format::codec::meta::{encode_meta, MetaRecord};
    use archive_format::codec::record::encode_frame;
    use archive_format::codec::result::{decode_result, encode_result, OwnedValue, OwnedValueSet};
    use archive_format::types::{sem, vtype};
    use archive_format::{Desc, InDom, Metadata, PmId, Timestamp, Units};

    fn string_record() -> Vec<u8> {
        let vs = OwnedValueSet {
            pmid: PmId::new(29, 0, 1),
            numval: 1,
            valfmt: 1,
            values: vec![(
                -1,
                OwnedValue::Block {
                    vtype: vtype::STRING as u8,
                    data: b"hello\0".as_slice().into(),
                },
            )],
        };
        encode_result(Timestamp::new(10, 0), &[vs], 2)
    }

    #[test]
    fn value_blocks_must_fill_the_record() {
        let rec = string_record();
        assert!(decode_result(&rec, 4, 2).is_ok());
        // the value-format word (after stamp, numpmid, pmid, numval) zeroed: the
        // value reads as in situ and its block is left over
        let mut bad = rec.clone();
        bad[20..24].copy_from_slice(&[0; 4]);
        assert!(decode_result(&bad, 4, 2).is_err());
        // no metrics, but bytes after the count
        let mut mark = rec.clone();
        mark[8..12].copy_from_slice(&[0; 4]);
        assert!(decode_result(&mark, 4, 2).is_err());
        // a true <mark> is fine
        assert!(decode_result(&mark[..12], 4, 2).is_ok());
    }

    fn meta_file() -> (Vec<u8>, u64, usize) {
        let l = Label {
            version: 2,
            pid: 1,
            start: Timestamp::new(10, 0),
            vol: -1,
            features: 0,
            hostname: "h".into(),
            timezone: "UTC".into(),
            zoneinfo: String::new(),
        };
        let mut f = encode_label(&l);
        let lab = f.len() as u64;
        let desc = MetaRecord::Desc {
            desc: Desc {
                pmid: PmId::new(29, 0, 1),
                vtype: vtype::U32,
                indom: InDom::NULL,
                sem: sem::INSTANT,
                units: Units(0),
            },
            names: vec!["a.b".into()],
        };
        let rec = encode_frame(&encode_meta(&desc));
        let n = rec.len();
        f.extend(rec);
        (f, lab, n)
    }

    #[test]
    fn a_metadata_record_cut_in_its_header_ends_the_file() {
        let (f, lab, n) = meta_file();
        assert!(Metadata::load(&f, lab).is_ok());
        for k in 1..8 {
            // after a record: a clean end
            let mut g = f.clone();
            g.extend(&f[lab as usize..lab as usize + k]);
            assert!(Metadata::load(&g, lab).is_ok(), "{k}");
            // straight after the label: a corrupted record
            let h = &f[..lab as usize + k];
            assert!(Metadata::load(h, lab).is_err(), "{k}");
        }
        // cut further in: corrupted
        let mut g = f.clone();
        g.extend(&f[lab as usize..lab as usize + n - 1]);
        assert!(Metadata::load(&g, lab).is_err());
    }

    #[test]
    fn loading_reports_each_record_done_in_file_order() {
        let (f, lab, n) = meta_file();
        let mut g = f.clone();
        g.extend(&f[lab as usize..]);
        g.extend(&f[lab as usize..]);
        let mut seen = Vec::new();
        let m = Metadata::load_reporting(&g, lab, true, |off| seen.push(off)).expect("loads");
        let want: Vec<u64> = (0..3).map(|k| lab + (k * n) as u64).collect();
        assert_eq!(seen, want);
        let whole = Metadata::load(&g, lab).expect("loads");
        assert_eq!(m.descs(), whole.descs());
        assert_eq!(m.names(PmId::new(29, 0, 1)), ["a.b"]);
        // a damaged record: reported up to the one before it, then the error
        let mut h = g.clone();
        h.truncate(g.len() - 1);
        let mut seen = Vec::new();
        assert!(Metadata::load_reporting(&h, lab, true, |off| seen.push(off)).is_err());
        assert_eq!(seen, want[..2]);
    }

    #[test]
    fn a_descriptor_with_bytes_after_its_names_is_corrupt() {
        let (f, lab, _) = meta_file();
        let mut g = f.clone();
        // the name count (after len, type, pmid, type, indom, sem, units) zeroed
        let at = lab as usize + 28;
        g[at..at + 4].copy_from_slice(&[0; 4]);
        assert!(Metadata::load(&g, lab).is_err());
    }
}
