//! When each instance of an instance domain is in it, by time: what interpolation
//! needs of a domain's history (libpcp's "time calipers") without its names or
//! its sets.
//!
//! An instance is *born* at the first set that holds it and *dies* at the set
//! after the last one that holds it (never, when the newest set holds it). A
//! domain whose sets ever hold 16 instances or more is *calipered*: libpcp's
//! interpolation only looks for an instance's values while it lives (between its
//! birth and its death, gaps included). Births are kept by set, in time order,
//! each with its death, so a replay moving forward meets them as it goes and
//! holds only the instances alive.
//!
//! A domain with few arrivals and departures keeps its lives in memory (12
//! bytes an instance). One with more (a process table over days) sorts them in
//! runs of [`RUN`] events and keeps the result in an unlinked temporary file: the
//! members, the births by set, and each set's time and first birth. Memory then
//! holds one instance in [`BLOCK`] and the sets near those last asked for,
//! whatever the number of instances or sets.
//!
//! [`LivesBuilder`] takes the sets in time order, from the metadata held whole or
//! from an instance-domain stream.

use crate::error::Error;
use crate::types::{InDom, Timestamp};
use crate::Result;
use foldhash::{HashMap, HashMapExt, HashSet};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Mutex;

/// A domain is calipered when one of its sets holds this many instances.
pub const CALIPER_THRESHOLD: usize = 16;

/// Arrivals and departures a domain holds in memory before they are sorted
/// and written out as a run (4 MB).
pub const RUN: usize = 1 << 19;

/// Members a file-backed domain reads at once to tell whether an instance is
/// one (one in each such block is held in memory).
pub const BLOCK: usize = 1024;

/// The instances born at each set, with the set each dies at: set `k`'s are
/// `insts[starts[k]..starts[k + 1]]`.
#[derive(Debug, Clone, Default, PartialEq)]
struct Births {
    starts: Vec<u32>,
    insts: Vec<i32>,
    /// The set each dies at (parallel to `insts`; [`NEVER`]: none).
    deaths: Vec<u32>,
}

/// No death: the newest set holds the instance.
const NEVER: u32 = u32::MAX;

/// Lives kept in a temporary file, little-endian: the members (`i32`, sorted);
/// each birth (`i32` instance, `u32` death set), by set; then one [`SET`]-byte
/// entry a set (its time's seconds `i64` and nanoseconds `u32`, 4 bytes unused,
/// and its first birth `u64`) and one more holding the number of births.
#[derive(Debug)]
struct OnDisk {
    file: File,
    members: u64,
    /// Every [`BLOCK`]th member.
    sparse: Vec<i32>,
    sets: usize,
    /// The blocks of set entries last read (the sweep's and those holding
    /// deaths soon after it), each with its first set, newest last.
    near: Mutex<Vec<SetBlock>>,
}

/// Set entries read together: the first set's number, and each set's time and
/// first birth.
type SetBlock = (usize, Vec<(Timestamp, u64)>);

/// Bytes of a set's entry in a file-backed domain.
const SET: usize = 24;
/// Set entries read at once, and how many such blocks are kept.
const SETS_READ: usize = 256;
const SETS_KEPT: usize = 8;

impl OnDisk {
    fn table_at(&self) -> u64 {
        self.members * 12
    }

    /// Set `k`'s time and first birth (`k` up to the number of sets: the last
    /// holds the number of births).
    fn set(&self, k: usize) -> Result<Option<(Timestamp, u64)>> {
        if k > self.sets {
            return Ok(None);
        }
        let lo = k - k % SETS_READ;
        let mut near = self.near.lock().unwrap_or_else(|e| e.into_inner());
        let held = match near.iter().position(|(first, _)| *first == lo) {
            Some(i) => near.remove(i),
            None => {
                let hi = (lo + SETS_READ).min(self.sets + 1);
                let at = self.table_at() + (lo * SET) as u64;
                let b = read_exact_at(&self.file, at, (hi - lo) * SET)?;
                let entries = b
                    .chunks_exact(SET)
                    .map(|e| {
                        let sec = u64::get(&e[..8]) as i64;
                        let t = Timestamp::new(sec, u32::get(&e[8..12]));
                        (t, u64::get(&e[16..]))
                    })
                    .collect();
                if near.len() >= SETS_KEPT {
                    near.remove(0);
                }
                (lo, entries)
            }
        };
        let e = held.1.get(k - lo).copied();
        near.push(held);
        Ok(e)
    }
}

