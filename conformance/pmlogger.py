#!/usr/bin/env python3
"""Conformance suite for pmlogger: PCP 6.0.3's pmlogger and ours record the same
configuration from the same pmcd at the same time, and the reference pmdumplog reads
both archives. Per case it compares:

- exit status, and the configuration warnings each logger writes to its log;
- the label (host, time zone, version; not the times or the pid);
- descriptors, help texts, label sets and instance-domain snapshots as multisets
  (sorted, duplicates kept): libpcp prints them in the order of a hash table that
  depends on the order of arrival, and snapshots taken by two loggers a few
  milliseconds apart may straddle a change;
- the data records with times masked, and values masked except those of the sample
  agent's constant metrics (and, for event records, their contents: the sample
  agent's events depend on its fetch count across all clients), as a sorted list:
  two tasks that fire in the same millisecond may be written in either order;
- for pmlc scripts, the transcripts, that each logger's map file was found (a case
  whose logger never wrote one fails), and the files each archive ended with (a
  `new volume` must make one).

Cases: the sample agent (every type, aggregates, strings, instance subsets by name and
number, once, advisory and mandatory, on/off/maybe, non-leaf names, dynamic instance
domains and metrics, labels, help, event records apart), the linux and proc agents, a
pmlogconf configuration, v2 and v3, fetch groups (partial and whole instance domains
in one group, order, several agents, once, instances taken by other tasks, the
agent's instance domain when the config is read), and pmlc scripts run against both
loggers (identical transcripts, the change visible in both archives, and the kinds of
record each holds).

Writes conformance-out/scoreboard-pmlogger.txt (N of M identical) and one diff file
per differing case. Exit status: 0 when the score is at least the floor in
conformance/floor-pmlogger, 1 below it, 77 when the reference or its pmcd (with the
sample agent) is missing (unless REQUIRE_REFERENCE is set, then 1).

Usage: conformance/pmlogger.py [--ours PATH] [--out DIR] [--filter SUBSTR]
"""
import argparse, difflib, os, re, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
REF = "/usr/lib/pcp/bin/pmlogger"

TYPES = """sample.long.one sample.long.million sample.ulong.ten sample.longlong.hundred
sample.ulonglong.million sample.float.ten sample.double.million sample.string.hullo
sample.string.write_me sample.aggregate.hullo sample.aggregate.null sample.colour
sample.bin sample.seconds sample.milliseconds sample.const_rate.value"""

# the sample agent's dynamic instance domain is what its file dynamic.indom says:
# with all three instances this group shares one fetch, with two it does not
DYNAMIC_GROUP = ('log mandatory on 200 msec { sample.dynamic.counter [one two three] '
                 'sample.dynamic.instant }\n')
DYNAMIC_INDOM = "/var/lib/pcp/pmdas/sample/dynamic.indom"
AGENT_STATE = {
    "groups-agent-three": "1 one\n2 two\n3 three\n4 four\n",
    "groups-agent-two": "1 one\n2 two\n4 four\n",
}

