//! What PCP 7's pmlogcheck does that 6.0.3's does not, for its options (`-f`,
//! `-r`, `-R`) and several archives: the order it checks an archive's files in,
//! pass 0's findings as it prints them, passes 1 and 2 with where the last valid
//! record ends (with the file's size) and the metadata's times, and the repair by
//! truncation, asked for (`-r`) or not (`-R`). The passes' other words are in the
//! passes, behind their `pcp7` switches.

use crate::opts::{self, Truncate};
use crate::{pass0, pass1, pass2, Names, Pass0, Report};
use archive_format::volume::Decompressed;
use archive_format::{Archive, Timestamp};
use std::io::{self, BufRead, Write};
use std::path::Path;

/// Where a file goes in PCP 7's order: the index, the metadata, then the data
/// volumes by number (its name less any compression suffix).
pub fn ordinal(plain: &str) -> i64 {
    let Some(dot) = plain.rfind('.') else {
        return -3;
    };
    let suffix = &plain[dot + 1..];
    if suffix.starts_with("index") {
        -2
    } else if suffix.starts_with("meta") {
        -1
    } else {
        // atoi: the leading digits
        let digits: String = suffix.chars().take_while(|c| c.is_ascii_digit()).collect();
        digits.parse().unwrap_or(0)
    }
}

/// `F: last valid record ends at offset O (of SIZE)`, SIZE being the file's on
/// disk (`None`: it cannot be had).
pub fn last_valid(fname: &str, offset: u64, size: Option<u64>) -> String {
    match size {
        Some(s) => format!("{fname}: last valid record ends at offset {offset} (of {s})"),
        None => format!("{fname}: last valid record ends at offset {offset} of ??? bytes"),
    }
}

/// The size of a file on disk, as `stat` gives it.
pub fn disk_size(path: &str) -> Option<u64> {
    std::fs::metadata(path).ok().map(|m| m.len())
}

/// `try_truncate`: with `-R`, or `-r` and a yes, cuts the file `fname` (as the
/// messages name it, relative to the working directory) to `offset` bytes and
/// says so; returns whether it did.
pub fn try_truncate(
    mode: Option<Truncate>,
    fname: &str,
    offset: u64,
    size: Option<u64>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<bool> {
    let Some(mode) = mode else {
        return Ok(false);
    };
    if mode == Truncate::Ask && !ask(fname, "Truncate", out, &mut io::stdin().lock())? {
        return Ok(false);
    }
    let cut = std::fs::OpenOptions::new()
        .write(true)
        .open(Path::new(fname))
        .and_then(|f| f.set_len(offset));
    match cut {
        Err(e) => {
            let why = e
                .raw_os_error()
                .map_or_else(|| e.to_string(), |c| archive_format::pm_err_str(-c));
            writeln!(err, "Error: truncate({fname},{offset}) failed: {why}")?;
            Ok(false)
        }
        Ok(()) => {
            let from = size.map_or("???".to_string(), |s| s.to_string());
            writeln!(
                err,
                "Info: {fname}: truncated from {from} to {offset} bytes"
            )?;
            Ok(true)
        }
    }
}

/// PCP 7's question: `THING: QUESTION? [yes|no] ` on stdout until the answer is a
/// line of exactly `yes` or `no`; end of input is no.
pub fn ask(
    thing: &str,
    question: &str,
    out: &mut dyn Write,
    input: &mut dyn BufRead,
) -> io::Result<bool> {
    loop {
        write!(out, "{thing}: {question}? [yes|no] ")?;
        out.flush()?;
        let mut line = Vec::new();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(false);
        }
        match line.as_slice() {
            b"yes\n" => return Ok(true),
            b"no\n" => return Ok(false),
            _ => writeln!(out, "Please answer the question, yes or no")?,
        }
    }
}

/// Pass 0's findings of one file as PCP 7 prints them: the label's findings start
/// a line of their own (an empty one without `-v`), libpcp's errors in its words,
/// and the last valid record's end with the file's size, where the file is cut
/// with `-r` or `-R`. Returns the file's new size where it was cut.
pub(crate) fn pass0_lines(
    o: &opts::Opts,
    fname: &str,
    r: &pass0::Report,
    out: &mut dyn Write,
    err: &mut dyn Write,
    rep: &mut Report,
) -> io::Result<Option<u64>> {
    let last = format!("{fname}: last valid record ends at offset ");
    let mut open = true;
    let mut cut = None;
    for l in &r.lines {
        if open && (!l.breaks || o.verbose > 0) {
            rep.verbose(err, "\n")?;
            open = false;
        }
        if l.text.starts_with(&last) {
            if say_and_cut(o, (fname, r.last_good), "pass0", out, err, rep)? {
                cut = Some(r.last_good);
            }
            continue;
        }
        rep.line(err, "pass0", &archive_format::error::in_pcp7_words(&l.text))?;
    }
    Ok(cut)
}

