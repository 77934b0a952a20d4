#!/usr/bin/env python3
"""Conformance suite for pmlogmv: runs PCP 6.0.3's pmlogmv and ours on copies of
every archive of PCP's QA corpus below 20 MB (good and damaged, plain and
compressed), each named by its base name, by one of its files and by a path,
renamed plainly, with -V and -V -V, as a dry run (-N), onto a name already taken
by one of its files, and to an unsafe name with and without -f; and on
command-line mistakes. Compares stdout, stderr, exit status and the directory's
files (names and bytes), and writes a scoreboard (N of M identical, then the
differing cases) and a diff per differing case.

Exit status: 0 when the score is at least the floor kept in
conformance/floor-pmlogmv, 1 below it, 77 when the reference is not installed
(unless REQUIRE_REFERENCE is set, then 1).

Usage: conformance/pmlogmv.py [--ours PATH] [--out DIR] [--jobs N] [--filter SUBSTR]
"""
import argparse, concurrent.futures as cf, os, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from pmdumplog import CORPUS, archives  # noqa: E402
import scoreboard  # noqa: E402

LIMIT = 20 << 20
# (options, old name as given: {b} the base name, new name, a file made first)
SHAPES = [([], "{b}", "new", None), (["-V"], "{b}", "new", None),
          (["-V", "-V"], "./{b}", "sub/new", None), (["-N"], "{b}", "new", None),
          (["-N", "-V", "-V"], "{b}.meta", "new", None), (["-V"], "{b}", "new", "new.meta"),
          (["-V", "-V"], "{b}", "new", "new.index"), ([], "{b}", "a b", None),
          (["-f", "-V"], "{b}", "a$b", None), (["-c", "-V"], "{b}.0", "new", None)]
# pmlogcp and pmlogls against PCP 7.2's (shapes as above; "sub" is a directory)
CP_SHAPES = [([], "{b}", "new", None), (["-V"], "./{b}", "new", None),
             (["-V", "-V"], "{b}", "sub", None), (["-N"], "{b}", "new", None),
             (["-N", "-V", "-V"], "{b}.meta", "sub/new", None),
             (["-V"], "{b}", "new", "new.meta"), ([], "{b}", "a b", None),
             (["-f", "-V"], "{b}", "a{b}", None), (["-c", "-V"], "{b}.0", "new", None)]
LS_SHAPES = [([], "{b}"), (["-V"], "./{b}.meta"), (["-V", "-V"], "{b}"), ([], "nosuch"),
             (["-V"], "nosuch")]
PCP7 = os.path.join(ROOT, "scripts", "pcp7")
CLI7 = [("pmlogcp", []), ("pmlogcp", ["a"]), ("pmlogcp", ["-x", "a", "b"]), ("pmlogls", []),
        ("pmlogls", ["-c", "a"]), ("pmlogls", ["-?"]), ("pmlogcp", ["nosuch", "x"])]
CLI = [[], ["a"], ["-x", "a", "b"], ["-D", "foo", "a", "b"], ["-?"], ["nosuch", "new"],
       ["--verbose", "--showme", "nosuch", "x"], ["a", "b", "c"]]


def run(cmd, cwd, env):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=900)
    return p.returncode, p.stdout, p.stderr


def tree(d):
    out = {}
    for root, _, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            out[os.path.relpath(p, d)] = open(p, "rb").read()
    return sorted(out), out


def have_pcp7():
    """Whether PCP 7.2's chroot (scripts/install-pcp7.sh) is there."""
    root = os.environ.get("PCP7_ROOT", "/opt/pcp7")
    host = os.path.join(root, "host")
    return (os.access(os.path.join(root, "usr/bin/pmlogcp"), os.X_OK)
            and subprocess.run(["mountpoint", "-q", host]).returncode == 0)


