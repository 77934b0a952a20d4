#!/usr/bin/env bash
# The reference pmlogsummary's output for the archives in testdata/archives, kept
# under testdata/golden-pmlogsummary/<archive>/<case>/: cmd (the arguments), stdout,
# stderr, status. Needs the reference installed.
set -euo pipefail
cd "$(dirname "$0")/.."
A=testdata/archives
G=testdata/golden-pmlogsummary
rm -rf "$G"
cases=(
  "ARCH" "-a ARCH" "-a -i -I ARCH" "-B 3 -y ARCH" "-s -H ARCH" "-x -F -H ARCH"
  "-f -a -p 5 ARCH" "-l -z ARCH" "-Z EST-10 -l -i -I ARCH" "-v -a ARCH"
  "-a -S +0.2 -T +0.8 ARCH" "-b -B 2 -s ARCH" "-a ARCH sample pmi"
  "ARCH sample.colour[red,nosuch] nosuch.metric bad[ sample.bin[bin-100]"
)
for arch in sample_v2 sample_v3 pmi_v2 marks; do
  n=0
  for c in "${cases[@]}"; do
    d="$G/$arch/$(printf '%02d' $n)"
    mkdir -p "$d"
    args="${c//ARCH/$arch}"
    echo "$args" >"$d/cmd"
    # shellcheck disable=SC2086
    (cd "$A" && TZ=UTC pmlogsummary $args >"../../$d/stdout" 2>"../../$d/stderr"; echo $? >"../../$d/status") || true
    n=$((n + 1))
  done
done
echo "testdata/golden-pmlogsummary regenerated"
