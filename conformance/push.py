#!/usr/bin/env python3
"""Conformance suite for PCP 7's push of archives to pmproxy: our pmlogger and
pmlogpush against PCP 7.2's, with PCP 7.2's pmproxy (from its chroot, on a free
loopback port) storing what each sends.

- pmlogger: both loggers record the same configuration from the same pmcd at the
  same time, each pushing to `http://127.0.0.1:PORT` (labelled with its own host
  name, -H, so that pmproxy stores them apart). Compared: exit status, the log's
  notices, and the two stored archives as conformance/pmlogger.py compares two
  archives (label, descriptors, help, label sets, instance domains, records with
  times and varying values masked); and PCP 7.2's pmlogcheck on each stored archive.
- the requests: both loggers against a recording server of this suite, one after
  the other: the requests to each endpoint (method, path with the archive id
  masked, header names, User-Agent's program, the body's length with the logger's
  pid in it counted as 3 bytes), in order.
- failures: both loggers against servers that refuse the ping, the label or a
  write, answer with the wrong type, or go away; and no server at all. Compared:
  exit status, the log's notices, the requests made.
- pmlogpush: every archive of the QA corpus (and its damaged ones) pushed by each,
  one after the other, with -v: exit status, stderr (archive ids masked) and the
  files pmproxy stored, byte for byte; then the command-line mistakes and the
  failing servers above.
- https: a second pmproxy serving TLS with a certificate made by this suite's CA
  (openssl), each PCP given the CA by its TLS configuration ($PCP_TLSCONF_PATH):
  pmlogpush -S (archives, -U with a password, a host name, no CA configured, a
  server whose certificate names another host, a server without TLS) and both
  loggers pushing to https:// (with and without --push-user), compared as above;
  and --push-user's refusals (http://, no password, a missing password file).

Writes conformance-out/scoreboard-push.txt (N of M identical) and a diff per
differing case. Exit status: 0 at or above conformance/floor-push, 1 below, 77 when
PCP 7.2's chroot, PCP 6.0.3's pmcd (with the sample agent) or the corpus is missing
(1 under REQUIRE_REFERENCE).

Usage: conformance/push.py [--out DIR] [--filter SUBSTR]
"""
import argparse, difflib, glob, http.client, http.server, os, re, shutil, socket, subprocess, sys, tempfile
import threading, time, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import pmlogger as pl  # noqa: E402  (its archive comparison)
from scoreboard import report  # noqa: E402

PCP7 = os.path.join(ROOT, "scripts", "pcp7")
PCP7_ROOT = os.environ.get("PCP7_ROOT", "/opt/pcp7")
LOGGER7 = "/usr/lib/pcp/bin/pmlogger"
CORPUS = "/var/lib/pcp/testsuite"
OURS = {t: os.path.join(ROOT, "target", "release", t) for t in ("pmlogger", "pmlogpush")}

# what both loggers record (from conformance/pmlogger.py's cases), with -V
LOGGER_CASES = [
    ("types-v3", pl.CASES[1][1], ["-V", "3"], 4),
    ("types-v2", pl.CASES[0][1], ["-V", "2"], 4),
    ("instances", pl.CASES[2][1], ["-V", "3"], 4),
    ("once-and-periodic", pl.CASES[4][1], ["-V", "3"], 5),
    ("linux", pl.CASES[11][1], ["-V", "3"], 3),
]
SIMPLE = "log mandatory on 200 msec { sample.long.one sample.bin sample.string.hullo }\n"

