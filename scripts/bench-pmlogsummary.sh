#!/usr/bin/env bash
# Times pmlogsummary, ours against PCP 6.0.3's and (where scripts/install-pcp7.sh's
# chroot is there) PCP 7.2's, on the largest archives of the QA corpus; checks ours
# prints what PCP 6.0.3's prints, and prints both ratios, peak memory, and the floor
# measured in the same run: decompressing and reading every file of the archive on
# every core, and our time over that floor. Best of ROUNDS (default 3) alternating
# runs (scripts/bench-lib.sh).
# Usage: scripts/bench-pmlogsummary.sh [options for both] [-- archive ...]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q --workspace --bins --examples
ours=${CARGO_TARGET_DIR:-$PWD/target}/release/pmlogsummary
dir=/var/lib/pcp/testsuite/archives
command -v pmlogsummary >/dev/null || { echo "reference pmlogsummary not installed" >&2; exit 77; }
opts=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do opts+=("$1"); shift; done
[ $# -gt 0 ] && shift
[ $# -eq 0 ] && set -- 20180416.10.00 pcp-pidstat-process-args bozo-20170904 20180102 20130706
source scripts/bench-lib.sh
cd "$dir"
bench_header
for a in "$@"; do
  cat "$a".* >/dev/null 2>&1 || true
  same=$(bench_same "pmlogsummary ${opts[*]} $a" "$ours ${opts[*]} $a" all)
  bench_job "$(echo pmlogsummary ${opts[*]} $a)" "pmlogsummary ${opts[*]} $a" \
    "$bench_pcp7 pmlogsummary ${opts[*]} $a" "$ours ${opts[*]} $a" "$(bench_read_floor "$a")" "$same"
done
