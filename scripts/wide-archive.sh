#!/usr/bin/env bash
# Makes (once) and prints the base name of the benchmarks' wide archive (see
# scripts/bench-archive.sh). Every benchmark script runs on it as well.
# Usage: base=$(scripts/wide-archive.sh)    (kept under $BENCH_WIDE, /tmp/pcp-bench-wide)
exec "$(dirname "$0")/bench-archive.sh" wide
