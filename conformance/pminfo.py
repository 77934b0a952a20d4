#!/usr/bin/env python3
"""Conformance suite for pminfo: runs PCP 6.0.3's pminfo and ours on every archive
of PCP's QA corpus (good and damaged) with a list of option sets (names, PMIDs,
descriptors, help, labels, series identifiers, values, verify, events), on
metric, PMID and instance-domain arguments, with -O, -c, -n and the time zone
options, and on command-line mistakes; and on the local pmcd (with PCP's sample
agent: scripts/start-pmcd.sh --sample), over its whole namespace and the sample
agent's metrics whose values do not change; compares stdout, stderr and exit
status, and writes a scoreboard (N of M identical, then the differing cases) and
a diff per differing case.

The live cases need a pmcd with the sample agent; where none answers they are
skipped with the reason said (counted as failures under REQUIRE_REFERENCE).

Every run has the global derived metrics of the reference's configuration, as a
PCP user's pminfo has.

Exit status: 0 when the score is at least the floor kept in conformance/floor-pminfo,
1 below it, 77 when the reference is not installed (unless REQUIRE_REFERENCE is set,
then 1).

Usage: conformance/pminfo.py [--ours PATH] [--out DIR] [--jobs N] [--filter SUBSTR]
"""
import argparse, concurrent.futures as cf, os, re, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from pmdumplog import CORPUS, archives  # noqa: E402
import scoreboard  # noqa: E402

# option sets over the whole namespace of every archive
OPTION_SETS = [[], ["-m"], ["-M"], ["-d"], ["-I"], ["-t"], ["-T"], ["-f"], ["-l"],
               ["-s"], ["-v"], ["-x"], ["-F"], ["-dmtT"], ["-fMI"]]
# archives with thousands of metrics or records: fewer sets
BIG_SETS = [[], ["-m"], ["-d"], ["-tT"], ["-l"]]
GIANT = {"20180416.10.00", "pcp-pidstat-process-args", "20130706", "bozo-20170904",
         "20201109"}
# sets on one metric of the archive (its first), its PMID and instance domain
ONE_SETS = [["-f"], ["-dfl"], ["-s"], ["-O", "+5", "-f"], ["-O", "@junk", "-f"],
            ["-x", "-Z", "UTC"], ["-z", "-f"], ["-fTt"]]
DERIVED_DEFS = """\
my.one = 1
my.ratio = mem.util.used / mem.physmem
my.bad = no.such.metric + 1
my.cpu = kernel.all.cpu.user + kernel.all.cpu.sys
my.cpu(oneline) = "user and sys"
"""
# command-line forms, run in the archives directory
CLI = [["-Q", "-a", "20041125"], ["-b", "x", "-a", "20041125"], ["-a", "nosuch"],
       ["-a", "20041125", "no.such.metric", "kernel.all"], ["-a", "20041125", "1.2.3"],
       ["-a", "20041125", "60"], ["-a", "20041125", "60.2", "-tTlI"],
       ["-a", "20041125", "-h", "localhost"], ["-?"],
       ["-a", "20041125", "-c", "/nonexistent", "kernel.all.load"],
       ["-a", "20041125", "event", "-dmtTf"],
       ["-a", "20041125", "disk.dev.await", "disk.dev", "-d"],
       ["-a", "20180416.10.00", "kernel.cpu.util", "-dftT"],
       ["-a", "20180416.10.00", "disk.dev.util", "disk.dev.await", "-f"]]

# a live pmcd: option sets over its whole namespace (names, descriptors and
# help do not change while it runs)
LIVE_WHOLE = [[], ["-m"], ["-M"], ["-d"], ["-I"], ["-t"], ["-T"], ["-v"], ["-dmtT"]]
# labels and series over every subtree but those whose instances come and go
# (processes, pmcd's clients: ours is another client than PCP's, the sample
# agent's instances shuffled at each fetch)
LIVE_UNSTABLE = {"proc", "hotproc", "pmcd", "sample.scramble", "sampledso.scramble",
                 "sample.proc", "sampledso.proc", "sample.mirage", "sampledso.mirage",
                 "sample.mirage_longlong", "sampledso.mirage_longlong", "sample.dynamic",
                 "sampledso.dynamic", "sample.dodgey", "sampledso.dodgey", "sample.ghosts",
                 "sampledso.ghosts"}
