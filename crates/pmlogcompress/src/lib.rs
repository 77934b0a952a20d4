//! pmlogcompress and pmlogdecompress, as PCP 7.2's: the files of an archive
//! (or files named one by one) compressed with the first program of the list
//! that suits each (zstd from 50 MB, else xz with 10 MiB blocks, by default),
//! the index and files below 4096 bytes left alone; and decompressed back.
//! Every program runs in-process (libzstd, liblzma, bzip2, zlib), each file
//! written under a temporary name and renamed into place before its source
//! goes.
//!
//! - [`opts`]: the two command lines.
//! - [`config`]: the `PCP_COMPRESS_*` settings.
//! - [`codec`]: the programs, in-process.
//! - `decompress`: pmlogdecompress.

pub mod codec;
pub mod config;
mod decompress;
pub mod opts;

pub use opts::{DE_TOOL, TOOL};

use codec::Prog;
use config::Config;
use opts::Opts;
use std::io::{self, Write};
use std::path::Path;

/// Runs pmlogcompress (or, with [`DE_TOOL`], pmlogdecompress); returns the
/// exit status.
pub fn run_as(
    tool: &'static cli_common::spec::Tool,
    args: &[String],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let o = match opts::parse(tool, args) {
        cli_common::shell::Parse::Run(o) => o,
        cli_common::shell::Parse::UsageAfter(text) => {
            // pmgetopt's mistakes, and -?: the usage, and success
            let _ = write!(err, "{text}{}", tool.usage());
            return 0;
        }
        _ => return 1,
    };
    if let Some(msg) = &o.fail {
        let _ = writeln!(err, "{msg}");
        return 1;
    }
    if o.archives.is_empty() {
        let _ = write!(err, "{}", tool.usage());
        return 1;
    }
    cli_common::shell::buffered(tool.name, out, err, |_, err| {
        if tool.name == DE_TOOL.name {
            decompress::main(&o, err)
        } else {
            main(&o, err)
        }
    })
}

/// Runs pmlogcompress.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    run_as(&TOOL, args, out, err)
}

/// The run's settings.
struct Run<'a> {
    o: &'a Opts,
    conf: Config,
    min_size: u64,
    min_zstd: u64,
    progs: Vec<String>,
    /// The programs of the list that are there (all of ours are).
    have: Vec<Prog>,
    use_prog: Option<Prog>,
}

const PROG: &str = "pmlogcompress";

fn main(o: &Opts, err: &mut dyn Write) -> io::Result<i32> {
    if let (Some(_), Some(p)) = (&o.optimize, &o.use_prog) {
        writeln!(
            err,
            "{PROG}: Error: -f [{p}] not allowed when compressing with -o"
        )?;
        return Ok(1);
    }
    let mut conf = match Config::load(o.config.as_deref(), PROG) {
        Ok(c) => c,
        Err(msg) => {
            writeln!(err, "{msg}")?;
            return Ok(1);
        }
    };
    if o.verbose > 1 {
        conf.say_environment(err)?;
    }
    let v = o.verbose;
    let number = |s: String| s.trim().parse::<u64>().unwrap_or(0);
    let min_size = match o.min_size {
        Some(n) => conf
            .set("PCP_COMPRESS_MIN_FILESIZE", &n.to_string(), v, err)
            .map(|_| n)?,
        None => number(conf.get("PCP_COMPRESS_MIN_FILESIZE", Some("4096"), v, err)?),
    };
    let min_zstd = match o.min_zstd {
        Some(n) => conf
            .set("PCP_COMPRESS_ZSTD_MIN_FILESIZE", &n.to_string(), v, err)
            .map(|_| n)?,
        None => number(conf.get("PCP_COMPRESS_ZSTD_MIN_FILESIZE", Some("52428800"), v, err)?),
    };
    let list = match &o.progs {
        Some(p) => conf
            .set("PCP_COMPRESS_PROGS", p, v, err)
            .map(|_| p.clone())?,
        None => conf.get("PCP_COMPRESS_PROGS", Some("zstd:xz:bzip2:gzip"), v, err)?,
    };
    let progs: Vec<String> = list
        .split(':')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    let mut have = Vec::new();
    let use_prog = match &o.use_prog {
        Some(p) => match Prog::by_name(p) {
            Some(p) => Some(p),
            None => {
                writeln!(err, "{PROG}: cannot find a compression program ({p})")?;
                return Ok(1);
            }
        },
        None => {
            for p in &progs {
                match Prog::by_name(p) {
                    Some(p) => have.push(p),
                    None => writeln!(
                        err,
                        "{PROG}: Warning: no clue how to deal with \"compression\" program {p}"
                    )?,
                }
            }
            if have.is_empty() {
                writeln!(
                    err,
                    "{PROG}: cannot find a compression program (tried {list})"
                )?;
                return Ok(1);
            }
            None
        }
    };
    let mut r = Run {
        o,
        conf,
        min_size,
        min_zstd,
        progs,
        have,
        use_prog,
    };
    for a in &o.archives {
        if !r.archive(a, err)? {
            return Ok(1);
        }
    }
    Ok(0)
}