#[derive(Debug)]
enum Store {
    Memory {
        times: Vec<Timestamp>,
        /// Every instance the domain ever holds, sorted.
        members: Vec<i32>,
        births: Births,
    },
    Disk(OnDisk),
}

impl Default for Store {
    fn default() -> Store {
        Store::Memory {
            times: Vec::new(),
            members: Vec::new(),
            births: Births::default(),
        }
    }
}

/// The lives of one instance domain's instances.
#[derive(Debug, Default)]
pub struct Lives {
    calipered: bool,
    store: Store,
}

fn temp_err(e: &io::Error) -> Error {
    Error::io(Path::new("temporary file"), e)
}

/// Reads `len` bytes at `at` of a temporary file.
fn read_exact_at(file: &File, at: u64, len: usize) -> Result<Vec<u8>> {
    let mut buf = vec![0u8; len];
    file.read_exact_at(&mut buf, at)
        .map_err(|e| temp_err(&e).at(Path::new("temporary file"), Some(at)))?;
    Ok(buf)
}

fn words(b: &[u8]) -> impl Iterator<Item = u32> + '_ {
    b.chunks_exact(4).map(u32::get)
}

impl Lives {
    /// How many sets the domain has.
    pub fn sets(&self) -> usize {
        match &self.store {
            Store::Memory { times, .. } => times.len(),
            Store::Disk(d) => d.sets,
        }
    }

    /// The time of set `k` (sets in time order, oldest first).
    pub fn time(&self, k: usize) -> Result<Option<Timestamp>> {
        match &self.store {
            Store::Memory { times, .. } => Ok(times.get(k).copied()),
            Store::Disk(d) if k < d.sets => Ok(d.set(k)?.map(|(t, _)| t)),
            Store::Disk(_) => Ok(None),
        }
    }

    /// Whether some set holds [`CALIPER_THRESHOLD`] instances or more.
    pub fn calipered(&self) -> bool {
        self.calipered
    }

    /// Whether the lives are in a temporary file rather than in memory.
    pub fn on_disk(&self) -> bool {
        matches!(self.store, Store::Disk(_))
    }

    /// Every instance of every set, sorted.
    pub fn members(&self) -> Result<Vec<i32>> {
        match &self.store {
            Store::Memory { members, .. } => Ok(members.clone()),
            Store::Disk(d) => {
                let b = read_exact_at(&d.file, 0, d.members as usize * 4)?;
                Ok(words(&b).map(|w| w as i32).collect())
            }
        }
    }

    pub fn is_member(&self, inst: i32) -> Result<bool> {
        match &self.store {
            Store::Memory { members, .. } => Ok(members.binary_search(&inst).is_ok()),
            Store::Disk(d) => {
                let block = d.sparse.partition_point(|&s| s <= inst);
                if block == 0 {
                    return Ok(false);
                }
                let lo = (block - 1) * BLOCK;
                let hi = (lo + BLOCK).min(d.members as usize);
                let b = read_exact_at(&d.file, lo as u64 * 4, (hi - lo) * 4)?;
                let found = words(&b).any(|w| w as i32 == inst);
                Ok(found)
            }
        }
    }

