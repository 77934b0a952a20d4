//! Pass 0: the physical structure of one archive file, from its bytes alone.
//!
//! Every record is `len | body | len` with both lengths big-endian and equal; the
//! first is the label. An index holds fixed-size entries after its label. The
//! findings and their wording are PCP 6.0.3's (`pmlogcheck` reads a file byte by
//! byte and reports the first framing fault, which ends the pass; metadata record
//! types that do not belong to the label's version are reported and the pass goes
//! on). Pure: no I/O, so the fuzz target drives it directly.

use archive_format::codec::label::{LABEL_V2_LEN, LABEL_V3_LEN, PM_LOG_MAGIC};
use archive_format::codec::meta;
use archive_format::Timestamp;

/// What kind of archive file the name says it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Index,
    Meta,
    Data,
}

/// How a file came out of the pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    Ok,
    /// Readable but nothing in it ("contains no PCP data").
    Warning,
    /// Damaged; checking stops after pass 0.
    Fatal,
}

/// The outcome for one file.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// Findings, in the order found.
    pub lines: Vec<Line>,
    /// Records found (the label counts as one).
    pub records: usize,
    /// The file's status as pass 0 left it (before the label's verdict).
    pub framing: Status,
    /// The status pmlogcheck acts on: the framing's, or the label's when the
    /// framing was good.
    pub status: Status,
    /// End of the last whole record (0 until one was read past the label); what a
    /// repair keeps.
    pub last_good: u64,
    /// The label's version and start when the label loaded.
    pub label: Option<(u32, Timestamp)>,
}

/// One finding: a whole line without its newline.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub text: String,
    /// Whether `-v` starts a new line for it when the progress line is still open
    /// (framing findings; the label's are printed straight after the progress).
    pub breaks: bool,
}

impl Line {
    fn label(text: String) -> Line {
        Line {
            text,
            breaks: false,
        }
    }
    fn framing(text: String) -> Line {
        Line { text, breaks: true }
    }
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// The label checks: the magic number and version as read, then loading the label
/// as libpcp does (which looks at the version and length, not the magic). Returns
/// the label's status and, when it loaded, its magic and start.
pub(crate) fn check_label(
    fname: &str,
    file: &[u8],
    body_len: usize,
    lines: &mut Vec<Line>,
) -> (Status, Option<(u32, Timestamp)>) {
    let Some(magic) = be32(file, 4) else {
        lines.push(Line::label(format!(
            "checklabel(...,{fname}): botch: magic read returns {} not 4 as expected",
            file.len().saturating_sub(4).min(4)
        )));
        return (Status::Fatal, None);
    };
    if magic & 0xffff_ff00 != PM_LOG_MAGIC {
        lines.push(Line::label(format!(
            "{fname}: bad label magic number: 0x{:x} not 0x{:x} as expected",
            magic & 0xffff_ff00,
            PM_LOG_MAGIC
        )));
    }
    let version = magic & 0xff;
    if version != 2 && version != 3 {
        lines.push(Line::label(format!(
            "{fname}: bad label version: {version} not 2 or 3 as expected"
        )));
    }
    let want = match version {
        2 => LABEL_V2_LEN,
        3 => LABEL_V3_LEN,
        _ => 0,
    };
    if want == 0 || body_len + 8 != want {
        lines.push(Line::label(format!(
            "{fname}: cannot load label record: {}",
            archive_format::pm_err_str(archive_format::error::PM_ERR_LABEL)
        )));
        return (Status::Fatal, None);
    }
    // the library's decoder checks the magic number too, which libpcp's loader
    // does not: it reads a copy of the label with the magic number mended
    let mut copy = file[..want.min(file.len())].to_vec();
    copy[4..8].copy_from_slice(&(PM_LOG_MAGIC | version).to_be_bytes());
    let Ok(l) = archive_format::codec::label::decode_label(&copy) else {
        lines.push(Line::label(format!(
            "{fname}: cannot load label record: {}",
            archive_format::pm_err_str(archive_format::error::PM_ERR_LABEL)
        )));
        return (Status::Fatal, None);
    };
    let start = l.start;
    (Status::Ok, Some((magic, start)))
}

/// Pass 0 over the bytes of one file named `fname`.
pub fn scan(fname: &str, file: &[u8], kind: Kind) -> Report {
    scan_with(fname, file, kind, &mut |_| {})
}

/// How often [`scan_with`] says how far it has got.
pub const STRIDE: usize = 32 << 20;

/// [`scan`], telling `done` every [`STRIDE`] bytes that the bytes before the offset
/// it passes are no longer needed (the caller lets the pages of a mapped file go).
pub fn scan_with(fname: &str, file: &[u8], kind: Kind, done: &mut dyn FnMut(usize)) -> Report {
    let mut next_mark = STRIDE;
    let mut lines = Vec::new();
    let mut nrec = 0usize;
    let mut pos = 0usize;
    let mut last_good = 0u64;
    let mut label_status = Status::Ok;
    let mut label = None;
    let mut golden_version = 0u32;
    // the first four bytes of a metadata record's body, carried over as libpcp's
    // shift register carries them
    let mut rtype: u32 = 0;
    let status = 'done: {
        loop {
            if pos >= next_mark {
                done(pos);
                next_mark = pos + STRIDE;
            }
            let left = file.len() - pos;
            if left == 0 {
                break;
            }
            if left < 4 {
                lines.push(Line::framing(format!(
                    "{fname}[record {nrec}]: unexpected EOF in record header, wanted 4, got {left} bytes"
                )));
                break 'done Status::Fatal;
            }
            let (start, body) = match frame(fname, file, pos, nrec) {
                Ok(f) => f,
                Err(msg) => {
                    lines.push(Line::framing(msg));
                    break 'done Status::Fatal;
                }
            };
            if kind == Kind::Meta && nrec > 0 {
                for &b in &file[start..start + body.min(4)] {
                    rtype = rtype << 8 | b as u32;
                }
            }
            pos = start + body + 4;
            if nrec == 0 {
                let (st, l) = check_label(fname, file, body, &mut lines);
                label_status = st;
                if let Some((magic, start)) = l {
                    golden_version = magic & 0xff;
                    label = Some((golden_version, start));
                }
            }
            if kind == Kind::Index {
                // after the label, whole entries of the label's version
                let (n, part) = index_entries(file.len() - pos, golden_version);
                nrec += 1 + n;
                if let Some(msg) = part {
                    lines.push(Line::framing(format!("{fname}[record {nrec}]: {msg}")));
                    break 'done Status::Fatal;
                }
                break;
            }
            if kind == Kind::Meta && nrec > 0 {
                if let Some(msg) = wrong_type(rtype as i32, golden_version) {
                    lines.push(Line::framing(format!("{fname}[record {nrec}]: {msg}")));
                }
            }
            nrec += 1;
            last_good = pos as u64;
        }
        if nrec < 2 {
            lines.push(Line::framing(format!("{fname}: contains no PCP data")));
            Status::Warning
        } else {
            Status::Ok
        }
    };
    if status == Status::Fatal && last_good > 0 {
        lines.push(Line::framing(format!(
            "{fname}: last valid record ends at offset {last_good}"
        )));
    }
    let overall = if status == Status::Ok {
        label_status
    } else {
        status
    };
    Report {
        lines,
        records: nrec,
        framing: status,
        status: overall,
        last_good,
        label,
    }
}

