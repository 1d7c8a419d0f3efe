# tools/bench/bench_lib.sh: what the paired benchmarks (bench_clump.sh, bench_fill.sh) share, sourced:
#   bench_parse USAGE FLAG VAR ARGS...  reads --terrazo BIN, --threads N, --rounds N and FLAG VALUE (into
#                                       the variable VAR; defaults set before the call), then one INPUT;
#                                       sets input, bench (this folder), work (a temporary folder,
#                                       removed at exit) and times (the runs' file); USAGE: the options
#                                       and INPUT, printed on a usage error (exit 2)
#   bench_run NAME COMMAND...           one timed run (/usr/bin/time): appends "NAME wall cpu rss_kib"
#                                       to $times and prints it; a failed run prints its stderr, exit 1
#   bench_load WHEN                     prints the load average ("load before: ...")
# and what the GPU-against-CPU benchmarks (bench_sssp_gpu.sh, bench_fill_gpu.sh, bench_flowdir_gpu.sh,
# bench_flowacc_gpu.sh)
# share, JSON lines:
#   bench_read_floor FILE               FILE read once: {"run": "read floor", "bytes", "seconds"}
#   bench_write_floor FILE WHAT         FILE copied beside itself and synced: {"run": "write floor (copy
#                                       of WHAT)", "bytes", "seconds"}
#   bench_cmp FIRST FILE RUN FIRST_RUN  {"cmp": "RUN = FIRST_RUN"} when the files are the same bytes,
#                                       else {"cmp": "RUN DIFFERS from FIRST_RUN"}
#   bench_device_run LABEL RUN GPU_MEMORY COMMAND ARGS...
#                                       `$tz COMMAND -q --json` on RUN's device (cuda, with --gpu-memory
#                                       GPU_MEMORY, or cpu; else exit 2), peak RSS timed into
#                                       $work/time_COMMAND_RUN.txt: prints terrazo's JSON line with
#                                       "run": LABEL and "time_peak_rss_kib" added
#   bench_device_runs COMMAND GPU_MEMORY INPUT OUTPUT FLAGS...
#                                       bench_device_run of `COMMAND FLAGS... INPUT OUTPUT_RUN.tif` for
#                                       each RUN of $runs, each output after the first compared with
#                                       the first's (bench_cmp)
#   bench_gen_args TERRAZO [SIDE] [SEED] [WORKDIR] [RUNS...]
#                                       the GPU benchmarks' arguments: sets
#                                       tz, side (32768), seed (4711), work (/tmp/terrazo-bench) and
#                                       store: WORKDIR/gSIDE_SEED.tzs (`TERRAZO gen --nodata-holes
#                                       0.02`, SIDE x SIDE cells), made when absent, one per WORKDIR;
#                                       runs: RUNS (default: cuda cpu)
terrazo=$(dirname "$0")/../../build/terrazo
threads=2
bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

bench_parse() {
  local usage=$1 flag=$2 var=$3
  shift 3
  while [[ $# -gt 1 ]]; do
    case "$1" in
      --terrazo) terrazo=$2; shift 2 ;;
      --threads) threads=$2; shift 2 ;;
      --rounds) rounds=$2; shift 2 ;;
      "$flag") printf -v "$var" '%s' "$2"; shift 2 ;;
      *) echo "$(basename "$0"): unknown option $1" >&2; exit 2 ;;
    esac
  done
  if [[ $# -ne 1 ]]; then
    echo "usage: $0 $usage" >&2
    exit 2
  fi
  input=$(realpath "$1")
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  times="$work/times.txt"
}

bench_run() {
  local name=$1
  shift
  /usr/bin/time -o "$work/t" -f "%e %U %S %M" "$@" >/dev/null 2>"$work/err" || {
    echo "$(basename "$0"): $name failed:" >&2; cat "$work/err" >&2; exit 1; }
  read -r wall user sys rss <"$work/t"
  echo "$name $wall $(echo "$user + $sys" | bc) $rss" | tee -a "$times"
}

bench_load() {
  echo "load $1: $(cut -d' ' -f1-3 /proc/loadavg)"
}

bench_seconds_since() {
  awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }'
}

bench_read_floor() {
  local t0
  t0=$(date +%s.%N); cat "$1" > /dev/null
  echo "{\"run\": \"read floor\", \"bytes\": $(stat -c %s "$1"), \"seconds\": $(bench_seconds_since "$t0")}"
}

bench_write_floor() {
  local t0 copy="$1.copy"
  t0=$(date +%s.%N); cp "$1" "$copy"; sync "$copy"
  echo "{\"run\": \"write floor (copy of $2)\", \"bytes\": $(stat -c %s "$1"), \"seconds\": $(bench_seconds_since "$t0")}"
  rm -f "$copy"
}

bench_cmp() {
  cmp -s "$1" "$2" && echo "{\"cmp\": \"$3 = $4\"}" || echo "{\"cmp\": \"$3 DIFFERS from $4\"}"
}

bench_device_run() {
  local label=$1 run=$2 gpu_memory=$3 command=$4 device line
  shift 4
  case $run in
    cuda) device=(--device cuda --gpu-memory "$gpu_memory") ;;
    cpu) device=(--device cpu) ;;
    *) echo "unknown run '$run'" >&2; exit 2 ;;
  esac
  local times=$work/time_${command}_$run.txt
  line=$(/usr/bin/time -f "peak_rss_kib %M" -o "$times" "$tz" "$command" -q --json "${device[@]}" "$@" | tail -1)
  echo "${line%\}}, \"run\": \"$label\", \"time_peak_rss_kib\": $(awk '{print $2}' "$times")}"
}

bench_device_runs() {
  local command=$1 gpu_memory=$2 input=$3 output=$4 run
  shift 4
  for run in "${runs[@]}"; do
    bench_device_run "$run" "$run" "$gpu_memory" "$command" "$@" "$input" "${output}_$run.tif"
    [ "$run" = "${runs[0]}" ] || bench_cmp "${output}_${runs[0]}.tif" "${output}_$run.tif" "$run" "${runs[0]}"
  done
}

bench_gen_args() {
  tz=$1
  side=${2:-32768}
  seed=${3:-4711}
  work=${4:-/tmp/terrazo-bench}
  store=$work/g${side}_$seed.tzs
  mkdir -p "$work"
  if [ ! -f "$store" ]; then
    /usr/bin/time -f "gen: %e s" "$tz" gen -q --width "$side" --height "$side" --seed "$seed" --nodata-holes 0.02 "$store"
  fi
  shift $(( $# < 4 ? $# : 4 ))
  runs=("$@")
  if [ ${#runs[@]} -eq 0 ]; then runs=(cuda cpu); fi
}
