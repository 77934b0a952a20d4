#!/usr/bin/env python3
"""Conformance suite for pmlogrewrite: runs PCP 6.0.3's pmlogrewrite and ours on the
same inputs with the same rules and options and compares, per case: exit status,
stdout, stderr, the set of output files, every output file byte for byte, and (where
the files differ) the reference pmdumplog -a of both outputs. Writes a scoreboard (N
of M identical, and the differing cases).

Cases: every archive of PCP's QA corpus (good and damaged) copied without rules, and
again with the rules PCP ships (/var/lib/pcp/config/pmlogrewrite); the version 2
ones upgraded with -V 3; metric rules (PMIDs one by one and by cluster or domain,
names, types with and without a condition, semantics, units with and without
rescaling, -s, deletion) on four archives, with -w -v, and each diagnostic of the
metric clause; instance domains moved and duplicated, alone and by domain, metrics
moved to another domain or made singular with each OUTPUT choice, and their
diagnostics; help text rules (deleted, rewritten, moved, by type, text, cluster
and domain); rules of the global clause (host name, time zone,
zoneinfo, feature bits, time shifts forward and back) on a set of archives; each
diagnostic of the global clause (clauses cut short, duplicates, bad bits, times out
of range, syntax errors, an unexpected character) and the options that report on
rules (-w, -C, -v, -q); -i on copies of four archives (the files left in the
directory); and command-line mistakes.

Exit status: 0 when the score is at least the floor in conformance/floor-pmlogrewrite,
1 below it, 77 when the reference is not installed (unless REQUIRE_REFERENCE is set,
then 1).

Usage: conformance/pmlogrewrite.py [--ours PATH] [--out DIR] [--jobs N] [--filter SUBSTR]
"""
import argparse, concurrent.futures as cf, os, re, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import scoreboard  # noqa: E402
from pmdumplog import CORPUS, archives  # noqa: E402
from pmlogextract import dump, run  # noqa: E402

REFERENCE = "/usr/lib/pcp/bin/pmlogrewrite"
# the rules PCP ships (pmlogger_daily applies them to every archive)
SHIPPED = ("dir", "/var/lib/pcp/config/pmlogrewrite")
# inputs larger than this are only copied (the reference is slow on them)
BIG = 64 << 20
RULE_ARCHIVES = ["archives/20041125", "archives/ok-foo", "archives/omnibus_v2",
                 "archives/omnibus_v3", "archives/mirage", "archives/eventrec",
                 "archives/tzchange-10-a", "archives/gap"]
