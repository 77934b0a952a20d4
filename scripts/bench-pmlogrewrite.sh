#!/usr/bin/env bash
# Times pmlogrewrite, ours against PCP 6.0.3's and (where installed, in the chroot
# scripts/install-pcp7.sh makes at /opt/pcp7) PCP 7.2's, on the largest
# archives of the QA corpus, copying each with PCP's shipped rules (-c
# /var/lib/pcp/config/pmlogrewrite, what pmlogger_daily runs every night: 7.2 runs
# its own, as a 7.2 site does); checks
# our output files are PCP 6.0.3's byte for byte, and prints both ratios, peak
# memory, and the floor measured in the same run: decompressing and reading every
# file of the archive and writing as many bytes (`xz -dc`, `bzip2 -dc` or `cat`,
# into a file), and our time over that floor. Best of ROUNDS (default 3) alternating
# runs (scripts/bench-lib.sh).
# Usage: scripts/bench-pmlogrewrite.sh [archive ...]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q --workspace --bins --examples
ours=${CARGO_TARGET_DIR:-$PWD/target}/release/pmlogrewrite
ref=/usr/lib/pcp/bin/pmlogrewrite
rules=/var/lib/pcp/config/pmlogrewrite
dir=/var/lib/pcp/testsuite/archives
[ -x "$ref" ] || { echo "reference pmlogrewrite not installed" >&2; exit 77; }
[ $# -eq 0 ] && set -- 20180416.10.00 pcp-pidstat-process-args bozo-20170904 20130706 20180102
tmp=$(mktemp -d /tmp/bench-pmlogrewrite.XXXXXX)
BENCH_ON_EXIT='rm -rf "$tmp"'
source scripts/bench-lib.sh
cd "$dir"
BENCH_BEFORE='rm -f "$tmp"/*'
same() { # a: our output files are 6.0.3's
  rm -f "$tmp"/*
  "$ref" -c "$rules" "$1" "$tmp/ref" && "$ours" -c "$rules" "$1" "$tmp/ours" || { echo DIFFERENT; return; }
  for f in "$tmp"/ref.*; do
    cmp -s "$f" "$tmp/ours.${f##*/ref.}" || { echo DIFFERENT; return; }
  done
  echo "6.0.3's"
}
bench_header
for a in "$@"; do
  cat "$a".* >/dev/null 2>&1 || true
  # (7.2 with its own rules, as a 7.2 site runs it: the path is given inside a
  # command line, which scripts/pcp7 does not map to the host's)
  floor="for f in $a.*; do case \$f in *.xz) $bench_xz -dc \$f;; *.bz2) bzip2 -dc \$f;; *.gz) gzip -dc \$f;;
    *.zst) $bench_zstd -dc \$f;; *) cat \$f;; esac; done >$tmp/floor; sync -f $tmp/floor"
  bench_job "pmlogrewrite -c (PCP's rules) $a" "$ref -c $rules $a $tmp/ref" \
    "$bench_pcp7 /bin/sh -c 'exec /usr/lib/pcp/bin/pmlogrewrite -c $rules $a /host$tmp/ref7'" \
    "$ours -c $rules $a $tmp/ours" \
    "$floor" "$(same "$a")"
done
