#!/usr/bin/env bash
# Times `pmdumplog -a` ours vs the reference on the largest QA corpus archives and on
# a synthetic day (one sample a second of 100 metrics, 205 MB, made by the
# synth_archive example), output to /dev/null; checks the outputs are identical (by
# hash, in separate runs), and prints the speed ratio and peak memory.
# Usage: scripts/bench-pmdumplog.sh [archive ...]
#   (default: the two giants and the synthetic day; an archive is a corpus name or a path)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p pmdumplog
ours=$PWD/target/release/pmdumplog
dir=/var/lib/pcp/testsuite/archives
command -v pmdumplog >/dev/null || { echo "reference pmdumplog not installed" >&2; exit 77; }
[ -c /dev/null ] || { echo "/dev/null is not the null device: timings would include writing a file" >&2; exit 1; }
if [ $# -eq 0 ]; then
  synth=${BENCH_WORK:-/tmp/pcp-bench-dump}/day
  if [ ! -f "$synth.0" ]; then
    mkdir -p "$(dirname "$synth")"
    cargo build --release -q -p archive-format --examples
    "$PWD/target/release/examples/synth_archive" "$synth" 1 100
  fi
  set -- 20180416.10.00 pcp-pidstat-process-args "$synth"
fi
for a in "$@"; do
  cd "$dir"
  # timed writing to /dev/null (a consumer such as sha256sum would be the bottleneck),
  # then compared by hash in separate runs
  r=$( { /usr/bin/time -f '%e %M' pmdumplog -a "$a" >/dev/null; } 2>&1 | tail -1)
  o=$( { /usr/bin/time -f '%e %M' "$ours" -a "$a" >/dev/null; } 2>&1 | tail -1)
  rh=$(pmdumplog -a "$a" | sha256sum | cut -d' ' -f1)
  oh=$("$ours" -a "$a" | sha256sum | cut -d' ' -f1)
  read -r rt rm <<<"$r"
  read -r ot om <<<"$o"
  same=$([ "$rh" = "$oh" ] && echo identical || echo DIFFERENT)
  ratio=$(awk -v a="$rt" -v b="$ot" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "inf" }')
  echo "$a: reference ${rt}s ${rm}KB, ours ${ot}s ${om}KB, ${ratio}x faster, output $same"
  cd - >/dev/null
done