RULES = {
    "hostname": "global { hostname -> newhost.example.com }\n",
    "tz": "GLOBAL {\n  TZ -> \"AEST-10\"\n}\n",
    "timezone": "global { timezone -> \"EST+5EDT,M3.2.0/2,M11.1.0/2\" }  # a comment\n",
    "time-forward": "global { time -> 1:00:00 }\n",
    "time-back": "global { time -> -23:59:59.5 }\n",
    "time-fraction": "global { time -> 30.25 }\n",
    "time-sub-second": "global { time -> 0.5 }\n",
    "all": "global {\n hostname -> a.b\n tz -> \"UTC\"\n time -> -10\n}\n",
    "empty": "# nothing\n",
}
RULES_V3 = {
    "zoneinfo": "global { zoneinfo -> \":Australia/Melbourne\" }\n",
    "features": "global { features -> 5 }\n",
    "features-bits": "global { features -> bits(31, 7, 1) }\n",
}
# diagnostics of the global clause (on 20041125: v2, host mortenb.oslo.sgi.com, CET-1)
RULES_BAD = {
    "hostname-alone": "global { hostname }\n",
    "hostname-empty": "global {\n hostname ->\n}\n",
    "tz-alone": "global { tz }\n",
    "tz-empty": "global { tz -> }\n",
    "tz-number": "global { timezone -> 5 }\n",
    "zoneinfo-v2": "global { zoneinfo -> \":UTC\" }\n",
    "zoneinfo-empty": "global { zoneinfo -> }\n",
    "features-v2": "global { features -> 3 }\n",
    "features-empty": "global { features }\n",
    "bits-open": "global { features -> bits( }\n",
    "bits-list": "global { features -> bits(1, 2 }\n",
    "bits-alone": "global { features -> bits }\n",
    "bits-range": "global { features -> bits(32) }\n",
    "dup-hostname": "global { hostname -> a hostname -> b }\n",
    "dup-tz": "global {\n tz -> \"A\"\n\n tz -> \"B\"\n}\n",
    "dup-time": "global { time -> 1 time -> 2 }\n",
    "time-alone": "global { time }\n",
    "time-empty": "global { time -> }\n",
    "time-big": "global { time -> 1:75:80 }\n",
    "time-big-fraction": "global { time -> 70.25 }\n",
    "time-minutes": "global { time -> 61:30.5 }\n",
    "unknown-word": "global { foo -> bar }\n",
    "bad-char": "global {\n hostname -> a\n @\n}\n",
    "unclosed": "global {\n hostname -> a\n",
    "no-brace": "global hostname -> a }\n",
    "empty-global": "global { }\n",
    "two-globals": "global { hostname -> a }\nglobal { tz -> \"B\" }\n",
    "same-host": "global { hostname -> mortenb.oslo.sgi.com }\n",
    "same-tz": "global { tz -> \"CET-1\" }\n",
    "time-zero": "global { time -> 0 }\n",
    "string-over-lines": "global { tz -> \"a\nb\" }\n",
    "top-level-junk": "hostname -> a\n",
    "number-host": "global { hostname -> 123 }\n",
}
# metric rules (on 20041125 and the archives of RULE_ARCHIVES)
METRIC_RULES = {
    "renumber": "metric kernel.all.load { pmid -> 60.99.1 sem -> counter }\n",
    "cluster-star": "metric 60.0.* { units -> 0,0,1,0,0,ONE }\n",
    "domain-star": "metric 60.*.* { pmid -> 160.*.* }\n",
    "cluster-move": "metric 60.1.* { pmid -> 61.7.* }\n",
    "rename-retype": "metric hinv.ncpu { type -> U64 name -> hinv.cpus }\n",
    "type-if": "metric kernel.all.pswitch { type if U32 -> 64 }\nmetric kernel.all.load { type if FLOAT -> DOUBLE }\n",
    "to-double": "metric kernel.all.pswitch { type -> DOUBLE }\nmetric kernel.all.load { type -> 32 }\n",
    "rescale": "metric mem.physmem { units -> 1,0,0,BYTE,0,0 rescale }\n",
    "units-only": "metric mem.physmem { units -> 1,0,0,MBYTE,0,0 }\n",
    "delete": "metric mem.util.free { delete }\nmetric 60.0.* { delete }\n",
    "unknown": "metric sample.nosuch { delete }\nmetric 1.2.3 { delete }\n",
    "sample": "metric sample.long.* { delete }\nmetric sample.bin { type -> DOUBLE }\nmetric sample.colour { units -> 0,1,0,0,MSEC,0 }\n",
    "sem": "metric 29.*.* { sem -> discrete }\n",
}
# instance-domain rules (the instance clauses are not yet applied)
INDOM_RULES = {
    "move": "indom 60.1 { indom -> 61.1 }\n",
    "duplicate": "indom 60.1 { indom -> duplicate 61.1 }\nmetric 60.0.4 { pmid -> 61.0.4 indom -> 61.1 }\n",
    "star": "indom 60.* { indom -> 62.* }\n",
    "same": "indom 60.1 { indom -> 60.1 }\n",
    "metric-null": "metric kernel.all.load { indom -> NULL }\n",
    "metric-null-last": "metric kernel.all.load { indom -> NULL output last }\n",
    "metric-null-inst": "metric kernel.all.load { indom -> NULL output inst 5 }\n",
    "metric-null-iname": "metric kernel.all.load { indom -> NULL output iname \"15 minute\" }\n",
    "metric-null-min": "metric kernel.all.load { indom -> NULL output min }\n",
    "metric-null-max": "metric kernel.all.load { indom -> NULL output max }\n",
    "metric-null-sum": "metric kernel.all.load { indom -> NULL output sum }\n",
    "metric-null-avg": "metric kernel.all.load { indom -> NULL output avg }\n",
    "metric-to-indom": "metric hinv.ncpu { indom -> 60.2 }\n",
    "metric-to-indom-inst": "metric hinv.ncpu { indom -> 60.2 output inst 15 }\n",
    "metric-sum-u32": "metric disk.dev.read { indom -> NULL output sum }\nmetric disk.dev.write { indom -> null output avg }\n",
    "conflict": "indom 60.1 { indom -> 61.1 }\nmetric disk.dev.read { indom -> 63.1 }\n",
    "not-in-output": "metric kernel.all.load { indom -> 99.1 }\n",
    "string-sum": "metric pmcd.pmlogger.host { indom -> NULL output sum }\n",
    "indom-alone": "indom { indom -> 61.1 }\n",
    "indom-empty": "indom 60.1 { indom -> }\n",
    "indom-arrow": "indom 60.1 { indom }\n",
    "no-serial": "indom 60. { indom -> 61.1 }\n",
    "bad-domain": "indom 600.1 { indom -> 61.1 }\n",
    "output-alone": "metric kernel.all.load { indom -> NULL output }\n",
    "inst-renumber": "indom 60.2 { inst 1 -> 100 }\n",
    "inst-chain": "indom 60.2 { inst 1 -> 5 inst 5 -> 15 }\n",
    "inst-delete": "indom 60.2 { inst 15 -> delete }\n",
    "iname-rename": "indom 60.2 { iname \"1 minute\" -> \"one minute\" }\n",
    "iname-first-word": "indom 60.2 { iname \"5\" -> \"five\" }\n",
    "iname-delete": "indom 60.2 { iname \"15 minute\" -> delete }\n",
    "both": "indom 60.2 { indom -> 61.2 inst 5 -> 50 iname \"1 minute\" -> \"1m\" }\n",
    "disks": "indom 60.1 { iname \"dks0d1\" -> \"sda\" inst 0 -> delete }\n",
    "unknown-inst": "indom 60.2 { inst 99 -> 100 iname \"nope\" -> \"x\" }\n",
    "same-inst": "indom 60.2 { inst 1 -> 1 iname \"1 minute\" -> \"1 minute\" }\n",
    "conflict-inst": "indom 60.2 { inst 1 -> 2 inst 1 -> delete }\n",
    "conflict-iname": "indom 60.2 { iname \"1 minute\" -> \"a\" iname \"1 minute\" -> \"b\" }\n",
    "inst-then-null": "indom 60.2 { inst 1 -> delete }\nmetric kernel.all.load { indom -> NULL output inst 5 }\n",
    "iname-empty": "indom 60.2 { iname }\n",
    "iname-arrow": "indom 60.2 { iname \"1 minute\" }\n",
    "iname-to": "indom 60.2 { iname \"1 minute\" -> }\n",
    "inst-empty": "indom 60.2 { inst }\n",
    "inst-arrow": "indom 60.2 { inst 1 }\n",
    "inst-to": "indom 60.2 { inst 1 -> }\n",
}
# help text rules (on omnibus_v3, which has help text for metrics and domains)
TEXT_RULES = {
    "delete-oneline": "text metric 29.0.5 { delete }\n",
    "delete-both": "text metric sample.colour * { delete }\n",
    "help-only": "text metric sample.colour help { text -> \"new help\" }\n",
    "oneline-text": "text metric 29.0.5 oneline \"Metrics with a \\\"saw-tooth\\\" trend over time\" { text -> \"saw\" }\n",
    "move": "text metric 29.0.13 * { metric -> 29.0.99 }\n",
    "star": "text metric 29.0.* { delete }\n",
    "star-move": "text metric 29.0.* help { metric -> 30.*.* }\n",
    "indom": "text indom 29.1 * { text -> \"colours\" }\n",
    "indom-move": "text indom 29.1 { indom -> 30.1 }\n",
    "indom-delete": "text indom 29.* * { delete }\n",
    "same-text": "text metric 29.0.13 { text -> \"1000000 as a 32-bit integer\" }\n",
    "unknown": "text metric no.such { delete }\ntext metric 99.0.1 { delete }\n",
    "with-pmid": "metric 29.0.13 { pmid -> 29.0.98 }\n",
    "conflict": "metric 29.0.13 { pmid -> 29.0.98 }\ntext metric 29.0.13 { metric -> 29.0.97 }\n",
    "two-rules": "text metric 29.0.13 { delete }\ntext metric 29.0.13 { text -> \"x\" }\n",
    "empty": "text metric 29.0.13 { }\n",
    "alone": "text { delete }\n",
}
METRIC_BAD = {
    "metric-alone": "metric { delete }\n",
    "pmid-empty": "metric kernel.all.load { pmid -> }\n",
    "name-empty": "metric kernel.all.load { name -> }\n",
    "name-taken": "metric kernel.all.load { name -> hinv.ncpu }\n",
    "type-empty": "metric kernel.all.load { type -> }\n",
    "type-if-empty": "metric kernel.all.load { type if }\n",
    "type-if-to": "metric kernel.all.load { type if FLOAT -> }\n",
    "sem-empty": "metric kernel.all.load { sem -> }\n",
    "units-empty": "metric kernel.all.load { units -> }\n",
    "units-space": "metric kernel.all.load { units -> 1,0,0, }\n",
    "units-time": "metric kernel.all.load { units -> 1,0,0,BYTE, }\n",
    "units-count": "metric kernel.all.load { units -> 1,0,0,BYTE,0, }\n",
    "dup-pmid": "metric kernel.all.load { pmid -> 1.2.3 pmid -> 1.2.4 }\n",
    "delete-then": "metric kernel.all.load { delete sem -> counter }\n",
    "then-delete": "metric kernel.all.load { sem -> counter delete }\n",
    "bad-domain": "metric 0.1.2 { delete }\n",
    "bad-cluster": "metric 60.5000.2 { delete }\n",
    "bad-item": "metric 60.1.2000 { delete }\n",
    "dynamic": "metric 511.1.2 { delete }\n",
    "string-type": "metric pmcd.pmlogger.host { type -> U32 }\n",
    "indom-empty": "metric kernel.all.load { indom -> }\n",
    "twice": "metric kernel.all.load { sem -> counter }\nmetric kernel.all.load { sem -> discrete }\n",
}
# option sets with rules: warnings, check, verbose, quick
RULE_OPTIONS = [["-w"], ["-C"], ["-v"], ["-q"], ["-C", "-v"], ["-w", "-q"]]
CLI = [["-?"], ["-V", "4", "a", "b"], ["-c", "/nonexistent", "a", "b"], ["a"],
       ["-i", "a", "b"], ["nosuch", "out"], ["-Q", "a", "b"]]


