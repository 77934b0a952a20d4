#!/usr/bin/env python3
"""Conformance suite for pmlogcheck: runs PCP 6.0.3's pmlogcheck and ours on every
archive of PCP's QA corpus (good and damaged) with a fixed list of option sets,
compares stdout, stderr and exit status, and writes a scoreboard (N of M identical,
plus the differing cases) and a diff per differing case.

Exit status: 0 when the score is at least the floor kept in conformance/floor-pmlogcheck,
1 below it, 77 when the reference is not installed (unless REQUIRE_REFERENCE is set,
then 1).

Usage: conformance/pmlogcheck.py [--ours PATH] [--out DIR] [--jobs N] [--filter SUBSTR]
"""
import argparse, concurrent.futures as cf, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from pmdumplog import CORPUS, archives  # noqa: E402
import scoreboard  # noqa: E402

OPTION_SETS = [
    [], ["-v"], ["-l"], ["-w"], ["-m", "-v"], ["-z"], ["-Z", "EST-10"],
    ["-S", "+1", "-T", "-1"], ["-T", "+2"], ["-S", "@00:00:00"],
]
# archives whose checks take the reference seconds: the plain run only
GIANT = {"20180416.10.00", "pcp-pidstat-process-args", "20130706", "bozo-20170904",
         "20201109"}
# how the archive is named on the command line: also by one of its files
NAMES = [lambda b: b, lambda b: "./" + b]
# command-line forms, run in the badarchives directory
CLI = [["-Q", "badlog-2"], ["--bogus", "badlog-2"], [], ["-D", "foo", "badlog-2"],
       ["-z", "-Z", "UTC", "badlog-2"], ["nosuch"], ["-S", "bogus", "badlog-2"],
       ["badlog-2.0"], ["badlog-2.meta"], ["badlog-2", "extra"], ["-?"],
       ["-n", "/nonexistent", "badlog-2"]]


def run(cmd, cwd, env):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=900)
    return p.stdout, p.stderr, p.returncode


def case(ours, d, args, env, name):
    ref = run(["pmlogcheck"] + args, d, env)
    got = run([ours] + args, d, env)
    return name, ref == got, (None if ref == got else {"ref": ref, "got": got})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", default=os.path.join(ROOT, "target/release/pmlogcheck"))
    ap.add_argument("--out", default=os.path.join(ROOT, "conformance-out"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    missing = scoreboard.missing_reference("pmlogcheck")
    if missing is not None:
        return missing
    env = dict(os.environ)
    env.setdefault("TZ", "UTC")
    jobs = []
    for d, base in archives(pcp7=True):
        if a.filter and a.filter not in f"{d}/{base}":
            continue
        rel = os.path.relpath(d, CORPUS)
        sets = [[]] if base in GIANT else OPTION_SETS
        for opts in sets:
            jobs.append((d, opts + [base], f"{rel}/{base} {' '.join(opts)}"))
        if base not in GIANT:
            jobs.append((d, ["./" + base], f"{rel}/./{base}"))
    bad_dir = os.path.join(CORPUS, "badarchives")
    if not a.filter or a.filter == "cli":
        for args in CLI:
            jobs.append((bad_dir, args, "cli " + " ".join(args)))
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda j: case(a.ours, j[0], j[1], env, j[2]), jobs))
    return scoreboard.report("pmlogcheck", results, a.out, bool(a.filter))


if __name__ == "__main__":
    sys.exit(main())
