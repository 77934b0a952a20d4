//! The memory of a run, shared between the archives exported at once.
//!
//! An archive being exported holds its metadata (descriptors, names and help
//! text, and one set of each instance domain when they are read as a stream;
//! every set when they are not), fixed buffers (the decoders of compressed
//! volumes, the pages of the column chunks being encoded, the names of the
//! instances in hand) and the values held until a row group is written, which
//! is what it is granted. A job whose archive does not fit beside those being
//! exported waits until it does, and so does one that would get less than
//! [`GOOD`] of what it asks (shorter row groups compress worse: 20180416.10.00
//! takes 3.1 MB at 24 MB, 4.4 MB at 8 MB); an archive alone always runs, with
//! the smallest grant if it must.

use std::sync::{Condvar, Mutex, MutexGuard};

/// What a run may hold at most by default, for each archive exported at once
/// (`-j`): one archive of the corpus's largest takes about 60 MB, so a share
/// of less would have the jobs wait for each other.
pub const LIMIT: usize = 96 << 20;
/// The values held for row groups, at most and at least, per archive.
pub const MOST: usize = 24 << 20;
pub const LEAST: usize = 2 << 20;
/// Beside other archives, an archive waits rather than hold fewer values than
/// this (or than it asks, when it asks less).
pub const GOOD: usize = 12 << 20;

/// The values an archive asks to hold: 20 bytes a value (16 for the value, 4
/// for its place in the order of writing), as many values as its data volumes
/// have room for (8 bytes a value at least; a compressed volume counted at ten
/// times its size), between [`LEAST`] and [`MOST`].
pub fn wanted(volume_bytes: u64, compressed_bytes: u64) -> usize {
    let data = volume_bytes.saturating_add(compressed_bytes.saturating_mul(10));
    usize::try_from(data.saturating_mul(5) / 2)
        .unwrap_or(usize::MAX)
        .clamp(LEAST, MOST)
}

/// Memory an archive needs besides its values: fixed buffers, and its metadata
/// as the library holds it (measured: 37 MB and 1.4 times the values' budget on
/// 20180416.10.00, whose xz volumes take two 8 MB decoders).
pub fn base(meta_bytes: u64) -> usize {
    const FIXED: usize = 34 << 20;
    FIXED.saturating_add(
        usize::try_from(meta_bytes)
            .unwrap_or(usize::MAX)
            .saturating_mul(10),
    )
}

/// The cost of holding `budget` bytes of values: while a row group is encoded
/// its pages and dictionaries take about half as much again.
fn cost(base: usize, budget: usize) -> usize {
    base.saturating_add(budget + budget / 2)
}

/// The memory of a run.
pub struct Memory {
    limit: usize,
    jobs: usize,
    used: Mutex<(usize, usize)>,
    freed: Condvar,
    opening: Mutex<()>,
}

/// Memory granted to one archive, given back when dropped.
pub struct Grant<'a> {
    m: &'a Memory,
    bytes: usize,
    /// Bytes of values the archive may hold until it writes a row group.
    pub budget: usize,
}

impl Memory {
    /// A run of `jobs` threads that may hold `limit` bytes (0: [`LIMIT`] a job).
    pub fn new(limit: usize, jobs: usize) -> Memory {
        Memory {
            limit: if limit == 0 {
                LIMIT.saturating_mul(jobs.max(1))
            } else {
                limit
            },
            jobs: jobs.max(1),
            used: Mutex::new((0, 0)),
            freed: Condvar::new(),
            opening: Mutex::new(()),
        }
    }

    /// Held while an archive is opened and granted its memory, so that no two
    /// archives wait with their metadata loaded.
    pub fn opening(&self) -> MutexGuard<'_, ()> {
        self.opening.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether archives are being exported.
    pub fn busy(&self) -> bool {
        self.lock().1 > 0
    }

    fn lock(&self) -> MutexGuard<'_, (usize, usize)> {
        self.used.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The grant for an archive of `meta_bytes` that asks to hold `want`
    /// bytes of values (see [`wanted`]) if it fits now beside the archives
    /// being exported (always, when there are none).
    pub fn try_grant(&self, meta_bytes: u64, want: usize) -> Option<Grant<'_>> {
        let mut used = self.lock();
        self.fit(&mut used, base(meta_bytes), want)
    }

    /// The grant for an archive of `meta_bytes` that asks for `want`, once it
    /// fits.
    pub fn grant(&self, meta_bytes: u64, want: usize) -> Grant<'_> {
        let base = base(meta_bytes);
        let mut used = self.lock();
        loop {
            if let Some(g) = self.fit(&mut used, base, want) {
                return g;
            }
            used = self.freed.wait(used).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn fit(&self, used: &mut (usize, usize), base: usize, want: usize) -> Option<Grant<'_>> {
        let (bytes, running) = *used;
        let want = want.clamp(LEAST, MOST);
        // the budget whose cost fits in what is free, and in a job's share
        // where the share is a good one (so that one job leaves room for the
        // others)
        let free = self.limit.saturating_sub(bytes).saturating_sub(base) / 3 * 2;
        let share = (self.limit / self.jobs).saturating_sub(base) / 3 * 2;
        let budget = if share >= GOOD.min(want) {
            share.min(free)
        } else {
            free
        }
        .min(want);
        let budget = if running == 0 {
            budget.max(LEAST)
        } else if budget >= GOOD.min(want) {
            budget
        } else {
            return None;
        };
        let c = cost(base, budget);
        *used = (bytes.saturating_add(c), running + 1);
        Some(Grant {
            m: self,
            bytes: c,
            budget,
        })
    }
}

