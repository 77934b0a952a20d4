//! Standard output as a file that can be written at a place: a report whose first
//! lines are known only at its end (pmdumplog's label waits for the archive's end)
//! can leave room for them, write the rest straight out, and fill the room last,
//! instead of holding the rest back. That is so when the process's standard output
//! is a regular file (not opened to append) or the null device; a pipe or a
//! terminal takes its bytes in order.

use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Set by [`crate::shell::main`]: the `out` a tool is given is the process's
/// standard output (in-process callers give a buffer of their own).
static OUT_IS_STDOUT: AtomicBool = AtomicBool::new(false);

pub(crate) fn out_is_stdout() {
    OUT_IS_STDOUT.store(true, Relaxed);
}

/// Standard output where it can be written at a place; made by [`stdout`].
pub struct Placed {
    /// Standard output (a second descriptor of it: the same offset).
    file: File,
    /// Where the report starts in it.
    base: u64,
    regular: bool,
    /// Standard error goes to the same regular file, at the offset they share.
    shares_err: bool,
}

/// Standard output, once `out` (which ends in it) is flushed, where it is a
/// regular file not opened to append, or the null device; `None` where it is not
/// (or `out` is not the process's standard output).
pub fn stdout(out: &mut dyn Write) -> io::Result<Option<Placed>> {
    if !OUT_IS_STDOUT.load(Relaxed) {
        return Ok(None);
    }
    out.flush()?;
    let Ok(fd) = io::stdout().as_fd().try_clone_to_owned() else {
        return Ok(None);
    };
    let mut file = File::from(fd);
    let meta = file.metadata()?;
    let regular = meta.file_type().is_file();
    if !(regular || is_null_device(&meta)) {
        return Ok(None);
    }
    // (opened to append, every write goes to the end, wherever it is asked for)
    match rustix::fs::fcntl_getfl(&file) {
        Ok(flags) if !flags.contains(rustix::fs::OFlags::APPEND) => {}
        _ => return Ok(None),
    }
    let Ok(base) = file.stream_position() else {
        return Ok(None);
    };
    let shares_err = regular
        && io::stderr()
            .as_fd()
            .try_clone_to_owned()
            .map(File::from)
            .and_then(|e| e.metadata())
            .is_ok_and(|e| (e.dev(), e.ino()) == (meta.dev(), meta.ino()));
    Ok(Some(Placed {
        file,
        base,
        regular,
        shares_err,
    }))
}

fn is_null_device(meta: &std::fs::Metadata) -> bool {
    meta.file_type().is_char_device()
        && std::fs::metadata("/dev/null").is_ok_and(|n| n.rdev() == meta.rdev())
}

impl Placed {
    /// Whether standard error writes into the same file: what it is told then
    /// goes where the output has got to.
    pub fn shares_err(&self) -> bool {
        self.shares_err
    }

    /// Writes `bytes` where the report starts, once `out` is flushed (the room
    /// for them written through it).
    pub fn fill(&self, out: &mut dyn Write, bytes: &[u8]) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        out.flush()?;
        self.file.write_all_at(bytes, self.base)
    }

    /// Forgets what was written since the report started: the output goes on from
    /// there (a regular file cut back to it).
    pub fn rewind(&mut self, out: &mut dyn Write) -> io::Result<()> {
        out.flush()?;
        self.file.seek(SeekFrom::Start(self.base))?;
        if self.regular {
            self.file.set_len(self.base)?;
        }
        Ok(())
    }
}
