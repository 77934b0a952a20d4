#!/usr/bin/env bash
# What the tools hold of a large .meta, ours vs PCP 6.0.3, on two archives whose
# metadata is one instance domain of processes written again at each change (made
# once by scripts/bench-archive.sh): churn (pcp.pmi: a 125 MB .meta of 1,000 sets of
# 500 to 5,500 instances, a 4 MB data volume) and procs (1,000 live processes, 500
# replaced at each of 4,000 samples: 2 million names, a 182 MB .meta, a 96 MB data
# volume). Prints wall time and peak RSS of `pmdumplog -a` (outputs compared by
# hash), `pmval -s 5` and, ours only, pcp2parquet's export (raw alone, interpolated
# with -t 60, and raw two at once).
# Usage: scripts/bench-metadata.sh [churn|procs]   (both by default)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v pmdumplog >/dev/null || { echo "reference PCP not installed" >&2; exit 77; }
cargo build --release -q -p pmdumplog -p pmval -p pcp2parquet
bin=$PWD/target/release
work=$(mktemp -d /tmp/bench-metadata.XXXXXX)
trap 'rm -rf "$work"' EXIT
t() { /usr/bin/time -o "$work/t" -f '%e s, %M KB' "$@" >/dev/null 2>&1 || true; tail -1 "$work/t"; }
for kind in ${1:-churn procs}; do
  base=$(scripts/bench-archive.sh "$kind")
  case $kind in churn) metric=churn.proc.rss;; *) metric=proc.psinfo.rss;; esac
  echo "== $kind: .meta $(stat -c %s "$base.meta") bytes"
  if [ "$kind" = churn ]; then
    echo "pmdumplog -a: reference $(t pmdumplog -a "$base"); ours $(t "$bin/pmdumplog" -a "$base"); output $(
      [ "$(pmdumplog -a "$base" | sha256sum)" = "$("$bin/pmdumplog" -a "$base" | sha256sum)" ] && echo identical || echo DIFFERENT)"
  else
    # the reference looks each value's instance up through every set of the
    # domain: it takes over ten minutes here, so it is given two
    echo "pmdumplog -a: reference $(t timeout 120 pmdumplog -a "$base") (stopped at 120 s); ours $(t "$bin/pmdumplog" -a "$base")"
  fi
  echo "pmval -s 5 $metric: reference $(t pmval -s 5 -a "$base" "$metric"); ours $(t "$bin/pmval" -s 5 -a "$base" "$metric")"
  echo "pcp2parquet (ours only): $(t "$bin/pcp2parquet" -o "$work/pq" "$base")"
  rm -rf "$work/pq"
  echo "pcp2parquet -t 60 (ours only): $(t "$bin/pcp2parquet" -t 60 -o "$work/pq" "$base")"
  # a second name for the same files: two archives at once share the run's memory
  for f in "$base".*; do ln -sf "$f" "$work/twin.${f##*.}"; done
  echo "pcp2parquet, two at once (-j 2): $(t "$bin/pcp2parquet" -j 2 -o "$work/pq2" "$base" "$work/twin")"
  rm -rf "$work/pq" "$work/pq2" "$work"/twin.*
done
