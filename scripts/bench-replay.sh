#!/usr/bin/env bash
# Replay speed, ours against PCP 6.0.3 and PCP 7.2 (where scripts/install-pcp7.sh's
# chroot is there), with 6.0.3's values required:
#  1. interpolation of 100 metrics at 1-minute steps over a synthetic archive of one
#     sample a second for 7 days (made by the synth_archive example), ours
#     (interp_bench example) against libpcp through its Python API (bench-replay.py,
#     each PCP's own python3 and bindings);
#  2. pmval on the largest QA corpus archives;
#  3. pmval -t 1 over the wide archive (scripts/wide-archive.sh: 2,000 metrics as
#     pmlogger writes them, a sample every 10 s, 196 MB), a singular metric and one
#     with instances.
# The floor of each, measured in the same run, is reading and decompressing the
# archive's files on every core. Best of ROUNDS (default 3) alternating runs
# (scripts/bench-lib.sh); then ours per thread count (PCPRS_THREADS) on the xz archives.
# Usage: scripts/bench-replay.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=${1:-/tmp/pcp-bench-replay}
mkdir -p "$work"
command -v pmval >/dev/null || { echo "reference PCP not installed" >&2; exit 77; }
cargo build --release -q --workspace --bins --examples
ex=$PWD/target/release/examples
ours=$PWD/target/release/pmval
[ -f "$work/week.0" ] || "$ex/synth_archive" "$work/week" 7 100
wide=$(scripts/wide-archive.sh)
source scripts/bench-lib.sh
job() { # name, 6.0.3's command, 7.2's, ours, the floor
  bench_job "$1" "$2" "$3" "$4" "$5" "$(bench_same "$2" "$4" all)"
}
cd "$work"
cat week.* >/dev/null # warm the page cache for all
bench_header
py="$root/scripts/bench-replay.py $work/week 60000"
# PCP 7.2's Python bindings may not load under its chroot's Python (a ctypes
# TypeError with Python 3.14): then that row has no 7.2 figure
py7="$bench_pcp7 /usr/bin/python3 $py"
if [ "$bench_have7" = 1 ] && ! eval "$py7" >/dev/null 2>&1; then
  echo "PCP 7.2's Python bindings fail here: no 7.2 figure for the interpolation" >&2
  py7=-
fi
job "interpolate 100 metrics, 7 days at 1 s, 1-minute steps" "/usr/bin/python3 $py" \
  "$py7" "$ex/interp_bench $work/week 60000" "$(bench_read_floor week)"
cd /var/lib/pcp/testsuite/archives
for spec in "20180416.10.00 kernel.percpu.cpu.user" "20180416.10.00 proc.psinfo.utime" \
            "pcp-pidstat-process-args kernel.all.intr"; do
  read -r a m <<<"$spec"
  cat "$a".* >/dev/null
  job "pmval -a $a -t 10 $m" "pmval -a $a -t 10 $m" "$bench_pcp7 pmval -a $a -t 10 $m" \
    "$ours -a $a -t 10 $m" "$(bench_read_floor "$a")"
done
for m in wide.group0.metric0 wide.group0.metric1; do
  job "pmval -a wide -t 1 $m" "pmval -a $wide -t 1 $m" "$bench_pcp7 pmval -a $wide -t 1 $m" \
    "$ours -a $wide -t 1 $m" "$(bench_read_floor "$wide")"
done
echo
for spec in "20180416.10.00 kernel.percpu.cpu.user" "pcp-pidstat-process-args kernel.all.intr"; do
  read -r a m <<<"$spec"
  bench_threads "ours, pmval -a $a -t 10 $m" "$ours -a $a -t 10 $m"
done
