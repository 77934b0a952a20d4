#!/usr/bin/env python3
"""Conformance suite for pmlogcompress and pmlogdecompress against PCP 7.2's
(run from its chroot, scripts/install-pcp7.sh): copies of every corpus archive
below 4 MB (plain, compressed and damaged) compressed with the defaults and
decompressed again, and one archive in SAMPLE_EVERY compressed by each with 9
option sets (verbose, dry runs, each program forced, limits, program lists,
arguments, optimizing for space) and decompressed with 4 (beside the files,
into a directory, dry runs) from the same compressed copy; a compressed name
already taken, for each program; and command lines with mistakes. A case is
identical when exit status, stdout, stderr and the directory's file names
agree, every plain file is byte for byte the same, and every compressed file
holds the same bytes once decompressed; where a case writes compressed files,
PCP 7.2's pmlogdump -a must read ours as it reads its own.

Exit status: 0 when the score is at least the floor kept in
conformance/floor-pmlogcompress, 1 below it, 77 when PCP 7.2 is not installed
(unless REQUIRE_REFERENCE is set, then 1).

Usage: conformance/pmlogcompress.py [--ours PATH] [--out DIR] [--jobs N] [--filter SUBSTR]
"""
import argparse, concurrent.futures as cf, hashlib, os, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from pmdumplog import CORPUS, archives  # noqa: E402
from pmlogmv import have_pcp7  # noqa: E402
import scoreboard  # noqa: E402

PCP7 = os.path.join(ROOT, "scripts", "pcp7")
LIMIT = 4 << 20
SAMPLE_EVERY = 8
# option sets, and whether PCP 7.2's pmlogdump reads the result (where it writes)
COMPRESS = [([], True), (["-V"], False), (["-N", "-V", "-V"], False), (["-f", "zstd", "-V"], True),
            (["-f", "gzip"], True), (["-l", "0", "-Z", "0", "-V"], True),
            (["-c", "bzip2", "-c", "gzip"], True), (["-A", "-9", "-f", "xz"], False),
            (["-o", "space"], False)]
DECOMPRESS = [([], True), (["-V"], False), (["-N", "-V"], False), (["-t", "sub", "-V"], False)]
# a compressed name taken by a file that is not the volume compressed
CLASH = [("xz", ".xz"), ("zstd", ".zst"), ("bzip2", ".bz2"), ("gzip", ".gz")]
CLI = [("pmlogcompress", []), ("pmlogcompress", ["-x", "a"]), ("pmlogcompress", ["-?"]),
       ("pmlogcompress", ["-l", "12a", "a"]), ("pmlogcompress", ["-o", "fast", "a"]),
       ("pmlogcompress", ["-o", "time", "-f", "xz", "a"]), ("pmlogcompress", ["-f", "nosuch", "a"]),
       ("pmlogcompress", ["-c", "lz4", "a"]), ("pmlogcompress", ["-C", "/nonexistent", "a"]),
       ("pmlogcompress", ["nosuch"]), ("pmlogdecompress", []), ("pmlogdecompress", ["-t", "/nonexistent", "a"]),
       ("pmlogdecompress", ["nosuch"])]


def run(cmd, cwd, env):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=900)
    return p.returncode, p.stdout, p.stderr


