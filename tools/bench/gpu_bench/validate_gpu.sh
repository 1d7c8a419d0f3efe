#!/bin/bash
# tools/bench/gpu_bench/validate_gpu.sh: one call on the GPU machine that checks a commit there
# (docs/testing.md "GPU tests"):
#   1. builds the GDAL-free targets (-DTERRAZO_GPU_ONLY=ON: the GPU tests and whole-pipeline checks)
#      from the working tree and runs every GPU test and the four gpu checks (GPU = CPU twin and
#      oracle, bit for bit);
#   2. with a CLI bundle of tools/bench/device_bundle.sh: every GPU command of the same binary with
#      --device cuda and --device cpu on a generated raster (flowdir: on its fill; flowacc and
#      watershed: on its directions), outputs compared byte for byte, and the peak RSS of each against the promise
#      (--memory + 64 MiB).
#
# Usage (from the repository root): tools/bench/gpu_bench/validate_gpu.sh SCRATCH [BUNDLE.tar.xz [SIDE [MEMORY]]]
# COMMANDS="fill flowacc ..." runs only those CLI steps (default: all of them).
set -uo pipefail
scratch=$1 bundle=${2:-} side=${3:-8192} memory=${4:-512M}
failures=0
note_failure() { echo "FAIL: $*"; failures=$((failures + 1)); }
mkdir -p "$scratch"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader

# 1. GPU tests and checks, built here.
cmake -S . -B "$scratch/build" -G Ninja -DTERRAZO_GPU_ONLY=ON -DCMAKE_BUILD_TYPE=Release > "$scratch/cmake.log" 2>&1 &&
  cmake --build "$scratch/build" -j"$(nproc)" > "$scratch/build.log" 2>&1 || { tail -30 "$scratch/build.log"; exit 1; }
"$scratch/build/terrazo_gpu_tests" --gtest_brief=1 2>&1 | tail -5 || note_failure "terrazo_gpu_tests"
for check in sssp mst clump od_matrix; do
  "$scratch/build/terrazo_${check}_gpu_check" > "$scratch/$check.log" 2>&1 && echo "gpu check $check: ok ($(tail -1 "$scratch/$check.log"))" ||
    { tail -5 "$scratch/$check.log"; note_failure "terrazo_${check}_gpu_check"; }
done

# 2. The CLI: cuda against cpu, byte for byte, and the budget promise.
if [ -n "$bundle" ]; then
  mkdir -p "$scratch/tz" && tar -xJf "$bundle" -C "$scratch/tz"
  tz="$scratch/tz/terrazo.sh" g="$scratch/g.tzs"
  "$tz" gen -q --width "$side" --height "$side" --seed 4711 --nodata-holes 0.02 "$g"
  wanted() { [ -z "${COMMANDS:-}" ] || [[ " $COMMANDS " == *" $1 "* ]]; }
  # NAME OUTPUT-NAME ARGS...: the command on both devices, outputs compared, peak RSS checked against
  # MEMORY, or RUN_MEMORY where the command's tile pipeline needs more at this SIDE.
  run_both() {
    local name=$1 out=$2 memory=${RUN_MEMORY:-$memory}; shift 2
    wanted "$name" || return 0
    local limit
    limit=$(python3 -c "import sys; u={'M': 1 << 20, 'G': 1 << 30}; s=sys.argv[1]; print(int(float(s[:-1]) * u[s[-1]]) + (64 << 20))" "$memory")
    for device in cuda cpu; do
      # VmHWM of the child (ru_maxrss), not the JSON's: every command is measured the same way.
      local peak
      peak=$(python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)' \
             "$tz" "$@" --device "$device" --memory "$memory" -q "$g" "$scratch/${name}_$device.$out") ||
        { note_failure "$name --device $device failed"; continue; }
      echo "$name --device $device: peak RSS $peak bytes (promise $limit)"
      [ "$peak" -le "$limit" ] || note_failure "$name --device $device peaked over the promise"
    done
    cmp -s "$scratch/${name}_cuda.$out" "$scratch/${name}_cpu.$out" && echo "$name: cuda = cpu, byte for byte" ||
      note_failure "$name: cuda and cpu outputs differ"
  }
  run_both sssp tif sssp --source 100,100 --source 5000,3000 --ot Float32 --gpu-memory 1G
  run_both mst tif mst --gpu-memory 1G
  run_both clump tif clump --by range:0,500 --gpu-memory 1G
  run_both odm csv od-matrix --transient-index --site 100,100 --site 5000,3000 --site 7000,7000
  # The CPU tile pipeline's spill graph at 8192^2 with 256-cell tiles needs about 650 MiB.
  RUN_MEMORY=2G run_both fill tif fill --gpu-memory 4G
  # flowdir reads the filled raster (the fill above, on the CPU); its tile pipeline holds the flats
  # that cross tile borders in memory (about 1 GiB at 8192^2, filled).
  if wanted flowdir || wanted flowacc || wanted watershed; then
    [ -f "$scratch/fill_cpu.tif" ] || "$tz" fill -q --device cpu --memory 2G "$g" "$scratch/fill_cpu.tif"
  fi
  RUN_MEMORY=2G g="$scratch/fill_cpu.tif" run_both flowdir tif flowdir --gpu-memory 8G
  # flowacc and watershed read directions: the D8 (on the CPU) of the fill above.
  if wanted flowacc || wanted watershed; then
    "$tz" flowdir -q --device cpu --memory 2G "$scratch/fill_cpu.tif" "$scratch/dir.tif" ||
      note_failure "flowdir for flowacc and watershed"
  fi
  g="$scratch/dir.tif" run_both flowacc tif flowacc
  g="$scratch/dir.tif" run_both watershed tif watershed
fi
echo "$failures failure(s)"
[ "$failures" = 0 ]
