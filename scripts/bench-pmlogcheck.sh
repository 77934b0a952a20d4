#!/usr/bin/env bash
# Times pmlogcheck, ours against PCP 6.0.3's and PCP 7.2's (where scripts/
# install-pcp7.sh's chroot is there), on the largest QA corpus archives (xz- and
# bzip2-compressed), on uncompressed copies of two of them, on a synthetic day (one
# sample a second of 100 metrics, made by the synth_archive example) and on the wide
# archive (scripts/wide-archive.sh: 2,000 metrics as pmlogger writes them, 196 MB).
# Checks that ours says what 6.0.3's says (stderr and exit status). Each job's floor
# is measured in the same run: decompressing every file of the archive on every core
# (pass 0 reads every file whole, as PCP's does). Best of ROUNDS (default 3)
# alternating runs (scripts/bench-lib.sh); then ours per thread count (PCPRS_THREADS).
# Usage: scripts/bench-pmlogcheck.sh [archive ...]   (corpus names or paths)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q --workspace --bins --examples
ours=$PWD/target/release/pmlogcheck
dir=/var/lib/pcp/testsuite/archives
work=${BENCH_WORK:-/tmp/pcp-bench-check}
command -v pmlogcheck >/dev/null || { echo "reference pmlogcheck not installed" >&2; exit 77; }
mkdir -p "$work"
if [ $# -eq 0 ]; then
  for a in 20180416.10.00 pcp-pidstat-process-args; do
    if [ ! -f "$work/$a.meta" ]; then
      for f in "$dir/$a".*; do
        n=$(basename "$f"); case "$n" in
          *.xz) xz -dc "$f" > "$work/${n%.xz}";;
          *) cp "$f" "$work/$n";;
        esac
      done
    fi
  done
  synth=$work/day
  if [ ! -f "$synth.0" ]; then
    "$PWD/target/release/examples/synth_archive" "$synth" 1 100
  fi
  set -- 20180416.10.00 pcp-pidstat-process-args 20130706 bozo-20170904 20201109 \
    "$work/20180416.10.00" "$work/pcp-pidstat-process-args" "$synth" "$(scripts/wide-archive.sh)"
fi
source scripts/bench-lib.sh
cd "$dir"
said() { "$@" 2>&1 >/dev/null; echo "exit $?"; }
bench_header
for a in "$@"; do
  cat "$a".* >/dev/null 2>&1 || true
  same=$( [ "$(said pmlogcheck "$a")" = "$(said "$ours" "$a")" ] && echo "6.0.3's" || echo DIFFERENT)
  name="pmlogcheck $(basename "$a")"
  case $a in /*) name+=" (plain)" ;; esac
  bench_job "$name" "pmlogcheck $a" "$bench_pcp7 pmlogcheck $a" "$ours $a" "$(bench_read_floor "$a")" "$same"
done
echo
for a in "$@"; do bench_threads "ours, pmlogcheck $(basename "$a")" "$ours $a"; done