/// The whole index entries of version `version` in `rest` bytes, and the finding
/// of a part entry after them.
fn index_entries(rest: usize, version: u32) -> (usize, Option<String>) {
    let size = if version >= 3 { 32 } else { 20 };
    let part = rest % size;
    let msg = (part != 0)
        .then(|| format!("unexpected EOF in index entry, wanted {size}, got {part} bytes"));
    (rest / size, msg)
}

/// The finding of a metadata record of type `t` that an archive of `version`
/// does not have.
fn wrong_type(t: i32, version: u32) -> Option<String> {
    let bad = match t {
        meta::TYPE_INDOM | meta::TYPE_INDOM_DELTA | meta::TYPE_LABEL => version == 2,
        meta::TYPE_INDOM_V2 | meta::TYPE_LABEL_V2 => version == 3,
        _ => false,
    };
    bad.then(|| {
        format!(
            "unexpected record type {} ({t}) for V{version} archive",
            type_name(t)
        )
    })
}

/// Record `nrec` framed at `pos`: its length word, body and trailer checked as
/// libpcp checks them. Gives where the body starts and its length, or the framing
/// finding (the label record is named as such).
fn frame(fname: &str, file: &[u8], pos: usize, nrec: usize) -> Result<(usize, usize), String> {
    let label = nrec == 0;
    let at = if label {
        String::new()
    } else {
        format!("[record {nrec}]")
    };
    let len = be32(file, pos).unwrap_or(0) as i32;
    let pos = pos + 4;
    // (libpcp compares the lengths as unsigned: a negative one passes here)
    if (len as u32) < 8 {
        return Err(match label {
            true => format!("{fname}: illegal header record length ({len}) in label record"),
            false => format!("{fname}{at}: illegal header record length ({len})"),
        });
    }
    let body = len.wrapping_sub(8).max(0) as usize;
    let have = file.len() - pos;
    if have < body {
        let what = if label {
            "label record body"
        } else {
            "record body"
        };
        return Err(format!(
            "{fname}{at}: unexpected EOF in {what}, wanted {body}, got {have} bytes"
        ));
    }
    let have = file.len() - pos - body;
    if have < 4 {
        let what = if label {
            "label record trailer"
        } else {
            "record trailer"
        };
        return Err(format!(
            "{fname}{at}: unexpected EOF in {what}, wanted 4, got {have} bytes"
        ));
    }
    let check = be32(file, pos + body).unwrap_or(0) as i32;
    if (check as u32) < 8 {
        return Err(match label {
            true => format!("{fname}: illegal trailer record length ({check}) in label record"),
            false => format!("{fname}{at}: illegal trailer record length ({check})"),
        });
    }
    if check != len {
        return Err(match label {
            true => {
                format!("{fname}: label record length mismatch: header {len} != trailer {check}")
            }
            false => format!("{fname}{at}: length mismatch: header {len} != trailer {check}"),
        });
    }
    Ok((pos, body))
}

