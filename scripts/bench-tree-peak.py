#!/usr/bin/env python3
"""Peak memory of a job: the resident memory of all its processes together.

    bench-tree-peak.py 'shell command line'   -> prints kilobytes

The command runs under `bash -c`, its output to /dev/null. Every 2 ms the
resident sizes (VmRSS) of the command and all its descendants are added up; the
largest sum is printed (bench-lib.sh takes the larger of it and the largest one
process's peak, from a timed run: a peak between two samples). A tool that runs a helper beside it (PCP
7.2's pmdumplog decodes a .zst volume in a `zstd -dc` process of its own) then
counts the helper's memory too, which the largest process's peak alone does not.
Used by bench-lib.sh in an untimed run of its own (the sampling takes CPU).
"""

import os
import subprocess
import sys
import time


def parents():
    """Each process's parent, from /proc."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # the name may hold spaces and parentheses: the fields after the last ')'
        out[int(d)] = int(stat.rsplit(")", 1)[1].split()[1])
    return out


def tree(root, parent_of):
    """`root` and its descendants."""
    children = {}
    for pid, ppid in parent_of.items():
        children.setdefault(ppid, []).append(pid)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


def rss_kb(pid):
    """A process's resident memory; 0 for the moment between the fork and the
    exec, when it is still this interpreter (whose memory the job does not use)."""
    try:
        if os.path.realpath(f"/proc/{pid}/exe") == PYTHON:
            return 0
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


PYTHON = os.path.realpath(sys.executable)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench-tree-peak.py 'command line'")
    p = subprocess.Popen(
        ["bash", "-c", sys.argv[1]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    peak = 0
    while True:
        if os.waitpid(p.pid, os.WNOHANG)[0]:
            break
        peak = max(peak, sum(rss_kb(pid) for pid in tree(p.pid, parents())))
        time.sleep(0.002)
    print(peak)


if __name__ == "__main__":
    main()