LIVE_TREE_SETS = [["-l"], ["-s"], ["-dmtTls"], ["-lI"]]
# values: the sample agent's metrics whose values stay put, and derived metrics
# over them and over the Linux agent's (a first fetch: no rate yet)
# (the ".bin" metrics are left out: fetching their "bin_ctr" kin moves the values
# they share, and other cases fetch those meanwhile)
LIVE_STEADY = [f"sample.{t}.{m}" for t in ("long", "ulong", "longlong", "ulonglong",
                                          "float", "double")
               for m in ("one", "ten", "hundred", "million", "write_me")] + [
               "sample.string.hullo", "sample.string.null", "sample.needprofile",
               "sample.bad", "sample.noinst", "sample.darkness", "sample.hordes.one",
               "pmcd.version", "kernel.cpu.util", "disk.dev.await", "event"]
LIVE_DERIVED = """\
my.sum = sample.long.one + sample.long.ten
my.bins = sample.hordes.one * 2
my.filt = matchinst(/^1[0-9]$/, sample.hordes.one)
my.inst = sample.hordes.one[7]
my.bad = no.such.metric + 1
my.sem = sample.long.one + sample.hordes.one
my.c = mkconst(42, type=u32)
my.rate = rate(sample.long.one)
my.c(oneline) = "a constant"
"""
LIVE_CLI = [["-f", "nosuch", "sample.string.hullo"], ["-b", "3", "-f", "sample.long"],
            ["-b", "0", "-f", "sample.long"], ["-F", "-f", "sample.needprofile",
            "sampledso.needprofile"], ["-v", "sample"], ["-tTlI", "29.2", "60.1"],
            ["-mtT", "29.0.6", "29.0.10"], ["-f", "1.2.3"], ["-h", "local:", "-f", "sample.long.one"],
            ["-h", "localhost", "-dmf", "sample.long.one"], ["-h", "localhost:1", "x"],
            ["--container=nosuch", "-f", "sample.long.one"], ["-Z", "UTC", "-f", "sample.long"],
            ["-O", "+5", "-f", "sample.long"], ["-fm", "sample.long", "no.such", "event"]]


def run(cmd, cwd, env):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=900)
    return p.stdout, p.stderr, p.returncode


def case(ours, d, args, env, name):
    ref = run(["pminfo"] + args, d, env)
    got = run([ours] + args, d, env)
    return name, ref == got, (None if ref == got else {"ref": ref, "got": got})


def first_metric(d, base, env):
    """The archive's first metric name, its PMID and its instance domain."""
    p = subprocess.run(["pminfo", "-a", base, "-d", "-m"], cwd=d, env=env,
                       capture_output=True, text=True, errors="replace", timeout=120)
    m = re.search(r"^(\S+) PMID: (\d+\.\d+\.\d+)\n.*InDom: (\d+\.\d+|PM_INDOM_NULL)",
                  p.stdout, re.M)
    return m.groups() if m else None


def jobs_for(d, base, env, derived, pmns):
    rel = os.path.relpath(d, CORPUS)
    out = []
    sets = BIG_SETS if base in GIANT else OPTION_SETS
    for opts in sets:
        out.append((d, opts + ["-a", base], f"{rel}/{base} {' '.join(opts)}"))
    if base in GIANT:
        return out
    first = first_metric(d, base, env)
    if first:
        name, pmid, indom = first
        for opts in ONE_SETS:
            out.append((d, opts + ["-a", base, name], f"{rel}/{base} {' '.join(opts)} {name}"))
        out.append((d, ["-a", base, "-mtT", pmid], f"{rel}/{base} -mtT {pmid}"))
        if indom != "PM_INDOM_NULL":
            out.append((d, ["-a", base, "-tTI", indom], f"{rel}/{base} -tTI {indom}"))
    out.append((d, ["-a", base, "-c", derived, "-df", "my"], f"{rel}/{base} -c defs -df my"))
    out.append((d, ["-a", base, "-n", pmns, "-m"], f"{rel}/{base} -n pmns -m"))
    return out


