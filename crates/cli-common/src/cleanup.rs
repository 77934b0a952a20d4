//! What a signal leaves behind: nothing. A tool that writes an archive under
//! hidden temporary names (`.NAME.TOOL-PID.*`, [`temp_base`]) arms this with
//! them: SIGTERM, SIGINT and SIGHUP remove those files, then end the process
//! as the signal would have (the same exit status as PCP's tools, which die of
//! them). What a SIGKILL leaves is removed by the next run ([`sweep`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once, OnceLock};

/// The temporary base name being written, if any.
static PENDING: Mutex<Option<PathBuf>> = Mutex::new(None);
static HANDLER: Once = Once::new();
/// The signal caught, set in the signal handler itself (so the main thread
/// sees it at once, before the handler thread may have run).
static CAUGHT: OnceLock<Arc<AtomicUsize>> = OnceLock::new();

/// Test hook: with `TOOL_STOP_AFTER_CREATE` (the tool's name in capitals) set
/// in the environment, the process stops itself (SIGSTOP) right after the
/// temporary files are created and, once continued, waits for the signal the
/// test sent meanwhile, so that a test can signal it at that point without
/// racing the work.
fn stop_hook(tool: &str) -> String {
    format!("{}_STOP_AFTER_CREATE", tool.to_ascii_uppercase())
}

/// From now until [`disarm`], a signal removes the files of `base`.
pub fn arm(base: &Path) {
    HANDLER.call_once(install);
    if let Ok(mut p) = PENDING.lock() {
        *p = Some(base.to_path_buf());
    }
}

/// Called once the temporary files exist: the test hook's stop.
pub fn created(tool: &str) {
    if std::env::var_os(stop_hook(tool)).is_some() {
        let _ = signal_hook::low_level::raise(signal_hook::consts::SIGSTOP);
        // the test signals before it lets the process go on: wait (boundedly)
        // for the handler to have seen it, so that the signal, not the end of
        // the extraction, decides how the process ends
        let caught = || CAUGHT.get().map_or(0, |c| c.load(Ordering::SeqCst));
        let end = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while caught() == 0 && std::time::Instant::now() < end {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
}

/// The files are renamed into place or removed: a signal has nothing to do.
pub fn disarm() {
    if let Ok(mut p) = PENDING.lock() {
        *p = None;
    }
}

fn install() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let caught = CAUGHT.get_or_init(|| Arc::new(AtomicUsize::new(0)));
    for sig in [SIGTERM, SIGINT, SIGHUP] {
        let _ = signal_hook::flag::register_usize(sig, Arc::clone(caught), sig as usize);
    }
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            die(sig);
        }
    });
}

/// Renames the output into place (`rename`) unless a signal came first, which
/// then ends the process here (its handler thread may not have run yet). A
/// signal during the renaming waits for it: the output is then whole.
pub fn commit<R>(rename: impl FnOnce() -> R) -> R {
    let Ok(mut pending) = PENDING.lock() else {
        return rename();
    };
    let sig = CAUGHT.get().map_or(0, |c| c.load(Ordering::SeqCst));
    if sig != 0 {
        drop(pending);
        die(sig as i32);
    }
    let r = rename();
    *pending = None;
    r
}

/// Removes the temporary files and ends the process of `sig`.
fn die(sig: i32) -> ! {
    // held until the process ends: the main thread cannot rename or create
    // more of the files meanwhile through arm/disarm
    let pending = PENDING.lock();
    if let Ok(p) = &pending {
        if let Some(base) = p.as_ref() {
            remove_files_of(base);
        }
    }
    let _ = signal_hook::low_level::emulate_default_handler(sig);
    std::process::exit(128 + sig)
}

/// Removes every file named `BASE.*` beside `base` (volumes, meta, index).
pub fn remove_files_of(base: &Path) {
    for f in files_of(base) {
        let _ = std::fs::remove_file(f);
    }
}

