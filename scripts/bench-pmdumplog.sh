#!/usr/bin/env bash
# Times `pmdumplog -a` ours vs the reference on the largest QA corpus archives (output
# to /dev/null), checks the outputs are identical (by hash, in separate runs), and
# prints the speed ratio and peak memory.
# Usage: scripts/bench-pmdumplog.sh [archive ...]   (default: the two giants)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p pmdumplog
ours=$PWD/target/release/pmdumplog
dir=/var/lib/pcp/testsuite/archives
[ $# -gt 0 ] || set -- 20180416.10.00 pcp-pidstat-process-args
command -v pmdumplog >/dev/null || { echo "reference pmdumplog not installed" >&2; exit 77; }
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
