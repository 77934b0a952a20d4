#!/usr/bin/env python3
"""Conformance suite for pmlogrewrite: runs PCP 6.0.3's pmlogrewrite and ours on the
same inputs with the same rules and options and compares, per case: exit status,
stdout, stderr, the set of output files, every output file byte for byte, and (where
the files differ) the reference pmdumplog -a of both outputs. Writes a scoreboard (N
of M identical, and the differing cases).

Cases: every archive of PCP's QA corpus (good and damaged) copied without rules, and
again with the rules PCP ships (/var/lib/pcp/config/pmlogrewrite); the version 2
ones upgraded with -V 3; metric rules (PMIDs one by one and by cluster or domain,
names, types with and without a condition, semantics, units with and without
rescaling, -s, deletion) on four archives, with -w -v, and each diagnostic of the
metric clause; instance domains moved and duplicated, alone and by domain, metrics
moved to another domain or made singular with each OUTPUT choice, and their
diagnostics; help text rules (deleted, rewritten, moved, by type, text, cluster
and domain); label rules (every kind and clause, new labels, labels following a
renumbered metric or a moved instance domain, PCP's QA tests' rules, and their
diagnostics); rules of the global clause (host name, time zone,
zoneinfo, feature bits, time shifts forward and back) on a set of archives; each
diagnostic of the global clause (clauses cut short, duplicates, bad bits, times out
of range, syntax errors, an unexpected character) and the options that report on
rules (-w, -C, -v, -q); -i on copies of four archives (the files left in the
directory); and command-line mistakes.

Where the reference crashes (pmlogrewrite 6.0.3 fails an assertion on a second
clause in a label rule that selects one record, and frees twice on an unchanged
instance clause), ours must answer: the case passes when ours exits normally,
its name says what each did, and what ours said is listed.

Exit status: 0 when the score is at least the floor in conformance/floor-pmlogrewrite,
1 below it, 77 when the reference is not installed (unless REQUIRE_REFERENCE is set,
then 1).

Usage: conformance/pmlogrewrite.py [--ours PATH] [--out DIR] [--jobs N] [--filter SUBSTR]
"""
import argparse, concurrent.futures as cf, os, re, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import scoreboard  # noqa: E402
from pmdumplog import CORPUS, archives  # noqa: E402
from pmlogextract import dump, run  # noqa: E402

REFERENCE = "/usr/lib/pcp/bin/pmlogrewrite"
# the rules PCP ships (pmlogger_daily applies them to every archive)
SHIPPED = ("dir", "/var/lib/pcp/config/pmlogrewrite")
# inputs larger than this are only copied (the reference is slow on them)
BIG = 64 << 20
RULE_ARCHIVES = ["archives/20041125", "archives/ok-foo", "archives/omnibus_v2",
                 "archives/omnibus_v3", "archives/mirage", "archives/eventrec",
                 "archives/tzchange-10-a", "archives/gap"]
