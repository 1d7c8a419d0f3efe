#!/bin/bash
# tools/bench/gpu_bench/headline_1g.sh: the 1.07 G-cell headline rows on the GPU machine in one call (docs/benchmarks.md
# "The 1.07 G-cell rows on the H200, c695258"): terrazo_gpu_tests, then sssp (resident against --device cpu,
# with the read and write floors), mst (cuda at --memory 8G and 1G, cpu) and clump (cuda twice, cpu) on
# generated terrain, each output compared with cmp. Logs to $OUT/log.txt.
# Usage (from the repository root on the GPU machine): tools/bench/gpu_bench/headline_1g.sh BUNDLE.tar.xz
#   BUNDLE.tar.xz  tools/bench/device_bundle.sh TERRAZO BUNDLE.tar.xz TERRAZO_GPU_TESTS
source "$(dirname "$0")/gpu_session.sh"
unpack "$1"
gpu_identity
step 20 /tmp/tz/terrazo.sh --version
step 170 /tmp/tz/terrazo_gpu_tests.sh --gtest_brief=1
step 200 tools/bench/bench_sssp_gpu.sh /tmp/tz/terrazo.sh 32768 11 /tmp/w resident cpu
for m in 8G 1G; do
  step 60 /tmp/tz/terrazo.sh mst -q --json --device cuda --memory $m --tmpdir /tmp/w /tmp/w/g32768.tzs /tmp/w/e_cuda_$m.tif
done
step 90 /tmp/tz/terrazo.sh mst -q --json --device cpu --memory 8G --tmpdir /tmp/w /tmp/w/g32768.tzs /tmp/w/e_cpu.tif
step 20 cmp /tmp/w/e_cuda_8G.tif /tmp/w/e_cpu.tif
rm -f /tmp/w/*.tif /tmp/w/g32768.tzs
step 90 /tmp/tz/terrazo.sh gen -q --type Byte --relief 7 --nodata-holes 0.02 --seed 11 --width 32768 --height 32768 /tmp/w/b.tif
for d in cuda cuda cpu; do
  step 60 /usr/bin/time -f "%e s wall %M KiB" /tmp/tz/terrazo.sh clump -q --json --device $d --memory 8G --tmpdir /tmp/w /tmp/w/b.tif /tmp/w/l_$d.tif
done
step 20 cmp /tmp/w/l_cuda.tif /tmp/w/l_cpu.tif
echo "=== done $(date +%T)" >>"$L"
