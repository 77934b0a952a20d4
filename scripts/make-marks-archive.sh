#!/usr/bin/env bash
# testdata/archives/marks: one host recorded twice, a minute apart (counters,
# an instant and a string, written with PCP's pcp.pmi), merged by the reference
# pmlogextract, which puts a <mark> between the two recordings; then the reference
# pmdumplog's and pmval's outputs for it under testdata/golden/marks and
# testdata/golden-pmval/marks, so that counters across a <mark> are tested without
# the reference installed. Needs the reference (scripts/install-reference.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
A=testdata/archives
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -f "$A"/marks.*
for part in 0 1; do
  /usr/bin/python3 - "$tmp/part$part" "$part" <<'PY'
import sys
from pcp import pmi
import cpmapi as c_api

base, part = sys.argv[1], int(sys.argv[2])
log = pmi.pmiLogImport(base)
log.pmiSetHostname("marks-host")
log.pmiSetTimezone("UTC")
units = log.pmiUnits(1, 0, 0, c_api.PM_SPACE_BYTE, 0, 0)
indom = log.pmiInDom(245, 2)
log.pmiAddMetric("marks.bytes", c_api.PM_ID_NULL, c_api.PM_TYPE_U64, indom,
                 c_api.PM_SEM_COUNTER, units)
log.pmiAddMetric("marks.count", c_api.PM_ID_NULL, c_api.PM_TYPE_U32, c_api.PM_INDOM_NULL,
                 c_api.PM_SEM_COUNTER, log.pmiUnits(0, 0, 1, 0, 0, c_api.PM_COUNT_ONE))
log.pmiAddMetric("marks.load", c_api.PM_ID_NULL, c_api.PM_TYPE_DOUBLE, c_api.PM_INDOM_NULL,
                 c_api.PM_SEM_INSTANT, log.pmiUnits(0, 0, 0, 0, 0, 0))
log.pmiAddMetric("marks.name", c_api.PM_ID_NULL, c_api.PM_TYPE_STRING, c_api.PM_INDOM_NULL,
                 c_api.PM_SEM_DISCRETE, log.pmiUnits(0, 0, 0, 0, 0, 0))
log.pmiAddInstance(indom, "eth0", 0)
log.pmiAddInstance(indom, "eth1", 1)
t0 = 1_700_000_000 + 100 * part
for i in range(8):
    # the second recording's counters start again lower, as after a restart
    n = i + (0 if part == 0 else -3)
    log.pmiPutValue("marks.bytes", "eth0", str(10 ** 9 + 1500 * (n + 10)))
    log.pmiPutValue("marks.bytes", "eth1", str(64 * (n + 10) ** 2))
    log.pmiPutValue("marks.count", None, str(100 + 7 * (n + 10)))
    log.pmiPutValue("marks.load", None, str(0.5 * i + part))
    log.pmiPutValue("marks.name", None, f"run-{part}")
    log.pmiWrite(t0 + 5 * i, 0)
log.pmiEnd()
PY
done
pmlogextract "$tmp/part0" "$tmp/part1" "$A/marks"

golden() {  # golden DIR ARCHIVE-ARGS-TOOL cases...
  local dir=$1 tool=$2
  shift 2
  rm -rf "$dir"
  local n=0
  for c in "$@"; do
    local d
    d="$dir/$(printf '%02d' $n)"
    mkdir -p "$d"
    echo "$c" >"$d/cmd"
    # shellcheck disable=SC2086
    (cd "$A" && TZ=UTC $tool $c >"../../$d/stdout" 2>"../../$d/stderr"; echo $? >"../../$d/status") || true
    n=$((n + 1))
  done
}
golden testdata/golden/marks pmdumplog "-a marks" "-M marks" "-r marks marks.count" "-S +20 -T +110 marks"
golden testdata/golden-pmval/marks pmval \
  "-a marks -t 5 marks.bytes" "-a marks -t 3 marks.count" "-a marks -t 5 -r marks.count" \
  "-a marks -U marks marks.count" "-a marks -t 7 marks.load" "-a marks -t 10 marks.name" \
  "-a marks -t 2 -S +30 -T +110 marks.bytes"
echo "made $A/marks and its goldens"
