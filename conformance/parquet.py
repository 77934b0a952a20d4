#!/usr/bin/env python3
"""pcp2parquet read by real engines, checked against PCP 6.0.3's own tools.

Builds a fleet tree (several hosts; v2 and v3 archives; several volumes; xz and
bzip2 volumes; an archive written with pcp.pmi at exact 10 s steps), exports it,
and checks:
  1. DuckDB and DataFusion read the datasets (Hive partitions host= and date=);
     per host, metric and instance, their row counts and sums equal what the
     reference pmdumplog prints for the archives;
  2. a rate computed in SQL (lag over the raw counter values) equals the reference
     pmval's rates;
  3. incremental: a rerun writes nothing; an archive that grew (volumes added)
     is exported only for what is new, with no duplicate rows;
  4. the metrics dataset has, per host, as many descriptors and one-line help texts
     as the reference pmdumplog -d and -h print for its archives;
  5. an interpolated export (-t) of an archive whose processes come and go
     equals the reference pmval's values (counters as rates), instance by
     instance;
  6. Spark (pyspark, a local session on Java) reads the export as it is: the
     nanosecond times as numbers (spark.sql.legacy.parquet.nanosAsLong, as Spark
     3.3 to 4.3 take them), and an export with --time-unit us as timestamps, with
     no setting; its counts and sums equal pmdumplog's as in 1, its times
     DuckDB's, and so do its counts of events (with their two times) and
     descriptors;
  7. derived metrics named by -m (PCP's global configuration: disk.dev.await,
     kernel.cpu.util.*), raw and interpolated (-t), equal the values libpcp's own
     forward and interpolated fetches give them (conformance/libpcp_values.py).
Prints a scoreboard line and exits non-zero on any difference. Without the
reference or the engines it skips (exit 0), unless REQUIRE_REFERENCE is set.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = "/var/lib/pcp/testsuite/archives"
OUT = os.path.join(ROOT, "conformance-out")
REQUIRED = bool(os.environ.get("REQUIRE_REFERENCE"))
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from pmdumplog import PCP7_CORPUS  # noqa: E402
from scoreboard import release_binary  # noqa: E402
# derived metrics exported by name, raw and interpolated (check 7)
DERIVED_ARCHIVE = "20180416.10.00"
DERIVED_METRICS = ["disk.dev.await", "kernel.cpu.util.user", "kernel.cpu.util.idle"]

# host directory -> corpus archives copied into it
FLEET = {
    "moomba": ["ok-mv-bigbin"],            # v2, 10 volumes
    "vm03": ["20190628.04.03"],            # v2, 2 xz volumes
    "billing02": ["20130706"],             # v2, bzip2
    "shard": ["20201109"],                 # v2, xz
    "bozo-vm": ["omnibus_v3", "omnibus-nomark_v3"],  # v3, events, strings, aggregates
}
# hosts of PCP 7.2's QA archives (where install-pcp7.sh put them)
PCP7_DIR = os.path.join(PCP7_CORPUS, "archives")
PCP7_FLEET = {
    "pcp7-v3": ["ok-foo_v3", "sample-proc_v3", "amdgpu-0", "mmv-20250612"],  # v3, nanoseconds
    "pcp7-xz": ["pcp-meminfo", "pcp-netstat", "gfs"],       # xz; gfs: two runs, times overlapping
    "pcp7-odd": ["buggy_archive", "ds389", "derive"],       # odd shapes
}


def skip(why):
    if REQUIRED:
        print(f"parquet conformance: FAILED: {why}")
        sys.exit(1)
    print(f"parquet conformance: skipped: {why}")
    sys.exit(0)


def files_of(d, base):
    return sorted(f for f in os.listdir(d) if f.startswith(base + ".")
                  and re.match(r"^\.(meta|index|\d+)(\.(xz|bz2|gz))?$", f[len(base):]))


def make_synth(d):
    """An archive with exact 10 s steps: a counter with two instances, a gauge."""
    script = f"""
