//! What earlier runs exported, kept in `OUTDIR/.pcp2parquet.json`: per archive,
//! its files' sizes when last read, where to go on from, and the Parquet files
//! written for it. A rerun skips unchanged archives and exports only the records
//! after that point of grown ones, so no row is written twice.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

pub const FILE: &str = ".pcp2parquet.json";

/// Where an archive's export goes on from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resume {
    /// Raw values: the record at this byte offset of this volume (by its number).
    Raw { volume: u32, offset: u64 },
    /// Interpolated values: the next sample's time (nanoseconds since the epoch).
    Interp { next_ns: i64 },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchiveState {
    pub host: String,
    /// The label's start (seconds, nanoseconds): another archive under the same
    /// name is exported afresh.
    pub start: (i64, u32),
    /// The archive's files and their sizes when last read.
    pub files: BTreeMap<String, u64>,
    pub resume: Option<Resume>,
    /// The Parquet files written for this archive, relative to OUTDIR.
    pub outputs: Vec<String>,
    /// Rows written so far (values, events).
    pub rows: (u64, u64),
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// The options that shape the rows (window, metrics, interval): a rerun with
    /// other ones would mix two exports in one dataset.
    pub options: String,
    /// By the archive's absolute base name.
    pub archives: BTreeMap<String, ArchiveState>,
}

impl State {
    pub fn load(outdir: &Path) -> io::Result<Option<State>> {
        let p = outdir.join(FILE);
        match std::fs::read(&p) {
            Ok(b) => serde_json::from_slice(&b).map(Some).map_err(|e| {
                io::Error::new(io::ErrorKind::InvalidData, format!("{}: {e}", p.display()))
            }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Writes the state whole under a temporary name, then renames it into place.
    pub fn save(&self, outdir: &Path) -> io::Result<()> {
        let tmp: PathBuf = outdir.join(format!("{FILE}.tmp"));
        let json = serde_json::to_vec_pretty(self).map_err(io::Error::other)?;
        std::fs::write(&tmp, json)?;
        std::fs::rename(&tmp, outdir.join(FILE))
    }
}

/// The sizes of an archive's files (`base.*`), by name.
pub fn file_sizes(base: &Path) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    let (Some(dir), Some(name)) = (base.parent(), base.file_name()) else {
        return m;
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if crate::discover::base_of(&n).is_some_and(|b| b == name) {
                // through a symbolic link: the size of the file it names
                if let Ok(md) = std::fs::metadata(e.path()) {
                    m.insert(n, md.len());
                }
            }
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_its_file() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(State::load(d.path()).unwrap(), None);
        let mut s = State {
            options: "raw".into(),
            ..State::default()
        };
        s.archives.insert(
            "/a/b".into(),
            ArchiveState {
                host: "h".into(),
                start: (1, 2),
                files: [("b.0".to_string(), 10u64)].into_iter().collect(),
                resume: Some(Resume::Raw {
                    volume: 1,
                    offset: 132,
                }),
                outputs: vec!["values/host=h/date=2024-01-01/part.parquet".into()],
                rows: (5, 0),
            },
        );
        s.save(d.path()).unwrap();
        assert_eq!(State::load(d.path()).unwrap(), Some(s));
        std::fs::write(d.path().join(FILE), b"{not json").unwrap();
        assert!(State::load(d.path()).is_err());
    }

    #[test]
    fn sizes_of_an_archives_files_only() {
        let d = tempfile::tempdir().unwrap();
        for (f, n) in [
            ("a.0", 3),
            ("a.meta.xz", 2),
            ("a.index", 1),
            ("ab.0", 9),
            ("a.config", 4),
        ] {
            std::fs::write(d.path().join(f), vec![0u8; n]).unwrap();
        }
        let got = file_sizes(&d.path().join("a"));
        let want: BTreeMap<String, u64> = [("a.0", 3), ("a.index", 1), ("a.meta.xz", 2)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        assert_eq!(got, want);
    }
}