/// The files an argument names: the file itself, or the files whose archive
/// base name is the argument's (sorted as a glob). With `say`, the base is
/// said after that prefix (the two scripts word it differently).
pub(crate) fn files_of(
    arg: &str,
    say: Option<&str>,
    err: &mut dyn Write,
) -> io::Result<Vec<String>> {
    if Path::new(arg).is_file() {
        return Ok(vec![arg.to_string()]);
    }
    let base = archive_format::volume::base_name(arg);
    if let Some(prefix) = say {
        writeln!(err, "{prefix}archbase={base}")?;
    }
    Ok(glob_base(&base))
}

/// Removes what killed runs of either tool left beside the archive `arg`
/// names (or in `dir`), unless the run only shows what it would do.
pub(crate) fn sweep(arg: &str, dir: Option<&str>, o: &Opts) {
    if o.showme {
        return;
    }
    let base = archive_format::volume::base_name(arg);
    cli_common::cleanup::sweep(Path::new(&base), codec::TEMP_TAG);
    if let (Some(d), Some(stem)) = (dir, Path::new(&base).file_name()) {
        cli_common::cleanup::sweep(&Path::new(d).join(stem), codec::TEMP_TAG);
    }
}

/// The regular files `base*` whose archive base name is `base`, sorted.
fn glob_base(base: &str) -> Vec<String> {
    let p = Path::new(base);
    let dir = p.parent().filter(|d| !d.as_os_str().is_empty());
    let stem = p
        .file_name()
        .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
    let Ok(entries) = std::fs::read_dir(dir.unwrap_or(Path::new("."))) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&stem))
        .map(|n| match dir {
            Some(d) => d.join(n).to_string_lossy().into_owned(),
            None => n,
        })
        .filter(|f| Path::new(f).is_file() && archive_format::volume::base_name(f) == base)
        .collect();
    names.sort();
    names
}

