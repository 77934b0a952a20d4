#!/usr/bin/env python3
"""Conformance suite for derived metrics: runs PCP 6.0.3's pmval and pminfo and ours
on the same derived metrics and compares stdout, stderr and exit status.

- Every definition of PCP's global configuration ($PCP_SYSCONF_DIR/derived, which
  every context loads) over every corpus archive that can feed it (the reference's
  pminfo -d says which bind), replayed raw (pmval -U, every record) and
  interpolated (pmval -t, a tenth of the archive's span).
- A generated set of expressions, every operator and function applied to pairs of
  metrics of every type and semantics (the forms of scripts/make-derive-goldens.py,
  over testdata/archives/sample_v3 and pmi_v2), given with --derived / -c: pmval
  raw and interpolated, pminfo -d -f.
- Bad expressions, one per diagnostic of pmRegisterDerived (the list of
  scripts/make-derive-goldens.py) and bad configuration files (each of
  pmLoadDerivedConfig's messages), loaded by pminfo -c.

Writes a scoreboard (N of M identical, then the differing cases) and a diff per
differing case. Exit status: 0 when the score is at least the floor kept in
conformance/floor-derived, 1 below it, 77 when the reference is not installed
(unless REQUIRE_REFERENCE is set, then 1).

Usage: conformance/derived.py [--bin DIR] [--out DIR] [--jobs N] [--filter SUBSTR]
"""
import argparse, concurrent.futures as cf, datetime, importlib.util, os, re, shutil
import subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from pmdumplog import CORPUS  # noqa: E402
import scoreboard  # noqa: E402

TESTDATA = os.path.join(ROOT, "testdata/archives")
GLOBAL_DIR = "/etc/pcp/derived"
# archives whose every replay takes seconds: a few global names each
GIANT = {"20180416.10.00", "pcp-pidstat-process-args", "20130706", "bozo-20170904",
         "20201109"}
GIANT_NAMES = 4
SAMPLES = "10"
# pairs of metrics the generated forms are applied to: {a} and {b}, and whether {a}
# is of a 64-bit or floating type
PAIRS = {
    "sample_v3": [("sample.long.bin", "sample.bin", False),
                  ("sample.seconds", "sample.long.one", True),
                  ("sample.double.million", "sample.float.ten", True),
                  ("sample.ulonglong.million", "sample.longlong.million", True),
                  ("sample.colour", "sample.part_bin", False)],
    "pmi_v2": [("pmi.disk.bytes", "pmi.u32", True), ("pmi.load", "pmi.u32", True)],
}
# where libpcp 6.0.3 gives what its memory held: `!` of a 64-bit or floating value
# (it writes a 32-bit result into the wider one's place), and max() or min() of no
# values (the first interpolated fetch, at the archive's start: started later)
WIDE_ONLY_32 = {"!{a}"}
NO_VALUES_FIRST = ("max(", "min(")


def goldens_module():
    """scripts/make-derive-goldens.py, for its lists of expressions."""
    path = os.path.join(ROOT, "scripts/make-derive-goldens.py")
    spec = importlib.util.spec_from_file_location("derive_goldens", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(cmd, cwd, env):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=900)
    return p.stdout, p.stderr, p.returncode


def case(bindir, job, env):
    cwd, tool, args, name = job
    ref = run([tool] + args, cwd, env)
    got = run([os.path.join(bindir, tool)] + args, cwd, env)
    if ref[2] < 0:
        # the reference died of a signal: ours must answer, and says what it did
        name += f" (reference killed by signal {-ref[2]}; ours exit {got[2]})"
        return name, got[2] >= 0, (None if got[2] >= 0 else {"ref": ref, "got": got})
    return name, ref == got, (None if ref == got else {"ref": ref, "got": got})


def global_names():
    """The names PCP's global configuration defines, in its files' order."""
    names = []
    for f in sorted(os.listdir(GLOBAL_DIR)):
        with open(os.path.join(GLOBAL_DIR, f), errors="replace") as fh:
            for line in fh:
                m = re.match(r"^\s*([A-Za-z][\w.]*)\s*=", line)
                if m and m.group(1) not in names:
                    names.append(m.group(1))
    return names


def span(d, base, env):
    """The archive's length in seconds, from the reference's label dump."""
    p = subprocess.run(["pmdumplog", "-l", base], cwd=d, env=dict(env, TZ="UTC"),
                       capture_output=True, text=True, errors="replace", timeout=120)
    t = re.findall(r"(?:commencing|ending)\s+(\w+ \w+ +\d+ [\d:.]+ \d+)", p.stdout)
    if len(t) != 2:
        return None
    f = "%a %b %d %H:%M:%S.%f %Y"
    a, b = (datetime.datetime.strptime(re.sub(" +", " ", x), f) for x in t)
    return (b - a).total_seconds()


