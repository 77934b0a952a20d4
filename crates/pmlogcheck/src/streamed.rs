//! The check of an archive whose data volumes are all compressed, each volume
//! decoded once: pass 3 reads the records as the volume decodes, its bytes
//! passing through memory, while pass 0 follows the same bytes' framing
//! ([`crate::framer`]). What the passes print is held back until the end and
//! let out only when the archive proves sound as the full passes would find it:
//! every file framed whole, no finding of pass 0, the window and the dating of
//! times pass 3 was read with the ones the archive's end gives, and every volume
//! read in order. Otherwise nothing is printed and the caller runs the passes one
//! after the other, as PCP does.

use std::collections::HashMap;
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::{Arc, Mutex};

use archive_format::compress::{self, Compression};
use archive_format::volume::{Decompressed, FileRef, Observe, Observer};
use archive_format::{Archive, OpenOptions, Timestamp};
use cli_common::clock;

use crate::framer::Framer;
use crate::pass0::{Kind, Status};
use crate::{opts, Carry, Names, Pass0, Report, Stamps, State};

type Files = [(String, Kind, Option<Compression>)];

/// A data volume: where it is, its decoded size, and its framing so far.
struct Vol {
    fname: String,
    fr: FileRef,
    size: u64,
    framer: Arc<Mutex<Framer>>,
}

