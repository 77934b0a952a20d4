//! Where the output is written and how it takes its place: under hidden
//! temporary names beside its final name (`.NAME.pmlogrewrite-PID.*`, what a
//! killed run left there removed first), renamed into place once whole; with
//! `-i`, the input's files moved aside under a second hidden name, the output
//! renamed to the input's name, and the old files then removed (on a failure
//! the input is put back). A signal before the renaming removes the
//! temporary files; a SIGKILL leaves them for the next run to sweep.

use cli_common::cleanup;
use std::path::{Path, PathBuf};

const TOOL: &str = "pmlogrewrite";

/// The files of the archive `base`: its volumes, metadata and index, with
/// any compression suffix.
pub(crate) fn archive_files(base: &Path) -> Vec<PathBuf> {
    let stem = base.file_name().map_or(0, |n| n.len() + 1);
    cleanup::files_of(base)
        .into_iter()
        .filter(|f| {
            let name = f
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let first = name
                .get(stem..)
                .and_then(|e| e.split('.').next())
                .unwrap_or("");
            first == "meta" || first == "index" || first.parse::<u32>().is_ok()
        })
        .collect()
}

/// `from`'s name with its base `from_base` replaced by `to_base`.
fn renamed(from: &Path, from_base: &Path, to_base: &Path) -> PathBuf {
    let f = from.to_string_lossy();
    let b = from_base.to_string_lossy();
    let rest = f.strip_prefix(b.as_ref()).unwrap_or(&f);
    PathBuf::from(format!("{}{rest}", to_base.display()))
}

/// Where one rewrite's output goes.
pub(crate) struct Place {
    /// Where the archive is written.
    pub(crate) temp: PathBuf,
    /// Where it goes once whole.
    pub(crate) dest: PathBuf,
    /// `-i`: the input moved aside here while the output takes its name.
    aside: Option<PathBuf>,
}

impl Place {
    /// The output `dest` (the input itself with `-i`), armed for signals.
    pub(crate) fn new(dest: &str, in_place: bool) -> Place {
        let dest = PathBuf::from(dest);
        cleanup::sweep(&dest, TOOL);
        let temp = cleanup::temp_base(&dest, TOOL);
        let aside = in_place.then(|| PathBuf::from(format!("{}-old", temp.display())));
        cleanup::arm(&temp);
        Place { temp, dest, aside }
    }

    /// Renames the whole output into place; `Err` with what failed.
    pub(crate) fn commit(&self) -> Result<(), String> {
        let files = archive_files(&self.temp);
        cleanup::commit(|| {
            let old = archive_files(&self.dest);
            if let Some(aside) = &self.aside {
                for f in &old {
                    std::fs::rename(f, renamed(f, &self.dest, aside))
                        .map_err(|e| format!("{TOOL}: Error: rename {}: {e}", f.display()))?;
                }
            }
            for f in &files {
                if let Err(e) = std::fs::rename(f, renamed(f, &self.temp, &self.dest)) {
                    self.put_back();
                    return Err(format!("{TOOL}: Error: rename {}: {e}", f.display()));
                }
            }
            if let Some(aside) = &self.aside {
                for f in archive_files(aside) {
                    let _ = std::fs::remove_file(f);
                }
            }
            Ok(())
        })
    }

    /// `-i` after a failure: the input's files back under their name.
    fn put_back(&self) {
        if let Some(aside) = &self.aside {
            for f in archive_files(aside) {
                let _ = std::fs::rename(&f, renamed(&f, aside, &self.dest));
            }
        }
    }

    /// After a failure: the partial output removed, or (`-d`) kept under the
    /// output's name.
    pub(crate) fn abandon(&self, keep: bool) {
        for f in archive_files(&self.temp) {
            if keep && self.aside.is_none() {
                let _ = std::fs::rename(&f, renamed(&f, &self.temp, &self.dest));
            } else {
                let _ = std::fs::remove_file(f);
            }
        }
        cleanup::disarm();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_renamed_base_for_base() {
        let t = Path::new("/d/.a.pmlogrewrite-1");
        let f = Path::new("/d/.a.pmlogrewrite-1.meta.xz");
        assert_eq!(
            renamed(f, t, Path::new("/d/a")),
            PathBuf::from("/d/a.meta.xz")
        );
    }

    #[test]
    fn in_place_swaps_the_files_and_leaves_nothing_else() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().join("arch");
        for ext in ["0", "meta", "index", "1.xz"] {
            std::fs::write(format!("{}.{ext}", base.display()), b"old").expect("writes");
        }
        let p = Place::new(base.to_str().expect("utf-8"), true);
        for ext in ["0", "meta", "index"] {
            std::fs::write(format!("{}.{ext}", p.temp.display()), b"new").expect("writes");
        }
        p.commit().expect("renames");
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .expect("lists")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["arch.0", "arch.index", "arch.meta"]);
        assert_eq!(
            std::fs::read(format!("{}.0", base.display())).expect("reads"),
            b"new"
        );
    }
}
