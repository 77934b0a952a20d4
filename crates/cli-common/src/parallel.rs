//! Work cut into jobs, done on several threads, and used in the order the jobs
//! were made: how the tools format a long run of records on every core and still
//! write it in order. Memory stays bounded: at most `depth` jobs are between being
//! made and being used.
//!
//! There is no thread of its own for making jobs or for using them: whichever
//! thread is free makes the next job (under a lock) and does it, and the calling
//! thread, which also does jobs, uses the outputs in order as they become ready.
//! Threads wait only when `depth` jobs are out, or when the caller has nothing to
//! do but wait for the next output, so a run of thousands of jobs costs few
//! thread switches.

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex, MutexGuard};

pub use archive_format::cores::{threads, THREADS_ENV};

/// Where the jobs come from: the producer and the number of the next job.
struct Source<P> {
    produce: P,
    next: u64,
}

/// What the threads share about the run, under one lock.
struct State<O> {
    /// Outputs done and not yet used, by job number.
    done: BTreeMap<u64, O>,
    /// Jobs whose output has been used.
    consumed: u64,
    /// The number of jobs, once the producer has run out.
    total: Option<u64>,
    /// The consumer stopped the run, or a thread panicked.
    stopped: bool,
    /// Threads waiting on `changed` now: a change is signalled only to them (a
    /// signal costs a system call whether or not anyone waits, and a run makes
    /// two changes a job).
    waiting: u32,
}

struct Shared<P, O> {
    source: Mutex<Source<P>>,
    state: Mutex<State<O>>,
    /// Signalled when an output is done or used, and when the run stops or ends.
    changed: Condvar,
    depth: u64,
}

/// What a thread gets when it asks for work.
enum Take<J> {
    Job(u64, J),
    /// `depth` jobs are out: wait until job number `.0 - depth` has been used.
    Full(u64),
    /// The producer has run out, or the run has stopped.
    End,
}

/// A lock whose holder may have panicked: the data is still sound here (every
/// change is made whole), and a panic stops the run anyway.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<J, O, P: FnMut() -> Option<J>> Shared<P, O> {
    fn take(&self) -> Take<J> {
        let mut src = lock(&self.source);
        {
            let st = lock(&self.state);
            if st.stopped || st.total.is_some() {
                return Take::End;
            }
            if src.next >= st.consumed + self.depth {
                return Take::Full(src.next);
            }
        }
        match (src.produce)() {
            Some(job) => {
                src.next += 1;
                Take::Job(src.next - 1, job)
            }
            None => {
                let mut st = lock(&self.state);
                st.total = Some(src.next);
                self.tell(st);
                Take::End
            }
        }
    }

    /// Waits until job `seq` may be made (or the run stops).
    fn wait_for_room(&self, seq: u64) {
        let mut st = lock(&self.state);
        while !st.stopped && seq >= st.consumed + self.depth {
            st = self.wait(st);
        }
    }

    fn put(&self, seq: u64, out: O) {
        let mut st = lock(&self.state);
        if !st.stopped {
            st.done.insert(seq, out);
        }
        self.tell(st);
    }
}

impl<P, O> Shared<P, O> {
    /// Waits for a change, counted among the waiting.
    fn wait<'s>(&'s self, mut st: MutexGuard<'s, State<O>>) -> MutexGuard<'s, State<O>> {
        st.waiting += 1;
        let mut st = self.changed.wait(st).unwrap_or_else(|e| e.into_inner());
        st.waiting -= 1;
        st
    }

    /// Signals the change just made under `st` to the threads waiting, if any.
    fn tell(&self, st: MutexGuard<'_, State<O>>) {
        let anyone = st.waiting > 0;
        drop(st);
        if anyone {
            self.changed.notify_all();
        }
    }
}

/// Stops the run when dropped: always at the end of the caller's part (`.1`), and
/// when any thread unwinds, so that no thread is left waiting.
struct StopOnDrop<'a, P, O>(&'a Shared<P, O>, bool);

impl<P, O> Drop for StopOnDrop<'_, P, O> {
    fn drop(&mut self) {
        if self.1 || std::thread::panicking() {
            lock(&self.0.state).stopped = true;
            self.0.changed.notify_all();
        }
    }
}