def move_case(ours, d, base, shape, env, name, tools=("pmlogmv", None)):
    """Each tool on its own copy of the archive in a directory of /tmp (where
    PCP 7.2's chroot may write); the directories compared."""
    opts, old, new, taken = shape
    tmp = tempfile.mkdtemp(prefix="pmlogmv-conf-", dir="/tmp")
    res = []
    try:
        for tool in (tools[0].split(), [ours]):
            w = os.path.join(tmp, "ours" if tool == [ours] else "ref")
            os.makedirs(os.path.join(w, "sub"))
            for f in os.listdir(d):
                if f.startswith(base + "."):
                    shutil.copy(os.path.join(d, f), w)
            if taken:
                open(os.path.join(w, taken), "w").write("taken\n")
            names = [old.format(b=base)] + ([new.format(b=base)] if new is not None else [])
            rc, out, err = run(tool + opts + names, w, env)
            res.append((rc, out, err) + tree(w) + (None,))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    diffs = scoreboard.differences(res[0], res[1])
    return name, not diffs, ({"diffs": diffs} if diffs else None)


def cli_case(ours, args, env, name, ref_tool="pmlogmv"):
    tmp = tempfile.mkdtemp(prefix="pmlogmv-conf-", dir="/tmp")
    try:
        ref = run(ref_tool.split() + args, tmp, env)
        got = run([ours] + args, tmp, env)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    same = ref == got
    return name, same, (None if same else {"ref": ref[1:] + ref[:1], "got": got[1:] + got[:1]})


def pcp7_jobs(a):
    """pmlogcp and pmlogls against PCP 7.2's, where its chroot is installed."""
    if not have_pcp7():
        msg = "PCP 7.2 (scripts/install-pcp7.sh) is not installed: pmlogcp and pmlogls left out"
        if os.environ.get("REQUIRE_REFERENCE"):
            sys.exit(f"conformance: FAIL: {msg}")
        print(f"conformance: {msg}")
        return []
    bindir = os.path.dirname(os.path.abspath(a.ours))
    cp, ls = os.path.join(bindir, "pmlogcp"), os.path.join(bindir, "pmlogls")
    jobs = []
    for d, base in archives(pcp7=True):
        rel = f"{os.path.relpath(d, CORPUS)}/{base}"
        if (a.filter and a.filter not in rel) or scoreboard.archive_size(d, base) >= LIMIT:
            continue
        for shape in CP_SHAPES:
            label = f"pmlogcp {rel} {' '.join(shape[0])} {shape[1].format(b=base)} -> {shape[2]}"
            jobs.append((lambda o, *r: move_case(cp, *r, tools=(f"{PCP7} pmlogcp", None)),
                         (d, base, shape), label + (f" ({shape[3]} taken)" if shape[3] else "")))
        for opts, old in LS_SHAPES:
            label = f"pmlogls {rel} {' '.join(opts)} {old.format(b=base)}"
            jobs.append((lambda o, *r: move_case(ls, *r, tools=(f"{PCP7} pmlogls", None)),
                         (d, base, (opts, old, None, None)), label))
    if not a.filter or a.filter == "cli":
        for tool, args in CLI7:
            mine = cp if tool == "pmlogcp" else ls
            jobs.append((lambda o, *r, t=tool, m=mine: cli_case(m, *r, ref_tool=f"{PCP7} {t}"),
                         (args,), f"cli {tool} " + " ".join(args)))
    return jobs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", default=os.path.join(ROOT, "target/release/pmlogmv"))
    ap.add_argument("--out", default=os.path.join(ROOT, "conformance-out"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    missing = scoreboard.missing_reference("pmlogmv")
    if missing is not None:
        return missing
    env = dict(os.environ)
    env.setdefault("TZ", "UTC")
    jobs = []
    for d, base in archives(pcp7=True):
        rel = f"{os.path.relpath(d, CORPUS)}/{base}"
        if (a.filter and a.filter not in rel) or scoreboard.archive_size(d, base) >= LIMIT:
            continue
        for shape in SHAPES:
            label = f"{rel} {' '.join(shape[0])} {shape[1].format(b=base)} -> {shape[2]}"
            if shape[3]:
                label += f" ({shape[3]} taken)"
            jobs.append((move_case, (d, base, shape), label))
    if not a.filter or a.filter == "cli":
        for args in CLI:
            jobs.append((cli_case, (args,), "cli " + " ".join(args)))
    jobs += pcp7_jobs(a)
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda j: j[0](a.ours, *j[1], env, j[2]), jobs))
    return scoreboard.report("pmlogmv", results, a.out, bool(a.filter))


if __name__ == "__main__":
    sys.exit(main())
