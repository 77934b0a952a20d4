//! This machine's metrics, read from `/proc` and `/sys` as PCP's Linux agent (domain
//! 60) exports them: same names, PMIDs, types, semantics, units and instance domains.

use crate::vs;
use crate::{json_string, label, now, Metric, MetricSource, SourceError};
use archive_format::codec::meta::LabelSet;
use archive_format::codec::result::OwnedValueSet;
use archive_format::types::{sem, vtype, Desc, InDom, PmId, Timestamp, Units};
use std::collections::HashMap;
use std::sync::OnceLock;

mod table;
use table::*;

/// Instance domains of the Linux agent.
pub const CPU_INDOM: InDom = InDom(60 << 22);
pub const DISK_INDOM: InDom = InDom((60 << 22) | 1);
pub const LOAD_INDOM: InDom = InDom((60 << 22) | 2);
pub const NET_INDOM: InDom = InDom((60 << 22) | 3);
pub const FS_INDOM: InDom = InDom((60 << 22) | 5);

/// This machine as a metric source.
pub struct Local {
    root: std::sync::Arc<std::path::Path>,
    metrics: Vec<Metric>,
    /// Instance ids handed out so far, by domain and name (stable for the run).
    ids: HashMap<InDom, HashMap<String, i32>>,
    /// Instances seen by the last fetch, per domain, in the order of their file (so
    /// that asking for an instance domain right after a fetch reads nothing again).
    seen: HashMap<InDom, Vec<(i32, String)>>,
    /// The files read so far, kept open with their buffers (see [`Kept`]).
    files: Vec<Kept>,
    /// Samples taken so far (each [`Snap`] is one).
    sample: u64,
    /// Where each PMID is in the metric table.
    index: HashMap<PmId, usize>,
    /// `proc.nprocs` as last counted, with the fork count and task count it was
    /// counted under (see [`Local::nprocs`]).
    procs: Option<(u64, u64, u32)>,
}

impl Default for Local {
    fn default() -> Self {
        Local::new("/")
    }
}

type Rows = std::rc::Rc<Vec<(i32, Vec<u64>)>>;

/// A file read at most once per sample through a handle kept open between samples:
/// /proc and /sys generate a file afresh on each read from offset 0, so a sample
/// costs one `pread` and no open, close or allocation.
struct Kept {
    /// The path under the source's root.
    rel: String,
    file: Option<std::fs::File>,
    /// When the text is read again.
    refresh: Refresh,
    /// The file's text as of sample `sample` (empty when it cannot be read).
    text: String,
    /// How many lines `text` has.
    lines: usize,
    sample: u64,
    /// Where each key's line was found last, or that it is missing (see
    /// [`Snap::kv`]).
    hints: HashMap<&'static str, Hint>,
}

impl Kept {
    fn new(rel: &str) -> Kept {
        Kept {
            rel: rel.to_string(),
            file: None,
            refresh: Refresh::Always,
            text: String::new(),
            lines: 0,
            sample: 0,
            hints: HashMap::new(),
        }
    }

    /// Brings the text up to date: reads the file from its start (opening it first
    /// if need be), or keeps the text if the file is polled and unchanged. A file
    /// that cannot be read gives an empty text and is opened afresh next time.
    fn refresh(&mut self, root: &std::path::Path) {
        let keep = match self.refresh {
            Refresh::Always => false,
            Refresh::OnPoll => !self.changed(),
            Refresh::Never => true,
        };
        if keep && !self.text.is_empty() {
            return;
        }
        if self.file.is_none() {
            self.file = std::fs::File::open(root.join(&self.rel)).ok();
            self.refresh = match self.file.as_ref().map(on_procfs) {
                Some(true) => Refresh::of(&self.rel),
                _ => Refresh::Always,
            };
        }
        let read = match &self.file {
            Some(f) => read_from_start(f, &mut self.text),
            None => Err(std::io::ErrorKind::NotFound.into()),
        };
        if read.is_err() {
            self.file = None;
            self.text.clear();
        }
        self.lines = self.text.bytes().filter(|&b| b == b'\n').count();
    }

    /// Whether `poll` reports a change of the file (the mount table, the host
    /// name) since the last poll or the open; a failed poll counts as a change.
    fn changed(&self) -> bool {
        use rustix::event::{poll, PollFd, PollFlags};
        let Some(f) = &self.file else {
            return true;
        };
        let mut fds = [PollFd::new(f, PollFlags::PRI)];
        let zero = rustix::event::Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        match poll(&mut fds, Some(&zero)) {
            Ok(0) => false,
            Ok(_) => fds[0]
                .revents()
                .intersects(PollFlags::PRI | PollFlags::ERR | PollFlags::NVAL),
            Err(_) => true,
        }
    }
}

/// When a kept file is read again: every sample, or (for the files of procfs
/// that tell `poll` of a change: the mount table, the host name) only after a
/// change, or (for what cannot change while the system runs) never.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Refresh {
    Always,
    OnPoll,
    Never,
}

impl Refresh {
    /// The rule for a file of procfs at `rel`.
    fn of(rel: &str) -> Refresh {
        match rel {
            "proc/mounts" | "proc/sys/kernel/hostname" => Refresh::OnPoll,
            "proc/sys/kernel/osrelease" | "proc/sys/kernel/version" | "proc/sys/kernel/ostype" => {
                Refresh::Never
            }
            _ => Refresh::Always,
        }
    }
}

/// Whether an open file is on procfs (where /proc/mounts signals changes to poll;
/// a copy of it elsewhere, as in tests, does not).
fn on_procfs(f: &std::fs::File) -> bool {
    const PROC_SUPER_MAGIC: u64 = 0x9fa0;
    rustix::fs::fstatfs(f).is_ok_and(|s| s.f_type as u64 == PROC_SUPER_MAGIC)
}

