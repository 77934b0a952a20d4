//! The change as one step: before the first label is written, every file's new
//! label goes into a journal beside the archive (`.NAME.pmloglabel-PID.journal`,
//! written under a temporary name and renamed, so it is whole or absent), and
//! it is removed once every label is written. A run killed in between leaves
//! the journal; the next pmloglabel on the archive writes what it holds (its
//! process being gone) before anything else, so the archive ends with every
//! file's old label or every file's new one.
//!
//! The format: `PMLOGLABEL-JOURNAL 1\n`, then per file its name's length (u32,
//! big-endian), its name (in the archive's directory), the label's length and
//! the label record.

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

const MAGIC: &[u8] = b"PMLOGLABEL-JOURNAL 1\n";
const TOOL: &str = "pmloglabel";

/// The directory of `base` ("." for a bare name).
fn dir_of(base: &Path) -> &Path {
    base.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// The journal's bytes for `labels` (each file's path and new label).
fn encode(labels: &[(PathBuf, Vec<u8>)]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    for (path, label) in labels {
        let name = path
            .file_name()
            .map_or_else(Vec::new, |n| n.as_encoded_bytes().to_vec());
        out.extend_from_slice(&(name.len() as u32).to_be_bytes());
        out.extend_from_slice(&name);
        out.extend_from_slice(&(label.len() as u32).to_be_bytes());
        out.extend_from_slice(label);
    }
    out
}

/// The entries of a journal (file names and labels); `None` where it is not
/// one whole journal.
fn decode(bytes: &[u8]) -> Option<Vec<(String, Vec<u8>)>> {
    let mut rest = bytes.strip_prefix(MAGIC)?;
    let mut out = Vec::new();
    let take = |rest: &mut &[u8]| -> Option<Vec<u8>> {
        let n = u32::from_be_bytes(rest.get(..4)?.try_into().ok()?) as usize;
        let v = rest.get(4..4 + n)?.to_vec();
        *rest = &rest[4 + n..];
        Some(v)
    };
    while !rest.is_empty() {
        let name = String::from_utf8(take(&mut rest)?).ok()?;
        if name.contains('/') || name.is_empty() {
            return None;
        }
        out.push((name, take(&mut rest)?));
    }
    Some(out)
}

/// A journal in place for this run.
pub(crate) struct Journal(PathBuf);

impl Journal {
    /// Writes the journal of `labels` for the archive `base`.
    pub fn begin(base: &Path, labels: &[(PathBuf, Vec<u8>)]) -> io::Result<Journal> {
        let path = cli_common::cleanup::temp_base(base, TOOL).with_extension_suffix(".journal");
        let tmp = path.with_extension_suffix(".tmp");
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&encode(labels))?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)?;
        Ok(Journal(path))
    }

    /// Every label written: the journal goes.
    pub fn end(self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// `with_extension_suffix`: a path with `suffix` added to its file name.
trait Suffix {
    fn with_extension_suffix(&self, suffix: &str) -> PathBuf;
}

impl Suffix for Path {
    fn with_extension_suffix(&self, suffix: &str) -> PathBuf {
        let mut s = self.as_os_str().to_owned();
        s.push(suffix);
        PathBuf::from(s)
    }
}

/// Completes what killed runs on the archive `base` left: each whole journal
/// of a process that is gone written out, then their files removed. Says what
/// it completed on `err`.
pub(crate) fn recover(base: &Path, err: &mut dyn Write) -> io::Result<()> {
    let name = base
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let prefix = format!(".{name}.{TOOL}-");
    let dir = dir_of(base);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for e in entries.flatten() {
        let file = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = file
            .strip_prefix(&prefix)
            .and_then(|r| r.strip_suffix(".journal"))
        else {
            continue;
        };
        if Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        let Some(entries) = std::fs::read(e.path()).ok().and_then(|b| decode(&b)) else {
            continue;
        };
        for (file, label) in entries {
            let f = OpenOptions::new().write(true).open(dir.join(&file))?;
            f.write_all_at(&label, 0)?;
        }
        writeln!(
            err,
            "{TOOL}: completed the label changes of a run that was killed (process {pid})"
        )?;
    }
    cli_common::cleanup::sweep(base, TOOL);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_decodes_to_what_was_encoded() {
        let labels = vec![
            (PathBuf::from("/d/a.0"), vec![1, 2, 3]),
            (PathBuf::from("a.meta"), vec![]),
        ];
        let back = decode(&encode(&labels)).expect("decodes");
        assert_eq!(
            back,
            vec![
                ("a.0".to_string(), vec![1, 2, 3]),
                ("a.meta".into(), vec![])
            ]
        );
        let whole = encode(&labels);
        assert_eq!(decode(&whole[..whole.len() - 1]), None, "a cut journal");
        assert_eq!(decode(b"other"), None);
    }

    #[test]
    fn a_dead_runs_journal_is_completed_and_removed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().join("arch");
        let vol = dir.path().join("arch.0");
        std::fs::write(&vol, b"old label, then records").expect("writes");
        let journal = dir.path().join(".arch.pmloglabel-999999999.journal");
        std::fs::write(&journal, encode(&[(vol.clone(), b"NEW".to_vec())])).expect("writes");
        let mut err = Vec::new();
        recover(&base, &mut err).expect("recovers");
        assert_eq!(std::fs::read(&vol).unwrap(), b"NEW label, then records");
        assert!(!journal.exists());
        assert!(String::from_utf8(err)
            .unwrap()
            .contains("process 999999999"));
    }
}
