#!/usr/bin/env bash
# Times pmlogcompress and pmlogdecompress, ours against PCP 7.2's (the chroot
# scripts/install-pcp7.sh makes; PCP 6.0.3 has neither), with the defaults a site
# runs (zstd for files of 50 MB and more, else xz -2 in 10 MiB blocks), on plain
# copies of the wide archive and of the largest corpus archives. Prints both times,
# the ratio, peak memory, and the floor measured in the same run: the same programs
# with the same settings on every core (`zstd -T0`, `xz -T0`) over the same files,
# one after another, and our time over that floor. Checks that 7.2's pmlogdump -a
# of our compressed archive is its dump of the plain one. Best of 3 rounds.
# Usage: scripts/bench-pmlogcompress.sh [archive ...]   (corpus names, or "wide")
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cargo build --release -q --workspace --bins --examples
bin=${CARGO_TARGET_DIR:-$PWD/target}/release
pcp7=${PCP7_ROOT:-/opt/pcp7}
[ -x "$pcp7/usr/bin/pmlogcompress" ] && mountpoint -q "$pcp7/host" ||
  { echo "PCP 7.2 (scripts/install-pcp7.sh) is not installed" >&2; exit 77; }
corpus=/var/lib/pcp/testsuite/archives
[ $# -eq 0 ] && set -- wide 20180416.10.00 bozo-20170904 pcp-pidstat-process-args
tmp=$(mktemp -d /tmp/bench-pmlogcompress.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
best() { sort -n | head -1; }

# a plain copy of archive $1 as $tmp/plain/a.*
plain_copy() {
  rm -rf "$tmp/plain"; mkdir -p "$tmp/plain"
  local src=$corpus/$1
  [ "$1" = wide ] && src=$("$root/scripts/wide-archive.sh")
  for f in "$src".*; do
    local rest=${f#"$src".}
    case $rest in
      *.xz) xz -dc "$f" >"$tmp/plain/a.${rest%.xz}" ;;
      *.zst) zstd -dcq "$f" >"$tmp/plain/a.${rest%.zst}" ;;
      *) cp "$f" "$tmp/plain/a.$rest" ;;
    esac
  done
}
# a fresh copy of the plain archive in $tmp/w
fresh() { rm -rf "$tmp/w"; cp -r "$tmp/plain" "$tmp/w"; sync; }
# seconds and peak KB of "$@" run in $tmp/w
timed() {
  (cd "$tmp/w" && /usr/bin/time -o "$tmp/t" -f '%e %M' "$@" >/dev/null 2>&1) || true
  cat "$tmp/t"
}
ref7() { timed chroot "$pcp7" /bin/sh -c "cd /host$tmp/w && exec $*"; }
# the floor: each file the defaults compress, by its program on every core
floor_pack() {
  (cd "$tmp/w" && /usr/bin/time -o "$tmp/t" -f '%e' sh -c '
    for f in a.*; do
      case $f in *.index) continue;; esac
      s=$(stat -c %s "$f"); [ "$s" -lt 4096 ] && continue
      if [ "$s" -ge 52428800 ]; then zstd -T0 -q -c "$f" >"$f.zst"
      else xz -T0 -2 --block-size=10MiB -c "$f" >"$f.xz"; fi
    done; sync') >/dev/null 2>&1
  cat "$tmp/t"
}
floor_unpack() {
  (cd "$tmp/w" && /usr/bin/time -o "$tmp/t" -f '%e' sh -c '
    for f in a.*; do case $f in
      *.zst) zstd -T0 -dcq "$f" >"${f%.zst}.out";; *.xz) xz -T0 -dc "$f" >"${f%.xz}.out";;
    esac; done; sync') >/dev/null 2>&1
  cat "$tmp/t"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1fx", a / (b > 0 ? b : 0.005) }'; }
over() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / (b > 0 ? b : 0.005) }'; }

printf '%-30s %-10s %8s %8s %7s %8s %9s %13s %s\n' archive job "7.2 s" "ours s" "x 7.2" "floor s" "ours/flr" "KB 7.2/ours" dump
for a in "$@"; do
  plain_copy "$a"
  mb=$(du -sm "$tmp/plain" | cut -f1)
  for job in compress decompress; do
    r7=(); ro=(); rf=(); m7=0; mo=0
    for round in 1 2 3; do
      fresh
      if [ $job = decompress ]; then (cd "$tmp/w" && "$bin/pmlogcompress" a); fi
      set -- $(ref7 "pmlog$job" a); r7+=("$1"); m7=$2
      fresh
      if [ $job = decompress ]; then (cd "$tmp/w" && "$bin/pmlogcompress" a); fi
      set -- $(timed "$bin/pmlog$job" a); ro+=("$1"); mo=$2
      if [ $job = compress ] && [ $round = 1 ]; then
        dump=$(cd "$tmp/w" && "$root/scripts/pcp7" pmlogdump -a a | md5sum)
      fi
      fresh
      if [ $job = compress ]; then rf+=("$(floor_pack)")
      else (cd "$tmp/w" && "$bin/pmlogcompress" a); rf+=("$(floor_unpack)"); fi
    done
    if [ $job = compress ]; then
      same=$( [ "$dump" = "$(cd "$tmp/plain" && "$root/scripts/pcp7" pmlogdump -a a | md5sum)" ] && echo same || echo DIFFER)
    else same=-; fi
    t7=$(printf '%s\n' "${r7[@]}" | best); to=$(printf '%s\n' "${ro[@]}" | best)
    tf=$(printf '%s\n' "${rf[@]}" | best)
    printf '%-30s %-10s %8s %8s %7s %8s %9s %13s %s\n' "$a (${mb} MB)" "$job" "$t7" "$to" \
      "$(ratio "$t7" "$to")" "$tf" "$(over "$to" "$tf")" "$m7/$mo" "$same"
  done
done
