#!/usr/bin/env python3
"""Conformance suite for pmlogextract: runs PCP 6.0.3's pmlogextract and ours on the
same inputs with the same options and compares, per case: exit status, stdout,
stderr, the set of output files, every output file byte for byte (except the pid in
each label record: the writer's own pid legitimately differs), and the reference
pmdumplog -a of both outputs (except its "PID for pmlogger" line). Writes a
scoreboard (N of M identical, and the differing cases).

Cases: every corpus archive alone; option sets (-S/-T windows inside, across and
outside, -s, -v, -V 2/3, -m, -f, -z/-Z) on a set of archives; groups of archives from
one host merged (multi/, mirage-1/-2, the 19970807 pair, mark_no_mark_*, schizo,
tzchange, 20190628 xz pair with and without -x, dupname, foo_v2/v3); -c selections
with instance lists.

Exit status: 0 when the score is at least the floor in conformance/floor-pmlogextract,
1 below it, 77 when the reference is not installed (unless REQUIRE_REFERENCE is set,
then 1).

Usage: conformance/pmlogextract.py [--ours PATH] [--out DIR] [--jobs N] [--filter SUBSTR]
"""
import argparse, concurrent.futures as cf, os, shutil, subprocess, sys, tempfile

CORPUS = "/var/lib/pcp/testsuite/archives"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import scoreboard  # noqa: E402
ROOT = os.path.dirname(HERE)
PCP7 = os.path.join(ROOT, "scripts", "pcp7")
# inputs larger than this are only extracted with -s (the reference is slow on them)
BIG = 8 << 20

OPTION_ARCHIVES = """ok-foo ok-mv-foo ok-bigbin ok-mv-bigbin gap gap2 mirage mirage-3 rattle
omnibus_v2 omnibus_v3 960624.08.17_v2 19970807.09.54 changeinst interpmark markmerge
pmiostat_mark eventrec tzchange-10-a sample-secs 20180102 foo+ bozo-disk""".split()
OPTION_SETS = [["-S", "+5"], ["-T", "+10"], ["-S", "+3", "-T", "+20"], ["-S", "-5"],
               ["-T", "-1h"], ["-S", "+1000d"], ["-s", "1"], ["-s", "7"], ["-s", "0"],
               ["-v", "3"], ["-V", "3"], ["-V", "2"], ["-m"], ["-f"], ["-z"],
               ["-Z", "EST-10"], ["-Z", "UTC", "-S", "@00:00:00"], ["-w", "-S", "+1"]]
GROUPS = [["multi/20150508.11.44", "multi/20150508.11.46", "multi/20150508.11.48"],
          ["multi/20150508.11.46", "multi/20150508.11.44"],
          ["multi-xz/20150508.11.44", "multi-xz/20150508.11.46"],
          ["mirage-1", "mirage-2"], ["mirage-2", "mirage-1"],
          ["19970807.09.54", "19970807.09.59"],
          ["mark_no_mark_0", "mark_no_mark_1"], ["mark_no_mark_1", "mark_no_mark_2"],
          ["mark_no_mark_2", "mark_no_mark_3"], ["mark_no_mark_3", "mark_no_mark_4"],
          ["mark_no_mark_0", "mark_no_mark_1", "mark_no_mark_2", "mark_no_mark_3", "mark_no_mark_4"],
          ["schizo-A", "schizo-B"], ["tzchange-10-a", "tzchange-10-b"],
          ["tzchange-11-a", "tzchange-11-b", "tzchange-12-a"],
          ["20190628.04.03", "20190628.06.31"], ["dupname-a", "dupname-b"],
          ["dupname-a", "dupname-c"], ["foo_v2", "foo_v3"], ["ok-foo", "ok-foo"],
          ["gap", "gap2"], ["foo.", "ok-foo"], ["foo."]]
GROUP_SETS = [[], ["-m"], ["-x"], ["-f"], ["-s", "20"], ["-V", "3"]]
CONFIGS = {
    "load": "kernel.all.load\n",
    "load-insts": "# instances by name and number\nkernel.all.load [\"1 minute\", 15]\n",
    "disk": "disk.dev.read [\"sda\"] disk.dev.write\nhinv.ncpu, kernel.all.cpu\n",
    "sample": "sample.colour [ 'red' 1 ]\nsample.bin sampledso.bin [\"bin-100\",bin-300]\n",
    "missing": "no.such.metric\nkernel.all.load\n",
}
# PCP 7.2's QA archives the corpus lacks: each copied, and windows of a few
PCP7_WINDOWS = [["-S", "+5"], ["-T", "+10"], ["-S", "+3", "-T", "+20"], ["-V", "3"]]
PCP7_OPTION_ARCHIVES = ["gfs", "20180416", "ok-foo_v3", "sample-proc_v2", "buggy_archive"]
PCP7_GROUPS = [["multi_v3/20150508.11.44", "multi_v3/20150508.11.46"],
               ["multi_mixed/arch-0", "multi_mixed/arch-1", "multi_mixed/arch-2"],
               ["multi_mixed/arch-2", "multi_mixed/arch-0"]]