/// Every file named `BASE.*` beside `base`, sorted.
pub fn files_of(base: &Path) -> Vec<std::path::PathBuf> {
    let dir = base
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let Some(stem) = base
        .file_name()
        .map(|f| format!("{}.", f.to_string_lossy()))
    else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<std::path::PathBuf> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&stem))
        // named as `base` is (a bare name stays bare: no "./" put before it)
        .map(|e| base.with_file_name(e.file_name()))
        .collect();
    out.sort();
    out
}

/// The hidden temporary base name a tool writes `base` under: `.NAME.TOOL-PID`
/// beside it.
pub fn temp_base(base: &Path, tool: &str) -> std::path::PathBuf {
    let name = base
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let dir = base.parent().filter(|p| !p.as_os_str().is_empty());
    let file = format!(".{name}.{tool}-{}", std::process::id());
    match dir {
        Some(d) => d.join(file),
        None => std::path::PathBuf::from(file),
    }
}

/// Removes the temporary files beside `base` that a run of `tool` left when it
/// was killed (`.NAME.TOOL-PID.*`, or `.NAME.FILE.TOOL-PID.*` for one file of
/// the archive, of a process that is gone).
pub fn sweep(base: &Path, tool: &str) {
    let name = base
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let dir = base
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let prefix = format!(".{name}.");
    let tag = format!(".{tool}-");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let file = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = file
            .strip_prefix(&prefix)
            .and_then(|r| format!(".{r}").split_once(&tag).map(|(_, r)| r.to_string()))
        else {
            continue;
        };
        let pid = rest.split('.').next().unwrap_or("");
        let alive = pid
            .parse::<u32>()
            .is_ok_and(|p| Path::new(&format!("/proc/{p}")).exists());
        if !alive {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dead_runs_files_are_swept_and_a_live_ones_kept() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().join("out");
        let dead = dir.path().join(".out.tool-999999999.meta");
        let live = std::path::PathBuf::from(format!("{}.meta", temp_base(&base, "tool").display()));
        assert!(
            live.to_string_lossy().contains(".out.tool-"),
            "{}",
            live.display()
        );
        let other = dir.path().join(".other.tool-999999999.meta");
        let one_file = dir.path().join(".out.0.xz.tool-999999999.tmp");
        for f in [&dead, &live, &other, &one_file] {
            std::fs::write(f, b"x").expect("writes");
        }
        sweep(&base, "tool");
        assert!(!dead.exists(), "a dead process's file goes");
        assert!(!one_file.exists(), "so does one it wrote for one file");
        assert!(live.exists(), "this process's file stays");
        assert!(other.exists(), "another archive's file stays");
    }

    #[test]
    fn files_are_named_as_their_base_is() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("arch.0"), b"x").expect("writes");
        let files = files_of(&dir.path().join("arch"));
        assert_eq!(files, [dir.path().join("arch.0")]);
        // a bare name (the current directory) keeps no "./" before it
        let bare = files_of(Path::new("no-such-archive-here"));
        assert!(bare.iter().all(|f| !f.starts_with(".")), "{bare:?}");
        let cwd = std::env::current_dir().expect("cwd");
        let some = std::fs::read_dir(&cwd)
            .expect("lists")
            .flatten()
            .find_map(|e| {
                let n = e.file_name().to_string_lossy().into_owned();
                n.split_once('.').map(|(stem, _)| stem.to_string())
            });
        if let Some(stem) = some.filter(|s| !s.is_empty()) {
            let found = files_of(Path::new(&stem));
            assert!(!found.is_empty(), "{stem}");
            assert!(
                found.iter().all(|f| f.parent() == Some(Path::new(""))),
                "{found:?}"
            );
        }
    }

    #[test]
    fn only_the_base_names_files_go() {
        let dir = tempfile::tempdir().expect("tempdir");
        for f in [
            ".out.pmlogextract-7.0",
            ".out.pmlogextract-7.17",
            ".out.pmlogextract-7.meta",
            ".out.pmlogextract-7.index",
            ".out.pmlogextract-77.0",
            "out.0",
            "other",
        ] {
            std::fs::write(dir.path().join(f), b"x").expect("write");
        }
        remove_files_of(&dir.path().join(".out.pmlogextract-7"));
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, [".out.pmlogextract-77.0", "other", "out.0"]);
    }
}
