#!/usr/bin/env bash
# The reference pmlogextract's output for the archives in testdata/archives, kept under
# testdata/golden-pmlogextract/<case>/: cmd (OUT stands for the output archive),
# stdout, stderr, status, and the output files with the pid of each label zeroed (the
# writer's pid is the one field that legitimately differs). Needs the reference.
set -euo pipefail
cd "$(dirname "$0")/.."
G=testdata/golden-pmlogextract
rm -rf "$G"
mkdir -p "$G"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cases=(
  "sample_v3 OUT" "sample_v2 OUT" "-V 3 sample_v2 OUT" "-V 2 sample_v3 OUT"
  "-S +0.3 -T +0.6 sample_v3 OUT" "-s 4 sample_v3 OUT" "-s 0 sample_v2 OUT" "-v 3 sample_v3 OUT"
  "-c ../configs/extract.config sample_v3 OUT" "-c ../configs/extract.config sample_v2 OUT"
  "sample_v2 sample_v3 OUT" "-m sample_v2 sample_v3 OUT" "-f sample_v3 sample_v2 OUT"
  "sample_v2 pmi_v2 OUT" "-z sample_v3 OUT" "-Z EST-10 -S +0.2 sample_v3 OUT" "pmi_v2 OUT"
  "-f -x pmi_v2 OUT" "nosuch OUT"
  "-c ../configs/bad-instances.config sample_v3 OUT" "-c ../configs/unclosed.config sample_v2 OUT"
)
n=0
for c in "${cases[@]}"; do
  d="$G/$(printf '%02d' $n)"
  mkdir -p "$d"
  echo "$c" >"$d/cmd"
  rm -f "$tmp"/out.*
  # shellcheck disable=SC2086
  (cd testdata/archives && TZ=UTC pmlogextract ${c//OUT/$tmp/out} >"../../$d/stdout" 2>"../../$d/stderr"; echo $? >"../../$d/status") || true
  sed -i "s|$tmp/out|OUT|g" "$d/stderr" "$d/stdout"
  for f in "$tmp"/out.*; do
    [ -e "$f" ] || continue
    # zero the label's pid (bytes 8..11)
    python3 - "$f" "$d/$(basename "$f")" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
if len(b) >= 12:
    b[8:12] = b"\0\0\0\0"
open(sys.argv[2], "wb").write(bytes(b))
PY
  done
  n=$((n + 1))
done
echo "pmlogextract goldens regenerated"