/// One fetch's view of the files it reads (each read and parsed at most once).
struct Snap {
    root: std::sync::Arc<std::path::Path>,
    /// Which sample this is (a file read in an earlier one is read again).
    sample: u64,
    /// The files, lent by the source for the fetch.
    files: Vec<Kept>,
    cpus: Option<Rows>,
    disks: Option<Rows>,
    nets: Option<Rows>,
    filesystems: Option<std::rc::Rc<Vec<(i32, String, String)>>>,
    /// statvfs of each of `filesystems`, in order.
    statvfs: Option<Vec<Option<FsStat>>>,
}

/// What filesys.* needs of statvfs(2).
#[derive(Clone, Copy)]
struct FsStat {
    f_blocks: u64,
    f_bfree: u64,
    f_bavail: u64,
    f_bsize: u64,
    f_files: u64,
    f_ffree: u64,
    ro: bool,
}

/// Reads a whole file from its start into `text`, reusing its buffer. A read that
/// does not fill the buffer has reached the end, as /proc files fill what they are
/// given, so one read is usually all it takes. Bytes that are not UTF-8 are
/// replaced (the kernel writes ASCII).
fn read_from_start(f: &std::fs::File, text: &mut String) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    let mut buf = std::mem::take(text).into_bytes();
    let size = buf.capacity().max(4096);
    buf.clear();
    buf.resize(size, 0);
    let mut len = 0;
    loop {
        let n = f.read_at(&mut buf[len..], len as u64)?;
        len += n;
        if n == 0 || len < buf.len() {
            break;
        }
        buf.resize(buf.len() * 2, 0);
    }
    buf.truncate(len);
    *text = String::from_utf8(buf)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    Ok(())
}

impl Snap {
    fn new(root: std::sync::Arc<std::path::Path>, sample: u64, files: Vec<Kept>) -> Snap {
        Snap {
            root,
            sample,
            files,
            cpus: None,
            disks: None,
            nets: None,
            filesystems: None,
            statvfs: None,
        }
    }

    /// The file at `rel` under the root, read once per sample.
    fn kept(&mut self, rel: &str) -> &mut Kept {
        let at = match self.files.iter().position(|k| k.rel == rel) {
            Some(at) => at,
            None => {
                self.files.push(Kept::new(rel));
                self.files.len() - 1
            }
        };
        let k = &mut self.files[at];
        if k.sample != self.sample {
            k.refresh(&self.root);
            k.sample = self.sample;
        }
        k
    }

    /// The text of the file at `rel` as of this sample ("" when unreadable).
    fn get(&mut self, rel: &str) -> &str {
        &self.kept(rel).text
    }

    /// The first number after `key` in a `key: value` or `key value` file. Where
    /// the key's line was found last time is remembered (the kernel writes these
    /// files in a fixed order), so a lookup usually reads one line; otherwise the
    /// lines are scanned.
    ///
    /// A key the file does not have is remembered as missing and not looked for
    /// again while the file keeps its length in lines: the kernel's files keep their
    /// set of keys while it runs, and older kernels lack some the agent exports.
    fn kv(&mut self, f: &str, key: &'static str) -> Option<u64> {
        let k = self.kept(f);
        match k.hints.get(key) {
            Some(&Hint::At(at)) => {
                if let Some(v) = kv_line(&k.text, at, key) {
                    return Some(v);
                }
            }
            Some(&Hint::Missing { lines }) if lines == k.lines => return None,
            _ => {}
        }
        let mut at = 0;
        for line in k.text.split_inclusive('\n') {
            if let Some(v) = kv_line(&k.text, at, key) {
                k.hints.insert(key, Hint::At(at));
                return Some(v);
            }
            at += line.len();
        }
        k.hints.insert(key, Hint::Missing { lines: k.lines });
        None
    }
}

/// What is known of a key of a `key: value` file (see [`Snap::kv`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hint {
    /// Its line started at this byte last time.
    At(usize),
    /// The file did not have it when it had this many lines.
    Missing { lines: usize },
}

/// The value of `key` if the line at byte `at` of `text` is `key: value ...` or
/// `key value ...` and the value is a number.
fn kv_line(text: &str, at: usize, key: &str) -> Option<u64> {
    if at > 0 && text.as_bytes().get(at - 1) != Some(&b'\n') {
        return None;
    }
    let rest = text.get(at..)?.strip_prefix(key)?;
    let rest = rest.strip_prefix(':').or_else(|| rest.strip_prefix(' '))?;
    let line = rest.split('\n').next()?;
    line.split_whitespace().next()?.parse().ok()
}

/// How many entries of the directory `dir` are all digits (process ids, for
/// `/proc`): read with `getdents64` into a buffer on the stack, no allocation per
/// entry.
fn count_numeric_entries(dir: &std::path::Path) -> Option<usize> {
    use rustix::fs::{Mode, OFlags, RawDir};
    let fd = rustix::fs::open(
        dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .ok()?;
    let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 32 * 1024];
    let mut entries = RawDir::new(fd, &mut buf);
    let mut n = 0;
    while let Some(Ok(e)) = entries.next() {
        if e.file_name().to_bytes().iter().all(u8::is_ascii_digit) {
            n += 1;
        }
    }
    Some(n)
}

/// USER_HZ ticks to milliseconds (the kernel reports /proc/stat in 1/100 s).
fn ticks_ms(t: u64) -> u64 {
    t * 10
}

impl Local {
    /// A source reading `root/proc` and `root/sys` (`/` normally; tests use a copy).
    pub fn new(root: impl Into<std::path::PathBuf>) -> Local {
        Local {
            root: std::sync::Arc::from(root.into()),
            metrics: table().iter().map(|e| e.metric.clone()).collect(),
            ids: HashMap::new(),
            seen: HashMap::new(),
            files: Vec::new(),
            sample: 0,
            procs: None,
            index: table()
                .iter()
                .enumerate()
                .map(|(i, e)| (e.metric.desc.pmid, i))
                .collect(),
        }
    }

    /// A snapshot for one sample, with the open files lent to it.
    fn snap(&mut self) -> Snap {
        self.sample += 1;
        Snap::new(
            self.root.clone(),
            self.sample,
            std::mem::take(&mut self.files),
        )
    }

