//! The values of an archive of one compressed volume dumped while the volume is
//! still being decoded. The report starts with the archive's end, which is known
//! only once the whole volume is decoded (an xz block or zstd frame cannot be
//! entered anywhere but at its start); so the head of the report is made on a
//! thread of its own (its sections after the label first, then the label, which
//! waits for that), while the values are formatted into an unlinked temporary
//! file (not memory). Once the head is made, it goes out, then what was spooled,
//! and the rest of the values go straight out.
//!
//! Nothing goes out before the volume is decoded whole: where its decoding fails
//! part way (libpcp could not use the volume at all) the spool is dropped and the
//! caller dumps the archive again the usual way, so the output is the same
//! whichever way it was made.

use super::*;
use archive_format::text::write_raw;
use std::fs::File;
use std::thread::ScopedJoinHandle;

/// Whether the report may be made this way: the values forward from the
/// archive's start, on more than one thread, of an archive of one volume. It is,
/// when the library reads that volume while it decodes ([`Archive::decoding`]: a
/// compressed volume that decodes on one thread and declares its size).
pub(super) fn applies(o: &Opts, name: &str) -> bool {
    if !o.metrics || o.reverse || o.clock.windowed() || cli_common::parallel::threads() < 2 {
        return false;
    }
    archive_format::volume::find_archive(name).is_ok_and(|f| f.volumes.len() == 1)
}

/// The head of the report, made on a thread of its own.
struct Head {
    /// What [`head_start`] returned.
    made: io::Result<Result<(Clock, Timestamp, Timestamp), i32>>,
    /// What it wrote to the output and to the errors.
    out: Vec<u8>,
    err: Vec<u8>,
    /// The sections after the label ([`head_sections`]: made first, while the
    /// volume decodes), which go out after it.
    sections: Vec<u8>,
}

/// The clock and where the values start, before the archive's end is known (`None`:
/// no window without it; the dump is made the usual way).
pub(super) fn start_unended(a: &Archive, o: &Opts) -> Option<(Clock, Timestamp)> {
    let (clock, _) = clock_of(a, o);
    let (wstart, _) = o
        .clock
        .window(clock::bounds(a.label(), None), &clock.tz)
        .ok()?;
    Some((clock, wstart))
}

/// Dumps `a` (opened to read its volume while it decodes): the exit status, or
/// `None`, having written nothing, where the volume failed to decode part way.
pub(super) fn dump(
    a: &Archive,
    o: &Opts,
    name: &str,
    wanted: &[PmId],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<Option<i32>> {
    let Some((clock, wstart)) = start_unended(a, o) else {
        return Ok(None);
    };
    std::thread::scope(|s| {
        let made = s.spawn(|| {
            let mut sections = Vec::new();
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let made = head_sections(a, o, &clock, &mut sections)
                .and_then(|_| head_start(a, o, name, &mut out, &mut err));
            Head {
                made,
                out,
                err,
                sections,
            }
        });
        let mut sink = Sink {
            a,
            head: Some(made),
            out: &mut *out,
            err: &mut *err,
            spool: None,
            state: State::Spooling,
        };
        // the fetch error that ends a dump is written after the values
        let mut late = Vec::new();
        let threads = cli_common::parallel::threads();
        let dumped = dump_values_on(
            threads, a, o, wanted, wstart, None, &clock, &mut sink, &mut late,
        );
        sink.settle()?;
        match sink.state {
            State::Redo => Ok(None),
            State::Stopped(code) => Ok(Some(code)),
            State::Spooling | State::Direct => {
                let code = dumped?;
                err.write_all(&late)?;
                Ok(Some(code))
            }
        }
    })
}

enum State {
    /// The head is being made: values go to the spool.
    Spooling,
    /// The head and the spool are out: values go straight out.
    Direct,
    /// The head ended the report with this status: nothing more goes out.
    Stopped(i32),
    /// The volume failed to decode part way: nothing goes out.
    Redo,
}

/// Where the values are written: the spool until the head is made, then the
/// output. Their raw bytes are restored as they come (see
/// [`archive_format::text`]), so that the spool goes out as it is.
struct Sink<'s, 'a, 'o> {
    a: &'a Archive,
    head: Option<ScopedJoinHandle<'s, Head>>,
    /// The output, taking bytes as they are to be printed.
    out: &'o mut dyn Write,
    err: &'o mut dyn Write,
    spool: Option<Spool<File>>,
    state: State,
}

/// What a write after the end of the report meets (the dump stops there).
fn stopped() -> io::Error {
    io::Error::other("report ended")
}