impl Drop for Grant<'_> {
    fn drop(&mut self) {
        give_back();
        let mut used = self.m.lock();
        *used = (used.0.saturating_sub(self.bytes), used.1.saturating_sub(1));
        self.m.freed.notify_all();
    }
}

pub use sys::{configure_allocator, give_back, huge_pages};

/// What the export asks of glibc and Linux (libc is a dependency there only).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod sys {
    /// Returns the memory freed by an archive's export to the system: glibc keeps
    /// what a thread freed for that thread, where the next archive, on another
    /// thread, does not find it. Also after instance names are forgotten: their many
    /// small blocks would leave the heap in pieces the next names do not fill.
    #[allow(unsafe_code)]
    pub fn give_back() {
        // SAFETY: malloc_trim only releases free memory of the allocator's own
        // arenas (taking their locks); it touches no memory the program holds.
        unsafe {
            libc::malloc_trim(0);
        }
    }

    /// Sets the allocator up for a run (a program's first step): allocations of a
    /// megabyte or more get their own mappings, unmapped when freed. Otherwise glibc
    /// raises that threshold as large blocks are freed, and the column pages and
    /// row buffers of one archive stay in its thread's heap while the next archive
    /// fills another thread's (85 MB instead of 118 MB for two of the corpus's
    /// largest archives one after the other).
    #[allow(unsafe_code)]
    pub fn configure_allocator() {
        // SAFETY: mallopt changes a tuning parameter of glibc's allocator; it is
        // called before the run's threads start.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
        }
    }

    /// Asks that the memory of `v` (all it has room for) be backed by huge pages
    /// where the system allows them: a values buffer is filled once and then read
    /// in an order of its own, and 4 KB pages would each be faulted in, and miss in
    /// the TLB as the cells are scattered to their series.
    #[allow(unsafe_code)]
    pub fn huge_pages<T>(v: &Vec<T>) {
        const PAGE: usize = 4096;
        let start = v.as_ptr() as usize;
        let end = start + v.capacity() * size_of::<T>();
        let (a, b) = (start.next_multiple_of(PAGE), end & !(PAGE - 1));
        if b > a {
            // SAFETY: the range lies within the vector's allocation; the advice
            // changes how its pages are backed, not what they hold.
            unsafe {
                libc::madvise(a as *mut libc::c_void, b - a, libc::MADV_HUGEPAGE);
            }
        }
    }
}

/// Elsewhere the allocator and the pages are left as they are.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
mod sys {
    pub fn give_back() {}
    pub fn configure_allocator() {}
    pub fn huge_pages<T>(_: &Vec<T>) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archive_alone_always_runs() {
        let m = Memory::new(1 << 20, 2);
        let g = m.try_grant(1 << 30, MOST).expect("alone");
        assert_eq!(g.budget, LEAST);
        assert!(m.try_grant(0, LEAST).is_none(), "nothing is left beside it");
        drop(g);
        assert!(m.try_grant(0, LEAST).is_some(), "its memory came back");
    }

    #[test]
    fn grants_stay_within_the_limit() {
        let m = Memory::new(LIMIT, 4);
        let mut held = Vec::new();
        while let Some(g) = m.try_grant(0, LEAST) {
            held.push(g);
        }
        assert!(held.len() >= 2, "small archives run side by side");
        let total: usize = held.iter().map(|g| g.bytes).sum();
        assert!(total <= LIMIT, "{total} > {LIMIT}");
        assert!(
            held.iter().all(|g| g.budget == LEAST),
            "each gets what it asks"
        );
        drop(held);
        // large ones: the first takes what it asks, the next waits rather than
        // take less than a good budget
        let first = m.try_grant(0, MOST).expect("alone");
        assert_eq!(first.budget, MOST);
        assert!(m.try_grant(0, MOST).is_none());
        drop(first);
        assert!(m.try_grant(0, MOST).is_some(), "its memory came back");
    }

    #[test]
    fn by_default_each_job_exports_an_archive_as_large_as_the_corpus_largest() {
        // 20201109's files: a 787 KB xz volume, a .meta of 400 KB
        let want = wanted(0, 787 << 10);
        for jobs in 1..=4 {
            let m = Memory::new(0, jobs);
            let held: Vec<_> = (0..jobs)
                .map_while(|_| m.try_grant(400 << 10, want))
                .collect();
            assert_eq!(held.len(), jobs, "{jobs} jobs");
            assert!(
                held.iter().all(|g| g.budget == want),
                "each gets what it asks"
            );
            let total: usize = held.iter().map(|g| g.bytes).sum();
            assert!(total <= LIMIT * jobs, "{total} bytes for {jobs} jobs");
        }
    }

    #[test]
    fn a_waiting_archive_runs_when_memory_comes_back() {
        let m = Memory::new(LIMIT, 2);
        let big = m.try_grant(6 << 20, MOST).expect("alone");
        std::thread::scope(|s| {
            let t = s.spawn(|| m.grant(6 << 20, MOST).budget);
            drop(big);
            assert!(t.join().expect("no panic") >= LEAST);
        });
    }
}
