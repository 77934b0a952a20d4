#!/usr/bin/env bash
# pmlogextract speed and peak memory, ours vs PCP 6.0.3, identical output required
# (every output file compared byte for byte after the label's pid):
#  1. a one-hour window from the middle of a 7-day synthetic archive (one sample a
#     second, 100 metrics; made by the synth_archive example): the temporal index
#     makes this cost the hour, not the week;
#  2. a merge of two large archives (the two halves of a 2-day synthetic archive);
#  3. on the wide archive (scripts/wide-archive.sh: 2,000 metrics as pmlogger writes
#     them, 196 MB): a full copy, and a merge of its two halves, each against `cp`
#     of the same files (the floor of a job that writes every byte once).
# Usage: [ROUNDS=5] scripts/bench-pmlogextract.sh [WORKDIR]
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
# timed FILE CMD...: runs CMD, writes "seconds peak-KB" to FILE (wall time to the
# millisecond: /usr/bin/time's hundredths are too coarse beside cp's 0.06 s)
timed() {
  local f=$1; shift
  local s e
  s=$(date +%s%N)
  /usr/bin/time -f "%M" -o "$f.m" "$@"
  e=$(date +%s%N)
  echo "$(awk -v n=$((e - s)) 'BEGIN { printf "%.3f", n / 1e9 }') $(tail -n 1 "$f.m")" >"$f"
}
rounds=${ROUNDS:-5}
run() { # label, args...: the best of $ROUNDS (5) runs of each, alternating
  local label=$1; shift
  local r o
  rt=999 ot=999 rm=0 om=0
  for _ in $(seq "$rounds"); do
    rm -f "$work"/ref.* "$work"/ours.*
    cat "$work"/week.* "$work"/half*.* "$@" >/dev/null 2>&1 || true # the page cache warm for both
    # each run starts with no dirty pages of the other's output (neither fsyncs its
    # output: both leave writeback to the kernel)
    sync
    timed "$work/time.ref" pmlogextract "$@" "$work/ref"
    rm -f "$work"/ours.*
    sync
    timed "$work/time.ours" "$ours" "$@" "$work/ours"
    read -r r r_m <"$work/time.ref"
    read -r o o_m <"$work/time.ours"
    rt=$(awk -v a="$rt" -v b="$r" 'BEGIN { print (b < a) ? b : a }')
    ot=$(awk -v a="$ot" -v b="$o" 'BEGIN { print (b < a) ? b : a }')
    rm=$(( r_m > rm ? r_m : rm )); om=$(( o_m > om ? o_m : om ))
  done
  ratio=$(awk -v a="$rt" -v b="$ot" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "inf" }')
  echo "$label: reference ${rt}s ${rm}KB, ours ${ot}s ${om}KB, ${ratio}x faster, output $(same "$work/ref" "$work/ours")"
}
run "1-hour window of a 7-day archive" -S +84h -T +1h "$work/week"
run "merge of two 1-day archives" "$work/half1" "$work/half2"

wide=$(scripts/wide-archive.sh)
if [ ! -f "$work/whalf2.0" ]; then
  pmlogextract -T +1750s "$wide" "$work/whalf1"
  pmlogextract -S +1750s "$wide" "$work/whalf2"
fi
copy_floor() { # label, files...: best of $ROUNDS `cp` of the files, and ours against it
  local label=$1; shift
  local best=999 t
  for _ in $(seq "$rounds"); do
    rm -rf "$work/cp"; mkdir -p "$work/cp"; sync
    timed "$work/time.cp" cp "$@" "$work/cp/"
    read -r t _ <"$work/time.cp"
    best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (b < a) ? b : a }')
  done
  rm -rf "$work/cp"
  echo "$label: cp of the same files ${best}s; ours $(awk -v a="$ot" -v b="$best" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }')x of cp"
}
run "wide archive, full copy" "$wide"
copy_floor "wide archive, full copy" "$wide".*
run "wide archive, merge of its two halves" "$work/whalf1" "$work/whalf2"
copy_floor "wide archive, merge of its two halves" "$work"/whalf1.* "$work"/whalf2.*