# pmlogpush -S: (name, arguments, CA configured or not, the server: a TLS
# pmproxy whose certificate names 127.0.0.1 and localhost ("local"), one whose
# certificate names another host ("other"), the pmproxy without TLS ("plain"))
_A = CORPUS + "/archives/"
TLS_PUSH = [
    ("ok-foo", ["-v", "-S", "-p", "PORT", _A + "ok-foo"], "ca", "local"),
    ("ok-mv-bar (4 volumes)", ["-v", "-S", "-p", "PORT", _A + "ok-mv-bar"], "ca", "local"),
    ("20201109 (xz)", ["-S", "-p", "PORT", _A + "20201109"], "ca", "local"),
    ("-U with a password", ["-v", "-S", "-U", "bob", "-p", "PORT", _A + "ok-foo"], "ca",
     "local"),
    ("-h localhost", ["-S", "-h", "localhost", "-p", "PORT", _A + "ok-foo"], "ca", "local"),
    ("no CA configured", ["-S", "-p", "PORT", _A + "ok-foo"], "none", "local"),
    ("a certificate naming another host", ["-S", "-p", "PORT", _A + "ok-foo"], "ca", "other"),
    ("a server without TLS", ["-S", "-p", "PORT", _A + "ok-foo"], "ca", "plain"),
]
# both loggers pushing to the TLS pmproxy: (name, config, arguments, samples)
TLS_LOGGER = [
    ("tls-types", pl.CASES[1][1], ["-V", "3"], 4),
    ("tls-user", SIMPLE, ["-V", "3", "--push-user", "bob"], 3),
]
# --push-user's refusals: (name, arguments, scheme)
PUSH_USER_REFUSED = [
    ("over http://", ["--push-user", "bob"], "http"),
    ("without a password", ["--push-user", "bob"], "https"),
    ("a missing password file", ["--push-user", "bob", "--push-password-file",
                                 "/nonexistent/pw"], "https"),
]
PASSWORD = "secret"

# recording servers that fail: GET /logger/ping, POST /logger/label, then writes;
# and one that answers the label and a write only after 1.5 s ("slow": libpcp
# times out connecting, never waiting for a reply)
FAILING = ["ping404", "pingtype", "pingbad", "label409", "label422", "label500",
           "labeltype", "labelbad", "write400", "write410", "write500", "writetype",
           "writeshort", "die", "slow"]

PUSH_MISTAKES = [
    ["-x", "A"], [], ["-U", "bob", "A"], ["-U", "bob", "-s", "/tmp/none.sock", "A"],
    ["-S", "-U", "bob", "A"], ["-S", "-U", "bob", "-P", "/nonexistent/pw", "A"],
    ["nosuch"], ["-p", "PORT", "nosuch", "A"],
]


def run(cmd, cwd=None, env=None, timeout=120):
    return subprocess.run(cmd, capture_output=True, cwd=cwd, env=env, timeout=timeout)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Pki:
    """A CA made with openssl, server certificates it signed, and the TLS
    configuration files each PCP reads (7.2's sees the host under /host)."""

    def __init__(self, tmp):
        self.dir = os.path.join(tmp, "pki")
        os.makedirs(self.dir)
        self.ca = self.path("ca.crt")
        ssl = lambda *a: run(["openssl"] + list(a), cwd=self.dir).check_returncode()
        ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
            "ca.crt", "-days", "30", "-subj", "/CN=push suite CA")
        for name, san in (("local", "IP:127.0.0.1,DNS:localhost"), ("other", "DNS:other.example")):
            with open(self.path(name + ".ext"), "w") as f:
                f.write("subjectAltName=%s\n" % san)
            ssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out",
                name + ".csr", "-subj", "/CN=" + name)
            ssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                "-CAcreateserial", "-out", name + ".crt", "-days", "30", "-extfile", name + ".ext")
            self.conf(name + "-server", "tls-key-file = /host%s\ntls-cert-file = /host%s\n"
                      "tls-ca-cert-file = /host%s\n" % (self.path(name + ".key"),
                                                        self.path(name + ".crt"), self.ca))
        self.conf("ca-refr", "tls-ca-cert-file = /host%s\n" % self.ca)
        self.conf("ca-ours", "tls-ca-cert-file = %s\n" % self.ca)
        self.conf("none-refr", "# no CA\n")
        self.conf("none-ours", "# no CA\n")

    def path(self, name):
        return os.path.join(self.dir, name)

    def conf(self, name, text):
        with open(self.path(name + ".conf"), "w") as f:
            f.write(text)

    def env(self, who, ca="ca"):
        """The environment of `who` ("refr" or "ours") trusting the CA ("ca") or
        not ("none")."""
        path = self.path("%s-%s.conf" % (ca, who))
        return dict(os.environ, PCP_TLSCONF_PATH=("/host" + path) if who == "refr" else path)


