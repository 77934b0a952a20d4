//! The files an argument names: a file itself, or every file of the archive
//! whose base name it is (in the directory's sorted order), as pmlogsize
//! finds them; and a file's bytes, decompressed.

use archive_format::compress;
use archive_format::volume::{self, FileRef};
use std::path::Path;

/// Whether `name` (a directory entry) is a file of the archive `base`: its
/// base name and then `.meta`, `.index` or a volume number, compressed or not.
fn belongs(name: &str, base: &str) -> bool {
    let Some(rest) = name.strip_prefix(base).and_then(|r| r.strip_prefix('.')) else {
        return false;
    };
    let rest = compress::strip_suffix(rest).map_or(rest, |(r, _)| r);
    rest == "meta"
        || rest == "index"
        || (rest.starts_with(|c: char| c.is_ascii_digit())
            && rest.bytes().all(|c| c.is_ascii_digit()))
}

/// The files `arg` names, or pmlogsize's words for why there are none.
pub fn named(arg: &str) -> Result<Vec<String>, String> {
    if Path::new(arg).metadata().is_ok_and(|m| m.is_file()) {
        return Ok(vec![arg.to_string()]);
    }
    let p = Path::new(arg);
    let base = p
        .file_name()
        .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_string_lossy().into_owned(),
        _ => ".".to_string(),
    };
    let entries = std::fs::read_dir(&dir).map_err(|e| {
        let msg = archive_format::pm_err_str(-e.raw_os_error().unwrap_or(5));
        format!("Error: scandir(\"{dir}\", ...) failed: {msg}")
    })?;
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| belongs(n, &base))
        .collect();
    if names.is_empty() {
        return Err(format!("Error: no PCP archive files match \"{arg}\""));
    }
    names.sort();
    Ok(names
        .into_iter()
        .map(|n| if dir == "." { n } else { format!("{dir}/{n}") })
        .collect())
}

/// The file `name`, compressed as its suffix says.
pub fn file_ref(name: &str) -> FileRef {
    FileRef {
        path: name.into(),
        compression: compress::strip_suffix(name).map(|(_, c)| c),
    }
}

/// The bytes of the file `name`, decompressed (once, through `cache`) where its
/// suffix says so.
pub fn load(name: &str, cache: &volume::Decompressed) -> Result<volume::Bytes, String> {
    cache.load(&file_ref(name)).map_err(|e| e.pm_message())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archives_files_are_told_apart() {
        assert!(belongs("a.meta", "a"));
        assert!(belongs("a.0.xz", "a"));
        assert!(belongs("a.12", "a"));
        assert!(!belongs("a.b.meta", "a"));
        assert!(!belongs("a.x", "a"));
        assert!(!belongs("ab.0", "a"));
    }
}
