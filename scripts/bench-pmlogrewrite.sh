#!/usr/bin/env bash
# Times pmlogrewrite, ours against PCP 6.0.3's and (where installed, in the chroot
# ../shared/reference/install-pcp7.sh makes at /opt/pcp7) PCP 7.2's, on the largest
# archives of the QA corpus, copying each with PCP's shipped rules (-c
# /var/lib/pcp/config/pmlogrewrite, what pmlogger_daily runs every night: 7.2 runs
# its own, as a 7.2 site does); checks
# our output files are PCP 6.0.3's byte for byte, and prints both ratios, peak
# memory, and the floor measured in the same run: decompressing and reading every
# file of the archive and writing as many bytes (`xz -dc`, `bzip2 -dc` or `cat`,
# into a file), and our time over that floor. Best of 3 alternating rounds.
# Usage: scripts/bench-pmlogrewrite.sh [archive ...]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p pmlogrewrite
ours=${CARGO_TARGET_DIR:-$PWD/target}/release/pmlogrewrite
ref=/usr/lib/pcp/bin/pmlogrewrite
rules=/var/lib/pcp/config/pmlogrewrite
dir=/var/lib/pcp/testsuite/archives
[ -x "$ref" ] || { echo "reference pmlogrewrite not installed" >&2; exit 77; }
pcp7=${PCP7_ROOT:-/opt/pcp7}
have7=0
if [ -x "$pcp7/usr/lib/pcp/bin/pmlogrewrite" ] && mountpoint -q "$pcp7/host"; then have7=1; fi
[ $# -eq 0 ] && set -- 20180416.10.00 pcp-pidstat-process-args bozo-20170904 20130706 20180102
cd "$dir"
tmp=$(mktemp -d /tmp/bench-pmlogrewrite.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
best() { sort -n | head -1; }
# seconds (wall) and peak KB of a rewrite into $tmp/$1 (removed first)
timed() {
  local tag=$1; shift
  rm -f "$tmp/$tag".*
  /usr/bin/time -o "$tmp/t" -f '%e %M' "$@" "$tmp/$tag" >/dev/null 2>&1 || true
  cat "$tmp/t"
}
floor() {
  local a=$1
  /usr/bin/time -o "$tmp/t" -f '%e' sh -c "for f in $a.*; do case \$f in
    *.xz) xz -dc \$f;; *.bz2) bzip2 -dc \$f;; *.gz) gzip -dc \$f;; *.zst) zstd -dc \$f;; *) cat \$f;; esac; done >$tmp/floor; sync -f $tmp/floor"
  rm -f "$tmp/floor"
  cat "$tmp/t"
}
same() {
  for f in "$tmp"/ref.*; do
    cmp -s "$f" "$tmp/ours.${f##*/ref.}" || { echo DIFFER; return; }
  done
  echo same
}
printf '%-26s %8s %8s %8s %8s %8s %8s %9s %11s %s\n' archive "6.0.3 s" "7.2 s" "ours s" "x 6.0.3" "x 7.2" "floor s" "ours/flr" "KB 6/ours" same
for a in "$@"; do
  r6=(); r7=(); ro=(); rf=(); m6=0; mo=0
  for round in 1 2 3; do
    set -- $(timed ref "$ref" -c "$rules" "$a"); r6+=("$1"); m6=$2
    if [ $have7 = 1 ]; then
      rm -f "$tmp"/ref7.*
      set -- $(/usr/bin/time -o "$tmp/t" -f '%e %M' chroot "$pcp7" /bin/sh -c \
        "cd /host$dir && exec /usr/lib/pcp/bin/pmlogrewrite -c $rules $a /host$tmp/ref7" >/dev/null 2>&1 || true; cat "$tmp/t")
      r7+=("$1")
    fi
    set -- $(timed ours "$ours" -c "$rules" "$a"); ro+=("$1"); mo=$2
    rf+=("$(floor "$a")")
  done
  t6=$(printf '%s\n' "${r6[@]}" | best); to=$(printf '%s\n' "${ro[@]}" | best)
  tf=$(printf '%s\n' "${rf[@]}" | best)
  t7=-; x7=-
  if [ $have7 = 1 ]; then
    t7=$(printf '%s\n' "${r7[@]}" | best)
    x7=$(awk -v a="$t7" -v b="$to" 'BEGIN { printf "%.1fx", a / (b > 0 ? b : 0.005) }')
  fi
  x6=$(awk -v a="$t6" -v b="$to" 'BEGIN { printf "%.1fx", a / (b > 0 ? b : 0.005) }')
  of=$(awk -v a="$to" -v b="$tf" 'BEGIN { printf "%.2fx", a / (b > 0 ? b : 0.005) }')
  printf '%-26s %8s %8s %8s %8s %8s %8s %9s %11s %s\n' "$a" "$t6" "$t7" "$to" "$x6" "$x7" "$tf" "$of" "$m6/$mo" "$(same)"
done
