//! A data volume's space: bytes of values against framing, `<mark>` records,
//! and under `-d` each metric's share (its values, and under `-r` the values
//! that repeat the one before for the same instance), in pmlogsize's words.
//! Pure: bytes in, text out.
//!
//! As pmlogsize counts it, a v3 record's timestamp takes 16 bytes (the size
//! of a `pmTimespec`, not the 12 on disk), and records are decoded (marks
//! told apart, metrics named) only where the volume opens as an archive.

use crate::share::{past, pct, s};
use crate::{Report, Want};
use archive_format::codec::result::{raw_value_sets, Value};
use archive_format::error::pm_err_str;
use archive_format::types::PmId;
use std::fmt::Write;

type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// The last value of an instance, for `-r`: a value word, or a block's type and
/// bytes.
#[derive(PartialEq, Eq)]
enum Last {
    Word(u32),
    Block(u8, Vec<u8>),
}

/// One metric's space.
struct Metric {
    pmid: PmId,
    names: Vec<String>,
    bytes: i64,
    nrec: i64,
    nval: i64,
    ndup: i64,
    dup_bytes: i64,
    last: HashMap<i32, Last>,
}

/// What the volume is read with: its version, where it opens as an archive the
/// names of its metrics, and what lets go of the bytes read so far (`start..end`:
/// a mapped file's pages, so that a long volume is not all held).
pub struct Volume<'a> {
    pub version: u32,
    pub names: Option<&'a dyn Fn(PmId) -> Vec<String>>,
    pub release: Option<&'a dyn Fn(usize, usize)>,
}

/// Bytes read between two releases.
const RELEASE_STEP: usize = 4 << 20;

/// The data volume `file` (decompressed), its label ending at `start`.
pub fn report(file: &[u8], start: usize, vol: &Volume, want: &Want) -> Report {
    let size = file.len() as i64;
    let mut out = String::new();
    let (mut ohead, mut bytes, mut nrec, mut nmark) = (start as i64, 0i64, 0i64, 0i64);
    let stamp: i64 = if vol.version >= 3 { 16 } else { 8 };
    let mut metrics = Metrics::default();
    let mut at = start;
    let mut released = 0;
    while at + 4 <= file.len() {
        if let Some(release) = vol.release.filter(|_| at - released >= RELEASE_STEP) {
            release(released, at);
            released = at;
        }
        let header = i32::from_be_bytes([file[at], file[at + 1], file[at + 2], file[at + 3]]);
        at += 4;
        ohead += 4;
        let rlen = header.wrapping_sub(8);
        bytes += i64::from(rlen) - stamp - 4;
        ohead += stamp + 4;
        let have = file.len() - at;
        if rlen < 0 || rlen as usize > have {
            let need = rlen.wrapping_add(12);
            let got = have.min(i32::MAX as usize);
            let err = format!("Error: data read failed: len {got} not {need}");
            return Report {
                out,
                err: Some(err),
            };
        }
        let payload = &file[at..at + rlen as usize];
        at = (at + rlen as usize + 4).min(file.len());
        ohead += 4;
        nrec += 1;
        let Some(names) = vol.names else {
            continue;
        };
        let sets = match raw_value_sets(payload, vol.version) {
            Ok(sets) => sets,
            Err(e) => {
                let msg = pm_err_str(e.kind.pm_err());
                let err = format!("Error: __pmDecodeResult failed: {msg}");
                return Report {
                    out,
                    err: Some(err),
                };
            }
        };
        if sets.is_empty() {
            if want.replication {
                metrics.all.iter_mut().for_each(|m| m.last.clear());
            }
            nmark += 1;
            nrec -= 1;
            continue;
        }
        if want.detail {
            for vs in &sets {
                count(vs, names, want, &mut metrics, &mut out);
            }
        }
    }
    let _ = write!(
        out,
        "  data: {bytes} bytes [{}%, {nrec} records",
        pct(bytes, size)
    );
    if nmark > 0 {
        let _ = write!(out, " (+ {nmark} <mark> records)");
    }
    out.push_str("]\n");
    if want.detail {
        metric_lines(&mut out, want, size, bytes, &mut metrics.all);
    }
    let _ = writeln!(out, "  overhead: {ohead} bytes [{}%]", pct(ohead, size));
    let left = size - (bytes + ohead);
    if left != 0 {
        let _ = writeln!(out, "  unaccounted for: {left} bytes");
    }
    Report { out, err: None }
}

