//! This machine's metrics, read from `/proc` and `/sys` as PCP's Linux agent (domain
//! 60) exports them: same names, PMIDs, types, semantics, units and instance domains.

use crate::vs;
use crate::{json_string, label, now, Metric, MetricSource, SourceError};
use archive_format::codec::meta::LabelSet;
use archive_format::codec::result::OwnedValueSet;
use archive_format::types::{sem, vtype, Desc, InDom, PmId, Timestamp, Units};
use std::collections::HashMap;
use std::sync::OnceLock;

const NONE: Units = Units(0);
const COUNT: Units = Units(0x0010_0000);
const MSEC: Units = Units(0x0100_2000);
const SEC: Units = Units(0x0100_3000);
const BYTE: Units = Units(0x1000_0000);
const KBYTE: Units = Units(0x1001_0000);

/// Instance domains of the Linux agent.
pub const CPU_INDOM: InDom = InDom(60 << 22);
pub const DISK_INDOM: InDom = InDom((60 << 22) | 1);
pub const LOAD_INDOM: InDom = InDom((60 << 22) | 2);
pub const NET_INDOM: InDom = InDom((60 << 22) | 3);
pub const FS_INDOM: InDom = InDom((60 << 22) | 5);

#[derive(Clone, Copy)]
enum Src {
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
#[derive(Clone, Copy)]
enum Fx {
    F(usize),
    Sum(usize, usize),
    /// the first less the second (user or nice without guest time)
    Minus(usize, usize),
}

impl Fx {
    fn of(self, f: &[u64]) -> u64 {
        let g = |k: usize| f.get(k).copied().unwrap_or(0);
        match self {
            Fx::F(k) => g(k),
            Fx::Sum(a, b) => g(a) + g(b),
            Fx::Minus(a, b) => g(a).saturating_sub(g(b)),
        }
    }
}

#[derive(Clone, Copy)]
enum FsField {
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

struct Def {
    name: &'static str,
    pmid: (u32, u32, u32),
    ty: i32,
    indom: InDom,
    sem: i32,
    units: Units,
    help: &'static str,
    src: Src,
}

macro_rules! def {
    ($n:expr, $c:expr, $i:expr, $ty:expr, $indom:expr, $sem:expr, $u:expr, $src:expr, $help:expr) => {
        Def {
            name: $n,
            pmid: (60, $c, $i),
            ty: $ty,
            indom: $indom,
            sem: $sem,
            units: $u,
            help: $help,
            src: $src,
        }
    };
}

const N: InDom = InDom::NULL;

fn defs() -> Vec<Def> {
    use Src::*;
    let (u32t, u64t, strt) = (vtype::U32, vtype::U64, vtype::STRING);
    let (c, i, d) = (sem::COUNTER, sem::INSTANT, sem::DISCRETE);
    vec![
        def!(
            "hinv.ncpu",
            0,
            32,
            u32t,
            N,
            d,
            NONE,
            NCpu,
            "number of CPUs in the system"
        ),
        def!(
            "hinv.ndisk",
            0,
            33,
            u32t,
            N,
            d,
            NONE,
            NDisk,
            "number of disks in the system"
        ),
        def!(
            "kernel.all.load",
            2,
            0,
            vtype::FLOAT,
            LOAD_INDOM,
            i,
            NONE,
            Load,
            "1, 5 and 15 minute load average"
        ),
        def!(
            "kernel.all.intr",
            0,
            12,
            u64t,
            N,
            c,
            COUNT,
            Stat("intr", 1),
            "intrrupt count metric from /proc/stat"
        ),
        def!(
            "kernel.all.pswitch",
            0,
            13,
            u64t,
            N,
            c,
            COUNT,
            StatKey("ctxt"),
            "context switches metric from /proc/stat"
        ),
        def!(
            "kernel.all.running",
            0,
            15,
            u64t,
            N,
            i,
            NONE,
            StatKey("procs_running"),
            "number of currently running processes from /proc/stat"
        ),
        def!(
            "kernel.all.blocked",
            0,
            16,
            u64t,
            N,
            i,
            NONE,
            StatKey("procs_blocked"),
            "number of currently blocked processes from /proc/stat"
        ),
        def!(
            "kernel.all.uptime",
            26,
            0,
            vtype::DOUBLE,
            N,
            i,
            SEC,
            Uptime,
            "time the current kernel has been running"
        ),
        def!(
            "kernel.all.nprocs",
            2,
            3,
            u32t,
            N,
            i,
            NONE,
            NThreads,
            "total number of processes (lightweight)"
        ),
        def!(
            "kernel.all.cpu.user",
            0,
            20,
            u64t,
            N,
            c,
            MSEC,
            StatCpu(Fx::F(0)),
            "total user CPU time from /proc/stat for all CPUs, including guest CPU time"
        ),
        def!(
            "kernel.all.cpu.nice",
            0,
            21,
            u64t,
            N,
            c,
            MSEC,
            StatCpu(Fx::F(1)),
            "total nice user CPU time from /proc/stat for all CPUs, including guest time"
        ),
        def!(
            "kernel.all.cpu.sys",
            0,
            22,
            u64t,
            N,
            c,
            MSEC,
            StatCpu(Fx::F(2)),
            "total sys CPU time from /proc/stat for all CPUs"
        ),
        def!(
            "kernel.all.cpu.idle",
            0,
            23,
            u64t,
            N,
            c,
            MSEC,
            StatCpu(Fx::F(3)),
            "total idle CPU time from /proc/stat for all CPUs"
        ),
        def!(
            "kernel.all.cpu.intr",
            0,
            34,
            u64t,
            N,
            c,
            MSEC,
            StatCpu(Fx::Sum(5, 6)),
            "total interrupt CPU time from /proc/stat for all CPUs"
        ),
        def!(
            "kernel.all.cpu.steal",
            0,
            55,
            u64t,
            N,
            c,
            MSEC,
            StatCpu(Fx::F(7)),
            "total virtualisation CPU steal time for all CPUs"
        ),
        def!(
            "kernel.all.cpu.guest",
            0,
            60,
            u64t,
            N,
            c,
            MSEC,
            StatCpu(Fx::F(8)),
            "total virtual guest CPU time for all CPUs"
        ),
        def!(
            "kernel.all.cpu.vuser",
            0,
            78,
            u64t,
            N,
            c,
            MSEC,
            StatCpu(Fx::Minus(0, 8)),
            "total user CPU time from /proc/stat for all CPUs, excluding guest CPU time"
        ),
        def!(
            "kernel.all.cpu.guest_nice",
            0,
            81,
            u64t,
            N,
            c,
            MSEC,
            StatCpu(Fx::F(9)),
            "total virtual guest CPU nice time for all CPUs"
        ),
        def!(
            "kernel.all.cpu.vnice",
            0,
            82,
            u64t,
            N,
            c,
            MSEC,
            StatCpu(Fx::Minus(1, 9)),
            "total nice user CPU time from /proc/stat for all CPUs, excluding guest time"
        ),
        def!(
            "kernel.all.cpu.wait.total",
            0,
            35,
            u64t,
            N,
            c,
            MSEC,
            StatCpu(Fx::F(4)),
            "total wait CPU time from /proc/stat for all CPUs"
        ),
        def!(
            "kernel.all.cpu.irq.soft",
            0,
            53,
            u64t,
            N,
            c,
            MSEC,
            StatCpu(Fx::F(6)),
            "soft interrupt CPU time from /proc/stat for all CPUs"
        ),
        def!(
            "kernel.all.cpu.irq.hard",
            0,
            54,
            u64t,
            N,
            c,
            MSEC,
            StatCpu(Fx::F(5)),
            "hard interrupt CPU time from /proc/stat for all CPUs"
        ),
        def!(
            "kernel.percpu.cpu.user",
            0,
            0,
            u64t,
            CPU_INDOM,
            c,
            MSEC,
            PerCpu(Fx::F(0)),
            "percpu user CPU time metric from /proc/stat, including guest CPU time"
        ),
        def!(
            "kernel.percpu.cpu.nice",
            0,
            1,
            u64t,
            CPU_INDOM,
            c,
            MSEC,
            PerCpu(Fx::F(1)),
            "percpu nice user CPU time metric from /proc/stat, including guest CPU time"
        ),
        def!(
            "kernel.percpu.cpu.sys",
            0,
            2,
            u64t,
            CPU_INDOM,
            c,
            MSEC,
            PerCpu(Fx::F(2)),
            "percpu sys CPU time metric from /proc/stat"
        ),
        def!(
            "kernel.percpu.cpu.idle",
            0,
            3,
            u64t,
            CPU_INDOM,
            c,
            MSEC,
            PerCpu(Fx::F(3)),
            "percpu idle CPU time metric from /proc/stat"
        ),
        def!(
            "kernel.percpu.cpu.intr",
            0,
            31,
            u64t,
            CPU_INDOM,
            c,
            MSEC,
            PerCpu(Fx::Sum(5, 6)),
            "percpu interrupt CPU time"
        ),
        def!(
            "kernel.percpu.cpu.steal",
            0,
            58,
            u64t,
            CPU_INDOM,
            c,
            MSEC,
            PerCpu(Fx::F(7)),
            "percpu CPU steal time"
        ),
        def!(
            "kernel.percpu.cpu.guest",
            0,
            61,
            u64t,
            CPU_INDOM,
            c,
            MSEC,
            PerCpu(Fx::F(8)),
            "percpu guest CPU time"
        ),
        def!(
            "kernel.percpu.cpu.vuser",
            0,
            76,
            u64t,
            CPU_INDOM,
            c,
            MSEC,
            PerCpu(Fx::Minus(0, 8)),
            "percpu user CPU time metric from /proc/stat, excluding guest CPU time"
        ),
        def!(
            "kernel.percpu.cpu.guest_nice",
            0,
            83,
            u64t,
            CPU_INDOM,
            c,
            MSEC,
            PerCpu(Fx::F(9)),
            "percpu nice guest CPU time"
        ),
        def!(
            "kernel.percpu.cpu.vnice",
            0,
            84,
            u64t,
            CPU_INDOM,
            c,
            MSEC,
            PerCpu(Fx::Minus(1, 9)),
            "percpu nice user CPU time metric from /proc/stat, excluding guest CPU time"
        ),
        def!(
            "kernel.percpu.cpu.wait.total",
            0,
            30,
            u64t,
            CPU_INDOM,
            c,
            MSEC,
            PerCpu(Fx::F(4)),
            "percpu wait CPU time"
        ),
        def!(
            "kernel.percpu.cpu.irq.soft",
            0,
            56,
            u64t,
            CPU_INDOM,
            c,
            MSEC,
            PerCpu(Fx::F(6)),
            "percpu soft interrupt CPU time"
        ),
        def!(
            "kernel.percpu.cpu.irq.hard",
            0,
            57,
            u64t,
            CPU_INDOM,
            c,
            MSEC,
            PerCpu(Fx::F(5)),
            "percpu hard interrupt CPU time"
        ),
        def!(
            "kernel.uname.release",
            12,
            0,
            vtype::STRING,
            N,
            d,
            NONE,
            Uname("osrelease"),
            "release level of the running kernel"
        ),
        def!(
            "kernel.uname.version",
            12,
            1,
            vtype::STRING,
            N,
            d,
            NONE,
            Uname("version"),
            "version level (build number) and build date of the running kernel"
        ),
        def!(
            "kernel.uname.sysname",
            12,
            2,
            vtype::STRING,
            N,
            d,
            NONE,
            Uname("ostype"),
            "name of the implementation of the operating system"
        ),
        def!(
            "kernel.uname.machine",
            12,
            3,
            vtype::STRING,
            N,
            d,
            NONE,
            Uname("machine"),
            "name of the hardware type the system is running on"
        ),
        def!(
            "kernel.uname.nodename",
            12,
            4,
            vtype::STRING,
            N,
            d,
            NONE,
            Uname("hostname"),
            "host name of this node on the network"
        ),
        def!(
            "mem.physmem",
            1,
            0,
            u64t,
            N,
            d,
            KBYTE,
            Mem("MemTotal"),
            "total system memory metric reported by /proc/meminfo"
        ),
        def!(
            "mem.util.used",
            1,
            1,
            u64t,
            N,
            i,
            KBYTE,
            MemUsed,
            "used memory metric from /proc/meminfo"
        ),
        def!(
            "mem.util.free",
            1,
            2,
            u64t,
            N,
            i,
            KBYTE,
            Mem("MemFree"),
            "free memory metric from /proc/meminfo"
        ),
        def!(
            "mem.util.shared",
            1,
            3,
            u64t,
            N,
            i,
            KBYTE,
            Mem("MemShared"),
            "shared memory metric from /proc/meminfo"
        ),
        def!(
            "mem.util.bufmem",
            1,
            4,
            u64t,
            N,
            i,
            KBYTE,
            Mem("Buffers"),
            "I/O buffers metric from /proc/meminfo"
        ),
        def!(
            "mem.util.cached",
            1,
            5,
            u64t,
            N,
            i,
            KBYTE,
            Mem("Cached"),
            "page cache metric from /proc/meminfo"
        ),
        def!(
            "mem.util.other",
            1,
            12,
            u64t,
            N,
            i,
            KBYTE,
            MemOther,
            "unaccounted memory"
        ),
        def!(
            "mem.util.swapCached",
            1,
            13,
            u64t,
            N,
            i,
            KBYTE,
            Mem("SwapCached"),
            "Kbytes in swap cache, from /proc/meminfo"
        ),
        def!(
            "mem.util.active",
            1,
            14,
            u64t,
            N,
            i,
            KBYTE,
            Mem("Active"),
            "Kbytes on the active page list (recently referenced pages)"
        ),
        def!(
            "mem.util.inactive",
            1,
            15,
            u64t,
            N,
            i,
            KBYTE,
            Mem("Inactive"),
            "Kbytes on the inactive page list (candidates for discarding)"
        ),
        def!(
            "mem.util.highTotal",
            1,
            16,
            u64t,
            N,
            i,
            KBYTE,
            Mem("HighTotal"),
            "Kbytes in high memory, from /proc/meminfo"
        ),
        def!(
            "mem.util.highFree",
            1,
            17,
            u64t,
            N,
            i,
            KBYTE,
            Mem("HighFree"),
            "Kbytes free high memory, from /proc/meminfo"
        ),
        def!(
            "mem.util.lowTotal",
            1,
            18,
            u64t,
            N,
            i,
            KBYTE,
            Mem("LowTotal"),
            "Kbytes in low memory total, from /proc/meminfo"
        ),
        def!(
            "mem.util.lowFree",
            1,
            19,
            u64t,
            N,
            i,
            KBYTE,
            Mem("LowFree"),
            "Kbytes free low memory, from /proc/meminfo"
        ),
        def!(
            "mem.util.swapTotal",
            1,
            20,
            u64t,
            N,
            i,
            KBYTE,
            Mem("SwapTotal"),
            "Kbytes swap, from /proc/meminfo"
        ),
        def!(
            "mem.util.swapFree",
            1,
            21,
            u64t,
            N,
            i,
            KBYTE,
            Mem("SwapFree"),
            "Kbytes free swap, from /proc/meminfo"
        ),
        def!(
            "mem.util.dirty",
            1,
            22,
            u64t,
            N,
            i,
            KBYTE,
            Mem("Dirty"),
            "Kbytes in dirty pages, from /proc/meminfo"
        ),
        def!(
            "mem.util.writeback",
            1,
            23,
            u64t,
            N,
            i,
            KBYTE,
            Mem("Writeback"),
            "Kbytes in writeback pages, from /proc/meminfo"
        ),
        def!(
            "mem.util.mapped",
            1,
            24,
            u64t,
            N,
            i,
            KBYTE,
            Mem("Mapped"),
            "Kbytes in mapped pages, from /proc/meminfo"
        ),
        def!(
            "mem.util.slab",
            1,
            25,
            u64t,
            N,
            i,
            KBYTE,
            Mem("Slab"),
            "Kbytes in slab memory, from /proc/meminfo"
        ),
        def!(
            "mem.util.committed_AS",
            1,
            26,
            u64t,
            N,
            i,
            KBYTE,
            Mem("Committed_AS"),
            "Kbytes committed to address spaces, from /proc/meminfo"
        ),
        def!(
            "mem.util.pageTables",
            1,
            27,
            u64t,
            N,
            i,
            KBYTE,
            Mem("PageTables"),
            "Kbytes in kernel page tables, from /proc/meminfo"
        ),
        def!(
            "mem.util.reverseMaps",
            1,
            28,
            u64t,
            N,
            i,
            KBYTE,
            Mem("ReverseMaps"),
            "Kbytes in reverse mapped pages, from /proc/meminfo"
        ),
        def!(
            "mem.util.cache_clean",
            1,
            29,
            u64t,
            N,
            i,
            KBYTE,
            MemCacheClean,
            "Kbytes cached and not dirty or writeback, derived from /proc/meminfo"
        ),
        def!(
            "mem.util.anonpages",
            1,
            30,
            u64t,
            N,
            i,
            KBYTE,
            Mem("AnonPages"),
            "Kbytes in user pages not backed by files, from /proc/meminfo"
        ),
        def!(
            "mem.util.commitLimit",
            1,
            31,
            u64t,
            N,
            i,
            KBYTE,
            Mem("CommitLimit"),
            "Kbytes limit for address space commit, from /proc/meminfo"
        ),
        def!(
            "mem.util.bounce",
            1,
            32,
            u64t,
            N,
            i,
            KBYTE,
            Mem("Bounce"),
            "Kbytes in bounce buffers, from /proc/meminfo"
        ),
        def!(
            "mem.util.NFS_Unstable",
            1,
            33,
            u64t,
            N,
            i,
            KBYTE,
            Mem("NFS_Unstable"),
            "Kbytes in NFS unstable memory, from /proc/meminfo"
        ),
        def!(
            "mem.util.slabReclaimable",
            1,
            34,
            u64t,
            N,
            i,
            KBYTE,
            Mem("SReclaimable"),
            "Kbytes in reclaimable slab pages, from /proc/meminfo"
        ),
        def!(
            "mem.util.slabUnreclaimable",
            1,
            35,
            u64t,
            N,
            i,
            KBYTE,
            Mem("SUnreclaim"),
            "Kbytes in unreclaimable slab pages, from /proc/meminfo"
        ),
        def!(
            "mem.util.active_anon",
            1,
            36,
            u64t,
            N,
            i,
            KBYTE,
            Mem("Active(anon)"),
            "anonymous Active list LRU memory"
        ),
        def!(
            "mem.util.inactive_anon",
            1,
            37,
            u64t,
            N,
            i,
            KBYTE,
            Mem("Inactive(anon)"),
            "anonymous Inactive list LRU memory"
        ),
        def!(
            "mem.util.active_file",
            1,
            38,
            u64t,
            N,
            i,
            KBYTE,
            Mem("Active(file)"),
            "file-backed Active list LRU memory"
        ),
        def!(
            "mem.util.inactive_file",
            1,
            39,
            u64t,
            N,
            i,
            KBYTE,
            Mem("Inactive(file)"),
            "file-backed Inactive list LRU memory"
        ),
        def!(
            "mem.util.unevictable",
            1,
            40,
            u64t,
            N,
            i,
            KBYTE,
            Mem("Unevictable"),
            "kbytes of memory that is unevictable"
        ),
        def!(
            "mem.util.mlocked",
            1,
            41,
            u64t,
            N,
            i,
            KBYTE,
            Mem("Mlocked"),
            "kbytes of memory that is pinned via mlock()"
        ),
        def!(
            "mem.util.shmem",
            1,
            42,
            u64t,
            N,
            i,
            KBYTE,
            Mem("Shmem"),
            "kbytes of shmem"
        ),
        def!(
            "mem.util.kernelStack",
            1,
            43,
            u64t,
            N,
            i,
            KBYTE,
            Mem("KernelStack"),
            "kbytes of memory used for kernel stacks"
        ),
        def!(
            "mem.util.hugepagesTotal",
            1,
            44,
            u64t,
            N,
            i,
            COUNT,
            Mem("HugePages_Total"),
            "a count of total hugepages"
        ),
        def!(
            "mem.util.hugepagesFree",
            1,
            45,
            u64t,
            N,
            i,
            COUNT,
            Mem("HugePages_Free"),
            "a count of free hugepages"
        ),
        def!(
            "mem.util.hugepagesRsvd",
            1,
            46,
            u64t,
            N,
            i,
            COUNT,
            Mem("HugePages_Rsvd"),
            "a count of reserved hugepages"
        ),
        def!(
            "mem.util.hugepagesSurp",
            1,
            47,
            u64t,
            N,
            i,
            COUNT,
            Mem("HugePages_Surp"),
            "a count of surplus hugepages"
        ),
        def!(
            "mem.util.directMap4k",
            1,
            48,
            u64t,
            N,
            i,
            KBYTE,
            Mem("DirectMap4k"),
            "amount of memory that is directly mapped in 4kB pages"
        ),
        def!(
            "mem.util.directMap2M",
            1,
            49,
            u64t,
            N,
            i,
            KBYTE,
            Mem("DirectMap2M"),
            "amount of memory that is directly mapped in 2MB pages"
        ),
        def!(
            "mem.util.vmallocTotal",
            1,
            50,
            u64t,
            N,
            i,
            KBYTE,
            Mem("VmallocTotal"),
            "amount of kernel memory allocated via vmalloc"
        ),
        def!(
            "mem.util.vmallocUsed",
            1,
            51,
            u64t,
            N,
            i,
            KBYTE,
            Mem("VmallocUsed"),
            "amount of used vmalloc memory"
        ),
        def!(
            "mem.util.vmallocChunk",
            1,
            52,
            u64t,
            N,
            i,
            KBYTE,
            Mem("VmallocChunk"),
            "amount of vmalloc chunk memory"
        ),
        def!(
            "mem.util.mmap_copy",
            1,
            53,
            u64t,
            N,
            i,
            KBYTE,
            Mem("MmapCopy"),
            "amount of mmap_copy space (non-MMU kernels only)"
        ),
        def!(
            "mem.util.quicklists",
            1,
            54,
            u64t,
            N,
            i,
            KBYTE,
            Mem("Quicklists"),
            "amount of memory in the per-CPU quicklists"
        ),
        def!(
            "mem.util.corrupthardware",
            1,
            55,
            u64t,
            N,
            i,
            KBYTE,
            Mem("HardwareCorrupted"),
            "amount of memory in hardware corrupted pages"
        ),
        def!(
            "mem.util.anonhugepages",
            1,
            56,
            u64t,
            N,
            i,
            KBYTE,
            Mem("AnonHugePages"),
            "amount of memory in anonymous huge pages"
        ),
        def!(
            "mem.util.directMap1G",
            1,
            57,
            u64t,
            N,
            i,
            KBYTE,
            Mem("DirectMap1G"),
            "amount of memory that is directly mapped in 1GB pages"
        ),
        def!(
            "mem.util.available",
            1,
            58,
            u64t,
            N,
            i,
            KBYTE,
            Mem("MemAvailable"),
            "available memory from /proc/meminfo"
        ),
        def!(
            "mem.util.hugepagesTotalBytes",
            1,
            60,
            u64t,
            N,
            i,
            BYTE,
            HugeBytes("HugePages_Total"),
            "amount of memory in total hugepages"
        ),
        def!(
            "mem.util.hugepagesFreeBytes",
            1,
            61,
            u64t,
            N,
            i,
            BYTE,
            HugeBytes("HugePages_Free"),
            "amount of memory in free hugepages"
        ),
        def!(
            "mem.util.hugepagesRsvdBytes",
            1,
            62,
            u64t,
            N,
            i,
            BYTE,
            HugeBytes("HugePages_Rsvd"),
            "amount of memory in reserved hugepages"
        ),
        def!(
            "mem.util.hugepagesSurpBytes",
            1,
            63,
            u64t,
            N,
            i,
            BYTE,
            HugeBytes("HugePages_Surp"),
            "amount of memory in surplus hugepages"
        ),
        def!(
            "swap.pagesin",
            0,
            8,
            u32t,
            N,
            c,
            COUNT,
            Vmstat("pswpin"),
            "pages read from swap devices due to demand for physical memory"
        ),
        def!(
            "swap.pagesout",
            0,
            9,
            u32t,
            N,
            c,
            COUNT,
            Vmstat("pswpout"),
            "pages written to swap devices due to demand for physical memory"
        ),
        def!(
            "swap.in",
            0,
            10,
            u32t,
            N,
            c,
            COUNT,
            AppVersion,
            "number of swap in operations"
        ),
        def!(
            "swap.out",
            0,
            11,
            u32t,
            N,
            c,
            COUNT,
            AppVersion,
            "number of swap out operations"
        ),
        def!(
            "swap.free",
            1,
            8,
            u64t,
            N,
            i,
            BYTE,
            Swap("SwapFree"),
            "swap free metric from /proc/meminfo"
        ),
        def!(
            "swap.length",
            1,
            6,
            u64t,
            N,
            i,
            BYTE,
            Swap("SwapTotal"),
            "total swap available metric from /proc/meminfo"
        ),
        def!(
            "swap.used",
            1,
            7,
            u64t,
            N,
            i,
            BYTE,
            SwapUsed,
            "swap used metric from /proc/meminfo"
        ),
        def!(
            "network.interface.in.bytes",
            3,
            0,
            u64t,
            NET_INDOM,
            c,
            BYTE,
            Net(0),
            "network recv read bytes from /proc/net/dev per network interface"
        ),
        def!(
            "network.interface.in.packets",
            3,
            1,
            u64t,
            NET_INDOM,
            c,
            COUNT,
            Net(1),
            "network recv read packets from /proc/net/dev per network interface"
        ),
        def!(
            "network.interface.in.errors",
            3,
            2,
            u64t,
            NET_INDOM,
            c,
            COUNT,
            Net(2),
            "network recv read errors from /proc/net/dev per network interface"
        ),
        def!(
            "network.interface.in.drops",
            3,
            3,
            u64t,
            NET_INDOM,
            c,
            COUNT,
            Net(3),
            "network recv read drops from /proc/net/dev per network interface"
        ),
        def!(
            "network.interface.out.bytes",
            3,
            8,
            u64t,
            NET_INDOM,
            c,
            BYTE,
            Net(8),
            "network send bytes from /proc/net/dev per network interface"
        ),
        def!(
            "network.interface.out.packets",
            3,
            9,
            u64t,
            NET_INDOM,
            c,
            COUNT,
            Net(9),
            "network send packets from /proc/net/dev per network interface"
        ),
        def!(
            "network.interface.out.errors",
            3,
            10,
            u64t,
            NET_INDOM,
            c,
            COUNT,
            Net(10),
            "network send errors from /proc/net/dev per network interface"
        ),
        def!(
            "network.interface.out.drops",
            3,
            11,
            u64t,
            NET_INDOM,
            c,
            COUNT,
            Net(11),
            "network send drops from /proc/net/dev per network interface"
        ),
        def!(
            "disk.dev.read",
            0,
            4,
            u64t,
            DISK_INDOM,
            c,
            COUNT,
            Disk(Fx::F(0), 1),
            "per-disk read operations"
        ),
        def!(
            "disk.dev.write",
            0,
            5,
            u64t,
            DISK_INDOM,
            c,
            COUNT,
            Disk(Fx::F(4), 1),
            "per-disk write operations"
        ),
        def!(
            "disk.dev.total",
            0,
            28,
            u64t,
            DISK_INDOM,
            c,
            COUNT,
            Disk(Fx::Sum(0, 4), 1),
            "per-disk total (read+write) operations"
        ),
        def!(
            "disk.dev.blkread",
            0,
            6,
            u64t,
            DISK_INDOM,
            c,
            COUNT,
            Disk(Fx::F(2), 1),
            "per-disk block read operations"
        ),
        def!(
            "disk.dev.blkwrite",
            0,
            7,
            u64t,
            DISK_INDOM,
            c,
            COUNT,
            Disk(Fx::F(6), 1),
            "per-disk block write operations"
        ),
        def!(
            "disk.dev.blktotal",
            0,
            36,
            u64t,
            DISK_INDOM,
            c,
            COUNT,
            Disk(Fx::Sum(2, 6), 1),
            "per-disk total (read+write) block operations"
        ),
        def!(
            "disk.dev.read_bytes",
            0,
            38,
            u64t,
            DISK_INDOM,
            c,
            KBYTE,
            Disk(Fx::F(2), 2),
            "per-disk count of bytes read"
        ),
        def!(
            "disk.dev.write_bytes",
            0,
            39,
            u64t,
            DISK_INDOM,
            c,
            KBYTE,
            Disk(Fx::F(6), 2),
            "per-disk count of bytes written"
        ),
        def!(
            "disk.dev.total_bytes",
            0,
            40,
            u64t,
            DISK_INDOM,
            c,
            KBYTE,
            Disk(Fx::Sum(2, 6), 2),
            "per-disk count of total bytes read and written"
        ),
        def!(
            "disk.dev.read_merge",
            0,
            49,
            u64t,
            DISK_INDOM,
            c,
            COUNT,
            Disk(Fx::F(1), 1),
            "per-disk count of merged read requests"
        ),
        def!(
            "disk.dev.write_merge",
            0,
            50,
            u64t,
            DISK_INDOM,
            c,
            COUNT,
            Disk(Fx::F(5), 1),
            "per-disk count of merged write requests"
        ),
        def!(
            "disk.dev.avactive",
            0,
            46,
            u32t,
            DISK_INDOM,
            c,
            MSEC,
            Disk(Fx::F(9), 1),
            "per-disk count of active time"
        ),
        def!(
            "disk.dev.read_rawactive",
            0,
            72,
            u32t,
            DISK_INDOM,
            c,
            MSEC,
            Disk(Fx::F(3), 1),
            "per-disk raw count of read response time"
        ),
        def!(
            "disk.dev.write_rawactive",
            0,
            73,
            u32t,
            DISK_INDOM,
            c,
            MSEC,
            Disk(Fx::F(7), 1),
            "per-disk raw count of write response time"
        ),
        def!(
            "disk.dev.total_rawactive",
            0,
            79,
            u32t,
            DISK_INDOM,
            c,
            MSEC,
            Disk(Fx::Sum(3, 7), 1),
            "per-disk raw count of I/O response time"
        ),
        def!(
            "disk.dev.aveq",
            0,
            47,
            u32t,
            DISK_INDOM,
            c,
            MSEC,
            Disk(Fx::F(10), 1),
            "per-disk time averaged count of request queue length"
        ),
        def!(
            "disk.dev.scheduler",
            0,
            59,
            strt,
            DISK_INDOM,
            d,
            NONE,
            DiskScheduler,
            "per-disk I/O scheduler"
        ),
        def!(
            "disk.dev.capacity",
            0,
            87,
            u64t,
            DISK_INDOM,
            d,
            KBYTE,
            DiskCapacity,
            "per-disk physical device capacity"
        ),
        def!(
            "disk.dev.discard",
            0,
            88,
            u64t,
            DISK_INDOM,
            c,
            COUNT,
            Disk(Fx::F(11), 1),
            "per-disk discard operations"
        ),
        def!(
            "disk.dev.blkdiscard",
            0,
            89,
            u64t,
            DISK_INDOM,
            c,
            COUNT,
            Disk(Fx::F(13), 1),
            "per-disk block discard operations"
        ),
        def!(
            "disk.dev.discard_bytes",
            0,
            90,
            u64t,
            DISK_INDOM,
            c,
            KBYTE,
            Disk(Fx::F(13), 2),
            "per-disk count of bytes discard'ed"
        ),
        def!(
            "disk.dev.discard_merge",
            0,
            91,
            u64t,
            DISK_INDOM,
            c,
            COUNT,
            Disk(Fx::F(12), 1),
            "per-disk count of merged discard requests"
        ),
        def!(
            "disk.dev.discard_rawactive",
            0,
            92,
            u32t,
            DISK_INDOM,
            c,
            MSEC,
            Disk(Fx::F(14), 1),
            "per-disk raw count of discard response time"
        ),
        def!(
            "disk.dev.flush",
            0,
            93,
            u64t,
            DISK_INDOM,
            c,
            COUNT,
            Disk(Fx::F(15), 1),
            "per-disk flush operations"
        ),
        def!(
            "disk.dev.flush_rawactive",
            0,
            94,
            u32t,
            DISK_INDOM,
            c,
            MSEC,
            Disk(Fx::F(16), 1),
            "per-disk raw count of flush response time"
        ),
        def!(
            "disk.dev.inflight",
            0,
            95,
            u32t,
            DISK_INDOM,
            i,
            NONE,
            Disk(Fx::F(8), 1),
            "number of I/Os currently in flight"
        ),
        def!(
            "disk.all.read",
            0,
            24,
            u64t,
            N,
            c,
            COUNT,
            DiskAll(Fx::F(0), 1),
            "total read operations, summed for all disks"
        ),
        def!(
            "disk.all.write",
            0,
            25,
            u64t,
            N,
            c,
            COUNT,
            DiskAll(Fx::F(4), 1),
            "total write operations, summed for all disks"
        ),
        def!(
            "disk.all.total",
            0,
            29,
            u64t,
            N,
            c,
            COUNT,
            DiskAll(Fx::Sum(0, 4), 1),
            "total (read+write) operations, summed for all disks"
        ),
        def!(
            "disk.all.blkread",
            0,
            26,
            u64t,
            N,
            c,
            COUNT,
            DiskAll(Fx::F(2), 1),
            "block read operations, summed for all disks"
        ),
        def!(
            "disk.all.blkwrite",
            0,
            27,
            u64t,
            N,
            c,
            COUNT,
            DiskAll(Fx::F(6), 1),
            "block write operations, summed for all disks"
        ),
        def!(
            "disk.all.blktotal",
            0,
            37,
            u64t,
            N,
            c,
            COUNT,
            DiskAll(Fx::Sum(2, 6), 1),
            "total (read+write) block operations, summed for all disks"
        ),
        def!(
            "disk.all.read_bytes",
            0,
            41,
            u64t,
            N,
            c,
            KBYTE,
            DiskAll(Fx::F(2), 2),
            "count of bytes read for all disk devices"
        ),
        def!(
            "disk.all.write_bytes",
            0,
            42,
            u64t,
            N,
            c,
            KBYTE,
            DiskAll(Fx::F(6), 2),
            "count of bytes written for all disk devices"
        ),
        def!(
            "disk.all.total_bytes",
            0,
            43,
            u64t,
            N,
            c,
            KBYTE,
            DiskAll(Fx::Sum(2, 6), 2),
            "total count of bytes read and written for all disk devices"
        ),
        def!(
            "disk.all.read_merge",
            0,
            51,
            u64t,
            N,
            c,
            COUNT,
            DiskAll(Fx::F(1), 1),
            "total count of merged read requests, summed for all disks"
        ),
        def!(
            "disk.all.write_merge",
            0,
            52,
            u64t,
            N,
            c,
            COUNT,
            DiskAll(Fx::F(5), 1),
            "total count of merged write requests, summed for all disks"
        ),
        def!(
            "disk.all.avactive",
            0,
            44,
            u64t,
            N,
            c,
            MSEC,
            DiskAll(Fx::F(9), 1),
            "total count of active time, summed for all disks"
        ),
        def!(
            "disk.all.read_rawactive",
            0,
            74,
            u64t,
            N,
            c,
            MSEC,
            DiskAll(Fx::F(3), 1),
            "raw count of read response time, summed for all disks"
        ),
        def!(
            "disk.all.write_rawactive",
            0,
            75,
            u64t,
            N,
            c,
            MSEC,
            DiskAll(Fx::F(7), 1),
            "raw count of write response time, summed for all disks"
        ),
        def!(
            "disk.all.total_rawactive",
            0,
            80,
            u64t,
            N,
            c,
            MSEC,
            DiskAll(Fx::Sum(3, 7), 1),
            "raw count of I/O response time, summed for all disks"
        ),
        def!(
            "disk.all.aveq",
            0,
            45,
            u64t,
            N,
            c,
            MSEC,
            DiskAll(Fx::F(10), 1),
            "total time averaged count of request queue length, summed for all disks"
        ),
        def!(
            "disk.all.discard",
            0,
            96,
            u64t,
            N,
            c,
            COUNT,
            DiskAll(Fx::F(11), 1),
            "total discard operations, summed for all disks"
        ),
        def!(
            "disk.all.blkdiscard",
            0,
            97,
            u64t,
            N,
            c,
            COUNT,
            DiskAll(Fx::F(13), 1),
            "block discard operations, summed for all disks"
        ),
        def!(
            "disk.all.discard_bytes",
            0,
            98,
            u64t,
            N,
            c,
            KBYTE,
            DiskAll(Fx::F(13), 2),
            "count of discard bytes for all disk devices"
        ),
        def!(
            "disk.all.discard_merge",
            0,
            99,
            u64t,
            N,
            c,
            COUNT,
            DiskAll(Fx::F(12), 1),
            "total count of merged discard requests, summed for all disks"
        ),
        def!(
            "disk.all.discard_rawactive",
            0,
            100,
            u32t,
            N,
            c,
            MSEC,
            DiskAll(Fx::F(14), 1),
            "raw count of discard response time, summed for all disks"
        ),
        def!(
            "disk.all.flush",
            0,
            101,
            u64t,
            N,
            c,
            COUNT,
            DiskAll(Fx::F(15), 1),
            "total flush operations, summed for all disks"
        ),
        def!(
            "disk.all.flush_rawactive",
            0,
            102,
            u32t,
            N,
            c,
            MSEC,
            DiskAll(Fx::F(16), 1),
            "raw count of flush response time, summed for all disks"
        ),
        def!(
            "disk.all.inflight",
            0,
            104,
            u64t,
            N,
            i,
            NONE,
            DiskAll(Fx::F(8), 1),
            "aggregate number of I/Os currently in flight"
        ),
        def!(
            "filesys.capacity",
            5,
            1,
            u64t,
            FS_INDOM,
            d,
            KBYTE,
            Fs(FsField::Capacity),
            "total capacity of mounted filesystem (Kbytes)"
        ),
        def!(
            "filesys.used",
            5,
            2,
            u64t,
            FS_INDOM,
            i,
            KBYTE,
            Fs(FsField::Used),
            "total space used on mounted filesystem (Kbytes)"
        ),
        def!(
            "filesys.free",
            5,
            3,
            u64t,
            FS_INDOM,
            i,
            KBYTE,
            Fs(FsField::Free),
            "total space free on mounted filesystem (Kbytes)"
        ),
        def!(
            "filesys.maxfiles",
            5,
            4,
            u32t,
            FS_INDOM,
            d,
            NONE,
            Fs(FsField::MaxFiles),
            "inodes capacity of mounted filesystem"
        ),
        def!(
            "filesys.usedfiles",
            5,
            5,
            u32t,
            FS_INDOM,
            i,
            NONE,
            Fs(FsField::UsedFiles),
            "number of inodes allocated on mounted filesystem"
        ),
        def!(
            "filesys.freefiles",
            5,
            6,
            u32t,
            FS_INDOM,
            i,
            NONE,
            Fs(FsField::FreeFiles),
            "number of unallocated inodes on mounted filesystem"
        ),
        def!(
            "filesys.mountdir",
            5,
            7,
            vtype::STRING,
            FS_INDOM,
            d,
            NONE,
            Fs(FsField::MountDir),
            "file system mount point"
        ),
        def!(
            "filesys.full",
            5,
            8,
            vtype::DOUBLE,
            FS_INDOM,
            i,
            NONE,
            Fs(FsField::Full),
            "percentage of filesystem in use"
        ),
        def!(
            "filesys.blocksize",
            5,
            9,
            u32t,
            FS_INDOM,
            i,
            BYTE,
            Fs(FsField::BlockSize),
            "size of each block on mounted filesystem (Bytes)"
        ),
        def!(
            "filesys.avail",
            5,
            10,
            u64t,
            FS_INDOM,
            i,
            KBYTE,
            Fs(FsField::Avail),
            "space available to non-superusers on mounted filesystem (Kbytes)"
        ),
        def!(
            "filesys.readonly",
            5,
            11,
            u32t,
            FS_INDOM,
            i,
            NONE,
            Fs(FsField::ReadOnly),
            "indicates whether a filesystem is mounted readonly"
        ),
        Def {
            name: "proc.nprocs",
            pmid: (3, 8, 99),
            ty: u32t,
            indom: N,
            sem: i,
            units: NONE,
            help: "instantaneous number of processes",
            src: NProcs,
        },
    ]
}

fn table() -> &'static [(Metric, Src)] {
    static T: OnceLock<Vec<(Metric, Src)>> = OnceLock::new();
    T.get_or_init(|| {
        defs()
            .into_iter()
            .map(|d| {
                (
                    Metric {
                        name: d.name,
                        desc: Desc {
                            pmid: PmId::new(d.pmid.0, d.pmid.1, d.pmid.2),
                            vtype: d.ty,
                            indom: d.indom,
                            sem: d.sem,
                            units: d.units,
                        },
                        help: d.help,
                    },
                    d.src,
                )
            })
            .collect()
    })
}

/// This machine as a metric source.
pub struct Local {
    root: std::path::PathBuf,
    metrics: Vec<Metric>,
    /// Instance ids handed out so far, by domain and name (stable for the run).
    ids: HashMap<(InDom, String), i32>,
    /// Instances seen by the last fetch, per domain (so that asking for an
    /// instance domain right after a fetch reads nothing again).
    seen: HashMap<InDom, Vec<(i32, String)>>,
    /// The /proc files read so far, kept open: each sample reads them again from
    /// offset 0, without opening, sizing and closing them each time.
    handles: HashMap<&'static str, std::fs::File>,
    /// Per-device /sys files (a disk's size and scheduler), kept open likewise.
    sys_handles: HashMap<String, std::fs::File>,
    /// Where each PMID is in the metric table.
    index: HashMap<PmId, usize>,
    /// The read buffer, kept between samples.
    scratch: Vec<u8>,
    /// Where each key of a `key: value` file was found last (see `Snap::kv`).
    kv_hints: HashMap<(&'static str, &'static str), usize>,
}

impl Default for Local {
    fn default() -> Self {
        Local::new("/")
    }
}

type Rows = std::rc::Rc<Vec<(i32, Vec<u64>)>>;

/// One fetch's view of the files it reads (each read and parsed at most once).
#[derive(Default)]
struct Snap {
    files: HashMap<&'static str, String>,
    /// Where each (file, key) line was found last (lent by the source).
    kv_hints: HashMap<(&'static str, &'static str), usize>,
    /// Open files, lent by the source for the fetch.
    handles: HashMap<&'static str, std::fs::File>,
    /// Open per-device /sys files, lent likewise.
    sys_handles: HashMap<String, std::fs::File>,
    /// The buffer files are read into (lent by the source, reused).
    scratch: Vec<u8>,
    cpus: Option<Rows>,
    disks: Option<Rows>,
    nets: Option<Rows>,
    filesystems: Option<std::rc::Rc<Vec<(i32, String, String)>>>,
    statvfs: HashMap<String, Option<FsStat>>,
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

/// Reads a whole file from its start (a /proc file is generated afresh) through
/// `buf`. A read that does not fill the buffer has reached the end, as /proc files
/// fill what they are given, so one read is usually all it takes.
fn read_from_start(f: &std::fs::File, buf: &mut Vec<u8>) -> std::io::Result<String> {
    use std::os::unix::fs::FileExt;
    if buf.is_empty() {
        buf.resize(16 * 1024, 0);
    }
    let mut len = 0;
    loop {
        let n = f.read_at(&mut buf[len..], len as u64)?;
        len += n;
        if n == 0 || len < buf.len() {
            break;
        }
        buf.resize(buf.len() * 2, 0);
    }
    Ok(String::from_utf8_lossy(&buf[..len]).into_owned())
}

/// A file read from its start through a handle in `handles` under `key`, opened
/// on first use and kept open between samples; `None` when it cannot be opened or
/// read (a handle that fails is dropped, to be opened afresh next time).
fn read_kept<K: std::hash::Hash + Eq + Clone>(
    handles: &mut HashMap<K, std::fs::File>,
    key: K,
    path: &std::path::Path,
    scratch: &mut Vec<u8>,
) -> Option<String> {
    if !handles.contains_key(&key) {
        let h = std::fs::File::open(path).ok()?;
        handles.insert(key.clone(), h);
    }
    let read = handles.get(&key).map(|h| read_from_start(h, scratch));
    match read {
        Some(Ok(t)) => Some(t),
        _ => {
            handles.remove(&key);
            None
        }
    }
}

impl Snap {
    /// A /sys file under `root`, read from its start through a handle kept open
    /// between samples (sysfs regenerates it on a read from offset 0); `None` when it
    /// cannot be read.
    fn sys_file(&mut self, root: &std::path::Path, rel: String) -> Option<String> {
        let path = root.join(&rel);
        read_kept(&mut self.sys_handles, rel, &path, &mut self.scratch)
    }

