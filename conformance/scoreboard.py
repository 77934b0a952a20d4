"""What every conformance suite does with its results: the scoreboard (N of M
identical, then each differing case), a diff file per differing case, and the
check against the suite's floor (conformance/floor-TOOL)."""
import os, shutil, sys

HERE = os.path.dirname(os.path.abspath(__file__))


def report(tool, results, outdir, filtered):
    """results: (case name, identical, {"ref": (out, err, rc), "got": ...} or None).
    Returns the suite's exit status: 1 below the floor (unless filtered), else 0."""
    os.makedirs(outdir, exist_ok=True)
    diffdir = os.path.join(outdir, f"diffs-{tool}")
    shutil.rmtree(diffdir, ignore_errors=True)
    os.makedirs(diffdir)
    ok = sum(1 for _, s, _ in results if s)
    lines = [f"{tool} conformance: {ok} of {len(results)} identical"]
    bad = [(n, det) for n, s, det in results if not s]
    for i, (n, det) in enumerate(bad):
        lines.append(f"DIFF {n}")
        with open(os.path.join(diffdir, f"{i:04d}.txt"), "wb") as fh:
            fh.write(f"case: {n}\n".encode())
            for k in ("ref", "got"):
                out, err, rc = det[k]
                fh.write(f"--- {k} rc={rc} stderr:\n".encode() + err[:400000])
                fh.write(f"--- {k} stdout:\n".encode() + out[:400000])
    with open(os.path.join(outdir, f"scoreboard-{tool}.txt"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print(lines[0])
    floor_file = os.path.join(HERE, f"floor-{tool}")
    floor = int(open(floor_file).read().split()[0]) if os.path.exists(floor_file) else 0
    if not filtered and ok < floor:
        print(f"conformance: FAIL: {ok} identical is below the floor of {floor}", file=sys.stderr)
        return 1
    return 0
