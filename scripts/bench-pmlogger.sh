#!/usr/bin/env bash
# pmlogger overhead, ours against PCP 6.0.3's (and PCP 7.2's in row 1, where
# scripts/install-pcp7.sh's chroot is there), two rows:
#
# 1. pmcd: the loggers record the same ~1,200 metrics of the linux and proc agents
#    (kernel, mem, disk, network, filesys, swap, hinv, proc.psinfo, proc.memory, ...)
#    every second from the same pmcd, at the same time. CPU per sample is measured
#    in the steady state: the CPU each process used between its 6th and its last
#    sample, from /proc/PID/task/*/schedstat in nanoseconds (startup, which parses the configuration and asks
#    pmcd for every descriptor once, is left out). Peak RSS from /proc/PID/status
#    (VmHWM), bytes per value from the data volumes.
# 2. built-in source: ours reading /proc itself against the reference's whole
#    pipeline (pmlogger + pmcd + agents) for the metrics our built-in source has.
#
# Needs the reference (scripts/install-reference.sh) and its pmcd
# (scripts/start-pmcd.sh). Usage: scripts/bench-pmlogger.sh [SAMPLES]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-40}
work=$(mktemp -d)
BENCH_ON_EXIT='rm -rf "$work"'
source scripts/bench-lib.sh
cargo build --release -q --workspace --bins --examples
OURS=$PWD/target/release/pmlogger
REF=/usr/lib/pcp/bin/pmlogger
hz=$(getconf CLK_TCK)

# leaves of the linux and proc agents (derived metrics, domain 511, are left out:
# libpcp evaluates them in the client)
{ echo "log mandatory on 1 sec {"
  pminfo -m kernel mem disk network filesys swap hinv proc.psinfo proc.memory proc.nprocs proc.runq \
    | grep -v 'PMID: 511\.' | awk '{ print $1 }'
  echo "}"; } >"$work/config"
metrics=$(($(wc -l <"$work/config") - 2))

# CPU time in ns of every thread of a process (schedstat: nanosecond resolution)
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ t += $1 } END { printf "%d", t }'; }
hwm() { awk '/VmHWM/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
values() { TZ=UTC pmdumplog -a "$1" 2>/dev/null | grep -c ' value ' || true; }

# all at once, from the same pmcd (PCP 7.2's too, where scripts/install-pcp7.sh's
# chroot is there); CPU from the 6th sample (t=6 s) to the last
(cd "$work" && "$REF" -c config -l ref.log -s "$n" ref) &
rp=$!
if [ "$bench_have7" = 1 ]; then
  (cd "$work" && "$bench_pcp7" /usr/lib/pcp/bin/pmlogger -h 127.0.0.1 -c config -l ref7.log -s "$n" ref7) &
  sp=$!
fi
(cd "$work" && "$OURS" -V 2 -c config -l ours.log -s "$n" ours) &
op=$!
sleep 0.5
pid_of() { pgrep -P "$1" -x pmlogger || echo "$1"; }
rpid=$(pid_of $rp); opid=$(pid_of $op); spid=
[ "$bench_have7" = 1 ] && spid=$(pgrep -f "pmlogger -h 127.0.0.1 -c config -l ref7.log" | head -1)
sleep 5.5
r0=$(cpu_ns "$rpid"); o0=$(cpu_ns "$opid"); s0=0; [ -z "$spid" ] || s0=$(cpu_ns "$spid")
sleep $((n - 8))
r1=$(cpu_ns "$rpid"); o1=$(cpu_ns "$opid"); s1=0; [ -z "$spid" ] || s1=$(cpu_ns "$spid")
rm_=$(hwm "$rpid"); om=$(hwm "$opid"); sm=0; [ -z "$spid" ] || sm=$(hwm "$spid")
wait
span=$((n - 8))
rb=$(wc -c <"$work/ref.0"); ob=$(wc -c <"$work/ours.0"); sb=0
rv=$(values "$work/ref"); ov=$(values "$work/ours"); sv=0
if [ -n "$spid" ]; then sb=$(wc -c <"$work/ref7.0"); sv=$(values "$work/ref7"); fi
awk -v m="$metrics" -v span="$span" -v r="$((r1 - r0))" -v o="$((o1 - o0))" -v s="$((s1 - s0))" \
    -v rm="$rm_" -v om="$om" -v sm="$sm" -v rb="$rb" -v ob="$ob" -v sb="$sb" -v rv="$rv" -v ov="$ov" \
    -v sv="$sv" 'BEGIN {
  rc = r / 1e6 / span; oc = o / 1e6 / span; sc = s / 1e6 / span
  printf "pmcd, %d metrics at 1 s (CPU over %d samples in the steady state):\n", m, span
  printf "  PCP 6.0.3: %.2f ms CPU/sample, peak RSS %d KB, %.1f bytes/value\n", rc, rm, rb / (rv ? rv : 1)
  if (sv) printf "  PCP 7.2:   %.2f ms CPU/sample, peak RSS %d KB, %.1f bytes/value\n", sc, sm, sb / sv
  printf "  ours:      %.2f ms CPU/sample, peak RSS %d KB, %.1f bytes/value\n", oc, om, ob / (ov ? ov : 1)
  if (oc > 0) printf "  CPU: PCP 6.0.3 / ours %.2fx", rc / oc
  if (oc > 0 && sv) printf ", PCP 7.2 / ours %.2fx", sc / oc
  print ""
}'

# row 2: the built-in source against the reference's whole pipeline
"$OURS" -h @builtin -l "$work/probe.log" -t 0.1 -s 3 "$work/probe"
names=$(./target/release/pmdumplog -d "$work/probe" | sed -n 's/^PMID: [0-9.]* (\([^ )]*\).*/\1/p' | grep -v '^pmcd\.' | sort)
{ echo "log mandatory on 50 msec {"; echo "$names"; echo "}"; } >"$work/config2"
agents() { local t=0; for p in $(pgrep -x pmcd) $(pgrep -x pmdalinux) $(pgrep -x pmdaproc); do
  t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat"))); done; echo "$t"; }
k=300
a0=$(agents)
/usr/bin/time -f "%U %S %M" -o "$work/ref2.time" "$REF" -V 3 -c "$work/config2" -l "$work/ref2.log" -s "$k" "$work/ref2"
a1=$(agents)
/usr/bin/time -f "%U %S %M" -o "$work/ours2.time" "$OURS" -h @builtin -c "$work/config2" -l "$work/ours2.log" -s "$k" "$work/ours2"
read -r ru rs _ <"$work/ref2.time"
read -r ou os om2 <"$work/ours2.time"
awk -v k="$k" -v ru="$ru" -v rs="$rs" -v ou="$ou" -v os="$os" -v om="$om2" -v at="$((a1 - a0))" -v hz="$hz" 'BEGIN {
  rc = (ru + rs) / k * 1000; oc = (ou + os) / k * 1000; ac = at / hz / k * 1000
  printf "built-in source, %d samples at 50 ms:\n", k
  printf "  reference pmlogger %.3f + pmcd and agents %.3f ms CPU/sample; ours %.3f (peak RSS %d KB)\n", rc, ac, oc, om
  printf "  ours / the reference pipeline: %.2f\n", oc / (rc + ac)
}'
