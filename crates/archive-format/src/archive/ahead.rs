//! Compressed volumes decompressed ahead of a reader, on threads of their own: as
//! many at a time as the job has cores ([`crate::cores::threads`]). The last
//! volume goes first (readers look for the archive's end before anything else),
//! then the others in order. A thread that has decoded one goes on to the next not
//! yet started, so that no core waits for the reader to ask; at most one volume
//! more than there are cores is held decoded and not yet read.

use super::{Archive, Label, Loader, Volume};
use crate::error::Result;
use crate::volume::{Bytes, FileRef};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// The volumes of an archive decompressed ahead of its reader.
pub(super) struct Ahead {
    shared: Arc<Shared>,
}

struct Shared {
    loader: Loader,
    /// Decodes at a time at most.
    threads: usize,
    state: Mutex<State>,
    /// A decode has ended.
    ended: Condvar,
}

struct State {
    /// Each volume's file and number (as its label must say), when it is
    /// compressed; `None` otherwise (it is read where it is).
    files: Vec<Option<(FileRef, i32)>>,
    slots: Vec<Slot>,
    /// Where the reader will go next: decodes start from there.
    from: usize,
    /// A volume to decode before any other: the last, whose end is the
    /// archive's, which readers look for first.
    first: Option<usize>,
    /// The archive is gone: no more decodes start.
    closed: bool,
}

enum Slot {
    /// Not asked for.
    Free,
    Running,
    Done(Loaded),
    /// Handed to the reader, or loaded by it.
    Taken,
}

/// A volume loaded: its bytes and label, or why not.
type Loaded = Result<(Bytes, Label)>;

impl Ahead {
    pub(super) fn new(loader: Loader, volumes: &[Volume]) -> Ahead {
        let threads = if loader.ahead {
            crate::cores::threads()
        } else {
            0
        };
        let mut state = State {
            files: Vec::new(),
            slots: Vec::new(),
            from: 0,
            first: Some(0),
            closed: false,
        };
        state.add(volumes);
        Ahead {
            shared: Arc::new(Shared {
                loader,
                threads,
                state: Mutex::new(state),
                ended: Condvar::new(),
            }),
        }
    }

    /// Volumes added after those there are (a multi-archive context's).
    pub(super) fn extend(&self, volumes: &[Volume]) {
        self.shared.lock().add(volumes);
    }

    /// Starts decompressing the compressed volumes from `from` on (the last
    /// volume first, while none has started; after `from`'s, those before it, for
    /// a reader that looked at the end first and starts again from the
    /// beginning), as many at a time as there are cores beside the `beside`
    /// decodes running elsewhere.
    pub(super) fn start(&self, from: usize, beside: usize) {
        let mut st = self.shared.lock();
        st.from = from;
        while let Some(k) = st.next(self.shared.threads.saturating_sub(beside)) {
            if !spawn(&self.shared, k) {
                st.slots[k] = Slot::Free;
                break;
            }
        }
    }

    /// Volume `k` decompressed ahead (waiting for its decode when it runs); `None`
    /// when it was not, and then it never will be: the caller loads it.
    pub(super) fn take(&self, k: usize) -> Option<Loaded> {
        let mut st = self.shared.lock();
        while matches!(st.slots.get(k)?, Slot::Running) {
            st = self.shared.wait(st);
        }
        match std::mem::replace(&mut st.slots[k], Slot::Taken) {
            Slot::Done(loaded) => Some(loaded),
            _ => None,
        }
    }
}

impl Drop for Ahead {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'g>(&self, g: MutexGuard<'g, State>) -> MutexGuard<'g, State> {
        self.ended.wait(g).unwrap_or_else(|e| e.into_inner())
    }

    /// A decoding thread's work: volume `k`, then the next not started, while
    /// one may start.
    fn decode_from(&self, mut k: usize) {
        loop {
            let file = self.lock().files[k].clone();
            let mut running = Running(self, Some(k));
            let loaded = match file {
                Some((fref, role)) => self.loader.checked(&fref, role, false),
                None => return,
            };
            running.1 = None;
            let mut st = self.lock();
            st.slots[k] = Slot::Done(loaded);
            self.ended.notify_all();
            match st.next(self.threads) {
                Some(j) => k = j,
                None => return,
            }
        }
    }
}

/// A decode running: should it end without its result (the thread unwinds), its
/// volume is left to the reader to load.
struct Running<'s>(&'s Shared, Option<usize>);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        if let Some(k) = self.1 {
            let mut st = self.0.lock();
            st.slots[k] = Slot::Free;
            st.files[k] = None;
            self.0.ended.notify_all();
        }
    }
}

