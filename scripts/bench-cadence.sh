#!/usr/bin/env bash
# Cadence: does anything delay a sample? Records 150 samples at 10 Hz with our
# pmlogger and PCP's (from the same pmcd), (a) switching volumes after every
# sample (-v 1: a new file and the old one's fsync each time), and (b) with a
# control client that connects and stalls in the middle of a PDU; then counts the
# missed samples (intervals between consecutive records longer than 1.5 times the
# logging interval; a gap of k intervals misses k - 1 samples). 0 is expected.
#
# Needs the reference (scripts/install-reference.sh) and pmcd with the sample
# agent (scripts/start-pmcd.sh --sample). Usage: scripts/bench-cadence.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q --workspace --bins --examples
OURS=$PWD/target/release/pmlogger
REF=/usr/lib/pcp/bin/pmlogger
[ -x "$REF" ] || { echo "bench-cadence: the reference pmlogger is not installed" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'log mandatory on 100 msec { sample.long.one sample.colour kernel.all.load }\n' >"$work/config"

# missed samples in an archive: gaps over 150 ms between consecutive data records
missed() {
  TZ=UTC pmdumplog "$1" 2>/dev/null | python3 -c '
import re, sys
ts = []
for l in sys.stdin:
    m = re.match(r"^(\d\d):(\d\d):(\d\d\.\d+) +\d+ metrics?", l)
    if m:
        ts.append(int(m[1]) * 3600 + int(m[2]) * 60 + float(m[3]))
ts = ts[1:-1]  # prologue and epilogue
miss = sum(max(0, round((b - a) / 0.1) - 1) for a, b in zip(ts, ts[1:]) if b - a > 0.15)
print(len(ts), miss)'
}

# a control client that sends three bytes of a PDU header and stalls
stall() {
  python3 - "$1" <<'EOF' &
import os, socket, sys, time
pid = sys.argv[1]
tmp = os.popen(". /etc/pcp.conf 2>/dev/null; echo ${PCP_TMP_DIR:-/var/lib/pcp/tmp}").read().strip()
path = os.path.join(tmp, "pmlogger", pid)
for _ in range(100):
    if os.path.exists(path):
        break
    time.sleep(0.05)
port = int(open(path).readline())
s = socket.create_connection(("127.0.0.1", port))
s.recv(64)
s.sendall(b"\0\0\0")
time.sleep(30)
EOF
}

printf '%-10s %-22s %8s %8s\n' logger scenario samples missed
for who in ours reference; do
  prog=$OURS; [ $who = reference ] && prog=$REF
  for scenario in "-v 1" "stalled client"; do
    d="$work/$who-${scenario// /_}"
    mkdir -p "$d"
    if [ "$scenario" = "-v 1" ]; then
      (cd "$d" && "$prog" -c "$work/config" -l log -s 152 -v 1 arch)
    else
      (cd "$d" && "$prog" -c "$work/config" -l log -s 152 arch) &
      lp=$!
      sleep 0.3
      stall "$(pgrep -P $lp pmlogger || echo $lp)"
      sp=$!
      wait $lp
      kill $sp 2>/dev/null || true
    fi
    read -r n m < <(missed "$d/arch")
    printf '%-10s %-22s %8s %8s\n' "$who" "$scenario" "$n" "$m"
  done
done
