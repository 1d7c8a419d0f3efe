#!/bin/bash
# tools/bench/gpu_bench/ranks_large.sh: a raster larger than one GPU's memory (SIDE^2 cells, 17 G at
# SIDE 131072) solved on one rank per GPU (issue 32's largest row; docs/distributed.md): `sssp
# --exchange resident` and `mst`, each run's wall time, phases and per-rank peaks kept. No output is
# compared here (no one GPU holds the raster): the tests and ranks_resident.sh check the bytes.
#
# Usage (from the repository root, with a CLI bundle made WITHOUT_MPI=1 by tools/bench/device_bundle.sh):
#   tools/bench/gpu_bench/ranks_large.sh SCRATCH BUNDLE.tar.xz [SIDE [THREADS_PER_RANK [MEMORY_PER_RANK]]]
set -uo pipefail
scratch=$1 bundle=$2 side=${3:-131072} threads=${4:-16} memory=${5:-32G}
source "$(dirname "$0")/ranks_prologue.sh"
raster="$scratch/large.tzs"
seconds() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$@"; }
start=$(date +%s.%N)
"$tz" gen -q --width "$side" --height "$side" --seed 4711 --nodata-holes 0.02 "$raster" || note_failure gen
echo "gen ${side}x${side}: $(seconds "$start" "$(date +%s.%N)") s, $(du -h "$raster" | cut -f1) tile store; df: $(df -h "$scratch" | tail -1)"

# NAME OUTPUT ARGS...: one run on GPUS ranks; wall seconds, the --json's phases and peaks printed.
run_ranks() {
  local name=$1 output=$2 begin
  shift 2
  begin=$(date +%s.%N)
  mpirun -np "$gpus" --bind-to none "$tz" "$@" --device cuda --threads "$threads" --memory "$memory" --json -q \
    "$raster" "$scratch/$name.$output" > "$out/$name.json" 2> "$scratch/$name.err" ||
    { tail -5 "$scratch/$name.err"; note_failure "$name"; return; }
  echo "$name on $gpus ranks: wall $(seconds "$begin" "$(date +%s.%N)") s, output $(du -h "$scratch/$name.$output" | cut -f1)"
  python3 -c "import json, sys; d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1]); print(' phases', d['phases']); print(' ranks', d.get('ranks')); print(' peak_rss', d.get('peak_rss_bytes'), 'rounds', d.get('rounds'))" "$out/$name.json"
  rm -f "$scratch/$name.$output"
}
run_ranks sssp_large tif sssp --exchange resident --ot Float32 --source $((side / 2)),$((side / 2))
run_ranks mst_large tif mst --merge cpu
rm -f "$raster"
echo "$failures failure(s)"
[ "$failures" = 0 ]
