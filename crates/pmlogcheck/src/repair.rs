//! `--repair` (ours; PCP 7.1 has `-R`): cuts each data volume and the metadata
//! file that pass 0 found damaged back to the end of its last whole record, cuts a
//! torn index back to its last whole entry, and drops the index entries that point
//! past the new ends. Compressed files are decompressed, cut and compressed again
//! in the same scheme (or, for the schemes we only read, written uncompressed in
//! place of the compressed file). Each change is reported with what it dropped;
//! `--dry-run` reports and changes nothing. Every file is replaced by renaming a
//! complete new copy over it, so an interrupted repair leaves the old file.

use crate::opts::Opts;
use crate::pass0::Kind;
use crate::Report;
use archive_format::codec::index::{decode_index, encode_index_entry, entry_size};
use archive_format::compress::{self, Compression};
use archive_format::volume::FileRef;
use std::collections::HashMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// What the repair decides for one file, before anything is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    /// Bytes kept (of the decompressed file).
    pub keep: u64,
    /// Bytes the file had.
    pub had: u64,
}

/// The whole index entries of an index file's bytes: (label length, version).
fn index_layout(bytes: &[u8]) -> Option<(usize, u32)> {
    let len = u32::from_be_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    let magic = u32::from_be_bytes(bytes.get(4..8)?.try_into().ok()?);
    let version = magic & 0xff;
    (bytes.len() >= len && len >= 8).then_some((len, version))
}

/// Where a damaged file is cut: data and metadata after their last whole record
/// (`last_good` from pass 0), an index after its last whole entry. `None` when the
/// label itself is not whole (nothing can be kept).
pub fn cut_point(kind: Kind, bytes: &[u8], last_good: u64) -> Option<Cut> {
    let had = bytes.len() as u64;
    let keep = match kind {
        Kind::Index => {
            let (lab, version) = index_layout(bytes)?;
            let size = entry_size(if version >= 3 { 3 } else { 2 });
            (lab + (bytes.len() - lab) / size * size) as u64
        }
        _ if last_good == 0 => return None,
        _ => last_good,
    };
    Some(Cut { keep, had })
}

fn plain_name(path: &Path) -> (PathBuf, Option<Compression>) {
    let s = path.to_string_lossy();
    match compress::strip_suffix(&s) {
        Some((p, c)) => (PathBuf::from(p), Some(c)),
        None => (path.to_path_buf(), None),
    }
}

