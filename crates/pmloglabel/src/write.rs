//! The labels written: the golden label, changed as the options ask, stamped
//! with each file's volume number and written over the label at the start of
//! every data volume, the index and the metadata, with pmloglabel's messages.
//!
//! Unlike PCP's, nothing is written unless every file can be: each is opened
//! and its new label made before the first byte goes out, and a label whose
//! length differs from the one on disk (a version change) is refused rather
//! than written over the records that follow it. Each label is then one write
//! of its record at offset 0, so a file holds either its old label or its new
//! one, and the journal ([`crate::journal`]) makes the files' labels change
//! together.

use crate::journal::Journal;
use archive_format::codec::label::{LABEL_V2_LEN, LABEL_V3_LEN, VOL_INDEX, VOL_META};
use archive_format::codec::rawlabel::{self, RawLabel};
use archive_format::error::{pm_err_str, PM_ERR_LABEL};
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

const PROG: &str = crate::PROG;

/// One file to write: where, which volume, and its names in messages.
pub(crate) struct Target {
    pub path: PathBuf,
    pub vol: i32,
    /// "data volume 0", "temporal index", "metadata volume".
    pub what: String,
}

impl Target {
    pub fn volume(base: &str, vol: u32) -> Target {
        Target {
            path: format!("{base}.{vol}").into(),
            vol: vol as i32,
            what: format!("data volume {vol}"),
        }
    }
    pub fn index(base: &str) -> Target {
        Target {
            path: format!("{base}.index").into(),
            vol: VOL_INDEX,
            what: "temporal index".into(),
        }
    }
    pub fn meta(base: &str) -> Target {
        Target {
            path: format!("{base}.meta").into(),
            vol: VOL_META,
            what: "metadata volume".into(),
        }
    }
}

/// The length of the label on disk at the start of `f`, where its header or
/// trailer word says it is one of the two versions' lengths.
fn on_disk_len(f: &File) -> Option<usize> {
    let mut head = [0u8; LABEL_V3_LEN];
    let n = f.read_at(&mut head, 0).ok()?;
    let word = |at: usize| {
        (at + 4 <= n)
            .then(|| u32::from_be_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]))
    };
    [LABEL_V2_LEN, LABEL_V3_LEN]
        .into_iter()
        .find(|&len| word(0) == Some(len as u32) || word(len - 4) == Some(len as u32))
}

/// Whether `f` starts with `bytes` already.
fn holds(f: &File, bytes: &[u8]) -> bool {
    let mut now = vec![0u8; bytes.len()];
    f.read_exact_at(&mut now, 0).is_ok() && now == bytes
}

/// Writes `golden` to every target; returns 0 or 3 (a file that could not be
/// opened or written, said as pmloglabel says it).
pub(crate) fn write_all(
    base: &Path,
    golden: &RawLabel,
    targets: &[Target],
    verbose: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    let mut status = 0;
    let mut ready: Vec<(File, Vec<u8>)> = Vec::new();
    for t in targets {
        if verbose {
            writeln!(out, "Writing label on {}", t.what)?;
        }
        let f = match OpenOptions::new().read(true).write(true).open(&t.path) {
            Ok(f) => f,
            Err(e) => {
                let msg = pm_err_str(-e.raw_os_error().unwrap_or(libc_eio()));
                writeln!(err, "Failed {} open: {msg}", t.what)?;
                status = 3;
                continue;
            }
        };
        let mut label = golden.clone();
        label.vol = t.vol;
        let Some(bytes) = rawlabel::encode(&label) else {
            writeln!(
                err,
                "Failed {} label write: {}",
                t.what,
                pm_err_str(PM_ERR_LABEL)
            )?;
            status = 3;
            continue;
        };
        if let Some(len) = on_disk_len(&f).filter(|&len| len != bytes.len()) {
            let how = if label.version() == 3 {
                "pmlogrewrite -V 3 makes a version 3 copy"
            } else {
                "a version 3 archive cannot be made version 2"
            };
            writeln!(
                err,
                "{PROG}: {}: a version {} label would overwrite the records after the {len}-byte label there; {how}",
                t.path.display(),
                label.version(),
            )?;
            status = 3;
            continue;
        }
        ready.push((f, bytes));
    }
    if status != 0 {
        if ready.iter().any(|(f, bytes)| !holds(f, bytes)) {
            // where PCP would have changed these, ours writes none
            writeln!(err, "{PROG}: no label written (every file's or none)")?;
        }
        return Ok(status);
    }
    // where no journal can be written beside the archive, each file's label
    // is still one write
    let labels: Vec<(PathBuf, Vec<u8>)> = targets
        .iter()
        .zip(&ready)
        .map(|(t, (_, b))| (t.path.clone(), b.clone()))
        .collect();
    let journal = Journal::begin(base, &labels).ok();
    for ((f, bytes), t) in ready.iter().zip(targets) {
        if let Err(e) = f.write_all_at(bytes, 0) {
            let msg = pm_err_str(-e.raw_os_error().unwrap_or(libc_eio()));
            writeln!(err, "Failed {} label write: {msg}", t.what)?;
            status = 3;
        }
    }
    if let Some(j) = journal {
        j.end();
    }
    Ok(status)
}

/// EIO, for an error without an OS code.
fn libc_eio() -> i32 {
    5
}
