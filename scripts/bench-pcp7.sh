#!/usr/bin/env bash
# Times the jobs of the speed table against both references, PCP 6.0.3 (the host's)
# and PCP 7.2 (scripts/install-pcp7.sh's chroot, through scripts/pcp7), on the
# shapes of archive current PCP writes: a single-block xz volume (bozo-20170904),
# the wide archive plain (scripts/wide-archive.sh), its volume as zstd and as
# multi-block xz (`xz -2 --block-size=10MiB`, as 7.2's pmlogcompress), and an
# archive of 4 xz volumes (20180416.10.00). Each job's floor is measured in the
# same run: reading or decompressing its files the fastest way this machine can
# (every core for multi-block xz and for several volumes). Runs alternate between
# the tools, ROUNDS times (default 3), and the best of each is kept (scripts/bench-lib.sh).
# Prints, per job, the three times, ours as a multiple of each reference's speed, the
# floor and ours over the floor, the peak memory of each, and whether our output is
# 6.0.3's (by hash; 7.2 orders metadata otherwise), or 7.2's lines where 6.0.3
# cannot read the archive. Then ours at each thread count, and each job's work
# bound: decompressing its files and ours on their decompressed copy (one thread,
# the least CPU), spread over the cores with nothing lost (scripts/bench-lib.sh's
# bench_bound), beside its floor.
# Usage: scripts/bench-pcp7.sh            (ROUNDS=N for more rounds)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cargo build --release -q --workspace --bins --examples
bin=$root/target/release
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
find . -maxdepth 1 -type f -exec cat {} + >/dev/null # the page cache warm for every tool
mkdir -p out
BENCH_ON_EXIT='rm -rf "$work/out"'
source "$root/scripts/bench-lib.sh"
[ "$bench_have7" = 1 ] || { echo "PCP 7.2's chroot is not mounted (scripts/install-pcp7.sh)" >&2; exit 77; }
p7=$bench_pcp7

# whether ours prints 6.0.3's output (7.2 orders its metadata otherwise), or where
# 6.0.3 cannot read the archive, 7.2's lines in any order: what stream, and the
# three commands
same_as() {
  local what=$1 c6=$2 c7=$3 co=$4 pick
  if [ "$what" = stdout ]; then pick() { eval "$1" 2>/dev/null; }; else pick() { eval "$1" 2>&1 >/dev/null; }; fi
  if [ "$c6" != - ] && [ "$(pick "$c6" | sha256sum)" = "$(pick "$co" | sha256sum)" ]; then
    echo "6.0.3's"
  elif [ "$(pick "$c7" | sort | sha256sum)" = "$(pick "$co" | sort | sha256sum)" ]; then
    echo "7.2's lines"
  else
    echo DIFFERENT
  fi
}
job() { # name, what to compare, 6.0.3's command, 7.2's, ours, the floor
  local same=-
  [ "$2" = none ] || same=$(same_as "$2" "$3" "$4" "$5")
  bench_job "$1" "$3" "$4" "$5" "$6" "$same"
}
x4=20180416.10.00
# decompressed copies, for the work bounds
bench_plain_copy plain bozo-20170904.* $x4.*
bench_header
job "pmdumplog -a bozo-20170904 (xz, one block)" stdout "pmdumplog -a bozo-20170904" \
  "$p7 pmlogdump -a bozo-20170904" "$bin/pmdumplog -a bozo-20170904" "$bench_xz -dc bozo-20170904.0.xz"
job "pmdumplog -a wide (plain, 196 MB)" stdout "pmdumplog -a $wname" "$p7 pmlogdump -a $wname" \
  "$bin/pmdumplog -a $wname" "$(bench_read_floor "$wname")"
job "pmdumplog -a wide, volume .zst" stdout - "$p7 pmlogdump -a wide-zst" "$bin/pmdumplog -a wide-zst" \
  "$bench_zstd -dc wide-zst.0.zst"
job "pmdumplog -a wide, volume multi-block xz" stdout "pmdumplog -a wide-xzmb" \
  "$p7 pmlogdump -a wide-xzmb" "$bin/pmdumplog -a wide-xzmb" "$bench_xz -dc -T$cores wide-xzmb.0.xz"
job "pmlogcheck $x4 (4 xz volumes)" stderr "pmlogcheck $x4" "$p7 pmlogcheck $x4" "$bin/pmlogcheck $x4" \
  "$(bench_read_floor $x4)"
BENCH_BEFORE='rm -rf out; mkdir out' job "pmlogextract copy of wide" none "pmlogextract $wname out/r6" \
  "$p7 pmlogextract $wname out/r7" "$bin/pmlogextract $wname out/o" "cp $wname.0 $wname.meta $wname.index out/"
job "pmval -t 10 kernel.percpu.cpu.user, $x4" stdout "pmval -z -t 10 -a $x4 kernel.percpu.cpu.user" \
  "$p7 pmval -z -t 10 -a $x4 kernel.percpu.cpu.user" "$bin/pmval -z -t 10 -a $x4 kernel.percpu.cpu.user" \
  "$(bench_read_floor $x4)"
echo
echo "Ours per thread (PCPRS_THREADS), and what 16 cores would do:"
bench_threads "pmdumplog -a wide, multi-block xz" "$bin/pmdumplog -a wide-xzmb"
bench_threads "pmdumplog -a wide, .zst" "$bin/pmdumplog -a wide-zst"
bench_threads "pmlogcheck $x4" "$bin/pmlogcheck $x4"
bench_threads "pmval -t 10, $x4" "$bin/pmval -z -t 10 -a $x4 kernel.percpu.cpu.user"
echo
echo "Each job's work bound:"
bench_bound_header
one="PCPRS_THREADS=1"
bench_bound "pmdumplog -a bozo-20170904 (xz, one block)" "$bench_xz -dc bozo-20170904.0.xz" \
  "$one $bin/pmdumplog -a plain/bozo-20170904"
bench_bound "pmdumplog -a wide, volume .zst" "$bench_zstd -dc wide-zst.0.zst" "$one $bin/pmdumplog -a $wname"
bench_bound "pmdumplog -a wide, volume multi-block xz" "$bench_xz -dc -T1 wide-xzmb.0.xz" \
  "$one $bin/pmdumplog -a $wname"
bench_bound "pmlogcheck $x4 (4 xz volumes)" "for f in $x4.[0-3].xz $x4.meta.xz; do $bench_xz -dc \$f; done" \
  "$one $bin/pmlogcheck plain/$x4"
bench_bound "pmval -t 10 kernel.percpu.cpu.user, $x4" "for f in $x4.[0-3].xz $x4.meta.xz; do $bench_xz -dc \$f; done" \
  "$one $bin/pmval -z -t 10 -a plain/$x4 kernel.percpu.cpu.user"