from pcp import pmi
import cpmapi as c
log = pmi.pmiLogImport({os.path.join(d, 'synth')!r})
log.pmiSetHostname("synth-host")
log.pmiSetTimezone("UTC")
indom = log.pmiInDom(245, 0)
log.pmiAddMetric("synth.bytes", log.pmiID(245, 0, 1), c.PM_TYPE_U64, indom,
                 c.PM_SEM_COUNTER, log.pmiUnits(1, 0, 0, c.PM_SPACE_BYTE, 0, 0))
log.pmiAddInstance(indom, "eth0", 0)
log.pmiAddInstance(indom, "eth1", 1)
log.pmiAddMetric("synth.load", log.pmiID(245, 0, 2), c.PM_TYPE_DOUBLE, c.PM_INDOM_NULL,
                 c.PM_SEM_INSTANT, log.pmiUnits(0, 0, 0, 0, 0, 0))
a = b = 0
for i in range(200):
    a += 1000 + (i * 37) % 500
    b += 10 + (i * 13) % 7
    log.pmiPutValue("synth.bytes", "eth0", str(a))
    log.pmiPutValue("synth.bytes", "eth1", str(b))
    log.pmiPutValue("synth.load", "", str(0.5 + (i % 10) / 10))
    log.pmiWrite(1700000000 + 10 * i, 0)