    /// The first number after `key` in a `key: value` or `key value` file. Where
    /// the key's line was found last time is remembered (the kernel writes these
    /// files in a fixed order), so a lookup usually reads one line; otherwise the
    /// lines are scanned.
    fn kv(&mut self, root: &std::path::Path, f: &'static str, key: &'static str) -> Option<u64> {
        self.get(root, f);
        let text = self.files.get(f).map_or("", String::as_str);
        if let Some(&at) = self.kv_hints.get(&(f, key)) {
            if let Some(v) = kv_line(text, at, key) {
                return Some(v);
            }
        }
        let mut at = 0;
        for line in text.split_inclusive('\n') {
            if let Some(v) = kv_line(text, at, key) {
                self.kv_hints.insert((f, key), at);
                return Some(v);
            }
            at += line.len();
        }
        None
    }

    fn get(&mut self, root: &std::path::Path, f: &'static str) -> &str {
        if !self.files.contains_key(f) {
            let text = read_kept(&mut self.handles, f, &root.join(f), &mut self.scratch)
                .unwrap_or_default();
            self.files.insert(f, text);
        }
        self.files.get(f).map_or("", String::as_str)
    }
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
            root: root.into(),
            metrics: table().iter().map(|(m, _)| m.clone()).collect(),
            ids: HashMap::new(),
            seen: HashMap::new(),
            handles: HashMap::new(),
            sys_handles: HashMap::new(),
            scratch: Vec::new(),
            kv_hints: HashMap::new(),
            index: table()
                .iter()
                .enumerate()
                .map(|(i, (m, _))| (m.desc.pmid, i))
                .collect(),
        }
    }

