#!/usr/bin/env python3
"""Damaged archives: PCP's verdict against ours.

Copies corpus archives (and the project's test archives), damages them at random
(truncated files, flipped bits, zeroed record-length words, swapped, missing,
duplicated and emptied files, several of these at once), and runs PCP 6.0.3's
tools and ours on each: `pmdumplog -a`, `pmdumplog -l`, `pmval` of the archive's
first metric, and `pmlogextract` to a new archive. A case agrees when the exit
status is the same (and, for `pmdumplog -l`, stdout too); cases where the reference
itself crashes (killed by a signal) or hangs are left out of the score and listed
apart. The damage is drawn from a seeded generator: a run is reproducible.

Writes conformance-out/scoreboard-mutations.txt (agreement, then every disagreeing
case with its mutation and both exit statuses). Exit status: 0 when agreement is at
least the floor in conformance/floor-mutations (a percentage), 1 below it, 77 when
the reference is not installed (unless REQUIRE_REFERENCE is set, then 1).

With --new-kinds, the damage also sets record lengths to 4, 8 or 12, value-block
lengths near 0 and near their largest, metadata words (name and string lengths)
near 0 and near 2^32, and duplicates a volume under the next number before cutting
or flipping the copy; up to five at once.

Usage: conformance/mutations.py [--cases N] [--seed S] [--jobs N] [--out DIR]
                                [--new-kinds] [--floor FILE]
"""
import argparse
import concurrent.futures as cf
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile

CORPUS = "/var/lib/pcp/testsuite/archives"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# small uncompressed archives of several shapes (v2 and v3, multi-volume, marks,
# event records, instance domains that change)
SOURCES = [
    (CORPUS, "20041125"), (CORPUS, "ok-foo"), (CORPUS, "ok-bigbin"), (CORPUS, "ok-mv-foo"),
    (CORPUS, "foo+"), (CORPUS, "mirage"), (CORPUS, "gap"), (CORPUS, "eventrec"),
    (CORPUS, "sample-labels"), (CORPUS, "dynmetric"), (CORPUS, "interpmark"),
    (CORPUS, "rattle"), (CORPUS, "tzchange-10-a"), (CORPUS, "20130706"),
    (CORPUS, "arch_a"), (CORPUS, "arch_b"), (CORPUS, "mark-bug"), (CORPUS, "multi/20150508.11.44"), (CORPUS, "eventrec-old"),
    (os.path.join(ROOT, "testdata/archives"), "sample_v2"),
    (os.path.join(ROOT, "testdata/archives"), "sample_v3"),
    (os.path.join(ROOT, "testdata/archives"), "pmi_v2"),
]
SUFFIX = re.compile(r"\.(meta|index|\d+)$")


def files_of(d, base):
    out = []
    for f in sorted(os.listdir(d)):
        if f.startswith(base + ".") and SUFFIX.fullmatch(f[len(base):]):
            out.append(f[len(base) + 1:])
    return out


def record_starts(data):
    """Offsets of the length words of the file's records (framing as stored)."""
    at, out = 0, []
    while at + 8 <= len(data) and len(out) < 100000:
        n = struct.unpack(">I", data[at:at + 4])[0]
        if n < 8 or at + n > len(data):
            break
        out.append(at)
        at += n
    return out


# value-block types whose length word a mutation may spoil (string, aggregates,
# events): the header word of a pmValueBlock is the type byte and a 24-bit length
BLOCK_TYPES = {6, 7, 8, 9, 10}
KINDS = ["truncate", "truncate", "flip", "flip", "zero-length", "zero-word", "swap",
         "missing", "duplicate", "empty"]
# the kinds added to find what the first ones missed: record lengths set small,
# value and name lengths near 0 and near their largest, a volume duplicated under
# the next number and then cut or flipped
NEW_KINDS = ["small-length", "small-length", "block-length", "block-length",
             "name-length", "dup-cut", "dup-flip"]


def block_headers(data, starts):
    """Offsets of words in records that look like pmValueBlock headers."""
    out = []
    for at in starts:
        n = struct.unpack(">I", data[at:at + 4])[0]
        for w in range(at + 16, at + n - 8, 4):
            word = struct.unpack(">I", data[w:w + 4])[0]
            if word >> 24 in BLOCK_TYPES and 4 <= word & 0xFFFFFF <= n:
                out.append(w)
    return out