    /// Takes the open files back after a sample.
    fn done(&mut self, snap: Snap) {
        self.files = snap.files;
    }

    /// `proc.nprocs`: the process directories in /proc. Counting them lists all of
    /// /proc, the costliest read of a sample, so the count is kept while the
    /// kernel's fork count (`processes` in /proc/stat) and task count (in
    /// /proc/loadavg) stay the same: every new task moves the first, and every task
    /// that ends without a new one the second, so neither moving means the same
    /// processes. Both are read before the listing, so a change during it shows in
    /// the next sample's.
    fn nprocs(&mut self, snap: &mut Snap) -> Option<u32> {
        let forks = snap.kv("proc/stat", "processes");
        let tasks = loadavg_tasks(snap.get("proc/loadavg"));
        if let (Some(f), Some(t), Some((pf, pt, n))) = (forks, tasks, self.procs) {
            if (f, t) == (pf, pt) {
                return Some(n);
            }
        }
        let n = count_numeric_entries(&snap.root.join("proc"))? as u32;
        self.procs = forks.zip(tasks).map(|(f, t)| (f, t, n));
        Some(n)
    }

    /// The instance id of `name` in `indom`: ids are handed out in the order
    /// names are first seen, and kept for the run.
    fn id(&mut self, indom: InDom, name: &str) -> i32 {
        let ids = self.ids.entry(indom).or_default();
        if let Some(&id) = ids.get(name) {
            return id;
        }
        let next = ids.len() as i32;
        ids.insert(name.to_string(), next);
        next
    }

    /// Notes the instances of `indom` a sample found (kept as they are when they
    /// are the same as last time, the usual case).
    fn saw(&mut self, indom: InDom, found: &[(i32, &str)]) {
        let same = self.seen.get(&indom).is_some_and(|v| {
            v.len() == found.len() && v.iter().zip(found).all(|((i, n), (j, m))| i == j && n == m)
        });
        if !same {
            let names = found.iter().map(|(i, n)| (*i, n.to_string())).collect();
            self.seen.insert(indom, names);
        }
    }

    fn cpus(&mut self, snap: &mut Snap) -> Rows {
        if let Some(v) = &snap.cpus {
            return v.clone();
        }
        let v: Vec<(i32, Vec<u64>)> = snap
            .get("proc/stat")
            .lines()
            .filter_map(|l| {
                let mut w = l.split_whitespace();
                let k = w.next()?;
                let n: i32 = k.strip_prefix("cpu")?.parse().ok()?;
                Some((n, w.filter_map(|x| x.parse().ok()).collect()))
            })
            .collect();
        let same = self.seen.get(&CPU_INDOM).is_some_and(|s| {
            s.len() == v.len() && s.iter().zip(v.iter()).all(|((i, _), (j, _))| i == j)
        });
        if !same {
            let names = v.iter().map(|(n, _)| (*n, format!("cpu{n}"))).collect();
            self.seen.insert(CPU_INDOM, names);
        }
        let v = std::rc::Rc::new(v);
        snap.cpus = Some(v.clone());
        v
    }

    fn disks(&mut self, snap: &mut Snap) -> Rows {
        if let Some(v) = &snap.disks {
            return v.clone();
        }
        let text = snap.get("proc/diskstats");
        let mut out = Vec::new();
        let mut names = Vec::new();
        for l in text.lines() {
            // major, minor, name, then at least 11 counters
            let mut w = l.split_whitespace().skip(2);
            let Some(name) = w.next().filter(|n| is_disk(n)) else {
                continue;
            };
            let vals: Vec<u64> = w.map(|x| x.parse().unwrap_or(0)).collect();
            if vals.len() < 11 {
                continue;
            }
            let id = self.id(DISK_INDOM, name);
            names.push((id, name));
            out.push((id, vals));
        }
        self.saw(DISK_INDOM, &names);
        let out = std::rc::Rc::new(out);
        snap.disks = Some(out.clone());
        out
    }

    /// The disks of this sample, `(id, name)`.
    fn disk_names(&mut self, snap: &mut Snap) -> Vec<(i32, String)> {
        let _ = self.disks(snap);
        self.seen.get(&DISK_INDOM).cloned().unwrap_or_default()
    }

    fn nets(&mut self, snap: &mut Snap) -> Rows {
        if let Some(v) = &snap.nets {
            return v.clone();
        }
        let text = snap.get("proc/net/dev");
        let mut out = Vec::new();
        let mut names = Vec::new();
        for l in text.lines().skip(2) {
            let Some((name, rest)) = l.split_once(':') else {
                continue;
            };
            let vals: Vec<u64> = rest
                .split_whitespace()
                .map(|x| x.parse().unwrap_or(0))
                .collect();
            let id = self.id(NET_INDOM, name.trim());
            names.push((id, name.trim()));
            out.push((id, vals));
        }
        self.saw(NET_INDOM, &names);
        let out = std::rc::Rc::new(out);
        snap.nets = Some(out.clone());
        out
    }

    /// Mounted filesystems backed by a block device (`/dev/...` in /proc/mounts),
    /// each device once (its first mount), as `(id, device, mount point)`.
    fn filesystems(&mut self, snap: &mut Snap) -> std::rc::Rc<Vec<(i32, String, String)>> {
        if let Some(v) = &snap.filesystems {
            return v.clone();
        }
        let text = snap.get("proc/mounts");
        let mut out: Vec<(i32, String, String)> = Vec::new();
        for l in text.lines() {
            let mut w = l.split_whitespace();
            let (Some(dev), Some(dir)) = (w.next(), w.next()) else {
                continue;
            };
            if !dev.starts_with("/dev/") || out.iter().any(|(_, d, _)| d == dev) {
                continue;
            }
            let id = self.id(FS_INDOM, dev);
            out.push((id, dev.to_string(), unescape_mount(dir)));
        }
        let names: Vec<(i32, &str)> = out.iter().map(|(i, d, _)| (*i, d.as_str())).collect();
        self.saw(FS_INDOM, &names);
        let out = std::rc::Rc::new(out);
        snap.filesystems = Some(out.clone());
        out
    }