    /// A snapshot for one fetch, with the open files lent to it.
    fn snap(&mut self) -> Snap {
        Snap {
            handles: std::mem::take(&mut self.handles),
            sys_handles: std::mem::take(&mut self.sys_handles),
            scratch: std::mem::take(&mut self.scratch),
            kv_hints: std::mem::take(&mut self.kv_hints),
            ..Snap::default()
        }
    }

    /// Takes the open files back after a fetch.
    fn done(&mut self, snap: Snap) {
        self.handles = snap.handles;
        self.sys_handles = snap.sys_handles;
        self.scratch = snap.scratch;
        self.kv_hints = snap.kv_hints;
    }

    fn id(&mut self, indom: InDom, name: &str) -> i32 {
        let next = self.ids.keys().filter(|(d, _)| *d == indom).count() as i32;
        *self.ids.entry((indom, name.to_string())).or_insert(next)
    }

    fn cpus(&mut self, snap: &mut Snap) -> Rows {
        if let Some(v) = &snap.cpus {
            return v.clone();
        }
        let v: Vec<(i32, Vec<u64>)> = snap
            .get(&self.root, "proc/stat")
            .lines()
            .filter_map(|l| {
                let mut w = l.split_whitespace();
                let k = w.next()?;
                let n: i32 = k.strip_prefix("cpu")?.parse().ok()?;
                Some((n, w.filter_map(|x| x.parse().ok()).collect()))
            })
            .collect();
        self.seen.insert(
            CPU_INDOM,
            v.iter().map(|(n, _)| (*n, format!("cpu{n}"))).collect(),
        );
        let v = std::rc::Rc::new(v);
        snap.cpus = Some(v.clone());
        v
    }

