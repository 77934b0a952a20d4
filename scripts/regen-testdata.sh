#!/usr/bin/env bash
# Regenerates testdata/: small archives recorded with the reference pmlogger (v2 and
# v3, from pmcd with the sample agent) and with pcp.pmi, then the reference
# pmdumplog's output for each of them under testdata/golden/<archive>/<case>/
# {cmd,stdout,stderr,status}. The .Z copies need ncompress (compress). Needs the reference installed and pmcd running with
# the sample agent (../shared/reference/start-pmcd.sh --sample, or
# scripts/install-reference.sh then /etc/init.d/pmcd start and the sample Install).
set -euo pipefail
cd "$(dirname "$0")/.."
A=testdata/archives
G=testdata/golden
rm -rf "$A" "$G"
mkdir -p "$A" "$G"

for v in 2 3; do
  /usr/lib/pcp/bin/pmlogger -V $v -c testdata/configs/sample.config -s 12 -l /tmp/pmlogger-regen.log "$A/sample_v$v"
done
/usr/bin/python3 scripts/make-pmi-archive.py "$A/pmi_v2"

# .Z (unix compress) copies for the LZW reader; see testdata/compressed/README
C=testdata/compressed
for f in 0 meta; do compress -c "$A/sample_v2.$f" >"$C/sample_v2.$f.Z"; done
cp "$A/sample_v2.index" "$C/"
compress -b 10 -c "$A/sample_v3.0" >"$C/sample_v3_b10.0.Z"

cases=(
  "-a" "-l" "-L" "-d" "-i" "-I" "-t" "-e" "-h" "-m -r" "-M" "-a -x" "-a -xx" "-a -xxx"
  "-a -z" "-a -Z EST-10" "-s" "-S +0.3 -T +0.5" "ARCH sample.colour sample.event pmi.disk"
  "-a ARCH sample.colour sample.event pmi.disk" "-n ../configs/alt.pmns -d ARCH"
  "-n ../configs/alt.pmns -a ARCH foo" "-v ARCH.index" "-v ARCH.meta"
)
for arch in sample_v2 sample_v3 pmi_v2; do
  n=0
  for c in "${cases[@]}"; do
    d="$G/$arch/$(printf '%02d' $n)"
    mkdir -p "$d"
    # the archive goes last unless the case places it (ARCH)
    case "$c" in *ARCH*) args="${c//ARCH/$arch}" ;; *) args="$c $arch" ;; esac
    echo "$args" > "$d/cmd"
    # shellcheck disable=SC2086
    (cd "$A" && TZ=UTC pmdumplog $args >"../../$d/stdout" 2>"../../$d/stderr"; echo $? >"../../$d/status") || true
    n=$((n + 1))
  done
done
# the compressed copy, read by the reference through its .Z support
d="$G/compressed_Z/00"
mkdir -p "$d"
echo "-a ../compressed/sample_v2" >"$d/cmd"
(cd "$A" && TZ=UTC pmdumplog -a ../compressed/sample_v2 >"../../$d/stdout" 2>"../../$d/stderr"; echo $? >"../../$d/status") || true
# pmval: interpolated and raw replay of the same archives
P=testdata/golden-pmval
rm -rf "$P"
pmval_cases=(
  "-t 0.05 sample.colour" "-t 0.25 sample.bin" "-t 0.1 sample.string.hullo"
  "-t 0.1 sample.double.million" "-t 0.1 -r sample.longlong.million" "-U ARCH sample.colour"
  "-t 0.1 -i red,blue sample.colour" "-t 0.07 -X sample.float.million"
  "-t 0.1 sample.aggregate.hullo" "-z -t 0.3 sample.ulonglong.million"
  "-t 0.5 -S +0.2 -T +0.8 sample.long.one" "-t 1 pmi.disk.bytes" "-t 0.5 pmi.load"
  "-r -t 2 pmi.u32" "-t 1 pmi.name" "-t 1 nosuch.metric"
  "sample.event.records" "-s 3 sample.event.highres_records" "-i bogus sample.event.records"
  "-t 1 sample" "-t 1 sample.colour[red" "-t 1 sample.colour[red]x" "-t 1 sample.colour,red"
  "-t 1 sample.colour[\"red]" "-t 1 -h localhost ARCH/sample.colour"
  "-t 0.5 -T +1h sample.long.one" "-t 0.5 -S -1h sample.long.one"
)
for arch in sample_v2 sample_v3 pmi_v2; do
  n=0
  for c in "${pmval_cases[@]}"; do
    d="$P/$arch/$(printf '%02d' $n)"
    mkdir -p "$d"
    case "$c" in *ARCH*) args="${c//ARCH/$arch}" ;; *) args="-a $arch $c" ;; esac
    echo "$args" > "$d/cmd"
    # shellcheck disable=SC2086
    (cd "$A" && TZ=UTC pmval $args >"../../$d/stdout" 2>"../../$d/stderr"; echo $? >"../../$d/status") || true
    n=$((n + 1))
  done
done
# time specs libpcp parses its own way (arguments separated by |, each may hold
# spaces): the error text of its ctime and interval parsers, getdate's one-letter
# military zones (the T of an ISO date is zone T, UTC+7)
pmval_time_cases=(
  "-t|0.5|-S|@garbage|sample.long.one" "-t|0.5|-S|@Nov 22 25:00|sample.long.one"
  "-t|0.5|-S|@2026-11-22 25:00:00|sample.long.one" "-t|0.5|-S|+5 zz|sample.long.one"
  "-t|0.5|-T|-3 qq|sample.long.one" "-t|0.5|-S|@12:61|sample.long.one"
  "-t|0.5|-S|@2026-11-22T07:27:39|sample.long.one" "-t|0.5|-S|@2023-11-15T05:13:30|pmi.load"
  "-t|0.5|-S|@Nov 22 00:27:39 2026 z|sample.long.one" "-t|0.5|-S|@2026-11-22T00:27:39Z|sample.long.one"
  "-t|0.5|-S|@ 2023-11-14 22:13:40 Z|pmi.load"
  "-t|1.5.3|-s|3|sample.long.one" "-t|2ms|-s|2|sample.long.one" "-t|0x10|-s|2|sample.long.one"
  "-t|1us|sample.long.one" "-t|0.5|-S|+1.5.3|-s|2|sample.long.one"
  "-t|0.5|-S|@9:30:15pm|-s|2|sample.long.one" "-t|0.5|-S|@12:00am|-T|+2|sample.long.one"
)
for arch in sample_v2 sample_v3 pmi_v2; do
  n=0
  for c in "${pmval_time_cases[@]}"; do
    d="$P/$arch/t$(printf '%02d' $n)"
    mkdir -p "$d"
    IFS='|' read -r -a argv <<<"-a|$arch|$c"
    printf '%s\n' "${argv[@]}" > "$d/args"
    echo "${argv[*]}" > "$d/cmd"
    (cd "$A" && TZ=UTC pmval "${argv[@]}" >"../../$d/stdout" 2>"../../$d/stderr"; echo $? >"../../$d/status") || true
    n=$((n + 1))
  done
done
scripts/regen-golden-pmlogextract.sh
scripts/regen-golden-pmlogsummary.sh
echo "testdata regenerated"
