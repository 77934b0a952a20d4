#!/usr/bin/env bash
# Times pmlogcheck ours vs the reference (PCP 6.0.3) on the largest QA corpus
# archives (xz- and bzip2-compressed), on uncompressed copies of two of them and on
# a synthetic day (one sample a second of 100 metrics, made by the synth_archive
# example) and on the wide archive (scripts/wide-archive.sh: 2,000 metrics as
# pmlogger writes them, 196 MB); checks both print the same (stderr and exit status), and prints the
# speed ratio and peak memory. Our time on a compressed archive is bounded below by
# decompressing it (pass 0 reads every file whole, as PCP's does): the last column
# says how long `xz -dc` (or bzip2) alone takes on its files.
# Usage: scripts/bench-pmlogcheck.sh [archive ...]   (corpus names or paths)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p pmlogcheck
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
    cargo build --release -q -p archive-format --examples
    "$PWD/target/release/examples/synth_archive" "$synth" 1 100
  fi
  set -- 20180416.10.00 pcp-pidstat-process-args 20130706 bozo-20170904 20201109 \
    "$work/20180416.10.00" "$work/pcp-pidstat-process-args" "$synth" "$(scripts/wide-archive.sh)"
fi
printf '%-48s %9s %9s %8s %9s %9s %s\n' archive "ref s" "ours s" ratio "ref KB" "ours KB" "same / decompress s"
for a in "$@"; do
  cd "$dir"
  /usr/bin/time -o /tmp/plc-t.$$ -f '%e %M' pmlogcheck "$a" >/dev/null 2>/tmp/plc-ref.$$ || true
  r=$(tail -1 /tmp/plc-t.$$)
  /usr/bin/time -o /tmp/plc-t.$$ -f '%e %M' "$ours" "$a" >/dev/null 2>/tmp/plc-ours.$$ || true
  o=$(tail -1 /tmp/plc-t.$$)
  same=$(cmp -s /tmp/plc-ref.$$ /tmp/plc-ours.$$ && echo same || echo DIFFER)
  dz=$( { /usr/bin/time -f '%e' sh -c "for f in $a.*; do case \$f in *.xz) xz -dc \$f;; *.bz2) bzip2 -dc \$f;; *) cat \$f;; esac; done >/dev/null"; } 2>&1 | tail -1)
  set -- $r; rt=$1; rm=$2
  set -- $o; ot=$1; om=$2
  ratio=$(awk -v a="$rt" -v b="$ot" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "inf" }')
  printf '%-48s %9s %9s %8s %9s %9s %s / %s\n' "$(basename "$a")" "$rt" "$ot" "$ratio" "$rm" "$om" "$same" "$dz"
done
rm -f /tmp/plc-ref.$$ /tmp/plc-ours.$$ /tmp/plc-t.$$
