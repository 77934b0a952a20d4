#!/usr/bin/env bash
# Makes (once) and prints the base name of one of the benchmarks' archives written
# with PCP's pcp.pmi:
#   wide   the shape pmlogger writes for a busy host (2,000 metrics, half over
#          instance domains of 4 to 64 instances, a sample every 10 s, 196 MB;
#          scripts/make-wide-archive.py), kept under $BENCH_WIDE (/tmp/pcp-bench-wide);
#   churn  a .meta of one domain of processes written again at each change (125 MB;
#          scripts/make-churn-archive.py), kept under $BENCH_CHURN (/tmp/pcp-bench-churn);
#   procs  a host whose processes come and go, as pmlogger records it (v2, 1,000 live
#          processes, 500 replaced at each of 4,000 samples: 2 million names, a 182 MB
#          .meta; made by our library's proc_churn example: pcp.pmi cannot take an
#          instance out of a domain), kept under $BENCH_PROCS (/tmp/pcp-bench-procs).
# Usage: base=$(scripts/bench-archive.sh wide|churn|procs)
set -euo pipefail
cd "$(dirname "$0")/.."
case ${1:-} in
  wide) dir=${BENCH_WIDE:-/tmp/pcp-bench-wide} maker=make-wide-archive.py took="about 30 s";;
  churn) dir=${BENCH_CHURN:-/tmp/pcp-bench-churn} maker=make-churn-archive.py took="about 10 s";;
  procs) dir=${BENCH_PROCS:-/tmp/pcp-bench-procs} maker=proc_churn took="a few seconds";;
  *) echo "usage: $0 wide|churn|procs" >&2; exit 2;;
esac
base=$dir/$1
if [ ! -f "$base.index" ]; then
  mkdir -p "$dir"
  rm -f "$base".*
  if [ "$maker" = proc_churn ]; then
    echo "making the $1 archive with our proc_churn example ($took)" >&2
    cargo build --release -q --workspace --bins --examples
    target/release/examples/proc_churn "$base.tmp" >&2
  else
    echo "making the $1 archive with pcp.pmi ($took)" >&2
    /usr/bin/python3 "scripts/$maker" "$base.tmp" >&2
  fi
  for f in "$base".tmp.*; do mv "$f" "$base.${f##*.tmp.}"; done
fi
echo "$base"
