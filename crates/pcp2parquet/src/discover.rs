//! The archives named on the command line: an archive in any of PCP's name forms
//! (`base`, `base.meta`, `base.0`, `base.index`, compressed or not), or a directory
//! searched recursively (a pmlogger farm: `HOST/YYYYMMDD.HH.MM.*`).

use archive_format::compress;
use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};

/// The base name of an archive file (`/d/a` for `/d/a.0.xz`), or `None` for a file
/// that is not part of an archive.
pub fn base_of(name: &str) -> Option<&str> {
    let plain = compress::strip_suffix(name).map_or(name, |(p, _)| p);
    if let Some(b) = plain.strip_suffix(".meta") {
        return Some(b);
    }
    if let Some(b) = plain.strip_suffix(".index") {
        return Some(b);
    }
    volume_base(name)
}

/// The base name of a data volume file (`/d/a` for `/d/a.0.xz`), or `None`.
pub fn volume_base(name: &str) -> Option<&str> {
    let plain = compress::strip_suffix(name).map_or(name, |(p, _)| p);
    let dot = plain.rfind('.')?;
    let digits = &plain[dot + 1..];
    (!digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit())).then(|| &plain[..dot])
}

/// The base name of a `.meta` file (`a` for `a.meta.xz`), or `None`.
fn meta_base(name: &str) -> Option<&str> {
    compress::strip_suffix(name)
        .map_or(name, |(p, _)| p)
        .strip_suffix(".meta")
}

/// Every archive under `dir` (those with a `.meta`, compressed or not), sorted.
pub fn walk(dir: &Path, found: &mut BTreeSet<PathBuf>) -> io::Result<()> {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)? {
            let e = e?;
            let ty = e.file_type()?;
            let path = e.path();
            if ty.is_dir() {
                stack.push(path);
                continue;
            }
            let name = e.file_name();
            if let Some(b) = name.to_str().and_then(meta_base) {
                found.insert(d.join(b));
            }
        }
    }
    Ok(())
}

/// The archives `paths` name, each once, by base name.
pub fn archives(paths: &[PathBuf]) -> io::Result<Vec<PathBuf>> {
    let mut found = BTreeSet::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut found)?;
            continue;
        }
        let name = p.to_string_lossy();
        let base = match p.file_name().and_then(|n| n.to_str()).and_then(base_of) {
            // a file of an archive: its base (if the name is itself a base whose
            // files exist, that is the archive)
            Some(b) if !has_files(p) => p.with_file_name(b),
            _ => p.clone(),
        };
        if !has_files(&base) {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("{name}: no PCP archive found"),
            ));
        }
        found.insert(base);
    }
    Ok(found.into_iter().collect())
}

/// Whether `base` names an archive (a `.meta` in some compression).
fn has_files(base: &Path) -> bool {
    let Some(name) = base.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let dir = base.parent().filter(|d| !d.as_os_str().is_empty());
    let dir = dir.unwrap_or(Path::new("."));
    let Ok(rd) = std::fs::read_dir(dir) else {
        return false;
    };
    rd.flatten()
        .any(|e| meta_base(&e.file_name().to_string_lossy()) == Some(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bases() {
        assert_eq!(base_of("20180416.10.00.0.xz"), Some("20180416.10.00"));
        assert_eq!(base_of("a.meta"), Some("a"));
        assert_eq!(base_of("a.index"), Some("a"));
        assert_eq!(base_of("a.12"), Some("a"));
        assert_eq!(base_of("a.meta.bz2"), Some("a"));
        assert_eq!(base_of("Latest"), None);
        assert_eq!(base_of("a.config"), None);
    }

    #[test]
    fn finds_a_farm_and_names() {
        let d = tempfile::tempdir().unwrap();
        let h1 = d.path().join("host1");
        let h2 = d.path().join("host2/sub");
        std::fs::create_dir_all(&h1).unwrap();
        std::fs::create_dir_all(&h2).unwrap();
        for f in [
            "host1/20240101.00.10.meta",
            "host1/20240101.00.10.0",
            "host1/20240101.00.10.index",
            "host1/20240102.00.10.meta.xz",
            "host1/20240102.00.10.0.xz",
            "host1/Latest",
            "host2/sub/x.meta",
            "host2/sub/x.0",
            "host2/sub/y.0",
        ] {
            std::fs::write(d.path().join(f), b"").unwrap();
        }
        let got = archives(&[d.path().to_path_buf()]).unwrap();
        let want: Vec<PathBuf> = [
            "host1/20240101.00.10",
            "host1/20240102.00.10",
            "host2/sub/x",
        ]
        .iter()
        .map(|n| d.path().join(n))
        .collect();
        assert_eq!(got, want);
        // any file name of an archive, or its base, names it once
        let named = archives(&[
            h1.join("20240101.00.10.0"),
            h1.join("20240101.00.10"),
            h1.join("20240102.00.10.meta.xz"),
        ])
        .unwrap();
        assert_eq!(named, want[..2].to_vec());
        assert!(
            archives(&[h2.join("y.0")]).is_err(),
            "no .meta: not an archive"
        );
    }
}