RULES = {
    "hostname": "global { hostname -> newhost.example.com }\n",
    "tz": "GLOBAL {\n  TZ -> \"AEST-10\"\n}\n",
    "timezone": "global { timezone -> \"EST+5EDT,M3.2.0/2,M11.1.0/2\" }  # a comment\n",
    "time-forward": "global { time -> 1:00:00 }\n",
    "time-back": "global { time -> -23:59:59.5 }\n",
    "time-fraction": "global { time -> 30.25 }\n",
    "time-sub-second": "global { time -> 0.5 }\n",
    "all": "global {\n hostname -> a.b\n tz -> \"UTC\"\n time -> -10\n}\n",
    "empty": "# nothing\n",
}
RULES_V3 = {
    "zoneinfo": "global { zoneinfo -> \":Australia/Melbourne\" }\n",
    "features": "global { features -> 5 }\n",
    "features-bits": "global { features -> bits(31, 7, 1) }\n",
}
# diagnostics of the global clause (on 20041125: v2, host mortenb.oslo.sgi.com, CET-1)
RULES_BAD = {
    "hostname-alone": "global { hostname }\n",
    "hostname-empty": "global {\n hostname ->\n}\n",
    "tz-alone": "global { tz }\n",
    "tz-empty": "global { tz -> }\n",
    "tz-number": "global { timezone -> 5 }\n",
    "zoneinfo-v2": "global { zoneinfo -> \":UTC\" }\n",
    "zoneinfo-empty": "global { zoneinfo -> }\n",
    "features-v2": "global { features -> 3 }\n",
    "features-empty": "global { features }\n",
    "bits-open": "global { features -> bits( }\n",
    "bits-list": "global { features -> bits(1, 2 }\n",
    "bits-alone": "global { features -> bits }\n",
    "bits-range": "global { features -> bits(32) }\n",
    "dup-hostname": "global { hostname -> a hostname -> b }\n",
    "dup-tz": "global {\n tz -> \"A\"\n\n tz -> \"B\"\n}\n",
    "dup-time": "global { time -> 1 time -> 2 }\n",
    "time-alone": "global { time }\n",
    "time-empty": "global { time -> }\n",
    "time-big": "global { time -> 1:75:80 }\n",
    "time-big-fraction": "global { time -> 70.25 }\n",
    "time-minutes": "global { time -> 61:30.5 }\n",
    "unknown-word": "global { foo -> bar }\n",
    "bad-char": "global {\n hostname -> a\n @\n}\n",
    "unclosed": "global {\n hostname -> a\n",
    "no-brace": "global hostname -> a }\n",
    "empty-global": "global { }\n",
    "two-globals": "global { hostname -> a }\nglobal { tz -> \"B\" }\n",
    "same-host": "global { hostname -> mortenb.oslo.sgi.com }\n",
    "same-tz": "global { tz -> \"CET-1\" }\n",
    "time-zero": "global { time -> 0 }\n",
    "string-over-lines": "global { tz -> \"a\nb\" }\n",
    "top-level-junk": "hostname -> a\n",
    "number-host": "global { hostname -> 123 }\n",
}
# metric rules (on 20041125 and the archives of RULE_ARCHIVES)
METRIC_RULES = {
    "renumber": "metric kernel.all.load { pmid -> 60.99.1 sem -> counter }\n",
    "cluster-star": "metric 60.0.* { units -> 0,0,1,0,0,ONE }\n",
    "domain-star": "metric 60.*.* { pmid -> 160.*.* }\n",
    "cluster-move": "metric 60.1.* { pmid -> 61.7.* }\n",
    "rename-retype": "metric hinv.ncpu { type -> U64 name -> hinv.cpus }\n",
    "type-if": "metric kernel.all.pswitch { type if U32 -> 64 }\nmetric kernel.all.load { type if FLOAT -> DOUBLE }\n",
    "to-double": "metric kernel.all.pswitch { type -> DOUBLE }\nmetric kernel.all.load { type -> 32 }\n",
    "rescale": "metric mem.physmem { units -> 1,0,0,BYTE,0,0 rescale }\n",
    "units-only": "metric mem.physmem { units -> 1,0,0,MBYTE,0,0 }\n",
    "delete": "metric mem.util.free { delete }\nmetric 60.0.* { delete }\n",
    "unknown": "metric sample.nosuch { delete }\nmetric 1.2.3 { delete }\n",
    "sample": "metric sample.long.* { delete }\nmetric sample.bin { type -> DOUBLE }\nmetric sample.colour { units -> 0,1,0,0,MSEC,0 }\n",
    "sem": "metric 29.*.* { sem -> discrete }\n",
}
# instance-domain rules (the instance clauses are not yet applied)
INDOM_RULES = {
    "move": "indom 60.1 { indom -> 61.1 }\n",
    "duplicate": "indom 60.1 { indom -> duplicate 61.1 }\nmetric 60.0.4 { pmid -> 61.0.4 indom -> 61.1 }\n",
    "star": "indom 60.* { indom -> 62.* }\n",
    "same": "indom 60.1 { indom -> 60.1 }\n",
    "metric-null": "metric kernel.all.load { indom -> NULL }\n",
    "metric-null-last": "metric kernel.all.load { indom -> NULL output last }\n",
    "metric-null-inst": "metric kernel.all.load { indom -> NULL output inst 5 }\n",
    "metric-null-iname": "metric kernel.all.load { indom -> NULL output iname \"15 minute\" }\n",
    "metric-null-min": "metric kernel.all.load { indom -> NULL output min }\n",
    "metric-null-max": "metric kernel.all.load { indom -> NULL output max }\n",
    "metric-null-sum": "metric kernel.all.load { indom -> NULL output sum }\n",
    "metric-null-avg": "metric kernel.all.load { indom -> NULL output avg }\n",
    "metric-to-indom": "metric hinv.ncpu { indom -> 60.2 }\n",
    "metric-to-indom-inst": "metric hinv.ncpu { indom -> 60.2 output inst 15 }\n",
    "metric-sum-u32": "metric disk.dev.read { indom -> NULL output sum }\nmetric disk.dev.write { indom -> null output avg }\n",
    "conflict": "indom 60.1 { indom -> 61.1 }\nmetric disk.dev.read { indom -> 63.1 }\n",
    "not-in-output": "metric kernel.all.load { indom -> 99.1 }\n",
    "string-sum": "metric pmcd.pmlogger.host { indom -> NULL output sum }\n",
    "indom-alone": "indom { indom -> 61.1 }\n",
    "indom-empty": "indom 60.1 { indom -> }\n",
    "indom-arrow": "indom 60.1 { indom }\n",
    "no-serial": "indom 60. { indom -> 61.1 }\n",
    "bad-domain": "indom 600.1 { indom -> 61.1 }\n",
    "output-alone": "metric kernel.all.load { indom -> NULL output }\n",
    "inst-renumber": "indom 60.2 { inst 1 -> 100 }\n",
    "inst-chain": "indom 60.2 { inst 1 -> 5 inst 5 -> 15 }\n",
    "inst-delete": "indom 60.2 { inst 15 -> delete }\n",
    "iname-rename": "indom 60.2 { iname \"1 minute\" -> \"one minute\" }\n",
    "iname-first-word": "indom 60.2 { iname \"5\" -> \"five\" }\n",
    "iname-delete": "indom 60.2 { iname \"15 minute\" -> delete }\n",
    "both": "indom 60.2 { indom -> 61.2 inst 5 -> 50 iname \"1 minute\" -> \"1m\" }\n",
    "disks": "indom 60.1 { iname \"dks0d1\" -> \"sda\" inst 0 -> delete }\n",
    "unknown-inst": "indom 60.2 { inst 99 -> 100 iname \"nope\" -> \"x\" }\n",
    "same-inst": "indom 60.2 { inst 1 -> 1 iname \"1 minute\" -> \"1 minute\" }\n",
    "conflict-inst": "indom 60.2 { inst 1 -> 2 inst 1 -> delete }\n",
    "conflict-iname": "indom 60.2 { iname \"1 minute\" -> \"a\" iname \"1 minute\" -> \"b\" }\n",
    "inst-then-null": "indom 60.2 { inst 1 -> delete }\nmetric kernel.all.load { indom -> NULL output inst 5 }\n",
    "iname-empty": "indom 60.2 { iname }\n",
    "iname-arrow": "indom 60.2 { iname \"1 minute\" }\n",
    "iname-to": "indom 60.2 { iname \"1 minute\" -> }\n",
    "inst-empty": "indom 60.2 { inst }\n",
    "inst-arrow": "indom 60.2 { inst 1 }\n",
    "inst-to": "indom 60.2 { inst 1 -> }\n",
}
# help text rules (on omnibus_v3, which has help text for metrics and domains)
TEXT_RULES = {
    "delete-oneline": "text metric 29.0.5 { delete }\n",
    "delete-both": "text metric sample.colour * { delete }\n",
    "help-only": "text metric sample.colour help { text -> \"new help\" }\n",
    "oneline-text": "text metric 29.0.5 oneline \"Metrics with a \\\"saw-tooth\\\" trend over time\" { text -> \"saw\" }\n",
    "move": "text metric 29.0.13 * { metric -> 29.0.99 }\n",
    "star": "text metric 29.0.* { delete }\n",
    "star-move": "text metric 29.0.* help { metric -> 30.*.* }\n",
    "indom": "text indom 29.1 * { text -> \"colours\" }\n",
    "indom-move": "text indom 29.1 { indom -> 30.1 }\n",
    "indom-delete": "text indom 29.* * { delete }\n",
    "same-text": "text metric 29.0.13 { text -> \"1000000 as a 32-bit integer\" }\n",
    "unknown": "text metric no.such { delete }\ntext metric 99.0.1 { delete }\n",
    "with-pmid": "metric 29.0.13 { pmid -> 29.0.98 }\n",
    "conflict": "metric 29.0.13 { pmid -> 29.0.98 }\ntext metric 29.0.13 { metric -> 29.0.97 }\n",
    "two-rules": "text metric 29.0.13 { delete }\ntext metric 29.0.13 { text -> \"x\" }\n",
    "empty": "text metric 29.0.13 { }\n",
    "alone": "text { delete }\n",
}
# label rules (on sample-labels, which has labels of every kind, and omnibus_v2/v3):
# each clause of each kind of rule, new labels, reassociation, the labels that
# follow a renumbered metric or a moved instance domain, and the diagnostics
LABEL_RULES = {
    "clu-bad": 'label cluster 29.5000 { delete }\n',
    "clu-del": 'label cluster 29.0 { delete }\n',
    "clu-move": 'label cluster 29.0 { cluster -> 29.5 }\n',
    "clu-new": 'label cluster 29.0 { new "c" "d" }\n',
    "clu-new-star": 'label cluster 29.* { new "c" "d" }\n',
    "clu-star": 'label cluster 29.* { cluster -> 30.* }\n',
    "conflict-indom": 'label instances 29.3 { instances -> 29.1 }\nindom 29.3 { indom -> 29.30 }\n',
    "ctx-del-name": 'label context "hostname" { delete }\n',
    "ctx-del-then-empty": 'label context { delete }\nlabel context { }\n',
    "ctx-del-twice": 'label context { delete }\nlabel context { delete }\n',
    "ctx-del-value": 'label context * 1000 { delete }\n',
    "ctx-label-same": 'label context "groupid" { label -> "groupid" }\n',
    "ctx-new-bad": 'label context { new "1a" 1 }\n',
    "ctx-new-dup": 'label context { new "zz" 1 }\nlabel context { new "zz" 2 }\n',
    "ctx-new-sel": 'label context "hostname" { new "x" "y" }\n',
    "ctx-new-then-del": 'label context { new "a" 1 }\nlabel context { delete }\n',
    "ctx-new-two": 'label context { new "a" 1 new "b" 2 }\n',
    "ctx-rename-all": 'label context { label -> "everything" }\n',
    "ctx-revalue-all": 'label context { value -> "v" }\n',
    "ctx-two": 'label context { label -> "aa" value -> "1" }\n',
    "ctx-two-named": 'label context "domainname" { label -> "aa" value -> "1" }\n',
    "ctx-value-same": 'label context "groupid" 1000 { value -> 1000 }\n',
    "dom-bad": '  label domain 0 { delete }\n',
    "dom-del": 'label domain 29 { delete }\n',
    "dom-dyn": 'label domain 511 { delete }\n',
    "dom-label": 'label domain 29 "agent" { label -> "agent2" }\n',
    "dom-move": 'label domain 29 { domain -> 30 }\n',
    "dom-move-same": 'label domain 29 { domain -> 29 }\n',
    "dom-new": 'label domain 29 { new "n" 5 }\n',
    "dom-new-none": 'label domain 77 { new "n" 5 }\n',
    "dom-value": 'label domain 29 * "testing" { value -> "prod" }\n',
    "empty-new-name": 'label context { new "" 1 }\n',
    "indom-del": 'label indom 29.1 { delete }\n',
    "indom-inst": 'indom 29.3 { inst 1 -> 11 }\n',
    "indom-move": 'label indom 29.1 { indom -> 29.3 }\n',
    "indom-move-none": 'label indom 29.1 { indom -> 99.3 }\n',
    "indom-new": 'label indom 29.1 { new "a" 1 }\n',
    "indom-new-two": 'label indom 29.1 { new "a" 1 }\nlabel indom 29.1 { new "b" 2 }\n',
    "indom-renum": 'indom 29.3 { indom -> 29.30 }\n',
    "indom-star": 'label indom 29.* { delete }\n',
    "inst-del": 'label instances 29.3 { delete }\n',
    "inst-label": 'label instances 29.3 * "transient" { label -> "kept" }\n',
    "inst-move": 'label instances 29.3 { instances -> 29.1 }\n',
    "inst-name": 'label instances 29.3 "bin-200" { delete }\n',
    "inst-name-none": 'label instances 29.3 "nosuch" { delete }\n',
    "inst-new": 'label instances 29.3 { new "t" 1 }\n',
    "inst-new-one": 'label instances 29.1 2 { new "t" 1 }\n',
    "inst-one": 'label instances 29.3 1 { delete }\n',
    "inst-renum": 'label instances 29.3 1 { instance -> 7 }\n',
    "inst-renum-same": 'label instances 29.3 1 { instance -> 1 }\n',
    "inst-star": 'label instances 29.* * { delete }\n',
    "inst-value": 'label instances 29.3 * "transient" true { value -> false }\n',
    "item-del": 'label item 29.0.64 { delete }\n',
    "item-label": 'label item 29.0.64 "units" { label -> "unit" }\n',
    "item-move": 'label item 29.0.64 { item -> 29.0.65 }\n',
    "item-name": 'label item sample.long.one { new "x" 1 }\n',
    "item-new-star": 'label item 29.0.* { new "x" 1 }\n',
    "item-star": 'label item 29.0.* { item -> 30.0.* }\n',
    "item-star2": 'label item 29.*.* { item -> 30.*.* }\n',
    "item-unknown": 'label item no.such.metric { delete }\n',
    "item-value": 'label item 29.0.64 "unitsystem" "\\"SI\\"" { value -> "imperial" }\n',
    "item-value2": 'label item 29.0.64 * "SI" { value -> "imperial" }\n',
    "json-bad": 'label context { new "a" 1.5 }\n',
    "metric-renum": 'metric 29.0.64 { pmid -> 30.0.64 }\n',
    "metric-renum-clu": 'metric 29.0.64 { pmid -> 29.3.64 }\n',
    "syntax1": 'label { delete }\n',
    "syntax2": 'label context { foo }\n',
    "syntax3": 'label context { label -> }\n',
    "syntax4": 'label context "a" "b" "c" { delete }\n',
    "qa-1338-1": 'LABEL CONTEXT { } # does nothing\nLABEL CONTEXT { delete } # delete all context labels\n',
}
LABEL_ARCHIVES = ["archives/sample-labels", "archives/omnibus_v2", "archives/omnibus_v3"]
# the label rules of PCP's QA tests, on the archives those tests use
QA_LABEL_RULES = {
    "qa-1239-1": ("archives/20180416.10.00", 'LABEL INSTANCES 3.9 {  }\nLABEL INSTANCES 3.9 { DELETE }\nLABEL INSTANCES 60.19 { INSTANCES -> 60.24 }\nLABEL INSTANCES 60.0 1 { DELETE }\nLABEL INSTANCES 60.0 "cpu2" { DELETE }\nLABEL INSTANCES 60.1 1 "device_name" { LABEL -> "new_device_name" }\nLABEL INSTANCES 60.3 1 "interface" "lo" { VALUE -> "new_lo" }\nLABEL INSTANCES 60.0 3 "cpu" 3 { DELETE }\nLABEL INSTANCES 60.10 * * "sda2" { DELETE }\nLABEL INSTANCES 60.24 * "device_name" * { DELETE }\nLABEL INSTANCES 60.32 * * * { DELETE }\n'),
    "qa-1239-2": ("archives/20180416.10.00", 'LABEL INSTANCES 3.* { DELETE }\n'),
    "qa-1239-3": ("archives/20180416.10.00", 'LABEL INSTANCES 3.9 { NEW "new_name" "new_value" }\nLABEL INSTANCES 60.0 1 { NEW "new_name" 60 }\nLABEL INSTANCES 60.10 * { NEW "new_name" true }\nLABEL INSTANCES 60.24 * { NEW "new_name" false }\nLABEL INSTANCES 60.32 * { NEW "new_name" null }\n'),
    "qa-1247-1": ("archives/20180127.08.40", 'INDOM 60.0 { INDOM -> 60.200 }\n'),
    "qa-1247-2": ("archives/20180127.08.40", 'INDOM 60.0 { INDOM -> 200.00 }\n'),
    "qa-1267-1": ("archives/20180127.08.40", 'METRIC 60.0.20 { PMID -> 200.0.20 }\n'),
    "qa-1267-2": ("archives/20180127.08.40", 'METRIC 60.0.20 { PMID -> 60.100.20 }\n'),
    "qa-1267-3": ("archives/20180127.08.40", 'METRIC 60.0.20 { PMID -> 60.0.400 }\n'),
    "qa-1349-1": ("archives/20180416.10.00", 'LABEL ITEM kernel.all.cpu.user { } # does nothing\nLABEL ITEM kernel.all.cpu.user { DELETE } # 60.0.20\nLABEL ITEM 60.0.21 { DELETE }\nLABEL ITEM 60.0.22 { ITEM -> 60.0.127 }\n'),
    "qa-1349-2": ("archives/20180416.10.00", 'LABEL ITEM 60.0.* { ITEM -> 60.1.* }\n'),
    "qa-1349-3": ("archives/20180416.10.00", 'LABEL ITEM 60.*.* { ITEM -> 127.*.* }\n'),
    "qa-1349-4": ("archives/20180416.10.00", 'LABEL ITEM 60.0.20 "device_type" { LABEL -> "new_device_type" }\nLABEL ITEM 60.0.21 * "cpu" { VALUE -> "new_value" }\nLABEL ITEM 60.0.22 { LABEL -> "new_device_type" }\nLABEL ITEM 60.0.23 { VALUE -> "new_value" }\nLABEL ITEM 60.0.34 * { LABEL -> "new_device_type" }\nLABEL ITEM 60.0.35 * * { VALUE -> "new_value" }\n\nLABEL ITEM 60.0.53 { NEW "new_item_label" "new_item_value" }\nLABEL ITEM 60.0.54 { NEW "new_item_number" -123.456e+789 }\nLABEL ITEM 60.0.55 { NEW "new_item_true" true }\nLABEL ITEM 60.0.60 { NEW "new_item_false" false }\nLABEL ITEM 60.0.78 { NEW "new_item_null" null }\n'),
    "qa-1383-1": ("archives/20180416.10.00", 'LABEL INDOM 60.0 {  }\nLABEL INDOM 60.0 { DELETE }\nLABEL INDOM 60.1 { INDOM -> 60.2 }\n'),
    "qa-1383-2": ("archives/20180416.10.00", 'LABEL INDOM 60.0 "device_type" { LABEL -> "new_device_type" }\nLABEL INDOM 60.0 * "cpu" { VALUE -> "new_value" }\nLABEL INDOM 60.1 { LABEL -> "new_device_type" }\nLABEL INDOM 60.3 { VALUE -> "new_value" }\nLABEL INDOM 60.10 * { LABEL -> "new_device_type" }\nLABEL INDOM 60.12 * * { VALUE -> "new_value" }\n\nLABEL INDOM 60.17 { NEW "new_indom_label" "new_indom_value" }\nLABEL INDOM 60.19 { NEW "new_indom_number" -123.456e+789 }\nLABEL INDOM 60.24 { NEW "new_indom_true" true }\nLABEL INDOM 60.31 { NEW "new_indom_false" false }\nLABEL INDOM 60.32 { NEW "new_indom_null" null }\n'),
    "qa-1338-2": ("archives/20180416.10.00", 'LABEL CONTEXT "domainname" { LABEL -> "new_domainname" }\nLABEL CONTEXT * "brolley-t530" { VALUE -> "retired-t530" }\nLABEL CONTEXT { NEW "new_context_label" "new_context_value" }\nLABEL CONTEXT { NEW "new_context_number" -123.456e+789 }\nLABEL CONTEXT { NEW "new_context_true" true }\nLABEL CONTEXT { NEW "new_context_false" false }\nLABEL CONTEXT { NEW "new_context_null" null }\n'),
}
METRIC_BAD = {
    "metric-alone": "metric { delete }\n",
    "pmid-empty": "metric kernel.all.load { pmid -> }\n",
    "name-empty": "metric kernel.all.load { name -> }\n",
    "name-taken": "metric kernel.all.load { name -> hinv.ncpu }\n",
    "type-empty": "metric kernel.all.load { type -> }\n",
    "type-if-empty": "metric kernel.all.load { type if }\n",
    "type-if-to": "metric kernel.all.load { type if FLOAT -> }\n",
    "sem-empty": "metric kernel.all.load { sem -> }\n",
    "units-empty": "metric kernel.all.load { units -> }\n",
    "units-space": "metric kernel.all.load { units -> 1,0,0, }\n",
    "units-time": "metric kernel.all.load { units -> 1,0,0,BYTE, }\n",
    "units-count": "metric kernel.all.load { units -> 1,0,0,BYTE,0, }\n",
    "dup-pmid": "metric kernel.all.load { pmid -> 1.2.3 pmid -> 1.2.4 }\n",
    "delete-then": "metric kernel.all.load { delete sem -> counter }\n",
    "then-delete": "metric kernel.all.load { sem -> counter delete }\n",
    "bad-domain": "metric 0.1.2 { delete }\n",
    "bad-cluster": "metric 60.5000.2 { delete }\n",
    "bad-item": "metric 60.1.2000 { delete }\n",
    "dynamic": "metric 511.1.2 { delete }\n",
    "string-type": "metric pmcd.pmlogger.host { type -> U32 }\n",
    "indom-empty": "metric kernel.all.load { indom -> }\n",
    "twice": "metric kernel.all.load { sem -> counter }\nmetric kernel.all.load { sem -> discrete }\n",
}
# option sets with rules: warnings, check, verbose, quick
RULE_OPTIONS = [["-w"], ["-C"], ["-v"], ["-q"], ["-C", "-v"], ["-w", "-q"]]
CLI = [["-?"], ["-V", "4", "a", "b"], ["-c", "/nonexistent", "a", "b"], ["a"],
       ["-i", "a", "b"], ["nosuch", "out"], ["-Q", "a", "b"]]


