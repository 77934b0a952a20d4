#!/usr/bin/python3
"""The values PCP's libpcp gives a metric (derived ones too) over an archive, one
line each: `SEC.USEC INSTANCE VALUE` (the value as a double, repr'd). Forward
fetches (`forw`: each record holding the metric, as pmSetMode(PM_MODE_FORW)
then pmFetch give them) or interpolated ones (`interp STEP`: a sample every STEP
seconds from the archive's start). Run with the system's python3 (PCP's
pcp.pmapi); the conformance suites compare our exports with it.

Usage: conformance/libpcp_values.py ARCHIVE METRIC forw|interp [STEP]
"""
import sys
from pcp import pmapi
import cpmapi as c


def main():
    archive, name, mode = sys.argv[1:4]
    ctx = pmapi.pmContext(c.PM_CONTEXT_ARCHIVE, archive)
    pmids = ctx.pmLookupName([name])
    desc = ctx.pmLookupDescs(pmids)[0]
    start = ctx.pmGetArchiveLabel().start
    if mode == "forw":
        ctx.pmSetMode(c.PM_MODE_FORW, start, 0)
    else:
        ctx.pmSetMode(c.PM_MODE_INTERP, start, int(float(sys.argv[4]) * 1000))
    while True:
        try:
            r = ctx.pmFetch(pmids)
        except pmapi.pmErr:
            break
        t = r.contents.timestamp
        vs = r.contents.get_vset(0)
        for j in range(max(vs.contents.numval, 0)):
            vl = r.contents.get_vlist(0, j)
            v = ctx.pmExtractValue(vs.contents.valfmt, vl, desc.type, c.PM_TYPE_DOUBLE).d
            print(f"{t.tv_sec}.{t.tv_usec:06d} {vl.inst} {v!r}")
        ctx.pmFreeResult(r)


if __name__ == "__main__":
    main()