    /// The instances first held by set `k`, each with the set it dies at (the
    /// first not to hold it, none later holding it; `None`: never).
    pub fn born_at(&self, k: usize) -> Result<Vec<(i32, Option<usize>)>> {
        let life = |i: u32, d: u32| (i as i32, (d != NEVER).then_some(d as usize));
        match &self.store {
            Store::Memory { births: b, .. } => {
                let range = match (b.starts.get(k), b.starts.get(k + 1)) {
                    (Some(&lo), Some(&hi)) => lo as usize..hi as usize,
                    _ => 0..0,
                };
                let insts = b.insts.get(range.clone()).unwrap_or(&[]);
                let deaths = b.deaths.get(range).unwrap_or(&[]);
                Ok(insts
                    .iter()
                    .zip(deaths)
                    .map(|(&i, &d)| life(i as u32, d))
                    .collect())
            }
            Store::Disk(d) => {
                if k >= d.sets {
                    return Ok(Vec::new());
                }
                let (Some((_, lo)), Some((_, hi))) = (d.set(k)?, d.set(k + 1)?) else {
                    return Ok(Vec::new());
                };
                let at = d.members * 4 + lo * 8;
                let b = read_exact_at(&d.file, at, (hi - lo) as usize * 8)?;
                let w: Vec<u32> = words(&b).collect();
                Ok(w.chunks_exact(2).map(|p| life(p[0], p[1])).collect())
            }
        }
    }

    /// Bytes held in memory.
    pub fn bytes(&self) -> usize {
        match &self.store {
            Store::Memory {
                times,
                members,
                births,
            } => {
                times.capacity() * std::mem::size_of::<Timestamp>()
                    + 4 * (members.capacity()
                        + births.starts.capacity()
                        + births.insts.capacity()
                        + births.deaths.capacity())
            }
            Store::Disk(d) => {
                let near = d
                    .near
                    .lock()
                    .map_or(0, |n| n.iter().map(|b| b.1.capacity()).sum());
                4 * d.sparse.capacity() + near * std::mem::size_of::<(Timestamp, u64)>()
            }
        }
    }
}

/// A record of fixed width that runs are sorted by.
trait Rec: Copy + Ord {
    const WIDTH: usize;
    fn put(self, out: &mut Vec<u8>);
    fn get(b: &[u8]) -> Self;
}

/// An unsigned integer as a record, little-endian.
macro_rules! int_rec {
    ($($t:ty),*) => {$(
        impl Rec for $t {
            const WIDTH: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(b: &[u8]) -> $t {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..Self::WIDTH]);
                <$t>::from_le_bytes(a)
            }
        }
    )*};
}

int_rec!(u32, u64, u128);

/// Records gathered in memory and, past `run` of them, written to a temporary
/// file as sorted runs; [`Spill::sorted`] gives them all in order.
struct Spill<R: Rec> {
    run: usize,
    buf: Vec<R>,
    file: Option<File>,
    /// Where each run ends in the file.
    ends: Vec<u64>,
}

impl<R: Rec> Spill<R> {
    fn new(run: usize) -> Spill<R> {
        Spill {
            run: run.max(1),
            buf: Vec::new(),
            file: None,
            ends: Vec::new(),
        }
    }

    fn spilled(&self) -> bool {
        self.file.is_some()
    }

    fn push(&mut self, r: R) -> io::Result<()> {
        self.buf.push(r);
        if self.buf.len() >= self.run {
            self.flush()?;
        }
        Ok(())
    }

    /// Sorts what is held and appends it to the file as a run.
    fn flush(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        self.buf.sort_unstable();
        let file = match &mut self.file {
            Some(f) => f,
            None => self.file.insert(tempfile::tempfile()?),
        };
        let mut at = self.ends.last().copied().unwrap_or(0);
        let mut bytes = Vec::with_capacity(CHUNK);
        for chunk in self.buf.chunks(CHUNK / R::WIDTH) {
            bytes.clear();
            for &r in chunk {
                r.put(&mut bytes);
            }
            file.write_all_at(&bytes, at)?;
            at += bytes.len() as u64;
        }
        self.ends.push(at);
        self.buf.clear();
        Ok(())
    }

    /// Every record, in order: what memory holds, sorted, when nothing was
    /// written out, else a merge of the runs.
    fn sorted(mut self) -> io::Result<Sorted<R>> {
        if self.file.is_none() {
            self.buf.sort_unstable();
            return Ok(Sorted::Memory(self.buf.into_iter()));
        }
        self.flush()?;
        let Some(file) = self.file else {
            return Ok(Sorted::Memory(Vec::new().into_iter()));
        };
        let mut runs = Vec::with_capacity(self.ends.len());
        let mut heap = BinaryHeap::with_capacity(self.ends.len());
        let mut begin = 0;
        for (k, &end) in self.ends.iter().enumerate() {
            let mut r = Run {
                at: begin,
                end,
                buf: Vec::new(),
                off: 0,
            };
            if let Some(first) = r.next(&file)? {
                heap.push(Reverse((first, k)));
            }
            runs.push(r);
            begin = end;
        }
        Ok(Sorted::Merge { file, runs, heap })
    }
}

