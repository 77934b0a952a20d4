#!/usr/bin/env python3
"""Writes an archive whose metadata is mostly one instance domain written again at
each change, as pmlogger writes a host's processes: PCP's pcp.pmi (LOGIMPORT) API,
one metric over a domain of N processes to start with, N/100 more at each sample
(pcp.pmi writes the whole domain again whenever it changed). The benchmarks use it
to measure what the tools hold of a large .meta.

Usage: make-churn-archive.py BASE [SAMPLES [N]]   (default 1,000 and 500: a 125 MB
.meta of 1,000 sets of 500 to 5,500 instances, a 4 MB data volume)
"""
import sys

from pcp import pmi
import cpmapi as c_api

base = sys.argv[1]
samples = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
n = int(sys.argv[3]) if len(sys.argv) > 3 else 500

log = pmi.pmiLogImport(base)
log.pmiSetHostname("churn-host")
log.pmiSetTimezone("UTC")
indom = log.pmiInDom(60, 1)
log.pmiAddMetric("churn.proc.rss", log.pmiID(60, 0, 1), c_api.PM_TYPE_U32, indom,
                 c_api.PM_SEM_INSTANT, log.pmiUnits(0, 0, 0, 0, 0, 0))
live = []  # (id, name) of the processes that report values
started = 0


def start():
    global started
    i = started
    started += 1
    name = f"{100000 + i:07d} /usr/lib/worker --id {i}"
    log.pmiAddInstance(indom, name, i)
    live.append((i, name))


for _ in range(n):
    start()
for s in range(samples):
    # a hundredth of the processes exit (they report no more values), as many start
    for _ in range(max(1, n // 100)):
        live.pop(0)
        start()
    for i, name in live:
        log.pmiPutValue("churn.proc.rss", name, str((i * 7 + s) % 100000))
    log.pmiWrite(1_700_000_000 + 10 * s, 0)
log.pmiEnd()
