#!/bin/bash
# tools/bench/gpu_bench/od_matrix_268m.sh: issue 10's whole commands at 268 M cells on the GPU machine in one
# call (docs/benchmarks.md "One command on the GPU: the index in the query's memory, due sources
# grouped"): terrazo_gpu_tests and terrazo_od_matrix_gpu_check, then on `gen 16384x16384 --seed 7`:
# `index` (file), `od-matrix --index` and `od-matrix` without an index (built on the GPU), K = 100 twice,
# every CSV compared with cmp; K = 10 and 1,000 without an index; three `sssp` runs (the baseline: 100 of
# them against one od-matrix). With OLD (a terrazo binary of another build) the old build's index and
# od-matrix run in turn and are compared too. Logs to $OUT/log.txt.
# Usage (from the repository root on the GPU machine): tools/bench/gpu_bench/od_matrix_268m.sh BUNDLE.tar.xz [OLD]
#   BUNDLE.tar.xz  tools/bench/device_bundle.sh TERRAZO BUNDLE.tar.xz TERRAZO_GPU_TESTS TERRAZO_OD_MATRIX_GPU_CHECK
source "$(dirname "$0")/gpu_session.sh"
unpack "$1"
T=/tmp/tz/terrazo.sh
O=
if [ -n "${2:-}" ]; then
  cp "$2" /tmp/tz/terrazo_old && chmod +x /tmp/tz/terrazo_old
  sed 's#/terrazo" #/terrazo_old" #' $T > /tmp/tz/terrazo_old.sh && chmod +x /tmp/tz/terrazo_old.sh
  O=/tmp/tz/terrazo_old.sh
fi
gpu_identity
step 170 /tmp/tz/terrazo_gpu_tests.sh --gtest_brief=1
step 120 /tmp/tz/terrazo_od_matrix_gpu_check.sh --scratch /tmp/w
S=/tmp/w/g16384.tzs
step 90 $T gen -q --width 16384 --height 16384 --seed 7 $S
sites() { awk -v k=$1 -v s=16384 'BEGIN { x = 11; for (i = 0; i < k; i++) { x = (x * 48271) % 2147483647; a = int(x / 2147483647 * s); x = (x * 48271) % 2147483647; printf "--site %d,%d ", a, int(x / 2147483647 * s) } }'; }
K100=$(sites 100)
if [ -n "$O" ]; then
  step 90 /usr/bin/time -f "%e s wall %M KiB" $O index -q --json --device cuda --tile 64 $S /tmp/w/i_old.tzi
fi
step 90 /usr/bin/time -f "%e s wall %M KiB" $T index -q --json --device cuda --tile 64 $S /tmp/w/i.tzi
if [ -n "$O" ]; then
  step 30 cmp /tmp/w/i_old.tzi /tmp/w/i.tzi
  rm -f /tmp/w/i_old.tzi
  step 80 /usr/bin/time -f "%e s wall %M KiB" $O od-matrix -q --json --memory 16G --device cuda --index /tmp/w/i.tzi $K100 $S /tmp/w/od_old.csv
fi
for r in 1 2; do
  step 80 /usr/bin/time -f "%e s wall %M KiB" $T od-matrix -q --json --memory 16G --device cuda --index /tmp/w/i.tzi $K100 $S /tmp/w/od_index$r.csv
  step 80 /usr/bin/time -f "%e s wall %M KiB" $T od-matrix -q --json --memory 16G --device cuda $K100 $S /tmp/w/od_gpu$r.csv
done
for f in od_index2 od_gpu1 od_gpu2 ${O:+od_old}; do step 10 cmp /tmp/w/od_index1.csv /tmp/w/$f.csv; done
rm -f /tmp/w/i.tzi
for k in 10 1000; do
  step 150 /usr/bin/time -f "%e s wall %M KiB" $T od-matrix -q --json --memory 16G --device cuda $(sites $k) $S /tmp/w/od_k$k.csv
done
for i in 2 3 4; do
  src=$(echo $K100 | awk -v i=$i '{print $(2*i)}')
  step 40 /usr/bin/time -f "%e s wall %M KiB" $T sssp -q --json --device cuda --source $src --tmpdir /tmp/w $S /tmp/w/c.tif
  rm -f /tmp/w/c.tif
done
echo "=== done $(date +%T)" >>"$L"
