#!/usr/bin/env python3
"""Writes a wide archive of the shape pmlogger writes for a busy host, with PCP's
pcp.pmi (LOGIMPORT) API: 2,000 metrics (half singular, half over instance domains
of 4 to 64 instances; 64-bit counters, 32-bit values, doubles, a few strings) sampled
every 10 s, with help text. The benchmark scripts make it once and reuse it.

Usage: make-wide-archive.py BASE [SAMPLES]   (default 350 samples, about 196 MB)
"""
import random
import sys

from pcp import pmi
import cpmapi as c_api

base = sys.argv[1]
samples = int(sys.argv[2]) if len(sys.argv) > 2 else 350
rng = random.Random(20261125)

log = pmi.pmiLogImport(base)
log.pmiSetHostname("wide-host")
log.pmiSetTimezone("UTC")

# instance domains: 20 of 4..64 instances, names like a disk, cpu or process table
indoms = []
for d in range(20):
    n = 4 + (d * 60) // 19
    indom = log.pmiInDom(60, d)
    names = [f"{['cpu', 'sd', 'eth', 'proc'][d % 4]}{i}" if d % 4 != 3
             else f"{1000 + i:06d} /usr/lib/worker-{d}-{i}" for i in range(n)]
    for i, name in enumerate(names):
        log.pmiAddInstance(indom, name, i)
    indoms.append((indom, names))

kinds = [
    (c_api.PM_TYPE_U64, c_api.PM_SEM_COUNTER, log.pmiUnits(1, 0, 0, c_api.PM_SPACE_BYTE, 0, 0)),
    (c_api.PM_TYPE_U32, c_api.PM_SEM_INSTANT, log.pmiUnits(0, 0, 1, 0, 0, c_api.PM_COUNT_ONE)),
    (c_api.PM_TYPE_DOUBLE, c_api.PM_SEM_INSTANT, log.pmiUnits(0, 0, 0, 0, 0, 0)),
    (c_api.PM_TYPE_64, c_api.PM_SEM_COUNTER, log.pmiUnits(0, 1, 0, 0, c_api.PM_TIME_MSEC, 0)),
]
handles = []  # (handle, type, counter state)
for m in range(2000):
    singular = m % 2 == 0
    if m % 97 == 5:
        ty, sem, units = c_api.PM_TYPE_STRING, c_api.PM_SEM_DISCRETE, log.pmiUnits(0, 0, 0, 0, 0, 0)
    else:
        ty, sem, units = kinds[m % len(kinds)]
    name = f"wide.group{m // 100}.metric{m}"
    pmid = log.pmiID(60, m // 100, m % 100)
    if singular:
        log.pmiAddMetric(name, pmid, ty, c_api.PM_INDOM_NULL, sem, units)
        insts = [None]
    else:
        indom, names = indoms[m % len(indoms)]
        log.pmiAddMetric(name, pmid, ty, indom, sem, units)
        insts = names
    log.pmiPutText(c_api.PM_TEXT_PMID, c_api.PM_TEXT_ONELINE, pmid, f"metric {m} of the wide archive")
    for inst in insts:
        handles.append([log.pmiGetHandle(name, inst), ty, rng.randrange(1 << 40)])

t0 = 1_700_000_000
for s in range(samples):
    for h in handles:
        ty = h[1]
        if ty == c_api.PM_TYPE_STRING:
            v = f"state-{s % 7}"
        elif ty == c_api.PM_TYPE_DOUBLE:
            v = repr(round(rng.random() * 100, 3))
        elif ty == c_api.PM_TYPE_U32:
            v = str(rng.randrange(100000))
        else:
            h[2] += rng.randrange(1 << 20)
            v = str(h[2])
        log.pmiPutValueHandle(h[0], v)
    log.pmiWrite(t0 + 10 * s, 1000 * (s % 1000))
log.pmiEnd()
