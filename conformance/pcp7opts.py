#!/usr/bin/env python3
"""Conformance suite for the options PCP 7 added that ours take beside PCP 6.0.3's:
our `--skip-damaged` (pminfo and pmlogsummary; pmval takes it too) against PCP
7.2's tools, whose
multi-archive contexts leave out an archive that cannot be opened (7.1.4's libpcp).
pmlogextract's `-v` size and time forms are in conformance/pmlogextract.py.

Cases: lists of the QA corpus's multi/ archives with damaged archives of the corpus
(bad labels, records, empty, missing files) at the front, in the middle and at the
end, a list of damaged archives alone, and multi-corrupted/, whose archives open
but one of which has a corrupted record that reading meets (7.1.4's libpcp then
removes that archive from the context and reads on in the next); each
read by pminfo (-d, -T, -f) and pmlogsummary (a metric, -mix). A case is identical when exit status,
stdout and stderr agree (the notices' times and pids, and the chroot's /host
prefix, masked); where PCP 7.2 loses the instance names of the archives before the
one it left out (`pmNameIndom: ... Unknown or illegal instance identifier`), ours
must print the same but with the names, and the case is listed.

Writes conformance-out/scoreboard-pcp7opts.txt (N of M identical) and a diff per
differing case. Exit status: 0 at or above conformance/floor-pcp7opts, 1 below, 77
when PCP 7.2's chroot or the corpus is missing (1 under REQUIRE_REFERENCE).

Usage: conformance/pcp7opts.py [--out DIR] [--filter SUBSTR]
"""
import argparse, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from scoreboard import report  # noqa: E402

PCP7 = os.path.join(ROOT, "scripts", "pcp7")
PCP7_ROOT = os.environ.get("PCP7_ROOT", "/opt/pcp7")
CORPUS = "/var/lib/pcp/testsuite"
GOOD = ["archives/multi/20150508.11.44", "archives/multi/20150508.11.46",
        "archives/multi/20150508.11.50"]
DAMAGED = ["badarchives/badlen-5", "badarchives/badlabel-1", "badarchives/badmeta-3",
           "badarchives/empty", "badarchives/bug", "badarchives/badti-1",
           "archives/no-such-archive"]
LISTS = [[d, GOOD[0], GOOD[1]] for d in DAMAGED] \
    + [[GOOD[0], d, GOOD[1]] for d in DAMAGED[:3]] \
    + [[GOOD[0], GOOD[1], d] for d in DAMAGED[:3]] \
    + [[GOOD[0], DAMAGED[0], GOOD[1], DAMAGED[3], GOOD[2]], DAMAGED[:3], GOOD]
# archives that open but whose records turn out corrupted as they are read: the
# directory, and lists with the corrupted one first, in the middle and last
CORRUPTED = "archives/multi-corrupted/20150508.11.%s"
LISTS += [["archives/multi-corrupted"],
          [CORRUPTED % m for m in ("44", "46", "50", "57")],
          [CORRUPTED % m for m in ("50", "57")],
          [CORRUPTED % m for m in ("44", "50")],
          [CORRUPTED % m for m in ("46", "50", "57")]]
# (pmval takes the option too; its output is not compared: PCP 7.2's pmval reads
# multi-archive contexts differently from 6.0.3's at the archives' boundaries,
# whatever the archives)
TOOLS = {
    "pminfo -d": lambda a: ["pminfo", "-a", a, "-d", "kernel.all.load", "hinv.ncpu"],
    "pminfo -T": lambda a: ["pminfo", "-a", a, "-T", "kernel.all"],
    "pminfo -f": lambda a: ["pminfo", "-a", a, "-f", "hinv.ncpu", "kernel.all.load"],
    "pmlogsummary": lambda a: ["pmlogsummary", "-z", a, "kernel.all.load"],
    "pmlogsummary -mix": lambda a: ["pmlogsummary", "-z", "-mix", a, "kernel.all.load"],
}


def run(cmd, env):
    r = subprocess.run(cmd, capture_output=True, env=env, timeout=300)
    return r.returncode, r.stdout, r.stderr


def masked(b):
    b = b.replace(b"/host/", b"/")
    return re.sub(rb"^\[[^]\n]*\] (\w+)\(\d+\)", rb"[T] \1(P)", b, flags=re.M)


def case(tool, spec):
    env = dict(os.environ, TZ="UTC")
    ref_spec = ",".join("/host" + os.path.join(CORPUS, p) for p in spec.split(","))
    ours_spec = ",".join(os.path.join(CORPUS, p) for p in spec.split(","))
    cmd = TOOLS[tool]
    rrc, rout, rerr = run([PCP7] + cmd(ref_spec), env)
    prog = cmd(ours_spec)[0]
    ours = [os.path.join(ROOT, "target", "release", prog), "--skip-damaged"] + cmd(ours_spec)[1:]
    orc, oout, oerr = run(ours, env)
    det = {"ref": (rout, masked(rerr), rrc), "got": (oout, masked(oerr), orc)}
    same = (rrc, masked(rout), masked(rerr)) == (orc, masked(oout), masked(oerr))
    if not same and b"pmNameIndom:" in rout:
        # PCP 7.2 loses the instance names of the archives opened before the one
        # it left out (it opens them again); ours keeps them: the same but for that
        lost = re.sub(rb"pmNameIndom: [^\n]*\n", b"", rout)
        kept = re.sub(rb'inst \[(\d+) or "[^"]*"\]', rb"inst [\1]", oout)
        if (rrc, masked(lost), masked(rerr)) == (orc, masked(kept), masked(oerr)):
            SPARED.append("%s %s" % (tool, spec))
            return True, det
    return same, det


# cases where PCP 7.2 lost instance names that ours printed
SPARED = []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "conformance-out"))
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    if not os.path.exists(os.path.join(PCP7_ROOT, "usr/bin/pmval")) or not os.path.isdir(CORPUS):
        print("pcp7opts conformance skipped: PCP 7.2's chroot or the QA corpus is missing")
        sys.exit(1 if os.environ.get("REQUIRE_REFERENCE") else 77)
    specs = [",".join(l) for l in LISTS]
    results = []
    for tool in TOOLS:
        for spec in specs:
            name = "%s --skip-damaged %s" % (tool, spec)
            if a.filter not in name:
                continue
            try:
                same, det = case(tool, spec)
            except Exception as e:  # a case that cannot run differs
                same, det = False, {"diffs": [str(e)]}
            results.append((name, same, det))
            print("%-100s %s" % (name[:100], "identical" if same else "differs"), flush=True)
    for c in SPARED:
        print("PCP 7.2 lost the instance names ours kept: " + c)
    sys.exit(report("pcp7opts", results, a.out, a.filter != ""))


if __name__ == "__main__":
    main()