CASES = [
    ("types", "log mandatory on 200 msec {\n%s\n}\n" % TYPES, [], 5),
    ("types-v3", "log mandatory on 200 msec {\n%s\n}\n" % TYPES, ["-V", "3"], 5),
    ("instances",
     'log mandatory on 200 msec { sample.bin ["bin-100", "bin-300"] sample.colour [red 2] }\n'
     'log mandatory on 200 msec { sample.long.bin_ctr ["bin-900"] sample.part_bin }\n'
     'log mandatory on 400 msec { sample.bin ["bin-300" 500] sample.colour }\n', [], 5),
    ("instance-syntax", "log mandatory on 200 msec { sample.bin [bin-100] }\n", [], 2),
    ("once-and-periodic",
     "log mandatory on once { hinv.ncpu sample.long.one }\n"
     "log mandatory on 200 msec { sample.colour }\n"
     "log mandatory on 400 msec { sample.seconds }\n", [], 6),
    ("advisory-mandatory",
     "log advisory on 200 msec { sample.long.one sample.long.ten }\n"
     "log mandatory off { sample.long.ten }\n"
     "log mandatory on 200 msec { sample.ulong.one }\n"
     "log mandatory maybe { sample.ulong.one }\n"
     "log advisory off { sample.ulong.one }\n"
     "log advisory on 200 msec { sample.float.one }\n", [], 5),
    ("non-leaf", "log mandatory on 200 msec { sample.long sample.ulong }\n", [], 4),
    ("dynamic", "log mandatory on 200 msec { sample.dynamic sample.secret }\n", [], 4),
    ("labels", "log mandatory on 200 msec { sample.long.one sample.bin sample.colour "
     "sample.mirage hinv.ncpu kernel.all.load }\n", ["-V", "3"], 4),
    # the agent's events follow its fetch count over all clients: recorded apart
    # (SEQUENTIAL), each after resetting the agent's event cycle
    ("events", "log mandatory on 100 msec { sample.event.records sample.event.highres_records }\n",
     [], 20),
    ("unknown-names",
     "log mandatory on 200 msec { sample.long.one no.such.metric sample.nonsense }\n"
     "log mandatory on 200 msec { sample.colour [purple red] sample.bin [bin-1000] }\n", [], 3),
    ("linux", "log mandatory on 250 msec { kernel.all.load kernel.all.cpu kernel.percpu.cpu "
     "mem.util disk.all network.interface.in.bytes hinv }\n", [], 4),
    ("linux-v3", "log mandatory on 250 msec { kernel.all mem.util.used swap filesys }\n",
     ["-V", "3"], 4),
    ("proc", "log mandatory on 250 msec { proc.nprocs proc.runq hinv.ncpu }\n", [], 4),
    ("default-interval", "log mandatory on default { sample.long.one }\n", ["-t", "0.2"], 3),
] + [
    # fetch groups: pmlogger bundles a task's metrics into fetches by libpcp's
    # optFetch with global costs, so a metric held to some instances of a domain
    # another metric logs whole shares its fetch or not by the whole group's cost
    # (what else is in it, the order of arrival, what other tasks took away, and
    # which of the named instances the agent has when the config is read)
    ("groups-split", 'log mandatory on 200 msec { sample.bin ["bin-100","bin-300"] '
     'sample.ulonglong.bin }\n', [], 4),
    ("groups-merge", 'log mandatory on 200 msec { sample.bin ["bin-100","bin-300","bin-500"] '
     'sample.ulonglong.bin }\n', [], 4),
    ("groups-singular", 'log mandatory on 200 msec { sample.bin ["bin-100","bin-300","bin-500"] '
     'sample.ulonglong.bin sample.long.one sample.long.ten }\n', [], 4),
    ("groups-order", 'log mandatory on 200 msec { sample.ulonglong.bin sample.bin ["bin-100"] '
     'sample.ulong.bin ["bin-200" "bin-300"] sample.long.bin_ctr sample.float.bin ["bin-900"] '
     '}\n', [], 4),
    ("groups-domains", 'log mandatory on 200 msec { sample.bin ["bin-100"] sample.colour [red] '
     'kernel.all.load ["1 minute"] sample.ulonglong.bin hinv.ncpu sampledso.bin ["bin-200"] '
     'sampledso.colour sample.long.one sampledso.ulong.bin ["bin-200" "bin-400"] }\n',
     [], 4),
    ("groups-once-lists",
     'log mandatory on once { sample.bin ["bin-100" "bin-200"] sample.long.bin_ctr sample.colour [red] '
     'sample.ulong.bin ["bin-900"] }\n'
     'log mandatory on 200 msec { sample.bin ["bin-300"] sample.ulonglong.bin sample.colour [green] '
     'sample.ulong.bin }\n', [], 4),
    ("groups-stolen",
     'log mandatory on 200 msec { sample.bin ["bin-100","bin-300","bin-500"] sample.ulonglong.bin '
     'sample.colour [red green] sample.longlong.bin ["bin-100"] }\n'
     'log mandatory on 400 msec { sample.bin ["bin-500"] sample.colour [green] }\n'
     'log advisory on 200 msec { sample.longlong.bin ["bin-200"] }\n', [], 5),
    ("groups-advisory",
     'log advisory on 200 msec { sample.bin ["bin-100" "bin-200" "bin-300"] sample.ulonglong.bin }\n'
     'log advisory on 400 msec { sample.bin ["bin-200"] sample.ulong.bin ["bin-100"] '
     'sample.long.bin_ctr }\n', [], 5),
    ("groups-agent-three", DYNAMIC_GROUP, [], 4),
    ("groups-agent-two", DYNAMIC_GROUP, [], 4),
]

# pmlc scripts: each runs against a logger of each kind started with CONTROL_CONFIG
CONTROL_CONFIG = 'log mandatory on 200 msec { sample.long.one sample.colour [red green] }\n' \
                 'log advisory on 400 msec { sample.bin ["bin-100" "bin-200"] }\n'
# a group whose two metrics share one fetch, as long as sample.bin keeps its
# three instances
GROUPS_CONFIG = 'log mandatory on 200 msec { sample.bin ["bin-100","bin-300","bin-500"] ' \
                'sample.ulonglong.bin }\n'
PMLC_SCRIPTS = [
    ("pmlc-query", "query { sample.long.one sample.colour sample.bin }\nquery sample.ulong\n"),
    ("pmlc-instances",
     "log mandatory off sample.colour [red]\nquery sample.colour\n"
     "log mandatory on 200 msec sample.colour [blue]\nquery sample.colour\n"
     "log advisory on 400 msec sample.bin [bin-300]\nquery sample.bin\n"),
    ("pmlc-all-off",
     "log mandatory off { sample.long.one sample.colour sample.bin }\nquery sample.long\n"
     "query sample.colour\nlog mandatory on once sample.long.ten\nquery sample.long\n"),
    ("pmlc-status", "status\n"),
    ("pmlc-volume", "new volume\nquery sample.long.one\n"),
    # fetch groups regrouped by pmlc: an instance taken by another task, or
    # added to the task, changes whether the group's metrics share a fetch
    ("pmlc-groups-taken", 'log mandatory on 400 msec sample.bin ["bin-500"]\nquery sample.bin\n',
     GROUPS_CONFIG),
    ("pmlc-groups-added", 'log mandatory on 200 msec sample.ulong.bin ["bin-100"]\n'
     'log mandatory on 200 msec sample.bin ["bin-700" "bin-900"]\nquery sample.bin\n',
     GROUPS_CONFIG),
]

