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


# metrics of testdata/archives/sample_v3 of each kind: a U32 counter in seconds,
# instances of two domains, each numeric type, strings, count / sec
M = {
    "c": "sample.seconds", "i1": "sample.colour", "i2": "sample.bin",
    "i2b": "sample.long.bin", "f": "sample.float.ten", "d": "sample.double.million",
    "s": "sample.string.hullo", "u64": "sample.ulonglong.million",
    "i64": "sample.longlong.million", "u32": "sample.ulong.million",
    "one": "sample.long.one", "rate": "sample.write_me", "disc": "sample.lights",
    "agg": "sample.aggregate.hullo",
}
SEM_FORMS = [
    "{a}", "{a} + {b}", "{a} - {b}", "{a} * {b}", "{a} / {b}", "{a} < {b}", "{a} >= {b}",
    "{a} == 0", "{a} && {b}", "{a} || 1", "-{a}", "!{a}", "{a} ? {b} : {a}",
    "{a} ? {a} : {b}", "avg({a})", "count({a})", "delta({a})", "max({a})", "min({a})",
    "sum({a})", "rate({a})", "instant({a})", "defined({a})", "scalar({a})",
    "rescale({a}, \"Kbyte/sec\")", "rescale({a}, \"millisec\")", "{a}[red]",
    "matchinst(/bin-1/, {a})", "{a} * 1024 + {b}", "mkconst(1, units=sec) + {a}",
    "{a} + mkconst(2, type=double, units=\"count/sec\")", "defined(no.such) ? {a} : {b}",
    "no.such + {a}", "mkconst(1, semantics=counter) * {a}", "{a} / mkconst(3, units=\"Kbyte\")",
]


class Desc(ctypes.Structure):
    _fields_ = [("pmid", ctypes.c_uint32), ("type", ctypes.c_int), ("indom", ctypes.c_uint32),
                ("sem", ctypes.c_int), ("units", ctypes.c_uint32)]


def sem_cases():
    keys = list(M)
    out = []
    for f in SEM_FORMS:
        for a in keys:
            for b in (keys if "{b}" in f else [""]):
                e = f.format(a=M[a], b=M.get(b, ""))
                if e not in out:
                    out.append(e)
    return out


def write_semantics():
    """Runs itself in a child (libpcp's semantic errors go to its stderr) over
    testdata/archives/sample_v3, without the global derived metrics."""
    import subprocess
    import sys
    env = dict(os.environ, PCP_DERIVED_CONFIG="")
    r = subprocess.run([sys.executable, __file__, "--semantics-child"], env=env,
                       capture_output=True, text=True, check=True)
    errors = {}
    for line in r.stderr.splitlines():
        if line.startswith("Semantic error: derived metric "):
            name = line.split()[4].rstrip(":")
            errors.setdefault(name, line)
    lines = []
    for e, row in zip(sem_cases(), r.stdout.splitlines()):
        name, said = row.split("\t")
        if said == "unavailable" and name in errors:
            said = "error: " + errors[name]
        lines.append(f"{e}\t{said}")
    path = os.path.join(os.path.dirname(OUT), "semantics.tsv")
    with open(path, "w") as f:
        f.write("# expression<TAB>its descriptor (type sem indom units) over testdata/archives/sample_v3, "
                "the semantic error, or unavailable (made by scripts/make-derive-goldens.py)\n")
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines)} expressions over an archive -> {os.path.relpath(path, ROOT)}")


def semantics_child():
    lib = ctypes.CDLL("libpcp.so.3")
    lib.pmRegisterDerivedMetric.argtypes = [
        ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)]
    cases = sem_cases()
    for n, e in enumerate(cases):
        err = ctypes.c_char_p()
        lib.pmRegisterDerivedMetric(f"d.m{n}".encode(), e.encode(), ctypes.byref(err))
    archive = os.path.join(ROOT, "testdata/archives/sample_v3").encode()
    if lib.pmNewContext(2, archive) < 0:
        raise SystemExit("cannot open the archive")
    for n, e in enumerate(cases):
        name = ctypes.c_char_p(f"d.m{n}".encode())
        pmid = ctypes.c_uint32()
        said = "unavailable"
        if lib.pmLookupName(1, ctypes.byref(name), ctypes.byref(pmid)) >= 0:
            d = Desc()
            if lib.pmLookupDesc(pmid, ctypes.byref(d)) >= 0:
                said = f"{d.type} {d.sem} {d.indom:08x} {d.units:08x}"
        print(f"d.m{n}\t{said}")


# configuration files for pmLoadDerivedConfig(3): each kind of line and mistake
CONFIGS = {
    "good": "# a comment\n\na.x = b.y + 1\na.z=rate(q.r)\n  spaced.name  =  1\n",
    "attrs": "m.a = 1\nm.a(oneline) = \"one line\"\nm.a(helptext) = 'two\\\nlines and \\' quote'\n"
             "m.a(oneline) = again\nm.a(colour) = red\nno.such(oneline) = x\nm.a( ) = y\n",
    "multiline": "m.b = 2\nm.b(helptext) = \"first\nsecond\nthird\"  trailing\nm.b(oneline) = 'a'\n",
    "mistakes": "no equals here\n = 3\n9bad = 1\nm.c( = 1\nm.d) = 1\nm.e =   \nm.f(oneline) =  \n",
    "syntax": "m.g = a +\nm.h =\tb c\nm.i = (a\nm.g = 1\nm.j = matchinst(/x, a)\nm.k = a / b\n",
    "unterminated": "m.l = 1\nm.l(helptext) = \"never\nends\n",
    "lastline": "m.m = 1\nm.n = 2",
    "dup": "m.o = 1\nm.o = 2\n",
}


def write_configs():
    import subprocess
    import sys
    d = os.path.join(os.path.dirname(OUT), "config")
    os.makedirs(d, exist_ok=True)
    lines = []
    for name, body in CONFIGS.items():
        path = os.path.join(d, name + ".conf")
        with open(path, "w") as f:
            f.write(body)
        r = subprocess.run([sys.executable, __file__, "--config-child", path],
                           env=dict(os.environ, PCP_DERIVED_CONFIG=""),
                           capture_output=True, text=True, check=True)
        said = r.stdout.strip() + "\t" + r.stderr.replace(path, "{FILE}").replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")
        lines.append(f"{name}.conf\t{said}")
    with open(os.path.join(os.path.dirname(OUT), "config.tsv"), "w") as f:
        f.write("# file in config/<TAB>what pmLoadDerivedConfig returned<TAB>what it said (made by scripts/make-derive-goldens.py)\n")
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines)} configuration files -> testdata/golden-derive/config.tsv")


def main():
    import sys
    if "--semantics-child" in sys.argv:
        semantics_child()
        return
    if "--config-child" in sys.argv:
        lib = ctypes.CDLL("libpcp.so.3")
        print(lib.pmLoadDerivedConfig(sys.argv[-1].encode()))
        return
    lib = ctypes.CDLL("libpcp.so.3")
    write_configs()
    write_semantics()
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
