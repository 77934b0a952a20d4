#!/usr/bin/env bash
# Times `pmdumplog -a`, ours against PCP 6.0.3's and PCP 7.2's (pmlogdump, where
# scripts/install-pcp7.sh's chroot is there), output to /dev/null, on the mid-size
# xz corpus archives, on the wide archive (scripts/wide-archive.sh: 2,000 metrics,
# as pmlogger writes them, 196 MB) and on a synthetic day (one sample a second of
# 100 metrics, 205 MB, made by the synth_archive example). Each job's floor is
# measured in the same run: reading and decompressing the archive's files on every
# core. Best of ROUNDS (default 3) alternating runs (scripts/bench-lib.sh). Checks
# that our output is 6.0.3's (by hash, in separate runs). Then ours at every thread
# count from 1 to the cores the machine has (PCPRS_THREADS), so the speed-up per
# added core shows. pmdumplog prints the archive's end first, and a single-block xz
# volume must be decoded whole to find it: its floor is one core's `xz -dc`.
# Usage: scripts/bench-pmdumplog.sh [archive ...]   (a corpus name or a path;
#   "giants" for the two largest corpus archives, which take the references minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q --workspace --bins --examples
ours=$PWD/target/release/pmdumplog
dir=/var/lib/pcp/testsuite/archives
command -v pmdumplog >/dev/null || { echo "reference pmdumplog not installed" >&2; exit 77; }
[ -c /dev/null ] || { echo "/dev/null is not the null device: timings would include writing a file" >&2; exit 1; }
if [ $# -eq 0 ]; then
  synth=${BENCH_WORK:-/tmp/pcp-bench-dump}/day
  if [ ! -f "$synth.0" ]; then
    mkdir -p "$(dirname "$synth")"
    "$PWD/target/release/examples/synth_archive" "$synth" 1 100
  fi
  set -- 20201109 bozo-20170904 "$(scripts/wide-archive.sh)" "$synth"
elif [ "$1" = giants ]; then
  set -- 20180416.10.00 pcp-pidstat-process-args
fi
source scripts/bench-lib.sh
cd "$dir"
bench_header
for a in "$@"; do
  cat "$a".* >/dev/null 2>&1 || true # the page cache warm for all
  same=$(bench_same "pmdumplog -a $a" "$ours -a $a")
  bench_job "pmdumplog -a $(basename "$a")" "pmdumplog -a $a" "$bench_pcp7 pmlogdump -a $a" \
    "$ours -a $a" "$(bench_read_floor "$a")" "$same"
done
echo
for a in "$@"; do bench_threads "ours, pmdumplog -a $(basename "$a")" "$ours -a $a"; done
