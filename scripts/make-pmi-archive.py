#!/usr/bin/env python3
"""Writes a small archive with PCP's pcp.pmi (LOGIMPORT) API: several types, an
instance domain that changes, and text. Usage: make-pmi-archive.py BASE"""
import sys
from pcp import pmi
import cpmapi as c_api

base = sys.argv[1]
log = pmi.pmiLogImport(base)
log.pmiSetHostname("pmi-host")
log.pmiSetTimezone("AEST-10AEDT,M10.1.0,M4.1.0/3")
log.pmiAddMetric("pmi.u32", c_api.PM_ID_NULL, c_api.PM_TYPE_U32, c_api.PM_INDOM_NULL,
                 c_api.PM_SEM_COUNTER, log.pmiUnits(1, 0, 0, c_api.PM_SPACE_KBYTE, 0, 0))
indom = log.pmiInDom(245, 1)
log.pmiAddMetric("pmi.disk.bytes", c_api.PM_ID_NULL, c_api.PM_TYPE_U64, indom,
                 c_api.PM_SEM_COUNTER, log.pmiUnits(1, 0, 0, c_api.PM_SPACE_BYTE, 0, 0))
log.pmiAddMetric("pmi.load", c_api.PM_ID_NULL, c_api.PM_TYPE_DOUBLE, c_api.PM_INDOM_NULL,
                 c_api.PM_SEM_INSTANT, log.pmiUnits(0, 0, 0, 0, 0, 0))
log.pmiAddMetric("pmi.name", c_api.PM_ID_NULL, c_api.PM_TYPE_STRING, c_api.PM_INDOM_NULL,
                 c_api.PM_SEM_DISCRETE, log.pmiUnits(0, 0, 0, 0, 0, 0))
log.pmiAddInstance(indom, "sda", 0)
log.pmiAddInstance(indom, "sdb", 1)
t0 = 1_700_000_000
for i in range(6):
    if i == 3:
        log.pmiAddInstance(indom, "sdc", 2)
    log.pmiPutValue("pmi.u32", None, str(1000 + 37 * i))
    log.pmiPutValue("pmi.disk.bytes", "sda", str(10 ** 10 + 4096 * i))
    log.pmiPutValue("pmi.disk.bytes", "sdb", str(512 * i * i))
    if i >= 3:
        log.pmiPutValue("pmi.disk.bytes", "sdc", str(7 * i))
    log.pmiPutValue("pmi.load", None, str(0.25 * i + 1e-3))
    log.pmiPutValue("pmi.name", None, f"sample-{i}")
    log.pmiWrite(t0 + 10 * i, 250000 * (i % 4))
log.pmiEnd()