    fn filesys_value(&mut self, p: PmId, field: FsField, snap: &mut Snap) -> OwnedValueSet {
        let mut strings = Vec::new();
        let mut u32s = Vec::new();
        let mut u64s = Vec::new();
        let mut f64s = Vec::new();
        let filesystems = self.filesystems(snap);
        if snap.statvfs.is_none() && !matches!(field, FsField::MountDir) {
            let root = &snap.root;
            let stat = |dir: &str| {
                rustix::fs::statvfs(root.join(dir.trim_start_matches('/')))
                    .ok()
                    .map(|st| FsStat {
                        f_blocks: st.f_blocks,
                        f_bfree: st.f_bfree,
                        f_bavail: st.f_bavail,
                        f_bsize: st.f_bsize,
                        f_files: st.f_files,
                        f_ffree: st.f_ffree,
                        ro: st.f_flag.contains(rustix::fs::StatVfsMountFlags::RDONLY),
                    })
            };
            snap.statvfs = Some(filesystems.iter().map(|(_, _, dir)| stat(dir)).collect());
        }
        for (k, (id, _dev, dir)) in filesystems.iter().enumerate() {
            let id = *id;
            if let FsField::MountDir = field {
                strings.push((id, dir.clone()));
                continue;
            }
            let st = snap
                .statvfs
                .as_ref()
                .and_then(|v| v.get(k).copied().flatten());
            let Some(st) = st else {
                continue;
            };
            let kb = |blocks: u64| blocks.saturating_mul(st.f_bsize) / 1024;
            let used = kb(st.f_blocks.saturating_sub(st.f_bfree));
            match field {
                FsField::Capacity => u64s.push((id, kb(st.f_blocks))),
                FsField::Used => u64s.push((id, used)),
                FsField::Free => u64s.push((id, kb(st.f_bfree))),
                FsField::Avail => u64s.push((id, kb(st.f_bavail))),
                FsField::MaxFiles => u32s.push((id, st.f_files as u32)),
                FsField::UsedFiles => u32s.push((id, st.f_files.saturating_sub(st.f_ffree) as u32)),
                FsField::FreeFiles => u32s.push((id, st.f_ffree as u32)),
                FsField::BlockSize => u32s.push((id, st.f_bsize as u32)),
                FsField::ReadOnly => u32s.push((id, st.ro as u32)),
                FsField::Full => {
                    let avail = kb(st.f_bavail);
                    let full = if used + avail == 0 {
                        0.0
                    } else {
                        used as f64 / (used + avail) as f64 * 100.0
                    };
                    f64s.push((id, full))
                }
                FsField::MountDir => {}
            }
        }
        match field {
            FsField::MountDir => vs::strings(p, strings),
            FsField::Full => vs::f64s(p, f64s),
            FsField::Capacity | FsField::Used | FsField::Free | FsField::Avail => vs::u64s(p, u64s),
            _ => vs::u32s(p, u32s),
        }
    }

    /// One metric's values from this sample's files, by where the table says they
    /// come from (a dispatch on the source: memory and disk metrics in their own
    /// functions).
    fn value(&mut self, m: &Metric, src: Src, snap: &mut Snap) -> OwnedValueSet {
        let p = m.desc.pmid;
        let u64_or_none = |v: Option<u64>| v.map_or_else(|| vs::none(p), |v| vs::u64(p, v));
        match src {
            Src::Load => {
                let mut w = snap.get("proc/loadavg").split_whitespace();
                let mut next = || w.next().and_then(|x| x.parse::<f32>().ok());
                match (next(), next(), next()) {
                    (Some(a), Some(b), Some(c)) => vs::f32s(p, vec![(1, a), (5, b), (15, c)]),
                    _ => vs::none(p),
                }
            }
            Src::NThreads => loadavg_tasks(snap.get("proc/loadavg"))
                .map_or_else(|| vs::none(p), |n| vs::u32(p, n as u32)),
            Src::StatCpu(k) => {
                let t = snap.get("proc/stat");
                let Some(line) = t.lines().find(|l| l.starts_with("cpu ")) else {
                    return vs::none(p);
                };
                let mut f = [0u64; 10];
                for (slot, x) in f.iter_mut().zip(line.split_whitespace().skip(1)) {
                    *slot = x.parse().unwrap_or(0);
                }
                vs::u64(p, ticks_ms(k.of(&f)))
            }
            Src::PerCpu(k) => {
                let cpus = self.cpus(snap);
                vs::u64s(p, cpus.iter().map(|(n, f)| (*n, ticks_ms(k.of(f)))))
            }
            Src::NCpu => {
                let n = self.cpus(snap).len() as u32;
                vs::u32(p, n)
            }
            Src::Stat(key, idx) => {
                let t = snap.get("proc/stat");
                u64_or_none(
                    t.lines()
                        .find(|l| l.split_whitespace().next() == Some(key))
                        .and_then(|l| l.split_whitespace().nth(idx))
                        .and_then(|x| x.parse().ok()),
                )
            }
            Src::StatKey(key) => u64_or_none(snap.kv("proc/stat", key)),
            Src::AppVersion => OwnedValueSet {
                pmid: p,
                numval: -12350, // PM_ERR_APPVERSION
                valfmt: 0,
                values: Vec::new(),
            },
            Src::Net(field) => {
                let nets = self.nets(snap);
                vs::u64s(
                    p,
                    nets.iter()
                        .map(|(id, f)| (*id, f.get(field).copied().unwrap_or(0))),
                )
            }
            Src::Fs(field) => self.filesys_value(p, field, snap),
            Src::Uname(key) => {
                let v = if key == "machine" {
                    std::env::consts::ARCH.to_string()
                } else {
                    let f = match key {
                        "osrelease" => "proc/sys/kernel/osrelease",
                        "version" => "proc/sys/kernel/version",
                        "ostype" => "proc/sys/kernel/ostype",
                        _ => "proc/sys/kernel/hostname",
                    };
                    snap.get(f).trim().to_string()
                };
                vs::strings(p, [(-1, v)])
            }
            Src::Uptime => {
                let v = snap
                    .get("proc/uptime")
                    .split_whitespace()
                    .next()
                    .and_then(|x| x.parse::<f64>().ok());
                v.map_or_else(|| vs::none(p), |v| vs::f64s(p, [(-1, v)]))
            }
            Src::NProcs => {
                let n = self.nprocs(snap).unwrap_or(0);
                vs::u32(p, n)
            }
            Src::Mem(_)
            | Src::MemUsed
            | Src::MemOther
            | Src::MemCacheClean
            | Src::HugeBytes(_)
            | Src::Swap(_)
            | Src::SwapUsed
            | Src::Vmstat(_) => memory_value(p, src, snap),
            Src::Disk(..)
            | Src::DiskAll(..)
            | Src::DiskScheduler
            | Src::DiskCapacity
            | Src::NDisk => self.disk_value(m, src, snap),
        }
    }

