#!/usr/bin/env python3
"""Conformance suite for the pmlogcheck options PCP 7 added, against PCP 7.2's
pmlogcheck: `-f` (a full check that goes on after pass 0's fatal findings), `-R`
(repair by truncation, no questions), `-r` (repair after asking; refused where
stdin or stdout is not a terminal) and several archives on one command line. With
any of them ours checks as 7.2's does, in 7.2's words (pass 0 orders the files
index, metadata, volumes; the last valid record's offset comes with the file's
size; the index and the metadata's instance-domain times are checked as 7.1's);
without them it stays PCP 6.0.3's (conformance/pmlogcheck.py).

Cases:
- every archive of the QA corpus, its damaged ones and 7.2's extra ones, with
  `-f`, `-f -v`, `-f -w` and `-f -m`: stdout, stderr and exit status;
- `-R` on a copy of every damaged archive (and a few good ones): stdout, stderr,
  exit status and every file the copy ends with, byte for byte;
- `-r` where stdin is not a terminal, `-R` on compressed files, several archives
  (good, damaged, repeated, by a file's name).

Writes conformance-out/scoreboard-pmlogcheck7.txt (N of M identical) and a diff per
differing case. Exit status: 0 at or above conformance/floor-pmlogcheck7, 1 below,
77 when PCP 7.2's chroot or the corpus is missing (1 under REQUIRE_REFERENCE).

Usage: conformance/pmlogcheck7.py [--ours PATH] [--out DIR] [--jobs N] [--filter SUBSTR]
"""
import argparse, concurrent.futures as cf, os, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from pmdumplog import CORPUS, archives  # noqa: E402
from scoreboard import report  # noqa: E402

PCP7 = os.path.join(ROOT, "scripts", "pcp7")
PCP7_ROOT = os.environ.get("PCP7_ROOT", "/opt/pcp7")
BAD = os.path.join(CORPUS, "badarchives")
OPTION_SETS = [["-f"], ["-f", "-v"], ["-f", "-w"], ["-f", "-m"]]
# archives whose checks take seconds: left out
GIANT = {"20180416.10.00", "pcp-pidstat-process-args", "20130706", "bozo-20170904",
         "20201109"}
# good archives repaired too (nothing to cut)
REPAIR_GOOD = [("archives", "ok-foo"), ("archives", "ok-mv-foo"), ("archives", "20041125"),
               ("archives", "ok-bigbin")]
# several archives on one command line, run in the badarchives directory
SEVERAL = [["-f", "badlog-2", "badlen-3"], ["-f", "badlen-3", "badlog-2"],
           ["-f", "badlog-2", "badlog-2.0", "badlog-2"], ["-f", "nosuch", "badlog-2"],
           ["-f", "badti-3", "badlabel-1", "empty"], ["-f", "-v", "badlog-2", "badti-2"]]
# refusals
REFUSALS = [["-r", "badlen-3"], ["-r", "-R", "badlen-3"]]


def run(cmd, cwd, env, stdin=subprocess.DEVNULL):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdin=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=900)
    return p.stdout, p.stderr, p.returncode


def check_case(ours, d, args, env):
    ref = run([PCP7, "pmlogcheck"] + args, d, env)
    got = run([ours] + args, d, env)
    return ref == got, (None if ref == got else {"ref": ref, "got": got})


def files_of(d):
    return {f: open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d))}


def repair_case(ours, d, base, env, args=("-R",)):
    """Each pmlogcheck repairs its own copy of the archive's files."""
    with tempfile.TemporaryDirectory(prefix="pmlogcheck7-") as tmp:
        res = {}
        for who, cmd in (("ref", [PCP7, "pmlogcheck"]), ("got", [ours])):
            w = os.path.join(tmp, who)
            os.makedirs(w)
            for f in os.listdir(d):
                if f.startswith(base + "."):
                    shutil.copy(os.path.join(d, f), w)
            out = run(cmd + list(args) + [base], w, env)
            res[who] = (out, files_of(w))
    same = res["ref"] == res["got"]
    if same:
        return True, None
    diffs = []
    for k, what in ((2, "exit status"), (0, "stdout"), (1, "stderr")):
        a, b = res["ref"][0][k], res["got"][0][k]
        if a != b:
            a = a.decode(errors="replace") if isinstance(a, bytes) else "%s\n" % a
            b = b.decode(errors="replace") if isinstance(b, bytes) else "%s\n" % b
            diffs.append("%s differs:\n--- reference\n%s--- ours\n%s" % (what, a, b))
    fa, fb = res["ref"][1], res["got"][1]
    for f in sorted(set(fa) | set(fb)):
        if fa.get(f) != fb.get(f):
            diffs.append("%s: reference %s bytes, ours %s bytes" % (
                f, len(fa[f]) if f in fa else "no", len(fb[f]) if f in fb else "no"))
    return False, {"diffs": diffs}


def cases(a, env):
    """(name, function) for every case."""
    out = []
    for d, b in archives(pcp7=True):
        if b in GIANT:
            continue
        rel = os.path.relpath(os.path.join(d, b), "/")
        for opts in OPTION_SETS:
            out.append(("%s %s" % (" ".join(opts), rel),
                        lambda d=d, b=b, o=opts: check_case(a.ours, d, o + [b], env)))
    bad = sorted({b for d, b in archives() if d == BAD})
    for d, b in [(BAD, b) for b in bad] + [(os.path.join(CORPUS, s), b) for s, b in REPAIR_GOOD]:
        rel = os.path.relpath(os.path.join(d, b), "/")
        out.append(("-R " + rel, lambda d=d, b=b: repair_case(a.ours, d, b, env)))
    multi_xz = os.path.join(CORPUS, "archives", "multi-xz")
    out.append(("-R compressed multi-xz/20150508.11.46",
                lambda: repair_case(a.ours, multi_xz, "20150508.11.46", env)))
    for args in SEVERAL + REFUSALS:
        out.append(("several: " + " ".join(args) if args not in REFUSALS else " ".join(args),
                    lambda args=args: check_case(a.ours, BAD, args, env)))
    return [c for c in out if a.filter in c[0]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", default=os.path.join(ROOT, "target/release/pmlogcheck"))
    ap.add_argument("--out", default=os.path.join(ROOT, "conformance-out"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    if not os.path.exists(os.path.join(PCP7_ROOT, "usr/bin/pmlogcheck")) or not os.path.isdir(CORPUS):
        print("pmlogcheck7 conformance skipped: PCP 7.2's chroot or the QA corpus is missing")
        sys.exit(1 if os.environ.get("REQUIRE_REFERENCE") else 77)
    env = dict(os.environ, TZ="UTC")
    todo = cases(a, env)

    def one(c):
        try:
            same, det = c[1]()
        except Exception as e:  # a case that cannot run differs
            same, det = False, {"diffs": [str(e)]}
        return c[0], same, det

    with cf.ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(one, todo))
    sys.exit(report("pmlogcheck7", results, a.out, a.filter != ""))


if __name__ == "__main__":
    main()
