#!/usr/bin/python3
"""Writes testdata/golden-derive/values.tsv: the values PCP's libpcp gives derived
metrics over testdata/archives/pmi_v2 (written by scripts/make-pmi-archive.py),
fetched with pmFetch under pmSetMode at several intervals, forward from the
archive's start: each fetch's values (instance and value; doubles as hex, exact),
or its error. Run with the system's python3 (PCP's pcp.pmapi).

Usage: scripts/make-derive-values.py
"""
import ctypes
import os
import sys
from pcp import pmapi
import cpmapi as c

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARCHIVE = os.path.join(ROOT, "testdata/archives/pmi_v2")
OUT = os.path.join(ROOT, "testdata/golden-derive/values.tsv")

EXPRS = [
    "pmi.load", "pmi.load * 2", "pmi.load + 1.5", "-pmi.load",
    "pmi.load > 1", "pmi.load > 1 ? pmi.load : 0", "pmi.u32", "instant(pmi.u32)",
    "rate(pmi.u32)", "delta(pmi.u32)", "rescale(pmi.u32, \"Mbyte\")",
    "pmi.disk.bytes", "sum(pmi.disk.bytes)", "count(pmi.disk.bytes)",
    "avg(pmi.disk.bytes)", "max(pmi.disk.bytes)", "min(pmi.disk.bytes)",
    "delta(pmi.disk.bytes)", "rate(pmi.disk.bytes)", "pmi.disk.bytes[sda]",
    "matchinst(/sd[ab]/, pmi.disk.bytes)", "matchinst(!/sda/, pmi.disk.bytes)",
    "scalar(pmi.disk.bytes[sdb])", "pmi.disk.bytes + pmi.disk.bytes",
    "instant(pmi.disk.bytes) * 2", "instant(pmi.disk.bytes) / instant(pmi.u32)",
    "rate(pmi.disk.bytes) / 1024", "mkconst(3, type=64) * pmi.load",
    "defined(pmi.load) + defined(no.such)", "pmi.load >= 0.5 && pmi.load < 2",
    "pmi.load > 0.003 ? pmi.load : -pmi.load",
    "instant(pmi.disk.bytes) > 100 ? instant(pmi.disk.bytes) : instant(pmi.disk.bytes) * 2",
    "pmi.load > 0.0035 ? instant(pmi.disk.bytes) : mkconst(7, type=U64, semantics=instant)",
    "instant(pmi.disk.bytes) > 1000 ? mkconst(1, type=U64, semantics=instant) : instant(pmi.disk.bytes)",
    "!instant(pmi.u32)", "!(pmi.load > 1)", "rescale(instant(pmi.disk.bytes), \"Kbyte\")",
    "rescale(rate(pmi.u32), \"Mbyte/min\")", "matchinst(/c/, pmi.disk.bytes)",
]
# (not `!pmi.load`: libpcp keeps a `!` in the low 32 bits of a double's value and
# leaves the rest as malloc(3) gave them, so its values are not repeatable)
STEPS = [(1000, 60), (7000, 10), (20000, 4)]


def atom(ctx, r, j, k, desc):
    v = r.contents.get_vlist(j, k)
    a = ctx.pmExtractValue(r.contents.get_valfmt(j), v, desc.type, desc.type)
    t = desc.type
    if t == c.PM_TYPE_32:
        return str(a.l)
    if t == c.PM_TYPE_U32:
        return str(a.ul)
    if t == c.PM_TYPE_64:
        return str(a.ll)
    if t == c.PM_TYPE_U64:
        return str(a.ull)
    if t == c.PM_TYPE_FLOAT:
        return float(a.f).hex()
    return float(a.d).hex()


def main():
    lib = ctypes.CDLL("libpcp.so.3")
    lib.pmRegisterDerivedMetric.argtypes = [
        ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)]
    names = []
    for n, e in enumerate(EXPRS):
        name = f"v.m{n}"
        err = ctypes.c_char_p()
        if lib.pmRegisterDerivedMetric(name.encode(), e.encode(), ctypes.byref(err)) < 0:
            raise SystemExit(err.value.decode())
        names.append(name)
    lines = []
    for step_ms, count in STEPS:
        ctx = pmapi.pmContext(c.PM_CONTEXT_ARCHIVE, ARCHIVE)
        pmids = ctx.pmLookupName(names)
        descs = ctx.pmLookupDescs(pmids)
        start = ctx.pmGetArchiveLabel().start
        ctx.pmSetMode(c.PM_MODE_INTERP, start, step_ms)
        for k in range(count):
            try:
                r = ctx.pmFetch(pmids)
            except pmapi.pmErr as e:
                lines.append(f"{step_ms}\t{k}\t*\tfetch error {e.args[0]}")
                break
            for j, (e, d) in enumerate(zip(EXPRS, descs)):
                vs = r.contents.get_vset(j)
                n = vs.contents.numval
                if n < 0:
                    said = f"error {n}"
                else:
                    vals = []
                    for i in range(n):
                        inst = r.contents.get_inst(j, i)
                        vals.append(f"{inst}={atom(ctx, r, j, i, d)}")
                    said = " ".join(vals) if vals else "none"
                lines.append(f"{step_ms}\t{k}\t{e}\t{said}")
            ctx.pmFreeResult(r)
        del ctx
    with open(OUT, "w") as f:
        f.write("# interval ms<TAB>fetch<TAB>expression<TAB>values (inst=value, doubles in hex) "
                "over testdata/archives/pmi_v2 (made by scripts/make-derive-values.py)\n")
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines)} values -> {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