def bound(d, base, names, env):
    """The global names the archive feeds: those the reference's pminfo describes."""
    p = subprocess.run(["pminfo", "-a", base, "-d"] + names, cwd=d, env=env,
                       capture_output=True, text=True, errors="replace", timeout=300)
    return [n for n in names if re.search(rf"^{re.escape(n)}\n    Data Type", p.stdout, re.M)]


def global_jobs(names, env, flt):
    jobs = []
    d = os.path.join(CORPUS, "archives")
    bases = sorted({re.sub(r"\.(meta|index)(\.\w+)?$", "", f) for f in os.listdir(d)
                    if re.search(r"\.meta(\.\w+)?$", f)})
    for base in bases:
        if flt and flt not in base:
            continue
        feeds = bound(d, base, names, env)
        if not feeds:
            continue
        length = span(d, base, env)
        if base in GIANT:
            feeds = feeds[:GIANT_NAMES]
        step = f"{max(length / 10, 0.001):.3f}" if length else "1"
        for n in feeds:
            jobs.append((d, "pmval", ["-U", base, "-s", SAMPLES, n], f"global {base} -U {n}"))
            jobs.append((d, "pmval", ["-a", base, "-t", step, "-s", SAMPLES, n],
                         f"global {base} -t {step} {n}"))
    return jobs


def form_jobs(mod, tmp):
    """Every form of the goldens' list over each pair, in one --derived file per
    archive: pmval raw and interpolated, pminfo -d -f."""
    jobs = []
    for arch, pairs in PAIRS.items():
        conf = os.path.join(tmp, f"forms-{arch}.conf")
        names = []
        with open(conf, "w") as fh:
            for i, (a, b, wide) in enumerate(pairs):
                for k, form in enumerate(mod.SEM_FORMS):
                    if wide and form in WIDE_ONLY_32:
                        continue
                    n = f"f.p{i}.e{k}"
                    fh.write(f"{n} = {form.format(a=a, b=b)}\n")
                    names.append((n, form.format(a=a, b=b)))
        for n, expr in names:
            what = f"forms {arch} {n} = {expr}"
            jobs.append((TESTDATA, "pmval", [f"--derived={conf}", "-U", arch, "-s", "6", n],
                         what + " (-U)"))
            later = ["-S", "+0.2"] if expr.startswith(NO_VALUES_FIRST) else []
            jobs.append((TESTDATA, "pmval", [f"--derived={conf}", "-a", arch, "-t", "0.15",
                                             "-s", "6", n] + later, what + " (-t)"))
            jobs.append((TESTDATA, "pminfo", ["-c", conf, "-a", arch, "-df", n],
                         what + " (pminfo)"))
    return jobs


def bad_jobs(mod, tmp):
    """Each bad expression in a file of its own, and the goldens' bad configuration
    files, loaded by pminfo -c."""
    jobs = []
    for i, expr in enumerate(mod.BAD):
        conf = os.path.join(tmp, f"bad-{i:03d}.conf")
        with open(conf, "w") as fh:
            fh.write(f"bad.m = {expr}\n")
        jobs.append((TESTDATA, "pminfo", ["-c", conf, "-a", "sample_v3", "-d", "bad.m"],
                     f"bad {expr!r}"))
    confdir = os.path.join(ROOT, "testdata/golden-derive/config")
    for f in sorted(os.listdir(confdir)):
        jobs.append((TESTDATA, "pminfo", ["-c", os.path.join(confdir, f), "-a", "sample_v3",
                                          "-d", "m"], f"config {f}"))
    return jobs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/release"),
                    help="directory of our pmval and pminfo")
    ap.add_argument("--out", default=os.path.join(ROOT, "conformance-out"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    for tool in ("pmval", "pminfo"):
        missing = scoreboard.missing_reference(tool)
        if missing is not None:
            return missing
    env = dict(os.environ)
    env.setdefault("TZ", "UTC")
    env.pop("PCP_DERIVED_CONFIG", None)
    mod = goldens_module()
    tmp = tempfile.mkdtemp(prefix="derived-conf-")
    # --filter: a part ("global", "forms", "bad"), or an archive of the global part
    parts = ("global", "forms", "bad")
    jobs = []
    if a.filter not in parts[1:]:
        jobs += global_jobs(global_names(), env, "" if a.filter in parts else a.filter)
    if a.filter in ("", "forms"):
        jobs += form_jobs(mod, tmp)
    if a.filter in ("", "bad"):
        jobs += bad_jobs(mod, tmp)
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda j: case(a.bin, j, env), jobs))
    shutil.rmtree(tmp, ignore_errors=True)
    crashed = [n for n, _, _ in results if "reference killed" in n]
    if crashed:
        print(f"the reference crashed on {len(crashed)} cases (ours answered):")
        for n in crashed:
            print(f"  {n}")
    return scoreboard.report("derived", results, a.out, bool(a.filter))


if __name__ == "__main__":
    sys.exit(main())