def mutate_new(rng, d, f, data, kind):
    """The new kinds of damage to file `f` (bytes `data`); returns what was done,
    or None where the file has nothing of the kind."""
    starts = record_starts(bytes(data))
    if kind == "small-length" and starts:
        at, n = rng.choice(starts), rng.choice([4, 8, 12])
        data[at:at + 4] = struct.pack(">I", n)
        return "%s record length set to %d at %d" % (f, n, at)
    if kind == "block-length":
        heads = block_headers(bytes(data), starts)
        if heads:
            at = rng.choice(heads)
            n = rng.choice([0, 1, 2, 3, 4, 5, 0xFFFFFF, 0xFFFFFE, 0xFFFFF0])
            data[at + 1:at + 4] = struct.pack(">I", n)[1:]
            return "%s value block length set to %d at %d" % (f, n, at)
    if kind == "name-length" and f == "a.meta" and starts:
        at = rng.choice(starts)
        n = struct.unpack(">I", data[at:at + 4])[0]
        w = at + 4 * rng.randrange(2, max(3, n // 4 - 1))
        v = rng.choice([0, 1, 2, 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFF0, 0x7FFFFFFF])
        data[w:w + 4] = struct.pack(">I", v)
        return "%s word %d of the record at %d set to %d" % (f, (w - at) // 4, at, v)
    if kind in ("dup-cut", "dup-flip") and f[2:].isdigit() and data:
        vols = [int(n[2:]) for n in os.listdir(d) if n.startswith("a.") and n[2:].isdigit()]
        nxt = "a.%d" % (max(vols) + 1)
        copy = bytearray(data)
        if kind == "dup-cut":
            cut = rng.randrange(len(copy))
            copy = copy[:cut]
            what = "cut at %d" % cut
        else:
            at = rng.randrange(len(copy))
            copy[at] ^= 1 << rng.randrange(8)
            what = "bit flipped at %d" % at
        open(os.path.join(d, nxt), "wb").write(bytes(copy))
        return "%s copied as %s, %s" % (f, nxt, what)
    return None


def mutate(rng, d, new_kinds=False):
    """Damages the archive `d/a.*` in one to three ways (to five, with the new
    kinds among them); returns what was done."""
    done = []
    kinds = KINDS + NEW_KINDS if new_kinds else KINDS
    for _ in range(rng.choice([1, 1, 1, 2, 3] + ([4, 5] if new_kinds else []))):
        names = sorted(f for f in os.listdir(d) if f.startswith("a."))
        if not names:
            break
        f = rng.choice(names)
        path = os.path.join(d, f)
        data = bytearray(open(path, "rb").read())
        kind = rng.choice(kinds)
        if kind in NEW_KINDS:
            what = mutate_new(rng, d, f, data, kind)
            if what is not None:
                done.append(what)
                if not kind.startswith("dup"):
                    open(path, "wb").write(bytes(data))
            continue
        if kind == "truncate" and data:
            cut = rng.randrange(len(data))
            data = data[:cut]
            done.append("%s cut at %d" % (f, cut))
        elif kind == "flip" and data:
            at = rng.randrange(len(data))
            data[at] ^= 1 << rng.randrange(8)
            done.append("%s bit flipped at %d" % (f, at))
        elif kind == "zero-length":
            starts = record_starts(bytes(data))
            if starts:
                at = rng.choice(starts)
                data[at:at + 4] = b"\0\0\0\0"
                done.append("%s record length zeroed at %d" % (f, at))
        elif kind == "zero-word" and len(data) >= 4:
            at = rng.randrange(len(data) // 4) * 4
            data[at:at + 4] = b"\0\0\0\0"
            done.append("%s word zeroed at %d" % (f, at))
        elif kind == "swap" and len(names) > 1:
            g = rng.choice([n for n in names if n != f])
            other = open(os.path.join(d, g), "rb").read()
            open(os.path.join(d, g), "wb").write(data)
            data = bytearray(other)
            done.append("%s and %s swapped" % (f, g))
        elif kind == "missing":
            os.remove(path)
            done.append("%s removed" % f)
            continue
        elif kind == "duplicate":
            vols = [int(n[2:]) for n in names if n[2:].isdigit()]
            nxt = "a.%d" % (max(vols) + 1 if vols else 0)
            shutil.copyfile(path, os.path.join(d, nxt))
            done.append("%s copied as %s" % (f, nxt))
            continue
        elif kind == "empty":
            data = bytearray()
            done.append("%s emptied" % f)
        else:
            continue
        open(path, "wb").write(bytes(data))
    return done


def run(cmd, cwd, timeout=60):
    env = dict(os.environ, TZ="UTC")
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return ("hang", b"")
    return (p.returncode, p.stdout)


def first_metric(d, base):
    r = subprocess.run(["pmdumplog", "-d", base], cwd=d, capture_output=True, text=True,
                       errors="replace", timeout=60)
    m = re.search(r"^PMID: \S+ \(([^ )]+)", r.stdout, re.M)
    return m.group(1) if m else "sample.long.one"


def one_case(args):
    i, seed, src, metric, ours, new_kinds = args
    rng = random.Random("%d-%d" % (seed, i))
    d, base = src
    tmp = tempfile.mkdtemp(prefix="mut-")
    try:
        for f in files_of(d, base):
            shutil.copyfile(os.path.join(d, base + "." + f), os.path.join(tmp, "a." + f))
        what = mutate(rng, tmp, new_kinds) or ["nothing"]
        out = []
        for tool, argv, compare_stdout in [
            ("pmdumplog -a", ["-a", "a"], False),
            ("pmdumplog -l", ["-l", "a"], True),
            ("pmval", ["-a", "a", "-t", "1", "-s", "20", metric], False),
            ("pmlogextract", ["a", "out-%s"], False),
        ]:
            name = tool.split()[0]
            res = {}
            for who, prog in (("ref", name), ("ours", os.path.join(ours, name))):
                argv2 = [x.replace("%s", who) for x in argv]
                res[who] = run([prog] + argv2, tmp)
            ref, me = res["ref"], res["ours"]
            crashed = ref[0] == "hang" or (isinstance(ref[0], int) and ref[0] < 0)
            agree = ref[0] == me[0] and (not compare_stdout or ref[1] == me[1])
            out.append((tool, crashed, agree, ref[0], me[0]))
        return (i, "%s (%s)" % (base, "; ".join(what)), out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--ours", default=os.path.join(ROOT, "target/release"))
    ap.add_argument("--out", default=os.path.join(ROOT, "conformance-out"))
    ap.add_argument("--new-kinds", action="store_true",
                    help="add the newer kinds of damage (and up to five at once)")
    ap.add_argument("--floor", default="floor-mutations",
                    help="the file under conformance/ holding the floor")
    a = ap.parse_args()
    if shutil.which("pmdumplog") is None or not os.path.isdir(CORPUS):
        print("mutation harness skipped: the reference (PCP 6.0.3) is not installed")
        sys.exit(1 if os.environ.get("REQUIRE_REFERENCE") else 77)
    sources = [s for s in SOURCES if files_of(*s)]
    metrics = {s: first_metric(*s) for s in sources}
    work = []
    for i in range(a.cases):
        src = sources[i % len(sources)]
        work.append((i, a.seed, src, metrics[src], a.ours, a.new_kinds))
    results = []
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        for r in ex.map(one_case, work):
            results.append(r)
    scored = agreed = left_out = 0
    lines = []
    for i, what, out in sorted(results):
        for tool, crashed, agree, ref, me in out:
            if crashed:
                left_out += 1
                lines.append("left out (the reference %s): case %d %s: %s" %
                             ("hangs" if ref == "hang" else "crashes", i, tool, what))
                continue
            scored += 1
            if agree:
                agreed += 1
            else:
                lines.append("differs: case %d %s: %s: reference %s, ours %s" %
                             (i, tool, what, ref, me))
    pct = 100.0 * agreed / scored if scored else 100.0
    head = "mutations: %d of %d agree (%.2f%%), %d left out (the reference crashed or hung)" % (
        agreed, scored, pct, left_out)
    os.makedirs(a.out, exist_ok=True)
    board = "scoreboard-mutations%s.txt" % ("-new-%d" % a.seed if a.new_kinds else "")
    with open(os.path.join(a.out, board), "w") as f:
        f.write(head + "\n" + "\n".join(lines) + "\n")
    print(head)
    floor = float(open(os.path.join(HERE, a.floor)).read().split()[0])
    if pct < floor:
        print("below the floor (%.2f%%)" % floor)
        sys.exit(1)


if __name__ == "__main__":
    main()
