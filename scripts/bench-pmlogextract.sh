#!/usr/bin/env bash
# pmlogextract speed and peak memory, ours vs PCP 6.0.3, identical output required
# (every output file compared byte for byte after the label's pid):
#  1. a one-hour window from the middle of a 7-day synthetic archive (one sample a
#     second, 100 metrics; made by the synth_archive example): the temporal index
#     makes this cost the hour, not the week;
#  2. a merge of two large archives (the two halves of a 2-day synthetic archive).
# Usage: scripts/bench-pmlogextract.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-/tmp/pcp-bench-extract}
mkdir -p "$work"
command -v pmlogextract >/dev/null || { echo "reference PCP not installed" >&2; exit 77; }
cargo build --release -q -p pmlogextract
cargo build --release -q -p archive-format --examples
ours=$PWD/target/release/pmlogextract
ex=$PWD/target/release/examples
[ -f "$work/week.0" ] || "$ex/synth_archive" "$work/week" 7 100
[ -f "$work/days.0" ] || "$ex/synth_archive" "$work/days" 2 100
if [ ! -f "$work/half2.0" ]; then
  pmlogextract -T +1d "$work/days" "$work/half1"
  pmlogextract -S +1d "$work/days" "$work/half2"
fi

same() { # base1 base2: identical apart from the labels' pid
  local f
  for f in "$1".*; do
    cmp -s -i 12 "$f" "$2.${f##*.}" || { echo DIFFERENT; return; }
  done
  echo identical
}
run() { # label, args...
  local label=$1; shift
  rm -f "$work"/ref.* "$work"/ours.*
  cat "$work"/week.* "$work"/half*.* >/dev/null # warm the page cache for both
  # each run starts with no dirty pages of the other's output (neither fsyncs its
  # output: both leave writeback to the kernel)
  sync
  /usr/bin/time -f "%e %M" -o "$work/time.ref" pmlogextract "$@" "$work/ref"
  sync
  /usr/bin/time -f "%e %M" -o "$work/time.ours" "$ours" "$@" "$work/ours"
  read -r rt rm <"$work/time.ref"
  read -r ot om <"$work/time.ours"
  ratio=$(awk -v a="$rt" -v b="$ot" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "inf" }')
  echo "$label: reference ${rt}s ${rm}KB, ours ${ot}s ${om}KB, ${ratio}x faster, output $(same "$work/ref" "$work/ours")"
}
run "1-hour window of a 7-day archive" -S +84h -T +1h "$work/week"
run "merge of two 1-day archives" "$work/half1" "$work/half2"