    fn disks(&mut self, snap: &mut Snap) -> Rows {
        if let Some(v) = &snap.disks {
            return v.clone();
        }
        let text = snap.get(&self.root, "proc/diskstats").to_string();
        let mut out = Vec::new();
        let mut names = Vec::new();
        for l in text.lines() {
            let w: Vec<&str> = l.split_whitespace().collect();
            if w.len() < 14 {
                continue;
            }
            let name = w[2];
            if !is_disk(name) {
                continue;
            }
            let vals: Vec<u64> = w[3..].iter().map(|x| x.parse().unwrap_or(0)).collect();
            let id = self.id(DISK_INDOM, name);
            names.push((id, name.to_string()));
            out.push((id, vals));
        }
        self.seen.insert(DISK_INDOM, names);
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
        let text = snap.get(&self.root, "proc/net/dev").to_string();
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
            names.push((id, name.trim().to_string()));
            out.push((id, vals));
        }
        self.seen.insert(NET_INDOM, names);
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
        let text = snap.get(&self.root, "proc/mounts").to_string();
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
        self.seen.insert(
            FS_INDOM,
            out.iter().map(|(i, d, _)| (*i, d.clone())).collect(),
        );
        let out = std::rc::Rc::new(out);
        snap.filesystems = Some(out.clone());
        out
    }

    fn filesys_value(&mut self, p: PmId, field: FsField, snap: &mut Snap) -> OwnedValueSet {
        let mut strings = Vec::new();
        let mut u32s = Vec::new();
        let mut u64s = Vec::new();
        let mut f64s = Vec::new();
        for (id, _dev, dir) in self.filesystems(snap).iter() {
            let id = *id;
            if let FsField::MountDir = field {
                strings.push((id, dir.clone()));
                continue;
            }
            let root = &self.root;
            let st = snap.statvfs.entry(dir.clone()).or_insert_with(|| {
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
            });
            let Some(st) = *st else {
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

    fn value(&mut self, m: &Metric, src: Src, snap: &mut Snap) -> OwnedValueSet {
        let p = m.desc.pmid;
        let root = self.root.clone();
        match src {
            Src::Load => {
                let t = snap.get(&root, "proc/loadavg").to_string();
                let w: Vec<f32> = t
                    .split_whitespace()
                    .take(3)
                    .filter_map(|x| x.parse().ok())
                    .collect();
                if w.len() < 3 {
                    return vs::none(p);
                }
                vs::f32s(p, vec![(1, w[0]), (5, w[1]), (15, w[2])])
            }
            Src::NThreads => {
                let t = snap.get(&root, "proc/loadavg").to_string();
                let n = t
                    .split_whitespace()
                    .nth(3)
                    .and_then(|x| x.split('/').nth(1))
                    .and_then(|x| x.parse::<u32>().ok());
                n.map_or_else(|| vs::none(p), |n| vs::u32s(p, vec![(-1, n)]))
            }
            Src::StatCpu(k) => {
                let t = snap.get(&root, "proc/stat").to_string();
                let Some(line) = t.lines().find(|l| l.starts_with("cpu ")) else {
                    return vs::none(p);
                };
                let f: Vec<u64> = line
                    .split_whitespace()
                    .skip(1)
                    .filter_map(|x| x.parse().ok())
                    .collect();
                vs::u64s(p, vec![(-1, ticks_ms(k.of(&f)))])
            }
            Src::PerCpu(k) => {
                let cpus = self.cpus(snap);
                vs::u64s(
                    p,
                    cpus.iter().map(|(n, f)| (*n, ticks_ms(k.of(f)))).collect(),
                )
            }
            Src::NCpu => {
                let n = self.cpus(snap).len() as u32;
                vs::u32s(p, vec![(-1, n)])
            }
            Src::Stat(key, idx) => {
                let t = snap.get(&root, "proc/stat");
                let v = t
                    .lines()
                    .find(|l| l.split_whitespace().next() == Some(key))
                    .and_then(|l| l.split_whitespace().nth(idx))
                    .and_then(|x| x.parse().ok());
                v.map_or_else(|| vs::none(p), |v| vs::u64s(p, vec![(-1, v)]))
            }
            Src::StatKey(key) => snap
                .kv(&root, "proc/stat", key)
                .map_or_else(|| vs::none(p), |v| vs::u64s(p, vec![(-1, v)])),
            Src::Mem(key) => snap
                .kv(&root, "proc/meminfo", key)
                .map_or_else(|| vs::none(p), |v| vs::u64s(p, vec![(-1, v)])),
            Src::MemUsed => {
                match (
                    snap.kv(&root, "proc/meminfo", "MemTotal"),
                    snap.kv(&root, "proc/meminfo", "MemFree"),
                ) {
                    (Some(a), Some(b)) => vs::u64s(p, vec![(-1, a.saturating_sub(b))]),
                    _ => vs::none(p),
                }
            }
            Src::MemOther => {
                let mut k = |key| snap.kv(&root, "proc/meminfo", key);
                match (k("MemTotal"), k("MemFree"), k("Cached"), k("Buffers")) {
                    (Some(t), Some(f), Some(c), Some(b)) => vs::u64s(
                        p,
                        vec![(-1, t.saturating_sub(f).saturating_sub(c).saturating_sub(b))],
                    ),
                    _ => vs::none(p),
                }
            }
            Src::MemCacheClean => {
                let mut k = |key| snap.kv(&root, "proc/meminfo", key);
                match (k("Cached"), k("Dirty"), k("Writeback")) {
                    (Some(c), Some(d), Some(w)) => {
                        vs::u64s(p, vec![(-1, c.saturating_sub(d).saturating_sub(w))])
                    }
                    _ => vs::none(p),
                }
            }
            Src::HugeBytes(key) => {
                let mut k = |key| snap.kv(&root, "proc/meminfo", key);
                match (k(key), k("Hugepagesize")) {
                    (Some(n), Some(kb)) => vs::u64s(p, vec![(-1, n * kb * 1024)]),
                    _ => vs::none(p),
                }
            }
            Src::Swap(key) => snap
                .kv(&root, "proc/meminfo", key)
                .map_or_else(|| vs::none(p), |v| vs::u64s(p, vec![(-1, v * 1024)])),
            Src::SwapUsed => {
                match (
                    snap.kv(&root, "proc/meminfo", "SwapTotal"),
                    snap.kv(&root, "proc/meminfo", "SwapFree"),
                ) {
                    (Some(a), Some(b)) => vs::u64s(p, vec![(-1, a.saturating_sub(b) * 1024)]),
                    _ => vs::none(p),
                }
            }
            Src::Vmstat(key) => snap
                .kv(&root, "proc/vmstat", key)
                .map_or_else(|| vs::none(p), |v| vs::u32s(p, vec![(-1, v as u32)])),
            Src::Disk(field, div) => {
                let disks = self.disks(snap);
                let vals: Vec<(i32, u64)> = disks
                    .iter()
                    .map(|(id, f)| (*id, field.of(f) / div))
                    .collect();
                if m.desc.vtype == vtype::U32 {
                    vs::u32s(p, vals.into_iter().map(|(i, v)| (i, v as u32)).collect())
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
                    vs::u32s(p, vec![(-1, total as u32)])
                } else {
                    vs::u64s(p, vec![(-1, total)])
                }
            }
            Src::DiskScheduler => {
                let names = self.disk_names(snap);
                let vals = names
                    .into_iter()
                    .map(|(id, n)| {
                        let t = snap
                            .sys_file(&root, format!("sys/block/{n}/queue/scheduler"))
                            .unwrap_or_default();
                        let sel = t
                            .split_whitespace()
                            .find_map(|w| w.strip_prefix('[').and_then(|w| w.strip_suffix(']')))
                            .or_else(|| t.split_whitespace().next())
                            .unwrap_or("unknown")
                            .to_string();
                        (id, sel)
                    })
                    .collect();
                vs::strings(p, vals)
            }
            Src::DiskCapacity => {
                let names = self.disk_names(snap);
                let vals: Vec<(i32, u64)> = names
                    .into_iter()
                    .filter_map(|(id, n)| {
                        let t = snap.sys_file(&root, format!("sys/block/{n}/size"))?;
                        Some((id, t.trim().parse::<u64>().ok()? / 2))
                    })
                    .collect();
                vs::u64s(p, vals)
            }
            Src::AppVersion => OwnedValueSet {
                pmid: p,
                numval: -12350, // PM_ERR_APPVERSION
                valfmt: 0,
                values: Vec::new(),
            },
            Src::NDisk => {
                let n = self.disks(snap).len() as u32;
                vs::u32s(p, vec![(-1, n)])
            }
            Src::Net(field) => {
                let nets = self.nets(snap);
                vs::u64s(
                    p,
                    nets.iter()
                        .map(|(id, f)| (*id, f.get(field).copied().unwrap_or(0)))
                        .collect(),
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
                    snap.get(&root, f).trim().to_string()
                };
                vs::strings(p, vec![(-1, v)])
            }
            Src::Uptime => {
                let t = snap.get(&root, "proc/uptime").to_string();
                let v = t
                    .split_whitespace()
                    .next()
                    .and_then(|x| x.parse::<f64>().ok());
                v.map_or_else(|| vs::none(p), |v| vs::f64s(p, vec![(-1, v)]))
            }
            Src::NProcs => {
                let n = count_numeric_entries(&root.join("proc")).unwrap_or(0);
                vs::u32s(p, vec![(-1, n as u32)])
            }
        }
    }
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
    fn indom_help(&self, indom: InDom) -> Option<(&'static str, &'static str)> {
        let one = match indom {
            CPU_INDOM => "the processors of this machine, cpu0 upward",
            DISK_INDOM => "the block devices of this machine that are disks",
            LOAD_INDOM => "the 1, 5 and 15 minute load averages",
            NET_INDOM => "the network interfaces of this machine",
            FS_INDOM => "mounted filesystems backed by a block device",
            _ => return None,
        };
        Some((one, ""))
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
        if let Some(v) = self.seen.get(&indom) {
            let mut v = v.clone();
            v.sort_by_key(|x| x.0);
            return v;
        }
        let mut snap = Snap::default();
        let mut v: Vec<(i32, String)> = match indom {
            LOAD_INDOM => vec![
                (1, "1 minute".into()),
                (5, "5 minute".into()),
                (15, "15 minute".into()),
            ],
            CPU_INDOM => self
                .cpus(&mut snap)
                .iter()
                .map(|(n, _)| (*n, format!("cpu{n}")))
                .collect(),
            DISK_INDOM => {
                let _ = self.disks(&mut snap);
                self.ids
                    .iter()
                    .filter(|((d, _), _)| *d == DISK_INDOM)
                    .map(|((_, n), i)| (*i, n.clone()))
                    .collect()
            }
            NET_INDOM => {
                let _ = self.nets(&mut snap);
                self.ids
                    .iter()
                    .filter(|((d, _), _)| *d == NET_INDOM)
                    .map(|((_, n), i)| (*i, n.clone()))
                    .collect()
            }
            FS_INDOM => self
                .filesystems(&mut snap)
                .iter()
                .map(|(id, dev, _)| (*id, dev.clone()))
                .collect(),
            _ => Vec::new(),
        };
        v.sort_by_key(|x| x.0);
        v
    }

    fn fetch(&mut self, pmids: &[PmId]) -> Result<(Timestamp, Vec<OwnedValueSet>), SourceError> {
        let stamp = now();
        let mut snap = self.snap();
        let mut out = Vec::with_capacity(pmids.len());
        for p in pmids {
            match self.index.get(p).map(|&i| &table()[i]) {
                Some((m, src)) => out.push(self.value(m, *src, &mut snap)),
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
        let mut snap = Snap::default();
        let kv = |snap: &mut Snap, key| snap.kv(&dir, "proc/meminfo", key);
        assert_eq!(kv(&mut snap, "MemFree"), Some(50));
        assert_eq!(kv(&mut snap, "Cached"), Some(9));
        assert_eq!(kv(&mut snap, "Active"), Some(4));
        assert_eq!(kv(&mut snap, "Missing"), None);
        assert_eq!(snap.kv_hints.len(), 3);
        // the next sample: a line more at the top, and longer values
        std::fs::write(
            &file,
            "New: 1 kB\nMemTotal: 100 kB\nMemFree: 51000 kB\nSwapCached: 7 kB\nActive: 44 kB\nCached: 99 kB\n",
        )
        .unwrap();
        snap.files.clear();
        assert_eq!(kv(&mut snap, "Cached"), Some(99));
        assert_eq!(kv(&mut snap, "MemFree"), Some(51000));
        assert_eq!(kv(&mut snap, "Active"), Some(44));
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
