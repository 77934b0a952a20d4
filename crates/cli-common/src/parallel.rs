//! Work cut into jobs by one thread, done on several, and used in the order the
//! jobs were made: how the tools format a long run of records on every core and
//! still write it in order. Memory stays bounded: at most `depth` jobs are between
//! being made and being used.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::Mutex;

/// The environment variable that sets how many threads the tools use for one job
/// (at least 1); without it, the machine's available parallelism.
pub const THREADS_ENV: &str = "PCPRS_THREADS";

/// How many threads a tool uses for one job: [`THREADS_ENV`] when it holds a
/// positive number, else what the system says is available (1 if it cannot say).
pub fn threads() -> usize {
    std::env::var(THREADS_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// What the producer sends jobs through.
pub struct Jobs<'s, J> {
    next: u64,
    jobs: SyncSender<(u64, J)>,
    permits: SyncSender<()>,
    stopped: &'s AtomicBool,
}

impl<J> Jobs<'_, J> {
    /// Hands a job to the workers, waiting while `depth` jobs are in flight.
    /// `false` once the consumer has stopped: the producer should stop too.
    pub fn send(&mut self, job: J) -> bool {
        if self.stopped.load(Ordering::Relaxed) || self.permits.send(()).is_err() {
            return false;
        }
        let seq = self.next;
        self.next += 1;
        self.jobs.send((seq, job)).is_ok()
    }

    /// Whether the consumer has stopped.
    pub fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }
}

enum Msg<O> {
    Done(u64, O),
    /// A worker panicked: the consumer stops waiting (the panic is raised again
    /// when the threads are joined).
    Panicked,
}

/// Sends [`Msg::Panicked`] if the worker unwinds.
struct PanicGuard<'a, O>(&'a mpsc::Sender<Msg<O>>);

impl<O> Drop for PanicGuard<'_, O> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let _ = self.0.send(Msg::Panicked);
        }
    }
}

/// Runs `produce` on a thread of its own, `work` on `workers` threads (each with
/// its own state `S`), and `consume` on the calling thread, which gets every job's
/// output in the order the jobs were sent. `consume` returning `false` stops the
/// whole run (the producer's next send says so). At most `depth` jobs (at least
/// 1) are sent and not yet consumed.
pub fn ordered<J, O, S>(
    workers: usize,
    depth: usize,
    produce: impl FnOnce(&mut Jobs<'_, J>) + Send,
    work: impl Fn(&mut S, J) -> O + Sync,
    mut consume: impl FnMut(O) -> bool,
) where
    J: Send,
    O: Send,
    S: Default,
{
    let depth = depth.max(1);
    let stopped = AtomicBool::new(false);
    let (job_tx, job_rx) = mpsc::sync_channel::<(u64, J)>(depth);
    let (permit_tx, permit_rx) = mpsc::sync_channel::<()>(depth);
    let (done_tx, done_rx) = mpsc::channel::<Msg<O>>();
    let job_rx = Mutex::new(job_rx);
    std::thread::scope(|s| {
        let stopped = &stopped;
        s.spawn(move || {
            let mut jobs = Jobs {
                next: 0,
                jobs: job_tx,
                permits: permit_tx,
                stopped,
            };
            produce(&mut jobs);
        });
        for _ in 0..workers.max(1) {
            let (job_rx, done_tx, work) = (&job_rx, done_tx.clone(), &work);
            s.spawn(move || {
                let _guard = PanicGuard(&done_tx);
                let mut state = S::default();
                loop {
                    // the lock is held only while taking a job
                    let next = job_rx.lock().map(|rx| rx.recv());
                    let Ok(Ok((seq, job))) = next else {
                        return;
                    };
                    if stopped.load(Ordering::Relaxed) {
                        return;
                    }
                    if done_tx.send(Msg::Done(seq, work(&mut state, job))).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done_tx);
        consume_in_order(&done_rx, &permit_rx, stopped, &mut consume);
        // unblock and end the others: no more permits or outputs are taken
        stopped.store(true, Ordering::Relaxed);
        drop(permit_rx);
        drop(done_rx);
    });
}

fn consume_in_order<O>(
    done: &Receiver<Msg<O>>,
    permits: &Receiver<()>,
    stopped: &AtomicBool,
    consume: &mut impl FnMut(O) -> bool,
) {
    let mut waiting = BTreeMap::new();
    let mut next = 0u64;
    while let Ok(msg) = done.recv() {
        let Msg::Done(seq, out) = msg else {
            return;
        };
        waiting.insert(seq, out);
        while let Some(out) = waiting.remove(&next) {
            next += 1;
            let _ = permits.recv();
            if !consume(out) {
                stopped.store(true, Ordering::Relaxed);
                return;
            }
        }
    }
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
                |jobs: &mut Jobs<'_, u64>| {
                    for k in 0..200u64 {
                        assert!(jobs.send(k));
                    }
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

    /// A consumer that stops ends the run: the producer's sends fail and nothing
    /// after the stop is consumed.
    #[test]
    fn a_consumer_that_stops_stops_the_producer() {
        let mut got = Vec::new();
        let mut refused = false;
        ordered(
            2,
            3,
            |jobs: &mut Jobs<'_, u32>| {
                for k in 0..1_000_000u32 {
                    if !jobs.send(k) {
                        return;
                    }
                }
                panic!("the producer was never told to stop");
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
    }

    /// A worker that panics does not leave the consumer waiting: the run ends and
    /// the panic comes back to the caller.
    #[test]
    fn a_worker_panic_reaches_the_caller() {
        let r = std::panic::catch_unwind(|| {
            ordered(
                2,
                2,
                |jobs: &mut Jobs<'_, u32>| {
                    for k in 0..100 {
                        if !jobs.send(k) {
                            return;
                        }
                    }
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
