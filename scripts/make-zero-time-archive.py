#!/usr/bin/python3
"""Writes an archive whose label, index and records all carry time 0, with PCP's
pcp.pmi (LOGIMPORT) API: pmval takes an end at second 0 for no end at all.
Usage: make-zero-time-archive.py BASE (run with the python3 PCP's modules are for)"""
import sys
from pcp import pmi
import cpmapi as c_api

log = pmi.pmiLogImport(sys.argv[1])
log.pmiSetTimezone("UTC")
log.pmiSetHostname("zerohost")
log.pmiAddMetric("zero.count", log.pmiID(245, 0, 1), c_api.PM_TYPE_U32, c_api.PM_INDOM_NULL,
                 c_api.PM_SEM_COUNTER, log.pmiUnits(0, 0, 1, 0, 0, c_api.PM_COUNT_ONE))
log.pmiAddMetric("zero.level", log.pmiID(245, 0, 2), c_api.PM_TYPE_DOUBLE, c_api.PM_INDOM_NULL,
                 c_api.PM_SEM_INSTANT, log.pmiUnits(0, 0, 0, 0, 0, 0))
for k in range(3):
    log.pmiPutValue("zero.count", "", str(10 * (k + 1)))
    log.pmiPutValue("zero.level", "", str(0.5 * k))
    log.pmiWrite(0, 0)
del log
