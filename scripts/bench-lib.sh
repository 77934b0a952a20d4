# Sourced by the benchmark scripts: one way to time a job against both references.
#
#   source scripts/bench-lib.sh
#   bench_header
#   bench_job NAME C6 C7 OURS FLOOR [SAME]
#
# Each of C6 (PCP 6.0.3's command), C7 (PCP 7.2's, through scripts/pcp7), OURS and
# FLOOR (the best this machine can do for the job: reading or decompressing its files,
# on every core where that helps) is a shell command line, run with eval in the
# current directory, its stdout to /dev/null; `-` where a reference has no such
# tool. C7 counts as `-` where PCP 7.2 is not installed (bench_have7=0). Runs
# alternate between the four, ROUNDS times (default 3), each command twice in a row
# (bench_pair); the best wall time of each is kept, and the CPU time of that run.
# The peak memory is that of all of a job's processes together (bench-tree-peak.py,
# in one more run, untimed: PCP 7.2 decodes a .zst volume in a zstd process beside
# the tool), or the largest one process's peak in the best timed run where that is
# larger. bench_job prints one Markdown row: the three times, ours as a multiple of
# each reference's speed, the floor, ours over the floor, our CPU time (user and system) over the cores (the
# least our work could take spread on every core, so what ours over it leaves is
# waiting), the peak memory of each reference and ours, and SAME (what the script
# found of the outputs; `-` if not given).
# bench_threads NAME OURS prints ours at every thread count from 1 to the cores
# (PCPRS_THREADS), each as a speed-up over one thread. BENCH_BEFORE, where set, is
# run (untimed) before each timed run: removing a job's output, say.
# bench_bound_header, then bench_bound NAME DECODE WORK for a job bench_job timed:
# the least CPU time of DECODE (decompressing the job's files, one after the other)
# and of WORK (ours on their decompressed copy), and the two spread over the cores
# with nothing lost: the least the job can take, as a multiple of its floor beside
# ours.

BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench_rounds=${ROUNDS:-3}
bench_cores=$(nproc)
bench_pcp7="$BENCH_ROOT/scripts/pcp7"
bench_root7=${PCP7_ROOT:-/opt/pcp7}
bench_have7=0
if [ -x "$bench_root7/usr/bin/pmlogdump" ] && mountpoint -q "$bench_root7/host"; then
  bench_have7=1
fi
# the decompressors of the floors: the newest on the machine, PCP 7.2's system's
# (xz 5.8 and its liblzma, as ours; run with its own loader and libraries) where
# that is installed, else the host's
bench_newest() { # tool -> a command line that runs it
  local l=$bench_root7/usr/lib/x86_64-linux-gnu
  local run="$l/ld-linux-x86-64.so.2 --library-path $l $bench_root7/usr/bin/$1"
  if [ -x "$bench_root7/usr/bin/$1" ] && $run --version >/dev/null 2>&1; then
    echo "$run"
  else
    echo "$1"
  fi
}
bench_xz=$(bench_newest xz)
bench_zstd=$(bench_newest zstd)
bench_tfile=$(mktemp)
# each job's floor and our time, by name (for bench_bound)
declare -A bench_floor_of bench_ours_of
# (a script that has its own to do at exit puts it in BENCH_ON_EXIT)
trap 'rm -f "$bench_tfile"; eval "${BENCH_ON_EXIT:-}"' EXIT

bench_timed() { # command line -> "wall KB cpu" (to the millisecond; cpu is user
  # and system seconds); "fail 0 0" where it could not run or was killed (a
  # checker's exit status 1 is its verdict, and timed)
  local s e st=0
  s=$(date +%s%N)
  /usr/bin/time -o "$bench_tfile" -f '%M %U %S' bash -c "$1" >/dev/null 2>&1 || st=$?
  e=$(date +%s%N)
  if [ "$st" -ge 126 ]; then echo "fail 0 0"; return; fi
  echo "$(awk -v n=$((e - s)) 'BEGIN { printf "%.3f", n / 1e9 }') $(grep -E '^[0-9]+ [0-9.]+ [0-9.]+$' "$bench_tfile" | tail -1 | awk '{ printf "%s %.2f", $1, $2 + $3 }')"
}

