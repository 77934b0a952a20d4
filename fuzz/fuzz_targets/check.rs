#![no_main]
//! pmlogcheck's checks on arbitrary input: pass 0 over the bytes as each kind of
//! file (and as a data volume fed piece by piece, whose answer must be pass 0's
//! when it gives one), and pass 3's checker over the records the bytes decode to, for every type
//! and semantics a descriptor can give them.
use archive_format::codec::result::raw_result_into;
use archive_format::{Desc, InDom, PmId, Timestamp, Units};
use libfuzzer_sys::fuzz_target;
use pmlogcheck::framer::Framer;
use pmlogcheck::pass0::{scan, Kind};
use pmlogcheck::pass3::{Checker, Lookup};

struct Any(i32, i32);
impl Lookup for Any {
    fn desc(&self, pmid: PmId) -> Option<Desc> {
        (pmid.0 % 7 != 0).then_some(Desc {
            pmid,
            vtype: self.0,
            indom: if pmid.0 % 2 == 0 {
                InDom::NULL
            } else {
                InDom::new(1, 1)
            },
            sem: self.1,
            units: Units(pmid.0),
        })
    }
    fn metric(&self, pmid: PmId) -> String {
        pmid.to_string()
    }
    fn inst_name(&self, _: InDom, inst: i32) -> Option<String> {
        (inst % 3 == 0).then(|| inst.to_string())
    }
}

fuzz_target!(|data: &[u8]| {
    for kind in [Kind::Index, Kind::Meta, Kind::Data] {
        let r = scan("f", data, kind);
        assert!(r.last_good <= data.len() as u64);
    }
    let mut f = Framer::default();
    for piece in data.chunks(1 + data.first().copied().unwrap_or(0) as usize) {
        f.feed(piece);
    }
    if let Some(r) = f.report("f", data.len() as u64) {
        assert_eq!(r, scan("f", data, Kind::Data));
    }
    let stamp = |t: Timestamp| format!("{}.{}", t.sec, t.nsec);
    for v in [2, 3] {
        for (ty, sem) in [(0, 1), (1, 1), (2, 1), (3, 1), (4, 3), (5, 1), (6, 4)] {
            let mut c = Checker::default();
            let look = Any(ty, sem);
            let mut out = Vec::new();
            // the same bytes as a run of records, with a mark in between
            let mut sets = Vec::new();
            for chunk in data.chunks(64.max(data.len() / 4)) {
                if let Ok(now) = raw_result_into(chunk, 4, v, &mut sets) {
                    let _ = c.record((now, &sets), "f.0", &look, &stamp, &mut out);
                }
                c.mark();
            }
        }
    }
});
