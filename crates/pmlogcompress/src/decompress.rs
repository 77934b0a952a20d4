//! pmlogdecompress, as PCP 7.2's: every compressed file of an archive
//! decompressed beside it (or into `-t DIR`, where the plain files are
//! copied too), refusing where a decompressed file would be overwritten.

use crate::codec;
use crate::opts::Opts;
use std::io::{self, Write};
use std::path::Path;

const PROG: &str = "pmlogdecompress";

/// The file's name without its last suffix (as the script's sed makes it).
fn without_suffix(f: &str) -> &str {
    match f.rfind('.') {
        Some(i) if !f[i..].contains('/') => &f[..i],
        _ => f,
    }
}

/// The last component of a path.
fn basename(f: &str) -> &str {
    f.rsplit('/').next().unwrap_or(f)
}

pub(crate) fn main(o: &Opts, err: &mut dyn Write) -> io::Result<i32> {
    if let Some(d) = &o.dir {
        if !Path::new(d).is_dir() {
            writeln!(err, "{PROG}: -t: {d} is not an existing directory")?;
            return Ok(1);
        }
    }
    for a in &o.archives {
        if !archive(o, a, err)? {
            return Ok(1);
        }
    }
    Ok(0)
}

/// The script's `_decompress` of one argument; false where it stops.
fn archive(o: &Opts, arg: &str, err: &mut dyn Write) -> io::Result<bool> {
    let verbose = o.verbose > 0;
    let files = crate::files_of(arg, verbose.then_some(""), err)?;
    crate::sweep(arg, o.dir.as_deref(), o);
    let mut ncompress = 0;
    for f in &files {
        if archive_format::compress::strip_suffix(f).is_some() {
            ncompress += 1;
            let out = match &o.dir {
                None => without_suffix(f).to_string(),
                Some(d) => format!("{d}/{}", without_suffix(basename(f))),
            };
            if Path::new(&out).is_file() {
                if o.dir.is_none() && !o.showme && codec::holds(Path::new(f), Path::new(&out)) {
                    // a killed run renamed `out` into place: remove its source
                    std::fs::remove_file(f)?;
                    continue;
                }
                writeln!(err, "{PROG}: {out} exists and will not be clobbered")?;
                return Ok(true);
            }
        }
    }
    if files.is_empty() {
        writeln!(err, "{PROG}: Warning: no PCP archive files match \"{arg}\"")?;
        return Ok(true);
    }
    if verbose {
        writeln!(
            err,
            "{ncompress} of {} files in the archive are compressed",
            files.len()
        )?;
    }
    for f in &files {
        if !one(o, f, err)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The command 7.2's script runs for `f` (shown under `-N`).
fn command(f: &str, to_dir: bool) -> Option<String> {
    let (_, c) = archive_format::compress::strip_suffix(f)?;
    use archive_format::compress::Compression as C;
    let (prog, keep_form) = match c {
        C::Xz => ("xz --decompress", "xz --decompress --stdout"),
        C::Lzma => (
            "xz --decompress --format=lzma",
            "xz --decompress --format=lzma --stdout",
        ),
        C::Bzip2 => ("bzip2 --decompress", "bzip2 --decompress --stdout"),
        C::Gzip => ("gzip -d", "gzip -dc"),
        C::Zstd => ("unzstd --rm --quiet", "unzstd --stdout --quiet"),
        C::Lzw => return None,
    };
    Some(format!("{} {f}", if to_dir { keep_form } else { prog }))
}

/// One file decompressed (or copied into `-t`'s directory).
fn one(o: &Opts, f: &str, err: &mut dyn Write) -> io::Result<bool> {
    let verbose = o.verbose > 0;
    if !Path::new(f).is_file() {
        return Ok(true);
    }
    let compressed = archive_format::compress::strip_suffix(f).is_some();
    if !compressed && o.dir.is_none() {
        return Ok(true);
    }
    let out = match (&o.dir, compressed) {
        (None, _) => without_suffix(basename(f)).to_string(),
        (Some(d), true) => format!("{d}/{}", without_suffix(basename(f))),
        (Some(d), false) => format!("{d}/{}", basename(f)),
    };
    if Path::new(&out).is_file() {
        writeln!(err, "{out}: exists, skip {f} decompression")?;
        return Ok(true);
    }
    if !compressed {
        if o.showme {
            writeln!(err, "+ cp {f} {out}")?;
        } else if let Err(e) = std::fs::copy(f, &out) {
            writeln!(err, "cp: {e}\nFailed to copy {f}")?;
            return Ok(false);
        } else if verbose {
            writeln!(err, "{out}: copied")?;
        }
        return Ok(true);
    }
    let Some(cmd) = command(f, o.dir.is_some()) else {
        writeln!(err, "TODO: {f}")?;
        return Ok(true);
    };
    if o.showme {
        // the script says it decompressed even when it only showed how
        writeln!(err, "+ {cmd}")?;
        if verbose {
            writeln!(err, "{out}: decompressed")?;
        }
        return Ok(true);
    }
    // without -t, beside the compressed file; with it, into the directory
    let dst = match &o.dir {
        None => without_suffix(f).to_string(),
        Some(_) => out.clone(),
    };
    if let Err(e) = codec::decompress_file(Path::new(f), Path::new(&dst), o.dir.is_some()) {
        writeln!(err, "{PROG}: {f}: {e}\n{cmd} file failed")?;
        return Ok(false);
    }
    if verbose {
        writeln!(err, "{out}: decompressed")?;
    }
    Ok(true)
}
