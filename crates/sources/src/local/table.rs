//! The table of the metrics this source exports (`data/linux.tsv`, made from PCP's
//! Linux agent by scripts/gen-builtin-table.py): where each value is read from and
//! how it is computed, parsed once, with the agent's help texts.

use super::*;

#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Src {
    Load,
    NThreads,
    Stat(&'static str, usize),
    StatCpu(Fx),
    PerCpu(Fx),
    StatKey(&'static str),
    NCpu,
    Mem(&'static str),
    MemUsed,
    /// used - cached - buffers (the agent's "unaccounted memory")
    MemOther,
    /// Cached - Dirty - Writeback
    MemCacheClean,
    /// a hugepage count times the hugepage size, in bytes
    HugeBytes(&'static str),
    Swap(&'static str),
    SwapUsed,
    Vmstat(&'static str),
    /// a metric this kernel has no data for (the agent's PM_ERR_APPVERSION)
    AppVersion,
    Disk(Fx, u64),
    DiskAll(Fx, u64),
    /// the selected one of /sys/block/<disk>/queue/scheduler
    DiskScheduler,
    /// /sys/block/<disk>/size in Kbytes
    DiskCapacity,
    NDisk,
    Net(usize),
    Uname(&'static str),
    Uptime,
    NProcs,
    Fs(FsField),
}

/// What a filesys.* metric reports of a filesystem's statvfs.
/// A value from the numeric fields of a line: a /proc/stat `cpu` line (user, nice,
/// system, idle, iowait, irq, softirq, steal, guest, guest_nice) or a
/// /proc/diskstats line (after the device name).
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Fx {
    F(usize),
    Sum(usize, usize),
    /// the first less the second (user or nice without guest time)
    Minus(usize, usize),
}

impl Fx {
    pub(super) fn of(self, f: &[u64]) -> u64 {
        let g = |k: usize| f.get(k).copied().unwrap_or(0);
        match self {
            Fx::F(k) => g(k),
            Fx::Sum(a, b) => g(a) + g(b),
            Fx::Minus(a, b) => g(a).saturating_sub(g(b)),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum FsField {
    Capacity,
    Used,
    Free,
    MaxFiles,
    UsedFiles,
    FreeFiles,
    MountDir,
    Full,
    BlockSize,
    Avail,
    ReadOnly,
}

pub(super) const FS_FIELDS: [(&str, FsField); 11] = [
    ("capacity", FsField::Capacity),
    ("used", FsField::Used),
    ("free", FsField::Free),
    ("maxfiles", FsField::MaxFiles),
    ("usedfiles", FsField::UsedFiles),
    ("freefiles", FsField::FreeFiles),
    ("mountdir", FsField::MountDir),
    ("full", FsField::Full),
    ("blocksize", FsField::BlockSize),
    ("avail", FsField::Avail),
    ("readonly", FsField::ReadOnly),
];

impl Fx {
    /// `N`, `N+M` or `N-M`: a field, a sum, a difference.
    pub(super) fn parse(s: &str) -> Option<Fx> {
        let num = |t: &str| t.parse::<usize>().ok();
        if let Some((a, b)) = s.split_once('+') {
            Some(Fx::Sum(num(a)?, num(b)?))
        } else if let Some((a, b)) = s.split_once('-') {
            Some(Fx::Minus(num(a)?, num(b)?))
        } else {
            Some(Fx::F(num(s)?))
        }
    }

    #[cfg(test)]
    pub(super) fn spec(self) -> String {
        match self {
            Fx::F(a) => a.to_string(),
            Fx::Sum(a, b) => format!("{a}+{b}"),
            Fx::Minus(a, b) => format!("{a}-{b}"),
        }
    }
}

impl Src {
    /// A metric's source as the table writes it: a word naming where the value
    /// comes from, then its arguments (see `data/linux.tsv`).
    pub(super) fn parse(s: &'static str) -> Result<Src, String> {
        let mut w = s.split_whitespace();
        let kind = w.next().unwrap_or("");
        let args: Vec<&'static str> = w.collect();
        let bad = || format!("bad source \"{s}\"");
        let one = || match args.as_slice() {
            [a] => Ok(*a),
            _ => Err(bad()),
        };
        let num = |t: &str| t.parse::<u64>().map_err(|_| bad());
        let fx = |t: &str| Fx::parse(t).ok_or_else(bad);
        let bare = |src: Src| if args.is_empty() { Ok(src) } else { Err(bad()) };
        match kind {
            "load" => bare(Src::Load),
            "nthreads" => bare(Src::NThreads),
            "ncpu" => bare(Src::NCpu),
            "memused" => bare(Src::MemUsed),
            "memother" => bare(Src::MemOther),
            "memcacheclean" => bare(Src::MemCacheClean),
            "swapused" => bare(Src::SwapUsed),
            "appversion" => bare(Src::AppVersion),
            "diskscheduler" => bare(Src::DiskScheduler),
            "diskcapacity" => bare(Src::DiskCapacity),
            "ndisk" => bare(Src::NDisk),
            "uptime" => bare(Src::Uptime),
            "nprocs" => bare(Src::NProcs),
            "statkey" => Ok(Src::StatKey(one()?)),
            "mem" => Ok(Src::Mem(one()?)),
            "hugebytes" => Ok(Src::HugeBytes(one()?)),
            "swap" => Ok(Src::Swap(one()?)),
            "vmstat" => Ok(Src::Vmstat(one()?)),
            "uname" => Ok(Src::Uname(one()?)),
            "net" => Ok(Src::Net(num(one()?)? as usize)),
            "statcpu" => Ok(Src::StatCpu(fx(one()?)?)),
            "percpu" => Ok(Src::PerCpu(fx(one()?)?)),
            "stat" => match args.as_slice() {
                [k, i] => Ok(Src::Stat(k, num(i)? as usize)),
                _ => Err(bad()),
            },
            "disk" | "diskall" => match args.as_slice() {
                [f, d] => {
                    let (f, d) = (fx(f)?, num(d)?);
                    Ok(if kind == "disk" {
                        Src::Disk(f, d)
                    } else {
                        Src::DiskAll(f, d)
                    })
                }
                _ => Err(bad()),
            },
            "fs" => {
                let f = one()?;
                FS_FIELDS
                    .iter()
                    .find(|(n, _)| *n == f)
                    .map(|(_, v)| Src::Fs(*v))
                    .ok_or_else(bad)
            }
            _ => Err(bad()),
        }
    }

    #[cfg(test)]
    pub(super) fn spec(self) -> String {
        match self {
            Src::Load => "load".into(),
            Src::NThreads => "nthreads".into(),
            Src::NCpu => "ncpu".into(),
            Src::MemUsed => "memused".into(),
            Src::MemOther => "memother".into(),
            Src::MemCacheClean => "memcacheclean".into(),
            Src::SwapUsed => "swapused".into(),
            Src::AppVersion => "appversion".into(),
            Src::DiskScheduler => "diskscheduler".into(),
            Src::DiskCapacity => "diskcapacity".into(),
            Src::NDisk => "ndisk".into(),
            Src::Uptime => "uptime".into(),
            Src::NProcs => "nprocs".into(),
            Src::StatKey(k) => format!("statkey {k}"),
            Src::Mem(k) => format!("mem {k}"),
            Src::HugeBytes(k) => format!("hugebytes {k}"),
            Src::Swap(k) => format!("swap {k}"),
            Src::Vmstat(k) => format!("vmstat {k}"),
            Src::Uname(k) => format!("uname {k}"),
            Src::Net(i) => format!("net {i}"),
            Src::StatCpu(f) => format!("statcpu {}", f.spec()),
            Src::PerCpu(f) => format!("percpu {}", f.spec()),
            Src::Stat(k, i) => format!("stat {k} {i}"),
            Src::Disk(f, d) => format!("disk {} {d}", f.spec()),
            Src::DiskAll(f, d) => format!("diskall {} {d}", f.spec()),
            Src::Fs(f) => {
                let n = FS_FIELDS
                    .iter()
                    .find(|(_, v)| *v == f)
                    .map_or("?", |(n, _)| n);
                format!("fs {n}")
            }
        }
    }
}

/// The metric table (`data/linux.tsv`) and the agents' help texts
/// (`data/linux.help`), both made by `scripts/gen-builtin-table.py`.
pub(super) const TABLE: &str = include_str!("../../data/linux.tsv");
pub(super) const HELP: &str = include_str!("../../data/linux.help");

/// A metric of the table: what it is, where its value comes from, its full help.
pub(super) struct Entry {
    pub(super) metric: Metric,
    pub(super) src: Src,
    pub(super) long_help: &'static str,
}

/// The help file: `@ KEY ONE-LINE` lines, each followed by its full text (if
/// any) up to the next such line; KEY is a metric name or an instance domain
/// (`60.2`). Comment lines come first.
pub(super) fn parse_help(
    text: &'static str,
) -> Result<HashMap<&'static str, (&'static str, &'static str)>, String> {
    let mut out = HashMap::new();
    let mut rest = text;
    while rest.starts_with('#') {
        rest = rest.split_once('\n').map_or("", |(_, r)| r);
    }
    if !rest.is_empty() && !rest.starts_with("@ ") {
        return Err("help: an entry must start with '@ '".into());
    }
    for chunk in rest.split("\n@ ") {
        let chunk = chunk.strip_prefix("@ ").unwrap_or(chunk);
        let (head, full) = chunk.split_once('\n').unwrap_or((chunk, ""));
        let (key, one) = head
            .split_once(' ')
            .ok_or_else(|| format!("help: no one-line text for \"{head}\""))?;
        let full = full.strip_suffix('\n').unwrap_or(full);
        if out.insert(key, (one, full)).is_some() {
            return Err(format!("help: \"{key}\" twice"));
        }
    }
    Ok(out)
}

/// `D.C.I` or `D.S`: a PMID or an instance domain as three or two numbers.
pub(super) fn dotted(s: &str) -> Option<Vec<u32>> {
    s.split('.').map(|n| n.parse().ok()).collect()
}

/// Reads the table; an error names the line and what is wrong (the data is
/// ours and tested, so this is for whoever edits it).
pub(super) fn parse_table(table: &'static str, help: &'static str) -> Result<Vec<Entry>, String> {
    let help = parse_help(help)?;
    let mut out = Vec::new();
    for (n, line) in table.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |what: &str| format!("linux.tsv line {}: {what}", n + 1);
        let f: Vec<&'static str> = line.split('\t').collect();
        let [name, pmid, ty, indom, sem, units, source] = f[..] else {
            return Err(at("not 7 tab-separated fields"));
        };
        let pmid = match dotted(pmid).as_deref() {
            Some(&[d, c, i]) => PmId::new(d, c, i),
            _ => return Err(at("bad PMID")),
        };
        let vtype = ["32", "u32", "64", "u64", "float", "double", "string"]
            .iter()
            .position(|t| *t == ty)
            .ok_or_else(|| at("bad type"))? as i32;
        let indom = match (indom, dotted(indom).as_deref()) {
            ("-", _) => InDom::NULL,
            (_, Some(&[d, s])) => InDom((d << 22) | s),
            _ => return Err(at("bad instance domain")),
        };
        let sem = match sem {
            "counter" => sem::COUNTER,
            "instant" => sem::INSTANT,
            "discrete" => sem::DISCRETE,
            _ => return Err(at("bad semantics")),
        };
        let units = units
            .strip_prefix("0x")
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| at("bad units"))?;
        let src = Src::parse(source).map_err(|e| at(&e))?;
        let (one, long_help) = help.get(name).copied().ok_or_else(|| at("no help text"))?;
        out.push(Entry {
            metric: Metric {
                name,
                desc: Desc {
                    pmid,
                    vtype,
                    indom,
                    sem,
                    units: Units(units),
                },
                help: one,
            },
            src,
            long_help,
        });
    }
    Ok(out)
}

pub(super) fn table() -> &'static [Entry] {
    static T: OnceLock<Vec<Entry>> = OnceLock::new();
    // the data is compiled in and checked by the tests: it cannot fail here
    T.get_or_init(|| parse_table(TABLE, HELP).unwrap_or_default())
}

/// The agents' help of an instance domain (keyed `D.S` in the help file).
pub(super) fn indom_text(indom: InDom) -> Option<(&'static str, &'static str)> {
    static H: OnceLock<HashMap<&'static str, (&'static str, &'static str)>> = OnceLock::new();
    let h = H.get_or_init(|| parse_help(HELP).unwrap_or_default());
    let key = format!("{}.{}", indom.0 >> 22, indom.0 & 0x3f_ffff);
    h.get(key.as_str()).copied()
}