impl Run<'_> {
    /// The script's `_compress` of one argument; false where it stops.
    fn archive(&mut self, arg: &str, err: &mut dyn Write) -> io::Result<bool> {
        let files = files_of(arg, (self.o.verbose > 0).then_some("Info: "), err)?;
        sweep(arg, None, self.o);
        if let Some(how) = &self.o.optimize {
            self.use_prog = Some(self.optimize(&files, how == "space", err)?);
        }
        if files.is_empty() {
            writeln!(err, "{PROG}: Warning: no PCP archive files match \"{arg}\"")?;
            return Ok(true);
        }
        for f in &files {
            if !self.file(f, err)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// One file: skipped, or compressed with the first program that suits it.
    fn file(&mut self, f: &str, err: &mut dyn Write) -> io::Result<bool> {
        let v = self.o.verbose;
        if archive_format::compress::strip_suffix(f).is_some() {
            if v > 0 {
                writeln!(err, "Info: {f}: skipped, already compressed")?;
            }
            return Ok(true);
        }
        if f.ends_with(".index") {
            return Ok(true);
        }
        let size = std::fs::metadata(f).map_or(0, |m| m.len());
        if size < self.min_size {
            if v > 0 {
                writeln!(
                    err,
                    "Info: {f}: skipped, size {size} < limit {}",
                    self.min_size
                )?;
            }
            return Ok(true);
        }
        let order: Vec<String> = self
            .use_prog
            .map(|p| p.name().to_string())
            .into_iter()
            .chain(self.progs.clone())
            .collect();
        for name in order {
            let Some(p) = Prog::by_name(&name) else {
                writeln!(err, "{f}: Botch: no compression recipe for {name} program")?;
                continue;
            };
            if !self.have.contains(&p) && self.use_prog != Some(p) {
                continue;
            }
            if p == Prog::Zstd && size < self.min_zstd && self.use_prog != Some(p) {
                if v > 0 {
                    writeln!(err, "Info:: {f}: size {size} too small for zstd")?;
                }
                continue;
            }
            return self.compress(f, p, err);
        }
        Ok(true)
    }

    /// The arguments a program runs with: `-A`'s, else its settings'.
    fn args(&mut self, p: Prog, err: &mut dyn Write) -> io::Result<String> {
        if let Some(a) = &self.o.args {
            return Ok(a.clone());
        }
        let var = format!("PCP_COMPRESS_{}_ARGS", p.name().to_uppercase());
        self.conf.get(&var, None, self.o.verbose, err)
    }

    /// `f` compressed with `p` (or shown, with `-N`).
    fn compress(&mut self, f: &str, p: Prog, err: &mut dyn Write) -> io::Result<bool> {
        let args = self.args(p, err)?;
        let largs = if args.is_empty() {
            String::new()
        } else {
            format!(" {args}")
        };
        if self.o.showme {
            writeln!(err, "+ {}{largs} {f}", p.name())?;
            return Ok(true);
        }
        let settings = codec::settings(p, &args);
        let dst = format!("{f}{}", p.suffix());
        if Path::new(&dst).exists() {
            return self.clash(f, &dst, p, settings.is_ok_and(|s| !s.keep), err);
        }
        let done = match settings {
            Ok(s) => codec::compress_file(Path::new(f), &s).map_err(|e| e.to_string()),
            Err(word) => Err(format!("cannot apply \"{word}\" in-process")),
        };
        match done {
            Ok(()) => {
                if self.o.verbose > 0 {
                    writeln!(err, "Info: {f}: compressed with {}", p.name())?;
                }
                Ok(true)
            }
            Err(why) => {
                writeln!(err, "{PROG}: {f}: {why}")?;
                writeln!(err, "{f}: {} failed!", p.name())?;
                Ok(false)
            }
        }
    }

    /// `f`'s compressed name `dst` is taken: where it holds `f`'s bytes and
    /// the source goes (`removes`), a killed run renamed it into place and
    /// this one removes the source; else the program's refusal (zstd's
    /// failure removes the file that was there, as PCP's script does).
    fn clash(
        &self,
        f: &str,
        dst: &str,
        p: Prog,
        removes: bool,
        err: &mut dyn Write,
    ) -> io::Result<bool> {
        if removes && codec::holds(Path::new(dst), Path::new(f)) {
            std::fs::remove_file(f)?;
            if self.o.verbose > 0 {
                writeln!(err, "Info: {f}: compressed with {}", p.name())?;
            }
            return Ok(true);
        }
        writeln!(err, "{}", p.exists_message(dst))?;
        writeln!(err, "{f}: {} failed!", p.name())?;
        if p == Prog::Zstd {
            let _ = std::fs::remove_file(dst);
        }
        Ok(false)
    }

    /// `-o`: the program that makes the largest candidate file smallest
    /// (`space`) or takes the least time, each tried in-process.
    fn optimize(&mut self, files: &[String], space: bool, err: &mut dyn Write) -> io::Result<Prog> {
        let v = self.o.verbose > 0;
        let mut pick: Option<(&String, u64)> = None;
        for f in files {
            let size = std::fs::metadata(f).map_or(0, |m| m.len());
            if archive_format::compress::strip_suffix(f).is_some() {
                if v {
                    writeln!(err, "Info: {f}: skipped, already compressed")?;
                }
                continue;
            }
            if size >= self.min_size && pick.is_none_or(|(_, best)| size > best) {
                pick = Some((f, size));
            }
        }
        let Some((file, largest)) = pick else {
            if v {
                writeln!(
                    err,
                    "Info: optimize: failed to find a candidate file, defaulting to xz"
                )?;
            }
            return Ok(Prog::Xz);
        };
        if v {
            writeln!(
                err,
                "Info: {file}: ({largest} bytes) selected as candidate for optimize measurements"
            )?;
        }
        let data = std::fs::read(file)?;
        let mut best: Option<(Prog, u128)> = None;
        for p in self.have.clone() {
            let args = if p == Prog::Xz {
                self.args(p, err)?
            } else {
                String::new()
            };
            let Ok(s) = codec::settings(p, &args) else {
                continue;
            };
            let start = std::time::Instant::now();
            let mut packed = Vec::new();
            codec::encode(&s, &mut &data[..], &mut packed)?;
            let (size, cpu) = (packed.len() as u128, start.elapsed().as_millis());
            if v {
                writeln!(err, "Info: {file}: {} size={size} cpu={cpu}", p.name())?;
            }
            let score = if space { size } else { cpu };
            if best.is_none_or(|(_, b)| score < b) {
                best = Some((p, score));
            }
        }
        let p = best.map_or(Prog::Xz, |(p, _)| p);
        if v {
            writeln!(err, "Info: optimize: pick {}", p.name())?;
        }
        Ok(p)
    }
}