/// Bytes read or written at once.
const CHUNK: usize = 1 << 16;

/// A run being read back.
struct Run {
    at: u64,
    end: u64,
    buf: Vec<u8>,
    off: usize,
}

impl Run {
    fn next<R: Rec>(&mut self, file: &File) -> io::Result<Option<R>> {
        if self.off + R::WIDTH > self.buf.len() {
            let left = self.end.saturating_sub(self.at);
            if left == 0 {
                return Ok(None);
            }
            let len = left.min((CHUNK / R::WIDTH * R::WIDTH) as u64) as usize;
            self.buf.resize(len, 0);
            file.read_exact_at(&mut self.buf, self.at)?;
            self.at += len as u64;
            self.off = 0;
        }
        let Some(bytes) = self.buf.get(self.off..self.off + R::WIDTH) else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("a run ends inside a record at byte {}", self.at),
            ));
        };
        let r = R::get(bytes);
        self.off += R::WIDTH;
        Ok(Some(r))
    }
}

enum Sorted<R: Rec> {
    Memory(std::vec::IntoIter<R>),
    Merge {
        file: File,
        runs: Vec<Run>,
        heap: BinaryHeap<Reverse<(R, usize)>>,
    },
}

impl<R: Rec> Sorted<R> {
    fn next(&mut self) -> io::Result<Option<R>> {
        match self {
            Sorted::Memory(it) => Ok(it.next()),
            Sorted::Merge { file, runs, heap } => {
                let Some(Reverse((r, k))) = heap.pop() else {
                    return Ok(None);
                };
                if let Some(run) = runs.get_mut(k) {
                    if let Some(n) = run.next(file)? {
                        heap.push(Reverse((n, k)));
                    }
                }
                Ok(Some(r))
            }
        }
    }
}

/// One domain's sets so far.
struct Building {
    sets: usize,
    /// The sets' times (as [`time_key`]), in memory until there are `run`.
    times: Spill<u128>,
    prev: HashSet<i32>,
    largest: usize,
    /// Every arrival and departure: the instance (high 32 bits, ordered as
    /// signed), the set's number and whether it leaves (low bit).
    events: Spill<u64>,
}

const LEAVES: u64 = 1;

/// Set `k`'s time as a key that sorts by the set's number.
fn time_key(k: usize, t: Timestamp) -> u128 {
    ((k as u128) << 96) | (u128::from(t.sec as u64) << 32) | u128::from(t.nsec)
}

fn key_time(k: u128) -> Timestamp {
    Timestamp::new((k >> 32) as u64 as i64, k as u32)
}

/// An instance as a key that sorts as the signed number does.
fn key(inst: i32) -> u64 {
    u64::from((inst as u32) ^ 0x8000_0000)
}

fn unkey(k: u64) -> i32 {
    (k as u32 ^ 0x8000_0000) as i32
}

fn event(inst: i32, k: usize, leaves: bool) -> u64 {
    (key(inst) << 32) | ((k as u64) << 1) | u64::from(leaves)
}

fn event_inst(e: u64) -> i32 {
    unkey(e >> 32)
}

fn event_set(e: u64) -> usize {
    ((e & 0xffff_ffff) >> 1) as usize
}

/// Builds [`Lives`] from each domain's sets, given in time order.
pub struct LivesBuilder {
    domains: HashMap<InDom, Building>,
    run: usize,
    /// The first failure to write a run out, reported by [`LivesBuilder::finish`].
    failed: Option<io::Error>,
}

impl Default for LivesBuilder {
    fn default() -> LivesBuilder {
        LivesBuilder::new()
    }
}

impl LivesBuilder {
    pub fn new() -> LivesBuilder {
        LivesBuilder::with_run(RUN)
    }

