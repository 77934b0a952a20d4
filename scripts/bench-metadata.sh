#!/usr/bin/env bash
# What the tools hold of a large .meta, ours vs PCP 6.0.3: an archive whose metadata
# is one instance domain of processes written again at each change (made once with
# pcp.pmi by scripts/make-churn-archive.py: a 125 MB .meta of 1,000 sets of 500 to
# 5,500 instances, a 4 MB data volume). Prints wall time and peak RSS of
# `pmdumplog -a` (outputs compared by hash), `pmval -s 5` and, ours only,
# pcp2parquet's export of it.
# Usage: scripts/bench-metadata.sh   (the archive is kept under $BENCH_CHURN,
#   /tmp/pcp-bench-churn)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v pmdumplog >/dev/null || { echo "reference PCP not installed" >&2; exit 77; }
cargo build --release -q -p pmdumplog -p pmval -p pcp2parquet
base=$(scripts/bench-archive.sh churn)
bin=$PWD/target/release
work=$(mktemp -d /tmp/bench-metadata.XXXXXX)
trap 'rm -rf "$work"' EXIT
t() { /usr/bin/time -o "$work/t" -f '%e s, %M KB' "$@" >/dev/null 2>&1 || true; tail -1 "$work/t"; }
echo ".meta: $(stat -c %s "$base.meta") bytes"
echo "pmdumplog -a: reference $(t pmdumplog -a "$base"); ours $(t "$bin/pmdumplog" -a "$base"); output $(
  [ "$(pmdumplog -a "$base" | sha256sum)" = "$("$bin/pmdumplog" -a "$base" | sha256sum)" ] && echo identical || echo DIFFERENT)"
echo "pmval -s 5 churn.proc.rss: reference $(t pmval -s 5 -a "$base" churn.proc.rss); ours $(t "$bin/pmval" -s 5 -a "$base" churn.proc.rss)"
echo "pcp2parquet (ours only): $(t "$bin/pcp2parquet" -o "$work/pq" "$base")"