# cases whose loggers run one after the other, each after `pmstore
# sample.event.reset 0`, instead of at the same time: the events (the agent's
# event cycle counts fetches of all clients) and pmlogconf's config (pmcd's
# agents keep one instance profile, the last one a client sent, and label the
# instances of that profile; pmcd.pmlogger.* lists the loggers running)
SEQUENTIAL = {"events", "pmlogconf", "groups-domains"}

# configs the reference refuses (the others must record)
REFUSED = {"instance-syntax", "unknown-names"}

# cases that log sample.mirage, whose instance domain changes every 10 s: held
# still for the case (`pmstore sample.controller.mirage`, see record_case), or
# two loggers that sample a few milliseconds apart can straddle a change and see
# different sets
HOLD_MIRAGE = {"labels"}
# cases whose records' sizes differ between two loggers (event records): their
# index's data offsets are masked
VARYING = {"events"}

# cases that record from a pmcd of the harness's own (a second reference pmcd on
# a free loopback port, which the pmcd-restart case stops and starts again)
PRIVATE = {
    "remote-tcp": ("log mandatory on 200 msec { sample.long.one sample.colour kernel.all.load }\n",
                   ["-h", "127.0.0.1"], 4),
    "other-port": ("log mandatory on 200 msec { sample.long.one sample.bin hinv.ncpu }\n",
                   ["-h", "127.0.0.1:PORT"], 4),
}


