//! File-to-file copies done by a helper thread while the caller goes on.
//!
//! A [`crate::writer::ArchiveWriter`] copying long runs of records from an input
//! volume hands each run here: the copy goes to its own place in the output
//! (`copy_file_range` with both offsets given, so neither file's position moves), and
//! the writer carries on with the records after it. On a two-core machine the kernel's
//! copying then overlaps with reading and checking the next records.
//!
//! The first failure stops the helper; it is reported by the next [`Copier::submit`]
//! or by [`Copier::drain`], which waits for every copy handed over so far.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::mpsc::{channel, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;

/// One copy: `len` bytes from `src` at `src_off` to `dst` at `dst_off`.
pub(crate) struct Job {
    pub src: Arc<File>,
    pub src_off: u64,
    pub dst: Arc<File>,
    pub dst_off: u64,
    pub len: u64,
}

/// Why a copy failed, and at which output offset.
#[derive(Debug)]
pub(crate) struct CopyError {
    pub dst_off: u64,
    pub error: io::Error,
}

/// The helper thread, started with the first copy after each drain.
#[derive(Default)]
pub(crate) struct Copier {
    worker: Option<Worker>,
}

/// A running helper: where its jobs go, and what it ends with.
struct Worker {
    jobs: Sender<Job>,
    done: JoinHandle<Result<(), CopyError>>,
}

impl Worker {
    /// A thread that does the jobs sent to it in order, stopping at the first failure.
    fn start() -> io::Result<Worker> {
        let (jobs, rx) = channel::<Job>();
        let done = std::thread::Builder::new()
            .name("archive-copy".into())
            .spawn(move || rx.iter().try_for_each(|job| copy(&job)))?;
        Ok(Worker { jobs, done })
    }
}

impl Copier {
    /// Hands `job` to the helper; an error is that of an earlier copy.
    pub fn submit(&mut self, job: Job) -> Result<(), CopyError> {
        let worker = match &mut self.worker {
            Some(w) => w,
            None => match Worker::start() {
                Ok(w) => self.worker.insert(w),
                // no thread to be had: copy here and now
                Err(_) => return copy(&job),
            },
        };
        if worker.jobs.send(job).is_err() {
            // the helper stopped at a failure: report it
            return self.drain();
        }
        Ok(())
    }

    /// Waits for every copy handed over so far.
    pub fn drain(&mut self) -> Result<(), CopyError> {
        let Some(Worker { jobs, done }) = self.worker.take() else {
            return Ok(());
        };
        drop(jobs);
        match done.join() {
            Ok(r) => r,
            Err(_) => Err(CopyError {
                dst_off: 0,
                error: io::Error::other("copying thread failed"),
            }),
        }
    }
}

impl Drop for Copier {
    fn drop(&mut self) {
        // nothing is left running behind the writer (its error has nobody to go to)
        let _ = self.drain();
    }
}

/// Copies one job: by the kernel where it can, else through a buffer.
fn copy(job: &Job) -> Result<(), CopyError> {
    let (mut s, mut d) = (job.src_off, job.dst_off);
    let end = job.src_off + job.len;
    let fail = |dst_off: u64, error: io::Error| CopyError { dst_off, error };
    while s < end {
        let want = (end - s).min(1 << 30) as usize;
        match rustix::fs::copy_file_range(&*job.src, Some(&mut s), &*job.dst, Some(&mut d), want) {
            Ok(0) => {
                let e = io::Error::new(io::ErrorKind::UnexpectedEof, "copy source is too short");
                return Err(fail(d, e));
            }
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => {}
            // a kernel or file system without it: through this process (a real
            // I/O failure shows up again there, and is reported)
            Err(_) => return copy_through(job, s, d).map_err(|(at, e)| fail(at, e)),
        }
    }
    Ok(())
}

/// The rest of `job` from `s` (writing at `d`), read and written by this process.
fn copy_through(job: &Job, mut s: u64, mut d: u64) -> Result<(), (u64, io::Error)> {
    let end = job.src_off + job.len;
    let mut buf = vec![0u8; (end - s).min(1 << 20) as usize];
    while s < end {
        let n = buf.len().min((end - s) as usize);
        job.src
            .read_exact_at(&mut buf[..n], s)
            .map_err(|e| (d, e))?;
        job.dst.write_all_at(&buf[..n], d).map_err(|e| (d, e))?;
        s += n as u64;
        d += n as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn temp(name: &str, bytes: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        (dir, p)
    }

    #[test]
    fn copies_land_at_their_offsets_in_any_order() {
        let src: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let (_d1, sp) = temp("src", &src);
        let (_d2, dp) = temp("dst", &[]);
        let s = Arc::new(File::open(&sp).unwrap());
        let d = Arc::new(std::fs::OpenOptions::new().write(true).open(&dp).unwrap());
        let mut c = Copier::default();
        // the second half first, then the first, then a drain and one more
        for (so, dof, len) in [(100_000, 100_000, 100_000), (0, 0, 60_000)] {
            let job = Job {
                src: s.clone(),
                src_off: so,
                dst: d.clone(),
                dst_off: dof,
                len,
            };
            c.submit(job).unwrap();
        }
        c.drain().unwrap();
        let job = Job {
            src: s.clone(),
            src_off: 60_000,
            dst: d.clone(),
            dst_off: 60_000,
            len: 40_000,
        };
        c.submit(job).unwrap();
        c.drain().unwrap();
        let mut got = Vec::new();
        File::open(&dp).unwrap().read_to_end(&mut got).unwrap();
        assert_eq!(got, src);
    }

    /// The way without `copy_file_range` (other file systems, old kernels).
    #[test]
    fn copying_through_a_buffer_goes_on_from_where_the_kernel_stopped() {
        let src: Vec<u8> = (0..3_000_000u32).map(|i| (i % 253) as u8).collect();
        let (_d1, sp) = temp("src", &src);
        let (_d2, dp) = temp("dst", &[]);
        let job = Job {
            src: Arc::new(File::open(&sp).unwrap()),
            src_off: 1000,
            dst: Arc::new(std::fs::OpenOptions::new().write(true).open(&dp).unwrap()),
            dst_off: 10,
            len: 2_500_000,
        };
        // as if the kernel had copied the first 300 bytes
        std::fs::write(&dp, [&[0u8; 10][..], &src[1000..1300]].concat()).unwrap();
        copy_through(&job, 1300, 310).unwrap();
        let got = std::fs::read(&dp).unwrap();
        assert_eq!(got.len(), 10 + 2_500_000);
        assert!(got[10..] == src[1000..2_501_000]);
    }

    #[test]
    fn a_short_source_is_reported_with_the_output_offset() {
        let (_d1, sp) = temp("src", &[7u8; 1000]);
        let (_d2, dp) = temp("dst", &[]);
        let s = Arc::new(File::open(&sp).unwrap());
        let d = Arc::new(std::fs::OpenOptions::new().write(true).open(&dp).unwrap());
        let mut c = Copier::default();
        let job = Job {
            src: s,
            src_off: 500,
            dst: d,
            dst_off: 4096,
            len: 1000,
        };
        // reported by the submit or by the drain, whichever comes after the failure
        let e = match c.submit(job) {
            Err(e) => e,
            Ok(()) => c.drain().unwrap_err(),
        };
        assert_eq!(e.dst_off, 4096 + 500);
        assert_eq!(e.error.kind(), io::ErrorKind::UnexpectedEof);
        assert!(
            c.drain().is_ok(),
            "a drain after the report has nothing left"
        );
    }
}
