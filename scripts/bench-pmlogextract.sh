#!/usr/bin/env bash
# pmlogextract speed and peak memory, ours against PCP 6.0.3's and PCP 7.2's (where
# scripts/install-pcp7.sh's chroot is there); our output files must be 6.0.3's byte
# for byte (after the label's pid):
#  1. a one-hour window from the middle of a 7-day synthetic archive (one sample a
#     second, 100 metrics; made by the synth_archive example): the temporal index
#     makes this cost the hour, not the week;
#  2. a merge of two large archives (the two halves of a 2-day synthetic archive);
#  3. on the wide archive (scripts/wide-archive.sh: 2,000 metrics as pmlogger writes
#     them, 196 MB): a full copy, a merge of its two halves, and a copy as a v3
#     archive (-V 3: every record written in the other version's layout).
# The floor of each, measured in the same run, is `cp` of its input files (a job
# that writes every byte once), or of the hour's share of the week. Every run
# starts with no output and no dirty pages (neither tool fsyncs: both leave
# writeback to the kernel). Best of ROUNDS (default 5) alternating runs
# (scripts/bench-lib.sh).
# Usage: [ROUNDS=5] scripts/bench-pmlogextract.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-/tmp/pcp-bench-extract}
mkdir -p "$work"
command -v pmlogextract >/dev/null || { echo "reference PCP not installed" >&2; exit 77; }
cargo build --release -q --workspace --bins --examples
ours=$PWD/target/release/pmlogextract
ex=$PWD/target/release/examples
[ -f "$work/week.0" ] || "$ex/synth_archive" "$work/week" 7 100
[ -f "$work/days.0" ] || "$ex/synth_archive" "$work/days" 2 100
if [ ! -f "$work/half2.0" ]; then
  pmlogextract -T +1d "$work/days" "$work/half1"
  pmlogextract -S +1d "$work/days" "$work/half2"
fi
wide=$(scripts/wide-archive.sh)
if [ ! -f "$work/whalf2.0" ]; then
  pmlogextract -T +1750s "$wide" "$work/whalf1"
  pmlogextract -S +1750s "$wide" "$work/whalf2"
fi
export ROUNDS=${ROUNDS:-5}
BENCH_ON_EXIT='rm -rf "$work/out"'
source scripts/bench-lib.sh
cd "$work"
BENCH_BEFORE='rm -rf out; mkdir out; sync'
same() { # args...: 6.0.3's output files and ours, identical apart from the labels' pid
  local f
  rm -rf out; mkdir out
  pmlogextract "$@" out/r6 && "$ours" "$@" out/o || { echo DIFFERENT; return; }
  for f in out/r6.*; do
    cmp -s -i 12 "$f" "out/o.${f##*.}" || { echo DIFFERENT; return; }
  done
  echo "6.0.3's"
}
job() { # name, the floor, args...
  local name=$1 floor=$2; shift 2
  bench_job "$name" "pmlogextract $* out/r6" "$bench_pcp7 pmlogextract $* out/r7" "$ours $* out/o" \
    "$floor" "$(same "$@")"
}
cat week.* half*.* whalf*.* "$wide".* >/dev/null # the page cache warm for all
bench_header
# an hour of a week: its share of the volume's bytes
hour=$(( $(stat -c %s week.0) / 168 ))
job "1-hour window of a 7-day archive" "head -c $hour week.0 > out/floor" -S +84h -T +1h week
job "merge of two 1-day archives" "cp half1.* half2.* out/" half1 half2
job "wide archive, full copy" "cp $wide.* out/" "$wide"
job "wide archive, merge of its two halves" "cp whalf1.* whalf2.* out/" whalf1 whalf2
job "wide archive, copy as v3 (-V 3)" "cp $wide.* out/" -V 3 "$wide"
