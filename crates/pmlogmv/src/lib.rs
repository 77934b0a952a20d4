//! pmlogmv, as PCP 6.0.3's: every file of an archive (data volumes, index,
//! metadata, each plain or compressed) linked under the new name, copied where
//! a link cannot cross file systems, and the old names removed only once every
//! file has its new one; on a failure the new names made so far are removed.
//!
//! - [`opts`]: the command line.

pub mod opts;

pub use opts::TOOL;

use archive_format::compress::SUFFIXES;
use archive_format::volume;
use opts::Opts;
use std::io::{self, Write};
use std::path::Path;

const PROG: &str = "pmlogmv";
/// What pmlogmv refuses in a new name without `-f`, in the order it looks.
const UNSAFE: &str = " $?*[(|;&<>";

/// Runs pmlogmv; returns the exit status.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    cli_common::shell::run(&TOOL, args, out, err, opts::parse, |o, out, err| {
        main(&o, out, err)
    })
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
    old: String,
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
}

fn main(o: &Opts, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    let vols: Vec<u32> = match archive_format::Archive::open(&o.old) {
        Ok(_) => volume::find_archive(&o.old)
            .map(|f| f.volumes.keys().copied().collect())
            .unwrap_or_default(),
        Err(e) => {
            let msg = e.pm_message();
            writeln!(err, "{PROG}: Cannot open archive \"{}\": {msg}", o.old)?;
            return Ok(1);
        }
    };
    if !o.force {
        if let Some(c) = UNSAFE.chars().find(|c| o.new.contains(*c)) {
            writeln!(
                err,
                "{PROG}: newname ({}) unsafe [shell metacharacter '{c}']",
                o.new
            )?;
            return Ok(1);
        }
    }
    let parts: Vec<Part> = match (vols.first(), vols.last()) {
        (Some(&a), Some(&b)) => (a..=b).map(Part::Vol).collect(),
        _ => Vec::new(),
    };
    let parts: Vec<Part> = parts.into_iter().chain([Part::Index, Part::Meta]).collect();
    let mut m = Move {
        o,
        old: logname(&o.old),
        out,
        err,
    };
    let mut made: Vec<Part> = Vec::new();
    for &p in &parts {
        match m.link(p)? {
            Linked::Yes => made.push(p),
            Linked::Missing => {}
            Linked::Failed => {
                // PCP's order: the metadata, the index, then the volumes
                let (sides, vols): (Vec<Part>, Vec<Part>) =
                    made.iter().partition(|p| !matches!(p, Part::Vol(_)));
                for &p in sides.iter().rev().chain(&vols) {
                    m.unlink(&o.new, p, true)?;
                }
                return Ok(1);
            }
        }
    }
    let old = m.old.clone();
    for &p in &parts {
        m.unlink(&old, p, false)?;
    }
    Ok(0)
}

/// What linking one file did.
enum Linked {
    Yes,
    Missing,
    Failed,
}

impl Move<'_> {
    /// pmlogmv's `do_link`: the file of `part` under the new name.
    fn link(&mut self, part: Part) -> io::Result<Linked> {
        let Some((src, suffix)) = existing(&self.old, part) else {
            let shown = part.name(&self.old, "");
            let said = match part {
                Part::Meta => self.o.verbose >= 1,
                _ => self.o.verbose >= 2,
            };
            if said {
                writeln!(self.err, "{PROG}: Warning: source file {shown} not found")?;
            }
            return Ok(Linked::Missing);
        };
        let dst = part.name(&self.o.new, suffix);
        if Path::new(&dst).symlink_metadata().is_ok() {
            writeln!(self.err, "{PROG}: {dst}: already exists")?;
            return Ok(Linked::Failed);
        }
        if self.o.showme {
            writeln!(self.out, "+ ln {src} {dst}")?;
            return Ok(Linked::Yes);
        }
        match std::fs::hard_link(&src, &dst) {
            Ok(()) => {
                if self.o.verbose > 0 {
                    writeln!(self.out, "link {src} -> {dst}")?;
                }
                Ok(Linked::Yes)
            }
            Err(e) if e.raw_os_error() == Some(libc_exdev()) => self.copy(&src, &dst),
            Err(e) => {
                let msg = archive_format::pm_err_str(-e.raw_os_error().unwrap_or(5));
                writeln!(self.err, "{PROG}: link {src} -> {dst} failed: {msg}")?;
                Ok(Linked::Failed)
            }
        }
    }

    /// The copy where a link cannot cross file systems, its checksums compared
    /// under `-c`.
    fn copy(&mut self, src: &str, dst: &str) -> io::Result<Linked> {
        let sum_src = if self.o.checksum {
            checksum::of(src, self)
        } else {
            None
        };
        if let Err(e) = std::fs::copy(src, dst) {
            let msg = archive_format::pm_err_str(-e.raw_os_error().unwrap_or(5));
            writeln!(self.err, "{PROG}: copy {src} -> {dst} failed: {msg}")?;
            return Ok(Linked::Failed);
        }
        if self.o.checksum {
            let sum_dst = checksum::of(dst, self);
            if self.o.verbose > 0 {
                if let Some(s) = &sum_src {
                    writeln!(self.out, "source checksum: {s}")?;
                }
                if let Some(s) = &sum_dst {
                    writeln!(self.out, "destination checksum: {s}")?;
                }
            }
            if sum_src != sum_dst {
                let (a, b) = (sum_src.unwrap_or_default(), sum_dst.unwrap_or_default());
                writeln!(self.err, "{PROG}: checksums {a} ? {b} differ")?;
                let _ = std::fs::remove_file(dst);
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
            let msg = archive_format::pm_err_str(-e.raw_os_error().unwrap_or(5));
            writeln!(self.err, "{PROG}: unlink {src} failed: {msg}")?;
        }
        Ok(())
    }
}

/// EXDEV: a link across file systems.
fn libc_exdev() -> i32 {
    18
}

mod checksum {
    //! The checksum command pmlogmv uses: the first of md5sum, sha256sum,
    //! sha1sum and sum on the path, its first word of output.

    use std::process::{Command, Stdio};

    fn command() -> Option<&'static str> {
        ["md5sum", "sha256sum", "sha1sum", "sum"]
            .into_iter()
            .find(|c| {
                std::env::var_os("PATH")
                    .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(c).is_file()))
            })
    }

    /// The checksum of `file`, `None` where no command is found.
    pub(super) fn of(file: &str, m: &mut super::Move) -> Option<String> {
        let Some(cmd) = command() else {
            let _ = writeln!(
                m.err,
                "pmlogmv: warning: no checksum command found, checksums skipped"
            );
            return None;
        };
        let input = std::fs::File::open(file).ok()?;
        let out = Command::new(cmd)
            .stdin(Stdio::from(input))
            .stderr(Stdio::null())
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        Some(
            text.split(' ')
                .next()
                .unwrap_or("")
                .chars()
                .take(64)
                .collect(),
        )
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
