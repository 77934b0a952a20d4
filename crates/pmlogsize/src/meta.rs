//! The metadata file's space: bytes and records of each kind, instance
//! domains one by one with their instances and repeats (`-d`, `-r`), each
//! record as read (`-v`), in pmlogsize's words. Pure: bytes in, text out.

use crate::share::{past, pct, s};
use crate::{Report, Want};
use archive_format::codec::meta::{
    TYPE_DESC, TYPE_INDOM, TYPE_INDOM_DELTA, TYPE_INDOM_V2, TYPE_LABEL, TYPE_LABEL_V2, TYPE_TEXT,
};
use archive_format::types::{InDom, PmId};
use std::fmt::Write;

/// One instance domain's space.
#[derive(Default)]
struct Domain {
    indom: u32,
    nrec: i64,
    bytes: i64,
    /// The distinct (instance, name) pairs.
    uniq: std::collections::HashSet<(i32, Vec<u8>)>,
    ndup: i64,
    dup_bytes: i64,
}

fn word(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// The C string at `at` in `b` (up to a NUL or the end).
fn cstr(b: &[u8], at: usize) -> &[u8] {
    let tail = b.get(at..).unwrap_or(&[]);
    let end = tail.iter().position(|&c| c == 0).unwrap_or(tail.len());
    &tail[..end]
}

/// `-v`'s line of a metric descriptor: its PMID and names.
fn desc_line(buf: &[u8], out: &mut String) {
    let _ = write!(out, "PMID: {}", PmId(word(buf, 0).unwrap_or(0)));
    let numnames = word(buf, 20).unwrap_or(0) as i32;
    let mut at = 24;
    for _ in 0..numnames.max(0) {
        let Some(len) = word(buf, at) else { break };
        at += 4;
        // (a length past the record is taken as the rest of the record: the
        // padding stays within what the file holds)
        let len = (len as usize).min(buf.len().saturating_sub(at));
        let name = &buf[at..at + len];
        let end = name.iter().position(|&c| c == 0).unwrap_or(name.len());
        // printf's "%*.*s": cut at a NUL, then padded on the left to its length
        let shown = String::from_utf8_lossy(&name[..end]);
        let _ = write!(out, " {}{shown}", " ".repeat(len - end));
        at += len;
    }
    out.push('\n');
}

/// An instance domain record (`rtype` one of the three kinds) counted into
/// `domains`, and said under `-v`. Reads as pmlogsize does: a deleted
/// instance (delta records) stops the reading of identifiers there.
fn indom_record(rtype: i32, buf: &[u8], want: &Want, domains: &mut Vec<Domain>, out: &mut String) {
    let stamp = if rtype == TYPE_INDOM_V2 { 8 } else { 12 };
    let indom = word(buf, stamp).unwrap_or(0);
    if want.verbose > 0 {
        let kind = match rtype {
            TYPE_INDOM => "INDOM",
            TYPE_INDOM_DELTA => "INDOM_DELTA",
            _ => "INDOM_V2",
        };
        let _ = write!(out, "{kind}: {}", InDom(indom));
    }
    let i = match domains.iter().position(|d| d.indom == indom) {
        Some(i) => i,
        None => {
            domains.push(Domain {
                indom,
                ..Domain::default()
            });
            domains.len() - 1
        }
    };
    let d = &mut domains[i];
    d.nrec += 1;
    let ninst = word(buf, stamp + 4).unwrap_or(0) as i32;
    d.bytes += 4 + stamp as i64 + 4 + 4;
    if want.verbose > 0 {
        let _ = write!(out, " {ninst} instance{}", s(ninst > 1));
    }
    let first = stamp + 8;
    // the record's layout is the count's, as it says; but no more instances are
    // read than the record holds, so a count past it costs nothing
    let claimed = ninst.max(0) as usize;
    let (stridx, strs) = (first + 4 * claimed, first + 8 * claimed);
    let n = claimed.min(buf.len().saturating_sub(first) / 8);
    let mut at = first;
    for j in 0..n {
        let inst = word(buf, at).unwrap_or(0) as i32;
        if inst < 0 {
            if want.verbose > 0 && j == n - 1 {
                out.push_str(" ... ");
            }
            continue;
        }
        at += 4;
        let name = cstr(buf, strs + word(buf, stridx + 4 * j).unwrap_or(0) as usize);
        if want.verbose > 0 {
            let shown = String::from_utf8_lossy(name);
            if j == 0 {
                let _ = write!(out, " {inst} \"{shown}\"");
            } else if j == n - 1 {
                let _ = write!(out, " ... {inst} \"{shown}\"");
            }
        }
        if !d.uniq.insert((inst, name.to_vec())) {
            d.ndup += 1;
            d.dup_bytes += 8 + name.len() as i64 + 1;
        }
        d.bytes += 8 + name.len() as i64 + 1;
    }
    if want.verbose > 0 {
        out.push('\n');
    }
}

/// The metadata file `file` (decompressed), its label ending at `start`;
/// `size` is its length.
pub fn report(file: &[u8], start: usize, want: &Want) -> Report {
    let size = file.len() as i64;
    let mut out = String::new();
    let mut ohead = start as i64;
    let mut bytes = [0i64; 8];
    let mut nrec = [0i64; 8];
    let mut domains: Vec<Domain> = Vec::new();
    let mut at = start;
    while at + 8 <= file.len() {
        ohead += 4;
        let len = word(file, at).unwrap_or(0) as i32;
        let rtype = word(file, at + 4).unwrap_or(0) as i32;
        at += 8;
        // (wrapping as C's int arithmetic does for a length near the smallest)
        let need = len.wrapping_sub(12);
        let have = file.len() - at;
        if need < 0 || need as usize > have {
            let err = format!(
                "Error: metadata read failed: len {} not {need}",
                have.min(i32::MAX as usize)
            );
            return Report {
                out,
                err: Some(err),
            };
        }
        let buf = &file[at..at + need as usize];
        at += need as usize;
        if !(TYPE_DESC..=TYPE_LABEL).contains(&rtype) {
            let err = format!("Error: bad metadata type: {rtype}");
            return Report {
                out,
                err: Some(err),
            };
        }
        let t = rtype as usize;
        nrec[t] += 1;
        bytes[t] += 4 + need as i64;
        match rtype {
            TYPE_DESC if want.verbose > 0 => desc_line(buf, &mut out),
            TYPE_INDOM | TYPE_INDOM_DELTA | TYPE_INDOM_V2 if want.verbose > 0 || want.detail => {
                indom_record(rtype, buf, want, &mut domains, &mut out)
            }
            TYPE_LABEL | TYPE_LABEL_V2 if want.detail && nrec[t] == 1 => {
                out.push_str("LABEL: TODO ... nothing reported as yet\n")
            }
            TYPE_TEXT if want.detail && nrec[t] == 1 => {
                out.push_str("TEXT: TODO ... nothing reported as yet\n")
            }
            _ => {}
        }
        at = (at + 4).min(file.len());
        ohead += 4;
    }
    summary(
        &mut out,
        want,
        size,
        ohead,
        &mut bytes,
        &mut nrec,
        &mut domains,
    );
    Report { out, err: None }
}

/// The totals, and the instance domains largest first under `-d`.
fn summary(
    out: &mut String,
    want: &Want,
    size: i64,
    ohead: i64,
    bytes: &mut [i64; 8],
    nrec: &mut [i64; 8],
    domains: &mut [Domain],
) {
    let (d, i, l) = (TYPE_DESC as usize, TYPE_INDOM as usize, TYPE_LABEL as usize);
    nrec[i] += nrec[TYPE_INDOM_DELTA as usize] + nrec[TYPE_INDOM_V2 as usize];
    bytes[i] += bytes[TYPE_INDOM_DELTA as usize] + bytes[TYPE_INDOM_V2 as usize];
    nrec[l] += nrec[TYPE_LABEL_V2 as usize];
    bytes[l] += bytes[TYPE_LABEL_V2 as usize];
    let t = TYPE_TEXT as usize;
    let line = |out: &mut String, what: &str, k: usize| {
        let (b, n) = (bytes[k], nrec[k]);
        let _ = writeln!(out, "  {what}: {b} bytes [{}%, {n} records]", pct(b, size));
    };
    if nrec[d] > 0 {
        line(out, "metrics", d);
    }
    if nrec[i] > 0 {
        let _ = write!(
            out,
            "  indoms: {} bytes [{}%, {} records",
            bytes[i],
            pct(bytes[i], size),
            nrec[i]
        );
        if want.detail {
            let all: i64 = domains.iter().map(|d| d.uniq.len() as i64 + d.ndup).sum();
            let _ = write!(out, ", {all} instances");
        }
        out.push_str("]\n");
        if want.detail {
            domain_lines(out, want, size, bytes[i], domains);
        }
    }
    if nrec[l] > 0 {
        line(out, "labels", l);
    }
    if nrec[t] > 0 {
        line(out, "texts", t);
    }
    let _ = writeln!(out, "  overhead: {ohead} bytes [{}%]", pct(ohead, size));
    let left = size - (bytes[d] + bytes[i] + bytes[l] + bytes[t] + ohead);
    if left != 0 {
        let _ = writeln!(out, "  unaccounted for: {left} bytes");
    }
}

/// `-d`'s lines of the instance domains, largest first, up to `-x`.
fn domain_lines(out: &mut String, want: &Want, size: i64, total: i64, domains: &mut [Domain]) {
    domains.sort_by_key(|d| std::cmp::Reverse(d.bytes));
    let mut sum = 0;
    for d in domains.iter() {
        if past(want.threshold, sum, total) {
            out.push_str("    ...\n");
            break;
        }
        let n = d.uniq.len() as i64 + d.ndup;
        let _ = write!(
            out,
            "    {}: {} bytes [{}%, {} record{}, {n} instance{}",
            InDom(d.indom),
            d.bytes,
            pct(d.bytes, size),
            d.nrec,
            s(d.nrec > 1),
            s(n > 1)
        );
        if want.replication && d.ndup > 0 {
            let _ = write!(
                out,
                " ({} bytes for {} dup{})",
                d.dup_bytes,
                d.ndup,
                s(d.ndup > 1)
            );
        }
        out.push_str("]\n");
        sum += d.bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn be(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_be_bytes()).collect()
    }

    #[test]
    fn a_name_cut_by_a_nul_is_padded_as_printf_pads_it() {
        let mut buf = be(&[(29 << 22) | 5, 0, 0, 0, 0, 1, 6]);
        buf.extend_from_slice(b"ab\0\0\0\0");
        let mut out = String::new();
        desc_line(&buf, &mut out);
        assert_eq!(out, "PMID: 29.0.5     ab\n");
    }

    #[test]
    fn instances_repeat_and_a_deleted_one_stops_the_reading() {
        let want = Want {
            detail: true,
            ..Want::default()
        };
        let mut domains = Vec::new();
        let mut out = String::new();
        // v3 indom record: stamp (3 words), indom, 2 instances, their name
        // offsets, then the names
        let mut rec = be(&[0, 0, 0, (29 << 22) | 1, 2, 7, 8, 0, 2]);
        rec.extend_from_slice(b"a\0b\0");
        indom_record(TYPE_INDOM, &rec, &want, &mut domains, &mut out);
        indom_record(TYPE_INDOM, &rec, &want, &mut domains, &mut out);
        let d = &domains[0];
        assert_eq!((d.nrec, d.uniq.len(), d.ndup), (2, 2, 2));
        assert_eq!(d.bytes, 2 * (24 + 2 * 10));
        // a delta record whose first instance is deleted reads no further
        let delta = be(&[0, 0, 0, (29 << 22) | 1, 2, u32::MAX, 8, 0, 0]);
        indom_record(TYPE_INDOM_DELTA, &delta, &want, &mut domains, &mut out);
        assert_eq!((domains[0].nrec, domains[0].ndup), (3, 2));
    }
}