class Proxy:
    """PCP 7.2's pmproxy with its logger servlet, storing under `store`; with
    `pki`, serving TLS with its certificate `cert`."""

    def __init__(self, tmp, pki=None, cert="local"):
        self.port = free_port()
        self.dir = tmp
        self.store = os.path.join(tmp, "store")
        self.sock = os.path.join(tmp, "pmproxy.sock")
        os.makedirs(self.store)
        with open(os.path.join(tmp, "pmproxy.conf"), "w") as f:
            f.write("[pmproxy]\npcp.enabled = false\nhttp.enabled = true\nresp.enabled = false\n"
                    "secure.enabled = %s\n[keys]\nenabled = false\n[discover]\nenabled = false\n"
                    "[pmsearch]\nenabled = false\n[pmseries]\nenabled = false\n"
                    "[pmlogger]\nenabled = true\n" % ("true" if pki else "false"))
        env = dict(os.environ, PCP_REMOTE_ARCHIVE_DIR="/host" + self.store)
        context = None
        if pki:
            env["PCP_TLSCONF_PATH"] = "/host" + pki.path(cert + "-server.conf")
            import ssl
            context = ssl.create_default_context(cafile=pki.ca)
            context.check_hostname = False
        self.proc = subprocess.Popen(
            [PCP7, "/usr/lib/pcp/bin/pmproxy", "-f", "-U", "root", "-A", "-i", "127.0.0.1",
             "-p", str(self.port), "-s", "/host" + self.sock, "-c", "pmproxy.conf",
             "-l", "pmproxy.log"], cwd=tmp, env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = "%s://127.0.0.1:%d" % ("https" if pki else "http", self.port)
        end = time.time() + 30
        while time.time() < end:
            try:
                # (http.client: pmproxy's TLS end closes on urllib's "Connection: close")
                if pki:
                    c = http.client.HTTPSConnection("127.0.0.1", self.port, timeout=1,
                                                    context=context)
                    c.request("GET", "/logger/ping")
                    body = c.getresponse().read()
                    c.close()
                else:
                    with urllib.request.urlopen(self.url + "/logger/ping", timeout=1) as r:
                        body = r.read()
                if b"success" in body:
                    return
            except (OSError, http.client.HTTPException):
                time.sleep(0.1)
        self.close()
        raise RuntimeError("PCP 7.2's pmproxy did not answer on port %d" % self.port)

    def take(self):
        """The files stored since the last call, {relative path: bytes}; removed."""
        got = {}
        for d, _, files in os.walk(self.store):
            for f in files:
                p = os.path.join(d, f)
                got[os.path.relpath(p, self.store)] = open(p, "rb").read()
        for e in os.listdir(self.store):
            shutil.rmtree(os.path.join(self.store, e), ignore_errors=True)
        return got

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Fake:
    """A recording server that answers as pmproxy's logger servlet, or fails as
    `mode` says; `requests` lists what it was sent."""

    def __init__(self):
        fake = self
        self.mode, self.requests, self.posts, self.volumes = "ok", [], 0, 0
        self.slept = False

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def reply(self, body, code=200, ctype="application/json"):
                b = body.encode()
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(b)))
                self.end_headers()
                self.wfile.write(b)

            def note(self, body):
                path = re.sub(r"/\d+$", "/ID", self.path)
                agent = self.headers.get("User-Agent", "").split("/")[0]
                names = ",".join(sorted(k.lower() for k in self.headers.keys()))
                fake.requests.append(("%s %s [%s] %s" % (self.command, path, names, agent),
                                      body))

            def do_GET(self):
                self.note(b"")
                m = fake.mode
                if m == "ping404":
                    return self.reply('{"success":false}\r\n', 404)
                if m == "pingtype":
                    return self.reply('{"success":true}\r\n', 200, "text/plain")
                if m == "pingbad":
                    return self.reply('{"success":false}\r\n')
                self.reply('{"success":true}\r\n')

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                self.note(body)
                fake.posts += 1
                m = fake.mode
                if self.path == "/logger/label":
                    if m.startswith("label") and m[5:].isdigit():
                        return self.reply('{"success":false}\r\n', int(m[5:]))
                    if m == "labeltype":
                        return self.reply('{"archive":7,"success":true}\r\n', 200, "text/html")
                    if m == "labelbad":
                        return self.reply('{"success":true}\r\n')
                    if m == "slow":
                        time.sleep(1.5)
                    return self.reply('{"archive":7,"success":true}\r\n')
                # writes fail from the third data record on: by then both
                # loggers have sent the prologue's metadata and index entry
                # (which they interleave differently with the prologue itself)
                fake.volumes += "/logger/volume/" in self.path
                late = fake.volumes >= 3
                if late and m.startswith("write") and m[5:].isdigit():
                    return self.reply('{"success":false}\r\n', int(m[5:]))
                if late and m == "writetype":
                    return self.reply('{"success":true}\r\n', 200, "text/plain")
                if late and m == "writeshort":
                    return self.reply('{"ok":1}\r\n')
                if late and m == "slow" and not fake.slept:
                    fake.slept = True
                    time.sleep(1.5)
                if late and m == "die":
                    self.close_connection = True
                    fake.server.socket.close()
                    return
                self.reply('{"success":true}\r\n')

            def log_message(self, *a):
                pass

        class Server(http.server.ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                pass  # a client that went away mid-request

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = "http://127.0.0.1:%d" % self.port
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def reset(self, mode):
        self.mode, self.requests, self.posts, self.volumes = mode, [], 0, 0
        self.slept = False
        if mode == "die" or self.server.socket.fileno() < 0:
            self.close()
            self.__init__()
            self.mode = mode

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def notices(text, conn):
    """A logger's log, less what is not the push's to choose: times, pids, the
    lines only one of the two loggers writes."""
    keep = []
    for line in text.splitlines():
        line = re.sub(r"^\[[^]]*\] pmlogger\(\d+\)", "[T] pmlogger(P)", line)
        line = re.sub(r" at \w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}", " at T", line)
        line = line.replace(conn, "URL")
        if re.match(r"^(\[T\] pmlogger\(P\) |pmlogger: lost|New log volume)", line):
            keep.append(line.rstrip("\r"))
    return "\n".join(keep) + "\n"


def stored(store, host):
    """The base name of the one archive pmproxy stored for `host`."""
    metas = glob.glob(os.path.join(store, host, "*.meta"))
    return metas[0][:-5] if len(metas) == 1 else None


def pmlogcheck7(base, cwd):
    r = run([PCP7, "pmlogcheck", base], cwd=cwd)
    return "%d %s" % (r.returncode, (r.stdout + r.stderr).decode(errors="replace")
                      .replace(base, "ARCHIVE"))


def logger_case(proxy, tmp, name, config, args, samples, env=lambda who: None):
    with open(os.path.join(tmp, "config"), "w") as f:
        f.write(config)
    procs = {}
    for who, cmd in (("refr", [PCP7, LOGGER7]), ("ours", [OURS["pmlogger"]])):
        procs[who] = subprocess.Popen(
            cmd + ["-h", "127.0.0.1", "-c", "config", "-l", who + ".log", "-H",
                   "%s-%s" % (who, name), "-s", str(samples)] + args + [proxy.url],
            cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(who))
    status = {who: p.wait(timeout=120) for who, p in procs.items()}
    logs = {who: notices(open(os.path.join(tmp, who + ".log"), errors="replace").read(),
                         proxy.url) for who in procs}
    parts = [("status", "%d\n" % status["refr"], "%d\n" % status["ours"]),
             ("notices", logs["refr"], logs["ours"])]
    bases = {who: stored(proxy.store, "%s-%s" % (who, name)) for who in procs}
    parts.append(("stored", "1\n", "%d\n" % (bases["ours"] is not None)))
    if bases["refr"] and bases["ours"]:
        cmp = pl.compare_archives(bases["refr"], bases["ours"], str(procs["refr"].pid),
                                  str(procs["ours"].pid))
        unhost = lambda t, who: t.replace("%s-%s" % (who, name), "HOST")
        parts += [(n, unhost(r, "refr"), unhost(o, "ours")) for n, r, o in cmp]
        parts.append(("pmlogcheck 7.2", pmlogcheck7(bases["refr"], tmp),
                      pmlogcheck7(bases["ours"], tmp)))
    proxy.take()
    return parts


def requests_case(fake, tmp, mode, args=(), scheme="http", env=None):
    """Both loggers against the recording server in `mode` (with `args`), one
    after the other."""
    with open(os.path.join(tmp, "config"), "w") as f:
        f.write(SIMPLE)
    seen = {}
    for who, cmd in (("refr", [PCP7, LOGGER7]), ("ours", [OURS["pmlogger"]])):
        fake.reset(mode)
        # "none": nobody listens there
        url = "http://127.0.0.1:%d" % free_port() if mode == "none" else fake.url
        url = url.replace("http:", scheme + ":")
        p = subprocess.Popen(cmd + ["-h", "127.0.0.1", "-c", "config", "-l", who + ".log",
                              "-s", "3", "-V", "3"] + list(args) + [url], cwd=tmp, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        p.communicate(timeout=120)
        log = notices(open(os.path.join(tmp, who + ".log"), errors="replace").read(), url)
        # (the logger's pid is an instance's name in its metadata; scripts/pcp7
        # execs 7.2's logger, so each pid here is the logger's own)
        seen[who] = (p.returncode, log, by_endpoint(fake.requests, str(p.pid).encode()))
    return [("status", "%d\n" % seen["refr"][0], "%d\n" % seen["ours"][0]),
            ("notices", seen["refr"][1], seen["ours"][1]),
            ("requests", seen["refr"][2], seen["ours"][2])]


def by_endpoint(requests, pid=None):
    """The requests to each endpoint in order (the interleaving of endpoints is
    not compared: each file is appended to in its own order), each with its body's
    length, the sender's `pid` in it counted as 3 bytes (a pid's digits vary)."""
    groups = {}
    for head, body in requests:
        n = len(body.replace(pid, b"PID")) if pid else len(body)
        groups.setdefault(head.split()[1], []).append("%s %d" % (head, n))
    return "".join("%s\n  %s\n" % (k, "\n  ".join(v)) for k, v in sorted(groups.items()))


def push_case(proxy, fake, tmp, args, mode=None, env=lambda who: None):
    """pmlogpush with `args` (PORT: the server's port) by each, one after the other."""
    seen = {}
    for who, cmd in (("refr", [PCP7, "pmlogpush"]), ("ours", [OURS["pmlogpush"]])):
        port = proxy.port
        if mode:
            fake.reset(mode)
            port = fake.port
        argv = [a.replace("PORT", str(port)).replace("SOCK", proxy.sock) for a in args]
        r = run(cmd + argv, cwd=tmp, env=env(who))
        err = re.sub(rb"archive([=\":]+)\d+", rb"archive\1ID", r.stderr)
        err = re.sub(rb"(/logger/(?:meta|index|volume/\d+)/)\d+", rb"\1ID", err)
        err = err.replace(str(port).encode(), b"PORT").replace(b'"/host/', b'"/')
        files = proxy.take()
        seen[who] = (r.returncode, r.stdout.decode(errors="replace"),
                     err.decode(errors="replace"), files,
                     by_endpoint(fake.requests) if mode else "")
    (rc, out, err, files, reqs), (orc, oout, oerr, ofiles, oreqs) = seen["refr"], seen["ours"]
    source = args[-1] if args and os.path.isabs(args[-1]) else None
    if source and not mode and broken(rc, err, files, ofiles):
        # PCP 7.2's pmlogpush stored less than the archive holds (or crashed):
        # ours must have stored all of it
        if short(source) not in SPARED:
            SPARED.append(short(source))
        return [("the whole archive stored", "", "" if orc == 0 else "exit status %d\n" % orc)] \
            + whole(source, ofiles)
    parts = [("status", "%d\n" % rc, "%d\n" % orc), ("stdout", out, oout),
             ("stderr", err, oerr), ("requests", reqs, oreqs),
             ("files", "".join(sorted(f + "\n" for f in files)),
              "".join(sorted(f + "\n" for f in ofiles)))]
    for f in sorted(set(files) & set(ofiles)):
        parts.append((f, files[f].hex() + "\n", ofiles[f].hex() + "\n"))
    return parts


def short(base):
    """An archive's name under its corpus (PCP 7.2's: pcp7/...)."""
    import pmdumplog
    if base.startswith(pmdumplog.PCP7_CORPUS):
        return "pcp7/" + os.path.relpath(base, pmdumplog.PCP7_CORPUS)
    return os.path.relpath(base, CORPUS)


# the archives PCP 7.2's pmlogpush stores in part (or crashes on), ours whole
SPARED = []


def broken(rc, err, files, ofiles):
    """Whether PCP 7.2's push of an archive went wrong where ours did not: it
    crashed (no temporal index), a later volume was refused (500), or a file of a
    compressed archive lost its last piece (a short read ends its loop)."""
    if rc < 0 or "HTTP error: server error (500)" in err:
        return True
    return any(f in ofiles and len(files[f]) < len(ofiles[f])
               and ofiles[f].startswith(files[f]) for f in files)


def decompressed(path):
    """A file of the source archive, decompressed; None where it is not there."""
    import bz2, gzip, lzma
    for suffix, opener in (("", open), (".xz", lzma.open), (".lzma", lzma.open),
                           (".bz2", bz2.open), (".gz", gzip.open)):
        if os.path.exists(path + suffix):
            with opener(path + suffix, "rb") as f:
                return f.read()
    if os.path.exists(path + ".zst"):
        return run([PCP7, "zstd", "-dc", path + ".zst"]).stdout
    return None


def whole(source, stored):
    """Each file pmproxy stored holds the source's file after its label (an index
    the source lacks: the label pmproxy writes, alone)."""
    parts = []
    for f in sorted(stored):
        ext = f.rsplit(".", 1)[1]
        body = stored[f]
        label = int.from_bytes(body[:4], "big")
        src = decompressed(source + "." + ext)
        rest = src[label:] if src is not None else (b"" if ext == "index" else None)
        parts.append((f + " after its label", "", "" if rest == body[label:] else "differs\n"))
    names = {re.sub(r"\.(xz|lzma|bz2|gz|zst)$", "", os.path.basename(p)).rsplit(".", 1)[1]
             for p in glob.glob(source + ".*")}
    want = {e for e in names if e in ("meta", "index") or e.isdigit()} | {"index"}
    got = {f.rsplit(".", 1)[1] for f in stored}
    parts.append(("files", "".join(e + "\n" for e in sorted(want)),
                  "".join(e + "\n" for e in sorted(got))))
    return parts


def corpus_archives():
    """The QA corpus's archives, its damaged ones and PCP 7.2's that it lacks."""
    import pmdumplog
    return [os.path.join(d, b) for d, b in pmdumplog.archives(pcp7=True)]


def missing():
    if not os.path.exists(os.path.join(PCP7_ROOT, "usr/lib/pcp/bin/pmproxy")):
        return "PCP 7.2's chroot is not installed (scripts/install-pcp7.sh)"
    if run(["pminfo", "sample.long.one"]).returncode != 0:
        return "PCP 6.0.3's pmcd with the sample agent is not running (scripts/start-pmcd.sh --sample)"
    if not os.path.isdir(CORPUS):
        return "PCP 6.0.3's QA corpus is not installed"
    if shutil.which("openssl") is None:
        return "openssl (the https cases' certificates) is not installed"
    return None


def cases(a):
    out = [("logger " + c[0], "logger", c) for c in LOGGER_CASES]
    out += [("requests", "requests", "ok")]
    out += [("logger fails: " + m, "requests", m) for m in FAILING + ["none"]]
    out += [("pmlogpush " + short(b), "push", (["-v", "-p", "PORT", b], None))
            for b in corpus_archives()]
    out.append(("pmlogpush unix socket", "push", (["-s", "SOCK", CORPUS + "/archives/ok-foo"],
                                                  None)))
    out += [("pmlogpush " + " ".join(m), "push",
             ([x.replace("A", CORPUS + "/archives/ok-foo") if x == "A" else x for x in m], None))
            for m in PUSH_MISTAKES]
    out += [("pmlogpush fails: " + m, "push", (["-v", "-p", "PORT", CORPUS + "/archives/ok-foo"],
                                               m)) for m in FAILING[3:]]
    out += [("pmlogpush -S " + c[0], "tls-push", c) for c in TLS_PUSH]
    out += [("logger https " + c[0], "tls-logger", c) for c in TLS_LOGGER]
    out += [("logger --push-user " + c[0], "push-user", c) for c in PUSH_USER_REFUSED]
    return [c for c in out if a.filter in c[0]]


class Tls:
    """The CA and the two TLS pmproxies of the https cases, made when first asked."""

    def __init__(self, tmp):
        self.tmp, self.pki, self.proxies = tmp, None, {}

    def ca(self):
        if self.pki is None:
            self.pki = Pki(self.tmp)
        return self.pki

    def proxy(self, cert):
        if cert not in self.proxies:
            d = tempfile.mkdtemp(prefix="tls-" + cert, dir=self.tmp)
            self.proxies[cert] = Proxy(d, self.ca(), cert)
        return self.proxies[cert]

    def env(self, who, ca="ca"):
        e = self.ca().env(who, ca)
        e["PCP_PUSH_PASSWORD"] = PASSWORD
        return e

    def close(self):
        for p in self.proxies.values():
            p.close()


def tls_case(tls, proxy, fake, work, kind, params):
    """One of the https cases."""
    if kind == "tls-push":
        _, args, ca, server = params
        target = proxy if server == "plain" else tls.proxy(server)
        return push_case(target, fake, work, args, env=lambda who: tls.env(who, ca))
    if kind == "tls-logger":
        name, config, args, samples = params
        return logger_case(tls.proxy("local"), work, name, config, args, samples,
                           env=lambda who: tls.env(who))
    _, args, scheme = params
    env = {k: v for k, v in os.environ.items() if k != "PCP_PUSH_PASSWORD"}
    return requests_case(fake, work, "ok", args, scheme, env)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "conformance-out"))
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    why = missing()
    if why:
        print("push conformance skipped: " + why)
        sys.exit(1 if os.environ.get("REQUIRE_REFERENCE") else 77)
    tmp = tempfile.mkdtemp(prefix="push-conf-", dir="/tmp")
    proxy, fake, tls = Proxy(tmp), Fake(), Tls(tmp)
    results = []
    try:
        for name, kind, params in cases(a):
            work = tempfile.mkdtemp(dir=tmp)
            try:
                if kind == "logger":
                    _, config, args, samples = params
                    parts = logger_case(proxy, work, name.split()[1], config, args, samples)
                elif kind == "requests":
                    parts = requests_case(fake, work, params)
                elif kind in ("tls-push", "tls-logger", "push-user"):
                    parts = tls_case(tls, proxy, fake, work, kind, params)
                else:
                    parts = push_case(proxy, fake, work, *params)
            except Exception as e:  # a case that cannot run differs
                parts = [("harness", "", "%s\n" % e)]
            shutil.rmtree(work, ignore_errors=True)
            bad = [(n, x, y) for n, x, y in parts if x != y]
            diffs = ["=== %s\n%s" % (n, "".join(list(difflib.unified_diff(
                x.splitlines(True), y.splitlines(True), "reference", "ours"))[:400]))
                for n, x, y in bad]
            results.append((name, not bad, {"diffs": diffs}))
            print("%-60s %s" % (name[:60], "identical" if not bad else
                                "differs: " + ", ".join(n for n, _, _ in bad)), flush=True)
    finally:
        proxy.close()
        fake.close()
        tls.close()
        shutil.rmtree(tmp, ignore_errors=True)
    if SPARED:
        print("%d archives PCP 7.2's pmlogpush stores in part or crashes on; ours stored "
              "each whole: %s" % (len(SPARED), " ".join(SPARED)))
    sys.exit(report("push", results, a.out, a.filter != ""))


if __name__ == "__main__":
    main()