def pcp7_jobs():
    """The jobs on PCP 7.2's archives (paths from the corpus), where it is installed."""
    from pmdumplog import PCP7_CORPUS, pcp7_only
    d = os.path.join(PCP7_CORPUS, "archives")
    if not os.path.isdir(d):
        return []
    rel = lambda b: os.path.relpath(os.path.join(d, b), CORPUS)  # noqa: E731
    jobs = []
    for b in pcp7_only("archives"):
        jobs.append(([rel(b)], [], None))
        for opts in PCP7_WINDOWS:
            jobs.append(([rel(b)], opts, None))
    for b in PCP7_OPTION_ARCHIVES:
        for opts in OPTION_SETS:
            jobs.append(([rel(b)], opts, None))
    for g in PCP7_GROUPS:
        for opts in GROUP_SETS:
            jobs.append(([rel(x) for x in g], opts, None))
    return jobs


# PCP 6.3.2's -v forms (bytes, times), against PCP 7.2's pmlogextract: the data
# volumes, index, stdout, stderr and status compared with 7.2's, the metadata with
# 6.0.3's (7.2's pmlogextract writes its metadata in another order)
# (a day of a host's metrics, 20201109, is the large one: 20180416.10.00's 300 MB
# took each PCP's pmdumplog minutes a case, and a window of it ends where 6.0.3
# and 7.2 disagree on -T)
PCP7_VOLUME_ARCHIVES = ["ok-foo", "20201109", "omnibus_v3", "mirage", "gap",
                        "bozo-disk", "multi/20150508.11.44"]
PCP7_VOLUME_SETS = [["-v", "10kb"], ["-v", "300b"], ["-v", "1min"], ["-v", "30s"],
                    ["-v", "2h"], ["-v", "1mb"], ["-v", "5"], ["-v", "0.5min"],
                    ["-v", "3Kbytes", "-V", "3"], ["-v", "10sec", "-S", "+5"],
                    ["-v", "0"], ["-v", "xyz"], ["-v", "10x"], ["-v", "-5kb"]]


def pcp7_volume_jobs():
    """The -v jobs against PCP 7.2 (where it is installed)."""
    if not os.path.exists(PCP7):
        return []
    return [([b], opts, None, "pcp7") for b in PCP7_VOLUME_ARCHIVES for opts in PCP7_VOLUME_SETS]


CONFIG_ARCHIVES = ["mirage", "rattle", "ok-foo", "omnibus_v3", "20180102", "gap",
                   "chartqa1", "multi/20150508.11.44"]


def run(cmd, cwd, env):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=900)
    return p.stdout, p.stderr, p.returncode


def label_masked(path):
    """File bytes with the pid of its leading label record zeroed."""
    with open(path, "rb") as fh:
        b = bytearray(fh.read())
    if len(b) >= 12:
        b[8:12] = b"\0\0\0\0"
    return bytes(b)


def dump(base, env):
    p = subprocess.run(["pmdumplog", "-a", base], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, env=env, timeout=900)
    return b"\n".join(l for l in p.stdout.split(b"\n") if not l.startswith(b"PID for pmlogger"))


def case(ours, inputs, opts, config, env, ref="pcp6"):
    with tempfile.TemporaryDirectory() as tmp:
        res = {}
        for who, prog in (("ref", "pmlogextract"), ("ours", ours)):
            d = os.path.join(tmp, who)
            os.makedirs(d)
            args = list(opts)
            if config is not None:
                with open(os.path.join(d, "config"), "w") as fh:
                    fh.write(CONFIGS[config])
                args = ["-c", os.path.join(d, "config")] + args
            if ref == "pcp7":
                # PCP 7.2's in its chroot, from the output's directory
                cmd = [PCP7, prog] if who == "ref" else [prog]
                paths = [os.path.join(CORPUS, i) for i in inputs]
                out, err, rc = run(cmd + args + paths + ["out"], d, env)
                # ours keeps 6.0.3's usage, whose -v line names samples alone
                err = err.replace(b"/host/", b"/").replace(
                    b"-v SIZE               switch log volumes after size has been accumulated",
                    b"-v SAMPLES            switch log volumes after this many samples").replace(
                    b"  -D DBG, --debug=DBG   set debug options, see pmdbg(1)\n", b"")
            else:
                # inputs named as QA does, relative to the corpus (libpcp treats an
                # archive opened twice differently by name form)
                out, err, rc = run([prog] + args + list(inputs) + [os.path.join(d, "out")],
                                   CORPUS, env)
            err = err.replace(d.encode() + b"/", b"")
            out = out.replace(d.encode() + b"/", b"")
            files = sorted(f for f in os.listdir(d) if f.startswith("out."))
            contents = {f: label_masked(os.path.join(d, f)) for f in files}
            res[who] = (rc, out, err, files, contents, d)
        # what pmdumplog -a prints of each output: where the files are the same
        # bytes (but the label's pid), so are their dumps, and none is made
        same_files = ref != "pcp7" and res["ref"][4] == res["ours"][4]
        for who in res:
            rc, out, err, files, contents, d = res[who]
            dumped = b""
            if "out.meta" in files and not same_files:
                dumped = dump(os.path.join(d, "out"), env).replace(d.encode() + b"/", b"")
            res[who] = (rc, out, err, files, contents, dumped)
        if ref == "pcp7" and "out.meta" in res["ref"][3]:
            res["ref"][4]["out.meta"] = pcp6_meta(inputs, opts, tmp, env)
            for who in res:
                if "out.index" in res[who][4]:
                    res[who][4]["out.index"] = one_entry_per_time(res[who][4]["out.index"])
                rc, out, err, files, contents, dumped = res[who]
                res[who] = (rc, out, err, files, contents, one_line_per_time(dumped))
        return scoreboard.differences(res["ref"], res["ours"])