/// Pass 1 as PCP 7 runs it: the index checked entry by entry, where the last
/// valid entry ends said at the first bad one (and the index cut there with `-r`
/// or `-R`, the check of the index ending with it). Returns whether the index is
/// bad.
pub(crate) fn index(
    o: &opts::Opts,
    ctx: &pass1::Context<'_>,
    a: &Archive,
    out: &mut dyn Write,
    err: &mut dyn Write,
    rep: &mut Report,
) -> io::Result<bool> {
    if a.index().is_empty() {
        rep.line(err, "pass1", &pass1::missing(ctx))?;
    }
    let entry_size = if a.label().version >= 3 { 32 } else { 20 };
    let (mut index_bad, mut offset) = (false, Some(ctx.label_size as u64));
    for e in pass1::entries(ctx, a.index()) {
        for l in &e.lines {
            rep.line(err, "pass1", l)?;
        }
        index_bad |= e.bad;
        match offset {
            Some(at) if index_bad => {
                let fname = format!("{}.index", ctx.archname);
                if say_and_cut(o, (&fname, at), "pass1", out, err, rep)? {
                    break;
                }
                offset = None;
            }
            Some(at) => offset = Some(at + entry_size),
            None => {}
        }
    }
    Ok(index_bad)
}

/// Where the last valid record of `fname` ends (`at`), said as PCP 7 says it with
/// the file's size, and the file cut there with `-r` or `-R`; whether it was.
fn say_and_cut(
    o: &opts::Opts,
    (fname, at): (&str, u64),
    stage: &'static str,
    out: &mut dyn Write,
    err: &mut dyn Write,
    rep: &mut Report,
) -> io::Result<bool> {
    let size = disk_size(fname);
    rep.line(err, stage, &last_valid(fname, at, size))?;
    try_truncate(o.truncate, fname, at, size, out, err)
}

/// PCP 7's pass 2 over the metadata's timed records: each finding, where the
/// last valid record ends said at the first (and the metadata cut there with
/// `-r` or `-R`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn meta_stamps(
    o: &opts::Opts,
    names: &Names,
    a: &Archive,
    (p0, cache): (&Pass0, &Decompressed),
    nsec: &dyn Fn(Timestamp) -> String,
    out: &mut dyn Write,
    err: &mut dyn Write,
    rep: &mut Report,
) -> io::Result<()> {
    let Some((_, fr)) = &p0.meta_file else {
        return Ok(());
    };
    let Ok(bytes) = cache.load(fr) else {
        return Ok(());
    };
    let label = a.label();
    let label_len = if label.version >= 3 { 808 } else { 132 };
    let end = a.end_time().unwrap_or(Timestamp::new(0, 0));
    let found = pass2::meta_stamps(&bytes, label_len, label.version, label.start, end);
    let mut cut = true;
    for f in &found {
        rep.line(err, "pass2", &f.line(&names.archname, nsec))?;
        if cut {
            let fname = format!("{}.meta", names.archname);
            if say_and_cut(o, (&fname, f.offset), "pass2", out, err, rep)? {
                break;
            }
            cut = false;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_in_pcp7_order() {
        let mut names = vec!["a.2", "a.meta", "a.10", "a.0", "a.index"];
        names.sort_by_key(|n| ordinal(n));
        assert_eq!(names, ["a.index", "a.meta", "a.0", "a.2", "a.10"]);
    }

    #[test]
    fn the_question_until_yes_or_no() {
        let mut out = Vec::new();
        let mut input: &[u8] = b"maybe\nyes please\nyes\n";
        assert!(ask("f", "Truncate", &mut out, &mut input).expect("ask"));
        let text = String::from_utf8(out).expect("utf8");
        assert_eq!(text.matches("f: Truncate? [yes|no] ").count(), 3);
        assert_eq!(
            text.matches("Please answer the question, yes or no")
                .count(),
            2
        );
        let mut input: &[u8] = b"no\n";
        assert!(!ask("f", "Truncate", &mut Vec::new(), &mut input).expect("ask"));
        let mut input: &[u8] = b"";
        assert!(!ask("f", "Truncate", &mut Vec::new(), &mut input).expect("ask"));
    }

    #[test]
    fn truncation_says_what_it_did() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = dir.path().join("x.0");
        std::fs::write(&f, [7u8; 100]).expect("write");
        let name = f.to_string_lossy().into_owned();
        let mut err = Vec::new();
        let did = try_truncate(
            Some(Truncate::Auto),
            &name,
            40,
            Some(100),
            &mut Vec::new(),
            &mut err,
        )
        .expect("truncate");
        assert!(did);
        assert_eq!(std::fs::metadata(&f).expect("stat").len(), 40);
        assert_eq!(
            String::from_utf8(err).expect("utf8"),
            format!("Info: {name}: truncated from 100 to 40 bytes\n")
        );
        assert!(
            !try_truncate(None, &name, 10, Some(40), &mut Vec::new(), &mut Vec::new())
                .expect("no repair")
        );
        assert_eq!(std::fs::metadata(&f).expect("stat").len(), 40);
    }
}
