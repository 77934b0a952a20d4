#!/usr/bin/env bash
# Makes (once) and prints the base name of the benchmarks' wide archive: the shape
# pmlogger writes for a busy host (2,000 metrics, half over instance domains of 4 to
# 64 instances, a sample every 10 s, 196 MB), written with PCP's pcp.pmi by
# scripts/make-wide-archive.py. Every benchmark script runs on it as well.
# Usage: base=$(scripts/wide-archive.sh)    (kept under $BENCH_WIDE, /tmp/pcp-bench-wide)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BENCH_WIDE:-/tmp/pcp-bench-wide}
base=$dir/wide
if [ ! -f "$base.index" ]; then
  mkdir -p "$dir"
  rm -f "$base".*
  echo "making the wide archive with pcp.pmi (about 30 s)" >&2
  /usr/bin/python3 scripts/make-wide-archive.py "$base.tmp" >&2
  for f in "$base".tmp.*; do mv "$f" "$base.${f##*.tmp.}"; done
fi
echo "$base"