/// The metrics met so far, in the order met, and where each is in that order.
#[derive(Default)]
struct Metrics {
    all: Vec<Metric>,
    place: HashMap<PmId, usize>,
}

/// One value set counted into its metric (said under `-v`).
fn count(
    vs: &archive_format::codec::result::RawValueSet,
    names: &dyn Fn(PmId) -> Vec<String>,
    want: &Want,
    metrics: &mut Metrics,
    out: &mut String,
) {
    if want.verbose > 0 {
        let _ = write!(out, "PMID: {}", vs.pmid);
    }
    let i = match metrics.place.get(&vs.pmid) {
        Some(&i) => i,
        None => {
            let names = names(vs.pmid);
            if want.verbose > 0 && !names.is_empty() {
                let _ = write!(out, " ({})", names.join(", "));
            }
            metrics.place.insert(vs.pmid, metrics.all.len());
            metrics.all.push(Metric {
                pmid: vs.pmid,
                names,
                bytes: 0,
                nrec: 0,
                nval: 0,
                ndup: 0,
                dup_bytes: 0,
                last: HashMap::default(),
            });
            metrics.all.len() - 1
        }
    };
    let m = &mut metrics.all[i];
    m.nrec += 1;
    let mut len: i64 = 8;
    if vs.numval > 0 {
        len += 4 + 8 * i64::from(vs.numval);
    }
    for (inst, value) in vs.values().flatten() {
        if let Value::Block { data, .. } = value {
            len += (data.len() as i64 + 4 + 3) / 4 * 4;
        }
        m.nval += 1;
        if !want.replication {
            continue;
        }
        // (a block's bytes are copied only when they change)
        let same = match (m.last.get(&inst), &value) {
            (Some(Last::Word(p)), Value::Insitu(w)) => p == w,
            (Some(Last::Block(pt, pd)), Value::Block { vtype, data }) => pt == vtype && pd == data,
            _ => false,
        };
        if same {
            m.ndup += 1;
            m.dup_bytes += match value {
                Value::Insitu(_) => 8,
                Value::Block { data, .. } => 8 + data.len() as i64 + 4,
            };
            continue;
        }
        let now = match value {
            Value::Insitu(w) => Last::Word(w),
            Value::Block { vtype, data } => Last::Block(vtype, data.to_vec()),
        };
        m.last.insert(inst, now);
    }
    if want.verbose > 0 {
        let _ = writeln!(out, " bytes={len}");
    }
    m.bytes += len;
}

/// `-d`'s lines of the metrics, largest first, up to `-x`.
fn metric_lines(out: &mut String, want: &Want, size: i64, total: i64, metrics: &mut [Metric]) {
    metrics.sort_by_key(|m| std::cmp::Reverse(m.bytes));
    let mut sum = 0;
    for m in metrics.iter() {
        if past(want.threshold, sum, total) {
            out.push_str("    ...\n");
            break;
        }
        let _ = write!(
            out,
            "    {}: {} bytes [{}%, {} record{}, {} value{}",
            m.pmid,
            m.bytes,
            pct(m.bytes, size),
            m.nrec,
            s(m.nrec != 1),
            m.nval,
            s(m.nval != 1)
        );
        if want.replication && m.ndup > 0 {
            let _ = write!(
                out,
                " ({} bytes for {} dup{})",
                m.dup_bytes,
                m.ndup,
                s(m.ndup != 1)
            );
        }
        out.push(']');
        if !m.names.is_empty() {
            let _ = write!(out, " ({})", m.names.join(", "));
        }
        out.push('\n');
        sum += m.bytes;
    }
}