    /// A builder that writes a domain's events out past `run` of them (tests
    /// take small runs to exercise the file-backed lives).
    pub fn with_run(run: usize) -> LivesBuilder {
        LivesBuilder {
            domains: HashMap::new(),
            run,
            failed: None,
        }
    }

    /// The next set of `indom` (sets of a domain come in time order): its time
    /// and its instances.
    pub fn push(&mut self, indom: InDom, stamp: Timestamp, insts: impl IntoIterator<Item = i32>) {
        let run = self.run;
        let b = self.domains.entry(indom).or_insert_with(|| Building {
            sets: 0,
            times: Spill::new(run),
            prev: HashSet::default(),
            largest: 0,
            events: Spill::new(run),
        });
        let k = b.sets;
        b.sets += 1;
        let now: HashSet<i32> = insts.into_iter().collect();
        b.largest = b.largest.max(now.len());
        let mut r = b.times.push(time_key(k, stamp));
        for &i in &now {
            if r.is_ok() && !b.prev.contains(&i) {
                r = b.events.push(event(i, k, false));
            }
        }
        for &i in &b.prev {
            if r.is_ok() && !now.contains(&i) {
                r = b.events.push(event(i, k, true));
            }
        }
        b.prev = now;
        if let Err(e) = r {
            self.failed.get_or_insert(e);
        }
    }

    /// Each domain's lives.
    pub fn finish(self) -> Result<HashMap<InDom, Lives>> {
        if let Some(e) = &self.failed {
            return Err(temp_err(e));
        }
        let mut out = HashMap::with_capacity(self.domains.len());
        for (indom, b) in self.domains {
            out.insert(indom, build(b, self.run).map_err(|e| temp_err(&e))?);
        }
        Ok(out)
    }
}

/// One instance's life from its events (sorted): the set of the first arrival,
/// and that of the last departure when it is the last event.
fn life(first: u64, last: u64) -> (usize, u32) {
    let death = if last & LEAVES == LEAVES {
        event_set(last) as u32
    } else {
        NEVER
    };
    (event_set(first), death)
}

/// Gives each instance's life, in instance order, from the events sorted.
fn each_life(
    events: &mut Sorted<u64>,
    mut f: impl FnMut(i32, usize, u32) -> io::Result<()>,
) -> io::Result<()> {
    let Some(mut first) = events.next()? else {
        return Ok(());
    };
    let mut last = first;
    loop {
        let next = events.next()?;
        if next.is_some_and(|e| event_inst(e) == event_inst(first)) {
            last = next.unwrap_or(last);
            continue;
        }
        let (birth, death) = life(first, last);
        f(event_inst(first), birth, death)?;
        match next {
            Some(e) => {
                first = e;
                last = e;
            }
            None => return Ok(()),
        }
    }
}

fn build(b: Building, run: usize) -> io::Result<Lives> {
    let Building {
        sets: n,
        times,
        largest,
        events,
        ..
    } = b;
    let calipered = largest >= CALIPER_THRESHOLD;
    let spilled = events.spilled();
    let events = events.sorted()?;
    let times = times.sorted()?;
    let store = if !spilled {
        in_memory(events, times, n)?
    } else {
        on_disk(events, times, n, run)?
    };
    Ok(Lives { calipered, store })
}

/// The lives of `n` sets kept in memory.
fn in_memory(mut events: Sorted<u64>, mut times: Sorted<u128>, n: usize) -> io::Result<Store> {
    // in memory: each life (birth, death), in instance order, then by set
    let mut born_count = vec![0u64; n + 1];
    let mut members = Vec::new();
    let mut lives = Vec::new();
    each_life(&mut events, |inst, birth, death| {
        born_count[birth] += 1;
        members.push(inst);
        lives.push(((birth as u64) << 32) | u64::from(death));
        Ok(())
    })?;
    drop(events);
    let starts: Vec<u32> = starts_of(&born_count).map(|s| s as u32).collect();
    let mut fill = starts.clone();
    let total = starts.last().copied().unwrap_or(0) as usize;
    let mut insts = vec![0i32; total];
    let mut deaths = vec![NEVER; total];
    for (&inst, &life) in members.iter().zip(&lives) {
        if let Some(f) = fill.get_mut((life >> 32) as usize) {
            insts[*f as usize] = inst;
            deaths[*f as usize] = life as u32;
            *f += 1;
        }
    }
    let mut stamps = Vec::with_capacity(n);
    while let Some(k) = times.next()? {
        stamps.push(key_time(k));
    }
    Ok(Store::Memory {
        times: stamps,
        members,
        births: Births {
            starts,
            insts,
            deaths,
        },
    })
}

