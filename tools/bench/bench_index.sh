#!/bin/bash
# tools/bench/bench_index.sh: the boundary-graph index against the ordinary exchange (docs/index.md,
# docs/benchmarks.md "Index and od-matrix"), on `terrazo gen --width SIDE --height SIDE --seed SEED`:
# the index build, od-matrix for each K with the index and without it, and K separate `terrazo sssp`
# runs (each writing its cost raster, as a user would) for the smallest K. Checks that both od-matrix
# ways write the same CSV. Prints each run's --json line prefixed by its name, with /usr/bin/time's
# wall, user and system seconds and peak RSS.
#
# Usage: tools/bench/bench_index.sh TERRAZO SIDE TILE DEVICE WORKDIR K...
#   TERRAZO  the terrazo command (a build's binary, or DIR/terrazo.sh from tools/bench/device_bundle.sh)
#   DEVICE   cpu or cuda: the index build and od-matrix --index; with cuda the query also runs with
#            --device cpu (the same binary, the same call) and the two CSVs must be equal
#   MEMORY (environment) --memory of the od-matrix runs (default 1G; the labels of a batch take
#            16 bytes per ring cell and source, about 64/t bytes per cell and source)
#   SKIP_EXCHANGE=1 (environment) leaves out od-matrix without the index
#   SKIP_CPU_QUERY=1 (environment) with DEVICE cuda, leaves out the od-matrix --index --device cpu
#            comparison (hours at 268 M cells and K = 100)
#   GPU_MEMORY (environment) --gpu-memory of od-matrix --device cuda (default: the program's)
#   SSSP_RUNS (environment) separate `terrazo sssp` runs timed for the smallest K (default: K; the
#            per-run mean times K is the estimate when fewer)
# Example (GPU machine): tools/bench/bench_index.sh /tmp/tz/terrazo.sh 4096 64 cuda /tmp/work 10 100
set -euo pipefail
tz=$1
side=$2
tile=$3
device=$4
work=$5
shift 5
mkdir -p "$work"
store=$work/g$side.tzs
index=$work/g${side}_t$tile.tzi
timed() { local name=$1; shift; /usr/bin/time -f "$name time: %e s wall, %U s user, %S s sys, %M KiB peak" "$@" | sed "s/^/$name /"; }
[ -f "$store" ] || "$tz" gen -q --width "$side" --height "$side" --seed 7 "$store"
timed index "$tz" index -q --json --device "$device" --tile "$tile" "$store" "$index"
first=1
for k in "$@"; do
  sites=$(awk -v k="$k" -v s="$side" 'BEGIN { x = 11; for (i = 0; i < k; i++) { x = (x * 48271) % 2147483647; a = int(x / 2147483647 * s); x = (x * 48271) % 2147483647; printf "--site %d,%d ", a, int(x / 2147483647 * s) } }')
  gpu_memory=()
  [ -n "${GPU_MEMORY:-}" ] && [ "$device" = cuda ] && gpu_memory=(--gpu-memory "$GPU_MEMORY")
  timed "od-index-$device-k$k" "$tz" od-matrix -q --json --memory "${MEMORY:-1G}" --device "$device" "${gpu_memory[@]}" --index "$index" $sites "$store" "$work/od_i_$k.csv"
  if [ "$device" = cuda ] && [ "${SKIP_CPU_QUERY:-0}" = 0 ]; then
    timed "od-index-cpu-k$k" "$tz" od-matrix -q --json --memory "${MEMORY:-1G}" --device cpu --index "$index" $sites "$store" "$work/od_c_$k.csv"
    cmp "$work/od_i_$k.csv" "$work/od_c_$k.csv" && echo "k$k: the same CSV with the query on the GPU and on the CPU"
  fi
  if [ "${SKIP_EXCHANGE:-0}" = 0 ]; then
    timed "od-exchange-k$k" "$tz" od-matrix -q --json --memory "${MEMORY:-1G}" $sites "$store" "$work/od_x_$k.csv"
    cmp "$work/od_i_$k.csv" "$work/od_x_$k.csv" && echo "k$k: the same CSV with and without the index"
  fi
  if [ $first -eq 1 ]; then
    first=0
    runs=${SSSP_RUNS:-$k}
    start=$(date +%s.%N)
    for p in $(echo $sites | tr ' ' '\n' | grep -v -- --site | head -n "$runs"); do
      timed "sssp-$p" "$tz" sssp -q --json --source "$p" "$store" "$work/cost.tif"
    done
    echo "sssp-runs-k$k: $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s wall for $runs runs"
    rm -f "$work/cost.tif"
  fi
done
