#!/usr/bin/env python3
"""Conformance suite for pmlogsize: runs PCP 6.0.3's pmlogsize and ours on every
archive of PCP's QA corpus (good and damaged, plain and compressed) by base
name with 8 option sets (details, repeats, thresholds, verbosity), on each
archive's files named one by one, on several archives at once, and on
command-line mistakes; compares stdout, stderr and exit status, and writes a
scoreboard (N of M identical, then the differing cases) and a diff per
differing case.

Where the reference crashes (it does on some v3 archives with -d, and on a
damaged one), ours must answer: the case passes when ours exits normally, and
its name says what each did.

Exit status: 0 when the score is at least the floor kept in
conformance/floor-pmlogsize, 1 below it, 77 when the reference is not
installed (unless REQUIRE_REFERENCE is set, then 1).

Usage: conformance/pmlogsize.py [--ours PATH] [--out DIR] [--jobs N] [--filter SUBSTR]
"""
import argparse, concurrent.futures as cf, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from pmdumplog import CORPUS, archives  # noqa: E402
import scoreboard  # noqa: E402

OPTION_SETS = [[], ["-d"], ["-r"], ["-r", "-x", "50"], ["-v"], ["-v", "-d"], ["-v", "-r"],
               ["-d", "-x", "10"]]
CLI = [[], ["-x", "0", "ok-foo"], ["-x", "101", "ok-foo"], ["-x", "abc", "ok-foo"],
       ["-Q", "ok-foo"], ["nosuch"], ["ok-foo", "nosuch"], ["ok-foo", "20041125"],
       ["-d", "ok-foo.meta", "ok-foo.index", "ok-foo.0"], ["--threshold=30", "-r", "20180102"],
       ["-?"], ["-D", "foo", "ok-foo"], ["multi/20150508.11.44"], ["/nonexistent/dir/x"]]


def run(cmd, cwd):
    env = dict(os.environ, TZ="UTC")
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=900)
    return p.stdout, p.stderr, p.returncode


def case(ours, d, args, name):
    ref = run(["pmlogsize"] + args, d)
    got = run([ours] + args, d)
    if ref[2] < 0:
        # the reference died of a signal: ours must answer
        name += f" (reference killed by signal {-ref[2]}; ours exit {got[2]})"
        return name, got[2] >= 0, (None if got[2] >= 0 else {"ref": ref, "got": got})
    return name, ref == got, (None if ref == got else {"ref": ref, "got": got})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", default=os.path.join(ROOT, "target/release/pmlogsize"))
    ap.add_argument("--out", default=os.path.join(ROOT, "conformance-out"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    missing = scoreboard.missing_reference("pmlogsize")
    if missing is not None:
        return missing
    jobs = []
    for d, base in archives(pcp7=True):
        rel = f"{os.path.relpath(d, CORPUS)}/{base}"
        if a.filter and a.filter not in rel:
            continue
        for opts in OPTION_SETS:
            jobs.append((d, opts + [base], f"{rel} {' '.join(opts)}"))
        for f in sorted(os.listdir(d)):
            if f.startswith(base + ".") and not f[len(base) + 1:].startswith("meta.bad"):
                jobs.append((d, ["-d", f], f"{rel} -d {f}"))
    if not a.filter or a.filter == "cli":
        arch = os.path.join(CORPUS, "archives")
        for args in CLI:
            jobs.append((arch, args, "cli " + " ".join(args)))
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda j: case(a.ours, *j), jobs))
    crashed = [n for n, _, _ in results if "reference killed" in n]
    if crashed:
        print(f"the reference crashed on {len(crashed)} cases (ours answered):")
        for n in crashed:
            print(f"  {n}")
    return scoreboard.report("pmlogsize", results, a.out, bool(a.filter))


if __name__ == "__main__":
    sys.exit(main())
