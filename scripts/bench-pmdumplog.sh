#!/usr/bin/env bash
# Times `pmdumplog -a` ours vs the reference, output to /dev/null, on the mid-size xz
# corpus archives, on the wide archive (scripts/wide-archive.sh: 2,000 metrics, as
# pmlogger writes them, 196 MB) and on a synthetic day (one sample a second of 100
# metrics, 205 MB, made by the synth_archive example). Runs alternate between the
# tools, ROUNDS times (default 3), and the best of each is kept (this machine's
# speed drifts); ours runs at every thread count from 1 to the cores the machine
# has (PCPRS_THREADS), so the speed-up per added core shows. Checks the outputs are
# identical (by hash, in separate runs). For an xz archive it also prints how long
# `xz -dc` alone takes on its data volumes: pmdumplog prints the archive's end
# first, and a single-block xz volume must be decoded whole to find it.
# Usage: scripts/bench-pmdumplog.sh [archive ...]   (a corpus name or a path;
#   "giants" for the two largest corpus archives, which take the reference minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p pmdumplog
ours=$PWD/target/release/pmdumplog
dir=/var/lib/pcp/testsuite/archives
rounds=${ROUNDS:-3}
cores=$(nproc)
command -v pmdumplog >/dev/null || { echo "reference pmdumplog not installed" >&2; exit 77; }
[ -c /dev/null ] || { echo "/dev/null is not the null device: timings would include writing a file" >&2; exit 1; }
if [ $# -eq 0 ]; then
  synth=${BENCH_WORK:-/tmp/pcp-bench-dump}/day
  if [ ! -f "$synth.0" ]; then
    mkdir -p "$(dirname "$synth")"
    cargo build --release -q -p archive-format --examples
    "$PWD/target/release/examples/synth_archive" "$synth" 1 100
  fi
  set -- 20201109 bozo-20170904 "$(scripts/wide-archive.sh)" "$synth"
elif [ "$1" = giants ]; then
  set -- 20180416.10.00 pcp-pidstat-process-args
fi
t=$(mktemp)
trap 'rm -f "$t"' EXIT
best() { # the best (wall, peak KB) of a list of "wall KB" lines
  sort -n | head -1
}
timed() { # command... -> "wall KB"
  /usr/bin/time -o "$t" -f '%e %M' "$@" >/dev/null
  cat "$t"
}
for a in "$@"; do
  cd "$dir"
  cat "$a".* >/dev/null 2>&1 || true # the page cache warm for both
  ref_runs=() ; declare -A ours_runs=()
  for r in $(seq "$rounds"); do
    ref_runs+=("$(timed pmdumplog -a "$a")")
    for n in $(seq "$cores"); do
      ours_runs[$n]+="$(PCPRS_THREADS=$n timed "$ours" -a "$a")"$'\n'
    done
  done
  read -r rt rm < <(printf '%s\n' "${ref_runs[@]}" | best)
  rh=$(pmdumplog -a "$a" | sha256sum | cut -d' ' -f1)
  oh=$("$ours" -a "$a" | sha256sum | cut -d' ' -f1)
  same=$([ "$rh" = "$oh" ] && echo identical || echo DIFFERENT)
  line="$(basename "$a"): reference ${rt}s ${rm}KB"
  read -r o1 _ < <(printf '%s' "${ours_runs[1]}" | best)
  for n in $(seq "$cores"); do
    read -r ot om < <(printf '%s' "${ours_runs[$n]}" | best)
    ratio=$(awk -v a="$rt" -v b="$ot" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "inf" }')
    speedup=$(awk -v a="$o1" -v b="$ot" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }')
    line+="; ours on $n core(s) ${ot}s ${om}KB ${ratio}x (x${speedup} of 1 core)"
  done
  xzs=("$a".[0-9]*.xz)
  if [ -e "${xzs[0]}" ]; then
    read -r xt _ < <(for r in $(seq "$rounds"); do timed xz -dc "${xzs[@]}"; done | best)
    line+="; xz -dc of its volumes alone ${xt}s"
  fi
  echo "$line, output $same"
  unset ours_runs
  cd - >/dev/null
done