def unpacked(path):
    """A file's bytes, decompressed where its suffix says so."""
    for suffix, cmd in ((".xz", ["xz", "-dc"]), (".zst", ["zstd", "-dcq"]), (".bz2", ["bzip2", "-dc"]),
                        (".gz", ["gzip", "-dc"]), (".lzma", ["xz", "-dc", "--format=lzma"])):
        if path.endswith(suffix):
            return subprocess.run(cmd + [path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    return open(path, "rb").read()


def tree(d):
    names = sorted(os.path.relpath(os.path.join(r, f), d) for r, _, fs in os.walk(d) for f in fs)
    return names, {n: unpacked(os.path.join(d, n)) for n in names}


def dump7(d, base, env):
    rc, out, err = run([PCP7, "pmlogdump", "-a", base], d, env)
    return rc, out, err


# PCP 7.2's dumps of its own results, by what they hold: the cases of one archive
# mostly leave the same bytes once decompressed, and 7.2 reads them the same
REF_DUMPS = {}


def ref_dump7(d, base, env, names, contents):
    key = hashlib.sha256(repr(names).encode() + b"".join(
        hashlib.sha256(contents[n]).digest() for n in names)).hexdigest()
    if key not in REF_DUMPS:
        REF_DUMPS[key] = dump7(d, base, env)
    return REF_DUMPS[key]


def tool_case(ours, d, base, tool, opts, env, name, pack_first=False, dump=True, taken=None):
    """Each side on its own copy; for pmlogdecompress the copy is first
    compressed by PCP 7.2's pmlogcompress; `taken` names a suffix whose file
    is put beside the first volume first."""
    tmp = tempfile.mkdtemp(prefix="pmlogcompress-conf-", dir="/tmp")
    res = []
    try:
        for side in ("ref", "ours"):
            w = os.path.join(tmp, side)
            os.makedirs(os.path.join(w, "sub"))
            for f in os.listdir(d):
                if f.startswith(base + "."):
                    shutil.copy(os.path.join(d, f), w)
            if pack_first:
                run([PCP7, "pmlogcompress", "-l", "0", base], w, env)
            if taken:
                with open(os.path.join(w, f"{base}.0{taken}"), "wb") as fh:
                    fh.write(b"not the volume\n")
            cmd = [PCP7, tool] if side == "ref" else [ours]
            rc, out, err = run(cmd + opts + [base], w, env)
            names, contents = tree(w)
            dumped = None
            if dump:
                # ours is always dumped: 7.2 must read what ours compressed
                dumped = (ref_dump7(w, base, env, names, contents) if side == "ref"
                          else dump7(w, base, env))
            res.append((rc, out, err, names, contents, dumped))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    diffs = scoreboard.differences(res[0], res[1])
    return name, not diffs, ({"diffs": diffs} if diffs else None)


def cli_case(bindir, tool, args, env, name):
    tmp = tempfile.mkdtemp(prefix="pmlogcompress-conf-", dir="/tmp")
    try:
        ref = run([PCP7, tool] + args, tmp, env)
        got = run([os.path.join(bindir, tool)] + args, tmp, env)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    same = ref == got
    return name, same, (None if same else {"ref": ref[1:] + ref[:1], "got": got[1:] + got[:1]})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", default=os.path.join(ROOT, "target/release/pmlogcompress"))
    ap.add_argument("--out", default=os.path.join(ROOT, "conformance-out"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    if not have_pcp7():
        msg = "PCP 7.2 (scripts/install-pcp7.sh) is not installed"
        if os.environ.get("REQUIRE_REFERENCE"):
            print(f"conformance: FAIL: {msg}", file=sys.stderr)
            return 1
        print(f"conformance: skipped: {msg}")
        return 77
    env = dict(os.environ, TZ="UTC")
    bindir = os.path.dirname(os.path.abspath(a.ours))
    decomp = os.path.join(bindir, "pmlogdecompress")
    jobs = []
    chosen = [(d, base) for d, base in archives(pcp7=True) if scoreboard.archive_size(d, base) < LIMIT]
    for k, (d, base) in enumerate(chosen):
        rel = f"{os.path.relpath(d, CORPUS)}/{base}"
        if a.filter and a.filter not in rel:
            continue
        every = k % SAMPLE_EVERY == 0
        for opts, dump in COMPRESS if every else COMPRESS[:1]:
            j = (a.ours, d, base, "pmlogcompress", opts, env, f"compress {rel} {' '.join(opts)}")
            jobs.append(lambda j=j, dump=dump: tool_case(*j, dump=dump))
        for opts, dump in DECOMPRESS if every else DECOMPRESS[:1]:
            j = (decomp, d, base, "pmlogdecompress", opts, env, f"decompress {rel} {' '.join(opts)}")
            jobs.append(lambda j=j, dump=dump: tool_case(*j, pack_first=True, dump=dump))
        if every and os.path.exists(os.path.join(d, base + ".0")):
            for prog, suffix in CLASH:
                opts = ["-l", "0", "-f", prog, "-V"]
                j = (a.ours, d, base, "pmlogcompress", opts, env, f"taken {rel} {' '.join(opts)}")
                jobs.append(lambda j=j, suffix=suffix: tool_case(*j, dump=False, taken=suffix))
    if not a.filter or a.filter == "cli":
        for tool, args in CLI:
            jobs.append((lambda t=tool, g=args: cli_case(bindir, t, g, env, f"cli {t} {' '.join(g)}")))
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda j: j(), jobs))
    return scoreboard.report("pmlogcompress", results, a.out, bool(a.filter))


if __name__ == "__main__":
    sys.exit(main())