def unstable(err):
    """What differs from run to run in libpcp's diagnostics, masked: the
    inode of the output file and the address of a dumped result."""
    err = re.sub(rb"st_ino=\d+", b"st_ino=N", err)
    return re.sub(rb"dump from 0x[0-9a-f]+", b"dump from 0xADDR", err)


def case(ours, inputs, opts, rules, env):
    """Runs both on `inputs` (relative to the corpus) with `opts` and the rules
    text `rules` (or none, or ("dir", path): a directory of rules); returns the
    differences."""
    with tempfile.TemporaryDirectory() as tmp:
        res = {}
        for who, prog in (("ref", REFERENCE), ("ours", ours)):
            d = os.path.join(tmp, who)
            os.makedirs(d)
            args = list(opts)
            if isinstance(rules, tuple):
                args = ["-c", rules[1]] + args
            elif rules is not None:
                with open(os.path.join(d, "rules"), "w") as fh:
                    fh.write(rules)
                args = ["-c", os.path.join(d, "rules")] + args
            out, err, rc = run([prog] + args + list(inputs) + [os.path.join(d, "out")], CORPUS, env)
            err = unstable(err.replace(d.encode() + b"/", b""))
            out = out.replace(d.encode() + b"/", b"")
            files = sorted(f for f in os.listdir(d) if f.startswith("out."))
            contents = {f: open(os.path.join(d, f), "rb").read() for f in files}
            res[who] = [rc, out, err, files, contents, b""]
        # the dumps say what differs where the files do (the same files dump the same)
        if res["ref"][4] != res["ours"][4]:
            for who in ("ref", "ours"):
                if "out.meta" in res[who][3]:
                    res[who][5] = dump(os.path.join(tmp, who, "out"), env)
        return scoreboard.differences(res["ref"], res["ours"])


