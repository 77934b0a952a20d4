#!/usr/bin/env bash
# Replay speed, ours vs PCP 6.0.3, with identical values required:
#  1. interpolation of 100 metrics at 1-minute steps over a synthetic archive of one
#     sample a second for 7 days (made by the synth_archive example), ours
#     (interp_bench example) vs libpcp through its Python API (bench-replay.py);
#  2. pmval on the largest QA corpus archives;
#  3. pmval -t 1 over the wide archive (scripts/wide-archive.sh: 2,000 metrics as
#     pmlogger writes them, a sample every 10 s, 196 MB), a singular metric and one
#     with instances, against the reference and against reading its files (cat).
# Prints times, peak memory and the ratio. Usage: scripts/bench-replay.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-/tmp/pcp-bench-replay}
mkdir -p "$work"
command -v pmval >/dev/null || { echo "reference PCP not installed" >&2; exit 77; }
cargo build --release -q -p pmval
cargo build --release -q -p archive-format --examples
ex=$PWD/target/release/examples
[ -f "$work/week.0" ] || "$ex/synth_archive" "$work/week" 7 100

timed() { # label, output file, command...
  local label=$1 out=$2; shift 2
  /usr/bin/time -f "%e %M" -o "$work/time.$label" "$@" >"$out"
  cat "$work/time.$label"
}
report() { # name, ref-time-line, ours-time-line, ref-out, ours-out
  local rt rm ot om same ratio
  read -r rt rm <<<"$2"
  read -r ot om <<<"$3"
  same=$(cmp -s "$4" "$5" && echo identical || echo DIFFERENT)
  ratio=$(awk -v a="$rt" -v b="$ot" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "inf" }')
  echo "$1: reference ${rt}s ${rm}KB, ours ${ot}s ${om}KB, ${ratio}x faster, values $same"
}

cat "$work"/week.* >/dev/null # warm the page cache for both
r=$(timed ref "$work/ref.txt" /usr/bin/python3 scripts/bench-replay.py "$work/week" 60000)
o=$(timed ours "$work/ours.txt" "$ex/interp_bench" "$work/week" 60000)
report "interpolate 100 metrics, 7 days at 1 s, 1-minute steps" "$r" "$o" "$work/ref.txt" "$work/ours.txt"

corpus=/var/lib/pcp/testsuite/archives
ours_pmval=$PWD/target/release/pmval
for spec in "20180416.10.00 kernel.percpu.cpu.user" "20180416.10.00 proc.psinfo.utime" \
            "pcp-pidstat-process-args kernel.all.intr"; do
  read -r a m <<<"$spec"
  cat "$corpus/$a".* >/dev/null
  r=$(cd "$corpus" && timed pmval-ref "$work/pmval-ref.txt" pmval -a "$a" -t 10 "$m")
  o=$(cd "$corpus" && timed pmval-ours "$work/pmval-ours.txt" "$ours_pmval" -a "$a" -t 10 "$m")
  report "pmval -a $a -t 10 $m" "$r" "$o" "$work/pmval-ref.txt" "$work/pmval-ours.txt"
done

wide=$(scripts/wide-archive.sh)
best_of3() { # label, output file, command... -> the best "wall KB" of three runs
  local label=$1 out=$2; shift 2
  for _ in 1 2 3; do timed "$label" "$out" "$@"; done | sort -n | head -1
}
read -r cat_t _ < <(best_of3 cat /dev/null cat "$wide".*)
for m in wide.group0.metric0 wide.group0.metric1; do
  r=$(best_of3 pmval-ref "$work/pmval-ref.txt" pmval -a "$wide" -t 1 "$m")
  o=$(best_of3 pmval-ours "$work/pmval-ours.txt" "$ours_pmval" -a "$wide" -t 1 "$m")
  report "pmval -a wide -t 1 $m" "$r" "$o" "$work/pmval-ref.txt" "$work/pmval-ours.txt"
  read -r ot _ <<<"$o"
  echo "  reading the wide archive's files (cat) ${cat_t}s: pmval takes $(awk -v a="$ot" -v b="$cat_t" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "inf" }')x that"
done
