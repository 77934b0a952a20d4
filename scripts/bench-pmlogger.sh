#!/usr/bin/env bash
# pmlogger overhead, ours (local source) vs the reference pmlogger (from the reference
# pmcd, pmlogger process only): CPU time and peak RSS for the same configuration and
# sample count, and bytes per value of both archives. Needs scripts/start-pmcd.sh.
# Usage: scripts/bench-pmlogger.sh [SAMPLES] [INTERVAL]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100}
t=${2:-0.1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --release -q -p pmlogger -p pmdumplog
ms=$(awk -v t="$t" 'BEGIN { printf "%d", t * 1000 }')
# the same leaf metrics for both: those of our default configuration (the reference's
# Linux agent has more leaves under the same subtrees)
./target/release/pmlogger -t 0.1 -s 3 "$work/probe" 2>/dev/null
names=$(./target/release/pmdumplog -d "$work/probe" | sed -n 's/^PMID: [0-9.]* (\([^ )]*\).*/\1/p' | grep -v '^pmcd\.' | sort)
{ echo "log mandatory on $ms msec {"; echo "$names"; echo "}"; } >"$work/config"
values() { ./target/release/pmdumplog -a "$1" 2>/dev/null | grep -cE '(value|^ +inst )' || true; }
# CPU ticks of pmcd and its Linux agent, which read /proc for the reference
agents() { local t=0; for p in $(pgrep -x pmcd) $(pgrep -x pmdalinux) $(pgrep -x pmdaproc); do
  t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat"))); done; echo "$t"; }
a0=$(agents)
/usr/bin/time -f "%U %S %M" -o "$work/ref.time" /usr/lib/pcp/bin/pmlogger -V 3 -c "$work/config" -s "$n" "$work/ref" 2>/dev/null
a1=$(agents)
/usr/bin/time -f "%U %S %M" -o "$work/ours.time" ./target/release/pmlogger -c "$work/config" -s "$n" "$work/ours" 2>/dev/null
read -r ru rs rm <"$work/ref.time"
read -r ou os om <"$work/ours.time"
rb=$(cat "$work"/ref.0 | wc -c); ob=$(cat "$work"/ours.0 | wc -c)
rv=$(values "$work/ref"); ov=$(values "$work/ours")
awk -v n="$n" -v ru="$ru" -v rs="$rs" -v rm="$rm" -v ou="$ou" -v os="$os" -v om="$om" \
    -v rb="$rb" -v ob="$ob" -v rv="$rv" -v ov="$ov" -v at="$((a1 - a0))" -v hz="$(getconf CLK_TCK)" 'BEGIN {
  rc = (ru + rs) / n * 1000; oc = (ou + os) / n * 1000
  printf "reference: %.3f ms CPU/sample, peak RSS %d KB, %d values, %.1f bytes/value\n", rc, rm, rv, rb / (rv ? rv : 1)
  printf "ours:      %.3f ms CPU/sample, peak RSS %d KB, %d values, %.1f bytes/value\n", oc, om, ov, ob / (ov ? ov : 1)
  if (oc > 0) printf "CPU ratio (ours/reference pmlogger alone): %.2f\n", oc / rc
  ac = at / hz / n * 1000
  printf "reference pmcd + agents reading /proc: %.3f ms CPU/sample; ours/(pmlogger+pmcd+agents): %.2f\n", ac, oc / (rc + ac)
}'