    /// The disk metrics: per disk, summed over disks, and from /sys/block.
    fn disk_value(&mut self, m: &Metric, src: Src, snap: &mut Snap) -> OwnedValueSet {
        let p = m.desc.pmid;
        match src {
            Src::Disk(field, div) => {
                let disks = self.disks(snap);
                let vals = disks.iter().map(|(id, f)| (*id, field.of(f) / div));
                if m.desc.vtype == vtype::U32 {
                    vs::u32s(p, vals.map(|(i, v)| (i, v as u32)))
                } else {
                    vs::u64s(p, vals)
                }
            }
            Src::DiskAll(field, div) => {
                let total: u64 = self
                    .disks(snap)
                    .iter()
                    .map(|(_, f)| field.of(f) / div)
                    .sum();
                if m.desc.vtype == vtype::U32 {
                    vs::u32(p, total as u32)
                } else {
                    vs::u64(p, total)
                }
            }
            Src::DiskScheduler => {
                let names = self.disk_names(snap);
                let vals = names.into_iter().map(|(id, n)| {
                    let t = snap.get(&format!("sys/block/{n}/queue/scheduler"));
                    let sel = t
                        .split_whitespace()
                        .find_map(|w| w.strip_prefix('[').and_then(|w| w.strip_suffix(']')))
                        .or_else(|| t.split_whitespace().next())
                        .unwrap_or("unknown")
                        .to_string();
                    (id, sel)
                });
                vs::strings(p, vals)
            }
            Src::DiskCapacity => {
                let names = self.disk_names(snap);
                let vals: Vec<(i32, u64)> = names
                    .into_iter()
                    .filter_map(|(id, n)| {
                        let t = snap.get(&format!("sys/block/{n}/size"));
                        Some((id, t.trim().parse::<u64>().ok()? / 2))
                    })
                    .collect();
                vs::u64s(p, vals)
            }
            Src::NDisk => {
                let n = self.disks(snap).len() as u32;
                vs::u32(p, n)
            }
            _ => vs::none(p),
        }
    }
}

/// The memory, swap and vmstat metrics, from /proc/meminfo and /proc/vmstat.
fn memory_value(p: PmId, src: Src, snap: &mut Snap) -> OwnedValueSet {
    let u64_or_none = |v: Option<u64>| v.map_or_else(|| vs::none(p), |v| vs::u64(p, v));
    match src {
        Src::Mem(key) => u64_or_none(snap.kv("proc/meminfo", key)),
        Src::MemUsed => {
            let mut k = |key| snap.kv("proc/meminfo", key);
            u64_or_none(
                k("MemTotal")
                    .zip(k("MemFree"))
                    .map(|(a, b)| a.saturating_sub(b)),
            )
        }
        Src::MemOther => {
            let mut k = |key| snap.kv("proc/meminfo", key);
            match (k("MemTotal"), k("MemFree"), k("Cached"), k("Buffers")) {
                (Some(t), Some(f), Some(c), Some(b)) => {
                    vs::u64(p, t.saturating_sub(f).saturating_sub(c).saturating_sub(b))
                }
                _ => vs::none(p),
            }
        }
        Src::MemCacheClean => {
            let mut k = |key| snap.kv("proc/meminfo", key);
            match (k("Cached"), k("Dirty"), k("Writeback")) {
                (Some(c), Some(d), Some(w)) => vs::u64(p, c.saturating_sub(d).saturating_sub(w)),
                _ => vs::none(p),
            }
        }
        Src::HugeBytes(key) => {
            let mut k = |key| snap.kv("proc/meminfo", key);
            u64_or_none(k(key).zip(k("Hugepagesize")).map(|(n, kb)| n * kb * 1024))
        }
        Src::Swap(key) => u64_or_none(snap.kv("proc/meminfo", key).map(|v| v * 1024)),
        Src::SwapUsed => {
            let mut k = |key| snap.kv("proc/meminfo", key);
            u64_or_none(
                k("SwapTotal")
                    .zip(k("SwapFree"))
                    .map(|(a, b)| a.saturating_sub(b) * 1024),
            )
        }
        Src::Vmstat(key) => snap
            .kv("proc/vmstat", key)
            .map_or_else(|| vs::none(p), |v| vs::u32(p, v as u32)),
        _ => vs::none(p),
    }
}

/// The task count of /proc/loadavg (`running/tasks` is its fourth field).
fn loadavg_tasks(text: &str) -> Option<u64> {
    text.split_whitespace()
        .nth(3)
        .and_then(|x| x.split('/').nth(1))
        .and_then(|x| x.parse().ok())
}

