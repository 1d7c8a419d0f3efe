#!/bin/bash
# tools/bench/gpu_bench/budget_gpu.sh: the budget promise of every GPU path on the GPU machine
# (docs/reliability.md "GPU paths on inputs larger than their budget"): on a generated raster several
# times larger than MEMORY, each command that runs on CUDA, with --device cuda --memory MEMORY; its
# peak RSS (the child's ru_maxrss, as validate_gpu.sh measures it) against MEMORY + 64 MiB. A run
# refused up front ("memory budget too small", exit 1) keeps the promise too and is reported so.
# Usage (repository root, GPU machine): tools/bench/gpu_bench/budget_gpu.sh SCRATCH BUNDLE.tar.xz [SIDE [MEMORY]]
set -uo pipefail
scratch=$1 bundle=$2 side=${3:-16384} memory=${4:-256M}
failures=0
mkdir -p "$scratch/tz" && tar -xJf "$bundle" -C "$scratch/tz"
tz="$scratch/tz/terrazo.sh" g="$scratch/g.tzs" b="$scratch/b.tif"
"$tz" gen -q --width "$side" --height "$side" --seed 4711 --nodata-holes 0.02 "$g"
"$tz" gen -q --type Byte --relief 7 --width "$side" --height "$side" --seed 11 --nodata-holes 0.02 "$b"
echo "inputs: $(stat -c %s "$g") bytes (Float32 store), $(stat -c %s "$b") bytes (Byte GeoTIFF); --memory $memory"
limit=$(python3 -c "import sys; u={'M': 1 << 20, 'G': 1 << 30}; s=sys.argv[1]; print(int(float(s[:-1]) * u[s[-1]]) + (64 << 20))" "$memory")
measure() {  # NAME ARGS...: the command with --device cuda --memory MEMORY, its peak RSS against the promise
  local name=$1; shift
  local peak
  peak=$(python3 -c 'import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, r.returncode, r.stderr.strip().replace("\n", " ")[:300])' \
         "$tz" "$@" --device cuda --memory "$memory" -q)
  set -- $peak
  local bytes=$1 rc=$2; shift 2
  echo "$name: rc $rc, peak RSS $bytes bytes (promise $limit) $*"
  if [ "$rc" != 0 ]; then
    case "$*" in *"memory budget too small"*) echo "$name: refused up front" ;; *) failures=$((failures + 1)) ;; esac
  fi
  [ "$bytes" -le "$limit" ] || { echo "FAIL: $name peaked over the promise"; failures=$((failures + 1)); }
}
measure "sssp resident" sssp --source 100,100 --source 5000,3000 --ot Float32 "$g" "$scratch/s.tif"
measure "sssp streamed" sssp --exchange streamed --source 100,100 --ot Float32 "$g" "$scratch/s2.tif"
measure "mst" mst "$g" "$scratch/m.tif"
measure "clump" clump "$b" "$scratch/l.tif"
measure "index" index "$g" "$scratch/i.tzi"
measure "od-matrix --index" od-matrix --index "$scratch/i.tzi" --site 100,100 --site 5000,3000 --site 9000,9000 "$g" "$scratch/o.csv"
measure "od-matrix --transient-index" od-matrix --transient-index --site 100,100 --site 5000,3000 "$g" "$scratch/o2.csv"
rm -f "$scratch"/*.tif "$scratch"/*.tzi "$g"
echo "$failures failure(s)"
[ "$failures" = 0 ]
