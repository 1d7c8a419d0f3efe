#!/bin/bash
# tools/bench/gpu_bench/ranks_gpu.sh: one call on a GPU machine with several GPUs that runs the
# distributed commands (docs/distributed.md) with one rank per GPU and checks that the outputs are
# the same bytes for every rank count and device; times and --json per run under $OUT when set.
#
# Usage (from the repository root, with a CLI bundle made WITHOUT_MPI=1 by tools/bench/device_bundle.sh,
# so that the machine's own Open MPI serves it):
#   tools/bench/gpu_bench/ranks_gpu.sh SCRATCH BUNDLE.tar.xz [SIDE [THREADS_PER_RANK [MEMORY_PER_RANK]]]
# RANKS=N runs up to N ranks (default: one per GPU; more ranks than GPUs share them round-robin).
set -uo pipefail
scratch=$1 bundle=$2 side=${3:-16384} threads=${4:-16} memory=${5:-16G}
source "$(dirname "$0")/ranks_prologue.sh"
most_ranks=${RANKS:-$gpus}
nvidia-smi topo -m 2>/dev/null | head -6
mpirun --version | head -1
g="$scratch/g.tzs"
"$tz" gen -q --width "$side" --height "$side" --seed 4711 --nodata-holes 0.02 "$g"
echo "raster: ${side}x${side} ($(du -h "$g" | cut -f1) tile store), $threads threads and --memory $memory per rank, $gpus GPUs, up to $most_ranks ranks"

# NAME RANKS DEVICE OUTPUT ARGS...: one run (RANKS 0: no mpirun), its wall seconds and --json kept.
run_one() {
  local name=$1 ranks=$2 device=$3 output=$4; shift 4
  local tag="${name}_np${ranks}_${device}" start end launch=()
  [ "$ranks" = 0 ] || launch=(mpirun -np "$ranks" --bind-to none)
  start=$(date +%s.%N)
  "${launch[@]}" "$tz" "$@" --device "$device" --threads "$threads" --memory "$memory" --json -q "$g" "$scratch/$tag.$output" \
    > "$out/$tag.json" 2> "$scratch/$tag.err" || { tail -5 "$scratch/$tag.err"; note_failure "$tag"; return; }
  end=$(date +%s.%N)
  printf "%-28s %8.2f s\n" "$tag" "$(python3 -c "print($end - $start)")"
  cmp -s "$scratch/$tag.$output" "$scratch/${name}_reference.$output" || note_failure "$tag differs from ${name}'s one-process CPU output"
}

# NAME OUTPUT ARGS...: the command on the CPU in one process (the reference), on one GPU in one
# process, and on 1..GPUS ranks with one GPU each.
run_all() {
  local name=$1 output=$2; shift 2
  "$tz" "$@" --device cpu --threads "$threads" --memory "$memory" -q "$g" "$scratch/${name}_reference.$output" ||
    { note_failure "$name reference"; return; }
  run_one "$name" 0 cpu "$output" "$@"
  run_one "$name" 0 cuda "$output" "$@"
  for ((ranks = 1; ranks <= most_ranks; ranks *= 2)); do
    run_one "$name" "$ranks" cuda "$output" "$@"
    run_one "$name" "$ranks" cpu "$output" "$@"
  done
}

run_all sssp tif sssp --source 100,100 --source $((side * 5 / 9)),$((side * 3 / 7)) --ot Float32 --exchange streamed
run_all mst tif mst --merge cpu
run_all clump tif clump --by range:0,500
echo "$failures failure(s)"
[ "$failures" = 0 ]