/// The lives of `n` sets written to a temporary file (`run`: how many sorted
/// in memory at a time).
fn on_disk(
    mut events: Sorted<u64>,
    mut times: Sorted<u128>,
    n: usize,
    run: usize,
) -> io::Result<Store> {
    // on disk: the members as they come, the lives sorted again by birth,
    // then each set's entry
    let file = tempfile::tempfile()?;
    let mut w = At::new(&file, 0);
    let mut lives: Spill<u128> = Spill::new(run / 2);
    let (mut members, mut sparse) = (0u64, Vec::new());
    each_life(&mut events, |inst, birth, death| {
        if members % BLOCK as u64 == 0 {
            sparse.push(inst);
        }
        members += 1;
        w.put(&inst.to_le_bytes())?;
        let life = ((birth as u128) << 64) | (u128::from(key(inst)) << 32) | u128::from(death);
        lives.push(life)
    })?;
    w.flush()?;
    drop(events);
    let mut lives = lives.sorted()?;
    let mut births = At::new(&file, members * 4);
    let mut table = At::new(&file, members * 12);
    let mut entry = |t: Timestamp, start: u64| {
        let mut e = [0u8; SET];
        e[..8].copy_from_slice(&t.sec.to_le_bytes());
        e[8..12].copy_from_slice(&t.nsec.to_le_bytes());
        e[16..].copy_from_slice(&start.to_le_bytes());
        table.put(&e)
    };
    let (mut next, mut written) = (lives.next()?, 0u64);
    for k in 0..n {
        let t = times.next()?.map(key_time).unwrap_or_default();
        entry(t, written)?;
        while let Some(l) = next.filter(|l| (l >> 64) as usize == k) {
            births.put(&unkey((l >> 32) as u64 & 0xffff_ffff).to_le_bytes())?;
            births.put(&(l as u32).to_le_bytes())?;
            written += 1;
            next = lives.next()?;
        }
    }
    entry(Timestamp::default(), written)?;
    births.flush()?;
    table.flush()?;
    Ok(Store::Disk(OnDisk {
        file,
        members,
        sparse,
        sets: n,
        near: Mutex::new(Vec::new()),
    }))
}

/// Writes appended at a place in a file, a chunk at a time.
struct At<'a> {
    file: &'a File,
    at: u64,
    buf: Vec<u8>,
}

impl<'a> At<'a> {
    fn new(file: &'a File, at: u64) -> At<'a> {
        At {
            file,
            at,
            buf: Vec::with_capacity(CHUNK),
        }
    }

    fn put(&mut self, b: &[u8]) -> io::Result<()> {
        self.buf.extend_from_slice(b);
        if self.buf.len() >= CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.write_all_at(&self.buf, self.at)?;
        self.at += self.buf.len() as u64;
        self.buf.clear();
        Ok(())
    }
}

/// Where each set's births start, from their counts (one more than the sets).
fn starts_of(counts: &[u64]) -> impl Iterator<Item = u64> + '_ {
    counts.iter().scan(0u64, |total, c| {
        let s = *total;
        *total += c;
        Some(s)
    })
}

/// The lives of one domain's instances from its snapshots (the metadata held
/// whole, [`crate::Metadata::snapshots`]); past `run` arrivals and departures
/// ([`RUN`] by default), in a temporary file.
pub fn of_snapshots(
    indom: InDom,
    snaps: &[crate::metadata::Snapshot],
    run: usize,
) -> Result<Lives> {
    let mut b = LivesBuilder::with_run(run);
    for s in snaps {
        b.push(indom, s.stamp, s.instances.iter().map(|(i, _)| *i));
    }
    Ok(b.finish()?.remove(&indom).unwrap_or_default())
}

