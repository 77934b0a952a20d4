#!/usr/bin/env bash
# pcp2parquet at fleet scale: a generated farm of HOSTS hosts (default 200), each a
# copy of one archive (ARCHIVE: a corpus name or a path; default 20201109, one xz
# volume of a day's host metrics) under a host directory of its own, relabelled
# with a distinct hostname (pmloglabel -h), as a pmlogger farm is laid out. Times
# the export of the whole tree with -j 1, 2, ... up to the cores, each into a fresh
# directory (best of ROUNDS, default 3), and prints values a second and the speed-up
# per job against -j 1. The floor, measured in the same run: decompressing every
# archive's files on every core. Peak memory of each run.
# Usage: [HOSTS=200] [ARCHIVE=20201109] scripts/bench-farm.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q --workspace --bins --examples
bin=$PWD/target/release
hosts=${HOSTS:-200}
src=${ARCHIVE:-20201109}
case $src in /*) ;; *) src=/var/lib/pcp/testsuite/archives/$src ;; esac
farm=${BENCH_WORK:-/tmp/pcp-bench-farm}/$(basename "$src")-$hosts
if [ ! -f "$farm/.done" ]; then
  rm -rf "$farm"
  for i in $(seq -w 1 "$hosts"); do
    d=$farm/host$i
    mkdir -p "$d"
    # plain for pmloglabel (it writes no compressed file, as PCP's), then
    # compressed again as they were (xz -2 in 10 MiB blocks, as pmlogcompress)
    for f in "$src".*; do
      n=$d/day${f#"$src"}
      case $f in *.xz) xz -dc "$f" >"${n%.xz}" ;; *) cp "$f" "$n" ;; esac
    done
    "$bin/pmloglabel" -h "host$i.example.com" "$d/day"
    for f in "$src".*.xz; do
      [ -e "$f" ] || continue
      n=$d/day${f#"$src"}
      xz -2 --block-size=10MiB -T1 "${n%.xz}"
    done
  done
  touch "$farm/.done"
fi
out=$(mktemp -d /tmp/bench-farm-out.XXXXXX)
BENCH_ON_EXIT='rm -rf "$out"'
source scripts/bench-lib.sh
cat "$farm"/*/* >/dev/null # the page cache warm
# the values of one host, counted once from its export
# (by DuckDB, which the conformance suite's engines bring: pip install duckdb)
"$bin/pcp2parquet" -j 1 -o "$out/one" "$farm/host$(printf "%0${#hosts}d" 1)"
per_host=$(python3 -c "import duckdb; print(duckdb.sql(\"SELECT count(*) FROM read_parquet('$out/one/values/**/*.parquet')\").fetchall()[0][0])")
rm -rf "$out/one"
values=$((per_host * hosts))
floor=$(bench_read_floor "$farm"/host*/day.*)
runs=()
for _ in $(seq "$bench_rounds"); do runs+=("$(bench_timed "$floor")"); done
read -r tf _ < <(printf '%s\n' "${runs[@]}" | bench_best)
echo "farm: $hosts hosts of $(basename "$src") ($per_host values each, $values in all); floor (decompressing every file on $bench_cores cores) $tf s"
printf '| jobs | time | values a second | speed-up over -j 1 | ours / floor | peak MB |\n|---|---|---|---|---|---|\n'
t1=
for j in $(seq "$bench_cores"); do
  runs=()
  for _ in $(seq "$bench_rounds"); do
    rm -rf "$out/pq"
    runs+=("$(bench_timed "$bin/pcp2parquet -j $j -o $out/pq $farm")")
  done
  read -r t m < <(printf '%s\n' "${runs[@]}" | bench_best)
  [ -n "$t1" ] || t1=$t
  printf '| %s | %s s | %s | %s | %s | %s |\n' "$j" "$t" \
    "$(awk -v v="$values" -v t="$t" 'BEGIN { printf "%.2f M", v / t / 1e6 }')" \
    "$(bench_over "$t1" "$t")" "$(bench_over "$t" "$tf")" "$(bench_mb "$m")"
done