def one_entry_per_time(index):
    """A temporal index less each entry with its predecessor's time: PCP 7's
    libpcp writes no second entry for one time, 6.0.3's (and ours) does."""
    label = int.from_bytes(index[:4], "big")
    size, stamp = (32, 12) if label > 132 else (20, 8)
    out, last = bytearray(index[:label]), None
    for at in range(label, len(index) - size + 1, size):
        entry = index[at:at + size]
        if entry[:stamp] != last:
            out += entry
        last = entry[:stamp]
    return bytes(out)


def one_line_per_time(dumped):
    """pmdumplog's temporal index less each entry with its predecessor's time."""
    out, last = [], None
    for line in dumped.split(b"\n"):
        f = line.split()
        t = f[0] if len(f) == 4 and f[0][:1].isdigit() and b":" in f[0] else None
        if t is None or t != last:
            out.append(line)
        last = t
    return b"\n".join(out)


def pcp6_meta(inputs, opts, tmp, env):
    """The metadata PCP 6.0.3's pmlogextract writes for the job without -v."""
    args, skip = [], False
    for o in opts:
        if skip:
            skip = False
        elif o == "-v":
            skip = True
        else:
            args.append(o)
    out = os.path.join(tmp, "pcp6")
    run(["pmlogextract"] + args + list(inputs) + [out], CORPUS, env)
    return label_masked(out + ".meta") if os.path.exists(out + ".meta") else b""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", default=os.path.join(ROOT, "target/release/pmlogextract"))
    ap.add_argument("--out", default=os.path.join(ROOT, "conformance-out"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    missing = scoreboard.missing_reference("pmlogextract")
    if missing is not None:
        return missing
    env = dict(os.environ)
    env["TZ"] = "UTC"
    sizes = {}
    for f in os.listdir(CORPUS):
        base = f.split(".meta")[0] if ".meta" in f else None
        if base:
            tot = sum(os.path.getsize(os.path.join(CORPUS, g)) for g in os.listdir(CORPUS)
                      if g.startswith(base + ".") and g[len(base) + 1:].split(".")[0].isdigit())
            sizes[base] = tot
    jobs = []
    for base in sorted(sizes):
        opts = ["-s", "200"] if sizes[base] > BIG else []
        jobs.append(([base], opts, None))
    for base in OPTION_ARCHIVES:
        for opts in OPTION_SETS:
            jobs.append(([base], opts, None))
    for g in GROUPS:
        for opts in GROUP_SETS:
            jobs.append((g, opts, None))
    for base in CONFIG_ARCHIVES:
        for c in CONFIGS:
            jobs.append(([base], [], c))
    jobs += pcp7_jobs()
    jobs += pcp7_volume_jobs()
    jobs = [j for j in jobs if not a.filter or any(a.filter in i for i in j[0])]
    os.makedirs(a.out, exist_ok=True)
    diffdir = os.path.join(a.out, "diffs-pmlogextract")
    shutil.rmtree(diffdir, ignore_errors=True)
    os.makedirs(diffdir)
    results = []
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        futs = {ex.submit(case, a.ours, j[0], j[1], j[2], env, *j[3:]): j for j in jobs}
        for f in cf.as_completed(futs):
            j = futs[f]
            try:
                d = f.result()
            except Exception as e:  # a crash or timeout is a difference too
                d = [f"error: {e}"]
            results.append((j, d))
    results.sort(key=lambda x: (x[0][0], x[0][1], x[0][2] or "", x[0][3:]))
    ok = sum(1 for _, d in results if not d)
    lines = [f"pmlogextract conformance: {ok} of {len(results)} cases identical", ""]
    for n, (j, d) in enumerate(results):
        if d:
            name = " ".join(j[0]) + " " + " ".join(j[1]) + (f" -c {j[2]}" if j[2] else "") \
                + (" (against PCP 7.2)" if j[3:] else "")
            lines.append("DIFF " + name)
            with open(os.path.join(diffdir, f"{n:04d}.txt"), "w") as fh:
                fh.write(name + "\n" + "\n".join(d) + "\n")
    with open(os.path.join(a.out, "scoreboard-pmlogextract.txt"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print(lines[0])
    return scoreboard.floor_check("pmlogextract", ok, bool(a.filter))


if __name__ == "__main__":
    sys.exit(main())
