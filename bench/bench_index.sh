#!/bin/bash
# bench/bench_index.sh: the boundary-graph index against the ordinary exchange (docs/index.md,
# docs/benchmarks.md "Index and od-matrix"), on `terrazo gen --width SIDE --height SIDE --seed SEED`:
# the index build, od-matrix for each K with the index and without it, and K separate `terrazo sssp`
# runs (each writing its cost raster, as a user would) for the smallest K. Checks that both od-matrix
# ways write the same CSV. Prints each run's --json line prefixed by its name, with /usr/bin/time's
# wall, user and system seconds and peak RSS.
#
# Usage: bench/bench_index.sh TERRAZO SIDE TILE DEVICE WORKDIR K...
#   TERRAZO  the terrazo command (a build's binary, or DIR/terrazo.sh from bench/device_bundle.sh)
#   DEVICE   cpu or cuda (the index build; the queries run on the CPU)
# Example (GPU machine): bench/bench_index.sh /tmp/tz/terrazo.sh 4096 64 cuda /tmp/work 10 100
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
  sites=$(awk -v k="$k" -v s="$side" 'BEGIN { srand(11); for (i = 0; i < k; i++) printf "--site %d,%d ", int(rand() * s), int(rand() * s) }')
  timed "od-index-k$k" "$tz" od-matrix -q --json --index "$index" $sites "$store" "$work/od_i_$k.csv"
  timed "od-exchange-k$k" "$tz" od-matrix -q --json $sites "$store" "$work/od_x_$k.csv"
  cmp "$work/od_i_$k.csv" "$work/od_x_$k.csv" && echo "k$k: the same CSV with and without the index"
  if [ $first -eq 1 ]; then
    first=0
    start=$(date +%s.%N)
    for p in $(echo $sites | tr ' ' '\n' | grep -v -- --site); do "$tz" sssp -q --source "$p" "$store" "$work/cost.tif"; done
    echo "sssp-runs-k$k: $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s wall for $k runs"
    rm -f "$work/cost.tif"
  fi
done
