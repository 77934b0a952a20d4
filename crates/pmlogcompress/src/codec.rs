//! The compression programs pmlogcompress names, done in-process: their
//! arguments read as the programs read them (levels, `--rm`, `-k`,
//! `--block-size`, threads), the output written under a hidden temporary
//! name beside the file, given the source's permissions and time, and
//! renamed into place before the source is removed; a failure or a signal
//! leaves the source (and at most a temporary file the next run sweeps).

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// A compression program pmlogcompress knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prog {
    Zstd,
    Xz,
    Bzip2,
    Gzip,
}

impl Prog {
    pub fn by_name(name: &str) -> Option<Prog> {
        match name {
            "zstd" => Some(Prog::Zstd),
            "xz" => Some(Prog::Xz),
            "bzip2" => Some(Prog::Bzip2),
            "gzip" => Some(Prog::Gzip),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Prog::Zstd => "zstd",
            Prog::Xz => "xz",
            Prog::Bzip2 => "bzip2",
            Prog::Gzip => "gzip",
        }
    }
    /// The suffix of its files.
    pub fn suffix(self) -> &'static str {
        match self {
            Prog::Zstd => ".zst",
            Prog::Xz => ".xz",
            Prog::Bzip2 => ".bz2",
            Prog::Gzip => ".gz",
        }
    }
    /// What the program says, failing, when its output `dst` is there already.
    pub fn exists_message(self, dst: &str) -> String {
        match self {
            Prog::Zstd => format!("zstd: {dst} already exists; not overwritten  "),
            Prog::Xz => format!("xz: {dst}: File exists"),
            Prog::Bzip2 => format!("bzip2: Output file {dst} already exists."),
            Prog::Gzip => format!("gzip: {dst} already exists;\tnot overwritten"),
        }
    }
}

/// A program's settings, from its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub prog: Prog,
    pub level: u32,
    /// Whether the source is kept (zstd keeps it unless `--rm`).
    pub keep: bool,
    /// xz's `--block-size` (0: one block).
    pub block: u64,
    /// 0: every core (or `PCPRS_THREADS`).
    pub threads: u32,
}

/// A size with xz's suffixes (KiB, MiB, GiB, and their short forms).
fn size_arg(v: &str) -> Option<u64> {
    let digits = v.bytes().take_while(u8::is_ascii_digit).count();
    let n: u64 = v[..digits].parse().ok()?;
    let unit = match &v[digits..] {
        "" => 1,
        "k" | "K" | "KiB" | "kiB" | "KB" => 1 << 10,
        "M" | "MiB" | "MB" => 1 << 20,
        "G" | "GiB" | "GB" => 1 << 30,
        _ => return None,
    };
    Some(n * unit)
}

/// `prog`'s settings from `args` (its command line words), or the word it
/// cannot apply in-process.
pub fn settings(prog: Prog, args: &str) -> Result<Settings, String> {
    let mut s = Settings {
        prog,
        level: match prog {
            Prog::Zstd => 3,
            Prog::Xz => 6,
            Prog::Bzip2 => 9,
            Prog::Gzip => 6,
        },
        keep: prog == Prog::Zstd,
        block: 0,
        threads: if matches!(prog, Prog::Xz | Prog::Zstd) {
            0
        } else {
            1
        },
    };
    for w in args.split_whitespace() {
        let level = w.strip_prefix('-').and_then(|d| d.parse::<u32>().ok());
        match w {
            _ if level.is_some() => s.level = level.unwrap_or(s.level),
            "--rm" if prog == Prog::Zstd => s.keep = false,
            "-k" | "--keep" => s.keep = true,
            "-q" | "--quiet" | "-z" | "--compress" | "-f" | "--force" => {}
            _ if w.starts_with("--block-size=") && prog == Prog::Xz => {
                s.block = size_arg(&w["--block-size=".len()..]).ok_or_else(|| w.to_string())?
            }
            _ if w.starts_with("-T") || w.starts_with("--threads=") => {
                let n = w.trim_start_matches("-T").trim_start_matches("--threads=");
                s.threads = n.parse().map_err(|_| w.to_string())?;
            }
            _ => return Err(w.to_string()),
        }
    }
    Ok(s)
}

