#!/usr/bin/env bash
# pcp2parquet at fleet scale: a generated farm of HOSTS hosts (default 200), each a
# copy of one archive (ARCHIVE: a corpus name or a path; default 20201109, one xz
# volume of a day's host metrics) under a host directory of its own, relabelled
# with a distinct hostname (pmloglabel -h), as a pmlogger farm is laid out. Times
# the export of the whole tree with -j 1, 2, ... up to the cores, each into a fresh
# directory (best of ROUNDS, default 3), and prints values a second, the speed-up
# over -j 1 on one thread (PCPRS_THREADS=1) and the cores each run kept busy (CPU
# time over wall time).
# The floor, measured in the same run: decompressing every archive's files on every
# core; and what reading every value through our library costs (the read_values
# example, every archive on every core). Peak memory of each run. Then one archive
# alone (best of ROUNDS, at least 11): ours, its floor, and its work bound (decoding
# its files and ours on their decompressed copy, as CPU time, over the cores); and
# what Arrow and DuckDB take to write its rows from memory (scripts/parquet-writers.py).
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
# what reading every value costs through our library, with nothing written (the
# read_values example), every archive, on every core
readall="ls -d $farm/host* | sed 's|\$|/day|' | xargs -P $bench_cores -n 1 $bin/examples/read_values"
# "wall KB cores": the run's time, peak memory, and how many cores it kept busy
farm_timed() {
  local tf s e
  tf=$(mktemp)
  s=$(date +%s%N)
  /usr/bin/time -o "$tf" -f '%M %U %S' bash -c "$1" >/dev/null 2>&1
  e=$(date +%s%N)
  awk -v n=$((e - s)) '{ w = n / 1e9; printf "%.3f %d %.2f\n", w, $1, ($2 + $3) / w }' "$tf"
  rm -f "$tf"
}
best_of() { # command line -> the best of ROUNDS runs of farm_timed
  local runs=()
  for _ in $(seq "$bench_rounds"); do
    [ -z "${before:-}" ] || eval "$before"
    runs+=("$(farm_timed "$1")")
  done
  printf '%s\n' "${runs[@]}" | bench_best
}
before=
read -r tf _ < <(best_of "$floor")
read -r tr _ < <(best_of "$readall")
echo "farm: $hosts hosts of $(basename "$src") ($per_host values each, $values in all)"
echo "floor (decompressing every file on $bench_cores cores): $tf s; reading every value (read_values, on $bench_cores cores): $tr s"
printf '| jobs | time | values a second | speed-up over -j 1 | cores busy | ours / floor | ours / reading | peak MB |\n|---|---|---|---|---|---|---|---|\n'
t1=
before='rm -rf "$out/pq"'
row() { # jobs, the environment -> the table's row (speed-up over the first row)
  read -r t m c < <(best_of "$2 $bin/pcp2parquet -j $1 -o $out/pq $farm")
  [ -n "$t1" ] || t1=$t
  printf '| %s | %s s | %s | %s | %s | %s | %s | %s |\n' "$1${2:+ ($2)}" "$t" \
    "$(awk -v v="$values" -v t="$t" 'BEGIN { printf "%.2f M", v / t / 1e6 }')" \
    "$(bench_over "$t1" "$t")" "$c" "$(bench_over "$t" "$tf")" "$(bench_over "$t" "$tr")" "$(bench_mb "$m")"
}
# one thread a job first (the speed-up per job, with nothing else on the cores),
# then each -j as it runs by default (a job's numbers on a second core)
row 1 PCPRS_THREADS=1
for j in $(seq "$bench_cores"); do row "$j" ""; done
# one archive alone: its floor (its files decompressed on every core), ours, and
# the work bound (decoding its files, and ours on their decompressed copy, both
# as CPU time, spread over the cores with nothing lost)
one=$farm/host$(printf "%0${#hosts}d" 1)
bench_plain_copy "$out/plain" "$one"/*
# (a fraction of a second each: at least 11 rounds, so that one slow round of the
# machine's does not stand for the archive)
bench_rounds=$((bench_rounds > 11 ? bench_rounds : 11))
before=
read -r tf1 _ < <(best_of "$(bench_read_floor "$one"/*)")
before='rm -rf "$out/pq"'
read -r t1 _ < <(best_of "$bin/pcp2parquet -j 1 -o $out/pq $one")
bench_floor_of[one]=$tf1
bench_ours_of[one]=$t1
echo
echo "one archive: ours $t1 s, floor $tf1 s"
bench_bound_header
bench_bound one "for f in $one/*.xz; do $bench_xz -dc \$f; done >/dev/null" \
  "rm -rf $out/pq; PCPRS_THREADS=1 $bin/pcp2parquet -j 1 -o $out/pq $out/plain"
# what established Parquet writers take to write the same archive's rows from
# memory, nothing decoded or parsed (scripts/parquet-writers.py), against its floor
echo
echo "the same rows written from memory (best of $bench_rounds):"
ours=$(du -sb "$out/pq/values" | cut -f1)
python3 scripts/parquet-writers.py "$out/pq/values" "$bench_rounds" |
  while read -r name t bytes; do
    echo "$name: $t s, $(bench_over "$t" "$tf1")x the floor, $bytes bytes (ours: $ours)"
  done
