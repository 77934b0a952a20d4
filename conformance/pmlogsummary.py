#!/usr/bin/env python3
"""Conformance suite for pmlogsummary: runs PCP 6.0.3's pmlogsummary and ours on
every archive of PCP's QA corpus (good and damaged) with a list of option sets
(averages, extremes and their times, sums, counts, bins, precision, separators,
headers, labels, warnings, time windows and zones), on metric arguments with
and without instance lists, on multi-archive contexts (directories and lists),
with -n and PCP_COUNTER_WRAP, and on command-line mistakes; compares stdout,
stderr and exit status, and writes a scoreboard (N of M identical, then the
differing cases) and a diff per differing case.

Exit status: 0 when the score is at least the floor kept in
conformance/floor-pmlogsummary, 1 below it, 77 when the reference is not
installed (unless REQUIRE_REFERENCE is set, then 1).

Usage: conformance/pmlogsummary.py [--ours PATH] [--out DIR] [--jobs N] [--filter SUBSTR]
"""
import argparse, concurrent.futures as cf, os, re, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from pmdumplog import CORPUS, archives  # noqa: E402
import scoreboard  # noqa: E402

# option sets over every metric of every archive
OPTION_SETS = [[], ["-a"], ["-x"], ["-s"], ["-b", "-y"], ["-a", "-i", "-I"],
               ["-B", "4", "-y"], ["-a", "-f", "-H"], ["-F", "-H", "-p", "1", "-m", "-M"],
               ["-v", "-a"], ["-a", "-S", "+2", "-T", "-1"], ["-z", "-l", "-i", "-I"],
               ["-Z", "EST-10", "-l", "-I"], ["-p", "7", "-x", "-m", "-M", "-B", "2"],
               ["-s", "-B", "3", "-y", "-H"]]
# archives with thousands of metrics or records: fewer sets
BIG_SETS = [[], ["-a", "-i", "-I"], ["-B", "3", "-s"]]
GIANT = {"20180416.10.00", "pcp-pidstat-process-args", "20130706", "bozo-20170904",
         "20201109"}
PMNS = ("root {\n    kernel\n    hinv\n    sample\n}\nkernel {\n    all\n}\n"
        "kernel.all {\n    load 60:2:0\n    cpu\n}\nkernel.all.cpu {\n"
        "    user 60:0:20\n    sys 60:0:22\n}\nhinv {\n    ncpu 60:0:32\n}\n"
        "sample {\n    colour 29:0:5\n    seconds 29:0:1\n}\n")
# command lines, run in the archives directory
CLI = [[], ["-Q", "ok-foo"], ["-B", "x", "-p", "y", "ok-foo"], ["-z", "-Z", "UTC", "ok-foo"],
       ["-S", "garbage", "ok-foo"], ["-T", "@junk", "-a", "ok-foo"], ["nosuch"],
       ["-B", "-1", "ok-foo"], ["-p", "-1", "-a", "ok-foo"], ["-p", "", "ok-foo"],
       ["-r", "-N", "ok-foo", "sample.seconds"], ["-?"], ["--bins=2", "--all", "ok-foo"],
       ["ok-foo", 'sample.colour[red,"blue"]', "bad[", "sample.bin", "sample.nosuch"],
       ["ok-foo", "sample.colour[nosuch]", "sample.seconds[x]", "sample"],
       ["ok-foo", "kernel.cpu.util.user", "event.flags", "event", "sample.seconds"],
       ["-n", "/nonexistent", "ok-foo"],
       ["20180416.10.00", "kernel.cpu.util", "disk.dev.await", "kernel.all.cpu", "-a"],
       ["-S", "@14:30", "-T", "@15:00", "-a", "-i", "20180416.10.00", "kernel.all"],
       ["-T", "-1h", "-l", "20041125", "kernel"], ["-S", "+100d", "20041125"],
       ["-a", "-S", "-10m", "-T", "+5", "20041125"],
       ["19970807.09.54,19970807.09.59", "-a", "-i", "-I", "-l"],
       ["multi", "-a"], ["multi-xz", "-l", "-B", "3"], ["multi-corrupted", "-a"]]
# command lines run with PCP_COUNTER_WRAP set
WRAP = [["-a", "20041125"], ["-a", "-B", "3", "20180416.10.00", "kernel", "disk"]]


def run(cmd, cwd, env):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=900)
    return p.stdout, p.stderr, p.returncode


def case(ours, d, args, env, name):
    ref = run(["pmlogsummary"] + args, d, env)
    got = run([ours] + args, d, env)
    return name, ref == got, (None if ref == got else {"ref": ref, "got": got})


def first_metric(d, base, env):
    """The first metric pmlogsummary reports on, and its first instance's name."""
    p = subprocess.run(["pmlogsummary", base], cwd=d, env=env, capture_output=True,
                       text=True, errors="replace", timeout=120)
    m = re.search(r'^\*?(\S+) (?:\["([^"\n]*)"\])?', p.stdout, re.M)
    return m.groups() if m else None


def jobs_for(d, base, env, pmns):
    rel = os.path.relpath(d, CORPUS)
    out = []
    sets = BIG_SETS if base in GIANT else OPTION_SETS
    for opts in sets:
        out.append((d, opts + [base], f"{rel}/{base} {' '.join(opts)}", env))
    if base in GIANT:
        return out
    first = first_metric(d, base, env)
    if first:
        name, inst = first
        out.append((d, ["-a", base, name], f"{rel}/{base} -a {name}", env))
        if inst:
            spec = f'{name}["{inst}",nosuch]'
            out.append((d, ["-a", "-i", base, spec], f"{rel}/{base} -a -i {spec}", env))
    out.append((d, ["-n", pmns, "-a", base], f"{rel}/{base} -n pmns -a", env))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", default=os.path.join(ROOT, "target/release/pmlogsummary"))
    ap.add_argument("--out", default=os.path.join(ROOT, "conformance-out"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    missing = scoreboard.missing_reference("pmlogsummary")
    if missing is not None:
        return missing
    env = dict(os.environ)
    env.setdefault("TZ", "UTC")
    env.pop("PCP_COUNTER_WRAP", None)
    tmp = tempfile.mkdtemp(prefix="pmlogsummary-conf-")
    pmns = os.path.join(tmp, "pmns")
    with open(pmns, "w") as fh:
        fh.write(PMNS)
    jobs = []
    for d, base in archives():
        if a.filter and a.filter not in f"{d}/{base}":
            continue
        jobs += jobs_for(d, base, env, pmns)
    arch = os.path.join(CORPUS, "archives")
    if not a.filter or a.filter == "cli":
        for args in CLI:
            jobs.append((arch, args, "cli " + " ".join(args), env))
        wrap = dict(env, PCP_COUNTER_WRAP="1")
        for args in WRAP:
            jobs.append((arch, args, "wrap " + " ".join(args), wrap))
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda j: case(a.ours, j[0], j[1], j[3], j[2]), jobs))
    shutil.rmtree(tmp, ignore_errors=True)
    return scoreboard.report("pmlogsummary", results, a.out, bool(a.filter))


if __name__ == "__main__":
    sys.exit(main())