/// `src` compressed into `out` with `s`.
pub fn encode(s: &Settings, src: &mut dyn Read, out: &mut dyn Write) -> io::Result<()> {
    let threads = match s.threads {
        0 => cli_common::parallel::threads() as u32,
        n => n,
    };
    match s.prog {
        Prog::Zstd => {
            let mut e = zstd::stream::Encoder::new(out, s.level as i32)?;
            e.include_checksum(true)?;
            if threads > 1 {
                e.multithread(threads)?;
            }
            io::copy(src, &mut e)?;
            e.finish()?;
        }
        Prog::Xz => {
            let mut b = liblzma::stream::MtStreamBuilder::new();
            b.preset(s.level)
                .threads(threads)
                .check(liblzma::stream::Check::Crc64);
            if s.block > 0 {
                b.block_size(s.block);
            }
            let stream = b.encoder().map_err(io::Error::other)?;
            let mut e = liblzma::write::XzEncoder::new_stream(out, stream);
            io::copy(src, &mut e)?;
            e.finish()?;
        }
        Prog::Bzip2 => {
            let level = bzip2::Compression::new(s.level.clamp(1, 9));
            let mut e = bzip2::write::BzEncoder::new(out, level);
            io::copy(src, &mut e)?;
            e.finish()?;
        }
        Prog::Gzip => {
            let level = flate2::Compression::new(s.level.min(9));
            let mut e = flate2::write::GzEncoder::new(out, level);
            io::copy(src, &mut e)?;
            e.finish()?;
        }
    }
    Ok(())
}

/// The tag of the temporary files of both tools (each sweeps the other's).
pub const TEMP_TAG: &str = "pmlogcompress";

/// Writes what `fill` makes to `dst` by way of a hidden temporary file
/// (`.DST.pmlogcompress-PID.tmp`: a signal removes it, and what a SIGKILL left
/// the next run sweeps), with `like`'s permissions and time, renamed into place.
pub fn place(
    dst: &Path,
    like: &Path,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    use cli_common::cleanup;
    let base = cleanup::temp_base(dst, TEMP_TAG);
    let mut tmp = base.clone().into_os_string();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    cleanup::arm(&base);
    let done = (|| {
        let mut f = File::create(&tmp)?;
        cleanup::created(TEMP_TAG);
        fill(&mut f)?;
        let meta = std::fs::metadata(like)?;
        f.set_permissions(meta.permissions())?;
        // no fsync: a kill leaves the page cache whole, and like pmlogextract
        // and PCP's programs this one leaves durability to the file system
        f.set_modified(meta.modified()?)?;
        cleanup::commit(|| std::fs::rename(&tmp, dst))
    })();
    if done.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    cleanup::disarm();
    done
}

/// Compresses `file` into `file` + the program's suffix; the source removed
/// unless the settings keep it.
pub fn compress_file(file: &Path, s: &Settings) -> io::Result<()> {
    let mut dst = file.as_os_str().to_owned();
    dst.push(s.prog.suffix());
    let dst = PathBuf::from(dst);
    let mut src = io::BufReader::with_capacity(1 << 20, File::open(file)?);
    place(&dst, file, |f| {
        let mut w = io::BufWriter::with_capacity(1 << 20, f);
        encode(s, &mut src, &mut w)?;
        w.flush()
    })?;
    if !s.keep {
        std::fs::remove_file(file)?;
    }
    Ok(())
}

/// Whether the compressed `packed` holds exactly `plain`'s bytes: what a run
/// killed between renaming its output into place and removing its source
/// leaves (the next run then only removes the source).
pub fn holds(packed: &Path, plain: &Path) -> bool {
    let name = packed.to_string_lossy();
    let Some((_, c)) = archive_format::compress::strip_suffix(&name) else {
        return false;
    };
    let (Ok(p), Ok(mut plain)) = (File::open(packed), File::open(plain)) else {
        return false;
    };
    let Ok(mut dec) = archive_format::compress::decoder(c, p) else {
        return false;
    };
    let (mut a, mut b) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let n = match read_full(&mut dec, &mut a) {
            Ok(n) => n,
            Err(_) => return false,
        };
        match read_full(&mut plain, &mut b[..n.max(1)]) {
            Ok(m) if m == n && a[..n] == b[..n] => {}
            _ => return false,
        }
        if n == 0 {
            return true;
        }
    }
}

