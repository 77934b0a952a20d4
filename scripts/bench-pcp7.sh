#!/usr/bin/env bash
# Times the jobs of the speed table against both references, PCP 6.0.3 (the host's)
# and PCP 7.2 (scripts/install-pcp7.sh's chroot, through scripts/pcp7), on the
# shapes of archive current PCP writes: a single-block xz volume (bozo-20170904),
# the wide archive plain (scripts/wide-archive.sh), its volume as zstd and as
# multi-block xz (`xz -2 --block-size=10MiB`, as 7.2's pmlogcompress), and an
# archive of 4 xz volumes (20180416.10.00). Each job's floor is measured in the
# same run: reading or decompressing its files the fastest way this machine can
# (every core for multi-block xz and for several volumes). Runs alternate between
# the tools, ROUNDS times (default 3), and the best of each is kept. Prints, per job,
# the three times, ours as a multiple of each reference's speed, the floor and ours
# over the floor, the peak memory of 7.2 and ours, and whether our output is
# 6.0.3's (by hash; 7.2 orders metadata otherwise), or 7.2's lines where 6.0.3
# cannot read the archive.
# Usage: scripts/bench-pcp7.sh            (ROUNDS=N for more rounds)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cargo build --release -q -p pmdumplog -p pmlogcheck -p pmlogextract -p pmval
bin=$root/target/release
rounds=${ROUNDS:-3}
cores=$(nproc)
corpus=/var/lib/pcp/testsuite/archives
command -v pmdumplog >/dev/null || { echo "PCP 6.0.3 is not installed (scripts/install-reference.sh)" >&2; exit 77; }
[ -x /opt/pcp7/usr/bin/pmlogdump ] || { echo "PCP 7.2 is not installed (scripts/install-pcp7.sh)" >&2; exit 77; }
work=${BENCH_WORK:-/tmp/pcp-bench-pcp7}
mkdir -p "$work"
wide=$(scripts/wide-archive.sh)
# the wide archive in the shapes 7.2's pmlogcompress writes
for shape in zst xzmb; do
  if [ ! -f "$work/wide-$shape.meta" ]; then
    cp "$wide.meta" "$work/wide-$shape.meta"
    cp "$wide.index" "$work/wide-$shape.index"
    case $shape in
      zst) zstd -q -3 -c "$wide.0" > "$work/wide-$shape.0.zst" ;;
      xzmb) xz -2 --block-size=10MiB -T"$cores" -c "$wide.0" > "$work/wide-$shape.0.xz" ;;
    esac
  fi
done
cp -f "$wide".* "$work/" 2>/dev/null || true
wname=$(basename "$wide")
for f in "$corpus"/bozo-20170904.* "$corpus"/20180416.10.00.*; do
  [ -f "$work/$(basename "$f")" ] || cp "$f" "$work/"