# a command line, run twice in a row and timed each time (two lines of
# bench_timed). A run that follows another tool's starts on memory that tool
# freed; on a virtual machine that hands freed memory back to its host after a
# pause (free page reporting) each page it then touches is faulted in again, which
# costs a run that writes hundreds of MB of temporary files a third of its time
# (our .zst dump of the wide archive: 0.62 s after PCP 7.2's, 0.37 s after itself).
# The second of the pair starts on the memory the first freed, whichever the tool.
bench_pair() {
  local _
  for _ in 1 2; do
    eval "${BENCH_BEFORE:-}"
    bench_timed "$1"
  done
}

bench_best() { sort -n | head -1; }

bench_ratio() { # a b -> a / b as "12.3x", or "-"
  awk -v a="$1" -v b="$2" 'BEGIN {
    if (a == "-" || a == "fail" || b == "-" || b == "fail") print "-";
    else if (b > 0) printf "%.1fx", a / b; else print "inf" }'
}

bench_over() { # a b -> a / b as "1.23", or "-"
  awk -v a="$1" -v b="$2" 'BEGIN { if (a == "fail" || b == "-" || b <= 0) print "-"; else printf "%.2f", a / b }'
}

# the floor of reading an archive (or any files): every file read, decompressed
# as it is stored (by the newest xz and zstd), several at a time on every core;
# an xz file of several blocks has its blocks decoded on every core, found by its
# index where their headers do not give their sizes (as `xz -T1 --block-size`
# writes them, which xz decodes on one core): the unxz example, liblzma as xz's;
# an argument is a base name (its files) or a file
bench_unxz=$PWD/target/release/examples/unxz
bench_read_floor() {
  local f files=()
  for f in "$@"; do
    if [ -f "$f" ]; then files+=("$f"); else files+=("$f".*); fi
  done
  echo "printf '%s\\n' $(printf '%q ' "${files[@]}") | xargs -P $bench_cores -n 1 sh -c '
    case \$0 in *.xz) $bench_unxz \$0 2>/dev/null || $bench_xz -dc -T$bench_cores \$0;; *.bz2) bzip2 -dc \$0;; *.gz) gzip -dc \$0;;
      *.zst) $bench_zstd -dc \$0;; *) cat \$0;; esac >/dev/null'"
}

# whether OURS prints what 6.0.3's C6 prints, by hash (stdout; with `all`, stdout
# and stderr): "6.0.3's" or DIFFERENT, for bench_job's last column
bench_same() {
  local c6=$1 co=$2 err=/dev/null
  [ "${3:-}" != all ] || err=/dev/stdout
  if [ "$(eval "$c6" 2>"$err" | sha256sum)" = "$(eval "$co" 2>"$err" | sha256sum)" ]; then
    echo "6.0.3's"
  else
    echo DIFFERENT
  fi
}

bench_header() {
  printf '| job | PCP 6.0.3 | PCP 7.2 | ours | vs 6.0.3 | vs 7.2 | floor | ours / floor | our CPU / %s cores | peak MB (6.0.3 / 7.2 / ours) | output |\n' "$bench_cores"
  printf '|---|---|---|---|---|---|---|---|---|---|---|\n'
}

bench_job() { # name c6 c7 ours floor [same]
  local name=$1 c6=$2 c7=$3 co=$4 cf=$5 same=${6:--}
  [ "$bench_have7" = 1 ] || c7=-
  local r6=() r7=() ro=() rf=() _
  for _ in $(seq "$bench_rounds"); do
    [ "$c6" = - ] || mapfile -t -O "${#r6[@]}" r6 < <(bench_pair "$c6")
    [ "$c7" = - ] || mapfile -t -O "${#r7[@]}" r7 < <(bench_pair "$c7")
    mapfile -t -O "${#ro[@]}" ro < <(bench_pair "$co")
    [ "$cf" = - ] || mapfile -t -O "${#rf[@]}" rf < <(bench_pair "$cf")
  done
  local t6=- m6=- t7=- m7=- to mo cpu tf=-
  [ "$c6" = - ] || read -r t6 m6 _ < <(printf '%s\n' "${r6[@]}" | bench_best)
  [ "$c7" = - ] || read -r t7 m7 _ < <(printf '%s\n' "${r7[@]}" | bench_best)
  read -r to mo cpu < <(printf '%s\n' "${ro[@]}" | bench_best)
  [ "$cf" = - ] || read -r tf _ < <(printf '%s\n' "${rf[@]}" | bench_best)
  [ "$c6" = - ] || m6=$(bench_tree_peak "$c6" "$m6")
  [ "$c7" = - ] || m7=$(bench_tree_peak "$c7" "$m7")
  mo=$(bench_tree_peak "$co" "$mo")
  bench_floor_of[$name]=$tf
  bench_ours_of[$name]=$to
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s / %s | %s |\n' "$name" \
    "$(bench_secs "$t6")" "$(bench_secs "$t7")" "$(bench_secs "$to")" \
    "$(bench_ratio "$t6" "$to")" "$(bench_ratio "$t7" "$to")" "$(bench_secs "$tf")" \
    "$(bench_over "$to" "$tf")" "$(bench_secs "$(awk -v c="$cpu" -v n="$bench_cores" 'BEGIN { printf "%.3f", c / n }')")" \
    "$(bench_mb "$m6")" "$(bench_mb "$m7")" "$(bench_mb "$mo")" "$same"
}