def inplace_case(ours, rel, opts, rules, env):
    """-i on a copy of the corpus archive `rel`: the files left in the directory
    (names and bytes), stdout, stderr and exit status."""
    import shutil
    with tempfile.TemporaryDirectory() as tmp:
        res = {}
        src = os.path.join(CORPUS, rel)
        for who, prog in (("ref", REFERENCE), ("ours", ours)):
            d = os.path.join(tmp, who)
            os.makedirs(d)
            base = os.path.basename(src)
            for f in os.listdir(os.path.dirname(src)):
                if f.startswith(base + "."):
                    shutil.copy(os.path.join(os.path.dirname(src), f), d)
            args = list(opts)
            if rules is not None:
                with open(os.path.join(tmp, "rules"), "w") as fh:
                    fh.write(rules)
                args = ["-c", os.path.join(tmp, "rules")] + args
            out, err, rc = run([prog] + args + ["-i", os.path.join(d, base)], d, env)
            err = err.replace(d.encode() + b"/", b"")
            files = sorted(os.listdir(d))
            contents = {f: open(os.path.join(d, f), "rb").read() for f in files}
            res[who] = (rc, out, err, files, contents, b"")
        return scoreboard.differences(res["ref"], res["ours"])


def cli_case(ours, args, env):
    """A command line alone: stdout, stderr and exit status."""
    with tempfile.TemporaryDirectory() as tmp:
        r = run([REFERENCE] + args, tmp, env)
        o = run([ours] + args, tmp, env)
    r = (r[2], r[0], r[1].replace(b"/usr/lib/pcp/bin/", b""), [], {}, b"")
    o = (o[2], o[0], o[1], [], {}, b"")
    return scoreboard.differences(r, o)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", default=os.path.join(ROOT, "target/release/pmlogrewrite"))
    ap.add_argument("--out", default=os.path.join(ROOT, "conformance-out"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    if not os.path.exists(REFERENCE) and scoreboard.missing_reference("pmlogrewrite") is not None:
        return scoreboard.missing_reference("pmlogrewrite")
    missing = scoreboard.missing_reference("pmdumplog")
    if missing is not None:
        return missing
    env = dict(os.environ)
    env["TZ"] = "UTC"
    jobs = []
    for d, base in archives():
        rel = os.path.relpath(os.path.join(d, base), CORPUS)
        jobs.append((f"copy {rel}", ([rel], [], None)))
        v2 = open(os.path.join(d, base + ".meta"), "rb").read(8)[7:8] == b"\x02" \
            if os.path.exists(os.path.join(d, base + ".meta")) else False
        if v2 and scoreboard.archive_size(d, base) < BIG:
            jobs.append((f"-V 3 {rel}", ([rel], ["-V", "3"], None)))
    for rel in RULE_ARCHIVES:
        for name, text in RULES.items():
            jobs.append((f"rules {name} {rel}", ([rel], [], text)))
        for name, text in RULES_V3.items():
            opts = [] if rel.endswith("v3") else ["-V", "3"]
            jobs.append((f"rules {name} {' '.join(opts)} {rel}", ([rel], opts, text)))
    for name, text in RULES_BAD.items():
        jobs.append((f"bad {name}", (["archives/20041125"], [], text)))
    for name, text in METRIC_RULES.items():
        for rel in ["archives/20041125", "archives/sample-secs", "archives/ok-foo", "archives/omnibus_v3"]:
            jobs.append((f"metric {name} {rel}", ([rel], [], text)))
            jobs.append((f"metric -w -v {name} {rel}", ([rel], ["-w", "-v"], text)))
        jobs.append((f"metric -s {name}", (["archives/20041125"], ["-s"], text)))
    for name, text in INDOM_RULES.items():
        for rel in ["archives/20041125", "archives/ok-foo"]:
            jobs.append((f"indom {name} {rel}", ([rel], [], text)))
            jobs.append((f"indom -w -v {name} {rel}", ([rel], ["-w", "-v"], text)))
    for name, text in TEXT_RULES.items():
        jobs.append((f"text {name}", (["archives/omnibus_v3"], [], text)))
        jobs.append((f"text -w -v {name}", (["archives/omnibus_v3"], ["-w", "-v"], text)))
    for name, text in METRIC_BAD.items():
        jobs.append((f"bad metric {name}", (["archives/20041125"], ["-w"], text)))
    for d, base in archives():
        rel = os.path.relpath(os.path.join(d, base), CORPUS)
        if scoreboard.archive_size(d, base) < BIG:
            jobs.append((f"shipped {rel}", ([rel], [], SHIPPED)))
    for opts in RULE_OPTIONS:
        for name in ("same-host", "same-tz", "time-zero", "time-big", "empty-global"):
            jobs.append((f"options {' '.join(opts)} {name}", (["archives/20041125"], opts, RULES_BAD[name])))
        jobs.append((f"options {' '.join(opts)} all", (["archives/20041125"], opts, RULES["all"])))
    inplace = []
    for rel in ["archives/20041125", "archives/ok-foo", "archives/omnibus_v3", "archives/multi-xz/20150508.11.44"]:
        inplace.append((f"-i {rel}", (rel, [], None)))
        inplace.append((f"-i rules {rel}", (rel, [], RULES["all"])))
        inplace.append((f"-i bad {rel}", (rel, [], RULES_BAD["hostname-alone"])))
    inplace = [j for j in inplace if a.filter in j[0]]
    jobs = [j for j in jobs if a.filter in j[0]]
    clis = [("cli " + " ".join(c), c) for c in CLI if a.filter in "cli " + " ".join(c)]
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        futs = {ex.submit(case, a.ours, *j[1], env): j[0] for j in jobs}
        futs.update({ex.submit(cli_case, a.ours, c, env): n for n, c in clis})
        futs.update({ex.submit(inplace_case, a.ours, *j[1], env): j[0] for j in inplace})
        results = []
        for f in cf.as_completed(futs):
            try:
                d = f.result()
            except Exception as e:  # a crash or timeout is a difference too
                d = [f"error: {e}"]
            results.append((futs[f], not d, {"diffs": d} if d else None))
    results.sort()
    return scoreboard.report("pmlogrewrite", results, a.out, bool(a.filter))


if __name__ == "__main__":
    sys.exit(main())
