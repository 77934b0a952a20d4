#!/usr/bin/python3
"""Writes testdata/golden-derive/units.tsv: what libpcp's pmParseUnitsStr(3) makes
of units strings (the units word in hex and the multiplier, or its message); and
testdata/golden-derive/syntax.tsv: what PCP's libpcp says of derived-metric
expressions, good and bad, registered one after another in one process as
pmRegisterDerivedMetric(3) registers them: "OK", or its whole message. The
expressions are a set covering every operator, function and mkconst attribute,
every prefix of each (cut short anywhere), and each with a stray token put in at
every place. Run with the system's python3 (PCP's libpcp.so.3 through ctypes).

Usage: scripts/make-derive-goldens.py
"""
import ctypes
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "testdata/golden-derive/syntax.tsv")

GOOD = [
    "a.b",
    "a.b + c.d * 3 - 4 / e",
    "-a.b",
    "!a > b || c <= d && e != f",
    "a < b == c >= d",
    "a ? b : c",
    "(a + b) * c",
    "a.b[eth0]",
    "a[e\\]x] + 1",
    "(a + b)[inst one]",
    "avg(a.b) + count(a.b) + delta(a.b) + max(a.b)",
    "min(a.b) - sum(a.b) + rate(a.b) + instant(a.b)",
    "defined(a.b) ? a.b : 0",
    "anon(PM_TYPE_U64)",
    "mkconst(10, type=U64, semantics=counter)",
    "mkconst(1.5, type=double, units=\"kbyte / sec\")",
    "mkconst(7, units=Kbyte)",
    "rescale(a.b, \"Mbytes/hour\")",
    "matchinst(/^(lo)|(vbir)/, a.b)",
    "matchinst(!/sd[a-z]$/, a.b + 1)",
    "scalar(a.b[x]) + scalar(c)",
    "1.5e3 + .5 + 7.",
    "4294967295",
    "a.b >= mkconst(0, type=32)",
    "delta(a) == 0 ? -mkconst(1.0, semantics=instant, units=\"kbyte / count\") : delta(b) / delta(a)",
]

BAD = [
    "", " ", "4rat(disk.dev.read)", "4294967296", "a +", "+ a", "a b", "(a", "a)",
    "a & b", "a | b", "a @ b", "a[x", "\"abc", "matchinst(/abc, a)", "matchinst(/[/, a)",
    "mkconst(1.5, type=U32)", "mkconst(1, type=X)", "mkconst(1, semantics=X)",
    "mkconst(1, units=furlongs)", "rescale(a, \"furlongs\")", "rescale(a, 3)",
    "sum(a, b)", "sum(a + b)", "sum()", "scalar()", "a ? b", "a ? b :", "a = b",
    "a ! b", "!", "-", "a..b", "a.b.", "1 2", "a[x] [y]", "mkconst(a, type=U32)",
    "matchinst(a, b)", "matchinst(/x/ a)", "matchinst(/x/, )", "rescale(, \"sec\")",
    "avg(1)", "count(", "type", "units + 1", "a, b", "a : b",
    "rate(a) rate(b)", "((a)", "a))", "*", "a * * b", "a <= >= b",
]

# (anon() of a type it does not take is not here: libpcp frees the node twice and
# the process aborts)

STRAYS = ["+", ")", "(", ",", "?", ":", "=", "/", "[", "!", "1", "x"]


def cases():
    seen = set()
    out = []
    def add(e):
        if e not in seen and "\t" not in e and "\n" not in e:
            seen.add(e)
            out.append(e)
    for e in GOOD + BAD:
        add(e)
    for e in GOOD:
        for k in range(len(e)):
            add(e[:k])
    for e in GOOD[:12]:
        for k in range(0, len(e) + 1, 2):
            for s in STRAYS[::3]:
                add(e[:k] + s + e[k:])
    return out


UNITS_WORDS = ["sec", "millisec", "hours", "h", "ns", "time-2", "byte", "Kbyte", "MB",
               "GiB", "space-3", "count", "counts", "count x 10^6", "count x 10",
               "count x 10^-2", "furlong", "SEC", "kbytes"]
UNITS_FORMS = ["{a}", "{a} / {b}", "{a}^2", "{a}^-1 {b}", "1.5 {a}", "-2 {a} / 4 {b}",
               "{a} {b}", "{a}/", "/{b}", "{a}^x", "{a} ^2", ".5e1 {a}", "1e999 {a}",
               "{a}^15 / {b}^-8", " {a}\t/ {b} "]


class Units(ctypes.Structure):
    _fields_ = [("word", ctypes.c_uint32)]


def units_cases():
    out = []
    for f in UNITS_FORMS:
        for a in UNITS_WORDS:
            for b in (UNITS_WORDS if "{b}" in f else [""]):
                e = f.format(a=a, b=b).replace("\\t", "\t")
                if e not in out:
                    out.append(e)
    return out + ["", "-", "x", "1 2 3", "count x", "Kbyte^0", "sec / sec"]


def write_units(lib):
    lib.pmParseUnitsStr.argtypes = [ctypes.c_char_p, ctypes.POINTER(Units),
                                    ctypes.POINTER(ctypes.c_double),
                                    ctypes.POINTER(ctypes.c_char_p)]
    lines = []
    for s in units_cases():
        u, m, err = Units(), ctypes.c_double(), ctypes.c_char_p()
        rc = lib.pmParseUnitsStr(s.encode(), ctypes.byref(u), ctypes.byref(m), ctypes.byref(err))
        said = f"{u.word:08x} {m.value!r}" if rc == 0 else "error: " + err.value.decode()
        lines.append(s.replace("\t", "\\t") + "\t" + said)
    path = os.path.join(os.path.dirname(OUT), "units.tsv")
    with open(path, "w") as f:
        f.write("# units<TAB>pmUnits word (hex) and multiplier, or the error (made by scripts/make-derive-goldens.py)\n")
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines)} units strings -> {os.path.relpath(path, ROOT)}")


def main():
    lib = ctypes.CDLL("libpcp.so.3")
    write_units(lib)
    lib.pmRegisterDerivedMetric.argtypes = [
        ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)]
    lines = []
    for n, e in enumerate(cases()):
        err = ctypes.c_char_p()
        rc = lib.pmRegisterDerivedMetric(f"g.m{n}".encode(), e.encode("latin-1"), ctypes.byref(err))
        said = "OK" if rc == 0 else err.value.decode("latin-1")
        esc = said.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")
        lines.append(f"{e}\t{esc}")
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="latin-1") as f:
        f.write("# expression<TAB>what pmRegisterDerivedMetric says (made by scripts/make-derive-goldens.py)\n")
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines)} expressions -> {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
