"""What every conformance suite does around its cases: skipping (or failing under
REQUIRE_REFERENCE) where the reference is not installed, the scoreboard (N of M
identical, then each differing case), a diff file per differing case, and the check
against the suite's floor (conformance/floor-TOOL)."""
import os, shutil, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS = "/var/lib/pcp/testsuite"


def missing_reference(tool):
    """None where PCP's `tool` and its QA corpus are installed; else the suite's
    exit status once the reason is said (77 skipped, 1 under REQUIRE_REFERENCE)."""
    if shutil.which(tool) is not None and os.path.isdir(CORPUS):
        return None
    msg = f"reference PCP ({tool} and its QA corpus) is not installed"
    if os.environ.get("REQUIRE_REFERENCE"):
        print(f"conformance: FAIL: {msg}", file=sys.stderr)
        return 1
    print(f"conformance: skipped: {msg}")
    return 77


_BUILT = []  # whether this run built the release programs yet


def release_binary(name, example=False):
    """The path of the workspace's release program `name` (an example's with
    `example`), built first. Every suite and .ci/run build the same set (every
    package's programs and examples), so the features are unified once and one
    build serves them all."""
    if not _BUILT:
        subprocess.run(["cargo", "build", "--release", "-q", "--workspace", "--bins", "--examples"],
                       cwd=ROOT, check=True)
        _BUILT.append(True)
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target")
    return os.path.join(target, "release", "examples" if example else "", name)


def archive_size(d, base):
    """The bytes of the archive `base`'s files in `d`."""
    return sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d)
               if f.startswith(base + "."))


def floor_check(tool, ok, filtered):
    """1 where `ok` is below the floor of a whole run, else 0."""
    floor_file = os.path.join(HERE, f"floor-{tool}")
    floor = int(open(floor_file).read().split()[0]) if os.path.exists(floor_file) else 0
    if not filtered and ok < floor:
        print(f"conformance: FAIL: {ok} identical is below the floor of {floor}", file=sys.stderr)
        return 1
    return 0


def report(tool, results, outdir, filtered, diffs=None):
    """results: (case name, identical, {"ref": (out, err, rc), "got": ...}, or
    {"diffs": [text, ...]} where the suite has worded the differences, or None).
    Writes the scoreboard and the diffs (under `diffs`, default diffs-TOOL) and
    returns the suite's exit status."""
    os.makedirs(outdir, exist_ok=True)
    diffdir = os.path.join(outdir, diffs or f"diffs-{tool}")
    shutil.rmtree(diffdir, ignore_errors=True)
    os.makedirs(diffdir)
    ok = sum(1 for _, s, _ in results if s)
    lines = [f"{tool} conformance: {ok} of {len(results)} identical"]
    bad = [(n, det) for n, s, det in results if not s]
    for i, (n, det) in enumerate(bad):
        lines.append(f"DIFF {n}")
        with open(os.path.join(diffdir, f"{i:04d}.txt"), "wb") as fh:
            fh.write(f"case: {n}\n".encode())
            if "diffs" in det:
                fh.write("\n".join(det["diffs"]).encode(errors="replace") + b"\n")
                continue
            for k in ("ref", "got"):
                out, err, rc = det[k]
                fh.write(f"--- {k} rc={rc} stderr:\n".encode() + err[:400000])
                fh.write(f"--- {k} stdout:\n".encode() + out[:400000])
    with open(os.path.join(outdir, f"scoreboard-{tool}.txt"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print(lines[0])
    status = floor_check(tool, ok, filtered)
    if status:
        show_differences(diffdir, len(bad))
    return status


def show_differences(diffdir, count, cases=10, lines=40):
    """The head of the first `cases` diff files on stderr, so that a run which fell
    below its floor says in its last lines which cases differed and how."""
    for i in range(min(count, cases)):
        with open(os.path.join(diffdir, f"{i:04d}.txt"), errors="replace") as fh:
            text = fh.read().splitlines()[:lines]
        print("\n".join(text), file=sys.stderr)


def differences(r, o):
    """The differences of two runs that wrote archives, each (exit status,
    stdout, stderr, output file names, {file: bytes}, a dump of the output),
    worded for a diff file; empty where they agree."""
    diffs = []
    if r[0] != o[0]:
        diffs.append(f"exit status: reference {r[0]}, ours {o[0]}")
    for k, what in ((1, "stdout"), (2, "stderr")):
        if r[k] != o[k]:
            diffs.append(f"{what} differs:\n--- reference\n" + r[k].decode(errors="replace")
                         + "--- ours\n" + o[k].decode(errors="replace"))
    if r[3] != o[3]:
        diffs.append(f"files: reference {r[3]}, ours {o[3]}")
    for f in r[3]:
        if f in o[4] and r[4][f] != o[4][f]:
            a, b = r[4][f], o[4][f]
            at = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
            diffs.append(f"{f}: bytes differ at offset {at} (sizes {len(a)} / {len(b)})")
    if r[5] != o[5]:
        diffs.append("pmdumplog -a of the outputs differs")
    return diffs