impl Sink<'_, '_, '_> {
    /// Waits for the head; then, unless the volume did not decode whole or the
    /// head ended the report, writes it and the spool out and goes on directly.
    fn settle(&mut self) -> io::Result<()> {
        let Some(h) = self.head.take() else {
            return Ok(());
        };
        let head = h.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        if !self.a.decoded_whole() {
            self.state = State::Redo;
            self.spool = None;
            return Ok(());
        }
        self.err.write_all(&head.err)?;
        write_raw(self.out, &head.out)?;
        if let Err(code) = head.made? {
            self.state = State::Stopped(code);
            self.spool = None;
            return Ok(());
        }
        write_raw(self.out, &head.sections)?;
        if let Some(spool) = self.spool.take() {
            let f = spool.finish()?;
            copy_out(&f, self.out)?;
            // closing it frees its pages, which takes a while for hundreds of
            // MB: on a thread of its own, while the values go on
            let _ = std::thread::Builder::new()
                .name("spool".into())
                .spawn(move || drop(f));
        }
        self.state = State::Direct;
        Ok(())
    }
}

impl Write for Sink<'_, '_, '_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if matches!(self.state, State::Spooling)
            && self.head.as_ref().is_some_and(|h| h.is_finished())
        {
            self.settle()?;
        }
        match self.state {
            State::Direct => write_raw(self.out, buf).map(|_| buf.len()),
            State::Spooling => {
                if self.spool.is_none() {
                    self.spool = Some(Spool::new(tempfile::tempfile()?));
                }
                let f = self.spool.as_mut().ok_or_else(stopped)?;
                write_raw(f, buf)?;
                Ok(buf.len())
            }
            State::Stopped(_) | State::Redo => Err(stopped()),
        }
    }

    /// Output is flushed before an error is written: the head and the spool
    /// go out first, as they would have.
    fn flush(&mut self) -> io::Result<()> {
        self.settle()?;
        match self.state {
            State::Direct => self.out.flush(),
            _ => Ok(()),
        }
    }
}

/// The spool's writes start at multiples of this many bytes of the file.
const ALIGN: usize = 64 << 10;

/// The spool file, written at aligned places only (but for its last bytes): a
/// write that starts a few pages into such a place is stored in the page cache
/// page by page, one at an aligned place in larger pieces, at a third less of the
/// system's time (ext4, Linux 6.18). What does not fill a piece waits here.
struct Spool<W> {
    file: W,
    pending: Vec<u8>,
}

impl<W: Write> Spool<W> {
    fn new(file: W) -> Spool<W> {
        Spool {
            file,
            pending: Vec::with_capacity(ALIGN),
        }
    }

    /// The file with everything written to it.
    fn finish(mut self) -> io::Result<W> {
        self.file.write_all(&self.pending)?;
        Ok(self.file)
    }
}

impl<W: Write> Write for Spool<W> {
    fn write(&mut self, mut buf: &[u8]) -> io::Result<usize> {
        let n = buf.len();
        if !self.pending.is_empty() {
            let take = (ALIGN - self.pending.len()).min(buf.len());
            self.pending.extend_from_slice(&buf[..take]);
            buf = &buf[take..];
            if self.pending.len() < ALIGN {
                return Ok(n);
            }
            self.file.write_all(&self.pending)?;
            self.pending.clear();
        }
        let whole = buf.len() / ALIGN * ALIGN;
        self.file.write_all(&buf[..whole])?;
        self.pending.extend_from_slice(&buf[whole..]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Bytes of the spool mapped at a time to be written out.
const COPY: usize = 1 << 20;

/// Writes the spool `f` to `out`, a window of it mapped at a time (so that its
/// pages are not all held, and output to the null device touches none). Its raw
/// bytes were restored as it was written.
fn copy_out(f: &File, out: &mut dyn Write) -> io::Result<()> {
    let len = f.metadata()?.len();
    let mut at = 0u64;
    while at < len {
        let n = (len - at).min(COPY as u64) as usize;
        let map = map_part(f, at, n)?;
        out.write_all(&map)?;
        at += n as u64;
    }
    Ok(())
}

#[allow(unsafe_code)]
fn map_part(f: &File, at: u64, len: usize) -> io::Result<memmap2::Mmap> {
    // SAFETY: the spool is an unlinked temporary file only this process has,
    // and it is no longer written when it is mapped.
    unsafe { memmap2::MmapOptions::new().offset(at).len(len).map(f) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A file that notes where each write to it starts.
    #[derive(Default)]
    struct Noted {
        bytes: Vec<u8>,
        starts: Vec<usize>,
    }

    impl Write for Noted {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.starts.push(self.bytes.len());
            self.bytes.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    proptest! {
        /// Whatever the sizes written, the spool holds the bytes in order, and
        /// every write to its file starts at an aligned place.
        #[test]
        fn the_spool_is_written_at_aligned_places(
            sizes in proptest::collection::vec(0usize..3 * ALIGN, 0..40),
        ) {
            let mut spool = Spool::new(Noted::default());
            let mut want = Vec::new();
            for (k, &n) in sizes.iter().enumerate() {
                let chunk: Vec<u8> = (0..n).map(|i| (i * 31 + k) as u8).collect();
                spool.write_all(&chunk).expect("written");
                want.extend_from_slice(&chunk);
            }
            let file = spool.finish().expect("finished");
            prop_assert!(file.bytes == want);
            prop_assert!(file.starts.iter().all(|s| s % ALIGN == 0));
        }
    }
}