/// Runs `produce` and `work` on `threads` threads (the calling thread one of them;
/// each has its own state, made by `init`) and `consume` on the calling thread, which gets
/// every job's output in the order the jobs were made. `produce` returning `None`
/// ends the jobs; `consume` returning `false` stops the whole run (no job is made
/// or used after it). At most `depth` jobs (at least 1) are made and not yet used.
/// A panic in any of them stops the run and reaches the caller.
pub fn ordered<J, O, S>(
    threads: usize,
    depth: usize,
    init: impl Fn() -> S + Sync,
    produce: impl FnMut() -> Option<J> + Send,
    work: impl Fn(&mut S, J) -> O + Sync,
    mut consume: impl FnMut(O) -> bool,
) where
    J: Send,
    O: Send,
{
    let shared = Shared {
        source: Mutex::new(Source { produce, next: 0 }),
        state: Mutex::new(State {
            done: BTreeMap::new(),
            consumed: 0,
            total: None,
            stopped: false,
            waiting: 0,
        }),
        changed: Condvar::new(),
        depth: depth.max(1) as u64,
    };
    let (shared, work, init) = (&shared, &work, &init);
    std::thread::scope(|s| {
        for _ in 1..threads.max(1) {
            s.spawn(move || {
                let _stop = StopOnDrop(shared, false);
                let mut state = init();
                loop {
                    match shared.take() {
                        Take::Job(seq, job) => shared.put(seq, work(&mut state, job)),
                        Take::Full(seq) => shared.wait_for_room(seq),
                        Take::End => break,
                    }
                }
            });
        }
        let _stop = StopOnDrop(shared, true);
        let mut state = init();
        loop {
            // use what is ready, in order
            let mut st = lock(&shared.state);
            if st.stopped || st.total == Some(st.consumed) {
                break;
            }
            let next = st.consumed;
            if let Some(out) = st.done.remove(&next) {
                st.consumed += 1;
                shared.tell(st);
                if !consume(out) {
                    break;
                }
                continue;
            }
            drop(st);
            // else do a job, or wait for the next output
            match shared.take() {
                Take::Job(seq, job) => {
                    let out = work(&mut state, job);
                    if seq == next {
                        // nobody else can use it: straight out
                        let mut st = lock(&shared.state);
                        st.consumed += 1;
                        shared.tell(st);
                        if !consume(out) {
                            break;
                        }
                    } else {
                        shared.put(seq, out);
                    }
                }
                Take::Full(_) | Take::End => {
                    let mut st = lock(&shared.state);
                    while !st.stopped
                        && st.total != Some(st.consumed)
                        && !st.done.contains_key(&st.consumed)
                    {
                        st = shared.wait(st);
                    }
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Jobs of uneven cost come out in the order they were made, on any number
    /// of workers and depth.
    #[test]
    fn outputs_are_consumed_in_job_order() {
        for (workers, depth) in [(1, 1), (2, 1), (3, 2), (4, 16)] {
            let mut got = Vec::new();
            ordered(
                workers,
                depth,
                || 0u64,
                {
                    let mut k = 0u64..200;
                    move || k.next()
                },
                |calls: &mut u64, k| {
                    *calls += 1;
                    // uneven work, so later jobs often finish first
                    let spin = (k * 7919) % 50_000;
                    let mut x = k;
                    for i in 0..spin {
                        x = x.wrapping_mul(31).wrapping_add(i);
                    }
                    std::hint::black_box(x);
                    k * k
                },
                |out| {
                    got.push(out);
                    true
                },
            );
            let want: Vec<u64> = (0..200).map(|k| k * k).collect();
            assert_eq!(got, want, "workers {workers}, depth {depth}");
        }
    }

    /// A consumer that stops ends the run: no more jobs are made (at most `depth`
    /// past the stop) and nothing after the stop is consumed.
    #[test]
    fn a_consumer_that_stops_stops_the_producer() {
        let mut got = Vec::new();
        let mut refused = false;
        let made = std::sync::atomic::AtomicU32::new(0);
        ordered(
            2,
            3,
            || (),
            || {
                let k = made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                assert!(k < 1_000_000, "the producer was never told to stop");
                Some(k)
            },
            |_: &mut (), k| k,
            |k| {
                got.push(k);
                refused = k == 10;
                k < 10
            },
        );
        assert!(refused);
        assert_eq!(got, (0..=10).collect::<Vec<_>>());
        assert!(made.into_inner() <= 11 + 3);
    }

    /// A worker that panics does not leave the consumer waiting: the run ends and
    /// the panic comes back to the caller.
    #[test]
    fn a_worker_panic_reaches_the_caller() {
        let r = std::panic::catch_unwind(|| {
            ordered(
                2,
                2,
                || (),
                {
                    let mut k = 0u32..100;
                    move || k.next()
                },
                |_: &mut (), k: u32| {
                    assert!(k != 5, "job 5 fails");
                    k
                },
                |_| true,
            )
        });
        assert!(r.is_err());
    }

    /// A panic in the producer or in the consumer leaves no thread waiting either.
    #[test]
    fn a_producer_or_consumer_panic_reaches_the_caller() {
        for threads in [1, 2, 4] {
            let r = std::panic::catch_unwind(|| {
                let mut k = 0u32;
                ordered(
                    threads,
                    2,
                    || (),
                    move || {
                        k += 1;
                        assert!(k != 50, "the producer fails");
                        Some(k)
                    },
                    |_: &mut (), k: u32| k,
                    |_| true,
                )
            });
            assert!(r.is_err(), "producer, {threads} threads");
            let r = std::panic::catch_unwind(|| {
                ordered(
                    threads,
                    2,
                    || (),
                    {
                        let mut k = 0u32..100;
                        move || k.next()
                    },
                    |_: &mut (), k: u32| k,
                    |k| {
                        assert!(k != 7, "the consumer fails");
                        true
                    },
                )
            });
            assert!(r.is_err(), "consumer, {threads} threads");
        }
    }

    #[test]
    fn the_thread_count_follows_the_environment() {
        // only this test sets the variable in this process's test binary
        std::env::set_var(THREADS_ENV, "3");
        assert_eq!(threads(), 3);
        std::env::set_var(THREADS_ENV, "0");
        assert!(threads() >= 1);
        std::env::remove_var(THREADS_ENV);
        assert!(threads() >= 1);
    }
}
