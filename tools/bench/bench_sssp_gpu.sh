#!/bin/bash
# tools/bench/bench_sssp_gpu.sh: sssp on a generated raster with the same terrazo binary, in one call:
# CUDA with the resident exchange, CUDA with the streamed exchange, and --device cpu on every core,
# plus the read floor (the store read once) and the write floor (the cost raster copied once).
# Prints one JSON summary per run (terrazo's --json line with "run" added) and the floors.
#
# Usage: tools/bench/bench_sssp_gpu.sh TERRAZO SIDE [SEED] [WORKDIR] [RUNS...]
#   TERRAZO  the terrazo command (e.g. DIR/terrazo.sh from tools/bench/device_bundle.sh)
#   SIDE     raster side (SIDE x SIDE cells, `terrazo gen --nodata-holes 0.02`)
#   RUNS     any of resident streamed paged cpu (default: resident streamed cpu); paged is the
#            default exchange on CUDA with --gpu-memory $TZ_GPU_MEMORY (4G): the paged resident
#            exchange when the raster does not fit it
# Environment: TZ_MEMORY (--memory, 8G), TZ_SSSP_FLAGS (more sssp flags, e.g. "--ot Float32").
# Every run's output is compared with the first run's (cmp).
# Example (GPU machine): tools/bench/bench_sssp_gpu.sh /tmp/tz/terrazo.sh 32768 11 /tmp/work
set -euo pipefail
source "$(dirname "$0")/bench_lib.sh"
tz=$1
side=$2
seed=${3:-11}
work=${4:-/tmp/terrazo-bench}
shift $(( $# < 4 ? $# : 4 ))
runs=("$@")
[ ${#runs[@]} -eq 0 ] && runs=(resident streamed cpu)
mkdir -p "$work"
store=$work/g$side.tzs
if [ ! -f "$store" ]; then
  /usr/bin/time -f "gen: %e s" "$tz" gen -q --width "$side" --height "$side" --seed "$seed" --nodata-holes 0.02 "$store"
fi
# The source: the first valid cell from the centre along the diagonal (--max-cost 0 finds out fast).
for k in $(seq 0 99); do
  src="$((side / 2 + k)),$((side / 2 + k))"
  if "$tz" sssp -q --json --device cpu --exchange streamed --max-cost 0 --source "$src" "$store" - >/dev/null 2>&1; then break; fi
done
bench_read_floor "$store"
for run in "${runs[@]}"; do
  case $run in
    resident) flags=(--device cuda --exchange resident) ;;
    streamed) flags=(--device cuda --exchange streamed) ;;
    paged) flags=(--device cuda --gpu-memory "${TZ_GPU_MEMORY:-4G}") ;;
    cpu) flags=(--device cpu) ;;
    *) echo "unknown run '$run'" >&2; exit 2 ;;
  esac
  line=$(TERRAZO_GEOTIFF_TRACE=1 /usr/bin/time -f "peak_rss_kib %M" -o "$work/time_$run.txt" "$tz" sssp -q --json --memory "${TZ_MEMORY:-8G}" \
           ${TZ_SSSP_FLAGS:-} "${flags[@]}" --source "$src" "$store" "$work/cost_$run.tif" | tail -1)
  echo "${line%\}}, \"run\": \"$run\", \"time_peak_rss_kib\": $(awk '{print $2}' "$work/time_$run.txt")}"
  [ "$run" = "${runs[0]}" ] || bench_cmp "$work/cost_${runs[0]}.tif" "$work/cost_$run.tif" "$run" "${runs[0]}"
done
bench_write_floor "$work/cost_${runs[0]}.tif" "the cost raster"
