#!/usr/bin/env bash
# Fuzzes the archive readers with libFuzzer on the stable toolchain: the targets
# of fuzz/ are built with the coverage instrumentation libFuzzer needs (rustc's
# stable -C passes / -C llvm-args, as cargo-fuzz would pass them, without a
# sanitizer), seeded from testdata/archives, and each run for SECONDS (default
# 600) on JOBS targets at a time (default: the number of cores). Crashes are
# written to fuzz/artifacts/TARGET/ and listed at the end; exit status 1 when
# there is any.
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (targets: the [[bin]]s of
# fuzz/Cargo.toml; all of them by default)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] ||
  mapfile -t targets < <(awk '/^\[\[bin\]\]/ { bin = 1 } bin && /^name *=/ { gsub(/"/, "", $3); print $3; bin = 0 }' fuzz/Cargo.toml)
jobs=${JOBS:-$(nproc)}
triple=$(rustc -vV | awk '/^host:/ { print $2 }')
out=${FUZZ_TARGET_DIR:-target/fuzz}
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
# --target keeps the instrumentation out of build scripts
cargo build --release --manifest-path fuzz/Cargo.toml --target "$triple" --target-dir "$out"
bin="$out/$triple/release"

# seeds: each test archive's files, and the archive target's packing of them
seed() {
  local t=$1 dir=fuzz/corpus/$t
  mkdir -p "$dir"
  # the text parsers start from pmlogger's configurations; the PDU decoders from
  # nothing (their headers are found at once)
  if [ "$t" = text ]; then
    cp testdata/configs/* "$dir/" 2>/dev/null || true
    grep -v '^#' testdata/golden-derive/syntax.tsv | cut -f1 >"$dir/derived-expressions"
    cut -f1 testdata/golden-derive/units.tsv >"$dir/units"
    return
  fi
  [ "$t" = pdu ] && return
  # the HTTP reply parser from a reply; the compressed-file scanners from the test
  # volumes compressed as PCP 7 leaves them (xz in blocks, their sizes in the
  # headers or only in the index; zstd)
  if [ "$t" = http ]; then
    printf 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}' >"$dir/reply"
    return
  fi
  if [ "$t" = sized ]; then
    for v in testdata/archives/*.0; do
      name=$(basename "$v")
      xz -T1 --block-size=4KiB -c "$v" >"$dir/$name.unsized.xz"
      xz -T2 --block-size=4KiB -c "$v" >"$dir/$name.sized.xz"
      ! command -v zstd >/dev/null || zstd -qc "$v" >"$dir/$name.zst"
    done
    return
  fi
  for base in testdata/archives/*.meta; do
    base=${base%.meta}
    name=$(basename "$base")
    case $t in
      label) head -c 1024 "$base.0" >"$dir/$name.0"; head -c 1024 "$base.meta" >"$dir/$name.meta" ;;
      size) head -c 16384 "$base.0" >"$dir/$name.0"; cp "$base.index" "$dir/$name.index"
            head -c 16384 "$base.meta" >"$dir/$name.meta" ;;
      meta) tail -c +$((1 + $(od -An -tu4 --endian=big -N4 "$base.meta" | tr -d ' '))) "$base.meta" >"$dir/$name" ;;
      result|events)
        # the first 4 KB after the label (head first: tail reads all it is given)
        off=$(od -An -tu4 --endian=big -N4 "$base.0" | tr -d ' ')
        head -c $((off + 4096)) "$base.0" | tail -c +$((off + 1)) >"$dir/$name" ;;
      archive)
        python3 - "$base" "$dir/$name" <<'PY'
import struct, sys
b, out = sys.argv[1], sys.argv[2]
m, i, d = (open(b + s, "rb").read() for s in (".meta", ".index", ".0"))
open(out, "wb").write(struct.pack(">II", len(m), len(i)) + m + i + d[:65536])
PY
        ;;
    esac
  done
}

log=$out/logs
mkdir -p "$log"
run() {
  local t=$1
  seed "$t"
  mkdir -p "fuzz/artifacts/$t"
  "$bin/$t" "fuzz/corpus/$t" -artifact_prefix="fuzz/artifacts/$t/" -max_total_time="$secs" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 >"$log/$t.log" 2>&1 || true
  local runs
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log/$t.log" | grep -o '[0-9]*$' || echo '?')
  echo "$t: $runs runs in ${secs} s, $(find "fuzz/artifacts/$t" -type f | wc -l) crash(es)"
}
running=0
for t in "${targets[@]}"; do
  run "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait
found=$(find fuzz/artifacts -type f 2>/dev/null | wc -l)
if [ "$found" -gt 0 ]; then
  echo "findings:"
  find fuzz/artifacts -type f
  exit 1
fi
echo "no findings"