bench_tree_peak() { # command line, a peak in KB -> the larger of that and the
  # job's processes' peak together (0, a run that failed, stays 0)
  local m
  [ "${2:-0}" != 0 ] || { echo 0; return; }
  eval "${BENCH_BEFORE:-}"
  m=$(python3 "$BENCH_ROOT/scripts/bench-tree-peak.py" "$1")
  echo $((m > ${2:-0} ? m : ${2:-0}))
}

bench_secs() { case $1 in -|fail) echo "$1" ;; *) echo "$1 s" ;; esac; }
bench_mb() { case $1 in -|0) echo - ;; *) awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }' ;; esac; }

bench_threads() { # name ours: ours on 1..cores threads, each as a speed-up over 1;
  # from 1 and 2 threads, the serial fraction f (Amdahl: 1/S2 = f + (1 - f)/2) and
  # what 16 cores would make of it
  local name=$1 co=$2 n _ t1= t2= line
  line="$name:"
  for n in $(seq "$bench_cores"); do
    local runs=() t
    for _ in $(seq "$bench_rounds"); do runs+=("$(PCPRS_THREADS=$n bench_timed "$co")"); done
    read -r t _ < <(printf '%s\n' "${runs[@]}" | bench_best)
    [ -n "$t1" ] || t1=$t
    [ "$n" != 2 ] || t2=$t
    line+=" $n thread(s) $t s (x$(bench_over "$t1" "$t"))"
  done
  if [ -n "$t2" ]; then
    line+=$(awk -v a="$t1" -v b="$t2" 'BEGIN { s = a / b; f = 2 / s - 1; if (f < 0) f = 0; if (f > 1) f = 1;
      printf "; serial fraction %.2f, 16 cores: x%.2f of 1", f, 1 / (f + (1 - f) / 16) }')
  fi
  echo "$line"
}

bench_plain_copy() { # dir files...: each file into dir, decompressed where it is
  # xz (the copies for bench_bound's work; one already there is kept)
  local dir=$1 f n
  shift
  mkdir -p "$dir"
  for f in "$@"; do
    n=$dir/$(basename "${f%.xz}")
    [ -f "$n" ] || case $f in *.xz) xz -dc "$f" >"$n" ;; *) cp "$f" "$n" ;; esac
  done
}

bench_bound_header() {
  printf '| job | decoding (CPU) | ours on the decoded copy (CPU) | both over %s cores | that over the floor | ours over the floor |\n' "$bench_cores"
  printf '|---|---|---|---|---|---|\n'
}

bench_bound() { # name decode work: see the head of this file
  local name=$1 cd=$2 cw=$3 d=() w=() _ td tw
  for _ in $(seq "$bench_rounds"); do
    d+=("$(bench_timed "$cd" | awk '{ print $3 }')")
    w+=("$(bench_timed "$cw" | awk '{ print $3 }')")
  done
  td=$(printf '%s\n' "${d[@]}" | bench_best)
  tw=$(printf '%s\n' "${w[@]}" | bench_best)
  local bound
  bound=$(awk -v a="$td" -v b="$tw" -v n="$bench_cores" 'BEGIN { printf "%.3f", (a + b) / n }')
  printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$(bench_secs "$td")" "$(bench_secs "$tw")" \
    "$(bench_secs "$bound")" "$(bench_over "$bound" "${bench_floor_of[$name]:--}")" \
    "$(bench_over "${bench_ours_of[$name]:-fail}" "${bench_floor_of[$name]:--}")"
}