impl State {
    fn add(&mut self, volumes: &[Volume]) {
        for v in volumes {
            let compressed = v.fref.compression.is_some() && v.bytes.get().is_none();
            self.files
                .push(compressed.then(|| (v.fref.clone(), v.file_num as i32)));
            self.slots.push(Slot::Free);
        }
        // (the last of a context's volumes, while none has started)
        if self.first.is_some() {
            self.first = self.slots.len().checked_sub(1);
        }
    }

    /// The next volume to decode, marked running, when `threads` allow one more
    /// decode and as many are not already held: the first compressed one not
    /// started from [`State::from`] on, or else before it.
    fn next(&mut self, threads: usize) -> Option<usize> {
        let running = self.count(|s| matches!(s, Slot::Running));
        let held = self.count(|s| matches!(s, Slot::Done(_)));
        if self.closed || running >= threads || running + held > threads {
            return None;
        }
        let n = self.slots.len();
        let from = self.from.min(n);
        let k = self
            .first
            .take()
            .into_iter()
            .chain(from..n)
            .chain(0..from)
            .find(|&k| matches!(self.slots[k], Slot::Free) && self.files[k].is_some())?;
        self.slots[k] = Slot::Running;
        Some(k)
    }

    /// How many volumes' slots are as `is` asks.
    fn count(&self, is: impl Fn(&Slot) -> bool) -> usize {
        self.slots.iter().filter(|s| is(s)).count()
    }
}

/// A thread decoding volume `k` and those after it; `false` when none could
/// be started.
fn spawn(shared: &Arc<Shared>, k: usize) -> bool {
    let shared = shared.clone();
    std::thread::Builder::new()
        .name("decompress".into())
        .spawn(move || shared.decode_from(k))
        .is_ok()
}

impl Archive {
    /// Starts decompressing the compressed volumes from `i` on, not loaded yet, on
    /// threads of their own (see [`Ahead::start`]).
    pub(super) fn start_prefetch(&self, i: usize) {
        self.ahead.start(i, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::Compression;
    use crate::error::Error;

    /// The state of `n` xz volumes but those in `plain`, the first taken (as the
    /// opening takes it).
    fn state(n: usize, plain: &[usize]) -> State {
        let file = |k: usize| {
            let fref = FileRef {
                path: format!("v.{k}.xz").into(),
                compression: Some(Compression::Xz),
            };
            (!plain.contains(&k)).then_some((fref, k as i32))
        };
        let mut st = State {
            files: (0..n).map(file).collect(),
            slots: (0..n).map(|_| Slot::Free).collect(),
            from: 1,
            first: n.checked_sub(1),
            closed: false,
        };
        st.slots[0] = Slot::Taken;
        st
    }

    /// Volume `k`'s decode ended.
    fn ended(st: &mut State, k: usize) {
        st.slots[k] = Slot::Done(Err(Error::pcp(-1, "a volume")));
    }

    #[test]
    fn the_last_volume_first_then_in_order_as_cores_allow() {
        let mut st = state(6, &[3]);
        assert_eq!(st.next(2), Some(5));
        assert_eq!(st.next(2), Some(1));
        // both cores decoding
        assert_eq!(st.next(2), None);
        ended(&mut st, 5);
        // the plain volume passed over
        assert_eq!(st.next(2), Some(2));
        ended(&mut st, 1);
        // two held and one running: no more until the reader takes one
        assert_eq!(st.next(2), None);
        st.slots[5] = Slot::Taken;
        assert_eq!(st.next(2), Some(4));
        ended(&mut st, 2);
        ended(&mut st, 4);
        st.slots[1] = Slot::Taken;
        st.slots[2] = Slot::Taken;
        st.slots[4] = Slot::Taken;
        // none left
        assert_eq!(st.next(2), None);
        assert_eq!(st.count(|s| matches!(s, Slot::Running)), 0);
    }

    #[test]
    fn a_reader_at_the_end_has_the_volumes_from_the_start() {
        let mut st = state(4, &[]);
        st.first = None;
        st.from = 4;
        assert_eq!(st.next(3), Some(1));
        assert_eq!(st.next(3), Some(2));
        assert_eq!(st.next(3), Some(3));
        // one core: one decode at a time; none once the archive is closed
        let mut st = state(4, &[]);
        assert_eq!(st.next(1), Some(3));
        assert_eq!(st.next(1), None);
        ended(&mut st, 3);
        st.closed = true;
        assert_eq!(st.next(1), None);
        // no core for decoding ahead: nothing starts
        assert_eq!(state(4, &[]).next(0), None);
    }
}
