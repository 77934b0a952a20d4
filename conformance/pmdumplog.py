#!/usr/bin/env python3
"""Conformance suite for pmdumplog: runs PCP 6.0.3's pmdumplog and ours on every
archive of PCP's QA corpus with a fixed list of option sets, compares stdout, stderr
and exit status, and writes a scoreboard (N of M identical, plus the differing cases).
Where an archive has one compressed volume, its value dumps are run again with our
stdout a regular file (cases named `... >file`), which ours fills otherwise.

Exit status: 0 when the score is at least the floor kept in conformance/floor-pmdumplog,
1 below it, 77 when the reference is not installed (unless REQUIRE_REFERENCE is set,
then 1).

Usage: conformance/pmdumplog.py [--ours PATH] [--out DIR] [--jobs N] [--filter SUBSTR]
"""
import argparse, concurrent.futures as cf, hashlib, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import scoreboard  # noqa: E402
from scoreboard import CORPUS  # noqa: E402,F401 (the suites import it from here)
ROOT = os.path.dirname(HERE)

OPTION_SETS = [
    ["-a"], ["-l"], ["-L"], ["-d"], ["-i"], ["-I"], ["-t"], ["-e"], ["-h"],
    ["-m", "-r"], ["-M"], ["-a", "-x"], ["-a", "-xx"], ["-a", "-xxx"], ["-a", "-z"],
    ["-a", "-Z", "UTC"], ["@metric"], ["-S", "+1", "-T", "-1"],
]
# Archives whose value dumps run to millions of lines: values once (-a), hashed,
# metadata-only option sets otherwise.
GIANT = {"20180416.10.00", "pcp-pidstat-process-args", "bozo-20170904", "20201109",
         "pcp-pidstat-process-states"}
GIANT_SETS = [["-a"], ["-l"], ["-L"], ["-d"], ["-i"], ["-I"], ["-t"], ["-e"], ["-h"]]

# names every context has beside the archive's: PCP's global derived metrics and the
# anonymous event.flags and event.missed (pmdumplog finds them, and no record holds
# them), leaves and subtrees; after "@names", the names after the archive
NAMES = [("20180416.10.00", ["@names", "kernel.cpu.util.user"]),
         ("ok-foo", ["@names", "event.flags", "sample.seconds"]),
         ("ok-foo", ["@names", "kernel.cpu.util"]), ("ok-foo", ["@names", "event"]),
         ("20041125", ["-a", "@names", "disk.dev"]),
         ("20041125", ["@names", "event.missed", "kernel.all.load"]),
         ("20041125", ["-d", "@names", "disk.dev.await", "nosuch"])]
SUFFIX = re.compile(r"\.(meta|index|\d+)(\.(xz|lzma|bz2|bz|gz|Z|z|zst))?$")


# PCP 7.2's QA corpus (in its chroot, where install-pcp7.sh put it): the
# archives it has that 6.0.3's lacks are run too by the suites that ask
PCP7_CORPUS = "/opt/pcp7/var/lib/pcp/testsuite"
SUBDIRS = ["archives", "archives/multi", "archives/multi-xz", "archives/multi-xz-1k",
           "archives/multi-corrupted", "archives/multi_v3", "archives/multi_mixed", "badarchives"]


def bases_in(d):
    """The archive base names of the files in directory `d`."""
    if not os.path.isdir(d):
        return []
    bases = set()
    for f in os.listdir(d):
        m = SUFFIX.search(f)
        if m and os.path.isfile(os.path.join(d, f)):
            bases.add(f[: m.start()])
    return sorted(bases)


def pcp7_only(sub):
    """The base names of PCP 7.2's archives in `sub` (of its corpus) that the
    corpus lacks (none where 7.2 is not installed)."""
    have = set(bases_in(os.path.join(CORPUS, sub)))
    return [b for b in bases_in(os.path.join(PCP7_CORPUS, sub)) if b not in have]


def archives(pcp7=False):
    """Every (directory, base name) of the corpus; with `pcp7`, then PCP 7.2's
    archives that the corpus lacks (where 7.2 is installed)."""
    out = []
    for sub in SUBDIRS:
        out += [(os.path.join(CORPUS, sub), b) for b in bases_in(os.path.join(CORPUS, sub))]
    if pcp7:
        for sub in SUBDIRS:
            out += [(os.path.join(PCP7_CORPUS, sub), b) for b in pcp7_only(sub)]
    return out


