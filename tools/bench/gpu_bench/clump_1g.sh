#!/bin/bash
# tools/bench/gpu_bench/clump_1g.sh: `terrazo clump` at 1.07 G cells on the GPU machine in one call (docs/benchmarks.md
# "Clump at 1.07 G cells: the GPU's share"): the Byte bands of headline_1g.sh, clump --device cuda twice and
# --device cpu (16 threads) once, each with its JSON (phases, relabel's split) and the block writer's trace,
# the label rasters compared with cmp, and the read floor (the input read once from the page cache) and the
# write floor (the label raster copied once, with sync). Logs to $OUT/log.txt.
# Usage (from the repository root on the GPU machine): tools/bench/gpu_bench/clump_1g.sh BUNDLE.tar.xz [GPU_TESTS_FILTER]
#   BUNDLE.tar.xz  tools/bench/device_bundle.sh TERRAZO BUNDLE.tar.xz TERRAZO_GPU_TESTS
source "$(dirname "$0")/gpu_session.sh"
unpack "$1"
gpu_identity
step 20 /tmp/tz/terrazo.sh --version
if [ -n "${2:-}" ]; then step 170 /tmp/tz/terrazo_gpu_tests.sh --gtest_brief=1 --gtest_filter="$2"; fi
step 90 /tmp/tz/terrazo.sh gen -q --type Byte --relief 7 --nodata-holes 0.02 --seed 11 --width 32768 --height 32768 /tmp/w/b.tif
step 20 bash -c 'cat /tmp/w/b.tif > /dev/null'   # into the page cache
step 20 bash -c 'time cat /tmp/w/b.tif > /dev/null; ls -l /tmp/w/b.tif'
for d in cuda cuda cpu; do
  step 60 env TERRAZO_GEOTIFF_TRACE=1 /usr/bin/time -f "%e s wall %U user %S sys %M KiB" /tmp/tz/terrazo.sh clump -q --json --device $d --memory 8G --tmpdir /tmp/w /tmp/w/b.tif /tmp/w/l_$d.tif
done
step 20 cmp /tmp/w/l_cuda.tif /tmp/w/l_cpu.tif
step 30 bash -c 'ls -l /tmp/w/l_cpu.tif; time (cp /tmp/w/l_cpu.tif /tmp/w/copy.tif && sync)'
echo "=== done $(date +%T)" >>"$L"
