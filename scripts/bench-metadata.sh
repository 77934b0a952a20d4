#!/usr/bin/env bash
# What the tools hold of a large .meta, ours against PCP 6.0.3 and PCP 7.2 (where
# scripts/install-pcp7.sh's chroot is there), on two archives whose
# metadata is one instance domain of processes written again at each change (made
# once by scripts/bench-archive.sh): churn (pcp.pmi: a 125 MB .meta of 1,000 sets of
# 500 to 5,500 instances, a 4 MB data volume) and procs (1,000 live processes, 500
# replaced at each of 4,000 samples: 2 million names, a 182 MB .meta, a 96 MB data
# volume). Prints wall time, peak RSS and the floor (reading the archive's files)
# of `pmdumplog -a` and `pmval -s 5` (outputs compared with 6.0.3's by hash; best of
# ROUNDS, scripts/bench-lib.sh) and, ours only, pcp2parquet's export (raw alone,
# interpolated with -t 60, and raw two at once).
# Usage: scripts/bench-metadata.sh [churn|procs]   (both by default)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v pmdumplog >/dev/null || { echo "reference PCP not installed" >&2; exit 77; }
cargo build --release -q --workspace --bins --examples
bin=$PWD/target/release
work=$(mktemp -d /tmp/bench-metadata.XXXXXX)
BENCH_ON_EXIT='rm -rf "$work"'
source scripts/bench-lib.sh
t() { /usr/bin/time -o "$work/t" -f '%e s, %M KB' "$@" >/dev/null 2>&1 || true; tail -1 "$work/t"; }
for kind in ${1:-churn procs}; do
  base=$(scripts/bench-archive.sh "$kind")
  case $kind in churn) metric=churn.proc.rss;; *) metric=proc.psinfo.rss;; esac
  echo "== $kind: .meta $(stat -c %s "$base.meta") bytes"
  bench_header
  floor=$(bench_read_floor "$base")
  if [ "$kind" = churn ]; then
    same=$(bench_same "pmdumplog -a $base" "$bin/pmdumplog -a $base")
    bench_job "pmdumplog -a" "pmdumplog -a $base" "$bench_pcp7 pmlogdump -a $base" "$bin/pmdumplog -a $base" \
      "$floor" "$same"
  else
    # PCP looks each value's instance up through every set of the domain: it takes
    # over ten minutes here, so each reference is given two (its time reads 120 s)
    bench_rounds=1 bench_job "pmdumplog -a (PCP stopped at 120 s)" "timeout 120 pmdumplog -a $base" \
      "timeout 120 $bench_pcp7 pmlogdump -a $base" "$bin/pmdumplog -a $base" "$floor"
  fi
  same=$(bench_same "pmval -s 5 -a $base $metric" "$bin/pmval -s 5 -a $base $metric")
  bench_job "pmval -s 5 $metric" "pmval -s 5 -a $base $metric" "$bench_pcp7 pmval -s 5 -a $base $metric" \
    "$bin/pmval -s 5 -a $base $metric" "$floor" "$same"
  echo "pcp2parquet (ours only): $(t "$bin/pcp2parquet" -o "$work/pq" "$base")"
  rm -rf "$work/pq"
  echo "pcp2parquet -t 60 (ours only): $(t "$bin/pcp2parquet" -t 60 -o "$work/pq" "$base")"
  # a second name for the same files: two archives at once share the run's memory
  for f in "$base".*; do ln -sf "$f" "$work/twin.${f##*.}"; done
  echo "pcp2parquet, two at once (-j 2): $(t "$bin/pcp2parquet" -j 2 -o "$work/pq2" "$base" "$work/twin")"
  rm -rf "$work/pq" "$work/pq2" "$work"/twin.*
done