/// Checks the archive so when it applies and the archive is sound, printing what
/// the passes print; its exit status, or `None` for the caller to check it.
pub(crate) fn check(
    o: &opts::Opts,
    names: &Names,
    files: &Files,
    carry: &mut Carry,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<Option<i32>> {
    if !applies(o) {
        return Ok(None);
    }
    let Some(vols) = volumes(names, files) else {
        return Ok(None);
    };
    let (mut held_out, mut held_err) = (Vec::new(), Vec::new());
    let mut rep = Report::new(false);
    let got = attempt(
        o,
        names,
        files,
        &vols,
        &mut held_out,
        &mut held_err,
        &mut rep,
    )?;
    let Some((status, dated)) = got else {
        return Ok(None);
    };
    carry.states = [State::Ok; 3];
    carry.dated = dated;
    out.write_all(&held_out)?;
    err.write_all(&held_err)?;
    Ok(Some(status))
}

/// PCP 6.0.3's check of one archive with no option that changes what is read
/// or printed along the way.
fn applies(o: &opts::Opts) -> bool {
    !o.pcp7()
        && !o.repair
        && o.truncate.is_none()
        && o.verbose == 0
        && !o.json
        && !o.label
        && !o.metadata_only
        && o.namespace.is_none()
        && !o.clock.windowed()
        && archive_format::cores::threads() > 1
}

/// The data volumes, when every one is compressed and declares its decoded size.
fn volumes(names: &Names, files: &Files) -> Option<Vec<Vol>> {
    let mut vols = Vec::new();
    for (name, _, comp) in files.iter().filter(|f| f.1 == Kind::Data) {
        let c = (*comp)?;
        let fr = FileRef {
            path: Path::new(&names.dir).join(name),
            compression: Some(c),
        };
        let file = std::fs::File::open(&fr.path).ok()?;
        let size = compress::sized::declared_size(c, &file)?;
        vols.push(Vol {
            fname: names.shown(name),
            fr,
            size,
            framer: Arc::default(),
        });
    }
    (!vols.is_empty()).then_some(vols)
}

/// The passes, printing into `out` and `err`: the exit status and whether times
/// were dated, or `None` where the archive is not found sound.
fn attempt(
    o: &opts::Opts,
    names: &Names,
    files: &Files,
    vols: &[Vol],
    out: &mut dyn Write,
    err: &mut dyn Write,
    rep: &mut Report,
) -> io::Result<Option<(i32, bool)>> {
    let cache = Decompressed::new();
    let Some(p0) = pass0_side(names, files, vols, &cache, err, rep)? else {
        return Ok(None);
    };
    let opts = OpenOptions {
        decompressed: Some(cache.clone()),
        streamed: Some(observe(vols)),
        ..OpenOptions::default()
    };
    let Ok(a) = Archive::open_with(&names.arg, opts) else {
        return Ok(None);
    };
    let got = passes(o, names, &a, (&p0, &cache), out, err, rep)?;
    // every volume decoded whole, read in order, and framed as pass 0 wants
    let sound = a.finish_streams()
        && vols.iter().all(|v| {
            let f = v.framer.lock().unwrap_or_else(|e| e.into_inner());
            f.report(&v.fname, v.size).is_some()
        });
    Ok(got.filter(|_| sound))
}

/// Pass 0 of the files that are not data volumes (each whole), and of the data
/// volumes' labels: what pass 0 leaves, when it finds nothing.
fn pass0_side(
    names: &Names,
    files: &Files,
    vols: &[Vol],
    cache: &Decompressed,
    err: &mut dyn Write,
    rep: &mut Report,
) -> io::Result<Option<Pass0>> {
    let mut p0 = Pass0::new([State::Missing, State::Missing, State::Ok]);
    let mut vols = vols.iter();
    for (name, kind, comp) in files {
        let fname = names.shown(name);
        let label = if *kind == Kind::Data {
            let Some(v) = vols.next() else {
                return Ok(None);
            };
            let plain = compress::strip_suffix(name).map_or(name.as_str(), |(p, _)| p);
            p0.sizes.insert(plain.to_string(), v.size as i64);
            head_label(&fname, &v.fr)
        } else {
            let fr = FileRef {
                path: Path::new(&names.dir).join(name),
                compression: *comp,
            };
            let r = crate::scan_file(&fname, name, &fr, *kind, cache, &mut p0.sizes, err, rep)?;
            if !r.lines.is_empty() || r.status != Status::Ok || r.framing != Status::Ok {
                return Ok(None);
            }
            p0.note(*kind, true);
            r.label
        };
        let Some((_, start)) = label else {
            return Ok(None);
        };
        p0.golden_start = Some(start);
    }
    Ok((p0.meta == State::Ok).then_some(p0))
}

/// A compressed data volume's label, from its first bytes (when it loads).
fn head_label(fname: &str, fr: &FileRef) -> Option<(u32, Timestamp)> {
    use std::io::Read;
    let file = std::fs::File::open(&fr.path).ok()?;
    let mut head = Vec::new();
    compress::decoder(fr.compression?, file)
        .ok()?
        .take(1024)
        .read_to_end(&mut head)
        .ok()?;
    let mut f = Framer::default();
    f.feed(&head);
    f.label(fname)
}

/// Feeds each data volume's framer as the archive decodes it (by the file's
/// identity, however the archive names it).
fn observe(vols: &[Vol]) -> Observe {
    let id = |p: &Path| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    let by_id: HashMap<_, _> = vols
        .iter()
        .filter_map(|v| Some((id(&v.fr.path)?, v.framer.clone())))
        .collect();
    Observe(Arc::new(move |fr: &FileRef| -> Observer {
        match id(&fr.path).and_then(|k| by_id.get(&k)) {
            Some(f) => {
                let f = f.clone();
                Box::new(move |b| f.lock().unwrap_or_else(|e| e.into_inner()).feed(b))
            }
            None => Box::new(|_| {}),
        }
    }))
}

/// Passes 1 to 3 (see `check_archive`), pass 3 read to the end of the archive
/// before its end is known: the status and whether times were dated, or `None`
/// when the window or dating the end gives is not the one read with.
fn passes(
    o: &opts::Opts,
    names: &Names,
    a: &Archive,
    (p0, cache): (&Pass0, &Decompressed),
    out: &mut dyn Write,
    err: &mut dyn Write,
    rep: &mut Report,
) -> io::Result<Option<(i32, bool)>> {
    let label = a.label().clone();
    let (tz, note) = o.clock.zone_for(&label);
    if let Some(n) = note {
        write!(out, "{n}")?;
    }
    let wstart = label.start;
    // (the last index entry's time, for the end's)
    let dated = a
        .index()
        .last()
        .is_some_and(|e| crate::long_window(wstart, e.stamp));
    let stamps = Stamps {
        tz: tz.clone(),
        dated,
    };
    let nsec = |t: Timestamp| stamps.fmt_nsec(t);
    let index_bad = crate::pass1_and_2(o, names, a, (p0, cache), &nsec, out, err, rep)?;
    let mut cur = crate::pass3_cursor(a, index_bad || p0.index == State::Bad, wstart);
    let mut latest = None;
    let window = (wstart, Timestamp::new(i64::MAX, 0));
    let status = crate::pass3_records(
        o,
        names,
        a,
        (&mut cur, window, &mut latest),
        &stamps,
        err,
        rep,
    )?;
    let bounds = clock::bounds(&label, a.end_time().ok());
    let Ok((ws, we)) = o.clock.window(bounds, &tz) else {
        return Ok(None);
    };
    let same = ws == wstart && crate::long_window(ws, we) == dated && latest <= Some(we);
    Ok(same.then_some((status, dated)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{components, Carry};

    /// The one-pass check of `base` as it finds it: its status, or `None` where
    /// it leaves the archive to the passes one by one.
    fn streamed(base: &str) -> Option<i32> {
        let o = opts::Opts {
            archive: Some(base.to_string()),
            ..opts::Opts::default()
        };
        let names = Names::of(base);
        let files = components(Path::new(&names.dir), &names.base, false).expect("files");
        let mut carry = Carry {
            states: [State::Missing; 3],
            dated: false,
        };
        let (mut out, mut err) = (Vec::new(), Vec::new());
        check(&o, &names, &files, &mut carry, &mut out, &mut err).expect("check")
    }

    /// test-support's wide archive with its data volume compressed, after
    /// `damage` has had its bytes.
    fn xz_archive(dir: &Path, damage: impl Fn(&mut Vec<u8>)) -> String {
        let base = test_support::wide_archive(dir, 300);
        let plain = format!("{base}.0");
        let mut bytes = std::fs::read(&plain).expect("volume");
        damage(&mut bytes);
        let z = compress::compress(Compression::Xz, &bytes).expect("xz");
        std::fs::write(format!("{plain}.xz"), z).expect("write");
        std::fs::remove_file(plain).expect("remove");
        base
    }

    #[test]
    fn a_sound_compressed_archive_is_checked_in_one_pass_a_damaged_one_is_not() {
        if archive_format::cores::threads() < 2 {
            return test_support::skip("one core: the one-pass check needs two");
        }
        let dir = tempfile::tempdir().expect("tempdir");
        for d in ["s", "c"] {
            std::fs::create_dir(dir.path().join(d)).expect("mkdir");
        }
        let sound = xz_archive(&dir.path().join("s"), |_| {});
        assert_eq!(streamed(&sound), Some(0));
        let cut = xz_archive(&dir.path().join("c"), |b| b.truncate(b.len() - 3));
        assert_eq!(streamed(&cut), None);
    }
}