done
cd "$work"
cat ./* >/dev/null # the page cache warm for every tool

t=$(mktemp)
trap 'rm -f "$t"; rm -rf "$work/out"' EXIT
timed() { # command... -> "wall KB"
  if /usr/bin/time -o "$t" -f '%e %M' "$@" >/dev/null 2>&1; then cat "$t"; else echo "fail 0"; fi
}
best() { sort -n | head -1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "fail" || a == "n/a") print "-"; else if (b > 0) printf "%.1fx", a / b; else print "inf" }'; }
par_xz() { # every file decompressed, one per core at a time
  printf '%s\n' "$@" | xargs -P "$cores" -n 1 xz -dc >/dev/null
}
export -f par_xz
export cores

# job name | 6.0.3's command | 7.2's command | ours | the floor | what to compare
jobs=(
  "pmdumplog -a bozo-20170904 (xz, one block)|pmdumplog -a bozo-20170904|$root/scripts/pcp7 pmlogdump -a bozo-20170904|$bin/pmdumplog -a bozo-20170904|xz -dc bozo-20170904.0.xz|stdout"
  "pmdumplog -a wide (plain, 196 MB)|pmdumplog -a $wname|$root/scripts/pcp7 pmlogdump -a $wname|$bin/pmdumplog -a $wname|cat $wname.0 $wname.meta $wname.index|stdout"
  "pmdumplog -a wide, volume .zst|-|$root/scripts/pcp7 pmlogdump -a wide-zst|$bin/pmdumplog -a wide-zst|zstd -dc wide-zst.0.zst|stdout"
  "pmdumplog -a wide, volume multi-block xz|pmdumplog -a wide-xzmb|$root/scripts/pcp7 pmlogdump -a wide-xzmb|$bin/pmdumplog -a wide-xzmb|xz -dc -T$cores wide-xzmb.0.xz|stdout"
  "pmlogcheck 20180416.10.00 (4 xz volumes)|pmlogcheck 20180416.10.00|$root/scripts/pcp7 pmlogcheck 20180416.10.00|$bin/pmlogcheck 20180416.10.00|bash -c par_xz\ 20180416.10.00.0.xz\ 20180416.10.00.1.xz\ 20180416.10.00.2.xz\ 20180416.10.00.3.xz|stderr"
  "pmlogextract copy of wide|pmlogextract $wname out/r6|$root/scripts/pcp7 pmlogextract $wname out/r7|$bin/pmlogextract $wname out/o|cp $wname.0 out/floor.0|none"
  "pmval -t 10 kernel.percpu.cpu.user, 20180416.10.00|pmval -z -t 10 -a 20180416.10.00 kernel.percpu.cpu.user|$root/scripts/pcp7 pmval -z -t 10 -a 20180416.10.00 kernel.percpu.cpu.user|$bin/pmval -z -t 10 -a 20180416.10.00 kernel.percpu.cpu.user|bash -c par_xz\ 20180416.10.00.0.xz\ 20180416.10.00.1.xz\ 20180416.10.00.2.xz\ 20180416.10.00.3.xz|stdout"
)

printf '| job | PCP 6.0.3 | PCP 7.2 | ours | vs 6.0.3 | vs 7.2 | floor | ours / floor | peak KB (7.2 / ours) | output |\n'
printf '|---|---|---|---|---|---|---|---|---|---|\n'
for j in "${jobs[@]}"; do
  IFS='|' read -r name c6 c7 co cf what <<<"$j"
  r6=() r7=() ro=() rf=()
  for _ in $(seq "$rounds"); do
    for k in 6 7 o f; do
      rm -rf out; mkdir -p out
      case $k in
        6) [ "$c6" = - ] || r6+=("$(eval timed $c6)") ;;
        7) r7+=("$(eval timed $c7)") ;;
        o) ro+=("$(eval timed $co)") ;;
        f) rf+=("$(eval timed $cf)") ;;
      esac
    done
  done
  read -r t6 _ < <( [ "$c6" = - ] && echo "n/a 0" || printf '%s\n' "${r6[@]}" | best)
  read -r t7 m7 < <(printf '%s\n' "${r7[@]}" | best)
  read -r to mo < <(printf '%s\n' "${ro[@]}" | best)
  read -r tf _ < <(printf '%s\n' "${rf[@]}" | best)
  same=-
  if [ "$what" != none ]; then
    # ours is 6.0.3's output (7.2 orders its metadata otherwise); where 6.0.3
    # cannot read the archive, 7.2's lines in any order
    pick() { if [ "$what" = stdout ]; then eval "$1" 2>/dev/null; else eval "$1" 2>&1 >/dev/null; fi; }
    ho=$(pick "$co" | sha256sum)
    if [ "$c6" != - ] && [ "$(pick "$c6" | sha256sum)" = "$ho" ]; then
      same="6.0.3's"
    elif [ "$(pick "$c7" | sort | sha256sum)" = "$(pick "$co" | sort | sha256sum)" ]; then
      same="7.2's lines"
    else
      same=DIFFERENT
    fi
  fi
  printf '| %s | %s | %s s | %s s | %s | %s | %s s | %s | %s / %s | %s |\n' \
    "$name" "$( [ "$t6" = n/a ] && echo n/a || echo "$t6 s")" "$t7" "$to" "$(ratio "$t6" "$to")" \
    "$(ratio "$t7" "$to")" "$tf" "$(awk -v a="$to" -v b="$tf" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')" \
    "$m7" "$mo" "$same"
done
