#!/usr/bin/python3
"""Refreshes the built-in source's metric table from PCP's own agents.

crates/sources/data/linux.tsv lists the metrics of our built-in source (`-h
@builtin`): name, PMID, type, instance domain, semantics, units, and where our
source reads the value (the last column, ours: see crates/sources/src/local.rs,
Src::parse). This script asks the local pmcd (PCP 6.0.3's Linux and proc agents)
for each name's descriptor and rewrites the descriptor columns with it, and writes
crates/sources/data/linux.help with the agents' help texts (one-line and full) of
every metric and instance domain in the table, so that our archives carry the
same help as PCP's and pmlogextract merges them without "help text changed!".

Needs the reference and its pmcd (scripts/install-reference.sh,
scripts/start-pmcd.sh) and the system python3 (PCP's bindings). Usage:
    /usr/bin/python3 scripts/gen-builtin-table.py
"""
import os
import sys

from pcp import pmapi
import cpmapi as c

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "crates", "sources", "data")
TYPES = {c.PM_TYPE_32: "32", c.PM_TYPE_U32: "u32", c.PM_TYPE_64: "64",
         c.PM_TYPE_U64: "u64", c.PM_TYPE_FLOAT: "float", c.PM_TYPE_DOUBLE: "double",
         c.PM_TYPE_STRING: "string"}
SEMS = {c.PM_SEM_COUNTER: "counter", c.PM_SEM_INSTANT: "instant",
        c.PM_SEM_DISCRETE: "discrete"}
HEADER = ("# The built-in source's metrics (pmlogger -h @builtin), as PCP 6.0.3's Linux and\n"
          "# proc agents describe them; the descriptor columns are refreshed from the agents\n"
          "# by scripts/gen-builtin-table.py, the last one says where our source reads the\n"
          "# value (Src::parse in crates/sources/src/local.rs). Units: pmUnits as one word.\n"
          "# name\tpmid\ttype\tindom\tsem\tunits\tsource\n")


def units_word(u):
    return (u.dimSpace & 0xf) << 28 | (u.dimTime & 0xf) << 24 | (u.dimCount & 0xf) << 20 \
        | (u.scaleSpace & 0xf) << 16 | (u.scaleTime & 0xf) << 12 | (u.scaleCount & 0xf) << 8


def dotted(ident, pmid):
    if pmid:
        return "%d.%d.%d" % (ident >> 22 & 0x1ff, ident >> 10 & 0xfff, ident & 0x3ff)
    return "%d.%d" % (ident >> 22 & 0x1ff, ident & 0x3fffff)


def text(lookup, what, kind):
    try:
        t = lookup(what, kind | c.PM_TEXT_DIRECT)
    except pmapi.pmErr:
        return None
    return t.decode() if isinstance(t, bytes) else t


def main():
    tsv = os.path.join(DATA, "linux.tsv")
    rows = [l.rstrip("\n").split("\t") for l in open(tsv)
            if l.strip() and not l.startswith("#")]
    ctx = pmapi.pmContext(c.PM_CONTEXT_HOST, "local:")
    out, help_out, indoms = [], [], {}
    for row in rows:
        name, source = row[0], row[-1]
        try:
            pmid = ctx.pmLookupName(name)[0]
            d = ctx.pmLookupDescs([pmid])[0]
        except pmapi.pmErr as e:
            sys.exit("%s: the agent does not describe it (%s)" % (name, e))
        indom = "-" if d.indom == c.PM_INDOM_NULL else dotted(d.indom, False)
        out.append("\t".join([name, dotted(pmid, True), TYPES[d.type], indom,
                              SEMS[d.sem], "0x%08x" % units_word(d.units), source]))
        help_out.append(entry(name, text(ctx.pmLookupText, pmid, c.PM_TEXT_ONELINE),
                              text(ctx.pmLookupText, pmid, c.PM_TEXT_HELP)))
        if d.indom != c.PM_INDOM_NULL and indom not in indoms:
            indoms[indom] = entry(indom, text(ctx.pmLookupInDomText, d, c.PM_TEXT_ONELINE),
                                  text(ctx.pmLookupInDomText, d, c.PM_TEXT_HELP))
    with open(tsv, "w") as f:
        f.write(HEADER + "\n".join(out) + "\n")
    with open(os.path.join(DATA, "linux.help"), "w") as f:
        f.write("# Help texts of the built-in source's metrics and instance domains, from\n"
                "# PCP 6.0.3's agents (scripts/gen-builtin-table.py; do not edit): '@ NAME\n"
                "# ONE-LINE TEXT', then the full text, if any, up to the next '@ '.\n")
        f.write("".join(help_out + [indoms[k] for k in sorted(indoms)]))
    print("%d metrics, %d instance domains" % (len(out), len(indoms)))


def entry(key, one, full):
    if one is None:
        sys.exit("%s: the agent has no one-line help" % key)
    full = full or ""
    if any(l.startswith("@ ") or l.startswith("#") for l in full.split("\n")) or "\n" in one:
        sys.exit("%s: help text the table format cannot hold" % key)
    return "@ %s %s\n%s" % (key, one, full + "\n" if full else "")


if __name__ == "__main__":
    main()
