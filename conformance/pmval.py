#!/usr/bin/env python3
"""Conformance suite for pmval: runs PCP 6.0.3's pmval and ours on the corpus
archives that PCP's QA tests use for interpolation (see ../shared/docs/qa-tests.tsv,
group "interp"), for several metrics of each semantics and type per archive, with
intervals below, around and above the logging interval, raw counters (-r),
non-interpolated replay (-U), -S/-T windows, -A alignment and -z. Compares stdout,
stderr and exit status and writes a scoreboard (N of M identical, and the differing
cases).

Exit status: 0 when the score is at least the floor kept in conformance/floor-pmval,
1 below it, 77 when the reference is not installed (unless REQUIRE_REFERENCE is set,
then 1).

Usage: conformance/pmval.py [--ours PATH] [--out DIR] [--jobs N] [--filter SUBSTR]
"""
import argparse, concurrent.futures as cf, datetime, os, re, shutil, subprocess, sys, tempfile

CORPUS = "/var/lib/pcp/testsuite/archives"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import scoreboard  # noqa: E402
ROOT = os.path.dirname(HERE)

# archives of the interp QA tests that the corpus holds
ARCHIVES = """ok-interp ok-mv-interp ok-noti-interp ok-bigbin ok-mv-bigbin ok-noti-bigbin
ok-foo ok-mv-foo interpmark gap gap2 mark-bug count-mark changeinst omnibus_v2 omnibus_v3
omnibus-nomark_v3 bug_v2 babylon.pmview_v2 960624.08.17_v2 iopct instant-1 instant-base
sample-secs uwrap value-test gmt-boring kenj-pc-1 20130706 naslog mirage moomba.client
omen.client rattle 541380_v2 ace_v2 bigace_v2 dm-io 20041125 section-a section-b section-d
951127.23.01_v2 pcp-atop-boot bug-1044 bug1057 20180606 late mirage-3 ac15 bozo-disk
pcp-free sample_expr""".split()
def pcp7_archives():
    """PCP 7.2's archives the corpus lacks, as paths from the corpus."""
    from pmdumplog import PCP7_CORPUS, pcp7_only
    d = os.path.join(PCP7_CORPUS, "archives")
    return [os.path.relpath(os.path.join(d, b), CORPUS) for b in pcp7_only("archives")]


METRICS_PER_ARCHIVE = 8
# fewer for each of PCP 7.2's archives (there are many)
PCP7_METRICS = 4
# multi-archive contexts (directories and comma-separated lists, as pmNewContext takes
# them), some with $PCP_IGNORE_MARK_RECORDS as PCP's QA tests 1114/1138 use it
MULTI = ["multi", "multi-xz", "multi-xz-1k", "multi/20150508.11.44,multi/20150508.11.46",
         "multi/20150508.11.50,multi/20150508.11.44"]
MULTI_METRICS = ["kernel.all.load", "disk.dev.read", "kernel.percpu.cpu.user",
                 "mem.util.available", "hinv.ncpu"]
MULTI_SETS = [["-t", "5"], ["-t", "37"], ["-r", "-t", "2"], ["-z", "-t", "11", "-S", "+100"]]
MARK_ENVS = [None, "", "10s"]
# event metrics: never interpolated, every record's event arrays unpacked
EVENTS = [("20180102", "sample.event.records"), ("eventrec", "sample.event.records"),
          ("eventrec", "sample.event.no_indom_records"), ("eventrec", "sample.event.highres_records"),
          ("eventrec-old", "sample.event.records"), ("foo+", "sampledso.event.records"),
          ("foo+", "sampledso.event.highres_records"), ("omnibus_v2", "sampledso.event.records"),
          ("omnibus_v3", "sampledso.event.highres_records"),
          ("omnibus-nomark_v3", "sampledso.event.records"), ("pyapi", "sample.event.records"),
          ("pyapi", "sample.event.no_indom_records")]
EVENT_SETS = [[], ["-s", "2"], ["-Z", "UTC"], ["-S", "+1"]]
# libpcp's anonymous metrics of every context, over archives with and without event
# records, interpolated and raw
ANON_ARCHIVES = ["eventrec", "omnibus_v3", "20041125", "foo+"]
ANON_METRICS = ["event.flags", "event.missed"]
ANON_SETS = [["-t", "1"], ["-t", "60", "-s", "5"], ["-r", "-t", "2"], ["-z", "-t", "10"]]
MAX_SAMPLES = "400"
# option sets (the first of option_sets) for the archives with xz-compressed volumes
XZ_SETS = 4
# archives written by the library's proc_churn example (samples, live processes,
# replaced per sample): instance domains whose processes come and go, large enough
# for libpcp's time calipers
GENERATED = {"churn": ["300", "40", "20"], "churn-slow": ["120", "30", "3"]}
# an archive all at time 0 (scripts/make-zero-time-archive.py, with PCP's pcp.pmi):
# pmval takes an end at second 0 for no end
ZERO_SETS = [[], ["-t", "1"], ["-s", "2"], ["-r"], ["-T", "+5"], ["-z"], ["-S", "+0"]]
# derived metrics: PCP's global configuration (what users ask for by name), and
# definitions of our own given with --derived, over an archive that feeds them
DERIVED_ARCHIVE = "20180416.10.00"
DERIVED_GLOBAL = ["kernel.cpu.util.user", "kernel.cpu.util.sys", "kernel.cpu.util.idle",
                  "disk.dev.await", "disk.dev.r_await", "disk.dev.util", "disk.dev.avg_qlen",
                  "disk.dev.avg_rqsz", "proc.io.total_bytes", "mem.no.such.derived"]