def first_metric(d, base):
    """The first metric name the reference lists with -d (for the metric-subset case)."""
    try:
        p = subprocess.run(["pmdumplog", "-d", base], cwd=d, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return None
    m = re.search(r"^PMID: \S+ \(([^ )]+)", p.stdout, re.M)
    return m.group(1) if m and m.group(1) != "<noname>" else None


def run(cmd, cwd, env, to_file=False):
    """Runs `cmd`: (hash of stdout, stdout, stderr, status). With `to_file`, its
    stdout is a regular file (where ours writes the report's head last, into room
    left for it) rather than a pipe."""
    if not to_file:
        p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=900)
        out = p.stdout
    else:
        with tempfile.TemporaryFile() as f:
            p = subprocess.run(cmd, cwd=cwd, env=env, stdout=f, stderr=subprocess.PIPE, timeout=900)
            f.seek(0)
            out = f.read()
    return hashlib.sha256(out).hexdigest(), out, p.stderr, p.returncode


VOLUME = r"\.\d+(\.(xz|lzma|bz2|bz|gz|Z|z|zst))?"


def one_compressed_volume(d, base):
    """Whether the archive has one volume and it is compressed: ours dumps its
    values while it decodes, and to a file writes the head last."""
    vols = [f for f in os.listdir(d) if re.fullmatch(re.escape(base) + VOLUME, f)]
    return len(vols) == 1 and not re.fullmatch(r".*\.\d+", vols[0])


def cases(ours, d, base, opts, env):
    """The case, and where the archive has one compressed volume and the options
    dump values, the same with our stdout a regular file."""
    name, same, detail, ref = case(ours, d, base, opts, env)
    out = [(name, same, detail)]
    if one_compressed_volume(d, base) and ("-a" in opts or opts == ["@metric"]):
        args = case_args(d, base, opts)
        got = run([ours] + args, d, env, to_file=True)
        same = ref[0] == got[0] and ref[2] == got[2] and ref[3] == got[3]
        out.append((name + " >file", same, None if same else {"ref": ref[1:], "got": got[1:]}))
    return out


def case_args(d, base, opts):
    """The command line of a case after the tool's name."""
    args = list(opts)
    if args == ["@metric"]:
        m = first_metric(d, base)
        return [base, m] if m else [base, "nosuch.metric"]
    if "@names" in args:
        k = args.index("@names")
        return args[:k] + [base] + args[k + 1:]
    return args + [base]


def case(ours, d, base, opts, env):
    """One case: its name, whether ours matched, the difference, the reference's run."""
    args = case_args(d, base, opts)
    ref = run(["pmdumplog"] + args, d, env)
    got = run([ours] + args, d, env)
    same = ref[0] == got[0] and ref[2] == got[2] and ref[3] == got[3]
    name = f"{os.path.relpath(d, CORPUS)}/{base} {' '.join(opts)}"
    detail = None
    if not same:
        detail = {"ref": ref[1:], "got": got[1:]}
    return name, same, detail, ref


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", default=os.path.join(ROOT, "target/release/pmdumplog"))
    ap.add_argument("--out", default=os.path.join(ROOT, "conformance-out"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    missing = scoreboard.missing_reference("pmdumplog")
    if missing is not None:
        return missing
    env = dict(os.environ)
    env.setdefault("TZ", "UTC")
    jobs = []
    for d, base in archives(pcp7=True):
        if a.filter and a.filter not in f"{d}/{base}":
            continue
        sets = GIANT_SETS if base in GIANT else OPTION_SETS
        for opts in sets:
            jobs.append((d, base, opts))
    arch = os.path.join(CORPUS, "archives")
    for base, opts in NAMES:
        if not a.filter or a.filter in base:
            jobs.append((arch, base, opts))
    results = []
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        futs = [ex.submit(cases, a.ours, d, b, o, env) for d, b, o in jobs]
        for f in futs:
            results += f.result()
    return scoreboard.report("pmdumplog", results, a.out, bool(a.filter), diffs="diffs")


if __name__ == "__main__":
    sys.exit(main())
