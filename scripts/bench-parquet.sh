#!/usr/bin/env bash
# pcp2parquet against what a PCP user has for the job (6.0.3, and 7.2 where
# scripts/install-pcp7.sh's chroot is there), on corpus archives and on the wide
# archive (scripts/wide-archive.sh):
#   1. export time against each PCP's `pmrep -a ARCHIVE -o csv` on the same metrics,
#      both ratios, peak RSS, and the floor (reading the archive's files) measured
#      in the same run (scripts/bench-lib.sh);
#   2. the Parquet dataset's size (every metric) against the archive's files as
#      stored, uncompressed, and recompressed with xz -9;
#   3. one typical question, the 95th percentile of the 1-minute load average (of a
#      singular double metric on the wide archive), in
#      DuckDB over the export against pmval over the archive (sorted by awk; both
#      take the first value whose cumulative share reaches 95%, quantile_disc's rule).
# Usage: scripts/bench-parquet.sh [corpus archive or path ...]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q --workspace --bins --examples
ours=$PWD/target/release/pcp2parquet
dir=/var/lib/pcp/testsuite/archives
command -v pmval >/dev/null || { echo "reference PCP not installed" >&2; exit 77; }
py=/usr/bin/python3   # the interpreter with PCP's bindings, for pmrep
work=$(mktemp -d /tmp/bench-parquet.XXXXXX)
BENCH_ON_EXIT='rm -rf "$work"'
source scripts/bench-lib.sh
[ $# -gt 0 ] || set -- 20201109 bozo-20170904 "$(scripts/wide-archive.sh)"
t() { /usr/bin/time -o "$work/t" -f '%e %M' "$@" >/dev/null 2>&1 || true; cat "$work/t" | tail -1; }

# 1. export time against pmrep -o csv of each PCP, with the floor
echo "1. the same metrics as CSV (pmrep) and as Parquet (ours, -j 1)"
bench_header
for a in "$@"; do
  case $a in /*) base=$a;; *) base=$dir/$a;; esac
  if [ "$(basename "$base")" = wide ]; then metrics="wide.group0"; else metrics="kernel mem disk network"; fi
  m=$(for x in $metrics; do pminfo -a "$base" "$x" 2>/dev/null; done | tr '\n' ' ')
  args=""; for x in $metrics; do args+=" -m $x"; done
  BENCH_BEFORE="rm -rf $work/o1" bench_job "$(basename "$a")" "$py /usr/bin/pmrep -a $base -o csv -I $m" \
    "$bench_pcp7 /usr/bin/python3 /usr/bin/pmrep -a $base -o csv -I $m" "$ours -j 1 -o $work/o1 $args $base" \
    "$(bench_read_floor "$base")"
done
echo
echo "2. sizes (every metric) and 3. the 95th percentile of one metric: pmval against DuckDB"
printf '%-26s | %9s %9s %9s %9s | %8s %8s\n' archive "stored MB" "plain MB" "xz MB" "pq MB" "p95 pmval" "p95 duckdb"
for a in "$@"; do
  # a corpus name, or a path (the wide archive of scripts/wide-archive.sh: 2,000
  # metrics as pmlogger writes them; its pmrep run takes the first 100)
  case $a in /*) base=$a;; *) base=$dir/$a;; esac
  if [ "$(basename "$base")" = wide ]; then
    metrics="wide.group0" q_metric=wide.group0.metric2 q_inst="inst_id IS NULL"
  else
    metrics="kernel mem disk network" q_metric=kernel.all.load q_inst="inst_id = 1"
  fi
  # 2. sizes, every metric
  rm -rf "$work/o2"
  "$ours" -o "$work/o2" "$base" 2>/dev/null
  stored=$(cat "$base".* | wc -c)
  plain=0 xzs=0
  for f in "$base".*; do
    case $f in
      *.xz) dec=(xz -dc "$f");;
      *.bz2) dec=(bzip2 -dc "$f");;
      *) dec=(cat "$f");;
    esac
    plain=$((plain + $("${dec[@]}" | wc -c)))
    xzs=$((xzs + $("${dec[@]}" | xz -9 -c | wc -c)))
  done
  pq=$(find "$work/o2" -name '*.parquet' -print0 | xargs -0 cat | wc -c)
  mb() { awk -v n="$1" 'BEGIN { printf "%.2f", n / 1048576 }'; }
  # 3. p95 of the 1-minute load average
  s=$(date +%s.%N)
  p_pmval=$(pmval -z -U "$base" "$q_metric" 2>/dev/null \
    | awk '/^[0-9][0-9]:/ && $2 ~ /^[0-9.]+(E[-+][0-9]+)?$/ { print $2 }' | sort -g \
    | awk '{ v[NR] = $1 } END { if (NR) { k = int(0.95 * NR); if (k < 0.95 * NR) k++; print v[k] } }')
  e=$(date +%s.%N)
  tp=$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.2f", b - a }')
  s=$(date +%s.%N)
  p_duck=$(python3 -c "
import duckdb
r = duckdb.sql(\"SELECT quantile_disc(value, 0.95) FROM read_parquet('$work/o2/values/**/*.parquet', hive_partitioning = true) WHERE metric = '$q_metric' AND $q_inst\").fetchall()[0]
print(r[0])" 2>/dev/null || echo -)
  e=$(date +%s.%N)
  td=$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.2f", b - a }')
  printf '%-26s | %9s %9s %9s %9s | %8s %8s\n' "$(basename "$a")" \
    "$(mb "$stored")" "$(mb "$plain")" "$(mb "$xzs")" "$(mb "$pq")" "${tp}s" "${td}s"
  echo "    p95 of $q_metric ($q_inst): pmval $p_pmval, duckdb $p_duck"
done