DERIVED_OWN = {
    "d.load2": "kernel.all.load * 2",
    "d.rate": "rate(kernel.all.pswitch)",
    "d.delta": "delta(kernel.all.intr)",
    "d.busy": "kernel.all.cpu.user + kernel.all.cpu.sys",
    "d.ratio": "kernel.all.cpu.user / (kernel.all.cpu.user + kernel.all.cpu.idle)",
    "d.sum": "sum(disk.dev.read)",
    "d.max": "max(kernel.all.load)",
    "d.min": "min(kernel.all.load)",
    "d.one": "kernel.all.load[1 minute]",
    "d.match": "matchinst(/^sd/, disk.dev.write)",
    "d.high": "kernel.all.load > 1",
    "d.pick": "kernel.all.load > 1 ? kernel.all.load : -kernel.all.load",
    "d.rescaled": "rescale(disk.dev.read_bytes, \"Mbyte\")",
    "d.bad": "kernel.all.load + kernel.all.cpu.user",
}
DERIVED_SETS = [["-t", "600"], ["-t", "60", "-s", "10"], ["-r", "-t", "300"], ["-z", "-t", "900"]]


def run(cmd, env):
    p = subprocess.run(cmd, cwd=CORPUS, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=600)
    return p.stdout, p.stderr, p.returncode


def parse_ctime(s):
    s = " ".join(s.split())
    return datetime.datetime.strptime(s, "%a %b %d %H:%M:%S.%f %Y")


def archive_info(base, env, most=None):
    """(duration in seconds, the names of up to `most` metrics, one per type,
    semantics and dimension) from the reference."""
    out, _, _ = run(["pmdumplog", "-L", base], env)
    txt = out.decode(errors="replace")
    m1 = re.search(r"commencing (.*)", txt)
    m2 = re.search(r"ending\s+(.*)", txt)
    dur = 60.0
    if m1 and m2:
        try:
            dur = (parse_ctime(m2.group(1)) - parse_ctime(m1.group(1))).total_seconds()
        except ValueError:
            pass
    out, _, _ = run(["pmdumplog", "-d", base], env)
    metrics = []
    cur = None
    for line in out.decode(errors="replace").splitlines():
        m = re.match(r"PMID: \S+ \((\S+)", line)
        if m:
            cur = [m.group(1).rstrip(")"), None, None, None]
            continue
        m = re.match(r"\s+Data Type: (.*?)  InDom: (\S+)", line)
        if m and cur:
            cur[1] = m.group(1)
            cur[3] = m.group(2) == "PM_INDOM_NULL"
            continue
        m = re.match(r"\s+Semantics: (\S+)", line)
        if m and cur:
            cur[2] = m.group(1)
            if cur[0] != "<noname>" and "event" not in (cur[1] or ""):
                metrics.append(tuple(cur))
            cur = None
    # one metric per (type, semantics, singular), in the order the reference lists them
    seen, picked = set(), []
    for mt in metrics:
        key = mt[1:]
        if key in seen:
            continue
        seen.add(key)
        picked.append(mt[0])
    return dur, picked[:most or METRICS_PER_ARCHIVE]


def option_sets(base, dur):
    fine = max(dur / 40.0, 0.01)
    coarse = max(dur / 7.0, 0.01)
    sets = [
        ["-t", f"{fine:.3f}"],
        ["-t", f"{coarse:.3f}"],
        ["-r", "-t", f"{fine:.3f}"],
        ["-U", base],
        ["-S", f"+{dur / 5:.3f}", "-T", f"-{dur / 5:.3f}", "-t", f"{coarse / 2:.3f}"],
        ["-z", "-A", "1min", "-t", f"{coarse:.3f}"],
    ]
    if dur <= 600:
        sets.append([])
    return sets


def xz_copy(base, into):
    """A copy of corpus archive `base` in directory `into` with its plain data
    volumes xz-compressed (its metadata and index as they are): its base name, or
    None where it has no plain volume."""
    where = os.path.join(CORPUS, base)
    d, b = os.path.dirname(where), os.path.basename(where)
    files = [f for f in os.listdir(d) if f.startswith(b + ".")]
    volume = re.compile(re.escape(b) + r"\.\d+")
    if not any(volume.fullmatch(f) for f in files):
        return None
    out = os.path.join(into, b)
    for f in files:
        src, dst = os.path.join(d, f), os.path.join(into, f)
        if volume.fullmatch(f):
            with open(dst + ".xz", "wb") as fh:
                subprocess.run(["xz", "-c", "-2", src], check=True, stdout=fh)
        elif re.fullmatch(re.escape(b) + r"\.(meta|index)", f):
            shutil.copy(src, dst)
    return out


