//! Where a writer's bytes go: the archive's files, or a remote receiver of its
//! records (PCP 7's push of a recording to pmproxy, whose `/logger` API takes the
//! records of each file as they are written and stores the archive itself).

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::sync::{Arc, Mutex};

/// A file of the archive, as a remote receiver names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Meta,
    Index,
    Volume(u32),
}

/// Takes an archive's records in place of its files. The receiver writes the
/// label records itself, from the one label it is given first.
pub trait Push: Send {
    /// The archive's label (the temporal index's, as PCP 7's pmlogger sends it),
    /// before any record.
    fn label(&mut self, label: &[u8]) -> std::io::Result<()>;
    /// One record (whole) of one file, in the order the file holds them.
    fn record(&mut self, part: Part, bytes: &[u8]) -> std::io::Result<()>;
}

/// The one receiver the three outputs of a pushed archive share.
pub(super) type Shared = Arc<Mutex<Box<dyn Push>>>;

/// One output of a writer.
pub(super) enum Out {
    File(File),
    Remote(Part, Shared),
}

impl Out {
    /// The file, when this output is one.
    pub(super) fn file(&self) -> Option<&File> {
        match self {
            Out::File(f) => Some(f),
            Out::Remote(..) => None,
        }
    }

    fn send(part: Part, to: &Shared, bytes: &[u8]) -> std::io::Result<()> {
        let mut push = to
            .lock()
            .map_err(|_| std::io::Error::other("push receiver poisoned"))?;
        push.record(part, bytes)
    }
}

impl Write for Out {
    /// A remote output takes each call as one record (the writer writes every
    /// record with one call to an unbuffered output).
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Out::File(f) => f.write(buf),
            Out::Remote(part, to) => Out::send(*part, to, buf).map(|()| buf.len()),
        }
    }

    fn write_vectored(&mut self, bufs: &[std::io::IoSlice<'_>]) -> std::io::Result<usize> {
        match self {
            Out::File(f) => f.write_vectored(bufs),
            Out::Remote(part, to) => {
                let whole: Vec<u8> = bufs.iter().flat_map(|b| b.iter().copied()).collect();
                Out::send(*part, to, &whole).map(|()| whole.len())
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Out::File(f) => f.flush(),
            Out::Remote(..) => Ok(()),
        }
    }
}

impl Seek for Out {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        match self {
            Out::File(f) => f.seek(pos),
            Out::Remote(..) => Err(std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "a pushed archive cannot seek",
            )),
        }
    }
}

/// Writes all of `parts`, in order, with as few `writev` calls as the file takes.
pub(super) fn write_all_gathered(f: &mut impl Write, parts: &[&[u8]]) -> std::io::Result<()> {
    let (mut part, mut done) = (0, 0);
    loop {
        while part < parts.len() && parts[part].len() == done {
            part += 1;
            done = 0;
        }
        if part == parts.len() {
            return Ok(());
        }
        let mut slices = [std::io::IoSlice::new(&[]); 3];
        let mut n = 0;
        for (k, p) in parts[part..].iter().take(3).enumerate() {
            slices[k] = std::io::IoSlice::new(if k == 0 { &p[done..] } else { p });
            n = k + 1;
        }
        let mut wrote = match f.write_vectored(&slices[..n]) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(w) => w,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        // step over what was written: whole parts, then into one
        while part < parts.len() && wrote >= parts[part].len() - done {
            wrote -= parts[part].len() - done;
            part += 1;
            done = 0;
        }
        done += wrote;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Records = Vec<(Part, Vec<u8>)>;

    #[derive(Default)]
    struct Got(Arc<Mutex<Records>>);

    impl Push for Got {
        fn label(&mut self, _: &[u8]) -> std::io::Result<()> {
            Ok(())
        }
        fn record(&mut self, part: Part, bytes: &[u8]) -> std::io::Result<()> {
            self.0.lock().expect("lock").push((part, bytes.to_vec()));
            Ok(())
        }
    }

    /// A gathered write reaches the receiver as one record.
    #[test]
    fn gathered_writes_are_one_record() {
        let got = Got::default();
        let seen = got.0.clone();
        let shared: Shared = Arc::new(Mutex::new(Box::new(got)));
        let mut out = Out::Remote(Part::Volume(2), shared);
        let n = out
            .write_vectored(&[
                std::io::IoSlice::new(b"ab"),
                std::io::IoSlice::new(b"cd"),
                std::io::IoSlice::new(b"e"),
            ])
            .expect("write");
        assert_eq!(n, 5);
        out.write_all(b"xyz").expect("write");
        let seen = seen.lock().expect("lock");
        assert_eq!(
            *seen,
            vec![
                (Part::Volume(2), b"abcde".to_vec()),
                (Part::Volume(2), b"xyz".to_vec())
            ]
        );
        assert!(out.seek(SeekFrom::Start(0)).is_err());
    }
}
