#!/bin/bash
# tools/bench/gpu_bench/ranks_resident.sh: sssp's resident exchange on one GPU and on one rank per GPU
# (docs/distributed.md "sssp: the resident exchange on ranks"), in one call on a machine with
# several GPUs: weak scaling (SIDE^2 cells per GPU on 1, 2, 4, ... GPUs) and strong scaling (the
# largest raster on one GPU and on each rank count), every output compared with `cmp`, and at 8192^2 against --device cpu.
#
# Usage (from the repository root, with a CLI bundle made WITHOUT_MPI=1 by tools/bench/device_bundle.sh):
#   tools/bench/gpu_bench/ranks_resident.sh SCRATCH BUNDLE.tar.xz [SIDE [THREADS_PER_RANK [MEMORY_PER_RANK]]]
# GPU_TESTS=1 also builds the GDAL-free GPU tests and runs GpuResidentSssp.* (in the background).
set -uo pipefail
scratch=$1 bundle=$2 side=${3:-32768} threads=${4:-16} memory=${5:-32G}
source "$(dirname "$0")/ranks_prologue.sh"
if [ "${GPU_TESTS:-0}" = 1 ]; then
  (cmake -S . -B "$scratch/build" -G Ninja -DTERRAZO_GPU_ONLY=ON -DCMAKE_BUILD_TYPE=Release > "$scratch/cmake.log" 2>&1 &&
     cmake --build "$scratch/build" -j8 --target terrazo_gpu_tests > "$scratch/build.log" 2>&1 &&
     "$scratch/build/terrazo_gpu_tests" --gtest_filter='GpuResidentSssp.*' --gtest_brief=1 > "$out/gpu_tests.log" 2>&1
   echo "gpu tests exit $?" >> "$out/gpu_tests.log") &
  tests_pid=$!
fi

# NAME RANKS DEVICE INPUT SOURCE [FLAGS...]: one run (RANKS 0: no mpirun); its wall time and phases
# (each rank's exchange) printed, its --json kept.
run_one() {
  local name=$1 ranks=$2 device=$3 input=$4 source=$5 launch=() start end
  shift 5
  [ "$ranks" = 0 ] || launch=(mpirun -np "$ranks" --bind-to none)
  start=$(date +%s.%N)
  "${launch[@]}" "$tz" sssp --exchange resident --device "$device" --threads "$threads" --memory "$memory" --ot Float32 \
    --source "$source" "$@" --json -q "$input" "$scratch/$name.tif" > "$out/$name.json" 2> "$scratch/$name.err" ||
    { tail -5 "$scratch/$name.err"; note_failure "$name"; return; }
  end=$(date +%s.%N)
  python3 - "$out/$name.json" "$name" "$(python3 -c "print($end - $start)")" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
p, r = d["phases"], d.get("ranks")
ex = r["phases"]["exchange"] if r else [p["exchange"]]
per_rank = lambda key: ", ".join(f"{x:.2f}" for x in r["phases"][key]) if r else "-"
print(f'{sys.argv[2]:<22} wall {float(sys.argv[3]):7.2f} s  load {p["load"]:6.2f}  exchange {max(ex):6.2f} '
      f'(per rank {", ".join(f"{x:.2f}" for x in ex)}; trade {per_rank("exchange_trade")}; agree {per_rank("exchange_agree")})  '
      f'write {p["write"]:6.2f}  rounds {d["rounds"]}  solves {d["solves"]}  exchange={d["exchange"]} device={d["device"]}')
PY
}
same() { cmp -s "$scratch/$1.tif" "$scratch/$2.tif" && echo "same bytes: $1 = $2" || note_failure "$1 differs from $2"; }

# Against the CPU, small.
small="$scratch/small.tzs"
"$tz" gen -q --width 8192 --height 8192 --seed 4711 --nodata-holes 0.02 "$small"
run_one small_cpu 0 cpu "$small" 4096,4096
run_one small_np${gpus}_cuda "$gpus" cuda "$small" 4096,4096
run_one small_np${gpus}_cpu "$gpus" cpu "$small" 4096,4096
same small_cpu small_np${gpus}_cuda
same small_cpu small_np${gpus}_cpu

# Weak: SIDE x (N x SIDE) on N GPUs for N = 1, 2, 4, ... up to GPUS. Strong: SIDE x (GPUS x SIDE) on
# one GPU and on each of those rank counts.
all="$scratch/all.tzs"
"$tz" gen -q --width "$side" --height $((side * gpus)) --seed 4711 --nodata-holes 0.02 "$all"
echo "rasters: ${side} wide, ${side} to $((side * gpus)) high, $threads threads and --memory $memory per rank"
for ((n = 1; n < gpus; n *= 2)); do
  part="$scratch/weak_$n.tzs"
  "$tz" gen -q --width "$side" --height $((side * n)) --seed 4711 --nodata-holes 0.02 "$part"
  if [ "$n" = 1 ]; then run_one weak_1gpu 0 cuda "$part" $((side / 2)),$((side / 2))
  else run_one weak_np${n}_cuda "$n" cuda "$part" $((side / 2)),$((side * n / 2)); fi
  rm -f "$scratch"/weak_*.tif "$part"
done
run_one strong_1gpu 0 cuda "$all" $((side / 2)),$((side * gpus / 2))
for ((n = 2; n <= gpus; n *= 2)); do
  run_one strong_np${n}_cuda "$n" cuda "$all" $((side / 2)),$((side * gpus / 2))
  same strong_1gpu strong_np${n}_cuda
  rm -f "$scratch/strong_np${n}_cuda.tif"
done
# ROUNDS="512 1024": the strong runs again with wider rounds (--resident-round: tiles a round aims at, per rank).
for width in ${ROUNDS:-}; do
  run_one strong_1gpu_r$width 0 cuda "$all" $((side / 2)),$((side * gpus / 2)) --resident-round "$width"
  run_one strong_np${gpus}_cuda_r$width "$gpus" cuda "$all" $((side / 2)),$((side * gpus / 2)) --resident-round "$width"
  same strong_1gpu strong_np${gpus}_cuda_r$width
  rm -f "$scratch"/strong_*_r$width.tif
done
if [ -n "${tests_pid:-}" ]; then wait "$tests_pid"; tail -4 "$out/gpu_tests.log"; grep -q "exit 0" "$out/gpu_tests.log" || note_failure "gpu tests"; fi
rm -f "$scratch"/*.tif "$all" "$small"
echo "$failures failure(s)"
[ "$failures" = 0 ]