/// Whole disks as the Linux agent lists them in `disk.dev` (not partitions, loop or
/// ram devices).
fn is_disk(name: &str) -> bool {
    let strip = |p: &str| name.strip_prefix(p).filter(|r| !r.is_empty());
    if let Some(r) = strip("sd")
        .or_else(|| strip("vd"))
        .or_else(|| strip("xvd"))
        .or_else(|| strip("hd"))
    {
        return r.bytes().all(|b| b.is_ascii_lowercase());
    }
    if let Some(r) = strip("nvme") {
        // nvme0n1, not nvme0n1p1
        return r.contains('n') && !r.contains('p');
    }
    false
}

impl MetricSource for Local {
    fn name(&self) -> &'static str {
        "@builtin"
    }
    fn indom_help(&self, indom: InDom) -> Option<(&'static str, &'static str)> {
        indom_text(indom)
    }
    fn long_help(&self, pmid: PmId) -> &'static str {
        self.index.get(&pmid).map_or("", |&i| table()[i].long_help)
    }
    fn labels(&mut self, ltype: u8, ident: u32) -> Vec<LabelSet> {
        let one = |labels: &[(&str, &str, bool)]| -> Vec<LabelSet> {
            LabelSet::from_labels(-1, ltype, labels)
                .into_iter()
                .collect()
        };
        let typed = |dev: &str, name: &str| -> Vec<LabelSet> {
            let (dev, name) = (json_string(dev), json_string(name));
            one(&[("device_type", &dev, false), ("indom_name", &name, false)])
        };
        match ltype {
            label::CONTEXT => crate::context_labels(&self.hostname())
                .into_iter()
                .collect(),
            label::DOMAIN if ident == 60 => one(&[("agent", "\"linux\"", false)]),
            label::ITEM => match self.metric(PmId(ident)) {
                Some(m) if m.name.starts_with("kernel.all.cpu.") => {
                    one(&[("device_type", "\"cpu\"", false)])
                }
                _ => Vec::new(),
            },
            label::INDOM => match InDom(ident) {
                CPU_INDOM => typed("cpu", "per cpu"),
                DISK_INDOM => typed("block", "per disk"),
                NET_INDOM => typed("interface", "per interface"),
                _ => Vec::new(),
            },
            label::INSTANCES => {
                let indom = InDom(ident);
                self.instances(indom)
                    .into_iter()
                    .filter_map(|(inst, name)| {
                        let (key, value) = match indom {
                            CPU_INDOM => ("cpu", inst.to_string()),
                            DISK_INDOM => ("device_name", json_string(&name)),
                            NET_INDOM => ("interface", json_string(&name)),
                            _ => return LabelSet::from_labels(inst, ltype, &[]),
                        };
                        LabelSet::from_labels(inst, ltype, &[(key, value.as_str(), false)])
                    })
                    .collect()
            }
            _ => Vec::new(),
        }
    }
    fn hostname(&self) -> String {
        std::fs::read_to_string(self.root.join("proc/sys/kernel/hostname"))
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|_| "localhost".into())
    }

    fn timezone(&self) -> (String, String) {
        crate::local_timezone()
    }

    fn metrics(&self) -> &[Metric] {
        &self.metrics
    }

    fn instances(&mut self, indom: InDom) -> Vec<(i32, String)> {
        if indom == LOAD_INDOM {
            return vec![
                (1, "1 minute".into()),
                (5, "5 minute".into()),
                (15, "15 minute".into()),
            ];
        }
        // reading a domain's file notes its instances (see `Local::saw`)
        if !self.seen.contains_key(&indom) {
            let mut snap = self.snap();
            match indom {
                CPU_INDOM => drop(self.cpus(&mut snap)),
                DISK_INDOM => drop(self.disks(&mut snap)),
                NET_INDOM => drop(self.nets(&mut snap)),
                FS_INDOM => drop(self.filesystems(&mut snap)),
                _ => {}
            }
            self.done(snap);
        }
        let mut v = self.seen.get(&indom).cloned().unwrap_or_default();
        v.sort_by_key(|x| x.0);
        v
    }

    fn metric(&self, pmid: PmId) -> Option<&Metric> {
        self.index.get(&pmid).and_then(|&i| self.metrics.get(i))
    }

    fn fetch(&mut self, pmids: &[PmId]) -> Result<(Timestamp, Vec<OwnedValueSet>), SourceError> {
        let stamp = now();
        let mut snap = self.snap();
        let mut out = Vec::with_capacity(pmids.len());
        for p in pmids {
            match self.index.get(p).map(|&i| &table()[i]) {
                Some(e) => out.push(self.value(&e.metric, e.src, &mut snap)),
                None => out.push(OwnedValueSet {
                    pmid: *p,
                    numval: archive_format::error::PM_ERR_PMID,
                    valfmt: 0,
                    values: Vec::new(),
                }),
            }
        }
        self.done(snap);
        Ok((stamp, out))
    }
}