class PrivatePmcd:
    """A reference pmcd of our own on 127.0.0.1 and a free port (root only)."""

    def __init__(self):
        import socket
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        self.dir = tempfile.mkdtemp(prefix="pmcd-private-")
        self.proc = None

    def start(self):
        env = dict(os.environ, PCP_RUN_DIR=self.dir)
        self.proc = subprocess.Popen(
            ["/usr/lib/pcp/bin/pmcd", "-f", "-A", "-p", str(self.port), "-i", "127.0.0.1",
             "-s", os.path.join(self.dir, "pmcd.socket"), "-l", os.path.join(self.dir, "pmcd.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=self.dir)
        end = time.time() + 20
        while time.time() < end:
            r = subprocess.run(["pminfo", "-h", "127.0.0.1:%d" % self.port, "sample.long.one"],
                               capture_output=True)
            if r.returncode == 0:
                return True
            if self.proc.poll() is not None:
                return False
            time.sleep(0.1)
        return False

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def close(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def restart_case(ours, tmp, pmcd):
    """Both loggers record from our pmcd; it is stopped and started again while they
    run. Both must log the loss and the reconnection, write one <mark>, validate the
    metrics, and hold the same kinds of records before and after."""
    cfg = os.path.join(tmp, "config")
    with open(cfg, "w") as f:
        f.write("log mandatory on 250 msec { sample.long.one sample.colour }\n")
    env = dict(os.environ, PMCD_RECONNECT_TIMEOUT="1")
    procs = {}
    for who, prog in (("refr", REF), ("ours", ours)):
        procs[who] = subprocess.Popen(
            [prog, "-h", "127.0.0.1:%d" % pmcd.port, "-c", cfg, "-T", "6sec",
             "-l", os.path.join(tmp, who + ".log"), os.path.join(tmp, who)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    time.sleep(1.5)
    pmcd.stop()
    time.sleep(1.0)
    restarted = pmcd.start()
    status = {}
    for who, p in procs.items():
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        status[who] = p.returncode
    parts = [("status", "%d\n" % status["refr"], "%d\n" % status["ours"]),
             ("pmcd restarted", "yes\n", "yes\n" if restarted else "no\n")]

    def events(who):
        text = open(os.path.join(tmp, who + ".log"), errors="replace").read()
        keep = sorted(set(re.sub(r" at .*", "", l) for l in text.splitlines()
                          if re.search(r"Lost connection|re-established|Validating|End of File", l)))
        return "\n".join(keep) + "\n"
    parts.append(("log", events("refr"), events("ours")))

    def shape(who):
        text = TIME.sub("T", dump("-a", os.path.join(tmp, who))).replace(str(procs[who].pid), "PID")
        text = re.sub(r"value .*", "value V", text)
        recs = set(blocks(text[text.find("\n[") + 1:], re.compile(r"^\[")))
        marks = text.count("<mark>")
        return "marks %d\n" % marks + "\n".join(sorted(r.strip() for r in recs)) + "\n"
    parts.append(("records", shape("refr"), shape("ours")))
    for n, f in [("descs", desc_part), ("labels", labels_part)]:
        parts.append((n, f(os.path.join(tmp, "refr")), f(os.path.join(tmp, "ours"))))
    return parts


# command-line forms: (name, config, args, what to compare: "shape" = records
# too, "limit" = how the run ended (times vary), "error" = the refusal); FILE:NAME
# in a config writes NAME beside it with the text after the first line; STDIN
# means the config is given on standard input instead of -c
SIMPLE = "log mandatory on 100 msec { sample.long.one sample.colour }\n"
CLI = [
    ("size-bytes", SIMPLE, ["-s", "300b"], "shape"),
    ("size-kb", SIMPLE, ["-s", "1kb"], "shape"),
    ("size-time", SIMPLE, ["-s", "1sec"], "limit"),
    ("finish-relative", SIMPLE, ["-T", "+1sec"], "limit"),
    ("finish-interval", SIMPLE, ["-T", "1sec"], "limit"),
    ("finish-absolute", SIMPLE, ["-T", "@ABS"], "limit"),
    ("finish-compact", SIMPLE, ["-T24h10m", "-s", "2"], "shape"),
    ("volume-bytes", SIMPLE, ["-v", "250b", "-s", "6"], "shape"),
    ("volume-samples", SIMPLE, ["-v", "2", "-s", "5"], "shape"),
    ("volume-size-units", SIMPLE, ["-v", "100Mb", "-s", "3"], "shape"),
    ("interval-default", "log mandatory on default { sample.long.one }\n", ["-t", "0.3", "-s", "3"], "shape"),
    ("interval-tiny", "log mandatory on default { sample.long.one }\n", ["-t", "1e-9", "-T", "1sec"], "shape"),
    ("interval-nan", "log mandatory on default { sample.long.one }\n", ["-t", "nan", "-s", "2"], "error"),
    ("interval-huge", "log mandatory on default { sample.long.one }\n", ["-t", "100hours", "-s", "2"], "error"),
    ("interval-negative", SIMPLE, ["-t", "-1", "-s", "2"], "error"),
    ("size-bogus", SIMPLE, ["-s", "bogus"], "error"),
    ("size-zero", SIMPLE, ["-s", "0"], "error"),
    ("volume-zero", SIMPLE, ["-v", "0", "-s", "2"], "error"),
    ("finish-bogus", SIMPLE, ["-T", "bogus"], "error"),
    ("bad-option", SIMPLE, ["-Z", "-s", "2"], "error"),
    ("no-archive", SIMPLE, ["-s", "2", "NOARCHIVE"], "error"),
    ("check-only", SIMPLE, ["-C"], "error"),
    ("labelhost", SIMPLE, ["-H", "some.other.host", "-s", "2"], "shape"),
    ("config-lookup", None, ["-c", "config.pmstat", "-t", "0.2", "-s", "2"], "shape"),
    ("missing-config", None, ["-c", "/nonexistent/config", "-s", "2"], "error"),
    ("empty-config", "", ["-s", "2"], "error"),
    ("stdin-config", "STDIN\n" + SIMPLE, ["-s", "3"], "shape"),
    ("pmcpp", "%define freq '100 msec'\n%define extra\n%include \"inc\"\n"
     "log mandatory on %freq { sample.long.one }\n%ifdef extra\nlog mandatory on %{freq} "
     "{ sample.colour }\n%else\nlog mandatory on 1 sec { sample.bin }\n%endif\n"
     "FILE:inc\n# included\nlog mandatory on once { hinv.ncpu }\n", ["-s", "3"], "shape"),
    ("access-pmlogconf", SIMPLE + "[access]\ndisallow .* : all;\ndisallow :* : all;\n"
     "allow local:* : enquire;\n", ["-s", "2"], "shape"),
    ("access-syntax", SIMPLE + "[access]\nallow * : all, except enquire;\n", ["-s", "2"], "error"),
    ("access-at-end", SIMPLE + "\n[access]\nallow * : all\n", ["-s", "2"], "error"),
    ("access-empty", SIMPLE + "[access]\n", ["-s", "2"], "error"),
    ("access-character", SIMPLE + "[access]\nallow 1.2.3.4.5 : all;\n", ["-s", "2"], "error"),
    ("access-clash", SIMPLE + "[access]\nallow * : enquire;\n\ndisallow * : enquire;\n",
     ["-s", "2"], "error"),
    ("access-host", SIMPLE + "[access]\nallow * : enquire;\nallow bogus..host : all;\n",
     ["-s", "2"], "error"),
    ("pmcpp-error-line", "%define x 1\n\nlog mandatory on %x sec { sample.long.one }\n"
     "log mandatory on oops\n", ["-s", "2"], "error"),
]

NOTICES = re.compile(r"(Warning|Problem|Reason|Instance|Specification|\[line|illegal|limit reached|"
                     r"Error:|error was on line|"
                     r"End of run time|New log volume|Cannot|Nothing to log|Config parsed|"
                     r"Starting|Archive basename)")


def cli_case(ours, tmp, config, args, mode):
    stdin = None
    cfgargs = []
    if config is not None:
        text = config
        extra = {}
        if "FILE:" in text:
            text, rest = text.split("FILE:", 1)
            name, body = rest.split("\n", 1)
            extra[name] = body
        if text.startswith("STDIN\n"):
            stdin = text[len("STDIN\n"):]
        else:
            for who in ("refr", "ours"):
                os.makedirs(os.path.join(tmp, who), exist_ok=True)
                with open(os.path.join(tmp, who, "config"), "w") as f:
                    f.write(text)
                for n, b in extra.items():
                    with open(os.path.join(tmp, who, n), "w") as f:
                        f.write(b)
            cfgargs = ["-c", "config"]
    abs_end = time.strftime("%H:%M:%S", time.localtime(time.time() + 2))
    args = [a.replace("@ABS", "@" + abs_end) for a in args]
    archive = [] if "NOARCHIVE" in args else ["arch"]
    args = [a for a in args if a != "NOARCHIVE"]
    if "-C" in args:
        archive = []
    procs = {}
    for who, prog in (("refr", REF), ("ours", ours)):
        d = os.path.join(tmp, who)
        os.makedirs(d, exist_ok=True)
        procs[who] = subprocess.Popen([prog] + cfgargs + ["-l", "log"] + args + archive, cwd=d,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True)
    outs = {}
    for who, p in procs.items():
        try:
            o, e = p.communicate(stdin, timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            o, e = p.communicate()
        outs[who] = (p.returncode, e.split("Usage:")[0])

    def notices(who):
        try:
            text = open(os.path.join(tmp, who, "log"), errors="replace").read()
        except OSError:
            return "(no log)\n"
        keep = []
        for l in text.splitlines():
            if NOTICES.search(l):
                l = re.sub(r"^\[.*?\] pmlogger\(\d+\) Info: ", "", l)
                l = re.sub(r"^\[.*?\] pmlogger\(\d+\) Error: ", "Error: ", l)
                l = re.sub(r" at \w{3} \w{3} .*", "", l)
                keep.append(l)
        if mode == "limit":
            keep = [l for l in keep if not l.startswith("New log volume")]
        return "\n".join(keep) + "\n"

    def files(who):
        return " ".join(sorted(f for f in os.listdir(os.path.join(tmp, who))
                               if f not in ("log", "config") and not f.startswith("inc"))) + "\n"
    def stderr(who):
        text = outs[who][1].replace(str(procs[who].pid), "PID")
        text = re.sub(r"^\[.*?\] ", "", text, flags=re.M)
        return "".join(l + "\n" for l in text.splitlines() if not l.startswith("preprocessor cmd"))
    parts = [("status", "%d\n" % outs["refr"][0], "%d\n" % outs["ours"][0]),
             ("stderr", stderr("refr"), stderr("ours")),
             ("log", notices("refr"), notices("ours"))]
    if mode == "shape":
        parts.append(("files", files("refr"), files("ours")))
    elif mode == "error" and outs["ours"][0] != 0:
        # beyond the reference: a run that fails before its first record leaves
        # no archive files (PCP's may leave empty ones)
        parts.append(("no archive files left", "\n", files("ours")))
    if mode == "shape" and outs["refr"][0] == 0 and outs["ours"][0] == 0:
        parts += compare_archives(os.path.join(tmp, "refr", "arch"), os.path.join(tmp, "ours", "arch"),
                                  str(procs["refr"].pid), str(procs["ours"].pid))
    return parts


TIME = re.compile(r"\d\d:\d\d:\d\d\.\d+")


def run(cmd, env=None, timeout=120, cwd=None):
    return subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                          env=env, timeout=timeout, cwd=cwd)


def dump(flag, archive):
    env = dict(os.environ, TZ="UTC")
    r = run(["pmdumplog", flag, archive], env=env)
    return r.stdout + r.stderr


def blocks(text, head):
    """Splits pmdumplog output into blocks that start with lines matching head."""
    out, cur = [], []
    for line in text.splitlines():
        if head.match(line) and cur:
            out.append("\n".join(cur))
            cur = []
        cur.append(line)
    if cur:
        out.append("\n".join(cur))
    return out


def as_set(parts):
    """Parts whose order is not the logger's to choose: sorted, duplicates kept."""
    return "\n".join(sorted(parts)) + "\n"


# The sample agent's metrics whose values never change: compared by value.
CONSTANT = re.compile(r"\(sample\.(?:(?:u?long|u?longlong|float|double)\.(?:one|ten|hundred|million)"
                      r"|string\.hullo)\):")


def label_part(archive):
    lines = [l for l in dump("-l", archive).splitlines()
             if not l.strip().startswith(("commencing", "ending", "PID for pmlogger"))]
    return "\n".join(lines) + "\n"


def desc_part(archive):
    text = dump("-d", archive)
    return as_set(b for b in blocks(text, re.compile(r"^PMID:")) if b.startswith("PMID"))


def help_part(archive):
    text = dump("-h", archive)
    return as_set(b for b in blocks(text, re.compile(r"^(PMID|InDom):")) if ":" in b[:6])


def labels_part(archive):
    text = TIME.sub("T", dump("-e", archive))
    # one entry per label set: its head line and its labels
    sets = blocks(text, re.compile(r"^    \S"))
    return as_set(s.strip("\n") for s in sets if not s.startswith(("Metric Labels", "T")))


def indom_part(archive, pid):
    text = TIME.sub("T", dump("-i", archive))
    text = text.replace(pid, "PID")
    return as_set(b for b in blocks(text, re.compile(r"^(InDom:|T )")) if b.startswith("T "))


def records_part(archive, pid):
    text = dump("-a", archive)
    start = text.find("\n[")
    recs = blocks(text[start + 1:], re.compile(r"^\["))
    out = []
    for r in recs:
        r = TIME.sub("T", r).replace(pid, "PID")
        lines = []
        events = "event record" in r
        for l in r.splitlines():
            if "--- event record" in l or "==> " in l or re.match(r"^\s+29\.0\.1[23]\d \(sample\.event\.", l):
                continue
            l = re.sub(r"\d+ \(and \d+ missed\) event records?|\d+ event records?", "E events", l)
            if not CONSTANT.search(l):
                l = re.sub(r"value .*", "value V", l)
            l = re.sub(r"^\[\d+ bytes\]", "[B bytes]", l) if events else l
            lines.append(l.rstrip())
        out.append("\n".join(lines).strip("\n"))
    return "\n\n".join(sorted(out)) + "\n"


def index_part(archive, exact=True):
    """The temporal index with times masked: its entries, volumes and offsets
    (the data offsets only where every record's size is the same in both)."""
    lines = []
    for l in TIME.sub("T", dump("-t", archive)).splitlines():
        f = l.split()
        if not exact and len(f) == 4 and f[0] == "T":
            l = "T %s %s D" % (f[1], f[2])
        lines.append(l)
    return "\n".join(lines) + "\n"


def warnings(log):
    try:
        text = open(log, errors="replace").read()
    except OSError:
        return ""
    keep = [l for l in text.splitlines()
            if re.match(r"^(Warning|Problem|Reason|Instance|Specification|\[line)", l)]
    return "\n".join(keep) + "\n"


def compare_archives(ref, ours, ref_pid, our_pid):
    parts = []
    for name, f in [("label", label_part), ("descs", desc_part), ("help", help_part),
                    ("labels", labels_part)]:
        parts.append((name, f(ref), f(ours)))
    parts.append(("indoms", indom_part(ref, ref_pid), indom_part(ours, our_pid)))
    parts.append(("records", records_part(ref, ref_pid), records_part(ours, our_pid)))
    return parts


def compare_with_index(ref, ours, ref_pid, our_pid, exact):
    """compare_archives, and the temporal indexes."""
    return compare_archives(ref, ours, ref_pid, our_pid) + [
        ("index", index_part(ref, exact), index_part(ours, exact))]


def start(prog, cfg, args, base, log, samples):
    cmd = [prog, "-c", cfg, "-l", log] + args + (["-s", str(samples)] if samples else []) + [base]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def steady(config):
    """pmlogconf's config less the per-process metrics: processes, the harness's
    and the loggers' among them, come and go between two runs."""
    out, group = [], None
    for line in config.splitlines(True):
        if group is not None:
            if line.strip() == "}":
                if any(not l.lstrip().startswith("#") for l in group[1:]):
                    out += group + [line]
                group = None
            elif not re.match(r"\s*proc\.(memory|psinfo|id|io|schedstat|fd)\.", line):
                group.append(line)
        elif re.match(r"log .*\{\s*$", line):
            group = [line]
        else:
            out.append(line)
    return "".join(out)


def pmlogconf_config():
    """The config the reference pmlogconf writes for the local pmcd (it probes
    pmcd, so it is asked again if an agent was slow to answer)."""
    for _ in range(3):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "config")
            r = run(["pmlogconf", "-q", out])
            if r.returncode == 0 and os.path.exists(out):
                text = open(out).read()
                if "log" in text:
                    return steady(text)
        time.sleep(1)
    raise RuntimeError("pmlogconf wrote no config: " + r.stderr.strip())


def record_case(ours, tmp, name, config, args, samples):
    cfg = os.path.join(tmp, "config")
    with open(cfg, "w") as f:
        f.write(config)
    procs = {}
    status = {}

    def finish(who, p):
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        status[who] = p.returncode

    if name in HOLD_MIRAGE:
        # the agent redraws the instance domain at its first call after the
        # store, and only once a fetch of sample.mirage has asked for it (a
        # fresh agent has not): fetch, store, fetch, so that the redraw is
        # done before the loggers start and the next is an hour away
        run(["pminfo", "-f", "sample.mirage"])
        run(["pmstore", "sample.controller.mirage", "3600000"])
        run(["pminfo", "-f", "sample.mirage"])
    saved = set_agent_state(AGENT_STATE.get(name))
    try:
        _record_both(ours, tmp, name, cfg, args, samples, procs, status, finish)
    finally:
        if name in HOLD_MIRAGE:
            run(["pmstore", "sample.controller.mirage", "10000"])
        if name in AGENT_STATE:
            set_agent_state(saved)
    parts = [("status", "%d\n" % status["refr"], "%d\n" % status["ours"]),
             ("warnings", warnings(os.path.join(tmp, "refr.log")),
              warnings(os.path.join(tmp, "ours.log")))]
    # every recording case is one the reference records: if it does not, the
    # case compares nothing and counts as failed
    parts.append(("harness", "", "" if status["refr"] == 0 or name in REFUSED else
                  "the reference exited %d\n" % status["refr"]))
    if status["refr"] == 0 and status["ours"] == 0:
        parts += compare_with_index(os.path.join(tmp, "refr"), os.path.join(tmp, "ours"),
                                    str(procs["refr"].pid), str(procs["ours"].pid),
                                    name not in VARYING)
    return parts


def set_agent_state(text):
    """Writes the sample agent's dynamic instance domain (None: no file, as
    installed); returns what was there before."""
    if text is None and not os.path.exists(DYNAMIC_INDOM):
        return None
    before = open(DYNAMIC_INDOM).read() if os.path.exists(DYNAMIC_INDOM) else None
    if text is None:
        os.remove(DYNAMIC_INDOM)
    else:
        with open(DYNAMIC_INDOM, "w") as f:
            f.write(text)
    # the agent reads the file again when its time changes: ask once, so that
    # both loggers see the new domain from their first question
    run(["pminfo", "-f", "sample.dynamic.instant"])
    return before


def _record_both(ours, tmp, name, cfg, args, samples, procs, status, finish):
    for who, prog in (("refr", REF), ("ours", ours)):
        if name in SEQUENTIAL:
            run(["pmstore", "sample.event.reset", "0"])
        procs[who] = start(prog, cfg, args, os.path.join(tmp, who), os.path.join(tmp, who + ".log"),
                           samples)
        if name in SEQUENTIAL:
            finish(who, procs[who])
    for who, p in procs.items():
        if who not in status:
            finish(who, p)


def wait_for_map(pid, timeout=10):
    path = "/var/tmp/pcp/pmlogger/%d" % pid
    for d in ("/var/tmp/pcp/pmlogger", "/tmp/pcp/pmlogger", "/var/lib/pcp/tmp/pmlogger"):
        if os.path.isdir(d):
            path = os.path.join(d, str(pid))
            break
    end = time.time() + timeout
    while time.time() < end:
        if os.path.exists(path):
            return True
        time.sleep(0.05)
    return False


def pmlc_case(ours, tmp, name, script, config=CONTROL_CONFIG):
    cfg = os.path.join(tmp, "config")
    with open(cfg, "w") as f:
        f.write(config)
    parts = []
    results = {}
    for who, prog in (("refr", REF), ("ours", ours)):
        base = os.path.join(tmp, who)
        p = start(prog, cfg, ["-T", "4sec"], base, os.path.join(tmp, who + ".log"), 0)
        ok = wait_for_map(p.pid)
        time.sleep(0.3)
        r = subprocess.run(["pmlc", str(p.pid)], input=script, capture_output=True,
                           text=True, timeout=30) if ok else None
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        out = (r.stdout + r.stderr) if r else ""
        parts.append(("map file (%s)" % who, "found\n", "found\n" if ok else "missing\n"))
        out = out.replace(str(p.pid), "PID").replace(base, "BASE")
        out = TIME.sub("T", out)
        out = re.sub(r"\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}", "DATE", out)
        out = re.sub(r"(size|log volume|bytes)\s*[:=]?\s*\d+", r"\1 N", out)
        # a metric just asked for "once" is logged at the logger's next fetch:
        # whether that came before the query ("nl" or not) is a race for both
        out = re.sub(r"\bon  nl( +)once", r"on    \1once", out)
        results[who] = (out, base, p.pid, p.returncode)
    parts.append(("transcript", results["refr"][0], results["ours"][0]))
    parts.append(("status", "%d\n" % results["refr"][3], "%d\n" % results["ours"][3]))
    ref, ours_ = results["refr"], results["ours"]
    if ref[3] == 0 and ours_[3] == 0:
        for n, a, b in compare_archives(ref[1], ours_[1], str(ref[2]), str(ours_[2])):
            if n in ("descs", "label"):
                parts.append((n, a, b))
        # which metrics and instances each archive ended up logging (each list
        # of instances once: how many samples were logged, and so how many
        # values, depends on when the pmlc request came)
        def logged(base):
            text = TIME.sub("T", dump("-a", base))
            names = set(re.findall(r"\((sample\.[\w.]+)\)", text))
            sets = re.findall(r"\((sample\.[\w.]+)\):\s*\n((?:\s+inst .*\n)+)", text + "\n")
            insts = {n + ": " + " ".join(re.findall(r"inst \[\d+", i)) for n, i in sets}
            return "\n".join(sorted(names)) + "\n" + "\n".join(sorted(insts)) + "\n"
        parts.append(("logged", logged(ref[1]), logged(ours_[1])))
        parts.append(("record shapes", shapes(ref[1], str(ref[2])),
                      shapes(ours_[1], str(ours_[2]))))
        parts.append(("files", archive_files(ref[1]), archive_files(ours_[1])))
    return parts


def shapes(base, pid):
    """The distinct kinds of data record an archive holds: each record's metrics
    with their instances (how many records of each kind depends on when the
    pmlc request came, and is not compared)."""
    text = dump("-a", base).replace(pid, "PID")
    recs = blocks(text[text.find("\n[") + 1:], re.compile(r"^\["))
    kinds = set()
    for r in recs:
        metrics = re.findall(r"^\s+[\d.]+ \(([^)]*)\):(.*)\n((?:\s+inst .*\n)*)", r + "\n", re.M)
        kinds.add(" | ".join(sorted(
            "%s %s" % (n.split(" or ")[-1], " ".join(re.findall(r"inst \[(\d+)", one + rest)))
            for n, one, rest in metrics)))
    return "\n".join(sorted(kinds)) + "\n"


def archive_files(base):
    """The files an archive ended with, by suffix (volumes, .meta, .index)."""
    d, name = os.path.split(base)
    return "".join(f[len(name):] + "\n" for f in sorted(os.listdir(d))
                   if f.startswith(name + "."))


def have_reference():
    if not os.path.exists(REF) or shutil.which("pmdumplog") is None:
        return "PCP's pmlogger is not installed (scripts/install-reference.sh)"
    r = subprocess.run(["pminfo", "sample.long.one"], capture_output=True)
    if r.returncode != 0:
        return "pmcd with the sample agent is not running (scripts/start-pmcd.sh --sample)"
    return None


def run_case(ours, pmcd, name, kind, params):
    """Runs one case in a directory of its own; returns its differing parts."""
    tmp = tempfile.mkdtemp(prefix="pmlogger-conf-")
    try:
        if kind == "record":
            if params[0] is None:
                params = (pmlogconf_config(),) + params[1:]
            parts = record_case(ours, tmp, name, *params)
        elif kind == "private":
            config, args, samples = params
            args = [x.replace("PORT", str(pmcd.port)) for x in args]
            parts = record_case(ours, tmp, name, config, args, samples)
        elif kind == "cli":
            parts = cli_case(ours, tmp, *params)
        elif kind == "restart":
            parts = restart_case(ours, tmp, pmcd)
        else:
            parts = pmlc_case(ours, tmp, name, *params)
    except Exception as e:  # a case that cannot run is a differing case
        parts = [("harness", "", "%s\n" % e)]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return [(n, x, y) for n, x, y in parts if x != y]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", default=os.path.join(ROOT, "target/release/pmlogger"))
    ap.add_argument("--out", default=os.path.join(ROOT, "conformance-out"))
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    why = have_reference()
    if why:
        print("pmlogger conformance skipped: " + why)
        sys.exit(1 if os.environ.get("REQUIRE_REFERENCE") else 77)
    os.makedirs(a.out, exist_ok=True)
    diffdir = os.path.join(a.out, "pmlogger-diffs")
    shutil.rmtree(diffdir, ignore_errors=True)
    os.makedirs(diffdir)

    cases = [(n, "record", (c, args, s)) for n, c, args, s in CASES]
    # the pmlogconf config is made when its case runs (None until then)
    cases.append(("pmlogconf", "record", (None, ["-t", "0.5"], 3)))
    cases += [(n, "pmlc", tuple(v)) for n, *v in PMLC_SCRIPTS]
    cases += [(n, "private", v) for n, v in PRIVATE.items()]
    cases += [(n, "cli", (c, a, m)) for n, c, a, m in CLI]
    cases.append(("pmcd-restart", "restart", ()))
    cases = [c for c in cases if a.filter in c[0]]

    pmcd = None
    if any(k in ("private", "restart") for _, k, _ in cases):
        pmcd = PrivatePmcd()
        if not pmcd.start():
            why = "a second reference pmcd could not be started (it needs root)"
            if os.environ.get("REQUIRE_REFERENCE"):
                print("pmlogger conformance: " + why)
                sys.exit(1)
            print("skipping the cases that need it: " + why)
            cases = [c for c in cases if c[1] not in ("private", "restart")]
            pmcd.close()
            pmcd = None

    same, differ, retried = 0, [], []
    for name, kind, params in cases:
        bad = run_case(a.ours, pmcd, name, kind, params)
        if bad and kind != "cli":
            # a live recording races its pmcd and clock: a case whose second
            # run is identical is counted so, and named below
            bad = run_case(a.ours, pmcd, name, kind, params)
            if not bad:
                retried.append(name)
        if bad:
            differ.append(name)
            with open(os.path.join(diffdir, name + ".diff"), "w") as f:
                for n, x, y in bad:
                    f.write("=== %s\n" % n)
                    f.writelines(difflib.unified_diff(x.splitlines(True), y.splitlines(True),
                                                      "reference", "ours"))
        else:
            same += 1
        print("%-20s %s" % (name, "identical" if not bad else
                           "differs: " + ", ".join(n for n, _, _ in bad)), flush=True)
    for n in differ:
        print(open(os.path.join(diffdir, n + ".diff")).read()[:4000], end="")

    if pmcd:
        pmcd.close()
    total = len(cases)
    board = os.path.join(a.out, "scoreboard-pmlogger.txt")
    with open(board, "w") as f:
        f.write("pmlogger: %d of %d cases identical (%.1f%%)\n"
                % (same, total, 100.0 * same / max(total, 1)))
        for n in differ:
            f.write("differs: %s\n" % n)
        for n in retried:
            f.write("identical on its second run: %s\n" % n)
    print(open(board).read(), end="")
    floor = 0
    try:
        floor = int(open(os.path.join(HERE, "floor-pmlogger")).read().split()[0])
    except (OSError, ValueError, IndexError):
        pass
    if a.filter == "" and same < floor:
        print("below the floor (%d)" % floor)
        sys.exit(1)


if __name__ == "__main__":
    main()