/// Replaces `path` (compressed as `comp`) by `data`, through a temporary file and
/// a rename; returns the name the data now has.
fn replace(path: &Path, comp: Option<Compression>, data: &[u8]) -> io::Result<PathBuf> {
    let (plain, _) = plain_name(path);
    let (target, bytes) = match comp {
        None => (path.to_path_buf(), data.to_vec()),
        Some(c) => match compress::compress(c, data) {
            Ok(z) => (path.to_path_buf(), z),
            // a scheme we only read: the repaired file goes uncompressed
            Err(e) if e.kind() == io::ErrorKind::Unsupported => (plain.clone(), data.to_vec()),
            Err(e) => return Err(e),
        },
    };
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(&bytes)?;
    // the repaired file keeps the permissions the damaged one had (a temporary
    // file is made readable by its owner alone)
    if let Ok(m) = std::fs::metadata(path) {
        tmp.as_file().set_permissions(m.permissions())?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(&target).map_err(|e| e.error)?;
    if target != path {
        std::fs::remove_file(path)?;
    }
    Ok(target)
}

fn load(path: &Path) -> io::Result<Vec<u8>> {
    let (_, comp) = plain_name(path);
    let fr = FileRef {
        path: path.to_path_buf(),
        compression: comp,
    };
    archive_format::volume::load(&fr)
        .map(|b| b.to_vec())
        .map_err(|e| io::Error::other(e.to_string()))
}

/// Runs the repair of the files pass 0 found damaged; returns the exit status.
pub fn repair(
    o: &Opts,
    archname: &str,
    damaged: &[(PathBuf, Kind, u64)],
    out: &mut dyn Write,
    err: &mut dyn Write,
    rep: &mut Report,
) -> io::Result<i32> {
    let verb = if o.dry_run { "would cut" } else { "cut" };
    let mut status = 0;
    // new sizes of the files cut, by name without compression suffix
    let mut sizes: HashMap<PathBuf, u64> = HashMap::new();
    for (path, kind, last_good) in damaged {
        let bytes = load(path)?;
        let Some(cut) = cut_point(*kind, &bytes, *last_good) else {
            rep.line(
                err,
                "repair",
                &format!(
                    "{}: the label record is damaged: nothing can be kept, not repaired",
                    path.display()
                ),
            )?;
            status = 1;
            continue;
        };
        let (plain, comp) = plain_name(path);
        sizes.insert(plain, cut.keep);
        let msg = format!(
            "{}: {verb} at offset {}, dropping {} bytes (a record cut short)",
            path.display(),
            cut.keep,
            cut.had - cut.keep
        );
        report(out, rep, o.json, &msg)?;
        if !o.dry_run {
            let now = replace(path, comp, &bytes[..cut.keep as usize])?;
            if &now != path {
                report(
                    out,
                    rep,
                    o.json,
                    &format!(
                        "{}: written uncompressed as {}",
                        path.display(),
                        now.display()
                    ),
                )?;
            }
        }
    }
    // index entries that now point past the end of their files
    if !sizes.is_empty() {
        if let Some(ip) = find(archname, "index") {
            repair_index(o, archname, &ip, &sizes, out, rep)?;
        }
    }
    Ok(status)
}

/// Drops the entries of the index `ip` that point past the end of their files,
/// whose new sizes are in `sizes` (by name without compression suffix) when they
/// were cut.
fn repair_index(
    o: &Opts,
    archname: &str,
    ip: &Path,
    sizes: &HashMap<PathBuf, u64>,
    out: &mut dyn Write,
    rep: &mut Report,
) -> io::Result<()> {
    let bytes = match sizes.get(&plain_name(ip).0) {
        Some(&k) => load(ip)?[..k as usize].to_vec(),
        None => load(ip)?,
    };
    let Some((lab, version)) = index_layout(&bytes) else {
        return Ok(());
    };
    let v = if version >= 3 { 3 } else { 2 };
    let entries = decode_index(&bytes[lab..], lab as u64, v).unwrap_or_default();
    let size_of = |suffix: &str| -> Option<u64> {
        let p = PathBuf::from(format!("{archname}.{suffix}"));
        sizes.get(&p).copied().or_else(|| {
            find(archname, suffix)
                .and_then(|f| load(&f).ok())
                .map(|b| b.len() as u64)
        })
    };
    let meta = size_of("meta");
    let mut vols: HashMap<i32, Option<u64>> = HashMap::new();
    let mut kept = bytes[..lab].to_vec();
    let mut dropped = 0usize;
    for e in &entries {
        let vs = *vols
            .entry(e.vol)
            .or_insert_with(|| size_of(&e.vol.to_string()));
        let ok = meta.is_some_and(|m| e.off_meta >= 0 && e.off_meta as u64 <= m)
            && vs.is_some_and(|d| e.off_data >= 0 && e.off_data as u64 <= d);
        if ok {
            kept.extend(encode_index_entry(e, v));
        } else {
            dropped += 1;
        }
    }
    if dropped > 0 || kept.len() != bytes.len() {
        let msg = format!(
            "{}: {} {dropped} of {} entries that point past the end of their files",
            ip.display(),
            if o.dry_run { "would drop" } else { "dropped" },
            entries.len()
        );
        report(out, rep, o.json, &msg)?;
        if !o.dry_run {
            let (_, comp) = plain_name(ip);
            replace(ip, comp, &kept)?;
        }
    }
    Ok(())
}

/// The file `archname.suffix`, plain or compressed, if there is one.
fn find(archname: &str, suffix: &str) -> Option<PathBuf> {
    let plain = PathBuf::from(format!("{archname}.{suffix}"));
    if plain.is_file() {
        return Some(plain);
    }
    compress::SUFFIXES
        .iter()
        .map(|(s, _)| PathBuf::from(format!("{archname}.{suffix}{s}")))
        .find(|p| p.is_file())
}

fn report(out: &mut dyn Write, rep: &mut Report, json: bool, msg: &str) -> io::Result<()> {
    if json {
        rep.line(&mut io::sink(), "repair", msg)
    } else {
        writeln!(out, "pmlogcheck: {msg}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_is_cut_after_its_last_whole_entry() {
        let mut f = vec![0u8; 132];
        f[..4].copy_from_slice(&132u32.to_be_bytes());
        f[4..8].copy_from_slice(&0x5005_2602u32.to_be_bytes());
        f.extend([0u8; 50]);
        assert_eq!(
            cut_point(Kind::Index, &f, 0),
            Some(Cut {
                keep: 172,
                had: 182
            })
        );
        assert_eq!(cut_point(Kind::Data, &f, 0), None);
        assert_eq!(
            cut_point(Kind::Meta, &f, 132),
            Some(Cut {
                keep: 132,
                had: 182
            })
        );
    }
}
