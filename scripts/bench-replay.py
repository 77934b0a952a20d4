#!/usr/bin/python3
"""The reference side of scripts/bench-replay.sh: interpolate every metric of an
archive at a fixed step through PCP's Python API (libpcp's pmFetch under
PM_MODE_INTERP) and print what crates/archive-format/examples/interp_bench.rs prints.
Needs the system python3 with the pcp bindings (python3-pcp)."""
import sys
from pcp import pmapi
import cpmapi as c

name = sys.argv[1]
step = int(sys.argv[2]) if len(sys.argv) > 2 else 60000
ctx = pmapi.pmContext(c.PM_CONTEXT_ARCHIVE, name)
names = []
ctx.pmTraversePMNS("", lambda n: names.append(n))
# leave out derived metrics (domain 511), which libpcp adds to every namespace
names = sorted(n for n in names if ctx.pmID_domain(ctx.pmLookupName(n)[0]) != 511)
pmids = ctx.pmLookupName(names)
descs = ctx.pmLookupDescs(pmids)
start = ctx.pmGetArchiveLabel().start
ctx.pmSetMode(c.PM_MODE_INTERP, start, step)
out = sys.stdout
while True:
    try:
        r = ctx.pmFetch(pmids)
    except pmapi.pmErr as e:
        if e.args[0] == c.PM_ERR_EOL:
            break
        raise
    ts = r.contents.timestamp
    parts = ["%d.%06d" % (ts.tv_sec, ts.tv_usec)]
    for i in range(len(names)):
        if r.contents.get_numval(i) > 0:
            v = ctx.pmExtractValue(r.contents.get_valfmt(i), r.contents.get_vlist(i, 0),
                                   descs[i].contents.type, c.PM_TYPE_DOUBLE).d
            parts.append(repr(float(v)))
        else:
            parts.append("-")
    out.write(" ".join(parts) + "\n")
    ctx.pmFreeResult(r)