del log
"""
    subprocess.run(["/usr/bin/python3", "-c", script], check=True)


def descs_and_helps(archive):
    """How many descriptors, and one-line help texts of metrics, the reference
    pmdumplog -d and -h print for an archive."""
    d = subprocess.run(["pmdumplog", "-d", archive], capture_output=True, text=True).stdout
    h = subprocess.run(["pmdumplog", "-h", archive], capture_output=True, text=True).stdout
    descs = len(set(re.findall(r"^PMID: (\S+)", d, re.M)))
    helps = len(set(re.findall(r"^PMID: (\S+) \[", h, re.M)))
    return descs, helps


def host_of(archive):
    out = subprocess.run(["pmdumplog", "-l", archive], capture_output=True, text=True).stdout
    m = re.search(r"Performance metrics from host (\S+)", out)
    return m.group(1) if m else None


HEAD = re.compile(r"^    \d+\.\d+\.\d+ \((.*?(?:\[-?\d+ or \".*?\"\])?)\):(.*)$")
EVENTS = re.compile(r"^(.*)\[(-?\d+) or \".*\"\]$")
INST = re.compile(r"^inst \[(-?\d+) or \".*?\"\] value (.*)$")


def number(text):
    text = text.strip()
    if text.startswith('"') or text.startswith("["):
        return None
    try:
        return float(text)
    except ValueError:
        return None


def add(stats, key, value):
    """One more value (None: not a number, counted only)."""
    s = stats[key]
    s[0] += 1
    s[1] += value or 0.0


def dumplog_stats(archive, host, stats):
    """(host, metric, inst) -> [count, sum] from the reference pmdumplog."""
    out = subprocess.run(["pmdumplog", "-z", archive], capture_output=True, text=True).stdout
    metric = None
    for line in out.splitlines():
        m = HEAD.match(line)
        if m:
            name, rest = m.group(1), m.group(2).strip()
            e = EVENTS.match(name)
            if e:
                # events: name[inst or "..."], the first of several names
                ename, einst = e.group(1).split(" or ")[0], int(e.group(2))
            metric = name = name.split(" or ")[0]
            if re.match(r"^(\d+|No)( \(and \d+ missed\))? event records?$", rest):
                # an event metric's value is its number of records
                key = (host, ename, einst) if e else (host, name, -1)
                add(stats, key, 0 if rest.startswith("No") else int(rest.split()[0]))
                metric = None
                continue
            if rest.startswith("value "):
                add(stats, (host, name, -1), number(rest[6:]))
                continue
            rest_i = INST.match(rest)
            if rest_i:
                add(stats, (host, name, int(rest_i.group(1))), number(rest_i.group(2)))
            continue
        if metric is None:
            continue
        m = INST.match(line.strip())
        if m and line.startswith("        inst ["):
            add(stats, (host, metric, int(m.group(1))), number(m.group(2)))
        elif not line.startswith("        "):
            metric = None


def listing(d):
    """Every file under d, relative to it, sorted."""
    return sorted(os.path.relpath(os.path.join(p, f), d) for p, _, fs in os.walk(d) for f in fs)


def compare(name, got, want, problems):
    bad = 0
    for k in sorted(set(got) | set(want), key=str):
        g, w = got.get(k), want.get(k)
        if g is None or w is None or g[0] != w[0] or abs(g[1] - w[1]) > 1e-6 * max(abs(w[1]), 1.0):
            bad += 1
            if bad <= 10:
                problems.append(f"{name}: {k}: ours {g} pmdumplog {w}")
    return bad


def differing(want, got, tolerance):
    """The keys of two {key: value} tables that one lacks or whose values differ by
    more than `tolerance` (relative, or absolute below 1)."""
    return [k for k in set(want) | set(got)
            if k not in want or k not in got
            or abs(want[k] - got[k]) > tolerance * max(1.0, abs(want[k]))]


def pmval_table(base, metric):
    """{(HH:MM:SS, instance name): value} from the reference pmval -t 7 (a value
    per column, columns named by its "full label" lines; "?" is no value)."""
    out = subprocess.run(["pmval", "-z", "-f", "4", "-t", "7", "-a", base, metric],
                         capture_output=True, text=True).stdout
    names = {}
    table = {}
    for line in out.splitlines():
        m = re.match(r"full label for instance\[(\d+)\]: (.*)$", line)
        if m:
            names[int(m.group(1))] = m.group(2)
            continue
        m = re.match(r"^(\d\d:\d\d:\d\d)\.\d+\s+(.*)$", line)
        if m and names:
            for k, v in enumerate(m.group(2).split()):
                if v != "?" and k in names:
                    table[(m.group(1), names[k])] = float(v)
    return table


def spark(values, values_us, q, want, con):
    """Check 6: (checks made, problems found); none when Spark is missing and
    not required."""
    try:
        from pyspark.sql import SparkSession
    except ImportError as e:
        why = f"pyspark not installed ({e})"
    else:
        why = None if shutil.which("java") else "no java for Spark"
    if why:
        if REQUIRED:
            return 1, [f"spark: {why}"]
        print(f"parquet conformance: spark check skipped: {why}")
        return 0, []
    s = (SparkSession.builder.master("local[2]").appName("pcp2parquet-conformance")
         .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
         .config("spark.sql.session.timeZone", "UTC")
         .config("spark.sql.legacy.parquet.nanosAsLong", "true").getOrCreate())
    s.sparkContext.setLogLevel("ERROR")
    problems = []
    try:
        s.read.parquet(values_us).createOrReplaceTempView("vals_us")
        rows = s.sql(q.format(t="vals_us")).collect()
        got = {(r["host"], r["metric"], r["inst"]): [r["n"], r["s"]] for r in rows}
        compare("spark", got, want, problems)
        checks = len(want)
        # times: per host, the first and last as nanoseconds and microseconds
        s.read.parquet(values).createOrReplaceTempView("vals_ns")
        ns = {r[0]: (r[1], r[2]) for r in s.sql(
            "SELECT host, min(time), max(time) FROM vals_ns GROUP BY host").collect()}
        micros = {r[0]: (r[1], r[2]) for r in s.sql(
            "SELECT host, min(unix_micros(time)), max(unix_micros(time)) FROM vals_us GROUP BY host").collect()}
        duck = {h: (a, b) for h, a, b in con.execute(f"""SELECT host, min(epoch_ns(time)), max(epoch_ns(time))
            FROM read_parquet('{values}/**/*.parquet', hive_partitioning = true) GROUP BY host""").fetchall()}
        checks += 2
        if ns != duck:
            problems.append(f"spark: nanosecond times {ns} against DuckDB's {duck}")
        want_us = {h: (a // 1000, b // 1000) for h, (a, b) in duck.items()}
        if micros != want_us:
            problems.append(f"spark: microsecond times {micros} against {want_us}")
        # the events (both timestamp columns) and the metrics, as DuckDB reads them
        out_ns, out_us = os.path.dirname(values), os.path.dirname(values_us)
        ev = s.read.parquet(os.path.join(out_us, "events"))
        ev.createOrReplaceTempView("events_us")
        got_ev = sorted((h, int(n), int(a), int(b)) for h, n, a, b in s.sql("""SELECT host, count(*), sum(unix_micros(record_time)),
            max(unix_micros(time)) FROM events_us GROUP BY host""").collect())
        want_ev = sorted((h, int(n), int(a), int(b)) for h, n, a, b in con.execute(f"""
            SELECT host, count(*), sum(epoch_ns(record_time) // 1000), max(epoch_ns(time) // 1000)
            FROM read_parquet('{out_ns}/events/**/*.parquet', hive_partitioning = true)
            GROUP BY host""").fetchall())
        got_m = sorted(tuple(r) for r in s.read.parquet(os.path.join(out_us, "metrics"))
                       .groupBy("host").count().collect())
        want_m = sorted(con.execute(f"""SELECT host, count(*)
            FROM read_parquet('{out_ns}/metrics/**/*.parquet', hive_partitioning = true)
            GROUP BY host""").fetchall())
        checks += 2
        if not want_ev or got_ev != want_ev:
            problems.append(f"spark: events {got_ev} against DuckDB's {want_ev}")
        if not want_m or got_m != want_m:
            problems.append(f"spark: metrics {got_m} against DuckDB's {want_m}")
    except Exception as e:  # a reader that fails is a finding, not a crash
        return 1, [f"spark: {str(e).splitlines()[0][:300]}"]
    finally:
        s.stop()
    return checks, problems


def main():
    if not shutil.which("pmdumplog") or not os.path.isdir(CORPUS):
        skip("the reference (PCP 6.0.3) is not installed")
    try:
        import duckdb
        import datafusion
    except ImportError as e:
        skip(f"query engines not installed ({e}): pip install duckdb datafusion")
    tool = release_binary("pcp2parquet")
    os.makedirs(OUT, exist_ok=True)
    problems = []
    checks = 0
    with tempfile.TemporaryDirectory() as tmp:
        fleet = os.path.join(tmp, "fleet")
        archives = []
        hosts = [(CORPUS, h, n) for h, n in FLEET.items()]
        if os.path.isdir(PCP7_DIR):
            hosts += [(PCP7_DIR, h, n) for h, n in PCP7_FLEET.items()]
        for src, hostdir, names in hosts:
            d = os.path.join(fleet, hostdir)
            os.makedirs(d)
            for n in names:
                for f in files_of(src, n):
                    shutil.copy(os.path.join(src, f), d)
                archives.append(os.path.join(d, n))
        sd = os.path.join(fleet, "synth")
        os.makedirs(sd)
        make_synth(sd)
        archives.append(os.path.join(sd, "synth"))
        # the 10-volume archive arrives in two steps: volumes 0-4 first
        grow = os.path.join(fleet, "moomba", "ok-mv-bigbin")
        held = os.path.join(tmp, "held")
        os.makedirs(held)
        for f in files_of(os.path.dirname(grow), "ok-mv-bigbin"):
            m = re.match(r".*\.(\d+)$", f)
            if m and int(m.group(1)) >= 5:
                shutil.move(os.path.join(os.path.dirname(grow), f), held)

        out = os.path.join(tmp, "out")
        r = subprocess.run([tool, "-o", out, fleet], capture_output=True, text=True)
        if r.returncode != 0:
            problems.append(f"export failed: {r.stderr.strip()}")
        for f in os.listdir(held):
            shutil.move(os.path.join(held, f), os.path.dirname(grow))
        before = listing(out)
        r = subprocess.run([tool, "-o", out, fleet], capture_output=True, text=True)
        if r.returncode != 0:
            problems.append(f"incremental export failed: {r.stderr.strip()}")
        after = listing(out)
        new = [f for f in after if f not in before and f.endswith(".parquet") and "/values/" in "/" + f]
        checks += 1
        if not any("ok-mv-bigbin" in f for f in new) or any("ok-mv-bigbin" not in f for f in new):
            problems.append(f"the grown archive's new values should be new files of it alone: {new}")
        r = subprocess.run([tool, "-o", out, fleet], capture_output=True, text=True)
        again = listing(out)
        checks += 1
        if r.returncode != 0 or again != after:
            problems.append("a rerun on an unchanged tree changed the output")

        # 1. counts and sums, DuckDB and DataFusion against pmdumplog
        want = defaultdict(lambda: [0, 0.0])
        for a in archives:
            dumplog_stats(a, host_of(a), want)
        want = dict(want)
        values = os.path.join(out, "values")
        q = """SELECT host, metric, coalesce(inst_id, -1) AS inst, count(*) AS n,
                      coalesce(sum(value), 0) AS s
               FROM {t} WHERE NOT mark GROUP BY host, metric, coalesce(inst_id, -1)"""
        con = duckdb.connect()
        rows = con.execute(q.format(
            t=f"read_parquet('{values}/**/*.parquet', hive_partitioning = true)")).fetchall()
        got = {(h, m, i): [n, s] for h, m, i, n, s in rows}
        checks += len(want)
        bad = compare("duckdb", got, want, problems)
        ctx = datafusion.SessionContext()
        ctx.register_parquet("vals", values, table_partition_cols=[("host", "string"), ("date", "string")],
                             file_extension=".parquet")
        rows = ctx.sql(q.format(t="vals")).to_pylist()
        got = {(r["host"], r["metric"], r["inst"]): [r["n"], r["s"]] for r in rows}
        checks += len(want)
        bad += compare("datafusion", got, want, problems)
        total = sum(v[0] for v in want.values())
        # duplicates would show in the counts; say so plainly too
        dup = con.execute(f"""SELECT count(*) FROM (SELECT host, metric, inst_id, time, count(*) c
            FROM read_parquet('{values}/**/*.parquet', hive_partitioning = true)
            WHERE NOT mark AND metric NOT LIKE '%event%' GROUP BY ALL HAVING c > 1)""").fetchone()[0]
        checks += 1
        if dup:
            problems.append(f"{dup} (host, metric, instance, time) keys appear more than once")

        # 6. Spark: the same counts and sums, over the export in microseconds;
        # the times of both exports
        us = os.path.join(tmp, "out-us")
        r = subprocess.run([tool, "--time-unit", "us", "-o", us, fleet], capture_output=True, text=True)
        checks += 1
        if r.returncode != 0:
            problems.append(f"export with --time-unit us failed: {r.stderr.strip()}")
        spark_checks, spark_problems = spark(values, os.path.join(us, "values"), q, want, con)
        checks += spark_checks
        problems += spark_problems

        # 2. a rate in SQL against pmval
        pv = subprocess.run(["pmval", "-z", "-a", os.path.join(sd, "synth"), "-t", "10", "-f", "4",
                             "synth.bytes"], capture_output=True, text=True).stdout
        ref = [[float(x) for x in l.split()[1:]] for l in pv.splitlines()
               if re.match(r"^\d\d:\d\d:\d\d\.\d+\s", l)]
        sql = con.execute(f"""
            SELECT inst_id, (value - lag(value) OVER w) /
                   (epoch_ns(time) - epoch_ns(lag(time) OVER w)) * 1e9 AS rate
            FROM read_parquet('{values}/**/*.parquet', hive_partitioning = true)
            WHERE host = 'synth-host' AND metric = 'synth.bytes'
            WINDOW w AS (PARTITION BY inst_id ORDER BY time)
            ORDER BY time, inst_id""").fetchall()
        rates = [r for i, r in sql if r is not None]
        mine = [rates[k:k + 2] for k in range(0, len(rates), 2)]
        checks += 1
        if len(ref) != len(mine) or len(ref) < 100 or any(
                abs(a - b) > 1e-3 * max(1.0, abs(b)) for x, y in zip(mine, ref) for a, b in zip(x, y)):
            problems.append(f"rates: {len(mine)} in SQL, {len(ref)} from pmval; first {mine[:2]} vs {ref[:2]}")

        # 5. interpolated export (-t) against pmval, on a domain whose instances
        # come and go (libpcp's time calipers): instant and discrete values,
        # counters as rates
        cdir = os.path.join(tmp, "churn")
        os.makedirs(cdir)
        cbase = os.path.join(cdir, "churn")
        subprocess.run([release_binary("proc_churn", example=True), cbase, "300", "40", "20"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cout = os.path.join(tmp, "churn-out")
        r = subprocess.run([tool, "-t", "7", "-o", cout, cbase], capture_output=True, text=True)
        checks += 1
        if r.returncode != 0:
            problems.append(f"-t export failed: {r.stderr.strip()}")
        for metric in ("proc.psinfo.rss", "proc.psinfo.utime", "proc.psinfo.nice"):
            want = pmval_table(cbase, metric)
            rows = con.execute(f"""
                SELECT strftime(time, '%H:%M:%S'), instance, value
                FROM read_parquet('{cout}/values/**/*.parquet', hive_partitioning = true)
                WHERE metric = '{metric}'""").fetchall()
            got = {(t, i): v for t, i, v in rows}
            checks += 1
            wrong = differing(want, got, 1e-3)
            if len(want) < 1000 or wrong:
                problems.append(f"-t {metric}: {len(got)} values exported, {len(want)} from pmval, "
                                f"{len(wrong)} differ, e.g. {sorted(wrong)[:3]}")

        # 7. derived metrics named by -m (PCP's global configuration), raw and
        # interpolated, against libpcp's own forward and interpolated fetches
        for opts, mode in ((["-t", "600"], ["interp", "600"]), ([], ["forw"])):
            dout = os.path.join(tmp, "derived-" + mode[0])
            r = subprocess.run([tool, "-o", dout] + opts + ["-m", "disk.dev.await", "-m",
                                "kernel.cpu.util", os.path.join(CORPUS, DERIVED_ARCHIVE)],
                               capture_output=True, text=True)
            checks += 1
            if r.returncode != 0:
                problems.append(f"derived export {opts} failed: {r.stderr.strip()}")
                continue
            for metric in DERIVED_METRICS:
                ref = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "libpcp_values.py"),
                                      os.path.join(CORPUS, DERIVED_ARCHIVE), metric] + mode,
                                     capture_output=True, text=True).stdout
                want = {}
                for line in ref.splitlines():
                    t, i, v = line.split()
                    want[(round(float(t) * 1e6), int(i))] = float(v)
                rows = con.execute(f"""
                    SELECT epoch_us(time::TIMESTAMP), coalesce(inst_id, -1), value
                    FROM read_parquet('{dout}/values/**/*.parquet', hive_partitioning = true)
                    WHERE metric = '{metric}'""").fetchall()
                got = {(t, i): v for t, i, v in rows}
                checks += 1
                wrong = differing(want, got, 1e-9)
                if not want or wrong:
                    problems.append(f"derived {metric} {mode[0]}: {len(got)} values exported, "
                                    f"{len(want)} from libpcp, {len(wrong)} differ, e.g. {sorted(wrong)[:3]}")

        # 4. descriptors and help text: per host, as many as the reference
        # pmdumplog -d and -h print for its archives
        mrows = con.execute(f"""SELECT host, count(DISTINCT archive || ' ' || pmid),
                   count(DISTINCT CASE WHEN help_oneline IS NOT NULL THEN archive || ' ' || pmid END)
            FROM read_parquet('{out}/metrics/**/*.parquet', hive_partitioning = true)
            GROUP BY host""").fetchall()
        want = {}
        for a in archives:
            descs, helps = descs_and_helps(a)
            d, h = want.get(host_of(a), (0, 0))
            want[host_of(a)] = (d + descs, h + helps)
        got = {host: (d, h) for host, d, h in mrows}
        checks += 1
        if got != want or not any(h for _, h in want.values()):
            problems.append(f"metrics dataset: (descriptors, help texts) by host {got}, "
                            f"the reference pmdumplog -d/-h {want}")

    ok = checks - len(problems)
    line = f"parquet conformance: {ok} of {checks} checks pass ({total} values of {len(archives)} archives, {len(FLEET) + 1} hosts)"
    with open(os.path.join(OUT, "scoreboard-parquet.txt"), "w") as f:
        f.write(line + "\n")
        for p in problems:
            f.write(p + "\n")
    print(line)
    for p in problems[:30]:
        print("  " + p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