/// libpcp's names of metadata record types.
fn type_name(t: i32) -> &'static str {
    match t {
        meta::TYPE_DESC => "DESC",
        meta::TYPE_INDOM_V2 => "INDOM_V2",
        meta::TYPE_LABEL_V2 => "LABEL_V2",
        meta::TYPE_TEXT => "TEXT",
        meta::TYPE_INDOM => "INDOM",
        meta::TYPE_INDOM_DELTA => "INDOM_DELTA",
        meta::TYPE_LABEL => "LABEL",
        _ => "UNKNOWN",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(r: &Report) -> Vec<String> {
        r.lines.iter().map(|l| l.text.clone()).collect()
    }

    fn record(body: &[u8]) -> Vec<u8> {
        let len = (body.len() + 8) as u32;
        let mut v = len.to_be_bytes().to_vec();
        v.extend_from_slice(body);
        v.extend_from_slice(&len.to_be_bytes());
        v
    }

    fn label_v2(start: i32) -> Vec<u8> {
        let mut body = vec![0u8; LABEL_V2_LEN - 8];
        body[..4].copy_from_slice(&(PM_LOG_MAGIC | 2).to_be_bytes());
        body[8..12].copy_from_slice(&start.to_be_bytes());
        record(&body)
    }

    #[test]
    fn a_good_data_volume() {
        let mut f = label_v2(1000);
        f.extend(record(&[0u8; 16]));
        let r = scan("x.0", &f, Kind::Data);
        assert_eq!(r.status, Status::Ok, "{:?}", r.lines);
        assert_eq!(r.records, 2);
        assert_eq!(r.label, Some((2, Timestamp::new(1000, 0))));
        assert_eq!(r.last_good, f.len() as u64);
    }

    #[test]
    fn a_cut_record_names_its_place_and_the_last_good_offset() {
        let mut f = label_v2(1);
        f.extend(record(&[0u8; 16]));
        let good = f.len();
        f.extend(&record(&[0u8; 16])[..10]);
        let r = scan("x.0", &f, Kind::Data);
        assert_eq!(r.status, Status::Fatal);
        assert_eq!(
            texts(&r),
            [
                "x.0[record 2]: unexpected EOF in record body, wanted 16, got 6 bytes".to_string(),
                format!("x.0: last valid record ends at offset {good}"),
            ]
        );
    }

    #[test]
    fn a_label_alone_is_no_data() {
        let r = scan("x.meta", &label_v2(1), Kind::Meta);
        assert_eq!(r.status, Status::Warning);
        assert_eq!(r.lines[0].text, "x.meta: contains no PCP data");
    }

    #[test]
    fn v3_record_types_in_a_v2_archive_are_reported_and_the_pass_goes_on() {
        let mut f = label_v2(1);
        f.extend(record(&[0, 0, 0, 5, 1, 2, 3, 4]));
        f.extend(record(&[0, 0, 0, 1, 1, 2, 3, 4]));
        let r = scan("x.meta", &f, Kind::Meta);
        assert_eq!(r.status, Status::Ok);
        assert_eq!(
            texts(&r),
            ["x.meta[record 1]: unexpected record type INDOM (5) for V2 archive"]
        );
    }

    #[test]
    fn a_partial_index_entry() {
        let mut f = label_v2(1);
        f.extend([0u8; 30]);
        let r = scan("x.index", &f, Kind::Index);
        assert_eq!(
            texts(&r),
            ["x.index[record 2]: unexpected EOF in index entry, wanted 20, got 10 bytes"]
        );
        assert_eq!(r.status, Status::Fatal);
    }

    #[test]
    fn a_bad_version_also_fails_to_load() {
        let mut f = label_v2(1);
        f[7] = 1;
        f.extend(record(&[0u8; 16]));
        let r = scan("x.0", &f, Kind::Data);
        assert_eq!(r.status, Status::Fatal);
        assert_eq!(r.lines.len(), 2);
        assert!(r.lines[0]
            .text
            .ends_with("bad label version: 1 not 2 or 3 as expected"));
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_give_a_report(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..400)) {
            for kind in [Kind::Index, Kind::Meta, Kind::Data] {
                let r = scan("f", &bytes, kind);
                proptest::prop_assert!(r.last_good <= bytes.len() as u64);
            }
        }
    }
}
