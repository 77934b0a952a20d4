#!/usr/bin/env bash
# Makes (once) and prints the base name of one of the benchmarks' archives written
# with PCP's pcp.pmi:
#   wide   the shape pmlogger writes for a busy host (2,000 metrics, half over
#          instance domains of 4 to 64 instances, a sample every 10 s, 196 MB;
#          scripts/make-wide-archive.py), kept under $BENCH_WIDE (/tmp/pcp-bench-wide);
#   churn  a .meta of one domain of processes written again at each change (125 MB;
#          scripts/make-churn-archive.py), kept under $BENCH_CHURN (/tmp/pcp-bench-churn).
# Usage: base=$(scripts/bench-archive.sh wide|churn)
set -euo pipefail
cd "$(dirname "$0")/.."
case ${1:-} in
  wide) dir=${BENCH_WIDE:-/tmp/pcp-bench-wide} maker=make-wide-archive.py took="about 30 s";;
  churn) dir=${BENCH_CHURN:-/tmp/pcp-bench-churn} maker=make-churn-archive.py took="about 10 s";;
  *) echo "usage: $0 wide|churn" >&2; exit 2;;
esac
base=$dir/$1
if [ ! -f "$base.index" ]; then
  mkdir -p "$dir"
  rm -f "$base".*
  echo "making the $1 archive with pcp.pmi ($took)" >&2
  /usr/bin/python3 "scripts/$maker" "$base.tmp" >&2
  for f in "$base".tmp.*; do mv "$f" "$base.${f##*.tmp.}"; done
fi
echo "$base"