/// Reads until `buf` is full or the input ends; how much was read.
fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// Decompresses `file` (its suffix names the scheme) into `dst`; the source
/// removed unless `keep`.
pub fn decompress_file(file: &Path, dst: &Path, keep: bool) -> io::Result<()> {
    let name = file.to_string_lossy();
    let (_, c) = archive_format::compress::strip_suffix(&name)
        .ok_or_else(|| io::Error::other("not a compressed file"))?;
    let src = io::BufReader::with_capacity(1 << 20, File::open(file)?);
    let mut dec = archive_format::compress::buffered_decoder(c, src)?;
    place(dst, file, |f| {
        let mut w = io::BufWriter::with_capacity(1 << 20, f);
        io::copy(&mut dec, &mut w)?;
        w.flush()
    })?;
    if !keep {
        std::fs::remove_file(file)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_read_as_the_programs_read_them() {
        let s = settings(Prog::Xz, "-2 --block-size=10MiB").expect("xz's defaults");
        assert_eq!((s.level, s.block, s.keep), (2, 10 << 20, false));
        let s = settings(Prog::Zstd, "--rm --quiet").expect("zstd's defaults");
        assert_eq!((s.level, s.keep), (3, false));
        assert!(
            settings(Prog::Zstd, "").expect("none").keep,
            "zstd keeps without --rm"
        );
        assert_eq!(settings(Prog::Gzip, "--best"), Err("--best".into()));
    }

    #[test]
    fn holds_is_true_only_for_the_same_bytes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let plain = dir.path().join("a.0");
        let packed = dir.path().join("a.0.xz");
        let data: Vec<u8> = (0..300_000u32).map(|i| (i % 13) as u8).collect();
        std::fs::write(&plain, &data).unwrap();
        let s = settings(Prog::Xz, "-2 -k").unwrap();
        compress_file(&plain, &s).expect("compresses");
        assert!(holds(&packed, &plain));
        std::fs::write(&plain, &data[..data.len() - 1]).unwrap();
        assert!(!holds(&packed, &plain), "one byte short");
        let mut more = data.clone();
        more.push(0);
        std::fs::write(&plain, &more).unwrap();
        assert!(!holds(&packed, &plain), "one byte more");
        std::fs::write(&packed, b"not xz").unwrap();
        std::fs::write(&plain, &data).unwrap();
        assert!(!holds(&packed, &plain), "not a compressed file");
    }

    proptest::proptest! {
        #[test]
        fn encoded_bytes_decode_to_themselves(
            data in proptest::collection::vec(proptest::num::u8::ANY, 0..20_000),
            which in 0usize..4,
            level in 1u32..4,
        ) {
            let prog = [Prog::Zstd, Prog::Xz, Prog::Bzip2, Prog::Gzip][which];
            let s = settings(prog, &format!("-{level} -T1")).unwrap();
            let mut packed = Vec::new();
            encode(&s, &mut &data[..], &mut packed).unwrap();
            let name = format!("a.0{}", prog.suffix());
            let (_, c) = archive_format::compress::strip_suffix(&name).unwrap();
            let mut dec = archive_format::compress::buffered_decoder(c, &packed[..]).unwrap();
            let mut back = Vec::new();
            dec.read_to_end(&mut back).unwrap();
            proptest::prop_assert_eq!(back, data);
        }
    }

    #[test]
    fn every_program_round_trips_and_removes_the_source() {
        let dir = tempfile::tempdir().expect("tempdir");
        let data: Vec<u8> = (0..200_000u32)
            .flat_map(|i| (i % 251).to_be_bytes())
            .collect();
        for (prog, args) in [
            (Prog::Zstd, "--rm"),
            (Prog::Xz, "-2 --block-size=64KiB"),
            (Prog::Bzip2, ""),
            (Prog::Gzip, ""),
        ] {
            let file = dir.path().join("a.0");
            std::fs::write(&file, &data).unwrap();
            let s = settings(prog, args).unwrap();
            compress_file(&file, &s).expect("compresses");
            assert!(!file.exists(), "{prog:?}");
            let packed = dir.path().join(format!("a.0{}", prog.suffix()));
            decompress_file(&packed, &file, false).expect("decompresses");
            assert_eq!(std::fs::read(&file).unwrap(), data, "{prog:?}");
            assert!(!packed.exists());
        }
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(left.len(), 1, "no temporary file stays");
    }
}
