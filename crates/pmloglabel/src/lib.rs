//! pmloglabel, as PCP 6.0.3's: the label at the start of every file of an
//! archive checked against the others, changed where the options ask (host
//! name, time zone, pmlogger's PID, version, the framing words), and shown.
//!
//! - [`opts`]: the command line.
//! - [`check`]: the labels loaded and compared, with PCP's messages.
//! - [`write`]: the new labels written, every file or none.
//! - [`journal`]: the change as one step, completed by the next run where a
//!   run was killed.

mod check;
mod journal;
pub mod opts;
mod write;

pub use opts::TOOL;

use archive_format::codec::label::{PM_LOG_MAGIC, VOL_INDEX, VOL_META};
use archive_format::codec::rawlabel::RawLabel;
use archive_format::types::Timestamp;
use archive_format::volume::{self, ArchiveFiles, Decompressed, FileRef};
use archive_format::{Archive, OpenOptions};
use check::Check;
use cli_common::timefmt::{ctime, stamp};
use opts::Opts;
use std::io::{self, Write};
use write::Target;

const PROG: &str = "pmloglabel";

/// Runs pmloglabel; returns the exit status.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    cli_common::shell::run(&TOOL, args, out, err, opts::parse, |o, out, err| {
        main(&o, out, err)
    })
}

fn main(o: &Opts, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    if o.verbose {
        writeln!(out, "Scanning for components of archive \"{}\"", o.archive)?;
    }
    let files = match volume::find_archive(&o.archive) {
        Ok(f) => f,
        Err(e) => {
            out.flush()?;
            let msg = e.pm_message();
            writeln!(err, "{PROG}: Cannot open archive \"{}\": {msg}", o.archive)?;
            return Ok(1);
        }
    };
    journal::recover(&files.base, err)?;
    // each compressed file is decompressed once, for its label and (-l) for the
    // archive's end; the ones after the first on the other cores while the first is
    // read
    let cache = Decompressed::new();
    let later: Vec<FileRef> = files
        .volumes
        .values()
        .chain(&files.index)
        .chain(&files.meta)
        .filter(|f| f.compression.is_some())
        .skip(1)
        .cloned()
        .collect();
    let _prefetch = cache.prefetch(later);
    let mut c = Check::new(!o.write || o.verbose);
    check_all(&files, &cache, &mut c, o.verbose, out, err)?;
    let mut status = c.status;
    let mut golden = c.golden;
    if o.write {
        change(&mut golden, o);
        let base = files.base.to_string_lossy();
        let mut targets: Vec<Target> = volume_range(&files)
            .map(|v| Target::volume(&base, v))
            .collect();
        if files.index.is_some() {
            targets.push(Target::index(&base));
        }
        targets.push(Target::meta(&base));
        out.flush()?;
        let written = write::write_all(&files.base, &golden, &targets, o.verbose, out, err)?;
        if written != 0 {
            status = written;
        }
    }
    if o.label || o.long_label {
        dump(&golden, o, &cache, out)?;
    }
    Ok(status)
}

/// The data volumes from the first to the last, gaps included.
fn volume_range(files: &ArchiveFiles) -> impl Iterator<Item = u32> {
    let first = files.volumes.keys().next().copied().unwrap_or(0);
    let last = files.volumes.keys().next_back().copied().unwrap_or(0);
    first..=last
}

/// A file's bytes (decompressed through `cache`), or the error (libpcp's code)
/// opening it gave.
fn bytes_of(fr: Option<&FileRef>, cache: &Decompressed) -> Result<volume::Bytes, i32> {
    let fr = fr.ok_or(archive_format::error::ENOENT)?;
    cache.load(fr).map_err(|e| e.pm_err())
}

/// Every file's label checked, in pmloglabel's order.
fn check_all(
    files: &ArchiveFiles,
    cache: &Decompressed,
    c: &mut Check,
    verbose: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<()> {
    let mut step = |out: &mut dyn Write, fr: Option<&FileRef>, vol: i32, bad: &str, name: &str| {
        if verbose {
            writeln!(out, "Checking label on {name}")?;
            out.flush()?;
        }
        let loaded = bytes_of(fr, cache);
        c.file(loaded.as_deref().map_err(|e| *e), vol, bad, name, err)
    };
    for v in volume_range(files) {
        let name = format!("data volume {v}");
        step(out, files.volumes.get(&v), v as i32, &name, &name)?;
    }
    if let Some(ti) = &files.index {
        step(out, Some(ti), VOL_INDEX, "temporal index", "temporal index")?;
    } else if verbose {
        writeln!(out, "No temporal index found")?;
    }
    let meta = files.meta.as_ref();
    step(out, meta, VOL_META, "metadata volume", "metadata volume")
}

/// The golden label changed as the options ask (the zone information is
/// dropped, as PCP 6.0.3 drops it).
fn change(golden: &mut RawLabel, o: &Opts) {
    if o.version != 0 {
        golden.magic = PM_LOG_MAGIC | o.version;
    }
    if o.pid != 0 {
        golden.pid = o.pid;
    }
    if let Some(h) = &o.host {
        golden.hostname = Some(h.clone());
    }
    if let Some(tz) = &o.tz {
        golden.timezone = Some(tz.clone());
    }
    golden.zoneinfo = None;
}

/// `-l`/`-L`: the golden label, and the archive's end as a new context finds it.
fn dump(g: &RawLabel, o: &Opts, cache: &Decompressed, out: &mut dyn Write) -> io::Result<()> {
    let tz = cli_common::zone::local();
    let null = |s: &Option<String>| s.clone().unwrap_or_else(|| "(null)".into());
    let line = |t: Timestamp| {
        let ct = ctime(t.sec, &tz);
        let yr: String = ct.get(20..).unwrap_or("").chars().take(4).collect();
        format!("{} {} {yr:>4}", &ct[..10.min(ct.len())], stamp(t, 3, &tz))
    };
    writeln!(out, "Log Label (Log Format Version {})", g.version())?;
    writeln!(out, "Performance metrics from host {}", null(&g.hostname))?;
    let nsec = g.nsec.clamp(0, 999_999_999) as u32;
    writeln!(out, "  commencing {}", line(Timestamp::new(g.sec, nsec)))?;
    let opts = OpenOptions {
        decompressed: Some(cache.clone()),
        ..OpenOptions::default()
    };
    match Archive::open_with(&o.archive, opts) {
        Err(e) => writeln!(
            out,
            "  ending     UNKNOWN (pmNewContext: {})",
            e.pm_message()
        )?,
        Ok(a) => match a.end_time() {
            Err(e) => writeln!(
                out,
                "  ending     UNKNOWN (pmGetArchiveEnd: {})",
                e.pm_message()
            )?,
            Ok(end) => writeln!(out, "  ending     {}", line(end))?,
        },
    }
    if o.long_label {
        writeln!(out, "Archive timezone: {}", null(&g.timezone))?;
        writeln!(out, "PID for pmlogger: {}", g.pid)?;
    }
    Ok(())
}
