#!/usr/bin/env python3
"""Conformance suite for pmloglabel: runs PCP 6.0.3's pmloglabel and ours on
every archive of PCP's QA corpus (good and damaged) to check and show the
labels (`-l`, `-L`, `-v`), and on copies of every archive below 20 MB to change
them (host name, time zone, PID, version, the framing words, each with the
label shown after), and on command-line mistakes; compares stdout, stderr, exit
status and every file of the copy byte for byte, and writes a scoreboard (N of
M identical, then the differing cases) and a diff per differing case.

Where the reference crashes (writing a label whose host name it could not
read) or leaves an archive PCP itself can no longer open (a label of another
length written over the records after it, with `-V` across versions; some
files' labels written and not the compressed volumes'), ours must leave one
that PCP opens (it writes every file's label or none, and refuses a label of
another length); those cases are listed with what each tool did.

Exit status: 0 when the score is at least the floor kept in
conformance/floor-pmloglabel, 1 below it, 77 when the reference is not
installed (unless REQUIRE_REFERENCE is set, then 1).

Usage: conformance/pmloglabel.py [--ours PATH] [--out DIR] [--jobs N] [--filter SUBSTR]
"""
import argparse, concurrent.futures as cf, os, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from pmdumplog import CORPUS, archives  # noqa: E402
import scoreboard  # noqa: E402

# reading only, over every archive
READ_SETS = [[], ["-l"], ["-L"], ["-v", "-L"]]
# changes, on copies
WRITE_SETS = [["-h", "newhost", "-L"], ["-v", "-p", "4242", "-Z", "EST5", "-l"], ["-s"],
              ["-V", "2", "-v"], ["-V", "3"], ["-h", "h" * 300, "-Z", "z" * 300, "-L"],
              ["-p", "-7", "-l", "-v"]]
# command lines, run in the archives directory
CLI = [[], ["-x", "ok-foo"], ["-V", "4", "ok-foo"], ["ok-foo", "ok-bar"], ["nosuch"],
       ["-D", "foo", "nosuch"], ["-?"], ["--host"], ["--debug=x", "ok-foo"],
       ["--label", "--timezone"], ["-L", "ok-foo.meta"], ["-l", "ok-foo.0"],
       ["-L", "multi/"], ["-l", "."]]
LIMIT = 20 << 20


def run(cmd, cwd, env):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=900)
    return p.returncode, p.stdout, p.stderr


def read_case(ours, d, args, env, name):
    ref = run(["pmloglabel"] + args, d, env)
    got = run([ours] + args, d, env)
    return name, ref == got, (None if ref == got else {"ref": ref[1:] + ref[:1],
                                                      "got": got[1:] + got[:1]})


def files_of(d):
    names = sorted(os.listdir(d))
    return names, {n: open(os.path.join(d, n), "rb").read() for n in names}


def opens(d, base, env):
    """Whether PCP opens the archive (its pmdumplog -l succeeds)."""
    return run(["pmdumplog", "-l", base], d, env)[0] == 0


def input_files(d, base):
    return {f: open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d))
            if f.startswith(base + ".")}


def spoiled(d, base, env, res, opened):
    """How the reference spoiled the archive, if it did: it crashed, wrote over
    records past the label, wrote some files and failed on the rest (where
    ours wrote none), or left an archive PCP cannot open that it could before."""
    ref, ours = res
    before = input_files(d, base)
    if ref[0] < 0:
        return f"killed by signal {-ref[0]}"
    for f, old in before.items():
        new = ref[4].get(f, b"")
        n = int.from_bytes(old[:4], "big") if len(old) >= 4 else 0
        n = n if n in (132, 808) else 132
        if len(new) != len(old) or new[n:] != old[n:]:
            return f"wrote over the records after the label of {f}"
    if ref[0] != 0 and ref[0] == ours[0] and ours[4] == before and ref[4] != before:
        return "wrote some files and failed on the rest"
    if opened[1] and not opened[0] and opens(d, base, env):
        return "left an archive PCP cannot open"
    return None


def write_case(ours, d, base, args, env, name):
    """Each tool on its own copy of the archive's files; the copies compared.
    Where the reference crashed, or left an archive PCP cannot open that it
    could before, ours passes when it leaves one PCP opens (the case's name
    says what each did)."""
    tmp = tempfile.mkdtemp(prefix="pmloglabel-conf-")
    res, opened = [], []
    try:
        for tool in ("pmloglabel", ours):
            w = os.path.join(tmp, "ref" if tool == "pmloglabel" else "ours")
            os.mkdir(w)
            for f in os.listdir(d):
                if f.startswith(base + "."):
                    shutil.copy(os.path.join(d, f), w)
            rc, out, err = run([tool] + args + [base], w, env)
            res.append((rc, out, err) + files_of(w) + (None,))
            opened.append(opens(w, base, env))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    diffs = scoreboard.differences(res[0], res[1])
    what = diffs and spoiled(d, base, env, res, opened)
    if what:
        our_rc = res[1][0]
        kept = res[1][4] == input_files(d, base)
        name += (f" (reference {what}; ours exit {our_rc}, "
                 f"{'archive unchanged' if kept else 'archive changed'}, "
                 f"{'opens' if opened[1] else 'does not open'})")
        ok = our_rc >= 0 and (kept or opened[1] or not opens(d, base, env))
        return name, ok, (None if ok else {"diffs": ["ours spoiled the archive too"] + diffs})
    return name, not diffs, ({"diffs": diffs} if diffs else None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", default=os.path.join(ROOT, "target/release/pmloglabel"))
    ap.add_argument("--out", default=os.path.join(ROOT, "conformance-out"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    missing = scoreboard.missing_reference("pmloglabel")
    if missing is not None:
        return missing
    env = dict(os.environ)
    env.setdefault("TZ", "UTC")
    jobs = []
    for d, base in archives(pcp7=True):
        rel = f"{os.path.relpath(d, CORPUS)}/{base}"
        if a.filter and a.filter not in rel:
            continue
        for opts in READ_SETS:
            jobs.append((read_case, (d, opts + [os.path.join(d, base)]), f"{rel} {' '.join(opts)}"))
        if scoreboard.archive_size(d, base) < LIMIT:
            for opts in WRITE_SETS:
                label = " ".join(o if len(o) < 20 else o[:3] + "..." for o in opts)
                jobs.append((write_case, (d, base, opts), f"write {rel} {label}"))
    if not a.filter or a.filter == "cli":
        arch = os.path.join(CORPUS, "archives")
        for args in CLI:
            jobs.append((read_case, (arch, args), "cli " + " ".join(args)))
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda j: j[0](a.ours, *j[1], env, j[2]), jobs))
    spared = [n for n, _, _ in results if "(reference " in n]
    if spared:
        print(f"the reference crashed or damaged the archive in {len(spared)} cases "
              f"(ours left one PCP opens; listed in conformance-out/spared-pmloglabel.txt)")
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "spared-pmloglabel.txt"), "w") as fh:
            fh.write("\n".join(spared) + "\n")
    return scoreboard.report("pmloglabel", results, a.out, bool(a.filter))


if __name__ == "__main__":
    sys.exit(main())