def case(ours, base, metric, opts, env, marks=None):
    args = ["-a", base, "-s", MAX_SAMPLES] + opts + [metric]
    if opts[:1] == ["-U"]:
        args = ["-s", MAX_SAMPLES] + opts + [metric]
    name = f"{base} {metric} {' '.join(opts)}"
    if marks is not None:
        env = dict(env, PCP_IGNORE_MARK_RECORDS=marks)
        name = f"PCP_IGNORE_MARK_RECORDS={marks!r} " + name
    ref = run(["pmval"] + args, env)
    got = run([ours] + args, env)
    same = ref == got
    return name, same, None if same else {"ref": ref, "got": got}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", default=os.path.join(ROOT, "target/release/pmval"))
    ap.add_argument("--out", default=os.path.join(ROOT, "conformance-out"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    missing = scoreboard.missing_reference("pmval")
    if missing is not None:
        return missing
    env = dict(os.environ)
    env.setdefault("TZ", "UTC")
    jobs = []
    # each archive's duration and metrics, as the reference lists them
    info = {}
    for base in ARCHIVES + pcp7_archives():
        if a.filter and a.filter not in base:
            continue
        where = os.path.join(CORPUS, base)
        d, b = os.path.dirname(where), os.path.basename(where)
        if not any(f.startswith(b + ".meta") for f in os.listdir(d)):
            continue
        dur, metrics = info[base] = archive_info(base, env, PCP7_METRICS if "pcp7" in base else None)
        for m in metrics:
            for opts in option_sets(base, dur):
                jobs.append((base, m, opts, None))
    for base, m in EVENTS:
        if a.filter and a.filter not in base:
            continue
        for opts in EVENT_SETS:
            jobs.append((base, m, opts, None))
    for base in ANON_ARCHIVES:
        if a.filter and a.filter not in base:
            continue
        for m in ANON_METRICS:
            for opts in ANON_SETS + [["-U", base]]:
                jobs.append((base, m, opts, None))
    gendir = tempfile.mkdtemp(prefix="pmval-conf-")
    for gname, gargs in GENERATED.items():
        if a.filter and a.filter not in gname:
            continue
        base = os.path.join(gendir, gname)
        churn = scoreboard.release_binary("proc_churn", example=True)
        subprocess.run([churn, base] + gargs, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        dur, metrics = archive_info(base, env)
        for m in metrics:
            for opts in option_sets(base, dur) + [["-t", "7"], ["-t", "25"]]:
                jobs.append((base, m, opts, None))
    if not a.filter or a.filter in "derived":
        conf = os.path.join(gendir, "derived.conf")
        with open(conf, "w") as fh:
            fh.write("".join(f"{n} = {e}\n" for n, e in DERIVED_OWN.items()))
        for m in DERIVED_GLOBAL:
            for opts in DERIVED_SETS:
                jobs.append((DERIVED_ARCHIVE, m, opts, None))
        for m in DERIVED_OWN:
            for opts in DERIVED_SETS:
                # max() and min() of no values (the first fetch, at the archive's
                # start) are whatever libpcp's memory held: start a minute on
                if m in ("d.max", "d.min"):
                    opts = ["-S", "+60"] + opts
                jobs.append((DERIVED_ARCHIVE, m, [f"--derived={conf}"] + opts, None))
    if not a.filter or a.filter in "zero-time":
        base = os.path.join(gendir, "zero-time")
        subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts/make-zero-time-archive.py"),
                        base], check=True)
        for m in ["zero.count", "zero.level"]:
            for opts in ZERO_SETS:
                jobs.append((base, m, opts, None))
    # the interpolation and event archives again, their data volumes xz-compressed:
    # ours then cuts each volume down to the metric asked for as it decodes
    xzdir = os.path.join(gendir, "xz")
    os.makedirs(xzdir)
    for base in ARCHIVES + sorted({b for b, _ in EVENTS}):
        if a.filter and a.filter not in base:
            continue
        copy = xz_copy(base, xzdir)
        if copy is None:
            continue
        if base in info:
            dur, metrics = info[base]
            for m in metrics:
                for opts in option_sets(copy, dur)[:XZ_SETS]:
                    jobs.append((copy, m, opts, None))
        for b, m in EVENTS:
            if b == base:
                jobs.append((copy, m, EVENT_SETS[0], None))
    for src in MULTI:
        if a.filter and a.filter not in src:
            continue
        for m in MULTI_METRICS:
            for opts in MULTI_SETS + [["-U", src]]:
                for marks in MARK_ENVS:
                    jobs.append((src, m, opts, marks))
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda j: case(a.ours, j[0], j[1], j[2], env, j[3]), jobs))
    shutil.rmtree(gendir, ignore_errors=True)
    return scoreboard.report("pmval", results, a.out, bool(a.filter))


if __name__ == "__main__":
    sys.exit(main())