def unstable(err):
    """What differs from run to run in libpcp's diagnostics, masked: the
    inode of the output file and the address of a dumped result."""
    err = re.sub(rb"st_ino=\d+", b"st_ino=N", err)
    return re.sub(rb"dump from 0x[0-9a-f]+", b"dump from 0xADDR", err)


def case(ours, inputs, opts, rules, env):
    """Runs both on `inputs` (relative to the corpus) with `opts` and the rules
    text `rules` (or none, or ("dir", path): a directory of rules); returns the
    differences."""
    with tempfile.TemporaryDirectory() as tmp:
        res = {}
        for who, prog in (("ref", REFERENCE), ("ours", ours)):
            d = os.path.join(tmp, who)
            os.makedirs(d)
            args = list(opts)
            if isinstance(rules, tuple):
                args = ["-c", rules[1]] + args
            elif rules is not None:
                with open(os.path.join(d, "rules"), "w") as fh:
                    fh.write(rules)
                args = ["-c", os.path.join(d, "rules")] + args
            out, err, rc = run([prog] + args + list(inputs) + [os.path.join(d, "out")], CORPUS, env)
            err = unstable(err.replace(d.encode() + b"/", b""))
            out = out.replace(d.encode() + b"/", b"")
            files = sorted(f for f in os.listdir(d) if f.startswith("out."))
            contents = {f: open(os.path.join(d, f), "rb").read() for f in files}
            res[who] = [rc, out, err, files, contents, b""]
        if res["ref"][0] < 0:
            # the reference died of a signal: ours must answer
            return ("reference killed", -res["ref"][0], res["ours"][0],
                    (res["ours"][2] or res["ours"][1]).decode(errors="replace").strip())
        # the dumps say what differs where the files do (the same files dump the same)
        if res["ref"][4] != res["ours"][4]:
            for who in ("ref", "ours"):
                if "out.meta" in res[who][3]:
                    res[who][5] = dump(os.path.join(tmp, who, "out"), env)
        return scoreboard.differences(res["ref"], res["ours"])