/// A mount point as /proc/mounts escapes it (octal `\\040` for a space, etc.).
fn unescape_mount(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let octal = i + 3 < b.len()
            && (b'0'..=b'3').contains(&b[i + 1])
            && b[i + 2..i + 4].iter().all(|c| (b'0'..=b'7').contains(c));
        if b[i] == b'\\' && octal {
            out.push((b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0'));
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use archive_format::codec::result::OwnedValue;

    /// The compiled-in table reads whole: every line a metric with the agents'
    /// help, every source spelled as it reads back, every instance domain helped.
    #[test]
    fn the_table_reads_whole() {
        let t = parse_table(TABLE, HELP).unwrap();
        let lines = TABLE
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'));
        assert_eq!(t.len(), lines.count());
        assert!(t.len() > 150);
        let mut names = std::collections::HashSet::new();
        for e in &t {
            assert!(names.insert(e.metric.name), "{} twice", e.metric.name);
            assert!(!e.metric.help.is_empty(), "{}", e.metric.name);
            let again = Src::parse(Box::leak(e.src.spec().into_boxed_str())).unwrap();
            assert_eq!(again, e.src, "{}", e.metric.name);
            if !e.metric.desc.indom.is_null() {
                assert!(
                    indom_text(e.metric.desc.indom).is_some(),
                    "{}",
                    e.metric.name
                );
            }
        }
        // spot checks against what PCP's agent says (pminfo -dtT)
        let by = |n: &str| t.iter().find(|e| e.metric.name == n).unwrap();
        let read = by("disk.dev.read");
        assert_eq!(read.metric.desc.pmid, PmId::new(60, 0, 4));
        assert_eq!(read.metric.desc.indom, DISK_INDOM);
        assert_eq!(read.metric.desc.sem, sem::COUNTER);
        assert_eq!(read.metric.help, "per-disk read operations");
        assert_eq!(
            read.long_help,
            "Cumulative number of disk read operations since system boot time (subject\nto counter wrap)."
        );
        assert_eq!(by("hinv.ncpu").long_help, "");
        assert_eq!(
            indom_text(LOAD_INDOM),
            Some(("load averages for 1, 5, and 15 minutes", ""))
        );
    }

    #[test]
    fn table_errors_name_the_line() {
        let help = "# c\n@ a.b one line\nfull\ntext\n@ c.d other\n";
        let ok = "# h\na.b\t60.0.1\tu32\t-\tinstant\t0x00000000\tncpu\n";
        let t = parse_table(ok, help).unwrap();
        assert_eq!(
            (t[0].metric.help, t[0].long_help),
            ("one line", "full\ntext")
        );
        for (bad, what) in [
            ("a.b\t60.0\tu32\t-\tinstant\t0x0\tncpu", "bad PMID"),
            ("a.b\t60.0.1\tu16\t-\tinstant\t0x0\tncpu", "bad type"),
            (
                "a.b\t60.0.1\tu32\t60\tinstant\t0x0\tncpu",
                "bad instance domain",
            ),
            ("a.b\t60.0.1\tu32\t-\tsome\t0x0\tncpu", "bad semantics"),
            ("a.b\t60.0.1\tu32\t-\tinstant\t12\tncpu", "bad units"),
            (
                "a.b\t60.0.1\tu32\t-\tinstant\t0x0\tdisk 1",
                "bad source \"disk 1\"",
            ),
            (
                "a.b\t60.0.1\tu32\t-\tinstant\t0x0\tncpu 3",
                "bad source \"ncpu 3\"",
            ),
            ("x.y\t60.0.1\tu32\t-\tinstant\t0x0\tncpu", "no help text"),
            ("a.b\t60.0.1", "not 7 tab-separated fields"),
        ] {
            let table: &'static str = Box::leak(format!("# h\n\n{bad}\n").into_boxed_str());
            let e = parse_table(table, help).err().unwrap();
            assert_eq!(e, format!("linux.tsv line 3: {what}"));
        }
        assert!(parse_help("junk\n").is_err());
        assert!(parse_help("@ a x\n@ a y\n").is_err());
    }

    /// Key lookups find the right line (not a longer key that ends or starts the
    /// same), and still find it after the file's lines move under a remembered
    /// position.
    #[test]
    fn key_value_lines_found_again_after_they_move() {
        let dir = std::env::temp_dir().join(format!("kv-test-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("proc")).unwrap();
        let file = dir.join("proc/meminfo");
        std::fs::write(
            &file,
            "MemTotal: 100 kB\nMemFree: 50 kB\nSwapCached: 7 kB\nActive(anon): 3 kB\nActive: 4 kB\nCached: 9 kB\n",
        )
        .unwrap();
        let mut snap = Snap::new(std::sync::Arc::from(dir.as_path()), 1, Vec::new());
        let kv = |snap: &mut Snap, key| snap.kv("proc/meminfo", key);
        assert_eq!(kv(&mut snap, "MemFree"), Some(50));
        assert_eq!(kv(&mut snap, "Cached"), Some(9));
        assert_eq!(kv(&mut snap, "Active"), Some(4));
        assert_eq!(kv(&mut snap, "Missing"), None);
        assert_eq!(snap.files[0].hints.len(), 4);
        assert_eq!(
            snap.files[0].hints.get("Missing"),
            Some(&Hint::Missing { lines: 6 })
        );
        // the next sample: a line more at the top, and longer values
        std::fs::write(
            &file,
            "New: 1 kB\nMemTotal: 100 kB\nMemFree: 51000 kB\nSwapCached: 7 kB\nActive: 44 kB\nCached: 99 kB\n",
        )
        .unwrap();
        snap.sample += 1;
        assert_eq!(kv(&mut snap, "Cached"), Some(99));
        assert_eq!(kv(&mut snap, "MemFree"), Some(51000));
        assert_eq!(kv(&mut snap, "Active"), Some(44));
        // a key missing before is looked for again once the file has more lines
        std::fs::write(&file, "Missing: 5 kB\nMemTotal: 100 kB\nMemFree: 51000 kB\nSwapCached: 7 kB\nActive: 44 kB\nCached: 99 kB\nX: 1\n").unwrap();
        snap.sample += 1;
        assert_eq!(kv(&mut snap, "Missing"), Some(5));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// proc.nprocs is counted again exactly when the fork count or the task count
    /// has moved since the last count, and every time when either is missing.
    #[test]
    fn process_count_kept_while_forks_and_tasks_stay() {
        let dir = std::env::temp_dir().join(format!("nprocs-test-{}", std::process::id()));
        let proc = dir.join("proc");
        std::fs::create_dir_all(proc.join("1")).unwrap();
        std::fs::create_dir_all(proc.join("22")).unwrap();
        std::fs::create_dir_all(proc.join("self")).unwrap();
        let write = |forks: u32, tasks: u32| {
            std::fs::write(proc.join("stat"), format!("ctxt 5\nprocesses {forks}\n")).unwrap();
            std::fs::write(proc.join("loadavg"), format!("0.1 0.2 0.3 1/{tasks} 99\n")).unwrap();
        };
        let mut l = Local::new(&dir);
        let pmid = l.lookup("proc.nprocs").unwrap()[0].desc.pmid;
        let count = |l: &mut Local| match l.fetch(&[pmid]).unwrap().1[0].values[..] {
            [(_, OwnedValue::Insitu(n))] => n,
            ref v => panic!("not one insitu value: {v:?}"),
        };
        write(100, 40);
        assert_eq!(count(&mut l), 2);
        // a process appears, the counts do not say so: the count is kept
        std::fs::create_dir_all(proc.join("333")).unwrap();
        assert_eq!(count(&mut l), 2);
        write(101, 40);
        assert_eq!(count(&mut l), 3);
        std::fs::remove_dir(proc.join("1")).unwrap();
        write(101, 39);
        assert_eq!(count(&mut l), 2);
        // without a fork count, every sample lists /proc
        std::fs::write(proc.join("stat"), "ctxt 5\n").unwrap();
        assert_eq!(count(&mut l), 2);
        std::fs::create_dir_all(proc.join("4444")).unwrap();
        assert_eq!(count(&mut l), 3);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Kept files of the real procfs that signal changes are read again only then,
    /// and the same files elsewhere (a copy, as in tests) every sample.
    #[test]
    fn refresh_rules_apply_to_procfs_only() {
        let mut mounts = Kept::new("proc/mounts");
        mounts.refresh(std::path::Path::new("/"));
        if mounts.file.as_ref().is_some_and(on_procfs) {
            assert_eq!(mounts.refresh, Refresh::OnPoll);
            assert!(!mounts.text.is_empty());
            assert!(!mounts.changed(), "no mount between the read and the poll");
            let mut release = Kept::new("proc/sys/kernel/osrelease");
            release.refresh(std::path::Path::new("/"));
            assert_eq!(release.refresh, Refresh::Never);
        } else {
            eprintln!("skipped: /proc is not procfs here");
        }
        let dir = std::env::temp_dir().join(format!("refresh-test-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("proc")).unwrap();
        std::fs::write(dir.join("proc/mounts"), "/dev/a / ext4 rw 0 0\n").unwrap();
        let mut copy = Kept::new("proc/mounts");
        copy.refresh(&dir);
        assert_eq!(copy.refresh, Refresh::Always);
        std::fs::write(dir.join("proc/mounts"), "/dev/b / ext4 rw 0 0\n").unwrap();
        copy.refresh(&dir);
        assert_eq!(copy.text, "/dev/b / ext4 rw 0 0\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn mount_points_unescaped() {
        assert_eq!(unescape_mount("/mnt/a\\040b"), "/mnt/a b");
        assert_eq!(unescape_mount("/x\\777\\"), "/x\\777\\");
    }

    #[test]
    fn disk_names_as_the_agent_lists_them() {
        assert!(is_disk("sda") && is_disk("vdb") && is_disk("nvme0n1"));
        assert!(!is_disk("sda1") && !is_disk("nvme0n1p2") && !is_disk("loop0") && !is_disk("dm-0"));
    }

    #[test]
    fn reads_a_proc_tree() {
        let dir = std::env::temp_dir().join(format!("pcp-local-test-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("proc/net")).expect("mkdir");
        std::fs::write(dir.join("proc/loadavg"), "0.50 0.25 0.10 2/345 6789\n").expect("w");
        std::fs::write(dir.join("proc/stat"), "cpu  10 20 30 40 5 6 7 8 0 0\ncpu0 10 20 30 40 5 6 7 8 0 0\nintr 1234 0 0\nctxt 99\nprocs_running 3\nprocs_blocked 1\n").expect("w");
        std::fs::write(
            dir.join("proc/meminfo"),
            "MemTotal: 1000 kB\nMemFree: 400 kB\nSwapTotal: 10 kB\nSwapFree: 4 kB\n",
        )
        .expect("w");
        std::fs::write(
            dir.join("proc/net/dev"),
            "h1\nh2\n  lo: 100 2 0 0 0 0 0 0 100 2 0 0 0 0 0 0\n",
        )
        .expect("w");
        std::fs::write(
            dir.join("proc/diskstats"),
            "   8 0 sda 5 0 80 0 6 0 40 0 0 9 0\n   8 1 sda1 1 0 2 0 1 0 2 0 0 1 0\n",
        )
        .expect("w");
        let mut l = Local::new(&dir);
        let want = |name: &str| l.lookup(name).expect("known")[0].desc.pmid;
        let pmids = [
            want("kernel.all.load"),
            want("kernel.all.cpu.sys"),
            want("mem.util.used"),
            want("swap.used"),
            want("disk.dev.read_bytes"),
            want("network.interface.in.bytes"),
            want("kernel.all.intr"),
        ];
        let (_, sets) = l.fetch(&pmids).expect("fetch");
        assert_eq!(sets[0].values.len(), 3);
        assert_eq!(
            sets[1].values[0].1.as_value(),
            archive_format::Value::Block {
                vtype: vtype::U64 as u8,
                data: &300u64.to_be_bytes()
            }
        );
        assert_eq!(
            sets[2].values[0].1.as_value(),
            archive_format::Value::Block {
                vtype: vtype::U64 as u8,
                data: &600u64.to_be_bytes()
            }
        );
        assert_eq!(
            sets[3].values[0].1.as_value(),
            archive_format::Value::Block {
                vtype: vtype::U64 as u8,
                data: &(6u64 * 1024).to_be_bytes()
            }
        );
        assert_eq!(
            sets[4].values[0].1.as_value(),
            archive_format::Value::Block {
                vtype: vtype::U64 as u8,
                data: &40u64.to_be_bytes()
            }
        );
        assert_eq!(sets[5].numval, 1);
        assert_eq!(
            sets[6].values[0].1.as_value(),
            archive_format::Value::Block {
                vtype: vtype::U64 as u8,
                data: &1234u64.to_be_bytes()
            }
        );
        assert_eq!(l.instances(DISK_INDOM), vec![(0, "sda".to_string())]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