/// The lives of every domain's instances, from a stream of the `.meta`'s
/// instance-domain records (a record that changes nothing is no set, as when
/// the metadata is loaded whole); `run` as for [`of_snapshots`].
pub fn of_stream(
    stream: crate::instances::InDomStream,
    run: usize,
) -> Result<HashMap<InDom, Lives>> {
    let mut b = LivesBuilder::with_run(run);
    let mut changes: HashMap<InDom, u64> = HashMap::new();
    let mut slots: HashMap<InDom, Slot> = HashMap::new();
    stream.for_each_rest(|indom, set, _| {
        let seen = changes.entry(indom).or_insert(0);
        if *seen == set.changes() {
            return;
        }
        *seen = set.changes();
        let members: Members = set.iter().map(|(i, n)| (i, n.into())).collect();
        let slot = slots
            .entry(indom)
            .or_insert_with(|| (set.stamp(), Vec::new()));
        if slot.0 != set.stamp() {
            flush(&mut b, indom, slot);
            slot.0 = set.stamp();
        }
        // a record the slot has already is not another set: it moves to the end
        slot.1.retain(|m| *m != members);
        slot.1.push(members);
    })?;
    for (indom, slot) in &mut slots {
        flush(&mut b, *indom, slot);
    }
    b.finish()
}

/// A set's instances and their names.
type Members = Vec<(i32, Box<str>)>;

/// The sets of one domain at one time (its records with that time, as libpcp
/// keeps them: of a record and its duplicates the last only, where it came).
type Slot = (Timestamp, Vec<Members>);

/// The slot's sets go to the builder; the slot is emptied.
fn flush(b: &mut LivesBuilder, indom: InDom, slot: &mut Slot) {
    for members in slot.1.drain(..) {
        b.push(indom, slot.0, members.iter().map(|(i, _)| *i));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: i64) -> Timestamp {
        Timestamp::new(s, 0)
    }

    #[test]
    fn births_and_deaths_by_set() {
        let d = InDom::new(1, 1);
        let mut b = LivesBuilder::new();
        b.push(d, t(10), [1, 2, 3]);
        b.push(d, t(20), [2, 3, 4]); // 1 leaves for good, 4 arrives
        b.push(d, t(30), [3, 4]); // 2 leaves, to come back
        b.push(d, t(40), [2, 3, 4]);
        b.push(d, t(50), [4, -7]); // 2 and 3 leave for good
        let l = b.finish().expect("built").remove(&d).expect("built");
        let times: Vec<_> = (0..6).map(|k| l.time(k).expect("time")).collect();
        let want = [t(10), t(20), t(30), t(40), t(50)];
        assert_eq!(
            times,
            want.map(Some).into_iter().chain([None]).collect::<Vec<_>>()
        );
        assert_eq!(l.sets(), 5);
        assert_eq!(l.members().expect("members"), [-7, 1, 2, 3, 4]);
        assert!(l.is_member(-7).expect("read") && !l.is_member(5).expect("read"));
        let born: Vec<Vec<(i32, Option<usize>)>> = (0..5)
            .map(|k| {
                let mut v = l.born_at(k).expect("births");
                v.sort();
                v
            })
            .collect();
        assert_eq!(
            born,
            [
                vec![(1, Some(1)), (2, Some(4)), (3, Some(4))],
                vec![(4, None)],
                vec![],
                vec![],
                vec![(-7, None)]
            ]
        );
        assert!(!l.calipered());
        assert_eq!(l.born_at(9).expect("births"), []);
    }

    #[test]
    fn a_domain_of_sixteen_is_calipered() {
        let d = InDom::new(1, 1);
        let mut b = LivesBuilder::new();
        b.push(d, t(1), 0..15);
        assert!(!b.finish().expect("built")[&d].calipered());
        let mut b = LivesBuilder::new();
        b.push(d, t(1), 0..3);
        b.push(d, t(2), 0..16);
        assert!(b.finish().expect("built")[&d].calipered());
    }
}
