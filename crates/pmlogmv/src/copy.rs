//! A file copied where it cannot be linked (pmlogmv's way, as `cp` makes it,
//! and pmlogcp's, a new file of the source's mode that must not exist yet),
//! and the checksum command `-c` compares copies with.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::process::{Command, Stdio};

/// EXDEV: a link across file systems.
pub(crate) const EXDEV: i32 = 18;
/// The longest checksum kept (sha256sum's 64 digits).
const MAX_CHECKSUM: usize = 64;

/// libc's message for an I/O error.
pub(crate) fn strerror(e: &io::Error) -> String {
    archive_format::pm_err_str(-e.raw_os_error().unwrap_or(5))
}

/// pmlogmv's copy (PCP 6.0.3 runs `cp`): the destination made or truncated.
pub(crate) fn copy_6(src: &str, dst: &str) -> Result<(), String> {
    std::fs::copy(src, dst)
        .map(|_| ())
        .map_err(|e| strerror(&e))
}

/// pmlogcp's copy: a new file with the source's permissions; the messages
/// PCP 7.2 gives before its "copy ... failed" (each ending in a newline).
pub(crate) fn copy_7(prog: &str, src: &str, dst: &str) -> Result<(), String> {
    let mut from =
        File::open(src).map_err(|e| format!("{prog}: cannot open {src}: {}\n", strerror(&e)))?;
    let mode = from
        .metadata()
        .map_err(|e| format!("{prog}: cannot stat {src}: {}\n", strerror(&e)))?
        .mode();
    let mut to = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode & 0o777)
        .open(dst)
        .map_err(|e| format!("{prog}: cannot open {dst}: {}\n", strerror(&e)))?;
    if let Err(e) = io::copy(&mut from, &mut to) {
        let _ = std::fs::remove_file(dst);
        return Err(format!("{prog}: write to {dst} failed: {}\n", strerror(&e)));
    }
    Ok(())
}

/// The checksum command: the first of md5sum, sha256sum, sha1sum and sum on
/// the path (pmlogmv, as `which` finds it) or in /usr/bin or /usr/sbin (PCP 7).
pub(crate) fn sum_command(on_path: bool) -> Option<&'static str> {
    let dirs: Vec<std::path::PathBuf> = if on_path {
        std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect())
            .unwrap_or_default()
    } else {
        vec!["/usr/bin".into(), "/usr/sbin".into()]
    };
    ["md5sum", "sha256sum", "sha1sum", "sum"]
        .into_iter()
        .find(|c| dirs.iter().any(|d| d.join(c).is_file()))
}

/// The first word `cmd` prints for the contents of `file` (at most 64
/// characters).
pub(crate) fn checksum(cmd: &str, file: &str) -> Option<String> {
    let input = File::open(Path::new(file)).ok()?;
    let out = Command::new(cmd)
        .stdin(Stdio::from(input))
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    Some(
        text.split(' ')
            .next()
            .unwrap_or("")
            .chars()
            .take(MAX_CHECKSUM)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_of_pmlogcp_is_new_and_keeps_the_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let (src, dst) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&src, b"bytes").unwrap();
        std::fs::set_permissions(&src, std::fs::Permissions::from_mode(0o640)).unwrap();
        let (s, d) = (src.to_str().unwrap(), dst.to_str().unwrap());
        copy_7("pmlogcp", s, d).expect("copies");
        assert_eq!(std::fs::read(&dst).unwrap(), b"bytes");
        assert_eq!(std::fs::metadata(&dst).unwrap().mode() & 0o777, 0o640);
        let again = copy_7("pmlogcp", s, d).unwrap_err();
        assert!(
            again.starts_with(&format!("pmlogcp: cannot open {d}: File exists")),
            "{again}"
        );
    }

    #[test]
    fn a_checksum_is_the_first_word() {
        let Some(cmd) = sum_command(true) else {
            eprintln!("skipped: no checksum command on the path");
            return;
        };
        let dir = tempfile::tempdir().expect("tempdir");
        let f = dir.path().join("a");
        std::fs::write(&f, b"x").unwrap();
        let sum = checksum(cmd, f.to_str().unwrap()).expect("a sum");
        assert!(!sum.is_empty() && !sum.contains(' '), "{sum}");
    }
}