def inplace_case(ours, rel, opts, rules, env):
    """-i on a copy of the corpus archive `rel`: the files left in the directory
    (names and bytes), stdout, stderr and exit status."""
    import shutil
    with tempfile.TemporaryDirectory() as tmp:
        res = {}
        src = os.path.join(CORPUS, rel)
        for who, prog in (("ref", REFERENCE), ("ours", ours)):
            d = os.path.join(tmp, who)
            os.makedirs(d)
            base = os.path.basename(src)
            for f in os.listdir(os.path.dirname(src)):
                if f.startswith(base + "."):
                    shutil.copy(os.path.join(os.path.dirname(src), f), d)
            args = list(opts)
            if rules is not None:
                with open(os.path.join(tmp, "rules"), "w") as fh:
                    fh.write(rules)
                args = ["-c", os.path.join(tmp, "rules")] + args
            out, err, rc = run([prog] + args + ["-i", os.path.join(d, base)], d, env)
            err = err.replace(d.encode() + b"/", b"")
            files = sorted(os.listdir(d))
            contents = {f: open(os.path.join(d, f), "rb").read() for f in files}
            res[who] = (rc, out, err, files, contents, b"")
        return scoreboard.differences(res["ref"], res["ours"])


def cli_case(ours, args, env):
    """A command line alone: stdout, stderr and exit status."""
    with tempfile.TemporaryDirectory() as tmp:
        r = run([REFERENCE] + args, tmp, env)
        o = run([ours] + args, tmp, env)
    r = (r[2], r[0], r[1].replace(b"/usr/lib/pcp/bin/", b""), [], {}, b"")
    o = (o[2], o[0], o[1], [], {}, b"")
    return scoreboard.differences(r, o)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", default=os.path.join(ROOT, "target/release/pmlogrewrite"))
    ap.add_argument("--out", default=os.path.join(ROOT, "conformance-out"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    if not os.path.exists(REFERENCE) and scoreboard.missing_reference("pmlogrewrite") is not None:
        return scoreboard.missing_reference("pmlogrewrite")
    missing = scoreboard.missing_reference("pmdumplog")
    if missing is not None:
        return missing
    env = dict(os.environ)
    env["TZ"] = "UTC"
    jobs = []
    for d, base in archives(pcp7=True):
        rel = os.path.relpath(os.path.join(d, base), CORPUS)
        jobs.append((f"copy {rel}", ([rel], [], None)))
        v2 = open(os.path.join(d, base + ".meta"), "rb").read(8)[7:8] == b"\x02" \
            if os.path.exists(os.path.join(d, base + ".meta")) else False
        if v2 and scoreboard.archive_size(d, base) < BIG:
            jobs.append((f"-V 3 {rel}", ([rel], ["-V", "3"], None)))
    for rel in RULE_ARCHIVES:
        for name, text in RULES.items():
            jobs.append((f"rules {name} {rel}", ([rel], [], text)))
        for name, text in RULES_V3.items():
            opts = [] if rel.endswith("v3") else ["-V", "3"]
            jobs.append((f"rules {name} {' '.join(opts)} {rel}", ([rel], opts, text)))
    for name, text in RULES_BAD.items():
        jobs.append((f"bad {name}", (["archives/20041125"], [], text)))
    for name, text in METRIC_RULES.items():
        for rel in ["archives/20041125", "archives/sample-secs", "archives/ok-foo", "archives/omnibus_v3"]:
            jobs.append((f"metric {name} {rel}", ([rel], [], text)))
            jobs.append((f"metric -w -v {name} {rel}", ([rel], ["-w", "-v"], text)))
        jobs.append((f"metric -s {name}", (["archives/20041125"], ["-s"], text)))
    for name, text in INDOM_RULES.items():
        for rel in ["archives/20041125", "archives/ok-foo"]:
            jobs.append((f"indom {name} {rel}", ([rel], [], text)))
            jobs.append((f"indom -w -v {name} {rel}", ([rel], ["-w", "-v"], text)))
    for name, text in TEXT_RULES.items():
        jobs.append((f"text {name}", (["archives/omnibus_v3"], [], text)))
        jobs.append((f"text -w -v {name}", (["archives/omnibus_v3"], ["-w", "-v"], text)))
    for name, text in LABEL_RULES.items():
        for rel in LABEL_ARCHIVES:
            jobs.append((f"label {name} {rel}", ([rel], [], text)))
            jobs.append((f"label -w -v {name} {rel}", ([rel], ["-w", "-v"], text)))
    for name, (rel, text) in QA_LABEL_RULES.items():
        jobs.append((f"label -w -v {name} {rel}", ([rel], ["-w", "-v"], text)))
    for name, text in METRIC_BAD.items():
        jobs.append((f"bad metric {name}", (["archives/20041125"], ["-w"], text)))
    for d, base in archives(pcp7=True):
        rel = os.path.relpath(os.path.join(d, base), CORPUS)
        if scoreboard.archive_size(d, base) < BIG:
            jobs.append((f"shipped {rel}", ([rel], [], SHIPPED)))
    for opts in RULE_OPTIONS:
        for name in ("same-host", "same-tz", "time-zero", "time-big", "empty-global"):
            jobs.append((f"options {' '.join(opts)} {name}", (["archives/20041125"], opts, RULES_BAD[name])))
        jobs.append((f"options {' '.join(opts)} all", (["archives/20041125"], opts, RULES["all"])))
    inplace = []
    for rel in ["archives/20041125", "archives/ok-foo", "archives/omnibus_v3", "archives/multi-xz/20150508.11.44"]:
        inplace.append((f"-i {rel}", (rel, [], None)))
        inplace.append((f"-i rules {rel}", (rel, [], RULES["all"])))
        inplace.append((f"-i bad {rel}", (rel, [], RULES_BAD["hostname-alone"])))
    inplace = [j for j in inplace if a.filter in j[0]]
    jobs = [j for j in jobs if a.filter in j[0]]
    clis = [("cli " + " ".join(c), c) for c in CLI if a.filter in "cli " + " ".join(c)]
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        futs = {ex.submit(case, a.ours, *j[1], env): j[0] for j in jobs}
        futs.update({ex.submit(cli_case, a.ours, c, env): n for n, c in clis})
        futs.update({ex.submit(inplace_case, a.ours, *j[1], env): j[0] for j in inplace})
        results, crashed = [], []
        for f in cf.as_completed(futs):
            name = futs[f]
            try:
                d = f.result()
            except Exception as e:  # a crash or timeout is a difference too
                d = [f"error: {e}"]
            if isinstance(d, tuple):
                _, sig, rc, said = d
                name += f" (reference killed by signal {sig}; ours exit {rc})"
                crashed.append((name, said))
                d = [] if rc >= 0 else [f"ours killed by signal {-rc}"]
            results.append((name, not d, {"diffs": d} if d else None))
    results.sort()
    if crashed:
        print(f"the reference crashed on {len(crashed)} cases; what ours said:")
        for n, said in sorted(crashed):
            print(f"  {n}: {said.splitlines()[0] if said else '(nothing)'}")
    return scoreboard.report("pmlogrewrite", results, a.out, bool(a.filter))


if __name__ == "__main__":
    sys.exit(main())
