//! Property: extracting a random archive (v2 or v3; instance domains that change;
//! marks) without options gives back every record and the instance domain each
//! record was written under; `-s N` gives the first N records.

use archive_format::codec::result::{OwnedValue, OwnedValueSet, VAL_INSITU};
use archive_format::types::{sem, vtype};
use archive_format::writer::{ArchiveWriter, WriterOptions};
use archive_format::{Archive, Desc, InDom, PmId, Timestamp, Units};
use proptest::prelude::*;

const INDOM: InDom = InDom((251 << 22) | 1);

fn write(dir: &std::path::Path, v3: bool, samples: &[(Vec<(i32, u32)>, bool)]) -> String {
    let base = dir.join("in");
    let mut w = ArchiveWriter::create(
        &base,
        WriterOptions {
            version: if v3 { 3 } else { 2 },
            hostname: "h".into(),
            timezone: "UTC".into(),
            pid: 7,
            ..Default::default()
        },
    )
    .expect("create");
    let p = PmId::new(251, 0, 1);
    w.put_desc(
        Desc {
            pmid: p,
            vtype: vtype::U32,
            indom: INDOM,
            sem: sem::INSTANT,
            units: Units(0),
        },
        &["t.a".into()],
    )
    .expect("desc");
    for (k, (vals, mark)) in samples.iter().enumerate() {
        let stamp = Timestamp::new(
            1_600_000_000 + k as i64,
            if v3 { 5_000_123 } else { 5_000_000 },
        );
        if *mark {
            w.put_mark(stamp).expect("mark");
            continue;
        }
        let insts: Vec<(i32, String)> = vals.iter().map(|(i, _)| (*i, format!("i{i}"))).collect();
        w.begin_fetch();
        w.put_indom(stamp, INDOM, &insts).expect("indom");
        let vs = OwnedValueSet {
            pmid: p,
            numval: vals.len() as i32,
            valfmt: if vals.is_empty() { 0 } else { VAL_INSITU },
            values: vals
                .iter()
                .map(|(i, v)| (*i, OwnedValue::Insitu(*v)))
                .collect(),
        };
        w.put_result(stamp, &[vs]).expect("result");
    }
    w.close().expect("close");
    base.to_string_lossy().into_owned()
}

/// A record: its time and each value's instance, instance name and value word.
type Contents = Vec<(Timestamp, Vec<(i32, String, u32)>)>;

/// Records with the instance names each value had.
fn contents(name: &str) -> Contents {
    let a = Archive::open(name).expect("open");
    a.records()
        .map(|r| {
            let rec = r.expect("record").1;
            let snap = a.metadata().indom_at(INDOM, rec.stamp);
            let vals = rec
                .vsets
                .iter()
                .flat_map(|vs| vs.values.iter())
                .map(|(i, v)| {
                    let name = snap.and_then(|s| s.name_of(*i)).unwrap_or("?").to_string();
                    let w = match v {
                        archive_format::Value::Insitu(w) => *w,
                        _ => 0,
                    };
                    (*i, name, w)
                })
                .collect();
            (rec.stamp, vals)
        })
        .collect()
}

fn sample() -> impl Strategy<Value = (Vec<(i32, u32)>, bool)> {
    (
        proptest::collection::btree_map(0i32..12, any::<u32>(), 1..6),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(m, mark)| (m.into_iter().collect(), mark))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn extraction_keeps_every_record(
        v3 in any::<bool>(),
        mut samples in proptest::collection::vec(sample(), 1..15),
        limit in 1usize..20,
    ) {
        samples[0].1 = false; // an archive starts with data
        let dir = tempfile::tempdir().expect("tempdir");
        let input = write(dir.path(), v3, &samples);
        let out = dir.path().join("out").to_string_lossy().into_owned();
        let (mut so, mut se) = (Vec::new(), Vec::new());
        let st = pmlogextract::run(&[input.clone(), out.clone()], &mut so, &mut se);
        prop_assert_eq!(st, 0, "{}", String::from_utf8_lossy(&se));
        let want = contents(&input);
        prop_assert_eq!(contents(&out), want.clone());

        let out2 = dir.path().join("out2").to_string_lossy().into_owned();
        let args = vec!["-s".to_string(), limit.to_string(), input, out2.clone()];
        let st = pmlogextract::run(&args, &mut so, &mut se);
        prop_assert_eq!(st, 0);
        let n = limit.min(want.len());
        prop_assert_eq!(contents(&out2), want[..n].to_vec());
    }
}