def live_jobs(tmp):
    """The cases on the local pmcd, or the reason there are none."""
    p = subprocess.run(["pminfo", "-f", "sample.long.one"], capture_output=True, text=True)
    if p.returncode != 0 or "value 1" not in p.stdout:
        return None, "no local pmcd with the sample agent (scripts/start-pmcd.sh --sample)"
    names = subprocess.run(["pminfo"], capture_output=True, text=True).stdout.split()
    top = {n.split(".")[0] for n in names}
    # the sample agents' subtrees one level down
    second = {".".join(n.split(".")[:2]) for n in names if n.split(".")[0] in ("sample", "sampledso")}
    trees = sorted((top - {"sample", "sampledso"} | second) - LIVE_UNSTABLE)
    conf = os.path.join(tmp, "live-derived.conf")
    with open(conf, "w") as fh:
        fh.write(LIVE_DERIVED)
    out = [(tmp, opts, "live " + " ".join(opts)) for opts in LIVE_WHOLE]
    out += [(tmp, opts + trees, f"live {' '.join(opts)} (stable subtrees)")
            for opts in LIVE_TREE_SETS]
    out += [(tmp, ["-f"] + LIVE_STEADY, "live -f (steady metrics)"),
            (tmp, ["-dmfl"] + LIVE_STEADY, "live -dmfl (steady metrics)"),
            (tmp, ["-s"] + LIVE_STEADY, "live -s (steady metrics)")]
    for opts in [["-f"], ["-dl"], ["-s"], ["-v"], ["-mtT"], ["-tT", "511.0.1"]]:
        args = ["-c", conf] + opts + ([] if opts[-1].startswith("511") else ["my"])
        out.append((tmp, args, "live -c defs " + " ".join(opts)))
    out += [(tmp, args, "live " + " ".join(args)) for args in LIVE_CLI]
    return out, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", default=os.path.join(ROOT, "target/release/pminfo"))
    ap.add_argument("--out", default=os.path.join(ROOT, "conformance-out"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    missing = scoreboard.missing_reference("pminfo")
    if missing is not None:
        return missing
    env = dict(os.environ)
    env.setdefault("TZ", "UTC")
    tmp = tempfile.mkdtemp(prefix="pminfo-conf-")
    derived = os.path.join(tmp, "derived.conf")
    with open(derived, "w") as fh:
        fh.write(DERIVED_DEFS)
    pmns = os.path.join(tmp, "pmns")
    with open(pmns, "w") as fh:
        fh.write("root {\n    kernel\n    hinv\n}\nkernel {\n    all\n}\n"
                 "kernel.all {\n    load 60:2:0\n    cpu\n}\nkernel.all.cpu {\n"
                 "    user 60:0:20\n    sys 60:0:22\n}\nhinv {\n    ncpu 60:0:32\n}\n")
    jobs = []
    for d, base in archives():
        if a.filter and a.filter not in f"{d}/{base}":
            continue
        jobs += jobs_for(d, base, env, derived, pmns)
    arch = os.path.join(CORPUS, "archives")
    if not a.filter or a.filter == "cli":
        for args in CLI:
            jobs.append((arch, args, "cli " + " ".join(args)))
    partial = False
    if not a.filter or "live".startswith(a.filter) or a.filter.startswith("live"):
        live, why = live_jobs(tmp)
        partial = live is None
        if live is None:
            print(f"conformance: live pmcd cases skipped: {why}")
            if os.environ.get("REQUIRE_REFERENCE"):
                print("conformance: FAIL: REQUIRE_REFERENCE needs the live cases", file=sys.stderr)
                return 1
        else:
            jobs += [j for j in live if a.filter in j[2]]
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda j: case(a.ours, j[0], j[1], env, j[2]), jobs))
    shutil.rmtree(tmp, ignore_errors=True)
    # without the live cases the floor (which counts them) is not checked
    return scoreboard.report("pminfo", results, a.out, bool(a.filter) or partial)


if __name__ == "__main__":
    sys.exit(main())
