#!/bin/bash
# tools/bench/gpu_bench/mst_full_cli.sh: the full `terrazo` CLI on the GPU machine (docs/benchmarks.md,
# "MST, whole CLI on the GPU machine"): the binary and its shared libraries travel as the bundle
# made by tools/bench/device_bundle.sh, since that machine's image has no GDAL.
#
#   1. `terrazo gen` makes a SIDE x SIDE Float32 tile store;
#   2. `terrazo mst` runs on it with phase 1 and the merge on the CPU and on the GPU, in the four
#      combinations, each from a fresh process; the JSON summaries must agree on edges and weight
#      (the edge rasters agree cell for cell; tests/ check that, not this script);
#   3. tools/bench/bench_mst.py times `terrazo mst --device cpu,cuda` against SciPy's
#      minimum_spanning_tree on smaller crops of the same terrain (same seed), in one run.
#
# Usage (from the repository root): tools/bench/gpu_bench/mst_full_cli.sh BUNDLE.tar.xz SCRATCH SIDE MEMORY
#        [SCIPY_SIDE ...]
set -euo pipefail
bundle=$1 scratch=$2 side=$3 memory=$4
shift 4
scipy_sides=("$@")
mkdir -p "$scratch/tz" "$scratch/work"
tar -xJf "$bundle" -C "$scratch/tz"
tz="$scratch/tz/terrazo.sh"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
"$tz" --version
"$tz" gen --width "$side" --height "$side" --seed 7 --nodata-holes 0.02 --memory "$memory" -q --json \
  "$scratch/g.tzs" | tail -1
reference=""
for combo in "cpu cpu" "cpu cpu-levels" "cuda cpu" "cuda cuda"; do
  read -r device merge <<<"$combo"
  line=$("$tz" mst --device "$device" --merge "$merge" --memory "$memory" \
           --json -q --tmpdir "$scratch/work" "$scratch/g.tzs" "$scratch/edges_${device}_${merge}.tif" | tail -1)
  echo "device=$device merge=$merge $line"
  key=$(python3 -c 'import json,sys; j=json.loads(sys.argv[1]); print(j["edges"], j["total_weight"])' "$line")
  if [ -z "$reference" ]; then reference=$key; elif [ "$key" != "$reference" ]; then
    echo "MISMATCH: $key != $reference" >&2; exit 1; fi
done
rm -f "$scratch"/edges_*.tif "$scratch/g.tzs"
inputs=()
for s in "${scipy_sides[@]}"; do
  "$tz" gen --width "$s" --height "$s" --seed 7 --nodata-holes 0.02 -q "$scratch/g$s.tzs"
  inputs+=("$scratch/g$s.tzs")
done
if [ ${#inputs[@]} -gt 0 ]; then
  python3 tools/bench/bench_mst.py --terrazo "$tz" --device cpu,cuda --memory "$memory" --tmpdir "$scratch/work" \
    "${inputs[@]}"
fi
