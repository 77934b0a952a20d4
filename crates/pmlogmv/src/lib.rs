//! pmlogmv, as PCP 6.0.3's: every file of an archive (data volumes, index,
//! metadata, each plain or compressed) linked under the new name, copied where
//! a link cannot cross file systems, and the old names removed only once every
//! file has its new one; on a failure the new names made so far are removed.
//! Under the names PCP 7 added, as 7.2's: pmlogcp copies the files (into a
//! directory too), pmlogls lists them.
//!
//! - [`opts`]: the command lines of the three names.
//! - [`copy`]: a file copied, and its checksum.

mod copy;
pub mod opts;

pub use opts::{CP_TOOL, LS_TOOL, TOOL};

use archive_format::compress::SUFFIXES;
use archive_format::volume;
use opts::{Mode, Opts};
use std::io::{self, Write};
use std::path::Path;

/// What pmlogmv refuses in a new name without `-f`, in the order it looks.
const UNSAFE: &str = " $?*[(|;&<>";
/// What PCP 7's pmlogcp refuses in either name.
const UNSAFE7: &str = " $?*[(|;&<>`{}\\!\n\t";

/// Runs the tool in `mode`; returns the exit status.
pub fn run_as(mode: Mode, args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let parse = |a: &[String]| opts::parse(mode, a);
    cli_common::shell::run(mode.tool(), args, out, err, parse, |o, out, err| {
        main(&o, out, err)
    })
}

/// The process of the tool in `mode`: its arguments, its exit status.
pub fn main_as(mode: Mode) -> ! {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = run_as(
        mode,
        &args,
        &mut io::stdout().lock(),
        &mut io::stderr().lock(),
    );
    std::process::exit(code)
}

/// The mode a program name asks for (pmlogmv's for any other).
pub fn mode_of(argv0: &str) -> Mode {
    match Path::new(argv0).file_name().and_then(|n| n.to_str()) {
        Some("pmlogcp") => Mode::Cp,
        Some("pmlogls") => Mode::Ls,
        _ => Mode::Mv,
    }
}

/// Runs pmlogmv; returns the exit status.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    run_as(Mode::Mv, args, out, err)
}

/// One file of an archive: a data volume, the index or the metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Vol(u32),
    Index,
    Meta,
}

impl Part {
    fn name(self, base: &str, suffix: &str) -> String {
        match self {
            Part::Vol(v) => format!("{base}.{v}{suffix}"),
            Part::Index => format!("{base}.index{suffix}"),
            Part::Meta => format!("{base}.meta{suffix}"),
        }
    }
}

/// The file of `part` under `base`, with the first suffix (none first) that
/// names one.
fn existing(base: &str, part: Part) -> Option<(String, &'static str)> {
    std::iter::once("")
        .chain(SUFFIXES.iter().map(|(s, _)| *s))
        .map(|s| (part.name(base, s), s))
        .find(|(p, _)| Path::new(p).symlink_metadata().is_ok())
}

/// The archive's name as libpcp keeps it: its directory (`.` for none), then
/// its base name.
fn logname(name: &str) -> String {
    let base = volume::base_name(name);
    let p = Path::new(&base);
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_string_lossy().into_owned(),
        _ => ".".to_string(),
    };
    let file = p
        .file_name()
        .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
    format!("{dir}/{file}")
}

struct Move<'a> {
    o: &'a Opts,
    prog: &'static str,
    old: String,
    new: String,
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
    /// The checksum command, once looked for.
    sum_cmd: Option<Option<&'static str>>,
}

fn main(o: &Opts, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    let prog = o.mode.tool().name;
    let vols: Vec<u32> = match archive_format::Archive::open(&o.old) {
        Ok(_) => volume::find_archive(&o.old)
            .map(|f| f.volumes.keys().copied().collect())
            .unwrap_or_default(),
        Err(e) => {
            if o.mode != Mode::Ls || o.verbose > 0 {
                let msg = match o.mode {
                    Mode::Mv => e.pm_message(),
                    _ => archive_format::error::in_pcp7_words(&e.pm_message()),
                };
                writeln!(err, "{prog}: Cannot open archive \"{}\": {msg}", o.old)?;
            }
            return Ok(1);
        }
    };
    let mut old = logname(&o.old);
    let mut new = o.new.clone();
    if o.mode != Mode::Mv {
        // PCP 7 strips libpcp's "./", and copies into a directory by name
        old = old.strip_prefix("./").map_or(old.clone(), str::to_string);
        if Path::new(&new).is_dir() {
            let file = Path::new(&old)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned());
            new = format!("{new}/{}", file.unwrap_or_default());
        }
    }
    if let Some(msg) = unsafe_name(o, prog, &new, &old) {
        writeln!(err, "{msg}")?;
        return Ok(1);
    }
    let parts: Vec<Part> = match (vols.first(), vols.last()) {
        (Some(&a), Some(&b)) => (a..=b).map(Part::Vol).collect(),
        _ => Vec::new(),
    };
    let parts: Vec<Part> = parts.into_iter().chain([Part::Index, Part::Meta]).collect();
    let mut m = Move {
        o,
        prog,
        old,
        new,
        out,
        err,
        sum_cmd: None,
    };
    m.all(&parts)
}

/// The message refusing an unsafe name, unless `-f`: pmlogmv's for the new
/// name, PCP 7's for the destination and then the source.
fn unsafe_name(o: &Opts, prog: &str, new: &str, old: &str) -> Option<String> {
    if o.force {
        return None;
    }
    let (chars, names): (&str, &[(&str, &str)]) = match o.mode {
        Mode::Mv => (UNSAFE, &[("new", new)]),
        Mode::Cp => (UNSAFE7, &[("dst", new), ("src", old)]),
        Mode::Ls => return None,
    };
    names.iter().find_map(|(which, name)| {
        let c = chars.chars().find(|c| name.contains(*c))?;
        Some(format!(
            "{prog}: {which}name ({name}) unsafe [shell metacharacter '{c}']"
        ))
    })
}

/// What linking one file did.
enum Linked {
    Yes,
    Missing,
    Failed,
}

impl Move<'_> {
    /// Every part linked (copied, listed), then the old names removed
    /// (pmlogmv); on a failure the new names made are removed.
    fn all(&mut self, parts: &[Part]) -> io::Result<i32> {
        let mut made: Vec<Part> = Vec::new();
        for &p in parts {
            match self.link(p)? {
                Linked::Yes => made.push(p),
                Linked::Missing => {}
                Linked::Failed if self.o.mode == Mode::Ls => return Ok(1),
                Linked::Failed => {
                    // PCP's order: the metadata, the index, then the volumes
                    let (sides, vols): (Vec<Part>, Vec<Part>) =
                        made.iter().partition(|p| !matches!(p, Part::Vol(_)));
                    let new = self.new.clone();
                    for &p in sides.iter().rev().chain(&vols) {
                        self.unlink(&new, p, true)?;
                    }
                    return Ok(1);
                }
            }
        }
        if self.o.mode == Mode::Mv {
            let old = self.old.clone();
            for &p in parts {
                self.unlink(&old, p, false)?;
            }
        }
        Ok(0)
    }

    /// pmlogmv's `do_link`: the file of `part` under the new name (copied by
    /// pmlogcp, named by pmlogls).
    fn link(&mut self, part: Part) -> io::Result<Linked> {
        let prog = self.prog;
        let Some((src, suffix)) = existing(&self.old, part) else {
            let shown = part.name(&self.old, "");
            let said = match part {
                Part::Meta => self.o.verbose >= 1,
                _ => self.o.verbose >= 2,
            };
            if said {
                writeln!(self.err, "{prog}: Warning: source file {shown} not found")?;
            }
            return Ok(Linked::Missing);
        };
        if self.o.mode == Mode::Ls {
            writeln!(self.out, "{src}")?;
            return Ok(Linked::Yes);
        }
        let dst = part.name(&self.new, suffix);
        if Path::new(&dst).symlink_metadata().is_ok() {
            writeln!(self.err, "{prog}: {dst}: already exists")?;
            return Ok(Linked::Failed);
        }
        if self.o.showme {
            let how = if self.o.mode == Mode::Cp { "cp" } else { "ln" };
            writeln!(self.out, "+ {how} {src} {dst}")?;
            return Ok(Linked::Yes);
        }
        if self.o.mode == Mode::Cp {
            return self.copy(&src, &dst);
        }
        match std::fs::hard_link(&src, &dst) {
            Ok(()) => {
                if self.o.verbose > 0 {
                    writeln!(self.out, "link {src} -> {dst}")?;
                }
                Ok(Linked::Yes)
            }
            Err(e) if e.raw_os_error() == Some(copy::EXDEV) => self.copy(&src, &dst),
            Err(e) => {
                let msg = copy::strerror(&e);
                writeln!(self.err, "{prog}: link {src} -> {dst} failed: {msg}")?;
                Ok(Linked::Failed)
            }
        }
    }

    /// The checksum of `file` (`None` without a checksum command), the
    /// command said under `-V` the first time.
    fn checksum(&mut self, file: &str) -> io::Result<Option<String>> {
        let cmd = match self.sum_cmd {
            Some(c) => c,
            None => {
                let c = copy::sum_command(self.o.mode == Mode::Mv);
                match c {
                    None => writeln!(
                        self.err,
                        "{}: warning: no checksum command found, checksums skipped",
                        self.prog
                    )?,
                    Some(c) if self.o.verbose > 0 => writeln!(self.out, "checksum cmd: {c}")?,
                    Some(_) => {}
                }
                self.sum_cmd = Some(c);
                c
            }
        };
        Ok(cmd.and_then(|c| copy::checksum(c, file)))
    }

    /// The copy (pmlogcp's, or pmlogmv's where a link cannot cross file
    /// systems), its checksums compared under `-c`.
    fn copy(&mut self, src: &str, dst: &str) -> io::Result<Linked> {
        let prog = self.prog;
        let sum_src = if self.o.checksum {
            self.checksum(src)?
        } else {
            None
        };
        if self.o.verbose > 0 {
            if let Some(s) = &sum_src {
                writeln!(self.out, "source checksum: {s}")?;
            }
        }
        let copied = if self.o.mode == Mode::Mv {
            copy::copy_6(src, dst).map_err(|e| format!("{prog}: copy {src} -> {dst} failed: {e}"))
        } else {
            copy::copy_7(prog, src, dst)
                .map_err(|e| format!("{e}{prog}: copy {src} -> {dst} failed"))
        };
        if let Err(msg) = copied {
            writeln!(self.err, "{msg}")?;
            return Ok(Linked::Failed);
        }
        if self.o.checksum {
            let sum_dst = self.checksum(dst)?;
            if self.o.verbose > 0 {
                if let Some(s) = &sum_dst {
                    writeln!(self.out, "destination checksum: {s}")?;
                }
            }
            if sum_src != sum_dst {
                let (a, b) = (sum_src.unwrap_or_default(), sum_dst.unwrap_or_default());
                writeln!(self.err, "{prog}: checksums {a} ? {b} differ")?;
                match std::fs::remove_file(dst) {
                    Err(e) => writeln!(
                        self.err,
                        "{prog}: unlink {dst} failed: {}",
                        copy::strerror(&e)
                    )?,
                    Ok(()) if self.o.verbose > 0 => writeln!(self.out, "remove {dst}")?,
                    Ok(()) => {}
                }
                return Ok(Linked::Failed);
            }
        }
        if self.o.verbose > 0 {
            writeln!(self.out, "copy {src} -> {dst}")?;
        }
        Ok(Linked::Yes)
    }

    /// pmlogmv's `do_unlink`: the file of `part` under `base` removed.
    fn unlink(&mut self, base: &str, part: Part, cleanup: bool) -> io::Result<()> {
        let Some((src, _)) = existing(base, part) else {
            return Ok(());
        };
        if self.o.showme {
            return writeln!(self.out, "+ rm {src}");
        }
        if self.o.verbose > 0 {
            let how = if cleanup { "cleanup: " } else { "" };
            writeln!(self.out, "{how}remove {src}")?;
        }
        if let Err(e) = std::fs::remove_file(&src) {
            let msg = copy::strerror(&e);
            writeln!(self.err, "{}: unlink {src} failed: {msg}", self.prog)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_old_name_is_shown_as_libpcp_keeps_it() {
        assert_eq!(logname("no-such-archive"), "./no-such-archive");
        assert_eq!(logname("d/no-such-archive"), "d/no-such-archive");
        // dirname("/x") is "/", and libpcp joins it with another "/"
        assert_eq!(logname("/no-such-archive"), "//no-such-archive");
    }

    #[test]
    fn parts_are_named_with_their_suffix() {
        assert_eq!(Part::Vol(3).name("a", ".xz"), "a.3.xz");
        assert_eq!(Part::Index.name("a", ""), "a.index");
        assert_eq!(Part::Meta.name("a", ".zst"), "a.meta.zst");
    }
}
